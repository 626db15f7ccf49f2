# Structured events (issue 5): EventHeader encoder/decoder, providers, sinks, spans.
set(FR_EH_CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/data/eventheader)

# Every record of the LinuxTracepoints corpus decodes to the reference's JSON (parsed).
add_test(NAME events_corpus
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/events_corpus_compare.py
          $<TARGET_FILE:flightrec_cli> ${FR_EH_CORPUS}/EventHeaderInterceptorLE64.dat
          ${FR_EH_CORPUS}/EventHeaderInterceptorLE64.dat.linux.json)

# decode-dat on bad input and bad usage: exit codes and messages, no crash.
add_test(NAME events_decode_dat_errors
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/events_decode_dat_errors.sh
          $<TARGET_FILE:flightrec_cli> ${FR_EH_CORPUS}/EventHeaderInterceptorLE64.dat)

# Macros + user_events sink through the sink's seam: vectors A/B/C byte for byte, every
# field type decoded back, spans, disabled sites, GUIDs, the events= filter.
add_executable(events_encode_test ${CMAKE_CURRENT_SOURCE_DIR}/events_encode_test.c)
target_include_directories(events_encode_test PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime)
target_link_libraries(events_encode_test PRIVATE flightrec_static flightrec_reader fr_testlib)
add_test(NAME events_encode COMMAND events_encode_test)
