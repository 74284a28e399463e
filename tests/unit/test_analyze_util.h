/*
 * tests/unit/test_analyze_util.h -- helpers shared by the analyze/ unit
 * tests: static regions of a hand-built experiment, a simulated
 * bulk-synchronous loop whose heaviest step moves between processes,
 * processes with different roles, and processes sharing CPUs of
 * different paces in a program of two kernels.
 */
#ifndef AA_TEST_ANALYZE_UTIL_H
#define AA_TEST_ANALYZE_UTIL_H

#include "profile/aa_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Region id with the given parent, kind and name, in `function` of t.c
 * at line 10 x id (the program region: no function, no file). */
static inline void add_region_in(aa_experiment *e, uint32_t id, uint32_t parent, const char *name,
                                 aa_region_kind kind, const char *function)
{
    aa_region r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.parent = parent;
    r.kind = kind;
    r.name = (char *)name;
    r.function = (char *)(id ? function : "");
    r.file = (char *)(id ? "t.c" : "");
    r.line = (int)id * 10;
    aa_experiment_add_region(e, &r);
}

/* ... in function "f". */
static void add_region(aa_experiment *e, uint32_t id, uint32_t parent, const char *name,
                       aa_region_kind kind)
{
    add_region_in(e, id, parent, name, kind, "f");
}

/* The metrics of a simulated bulk-synchronous loop, in this order: wall,
 * cpu, visits, cpu_sq, mpi_wall, mpi_coll_wall (their indices 0-5). */
enum { TL_WALL, TL_CPU, TL_VISITS, TL_CPU_SQ, TL_MPI_WALL, TL_MPI_COLL, TL_N };
static inline aa_experiment *test_loop_exp_new(void)
{
    static const char *const name[TL_N] = {"wall", "cpu", "visits", "cpu_sq", "mpi_wall",
                                           "mpi_coll_wall"};
    static const char *const unit[TL_N] = {"s", "s", "count", "s2", "s", "s"};
    aa_experiment *e = aa_experiment_new();
    int k;
    for (k = 0; k < TL_N; k++)
        aa_experiment_add_metric(e, name[k], unit[k]);
    return e;
}

/* A bulk-synchronous loop as the runtime measures it (sync_* metrics:
 * rt_mpi.h aa_mpi_sync_step): P processes, 40 steps (3 in mode 3), each
 * step every process computes w (its visit of compute, region 3, in
 * loop@10, region 2, in main), then waits in an MPI_Allreduce for the
 * slowest, t = max w - w + 10 us.  Mode 0 and 4: a different process does
 * 3x the work each step (4: the allreduce inside global_sum, region 4, that
 * the loop calls); 1: every fourth step heavier on every process, waits
 * unrelated to the work; 2: balanced work, waits from elsewhere; 3: as 0
 * with 3 steps; 5: as 0 without the sync metrics; 6: as 4 with the
 * allreduce a call-site region (MPI_Allreduce@12, round 2's refinement);
 * 7: as 0 with compute's work in its inner loop (region 5), entered 4
 * times a step (round 2's refinement of a loop nest); 11: work varying at
 * random, a CPU each; 12: the same, two processes a CPU; 13: as 11, each
 * process preempted (its run delay, the scheduler's, longer than the run);
 * 14: as 0 with 3% more work in the heavy step, the whole program's wall
 * time 3 times its CPU time (preempted outside the loop). */
/* A number in [0, 1) that looks random, the same for the same (k, m). */
static inline double test_unit_random(int k, int m)
{
    double x = sin(k * 12.9898 + m * 78.233) * 43758.5453;
    return x - floor(x);
}

