# Tests of the flight recorder core (issue 2).
add_executable(core_record_test ${CMAKE_CURRENT_SOURCE_DIR}/core_record_test.c)
target_include_directories(core_record_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_link_libraries(core_record_test PRIVATE flightrec_static fr_testlib)
add_test(NAME core_record COMMAND core_record_test)
set_tests_properties(core_record PROPERTIES SKIP_RETURN_CODE 77)

add_executable(core_writer ${CMAKE_CURRENT_SOURCE_DIR}/progs/core_writer.c)
target_link_libraries(core_writer PRIVATE flightrec_static)
add_test(NAME core_llvm_xray
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/core_llvm_xray.sh ${LLVM_XRAY} $<TARGET_FILE:core_writer>
          ${CMAKE_CURRENT_BINARY_DIR}/core_llvm_xray.d)
set_tests_properties(core_llvm_xray PROPERTIES LABELS concurrency)

add_executable(core_threads_test ${CMAKE_CURRENT_SOURCE_DIR}/core_threads_test.c)
target_include_directories(core_threads_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_threads_test PRIVATE flightrec_static fr_testlib Threads::Threads)
add_test(NAME core_threads COMMAND core_threads_test)
set_tests_properties(core_threads PROPERTIES LABELS concurrency)

add_executable(core_options_test ${CMAKE_CURRENT_SOURCE_DIR}/core_options_test.c)
target_include_directories(core_options_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_link_libraries(core_options_test PRIVATE flightrec_static fr_testlib)
add_test(NAME core_options COMMAND core_options_test)

add_executable(core_reader_test ${CMAKE_CURRENT_SOURCE_DIR}/core_reader_test.c)
target_link_libraries(core_reader_test PRIVATE flightrec_static flightrec_reader fr_testlib Threads::Threads)
add_test(NAME core_reader COMMAND core_reader_test)
set_tests_properties(core_reader PROPERTIES LABELS concurrency)

# Buffer and thread protocol (issue 8): fairness, ownership, slot reuse, re-init, exact
# accounting by cause (docs/BUFFERS.md).
add_executable(core_buffers_test ${CMAKE_CURRENT_SOURCE_DIR}/core_buffers_test.c)
target_include_directories(core_buffers_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_buffers_test PRIVATE flightrec_static flightrec_reader fr_testlib Threads::Threads)
add_test(NAME core_buffers COMMAND core_buffers_test)
set_tests_properties(core_buffers PROPERTIES LABELS concurrency TIMEOUT 600)

# Finalize overtaking a writer (white box: holds a thread "inside a record"; ~1 s wait).
add_executable(core_stuck_test ${CMAKE_CURRENT_SOURCE_DIR}/core_stuck_test.c)
target_include_directories(core_stuck_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH})
target_link_libraries(core_stuck_test PRIVATE flightrec_static fr_testlib Threads::Threads)
add_test(NAME core_stuck COMMAND core_stuck_test)
set_tests_properties(core_stuck PROPERTIES LABELS concurrency TIMEOUT 120)

# A signal handler's records landing at each instruction of a thread's first record of a
# session (ptrace single-steps a child; Skipped where ptrace is refused). The sweep's
# steps grow as the square of the record's instructions: 723 natively (5 s), 2,464 with
# ASan's checks (78 s), hence no_asan; TSan builds skip it.
add_executable(core_signal_steps_test ${CMAKE_CURRENT_SOURCE_DIR}/core_signal_steps_test.c)
target_link_libraries(core_signal_steps_test PRIVATE flightrec_static)
add_test(NAME core_signal_steps COMMAND core_signal_steps_test)
set_tests_properties(core_signal_steps PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS no_asan)

# Pool bounded by what the process can have (issue 15 item 6).
add_test(NAME core_pool_budget COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/core_pool_budget.sh
         $<TARGET_FILE:hostile_idle> ${CMAKE_CURRENT_BINARY_DIR}/core_pool_budget.d)
set_tests_properties(core_pool_budget PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# vfork children share the parent's recorder (issue 8 item 7). No `concurrency` label:
# TSan turns vfork into fork.
add_executable(core_vfork_test ${CMAKE_CURRENT_SOURCE_DIR}/core_vfork_test.c)
target_include_directories(core_vfork_test PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_vfork_test PRIVATE flightrec_static fr_testlib)
add_test(NAME core_vfork COMMAND core_vfork_test)

# Relative output=, snapshot_output=, backing= are taken from where the program started,
# not from where it is when it writes (exit, crash dump, snapshot, stream=1).
add_executable(chdir_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/chdir_prog.c)
target_link_libraries(chdir_prog PRIVATE flightrec)
add_test(NAME core_relative_output COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/core_relative_output.sh
         $<TARGET_FILE:chdir_prog> $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_BINARY_DIR}/core_relative_output.d)
# (under the sanitizers their own SIGSEGV handler would end the crash case with exit 1,
# as in crash.cmake)
set_tests_properties(core_relative_output PROPERTIES ENVIRONMENT
  "ASAN_OPTIONS=handle_segv=0:handle_abort=0;UBSAN_OPTIONS=handle_segv=0:handle_abort=0")

# The pool's defaults in include/flightrec.h and record --help are the runtime's.
add_test(NAME core_documented_defaults COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/core_documented_defaults.sh
         $<TARGET_FILE:chdir_prog> $<TARGET_FILE:flightrec_cli> ${CMAKE_SOURCE_DIR}/include/flightrec.h
         ${CMAKE_CURRENT_BINARY_DIR}/core_documented_defaults.d)

# The pool keeps the newest history of the whole process at any thread count (issue 21):
# pool_history checks accounting, per-thread order, the suffix property and the share of
# the pool kept. The default pool here; a small pool under the sanitizers' runs.
add_executable(pool_history ${CMAKE_CURRENT_SOURCE_DIR}/pool_history.c)
target_include_directories(pool_history PRIVATE ${CMAKE_SOURCE_DIR}/src/reader)
target_link_libraries(pool_history PRIVATE flightrec_static flightrec_reader Threads::Threads)
add_test(NAME pool_history_threads COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pool_history.sh
         $<TARGET_FILE:pool_history>)
set_tests_properties(pool_history_threads PROPERTIES LABELS concurrency TIMEOUT 600)

# SIGKILL at random moments with backing= (and stream=1): nothing made goes uncounted.
# 40 + 15 runs here (about 20 s; a failure counts when it repeats: pool_kill.py); the acceptance's 300 + 100 are run by hand with
# POOL_KILL_RUNS (docs/BUFFERS.md gives the figures).
add_executable(pool_kill_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/pool_kill_prog.c)
target_link_libraries(pool_kill_prog PRIVATE flightrec_static Threads::Threads)
add_executable(pool_kill_check ${CMAKE_CURRENT_SOURCE_DIR}/pool_kill_check.c)
target_include_directories(pool_kill_check PRIVATE ${CMAKE_SOURCE_DIR}/src/reader)
target_link_libraries(pool_kill_check PRIVATE flightrec_reader)
add_test(NAME pool_kill COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pool_kill.py $<TARGET_FILE:flightrec_cli>
         $<TARGET_FILE:pool_kill_prog> $<TARGET_FILE:pool_kill_check>
         ${CMAKE_CURRENT_BINARY_DIR}/pool_kill.d 40 15)
set_tests_properties(pool_kill PROPERTIES TIMEOUT 300)

# Thread slots round-robin under concurrent claims (core_slots_test.c): a pool-internal
# test, so it sees the runtime's core headers.
add_executable(core_slots_test ${CMAKE_CURRENT_SOURCE_DIR}/core_slots_test.c)
target_include_directories(core_slots_test PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime/core
                           ${CMAKE_SOURCE_DIR}/src/runtime ${CMAKE_SOURCE_DIR}/src/common)
target_link_libraries(core_slots_test PRIVATE flightrec_static Threads::Threads)
add_test(NAME core_slots COMMAND core_slots_test)
set_tests_properties(core_slots PROPERTIES LABELS concurrency TIMEOUT 120)

# No two files of src/runtime/core depend on each other in a circle (issue 26): by the
# symbols each object defines and uses (nm), and by their #include lines (a file and its
# header count as one); the pool includes no writer's header, directly or through others.
find_program(FR_NM NAMES nm llvm-nm)
if(FR_NM)
  add_test(NAME core_no_cycles COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check_cycles.py
    --part src/runtime/core $<TARGET_OBJECTS:flightrec_objs> COMMAND_EXPAND_LISTS)
  set_tests_properties(core_no_cycles PROPERTIES ENVIRONMENT NM=${FR_NM})
endif()
add_test(NAME core_no_include_cycles COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check_includes.py
  --part src/runtime/core
  --forbid buffer_pool=thread_writer,log_writer,stream_writer,stream_doorbell,trace_out,trace_file,xray_layout,snapshot,crash_dump,metadata,backing_file,backing_meta,lifecycle,lifecycle_state,fork
  ${CMAKE_SOURCE_DIR})
