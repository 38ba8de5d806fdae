# The CephFS backend driven directly through struct ls_ops against the
# fixture's cluster (ceph_fixture.cmake).
add_executable(ceph_backend_test
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/ceph_backend_test.c)
target_link_libraries(ceph_backend_test PRIVATE danaus_backend_ceph
  PkgConfig::CMOCKA)
add_test(NAME ceph_backend
  COMMAND ceph_backend_test ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(ceph_backend PROPERTIES
  FIXTURES_REQUIRED ceph LABELS "integration;ceph" TIMEOUT 180)
