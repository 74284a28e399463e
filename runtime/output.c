/*
 * runtime/output.c -- turns the per-thread measurement state into a profile
 * (profile/aa_profile.h model) and writes it: the metric list, the regions
 * seen, one process with one record per thread and per calling-context
 * node, diagnostics as process attributes, and the run's environment
 * (SPEC §4.3).  Frames still open are closed "now" in the copy (the live
 * state is not changed, so measuring can go on).  MPI/I/O attributions are
 * made inclusive here (children added to parents), like wall, cpu and the
 * counters; wall_excl = wall - sum of the children's wall.  Times are
 * written in whole nanoseconds (the clocks' resolution), so the binary
 * experiment form stores them as integers (docs/profile-format.md).
 *
 * Also: the output directory and experiment id, and the fatal-signal
 * handlers (write this process's profile, then re-raise with the previous
 * disposition).
 */
#include "runtime/rt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int aa_rt_regions_snapshot(aa_rt_region **out);
aa_rt_thread *aa_rt_threads_head(void);

/* Metric columns, in profile order. */
enum { M_VISITS, M_WALL, M_WALL_EXCL, M_CPU, M_FIXED_ };
const char *const aa_rt_x_names[AA_RT_X_COUNT_] = {
    "mpi_wall", "mpi_cpu", "mpi_calls", "mpi_bytes_sent", "mpi_bytes_recv",
    "io_read_bytes", "io_write_bytes", "io_time", "io_calls",
    "mpi_p2p_wall", "mpi_coll_wall", "mpi_wait_wall", "mpi_rma_wall", "mpi_io_wall",
    "mpi_p2p_bytes", "mpi_coll_bytes", "mpi_rma_bytes", "io_cpu", "cpu_fix",
    "sync_steps", "sync_work", "sync_wait", "sync_work_sq", "sync_wait_sq", "sync_cross"};
const char *const aa_rt_x_units[AA_RT_X_COUNT_] = {
    "s", "s", "count", "bytes", "bytes", "bytes", "bytes", "s", "count",
    "s", "s", "s", "s", "s", "bytes", "bytes", "bytes", "s", "s",
    "count", "s", "s", "s2", "s2", "s2"};

/* A node's CPU time above its wall time is the interpolation's overshoot
 * (rt_internal.h): cut to the wall time, and the visits' sum of squares
 * (column sq) scaled with it, so that cpu^2 / visits <= cpu_sq <= cpu^2
 * still holds. */
static void clamp_cpu(double *row, int sq)
{
    double f;
    if (!(row[M_CPU] > row[M_WALL]))
        return;
    f = row[M_WALL] / row[M_CPU];
    row[M_CPU] = row[M_WALL];
    row[sq] *= f * f;
}

static void add_metrics(aa_experiment *e)
{
    int i;
    aa_experiment_add_metric(e, "visits", "count");
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "wall_excl", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    for (i = 0; i < aa_rt_g.nctr; i++)
        aa_experiment_add_metric(e, aa_rt_g.ctr_metric[i], "count");
    for (i = 0; i < AA_RT_X_COUNT_; i++)
        aa_experiment_add_metric(e, aa_rt_x_names[i], aa_rt_x_units[i]);
    aa_experiment_add_metric(e, "cpu_sq", "s2");
    aa_experiment_add_metric(e, "untimed_visits", "count");
}

