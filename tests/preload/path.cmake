# The path, metadata, xattr and cwd interposers (libfs/interpose/: stat.c,
# path.c, attr.c, xattr.c, cwd.c):
# tests/preload/test_preload_path.c runs test_preload_path_suite.c on a
# plain directory and under LD_PRELOAD on a danausd mount and compares.
add_executable(test_preload_path_suite
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_path_suite.c)
target_link_libraries(test_preload_path_suite PRIVATE ${CMAKE_DL_LIBS})
# stat, statfs, ... by their own names (with 64-bit offsets glibc's headers
# would turn them into stat64, statfs64, ...), the 64 twins explicitly.
target_compile_options(test_preload_path_suite PRIVATE -U_FILE_OFFSET_BITS)

add_executable(test_preload_path
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_path.c)
target_link_libraries(test_preload_path PRIVATE danaus_test_harness)
# The preload must be built for the test to run it.
add_dependencies(test_preload_path danaus test_preload_path_suite danausd)

add_test(NAME preload_path_local COMMAND test_preload_path
  $<TARGET_FILE:danausd> $<TARGET_FILE:test_preload_path_suite>
  $<TARGET_FILE:danaus> local)
set_tests_properties(preload_path_local PROPERTIES
  LABELS preload TIMEOUT 120)

danaus_ceph_test(preload_path_ceph LABELS preload PROPERTIES TIMEOUT 300
  COMMAND test_preload_path $<TARGET_FILE:danausd>
    $<TARGET_FILE:test_preload_path_suite> $<TARGET_FILE:danaus> ceph
    ${DANAUS_CEPH_CONF})
