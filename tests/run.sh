#!/bin/sh
# Every test: installs dependencies, builds, and runs the whole suite under
# ctest - unit tests, and integration tests on the local backend and on a
# real single-node Ceph cluster that the suite starts once and stops at the
# end (tests/integration/ceph_fixture.cmake) - then the same sources built
# the other ways CI checks:
#   - a Release build with hardening flags (compiled, not run again);
#   - a build without the Ceph backend (DANAUS_CEPH=OFF, as on a machine
#     without libcephfs-dev) running its unit tests and engine_no_ceph;
#   - AddressSanitizer + UndefinedBehaviorSanitizer running the unit tests,
#     the local-backend integration tests and the hostile clients against a
#     local-backend service (tests that preload libdanaus.so into
#     uninstrumented programs cannot run under ASan and are left out);
#   - ThreadSanitizer running the tests labelled `tsan` (ipc/, the
#     service's threaded tables, and the fairness tests of
#     tests/security against a TSan danausd), with tests/tsan.supp.
# Warnings are errors in every one of these builds (DANAUS_WERROR).
#
#   tests/run.sh [CTEST_ARGS...]   all of the above; CTEST_ARGS go to the
#                                  main suite's ctest
#   tests/run.sh --sanitize        only the sanitizer builds and their tests
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=$(nproc)

configure_and_build() { # DIR CMAKE_ARGS...
    dir=$1
    shift
    cmake -S "$top" -B "$dir" -DDANAUS_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
}

sanitizers() {
    echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
    configure_and_build "$build-asan" -DDANAUS_SANITIZE=address
    ctest --test-dir "$build-asan" --output-on-failure --timeout 300 \
        -L 'unit|integration|security' -LE 'ceph|preload'
    echo "== ThreadSanitizer"
    configure_and_build "$build-tsan" -DDANAUS_SANITIZE=thread
    TSAN_OPTIONS="suppressions=$top/tests/tsan.supp halt_on_error=1" \
        ctest --test-dir "$build-tsan" --output-on-failure --timeout 300 -L tsan
}

"$top/deploy/install-deps.sh"
if [ "${1:-}" = "--sanitize" ]; then
    sanitizers
    exit 0
fi

configure_and_build "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
ctest --test-dir "$build" --output-on-failure --timeout 900 "$@"

echo "== Release build with hardening flags"
configure_and_build "$build-release" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="-O2 -D_FORTIFY_SOURCE=3 -fstack-protector-strong"
echo "== Build without Ceph"
configure_and_build "$build-noceph" -DDANAUS_CEPH=OFF
ctest --test-dir "$build-noceph" --output-on-failure --timeout 300 \
    -R '^test_|^engine_no_ceph$'
sanitizers
