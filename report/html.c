/*
 * report/html.c -- renders one analysis as a single self-contained HTML page
 * (SPEC §5.5): inline CSS, inline SVG charts drawn here (severity bars,
 * per-process heat map, the analysis' own OPTICS reachability plot), and a
 * small inline script for tooltips and sortable tables that also marks the
 * page as rendered
 * (<body data-aa-charts="...">), which the headless-browser test checks.
 * Nothing is loaded from the network.  Every string from the program (region,
 * file, function, host and attribute names and values) goes through
 * aa_report_escape().
 */
#include "report/report_int.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 30
#define MAX_HEAT_ROWS 128
#define MAX_HEAT_COLS 40
#define MAX_DIFFS 20
#define MAX_OPTICS_BARS 1000 /* one pixel a bar: beyond, a bar is a run of processes */

static const char *const sev_names[5] = {"very low", "low", "medium", "high", "very high"};
static const char *const sev_colors[5] = {"#c6dbef", "#9ecae1", "#fdd49e", "#fc8d59", "#d7301f"};
static const char *const cluster_colors[8] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                              "#9467bd", "#8c564b", "#e377c2", "#17becf"};

void aa_report_escape(aa_buf *out, const char *s)
{
    if (!s)
        return;
    for (; *s; s++) {
        switch (*s) {
        case '&': aa_buf_puts(out, "&amp;"); break;
        case '<': aa_buf_puts(out, "&lt;"); break;
        case '>': aa_buf_puts(out, "&gt;"); break;
        case '"': aa_buf_puts(out, "&quot;"); break;
        case '\'': aa_buf_puts(out, "&#39;"); break;
        default: aa_buf_putc(out, *s);
        }
    }
}

#define ESC(s) aa_report_escape(o, (s))

/* Seconds with a readable unit. */
void rp_put_time(aa_buf *o, double s)
{
    if (isnan(s))
        aa_buf_puts(o, "n/a");
    else if (isinf(s))
        aa_buf_puts(o, "&#8734;");
    else if (fabs(s) >= 1 || s == 0)
        aa_buf_printf(o, "%.3g s", s);
    else if (fabs(s) >= 1e-3)
        aa_buf_printf(o, "%.3g ms", s * 1e3);
    else
        aa_buf_printf(o, "%.3g &#181;s", s * 1e6);
}

#define put_time rp_put_time

void rp_put_share(aa_buf *o, double s, double run)
{
    if (isnan(s) || !(run > 0))
        aa_buf_puts(o, "share of the run unknown");
    else
        aa_buf_printf(o, "%.1f%% of the run", 100 * s / run);
}

/* A finding's share of the run as the analysis states it (run_share: the
 * same number in the text, the JSON and the table of findings). */
static void put_finding_share(aa_buf *o, const aa_finding *f)
{
    aa_buf_printf(o, isfinite(f->run_share) ? "%.1f%% of the run" : "share of the run unknown",
                  100 * f->run_share);
}

const char *rp_severity_name(int cls)
{
    return cls >= 0 && cls <= 4 ? sev_names[cls] : "-";
}

static void put_num(aa_buf *o, double v)
{
    if (isnan(v))
        aa_buf_puts(o, "n/a");
    else if (isinf(v))
        aa_buf_puts(o, v > 0 ? "&#8734;" : "-&#8734;");
    else
        aa_buf_printf(o, "%.4g", v);
}

void rp_put_region(aa_buf *o, const aa_analysis *a, size_t idx)
{
    char *l = rp_region_label(a, idx);
    ESC(l);
    free(l);
}
#define put_region rp_put_region

/* A finding's region, and how many more calling contexts it adds up */
static void put_finding_region(aa_buf *o, const aa_analysis *a, const aa_finding *f)
{
    put_region(o, a, f->region);
    if (f->ncontexts > 1)
        aa_buf_printf(o, " and %zu more calling context%s", f->ncontexts - 1,
                      f->ncontexts == 2 ? "" : "s");
}

/* The region's own name ("loop@42"), for short labels. */
static const char *short_name(const aa_analysis *a, size_t idx)
{
    const aa_region *r = a->regions[idx].info;
    if (r && r->name && *r->name)
        return r->name;
    return a->regions[idx].depth == 0 ? "(program)" : "?";
}

