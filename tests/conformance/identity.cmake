# A preloaded process that changes its identity after attaching (issue
# 17): seteuid to nobody, then its calls act as nobody (identity.sh). One
# ctest per backend.
set(DANAUS_IDENTITY_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/identity.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME identity_local COMMAND ${DANAUS_IDENTITY_TEST} local -)
set_tests_properties(identity_local PROPERTIES
  LABELS "conformance;preload" TIMEOUT 60)
add_test(NAME identity_ceph COMMAND ${DANAUS_IDENTITY_TEST} ceph
  ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(identity_ceph PROPERTIES
  LABELS "conformance;preload;ceph" FIXTURES_REQUIRED ceph TIMEOUT 120)