static inline aa_experiment *test_dynamic_exp(int mode, int P)
{
    static const char *const sync[6] = {"sync_steps", "sync_work", "sync_wait",
                                        "sync_work_sq", "sync_wait_sq", "sync_cross"};
    const double L = 0.002, H = 0.006, tr = 1e-5;
    int steps = mode == 3 ? 3 : 40, r, k, m;
    aa_experiment *e = test_loop_exp_new();
    const int mwl = TL_WALL, mcp = TL_CPU, mv = TL_VISITS, mq = TL_CPU_SQ, mw = TL_MPI_WALL,
              mc = TL_MPI_COLL;
    int ms = mode == 5 ? -1 : aa_experiment_add_metric(e, sync[0], "count");
    for (k = 1; k < 6 && ms >= 0; k++)
        aa_experiment_add_metric(e, sync[k], k < 3 ? "s" : "s2");
    /* modes 13-14: the CPU time in MPI as well, which judging preemption needs */
    int mpc = mode >= 13 ? aa_experiment_add_metric(e, "mpi_cpu", "s") : -1;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@10", AA_KIND_LOOP);
    add_region(e, 3, 2, "compute", AA_KIND_FUNCTION);
    add_region(e, 4, 2, mode == 6 ? "MPI_Allreduce@12" : "global_sum",
               mode == 6 ? AA_KIND_CALL : AA_KIND_FUNCTION);
    add_region(e, 5, 3, "loop@33", AA_KIND_LOOP);
    for (r = 0; r < P; r++) {
        aa_process *pr = aa_experiment_add_process(e, r);
        aa_thread *t = aa_process_add_thread(pr, 0);
        long path[5];
        double W = 0, W2 = 0, I2 = 0, T = 0, sw[6] = {0}, *v;
        char cpu[16];
        snprintf(cpu, sizeof cpu, "%d", r / 2);
        if (mode == 12) /* two processes a CPU */
            aa_process_set_attr(pr, "cpu", cpu);
        if (mode == 13) /* a CPU each, preempted by other programs for longer than the run */
            aa_process_set_attr(pr, "run_delay", "10");
        path[0] = aa_thread_add_node(e, t, 0, -1);
        path[1] = aa_thread_add_node(e, t, 1, (int32_t)path[0]);
        path[2] = aa_thread_add_node(e, t, 2, (int32_t)path[1]);
        path[3] = mode == 4 || mode == 6 ? aa_thread_add_node(e, t, 4, (int32_t)path[2]) : -1;
        path[4] = aa_thread_add_node(e, t, 3, (int32_t)path[2]);
        for (k = 0; k < steps; k++) {
            double w = 0, wt, most = 0;
            for (m = 0; m < P; m++) {
                double x = mode == 1 ? (k % 4 == 0 ? H : L)
                         : mode == 2 ? L * (1 + 1e-3 * sin(k * 7.0 + m))
                         : mode == 8 ? (m == P - 1 ? H : L) * (1 + 0.05 * sin(k * 7.0 + m * 2.1))
                         : mode >= 11 && mode <= 13 ? L * (1 + 0.3 * (test_unit_random(k, m) - 0.5))
                         : mode == 10 ? (m >= P - 2 ? 1.5 * L * (1 + 0.03 * sin(k * 7.0 + m * 2.1))
                                                    : L * (1 + 0.1 * sin(k * 5.3 + m * 1.7)))
                         : mode == 14 ? (k % P == m ? 1.03 * L : L)
                                     : (k % P == m ? H : L) + (mode == 9 && m == P - 1 ? 0.3 * (H - L) : 0);
                most = x > most ? x : most;
                if (m == r)
                    w = x;
            }
            wt = mode == 1 ? tr + 0.002 * (1 + sin(k * 3.7 + r * 1.3))
               : mode == 2 ? tr + 0.003 * (1 + sin(k * 2.3 + r * 0.7))
               : mode == 10 && r >= P - 2 ? most - w + tr + (w - 1.5 * L) /* the core's */
                           : most - w + tr;
            W += w, W2 += w * w, T += wt;
            I2 += 4 * (0.245 * w) * (0.245 * w); /* mode 7: 4 visits of 0.98 w / 4 */
            if (k > 0) { /* the first call only marks the start */
                sw[0] += 1, sw[1] += w, sw[2] += wt;
                sw[3] += w * w, sw[4] += wt * wt, sw[5] += w * wt;
            }
        }
        v = aa_node_values(e, t, (size_t)path[4]);
        v[mwl] = v[mcp] = W, v[mv] = steps, v[mq] = W2;
        if (mode == 7) {
            v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, 5, (int32_t)path[4]));
            v[mwl] = v[mcp] = 0.98 * W, v[mv] = 4.0 * steps, v[mq] = I2;
        }
        for (k = 0; k < 4; k++) { /* inclusive: the pairs and the wait up the path */
            if (path[k] < 0)
                continue;
            v = aa_node_values(e, t, (size_t)path[k]);
            v[mwl] = v[mcp] = k == 3 ? T : W + T + (k < 2 ? 0.01 : 0);
            if (mode == 14 && k < 2) /* preempted outside the loop: the run 3 times its time */
                v[mwl] = 3 * v[mcp];
            v[mv] = k == 3 ? steps : 1;
            v[mq] = v[mcp] * v[mcp] / v[mv];
            v[mw] = v[mc] = T;
            if (mpc >= 0) /* MPI polls on the CPU */
                v[mpc] = T;
            for (m = 0; m < 6 && ms >= 0; m++)
                v[ms + m] = sw[m];
        }
    }
    e->nprocs = P;
    return e;
}

