# The read cache (issue 12): cached preads without the service, and every
# change, from any writer, seen by the next pread; on both backends.
add_executable(readcache ${CMAKE_CURRENT_SOURCE_DIR}/integration/readcache.c)
target_compile_definitions(readcache PRIVATE _FILE_OFFSET_BITS=64)
target_link_libraries(readcache PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
if(DANAUS_WITH_CEPH)
  target_include_directories(readcache PRIVATE ${CEPHFS_INCLUDE_DIR})
  target_link_libraries(readcache PRIVATE ${CEPHFS_LIBRARY})
endif()
add_test(NAME readcache_local COMMAND readcache $<TARGET_FILE:danausd> local)
set_tests_properties(readcache_local PROPERTIES
  LABELS integration TIMEOUT 240)
danaus_ceph_test(readcache_ceph LABELS integration PROPERTIES TIMEOUT 240
  COMMAND readcache $<TARGET_FILE:danausd> ceph ${DANAUS_CEPH_CONF})
