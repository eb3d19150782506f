#!/bin/sh
# run_server_bench.sh -- the server-under-load table, in one command.
#
#   bench/run_server_bench.sh BUILD_DIR [--duration SECONDS] [--rounds N] [--long]
#
# BUILD_DIR holds tessera, tessera-load and echo_server (a Release build:
# cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release && cmake --build
# build-release). Nothing is built here. Each scenario starts its own
# server on a free port with a fresh temporary database; tessera-load
# raises the server's rate, burst, connections-per-ip and max-rooms limits
# to 1000000 (the paced and idle scenarios need no more than that, the
# max-speed ones need it: 2 messages per move per seat is over the default
# 20/s). The full report of every run goes to stderr; the Markdown table
# goes to stdout at the end.
#
# Scenarios: Duo and 4p as fast as the server allows (50 rooms), the same
# clients against the bare lws echo server (same frames per move; see
# bench/echo_server.c), each pair N times in turn (default 3: the machine's
# speed drifts by a tenth within minutes, so the ratio of the pair is the
# figure, and the median of N the one to quote; the table shows the first),
# Duo paced at half the measured Duo rate (the p99 goal), one room with 0 and with 50 spectators, 10,000 idle signed-in
# connections. --long adds a 10-minute paced Duo run (finished rooms kept
# 60 s instead of 10 minutes) printing server RSS
# every minute (the RSS-flat goal).
set -eu

usage() {
    echo "usage: $0 BUILD_DIR [--duration SECONDS] [--rounds N] [--long]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
duration=10
rounds=3
long=no
while [ $# -gt 0 ]; do
    case $1 in
    --duration) [ $# -ge 2 ] || usage; duration=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || usage; rounds=$2; shift 2 ;;
    --long) long=yes; shift ;;
    *) usage ;;
    esac
done
for program in tessera tessera-load echo_server; do
    [ -x "$build/$program" ] || { echo "$0: no $build/$program (build it first)" >&2; exit 1; }
done

load="$build/tessera-load"
rooms=50
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# run NAME ARGS...: runs tessera-load, shows its report on stderr and keeps
# its RESULT line under NAME.
run() {
    name=$1
    shift
    echo "== $name: tessera-load $*" >&2
    output=$("$load" "$@")
    echo "$output" >&2
    echo "$output" | sed -n "s/^RESULT /$name /p" >>"$results"
}

# field NAME KEY: a value from NAME's RESULT line.
field() {
    sed -n "s/^$1 .*[ ]$2=\([^ ]*\).*/\1/p" "$results"
}

ms() {
    awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'
}

# pair MODE NAME: tessera then the echo server at max speed, as NAME and
# NAME_echo.
pair() {
    run "$2" --tessera "$build/tessera" --mode "$1" --games $rooms --duration "$duration"
    run "$2_echo" --echo-server "$build/echo_server" --mode "$1" --games $rooms \
        --duration "$duration" --echo-sizes "$(field "$2" sizes)"
}

# rounds_of NAME: the runs' names of NAME, one a round: NAME, NAME_2, ...
rounds_of() {
    echo "$1"
    round=2
    while [ $round -le "$rounds" ]; do
        echo "$1_$round"
        round=$((round + 1))
    done
}

for duo_run in $(rounds_of duo); do # not `name`: run() sets that
    pair duo "$duo_run"
    pair 4p "4p${duo_run#duo}"
done
half=$(awk -v rate="$(field duo moves_per_s)" 'BEGIN { printf "%d", rate / 2 }')
run duo_paced --tessera "$build/tessera" --mode duo --games $rooms --rate "$half" \
    --duration "$duration"
run room_alone --tessera "$build/tessera" --mode duo --games 1 --duration "$duration"
run room_watched --tessera "$build/tessera" --mode duo --games 1 --spectators 50 \
    --duration "$duration"
