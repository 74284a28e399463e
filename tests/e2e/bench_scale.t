#!/bin/bash
# tests/e2e/bench_scale.t -- the issue-19 benchmark scripts at a small size
# print the figures they exist for: bench/space_big.sh the number of foci
# perfdiff finds between a run with a slow group and one without (read
# from perfdiff's summary line, not 0 when they differ) and the times of
# the query and perfdiff; bench/collect_big.sh the collect times and that
# every thread count wrote the same bytes.
. "$(dirname "$0")/lib.sh"
[ -x "$AA_BUILD/tests/aa_synth" ] || skip_all "aa_synth not built (make all)"

BACKENDS=sqlite SPACE_ADD_OPTS=--no-analysis sh "$TOP/bench/space_big.sh" "$AA_BUILD" 100 12 >"$T/space.out" 2>&1
is $? 0 "space_big.sh runs"
like "$(cat "$T/space.out")" "space add b: [0-9.]+ s wall, [0-9.]+ s CPU, peak memory [0-9]+ MB" "space add timed"
like "$(cat "$T/space.out")" "query wall:median: [0-9.]+ s wall, [0-9.]+ s CPU" "query timed"
n=$(sed -n 's/.*perfdiff 2 1 (wall, 5%): [0-9.]* s wall, [0-9.]* s CPU, \([0-9]*\) of [0-9]* common foci differ.*/\1/p' "$T/space.out")
ok "perfdiff's differing foci counted (${n:-none}; the runs differ)" test "${n:-0}" -gt 0

sh "$TOP/bench/collect_big.sh" "$AA_BUILD" 80 12 1 3 >"$T/collect.out" 2>&1
is $? 0 "collect_big.sh runs"
like "$(cat "$T/collect.out")" "collect --threads 1: [0-9.]+ s wall, [0-9.]+ s CPU .*peak memory [0-9]+ MB, output [0-9]+ KB" "collect timed"
like "$(cat "$T/collect.out")" "collect --threads 3: .*, same bytes" "3 threads wrote the same bytes"
done_testing
