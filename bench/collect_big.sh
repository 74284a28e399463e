#!/bin/sh
# bench/collect_big.sh -- `collect` of a big run: P binary rank files of R
# regions x 18 metrics, as the runtime writes them (aa_synth --split
# --binary --whole: whole nanoseconds and counts, one file per rank),
# merged into one binary experiment with each thread count given (default
# "1 0": one thread, then one per CPU).  Prints for each: wall and CPU
# seconds (user + sys) and peak memory (/usr/bin/time), and checks that
# every count wrote the same bytes (cmp against the first).
#   sh bench/collect_big.sh [BUILD] [P] [R] [THREADS...]   (default build 16384 500 1 0)
# Target (issue 19): 16,384 rank files merged in under 10 s.
set -u
B=${1:-build}; P=${2:-16384}; R=${3:-500}
[ $# -gt 3 ] && shift 3 || set -- 1 0
AA="$B/bin/autoanalyzer"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/aa-collect-big.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/run"
"$B/tests/aa_synth" --scenario slow-group --procs "$P" --regions "$R" --whole --binary \
    --split "$TMP/run" >/dev/null || exit 1
echo "collect big: $P rank files x $R regions, $(du -sm "$TMP/run" | cut -f1) MB of rank files," \
    "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
first=
for t in "$@"; do
    if [ "$t" = 0 ]; then opt=; label="default threads"; else opt="--threads $t"; label="--threads $t"; fi
    /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$AA" collect "$TMP/run" -o "$TMP/out-$t.aab" \
        --no-program-maps $opt >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
    read -r e u s m < "$TMP/time"
    same=
    if [ -z "$first" ]; then first="$TMP/out-$t.aab"
    elif cmp -s "$first" "$TMP/out-$t.aab"; then same=", same bytes"
    else same=", DIFFERENT bytes"; fi
    echo "  collect $label: $e s wall, $(awk "BEGIN { printf \"%.2f\", $u + $s }") s CPU" \
        "($u user + $s sys), peak memory $((m / 1024)) MB, output $(du -k "$TMP/out-$t.aab" | cut -f1) KB$same"
done
