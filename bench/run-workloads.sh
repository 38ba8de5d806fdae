#!/bin/bash
# run-workloads.sh - real container work (issue 36): the steps of
# bench/workload-steps.sh (untar a header tree, find / -xdev, tar of /usr,
# rm -rf, make -j2 of a 40-unit C project, git clone + status, Python
# imports, 500 sqlite transactions; then a static busybox's untar, find / -xdev, cat of every file
# of a tree and rm -rf, and a static Go program's stat loop; the steps'
# comment gives their sizes) in one Debian image, on a
# Danaus container on the local backend (dynamic programs through the
# preload, static ones through the FUSE door), on one in a pool whose FUSE
# door takes requests over io_uring (pool create --fuse-io-uring on; where
# the kernel has it), on `podman run` with
# overlayfs storage on the same disk, on `podman run` with danaus-runtime
# (podman's root of the image under a writable branch in the same Danaus
# pool, runc doing the rest, as for the podman row), and in a chroot on the host's file
# system as the kernel's baseline; with --ceph, also on a Danaus container
# on the Ceph backend and in a chroot on ceph-fuse. Rounds interleave the
# systems; the table gives each step's median time and Danaus's ratios.
# Builds the Go program, nothing else.
#
#   bench/run-workloads.sh [--ceph CONF] [OUTDIR [BUILD_DIR]]
#   bench/run-workloads.sh --fill-cache [BUILD_DIR]
#
#   --ceph CONF    also run on this running Ceph cluster (starts none)
#   --fill-cache   only make the Debian image's tarball (mmdebstrap needs
#                  Debian's mirror; run-all.sh does this before entering
#                  its network namespace)
#   OUTDIR         where workloads.txt (table), workloads.csv (every step of
#                  every round) and the plot workloads-time.png go (default
#                  ./bench-results)
#   BUILD_DIR      a build tree with the danaus command, danausd and
#                  libdanaus.so (default $BUILD_DIR, else ./build)
#
# Environment:
#   ROUNDS        rounds of every system (default 3)
#   STEPS         the steps to run, by their function names in
#                 workload-steps.sh (default all; bb_rm needs bb_untar)
#   IMAGE_CACHE   where the Debian tarball is kept between runs (default
#                 BUILD_DIR/engine-image-cache, as the engine tests' one)
#   BENCH_CEPH_DEBUG  "keep": leave the Ceph clients' log levels as the
#                 cluster conf has them (default 0/0, as run-core.sh)
#   NEIGHBOUR     1: each system's steps run alone and next to a noisy
#                 neighbour of the same system (below), taking turns, in
#                 workloads-neighbour.txt and .csv instead; only the local
#                 systems (danaus (local), podman (overlayfs), ext4)
#
# Next to a neighbour (issue 36's last goal, the paper's claim): the
# steps' root gets the first half of the cpus, alone too (a pool made with
# those --cpus, podman's --cpuset-cpus, taskset for the chroot), and the
# neighbour the rest: a second Danaus pool on the same disk, a second
# podman container, a second chroot process, each running
# bench/workload-neighbour.sh from the image (unpacking the header tree,
# writing 256 MiB with an fsync, removing both, over and over). It starts
# 2 s before the steps and is killed after them. What they share is the
# host's kernel and disk, as tenants of one host do.
#
# The image: Debian bookworm by mmdebstrap (minbase with gcc, libc6-dev,
# make, git, python3), plus under /bench the steps script, the host's
# /usr/include and /usr/include/linux as tarballs, a generated C project of 40
# units, a bare clone of this repository, the host's busybox-static and the
# Go program (bench/stat_loop.go, CGO_ENABLED=0). The same tarball is
# imported into the engine and into podman and unpacked for the chroots.
#
# Each round runs the steps script once per system, in a new container
# (danaus run --rm; podman run --rm with runc, --network none) or a chroot
# (unshare --mount, the host's /dev/null bound in: no other namespace, no
# union); the chroots' trees are cleaned between rounds. Caches are warm:
# before round 1 every system runs `true` (Danaus then unpacks the image
# into its pool's backend) and nothing drops the host's page cache. Times
# are taken inside the root by bash, so container start-up is not in them.
#
# What it starts (and stops on exit, also on error): a Danaus pool (its
# danausd, cgroup, IPC namespace) per backend and its containers, podman's
# containers in a private storage root, and with --ceph a ceph-fuse mount.
set -euo pipefail

