# FIFOs, devices and sockets end to end (issue 17): mknod and mkfifo
# through the preload and the FUSE door, and the kernel's data path when
# they are opened. One ctest per backend (special-files.sh).
set(DANAUS_SPECIAL_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/special-files.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME special_files_local COMMAND ${DANAUS_SPECIAL_TEST} local -)
set_tests_properties(special_files_local PROPERTIES
  LABELS "conformance;fuse" TIMEOUT 120)
add_test(NAME special_files_ceph COMMAND ${DANAUS_SPECIAL_TEST} ceph
  ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(special_files_ceph PROPERTIES
  LABELS "conformance;fuse;ceph" FIXTURES_REQUIRED ceph TIMEOUT 180)
