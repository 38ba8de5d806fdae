# Unit tests of danausd's parts: configuration, its log lines, the
# unions' shared branches, handle
# table, clients made ahead, request validation, the FUSE door's tables, when a thread steps
# aside, the pool's rate on its backend, how the pools hold back for one
# another, and their fair shares of it.
danaus_unit_test(test_config SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c
                 LIBS danaus_service)
danaus_unit_test(test_log SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_log.c
                 LIBS danaus_service)
# (and libcephfs's own lines, where the Ceph backend is built)
if(DANAUS_WITH_CEPH)
  target_compile_definitions(test_log PRIVATE _FILE_OFFSET_BITS=64)
  target_include_directories(test_log PRIVATE ${CEPHFS_INCLUDE_DIR})
  target_link_libraries(test_log PRIVATE ${CEPHFS_LIBRARY})
endif()
danaus_unit_test(test_branches
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_branches.c
                 LIBS danaus_service)
danaus_unit_test(test_handles SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_handles.c
                 LIBS danaus_service)
danaus_unit_test(test_client_spares
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_spares.c
                 LIBS danaus_service)
danaus_unit_test(test_dispatch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dispatch.c
                 LIBS danaus_service)
danaus_unit_test(test_fuse_nodes
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fuse_nodes.c
                 LIBS danaus_service)
danaus_unit_test(test_fuse_handles
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fuse_handles.c
                 LIBS danaus_service)
danaus_unit_test(test_placement
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_placement.c
                 LIBS danaus_service)
danaus_unit_test(test_admission
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_admission.c
                 LIBS danaus_service)
danaus_unit_test(test_pressure
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pressure.c
                 LIBS danaus_service)
danaus_unit_test(test_fairshare
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fairshare.c
                 LIBS danaus_service)

# The room a Ceph client's writes have left; plain C, no libcephfs needed.
danaus_unit_test(test_ceph_space
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ceph_space.c
                         ${PROJECT_SOURCE_DIR}/fsservice/libservice/ceph/space.c)
# The sampled reuse-distance estimator against an exact LRU simulation.
danaus_unit_test(test_reuse SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reuse.c
                 LIBS danaus_service m)
# Which mounts get one, at most HRC_TRACKED.
danaus_unit_test(test_hrc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hrc.c
                 LIBS danaus_service)
# cache_auto: the pool's caches sized by the mounts' knees.
danaus_unit_test(test_cachesize
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cachesize.c
                 LIBS danaus_service)
# The pool's page cache: its coherence rules and each mount's reserve.
danaus_unit_test(test_poolcache
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_poolcache.c
                 LIBS danaus_service)
danaus_unit_test(test_shares SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_shares.c
                 LIBS danaus_service)
danaus_unit_test(test_idmap SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_idmap.c
                 LIBS danaus_service)

# The backend registry, with the in-memory backend registered by the test.
danaus_unit_test(test_registry
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_registry.c
                 LIBS danaus_service danaus_backend_memory)
danaus_unit_test(test_blocking
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_blocking.c
                 LIBS danaus_service)
danaus_unit_test(test_slowcalls
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_slowcalls.c
                 LIBS danaus_service)
danaus_unit_test(test_threadshares
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_threadshares.c
                 LIBS danaus_service)