static void fmt_time(time_t t, char *out, size_t n)
{
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

/* git revision without forking: AUTOANALYZER_GIT_REV, else .git/HEAD found
 * from the working directory upwards (loose or packed ref). */
static void copy_str(char *out, size_t n, const char *s)
{
    size_t l = strlen(s);
    if (l >= n)
        l = n - 1;
    memcpy(out, s, l);
    out[l] = 0;
}

static int git_revision(char *out, size_t n)
{
    const char *env = getenv("AUTOANALYZER_GIT_REV");
    char dir[4096], path[4700], line[512];
    FILE *fp;
    if (env && *env) {
        copy_str(out, n, env);
        return 1;
    }
    if (!getcwd(dir, sizeof dir))
        return 0;
    for (;;) {
        snprintf(path, sizeof path, "%s/.git/HEAD", dir);
        if ((fp = fopen(path, "r"))) {
            char *ref;
            if (!fgets(line, sizeof line, fp)) {
                fclose(fp);
                return 0;
            }
            fclose(fp);
            line[strcspn(line, "\r\n")] = 0;
            if (strncmp(line, "ref: ", 5) != 0) {
                copy_str(out, n, line);
                return 1;
            }
            ref = line + 5;
            snprintf(path, sizeof path, "%s/.git/%s", dir, ref);
            if ((fp = fopen(path, "r"))) {
                int ok = fgets(out, (int)n, fp) != NULL;
                fclose(fp);
                out[strcspn(out, "\r\n")] = 0;
                return ok;
            }
            snprintf(path, sizeof path, "%s/.git/packed-refs", dir);
            if ((fp = fopen(path, "r"))) {
                char pl[600];
                while (fgets(pl, sizeof pl, fp)) {
                    char *sp = strchr(pl, ' ');
                    pl[strcspn(pl, "\r\n")] = 0;
                    if (sp && strcmp(sp + 1, ref) == 0) {
                        *sp = 0;
                        copy_str(out, n, pl);
                        fclose(fp);
                        return 1;
                    }
                }
                fclose(fp);
            }
            return 0;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return 0;
        *slash = 0;
    }
}

/* Defined by the compiler wrapper (autoanalyzer cc) in an object it links
 * into the program; absent otherwise. */
extern const char aa_runtime_compiler[] __attribute__((weak));
extern const char aa_runtime_cflags[] __attribute__((weak));

/* The scheduler's statistics of the main thread: time on a CPU, time
 * runnable and waiting for one (run delay), time slices.  The run delay is
 * the time the machine ran something else while this process wanted to run:
 * on an oversubscribed node it hides inside MPI waits (a process waiting
 * for a partner the machine is not running yields and queues), where the
 * wall time no other figure explains does not show it (docs/runtime.md). */
long long aa_rt_run_delay_ns(void)
{
    char buf[128];
    unsigned long long oncpu, delay;
    ssize_t n;
    int fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    if (sscanf(buf, "%llu %llu", &oncpu, &delay) != 2)
        return -1;
    return (long long)delay;
}

static void add_environment(aa_experiment *e)
{
    char buf[8192], tbuf[64];
    const char *s;
    int fd;
    ssize_t n;
    /* command line */
    fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            ssize_t i;
            buf[n] = 0;
            while (n > 0 && buf[n - 1] == 0)
                n--;
            for (i = 0; i < n; i++)
                if (buf[i] == 0)
                    buf[i] = ' ';
            buf[n] = 0;
            aa_experiment_set_attr(e, "command", buf);
        }
    }
    /* the program file: `collect` reads the region maps embedded in it
     * when it is still the same file (docs/profile-format.md) */
    n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        struct stat st;
        buf[n] = 0;
        aa_experiment_set_attr(e, "executable", buf);
        if (stat("/proc/self/exe", &st) == 0) {
            snprintf(buf, sizeof buf, "%lld", (long long)st.st_size);
            aa_experiment_set_attr(e, "executable_size", buf);
            snprintf(buf, sizeof buf, "%lld.%09ld", (long long)st.st_mtim.tv_sec,
                     (long)st.st_mtim.tv_nsec);
            aa_experiment_set_attr(e, "executable_mtime", buf);
        }
    }
    snprintf(buf, sizeof buf, "%d", aa_rt_g.nprocs);
    aa_experiment_set_attr(e, "nprocs", buf);
    gethostname(buf, 256);
    buf[255] = 0;
    aa_experiment_set_attr(e, "hosts", aa_rt_g.hosts[0] ? aa_rt_g.hosts : buf);
    if (aa_runtime_compiler)
        aa_experiment_set_attr(e, "compiler", aa_runtime_compiler);
    if (aa_runtime_cflags)
        aa_experiment_set_attr(e, "cflags", aa_runtime_cflags);
    if (aa_rt_g.mpi_library[0])
        aa_experiment_set_attr(e, "mpi_library", aa_rt_g.mpi_library);
    aa_experiment_set_attr(e, "papi_version",
                           aa_rt_g.papi_version[0] ? aa_rt_g.papi_version : "unavailable");
    aa_experiment_set_attr(e, "counters", aa_rt_g.ctr_backend == 0   ? "none"
                                          : aa_rt_g.ctr_backend == 1 ? "fake"
                                                                     : "papi");
    fmt_time(aa_rt_g.start_time, tbuf, sizeof tbuf);
    aa_experiment_set_attr(e, "start_time", tbuf);
    aa_experiment_set_attr(e, "collect", aa_rt_g.collect_files ? "files" : "mpi");
    aa_experiment_set_attr(e, "runtime_version", AA_VERSION);
    aa_experiment_set_attr(e, "clock", aa_rt_g.use_tsc ? "tsc" : "monotonic");
    snprintf(buf, sizeof buf, "%.0f", aa_rt_g.ticks_per_sec);
    aa_experiment_set_attr(e, "clock_hz", buf);
    snprintf(buf, sizeof buf, "%.0f", (double)aa_rt_g.cpu_interval * aa_rt_g.ns_per_tick / 1e3);
    aa_experiment_set_attr(e, "cpu_interval_us", buf);
    snprintf(buf, sizeof buf, "%llu,%.3g",
             aa_rt_g.thr_calls == UINT64_MAX ? 0ull : (unsigned long long)aa_rt_g.thr_calls,
             (double)aa_rt_g.thr_ticks / aa_rt_g.ticks_per_sec * 1e6);
    if (aa_rt_g.thr_calls != UINT64_MAX && aa_rt_g.thr_first_given)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ",%llu",
                 (unsigned long long)aa_rt_g.thr_first);
    aa_experiment_set_attr(e, "throttle", buf);
    if (git_revision(buf, 512))
        aa_experiment_set_attr(e, "git_revision", buf);
    /* environment variables named by the user */
    if ((s = getenv("AUTOANALYZER_ENV_VARS")) && *s) {
        char *copy = strdup(s), *save = NULL, *tok;
        for (tok = copy ? strtok_r(copy, ", :", &save) : NULL; tok;
             tok = strtok_r(NULL, ", :", &save)) {
            const char *v = getenv(tok);
            char name[300];
            snprintf(name, sizeof name, "env:%s", tok);
            aa_experiment_set_attr(e, name, v ? v : "(unset)");
        }
        free(copy);
    }
    /* input files: size and mtime */
    if ((s = getenv("AUTOANALYZER_INPUTS")) && *s) {
        char *copy = strdup(s), *save = NULL, *tok;
        for (tok = copy ? strtok_r(copy, ",:", &save) : NULL; tok;
             tok = strtok_r(NULL, ",:", &save)) {
            struct stat st;
            char name[4200];
            snprintf(name, sizeof name, "input:%s", tok);
            if (stat(tok, &st) == 0) {
                fmt_time(st.st_mtime, tbuf, sizeof tbuf);
                snprintf(buf, sizeof buf, "size=%lld mtime=%s", (long long)st.st_size, tbuf);
            } else {
                snprintf(buf, sizeof buf, "missing: %s", strerror(errno));
            }
            aa_experiment_set_attr(e, name, buf);
        }
        free(copy);
    }
}

