# Directory streams and tree walks under LD_PRELOAD (libfs/interpose/dir.c,
# libfs/interpose/walk.c): test_preload_dir_suite and coreutils/findutils on a
# plain directory and on a Danaus mount, outputs compared by
# test_preload_dir_compare, which also checks that a preloaded program
# without DANAUS_SERVICE behaves as without the preload.
add_executable(test_preload_dir_suite
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_dir_suite.c)
add_executable(test_preload_dir_suite_nolfs
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/test_preload_dir_suite.c)
target_compile_options(test_preload_dir_suite_nolfs PRIVATE
  -U_FILE_OFFSET_BITS)
set(DANAUS_DIR_SUITE "$<TARGET_FILE:test_preload_dir_suite> \"$ROOT\"")
# The same tree for ls, find and du: files, a deep directory, symbolic
# links, then some entries removed, and two with ACLs (ls -l marks them,
# asking each name's extended attributes: the listings say which have
# none).
set(DANAUS_DIR_TREE
  "cd \"$ROOT\" && mkdir -p t/a/b/c t/d && for i in 1 2 3 4 5 6 7 8 9; do echo $i > t/a/f$i; echo $i$i > t/d/g$i; done && ln -s f1 t/a/l1 && ln -s nowhere t/dangling && head -c 100000 /dev/zero > t/a/b/c/big && rm t/a/f3 t/d/g5 && setfacl -m u:nobody:r t/a/f2 t/d/g7 &&")

add_test(NAME preload_dir_suite COMMAND ${DANAUS_DIR_COMPARE}
  local - "${DANAUS_DIR_SUITE}")
add_test(NAME preload_dir_suite_nolfs COMMAND ${DANAUS_DIR_COMPARE}
  local - "$<TARGET_FILE:test_preload_dir_suite_nolfs> \"$ROOT\"")
add_test(NAME preload_dir_tools COMMAND ${DANAUS_DIR_COMPARE} local -
  "${DANAUS_DIR_TREE} ls -la --time-style=+ t t/a | sed 's/^\\([^ ]*\\) *[0-9]* /\\1 /' && ls -lR --time-style=+ t | sed 's/^\\([^ ]*\\) *[0-9]* /\\1 /' && ls -R t && ls -1U t/a | sort && find t -printf '%p %y %s %l\\n' && find t -name 'f*' -type f && find t -depth | sort && du -a --apparent-size t && du -s -b t")
set_tests_properties(preload_dir_suite preload_dir_suite_nolfs
  preload_dir_tools PROPERTIES
  LABELS preload TIMEOUT 120)

# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_property(TEST preload_dir_suite preload_dir_suite_nolfs preload_dir_tools
             APPEND PROPERTY RESOURCE_LOCK danaus-preload-dir)
danaus_ceph_test(preload_dir_suite_ceph LABELS preload
  PROPERTIES TIMEOUT 300 RESOURCE_LOCK danaus-preload-dir
  COMMAND ${DANAUS_DIR_COMPARE} ceph ${DANAUS_CEPH_CONF} "${DANAUS_DIR_SUITE}")
