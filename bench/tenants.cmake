# tenant-load: one tenant's workload for a fixed time (run-tenants.sh,
# run-scale.sh), plain libc so it runs in containers under the preload.
add_executable(tenant-load ${CMAKE_CURRENT_LIST_DIR}/tenant_load.c)
target_link_libraries(tenant-load PRIVATE m)
