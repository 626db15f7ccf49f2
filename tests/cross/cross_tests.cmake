# cross_tests.cmake - which tests a cross build runs (included by tests/CMakeLists.txt
# when CMAKE_CROSSCOMPILING, e.g. the aarch64 build of scripts/test-aarch64.sh).
#
# ctest runs a test under CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64) when its command is
# one of our programs: those always run. A test whose command is a script (sh, python)
# runs the programs it is given itself, with execve, which works only where the kernel
# hands aarch64 programs to qemu: scripts/aarch64-binfmt.sh gives ctest such a place
# (a binfmt_misc entry in a namespace of its own), and scripts/test-aarch64.sh then
# configures with FLIGHTREC_CROSS_EXEC=ON. Without it, scripts say Skipped with that
# reason. With it every script runs (scripts/test-aarch64.sh, the CI stage, runs them all,
# each under a timeout), except:
#   - tests that cannot run under qemu-aarch64 user-mode emulation, or not against an
#     aarch64 build, are Skipped with their reason (fr_cross_cannot below);
#   - a test of which only a part cannot run here runs the rest and says so in its output
#     (the test sees from the program's ELF header that it runs emulated: frtest.sh and
#     frtest.py's emulated; e.g. crash_signals' SIGFPE case, crash_stream's fork case;
#     analysis_stacks_* are given --no-rss=WHY by tests/analysis.cmake), and tests that
#     repeat a check many times repeat it less there (reader_cut, reader_robust,
#     decodeperf_check, pool_history: docs/AARCH64.md).
option(FLIGHTREC_CROSS_EXEC "the tests run where execve() runs aarch64 programs (scripts/aarch64-binfmt.sh): scripts too" OFF)
set(FR_CROSS_SCRIPT_REASON "runs its programs from a script, and this host cannot execve an aarch64 program (no binfmt_misc entry for qemu-aarch64, and scripts/aarch64-binfmt.sh could not make one: Linux 6.7 or later with user namespaces needed)")

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
  install_record_norelink xraycompat_link_by_hand functrace_static_longjmp
  functrace_static_throw functrace_stream_names)
fr_cross_cannot("builds its programs with the compilers of the host: this build runs the same script with the cross compilers as aarch64_libcalls (tests/aarch64.cmake)"
  functrace_libcalls)
fr_cross_cannot("builds its programs with the compilers of the host: this build runs the same script with the cross gcc as aarch64_libcalls_static_runtime (tests/aarch64.cmake)"
  functrace_libcalls_static_runtime_gcc functrace_libcalls_static_runtime_clang)
fr_cross_cannot("runs README.md's commands, which build and run flightrec natively with the host's compiler: it uses nothing of this aarch64 build (the native suite runs it)"
  readme_commands)
fr_cross_cannot("its refusal case installs a seccomp filter, which qemu-user does not implement (EINVAL)"
  functrace_record_sched)

function(fr_cross_skip name reason)
  fr_skip_test(${name} "${reason}")
  set_tests_properties(${name} PROPERTIES LABELS cross_skipped)
endfunction()

# Overrides add_test for the fragments included after this file, and for those of cmake/
# included later from the top directory (clang_only_list): the lists above are global
# properties so that they reach it there too. The original stays reachable as _add_test.
# Each argument is passed on as it came, its semicolons kept (a shell command's `;` would
# otherwise split it into several arguments).
set_property(GLOBAL PROPERTY FR_CROSS_CANNOT_NAMES "${FR_CROSS_CANNOT_NAMES}")
set_property(GLOBAL PROPERTY FR_CROSS_CANNOT_REASONS "${FR_CROSS_CANNOT_REASONS}")
set_property(GLOBAL PROPERTY FR_CROSS_SCRIPT_REASON "${FR_CROSS_SCRIPT_REASON}")
function(add_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND" ${ARGN})
  list(GET T_COMMAND 0 program)
  get_property(names GLOBAL PROPERTY FR_CROSS_CANNOT_NAMES)
  get_property(reasons GLOBAL PROPERTY FR_CROSS_CANNOT_REASONS)
  get_property(script_reason GLOBAL PROPERTY FR_CROSS_SCRIPT_REASON)
  list(FIND names "${T_NAME}" cannot)
  set(args "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 0 ${last})
    string(REPLACE ";" "\\;" a "${ARGV${i}}")
    list(APPEND args "${a}")
  endforeach()
  if(NOT cannot EQUAL -1)
    list(GET reasons ${cannot} reason)
    fr_cross_skip(${T_NAME} "${reason}")
  elseif(T_NAME AND NOT TARGET "${program}" AND program MATCHES "^(sh|bash)$|\\.(sh|py)$|python"
         AND NOT FLIGHTREC_CROSS_EXEC)
    fr_cross_skip(${T_NAME} "${script_reason}")
  else()
    _add_test(${args})
  endif()
endfunction()
