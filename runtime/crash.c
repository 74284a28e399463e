/*
 * runtime/crash.c -- the profile written from a fatal-signal handler, with
 * async-signal-safe work only: no allocation, no lock, no stdio.  The XML
 * (the same format as output.c's, docs/profile-format.md) is formatted by
 * hand into a static buffer and written with write(2) into an unnamed file
 * (O_TMPFILE) that gets its name with linkat only when complete (else a
 * named temporary file, O_EXCL, and rename).  The measurement state is
 * made inclusive in place (the process is ending: nothing is measured after
 * it), open frames are closed at the moment of the signal.  Values are
 * written with 9 decimals (times) or as integers (counts).  The directory is
 * the one chosen at start or by MPI_Init; a program that had not chosen one
 * yet gets the default name computed at start (aa_rt_g.crash_outdir),
 * made here, with -2, -3, ... when taken.  The crash profile is XML in
 * the binary form too (AUTOANALYZER_FORMAT): `collect` merges the two forms.
 */
#include "runtime/rt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* the namespace of docs/profile-format.md (as in profile/xml_write.c) */
#define AA_PROFILE_NS "urn:autoanalyzer:profile:1"

aa_rt_thread *aa_rt_threads_head(void);
const aa_rt_region *aa_rt_regions_raw(int *n);

static char obuf[1 << 16];
static size_t olen;
static int ofd = -1, ofail;

static void flush_out(void)
{
    size_t off = 0;
    while (ofd >= 0 && off < olen) {
        ssize_t w = write(ofd, obuf + off, olen - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            ofail = 1;
            break;
        }
        off += (size_t)w;
    }
    olen = 0;
}

static void put(const char *s)
{
    for (; *s; s++) {
        if (olen == sizeof obuf)
            flush_out();
        obuf[olen++] = *s;
    }
}

static void put_esc(const char *s)
{
    char one[2] = {0, 0};
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            put("&amp;");
        else if (c == '<')
            put("&lt;");
        else if (c == '>')
            put("&gt;");
        else if (c == '"')
            put("&quot;");
        else if (c == '\'')
            put("&apos;");
        else if (c == '\t')
            put("&#9;");
        else if (c == '\n')
            put("&#10;");
        else if (c == '\r')
            put("&#13;");
        else if (c < 0x20 || c == 0x7f)
            put("\xEF\xBF\xBD");
        else {
            one[0] = (char)c;
            put(one);
        }
    }
}

static char *fmt_u(char *end, uint64_t v) /* digits before end, returns start */
{
    *--end = 0;
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

static void put_u(uint64_t v)
{
    char b[24];
    put(fmt_u(b + sizeof b, v));
}

static void put_i(long long v)
{
    if (v < 0) {
        put("-");
        put_u((uint64_t)(-(v + 1)) + 1);
    } else {
        put_u((uint64_t)v);
    }
}

/* NAN -> "-"; whole numbers as integers; others with 9 decimals */
static void put_val(double v)
{
    char b[24], *p;
    uint64_t ip, frac;
    int i;
    if (isnan(v)) {
        put("-");
        return;
    }
    if (!(v > 0)) {
        put("0");
        return;
    }
    if (v >= 1.8e19) {
        put("18000000000000000000");
        return;
    }
    ip = (uint64_t)v;
    if ((double)ip == v) {
        put_u(ip);
        return;
    }
    frac = (uint64_t)((v - (double)ip) * 1e9 + 0.5);
    if (frac >= 1000000000u) {
        ip++;
        frac -= 1000000000u;
    }
    put_u(ip);
    put(".");
    p = b + sizeof b;
    *--p = 0;
    for (i = 0; i < 9; i++, frac /= 10)
        *--p = (char)('0' + frac % 10);
    put(p);
}

static void attr(const char *indent, const char *name, const char *value)
{
    put(indent);
    put("<attr name=\"");
    put_esc(name);
    put("\">");
    put_esc(value);
    put("</attr>\n");
}

static void attr_u(const char *indent, const char *name, uint64_t v)
{
    char b[24];
    attr(indent, name, fmt_u(b + sizeof b, v));
}

/* ---- the directory and the file ------------------------------------------- */
static size_t scopy(char *dst, size_t n, size_t at, const char *s)
{
    while (*s && at + 1 < n)
        dst[at++] = *s++;
    dst[at] = 0;
    return at;
}

static int mkdir_parents(char *path)
{
    char *p;
    for (p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                *p = '/';
                return -1;
            }
            *p = '/';
        }
    return 0;
}

