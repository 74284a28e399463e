#!/bin/sh
# bench/space_big.sh -- the Program Space with a big run: stores two
# synthetic P x R x 18-metric runs (binary experiments written by aa_synth;
# the second without the slow group) with `space add` (compact storage, the
# analysis included), and prints for each: wall and CPU seconds and peak
# memory (/usr/bin/time), the database size, then the time of a query of a
# distribution metric and of perfdiff between the two.
#   sh bench/space_big.sh [BUILD] [P] [R]      (default build 16384 500)
# The values are as the runtime writes them (whole nanoseconds, whole
# counts: aa_synth --whole).  SPACE_ADD_OPTS is passed to space add (e.g.
# --no-analysis, to time the storage alone).
# Targets (issue 19): stored in < 30 s and < 2 GB, database < 500 MB,
# query and perfdiff < 1 s.
set -u
B=${1:-build}; P=${2:-16384}; R=${3:-500}; OPTS=${SPACE_ADD_OPTS:-}
AA="$B/bin/autoanalyzer"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/aa-space-big.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$B/tests/aa_synth" --scenario slow-group --procs "$P" --regions "$R" --whole --binary -o "$TMP/a.aab" >/dev/null
"$B/tests/aa_synth" --scenario none --procs "$P" --regions "$R" --whole --binary -o "$TMP/b.aab" >/dev/null
echo "space big: $P processes x $R regions, experiments $(du -m "$TMP/a.aab" | cut -f1) MB each (binary)${OPTS:+, space add $OPTS}"
for x in a b; do
    /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$AA" space add $OPTS "$TMP/$x.aab" --db "$TMP/s.db" \
        >/dev/null || exit 1
    read -r e u s m < "$TMP/time"
    echo "  space add $x: $e s wall, $(echo "$u + $s" | bc) s CPU, peak memory $((m / 1024)) MB," \
        "database $(du -k "$TMP/s.db" | cut -f1) KB"
done
/usr/bin/time -f "%e" -o "$TMP/time" "$AA" space query --metric wall:median --db "$TMP/s.db" >/dev/null
echo "  query wall:median: $(cat "$TMP/time") s wall"
/usr/bin/time -f "%e" -o "$TMP/time" "$AA" space perfdiff 2 1 --metric wall --threshold 5% \
    --db "$TMP/s.db" >"$TMP/pd"
echo "  perfdiff 2 1 (wall, 5%): $(cat "$TMP/time") s wall, $(grep -c '^  <' "$TMP/pd") differing foci"
