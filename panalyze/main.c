/*
 * panalyze/main.c -- `autoanalyzer-analyze-mpi`, the analysis as an MPI
 * job (`mpirun -np N autoanalyzer-analyze-mpi ...`): every rank loads the
 * profiles of a contiguous block of the run's processes, the analysis
 * (aa_analyze_parallel, analyze/parallel.c) exchanges only what its phases
 * need through the collectives implemented here with MPI, and rank 0
 * prints the report and writes --json/--xml exactly as `autoanalyzer
 * analyze` does.  Inputs: a directory of rank files (rank-N.xml or
 * rank-N.aab, as the runtime writes them: each rank reads its block only),
 * an experiment file (every rank reads it and takes its block), or
 * --synth (each rank generates its block: the scaling simulation).
 * --stats prints per-rank time, peak memory and collective traffic.
 * Exit status: 0 analysed, 2 usage error, 3 bad input, 4 environment.
 * A failure on some ranks only is agreed on before the analysis starts.
 */
#include "analyze/aa_analyze.h"
#include "cli/cli.h"
#include "collect/aa_collect.h"
#include "profile/aa_profile.h"

#include <dirent.h>
#include <stdarg.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static const char usage_text[] =
    "usage: mpirun -np N autoanalyzer-analyze-mpi [options] (RANKDIR | EXPERIMENT |\n"
    "           --synth SCENARIO --procs P [--regions R] [--seed S])\n"
    "\n"
    "The analysis of 'autoanalyzer analyze' as an MPI job: each rank holds the\n"
    "profiles of a block of the processes only; rank 0 writes the report.\n"
    "RANKDIR holds rank-N.xml or rank-N.aab files (each rank reads its block);\n"
    "an EXPERIMENT file is read by every rank.  --synth generates each rank's\n"
    "block of a synthetic run (scenarios of aa_synth: none, slow-group, l2,\n"
    "disk-io, mpi-bytes, dynamic).\n"
    "\n"
    "options:\n"
    "  --json FILE     write the JSON report ('-' = stdout)\n"
    "  --xml FILE      write the XML report ('-' = stdout)\n"
    "  -q, --quiet     no text report\n"
    "  --regions-json FILE  per-region distributions over the processes (n, min,\n"
    "                  median, p90, max, mean, stddev) of the inclusive wall time\n"
    "                  and of the process metric, computed with collectives\n"
    "  --stats         per-rank time, peak memory and collective traffic (stderr)\n"
    "\n" CLI_ANALYSIS_OPTIONS_HELP
    "\n"
    "exit status: 0 analysed, 2 usage error, 3 bad input, 4 environment\n";

/* The cli.h helpers that cli/analysis_opts.c calls (cli_analysis_opt; this
 * program uses cli_analysis_parse and prints its own errors). */
int cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "autoanalyzer-analyze-mpi %s: ", name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

int cli_fail(const aa_err *err)
{
    fprintf(stderr, "autoanalyzer-analyze-mpi: %s\n", err->msg[0] ? err->msg : "failed");
    return err->code ? err->code : EXIT_ENV;
}

/* ---- aa_pcomm over MPI_COMM_WORLD ------------------------------------------------- */
typedef struct mcomm {
    double ncoll;  /* collective calls */
    double nbytes; /* bytes this rank sent or received in them */
} mcomm;

static int m_sum(void *ctx, double *v, size_t n)
{
    mcomm *m = ctx;
    m->ncoll++;
    m->nbytes += 2.0 * (double)n * sizeof *v;
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) !=
           MPI_SUCCESS;
}

static int m_max(void *ctx, double *v, size_t n)
{
    mcomm *m = ctx;
    m->ncoll++;
    m->nbytes += 2.0 * (double)n * sizeof *v;
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) !=
           MPI_SUCCESS;
}

