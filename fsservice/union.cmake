# Union libservice (fsservice/union*.c): target danaus_union, stacked over
# the backends' instances.
add_library(danaus_union STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/union.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_attr.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_branches.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_copyup.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_dir.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_file.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_branch_listing.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_lookup.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_names.c
  ${CMAKE_CURRENT_SOURCE_DIR}/union_whiteout.c)
target_link_libraries(danaus_union PUBLIC danaus_backend_local
  danaus_backend_ceph Threads::Threads)
