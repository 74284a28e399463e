/*
 * report/export.c -- an experiment in the formats other tools read
 * (docs/report.md, "Formats other tools read"):
 *   - tidy CSV, one row per rank x thread x calling-context node x metric,
 *     RFC 4180, for pandas and R;
 *   - Hatchet's literal format (a JSON list of root nodes, each
 *     {"frame": {"name", "type"}, "metrics": {...}, "children": [...]}),
 *     the calling-context trees of all processes merged by the path of
 *     region ids, with the mean per process of every metric, inclusive
 *     ("<metric> (inc)") and exclusive ("<metric>"); wall time is also
 *     "time (inc)" and "time", the names Hatchet and Thicket use;
 *   - CUBE4 (.cubex, Cube 4.4's layout), the format Score-P and Scalasca
 *     users open in Cube: the merged call tree, one location per thread,
 *     exclusive values (see the CUBE4 section below).
 * Values of the profile are inclusive (docs/profile-format.md); exclusive
 * values are the node's minus its children's, except for visits, which
 * count the node's own entries (both columns carry them unchanged).
 */
#include "report/aa_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared ----------------------------------------------------------------- */

static const char *region_name(const aa_region *r)
{
    return r && r->name && *r->name ? r->name : "?";
}

/* The value of node c for metric m, or when c's is not measured, the sum
 * of its nearest measured descendants' (what of c's parent lies below c). */
static double measured_below(const aa_experiment *e, const aa_thread *t, size_t c, size_t m,
                             const size_t *first_child, const size_t *next)
{
    double v = aa_node_values(e, t, c)[m], sum = 0;
    size_t k;
    if (!isnan(v))
        return v;
    for (k = first_child[c]; k != (size_t)-1; k = next[k])
        sum += measured_below(e, t, k, m, first_child, next);
    return sum;
}

/* exclusive value of node n of thread t for metric m: NAN when not measured */
static double exclusive_value(const aa_experiment *e, const aa_thread *t, size_t n, size_t m,
                              const size_t *first_child, const size_t *next)
{
    double v = aa_node_values(e, t, n)[m];
    size_t c;
    if (isnan(v) || !strcmp(e->metrics[m].name, "visits"))
        return v; /* visits count the node's own entries */
    for (c = first_child[n]; c != (size_t)-1; c = next[c])
        v -= measured_below(e, t, c, m, first_child, next);
    return v < 0 ? 0 : v;
}

/* first child / next sibling lists of one thread's nodes, in node order */
static int thread_children(const aa_thread *t, size_t **first, size_t **next)
{
    size_t n;
    *first = malloc((t->nnodes + 1) * sizeof **first);
    *next = malloc((t->nnodes + 1) * sizeof **next);
    if (!*first || !*next) {
        free(*first);
        free(*next);
        return -1;
    }
    for (n = 0; n < t->nnodes; n++)
        (*first)[n] = (*next)[n] = (size_t)-1;
    for (n = t->nnodes; n-- > 0;) {
        int32_t p = t->nodes[n].parent;
        if (p >= 0 && (size_t)p < n) {
            (*next)[n] = (*first)[p];
            (*first)[p] = n;
        }
    }
    return 0;
}

/* ---- CSV ---------------------------------------------------------------------- */

static void csv_field(aa_buf *o, const char *s)
{
    if (!s)
        s = "";
    if (strpbrk(s, ",\"\r\n")) {
        aa_buf_putc(o, '"');
        for (; *s; s++) {
            if (*s == '"')
                aa_buf_putc(o, '"');
            aa_buf_putc(o, *s);
        }
        aa_buf_putc(o, '"');
    } else {
        aa_buf_puts(o, s);
    }
}

static void csv_num(aa_buf *o, double v)
{
    char s[32];
    aa_format_double(s, v);
    aa_buf_puts(o, s);
}

/* "main/solve/loop@55": region names from the root, the root left out */
static void node_path(aa_buf *o, const aa_experiment *e, const aa_thread *t, size_t n)
{
    size_t chain[256], k = 0;
    long i = (long)n;
    while (i >= 0 && k < 256) {
        chain[k++] = (size_t)i;
        i = t->nodes[i].parent;
    }
    while (k-- > 0) {
        const aa_region *r = aa_experiment_region(e, t->nodes[chain[k]].region);
        if (r && r->id == 0 && t->nodes[chain[k]].parent < 0)
            continue;
        aa_buf_puts(o, region_name(r));
        if (k)
            aa_buf_putc(o, '/');
    }
}