/* Processes with different roles (dissim.c, a branch only the slow
 * processes take): P processes, a time-step loop (region 2 in main) of 40
 * steps ending in an allreduce.  Mode 0: ranks 0..P/3-1 run ocean (region
 * 3, 60 ms), the others atmos (region 4, 30 ms) instead; mode 1: every
 * process runs compute (region 3, 30 ms) and rank 0 also extra (region 4,
 * 20 ms).  Each process waits in the loop for the latest.  Phases heavy on
 * opposite ranks (dissim.c, an_idle_bound): every process runs phase_a
 * (region 3) and phase_b (region 4), ranks 0..P/2-1 60 and 30 ms, the
 * others 30 and 60 ms; mode 2: no synchronization between them, nobody
 * waits; mode 3: one between them, each process waits 30 ms; mode 4: as 2
 * with phase_a 70 ms on ranks 0..P/2-1, the others wait 10 ms; mode 5: as
 * 2 on a loaded node, every process losing 30 ms of phase_b's wall time to
 * the scheduler (nobody waits: 0.1 ms in MPI). */
static inline aa_experiment *test_branch_exp(int mode, int P)
{
    aa_experiment *e = test_loop_exp_new();
    const int mwl = TL_WALL, mcp = TL_CPU, mv = TL_VISITS, mq = TL_CPU_SQ, mw = TL_MPI_WALL,
              mc = TL_MPI_COLL;
    int r, k;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@10", AA_KIND_LOOP);
    static const char *names[6][2] = {{"ocean", "atmos"}, {"compute", "extra"},
                                      {"phase_a", "phase_b"}, {"phase_a", "phase_b"},
                                      {"phase_a", "phase_b"}, {"phase_a", "phase_b"}};
    static const double latest_of[6] = {0.060, 0.050, 0.090, 0.120, 0.100, 0.120};
    add_region(e, 3, 2, names[mode][0], AA_KIND_FUNCTION);
    add_region(e, 4, 2, names[mode][1], AA_KIND_FUNCTION);
    for (r = 0; r < P; r++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, r), 0);
        double jit = 1 + 0.002 * sin(r * 1.7), latest = latest_of[mode];
        double a3 = mode == 0 ? (r < P / 3 ? 0.060 : 0)
                  : mode == 1 ? 0.030 : (r < P / 2 ? (mode == 4 ? 0.070 : 0.060) : 0.030);
        double a4 = mode == 0 ? (r < P / 3 ? 0 : 0.030)
                  : mode == 1 ? (r == 0 ? 0.020 : 0) : (r < P / 2 ? 0.030 : 0.060);
        double lost = mode == 5 ? 0.030 : 0; /* preempted in phase_b */
        double work = (a3 + a4) * jit, wait = latest - a3 - a4 - lost + 1e-4, *v;
        long path[3];
        path[0] = aa_thread_add_node(e, t, 0, -1);
        path[1] = aa_thread_add_node(e, t, 1, (int32_t)path[0]);
        path[2] = aa_thread_add_node(e, t, 2, (int32_t)path[1]);
        if (a3 > 0) {
            v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, 3, (int32_t)path[2]));
            v[mwl] = v[mcp] = a3 * jit, v[mv] = 40, v[mq] = a3 * jit * a3 * jit / 40;
        }
        if (a4 > 0) {
            v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, 4, (int32_t)path[2]));
            v[mwl] = v[mcp] = a4 * jit, v[mv] = 40, v[mq] = a4 * jit * a4 * jit / 40;
            v[mwl] += lost;
        }
        for (k = 0; k < 3; k++) {
            v = aa_node_values(e, t, (size_t)path[k]);
            v[mcp] = work + (k < 2 ? 0.01 : 0);
            v[mwl] = v[mcp] + lost + wait;
            v[mv] = 1;
            v[mq] = v[mcp] * v[mcp];
            v[mw] = v[mc] = wait;
        }
    }
    e->nprocs = P;
    return e;
}

