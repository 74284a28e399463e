/*
 * profile/model.c -- building, querying and freeing the in-memory
 * experiment model of aa_profile.h, the table of known metrics, and the
 * structural checks shared by the XML reader and writer.
 */
#include "profile/aa_profile.h"
#include "profile/profile_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const aa_metric_info known_metrics[] = {
    {"visits", "count", "times the region was entered"},
    {"wall", "s", "inclusive wall-clock time"},
    {"wall_excl", "s", "exclusive wall-clock time (without child regions)"},
    {"cpu", "s", "inclusive CPU time of the thread"},
    {"cpu_sq", "s2", "sum over visits of the squared CPU time of one visit (the visits' spread)"},
    {"untimed_visits", "count", "visits after the calling context was throttled: counted, not timed"},
    {"cycles", "count", "PAPI_TOT_CYC"},
    {"instructions", "count", "PAPI_TOT_INS"},
    {"l1_dcm", "count", "PAPI_L1_DCM: L1 data cache misses"},
    {"l1_dca", "count", "PAPI_L1_DCA: L1 data cache accesses"},
    {"l2_dcm", "count", "PAPI_L2_DCM: L2 data cache misses"},
    {"l2_dca", "count", "PAPI_L2_DCA: L2 data cache accesses"},
    {"mpi_wall", "s", "wall time inside MPI calls"},
    {"mpi_cpu", "s", "CPU time inside MPI calls"},
    {"mpi_calls", "count", "number of MPI calls"},
    {"mpi_bytes_sent", "bytes", "bytes sent by MPI calls"},
    {"mpi_bytes_recv", "bytes", "bytes received by MPI calls"},
    {"io_read_bytes", "bytes", "bytes read by POSIX, stdio and MPI-IO calls"},
    {"io_write_bytes", "bytes", "bytes written by POSIX, stdio and MPI-IO calls"},
    {"io_time", "s", "wall time inside I/O calls"},
    {"io_calls", "count", "number of I/O calls"},
    {"page_faults", "count", "page faults"},
    {"mpi_p2p_wall", "s", "wall time inside point-to-point MPI calls (send, receive)"},
    {"mpi_coll_wall", "s", "wall time inside collective MPI calls (and MPI_Init, communicator creation)"},
    {"mpi_wait_wall", "s", "wall time inside MPI_Wait/MPI_Test families and MPI_Probe/Iprobe"},
    {"mpi_rma_wall", "s", "wall time inside one-sided MPI calls (put, get, fences, locks)"},
    {"mpi_io_wall", "s", "wall time inside MPI-IO calls"},
    {"mpi_p2p_bytes", "bytes", "bytes sent plus received by point-to-point MPI calls"},
    {"mpi_coll_bytes", "bytes", "bytes sent plus received by collective MPI calls"},
    {"mpi_rma_bytes", "bytes", "bytes put plus got by one-sided MPI calls"},
    {"io_cpu", "s", "CPU time inside POSIX and stdio I/O calls (MPI-IO's is in mpi_cpu)"},
    {"cpu_fix", "s", "corrections of the interpolated CPU time by real clock reads (absolute)"},
    {"sync_steps", "count", "steps paired at the region's synchronizing MPI call (its calls after the first)"},
    {"sync_work", "s", "sum over those steps of the CPU time outside MPI since the previous call (w)"},
    {"sync_wait", "s", "sum over those steps of the call's wall time (t)"},
    {"sync_work_sq", "s2", "sum over those steps of w^2"},
    {"sync_wait_sq", "s2", "sum over those steps of t^2"},
    {"sync_cross", "s2", "sum over those steps of w*t (how the wait moves with the step's own work)"},
};

double aa_busy_time(double cpu, double mpi_wall, double mpi_cpu, double io_time)
{
    double b = cpu, w;
    if (isnan(cpu))
        return NAN;
    if (!isnan(mpi_wall)) {
        w = mpi_wall - (isnan(mpi_cpu) ? 0 : mpi_cpu);
        b += w > 0 ? w : 0;
    }
    if (!isnan(io_time))
        b += io_time;
    return b;
}

double aa_unexplained_share(double wall, double busy)
{
    if (isnan(busy) || isnan(wall) || wall <= 0 || busy >= wall)
        return 0;
    return 1 - busy / wall;
}

