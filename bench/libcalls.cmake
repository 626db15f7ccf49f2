# Recorded library calls (libcalls=1) against recorded traced calls: ns per call, the
# ratio against the target of 2x, MET or MISSED:   cmake --build build --target bench_libcalls
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_library(libcall_bench_lib SHARED ${CMAKE_CURRENT_SOURCE_DIR}/libcall_lib.c)
  target_compile_options(libcall_bench_lib PRIVATE -O2)
  add_executable(libcall_bench ${CMAKE_CURRENT_SOURCE_DIR}/libcall_bench.c)
  target_compile_options(libcall_bench PRIVATE -O2 -fxray-instrument -fnoxray-link-deps)
  target_link_options(libcall_bench PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(libcall_bench PRIVATE flightrec libcall_bench_lib)
  add_custom_target(bench_libcalls COMMAND libcall_bench DEPENDS libcall_bench USES_TERMINAL VERBATIM)
endif()
