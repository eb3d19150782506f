#!/bin/sh
# run_history_bench.sh -- the history API benchmark, in one command.
#
#   bench/run_history_bench.sh BUILD_DIR [--games N] [--compare-games M]
#       [--players P] [--compare-players Q] [--duration SECONDS] [--rate REQUESTS_PER_S]
#       [--rooms R] [--moves MOVES_PER_S] [--data DIR] [--fresh] [--no-build]
#       [--postgres [--shared-buffers SIZE]]
#
# Builds tessera, tessera-load and gen_history_db in BUILD_DIR (a Release
# or RelWithDebInfo build; --no-build skips it), then for N games (default
# 100000) among P players (default 10000) and M games (default 10000)
# among Q players (default P; with Q = P * M / N each player has played
# as many games in both, so the answers about a player are as long and
# only the number of games differs):
#   1. generates the database with gen_history_db into DIR (default
#      BUILD_DIR/history-bench), unless it is there already (--fresh: make
#      it again), and checks every game with `tessera replay verify`;
#   2. copies it, so every run starts from the same database (the live
#      games of a run add to the copy only);
#      With --postgres the copy is a database of a throw-away PostgreSQL
#      server instead (tests/tools/pg_cluster.sh: default settings, fsync
#      off, and shared_buffers SIZE if given: PostgreSQL's 128 MB holds
#      a tenth of 100,000 games, where SQLite has the OS's whole page
#      cache), filled by `tessera migrate` then VACUUM ANALYZE and a
#      CHECKPOINT, as an operator moving to PostgreSQL would, and read
#      once whole (pg_prewarm), as a server long in use would be;
#   3. runs tessera-load on the copy: a real `tessera serve --db COPY
#      --port 0`, R live Duo rooms (default 50) paced at MOVES moves/s in
#      all (default 200), and the history routes at REQUESTS_PER_S
#      (default 200) for SECONDS (default 60) after a second of warm-up.
# The full reports go to stderr; a Markdown table of p50 / p99 / max per
# route for both sizes goes to stdout, and the exit status is 1 if any
# request failed or went unanswered, or a live game saw an error.
set -eu

