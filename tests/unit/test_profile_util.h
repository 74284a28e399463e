/*
 * tests/unit/test_profile_util.h -- helpers shared by the profile/ and
 * collect/ unit tests: build experiments of various shapes, compare two
 * experiments field by field.
 */
#ifndef AA_TEST_PROFILE_UTIL_H
#define AA_TEST_PROFILE_UTIL_H

#include "profile/aa_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned long tpu_seed = 12345;
static __attribute__((unused)) double tpu_rand(void)
{
    tpu_seed = tpu_seed * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(tpu_seed >> 11) / 9007199254740992.0;
}

/* An experiment with nranks processes (ranks listed in `ranks`, or 0..n-1
 * when NULL), nthreads threads each, nregions regions and a chain/tree of
 * nnodes nodes per thread.  Ranks whose index is odd lack cycles and
 * instructions (NAN, listed unavailable); every 7th node is throttled. */
static __attribute__((unused)) aa_experiment *tpu_build(const char *id, int nprocs, const int *ranks, int nranks,
                                int nthreads, int nregions, int nnodes)
{
    static const char *metrics[][2] = {{"visits", "count"}, {"wall", "s"},
                                       {"wall_excl", "s"},  {"cpu", "s"},
                                       {"cycles", "count"}, {"instructions", "count"},
                                       {"mpi_bytes_sent", "bytes"}, {"papi_fp_ops", "count"}};
    aa_experiment *e = aa_experiment_new();
    int i, r, t, n;
    char name[64], file[64];
    e->id = strdup(id);
    e->program = strdup("solver");
    e->nprocs = nprocs;
    aa_experiment_set_attr(e, "command", "mpirun -np 4 ./solver --size=100");
    aa_experiment_set_attr(e, "compiler", "gcc -O2");
    for (i = 0; i < (int)(sizeof metrics / sizeof metrics[0]); i++)
        aa_experiment_add_metric(e, metrics[i][0], metrics[i][1]);
    for (i = 0; i < nregions; i++) {
        aa_region reg;
        memset(&reg, 0, sizeof reg);
        reg.id = i == 0 ? 0 : (uint32_t)(i * 3 + 100);
        reg.kind = i == 0 ? AA_KIND_PROGRAM : (aa_region_kind)(1 + i % 4);
        snprintf(name, sizeof name, i == 0 ? "program" : "loop@%d", i * 10);
        snprintf(file, sizeof file, "src/file%d.c", i % 5);
        reg.name = name;
        reg.function = i == 0 ? "" : "solve";
        reg.file = i == 0 ? "" : file;
        reg.line = i * 10;
        reg.col = i % 3;
        reg.end_line = i * 10 + 5;
        reg.end_col = 2;
        reg.parent = (i - 1) / 2 >= 1 ? (uint32_t)(((i - 1) / 2) * 3 + 100) : 0;
        aa_experiment_add_region(e, &reg);
    }
    for (r = 0; r < nranks; r++) {
        aa_process *p = aa_experiment_add_process(e, ranks ? ranks[r] : r);
        char host[32];
        snprintf(host, sizeof host, "node%d", r / 2);
        free(p->host);
        p->host = strdup(host);
        p->pid = 1000 + r;
        if (r % 2) {
            aa_process_add_unavailable(p, "cycles");
            aa_process_add_unavailable(p, "instructions");
        }
        aa_process_set_attr(p, "cpuset", "0-1");
        for (t = 0; t < nthreads; t++) {
            aa_thread *th = aa_process_add_thread(p, t);
            for (n = 0; n < nnodes; n++) {
                long k = aa_thread_add_node(e, th, n == 0 ? 0 : e->regions[1 + (n % (nregions > 1 ? nregions - 1 : 1))].id,
                                            n == 0 ? -1 : (n - 1) / 2);
                double *v = aa_node_values(e, th, (size_t)k);
                size_t m;
                for (m = 0; m < e->nmetrics; m++)
                    v[m] = m == 0 ? (double)(1 + n) : tpu_rand() * 10;
                v[6] = 1e6 * (double)n;
                if (r % 2)
                    v[4] = v[5] = NAN;
                if (n % 7 == 6) {
                    th->nodes[k].flags = AA_NODE_THROTTLED;
                    v[1] = NAN;
                }
            }
        }
    }
    return e;
}

/* 0 when equal (NAN == NAN); else a static description. */
static __attribute__((unused)) const char *tpu_diff(const aa_experiment *a, const aa_experiment *b)
{
    size_t i, p, t, k;
    if (strcmp(a->id, b->id) || strcmp(a->program, b->program) || a->nprocs != b->nprocs)
        return "header";
    if (a->nattrs != b->nattrs)
        return "env count";
    for (i = 0; i < a->nattrs; i++)
        if (strcmp(a->attrs[i].name, b->attrs[i].name) || strcmp(a->attrs[i].value, b->attrs[i].value))
            return "env attr";
    if (a->nmetrics != b->nmetrics)
        return "metric count";
    for (i = 0; i < a->nmetrics; i++)
        if (strcmp(a->metrics[i].name, b->metrics[i].name) || strcmp(a->metrics[i].unit, b->metrics[i].unit))
            return "metric";
    if (a->nregions != b->nregions)
        return "region count";
    for (i = 0; i < a->nregions; i++) {
        const aa_region *x = &a->regions[i], *y = &b->regions[i];
        if (x->id != y->id || x->kind != y->kind || strcmp(x->name, y->name) ||
            strcmp(x->function, y->function) || strcmp(x->file, y->file) || x->line != y->line ||
            x->col != y->col || x->end_line != y->end_line || x->end_col != y->end_col ||
            x->parent != y->parent)
            return "region";
    }
    if (a->nprocesses != b->nprocesses)
        return "process count";
    for (p = 0; p < a->nprocesses; p++) {
        const aa_process *x = &a->processes[p], *y = &b->processes[p];
        if (x->rank != y->rank || strcmp(x->host, y->host) || x->pid != y->pid ||
            x->nunavailable != y->nunavailable || x->nattrs != y->nattrs || x->nthreads != y->nthreads)
            return "process";
        for (i = 0; i < x->nunavailable; i++)
            if (strcmp(x->unavailable[i], y->unavailable[i]))
                return "unavailable";
        for (i = 0; i < x->nattrs; i++)
            if (strcmp(x->attrs[i].name, y->attrs[i].name) || strcmp(x->attrs[i].value, y->attrs[i].value))
                return "process attr";
        for (t = 0; t < x->nthreads; t++) {
            const aa_thread *tx = &x->threads[t], *ty = &y->threads[t];
            if (tx->id != ty->id || tx->nnodes != ty->nnodes)
                return "thread";
            for (i = 0; i < tx->nnodes; i++) {
                if (tx->nodes[i].region != ty->nodes[i].region ||
                    tx->nodes[i].parent != ty->nodes[i].parent || tx->nodes[i].flags != ty->nodes[i].flags)
                    return "node";
                for (k = 0; k < a->nmetrics; k++) {
                    double u = aa_node_values(a, tx, i)[k], w = aa_node_values(b, ty, i)[k];
                    if (isnan(u) != isnan(w) || (!isnan(u) && memcmp(&u, &w, sizeof u)))
                        return "value";
                }
            }
        }
    }
    return NULL;
}

#endif
