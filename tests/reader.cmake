# Tests of the reading side (reader part): the synthetic trace builder used by every
# part's tests, the streaming reader, metadata, symbols and the info/dump subcommands.

# fr_trace_builder (synthetic traces, tests/trace_builder.h) is defined in the top-level
# CMakeLists.txt: the benchmarks use it too.

add_executable(reader_tb_sample ${CMAKE_CURRENT_SOURCE_DIR}/reader_tb_sample.c)
target_link_libraries(reader_tb_sample PRIVATE fr_trace_builder)

add_test(NAME reader_builder_llvm_xray
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reader_builder.sh $<TARGET_FILE:reader_tb_sample>
          ${LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/reader_builder)

# The reader and the metadata block.
add_executable(reader_test ${CMAKE_CURRENT_SOURCE_DIR}/reader_test.c)
target_link_libraries(reader_test PRIVATE flightrec_reader fr_trace_builder fr_testlib)
add_test(NAME reader_unit COMMAND reader_test)

# --demangle=simple's names (src/reader/name_simple.c) against a table of demangled shapes.
add_executable(reader_name_simple_test ${CMAKE_CURRENT_SOURCE_DIR}/reader_name_simple_test.c)
target_link_libraries(reader_name_simple_test PRIVATE flightrec_reader fr_testlib)
add_test(NAME reader_name_simple COMMAND reader_name_simple_test)

# Files written by compiler-rt's own XRay runtime (FDR and basic mode), compared with
# llvm-xray record by record (function names through the binary's instrumentation map).
find_program(FR_CLANG NAMES clang-14 clang)
if(FR_CLANG)
  add_test(NAME reader_compiler_rt
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_compiler_rt.py ${FR_CLANG} ${LLVM_XRAY}
            $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_SOURCE_DIR}/progs/reader_xray_prog.c
            ${CMAKE_CURRENT_BINARY_DIR}/reader_compiler_rt)
else()
  message(STATUS "reader_compiler_rt not registered: clang (to build the compiler-rt program) not found")
endif()

# Structured events (FR_TE_EVENT) in a trace: dump decodes all of the LinuxTracepoints
# corpus exactly as the reference decoder.
add_executable(reader_events_trace ${CMAKE_CURRENT_SOURCE_DIR}/reader_events_trace.c)
target_link_libraries(reader_events_trace PRIVATE fr_trace_builder)
add_test(NAME reader_dump_events
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_events.py
          $<TARGET_FILE:reader_events_trace> $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/eventheader/EventHeaderInterceptorLE64.dat
          ${CMAKE_CURRENT_SOURCE_DIR}/data/eventheader/EventHeaderInterceptorLE64.dat.linux.json
          ${CMAKE_CURRENT_BINARY_DIR}/reader_events)

# Bad input: truncated at every offset, flipped bits, random bytes -> exit 1 with a
# message naming the file and offset, never a crash or hang (run under ASan in CI).
add_test(NAME reader_robust
  COMMAND sh -c "$<TARGET_FILE:reader_tb_sample> ${CMAKE_CURRENT_BINARY_DIR}/robust.xray small && ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_robust.py $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_BINARY_DIR}/robust.xray ${CMAKE_CURRENT_BINARY_DIR}/reader_robust")
set_tests_properties(reader_robust PROPERTIES TIMEOUT 300)

# Symbols (fr_symbols) on a C++ binary with sleds, linked without compiler-rt.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  add_executable(reader_cxx_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/reader_cxx_prog.cpp)
  target_compile_options(reader_cxx_prog PRIVATE -O1 -g -fxray-instrument
    -fxray-instruction-threshold=1)
  target_link_options(reader_cxx_prog PRIVATE -fxray-instrument -fnoxray-link-deps)
  add_executable(reader_symbols_tool ${CMAKE_CURRENT_SOURCE_DIR}/reader_symbols_tool.c)
  target_link_libraries(reader_symbols_tool PRIVATE flightrec_reader)
  add_test(NAME reader_symbols
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_symbols.py
            $<TARGET_FILE:reader_symbols_tool> ${LLVM_XRAY} $<TARGET_FILE:reader_cxx_prog>
            ${CMAKE_CURRENT_SOURCE_DIR}/progs/reader_cxx_prog.cpp)
