# Function tracing (issue 3): sleds, trampolines, compat layer, gcc hooks, `flightrec record`.
# Instrumented programs are built here with clang's XRay flags; the gcc programs are built
# by the test scripts (tests/functrace_*.sh) with the gcc on the PATH.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(FUNCTRACE_XRAY_FLAGS -fxray-instrument -fnoxray-link-deps -fxray-instruction-threshold=1)

  # functrace_xray_program(NAME SOURCE LIB): an XRay-instrumented test program.
  function(functrace_xray_program name src lib)
    add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/progs/${src})
    target_compile_options(${name} PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2 -Wno-unused-parameter)
    target_link_options(${name} PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(${name} PRIVATE ${lib})
  endfunction()

  functrace_xray_program(functrace_sleds_static functrace_sleds.c flightrec_static)
  functrace_xray_program(functrace_sleds_shared functrace_sleds.c flightrec)
  add_test(NAME functrace_sleds_static COMMAND functrace_sleds_static)
  add_test(NAME functrace_sleds_shared COMMAND functrace_sleds_shared)

  functrace_xray_program(functrace_threads functrace_threads.c flightrec_static)
  add_test(NAME functrace_threads COMMAND functrace_threads)
  set_tests_properties(functrace_threads PROPERTIES LABELS concurrency)

  # Sleds in shared libraries: one linked, one dlopen'ed; all link libflightrec.so.
  foreach(lib a b)
    add_library(functrace_solib_${lib} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_solib_${lib}.c)
    target_compile_options(functrace_solib_${lib} PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2)
    target_link_options(functrace_solib_${lib} PRIVATE -fxray-instrument -fnoxray-link-deps)
    target_link_libraries(functrace_solib_${lib} PRIVATE flightrec)
  endforeach()
  functrace_xray_program(functrace_solib_main functrace_solib_main.c "flightrec;functrace_solib_a;dl")
  add_dependencies(functrace_solib_main functrace_solib_b)
  add_test(NAME functrace_solib COMMAND functrace_solib_main $<TARGET_FILE:functrace_solib_b>)

  # dlopen/dlclose while traced: new objects patched without __xray_patch, unloaded ones
  # forgotten (patching after dlclose leaves the library now at that address untouched).
  add_library(functrace_dlopen_a SHARED ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_dlopen_a.c)
  target_compile_options(functrace_dlopen_a PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2)
  target_link_options(functrace_dlopen_a PRIVATE -fxray-instrument -fnoxray-link-deps)
  add_library(functrace_dlopen_b SHARED ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_dlopen_b.c)
  functrace_xray_program(functrace_dlopen_main functrace_dlopen_main.c "flightrec;dl")
  add_dependencies(functrace_dlopen_main functrace_dlopen_a functrace_dlopen_b)
  add_test(NAME functrace_dlopen
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_dlopen.sh $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:functrace_dlopen_main> $<TARGET_FILE:functrace_dlopen_a>
            $<TARGET_FILE:functrace_dlopen_b> ${CMAKE_CURRENT_BINARY_DIR}/functrace_dlopen_work
            ${LLVM_XRAY})
  set_tests_properties(functrace_dlopen PROPERTIES SKIP_RETURN_CODE 77)
  # The same plugin dlopen'ed 100 times by a program without instrumentation (issue 24).
  add_executable(dlopen_plain_host ${CMAKE_CURRENT_SOURCE_DIR}/progs/dlopen_plain_host.c)
  target_link_libraries(dlopen_plain_host PRIVATE dl)
  add_test(NAME functrace_dlopen_plain
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_dlopen_plain.sh $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:dlopen_plain_host> $<TARGET_FILE:functrace_dlopen_a>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_dlopen_plain_work)
  # no_asan: record preloads libflightrec.so into the host, built without the sanitizer
  set_tests_properties(functrace_dlopen_plain PROPERTIES LABELS no_asan)

  # The plain static link line (the archive's file, not the CMake target and its
  # --undefined option): fr_init alone must bring function tracing in.
  add_executable(functrace_static_plain ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_static_plain.c)
  target_compile_options(functrace_static_plain PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O1)
  target_include_directories(functrace_static_plain PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_options(functrace_static_plain PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(functrace_static_plain PRIVATE $<TARGET_FILE:flightrec_static>)
  add_dependencies(functrace_static_plain flightrec_static)
  add_test(NAME functrace_static_plain
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_static_plain.sh $<TARGET_FILE:flightrec_cli>
            ${LLVM_XRAY} $<TARGET_FILE:functrace_static_plain>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_static_plain_work)

  # __m256 arguments/results across traced calls: the entry/exit trampolines' saved set
  # suffices for the recorder, slow path included (tiny pool, glibc's AVX2 routines); a
  # handler that clears the upper halves is detected. (x86-64 only: AVX.)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    functrace_xray_program(functrace_avx_calls functrace_avx_calls.c flightrec)
    add_test(NAME functrace_avx_calls COMMAND functrace_avx_calls)
    add_test(NAME functrace_avx_calls_detects COMMAND functrace_avx_calls --clobbering-handler)
    set_tests_properties(functrace_avx_calls PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
      "FLIGHTREC_OPTIONS=start=1 output=${CMAKE_CURRENT_BINARY_DIR}/functrace_avx_calls.fr buffer_size=4096 buffers=4 policy=overwrite;GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F")
    set_tests_properties(functrace_avx_calls_detects PROPERTIES SKIP_RETURN_CODE 77)
  else()
    foreach(t functrace_avx_calls functrace_avx_calls_detects)
      fr_skip_test(${t} "x86-64 only: __m256 (AVX) values across the x86-64 trampolines (the ${FLIGHTREC_ARCH} argument and result registers are checked by functrace_fast_path_ring)")
    endforeach()
  endif()

  # The trampolines' fast path under the recorder: every argument/result register kind
  # and a tail call checked on every call, signal handlers tracing calls in the middle of
  # it, and records written + dropped = 2 x calls made. A tiny ring (the C path runs in
  # the loop) and a pool that holds the whole run (every record kept: fast path only).
  functrace_xray_program(functrace_fast_path functrace_fast_path.c "flightrec;Threads::Threads")
  add_test(NAME functrace_fast_path_ring COMMAND functrace_fast_path)
  set_tests_properties(functrace_fast_path_ring PROPERTIES SKIP_RETURN_CODE 77
    LABELS concurrency ENVIRONMENT
    "FLIGHTREC_OPTIONS=start=1 output=${CMAKE_CURRENT_BINARY_DIR}/functrace_fast_path_ring.fr buffer_size=4096 buffers=4 policy=overwrite")
  add_test(NAME functrace_fast_path_pool
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_fast_path.sh $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:functrace_fast_path> ${CMAKE_CURRENT_BINARY_DIR}/functrace_fast_path_pool.fr)
  set_tests_properties(functrace_fast_path_pool PROPERTIES SKIP_RETURN_CODE 77 LABELS concurrency)

  # ... and that it is what records a traced call: under qemu user-mode emulation, no
  # instruction of fr_record_function runs for the calls (tests/functrace_fast_path_taken.py).
  # Linked without PIE: the script gives qemu the addresses of the program's symbols. The
  # script runs the emulator itself: in a cross build it needs no binfmt entry.
  add_executable(functrace_fast_path_count ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_fast_path_count.c)
  target_compile_options(functrace_fast_path_count PRIVATE -O2 -fxray-instrument -fnoxray-link-deps)
  target_link_options(functrace_fast_path_count PRIVATE -fxray-instrument -fnoxray-link-deps -no-pie)
  target_link_libraries(functrace_fast_path_count PRIVATE flightrec_static Threads::Threads)
  if(CMAKE_CROSSCOMPILING)
    string(JOIN " " fr_count_qemu ${CMAKE_CROSSCOMPILING_EMULATOR})
  else()
    find_program(FR_QEMU_USER qemu-${FLIGHTREC_ARCH})
    set(fr_count_qemu "")
    if(FR_QEMU_USER)
      set(fr_count_qemu ${FR_QEMU_USER})
    endif()
  endif()
  set(fr_add add_test)
  if(COMMAND _add_test)   # the cross build's original add_test (tests/cross/cross_tests.cmake)
    set(fr_add _add_test)
  endif()
  cmake_language(CALL ${fr_add} NAME functrace_fast_path_taken
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/functrace_fast_path_taken.py "${fr_count_qemu}"
            $<TARGET_FILE:functrace_fast_path_count> ${CMAKE_CURRENT_BINARY_DIR}/functrace_fast_path_taken.d)
  # no_asan: the sanitizer's shadow memory under qemu-user
  set_tests_properties(functrace_fast_path_taken PROPERTIES SKIP_RETURN_CODE 77 LABELS no_asan)

  # The flags users need: pkg-config's xray_cflags; record warns about few sleds.
  add_test(NAME functrace_few_sleds
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_few_sleds.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_BINARY_DIR}/flightrec.pc ${CMAKE_CURRENT_BINARY_DIR}/functrace_few_sleds_work)
  # no_asan: its programs are built here without the sanitizer and record preloads
  # libflightrec.so into them, which in the ASan build needs the ASan runtime.
  set_tests_properties(functrace_few_sleds PROPERTIES SKIP_RETURN_CODE 77 LABELS no_asan)

  # The recorder behind the sleds, through `flightrec record`; counts checked against
  # llvm-xray (convert and account) and our reader.
  foreach(kind shared static)
    set(lib flightrec)
    if(kind STREQUAL "static")
      set(lib flightrec_static)
    endif()
    functrace_xray_program(functrace_record_${kind} functrace_record_prog.c "${lib};Threads::Threads")
    add_test(NAME functrace_record_${kind}
      COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/functrace_record_test.py
              $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY} $<TARGET_FILE:functrace_record_${kind}>
              ${CMAKE_CURRENT_BINARY_DIR}/functrace_work)
  endforeach()

  # flightrec record: checks, options, --filter, exit statuses.
  add_executable(functrace_plain ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_plain.c)
  target_link_libraries(functrace_plain PRIVATE flightrec)
  # Built here, not by the script, so it gets the build's sanitizer flags.
  add_executable(functrace_exit_seven ${CMAKE_CURRENT_SOURCE_DIR}/progs/exit_seven.c)
  target_link_libraries(functrace_exit_seven PRIVATE flightrec)
  add_test(NAME functrace_record_cli
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_record_cli.sh $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:functrace_record_shared> $<TARGET_FILE:functrace_plain>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_cli_work ${LLVM_XRAY}
            $<TARGET_FILE:functrace_exit_seven> $<TARGET_FILE:convert_traces>
            $<TARGET_FILE:functrace_solib_main>)

  # record -o FIFO or device: written in place, the node left as it was (issue 15).
  add_test(NAME functrace_record_special
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_record_special.sh $<TARGET_FILE:flightrec_cli>
            ${LLVM_XRAY} $<TARGET_FILE:functrace_record_shared>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_record_special.d)
  set_tests_properties(functrace_record_special PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

  # A program written for compiler-rt's FDR API, relinked with libflightrec.
  functrace_xray_program(functrace_xray_fdr functrace_xray_fdr.c flightrec)
  add_test(NAME functrace_xray_fdr
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_xray_fdr.sh $<TARGET_FILE:functrace_xray_fdr>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_fdr_work ${LLVM_XRAY})

  # The same API with stream=1: the file grows from init, the flush writes its end.
  functrace_xray_program(functrace_xray_stream functrace_xray_stream.c "flightrec;Threads::Threads")
  add_test(NAME functrace_xray_stream
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_xray_stream.sh $<TARGET_FILE:functrace_xray_stream>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_xray_stream.d ${LLVM_XRAY} $<TARGET_FILE:flightrec_cli>)

  # C++ names (namespace, template, virtual, lambda, std::thread) demangled in every output.
  functrace_xray_program(functrace_cxx_names functrace_cxx_names.cpp "flightrec;Threads::Threads")
  add_test(NAME functrace_cxx_names
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_cxx_names.sh $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:functrace_cxx_names> ${CMAKE_CURRENT_BINARY_DIR}/functrace_cxx_work)

  # A C++ program's call tree, exactly, in every output: exceptions through 5 traced
  # frames and longjmp through 3 closed by the runtime's shadow stack.
  functrace_xray_program(functrace_cxx_calls functrace_cxx_calls.cpp "flightrec;Threads::Threads")
  target_compile_options(functrace_cxx_calls PRIVATE -g)   # file:line checks
  add_test(NAME functrace_cxx_calls
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/functrace_cxx_calls.py
            $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY} $<TARGET_FILE:functrace_cxx_calls>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_cxx_calls_work)

  # C++ exceptions through traced frames.
  add_executable(functrace_exception ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_exception.cpp)
  target_compile_options(functrace_exception PRIVATE ${FUNCTRACE_XRAY_FLAGS} -O2)
  target_link_options(functrace_exception PRIVATE -fxray-instrument -fnoxray-link-deps)
  target_link_libraries(functrace_exception PRIVATE flightrec_static)
  add_test(NAME functrace_exception COMMAND functrace_exception)

  # record --sched (issue 24 item 4): threads that sleep inside known calls get
  # scheduling marks there (replay, perfetto), account --exclude-off-cpu takes them off;
  # where the kernel refuses perf_event_open (a seccomp filter stands in for
  # perf_event_paranoid 3), one message and a trace without marks.
  functrace_xray_program(sched_prog sched_prog.c "flightrec;Threads::Threads")
  add_executable(no_perf_events ${CMAKE_CURRENT_SOURCE_DIR}/progs/no_perf_events.c)
  add_test(NAME functrace_record_sched
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/sched_check.py $<TARGET_FILE:flightrec_cli>
            $<TARGET_FILE:sched_prog> $<TARGET_FILE:no_perf_events>
            ${CMAKE_CURRENT_SOURCE_DIR}/data/perfetto ${CMAKE_CURRENT_BINARY_DIR}/sched_work)
  set_tests_properties(functrace_record_sched PROPERTIES SKIP_RETURN_CODE 77)
else()
  message(STATUS "functrace XRay tests not registered: the C compiler is not clang")
endif()

# gcc -finstrument-functions programs, built by the script with the system gcc. Not
# under ASan: a gcc program without the sanitizer runtime cannot load an ASan library.
find_program(FUNCTRACE_GCC gcc)
if(FUNCTRACE_GCC)
  add_test(NAME functrace_gcc
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_gcc.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_gcc_work ${LLVM_XRAY})
  set_tests_properties(functrace_gcc PROPERTIES LABELS no_asan)
  add_test(NAME functrace_binary_check
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_binary_check.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_binary_check_work)
  set_tests_properties(functrace_binary_check PROPERTIES LABELS no_asan)
  add_test(NAME functrace_cxx_names_gcc
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_cxx_names.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_cxx_names.cpp
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_cxx_gcc_work gcc)
  set_tests_properties(functrace_cxx_names_gcc PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)
  # A streamed trace (stream=1) names gcc-instrumented functions (their names are in its
  # final metadata block) in every command; the XRay build too when clang is here.
  add_test(NAME functrace_stream_names
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_stream_names.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_stream_names_work)
  set_tests_properties(functrace_stream_names PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)
  add_test(NAME functrace_cxx_calls_gcc
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/functrace_cxx_calls.py
            $<TARGET_FILE:flightrec_cli> ${LLVM_XRAY} --gcc
            ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_cxx_calls.cpp
            ${CMAKE_CURRENT_BINARY_DIR}/functrace_cxx_calls_gcc_work)
  set_tests_properties(functrace_cxx_calls_gcc PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)
  # record --filter/--exclude/--max-depth/--threshold-us: the same calls from a gcc and a
  # clang XRay build of one program (issue 24).
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    add_test(NAME functrace_filters
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_filters.sh $<TARGET_FILE:flightrec_cli>
              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/functrace_filters_work
              ${CMAKE_C_COMPILER})
    set_tests_properties(functrace_filters PROPERTIES LABELS no_asan)
    # record --libcalls: library calls through the PLT, gcc and clang builds (issue 24).
    add_test(NAME functrace_libcalls
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_libcalls.sh $<TARGET_FILE:flightrec_cli>
              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/functrace_libcalls_work
              ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER})
    set_tests_properties(functrace_libcalls PROPERTIES LABELS no_asan)
    # --libcalls with libflightrec.a linked in: the runtime's own libc calls go through
    # the program's PLT and must not be recorded (they were, and a fork then hung).
    foreach(kind gcc clang)
      if(kind STREQUAL "gcc")
        set(static_rt_cc gcc)
      else()
        set(static_rt_cc ${CMAKE_C_COMPILER})
      endif()
      add_test(NAME functrace_libcalls_static_runtime_${kind}
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_libcalls_static_runtime.sh
                $<TARGET_FILE:flightrec_cli> ${CMAKE_SOURCE_DIR}
                ${CMAKE_CURRENT_BINARY_DIR}/functrace_libcalls_static_runtime_${kind}_work
                ${static_rt_cc} $<TARGET_FILE:flightrec_static> ${kind})
      set_tests_properties(functrace_libcalls_static_runtime_${kind} PROPERTIES LABELS no_asan)
    endforeach()
    # A fork child's trace begins with the calls open at the fork: its exits match and its
    # calls nest under them, gcc and clang builds, with and without --libcalls.
    # A cross build passes its target's compilers (aarch64: no compiler-rt XRay runtime
    # to link, flightrec record preloads ours).
    set(fork_open_cc ${CMAKE_C_COMPILER})
    set(fork_open_gcc gcc)
    if(CMAKE_CROSSCOMPILING)
      set(fork_open_cc "${CMAKE_C_COMPILER} --target=${CMAKE_C_COMPILER_TARGET} ${CMAKE_EXE_LINKER_FLAGS} -fnoxray-link-deps")
      set(fork_open_gcc ${CMAKE_C_COMPILER_TARGET}-gcc)
    endif()
    add_test(NAME functrace_fork_open
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_fork_open.sh $<TARGET_FILE:flightrec_cli>
              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/functrace_fork_open_work
              ${fork_open_cc} ${fork_open_gcc})
    set_tests_properties(functrace_fork_open PROPERTIES LABELS no_asan)
    # longjmp in a program linked statically with libflightrec.a: libc's longjmp found
    # without dlsym (it aborted), the frames left closed, gcc and clang builds.
    add_test(NAME functrace_static_longjmp
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_static_longjmp.sh $<TARGET_FILE:flightrec_cli>
              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/functrace_static_longjmp_work
              ${CMAKE_C_COMPILER})
    set_tests_properties(functrace_static_longjmp PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)
    # C++ exceptions in a program linked fully statically with libflightrec.a (every throw
    # aborted): the C++ runtime's personality routine linked, the frames left closed, g++
    # and clang++ builds; libflightrec.so needs nothing of the C++ runtime.
    add_test(NAME functrace_static_throw
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/functrace_static_throw.sh $<TARGET_FILE:flightrec_cli>
              ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/functrace_static_throw_work
              ${CMAKE_CXX_COMPILER})
    set_tests_properties(functrace_static_throw PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)
  endif()