static const char *kind_name(aa_finding_kind k)
{
    return aa_finding_kind_name(k);
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;"
    "background:#fafafa}"
    "header{background:#263238;color:#fff;padding:14px 24px}"
    "header h1{margin:0;font-size:1.4em}header p{margin:4px 0 0;color:#cfd8dc}"
    "main{padding:8px 24px 40px;max-width:1200px}"
    "section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 16px;"
    "margin:14px 0}"
    "h2{font-size:1.15em;margin:4px 0 10px}"
    "table{border-collapse:collapse;font-size:.9em;margin:6px 0}"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#eceff1}table.sortable th{cursor:pointer}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".sev4{background:#f9d3cc}.sev3{background:#fde0cf}"
    ".new{color:#b71c1c;font-weight:bold}.gone{color:#1b5e20}"
    ".muted{color:#777}.ok{color:#1b5e20}.warn{color:#b71c1c}"
    "svg text{font-size:11px;font-family:inherit}"
    "#aa-tip{position:absolute;display:none;background:#263238;color:#fff;padding:3px 6px;"
    "border-radius:3px;font-size:12px;pointer-events:none;white-space:pre}"
    ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;"
    "vertical-align:middle}"
    ".scroll{overflow-x:auto}.headline{font-size:1.05em;margin:4px 0 8px}"
    ".finding{border-left:4px solid #fc8d59;padding:2px 0 2px 12px;margin:12px 0}"
    ".finding h3{font-size:1.02em;margin:2px 0 6px}.finding p{margin:4px 0}"
    ".jargon{font-size:.88em;color:#555}"
    ".partial{background:#fff3cd;color:#6b4f00;border-radius:3px;padding:0 4px;font-size:.85em}"
    "table.tree th{cursor:pointer}table.tree td:first-child{white-space:nowrap}"
    ".tg{display:inline-block;width:18px;border:0;background:none;padding:0;cursor:pointer;"
    "font-size:11px;color:#455a64}"
    "details.src pre{background:#f5f5f5;padding:6px;font-size:.85em;overflow-x:auto;margin:4px 0}"
    "details.src .hl{background:#fde0cf;display:inline-block;min-width:100%}"
    "dl.terms dt{font-weight:bold;float:left;clear:left;width:9em}"
    "dl.terms dd{margin:0 0 4px 9.5em}"
    ".heatscale{display:inline-block;width:160px;height:10px;vertical-align:middle;"
    "background:linear-gradient(to right,#ffffff,#a50f15);border:1px solid #ccc;margin:0 6px}"
    "details.ranks{display:inline}details.ranks[open]{display:block;word-break:break-all}";

static const char js[] =
    "(function(){\n"
    "var tip=document.getElementById('aa-tip');\n"
    "var els=document.querySelectorAll('svg [data-tip]');\n"
    "for(var i=0;i<els.length;i++){(function(el){\n"
    " el.addEventListener('mousemove',function(ev){tip.textContent=el.getAttribute('data-tip');"
    "tip.style.display='block';tip.style.left=(ev.pageX+12)+'px';tip.style.top=(ev.pageY+12)+'px';});\n"
    " el.addEventListener('mouseleave',function(){tip.style.display='none';});})(els[i]);}\n"
    "var ths=document.querySelectorAll('table.sortable th');\n"
    "for(var j=0;j<ths.length;j++){(function(th){th.addEventListener('click',function(){\n"
    " var tb=th.closest('table').tBodies[0],col=th.cellIndex,asc=th.getAttribute('data-asc')!=='1';\n"
    " th.setAttribute('data-asc',asc?'1':'0');\n"
    " var rows=Array.prototype.slice.call(tb.rows);\n"
    " rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-v')||a.cells[col].textContent,"
    "y=b.cells[col].getAttribute('data-v')||b.cells[col].textContent;"
    "var nx=parseFloat(x),ny=parseFloat(y);"
    "var r=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?r:-r;});\n"
    " rows.forEach(function(r){tb.appendChild(r);});});})(ths[j]);}\n"
    "var tree=document.getElementById('aa-tree');\n"
    "if(tree){var tb=tree.tBodies[0];\n"
    " var refresh=function(){var closed=1e9;for(var i=0;i<tb.rows.length;i++){var r=tb.rows[i],"
    "d=+r.getAttribute('data-d');if(d>closed){r.hidden=true;continue;}closed=1e9;r.hidden=false;"
    "if(r.querySelector('button.tg')&&r.getAttribute('data-open')!=='1')closed=d;}};\n"
    " tb.addEventListener('click',function(ev){var b=ev.target.closest('button.tg');if(!b)return;"
    "var r=b.closest('tr'),o=r.getAttribute('data-open')==='1';r.setAttribute('data-open',o?'0':'1');"
    "b.innerHTML=o?'&#9656;':'&#9662;';refresh();});\n"
    " var hs=tree.tHead.rows[0].cells;for(var h=0;h<hs.length;h++){(function(th){"
    "th.addEventListener('click',function(){var col=th.cellIndex,asc=th.getAttribute('data-asc')!=='1';"
    "th.setAttribute('data-asc',asc?'1':'0');var kids={},roots=[],rows=Array.prototype.slice.call(tb.rows);"
    "rows.forEach(function(r){var p=r.getAttribute('data-p');if(p==='-1')roots.push(r);"
    "else(kids[p]=kids[p]||[]).push(r);});\n"
    "  var key=function(r){var c=r.cells[col],v=c.getAttribute('data-v');var n=parseFloat(v);"
    "return isNaN(n)?c.textContent:n;};var cmp=function(a,b){var x=key(a),y=key(b);"
    "var q=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));"
    "return asc?q:-q;};\n"
    "  var walk=function(r){tb.appendChild(r);(kids[r.getAttribute('data-i')]||[]).sort(cmp).forEach(walk);};"
    "roots.sort(cmp).forEach(walk);refresh();});})(hs[h]);}}\n"
    "var drawn=[],svgs=document.querySelectorAll('svg.aa-chart');\n"
    "for(var k=0;k<svgs.length;k++){var s=svgs[k];var b=s.getBBox();"
    "if(s.querySelectorAll('rect').length>0&&b.width>0&&b.height>0)"
    "drawn.push(s.getAttribute('data-chart'));}\n"
    "document.body.setAttribute('data-aa-charts',drawn.join(','));\n"
    "})();\n";

/* The comparison's headline: slowdown or speed-up of the whole run first. */
static void rp_put_change(aa_buf *o, const aa_report_comparison *c)
{
    double rel = (c->run_after - c->run_before) / c->run_before;
    if (fabs(rel) < 0.02)
        aa_buf_printf(o, "<span class=\"ok\">This run takes as long as the baseline</span> "
                         "(%+.1f%%: ", 100 * rel);
    else if (rel > 0)
        aa_buf_printf(o, "<span class=\"warn\">This run is <b>%.0f%% slower</b> than the "
                         "baseline</span> (",
                      100 * rel);
    else
        aa_buf_printf(o, "<span class=\"ok\">This run is <b>%.0f%% faster</b> than the "
                         "baseline</span> (",
                      -100 * rel);
    put_time(o, c->run_after);
    aa_buf_puts(o, " against ");
    put_time(o, c->run_before);
    aa_buf_puts(o, " per process).");
}

/* ---- sections ----------------------------------------------------------- */

#define RANKSET_SHOWN 160 /* longer rank sets fold the rest away */

/* "rank 3" / "ranks 0-1535"; a set that stays long when written compactly
 * shows its start and folds the rest into a <details>. */
static void put_rankset(aa_buf *o, const int *r, size_t n)
{
    aa_buf b;
    size_t cut;
    aa_buf_init(&b);
    aa_put_rankset(&b, r, n);
    if (b.failed || b.len <= RANKSET_SHOWN) {
        ESC(b.data);
    } else {
        for (cut = RANKSET_SHOWN; cut > 0 && b.data[cut] != ','; cut--)
            ;
        aa_buf_add(o, b.data, cut);
        aa_buf_printf(o, ",&#8230; <details class=\"ranks\"><summary>all %zu ranks</summary>", n);
        ESC(b.data);
        aa_buf_puts(o, "</details>");
    }
    aa_buf_free(&b);
}

static void put_ranks(aa_buf *o, const int *r, size_t n)
{
    aa_buf_puts(o, n == 1 ? "rank " : "ranks ");
    put_rankset(o, r, n);
}

/* Mean main metric of the region per cluster of the analysis. */
static void cluster_means(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                          size_t r)
{
    size_t c, p, shown = a->nclusters < 8 ? a->nclusters : 8;
    if (a->nclusters < 2)
        return;
    aa_buf_puts(o, "<p>Mean ");
    ESC(v->main_label);
    aa_buf_puts(o, " here per cluster of processes: ");
    for (c = 0; c < shown; c++) {
        double sum = 0;
        size_t n = 0;
        for (p = 0; p < v->nproc; p++) {
            double x = v->main[p * v->nreg + r];
            if (s->cluster[p] != (int)c)
                continue;
            n++;
            if (!isnan(x))
                sum += x;
        }
        aa_buf_printf(o, "%scluster %zu (", c ? "; " : "", c);
        put_ranks(o, a->cluster_ranks[c], a->cluster_size[c]);
        aa_buf_puts(o, ") <b>");
        put_time(o, n ? sum / (double)n : NAN);
        aa_buf_puts(o, "</b>");
    }
    if (shown < a->nclusters)
        aa_buf_printf(o, "; %zu more clusters", a->nclusters - shown);
    aa_buf_puts(o, ".</p>");
}

/* The finding in plain words: who loses how much time where, and who waits. */
static void finding_sentence(aa_buf *o, const aa_analysis *a, const aa_finding *f)
{
    if (f->kind == AA_FINDING_DYNAMIC) {
        aa_buf_puts(o, "<p>Every process waits <b>");
        put_time(o, f->impact_s);
        aa_buf_puts(o, "</b> (");
        put_finding_share(o, f);
        aa_buf_puts(o, ") at each step's synchronization");
        if (f->wait_region >= 0) {
            aa_buf_puts(o, " in ");
            if (f->wait_kind) {
                aa_report_escape(o, f->wait_kind);
                aa_buf_puts(o, " in ");
            }
            put_region(o, a, (size_t)f->wait_region);
        }
        aa_buf_puts(o, " for whichever process had the most work in that step: their totals "
                       "are alike, but one step's work varies by ");
        put_time(o, f->step_work_sd);
        aa_buf_puts(o, " (");
        put_time(o, f->step_noise_sd);
        aa_buf_printf(o, " of it as the machine varies the same work; over %.0f steps), and "
                         "each waits longer the less work it had.</p>",
                      f->steps);
        return;
    }
    if (f->kind == AA_FINDING_DISSIMILARITY) {
        aa_buf_puts(o, "<p>");
        if (f->nslow) {
            aa_buf_puts(o, "<b>");
            put_ranks(o, f->slow_ranks, f->nslow);
            aa_buf_printf(o, "</b> spend%s <b>", f->nslow == 1 ? "s" : "");
        } else {
            aa_buf_puts(o, "Some processes spend <b>");
        }
        if (f->excess_s > f->impact_s) { /* made up elsewhere in part (an_idle_bound) */
            put_time(o, f->excess_s);
            aa_buf_puts(o, "</b> more than the other processes in this region, but the others "
                           "are idle only <b>");
            put_time(o, f->impact_s);
            aa_buf_puts(o, "</b> (");
            put_finding_share(o, f);
            aa_buf_puts(o, ") in all: the rest is made up in other regions before the processes "
                           "synchronize");
        } else {
            put_time(o, f->impact_s);
            aa_buf_puts(o, "</b> more than the other processes in this region (");
            put_finding_share(o, f);
            aa_buf_puts(o, ")");
        }
        if (f->wait_region >= 0 && f->nwait) {
            aa_buf_printf(o, "; the other %zu rank%s wait <b>", f->nwait,
                          f->nwait == 1 ? "" : "s");
            put_time(o, f->wait_s / (double)f->nwait);
            aa_buf_printf(o, "</b> each for %s in ", f->nslow == 1 ? "it" : "them");
            if (f->wait_kind) {
                aa_report_escape(o, f->wait_kind);
                aa_buf_puts(o, " in ");
            }
            put_region(o, a, (size_t)f->wait_region);
            if (aa_finding_waits_beyond_late(a, f)) {
                aa_buf_printf(o, ", but %s late by only ", f->nslow == 1 ? "it is" : "they are");
                put_time(o, fmax(0, f->late_s));
                aa_buf_puts(o, " from this region: most of the wait has other causes");
            }
        }
        aa_buf_puts(o, f->excess_s > f->impact_s
                           ? ". Balancing this region alone would save at most that time; "
                             "balance it together with the regions that make it up.</p>"
                           : ". Balancing the work would save about that time on every "
                             "process.</p>");
    } else {
        size_t i;
        aa_buf_puts(o, "<p>This region spends <b>");
        put_time(o, f->impact_s);
        aa_buf_puts(o, "</b> per process in its own code (");
        put_finding_share(o, f);
        aa_buf_printf(o, ")%s and runs less efficiently than the rest of the program "
                         "(%s severity).",
                      f->ncontexts ? ", added over the calling contexts it runs in," : "",
                      rp_severity_name(f->severity_class));
        for (i = 0; i < f->ncontexts; i++) {
            aa_buf_puts(o, i ? ", " : " Its contexts: ");
            put_region(o, a, f->contexts[i]);
        }
        aa_buf_puts(o, "</p>");
    }
}

/* The analysis' vocabulary, once, for readers new to it. */
static void section_legend(aa_buf *o)
{
    aa_buf_puts(o, "<section id=\"legend\"><details><summary><b>Terms used in this report</b>"
                   "</summary><dl class=\"terms\">"
                   "<dt>impact</dt><dd>the time a finding costs per process, in seconds and as "
                   "a share of the run (the mean whole-program wall time per process).</dd>"
                   "<dt>imbalance</dt><dd>(dissimilarity bottleneck) some processes spend more "
                   "time in a region than the others, so the others wait for them.</dd>"
                   "<dt>hotspot</dt><dd>(disparity bottleneck) a region that takes much of the "
                   "run and runs inefficiently on all processes.</dd>"
                   "<dt>cluster</dt><dd>a group of processes that behave alike (found by "
                   "OPTICS clustering of their per-region times).</dd>"
                   "<dt>CCR</dt><dd>critical code region: a region where a bottleneck shows.</dd>"
                   "<dt>CCCR</dt><dd>core critical code region: the innermost CCR that explains "
                   "the bottleneck (its callers only inherit it); look here first.</dd>"
                   "<dt>severity</dt><dd>0 to 1, how strongly the region stands out; for "
                   "hotspots also a class from very low to very high (k-means over the "
                   "regions).</dd>"
                   "<dt>effect</dt><dd>imbalance: the share of the difference between the "
                   "clusters that this region accounts for (0 to 1).</dd>"
                   "<dt>confidence</dt><dd>0 to 1, how far the difference stands above the "
                   "measured noise of the run.</dd>"
                   "<dt>CRNM</dt><dd>the region's share of the run times its cycles per "
                   "instruction: large for regions that are both long and inefficient.</dd>"
                   "<dt>root cause</dt><dd>a measured attribute (cache misses, MPI bytes, "
                   "I/O...) that rough-set analysis finds decides the bottleneck.</dd>"
                   "<dt>partial</dt><dd>the region was throttled (very many very short "
                   "visits): its values cover only the visits before measuring stopped.</dd>"
                   "</dl></details></section>\n");
}

static void summary_compare(aa_buf *o, const aa_report_comparison *c)
{
    size_t idx[5], n, i;
    if (!c || !(c->run_before > 0) || !(c->run_after > 0))
        return;
    n = aa_report_slowdowns(c, 0.1, 0.01, idx, 5);
    aa_buf_puts(o, "<tr><th>against the baseline</th><td>");
    rp_put_change(o, c);
    if (n) {
        aa_buf_printf(o, "<br><span class=\"warn\">%zu region%s more than 10%% slower:</span> ", n,
                      n == 1 ? "" : "s");
        for (i = 0; i < n && i < 5; i++) {
            const aa_report_diff *d = &c->diffs[idx[i]];
            aa_buf_puts(o, i ? "; " : "");
            ESC(d->region);
            aa_buf_printf(o, " %+.0f%% (", 100 * d->relative);
            put_time(o, d->before);
            aa_buf_puts(o, " &#8594; ");
            put_time(o, d->after);
            aa_buf_puts(o, ")");
        }
    }
    aa_buf_puts(o, "</td></tr>");
}

static void section_summary(aa_buf *o, const aa_analysis *a, const aa_experiment *e,
                            const rp_stats *s, const aa_report_comparison *cmp)
{
    size_t i, ndis = 0, ndisp = 0, ndyn = 0;
    const aa_finding *top = NULL;
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        if (!f->cccr)
            continue;
        if (!top || f->impact_s > top->impact_s)
            top = f;
        if (f->kind == AA_FINDING_DISSIMILARITY)
            ndis++;
        else if (f->kind == AA_FINDING_DYNAMIC)
            ndyn++;
        else
            ndisp++;
    }
    aa_buf_puts(o, "<section id=\"summary\"><h2>Summary</h2>");
    if (cmp && cmp->run_before > 0 && cmp->run_after > 0) {
        aa_buf_puts(o, "<p class=\"headline\">");
        rp_put_change(o, cmp);
        aa_buf_puts(o, "</p>");
    }
    if (top) {
        aa_buf_puts(o, "<p class=\"headline\">Largest finding: ");
        aa_buf_puts(o, top->kind == AA_FINDING_DISSIMILARITY ? "an imbalance in "
                       : top->kind == AA_FINDING_DYNAMIC     ? "an imbalance moving between "
                                                               "processes in "
                                                             : "a hotspot in ");
        put_region(o, a, top->region);
        aa_buf_puts(o, ", costing <b>");
        put_time(o, top->impact_s);
        aa_buf_puts(o, "</b> per process (");
        put_finding_share(o, top);
        aa_buf_puts(o, ").</p>");
    }
    aa_buf_puts(o, "<table>");
    aa_buf_puts(o, "<tr><th>run time</th><td>");
    put_time(o, s->run_s);
    aa_buf_puts(o, " per process (mean wall time of the whole program)</td></tr>");
    aa_buf_printf(o, "<tr><th>processes analysed</th><td>%zu", a->nprocesses);
    if (a->nexcluded_ranks) {
        aa_buf_puts(o, " (excluded ranks: ");
        put_rankset(o, a->excluded_ranks, a->nexcluded_ranks);
        aa_buf_puts(o, ")");
    }
    aa_buf_printf(o, "</td></tr><tr><th>regions</th><td>%zu</td></tr>", a->nregions);
    aa_buf_printf(o, "<tr><th>process clusters</th><td>%zu (%s)</td></tr>", a->nclusters,
                  a->nclusters > 1 ? "load imbalance: processes behave differently"
                                   : "all processes alike");
    aa_buf_printf(o, "<tr><th>core bottlenecks</th><td>%zu imbalance%s (dissimilarity), ",
                  ndis, ndis == 1 ? "" : "s");
    if (a->dynamic_measured)
        aa_buf_printf(o, "%zu moving between processes (dynamic), ", ndyn);
    aa_buf_printf(o, "%zu hotspot%s (disparity)</td></tr>", ndisp, ndisp == 1 ? "" : "s");
    summary_compare(o, cmp);
    aa_buf_puts(o, "<tr><th>metrics</th><td>processes: ");
    ESC(a->proc_metric ? a->proc_metric : "cpu");
    aa_buf_puts(o, "; regions: ");
    ESC(a->region_metric ? a->region_metric : "crnm");
    aa_buf_puts(o, "</td></tr>");
    for (i = 0; i < a->nclusters; i++) {
        aa_buf_printf(o, "<tr><th>cluster %zu</th><td>%zu process%s: ", i, a->cluster_size[i],
                      a->cluster_size[i] == 1 ? "" : "es");
        put_ranks(o, a->cluster_ranks[i], a->cluster_size[i]);
        if (a->cluster_mean && !isnan(a->cluster_mean[i])) {
            aa_buf_puts(o, "; mean ");
            put_time(o, a->cluster_mean[i]);
            aa_buf_puts(o, a->proc_metric && strcmp(a->proc_metric, "wall") == 0
                               ? " wall time outside MPI"
                               : " CPU time outside MPI");
        }
        aa_buf_puts(o, "</td></tr>");
    }
    aa_buf_puts(o, "</table>");
    if (a->history) { /* the history-guided analysis: what it used, one item a line */
        aa_buf h;
        const char *p, *nl;
        aa_buf_init(&h);
        aa_analyze_format_history(a, &h);
        aa_buf_puts(o, "<ul class=\"history-used\">");
        for (p = h.data ? h.data : ""; *p; p = *nl ? nl + 1 : nl) {
            char *line;
            nl = strchr(p, '\n');
            if (!nl)
                nl = p + strlen(p);
            if (nl > p && (line = strndup(p, (size_t)(nl - p)))) {
                aa_buf_puts(o, "<li>");
                ESC(line[0] == ' ' ? line + strspn(line, " ") : line);
                aa_buf_puts(o, "</li>");
                free(line);
            }
        }
        aa_buf_puts(o, "</ul>");
        aa_buf_free(&h);
    }
    if (a->nnotes) {
        aa_buf_puts(o, "<ul class=\"notes\">");
        for (i = 0; i < a->nnotes; i++) {
            aa_buf_puts(o, "<li>");
            ESC(a->notes[i]);
            aa_buf_puts(o, "</li>");
        }
        aa_buf_puts(o, "</ul>");
    }
    if (e && e->nattrs) {
        aa_buf_puts(o, "<details><summary>environment of the run</summary><div class=\"scroll\">"
                       "<table>");
        for (i = 0; i < e->nattrs; i++) {
            aa_buf_puts(o, "<tr><th>");
            ESC(e->attrs[i].name);
            aa_buf_puts(o, "</th><td>");
            ESC(e->attrs[i].value);
            aa_buf_puts(o, "</td></tr>");
        }
        aa_buf_puts(o, "</table></div></details>");
    }
    aa_buf_puts(o, "</section>\n");
}

