# libFuzzer target for the commands that read traces (info, dump, account, stack, graph,
# replay, convert to every format): fuzz_cli.c. The CLI's sources but main.c are
# compiled into it; a ctest test runs it for a bounded time from the reader's seeds.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
set(FR_FUZZ_CLI_SOURCES ${FLIGHTREC_CLI_SOURCES})
list(FILTER FR_FUZZ_CLI_SOURCES EXCLUDE REGEX "/src/cli/main\\.c$")
add_executable(fuzz_cli ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_cli.c ${FR_FUZZ_CLI_SOURCES}
  ${FLIGHTREC_READER_SOURCES} ${CMAKE_SOURCE_DIR}/src/runtime/core/options.c
  ${CMAKE_SOURCE_DIR}/src/runtime/core/pool_budget.c ${CMAKE_SOURCE_DIR}/src/runtime/events/event_enable.c)
target_include_directories(fuzz_cli PRIVATE ${CMAKE_SOURCE_DIR}/src/cli ${CMAKE_SOURCE_DIR}/src/reader
  ${CMAKE_SOURCE_DIR}/src/analysis ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/include
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_compile_definitions(fuzz_cli PRIVATE
  FLIGHTREC_BUILD_LIBDIR="${CMAKE_BINARY_DIR}"
  FLIGHTREC_INSTALL_LIBDIR_REL="${CMAKE_INSTALL_LIBDIR}"
  FLIGHTREC_VERSION="${PROJECT_VERSION}")
target_compile_options(fuzz_cli PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_cli PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_cli PRIVATE ${LIBDW} ${LIBELF} ZLIB::ZLIB m stdc++)

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
