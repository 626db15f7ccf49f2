# CLI conventions (issue 13, docs/CLI.md): --version.
add_test(NAME cli_version COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_version.sh $<TARGET_FILE:flightrec_cli> ${PROJECT_VERSION})
# The "unmatched" summary on stderr only when something was unmatched.
add_test(NAME cli_quiet_summary COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_quiet_summary.sh $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:convert_traces>)
# -h, -o, -f, --json, '-', sort keys, exit codes, empty filters, -v, --color, record's checks.
add_test(NAME cli_conventions COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_conventions.sh
  $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:reader_tb_sample> $<TARGET_FILE:convert_traces>
  ${CMAKE_SOURCE_DIR}/tests/data/eventheader/EventHeaderInterceptorLE64.dat)
# info lists the threads that kept no records (a recorded XRay program: clang only).
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_test(NAME cli_info_threads COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_info_threads.sh
    $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:functrace_record_shared>)
  # account/stack/graph of a trace that lost records: a note with the count and causes.
  add_test(NAME cli_lost_note COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_lost_note.sh
    $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:functrace_record_shared>
    ${CMAKE_CURRENT_BINARY_DIR}/cli_lost_note_work)
else()
  message(STATUS "cli_info_threads not registered: the C compiler is not clang (XRay sleds)")
endif()
# The CLI's time helpers (tick -> time, durations): cli_common.c with the files it needs.
add_executable(cli_common_test ${CMAKE_CURRENT_SOURCE_DIR}/cli_common_test.c
  ${CMAKE_SOURCE_DIR}/src/cli/cli_common.c ${CMAKE_SOURCE_DIR}/src/cli/text_escape.c)
target_include_directories(cli_common_test PRIVATE ${CMAKE_SOURCE_DIR}/src/cli)
target_link_libraries(cli_common_test PRIVATE flightrec_reader fr_testlib)
add_test(NAME cli_common COMMAND cli_common_test)
# Man pages and bash completion generated from --help (built when python3 is found).
if(TARGET flightrec_docs)
  add_test(NAME cli_man_completion COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_man_completion.sh
    $<TARGET_FILE:flightrec_cli> ${CMAKE_BINARY_DIR}/man ${CMAKE_SOURCE_DIR}/man/generate.py)
  set_tests_properties(cli_man_completion PROPERTIES SKIP_RETURN_CODE 77)
endif()
# One table of options per command (src/cli/cli_options.h): every option of a table in
# its command's --help, man page and bash and zsh completions, nothing else in the help.
add_executable(cli_option_tables ${CMAKE_CURRENT_SOURCE_DIR}/cli_option_tables.c)
target_link_libraries(cli_option_tables PRIVATE flightrec_cli_objs flightrec_reader)
if(FR_DOCS_PYTHON3)
  add_test(NAME cli_option_tables COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_option_tables.sh
    $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:cli_option_tables> ${CMAKE_BINARY_DIR}/man)
endif()
# No two files of src/cli (with commands/ and convert/) depend on each other in a circle:
# the symbols each object defines and uses (nm).
find_program(FR_NM NAMES nm llvm-nm)
if(FR_NM)
  add_test(NAME cli_no_cycles COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check_cycles.py
    --part src/cli $<TARGET_OBJECTS:flightrec_cli_objs> COMMAND_EXPAND_LISTS)
  set_tests_properties(cli_no_cycles PROPERTIES ENVIRONMENT NM=${FR_NM})
endif()
# No function in src/cli longer than 150 lines (issue 26: a command is parse -> check ->
# run -> report functions), by a brace-matching scan of the sources.
add_test(NAME cli_function_length COMMAND ${PYTHON3}
  ${CMAKE_SOURCE_DIR}/scripts/check_function_length.py 150 ${CMAKE_SOURCE_DIR}/src/cli)
# doctor on programs that link libflightrec.a (which defines __cyg_profile_func_enter):
# hooks only where the code calls it (issue 22).
add_executable(doctor_static_plain ${CMAKE_CURRENT_SOURCE_DIR}/progs/doctor_static.c)
target_link_libraries(doctor_static_plain PRIVATE flightrec_static)
add_executable(doctor_static_hooks ${CMAKE_CURRENT_SOURCE_DIR}/progs/doctor_static.c)
target_compile_options(doctor_static_hooks PRIVATE -finstrument-functions)
target_link_libraries(doctor_static_hooks PRIVATE flightrec_static)
add_executable(doctor_static_hooks_noplt ${CMAKE_CURRENT_SOURCE_DIR}/progs/doctor_static.c)
target_compile_options(doctor_static_hooks_noplt PRIVATE -finstrument-functions -fno-plt)
target_link_libraries(doctor_static_hooks_noplt PRIVATE flightrec_static)
add_test(NAME cli_doctor_static COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_doctor_static.sh
  $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:doctor_static_plain> $<TARGET_FILE:doctor_static_hooks>
  $<TARGET_FILE:doctor_static_hooks_noplt> ${CMAKE_CURRENT_BINARY_DIR}/cli_doctor_static_work)
