# Tests of the runtime in hostile environments (issue 15; output files: issue 8 item 8).
add_test(NAME hostile_output
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_output.sh $<TARGET_FILE:core_writer> ${LLVM_XRAY}
          ${CMAKE_CURRENT_BINARY_DIR}/hostile_output.d)
set_tests_properties(hostile_output PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
