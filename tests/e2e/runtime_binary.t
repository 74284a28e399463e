#!/bin/bash
# tests/e2e/runtime_binary.t -- the runtime writing the binary experiment
# form (AUTOANALYZER_FORMAT, docs/runtime.md "Profile format") under real
# mpirun (4 ranks, oversubscribed): rank 0's experiment.aab (mpi mode, the
# packs received a batch at a time) and rank-<N>.aab (files mode) hold the
# exact values runtime_mpi.t checks in XML; the analysis of the binary
# experiment is byte for byte that of its XML form, and the runtime's bytes
# are those `convert` writes from that XML (the same model); collect merges
# the rank files into either form with the same analysis; auto and auto:N
# choose by process count; abnormal ends: exit() and MPI_Abort leave
# rank-<N>.aab, fatal signals rank-<N>.xml (the crash handler writes XML)
# which replaces a flushed rank-<N>.aab, and collect reads the mixed
# directory; a bad setting warns once and keeps the default; without
# libz.so.1 the runtime's writer stores (tests/runtime/rt_nozlib).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
command -v mpirun >/dev/null || skip_all "mpirun not found"
[ -x "$B/rt_mpi" ] && [ -x "$B/rt_crash" ] && [ -x "$RT_DUMP" ] ||
    skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1
MPIRUN="mpirun --oversubscribe -np 4"

# exact values of rt_mpi per rank (as in runtime_mpi.t) in dump $1
check_values() {
    local D=$1 what=$2 r ws wr
    for r in 0 1 2 3; do
        if [ $r = 0 ]; then ws=88 wr=48; else ws=48 wr=$((40 + 16 * (r + 1))); fi
        is "$(rt_val $D ROOT/main/comm_region mpi_bytes_sent $r)/$(rt_val $D ROOT/main/comm_region mpi_bytes_recv $r)/$(rt_val $D ROOT/main/comm_region mpi_calls $r)/$(rt_val $D ROOT/main/io_region io_write_bytes $r)/$(rt_val $D ROOT/main/mpiio_region io_write_bytes $r)/$(rt_val $D ROOT/main/coll_region mpi_bytes_sent $r)/$(rt_val $D ROOT/main/coll_region mpi_bytes_recv $r)/$(rt_val $D ROOT/main/loop@80/leaf visits $r)/$(rt_val $D ROOT/main/loop@80/leaf instructions $r)" \
            "4880/4880/5/3600/256/$ws/$wr/5/2500" "$what rank $r: exact MPI, I/O and collective bytes, visits, fake counters"
        sw=$(rt_val $D ROOT/main/sleep_region wall $r); sc=$(rt_val $D ROOT/main/sleep_region cpu $r)
        ok "$what rank $r: sleep wall $sw >> cpu $sc" rt_num "$sw >= 0.14 && $sc < 0.002"
    done
}

# ---- mpi mode: rank 0 writes experiment.aab ----
AUTOANALYZER_FORMAT=binary AUTOANALYZER_OUTPUT="$T/m" AUTOANALYZER_COUNTERS=fake \
    timeout 120 $MPIRUN "$B/rt_mpi" "$T" >"$T/m.out" 2>"$T/m.err"
is "$?" 0 "binary, mpi mode: rt_mpi on 4 ranks exits 0"
is "$(ls "$T/m")" "experiment.aab" "mpi mode: only experiment.aab"
is "$(cat "$T/m.err")" "" "nothing on stderr"
is "$(head -c 4 "$T/m/experiment.aab" | od -An -c | tr -d ' ')" '211AAX' "the binary magic"
"$RT_DUMP" "$T/m/experiment.aab" >"$T/m.dump" 2>"$T/m.dumperr"
is "$?" 0 "experiment.aab reads back with the validating reader"
like "$(head -1 "$T/m.dump")" 'nprocs=4 processes=4$' "4 processes in one experiment"
like "$(rt_env "$T/m.dump" hosts)" '.' "hosts recorded by rank 0's merge"
is "$(rt_env "$T/m.dump" missing_ranks)" "" "no rank missing"
check_values "$T/m.dump" "binary mpi mode"

# the same model as the XML form: converting gives back the runtime's bytes,
# and the analysis of either form is the same, byte for byte
ok "convert experiment.aab to XML" "$AA" convert "$T/m/experiment.aab" "$T/m.xml"
ok "convert that XML back to binary" "$AA" convert "$T/m.xml" "$T/m2.aab"
ok "the runtime's binary bytes = convert's from the XML" cmp "$T/m/experiment.aab" "$T/m2.aab"
"$AA" analyze "$T/m/experiment.aab" >"$T/an-bin.txt" 2>&1
is "$?" 0 "autoanalyzer analyze experiment.aab"
"$AA" analyze "$T/m.xml" >"$T/an-xml.txt" 2>&1
ok "the analysis of the binary and of the XML form are byte for byte the same" cmp "$T/an-bin.txt" "$T/an-xml.txt"
like "$(head -2 "$T/an-bin.txt")" '4 processes analysed' "the analysis saw 4 processes"
"$AA" analyze "$T/m" >"$T/an-dir.txt" 2>&1
ok "analyze of the output directory finds experiment.aab" cmp "$T/an-bin.txt" "$T/an-dir.txt"
"$AA" analyze --json - "$T/m/experiment.aab" >"$T/an-bin.json" 2>&1
"$AA" analyze --json - "$T/m.xml" >"$T/an-xml.json" 2>&1
ok "JSON analysis the same too" cmp "$T/an-bin.json" "$T/an-xml.json"
ok "collect of the mpi-mode directory reads experiment.aab" "$AA" collect "$T/m" -o "$T/mc.xml"
ok "... and gives the same XML" cmp "$T/m.xml" "$T/mc.xml"

