#!/bin/bash
# tests/e2e/runtime_mpi.t -- the measurement runtime under real mpirun (4
# ranks, oversubscribed): tests/runtime/rt_mpi in both collection modes and
# tests/runtime/rt_crash for abnormal ends.  Checks exact MPI bytes per
# region (Sendrecv + Allreduce + Isend/Irecv = 4,880 each way), exact POSIX
# and MPI-IO bytes (MPI-IO counted once, not again through the POSIX calls
# the MPI library makes), visits, sleep wall >> cpu, busy cpu against the
# thread CPU clock, one experiment id and one directory for all ranks,
# MPI_Pcontrol pausing, and per-rank profiles after SIGSEGV, SIGTERM,
# MPI_Abort and exit() without MPI_Finalize.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
command -v mpirun >/dev/null || skip_all "mpirun not found"
[ -x "$B/rt_mpi" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1
MPIRUN="mpirun --oversubscribe -np 4"

# ---- AUTOANALYZER_COLLECT=mpi (default): one experiment.xml from rank 0 ----
AUTOANALYZER_OUTPUT="$T/m" AUTOANALYZER_COUNTERS=fake timeout 120 $MPIRUN "$B/rt_mpi" "$T" >"$T/m.out" 2>"$T/m.err"
is "$?" 0 "rt_mpi on 4 ranks exits 0"
is "$(ls "$T/m")" "experiment.xml" "mpi mode: only experiment.xml (no per-rank files)"
"$RT_DUMP" "$T/m/experiment.xml" >"$T/m.dump" 2>"$T/m.dumperr"
is "$?" 0 "experiment reads back with the validating reader"
D="$T/m.dump"
like "$(head -1 $D)" 'nprocs=4 processes=4$' "4 processes in one experiment"
like "$(rt_env $D mpi_library)" 'Open MPI' "MPI library version recorded"
is "$(rt_env $D nprocs)" 4 "nprocs recorded"
for r in 0 1 2 3; do
    is "$(rt_val $D ROOT/main/comm_region mpi_bytes_sent $r)" 4880 "rank $r: comm region sent exactly 4880 bytes"
    is "$(rt_val $D ROOT/main/comm_region mpi_bytes_recv $r)" 4880 "rank $r: comm region received exactly 4880 bytes"
    is "$(rt_val $D ROOT/main/comm_region mpi_calls $r)" 5 "rank $r: 5 MPI calls in the comm region"
    is "$(rt_val $D ROOT/main/io_region io_write_bytes $r)" 3600 "rank $r: POSIX/stdio bytes written"
    is "$(rt_val $D ROOT/main/io_region io_read_bytes $r)" 1500 "rank $r: POSIX/stdio bytes read"
    is "$(rt_val $D ROOT/main/mpiio_region io_write_bytes $r)" 256 "rank $r: MPI-IO bytes counted once"
    is "$(rt_val $D ROOT/main/mpiio_region io_read_bytes $r)" 128 "rank $r: MPI-IO bytes read (a failed read counts 0)"
    is "$(rt_val $D ROOT/main/rma_region mpi_bytes_sent $r)" 800 "rank $r: MPI_Put bytes"
    is "$(rt_val $D ROOT/main/rma_region mpi_bytes_recv $r)" 200 "rank $r: MPI_Get bytes"
    is "$(rt_val $D ROOT/main/rma_region mpi_calls $r)" 7 "rank $r: one-sided calls (allocate, 3 fences, put, get, free)"
    if [ $r = 0 ]; then ws=88 wr=48; else ws=48 wr=$((40 + 16 * (r + 1))); fi
    is "$(rt_val $D ROOT/main/coll_region mpi_bytes_sent $r)" $ws "rank $r: Bcast/Alltoallv/Gather bytes sent"
    is "$(rt_val $D ROOT/main/coll_region mpi_bytes_recv $r)" $wr "rank $r: Bcast/Alltoallv/Gather bytes received"
    is "$(rt_val $D ROOT/main/loop@80/leaf visits $r)" 5 "rank $r: leaf visits"
    is "$(rt_val $D ROOT/main/rec/rec/rec visits $r)" 1 "rank $r: recursion chain"
    is "$(rt_val $D ROOT/main/early visits $r)" 2 "rank $r: scope form"
    is "$(rt_attr $D $r mismatched_exits)" 1 "rank $r: stray exit counted"
    like "$(rt_attr $D $r cpus)" '^[0-9]+:[01]\.[0-9]{3}(,[0-9]+:[01]\.[0-9]{3}){0,3}$' \
        "rank $r: the CPUs it ran on (the analysis' placement test)"
    ok "rank $r: the CPU's pace ($(rt_attr $D $r pace_ns) ns, $(rt_attr $D $r pace_samples) samples)" \
        rt_num "$(rt_attr $D $r pace_ns) >= 100 && $(rt_attr $D $r pace_samples) >= 1"
    sw=$(rt_val $D ROOT/main/sleep_region wall $r); sc=$(rt_val $D ROOT/main/sleep_region cpu $r)
    ok "rank $r: sleep wall $sw >> cpu $sc" rt_num "$sw >= 0.14 && $sc < 0.002"
    bc=$(rt_val $D ROOT/main/busy_region cpu $r)
    truth=$(sed -n "s/^truth $r .*busy_cpu=\([0-9.]*\).*/\1/p" "$T/m.out")
    ok "rank $r: busy cpu $bc = thread CPU clock $truth (within 0.5 ms)" \
        rt_num "$bc - $truth < 0.0005 && $truth - $bc < 0.0005"
    is "$(rt_val $D ROOT/main/loop@80/leaf instructions $r)" 2500 "rank $r: fake counters exact"
done
# Steps at synchronizing calls (docs/runtime.md): the halo function's first
# MPI_Sendrecv of each visit is its pairing point (its second one is not),
# the loop entered once pairs its MPI_Allreduce from one call site: 10
# steps, 9 pairs each; the loop's value is inclusive.
for r in 0 1 2 3; do
    is "$(rt_val $D ROOT/main/loop@160/halo sync_steps $r)" 9 "rank $r: the halo's 10 visits, 9 steps (two MPI_Sendrecv a visit)"
    is "$(rt_val $D ROOT/main/loop@160 sync_steps $r)" 18 "rank $r: the loop's own 9 steps at its MPI_Allreduce, the halo's inside"
    is "$(rt_val $D ROOT/main/comm_region sync_steps $r)" 0 "rank $r: no step where each call is another function's"
    ok "rank $r: steps' work and waits non-negative, the cross sum bounded" rt_num \
        "$(rt_val $D ROOT/main/loop@160/halo sync_work $r) >= 0 && $(rt_val $D ROOT/main/loop@160/halo sync_wait $r) > 0 && $(rt_val $D ROOT/main/loop@160/halo sync_cross $r)^2 <= $(rt_val $D ROOT/main/loop@160/halo sync_work_sq $r) * $(rt_val $D ROOT/main/loop@160/halo sync_wait_sq $r) * 1.000001 + 1e-30"
done
# MPI time and bytes by kind of call (mpi_prototypes.txt's kind column)
for r in 0 1 2 3; do
    is "$(rt_val $D ROOT/main/comm_region mpi_p2p_bytes $r)" 9600 "rank $r: comm region p2p bytes (Sendrecv, Isend, Irecv; sent + received)"
    is "$(rt_val $D ROOT/main/comm_region mpi_coll_bytes $r)" 160 "rank $r: comm region collective bytes (Allreduce)"
    ok "rank $r: comm region has p2p, collective and wait time" rt_num \
        "$(rt_val $D ROOT/main/comm_region mpi_p2p_wall $r) > 0 && $(rt_val $D ROOT/main/comm_region mpi_coll_wall $r) > 0 && $(rt_val $D ROOT/main/comm_region mpi_wait_wall $r) > 0"
    is "$(rt_val $D ROOT/main/rma_region mpi_rma_bytes $r)" 1000 "rank $r: one-sided bytes (put + get)"
    if [ $r = 0 ]; then ws=88 wr=48; else ws=48 wr=$((40 + 16 * (r + 1))); fi
    is "$(rt_val $D ROOT/main/coll_region mpi_coll_bytes $r)" $((ws + wr)) "rank $r: collective bytes of the coll region"
    ok "rank $r: MPI-IO time in mpi_io_wall, none in p2p" rt_num \
        "$(rt_val $D ROOT/main/mpiio_region mpi_io_wall $r) > 0 && $(rt_val $D ROOT/main/mpiio_region mpi_io_wall $r) <= $(rt_val $D ROOT/main/mpiio_region mpi_wall $r) && $(rt_val $D ROOT/main/mpiio_region mpi_p2p_wall $r) == 0"
done
bad=$(awk '$1 == "node" { w = -1; s = 0
        for (i = 5; i <= NF; i++) { n = index($i, "="); k = substr($i, 1, n - 1); v = substr($i, n + 1)
            if (k == "mpi_wall") w = v; else if (k ~ /^mpi_(p2p|coll|wait|rma|io)_wall$/) s += v }
        d = w - s; if (d < 0) d = -d
        if (w < 0 || d > 1e-9 + 1e-7 * w) print $4, "rank", $2, "mpi_wall", w, "kinds", s }' $D)
is "$bad" "" "every node: mpi_p2p/coll/wait/rma/io_wall add up to mpi_wall (to the dump's 9 digits)"
ok "the kinds are in the experiment" grep -q 'mpi_rma_bytes' "$T/m/experiment.xml"

is "$(grep -c ' ROOT/main/paused_region ' $D)" 0 "MPI_Pcontrol(0): region not recorded"
main_calls=$(rt_val $D ROOT/main mpi_calls 0)
is "$main_calls" 56 "main: Init + 5 comm + 9 MPI-IO + 7 RMA + 3 coll + 30 steps + final Barrier (paused Barrier not counted)"
is "$(rt_val $D ROOT/main mpi_bytes_sent 0)" $((4880 + 800 + 88)) "MPI bytes inclusive up the tree"
ok "mpi_cpu <= mpi_wall + cpu_fix (a real read's misplaced correction, docs/runtime.md)" \
    rt_num "$(rt_val $D ROOT/main mpi_cpu 0) <= $(rt_val $D ROOT/main mpi_wall 0) + $(rt_val $D ROOT/main cpu_fix 0) + 1e-9"

# ---- AUTOANALYZER_COLLECT=files: rank-<N>.xml, one id ----
AUTOANALYZER_OUTPUT="$T/f" AUTOANALYZER_COLLECT=files timeout 120 $MPIRUN "$B/rt_mpi" "$T" >"$T/f.out" 2>"$T/f.err"
is "$?" 0 "files mode: exits 0"
is "$(ls "$T/f" | tr '\n' ' ')" "rank-0.xml rank-1.xml rank-2.xml rank-3.xml " "files mode: one file per rank"
ids=""
for r in 0 1 2 3; do
    "$RT_DUMP" "$T/f/rank-$r.xml" >"$T/f$r.dump" 2>&1
    ids="$ids $(sed -n '1s/^exp id=\([^ ]*\).*/\1/p' "$T/f$r.dump")"
    is "$(rt_val $T/f$r.dump ROOT/main/comm_region mpi_bytes_sent $r)" 4880 "files mode rank $r: bytes sent"
    like "$(head -1 $T/f$r.dump)" 'nprocs=4 processes=1$' "files mode rank $r: one process, nprocs 4"
    like "$(grep '^proc' $T/f$r.dump)" 'unavailable=cycles,instructions,l1_dcm,l1_dca,l2_dcm,l2_dca|unavailable=$' "files mode rank $r: PAPI counters listed unavailable (or measured)"
done
is "$(echo $ids | tr ' ' '\n' | sort -u | wc -l)" 1 "all ranks share one experiment id"

# ---- default output directory: the same for all ranks ----
mkdir "$T/d" && ( cd "$T/d" && AUTOANALYZER_COUNTERS=none timeout 120 $MPIRUN "$B/rt_mpi" "$T" >/dev/null 2>&1 )
is "$(ls "$T/d" | wc -l)" 1 "default directory: one per run, shared by all ranks"
ok "default directory holds experiment.xml" test -f "$T/d/$(ls "$T/d")/experiment.xml"

# ---- Fortran: runtime entry points and the Fortran MPI bindings ----
if [ -x "$B/rt_fortran" ]; then
    AUTOANALYZER_OUTPUT="$T/ft" AUTOANALYZER_COUNTERS=none timeout 120 $MPIRUN "$B/rt_fortran" >"$T/ft.out" 2>"$T/ft.err"
    is "$?" 0 "Fortran MPI program exits 0"
    "$RT_DUMP" "$T/ft/experiment.xml" >"$T/ft.dump" 2>&1
    for r in 0 1 2 3; do
        is "$(rt_val $T/ft.dump ROOT/main/comm mpi_bytes_sent $r)" 1264 "Fortran rank $r: bytes sent through mpi_*_ bindings"
        is "$(rt_val $T/ft.dump ROOT/main/comm mpi_bytes_recv $r)" 1264 "Fortran rank $r: bytes received"
        is "$(rt_val $T/ft.dump ROOT/main/comm mpi_calls $r)" 6 "Fortran rank $r: 6 MPI calls"
        is "$(rt_val $T/ft.dump ROOT/main/loop@20 visits $r)" 3 "Fortran rank $r: loop region visits"
        left=$(( (r + 3) % 4 ))
        is "$(grep "^ *check $r " "$T/ft.out" | tr -s ' ' | sed 's/^ //')" "check $r 16 $left $left" \
            "Fortran rank $r: MPI_IN_PLACE, requests and statuses converted correctly"
    done
else
    ok "no mpifort: Fortran bindings not tested # SKIP" true
fi

# ---- use mpi_f08: the generated mpi_*_f08_ bindings measure like C ----
if [ -x "$B/rt_fortran08" ]; then
    AUTOANALYZER_OUTPUT="$T/f8" AUTOANALYZER_COUNTERS=none timeout 120 $MPIRUN "$B/rt_fortran08" >"$T/f8.out" 2>"$T/f8.err"
    is "$?" 0 "mpi_f08 program exits 0"
    "$RT_DUMP" "$T/f8/experiment.xml" >"$T/f8.dump" 2>&1
    for r in 0 1 2 3; do
        is "$(rt_val $T/f8.dump ROOT/main/comm mpi_bytes_sent $r)" 1264 "mpi_f08 rank $r: bytes sent through mpi_*_f08_ bindings"
        is "$(rt_val $T/f8.dump ROOT/main/comm mpi_bytes_recv $r)" 1264 "mpi_f08 rank $r: bytes received"
        is "$(rt_val $T/f8.dump ROOT/main/comm mpi_calls $r)" 6 "mpi_f08 rank $r: 6 MPI calls"
        if [ $((r % 2)) = 0 ]; then s=800 g=0; else s=0 g=800; fi
        is "$(rt_val $T/f8.dump ROOT/main/p2p mpi_bytes_sent $r)/$(rt_val $T/f8.dump ROOT/main/p2p mpi_bytes_recv $r)" "$s/$g" \
            "mpi_f08 rank $r: Send/Recv bytes (received with MPI_STATUS_IGNORE counted)"
        if [ $r = 0 ]; then s=40 g=0; else s=0 g=40; fi
        is "$(rt_val $T/f8.dump ROOT/main/bcast mpi_bytes_sent $r)/$(rt_val $T/f8.dump ROOT/main/bcast mpi_bytes_recv $r)" "$s/$g" \
            "mpi_f08 rank $r: Bcast bytes by root"
        ok "mpi_f08 rank $r: MPI time measured" rt_num "$(rt_val $T/f8.dump ROOT/main/comm mpi_wall $r) > 0"
        left=$(( (r + 3) % 4 ))
        if [ $((r % 2)) = 0 ]; then pv=$r; else pv=$((r - 1)); fi
        is "$(grep "^ *check $r " "$T/f8.out" | tr -s ' ' | sed 's/^ //')" "check $r 16 $left $left $pv 7" \
            "mpi_f08 rank $r: MPI_IN_PLACE, requests, statuses and data unchanged"
    done
else
    ok "no mpifort: mpi_f08 bindings not tested # SKIP" true
fi

# ---- abnormal ends: each rank leaves rank-<N>.xml ----
for mode in segv term exit; do
    AUTOANALYZER_OUTPUT="$T/c-$mode" AUTOANALYZER_COUNTERS=none timeout 120 \
        mpirun --oversubscribe -np 2 "$B/rt_crash" $mode >"$T/c-$mode.out" 2>&1
    st=$?
    ok "$mode: mpirun reports the failure (status $st)" test "$st" != 0
    for r in 0 1; do
        "$RT_DUMP" "$T/c-$mode/rank-$r.xml" >"$T/c-$mode-$r.dump" 2>&1
        is "$?" 0 "$mode: rank $r left a valid profile"
        is "$(rt_val $T/c-$mode-$r.dump ROOT/main/doomed visits $r)" 1 "$mode: rank $r open region recorded"
        ok "$mode: rank $r open region closed with its time" rt_num "$(rt_val $T/c-$mode-$r.dump ROOT/main/doomed wall $r) >= 0.015"
    done
done
AUTOANALYZER_OUTPUT="$T/c-abort" AUTOANALYZER_COUNTERS=none timeout 120 \
    mpirun --oversubscribe -np 2 "$B/rt_crash" abort >"$T/c-abort.out" 2>&1
ok "MPI_Abort: non-zero status" test "$?" != 0
"$RT_DUMP" "$T/c-abort/rank-0.xml" >"$T/c-abort.dump" 2>&1
is "$(rt_env $T/c-abort.dump incomplete)" MPI_Abort "MPI_Abort: rank 0's profile written first"
is "$(ls "$T/c-abort" | grep -c '\.tmp\.')" 0 "no temporary files left behind"
done_testing
