# The file format written down once (docs/FORMAT.md, src/common/fr_format.h): every FR_TE
# type has a name, a struct with offset asserts and a section in the document, no FR_TE_
# constant exists outside fr_format.h's list, and `flightrec dump --meta` names every type
# (in the current encoding and in files written before the envelope).
add_executable(format_every_type ${CMAKE_CURRENT_SOURCE_DIR}/format_every_type.c)
target_link_libraries(format_every_type PRIVATE fr_trace_builder)
add_test(NAME format_types
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/format_types.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:format_every_type> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/format_types)

# The record codec (fdr_records.h, fr_block.h) against byte vectors from docs/FORMAT.md.
add_executable(format_codec_test ${CMAKE_CURRENT_SOURCE_DIR}/format_codec_test.c)
target_include_directories(format_codec_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
add_test(NAME format_codec COMMAND format_codec_test)
