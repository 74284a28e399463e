#!/usr/bin/env bash
# `autoanalyzer report`: one self-contained HTML page, checked in a real
# headless Chromium (renders, charts present, no script errors), with every
# program-derived string escaped, a baseline comparison, and bad input.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/report/gen_experiment.sh"
CHECK="$TOP/tests/report/chromium_check.sh"

"$GEN" "$T/cur.xml" 4 3 cur-1
"$GEN" "$T/base.xml" 4 1 base-1

expect_status 0 "report of an experiment file" "$AA" report "$T/cur.xml" -o "$T/r.html"
like "$(cat "$T/.out")" "report: .*r.html" "prints where the report is"
ok "report written" test -s "$T/r.html"
html=$(cat "$T/r.html")
is "$(grep -c '<script>alert' "$T/r.html")" 0 "region name with <script> is escaped"
like "$html" '&lt;script&gt;alert\(1\)&lt;/script&gt;' "escaped region name is shown"
like "$html" 'x&quot;y&#39;\.c' "quotes in file names are escaped"
like "$html" 'loop@40 &amp; &quot;more&quot;' "ampersand and quotes in names are escaped"
like "$html" 'solve&lt;T&gt;' "angle brackets in function names are escaped"
is "$(grep -o '<script' "$T/r.html" | wc -l)" 1 "exactly one script element (the report's own)"
is "$(grep -Eco '(src|href)=|https?://|@import|url\(http' "$T/r.html")" 0 "nothing loaded from the network"
for sec in findings severity heatmap optics causes unavailable; do
    like "$html" "<section id=\"$sec\"" "section $sec present"
done
like "$html" 'class="unavail">instructions<' "unmeasured attributes are named"

if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then
    res=$("$CHECK" "$T/r.html"); st=$?
    is "$st" 0 "chromium ran"
    like "$res" "rendered=yes" "page loaded in chromium"
    like "$res" "errors=0" "no JavaScript errors"
    # one per-rank bar chart per finding card of the page, then the others
    ncards=$(grep -o 'class="rankbars"' "$T/r.html" | wc -l)
    ok "finding cards with per-rank bars ($ncards)" test "$ncards" -ge 2
    want=$(seq -f 'ranks-%g' 1 "$ncards" | paste -sd, -)
    like "$res" "charts=$want,severity,heatmap,optics" "all charts rendered, per-rank bars of each finding first"
    like "$res" "scripts=2" "no injected script elements in the live DOM"
    like "$res" "rects=[1-9][0-9]*" "charts have shapes"
    # the checker itself must be able to fail
    printf '<!DOCTYPE html><html><head></head><body><script>noSuchFunction();</script></body></html>' > "$T/broken.html"
    res=$("$CHECK" "$T/broken.html")
    like "$res" "errors=1" "checker catches a script error"
    like "$res" "charts=$" "checker sees missing charts"
else
    echo "# chromium not installed: browser checks skipped"
    echo "ok $((_tap_n + 1)) # SKIP chromium not installed"; _tap_n=$((_tap_n + 1))
fi

# comparison with a baseline
expect_status 0 "report with --baseline" "$AA" report "$T/cur.xml" --baseline "$T/base.xml" -o "$T/c.html"
c=$(cat "$T/c.html")
like "$c" '<section id="comparison"' "comparison section present"
like "$c" '<tr class="new"><td>new</td><td>dissimilarity</td><td>#[0-9]+ &lt;script&gt;alert' "the slowed loop is a new bottleneck"
like "$c" 'Largest performance differences' "performance differences listed"
# the headline says how much slower before anything else, in the summary too
like "$c" '<section id="summary"><h2>Summary</h2><p class="headline"><span class="warn">This run is <b>[0-9]+% slower</b> than the baseline</span> \([0-9.]+ s against [0-9.]+ s per process\)' "summary opens with the slowdown"
like "$c" '<section id="comparison"><h2>[^<]*</h2><p class="headline"><span class="warn">This run is <b>[0-9]+% slower' "comparison opens with the slowdown"
like "$c" 'regions? more than 10% slower:</span> ' "regressions listed in the summary"
"$AA" report "$T/base.xml" --baseline "$T/cur.xml" -o "$T/f.html" > /dev/null
like "$(cat "$T/f.html")" '<span class="ok">This run is <b>[0-9]+% faster</b>' "a faster run says so"
"$GEN" "$T/slow2.xml" 4 3 slow-2 2
"$AA" report "$T/slow2.xml" --baseline "$T/cur.xml" -o "$T/s2.html" > /dev/null
s2=$(cat "$T/s2.html")
like "$s2" 'This run is <b>(99|100)% slower</b>' "same bottlenecks, twice the time: about 100% slower"
like "$s2" '<p class="warn">Same core bottlenecks as the baseline, but the run is slower' "same bottlenecks in a slower run are not shown as good news"
is "$(grep -c '<p class="ok">Same core bottlenecks' "$T/s2.html")" 0 "no green 'same core bottlenecks' for a slower run"
# the same bottlenecks in a slower run are not good news

