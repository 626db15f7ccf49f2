# libFuzzer target for `flightrec decode-perf` (fuzz_perf.c): the CLI's sources but
# main.c are compiled into it; a ctest test runs it for a bounded time from perf.data
# files tests/perf_data_gen.py writes (file mode with and without clock data, pipe mode).
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
set(FR_FUZZ_PERF_SOURCES ${FLIGHTREC_CLI_SOURCES})
list(FILTER FR_FUZZ_PERF_SOURCES EXCLUDE REGEX "/src/cli/main\\.c$")
add_executable(fuzz_perf ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_perf.c ${FR_FUZZ_PERF_SOURCES}
  ${FLIGHTREC_READER_SOURCES} ${CMAKE_SOURCE_DIR}/src/runtime/core/options.c
  ${CMAKE_SOURCE_DIR}/src/runtime/core/pool_budget.c ${CMAKE_SOURCE_DIR}/src/runtime/events/event_enable.c)
target_include_directories(fuzz_perf PRIVATE ${CMAKE_SOURCE_DIR}/src/cli ${CMAKE_SOURCE_DIR}/src/reader
  ${CMAKE_SOURCE_DIR}/src/analysis ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/include
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_compile_definitions(fuzz_perf PRIVATE
  FLIGHTREC_BUILD_LIBDIR="${CMAKE_BINARY_DIR}"
  FLIGHTREC_INSTALL_LIBDIR_REL="${CMAKE_INSTALL_LIBDIR}"
  FLIGHTREC_VERSION="${PROJECT_VERSION}")
target_compile_options(fuzz_perf PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_perf PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_perf PRIVATE ${LIBDW} ${LIBELF} ZLIB::ZLIB m stdc++)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_PERF_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_perf_run)
  add_test(NAME fuzz_perf
    COMMAND sh -c "rm -rf ${FR_FUZZ_PERF_WORK} && mkdir -p ${FR_FUZZ_PERF_WORK}/corpus && \
${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/perf_data_gen.py vectors ${FR_FUZZ_PERF_WORK}/corpus && \
cd ${FR_FUZZ_PERF_WORK} && $<TARGET_FILE:fuzz_perf> -max_total_time=30 -max_len=16384 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_perf PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
