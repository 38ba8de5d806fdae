# close_range and closefrom on Danaus descriptors (libfs/interpose/fd.c),
# compared with a plain directory by test_preload_dir_compare (dir.cmake).
add_executable(test_preload_close_range
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_close_range.c)
add_test(NAME preload_close_range COMMAND ${DANAUS_DIR_COMPARE} local -
  "$<TARGET_FILE:test_preload_close_range> \"$ROOT\"")
set_tests_properties(preload_close_range PROPERTIES LABELS preload TIMEOUT 60)

# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_property(TEST preload_close_range
             APPEND PROPERTY RESOURCE_LOCK danaus-preload-dir)
