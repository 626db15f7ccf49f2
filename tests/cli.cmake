# CLI conventions (issue 13): --version.
add_test(NAME cli_version COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_version.sh $<TARGET_FILE:flightrec_cli> ${PROJECT_VERSION})
# The "unmatched" summary on stderr only when something was unmatched.
add_test(NAME cli_quiet_summary COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_quiet_summary.sh $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:convert_traces>)
