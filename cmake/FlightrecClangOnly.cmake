# FlightrecClangOnly.cmake - what a build with another C compiler than clang leaves out,
# said out loud. The parts below need clang's XRay instrumentation
# (-fxray-instrument) to build their test programs; with gcc they are not defined at all,
# and without this a gcc build's ctest would report "100% tests passed" over fewer tests.
# Here they are named at configure time (a warning) and by one test that reports Skipped.
# Keep the list in step with the if(CMAKE_C_COMPILER_ID STREQUAL "Clang") blocks of
# tests/*.cmake, bench/functrace.cmake, bench/xray_modes.cmake and examples/demo.cmake; the clang build checks
# that every name below is still a test there (test clang_only_list).
set(FLIGHTREC_CLANG_ONLY_TESTS
  cli_info_threads convert_real_recording functrace_cxx_names functrace_exception
  functrace_record_cli functrace_record_shared functrace_record_static
  functrace_sleds_shared functrace_sleds_static functrace_solib functrace_threads
  functrace_xray_fdr reader_cut_recorded reader_recorded reader_symbols
  xraycompat_handlers xraycompat_handlers_premain xraycompat_fdr xraycompat_fdr_env_options
  xraycompat_fdr_drops xraycompat_basic xraycompat_basic_small_buffer xraycompat_basic_fork
  xraycompat_basic_naive_dir xraycompat_flags_unknown xraycompat_flags_unknown_quiet
  xraycompat_flags_malformed xraycompat_flags_no_equals xraycompat_bad_base
  xraycompat_nosleds xraycompat_profiling xraycompat_profiling_file
  xraycompat_profiling_buffers_max)
set(FLIGHTREC_CLANG_ONLY_OTHER "benchmarks bench_functrace and bench_xray_modes, example fr_demo")

list(LENGTH FLIGHTREC_CLANG_ONLY_TESTS n_clang_only)
string(REPLACE ";" " " clang_only_names "${FLIGHTREC_CLANG_ONLY_TESTS}")
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(why "the C compiler is ${CMAKE_C_COMPILER_ID}, not clang: ${n_clang_only} tests that need clang's -fxray-instrument are not built (${clang_only_names}), nor the ${FLIGHTREC_CLANG_ONLY_OTHER}. Configure with CC=clang CXX=clang++ (scripts/test.sh does) to build them.")
  message(WARNING "flightrec: ${why}")
  if(FLIGHTREC_TESTS)
    file(WRITE ${CMAKE_BINARY_DIR}/clang_only_skipped.txt "SKIP: ${why}\n")
    add_test(NAME clang_only_skipped
      COMMAND sh -c "cat '${CMAKE_BINARY_DIR}/clang_only_skipped.txt'; exit 77")
    set_tests_properties(clang_only_skipped PROPERTIES SKIP_RETURN_CODE 77)
  endif()
elseif(FLIGHTREC_TESTS)
  # The list must name tests that exist: a renamed test would be reported wrongly.
  add_test(NAME clang_only_list COMMAND sh -c
    "for t in ${clang_only_names}; do ctest -N -R \"^$t\$\" | grep -q 'Total Tests: 1' || { echo \"cmake/FlightrecClangOnly.cmake names $t, which is not a test\"; exit 1; }; done; echo ok"
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endif()
