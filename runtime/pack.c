/*
 * runtime/pack.c -- a compact binary form of a one-process profile, used to
 * ship every rank's profile to rank 0 at MPI_Finalize (AUTOANALYZER_COLLECT
 * =mpi).  Rank 0 merges the packed processes into its own experiment with
 * the model API and writes one experiment.xml; this keeps libxml2 (the
 * reader) out of the user's program.  Native byte order: all ranks of one
 * job run the same binary on the same architecture.
 *
 *   "AAP1" u32 nmetrics {str name, str unit}
 *   u32 nregions {u32 id, u32 parent, i32 kind, line, col, end_line, end_col,
 *                 str name, str function, str file}
 *   i32 rank, str host, i64 pid, u32 nunavail {str}, u32 nattrs {str, str}
 *   u32 nthreads {i32 id, u32 nnodes {u32 region, i32 parent, u32 flags,
 *                 f64 value[nmetrics]}}
 */
#include "runtime/rt_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_u32(aa_buf *b, uint32_t v)
{
    aa_buf_add(b, &v, sizeof v);
}

static void put_str(aa_buf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    put_u32(b, n);
    aa_buf_add(b, s ? s : "", n);
}

int aa_rt_pack(const aa_experiment *e, aa_buf *b)
{
    size_t i, t, k;
    const aa_process *p;
    if (e->nprocesses != 1)
        return -1;
    p = &e->processes[0];
    aa_buf_add(b, "AAP1", 4);
    put_u32(b, (uint32_t)e->nmetrics);
    for (i = 0; i < e->nmetrics; i++) {
        put_str(b, e->metrics[i].name);
        put_str(b, e->metrics[i].unit);
    }
    put_u32(b, (uint32_t)e->nregions);
    for (i = 0; i < e->nregions; i++) {
        const aa_region *r = &e->regions[i];
        int32_t v[5] = {(int32_t)r->kind, r->line, r->col, r->end_line, r->end_col};
        put_u32(b, r->id);
        put_u32(b, r->parent);
        aa_buf_add(b, v, sizeof v);
        put_str(b, r->name);
        put_str(b, r->function);
        put_str(b, r->file);
    }
    {
        int32_t rank = p->rank;
        int64_t pid = p->pid;
        aa_buf_add(b, &rank, sizeof rank);
        put_str(b, p->host);
        aa_buf_add(b, &pid, sizeof pid);
    }
    put_u32(b, (uint32_t)p->nunavailable);
    for (i = 0; i < p->nunavailable; i++)
        put_str(b, p->unavailable[i]);
    put_u32(b, (uint32_t)p->nattrs);
    for (i = 0; i < p->nattrs; i++) {
        put_str(b, p->attrs[i].name);
        put_str(b, p->attrs[i].value);
    }
    put_u32(b, (uint32_t)p->nthreads);
    for (t = 0; t < p->nthreads; t++) {
        const aa_thread *th = &p->threads[t];
        int32_t id = th->id;
        aa_buf_add(b, &id, sizeof id);
        put_u32(b, (uint32_t)th->nnodes);
        for (k = 0; k < th->nnodes; k++) {
            put_u32(b, th->nodes[k].region);
            aa_buf_add(b, &th->nodes[k].parent, sizeof th->nodes[k].parent);
            put_u32(b, th->nodes[k].flags);
            aa_buf_add(b, aa_node_values(e, th, k), e->nmetrics * sizeof(double));
        }
    }
    return b->failed ? -1 : 0;
}

typedef struct rd {
    const unsigned char *p, *end;
    int bad;
} rd;

static void get(rd *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p, n);
    r->p += n;
}

static uint32_t get_u32(rd *r)
{
    uint32_t v;
    get(r, &v, sizeof v);
    return v;
}

/* Returns a malloc'ed string ("" on error, r->bad set). */
static char *get_str(rd *r)
{
    uint32_t n = get_u32(r);
    char *s;
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return strdup("");
    }
    s = malloc((size_t)n + 1);
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, r->p, n);
    s[n] = 0;
    r->p += n;
    return s;
}