else()
  message(STATUS "functrace gcc tests not registered: gcc not found")
endif()

# ymm registers kept across __xray_CustomEvent/__xray_TypedEvent whose handlers end in
# vzeroupper; again with glibc's AVX-512 paths off (its AVX2 memcpy ends in vzeroupper).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  add_executable(functrace_avx_events ${CMAKE_CURRENT_SOURCE_DIR}/progs/functrace_avx_events.c)
  target_link_libraries(functrace_avx_events PRIVATE flightrec_static)
  add_test(NAME functrace_avx_events COMMAND functrace_avx_events)
  add_test(NAME functrace_avx_events_avx2 COMMAND functrace_avx_events)
  set_tests_properties(functrace_avx_events functrace_avx_events_avx2 PROPERTIES SKIP_RETURN_CODE 77)
  set_tests_properties(functrace_avx_events_avx2 PROPERTIES
    ENVIRONMENT "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F")
else()
  foreach(t functrace_avx_events functrace_avx_events_avx2)
    fr_skip_test(${t} "x86-64 only: ymm registers across the x86-64 event entry points (vzeroupper)")
  endforeach()
endif()

# fr_build_id_of_loaded: the executable's own build-id, and no read of unmapped notes.
add_executable(functrace_build_id_test ${CMAKE_CURRENT_SOURCE_DIR}/functrace_build_id_test.c
               ${CMAKE_SOURCE_DIR}/src/runtime/functrace/build_id.c)
target_include_directories(functrace_build_id_test PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime)
target_link_libraries(functrace_build_id_test PRIVATE fr_testlib)
target_link_options(functrace_build_id_test PRIVATE -Wl,--build-id)
add_test(NAME functrace_build_id COMMAND functrace_build_id_test)
