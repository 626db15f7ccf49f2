# libFuzzer target for the commands that read traces (info, dump, account, stack, graph,
# replay, convert to every format): fuzz_cli.c. The CLI's sources but main.c are
# compiled into it; a ctest test runs it for a bounded time from the reader's seeds.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
flightrec_cli_fuzzer(fuzz_cli ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_cli.c)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_CLI_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_cli_run)
  add_test(NAME fuzz_cli
    COMMAND sh -c "rm -rf ${FR_FUZZ_CLI_WORK} && mkdir -p ${FR_FUZZ_CLI_WORK}/corpus && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_CLI_WORK}/corpus/sample.xray && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_CLI_WORK}/corpus/small.xray small && \
${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_seeds.py ${FR_FUZZ_CLI_WORK}/corpus && \
$<TARGET_FILE:events_compact> mixed ${FR_FUZZ_CLI_WORK}/corpus/compact-events.xray 2>/dev/null && \
cd ${FR_FUZZ_CLI_WORK} && $<TARGET_FILE:fuzz_cli> -max_total_time=30 -max_len=8192 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_cli PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
