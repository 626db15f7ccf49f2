# Tests against a real kernel with Linux user_events (issue 22; docs/KERNEL_TESTS.md):
# kernel_vm boots one virtual machine (QEMU, software emulation) that runs every scenario
# of tests/kernel/guest_tests.sh; each kernel_NAME test then checks its scenario's results
# (tests/kernel/kernel_check.py). Label `kernel`: ctest -L kernel runs them alone.
#
# The kernel: FLIGHTREC_TEST_KERNEL from the environment of ctest, else this cache
# variable (by default ../shared/kernel/bzImage beside the source tree when it exists),
# else tests/kernel/build_kernel.sh builds it from Debian's linux-source, once, into the
# build tree.
# Not in the VM: the kernel tests' perf.data reader sets apart exactly the samples perf
# record writes twice (tests/kernel/perfdata.py split_rereads), on a real perf.data cut
# and made ones (Python alone: runs in any build).
add_test(NAME kernel_perfdata_rereads
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/kernel/perfdata_rereads.py
          ${CMAKE_CURRENT_SOURCE_DIR}/data/perf)
if(CMAKE_CROSSCOMPILING)   # tests/cross/cross_tests.cmake
  fr_cross_skip(kernel_vm "the kernel tests boot an x86-64 guest kernel and ue_prog reads x86-64 registers; the native build runs them")
  return()
endif()
set(_fr_kernel_default "")
if(DEFINED ENV{FLIGHTREC_TEST_KERNEL})
  set(_fr_kernel_default "$ENV{FLIGHTREC_TEST_KERNEL}")
elseif(EXISTS "${CMAKE_SOURCE_DIR}/../shared/kernel/bzImage")
  get_filename_component(_fr_kernel_default "${CMAKE_SOURCE_DIR}/../shared/kernel/bzImage" ABSOLUTE)
endif()
set(FLIGHTREC_TEST_KERNEL "${_fr_kernel_default}" CACHE FILEPATH
    "bzImage with CONFIG_USER_EVENTS for the kernel tests (empty: build one from Debian's linux-source)")
find_program(FR_PERF NAMES perf)
if(NOT FR_PERF)
  set(FR_PERF perf-not-found)   # vm.py then fails saying so: scripts/deps.sh installs linux-perf
endif()

add_executable(ue_prog ${CMAKE_CURRENT_SOURCE_DIR}/kernel/ue_prog.c)
target_link_libraries(ue_prog PRIVATE flightrec_static)
add_executable(ue_collect ${CMAKE_CURRENT_SOURCE_DIR}/kernel/ue_collect.c)
target_link_libraries(ue_collect PRIVATE flightrec_reader)

set(FR_KERNEL_WORK ${CMAKE_CURRENT_BINARY_DIR}/kernel_vm)
set(FR_KERNEL_TESTS registration enable_bits collector_values collector_spans perf_record
    perf_record_cmd no_syscall fork unregister exit sigkill two_processes enable_gap doctor)
add_test(NAME kernel_vm
  COMMAND ${CMAKE_COMMAND} -E env "FLIGHTREC_KERNEL_DEFAULT=${FLIGHTREC_TEST_KERNEL}"
          ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/kernel/vm.py
          --work ${FR_KERNEL_WORK} --results ${FR_KERNEL_WORK}/results
          --bin ue_prog=$<TARGET_FILE:ue_prog> --bin ue_collect=$<TARGET_FILE:ue_collect>
          --bin flightrec=$<TARGET_FILE:flightrec_cli> --bin perf=${FR_PERF})
set_tests_properties(kernel_vm PROPERTIES FIXTURES_SETUP kernel_vm LABELS kernel TIMEOUT 2400)
foreach(t ${FR_KERNEL_TESTS})
  add_test(NAME kernel_${t}
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/kernel/kernel_check.py ${t}
            ${FR_KERNEL_WORK}/results $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:events_trace_json>)
  set_tests_properties(kernel_${t} PROPERTIES FIXTURES_REQUIRED kernel_vm LABELS kernel)
endforeach()
