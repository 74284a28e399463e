/*
 * space/space_ops.c -- the Program Space operators: selection by SpaceMap
 * attributes (list), one execution's record (show), metric x focus
 * queries with ancestors/descendants through the closure table and
 * aggregation across executions, mapping directives (prefix rewrites of
 * resource paths, stored in the space), the structural difference of two
 * or more executions and the performance difference of two (Karavanic
 * 1999, Fig. 11, every common focus compared once so no change hides below
 * a parent that moved less).  Each returns data (cli/ formats it); every
 * ordering is done here in C (byte order), so both backends agree.
 */
#include "space/sp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OPS(s) ((s)->db->ops)

static int fail_rc(aa_err *err) { return err && err->code ? err->code : AA_EENV; }

/* Byte order with '/' first, so a resource is followed by its descendants. */
static int cmp_path(const void *a, const void *b)
{
    const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
    for (; *x && *x == *y; x++, y++)
        ;
    if (*x == *y)
        return 0;
    if (*x == '/')
        return *y ? -1 : 1;
    if (*y == '/')
        return *x ? 1 : -1;
    return *x < *y ? -1 : 1;
}

static int exec_exists(aa_space *s, long long eid, aa_err *err)
{
    long long n;
    char b[24];
    const char *p[1] = {b};
    int rc;
    snprintf(b, sizeof b, "%lld", eid);
    rc = sp_query_int(s->db, "SELECT COUNT(*) FROM executions WHERE eid = ?", p, 1, 0, &n, err);
    if (rc != AA_OK)
        return rc;
    if (!n)
        return aa_err_set(err, AA_EINPUT, "unknown execution %lld", eid);
    return AA_OK;
}

/* " AND e.eid IN (SELECT eid FROM execution_attrs WHERE name = ? AND value = ?)" per key. */
static void where_sql(aa_buf *sql, const aa_space_where *w, const char *col)
{
    size_t i;
    for (i = 0; w && i < w->n; i++)
        aa_buf_printf(sql,
                      " AND %s IN (SELECT eid FROM execution_attrs WHERE name = ? AND value = ?)",
                      col);
}

static int where_bind(aa_space *s, sp_stmt *st, const aa_space_where *w, int first)
{
    size_t i;
    for (i = 0; w && i < w->n; i++) {
        OPS(s)->bind_text(st, first++, w->keys[i]);
        OPS(s)->bind_text(st, first++, w->values[i]);
    }
    return first;
}

typedef struct kv {
    char *k, *v;
} kv;

static int cmp_kv(const void *a, const void *b) { return strcmp(((const kv *)a)->k, ((const kv *)b)->k); }

/* Attributes of one execution, sorted by name. */
static int load_attrs(aa_space *s, long long eid, kv **out, size_t *n, aa_err *err)
{
    sp_stmt *st;
    size_t cap = 0;
    int rc = OPS(s)->prepare(s->db, "SELECT name, value FROM execution_attrs WHERE eid = ?", &st,
                             err),
        r;
    *out = NULL;
    *n = 0;
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    while ((r = OPS(s)->step(st, err)) == 1) {
        if (*n == cap) {
            kv *q = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *q);
            if (!q)
                break;
            *out = q;
        }
        (*out)[*n].k = aa_strdup(OPS(s)->col_text(st, 0));
        (*out)[*n].v = aa_strdup(OPS(s)->col_text(st, 1));
        (*n)++;
    }
    OPS(s)->finalize(st);
    if (r < 0)
        return fail_rc(err);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_kv);
    return AA_OK;
}

static void free_kv(kv *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free(v[i].k);
        free(v[i].v);
    }
    free(v);
}

int aa_space_count(aa_space *s, long long *n, aa_err *err)
{
    return sp_query_int(s->db, "SELECT COUNT(*) FROM executions", NULL, 0, 0, n, err);
}

void aa_space_executions_free(aa_space_execution *v, size_t n)
{
    size_t i, k;
    for (i = 0; v && i < n; i++) {
        free(v[i].application);
        free(v[i].experiment);
        free(v[i].started);
        for (k = 0; k < v[i].nattrs; k++) {
            free(v[i].attrs[k].name);
            free(v[i].attrs[k].value);
        }
        free(v[i].attrs);
    }
    free(v);
}

const char *aa_space_execution_attr(const aa_space_execution *x, const char *name)
{
    size_t i;
    for (i = 0; i < x->nattrs; i++)
        if (strcmp(x->attrs[i].name, name) == 0)
            return x->attrs[i].value;
    return NULL;
}

