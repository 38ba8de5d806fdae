# Pools holding back for one another (issue 15): a pool whose backend calls
# miss its target slows another pool's name-space changes, until it leaves.
danaus_service_test(pressure)
target_include_directories(pressure PRIVATE ${PROJECT_SOURCE_DIR})
