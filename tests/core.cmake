# Tests of the flight recorder core (issue 2).
add_executable(core_record_test ${CMAKE_CURRENT_SOURCE_DIR}/core_record_test.c)
target_include_directories(core_record_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_link_libraries(core_record_test PRIVATE flightrec_static fr_testlib)
add_test(NAME core_record COMMAND core_record_test)

add_executable(core_writer ${CMAKE_CURRENT_SOURCE_DIR}/progs/core_writer.c)
target_link_libraries(core_writer PRIVATE flightrec_static)
add_test(NAME core_llvm_xray
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/core_llvm_xray.sh ${LLVM_XRAY} $<TARGET_FILE:core_writer>
          ${CMAKE_CURRENT_BINARY_DIR}/core_llvm_xray.d)
set_tests_properties(core_llvm_xray PROPERTIES LABELS concurrency)

add_executable(core_threads_test ${CMAKE_CURRENT_SOURCE_DIR}/core_threads_test.c)
target_include_directories(core_threads_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_threads_test PRIVATE flightrec_static fr_testlib Threads::Threads)
add_test(NAME core_threads COMMAND core_threads_test)
set_tests_properties(core_threads PROPERTIES LABELS concurrency)

add_executable(core_options_test ${CMAKE_CURRENT_SOURCE_DIR}/core_options_test.c)
target_include_directories(core_options_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_link_libraries(core_options_test PRIVATE flightrec_static fr_testlib)
add_test(NAME core_options COMMAND core_options_test)

add_executable(core_reader_test ${CMAKE_CURRENT_SOURCE_DIR}/core_reader_test.c)
target_link_libraries(core_reader_test PRIVATE flightrec_static flightrec_reader fr_testlib Threads::Threads)
add_test(NAME core_reader COMMAND core_reader_test)
set_tests_properties(core_reader PROPERTIES LABELS concurrency)

# Buffer and thread protocol (issue 8): fairness, ownership, slot reuse, re-init, exact
# accounting by cause (docs/BUFFERS.md).
add_executable(core_buffers_test ${CMAKE_CURRENT_SOURCE_DIR}/core_buffers_test.c)
target_include_directories(core_buffers_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_buffers_test PRIVATE flightrec_static fr_testlib Threads::Threads)
add_test(NAME core_buffers COMMAND core_buffers_test)
set_tests_properties(core_buffers PROPERTIES LABELS concurrency TIMEOUT 120)
