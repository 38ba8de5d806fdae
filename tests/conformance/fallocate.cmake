# fallocate modes through the preload and the FUSE door against the
# kernel's client of the same backend (ext4; ceph-fuse), and in a local
# union's partial copy-up (issue 38 item 3): fallocate.sh with
# fallocate_probe.
add_executable(fallocate_probe
  ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fallocate_probe.c)
set(DANAUS_FALLOCATE_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fallocate.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
  $<TARGET_FILE:fallocate_probe>)
add_test(NAME fallocate_local COMMAND ${DANAUS_FALLOCATE_TEST} local -)
set_tests_properties(fallocate_local PROPERTIES
  LABELS "conformance;fuse;union" TIMEOUT 120)
danaus_ceph_test(fallocate_ceph LABELS conformance fuse PROPERTIES TIMEOUT 180
  COMMAND ${DANAUS_FALLOCATE_TEST} ceph ${DANAUS_CEPH_CONF})
