/*
 * tests/space/fixture.h -- hand-built experiments with known answers for
 * the Program Space tests and benchmark, made with the model API of
 * profile/aa_profile.h.
 *
 * The small program (4 ranks on 2 hosts unless nprocs says otherwise):
 *   0 program
 *   1 main            main.c        = solve + compute + 0.5
 *   2 solve           solver.c      = loop@10 + loop@20 + 0.5
 *   3   loop@10                     = 2.0 + 0.1 * rank
 *   4   loop@20                     = 3.0
 *   5 compute         solver.c      = 1.0 + MPI_Allreduce@30
 *   6   MPI_Allreduce@30            = 0.5
 * program = main + 0.1.  Metrics: wall, cpu (= 0.9 wall), visits.
 * Scenarios change it:
 *   "base"     as above (attrs version=1.0 input=small)
 *   "renamed"  function compute is called compute_v2 (version=1.1)
 *   "slow"     compute takes 3 s more on every rank (version=1.2)
 *   "cancel"   loop@10 +1 s and loop@20 -1 s on every rank (version=1.3)
 *   "evil"     names and attributes full of SQL metacharacters
 *   "moved"    three lines added above solve's loops and in compute:
 *              loop@13, loop@23, MPI_Allreduce@33 (same region ids), and
 *              the first loop 1 s slower on every rank
 *   "onefile"  main is in solver.c too (a file whose function calls the
 *              file's other functions: its value must not count them twice)
 *   "huge"     loop@20 takes 1e308 s: the sums over processes overflow
 * space_fixture_big(P, R, slow) builds P ranks x R regions (functions of
 * 10 per file, each with one loop) for the benchmark.
 */
#ifndef AA_TESTS_SPACE_FIXTURE_H
#define AA_TESTS_SPACE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/aa_profile.h"

#define SPACE_EVIL "x'; DROP TABLE executions;--"

static inline int space_fx_region(aa_experiment *e, uint32_t id, aa_region_kind kind,
                                  const char *name, const char *function, const char *file,
                                  int line, uint32_t parent)
{
    aa_region r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.kind = kind;
    r.name = (char *)name;
    r.function = (char *)function;
    r.file = (char *)file;
    r.line = line;
    r.parent = parent;
    return aa_experiment_add_region(e, &r);
}

static inline void space_fx_set(aa_experiment *e, aa_thread *t, long node, double wall,
                                double visits)
{
    double *v = aa_node_values(e, t, (size_t)node);
    v[0] = wall;
    v[1] = 0.9 * wall;
    v[2] = visits;
}

