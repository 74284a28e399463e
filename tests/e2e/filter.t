#!/usr/bin/env bash
# `autoanalyzer filter` (docs/instrument.md, "Profile filter") on a
# synthetic two-rank experiment: the tiny hot functions (many visits, a few
# ns each, or throttled) are listed, the others not (few visits, long
# visits, loops, main); the file is Score-P's format and `instrument
# --filter` reads it; `instrument --filter-from` and the experiment.xml
# beside a --refine analysis apply it, a refined function is never
# filtered; bad input is exit 3 and writes nothing.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
mkdir run
cat > run/experiment.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="e1" program="p" nprocs="2">
  <environment/>
  <metrics>
    <metric name="visits" unit="count"/>
    <metric name="wall" unit="s"/>
  </metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="10" kind="function" name="lookup" function="lookup" file="app.c" line="3"/>
    <region id="11" kind="function" name="solve" function="solve" file="app.c" line="9"/>
    <region id="12" kind="function" name="mix" function="mix" file="app.c" line="5"/>
    <region id="13" kind="function" name="main" function="main" file="app.c" line="20"/>
    <region id="14" kind="function" name="medium" function="medium" file="app.c" line="15"/>
    <region id="15" kind="loop" name="loop@11" function="solve" file="app.c" line="11"/>
  </regions>
  <process rank="0" host="h" pid="1">
    <thread id="0">
      <node region="0" parent="-1" v="1 10"/>
      <node region="13" parent="0" v="1 10"/>
      <node region="11" parent="1" v="100 9"/>
      <node region="10" parent="2" v="40000000 0.4"/>
      <node region="15" parent="2" v="100 8"/>
      <node region="12" parent="1" v="100000 0.0005" flags="throttled"/>
      <node region="14" parent="1" v="200000 1"/>
    </thread>
  </process>
  <process rank="1" host="h" pid="2">
    <thread id="0">
      <node region="0" parent="-1" v="1 8"/>
      <node region="13" parent="0" v="1 8"/>
      <node region="11" parent="1" v="100 7"/>
      <node region="10" parent="2" v="20000000 0.2"/>
    </thread>
  </process>
</experiment>
X
cat > expected.filter <<'X'
# autoanalyzer filter: 2 functions visited >= 100000 times at < 1000 ns per visit
# probe cost estimated at 30 ns per visit; expected saving 0.901 s per process (9.0% of the run)
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE lookup # 60000000 visits, 10.0 ns per visit, saves 1.8 s
  EXCLUDE mix # >= 100000 visits, 5.0 ns per visit, saves 0.003 s
SCOREP_REGION_NAMES_END
X
expect_status 0 "filter --from experiment.xml" sh -c "'$AA' filter --from run/experiment.xml > out.filter"
is "$(cat out.filter)" "$(cat expected.filter)" "lookup (60e6 visits of 10 ns) and throttled mix listed, largest saving first"
expect_status 0 "filter --from a run directory, -o" sh -c "'$AA' filter --from run -o f.filter > summary"
is "$(cat f.filter)" "$(cat expected.filter)" "-o writes the same file"
like "$(cat summary)" "expected saving: 0.901 s per process \\(9.0% of the run's 10 s\\)" "summary: saving per process and share of the run"
like "$(cat summary)" "lookup +60000000 visits" "summary lists each function"
expect_status 0 "--min-visits 1e9" sh -c "'$AA' filter --from run --min-visits 1e9 > hi.filter"
is "$(grep -c EXCLUDE hi.filter)" 1 "with a higher visit threshold only the throttled mix stays"
expect_status 0 "--max-ns-per-visit 10000" sh -c "'$AA' filter --from run --max-ns-per-visit 10000 > lo.filter"
ok "a looser time threshold adds medium (5 us per visit)" grep -q "EXCLUDE medium" lo.filter
ok "never main, never a loop" sh -c "! grep -qE 'EXCLUDE (main|loop)' lo.filter"

