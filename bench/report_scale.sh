#!/bin/sh
# bench/report_scale.sh -- `make bench-report-scale`: `autoanalyzer report`
# end to end on synthetic slow-group experiments of P processes x 500 regions
# x 18 metrics (binary format, as bench/analyze_scale.md generates them):
# CPU time (user + sys), wall time and peak memory of `report` (min of RUNS
# runs; peak: the largest), the same for `analyze` on the same experiment for
# comparison, the size of the page, and the time headless Chromium takes to
# open it (navigation start to the load event, the report's own script
# included; min and median of LOADS loads), with the charts it rendered and
# the labels cut off at 1,200 px.  The machine's load average is printed
# with every figure: timings on a shared machine vary with it.
#   report_scale.sh [BUILD_DIR] [PROCS...]        (default: build 16384)
# Environment: REGIONS (500), RUNS (3), LOADS (5), AA (the autoanalyzer
# binary to time, default BUILD_DIR/bin/autoanalyzer), KEEP=1 keeps the
# experiments and pages (their directory is printed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
procs=${*:-16384}
regions=${REGIONS:-500}; runs=${RUNS:-3}; loads=${LOADS:-5}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
aa=${AA:-$build/bin/autoanalyzer}; synth="$build/tests/aa_synth"
for f in "$aa" "$synth"; do
    [ -x "$f" ] || { echo "report_scale.sh: $f not built (make all)" >&2; exit 4; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/aa-report-scale.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "files kept in $out"; else trap 'rm -rf "$out"' EXIT; fi
load() { cut -d' ' -f1-3 /proc/loadavg; }

# "cpu wall peak_kb" of one command (GNU time's -f; its output goes to a file)
timed() {
    /usr/bin/time -f '%U %S %e %M' -o "$out/time" "$@" > /dev/null 2> "$out/err" ||
        { echo "report_scale.sh: failed: $*" >&2; cat "$out/err" >&2; exit 4; }
    awk '{ printf "%.2f %.2f %d\n", $1 + $2, $3, $4 }' "$out/time"
}

# "min_cpu min_wall max_peak_mb all_cpus" over $runs runs of a command
repeat() {
    i=0; : > "$out/runs"
    while [ $i -lt "$runs" ]; do timed "$@" >> "$out/runs"; i=$((i + 1)); done
    awk 'NR == 1 || $1 < c { c = $1 } NR == 1 || $2 < w { w = $2 } $3 > m { m = $3 }
         { all = all (NR > 1 ? "/" : "") $1 }
         END { printf "%.2f %.2f %.0f %s\n", c, w, m / 1024, all }' "$out/runs"
}

for p in $procs; do
    exp="$out/s$p.aab"; html="$out/r$p.html"
    "$synth" --scenario slow-group --procs "$p" --regions "$regions" --binary -o "$exp" > /dev/null
    echo "== $p processes x $regions regions x 18 metrics ($(du -k "$exp" | cut -f1) KB binary experiment)"
    set -- $(repeat "$aa" analyze -q --json "$out/a.json" "$exp")
    echo "analyze: $1 s CPU (min of $runs: $4), $2 s wall, peak memory $3 MB; load $(load)"
    set -- $(repeat "$aa" report "$exp" -o "$html")
    echo "report: $1 s CPU (min of $runs: $4), $2 s wall, peak memory $3 MB; load $(load)"
    bytes=$(wc -c < "$html")
    echo "html: $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1048576 }') MiB)"
    if CH=$(command -v chromium || command -v chromium-browser); then
        i=0; : > "$out/loads"
        while [ $i -lt "$loads" ]; do
            t0=$(date +%s.%N)
            CHROMIUM=$CH "$top/tests/report/chromium_check.sh" "$html" > "$out/check" || exit 4
            t1=$(date +%s.%N)
            echo "$(sed -n 's/^load_ms=//p' "$out/check") $t0 $t1" |
                awk '{ printf "%s %.2f\n", $1, $3 - $2 }' >> "$out/loads"
            i=$((i + 1))
        done
        sort -n "$out/loads" | awk -v l="$(load)" '{ ms[NR] = $1 }
            NR == 1 || $2 < w0 { w0 = $2 } $2 > w1 { w1 = $2 }
            END { printf "chromium: load_ms min %d median %d (%d loads; the whole headless run %.1f-%.1f s); load %s\n",
                  ms[1], ms[int((NR + 1) / 2)], NR, w0, w1, l }'
        grep -E '^(rendered|errors|charts|clipped)=' "$out/check" | paste -sd' ' -
    else
        echo "chromium: not installed, load time not measured"
    fi
done
