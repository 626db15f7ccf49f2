# cross_tests.cmake - which tests a cross build runs (included by tests/CMakeLists.txt
# when CMAKE_CROSSCOMPILING, e.g. the aarch64 build of scripts/test-aarch64.sh).
#
# ctest runs a test under CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64) when its command is
# one of our programs: those always run. A test whose command is a script (sh, python)
# runs the programs it is given itself, with execve, which works only where the kernel
# hands aarch64 programs to qemu: scripts/aarch64-binfmt.sh gives ctest such a place
# (a binfmt_misc entry in a namespace of its own), and scripts/test-aarch64.sh then
# configures with FLIGHTREC_CROSS_EXEC=ON. Without it, scripts say Skipped with that
# reason. With it:
#   - the scripts in FR_CROSS_STAGE run: the CI stage's set, chosen for what the port
#     changes (clock, sleds, trampolines, record and its preload, crash dumps, backing
#     files and recovery, streaming, events, concurrency) within the stage's time bound;
#   - every other script says Skipped, left out for time, unless FLIGHTREC_CROSS_ALL=ON
#     (scripts/test-aarch64.sh --all), which runs them all;
#   - tests that cannot run under qemu-aarch64 user-mode emulation, or not against an
#     aarch64 build, are Skipped with their reason (fr_cross_cannot below), in every mode.
option(FLIGHTREC_CROSS_EXEC "the tests run where execve() runs aarch64 programs (scripts/aarch64-binfmt.sh): scripts too" OFF)
option(FLIGHTREC_CROSS_ALL "with FLIGHTREC_CROSS_EXEC: every script, not only the CI stage's set" OFF)
set(FR_CROSS_SCRIPT_REASON "runs its programs from a script, and this host cannot execve an aarch64 program (no binfmt_misc entry for qemu-aarch64, and scripts/aarch64-binfmt.sh could not make one: Linux 6.7 or later with user namespaces needed)")
set(FR_CROSS_TIME_REASON "left out of the CI stage for time (scripts/test-aarch64.sh --all runs it under qemu-aarch64)")

set(FR_CROSS_STAGE
  functrace_fast_path_pool core_llvm_xray events_recorder               # concurrency
  functrace_record_shared functrace_record_static functrace_static_plain
  functrace_xray_fdr functrace_xray_stream record_exec cli_doctor_static
  crash_faults crash_nested crash_xfsz crash_fifo_gone crash_backing     # dumps, backing
  events_many_sites events_span_scope_c events_span_scope_cxx
  hostile_startup hostile_bad_options reader_recorded convert_real_recording)

# Tests that cannot run here, with the reason.
set(FR_CROSS_CANNOT_NAMES "")
set(FR_CROSS_CANNOT_REASONS "")
macro(fr_cross_cannot reason)
  foreach(n ${ARGN})
    list(APPEND FR_CROSS_CANNOT_NAMES ${n})
    list(APPEND FR_CROSS_CANNOT_REASONS "${reason}")
  endforeach()
endmacro()
fr_cross_cannot("qemu-user runs vfork as fork: the child does not share the parent's memory, which is what the test checks"
  core_vfork)
fr_cross_cannot("a stress test of the buffer protocol (millions of records from many threads): past 10 minutes under qemu, and qemu on an x86-64 host keeps x86-64's memory order, so it would not exercise aarch64's"
  core_buffers)
fr_cross_cannot("builds its programs with the host's compiler (x86-64 code) and links or preloads this build's aarch64 libflightrec"
  events_gcc events_cxx_macros functrace_gcc functrace_cxx_names_gcc functrace_cxx_calls_gcc
  functrace_few_sleds functrace_binary_check functrace_filters install_package
  install_record_norelink xraycompat_link_by_hand functrace_libcalls functrace_static_longjmp
  functrace_static_throw)
fr_cross_cannot("its refusal case installs a seccomp filter, which qemu-user does not implement (EINVAL)"
  functrace_record_sched)
fr_cross_cannot("the faults it raises are x86-64's: __builtin_trap is SIGILL there but SIGTRAP (brk) on aarch64, and an integer division by zero does not trap on aarch64"
  crash_signals)
fr_cross_cannot("record's default snapshot signal, SIGRTMAX-1, has no host signal under qemu-user (kill fails with EINVAL)"
  crash_snapshot)
fr_cross_cannot("its fork case trips an assertion inside qemu-user (cpu_exec: cpu == current_cpu, a fork of a threaded process), the other cases pass under qemu"
  crash_stream)
fr_cross_cannot("measures the command's peak RSS, which under qemu-user includes the emulator's own"
  analysis_stacks_bounded)
fr_cross_cannot("checks the build's test list (cmake/FlightrecClangOnly.cmake), the same on every CPU, with a shell loop whose separators the cross build's add_test wrapper cannot pass on"
  clang_only_list)

function(fr_cross_skip name reason)
  fr_skip_test(${name} "${reason}")
  set_tests_properties(${name} PROPERTIES LABELS cross_skipped)
endfunction()

# Overrides add_test for the fragments included after this file; the original stays
# reachable as _add_test.
function(add_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND" ${ARGN})
  list(GET T_COMMAND 0 program)
  list(FIND FR_CROSS_CANNOT_NAMES "${T_NAME}" cannot)
  list(FIND FR_CROSS_STAGE "${T_NAME}" staged)
  if(NOT cannot EQUAL -1)
    list(GET FR_CROSS_CANNOT_REASONS ${cannot} reason)
    fr_cross_skip(${T_NAME} "${reason}")
  elseif(T_NAME AND TARGET "${program}")
    _add_test(${ARGN})
  elseif(T_NAME AND program MATCHES "^(sh|bash)$|\\.(sh|py)$|python")
    if(NOT FLIGHTREC_CROSS_EXEC)
      fr_cross_skip(${T_NAME} "${FR_CROSS_SCRIPT_REASON}")
    elseif(staged EQUAL -1 AND NOT FLIGHTREC_CROSS_ALL)
      fr_cross_skip(${T_NAME} "${FR_CROSS_TIME_REASON}")
    else()
      _add_test(${ARGN})
    endif()
  else()
    _add_test(${ARGN})
  endif()
endfunction()
