#!/bin/sh
# bench/overhead.sh BUILD -- instrumented vs plain run time of
# bench/overhead.c (median CPU time of 7 runs each) at three granularities:
# functions (default mode), all loops, and every inner loop iteration
# (3.2e8 tiny regions, throttled by the default 100000,10 rule).
set -e
B=${1:-build}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/aa-overhead.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
# CPU time (user + sys) rather than wall time: the machine is shared, and
# the wall time of a 0.2 s run varies by +-50% with the load.
med() { # cmd... -> median CPU seconds of 7 runs
    for i in 1 2 3 4 5 6 7; do
        /usr/bin/time -f '%U %S' -o "$OUT/t" "$@" >/dev/null
        awk '{ print $1 + $2 }' "$OUT/t"
    done | sort -n | sed -n 4p
}
for mode in functions loops body; do
    n=8000; [ $mode = body ] && n=1000
    plain=$(med "$B/bench/overhead_plain" $mode $n)
    inst=$(AUTOANALYZER_OUTPUT="$OUT/$mode" AUTOANALYZER_COUNTERS=none med "$B/bench/overhead_inst" $mode $n)
    printf 'overhead %-9s plain %.2f s  instrumented %.2f s  overhead %+.1f%%\n' \
        "$mode" "$plain" "$inst" "$(echo "($inst - $plain) * 100 / $plain" | bc -l)"
done
