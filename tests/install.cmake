# The installed package (headers, libraries, CMake config, pkg-config) works for a
# program outside the tree.
add_test(NAME install_package
  COMMAND ${CMAKE_SOURCE_DIR}/tests/install_check.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${LLVM_XRAY})
set_tests_properties(install_package PROPERTIES LABELS no_asan ENVIRONMENT "CC=${CMAKE_C_COMPILER}")
