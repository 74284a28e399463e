/*
 * analyze/causes.c -- root causes (SPEC §5.4): the attribute table, the
 * attribute values of the regions and of the processes of dissimilarity
 * CCCRs, the decision tables (one per dissimilarity CCCR, one for the
 * disparity) analysed with roughset/, the causes picked from their local
 * reducts, and the causes, evidence and suggestion of a finding.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"
#include "roughset/aa_roughset.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- attribute table ------------------------------------------------------ */
static const an_attr_def attr_defs[] = {
    {"l1_miss_rate", "l1_dcm", "l1_dca", AN_RATE, 1,
     "many L1 data cache misses: improve locality (loop interchange, blocking, contiguous access)",
     NULL},
    {"l2_miss_rate", "l2_dcm", "l2_dca", AN_RATE, 1,
     "many L2 cache misses: block loops for the cache, shrink the working set, improve data layout",
     NULL},
    {"disk_io_bytes", "io_read_bytes", "io_write_bytes", AN_SUM, 1,
     "heavy disk I/O: buffer output, use collective I/O, fewer and larger writes", NULL},
    {"mpi_bytes", "mpi_bytes_sent", "mpi_bytes_recv", AN_SUM, 1,
     "much MPI traffic: aggregate messages, send less data, overlap communication with computation",
     NULL},
    {"instructions", "instructions", NULL, AN_ONE, 1,
     "much computation: use a cheaper algorithm, vectorize, avoid redundant work",
     "these processes execute more instructions here: redistribute the work (load imbalance)"},
    {"mpi_time", "mpi_wall", NULL, AN_ONE, 1,
     "much time inside MPI: reduce synchronization, overlap communication, balance the load that causes waiting",
     NULL},
    {"io_time", "io_time", NULL, AN_ONE, 1,
     "much time inside I/O calls: buffer, use asynchronous or collective I/O", NULL},
    {"page_faults", "page_faults", NULL, AN_ONE, 0,
     "many page faults: reduce the memory footprint, reuse buffers, touch memory in order", NULL},
    {"cpi", "cycles", "instructions", AN_RATE, 0,
     "high cycles per instruction: look at memory stalls and dependencies", NULL},
};

const an_attr_def *an_attr_table(size_t *n)
{
    *n = sizeof attr_defs / sizeof attr_defs[0];
    return attr_defs;
}

