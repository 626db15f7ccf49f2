# Benchmark of the analyses: `flightrec account` against `llvm-xray account` and a
# read-and-sum pass (convert_readsum, bench/convert.cmake) on the same 20 M-record trace,
# same run (wall and CPU time, peak RSS, ratios).
#   cmake --build build --target bench_analysis_account
add_executable(analysis_gen ${CMAKE_CURRENT_SOURCE_DIR}/analysis_gen.c)
target_include_directories(analysis_gen PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
find_program(FR_BENCH_LLVM_XRAY NAMES llvm-xray-14 llvm-xray)
if(FR_BENCH_LLVM_XRAY)
  add_custom_target(bench_analysis_account
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/analysis_account_bench.sh
            $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:analysis_gen> ${FR_BENCH_LLVM_XRAY}
            ${CMAKE_CURRENT_BINARY_DIR}/analysis 20000000 $<TARGET_FILE:convert_readsum>
    DEPENDS flightrec_cli analysis_gen convert_readsum USES_TERMINAL VERBATIM)
endif()
# `flightrec stack` vs `llvm-xray stack` on a trace with ~440,000 distinct stacks:
#   cmake --build build --target bench_analysis_stack
if(FR_BENCH_LLVM_XRAY)
  find_program(FR_BENCH_PYTHON3 NAMES python3)
  add_custom_target(bench_analysis_stack
    COMMAND ${FR_BENCH_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_stack_bench.py
            $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:analysis_gen> ${FR_BENCH_LLVM_XRAY}
            ${CMAKE_CURRENT_BINARY_DIR}/analysis
    DEPENDS flightrec_cli analysis_gen USES_TERMINAL VERBATIM)
endif()
