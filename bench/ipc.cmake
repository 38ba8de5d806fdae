# Round-trip latency of the shared-memory transport (ipc/).
add_executable(ipc_roundtrip ${CMAKE_CURRENT_LIST_DIR}/ipc_roundtrip.c)
target_link_libraries(ipc_roundtrip PRIVATE danaus_ipc)
