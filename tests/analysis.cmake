# Tests of the analyses (call tracker, quantile sketch, aggregations) and of the
# account / stack / graph subcommands.
foreach(t analysis_tracker_test analysis_sketch_test analysis_aggregate_test)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE flightrec_reader fr_testlib m)
  add_test(NAME ${t} COMMAND ${t})
endforeach()