int aa_export_csv(const aa_experiment *e, aa_buf *o, aa_err *err)
{
    size_t p, t, n, m;
    aa_buf path, row;
    aa_buf_init(&path);
    aa_buf_init(&row);
    aa_buf_puts(o, "rank,thread,node,parent,region_id,region,kind,function,file,line,path,"
                   "metric,unit,inclusive,exclusive,throttled\r\n");
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            size_t *first, *next;
            if (thread_children(th, &first, &next))
                goto nomem;
            for (n = 0; n < th->nnodes; n++) {
                const aa_region *r = aa_experiment_region(e, th->nodes[n].region);
                aa_buf_reset(&path);
                node_path(&path, e, th, n);
                aa_buf_reset(&row);
                aa_buf_printf(&row, "%d,%d,%zu,", pr->rank, th->id, n);
                if (th->nodes[n].parent >= 0)
                    aa_buf_printf(&row, "%d", (int)th->nodes[n].parent);
                aa_buf_printf(&row, ",%u,", th->nodes[n].region);
                csv_field(&row, region_name(r));
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? aa_region_kind_name(r->kind) : "");
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? r->function : "");
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? r->file : "");
                aa_buf_printf(&row, ",%d,", r ? r->line : 0);
                csv_field(&row, path.data ? path.data : "");
                aa_buf_putc(&row, ',');
                for (m = 0; m < e->nmetrics; m++) {
                    double v = aa_node_values(e, th, n)[m];
                    if (isnan(v))
                        continue; /* not measured: no row */
                    aa_buf_add(o, row.data, row.len);
                    csv_field(o, e->metrics[m].name);
                    aa_buf_putc(o, ',');
                    csv_field(o, e->metrics[m].unit);
                    aa_buf_putc(o, ',');
                    csv_num(o, v);
                    aa_buf_putc(o, ',');
                    csv_num(o, exclusive_value(e, th, n, m, first, next));
                    aa_buf_printf(o, ",%d\r\n", (th->nodes[n].flags & AA_NODE_THROTTLED) ? 1 : 0);
                }
            }
            free(first);
            free(next);
        }
    }
    aa_buf_free(&path);
    aa_buf_free(&row);
    if (o->failed)
        return aa_err_set(err, AA_EENV, "export: out of memory");
    return AA_OK;
nomem:
    aa_buf_free(&path);
    aa_buf_free(&row);
    return aa_err_set(err, AA_EENV, "export: out of memory");
}

/* ---- Hatchet literal ------------------------------------------------------------ */

/* The merged calling-context tree. */
typedef struct mnode {
    uint32_t region;
    size_t parent, first_child, next_sibling, last_child;
    double *inc;  /* nmetrics sums over processes */
    double *exc;
    size_t *cnt;  /* processes with a value, per metric */
    int throttled;
} mnode;

typedef struct mtree {
    size_t n, cap, nm;
    mnode *v;
} mtree;

#define NONE ((size_t)-1)

static size_t mtree_child(mtree *t, size_t parent, uint32_t region)
{
    size_t c;
    mnode *x;
    if (parent != NONE) {
        for (c = t->v[parent].first_child; c != NONE; c = t->v[c].next_sibling)
            if (t->v[c].region == region)
                return c;
    } else {
        for (c = 0; c < t->n; c++)
            if (t->v[c].parent == NONE && t->v[c].region == region)
                return c;
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        mnode *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return NONE;
        t->v = nv;
        t->cap = nc;
    }
    x = &t->v[t->n];
    memset(x, 0, sizeof *x);
    x->region = region;
    x->parent = parent;
    x->first_child = x->next_sibling = x->last_child = NONE;
    x->inc = calloc(t->nm + 1, sizeof *x->inc);
    x->exc = calloc(t->nm + 1, sizeof *x->exc);
    x->cnt = calloc(t->nm + 1, sizeof *x->cnt);
    if (!x->inc || !x->exc || !x->cnt) {
        free(x->inc);
        free(x->exc);
        free(x->cnt);
        return NONE;
    }
    if (parent != NONE) {
        if (t->v[parent].last_child == NONE)
            t->v[parent].first_child = t->n;
        else
            t->v[t->v[parent].last_child].next_sibling = t->n;
        t->v[parent].last_child = t->n;
    }
    return t->n++;
}

