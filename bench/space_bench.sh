#!/bin/sh
# bench/space_bench.sh -- runs the Program Space benchmark on SQLite (a
# temporary file) and on PostgreSQL (a throwaway server from
# tests/space/pg.sh, when the binaries are installed).
#   sh bench/space_bench.sh build/bench/space_bench [P R]
set -u
BENCH=${1:?usage: space_bench.sh BENCH [P R]}; shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/aa-space-bench.XXXXXX")
status=0
"$BENCH" "$TMP/bench.db" "$@" || status=1
if sh "$HERE/tests/space/pg.sh" bindir >/dev/null 2>&1; then
    eval "$(sh "$HERE/tests/space/pg.sh" start)"
    "$BENCH" "$AA_PG_URL" "$@" || status=1
    sh "$HERE/tests/space/pg.sh" stop "$AA_PG_DIR"
else
    echo "space bench [postgresql] skipped: PostgreSQL binaries not installed"
fi
rm -rf "$TMP"
exit $status
