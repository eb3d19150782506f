#!/bin/sh
# run.sh TARGET [SECONDS] -- fuzz one harness for real, for SECONDS (default 600).
#
# TARGET is a harness name: messages, reef_api, http_target, rest, moves, live or
# lobby (tests/fuzz/fuzz_TARGET.c). Configures the clang libFuzzer build in
# build-fuzz/ if there is none (ASan and UBSan on), builds fuzz_TARGET, then
# runs it on one core with a working corpus (build-fuzz/corpus-TARGET, seeded
# from tests/fuzz/corpus/TARGET) and the harness's dictionary. A crash is
# written to build-fuzz/artifacts-TARGET/; see tests/fuzz/README.md for what
# to do with it.
#
# With MERGE=1 in the environment, the inputs of the working corpus that
# reach code the committed corpus does not are then added to it
# (libFuzzer -merge=1), so the committed corpus stays small.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 TARGET [SECONDS]" >&2
    exit 2
fi
target=$1
seconds=${2:-600}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
corpus=$root/tests/fuzz/corpus/$target
if [ ! -f "$root/tests/fuzz/fuzz_$target.c" ]; then
    echo "$0: no harness tests/fuzz/fuzz_$target.c" >&2
    exit 2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang cmake -S "$root" -B "$build" -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=ON \
        -DCMAKE_BUILD_TYPE=Debug
fi
nice cmake --build "$build" -j2 --target "fuzz_$target"
work=$build/corpus-$target
artifacts=$build/artifacts-$target
mkdir -p "$work" "$artifacts" "$corpus"
cp -n "$corpus"/* "$work"/ 2>/dev/null || true
set -- -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/"
if [ -f "$root/tests/fuzz/$target.dict" ]; then
    set -- "$@" -dict="$root/tests/fuzz/$target.dict"
fi
cd "$build"
nice "$build/tests/fuzz_$target" "$@" "$work"
if [ "${MERGE:-0}" = 1 ]; then
    # adds to the committed corpus only the inputs that reach new coverage
    "$build/tests/fuzz_$target" -merge=1 -max_len=4096 "$corpus" "$work"
    echo "$corpus: $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KiB"
fi