/* Adds one thread's tree to p; values include frames open at tick now. */
static int add_thread(aa_experiment *e, aa_process *p, aa_rt_thread *rt, uint64_t now,
                      int is_self)
{
    int nn = __atomic_load_n(&rt->nnodes, __ATOMIC_ACQUIRE);
    int nm = (int)e->nmetrics, i, k, depth, finished;
    double *v, *wall_children;
    double cpu_now = NAN;
    uint64_t ctr_now[AA_RT_MAX_CTR] = {0};
    aa_thread *th = aa_process_add_thread(p, rt->id);
    const double tps = aa_rt_g.ticks_per_sec;
    if (!th)
        return -1;
    v = calloc((size_t)nn * (size_t)nm + 1, sizeof *v);
    wall_children = calloc((size_t)nn + 1, sizeof *wall_children);
    if (!v || !wall_children) {
        free(v);
        free(wall_children);
        return -1;
    }
    finished = __atomic_load_n(&rt->finished, __ATOMIC_ACQUIRE);
    depth = finished ? 0 : rt->depth;
    if (depth > 0) {
        if (is_self) {
            cpu_now = aa_rt_thread_cpu_ns();
            if (aa_rt_g.nctr_avail)
                aa_rt_counters_read(rt, ctr_now);
        } else {
            clockid_t cid;
            struct timespec ts;
            if (pthread_getcpuclockid(rt->handle, &cid) == 0 && clock_gettime(cid, &ts) == 0)
                cpu_now = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
            /* another thread's counters can only be read by itself: use
             * its reading at its last probe */
            if (aa_rt_g.nctr_avail)
                aa_rt_counters_last(rt, ctr_now);
        }
    }
    for (i = 0; i < nn; i++) {
        aa_rt_node *n = aa_rt_node_at(rt, i);
        double *row = v + (size_t)i * nm;
        row[M_VISITS] = (double)n->visits;
        row[M_WALL] = (double)n->wall / tps;
        row[M_CPU] = n->cpu / 1e9;
        for (k = 0; k < aa_rt_g.nctr; k++)
            row[M_FIXED_ + k] = aa_rt_g.ctr_available[k] ? (double)n->ctr[k] : NAN;
        for (k = 0; k < AA_RT_X_COUNT_; k++)
            row[M_FIXED_ + aa_rt_g.nctr + k] = n->x[k];
        row[M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_] = n->cpu_sq / 1e18;
        clamp_cpu(row, M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_);
        row[M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_ + 1] += (double)n->untimed;
        for (k = 0; k < AA_RUNTIME_GATES && n->gates.region[k]; k++) /* counted at the probe */
            if (n->gate_child[k] > i && n->gate_child[k] < nn)
                v[(size_t)n->gate_child[k] * nm + M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_ + 1] +=
                    (double)n->gates.visits[k];
    }
    /* frames still open: close them in the copy */
    for (k = 0; k < depth && k < AA_RT_MAX_DEPTH; k++) {
        aa_rt_frame *f = &rt->stack[k];
        double *row;
        int c;
        if (f->node < 0 || f->node >= nn || f->throttled)
            continue;
        row = v + (size_t)f->node * nm;
        if (now > f->t_enter)
            row[M_WALL] += (double)(now - f->t_enter) / tps;
        if (!isnan(cpu_now) && cpu_now > f->cpu_enter) {
            double c = (cpu_now - f->cpu_enter) / 1e9;
            row[M_CPU] += c;
            row[M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_] += c * c;
        }
        if (aa_rt_g.nctr_avail)
            for (c = 0; c < aa_rt_g.nctr; c++)
                if (aa_rt_g.ctr_available[c] && ctr_now[c] >= f->ctr_enter[c])
                    row[M_FIXED_ + c] += (double)(ctr_now[c] - f->ctr_enter[c]);
    }
    /* inclusive MPI / I/O; exclusive wall.  Children have larger indices. */
    for (i = nn - 1; i > 0; i--) {
        aa_rt_node *n = aa_rt_node_at(rt, i);
        double *row = v + (size_t)i * nm, *prow;
        if (n->parent < 0 || n->parent >= i)
            continue;
        prow = v + (size_t)n->parent * nm;
        for (k = 0; k < AA_RT_X_COUNT_; k++)
            prow[M_FIXED_ + aa_rt_g.nctr + k] += row[M_FIXED_ + aa_rt_g.nctr + k];
        wall_children[n->parent] += row[M_WALL];
    }
    for (i = 0; i < nn; i++) {
        aa_rt_node *n = aa_rt_node_at(rt, i);
        double *row = v + (size_t)i * nm;
        long idx;
        double ex = row[M_WALL] - wall_children[i];
        row[M_WALL_EXCL] = ex > 0 ? ex : 0;
        clamp_cpu(row, M_FIXED_ + aa_rt_g.nctr + AA_RT_X_COUNT_);
        idx = aa_thread_add_node(e, th, n->region, n->parent);
        if (idx != i) {
            free(v);
            free(wall_children);
            return -1;
        }
        if (n->flags & AA_RT_NODE_THROTTLED)
            th->nodes[i].flags |= AA_NODE_THROTTLED;
        aa_values_whole(e, row); /* times to whole ns; counts are whole already */
        memcpy(aa_node_values(e, th, (size_t)i), row, (size_t)nm * sizeof *row);
    }
    free(v);
    free(wall_children);
    return 0;
}

