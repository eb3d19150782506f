#!/bin/sh
# Installs what is missing, builds, and runs every test twice: once in a
# normal optimised build and once under AddressSanitizer + UBSan.
# This is the README's test command; .ci/run calls exactly this.
set -eu
cd "$(dirname "$0")/.."

./deploy/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

run_suite() {
    build_dir=$1
    shift
    echo "== $build_dir: configure and build"
    cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    cmake --build "$build_dir" -j "$jobs"
    echo "== $build_dir: test"
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
}

run_suite build-test
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan -DTESSERA_SANITIZE=ON