static int m_allgather(void *ctx, const void *buf, size_t n, void **all, size_t *nall)
{
    mcomm *m = ctx;
    int size, i, me = (int)n;
    int *cnt, *dsp;
    long long tot = 0;
    char *out;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cnt = malloc((size_t)size * sizeof *cnt);
    dsp = malloc((size_t)size * sizeof *dsp);
    if (!cnt || !dsp || MPI_Allgather(&me, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD)) {
        free(cnt), free(dsp);
        return 1;
    }
    for (i = 0; i < size; i++) {
        dsp[i] = (int)tot;
        tot += cnt[i];
    }
    if (tot > 0x7fffffff || !(out = malloc((size_t)tot + 1))) {
        free(cnt), free(dsp);
        return 1;
    }
    m->ncoll += 2;
    m->nbytes += (double)tot + (double)n;
    if (MPI_Allgatherv(buf, me, MPI_BYTE, out, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD)) {
        free(cnt), free(dsp), free(out);
        return 1;
    }
    free(cnt), free(dsp);
    *all = out;
    *nall = (size_t)tot;
    return 0;
}

static int m_send(void *ctx, int dest, const void *buf, size_t n)
{
    mcomm *m = ctx;
    m->nbytes += (double)n;
    if (n > 0x7fffffff)
        return 1;
    return MPI_Send(buf, (int)n, MPI_BYTE, dest, 17, MPI_COMM_WORLD) != MPI_SUCCESS;
}

static int m_recv(void *ctx, int src, void **buf, size_t *n)
{
    mcomm *m = ctx;
    MPI_Status st;
    int cnt;
    if (MPI_Probe(src, 17, MPI_COMM_WORLD, &st) || MPI_Get_count(&st, MPI_BYTE, &cnt))
        return 1;
    if (!(*buf = malloc((size_t)cnt + 1)))
        return 1;
    *n = (size_t)cnt;
    m->nbytes += (double)cnt;
    return MPI_Recv(*buf, cnt, MPI_BYTE, src, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
           MPI_SUCCESS;
}

static int m_bcast(void *ctx, void **buf, size_t *n)
{
    mcomm *m = ctx;
    long long len = (long long)*n;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    m->ncoll += 2;
    if (MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) || len > 0x7fffffff)
        return 1;
    if (rank != 0 && !(*buf = malloc((size_t)len + 1)))
        return 1;
    *n = (size_t)len;
    m->nbytes += (double)len;
    return MPI_Bcast(*buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS;
}

/* ---- loading a rank's block ------------------------------------------------------------ */
typedef struct block {
    size_t nexp, n;
    aa_experiment **exps;   /* owned */
    const aa_experiment **pe;
    const aa_process **pp;
} block;

static int block_add_exp(block *b, aa_experiment *e, size_t from, size_t to)
{
    size_t i;
    aa_experiment **ne = realloc(b->exps, (b->nexp + 1) * sizeof *ne);
    const aa_experiment **pe;
    const aa_process **pp;
    if (!ne)
        return AA_EENV;
    b->exps = ne;
    b->exps[b->nexp++] = e;
    pe = realloc(b->pe, (b->n + (to - from) + 1) * sizeof *pe);
    if (!pe)
        return AA_EENV;
    b->pe = pe;
    pp = realloc(b->pp, (b->n + (to - from) + 1) * sizeof *pp);
    if (!pp)
        return AA_EENV;
    b->pp = pp;
    for (i = from; i < to; i++) {
        b->pe[b->n] = e;
        b->pp[b->n++] = &e->processes[i];
    }
    return AA_OK;
}

static void block_free(block *b)
{
    size_t i;
    for (i = 0; i < b->nexp; i++)
        aa_experiment_free(b->exps[i]);
    free(b->exps);
    free(b->pe);
    free(b->pp);
}

/* [*lo, *hi): block `rank` of n items over `size` ranks */
static void block_range(size_t n, int rank, int size, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)rank / (size_t)size;
    *hi = n * (size_t)(rank + 1) / (size_t)size;
}

typedef struct rfile {
    long rank;
    char *name;
} rfile;

