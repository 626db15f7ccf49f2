# libFuzzer target for what the runtime reads from the environment (fuzz_options.c:
# FLIGHTREC_OPTIONS, output= patterns, snapshot_signal= names, events= specs), and a
# ctest test that runs it for a bounded time from seeds written here.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  return()
endif()
add_executable(fuzz_options ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_options.c
  ${CMAKE_SOURCE_DIR}/src/runtime/core/options.c ${CMAKE_SOURCE_DIR}/src/runtime/core/output_path.c
  ${CMAKE_SOURCE_DIR}/src/runtime/core/text_out.c ${CMAKE_SOURCE_DIR}/src/runtime/events/event_enable.c
  ${CMAKE_SOURCE_DIR}/src/runtime/functrace/name_pattern.c ${CMAKE_SOURCE_DIR}/src/common/name_simple.c)
target_include_directories(fuzz_options PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime
  ${CMAKE_SOURCE_DIR}/src/runtime/arch/${FLIGHTREC_ARCH} ${CMAKE_SOURCE_DIR}/src/common
  ${CMAKE_SOURCE_DIR}/include)
target_compile_options(fuzz_options PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
target_link_options(fuzz_options PRIVATE -fsanitize=fuzzer,address,undefined)

if(FLIGHTREC_TESTS)
  set(FR_FUZZ_OPTIONS_WORK ${CMAKE_CURRENT_BINARY_DIR}/fuzz_options_run)
  add_test(NAME fuzz_options
    COMMAND sh -c "rm -rf ${FR_FUZZ_OPTIONS_WORK} && mkdir -p ${FR_FUZZ_OPTIONS_WORK}/corpus && \
cd ${FR_FUZZ_OPTIONS_WORK} && \
printf 'start=1 output=/tmp/t-%%p.fr buffer_size=65536 buffers=64 policy=discard' >corpus/1 && \
printf 'crash_dump=1,signal_flush=1,snapshot_signal=SIGRTMIN+3,snapshot_output=s.%%p.%%n' >corpus/2 && \
printf 'events=Prov:5:0xff;Other::0x1,stream=1 backing=/dev/shm/b%%p clock=tsc file_mode=0640' >corpus/3 && \
printf 'patch=glob:id:3-9 threshold_us=5 user_events=on no_file_flush=1 %%%%p=%%' >corpus/4 && \
printf 'buffers=77527 buffer_size=1024' >corpus/5 && \
$<TARGET_FILE:fuzz_options> -max_total_time=20 -max_len=4096 -timeout=10 -close_fd_mask=2 -print_final_stats=1 corpus")
  set_tests_properties(fuzz_options PROPERTIES TIMEOUT 120 LABELS fuzz)
endif()
