#!/bin/sh
# run_postgres_bench.sh -- the cost of a move on PostgreSQL beside SQLite.
#
#   bench/run_postgres_bench.sh BUILD_DIR [--duration SECONDS] [--rooms N]
#
# BUILD_DIR holds tessera and tessera-load (a Release build). Each run
# starts its own server: once on a fresh SQLite file, once on a fresh
# database of a throw-away PostgreSQL server (tests/tools/pg_cluster.sh,
# default settings but fsync off: this is not the disk's benchmark), Duo
# as fast as the server allows. What a 2-core machine can measure where
# raw throughput cannot: CPU per move, of tessera (from /proc, as
# tessera-load reports it) and of the PostgreSQL server's processes (the
# postgres user's CPU time over the run, read from /proc/PID/stat).
# The full reports go to stderr; a Markdown table to stdout at the end.
set -eu

usage() {
    echo "usage: $0 BUILD_DIR [--duration SECONDS] [--rooms N]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
duration=10
rooms=50
while [ $# -gt 0 ]; do
    case $1 in
    --duration) [ $# -ge 2 ] || usage; duration=$2; shift 2 ;;
    --rooms) [ $# -ge 2 ] || usage; rooms=$2; shift 2 ;;
    *) usage ;;
    esac
done
for program in tessera tessera-load; do
    [ -x "$build/$program" ] || { echo "$0: no $build/$program (build it first)" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/tessera-pg-bench-XXXXXX)
chmod 755 "$work" # the postgres user reaches the socket through it
cluster="$work/pg"
results="$work/results"
trap 'sh "$here/../tests/tools/pg_cluster.sh" stop "$cluster" 2>/dev/null || true; rm -rf "$work"' EXIT
sh "$here/../tests/tools/pg_cluster.sh" start "$cluster"
url="postgresql:///postgres?host=$cluster&user=postgres"

# postgres_ticks: the CPU time (user + system, clock ticks) of every
# process of the cluster: the postmaster with its children that ended (a
# connection's backend ends with the connection), and those alive.
postgres_ticks() {
    pid=$(head -n 1 "$cluster/data/postmaster.pid")
    {
        awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat"
        for task in $(pgrep -P "$pid"); do
            awk '{ print $14 + $15 }' "/proc/$task/stat" 2>/dev/null || true
        done
    } | awk '{ sum += $1 } END { print sum + 0 }'
}

# run NAME DB: a Duo run on DB; its RESULT line under NAME, and the
# PostgreSQL server's ticks over the run.
run() {
    name=$1
    db=$2
    before=$(postgres_ticks)
    echo "== $name: tessera-load --db $db --mode duo --games $rooms --duration $duration" >&2
    output=$("$build/tessera-load" --tessera "$build/tessera" --db "$db" --mode duo \
        --games "$rooms" --duration "$duration")
    after=$(postgres_ticks)
    echo "$output" >&2
    echo "$output" | sed -n "s/^RESULT \(.*\)/$name \1 postgres_ticks=$((after - before))/p" \
        >>"$results"
}

run sqlite "$work/bench.db"
run postgres "$url"

field() {
    sed -n "s/^$1 .*[ ]$2=\([^ ]*\).*/\1/p" "$results"
}

# postgres_us NAME: the PostgreSQL server's CPU µs per move over NAME's run
# (its ticks over the whole run, warm-up included, per measured move).
postgres_us() {
    awk -v ticks="$(field "$1" postgres_ticks)" -v hz="$(getconf CLK_TCK)" \
        -v moves="$(field "$1" moves)" -v seconds="$(field "$1" seconds)" \
        -v warm="$duration" 'BEGIN {
            if (moves == 0) { print "—"; exit }
            # the run is the warm-up second and the measured seconds
            printf "%.1f", ticks / hz * 1e6 / (moves * (seconds + 1) / seconds)
        }'
}

row() {
    printf '| %s | %s | %s | %s | %s |\n' "$2" "$(field "$1" moves_per_s)" \
        "$(awk -v us="$(field "$1" p50_us)" 'BEGIN { printf "%.2f", us / 1000 }')" \
        "$(field "$1" server_cpu_us_per_move)" "$3"
}

echo
echo "Moves on SQLite and PostgreSQL, $(date -u +%Y-%m-%d), $(nproc) cores, Duo, $rooms rooms," \
    "${duration} s per run after 1 s warm-up."
echo
echo "| database | moves/s | round trip p50 (ms) | tessera CPU µs/move | PostgreSQL CPU µs/move |"
echo "|---|---|---|---|---|"
row sqlite "SQLite (file)" "—"
row postgres "PostgreSQL 15 (local socket)" "$(postgres_us postgres)"
echo
awk -v p="$(field postgres server_cpu_us_per_move)" -v s="$(field sqlite server_cpu_us_per_move)" \
    'BEGIN { printf "- tessera CPU per move, PostgreSQL / SQLite: %.2f (goal ≤ 1.25).\n", p / s }'
