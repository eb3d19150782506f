#!/bin/sh
# Installs what is missing, builds, and runs every test twice: once in a
# normal optimised build (RelWithDebInfo, as shipped) and once in a Debug
# build under AddressSanitizer + UBSan, where asserts are compiled in.
# This is the README's test command; .ci/run calls exactly this.
set -eu
cd "$(dirname "$0")/.."

./deploy/install-deps.sh --tests
jobs=$(nproc 2>/dev/null || echo 2)

# The browser tests' npm packages, exactly as the committed lockfile pins
# them; reinstalled only when the lockfile changed since the last install.
if [ ! -f tests/web/node_modules/.package-lock.json ] ||
    [ tests/web/package-lock.json -nt tests/web/node_modules/.package-lock.json ]; then
    echo "== tests/web: npm ci"
    (cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
fi

run_suite() {
    build_dir=$1
    build_type=$2
    shift 2
    echo "== $build_dir ($build_type): configure and build"
    cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" "$@" >/dev/null
    cmake --build "$build_dir" -j "$jobs"
    echo "== $build_dir: test"
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
}

run_suite build-test RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan Debug -DTESSERA_SANITIZE=ON
