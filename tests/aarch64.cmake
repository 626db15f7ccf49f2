# The aarch64 port's acceptance (issue 27), in a cross build for aarch64 only (scripts/
# test-aarch64.sh): a program with sleds runs under the emulator, and the native build's
# flightrec (FLIGHTREC_HOST_CLI) and llvm-xray read its traces; a crash dump's last call.
if(CMAKE_CROSSCOMPILING AND FLIGHTREC_ARCH STREQUAL "aarch64" AND CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(FLIGHTREC_HOST_CLI "" CACHE FILEPATH
      "the native build's flightrec, which reads the cross build's traces (scripts/test-aarch64.sh sets it)")
  # static, shared: linked with libflightrec; plain: sleds only (record preloads it)
  foreach(kind static shared plain)
    add_executable(aarch64_calls_${kind} ${CMAKE_CURRENT_SOURCE_DIR}/progs/aarch64_calls.c)
    target_compile_options(aarch64_calls_${kind} PRIVATE -O2 -fxray-instrument)
    target_link_options(aarch64_calls_${kind} PRIVATE -fxray-instrument -fnoxray-link-deps)
  endforeach()
  target_link_libraries(aarch64_calls_static PRIVATE flightrec_static)
  target_link_libraries(aarch64_calls_shared PRIVATE flightrec)
  string(JOIN " " fr_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  # A script: _add_test, the add_test that tests/cross/cross_tests.cmake leaves in place.
  _add_test(NAME aarch64_trace
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/aarch64_trace.sh "${fr_emulator}" "${FLIGHTREC_HOST_CLI}"
            ${LLVM_XRAY} $<TARGET_FILE:aarch64_calls_static> $<TARGET_FILE:aarch64_calls_shared>
            ${CMAKE_CURRENT_BINARY_DIR}/aarch64_trace.d)
  set_tests_properties(aarch64_trace PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # `flightrec record -- PROG` with the aarch64 command, PROG without libflightrec (the
  # command preloads libflightrec.so.0): its child execve()s an aarch64 program, which
  # needs the namespace of scripts/aarch64-binfmt.sh (or a binfmt_misc entry on the host).
  _add_test(NAME aarch64_record
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/aarch64_record.sh "${fr_emulator}" "${FLIGHTREC_HOST_CLI}"
            $<TARGET_FILE:flightrec_cli> $<TARGET_FILE:aarch64_calls_plain>
            ${CMAKE_CURRENT_BINARY_DIR}/aarch64_record.d)
  set_tests_properties(aarch64_record PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # `record --libcalls` with the aarch64 command and stubs (functrace_libcalls.sh, whose
  # host run is functrace_libcalls): its programs built with the cross gcc/g++ and clang
  # --target, lazy and -z now, run under the emulator through execve (the namespace of
  # scripts/aarch64-binfmt.sh; elsewhere Skipped).
  _add_test(NAME aarch64_libcalls
    COMMAND env GCC=${FR_CROSS_TRIPLE}-gcc GXX=${FR_CROSS_TRIPLE}-g++
            "CLANG_FLAGS=--target=${FR_CROSS_TRIPLE} -fuse-ld=/usr/bin/${FR_CROSS_TRIPLE}-ld"
            XRAY_LINK=-fnoxray-link-deps
            bash ${CMAKE_CURRENT_SOURCE_DIR}/functrace_libcalls.sh $<TARGET_FILE:flightrec_cli>
            ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/aarch64_libcalls_work
            ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER})
  set_tests_properties(aarch64_libcalls PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  # --libcalls in a program linked with the aarch64 libflightrec.a (the host run is
  # functrace_libcalls_static_runtime_gcc): none of the runtime's own calls recorded.
  _add_test(NAME aarch64_libcalls_static_runtime
    COMMAND env NM=${FR_CROSS_TRIPLE}-nm
            bash ${CMAKE_CURRENT_SOURCE_DIR}/functrace_libcalls_static_runtime.sh
            $<TARGET_FILE:flightrec_cli> ${CMAKE_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/aarch64_libcalls_static_runtime_work
            ${FR_CROSS_TRIPLE}-gcc $<TARGET_FILE:flightrec_static> gcc)
  set_tests_properties(aarch64_libcalls_static_runtime PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
