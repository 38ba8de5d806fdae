# libfs unit tests: the parts of libdanaus that need no service (path
# resolution and mount matching, the descriptor table, request packing,
# the checks of callers' pointers).
foreach(t mounts fdtable pack usermem)
  danaus_unit_test(test_libfs_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_libfs_${t}.c
    LIBS danaus_libfs_objs)
endforeach()
