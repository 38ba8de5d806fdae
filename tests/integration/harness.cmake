# Integration-test harness (tests/integration/harness.c): temporary sites
# and a real danausd per test, shared by the fileops and service tests.
add_library(danaus_test_harness STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/harness.c)
