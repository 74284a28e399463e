#!/bin/sh
# bench/overhead.sh BUILD -- measurement overhead of instrumented programs
# against the same programs built plainly (issue 14: "under 2% by default").
# Every comparison runs the variants interleaved (plain, instrumented,
# plain, ...; AA_OVH_RUNS rounds, default 5) so that the load of a shared
# machine hits both sides, and reports the median and min-max of each side
# and the overhead of the medians.  Three parts:
#   1. bench/overhead.c, hand-inserted probes at three granularities:
#      functions (default mode), all loops, and every inner iteration
#      (3.2e8 tiny regions, throttled by the default 100000,10 rule);
#      CPU time (user + sys) of the process.
#   2. bench/shapes/*.c, programs with the shapes that cost most in real
#      codes (tiny helpers called 1e7-1e8 times, tiny-trip-count loops),
#      built with mpicc and through the wrapper (`autoanalyzer cc mpicc`,
#      default mode); measured: the kernel's own wall time, which each
#      program prints as "kernel_s T" (MPI_Init of a singleton takes ~0.5 s
#      and would hide the kernel); the whole process's wall time is shown
#      as well.  With AA_OVH_FILTER=1 and an `autoanalyzer filter --from`
#      that exists, a third variant is built with the filter derived from
#      one default-mode run (round 2 of the profile-guided workflow).
#   3. samples/*.c through the wrapper, 4 MPI ranks, wall time of mpirun.
# After the timed rounds, each instrumented variant of parts 2 and 3 runs
# once more untimed with throttling off (AUTOANALYZER_THROTTLE=off) to count
# the probe pairs it executes per process: "pairs" lines give that count
# and the overhead it predicts at AA_OVH_PROBE_NS ns per pair (default 20,
# the pair's cost on the development VM, bench/overhead.md) against the
# plain median -- a figure the load of a shared machine does not move.
# The last lines give the geometric mean of instrumented/plain over parts
# 2 and 3 for each variant, measured and predicted.  AA_OVH_PARTS selects parts (default "1 2 3");
# AA_OVH_KEEP=DIR keeps the built programs and logs in DIR; AA_OVH_PHASE=
# build only builds parts 2 and 3 into it, AA_OVH_PHASE=run only times the
# programs found there (built on another machine with the same OS and MPI;
# the runtime libraries then come from LD_LIBRARY_PATH), and AA_OVH_VARIANTS
# names the instrumented variants to time (NAME.VARIANT in AA_OVH_KEEP, e.g.
# "before default filter": two instrumenter versions against one plain run).
set -e
B=${1:-build}
RUNS=${AA_OVH_RUNS:-5}
PARTS=${AA_OVH_PARTS:-"1 2 3"}
PHASE=${AA_OVH_PHASE:-all}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$B" in /*) ;; *) B="$TOP/$B" ;; esac
AA="$B/bin/autoanalyzer"
if [ -n "${AA_OVH_KEEP:-}" ]; then OUT=$AA_OVH_KEEP; mkdir -p "$OUT"
else OUT=$(mktemp -d "${TMPDIR:-/tmp}/aa-overhead.XXXXXX"); trap 'rm -rf "$OUT"' EXIT; fi
OUT=$(cd "$OUT" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none
unset AUTOANALYZER_MODE AUTOANALYZER_FILTER AUTOANALYZER_DISABLE
: > "$OUT/geo"; : > "$OUT/geo.pred"; : > "$OUT/geo.thr"

# stats FILE -> "median min max" of the numbers in FILE
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }

# report NAME VARIANT PLAINFILE INSTFILE [WALLPLAIN WALLINST] [GEO]: one table row
report() {
    set -- "$@" "" "" ""
    p=$(stats "$3"); i=$(stats "$4"); w=""
    if [ -n "$5" ]; then
        w=$(echo "$(stats "$5") $(stats "$6")" | awk '{ printf "  wall %+6.1f%%", ($4 / $1 - 1) * 100 }')
    fi
    echo "$p $i" | awk -v n="$1" -v v="$2" -v w="$w" '{
        printf "overhead %-22s %-8s plain %8.4f [%.4f-%.4f]  inst %8.4f [%.4f-%.4f]  %+7.1f%%%s\n",
               n, v, $1, $2, $3, $4, $5, $6, ($4 / $1 - 1) * 100, w }'
    [ -z "$7" ] || echo "$p $i" | awk -v v="$2" '{ print v, $4 / $1 }' >> "$OUT/geo"
}

