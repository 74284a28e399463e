#!/bin/bash
# tests/e2e/runtime_throttle.t -- throttling per calling context under real
# mpirun (4 ranks): tests/runtime/rt_throttle calls mix() 150,000 times
# briefly from predictor() (throttled there) and later 300 times with a
# rank-dependent load from corrector().  The corrector context must stay
# measured and the analysis must find its imbalance; a region a round-2
# build flagged refined, or named by AUTOANALYZER_REFINE, is never
# throttled, nor are the regions inside it; throttled contexts are
# reported as partial by the analysis notes and the HTML comparison, never
# as a speed-up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
unlike() { # text regex name
    if printf '%s' "$1" | grep -Eq -- "$2"; then _tap_result 1 "$3"; printf '#   %s\n#   matches: %s\n' "$(printf '%s' "$1" | head -5)" "$2"; else
        _tap_result 0 "$3"; fi
}
command -v mpirun >/dev/null || skip_all "mpirun not found"
[ -x "$B/rt_throttle" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1
MPIRUN="mpirun --oversubscribe -np 4"

# ---- default throttling (100000 visits under 10 us; 10000 under 1 us; 1000 under 100 ns) ----
AUTOANALYZER_OUTPUT="$T/t" timeout 120 $MPIRUN "$B/rt_throttle" >"$T/t.out" 2>"$T/t.err"
is "$?" 0 "rt_throttle on 4 ranks exits 0"
"$RT_DUMP" "$T/t/experiment.xml" >"$T/t.dump" 2>&1
is "$?" 0 "experiment reads back"
D="$T/t.dump"
for r in 0 3; do
    like "$(grep "^node $r 0 ROOT/main/predictor/mix " $D)" 'visits=([0-9]{4}|[0-9]{5}|100000) .* throttled$' \
        "rank $r: mix() under predictor() throttled after 1,000 to 100,000 short visits (tiers)"
    is "$(rt_val $D ROOT/main/corrector/mix visits $r)" 300 "rank $r: mix() under corrector() still measured (300 visits)"
    unlike "$(grep "^node $r 0 ROOT/main/corrector/mix " $D)" 'throttled' "rank $r: corrector context not throttled"
    like "$(grep "^node $r 0 ROOT/main/refined/loop@72 " $D)" 'throttled$' "rank $r: without AUTOANALYZER_REFINE the short loop is throttled"
    like "$(grep "^node $r 0 ROOT/main/loop@80/loop@82 " $D)" 'throttled$' "rank $r: ... and the Fortran probes' inner loop"
    # what the build flagged as refined needs no environment
    is "$(rt_val $D ROOT/main/built/loop@92 visits $r)" 150000 "rank $r: a loop inside a region the build flagged refined: all 150,000 visits measured"
    unlike "$(grep "^node $r 0 ROOT/main/built/loop@92 " $D)" 'throttled' "rank $r: ... never throttled"
    is "$(rt_val $D ROOT/main/loop@100/loop@102 visits $r)" 150000 "rank $r: Fortran: the inner loop of a loop entered by aa_runtime_enter_refined_f: all visits measured"
    unlike "$(grep "^node $r 0 ROOT/main/loop@100/loop@102 " $D)" 'throttled' "rank $r: ... never throttled"
    # a throttled polling loop: its node keeps every MPI call (calls and
    # bytes exact per region), the time of the calls of its untimed visits
    # is its caller's (whose own time holds those visits): the node's MPI
    # time stays within its wall time
    like "$(grep "^node $r 0 ROOT/main/poller/poll_once " $D)" 'throttled$' "rank $r: the polling function is throttled"
    is "$(rt_val $D ROOT/main/poller/poll_once mpi_calls $r)" 150000 "rank $r: its node has all 150,000 MPI calls"
    ok "rank $r: the throttled node's MPI time within its wall time" awk -v m="$(rt_val $D ROOT/main/poller/poll_once mpi_wall $r)" \
        -v w="$(rt_val $D ROOT/main/poller/poll_once wall $r)" 'BEGIN { exit !(m <= w) }'
    ok "rank $r: the caller's own MPI time holds the untimed visits' calls" awk -v c="$(rt_val $D ROOT/main/poller/poll_once mpi_wall $r)" \
        -v p="$(rt_val $D ROOT/main/poller mpi_wall $r)" 'BEGIN { exit !(p > c) }'
done
like "$(grep -o '<region id="180"[^>]*>' "$T/t/experiment.xml")" 'kind="function"' "the flagged region is recorded with its kind (the flag is not a kind)"
is "$(rt_attr $D 0 throttled_nodes)" 4 "rank 0: four throttled nodes (predictor/mix, refined/loop@72, loop@80/loop@82, poller/poll_once)"
is "$(rt_attr $D 0 throttled_regions)" 4 "rank 0: four throttled regions"

expect_status 0 "analyze the run" sh -c "'$AA' analyze '$T/t' --json '$T/t.json' > '$T/t.txt'"
ok "analysis: mix() under corrector() is a dissimilarity CCCR of rank 3" python3 - "$T/t.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
regs = {r['index']: r for r in a['regions']}
hits = [b for b in a['dissimilarity']['bottlenecks']
        if b.get('cccr') and b['name'] == 'mix' and regs[regs[b['index']]['parent_index']]['name'] == 'corrector']
print('# hits:', [(b['name'], b.get('slow_ranks')) for b in hits])
sys.exit(0 if hits and 3 in hits[0].get('slow_ranks', []) else 1)
PY
like "$(cat $T/t.txt)" 'partial values: 16 calling contexts throttled .*mix.*no speed-up' \
    "analysis notes: throttled contexts are partial values, a lower time is no speed-up"

# ---- round 2: the refined function's regions are never throttled ----
printf 'refined\n160\n' > "$T/crit.txt"
AUTOANALYZER_REFINE="$T/crit.txt" AUTOANALYZER_OUTPUT="$T/r" timeout 120 $MPIRUN "$B/rt_throttle" >"$T/r.out" 2>&1
is "$?" 0 "rt_throttle with AUTOANALYZER_REFINE exits 0"
"$RT_DUMP" "$T/r/experiment.xml" >"$T/r.dump" 2>&1
for r in 0 3; do
    is "$(rt_val $T/r.dump ROOT/main/refined/loop@72 visits $r)" 150000 "rank $r: refined loop measured on all 150,000 visits"
    unlike "$(grep "^node $r 0 ROOT/main/refined/loop@72 " $T/r.dump)" 'throttled' "rank $r: refined loop never throttled"
    like "$(grep "^node $r 0 ROOT/main/predictor/mix " $T/r.dump)" 'throttled$' "rank $r: other regions still throttled"
    # the Fortran probes name no static parent: the inner loop is refined as
    # a loop whose calling context (loop@80, id 160 in the list) is
    is "$(rt_val $T/r.dump ROOT/main/loop@80/loop@82 visits $r)" 150000 "rank $r: Fortran probes: the inner loop of a refined loop measured on all 150,000 visits"
    unlike "$(grep "^node $r 0 ROOT/main/loop@80/loop@82 " $T/r.dump)" 'throttled' "rank $r: ... never throttled"
done

# ---- comparison with an unthrottled baseline: partial, not a speed-up ----
AUTOANALYZER_THROTTLE=0 AUTOANALYZER_OUTPUT="$T/b" timeout 120 $MPIRUN "$B/rt_throttle" >"$T/b.out" 2>&1
is "$?" 0 "unthrottled baseline run exits 0"
expect_status 0 "report with the unthrottled baseline" "$AA" report "$T/t" --baseline "$T/b" -o "$T/cmp.html"
# one row per line; the rows of mix() (its two contexts are one region) come in
# the order of their deltas, which the load decides: look at each of them
row=$(tr '\n' ' ' < "$T/cmp.html" | sed 's,</tr>,</tr>\n,g' | grep '<tr><td>[^<]*mix' | grep -m1 'partial (throttled)')
like "$row" 'partial \(throttled\)' "comparison: throttled mix() is shown as partial"
unlike "$row" '[0-9]%' "no percentage for it"
like "$(cat $T/cmp.html)" 'id="partial"' "HTML report lists the regions with partial values"

# ---- the Program Space keeps which regions are partial ----
expect_status 0 "space add the throttled run" "$AA" space add "$T/t" --db "$T/space.db" --no-analysis
like "$("$AA" space show 1 --db "$T/space.db")" 'partial_regions = [^ ]*rt_throttle.c/mix [^ ]*/refined/loop@72' \
    "space show: partial_regions names the throttled contexts' regions"
done_testing
