#!/bin/bash
# tests/e2e/cluster.t -- `autoanalyzer cluster optics|kmeans1d` end to end:
# exact JSON against hand-checked expected files (SPEC §9), --json forms,
# text output, bad CSV -> 3 with FILE:LINE:COL, bad options -> 2, no
# partial output file on failure.
. "$(dirname "$0")/lib.sh"
D="$TOP/tests/data/cluster"
cd "$D" || exit 1

"$AA" cluster optics --min-pts 2 --eps 3 --json optics_1d.csv >"$T/o1.json" 2>"$T/err"
is "$(cat "$T/o1.json")" "$(cat optics_1d.expected.json)" "optics 1-D: JSON exactly as expected"
"$AA" cluster optics --min-pts 3 --eps 1 --json - square_crlf.csv >"$T/o2.json"
is "$(cat "$T/o2.json")" "$(cat square_crlf.expected.json)" "optics on a CRLF/quoted CSV, ties by index"
"$AA" cluster optics --min-pts 2 --eps 3 --json "$T/out.json" optics_1d.csv >"$T/stdout"
is "$(cat "$T/out.json")" "$(cat optics_1d.expected.json)" "--json FILE writes the file"
is "$(cat "$T/stdout")" "" "... and nothing on stdout"
"$AA" cluster optics --json=- --min-pts=2 optics_1d.csv >/dev/null 2>&1
is "$?" 2 "--min-pts=N form is not accepted (2)"
"$AA" cluster kmeans1d -k 2 --json kmeans_2groups.csv >"$T/k.json"
is "$(cat "$T/k.json")" "$(cat kmeans_2groups.expected.json)" "kmeans1d JSON: labels by center, centers, sse"
"$AA" cluster kmeans1d -k 7 --json kmeans_2groups.csv >"$T/k7.json"
like "$(tr -d ' \n' <"$T/k7.json")" '"centers":\[1,2,3,10,11,12\],"sse":0' "k above distinct values: one class per value"
out=$("$AA" cluster optics --min-pts 2 --eps 3 optics_1d.csv)
like "$out" 'MinPts 2, eps 3: 3 clusters' "text output summary"
like "$out" '     2      5 8 +1 +1' "text output row: order, row, reachability, core, cluster"
out=$("$AA" cluster kmeans1d -k 2 kmeans_2groups.csv)
like "$out" 'SSE 4' "kmeans1d text output"
out=$("$AA" cluster optics optics_1d.csv)
like "$out" 'MinPts 2, eps 0\.2: 6 clusters' "automatic defaults: MinPts 2, eps = 0.1 x lower median norm"

for f in bad_ragged:3:2 bad_nan:3:3 bad_quote:2:1 bad_inf:3:1; do
    name=${f%%:*}; pos=${f#*:}
    expect_status 3 "$name.csv rejected with 3" "$AA" cluster optics --json "$T/bad.json" $name.csv
    like "$(cat "$T/.err")" "$name\.csv:$pos: " "$name.csv: message names line:col $pos"
done
[ ! -e "$T/bad.json" ]; is "$?" 0 "no output file after bad input"
printf '' >"$T/empty.csv"
expect_status 3 "empty CSV rejected" "$AA" cluster optics "$T/empty.csv"
printf 'a,b\n' >"$T/hdr.csv"
expect_status 3 "header only rejected" "$AA" cluster optics "$T/hdr.csv"
expect_status 3 "kmeans1d on two columns rejected" "$AA" cluster kmeans1d -k 2 square_crlf.csv
expect_status 2 "no algorithm" "$AA" cluster
expect_status 2 "unknown algorithm" "$AA" cluster dbscan optics_1d.csv
expect_status 2 "kmeans1d without -k" "$AA" cluster kmeans1d kmeans_2groups.csv
expect_status 2 "-k 0" "$AA" cluster kmeans1d -k 0 kmeans_2groups.csv
expect_status 2 "--eps -1" "$AA" cluster optics --eps -1 optics_1d.csv
expect_status 2 "--min-pts x" "$AA" cluster optics --min-pts x optics_1d.csv
expect_status 2 "unknown option" "$AA" cluster optics --frobnicate optics_1d.csv
expect_status 2 "no input" "$AA" cluster optics
expect_status 4 "missing file" "$AA" cluster optics "$T/nope.csv"
out=$("$AA" cluster --help)
like "$out" 'usage: autoanalyzer cluster optics' "--help"
done_testing
