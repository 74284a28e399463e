/*
 * space/space_store.c -- storing one execution: the in-memory form of an
 * execution (sp_exec_data: SpaceMap attributes, resources by path name,
 * metrics, results at foci, findings) and the code that writes it inside
 * a write transaction: new resources with their closure-table rows, the
 * execution's resource set, shared foci (one resource per hierarchy) and
 * the results, all through bulk loads.  Ids are allocated under the write
 * lock, so concurrent writers never collide.
 */
#include "space/sp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sp_exec_data_init(sp_exec_data *d)
{
    memset(d, 0, sizeof *d);
    sp_strmap_init(&d->res_index);
}

static void free_strv(char **v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void sp_exec_data_free(sp_exec_data *d)
{
    size_t i, j;
    free(d->application);
    free(d->experiment);
    free(d->started);
    free_strv(d->attr_names, d->nattrs);
    free_strv(d->attr_values, d->nattrs);
    free_strv(d->res_path, d->nres);
    free_strv(d->res_type, d->nres);
    sp_strmap_free(&d->res_index);
    free_strv(d->metric_names, d->nmetrics);
    free_strv(d->metric_units, d->nmetrics);
    free(d->results);
    for (i = 0; i < d->nfindings; i++) {
        aa_space_finding *f = &d->findings[i];
        free((char *)f->kind);
        free((char *)f->region);
        free((char *)f->suggestion);
        for (j = 0; j < f->ncauses; j++)
            free(f->causes[j]);
        free((char **)f->causes);
        for (j = 0; j < f->ncontexts; j++)
            free(f->contexts[j]);
        free((char **)f->contexts);
    }
    free(d->findings);
    free(d->region_res);
    free(d->region_ids);
    free(d->document);
    memset(d, 0, sizeof *d);
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int sp_exec_data_attr(sp_exec_data *d, const char *name, const char *value)
{
    size_t i;
    for (i = 0; i < d->nattrs; i++)
        if (strcmp(d->attr_names[i], name) == 0) {
            char *v = aa_strdup(value);
            if (!v)
                return -1;
            free(d->attr_values[i]);
            d->attr_values[i] = v;
            return 0;
        }
    size_t cap = d->cap_attrs;
    if (grow((void **)&d->attr_names, &cap, d->nattrs, sizeof(char *)))
        return -1;
    cap = d->cap_attrs;
    if (grow((void **)&d->attr_values, &cap, d->nattrs, sizeof(char *)))
        return -1;
    d->cap_attrs = cap;
    d->attr_names[d->nattrs] = aa_strdup(name);
    d->attr_values[d->nattrs] = aa_strdup(value);
    d->nattrs++;
    return d->attr_names[d->nattrs - 1] && d->attr_values[d->nattrs - 1] ? 0 : -1;
}

int sp_path_valid(const char *path)
{
    const char *p;
    if (!path || path[0] != '/' || !path[1])
        return 0;
    for (p = path; *p; p++) {
        if (*p == '/' && (p[1] == '/' || p[1] == 0))
            return 0;
        if (*p == '\n' || *p == '\t')
            return 0;
    }
    return 1;
}

long sp_exec_data_resource(sp_exec_data *d, const char *path, const char *type)
{
    long long idx;
    const char *slash;
    size_t cap;
    if (sp_strmap_get(&d->res_index, path, &idx)) {
        if (strcmp(d->res_type[idx], "group") == 0 && strcmp(type, "group") != 0) {
            char *t = aa_strdup(type);
            if (!t)
                return -1;
            free(d->res_type[idx]);
            d->res_type[idx] = t;
        }
        return (long)idx;
    }
    if (!sp_path_valid(path))
        return -1;
    slash = strrchr(path, '/');
    if (slash != path) {
        char *parent = strndup(path, (size_t)(slash - path));
        long pi = parent ? sp_exec_data_resource(d, parent, "group") : -1;
        free(parent);
        if (pi < 0)
            return -1;
    }
    cap = d->cap_res;
    if (grow((void **)&d->res_path, &cap, d->nres, sizeof(char *)))
        return -1;
    cap = d->cap_res;
    if (grow((void **)&d->res_type, &cap, d->nres, sizeof(char *)))
        return -1;
    d->cap_res = cap;
    d->res_path[d->nres] = aa_strdup(path);
    d->res_type[d->nres] = aa_strdup(type);
    if (!d->res_path[d->nres] || !d->res_type[d->nres] ||
        sp_strmap_put(&d->res_index, path, (long long)d->nres))
        return -1;
    return (long)d->nres++;
}

long sp_exec_data_metric(sp_exec_data *d, const char *name, const char *unit)
{
    size_t i, cap;
    for (i = 0; i < d->nmetrics; i++)
        if (strcmp(d->metric_names[i], name) == 0)
            return (long)i;
    cap = d->cap_metrics;
    if (grow((void **)&d->metric_names, &cap, d->nmetrics, sizeof(char *)))
        return -1;
    cap = d->cap_metrics;
    if (grow((void **)&d->metric_units, &cap, d->nmetrics, sizeof(char *)))
        return -1;
    d->cap_metrics = cap;
    d->metric_names[d->nmetrics] = aa_strdup(name);
    d->metric_units[d->nmetrics] = aa_strdup(unit ? unit : "");
    return (long)d->nmetrics++;
}

int sp_exec_data_result(sp_exec_data *d, int metric, long code, long machine, long process,
                        double value)
{
    if (grow((void **)&d->results, &d->cap_results, d->nresults, sizeof *d->results))
        return -1;
    d->results[d->nresults].metric = metric;
    d->results[d->nresults].code = (int)code;
    d->results[d->nresults].machine = (int)machine;
    d->results[d->nresults].process = (int)process;
    d->results[d->nresults].value = value;
    d->nresults++;
    return 0;
}

int sp_exec_data_region_id(sp_exec_data *d, long res, long long id)
{
    if (d->nregion_ids == d->cap_region_ids) {
        size_t cap = d->cap_region_ids ? d->cap_region_ids * 2 : 64;
        long *r = realloc(d->region_res, cap * sizeof *r);
        long long *v;
        if (!r)
            return -1;
        d->region_res = r;
        if (!(v = realloc(d->region_ids, cap * sizeof *v)))
            return -1;
        d->region_ids = v;
        d->cap_region_ids = cap;
    }
    d->region_res[d->nregion_ids] = res;
    d->region_ids[d->nregion_ids++] = id;
    return 0;
}

int sp_exec_data_finding(sp_exec_data *d, const aa_space_finding *f)
{
    aa_space_finding *g;
    size_t j;
    if (grow((void **)&d->findings, &d->cap_findings, d->nfindings, sizeof *d->findings))
        return -1;
    g = &d->findings[d->nfindings++];
    memset(g, 0, sizeof *g);
    g->kind = aa_strdup(f->kind ? f->kind : "");
    g->region = aa_strdup(f->region ? f->region : "");
    g->suggestion = aa_strdup(f->suggestion ? f->suggestion : "");
    g->severity = f->severity;
    g->severity_class = f->severity_class;
    g->confidence = f->confidence;
    g->causes = calloc(f->ncauses ? f->ncauses : 1, sizeof(char *));
    if (!g->causes)
        return -1;
    for (j = 0; j < f->ncauses; j++)
        ((char **)g->causes)[j] = aa_strdup(f->causes[j]);
    g->ncauses = f->ncauses;
    g->impact_s = f->impact_s;
    g->run_share = f->run_share;
    if (!f->ncontexts)
        return 0;
    if (!(g->contexts = calloc(f->ncontexts, sizeof(char *))))
        return -1;
    for (j = 0; j < f->ncontexts; j++)
        if (!(((char **)g->contexts)[j] = aa_strdup(f->contexts[j])))
            return -1;
    g->ncontexts = f->ncontexts;
    return 0;
}

/* ---- storing ------------------------------------------------------------------ */
static int load_ids(sp_db *db, const char *sql, sp_strmap *m, long long *max, aa_err *err)
{
    sp_stmt *st;
    int rc = db->ops->prepare(db, sql, &st, err), r;
    if (rc != AA_OK)
        return rc;
    *max = 0;
    while ((r = db->ops->step(st, err)) == 1) {
        long long id = db->ops->col_int(st, 0);
        if (sp_strmap_put(m, db->ops->col_text(st, 1), id)) {
            r = -1;
            aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
        if (id > *max)
            *max = id;
    }
    db->ops->finalize(st);
    return r < 0 ? (err->code ? err->code : AA_EENV) : AA_OK;
}

static const char *last_component(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void fmt_ll(char *b, long long v) { snprintf(b, 24, "%lld", v); }

/* Runs a parameterized statement with text parameters (no result rows). */
static int run(sp_db *db, const char *sql, const char *const *p, int n, aa_err *err)
{
    sp_stmt *st;
    int rc = db->ops->prepare(db, sql, &st, err), i;
    if (rc != AA_OK)
        return rc;
    for (i = 0; i < n; i++)
        db->ops->bind_text(st, i + 1, p[i]);
    if (db->ops->step(st, err) < 0)
        rc = err->code ? err->code : AA_EENV;
    db->ops->finalize(st);
    return rc;
}

int sp_metric_conflict(aa_space *s, const sp_exec_data *d, long *which, char *unit, size_t n,
                       aa_err *err)
{
    sp_stmt *st;
    size_t i;
    int rc = AA_OK, r;
    *which = -1;
    for (i = 0; rc == AA_OK && i < d->nmetrics && *which < 0; i++) {
        rc = s->db->ops->prepare(s->db, "SELECT unit FROM metrics WHERE name = ?", &st, err);
        if (rc != AA_OK)
            break;
        s->db->ops->bind_text(st, 1, d->metric_names[i]);
        r = s->db->ops->step(st, err);
        if (r == 1 && strcmp(s->db->ops->col_text(st, 0), d->metric_units[i]) != 0) {
            *which = (long)i;
            snprintf(unit, n, "%s", s->db->ops->col_text(st, 0));
        }
        if (r < 0)
            rc = err->code ? err->code : AA_EENV;
        s->db->ops->finalize(st);
    }
    return rc;
}

int sp_store_execution(aa_space *s, const sp_exec_data *d, long long *eid_out, aa_err *err)
{
    sp_db *db = s->db;
    sp_strmap rmap, mmap;
    sp_trimap fmap;
    long long maxr, maxm, maxf = 0, appid, eid, *rid = NULL, *mid = NULL, *fid = NULL;
    char *isnew = NULL;
    size_t i, nnew = 0;
    int rc;
    char b1[24], b2[24], b3[24];

    sp_strmap_init(&rmap);
    sp_strmap_init(&mmap);
    sp_trimap_init(&fmap);
    rid = calloc(d->nres + 1, sizeof *rid);
    isnew = calloc(d->nres + 1, 1);
    mid = calloc(d->nmetrics + 1, sizeof *mid);
    fid = malloc((d->nresults + 1) * sizeof *fid);
    if (!rid || !isnew || !mid || !fid) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    /* Resources. */
    rc = load_ids(db, "SELECT id, path FROM resources", &rmap, &maxr, err);
    if (rc != AA_OK)
        goto out;
    for (i = 0; i < d->nres; i++)
        if (!sp_strmap_get(&rmap, d->res_path[i], &rid[i])) {
            rid[i] = ++maxr;
            isnew[i] = 1;
            nnew++;
        }
    if (nnew) {
        static const char *const cols[] = {"id", "path", "name", "type", "hierarchy", "parent"};
        static const char *const ccols[] = {"ancestor", "descendant", "depth"};
        rc = db->ops->bulk_begin(db, "resources", cols, 6, err);
        for (i = 0; rc == AA_OK && i < d->nres; i++) {
            const char *path = d->res_path[i];
            sp_val v[6];
            char hier[256], *slash;
            long long pi;
            if (!isnew[i])
                continue;
            snprintf(hier, sizeof hier, "%s", path + 1);
            if ((slash = strchr(hier, '/')))
                *slash = 0;
            v[0] = sp_int(rid[i]);
            v[1] = sp_txt(path);
            v[2] = sp_txt(last_component(path));
            v[3] = sp_txt(d->res_type[i]);
            v[4] = sp_txt(hier);
            v[5] = sp_txt(NULL);
            slash = strrchr(path, '/');
            if (slash != path) {
                char *parent = strndup(path, (size_t)(slash - path));
                if (parent && sp_strmap_get(&d->res_index, parent, &pi))
                    v[5] = sp_int(rid[pi]);
                free(parent);
            }
            rc = db->ops->bulk_row(db, v, err);
        }
        if (rc == AA_OK)
            rc = db->ops->bulk_end(db, err);
        if (rc == AA_OK)
            rc = db->ops->bulk_begin(db, "resource_closure", ccols, 3, err);
        for (i = 0; rc == AA_OK && i < d->nres; i++) {
            char *path;
            int depth = 0;
            if (!isnew[i])
                continue;
            path = aa_strdup(d->res_path[i]);
            for (;;) {
                long long pi;
                sp_val v[3];
                char *slash;
                if (!sp_strmap_get(&d->res_index, path, &pi))
                    break;
                v[0] = sp_int(rid[pi]);
                v[1] = sp_int(rid[i]);
                v[2] = sp_int(depth);
                rc = db->ops->bulk_row(db, v, err);
                if (rc != AA_OK)
                    break;
                slash = strrchr(path, '/');
                if (!slash || slash == path)
                    break;
                *slash = 0;
                depth++;
            }
            free(path);
        }
        if (rc == AA_OK)
            rc = db->ops->bulk_end(db, err);
        if (rc != AA_OK)
            goto out;
    }
    /* Metrics: one unit per name across the space. */
    {
        long which;
        char unit[128];
        rc = sp_metric_conflict(s, d, &which, unit, sizeof unit, err);
        if (rc == AA_OK && which >= 0)
            rc = aa_err_set(err, AA_EINPUT, "metric '%s' has unit '%s' here but '%s' in the space",
                            d->metric_names[which], d->metric_units[which], unit);
        if (rc != AA_OK)
            goto out;
    }
    rc = load_ids(db, "SELECT id, name FROM metrics", &mmap, &maxm, err);
    for (i = 0; rc == AA_OK && i < d->nmetrics; i++)
        if (!sp_strmap_get(&mmap, d->metric_names[i], &mid[i])) {
            const char *p[3];
            mid[i] = ++maxm;
            fmt_ll(b1, mid[i]);
            p[0] = b1;
            p[1] = d->metric_names[i];
            p[2] = d->metric_units[i];
            rc = run(db, "INSERT INTO metrics(id, name, unit) VALUES(?, ?, ?)", p, 3, err);
            if (rc == AA_OK)
                rc = sp_strmap_put(&mmap, d->metric_names[i], mid[i]) ? AA_EENV : AA_OK;
        }
    if (rc != AA_OK)
        goto out;
    /* Application and execution. */
    {
        const char *p[6];
        char now[32];
        p[0] = d->application;
        rc = sp_query_int(db, "SELECT id FROM applications WHERE name = ?", p, 1, -1, &appid, err);
        if (rc == AA_OK && appid < 0) {
            rc = sp_query_int(db, "SELECT MAX(id) FROM applications", NULL, 0, 0, &appid, err);
            appid++;
            fmt_ll(b1, appid);
            p[0] = b1;
            p[1] = d->application;
            if (rc == AA_OK)
                rc = run(db, "INSERT INTO applications(id, name) VALUES(?, ?)", p, 2, err);
        }
        if (rc == AA_OK)
            rc = sp_query_int(db, "SELECT MAX(eid) FROM executions", NULL, 0, 0, &eid, err);
        if (rc != AA_OK)
            goto out;
        eid++;
        sp_now_iso(now);
        fmt_ll(b1, eid);
        fmt_ll(b2, appid);
        fmt_ll(b3, d->nprocs);
        p[0] = b1;
        p[1] = b2;
        p[2] = d->experiment ? d->experiment : "";
        p[3] = d->started ? d->started : now;
        p[4] = b3;
        p[5] = now;
        rc = run(db,
                 "INSERT INTO executions(eid, app, experiment, started, nprocs, added)"
                 " VALUES(?, ?, ?, ?, ?, ?)",
                 p, 6, err);
        for (i = 0; rc == AA_OK && i < d->nattrs; i++) {
            p[1] = d->attr_names[i];
            p[2] = d->attr_values[i];
            rc = run(db, "INSERT INTO execution_attrs(eid, name, value) VALUES(?, ?, ?)", p, 3,
                     err);
        }
        if (rc != AA_OK)
            goto out;
    }
    {
        static const char *const cols[] = {"eid", "resource"};
        rc = db->ops->bulk_begin(db, "execution_resources", cols, 2, err);
        for (i = 0; rc == AA_OK && i < d->nres; i++) {
            sp_val v[2];
            v[0] = sp_int(eid);
            v[1] = sp_int(rid[i]);
            rc = db->ops->bulk_row(db, v, err);
        }
        if (rc == AA_OK)
            rc = db->ops->bulk_end(db, err);
        if (rc != AA_OK)
            goto out;
    }
    if (d->nregion_ids) {
        static const char *const cols[] = {"eid", "resource", "region"};
        sp_strmap done; /* one id per resource (the first region of a path) */
        sp_strmap_init(&done);
        rc = db->ops->bulk_begin(db, "execution_regions", cols, 3, err);
        for (i = 0; rc == AA_OK && i < d->nregion_ids; i++) {
            sp_val v[3];
            long long seen;
            const char *path = d->res_path[d->region_res[i]];
            if (sp_strmap_get(&done, path, &seen))
                continue;
            if (sp_strmap_put(&done, path, 1)) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            v[0] = sp_int(eid);
            v[1] = sp_int(rid[d->region_res[i]]);
            v[2] = sp_int(d->region_ids[i]);
            rc = db->ops->bulk_row(db, v, err);
        }
        if (rc == AA_OK)
            rc = db->ops->bulk_end(db, err);
        sp_strmap_free(&done);
        if (rc != AA_OK)
            goto out;
    }
    /* Foci: shared across executions, one resource per hierarchy. */
    if (d->nresults) {
        sp_stmt *st;
        int r;
        size_t firstnew;
        static const char *const cols[] = {"id", "code", "machine", "process"};
        rc = db->ops->prepare(db, "SELECT id, code, machine, process FROM foci", &st, err);
        if (rc != AA_OK)
            goto out;
        while ((r = db->ops->step(st, err)) == 1) {
            long long id = db->ops->col_int(st, 0);
            if (sp_trimap_put(&fmap, db->ops->col_int(st, 1), db->ops->col_int(st, 2),
                              db->ops->col_int(st, 3), id)) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            if (id > maxf)
                maxf = id;
        }
        db->ops->finalize(st);
        if (r < 0) {
            rc = err->code ? err->code : AA_EENV;
            goto out;
        }
        firstnew = (size_t)maxf;
        for (i = 0; i < d->nresults; i++) {
            const sp_result *x = &d->results[i];
            if (!sp_trimap_get(&fmap, rid[x->code], rid[x->machine], rid[x->process], &fid[i])) {
                fid[i] = ++maxf;
                if (sp_trimap_put(&fmap, rid[x->code], rid[x->machine], rid[x->process],
                                  fid[i])) {
                    rc = aa_err_set(err, AA_EENV, "out of memory");
                    goto out;
                }
            }
        }
        if ((size_t)maxf > firstnew) {
            /* Emit new foci in id order: the first result that used each. */
            long long next = (long long)firstnew + 1;
            rc = db->ops->bulk_begin(db, "foci", cols, 4, err);
            for (i = 0; rc == AA_OK && i < d->nresults; i++) {
                const sp_result *x = &d->results[i];
                sp_val v[4];
                if (fid[i] != next)
                    continue;
                next++;
                v[0] = sp_int(fid[i]);
                v[1] = sp_int(rid[x->code]);
                v[2] = sp_int(rid[x->machine]);
                v[3] = sp_int(rid[x->process]);
                rc = db->ops->bulk_row(db, v, err);
            }
            if (rc == AA_OK)
                rc = db->ops->bulk_end(db, err);
            if (rc != AA_OK)
                goto out;
        }
        {
            static const char *const rcols[] = {"eid", "metric", "focus", "value"};
            rc = db->ops->bulk_begin(db, "results", rcols, 4, err);
            for (i = 0; rc == AA_OK && i < d->nresults; i++) {
                sp_val v[4];
                if (d->fail_after_rows > 0 && (long)i >= d->fail_after_rows) {
                    rc = aa_err_set(err, AA_EENV, "import interrupted after %ld results (test)",
                                    d->fail_after_rows);
                    break;
                }
                v[0] = sp_int(eid);
                v[1] = sp_int(mid[d->results[i].metric]);
                v[2] = sp_int(fid[i]);
                v[3] = sp_dbl(d->results[i].value);
                rc = db->ops->bulk_row(db, v, err);
            }
            if (rc == AA_OK)
                rc = db->ops->bulk_end(db, err);
            if (rc != AA_OK)
                goto out;
        }
    }
    /* Findings, with their calling contexts. */
    for (i = 0; rc == AA_OK && i < d->nfindings; i++) {
        const aa_space_finding *f = &d->findings[i];
        aa_buf causes;
        char sev[32], conf[32], cls[24], seq[24], imp[32], share[32];
        const char *p[11];
        size_t j;
        aa_buf_init(&causes);
        for (j = 0; j < f->ncauses; j++)
            aa_buf_printf(&causes, "%s%s", j ? "," : "", f->causes[j]);
        fmt_ll(b1, eid);
        fmt_ll(seq, (long long)i + 1);
        fmt_ll(cls, f->severity_class);
        aa_format_double(sev, f->severity);
        aa_format_double(conf, f->confidence);
        p[0] = b1;
        p[1] = seq;
        p[2] = f->kind;
        p[3] = f->region;
        p[4] = sev;
        p[5] = cls;
        p[6] = conf;
        p[7] = causes.data ? causes.data : "";
        p[8] = f->suggestion ? f->suggestion : "";
        p[9] = isfinite(f->impact_s) ? (aa_format_double(imp, f->impact_s), imp) : NULL;
        p[10] = isfinite(f->run_share) ? (aa_format_double(share, f->run_share), share) : NULL;
        rc = run(db,
                 "INSERT INTO findings(eid, seq, kind, region, severity, severity_class,"
                 " confidence, causes, suggestion, impact, run_share)"
                 " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 p, 11, err);
        aa_buf_free(&causes);
        for (j = 0; rc == AA_OK && j < f->ncontexts; j++) {
            char idx[24];
            fmt_ll(idx, (long long)j);
            p[2] = idx;
            p[3] = f->contexts[j];
            rc = run(db, "INSERT INTO finding_contexts(eid, seq, idx, caller) VALUES(?, ?, ?, ?)",
                     p, 4, err);
        }
    }
    /* The experiment document, for analysing the execution later. */
    if (rc == AA_OK && d->document) {
        char sz[24];
        const char *p[4];
        fmt_ll(b1, eid);
        fmt_ll(sz, (long long)d->document_size);
        p[0] = b1;
        p[1] = SP_DOC_ENCODING;
        p[2] = sz;
        p[3] = d->document;
        rc = run(db, "INSERT INTO experiment_documents(eid, encoding, size, body)"
                     " VALUES(?, ?, ?, ?)", p, 4, err);
    }
    if (rc == AA_OK)
        *eid_out = eid;
out:
    sp_strmap_free(&rmap);
    sp_strmap_free(&mmap);
    sp_trimap_free(&fmap);
    free(rid);
    free(isnew);
    free(mid);
    free(fid);
    return rc;
}
