#!/bin/bash
# pjdfstest.sh - POSIX conformance (issue 17): the Rust port of pjdfstest,
# run as root on each target, checked against a list of expected failures.
#
#   pjdfstest.sh DANAUSD LIBDANAUS CEPH_CONF|- TARGET...
#
# Targets:
#   reference       a plain directory of the host file system (the fs of
#                   /tmp, named in the output: ext4 on the CI machines)
#   local-preload   danausd's local backend through libdanaus (LD_PRELOAD)
#   local-fuse      the same instance through its FUSE door (no preload)
#   ceph-preload    the Ceph backend through libdanaus
#   ceph-fuse-door  the Ceph backend through danausd's FUSE door
#   ceph-fuse       Ceph's own FUSE client, ceph-fuse (reference for Ceph)
#
# Each target's failures are compared with expected/TARGET.txt (one test a
# line, then the reason; '#' comments). Any other failure fails the run;
# an expected failure that passed is reported, so the list can shrink. A test
# that kills pjdfstest (a crash inside libdanaus) or hangs counts as failed:
# tests run group by group (chmod, open, ...), and a group that does not
# finish is rerun one test at a time.
#
# pjdfstest comes from Rust's registry: $PJDFSTEST, or the binary cached
# in ${XDG_CACHE_HOME:-~/.cache}/danaus-pjdfstest (installed there with
# cargo on first use). Without cargo, or when it cannot be installed, the
# run is skipped (exit 77, ctest's SKIP_RETURN_CODE). Its users are nobody
# (group nogroup) and daemon (group daemon), named in its configuration.
# Exit 0 when every target failed only as expected.
set -u

if [ $# -lt 4 ]; then
    echo "usage: pjdfstest.sh DANAUSD LIBDANAUS CEPH_CONF|- TARGET..." >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") ceph_conf=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PJD_VERSION=0.2.2

skip() { echo "SKIPPED: $*"; exit 77; }

cache=${XDG_CACHE_HOME:-$HOME/.cache}/danaus-pjdfstest
pjd=${PJDFSTEST:-$cache/bin/pjdfstest}
if [ ! -x "$pjd" ]; then
    command -v cargo >/dev/null ||
        skip "no cargo here to install pjdfstest (cargo install pjdfstest)"
    echo "installing pjdfstest $PJD_VERSION into $cache (once)"
    cargo install --quiet --locked pjdfstest --version "$PJD_VERSION" \
        --root "$cache" >&2 ||
        skip "cargo could not install pjdfstest $PJD_VERSION (offline?)"
fi
[ "$(id -u)" -eq 0 ] || skip "pjdfstest runs as root"
for u in nobody:nogroup daemon:daemon; do
    getent passwd "${u%:*}" >/dev/null && getent group "${u#*:}" >/dev/null ||
        skip "pjdfstest's users are missing (need user/group $u)"
done

site=$(mktemp -d /tmp/danaus-pjd-XXXXXX) || exit 1
chmod 755 "$site"
cat > "$site/pjdfstest.toml" <<TOML
[features]
posix_fallocate = {}
utimensat = {}
utime_now = {}
rename_ctime = {}
[settings]
# Above the coarsest timestamp granularity here (ext4: a jiffy): with
# 0.001, ext4 itself fails changed_time_fields_success.
naptime = 0.05
allow_remount = false
[dummy_auth]
entries = [["nobody", "nogroup"], ["daemon", "daemon"]]
TOML

daemon= cephfuse=
cleanup() {
    [ -n "$cephfuse" ] && { rm -rf "$cephfuse"/pjd-* ; umount "$cephfuse" ||
                            umount -l "$cephfuse"; }
    service_stop
    unmount_left "$site"/mnt-*
    rm -rf "$site"
}
trap cleanup EXIT

# start_danausd TARGET BACKEND: a service of its own for the target, its
# instance mounted at $site/mnt-TARGET.
start_danausd() {
    local target=$1 backend=$2 conf=$site/danausd-$1.conf
    mkdir -p "$site/run" "$site/backing-$target"
    {
        echo "service pjd-$$-$target"
        echo "rundir $site/run"
        # Other users act through the FUSE door too (identity changes, the
        # test users): open it to them, as a multi-user host would.
        echo "fuse_allow_other on"
        case $backend in
        local) echo "mount $site/mnt-$target local $site/backing-$target" ;;
        ceph) echo "ceph_conf $ceph_conf"
              echo "mount $site/mnt-$target ceph /pjd-$(hostname)-$$-$target" ;;
        esac
    } > "$conf"
    service_start "$site/danausd-$target.log" "$site/mnt-$target" \
        "$danausd" -c "$conf"
}

