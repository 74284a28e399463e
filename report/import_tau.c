/*
 * report/import_tau.c -- reads TAU profiles (the `profile.N.C.T` files TAU
 * writes, one per node N, context C and thread T; docs/report.md names the
 * layout followed) into an experiment, so runs measured with TAU can be
 * stored in the Program Space and compared with AutoAnalyzer's own.
 *
 * Each file becomes thread T of the process of rank N; each function a
 * region (ids numbered in name order over all files; file and line taken
 * from TAU's "[{file} {line,col}-{line,col}]" suffix when present); the
 * calling-context tree comes from the callpath entries ("a => b => c")
 * when the profile has them, else every function is a child of the whole
 * program.  Metrics: visits (calls) and wall (inclusive time, TAU's
 * microseconds as seconds).  Aggregates and user events are skipped.
 */
#include "report/report_int.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tau_entry {
    char *name;    /* the whole TAU name, callpath included */
    double calls, incl_us;
} tau_entry;

typedef struct tau_file {
    int node, context, thread;
    char *path;
    size_t n;
    tau_entry *e;
} tau_file;

static void tau_file_free(tau_file *f)
{
    size_t i;
    for (i = 0; i < f->n; i++)
        free(f->e[i].name);
    free(f->e);
    free(f->path);
}

/* "profile.N.C.T" */
static int tau_name(const char *s, int *n, int *c, int *t)
{
    char tail;
    return sscanf(s, "profile.%d.%d.%d%c", n, c, t, &tail) == 3 && *n >= 0 && *c >= 0 && *t >= 0;
}

/* Next line of text (without its end) or NULL; *lineno counts.  Shared
 * with the mpiP reader (report_int.h). */
char *rp_next_line(char **p, size_t *lineno)
{
    char *s = *p, *e;
    if (!s || !*s)
        return NULL;
    e = strchr(s, '\n');
    if (e) {
        *e = 0;
        *p = e + 1;
    } else {
        *p = s + strlen(s);
    }
    if (e && e > s && e[-1] == '\r')
        e[-1] = 0;
    (*lineno)++;
    return s;
}

static int parse_file(tau_file *f, char *text, aa_err *err)
{
    size_t ln = 0, i, count;
    char *p = text, *l, word[64];
    int used;
    if (!(l = rp_next_line(&p, &ln)) || sscanf(l, "%zu %63s%n", &count, word, &used) != 2 ||
        strncmp(word, "templated_functions", 19))
        return aa_err_set(err, AA_EINPUT, "%s:%zu: not a TAU profile: expected "
                                          "'<count> templated_functions'", f->path, ln);
    if (count > 10000000)
        return aa_err_set(err, AA_EINPUT, "%s:%zu: %zu functions is too many", f->path, ln, count);
    if (!(l = rp_next_line(&p, &ln)) || strncmp(l, "# Name Calls Subrs Excl Incl", 28))
        return aa_err_set(err, AA_EINPUT, "%s:%zu: expected the header "
                                          "'# Name Calls Subrs Excl Incl ...'", f->path, ln);
    f->e = calloc(count ? count : 1, sizeof *f->e);
    if (!f->e)
        return aa_err_set(err, AA_EENV, "out of memory");
    for (i = 0; i < count; i++) {
        char *q;
        double subrs, excl;
        if (!(l = rp_next_line(&p, &ln)))
            return aa_err_set(err, AA_EINPUT, "%s:%zu: %zu function lines promised, %zu found",
                              f->path, ln, count, i);
        if (l[0] != '"' || !(q = strchr(l + 1, '"')) || q == l + 1)
            return aa_err_set(err, AA_EINPUT, "%s:%zu: a function line starts with its "
                                              "\"quoted name\"", f->path, ln);
        *q = 0;
        if (sscanf(q + 1, "%lf %lf %lf %lf", &f->e[i].calls, &subrs, &excl,
                   &f->e[i].incl_us) != 4 ||
            !isfinite(f->e[i].calls) || !isfinite(f->e[i].incl_us) || f->e[i].calls < 0 ||
            f->e[i].incl_us < 0 || !isfinite(excl) || excl < 0)
            return aa_err_set(err, AA_EINPUT, "%s:%zu: expected Calls Subrs Excl Incl (numbers "
                                              ">= 0) after the name", f->path, ln);
        if (!(f->e[i].name = aa_strdup(l + 1)))
            return aa_err_set(err, AA_EENV, "out of memory");
        f->n++;
    }
    /* "<m> aggregates" and user events follow: not used */
    return AA_OK;
}

