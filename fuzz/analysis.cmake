# libFuzzer target for the analyses (call tracker, per-function statistics, call graph,
# stack tree, bounded and not) fed by the batched reader; a ctest test runs it for a
# bounded time from the reader's seed corpus.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
file(GLOB FR_FUZZ_ANALYSIS_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/analysis/*.c)
add_executable(fuzz_analysis ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_analysis.c ${FLIGHTREC_READER_SOURCES}
  ${FR_FUZZ_ANALYSIS_SOURCES})
target_include_directories(fuzz_analysis PRIVATE ${CMAKE_SOURCE_DIR}/src/reader
  ${CMAKE_SOURCE_DIR}/src/analysis ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/include)
target_compile_options(fuzz_analysis PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_analysis PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_analysis PRIVATE ${LIBDW} ${LIBELF} m stdc++)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_ANALYSIS_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_analysis_run)
  add_test(NAME fuzz_analysis
    COMMAND sh -c "rm -rf ${FR_FUZZ_ANALYSIS_WORK} && mkdir -p ${FR_FUZZ_ANALYSIS_WORK}/corpus && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_ANALYSIS_WORK}/corpus/sample.xray && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_ANALYSIS_WORK}/corpus/small.xray small && \
${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_seeds.py ${FR_FUZZ_ANALYSIS_WORK}/corpus && \
$<TARGET_FILE:events_compact> mixed ${FR_FUZZ_ANALYSIS_WORK}/corpus/compact-events.xray 2>/dev/null && \
cd ${FR_FUZZ_ANALYSIS_WORK} && $<TARGET_FILE:fuzz_analysis> -max_total_time=30 -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_analysis PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
