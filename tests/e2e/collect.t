#!/bin/bash
# tests/e2e/collect.t -- `autoanalyzer collect`: merging per-rank profiles
# (plain and gzip), region maps, the report (text and JSON), missing and
# duplicate ranks, files of different runs, malformed files (exit 3, nothing
# written), a single experiment file as input, schema validity of the
# result and idempotence (collecting a merged file gives the same bytes),
# and the progress bar (on a terminal only).
. "$(dirname "$0")/lib.sh"

# rank_file DIR RANK [ID] [NPROCS] [METRICS]: a per-rank profile.
rank_file() {
    local dir=$1 r=$2 id=${3:-run-1} np=${4:-4} metrics=${5:-full}
    local mlist='<metric name="visits" unit="count"/><metric name="wall" unit="s"/><metric name="cycles" unit="count"/>'
    local v0="1 $((r + 10)).5 1000" v1="$((r * 100 + 5)) $r.25 500" unav=""
    if [ "$metrics" = nocycles ]; then
        mlist='<metric name="visits" unit="count"/><metric name="wall" unit="s"/>'
        v0="1 $((r + 10)).5"; v1="$((r * 100 + 5)) $r.25"; unav=' unavailable="cycles"'
    fi
    cat > "$dir/rank-$r.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="$id" program="solver" nprocs="$np">
  <environment><attr name="command">mpirun -np $np ./solver</attr></environment>
  <metrics>$mlist</metrics>
  <regions>
    <region id="0" kind="program" name="program"/>
    <region id="12" kind="loop" name="loop@42" function="solve"/>
  </regions>
  <process rank="$r" host="node$((r / 2))" pid="$((100 + r))"$unav>
    <thread id="0">
      <node region="0" parent="-1" v="$v0"/>
      <node region="12" parent="0" v="$v1"/>
    </thread>
  </process>
</experiment>
XML
}

region_map() {
    cat > "$1/solver.c.regions.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<regionmap xmlns="urn:autoanalyzer:profile:1" version="1" source="solver.c">
  <region id="12" kind="loop" name="loop@42" function="solve" file="solver.c" line="42" col="5" end-line="60" end-col="6" parent="3"/>
  <region id="99" kind="function" name="unused" function="unused" file="solver.c" line="70"/>
</regionmap>
XML
}

D=$T/run
mkdir -p "$D"
for r in 0 1 3; do rank_file "$D" $r; done
rank_file "$D" 2 run-1 4 nocycles
region_map "$D"

expect_status 0 "merge of 4 ranks" "$AA" collect "$D"
like "$(cat "$T/.out")" "merged 4 files \(4 of 4 ranks\), 1 region map, 3 regions, 3 metrics -> $D/experiment.xml" "report line"
ok "output written" test -s "$D/experiment.xml"
is "$(grep -c '<process ' "$D/experiment.xml")" 4 "4 processes in the experiment"
like "$(grep 'rank="2"' "$D/experiment.xml")" 'unavailable="cycles"' "rank 2 lacks cycles"
like "$(grep -A3 'rank="2"' "$D/experiment.xml" | grep 'region="12"')" 'v="205 2.25 -"' "missing metric is '-' (NaN)"
like "$(grep 'id="12"' "$D/experiment.xml")" 'file="solver.c" line="42"' "region map filled in source details"
like "$(grep 'id="99"' "$D/experiment.xml")" 'name="unused"' "unexecuted region from the map added"
if xmllint --version >/dev/null 2>&1; then
    ok "merged experiment valid against docs/profile.xsd" xmllint --noout --schema "$TOP/docs/profile.xsd" "$D/experiment.xml"
fi
ls "$D" | grep -q '\.tmp\.' && _tap_result 1 "no temporary files left" || _tap_result 0 "no temporary files left"

# collecting the merged file again changes nothing
expect_status 0 "single experiment file accepted" "$AA" collect "$D/experiment.xml" -o "$T/again.xml"
ok "collect of a merged experiment is identical" cmp "$D/experiment.xml" "$T/again.xml"

# JSON report
expect_status 0 "--json" "$AA" collect "$D" -o "$T/j.xml" --json
cp "$T/.out" "$T/report.json"; J=$(cat "$T/report.json")
like "$J" '"nprocs": 4' "json nprocs"
like "$J" '"missing": \[\]' "json: nothing missing"
like "$J" '"metrics": \[' "json metrics"
like "$J" 'rank-3.xml' "json lists the files"
like "$J" 'solver.c.regions.xml' "json lists the region maps"
if command -v python3 >/dev/null; then
    ok "json parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ranks"]==4 and d["regions"]==3' "$T/report.json"