/* A finding's impact: seconds per process and share of the run; for an
 * imbalance, who waits for it and where. */
static void cell_impact(aa_buf *o, const aa_analysis *a, const aa_finding *f)
{
    aa_buf_printf(o, "<td class=\"num\" data-v=\"%.9g\">", f->impact_s);
    put_time(o, f->impact_s);
    aa_buf_printf(o, " (%.1f%%)", 100 * f->run_share);
    if (f->kind != AA_FINDING_DISPARITY && f->wait_region >= 0 && f->nwait) {
        aa_buf_printf(o, "<br><span class=\"muted\">%zu %srank%s wait ", f->nwait,
                      f->kind == AA_FINDING_DYNAMIC ? "" : "other ", f->nwait == 1 ? "" : "s");
        put_time(o, f->wait_s / (double)f->nwait);
        aa_buf_puts(o, " each in ");
        if (f->wait_kind) {
            aa_report_escape(o, f->wait_kind);
            aa_buf_puts(o, " in ");
        }
        put_region(o, a, (size_t)f->wait_region);
        aa_buf_puts(o, "</span>");
    }
    aa_buf_puts(o, "</td>");
}

/* One core finding: the plain sentence first, then the numbers behind it,
 * the per-rank values of its region and its source lines. */
static void finding_card(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                         const aa_finding *f, size_t nth, const char *source_dir)
{
    size_t j;
    aa_buf_printf(o, "<div class=\"finding\"><h3>%zu. %s in ", nth,
                  f->kind == AA_FINDING_DISSIMILARITY ? "Imbalance"
                  : f->kind == AA_FINDING_DYNAMIC     ? "Imbalance moving between processes"
                                                      : "Hotspot");
    put_finding_region(o, a, f);
    aa_buf_puts(o, ": ");
    put_time(o, f->impact_s);
    aa_buf_puts(o, " (");
    put_finding_share(o, f);
    aa_buf_puts(o, ")");
    if (v->partial[f->region])
        aa_buf_puts(o, " <span class=\"partial\">partial</span>");
    aa_buf_puts(o, "</h3>");
    finding_sentence(o, a, f);
    cluster_means(o, a, v, s, f->region);
    if (f->ncauses) {
        aa_buf_puts(o, "<p>Why: ");
        for (j = 0; j < f->ncauses; j++) {
            aa_buf_puts(o, j ? ", " : "");
            ESC(f->causes[j]);
            if (f->evidence) {
                aa_buf_puts(o, " (");
                put_num(o, f->evidence[j].value);
                aa_buf_puts(o, f->kind == AA_FINDING_DISSIMILARITY ? " on the slow processes vs "
                                                                   : " here vs ");
                put_num(o, f->evidence[j].reference);
                aa_buf_puts(o, ")");
            }
        }
        aa_buf_puts(o, ".</p>");
    }
    if (f->suggestion && *f->suggestion) {
        aa_buf_puts(o, "<p>Suggestion: ");
        ESC(f->suggestion);
        aa_buf_puts(o, "</p>");
    }
    aa_buf_printf(o, "<p class=\"jargon\">%s &#183; severity ", f->cccr ? "CCCR" : "CCR");
    put_num(o, f->severity);
    if (f->kind == AA_FINDING_DISSIMILARITY) {
        aa_buf_puts(o, " &#183; effect ");
        put_num(o, f->effect);
    } else if (f->kind == AA_FINDING_DYNAMIC) {
        aa_buf_puts(o, " &#183; slope of the wait on the step's work ");
        put_num(o, -f->effect);
    } else {
        aa_buf_printf(o, " (%s)", rp_severity_name(f->severity_class));
    }
    aa_buf_puts(o, " &#183; confidence ");
    put_num(o, f->confidence);
    aa_buf_puts(o, "</p>");
    rp_rank_bars(o, a, v, s, f, nth);
    rp_source_lines(o, a, f->region, source_dir);
    aa_buf_puts(o, "</div>");
}

