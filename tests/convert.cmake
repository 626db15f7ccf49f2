# Tests of `flightrec convert` (chrome, folded, svg, yaml) on known traces; see
# tests/convert_check.py for what is checked and against what.
add_executable(convert_traces ${CMAKE_CURRENT_SOURCE_DIR}/convert_traces.c)
target_link_libraries(convert_traces PRIVATE fr_trace_builder)

add_test(NAME convert_known_traces
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_check.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> ${LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/convert_known_traces)

# A real recording (`flightrec record` of an XRay-instrumented program) converted and
# compared with llvm-xray and with the program's known call counts.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_executable(convert_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/convert_prog.c)
  target_compile_options(convert_prog PRIVATE -fxray-instrument -fnoxray-link-deps
    -fxray-instruction-threshold=1 -O1)
  target_link_options(convert_prog PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(convert_prog PRIVATE flightrec Threads::Threads)
  add_test(NAME convert_real_recording
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_record.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:convert_prog> ${LLVM_XRAY} ${CMAKE_CURRENT_BINARY_DIR}/convert_real_recording)
else()
  message(STATUS "convert_real_recording not registered: the C compiler is not clang (XRay sleds)")
endif()
# Chrome JSON as viewers read it: speedscope's frame names (no file/line args), the
# functions' starts once, spans with their parents, an events-only trace viewable, size.
if(TARGET convert_prog)
  add_test(NAME convert_chrome_viewers
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_chrome_viewers.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:convert_prog> $<TARGET_FILE:events_record> ${CMAKE_CURRENT_BINARY_DIR}/convert_chrome_viewers)
endif()
if(TEST convert_real_recording)
  set_tests_properties(convert_real_recording PROPERTIES SKIP_RETURN_CODE 77)
endif()

# Files written by compiler-rt's XRay runtime (FDR and basic mode): yaml byte for byte as
# llvm-xray's, chrome with one complete event per call.
find_program(CONVERT_CLANG NAMES clang-14 clang)
if(CONVERT_CLANG)
  add_test(NAME convert_compiler_rt
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_compiler_rt.py ${CONVERT_CLANG} ${LLVM_XRAY}
            $<TARGET_FILE:flightrec_cli> ${CMAKE_CURRENT_SOURCE_DIR}/progs/reader_xray_prog.c
            ${CMAKE_CURRENT_BINARY_DIR}/convert_compiler_rt)
else()
  message(STATUS "convert tests on compiler-rt's files not registered: clang not found")
endif()

# The SVG flame graph's inline script (zoom, reset, search, hover), run by node against the
# frames of a real output, where node is installed.
find_program(CONVERT_NODE NAMES node nodejs)
if(CONVERT_NODE)
  add_test(NAME convert_svg_script
    COMMAND sh -c "mkdir -p \"$2\" && \"$1\" \"$2\" && \"$3\" convert \"$2/calls.fr\" --format svg --weight calls -o \"$2/calls.svg\" && \"$4\" \"$5\" \"$2/calls.svg\" lex"
            sh $<TARGET_FILE:convert_traces> ${CMAKE_CURRENT_BINARY_DIR}/convert_svg_script
            $<TARGET_FILE:flightrec_cli> ${CONVERT_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/convert_svg_script.js)
else()
  message(STATUS "convert_svg_script not registered: node not found")
endif()

# Perfetto protobuf output: protoc decodes it with Perfetto's schema (tests/data/perfetto,
# Apache-2.0, LICENSE beside it), and an independent decoder checks every slice against
# the Chrome JSON of the same trace. Skipped (77) without protoc (protobuf-compiler).
# The benchmarks' generator of multi-thread traces, built here too (benchmarks may be off).
add_executable(convert_threads_gen ${CMAKE_SOURCE_DIR}/bench/analysis_gen.c)
target_include_directories(convert_threads_gen PRIVATE ${CMAKE_SOURCE_DIR}/src/common)
add_test(NAME convert_perfetto
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_perfetto_check.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> $<TARGET_FILE:convert_threads_gen> ${CMAKE_CURRENT_SOURCE_DIR}/data/perfetto
          ${CMAKE_CURRENT_BINARY_DIR}/convert_perfetto)
set_tests_properties(convert_perfetto PROPERTIES SKIP_RETURN_CODE 77)

# A trace without our clock event whose first block is not the earliest (compiler-rt's
# FDR files, multi-thread): the origin is the earliest record, no negative time in info,
# dump (--from 0us keeps everything), chrome, perfetto.
add_test(NAME convert_origin
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_origin.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/convert_origin)
# Calls that share clock ticks (a coarse clock: aarch64's, qemu's): the Chrome JSON's
# complete events nest in a viewer as the calls ran, times moved by nanoseconds only.
add_test(NAME convert_chrome_same_tick
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_chrome_same_tick.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/convert_chrome_same_tick)

# A damaged basic-mode file whose times leave the 64-bit nanosecond range: every command
# finishes; under UBSan, no signed overflow (chrome's duration overflowed).
add_test(NAME convert_wild_times
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_wild_times.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/convert_wild_times)

# The converters' division-free tick -> ns conversion against exact 128-bit arithmetic.
add_executable(convert_clock_test ${CMAKE_CURRENT_SOURCE_DIR}/convert_clock_test.c)
target_include_directories(convert_clock_test PRIVATE ${CMAKE_SOURCE_DIR}/src/cli
  ${CMAKE_SOURCE_DIR}/src/cli/convert ${CMAKE_SOURCE_DIR}/src/reader ${CMAKE_SOURCE_DIR}/src/analysis
  ${CMAKE_SOURCE_DIR}/src/common)
add_test(NAME convert_clock_test COMMAND convert_clock_test)

# Many processes on one timeline: a program forking 3 children, recorded (4 traces),
# merged into one Perfetto file; see tests/convert_merge.py.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  add_executable(convert_fork_prog ${CMAKE_CURRENT_SOURCE_DIR}/progs/convert_fork_prog.c)
  target_compile_options(convert_fork_prog PRIVATE -fxray-instrument -fnoxray-link-deps
    -fxray-instruction-threshold=1 -O1)
  target_link_options(convert_fork_prog PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(convert_fork_prog PRIVATE flightrec)
  add_test(NAME convert_merge
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_merge.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:convert_fork_prog> ${CMAKE_CURRENT_SOURCE_DIR}/data/perfetto
            ${CMAKE_CURRENT_BINARY_DIR}/convert_merge)
  # The same 4 traces as folded stacks and one SVG flame graph, a root per process.
  add_test(NAME convert_merge_stacks
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_merge_stacks.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:convert_fork_prog> ${CMAKE_CURRENT_BINARY_DIR}/convert_merge_stacks)
else()
  message(STATUS "convert merge test not registered: the C compiler is not clang (XRay sleds)")
endif()

# Function ids as large as a record carries: no table sized by the largest id.
add_test(NAME convert_wild_ids
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_wild_ids.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/convert_wild_ids)

# Thread ids a kernel never gives (2^30 and more, negative) under --thread-root: stack,
# folded and svg name each thread by its tid (the null-name crash fuzz_cli found).
add_test(NAME convert_wild_tids
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_wild_tids.py $<TARGET_FILE:flightrec_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/convert_wild_tids)

# A structured event's floating-point fields stay doubles in Perfetto's output even when
# their value is a whole number (0 and 1 were written as unsigned integers: issue 24).
add_executable(events_doubles ${CMAKE_CURRENT_SOURCE_DIR}/progs/events_doubles.c)
target_link_libraries(events_doubles PRIVATE flightrec_static)
add_test(NAME convert_perfetto_doubles
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_perfetto_doubles.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:events_doubles> ${CMAKE_CURRENT_BINARY_DIR}/convert_perfetto_doubles)

# A deep flame graph (a recursion 70 frames deep) shows its root on the first screen: it
# opened blank, its root 1,118 px down (issue 24).
add_executable(convert_deep_trace ${CMAKE_CURRENT_SOURCE_DIR}/convert_deep_trace.c)
target_link_libraries(convert_deep_trace PRIVATE fr_trace_builder)
add_test(NAME convert_svg_deep
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/convert_svg_deep.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_deep_trace> ${CMAKE_CURRENT_BINARY_DIR}/convert_svg_deep)