const an_attr_def *an_attr_find(const char *name)
{
    size_t i, n;
    const an_attr_def *t = an_attr_table(&n);
    for (i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

/* ---- rough sets --------------------------------------------------------------- */
typedef struct rs_sort_ctx {
    const int *vals;
    const int *dec;
    size_t na;
} rs_sort_ctx;

static int cmp_rows(const void *a, const void *b, void *arg)
{
    const rs_sort_ctx *s = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b, j;
    for (j = 0; j < s->na; j++) {
        int u = s->vals[x * s->na + j], v = s->vals[y * s->na + j];
        if (u != v)
            return u < v ? -1 : 1;
    }
    if (s->dec[x] != s->dec[y])
        return s->dec[x] < s->dec[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Builds the table of distinct (conditions, decision) rows and analyses it. */
int an_rs_run(an_ctx *c, size_t nobj, size_t na, char **names, const int *vals,
                  const int *dec, rs_rows *rows, aa_dtable **tab, aa_roughset_result *res)
{
    size_t *ord = malloc((nobj ? nobj : 1) * sizeof *ord), i;
    rs_sort_ctx sc = {vals, dec, na};
    aa_dtable *t = NULL;
    memset(rows, 0, sizeof *rows);
    memset(res, 0, sizeof *res);
    *tab = NULL;
    rows->row_of = malloc((nobj ? nobj : 1) * sizeof *rows->row_of);
    rows->count = calloc(nobj ? nobj : 1, sizeof *rows->count);
    rows->first = malloc((nobj ? nobj : 1) * sizeof *rows->first);
    if (!ord || !rows->row_of || !rows->count || !rows->first) {
        free(ord);
        return an_nomem(c);
    }
    for (i = 0; i < nobj; i++)
        ord[i] = i;
    qsort_r(ord, nobj, sizeof *ord, cmp_rows, &sc);
    for (i = 0; i < nobj; i++) {
        size_t o = ord[i];
        if (i == 0 || memcmp(vals + o * na, vals + ord[i - 1] * na, na * sizeof *vals) ||
            dec[o] != dec[ord[i - 1]]) {
            rows->first[rows->nrows] = o;
            rows->nrows++;
        }
        rows->row_of[o] = rows->nrows - 1;
        rows->count[rows->nrows - 1]++;
    }
    free(ord);
    t = aa_roughset_table_new(rows->nrows, na, (const char *const *)names);
    if (!t)
        return an_nomem(c);
    for (i = 0; i < rows->nrows; i++) {
        char id[32];
        size_t o = rows->first[i];
        snprintf(id, sizeof id, "%zu", o);
        if (aa_roughset_table_set_object(t, i, id, vals + o * na, dec[o])) {
            aa_roughset_table_free(t);
            return an_nomem(c);
        }
    }
    if (aa_roughset_analyze(t, res, c->err)) {
        aa_roughset_table_free(t);
        return c->err->code ? c->err->code : AA_EENV;
    }
    *tab = t;
    return AA_OK;
}

void an_rs_rows_free(rs_rows *r)
{
    free(r->row_of);
    free(r->count);
    free(r->first);
}

/* The first shortest local reduct of row containing an attribute with
 * high[a] != 0; returns the set of its high attributes (0 if none). */
aa_attrset an_pick_causes(const aa_roughset_result *res, size_t row, const int *high)
{
    size_t i, a;
    for (i = 0; i < res->nlocal[row]; i++) {
        aa_attrset s = res->local[row][i], h = 0;
        for (a = 0; a < 64; a++)
            if ((s >> a & 1) && high[a])
                h |= (aa_attrset)1 << a;
        if (h)
            return h;
    }
    return 0;
}

int an_add_core(an_ctx *c, aa_attrset core, char **names, size_t na, char ***list,
                    size_t *n)
{
    size_t a, i;
    for (a = 0; a < na; a++) {
        int have = 0;
        if (!(core >> a & 1))
            continue;
        for (i = 0; i < *n; i++)
            if (strcmp((*list)[i], names[a]) == 0)
                have = 1;
        if (!have && an_strlist_add(list, n, names[a]))
            return an_nomem(c);
    }
    return AA_OK;
}

int an_set_causes(an_ctx *c, aa_finding *f, aa_attrset causes, char **names,
                      const an_attr_def **defs, size_t na, const double *val,
                      const double *ref)
{
    size_t a, k = 0;
    aa_buf sb;
    aa_buf_init(&sb);
    for (a = 0; a < na; a++)
        if (causes >> a & 1)
            k++;
    f->causes = calloc(k ? k : 1, sizeof *f->causes);
    f->evidence = calloc(k ? k : 1, sizeof *f->evidence);
    if (!f->causes || !f->evidence)
        return an_nomem(c);
    for (a = 0; a < na; a++) {
        const char *sg;
        if (!(causes >> a & 1))
            continue;
        f->causes[f->ncauses] = aa_strdup(names[a]);
        f->evidence[f->ncauses].attribute = aa_strdup(names[a]);
        f->evidence[f->ncauses].value = val[a];
        f->evidence[f->ncauses].reference = ref[a];
        f->ncauses++;
        sg = (f->kind == AA_FINDING_DISSIMILARITY && defs[a]->suggest_dissim)
                 ? defs[a]->suggest_dissim
                 : defs[a]->suggest;
        if (sb.len)
            aa_buf_puts(&sb, "; ");
        aa_buf_puts(&sb, sg);
    }
    if (!sb.len)
        aa_buf_puts(&sb, f->kind == AA_FINDING_DISSIMILARITY
                             ? "load imbalance: redistribute the work of this region among processes"
                             : "hotspot: optimize this region (no measured attribute explains it)");
    f->suggestion = aa_buf_detach(&sb);
    aa_buf_free(&sb);
    return f->suggestion ? AA_OK : an_nomem(c);
}
