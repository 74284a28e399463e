#!/usr/bin/env bash
# tests/e2e/report_scale.t -- bench/report_scale.sh (`make
# bench-report-scale`) at a small size prints the figures it exists for:
# the CPU time, wall time and peak memory of `analyze` and `report`, the
# page size and, with Chromium, its load time, the charts it rendered
# (the per-region distribution and the binned views included: 1,100
# processes are more than the heat map's rows and the plot's bars) and
# no label cut off.
. "$(dirname "$0")/lib.sh"
[ -x "$AA_BUILD/tests/aa_synth" ] || skip_all "aa_synth not built (make all)"

REGIONS=20 RUNS=1 LOADS=1 sh "$TOP/bench/report_scale.sh" "$AA_BUILD" 1100 > "$T/out" 2>&1
is $? 0 "report_scale.sh runs"
out=$(cat "$T/out")
like "$out" "== 1100 processes x 20 regions" "the experiment is named"
like "$out" "analyze: [0-9.]+ s CPU \(min of 1: [0-9.]+\), [0-9.]+ s wall, peak memory [1-9][0-9]* MB; load [0-9.]+" "analyze timed"
like "$out" "report: [0-9.]+ s CPU \(min of 1: [0-9.]+\), [0-9.]+ s wall, peak memory [1-9][0-9]* MB; load [0-9.]+" "report timed"
like "$out" "html: [1-9][0-9]* bytes \([0-9.]+ MiB\)" "page size"
if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then
    like "$out" "chromium: load_ms min [0-9]+ median [0-9]+ \(1 loads" "Chromium load time"
    like "$out" "rendered=yes errors=0 charts=ranks-1,[a-z0-9,-]*heatmap,distribution,optics clipped=0" "every chart rendered, none cut off"
else
    like "$out" "chromium: not installed" "no Chromium: said so"
fi
done_testing
