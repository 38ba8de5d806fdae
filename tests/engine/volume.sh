#!/bin/sh
# danaus volume create, ls, rm, inspect (issue 40): a pool's named
# volumes, made by create or by a run's first -v NAME:DIR, kept after
# their containers, and not removed while a container (running or not)
# names one. Usage: volume.sh DANAUS. Needs root, /dev/fuse,
# busybox-static.
set -u
danaus=$1
work=$(mktemp -d /tmp/danaus-volume-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
trap 'remove_containers_and_pools; rm -rf "$work"' EXIT

busybox_image bb sh cat echo sleep || exit 1
mkdir -p "$work/back" "$work/back2"
"$danaus" pool create p --cpus 0 --memory 256M --backend "local:$work/back" ||
    exit 1

check "a new pool has no volume" "" "$("$danaus" volume ls -q)"
check "create prints the volume's name" data "$("$danaus" volume create data)"
check "ls lists it with its pool and driver" "p local data" \
    "$("$danaus" volume ls | tail -n +2 | xargs)"
"$danaus" run --rm --pool p --image bb -v data:/d -- sh -c 'echo kept >/d/f'
check "what a container wrote in it outlives the container" kept \
    "$("$danaus" run --rm --pool p --image bb -v data:/d -- cat /d/f)"
"$danaus" run --rm --pool p --image bb -v auto:/a -- sh -c :
check "a run's first -v NAME:DIR makes one too" "auto data" \
    "$("$danaus" volume ls -q | xargs)"

"$danaus" run -d --pool p --image bb --name c -v data:/d -- sleep 1000 \
    >/dev/null
expect_error "rm refuses a volume a running container uses" 1 \
    "volume 'data' of pool p is in use by c" "$danaus" volume rm data
"$danaus" stop -t 0 c
expect_error "and one a stopped container uses" 1 "is in use by c" \
    "$danaus" volume rm data
check "inspect: docker's array, with the backend's directory and users" \
    "data local $work/back/volumes/data c" \
    "$("$danaus" volume inspect data | sed -n 's/.*"\(Name\|Driver\|Mountpoint\)": "\(.*\)",*/\2/p; s/^ *"\(c\)"$/\1/p' | xargs)"
"$danaus" rm c
check "rm removes it once no container names it" "data" \
    "$("$danaus" volume rm data)"
check "it is gone, in the list and in the backend" "auto no" \
    "$("$danaus" volume ls -q | xargs) $([ -e "$work/back/volumes/data" ] && echo yes || echo no)"

expect_error "rm of a volume that is not there" 1 "no volume 'nope' in pool p" \
    "$danaus" volume rm nope
expect_error "inspect of one that is not there" 1 "no volume 'nope'" \
    "$danaus" volume inspect nope
expect_error "a name that is not one" 1 "volume name '../x'" \
    "$danaus" volume create ../x
expect_error "a verb that is not one" 1 "volume: expected create" \
    "$danaus" volume frob

"$danaus" pool create q --cpus 1 --memory 256M --backend "local:$work/back2" ||
    exit 1
"$danaus" volume create --pool q other >/dev/null
check "ls without --pool lists every pool's" "p auto q other" \
    "$("$danaus" volume ls | tail -n +2 | awk '{print $1, $3}' | xargs)"
check "ls --pool lists one pool's" "other" \
    "$("$danaus" volume ls -q --pool q)"
expect_error "create needs --pool with two pools" 1 "needs --pool" \
    "$danaus" volume create x

# prune: every volume no container (running or not) names, after asking.
"$danaus" volume create --pool p kept >/dev/null
"$danaus" run -d --pool p --image bb --name c2 -v kept:/k -- sleep 1000 \
    >/dev/null
"$danaus" stop -t 0 c2
check "prune asks first: no answer removes nothing" "0 auto kept other" \
    "$(echo | "$danaus" volume prune >/dev/null 2>&1; echo $?) $("$danaus" volume ls -q | sort | xargs)"
check "prune --pool -f removes the pool's unused volumes, printing them" \
    auto "$("$danaus" volume prune --pool p -f)"
check "the one a stopped container names stays, and the other pool's" \
    "kept other no" \
    "$("$danaus" volume ls -q | sort | xargs) $([ -e "$work/back/volumes/auto" ] && echo yes || echo no)"
check "a yes prunes every pool's" other \
    "$(echo y | "$danaus" volume prune 2>/dev/null)"
"$danaus" rm c2
check "once its container is gone the last one goes too" "kept " \
    "$("$danaus" volume prune -f) $("$danaus" volume ls -q)"

[ "$failures" -eq 0 ]
