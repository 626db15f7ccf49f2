# Benchmarks of the flight recorder core: the record path against its floor.
add_executable(record_bench ${CMAKE_CURRENT_SOURCE_DIR}/record_bench.c)
target_link_libraries(record_bench PRIVATE flightrec_static Threads::Threads)
