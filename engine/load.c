/*
 * engine/load.c -- where the engine's experiments come from and go to:
 * one loader for experiment files and directories of rank profiles (merged
 * by the collect library), loading a stored execution back from the
 * Program Space, the one mapping of an analysis' findings to Program Space
 * records, storing a run, choosing the last comparable run through the
 * Space (never a failed or incomplete one), learning each region's
 * run-to-run noise from the stored runs, and comparing with a baseline.
 */
#include "engine/engine_internal.h"

#include "collect/aa_collect.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int en_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *en_absolute(const char *p)
{
    char cwd[PATH_MAX];
    aa_buf b;
    if (p[0] == '/')
        return aa_strdup(p);
    if (!getcwd(cwd, sizeof cwd))
        return aa_strdup(p);
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/%s", cwd, strncmp(p, "./", 2) == 0 ? p + 2 : p);
    return aa_buf_detach(&b);
}

void en_note(aa_engine_result *r, const char *fmt, ...)
{
    aa_buf b;
    va_list ap;
    char line[1024];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s%s\n", r->notes ? r->notes : "", line);
    free(r->notes);
    r->notes = aa_buf_detach(&b);
}

void aa_engine_result_init(aa_engine_result *r)
{
    memset(r, 0, sizeof *r);
    r->eid = -1;
    r->base_eid = -1;
}

void aa_engine_result_free(aa_engine_result *r)
{
    aa_report_comparison_free(r->cmp);
    if (r->base_an)
        aa_analyze_free(r->base_an);
    if (r->base_exp)
        aa_experiment_free(r->base_exp);
    if (r->an)
        aa_analyze_free(r->an);
    if (r->exp)
        aa_experiment_free(r->exp);
    free(r->dir);
    free(r->report_path);
    free(r->base_label);
    free(r->notes);
    aa_engine_noise_free(&r->noise);
    aa_engine_result_init(r);
}

/* ---- loading ------------------------------------------------------------------- */

int en_has_profiles(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        if (!strcmp(de->d_name, "experiment.xml") || !strcmp(de->d_name, "experiment.aab") ||
            (strncmp(de->d_name, "rank-", 5) == 0 &&
             (strstr(de->d_name, ".xml") || strstr(de->d_name, ".aab"))))
            found |= strstr(de->d_name, ".aab") ? 2 : 1;
    closedir(d);
    return found;
}

static int load_dir(const char *path, aa_experiment **e, char **note, char **missing,
                    aa_err *err)
{
    aa_collect_report rep;
    int rc;
    memset(&rep, 0, sizeof rep);
    rc = aa_collect_dir(path, e, &rep, err);
    if (rc == AA_OK && rep.nmissing) {
        aa_buf m, b;
        aa_buf_init(&m);
        aa_buf_init(&b);
        aa_collect_format_ranks(&m, rep.missing, rep.nmissing);
        aa_buf_printf(&b, "%zu of %d ranks have no profile in %s (missing: %s)", rep.nmissing,
                      rep.nprocs, path, m.data ? m.data : "");
        if (note)
            *note = aa_buf_detach(&b);
        if (missing)
            *missing = aa_buf_detach(&m);
        aa_buf_free(&m);
        aa_buf_free(&b);
    }
    aa_collect_report_free(&rep);
    return rc;
}

int aa_engine_load(const char *path, aa_experiment **e, char **dir, char **note,
                   char **missing, aa_err *err)
{
    struct stat st;
    int rc;
    *e = NULL;
    if (dir)
        *dir = NULL;
    if (note)
        *note = NULL;
    if (missing)
        *missing = NULL;
    /* a path that is not there is the input's mistake (exit 3), like a
     * malformed file; other failures to look at it are the environment's */
    if (stat(path, &st) != 0)
        return aa_err_set(err, errno == ENOENT || errno == ENOTDIR ? AA_EINPUT : AA_EENV,
                          "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        if ((rc = load_dir(path, e, note, missing, err)) == AA_OK && dir)
            *dir = en_absolute(path);
        return rc;
    }
    rc = aa_experiment_read(path, e, err);
    if (rc == AA_OK && dir) {
        char *abs = en_absolute(path), *slash = strrchr(abs, '/');
        if (slash && slash != abs)
            *slash = '\0';
        *dir = abs;
    }
    return rc;
}