/* The balanced sample as 4 ranks on 2 CPUs run it on a loaded virtual
 * machine (bench/diagnosis.md, twenty-fifth step): P processes, a
 * time-step loop (region 2 in main) of 200 steps calling sweep (region 3,
 * 40 ms) and residual (region 4, 50 ms), ending in an allreduce; the odd
 * ranks shared CPU 1, whose pace made them 18% slower in sweep and 22% in
 * residual, the even ones CPU 0; the others wait for them.  own_cpus: each
 * process on a CPU of its own instead (no CPU shared). */
/* test_cpu_pace_exp with the runtime's measured pace (spin > 0: the odd
 * ranks' spin takes spin times the even ranks' 600 ns, MAD 30 ns over 100
 * samples; spin < 0: measured on the even ranks only) and `extra` times the
 * work in sweep on the odd ranks (1: none). */
static inline aa_experiment *test_cpu_pace_exp_spin(int own_cpus, int P, double spin,
                                                    double extra);
static inline aa_experiment *test_cpu_pace_exp(int own_cpus, int P)
{
    return test_cpu_pace_exp_spin(own_cpus, P, 0, 1);
}

static inline aa_experiment *test_cpu_pace_exp_spin(int own_cpus, int P, double spin,
                                                    double extra)
{
    aa_experiment *e = test_loop_exp_new();
    int r, k;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@10", AA_KIND_LOOP);
    add_region(e, 3, 2, "sweep", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "residual", AA_KIND_FUNCTION);
    for (r = 0; r < P; r++) {
        aa_process *p = aa_experiment_add_process(e, r);
        aa_thread *t = aa_process_add_thread(p, 0);
        double jit = 1 + 0.002 * sin(r * 1.7), a[2] = {0.040, 0.050}, pace[2] = {1.18, 1.22};
        double work = 0, wait, *v;
        long path[3];
        char buf[32];
        path[0] = aa_thread_add_node(e, t, 0, -1);
        path[1] = aa_thread_add_node(e, t, 1, (int32_t)path[0]);
        path[2] = aa_thread_add_node(e, t, 2, (int32_t)path[1]);
        for (k = 0; k < 2; k++) {
            double x = a[k] * jit * (r % 2 ? pace[k] * (k == 0 ? extra : 1) : 1);
            v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, (uint32_t)(3 + k),
                                                                (int32_t)path[2]));
            v[TL_WALL] = v[TL_CPU] = x, v[TL_VISITS] = 200, v[TL_CPU_SQ] = x * x / 200;
            work += x;
        }
        wait = 0.040 * 1.18 * extra + 0.050 * 1.22 - work + 1e-3;
        for (k = 0; k < 3; k++) {
            v = aa_node_values(e, t, (size_t)path[k]);
            v[TL_CPU] = work + (k < 2 ? 0.002 : 0);
            v[TL_WALL] = v[TL_CPU] + wait;
            v[TL_VISITS] = k < 2 ? 1 : 200;
            v[TL_CPU_SQ] = k < 2 ? v[TL_CPU] * v[TL_CPU] : v[TL_CPU] * v[TL_CPU] / 200;
            v[TL_MPI_WALL] = v[TL_MPI_COLL] = wait;
        }
        free(p->host);
        p->host = strdup("node1");
        if (own_cpus)
            snprintf(buf, sizeof buf, "%d:1.000", r);
        else
            snprintf(buf, sizeof buf, "%d:0.990,%d:0.010", r % 2, 1 - r % 2);
        aa_process_set_attr(p, "cpus", buf);
        if (spin > 0 || (spin < 0 && r % 2 == 0)) {
            snprintf(buf, sizeof buf, "%.1f", 600 * (r % 2 ? fabs(spin) : 1) * jit);
            aa_process_set_attr(p, "pace_ns", buf);
            aa_process_set_attr(p, "pace_mad_ns", "30");
            aa_process_set_attr(p, "pace_samples", "100");
        }
    }
    e->nprocs = P;
    return e;
}

