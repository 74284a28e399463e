/*
 * collect/collect.c -- merges the per-rank profiles (rank-<N>.xml[.gz]) and
 * region maps (*.regions.xml) of an output directory into one experiment
 * (SPEC §4.3, docs/profile-format.md "Per-rank files and merged
 * experiments"), or reads a single experiment file, and reports missing
 * ranks.  The region maps embedded in the recorded executable are merged
 * too when it is still the same file (program_maps).  Each file is read, merged and freed in turn: processes are moved,
 * not copied, so merging 16,384 ranks costs little more than reading them.
 * The rank files are read by a few threads at a time, in batches, and merged
 * in rank order by the calling thread while the workers read the next batch
 * (merge_batches), so the merged experiment and the first error are those
 * of reading them one by one.
 */
#include "collect/aa_collect.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct rankfile {
    int rank;
    char *path;
} rankfile;

static int cmp_rankfile(const void *a, const void *b)
{
    const rankfile *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "rank-<N>.xml", "rank-<N>.xml.gz" or (binary) "rank-<N>.aab" -> N; -2
 * when N is above INT_MAX
 * (a rank no run can have); -1 for any other name. */
static int rank_of_name(const char *name)
{
    const char *p = name + 5;
    long long r = 0;
    int big = 0;
    if (strncmp(name, "rank-", 5) != 0 || !(*p >= '0' && *p <= '9'))
        return -1;
    while (*p >= '0' && *p <= '9') {
        r = r * 10 + (*p - '0');
        if (r > INT_MAX) {
            big = 1;
            r = 0;
        }
        p++;
    }
    if (strcmp(p, ".xml") != 0 && strcmp(p, ".xml.gz") != 0 && strcmp(p, ".aab") != 0)
        return -1;
    return big ? -2 : (int)r;
}

/* Profiles and maps must be regular files: a FIFO or device would block
 * or never end. */
static int check_regular(const char *path, aa_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return aa_err_set(err, AA_EINPUT, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return aa_err_set(err, AA_EINPUT, "%s: not a regular file (%s)", path,
                          S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                          : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                        : "a special file");
    return AA_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    char *p = malloc(n + strlen(name) + 2);
    if (!p)
        return NULL;
    if (n && dir[n - 1] == '/')
        sprintf(p, "%s%s", dir, name);
    else
        sprintf(p, "%s/%s", dir, name);
    return p;
}

void aa_collect_report_free(aa_collect_report *rep)
{
    size_t i;
    if (!rep)
        return;
    for (i = 0; i < rep->nfiles; i++)
        free(rep->files[i]);
    free(rep->files);
    for (i = 0; i < rep->nmaps; i++)
        free(rep->maps[i]);
    free(rep->maps);
    free(rep->missing);
    free(rep->program);
    free(rep->program_note);
    memset(rep, 0, sizeof *rep);
}

void aa_collect_format_ranks(aa_buf *b, const int *ranks, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (i)
            aa_buf_puts(b, ", ");
        if (j == i)
            aa_buf_printf(b, "%d", ranks[i]);
        else
            aa_buf_printf(b, "%d-%d", ranks[i], ranks[j]);
        i = j + 1;
    }
    if (!b->data)
        aa_buf_puts(b, "");
}

/* ---- the merge ---------------------------------------------------------------- */
typedef struct merger {
    aa_experiment *m;
    const char *first_file; /* the file that set id and nprocs */
    const char **rank_file; /* nprocs entries: file each rank came from */
    struct {
        uint32_t id;
        const char *file;
    } *region_src;
    size_t nregion_src, region_src_cap;
    aa_err *err;
} merger;

static size_t value_cap(size_t n)
{
    size_t c = 8;
    if (n == 0)
        return 0;
    while (c < n)
        c *= 2;
    return c;
}

static const char *region_file(const merger *g, uint32_t id)
{
    size_t i;
    for (i = 0; i < g->nregion_src; i++)
        if (g->region_src[i].id == id)
            return g->region_src[i].file;
    return "an earlier file";
}

/* Records where region id came from (for messages); -1 on no memory. */
static int region_src_add(merger *g, uint32_t id, const char *file)
{
    if (g->nregion_src == g->region_src_cap) {
        size_t nc = g->region_src_cap ? 2 * g->region_src_cap : 64;
        void *nr = realloc(g->region_src, nc * sizeof *g->region_src);
        if (!nr)
            return -1;
        g->region_src = nr;
        g->region_src_cap = nc;
    }
    g->region_src[g->nregion_src].id = id;
    g->region_src[g->nregion_src].file = file;
    g->nregion_src++;
    return 0;
}

static int oom(merger *g)
{
    return aa_err_set(g->err, AA_EENV, "out of memory while merging profiles");
}

/* Merges f (read from file) into g->m; f's processes are moved out. */
static int merge_one(merger *g, aa_experiment *f, const char *file)
{
    aa_experiment *m = g->m;
    size_t i, p, t, k;
    int *map = NULL;
    char *lacks = NULL; /* per merged metric: f does not have it */
    aa_region *fresh = NULL;
    size_t nnew;
    int identity, rc = AA_OK;

    if (!g->first_file) {
        m->id = strdup(f->id);
        m->program = strdup(f->program);
        m->nprocs = f->nprocs;
        g->rank_file = calloc((size_t)f->nprocs, sizeof *g->rank_file);
        if (!m->id || !m->program || !g->rank_file)
            return oom(g);
        g->first_file = file;
    } else {
        if (strcmp(f->id, m->id) != 0)
            return aa_err_set(g->err, AA_EINPUT,
                              "%s: experiment id '%s' differs from '%s' in %s: the files come "
                              "from different runs",
                              file, f->id, m->id, g->first_file);
        if (f->nprocs != m->nprocs)
            return aa_err_set(g->err, AA_EINPUT, "%s: nprocs %d differs from %d in %s", file,
                              f->nprocs, m->nprocs, g->first_file);
    }
    for (i = 0; i < f->nattrs; i++)
        if (!aa_experiment_attr(m, f->attrs[i].name) &&
            aa_experiment_set_attr(m, f->attrs[i].name, f->attrs[i].value))
            return oom(g);

    /* metrics: union in order of first appearance */
    for (i = 0; i < f->nmetrics; i++) {
        int idx = aa_experiment_metric_index(m, f->metrics[i].name);
        if (idx >= 0) {
            if (strcmp(m->metrics[idx].unit, f->metrics[i].unit) != 0)
                return aa_err_set(g->err, AA_EINPUT,
                                  "%s: metric '%s' has unit '%s', but '%s' in %s", file,
                                  f->metrics[i].name, f->metrics[i].unit, m->metrics[idx].unit,
                                  g->first_file);
            continue;
        }
        if (aa_experiment_add_metric(m, f->metrics[i].name, f->metrics[i].unit) < 0)
            return oom(g);
        /* processes merged so far did not measure it */
        for (p = 0; p < m->nprocesses; p++)
            if (aa_process_add_unavailable(&m->processes[p], f->metrics[i].name))
                return oom(g);
    }

    /* regions: union; one id must mean one region.  Both lists are sorted
     * by id: one walk finds the known ones, the new ones are added at once */
    for (i = 0, k = 0, nnew = 0; i < f->nregions; i++) {
        const aa_region *r = &f->regions[i], *old;
        while (k < m->nregions && m->regions[k].id < r->id)
            k++;
        old = k < m->nregions && m->regions[k].id == r->id ? &m->regions[k] : NULL;
        if (!old) {
            if (!fresh && !(fresh = malloc(f->nregions * sizeof *fresh)))
                return oom(g);
            fresh[nnew++] = *r; /* shallow: aa_experiment_add_regions copies */
            continue;
        }
        if (aa_region_identity_differs(old, r)) {
            rc = aa_err_set(g->err, AA_EINPUT,
                            "%s: region %u ('%s' %s:%d) differs from region %u ('%s' "
                            "%s:%d) in %s",
                            file, r->id, r->name, r->file, r->line, old->id, old->name,
                            old->file, old->line, region_file(g, r->id));
            free(fresh);
            return rc;
        }
    }
    for (i = 0; i < nnew; i++)
        if (region_src_add(g, fresh[i].id, file)) {
            free(fresh);
            return oom(g);
        }
    i = nnew && aa_experiment_add_regions(m, fresh, nnew);
    free(fresh);
    if (i)
        return oom(g);

    /* column map f -> m */
    map = malloc((f->nmetrics ? f->nmetrics : 1) * sizeof *map);
    lacks = calloc(m->nmetrics ? m->nmetrics : 1, 1);
    if (!map || !lacks) {
        rc = oom(g);
        goto out;
    }
    memset(lacks, 1, m->nmetrics);
    identity = f->nmetrics == m->nmetrics;
    for (i = 0; i < f->nmetrics; i++) {
        map[i] = aa_experiment_metric_index(m, f->metrics[i].name);
        lacks[map[i]] = 0;
        if (map[i] != (int)i)
            identity = 0;
    }

    for (p = 0; p < f->nprocesses; p++) {
        aa_process *src = &f->processes[p], *dst;
        if (g->rank_file[src->rank]) {
            rc = aa_err_set(g->err, AA_EINPUT, "rank %d appears twice: in %s and in %s",
                            src->rank, g->rank_file[src->rank], file);
            goto out;
        }
        if (!identity)
            for (t = 0; t < src->nthreads; t++) {
                aa_thread *th = &src->threads[t];
                double *nv;
                if (th->nnodes == 0)
                    continue;
                nv = malloc(value_cap(th->nnodes) * m->nmetrics * sizeof *nv);
                if (!nv) {
                    rc = oom(g);
                    goto out;
                }
                for (i = 0; i < th->nnodes; i++) {
                    for (k = 0; k < m->nmetrics; k++)
                        nv[i * m->nmetrics + k] = NAN;
                    for (k = 0; k < f->nmetrics; k++)
                        nv[i * m->nmetrics + (size_t)map[k]] = th->values[i * f->nmetrics + k];
                }
                free(th->values);
                th->values = nv;
            }
        for (k = 0; k < m->nmetrics; k++)
            if (lacks[k] && aa_process_add_unavailable(src, m->metrics[k].name)) {
                rc = oom(g);
                goto out;
            }
        dst = aa_experiment_add_process(m, src->rank);
        if (!dst) {
            rc = oom(g);
            goto out;
        }
        free(dst->host);
        *dst = *src;
        memset(src, 0, sizeof *src);
        src->host = NULL;
        g->rank_file[dst->rank] = file;
    }
out:
    /* moved processes are zeroed: freeing f frees only what was not moved */
    free(map);
    free(lacks);
    return rc;
}

/* One id with two different regions: a different kind or name, or other
 * source details where both sides give them. */
static int map_conflict(const aa_region *old, const aa_region *r)
{
    return old->kind != r->kind || strcmp(old->name, r->name) != 0 ||
           (old->function && old->function[0] && r->function && r->function[0] &&
            strcmp(old->function, r->function) != 0) ||
           (old->file && old->file[0] && r->file && r->file[0] &&
            strcmp(old->file, r->file) != 0) ||
           (old->line && r->line && old->line != r->line);
}

/* Region maps add regions nobody executed and fill in source details a
 * profile left empty.  A map giving an id another region than a profile or
 * an earlier map is AA_EINPUT, checked before anything is merged.  The new
 * regions are added in one merge: n log n for n regions however many maps
 * bring them. */
static int merge_map(merger *g, const aa_regionmap *map, const char *mapfile)
{
    size_t i, nfresh = 0;
    aa_region *fresh;
    int rc = AA_OK;
    for (i = 0; i < map->nregions; i++) {
        const aa_region *r = &map->regions[i];
        const aa_region *old = aa_experiment_region(g->m, r->id);
        if (old && map_conflict(old, r))
            return aa_err_set(g->err, AA_EINPUT,
                              "%s: region %u is %s '%s' (%s:%d) here but %s '%s' (%s:%d) in %s",
                              mapfile, r->id, aa_region_kind_name(r->kind), r->name,
                              r->file ? r->file : "", r->line, aa_region_kind_name(old->kind),
                              old->name, old->file ? old->file : "", old->line,
                              region_file(g, r->id));
    }
    fresh = malloc((map->nregions ? map->nregions : 1) * sizeof *fresh);
    if (!fresh)
        return oom(g);
    for (i = 0; i < map->nregions && !rc; i++) {
        const aa_region *r = &map->regions[i];
        const aa_region *old = aa_experiment_region(g->m, r->id);
        aa_region upd;
        if (!old) {
            fresh[nfresh++] = *r; /* shallow: aa_experiment_add_regions copies */
            continue;
        }
        upd = *old;
        if (!old->function || !old->function[0])
            upd.function = r->function;
        if (!old->file || !old->file[0])
            upd.file = r->file;
        if (!old->line)
            upd.line = r->line, upd.col = r->col;
        if (!old->end_line)
            upd.end_line = r->end_line, upd.end_col = r->end_col;
        if (!old->parent)
            upd.parent = r->parent;
        if (aa_experiment_add_region(g->m, &upd)) /* copies, then replaces old */
            rc = oom(g);
    }
    for (i = 0; i < nfresh && !rc; i++)
        if (region_src_add(g, fresh[i].id, mapfile))
            rc = oom(g);
    if (!rc && aa_experiment_add_regions(g->m, fresh, nfresh))
        rc = oom(g);
    free(fresh);
    return rc;
}

static char *note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *note(const char *fmt, ...)
{
    aa_buf b;
    va_list ap;
    char tmp[4096];
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    aa_buf_init(&b);
    aa_buf_puts(&b, tmp);
    return aa_buf_detach(&b);
}

/* The maps embedded in the executable the experiment records, when it is
 * still the file that ran (same size and mtime).  Only out of memory is an
 * error; anything else skips the maps with rep->program_note. */
static int program_maps(merger *g, aa_collect_report *rep)
{
    const char *exe = aa_experiment_attr(g->m, "executable");
    const char *size = aa_experiment_attr(g->m, "executable_size");
    const char *mtime = aa_experiment_attr(g->m, "executable_mtime");
    struct stat st;
    char now[64];
    aa_regionmap *map = NULL;
    aa_err e2;
    size_t n = 0;
    int rc;

    if (!exe || !exe[0])
        return AA_OK; /* an older profile, or a runtime that could not tell */
    if (stat(exe, &st) != 0) {
        rep->program_note = note("%s: %s (the program's embedded region maps are not used)",
                                 exe, strerror(errno));
        return rep->program_note ? AA_OK : oom(g);
    }
    snprintf(now, sizeof now, "%lld.%09ld", (long long)st.st_mtim.tv_sec,
             (long)st.st_mtim.tv_nsec);
    if (!size || !mtime || strtoll(size, NULL, 10) != (long long)st.st_size ||
        strcmp(mtime, now) != 0) {
        rep->program_note = note("%s: %s since the run (the program's embedded region maps "
                                 "are not used)",
                                 exe, !size || !mtime ? "size and mtime not recorded, may have changed"
                                                      : "changed");
        return rep->program_note ? AA_OK : oom(g);
    }
    aa_err_clear(&e2);
    rc = aa_regionmap_read_elf(exe, &map, &n, &e2);
    if (rc == AA_OK && n > 0) {
        rc = merge_map(g, map, exe);
        aa_regionmap_free(map);
        if (rc == AA_EINPUT) { /* a conflict: the embedded maps are skipped */
            rep->program_note = note("%s (the program's embedded region maps are not used)",
                                     g->err ? g->err->msg : "conflicting region ids");
            aa_err_clear(g->err);
            return rep->program_note ? AA_OK : oom(g);
        }
        if (rc)
            return rc;
        rep->program = strdup(exe);
        rep->nprogram_maps = n;
        return rep->program ? AA_OK : oom(g);
    }
    aa_regionmap_free(map);
    if (rc == AA_EENV && strstr(e2.msg, "out of memory"))
        return aa_err_set(g->err, AA_EENV, "%s", e2.msg);
    if (rc) {
        rep->program_note = note("%s (the program's embedded region maps are not used)", e2.msg);
        return rep->program_note ? AA_OK : oom(g);
    }
    return AA_OK; /* no embedded maps: built without the wrapper */
}

static int push_str(char ***arr, size_t *n, const char *s)
{
    char **na = realloc(*arr, (*n + 1) * sizeof **arr);
    if (!na)
        return -1;
    *arr = na;
    na[*n] = strdup(s);
    if (!na[*n])
        return -1;
    (*n)++;
    return 0;
}

static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* A parent a region map names but no profile or map defines (a map
 * written for other sources) is dropped: the merged experiment must read
 * back, and the reader rejects dangling parents.  Profiles were checked
 * when read, so only parents from maps can dangle. */
static void drop_dangling_parents(aa_experiment *e)
{
    for (size_t i = 0; i < e->nregions; i++)
        if (e->regions[i].parent && !aa_experiment_region(e, e->regions[i].parent))
            e->regions[i].parent = 0;
}

/* ---- reading rank files in parallel -------------------------------------- */
#define MAX_THREADS 16
#define BATCH_PER_THREAD 8

/* The first rank file, kept while the others are read: a file whose run,
 * metrics and regions are byte for byte the same (as in a run's rank
 * files) is read without them (aa_experiment_read_binary_like). */
typedef struct like_file {
    unsigned char *data;
    size_t len;
    aa_experiment *e;
} like_file;

typedef struct slot {
    const rankfile *rf;
    const like_file *like; /* NULL: none yet */
    int keep;              /* keep the file's bytes (data, len): it may become like */
    unsigned char *data;
    size_t len;
    aa_experiment *f;
    int rc;
    aa_err err;
} slot;

typedef struct batch {
    slot *s;
    size_t n, next;
    pthread_mutex_t lock;
} batch;

/* A binary rank file is read whole with one open and one read (16,384 of
 * them make a big run: opening each twice and reading it through stdio
 * showed); anything else, and any failure, goes the general way, which
 * gives the messages.  O_NONBLOCK: opening a FIFO must not block. */
#define READ_WHOLE_MAX (64u << 20)
static int read_profile(const char *path, slot *s, aa_experiment **f, aa_err *err)
{
    struct stat st;
    unsigned char *data = NULL;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 8 &&
        st.st_size <= (off_t)READ_WHOLE_MAX && (data = malloc((size_t)st.st_size))) {
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
    }
    if (fd >= 0)
        close(fd);
    if (data && got == (size_t)st.st_size && aa_experiment_is_binary(data, got)) {
        if (s->like)
            rc = aa_experiment_read_binary_like(data, got, path, s->like->data, s->like->len,
                                                s->like->e, f, err);
        else
            rc = aa_experiment_read_binary_memory(data, got, path, f, err);
        if (s->keep && rc == AA_OK) {
            s->data = data;
            s->len = got;
        } else {
            free(data);
        }
        return rc;
    }
    free(data);
    if ((rc = check_regular(path, err)))
        return rc;
    return aa_experiment_read(path, f, err);
}