static int find_execution(aa_space *s, long long eid, aa_space_execution **v, size_t *n,
                          const aa_space_execution **x, aa_err *err)
{
    size_t i;
    int rc = aa_space_executions(s, NULL, v, n, err);
    *x = NULL;
    if (rc != AA_OK)
        return rc;
    for (i = 0; i < *n; i++)
        if ((*v)[i].eid == eid)
            *x = &(*v)[i];
    if (!*x)
        return aa_err_set(err, AA_EINPUT, "unknown execution %lld", eid);
    return AA_OK;
}

int aa_engine_load_stored(const char *db, long long eid, aa_experiment **e, char **dirp,
                          aa_err *err)
{
    aa_space *s = NULL;
    aa_space_execution *v = NULL;
    const aa_space_execution *x;
    size_t n = 0;
    int rc;
    *e = NULL;
    if (dirp)
        *dirp = NULL;
    if ((rc = aa_space_open_existing(db, &s, err)))
        return rc;
    rc = find_execution(s, eid, &v, &n, &x, err);
    if (rc == AA_OK) {
        const char *dir = aa_space_execution_attr(x, "experiment_dir");
        if (x->has_document || !dir || !en_is_dir(dir))
            rc = aa_space_load_experiment(s, eid, e, err);
        else
            rc = aa_engine_load(dir, e, NULL, NULL, NULL, err);
        if (rc == AA_OK && dirp && dir)
            *dirp = aa_strdup(dir);
    }
    aa_space_executions_free(v, n);
    aa_space_close(s);
    return rc;
}

int aa_engine_analyze(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **a,
                      aa_err *err)
{
    aa_analyze_options defo;
    if (!o) {
        aa_analyze_options_init(&defo);
        o = &defo;
    }
    return aa_analyze_run(e, o, a, err);
}

/* ---- the Program Space ------------------------------------------------------------ */

void aa_engine_findings_free(aa_space_finding *f, size_t n)
{
    size_t i, k;
    for (i = 0; f && i < n; i++) {
        free((char *)f[i].region);
        for (k = 0; k < f[i].ncontexts; k++)
            free(f[i].contexts[k]);
        free((char **)f[i].contexts);
    }
    free(f);
}

/* The /Code paths of the callers that tell finding f's calling contexts
 * apart (aa_analysis_caller; the context's own where none does) into g
 * (none when it stands at one); -1 on no memory. */
static int finding_context_paths(const aa_analysis *an, const aa_experiment *e,
                                 char *const *paths, const aa_finding *f, aa_space_finding *g)
{
    char **c;
    size_t k;
    if (f->ncontexts < 2)
        return 0;
    if (!(c = calloc(f->ncontexts, sizeof *c)))
        return -1;
    g->contexts = c;
    for (k = 0; k < f->ncontexts; k++) {
        long cx = f->contexts[k] < an->nregions ? aa_analysis_caller(an, f->contexts[k]) : -1;
        size_t x = cx > 0 ? (size_t)cx : f->contexts[k];
        const aa_region *info = x < an->nregions ? an->regions[x].info : NULL;
        const aa_region *r = info ? aa_experiment_region(e, info->id) : NULL;
        if (r && !(c[g->ncontexts++] = aa_strdup(paths[r - e->regions])))
            return -1;
    }
    return 0;
}