else()
  message(STATUS "reader symbol tests on a C++ XRay binary not registered: the C++ compiler is not clang")
endif()

# info and dump on a known trace: exact counts, times, filters; exit codes.
add_test(NAME reader_cli
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_cli.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_tb_sample> ${CMAKE_CURRENT_BINARY_DIR}/reader_cli)

# A trace written by our own runtime (the functrace part's program, through
# `flightrec record`): counts agree with the writer and llvm-xray, names with the binary.
if(TARGET functrace_record_static)
  add_test(NAME reader_recorded
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_recorded.py $<TARGET_FILE:flightrec_cli>
            ${LLVM_XRAY} $<TARGET_FILE:functrace_record_static> ${CMAKE_CURRENT_BINARY_DIR}/reader_recorded)
endif()

# A real trace cut at every offset (a crash, a full disk): every whole record before the
# cut is read (reader, record by record and in batches), the CLI warns and exits 0.
if(TARGET functrace_record_static)
  add_executable(reader_cut_check ${CMAKE_CURRENT_SOURCE_DIR}/reader_cut_check.c)
  target_link_libraries(reader_cut_check PRIVATE flightrec_reader)
  add_test(NAME reader_cut_recorded
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_cut.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:reader_cut_check> $<TARGET_FILE:functrace_record_static>
            ${CMAKE_CURRENT_BINARY_DIR}/reader_cut)
  set_tests_properties(reader_cut_recorded PROPERTIES TIMEOUT 900)
endif()

# Only regular files are opened, never waited on, no planted link followed.
add_test(NAME reader_open_regular
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_open.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_tb_sample> ${CMAKE_CURRENT_BINARY_DIR}/reader_open)
set_tests_properties(reader_open_regular PROPERTIES TIMEOUT 300)

# Names with terminal controls, CR/LF and ';' reach no output raw (text_escape.h).
add_executable(reader_hostile_names ${CMAKE_CURRENT_SOURCE_DIR}/reader_hostile_names.c)
target_link_libraries(reader_hostile_names PRIVATE fr_trace_builder)
add_test(NAME reader_escape
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_escape.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_hostile_names> ${CMAKE_CURRENT_BINARY_DIR}/reader_escape)

# Streaming: peak memory does not grow with the trace (not under sanitizers: their
# allocator and shadow memory blur the numbers).
add_executable(reader_tb_big ${CMAKE_CURRENT_SOURCE_DIR}/reader_tb_big.c)
target_link_libraries(reader_tb_big PRIVATE fr_trace_builder)
if(EXISTS /usr/bin/time)
  add_test(NAME reader_memory
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/reader_memory.py $<TARGET_FILE:reader_tb_big>
            $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_BINARY_DIR}/reader_memory)
  set_tests_properties(reader_memory PROPERTIES LABELS no_asan)
else()
  message(STATUS "reader_memory not registered: /usr/bin/time (GNU time) not found")
endif()

# '-' (standard input) is copied before it is read, and the copy is bounded: an endless
# stream that is no trace is refused after its first MiB, ulimit -f is an error (not
# SIGXFSZ), and a small TMPDIR (a 64 MiB tmpfs: root only, else Skipped) keeps a reserve.
add_test(NAME reader_stdin_bound
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reader_stdin_bound.sh $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_tb_big> ${CMAKE_CURRENT_BINARY_DIR}/reader_stdin_bound)
add_test(NAME reader_stdin_bound_tmpfs
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reader_stdin_bound.sh $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_tb_big> ${CMAKE_CURRENT_BINARY_DIR}/reader_stdin_bound_tmpfs tmpfs)
add_test(NAME reader_stdin_bound_fullish
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reader_stdin_bound.sh $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:reader_tb_big> ${CMAKE_CURRENT_BINARY_DIR}/reader_stdin_bound_fullish fullish)
set_tests_properties(reader_stdin_bound_tmpfs reader_stdin_bound_fullish PROPERTIES SKIP_RETURN_CODE 77)