/* Throttled nodes gated at the probe (named by some gate slot); adds the
 * visits counted at the probe to *visits. */
static uint64_t gated_contexts(aa_rt_thread *rt, uint64_t *visits)
{
    int nn = __atomic_load_n(&rt->nnodes, __ATOMIC_ACQUIRE), i, k;
    uint64_t g = 0;
    char *mark = calloc((size_t)nn + 1, 1);
    if (!mark)
        return 0;
    for (i = 0; i < nn; i++) {
        aa_rt_node *n = aa_rt_node_at(rt, i);
        for (k = 0; k < AA_RUNTIME_GATES && n->gates.region[k]; k++) {
            *visits += n->gates.visits[k];
            if (n->gate_child[k] > i && n->gate_child[k] < nn && !mark[n->gate_child[k]]) {
                mark[n->gate_child[k]] = 1;
                g++;
            }
        }
    }
    free(mark);
    return g;
}

/* The `cpus` attribute: the CPUs the process's threads ran on and their
 * shares of its sampled time, largest first, at most four ("3:0.962,1:0.038";
 * the rest is time on other CPUs); 0 when nothing was sampled. */
static int place_attr(aa_rt_thread *const *ts, int nt, char *buf, size_t n)
{
    int cpu[4 * AA_RT_PLACE_SLOTS], i, j, k, m = 0;
    double tick[4 * AA_RT_PLACE_SLOTS], total = 0;
    size_t len = 0;
    for (i = 0; i < nt; i++) {
        total += (double)ts[i]->place_ticks[AA_RT_PLACE_SLOTS];
        for (j = 0; j < AA_RT_PLACE_SLOTS && ts[i]->place_cpu[j]; j++) {
            double d = (double)ts[i]->place_ticks[j];
            total += d;
            for (k = 0; k < m && cpu[k] != ts[i]->place_cpu[j] - 1; k++)
                ;
            if (k == m && m == 4 * AA_RT_PLACE_SLOTS)
                continue; /* counted in the total only */
            if (k == m)
                cpu[m] = ts[i]->place_cpu[j] - 1, tick[m++] = 0;
            tick[k] += d;
        }
    }
    if (!(total > 0))
        return 0;
    buf[0] = 0;
    for (i = 0; i < 4 && i < m; i++) {
        int best = i;
        for (k = i + 1; k < m; k++)
            if (tick[k] > tick[best])
                best = k;
        {
            int c = cpu[i];
            double t = tick[i];
            cpu[i] = cpu[best], tick[i] = tick[best];
            cpu[best] = c, tick[best] = t;
        }
        if (!(tick[i] > 0))
            break;
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%d:%.3f", i ? "," : "",
                                cpu[i], tick[i] / total);
    }
    return len > 0 && len < n;
}

