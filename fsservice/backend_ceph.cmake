# CephFS backend (libcephfs low-level API): target danaus_backend_ceph.
add_library(danaus_backend_ceph STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/backend_ceph.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ceph_attr.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ceph_client.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ceph_file.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ceph_walk.c)
target_include_directories(danaus_backend_ceph PUBLIC ${CEPHFS_INCLUDE_DIR})
target_link_libraries(danaus_backend_ceph PUBLIC ${CEPHFS_LIBRARY} Threads::Threads)