static int cmp_rfile(const void *a, const void *b)
{
    const rfile *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The rank files of dir (rank-N.xml, rank-N.xml.gz, rank-N.aab), by rank. */
static int list_rank_files(const char *dir, rfile **out, size_t *n, aa_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    rfile *f = NULL;
    size_t nf = 0;
    if (!d)
        return aa_err_set(err, AA_EINPUT, "%s: cannot open the directory", dir);
    while ((de = readdir(d))) {
        long r;
        char *end, *path;
        rfile *nfp;
        if (strncmp(de->d_name, "rank-", 5) != 0)
            continue;
        r = strtol(de->d_name + 5, &end, 10);
        if (end == de->d_name + 5 || r < 0 ||
            (strcmp(end, ".xml") && strcmp(end, ".xml.gz") && strcmp(end, ".aab")))
            continue;
        path = malloc(strlen(dir) + strlen(de->d_name) + 2);
        nfp = realloc(f, (nf + 1) * sizeof *f);
        if (!path || !nfp) {
            free(path);
            closedir(d);
            return aa_err_set(err, AA_EENV, "out of memory");
        }
        f = nfp;
        sprintf(path, "%s/%s", dir, de->d_name);
        f[nf].rank = r;
        f[nf++].name = path;
    }
    closedir(d);
    qsort(f, nf, sizeof *f, cmp_rfile);
    *out = f;
    *n = nf;
    if (!nf)
        return aa_err_set(err, AA_EINPUT, "%s: no rank-N.xml or rank-N.aab files", dir);
    return AA_OK;
}

/* Names the regions of the block's first experiment, whose region table
 * names them in the analysis, from the region maps beside the input (dir)
 * and those embedded in the program, as `autoanalyzer analyze` does:
 * Fortran rank files carry region ids only. */
static int name_regions(const char *dir, block *b, aa_err *err)
{
    aa_collect_report rep;
    int rc;
    if (!b->nexp)
        return AA_OK;
    rc = aa_collect_name_regions(dir, b->exps[0], NULL, &rep, err);
    aa_collect_report_free(&rep);
    return rc;
}

static int load_dir(const char *dir, int rank, int size, block *b, aa_err *err)
{
    rfile *f = NULL;
    size_t nf = 0, i, lo, hi;
    int rc = list_rank_files(dir, &f, &nf, err);
    if (!rc && nf < (size_t)size)
        rc = aa_err_set(err, AA_EUSAGE, "%s: %zu rank files for %d analysis ranks: run "
                        "at most one analysis rank per file", dir, nf, size);
    if (!rc) {
        block_range(nf, rank, size, &lo, &hi);
        for (i = lo; i < hi && !rc; i++) {
            aa_experiment *e = NULL;
            if (!(rc = aa_experiment_read(f[i].name, &e, err)) &&
                (rc = block_add_exp(b, e, 0, e->nprocesses))) {
                aa_experiment_free(e);
                rc = aa_err_set(err, AA_EENV, "out of memory");
            }
        }
    }
    for (i = 0; i < nf; i++)
        free(f[i].name);
    free(f);
    return rc ? rc : name_regions(dir, b, err);
}

static int load_file(const char *path, int rank, int size, block *b, aa_err *err)
{
    aa_experiment *e = NULL;
    const char *slash;
    char dir[4096];
    size_t lo, hi;
    int rc = aa_experiment_read(path, &e, err);
    if (rc)
        return rc;
    if (e->nprocesses < (size_t)size) {
        aa_experiment_free(e);
        return aa_err_set(err, AA_EUSAGE, "%s: %zu processes for %d analysis ranks: run at "
                          "most one analysis rank per process", path, e->nprocesses, size);
    }
    block_range(e->nprocesses, rank, size, &lo, &hi);
    if (block_add_exp(b, e, lo, hi)) {
        aa_experiment_free(e);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    return name_regions(dir, b, err);
}

/* Block `rank` of a synthetic run of nprocs processes: generated with its
 * own seed, its processes renumbered to their ranks in the whole run. */
/* --synth: each rank's share of the run generated SYNTH_BLOCK processes at
 * a time, on every pass of the analysis over them (an aa_psource), so that
 * a rank holds one block of profiles besides the analysis' reduced values,
 * not its whole share.  A block's processes come from the rank's seed and
 * the block's place: every pass sees the same ones; a share of at most
 * SYNTH_BLOCK processes is one block, generated as before. */
#define SYNTH_BLOCK 256

typedef struct synth_src {
    aa_synth_options so; /* the run's: nprocs is all processes */
    size_t lo, n;        /* this rank's first process and how many */
    unsigned seed;       /* this rank's */
    aa_experiment *e;    /* the block generated last */
    const aa_experiment *pe[SYNTH_BLOCK];
    const aa_process *pp[SYNTH_BLOCK];
} synth_src;

static int synth_load(void *ctx, size_t first, size_t *count, const aa_experiment *const **exps,
                      const aa_process *const **procs, aa_err *err)
{
    synth_src *s = ctx;
    aa_synth_options so = s->so;
    size_t i, n = s->n - first < SYNTH_BLOCK ? s->n - first : SYNTH_BLOCK;
    int rc;
    aa_experiment_free(s->e);
    s->e = NULL;
    so.nprocs = (int)n;
    so.seed = s->seed + (unsigned)(first / SYNTH_BLOCK) * 104729u;
    so.master = s->so.master && s->lo + first == 0; /* rank 0 only */
    if ((rc = aa_synth_generate(&so, &s->e, NULL, NULL, err)))
        return rc;
    s->e->nprocs = s->so.nprocs;
    for (i = 0; i < n; i++) {
        s->e->processes[i].rank += (int)(s->lo + first);
        s->pe[i] = s->e;
        s->pp[i] = &s->e->processes[i];
    }
    *count = n;
    *exps = s->pe;
    *procs = s->pp;
    return AA_OK;
}

/* The source of this rank's share, and in *info an experiment of the run's
 * regions (4 processes of rank 0's seed) for the report. */
static int synth_source(const aa_synth_options *so, int rank, int size, synth_src *s,
                        aa_psource *src, aa_experiment **info, aa_err *err)
{
    aa_synth_options io = *so;
    size_t hi;
    int rc;
    memset(s, 0, sizeof *s);
    block_range((size_t)so->nprocs, rank, size, &s->lo, &hi);
    if (hi == s->lo)
        return aa_err_set(err, AA_EUSAGE, "--procs %d for %d analysis ranks: run at most one "
                          "analysis rank per process", so->nprocs, size);
    s->so = *so;
    s->n = hi - s->lo;
    s->seed = so->seed + (unsigned)rank * 7919u;
    src->n = s->n;
    src->ctx = s;
    src->load = synth_load;
    io.nprocs = so->nprocs < 4 ? so->nprocs : 4;
    if ((rc = aa_synth_generate(&io, info, NULL, NULL, err)))
        return rc;
    (*info)->nprocs = so->nprocs;
    return AA_OK;
}

/* ---- the command ---------------------------------------------------------------------------- */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* The exit status every rank agrees on: the largest. */
static int agree(int rc)
{
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

static int usage_error(int rank, const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "autoanalyzer-analyze-mpi: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n(see autoanalyzer-analyze-mpi --help)\n");
    }
    return EXIT_USAGE;
}

static int exit_of(int code)
{
    return code == AA_EUSAGE ? EXIT_USAGE : code == AA_EINPUT ? EXIT_INPUT : EXIT_ENV;
}

/* text to path ('-': stdout) */
static int put_output(const char *path, const aa_buf *text, aa_err *err)
{
    return strcmp(path, "-") == 0 ? (fwrite(text->data, 1, text->len, stdout), AA_OK)
                                  : aa_write_file_atomic(path, text->data, text->len, err);
}

/* Rank 0's outputs: the text report, --json, --xml. */
static int write_outputs(const aa_analysis *a, int quiet, const char *json, const char *xml,
                         aa_err *err)
{
    int (*const format[3])(const aa_analysis *, aa_buf *) = {
        aa_analyze_format_text, aa_analyze_format_json, aa_analyze_format_xml};
    const char *const path[3] = {quiet ? NULL : "-", json, xml};
    int i, rc = AA_OK;
    for (i = 0; i < 3 && !rc; i++) {
        aa_buf b;
        if (!path[i])
            continue;
        aa_buf_init(&b);
        rc = format[i](a, &b) ? aa_err_set(err, AA_EENV, "out of memory")
                              : put_output(path[i], &b, err);
        aa_buf_free(&b);
    }
    return rc;
}

/* --regions-json: the regions' distributions (rank 0). */
static int write_dist(const aa_analysis *a, const aa_region_dist *d, const char *path,
                      aa_err *err)
{
    aa_buf b;
    int rc;
    aa_buf_init(&b);
    rc = aa_analyze_format_dist_json(a, d, &b) ? aa_err_set(err, AA_EENV, "out of memory")
                                               : put_output(path, &b, err);
    aa_buf_free(&b);
    return rc;
}

/* Time (wall; CPU in brackets: the wall time of oversubscribed ranks is
 * mostly waiting for a core), peak memory and traffic, max and mean over
 * the ranks. */
static void print_stats(int size, size_t nproc, const double *t, const mcomm *m)
{
    double v[6] = {t[0], t[1], t[2], t[3], peak_mb(), m->nbytes}, mx[6], sm[6];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(v, mx, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, sm, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr,
                "stats: %d ranks, %zu processes: load %.2f s [CPU %.2f s] (max; mean %.2f), "
                "analysis %.2f s [CPU %.2f s] (max; mean %.2f [%.2f]), peak memory per rank "
                "%.0f MB (max; mean %.0f), %.0f collective calls, %.2f MB exchanged per rank "
                "(max)\n",
                size, nproc, mx[0], mx[1], sm[0] / size, mx[2], mx[3], sm[2] / size,
                sm[3] / size, mx[4], sm[4] / size, m->ncoll, mx[5] / 1e6);
}

static int run(int argc, char **argv, int rank, int size)
{
    aa_analyze_options o;
    aa_synth_options so;
    const char *json = NULL, *xml = NULL, *input = NULL, *rjson = NULL;
    aa_region_dist *dist = NULL;
    int quiet = 0, stats = 0, synth = 0, i, rc = 0, code;
    block b;
    aa_err err;
    aa_pcomm cm;
    mcomm mc;
    aa_analysis *a = NULL;
    aa_psource src;
    synth_src ss;
    aa_experiment *info = NULL;
    double t0, t1, t2, c0, c1, c2, tv[4];
    memset(&b, 0, sizeof b);
    memset(&ss, 0, sizeof ss);
    memset(&err, 0, sizeof err);
    memset(&mc, 0, sizeof mc);
    aa_analyze_options_init(&o);
    aa_synth_options_init(&so);
    so.nprocs = 0;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        long v;
        int k = cli_analysis_parse(argc, argv, &i, &o, &err);
        if (k == CLI_AOPT_ERROR)
            return usage_error(rank, "%s", err.msg);
        if (k == CLI_AOPT_OK)
            continue;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            if (rank == 0)
                fputs(usage_text, stdout);
            return EXIT_OK;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)
            quiet = 1;
        else if (strcmp(arg, "--stats") == 0)
            stats = 1;
        else if ((strcmp(arg, "--json") == 0 || strcmp(arg, "--xml") == 0 ||
                  strcmp(arg, "--synth") == 0 || strcmp(arg, "--procs") == 0 ||
                  strcmp(arg, "--regions-json") == 0 ||
                  strcmp(arg, "--regions") == 0 || strcmp(arg, "--seed") == 0) &&
                 i + 1 >= argc)
            return usage_error(rank, "%s needs a value", arg);
        else if (strcmp(arg, "--json") == 0)
            json = argv[++i];
        else if (strcmp(arg, "--xml") == 0)
            xml = argv[++i];
        else if (strcmp(arg, "--regions-json") == 0)
            rjson = argv[++i];
        else if (strcmp(arg, "--synth") == 0) {
            synth = 1;
            if (aa_synth_scenario_parse(argv[++i], &so.scenario))
                return usage_error(rank, "--synth: unknown scenario '%s'", argv[i]);
        } else if (strcmp(arg, "--procs") == 0 || strcmp(arg, "--regions") == 0 ||
                   strcmp(arg, "--seed") == 0) {
            if (aa_parse_long(argv[++i], &v) || v < 0 || v > 100000000)
                return usage_error(rank, "bad number '%s'", argv[i]);
            if (arg[2] == 'p')
                so.nprocs = (int)v;
            else if (arg[2] == 'r')
                so.nregions = (size_t)v;
            else
                so.seed = (unsigned)v;
        } else if (arg[0] == '-' && arg[1])
            return usage_error(rank, "unknown option '%s'", arg);
        else if (input)
            return usage_error(rank, "more than one input ('%s')", arg);
        else
            input = arg;
    }
    if (synth == !!input)
        return usage_error(rank, "%s", synth ? "--synth takes no input file"
                                             : "no input (a rank directory, an experiment file "
                                               "or --synth)");
    if (synth && so.nprocs < 1)
        return usage_error(rank, "%s", "--synth needs --procs P");
    t0 = now();
    c0 = cpu_now();
    if (synth)
        rc = synth_source(&so, rank, size, &ss, &src, &info, &err);
    else {
        struct stat st;
        if (stat(input, &st) != 0)
            rc = aa_err_set(&err, AA_EINPUT, "%s: no such file or directory", input);
        else
            rc = S_ISDIR(st.st_mode) ? load_dir(input, rank, size, &b, &err)
                                     : load_file(input, rank, size, &b, &err);
    }
    if ((code = agree(rc ? exit_of(rc) : 0))) {
        if (rc && (rank == 0 || rc != AA_EUSAGE))
            fprintf(stderr, "autoanalyzer-analyze-mpi: %s\n", err.msg);
        block_free(&b);
        aa_experiment_free(info);
        cli_analysis_free(&o);
        return code;
    }
    t1 = now();
    c1 = cpu_now();
    cm.ctx = &mc;
    cm.rank = rank;
    cm.size = size;
    cm.sum = m_sum;
    cm.max = m_max;
    cm.allgather = m_allgather;
    cm.send = m_send;
    cm.recv = m_recv;
    cm.bcast = m_bcast;
    if (synth)
        rc = aa_analyze_parallel_source(&cm, &src, info, &o, &a, &err);
    else
        rc = aa_analyze_parallel(&cm, b.pe, b.pp, b.n, b.nexp ? b.exps[0] : NULL, &o, &a, &err);
    if (!rc && rjson)
        rc = synth ? aa_analyze_parallel_dist_source(&cm, &src, a, &o, &dist, &err)
                   : aa_analyze_parallel_dist(&cm, b.pe, b.pp, b.n, a, &o, &dist, &err);
    t2 = now();
    c2 = cpu_now();
    if (rc) {
        /* the ranks took the same path: every one failed the same way */
        if (rank == 0)
            fprintf(stderr, "autoanalyzer-analyze-mpi: %s\n", err.msg);
        code = exit_of(rc);
    } else if (rank == 0 && ((rc = write_outputs(a, quiet, json, xml, &err)) ||
                             (rjson && (rc = write_dist(a, dist, rjson, &err))))) {
        fprintf(stderr, "autoanalyzer-analyze-mpi: %s\n", err.msg);
        code = exit_of(rc);
    }
    tv[0] = t1 - t0;
    tv[1] = c1 - c0;
    tv[2] = t2 - t1;
    tv[3] = c2 - c1;
    if (stats)
        print_stats(size, a ? a->nprocesses : 0, tv, &mc);
    code = agree(code);
    free(dist);
    aa_analyze_free(a);
    block_free(&b);
    aa_experiment_free(ss.e);
    aa_experiment_free(info);
    cli_analysis_free(&o);
    return code;
}

int main(int argc, char **argv)
{
    int rank, size, code;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "autoanalyzer-analyze-mpi: MPI_Init failed\n");
        return EXIT_ENV;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    code = run(argc, argv, rank, size);
    fflush(stdout);
    MPI_Finalize();
    return code;
}
