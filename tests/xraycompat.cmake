# XRay compatibility (issue 11): each program built twice, against compiler-rt's XRay
# runtime (plain `clang -fxray-instrument`, which links it) and against flightrec
# (`-fnoxray-link-deps` + libflightrec); tests/xraycompat_run.py runs both with the same
# options and compares their outputs, logs (through llvm-xray) and stderr. Without
# compiler-rt's XRay runtime the cases report Skipped.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.xray-${CMAKE_SYSTEM_PROCESSOR}.a
    OUTPUT_VARIABLE XRAYCOMPAT_CRT OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-runtime-dir
    OUTPUT_VARIABLE XRAYCOMPAT_RTDIR OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(XRAYCOMPAT_HAVE_CRT OFF)
  if(EXISTS "${XRAYCOMPAT_RTDIR}/libclang_rt.xray-${CMAKE_SYSTEM_PROCESSOR}.a" OR EXISTS "${XRAYCOMPAT_CRT}")
    set(XRAYCOMPAT_HAVE_CRT ON)
  endif()

  # xraycompat_program(NAME SOURCE): NAME_fr always, NAME_crt when compiler-rt is there.
  function(xraycompat_program name src)
    set(flags -fxray-instrument -O1 -Wno-unused-parameter)
    set(crt_modes ${ARGN})   # e.g. -fxray-modes=xray-profiling (not linked by default)
    add_executable(${name}_fr ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    target_compile_options(${name}_fr PRIVATE ${flags})
    target_link_options(${name}_fr PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(${name}_fr PRIVATE flightrec_static Threads::Threads)
    if(XRAYCOMPAT_HAVE_CRT)
      add_executable(${name}_crt ${CMAKE_CURRENT_SOURCE_DIR}/${src})
      target_compile_options(${name}_crt PRIVATE ${flags})
      target_include_directories(${name}_crt PRIVATE ${CMAKE_SOURCE_DIR}/include)
      target_link_options(${name}_crt PRIVATE -fxray-instrument ${crt_modes})
      target_link_libraries(${name}_crt PRIVATE Threads::Threads)
      # Sanitizer builds would put a second sanitizer runtime next to compiler-rt's.
      if(FLIGHTREC_SANITIZE)
        target_compile_options(${name}_crt PRIVATE -fno-sanitize=all)
        target_link_options(${name}_crt PRIVATE -fno-sanitize=all)
      endif()
    endif()
  endfunction()

  xraycompat_program(xraycompat_handlers xraycompat_handlers.cpp)
  xraycompat_program(xraycompat_fdr xraycompat_fdr.c)
  xraycompat_program(xraycompat_basic xraycompat_basic.c)
  xraycompat_program(xraycompat_nosleds xraycompat_nosleds.c)
  xraycompat_program(xraycompat_fdr_drops xraycompat_fdr_drops.c)
  xraycompat_program(xraycompat_fdr_buffers xraycompat_fdr_buffers.c)
  xraycompat_program(xraycompat_profiling xraycompat_profiling.c -fxray-modes=xray-profiling)

  # xraycompat_case(CASE PROGRAM)
  function(xraycompat_case case prog)
    add_test(NAME xraycompat_${case}
      COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/xraycompat_run.py ${LLVM_XRAY}
              ${CMAKE_CURRENT_BINARY_DIR}/xraycompat_work ${case}
              ${CMAKE_CURRENT_BINARY_DIR}/${prog}_crt $<TARGET_FILE:${prog}_fr>)
    set_tests_properties(xraycompat_${case} PROPERTIES SKIP_RETURN_CODE 77)
  endfunction()
  xraycompat_case(handlers xraycompat_handlers)
  xraycompat_case(handlers_premain xraycompat_handlers)
  xraycompat_case(fdr xraycompat_fdr)
  xraycompat_case(fdr_env_options xraycompat_fdr)
  xraycompat_case(fdr_snapshot_output xraycompat_fdr)
  foreach(c basic basic_small_buffer basic_fork basic_naive_dir flags_unknown
            flags_unknown_quiet flags_malformed flags_no_equals bad_base)
    xraycompat_case(${c} xraycompat_basic)
  endforeach()
  xraycompat_case(nosleds xraycompat_nosleds)
  xraycompat_case(fdr_drops xraycompat_fdr_drops)
  xraycompat_case(fdr_buffers xraycompat_fdr_buffers)
  xraycompat_case(profiling xraycompat_profiling)
  xraycompat_case(profiling_file xraycompat_profiling)
  xraycompat_case(profiling_buffers_max xraycompat_profiling)
  # Our basic mode alone (compiler-rt writes into the program's file there): the
  # program closes the log's descriptor and opens its own files.
  add_test(NAME xraycompat_basic_fds
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/xraycompat_basic_fds.sh $<TARGET_FILE:xraycompat_basic_fr>
            $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_BINARY_DIR}/xraycompat_basic_fds.d)
  # libflightrec.a linked by hand, without the anchors pkg-config and CMake add.
  add_test(NAME xraycompat_link_by_hand
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/xraycompat_link_by_hand.sh ${CMAKE_C_COMPILER}
            ${CMAKE_CURRENT_SOURCE_DIR}/progs/xray_link_by_hand.c $<TARGET_FILE:flightrec_static>
            ${CMAKE_SOURCE_DIR}/include ${LLVM_XRAY} $<TARGET_FILE:flightrec_cli>
            ${CMAKE_CURRENT_BINARY_DIR}/xraycompat_link_by_hand.d
            "${FLIGHTREC_SANITIZE}")
else()
  message(STATUS "xraycompat tests not registered: the C compiler is not clang")
endif()
