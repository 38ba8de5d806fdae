# Unit tests of the shared-memory transport (ipc/).
danaus_unit_test(test_ipc_ring SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ipc_ring.c LIBS danaus_ipc)
danaus_unit_test(test_ipc_await SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ipc_await.c LIBS danaus_ipc)
danaus_unit_test(test_ipc_topology SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ipc_topology.c LIBS danaus_ipc)
danaus_unit_test(test_ipc_cache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ipc_cache.c LIBS danaus_ipc)
danaus_unit_test(test_ipc_watch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ipc_watch.c LIBS danaus_ipc)