static void mtree_free(mtree *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        free(t->v[i].inc);
        free(t->v[i].exc);
        free(t->v[i].cnt);
    }
    free(t->v);
}

/* Maps the nodes of one thread onto the merged tree, adding the calling
 * contexts it lacks: map[n] is node n's merged node, NONE under a parent
 * that is not mapped.  -1 on no memory. */
static int mtree_map(mtree *t, const aa_thread *tr, size_t *map)
{
    size_t n;
    for (n = 0; n < tr->nnodes; n++) {
        int32_t par = tr->nodes[n].parent;
        size_t mp = par >= 0 && (size_t)par < n ? map[par] : NONE;
        map[n] = NONE;
        if (par >= 0 && mp == NONE)
            continue;
        if ((map[n] = mtree_child(t, mp, tr->nodes[n].region)) == NONE)
            return -1;
    }
    return 0;
}

/* Grows *map to hold n entries; -1 on no memory. */
static int map_reserve(size_t **map, size_t *cap, size_t n)
{
    size_t *nm;
    if (n <= *cap)
        return 0;
    if (!(nm = realloc(*map, n * sizeof *nm)))
        return -1;
    *map = nm;
    *cap = n;
    return 0;
}

/* Adds every node of every thread; threads of one process add up. */
static int mtree_build(mtree *t, const aa_experiment *e)
{
    size_t p, th, n, m, *map = NULL, cap = 0;
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        for (th = 0; th < pr->nthreads; th++) {
            const aa_thread *tr = &pr->threads[th];
            size_t *first, *next;
            if (map_reserve(&map, &cap, tr->nnodes) || mtree_map(t, tr, map))
                goto nomem;
            if (thread_children(tr, &first, &next))
                goto nomem;
            for (n = 0; n < tr->nnodes; n++) {
                size_t x = map[n];
                if (x == NONE)
                    continue;
                if (tr->nodes[n].flags & AA_NODE_THROTTLED)
                    t->v[x].throttled = 1;
                for (m = 0; m < e->nmetrics; m++) {
                    double v = aa_node_values(e, tr, n)[m];
                    if (isnan(v))
                        continue;
                    t->v[x].inc[m] += v;
                    t->v[x].exc[m] += exclusive_value(e, tr, n, m, first, next);
                    if (th == 0)
                        t->v[x].cnt[m]++;
                }
            }
            free(first);
            free(next);
        }
    }
    free(map);
    return 0;
nomem:
    free(map);
    return -1;
}

static void hatchet_node(aa_json *j, const aa_experiment *e, const mtree *t, size_t x)
{
    const mnode *nd = &t->v[x];
    const aa_region *r = aa_experiment_region(e, nd->region);
    size_t m, c;
    int wall = aa_experiment_metric_index(e, "wall");
    char key[160];
    aa_json_obj_begin(j);
    aa_json_key(j, "frame");
    aa_json_obj_begin(j);
    aa_json_key(j, "name");
    aa_json_str(j, region_name(r));
    aa_json_key(j, "type");
    aa_json_str(j, r ? aa_region_kind_name(r->kind) : "region");
    aa_json_obj_end(j);
    aa_json_key(j, "metrics");
    aa_json_obj_begin(j);
    if (wall >= 0) {
        size_t k = nd->cnt[wall] ? nd->cnt[wall] : 1;
        aa_json_key(j, "time (inc)");
        aa_json_num(j, nd->inc[wall] / (double)k);
        aa_json_key(j, "time");
        aa_json_num(j, nd->exc[wall] / (double)k);
    }
    for (m = 0; m < e->nmetrics; m++) {
        size_t k = nd->cnt[m] ? nd->cnt[m] : 1;
        snprintf(key, sizeof key, "%s (inc)", e->metrics[m].name);
        aa_json_key(j, key);
        aa_json_num(j, nd->inc[m] / (double)k);
        aa_json_key(j, e->metrics[m].name);
        aa_json_num(j, nd->exc[m] / (double)k);
    }
    aa_json_key(j, "processes");
    aa_json_int(j, wall >= 0 ? (long long)nd->cnt[wall] : 0);
    aa_json_key(j, "throttled");
    aa_json_int(j, nd->throttled);
    aa_json_obj_end(j);
    aa_json_key(j, "attributes");
    aa_json_obj_begin(j);
    aa_json_key(j, "region_id");
    aa_json_int(j, nd->region);
    aa_json_key(j, "file");
    aa_json_str(j, r && r->file ? r->file : "");
    aa_json_key(j, "line");
    aa_json_int(j, r ? r->line : 0);
    aa_json_key(j, "function");
    aa_json_str(j, r && r->function ? r->function : "");
    aa_json_obj_end(j);
    if (nd->first_child != NONE) {
        aa_json_key(j, "children");
        aa_json_arr_begin(j);
        for (c = nd->first_child; c != NONE; c = t->v[c].next_sibling)
            hatchet_node(j, e, t, c);
        aa_json_arr_end(j);
    }
    aa_json_obj_end(j);
}

