# sqlite.sh - the sqlite3 shell: create a database, insert 10,000 rows in
# transactions, query, PRAGMA integrity_check, and reopen; then the same in
# WAL mode with exclusive locking, in which SQLite keeps the WAL index in
# its own memory instead of a MAP_SHARED mapping of the -shm file (which
# the library refuses, ENODEV, until the FUSE door).
. "$PROGRAMS_LIB"

gen() { # MODE
    [ "$1" = wal ] && echo "PRAGMA locking_mode=EXCLUSIVE;"
    echo "PRAGMA journal_mode=$1;"
    echo "CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT, n INTEGER);"
    echo "CREATE INDEX kv_n ON kv (n);"
    i=0
    while [ $i -lt 10 ]; do
        echo "BEGIN;"
        echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000)"
        echo "INSERT INTO kv SELECT $i * 1000 + x, printf('row %d', $i * 1000 + x), ($i * 1000 + x) % 97 FROM c;"
        echo "COMMIT;"
        i=$((i + 1))
    done
    echo "BEGIN; UPDATE kv SET v = 'changed' WHERE n = 5; DELETE FROM kv WHERE n = 7; COMMIT;"
    echo "BEGIN; INSERT INTO kv VALUES (20000, 'rolled back', 0); ROLLBACK;"
}
query() { # MODE
    [ "$1" = wal ] && echo "PRAGMA locking_mode=EXCLUSIVE;"
    echo "SELECT count(*), sum(k), sum(n) FROM kv;"
    echo "SELECT count(*) FROM kv WHERE v = 'changed';"
    echo "SELECT k, v FROM kv WHERE n = 3 ORDER BY k LIMIT 3;"
    echo "PRAGMA integrity_check;"
}

for mode in delete wal; do
    gen $mode > $mode.sql
    sum $mode.sql
    step sqlite3 -bail $mode.db ".read $mode.sql"
    query $mode > query.sql
    step sqlite3 -bail $mode.db ".read query.sql"
    step sqlite3 -bail $mode.db "PRAGMA locking_mode=EXCLUSIVE;" "SELECT count(*) FROM kv;" ".tables" ".schema kv"
    shstep "ls $mode.db* | sort"
done
step sqlite3 -bail delete.db ".backup copy.db"
step sqlite3 -bail copy.db "PRAGMA integrity_check;" "SELECT count(*) FROM kv;"
step sqlite3 -bail delete.db "VACUUM;" "PRAGMA integrity_check;"
step sqlite3 -bail notadir/x.db "SELECT 1;"