/* Reads one rank file and checks that it holds exactly that rank. */
static void read_rank_file(slot *s)
{
    const rankfile *rf = s->rf;
    aa_experiment *f = NULL;
    if ((s->rc = read_profile(rf->path, s, &f, &s->err)))
        return;
    if (f->nprocesses != 1 || f->processes[0].rank != rf->rank) {
        if (f->nprocesses == 1)
            s->rc = aa_err_set(&s->err, AA_EINPUT, "%s: holds the profile of rank %d, not %d",
                               rf->path, f->processes[0].rank, rf->rank);
        else
            s->rc = aa_err_set(&s->err, AA_EINPUT,
                               "%s: a per-rank profile must hold exactly one <process>, "
                               "this one holds %zu",
                               rf->path, f->nprocesses);
        aa_experiment_free(f);
        return;
    }
    s->f = f;
}

static void *batch_worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        size_t i;
        pthread_mutex_lock(&b->lock);
        i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            return NULL;
        read_rank_file(&b->s[i]);
    }
}

/* Reading a batch: worker threads start on it (batch_start) while the
 * caller merges the batch before; the caller then reads what is left of it
 * and waits for the workers (batch_finish).  A thread that cannot be
 * started leaves its share to the others. */
typedef struct reader_set {
    batch b;
    pthread_t tid[MAX_THREADS];
    int started;
} reader_set;

