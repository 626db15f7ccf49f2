# cross_tests.cmake - which tests a cross build runs (included by tests/CMakeLists.txt
# when CMAKE_CROSSCOMPILING, e.g. the aarch64 build of scripts/test-aarch64.sh).
#
# ctest runs a test under CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64) when its command is
# one of our programs. A test whose command is a script (sh, python) runs the programs it
# is given itself, with execve: without a binfmt_misc entry for qemu (a host setting we
# do not make) the kernel refuses an aarch64 program there, so such tests are registered
# as Skipped with that reason. Programs that qemu's user-mode emulation cannot run
# correctly are named in FR_CROSS_SKIP_NAMES with theirs. Everything else runs.
set(FR_CROSS_SCRIPT_REASON "runs its programs from a script, and this host cannot execve an aarch64 program (no binfmt_misc entry for qemu-aarch64); the native build runs it")

# Tests that cannot run under qemu-aarch64 user-mode emulation (names and reasons, in step)
set(FR_CROSS_SKIP_NAMES core_vfork core_buffers)
set(FR_CROSS_SKIP_REASONS
  "qemu-user runs vfork as fork: the child does not share the parent's memory, which is what the test checks"
  "a stress test of the buffer protocol (millions of records from many threads): past 10 minutes under qemu, the stage's whole time bound; and qemu on an x86-64 host keeps x86-64's memory order, so it would not exercise aarch64's")

function(fr_cross_skip name reason)
  fr_skip_test(${name} "${reason}")
  set_tests_properties(${name} PROPERTIES LABELS cross_skipped)
endfunction()

# Overrides add_test for the fragments included after this file; the original stays
# reachable as _add_test.
function(add_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND" ${ARGN})
  list(GET T_COMMAND 0 program)
  list(FIND FR_CROSS_SKIP_NAMES "${T_NAME}" listed)
  if(NOT listed EQUAL -1)
    list(GET FR_CROSS_SKIP_REASONS ${listed} reason)
    fr_cross_skip(${T_NAME} "${reason}")
  elseif(T_NAME AND TARGET "${program}")
    _add_test(${ARGN})
  elseif(T_NAME AND program MATCHES "^(sh|bash)$|\\.(sh|py)$|python")
    fr_cross_skip(${T_NAME} "${FR_CROSS_SCRIPT_REASON}")
  else()
    _add_test(${ARGN})
  endif()
endfunction()
