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
done
done_testing
