#!/bin/sh
# pg_cluster.sh start|stop|halt|resume DIR -- a throw-away PostgreSQL
# cluster for the tests (ctest's fixture "postgres", tests/CMakeLists.txt,
# and the integration tests that stop their own server mid-game).
#
# The cluster lives in DIR/data and listens only on a Unix socket in DIR
# (port 5432 names the socket file; no TCP), with trust authentication for
# the user "postgres": the tests connect with
#   postgresql:///postgres?host=DIR&user=postgres
# and make a database of their own in it. PostgreSQL will not run as root,
# so as root the cluster belongs to the "postgres" user that Debian's
# postgresql-15 package creates. `start` removes what an earlier run left
# and makes a new cluster; `stop` stops it and removes it; `halt` stops
# the server and `resume` starts it again on the same data, as an
# operator's restart does.
set -eu
action=${1:-}
dir=${2:-}
usage() {
    echo "usage: $0 start|stop|halt|resume DIR" >&2
    exit 2
}
[ -n "$action" ] && [ -n "$dir" ] || usage

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/pg_ctl" ] || { echo "$0: no PostgreSQL server (install postgresql-15)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# fsync off: a test cluster need not survive a power cut, and the tests
# that stop the server mid-game stop it cleanly. PG_CLUSTER_OPTIONS, if
# set, adds server options (e.g. "-c shared_buffers=1GB" for a benchmark).
server_start() {
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -k $dir -p 5432 -c fsync=off -c max_connections=200 ${PG_CLUSTER_OPTIONS:-}" \
        start >/dev/null ||
        { cat "$dir/server.log" >&2; exit 1; }
}

case $action in
start)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$dir"
    fi
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    server_start
    ;;
resume)
    server_start
    ;;
halt)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
