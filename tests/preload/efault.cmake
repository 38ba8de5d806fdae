# Pointers the kernel cannot reach (tests/preload/test_preload_efault.c):
# EFAULT and no crash under the preload, compared with a plain directory by
# test_preload_dir_compare (dir.cmake).
add_executable(test_preload_efault
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_efault.c)
add_test(NAME preload_efault COMMAND ${DANAUS_DIR_COMPARE} local -
  "$<TARGET_FILE:test_preload_efault> \"$ROOT\"")
set_tests_properties(preload_efault PROPERTIES LABELS preload TIMEOUT 60)

# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_property(TEST preload_efault
             APPEND PROPERTY RESOURCE_LOCK danaus-preload-dir)
