#!/bin/bash
# tests/e2e/runtime_serial.t -- the measurement runtime in non-MPI programs:
# tests/runtime/rt_serial (hand-annotated, shared and static library) and
# rt_pthread (plain and under ThreadSanitizer).  Profiles are read back with
# the profile reader (runtime_dump) and checked for structure and values:
# exact visits and I/O bytes, sleep wall >> cpu, busy cpu equal to the
# thread CPU clock within the documented bound, fake counters exact, PAPI
# counters recorded unavailable, throttling, mismatched exits, exit() and
# fatal signals still leaving a profile.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_serial" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1

run_serial() { # outdir prog args...
    # the braces take the shell's own report of a deliberate signal death
    # ("Segmentation fault", "Terminated") out of the test log; the status stays
    local out=$1; shift
    { AUTOANALYZER_OUTPUT="$T/$out" "$@" >"$T/$out.stdout" 2>"$T/$out.stderr"; } 2>"$T/$out.shell"
}

# ---- normal run, fake counters, low throttle threshold ----
AUTOANALYZER_COUNTERS=fake AUTOANALYZER_THROTTLE=100,10 AUTOANALYZER_ENV_VARS=HOME,AA_NOPE \
AUTOANALYZER_INPUTS="$B/rt_serial" AUTOANALYZER_GIT_REV=abc123 \
    run_serial s1 "$B/rt_serial" normal "$T"
is "$?" 0 "rt_serial exits 0 with the runtime"
ok "experiment.xml written and valid" "$RT_DUMP" "$T/s1/experiment.xml"
"$RT_DUMP" "$T/s1/experiment.xml" >"$T/s1.dump" 2>&1
D="$T/s1.dump"
is "$(rt_val $D ROOT/main visits)" 1 "main visited once"
is "$(rt_val $D ROOT/main/loop@60/leaf visits)" 5 "leaf inside the loop: 5 visits"
is "$(rt_val $D ROOT/main/rec/rec/rec/rec visits)" 1 "recursion gives a chain of 4 nodes"
is "$(rt_val $D ROOT/main/early visits)" 3 "scope form: 3 visits with early returns"
is "$(rt_val $D ROOT/main/after_early visits)" 1 "region after early returns nests under main"
is "$(grep -c '^node 0 0 ROOT/main/early/' $D)" 0 "nothing left open inside early"
is "$(rt_val $D ROOT/main/io_region io_write_bytes)" 3600 "I/O region: exact bytes written (write/pwrite/fwrite)"
is "$(rt_val $D ROOT/main/io_region io_read_bytes)" 1500 "I/O region: exact bytes read (read/fread)"
is "$(rt_val $D ROOT/main/io_region io_calls)" 16 "I/O region: 7 data calls + 9 metadata calls (open, close, fopen, fclose, unlink)"
io_cpu=$(rt_val $D ROOT/main/io_region io_cpu)
io_time=$(rt_val $D ROOT/main/io_region io_time)
# a call's CPU time may exceed its wall time by the misplaced part of a real
# read's correction that lands in it (cpu_fix; docs/runtime.md, Timing)
io_fix=$(rt_val $D ROOT/main/io_region cpu_fix)
ok "I/O region: CPU time inside the I/O calls recorded, 0 <= io_cpu ($io_cpu) <= io_time ($io_time) + cpu_fix ($io_fix)" \
    awk -v c="$io_cpu" -v t="$io_time" -v f="$io_fix" 'BEGIN { exit !(c != "" && c >= 0 && c <= t + f + 1e-9 && t > 0) }'
io_rcpu=$(rt_val $D ROOT/main/io_region cpu)
ok "io_cpu ($io_cpu) within the region's CPU time ($io_rcpu) + cpu_fix ($io_fix)" \
    awk -v c="$io_cpu" -v u="$io_rcpu" -v f="$io_fix" 'BEGIN { exit !(c <= u + f + 1e-6) }'
