# Structured events: disabled and enabled call sites against the rdtsc + store floor.
# Run: build/bench/events_bench [iterations]
add_executable(events_bench ${CMAKE_CURRENT_SOURCE_DIR}/events_bench.c)
target_link_libraries(events_bench PRIVATE flightrec_static)