say() { echo "run-workloads: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
ceph=""
fill_only=""
while [ $# -gt 0 ]; do
    case $1 in
    --ceph) ceph=$2; shift ;;
    --fill-cache) fill_only=1 ;;
    -*) die "unknown option '$1' (see the comment at the top)" ;;
    *) break ;;
    esac
    shift
done
if [ -n "$fill_only" ]; then
    outdir=""
    build=${1:-${BUILD_DIR:-./build}}
else
    outdir=${1:-./bench-results}
    build=${2:-${BUILD_DIR:-./build}}
fi
rounds=${ROUNDS:-3}
neighbour=${NEIGHBOUR:-}
[ -z "$neighbour" ] || [ -z "$ceph" ] || die "NEIGHBOUR runs the local systems only: no --ceph"
cache=${IMAGE_CACHE:-$build/engine-image-cache}

# The Debian root, cached by suite, variant and packages as images.sh does.
packages=gcc,libc6-dev,make,git,python3
key=$(echo "bookworm minbase $packages" | sha256sum | cut -c1-16)
debian=$cache/debian-$key/rootfs.tar
if [ ! -f "$debian" ]; then
    say "making the Debian image (mmdebstrap, about 2 min; cached in $cache)"
    mkdir -p "$cache/debian-$key"
    # (mmdebstrap picks its output format from the name's extension)
    mmdebstrap -q --variant=minbase --include="$packages" bookworm \
        "$cache/debian-$key/new.tar" >&2 ||
        die "mmdebstrap failed (no route to Debian's mirror? run --fill-cache outside the network namespace)"
    mv "$cache/debian-$key/new.tar" "$debian"
fi
[ -z "$fill_only" ] || exit 0

danaus=$build/engine/danaus
[ -x "$danaus" ] || die "$danaus not found: build the target danaus_engine in $build"
runtime=$(realpath "$build/runtime/danaus-runtime")
[ -x "$runtime" ] || die "$runtime not found: build the target danaus_runtime in $build"
for c in podman runc go git unshare chroot; do
    command -v "$c" >/dev/null || die "$c not found"
done
[ -z "$ceph" ] || command -v ceph-fuse >/dev/null || die "ceph-fuse not found"
busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
    die "$busybox is not a static busybox: install busybox-static"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)
build=$(cd "$build" && pwd -P)

# Under /tmp: on the same file system as the pool's local backend and
# podman's storage, so that every system but Ceph writes to the same disk.
work=$(mktemp -d /tmp/danaus-workloads-bench.XXXXXX)
state=$work/state
# The Ceph pool and the io_uring one have engines of their own: a pool
# owns its cpus, and each system gets both.
ceph_state=$work/state-ceph
uring_state=$work/state-uring
fuse_pid=""
top=""