# pairs NAME VARIANT PLAINFILE EXPDIR cmd...: one untimed run of cmd with
# throttling off into EXPDIR; prints the probe pairs per process (visits of
# every region node but the root, summed, over the processes) and the
# overhead they predict against the plain median.  Then one more untimed
# run with the default throttling into EXPDIR.thr: the visits still timed
# there (the first value of every node) cost a pair each; the others were
# throttled (untimed), at AA_OVH_UNTIMED_NS_<variant> ns each (default
# AA_OVH_UNTIMED_NS, 0.3: a visit gated at the probe; a throttled visit
# through the runtime costs ~6 ns, bench/overhead.md): "throttled" lines.
PROBE_NS=${AA_OVH_PROBE_NS:-20}
pairs_count() { # EXPDIR -> "pairs-per-process"
    awk '/<experiment / { if (match($0, /nprocs="[0-9]+"/)) np = substr($0, RSTART + 8, RLENGTH - 9) + 0 }
        /<node / && !/region="0"/ { if (match($0, / v="[^ "]*/)) t += substr($0, RSTART + 4, RLENGTH - 4) }
        END { if (np < 1) np = 1; printf "%.0f\n", t / np }' "$1/experiment.xml"
}
pairs() {
    n=$1; v=$2; pf=$3; ed=$4; shift 4
    rm -rf "$ed" "$ed.thr"
    (cd "$OUT" && TMPDIR="$OUT" env AUTOANALYZER_OUTPUT="$ed" AUTOANALYZER_THROTTLE=off "$@" \
        >/dev/null 2>&1) || { echo "overhead $n: $v count run failed"; return 0; }
    [ -s "$ed/experiment.xml" ] || { echo "overhead $n: $v count run wrote no experiment"; return 0; }
    pm=$(stats "$pf" | cut -d' ' -f1)
    p=$(pairs_count "$ed")
    echo "$p" | awk -v n="$n" -v v="$v" -v pm="$pm" -v ns="$PROBE_NS" -v geo="$OUT/geo.pred" '
        { p = $1; o = pm > 0 ? p * ns * 1e-9 / pm : 0
          printf "pairs    %-22s %-8s %12.0f probe pairs per process  predicts %+7.1f%% at %s ns\n", n, v, p, o * 100, ns
          print v, 1 + o >> geo }'
    (cd "$OUT" && TMPDIR="$OUT" env AUTOANALYZER_OUTPUT="$ed.thr" "$@" >/dev/null 2>&1) &&
        [ -s "$ed.thr/experiment.xml" ] || { echo "overhead $n: $v throttled count run failed"; return 0; }
    eval "uns=\${AA_OVH_UNTIMED_NS_$v:-\${AA_OVH_UNTIMED_NS:-0.3}}"
    echo "$p $(pairs_count "$ed.thr")" | awk -v n="$n" -v v="$v" -v pm="$pm" -v ns="$PROBE_NS" \
        -v uns="$uns" -v geo="$OUT/geo.thr" '
        { u = $1 - $2; if (u < 0) u = 0; c = ($2 * ns + u * uns) * 1e-9; o = pm > 0 ? c / pm : 0
          printf "throttled %-21s %-8s %12.0f timed + %12.0f untimed per process  predicts %+7.1f%% at %s + %s ns\n", n, v, $2, u, o * 100, ns, uns
          print v, 1 + o >> geo }'
}

