# FILE streams on Danaus files under LD_PRELOAD (libfs/interpose/stdio.c):
# test_preload_stdio_suite on a plain directory and on a Danaus mount,
# outputs compared by test_preload_dir_compare (tests/preload/dir.cmake).
# Built with and without _FILE_OFFSET_BITS=64 (fopen64 / fopen).
add_executable(test_preload_stdio_suite
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_stdio_suite.c)
add_executable(test_preload_stdio_suite_nolfs
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_stdio_suite.c)
target_compile_options(test_preload_stdio_suite_nolfs PRIVATE
  -U_FILE_OFFSET_BITS)

set(DANAUS_STDIO_COMPARE $<TARGET_FILE:test_preload_dir_compare>
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME preload_stdio_suite COMMAND ${DANAUS_STDIO_COMPARE} local -
  "$<TARGET_FILE:test_preload_stdio_suite> \"$ROOT\"")
add_test(NAME preload_stdio_suite_nolfs COMMAND ${DANAUS_STDIO_COMPARE}
  local - "$<TARGET_FILE:test_preload_stdio_suite_nolfs> \"$ROOT\"")
set_tests_properties(preload_stdio_suite preload_stdio_suite_nolfs
  PROPERTIES LABELS preload TIMEOUT 120)

danaus_ceph_test(preload_stdio_suite_ceph LABELS preload PROPERTIES TIMEOUT 300
  COMMAND ${DANAUS_STDIO_COMPARE} ceph ${DANAUS_CEPH_CONF}
    "$<TARGET_FILE:test_preload_stdio_suite> \"$ROOT\"")