int aa_export_hatchet(const aa_experiment *e, aa_buf *o, aa_err *err)
{
    mtree t;
    aa_json j;
    size_t x;
    memset(&t, 0, sizeof t);
    t.nm = e->nmetrics;
    if (mtree_build(&t, e)) {
        mtree_free(&t);
        return aa_err_set(err, AA_EENV, "export: out of memory");
    }
    aa_json_init(&j, o, 0);
    aa_json_arr_begin(&j);
    for (x = 0; x < t.n; x++)
        if (t.v[x].parent == NONE)
            hatchet_node(&j, e, &t, x);
    aa_json_arr_end(&j);
    aa_buf_putc(o, '\n');
    mtree_free(&t);
    if (o->failed)
        return aa_err_set(err, AA_EENV, "export: out of memory");
    return AA_OK;
}

/* ---- CUBE4 (.cubex) ------------------------------------------------------------ */
/*
 * A .cubex file is a POSIX tar archive (ustar) holding anchor.xml (the
 * metadata: metrics, regions, the call tree of cnodes, the system tree of
 * machine / node / process / thread) and, per metric id M, M.index and
 * M.data (docs/report.md, "CUBE4").  Written as Cube 4.4's cubew library
 * writes an uncompressed file:
 *   M.index  "CUBEX.INDEX", uint32 1 (the endianness mark), uint16 0 (the
 *            version), uint8 1 (sparse index), uint32 N, N uint32 cnode ids
 *   M.data   "CUBEX.DATA", then for each cnode of the index, one value per
 *            location in location-id order (DOUBLE: IEEE 754 binary64,
 *            UINT64 for visits), in the byte order of the mark.
 * Every number is written little-endian.  Every metric is EXCLUSIVE: the
 * value of a cnode is its exclusive value and Cube sums a subtree for the
 * inclusive one.  Cnode ids follow a depth-first walk of the call tree, so
 * the order cubew uses for exclusive metrics is the id order.
 */

static void xml_text(aa_buf *o, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': aa_buf_puts(o, "&amp;"); break;
        case '<': aa_buf_puts(o, "&lt;"); break;
        case '>': aa_buf_puts(o, "&gt;"); break;
        case '"': aa_buf_puts(o, "&quot;"); break;
        case '\'': aa_buf_puts(o, "&apos;"); break;
        default: aa_buf_putc(o, c < 0x20 && c != '\t' && c != '\n' ? '?' : (char)c);
        }
    }
}

static void put_u32le(aa_buf *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    aa_buf_add(o, b, 4);
}

static void put_u64le(unsigned char *b, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* One ustar member: 512-byte header, the contents, zeros to 512. */
static void tar_member(aa_buf *o, const char *name, const void *data, size_t len)
{
    unsigned char h[512];
    unsigned sum = 0;
    size_t i;
    memset(h, 0, sizeof h);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 7);
    memcpy(h + 108, "0000000", 7);
    memcpy(h + 116, "0000000", 7);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)len);
    memcpy(h + 136, "00000000000", 11); /* mtime 0: the same file for the same data */
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    for (i = 0; i < sizeof h; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    aa_buf_add(o, h, sizeof h);
    aa_buf_add(o, data, len);
    memset(h, 0, sizeof h);
    if (len % 512)
        aa_buf_add(o, h, 512 - len % 512);
}

static const char *cube_uom(const char *unit)
{
    if (!unit || !*unit)
        return "occ";
    if (!strcmp(unit, "s"))
        return "sec";
    if (!strcmp(unit, "count"))
        return "occ";
    return unit;
}

