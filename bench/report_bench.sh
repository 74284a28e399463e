#!/usr/bin/env bash
# bench/report_bench.sh -- `make bench-report`: the report of a synthetic
# 10,000-rank x 2,000-region experiment (bench/report_bench.c): its size,
# the time to render it and the time headless Chromium takes to load it
# (navigation start to the load event, the report's own script included),
# and whether any label is cut off at 1,200 px.
#   report_bench.sh [BUILD_DIR] [PROCS] [REGIONS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}; procs=${2:-10000}; regions=${3:-2000}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
out=$(mktemp -d "${TMPDIR:-/tmp}/aa-report-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$build/bench/report_bench" --procs "$procs" --regions "$regions" -o "$out/report.html"
res=$("$top/tests/report/chromium_check.sh" "$out/report.html")
printf '%s\n' "$res" | grep -E '^(rendered|errors|charts|clipped|load_ms)='
