#!/bin/sh
# bench/space_big.sh -- the Program Space with a big run: stores two
# synthetic P x R x 18-metric runs (binary experiments written by aa_synth;
# the second without the slow group) with `space add` (compact storage, the
# analysis included), and prints for each: wall and CPU seconds and peak
# memory (/usr/bin/time), the database size, then the wall and CPU time of
# a query of a distribution metric, of a query of a focus, and of perfdiff
# between the two (with the number of differing foci, read from perfdiff's
# summary line).  It does so on SQLite (a temporary file) and, when the
# PostgreSQL server binaries are installed, on a throwaway PostgreSQL server
# (tests/space/pg.sh); BACKENDS="sqlite" or "postgresql" picks one.
#   sh bench/space_big.sh [BUILD] [P] [R]      (default build 16384 500)
# P must be above 64 (AA_SPACE_COMPACT_MIN): the distribution query needs
# compact storage.
# The values are as the runtime writes them (whole nanoseconds, whole
# counts: aa_synth --whole).  SPACE_ADD_OPTS is passed to space add (e.g.
# --no-analysis, to time the storage alone).
# Targets (issue 19): stored in < 30 s and < 2 GB, database < 500 MB,
# query and perfdiff < 1 s.
set -u
B=${1:-build}; P=${2:-16384}; R=${3:-500}; OPTS=${SPACE_ADD_OPTS:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BACKENDS=${BACKENDS:-sqlite postgresql}
AA="$B/bin/autoanalyzer"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/aa-space-big.XXXXXX")
PGDIR=
trap '[ -z "$PGDIR" ] || sh "$HERE/tests/space/pg.sh" stop "$PGDIR"; rm -rf "$TMP"' EXIT
"$B/tests/aa_synth" --scenario slow-group --procs "$P" --regions "$R" --whole --binary -o "$TMP/a.aab" >/dev/null
"$B/tests/aa_synth" --scenario none --procs "$P" --regions "$R" --whole --binary -o "$TMP/b.aab" >/dev/null
echo "space big: $P processes x $R regions, experiments $(du -m "$TMP/a.aab" | cut -f1) MB each (binary)${OPTS:+, space add $OPTS}"

# timed LABEL CMD...: runs CMD (stdout to $TMP/out) and prints
# "LABEL: W s wall, C s CPU"; the peak memory in KB is left in $mem.
timed()
{
    label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$@" >"$TMP/out" || { echo "  $label: failed"; exit 1; }
    read -r e u s mem < "$TMP/time"
    printf '  %s: %s s wall, %s s CPU' "$label" "$e" "$(awk "BEGIN { printf \"%.2f\", $u + $s }")"
}

run_backend()
{
    name=$1 db=$2 size=$3
    echo " $name:"
    for x in a b; do
        timed "space add $x" "$AA" space add $OPTS "$TMP/$x.aab" --db "$db"
        echo ", peak memory $((mem / 1024)) MB, database $($size) KB"
    done
    timed "query wall:median" "$AA" space query --metric wall:median --db "$db"; echo
    timed "query wall at /Code/synth.c/solve" "$AA" space query \
        --focus /Code/synth.c/solve --metric wall --db "$db"; echo
    timed "perfdiff 2 1 (wall, 5%)" "$AA" space perfdiff 2 1 --metric wall --threshold 5% --db "$db"
    echo ", $(sed -n 's/^performance difference.*: \([0-9]*\) of \([0-9]*\) common foci differ.*/\1 of \2 common foci differ/p' "$TMP/out")"
}

sqlite_size() { du -k "$TMP/s.db" | cut -f1; }
pg_size() { echo $(( $("$PGBIN/psql" -Atc "select pg_database_size(current_database())" "$AA_PG_URL") / 1024 )); }

case " $BACKENDS " in *" sqlite "*) run_backend sqlite "$TMP/s.db" sqlite_size ;; esac
case " $BACKENDS " in *" postgresql "*)
    if sh "$HERE/tests/space/pg.sh" bindir >/dev/null 2>&1; then
        eval "$(sh "$HERE/tests/space/pg.sh" start)"
        PGDIR=$AA_PG_DIR; PGBIN=$(sh "$HERE/tests/space/pg.sh" bindir)
        run_backend postgresql "$AA_PG_URL" pg_size
    else
        echo " postgresql: skipped (PostgreSQL server binaries not installed)"
    fi ;;
esac
