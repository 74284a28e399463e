#!/bin/bash
# tests/e2e/convert.t -- the binary experiment form end to end: `convert`
# both ways (XML -> binary -> XML gives the same bytes), every reader of
# experiments taking it (analyze, report, space add, collect, filter: the
# same results as from the XML), collect writing it (-o *.aab) and merging
# binary rank files, and corrupt or truncated files refused with exit 3, a
# file:offset message and nothing written.
. "$(dirname "$0")/lib.sh"
SYNTH="$AA_BUILD/tests/aa_synth"
[ -x "$SYNTH" ] || skip_all "aa_synth helper not built"

"$SYNTH" --scenario slow-group --procs 32 --regions 20 -o "$T/sg.xml" >/dev/null
ok "convert XML to binary" "$AA" convert "$T/sg.xml" "$T/sg.aab"
xs=$(stat -c %s "$T/sg.xml"); bs=$(stat -c %s "$T/sg.aab")
ok "binary is under half the XML ($bs vs $xs bytes)" test $((bs * 2)) -lt "$xs"
ok "convert binary to XML" "$AA" convert "$T/sg.aab" "$T/back.xml"
ok "XML -> binary -> XML gives the same bytes" cmp "$T/sg.xml" "$T/back.xml"
ok "--to binary to stdout" sh -c "'$AA' convert '$T/sg.xml' - --to binary > '$T/out.bin'"
ok "stdout output is the same binary" cmp "$T/sg.aab" "$T/out.bin"
ok "without --to or a known extension: the other form" "$AA" convert "$T/sg.aab" "$T/other"
ok "... which is XML" cmp "$T/sg.xml" "$T/other"

# every reader takes both forms, with the same results
"$AA" analyze -q --json "$T/x.json" "$T/sg.xml" >/dev/null 2>&1
"$AA" analyze -q --json "$T/b.json" "$T/sg.aab" >/dev/null 2>&1
ok "analyze gives the same JSON from the binary form" \
    cmp <(sed "s/sg\.xml/IN/g" "$T/x.json") <(sed "s/sg\.aab/IN/g" "$T/b.json")
ok "report reads the binary form" "$AA" report "$T/sg.aab" -o "$T/r.html"
ok "space add takes the binary form" "$AA" space add "$T/sg.aab" --db "sqlite:$T/s.db"
ok "filter reads the binary form" "$AA" filter --from "$T/sg.aab" -o "$T/f.txt"

# collect: binary rank files and a binary result
mkdir -p "$T/run" "$T/run2"
"$SYNTH" --scenario none --procs 4 --regions 5 --split "$T/run" >/dev/null
ok "one rank file converted to binary" "$AA" convert "$T/run/rank-2.xml" "$T/run/rank-2.aab"
rm "$T/run/rank-2.xml"
ok "collect merges binary and XML rank files into a binary experiment" \
    "$AA" collect "$T/run" -o "$T/run.aab"
"$SYNTH" --scenario none --procs 4 --regions 5 --split "$T/run2" >/dev/null
"$AA" collect "$T/run2" -o "$T/run2.xml" >/dev/null 2>&1
ok "the merged binary experiment equals the all-XML merge" \
    cmp <("$AA" convert "$T/run.aab" - --to xml) "$T/run2.xml"

# strict reader: exit 3, file:offset, nothing written
cp "$T/sg.aab" "$T/bad.aab"
printf '\x01' | dd of="$T/bad.aab" bs=1 seek=200 conv=notrunc 2>/dev/null
expect_status 3 "a flipped byte is bad input (exit 3)" "$AA" convert "$T/bad.aab" "$T/bad.xml"
like "$(cat "$T/.err")" "^autoanalyzer: .*bad\.aab:[0-9]+: .*checksum" "the message names file and offset"
ok "nothing written" test ! -e "$T/bad.xml"
head -c 3000 "$T/sg.aab" > "$T/short.aab"
expect_status 3 "a truncated file is bad input" "$AA" analyze "$T/short.aab"
like "$(cat "$T/.err")" "short\.aab:[0-9]+: .*truncated" "the message says truncated"
expect_status 2 "--to with an unknown form is a usage error" "$AA" convert "$T/sg.xml" "$T/x" --to yaml
expect_status 3 "a missing input is bad input" "$AA" convert "$T/none.aab" "$T/x.aab"
done_testing