/* One rank of a bulk-synchronous loop of kernels (regions prog 0, main 1,
 * loop 2 and the kernels 3.. the caller added): kernel k takes x[k] s of
 * CPU time over 30 visits (none when x[k] is 0), each visit varying by
 * visit_cv (relative); the rank waits in MPI for the rest of a loop of
 * `loop` s.  Returns the process, for its attributes. */
static inline aa_process *test_kernels_rank(aa_experiment *e, int r, size_t nk, const double *x,
                                            double visit_cv, double loop)
{
    aa_process *p = aa_experiment_add_process(e, r);
    aa_thread *t = aa_process_add_thread(p, 0);
    double work = 0, wait, *v;
    long path[3];
    size_t k;
    path[0] = aa_thread_add_node(e, t, 0, -1);
    path[1] = aa_thread_add_node(e, t, 1, (int32_t)path[0]);
    path[2] = aa_thread_add_node(e, t, 2, (int32_t)path[1]);
    for (k = 0; k < nk; k++) {
        if (!(x[k] > 0))
            continue;
        v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, (uint32_t)(3 + k),
                                                            (int32_t)path[2]));
        v[TL_WALL] = v[TL_CPU] = x[k], v[TL_VISITS] = 30;
        v[TL_CPU_SQ] = x[k] * x[k] / 30 * (1 + visit_cv * visit_cv);
        work += x[k];
    }
    wait = loop - work;
    for (k = 0; k < 3; k++) {
        v = aa_node_values(e, t, (size_t)path[k]);
        v[TL_CPU] = work + (k < 2 ? 0.002 : 0.001);
        v[TL_WALL] = v[TL_CPU] + wait;
        v[TL_VISITS] = k < 2 ? 1 : 30;
        v[TL_CPU_SQ] = k < 2 ? v[TL_CPU] * v[TL_CPU] : v[TL_CPU] * v[TL_CPU] / 30;
        v[TL_MPI_WALL] = v[TL_MPI_COLL] = wait;
    }
    return p;
}

/* The process's CPU (cpus attribute) and, pace_ns > 0, the pace the
 * runtime measured (MAD 40 ns over 200 spins). */
static inline void test_set_cpu_pace(aa_process *p, int cpu, double pace_ns)
{
    char buf[32];
    free(p->host);
    p->host = strdup("node1");
    snprintf(buf, sizeof buf, "%d:1.000", cpu);
    aa_process_set_attr(p, "cpus", buf);
    if (pace_ns > 0) {
        snprintf(buf, sizeof buf, "%.1f", pace_ns);
        aa_process_set_attr(p, "pace_ns", buf);
        aa_process_set_attr(p, "pace_mad_ns", "40");
        aa_process_set_attr(p, "pace_samples", "200");
    }
}

