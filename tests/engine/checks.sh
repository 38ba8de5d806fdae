# Sourced by the engine tests: check and expect_error count failures in
# $failures (the test exits non-zero if it is not 0 at the end).
failures=0
check() { # check WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok   $1"; else
        echo "FAIL $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}
# expect_error WHAT CODE MESSAGE-PART command...: one line, that code.
expect_error() {
    what=$1 code=$2 part=$3; shift 3
    out=$("$@" 2>&1 >/dev/null); rc=$?
    check "$what: exit code" "$code" "$rc"
    case "$out" in *"$part"*) check "$what: message" 1 "$(echo "$out" | wc -l)" ;;
        *) check "$what: message names it" "$part" "$out" ;; esac
}
# busybox_image NAME COMMAND...: imports image NAME, a static busybox in
# $work/img with those commands linked to it.
busybox_image() {
    name=$1; shift
    mkdir -p "$work/img/bin" "$work/img/tmp"
    cp /bin/busybox "$work/img/bin/busybox"
    for c in "$@"; do ln -sf busybox "$work/img/bin/$c"; done
    "$danaus" image import "$name" "$work/img" >/dev/null
}
# pm ARGS...: podman with storage of its own under $work (the host's
# images and containers are not touched), danaus-runtime ($runtime) given
# the test's state directory as podman's users give it (--runtime-flag).
pm() {
    podman --root "$work/storage" --runroot "$work/run" \
        --storage-driver overlay --runtime "$runtime" \
        --runtime-flag "danaus-state=$DANAUS_STATE" "$@"
}
# remove_containers_and_pools: what the test made with $danaus.
remove_containers_and_pools() {
    for c in $(ls "$DANAUS_STATE/containers" 2>/dev/null); do "$danaus" rm -f "$c"; done
    for p in $(ls "$DANAUS_STATE/pools" 2>/dev/null); do "$danaus" pool rm "$p"; done
}
# kill_keeper POOL: kill -9 of the pool's keeper and its danausd at once,
# the danausd stopped first (or the keeper restarts it, or is replaced).
kill_keeper() {
    keeper=$(sed -n 's/^pid=//p' "$DANAUS_STATE/pools/$1/pool")
    kill -STOP $(pgrep -P "$keeper")
    kill -9 "$keeper" $(pgrep -P "$keeper")
}
# cpu_group_of PID: the process's group in the v1 cpu hierarchy (the
# "cpu" or "cpu,cpuacct" line of /proc/PID/cgroup); empty on v2.
cpu_group_of() {
    awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' "/proc/$1/cgroup"
}
# kill_danausd_thrice PIDFILE: kill -9 of the danausd whose pid PIDFILE
# holds, three times 0.7 s apart, each time waiting for the keeper's next
# danausd to write its own there.
kill_danausd_thrice() {
    for k in 1 2 3; do
        sleep 0.7
        victim=$(cat "$1")
        kill -9 "$victim"
        tries=0
        while [ "$(cat "$1")" = "$victim" ] && [ $tries -lt 100 ]; do
            tries=$((tries + 1)); sleep 0.1; done
    done
}
