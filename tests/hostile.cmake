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
# Bad option values refused, named, by the start-up constructor and by record (start=2,
# events=Foo:99, backing=/dev/null were taken without a word: issue 24).
add_test(NAME hostile_bad_options COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_bad_options.sh
         $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:hostile_idle> ${CMAKE_CURRENT_BINARY_DIR}/hostile_bad_options.d)
set_tests_properties(hostile_startup hostile_setuid hostile_bad_options PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
# ulimit -v leaves no room for ASan's shadow memory: this test runs in the normal build only.
set_tests_properties(hostile_startup PROPERTIES LABELS no_asan)

# The program closes the recorder's descriptors and opens its own files at their numbers
# (a daemon's start-up): with stream=1 nothing of ours goes into its files, and the trace
# is whole (the stream opens its file again).
add_executable(fd_closer ${CMAKE_CURRENT_SOURCE_DIR}/progs/fd_closer.c)
target_link_libraries(fd_closer PRIVATE flightrec)
add_test(NAME hostile_fd_close COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hostile_fd_close.sh
         $<TARGET_FILE:fd_closer> $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY}
         ${CMAKE_CURRENT_BINARY_DIR}/hostile_fd_close.d)
set_tests_properties(hostile_fd_close PROPERTIES TIMEOUT 120)
