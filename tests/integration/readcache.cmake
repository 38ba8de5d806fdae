# The read cache (issue 12): cached preads without the service, and every
# change, from any writer, seen by the next pread; on both backends.
add_executable(readcache ${CMAKE_CURRENT_SOURCE_DIR}/integration/readcache.c)
target_include_directories(readcache PRIVATE ${CEPHFS_INCLUDE_DIR})
target_compile_definitions(readcache PRIVATE _FILE_OFFSET_BITS=64)
target_link_libraries(readcache PRIVATE danaus danaus_test_harness
  ${CEPHFS_LIBRARY} PkgConfig::CMOCKA Threads::Threads)
add_test(NAME readcache_local COMMAND readcache $<TARGET_FILE:danausd> local)
set_tests_properties(readcache_local PROPERTIES
  LABELS integration TIMEOUT 240)
add_test(NAME readcache_ceph COMMAND readcache $<TARGET_FILE:danausd>
  ceph ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(readcache_ceph PROPERTIES
  LABELS "integration;ceph" FIXTURES_REQUIRED ceph TIMEOUT 240)
