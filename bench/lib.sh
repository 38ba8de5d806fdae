# lib.sh - what the bench/run-*.sh scripts share: waiting for a condition,
# a standalone danausd, a Ceph cluster to run against, and one quiet client
# configuration for every Ceph client of a run. Sourced after the script
# has defined say, die and the variables repo and work.

# Waits up to $1 seconds for the command after it to succeed.
wait_until() {
    local limit=$1
    shift
    local end=$((SECONDS + limit))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}

# The commit a build tree was built from (its CMake source directory's
# HEAD, "+" when that tree had changes), which need not be this script's.
build_commit() { # BUILD_DIR
    local src
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt")
    echo "$(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- . ':!build' 2>/dev/null || echo +)"
}

# Runs COMMAND (a danausd and its -c CONF) in the background, logging to
# LOG, its pid in danausd_pid, and waits up to 30 s for it to say it is
# ready; when it does not, stops it, prints the log and returns 1.
start_danausd() { # LOG COMMAND...
    local log=$1
    shift
    "$@" > "$log" 2>&1 &
    danausd_pid=$!
    wait_until 30 grep -q ' ready: ' "$log" && return 0
    kill -TERM "$danausd_pid" 2>/dev/null || true
    wait "$danausd_pid" 2>/dev/null || true
    cat "$log" >&2
    return 1
}

# Stops the danausds started with start_danausd whose pids are in the
# array pids (SIGTERM, then waits for each), for a script's EXIT trap.
stop_danausds() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

# Sets conf: CEPH_CONF's cluster, or one started in $work/ceph (then
# cluster_dir names it, for the script's cleanup to stop).
use_ceph_cluster() {
    if [ -n "${CEPH_CONF:-}" ]; then
        conf=$CEPH_CONF
        [ -r "$conf" ] || die "CEPH_CONF=$conf is not readable"
    else
        cluster_dir=$work/ceph
        conf=$("$repo/deploy/ceph-cluster.sh" start "$cluster_dir") \
            || { cluster_dir=""; die "cannot start a Ceph cluster (one running already? pass CEPH_CONF)"; }
    fi
}

# Sets bench_conf: a copy of $conf for every Ceph client of the run, with
# client-side debug levels 0/0 unless BENCH_CEPH_DEBUG=keep (Ceph's default
# in-memory logging wakes its log thread on nearly every call: Ceph's
# overhead, not the path measured).
quiet_client_conf() {
    bench_conf=$work/ceph.conf
    cp "$conf" "$bench_conf"
    [ "${BENCH_CEPH_DEBUG:-}" = keep ] && return
    {
        echo "[client]"
        for s in client objectcacher objecter ms monc auth journaler \
                 finisher context rados crush asok perfcounter; do
            echo "debug $s = 0/0"
        done
    } >>"$bench_conf"
}

# Mounts ceph-fuse with $bench_conf at $1 in the background; its pid in
# mounted_pid. Its log goes to $work/ceph-fuse.log.
mount_ceph_fuse_at() {
    mkdir -p "$1"
    ceph-fuse -f -c "$bench_conf" "$1" >>"$work/ceph-fuse.log" 2>&1 &
    mounted_pid=$!
    local pid=$mounted_pid dir=$1
    up() {
        kill -0 "$pid" 2>/dev/null || die "ceph-fuse exited; see $work/ceph-fuse.log"
        mountpoint -q "$dir"
    }
    wait_until 60 up || die "ceph-fuse did not mount $dir in 60 s"
}

# Unmounts a FUSE mount and waits for its process to end.
unmount_fuse_at() { # MOUNTPOINT PID
    fusermount3 -u "$1" 2>/dev/null || fusermount -u "$1" 2>/dev/null ||
        umount -l "$1" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$2" 2>/dev/null || true
    wait "$2" 2>/dev/null || true
}

# Copies programs and every library they load (as ldd lists them) into
# the image root $1, keeping their paths, so they run there as on the host.
image_add_programs() { # ROOT PROGRAM...
    local root=$1 p lib
    shift
    for p in "$@"; do
        mkdir -p "$root/usr/bin"
        cp "$p" "$root/usr/bin/"
        for lib in $(ldd "$p" | grep -o '/[^ ]*'); do
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    done
}

# Pids of the cluster's daemons of TYPE (mds, osd, ..., or * for all), from
# the pid files in its run dir (ceph.conf's "run dir"); none for a cluster
# that keeps none there.
ceph_daemon_pids() { # TYPE
    local dir f
    dir=$(sed -n 's/^[[:space:]]*run dir[[:space:]]*=[[:space:]]*//p' "$conf" | head -n 1)
    [ -n "$dir" ] || return 0
    for f in "$dir"/$1.*.pid; do
        if [ -r "$f" ]; then cat "$f"; fi
    done
}

