/*
 * report/import_mpip.c -- reads an mpiP report (the text file mpiP writes at
 * MPI_Finalize, `PROGRAM.NP.PID.N.mpiP`; docs/report.md names the layout
 * followed) into an experiment, so runs profiled with mpiP can be stored in
 * the Program Space and compared with AutoAnalyzer's own.
 *
 * Read: the header ("@ mpiP", "@ Command", "@ Version", "@ MPI Task
 * Assignment : RANK HOST"), "@--- MPI Time (seconds)" (AppTime and MPITime
 * per task), "@--- Callsites" (each callsite's stack: level 0 the MPI call
 * with its file, line and calling function, levels 1.. its callers),
 * "@--- Callsite Time statistics" (Count and Mean milliseconds per callsite
 * and rank) and "@--- Callsite Message Sent statistics" (Sum of bytes).
 * The aggregate sections (top twenty, histograms) and the "*" lines are
 * summaries of these and are skipped, as are sections not named here.
 *
 * Mapped to: one process per task (its host from the task assignment), the
 * whole program as the root (wall = AppTime, mpi_wall = MPITime), one
 * function region per function of the stacks and one call region per MPI
 * call site ("MPI_Send@57"), the calling contexts following the stacks;
 * a call site's visits = Count, wall = mpi_wall = Count x Mean; a function
 * node's mpi_wall (and bytes) the sum of its children's, its wall and
 * visits not measured (mpiP does not time functions).  Region ids are
 * numbered in the order of their names and source positions, so the same
 * program gets the same ids in two imports (mpiP's callsite ids are not
 * stable between reports).
 */
#include "report/report_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)
#define MAX_TOKENS 64

typedef struct mp_frame {
    char *file;
    int line;
    char *func;
} mp_frame;

typedef struct mp_site {
    long id;          /* mpiP's callsite id */
    char *call;       /* "Send" */
    size_t nframes;   /* level 0 first */
    mp_frame *frames;
    uint32_t region;  /* the call-site region */
    size_t node;      /* its node in the calling-context tree */
} mp_site;

typedef struct mp_rank {
    long rank;
    char *host;
    double app, mpi;
    int timed;        /* has its "MPI Time" line */
} mp_rank;

typedef struct mp_stat {
    size_t site;       /* index */
    long rank;
    double count, seconds, bytes;
    int sent;          /* from the message section */
    size_t line;
} mp_stat;

typedef struct mp_key {
    char *key;
    int function;      /* 1 function, 0 call site */
    size_t site;       /* for call sites: one site with this key */
    const char *func, *file;
    int line;
    uint32_t id;
} mp_key;

typedef struct mp_report {
    const char *name;  /* for messages */
    char *command, *version;
    mp_site *sites;
    size_t nsites, capsites;
    mp_rank *ranks;
    size_t nranks, capranks;
    mp_stat *stats;
    size_t nstats, capstats;
    int have_time, have_sent;
    mp_key *keys;
    size_t nkeys;
} mp_report;

/* ---- reading lines --------------------------------------------------------- */

/* Splits l in place at white space; returns the number of tokens (at most
 * MAX_TOKENS; more gives MAX_TOKENS + 1). */
static size_t split(char *l, char **t)
{
    size_t n = 0;
    for (;;) {
        while (isspace((unsigned char)*l))
            l++;
        if (!*l)
            return n;
        if (n == MAX_TOKENS)
            return n + 1;
        t[n++] = l;
        while (*l && !isspace((unsigned char)*l))
            l++;
        if (*l)
            *l++ = 0;
    }
}

static int blank_or_rule(const char *l)
{
    for (; *l; l++)
        if (!isspace((unsigned char)*l) && *l != '-')
            return 0;
    return 1;
}

