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