static inline aa_experiment *space_fixture(const char *scenario, int nprocs)
{
    aa_experiment *e = aa_experiment_new();
    int evil = strcmp(scenario, "evil") == 0;
    const char *compute = strcmp(scenario, "renamed") == 0 ? "compute_v2"
                          : evil                          ? SPACE_EVIL
                                                          : "compute";
    const char *version = strcmp(scenario, "renamed") == 0  ? "1.1"
                          : strcmp(scenario, "slow") == 0   ? "1.2"
                          : strcmp(scenario, "cancel") == 0 ? "1.3"
                                                            : "1.0";
    int r, sh = strcmp(scenario, "moved") == 0 ? 3 : 0;
    char l10[32], l20[32], mpi_name[48];
    if (!e)
        return NULL;
    snprintf(l10, sizeof l10, "loop@%d", 10 + sh);
    snprintf(l20, sizeof l20, "loop@%d", 20 + sh);
    snprintf(mpi_name, sizeof mpi_name, "MPI_Allreduce@%d", 30 + sh);
    if (nprocs <= 0)
        nprocs = 4;
    e->id = strdup(evil ? SPACE_EVIL : scenario);
    e->program = strdup(evil ? SPACE_EVIL : "solver");
    e->nprocs = nprocs;
    aa_experiment_set_attr(e, "version", version);
    aa_experiment_set_attr(e, "input", evil ? SPACE_EVIL : "small");
    aa_experiment_set_attr(e, "start_time", "2026-01-01T00:00:00Z");
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    aa_experiment_add_metric(e, "visits", "count");
    space_fx_region(e, 0, AA_KIND_PROGRAM, "program", "", "", 0, 0);
    space_fx_region(e, 1, AA_KIND_FUNCTION, "main", "main",
                    strcmp(scenario, "onefile") == 0 ? "solver.c" : "main.c", 3, 0);
    space_fx_region(e, 2, AA_KIND_FUNCTION, "solve", "solve", "solver.c", 5, 0);
    space_fx_region(e, 3, AA_KIND_LOOP, l10, "solve", "solver.c", 10 + sh, 2);
    space_fx_region(e, 4, AA_KIND_LOOP, l20, "solve", "solver.c", 20 + sh, 2);
    space_fx_region(e, 5, AA_KIND_FUNCTION, compute, compute, "solver.c", 28 + sh, 0);
    space_fx_region(e, 6, AA_KIND_CALL, mpi_name, compute, "solver.c", 30 + sh, 5);
    for (r = 0; r < nprocs; r++) {
        aa_process *p = aa_experiment_add_process(e, r);
        aa_thread *t;
        double l10 = 2.0 + 0.1 * r + (sh ? 1.0 : 0.0),
               l20 = strcmp(scenario, "huge") == 0 ? 1e308 : 3.0, mpi = 0.5, comp, solve, mainv;
        long n0, n1, n2, n3, n4, n5, n6;
        char host[32];
        if (!p)
            break;
        snprintf(host, sizeof host, "node%d", r / 2);
        free(p->host);
        p->host = strdup(host);
        p->pid = 1000 + r;
        t = aa_process_add_thread(p, 0);
        if (strcmp(scenario, "cancel") == 0) {
            l10 += 1.0;
            l20 -= 1.0;
        }
        comp = 1.0 + mpi + (strcmp(scenario, "slow") == 0 ? 3.0 : 0.0);
        solve = l10 + l20 + 0.5;
        mainv = solve + comp + 0.5;
        n0 = aa_thread_add_node(e, t, 0, -1);
        n1 = aa_thread_add_node(e, t, 1, (int32_t)n0);
        n2 = aa_thread_add_node(e, t, 2, (int32_t)n1);
        n3 = aa_thread_add_node(e, t, 3, (int32_t)n2);
        n4 = aa_thread_add_node(e, t, 4, (int32_t)n2);
        n5 = aa_thread_add_node(e, t, 5, (int32_t)n1);
        n6 = aa_thread_add_node(e, t, 6, (int32_t)n5);
        space_fx_set(e, t, n0, mainv + 0.1, 1);
        space_fx_set(e, t, n1, mainv, 1);
        space_fx_set(e, t, n2, solve, 1);
        space_fx_set(e, t, n3, l10, 100);
        space_fx_set(e, t, n4, l20, 100);
        space_fx_set(e, t, n5, comp, 1);
        space_fx_set(e, t, n6, mpi, 10);
    }
    return e;
}

/* P ranks x R regions: R/2 functions (10 per file) each with one loop.
 * slow >= 0 makes function number `slow` 1 s slower on every rank. */
static inline aa_experiment *space_fixture_big(int P, int R, int slow)
{
    aa_experiment *e = aa_experiment_new();
    int nf = R / 2, f, r;
    char name[64], file[64], loop[64];
    e->id = strdup(slow >= 0 ? "big-slow" : "big");
    e->program = strdup("big");
    e->nprocs = P;
    aa_experiment_set_attr(e, "version", slow >= 0 ? "2" : "1");
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    aa_experiment_add_metric(e, "visits", "count");
    space_fx_region(e, 0, AA_KIND_PROGRAM, "program", "", "", 0, 0);
    for (f = 0; f < nf; f++) {
        snprintf(name, sizeof name, "f%d", f);
        snprintf(file, sizeof file, "src/file%d.c", f / 10);
        snprintf(loop, sizeof loop, "loop@%d", 10 + f);
        space_fx_region(e, (uint32_t)(1 + 2 * f), AA_KIND_FUNCTION, name, name, file, 5, 0);
        space_fx_region(e, (uint32_t)(2 + 2 * f), AA_KIND_LOOP, loop, name, file, 10 + f,
                        (uint32_t)(1 + 2 * f));
    }
    for (r = 0; r < P; r++) {
        aa_process *p = aa_experiment_add_process(e, r);
        aa_thread *t;
        long root;
        double total = 0;
        snprintf(name, sizeof name, "node%d", r / 16);
        free(p->host);
        p->host = strdup(name);
        t = aa_process_add_thread(p, 0);
        root = aa_thread_add_node(e, t, 0, -1);
        for (f = 0; f < nf; f++) {
            double lv = 0.01 * (1 + (f * 7 + r) % 13) + (f == slow ? 1.0 : 0.0);
            long fn = aa_thread_add_node(e, t, (uint32_t)(1 + 2 * f), (int32_t)root);
            long ln = aa_thread_add_node(e, t, (uint32_t)(2 + 2 * f), (int32_t)fn);
            space_fx_set(e, t, fn, lv + 0.005, 1);
            space_fx_set(e, t, ln, lv, 50);
            total += lv + 0.005;
        }
        space_fx_set(e, t, root, total + 0.01, 1);
    }
    return e;
}

#endif