fi

# gzip-compressed rank files
G=$T/gz
mkdir -p "$G"
for r in 0 1; do rank_file "$G" $r run-gz 2; gzip "$G/rank-$r.xml"; done
expect_status 0 "gzip rank files merged" "$AA" collect "$G" -o "$T/gz.xml"
is "$(grep -c '<process ' "$T/gz.xml")" 2 "2 processes from .xml.gz files"

# missing rank: exit 3, nothing written; --allow-missing writes
M=$T/missing
mkdir -p "$M"
for r in 0 2 5; do rank_file "$M" $r run-m 8; done
expect_status 3 "missing ranks: exit 3" "$AA" collect "$M"
like "$(cat "$T/.err")" "5 of 8 ranks missing: 1, 3-4, 6-7" "missing ranks listed"
ok "nothing written" test ! -e "$M/experiment.xml"
expect_status 0 "--allow-missing" "$AA" collect "$M" --allow-missing
like "$(cat "$T/.err")" "5 of 8 ranks missing" "still warned"
is "$(grep -c '<process ' "$M/experiment.xml")" 3 "3 processes written"

# duplicate rank
U=$T/dup
mkdir -p "$U"
for r in 0 1; do rank_file "$U" $r run-d 2; done
cp "$U/rank-1.xml" "$U/rank-01.xml"
expect_status 3 "duplicate rank: exit 3" "$AA" collect "$U"
like "$(cat "$T/.err")" "rank 1 appears twice: in $U/rank-01.xml and in $U/rank-1.xml" "both files named"
ok "nothing written" test ! -e "$U/experiment.xml"

# a rank file holding another rank
rm "$U/rank-01.xml"
rank_file "$U" 0 run-d 2; mv "$U/rank-0.xml" "$U/rank-1.xml"; rank_file "$U" 0 run-d 2
expect_status 3 "rank-1.xml holding rank 0: exit 3" "$AA" collect "$U"
like "$(cat "$T/.err")" "rank-1.xml: holds the profile of rank 0, not 1" "message"

# different runs
X=$T/mixed
mkdir -p "$X"
rank_file "$X" 0 run-a 2; rank_file "$X" 1 run-b 2
expect_status 3 "different experiment ids: exit 3" "$AA" collect "$X"
like "$(cat "$T/.err")" "$X/rank-1.xml: experiment id 'run-b' differs from 'run-a' in $X/rank-0.xml" "both files named"
ok "nothing written" test ! -e "$X/experiment.xml"

# malformed file
B=$T/bad
mkdir -p "$B"
rank_file "$B" 0 run-x 2; rank_file "$B" 1 run-x 2
head -c 600 "$B/rank-1.xml" > "$B/t" && mv "$B/t" "$B/rank-1.xml"
expect_status 3 "truncated rank file: exit 3" "$AA" collect "$B"
like "$(cat "$T/.err")" "$B/rank-1.xml:[0-9]+: not well-formed XML" "file:line message"
is "$(wc -l < "$T/.err")" 1 "one line on stderr (libxml2 prints nothing itself)"
ok "nothing written" test ! -e "$B/experiment.xml"
rank_file "$B" 1 run-x 2
sed -i 's/v="1 11.5 1000"/v="1 nan 1000"/' "$B/rank-1.xml"
expect_status 3 "NaN value: exit 3" "$AA" collect "$B" -o "$T/bad-out.xml"
like "$(cat "$T/.err")" "$B/rank-1.xml:11: value 2 \('nan', metric 'wall'\) is not a number" "message names file and line"
ok "nothing written" test ! -e "$T/bad-out.xml"
ls "$T" "$B" | grep -q '\.tmp\.' && _tap_result 1 "no temporary files" || _tap_result 0 "no temporary files"

