# FIFOs, devices and sockets end to end (issue 17): mknod and mkfifo
# through the preload and the FUSE door, and the kernel's data path when
# they are opened. One ctest per backend (special-files.sh).
set(DANAUS_SPECIAL_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/special-files.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME special_files_local COMMAND ${DANAUS_SPECIAL_TEST} local -)
set_tests_properties(special_files_local PROPERTIES
  LABELS "conformance;fuse" TIMEOUT 120)
danaus_ceph_test(special_files_ceph LABELS conformance fuse
  PROPERTIES TIMEOUT 180
  COMMAND ${DANAUS_SPECIAL_TEST} ceph ${DANAUS_CEPH_CONF})