int aa_rt_unpack_merge(aa_experiment *e, const void *data, size_t len, aa_err *err)
{
    rd r = {data, (const unsigned char *)data + len, 0};
    char magic[4];
    uint32_t nm, nr, i, n, nt, t, k;
    int *midx = NULL;
    double *vals = NULL;
    aa_process *p;
    int32_t rank;
    int64_t pid;
    char *s, *s2;
    get(&r, magic, 4);
    if (r.bad || memcmp(magic, "AAP1", 4) != 0)
        return aa_err_set(err, AA_EINPUT, "packed profile: bad header");
    nm = get_u32(&r);
    if (r.bad || nm > 4096)
        return aa_err_set(err, AA_EINPUT, "packed profile: bad metric count");
    midx = calloc(nm + 1, sizeof *midx);
    vals = calloc(nm + 1, sizeof *vals);
    if (!midx || !vals)
        goto nomem;
    for (i = 0; i < nm; i++) {
        s = get_str(&r);
        s2 = get_str(&r);
        /* only metrics the model knows (the writer and reader refuse others) */
        midx[i] = (s && s2 && !r.bad && aa_metric_name_valid(s)) ? aa_experiment_add_metric(e, s, s2)
                                                                 : -1;
        free(s);
        free(s2);
        if (midx[i] < 0)
            goto bad;
    }
    nr = get_u32(&r);
    for (i = 0; i < nr && !r.bad; i++) {
        aa_region reg;
        int32_t v[5];
        memset(&reg, 0, sizeof reg);
        reg.id = get_u32(&r);
        reg.parent = get_u32(&r);
        get(&r, v, sizeof v);
        reg.kind = (aa_region_kind)v[0];
        reg.line = v[1];
        reg.col = v[2];
        reg.end_line = v[3];
        reg.end_col = v[4];
        reg.name = get_str(&r);
        reg.function = get_str(&r);
        reg.file = get_str(&r);
        if (v[0] < 0 || v[0] >= AA_KIND_COUNT_ || v[1] < 0 || v[2] < 0 || v[3] < 0 || v[4] < 0)
            r.bad = 1; /* a kind or position no region can have */
        if (!r.bad && !aa_experiment_region(e, reg.id) && aa_experiment_add_region(e, &reg))
            r.bad = 1;
        aa_region_free_fields(&reg);
    }
    get(&r, &rank, sizeof rank);
    if (r.bad || rank < 0 || (e->nprocs > 0 && rank >= e->nprocs) ||
        aa_experiment_process(e, rank)) {
        free(midx);
        free(vals);
        return aa_err_set(err, AA_EINPUT, "packed profile: bad or duplicate rank %d", rank);
    }
    p = aa_experiment_add_process(e, rank);
    if (!p)
        goto nomem;
    free(p->host);
    p->host = get_str(&r);
    get(&r, &pid, sizeof pid);
    p->pid = (long)pid;
    n = get_u32(&r);
    for (i = 0; i < n && !r.bad; i++) {
        s = get_str(&r);
        if (s && !r.bad)
            aa_process_add_unavailable(p, s);
        free(s);
    }
    n = get_u32(&r);
    for (i = 0; i < n && !r.bad; i++) {
        s = get_str(&r);
        s2 = get_str(&r);
        if (s && s2 && !r.bad)
            aa_process_set_attr(p, s, s2);
        free(s);
        free(s2);
    }
    nt = get_u32(&r);
    for (t = 0; t < nt && !r.bad; t++) {
        int32_t id;
        aa_thread *th;
        get(&r, &id, sizeof id);
        n = get_u32(&r);
        if (r.bad || (size_t)(r.end - r.p) / (12 + nm * sizeof(double)) < n)
            goto bad;
        th = aa_process_add_thread(p, id);
        if (!th)
            goto nomem;
        for (k = 0; k < n && !r.bad; k++) {
            uint32_t region = get_u32(&r), flags;
            int32_t parent;
            long idx;
            get(&r, &parent, sizeof parent);
            flags = get_u32(&r);
            get(&r, vals, nm * sizeof(double));
            if (r.bad || parent >= (int32_t)k || parent < -1 || !aa_experiment_region(e, region))
                goto bad;
            for (i = 0; i < nm; i++) /* NaN (not measured) or finite and >= 0 */
                if (!isnan(vals[i]) && (!isfinite(vals[i]) || vals[i] < 0))
                    goto bad;
            idx = aa_thread_add_node(e, th, region, parent);
            if (idx < 0)
                goto nomem;
            th->nodes[idx].flags = flags;
            for (i = 0; i < nm; i++)
                aa_node_values(e, th, (size_t)idx)[midx[i]] = vals[i];
        }
    }
    if (r.bad)
        goto bad;
    free(midx);
    free(vals);
    return AA_OK;
bad:
    free(midx);
    free(vals);
    return aa_err_set(err, AA_EINPUT, "packed profile: truncated or malformed data");
nomem:
    free(midx);
    free(vals);
    return aa_err_set(err, AA_EENV, "out of memory merging profiles");
}