/* The `pace_ns`, `pace_mad_ns` and `pace_samples` attributes: the mean of
 * the middle half of the spin times of all the process's threads (probe.c
 * pace_sample) in nanoseconds -- the spins the thread was preempted in are
 * left out, and the mean of a half smooths the clock's steps, which a
 * median keeps (a virtual TSC that moves 20 ns at a time: 3% of a spin) --,
 * their median absolute deviation from their median, and their number;
 * nothing when no spin was timed. */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void pace_attrs(aa_process *p, aa_rt_thread *const *ts, int nt)
{
    size_t n = 0, i, lo, hi;
    uint32_t *v, med;
    double mid = 0, mad;
    char buf[64];
    int k;
    for (k = 0; k < nt; k++)
        n += (size_t)ts[k]->npace;
    if (!n || !(v = malloc(n * sizeof *v)))
        return;
    for (k = 0, n = 0; k < nt; k++)
        for (i = 0; i < (size_t)ts[k]->npace; i++)
            v[n++] = ts[k]->pace[i];
    qsort(v, n, sizeof *v, cmp_u32);
    lo = n / 4;
    hi = n - n / 4; /* [lo, hi): the middle half, at least one */
    for (i = lo; i < hi; i++)
        mid += v[i];
    mid /= (double)(hi - lo);
    med = v[n / 2];
    for (i = 0; i < n; i++)
        v[i] = v[i] > med ? v[i] - med : med - v[i];
    qsort(v, n, sizeof *v, cmp_u32);
    mad = (double)v[n / 2];
    free(v);
    snprintf(buf, sizeof buf, "%.1f", mid * aa_rt_g.ns_per_tick);
    aa_process_set_attr(p, "pace_ns", buf);
    snprintf(buf, sizeof buf, "%.1f", mad * aa_rt_g.ns_per_tick);
    aa_process_set_attr(p, "pace_mad_ns", buf);
    snprintf(buf, sizeof buf, "%zu", n);
    aa_process_set_attr(p, "pace_samples", buf);
}

