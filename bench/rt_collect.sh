#!/bin/sh
# bench/rt_collect.sh -- rank 0's work at MPI_Finalize (AUTOANALYZER_COLLECT=
# mpi) for P ranks of R regions (synthetic slow-group run, whole ns as the
# runtime writes them; bench/rt_collect.c): merge every rank's pack and write
# experiment.xml or experiment.aab; CPU seconds (user + sys) and peak memory
# of that phase, the file's size; the packs held all at once (--all, the
# MPI_Gatherv before batching) or one batch at a time (the runtime now).
#   [ROUNDS=N] sh bench/rt_collect.sh [BUILD] [R] [P...]
#   (default build 500 8 64 256 1024 4096; ROUNDS interleaved rounds, default 1:
#   take the minimum of each line)
set -u
B=${1:-build}; R=${2:-500}
[ $# -gt 2 ] && shift 2 || set -- 8 64 256 1024 4096
BIN="$B/bench/rt_collect"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/aa-rt-collect.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
echo "rank 0 at MPI_Finalize: R=$R regions, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for p in "$@"; do
    "$BIN" gen "$p" "$R" "$TMP/packs" || exit 1
    for round in $(seq "${ROUNDS:-1}"); do
        for mode in "--all" ""; do
            for out in experiment.xml experiment.aab; do
                "$BIN" merge "$TMP/packs" "$TMP/$out" $mode || exit 1
            done
        done
    done
    # the two forms hold the same experiment
    "$B/bin/autoanalyzer" convert "$TMP/experiment.aab" "$TMP/back.xml" >/dev/null &&
        cmp -s "$TMP/back.xml" "$TMP/experiment.xml" && echo "  P $p: binary -> XML gives the XML's bytes" ||
        echo "  P $p: binary -> XML DIFFERS from the XML"
    rm -f "$TMP"/*.xml "$TMP"/*.aab
done
