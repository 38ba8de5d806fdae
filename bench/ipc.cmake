# Round-trip latency of the shared-memory transport (ipc/).
add_executable(ipc_roundtrip ${CMAKE_CURRENT_LIST_DIR}/ipc_roundtrip.c)
target_link_libraries(ipc_roundtrip PRIVATE danaus_ipc)

# The cost of handing the cpu between two processes, with no work: the
# floor under a client waiting for a service on its own cpu.
add_executable(switch-floor ${CMAKE_CURRENT_LIST_DIR}/switch_floor.c)
target_link_libraries(switch-floor PRIVATE danaus_ipc)