# ---- rank 0 receiving the packs in several batches ----
for batch in 1 10000; do # one rank a batch; about two ranks a batch
    AUTOANALYZER_COLLECT_BATCH=$batch AUTOANALYZER_OUTPUT="$T/b$batch" AUTOANALYZER_COUNTERS=fake \
        timeout 120 $MPIRUN "$B/rt_mpi" "$T" >"$T/b$batch.out" 2>"$T/b$batch.err"
    is "$?/$(cat "$T/b$batch.err")" "0/" "AUTOANALYZER_COLLECT_BATCH=$batch: exits 0, nothing on stderr"
    "$RT_DUMP" "$T/b$batch/experiment.xml" >"$T/b$batch.dump" 2>&1
    like "$(head -1 "$T/b$batch.dump")" 'nprocs=4 processes=4$' "batches of $batch bytes: 4 processes"
    is "$(rt_env "$T/b$batch.dump" missing_ranks)" "" "batches of $batch bytes: no rank missing"
    check_values "$T/b$batch.dump" "batches of $batch bytes:"
done

# ---- autoanalyzer run: the engine keeps the run's form ----
AUTOANALYZER_FORMAT=binary AUTOANALYZER_COUNTERS=fake timeout 120 \
    "$AA" run --np 4 --no-store --out "$T/eng" -- "$B/rt_mpi" "$T" >"$T/eng.out" 2>&1
is "$?" 0 "autoanalyzer run of a binary run exits 0"
is "$(ls "$T/eng" | tr '\n' ' ')" "analysis.json analysis.xml experiment.aab report.html " \
    "run: the experiment with the run's attributes stays binary (experiment.aab, no XML)"
"$RT_DUMP" "$T/eng/experiment.aab" >"$T/eng.dump" 2>&1
is "$(rt_env "$T/eng.dump" np)" 4 "run: its attributes are in experiment.aab"

# ---- files mode: rank-<N>.aab ----
AUTOANALYZER_FORMAT=binary AUTOANALYZER_COLLECT=files AUTOANALYZER_OUTPUT="$T/f" \
    AUTOANALYZER_COUNTERS=fake timeout 120 $MPIRUN "$B/rt_mpi" "$T" >"$T/f.out" 2>"$T/f.err"
is "$?" 0 "binary, files mode: exits 0"
is "$(ls "$T/f" | tr '\n' ' ')" "rank-0.aab rank-1.aab rank-2.aab rank-3.aab " "files mode: one rank-<N>.aab per rank"
ok "collect the rank files into XML" "$AA" collect "$T/f" -o "$T/f.xml"
ok "collect the rank files into binary" "$AA" collect "$T/f" -o "$T/f.aab"
"$RT_DUMP" "$T/f.xml" >"$T/f.dump" 2>&1
check_values "$T/f.dump" "binary files mode"
"$AA" analyze "$T/f.aab" >"$T/fa-bin.txt" 2>&1
"$AA" analyze "$T/f.xml" >"$T/fa-xml.txt" 2>&1
ok "collected binary and XML: the same analysis" cmp "$T/fa-bin.txt" "$T/fa-xml.txt"
"$AA" analyze "$T/f" >"$T/fa-dir.txt" 2>&1
ok "analyze of the directory of rank-<N>.aab files: the same analysis" cmp "$T/fa-bin.txt" "$T/fa-dir.txt"

# ---- auto: by process count ----
AUTOANALYZER_OUTPUT="$T/a" AUTOANALYZER_COUNTERS=none timeout 120 $MPIRUN "$B/rt_mpi" "$T" >/dev/null 2>&1
is "$(ls "$T/a")" "experiment.xml" "default (auto) on 4 ranks: XML"
AUTOANALYZER_FORMAT=auto:4 AUTOANALYZER_OUTPUT="$T/a4" AUTOANALYZER_COUNTERS=none \
    timeout 120 $MPIRUN "$B/rt_mpi" "$T" >/dev/null 2>&1
is "$(ls "$T/a4")" "experiment.aab" "auto:4 on 4 ranks: binary"
AUTOANALYZER_FORMAT=auto:5 AUTOANALYZER_COLLECT=files AUTOANALYZER_OUTPUT="$T/a5" \
    AUTOANALYZER_COUNTERS=none timeout 120 $MPIRUN "$B/rt_mpi" "$T" >/dev/null 2>&1
