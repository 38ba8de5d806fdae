# Relative paths the kernel accepts whose join with the current directory
# is longer than PATH_MAX (issue 38 item 2, pjdfstest's NN/03 files),
# through the preload and the FUSE door against the kernel's client of
# the same backend, and links past PATH_MAX that try to lead out of the
# instance: long-paths.sh with longpath_probe.
add_executable(longpath_probe
  ${CMAKE_CURRENT_SOURCE_DIR}/conformance/longpath_probe.c)
set(DANAUS_LONG_PATHS_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/long-paths.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
  $<TARGET_FILE:longpath_probe>)
add_test(NAME long_paths_local COMMAND ${DANAUS_LONG_PATHS_TEST} local -)
set_tests_properties(long_paths_local PROPERTIES
  LABELS "conformance;preload;fuse;union" TIMEOUT 120)
danaus_ceph_test(long_paths_ceph LABELS conformance preload fuse
  PROPERTIES TIMEOUT 180
  COMMAND ${DANAUS_LONG_PATHS_TEST} ceph ${DANAUS_CEPH_CONF})