if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then
    res=$("$CHECK" "$T/c.html")
    like "$res" "errors=0" "comparison page: no JavaScript errors"
    like "$res" "charts=(ranks-[0-9]+,)*severity,heatmap,optics" "comparison page: charts rendered"
fi
expect_status 0 "same run as baseline" "$AA" report "$T/base.xml" --baseline "$T/base.xml" -o "$T/s.html"
like "$(cat "$T/s.html")" "Same core bottlenecks as the baseline" "identical runs: no change"

# 64 ranks, every fourth one slow, long function names: rank sets compressed
# in the HTML, text and JSON summaries; at 1,200 px no label is cut off
SYNTH="$AA_BUILD/tests/aa_synth"
ART="$AA_BUILD/tests/artefacts/report"; mkdir -p "$ART"
"$SYNTH" --scenario slow-group --procs 64 --regions 20 -o "$T/s64.xml" > /dev/null
sed 's/"solve"/"compute_the_three_dimensional_stencil_update_for_all_blocks"/g' "$T/s64.xml" > "$T/long.xml"
mkdir -p "$T/src"; cp "$T/long.xml" "$T/src/experiment.xml"
awk 'BEGIN { for (i = 1; i <= 70; i++) printf "  line_%d_of_the_source();\n", i }' > "$T/src/synth.c"
expect_status 0 "report of 64 ranks with long names" "$AA" report "$T/src" -o "$T/long.html"
l=$(cat "$T/long.html")
like "$l" '<tr><th>cluster 1</th><td>16 processes: ranks 1-61:4; mean [0-9.]+ s' "HTML: every fourth rank as 1-61:4, with the cluster mean"
like "$l" '<tr><th>cluster 0</th><td>48 processes: ranks 0-62:2,3-63:4; mean' "HTML: all the others as two classes, 0-62:2,3-63:4"
like "$l" '<b>ranks 1-61:4</b> spend <b>[0-9.]+ s</b> more than the other processes' "HTML: the finding names the slow ranks compactly, in seconds"
like "$l" '<details class="src"><summary>source: synth.c:55</summary><pre><span class="ln">   53 +line_53_of_the_source\(\);</span>' "source lines of the finding's region, from the experiment's directory"
like "$l" '<span class="hl">   55 +line_55_of_the_source' "the region's own line is highlighted"
expect_status 0 "text report" "$AA" analyze "$T/s64.xml"
like "$(cat "$T/.out")" 'cluster 1 \(16 ranks, mean [0-9.]+ s\): 1-61:4' "text: rank set compressed"
expect_status 0 "JSON report" "$AA" analyze "$T/s64.xml" --json "$T/s64.json"
js=$(tr -d ' \n' < "$T/s64.json")
like "$js" '"rank_set":"0-63"' "JSON: all ranks as 0-63"
like "$js" '"slow_ranks":\[1,5,9[0-9,]*\],"slow_rank_set":"1-61:4"' "JSON: slow ranks as 1-61:4 beside the array"
if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then
    res=$(SHOT="$ART/long-1200.png" "$CHECK" "$T/long.html")
    like "$res" "errors=0" "long names: no JavaScript errors"
    like "$res" "clipped=0" "long names: no label cut off at 1,200 px"
    like "$res" "tree=[0-9]+/21,[0-9]+/21,21" "call tree: collapsed on load, expands, sorting keeps every row"
    ok "screenshot kept as a test artefact" test -s "$ART/long-1200.png"
    res=$(SHOT="$ART/comparison-1200.png" "$CHECK" "$T/c.html")
    like "$res" "clipped=0" "comparison page: no label cut off at 1,200 px"
    # the check itself sees a cut-off label
    printf '<!DOCTYPE html><html><head></head><body><main><section><svg class="aa-chart" width="100" height="20"><text x="90" y="15">a label far too long for its chart</text></svg></section></main></body></html>' > "$T/clip.html"
    like "$("$CHECK" "$T/clip.html")" "clipped=1" "checker catches a cut-off label"