is "$(ls "$T/a5" | tr '\n' ' ')" "rank-0.xml rank-1.xml rank-2.xml rank-3.xml " "auto:5 on 4 ranks, files mode: XML"
AUTOANALYZER_FORMAT=xml AUTOANALYZER_OUTPUT="$T/a4" AUTOANALYZER_COUNTERS=none \
    timeout 120 $MPIRUN "$B/rt_mpi" "$T" >/dev/null 2>&1
is "$(ls "$T/a4")" "experiment.xml" "xml into a directory of a binary run: replaces experiment.aab"
AUTOANALYZER_FORMAT=compact AUTOANALYZER_OUTPUT="$T/bad" AUTOANALYZER_COUNTERS=none \
    timeout 120 mpirun --oversubscribe -np 2 "$B/rt_mpi" "$T" >"$T/bad.out" 2>"$T/bad.err"
is "$?" 0 "bad AUTOANALYZER_FORMAT: the program still exits 0"
like "$(sort -u "$T/bad.err")" "^autoanalyzer: warning: AUTOANALYZER_FORMAT='compact': expected xml, binary, auto or auto:N .*\(using auto\)$" \
    "bad AUTOANALYZER_FORMAT: one warning line (per rank), the default used"
is "$(ls "$T/bad")" "experiment.xml" "bad setting: auto on 2 ranks writes XML"

# ---- abnormal ends in the binary form ----
for mode in exit abort; do
    AUTOANALYZER_FORMAT=binary AUTOANALYZER_OUTPUT="$T/c-$mode" AUTOANALYZER_COUNTERS=none \
        timeout 120 mpirun --oversubscribe -np 2 "$B/rt_crash" $mode >"$T/c-$mode.out" 2>&1
    ok "$mode: mpirun reports the failure" test "$?" != 0
    is "$(ls "$T/c-$mode" | grep -c '\.tmp\.')" 0 "$mode: no temporary file left"
done
for r in 0 1; do
    "$RT_DUMP" "$T/c-exit/rank-$r.aab" >"$T/ce$r.dump" 2>&1
    is "$?" 0 "exit() before MPI_Finalize: rank $r left a readable rank-$r.aab"
    is "$(rt_env "$T/ce$r.dump" incomplete)" "exit() before MPI_Finalize" "exit: rank $r marked incomplete"
    ok "exit: rank $r open region closed with its time" rt_num "$(rt_val "$T/ce$r.dump" ROOT/main/doomed wall $r) >= 0.015"
done
"$RT_DUMP" "$T/c-abort/rank-0.aab" >"$T/ca.dump" 2>&1
is "$(rt_env "$T/ca.dump" incomplete)" MPI_Abort "MPI_Abort: rank 0's rank-0.aab written first"
ok "collect reads the directory of an aborted binary run (any mix of forms)" \
    "$AA" collect "$T/c-abort" -o "$T/ca.xml"
for mode in segv flushsegv; do
    AUTOANALYZER_FORMAT=binary AUTOANALYZER_COLLECT=files AUTOANALYZER_OUTPUT="$T/c-$mode" \
        AUTOANALYZER_COUNTERS=none timeout 120 mpirun --oversubscribe -np 2 "$B/rt_crash" $mode \
        >"$T/c-$mode.out" 2>&1
    ok "$mode: mpirun reports the failure" test "$?" != 0
    is "$(ls "$T/c-$mode" | tr '\n' ' ')" "rank-0.xml rank-1.xml " \
        "$mode: the crash handler writes XML (and removes a flushed rank-<N>.aab)"
    for r in 0 1; do
        "$RT_DUMP" "$T/c-$mode/rank-$r.xml" >"$T/c$mode$r.dump" 2>&1
        is "$?" 0 "$mode: rank $r's crash profile reads"
        is "$(rt_env "$T/c$mode$r.dump" incomplete)" "signal 11 (Segmentation fault)" "$mode: rank $r says why"
    done
    ok "$mode: collect merges the crash profiles" "$AA" collect "$T/c-$mode" -o "$T/c$mode.aab"
done
# ---- no libz.so.1: the runtime's writer stores instead of compressing ----
if [ -x "$B/rt_nozlib" ]; then
    for n in 50 2000; do # 150 rows (a rank file's one block) and 6,000 rows
        "$B/rt_nozlib" "$T/nz$n.aab" "$T/nz$n.xml" $n >"$T/nz.out" 2>&1
        is "$?/$(cat "$T/nz.out")" "0/zlib usable: 0" "without zlib ($n nodes): written"
        "$RT_DUMP" "$T/nz$n.aab" >"$T/nz$n.d1" 2>&1
        is "$?" 0 "without zlib ($n nodes): the stored binary file reads"
        "$RT_DUMP" "$T/nz$n.xml" >"$T/nz$n.d2" 2>&1
        ok "without zlib ($n nodes): the same experiment as its XML" cmp "$T/nz$n.d1" "$T/nz$n.d2"
        "$AA" convert "$T/nz$n.aab" "$T/nzc$n.xml" >/dev/null 2>&1
        ok "without zlib ($n nodes): converts to the same XML bytes" cmp "$T/nzc$n.xml" "$T/nz$n.xml"
    done
else
    ok "rt_nozlib not built # SKIP" true
fi
done_testing
