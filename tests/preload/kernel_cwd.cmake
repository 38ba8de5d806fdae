# The kernel's current directory follows a preloaded chdir
# (tests/preload/kernel_cwd.sh): relative names in calls the preload does
# not wrap, with and without a FUSE door at the same path, on both
# backends.
add_test(NAME preload_kernel_cwd
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/preload/kernel_cwd.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
set_tests_properties(preload_kernel_cwd PROPERTIES LABELS preload TIMEOUT 120)
danaus_ceph_test(preload_kernel_cwd_ceph LABELS preload PROPERTIES TIMEOUT 180
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/preload/kernel_cwd.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> ${DANAUS_CEPH_CONF})
