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
danaus_ceph_test(conformance_ceph LABELS conformance
  PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
  COMMAND ${DANAUS_PJDFSTEST} ${DANAUS_CEPH_CONF} ceph-preload ceph-fuse-door
    ceph-fuse)
