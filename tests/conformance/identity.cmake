# A preloaded process that changes its identity after attaching (issue
# 17): seteuid to nobody, then its calls act as nobody (identity.sh). One
# ctest per backend.
set(DANAUS_IDENTITY_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/identity.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME identity_local COMMAND ${DANAUS_IDENTITY_TEST} local -)
set_tests_properties(identity_local PROPERTIES
  LABELS "conformance;preload" TIMEOUT 60)
danaus_ceph_test(identity_ceph LABELS conformance preload
  PROPERTIES TIMEOUT 120
  COMMAND ${DANAUS_IDENTITY_TEST} ceph ${DANAUS_CEPH_CONF})
