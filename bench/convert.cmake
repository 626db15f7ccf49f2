# chrome, perfetto and account vs llvm-xray and a plain read of the same synthetic trace
# (3 M records by default), best of 3 each: `cmake --build build --target bench_convert`.
add_executable(bench_convert_gen ${CMAKE_CURRENT_SOURCE_DIR}/convert_gen.c)
target_link_libraries(bench_convert_gen PRIVATE fr_trace_builder)
add_executable(convert_readsum ${CMAKE_CURRENT_SOURCE_DIR}/convert_readsum.c)
target_link_libraries(convert_readsum PRIVATE flightrec_reader)
find_program(BENCH_LLVM_XRAY NAMES llvm-xray-14 llvm-xray)
find_program(BENCH_PYTHON3 NAMES python3)
if(NOT BENCH_LLVM_XRAY OR NOT BENCH_PYTHON3)
  message(STATUS "bench_convert not built: it needs llvm-xray (14) and python3")
else()
  set(FR_BENCH_CONVERT_RECORDS 3000000 CACHE STRING "records in the convert benchmark's trace")
  add_custom_target(bench_convert
    COMMAND ${BENCH_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_bench.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:bench_convert_gen> ${BENCH_LLVM_XRAY} $<TARGET_FILE:convert_readsum>
            ${CMAKE_CURRENT_BINARY_DIR}/bench_convert
            ${FR_BENCH_CONVERT_RECORDS}
    DEPENDS flightrec_cli bench_convert_gen convert_readsum
    USES_TERMINAL)
endif()
