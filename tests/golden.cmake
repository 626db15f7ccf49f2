# Golden tests (tests/golden/README.md): every case of tests/golden/cases runs one
# flightrec command on the traces of tests/golden_traces.c and compares its whole output
# (standard output, standard error, exit status) with tests/golden/NAME.out: test
# golden_NAME. golden_traces checks that the generated traces are the ones the stored
# outputs were made from. tests/golden/update.sh rewrites the stored outputs on purpose.

add_executable(golden_traces ${CMAKE_CURRENT_SOURCE_DIR}/golden_traces.c)
target_link_libraries(golden_traces PRIVATE fr_trace_builder)

set(FR_GOLDEN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/golden)
set(FR_GOLDEN_RUN sh ${FR_GOLDEN_DIR}/golden.sh)
set(FR_GOLDEN_ARGS $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:golden_traces>
    ${CMAKE_CURRENT_BINARY_DIR}/golden)

add_test(NAME golden_traces COMMAND ${FR_GOLDEN_RUN} traces ${FR_GOLDEN_ARGS})

# One test per case; a case added to the table reconfigures the build.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${FR_GOLDEN_DIR}/cases)
file(STRINGS ${FR_GOLDEN_DIR}/cases fr_golden_lines REGEX "^t[0-9]")
foreach(line IN LISTS fr_golden_lines)
  string(REGEX MATCH "^[^ \t]+" name "${line}")
  add_test(NAME golden_${name} COMMAND ${FR_GOLDEN_RUN} check ${FR_GOLDEN_ARGS} ${name})
endforeach()
