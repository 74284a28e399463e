#!/usr/bin/env bash
# The two-round workflow (SPEC §3.5) end to end on samples/imbalance.c:
# round 1 with the default regions (functions, outer loops) through
# `autoanalyzer cc` and `autoanalyzer run` names advance_cells(); round 2,
# instrumented with `autoanalyzer instrument --refine <round-1 analysis>`,
# keeps every round-1 region id and narrows the bottleneck to the loop that
# holds the documented line (BOTTLENECK-AT), inside the round-1 function.
# The tiny leaf mix() is left out by the size rules in round 1; round 2
# also applies the profile filter of the round-1 experiment (beside the
# analysis), never to the refined function.
# Both rounds run the sample with -s large (the default size is too light
# to measure reliably with 4 ranks on 2 cores).
. "$(dirname "$0")/lib.sh"
EXPECT="$TOP/tests/report/expect_analysis.py"
SRC="$TOP/samples/imbalance.c"

command -v mpicc >/dev/null 2>&1 || skip_all "mpicc not installed"
[ -f "$SRC" ] || skip_all "samples/imbalance.c not present"
func=$(sed -n 's/^ \* BOTTLENECK-AT: \([A-Za-z_0-9]*\)() line \([0-9]*\).*/\1/p' "$SRC" | head -1)
line=$(sed -n 's/^ \* BOTTLENECK-AT: \([A-Za-z_0-9]*\)() line \([0-9]*\).*/\2/p' "$SRC" | head -1)
export TMPDIR="$T"
cd "$T" || exit 1

# ---- round 1 -------------------------------------------------------------------
ok "round 1: build with autoanalyzer cc" "$AA" cc mpicc -O2 -o r1 "$SRC"
expect_status 0 "round 1: run" "$AA" run --np 4 --no-store --out "$T/round1" -- ./r1 -s large
ok "round 1: the imbalance is in $func()" "$EXPECT" "$T/round1/analysis.json" \
    --kind dissimilarity --function "$func"
"$AA" instrument -q -o r1map.c "$SRC" -- $(mpicc --showme:compile)
like "$(grep 'name="mix"' r1map.c.regions.xml)" 'instrumented="no" reason="tiny leaf function"' \
    "round 1: the tiny leaf mix() (9.4e7 calls) is left out by the size rules"
ok "round 1: mix() is no region of the experiment" sh -c "! grep -q 'name=\"mix\"' '$T/round1/experiment.xml'"
expect_status 0 "autoanalyzer filter --from the round-1 run" sh -c "'$AA' filter --from '$T/round1' > r1.filter"
ok "the filter file is Score-P's format" grep -q SCOREP_REGION_NAMES_END r1.filter
grep -o '<region id="[0-9]*"[^>]*' "$T/round1/experiment.xml" | sed 's/<region id="\([0-9]*\)".* name="\([^"]*\)".*/\1 \2/' | sort > r1.ids

# ---- round 2 -------------------------------------------------------------------
expect_status 0 "round 2: instrument --refine round-1 analysis" \
    "$AA" instrument --refine "$T/round1/analysis.json" -o r2.c "$SRC" -- $(mpicc --showme:compile)
ok "round 2: region map written" test -s r2.c.regions.xml
grep -o '<region id="[0-9]*"[^>]*' r2.c.regions.xml | sed 's/<region id="\([0-9]*\)".* name="\([^"]*\)".*/\1 \2/' | sort > r2.map
missing=$(grep -v '^0 ' r1.ids | comm -23 - r2.map | head -5)
is "$missing" "" "round 2 keeps every round-1 region id (and name)"
ok "round 2 has more regions than round 1" test "$(wc -l < r2.map)" -gt "$(grep -vc '^0 ' r1.ids)"
# the build flags what it refined (AA_RUNTIME_REFINED in the descriptor's
# kind): the run needs no AUTOANALYZER_REFINE for them to stay unthrottled
desc_kinds() { sed -n "s/^static aa_runtime_region aa_r_[0-9]* = {[0-9]*u, [0-9]*u, \([0-9]*\), .*, \"$1\", \"[^\"]*\", 0};\$/\1/p" r2.c | sort -u | tr '\n' ' '; }
like "$(desc_kinds "$func")" '^(25[7-9] )+$' "round 2: the descriptors of $func() and its regions are flagged refined"
like "$(desc_kinds parse_args)" '^([1-4] )+$' "round 2: parse_args() (no finding) is not"
ok "round 2: build the refined source with autoanalyzer cc" "$AA" cc mpicc -O2 -o r2 r2.c
expect_status 0 "round 2: run" "$AA" run --np 4 --no-store --out "$T/round2" -- ./r2 -s large
ok "round 2: narrowed to a new loop of $func() holding line $line" "$EXPECT" "$T/round2/analysis.json" \
    --kind dissimilarity --function "$func" --map r2.c.regions.xml --path-loop "$func:$line" --not-ids r1.ids
ok "round 2 analysis keeps the round-1 ids" sh -c "grep -o '<region id=\"[0-9]*\"' '$T/round2/experiment.xml' | sed 's/[^0-9]//g' | sort > r2.exp.ids; grep -v '^0 ' r1.ids | cut -d' ' -f1 | sort | comm -23 - r2.exp.ids | grep -q . && exit 1 || exit 0"

# ---- round 2 from history: the findings stored in the Program Space ----------------
ok "round 1 stored in the Program Space" "$AA" space add "$T/round1" --db "$T/tw.db" --attr name=imbalance-large
expect_status 0 "round 2: instrument --refine-from-space" \
    "$AA" instrument --refine-from-space imbalance-large --db "$T/tw.db" -o r2s.c "$SRC" -- $(mpicc --showme:compile)
like "$(cat "$T/.err")" "refining [1-9][0-9]* regions? from the findings of stored execution 1 \('imbalance-large'\)" \
    "--refine-from-space says which stored run it used"
fn_ids() { grep -o "<region id=\"[0-9]*\"[^>]*function=\"$func\"" "$1" | sed 's/<region id="\([0-9]*\)".*/\1/' | sort; }
is "$(fn_ids r2s.c.regions.xml | tr '\n' ' ')" "$(fn_ids r2.c.regions.xml | tr '\n' ' ')" \
    "--refine-from-space refines $func() as --refine with the round-1 analysis does"
expect_status 3 "--refine-from-space: no stored run of that name" \
    "$AA" instrument --refine-from-space nosuchconfig --db "$T/tw.db" -o r2x.c "$SRC" -- $(mpicc --showme:compile)
like "$(cat "$T/.err")" "no run of 'nosuchconfig'" "an unknown configuration is named"
done_testing
