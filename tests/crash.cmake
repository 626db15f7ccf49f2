# Crash dumps, termination signals, snapshots (issue 9). Programs built with clang XRay.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(CRASH_XRAY_FLAGS -fxray-instrument -fnoxray-link-deps -fxray-instruction-threshold=1)
  function(crash_xray_program name src lib)
    # A program that has a worker thread (crash_worker.h) names crash_worker.c after its
    # own source: "prog.c;crash_worker.c".
    list(TRANSFORM src PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/progs/)
    add_executable(${name} ${src})
    target_compile_options(${name} PRIVATE ${CRASH_XRAY_FLAGS} -O1 -Wno-unused-parameter)
    target_link_options(${name} PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(${name} PRIVATE ${lib})
  endfunction()
  crash_xray_program(crash_prog "crash_prog.c;crash_worker.c" "flightrec;Threads::Threads")
  crash_xray_program(crash_prog_cxx crash_prog_cxx.cpp "flightrec")

  # A sanitizer's own fatal-signal handlers would end the program with their exit status:
  # turned off so that the statuses checked are the program's.
  set(CRASH_ENV "ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:handle_sigtrap=0;UBSAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0")
  add_test(NAME crash_signals
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_signals.sh $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY}
            $<TARGET_FILE:crash_prog> $<TARGET_FILE:crash_prog_cxx> ${CMAKE_CURRENT_BINARY_DIR}/crash_signals.d)
  set_tests_properties(crash_signals PROPERTIES TIMEOUT 120 ENVIRONMENT "${CRASH_ENV}")
else()
  message(STATUS "crash tests not registered: the C compiler is not clang (XRay sleds)")
endif()

# A second fault inside the dump: the process ends by the first signal, no hang, no .tmp.
add_executable(crash_nested ${CMAKE_CURRENT_SOURCE_DIR}/progs/crash_nested.c)
target_include_directories(crash_nested PRIVATE ${CMAKE_SOURCE_DIR}/src/common ${CMAKE_SOURCE_DIR}/src/runtime)
target_link_libraries(crash_nested PRIVATE flightrec_static)
add_test(NAME crash_nested COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_nested.sh $<TARGET_FILE:crash_nested>
         ${CMAKE_CURRENT_BINARY_DIR}/crash_nested.d)
set_tests_properties(crash_nested PROPERTIES TIMEOUT 60 ENVIRONMENT "ASAN_OPTIONS=handle_segv=0:handle_abort=0")

# SIGXFSZ under `ulimit -f` while the trace is written (issue 15 item 5).
if(TARGET crash_prog)
  add_test(NAME crash_xfsz COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_xfsz.sh $<TARGET_FILE:flightrec_cli>
           $<TARGET_FILE:crash_prog> ${CMAKE_CURRENT_BINARY_DIR}/crash_xfsz.d)
  set_tests_properties(crash_xfsz PROPERTIES TIMEOUT 60 ENVIRONMENT "${CRASH_ENV}")
endif()

# Snapshots while recording (snapshot_signal=, flightrec snapshot PID, fr_snapshot).
if(TARGET crash_prog)
  # Processes that exec traced programs: the history before an exec under record, and
  # exec'd children with an output= without %p (issue 24).
  crash_xray_program(exec_chain exec_chain.c "flightrec")
  add_test(NAME record_exec COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record_exec.sh $<TARGET_FILE:flightrec_cli>
           $<TARGET_FILE:exec_chain> ${CMAKE_CURRENT_BINARY_DIR}/record_exec.d)
  set_tests_properties(record_exec PROPERTIES TIMEOUT 120)
  crash_xray_program(crash_snapshot_prog crash_snapshot_prog.c "flightrec;Threads::Threads")
  crash_xray_program(crash_snapshot_stress crash_snapshot_stress.c "flightrec;Threads::Threads")
  add_test(NAME crash_snapshot COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_snapshot.sh $<TARGET_FILE:flightrec_cli>
           ${LLVM_XRAY} $<TARGET_FILE:crash_snapshot_prog> $<TARGET_FILE:crash_snapshot_stress>
           ${CMAKE_CURRENT_BINARY_DIR}/crash_snapshot.d)
  set_tests_properties(crash_snapshot PROPERTIES TIMEOUT 120)
endif()

# Write faults during the dump: short writes + EINTR (LD_PRELOAD shim), ENOSPC (tmpfs).
if(TARGET crash_prog)
  add_library(crash_shortwrite SHARED ${CMAKE_CURRENT_SOURCE_DIR}/progs/crash_shortwrite.c)
  add_test(NAME crash_faults COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_faults.sh $<TARGET_FILE:flightrec_cli>
           ${LLVM_XRAY} $<TARGET_FILE:crash_prog> $<TARGET_FILE:crash_shortwrite>
           $<TARGET_FILE:crash_snapshot_stress> ${CMAKE_CURRENT_BINARY_DIR}/crash_faults.d
           $<TARGET_FILE:stream_cycle>)
  # LD_PRELOAD of a shim built without ASan in front of an ASan program does not load.
  set_tests_properties(crash_faults PROPERTIES TIMEOUT 60 LABELS no_asan SKIP_RETURN_CODE 77
                       ENVIRONMENT "${CRASH_ENV}")
endif()

# stream=1 (issue 9, streaming): the file grows while the program runs, in a fixed pool.
add_executable(stream_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/stream_prog.c)
target_link_libraries(stream_prog PRIVATE flightrec Threads::Threads)
add_executable(stream_cycle ${CMAKE_CURRENT_SOURCE_DIR}/progs/stream_cycle.c)
target_link_libraries(stream_cycle PRIVATE flightrec Threads::Threads)
add_test(NAME crash_stream COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_stream.sh $<TARGET_FILE:flightrec_cli>
         ${LLVM_XRAY} $<TARGET_FILE:stream_prog> ${CMAKE_CURRENT_BINARY_DIR}/crash_stream.d
         $<TARGET_FILE:stream_cycle>)
set_tests_properties(crash_stream PROPERTIES TIMEOUT 240 LABELS concurrency)  # TSan on a loaded 2-core machine: 65-120 s

# backing=PATH + flightrec recover: SIGKILL, _exit, fork, torn records, hostile files.
if(TARGET crash_prog)
  crash_xray_program(crash_backing_prog "crash_backing_prog.c;crash_worker.c" "flightrec;Threads::Threads")
  add_test(NAME crash_backing COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/crash_backing.py
           $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY} $<TARGET_FILE:crash_backing_prog>
           ${CMAKE_CURRENT_BINARY_DIR}/crash_backing.d)
  set_tests_properties(crash_backing PROPERTIES TIMEOUT 120)
endif()

# An output FIFO whose reader goes away: no SIGPIPE death, nothing after a torn block.
add_test(NAME crash_fifo_gone COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/crash_fifo_gone.sh $<TARGET_FILE:stream_prog>
         ${CMAKE_CURRENT_BINARY_DIR}/crash_fifo_gone.d)
set_tests_properties(crash_fifo_gone PROPERTIES TIMEOUT 60)
