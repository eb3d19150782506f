#!/bin/sh
# Installs what is missing, builds tessera (Release) and starts it with its
# embedded defaults. This is the README's "run it" command. Extra arguments
# are passed to the program.
set -eu
cd "$(dirname "$0")/.."

./deploy/install-deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j "$(nproc 2>/dev/null || echo 2)"

# Until the server lands, the demo is a bot match: MCTS against three others.
if [ "$#" -eq 0 ]; then
    set -- selfplay --game blokus --mode 4p --bots mcts,greedy,greedy,random --games 1 --seed 1
fi
exec ./build-release/tessera "$@"
