# compiler-rt's logging modes (issue 11): flightrec's xray-basic and xray-profiling
# against compiler-rt's, the same source built twice; one run prints ns per call and the
# ratios:   cmake --build build --target bench_xray_modes
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(XM_BENCH_SRC ${CMAKE_CURRENT_SOURCE_DIR}/xray_modes_bench.c)
  add_executable(xray_modes_bench_flightrec ${XM_BENCH_SRC})
  target_compile_options(xray_modes_bench_flightrec PRIVATE -O2 -fxray-instrument)
  target_link_options(xray_modes_bench_flightrec PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(xray_modes_bench_flightrec PRIVATE flightrec_static Threads::Threads)

  # Plain -fxray-instrument links compiler-rt's runtime; profiling mode only on request.
  add_executable(xray_modes_bench_compiler_rt ${XM_BENCH_SRC})
  target_compile_options(xray_modes_bench_compiler_rt PRIVATE -O2 -fxray-instrument)
  target_include_directories(xray_modes_bench_compiler_rt PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_options(xray_modes_bench_compiler_rt PRIVATE -fxray-instrument
    -fxray-modes=xray-basic,xray-profiling)
  target_link_libraries(xray_modes_bench_compiler_rt PRIVATE Threads::Threads)

  set(FR_BENCH_XRAY_MODES_CALLS 5000000 CACHE STRING "calls per thread in the xray modes benchmark")
  add_custom_target(bench_xray_modes
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_modes_bench.sh
            $<TARGET_FILE:xray_modes_bench_flightrec> $<TARGET_FILE:xray_modes_bench_compiler_rt>
            ${FR_BENCH_XRAY_MODES_CALLS}
    DEPENDS xray_modes_bench_flightrec xray_modes_bench_compiler_rt
    USES_TERMINAL VERBATIM)
endif()
