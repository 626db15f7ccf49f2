# Tests of `flightrec convert` (chrome, folded, svg, yaml) on known traces; see
# tests/convert_check.py for what is checked and against what.
add_executable(convert_traces ${CMAKE_CURRENT_SOURCE_DIR}/convert_traces.c)
target_link_libraries(convert_traces PRIVATE fr_trace_builder)

add_test(NAME convert_known_traces
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_check.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> ${LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/convert_known_traces)
