#!/bin/bash
# tests/e2e/runtime_settings.t -- settings parsed strictly and frames the
# runtime cannot see close (tests/runtime/rt_settings): out-of-range or
# garbage AUTOANALYZER_THROTTLE / AUTOANALYZER_CPU_INTERVAL_US and unknown
# AUTOANALYZER_CLOCK / AUTOANALYZER_SIGNALS values give one warning each on
# stderr and the defaults; every enter past the frame stack counts in
# unrecorded_enters; a longjmp across instrumented frames is detected
# (mismatched_exits) and what follows nests where it runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_settings" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1

AUTOANALYZER_THROTTLE=99999999999999999999999,1 AUTOANALYZER_CPU_INTERVAL_US=1e99 \
AUTOANALYZER_CLOCK=rdtscp AUTOANALYZER_SIGNALS=yes-please AUTOANALYZER_OUTPUT="$T/w" \
    "$B/rt_settings" jump >"$T/w.out" 2>"$T/w.err"
is "$?" 0 "bad settings: the program exits 0"
is "$(cat "$T/w.out")" "done" "bad settings: the program's output is unchanged"
is "$(grep -c "warning: AUTOANALYZER_THROTTLE='99999999999999999999999,1'" "$T/w.err")" 1 "THROTTLE out of range: one warning"
is "$(grep -c "warning: AUTOANALYZER_CPU_INTERVAL_US='1e99'" "$T/w.err")" 1 "CPU_INTERVAL_US out of range: one warning"
is "$(grep -c "warning: AUTOANALYZER_CLOCK='rdtscp'" "$T/w.err")" 1 "unknown CLOCK: one warning"
is "$(grep -c "warning: AUTOANALYZER_SIGNALS='yes-please'" "$T/w.err")" 1 "unknown SIGNALS: one warning"
"$RT_DUMP" "$T/w/experiment.xml" >"$T/w.dump" 2>&1
is "$(rt_env "$T/w.dump" throttle)" "100000,10" "THROTTLE: the default is used (not 0 = off)"
is "$(rt_env "$T/w.dump" cpu_interval_us)" 100 "CPU_INTERVAL_US: the default is used"
AUTOANALYZER_THROTTLE=abc,1 AUTOANALYZER_OUTPUT="$T/g" "$B/rt_settings" jump >/dev/null 2>"$T/g.err"
is "$(grep -c "warning: AUTOANALYZER_THROTTLE='abc,1'" "$T/g.err")" 1 "THROTTLE garbage: one warning"
AUTOANALYZER_THROTTLE=500,2 AUTOANALYZER_CPU_INTERVAL_US=50 AUTOANALYZER_CLOCK=monotonic AUTOANALYZER_SIGNALS=1 \
AUTOANALYZER_OUTPUT="$T/v" "$B/rt_settings" jump >/dev/null 2>"$T/v.err"
is "$(cat "$T/v.err")" "" "valid settings: no warning"
"$RT_DUMP" "$T/v/experiment.xml" >"$T/v.dump" 2>&1
is "$(rt_env "$T/v.dump" throttle)" "500,2" "valid THROTTLE used"
AUTOANALYZER_THROTTLE=500,2,5 AUTOANALYZER_OUTPUT="$T/f" "$B/rt_settings" jump >/dev/null 2>"$T/f.err"
is "$(cat "$T/f.err")" "" "THROTTLE with the tiers' least visits: no warning"
"$RT_DUMP" "$T/f/experiment.xml" >"$T/f.dump" 2>&1
is "$(rt_env "$T/f.dump" throttle)" "500,2,5" "THROTTLE CALLS,USEC,FIRST used and recorded"
AUTOANALYZER_THROTTLE=500,2,501 AUTOANALYZER_OUTPUT="$T/f2" "$B/rt_settings" jump >/dev/null 2>"$T/f2.err"
is "$(grep -c "warning: AUTOANALYZER_THROTTLE='500,2,501'" "$T/f2.err")" 1 "THROTTLE FIRST above CALLS: one warning"
"$RT_DUMP" "$T/f2/experiment.xml" >"$T/f2.dump" 2>&1
is "$(rt_env "$T/f2.dump" throttle)" "100000,10" "THROTTLE FIRST above CALLS: the default is used"

# every enter past the 512 frames counts
AUTOANALYZER_OUTPUT="$T/d" "$B/rt_settings" deep >/dev/null 2>&1
"$RT_DUMP" "$T/d/experiment.xml" >"$T/d.dump" 2>&1
is "$(rt_attr "$T/d.dump" 0 unrecorded_enters)" 90 "600 nested enters, 510 recorded: 90 unrecorded"

# longjmp across instrumented frames
D="$T/w.dump"
is "$(rt_attr $D 0 mismatched_exits)" 2 "longjmp over middle and inner: 2 mismatched exits"
is "$(rt_val $D ROOT/main/outer/after visits)" 1 "the region entered after the jump nests under outer"
is "$(grep -c 'inner/after' $D)" 0 "nothing nests under the abandoned frames"
done_testing
