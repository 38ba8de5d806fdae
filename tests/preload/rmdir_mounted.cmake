# A preloaded rmdir of a directory something is mounted on fails with
# EBUSY, from a mount table kept between calls
# (tests/preload/rmdir_mounted.sh).
add_test(NAME preload_rmdir_mounted
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/preload/rmdir_mounted.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
set_tests_properties(preload_rmdir_mounted PROPERTIES LABELS preload TIMEOUT 120)
