# deleg-recall: the experiment behind docs/cache.md's "Write-back on Ceph":
# whether a libcephfs write delegation's holder can write between its
# recall and its return (bench/run-deleg-recall.sh runs it); with Ceph.
if(NOT DANAUS_WITH_CEPH)
  return()
endif()
add_executable(deleg-recall ${CMAKE_CURRENT_LIST_DIR}/deleg_recall.c)
target_compile_definitions(deleg-recall PRIVATE _FILE_OFFSET_BITS=64)
target_include_directories(deleg-recall PRIVATE ${CEPHFS_INCLUDE_DIR})
target_link_libraries(deleg-recall PRIVATE ${CEPHFS_LIBRARY} Threads::Threads)
