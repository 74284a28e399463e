#!/usr/bin/env bash
# tests/report/chromium_check.sh -- loads an HTML report in a real headless
# Chromium (Debian's chromium package) and prints what the page did, one
# `key=value` line each:
#   errors=N          JavaScript errors (window.onerror) while loading
#   error_text=...    their messages
#   scripts=N         <script> elements in the live DOM (the report has one;
#                     this checker adds one more)
#   charts=a,b,c      charts the report's own script found rendered
#   rects=N           SVG rectangles inside the charts
#   rendered=yes|no   whether the page got as far as the checker's load hook
# Exit 0 when Chromium ran, 4 when it is missing or failed.
#   chromium_check.sh REPORT.html
set -u
html=$1
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then echo "chromium not installed" >&2; exit 4; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/aa-chromium.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The recorder goes first in <head> so it sees errors from everything after it.
recorder='<script>window.__aaErr=[];window.onerror=function(m,s,l){window.__aaErr.push(m+" @"+l);};
window.addEventListener("load",function(){var d=document.createElement("div");d.id="aa-test-result";
d.setAttribute("data-errors",String(window.__aaErr.length));
d.setAttribute("data-error-text",window.__aaErr.join(" | "));
d.setAttribute("data-scripts",String(document.scripts.length));
d.setAttribute("data-charts",document.body.getAttribute("data-aa-charts")||"");
d.setAttribute("data-rects",String(document.querySelectorAll("svg.aa-chart rect").length));
document.body.appendChild(d);});</script>'
awk -v rec="$recorder" '{ if (!done && sub(/<head>/, "<head>" rec)) done = 1; print }' "$html" > "$work/page.html"
timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$work/profile" \
    --dump-dom "file://$work/page.html" > "$work/dom.html" 2> "$work/chromium.err"
st=$?
if [ $st != 0 ] || [ ! -s "$work/dom.html" ]; then
    echo "chromium failed (status $st)" >&2; tail -5 "$work/chromium.err" >&2; exit 4
fi
line=$(grep -o '<div id="aa-test-result"[^>]*>' "$work/dom.html" || true)
attr() { printf '%s' "$line" | sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p"; }
if [ -n "$line" ]; then echo "rendered=yes"; else echo "rendered=no"; fi
echo "errors=$(attr data-errors)"
echo "error_text=$(attr data-error-text)"
echo "scripts=$(attr data-scripts)"
echo "charts=$(attr data-charts)"
echo "rects=$(attr data-rects)"
[ -n "${DUMP_DOM:-}" ] && cp "$work/dom.html" "$DUMP_DOM"
exit 0
