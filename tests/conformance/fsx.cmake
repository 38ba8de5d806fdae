# fsx-style data checks (issue 17): random writes, reads, truncates,
# fallocate and MAP_SHARED maps against a model of the file, through the
# preload and through the FUSE door, one ctest per backend (fsx.sh).
add_executable(fsx ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fsx.c)
set(DANAUS_FSX_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fsx.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> $<TARGET_FILE:fsx>)
add_test(NAME fsx_local COMMAND ${DANAUS_FSX_TEST} local -)
set_tests_properties(fsx_local PROPERTIES
  LABELS "conformance;fuse" TIMEOUT 120)
danaus_ceph_test(fsx_ceph LABELS conformance fuse PROPERTIES TIMEOUT 180
  COMMAND ${DANAUS_FSX_TEST} ceph ${DANAUS_CEPH_CONF})
