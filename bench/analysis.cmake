# Benchmarks of the analyses (bench/bench_measure.py: CPU time of each command, interleaved
# rounds, minimum of each, MET or MISSED against the targets):
#   cmake --build build --target bench_analysis_account   # account vs a plain read, llvm-xray
#   cmake --build build --target bench_analysis_stack     # stack, convert vs llvm-xray stack
# Neither runs in CI (20 M-record traces, minutes of llvm-xray).
add_executable(analysis_gen ${CMAKE_CURRENT_SOURCE_DIR}/analysis_gen.c)
target_include_directories(analysis_gen PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
# The floor of account: a plain pass over the file, without flightrec's reader.
add_executable(analysis_readfloor ${CMAKE_CURRENT_SOURCE_DIR}/analysis_readfloor.c)
find_program(FR_BENCH_LLVM_XRAY NAMES llvm-xray-14 llvm-xray)
find_program(FR_BENCH_PYTHON3 NAMES python3)
if(FR_BENCH_LLVM_XRAY AND FR_BENCH_PYTHON3)
  add_custom_target(bench_analysis_account
    COMMAND ${FR_BENCH_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_account_bench.py
            $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:analysis_gen> $<TARGET_FILE:analysis_readfloor>
            ${FR_BENCH_LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/analysis
    DEPENDS flightrec_cli analysis_gen analysis_readfloor USES_TERMINAL VERBATIM)
  add_custom_target(bench_analysis_stack
    COMMAND ${FR_BENCH_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_stack_bench.py
            $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:analysis_gen> ${FR_BENCH_LLVM_XRAY}
            ${CMAKE_CURRENT_BINARY_DIR}/analysis
    DEPENDS flightrec_cli analysis_gen USES_TERMINAL VERBATIM)
else()
  message(STATUS "bench_analysis_account, bench_analysis_stack not built: they need llvm-xray and python3")
endif()
