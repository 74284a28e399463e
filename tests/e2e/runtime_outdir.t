#!/bin/bash
# tests/e2e/runtime_outdir.t -- where profiles go: programs started in the
# same second each get their own default directory (claimed atomically), a
# relative AUTOANALYZER_OUTPUT is resolved against the directory the program
# started in even when it changes directory, and MPI_Abort (mpirun killing
# the other ranks while they write) leaves no temporary file behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_settings" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1
unset AUTOANALYZER_OUTPUT

# ---- 6 programs at once, default directory names ----
mkdir same && cd same || exit 1
for i in 1 2 3 4 5 6; do "$B/rt_settings" jump >/dev/null 2>&1 & done
wait
is "$(ls -d autoanalyzer-rt_settings-* | wc -l)" 6 "6 programs started together: 6 directories"
is "$(ls autoanalyzer-rt_settings-*/experiment.xml | wc -l)" 6 "each holds its experiment"
ids=$(cat autoanalyzer-rt_settings-*/experiment.xml | grep -o '<experiment [^>]*' | grep -o ' id="[^"]*"' | sort -u | wc -l)
is "$ids" 6 "6 different experiments kept"
cd "$T" || exit 1

# ---- relative AUTOANALYZER_OUTPUT, program changes directory ----
mkdir elsewhere
AUTOANALYZER_OUTPUT=rel/out "$B/rt_settings" jump "$T/elsewhere" >"$T/rel.out" 2>&1
is "$(cat "$T/rel.out")" "done" "the program ran and changed directory"
ok "profile in the starting directory's rel/out" test -f "$T/rel/out/experiment.xml"
ok "nothing under the directory it moved to" test ! -e "$T/elsewhere/rel"

# ---- MPI_Abort: no temporary files ----
if command -v mpirun >/dev/null && [ -x "$B/rt_crash" ]; then
    left=0
    for i in 1 2 3 4 5 6 7 8; do
        AUTOANALYZER_OUTPUT="$T/ab$i" AUTOANALYZER_COUNTERS=none timeout 120 \
            mpirun --oversubscribe -np 4 "$B/rt_crash" abort >/dev/null 2>&1
        left=$((left + $(ls "$T/ab$i" | grep -c '\.tmp')))
    done
    is "$left" 0 "8 MPI_Abort runs on 4 ranks: no temporary file left"
    ok "rank 0's profile written" test -f "$T/ab1/rank-0.xml"
fi
done_testing
