#!/bin/sh
# tests/space/pg.sh -- a throwaway PostgreSQL server for the Program Space
# tests: initdb in a fresh temporary directory, listening on a unix socket
# in that directory only (no TCP), trust authentication.  As root the server
# runs as the `postgres` user (initdb/postgres refuse to run as root).
#
#   sh tests/space/pg.sh bindir          prints the PostgreSQL bin dir or fails
#   sh tests/space/pg.sh start           prints AA_PG_DIR=... and AA_PG_URL=... (eval it)
#   sh tests/space/pg.sh stop DIR        stops the server and removes DIR
set -u

pg_bindir() {
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    done
    for d in $(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)"); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    done
    return 1
}

as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "${1:-}" in
bindir)
    pg_bindir
    ;;
start)
    BIN=$(pg_bindir) || { echo "pg.sh: PostgreSQL binaries not found" >&2; exit 1; }
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/aa-pg.XXXXXX") || exit 1
    chmod 755 "$DIR"
    if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$DIR" 2>/dev/null; then
        # $TMPDIR is private to root: the server could not reach its files.
        rm -rf "$DIR"
        DIR=$(mktemp -d /tmp/aa-pg.XXXXXX) || exit 1
        chmod 755 "$DIR"
    fi
    mkdir "$DIR/data" "$DIR/sock"
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || { echo "pg.sh: no postgres user" >&2; rm -rf "$DIR"; exit 1; }
        chown postgres "$DIR/data" "$DIR/sock"
    fi
    # A port number only names the socket file; pick one from the pid.
    PORT=$(( 20000 + ($$ % 20000) ))
    if ! as_pg "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-sync \
            -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1; then
        echo "pg.sh: initdb failed:" >&2; cat "$DIR/initdb.log" >&2; rm -rf "$DIR"; exit 1
    fi
    if ! as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/data/server.log" -w -t 60 \
            -o "-k $DIR/sock -p $PORT -c listen_addresses= -c fsync=off -c max_connections=40" \
            start >"$DIR/pg_ctl.log" 2>&1; then
        echo "pg.sh: server did not start:" >&2; cat "$DIR/data/server.log" >&2
        rm -rf "$DIR"; exit 1
    fi
    echo "AA_PG_DIR='$DIR'"
    echo "AA_PG_URL='postgresql:///postgres?host=$DIR/sock&port=$PORT&user=postgres'"
    ;;
stop)
    DIR=${2:?usage: pg.sh stop DIR}
    BIN=$(pg_bindir) || exit 1
    [ -d "$DIR/data" ] && as_pg "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$DIR"
    ;;
*)
    echo "usage: pg.sh bindir | start | stop DIR" >&2
    exit 2
    ;;
esac