# run_pjd DIR OUT [preload SERVICE]: every group of tests in DIR, results
# ("name status", status ok, FAILED, skipped or CRASH) appended to OUT.
run_pjd() {
    local dir=$1 out=$2 pre=()
    [ $# -eq 4 ] && pre=(env LD_PRELOAD="$lib" DANAUS_SERVICE="$4"
                         DANAUS_RUNDIR="$site/run")
    : > "$out"
    : > "$out.why"
    for group in $groups; do
        local log=$site/group.log
        (cd "$dir" && timeout 300 "${pre[@]}" "$pjd" -c "$site/pjdfstest.toml" \
            -p "$dir" "$group::" > "$log" 2>&1)
        if grep -q '^Summary:' "$log"; then
            results "$log" "$group::" >> "$out"
            reasons "$log" "$group::" >> "$out.why"
            continue
        fi
        # The group did not finish: one test at a time.
        for t in $(grep "^$group::" "$site/names"); do
            (cd "$dir" && timeout 60 "${pre[@]}" "$pjd" \
                -c "$site/pjdfstest.toml" -p "$dir" "$t" > "$log" 2>&1)
            if grep -q '^Summary:' "$log"; then
                results "$log" "$t" >> "$out"
                reasons "$log" "$t" >> "$out.why"
            else
                echo "$t CRASH" >> "$out"
            fi
        done
    done
}
# The result lines of a pjdfstest log, as "name status", of the tests
# whose names start with WANT ending in "::" (a group), or of test WANT
# (pjdfstest's patterns match anywhere in a name: "link::" also selects
# unlink:: and symlink::).
results() {
    awk -v want="$2" '(want == "" || want ~ /::$/ ? index($1, want) == 1 : $1 == want) &&
        ($NF == "ok" || $NF == "FAILED" || $NF == "skipped") {
             print $1, $NF }' "$1"
}

# What pjdfstest said about each failed test selected as by results: its
# line and the assertion.
reasons() {
    awk -v want="$2" '/FAILED$/ {
            p = want == "" || (want ~ /::$/ ? index($1, want) == 1 : $1 == want)
            if (p) print
            next }
        /^Backtrace:/ { p = 0 } p' "$1"
}

# check TARGET OUT: compares failures with expected/TARGET.txt. A test the
# target skips where the reference passed it counts as a failure: a target
# must pass what the reference passes, not step around it.
status=0
summary=
check() {
    local target=$1 out=$2 exp=$here/expected/$1.txt
    local expected=$site/expected-$1 failed=$site/failed-$1
    [ -f "$exp" ] && sed -e 's/#.*//' "$exp" | awk 'NF { print $1 }' |
        sort -u > "$expected" || : > "$expected"
    awk 'FNR == NR { if ($2 == "ok") passed[$1] = 1; next }
         $2 == "FAILED" || $2 == "CRASH" ||
         ($2 == "skipped" && $1 in passed) { print $1 }' \
        "$site/reference.out" "$out" | sort -u > "$failed"
    local n_ok n_fail n_skip
    n_ok=$(awk '$2 == "ok"' "$out" | wc -l)
    n_skip=$(awk '$2 == "skipped"' "$out" | sort -u | comm -23 - <(
        sed 's/$/ skipped/' "$failed") | wc -l)
    n_fail=$(wc -l < "$failed")
    local unexpected fixed
    unexpected=$(comm -23 "$failed" "$expected")
    fixed=$(comm -13 "$failed" "$expected")
    awk '$2 == "CRASH"' "$out" | sed "s/^/$target: /"
    awk 'FNR == NR { if ($2 == "ok") passed[$1] = 1; next }
         $2 == "skipped" && $1 in passed {
             print $1, "skipped here, passed on the reference" }' \
        "$site/reference.out" "$out" | sed "s/^/$target: /"
    sed "s/^/$target: /" "$out.why"
    summary="$summary$(printf '%-15s %4d passed %4d failed %3d skipped' \
        "$target" "$n_ok" "$n_fail" "$n_skip")
"
    if [ -n "$unexpected" ]; then
        echo "$target: UNEXPECTED failures (not in expected/$target.txt):"
        echo "$unexpected" | sed 's/^/  /'
        status=1
    fi
    [ -n "$fixed" ] && {
        echo "$target: expected to fail but passed (remove from the list):"
        echo "$fixed" | sed 's/^/  /'
    }
    [ "$n_ok" -gt 0 ] || { echo "$target: nothing passed"; status=1; }
}

# The test names and groups, from a run on the host's own file system.
mkdir "$site/reference"
(cd "$site/reference" && "$pjd" -c "$site/pjdfstest.toml" -p "$site/reference" \
    > "$site/reference.log" 2>&1)
results "$site/reference.log" "" > "$site/reference.out"
reasons "$site/reference.log" "" > "$site/reference.out.why"
awk '{ print $1 }' "$site/reference.out" | sort > "$site/names"
groups=$(sed 's/::.*//' "$site/names" | sort -u)
[ -s "$site/names" ] || { echo "pjdfstest listed no tests:"; cat "$site/reference.log"; exit 1; }
echo "reference file system: $(findmnt -no FSTYPE -T "$site/reference") ($site/reference)"

for target in "$@"; do
    echo "=== $target"
    case $target in
    reference) ;; # run above
    local-preload|local-fuse|ceph-preload|ceph-fuse-door)
        start_danausd "$target" "${target%%-*}" || { status=1; continue; }
        dir=$site/mnt-$target/pjd
        mkdir "$dir"
        case $target in
        *-preload) run_pjd "$dir" "$site/$target.out" preload \
                       "pjd-$$-$target" ;;
        *) run_pjd "$dir" "$site/$target.out" ;;
        esac
        rm -rf "$dir"
        service_stop ;;
    ceph-fuse)
        cephfuse=$site/cephfuse
        mkdir -p "$cephfuse"
        ceph-fuse -c "$ceph_conf" "$cephfuse" > "$site/ceph-fuse.log" 2>&1 ||
            { echo "ceph-fuse failed:"; cat "$site/ceph-fuse.log"; status=1;
              continue; }
        mkdir "$cephfuse/pjd-$$"
        run_pjd "$cephfuse/pjd-$$" "$site/$target.out" ;;
    *)
        echo "unknown target $target"; status=1; continue ;;
    esac
    check "$target" "$site/$target.out"
done
echo "=== summary"
printf '%s' "$summary"
exit $status
