# varmail: a mail server's open, pwrites, fsync, close from many threads of
# one process (bench/run-flushers.sh; plain POSIX, preloaded for Danaus).
add_executable(varmail ${CMAKE_CURRENT_LIST_DIR}/varmail.c)
target_link_libraries(varmail PRIVATE Threads::Threads)