#define MAX_CARDS 8

static void section_findings(aa_buf *o, const aa_analysis *a, const rp_values *v,
                             const rp_stats *s, const char *source_dir)
{
    size_t i, j, ncards = 0;
    aa_buf_puts(o, "<section id=\"findings\"><h2>Findings</h2>");
    if (!a->nfindings) {
        aa_buf_puts(o, "<p class=\"ok\">No bottleneck found: the processes behave alike and "
                       "no region stands out.</p></section>\n");
        return;
    }
    for (i = 0; i < a->nfindings && ncards < MAX_CARDS; i++)
        if (a->findings[i].cccr)
            finding_card(o, a, v, s, &a->findings[i], ++ncards, source_dir);
    aa_buf_puts(o, "<h3>All findings</h3><div class=\"scroll\">"
                   "<table class=\"sortable\"><thead><tr><th>kind</th><th>region</th>"
                   "<th>impact</th><th>core</th><th>class</th><th>severity</th><th>confidence</th>"
                   "<th>effect</th><th>root causes</th><th>suggestion</th></tr></thead><tbody>");
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        int sc = f->severity_class;
        aa_buf_printf(o, "<tr class=\"%s\"><td>%s</td><td>", sc >= 3 ? (sc == 4 ? "sev4" : "sev3") : "",
                      kind_name(f->kind));
        put_finding_region(o, a, f);
        aa_buf_puts(o, "</td>");
        cell_impact(o, a, f);
        aa_buf_printf(o, "<td>%s</td>", f->cccr ? "CCCR" : (f->ccr ? "CCR" : "-"));
        if (sc >= 0 && sc <= 4)
            aa_buf_printf(o, "<td data-v=\"%d\">%s</td>", sc, sev_names[sc]);
        else
            aa_buf_puts(o, "<td data-v=\"-1\">-</td>");
        aa_buf_puts(o, "<td class=\"num\">");
        put_num(o, f->severity);
        aa_buf_puts(o, "</td><td class=\"num\">");
        put_num(o, f->confidence);
        aa_buf_puts(o, "</td><td class=\"num\">");
        if (f->kind != AA_FINDING_DISPARITY)
            put_num(o, f->effect);
        else
            aa_buf_puts(o, "-");
        aa_buf_puts(o, "</td><td>");
        for (j = 0; j < f->ncauses; j++) {
            if (j)
                aa_buf_puts(o, ", ");
            ESC(f->causes[j]);
        }
        if (!f->ncauses)
            aa_buf_puts(o, "<span class=\"muted\">none found</span>");
        aa_buf_puts(o, "</td><td>");
        ESC(f->suggestion);
        aa_buf_puts(o, "</td></tr>");
    }
    aa_buf_puts(o, "</tbody></table></div></section>\n");
}

typedef struct order_item {
    size_t idx;
    double v;
} order_item;

