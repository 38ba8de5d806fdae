# Hit-ratio curves per container (issue 41): `danaus stats --hrc` on two
# containers' reads, through the preload and the FUSE door.
add_executable(hrc_reader ${CMAKE_CURRENT_SOURCE_DIR}/integration/hrc_reader.c)
target_compile_definitions(hrc_reader PRIVATE _FILE_OFFSET_BITS=64)
add_test(NAME hrc_local COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/hrc.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus_engine> $<TARGET_FILE:danaus> $<TARGET_FILE:hrc_reader>)
# It preloads libdanaus.so into a plain program: not under ASan.
set_tests_properties(hrc_local PROPERTIES LABELS "integration;preload"
  TIMEOUT 300)
# On Ceph, with the pool's cache sized by the two knees (cache_auto).
danaus_ceph_test(hrc_ceph_auto LABELS integration preload
  PROPERTIES TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/hrc.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus_engine> $<TARGET_FILE:danaus> $<TARGET_FILE:hrc_reader>
  ${DANAUS_CEPH_CONF})
# The pool's page cache on Ceph: bytes, another client's changes, and a
# container kept at its knee next to a stream.
danaus_ceph_test(poolcache_ceph LABELS integration preload
  PROPERTIES TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/poolcache.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus_engine> $<TARGET_FILE:danaus>
  $<TARGET_FILE:hrc_reader> ${DANAUS_CEPH_CONF})