static int cmp_thread_id(const void *a, const void *b)
{
    const aa_rt_thread *x = *(aa_rt_thread *const *)a, *y = *(aa_rt_thread *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

aa_experiment *aa_rt_build_experiment(aa_err *err)
{
    aa_experiment *e = aa_experiment_new();
    aa_rt_region *regs = NULL;
    aa_rt_thread **ts = NULL, *t;
    aa_process *p;
    char buf[256];
    int nreg, i, nt = 0;
    uint64_t mism = 0, ovf = 0, thr_nodes = 0, gated = 0, gated_visits = 0, now;
    char *thr_region = NULL; /* per registry index: some node of it is throttled */
    if (!e) {
        aa_err_set(err, AA_EENV, "out of memory");
        return NULL;
    }
    aa_rt_set_clock_calibration();
    now = aa_rt_now();
    e->id = strdup(aa_rt_g.experiment_id);
    e->program = strdup(aa_rt_g.program);
    e->nprocs = aa_rt_g.nprocs > 0 ? aa_rt_g.nprocs : 1;
    add_metrics(e);
    add_environment(e);
    nreg = aa_rt_regions_snapshot(&regs);
    thr_region = calloc((size_t)nreg + 1, 1);
    for (i = 0; i < nreg; i++) {
        aa_region r;
        memset(&r, 0, sizeof r);
        r.id = regs[i].id;
        r.kind = (aa_region_kind)regs[i].kind;
        r.name = (char *)regs[i].name;
        r.function = (char *)regs[i].function;
        r.file = (char *)regs[i].file;
        r.line = regs[i].line;
        r.col = regs[i].col;
        r.end_line = regs[i].end_line;
        r.end_col = regs[i].end_col;
        r.parent = regs[i].parent;
        if (i > 0 && r.id == AA_REGION_ROOT)
            continue; /* a user region with id 0 is the program itself */
        if (aa_experiment_add_region(e, &r)) {
            aa_err_set(err, AA_EENV, "out of memory");
            goto fail;
        }
    }
    p = aa_experiment_add_process(e, aa_rt_g.rank);
    if (!p) {
        aa_err_set(err, AA_EENV, "out of memory");
        goto fail;
    }
    gethostname(buf, sizeof buf);
    buf[sizeof buf - 1] = 0;
    free(p->host);
    p->host = strdup(buf);
    p->pid = (long)getpid();
    for (i = 0; i < aa_rt_g.nctr; i++)
        if (!aa_rt_g.ctr_available[i])
            aa_process_add_unavailable(p, aa_rt_g.ctr_metric[i]);
    for (t = aa_rt_threads_head(); t; t = t->next)
        nt++;
    ts = calloc((size_t)nt + 1, sizeof *ts);
    if (!ts) {
        aa_err_set(err, AA_EENV, "out of memory");
        goto fail;
    }
    nt = 0;
    for (t = aa_rt_threads_head(); t; t = t->next)
        ts[nt++] = t;
    qsort(ts, (size_t)nt, sizeof *ts, cmp_thread_id);
    for (i = 0; i < nt; i++) {
        /* node region fields hold registry indices: map them to ids below */
        if (add_thread(e, p, ts[i], now, ts[i] == aa_rt_self)) {
            aa_err_set(err, AA_EENV, "out of memory building the profile");
            goto fail;
        }
        mism += ts[i]->mismatched;
        ovf += ts[i]->overflow;
        gated += gated_contexts(ts[i], &gated_visits);
    }
    /* registry index -> region id */
    for (i = 0; i < (int)p->nthreads; i++) {
        size_t k;
        for (k = 0; k < p->threads[i].nnodes; k++) {
            uint32_t h = p->threads[i].nodes[k].region;
            p->threads[i].nodes[k].region = (int)h < nreg ? regs[h].id : 0;
            if (p->threads[i].nodes[k].flags & AA_NODE_THROTTLED) {
                thr_nodes++;
                if ((int)h < nreg && thr_region)
                    thr_region[h] = 1;
            }
        }
    }
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)mism);
    aa_process_set_attr(p, "mismatched_exits", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)ovf);
    aa_process_set_attr(p, "unrecorded_enters", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)thr_nodes);
    aa_process_set_attr(p, "throttled_nodes", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)gated);
    aa_process_set_attr(p, "gated_nodes", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)gated_visits);
    aa_process_set_attr(p, "gated_visits", buf);
    {
        int nthr = 0;
        for (i = 0; i < nreg && thr_region; i++)
            nthr += thr_region[i];
        snprintf(buf, sizeof buf, "%d", nthr);
        aa_process_set_attr(p, "throttled_regions", buf);
    }
    snprintf(buf, sizeof buf, "%d", nt);
    aa_process_set_attr(p, "threads", buf);
    {
        long long d = aa_rt_run_delay_ns();
        if (d >= 0 && aa_rt_g.run_delay0 >= 0 && d >= aa_rt_g.run_delay0) {
            snprintf(buf, sizeof buf, "%.9f", (double)(d - aa_rt_g.run_delay0) / 1e9);
            aa_process_set_attr(p, "run_delay", buf);
        }
    }
    {
        int cpu = sched_getcpu();
        snprintf(buf, sizeof buf, "%d", cpu);
        aa_process_set_attr(p, "cpu", buf);
    }
    if (place_attr(ts, nt, buf, sizeof buf))
        aa_process_set_attr(p, "cpus", buf);
    pace_attrs(p, ts, nt);
    free(regs);
    free(ts);
    free(thr_region);
    return e;
fail:
    free(regs);
    free(ts);
    free(thr_region);
    aa_experiment_free(e);
    return NULL;
}

/* ---- output directory, experiment id ---------------------------------------- */
/* AUTOANALYZER_OUTPUT, made absolute against the working directory the
 * program started in (a later chdir of the program does not move it), or
 * the default name there.  Returns 1 for the default name: that directory
 * must be new (aa_rt_make_outdir claims it). */
int aa_rt_default_outdir(char *out, size_t n)
{
    const char *env = getenv("AUTOANALYZER_OUTPUT");
    const char *cwd = aa_rt_g.start_cwd[0] ? aa_rt_g.start_cwd : ".";
    char tbuf[64];
    struct tm tm;
    time_t now = time(NULL);
    if (env && *env) {
        if (env[0] == '/')
            snprintf(out, n, "%s", env);
        else
            snprintf(out, n, "%s/%s", cwd, env);
        return 0;
    }
    localtime_r(&now, &tm);
    strftime(tbuf, sizeof tbuf, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, n, "%s/autoanalyzer-%s-%s", cwd, aa_rt_g.program, tbuf);
    return 1;
}

void aa_rt_new_experiment_id(char *out, size_t n)
{
    char tbuf[64], host[64];
    struct tm tm;
    time_t now = time(NULL);
    uint64_t r = aa_rt_mono_ns() ^ ((uint64_t)getpid() << 32);
    localtime_r(&now, &tm);
    strftime(tbuf, sizeof tbuf, "%Y%m%dT%H%M%S", &tm);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    host[strcspn(host, ".")] = 0;
    snprintf(out, n, "%s-%s-%s-%05lx", aa_rt_g.program, tbuf, host,
             (unsigned long)((r * 0x9E3779B97F4A7C15ull) >> 44));
}