/* ---- rank 0's merge (AUTOANALYZER_COLLECT=mpi) ------------------------------ */
int aa_rt_merge_begin(aa_rt_merge *m, const aa_experiment *own, int nprocs)
{
    size_t k;
    aa_buf_init(&m->missing);
    m->e = aa_experiment_new();
    if (!m->e)
        return -1;
    m->e->id = own->id ? strdup(own->id) : NULL;
    m->e->program = own->program ? strdup(own->program) : NULL;
    m->e->nprocs = nprocs;
    for (k = 0; k < own->nattrs; k++)
        aa_experiment_set_attr(m->e, own->attrs[k].name, own->attrs[k].value);
    return 0;
}

void aa_rt_merge_pack(aa_rt_merge *m, int rank, const void *data, size_t len)
{
    aa_err err;
    aa_err_clear(&err);
    if (m->e && len && aa_rt_unpack_merge(m->e, data, len, &err) == AA_OK)
        return;
    aa_buf_printf(&m->missing, "%s%d", m->missing.len ? " " : "", rank);
}

/* hosts: every distinct host, in rank order, up to 4,095 characters (the
 * ranks of one host are usually neighbours: compared with the last first) */
static void set_hosts(aa_experiment *e)
{
    char hosts[4096] = "";
    const char *last = NULL;
    size_t p;
    for (p = 0; p < e->nprocesses; p++) {
        const char *h = e->processes[p].host ? e->processes[p].host : "";
        size_t l = strlen(hosts), hl = strlen(h);
        char *f;
        int dup = 0;
        if (!hl || (last && strcmp(last, h) == 0))
            continue;
        last = h;
        for (f = strstr(hosts, h); f; f = strstr(f + 1, h))
            if ((f == hosts || f[-1] == ' ') && (f[hl] == 0 || f[hl] == ' ')) {
                dup = 1;
                break;
            }
        if (!dup && l + hl + 2 < sizeof hosts)
            snprintf(hosts + l, sizeof hosts - l, "%s%s", l ? " " : "", h);
    }
    aa_experiment_set_attr(e, "hosts", hosts);
}

int aa_rt_merge_finish(aa_rt_merge *m)
{
    if (!m->e || m->missing.failed)
        return -1;
    set_hosts(m->e);
    if (m->missing.len)
        aa_experiment_set_attr(m->e, "missing_ranks", m->missing.data);
    return 0;
}

void aa_rt_merge_free(aa_rt_merge *m)
{
    aa_experiment_free(m->e);
    m->e = NULL;
    aa_buf_free(&m->missing);
}

int aa_rt_batch_end(const int *lens, int nprocs, int from, size_t max_bytes, int max_ranks)
{
    size_t bytes = 0;
    int r = from;
    while (r < nprocs && r - from < max_ranks &&
           (r == from || bytes + (size_t)lens[r] <= max_bytes))
        bytes += (size_t)lens[r++];
    return r;
}
