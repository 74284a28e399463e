/*
 * analyze/analyze.c -- the offline analysis of SPEC §5.
 *
 * 1. Region tree: the calling-context nodes of every thread of every
 *    analysed process are merged into one tree whose nodes are identified by
 *    their path of static region ids (threads of a process are summed).
 * 2. Dissimilarity (§5.1, §5.3): per-process vectors of the main metric (CPU
 *    time outside MPI, or wall time outside MPI) over the regions of one tree
 *    level, clustered with OPTICS; CCR tests by removing a component and by
 *    clustering a component alone; recursion into the children of CCRs.
 * 3. Disparity (§5.2, §5.3): CRNM (or CPI, or wall fraction) averaged over
 *    processes, 5 severity classes by exact 1-D k-means, CCR/CCCR.
 * 4. Root causes (§5.4): one dissimilarity decision table per dissimilarity
 *    CCCR and one disparity table, analysed with roughset/.
 * Values are inclusive (every metric except wall_excl is recorded inclusive);
 * see docs/analysis.md for the exact definitions.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"
#include "roughset/aa_roughset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int an_strlist_add(char ***list, size_t *n, const char *s)
{
    char **nl = realloc(*list, (*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (!(nl[*n] = aa_strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

void an_strlist_free(char **list, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int an_nomem(an_ctx *c)
{
    return aa_err_set(c->err, AA_EENV, "analyze: out of memory");
}

int an_note(an_ctx *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return an_strlist_add(&c->a->notes, &c->a->nnotes, buf) ? an_nomem(c) : AA_OK;
}

static int run(an_ctx *c)
{
    const aa_experiment *e = c->e;
    const aa_analyze_options *o = c->o;
    aa_analysis *a = c->a;
    size_t p, q, r, i, j, P, R;
    unsigned char *cand = NULL, *keep = NULL;
    double *MM = NULL, *W = NULL, *T1 = NULL, *T2 = NULL, *SW = NULL, wmed = 0;
    int rc = AA_OK, m_cpu, m_mcpu, m_wall, m_mwall, m_cyc, m_ins;
    int use_cpu, cpi_ok;
    size_t nattr = 0;
    const an_attr_def **adefs = NULL;
    char **anames = NULL;
    double *aval = NULL; /* nattr x R: region averages */
    double **dcols = NULL; /* per dissim CCCR: nattr x P attribute values */
    dis_state ds;
    size_t ndccr = 0;
    memset(&ds, 0, sizeof ds);

    /* processes */
    cand = calloc(e->nprocesses ? e->nprocesses : 1, 1);
    if (!cand)
        return an_nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        if (an_rank_excluded(o, e->processes[p].rank)) {
            a->excluded_ranks[a->nexcluded_ranks++] = e->processes[p].rank;
            continue;
        }
        cand[p] = 1;
    }
    if ((rc = an_build_tree(c, cand)))
        goto out;
    if (o->auto_exclude_master) {
        int master;
        size_t nonly;
        if ((rc = an_detect_master(c, cand, &master, &nonly)))
            goto out;
        if (master) {
            for (p = 0; p < e->nprocesses; p++)
                if (cand[p] && e->processes[p].rank == 0)
                    cand[p] = 0;
            a->excluded_ranks[a->nexcluded_ranks++] = 0;
            if ((rc = an_note(c,
                           "rank 0 excluded as a master process: it runs %zu region%s no "
                           "other process runs and skips regions all others run "
                           "(--no-auto-exclude keeps it)",
                           nonly, nonly == 1 ? "" : "s")))
                goto out;
        }
    }
    c->proc = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *c->proc);
    a->ranks = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *a->ranks);
    if (!c->proc || !a->ranks) {
        rc = an_nomem(c);
        goto out;
    }
    for (p = 0; p < e->nprocesses; p++)
        if (cand[p]) {
            a->ranks[c->P] = e->processes[p].rank;
            c->proc[c->P++] = p;
        }
    a->nprocesses = c->P;
    P = c->P;
    if (P == 0) {
        rc = aa_err_set(c->err, AA_EINPUT, "no processes to analyse (%zu in the experiment, "
                        "%zu excluded)", e->nprocesses, a->nexcluded_ranks);
        goto out;
    }
    /* regions kept: run by an analysed process, not excluded (with subtree) */
    keep = calloc(c->ntree, 1);
    {
        size_t *cnt = calloc(c->ntree, sizeof *cnt), nexcl = 0;
        if (!keep || !cnt) {
            free(cnt);
            rc = an_nomem(c);
            goto out;
        }
        an_count_runs(c, cand, cnt, -1, NULL);
        keep[0] = 1;
        for (i = 1; i < c->ntree; i++) { /* parents precede children */
            uint32_t id = c->tid[i];
            keep[i] = cnt[i] > 0 && keep[c->tparent[i]];
            if (keep[i] && o->nexclude_regions &&
                an_region_excluded(o, aa_experiment_region(e, id), id)) {
                keep[i] = 0;
                if (!c->exroot && !(c->exroot = calloc(c->ntree, 1))) {
                    free(cnt);
                    rc = an_nomem(c);
                    goto out;
                }
                c->exroot[i] = 1;
                nexcl++;
            }
        }
        free(cnt);
        if (nexcl && (rc = an_note(c, "%zu region node%s excluded by --exclude-regions (with "
                                   "their sub-regions; their time is removed from the enclosing regions)",
                                nexcl, nexcl == 1 ? "" : "s")))
            goto out;
    }
    if ((rc = an_build_regions(c, keep)) || (rc = an_fill_ran(c)))
        goto out;
    R = c->R;
    /* subtree ends: regions are in preorder, so the subtree of r is
     * [r, send[r]) */
    if (!(c->send = malloc((R + 1) * sizeof *c->send))) {
        rc = an_nomem(c);
        goto out;
    }
    for (r = R; r-- > 0;)
        c->send[r] = r + 1;
    for (r = R; r-- > 1;)
        if (c->send[r] > c->send[a->regions[r].parent])
            c->send[a->regions[r].parent] = c->send[r];
    if (P == 1 && (rc = an_note(c, "single process: no dissimilarity analysis")))
        goto out;

    MM = malloc(P * R * sizeof *MM);
    W = malloc(P * R * sizeof *W);
    T1 = malloc(P * R * sizeof *T1);
    T2 = malloc(P * R * sizeof *T2);
    c->wpwt = calloc(P, sizeof *c->wpwt);
    a->severity = calloc(R, sizeof *a->severity);
    a->region_value = calloc(R, sizeof *a->region_value);
    if (!MM || !W || !T1 || !T2 || !c->wpwt || !a->severity || !a->region_value) {
        rc = an_nomem(c);
        goto out;
    }

    /* wall and WPWT */
    {
        int wall_ok = an_metric_usable(c, "wall", &m_wall) && an_gather(c, m_wall, W) > 0;
        size_t zero = 0;
        if (!wall_ok) {
            rc = aa_err_set(c->err, AA_EINPUT, "experiment has no wall time values (metric "
                                               "'wall'); nothing to analyse");
            goto out;
        }
        for (q = 0; q < P; q++) {
            double w = W[q * R];
            if (!c->ran[q * R] || isnan(w)) {
                w = 0;
                for (i = c->cstart[0]; i < c->cstart[1]; i++) {
                    double v = W[q * R + c->clist[i]];
                    w += isnan(v) ? 0 : v;
                }
            }
            c->wpwt[q] = w;
            if (!(w > 0))
                zero++;
        }
        if (zero && (rc = an_note(c, "zero-length run: whole-program wall time is 0 on %zu "
                                  "process%s; their region fractions count as 0",
                               zero, zero == 1 ? "" : "es")))
            goto out;
    }

    /* the whole-program chain and WPWT without top-level MPI time */
    if ((rc = an_whole_chain(c, W, T1)))
        goto out;

    /* main metric */
    use_cpu = o->proc_metric == AA_PMETRIC_CPU && an_metric_usable(c, "cpu", &m_cpu) &&
              an_gather(c, m_cpu, MM) > 0;
    if (o->proc_metric == AA_PMETRIC_CPU && !use_cpu &&
        (rc = an_note(c, "CPU time unavailable: processes compared on wall time outside MPI")))
        goto out;
    a->proc_metric = use_cpu ? "cpu" : "wall";
    if (!use_cpu)
        memcpy(MM, W, P * R * sizeof *MM);
    {
        const char *sub = use_cpu ? "mpi_cpu" : "mpi_wall";
        int ms = -1;
        if (an_metric_usable(c, sub, &ms) && an_gather(c, ms, T1) > 0) {
            for (i = 0; i < P * R; i++) {
                double v = MM[i] - (isnan(T1[i]) ? 0 : T1[i]);
                MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
            }
        } else {
            for (i = 0; i < P * R; i++)
                if (isnan(MM[i]))
                    MM[i] = 0;
            if ((rc = an_note(c, "%s unavailable: time inside MPI is not subtracted from the "
                              "process metric", sub)))
                goto out;
        }
    }
    (void)m_mcpu;
    (void)m_mwall;

    /* ---- disparity ---- */
    /* region fractions on self values (the region's own code: its wall time
     * minus its sub-regions'), so that enclosing regions never compete with
     * what they enclose; MPI set-up time is set-up wherever it sits */
    SW = malloc(P * R * sizeof *SW);
    if (!SW) {
        rc = an_nomem(c);
        goto out;
    }
    if ((rc = an_self_wall(c, W, T2, SW)))
        goto out;
    cpi_ok = an_metric_usable(c, "cycles", &m_cyc) && an_metric_usable(c, "instructions", &m_ins);
    if (cpi_ok)
        cpi_ok = an_gather(c, m_cyc, T1) > 0 && an_gather(c, m_ins, T2) > 0;
    a->region_metric = o->region_metric == AA_RMETRIC_CRNM ? "crnm"
                       : o->region_metric == AA_RMETRIC_CPI ? "cpi"
                                                            : "wall";
    if (o->region_metric != AA_RMETRIC_WALL && !cpi_ok) {
        a->region_metric = "wall";
        if ((rc = an_note(c, "CPI unavailable (cycles or instructions not measured): regions are "
                          "ranked by their wall-time fraction instead of %s",
                       o->region_metric == AA_RMETRIC_CRNM ? "CRNM" : "CPI")))
            goto out;
    }
    for (r = 0; r < R; r++) {
        double s = 0;
        for (q = 0; q < P; q++) {
            size_t k = q * R + r;
            double frac, cpi = 0, v;
            if (!c->ran[k])
                continue;
            frac = (c->wpwt[q] > 0 && !isnan(SW[k])) ? fmin(1, SW[k] / c->wpwt[q]) : 0;
            if (cpi_ok && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
                cpi = T1[k] / T2[k];
            if (strcmp(a->region_metric, "crnm") == 0)
                v = frac * cpi;
            else if (strcmp(a->region_metric, "cpi") == 0)
                v = cpi;
            else
                v = frac;
            s += v;
        }
        a->region_value[r] = s / (double)P;
    }
    /* every region is classified on its self value (the root has none) */
    c->ndobj = 0;
    for (r = 1; r < R; r++)
        if (!an_is_mpi_setup(a->regions[r].info))
            c->dobj[c->ndobj++] = r;
    if (c->ndobj) {
        int *cls = malloc(c->ndobj * sizeof *cls);
        double *v = malloc(c->ndobj * sizeof *v), centers[5] = {0, 0, 0, 0, 0};
        size_t ku;
        if (!cls || !v) {
            free(cls);
            free(v);
            rc = an_nomem(c);
            goto out;
        }
        for (i = 0; i < c->ndobj; i++)
            v[i] = a->region_value[c->dobj[i]];
        rc = an_severity_classes(c, v, c->ndobj, cls, centers, &ku, 0);
        for (i = 0; i < c->ndobj && !rc; i++)
            a->severity[c->dobj[i]] = cls[i];
        free(cls);
        free(v);
        if (rc)
            goto out;
    }

    /* ---- dissimilarity ---- */
    ds.c = c;
    ds.MM = MM;
    if (P >= 2) {
        size_t m = an_nchildren(c, 0);
        const size_t *set = c->clist + c->cstart[0];
        double *X = malloc(P * (m ? m : 1) * sizeof *X);
        int *lab = malloc(P * sizeof *lab);
        size_t k = 1, dmp;
        double deps;
        int any;
        if (!X || !lab) {
            free(X);
            free(lab);
            rc = an_nomem(c);
            goto out;
        }
        for (q = 0; q < P; q++)
            for (j = 0; j < m; j++)
                X[q * m + j] = MM[q * R + set[j]];
        if (m) {
            aa_cluster_optics_defaults(X, P, m, &dmp, &deps);
        } else {
            dmp = 2;
            deps = 0;
        }
        ds.cp.min_pts = o->min_pts ? o->min_pts : dmp;
        /* eps from the run's measured noise (noise.c), on the metric's own
         * scale, never below the CPU clock's resolution */
        if (!(o->eps > 0) && m) {
            double *self = malloc(P * R * sizeof *self);
            size_t nused = 0;
            if (!self) {
                free(X);
                free(lab);
                rc = an_nomem(c);
                goto out;
            }
            an_self_values(c, MM, self);
            a->noise_rel = an_noise_relative(self, c->ran, P, R, o->resolution_s, &nused);
            deps = an_level_eps(self, c->ran, P, R, set, m, c->send, a->noise_rel,
                                o->noise_factor, o->resolution_s);
            free(self);
            if ((rc = an_note(c, "noise: processes doing the same work differ by %.2g%% in CPU "
                              "time (median over %zu regions); differences count from %g s",
                           100 * a->noise_rel, nused, deps)))
            {
                free(X);
                free(lab);
                goto out;
            }
        }
        ds.cp.eps = o->eps > 0 ? o->eps : deps;
        if (!(ds.cp.eps > 0))
            ds.cp.eps = 1e-300; /* all-zero data: identical points only */
        a->min_pts_used = ds.cp.min_pts;
        a->eps_used = ds.cp.eps;
        {
            an_bub tb;
            rc = an_bub_build(c, X, P, m, 0.1 * ds.cp.eps, &tb);
            if (!rc)
                rc = an_cluster_sel(c, X, P, m, &tb, -1, -1, &ds.cp, lab, &k);
            an_bub_free(&tb);
        }
        free(X);
        if (rc) {
            free(lab);
            goto out;
        }
        a->cluster_of = lab;
        if ((rc = an_dis_level(&ds, set, m, &any)))
            goto out;
    } else {
        a->cluster_of = calloc(1, sizeof *a->cluster_of);
        if (!a->cluster_of) {
            rc = an_nomem(c);
            goto out;
        }
    }
    /* clusters: sizes, ranks, means; renumbered by ascending mean program metric */
    {
        size_t k = an_count_labels(a->cluster_of, P), *ord, *inv;
        double *mean = calloc(k ? k : 1, sizeof *mean);
        ord = malloc((k ? k : 1) * sizeof *ord);
        inv = malloc((k ? k : 1) * sizeof *inv);
        a->nclusters = k;
        a->cluster_size = calloc(k ? k : 1, sizeof *a->cluster_size);
        a->cluster_ranks = calloc(k ? k : 1, sizeof *a->cluster_ranks);
        a->cluster_mean = calloc(k ? k : 1, sizeof *a->cluster_mean);
        if (!mean || !ord || !inv || !a->cluster_size || !a->cluster_ranks || !a->cluster_mean) {
            free(mean);
            free(ord);
            free(inv);
            rc = an_nomem(c);
            goto out;
        }
        for (q = 0; q < P; q++) {
            mean[a->cluster_of[q]] += MM[q * R];
            a->cluster_size[a->cluster_of[q]]++;
        }
        for (j = 0; j < k; j++) {
            mean[j] = a->cluster_size[j] ? mean[j] / (double)a->cluster_size[j] : 0;
            ord[j] = j;
        }
        /* stable order: keep label order (OPTICS order, deterministic) */
        for (j = 0; j < k; j++)
            inv[ord[j]] = j;
        for (j = 0; j < k; j++) {
            a->cluster_mean[j] = mean[j];
            a->cluster_ranks[j] = malloc((a->cluster_size[j] ? a->cluster_size[j] : 1) *
                                         sizeof **a->cluster_ranks);
            if (!a->cluster_ranks[j]) {
                free(mean);
                free(ord);
                free(inv);
                rc = an_nomem(c);
                goto out;
            }
            a->cluster_size[j] = 0;
        }
        for (q = 0; q < P; q++) {
            size_t l = inv[a->cluster_of[q]];
            a->cluster_ranks[l][a->cluster_size[l]++] = a->ranks[q];
        }
        free(mean);
        free(ord);
        free(inv);
    }

    /* ---- attributes ---- */
    {
        size_t na_tab;
        const an_attr_def *tab = an_attr_table(&na_tab);
        adefs = calloc(na_tab + o->nattributes + 1, sizeof *adefs);
        anames = calloc(na_tab + o->nattributes + 1, sizeof *anames);
        if (!adefs || !anames) {
            rc = an_nomem(c);
            goto out;
        }
        if (o->nattributes) {
            for (i = 0; i < o->nattributes; i++) {
                const an_attr_def *d = an_attr_find(o->attributes[i]);
                if (!d) {
                    rc = aa_err_set(c->err, AA_EUSAGE, "unknown attribute '%s'",
                                    o->attributes[i]);
                    goto out;
                }
                adefs[nattr++] = d;
            }
        } else {
            for (i = 0; i < na_tab; i++)
                if (tab[i].is_default)
                    adefs[nattr++] = &tab[i];
        }
    }
    /* dissimilarity CCCRs (strongest effect first) */
    for (i = 0; i < ds.nfound; i++)
        ndccr += ds.found[i].cccr;
    dcols = calloc(ds.nfound ? ds.nfound : 1, sizeof *dcols);
    aval = calloc(nattr * R + 1, sizeof *aval);
    if (!dcols || !aval) {
        rc = an_nomem(c);
        goto out;
    }
    for (i = 0; i < ds.nfound; i++) {
        dcols[i] = malloc((nattr * P + 1) * sizeof **dcols);
        if (!dcols[i]) {
            rc = an_nomem(c);
            goto out;
        }
    }
    {
        size_t used = 0;
        const an_attr_def **ud = calloc(nattr + 1, sizeof *ud);
        if (!ud) {
            rc = an_nomem(c);
            goto out;
        }
        for (j = 0; j < nattr; j++) {
            if (!an_gather_attr(c, adefs[j], T1, T2)) {
                if (an_strlist_add(&a->unavailable, &a->nunavailable, adefs[j]->name)) {
                    free(ud);
                    rc = an_nomem(c);
                    goto out;
                }
                continue;
            }
            for (r = 0; r < R; r++) {
                double s = 0;
                size_t n = 0;
                for (q = 0; q < P; q++) {
                    double v = T1[q * R + r];
                    if (adefs[j]->kind == AN_RATE) {
                        if (c->ran[q * R + r] && !isnan(v)) {
                            s += v;
                            n++;
                        }
                    } else {
                        s += isnan(v) ? 0 : v;
                        n++;
                    }
                }
                aval[used * R + r] = n ? s / (double)n : 0;
            }
            for (i = 0; i < ds.nfound; i++)
                for (q = 0; q < P; q++) {
                    double v = T1[q * R + ds.found[i].region];
                    dcols[i][used * P + q] = isnan(v) ? 0 : v;
                }
            ud[used] = adefs[j];
            anames[used] = (char *)adefs[j]->name;
            used++;
        }
        memcpy(adefs, ud, used * sizeof *ud);
        free(ud);
        nattr = used;
        for (j = 0; j < nattr; j++)
            if (an_strlist_add(&a->attributes, &a->nattributes, anames[j])) {
                rc = an_nomem(c);
                goto out;
            }
    }
    if (a->nunavailable) {
        aa_buf nb;
        aa_buf_init(&nb);
        for (i = 0; i < a->nunavailable; i++)
            aa_buf_printf(&nb, "%s%s", i ? ", " : "", a->unavailable[i]);
        rc = an_note(c, "attributes not measured in this experiment (left out of the root-cause "
                     "tables): %s", nb.data ? nb.data : "");
        aa_buf_free(&nb);
        if (rc)
            goto out;
    }
    if (nattr > 64)
        nattr = 64;

    /* ---- impact of the dissimilarity CCRs; too small ones are dropped ----
     * A CCR whose slow processes spend less than finding_min_share of the
     * run beyond the others is no finding; a CCR all of whose CCR
     * descendants were dropped is then the innermost one (a CCCR). */
    wmed = an_median_wpwt(c);
    for (i = 0; i < ds.nfound; i++) {
        double imp;
        an_dis_slow_cluster(c, ds.found[i].labels, ds.found[i].region, MM, &imp);
        ds.found[i].impact = imp;
        ds.found[i].dropped = wmed > 0 && imp / wmed < o->finding_min_share;
    }
    for (i = 0; i < ds.nfound; i++) {
        size_t r0 = ds.found[i].region;
        if (ds.found[i].dropped)
            continue;
        ds.found[i].cccr = 1;
        for (j = 0; j < ds.nfound; j++)
            if (j != i && !ds.found[j].dropped && ds.found[j].region > r0 &&
                ds.found[j].region < c->send[r0])
                ds.found[i].cccr = 0;
    }

    /* ---- dissimilarity findings with root causes ---- */
    {
        /* order: CCCRs by effect (descending), then the other CCRs */
        size_t *ord = malloc((ds.nfound ? ds.nfound : 1) * sizeof *ord), x, y;
        if (!ord) {
            rc = an_nomem(c);
            goto out;
        }
        for (i = 0; i < ds.nfound; i++)
            ord[i] = i;
        for (x = 1; x < ds.nfound; x++) /* insertion sort, stable */
            for (y = x; y > 0; y--) {
                dis_found *u = &ds.found[ord[y - 1]], *v = &ds.found[ord[y]];
                if ((v->cccr > u->cccr) || (v->cccr == u->cccr && v->effect > u->effect)) {
                    size_t t = ord[y];
                    ord[y] = ord[y - 1];
                    ord[y - 1] = t;
                } else
                    break;
            }
        for (x = 0; x < ds.nfound && !rc; x++) {
            dis_found *df = &ds.found[ord[x]];
            aa_finding *f;
            if (df->dropped)
                continue;
            f = an_add_finding(c, AA_FINDING_DISSIMILARITY, df->region);
            size_t k = an_count_labels(df->labels, P), slow = 0;
            aa_attrset causes = 0;
            double *val = calloc(nattr + 1, sizeof *val), *refv = calloc(nattr + 1, sizeof *refv);
            if (!f || !val || !refv) {
                free(val);
                free(refv);
                rc = an_nomem(c);
                break;
            }
            f->ccr = 1;
            f->cccr = df->cccr;
            f->effect = df->effect;
            f->severity = df->severity;
            f->confidence = df->confidence;
            slow = an_dis_slow_cluster(c, df->labels, df->region, MM, &f->impact_s);
            f->slow_cluster = (int)slow;
            f->slow_ranks = malloc(P * sizeof *f->slow_ranks);
            if (!f->slow_ranks) {
                free(val);
                free(refv);
                rc = an_nomem(c);
                break;
            }
            for (q = 0; q < P; q++)
                if (df->labels[q] == (int)slow)
                    f->slow_ranks[f->nslow++] = a->ranks[q];
            f->wait_s = f->impact_s * (double)(P - f->nslow);
            f->run_share = wmed > 0 ? f->impact_s / wmed : 0;
            (void)k;
            if (df->cccr && nattr) {
                int *vals = malloc(P * nattr * sizeof *vals), *lab = malloc(P * sizeof *lab);
                int high[64];
                rs_rows rows;
                aa_dtable *tab = NULL;
                aa_roughset_result res;
                memset(high, 0, sizeof high);
                if (!vals || !lab) {
                    free(vals);
                    free(lab);
                    free(val);
                    free(refv);
                    rc = an_nomem(c);
                    break;
                }
                for (j = 0; j < nattr && !rc; j++) {
                    const double *col = dcols[ord[x]] + j * P;
                    an_clust acp;
                    size_t kk, ns = 0, no = 0;
                    double ss = 0, so = 0;
                    aa_cluster_optics_defaults(col, P, 1, &acp.min_pts, &acp.eps);
                    if (!(acp.eps > 0))
                        acp.eps = 1e-300;
                    {
                        an_bub tb;
                        rc = an_bub_build(c, col, P, 1, 0.1 * acp.eps, &tb);
                        if (!rc)
                            rc = an_cluster_sel(c, col, P, 1, &tb, -1, -1, &acp, lab, &kk);
                        an_bub_free(&tb);
                    }
                    for (q = 0; q < P; q++) {
                        vals[q * nattr + j] = lab[q];
                        if (df->labels[q] == (int)slow) {
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
                if (!rc)
                    rc = an_rs_run(c, P, nattr, anames, vals, df->labels, &rows, &tab, &res);
                if (!rc) {
                    /* the row holding most processes of the slow cluster */
                    size_t best = 0, bc = 0;
                    for (i = 0; i < rows.nrows; i++)
                        if (df->labels[rows.first[i]] == (int)slow && rows.count[i] > bc) {
                            bc = rows.count[i];
                            best = i;
                        }
                    if (bc)
                        causes = an_pick_causes(&res, best, high);
                    a->ninconsistent += res.ninconsistent;
                    rc = an_add_core(c, res.core, anames, nattr, &a->core_dissim, &a->ncore_dissim);
                    aa_roughset_result_free(&res, rows.nrows);
                    aa_roughset_table_free(tab);
                    an_rs_rows_free(&rows);
                }
                free(vals);
                free(lab);
            }
            if (!rc)
                rc = an_set_causes(c, f, causes, anames, adefs, nattr, val, refv);
            free(val);
            free(refv);
        }
        free(ord);
        if (rc)
            goto out;
    }

    /* ---- disparity findings with root causes ---- */
    if (c->ndobj) {
        size_t n = c->ndobj, ncccr = 0;
        long *pos = malloc(R * sizeof *pos);
        double *tv = malloc(n * sizeof *tv);
        int *isccr = calloc(R, sizeof *isccr), *iscccr = calloc(R, sizeof *iscccr);
        int *vals = malloc((n * nattr + 1) * sizeof *vals), *dec = malloc(n * sizeof *dec);
        int *cls = malloc(n * sizeof *cls);
        size_t *ord = malloc(R * sizeof *ord), *send = malloc(R * sizeof *send), x, y;
        double maxv = 0;
        rs_rows rows;
        aa_dtable *tab = NULL;
        aa_roughset_result res;
        int have_rs = 0;
        memset(&rows, 0, sizeof rows);
        if (!isccr || !iscccr || !vals || !dec || !cls || !ord || !pos || !tv || !send) {
            free(send);
            free(pos);
            free(tv);
            free(isccr);
            free(iscccr);
            free(vals);
            free(dec);
            free(cls);
            free(ord);
            rc = an_nomem(c);
            goto out;
        }
        for (r = 0; r < R; r++)
            pos[r] = -1;
        for (i = 0; i < n; i++)
            pos[c->dobj[i]] = (long)i;
        /* CCR: a region of the top severity classes whose own code holds at
         * least disparity_min_share of the run.  On self values every CCR
         * stands for its own cost, so every CCR is a CCCR (SPEC §5.3: no CCR
         * below it explains it). */
        for (r = 1; r < R; r++) {
            isccr[r] = pos[r] >= 0 && a->severity[r] >= 3 &&
                       a->region_value[r] >= o->disparity_min_share;
            iscccr[r] = isccr[r];
            ncccr += (size_t)isccr[r];
            if (a->region_value[r] > maxv)
                maxv = a->region_value[r];
        }
        /* table: attribute j of region r = 1 when its severity class is >= 3
         * among r and the regions *unrelated* to r (neither its ancestors
         * nor its descendants).  Values are inclusive, so an ancestor always
         * holds at least the sum of its children's values: classified
         * together, an enclosing loop calling two equal I/O functions would
         * take the top class and push both functions down to the middle
         * one (docs/analysis.md).  Regions are numbered in preorder, so the
         * subtree of r is [r, send[r]). */
        memcpy(send, c->send, R * sizeof *send);
        for (j = 0; j < nattr && !rc; j++) {
            for (i = 0; i < n && !rc; i++) {
                size_t ri = c->dobj[i], m = 0, self = 0, ku;
                double mx = -INFINITY, mn = INFINITY, xv = aval[j * R + ri];
                vals[i * nattr + j] = 0;
                for (y = 0; y < n; y++) {
                    size_t u = c->dobj[y];
                    if (u != ri && ((u > ri && u < send[ri]) || (ri > u && ri < send[u])))
                        continue; /* a descendant or an ancestor */
                    if (u == ri)
                        self = m;
                    tv[m] = aval[j * R + u];
                    if (tv[m] > mx)
                        mx = tv[m];
                    if (tv[m] < mn)
                        mn = tv[m];
                    m++;
                }
                /* a spread under 10% of the largest value is noise, not a
                 * class; the lowest value is in the lowest class */
                if (!(mx > 0) || mx - mn <= 0.1 * fabs(mx) || !(xv > mn))
                    continue;
                rc = an_severity_classes(c, tv, m, cls, NULL, &ku, 0.1);
                if (!rc)
                    vals[i * nattr + j] = cls[self] >= 3;
            }
        }
        for (i = 0; i < n; i++)
            dec[i] = isccr[c->dobj[i]];
        if (!rc && nattr) {
            rc = an_rs_run(c, n, nattr, anames, vals, dec, &rows, &tab, &res);
            have_rs = !rc;
            if (have_rs) {
                a->ninconsistent += res.ninconsistent;
                rc = an_add_core(c, res.core, anames, nattr, &a->core_disp, &a->ncore_disp);
            }
        }
        /* findings: CCCRs by value (descending), then other CCRs */
        for (r = 0; r < R; r++)
            ord[r] = r;
        for (x = 1; x < R; x++)
            for (y = x; y > 0; y--) {
                size_t u = ord[y - 1], v = ord[y];
                int ku = iscccr[u], kv = iscccr[v];
                if (kv > ku || (kv == ku && a->region_value[v] > a->region_value[u])) {
                    ord[y] = u;
                    ord[y - 1] = v;
                } else
                    break;
            }
        for (x = 0; x < R && !rc; x++) {
            size_t rr = ord[x];
            aa_finding *f;
            aa_attrset causes = 0;
            double *val, *refv;
            if (rr == 0 || !isccr[rr])
                continue;
            f = an_add_finding(c, AA_FINDING_DISPARITY, rr);
            val = calloc(nattr + 1, sizeof *val);
            refv = calloc(nattr + 1, sizeof *refv);
            if (!f || !val || !refv) {
                free(val);
                free(refv);
                rc = an_nomem(c);
                break;
            }
            f->ccr = 1;
            f->cccr = iscccr[rr];
            f->severity_class = a->severity[rr];
            {
                double sw = 0, sh = 0;
                for (q = 0; q < P; q++) {
                    double v = SW[q * R + rr];
                    sw += isnan(v) ? 0 : v;
                    sh += (c->wpwt[q] > 0 && !isnan(v)) ? fmin(1, v / c->wpwt[q]) : 0;
                }
                f->impact_s = sw / (double)P;
                f->run_share = sh / (double)P;
            }
            f->severity = maxv > 0 ? a->region_value[rr] / maxv : 0;
            f->effect = a->region_value[rr];
            f->confidence = 0; /* filled below from per-process values */
            if (iscccr[rr] && have_rs) {
                int high[64];
                size_t row = rows.row_of[pos[rr]];
                memset(high, 0, sizeof high);
                for (j = 0; j < nattr; j++) {
                    double s = 0;
                    size_t m = 0;
                    high[j] = vals[pos[rr] * nattr + j] == 1;
                    val[j] = aval[j * R + rr];
                    for (i = 0; i < n; i++)
                        if (!isccr[c->dobj[i]]) {
                            s += aval[j * R + c->dobj[i]];
                            m++;
                        }
                    refv[j] = m ? s / (double)m : 0;
                }
                causes = an_pick_causes(&res, row, high);
            }
            rc = an_set_causes(c, f, causes, anames, adefs, nattr, val, refv);
            free(val);
            free(refv);
        }
        if (have_rs) {
            aa_roughset_result_free(&res, rows.nrows);
            aa_roughset_table_free(tab);
        }
        an_rs_rows_free(&rows);
        free(pos);
        free(tv);
        free(isccr);
        free(iscccr);
        free(vals);
        free(dec);
        free(cls);
        free(ord);
        free(send);
        if (rc)
            goto out;
        (void)ncccr;
    }

    /* disparity confidence: share of processes on which the region's own
     * value (same metric) lies above the class boundary, the midpoint between
     * the smallest CCR value and the largest non-CCR value */
    if (c->ndobj) {
        double lo = INFINITY, hi = 0, thr;
        int cyc_ok = cpi_ok && an_gather(c, m_cyc, T1) > 0 && an_gather(c, m_ins, T2) > 0;
        for (i = 0; i < c->ndobj; i++) {
            r = c->dobj[i];
            if (a->severity[r] >= 3 && a->region_value[r] < lo)
                lo = a->region_value[r];
            if (a->severity[r] < 3 && a->region_value[r] > hi)
                hi = a->region_value[r];
        }
        thr = isfinite(lo) ? (lo + hi) / 2 : INFINITY;
        for (i = 0; i < a->nfindings; i++) {
            aa_finding *f = &a->findings[i];
            size_t good = 0, k;
            if (f->kind != AA_FINDING_DISPARITY)
                continue;
            for (q = 0; q < P; q++) {
                double frac, cpi = 0, v;
                k = q * R + f->region;
                frac = (c->wpwt[q] > 0 && !isnan(W[k])) ? fmin(1, W[k] / c->wpwt[q]) : 0;
                if (cyc_ok && c->ran[k] && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
                    cpi = T1[k] / T2[k];
                if (strcmp(a->region_metric, "crnm") == 0)
                    v = frac * cpi;
                else if (strcmp(a->region_metric, "cpi") == 0)
                    v = cpi;
                else
                    v = frac;
                if (c->ran[k] && v > thr)
                    good++;
            }
            f->confidence = P ? (double)good / (double)P : 0;
        }
    }
    an_rank_findings(a);
out:
    for (i = 0; i < ds.nfound; i++)
        free(ds.found[i].labels);
    free(ds.found);
    if (dcols)
        for (i = 0; i < ds.nfound; i++)
            free(dcols[i]);
    free(dcols);
    free(aval);
    free(adefs);
    free(anames);
    free(cand);
    free(keep);
    free(MM);
    free(W);
    free(SW);
    free(T1);
    free(T2);
    (void)ndccr;
    return rc;
}

static void ctx_free(an_ctx *c)
{
    free(c->send);
    size_t p;
    if (c->map)
        for (p = 0; p < c->e->nprocesses; p++)
            free(c->map[p]);
    free(c->map);
    free(c->mapoff);
    free(c->tid);
    free(c->tparent);
    free(c->hkeys);
    free(c->hvals);
    free(c->proc);
    free(c->t2r);
    free(c->r2t);
    free(c->cstart);
    free(c->clist);
    free(c->ran);
    free(c->wpwt);
    free(c->whole);
    free(c->dobj);
    free(c->exroot);
}

int aa_analyze_run(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **out,
                   aa_err *err)
{
    an_ctx c;
    aa_analyze_options defo;
    aa_analysis *a;
    int rc;
    *out = NULL;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "analyze: no experiment");
    if (!o) {
        aa_analyze_options_init(&defo);
        o = &defo;
    }
    a = calloc(1, sizeof *a);
    if (!a)
        return aa_err_set(err, AA_EENV, "analyze: out of memory");
    a->exp = e;
    a->proc_metric = "cpu";
    a->region_metric = "crnm";
    a->excluded_ranks = calloc(e->nprocesses + 1, sizeof *a->excluded_ranks);
    memset(&c, 0, sizeof c);
    c.e = e;
    c.o = o;
    c.a = a;
    c.err = err;
    if (!a->excluded_ranks)
        rc = aa_err_set(err, AA_EENV, "analyze: out of memory");
    else if (e->nprocesses == 0)
        rc = aa_err_set(err, AA_EINPUT, "experiment has no processes");
    else
        rc = run(&c);
    ctx_free(&c);
    if (rc) {
        aa_analyze_free(a);
        return rc;
    }
    *out = a;
    return AA_OK;
}

int aa_analyze_add_note(aa_analysis *a, const char *note)
{
    return an_strlist_add(&a->notes, &a->nnotes, note) ? AA_EENV : AA_OK;
}

void aa_analyze_free(aa_analysis *a)
{
    size_t i, j;
    if (!a)
        return;
    free(a->regions);
    free(a->cluster_size);
    if (a->cluster_ranks)
        for (i = 0; i < a->nclusters; i++)
            free(a->cluster_ranks[i]);
    free(a->cluster_ranks);
    free(a->excluded_ranks);
    free(a->severity);
    free(a->region_value);
    for (i = 0; i < a->nfindings; i++) {
        aa_finding *f = &a->findings[i];
        for (j = 0; j < f->ncauses; j++) {
            free(f->causes[j]);
            free(f->evidence[j].attribute);
        }
        free(f->causes);
        free(f->evidence);
        free(f->suggestion);
        free(f->slow_ranks);
    }
    free(a->findings);
    an_strlist_free(a->core_dissim, a->ncore_dissim);
    an_strlist_free(a->core_disp, a->ncore_disp);
    an_strlist_free(a->unavailable, a->nunavailable);
    an_strlist_free(a->notes, a->nnotes);
    an_strlist_free(a->attributes, a->nattributes);
    free(a->ranks);
    free(a->cluster_of);
    free(a->cluster_mean);
    free(a);
}