# ---- 1. hand-inserted probes (bench/overhead.c) -----------------------------
cpu() { # OUTFILE cmd... : appends CPU seconds of one run
    f=$1; shift
    /usr/bin/time -f '%U %S' -o "$OUT/t" "$@" >/dev/null
    awk '{ print $1 + $2 }' "$OUT/t" >> "$f"
}
[ "$PHASE" = all ] || PARTS=$(echo " $PARTS " | sed 's/ 1 / /')
case " $PARTS " in *" 1 "*)
echo "# part 1: bench/overhead.c, hand-inserted probes, CPU s, $RUNS interleaved runs each"
for mode in functions loops body; do
    n=8000; [ $mode = body ] && n=1000
    rm -f "$OUT/p1.p" "$OUT/p1.i"
    r=0; while [ $r -lt "$RUNS" ]; do r=$((r + 1))
        cpu "$OUT/p1.p" "$B/bench/overhead_plain" $mode $n
        AUTOANALYZER_OUTPUT="$OUT/exp-p1" AUTOANALYZER_COUNTERS=none cpu "$OUT/p1.i" "$B/bench/overhead_inst" $mode $n
    done
    report "overhead.c/$mode" probes "$OUT/p1.p" "$OUT/p1.i"
done ;; esac

# The wrapper and filter command.
have_aa=0; have_filter=0
if [ -x "$AA" ] && command -v mpicc >/dev/null && command -v mpirun >/dev/null; then have_aa=1; fi
[ "$PHASE" = run ] && command -v mpirun >/dev/null && have_aa=1
if [ "${AA_OVH_FILTER:-0}" = 1 ] && [ $have_aa = 1 ] && "$AA" filter --help 2>&1 | grep -q -- '--from'; then
    have_filter=1; fi

# build_variants SRC NAME [ARGS...]: NAME.plain, NAME.default (, NAME.filter)
build_variants() {
    src=$1; name=$2; shift 2
    if [ "$PHASE" = run ]; then # programs built earlier into AA_OVH_KEEP
        [ -x "$OUT/$name.plain" ] && [ -x "$OUT/$name.default" ] || return 1
        VARIANTS="default"; [ -x "$OUT/$name.filter" ] && VARIANTS="default filter"
        [ -z "${AA_OVH_VARIANTS:-}" ] || VARIANTS=$AA_OVH_VARIANTS
        return 0
    fi
    mpicc -O2 -std=c11 -o "$OUT/$name.plain" "$src" -lm 2>"$OUT/$name.plain.log" || return 1
    (cd "$OUT" && "$AA" cc mpicc -O2 -std=c11 -o "$OUT/$name.default" "$src" -lm) \
        >"$OUT/$name.default.log" 2>&1 || { echo "overhead $name: instrumentation failed (see $OUT/$name.default.log)"; return 1; }
    VARIANTS="default"
    if [ $have_filter = 1 ]; then
        rm -rf "$OUT/exp-f-$name"
        AUTOANALYZER_OUTPUT="$OUT/exp-f-$name" "$@" >/dev/null 2>&1 || true
        # the run directory, else the experiment collected from it
        if { "$AA" filter --from "$OUT/exp-f-$name" -o "$OUT/$name.filt" ||
             { "$AA" collect "$OUT/exp-f-$name" -o "$OUT/exp-f-$name.xml" &&
               "$AA" filter --from "$OUT/exp-f-$name.xml" -o "$OUT/$name.filt"; }; } >"$OUT/$name.filter.log" 2>&1 &&
           (cd "$OUT" && AUTOANALYZER_FILTER="$OUT/$name.filt" "$AA" cc mpicc -O2 -std=c11 \
                -o "$OUT/$name.filter" "$src" -lm) >"$OUT/$name.filter-build.log" 2>&1; then
            VARIANTS="default filter"
        else
            echo "overhead $name: filter variant failed (see $OUT/$name.filter*.log)"
        fi
    fi
}

