#!/usr/bin/env bash
# The whole loop on the Fortran sample (samples/fsolver.f, fixed-form F77
# with COMMON blocks, labelled loops and INCLUDE 'mpif.h'): built with the
# one-word wrapper autoanalyzer-mpif90 it prints exactly what the plain
# mpif90 build prints; `autoanalyzer run --np 4` finds the documented load
# imbalance in SWEEP (its BOTTLENECK-AT), named by its Fortran names; `-c`
# objects carry their region map like C objects.
. "$(dirname "$0")/lib.sh"
EXPECT="$TOP/tests/report/expect_analysis.py"
command -v mpif90 >/dev/null 2>&1 || skip_all "mpif90 not installed"
export TMPDIR="$T"
src="$TOP/samples/fsolver.f"
funcs=$(sed -n 's/^C *BOTTLENECK-AT: \([A-Za-z_0-9]*\)().*/\1/p' "$src" | paste -sd, -)
is "$funcs" "sweep" "the sample documents its bottleneck"

ok "plain mpif90 build" mpif90 -O2 -o "$T/plain" "$src"
"$AA_BUILD/bin/autoanalyzer-mpif90" -O2 -o "$T/fsolver" "$src" >"$T/cc.log" 2>&1
is "$?" 0 "autoanalyzer-mpif90 builds it"
is "$(cat "$T/cc.log")" "" "no warning from the wrapper"
like "$(readelf -SW "$T/fsolver")" "autoanalyzer.regions" "the program carries the region map"
mpirun --oversubscribe -np 4 "$T/plain" large >"$T/plain.out" 2>&1
mpirun --oversubscribe -np 4 "$T/fsolver" large >"$T/inst.out" 2>&1
is "$?" 0 "the instrumented program exits 0"
is "$(cat "$T/inst.out")" "$(cat "$T/plain.out")" "identical output"

(cd "$T" && timeout 150 "$AA" run --np 4 --no-store --name loop-fsolver \
    --out "$T/run" -- "$T/fsolver" large) >"$T/run.log" 2>&1
is "$?" 0 "autoanalyzer run --np 4 exits 0"
ok "finds the documented imbalance in $funcs" \
    "$EXPECT" "$T/run/analysis.json" --kind dissimilarity --function "$funcs"
like "$(grep -o '<region [^>]*name="loop@67"[^>]*>' "$T/run/experiment.xml")" \
    'kind="loop".*function="sweep".*file="[^"]*fsolver.f".*line="67"' \
    "the labelled loop is named loop@67 in sweep, with its file and line"

# -c, then link: the object's map is joined to it (ld -r)
(cd "$T" && "$AA" cc mpif90 -O2 -c "$src" -o "$T/fs.o") >"$T/c.log" 2>&1
is "$?" 0 "autoanalyzer cc mpif90 -c"
like "$(readelf -SW "$T/fs.o")" "autoanalyzer.regions" "the object carries its region map"
(cd "$T" && AUTOANALYZER_MODE=functions,outer-loops,mpi "$AA" cc mpif90 -O2 -c "$src") >"$T/c2.log" 2>&1
ok "-c without -o writes fsolver.o with its map" sh -c "readelf -SW '$T/fsolver.o' | grep -q autoanalyzer.regions"
done_testing
