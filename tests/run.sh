#!/bin/sh
# Every test: installs dependencies, builds, and runs the whole suite under
# ctest - unit tests, and integration tests on the local backend and on a
# real single-node Ceph cluster that the suite starts once and stops at the
# end (tests/integration/ceph_fixture.cmake).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/deploy/build.sh"
ctest --test-dir "$build" --output-on-failure --timeout 900 "$@"