static void batch_start(reader_set *rs, slot *s, size_t n, int nthreads)
{
    rs->b.s = s;
    rs->b.n = n;
    rs->b.next = 0;
    pthread_mutex_init(&rs->b.lock, NULL);
    rs->started = 0;
    for (int t = 1; t < nthreads && (size_t)t < n; t++)
        if (pthread_create(&rs->tid[rs->started], NULL, batch_worker, &rs->b) == 0)
            rs->started++;
}

static void batch_finish(reader_set *rs)
{
    batch_worker(&rs->b);
    for (int t = 0; t < rs->started; t++)
        pthread_join(rs->tid[t], NULL);
    pthread_mutex_destroy(&rs->b.lock);
}

static int thread_count(const aa_collect_options *o)
{
    long n = o && o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void batch_fill(slot *s, const rankfile *rf, size_t n, const like_file *like)
{
    for (size_t k = 0; k < n; k++) {
        memset(&s[k], 0, sizeof s[k]);
        s[k].rf = &rf[k];
        s[k].like = like;
    }
}

/* Reads and merges the nrf rank files in batches of nslots (slots has room
 * for two): the worker threads read batch i + 1 while the caller merges
 * batch i in rank order, then helps to finish reading it.  The first error
 * in rank order stops the merge; files read after it are freed unmerged. */
static int merge_batches(merger *g, const rankfile *rf, size_t nrf, slot *slots, size_t nslots,
                         int nthreads, const aa_collect_options *o, aa_collect_report *rep,
                         aa_err *err)
{
    reader_set rs;
    slot *cur = slots, *next = slots + nslots;
    size_t i, k, n = nrf < nslots ? nrf : nslots;
    like_file like = {NULL, 0, NULL};
    int rc = AA_OK;
    batch_fill(cur, rf, n, NULL);
    cur[0].keep = 1;
    batch_start(&rs, cur, n, nthreads);
    batch_finish(&rs);
    for (i = 0; i < nrf; i += nslots) {
        size_t nn = nrf - i - n < nslots ? nrf - i - n : nslots;
        slot *t;
        if (nn) { /* start on the next batch */
            batch_fill(next, rf + i + n, nn, like.e ? &like : NULL);
            batch_start(&rs, next, nn, nthreads);
        }
        for (k = 0; k < n && !rc; k++) {
            if (push_str(&rep->files, &rep->nfiles, rf[i + k].path))
                rc = aa_err_set(err, AA_EENV, "out of memory");
            else if ((rc = cur[k].rc) && err)
                *err = cur[k].err;
            else
                rc = merge_one(g, cur[k].f, rf[i + k].path);
            if (!rc && cur[k].data) { /* the first file: like for the batches to come */
                like.data = cur[k].data;
                like.len = cur[k].len;
                like.e = cur[k].f;
            } else {
                aa_experiment_free(cur[k].f);
                free(cur[k].data);
            }
            cur[k].f = NULL;
            cur[k].data = NULL;
            if (!rc && o && o->progress)
                o->progress(o->progress_ctx, i + k + 1, nrf);
        }
        for (; k < n; k++) { /* read after an error: not merged */
            aa_experiment_free(cur[k].f);
            free(cur[k].data);
        }
        if (nn)
            batch_finish(&rs);
        if (rc) {
            for (k = 0; k < nn; k++)
                aa_experiment_free(next[k].f);
            break;
        }
        t = cur, cur = next, next = t;
        n = nn;
    }
    aa_experiment_free(like.e);
    free(like.data);
    return rc;
}

/* Names the regions of g->m from the region maps files maps[0..nmaps)
 * (sorted) and, unless o says not, from the maps embedded in the program
 * g->m records (each noted in rep); then drops the parents no profile or
 * map defines, and rejects parents that form a cycle. */
static int name_regions(merger *g, char *const *maps, size_t nmaps, const aa_collect_options *o,
                        aa_collect_report *rep)
{
    size_t i;
    uint32_t at = 0;
    int rc, cyc;
    for (i = 0; i < nmaps; i++) {
        aa_regionmap *map = NULL;
        if ((rc = check_regular(maps[i], g->err)) || (rc = aa_regionmap_read(maps[i], &map, g->err)))
            return rc;
        rc = merge_map(g, map, maps[i]);
        aa_regionmap_free(map);
        if (rc)
            return rc;
        if (push_str(&rep->maps, &rep->nmaps, maps[i]))
            return oom(g);
    }
    if (!(o && o->no_program_maps) && (rc = program_maps(g, rep)))
        return rc;
    drop_dangling_parents(g->m);
    if ((cyc = aa_experiment_parent_cycle(g->m, &at)) < 0)
        return oom(g);
    if (cyc)
        return aa_err_set(g->err, AA_EINPUT, "%s: region %u: its parents form a cycle",
                          region_file(g, at), at);
    return AA_OK;
}

/* The region maps files of dir (*.regions.xml, *.regions.xml.gz), sorted. */
static int list_maps(const char *dir, char ***maps, size_t *nmaps, aa_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d)
        return aa_err_set(err, AA_EINPUT, "%s: %s", dir, strerror(errno));
    while ((de = readdir(d)))
        if (ends_with(de->d_name, ".regions.xml") || ends_with(de->d_name, ".regions.xml.gz")) {
            char *p = join(dir, de->d_name);
            if (!p || push_str(maps, nmaps, p)) {
                free(p);
                closedir(d);
                return aa_err_set(err, AA_EENV, "out of memory");
            }
            free(p);
        }
    closedir(d);
    if (*nmaps)
        qsort(*maps, *nmaps, sizeof **maps, cmp_str);
    return AA_OK;
}