# a runtime that counts the visits after throttling (untimed_visits): the
# count is exact (no ">="), the time per visit is that of the timed visits,
# and the untimed visits save only what a gated visit costs (0.5 ns)
mkdir run2
cat > run2/experiment.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="e2" program="p" nprocs="1">
  <environment/>
  <metrics>
    <metric name="visits" unit="count"/>
    <metric name="wall" unit="s"/>
    <metric name="untimed_visits" unit="count"/>
  </metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="12" kind="function" name="mix" function="mix" file="app.c" line="5"/>
    <region id="13" kind="function" name="main" function="main" file="app.c" line="20"/>
  </regions>
  <process rank="0" host="h" pid="1">
    <thread id="0">
      <node region="0" parent="-1" v="1 10 0"/>
      <node region="13" parent="0" v="1 10 0"/>
      <node region="12" parent="1" v="100000 0.0005 500000" flags="throttled"/>
    </thread>
  </process>
</experiment>
X
expect_status 0 "filter --from an experiment with untimed_visits" sh -c "'$AA' filter --from run2 > u.filter"
is "$(grep EXCLUDE u.filter)" "  EXCLUDE mix # 600000 visits (500000 untimed), 5.0 ns per visit, saves 0.00325 s" \
    "untimed visits counted exactly, time per timed visit, saving at 30 ns timed + 0.5 ns untimed"

# judged by exclusive time: send() (a message layer's send) is tiny itself
# but now and then runs a 10-ms handler(): 1010 ns per timed visit
# inclusive, 10 ns its own (its first 100,000 visits ran 10 of the 100
# handler visits); wrapper() calls work() at each visit; busy() does its
# own work around small()
mkdir run3
cat > run3/experiment.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="e3" program="p" nprocs="1">
  <environment/>
  <metrics>
    <metric name="visits" unit="count"/>
    <metric name="wall" unit="s"/>
    <metric name="untimed_visits" unit="count"/>
  </metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="13" kind="function" name="main" function="main" file="app.c" line="20"/>
    <region id="20" kind="function" name="send" function="send" file="app.c" line="30"/>
    <region id="21" kind="function" name="handler" function="handler" file="app.c" line="40"/>
    <region id="22" kind="function" name="wrapper" function="wrapper" file="app.c" line="50"/>
    <region id="23" kind="function" name="work" function="work" file="app.c" line="60"/>
    <region id="24" kind="function" name="busy" function="busy" file="app.c" line="70"/>
    <region id="25" kind="function" name="small" function="small" file="app.c" line="80"/>
  </regions>
  <process rank="0" host="h" pid="1">
    <thread id="0">
      <node region="0" parent="-1" v="1 10 0"/>
      <node region="13" parent="0" v="1 10 0"/>
      <node region="20" parent="1" v="100000 0.101 900000" flags="throttled"/>
      <node region="21" parent="2" v="100 1.0 0"/>
      <node region="22" parent="1" v="200000 2.0 0"/>
      <node region="23" parent="4" v="200000 1.998 0"/>
      <node region="24" parent="1" v="200000 2.0 0"/>
      <node region="25" parent="6" v="200000 0.4 0"/>
    </thread>
  </process>
</experiment>
X
expect_status 0 "filter --from an experiment with wrappers of measured regions" sh -c "'$AA' filter --from run3 > x.filter"
is "$(grep EXCLUDE x.filter)" "  EXCLUDE wrapper # 200000 visits, 10.0 ns per visit, saves 0.006 s
  EXCLUDE send # 1000000 visits (900000 untimed), 10.0 ns per visit, saves 0.00345 s" \
    "tiny itself, calling measured regions: listed by exclusive time per visit (children weighted by their visits per visit)"
ok "busy() (8 us of its own per visit) and the measured children are not listed" \
    sh -c "! grep -qE 'EXCLUDE (busy|handler|work|small)' x.filter"

