# The read cache over CephFS (issue 12): cached preads without the service,
# and every change, from any writer, seen by the next pread.
if(TARGET danaus_backend_ceph)
  add_executable(readcache_ceph
    ${CMAKE_CURRENT_SOURCE_DIR}/integration/readcache_ceph.c)
  target_include_directories(readcache_ceph PRIVATE ${CEPHFS_INCLUDE_DIR})
  target_compile_definitions(readcache_ceph PRIVATE _FILE_OFFSET_BITS=64)
  target_link_libraries(readcache_ceph PRIVATE danaus danaus_test_harness
    ${CEPHFS_LIBRARY} PkgConfig::CMOCKA Threads::Threads)
  add_test(NAME readcache_ceph COMMAND readcache_ceph
    $<TARGET_FILE:danausd> ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
  set_tests_properties(readcache_ceph PROPERTIES
    LABELS "integration;ceph" FIXTURES_REQUIRED ceph TIMEOUT 240)
endif()