/* Eight ranks on two CPUs of different paces (the edge probe cxx_virtual,
 * twice): ranks 0,4 on the faster CPU, ranks 2,3,6,7 on the slower one,
 * both kernels 26% slower there; ranks 1,5 have 3x the fluid work.  The
 * spin timed 19% slower on the slower CPU; fluid_x scales ranks 2,3,6,7's
 * fluid time. */
static inline aa_experiment *test_pace_split_exp(int spin, double fluid_x)
{
    aa_experiment *e = test_loop_exp_new();
    static const double solid[4] = {0.0600, 0.0500, 0.0760, 0.0770};
    static const double fluid[4] = {0.0560, 0.1440, 0.0710, 0.0700};
    static const double pace[4] = {573, 494, 682, 681};
    int r;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@25", AA_KIND_LOOP);
    add_region(e, 3, 2, "Solid::step", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "Fluid::step", AA_KIND_FUNCTION);
    for (r = 0; r < 8; r++) {
        int role = r % 4;
        double jit = 1 + 0.003 * sin(r * 1.3);
        double x[2] = {solid[role] * jit, fluid[role] * jit * (role >= 2 ? fluid_x : 1)};
        test_set_cpu_pace(test_kernels_rank(e, r, 2, x, 0, 0.250), role >= 2 ? 0 : 1,
                          spin ? pace[role] * jit : 0);
    }
    e->nprocs = 8;
    return e;
}

/* Eight ranks on two CPUs of different paces, ranks 0,4 writing the
 * output (the edge probe root_io, twice): compute 38% slower on the slower
 * CPU's ranks 0,4 and 2,6 than on 1,5 and 3,7, write only on ranks 0,4;
 * with spin, the paces the runtime measured (the slower CPU 18% slower). */
static inline aa_experiment *test_writer_split_exp(int spin)
{
    aa_experiment *e = test_loop_exp_new();
    static const double compute[4] = {0.0907, 0.0668, 0.0927, 0.0660};
    static const double pace[4] = {635, 586, 697, 543};
    int r;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@35", AA_KIND_LOOP);
    add_region(e, 3, 2, "compute", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "write_field", AA_KIND_FUNCTION);
    for (r = 0; r < 8; r++) {
        int role = r % 4;
        double jit = 1 + 0.003 * sin(r * 1.3);
        double x[2] = {compute[role] * jit, role == 0 ? 0.1000 * jit : 0};
        test_set_cpu_pace(test_kernels_rank(e, r, 2, x, 0, 0.250), role % 2 ? 0 : 1,
                          spin ? pace[role] * jit : 0);
    }
    e->nprocs = 8;
    return e;
}

/* The edge probe fnptr_dispatch: ranks 0-2 smooth coarse (rank 2 3.5%
 * slower there), rank 3 fine (3x); gather the same everywhere, 0.3% apart,
 * the only region of the same work.  visit_cv: how much one of the 30
 * visits varies (relative), which makes the totals vary by visit_cv /
 * sqrt(30). */
static inline aa_experiment *test_few_regions_exp(double visit_cv)
{
    aa_experiment *e = test_loop_exp_new();
    static const double coarse[4] = {0.0961, 0.0967, 0.0996, 0};
    static const double gather[4] = {0.0495, 0.0499, 0.0500, 0.0495};
    static const double fine[4] = {0, 0, 0, 0.2512};
    int r;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@24", AA_KIND_LOOP);
    add_region(e, 3, 2, "smooth_coarse", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "gather", AA_KIND_FUNCTION);
    add_region(e, 5, 2, "smooth_fine", AA_KIND_FUNCTION);
    for (r = 0; r < 4; r++) {
        double x[3] = {coarse[r], gather[r], fine[r]};
        test_kernels_rank(e, r, 3, x, visit_cv, 0.320);
    }
    e->nprocs = 4;
    return e;
}

