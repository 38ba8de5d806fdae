# journal-tx: one sqlite rollback-journal transaction's system calls, each
# kind timed (plain POSIX, preloaded for the Danaus rows); the probe of
# bench/results/umask-cache.txt.
add_executable(journal-tx ${CMAKE_CURRENT_LIST_DIR}/journal_tx.c)
