# libFuzzer target for `flightrec decode-perf` (fuzz_perf.c): the CLI's sources but
# main.c are compiled into it; a ctest test runs it for a bounded time from perf.data
# files tests/perf_data_gen.py writes (file mode with and without clock data, pipe mode;
# perf's re-read copies) and perf's own reread.data.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
flightrec_cli_fuzzer(fuzz_perf ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_perf.c)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_PERF_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_perf_run)
  add_test(NAME fuzz_perf
    COMMAND sh -c "rm -rf ${FR_FUZZ_PERF_WORK} && mkdir -p ${FR_FUZZ_PERF_WORK}/corpus && \
${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/perf_data_gen.py vectors ${FR_FUZZ_PERF_WORK}/corpus && \
${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/perf_data_gen.py rereads ${FR_FUZZ_PERF_WORK}/corpus && \
cp ${CMAKE_SOURCE_DIR}/tests/data/perf/reread.data ${FR_FUZZ_PERF_WORK}/corpus/ && \
cd ${FR_FUZZ_PERF_WORK} && $<TARGET_FILE:fuzz_perf> -max_total_time=30 -max_len=16384 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_perf PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