/* aa_rt_g.outdir, or the start-time default made now */
static int crash_dir(char *dir, size_t n)
{
    char b[24];
    size_t l;
    int k;
    if (aa_rt_g.outdir[0] || !aa_rt_g.crash_outdir_new) {
        scopy(dir, n, 0, aa_rt_g.outdir[0] ? aa_rt_g.outdir : aa_rt_g.crash_outdir);
        l = strlen(dir);
        if (l + 2 < n) { /* mkdir -p */
            dir[l] = '/';
            dir[l + 1] = 0;
            mkdir_parents(dir);
            dir[l] = 0;
        }
        return 0;
    }
    l = scopy(dir, n, 0, aa_rt_g.crash_outdir);
    if (!l)
        return -1;
    mkdir_parents(dir);
    for (k = 1; k <= 10000; k++) {
        if (k > 1) {
            size_t m = scopy(dir, n, l, "-");
            scopy(dir, n, m, fmt_u(b + sizeof b, (uint64_t)k));
        }
        if (mkdir(dir, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* ---- the profile ------------------------------------------------------------ */
static void close_open_frames(aa_rt_thread *t, uint64_t now, int is_self)
{
    double cpu = is_self ? aa_rt_thread_cpu_ns() : NAN;
    int k, nn = __atomic_load_n(&t->nnodes, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&t->finished, __ATOMIC_ACQUIRE))
        return;
    for (k = 0; k < t->depth && k < AA_RT_MAX_DEPTH; k++) {
        aa_rt_frame *f = &t->stack[k];
        aa_rt_node *n;
        if (f->node < 0 || f->node >= nn || f->throttled)
            continue;
        n = aa_rt_node_at(t, f->node);
        if (now > f->t_enter)
            n->wall += now - f->t_enter;
        if (!isnan(cpu) && cpu > f->cpu_enter)
            n->cpu += cpu - f->cpu_enter;
    }
}

static void put_thread(aa_rt_thread *t, const aa_rt_region *regs, int nreg)
{
    int nn = __atomic_load_n(&t->nnodes, __ATOMIC_ACQUIRE), i, k;
    const double tps = aa_rt_g.ticks_per_sec;
    /* MPI / I/O inclusive: children have larger indices than parents */
    for (i = nn - 1; i > 0; i--) {
        aa_rt_node *n = aa_rt_node_at(t, i);
        if (n->parent >= 0 && n->parent < i)
            for (k = 0; k < AA_RT_X_COUNT_; k++)
                aa_rt_node_at(t, n->parent)->x[k] += n->x[k];
    }
    put("    <thread id=\"");
    put_i(t->id);
    put("\">\n");
    for (i = 0; i < nn; i++) {
        aa_rt_node *n = aa_rt_node_at(t, i);
        double wall = (double)n->wall / tps, cpu = n->cpu / 1e9, child = 0, ex;
        int c;
        for (c = n->first_child; c >= 0 && c < nn; c = aa_rt_node_at(t, c)->next_sibling)
            child += (double)aa_rt_node_at(t, c)->wall / tps;
        ex = wall - child;
        if (cpu > wall)
            cpu = wall;
        put("      <node region=\"");
        put_u((int)n->region < nreg ? regs[n->region].id : 0);
        put("\" parent=\"");
        put_i(n->parent);
        put("\" v=\"");
        put_val((double)n->visits);
        put(" ");
        put_val(wall);
        put(" ");
        put_val(ex > 0 ? ex : 0);
        put(" ");
        put_val(cpu);
        for (k = 0; k < aa_rt_g.nctr; k++) {
            put(" ");
            put_val(aa_rt_g.ctr_available[k] ? (double)n->ctr[k] : NAN);
        }
        for (k = 0; k < AA_RT_X_COUNT_; k++) {
            put(" ");
            put_val(n->x[k]);
        }
        put("\"");
        if (n->flags & AA_RT_NODE_THROTTLED)
            put(" flags=\"throttled\"");
        put("/>\n");
    }
    put("    </thread>\n");
}

static void put_profile(int sig, const char *signame)
{
    int nreg = 0, i, k, nt = 0, id;
    const aa_rt_region *regs = aa_rt_regions_raw(&nreg);
    aa_rt_thread *t;
    uint64_t now = aa_rt_now(), mism = 0, ovf = 0, thr = 0;
    struct utsname un;
    char b[24], why[96];
    size_t wl;
    put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<experiment xmlns=\"" AA_PROFILE_NS
        "\" version=\"1\" id=\"");
    put_esc(aa_rt_g.experiment_id);
    put("\" program=\"");
    put_esc(aa_rt_g.program);
    put("\" nprocs=\"");
    put_i(aa_rt_g.nprocs > 0 ? aa_rt_g.nprocs : 1);
    put("\">\n  <environment>\n");
    wl = scopy(why, sizeof why, 0, "signal ");
    wl = scopy(why, sizeof why, wl, fmt_u(b + sizeof b, (uint64_t)sig));
    wl = scopy(why, sizeof why, wl, " (");
    wl = scopy(why, sizeof why, wl, signame);
    scopy(why, sizeof why, wl, ")");
    attr("    ", "incomplete", why);
    attr("    ", "clock", aa_rt_g.use_tsc ? "tsc" : "monotonic");
    attr("    ", "collect", aa_rt_g.collect_files ? "files" : "mpi");
    attr("    ", "counters", aa_rt_g.ctr_backend == 0 ? "none" : aa_rt_g.ctr_backend == 1 ? "fake" : "papi");
    if (aa_rt_g.mpi_library[0])
        attr("    ", "mpi_library", aa_rt_g.mpi_library);
    attr_u("    ", "nprocs", (uint64_t)(aa_rt_g.nprocs > 0 ? aa_rt_g.nprocs : 1));
    attr("    ", "runtime_version", AA_VERSION);
    put("  </environment>\n  <metrics>\n");
    for (i = 0; i < 4; i++) {
        static const char *const fixed[4][2] = {
            {"visits", "count"}, {"wall", "s"}, {"wall_excl", "s"}, {"cpu", "s"}};
        put("    <metric name=\"");
        put(fixed[i][0]);
        put("\" unit=\"");
        put(fixed[i][1]);
        put("\"/>\n");
    }
    for (i = 0; i < aa_rt_g.nctr; i++) {
        put("    <metric name=\"");
        put_esc(aa_rt_g.ctr_metric[i]);
        put("\" unit=\"count\"/>\n");
    }
    for (i = 0; i < AA_RT_X_COUNT_; i++) {
        put("    <metric name=\"");
        put(aa_rt_x_names[i]);
        put("\" unit=\"");
        put(aa_rt_x_units[i]);
        put("\"/>\n");
    }
    put("  </metrics>\n  <regions>\n");
    for (i = 0; i < nreg; i++) {
        const aa_rt_region *r = &regs[i];
        static const char *const kinds[] = {"program", "function", "loop", "call", "user"};
        if (i > 0 && r->id == 0)
            continue;
        put("    <region id=\"");
        put_u(r->id);
        put("\" kind=\"");
        put(kinds[r->kind >= 0 && r->kind < 5 ? r->kind : 4]);
        put("\" name=\"");
        put_esc(r->name);
        put("\"");
        if (r->function && r->function[0]) {
            put(" function=\"");
            put_esc(r->function);
            put("\"");
        }
        if (r->file && r->file[0]) {
            put(" file=\"");
            put_esc(r->file);
            put("\"");
        }
#define NUM(a, f)                                                               \
    if (r->f) {                                                                 \
        put(" " a "=\"");                                                       \
        put_i(r->f);                                                            \
        put("\"");                                                              \
    }
        NUM("line", line)
        NUM("col", col)
        NUM("end-line", end_line)
        NUM("end-col", end_col)
        NUM("parent", parent)
#undef NUM
        put("/>\n");
    }
    put("  </regions>\n  <process rank=\"");
    put_i(aa_rt_g.rank);
    put("\"");
    if (uname(&un) == 0) {
        put(" host=\"");
        put_esc(un.nodename);
        put("\"");
    }
    put(" pid=\"");
    put_i((long long)getpid());
    put("\"");
    k = 0;
    for (i = 0; i < aa_rt_g.nctr; i++)
        if (!aa_rt_g.ctr_available[i]) {
            put(k++ ? " " : " unavailable=\"");
            put_esc(aa_rt_g.ctr_metric[i]);
        }
    if (k)
        put("\"");
    put(">\n");
    for (t = aa_rt_threads_head(); t; t = t->next) {
        int nn = __atomic_load_n(&t->nnodes, __ATOMIC_ACQUIRE);
        nt++;
        mism += t->mismatched;
        ovf += t->overflow;
        for (i = 0; i < nn; i++)
            thr += (aa_rt_node_at(t, i)->flags & AA_RT_NODE_THROTTLED) != 0;
    }
    attr_u("    ", "mismatched_exits", mism);
    attr_u("    ", "unrecorded_enters", ovf);
    attr_u("    ", "throttled_nodes", thr);
    attr_u("    ", "threads", (uint64_t)nt);
    /* threads in id order (the list is newest first) */
    for (id = 0, k = 0; k < nt; id++) {
        for (t = aa_rt_threads_head(); t && t->id != id; t = t->next)
            ;
        if (!t) {
            if (id > 1 << 20)
                break;
            continue;
        }
        k++;
        close_open_frames(t, now, t == aa_rt_self);
        put_thread(t, regs, nreg);
    }
    put("  </process>\n</experiment>\n");
}

static char dir[4096], path[4200];

static int write_crash_xml(int sig, const char *signame)
{
    static char tmp[4300], proc[48];
    char b[24];
    size_t l;
    int done = 0;
    if (crash_dir(dir, sizeof dir))
        return -1;
    l = scopy(path, sizeof path, 0, dir);
    l = scopy(path, sizeof path, l, "/rank-");
    scopy(path, sizeof path, l, fmt_u(b + sizeof b, (uint64_t)(aa_rt_g.rank >= 0 ? aa_rt_g.rank : 0)));
    scopy(path, sizeof path, strlen(path), ".xml");
    olen = 0;
    ofail = 0;
#ifdef O_TMPFILE
    ofd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
    if (ofd >= 0) {
        put_profile(sig, signame);
        flush_out();
        l = scopy(proc, sizeof proc, 0, "/proc/self/fd/");
        scopy(proc, sizeof proc, l, fmt_u(b + sizeof b, (uint64_t)ofd));
        if (!ofail && linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
            done = 1;
        close(ofd);
        ofd = -1;
        if (done)
            return 0;
    }
    /* no O_TMPFILE: a named temporary file, renamed when complete */
    l = scopy(tmp, sizeof tmp, 0, path);
    l = scopy(tmp, sizeof tmp, l, ".tmp.");
    scopy(tmp, sizeof tmp, l, fmt_u(b + sizeof b, (uint64_t)getpid()));
    ofd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (ofd < 0)
        return -1;
    ofail = 0;
    put_profile(sig, signame);
    flush_out();
    close(ofd);
    ofd = -1;
    if (ofail || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The XML profile, then this rank's binary profile (a flush's, in the
 * binary form) removed: the crash profile replaces it, so `collect` does not
 * find the rank twice.  (The binary form is not written here: its writer
 * allocates and compresses, which a signal handler must not do.) */
int aa_rt_write_crash_profile(int sig, const char *signame)
{
    size_t l;
    if (write_crash_xml(sig, signame) != 0)
        return -1;
    l = strlen(path);
    if (l > 4) {
        memcpy(path + l - 4, ".aab", 4);
        unlink(path);
    }
    return 0;
}