static int order_desc(const void *pa, const void *pb)
{
    const order_item *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

/* Regions with a throttled calling context: their values are partial. */
static void section_partial(aa_buf *o, const aa_analysis *a, const rp_values *v)
{
    size_t i, n = 0;
    for (i = 0; i < v->nreg; i++)
        n += v->partial[i] != 0;
    if (!n)
        return;
    aa_buf_printf(o, "<section id=\"partial\"><h2>Partial values</h2><p class=\"warn\">"
                     "%zu region%s stopped being measured after many very short visits "
                     "(throttled): %s values cover only the visits before, so a lower time is "
                     "no speed-up.</p><ul>",
                  n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
    for (i = 0; i < v->nreg; i++)
        if (v->partial[i]) {
            aa_buf_puts(o, "<li>");
            put_region(o, a, i);
            aa_buf_puts(o, " (partial)</li>");
        }
    aa_buf_puts(o, "</ul></section>\n");
}

#define LABEL_MAX 150 /* longer region labels are shortened, the tooltip has them whole */

static void put_label(aa_buf *o, const aa_analysis *a, size_t idx, size_t max)
{
    char *l = rp_region_label(a, idx);
    if (l && strlen(l) > max) {
        l[max - 1] = 0;
        ESC(l);
        aa_buf_puts(o, "&#8230;");
    } else {
        ESC(l);
    }
    free(l);
}

static void section_severity(aa_buf *o, const aa_analysis *a, const rp_values *v,
                             const rp_stats *s)
{
    order_item *it = calloc(a->nregions ? a->nregions : 1, sizeof *it);
    size_t i, n = 0, shown;
    double max = 0;
    int h, c, row = 36, plot_w = 760;
    aa_buf_puts(o, "<section id=\"severity\"><h2>Region severity</h2>");
    if (!it) {
        aa_buf_puts(o, "<p>out of memory</p></section>");
        return;
    }
    for (i = 0; i < a->nregions; i++) {
        double x = a->region_value ? a->region_value[i] : NAN;
        if (a->regions[i].depth == 0 || isnan(x))
            continue;
        it[n].idx = i;
        it[n].v = x;
        if (x > max)
            max = x;
        n++;
    }
    qsort(it, n, sizeof *it, order_desc);
    shown = n < MAX_BARS ? n : MAX_BARS;
    aa_buf_puts(o, "<p>Average ");
    ESC(a->region_metric ? a->region_metric : "crnm");
    aa_buf_puts(o, " per region (bar), coloured by its k-means severity class; above each bar "
                   "the region and its own time per process");
    if (shown < n)
        aa_buf_printf(o, " (the %zu largest of %zu regions)", shown, n);
    aa_buf_puts(o, ".</p><div class=\"legend\">");
    for (c = 4; c >= 0; c--)
        aa_buf_printf(o, "<span style=\"background:%s\"></span>%s", sev_colors[c], sev_names[c]);
    aa_buf_puts(o, "</div>");
    h = 10 + (int)shown * row;
    aa_buf_printf(o, "<svg class=\"aa-chart\" data-chart=\"severity\" width=\"1000\" height=\"%d\" "
                     "viewBox=\"0 0 1000 %d\" role=\"img\">", h, h);
    for (i = 0; i < shown; i++) {
        size_t r = it[i].idx;
        int cls = a->severity ? a->severity[r] : 0;
        double w = max > 0 ? it[i].v / max * plot_w : 0;
        int y = 4 + (int)i * row;
        if (cls < 0 || cls > 4)
            cls = 0;
        aa_buf_printf(o, "<text x=\"2\" y=\"%d\">", y + 11);
        put_label(o, a, r, LABEL_MAX);
        aa_buf_puts(o, " &#8212; own time ");
        put_time(o, s->excl[r]);
        aa_buf_puts(o, ", ");
        rp_put_share(o, s->excl[r], s->run_s);
        if (v->partial[r])
            aa_buf_puts(o, " (partial)");
        aa_buf_printf(o, "</text><rect x=\"2\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\" "
                         "data-tip=\"",
                      y + 15, w < 1 ? 1 : w, sev_colors[cls]);
        put_region(o, a, r);
        aa_buf_printf(o, ": %.4g (%s)\"><title>%.4g</title></rect>", it[i].v, sev_names[cls],
                      it[i].v);
        aa_buf_printf(o, "<text x=\"%.1f\" y=\"%d\">%.3g %s</text>", 8 + (w < 1 ? 1 : w), y + 27,
                      it[i].v, sev_names[cls]);
    }
    aa_buf_puts(o, "</svg></section>\n");
    free(it);
}

/* Heat colour from white (0) to dark red (1). */
static void heat_color(aa_buf *o, double t)
{
    int r, g, b;
    if (isnan(t)) {
        aa_buf_puts(o, "#eeeeee");
        return;
    }
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    r = (int)(255 - t * (255 - 165));
    g = (int)(255 - t * (255 - 15));
    b = (int)(255 - t * (255 - 21));
    aa_buf_printf(o, "#%02x%02x%02x", r, g, b);
}

#define HEAT_LABEL_MAX 28

/* The heat map's rows when there are more processes than rows: groups of
 * grp consecutive processes (rank order).  A cell is the largest value of
 * its group (an outlier is not averaged away: Scalasca/CUBE and Hatchet
 * let one find the maximum process, HPCToolkit's trace view samples one
 * process a pixel row, which can miss it); its tooltip names that rank and
 * gives the group's mean and smallest value.  A strip left of the cells
 * shows the clusters of the group's processes, one stripe per cluster
 * present (up to 4), so a group holding one process of a small cluster
 * shows it. */
static void heat_groups(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                        const order_item *cols, size_t ncols, size_t grp, int left, int top,
                        int cw, int rh)
{
    size_t g, ng = (v->nproc + grp - 1) / grp, i, p;
    for (g = 0; g < ng; g++) {
        size_t p0 = g * grp, p1 = p0 + grp < v->nproc ? p0 + grp : v->nproc, k, nseen = 0;
        int y = top + (int)g * rh, seen[4], allx = 1;
        size_t cnt[4] = {0};
        for (p = p0; p < p1; p++) {
            int c = s->cluster[p];
            allx &= v->excluded[p] != 0;
            if (c < 0)
                continue;
            for (k = 0; k < nseen && seen[k] != c; k++)
                ;
            if (k == nseen && nseen < 4)
                seen[nseen++] = c;
            if (k < nseen)
                cnt[k]++;
        }
        aa_buf_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>ranks %d-%d</text>",
                      left - 14, y + 11, allx ? " class=\"muted\"" : "", v->ranks[p0],
                      v->ranks[p1 - 1]);
        for (k = 0; k < nseen; k++) {
            double sw = 8.0 / (double)nseen;
            aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
                             "fill=\"%s\" data-tip=\"ranks %d-%d: %zu process%s of cluster %d\">"
                             "</rect>",
                          left - 11 + (double)k * sw, y, sw, rh - 1,
                          cluster_colors[seen[k] % 8], v->ranks[p0], v->ranks[p1 - 1], cnt[k],
                          cnt[k] == 1 ? "" : "es", seen[k]);
        }
        for (i = 0; i < ncols; i++) {
            size_t r = cols[i].idx, n = 0, at = p0;
            double mx = NAN, mn = NAN, sum = 0;
            for (p = p0; p < p1; p++) {
                double x = v->main[p * v->nreg + r];
                if (isnan(x))
                    continue;
                if (isnan(mx) || x > mx) {
                    mx = x;
                    at = p;
                }
                if (isnan(mn) || x < mn)
                    mn = x;
                sum += x;
                n++;
            }
            aa_buf_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
                          left + (int)i * cw, y, cw - 1, rh - 1);
            heat_color(o, isnan(mx) ? NAN : (s->run_s > 0 ? mx / s->run_s : 0));
            aa_buf_printf(o, "\" data-tip=\"ranks %d-%d, ", v->ranks[p0], v->ranks[p1 - 1]);
            put_region(o, a, r);
            if (isnan(mx)) {
                aa_buf_puts(o, ": not run");
            } else {
                aa_buf_puts(o, ": largest ");
                put_time(o, mx);
                if (s->run_s > 0)
                    aa_buf_printf(o, " (%.1f%% of the run)", 100 * mx / s->run_s);
                aa_buf_printf(o, " on rank %d; mean ", v->ranks[at]);
                put_time(o, sum / (double)n);
                aa_buf_puts(o, ", smallest ");
                put_time(o, mn);
                if (n < p1 - p0)
                    aa_buf_printf(o, "; ran on %zu of the %zu", n, p1 - p0);
            }
            if (v->partial[r])
                aa_buf_puts(o, ", partial");
            aa_buf_puts(o, "\"></rect>");
        }
    }
}