static int mkdir_p(const char *path, aa_err *err)
{
    char tmp[4096];
    char *p;
    snprintf(tmp, sizeof tmp, "%s", path);
    for (p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return aa_err_set(err, AA_EENV, "%s: cannot create directory: %s", tmp,
                              strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return aa_err_set(err, AA_EENV, "%s: cannot create directory: %s", tmp, strerror(errno));
    return AA_OK;
}

/* Creates a directory that did not exist: base, else base-2, base-3, ...
 * (mkdir either creates or fails, so two programs started in the same
 * second never share one).  base is replaced by the name taken. */
static int claim_dir(char *base, size_t n, aa_err *err)
{
    char try_[4200];
    char *sl;
    int k, rc;
    snprintf(try_, sizeof try_, "%s", base);
    sl = strrchr(try_, '/');
    if (sl && sl != try_) { /* the parents */
        *sl = 0;
        if ((rc = mkdir_p(try_, err)))
            return rc;
    }
    for (k = 1; k <= 10000; k++) {
        if (k == 1)
            snprintf(try_, sizeof try_, "%s", base);
        else
            snprintf(try_, sizeof try_, "%s-%d", base, k);
        if (strlen(try_) >= n)
            return aa_err_set(err, AA_EENV, "%s: name too long", try_);
        if (mkdir(try_, 0755) == 0) {
            memcpy(base, try_, strlen(try_) + 1);
            return AA_OK;
        }
        if (errno != EEXIST)
            return aa_err_set(err, AA_EENV, "%s: cannot create directory: %s", try_,
                              strerror(errno));
    }
    return aa_err_set(err, AA_EENV, "%s: 10000 directories of that name exist", base);
}

/* Chooses (and, for the default name, claims) the output directory. */
int aa_rt_choose_outdir(aa_err *err)
{
    if (aa_rt_g.outdir[0])
        return AA_OK;
    if (aa_rt_default_outdir(aa_rt_g.outdir, sizeof aa_rt_g.outdir))
        return claim_dir(aa_rt_g.outdir, sizeof aa_rt_g.outdir, err);
    return AA_OK;
}

int aa_rt_make_outdir(aa_err *err)
{
    int rc = aa_rt_choose_outdir(err);
    return rc ? rc : mkdir_p(aa_rt_g.outdir, err);
}

/* Writes a profile so that no partial or temporary file can be left
 * behind, even when the process is killed while writing (mpirun's SIGKILL
 * after an MPI_Abort): the data goes into an unnamed file in the directory
 * (O_TMPFILE) which is given its name only when complete.  Where O_TMPFILE
 * is not supported, a named temporary file and rename (aa_write_file_atomic). */
const char *aa_rt_profile_ext(void)
{
    int from = aa_rt_g.binary_from > 0 ? aa_rt_g.binary_from : AA_RT_BINARY_NPROCS;
    int binary = aa_rt_g.format == AA_RT_FORMAT_BINARY ||
                 (aa_rt_g.format == AA_RT_FORMAT_AUTO && aa_rt_g.nprocs >= from);
    return binary ? ".aab" : ".xml";
}

void aa_rt_remove_other_form(const char *dir, const char *base, const char *ext)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s%s", dir, base, strcmp(ext, ".aab") ? ".aab" : ".xml");
    unlink(path);
}

int aa_rt_write_experiment(const aa_experiment *e, const char *path, aa_err *err)
{
    aa_buf b;
    int rc;
    size_t pl = strlen(path);
    aa_buf_init(&b);
    if (pl > 4 && strcmp(path + pl - 4, ".aab") == 0)
        rc = aa_experiment_write_binary_buf(e, &b, err);
    else
        rc = aa_experiment_write_buf(e, &b, err);
    if (rc == AA_OK) {
        char dir[4200], proc[64], tmp[4300];
        const char *sl = strrchr(path, '/');
        int fd = -1, done = 0;
        size_t off = 0;
#ifdef O_TMPFILE
        snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
        fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
        while (fd >= 0 && off < b.len) {
            ssize_t w = write(fd, b.data + off, b.len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        if (fd >= 0 && off == b.len) {
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
            if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) {
                done = 1;
            } else if (errno == EEXIST) { /* replace: link under a temporary name first */
                snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
                unlink(tmp);
                if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
                    if (rename(tmp, path) == 0)
                        done = 1;
                    else
                        unlink(tmp);
                }
            }
        }
        if (fd >= 0)
            close(fd);
        if (!done)
            rc = aa_write_file_atomic(path, b.data, b.len, err);
    } else {
        aa_err_prefix(err, "%s", path);
    }
    aa_buf_free(&b);
    return rc;
}

/* Writes this process's profile: experiment.xml for a process that is the
 * whole run (no MPI, single-process mpi mode), rank-<N>.xml otherwise
 * (.aab in the binary form, aa_rt_profile_ext). */
int aa_rt_write_own_profile(const char *why)
{
    aa_rt_thread *t = aa_rt_thread_get();
    aa_err err;
    aa_experiment *e;
    char path[4200];
    int rc = AA_EENV, saved_in_rt = 0;
    static int busy;
    if (aa_rt_g.disabled)
        return AA_OK;
    if ((long)getpid() != aa_rt_g.pid)
        return AA_EENV; /* a forked child: the parent writes the profile */
    if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
        return AA_EENV;
    __atomic_store_n(&aa_rt_g.writing, 1, __ATOMIC_RELEASE);
    if (t) {
        saved_in_rt = t->in_rt;
        t->in_rt = 1;
    }
    aa_err_clear(&err);
    if (aa_rt_make_outdir(&err) == AA_OK && (e = aa_rt_build_experiment(&err))) {
        int whole = !aa_rt_g.collect_files && (!aa_rt_g.mpi_used || aa_rt_g.nprocs == 1);
        const char *ext = aa_rt_profile_ext();
        char base[32];
        if (whole && !why)
            snprintf(base, sizeof base, "experiment");
        else
            snprintf(base, sizeof base, "rank-%d", aa_rt_g.rank);
        snprintf(path, sizeof path, "%s/%s%s", aa_rt_g.outdir, base, ext);
        if (why && strcmp(why, "flush") != 0)
            aa_experiment_set_attr(e, "incomplete", why);
        rc = aa_rt_write_experiment(e, path, &err);
        if (rc == AA_OK)
            aa_rt_remove_other_form(aa_rt_g.outdir, base, ext);
        aa_experiment_free(e);
    }
    if (rc)
        aa_rt_fail("cannot write the profile: %s", err.msg);
    else if (!why || strcmp(why, "flush") != 0)
        aa_rt_g.written = 1;
    if (t)
        t->in_rt = saved_in_rt;
    __atomic_store_n(&aa_rt_g.writing, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
    return rc;
}

/* ---- fatal signals -------------------------------------------------------------- */
static const int fatal_signals[] = {SIGSEGV, SIGTERM, SIGINT, SIGABRT, SIGBUS, SIGFPE};
#define NSIG_ (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[NSIG_];
static int installed[NSIG_];

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "Segmentation fault";
    case SIGTERM: return "Terminated";
    case SIGINT: return "Interrupt";
    case SIGABRT: return "Aborted";
    case SIGBUS: return "Bus error";
    case SIGFPE: return "Floating point exception";
    default: return "signal";
    }
}

