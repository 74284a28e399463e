#!/usr/bin/env bash
# The compile-instrument-run loop on the C++ sample (samples/particles.cpp:
# classes, a class template, lambdas; load imbalance in a method's loop):
# built with `autoanalyzer cc mpicxx`, the same output as the plain mpicxx
# build, run with `autoanalyzer run --np 4` at `-s large`, and the analysis
# must find the documented bottleneck named by its C++ name
# (BOTTLENECK-AT: sim::Domain::collide(), the loop holding that line);
# round 2 (AUTOANALYZER_REFINE, and `autoanalyzer instrument --refine` the
# same) keeps every round-1 region id, adds the regions inside it, and its
# run narrows the imbalance to the new inner loop holding that line, as the
# C two-round test does (loop_tworound.t).
. "$(dirname "$0")/lib.sh"
EXPECT="$TOP/tests/report/expect_analysis.py"
command -v mpicxx >/dev/null 2>&1 || skip_all "mpicxx not installed"
export TMPDIR="$T"
src="$TOP/samples/particles.cpp"
fn=$(sed -n 's/^ \* BOTTLENECK-AT: \([A-Za-z_0-9:]*\)() line \([0-9]*\).*/\1/p' "$src")
line=$(sed -n 's/^ \* BOTTLENECK-AT: \([A-Za-z_0-9:]*\)() line \([0-9]*\).*/\2/p' "$src")
is "$(sed -n "${line}p" "$src" | grep -c 'IMBALANCE HERE')" 1 "BOTTLENECK-AT names the marked line ($fn, line $line)"

ok "built with mpicxx" mpicxx -O2 -o "$T/plain" "$src"
ok "built with autoanalyzer cc mpicxx" env AUTOANALYZER_MAPDIR="$T/maps" "$AA" cc mpicxx -O2 -o "$T/particles" "$src"
like "$(cat "$T"/maps/particles.cpp-*.regions.xml)" "name=\"loop@[0-9]+\" function=\"$fn\"" "its loops are named by the method's C++ name"
mpirun -np 4 "$T/plain" >"$T/plain.out" 2>/dev/null
(cd "$T" && mpirun -np 4 "$T/particles" >"$T/inst.out" 2>/dev/null); st=$?
is "$st" 0 "instrumented: exit status 0"
ok "instrumented: the same output (checksum included)" cmp "$T/plain.out" "$T/inst.out"

(cd "$T" && timeout 150 "$AA" run --np 4 --no-store --name loop-particles \
    --out "$T/run" -- "$T/particles" -s large) >"$T/run.log" 2>&1
st=$?
is "$st" 0 "autoanalyzer run --np 4 exits 0"
[ "$st" = 0 ] || sed 's/^/#   /' "$T/run.log" | tail -20
ok "finds the imbalance in $fn, in the loop holding line $line" "$EXPECT" "$T/run/analysis.json" \
    --kind dissimilarity --function "$fn" --map "$T/run/experiment.xml" --path-loop "$fn:$line"
like "$(cat "$T/run.log")" "imbalance .* $fn loop@" "the text report names it by its C++ name"
# round 2: the round-1 analysis refines the bottleneck's regions
rm -rf "$T/maps2"
ok "round 2: rebuilt with AUTOANALYZER_REFINE" env AUTOANALYZER_MAPDIR="$T/maps2" \
    AUTOANALYZER_REFINE="$T/run/analysis.json" "$AA" cc mpicxx -O2 -o "$T/particles2" "$src"
r1=$(grep -c '<region' "$T"/maps/particles.cpp-*.regions.xml)
r2=$(grep -c '<region' "$T"/maps2/particles.cpp-*.regions.xml)
ok "round 2 adds regions ($r1 -> $r2)" test "$r2" -gt "$r1"
like "$(grep "function=\"$fn\"" "$T"/maps2/particles.cpp-*.regions.xml | grep -v 'instrumented="no"' | grep -c 'kind="loop"')" "^[2-9]" \
    "round 2: the inner loop of $fn is a region too"
(cd "$T" && mpirun -np 4 "$T/particles2" >"$T/inst2.out" 2>/dev/null)
ok "round 2: the same output" cmp "$T/plain.out" "$T/inst2.out"
ids_of() { grep -o '<region id="[0-9]*"[^>]*' "$@" | grep -v 'instrumented="no"' | sed 's/.*<region id="\([0-9]*\)".* name="\([^"]*\)".*/\1 \2/' | sort; }
ids_of "$T/run/experiment.xml" | grep -v '^0 ' > "$T/r1.ids"
ids_of "$T"/maps2/particles.cpp-*.regions.xml > "$T/r2.map"
# a round-1 region is kept, or left out by the round-1 profile filter (tiny and hot)
lost=$(comm -23 "$T/r1.ids" "$T/r2.map" | while read -r id name; do
    grep -q "<region id=\"$id\"[^>]*reason=\"tiny and hot in the measured profile" "$T"/maps2/particles.cpp-*.regions.xml || echo "$id $name"
done)
is "$lost" "" "round 2 keeps every round-1 region id (and name) but those the profile filter drops"
(cd "$T" && "$AA" instrument --refine "$T/run/analysis.json" -o r2.cpp "$src" -- $(mpicxx --showme:compile)) >"$T/r2i.log" 2>&1
is "$?" 0 "round 2: autoanalyzer instrument --refine (C++)"
is "$(ids_of "$T/r2.cpp.regions.xml")" "$(cat "$T/r2.map")" "instrument --refine refines as the wrapper does"
(cd "$T" && timeout 150 "$AA" run --np 4 --no-store --out "$T/run2" -- "$T/particles2" -s large) >"$T/run2.log" 2>&1
is "$?" 0 "round 2: autoanalyzer run exits 0"
ok "round 2: narrowed to a new loop of $fn holding line $line" "$EXPECT" "$T/run2/analysis.json" \
    --kind dissimilarity --function "$fn" --map "$T/run2/experiment.xml" --path-loop "$fn:$line" --not-ids "$T/r1.ids"
done_testing
