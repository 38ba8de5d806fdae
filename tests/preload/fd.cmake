# The descriptor-and-data interposers (libfs/interpose/fd.c, libfs/interpose/io.c,
# libfs/interpose/copy.c) under LD_PRELOAD: tests/preload/test_preload_fd.c runs
# the suite program on a plain directory and on a danausd mount and compares.
# The suite is built twice: as is, and fortified, so that it calls
# __open64_2, __read_chk and __pread64_chk.
add_executable(test_preload_fd_suite
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_fd_suite.c)
add_executable(test_preload_fd_suite_fortified
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_fd_suite.c)
target_compile_options(test_preload_fd_suite_fortified PRIVATE
  -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2)

add_executable(test_preload_fd
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_fd.c)
target_link_libraries(test_preload_fd PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA)
add_dependencies(test_preload_fd test_preload_fd_suite
  test_preload_fd_suite_fortified danausd)

set(DANAUS_PRELOAD_FD_ARGS $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
  $<TARGET_FILE:test_preload_fd_suite>
  $<TARGET_FILE:test_preload_fd_suite_fortified>)

add_test(NAME preload_fd_local
  COMMAND test_preload_fd ${DANAUS_PRELOAD_FD_ARGS} local)
set_tests_properties(preload_fd_local PROPERTIES LABELS preload TIMEOUT 180)

# The fortified build really calls the fortified entries.
add_test(NAME preload_fd_fortified_calls
  COMMAND sh -c "nm -D --undefined-only \"$0\" > \"$0.syms\" && grep -q ' __open64_2' \"$0.syms\" && grep -q ' __read_chk' \"$0.syms\" && grep -q ' __pread64_chk' \"$0.syms\""
    $<TARGET_FILE:test_preload_fd_suite_fortified>)
set_tests_properties(preload_fd_fortified_calls PROPERTIES LABELS preload)

danaus_ceph_test(preload_fd_ceph LABELS preload PROPERTIES TIMEOUT 300
  COMMAND test_preload_fd ${DANAUS_PRELOAD_FD_ARGS} ceph ${DANAUS_CEPH_CONF})
