#!/bin/bash
# workload-steps.sh - the workloads of bench/run-workloads.sh, run by bash
# inside each system's root (a container, or a chroot on the host's file
# system): the image's dynamic programs first (in a Danaus container they
# take the preload's path), then a static busybox and a static Go program
# (the FUSE door's). Times each step with bash's clock, which starts no
# process, and prints one line per step: NAME SECONDS EXIT-CODE RESULT
# (NAME the step's function with '-' for '_'),
# where RESULT is the step's last line of output (a count, for comparing
# the work done on each system) or "-". Pipelines fail as their first
# failing command does.
#
#   /bin/bash /bench/steps.sh [STEP...]   (default: every step, in order)
#
# Reads what run-workloads.sh put under /bench: include.tar (about 9K
# files), linux.tar (about 800: the static steps' tree is smaller, as the
# FUSE door takes minutes for the large one on 2 cpus), src/ (a C project
# with its Makefile), repo.git, busybox and stat-loop. Writes /w, /s, /b
# /g and /d.db, and removes /w and /s (the rm steps).
set -u -o pipefail
export LC_ALL=C
bb=/bench/busybox

untar() { mkdir /w && tar -xf /bench/include.tar -C /w; }
find_all() { find / -xdev | wc -l; }
tar_usr() { tar -cf - /usr | wc -c; }
rm_tree() { rm -rf /w; }
build() { cp -a /bench/src /b && make -s -j2 -C /b && /b/prog; }
git_clone() { git clone -q file:///bench/repo.git /g && git -C /g status --porcelain | wc -l; }
python_import() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        python3 -c 'import email, json, asyncio, unittest, xml.dom.minidom, http.client, logging, argparse, decimal' || return
    done
}
# A database's small transactions: sqlite's defaults (a rollback journal
# made, synced and removed per commit, and record locks), 500 autocommit
# inserts through Python's sqlite3.
sqlite_tx() {
    rm -f /d.db /d.db-journal && python3 -c '
import sqlite3
con = sqlite3.connect("/d.db", isolation_level=None)
con.execute("create table t(a integer, b text)")
for i in range(500):
    con.execute("insert into t values (?, ?)", (i, "row %d" % i))
print(con.execute("select count(*) from t").fetchone()[0])'
}
bb_untar() { $bb mkdir /s && $bb tar -xf /bench/linux.tar -C /s; }
bb_find() { $bb find / -xdev | $bb wc -l; }
bb_cat() { $bb find /usr/lib/python3* -type f -exec $bb cat {} + | $bb wc -c; }
go_stat() { /bench/stat-loop /s 10; }
bb_rm() { $bb rm -rf /s; }

steps=${*:-untar find_all tar_usr rm_tree build git_clone python_import sqlite_tx bb_untar bb_find bb_cat go_stat bb_rm}
for s in $steps; do
    t0=$EPOCHREALTIME
    out=$("$s" 2>&1)
    rc=$?
    t1=$EPOCHREALTIME
    us=$((${t1/./} - ${t0/./}))
    printf '%s %d.%06d %d %s\n' "${s//_/-}" $((us / 1000000)) $((us % 1000000)) "$rc" "$(echo "${out:--}" | tail -n 1 | tr ' ' _)"
done
