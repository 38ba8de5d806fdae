#!/bin/sh
# Installs Danaus's dependencies (Debian packages) and builds it into
# $BUILD_DIR (default ./build). Used by deploy/demo.sh and tests/run.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/deploy/install-deps.sh"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