fi

# --compare-last: the latest comparable run stored in the Program Space
mkdir -p "$T/b" "$T/c"; cp "$T/base.xml" "$T/b/experiment.xml"; cp "$T/cur.xml" "$T/c/experiment.xml"
expect_status 0 "report --compare-last with an empty space" "$AA" report "$T/c" --db "$T/s.db" --compare-last
like "$(cat "$T/.err")" "no earlier comparable run" "no stored run: says so"
ok "stored the baseline" "$AA" space add "$T/b/experiment.xml" --db "$T/s.db" --attr "experiment_dir=$T/b"
expect_status 0 "report --compare-last" "$AA" report "$T/c" --db "$T/s.db" --compare-last -o "$T/cl.html"
like "$(cat "$T/cl.html")" "<h2>Comparison with stored run 1 " "compared with the stored run"
like "$(cat "$T/cl.html")" '<tr class="new"><td>new</td>' "stored-run comparison lists the new bottleneck"
# the Program Space is the source of truth: the baseline's directory is gone
rm -rf "$T/b"
expect_status 0 "report --compare-last with the baseline's directory deleted" "$AA" report "$T/c" --db "$T/s.db" --compare-last -o "$T/gone.html"
like "$(cat "$T/gone.html")" "<h2>Comparison with stored run 1 " "deleted directory: compared with the stored run"
like "$(cat "$T/gone.html")" '<tr class="new"><td>new</td>' "deleted directory: the new bottleneck is still found"
expect_status 0 "report --baseline EID" "$AA" report "$T/c" --db "$T/s.db" --baseline 1 -o "$T/eid.html"
like "$(cat "$T/eid.html")" "<h2>Comparison with stored run 1 " "--baseline EID: compared with the stored run"
expect_status 3 "report --baseline with an unknown EID" "$AA" report "$T/c" --db "$T/s.db" --baseline 7 -o "$T/eid7.html"
like "$(cat "$T/.err")" "unknown execution 7" "unknown EID is named"
ok "no report for an unknown EID" test ! -e "$T/eid7.html"
expect_status 0 "analyze --from-space" "$AA" analyze --from-space 1 --db "$T/s.db" --json "$T/fs.json" -q
"$AA" analyze "$T/base.xml" --json "$T/direct.json" -q
is "$(grep -v '"experiment_dir"' "$T/fs.json" | md5sum)" "$(grep -v '"experiment_dir"' "$T/direct.json" | md5sum)" "analyze --from-space: the same analysis as from the file"
expect_status 3 "analyze --from-space with an unknown EID" "$AA" analyze --from-space 9 --db "$T/s.db"
expect_status 2 "analyze with an experiment and --from-space" "$AA" analyze "$T/base.xml" --from-space 1 --db "$T/s.db"

# a directory holding experiment.xml; stdout output
mkdir -p "$T/dir"; cp "$T/cur.xml" "$T/dir/experiment.xml"
expect_status 0 "report of a directory" "$AA" report "$T/dir"
ok "default output is DIR/report.html" test -s "$T/dir/report.html"
expect_status 0 "-o - writes to stdout" "$AA" report "$T/cur.xml" -o -
like "$(head -c 15 "$T/.out")" "<!DOCTYPE html>" "stdout holds the page"

# bad input and usage
printf '<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="x" program="p" nprocs="1">\n<metrics>\n' > "$T/bad.xml"
expect_status 3 "malformed experiment is bad input" "$AA" report "$T/bad.xml" -o "$T/bad.html"
like "$(cat "$T/.err")" "bad.xml:[0-9]+" "error names file and line"
ok "no report written for bad input" test ! -e "$T/bad.html"
expect_status 3 "malformed baseline is bad input" "$AA" report "$T/cur.xml" --baseline "$T/bad.xml" -o "$T/bad.html"
expect_status 3 "missing experiment: bad input" "$AA" report "$T/nonexistent.xml"
expect_status 2 "no experiment" "$AA" report
expect_status 2 "unknown option" "$AA" report "$T/cur.xml" --bogus
expect_status 2 "baseline and compare-last together" "$AA" report "$T/cur.xml" --baseline "$T/base.xml" --compare-last
done_testing
