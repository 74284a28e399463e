#!/bin/bash
# tests/e2e/runtime_load.t -- wall time on a loaded CPU lands where it
# happened: tests/runtime/rt_load runs pinned to one CPU beside three busy
# loops pinned there too.  The short helper neighbours() (called once per
# iteration of force()) must not collect the time the thread spent off the
# CPU: its wall/CPU ratio may not exceed the enclosing force()'s.  (The
# runtime's periodic thread-CPU-clock read is a system call, where the
# scheduler switches threads; read after a region's start, it charged the
# whole time off the CPU to that region.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_load" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
command -v taskset >/dev/null || skip_all "taskset not installed"
cd "$T" || exit 1
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
hogs=""
for i in 1 2 3; do taskset -c "$cpu" timeout 30 sh -c 'while :; do :; done' & hogs="$hogs $!"; done
for r in 1 2; do
    AUTOANALYZER_THROTTLE=0 AUTOANALYZER_OUTPUT="$T/l$r" taskset -c "$cpu" "$B/rt_load" 150000
    "$RT_DUMP" "$T/l$r/experiment.xml" >"$T/l$r.dump" 2>&1
done
kill $hogs 2>/dev/null
wait 2>/dev/null
for r in 1 2; do
    D="$T/l$r.dump"
    fw=$(rt_val $D ROOT/main/force wall_excl); fc=$(rt_val $D ROOT/main/force cpu)
    nw=$(rt_val $D ROOT/main/force/neighbours wall); nc=$(rt_val $D ROOT/main/force/neighbours cpu)
    ok "run $r: the load was felt (main wall $(rt_val $D ROOT/main wall) >= 2 x cpu $(rt_val $D ROOT/main cpu))" \
        rt_num "$(rt_val $D ROOT/main wall) >= 2 * $(rt_val $D ROOT/main cpu)"
    ok "run $r: helper wall/cpu $nw/$nc <= force's own $fw/($fc - $nc) (+20%)" \
        rt_num "$nw / $nc <= 1.2 * $fw / ($fc - $nc) + 0.2"
    # the CPU's pace (runtime/probe.c pace_sample): a spin at most once a
    # millisecond of the run, 256 kept, then every other one dropped and
    # half as many timed -- a run of 0.3 s or more keeps 128-256; the
    # spins the hogs preempted fall outside the middle half
    mw=$(rt_val $D ROOT/main wall); pn=$(rt_attr $D 0 pace_samples); ps=$(rt_attr $D 0 pace_ns)
    if rt_num "$mw >= 0.3"; then
        ok "run $r: $pn spins kept over a $mw-s run (128-256)" rt_num "${pn:-0} >= 128 && ${pn:-0} <= 256"
    else
        ok "run $r: $pn spins kept over a $mw-s run (at most one a millisecond)" \
            rt_num "${pn:-0} >= 1 && ${pn:-0} <= 1000 * $mw + 1"
    fi
    ok "run $r: a spin of $ps ns beside three hogs on its CPU (100 ns - 5 us)" \
        rt_num "${ps:-0} >= 100 && ${ps:-0} <= 5000"
done
done_testing