static char *trim(char *s)
{
    size_t n;
    while (isspace((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* A number >= 0 (mpiP prints "%g"-style values, "4.8e+05"). */
static int number(const char *s, double *v)
{
    return aa_parse_double(s, v) == 0 && *v >= 0;
}

static char *join(char **t, size_t from, size_t to)
{
    aa_buf b;
    size_t i;
    aa_buf_init(&b);
    for (i = from; i < to; i++)
        aa_buf_printf(&b, "%s%s", i > from ? " " : "", t[i]);
    if (b.failed) {
        aa_buf_free(&b);
        return NULL;
    }
    return b.data ? aa_buf_detach(&b) : aa_strdup("");
}

/* ---- the report's parts ------------------------------------------------------ */

static mp_rank *rank_get(mp_report *r, long rank, int create)
{
    size_t i;
    for (i = 0; i < r->nranks; i++)
        if (r->ranks[i].rank == rank)
            return &r->ranks[i];
    if (!create)
        return NULL;
    if (r->nranks == r->capranks) {
        size_t nc = r->capranks ? 2 * r->capranks : 16;
        mp_rank *nv = realloc(r->ranks, nc * sizeof *nv);
        if (!nv)
            return NULL;
        r->ranks = nv;
        r->capranks = nc;
    }
    memset(&r->ranks[r->nranks], 0, sizeof *r->ranks);
    r->ranks[r->nranks].rank = rank;
    return &r->ranks[r->nranks++];
}

static size_t site_index(const mp_report *r, long id)
{
    size_t i;
    for (i = 0; i < r->nsites; i++)
        if (r->sites[i].id == id)
            return i;
    return NONE;
}

#define BAD(...) aa_err_set(err, AA_EINPUT, __VA_ARGS__)
#define NOMEM() aa_err_set(err, AA_EENV, "out of memory")

/* "@ MPI Task Assignment : 0 host", "@ Command : ...", "@ Version : ..." */
static int header_line(mp_report *r, char *l, size_t ln, aa_err *err)
{
    char *colon = strchr(l, ':'), *key, *val;
    if (!colon)
        return AA_OK;
    *colon = 0;
    key = trim(l + 1);
    val = trim(colon + 1);
    if (!strcmp(key, "Command") && !r->command) {
        if (!(r->command = aa_strdup(val)))
            return NOMEM();
    } else if (!strcmp(key, "Version") && !r->version) {
        if (!(r->version = aa_strdup(val)))
            return NOMEM();
    } else if (!strcmp(key, "MPI Task Assignment")) {
        char *t[MAX_TOKENS + 1];
        long rank;
        mp_rank *k;
        size_t n = split(val, t);
        if (n < 1 || n > 2 || aa_parse_long(t[0], &rank) || rank < 0 || rank > 10000000)
            return BAD("%s:%zu: expected '@ MPI Task Assignment : RANK HOST'", r->name, ln);
        if (!(k = rank_get(r, rank, 1)))
            return NOMEM();
        if (k->host)
            return BAD("%s:%zu: task %ld assigned twice", r->name, ln, rank);
        if (!(k->host = aa_strdup(n == 2 ? t[1] : "")))
            return NOMEM();
    }
    return AA_OK;
}

/* "Task AppTime MPITime MPI%" rows */
static int time_row(mp_report *r, char **t, size_t n, size_t ln, aa_err *err)
{
    long rank;
    double app, mpi, pct;
    mp_rank *k;
    if (n != 4)
        return BAD("%s:%zu: expected 'Task AppTime MPITime MPI%%' (4 fields, %zu found)", r->name,
                   ln, n);
    if (!strcmp(t[0], "*"))
        return AA_OK; /* the aggregate line */
    if (aa_parse_long(t[0], &rank) || rank < 0 || rank > 10000000)
        return BAD("%s:%zu: task '%s' is not a rank", r->name, ln, t[0]);
    if (!number(t[1], &app) || !number(t[2], &mpi) || !number(t[3], &pct))
        return BAD("%s:%zu: AppTime, MPITime and MPI%% are numbers >= 0", r->name, ln);
    if (!(k = rank_get(r, rank, 1)))
        return NOMEM();
    if (k->timed)
        return BAD("%s:%zu: task %ld has two MPI Time lines", r->name, ln, rank);
    k->timed = 1;
    k->app = app;
    k->mpi = mpi;
    return AA_OK;
}

/* " ID Lev File/Address Line Parent_Funct MPI_Call" rows */
static int site_row(mp_report *r, char **t, size_t n, size_t ln, aa_err *err)
{
    long id, lev, line = 0;
    size_t rest = 3, end = n, s;
    mp_site *x;
    mp_frame *f;
    if (n < 4 || n > MAX_TOKENS || aa_parse_long(t[0], &id) || id < 1 ||
        aa_parse_long(t[1], &lev) || lev < 0)
        return BAD("%s:%zu: expected 'ID Lev File/Address Line Parent_Funct [MPI_Call]'", r->name,
                   ln);
    if (aa_parse_long(t[3], &line) == 0) {
        if (line < 0 || line > 100000000)
            return BAD("%s:%zu: line %ld", r->name, ln, line);
        rest = 4;
    } else {
        line = 0; /* an address: no line */
    }
    s = site_index(r, id);
    if (lev == 0) {
        if (s != NONE)
            return BAD("%s:%zu: callsite %ld listed twice", r->name, ln, id);
        if (end < rest + 2)
            return BAD("%s:%zu: level 0 of callsite %ld needs Parent_Funct and MPI_Call", r->name,
                       ln, id);
        end--; /* the MPI call */
        if (r->nsites == r->capsites) {
            size_t nc = r->capsites ? 2 * r->capsites : 64;
            mp_site *nv = realloc(r->sites, nc * sizeof *nv);
            if (!nv)
                return NOMEM();
            r->sites = nv;
            r->capsites = nc;
        }
        x = &r->sites[r->nsites++];
        memset(x, 0, sizeof *x);
        x->id = id;
        if (!(x->call = aa_strdup(t[n - 1])))
            return NOMEM();
    } else {
        if (s == NONE || r->sites[s].nframes != (size_t)lev)
            return BAD("%s:%zu: level %ld of callsite %ld does not follow its level %ld", r->name,
                       ln, lev, id, lev - 1);
        if (end < rest + 1)
            return BAD("%s:%zu: level %ld of callsite %ld needs Parent_Funct", r->name, ln, lev,
                       id);
        x = &r->sites[s];
    }
    f = realloc(x->frames, (x->nframes + 1) * sizeof *f);
    if (!f)
        return NOMEM();
    x->frames = f;
    f = &x->frames[x->nframes];
    memset(f, 0, sizeof *f);
    x->nframes++;
    f->line = (int)line;
    if (!(f->file = aa_strdup(t[2])) || !(f->func = join(t, rest, end)))
        return NOMEM();
    return AA_OK;
}

/* "Name Site Rank Count Max Mean Min App% MPI%" (time) or
 * "Name Site Rank Count Max Mean Min Sum" (sent bytes) rows */
static int stat_row(mp_report *r, char **t, size_t n, size_t ln, int sent, aa_err *err)
{
    long site, rank;
    double v[6];
    size_t s, i, k, want = sent ? 8 : 9;
    mp_stat *st;
    if (n != want)
        return BAD("%s:%zu: expected %s (%zu fields, %zu found)", r->name, ln,
                   sent ? "'Name Site Rank Count Max Mean Min Sum'"
                        : "'Name Site Rank Count Max Mean Min App% MPI%'",
                   want, n);
    if (aa_parse_long(t[1], &site) || site < 1)
        return BAD("%s:%zu: site '%s' is not a callsite id", r->name, ln, t[1]);
    if (!strcmp(t[2], "*"))
        return AA_OK; /* the aggregate over all tasks */
    if (aa_parse_long(t[2], &rank) || rank < 0)
        return BAD("%s:%zu: rank '%s' is not a rank", r->name, ln, t[2]);
    for (i = 3; i < n; i++)
        if (!number(t[i], &v[i - 3]))
            return BAD("%s:%zu: '%s' is not a number >= 0", r->name, ln, t[i]);
    if ((s = site_index(r, site)) == NONE)
        return BAD("%s:%zu: callsite %ld is not in the Callsites section", r->name, ln, site);
    if (strcmp(r->sites[s].call, t[0]))
        return BAD("%s:%zu: callsite %ld is %s in the Callsites section, not %s", r->name, ln,
                   site, r->sites[s].call, t[0]);
    for (k = 0; k < r->nranks && r->ranks[k].rank != rank; k++)
        ;
    if (k == r->nranks || !r->ranks[k].timed)
        return BAD("%s:%zu: rank %ld has no line in the MPI Time section", r->name, ln, rank);
    for (i = 0; i < r->nstats; i++)
        if (r->stats[i].site == s && r->stats[i].rank == rank && r->stats[i].sent == sent)
            return BAD("%s:%zu: callsite %ld, rank %ld listed twice", r->name, ln, site, rank);
    if (r->nstats == r->capstats) {
        size_t nc = r->capstats ? 2 * r->capstats : 256;
        mp_stat *nv = realloc(r->stats, nc * sizeof *nv);
        if (!nv)
            return NOMEM();
        r->stats = nv;
        r->capstats = nc;
    }
    st = &r->stats[r->nstats++];
    memset(st, 0, sizeof *st);
    st->site = s;
    st->rank = rank;
    st->sent = sent;
    st->line = ln;
    st->count = v[0];
    if (sent)
        st->bytes = v[4];
    else
        st->seconds = v[0] * v[2] * 1e-3; /* Count x Mean (ms) */
    return AA_OK;
}

enum section { S_NONE, S_SKIP, S_TIME, S_SITES, S_STAT_TIME, S_STAT_SENT };

/* "@--- Callsites: 211 -----": the section, and the number it announces */
static enum section section_of(const char *title, long *announced)
{
    *announced = -1;
    if (!strncmp(title, "MPI Time (seconds)", 18))
        return S_TIME;
    if (!strncmp(title, "Callsites:", 10)) {
        if (sscanf(title + 10, "%ld", announced) != 1)
            *announced = -1;
        return S_SITES;
    }
    if (!strncmp(title, "Callsite Time statistics", 24))
        return S_STAT_TIME;
    if (!strncmp(title, "Callsite Message Sent statistics", 32))
        return S_STAT_SENT;
    return S_SKIP;
}

/* The column header a section starts with. */
static int header_ok(enum section s, char **t, size_t n)
{
    switch (s) {
    case S_TIME: return n == 4 && !strcmp(t[0], "Task") && !strcmp(t[1], "AppTime") &&
                        !strcmp(t[2], "MPITime");
    case S_SITES: return n >= 5 && !strcmp(t[0], "ID") && !strcmp(t[1], "Lev");
    case S_STAT_TIME: return n == 9 && !strcmp(t[0], "Name") && !strcmp(t[1], "Site") &&
                             !strcmp(t[2], "Rank") && !strcmp(t[3], "Count");
    case S_STAT_SENT: return n == 8 && !strcmp(t[0], "Name") && !strcmp(t[1], "Site") &&
                             !strcmp(t[7], "Sum");
    default: return 1;
    }
}

static const char *const section_header[] = {
    "", "", "Task AppTime MPITime MPI%", "ID Lev File/Address Line Parent_Funct MPI_Call",
    "Name Site Rank Count Max Mean Min App% MPI%", "Name Site Rank Count Max Mean Min Sum"};

static int sites_done(mp_report *r, long announced, size_t first, size_t at, aa_err *err)
{
    if (announced >= 0 && (size_t)announced != r->nsites - first)
        return BAD("%s:%zu: the Callsites section announces %ld callsites, %zu are listed",
                   r->name, at, announced, r->nsites - first);
    return AA_OK;
}

static int parse(mp_report *r, char *text, aa_err *err)
{
    size_t ln = 0, n, sec_line = 0, sites_before = 0;
    char *p = text, *l, *t[MAX_TOKENS + 1];
    enum section sec = S_NONE;
    int have_header = 0, rc = AA_OK, started = 0;
    long announced = -1;
    while ((l = rp_next_line(&p, &ln)) && rc == AA_OK) {
        if (!started) {
            if (blank_or_rule(l))
                continue;
            if (strncmp(l, "@ mpiP", 6) || (l[6] && !isspace((unsigned char)l[6])))
                return BAD("%s:%zu: not an mpiP report: expected '@ mpiP'", r->name, ln);
            started = 1;
            continue;
        }
        if (!strncmp(l, "@---", 4)) {
            char *title = l + 4;
            if (sec == S_SITES && (rc = sites_done(r, announced, sites_before, sec_line, err)))
                break;
            while (*title == ' ')
                title++;
            if (!strncmp(title, "End of Report", 13))
                break;
            sec = section_of(title, &announced);
            if (sec == S_TIME)
                r->have_time++;
            if (sec == S_STAT_SENT)
                r->have_sent = 1;
            if (sec == S_TIME && r->have_time > 1)
                return BAD("%s:%zu: a second MPI Time section", r->name, ln);
            have_header = 0;
            sec_line = ln;
            sites_before = r->nsites;
            continue;
        }
        if (sec == S_NONE) {
            if (l[0] == '@')
                rc = header_line(r, l, ln, err);
            continue;
        }
        if (sec == S_SKIP || blank_or_rule(l))
            continue;
        n = split(l, t);
        if (!have_header) {
            if (!header_ok(sec, t, n))
                return BAD("%s:%zu: expected the column header '%s'", r->name, ln,
                           section_header[sec]);
            have_header = 1;
            continue;
        }
        switch (sec) {
        case S_TIME: rc = time_row(r, t, n, ln, err); break;
        case S_SITES: rc = site_row(r, t, n, ln, err); break;
        case S_STAT_TIME: rc = stat_row(r, t, n, ln, 0, err); break;
        case S_STAT_SENT: rc = stat_row(r, t, n, ln, 1, err); break;
        default: break;
        }
    }
    if (rc)
        return rc;
    if (!started)
        return BAD("%s:%zu: not an mpiP report: expected '@ mpiP'", r->name, ln ? ln : 1);
    if (sec == S_SITES && (rc = sites_done(r, announced, sites_before, sec_line, err)))
        return rc;
    if (!r->have_time)
        return BAD("%s:%zu: no '@--- MPI Time (seconds)' section", r->name, ln ? ln : 1);
    for (n = 0; n < r->nranks; n++)
        if (!r->ranks[n].timed)
            return BAD("%s:%zu: task %ld is assigned but has no MPI Time line", r->name,
                       ln ? ln : 1, r->ranks[n].rank);
    if (!r->nranks)
        return BAD("%s:%zu: the MPI Time section lists no task", r->name, ln ? ln : 1);
    return AA_OK;
}

/* ---- regions ----------------------------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
    return strcmp(((const mp_key *)a)->key, ((const mp_key *)b)->key);
}

static uint32_t key_id(const mp_report *r, const char *key)
{
    mp_key k, *hit;
    k.key = (char *)key;
    hit = bsearch(&k, r->keys, r->nkeys, sizeof k, key_cmp);
    return hit ? hit->id : 0;
}

/* a function: its name and its file (static functions of one name in two
 * files are two regions) */
static char *function_key(const mp_frame *f)
{
    aa_buf b;
    aa_buf_init(&b);
    aa_buf_printf(&b, "f\x01%s\x01%s", f->func, f->file);
    return b.failed ? (aa_buf_free(&b), NULL) : aa_buf_detach(&b);
}

static char *site_key(const mp_site *s)
{
    aa_buf b;
    aa_buf_init(&b);
    aa_buf_printf(&b, "s\x01%s\x01%s\x01%010d\x01%s", s->call, s->frames[0].file,
                  s->frames[0].line, s->frames[0].func);
    return b.failed ? (aa_buf_free(&b), NULL) : aa_buf_detach(&b);
}

/* Regions: the program (0), then functions and call sites numbered in key
 * order, duplicates merged. */
static int add_regions(mp_report *r, aa_experiment *e, aa_err *err)
{
    size_t i, j, n = 0, m = 0, cap = 1;
    aa_region g;
    for (i = 0; i < r->nsites; i++)
        cap += r->sites[i].nframes + 1;
    if (!(r->keys = calloc(cap, sizeof *r->keys)))
        return NOMEM();
    for (i = 0; i < r->nsites; i++) {
        mp_site *s = &r->sites[i];
        for (j = 0; j < s->nframes; j++) {
            mp_key *k = &r->keys[n];
            if (!(k->key = function_key(&s->frames[j])))
                return NOMEM();
            k->function = 1;
            k->func = s->frames[j].func;
            /* a function's file: where its own calls are (the frame it is
             * Parent_Funct of) */
            k->file = s->frames[j].file;
            n++;
        }
        if (!(r->keys[n].key = site_key(s)))
            return NOMEM();
        r->keys[n].site = i;
        n++;
    }
    if (n)
        qsort(r->keys, n, sizeof *r->keys, key_cmp);
    for (i = 0; i < n; i++) {
        if (m && !strcmp(r->keys[m - 1].key, r->keys[i].key)) {
            free(r->keys[i].key);
            continue;
        }
        r->keys[m] = r->keys[i];
        r->keys[m].id = (uint32_t)m + 1;
        m++;
    }
    r->nkeys = m;
    memset(&g, 0, sizeof g);
    g.kind = AA_KIND_PROGRAM;
    g.name = (char *)"program";
    g.function = g.file = (char *)"";
    if (aa_experiment_add_region(e, &g))
        return NOMEM();
    for (i = 0; i < m; i++) {
        const mp_key *k = &r->keys[i];
        char name[512];
        memset(&g, 0, sizeof g);
        g.id = k->id;
        if (k->function) {
            g.kind = AA_KIND_FUNCTION;
            g.name = g.function = (char *)k->func;
            g.file = (char *)(k->file[0] == '0' && k->file[1] == 'x' ? "" : k->file);
        } else {
            const mp_site *s = &r->sites[k->site];
            char *fk = function_key(&s->frames[0]);
            if (!fk)
                return NOMEM();
            g.kind = AA_KIND_CALL;
            if (s->frames[0].line > 0)
                snprintf(name, sizeof name, "MPI_%s@%d", s->call, s->frames[0].line);
            else
                snprintf(name, sizeof name, "MPI_%s", s->call);
            g.name = name;
            g.function = s->frames[0].func;
            g.file = (char *)(s->frames[0].file[0] == '0' && s->frames[0].file[1] == 'x'
                                  ? ""
                                  : s->frames[0].file);
            g.line = s->frames[0].line;
            g.parent = key_id(r, fk);
            free(fk);
        }
        if (aa_experiment_add_region(e, &g))
            return NOMEM();
    }
    return AA_OK;
}

/* ---- the calling-context tree (the same for every task) ------------------------ */

typedef struct tnode {
    uint32_t region;
    size_t parent;
} tnode;

static size_t tree_child(tnode **v, size_t *n, size_t *cap, size_t parent, uint32_t region)
{
    size_t i;
    for (i = 0; i < *n; i++)
        if ((*v)[i].parent == parent && (*v)[i].region == region)
            return i;
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        tnode *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return NONE;
        *v = nv;
        *cap = nc;
    }
    (*v)[*n].region = region;
    (*v)[*n].parent = parent;
    return (*n)++;
}

static int build_tree(mp_report *r, tnode **tree, size_t *ntree, aa_err *err)
{
    size_t i, cap = 0;
    *tree = NULL;
    *ntree = 0;
    if (tree_child(tree, ntree, &cap, NONE, 0) == NONE)
        return NOMEM();
    for (i = 0; i < r->nsites; i++) {
        mp_site *s = &r->sites[i];
        size_t at = 0, j = s->nframes;
        char *k;
        while (j-- > 0) { /* outermost caller first */
            if (!(k = function_key(&s->frames[j])))
                return NOMEM();
            at = tree_child(tree, ntree, &cap, at, key_id(r, k));
            free(k);
            if (at == NONE)
                return NOMEM();
        }
        if (!(k = site_key(s)))
            return NOMEM();
        s->node = tree_child(tree, ntree, &cap, at, key_id(r, k));
        s->region = key_id(r, k);
        free(k);
        if (s->node == NONE)
            return NOMEM();
    }
    return AA_OK;
}

static int rank_cmp(const void *a, const void *b)
{
    const mp_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int build(mp_report *r, aa_experiment *e, aa_err *err)
{
    tnode *tree = NULL;
    size_t ntree = 0, i, k, nd;
    int mv = aa_experiment_metric_index(e, "visits"), mw = aa_experiment_metric_index(e, "wall");
    int mm = aa_experiment_metric_index(e, "mpi_wall");
    int mb = aa_experiment_metric_index(e, "mpi_bytes_sent");
    int rc = build_tree(r, &tree, &ntree, err);
    for (k = 0; k < r->nranks && rc == AA_OK; k++) {
        mp_rank *rk = &r->ranks[k];
        aa_process *p = aa_experiment_add_process(e, (int)rk->rank);
        aa_thread *t = p ? aa_process_add_thread(p, 0) : NULL;
        if (!t) {
            rc = NOMEM();
            break;
        }
        if (rk->host) {
            free(p->host);
            if (!(p->host = aa_strdup(rk->host))) {
                rc = NOMEM();
                break;
            }
        }
        for (nd = 0; nd < ntree; nd++) {
            double *v;
            if (aa_thread_add_node(e, t, tree[nd].region,
                                   tree[nd].parent == NONE ? -1 : (int32_t)tree[nd].parent) < 0) {
                rc = NOMEM();
                break;
            }
            v = aa_node_values(e, t, nd);
            if (nd == 0) {
                v[mv] = 1;
                v[mw] = rk->app;
                v[mm] = rk->mpi;
            } else {
                v[mm] = 0; /* call sites: 0 unless the task has a line */
                if (mb >= 0)
                    v[mb] = 0;
            }
        }
        for (i = 0; i < r->nsites && rc == AA_OK; i++) { /* call sites are measured */
            double *v = aa_node_values(e, t, r->sites[i].node);
            v[mv] = v[mw] = 0;
        }
    }
    for (i = 0; i < r->nstats && rc == AA_OK; i++) {
        const mp_stat *st = &r->stats[i];
        aa_thread *t = &aa_experiment_process(e, (int)st->rank)->threads[0];
        double *v = aa_node_values(e, t, r->sites[st->site].node);
        if (st->sent) {
            v[mb] += st->bytes;
        } else {
            v[mv] += st->count;
            v[mw] += st->seconds;
            v[mm] += st->seconds;
        }
    }
    for (k = 0; k < e->nprocesses && rc == AA_OK; k++) { /* functions: their calls' sums */
        aa_thread *t = &e->processes[k].threads[0];
        for (nd = ntree; nd-- > 1;) {
            double *v = aa_node_values(e, t, nd), *pv;
            if (tree[nd].parent == 0 || tree[nd].parent == NONE)
                continue;
            pv = aa_node_values(e, t, tree[nd].parent);
            pv[mm] += v[mm];
            if (mb >= 0)
                pv[mb] += v[mb];
        }
        if (mb >= 0) { /* the whole program: what its top-level nodes sent */
            double *root = aa_node_values(e, t, 0);
            root[mb] = 0;
            for (nd = 1; nd < ntree; nd++)
                if (tree[nd].parent == 0)
                    root[mb] += aa_node_values(e, t, nd)[mb];
        }
    }
    free(tree);
    return rc;
}

/* ---- entry points ---------------------------------------------------------------- */

static void report_free(mp_report *r)
{
    size_t i, j;
    for (i = 0; i < r->nsites; i++) {
        for (j = 0; j < r->sites[i].nframes; j++) {
            free(r->sites[i].frames[j].file);
            free(r->sites[i].frames[j].func);
        }
        free(r->sites[i].frames);
        free(r->sites[i].call);
    }
    free(r->sites);
    for (i = 0; i < r->nranks; i++)
        free(r->ranks[i].host);
    free(r->ranks);
    free(r->stats);
    for (i = 0; i < r->nkeys; i++)
        free(r->keys[i].key);
    free(r->keys);
    free(r->command);
    free(r->version);
}

/* "/path/to/prog -x": "prog" */
static char *program_name(const char *command, const char *name)
{
    char buf[512], *sp, *slash;
    snprintf(buf, sizeof buf, "%s", command && *command ? command : name);
    if ((sp = strpbrk(buf, " \t")))
        *sp = 0;
    slash = strrchr(buf, '/');
    return aa_strdup(slash && slash[1] ? slash + 1 : buf);
}

int aa_import_mpip_text(const char *name, const char *data, size_t len, aa_experiment **out,
                        aa_err *err)
{
    mp_report r;
    aa_experiment *e = NULL;
    char *text;
    const char *nul;
    int rc;
    *out = NULL;
    memset(&r, 0, sizeof r);
    r.name = name;
    if ((nul = memchr(data, 0, len))) {
        size_t line = 1;
        const char *c;
        for (c = data; c < nul; c++)
            line += *c == '\n';
        return BAD("%s:%zu: a NUL byte: not a text report", name, line);
    }
    if (!(text = malloc(len + 1)))
        return NOMEM();
    memcpy(text, data, len);
    text[len] = 0;
    rc = parse(&r, text, err);
    free(text);
    if (rc == AA_OK && !(e = aa_experiment_new()))
        rc = NOMEM();
    if (rc == AA_OK) {
        qsort(r.ranks, r.nranks, sizeof *r.ranks, rank_cmp);
        e->id = aa_strdup("mpip-import");
        e->program = program_name(r.command, name);
        e->nprocs = (int)r.ranks[r.nranks - 1].rank + 1;
        if (!e->id || !e->program || aa_experiment_add_metric(e, "visits", "count") < 0 ||
            aa_experiment_add_metric(e, "wall", "s") < 0 ||
            aa_experiment_add_metric(e, "mpi_wall", "s") < 0 ||
            (r.have_sent && aa_experiment_add_metric(e, "mpi_bytes_sent", "bytes") < 0) ||
            aa_experiment_set_attr(e, "imported_from", "mpip") ||
            (r.command && aa_experiment_set_attr(e, "command", r.command)) ||
            (r.version && aa_experiment_set_attr(e, "mpip_version", r.version)))
            rc = NOMEM();
    }
    if (rc == AA_OK)
        rc = add_regions(&r, e, err);
    if (rc == AA_OK)
        rc = build(&r, e, err);
    if (rc == AA_OK)
        rc = aa_experiment_check(e, err);
    report_free(&r);
    if (rc) {
        aa_experiment_free(e);
        return rc;
    }
    *out = e;
    return AA_OK;
}

int aa_import_mpip(const char *path, aa_experiment **out, aa_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc;
    *out = NULL;
    if ((rc = aa_read_file(path, &text, &len, err)))
        return rc;
    rc = aa_import_mpip_text(path, text, len, out, err);
    free(text);
    return rc;
}