ok "cpu_fix recorded, >= 0 and at most the program's wall time (each correction is at most its window)" \
    awk -v f="$(rt_val $D ROOT cpu_fix)" -v u="$(rt_val $D ROOT wall)" 'BEGIN { exit !(f != "" && f >= 0 && f <= u + 1e-6) }'
truth_len=$(grep '^truth' "$T/s1.stdout" | wc -c)
is "$(rt_val $D ROOT/main io_write_bytes)" $((3600 + truth_len)) "I/O is inclusive in the parent (+ the printf of main)"
is "$(rt_val $D ROOT io_write_bytes)" $((3600 + $(wc -c < "$T/s1.stdout"))) "the program's stdout counted, the profile writes not"
sw=$(rt_val $D ROOT/main/sleep_region wall); sc=$(rt_val $D ROOT/main/sleep_region cpu)
ok "sleep region: wall $sw >= 0.19 s" rt_num "$sw >= 0.19"
ok "sleep region: cpu $sc << wall" rt_num "$sc < 0.002 && $sc * 50 < $sw"
bw=$(rt_val $D ROOT/main/busy_region wall); bc=$(rt_val $D ROOT/main/busy_region cpu)
truth=$(sed -n 's/^truth 0 .*busy_cpu=\([0-9.]*\).*/\1/p' "$T/s1.stdout")
ok "busy region: cpu $bc = thread CPU clock $truth within 0.5 ms (2 x 100 us bound + slack)" \
    rt_num "$bc - $truth < 0.0005 && $truth - $bc < 0.0005"
ok "busy region: cpu <= wall ($bw)" rt_num "$bc <= $bw"
bq=$(rt_val $D ROOT/main/busy_region cpu_sq)
ok "busy region, one visit: cpu_sq $bq = cpu^2" rt_num "$bq > 0 && ($bq - $bc * $bc) < 1e-6 * $bq && ($bc * $bc - $bq) < 1e-6 * $bq"
lc=$(rt_val $D ROOT/main/loop@60/leaf cpu); lq=$(rt_val $D ROOT/main/loop@60/leaf cpu_sq)
ok "leaf, 5 visits: cpu^2/5 <= cpu_sq $lq <= cpu^2 ($lc)" rt_num "$lq * 5 >= $lc * $lc * 0.999999 && $lq <= $lc * $lc * 1.000001"
is "$(rt_val $D ROOT/main/loop@60/leaf instructions)" 2500 "fake counters: leaf = 5 visits x 500"
is "$(rt_val $D ROOT/main/loop@60 instructions)" 5500 "fake counters: loop = 11 probe events x 500"
is "$(rt_val $D ROOT/main/loop@60/leaf cycles)" 5000 "fake counters: cycles"
is "$(rt_attr $D 0 mismatched_exits)" 2 "two mismatched exits counted (one repaired, one stray)"
is "$(rt_val $D ROOT/main/mis_a/mis_b visits)" 1 "region left open by a mismatched exit is closed"
ok "deep recursion beyond the stack limit: enters not recorded, counted" rt_num "$(rt_attr $D 0 unrecorded_enters) >= 1"
like "$(grep "^node 0 0 ROOT/main/tiny " $D)" "visits=1[0-9][0-9] .* throttled$" "tiny region throttled after 100 short visits"
is "$(rt_attr $D 0 throttled_nodes)" 1 "one throttled node reported"
# the scheduler's run delay (time runnable, waiting for a CPU) over the run,
# where the kernel keeps it (/proc/self/schedstat)
rd=$(rt_attr $D 0 run_delay)
if [ -r /proc/self/schedstat ]; then
    ok "run delay recorded: $rd s, between 0 and the run's wall time" \
        rt_num "${rd:--1} >= 0 && ${rd:--1} <= $(rt_val $D ROOT wall)"
else
    is "$rd" "" "no scheduler statistics here: no run delay recorded"
