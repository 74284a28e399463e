/*
 * engine/history.c -- the history-guided analysis' input from the Program
 * Space (Karavanic's directives): the prunes stored for the configuration
 * and its application, expanded to the regions of the experiment they
 * cover; the priorities, i.e. the regions of the findings stored with the
 * latest good runs of the configuration; and their run-to-run noise.  The
 * analysis (analyze/history.c) applies them.
 */
#include "engine/engine_internal.h"

#include <stdlib.h>
#include <string.h>

void aa_engine_history_free(aa_engine_history *h)
{
    free(h->source);
    free(h->prunes);
    aa_space_prunes_free(h->stored, h->nstored);
    free(h->priorities);
    aa_engine_noise_free(&h->noise);
    memset(h, 0, sizeof *h);
}

/* path is root or below it */
static int under(const char *path, const char *root)
{
    size_t n = strlen(root);
    return path && strncmp(path, root, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* The regions of e each stored prune covers. */
static int expand_prunes(aa_engine_history *h, const aa_experiment *e, aa_err *err)
{
    char **paths = aa_space_code_paths(e);
    size_t i, k, j;
    if (!paths || !(h->prunes = calloc(h->nstored * e->nregions + 1, sizeof *h->prunes))) {
        if (paths)
            aa_space_free_strings(paths, e->nregions);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (k = 0; k < h->nstored; k++) {
        const aa_space_prune *p = &h->stored[k];
        for (i = 0; i < e->nregions; i++) {
            int covered = under(paths[i], p->resource);
            /* below the region that has the pruned one's id here (moved lines) */
            for (j = 0; !covered && p->region_id >= 0 && j < e->nregions; j++)
                covered = (long long)e->regions[j].id == p->region_id && under(paths[i], paths[j]);
            if (!covered)
                continue;
            h->prunes[h->h.nprunes].region_id = e->regions[i].id;
            h->prunes[h->h.nprunes].resource = p->resource;
            h->prunes[h->h.nprunes].reason = p->reason;
            h->h.nprunes++;
        }
    }
    aa_space_free_strings(paths, e->nregions);
    h->h.prunes = h->prunes;
    return AA_OK;
}

static int load_prunes(aa_space *s, aa_engine_history *h, const char *name, const char *program,
                       aa_err *err)
{
    const char *who[2] = {name, program};
    int k, rc;
    for (k = 0; k < 2; k++) {
        aa_space_prune *v = NULL, *q;
        size_t n = 0;
        if (!who[k] || (k == 1 && name && strcmp(name, program) == 0))
            continue;
        if ((rc = aa_space_prunes(s, who[k], &v, &n, err)))
            return rc;
        q = n ? realloc(h->stored, (h->nstored + n) * sizeof *q) : h->stored;
        if (n && !q) {
            aa_space_prunes_free(v, n);
            return aa_err_set(err, AA_EENV, "out of memory");
        }
        if (n) {
            memcpy(q + h->nstored, v, n * sizeof *q);
            h->stored = q;
            h->nstored += n;
        }
        free(v); /* the strings moved to h->stored */
    }
    return AA_OK;
}

static int good_run(const aa_space_execution *x, const aa_experiment *self)
{
    const char *st = aa_space_execution_attr(x, "exit_status");
    if (self && self->id && x->experiment && strcmp(self->id, x->experiment) == 0)
        return 0;
    return !(st && strcmp(st, "0") != 0) && !aa_space_execution_attr(x, "missing_ranks");
}

static int add_priority(aa_engine_history *h, size_t *cap, uint32_t id)
{
    size_t i;
    for (i = 0; i < h->h.npriorities; i++)
        if (h->priorities[i].region_id == id) {
            h->priorities[i].nruns++;
            return 0;
        }
    if (h->h.npriorities == *cap) {
        aa_analyze_priority *q = realloc(h->priorities, (*cap = *cap ? *cap * 2 : 16) * sizeof *q);
        if (!q)
            return -1;
        h->priorities = q;
    }
    h->priorities[h->h.npriorities].region_id = id;
    h->priorities[h->h.npriorities++].nruns = 1;
    return 0;
}

/* Priorities from the findings of the latest good runs (each region once
 * per run) of the configuration: attribute name = *name, or, without a
 * name or when no execution has it, application = *program (then *name is
 * set to NULL and *program to the application); *self_eid: the stored
 * execution of e itself, -1 none. */
static int load_priorities(aa_space *s, aa_engine_history *h, const char **name,
                           const char **program, const aa_experiment *e, long long *self_eid,
                           aa_err *err)
{
    aa_space_execution *v = NULL;
    const char *keys[1], *vals[1];
    aa_space_where w;
    size_t n = 0, i, cap = 0;
    int rc;
    *self_eid = -1;
    keys[0] = *name ? "name" : "application";
    vals[0] = *name ? *name : *program;
    w.n = vals[0] ? 1 : 0;
    w.keys = keys;
    w.values = vals;
    rc = aa_space_executions(s, &w, &v, &n, err);
    if (rc == AA_OK && !n && *name) {
        *program = *name;
        *name = NULL;
        keys[0] = "application";
        rc = aa_space_executions(s, &w, &v, &n, err);
    }
    h->nexecutions = n;
    for (i = n; rc == AA_OK && i-- > 0 && h->h.npriority_runs < AA_ENGINE_NOISE_RUNS;) {
        aa_space_finding *f = NULL;
        size_t nf = 0, k, j;
        if (e->id && v[i].experiment && strcmp(e->id, v[i].experiment) == 0 && *self_eid < 0)
            *self_eid = v[i].eid;
        if (!good_run(&v[i], e))
            continue;
        if ((rc = aa_space_findings_of(s, v[i].eid, &f, &nf, err)))
            break;
        for (k = 0; rc == AA_OK && k < nf; k++) {
            for (j = 0; j < k; j++) /* once per run */
                if (f[j].region_id == f[k].region_id)
                    break;
            if (j == k && f[k].region_id >= 0 && add_priority(h, &cap, (uint32_t)f[k].region_id))
                rc = aa_err_set(err, AA_EENV, "out of memory");
        }
        aa_space_findings_free(f, nf);
        h->priority_runs[h->h.npriority_runs++] = v[i].eid;
    }
    aa_space_executions_free(v, n);
    h->h.priorities = h->priorities;
    h->h.priority_runs = h->priority_runs;
    return rc;
}

int aa_engine_history_load(const char *db, const char *name, const char *program,
                           const aa_experiment *e, aa_engine_history *h, aa_err *err)
{
    aa_space *s = NULL;
    long long self_eid = -1;
    aa_buf b;
    int rc;
    memset(h, 0, sizeof *h);
    if (!program)
        program = e->program;
    /* no Program Space yet: no history (and none created) */
    if ((rc = aa_space_open_existing(db, &s, err)) == AA_EINPUT) {
        aa_err_clear(err);
        return AA_OK;
    }
    if (rc)
        return rc;
    h->found = 1;
    rc = load_prunes(s, h, name, program, err);
    if (rc == AA_OK)
        rc = expand_prunes(h, e, err);
    if (rc == AA_OK) {
        const char *by_name = name, *by_app = program;
        rc = load_priorities(s, h, &by_name, &by_app, e, &self_eid, err);
        if (rc == AA_OK)
            rc = aa_engine_learn_noise(db, by_name, by_name ? NULL : by_app, "cpu", self_eid,
                                       &h->noise, err);
    }
    aa_space_close(s);
    if (rc == AA_OK) {
        h->h.nnoise = h->noise.n;
        h->h.noise_ids = h->noise.region_ids;
        h->h.noise_spread = h->noise.spread;
        h->h.nnoise_runs = h->noise.n ? h->noise.nruns : 0;
        h->h.noise_runs = h->noise.eids;
        h->h.noise_factor = AA_ENGINE_NOISE_FACTOR;
        const char *loc = db ? db : getenv("AUTOANALYZER_DB");
        aa_buf_init(&b);
        aa_buf_printf(&b, "Program Space %s, %s", loc ? loc : AA_SPACE_DEFAULT_DB,
                      name ? name : program ? program : "?");
        h->source = aa_buf_detach(&b);
        h->h.source = h->source;
    }
    if (rc != AA_OK)
        aa_engine_history_free(h);
    return rc;
}
