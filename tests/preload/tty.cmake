# isatty and tcgetattr on Danaus descriptors (libfs/interpose/fd.c),
# compared with a plain directory by test_preload_dir_compare.
add_executable(test_preload_tty ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_tty.c)
add_test(NAME preload_tty COMMAND ${DANAUS_DIR_COMPARE} local -
  "$<TARGET_FILE:test_preload_tty> \"$ROOT\"")
set_tests_properties(preload_tty PROPERTIES LABELS preload TIMEOUT 60)

# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_property(TEST preload_tty
             APPEND PROPERTY RESOURCE_LOCK danaus-preload-dir)
