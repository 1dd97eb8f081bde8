#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb into a temporary directory, listening
# only on 127.0.0.1 on a free port, trust authentication, no durability (fsync off).
#
#   scripts/pg-test-cluster.sh start DIR     creates the cluster in DIR (new or empty), prints its URL
#   scripts/pg-test-cluster.sh stop DIR      stops it and removes DIR
#   scripts/pg-test-cluster.sh pause DIR     stops the server at once (a crash: pg_ctl stop -m
#                                            immediate), keeping DIR
#   scripts/pg-test-cluster.sh resume DIR    starts a paused server again on the same port
#   scripts/pg-test-cluster.sh run CMD...    starts one in a temporary directory, runs CMD with
#                                            HERALD_TEST_POSTGRES_URL set, then stops and removes
#                                            it (also when CMD fails or is interrupted); exits as CMD
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user.
set -euo pipefail

pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$dir" ]; then echo "$dir"; else dirname "$(command -v pg_ctl)"; fi
}

BIN=$(pg_bin)
if [ "$(id -u)" -eq 0 ]; then
    OWNER=postgres
    as_owner() { runuser -u "$OWNER" -- "$@"; }
else
    OWNER=$(id -un)
    as_owner() { "$@"; }
fi

port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
    local dir=$1
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown "$OWNER" "$dir"
    as_owner "$BIN/initdb" --pgdata="$dir/data" --username="$OWNER" --auth=trust --encoding=UTF8 \
        --locale=C --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
    local attempt port
    for attempt in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 40000))
        port_is_free "$port" || continue
        if launch "$dir" "$port"; then
            echo "$port" >"$dir/port"
            echo "postgres://$OWNER@127.0.0.1:$port/postgres"
            return 0
        fi
    done
    cat "$dir/server.log" >&2
    return 1
}

launch() {
    local dir=$1 port=$2
    as_owner "$BIN/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --silent start \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='' -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
}

pause() {
    as_owner "$BIN/pg_ctl" --pgdata="$1/data" --mode=immediate --wait --silent stop
}

resume() {
    launch "$1" "$(cat "$1/port")" || { cat "$1/server.log" >&2; return 1; }
}

stop() {
    local dir=$1
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$BIN/pg_ctl" --pgdata="$dir/data" --mode=immediate --wait --silent stop || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
    start) start "${2:?usage: $0 start DIR}" ;;
    stop) stop "${2:?usage: $0 stop DIR}" ;;
    pause) pause "${2:?usage: $0 pause DIR}" ;;
    resume) resume "${2:?usage: $0 resume DIR}" ;;
    run)
        shift
        dir=$(mktemp -d /tmp/herald-pg-XXXXXX)
        trap 'stop "$dir"' EXIT
        trap 'exit 130' INT TERM
        url=$(start "$dir")
        echo "test PostgreSQL cluster: $url" >&2
        status=0
        HERALD_TEST_POSTGRES_URL=$url "$@" || status=$?
        exit "$status"
        ;;
    *)
        echo "usage: $0 start DIR | stop DIR | pause DIR | resume DIR | run CMD..." >&2
        exit 2
        ;;
esac
