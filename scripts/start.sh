#!/bin/sh
# Installs what is missing, builds tessera (Release) and starts it with its
# embedded defaults. This is the README's "run it" command. Extra arguments
# are passed to the program: a command and its options, or only options,
# which go to `serve`.
set -eu
cd "$(dirname "$0")/.."

./deploy/install-deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release --target tessera -j "$(nproc 2>/dev/null || echo 2)"

# With no arguments: the server on http://127.0.0.1:8080, database in ./data.
# Options without a command are the server's: `start.sh --port 9000` runs
# `tessera serve --port 9000` (--version alone is the binary's own).
case "${1:-}" in
    --version) ;;
    "" | -*) set -- serve "$@" ;;
esac
exec ./build-release/tessera "$@"