# the file works as a filter of the instrumenter
cat > app.c <<'X'
#include <stdio.h>
static int lookup(const int *t, int n, int k)
{
    int lo = 0;
    while (lo < n && t[lo] < k) lo++; /* a linear search: no size rule bounds it */
    return lo;
}
static long solve(const int *t, int n)
{
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += lookup(t, n, i);
    return s;
}
int main(void)
{
    int t[4] = {1, 5, 9, 13};
    printf("%ld\n", solve(t, 4));
    return 0;
}
X
expect_status 0 "instrument --filter FILE" "$AA" instrument -q --filter f.filter -o a1.c app.c --
ok "lookup excluded by the filter file" sh -c "! grep -q 'name=\"lookup\"' a1.c.regions.xml"
expect_status 0 "instrument --filter-from run" "$AA" instrument -q --filter-from run -o a2.c app.c --
like "$(grep 'name="lookup"' a2.c.regions.xml)" 'instrumented="no" reason="tiny and hot in the measured profile' "--filter-from: lookup listed as left out"
ok "--filter-from: solve still instrumented" sh -c "grep 'name=\"solve\"' a2.c.regions.xml | grep -vq instrumented="
ok "--filter-from: lookup gets no probe" sh -c "sed -n '/^#line 1/,\$p' a2.c | sed -n '3,8p' | grep -vq AA_INSTRUMENT && ! sed -n '/^#line 1/,\$p' a2.c | sed -n '3,8p' | grep -q AA_INSTRUMENT"
# round 2: the experiment beside the analysis filters too; a refined function never
printf 'solve\n' > run/crit.txt
expect_status 0 "instrument --refine run/crit.txt (experiment.xml beside it)" "$AA" instrument -q --refine run/crit.txt -o r1.c app.c --
like "$(grep 'name="lookup"' r1.c.regions.xml)" 'instrumented="no"' "round 2 leaves lookup out (the run's experiment)"
ok "round 2 splits solve: its loop is added" grep -q 'name="loop@11"' r1.c.regions.xml
printf 'lookup\n' > run/crit2.txt
expect_status 0 "instrument --refine naming lookup" "$AA" instrument -q --refine run/crit2.txt -o r2.c app.c --
ok "a refined function is never filtered" sh -c "grep 'name=\"lookup\"' r2.c.regions.xml | grep -vq instrumented="
ok "and its loop is added" grep -q 'name="loop@5"' r2.c.regions.xml

# a preempted run (a loaded machine): 70% of the process's wall time is
# neither CPU time nor MPI or I/O wait; hot() is tiny by its busy time
# (100 ns per visit) though its wall time says 3 us; waiter() waits in MPI
# and stays; the same run unpreempted is judged by wall time
mkdir pre quiet
cat > pre/experiment.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="e2" program="p" nprocs="1">
  <environment/>
  <metrics>
    <metric name="visits" unit="count"/>
    <metric name="wall" unit="s"/>
    <metric name="cpu" unit="s"/>
    <metric name="mpi_wall" unit="s"/>
    <metric name="mpi_cpu" unit="s"/>
    <metric name="io_time" unit="s"/>
  </metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="13" kind="function" name="main" function="main" file="app.c" line="20"/>
    <region id="20" kind="function" name="hot" function="hot" file="app.c" line="3"/>
    <region id="21" kind="function" name="waiter" function="waiter" file="app.c" line="9"/>
  </regions>
  <process rank="0" host="h" pid="1">
    <thread id="0">
      <node region="0" parent="-1" v="1 10 2.4 0.6 0.01 0"/>
      <node region="13" parent="0" v="1 10 2.4 0.6 0.01 0"/>
      <node region="20" parent="1" v="200000 0.6 0.02 0 0 0"/>
      <node region="21" parent="1" v="200000 0.6 0.02 0.55 0.01 0"/>
    </thread>
  </process>
</experiment>
X
sed 's/v="1 10 2.4 0.6 0.01 0"/v="1 10 9.4 0.6 0.01 0"/' pre/experiment.xml > quiet/experiment.xml
expect_status 0 "filter --from a preempted run" sh -c "'$AA' filter --from pre > pre.filter"
like "$(cat pre.filter)" "EXCLUDE hot # 200000 visits, 100.0 ns per visit" "preempted: hot() judged by its busy time"
like "$(cat pre.filter)" "# preempted run: 70% of a process's wall time" "preempted: the filter file says so"
ok "preempted: waiter() (waits in MPI) is not listed" sh -c "! grep -q waiter pre.filter"
expect_status 0 "filter --from the same run unpreempted" sh -c "'$AA' filter --from quiet > quiet.filter"
ok "unpreempted: hot() (3 us of wall per visit) is not listed" sh -c "! grep -q 'EXCLUDE hot' quiet.filter"
ok "unpreempted: no preemption note" sh -c "! grep -q preempted quiet.filter"

