#!/bin/bash
# tests/e2e/roughset.t -- `autoanalyzer roughset` end to end: the SPEC §5.4
# example table (x8's function a3 v (a1 ^ a5), an inconsistent pair) with
# exact expected JSON, text output, value coding, bad tables -> 3 with
# FILE:LINE:COL, bad options -> 2.
. "$(dirname "$0")/lib.sh"
D="$TOP/tests/data/roughset"
cd "$D" || exit 1

"$AA" roughset --json spec_example.csv >"$T/r.json"
is "$(cat "$T/r.json")" "$(cat spec_example.expected.json)" "JSON exactly as expected"
"$AA" roughset --json "$T/r2.json" spec_example.csv
is "$(cat "$T/r2.json")" "$(cat spec_example.expected.json)" "--json FILE"
out=$("$AA" roughset spec_example.csv)
like "$out" 'x8 +\{a1, a5\}  \{a3\}' "text: x8's local reducts"
like "$out" 'inconsistent pairs \(skipped\): 1' "text: inconsistent pair reported"

# numbers compare by value, other values as text; no header -> a1..
printf 'p,1,0,0\nq,1.0,y,1\nr,2,0,1\n' >"$T/t.csv"
"$AA" roughset --json - "$T/t.csv" >"$T/t.json"
like "$(tr -d ' \n' <"$T/t.json")" '"core":\["a1","a2"\],"reducts":\[\["a1","a2"\]\]' "value coding, default names"
printf 'id,cause,d\np,1,0\nq,1,1\n' >"$T/inc.csv"
"$AA" roughset --json "$T/inc.csv" >"$T/inc.json"
like "$(tr -d ' \n' <"$T/inc.json")" '"core":\[\],"reducts":\[\],"reducts_greedy":false,"inconsistent":\[\["p","q"\]\]' "fully inconsistent table: no reducts, pair listed"

printf 'id,a,d\np,1,0\np,2,1\n' >"$T/dup.csv"
expect_status 3 "duplicate object id" "$AA" roughset "$T/dup.csv"
like "$(cat "$T/.err")" 'dup\.csv:3:1: object id .p. repeats line 2' "duplicate id message"
printf 'id,a,a,d\np,1,1,0\n' >"$T/dupa.csv"
expect_status 3 "duplicate attribute name" "$AA" roughset "$T/dupa.csv"
printf 'id,a,d\np,1,0\nq,,1\n' >"$T/empty.csv"
expect_status 3 "empty value" "$AA" roughset "$T/empty.csv"
like "$(cat "$T/.err")" 'empty\.csv:3:3: empty value' "empty value position"
printf 'id\np\n' >"$T/one.csv"
expect_status 3 "one column" "$AA" roughset "$T/one.csv"
printf 'id,a,d\np,1,0\nq,1\n' >"$T/rag.csv"
expect_status 3 "ragged row" "$AA" roughset --json "$T/o.json" "$T/rag.csv"
[ ! -e "$T/o.json" ]; is "$?" 0 "no output file after bad input"
expect_status 2 "unknown option" "$AA" roughset --foo spec_example.csv
expect_status 2 "no input" "$AA" roughset
expect_status 2 "two inputs" "$AA" roughset spec_example.csv spec_example.csv
like "$("$AA" roughset --help)" 'usage: autoanalyzer roughset' "--help"
done_testing
