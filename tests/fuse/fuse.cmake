# The FUSE door (issue 5): programs, libraries, a Python extension and a
# static busybox run from a Danaus mount through FUSE; mmap through the
# preload; stop, crash and restart with the mount in place. One ctest per
# backend, label "fuse" (fuse-door.sh).
add_executable(test_fuse_mmap ${CMAKE_CURRENT_SOURCE_DIR}/fuse/test_fuse_mmap.c)
add_executable(fuse_hello ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse_hello.c)
target_link_libraries(fuse_hello PRIVATE ${CMAKE_DL_LIBS})
add_library(fuse_greet MODULE ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse_greet.c)

set(DANAUS_FUSE_TEST ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse-door.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> $<TARGET_FILE:test_fuse_mmap>
  $<TARGET_FILE:fuse_hello> $<TARGET_FILE:fuse_greet>
  ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse_pyext.c)

add_test(NAME fuse_door_local COMMAND ${DANAUS_FUSE_TEST} local -)
set_tests_properties(fuse_door_local PROPERTIES LABELS fuse TIMEOUT 180)
danaus_ceph_test(fuse_door_ceph LABELS fuse PROPERTIES TIMEOUT 300
  COMMAND ${DANAUS_FUSE_TEST} ceph ${DANAUS_CEPH_CONF})

# The kernel's caches of a FUSE mount stay coherent with the preload door
# and across a file's hard links.
add_executable(fuse_links ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse_links.c)
add_test(NAME fuse_cache_local COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse-cache.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus> $<TARGET_FILE:fuse_links>)
set_tests_properties(fuse_cache_local PROPERTIES LABELS fuse TIMEOUT 120)

# FUSE mounts outlive their service (fsservice/doors/fuse_keeper.h): plain
# programs on the mount while danausd is killed and started again.
set(DANAUS_KEEPER_TEST ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse-keeper.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danausd_stuck>
  ${CMAKE_CURRENT_SOURCE_DIR}/fuse/keeper_load.py)
add_test(NAME fuse_keeper_local COMMAND ${DANAUS_KEEPER_TEST} local -)
set_tests_properties(fuse_keeper_local PROPERTIES LABELS fuse TIMEOUT 180)
danaus_ceph_test(fuse_keeper_ceph LABELS fuse PROPERTIES TIMEOUT 300
  COMMAND ${DANAUS_KEEPER_TEST} ceph ${DANAUS_CEPH_CONF})

# A pool's id map at both doors (fsservice/core/idmap.h).
add_test(NAME fuse_idmap_local COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse-idmap.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus>)
set_tests_properties(fuse_idmap_local PROPERTIES LABELS fuse TIMEOUT 120)

# The same two with the FUSE door's requests over io_uring, a queue per cpu
# (fsservice/doors/fuse_uring.h); skipped (77) on a kernel without it.
add_test(NAME fuse_door_uring_local COMMAND ${DANAUS_FUSE_TEST} local -)
add_test(NAME fuse_cache_uring_local COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/fuse/fuse-cache.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus> $<TARGET_FILE:fuse_links>)
set_tests_properties(fuse_door_uring_local fuse_cache_uring_local PROPERTIES
  LABELS fuse TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "FUSE_DOOR_CONF=fuse_io_uring on")