static int cube_integer_metric(const aa_metric *m)
{
    return !strcmp(m->name, "visits");
}

/* Cube region ids are the positions in e->regions (sorted by id). */
static long cube_region_index(const aa_experiment *e, uint32_t id)
{
    const aa_region *r = aa_experiment_region(e, id);
    return r ? (long)(r - e->regions) : -1;
}

typedef struct cube_loc {
    const aa_process *proc;
    const aa_thread *thread;
    size_t group;  /* location group (process) id */
    size_t host;   /* system tree node id - 1 */
} cube_loc;

/* Locations grouped by host (first appearance), processes by rank, threads
 * in order; location ids are positions in this list. */
static cube_loc *cube_locations(const aa_experiment *e, size_t *nloc, const char ***hosts,
                                size_t *nhosts)
{
    size_t p, q, t, n = 0, total = 0, nh = 0, g = 0;
    cube_loc *L;
    const char **h;
    for (p = 0; p < e->nprocesses; p++)
        total += e->processes[p].nthreads;
    L = calloc(total + 1, sizeof *L);
    h = calloc(e->nprocesses + 1, sizeof *h);
    if (!L || !h) {
        free(L);
        free(h);
        return NULL;
    }
    for (p = 0; p < e->nprocesses; p++) {
        const char *hp = e->processes[p].host ? e->processes[p].host : "";
        for (q = 0; q < nh && strcmp(h[q], hp); q++)
            ;
        if (q == nh)
            h[nh++] = hp;
    }
    for (q = 0; q < nh; q++)
        for (p = 0; p < e->nprocesses; p++) {
            const aa_process *pr = &e->processes[p];
            if (strcmp(pr->host ? pr->host : "", h[q]))
                continue;
            for (t = 0; t < pr->nthreads; t++) {
                L[n].proc = pr;
                L[n].thread = &pr->threads[t];
                L[n].group = g;
                L[n].host = q;
                n++;
            }
            g++;
        }
    *nloc = n;
    *hosts = h;
    *nhosts = nh;
    return L;
}

/* Cnode ids in depth-first order (cid[x] for merged node x), and the
 * nested <cnode> elements in that order. */
static void cube_cnodes(aa_buf *o, const aa_experiment *e, const mtree *t, size_t *cid)
{
    size_t next = 0, r, x;
    for (r = 0; r < t->n; r++) {
        if (t->v[r].parent != NONE)
            continue;
        x = r;
        for (;;) {
            cid[x] = next++;
            aa_buf_printf(o, "<cnode id=\"%zu\" calleeId=\"%ld\">\n", cid[x],
                          cube_region_index(e, t->v[x].region));
            if (t->v[x].first_child != NONE) {
                x = t->v[x].first_child;
                continue;
            }
            for (;;) {
                aa_buf_puts(o, "</cnode>\n");
                if (x == r)
                    break;
                if (t->v[x].next_sibling != NONE) {
                    x = t->v[x].next_sibling;
                    break;
                }
                x = t->v[x].parent;
            }
            if (x == r)
                break;
        }
    }
}

