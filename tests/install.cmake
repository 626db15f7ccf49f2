# The installed package (headers, libraries, CMake config, pkg-config) works for a
# program outside the tree.
add_test(NAME install_package
  COMMAND ${CMAKE_SOURCE_DIR}/tests/install_check.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${LLVM_XRAY})
set_tests_properties(install_package PROPERTIES LABELS no_asan ENVIRONMENT "CC=${CMAKE_C_COMPILER}")

# The installed `flightrec record` on programs never linked with libflightrec (XRay with
# -fnoxray-link-deps, gcc -finstrument-functions, XRay with compiler-rt's runtime: all
# with libflightrec.so preloaded), a static one (refused with a message), and a tree of
# processes (one trace per process). The test programs are compiled by the script with
# clang and gcc found here (Skipped when one is missing). no_asan: an ASan-built
# libflightrec.so cannot be preloaded into a program built without ASan (the ASan
# runtime must come first in the link order).
find_program(FR_CLANG NAMES clang clang-14)
find_program(FR_GCC NAMES gcc)
add_test(NAME install_record_norelink
  COMMAND ${CMAKE_SOURCE_DIR}/tests/install_record_norelink.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
          ${FR_CLANG} ${FR_GCC} ${LLVM_XRAY})
set_tests_properties(install_record_norelink PROPERTIES LABELS no_asan SKIP_RETURN_CODE 77)

# README.md's commands, extracted from README.md, run as written on a fresh copy of the
# tree (its own configure, build and install into a scratch HOME), no environment but
# HOME and PATH. It builds the library, the command and the demo once (about 15 s of
# CPU, a minute on a loaded 2-core machine): hence the timeout. no_asan: it makes its own
# build without sanitizers, so the ASan run would repeat it for nothing.
add_test(NAME readme_commands COMMAND ${CMAKE_SOURCE_DIR}/tests/install_readme.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(readme_commands PROPERTIES LABELS no_asan TIMEOUT 600)