int aa_engine_findings(const aa_analysis *an, const aa_experiment *e, aa_space_finding **out,
                       size_t *n, aa_err *err)
{
    char **paths = aa_space_code_paths(e);
    size_t i;
    *out = calloc(an->nfindings + 1, sizeof **out);
    *n = 0;
    if (!*out || !paths) {
        free(*out);
        *out = NULL;
        if (paths)
            aa_space_free_strings(paths, e->nregions);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (i = 0; i < an->nfindings; i++) {
        const aa_finding *f = &an->findings[i];
        const aa_region *info = f->region < an->nregions ? an->regions[f->region].info : NULL;
        const aa_region *r = info ? aa_experiment_region(e, info->id) : NULL;
        aa_space_finding *g;
        if (!r)
            continue;
        g = &(*out)[(*n)++];
        g->kind = aa_finding_kind_name(f->kind);
        g->region = aa_strdup(paths[r - e->regions]);
        g->severity = f->severity;
        g->severity_class = f->severity_class;
        g->confidence = f->confidence;
        g->ncauses = f->ncauses;
        g->causes = f->causes;
        g->suggestion = f->suggestion;
        g->region_id = r->id;
        g->impact_s = f->impact_s;
        g->run_share = f->run_share;
        if (finding_context_paths(an, e, paths, f, g)) {
            aa_space_free_strings(paths, e->nregions);
            aa_engine_findings_free(*out, *n);
            *out = NULL;
            *n = 0;
            return aa_err_set(err, AA_EENV, "out of memory");
        }
    }
    aa_space_free_strings(paths, e->nregions);
    return AA_OK;
}

int aa_engine_store(aa_engine_result *r, const char *db, aa_err *err)
{
    aa_space *s = NULL;
    aa_space_add_options o;
    aa_space_finding *f = NULL;
    size_t nf = 0;
    int rc;
    r->eid = -1;
    if ((rc = aa_engine_findings(r->an, r->exp, &f, &nf, err)))
        return rc;
    memset(&o, 0, sizeof o);
    o.nfindings = nf;
    o.findings = f;
    rc = aa_space_open(db, &s, err);
    if (rc == AA_OK) {
        rc = aa_space_add(s, r->exp, &o, &r->eid, err);
        aa_space_close(s);
    }
    aa_engine_findings_free(f, nf);
    return rc;
}

int aa_engine_refine_from_space(const char *db, const char *name, uint32_t **ids, size_t *n,
                                long long *eid, aa_err *err)
{
    static const char *const by[2] = {"name", "application"};
    aa_space *s = NULL;
    aa_space_finding *f = NULL;
    size_t nf = 0, i, k;
    int rc, t;
    *ids = NULL;
    *n = 0;
    *eid = -1;
    if ((rc = aa_space_open_existing(db, &s, err)))
        return rc;
    for (t = 0; t < 2 && rc == AA_OK && *eid < 0; t++) {
        const char *keys[1] = {by[t]}, *vals[1] = {name};
        aa_space_where w = {1, keys, vals};
        long long e = 0;
        rc = aa_space_latest_findings(s, &w, &e, &f, &nf, err);
        if (rc == AA_OK && e > 0)
            *eid = e;
        else if (rc == AA_OK)
            aa_space_findings_free(f, nf), f = NULL, nf = 0;
    }
    aa_space_close(s);
    if (rc == AA_OK && !(*ids = calloc(nf + 1, sizeof **ids)))
        rc = aa_err_set(err, AA_EENV, "out of memory");
    for (i = 0; rc == AA_OK && i < nf; i++) {
        if (f[i].region_id < 0 || f[i].region_id > (long long)UINT32_MAX)
            continue;
        for (k = 0; k < *n && (*ids)[k] != (uint32_t)f[i].region_id; k++)
            ;
        if (k == *n)
            (*ids)[(*n)++] = (uint32_t)f[i].region_id;
    }
    aa_space_findings_free(f, nf);
    return rc;
}

/* A failed or incomplete run, the run itself, or one whose experiment is
 * gone cannot be a baseline. */
static int usable_baseline(const aa_space_execution *x, const aa_experiment *self,
                           const char *self_dir)
{
    const char *st = aa_space_execution_attr(x, "exit_status");
    const char *dir = aa_space_execution_attr(x, "experiment_dir");
    if (st && strcmp(st, "0") != 0)
        return 0;
    if (aa_space_execution_attr(x, "missing_ranks"))
        return 0;
    if (self_dir && dir && strcmp(dir, self_dir) == 0)
        return 0;
    if (self && self->id && x->experiment && strcmp(self->id, x->experiment) == 0)
        return 0;
    return x->has_document || (dir && en_is_dir(dir));
}

int aa_engine_find_last(const char *db, const char *name, const char *program,
                        const aa_experiment *self, const char *self_dir, long long *eid,
                        aa_err *err)
{
    aa_space *s = NULL;
    aa_space_execution *v = NULL;
    const char *keys[1], *vals[1];
    aa_space_where w;
    size_t n = 0, i;
    int rc;
    *eid = -1;
    if ((rc = aa_space_open(db, &s, err)))
        return rc;
    keys[0] = name ? "name" : "application";
    vals[0] = name ? name : program;
    w.n = vals[0] ? 1 : 0;
    w.keys = keys;
    w.values = vals;
    rc = aa_space_executions(s, &w, &v, &n, err);
    aa_space_close(s);
    for (i = n; rc == AA_OK && i-- > 0;)
        if (usable_baseline(&v[i], self, self_dir)) {
            *eid = v[i].eid;
            break;
        }
    aa_space_executions_free(v, n);
    return rc;
}

void aa_engine_noise_free(aa_engine_noise *nz)
{
    free(nz->region_ids);
    free(nz->spread);
    memset(nz, 0, sizeof *nz);
}

double aa_engine_noise_of(const aa_engine_noise *nz, uint32_t region_id)
{
    size_t i;
    for (i = 0; nz && i < nz->n; i++)
        if (nz->region_ids[i] == region_id)
            return nz->spread[i];
    return NAN;
}

/* Per region id of the runs learned from: the mean per process in each. */
typedef struct noise_acc {
    uint32_t id;
    size_t k;
    double v[AA_ENGINE_NOISE_RUNS];
} noise_acc;

static noise_acc *acc_find(noise_acc **a, size_t *n, size_t *cap, uint32_t id)
{
    size_t i;
    for (i = 0; i < *n; i++)
        if ((*a)[i].id == id)
            return &(*a)[i];
    if (*n == *cap) {
        noise_acc *q = realloc(*a, (*cap = *cap ? *cap * 2 : 64) * sizeof *q);
        if (!q)
            return NULL;
        *a = q;
    }
    memset(&(*a)[*n], 0, sizeof **a);
    (*a)[*n].id = id;
    return &(*a)[(*n)++];
}

int aa_engine_learn_noise(const char *db, const char *name, const char *program,
                          const char *metric, long long exclude_eid, aa_engine_noise *nz,
                          aa_err *err)
{
    aa_space *s = NULL;
    aa_space_execution *v = NULL;
    const char *keys[1], *vals[1];
    aa_space_where w;
    noise_acc *acc = NULL;
    size_t n = 0, i, nacc = 0, cap = 0;
    int rc;
    memset(nz, 0, sizeof *nz);
    /* no Program Space yet: no history (and none created) */
    if ((rc = aa_space_open_existing(db, &s, err)) == AA_EINPUT) {
        aa_err_clear(err);
        return AA_OK;
    }
    if (rc)
        return rc;
    keys[0] = name ? "name" : "application";
    vals[0] = name ? name : program;
    w.n = vals[0] ? 1 : 0;
    w.keys = keys;
    w.values = vals;
    rc = aa_space_executions(s, &w, &v, &n, err);
    for (i = n; rc == AA_OK && i-- > 0 && nz->nruns < AA_ENGINE_NOISE_RUNS;) {
        const char *st = aa_space_execution_attr(&v[i], "exit_status");
        aa_space_region_value *rv = NULL;
        size_t nrv = 0, k;
        if (v[i].eid == exclude_eid || (st && strcmp(st, "0") != 0) ||
            aa_space_execution_attr(&v[i], "missing_ranks") || v[i].nprocs < 1)
            continue;
        if ((rc = aa_space_region_values(s, v[i].eid, metric ? metric : "wall", &rv, &nrv, err)))
            break;
        for (k = 0; k < nrv; k++) {
            noise_acc *x = acc_find(&acc, &nacc, &cap, rv[k].region_id);
            if (!x) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            x->v[x->k++] = rv[k].value / (double)v[i].nprocs;
        }
        free(rv);
        nz->eids[nz->nruns++] = v[i].eid;
    }
    aa_space_executions_free(v, n);
    aa_space_close(s);
    if (rc == AA_OK && nz->nruns >= AA_ENGINE_NOISE_MIN_RUNS) {
        nz->region_ids = calloc(nacc + 1, sizeof *nz->region_ids);
        nz->spread = calloc(nacc + 1, sizeof *nz->spread);
        if (!nz->region_ids || !nz->spread)
            rc = aa_err_set(err, AA_EENV, "out of memory");
        for (i = 0; rc == AA_OK && i < nacc; i++) {
            double mean = 0, ss = 0;
            size_t k;
            if (acc[i].k < AA_ENGINE_NOISE_MIN_RUNS)
                continue;
            for (k = 0; k < acc[i].k; k++)
                mean += acc[i].v[k];
            mean /= (double)acc[i].k;
            if (!(mean > 0))
                continue;
            for (k = 0; k < acc[i].k; k++)
                ss += (acc[i].v[k] - mean) * (acc[i].v[k] - mean);
            nz->region_ids[nz->n] = acc[i].id;
            nz->spread[nz->n++] = sqrt(ss / (double)(acc[i].k - 1)) / mean;
        }
    }
    free(acc);
    if (rc != AA_OK)
        aa_engine_noise_free(nz);
    return rc;
}

int aa_engine_compare_history(aa_engine_result *r, const char *db, const char *name,
                              const char *program, long long exclude_eid, double factor,
                              aa_err *err)
{
    aa_engine_noise nz;
    aa_buf b;
    size_t i, known = 0, within = 0;
    int rc;
    if (!r->cmp)
        return AA_OK;
    if (!(factor > 0))
        factor = AA_ENGINE_NOISE_FACTOR;
    if ((rc = aa_engine_learn_noise(db, name, program, "wall", exclude_eid, &nz, err)))
        return rc;
    aa_engine_noise_free(&r->noise);
    for (i = 0; i < r->cmp->ndiffs; i++) {
        aa_report_diff *d = &r->cmp->diffs[i];
        double sp = aa_engine_noise_of(&nz, d->region_id);
        if (isnan(sp))
            continue;
        known++;
        d->noise = sp;
        d->within_noise = !d->partial && isfinite(d->relative) &&
                          fabs(d->relative) <= factor * sp;
        within += (size_t)d->within_noise;
    }
    aa_buf_init(&b);
    if (nz.n) {
        aa_buf_printf(&b, "run-to-run noise of %zu region%s learned from %zu stored runs of %s (",
                      nz.n, nz.n == 1 ? "" : "s", nz.nruns, name ? name : program);
        for (i = 0; i < nz.nruns; i++)
            aa_buf_printf(&b, "%s%lld", i ? ", " : "EIDs ", nz.eids[i]);
        aa_buf_printf(&b, "); %zu of the %zu region differences lie within %g times their "
                          "noise and count as no change",
                      within, known, factor);
    } else {
        aa_buf_printf(&b, "no run-to-run noise known: %zu good stored run%s of %s, %d needed",
                      nz.nruns, nz.nruns == 1 ? "" : "s", name ? name : program,
                      AA_ENGINE_NOISE_MIN_RUNS);
    }
    free(r->cmp->history);
    r->cmp->history = aa_buf_detach(&b);
    r->noise = nz; /* kept for the nightly gates */
    return r->cmp->history ? AA_OK : aa_err_set(err, AA_EENV, "out of memory");
}

/* ---- comparing ------------------------------------------------------------------- */

int aa_engine_compare(aa_engine_result *r, aa_experiment *base, const char *label,
                      const aa_analyze_options *o, aa_err *err)
{
    int rc;
    r->base_exp = base;
    if ((rc = aa_engine_analyze(r->base_exp, o, &r->base_an, err))) {
        aa_err_prefix(err, "baseline");
        return rc;
    }
    free(r->base_label);
    if (!label) {
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "baseline experiment %s", base->id ? base->id : "?");
        r->base_label = aa_buf_detach(&b);
    } else {
        r->base_label = aa_strdup(label);
    }
    return aa_report_compare(r->an, r->base_an, r->base_label, &r->cmp, err);
}