fi
# the CPUs the process ran on, sampled at the CPU-time reads (at most one a
# millisecond): CPU ids of this machine, shares of at most 1, largest first
cs=$(rt_attr $D 0 cpus)
like "$cs" '^[0-9]+:[01]\.[0-9]{3}(,[0-9]+:[01]\.[0-9]{3}){0,3}$' "the CPUs it ran on recorded: $cs"
ok "... on CPUs of this machine ($(nproc) online), shares summing to at most 1, largest first" \
    awk -v s="$cs" -v n="$(getconf _NPROCESSORS_CONF)" 'BEGIN { k = split(s, a, ","); t = 0; prev = 2
        for (i = 1; i <= k; i++) { split(a[i], b, ":"); if (b[1] + 0 >= n || b[2] + 0 > prev) exit 1
            prev = b[2] + 0; t += b[2] } exit !(t <= 1.002) }'
# the CPU's pace: a spin of 500 dependent additions timed at those samples
# (the mean of the middle half of its times; analyze/pace.c), at least
# 0.2 ns an addition and far less than a millisecond in all
ps=$(rt_attr $D 0 pace_ns); pm=$(rt_attr $D 0 pace_mad_ns); pn=$(rt_attr $D 0 pace_samples)
ok "the CPU's pace recorded: a spin of ${ps:-?} ns, MAD ${pm:-?} ns, ${pn:-?} samples" \
    rt_num "${ps:-0} >= 100 && ${ps:-0} < 1e5 && ${pm:--1} >= 0 && ${pn:-0} >= 1 && ${pn:-0} <= 3 * 256"
is "$(grep -c ' ROOT/main/paused_region ' $D)" 0 "region entered while paused is not recorded"
is "$(rt_val $D ROOT/main/user_block/user_inner visits)" 1 "user regions by name nest"
is "$(rt_val $D ROOT/main/fortran_sub visits)" 1 "Fortran entry point (blank-padded name)"
is "$(rt_attr $D 0 threads)" 3 "three threads (OpenMP team of 3)"
is "$(rt_val $D ROOT/omp_work visits 0 1)" 1 "worker thread 1 has its own tree"
is "$(rt_val $D ROOT/omp_work visits 0 2)" 1 "worker thread 2 has its own tree"
is "$(rt_val $D ROOT instructions 0 1)" 1000 "open root of another thread: counters up to its last probe (2 events x 500)"
is "$(rt_env $D env:AA_NOPE)" "(unset)" "environment variable named by the user recorded"
like "$(rt_env $D "input:$B/rt_serial")" '^size=[0-9]+ mtime=' "input file size and mtime recorded"
is "$(rt_env $D git_revision)" abc123 "git revision from AUTOANALYZER_GIT_REV"
like "$(rt_env $D command)" 'rt_serial normal' "command line recorded"
is "$(rt_env $D compiler)" "test-cc 1.0" "compiler recorded from the wrapper's symbol"
is "$(grep '^proc 0' $D | sed 's/.*unavailable=//')" "" "fake counters: nothing unavailable"

# ---- default PAPI backend: the VM has no counters -> unavailable, NAN ----
run_serial s2 "$B/rt_serial" normal "$T"
is "$?" 0 "runs to completion with PAPI counters missing"
"$RT_DUMP" "$T/s2/experiment.xml" >"$T/s2.dump" 2>&1
if [ "$(rt_env $T/s2.dump papi_version)" = unavailable ] || ! grep -q '^proc 0 .*unavailable=$' "$T/s2.dump"; then
    like "$(grep '^proc 0' $T/s2.dump)" 'unavailable=cycles,instructions,l1_dcm,l1_dca,l2_dcm,l2_dca' \
        "PAPI events recorded unavailable"
    is "$(rt_val $T/s2.dump ROOT/main cycles)" nan "unavailable counter values are NAN"
else
    ok "PAPI counters available on this machine" true
    ok "PAPI counter values recorded" rt_num "$(rt_val $T/s2.dump ROOT/main cycles) > 0"
