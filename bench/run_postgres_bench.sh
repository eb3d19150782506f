#!/bin/sh
# run_postgres_bench.sh -- the cost of a move on PostgreSQL beside SQLite.
#
#   bench/run_postgres_bench.sh BUILD_DIR [--duration SECONDS] [--rooms N]
#
# BUILD_DIR holds tessera and tessera-load (a Release build). Each run
# starts its own servers, Duo as fast as they allow: on a fresh SQLite
# file; on a database of a throw-away PostgreSQL server
# (tests/tools/pg_cluster.sh, default settings but fsync off: this is not
# the disk's benchmark) as a lone server, as one instance (--instance a:
# its rooms' leases written and renewed), and as two instances at once
# (a and b, half of the rooms each, each driven by its own tessera-load). What a 2-core machine can measure where
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

# load DB ROOMS OUT [SERVER_ARG...]: a Duo run of ROOMS rooms on its own
# tessera serving DB (with SERVER_ARGs), its report into OUT.
load() {
    db=$1
    games=$2
    out=$3
    shift 3
    server_args=
    for argument in "$@"; do server_args="$server_args --server-arg $argument"; done
    echo "== tessera-load --db $db --mode duo --games $games --duration $duration$server_args" >&2
    # shellcheck disable=SC2086 # each --server-arg ARG is two words
    "$build/tessera-load" --tessera "$build/tessera" --db "$db" --mode duo --games "$games" \
        --duration "$duration" $server_args >"$out"
    cat "$out" >&2
}

# record NAME TICKS OUT...: the RESULT lines of the runs in OUT... summed
# under NAME (moves and seconds added, tessera's CPU per move weighted by
# moves), with the PostgreSQL server's TICKS over the runs.
record() {
    name=$1
    ticks=$2
    shift 2
    cat "$@" | awk -v name="$name" -v ticks="$ticks" '
        /^RESULT / {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            runs++; moves += v["moves"]; rate += v["moves_per_s"]; seconds = v["seconds"]
            cpu += v["server_cpu_us_per_move"] * v["moves"]
            if (v["p50_us"] > p50) p50 = v["p50_us"]
        }
        END {
            printf "%s runs=%d moves=%d moves_per_s=%.0f seconds=%s p50_us=%d", name, runs, moves,
                rate, seconds, p50
            printf " server_cpu_us_per_move=%.1f postgres_ticks=%d\n", moves ? cpu / moves : 0, ticks
        }' >>"$results"
}

# settled: waits (5 s at most) until the cluster has no more processes
# than BASE, so the backends of the run's connections have ended and been
# reaped -- their time is then in the postmaster's, not lost between.
settled() {
    pid=$(head -n 1 "$cluster/data/postmaster.pid")
    for _ in $(seq 50); do
        [ "$(pgrep -P "$pid" | wc -l)" -le "$base" ] && return
        sleep 0.1
    done
}
base=$(pgrep -P "$(head -n 1 "$cluster/data/postmaster.pid")" | wc -l)

# run NAME DB [SERVER_ARG...]: one instance serving every room.
run() {
    name=$1
    db=$2
    shift 2
    before=$(postgres_ticks)
    load "$db" "$rooms" "$work/$name.out" "$@"
    settled
    record "$name" $(($(postgres_ticks) - before)) "$work/$name.out"
}

# run_pair NAME: instances a and b on the PostgreSQL database at once, half
# of the rooms each.
run_pair() {
    name=$1
    before=$(postgres_ticks)
    load "$url" $((rooms / 2)) "$work/$name-a.out" --instance a &
    first=$!
    load "$url" $((rooms - rooms / 2)) "$work/$name-b.out" --instance b
    wait "$first"
    settled
    record "$name" $(($(postgres_ticks) - before)) "$work/$name-a.out" "$work/$name-b.out"
}

run sqlite "$work/bench.db"
run postgres "$url"
run postgres1 "$url" --instance a
run_pair postgres2

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
row postgres "PostgreSQL 15 (local socket), a lone server" "$(postgres_us postgres)"
row postgres1 "PostgreSQL 15, 1 instance (leases)" "$(postgres_us postgres1)"
row postgres2 "PostgreSQL 15, 2 instances" "$(postgres_us postgres2)"
echo
awk -v p="$(field postgres server_cpu_us_per_move)" -v s="$(field sqlite server_cpu_us_per_move)" \
    'BEGIN { printf "- tessera CPU per move, PostgreSQL / SQLite: %.2f (goal ≤ 1.25).\n", p / s }'
# total NAME: tessera's and PostgreSQL's CPU µs per move together.
total() {
    awk -v t="$(field "$1" server_cpu_us_per_move)" -v p="$(postgres_us "$1")" \
        'BEGIN { printf "%.1f", t + p }'
}
awk -v two="$(total postgres2)" -v one="$(total postgres1)" 'BEGIN {
    printf "- total CPU per move (tessera + PostgreSQL), 2 instances / 1: %.1f / %.1f = %.2f", two, one, two / one
    printf " (goal ≤ 1.1).\n" }'