/* ---- names, regions -------------------------------------------------------- */

/* The last function of a callpath name, trimmed. */
static void leaf_name(const char *name, char *out, size_t cap)
{
    const char *s = name, *a;
    size_t n;
    while ((a = strstr(s, "=>")))
        s = a + 2;
    while (isspace((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

typedef struct name_id {
    char *name;
    uint32_t id;
} name_id;

static int nid_cmp(const void *a, const void *b)
{
    return strcmp(((const name_id *)a)->name, ((const name_id *)b)->name);
}

static uint32_t find_id(const name_id *v, size_t n, const char *name)
{
    name_id k, *hit;
    k.name = (char *)name;
    hit = bsearch(&k, v, n, sizeof *v, nid_cmp);
    return hit ? hit->id : 0;
}

/* "int main(int, char **) C [{main.c} {10,1}-{20,1}]": file and line */
static void region_from_name(aa_region *r, const char *name, char *buf, size_t cap,
                             char *shortname, size_t scap)
{
    const char *b = strstr(name, " [{");
    size_t n = b ? (size_t)(b - name) : strlen(name);
    if (n >= scap)
        n = scap - 1;
    memcpy(shortname, name, n); /* "int main(int, char **)": no suffix, no language tag */
    shortname[n] = 0;
    if (n > 2 && !strcmp(shortname + n - 2, " C"))
        shortname[n - 2] = 0;
    r->kind = strncmp(name, "MPI_", 4) == 0 ? AA_KIND_CALL : AA_KIND_FUNCTION;
    r->name = shortname;
    r->function = shortname;
    r->file = (char *)"";
    if (b) {
        const char *fe = strchr(b + 3, '}');
        int line = 0, col = 0, eline = 0;
        if (fe && (size_t)(fe - (b + 3)) < cap) {
            memcpy(buf, b + 3, (size_t)(fe - (b + 3)));
            buf[fe - (b + 3)] = 0;
            r->file = buf;
            if (sscanf(fe + 1, " {%d,%d}-{%d", &line, &col, &eline) >= 1) {
                r->line = line;
                r->col = col;
                r->end_line = eline;
            }
        }
    }
}

static int add_regions(aa_experiment *e, tau_file *fs, size_t nf, name_id **out, size_t *nout,
                       aa_err *err)
{
    size_t i, j, n = 0, cap = 0, m = 0;
    name_id *v = NULL;
    char leaf[4096], file[4096], shortname[4096];
    aa_region root;
    for (i = 0; i < nf; i++)
        for (j = 0; j < fs[i].n; j++) {
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                name_id *nv = realloc(v, nc * sizeof *nv);
                if (!nv)
                    goto nomem_collect;
                v = nv;
                cap = nc;
            }
            leaf_name(fs[i].e[j].name, leaf, sizeof leaf);
            if (!(v[n].name = aa_strdup(leaf)))
                goto nomem_collect;
            n++;
        }
    if (n)
        qsort(v, n, sizeof *v, nid_cmp);
    for (i = 0; i < n; i++) { /* unique */
        if (m && !strcmp(v[m - 1].name, v[i].name)) {
            free(v[i].name);
            continue;
        }
        v[m] = v[i];
        v[m].id = (uint32_t)m + 1;
        m++;
    }
    *out = v;
    *nout = m;
    memset(&root, 0, sizeof root);
    root.kind = AA_KIND_PROGRAM;
    root.name = (char *)"program";
    root.function = root.file = (char *)"";
    if (aa_experiment_add_region(e, &root))
        return aa_err_set(err, AA_EENV, "out of memory");
    for (i = 0; i < m; i++) {
        aa_region r;
        memset(&r, 0, sizeof r);
        region_from_name(&r, v[i].name, file, sizeof file, shortname, sizeof shortname);
        r.id = v[i].id;
        if (aa_experiment_add_region(e, &r))
            return aa_err_set(err, AA_EENV, "out of memory");
    }
    return AA_OK;
nomem_collect:
    for (i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    return aa_err_set(err, AA_EENV, "out of memory");
}

/* ---- tree ------------------------------------------------------------------ */

typedef struct path_node {
    char *key;   /* "id/id/id" */
    long node;   /* index in the thread */
} path_node;

static int depth_of(const char *name)
{
    int d = 1;
    const char *s = name;
    while ((s = strstr(s, "=>"))) {
        d++;
        s += 2;
    }
    return d;
}

typedef struct order {
    size_t i;
    int depth;
} order;

static int order_cmp(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth - y->depth;
    return x->i < y->i ? -1 : (x->i > y->i);
}

/* Node of the path of ids; created under its parent path (which exists:
 * entries go by depth). */
static long node_for(aa_experiment *e, aa_thread *t, path_node **pn, size_t *npn,
                     const char *key, const char *parent_key, uint32_t id)
{
    size_t i;
    long par = 0, nd;
    path_node *nv;
    for (i = 0; i < *npn; i++)
        if (!strcmp((*pn)[i].key, key))
            return (*pn)[i].node;
    for (i = 0; parent_key && i < *npn; i++)
        if (!strcmp((*pn)[i].key, parent_key))
            par = (*pn)[i].node;
    if (parent_key && par == 0 && *parent_key)
        return -2; /* a callpath whose caller path is missing */
    nd = aa_thread_add_node(e, t, id, (int32_t)par);
    if (nd < 0)
        return -1;
    nv = realloc(*pn, (*npn + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *pn = nv;
    nv[*npn].key = aa_strdup(key);
    nv[*npn].node = nd;
    if (!nv[*npn].key)
        return -1;
    (*npn)++;
    return nd;
}

static int build_thread(aa_experiment *e, aa_thread *t, const tau_file *f, const name_id *ids,
                        size_t nids, aa_err *err)
{
    size_t i, npn = 0;
    path_node *pn = NULL;
    order *ord = malloc((f->n + 1) * sizeof *ord);
    int callpaths = 0, m_visits = aa_experiment_metric_index(e, "visits");
    int m_wall = aa_experiment_metric_index(e, "wall"), rc = AA_OK;
    double top = 0, topmax = 0;
    long root;
    char leaf[4096];
    if (!ord)
        return aa_err_set(err, AA_EENV, "out of memory");
    for (i = 0; i < f->n; i++) {
        ord[i].i = i;
        ord[i].depth = depth_of(f->e[i].name);
        callpaths |= ord[i].depth > 1;
    }
    qsort(ord, f->n, sizeof *ord, order_cmp);
    root = aa_thread_add_node(e, t, 0, -1);
    if (root < 0) {
        free(ord);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (i = 0; i < f->n && rc == AA_OK; i++) {
        const tau_entry *x = &f->e[ord[i].i];
        aa_buf key, pkey;
        const char *s = x->name, *a;
        long nd;
        /* with callpaths, a flat entry of a function that is called is the
         * sum over its callers: the callpath entries hold the tree */
        if (callpaths && ord[i].depth == 1) {
            size_t k;
            int called = 0;
            for (k = 0; k < f->n && !called; k++) {
                const char *arrow = strstr(f->e[k].name, "=>");
                if (arrow) {
                    leaf_name(f->e[k].name, leaf, sizeof leaf);
                    called = !strcmp(leaf, x->name);
                }
            }
            if (called)
                continue;
        }
        aa_buf_init(&key);
        aa_buf_init(&pkey);
        while (1) { /* the path of ids, and its parent's */
            char part[4096];
            size_t len;
            a = strstr(s, "=>");
            len = a ? (size_t)(a - s) : strlen(s);
            if (len >= sizeof part)
                len = sizeof part - 1;
            memcpy(part, s, len);
            part[len] = 0;
            leaf_name(part, leaf, sizeof leaf);
            if (a) {
                aa_buf_printf(&pkey, "%s%u", pkey.len ? "/" : "", find_id(ids, nids, leaf));
            }
            aa_buf_printf(&key, "%s%u", key.len ? "/" : "", find_id(ids, nids, leaf));
            if (!a)
                break;
            s = a + 2;
        }
        leaf_name(x->name, leaf, sizeof leaf);
        nd = node_for(e, t, &pn, &npn, key.data, pkey.len ? pkey.data : "", find_id(ids, nids, leaf));
        if (nd == -2)
            rc = aa_err_set(err, AA_EINPUT, "%s: callpath \"%s\" has no entry for its caller path",
                            f->path, x->name);
        else if (nd < 0)
            rc = aa_err_set(err, AA_EENV, "out of memory");
        else {
            aa_node_values(e, t, (size_t)nd)[m_visits] = x->calls;
            aa_node_values(e, t, (size_t)nd)[m_wall] = x->incl_us * 1e-6;
            if (ord[i].depth == 1) {
                top += x->incl_us * 1e-6;
                if (x->incl_us * 1e-6 > topmax)
                    topmax = x->incl_us * 1e-6;
            }
        }
        aa_buf_free(&key);
        aa_buf_free(&pkey);
    }
    /* the whole program: the top-level functions (they overlap in a flat
     * profile, where main includes the rest) */
    aa_node_values(e, t, (size_t)root)[m_visits] = 1;
    aa_node_values(e, t, (size_t)root)[m_wall] = callpaths ? top : topmax;
    for (i = 0; i < npn; i++)
        free(pn[i].key);
    free(pn);
    free(ord);
    return rc;
}

static int file_cmp(const void *a, const void *b)
{
    const tau_file *x = a, *y = b;
    if (x->node != y->node)
        return x->node - y->node;
    if (x->context != y->context)
        return x->context - y->context;
    return x->thread - y->thread;
}

int aa_import_tau(const char *dir, aa_experiment **out, aa_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    tau_file *fs = NULL;
    size_t nf = 0, i, nids = 0;
    name_id *ids = NULL;
    aa_experiment *e = NULL;
    int rc = AA_OK, maxrank = -1;
    *out = NULL;
    if (!d)
        return aa_err_set(err, AA_EENV, "%s: cannot open the directory", dir);
    while ((de = readdir(d))) {
        tau_file *nv;
        int n, c, t;
        if (!tau_name(de->d_name, &n, &c, &t))
            continue;
        nv = realloc(fs, (nf + 1) * sizeof *nv);
        if (!nv) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            break;
        }
        fs = nv;
        memset(&fs[nf], 0, sizeof *fs);
        fs[nf].node = n;
        fs[nf].context = c;
        fs[nf].thread = t;
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/%s", dir, de->d_name);
        fs[nf].path = aa_buf_detach(&b);
        nf++;
    }
    closedir(d);
    if (rc == AA_OK && !nf)
        rc = aa_err_set(err, AA_EINPUT, "%s: no TAU profile (profile.N.C.T) in the directory", dir);
    if (rc == AA_OK)
        qsort(fs, nf, sizeof *fs, file_cmp);
    for (i = 0; i < nf && rc == AA_OK; i++) {
        char *text = NULL;
        size_t len;
        if (fs[i].context != 0 && rc == AA_OK)
            rc = aa_err_set(err, AA_EINPUT, "%s: context %d: only context 0 is read", fs[i].path,
                            fs[i].context);
        if (rc == AA_OK && (rc = aa_read_file(fs[i].path, &text, &len, err)) == AA_OK)
            rc = parse_file(&fs[i], text, err);
        free(text);
        if (fs[i].node > maxrank)
            maxrank = fs[i].node;
    }
    if (rc == AA_OK && !(e = aa_experiment_new()))
        rc = aa_err_set(err, AA_EENV, "out of memory");
    if (rc == AA_OK) {
        const char *slash = strrchr(dir, '/');
        e->id = aa_strdup("tau-import");
        e->program = aa_strdup(slash && slash[1] ? slash + 1 : dir);
        e->nprocs = maxrank + 1;
        if (!e->id || !e->program || aa_experiment_add_metric(e, "visits", "count") < 0 ||
            aa_experiment_add_metric(e, "wall", "s") < 0 ||
            aa_experiment_set_attr(e, "imported_from", "tau"))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    }
    if (rc == AA_OK)
        rc = add_regions(e, fs, nf, &ids, &nids, err);
    for (i = 0; i < nf && rc == AA_OK; i++) {
        aa_process *p = aa_experiment_process(e, fs[i].node);
        aa_thread *t;
        if (!p)
            p = aa_experiment_add_process(e, fs[i].node);
        t = p ? aa_process_add_thread(p, fs[i].thread) : NULL;
        if (!t)
            rc = aa_err_set(err, AA_EENV, "out of memory");
        else
            rc = build_thread(e, t, &fs[i], ids, nids, err);
    }
    if (rc == AA_OK)
        rc = aa_experiment_check(e, err);
    for (i = 0; i < nids; i++)
        free(ids[i].name);
    free(ids);
    for (i = 0; i < nf; i++)
        tau_file_free(&fs[i]);
    free(fs);
    if (rc) {
        aa_experiment_free(e);
        return rc;
    }
    *out = e;
    return AA_OK;
}
