# danaus-bench: per-operation latency, sequential bandwidth and context
# switches of Danaus, libcephfs, ceph-fuse and the local file system, in one
# run (bench/run-core.sh drives it); in a build with Ceph.
if(NOT DANAUS_WITH_CEPH)
  return()
endif()
add_executable(danaus-bench
  ${CMAKE_CURRENT_LIST_DIR}/danaus_bench.c
  ${CMAKE_CURRENT_LIST_DIR}/bench_fs_posix.c
  ${CMAKE_CURRENT_LIST_DIR}/bench_fs_cephfs.c
  ${CMAKE_CURRENT_LIST_DIR}/bench_fs_handoff.c
  ${CMAKE_CURRENT_LIST_DIR}/csw.c
  ${CMAKE_CURRENT_LIST_DIR}/workloads.c
  ${CMAKE_CURRENT_LIST_DIR}/report.c)
target_include_directories(danaus-bench PRIVATE ${CEPHFS_INCLUDE_DIR})
target_link_libraries(danaus-bench PRIVATE danaus danaus_ipc ${CEPHFS_LIBRARY} m)
