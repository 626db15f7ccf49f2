# libFuzzer target for `flightrec recover` (a backing file is hostile input), and a ctest
# test that runs it for a bounded time from the seeds of recover_seeds.py.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(STATUS "fuzz_recover needs clang (libFuzzer): skipped")
  return()
endif()

add_executable(fuzz_recover ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_recover.c ${FLIGHTREC_READER_SOURCES})
target_include_directories(fuzz_recover PRIVATE ${CMAKE_SOURCE_DIR}/src/reader
  ${CMAKE_SOURCE_DIR}/src/analysis ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/include)
target_compile_options(fuzz_recover PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_recover PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_recover PRIVATE ${LIBDW} ${LIBELF} m stdc++)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_RECOVER_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_recover_run)
  add_test(NAME fuzz_recover
    COMMAND sh -c "rm -rf ${FR_FUZZ_RECOVER_WORK} && mkdir -p ${FR_FUZZ_RECOVER_WORK}/corpus && \
${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/recover_seeds.py ${FR_FUZZ_RECOVER_WORK}/corpus && \
cd ${FR_FUZZ_RECOVER_WORK} && $<TARGET_FILE:fuzz_recover> -max_total_time=30 -max_len=16384 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_recover PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