int aa_collect_name_regions(const char *dir, aa_experiment *e, const aa_collect_options *o,
                            aa_collect_report *rep, aa_err *err)
{
    aa_collect_report local;
    char **maps = NULL;
    size_t nmaps = 0, i;
    merger g;
    int rc;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    memset(&g, 0, sizeof g);
    g.m = e;
    g.err = err;
    if (!(rc = list_maps(dir, &maps, &nmaps, err)))
        rc = name_regions(&g, maps, nmaps, o, rep);
    for (i = 0; i < nmaps; i++)
        free(maps[i]);
    free(maps);
    free(g.region_src);
    if (rep == &local)
        aa_collect_report_free(&local);
    return rc;
}

int aa_collect_dir(const char *path, aa_experiment **out, aa_collect_report *rep, aa_err *err)
{
    return aa_collect_dir_opts(path, NULL, out, rep, err);
}

int aa_collect_dir_opts(const char *path, const aa_collect_options *o, aa_experiment **out,
                        aa_collect_report *rep, aa_err *err)
{
    aa_collect_report local;
    struct stat st;
    DIR *d = NULL;
    struct dirent *de;
    rankfile *rf = NULL;
    size_t nrf = 0, i;
    char **maps = NULL;
    size_t nmaps = 0;
    char *single = NULL;
    char mapdir[4096];
    merger g;
    slot *slots = NULL;
    size_t nslots;
    int rc = AA_OK, nthreads;

    *out = NULL;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    memset(&g, 0, sizeof g);
    g.err = err;

    if (stat(path, &st) != 0)
        return aa_err_set(err, errno == ENOENT ? AA_EINPUT : AA_EENV, "%s: %s", path,
                          strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        snprintf(mapdir, sizeof mapdir, "%s", path);
    } else {
        single = strdup(path);
        if (!single)
            return aa_err_set(err, AA_EENV, "out of memory");
        dir_of(path, mapdir, sizeof mapdir);
    }

    d = opendir(mapdir);
    if (!d) {
        rc = aa_err_set(err, single ? AA_EENV : AA_EINPUT, "%s: %s", mapdir, strerror(errno));
        goto out;
    }
    while ((de = readdir(d))) {
        int r = single ? -1 : rank_of_name(de->d_name);
        if (r == -2) {
            rc = aa_err_set(err, AA_EINPUT, "%s/%s: rank number out of range (above %d)",
                            mapdir, de->d_name, INT_MAX);
            goto out;
        }
        if (r >= 0) {
            rankfile *nr = realloc(rf, (nrf + 1) * sizeof *rf);
            if (!nr || !(nr[nrf].path = join(mapdir, de->d_name))) {
                rf = nr ? nr : rf;
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
            rf = nr;
            nr[nrf++].rank = r;
        } else if (ends_with(de->d_name, ".regions.xml") || ends_with(de->d_name, ".regions.xml.gz")) {
            char *p = join(mapdir, de->d_name);
            if (!p || push_str(&maps, &nmaps, p)) {
                free(p);
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
            free(p);
        }
    }
    closedir(d);
    d = NULL;
    if (nmaps)
        qsort(maps, nmaps, sizeof *maps, cmp_str);

    if (!single && nrf == 0) {
        /* an mpi-mode directory: rank 0 wrote experiment.xml, or
         * experiment.aab in the binary form */
        single = join(mapdir, "experiment.xml");
        if (single && stat(single, &st) != 0) {
            free(single);
            single = join(mapdir, "experiment.aab");
            if (single && stat(single, &st) != 0) {
                rc = aa_err_set(err, AA_EINPUT,
                                "%s: no profiles here (neither rank-<N>.xml files nor "
                                "experiment.xml or experiment.aab)",
                                path);
                goto out;
            }
        }
        if (!single) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
    }

    if (single) {
        aa_experiment *e = NULL;
        rep->single_file = 1;
        if (push_str(&rep->files, &rep->nfiles, single)) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        rc = aa_experiment_read(single, &e, err);
        if (rc)
            goto out;
        g.m = e;
        g.first_file = single;
    } else {
        qsort(rf, nrf, sizeof *rf, cmp_rankfile);
        for (i = 1; i < nrf; i++)
            if (rf[i].rank == rf[i - 1].rank) {
                rc = aa_err_set(err, AA_EINPUT, "rank %d appears twice: in %s and in %s",
                                rf[i].rank, rf[i - 1].path, rf[i].path);
                goto out;
            }
        g.m = aa_experiment_new();
        if (!g.m) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        nthreads = thread_count(o);
        nslots = (size_t)nthreads * BATCH_PER_THREAD;
        if (nthreads > 1)
            aa_profile_threads_init();
        /* two batches: the next one is read while this one is merged */
        if (!(slots = calloc(2 * nslots, sizeof *slots))) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        rc = merge_batches(&g, rf, nrf, slots, nslots, nthreads, o, rep, err);
        if (rc)
            goto out;
    }

    if ((rc = name_regions(&g, maps, nmaps, o, rep)))
        goto out;
    if (aa_experiment_check(g.m, err)) {
        aa_err_prefix(err, "%s: merged experiment", path);
        rc = AA_EINPUT;
        goto out;
    }

    /* report */
    rep->nprocs = g.m->nprocs;
    rep->nranks = g.m->nprocesses;
    rep->nregions = g.m->nregions;
    rep->nmetrics = g.m->nmetrics;
    if (g.m->nprocs > 0 && (size_t)g.m->nprocs > g.m->nprocesses) {
        size_t j = 0;
        int r;
        rep->missing = malloc(((size_t)g.m->nprocs - g.m->nprocesses) * sizeof *rep->missing);
        if (!rep->missing) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        for (r = 0; r < g.m->nprocs; r++) {
            if (j < g.m->nprocesses && g.m->processes[j].rank == r)
                j++;
            else
                rep->missing[rep->nmissing++] = r;
        }
    }
    *out = g.m;
    g.m = NULL;

out:
    if (d)
        closedir(d);
    for (i = 0; i < nrf; i++)
        free(rf[i].path);
    free(rf);
    for (i = 0; i < nmaps; i++)
        free(maps[i]);
    free(maps);
    free(single);
    free(slots);
    free(g.rank_file);
    free(g.region_src);
    aa_experiment_free(g.m);
    if (rep == &local)
        aa_collect_report_free(&local);
    return rc;
}
