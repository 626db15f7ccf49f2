# Tests of the analyses (call tracker, quantile sketch, aggregations) and of the
# account / stack / graph subcommands.
foreach(t analysis_tracker_test analysis_sketch_test analysis_aggregate_test)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE flightrec_reader fr_testlib m)
  add_test(NAME ${t} COMMAND ${t})
endforeach()
# The same aggregation tests with func_stats.c's baseline counting loop (the build's
# flightrec takes the LZCNT copy on a CPU that has it: this one checks the other).
add_executable(analysis_aggregate_baseline ${CMAKE_CURRENT_SOURCE_DIR}/analysis_aggregate_test.c
               ${CMAKE_SOURCE_DIR}/src/analysis/func_stats.c)
target_compile_definitions(analysis_aggregate_baseline PRIVATE FR_FUNC_STATS_BASELINE)
target_link_libraries(analysis_aggregate_baseline PRIVATE flightrec_reader fr_testlib m)
add_test(NAME analysis_aggregate_baseline COMMAND analysis_aggregate_baseline)

# The subcommands on known traces (tests/progs/analysis_traces.c), checked against an
# independent computation from llvm-xray's YAML, against llvm-xray account, and by hand.
add_executable(analysis_traces ${CMAKE_CURRENT_SOURCE_DIR}/progs/analysis_traces.c)
target_link_libraries(analysis_traces PRIVATE fr_trace_builder)
add_test(NAME analysis_cli
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_cli_test.py
          $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:analysis_traces> ${LLVM_XRAY}
          ${CMAKE_CURRENT_BINARY_DIR}/analysis_cli)

# stack / convert folded|svg on hundreds of thousands of distinct stacks: memory per
# stack, --max-stacks (bounded, no call lost), --top. Peak RSS is not checked under
# sanitizers (their allocator and shadow memory would swamp it) nor under an emulator
# (qemu-user's own memory counts); the rest of each test runs.
set(analysis_stacks_bounded_rss "")
if(FLIGHTREC_SANITIZE)
  set(analysis_stacks_bounded_rss "--no-rss=a sanitizer build (its allocator and shadow memory would swamp it)")
elseif(CMAKE_CROSSCOMPILING)
  set(analysis_stacks_bounded_rss "--no-rss=a cross build run under an emulator (qemu-user), whose own memory the peak RSS would include")
endif()
add_test(NAME analysis_stacks_bounded
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_stacks_bounded.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_threads_gen> ${CMAKE_CURRENT_BINARY_DIR}/analysis_stacks_bounded
          ${analysis_stacks_bounded_rss})

# `stack --top N` (and the default 1000) keeps a bounded tree and prints exactly what the
# whole tree gives, reading the trace again when the bound cannot prove it.
add_test(NAME analysis_stack_top
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_stack_top.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_threads_gen> ${CMAKE_CURRENT_BINARY_DIR}/analysis_stack_top)

# `flightrec replay` (the uftrace-style call view) and its filters, against calls matched
# independently from the generator's records.
add_test(NAME analysis_replay
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_replay.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> ${CMAKE_CURRENT_BINARY_DIR}/analysis_replay)

# Per-thread views: --tid on account/stack/graph/convert, --thread-root in folded and SVG.
add_test(NAME analysis_tid
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_tid.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_traces> ${CMAKE_CURRENT_BINARY_DIR}/analysis_tid)

# A runaway recursion (a stack overflow's trace): stack, folded and svg cut at
# --max-depth with nothing lost, replay's indentation bounded.
add_test(NAME analysis_deep
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_deep.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:analysis_traces> ${CMAKE_CURRENT_BINARY_DIR}/analysis_deep)

# Every stack in bounded memory: folded, svg and stack's second read spill the tree to
# temporary files and merge them, writing the bytes of an in-memory run (stack_spill.c).
add_test(NAME analysis_stacks_spill
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analysis_stacks_spill.py $<TARGET_FILE:flightrec_cli>
          $<TARGET_FILE:convert_threads_gen> ${CMAKE_CURRENT_BINARY_DIR}/analysis_stacks_spill
          ${analysis_stacks_bounded_rss})