# ---- 2. shape programs (bench/shapes/) --------------------------------------
if [ $have_aa = 1 ]; then case " $PARTS " in *" 2 "*)
echo "# part 2: bench/shapes, kernel wall s (process wall in the last column), $RUNS interleaved runs each"
for src in "$TOP"/bench/shapes/*.c; do
    s=$(basename "$src" .c)
    build_variants "$src" "$s" "$OUT/$s.default" || continue
    [ "$PHASE" = build ] && continue
    rm -f "$OUT/$s".k.* "$OUT/$s".w.*
    r=0; while [ $r -lt "$RUNS" ]; do r=$((r + 1))
        for v in plain $VARIANTS; do
            /usr/bin/time -f '%e' -o "$OUT/t" env AUTOANALYZER_OUTPUT="$OUT/exp-$s-$v" \
                "$OUT/$s.$v" > "$OUT/$s.$v.out" 2>"$OUT/$s.$v.err" ||
                { echo "overhead $s: $v run failed"; cat "$OUT/$s.$v.err"; }
            sed -n 's/^kernel_s //p' "$OUT/$s.$v.out" >> "$OUT/$s.k.$v"
            cat "$OUT/t" >> "$OUT/$s.w.$v"
        done
    done
    grep -v kernel_s "$OUT/$s.plain.out" > "$OUT/$s.plain.res"
    for v in $VARIANTS; do
        grep -v kernel_s "$OUT/$s.$v.out" | cmp -s - "$OUT/$s.plain.res" || echo "overhead $s: $v output differs"
        report "shapes/$s" "$v" "$OUT/$s.k.plain" "$OUT/$s.k.$v" "$OUT/$s.w.plain" "$OUT/$s.w.$v" geo
    done
    for v in $VARIANTS; do pairs "shapes/$s" "$v" "$OUT/$s.k.plain" "$OUT/cnt-$s-$v" "$OUT/$s.$v"; done
done ;; esac; fi

# ---- 3. the samples, 4 MPI ranks, wall time of mpirun ----------------------
if [ $have_aa = 1 ]; then case " $PARTS " in *" 3 "*)
echo "# part 3: samples, mpirun -np 4 wall s, $RUNS interleaved runs each"
for s in balanced imbalance hotspot cache io comm master_worker; do
    build_variants "$TOP/samples/$s.c" "$s" mpirun -np 4 "$OUT/$s.default" || continue
    [ "$PHASE" = build ] && continue
    rm -f "$OUT/$s".w.*
    r=0; while [ $r -lt "$RUNS" ]; do r=$((r + 1))
        for v in plain $VARIANTS; do
            (cd "$OUT" && TMPDIR="$OUT" /usr/bin/time -f '%e' -o "$OUT/t" env AUTOANALYZER_OUTPUT="$OUT/exp-$s-$v" \
                mpirun -np 4 "$OUT/$s.$v" >/dev/null 2>&1) || echo "overhead sample $s: $v run failed"
            cat "$OUT/t" >> "$OUT/$s.w.$v"
        done
    done
    for v in $VARIANTS; do report "samples/$s" "$v" "$OUT/$s.w.plain" "$OUT/$s.w.$v" "" "" geo; done
    for v in $VARIANTS; do pairs "samples/$s" "$v" "$OUT/$s.w.plain" "$OUT/cnt-$s-$v" mpirun -np 4 "$OUT/$s.$v"; done
done ;; esac; fi

# ---- geometric means ----------------------------------------------------------
if [ -s "$OUT/geo" ]; then
    awk '{ s[$1] += log($2); n[$1]++ } END { for (v in s)
        printf "overhead geometric mean (shapes + samples, %s): %+.1f%% over %d programs\n", v, (exp(s[v] / n[v]) - 1) * 100, n[v] }' "$OUT/geo"
fi
if [ -s "$OUT/geo.pred" ]; then
    awk -v ns="$PROBE_NS" '{ s[$1] += log($2); n[$1]++ } END { for (v in s)
        printf "pairs    geometric mean (shapes + samples, %s): %+.1f%% predicted at %s ns per pair over %d programs\n", v, (exp(s[v] / n[v]) - 1) * 100, ns, n[v] }' "$OUT/geo.pred"
fi
if [ -s "$OUT/geo.thr" ]; then
    awk '{ s[$1] += log($2); n[$1]++ } END { for (v in s)
        printf "throttled geometric mean (shapes + samples, %s): %+.1f%% predicted with default throttling over %d programs\n", v, (exp(s[v] / n[v]) - 1) * 100, n[v] }' "$OUT/geo.thr"
fi