fi
# no processor counters at all (no cpu PMU in the kernel): PAPI is not even
# loaded for the presets (its initialisation would only find them missing);
# a software event of the perf_event component is still asked of PAPI
if ! ls /sys/bus/event_source/devices 2>/dev/null | grep -q '^cpu'; then
    LD_DEBUG=libs run_serial s2p "$B/rt_serial" normal "$T"
    ok "no cpu PMU: libpapi not loaded for the preset events" sh -c "! grep -q 'libpapi' '$T/s2p.stderr'"
    if /sbin/ldconfig -p 2>/dev/null | grep -q libpapi; then
        AUTOANALYZER_PAPI_EVENTS=perf::TASK-CLOCK LD_DEBUG=libs run_serial s2q "$B/rt_serial" normal "$T"
        ok "no cpu PMU: a software event still loads libpapi" grep -q 'libpapi' "$T/s2q.stderr"
    fi
fi
AUTOANALYZER_PAPI_EVENTS=PAPI_TOT_INS,PAPI_FP_OPS AUTOANALYZER_COUNTERS=fake \
    run_serial s3 "$B/rt_serial" normal "$T"
"$RT_DUMP" "$T/s3/experiment.xml" >"$T/s3.dump" 2>&1
is "$(rt_val $T/s3.dump ROOT/main/loop@60/leaf papi_fp_ops)" 2500 "extra event named papi_<lowercase>"
AUTOANALYZER_COUNTERS=none run_serial s4 "$B/rt_serial" normal "$T"
is "$(grep -c 'cycles=' $T/s4/experiment.xml; "$RT_DUMP" "$T/s4/experiment.xml" | grep -c ' cycles=')" "0
0" "AUTOANALYZER_COUNTERS=none: no counter metrics"

# ---- static library: interposition and probes still work ----
AUTOANALYZER_COUNTERS=none run_serial st "$B/rt_serial_static" normal "$T"
is "$?" 0 "statically linked runtime: exits 0"
"$RT_DUMP" "$T/st/experiment.xml" >"$T/st.dump" 2>&1
is "$(rt_val $T/st.dump ROOT/main/io_region io_write_bytes)" 3600 "static library: I/O bytes written"
is "$(rt_val $T/st.dump ROOT/main/loop@60/leaf visits)" 5 "static library: visits"
is "$(rt_env $T/st.dump compiler)" "test-cc 1.0" "static library: compiler symbol"

# ---- abnormal ends ----
AUTOANALYZER_COUNTERS=none run_serial ex "$B/rt_serial" exit "$T"
is "$?" 3 "exit(3) inside a region: status kept"
"$RT_DUMP" "$T/ex/experiment.xml" >"$T/ex.dump" 2>&1
is "$(rt_val $T/ex.dump ROOT/main/ending visits)" 1 "exit(): profile written, open region present"
ok "exit(): open regions closed at exit" rt_num "$(rt_val $T/ex.dump ROOT/main wall) >= $(rt_val $T/ex.dump ROOT/main/ending wall)"
for sig in segv term; do
    AUTOANALYZER_COUNTERS=none run_serial "$sig" "$B/rt_serial" "$sig" "$T"
    st=$?
    case $sig in segv) want=139 ;; term) want=143 ;; esac
    is "$st" "$want" "$sig: the program still dies of the signal"
    ok "$sig: a profile is left" "$RT_DUMP" "$T/$sig/rank-0.xml"
    "$RT_DUMP" "$T/$sig/rank-0.xml" >"$T/$sig.dump" 2>&1
    like "$(rt_env $T/$sig.dump incomplete)" '^signal' "$sig: profile marked incomplete"
    is "$(rt_val $T/$sig.dump ROOT/main/ending visits)" 1 "$sig: region open at the signal recorded"
done
is "$(ls "$T/segv" | grep -c tmp)" 0 "no temporary files left"