int aa_engine_compare_path(aa_engine_result *r, const char *path, const aa_analyze_options *o,
                           aa_err *err)
{
    aa_experiment *base = NULL;
    aa_buf b;
    int rc;
    if ((rc = aa_engine_load(path, &base, NULL, NULL, NULL, err))) {
        aa_err_prefix(err, "baseline");
        return rc;
    }
    aa_buf_init(&b);
    aa_buf_printf(&b, "baseline experiment %s (%s)", base->id ? base->id : "?", path);
    rc = aa_engine_compare(r, base, b.data, o, err);
    aa_buf_free(&b);
    return rc;
}

int aa_engine_compare_stored(aa_engine_result *r, const char *db, long long eid,
                             const aa_analyze_options *o, aa_err *err)
{
    aa_experiment *base = NULL;
    char *dir = NULL;
    aa_buf b;
    int rc;
    if ((rc = aa_engine_load_stored(db, eid, &base, &dir, err))) {
        aa_err_prefix(err, "baseline");
        return rc;
    }
    aa_buf_init(&b);
    if (dir)
        aa_buf_printf(&b, "stored run %lld (%s)", eid, dir);
    else
        aa_buf_printf(&b, "stored run %lld", eid);
    r->base_eid = eid;
    rc = aa_engine_compare(r, base, b.data, o, err);
    aa_buf_free(&b);
    free(dir);
    return rc;
}