cleanup() {
    local rc=$?
    set +e
    remove_engine_state pools
    state=$ceph_state remove_engine_state pools
    state=$uring_state remove_engine_state pools
    remove_podman_state
    # danaus-runtime's notes of which state directory a container is in
    grep -lxF "$state" /run/danaus-runtime/* 2>/dev/null | xargs -r rm -f
    if [ -n "$fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        unmount_fuse_at "$work/fuse" "$fuse_pid"
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$repo/bench/lib.sh"

say "the image: Debian with the workloads' inputs under /bench"
root=$work/ext4-root
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$debian"
mkdir "$root/bench"
cp "$here/workload-steps.sh" "$root/bench/steps.sh"
cp "$here/workload-neighbour.sh" "$root/bench/neighbour.sh"
cp "$busybox" "$root/bench/busybox"
CGO_ENABLED=0 go build -o "$root/bench/stat-loop" "$here/stat_loop.go"
tar -C / -cf "$root/bench/include.tar" usr/include
tar -C / -cf "$root/bench/linux.tar" usr/include/linux
git clone -q --bare --single-branch "$repo" "$root/bench/repo.git"
# The C project: 40 units of 40 small functions each, a main calling them.
src=$root/bench/src
mkdir "$src"
for u in $(seq 40); do
    {
        echo '#include <stdio.h>'
        echo '#include <stdlib.h>'
        echo '#include <string.h>'
        echo '#include <math.h>'
        for f in $(seq 40); do
            echo "double u${u}_f$f(double x) {"
            echo "    char b[64]; double s = 0;"
            echo "    for (int i = 0; i < $f; i++) { s += sin(x * i) / (i + $u); snprintf(b, sizeof b, \"%g\", s); s += strlen(b); }"
            echo "    return s;"
            echo "}"
        done
        echo "double unit$u(double x) {"
        echo "    double s = 0;"
        for f in $(seq 40); do echo "    s += u${u}_f$f(x);"; done
        echo "    return s;"
        echo "}"
    } >"$src/unit$u.c"
done
{
    echo '#include <stdio.h>'
    for u in $(seq 40); do echo "double unit$u(double);"; done
    echo 'int main(void) {'
    echo '    double s = 0;'
    for u in $(seq 40); do echo "    s += unit$u(0.5);"; done
    echo '    printf("%.3f\n", s);'
    echo '    return 0;'
    echo '}'
} >"$src/main.c"
printf '%s\n' 'OBJS := $(patsubst %.c,%.o,$(wildcard *.c))' 'CC := gcc' 'CFLAGS := -O2' \
    'prog: $(OBJS)' '	$(CC) -o $@ $(OBJS) -lm' >"$src/Makefile"
tar -C "$root" --numeric-owner -cf "$work/image.tar" .

say "importing it into the engine and into podman"
"$danaus" --state "$state" image import wl "$work/image.tar" >/dev/null
podman_ import -q "$work/image.tar" localhost/wl:bench >/dev/null

# The systems, in the order of a round; run_system runs a command in a new
# root of one of them, on the cpus $cpus.
systems=("danaus (local)" "podman (danaus-runtime)" "podman (overlayfs)" "ext4")
cpus=0-$(($(nproc) - 1))
if [ -n "$neighbour" ]; then
    systems=("danaus (local)" "podman (overlayfs)" "ext4")
    half=$(($(nproc) / 2))
    [ "$half" -ge 1 ] || die "NEIGHBOUR needs 2 cpus or more"
    cpus=0-$((half - 1))
    neighbour_cpus=$half-$(($(nproc) - 1))
fi
# podman's options beside the image, for the steps and the neighbour alike:
# runc and explicit limits, as crun refuses this machine's cgroup hybrid
# mode, and neither may raise nofile/nproc here.
podman_opts=(--network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
run_system() { # NAME CMD...
    local s=$1
    shift
    case $s in
    "danaus (local)") "$danaus" --state "$state" run --rm --pool wll --image wl -- "$@" ;;
    "danaus (io_uring)") "$danaus" --state "$uring_state" run --rm --pool wlu --image wl -- "$@" ;;
    "danaus (ceph)") "$danaus" --state "$ceph_state" run --rm --pool wlc --image wl -- "$@" ;;
    "podman (overlayfs)")
        podman_ --runtime "$(command -v runc)" run --rm "${podman_opts[@]}" \
            --cpuset-cpus "$cpus" localhost/wl:bench "$@" ;;
    "podman (danaus-runtime)")
        podman_ --runtime "$runtime" --runtime-flag "danaus-state=$state" \
            --runtime-flag danaus-runc=runc run --rm "${podman_opts[@]}" \
            --cpuset-cpus "$cpus" --annotation danaus.pool=wll \
            localhost/wl:bench "$@" ;;
    ext4) in_chroot "$root" "$@" ;;
    ceph-fuse) in_chroot "$work/fuse$top/root" "$@" ;;
    esac
}
# The host's /dev/null is bound over the image's node, which a file system
# mounted nodev (FUSE's default, so ceph-fuse) cannot open. What the steps
# leave (trees a partial STEPS did not remove, the build, the clone, the
# database) is removed after each run, as a new container would not have
# it.
# shellcheck disable=SC2016 # $1 belongs to the inner sh
in_chroot() { # ROOT CMD...
    local r=$1 rc=0
    shift
    taskset -c "$cpus" unshare --mount \
        sh -c 'mount --bind /dev/null "$1/dev/null" && shift && exec chroot "$@"' \
        sh "$r" "$r" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root "$@" || rc=$?
    rm -rf "$r/w" "$r/s" "$r/b" "$r/g" "$r/d.db" "$r/d.db-journal"
    return "$rc"
}

mkdir -p "$work/local"
"$danaus" --state "$state" pool create wll --cpus "$cpus" \
    --memory 8G --backend "local:$work/local"
# The same pool with its FUSE door's requests over io_uring (in an engine
# of its own, as the Ceph pool), where the kernel has it (config
# fuse_io_uring; the fuse module's enable_uring, a host setting that
# changes nothing for connections that do not ask).
uring=""
if [ -n "$neighbour" ]; then
    mkdir -p "$work/local-neighbour"
    "$danaus" --state "$state" pool create wln --cpus "$neighbour_cpus" \
        --memory 8G --backend "local:$work/local-neighbour"
elif echo Y 2>/dev/null >/sys/module/fuse/parameters/enable_uring; then
    mkdir -p "$work/local-uring"
    "$danaus" --state "$uring_state" image import wl "$work/image.tar" >/dev/null
    "$danaus" --state "$uring_state" pool create wlu --cpus "$cpus" \
        --memory 8G --backend "local:$work/local-uring" --fuse-io-uring on
    systems=("danaus (local)" "danaus (io_uring)" "${systems[@]:1}")
    uring=1
else
    say "no FUSE over io_uring in this kernel: no danaus (io_uring) row"
fi
if [ -n "$ceph" ]; then
    CEPH_CONF=$ceph use_ceph_cluster
    quiet_client_conf
    mount_ceph_fuse_at "$work/fuse"
    fuse_pid=$mounted_pid
    top=/danaus-workloads-bench-$$
    mkdir -p "$work/fuse$top/pool" "$work/fuse$top/root"
    say "unpacking the image into ceph-fuse for its chroot"
    tar -C "$work/fuse$top/root" --numeric-owner -xpf "$work/image.tar"
    "$danaus" --state "$ceph_state" image import wl "$work/image.tar" >/dev/null
    "$danaus" --state "$ceph_state" pool create wlc --cpus "$cpus" \
        --memory 8G --backend "ceph:$bench_conf:$top/pool"
    systems+=("danaus (ceph)" ceph-fuse)
fi

# The noisy neighbour of a system, on the other cpus: started, and given
# 2 s to get going; stopped, with what it left.
neighbour_pid=""
start_neighbour() { # SYSTEM
    case $1 in
    "danaus (local)")
        "$danaus" --state "$state" run -d --name nb --pool wln --image wl \
            -- /bin/bash /bench/neighbour.sh >/dev/null ;;
    "podman (overlayfs)")
        podman_ --runtime "$(command -v runc)" run -d --name nb "${podman_opts[@]}" \
            --cpuset-cpus "$neighbour_cpus" localhost/wl:bench \
            /bin/bash /bench/neighbour.sh >/dev/null ;;
    ext4)
        # setsid: a process group of its own, killed whole
        setsid taskset -c "$neighbour_cpus" chroot "$root" env -i \
            PATH=/usr/bin:/bin /bin/bash /bench/neighbour.sh >/dev/null 2>&1 &
        neighbour_pid=$! ;;
    esac
    sleep 2
}
stop_neighbour() { # SYSTEM
    case $1 in
    "danaus (local)") "$danaus" --state "$state" rm -f nb >/dev/null ;;
    "podman (overlayfs)") podman_ rm -f -t 0 nb >/dev/null ;;
    ext4)
        kill -- -"$neighbour_pid" 2>/dev/null
        wait "$neighbour_pid" 2>/dev/null || true
        rm -rf "${root:?}/nb" ;;
    esac
}

say "warming up: \`true\` on every system"
for s in "${systems[@]}"; do
    run_system "$s" true || die "$s: the warm-up failed"
done

results=$work/results.csv
echo "system,round,step,seconds,exit,result" >"$results"
# One run of the steps on system $1 (recorded as $2, alone or not).
run_steps() { # SYSTEM LABEL ROUND
    say "round $3: $2"
    # shellcheck disable=SC2086 # STEPS is a list of names
    run_system "$1" /bin/bash /bench/steps.sh ${STEPS:-} >"$work/out" 2>"$work/err" ||
        die "$2: the steps script failed: $(tail -n 3 "$work/err")"
    while read -r step seconds rc result; do
        echo "$2,$3,$step,$seconds,$rc,$result" >>"$results"
        [ "$rc" = 0 ] || say "$2 round $3: $step exited $rc: $result"
    done <"$work/out"
}
for r in $(seq "$rounds"); do
    for s in "${systems[@]}"; do
        if [ -z "$neighbour" ]; then
            run_steps "$s" "$s" "$r"
            continue
        fi
        # alone and next to the neighbour, in turns: odd rounds alone first
        for next in $(if [ $((r % 2)) = 1 ]; then echo 0 1; else echo 1 0; fi); do
            if [ "$next" = 0 ]; then
                run_steps "$s" "$s" "$r"
            else
                start_neighbour "$s"
                run_steps "$s" "$s +neighbour" "$r"
                stop_neighbour "$s"
            fi
        done
    done
done
csv=workloads
[ -z "$neighbour" ] || csv=workloads-neighbour
cp "$results" "$outdir/$csv.csv"

# Per system and step, in the order of the runs: the median of the rounds
# and the results seen (a step that exited non-zero says so; distinct
# results are joined by "/").
summary=$work/summary.csv
awk -F, -v OFS=, '
    NR == 1 { next }
    {
        k = $1 SUBSEP $3
        if (!(k in n)) order[++nk] = k
        t[k, ++n[k]] = $4
        r = $6 ($5 != 0 ? " (exit " $5 ")" : "")
        if (!(k in res)) res[k] = r
        else if (index("/" res[k] "/", "/" r "/") == 0) res[k] = res[k] "/" r
    }
    END {
        for (i = 1; i <= nk; i++) {
            k = order[i]
            for (a = 1; a <= n[k]; a++) v[a] = t[k, a]
            for (a = 2; a <= n[k]; a++)
                for (b = a; b > 1 && v[b - 1] > v[b]; b--) { x = v[b]; v[b] = v[b - 1]; v[b - 1] = x }
            split(k, p, SUBSEP)
            print p[1], p[2], v[int((n[k] + 1) / 2)], res[k]
        }
    }' "$results" >"$summary"
median() { awk -F, -v s="$1" -v t="$2" '$1 == s && $2 == t {print $3}' "$summary"; }
# A table's line of when, what and where.
run_line() {
    echo "Date: $(date -u '+%Y-%m-%d %H:%M') UTC; commit $(build_commit "$build") (the build's);" \
        "$(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1);" \
        "load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
if [ -n "$neighbour" ]; then
    {
        echo "Workloads in one Debian image (bench/workload-steps.sh) alone and next to a noisy neighbour"
        echo "(bench/workload-neighbour.sh), seconds: median of $rounds rounds, the two in turns"
        run_line
        echo "The steps on cpus $cpus, the neighbour on cpus $neighbour_cpus; same disk."
        echo
        line=$(printf '%-14s' step)
        for s in "${systems[@]}"; do
            line+=$(printf ' %21s %21s %8s' "$s" "+neighbour" "slower")
        done
        line+=$(printf ' %11s %11s' "+n /ext4" "+n /podman")
        echo "$line"
        for step in $(awk -F, '$1 == "ext4" {print $2}' "$summary"); do
            line=$(printf '%-14s' "$step")
            for s in "${systems[@]}"; do
                line+=$(awk -v a="$(median "$s" "$step")" -v n="$(median "$s +neighbour" "$step")" \
                    'BEGIN {printf " %21.3f %21.3f %7.2fx", a, n, n / a}')
            done
            line+=$(awk -v d="$(median "danaus (local) +neighbour" "$step")" \
                -v e="$(median "ext4 +neighbour" "$step")" \
                -v p="$(median "podman (overlayfs) +neighbour" "$step")" \
                'BEGIN {printf " %10.2fx %10.2fx", d / e, d / p}')
            echo "$line"
        done
        echo
        echo "slower: the step's time next to the neighbour over its time alone, on the same system"
        echo "+n /ext4, +n /podman: Danaus's time next to its neighbour over the other's next to its own"
    } | tee "$outdir/workloads-neighbour.txt"
    say "results in $outdir/workloads-neighbour.txt and workloads-neighbour.csv"
    exit 0
fi
{
    echo "Workloads in one Debian image (bench/workload-steps.sh), seconds: median of $rounds interleaved rounds"
    run_line
    echo "Steps bb-* and go-stat are static programs: on Danaus through the FUSE door; the rest through the preload."
    echo
    line=$(printf '%-14s' step)
    for s in "${systems[@]}"; do line+=$(printf ' %18s' "$s"); done
    line+=$(printf ' %11s %11s %11s' "/ext4" "/podman" "rt/podman")
    [ -n "$uring" ] && line+=$(printf ' %11s' "uring/ext4")
    [ -n "$ceph" ] && line+=$(printf ' %11s' "/ceph-fuse")
    echo "$line"
    for step in $(awk -F, '$1 == "ext4" {print $2}' "$summary"); do
        line=$(printf '%-14s' "$step")
        for s in "${systems[@]}"; do line+=$(printf ' %18.3f' "$(median "$s" "$step")"); done
        d=$(median "danaus (local)" "$step")
        line+=$(awk -v d="$d" -v e="$(median ext4 "$step")" -v p="$(median "podman (overlayfs)" "$step")" \
            -v r="$(median "podman (danaus-runtime)" "$step")" \
            'BEGIN {printf " %10.2fx %10.2fx %10.2fx", d / e, d / p, r / p}')
        [ -n "$uring" ] && line+=$(awk -v u="$(median "danaus (io_uring)" "$step")" \
            -v e="$(median ext4 "$step")" 'BEGIN {printf " %10.2fx", u / e}')
        [ -n "$ceph" ] && line+=$(awk -v d="$(median "danaus (ceph)" "$step")" \
            -v f="$(median ceph-fuse "$step")" 'BEGIN {printf " %10.2fx", d / f}')
        echo "$line"
    done
    echo
    echo "/ext4, /podman: time of Danaus (local) over the other's (lower: Danaus faster)"
    echo "rt/podman: time of podman with danaus-runtime over podman with overlayfs"
    if [ -n "$uring" ]; then echo "uring/ext4: time of Danaus (local) with fuse_io_uring on (its FUSE door over io_uring) over ext4's"; fi
    if [ -n "$ceph" ]; then echo "/ceph-fuse: time of Danaus (ceph) over ceph-fuse's"; fi
    echo "Results (a step's last output line; per system where they differ):"
    awk -F, '
        !($2 in first) { order[++n] = $2; first[$2] = $4; same[$2] = 1; all[$2] = $1 ": " $4; next }
        { if ($4 != first[$2]) same[$2] = 0; all[$2] = all[$2] "; " $1 ": " $4 }
        END {
            for (i = 1; i <= n; i++) {
                s = order[i]
                if (same[s] && first[s] != "-") printf "  %-14s %s\n", s, first[s]
                else if (!same[s]) printf "  %-14s %s\n", s, all[s]
            }
        }' "$summary"
} | tee "$outdir/workloads.txt"

pivot_csv '$2' '$1' '$3' 1 <"$summary" >"$outdir/workloads-time.csv"
"$repo/bench/plot.sh" bars "$outdir/workloads-time.csv" "$outdir/workloads-time.png" \
    "Workloads in a Debian image: median time per step" seconds log
say "results in $outdir/workloads.txt, workloads.csv and workloads-time.png"
