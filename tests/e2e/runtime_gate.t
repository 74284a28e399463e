#!/bin/bash
# tests/e2e/runtime_gate.t -- throttled calling contexts gated at the probe
# (tests/runtime/rt_gate, runtime/aa_probe.h aa_runtime_enter_scope): after
# throttling, a tiny leaf entered through the scope form is only counted
# inline in its parent's context, and so is a tiny function whose child is
# gated (with that child, counted where it belongs), the same leaf in a heavy context stays
# measured, enter/exit pairs keep the runtime's throttled path, each thread
# gates in its own tree, every visit is counted (visits + untimed_visits
# exact), and the program's output is the same as without the runtime.
# Those checks run with TAU's one-tier rule (AUTOANALYZER_THROTTLE=
# 100000,10,100000: exact counts); the default rule's earlier tiers (a
# node of under 100 ns after 1,000 visits, under 1 us after 10,000) are
# checked on a second run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_gate" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1

AUTOANALYZER_THROTTLE=100000,10,100000 AUTOANALYZER_OUTPUT="$T/g" "$B/rt_gate" >"$T/g.out" 2>"$T/g.err"
is "$?" 0 "rt_gate exits 0 with the runtime"
AUTOANALYZER_DISABLE=1 "$B/rt_gate" >"$T/plain.out" 2>&1
is "$(cat "$T/g.out")" "$(cat "$T/plain.out")" "output unchanged by measurement and gating"
is "$(cat "$T/g.err")" "" "nothing on stderr"
"$RT_DUMP" "$T/g/experiment.xml" >"$T/g.dump" 2>&1
is "$?" 0 "profile valid"
D="$T/g.dump"
total() { local v u; v=$(rt_val $D "$1" visits "$2" "$3"); u=$(rt_val $D "$1" untimed_visits "$2" "$3"); echo $(( ${v:-0} + ${u:-0} )); }
is "$(rt_val $D ROOT/main/hot/leaf visits)" 100000 "hot leaf: timed until throttled (100,000 visits)"
is "$(total ROOT/main/hot/leaf 0 0)" 600000 "hot leaf: visits + untimed_visits = all 600,000 visits"
like "$(grep "^node 0 0 ROOT/main/hot/leaf " $D)" "throttled$" "hot leaf flagged throttled (partial values)"
is "$(rt_val $D ROOT/main/heavy/leaf visits)" 50 "the same leaf under heavy(): all 50 visits timed"
is "$(rt_val $D ROOT/main/heavy/leaf untimed_visits)" 0 "heavy context: nothing untimed"
is "$(grep -c "^node 0 0 ROOT/main/heavy/leaf .*throttled$" $D)" 0 "heavy context not throttled"
ok "heavy leaf timed (cpu > 0)" rt_num "$(rt_val $D ROOT/main/heavy/leaf cpu) > 0"
is "$(total ROOT/main/pairs/pair_leaf 0 0)" 300000 "enter/exit pairs: the runtime's throttled path counts too"
is "$(rt_val $D ROOT/main/hot visits)" 2 "hot entered twice"
is "$(grep -c ' ROOT/main/leaf ' $D)" 0 "no stray leaf node under main"
is "$(total ROOT/main/outer/mid 0 0)" 300000 "mid (non-leaf, its child gated): visits + untimed_visits = 300,000"
is "$(total ROOT/main/outer/mid/leaf 0 0)" 300000 "its leaf: visits + untimed_visits = 300,000, still under mid"
is "$(grep -c ' ROOT/main/outer/leaf ' $D)" 0 "the gated subtree's leaf is not moved under outer"
ok "mid gated too: it takes almost no time in outer after throttling (visits 100,000 timed)" \
    test "$(rt_val $D ROOT/main/outer/mid visits)" = 100000
is "$(total ROOT/main/ios/io_leaf 0 0)" 150000 "io_leaf: visits + untimed_visits = 150,000"
like "$(grep "^node 0 0 ROOT/main/ios/io_leaf " $D)" "throttled$" "io_leaf throttled"
is "$(rt_val $D ROOT/main/ios/io_leaf io_calls)" 150000 "io_leaf: all its 150,000 writes stay its own"
# a message layer's send: tiny caller/sender gated with measured children below
S=ROOT/main/sends/caller
is "$(total $S 0 0)" 300000 "caller: visits + untimed_visits = 300,000"
is "$(total $S/sender 0 0)" 300000 "sender: visits + untimed_visits = 300,000"
like "$(grep "^node 0 0 $S/sender " $D)" "throttled$" "sender throttled"
is "$(rt_val $D $S/sender/handler visits)" 15 "handler: all 15 visits timed, under sender"
is "$(rt_val $D $S/sender/handler untimed_visits)" 0 "handler: nothing untimed"
ok "handler timed (wall > 0)" rt_num "$(rt_val $D $S/sender/handler wall) > 0"
is "$(rt_val $D $S/sender/late visits)" 3 "late (first entered after sender was gated): 3 visits, under sender"
is "$(grep -c ' ROOT/main/sends/[a-z]*/*handler \| ROOT/main/sends/[a-z]*/*late ' $D)" 0 "no handler or late nested higher"
is "$(rt_val $D $S/sender io_calls)" 6 "sender's 6 writes are its own"
for th in 1 2; do
    is "$(total ROOT/worker/leaf 0 $th)" 200000 "thread $th: visits + untimed_visits = 200,000"
