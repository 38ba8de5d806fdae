# Unit tests of the union libservice (fsservice/libservice/union/) over the local
# backend.
danaus_unit_test(test_union
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_union.c
  LIBS danaus_union danaus_backend_local)
set_tests_properties(test_union PROPERTIES LABELS "unit;union")

# The compatibility test against unionfs-fuse -o cow (tests/union/compat.sh):
# one scenario through both unions, transcripts compared; the Danaus union
# over the local backend, and over CephFS with the ctest ceph fixture.
# Then "." and ".." of every directory of the Danaus union against stat
# (dots_probe).
set(DANAUS_UNION_COMPAT ${CMAKE_CURRENT_SOURCE_DIR}/union/compat.sh)
add_executable(dots_probe ${CMAKE_CURRENT_SOURCE_DIR}/union/dots_probe.c)
add_test(NAME union_compat_local
  COMMAND ${DANAUS_UNION_COMPAT} $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
    local - $<TARGET_FILE:dots_probe>)
set_tests_properties(union_compat_local PROPERTIES LABELS union TIMEOUT 120)
danaus_ceph_test(union_compat_ceph LABELS union PROPERTIES TIMEOUT 300
  COMMAND ${DANAUS_UNION_COMPAT} $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
    ceph ${DANAUS_CEPH_CONF} $<TARGET_FILE:dots_probe>)

# The memory test (tests/union/memory.sh): 16 unions over one 64 MiB file
# of a shared read-only branch on CephFS; RSS growth under 2 copies.
danaus_ceph_test(union_memory_ceph LABELS union PROPERTIES TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/memory.sh $<TARGET_FILE:danausd>
    $<TARGET_FILE:danaus> ${DANAUS_CEPH_CONF})

# Unit tests of partial copy-up: the extent map alone, and the union's
# partial copies over the local backend.
danaus_unit_test(test_extent_map
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_extent_map.c
  LIBS danaus_union)
danaus_unit_test(test_union_partial
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_union_partial.c
  LIBS danaus_union danaus_backend_local)
set_tests_properties(test_extent_map test_union_partial PROPERTIES
  LABELS "unit;union")

# The randomized model test of partial copy-up (tests/union/model.sh):
# union_model's random writes, appends, truncates and reads on a lower
# file of a union, danausd killed in the middle of each round but the
# first and restarted, every acknowledged op checked, on both backends.
add_executable(union_model ${CMAKE_CURRENT_SOURCE_DIR}/union/union_model.c)
add_test(NAME union_model_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/model.sh $<TARGET_FILE:danausd>
    $<TARGET_FILE:danaus> $<TARGET_FILE:union_model> local - 8 400)
set_tests_properties(union_model_local PROPERTIES LABELS union TIMEOUT 300)
danaus_ceph_test(union_model_ceph LABELS union PROPERTIES TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/model.sh $<TARGET_FILE:danausd>
    $<TARGET_FILE:danaus> $<TARGET_FILE:union_model> ceph ${DANAUS_CEPH_CONF}
    6 200)

# mmap of a partial copy through the FUSE door (tests/union/partial_fuse.sh).
add_test(NAME union_partial_fuse
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/partial_fuse.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> $<TARGET_FILE:union_model>)
set_tests_properties(union_partial_fuse PROPERTIES LABELS "union;fuse"
  TIMEOUT 120)

# Listings emptied while they are read, through the FUSE door
# (tests/union/fuse_listing.sh).
add_test(NAME union_fuse_listing
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/fuse_listing.sh
    $<TARGET_FILE:danausd>)
set_tests_properties(union_fuse_listing PROPERTIES LABELS "union;fuse"
  TIMEOUT 180)

# A read-only branch's files passed to their readers through the preload
# (tests/union/passed_files.sh).
add_test(NAME union_passed_files
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/union/passed_files.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
set_tests_properties(union_passed_files PROPERTIES LABELS "union;preload"
  TIMEOUT 120)

# The directories changed lately, which the union's and the local
# backend's remembered walks consult (fsservice/libservice/dirchanges.h).
danaus_unit_test(test_dirchanges
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_dirchanges.c
  LIBS danaus_dirchanges)
set_tests_properties(test_dirchanges PROPERTIES LABELS "unit;union")
