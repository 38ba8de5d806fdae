# Pools holding back for one another (issue 15): a pool whose backend calls
# miss its target slows another pool's name-space changes, until it leaves.
add_executable(pressure ${CMAKE_CURRENT_SOURCE_DIR}/integration/pressure.c)
target_compile_definitions(pressure PRIVATE _FILE_OFFSET_BITS=64)
target_include_directories(pressure PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(pressure PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME pressure COMMAND pressure $<TARGET_FILE:danausd>)
set_tests_properties(pressure PROPERTIES LABELS integration TIMEOUT 120)