static void section_heatmap(aa_buf *o, const aa_analysis *a, const rp_values *v,
                            const rp_stats *s)
{
    order_item *cols = calloc(v->nreg ? v->nreg : 1, sizeof *cols);
    size_t i, p, nc = 0, rows, ncols, maxlen = 4, grp;
    int W, H, cw, rh = 14, left = 80, top;
    aa_buf_puts(o, "<section id=\"heatmap\"><h2>Per-process heat map</h2>");
    if (!cols) {
        aa_buf_puts(o, "<p>out of memory</p></section>");
        return;
    }
    for (i = 0; i < v->nreg; i++) {
        double sum = 0;
        if (a->regions[i].depth == 0)
            continue;
        for (p = 0; p < v->nproc; p++) {
            double x = v->main[p * v->nreg + i];
            if (!isnan(x))
                sum += x;
        }
        cols[nc].idx = i;
        cols[nc].v = sum;
        nc++;
    }
    qsort(cols, nc, sizeof *cols, order_desc);
    ncols = nc < MAX_HEAT_COLS ? nc : MAX_HEAT_COLS;
    /* keep the displayed columns in region order */
    for (i = 0; i < ncols; i++)
        cols[i].v = -(double)cols[i].idx;
    qsort(cols, ncols, sizeof *cols, order_desc);
    /* beyond MAX_HEAT_ROWS processes a row is a group of consecutive ranks */
    grp = (v->nproc + MAX_HEAT_ROWS - 1) / MAX_HEAT_ROWS;
    if (grp < 1)
        grp = 1;
    rows = (v->nproc + grp - 1) / grp;
    aa_buf_puts(o, "<p>");
    ESC(v->main_label);
    aa_buf_puts(o, " of every region (columns, inclusive) on every process (rows), coloured by "
                   "its share of the run: 0%<span class=\"heatscale\"></span>100% of the mean "
                   "run time per process, so only regions that take much of the run are dark. "
                   "Grey: the region did not run there.");
    if (ncols < nc && grp == 1) /* (the words of the report before rows were groups) */
        aa_buf_printf(o, " Showing the %zu longest of %zu regions and %zu of %zu processes.",
                      ncols, nc, rows, v->nproc);
    else if (ncols < nc)
        aa_buf_printf(o, " Showing the %zu longest of %zu regions.", ncols, nc);
    if (grp > 1)
        aa_buf_printf(o, " Each row is a group of %zu consecutive ranks (%zu rows for %zu "
                         "processes): a cell shows the largest value in the group, so one slow "
                         "process colours its row (hover for the rank, the mean and the "
                         "smallest value); the strip left of the cells shows the clusters of "
                         "the group's processes.",
                      grp, rows, v->nproc);
    aa_buf_puts(o, "</p>");
    if (!ncols || !rows) {
        aa_buf_puts(o, "<p class=\"muted\">no region values to show</p></section>\n");
        free(cols);
        return;
    }
    for (i = 0; i < ncols; i++) {
        size_t l = strlen(short_name(a, cols[i].idx));
        if (l > maxlen)
            maxlen = l;
    }
    if (maxlen > HEAT_LABEL_MAX)
        maxlen = HEAT_LABEL_MAX;
    if (grp > 1)
        left = 130; /* "ranks 16256-16383" and the cluster strip */
    cw = (int)((1000 - left) / ncols);
    cw = cw < 14 ? 14 : cw > 48 ? 48 : cw;
    top = 14 + (int)maxlen * 7;
    W = left + (int)ncols * cw + 10;
    H = top + (int)rows * rh + 10;
    aa_buf_printf(o, "<div class=\"scroll\"><svg class=\"aa-chart\" data-chart=\"heatmap\" "
                     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, H, W, H);
    for (i = 0; i < ncols; i++) {
        const char *nm = short_name(a, cols[i].idx);
        int x = left + (int)i * cw + cw / 2 + 4;
        aa_buf_printf(o, "<text transform=\"translate(%d,%d) rotate(-90)\">", x, top - 4);
        if (strlen(nm) > HEAT_LABEL_MAX) {
            char cut[HEAT_LABEL_MAX];
            memcpy(cut, nm, HEAT_LABEL_MAX - 1);
            cut[HEAT_LABEL_MAX - 1] = 0;
            ESC(cut);
            aa_buf_puts(o, "&#8230;");
        } else {
            ESC(nm);
        }
        aa_buf_puts(o, "<title>");
        put_region(o, a, cols[i].idx);
        aa_buf_puts(o, "</title></text>");
    }
    if (grp > 1) {
        heat_groups(o, a, v, s, cols, ncols, grp, left, top, cw, rh);
        rows = 0;
    }
    for (p = 0; p < rows; p++) {
        int y = top + (int)p * rh;
        aa_buf_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>rank %d</text>", left - 6,
                      y + 11, v->excluded[p] ? " class=\"muted\"" : "", v->ranks[p]);
        for (i = 0; i < ncols; i++) {
            size_t r = cols[i].idx;
            double x = v->main[p * v->nreg + r];
            aa_buf_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
                          left + (int)i * cw, y, cw - 1, rh - 1);
            heat_color(o, isnan(x) ? NAN : (s->run_s > 0 ? x / s->run_s : 0));
            aa_buf_printf(o, "\" data-tip=\"rank %d, ", v->ranks[p]);
            put_region(o, a, r);
            aa_buf_puts(o, ": ");
            put_time(o, x);
            if (!isnan(x) && s->run_s > 0)
                aa_buf_printf(o, " (%.1f%% of the run)", 100 * x / s->run_s);
            if (v->partial[r])
                aa_buf_puts(o, ", partial");
            aa_buf_puts(o, "\"></rect>");
        }
    }
    aa_buf_puts(o, "</svg></div></section>\n");
    free(cols);
}

/* The reachability plot's frame: the svg, the hatch pattern and the axes. */
static void optics_open(aa_buf *o, int W, int H, int left, int plot_h)
{
    aa_buf_printf(o, "<svg class=\"aa-chart\" data-chart=\"optics\" width=\"%d\" height=\"%d\" "
                     "viewBox=\"0 0 %d %d\" role=\"img\"><defs><pattern id=\"hatch\" width=\"6\" "
                     "height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                     "<rect width=\"3\" height=\"6\" fill=\"#888\"></rect></pattern></defs>",
                  W, H, W, H);
    aa_buf_printf(o, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"></line>", left,
                  left, 10 + plot_h);
    aa_buf_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"></line>", left,
                  10 + plot_h, W - 10, 10 + plot_h);
}

/* More processes than pixels: each bar is a run of consecutive processes in
 * OPTICS order, as tall as the largest reachability among them and in the
 * colour of that process' cluster, so every jump to another group (the tall
 * bars the clusters are read from) stays visible; a run holding the start
 * of a group (undefined reachability) gets its coloured mark under the axis,
 * a run of only such starts the short hatched bar. */
static void optics_bins(aa_buf *o, const aa_analysis *a, double max, int left, int plot_h,
                        int udef)
{
    size_t n = a->nprocesses, bin = (n + MAX_OPTICS_BARS - 1) / MAX_OPTICS_BARS;
    size_t nb = (n + bin - 1) / bin, b, i;
    for (b = 0; b < nb; b++) {
        size_t i0 = b * bin, i1 = i0 + bin < n ? i0 + bin : n, top = (size_t)-1, start = (size_t)-1;
        int seen[8], lab;
        size_t nseen = 0, more = 0, k;
        double hh, bw = (double)MAX_OPTICS_BARS / (double)nb, xx = left + 2 + (double)b * bw;
        for (i = i0; i < i1; i++) {
            size_t pt = a->optics_order[i];
            double r = a->optics_reach[pt];
            int l = a->cluster_of ? a->cluster_of[pt] : 0;
            for (k = 0; k < nseen && seen[k] != l; k++)
                ;
            if (k == nseen && nseen < 8)
                seen[nseen++] = l;
            else if (k == nseen)
                more = 1;
            if (!isfinite(r)) {
                if (start == (size_t)-1)
                    start = pt;
            } else if (top == (size_t)-1 || r > a->optics_reach[top]) {
                top = pt;
            }
        }
        lab = a->cluster_of ? a->cluster_of[top != (size_t)-1 ? top : start] : 0;
        hh = top == (size_t)-1 ? udef : a->optics_reach[top] / max * plot_h;
        aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                         "data-tip=\"%zu processes (OPTICS positions %zu-%zu), cluster%s",
                      xx, 10 + plot_h - hh, bw, hh < 1 ? 1 : hh,
                      top == (size_t)-1 ? "url(#hatch)" : cluster_colors[(lab < 0 ? 0 : lab) % 8],
                      i1 - i0, i0 + 1, i1, nseen > 1 ? "s" : "");
        for (k = 0; k < nseen; k++)
            aa_buf_printf(o, "%s%d", k ? ", " : " ", seen[k]);
        if (more)
            aa_buf_puts(o, ", &#8230;");
        if (top != (size_t)-1) {
            aa_buf_puts(o, "; largest reachability ");
            put_time(o, a->optics_reach[top]);
            aa_buf_printf(o, " (rank %d)", a->ranks[top]);
        }
        if (start != (size_t)-1)
            aa_buf_printf(o, "; rank %d starts a group (undefined reachability)", a->ranks[start]);
        aa_buf_puts(o, "\"></rect>");
        if (start != (size_t)-1)
            aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"4\" fill=\"%s\">"
                             "</rect>",
                          xx, 10 + plot_h + 2, bw,
                          cluster_colors[(a->cluster_of && a->cluster_of[start] > 0
                                              ? a->cluster_of[start] : 0) % 8]);
    }
}

