# CLI conventions (issue 13, docs/CLI.md): --version.
add_test(NAME cli_version COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_version.sh $<TARGET_FILE:flightrec_cli> ${PROJECT_VERSION})
# The "unmatched" summary on stderr only when something was unmatched.
add_test(NAME cli_quiet_summary COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_quiet_summary.sh $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:convert_traces>)
# -h, -o, -f, --json, '-', sort keys, exit codes, empty filters, -v, --color, record's checks.
add_test(NAME cli_conventions COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_conventions.sh
  $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:reader_tb_sample> $<TARGET_FILE:convert_traces>)
# info lists the threads that kept no records (a recorded XRay program: clang only).
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_test(NAME cli_info_threads COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_info_threads.sh
    $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:functrace_record_shared>)
endif()