static void cube_anchor(aa_buf *o, const aa_experiment *e, const mtree *t, size_t *cid,
                        const cube_loc *L, size_t nloc, const char **hosts, size_t nhosts)
{
    size_t m, r, h, l;
    aa_buf_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n");
    aa_buf_puts(o, "<attr key=\"Creator\" value=\"AutoAnalyzer " AA_VERSION "\"/>\n");
    aa_buf_puts(o, "<attr key=\"Experiment\" value=\"");
    xml_text(o, e->id);
    aa_buf_puts(o, "\"/>\n<doc>\n<mirrors>\n</mirrors>\n</doc>\n<metrics>\n");
    for (m = 0; m < e->nmetrics; m++) {
        const aa_metric_info *mi = aa_metric_lookup(e->metrics[m].name);
        aa_buf_printf(o, "<metric id=\"%zu\" type=\"EXCLUSIVE\">\n<disp_name>", m);
        xml_text(o, e->metrics[m].name);
        aa_buf_puts(o, "</disp_name>\n<uniq_name>");
        xml_text(o, e->metrics[m].name);
        aa_buf_printf(o, "</uniq_name>\n<dtype>%s</dtype>\n<uom>",
                      cube_integer_metric(&e->metrics[m]) ? "UINT64" : "DOUBLE");
        xml_text(o, cube_uom(e->metrics[m].unit));
        aa_buf_puts(o, "</uom>\n<url></url>\n<descr>");
        xml_text(o, mi ? mi->description : e->metrics[m].name);
        aa_buf_puts(o, "</descr>\n</metric>\n");
    }
    aa_buf_puts(o, "</metrics>\n<program>\n");
    for (r = 0; r < e->nregions; r++) {
        const aa_region *g = &e->regions[r];
        int mpi = g->name && !strncmp(g->name, "MPI_", 4);
        aa_buf_printf(o, "<region id=\"%zu\" mod=\"", r);
        xml_text(o, g->file);
        aa_buf_printf(o, "\" begin=\"%d\" end=\"%d\">\n<name>", g->line,
                      g->end_line ? g->end_line : g->line);
        xml_text(o, region_name(g));
        aa_buf_puts(o, "</name>\n<mangled_name>");
        xml_text(o, region_name(g));
        aa_buf_printf(o, "</mangled_name>\n<paradigm>%s</paradigm>\n<role>%s</role>\n<url></url>\n"
                         "<descr>",
                      mpi ? "mpi" : "user", g->kind == AA_KIND_LOOP ? "loop" : "function");
        xml_text(o, aa_region_kind_name(g->kind));
        aa_buf_puts(o, "</descr>\n</region>\n");
    }
    cube_cnodes(o, e, t, cid);
    aa_buf_puts(o, "</program>\n<system>\n<systemtreenode Id=\"0\">\n<name>machine</name>\n"
                   "<class>machine</class>\n");
    for (h = 0, l = 0; h < nhosts; h++) {
        aa_buf_printf(o, "<systemtreenode Id=\"%zu\">\n<name>", h + 1);
        xml_text(o, *hosts[h] ? hosts[h] : "node");
        aa_buf_puts(o, "</name>\n<class>node</class>\n");
        while (l < nloc && L[l].host == h) {
            const aa_process *pr = L[l].proc;
            aa_buf_printf(o, "<locationgroup Id=\"%zu\">\n<name>MPI Rank %d</name>\n<rank>%d</rank>\n"
                             "<type>process</type>\n",
                          L[l].group, pr->rank, pr->rank);
            while (l < nloc && L[l].proc == pr) {
                aa_buf_printf(o, "<location Id=\"%zu\">\n<name>thread %d</name>\n<rank>%d</rank>\n"
                                 "<type>thread</type>\n</location>\n",
                              l, L[l].thread->id, L[l].thread->id);
                l++;
            }
            aa_buf_puts(o, "</locationgroup>\n");
        }
        aa_buf_puts(o, "</systemtreenode>\n");
    }
    aa_buf_puts(o, "</systemtreenode>\n<topologies>\n</topologies>\n</system>\n</cube>\n");
}

/* vals[(m * ncn + cnode) * nloc + loc]: exclusive values, 0 when not measured. */
static int cube_values(const aa_experiment *e, mtree *t, const cube_loc *L, size_t nloc,
                       size_t *cid, double *vals)
{
    size_t l, n, m, *map = NULL, cap = 0;
    for (l = 0; l < nloc; l++) {
        const aa_thread *tr = L[l].thread;
        size_t *first, *next;
        if (map_reserve(&map, &cap, tr->nnodes) || mtree_map(t, tr, map) ||
            thread_children(tr, &first, &next))
            goto nomem;
        for (n = 0; n < tr->nnodes; n++) {
            if (map[n] == NONE)
                continue;
            for (m = 0; m < e->nmetrics; m++) {
                double v = exclusive_value(e, tr, n, m, first, next);
                if (!isnan(v))
                    vals[(m * t->n + cid[map[n]]) * nloc + l] += v;
            }
        }
        free(first);
        free(next);
    }
    free(map);
    return 0;
nomem:
    free(map);
    return -1;
}

