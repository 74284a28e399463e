/*
 * runtime/counters.c -- hardware counter backends behind one interface
 * (init: event list and metric names; thread start; read).
 *
 *   AUTOANALYZER_COUNTERS=papi (default) | fake | none
 *   AUTOANALYZER_PAPI_EVENTS=PAPI_TOT_CYC,PAPI_TOT_INS,... (default: the six
 *   events of SPEC §4.1, metric names cycles, instructions, l1_dcm, l1_dca,
 *   l2_dcm, l2_dca; any other event E becomes metric papi_<lowercase E>).
 *
 * PAPI is loaded with dlopen so neither library has a link dependency on
 * it; events the machine lacks (or all of them, when PAPI cannot be loaded
 * or initialised) are recorded as unavailable and their values are NAN.
 * The fake backend is deterministic: every probe event (enter or exit)
 * advances a per-thread tick k and event i reads k * mult[i], so a leaf
 * region visited v times has exactly v * mult[i] counts (rt_internal.h).
 */
#include "runtime/aa_runtime.h"
#include "runtime/rt_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static const char *const default_events[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM",
                                             "PAPI_L1_DCA",  "PAPI_L2_DCM",  "PAPI_L2_DCA"};
static const char *const default_metrics[] = {"cycles", "instructions", "l1_dcm",
                                              "l1_dca", "l2_dcm",       "l2_dca"};

static char *event_names[AA_RT_MAX_CTR];
static int event_codes[AA_RT_MAX_CTR];

static struct {
    void *lib;
    int (*library_init)(int);
    int (*thread_init)(unsigned long (*)(void));
    int (*create_eventset)(int *);
    int (*add_event)(int, int);
    int (*event_name_to_code)(const char *, int *);
    int (*start)(int);
    int (*read)(int, long long *);
    int (*register_thread)(void);
} papi;

static unsigned long papi_thread_id(void)
{
    return (unsigned long)pthread_self();
}

static int papi_load(void)
{
    static const char *const names[] = {"libpapi.so", "libpapi.so.7.0", "libpapi.so.6.0",
                                        "libpapi.so.7", "libpapi.so.6"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0] && !papi.lib; i++)
        papi.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!papi.lib)
        return -1;
#define SYM(f, n) *(void **)&papi.f = dlsym(papi.lib, n)
    SYM(library_init, "PAPI_library_init");
    SYM(thread_init, "PAPI_thread_init");
    SYM(create_eventset, "PAPI_create_eventset");
    SYM(add_event, "PAPI_add_event");
    SYM(event_name_to_code, "PAPI_event_name_to_code");
    SYM(start, "PAPI_start");
    SYM(read, "PAPI_read");
    SYM(register_thread, "PAPI_register_thread");
#undef SYM
    if (!papi.library_init || !papi.thread_init || !papi.create_eventset || !papi.add_event ||
        !papi.event_name_to_code || !papi.start || !papi.read)
        return -1;
    return 0;
}

static void metric_name_for(const char *event, char *out, size_t n)
{
    size_t i;
    for (i = 0; i < sizeof default_events / sizeof default_events[0]; i++)
        if (strcmp(event, default_events[i]) == 0) {
            snprintf(out, n, "%s", default_metrics[i]);
            return;
        }
    if (strncmp(event, "PAPI_", 5) == 0)
        event += 5;
    snprintf(out, n, "papi_");
    for (i = 5; *event && i + 1 < n; event++) {
        unsigned char c = (unsigned char)*event;
        out[i++] = isalnum(c) ? (char)tolower(c) : '_';
    }
    out[i] = 0;
}

/* Every event is a PAPI preset (PAPI_TOT_CYC, ...): counted by the
 * processor's own counters. */
static int presets_only(void)
{
    int i;
    for (i = 0; i < aa_rt_g.nctr; i++)
        if (!event_names[i] || strncmp(event_names[i], "PAPI_", 5) != 0)
            return 0;
    return 1;
}

/* The kernel knows no processor counters at all (a virtual machine without
 * a virtual PMU: opening a hardware event fails with ENOENT, ENODEV or
 * EOPNOTSUPP; EACCES and EPERM are a policy, left to PAPI to report).
 * PAPI's presets are then all unavailable, and initialising PAPI (libpfm
 * builds its event tables: ~14 million instructions, bench/overhead.md
 * section 10) would only say so.  Native and software events
 * (perf::TASK-CLOCK) may work without a PMU: presets_only() first. */
static int no_cpu_pmu(void)
{
#ifdef __linux__
    struct perf_event_attr a;
    long fd;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd >= 0) {
        close((int)fd);
        return 0;
    }
    return errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP;
#else
    return 0;
#endif
}

