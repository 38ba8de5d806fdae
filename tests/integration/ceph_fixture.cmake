# ctest fixture "ceph": one loopback Ceph cluster (deploy/ceph-cluster.sh) per
# ctest run, in ${CMAKE_BINARY_DIR}/ceph-cluster, for every test that sets
# FIXTURES_REQUIRED ceph; its conf is ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf.
# The cluster uses Ceph's default ports, so a cluster from another directory
# must be stopped first (ceph_start says so and fails). A build without
# Ceph (DANAUS_CEPH) has neither the fixture nor the tests that need it.
if(NOT DANAUS_WITH_CEPH)
  return()
endif()
set(DANAUS_CEPH_SCRIPT ${CMAKE_SOURCE_DIR}/deploy/ceph-cluster.sh)
set(DANAUS_CEPH_DIR ${CMAKE_BINARY_DIR}/ceph-cluster)

add_test(NAME ceph_start COMMAND ${DANAUS_CEPH_SCRIPT} start ${DANAUS_CEPH_DIR})
set_tests_properties(ceph_start PROPERTIES
  FIXTURES_SETUP ceph LABELS ceph TIMEOUT 150)

add_test(NAME ceph_stop COMMAND ${DANAUS_CEPH_SCRIPT} stop ${DANAUS_CEPH_DIR})
set_tests_properties(ceph_stop PROPERTIES
  FIXTURES_CLEANUP ceph LABELS ceph TIMEOUT 60)
