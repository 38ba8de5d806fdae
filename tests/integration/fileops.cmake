# The core data path against the kernel (tests/integration/fileops.c): one
# suite through libc on a plain directory and through danaus_* on a mount
# of a danausd the test starts, transcripts compared.
add_executable(fileops
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/fileops.c
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/fileops_suite.c)
target_link_libraries(fileops PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA)

add_test(NAME fileops_local COMMAND fileops $<TARGET_FILE:danausd> local)
set_tests_properties(fileops_local PROPERTIES
  LABELS integration TIMEOUT 180)

# The Ceph mode needs the Ceph backend and the per-run cluster of the 'ceph'
# fixture (tests/integration/ceph_fixture.cmake).
danaus_ceph_test(fileops_ceph LABELS integration PROPERTIES TIMEOUT 300
  COMMAND fileops $<TARGET_FILE:danausd> ceph ${DANAUS_CEPH_CONF})
