# Conformance suite over struct ls_ops (tests/integration/libservice_suite.c),
# run against each backend.
add_executable(libservice_suite
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/libservice_suite.c)
target_link_libraries(libservice_suite PRIVATE danaus_backend_local
  PkgConfig::CMOCKA)

add_test(NAME libservice_suite_local
  COMMAND libservice_suite local ${CMAKE_CURRENT_BINARY_DIR}/libservice-local-root)
set_tests_properties(libservice_suite_local PROPERTIES
  LABELS integration TIMEOUT 120)
