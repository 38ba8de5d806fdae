# Record locks between processes on a Danaus mount (tests/integration/
# locks.c): fcntl, OFD and flock locks through the danaus_* API, release on
# close and exit, and python3's fcntl.flock under the preload.
add_executable(test_locks_integration
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/locks.c)
target_link_libraries(test_locks_integration PRIVATE danaus
  danaus_test_harness PkgConfig::CMOCKA)
add_test(NAME locks_local COMMAND test_locks_integration
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
set_tests_properties(locks_local PROPERTIES LABELS "integration;preload" TIMEOUT 120)
