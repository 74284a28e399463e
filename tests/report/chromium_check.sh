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
#   clipped=N         labels cut off at the window width (1,200 px unless
#                     WIDTH is set): SVG text outside its chart, or a box whose
#                     content is wider than the box and not scrollable
#   clipped_text=...  the first of them
#   tree=V/T,V/T,T    call tree: visible/total rows on load, after expanding
#                     the first collapsed node, and the rows after a sort
#   load_ms=N         time from navigation start to the end of the load event
# With SHOT=FILE.png it also writes a screenshot of the page at that width.
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
var clip=[];try{document.querySelectorAll("svg.aa-chart text").forEach(function(t){
var sv=t.ownerSVGElement.getBoundingClientRect(),b=t.getBoundingClientRect();
if(b.width>0&&(b.left<sv.left-1||b.right>sv.right+1||b.top<sv.top-1||b.bottom>sv.bottom+1))
clip.push("svg:"+t.textContent.slice(0,60));});
document.querySelectorAll("main *").forEach(function(e){var cs=getComputedStyle(e);
if(e.closest("svg")||e.closest(".scroll")||cs.display==="none"||cs.display==="inline")return;
if(e.scrollWidth>e.clientWidth+1&&(cs.overflowX==="hidden"||cs.overflowX==="visible"))
clip.push(e.tagName+":"+e.textContent.slice(0,60));});
var vw=document.documentElement.clientWidth;document.querySelectorAll("main section").forEach(function(e){
if(e.getBoundingClientRect().right>vw+1)clip.push("section:"+e.id);});
}catch(x){window.__aaErr.push("checker: "+x);}
d.setAttribute("data-errors",String(window.__aaErr.length));d.setAttribute("data-error-text",window.__aaErr.join(" | "));
d.setAttribute("data-clipped",String(clip.length));d.setAttribute("data-clipped-text",clip.slice(0,3).join(" | ").replace(/"/g,"`"));
var tv="";try{var tr=document.getElementById("aa-tree");if(tr){var vis=function(){var n=0;
for(var i=0;i<tr.tBodies[0].rows.length;i++)if(!tr.tBodies[0].rows[i].hidden)n++;return n;};
var tot=tr.tBodies[0].rows.length;tv=vis()+"/"+tot;var cl=null;
for(var i=0;i<tr.tBodies[0].rows.length&&!cl;i++){var r=tr.tBodies[0].rows[i];
if(!r.hidden&&r.getAttribute("data-open")!=="1"&&r.querySelector("button.tg"))cl=r.querySelector("button.tg");}
if(cl)cl.click();tv+=","+vis()+"/"+tot;tr.tHead.rows[0].cells[1].click();tv+=","+tr.tBodies[0].rows.length;}}catch(x){window.__aaErr.push("checker: "+x);}
d.setAttribute("data-tree",tv);d.setAttribute("data-errors",String(window.__aaErr.length));
d.setAttribute("data-error-text",window.__aaErr.join(" | "));
var nt=performance.getEntriesByType("navigation")[0];
d.setAttribute("data-load-ms",String(Math.round(nt?(nt.loadEventStart||performance.now()):performance.now())));
document.body.appendChild(d);});</script>'
# (index/substr, not sub(): "&" in the recorder would mean the matched text)
awk -v rec="$recorder" '{ i = index($0, "<head>")
  if (!done && i) { $0 = substr($0, 1, i + 5) rec substr($0, i + 6); done = 1 } print }' \
    "$html" > "$work/page.html"
width=${WIDTH:-1200}
timeout 90 "$CHROMIUM" --headless --no-sandbox --window-size="$width,900" --disable-gpu --disable-quic --no-first-run \
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
echo "clipped=$(attr data-clipped)"
echo "clipped_text=$(attr data-clipped-text)"
echo "tree=$(attr data-tree)"
echo "load_ms=$(attr data-load-ms)"
if [ -n "${SHOT:-}" ]; then
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --user-data-dir="$work/profile" --hide-scrollbars \
        --window-size="$width,${SHOT_HEIGHT:-3000}" --screenshot="$SHOT" "file://$html" \
        > /dev/null 2>> "$work/chromium.err" || echo "screenshot failed" >&2
fi
[ -n "${DUMP_DOM:-}" ] && cp "$work/dom.html" "$DUMP_DOM"
exit 0
