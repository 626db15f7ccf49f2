# CLI conventions (issue 13): --version.
add_test(NAME cli_version COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_version.sh $<TARGET_FILE:flightrec_cli> ${PROJECT_VERSION})
