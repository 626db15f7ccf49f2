# libFuzzer target for the reader (fr_reader, trace_meta, EventHeader decoding), and a
# ctest test that runs it for a bounded time from a small seed corpus (among the seeds:
# compact events, FR_TE_EVENT_SITE + FR_TE_EVENT_RUN with activity extensions, from
# events_compact; an event run whose site is missing, from format_every_type).
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(STATUS "fuzz_reader needs clang (libFuzzer): skipped")
  return()
endif()

# The reader's sources are compiled into the target so that libFuzzer's coverage
# instrumentation sees them.
add_executable(fuzz_reader ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_reader.c ${FLIGHTREC_READER_SOURCES})
target_include_directories(fuzz_reader PRIVATE ${CMAKE_SOURCE_DIR}/src/reader
  ${CMAKE_SOURCE_DIR}/src/analysis ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/include)
target_compile_options(fuzz_reader PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_reader PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_reader PRIVATE ${LIBDW} ${LIBELF} m stdc++)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_reader_run)
  add_test(NAME fuzz_reader
    COMMAND sh -c "rm -rf ${FR_FUZZ_WORK} && mkdir -p ${FR_FUZZ_WORK}/corpus && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_WORK}/corpus/sample.xray && \
$<TARGET_FILE:reader_tb_sample> ${FR_FUZZ_WORK}/corpus/small.xray small && \
${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_seeds.py ${FR_FUZZ_WORK}/corpus && \
$<TARGET_FILE:reader_events_trace> ${CMAKE_SOURCE_DIR}/tests/data/eventheader/EventHeaderInterceptorLE64.dat ${FR_FUZZ_WORK}/corpus/events.xray >/dev/null && \
$<TARGET_FILE:events_compact> mixed ${FR_FUZZ_WORK}/corpus/compact-events.xray 2>/dev/null && \
$<TARGET_FILE:format_every_type> ${FR_FUZZ_WORK}/corpus/every-type.xray >/dev/null && \
cd ${FR_FUZZ_WORK} && $<TARGET_FILE:fuzz_reader> -max_total_time=45 -max_len=8192 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_reader PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
