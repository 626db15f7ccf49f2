# A real third-party program (Lua 5.4, Debian's source), every function instrumented:
# its slowdown under `flightrec record` and under compiler-rt's XRay FDR, against its
# plain build (bench/program_bench.sh). Fetches the source from Debian's archive unless
# LUA_TARBALL names one; not run in CI:
#   cmake --build build --target bench_program
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_custom_target(bench_program
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/program_bench.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_CURRENT_BINARY_DIR}/program
    DEPENDS flightrec_cli flightrec USES_TERMINAL VERBATIM)
endif()
