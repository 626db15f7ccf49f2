# Function tracing (issue 3): sleds, trampolines, compat layer, gcc hooks, `flightrec record`.
# Instrumented programs are built here with clang's XRay flags; the gcc programs are built
# by the test scripts (tests/functrace_*.sh) with the gcc on the PATH.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(FUNCTRACE_XRAY_FLAGS -fxray-instrument -fnoxray-link-deps -fxray-instruction-threshold=1)

  # functrace_xray_program(NAME SOURCE LIB): an XRay-instrumented test program.
  function(functrace_xray_program name src lib)
    add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/progs/${src})
    target_compile_options(${name} PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2 -Wno-unused-parameter)
    target_link_options(${name} PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(${name} PRIVATE ${lib})
  endfunction()

  functrace_xray_program(functrace_sleds_static functrace_sleds.c flightrec_static)
  functrace_xray_program(functrace_sleds_shared functrace_sleds.c flightrec)
  add_test(NAME functrace_sleds_static COMMAND functrace_sleds_static)
  add_test(NAME functrace_sleds_shared COMMAND functrace_sleds_shared)
endif()
