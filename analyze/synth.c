/*
 * analyze/synth.c -- synthetic experiments with known injected bottlenecks,
 * for the analyzer's tests and benchmarks (docs/analysis.md, "Synthetic
 * experiments").  The program is SPMD:
 *
 *   main -> init -> loop@init
 *        -> solve -> loop@outer -> loop@inner ; MPI_Allreduce
 *        -> transpose -> loop@transpose
 *        -> exchange -> MPI_Alltoall
 *        -> output -> write
 *        -> helper_k -> loop@helper_k      (extra regions)
 *
 * Every node gets exclusive quantities (wall, CPU, MPI and I/O time, CPI,
 * cache access rates and miss rates, bytes) with multiplicative noise; the
 * generator sums them up the tree so every metric is inclusive, like the
 * runtime records them.  Scenarios change one region (see aa_analyze.h).
 * The solve loop calls MPI in its body: 100 steps, each step's work (the
 * inner loop's) and wait paired as the runtime pairs them (sync_*,
 * docs/runtime.md), unrelated to each other but in the dynamic scenario.
 */
#include "analyze/aa_analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    R_MAIN = 1, R_INIT, R_INIT_LOOP, R_SOLVE, R_OUTER, R_INNER, R_ALLREDUCE, R_TRANSPOSE,
    R_TRANSPOSE_LOOP, R_EXCHANGE, R_ALLTOALL, R_OUTPUT, R_WRITE, R_FIXED_ = R_WRITE
};

enum { Q_WALL, Q_CPU, Q_MPIW, Q_MPIC, Q_CYC, Q_INS, Q_L1A, Q_L1M, Q_L2A, Q_L2M, Q_SENT, Q_RECV,
       Q_IOR, Q_IOW, Q_IOT, Q_MPICALLS, Q_N };

static const char *const metric_names[] = {
    "wall", "cpu", "mpi_wall", "mpi_cpu", "cycles", "instructions", "l1_dca", "l1_dcm",
    "l2_dca", "l2_dcm", "mpi_bytes_sent", "mpi_bytes_recv", "io_read_bytes", "io_write_bytes",
    "io_time", "mpi_calls"};

void aa_synth_options_init(aa_synth_options *o)
{
    memset(o, 0, sizeof *o);
    o->nprocs = 16;
    o->nregions = 20;
    o->noise = 0.02;
    o->seed = 1;
    o->nthreads = 1;
}