echo "== idle: tessera-load --idle 10000" >&2
idle=$("$load" --tessera "$build/tessera" --idle 10000)
echo "$idle" >&2
idle_bytes=$(echo "$idle" | sed -n 's/^RESULT .*bytes_per_connection=\([0-9]*\).*/\1/p')
idle_failed=$(echo "$idle" | sed -n 's/^RESULT .*failed=\([0-9]*\).*/\1/p')
if [ "$long" = yes ]; then
    # Finished rooms stay on display for --finished-room-ttl (10 minutes by
    # default, ~2.4 KB each), so RSS grows for that long by design; the long
    # run keeps them 60 s, so its ten minutes show whether RSS levels off.
    run long --tessera "$build/tessera" --mode duo --games $rooms --rate "$half" \
        --duration 600 --report-every 60 --server-arg --finished-room-ttl --server-arg 60
fi

# in_play NAME: the in-play CPU per move, measured with one room only.
in_play() {
    value=$(field "$1" in_play_cpu_us_per_move)
    [ "$value" = 0.0 ] && value="—"
    echo "$value"
}

# row NAME LABEL GOAL: one table row from NAME's RESULT line.
row() {
    printf '| %s | %s | %s / %s / %s | %s | %s | %s | %s%% / %s%% | %s → %s (max %s) | %s |\n' \
        "$2" "$(field "$1" moves_per_s)" "$(ms "$(field "$1" p50_us)")" \
        "$(ms "$(field "$1" p95_us)")" "$(ms "$(field "$1" p99_us)")" \
        "$(field "$1" server_cpu_us_per_move)" "$(in_play "$1")" \
        "$(field "$1" client_cpu_us_per_move)" "$(field "$1" server_cpu_percent)" \
        "$(field "$1" client_cpu_percent)" "$(field "$1" rss_start_kib)" \
        "$(field "$1" rss_end_kib)" "$(field "$1" rss_max_kib)" "$3"
}

ratio() {
    awk -v a="$(field "$1" moves_per_s)" -v b="$(field "$2" moves_per_s)" \
        'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}

# ratios NAME: each round's tessera / echo ratio, and their median.
ratios() {
    list=$(for each in $(rounds_of "$1"); do
        ratio "$each" "${each}_echo"
        echo
    done)
    median=$(echo "$list" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "$(echo "$list" | paste -sd, - | sed 's/,/, /g') (median $median)"
}

echo
echo "Server under load, $(date -u +%Y-%m-%d), $(nproc) cores, ${duration} s per run" \
    "after 1 s warm-up; $rooms rooms unless said; first legal move every turn."
echo
echo "| scenario | moves/s | round trip p50 / p95 / p99 (ms) | server CPU µs/move |" \
    "in play µs/move | load generator CPU µs/move | CPU % server / load generator |" \
    "server RSS KiB start → end (max) | goal |"
echo "|---|---|---|---|---|---|---|---|---|"
row duo "Duo, max speed" "≥ 8,000 moves/s, ≤ 125 µs/move"
row duo_echo "Duo pattern, echo server" "—"
row 4p "4p, max speed" "≥ 6,000 moves/s"
row 4p_echo "4p pattern, echo server" "—"
row duo_paced "Duo, paced at half the Duo rate" "p99 < 10 ms"
row room_alone "1 Duo room, no spectators" "—"
row room_watched "1 Duo room, 50 spectators" "≈ the row above per move"
if [ "$long" = yes ]; then
    row long "Duo paced, 10 minutes" "RSS flat"
fi
echo
echo "- tessera / echo server moves/s, each round: Duo $(ratios duo); 4p $(ratios 4p)."
echo "- Idle: 10,000 signed-in connections cost ${idle_bytes} bytes of server RSS each" \
    "(${idle_failed} failed); goal ≤ 8 KB."
echo "- CPU %: of one core, over the measured window. A server under 100% in a max-speed row" \
    "was not saturated: look for other load on the machine."
echo "- \"in play\": one room only, server CPU from each game's first state to its game.over" \
    "(leaves out the room setup, where each join is broadcast to every member)."
