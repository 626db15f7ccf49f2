# The demo program (scripts/demo.sh records it): real work on several threads, every
# function built with clang XRay sleds (patched by libflightrec, not compiler-rt).
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  file(GLOB FR_DEMO_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/demo/*.c)
  add_executable(fr_demo ${FR_DEMO_SOURCES})
  set_target_properties(fr_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/demo)
  target_compile_options(fr_demo PRIVATE -fxray-instrument -fnoxray-link-deps
    -fxray-instruction-threshold=1 -fno-omit-frame-pointer)
  target_link_options(fr_demo PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(fr_demo PRIVATE flightrec)
else()
  message(STATUS "fr_demo needs clang (XRay sleds); skipped with ${CMAKE_C_COMPILER_ID}")
endif()