void aa_rt_counters_init(void)
{
    const char *be = getenv("AUTOANALYZER_COUNTERS");
    const char *ev = getenv("AUTOANALYZER_PAPI_EVENTS");
    int i;
    aa_rt_g.ctr_backend = 2;
    if (be && (strcmp(be, "none") == 0 || strcmp(be, "off") == 0 || strcmp(be, "0") == 0)) {
        aa_rt_g.ctr_backend = 0;
        return;
    }
    if (be && strcmp(be, "fake") == 0)
        aa_rt_g.ctr_backend = 1;
    else if (be && *be && strcmp(be, "papi") != 0)
        aa_rt_fail("AUTOANALYZER_COUNTERS='%s': expected papi, fake or none (using papi)", be);
    /* the event list */
    if (ev && *ev) {
        char *copy = strdup(ev), *save = NULL, *tok;
        for (tok = copy ? strtok_r(copy, ", ", &save) : NULL; tok && aa_rt_g.nctr < AA_RT_MAX_CTR;
             tok = strtok_r(NULL, ", ", &save))
            event_names[aa_rt_g.nctr++] = strdup(tok);
        if (tok)
            aa_rt_fail("AUTOANALYZER_PAPI_EVENTS: at most %d events are measured", AA_RT_MAX_CTR);
        free(copy);
    } else {
        for (i = 0; i < 6; i++)
            event_names[aa_rt_g.nctr++] = strdup(default_events[i]);
    }
    for (i = 0; i < aa_rt_g.nctr; i++) {
        char m[64];
        metric_name_for(event_names[i] ? event_names[i] : "", m, sizeof m);
        aa_rt_g.ctr_metric[i] = strdup(m);
    }
    if (aa_rt_g.ctr_backend == 1) {
        for (i = 0; i < aa_rt_g.nctr; i++)
            aa_rt_g.ctr_available[i] = 1;
        aa_rt_g.nctr_avail = aa_rt_g.nctr;
        snprintf(aa_rt_g.papi_version, sizeof aa_rt_g.papi_version, "fake");
        return;
    }
    /* PAPI: which events exist here? */
    if (presets_only() && no_cpu_pmu())
        return;
    if (papi_load() != 0)
        return;
    {
        int v = papi.library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT)
            return;
        snprintf(aa_rt_g.papi_version, sizeof aa_rt_g.papi_version, "%d.%d.%d.%d",
                 PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v), PAPI_VERSION_REVISION(v),
                 PAPI_VERSION_INCREMENT(v));
    }
    papi.thread_init(papi_thread_id);
    {
        int set = PAPI_NULL, n = 0;
        if (papi.create_eventset(&set) != PAPI_OK)
            return;
        for (i = 0; i < aa_rt_g.nctr; i++) {
            int code;
            if (event_names[i] && papi.event_name_to_code(event_names[i], &code) == PAPI_OK &&
                papi.add_event(set, code) == PAPI_OK) {
                event_codes[i] = code;
                aa_rt_g.ctr_available[i] = 1;
                n++;
            }
        }
        /* the probe code reads all configured slots; PAPI fills the
         * available ones in order (see read_slow) */
        aa_rt_g.nctr_avail = n;
    }
}

void aa_rt_counters_thread_start(aa_rt_thread *t)
{
    int i, set = PAPI_NULL;
    t->papi_set = -1;
    if (aa_rt_g.ctr_backend != 2 || !aa_rt_g.nctr_avail)
        return;
    if (papi.register_thread)
        papi.register_thread();
    if (papi.create_eventset(&set) != PAPI_OK)
        return;
    for (i = 0; i < aa_rt_g.nctr; i++)
        if (aa_rt_g.ctr_available[i] && papi.add_event(set, event_codes[i]) != PAPI_OK)
            return;
    if (papi.start(set) != PAPI_OK)
        return;
    t->papi_set = set;
}

void aa_rt_counters_read_slow(aa_rt_thread *t, uint64_t *out)
{
    long long v[AA_RT_MAX_CTR];
    int i, k = 0;
    if (aa_rt_g.ctr_backend != 2 || t->papi_set < 0 || papi.read(t->papi_set, v) != PAPI_OK) {
        for (i = 0; i < aa_rt_g.nctr; i++)
            out[i] = 0;
        return;
    }
    for (i = 0; i < aa_rt_g.nctr; i++)
        out[i] = aa_rt_g.ctr_available[i] ? (uint64_t)v[k++] : 0;
    memcpy(t->ctr_last, out, (size_t)aa_rt_g.nctr * sizeof *out);
}

void aa_rt_counters_last(const aa_rt_thread *t, uint64_t *out)
{
    int i;
    uint64_t k = __atomic_load_n(&t->fake_tick, __ATOMIC_RELAXED);
    for (i = 0; i < aa_rt_g.nctr; i++)
        out[i] = aa_rt_g.ctr_backend == 1 ? k * aa_rt_fake_mult[i] : t->ctr_last[i];
}

int aa_runtime_counters_available(void)
{
    aa_rt_init();
    return aa_rt_g.nctr_avail;
}
