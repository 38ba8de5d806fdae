# The CephFS backend driven directly through struct ls_ops against the
# fixture's cluster (ceph_fixture.cmake), in a build with Ceph.
if(NOT DANAUS_WITH_CEPH)
  return()
endif()
add_executable(ceph_backend_test
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/ceph_backend_test.c)
target_link_libraries(ceph_backend_test PRIVATE danaus_backend_ceph
  PkgConfig::CMOCKA)
danaus_ceph_test(ceph_backend LABELS integration PROPERTIES TIMEOUT 180
  COMMAND ceph_backend_test ${DANAUS_CEPH_CONF})