# ---- pthreads, and ThreadSanitizer ----
AUTOANALYZER_COUNTERS=fake run_serial pt "$B/rt_pthread"
is "$?" 0 "pthread program exits 0"
"$RT_DUMP" "$T/pt/experiment.xml" >"$T/pt.dump" 2>&1
is "$(rt_attr $T/pt.dump 0 threads)" 5 "main + 4 threads recorded"
# visits + untimed_visits: a thread may throttle inner (a few ns) after 1,000 visits
is "$(awk '/ ROOT\/thread_body\/inner / { v = u = 0; for (i = 1; i <= NF; i++) { if ($i ~ /^visits=/) v = substr($i, 8)
        if ($i ~ /^untimed_visits=/) u = substr($i, 16) } if (v + u == 2000) n++ } END { print n + 0 }' $T/pt.dump)" 4 \
    "each thread: inner visited 2000 times"
is "$(grep -c ' ROOT/thread_body/worker_user visits=1 ' $T/pt.dump)" 4 "user regions from threads"
if [ -x "$B/rt_pthread_tsan" ]; then
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" AUTOANALYZER_COUNTERS=fake run_serial tsan "$B/rt_pthread_tsan"
    st=$?
    is "$st" 0 "ThreadSanitizer: no data race reported"
    [ "$st" = 0 ] || sed 's/^/#   /' "$T/tsan.stderr" | head -30
    ok "ThreadSanitizer build wrote its profile" "$RT_DUMP" "$T/tsan/experiment.xml"
fi

# ---- profiling failures never break the program ----
AUTOANALYZER_OUTPUT=/proc/nonexistent/dir "$B/rt_serial" normal "$T" >"$T/bad.out" 2>"$T/bad.err"
is "$?" 0 "unwritable output directory: program still exits 0"
is "$(grep -c autoanalyzer: "$T/bad.err")" 1 "one message on stderr"
AUTOANALYZER_THROTTLE=bogus AUTOANALYZER_OUTPUT="$T/bt" "$B/rt_serial" normal "$T" >/dev/null 2>"$T/bt.err"
is "$?" 0 "bad AUTOANALYZER_THROTTLE: program still runs"
like "$(cat "$T/bt.err")" 'AUTOANALYZER_THROTTLE' "bad setting named on stderr"

# ---- AUTOANALYZER_DISABLE: nothing measured, nothing written ----
mkdir "$T/dis" && ( cd "$T/dis" && AUTOANALYZER_DISABLE=1 "$B/rt_serial" normal "$T" >/dev/null 2>"$T/dis.err" )
is "$?" 0 "AUTOANALYZER_DISABLE=1: program runs"
is "$(ls "$T/dis" | wc -l)" 0 "AUTOANALYZER_DISABLE=1: no output directory"

# ---- default output directory ----
( cd "$T" && mkdir dflt && cd dflt && AUTOANALYZER_COUNTERS=none "$B/rt_pthread" )
like "$(ls "$T/dflt")" '^autoanalyzer-rt_pthread-[0-9]{8}-[0-9]{6}$' "default ./autoanalyzer-<program>-<date>-<time>/"
# ---- times in whole nanoseconds (the binary form stores them as integers) ----
ns_check() { # experiment.xml: prints "time values / not whole ns"
    python3 - "$1" <<'PY'
import re, sys
from decimal import Decimal
t = open(sys.argv[1]).read()
units = [u for _, u in re.findall(r'<metric name="([^"]+)" unit="([^"]+)"', t)]
n = bad = 0
for v in re.findall(r' v="([^"]*)"', t):
    for u, x in zip(units, v.split()):
        if u == 's' and x != '-':
            n += 1
            bad += (Decimal(x) * 10**9) % 1 != 0
print(n, bad)
PY
}
read -r nt nb <<<"$(ns_check "$T/s1/experiment.xml")"
ok "the profile has time values ($nt)" test "${nt:-0}" -gt 10
is "$nb" 0 "every time value is a whole number of nanoseconds"
done_testing