/* The OPTICS reachability plot of the analysis' own clustering: the run
 * whose partition the analysis reports (its level, MinPts and eps), the
 * processes coloured by the analysis' clusters. */
static void section_optics(aa_buf *o, const aa_analysis *a, const rp_values *v)
{
    size_t i, n = a->nprocesses;
    double max = 0, bw;
    int W, H = 220, left = 50, plot_h = 160, udef = 12;
    (void)v;
    aa_buf_puts(o, "<section id=\"optics\"><h2>OPTICS reachability plot</h2>");
    if (n < 2) {
        aa_buf_puts(o, "<p class=\"muted\">Fewer than two processes: nothing to cluster.</p>"
                       "</section>\n");
        return;
    }
    if (!a->optics_order || !a->optics_reach) {
        aa_buf_printf(o, "<p class=\"muted\">The analysis kept no OPTICS ordering for these "
                         "%zu processes (by default it keeps one for up to %d; `autoanalyzer "
                         "report` and `run` ask for it at any scale); its %zu cluster%s are "
                         "listed above.</p></section>\n",
                      n, AA_OPTICS_KEEP_DEFAULT, a->nclusters, a->nclusters == 1 ? "" : "s");
        return;
    }
    for (i = 0; i < n; i++)
        if (isfinite(a->optics_reach[i]) && a->optics_reach[i] > max)
            max = a->optics_reach[i];
    if (isfinite(a->eps_used) && a->eps_used > max)
        max = a->eps_used;
    if (max <= 0)
        max = 1;
    max *= 1.15;
    aa_buf_printf(o, "<p>The analysis' own clustering: processes in OPTICS order, as vectors of "
                     "%s over the regions directly inside ",
                  a->proc_metric && strcmp(a->proc_metric, "cpu") == 0
                      ? "CPU time outside MPI" : "wall time outside MPI");
    if (a->optics_level > 0 && (size_t)a->optics_level < a->nregions)
        put_region(o, a, (size_t)a->optics_level);
    else
        aa_buf_puts(o, "the whole program");
    aa_buf_printf(o, " (the level whose partition is reported; MinPts %zu). Bar height is the "
                     "reachability distance (how far a process is from those before it), colour "
                     "the cluster. A short hatched bar starts a group: its reachability is "
                     "undefined, which says nothing about that process being slow. A tall bar "
                     "is a jump to a different group. The dashed line is the extraction "
                     "threshold eps = ",
                  a->min_pts_used);
    put_time(o, a->eps_used);
    aa_buf_printf(o, ". %zu cluster%s.</p>", a->nclusters, a->nclusters == 1 ? "" : "s");
    if (n > MAX_OPTICS_BARS) {
        W = left + MAX_OPTICS_BARS + 20;
        optics_open(o, W, H, left, plot_h);
        optics_bins(o, a, max, left, plot_h, udef);
    } else {
        bw = 1000.0 / (double)n;
        if (bw > 36)
            bw = 36;
        W = left + (int)ceil((double)n * bw) + 20;
        optics_open(o, W, H, left, plot_h);
        for (i = 0; i < n; i++) {
            size_t pt = a->optics_order[i];
            double r = a->optics_reach[pt];
            int inf = !isfinite(r), lab = a->cluster_of ? a->cluster_of[pt] : 0;
            double hh = inf ? udef : r / max * plot_h;
            double xx = left + 2 + (double)i * bw, bwd = bw > 3 ? bw - 2 : bw;
            aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                             "fill=\"%s\" data-tip=\"rank %d, cluster %d, reachability ",
                          xx, 10 + plot_h - hh, bwd, hh < 1 ? 1 : hh,
                          inf ? "url(#hatch)" : cluster_colors[(lab < 0 ? 0 : lab) % 8],
                          a->ranks[pt], lab);
            if (inf)
                aa_buf_puts(o, "undefined (starts a group)");
            else
                put_time(o, r);
            aa_buf_puts(o, "\"></rect>");
            if (inf)
                aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"4\" "
                                 "fill=\"%s\"></rect>",
                              xx, 10 + plot_h + 2, bwd, cluster_colors[(lab < 0 ? 0 : lab) % 8]);
            if (bw >= 16)
                aa_buf_printf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>",
                              xx + bw / 2 - 1, 10 + plot_h + 18, a->ranks[pt]);
        }
    }
    if (isfinite(a->eps_used)) {
        double ey = 10 + plot_h - a->eps_used / max * plot_h;
        aa_buf_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#b71c1c\" "
                         "stroke-dasharray=\"5,4\"></line>",
                      left, ey, W - 10, ey);
    }
    aa_buf_printf(o, "<text x=\"%d\" y=\"%d\">rank (OPTICS order)</text></svg></section>\n", left,
                  10 + plot_h + 34 > H ? H - 2 : 10 + plot_h + 34);
}

static void name_list(aa_buf *o, char **names, size_t n)
{
    size_t i;
    if (!n) {
        aa_buf_puts(o, "<span class=\"muted\">(empty)</span>");
        return;
    }
    for (i = 0; i < n; i++) {
        if (i)
            aa_buf_puts(o, ", ");
        ESC(names[i]);
    }
}

static void section_causes(aa_buf *o, const aa_analysis *a)
{
    size_t i, j, rows = 0;
    aa_buf_puts(o, "<section id=\"causes\"><h2>Root causes</h2>");
    aa_buf_puts(o, "<table><thead><tr><th>kind</th><th>region</th><th>cause</th>"
                   "<th>region value</th><th>reference</th><th>suggestion</th></tr></thead><tbody>");
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        for (j = 0; j < f->ncauses; j++) {
            aa_buf_printf(o, "<tr><td>%s</td><td>", kind_name(f->kind));
            put_region(o, a, f->region);
            aa_buf_puts(o, "</td><td>");
            ESC(f->causes[j]);
            aa_buf_puts(o, "</td><td class=\"num\">");
            put_num(o, f->evidence ? f->evidence[j].value : NAN);
            aa_buf_puts(o, "</td><td class=\"num\">");
            put_num(o, f->evidence ? f->evidence[j].reference : NAN);
            aa_buf_puts(o, "</td><td>");
            ESC(f->suggestion);
            aa_buf_puts(o, "</td></tr>");
            rows++;
        }
    }
    if (!rows)
        aa_buf_puts(o, "<tr><td colspan=\"6\" class=\"muted\">no root cause could be named from "
                       "the measured attributes</td></tr>");
    aa_buf_puts(o, "</tbody></table><p>Global core (dissimilarity): ");
    name_list(o, a->core_dissim, a->ncore_dissim);
    aa_buf_puts(o, "<br>Global core (disparity): ");
    name_list(o, a->core_disp, a->ncore_disp);
    if (a->ninconsistent)
        aa_buf_printf(o, "<br><span class=\"muted\">%zu inconsistent object pair%s skipped "
                         "(identical attributes, different decisions: normal with noisy "
                         "measurements, the causes above come from the rest).</span>",
                      a->ninconsistent, a->ninconsistent == 1 ? "" : "s");
    aa_buf_puts(o, "</p></section>\n");
    aa_buf_puts(o, "<section id=\"unavailable\"><h2>Attributes not measured</h2>");
    if (a->nunavailable) {
        aa_buf_puts(o, "<p>These attributes could not be measured on this machine, so they "
                       "could not be named as root causes:</p><ul>");
        for (i = 0; i < a->nunavailable; i++) {
            aa_buf_puts(o, "<li class=\"unavail\">");
            ESC(a->unavailable[i]);
            aa_buf_puts(o, "</li>");
        }
        aa_buf_puts(o, "</ul>");
    } else {
        aa_buf_puts(o, "<p class=\"ok\">All attributes were measured.</p>");
    }
    aa_buf_puts(o, "</section>\n");
}