# bad input
expect_status 2 "no --from" "$AA" filter
expect_status 2 "bad number" "$AA" filter --from run --min-visits lots
expect_status 3 "missing experiment" sh -c "'$AA' filter --from nosuch -o bad.filter 2> err1"
like "$(cat err1)" "nosuch:1: cannot read the experiment" "file:line: message"
ok "nothing written" test ! -e bad.filter
printf '<experiment version="1">\n<oops' > broken.xml
expect_status 3 "malformed experiment" sh -c "'$AA' filter --from broken.xml -o bad.filter 2> err2"
like "$(cat err2)" "broken.xml:[0-9]+:" "malformed: file:line: message"
ok "nothing written" test ! -e bad.filter
# the wrapper: AUTOANALYZER_FILTER_FROM=EXP as --filter-from
AUTOANALYZER_FILTER_FROM=run AUTOANALYZER_MAPDIR="$PWD/wmaps" "$AA" cc gcc -c app.c -o wapp.o 2>werr
is "$?" 0 "cc with AUTOANALYZER_FILTER_FROM compiles"
like "$(cat wmaps/app.c-*.regions.xml)" 'name="lookup"[^>]*instrumented="no"' "cc: AUTOANALYZER_FILTER_FROM leaves lookup out"
AUTOANALYZER_FILTER_FROM=nosuch "$AA" cc gcc -c app.c -o wbad.o 2>werr; st=$?
is "$st" 3 "cc: a missing AUTOANALYZER_FILTER_FROM experiment is bad input"
expect_status 3 "instrument --filter-from missing" "$AA" instrument -q --filter-from nosuch -o x.c app.c --
ok "instrument wrote nothing" test ! -e x.c

# the whole two-round flow, measured: round 1 built with cc (the loop of
# the search, its whole body, left out) and run with `autoanalyzer run`;
# round 2 built with AUTOANALYZER_REFINE naming that run's analysis.json.
# Whether round 2 filters lookup() depends on its measured wall time per
# visit, which a loaded machine inflates (preemption inside the region):
# the filtering itself is asserted above on a written experiment.
mkdir tr && cd tr || exit 1
cat > search.c <<'C'
#include <stdio.h>
static double grid[64];
long lookup(double q) /* a linear search: no size rule bounds its loop */
{
    long i = 0;
    while (i < 63 && grid[i + 1] <= q)
        i++;
    return i;
}
double solve(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 1000; k++)
            s = s * 0.999 + k;
        s += (double)lookup((i % 64) * 0.5);
    }
    return s;
}
int main(void)
{
    for (int i = 0; i < 64; i++)
        grid[i] = i * 0.5;
    printf("%g\n", solve(150000));
    return 0;
}
C
AUTOANALYZER_MAPDIR="$PWD/m1" "$AA" cc gcc -O2 -o r1 search.c 2>err
is "$?" 0 "round 1 builds"
like "$(grep 'function="lookup"' m1/*.regions.xml | grep 'kind="loop"')" \
    'reason="loop spanning the function body' "round 1: the loop of lookup() (its whole body) left out"
expect_status 0 "round 1 runs under autoanalyzer run" sh -c "'$AA' run --no-store --out R1 -- ./r1 > run.out 2>&1"
ok "round 1 wrote the experiment and the analysis" test -s R1/experiment.xml -a -s R1/analysis.json
AUTOANALYZER_REFINE=R1/analysis.json AUTOANALYZER_MAPDIR="$PWD/m2" "$AA" cc gcc -O2 -o r2 search.c 2>err
is "$?" 0 "round 2 (AUTOANALYZER_REFINE) builds"
ok "round 2 lists lookup() in its map" grep -q 'name="lookup"' m2/*.regions.xml
ok "round 2 keeps solve()" sh -c "grep 'name=\"solve\"' m2/*.regions.xml | grep -vq instrumented="
is "$(./r2)" "$(./r1)" "round 2 prints what round 1 printed"
cd .. || exit 1
done_testing
