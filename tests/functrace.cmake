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

  functrace_xray_program(functrace_threads functrace_threads.c flightrec_static)
  add_test(NAME functrace_threads COMMAND functrace_threads)
  set_tests_properties(functrace_threads PROPERTIES LABELS concurrency)

  # Sleds in shared libraries: one linked, one dlopen'ed; all link libflightrec.so.
  foreach(lib a b)
    add_library(functrace_solib_${lib} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_solib_${lib}.c)
    target_compile_options(functrace_solib_${lib} PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2)
    target_link_options(functrace_solib_${lib} PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(functrace_solib_${lib} PRIVATE flightrec)
  endforeach()
  functrace_xray_program(functrace_solib_main functrace_solib_main.c "flightrec;functrace_solib_a;dl")
  add_dependencies(functrace_solib_main functrace_solib_b)
  add_test(NAME functrace_solib COMMAND functrace_solib_main $<TARGET_FILE:functrace_solib_b>)
endif()
