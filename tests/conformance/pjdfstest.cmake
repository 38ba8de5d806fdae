# POSIX conformance (issue 17): pjdfstest as root through every door, each
# target checked against its list of expected failures
# (tests/conformance/expected/). Skipped (exit 77) where cargo cannot
# provide pjdfstest.
set(DANAUS_PJDFSTEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/pjdfstest.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME conformance_local COMMAND ${DANAUS_PJDFSTEST} -
  reference local-preload local-fuse)
set_tests_properties(conformance_local PROPERTIES
  LABELS conformance SKIP_RETURN_CODE 77 TIMEOUT 600)
add_test(NAME conformance_ceph COMMAND ${DANAUS_PJDFSTEST}
  ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf
  ceph-preload ceph-fuse-door ceph-fuse)
set_tests_properties(conformance_ceph PROPERTIES
  LABELS "conformance;ceph" FIXTURES_REQUIRED ceph SKIP_RETURN_CODE 77
  TIMEOUT 900)
