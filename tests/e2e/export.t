#!/usr/bin/env bash
# `autoanalyzer export`: an experiment as tidy CSV and as Hatchet's literal
# format, each read back by an independent reader (tests/report/
# check_export.py: Python's csv module and pandas when installed; the
# literal format's rules, and hatchet itself when installed), values checked
# against the generated experiment, and bad input.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/report/gen_experiment.sh"
CHECK="$TOP/tests/report/check_export.py"
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
expect_status 4 "missing experiment" "$AA" export "$T/nonexistent.xml" --format csv
expect_status 2 "no format" "$AA" export "$T/e.xml"
expect_status 2 "unknown format" "$AA" export "$T/e.xml" --format cube
like "$(cat "$T/.err")" "unknown format 'cube'" "the unknown format is named"
expect_status 2 "no experiment" "$AA" export --format csv
done_testing