int aa_synth_scenario_parse(const char *s, aa_synth_scenario *out)
{
    static const char *const names[] = {"none",      "slow-group", "l2",
                                        "disk-io",   "mpi-bytes",  "dynamic"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (aa_synth_scenario)i;
            return 0;
        }
    return -1;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double noisy(uint64_t *s, double v, double noise)
{
    double u = (double)(rng_next(s) >> 11) / 9007199254740992.0; /* [0,1) */
    return v * (1 + noise * (2 * u - 1));
}

typedef struct sregion {
    uint32_t id, parent;
    aa_region_kind kind;
    const char *name;
    const char *function;
    int line;
} sregion;

/* Exclusive behaviour of one node on one process. */
static const char *const sync_names[6] = {"sync_steps", "sync_work", "sync_wait",
                                          "sync_work_sq", "sync_wait_sq", "sync_cross"};
#define SYNTH_STEPS 100

/* The sums of one process's steps in the solve loop (SYNTH_STEPS, the first
 * a start only): work w of the inner loop (inner: its CPU time over the
 * run), wait t in the allreduce (wait: its time over the run); in the
 * dynamic scenario a different quarter of the processes does 3x the work
 * each step (p: the process) and every process waits for them. */
static void sync_sums(uint64_t *seed, int dynamic, int p, double inner, double wait,
                      double noise, double out[6])
{
    int k;
    double base = dynamic ? inner / (1.5 * SYNTH_STEPS) : inner / SYNTH_STEPS;
    memset(out, 0, 6 * sizeof *out);
    for (k = 0; k < SYNTH_STEPS; k++) {
        int heavy = dynamic && (k + p) % 4 == 0;
        double w = noisy(seed, base * (heavy ? 3 : 1), noise), t;
        t = dynamic ? fmax(0, 3 * base - w) + wait / SYNTH_STEPS
                    : noisy(seed, wait / SYNTH_STEPS, noise);
        if (k == 0)
            continue;
        out[0] += 1, out[1] += w, out[2] += t;
        out[3] += w * w, out[4] += t * t, out[5] += w * t;
    }
}

typedef struct sexcl {
    double compute; /* CPU seconds of computation */
    double cpi;
    double l1rate, l2rate;
    double mpi_wait; /* wall in MPI */
    double mpi_poll; /* share of MPI wall spent busy-polling (CPU) */
    double bytes;    /* MPI bytes sent (= received) */
    double io_time, io_bytes;
    double mpi_calls;
} sexcl;

int aa_synth_generate(const aa_synth_options *o, aa_experiment **out, uint32_t *expect_region,
                      const char **expect_cause, aa_err *err)
{
    aa_experiment *e = NULL;
    size_t nreg = o->nregions < R_FIXED_ ? R_FIXED_ : o->nregions, i, nh;
    size_t total = nreg + (o->master ? 2 : 0);
    sregion *rg = calloc(total + 1, sizeof *rg);
    char **names = calloc(total + 1, sizeof *names);
    int mi[Q_N], msync[6], vis, wex, p, t, nth = o->nthreads > 0 ? o->nthreads : 1;
    int np = o->nprocs > 0 ? o->nprocs : 1;
    uint64_t seed = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)o->seed * 0x2545f4914f6cdd1dULL);
    double *inc = NULL, *chw = NULL;
    sexcl *ex = NULL;
    int rc = AA_OK;
    if (expect_region)
        *expect_region = 0;
    if (expect_cause)
        *expect_cause = "";
    if (!rg || !names)
        goto oom;
    {
        static const sregion fixed[] = {
            {R_MAIN, 0, AA_KIND_FUNCTION, "main", "main", 10},
            {R_INIT, R_MAIN, AA_KIND_FUNCTION, "init", "init", 30},
            {R_INIT_LOOP, R_INIT, AA_KIND_LOOP, "loop@34", "init", 34},
            {R_SOLVE, R_MAIN, AA_KIND_FUNCTION, "solve", "solve", 50},
            {R_OUTER, R_SOLVE, AA_KIND_LOOP, "loop@53", "solve", 53},
            {R_INNER, R_OUTER, AA_KIND_LOOP, "loop@55", "solve", 55},
            {R_ALLREDUCE, R_SOLVE, AA_KIND_CALL, "MPI_Allreduce@61", "solve", 61},
            {R_TRANSPOSE, R_MAIN, AA_KIND_FUNCTION, "transpose", "transpose", 70},
            {R_TRANSPOSE_LOOP, R_TRANSPOSE, AA_KIND_LOOP, "loop@73", "transpose", 73},
            {R_EXCHANGE, R_MAIN, AA_KIND_FUNCTION, "exchange", "exchange", 90},
            {R_ALLTOALL, R_EXCHANGE, AA_KIND_CALL, "MPI_Alltoall@94", "exchange", 94},
            {R_OUTPUT, R_MAIN, AA_KIND_FUNCTION, "output", "output", 110},
            {R_WRITE, R_OUTPUT, AA_KIND_CALL, "write@115", "output", 115},
        };
        memcpy(rg + 1, fixed, sizeof fixed);
    }
    nh = 0;
    for (i = R_FIXED_ + 1; i <= total; i++) {
        char buf[64];
        int is_master_region = o->master && i > nreg;
        rg[i].id = (uint32_t)i;
        rg[i].line = (int)(200 + 10 * i);
        if (is_master_region) {
            int loop = i == nreg + 2;
            rg[i].kind = loop ? AA_KIND_LOOP : AA_KIND_FUNCTION;
            rg[i].parent = loop ? (uint32_t)(nreg + 1) : R_MAIN;
            snprintf(buf, sizeof buf, loop ? "loop@%d" : "manage", rg[i].line);
            names[i] = aa_strdup(buf);
            rg[i].function = "manage";
        } else if ((i - R_FIXED_) % 2 == 1) { /* helper function */
            snprintf(buf, sizeof buf, "helper_%zu", nh++);
            names[i] = aa_strdup(buf);
            rg[i].kind = AA_KIND_FUNCTION;
            rg[i].parent = R_MAIN;
            rg[i].function = NULL; /* = its name */
        } else {                   /* its loop */
            snprintf(buf, sizeof buf, "loop@%d", rg[i].line);
            names[i] = aa_strdup(buf);
            rg[i].kind = AA_KIND_LOOP;
            rg[i].parent = (uint32_t)(i - 1);
        }
        if (!names[i])
            goto oom;
        rg[i].name = names[i];
    }
    if (!(e = aa_experiment_new()))
        goto oom;
    {
        char idb[64];
        snprintf(idb, sizeof idb, "synth-%u-%d", o->seed, (int)o->scenario);
        e->id = aa_strdup(idb);
        e->program = aa_strdup("synth");
        e->nprocs = np;
        if (!e->id || !e->program)
            goto oom;
    }
    {
        aa_region root;
        memset(&root, 0, sizeof root);
        root.id = 0;
        root.kind = AA_KIND_PROGRAM;
        root.name = "synth";
        root.function = "";
        root.file = "";
        if (aa_experiment_add_region(e, &root))
            goto oom;
    }
    for (i = 1; i <= total; i++) {
        aa_region r;
        memset(&r, 0, sizeof r);
        r.id = rg[i].id;
        r.kind = rg[i].kind;
        r.name = (char *)rg[i].name;
        r.function = (char *)(rg[i].function ? rg[i].function : rg[i].name);
        r.file = "synth.c";
        r.line = rg[i].line;
        r.parent = rg[i].parent;
        if (aa_experiment_add_region(e, &r))
            goto oom;
    }
    if ((vis = aa_experiment_add_metric(e, "visits", "count")) < 0 ||
        (wex = aa_experiment_add_metric(e, "wall_excl", "s")) < 0)
        goto oom;
    for (i = 0; i < Q_N; i++) {
        const aa_metric_info *mi_ = aa_metric_lookup(metric_names[i]);
        mi[i] = aa_experiment_add_metric(e, metric_names[i], mi_ ? mi_->unit : "count");
        if (mi[i] < 0)
            goto oom;
    }
    for (i = 0; i < 6; i++)
        if ((msync[i] = aa_experiment_add_metric(e, sync_names[i], i == 0 ? "count"
                                                                   : i < 3 ? "s" : "s2")) < 0)
            goto oom;
    inc = malloc((total + 1) * Q_N * sizeof *inc);
    ex = malloc((total + 1) * sizeof *ex);
    chw = malloc((total + 1) * sizeof *chw);
    if (!inc || !ex || !chw)
        goto oom;
    for (p = 0; p < np; p++) {
        aa_process *pr = aa_experiment_add_process(e, p);
        int master = o->master && p == 0;
        int slow = o->scenario == AA_SYNTH_SLOW_GROUP && np >= 4 && p % 4 == 1;
        double inner_extra = 0;
        char host[32];
        if (!pr)
            goto oom;
        snprintf(host, sizeof host, "node%d", p / 8);
        free(pr->host);
        pr->host = aa_strdup(host);
        pr->pid = 1000 + p;
        if (o->no_counters) {
            static const char *const hw[] = {"cycles", "instructions", "l1_dca", "l1_dcm",
                                             "l2_dca", "l2_dcm"};
            for (i = 0; i < 6; i++)
                if (aa_process_add_unavailable(pr, hw[i]))
                    goto oom;
        }
        /* exclusive behaviour */
        memset(ex, 0, (total + 1) * sizeof *ex);
        for (i = 1; i <= total; i++) {
            sexcl *x = &ex[i];
            x->cpi = 1.0;
            x->l1rate = 0.05;
            x->l2rate = 0.10;
            x->compute = 0.02; /* function bodies */
        }
        ex[R_MAIN].compute = 0.05;
        ex[R_INIT_LOOP].compute = 0.40;
        ex[R_OUTER].compute = 0.02;
        ex[R_INNER].compute = 0.60;
        ex[R_TRANSPOSE_LOOP].compute = 0.40;
        ex[R_ALLREDUCE].compute = 0.0;
        ex[R_ALLREDUCE].mpi_wait = 0.05;
        ex[R_ALLREDUCE].bytes = 8;
        ex[R_ALLREDUCE].mpi_calls = 100;
        ex[R_ALLTOALL].compute = 0.0;
        ex[R_ALLTOALL].mpi_wait = 0.30;
        ex[R_ALLTOALL].bytes = 1e6;
        ex[R_ALLTOALL].mpi_calls = 10;
        ex[R_WRITE].compute = 0.01;
        ex[R_WRITE].io_time = 0.20;
        ex[R_WRITE].io_bytes = 1e6;
        ex[R_WRITE].cpi = 1.5;
        ex[R_ALLREDUCE].cpi = ex[R_ALLTOALL].cpi = 1.2; /* busy polling */
        ex[R_ALLREDUCE].mpi_poll = ex[R_ALLTOALL].mpi_poll = 1.0;
        /* helpers: 0.5 s in total, uneven */
        if (nh) {
            double wsum = 0;
            size_t k = 0;
            for (i = R_FIXED_ + 1; i <= nreg; i += 2)
                wsum += (double)(k++ % 4 + 1);
            k = 0;
            for (i = R_FIXED_ + 1; i <= nreg; i += 2) {
                double share = 0.5 * (double)(k++ % 4 + 1) / wsum;
                ex[i].compute = 0.1 * share;
                if (i + 1 <= nreg)
                    ex[i + 1].compute = 0.9 * share;
                else
                    ex[i].compute = share;
            }
        }
        switch (o->scenario) {
        case AA_SYNTH_SLOW_GROUP:
            if (slow) /* 3x the work */
                ex[R_INNER].compute *= 3;
            /* everyone else waits for the slow group in the Allreduce */
            inner_extra = 0.60 * 2;
            if (!slow && np >= 4)
                ex[R_ALLREDUCE].mpi_wait += inner_extra;
            break;
        case AA_SYNTH_L2: /* same instructions, 8x the cycles */
            ex[R_TRANSPOSE_LOOP].compute *= 8;
            ex[R_TRANSPOSE_LOOP].cpi = 8;
            ex[R_TRANSPOSE_LOOP].l2rate = 0.6;
            break;
        case AA_SYNTH_DISK_IO:
            ex[R_WRITE].io_time = 3.0;
            ex[R_WRITE].io_bytes = 5e9;
            break;
        case AA_SYNTH_MPI_BYTES:
            ex[R_ALLTOALL].mpi_wait = 3.0;
            ex[R_ALLTOALL].bytes = 1e9;
            break;
        case AA_SYNTH_DYNAMIC: /* 1.5x the work, a different quarter 3x each step */
            ex[R_INNER].compute *= 1.5;
            ex[R_ALLREDUCE].mpi_wait += 0.60 * 0.75;
            break;
        default:
            break;
        }
        for (t = 0; t < nth; t++) {
            aa_thread *th = aa_process_add_thread(pr, t);
            long node_of[4096];
            long *nodes = total + 1 <= 4096 ? node_of : malloc((total + 1) * sizeof *nodes);
            double share = 1.0 / nth;
            if (!th || !nodes)
                goto oom;
            memset(inc, 0, (total + 1) * Q_N * sizeof *inc);
            for (i = total; i >= 1; i--) { /* children have higher ids */
                sexcl *x = &ex[i];
                double *q = inc + i * Q_N, cpu, mpiw, iot, cyc, ins;
                int runs = master ? (i == R_MAIN || i > nreg) : (i <= nreg);
                if (!runs)
                    continue;
                cpu = noisy(&seed, x->compute, o->noise) * share;
                mpiw = noisy(&seed, x->mpi_wait, o->noise) * share;
                iot = noisy(&seed, x->io_time, o->noise) * share;
                if (master && i > nreg)
                    cpu = (i == nreg + 2 ? 6.0 : 0.1) * share; /* the manage loop */
                cyc = (cpu + mpiw * x->mpi_poll + iot * 0.05) * 2e9;
                ins = cyc / noisy(&seed, x->cpi, o->noise);
                q[Q_WALL] += cpu + mpiw + iot;
                q[Q_CPU] += cpu + mpiw * x->mpi_poll + iot * 0.05;
                q[Q_MPIW] += mpiw;
                q[Q_MPIC] += mpiw * x->mpi_poll;
                q[Q_CYC] += cyc;
                q[Q_INS] += ins;
                q[Q_L1A] += 0.4 * ins;
                q[Q_L1M] += 0.4 * ins * noisy(&seed, x->l1rate, o->noise);
                q[Q_L2A] += 0.05 * ins;
                q[Q_L2M] += 0.05 * ins * noisy(&seed, x->l2rate, o->noise);
                q[Q_SENT] += noisy(&seed, x->bytes, o->noise) * share;
                q[Q_RECV] += noisy(&seed, x->bytes, o->noise) * share;
                q[Q_IOW] += noisy(&seed, x->io_bytes, o->noise) * share;
                q[Q_IOT] += iot;
                q[Q_MPICALLS] += x->mpi_calls * share;
                {
                    size_t k;
                    double *pq = inc + rg[i].parent * Q_N;
                    for (k = 0; k < Q_N; k++)
                        pq[k] += q[k];
                }
            }
            /* nodes in preorder: parents (lower ids) first */
            nodes[0] = aa_thread_add_node(e, th, 0, -1);
            if (nodes[0] < 0)
                goto oom;
            for (i = 1; i <= total; i++) {
                int runs = master ? (i == R_MAIN || i > nreg) : (i <= nreg);
                nodes[i] = -1;
                if (!runs)
                    continue;
                nodes[i] = aa_thread_add_node(e, th, rg[i].id, (int32_t)nodes[rg[i].parent]);
                if (nodes[i] < 0)
                    goto oom;
            }
            memset(chw, 0, (total + 1) * sizeof *chw);
            for (i = 1; i <= total; i++)
                if (nodes[i] >= 0)
                    chw[rg[i].parent] += inc[i * Q_N + Q_WALL];
            for (i = 0; i <= total; i++) {
                double *v, ch = chw[i];
                size_t k;
                if (nodes[i] < 0)
                    continue;
                v = aa_node_values(e, th, (size_t)nodes[i]);
                for (k = 0; k < Q_N; k++) {
                    v[mi[k]] = inc[i * Q_N + k];
                    if (o->no_counters && k >= Q_CYC && k <= Q_L2M)
                        v[mi[k]] = NAN;
                }
                v[vis] = i == 0 ? 1 : (rg[i].kind == AA_KIND_LOOP ? 100 : 1);
                v[wex] = fmax(0, inc[i * Q_N + Q_WALL] - ch);
            }
            if (t == 0 && !master && nodes[R_OUTER] >= 0) {
                double sums[6];
                const size_t path[4] = {R_OUTER, R_SOLVE, R_MAIN, 0};
                size_t k, j;
                /* a stream of its own: the other metrics' draws stay as they were */
                uint64_t sseed = 0x2545f4914f6cdd1dULL ^ ((uint64_t)o->seed << 20) ^ (uint64_t)p;
                sync_sums(&sseed, o->scenario == AA_SYNTH_DYNAMIC, p, ex[R_INNER].compute,
                          ex[R_ALLREDUCE].mpi_wait, o->noise, sums);
                for (j = 0; j < 4; j++) /* inclusive, as the runtime's */
                    for (k = 0; k < 6; k++)
                        aa_node_values(e, th, (size_t)nodes[path[j]])[msync[k]] = sums[k];
            }
            if (nodes != node_of)
                free(nodes);
        }
        (void)inner_extra;
    }
    switch (o->scenario) {
    case AA_SYNTH_SLOW_GROUP:
        if (expect_region)
            *expect_region = R_INNER;
        if (expect_cause)
            *expect_cause = "instructions";
        break;
    case AA_SYNTH_L2:
        if (expect_region)
            *expect_region = R_TRANSPOSE_LOOP;
        if (expect_cause)
            *expect_cause = "l2_miss_rate";
        break;
    case AA_SYNTH_DISK_IO:
        if (expect_region)
            *expect_region = R_WRITE;
        if (expect_cause)
            *expect_cause = "disk_io_bytes";
        break;
    case AA_SYNTH_MPI_BYTES:
        if (expect_region)
            *expect_region = R_ALLTOALL;
        if (expect_cause)
            *expect_cause = "mpi_bytes";
        break;
    case AA_SYNTH_DYNAMIC: /* no cpu_sq: the step region's own code */
        if (expect_region)
            *expect_region = R_OUTER;
        break;
    default:
        break;
    }
    goto done;
oom:
    rc = aa_err_set(err, AA_EENV, "synth: out of memory");
    aa_experiment_free(e);
    e = NULL;
done:
    if (names)
        for (i = 0; i <= total; i++)
            free(names[i]);
    free(names);
    free(rg);
    free(inc);
    free(ex);
    free(chw);
    *out = e;
    return rc;
}