const aa_metric_info *aa_metric_known(size_t *count)
{
    *count = sizeof known_metrics / sizeof known_metrics[0];
    return known_metrics;
}

const aa_metric_info *aa_metric_lookup(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof known_metrics / sizeof known_metrics[0]; i++)
        if (strcmp(known_metrics[i].name, name) == 0)
            return &known_metrics[i];
    return NULL;
}

int aa_metric_name_valid(const char *name)
{
    const char *p;
    if (aa_metric_lookup(name))
        return 1;
    if (strncmp(name, "papi_", 5) != 0 || !name[5])
        return 0;
    for (p = name + 5; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

/* Times to whole ns, counts and bytes to whole numbers.  cpu_sq (the sum
 * of the visits' squared CPU times) is scaled with cpu's rounding, squared,
 * so that cpu^2 / visits <= cpu_sq <= cpu^2 holds after it as before: five
 * 10-ns visits rounded from 49.6 to 50 ns broke the lower bound by 1.6%
 * (tests/e2e/runtime_serial.t, under load). */
void aa_values_whole(const aa_experiment *e, double *row)
{
    double cpu = NAN;
    long kc = -1, ks = -1;
    for (size_t k = 0; k < e->nmetrics; k++) {
        const char *u = e->metrics[k].unit;
        if (strcmp(e->metrics[k].name, "cpu") == 0) {
            kc = (long)k;
            cpu = row[k];
        } else if (strcmp(e->metrics[k].name, "cpu_sq") == 0)
            ks = (long)k;
        if (isnan(row[k]))
            continue;
        if (strcmp(u, "s") == 0)
            row[k] = round(row[k] * 1e9) / 1e9;
        else if (strcmp(u, "count") == 0 || strcmp(u, "bytes") == 0)
            row[k] = round(row[k]);
    }
    if (kc >= 0 && ks >= 0 && cpu > 0 && isfinite(row[ks]))
        row[ks] *= (row[kc] / cpu) * (row[kc] / cpu);
}

void aa_experiment_values_whole(aa_experiment *e)
{
    for (size_t p = 0; p < e->nprocesses; p++)
        for (size_t t = 0; t < e->processes[p].nthreads; t++) {
            aa_thread *th = &e->processes[p].threads[t];
            for (size_t i = 0; i < th->nnodes; i++)
                aa_values_whole(e, aa_node_values(e, th, i));
        }
}

static const char *const kind_names[AA_KIND_COUNT_] = {"program", "function", "loop", "call",
                                                        "user"};

const char *aa_region_kind_name(aa_region_kind k)
{
    return (unsigned)k < AA_KIND_COUNT_ ? kind_names[k] : "unknown";
}

int aa_region_kind_parse(const char *s, aa_region_kind *out)
{
    int i;
    for (i = 0; i < AA_KIND_COUNT_; i++)
        if (strcmp(s, kind_names[i]) == 0) {
            *out = (aa_region_kind)i;
            return 0;
        }
    return -1;
}

/* ---- allocation helpers ------------------------------------------------- */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *p;
    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Capacities are kept outside the public structs: one allocation per array
 * grown geometrically would need them; we simply realloc to the exact size
 * rounded up to a power of two, derived from the count. */
static size_t cap_of(size_t n)
{
    size_t c = 8;
    if (n == 0)
        return 0;
    while (c < n)
        c *= 2;
    return c;
}

size_t aa_profile_cap_of(size_t n)
{
    return cap_of(n);
}

static int push(void **arr, size_t count, size_t elem)
{
    size_t cap = cap_of(count);
    return grow(arr, &cap, count + 1, elem);
}

static int set_attr(aa_attr **attrs, size_t *n, const char *name, const char *value)
{
    size_t i;
    char *v;
    for (i = 0; i < *n; i++)
        if (strcmp((*attrs)[i].name, name) == 0) {
            v = strdup(value);
            if (!v)
                return -1;
            free((*attrs)[i].value);
            (*attrs)[i].value = v;
            return 0;
        }
    if (push((void **)attrs, *n, sizeof **attrs))
        return -1;
    (*attrs)[*n].name = strdup(name);
    (*attrs)[*n].value = strdup(value);
    if (!(*attrs)[*n].name || !(*attrs)[*n].value) {
        free((*attrs)[*n].name);
        free((*attrs)[*n].value);
        return -1;
    }
    (*n)++;
    return 0;
}

static void free_attrs(aa_attr *a, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].value);
    }
    free(a);
}

