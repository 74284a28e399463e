#!/usr/bin/env bash
# The compile-instrument-run loop on the C++ sample (samples/particles.cpp:
# classes, a class template, lambdas; load imbalance in a method's loop):
# built with `autoanalyzer cc mpicxx`, the same output as the plain mpicxx
# build, run with `autoanalyzer run --np 4` at `-s large`, and the analysis
# must find the documented bottleneck named by its C++ name
# (BOTTLENECK-AT: sim::Domain::collide(), the loop holding that line).
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
done_testing
