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
    {"blocked_time", NULL, NULL, AN_BLOCKED, 1,
     "much time blocked off the CPU outside MPI and I/O calls (sleeping, waiting for a lock, "
     "a device or paging): find what the region waits for",
     "these processes are blocked off the CPU here (sleeping, waiting for a lock, a device or "
     "paging) while the others wait for them: find what they wait for"},
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

int aa_analyze_attribute_known(const char *name)
{
    return name && an_attr_find(name) != NULL;
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
static int rs_run(an_ctx *c, size_t nobj, size_t na, char **names, const int *vals,
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
static aa_attrset pick_causes(const aa_roughset_result *res, size_t row, const int *high)
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

static int add_core(an_ctx *c, aa_attrset core, char **names, size_t na, char ***list,
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

/* ---- attributes ------------------------------------------------------------- */
/* The attributes of the root-cause tables (c->adefs): --attributes, or the
 * default ones of the table; a usage error for an unknown one. */
static int choose_attributes(an_ctx *c)
{
    const aa_analyze_options *o = c->o;
    size_t i, na_tab;
    const an_attr_def *tab = an_attr_table(&na_tab);
    c->adefs = calloc(na_tab + o->nattributes + 1, sizeof *c->adefs);
    c->anames = calloc(na_tab + o->nattributes + 1, sizeof *c->anames);
    if (!c->adefs || !c->anames)
        return an_nomem(c);
    if (!o->nattributes) {
        for (i = 0; i < na_tab; i++)
            if (tab[i].is_default)
                c->adefs[c->nattr++] = &tab[i];
        return AA_OK;
    }
    for (i = 0; i < o->nattributes; i++) {
        const an_attr_def *d = an_attr_find(o->attributes[i]);
        if (!d)
            return aa_err_set(c->err, AA_EUSAGE, "unknown attribute '%s'", o->attributes[i]);
        c->adefs[c->nattr++] = d;
    }
    return AA_OK;
}

/* Buffers of the attribute values: c->aval, and c->dcols for every
 * dissimilarity CCR. */
static int attr_buffers(an_ctx *c)
{
    size_t i, nfound = c->ds.nfound;
    c->dcols = calloc(nfound ? nfound : 1, sizeof *c->dcols);
    c->aval = calloc(c->nattr * c->R + 1, sizeof *c->aval);
    if (!c->dcols || !c->aval)
        return an_nomem(c);
    for (i = 0; i < nfound; i++) {
        c->dcols[i] = malloc((c->nattr * c->P + 1) * sizeof **c->dcols);
        if (!c->dcols[i])
            return an_nomem(c);
    }
    return AA_OK;
}

/* Attribute number `used` of every region, averaged over processes (rates
 * over the processes that ran the region), from its values M (P x R). */
static void attr_region_means(an_ctx *c, const an_attr_def *d, const double *M, size_t used)
{
    size_t q, r, P = c->P, R = c->R;
    for (r = 0; r < R; r++) {
        double s = 0;
        size_t n = 0;
        for (q = 0; q < P; q++) {
            double v = M[q * R + r];
            if (d->kind == AN_RATE) {
                if (c->ran[q * R + r] && !isnan(v)) {
                    s += v;
                    n++;
                }
            } else {
                s += isnan(v) ? 0 : v;
                n++;
            }
        }
        c->aval[used * R + r] = n ? s / (double)n : 0;
    }
}

/* The values of the measured attributes: region averages (c->aval) and
 * the processes' values in the region of every dissimilarity CCR
 * (c->dcols); the others are listed in a->unavailable and left out. */
static int attr_values(an_ctx *c)
{
    aa_analysis *a = c->a;
    size_t i, j, q, used = 0, P = c->P, R = c->R;
    const an_attr_def **ud = calloc(c->nattr + 1, sizeof *ud);
    if (!ud)
        return an_nomem(c);
    for (j = 0; j < c->nattr; j++) {
        if (!an_gather_attr(c, c->adefs[j], c->T1, c->T2)) {
            if (an_strlist_add(&a->unavailable, &a->nunavailable, c->adefs[j]->name)) {
                free(ud);
                return an_nomem(c);
            }
            continue;
        }
        attr_region_means(c, c->adefs[j], c->T1, used);
        for (i = 0; i < c->ds.nfound; i++)
            for (q = 0; q < P; q++) {
                double v = c->T1[q * R + c->ds.found[i].region];
                c->dcols[i][used * P + q] = isnan(v) ? 0 : v;
            }
        ud[used] = c->adefs[j];
        c->anames[used] = (char *)c->adefs[j]->name;
        used++;
    }
    memcpy(c->adefs, ud, used * sizeof *ud);
    free(ud);
    c->nattr = used;
    for (j = 0; j < c->nattr; j++)
        if (an_strlist_add(&a->attributes, &a->nattributes, c->anames[j]))
            return an_nomem(c);
    return AA_OK;
}

static int note_unavailable(an_ctx *c)
{
    const aa_analysis *a = c->a;
    aa_buf nb;
    size_t i;
    int rc;
    if (!a->nunavailable)
        return AA_OK;
    aa_buf_init(&nb);
    for (i = 0; i < a->nunavailable; i++)
        aa_buf_printf(&nb, "%s%s", i ? ", " : "", a->unavailable[i]);
    rc = an_note(c, "attributes not measured in this experiment (left out of the root-cause "
                    "tables): %s", nb.data ? nb.data : "");
    aa_buf_free(&nb);
    return rc;
}

/* Phase: the attributes and their values (at most 64 in the tables). */
/* Adds metric mi over the processes into sum (R): nothing when it is not
 * measured. */
static void region_sums(an_ctx *c, int mi, double *M, double *sum)
{
    size_t q, r, P = c->P, R = c->R;
    if (mi < 0 || !an_gather(c, mi, M))
        return;
    for (q = 0; q < P; q++)
        for (r = 0; r < R; r++)
            if (!isnan(M[q * R + r]))
                sum[r] += M[q * R + r];
}

/* By region, the bytes its MPI calls move per second of their time
 * (c->traffic_rate): what tells message volume that costs time from
 * waiting that merely comes with a few bytes; and per call
 * (c->traffic_size): what tells it from latency, many small calls.  NULL
 * when bytes or MPI time (calls) are not measured. */
static int traffic_rates(an_ctx *c)
{
    size_t r, R = c->R;
    int ms, mr, mw, mc;
    double *M, *bytes, *secs;
    if (!an_metric_usable(c, "mpi_bytes_sent", &ms) || !an_metric_usable(c, "mpi_bytes_recv", &mr) ||
        !an_metric_usable(c, "mpi_wall", &mw))
        return AA_OK;
    M = malloc(c->P * R * sizeof *M);
    bytes = calloc(R ? R : 1, sizeof *bytes);
    secs = calloc(R ? R : 1, sizeof *secs);
    if (!M || !bytes || !secs) {
        free(M);
        free(bytes);
        free(secs);
        return an_nomem(c);
    }
    region_sums(c, ms, M, bytes);
    region_sums(c, mr, M, bytes);
    region_sums(c, mw, M, secs);
    if (an_metric_usable(c, "mpi_calls", &mc)) {
        if (!(c->traffic_size = calloc(R ? R : 1, sizeof *c->traffic_size))) {
            free(M), free(bytes), free(secs);
            return an_nomem(c);
        }
        region_sums(c, mc, M, c->traffic_size);
        for (r = 0; r < R; r++)
            c->traffic_size[r] = an_per(bytes[r], c->traffic_size[r]);
    }
    for (r = 0; r < R; r++)
        bytes[r] = an_per(bytes[r], secs[r]);
    free(M);
    free(secs);
    c->traffic_rate = bytes;
    return AA_OK;
}

/* By region, the bytes its I/O calls move per second of their time
 * (c->disk_rate): what tells a volume of I/O that costs time from a few
 * small writes (a rank's printed report: 30 bytes a call) whose time is
 * the calls' latency.  NULL when the bytes or io_time are not measured. */
static int disk_rates(an_ctx *c)
{
    size_t r, R = c->R;
    int mr, mw, mt, have_r, have_w;
    double *M, *bytes, *secs;
    have_r = an_metric_usable(c, "io_read_bytes", &mr);
    have_w = an_metric_usable(c, "io_write_bytes", &mw);
    if (!(have_r || have_w) || !an_metric_usable(c, "io_time", &mt))
        return AA_OK;
    M = malloc(c->P * R * sizeof *M);
    bytes = calloc(R ? R : 1, sizeof *bytes);
    secs = calloc(R ? R : 1, sizeof *secs);
    if (!M || !bytes || !secs) {
        free(M), free(bytes), free(secs);
        return an_nomem(c);
    }
    if (have_r)
        region_sums(c, mr, M, bytes);
    if (have_w)
        region_sums(c, mw, M, bytes);
    region_sums(c, mt, M, secs);
    for (r = 0; r < R; r++)
        bytes[r] = an_per(bytes[r], secs[r]);
    free(M);
    free(secs);
    c->disk_rate = bytes;
    return AA_OK;
}

double an_per(double amount, double per)
{
    return per > 0 ? amount / per : amount > 0 ? INFINITY : 0;
}

int an_cause_significant(const an_ctx *c, const an_attr_def *d, size_t r)
{
    if (strcmp(d->name, "mpi_bytes") == 0 && c->traffic_rate)
        return c->traffic_rate[r] >= c->o->traffic_min_rate &&
               (!c->traffic_size || c->traffic_size[r] >= c->o->traffic_min_call);
    if (strcmp(d->name, "disk_io_bytes") == 0 && c->disk_rate)
        return c->disk_rate[r] >= c->o->disk_min_rate;
    return 1;
}

int an_attributes(an_ctx *c)
{
    int rc;
    if ((rc = choose_attributes(c)) || (rc = attr_buffers(c)) || (rc = attr_values(c)) ||
        (rc = note_unavailable(c)) || (rc = traffic_rates(c)) || (rc = disk_rates(c)))
        return rc;
    if (c->nattr > 64)
        c->nattr = 64;
    return AA_OK;
}

/* ---- dissimilarity causes ---------------------------------------------------- */
/* The condition values of a dissimilarity table (vals, P x nattr): each
 * attribute's process values (cols) clustered alone; high[j]: more than one
 * cluster and the slow cluster's mean (val[j]) above the others' (refv[j]).
 * lab: P scratch. */
static int dissim_conditions(an_ctx *c, const double *cols, const int *labels, size_t slow,
                             int *vals, int *lab, int *high, double *val, double *refv)
{
    size_t j, q, P = c->P, nattr = c->nattr;
    int rc = AA_OK;
    for (j = 0; j < nattr && !rc; j++) {
        const double *col = cols + j * P;
        an_clust acp;
        memset(&acp, 0, sizeof acp);
        size_t kk = 0, ns = 0, no = 0;
        double ss = 0, so = 0;
        aa_cluster_optics_defaults(col, P, 1, &acp.min_pts, &acp.eps);
        if (!(acp.eps > 0))
            acp.eps = 1e-300;
        rc = an_cluster_all(c, col, P, 1, &acp, lab, &kk);
        for (q = 0; q < P; q++) {
            vals[q * nattr + j] = lab[q];
            if (labels[q] == (int)slow) {
                ss += col[q];
                ns++;
            } else {
                so += col[q];
                no++;
            }
        }
        val[j] = ns ? ss / (double)ns : 0;
        refv[j] = no ? so / (double)no : 0;
        high[j] = kk > 1 && val[j] > refv[j];
    }
    return rc;
}

/* The root causes of dissimilarity CCCR c->ds.found[i] whose slow cluster
 * is slow: the decision table of the processes' attribute clusters against
 * their cluster, its local reduct at the row holding most processes of the
 * slow cluster.  val/refv: the slow cluster's and the others' means. */
int an_dissim_causes(an_ctx *c, size_t i, size_t slow, double *val, double *refv,
                     aa_attrset *causes)
{
    size_t P = c->P, nattr = c->nattr, j;
    const int *labels = c->ds.found[i].labels;
    int *vals = malloc(P * nattr * sizeof *vals), *lab = malloc(P * sizeof *lab);
    int high[64], rc;
    rs_rows rows;
    aa_dtable *tab = NULL;
    aa_roughset_result res;
    memset(high, 0, sizeof high);
    if (!vals || !lab) {
        free(vals);
        free(lab);
        return an_nomem(c);
    }
    rc = dissim_conditions(c, c->dcols[i], labels, slow, vals, lab, high, val, refv);
    for (j = 0; j < nattr; j++)
        high[j] = high[j] && an_cause_significant(c, c->adefs[j], c->ds.found[i].region);
    if (!rc)
        rc = rs_run(c, P, nattr, c->anames, vals, labels, &rows, &tab, &res);
    if (!rc) {
        size_t best = 0, bc = 0, r;
        for (r = 0; r < rows.nrows; r++)
            if (labels[rows.first[r]] == (int)slow && rows.count[r] > bc) {
                bc = rows.count[r];
                best = r;
            }
        if (bc)
            *causes = pick_causes(&res, best, high);
        c->a->ninconsistent += res.ninconsistent;
        rc = add_core(c, res.core, c->anames, nattr, &c->a->core_dissim,
                         &c->a->ncore_dissim);
        aa_roughset_result_free(&res, rows.nrows);
        aa_roughset_table_free(tab);
        an_rs_rows_free(&rows);
    }
    free(vals);
    free(lab);
    return rc;
}

/* ---- disparity causes -------------------------------------------------------- */
/* Attribute j of classified region number i: 1 when its severity class is
 * >= 3 among it and the regions *unrelated* to it (neither its ancestors nor
 * its descendants).  Values are inclusive, so an ancestor always holds at
 * least the sum of its children's values: classified together, an enclosing
 * loop calling two equal I/O functions would take the top class and push
 * both functions down to the middle one (docs/analysis.md).  Regions are
 * numbered in preorder, so the subtree of r is [r, send[r]).  tv, cls: n
 * scratch. */
static int disp_condition(an_ctx *c, const an_disp *d, size_t j, size_t i, double *tv,
                          int *cls, int *out)
{
    size_t ri = c->dobj[i], m = 0, self = 0, ku, y, R = c->R;
    const size_t *send = c->send;
    double mx = -INFINITY, mn = INFINITY, xv = c->aval[j * R + ri];
    int rc;
    *out = 0;
    for (y = 0; y < d->n; y++) {
        size_t u = c->dobj[y];
        if (u != ri && ((u > ri && u < send[ri]) || (ri > u && ri < send[u])))
            continue; /* a descendant or an ancestor */
        if (u == ri)
            self = m;
        tv[m] = c->aval[j * R + u];
        if (tv[m] > mx)
            mx = tv[m];
        if (tv[m] < mn)
            mn = tv[m];
        m++;
    }
    /* a spread under 10% of the largest value is noise, not a class; the
     * lowest value is in the lowest class */
    if (!(mx > 0) || mx - mn <= 0.1 * fabs(mx) || !(xv > mn))
        return AA_OK;
    rc = an_severity_classes(c, tv, m, cls, NULL, &ku, 0.1);
    if (!rc)
        *out = cls[self] >= 3;
    return rc;
}

/* The disparity decision table: the attribute classes of the classified
 * regions (d->vals) against their being CCRs (d->dec), analysed with
 * roughset/ (d->res when d->have_rs). */
int an_disparity_table(an_ctx *c, an_disp *d)
{
    size_t i, j, n = d->n, nattr = c->nattr;
    double *tv = malloc(n * sizeof *tv);
    int *cls = malloc(n * sizeof *cls), rc = AA_OK;
    if (!tv || !cls) {
        free(tv);
        free(cls);
        return an_nomem(c);
    }
    for (j = 0; j < nattr && !rc; j++)
        for (i = 0; i < n && !rc; i++)
            rc = disp_condition(c, d, j, i, tv, cls, &d->vals[i * nattr + j]);
    free(tv);
    free(cls);
    for (i = 0; i < n; i++)
        d->dec[i] = d->isccr[c->dobj[i]];
    if (!rc && nattr) {
        rc = rs_run(c, n, nattr, c->anames, d->vals, d->dec, &d->rows, &d->tab, &d->res);
        d->have_rs = !rc;
        if (d->have_rs) {
            c->a->ninconsistent += d->res.ninconsistent;
            rc = add_core(c, d->res.core, c->anames, nattr, &c->a->core_disp,
                             &c->a->ncore_disp);
        }
    }
    return rc;
}

/* Attribute j in region r's own body: its value less what the functions
 * it calls hold (the outermost function regions of its subtree; the
 * region means of an amount are means over every process, so the body's
 * part of the mean is the mean of the bodies' parts).  Its loops and call
 * sites are its own code: io.c's posix_roundtrip writes in its two loops.
 * A rate is not split and counts as its own. */
static double attr_body(const an_ctx *c, size_t j, size_t r)
{
    size_t u, R = c->R;
    double v = c->aval[j * R + r];
    if (c->adefs[j]->kind == AN_RATE)
        return v;
    for (u = r + 1; u < c->send[r];) {
        const aa_region *info = c->a->regions[u].info;
        if (info && info->kind == AA_KIND_FUNCTION) {
            v -= c->aval[j * R + u];
            u = c->send[u];
        } else {
            u++;
        }
    }
    return v;
}

/* The root causes of disparity CCCR r: the local reduct of its row, of the
 * attributes its own body has, not only the functions it calls (HPL's
 * HPL_pdupdateTT, whose body calls no MPI and whose callees move 2e7
 * bytes, was "much MPI traffic" -- a hotspot is its own code's); val/refv: its attribute values and the
 * mean over the regions that are no CCR. */
aa_attrset an_disparity_causes(an_ctx *c, const an_disp *d, size_t r, double *val,
                               double *refv)
{
    size_t i, j, n = d->n, nattr = c->nattr, R = c->R;
    int high[64];
    size_t row = d->rows.row_of[d->pos[r]];
    memset(high, 0, sizeof high);
    for (j = 0; j < nattr; j++) {
        double s = 0;
        size_t m = 0;
        high[j] = d->vals[d->pos[r] * nattr + j] == 1 &&
                  an_cause_significant(c, c->adefs[j], r) &&
                  attr_body(c, j, r) > 1e-9 * fabs(c->aval[j * R + r]); /* beyond rounding */
        val[j] = c->aval[j * R + r];
        for (i = 0; i < n; i++)
            if (!d->isccr[c->dobj[i]]) {
                s += c->aval[j * R + c->dobj[i]];
                m++;
            }
        refv[j] = m ? s / (double)m : 0;
    }
    return pick_causes(&d->res, row, high);
}

/* ---- for the parallel analysis (parallel.c) ---------------------------------- */
int an_attr_choose(an_ctx *c)
{
    return choose_attributes(c);
}

int an_attr_note_unavailable(an_ctx *c)
{
    return note_unavailable(c);
}