static void cube_metric_files(aa_buf *o, const aa_experiment *e, size_t m, size_t ncn,
                              size_t nloc, const double *vals, aa_buf *tmp)
{
    char name[64];
    size_t c, i;
    int integer = cube_integer_metric(&e->metrics[m]);
    aa_buf_reset(tmp);
    aa_buf_add(tmp, "CUBEX.INDEX", 11);
    put_u32le(tmp, 1);
    aa_buf_add(tmp, "\0\0\1", 3); /* version 0, sparse index */
    put_u32le(tmp, (uint32_t)ncn);
    for (c = 0; c < ncn; c++)
        put_u32le(tmp, (uint32_t)c);
    snprintf(name, sizeof name, "%zu.index", m);
    tar_member(o, name, tmp->data, tmp->len);
    aa_buf_reset(tmp);
    aa_buf_add(tmp, "CUBEX.DATA", 10);
    for (i = 0; i < ncn * nloc; i++) {
        unsigned char b[8];
        double v = vals[m * ncn * nloc + i];
        uint64_t bits;
        if (integer) {
            bits = (uint64_t)llround(v);
        } else {
            memcpy(&bits, &v, sizeof bits);
        }
        put_u64le(b, bits);
        aa_buf_add(tmp, b, 8);
    }
    snprintf(name, sizeof name, "%zu.data", m);
    tar_member(o, name, tmp->data, tmp->len);
}

int aa_export_cube(const aa_experiment *e, aa_buf *o, aa_err *err)
{
    mtree t;
    cube_loc *L = NULL;
    const char **hosts = NULL;
    size_t nloc = 0, nhosts = 0, l, m, *cid = NULL, *map = NULL, cap = 0;
    double *vals = NULL;
    aa_buf anchor, tmp;
    int rc = AA_OK;
    static const char zeros[1024];

    memset(&t, 0, sizeof t);
    t.nm = e->nmetrics;
    aa_buf_init(&anchor);
    aa_buf_init(&tmp);
    if (!(L = cube_locations(e, &nloc, &hosts, &nhosts)))
        goto nomem;
    for (l = 0; l < nloc; l++) /* the merged call tree */
        if (map_reserve(&map, &cap, L[l].thread->nnodes) || mtree_map(&t, L[l].thread, map))
            goto nomem;
    if (!t.n) {
        rc = aa_err_set(err, AA_EINPUT, "export: no calling context measured: a CUBE file "
                                        "needs at least one call-tree node");
        goto out;
    }
    for (l = 0; l < t.n; l++)
        if (cube_region_index(e, t.v[l].region) < 0) {
            rc = aa_err_set(err, AA_EINPUT, "export: a node names region %u, which is not defined",
                            t.v[l].region);
            goto out;
        }
    if (t.n > UINT32_MAX || (t.n && nloc > SIZE_MAX / sizeof *vals / t.n / (e->nmetrics + 1))) {
        rc = aa_err_set(err, AA_EINPUT, "export: %zu calling contexts x %zu threads is too large "
                        "for a CUBE file", t.n, nloc);
        goto out;
    }
    cid = calloc(t.n + 1, sizeof *cid);
    vals = calloc(t.n * nloc * e->nmetrics + 1, sizeof *vals);
    if (!cid || !vals)
        goto nomem;
    cube_anchor(&anchor, e, &t, cid, L, nloc, hosts, nhosts);
    if (cube_values(e, &t, L, nloc, cid, vals))
        goto nomem;
    tar_member(o, "anchor.xml", anchor.data, anchor.len);
    for (m = 0; m < e->nmetrics; m++)
        cube_metric_files(o, e, m, t.n, nloc, vals, &tmp);
    aa_buf_add(o, zeros, sizeof zeros); /* end of archive: two zero blocks */
    if (o->failed || anchor.failed || tmp.failed)
        goto nomem;
    goto out;
nomem:
    rc = aa_err_set(err, AA_EENV, "export: out of memory");
out:
    aa_buf_free(&anchor);
    aa_buf_free(&tmp);
    mtree_free(&t);
    free(L);
    free(hosts);
    free(cid);
    free(map);
    free(vals);
    return rc;
}

int aa_export_format_parse(const char *s, aa_export_format *out)
{
    if (!strcmp(s, "csv"))
        *out = AA_EXPORT_CSV;
    else if (!strcmp(s, "hatchet"))
        *out = AA_EXPORT_HATCHET;
    else if (!strcmp(s, "cube"))
        *out = AA_EXPORT_CUBE;
    else
        return -1;
    return 0;
}

int aa_export(const aa_experiment *e, aa_export_format f, aa_buf *out, aa_err *err)
{
    switch (f) {
    case AA_EXPORT_CSV: return aa_export_csv(e, out, err);
    case AA_EXPORT_CUBE: return aa_export_cube(e, out, err);
    default: return aa_export_hatchet(e, out, err);
    }
}
