# Tests of the reading side (reader part): the synthetic trace builder used by every
# part's tests, the streaming reader, metadata, symbols and the info/dump subcommands.

# Synthetic FDR v5 traces for tests (tests/trace_builder.h).
add_library(fr_trace_builder STATIC ${CMAKE_CURRENT_SOURCE_DIR}/trace_builder.c)
target_include_directories(fr_trace_builder PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
  ${CMAKE_SOURCE_DIR}/src/common)

add_executable(reader_tb_sample ${CMAKE_CURRENT_SOURCE_DIR}/reader_tb_sample.c)
target_link_libraries(reader_tb_sample PRIVATE fr_trace_builder)

add_test(NAME reader_builder_llvm_xray
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reader_builder.sh $<TARGET_FILE:reader_tb_sample>
          ${LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/reader_builder)