/* ---- experiment ----------------------------------------------------------- */
aa_experiment *aa_experiment_new(void)
{
    aa_experiment *e = calloc(1, sizeof *e);
    return e;
}

void aa_region_free_fields(aa_region *r)
{
    free(r->name);
    free(r->function);
    free(r->file);
    r->name = r->function = r->file = NULL;
}

int aa_region_copy(aa_region *dst, const aa_region *src)
{
    *dst = *src;
    dst->name = strdup(src->name ? src->name : "");
    dst->function = strdup(src->function ? src->function : "");
    dst->file = strdup(src->file ? src->file : "");
    if (!dst->name || !dst->function || !dst->file) {
        aa_region_free_fields(dst);
        return -1;
    }
    return 0;
}

static void free_process(aa_process *p)
{
    size_t i;
    free(p->host);
    for (i = 0; i < p->nunavailable; i++)
        free(p->unavailable[i]);
    free(p->unavailable);
    free_attrs(p->attrs, p->nattrs);
    for (i = 0; i < p->nthreads; i++) {
        free(p->threads[i].nodes);
        free(p->threads[i].values);
    }
    free(p->threads);
}

void aa_experiment_free(aa_experiment *e)
{
    size_t i;
    if (!e)
        return;
    free(e->id);
    free(e->program);
    free_attrs(e->attrs, e->nattrs);
    for (i = 0; i < e->nmetrics; i++) {
        free(e->metrics[i].name);
        free(e->metrics[i].unit);
    }
    free(e->metrics);
    for (i = 0; i < e->nregions; i++)
        aa_region_free_fields(&e->regions[i]);
    free(e->regions);
    for (i = 0; i < e->nprocesses; i++)
        free_process(&e->processes[i]);
    free(e->processes);
    free(e);
}

int aa_experiment_set_attr(aa_experiment *e, const char *name, const char *value)
{
    return set_attr(&e->attrs, &e->nattrs, name, value);
}

const char *aa_experiment_attr(const aa_experiment *e, const char *name)
{
    size_t i;
    for (i = 0; i < e->nattrs; i++)
        if (strcmp(e->attrs[i].name, name) == 0)
            return e->attrs[i].value;
    return NULL;
}

