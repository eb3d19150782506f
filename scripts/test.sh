#!/bin/sh
# Installs what is missing, builds, and runs every test twice: once in a
# normal optimised build (RelWithDebInfo, as shipped) and once in a Debug
# build under AddressSanitizer + UBSan, where asserts are compiled in; then
# the live-server fuzzer's coverage-guided pass in a clang build.
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

# The live-server fuzzer's coverage-guided pass (tests/fuzz/fuzz_live.c):
# libFuzzer needs clang, so a third build, of that harness only, runs it
# for 90 s under ASan and UBSan beside the replay of its corpus.
echo "== build-fuzz (clang, libFuzzer, ASan/UBSan): the live server, fuzzed"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DTESSERA_FUZZ=ON \
    -DTESSERA_SANITIZE=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_live fuzz_replay_live
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-fuzz --output-on-failure -R '^fuzz_(corpus_live|live_bounded)$'