done
is "$(rt_attr $D 0 gated_nodes)" 9 "gated nodes: hot/leaf, pairs/pair_leaf, outer/mid, outer/mid/leaf, ios/io_leaf, sends/caller, sends/caller/sender, one per worker"
is "$(rt_attr $D 0 gated_visits)" 1550000 "gated_visits: every untimed visit but the enter/exit pairs' 200,000 was counted at the probe"
is "$(rt_attr $D 0 mismatched_exits)" 0 "no mismatched exit"

is "$(rt_val $D ROOT/main/warm/leaf visits)" 30000 "one tier: warm leaf (30,000 visits) not throttled"
is "$(rt_env $D throttle)" "100000,10,100000" "the experiment records the tiers' least visits"

# the default rule: earlier tiers for nodes far under USEC (visits are
# ranges: a preemption while the first visits are timed moves a node to
# a later tier)
AUTOANALYZER_OUTPUT="$T/d" "$B/rt_gate" >"$T/d.out" 2>"$T/d.err"
is "$(cat "$T/d.out")" "$(cat "$T/plain.out")" "default tiers: output unchanged"
"$RT_DUMP" "$T/d/experiment.xml" >"$T/d.dump" 2>&1
D="$T/d.dump"
v=$(rt_val $D ROOT/main/hot/leaf visits)
ok "hot leaf (a few ns): throttled by an early tier (1,000 <= $v < 100,000 timed visits)" test "${v:-0}" -ge 1000 -a "${v:-0}" -lt 100000
is "$(total ROOT/main/hot/leaf 0 0)" 600000 "hot leaf: visits + untimed_visits = 600,000"
v=$(rt_val $D ROOT/main/warm/leaf visits)
ok "warm leaf (a few hundred ns): not throttled after 1,000 visits ($v timed)" test "${v:-0}" -ge 10000
is "$(total ROOT/main/warm/leaf 0 0)" 30000 "warm leaf: visits + untimed_visits = 30,000"
is "$(rt_val $D ROOT/main/heavy/leaf visits)" 50 "default tiers: the heavy context keeps all 50 visits timed"
is "$(rt_val $D $S/sender/handler visits)" 15 "default tiers: handler's 15 visits timed, under sender"
is "$(rt_env $D throttle)" "100000,10" "the default rule is recorded as 100000,10"

# the tiers on means the load cannot move across a limit: CALLS 1000,
# USEC 1 s, FIRST 10 -- tiers at 10 visits (< 10 ms), 100 (< 100 ms) and
# 1000 (< 1 s); nap() sleeps 12 ms per visit, leaf() takes a few ns
AUTOANALYZER_THROTTLE=1000,1000000,10 AUTOANALYZER_OUTPUT="$T/tiers" "$B/rt_gate" tiers >"$T/tiers.out" 2>"$T/tiers.err"
is "$(cat "$T/tiers.err")" "" "tiers run: nothing on stderr"
"$RT_DUMP" "$T/tiers/experiment.xml" >"$T/tiers.dump" 2>&1
D="$T/tiers.dump"
is "$(rt_val $D ROOT/main/hot/leaf visits)" 10 "leaf (a few ns): throttled by the first tier (10 visits under 10 ms)"
is "$(rt_val $D ROOT/main/naps/nap visits)" 100 "nap (12 ms): not by the first tier, by the second (100 visits under 100 ms)"
like "$(grep "^node 0 0 ROOT/main/naps/nap " $D)" "throttled$" "nap flagged throttled"
is "$(total ROOT/main/naps/nap 0 0)" 110 "nap: visits + untimed_visits = 110"
is "$(rt_val $D ROOT/main/naps visits)" 1 "naps (1.3 s, one visit) measured"

# disabled: every scope probe stops at the gates, nothing is written
AUTOANALYZER_DISABLE=1 RT_GATE_SHOW_OFF=1 AUTOANALYZER_OUTPUT="$T/dis" "$B/rt_gate" >"$T/dis.out" 2>"$T/dis.err"
is "$(cat "$T/dis.err")" "scope probes stopped at the gates: 1" "AUTOANALYZER_DISABLE: the probes stop at the gates"
is "$(cat "$T/dis.out")" "$(cat "$T/g.out")" "AUTOANALYZER_DISABLE: output unchanged"
ok "AUTOANALYZER_DISABLE: nothing written" test ! -e "$T/dis"

# throttling off: nothing throttled or gated, every visit timed
AUTOANALYZER_THROTTLE=off AUTOANALYZER_OUTPUT="$T/off" "$B/rt_gate" >"$T/off.out" 2>&1
"$RT_DUMP" "$T/off/experiment.xml" >"$T/off.dump" 2>&1
is "$(rt_val $T/off.dump ROOT/main/hot/leaf visits)" 600000 "THROTTLE=off: all visits timed"
is "$(rt_attr $T/off.dump 0 gated_nodes)" 0 "THROTTLE=off: nothing gated"
done_testing
