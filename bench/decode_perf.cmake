# flightrec decode-perf on a large perf.data capture (2 M samples by default, ~240 MB,
# made once by tests/perf_data_gen.py): events per CPU second against the target of
# 1 M, MET or MISSED: `cmake --build build --target bench_decode_perf`.
find_program(BENCH_PYTHON3_DP NAMES python3)
if(NOT BENCH_PYTHON3_DP)
  message(STATUS "bench_decode_perf not built: it needs python3")
  return()
endif()
set(FR_BENCH_DECODE_PERF_EVENTS 2000000 CACHE STRING "samples in the decode-perf benchmark's capture")
add_custom_target(bench_decode_perf
  COMMAND ${BENCH_PYTHON3_DP} ${CMAKE_CURRENT_SOURCE_DIR}/decode_perf_bench.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/bench_decode_perf ${FR_BENCH_DECODE_PERF_EVENTS}
  DEPENDS flightrec_cli
  USES_TERMINAL)