int aa_experiment_metric_index(const aa_experiment *e, const char *name)
{
    size_t i;
    for (i = 0; i < e->nmetrics; i++)
        if (strcmp(e->metrics[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Widen every thread's value rows from old to old+1 columns (new = NAN). */
static int widen_values(aa_experiment *e, size_t old)
{
    size_t p, t, i, k;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++) {
            aa_thread *th = &e->processes[p].threads[t];
            double *nv;
            if (th->nnodes == 0)
                continue;
            nv = malloc(cap_of(th->nnodes) * (old + 1) * sizeof *nv);
            if (!nv)
                return -1;
            for (i = 0; i < th->nnodes; i++) {
                for (k = 0; k < old; k++)
                    nv[i * (old + 1) + k] = th->values[i * old + k];
                nv[i * (old + 1) + old] = NAN;
            }
            free(th->values);
            th->values = nv;
        }
    return 0;
}

int aa_experiment_add_metric(aa_experiment *e, const char *name, const char *unit)
{
    int idx = aa_experiment_metric_index(e, name);
    aa_metric *m;
    if (idx >= 0)
        return idx;
    if (push((void **)&e->metrics, e->nmetrics, sizeof *e->metrics))
        return -1;
    if (widen_values(e, e->nmetrics))
        return -1;
    m = &e->metrics[e->nmetrics];
    m->name = strdup(name);
    m->unit = strdup(unit ? unit : "");
    if (!m->name || !m->unit) {
        free(m->name);
        free(m->unit);
        return -1;
    }
    return (int)e->nmetrics++;
}

static size_t region_lower_bound(const aa_experiment *e, uint32_t id)
{
    size_t lo = 0, hi = e->nregions;
    /* ids are unique and sorted: where they are dense (as the instrumenter
     * numbers them), id's place is known without a search */
    if (hi && id >= e->regions[0].id && id - e->regions[0].id < hi &&
        e->regions[id - e->regions[0].id].id == id)
        return id - e->regions[0].id;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->regions[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const aa_region *aa_experiment_region(const aa_experiment *e, uint32_t id)
{
    size_t i = region_lower_bound(e, id);
    return i < e->nregions && e->regions[i].id == id ? &e->regions[i] : NULL;
}

int aa_experiment_add_region(aa_experiment *e, const aa_region *r)
{
    size_t i = region_lower_bound(e, r->id);
    aa_region copy;
    if (aa_region_copy(&copy, r))
        return -1;
    if (i < e->nregions && e->regions[i].id == r->id) {
        aa_region_free_fields(&e->regions[i]);
        e->regions[i] = copy;
        return 0;
    }
    if (push((void **)&e->regions, e->nregions, sizeof *e->regions)) {
        aa_region_free_fields(&copy);
        return -1;
    }
    memmove(&e->regions[i + 1], &e->regions[i], (e->nregions - i) * sizeof *e->regions);
    e->regions[i] = copy;
    e->nregions++;
    return 0;
}

int aa_experiment_parent_cycle(const aa_experiment *e, uint32_t *at)
{
    unsigned char *colour; /* 0 not seen, 1 on the current chain, 2 done */
    size_t *chain, i;
    int found = 0;
    colour = calloc(e->nregions ? e->nregions : 1, 1);
    chain = malloc((e->nregions ? e->nregions : 1) * sizeof *chain);
    if (!colour || !chain) {
        free(colour);
        free(chain);
        return -1;
    }
    for (i = 0; i < e->nregions && !found; i++) {
        size_t cur = i, n = 0;
        while (colour[cur] == 0) {
            const aa_region *p;
            colour[cur] = 1;
            chain[n++] = cur;
            if (!e->regions[cur].parent ||
                !(p = aa_experiment_region(e, e->regions[cur].parent)))
                break;
            cur = (size_t)(p - e->regions);
        }
        /* stopped on a region of this very walk that has a parent (so the
         * walk went on from it): a cycle; a chain's end has none */
        if (colour[cur] == 1 && e->regions[cur].parent &&
            aa_experiment_region(e, e->regions[cur].parent)) {
            found = 1;
            *at = e->regions[cur].id;
        }
        while (n > 0)
            colour[chain[--n]] = 2;
    }
    free(colour);
    free(chain);
    return found;
}

static int cmp_region_id(const void *a, const void *b)
{
    uint32_t x = ((const aa_region *)a)->id, y = ((const aa_region *)b)->id;
    return x < y ? -1 : x > y;
}

int aa_experiment_add_regions(aa_experiment *e, const aa_region *rs, size_t n)
{
    aa_region *add;
    size_t i, j, k, cap = cap_of(e->nregions);
    if (n == 0)
        return 0;
    add = malloc(n * sizeof *add);
    if (!add)
        return -1;
    for (i = 0; i < n; i++)
        if (aa_region_copy(&add[i], &rs[i])) {
            while (i-- > 0)
                aa_region_free_fields(&add[i]);
            free(add);
            return -1;
        }
    if (grow((void **)&e->regions, &cap, e->nregions + n, sizeof *e->regions)) {
        for (i = 0; i < n; i++)
            aa_region_free_fields(&add[i]);
        free(add);
        return -1;
    }
    qsort(add, n, sizeof *add, cmp_region_id);
    /* merge from the back: the existing regions and the new ones, both sorted */
    i = e->nregions, j = n, k = e->nregions + n;
    while (j > 0) {
        if (i > 0 && e->regions[i - 1].id > add[j - 1].id)
            e->regions[--k] = e->regions[--i];
        else
            e->regions[--k] = add[--j];
    }
    e->nregions += n;
    free(add);
    return 0;
}

static size_t process_lower_bound(const aa_experiment *e, int rank)
{
    size_t lo = 0, hi = e->nprocesses;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->processes[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

aa_process *aa_experiment_process(const aa_experiment *e, int rank)
{
    size_t i = process_lower_bound(e, rank);
    return i < e->nprocesses && e->processes[i].rank == rank ? &e->processes[i] : NULL;
}

aa_process *aa_experiment_add_process(aa_experiment *e, int rank)
{
    size_t i = process_lower_bound(e, rank);
    if (i < e->nprocesses && e->processes[i].rank == rank)
        return NULL;
    if (push((void **)&e->processes, e->nprocesses, sizeof *e->processes))
        return NULL;
    memmove(&e->processes[i + 1], &e->processes[i],
            (e->nprocesses - i) * sizeof *e->processes);
    memset(&e->processes[i], 0, sizeof e->processes[i]);
    e->processes[i].rank = rank;
    e->processes[i].host = strdup("");
    e->processes[i].pid = 0;
    e->nprocesses++;
    return &e->processes[i];
}

int aa_process_set_attr(aa_process *p, const char *name, const char *value)
{
    return set_attr(&p->attrs, &p->nattrs, name, value);
}

const char *aa_process_attr(const aa_process *p, const char *name)
{
    size_t i;
    for (i = 0; i < p->nattrs; i++)
        if (strcmp(p->attrs[i].name, name) == 0)
            return p->attrs[i].value;
    return NULL;
}

/* A non-negative finite number attribute; NAN when absent or not one. */
static double attr_number(const aa_process *p, const char *name)
{
    const char *s = p ? aa_process_attr(p, name) : NULL;
    char *end;
    double d;
    if (!s)
        return NAN;
    d = strtod(s, &end);
    return end == s || *end || !(d >= 0) || !isfinite(d) ? NAN : d;
}

double aa_process_run_delay(const aa_process *p)
{
    return attr_number(p, "run_delay"); /* not a number of seconds: as if absent */
}

int aa_process_pace(const aa_process *p, double *ns, double *mad_ns, double *samples)
{
    double v = attr_number(p, "pace_ns"), m = attr_number(p, "pace_mad_ns"),
           n = attr_number(p, "pace_samples");
    *ns = *mad_ns = *samples = 0;
    if (!(v > 0) || !(m >= 0) || !(n >= 1) || n != floor(n))
        return 0;
    *ns = v, *mad_ns = m, *samples = n;
    return 1;
}

int aa_process_main_cpu(const aa_process *p, double *share)
{
    const char *s = p ? aa_process_attr(p, "cpus") : NULL, *q;
    char *end;
    long cpu, best = -1;
    double sh, top = -1;
    if (share)
        *share = 0;
    if (s) {
        for (q = s; *q;) {
            cpu = strtol(q, &end, 10);
            if (end == q || *end != ':' || cpu < 0 || cpu > 1L << 30)
                return -1;
            q = end + 1;
            sh = strtod(q, &end);
            if (end == q || !(sh >= 0 && sh <= 1) || (*end && *end != ','))
                return -1;
            if (sh > top)
                top = sh, best = cpu;
            q = *end ? end + 1 : end;
        }
        if (share && best >= 0)
            *share = top;
        return (int)best;
    }
    if (!p || !(s = aa_process_attr(p, "cpu")))
        return -1;
    cpu = strtol(s, &end, 10);
    if (end == s || *end || cpu < 0 || cpu > 1L << 30)
        return -1;
    if (share)
        *share = 1;
    return (int)cpu;
}

double aa_preempted_share(double wall, double busy, double run_delay)
{
    double u = aa_unexplained_share(wall, busy), d;
    if (isnan(run_delay) || isnan(wall) || !(wall > 0))
        return u;
    d = run_delay < wall ? run_delay / wall : 1;
    return d > u ? d : u;
}

void aa_blocked_row(const double *sw, const double *smw, const double *sio, const double *scpu,
                    const double *smc, const double *sic, size_t R, double run_delay,
                    double *blocked)
{
    size_t r;
    double cpu_all = 0, rate, left = run_delay, rest = 0, top = 0, lo = 0;
    int it;
    for (r = 0; r < R; r++) {
        double wall = sw[r] - smw[r] - sio[r], cpu = scpu[r] - smc[r] - sic[r];
        double b = wall - (cpu > 0 ? cpu : 0);
        blocked[r] = isfinite(b) && b > 0 ? b : 0;
        if (isfinite(scpu[r]) && scpu[r] > 0)
            cpu_all += scpu[r];
    }
    if (!(run_delay > 0))
        return; /* nothing preempted (or unknown: the caller's to decide) */
    /* 1. where the process ran: the run delay in proportion to its CPU
     *    time (inside the calls too), at most the region's off-CPU time */
    rate = cpu_all > 0 ? run_delay / cpu_all : 0;
    for (r = 0; r < R; r++) {
        double cpu = scpu[r] - smc[r] - sic[r], p = cpu > 0 ? rate * cpu : 0;
        p = p < blocked[r] ? p : blocked[r];
        blocked[r] -= p;
        left -= p;
        rest += blocked[r];
        top = blocked[r] > top ? blocked[r] : top;
    }
    /* 2. what is left of it (preemption inside the calls, at the regions'
     *    edges, in bursts) from the smallest off-CPU times first: every
     *    region loses at most `top`, the level at which they give it all
     *    (sum of min(off, top) = left; bisection, no allocation) -- a
     *    process is preempted thinly wherever it runs and sleeps at length
     *    in a few regions.  A loop whose own code (0.2 ms of CPU between a
     *    sweep and an MPI call) was off the CPU 18-25 ms on every rank of a
     *    loaded node kept 16 ms of it as blocked on the one rank that also
     *    slept, in proportion, and was a false imbalance. */
    if (!(left > 0))
        return;
    if (!(rest > left)) {
        for (r = 0; r < R; r++)
            blocked[r] = 0;
        return;
    }
    for (it = 0; it < 200 && top - lo > 1e-15 * top; it++) {
        double mid = 0.5 * (lo + top), s = 0;
        for (r = 0; r < R; r++)
            s += blocked[r] < mid ? blocked[r] : mid;
        if (s < left)
            lo = mid;
        else
            top = mid;
    }
    for (r = 0; r < R; r++)
        blocked[r] = blocked[r] > top ? blocked[r] - top : 0;
}

int aa_region_is_mpi_setup(const aa_region *ri)
{
    return ri && ri->kind == AA_KIND_CALL && ri->name &&
           (strncmp(ri->name, "MPI_Init@", 9) == 0 || strncmp(ri->name, "MPI_Init_thread@", 16) == 0 ||
            strncmp(ri->name, "MPI_Finalize@", 13) == 0);
}

int aa_process_metric_unavailable(const aa_process *p, const char *metric)
{
    size_t i;
    for (i = 0; i < p->nunavailable; i++)
        if (strcmp(p->unavailable[i], metric) == 0)
            return 1;
    return 0;
}

int aa_process_add_unavailable(aa_process *p, const char *metric)
{
    char *s;
    if (aa_process_metric_unavailable(p, metric))
        return 0;
    if (push((void **)&p->unavailable, p->nunavailable, sizeof *p->unavailable))
        return -1;
    s = strdup(metric);
    if (!s)
        return -1;
    p->unavailable[p->nunavailable++] = s;
    return 0;
}

aa_thread *aa_process_add_thread(aa_process *p, int id)
{
    aa_thread *t;
    if (push((void **)&p->threads, p->nthreads, sizeof *p->threads))
        return NULL;
    t = &p->threads[p->nthreads++];
    memset(t, 0, sizeof *t);
    t->id = id;
    return t;
}

long aa_thread_add_node(const aa_experiment *e, aa_thread *t, uint32_t region, int32_t parent)
{
    size_t k, m = e->nmetrics;
    if (push((void **)&t->nodes, t->nnodes, sizeof *t->nodes))
        return -1;
    if (m) {
        size_t cap = cap_of(t->nnodes);
        if (t->nnodes + 1 > cap || !t->values) {
            double *nv = realloc(t->values, cap_of(t->nnodes + 1) * m * sizeof *nv);
            if (!nv)
                return -1;
            t->values = nv;
        }
        for (k = 0; k < m; k++)
            t->values[t->nnodes * m + k] = NAN;
    }
    t->nodes[t->nnodes].region = region;
    t->nodes[t->nnodes].parent = parent;
    t->nodes[t->nnodes].flags = 0;
    return (long)t->nnodes++;
}

int aa_experiment_check(const aa_experiment *e, aa_err *err)
{
    size_t p, t, i, k;
    for (i = 0; i < e->nmetrics; i++)
        if (!aa_metric_name_valid(e->metrics[i].name))
            return aa_err_set(err, AA_EINPUT, "unknown metric '%s'", e->metrics[i].name);
    for (i = 1; i < e->nregions; i++)
        if (e->regions[i].id == e->regions[i - 1].id)
            return aa_err_set(err, AA_EINPUT, "duplicate region id %u", e->regions[i].id);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        if (pr->rank < 0)
            return aa_err_set(err, AA_EINPUT, "negative rank %d", pr->rank);
        if (p > 0 && e->processes[p - 1].rank == pr->rank)
            return aa_err_set(err, AA_EINPUT, "duplicate rank %d", pr->rank);
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            for (i = 0; i < th->nnodes; i++) {
                const aa_node *n = &th->nodes[i];
                if (n->parent >= (int32_t)i || n->parent < -1)
                    return aa_err_set(err, AA_EINPUT,
                                      "rank %d thread %d node %zu: parent %d does not precede it",
                                      pr->rank, th->id, i, n->parent);
                if (!aa_experiment_region(e, n->region))
                    return aa_err_set(err, AA_EINPUT,
                                      "rank %d thread %d node %zu: unknown region %u", pr->rank,
                                      th->id, i, n->region);
                for (k = 0; k < e->nmetrics; k++) {
                    double v = th->values[i * e->nmetrics + k];
                    if (!isnan(v) && (!isfinite(v) || v < 0))
                        return aa_err_set(err, AA_EINPUT,
                                          "rank %d thread %d node %zu: bad %s value %g", pr->rank,
                                          th->id, i, e->metrics[k].name, v);
                }
            }
        }
    }
    return AA_OK;
}

/* ---- region maps ------------------------------------------------------------ */
aa_regionmap *aa_regionmap_new(const char *source)
{
    aa_regionmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->source = strdup(source ? source : "");
    if (!m->source) {
        free(m);
        return NULL;
    }
    return m;
}

static int same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

int aa_region_identity_differs(const aa_region *a, const aa_region *b)
{
    return a->kind != b->kind || !same_str(a->name, b->name) ||
           !same_str(a->function, b->function) || !same_str(a->file, b->file) ||
           a->line != b->line || a->col != b->col || a->end_line != b->end_line ||
           a->end_col != b->end_col || a->parent != b->parent;
}

int aa_regionmap_add_region(aa_regionmap *m, const aa_region *r)
{
    size_t i;
    aa_region copy;
    if (aa_region_copy(&copy, r))
        return -1;
    for (i = 0; i < m->nregions; i++)
        if (m->regions[i].id == r->id) {
            aa_region_free_fields(&m->regions[i]);
            m->regions[i] = copy;
            return 0;
        }
    if (push((void **)&m->regions, m->nregions, sizeof *m->regions)) {
        aa_region_free_fields(&copy);
        return -1;
    }
    m->regions[m->nregions++] = copy;
    return 0;
}

int aa_regionmap_append_region(aa_regionmap *m, const aa_region *r)
{
    aa_region copy;
    if (aa_region_copy(&copy, r))
        return -1;
    if (push((void **)&m->regions, m->nregions, sizeof *m->regions)) {
        aa_region_free_fields(&copy);
        return -1;
    }
    m->regions[m->nregions++] = copy;
    return 0;
}

int aa_regionmap_add_skipped(aa_regionmap *m, const aa_region *r, const char *reason)
{
    aa_region_skip sk;
    if (aa_region_copy(&sk.region, r))
        return -1;
    sk.reason = strdup(reason ? reason : "");
    if (!sk.reason ||
        push((void **)&m->skipped, m->nskipped, sizeof *m->skipped)) {
        free(sk.reason);
        aa_region_free_fields(&sk.region);
        return -1;
    }
    m->skipped[m->nskipped++] = sk;
    return 0;
}

void aa_regionmap_free(aa_regionmap *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->nregions; i++)
        aa_region_free_fields(&m->regions[i]);
    free(m->regions);
    for (i = 0; i < m->nskipped; i++) {
        aa_region_free_fields(&m->skipped[i].region);
        free(m->skipped[i].reason);
    }
    free(m->skipped);
    free(m->source);
    free(m);
}