usage() {
    echo "usage: $0 BUILD_DIR [--games N] [--compare-games M] [--players P] [--compare-players Q]" \
        "[--duration SECONDS] [--rate REQUESTS_PER_S] [--rooms R] [--moves MOVES_PER_S]" \
        "[--data DIR] [--fresh] [--no-build] [--postgres [--shared-buffers SIZE]]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
games=100000
compare=10000
players=10000
compare_players=
duration=60
rate=200
rooms=50
moves=200
data=
fresh=no
build_first=yes
postgres=no
shared_buffers=
while [ $# -gt 0 ]; do
    case $1 in
    --games) [ $# -ge 2 ] || usage; games=$2; shift 2 ;;
    --compare-games) [ $# -ge 2 ] || usage; compare=$2; shift 2 ;;
    --players) [ $# -ge 2 ] || usage; players=$2; shift 2 ;;
    --compare-players) [ $# -ge 2 ] || usage; compare_players=$2; shift 2 ;;
    --duration) [ $# -ge 2 ] || usage; duration=$2; shift 2 ;;
    --rate) [ $# -ge 2 ] || usage; rate=$2; shift 2 ;;
    --rooms) [ $# -ge 2 ] || usage; rooms=$2; shift 2 ;;
    --moves) [ $# -ge 2 ] || usage; moves=$2; shift 2 ;;
    --data) [ $# -ge 2 ] || usage; data=$2; shift 2 ;;
    --fresh) fresh=yes; shift ;;
    --no-build) build_first=no; shift ;;
    --postgres) postgres=yes; shift ;;
    --shared-buffers) [ $# -ge 2 ] || usage; shared_buffers=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ -n "$data" ] || data="$build/history-bench"
[ -n "$compare_players" ] || compare_players=$players

if [ "$build_first" = yes ]; then
    cmake --build "$build" -j2 --target tessera tessera-load gen_history_db >&2
fi
for program in tessera tessera-load gen_history_db; do
    [ -x "$build/$program" ] || { echo "$0: no $build/$program (build it first)" >&2; exit 1; }
done
mkdir -p "$data"
results=$(mktemp)
here=$(cd "$(dirname "$0")" && pwd)
cluster=
if [ "$postgres" = yes ]; then
    cluster=$(mktemp -d /tmp/tessera-history-pg-XXXXXX)
    chmod 755 "$cluster" # the postgres user reaches the socket through it
fi
trap 'rm -f "$results" "$data/run.db" "$data/run.db-wal" "$data/run.db-shm"
      if [ -n "$cluster" ]; then
          sh "$here/../tests/tools/pg_cluster.sh" stop "$cluster/pg" 2>/dev/null || true
          rm -rf "$cluster"
      fi' EXIT

# generate COUNT PLAYERS: the database of COUNT games among PLAYERS, made
# once (verified then).
generate() {
    db="$data/history-$1-$2.db"
    if [ "$fresh" = yes ] || [ ! -f "$db" ]; then
        rm -f "$db" "$db-wal" "$db-shm"
        echo "== gen_history_db --games $1 --players $2" >&2
        "$build/gen_history_db" --db "$db" --games "$1" --players "$2" >&2
        echo "== tessera replay verify" >&2
        "$build/tessera" replay verify --db "$db" | tail -1 >&2
    else
        echo "== reusing $db (--fresh makes it again)" >&2
    fi
}

# run COUNT PLAYERS: the live games and the history queries on a copy of
# that database; keeps the RESULT lines as "COUNT ...".
run() {
    generate "$1" "$2"
    rm -f "$data/run.db" "$data/run.db-wal" "$data/run.db-shm"
    db="$data/run.db"
    if [ "$postgres" = yes ]; then
        PG_CLUSTER_OPTIONS=${shared_buffers:+"-c shared_buffers=$shared_buffers"} \
            sh "$here/../tests/tools/pg_cluster.sh" start "$cluster/pg"
        db="postgresql:///postgres?host=$cluster/pg&user=postgres"
        echo "== tessera migrate into PostgreSQL, then VACUUM ANALYZE, CHECKPOINT, pg_prewarm" >&2
        "$build/tessera" migrate --from "$data/history-$1-$2.db" --to "$db" >&2
        psql -q "$db" -c "VACUUM ANALYZE" -c "CHECKPOINT" -c "CREATE EXTENSION pg_prewarm" \
            -c "SELECT count(pg_prewarm(c.oid)) FROM pg_class AS c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')" >&2
    else
        cp "$data/history-$1-$2.db" "$db"
    fi
    echo "== $1 games: tessera-load --games $rooms --rate $moves --history $rate" \
        "--duration $duration" >&2
    output=$("$build/tessera-load" --tessera "$build/tessera" --db "$db" \
        --games "$rooms" --rate "$moves" --history "$rate" --history-players "$2" \
        --duration "$duration")
    echo "$output" >&2
    echo "$output" | sed -n "s/^RESULT /$1 /p" >>"$results"
    if [ "$postgres" = yes ]; then
        sh "$here/../tests/tools/pg_cluster.sh" stop "$cluster/pg"
    fi
}

run "$games" "$players"
run "$compare" "$compare_players"

# field COUNT KIND ROUTE KEY: a value of COUNT's RESULT line of KIND for
# ROUTE ("-" for lines without a route).
field() {
    awk -v count="$1" -v kind="kind=$2" -v route="route=$3" -v key="$4" '
        $1 == count && $2 == kind && (route == "route=-" || $3 == route) {
            for (i = 3; i <= NF; i++)
                if (index($i, key "=") == 1)
                    print substr($i, length(key) + 2)
        }' "$results"
}

ms() {
    awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'
}

# figures COUNT ROUTE: "p50 / p99 / max | mean answer KB" of ROUTE on COUNT games.
figures() {
    printf '%s / %s / %s | %s' "$(ms "$(field "$1" history "$2" p50_us)")" \
        "$(ms "$(field "$1" history "$2" p99_us)")" "$(ms "$(field "$1" history "$2" max_us)")" \
        "$(awk -v bytes="$(field "$1" history "$2" mean_bytes)" 'BEGIN { printf "%.1f", bytes / 1000 }')"
}

echo
storage="a SQLite file"
[ "$postgres" = no ] || storage="PostgreSQL (fsync off, shared_buffers ${shared_buffers:-128MB})"
echo "History API on $storage, $(date -u +%Y-%m-%d), $(nproc) cores: $rate requests/s for" \
    "${duration} s" \
    "while $rooms Duo rooms play $moves moves/s; $players players ($compare_players for" \
    "$compare games)."
echo
echo "| route | $games games: p50 / p99 / max (ms) | answer KB | $compare games: p50 / p99 /" \
    "max (ms) | answer KB | answers ($games) | goal |"
echo "|---|---|---|---|---|---|---|"
for route in games "games?player" "games?tournament" game replay blksgf player board/blokus \
    board/reef "board/reef?around" all; do
    printf '| %s | %s | %s | %s | p99 ≤ 5 ms |\n' "$route" "$(figures "$games" "$route")" \
        "$(figures "$compare" "$route")" "$(field "$games" history "$route" answers)"
done
echo
for count in "$games" "$compare"; do
    echo "- $count games: latency from each request's due time, p99 $(ms "$(field "$count" \
        history all due_p99_us)") ms (the load generator sent requests late by p99" \
        "$(ms "$(field "$count" history_run - send_lag_p99_us)") ms); live Duo moves round trip" \
        "p99 $(ms "$(field "$count" tessera - p99_us)") ms, server CPU" \
        "$(field "$count" tessera - server_cpu_percent)% of a core."
done

status=0
for count in "$games" "$compare"; do
    errors=$(field "$count" history all errors)
    unanswered=$(field "$count" history_run - unanswered)
    failed=$(field "$count" history_run - failed)
    game_errors=$(field "$count" tessera - errors)
    lost=$(field "$count" tessera - lost)
    if [ "${errors:-x}" != 0 ] || [ "${unanswered:-x}" != 0 ] || [ "${failed:-x}" != 0 ] ||
        [ "${game_errors:-x}" != 0 ] || [ "${lost:-x}" != 0 ]; then
        echo "$0: $count games: $errors failed and $unanswered unanswered requests," \
            "set-up failed=$failed, $game_errors game errors, $lost connections lost" >&2
        status=1
    fi
done
exit $status