# Pins every daemon of the cluster this script started (cluster_dir) and
# all their threads to the CPUs $1, so the tenants' CPUs are theirs alone.
pin_ceph_cluster() { # CPUS
    local p
    [ -n "${cluster_dir:-}" ] || return 0
    for p in $(ceph_daemon_pids '*'); do
        taskset -a -p -c "$1" "$p" >/dev/null
    done
}

# Sets every thread of every daemon of the cluster this script started
# (cluster_dir) to nice $1. Threads they start later inherit it.
renice_ceph_cluster() { # NICE
    local p
    [ -n "${cluster_dir:-}" ] || return 0
    for p in $(ceph_daemon_pids '*'); do
        renice --priority "$1" -p $(ls "/proc/$p/task") >/dev/null
    done
}

# CPU time (user + system) of a process and all its threads so far, in
# clock ticks (0 if it is gone).
cpu_ticks() { # PID
    awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}

# The same, summed over the processes PIDS (a list in one word).
ticks_of() { # PIDS
    local p t=0
    for p in $1; do t=$((t + $(cpu_ticks "$p"))); done
    echo "$t"
}

# TICKS spent over SECONDS, in % of one CPU.
cpu_percent() { # TICKS SECONDS
    awk -v d="$1" -v hz="$(getconf CLK_TCK)" -v s="$2" 'BEGIN {printf "%.1f", 100 * d / hz / s}'
}

# Removes every container of the engine state $state (force), and with
# "pools" every pool too.
remove_engine_state() { # [pools]
    local c p
    for c in $(ls "$state/containers" 2>/dev/null); do
        "$danaus" --state "$state" rm -f "$c" >/dev/null 2>&1 || true
    done
    [ "${1:-}" = pools ] || return 0
    for p in $(ls "$state/pools" 2>/dev/null); do
        "$danaus" --state "$state" pool rm "$p" || true
    done
}

# podman with a storage root of its own under $work (kernel overlayfs), so
# that a run's images and containers are the run's alone.
podman_() {
    podman --root "$work/podman/root" --runroot "$work/podman/run" \
        --tmpdir "$work/podman/tmp" --storage-driver overlay "$@"
}

# Removes every container and image of that storage.
remove_podman_state() {
    podman_ rm -af -t 0 >/dev/null 2>&1
    podman_ system reset -f >/dev/null 2>&1
}

# Writes to stdout a wide CSV for bench/plot.sh from a long one without a
# header row on stdin: a row per distinct value of the awk expression ROW,
# a column per distinct value of SERIES, cells the sum of VALUE over the
# lines where the awk condition WHERE holds; in order of first appearance.
pivot_csv() { # ROW SERIES VALUE WHERE
    awk -F, -v OFS=, "
        !($4) {next}
        {
            r = $1; s = $2
            if (!(r in rs)) {rs[r]; ro[++nr] = r}
            if (!(s in ss)) {ss[s]; so[++ns] = s}
            v[r, s] += $3
        }"'
        END {
            line = "x"; for (j = 1; j <= ns; j++) line = line OFS so[j]; print line
            for (i = 1; i <= nr; i++) {
                line = "\"" ro[i] "\""
                for (j = 1; j <= ns; j++) line = line OFS v[ro[i], so[j]]
                print line
            }
        }'
}

# Writes to stdout one CSV of danaus-bench's columns from several (one per
# round, same header): a row per system and op, in order of first
# appearance, whose figures (ns_per_op onwards) are the medians over the
# files that have the row; error is the first round's error, if any.
median_csv() { # FILE...
    awk -F, -v OFS=, '
        function median(k, c,    n, i, j, t, a) {
            n = 0
            for (i = 1; i <= cnt[k]; i++)
                if (val[k, c, i] != "") a[++n] = val[k, c, i] + 0
            if (n == 0) return ""
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                    t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
                }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        FNR == 1 { if (NR == 1) print; next }
        {
            k = $1 SUBSEP $2
            if (!(k in cnt)) { order[++nk] = k; first[k] = $0 }
            cnt[k]++
            for (c = 5; c <= 9; c++) val[k, c, cnt[k]] = $c
            if (err[k] == "") err[k] = $10
        }
        END {
            for (i = 1; i <= nk; i++) {
                k = order[i]
                split(first[k], f, ",")
                line = f[1] OFS f[2] OFS f[3] OFS f[4]
                for (c = 5; c <= 9; c++) line = line OFS median(k, c)
                print line OFS err[k]
            }
        }' "$@"
}
