# flightrec decode-perf (issue 22): perf.data files made by tests/perf_data_gen.py
# (EventHeader vectors as user_events samples, a classic tracepoint with every kind of
# field, the LinuxTracepoints corpus; file and pipe mode; cut at every record and more),
# and what this machine's perf record writes, against perf script.
add_test(NAME decodeperf_vectors
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/decodeperf_check.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/perf
          ${CMAKE_CURRENT_SOURCE_DIR}/data/eventheader/EventHeaderInterceptorLE64.dat
          ${CMAKE_CURRENT_SOURCE_DIR}/data/eventheader/EventHeaderInterceptorLE64.dat.linux.json
          ${CMAKE_CURRENT_BINARY_DIR}/decodeperf_vectors)
set_tests_properties(decodeperf_vectors PROPERTIES TIMEOUT 300)
# With convert_fork_prog (clang): perf record -k monotonic around flightrec record, the
# two clocks checked against each other on convert's timeline.
if(TARGET convert_fork_prog)
  set(FR_DECODEPERF_PROG $<TARGET_FILE:convert_fork_prog>)
endif()
add_test(NAME decodeperf_real
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/decodeperf_real.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/decodeperf_real ${FR_DECODEPERF_PROG})
set_tests_properties(decodeperf_real PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# A trace and a perf.data (perf record -k monotonic) on one timeline: convert --format
# chrome and perfetto place every sample at its CLOCK_MONOTONIC time, inside the call it
# happened in; a perf.data on perf's own clock is refused.
add_test(NAME decodeperf_convert
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/decodeperf_convert.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> ${CMAKE_CURRENT_BINARY_DIR}/decodeperf_convert)
# A sample perf record wrote twice (its ring-buffer read race) printed once, with a note;
# every other repeat kept: perf's own reread.data and the kernel tests' made cases.
add_test(NAME decodeperf_rereads
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/decodeperf_rereads.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/perf ${CMAKE_CURRENT_BINARY_DIR}/decodeperf_rereads)
