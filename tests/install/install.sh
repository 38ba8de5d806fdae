#!/bin/sh
# install.sh BUILD_DIR SOURCE_DIR - what a packager gets from
# `cmake --install`: danausd, danaus, danaus-runtime, libdanaus.so,
# danaus.h (and not the internal wire.h) and danaus.pc land under the
# prefix, and the example program, built with nothing but `pkg-config
# --cflags --libs danaus`, runs against the installed danausd on the local
# backend. The manual pages render without a warning and name every verb
# of `danaus --help`; the systemd unit runs the installed danaus and
# passes systemd-analyze verify.
set -eu
build=$1 src=$2
work=$(mktemp -d /tmp/danaus-install.XXXXXX)
pid=
trap '[ -z "$pid" ] || kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libdanaus.so)")
for f in sbin/danausd bin/danaus bin/danaus-runtime include/danaus/danaus.h; do
    [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# The protocol between library and service changes with them: not a
# header for programs.
[ ! -e "$prefix/include/danaus/wire.h" ] || { echo "installed: wire.h"; exit 1; }

man=$prefix/share/man
for page in man1/danaus.1 man8/danausd.8 man8/danaus-runtime.8; do
    [ -e "$man/$page" ] || { echo "not installed: $page"; exit 1; }
    warnings=$(groff -man -ww -z -Tutf8 "$man/$page" 2>&1)
    [ -z "$warnings" ] || { echo "$page: $warnings"; exit 1; }
done
text=$(MANWIDTH=200 man -l "$man/man1/danaus.1" 2>/dev/null)
for verb in $("$prefix/bin/danaus" --help |
        grep -oE '(^  |\| )[a-z]+' | tr -d ' |' | sort -u); do
    echo "$text" | grep -qw -- "$verb" ||
        { echo "danaus.1 does not name the verb '$verb'"; exit 1; }
done
unit=$prefix/lib/systemd/system/danaus-pools.service
grep -qx "ExecStart=$prefix/bin/danaus pool ls" "$unit" ||
    { echo "the unit does not run the installed danaus"; exit 1; }
MANPATH=$man systemd-analyze verify "$unit" ||
    { echo "systemd-analyze verify refused the unit"; exit 1; }
echo "manual pages and the systemd unit installed"
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=$(pkg-config --cflags --libs danaus)
cc -o "$work/demo" "$src/examples/demo.c" $flags
echo "built with: cc demo.c $flags"

mkdir -p "$work/data" "$work/run"
printf 'service install-test\nrundir %s\nfuse off\nmount /mnt/danaus-install local %s\n' \
    "$work/run" "$work/data" >"$work/danausd.conf"
"$prefix/sbin/danausd" -c "$work/danausd.conf" 2>"$work/danausd.log" &
pid=$!
for _ in $(seq 100); do
    grep -q ready "$work/danausd.log" && break
    kill -0 $pid 2>/dev/null || { cat "$work/danausd.log"; exit 1; }
    sleep 0.1
done
LD_LIBRARY_PATH=$libdir DANAUS_SERVICE=install-test DANAUS_RUNDIR="$work/run" \
    "$work/demo" /mnt/danaus-install | tee "$work/demo.out"
grep -qx 'demo ok' "$work/demo.out"
echo "installed danausd served the pkg-config-built demo"