/* One kernel called from two sweeps beside five phases, P processes alike
 * (a bulk-synchronous loop, 1 s of work each): mode 0: the kernel 13% of
 * the run in each sweep, the phases 14-15% (a hotspot only over the
 * kernel's two calling contexts, 26%); mode 1: the second sweep calls
 * another function (no hotspot); mode 2: the kernel 5% in each (10% over
 * both: none); mode 3: the kernel 25% in sweep_x (a hotspot alone), 12%
 * in sweep_y and 12% in phase_a, which calls it too (49% over three
 * contexts), the other phases 11.75-14.75%.  Region ids: sweep_x 3,
 * sweep_y 4, kernel 5, kernel2 6, phases 7-11. */
static inline aa_experiment *test_context_exp(int mode, int P)
{
    static const char *const phase[5] = {"phase_a", "phase_b", "phase_c", "phase_d", "phase_e"};
    aa_experiment *e = test_loop_exp_new();
    double kern = mode == 2 ? 0.05 : 0.13, rest = (1 - 2 * kern) / 5;
    int r, k;
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region_in(e, 1, 0, "main", AA_KIND_FUNCTION, "main");
    add_region_in(e, 2, 1, "loop@10", AA_KIND_LOOP, "main");
    add_region_in(e, 3, 2, "sweep_x", AA_KIND_FUNCTION, "sweep_x");
    add_region_in(e, 4, 2, "sweep_y", AA_KIND_FUNCTION, "sweep_y");
    add_region_in(e, 5, 3, "kernel", AA_KIND_FUNCTION, "kernel");
    add_region_in(e, 6, 4, "kernel2", AA_KIND_FUNCTION, "kernel2");
    for (k = 0; k < 5; k++)
        add_region_in(e, (uint32_t)(7 + k), 2, phase[k], AA_KIND_FUNCTION, phase[k]);
    for (r = 0; r < P; r++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, r), 0);
        double jit = 1 + 0.001 * sin(r * 2.3), work = 0, wait = 0.002 + 0.001 * cos(r), *v;
        long path[3], sw;
        path[0] = aa_thread_add_node(e, t, 0, -1);
        path[1] = aa_thread_add_node(e, t, 1, (int32_t)path[0]);
        path[2] = aa_thread_add_node(e, t, 2, (int32_t)path[1]);
        for (k = 0; k < 7; k++) {
            /* mode 3: the sweeps 25% and 12%, phase_a 12%, the others 51% */
            int calls = k < 2 || (mode == 3 && k == 2);
            double x = (mode == 3 ? (k == 0 ? 0.25 : k < 3 ? 0.12 : 0.1275 + 0.01 * (k - 4))
                        : k < 2     ? kern
                                    : rest + 0.01 * (k - 4)) *
                       jit;
            uint32_t id = k < 2 ? (uint32_t)(3 + k) : (uint32_t)(5 + k);
            long nd = aa_thread_add_node(e, t, id, (int32_t)path[2]);
            v = aa_node_values(e, t, (size_t)nd);
            v[TL_WALL] = v[TL_CPU] = x, v[TL_VISITS] = 200, v[TL_CPU_SQ] = x * x / 200;
            if (calls) { /* it calls the kernel: its own code nothing */
                sw = aa_thread_add_node(e, t, k == 1 && mode == 1 ? 6 : 5, (int32_t)nd);
                v = aa_node_values(e, t, (size_t)sw);
                v[TL_WALL] = v[TL_CPU] = x, v[TL_VISITS] = 200, v[TL_CPU_SQ] = x * x / 200;
            }
            work += x;
        }
        for (k = 0; k < 3; k++) {
            v = aa_node_values(e, t, (size_t)path[k]);
            v[TL_CPU] = work;
            v[TL_WALL] = work + wait;
            v[TL_VISITS] = k < 2 ? 1 : 200;
            v[TL_CPU_SQ] = k < 2 ? work * work : work * work / 200;
            v[TL_MPI_WALL] = v[TL_MPI_COLL] = wait;
        }
    }
    e->nprocs = P;
    return e;
}

#endif
