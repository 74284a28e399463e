#!/bin/bash
# tests/e2e/space_pg.t -- the Program Space operator suite (tests/space/suite.sh)
# against the PostgreSQL backend: a real server started in a temporary
# directory by tests/space/pg.sh (unix socket only), stopped at the end.
# Skipped only when the PostgreSQL server binaries are not installed.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/space/suite.sh"
sh "$TOP/tests/space/pg.sh" bindir >/dev/null || skip_all "PostgreSQL server binaries (initdb, pg_ctl) not installed"
[ -x "$AA_BUILD/tests/space_mkexp" ] || skip_all "space_mkexp not built (make all)"

AA_PG_DIR=
if ! pgenv=$(sh "$TOP/tests/space/pg.sh" start 2>"$T/pg.err"); then
    _tap_result 1 "start a throwaway PostgreSQL server"
    sed 's/^/#   /' "$T/pg.err" | head -30
    done_testing
    exit 1
fi
eval "$pgenv"
trap 'sh "$TOP/tests/space/pg.sh" stop "$AA_PG_DIR"; rm -rf "$T"' EXIT

space_suite "$AA_PG_URL"

expect_status 4 "unreachable server exits 4" "$AA" space list --db "postgresql:///postgres?host=$T/nosuchdir&port=1"
like "$(cat "$T/.err")" 'cannot connect' "connection error message"
# The library-level tests (API, all-or-nothing) on this server too.
if [ -x "$AA_BUILD/tests/test_space" ]; then
    createdb_url="$AA_PG_URL"
    if AA_SPACE_PG_URL="$createdb_url" AA_SPACE_PG_ONLY=1 "$AA_BUILD/tests/test_space" > "$T/unit.out" 2>&1; then r=0; else r=1; fi
    is "$r" 0 "unit tests pass on PostgreSQL"
    [ "$r" = 0 ] || sed 's/^/#   /' "$T/unit.out" | grep -v '^#   ok' | head -30
fi
done_testing