static void change_rows(aa_buf *o, const aa_report_change *c, size_t n, const char *cls,
                        const char *what)
{
    size_t i;
    for (i = 0; i < n; i++) {
        aa_buf_printf(o, "<tr class=\"%s\"><td>%s</td><td>%s</td><td>", cls, what,
                      kind_name(c[i].kind));
        ESC(c[i].region);
        aa_buf_puts(o, "</td><td>");
        if (c[i].class_before >= 0 && c[i].class_before <= 4)
            aa_buf_puts(o, sev_names[c[i].class_before]);
        else if (c[i].cccr_before >= 0)
            aa_buf_puts(o, c[i].cccr_before ? "CCCR" : "CCR");
        else
            aa_buf_puts(o, "-");
        aa_buf_puts(o, "</td><td>");
        if (c[i].class_after >= 0 && c[i].class_after <= 4)
            aa_buf_puts(o, sev_names[c[i].class_after]);
        else if (c[i].cccr_after >= 0)
            aa_buf_puts(o, c[i].cccr_after ? "CCCR" : "CCR");
        else
            aa_buf_puts(o, "-");
        aa_buf_puts(o, "</td><td class=\"num\">");
        put_num(o, c[i].severity_before);
        aa_buf_puts(o, " &#8594; ");
        put_num(o, c[i].severity_after);
        aa_buf_puts(o, "</td></tr>");
    }
}

static void section_compare(aa_buf *o, const aa_report_comparison *c)
{
    size_t i, n;
    aa_buf_puts(o, "<section id=\"comparison\"><h2>Comparison with ");
    ESC(c->baseline_label);
    aa_buf_puts(o, "</h2>");
    if (c->run_before > 0 && c->run_after > 0) {
        aa_buf_puts(o, "<p class=\"headline\">");
        rp_put_change(o, c);
        aa_buf_puts(o, "</p>");
    }
    if (!c->nnew && !c->ngone && !c->nchanged) {
        int slower = c->run_before > 0 && c->run_after > c->run_before * 1.02;
        aa_buf_printf(o, "<p class=\"%s\">Same core bottlenecks as the baseline%s</p>",
                      slower ? "warn" : "ok",
                      slower ? ", but the run is slower: see the differences below." : ".");
    } else {
        aa_buf_puts(o, "<table><thead><tr><th>change</th><th>kind</th><th>region</th>"
                       "<th>before</th><th>after</th><th>severity</th></tr></thead><tbody>");
        change_rows(o, c->new_cccrs, c->nnew, "new", "new");
        change_rows(o, c->gone, c->ngone, "gone", "gone");
        change_rows(o, c->changed, c->nchanged, "", "changed");
        aa_buf_puts(o, "</tbody></table>");
    }
    aa_buf_printf(o, "<p>Regions only in this run: %zu; only in the baseline: %zu.</p>",
                  c->nonly_current, c->nonly_baseline);
    if (c->history) { /* what the history of earlier runs contributed */
        aa_buf_puts(o, "<p class=\"history\">History: ");
        ESC(c->history);
        aa_buf_puts(o, "</p>");
    }
    n = c->ndiffs < MAX_DIFFS ? c->ndiffs : MAX_DIFFS;
    aa_buf_puts(o, "<h3>Largest performance differences (mean inclusive wall time per process)"
                   "</h3><div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>region</th><th>focus</th>"
                   "<th>baseline</th><th>this run</th><th>delta</th><th>relative</th></tr></thead>"
                   "<tbody>");
    for (i = 0; i < n; i++) {
        const aa_report_diff *d = &c->diffs[i];
        aa_buf_puts(o, "<tr><td>");
        ESC(d->region);
        aa_buf_puts(o, "</td><td>");
        ESC(d->path);
        aa_buf_printf(o, "</td><td class=\"num\" data-v=\"%.9g\">", d->before);
        put_time(o, d->before);
        aa_buf_printf(o, "</td><td class=\"num\" data-v=\"%.9g\">", d->after);
        put_time(o, d->after);
        aa_buf_printf(o, "</td><td class=\"num\" data-v=\"%.9g\">", d->delta);
        put_time(o, d->delta);
        aa_buf_printf(o, "</td><td class=\"num %s\" data-v=\"%.9g\">",
                      d->partial || d->within_noise ? ""
                      : d->relative > 0.1    ? "warn"
                      : d->relative < -0.1   ? "ok"
                                             : "",
                      isfinite(d->relative) ? d->relative : 1e300);
        if (d->partial) /* throttled: a drop is fewer measured visits, not a speed-up */
            aa_buf_printf(o, "partial (throttled)");
        else if (isfinite(d->relative) && d->within_noise)
            aa_buf_printf(o, "%+.1f%% (within run-to-run noise, &#177;%.1f%%)",
                          d->relative * 100, d->noise * 100);
        else if (isfinite(d->relative))
            aa_buf_printf(o, "%+.1f%%", d->relative * 100);
        else
            aa_buf_puts(o, "new time");
        aa_buf_puts(o, "</td></tr>");
    }
    aa_buf_puts(o, "</tbody></table></div></section>\n");
}

int aa_report_html(const aa_analysis *a, const aa_experiment *e,
                   const aa_report_comparison *cmp, aa_buf *out, aa_err *err)
{
    return aa_report_html_ex(a, e, cmp, NULL, out, err);
}

int aa_report_html_ex(const aa_analysis *a, const aa_experiment *e,
                      const aa_report_comparison *cmp, const char *source_dir, aa_buf *out,
                      aa_err *err)
{
    aa_buf *o = out;
    rp_values v;
    rp_stats st;
    int rc;
    if (!a)
        return aa_err_set(err, AA_EUSAGE, "report: no analysis");
    if (!e)
        e = a->exp;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "report: no experiment");
    if ((rc = rp_values_compute(a, e, &v, err)))
        return rc;
    if (rp_stats_compute(a, &v, &st)) {
        rp_values_free(&v);
        return aa_err_set(err, AA_EENV, "report: out of memory");
    }
    aa_buf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                   "<title>AutoAnalyzer report: ");
    ESC(e->program ? e->program : "program");
    aa_buf_printf(o, "</title><style>%s</style></head>\n<body>", css);
    aa_buf_puts(o, "<header><h1>AutoAnalyzer report: ");
    ESC(e->program ? e->program : "program");
    aa_buf_puts(o, "</h1><p>experiment ");
    ESC(e->id ? e->id : "?");
    aa_buf_printf(o, " &#183; %d process%s", e->nprocs, e->nprocs == 1 ? "" : "es");
    if (aa_experiment_attr(e, "start_time")) {
        aa_buf_puts(o, " &#183; started ");
        ESC(aa_experiment_attr(e, "start_time"));
    }
    aa_buf_puts(o, "</p></header>\n<main>");
    section_summary(o, a, e, &st, cmp);
    section_findings(o, a, &v, &st, source_dir);
    section_partial(o, a, &v);
    if (cmp)
        section_compare(o, cmp);
    rp_section_calltree(o, a, &v, &st);
    section_severity(o, a, &v, &st);
    section_heatmap(o, a, &v, &st);
    if (v.nproc > MAX_HEAT_ROWS) /* the heat map shows groups of ranks */
        rp_section_distribution(o, a, &v, &st);
    section_optics(o, a, &v);
    section_causes(o, a);
    section_legend(o);
    aa_buf_printf(o, "<p class=\"muted\">Generated by AutoAnalyzer %s.</p></main>"
                     "<div id=\"aa-tip\"></div>\n<script>\n%s</script>\n</body></html>\n",
                  AA_VERSION, js);
    rp_stats_free(&st);
    rp_values_free(&v);
    if (out->failed)
        return aa_err_set(err, AA_EENV, "report: out of memory");
    return AA_OK;
}
