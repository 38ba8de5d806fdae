# The core data path against the kernel (tests/integration/fileops.c): one
# suite through libc on a plain directory and through danaus_* on a mount
# of a danausd the test starts, transcripts compared.
add_executable(fileops
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/fileops.c
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/fileops_suite.c)
target_link_libraries(fileops PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA)

add_test(NAME fileops_local COMMAND fileops $<TARGET_FILE:danausd> local)
set_tests_properties(fileops_local PROPERTIES
  LABELS integration TIMEOUT 180)

# The Ceph mode needs the Ceph backend and the per-run cluster of the 'ceph'
# fixture (tests/integration/ceph_fixture.cmake).
add_test(NAME fileops_ceph COMMAND fileops $<TARGET_FILE:danausd> ceph
  ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(fileops_ceph PROPERTIES
  LABELS "integration;ceph" FIXTURES_REQUIRED ceph TIMEOUT 300)