# usage and environment errors
expect_status 2 "no DIR: usage error" "$AA" collect
expect_status 2 "unknown option" "$AA" collect "$D" --bogus
expect_status 3 "nonexistent DIR" "$AA" collect "$T/nonexistent"
E=$T/empty; mkdir -p "$E"
expect_status 3 "directory without profiles" "$AA" collect "$E"
like "$(cat "$T/.err")" "no profiles here" "message"
printf '\000<\000e' > "$E/rank-0.xml"
expect_status 3 "binary junk: exit 3" "$AA" collect "$E"
is "$(wc -l < "$T/.err")" 1 "one line on stderr"
expect_status 4 "unwritable output: exit 4" "$AA" collect "$D" -o "$T/no/such/dir/x.xml"
# a FIFO named like a profile or a map: refused at once, never waited on
F=$T/fifo-run
mkdir -p "$F"
rank_file "$F" 1 run-1 2
mkfifo "$F/rank-0.xml"
expect_status 3 "a FIFO named rank-0.xml is refused" timeout 20 "$AA" collect "$F" -o "$T/f.xml"
like "$(cat "$T/.err")" "rank-0\.xml: not a regular file \(a FIFO\)" "the FIFO is named"
rm "$F/rank-0.xml"; rank_file "$F" 0 run-1 2
mkfifo "$F/x.regions.xml"
expect_status 3 "a FIFO named like a region map is refused" timeout 20 "$AA" collect "$F" -o "$T/f.xml"
rm "$F/x.regions.xml"

# a region map giving an existing id another region is an error
C=$T/conflict
mkdir -p "$C"
rank_file "$C" 0 run-1 1
cat > "$C/other.regions.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<regionmap xmlns="urn:autoanalyzer:profile:1" version="1" source="other.c">
  <region id="12" kind="loop" name="loop@77" function="other" file="other.c" line="77"/>
</regionmap>
XML
expect_status 3 "a map renaming region 12 is an error" "$AA" collect "$C" -o "$T/c.xml"
like "$(cat "$T/.err")" "other\.regions\.xml: region 12 is loop 'loop@77' .* but loop 'loop@42' .* in .*rank-0\.xml" "both sides named"
ok "nothing written" test ! -e "$T/c.xml"
region_map "$C"
sed 's/name="unused"/name="renamed"/; s/source="solver.c"/source="solver2.c"/' "$C/solver.c.regions.xml" > "$C/solver2.c.regions.xml"
rm "$C/other.regions.xml"
expect_status 3 "two maps disagreeing on region 99 is an error" "$AA" collect "$C" -o "$T/c.xml"
like "$(cat "$T/.err")" "region 99 is function 'renamed'" "the second map is named"

# a rank number no run can have is an error, not a skipped file
R=$T/bigrank
mkdir -p "$R"
rank_file "$R" 0 run-1 1
cp "$R/rank-0.xml" "$R/rank-99999999999999999999.xml"
expect_status 3 "rank-99999999999999999999.xml is an error" "$AA" collect "$R" -o "$T/r.xml"
like "$(cat "$T/.err")" "rank-99999999999999999999\.xml: rank number out of range" "the file is named"

# the README's collect line works after several runs (the newest is taken)
W=$T/readme
mkdir -p "$W/autoanalyzer-imbalance-20250101-000000" "$W/autoanalyzer-imbalance-20250102-120000"
rank_file "$W/autoanalyzer-imbalance-20250101-000000" 0 old-run 1
rank_file "$W/autoanalyzer-imbalance-20250102-120000" 0 new-run 1
line=$(grep -m1 '^ *autoanalyzer collect .*autoanalyzer-imbalance-' "$TOP/README.md" | sed 's/#.*//')
(cd "$W" && AA_CMD="$AA" && eval "${line/autoanalyzer collect/\"\$AA_CMD\" collect}") >"$T/.out" 2>&1
is $? 0 "README: $line"
like "$(grep -m1 '<experiment ' "$W/exp.xml" 2>/dev/null)" 'id="new-run"' "the newest run was collected"

# progress: a bar on a terminal (script(1) gives the command one), nothing
# when stderr is a file or a pipe
P=$T/progress
mkdir -p "$P"
for r in 0 1 2 3; do rank_file "$P" $r run-p 4; done
"$AA" collect "$P" -o "$T/p.xml" >"$T/p.out" 2>&1
is "$(tr -cd '\r[' < "$T/p.out" | wc -c)" 0 "no progress bar when stderr is not a terminal"
like "$(cat "$T/p.out")" "^collect: merged 4 files" "just the summary"
if command -v script >/dev/null 2>&1; then
    script -qec "'$AA' collect '$P' -o '$T/p2.xml'" /dev/null >"$T/p.tty" 2>&1
    like "$(tr '\r' '\n' < "$T/p.tty")" "collect: \[#+ *\] +[0-9]+% 3/4 files" "a progress bar on a terminal"
    like "$(tr '\r' '\n' < "$T/p.tty")" "collect: merged 4 files" "the summary follows the bar"
    like "$(tr '\r' '\n' < "$T/p.tty")" "collect: writing p2.xml \.\.\." "then a line says the output is being written"
fi