/* The executions matching w, or (only > 0) execution only alone. */
static int executions_where(aa_space *s, const aa_space_where *w, long long only,
                            aa_space_execution **out, size_t *n, aa_err *err)
{
    aa_buf sql;
    sp_stmt *st;
    size_t cap = 0, i;
    int rc = AA_OK, r;
    *out = NULL;
    *n = 0;
    aa_buf_init(&sql);
    aa_buf_puts(&sql, "SELECT e.eid, e.started, e.nprocs, a.name, e.experiment,"
                      " (SELECT COUNT(*) FROM experiment_documents d WHERE d.eid = e.eid)"
                      " FROM executions e JOIN applications a ON a.id = e.app WHERE 1 = 1");
    if (only > 0)
        aa_buf_printf(&sql, " AND e.eid = %lld", only);
    where_sql(&sql, w, "e.eid");
    aa_buf_puts(&sql, " ORDER BY e.eid");
    rc = OPS(s)->prepare(s->db, sql.data, &st, err);
    aa_buf_free(&sql);
    if (rc != AA_OK)
        return rc;
    where_bind(s, st, w, 1);
    while ((r = OPS(s)->step(st, err)) == 1) {
        aa_space_execution *x;
        if (*n == cap) {
            aa_space_execution *q = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *q);
            if (!q) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            *out = q;
        }
        x = &(*out)[(*n)++];
        memset(x, 0, sizeof *x);
        x->eid = OPS(s)->col_int(st, 0);
        x->started = aa_strdup(OPS(s)->col_text(st, 1));
        x->nprocs = (long)OPS(s)->col_int(st, 2);
        x->application = aa_strdup(OPS(s)->col_text(st, 3));
        x->experiment = aa_strdup(OPS(s)->col_text(st, 4));
        x->has_document = OPS(s)->col_int(st, 5) > 0;
    }
    OPS(s)->finalize(st);
    if (r < 0 && rc == AA_OK)
        rc = fail_rc(err);
    /* attributes, once the listing statement is done */
    for (i = 0; rc == AA_OK && i < *n; i++) {
        kv *a;
        size_t na, k;
        aa_space_execution *x = &(*out)[i];
        if ((rc = load_attrs(s, x->eid, &a, &na, err)) != AA_OK)
            break;
        x->attrs = calloc(na + 1, sizeof *x->attrs);
        if (!x->attrs) {
            free_kv(a, na);
            rc = aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
        for (k = 0; k < na; k++) {
            x->attrs[k].name = a[k].k;
            x->attrs[k].value = a[k].v;
        }
        x->nattrs = na;
        free(a);
    }
    if (rc != AA_OK) {
        aa_space_executions_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int aa_space_executions(aa_space *s, const aa_space_where *w, aa_space_execution **out,
                        size_t *n, aa_err *err)
{
    return executions_where(s, w, 0, out, n, err);
}

void aa_space_shown_free(aa_space_shown *x)
{
    if (!x)
        return;
    aa_space_executions_free(x->x, 1);
    aa_space_free_strings(x->metrics, x->nmetrics);
    aa_space_free_strings(x->units, x->nmetrics);
    aa_space_findings_free(x->findings, x->nfindings);
    memset(x, 0, sizeof *x);
}

static int load_findings(aa_space *s, long long eid, aa_space_finding **out, size_t *n,
                         aa_err *err);

int aa_space_show(aa_space *s, long long eid, aa_space_shown *out, aa_err *err)
{
    sp_stmt *st;
    aa_space_execution *all = NULL;
    size_t nall = 0, i;
    char b[24];
    const char *p[1] = {b};
    int rc = exec_exists(s, eid, err), r;
    memset(out, 0, sizeof *out);
    if (rc != AA_OK)
        return rc;
    snprintf(b, sizeof b, "%lld", eid);
    rc = executions_where(s, NULL, eid, &all, &nall, err);
    if (rc == AA_OK && nall != 1)
        rc = aa_err_set(err, AA_EINPUT, "unknown execution %lld", eid);
    if (rc != AA_OK) {
        aa_space_executions_free(all, nall);
        return rc;
    }
    out->x = all;
    rc = sp_query_int(s->db, "SELECT COUNT(*) FROM execution_resources WHERE eid = ?", p, 1, 0,
                      &out->nresources, err);
    if (rc == AA_OK)
        rc = sp_query_int(s->db, "SELECT COUNT(*) FROM results WHERE eid = ?", p, 1, 0,
                          &out->nresults, err);
    if (rc == AA_OK)
        rc = OPS(s)->prepare(s->db,
                             "SELECT m.name, m.unit FROM metrics m WHERE m.id IN"
                             " (SELECT DISTINCT metric FROM results WHERE eid = ?)",
                             &st, err);
    if (rc == AA_OK) {
        kv *mv = NULL;
        size_t nm = 0;
        OPS(s)->bind_int(st, 1, eid);
        while ((r = OPS(s)->step(st, err)) == 1) {
            kv *q = realloc(mv, (nm + 1) * sizeof *q);
            if (!q) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            mv = q;
            mv[nm].k = aa_strdup(OPS(s)->col_text(st, 0));
            mv[nm++].v = aa_strdup(OPS(s)->col_text(st, 1));
        }
        OPS(s)->finalize(st);
        if (r < 0)
            rc = fail_rc(err);
        if (nm)
            qsort(mv, nm, sizeof *mv, cmp_kv);
        out->metrics = calloc(nm + 1, sizeof *out->metrics);
        out->units = calloc(nm + 1, sizeof *out->units);
        if (!out->metrics || !out->units) {
            free_kv(mv, nm);
            nm = 0;
            mv = NULL;
            if (rc == AA_OK)
                rc = aa_err_set(err, AA_EENV, "out of memory");
        }
        for (i = 0; i < nm; i++) {
            out->metrics[i] = mv[i].k;
            out->units[i] = mv[i].v;
        }
        out->nmetrics = nm;
        free(mv);
    }
    if (rc == AA_OK)
        rc = load_findings(s, eid, &out->findings, &out->nfindings, err);
    if (rc != AA_OK)
        aa_space_shown_free(out);
    return rc;
}

void aa_space_findings_free(aa_space_finding *f, size_t n)
{
    size_t i, j;
    for (i = 0; f && i < n; i++) {
        free((char *)f[i].kind);
        free((char *)f[i].region);
        free((char *)f[i].suggestion);
        for (j = 0; j < f[i].ncauses; j++)
            free(f[i].causes[j]);
        free((char **)f[i].causes);
        for (j = 0; j < f[i].ncontexts; j++)
            free(f[i].contexts[j]);
        free((char **)f[i].contexts);
    }
    free(f);
}

int aa_space_latest_findings(aa_space *s, const aa_space_where *w, long long *eid,
                             aa_space_finding **out, size_t *n, aa_err *err)
{
    aa_buf sql;
    sp_stmt *st;
    int rc, r;
    *eid = 0;
    *out = NULL;
    *n = 0;
    aa_buf_init(&sql);
    aa_buf_puts(&sql, "SELECT MAX(e.eid) FROM executions e WHERE 1 = 1");
    where_sql(&sql, w, "e.eid");
    rc = OPS(s)->prepare(s->db, sql.data, &st, err);
    aa_buf_free(&sql);
    if (rc != AA_OK)
        return rc;
    where_bind(s, st, w, 1);
    r = OPS(s)->step(st, err);
    if (r == 1 && !OPS(s)->col_null(st, 0))
        *eid = OPS(s)->col_int(st, 0);
    OPS(s)->finalize(st);
    if (r < 0)
        return fail_rc(err);
    if (!*eid)
        return AA_OK;
    return load_findings(s, *eid, out, n, err);
}

/* The calling contexts of eid's findings (f, n of them, stored with seq
 * 1..n) from finding_contexts, in their order. */
static int load_contexts(aa_space *s, long long eid, aa_space_finding *f, size_t n, aa_err *err)
{
    sp_stmt *st;
    int rc = OPS(s)->prepare(s->db,
                             "SELECT seq, caller FROM finding_contexts WHERE eid = ?"
                             " ORDER BY seq, idx",
                             &st, err),
        r;
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    while ((r = OPS(s)->step(st, err)) == 1) {
        long long seq = OPS(s)->col_int(st, 0);
        aa_space_finding *g;
        char **q;
        if (seq < 1 || (unsigned long long)seq > n)
            continue;
        g = &f[seq - 1];
        if (!(q = realloc((char **)g->contexts, (g->ncontexts + 1) * sizeof *q)) ||
            !(q[g->ncontexts] = aa_strdup(OPS(s)->col_text(st, 1)))) {
            if (q)
                g->contexts = q;
            r = -1;
            aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
        g->contexts = q;
        g->ncontexts++;
    }
    OPS(s)->finalize(st);
    return r < 0 ? fail_rc(err) : AA_OK;
}

/* The findings stored with eid, in order, with the stable region id of
 * each finding's region, their costs and calling contexts. */
static int load_findings(aa_space *s, long long eid, aa_space_finding **out, size_t *n,
                         aa_err *err)
{
    sp_stmt *st;
    size_t cap = 0;
    int rc, r;
    *out = NULL;
    *n = 0;
    rc = OPS(s)->prepare(s->db,
                         "SELECT f.kind, f.region, f.severity, f.severity_class, f.confidence,"
                         " f.causes, f.suggestion, (SELECT xr.region FROM execution_regions xr"
                         " JOIN resources r ON r.id = xr.resource WHERE xr.eid = f.eid AND"
                         " r.path = f.region), f.impact, f.run_share"
                         " FROM findings f WHERE f.eid = ? ORDER BY f.seq",
                         &st, err);
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    while ((r = OPS(s)->step(st, err)) == 1) {
        aa_space_finding *f;
        const char *c = OPS(s)->col_text(st, 5);
        char **causes = NULL;
        size_t nc = 0;
        if (*n == cap) {
            aa_space_finding *q = realloc(*out, (cap = cap ? cap * 2 : 8) * sizeof *q);
            if (!q) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            *out = q;
        }
        while (*c) {
            const char *e = strchr(c, ',');
            size_t len = e ? (size_t)(e - c) : strlen(c);
            char **q = realloc(causes, (nc + 1) * sizeof *q);
            if (!q)
                break;
            causes = q;
            causes[nc++] = strndup(c, len);
            c += len + (e ? 1 : 0);
        }
        f = &(*out)[(*n)++];
        memset(f, 0, sizeof *f);
        f->kind = aa_strdup(OPS(s)->col_text(st, 0));
        f->region = aa_strdup(OPS(s)->col_text(st, 1));
        f->severity = OPS(s)->col_double(st, 2);
        f->severity_class = (int)OPS(s)->col_int(st, 3);
        f->confidence = OPS(s)->col_double(st, 4);
        f->suggestion = aa_strdup(OPS(s)->col_text(st, 6));
        f->causes = causes;
        f->ncauses = nc;
        f->region_id = OPS(s)->col_null(st, 7) ? -1 : OPS(s)->col_int(st, 7);
        f->impact_s = OPS(s)->col_null(st, 8) ? NAN : OPS(s)->col_double(st, 8);
        f->run_share = OPS(s)->col_null(st, 9) ? NAN : OPS(s)->col_double(st, 9);
    }
    OPS(s)->finalize(st);
    if (r >= 0 && *n && load_contexts(s, eid, *out, *n, err) != AA_OK)
        r = -1;
    if (r < 0) {
        aa_space_findings_free(*out, *n);
        *out = NULL;
        *n = 0;
        return fail_rc(err);
    }
    return AA_OK;
}

int aa_space_findings_of(aa_space *s, long long eid, aa_space_finding **out, size_t *n,
                         aa_err *err)
{
    int rc;
    *out = NULL;
    *n = 0;
    if ((rc = exec_exists(s, eid, err)) != AA_OK)
        return rc;
    return load_findings(s, eid, out, n, err);
}

int aa_space_region_values(aa_space *s, long long eid, const char *metric,
                           aa_space_region_value **out, size_t *n, aa_err *err)
{
    sp_stmt *st;
    size_t cap = 0;
    int rc, r;
    *out = NULL;
    *n = 0;
    if ((rc = exec_exists(s, eid, err)) != AA_OK)
        return rc;
    rc = OPS(s)->prepare(
        s->db,
        "SELECT xr.region, res.value FROM results res JOIN foci f ON f.id = res.focus"
        " JOIN execution_regions xr ON xr.eid = res.eid AND xr.resource = f.code"
        " WHERE res.eid = ? AND res.metric = (SELECT id FROM metrics WHERE name = ?)"
        " AND f.machine = (SELECT id FROM resources WHERE path = '/Machine')"
        " AND f.process = (SELECT id FROM resources WHERE path = '/Process')",
        &st, err);
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    OPS(s)->bind_text(st, 2, metric);
    while ((r = OPS(s)->step(st, err)) == 1) {
        long long id = OPS(s)->col_int(st, 0);
        if (id < 0 || id > (long long)UINT32_MAX)
            continue;
        if (*n == cap) {
            aa_space_region_value *q = realloc(*out, (cap = cap ? cap * 2 : 64) * sizeof *q);
            if (!q) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            *out = q;
        }
        (*out)[*n].region_id = (uint32_t)id;
        (*out)[(*n)++].value = OPS(s)->col_double(st, 1);
    }
    OPS(s)->finalize(st);
    if (r < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
        return fail_rc(err);
    }
    return AA_OK;
}

/* ---- query -------------------------------------------------------------------- */
typedef aa_space_query_row qrow;

static int cmp_qrow(const void *a, const void *b)
{
    const qrow *x = a, *y = b;
    int i, c;
    for (i = 0; i < 3; i++)
        if ((c = strcmp(x->focus[i], y->focus[i])))
            return c;
    return x->eid < y->eid ? -1 : x->eid > y->eid;
}

static const char *hier_of(const char *path, char *buf, size_t n)
{
    const char *e;
    size_t len;
    if (path[0] != '/')
        return "";
    e = strchr(path + 1, '/');
    len = e ? (size_t)(e - path - 1) : strlen(path + 1);
    if (len >= n)
        len = n - 1;
    memcpy(buf, path + 1, len);
    buf[len] = 0;
    return buf;
}

void aa_space_query_free(aa_space_query_result *r)
{
    size_t i;
    int k;
    if (!r)
        return;
    for (i = 0; i < r->n; i++) {
        for (k = 0; k < 3; k++)
            free(r->rows[i].focus[k]);
        free(r->rows[i].stored);
    }
    free(r->rows);
    free(r->unit);
    memset(r, 0, sizeof *r);
}

static int same_but_lines(const char *x, const char *y);

/* The resources that are the code resource path in other executions of the
 * same application under other line numbers (same stable region id), as a
 * SQL list of ids ("" none). */
static int query_moved(aa_space *s, const char *path, aa_buf *ids, aa_err *err)
{
    sp_stmt *st;
    int rc, r, n = 0;
    rc = OPS(s)->prepare(s->db,
                         "SELECT DISTINCT r2.id, r2.path FROM resources r1"
                         " JOIN execution_regions x1 ON x1.resource = r1.id"
                         " JOIN executions e1 ON e1.eid = x1.eid"
                         " JOIN execution_regions x2 ON x2.region = x1.region"
                         " JOIN executions e2 ON e2.eid = x2.eid AND e2.app = e1.app"
                         " JOIN resources r2 ON r2.id = x2.resource"
                         " WHERE r1.path = ? AND r2.id <> r1.id AND r2.type = r1.type",
                         &st, err);
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_text(st, 1, path);
    while ((r = OPS(s)->step(st, err)) == 1)
        if (same_but_lines(path, OPS(s)->col_text(st, 1)))
            aa_buf_printf(ids, "%s%lld", n++ ? ", " : "", OPS(s)->col_int(st, 0));
    OPS(s)->finalize(st);
    return r < 0 ? fail_rc(err) : AA_OK;
}

int aa_space_run_query(aa_space *s, const aa_space_query *q, aa_space_query_result *res,
                       aa_err *err)
{
    static const char *const hiers[3] = {"Code", "Machine", "Process"};
    static const char *const cols[3] = {"f.code", "f.machine", "f.process"};
    const char *sel[3] = {"/Code", "/Machine", "/Process"};
    aa_buf sql;
    sp_stmt *st;
    qrow *rows = NULL;
    size_t nrows = 0, cap = 0, i, k;
    int rc, r, param = 1, agg = q->agg != NULL;
    long long found;
    const char *fn = NULL;
    char hb[64];
    aa_buf moved;

    memset(res, 0, sizeof *res);
    if (agg) {
        if (strcmp(q->agg, "max") == 0)
            fn = "MAX";
        else if (strcmp(q->agg, "min") == 0)
            fn = "MIN";
        else if (strcmp(q->agg, "mean") == 0)
            fn = "AVG";
        else if (strcmp(q->agg, "sum") == 0)
            fn = "SUM";
        else
            return aa_err_set(err, AA_EUSAGE, "unknown aggregation '%s' (max, min, mean, sum)",
                              q->agg);
    }
    for (i = 0; i < q->nfoci; i++) {
        const char *h = hier_of(q->foci[i], hb, sizeof hb);
        for (k = 0; k < 3; k++)
            if (strcmp(h, hiers[k]) == 0)
                break;
        if (k == 3)
            return aa_err_set(err, AA_EUSAGE,
                              "focus '%s': a resource path under /Code, /Machine or /Process",
                              q->foci[i]);
        sel[k] = q->foci[i];
    }
    {
        const char *p[1] = {q->metric};
        rc = sp_query_int(s->db, "SELECT COUNT(*) FROM metrics WHERE name = ?", p, 1, 0, &found,
                          err);
        if (rc != AA_OK)
            return rc;
        if (!found)
            return aa_err_set(err, AA_EINPUT, "no results for metric '%s' in the space",
                              q->metric);
    }
    for (k = 0; k < 3; k++) {
        const char *p[1] = {sel[k]};
        rc = sp_query_int(s->db, "SELECT COUNT(*) FROM resources WHERE path = ?", p, 1, 0, &found,
                          err);
        if (rc != AA_OK)
            return rc;
        if (!found)
            return aa_err_set(err, AA_EINPUT, "unknown resource '%s'", sel[k]);
    }
    /* the code focus in executions that stored it under other lines */
    aa_buf_init(&moved);
    if ((rc = query_moved(s, sel[0], &moved, err)) != AA_OK) {
        aa_buf_free(&moved);
        return rc;
    }
    aa_buf_init(&sql);
    if (agg)
        aa_buf_printf(&sql, "SELECT 0, cpath, mpath, ppath, %s(value), COUNT(*), NULL FROM (", fn);
    else
        aa_buf_puts(&sql, "SELECT eid, cpath, mpath, ppath, value, 1, spath FROM (");
    if (moved.len)
        aa_buf_printf(&sql, "SELECT r.eid AS eid, CASE WHEN c.id IN (%s) THEN ? ELSE c.path END"
                            " AS cpath,", moved.data);
    else
        aa_buf_puts(&sql, "SELECT r.eid AS eid, c.path AS cpath,");
    aa_buf_puts(&sql, " c.path AS spath, m.path AS mpath, p.path AS ppath, r.value AS value"
                      " FROM results r JOIN foci f ON f.id = r.focus"
                      " JOIN resources c ON c.id = f.code JOIN resources m ON m.id = f.machine"
                      " JOIN resources p ON p.id = f.process"
                      " WHERE r.metric = (SELECT id FROM metrics WHERE name = ?)");
    for (k = 0; k < 3; k++) {
        /* Relatives apply to the hierarchies named by --focus; the others
         * stay at their root. */
        int named = 0;
        const char *also = k == 0 && moved.len ? moved.data : NULL;
        for (i = 0; i < q->nfoci; i++)
            if (q->foci[i] == sel[k])
                named = 1;
        if (named && q->relatives == AA_SPACE_DESCENDANTS)
            aa_buf_printf(&sql,
                          " AND %s IN (SELECT cl.descendant FROM resource_closure cl JOIN"
                          " resources x ON x.id = cl.ancestor WHERE x.path = ?%s%s%s)",
                          cols[k], also ? " OR cl.ancestor IN (" : "", also ? also : "",
                          also ? ")" : "");
        else if (named && q->relatives == AA_SPACE_ANCESTORS)
            aa_buf_printf(&sql,
                          " AND %s IN (SELECT cl.ancestor FROM resource_closure cl JOIN"
                          " resources x ON x.id = cl.descendant WHERE x.path = ?%s%s%s)",
                          cols[k], also ? " OR cl.descendant IN (" : "", also ? also : "",
                          also ? ")" : "");
        else if (also)
            aa_buf_printf(&sql,
                          " AND (%s = (SELECT id FROM resources WHERE path = ?) OR %s IN (%s))",
                          cols[k], cols[k], also);
        else
            aa_buf_printf(&sql, " AND %s = (SELECT id FROM resources WHERE path = ?)", cols[k]);
    }
    where_sql(&sql, &q->where, "r.eid");
    aa_buf_puts(&sql, ") x");
    if (agg)
        aa_buf_puts(&sql, " GROUP BY cpath, mpath, ppath");
    rc = OPS(s)->prepare(s->db, sql.data, &st, err);
    aa_buf_free(&sql);
    if (rc != AA_OK) {
        aa_buf_free(&moved);
        return rc;
    }
    if (moved.len)
        OPS(s)->bind_text(st, param++, sel[0]);
    aa_buf_free(&moved);
    OPS(s)->bind_text(st, param++, q->metric);
    for (k = 0; k < 3; k++)
        OPS(s)->bind_text(st, param++, sel[k]);
    where_bind(s, st, &q->where, param);
    while ((r = OPS(s)->step(st, err)) == 1) {
        if (nrows == cap) {
            qrow *nr = realloc(rows, (cap = cap ? cap * 2 : 64) * sizeof *nr);
            if (!nr) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            rows = nr;
        }
        rows[nrows].eid = OPS(s)->col_int(st, 0);
        for (k = 0; k < 3; k++)
            rows[nrows].focus[k] = aa_strdup(OPS(s)->col_text(st, 1 + (int)k));
        rows[nrows].value = OPS(s)->col_double(st, 4);
        rows[nrows].executions = OPS(s)->col_int(st, 5);
        rows[nrows].stored = !agg && strcmp(OPS(s)->col_text(st, 6), rows[nrows].focus[0])
                                 ? aa_strdup(OPS(s)->col_text(st, 6))
                                 : NULL;
        nrows++;
    }
    OPS(s)->finalize(st);
    if (r < 0) {
        rc = fail_rc(err);
        goto out;
    }
    if (nrows)
        qsort(rows, nrows, sizeof *rows, cmp_qrow);
    {
        const char *p[1] = {q->metric};
        sp_stmt *u;
        rc = OPS(s)->prepare(s->db, "SELECT unit FROM metrics WHERE name = ?", &u, err);
        if (rc != AA_OK)
            goto out;
        OPS(s)->bind_text(u, 1, p[0]);
        res->unit = aa_strdup(OPS(s)->step(u, err) == 1 ? OPS(s)->col_text(u, 0) : "");
        OPS(s)->finalize(u);
    }
    res->rows = rows;
    res->n = nrows;
    return AA_OK;
out:
    for (i = 0; i < nrows; i++)
        for (k = 0; k < 3; k++)
            free(rows[i].focus[k]);
    free(rows);
    return rc;
}

/* ---- mapping ------------------------------------------------------------------- */
void aa_space_map_free(aa_space_map *m)
{
    aa_space_free_strings(m->from, m->n);
    aa_space_free_strings(m->to, m->n);
    memset(m, 0, sizeof *m);
}

int aa_space_map_add(aa_space_map *m, const char *from, const char *to)
{
    char **f = realloc(m->from, (m->n + 1) * sizeof *f), **t;
    if (!f)
        return -1;
    m->from = f;
    t = realloc(m->to, (m->n + 1) * sizeof *t);
    if (!t)
        return -1;
    m->to = t;
    m->from[m->n] = aa_strdup(from);
    m->to[m->n] = aa_strdup(to);
    m->n++;
    return m->from[m->n - 1] && m->to[m->n - 1] ? 0 : -1;
}

int aa_space_map_read(const char *path, aa_space_map *m, aa_err *err)
{
    char *text, *line, *save = NULL;
    size_t len;
    int rc = aa_read_file(path, &text, &len, err), lineno = 0;
    if (rc != AA_OK)
        return rc;
    for (line = text; line && *line;) {
        char *nl = strchr(line, '\n'), *w[4] = {0}, *tok;
        int nw = 0;
        if (nl)
            *nl = 0;
        lineno++;
        if (strlen(line) != (size_t)((nl ? nl : line + strlen(line)) - line)) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: NUL byte", path, lineno);
            break;
        }
        for (tok = strtok_r(line, " \t\r", &save); tok && nw < 4; tok = strtok_r(NULL, " \t\r", &save))
            w[nw++] = tok;
        if (nw && w[0][0] != '#') {
            if (nw != 3 || strcmp(w[0], "map") != 0) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: expected 'map OLD NEW'", path, lineno);
                break;
            }
            if (!sp_path_valid(w[1]) || !sp_path_valid(w[2])) {
                rc = aa_err_set(err, AA_EINPUT,
                                "%s:%d: resource paths start with '/' and have no empty "
                                "components",
                                path, lineno);
                break;
            }
            if (aa_space_map_add(m, w[1], w[2])) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return rc;
}

int aa_space_map_load(aa_space *s, aa_space_map *m, aa_err *err)
{
    sp_stmt *st;
    int rc = OPS(s)->prepare(s->db, "SELECT old_prefix, new_prefix FROM mappings ORDER BY seq", &st,
                             err),
        r;
    if (rc != AA_OK)
        return rc;
    while ((r = OPS(s)->step(st, err)) == 1)
        if (aa_space_map_add(m, OPS(s)->col_text(st, 0), OPS(s)->col_text(st, 1))) {
            r = -1;
            aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
    OPS(s)->finalize(st);
    return r < 0 ? fail_rc(err) : AA_OK;
}

static int map_store_tx(aa_space *s, void *arg, aa_err *err)
{
    return sp_map_store_in_tx(s, arg, err);
}

int sp_map_store_in_tx(aa_space *s, const aa_space_map *m, aa_err *err)
{
    long long seq;
    size_t i;
    int rc = sp_query_int(s->db, "SELECT MAX(seq) FROM mappings", NULL, 0, 0, &seq, err);
    for (i = 0; rc == AA_OK && i < m->n; i++) {
        sp_stmt *st;
        rc = OPS(s)->prepare(s->db, "INSERT INTO mappings(seq, old_prefix, new_prefix) VALUES(?, ?, ?)",
                             &st, err);
        if (rc != AA_OK)
            break;
        OPS(s)->bind_int(st, 1, ++seq);
        OPS(s)->bind_text(st, 2, m->from[i]);
        OPS(s)->bind_text(st, 3, m->to[i]);
        if (OPS(s)->step(st, err) < 0)
            rc = fail_rc(err);
        OPS(s)->finalize(st);
    }
    return rc;
}

int aa_space_map_store(aa_space *s, const aa_space_map *m, aa_err *err)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (!sp_path_valid(m->from[i]) || !sp_path_valid(m->to[i]))
            return aa_err_set(err, AA_EUSAGE,
                              "map %s %s: resource paths start with '/' and have no empty "
                              "components",
                              m->from[i], m->to[i]);
    return sp_write_tx(s, map_store_tx, (void *)m, err);
}

static int map_clear_tx(aa_space *s, void *arg, aa_err *err)
{
    (void)arg;
    return sp_exec(s->db, "DELETE FROM mappings", err);
}

int aa_space_map_clear(aa_space *s, aa_err *err) { return sp_write_tx(s, map_clear_tx, NULL, err); }

char *aa_space_map_apply(const aa_space_map *m, const char *path)
{
    char *cur = aa_strdup(path);
    size_t i;
    for (i = 0; m && cur && i < m->n; i++) {
        size_t n = strlen(m->from[i]);
        if (strncmp(cur, m->from[i], n) == 0 && (cur[n] == 0 || cur[n] == '/')) {
            aa_buf b;
            aa_buf_init(&b);
            aa_buf_puts(&b, m->to[i]);
            aa_buf_puts(&b, cur + n);
            free(cur);
            cur = aa_buf_detach(&b);
        }
    }
    return cur;
}

static int load_maps(aa_space *s, const aa_space_map *extra, aa_space_map *m, aa_err *err)
{
    size_t i;
    int rc;
    memset(m, 0, sizeof *m);
    rc = aa_space_map_load(s, m, err);
    for (i = 0; rc == AA_OK && extra && i < extra->n; i++)
        if (aa_space_map_add(m, extra->from[i], extra->to[i]))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    return rc;
}

/* Identities that survive edits: for execution b, the /Code path of each
 * region whose stable region id (SPEC §3.4) execution a stores under
 * another path that differs only in line numbers (a loop that moved:
 * loop@160 -> loop@163, or a region inside it), mapped to a's path.  Only
 * between executions of one application and resources of the same type;
 * renamed functions or files stay the mapping directives' business.
 * Applied before the directives, first match only (so moved regions never
 * chain). */
typedef struct ident_map {
    sp_strmap idx; /* b's path -> index into to */
    size_t n, cap;
    char **to;
} ident_map;

static void ident_free(ident_map *im)
{
    sp_strmap_free(&im->idx);
    aa_space_free_strings(im->to, im->n);
    memset(im, 0, sizeof *im);
}

/* The paths are equal once every "@<line>" suffix of a component is
 * dropped. */
static int same_but_lines(const char *x, const char *y)
{
    for (;;) {
        while (*x && *x == *y && *x != '@')
            x++, y++;
        if (*x == '@' && *y == '@') {
            const char *p = x + 1, *q = y + 1;
            while (*p >= '0' && *p <= '9')
                p++;
            while (*q >= '0' && *q <= '9')
                q++;
            if (p > x + 1 && q > y + 1 && (*p == '/' || !*p) && (*q == '/' || !*q)) {
                x = p;
                y = q;
                continue;
            }
            x++, y++;
            continue;
        }
        return *x == *y && !*x;
    }
}

static int load_identity(aa_space *s, long long a, long long b, ident_map *im, aa_err *err)
{
    sp_stmt *st;
    int rc, r;
    memset(im, 0, sizeof *im);
    sp_strmap_init(&im->idx);
    rc = OPS(s)->prepare(
        s->db,
        "SELECT rb.path, ra.path FROM execution_regions xb"
        " JOIN execution_regions xa ON xa.region = xb.region AND xa.eid = ?"
        " JOIN resources ra ON ra.id = xa.resource JOIN resources rb ON rb.id = xb.resource"
        " WHERE xb.eid = ? AND xa.resource <> xb.resource AND ra.type = rb.type"
        " AND (SELECT app FROM executions WHERE eid = ?) = (SELECT app FROM executions WHERE eid = ?)",
        &st, err);
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, a);
    OPS(s)->bind_int(st, 2, b);
    OPS(s)->bind_int(st, 3, a);
    OPS(s)->bind_int(st, 4, b);
    while ((r = OPS(s)->step(st, err)) == 1) {
        if (!same_but_lines(OPS(s)->col_text(st, 0), OPS(s)->col_text(st, 1)))
            continue;
        if (im->n == im->cap) {
            char **q = realloc(im->to, (im->cap = im->cap ? im->cap * 2 : 64) * sizeof *q);
            if (!q) {
                r = -1;
                break;
            }
            im->to = q;
        }
        if (!(im->to[im->n] = aa_strdup(OPS(s)->col_text(st, 1))) ||
            sp_strmap_put(&im->idx, OPS(s)->col_text(st, 0), (long long)im->n)) {
            free(im->to[im->n]);
            r = -1;
            break;
        }
        im->n++;
    }
    OPS(s)->finalize(st);
    if (r < 0) {
        ident_free(im);
        return err->code ? err->code : aa_err_set(err, AA_EENV, "out of memory");
    }
    return AA_OK;
}

/* Mapped resource paths of one execution: id -> interned path index. */
typedef struct pathset {
    sp_strmap index;  /* path -> intern id */
    size_t n, cap;
    char **paths;
} pathset;

static long long intern(pathset *ps, const char *path)
{
    long long id;
    if (sp_strmap_get(&ps->index, path, &id))
        return id;
    if (ps->n == ps->cap) {
        char **q = realloc(ps->paths, (ps->cap = ps->cap ? ps->cap * 2 : 256) * sizeof *q);
        if (!q)
            return -1;
        ps->paths = q;
    }
    ps->paths[ps->n] = aa_strdup(path);
    if (!ps->paths[ps->n] || sp_strmap_put(&ps->index, path, (long long)ps->n))
        return -1;
    return (long long)ps->n++;
}

static void pathset_free(pathset *ps)
{
    sp_strmap_free(&ps->index);
    aa_space_free_strings(ps->paths, ps->n);
}

/* Interns the mapped path (and its ancestors) of every resource of eid;
 * map_out (may be NULL) gets resource id -> intern id.  mask |= bit. */
static int load_exec_resources(aa_space *s, long long eid, const ident_map *im,
                               const aa_space_map *m, pathset *ps,
                               long long **rid_map, size_t *rcap, unsigned char **masks,
                               size_t *mcap,
                               unsigned char bit, aa_err *err)
{
    sp_stmt *st;
    int rc = OPS(s)->prepare(s->db,
                             "SELECT r.id, r.path FROM execution_resources er JOIN resources r"
                             " ON r.id = er.resource WHERE er.eid = ?",
                             &st, err),
        r;
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    while ((r = OPS(s)->step(st, err)) == 1) {
        const char *raw = OPS(s)->col_text(st, 1);
        long long ix;
        char *mp, *slash;
        if (im && im->n && sp_strmap_get(&im->idx, raw, &ix))
            raw = im->to[ix];
        mp = aa_space_map_apply(m, raw);
        long long id = -1;
        if (!mp) {
            r = -1;
            break;
        }
        /* the path and its ancestors */
        for (;;) {
            long long x = intern(ps, mp);
            if (x < 0) {
                r = -1;
                break;
            }
            if (id < 0)
                id = x;
            if (masks) {
                if ((size_t)x >= *mcap) {
                    size_t nc = (size_t)x * 2 + 64;
                    unsigned char *q = realloc(*masks, nc);
                    if (!q) {
                        r = -1;
                        break;
                    }
                    memset(q + *mcap, 0, nc - *mcap);
                    *masks = q;
                    *mcap = nc;
                }
                (*masks)[x] |= bit;
            }
            slash = strrchr(mp, '/');
            if (!slash || slash == mp)
                break;
            *slash = 0;
        }
        free(mp);
        if (r < 0)
            break;
        if (rid_map) {
            long long rid = OPS(s)->col_int(st, 0);
            if (rid < 0) {
                r = -1;
                break;
            }
            if ((size_t)rid >= *rcap) {
                size_t nc = (size_t)rid * 2 + 64, z;
                long long *q = realloc(*rid_map, nc * sizeof *q);
                if (!q) {
                    r = -1;
                    break;
                }
                for (z = *rcap; z < nc; z++)
                    q[z] = -2;
                *rid_map = q;
                *rcap = nc;
            }
            (*rid_map)[rid] = id;
        }
    }
    OPS(s)->finalize(st);
    if (r < 0)
        return err->code ? err->code : aa_err_set(err, AA_EENV, "out of memory");
    return AA_OK;
}

void aa_space_diff_free(aa_space_diff_result *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->n; i++)
        aa_space_free_strings(r->sides[i].only, r->sides[i].n);
    free(r->sides);
    memset(r, 0, sizeof *r);
}

int aa_space_diff(aa_space *s, const long long *eids, size_t n, const aa_space_map *extra,
                  aa_space_diff_result *res, aa_err *err)
{
    aa_space_map m;
    pathset ps;
    unsigned char *masks = NULL;
    size_t mcap = 0, i, k;
    int rc = AA_OK;
    unsigned char all;
    size_t *order = NULL;

    memset(res, 0, sizeof *res);
    if (n < 2 || n > 8)
        return aa_err_set(err, AA_EUSAGE, "diff takes 2 to 8 executions");
    for (i = 0; i < n; i++)
        for (k = 0; k < i; k++)
            if (eids[i] == eids[k])
                return aa_err_set(err, AA_EUSAGE, "execution %lld given twice", eids[i]);
    for (i = 0; i < n; i++)
        if ((rc = exec_exists(s, eids[i], err)) != AA_OK)
            return rc;
    memset(&ps, 0, sizeof ps);
    sp_strmap_init(&ps.index);
    rc = load_maps(s, extra, &m, err);
    for (i = 0; rc == AA_OK && i < n; i++) {
        ident_map im;
        memset(&im, 0, sizeof im);
        if (i && (rc = load_identity(s, eids[0], eids[i], &im, err)) != AA_OK)
            break;
        rc = load_exec_resources(s, eids[i], i ? &im : NULL, &m, &ps, NULL, NULL, &masks, &mcap,
                                 (unsigned char)(1u << i), err);
        if (i)
            ident_free(&im);
    }
    if (rc != AA_OK)
        goto out;
    all = (unsigned char)((1u << n) - 1);
    order = malloc((ps.n + 1) * sizeof *order);
    res->sides = calloc(n, sizeof *res->sides);
    if (!order || !res->sides) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    res->n = n;
    {
        /* sort intern ids by path */
        char **sorted = malloc((ps.n + 1) * sizeof *sorted);
        if (!sorted) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        memcpy(sorted, ps.paths, ps.n * sizeof *sorted);
        qsort(sorted, ps.n, sizeof *sorted, cmp_path);
        for (i = 0; i < ps.n; i++) {
            long long id;
            sp_strmap_get(&ps.index, sorted[i], &id);
            order[i] = (size_t)id;
        }
        free(sorted);
    }
    for (k = 0; k < n && rc == AA_OK; k++) {
        unsigned char bit = (unsigned char)(1u << k);
        aa_space_diff_side *d = &res->sides[k];
        d->eid = eids[k];
        d->only = calloc(ps.n + 1, sizeof *d->only);
        if (!d->only) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
        for (i = 0; i < ps.n; i++) {
            unsigned char mk = masks[order[i]];
            if (!(mk & bit) || mk == all)
                continue;
            if (!(d->only[d->n] = aa_strdup(ps.paths[order[i]]))) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            d->n++;
        }
    }
out:
    if (rc != AA_OK)
        aa_space_diff_free(res);
    free(order);
    free(masks);
    pathset_free(&ps);
    aa_space_map_free(&m);
    return rc;
}

/* ---- performance difference -------------------------------------------------- */
typedef struct pd_side {
    long long *rid;   /* resource id -> intern id (-2 = not a resource of it) */
    size_t rcap;
    sp_trimap foci;   /* (code, machine, process) intern ids -> value index */
    double *vals;
    size_t nvals, cap;
} pd_side;

/* Range of focus ids of eid's results for the metric (lo < 0: none). */
static int focus_range(aa_space *s, long long eid, const char *metric, long long *lo,
                       long long *hi, aa_err *err)
{
    char b[24];
    const char *p[2] = {b, metric};
    int rc;
    snprintf(b, sizeof b, "%lld", eid);
    rc = sp_query_int(s->db,
                      "SELECT MIN(focus) FROM results WHERE eid = ? AND metric ="
                      " (SELECT id FROM metrics WHERE name = ?)",
                      p, 2, -1, lo, err);
    if (rc == AA_OK)
        rc = sp_query_int(s->db,
                          "SELECT MAX(focus) FROM results WHERE eid = ? AND metric ="
                          " (SELECT id FROM metrics WHERE name = ?)",
                          p, 2, -1, hi, err);
    if (rc == AA_OK && *lo < 0)
        rc = aa_err_set(err, AA_EINPUT, "execution %lld has no results for metric '%s'", eid,
                        metric);
    return rc;
}

/* The foci with ids in [lo, lo + nf): resource ids, 3 per focus (-1 = none). */
static int load_foci(aa_space *s, long long lo, size_t nf, long long **out, aa_err *err)
{
    sp_stmt *st;
    long long *foci = malloc((nf ? nf : 1) * 3 * sizeof *foci);
    size_t z;
    int rc, r;
    if (!foci)
        return aa_err_set(err, AA_EENV, "out of memory");
    for (z = 0; z < nf * 3; z++)
        foci[z] = -1;
    rc = OPS(s)->prepare(s->db,
                         "SELECT id, code, machine, process FROM foci WHERE id >= ? AND id <= ?",
                         &st, err);
    if (rc != AA_OK) {
        free(foci);
        return rc;
    }
    OPS(s)->bind_int(st, 1, lo);
    OPS(s)->bind_int(st, 2, lo + (long long)nf - 1);
    while ((r = OPS(s)->step(st, err)) == 1) {
        long long i = OPS(s)->col_int(st, 0) - lo;
        int k;
        if (i < 0 || i >= (long long)nf)
            continue;
        for (k = 0; k < 3; k++)
            foci[3 * i + k] = OPS(s)->col_int(st, 1 + k);
    }
    OPS(s)->finalize(st);
    if (r < 0) {
        free(foci);
        return fail_rc(err);
    }
    *out = foci;
    return AA_OK;
}

static int load_side(aa_space *s, long long eid, const char *metric, const ident_map *im,
                     const aa_space_map *m,
                     pathset *ps, const long long *foci, long long lo, size_t nf, pd_side *x,
                     aa_err *err)
{
    sp_stmt *st;
    int rc, r;
    rc = load_exec_resources(s, eid, im, m, ps, &x->rid, &x->rcap, NULL, NULL, 0, err);
    if (rc != AA_OK)
        return rc;
    rc = OPS(s)->prepare(s->db,
                         "SELECT focus, value FROM results WHERE eid = ? AND metric ="
                         " (SELECT id FROM metrics WHERE name = ?)",
                         &st, err);
    if (rc != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    OPS(s)->bind_text(st, 2, metric);
    while ((r = OPS(s)->step(st, err)) == 1) {
        long long f = OPS(s)->col_int(st, 0) - lo, id[3];
        int k;
        if (f < 0 || f >= (long long)nf)
            continue;
        for (k = 0; k < 3; k++) {
            long long rid = foci[3 * f + k];
            id[k] = rid >= 0 && (size_t)rid < x->rcap ? x->rid[rid] : -2;
        }
        if (x->nvals == x->cap) {
            double *q = realloc(x->vals, (x->cap = x->cap ? x->cap * 2 : 1024) * sizeof *q);
            if (!q) {
                r = -1;
                break;
            }
            x->vals = q;
        }
        x->vals[x->nvals] = OPS(s)->col_double(st, 1);
        if (sp_trimap_put(&x->foci, id[0], id[1], id[2], (long long)x->nvals)) {
            r = -1;
            break;
        }
        x->nvals++;
    }
    OPS(s)->finalize(st);
    if (r < 0)
        return err->code ? err->code : aa_err_set(err, AA_EENV, "out of memory");
    return AA_OK;
}

static void pd_side_free(pd_side *x)
{
    free(x->rid);
    sp_trimap_free(&x->foci);
    free(x->vals);
}

typedef struct children {
    size_t *start, *list; /* CSR: children of intern id i are list[start[i]..start[i+1]) */
    size_t *parent;       /* parent intern id, (size_t)-1 for roots */
} children;

static const pathset *sort_ps;
static int cmp_by_path(const void *a, const void *b)
{
    return strcmp(sort_ps->paths[*(const size_t *)a], sort_ps->paths[*(const size_t *)b]);
}

static int build_children(const pathset *ps, children *ch)
{
    size_t i, *parent, *fill, *order;
    parent = malloc((ps->n + 1) * sizeof *parent);
    fill = calloc(ps->n + 2, sizeof *fill);
    order = malloc((ps->n + 1) * sizeof *order);
    ch->start = calloc(ps->n + 2, sizeof *ch->start);
    ch->list = malloc((ps->n + 1) * sizeof *ch->list);
    if (!parent || !fill || !order || !ch->start || !ch->list) {
        free(parent);
        free(fill);
        free(order);
        return -1;
    }
    for (i = 0; i < ps->n; i++) {
        const char *p = ps->paths[i], *slash = strrchr(p, '/');
        long long pi = -1;
        parent[i] = (size_t)-1;
        if (slash && slash != p) {
            char *pp = strndup(p, (size_t)(slash - p));
            if (pp && sp_strmap_get(&ps->index, pp, &pi))
                parent[i] = (size_t)pi;
            free(pp);
        }
        if (parent[i] != (size_t)-1)
            ch->start[parent[i] + 1]++;
        order[i] = i;
    }
    for (i = 0; i < ps->n; i++)
        ch->start[i + 1] += ch->start[i];
    sort_ps = ps;
    qsort(order, ps->n, sizeof *order, cmp_by_path);
    for (i = 0; i < ps->n; i++) {
        size_t c = order[i], p = parent[c];
        if (p != (size_t)-1)
            ch->list[ch->start[p] + fill[p]++] = c;
    }
    ch->parent = parent;
    free(fill);
    free(order);
    return 0;
}

void aa_space_perfdiff_free(aa_space_perfdiff_result *r)
{
    size_t i;
    int k;
    for (i = 0; r && i < r->n; i++)
        for (k = 0; k < 3; k++)
            free(r->rows[i].focus[k]);
    if (r) {
        free(r->rows);
        free(r->unit);
        memset(r, 0, sizeof *r);
    }
}

/* One listed focus. */
typedef struct pd_visit {
    int32_t f[3];
    double va, vb;
    int differs, hidden;
    int level;       /* depth below the root focus, summed over hierarchies */
    double key;      /* |delta|, rounded (size_key) */
} pd_visit;

/* |delta| rounded to 36 bits of mantissa (about 11 digits), so changes
 * equal but for rounding (a parent's 11.999999999999996 and its child's
 * 12) tie, and ties go root first. */
static double size_key(double delta)
{
    int e;
    double m = frexp(fabs(delta), &e);
    return ldexp(round(m * 68719476736.0) / 68719476736.0, e);
}

static const pathset *sort_paths;
static int cmp_visit(const void *x, const void *y)
{
    const pd_visit *a = x, *b = y;
    int k, c;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    for (k = 0; k < 3; k++)
        if ((c = strcmp(sort_paths->paths[a->f[k]], sort_paths->paths[b->f[k]])))
            return c;
    return 0;
}

/* What the search needs to judge a focus. */
typedef struct pd_ctx {
    const pd_side *A, *B;
    const children *ch;
    const aa_space_perfdiff_options *o;
    long long root[3];
    sp_trimap memo;  /* focus -> 1 reached top-down, 2 not */
} pd_ctx;

/* The focus is common to both executions; *differs says whether it
 * differs by more than the threshold. */
static int pd_judge(const pd_ctx *x, long long f0, long long f1, long long f2, double *va,
                    double *vb, int *differs)
{
    long long ia, ib;
    double d;
    if (!sp_trimap_get(&x->A->foci, f0, f1, f2, &ia) || !sp_trimap_get(&x->B->foci, f0, f1, f2, &ib))
        return 0;
    *va = x->A->vals[ia];
    *vb = x->B->vals[ib];
    d = *vb - *va;
    if (x->o->relative)
        *differs = *va == 0 ? *vb != 0 : fabs(d) / fabs(*va) * 100.0 > x->o->threshold;
    else
        *differs = fabs(d) > x->o->threshold;
    return 1;
}

/* Whether Karavanic's top-down search reaches the focus: the root focus,
 * or one refined (one resource replaced by a child) from a common focus
 * that it reaches and that differs.  -1: out of memory. */
static int pd_reached(pd_ctx *x, long long f0, long long f1, long long f2)
{
    long long f[3] = {f0, f1, f2}, m;
    int k, r = 0;
    if (f0 == x->root[0] && f1 == x->root[1] && f2 == x->root[2])
        return 1;
    if (sp_trimap_get(&x->memo, f0, f1, f2, &m))
        return m == 1;
    for (k = 0; k < 3 && !r; k++) {
        long long p[3] = {f[0], f[1], f[2]};
        double va, vb;
        int differs = 0;
        if (f[k] < 0 || x->ch->parent[f[k]] == (size_t)-1)
            continue;
        p[k] = (long long)x->ch->parent[f[k]];
        if (pd_judge(x, p[0], p[1], p[2], &va, &vb, &differs) && differs)
            r = pd_reached(x, p[0], p[1], p[2]);
        if (r < 0)
            return r;
    }
    if (sp_trimap_put(&x->memo, f0, f1, f2, r ? 1 : 2))
        return -1;
    return r;
}

/* Depth of a path below its hierarchy's root. */
static int path_depth(const char *p)
{
    int d = 0;
    for (p++; *p; p++)
        d += *p == '/';
    return d;
}

int aa_space_perfdiff(aa_space *s, long long a, long long b, const aa_space_perfdiff_options *o,
                      aa_space_perfdiff_result *res, aa_err *err)
{
    aa_space_map m;
    ident_map im;
    pathset ps;
    pd_side A, B;
    children ch = {NULL, NULL, NULL};
    pd_ctx x;
    pd_visit *vis = NULL;
    size_t nvis = 0, vcap = 0, z, i;
    static const char *const roots[3] = {"/Code", "/Machine", "/Process"};
    int rc, k;

    memset(res, 0, sizeof *res);
    if ((rc = exec_exists(s, a, err)) != AA_OK || (rc = exec_exists(s, b, err)) != AA_OK)
        return rc;
    memset(&ps, 0, sizeof ps);
    sp_strmap_init(&ps.index);
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    sp_trimap_init(&A.foci);
    sp_trimap_init(&B.foci);
    memset(&x, 0, sizeof x);
    sp_trimap_init(&x.memo);
    memset(&im, 0, sizeof im);
    sp_strmap_init(&im.idx);
    rc = load_maps(s, o->extra, &m, err);
    if (rc == AA_OK) {
        sp_strmap_free(&im.idx);
        rc = load_identity(s, a, b, &im, err);
    }
    {
        /* Foci are shared: load the id range both executions use once. */
        long long lo_a = -1, hi_a = -1, lo_b = -1, hi_b = -1, lo, hi, *foci = NULL;
        if (rc == AA_OK)
            rc = focus_range(s, a, o->metric, &lo_a, &hi_a, err);
        if (rc == AA_OK)
            rc = focus_range(s, b, o->metric, &lo_b, &hi_b, err);
        lo = lo_a < lo_b ? lo_a : lo_b;
        hi = hi_a > hi_b ? hi_a : hi_b;
        if (rc == AA_OK)
            rc = load_foci(s, lo, (size_t)(hi - lo + 1), &foci, err);
        if (rc == AA_OK)
            rc = load_side(s, a, o->metric, NULL, &m, &ps, foci, lo, (size_t)(hi - lo + 1), &A,
                           err);
        if (rc == AA_OK)
            rc = load_side(s, b, o->metric, &im, &m, &ps, foci, lo, (size_t)(hi - lo + 1), &B,
                           err);
        free(foci);
    }
    if (rc == AA_OK) {
        sp_stmt *st;
        rc = OPS(s)->prepare(s->db, "SELECT unit FROM metrics WHERE name = ?", &st, err);
        if (rc == AA_OK) {
            OPS(s)->bind_text(st, 1, o->metric);
            res->unit = aa_strdup(OPS(s)->step(st, err) == 1 ? OPS(s)->col_text(st, 0) : "");
            OPS(s)->finalize(st);
        }
    }
    if (rc != AA_OK)
        goto out;
    if (build_children(&ps, &ch)) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    x.A = &A;
    x.B = &B;
    x.ch = &ch;
    x.o = o;
    for (k = 0; k < 3; k++)
        if (!sp_strmap_get(&ps.index, roots[k], &x.root[k]))
            x.root[k] = -3;
    /* Every focus common to both executions, compared once (no search: a
     * change below a parent that moved less than the threshold is found);
     * a differing one that the top-down search would not reach is hidden. */
    for (z = 0; z < A.foci.cap; z++) {
        const sp_trislot *t = &A.foci.slots[z];
        double va, vb;
        int differs = 0, reached = 1;
        if (t->a == INT32_MIN || !pd_judge(&x, t->a, t->b, t->c, &va, &vb, &differs))
            continue;
        res->compared++;
        if (differs) {
            res->ndiffering++;
            if ((reached = pd_reached(&x, t->a, t->b, t->c)) < 0) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
            res->nhidden += !reached;
        }
        if ((!differs && !o->exhaustive) || fabs(vb - va) < o->min_size)
            continue;
        if (nvis == vcap) {
            pd_visit *q = realloc(vis, (vcap = vcap ? vcap * 2 : 1024) * sizeof *q);
            if (!q) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
            vis = q;
        }
        vis[nvis].f[0] = t->a;
        vis[nvis].f[1] = t->b;
        vis[nvis].f[2] = t->c;
        vis[nvis].va = va;
        vis[nvis].vb = vb;
        vis[nvis].differs = differs;
        vis[nvis].hidden = differs && !reached;
        vis[nvis].key = size_key(vb - va);
        vis[nvis].level = path_depth(ps.paths[t->a]) + path_depth(ps.paths[t->b]) +
                          path_depth(ps.paths[t->c]);
        nvis++;
    }
    /* largest change first; equal ones root first, then by path */
    sort_paths = &ps;
    if (nvis)
        qsort(vis, nvis, sizeof *vis, cmp_visit);
    res->rows = calloc(nvis + 1, sizeof *res->rows);
    if (!res->rows) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    for (i = 0; i < nvis; i++) {
        const pd_visit *v = &vis[i];
        aa_space_difference *d = &res->rows[res->n++];
        for (k = 0; k < 3; k++)
            if (!(d->focus[k] = aa_strdup(ps.paths[v->f[k]]))) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
        d->a = v->va;
        d->b = v->vb;
        d->delta = v->vb - v->va;
        d->differs = v->differs;
        d->hidden = v->hidden;
    }
out:
    if (rc != AA_OK)
        aa_space_perfdiff_free(res);
    free(vis);
    free(ch.start);
    free(ch.list);
    free(ch.parent);
    sp_trimap_free(&x.memo);
    pd_side_free(&A);
    pd_side_free(&B);
    ident_free(&im);
    pathset_free(&ps);
    aa_space_map_free(&m);
    return rc;
}
