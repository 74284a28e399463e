#!/bin/sh
# bench/overhead.sh BUILD -- instrumented vs plain run time of
# bench/overhead.c (minimum CPU time of 7 runs each) at three granularities:
# functions (default mode), all loops, and every inner loop iteration
# (3.2e8 tiny regions, throttled by the default 100000,10 rule).
set -e
B=${1:-build}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/aa-overhead.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
# CPU time (user + sys) rather than wall time: the machine is shared, and
# the wall time of a 0.2 s run varies by +-50% with the load.
# The minimum of 7 runs: on a shared machine noise only ever adds time.
med() { # cmd... -> minimum CPU seconds of 7 runs
    for i in 1 2 3 4 5 6 7; do
        /usr/bin/time -f '%U %S' -o "$OUT/t" "$@" >/dev/null
        awk '{ print $1 + $2 }' "$OUT/t"
    done | sort -n | sed -n 1p
}
for mode in functions loops body; do
    n=8000; [ $mode = body ] && n=1000
    plain=$(med "$B/bench/overhead_plain" $mode $n)
    inst=$(AUTOANALYZER_OUTPUT="$OUT/$mode" AUTOANALYZER_COUNTERS=none med "$B/bench/overhead_inst" $mode $n)
    printf 'overhead %-9s plain %.2f s  instrumented %.2f s  overhead %+.1f%%\n' \
        "$mode" "$plain" "$inst" "$(echo "($inst - $plain) * 100 / $plain" | bc -l)"
done

# ---- the samples: plain vs instrumented by `autoanalyzer cc` (default
# mode), 4 MPI ranks, minimum wall time of 3 runs (the MPI libraries
# busy-poll, so CPU time would not show the overhead). ----
AA="$(cd "$B" && pwd)/bin/autoanalyzer"
if [ -x "$AA" ] && command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
    export OMPI_MCA_btl_vader_single_copy_mechanism=none TMPDIR="$OUT"
    wall() { # cmd... -> minimum wall seconds of 3 runs
        for i in 1 2 3; do
            /usr/bin/time -f '%e' -o "$OUT/t" "$@" >/dev/null 2>&1
            cat "$OUT/t"
        done | sort -n | sed -n 1p
    }
    for s in balanced imbalance hotspot cache io comm master_worker; do
        mpicc -O2 -std=c11 -o "$OUT/$s.plain" "samples/$s.c" 2>/dev/null || continue
        (cd "$OUT" && "$AA" cc mpicc -O2 -std=c11 -o "$OUT/$s.inst" "$OLDPWD/samples/$s.c") \
            >/dev/null 2>&1 || { echo "overhead sample $s: instrumentation failed"; continue; }
        plain=$(wall mpirun -np 4 "$OUT/$s.plain")
        inst=$(AUTOANALYZER_OUTPUT="$OUT/o-$s" AUTOANALYZER_COUNTERS=none wall mpirun -np 4 "$OUT/$s.inst")
        printf 'overhead sample %-13s plain %.2f s  instrumented %.2f s  overhead %+.1f%%\n' \
            "$s" "$plain" "$inst" "$(echo "($inst - $plain) * 100 / $plain" | bc -l)"
    done
fi
