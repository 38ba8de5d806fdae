# first-write: the copy-up probe of bench/run-union.sh (one first write
# per file, timed; plain POSIX, preloaded for the Danaus rows).
add_executable(first-write ${CMAKE_CURRENT_LIST_DIR}/first_write.c)