/* Async-signal-safe only (signal-safety(7)): the previous dispositions of
 * all fatal signals come back first, so a second signal -- the same or
 * another -- ends the process as it would have without the runtime; then
 * the profile is written by crash.c (no allocation, no lock, write(2));
 * then the signal is raised again with the previous disposition. */
static void on_fatal(int sig)
{
    static int once;
    size_t i;
    aa_rt_thread *t = aa_rt_self;
    int saved_errno = errno;
    for (i = 0; i < NSIG_; i++)
        if (installed[i])
            sigaction(fatal_signals[i], &old_actions[i], NULL);
    for (i = 0; i < NSIG_; i++)
        if (fatal_signals[i] == sig && !installed[i])
            signal(sig, SIG_DFL);
    /* not twice, not a crash inside the runtime, not over a profile being
     * written or already written, not in a forked child */
    if (!__atomic_exchange_n(&once, 1, __ATOMIC_RELAXED) && !(t && t->in_rt) &&
        !aa_rt_g.written && !__atomic_load_n(&aa_rt_g.writing, __ATOMIC_ACQUIRE) &&
        !aa_rt_g.disabled && (long)getpid() == aa_rt_g.pid) {
        if (t)
            t->in_rt = 1;
        if (aa_rt_write_crash_profile(sig, signal_name(sig)) == 0)
            aa_rt_g.written = 1;
        if (t)
            t->in_rt = 0;
    }
    errno = saved_errno;
    raise(sig);
}

void aa_rt_install_signal_handlers(void)
{
    size_t i;
    const char *s = getenv("AUTOANALYZER_SIGNALS");
    static int warned;
    if (s && strcmp(s, "0") == 0)
        return;
    if (s && *s && strcmp(s, "1") != 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        aa_rt_setting_warn("AUTOANALYZER_SIGNALS", s, "expected 0 or 1", "1");
    for (i = 0; i < NSIG_; i++) {
        struct sigaction sa, old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0)
            continue;
        if (old.sa_handler == SIG_IGN && !(old.sa_flags & SA_SIGINFO))
            continue; /* ignored by the user: keep it so */
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == on_fatal)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        if (sigaction(fatal_signals[i], &sa, &old_actions[i]) == 0)
            installed[i] = 1;
    }
}
