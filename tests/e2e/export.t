#!/usr/bin/env bash
# `autoanalyzer export`: an experiment as tidy CSV, as Hatchet's literal
# format and as CUBE4, each read back by an independent reader (tests/report/
# check_export.py: Python's csv module and pandas when installed; the
# literal format's rules, and hatchet itself when installed;
# tests/report/check_cube.py: a CUBE4 reader written from the format's
# description), values checked against the generated experiment, and bad
# input.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/report/gen_experiment.sh"
CHECK="$TOP/tests/report/check_export.py"
CUBE="$TOP/tests/report/check_cube.py"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"

"$GEN" "$T/e.xml" 4 3 exp-1

# CSV: 4 ranks x 6 nodes x 6 metrics, every one measured
expect_status 0 "export --format csv" "$AA" export "$T/e.xml" --format csv -o "$T/e.csv"
res=$("$CHECK" csv "$T/e.csv"); st=$?
is "$st" 0 "CSV follows RFC 4180 and the documented columns"
like "$res" "rows=144" "one row per rank x node x metric"
like "$res" '3,main/solve<T>/<script>alert\(1\)</script>,wall=6.003' "the slow rank's loop, by its path, in seconds"
like "$res" '0,main/loop@40 & "more",visits=100' "names with quotes and commas survive the quoting"
# Hatchet literal: the trees merged, means per process
expect_status 0 "export --format hatchet" "$AA" export "$T/e.xml" --format=hatchet -o "$T/e.json"
res=$("$CHECK" hatchet "$T/e.json"); st=$?
is "$st" 0 "Hatchet literal follows the format's rules"
like "$res" "nodes=6" "one node per calling context"
like "$res" 'program/main/solve<T>/<script>alert\(1\)</script> time \(inc\)=3.0015' "loop: mean inclusive wall time per process"
expect_status 0 "export to stdout" "$AA" export "$T/e.xml" --format csv
like "$(head -n 1 "$T/.out")" '^rank,thread,node,parent,region_id,region,kind' "stdout holds the CSV"

# CUBE4: a tar of anchor.xml and N.index/N.data per metric, every value read
# back and compared with the experiment's (inclusive = the cnode's subtree)
expect_status 0 "export --format cube" "$AA" export "$T/e.xml" --format cube -o "$T/e.cubex"
res=$("$CUBE" "$T/e.cubex" "$T/e.xml"); st=$?
is "$st" 0 "CUBE4 file follows the format, every value as in the experiment"
like "$res" "cnodes=6 locations=4 metrics=6" "one cnode per calling context, one location per thread"
like "$res" "compared=144" "all 4 ranks x 6 nodes x 6 metrics compared"
like "$res" '3,0,program/main/solve<T>/<script>alert\(1\)</script>,wall=6.003' "the slow rank's loop, inclusive, in seconds"
like "$res" '0,0,program/main/loop@40 & "more",visits=100' "visits per cnode; names with quotes survive"
# threads, two processes on one host, a calling context only one thread has,
# a value not measured ("-")
cat > "$T/mt.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="mt" program="p" nprocs="2">
  <metrics><metric name="visits" unit="count"/><metric name="wall" unit="s"/></metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="7" kind="function" name="main" function="main" file="m.c" line="3"/>
    <region id="9" kind="loop" name="loop@5" function="main" file="m.c" line="5" parent="7"/>
  </regions>
  <process rank="0" host="h1" pid="1">
    <thread id="0"><node region="0" parent="-1" v="1 4"/><node region="7" parent="0" v="1 3.5"/><node region="9" parent="1" v="10 2"/></thread>
    <thread id="1"><node region="0" parent="-1" v="1 2"/><node region="9" parent="0" v="5 1.5"/></thread>
  </process>
  <process rank="1" host="h1" pid="2">
    <thread id="0"><node region="0" parent="-1" v="1 4"/><node region="7" parent="0" v="1 -"/></thread>
  </process>
</experiment>
EOF
expect_status 0 "export --format cube: threads" "$AA" export "$T/mt.xml" --format cube -o "$T/mt.cubex"
res=$("$CUBE" "$T/mt.cubex" "$T/mt.xml"); st=$?
is "$st" 0 "CUBE4 with threads follows the format, values as in the experiment"
like "$res" "cnodes=4 locations=3 metrics=2" "one location per thread, the trees merged"
like "$res" "0,1,program/loop@5,wall=1.5" "the second thread's own calling context"
is "$(tar -xOf "$T/mt.cubex" anchor.xml | grep -c '<class>node</class>')" 1 "two processes on one host: one system tree node"
"$GEN" "$T/e2.xml" 4 3 exp-1 2
expect_status 1 "checker: CUBE values that differ from the experiment's" "$CUBE" "$T/e.cubex" "$T/e2.xml"
LC_ALL=C sed 's/CUBEX\.DATA/CUBEX.DATX/' "$T/e.cubex" > "$T/bad.cubex"
expect_status 1 "checker: a data file without its marker" "$CUBE" "$T/bad.cubex"
head -c 2048 "$T/e.cubex" > "$T/cut.cubex"
expect_status 1 "checker: a cut-off archive" "$CUBE" "$T/cut.cubex"
expect_status 0 "the same experiment gives the same CUBE file" "$AA" export "$T/e.xml" --format cube -o "$T/e2.cubex"
ok "CUBE export is reproducible" cmp "$T/e.cubex" "$T/e2.cubex"

# the checker itself fails on broken files
sed '1s/rank,/rank_,/' "$T/e.csv" > "$T/bad.csv"
expect_status 1 "checker: wrong CSV header" "$CHECK" csv "$T/bad.csv"
sed 's/"time (inc)":[0-9.e+-]*/"time (inc)":99/' "$T/e.json" > "$T/bad.json"
expect_status 1 "checker: inclusive time not the sum of its parts" "$CHECK" hatchet "$T/bad.json"

# bad input and usage
printf '<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="x" program="p" nprocs="1">\n<metrics>\n' > "$T/bad.xml"
expect_status 3 "malformed experiment is bad input" "$AA" export "$T/bad.xml" --format csv -o "$T/bad.out"
like "$(cat "$T/.err")" "bad.xml:[0-9]+" "error names file and line"
ok "nothing written for bad input" test ! -e "$T/bad.out"
expect_status 3 "missing experiment: bad input" "$AA" export "$T/nonexistent.xml" --format csv
expect_status 2 "no format" "$AA" export "$T/e.xml"
expect_status 3 "malformed experiment: no CUBE file" "$AA" export "$T/bad.xml" --format cube -o "$T/bad.cubex2"
ok "nothing written for bad input (cube)" test ! -e "$T/bad.cubex2"
cat > "$T/empty.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="e" program="p" nprocs="1">
  <metrics><metric name="wall" unit="s"/></metrics>
  <regions><region id="0" kind="program" name="program"/></regions>
  <process rank="0" host="h"><thread id="0"></thread></process>
</experiment>
EOF
expect_status 3 "CUBE export of an experiment without any node is refused" "$AA" export "$T/empty.xml" --format cube -o "$T/empty.cubex"
like "$(cat "$T/.err")" "no calling context measured" "which says why"
ok "nothing written for an empty experiment" test ! -e "$T/empty.cubex"
expect_status 2 "unknown format" "$AA" export "$T/e.xml" --format otf2
like "$(cat "$T/.err")" "unknown format 'otf2'" "the unknown format is named"
expect_status 2 "no experiment" "$AA" export --format csv
done_testing
