# Credentials through both doors (issue 17, tests/creds/creds.sh): users of
# different uids and groups hammering one service under the preload and
# through the FUSE door at once, each checking its own permissions, and the
# kernel's protections (setuid clearing, trusted.* xattrs, protected
# hardlinks) compared with a plain directory. One ctest per backend, label
# "creds"; needs root.
add_executable(creds_hammer ${CMAKE_CURRENT_SOURCE_DIR}/creds/creds_hammer.c)
target_link_libraries(creds_hammer PRIVATE Threads::Threads)
set(DANAUS_CREDS_TEST ${CMAKE_CURRENT_SOURCE_DIR}/creds/creds.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> $<TARGET_FILE:creds_hammer>)

add_test(NAME creds_local COMMAND ${DANAUS_CREDS_TEST} local -)
set_tests_properties(creds_local PROPERTIES LABELS creds TIMEOUT 180)
danaus_ceph_test(creds_ceph LABELS creds PROPERTIES TIMEOUT 300
  COMMAND ${DANAUS_CREDS_TEST} ceph ${DANAUS_CEPH_CONF})
