# Function tracing benchmark: the same source (functrace_bench.c) built against
# libflightrec, against compiler-rt's XRay FDR, and without instrumentation; one run
# prints ns per call and the ratios:   cmake --build build --target bench_functrace
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(FT_BENCH_SRC ${CMAKE_CURRENT_SOURCE_DIR}/functrace_bench.c)

  add_executable(functrace_bench_flightrec ${FT_BENCH_SRC})
  target_compile_definitions(functrace_bench_flightrec PRIVATE FT_MODE_XRAY_API)
  target_compile_options(functrace_bench_flightrec PRIVATE -O2 -fxray-instrument -fnoxray-link-deps)
  target_link_options(functrace_bench_flightrec PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(functrace_bench_flightrec PRIVATE flightrec_static Threads::Threads)

  # Plain -fxray-instrument: clang links compiler-rt's XRay runtime (FDR mode included).
  add_executable(functrace_bench_compiler_rt ${FT_BENCH_SRC})
  target_compile_definitions(functrace_bench_compiler_rt PRIVATE FT_MODE_XRAY_API FT_COMPILER_RT)
  target_compile_options(functrace_bench_compiler_rt PRIVATE -O2 -fxray-instrument)
  target_link_options(functrace_bench_compiler_rt PRIVATE -fxray-instrument)
  target_link_libraries(functrace_bench_compiler_rt PRIVATE Threads::Threads)

  add_executable(functrace_bench_plain ${FT_BENCH_SRC})
  target_compile_definitions(functrace_bench_plain PRIVATE FT_MODE_PLAIN)
  target_compile_options(functrace_bench_plain PRIVATE -O2 -Wno-unknown-attributes)
  target_link_libraries(functrace_bench_plain PRIVATE Threads::Threads)

  set(FR_BENCH_FUNCTRACE_CALLS 10000000 CACHE STRING "calls per thread in the functrace benchmark")
  add_custom_target(bench_functrace
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/functrace_bench.sh
            $<TARGET_FILE:functrace_bench_flightrec> $<TARGET_FILE:functrace_bench_compiler_rt>
            $<TARGET_FILE:functrace_bench_plain> ${FR_BENCH_FUNCTRACE_CALLS}
    DEPENDS functrace_bench_flightrec functrace_bench_compiler_rt functrace_bench_plain
    USES_TERMINAL VERBATIM)
endif()
