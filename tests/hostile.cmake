# Tests of the runtime in hostile environments (issue 15; output files: issue 8 item 8).
add_test(NAME hostile_output
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_output.sh $<TARGET_FILE:core_writer> ${LLVM_XRAY}
          ${CMAKE_CURRENT_BINARY_DIR}/hostile_output.d)
set_tests_properties(hostile_output PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

add_executable(hostile_idle ${CMAKE_CURRENT_SOURCE_DIR}/progs/hostile_idle.c)
target_link_libraries(hostile_idle PRIVATE flightrec_static)
add_test(NAME hostile_startup COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_startup.sh
         $<TARGET_FILE:hostile_idle> ${CMAKE_CURRENT_BINARY_DIR}/hostile_startup.d)
add_test(NAME hostile_setuid COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_setuid.sh
         $<TARGET_FILE:hostile_idle>)
set_tests_properties(hostile_startup hostile_setuid PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
# ulimit -v leaves no room for ASan's shadow memory: this test runs in the normal build only.
set_tests_properties(hostile_startup PROPERTIES LABELS no_asan)