# threads: rank files read by several threads give the same bytes as one
# thread, and the same first error
TH=$T/threads
mkdir -p "$TH"
for r in $(seq 0 39); do
    if [ $((r % 7)) = 3 ]; then rank_file "$TH" $r run-t 40 nocycles; else rank_file "$TH" $r run-t 40; fi
done
expect_status 0 "--threads 1" "$AA" collect "$TH" --threads 1 -o "$T/t1.xml"
expect_status 0 "--threads 4" "$AA" collect "$TH" --threads 4 -o "$T/t4.xml"
ok "XML rank files: 4 threads give the bytes of 1" cmp "$T/t1.xml" "$T/t4.xml"
"$AA" collect "$TH" --threads 3 -o "$T/t3.aab" >/dev/null 2>&1
"$AA" collect "$TH" --threads 1 -o "$T/t1.aab" >/dev/null 2>&1
ok "binary output: 3 threads give the bytes of 1" cmp "$T/t1.aab" "$T/t3.aab"
SB=$T/threads-bin
mkdir -p "$SB"
"$AA_BUILD/tests/aa_synth" --procs 48 --regions 30 --whole --binary --split "$SB" >/dev/null
"$AA" collect "$SB" --threads 1 -o "$T/sb1.aab" >/dev/null 2>&1
"$AA" collect "$SB" --threads 4 -o "$T/sb4.aab" >/dev/null 2>&1
ok "binary rank files: 4 threads give the bytes of 1" cmp "$T/sb1.aab" "$T/sb4.aab"
"$AA" convert "$T/sb4.aab" "$T/sb4.xml" >/dev/null 2>&1
is "$(grep -c '<process ' "$T/sb4.xml")" 48 "48 processes merged"
echo '<experiment' > "$TH/rank-17.xml"
rank_file "$TH" 30 other-run 40
expect_status 3 "a bad file among many, 1 thread" "$AA" collect "$TH" --threads 1 -o "$T/bad1.xml"
cp "$T/.err" "$T/bad1.err"
expect_status 3 "a bad file among many, 4 threads" "$AA" collect "$TH" --threads 4 -o "$T/bad4.xml"
like "$(cat "$T/.err")" "rank-17\.xml" "the first bad file is named"
ok "the same message with 4 threads as with 1" cmp "$T/.err" "$T/bad1.err"
ok "nothing written" test ! -e "$T/bad4.xml"
expect_status 2 "--threads 0 is a usage error" "$AA" collect "$TH" --threads 0

# binary rank files whose run, metrics and regions are byte for byte the
# first file's are read without them; one that differs is read whole: its
# extra region is merged, a region in conflict is an error naming the file
LX=$T/like-xml LB=$T/like-bin
mkdir -p "$LX" "$LB"
for r in $(seq 0 39); do rank_file "$LX" $r run-l 40; done
sed -i 's|<region id="12" kind="loop" name="loop@42" function="solve"/>|&<region id="13" kind="loop" name="loop@50" function="solve"/>|; s|<node region="12" parent="0" v="\([^"]*\)"/>|&<node region="13" parent="1" v="\1"/>|' "$LX/rank-30.xml"
for r in $(seq 0 39); do "$AA" convert "$LX/rank-$r.xml" "$LB/rank-$r.aab" >/dev/null 2>&1; done
expect_status 0 "binary rank files, one with another region" "$AA" collect "$LB" --threads 1 -o "$T/l1.xml"
is "$(grep -c '<region ' "$T/l1.xml")" 3 "the region only rank 30 has is merged"
"$AA" collect "$LX" --threads 1 -o "$T/lx.xml" >/dev/null 2>&1
ok "the experiment merged from the XML rank files" cmp "$T/l1.xml" "$T/lx.xml"
"$AA" collect "$LB" --threads 4 -o "$T/l4.xml" >/dev/null 2>&1
ok "the same with 4 threads" cmp "$T/l1.xml" "$T/l4.xml"
sed 's|name="loop@42"|name="loop@43"|' "$LX/rank-33.xml" > "$T/r33.xml"
"$AA" convert "$T/r33.xml" "$LB/rank-33.aab" >/dev/null 2>&1
expect_status 3 "a binary rank file with a region in conflict" "$AA" collect "$LB" --threads 1 -o "$T/lc.xml"
like "$(cat "$T/.err")" "rank-33\.aab: region 12 \('loop@43'" "the conflict names the file"

expect_status 0 "--help" "$AA" collect --help
like "$(cat "$T/.out")" "allow-missing" "help mentions --allow-missing"

done_testing
