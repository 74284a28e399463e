/*
 * profile/xml_read.c -- reads and validates experiment / per-rank profile
 * files and region maps (docs/profile-format.md) with libxml2's streaming
 * xmlTextReader, so files of any size are read in one pass without
 * building a tree; gzip-compressed files are read transparently.
 *
 * Every problem -- not XML, truncated, wrong root, unsupported version,
 * unknown or misplaced element, missing or unexpected attribute, bad
 * number, NaN/infinite/negative value, wrong number of values, unknown
 * metric or region kind, duplicate rank / region / thread / metric, a node
 * whose region is unknown or whose parent does not precede it -- becomes
 * AA_EINPUT with "FILE:LINE: what is wrong".  libxml2's own messages are
 * captured (never printed) and turned into the same form.
 */
#include "profile/aa_profile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#define AA_PROFILE_NS "urn:autoanalyzer:profile:1"

enum elem {
    E_NONE,
    E_EXPERIMENT,
    E_REGIONMAP,
    E_ENVIRONMENT,
    E_METRICS,
    E_REGIONS,
    E_PROCESS,
    E_THREAD,
    E_NODE,
    E_ATTR,
    E_METRIC,
    E_REGION,
};

static const char *const elem_names[] = {"",        "experiment", "regionmap", "environment",
                                         "metrics", "regions",    "process",   "thread",
                                         "node",    "attr",       "metric",    "region"};

#define MAX_DEPTH 8
/* sanity bound on nprocs: collect allocates per expected rank */
#define MAX_NPROCS (1L << 24)
#define MAX_ATTRS 12

typedef struct reader {
    xmlTextReaderPtr r;
    const char *name; /* file name used in messages */
    const char *path; /* the file read, when it is one (not memory) */
    aa_err *err;
    int failed;
    /* first libxml2 error */
    int xml_failed;
    int xml_line;
    char xml_msg[512];
    /* what we are building */
    int want_map;
    aa_experiment *e;
    aa_regionmap *m;
    /* element stack by depth */
    enum elem stack[MAX_DEPTH];
    int saw_doctype;
    /* ids of the map so far: open addressing, key id + 1 (0 = empty) */
    uint64_t *map_ids;
    size_t map_cap, map_n;
    /* regions of an experiment naming a parent, checked at </regions> */
    struct plink {
        uint32_t id, parent;
        long line;
    } *plinks;
    size_t nplinks, cap_plinks;
    int sections; /* highest experiment section seen: 1 env, 2 metrics, 3 regions, 4 process */
    int seen_metrics, seen_regions;
    aa_process *proc;
    aa_thread *thread;
    /* <attr> being read */
    int attr_owner; /* E_ENVIRONMENT or E_PROCESS */
    char *attr_name;
    aa_buf text;
    long line; /* line of the current element */
} reader;

static int fail_at(reader *s, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(reader *s, long line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (s->failed)
        return AA_EINPUT;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->failed = 1;
    aa_err_set(s->err, AA_EINPUT, "%s:%ld: %s", s->name, line, msg);
    return AA_EINPUT;
}

#define FAIL(s, ...) fail_at((s), (s)->line, __VA_ARGS__)

static void structured_error(void *arg, xmlErrorPtr e)
{
    reader *s = arg;
    size_t n;
    if (!e || e->level < XML_ERR_ERROR || s->xml_failed)
        return;
    s->xml_failed = 1;
    s->xml_line = e->line;
    snprintf(s->xml_msg, sizeof s->xml_msg, "%s", e->message ? e->message : "parse error");
    n = strlen(s->xml_msg);
    while (n && (s->xml_msg[n - 1] == '\n' || s->xml_msg[n - 1] == ' '))
        s->xml_msg[--n] = '\0';
}

static void silent_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* Records id in the map's id set: 1 when it was there already, 0 when
 * new, -1 on no memory.  Constant time, so a map of n regions reads in
 * O(n) whatever the order of its ids. */
static int map_id_seen(reader *s, uint32_t id)
{
    uint64_t key = (uint64_t)id + 1;
    size_t i;
    if (2 * (s->map_n + 1) > s->map_cap) {
        size_t nc = s->map_cap ? 2 * s->map_cap : 1024, j;
        uint64_t *nt = calloc(nc, sizeof *nt);
        if (!nt)
            return -1;
        for (j = 0; j < s->map_cap; j++)
            if (s->map_ids[j]) {
                size_t k = (size_t)((s->map_ids[j] * 0x9E3779B97F4A7C15ull) >> 20) & (nc - 1);
                while (nt[k])
                    k = (k + 1) & (nc - 1);
                nt[k] = s->map_ids[j];
            }
        free(s->map_ids);
        s->map_ids = nt;
        s->map_cap = nc;
    }
    for (i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->map_cap - 1); s->map_ids[i];
         i = (i + 1) & (s->map_cap - 1))
        if (s->map_ids[i] == key)
            return 1;
    s->map_ids[i] = key;
    s->map_n++;
    return 0;
}

static int plink_add(reader *s, uint32_t id, uint32_t parent)
{
    if (s->nplinks == s->cap_plinks) {
        size_t nc = s->cap_plinks ? 2 * s->cap_plinks : 64;
        struct plink *n = realloc(s->plinks, nc * sizeof *n);
        if (!n)
            return -1;
        s->plinks = n;
        s->cap_plinks = nc;
    }
    s->plinks[s->nplinks].id = id;
    s->plinks[s->nplinks].parent = parent;
    s->plinks[s->nplinks].line = s->line;
    s->nplinks++;
    return 0;
}

/* At </regions>: every `parent` names a region of the experiment and no
 * chain of parents comes back to where it started. */
static int check_region_parents(reader *s)
{
    aa_experiment *e = s->e;
    uint32_t at = 0;
    size_t i;
    for (i = 0; i < s->nplinks; i++)
        if (!aa_experiment_region(e, s->plinks[i].parent))
            return fail_at(s, s->plinks[i].line, "region %u: parent %u is not a region here",
                           s->plinks[i].id, s->plinks[i].parent);
    switch (aa_experiment_parent_cycle(e, &at)) {
    case 0:
        return AA_OK;
    case 1:
        for (i = 0; i < s->nplinks; i++)
            if (s->plinks[i].id == at)
                return fail_at(s, s->plinks[i].line, "region %u: its parents form a cycle", at);
        return FAIL(s, "region %u: its parents form a cycle", at);
    default:
        return FAIL(s, "out of memory");
    }
}

/* ---- attribute access ------------------------------------------------------ */
typedef struct attrset {
    const char *names[MAX_ATTRS];
    const char *values[MAX_ATTRS];
    xmlChar *owned[MAX_ATTRS];
    int n;
} attrset;

/* Collects the attributes of the current element into a (allowed names
 * listed in a->names), rejecting unexpected ones. */
static int get_attrs(reader *s, xmlNodePtr node, attrset *a, enum elem el)
{
    xmlAttrPtr at;
    int i;
    for (i = 0; i < a->n; i++) {
        a->values[i] = NULL;
        a->owned[i] = NULL;
    }
    for (at = node->properties; at; at = at->next) {
        const char *nm = (const char *)at->name;
        const char *val;
        for (i = 0; i < a->n; i++)
            if (strcmp(a->names[i], nm) == 0)
                break;
        if (i == a->n || at->ns)
            return FAIL(s, "unexpected attribute '%s%s%s' on <%s>",
                        at->ns && at->ns->prefix ? (const char *)at->ns->prefix : "",
                        at->ns && at->ns->prefix ? ":" : "", nm, elem_names[el]);
        if (a->values[i])
            return FAIL(s, "duplicate attribute '%s' on <%s>", nm, elem_names[el]);
        if (!at->children) {
            val = "";
        } else if (!at->children->next && at->children->type == XML_TEXT_NODE) {
            val = (const char *)at->children->content;
            if (!val)
                val = "";
        } else {
            a->owned[i] = xmlNodeListGetString(node->doc, at->children, 1);
            if (!a->owned[i])
                return FAIL(s, "out of memory");
            val = (const char *)a->owned[i];
        }
        a->values[i] = val;
    }
    return AA_OK;
}

static void free_attrs(attrset *a)
{
    int i;
    for (i = 0; i < a->n; i++) {
        xmlFree(a->owned[i]);
        a->owned[i] = NULL;
    }
}

static int need(reader *s, attrset *a, int i, enum elem el)
{
    if (!a->values[i])
        return FAIL(s, "missing attribute '%s' on <%s>", a->names[i], elem_names[el]);
    return AA_OK;
}

static int parse_int_range(reader *s, const char *attr, const char *v, long lo, long hi, long *out)
{
    long x;
    if (aa_parse_long(v, &x) || x < lo || x > hi) {
        if (aa_parse_long(v, &x))
            return FAIL(s, "attribute '%s': '%s' is not an integer", attr, v);
        return FAIL(s, "attribute '%s': %s is out of range (%ld..%ld)", attr, v, lo, hi);
    }
    *out = x;
    return AA_OK;
}

/* ---- elements ------------------------------------------------------------------ */
static int start_root(reader *s, xmlNodePtr node, enum elem el)
{
    attrset a = {.names = {"version", "id", "program", "nprocs", "source"}};
    long v;
    int rc;
    a.n = el == E_EXPERIMENT ? 4 : 5;
    if (el == E_REGIONMAP) {
        a.names[1] = "source";
        a.n = 2;
    }
    if ((rc = get_attrs(s, node, &a, el)) || (rc = need(s, &a, 0, el)))
        goto out;
    if (aa_parse_long(a.values[0], &v) || v != AA_PROFILE_FORMAT_VERSION) {
        rc = FAIL(s, "unsupported format version '%s' (this build reads version %d)",
                  a.values[0], AA_PROFILE_FORMAT_VERSION);
        goto out;
    }
    if (el == E_REGIONMAP) {
        if ((rc = need(s, &a, 1, el)))
            goto out;
        s->m = aa_regionmap_new(a.values[1]);
        if (!s->m)
            rc = FAIL(s, "out of memory");
        goto out;
    }
    if ((rc = need(s, &a, 1, el)) || (rc = need(s, &a, 2, el)) || (rc = need(s, &a, 3, el)))
        goto out;
    if ((rc = parse_int_range(s, "nprocs", a.values[3], 1, MAX_NPROCS, &v)))
        goto out;
    s->e = aa_experiment_new();
    if (!s->e || !(s->e->id = strdup(a.values[1])) || !(s->e->program = strdup(a.values[2]))) {
        rc = FAIL(s, "out of memory");
        goto out;
    }
    s->e->nprocs = (int)v;
out:
    free_attrs(&a);
    return rc;
}

static int start_metric(reader *s, xmlNodePtr node)
{
    attrset a = {.names = {"name", "unit"}, .n = 2};
    const aa_metric_info *mi;
    int rc;
    if ((rc = get_attrs(s, node, &a, E_METRIC)) || (rc = need(s, &a, 0, E_METRIC)) ||
        (rc = need(s, &a, 1, E_METRIC)))
        goto out;
    if (!aa_metric_name_valid(a.values[0])) {
        rc = FAIL(s, "unknown metric '%s'", a.values[0]);
        goto out;
    }
    mi = aa_metric_lookup(a.values[0]);
    if (mi && strcmp(mi->unit, a.values[1]) != 0) {
        rc = FAIL(s, "metric '%s' has unit '%s', expected '%s'", a.values[0], a.values[1],
                  mi->unit);
        goto out;
    }
    if (aa_experiment_metric_index(s->e, a.values[0]) >= 0) {
        rc = FAIL(s, "duplicate metric '%s'", a.values[0]);
        goto out;
    }
    if (aa_experiment_add_metric(s->e, a.values[0], a.values[1]) < 0)
        rc = FAIL(s, "out of memory");
out:
    free_attrs(&a);
    return rc;
}

static int start_region(reader *s, xmlNodePtr node)
{
    attrset a = {.names = {"id", "kind", "name", "function", "file", "line", "col", "end-line",
                           "end-col", "parent", "instrumented", "reason"},
                 .n = 12};
    aa_region r;
    uint32_t id, parent = 0;
    long pos[4] = {0, 0, 0, 0};
    int rc, i, skipped = 0;
    if ((rc = get_attrs(s, node, &a, E_REGION)) || (rc = need(s, &a, 0, E_REGION)) ||
        (rc = need(s, &a, 1, E_REGION)) || (rc = need(s, &a, 2, E_REGION)))
        goto out;
    if (aa_parse_u32(a.values[0], &id)) {
        rc = FAIL(s, "attribute 'id': '%s' is not a region id (0..4294967295)", a.values[0]);
        goto out;
    }
    memset(&r, 0, sizeof r);
    if (aa_region_kind_parse(a.values[1], &r.kind)) {
        rc = FAIL(s, "unknown region kind '%s' (program, function, loop, call, user)",
                  a.values[1]);
        goto out;
    }
    for (i = 0; i < 4; i++)
        if (a.values[5 + i] &&
            (rc = parse_int_range(s, a.names[5 + i], a.values[5 + i], 0, INT_MAX, &pos[i])))
            goto out;
    if (a.values[9] && aa_parse_u32(a.values[9], &parent)) {
        rc = FAIL(s, "attribute 'parent': '%s' is not a region id", a.values[9]);
        goto out;
    }
    if (a.values[10]) {
        if (!strcmp(a.values[10], "no"))
            skipped = 1;
        else if (strcmp(a.values[10], "yes")) {
            rc = FAIL(s, "attribute 'instrumented': '%s' is neither yes nor no", a.values[10]);
            goto out;
        }
    }
    r.id = id;
    r.name = (char *)a.values[2];
    r.function = (char *)(a.values[3] ? a.values[3] : "");
    r.file = (char *)(a.values[4] ? a.values[4] : "");
    r.line = (int)pos[0];
    r.col = (int)pos[1];
    r.end_line = (int)pos[2];
    r.end_col = (int)pos[3];
    r.parent = parent;
    if (skipped) {
        /* a region the instrumenter left out on purpose: listed in maps,
         * never a region of an experiment */
        if (s->m && aa_regionmap_add_skipped(s->m, &r, a.values[11] ? a.values[11] : ""))
            rc = FAIL(s, "out of memory");
        goto out;
    }
    if (s->m) {
        int seen = map_id_seen(s, id);
        if (seen < 0) {
            rc = FAIL(s, "out of memory");
            goto out;
        }
        if (seen) {
            rc = FAIL(s, "duplicate region id %u", id);
            goto out;
        }
        if (aa_regionmap_append_region(s->m, &r))
            rc = FAIL(s, "out of memory");
    } else {
        if (aa_experiment_region(s->e, id)) {
            rc = FAIL(s, "duplicate region id %u", id);
            goto out;
        }
        if (parent && plink_add(s, id, parent)) {
            rc = FAIL(s, "out of memory");
            goto out;
        }
        if (aa_experiment_add_region(s->e, &r))
            rc = FAIL(s, "out of memory");
    }
out:
    free_attrs(&a);
    return rc;
}

static int start_process(reader *s, xmlNodePtr node)
{
    attrset a = {.names = {"rank", "host", "pid", "unavailable"}, .n = 4};
    long rank, pid = 0;
    aa_process *p;
    int rc;
    if ((rc = get_attrs(s, node, &a, E_PROCESS)) || (rc = need(s, &a, 0, E_PROCESS)))
        goto out;
    if ((rc = parse_int_range(s, "rank", a.values[0], 0, INT_MAX, &rank)))
        goto out;
    if (rank >= s->e->nprocs) {
        rc = FAIL(s, "rank %ld is not below nprocs %d", rank, s->e->nprocs);
        goto out;
    }
    if (a.values[2] && (rc = parse_int_range(s, "pid", a.values[2], 0, LONG_MAX, &pid)))
        goto out;
    if (aa_experiment_process(s->e, (int)rank)) {
        rc = FAIL(s, "duplicate rank %ld", rank);
        goto out;
    }
    p = aa_experiment_add_process(s->e, (int)rank);
    if (!p) {
        rc = FAIL(s, "out of memory");
        goto out;
    }
    p->pid = pid;
    if (a.values[1]) {
        char *h = strdup(a.values[1]);
        if (!h) {
            rc = FAIL(s, "out of memory");
            goto out;
        }
        free(p->host);
        p->host = h;
    }
    if (a.values[3]) {
        const char *q = a.values[3];
        char tok[256];
        while (*q) {
            size_t n = 0;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                q++;
            if (!*q)
                break;
            while (q[n] && q[n] != ' ' && q[n] != '\t' && q[n] != '\n' && q[n] != '\r')
                n++;
            if (n >= sizeof tok) {
                rc = FAIL(s, "unknown metric '%.40s...' in 'unavailable'", q);
                goto out;
            }
            memcpy(tok, q, n);
            tok[n] = '\0';
            q += n;
            if (!aa_metric_name_valid(tok)) {
                rc = FAIL(s, "unknown metric '%s' in 'unavailable'", tok);
                goto out;
            }
            if (aa_process_metric_unavailable(p, tok)) {
                rc = FAIL(s, "metric '%s' listed twice in 'unavailable'", tok);
                goto out;
            }
            if (aa_process_add_unavailable(p, tok)) {
                rc = FAIL(s, "out of memory");
                goto out;
            }
        }
    }
    s->proc = p;
out:
    free_attrs(&a);
    return rc;
}

static int start_thread(reader *s, xmlNodePtr node)
{
    attrset a = {.names = {"id"}, .n = 1};
    long id;
    size_t i;
    int rc;
    if ((rc = get_attrs(s, node, &a, E_THREAD)) || (rc = need(s, &a, 0, E_THREAD)))
        goto out;
    if ((rc = parse_int_range(s, "id", a.values[0], 0, INT_MAX, &id)))
        goto out;
    for (i = 0; i < s->proc->nthreads; i++)
        if (s->proc->threads[i].id == id) {
            rc = FAIL(s, "duplicate thread id %ld in rank %d", id, s->proc->rank);
            goto out;
        }
    s->thread = aa_process_add_thread(s->proc, (int)id);
    if (!s->thread)
        rc = FAIL(s, "out of memory");
out:
    free_attrs(&a);
    return rc;
}

/* Parses the "v" list into vals (nmetrics entries). */
static int parse_values(reader *s, const char *q, double *vals, size_t nm)
{
    size_t k = 0, seen = 0;
    for (;;) {
        const char *t;
        size_t n;
        /* values separated by single spaces, none before the first or
         * after the last (docs/profile-format.md) */
        if (seen && !*q)
            break;
        if (seen && *q == ' ')
            q++;
        if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || (!*q && seen))
            return FAIL(s, "attribute 'v': %s (values are separated by single spaces)",
                        !seen ? "space before the first value"
                        : !*q ? "space after the last value"
                              : "more than one space between values");
        if (!*q)
            break;
        seen++;
        t = q;
        while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
            q++;
        n = (size_t)(q - t);
        if (k >= nm) {
            k++;
            continue; /* count them all for the message */
        }
        if (n == 1 && t[0] == '-') {
            vals[k++] = NAN;
            continue;
        }
        {
            size_t i;
            int digits = 0, simple = 1;
            unsigned long long iv = 0;
            for (i = 0; i < n; i++) {
                char c = t[i];
                if (c >= '0' && c <= '9') {
                    digits++;
                    if (iv < 100000000000000ULL)
                        iv = iv * 10 + (unsigned)(c - '0');
                    else
                        simple = 0;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    simple = 0;
                } else {
                    return FAIL(s, "value %zu ('%.*s', metric '%s') is not a number", k + 1,
                                (int)(n > 40 ? 40 : n), t, s->e->metrics[k].name);
                }
            }
            if (!digits || t[0] == '+')
                return FAIL(s, "value %zu ('%.*s', metric '%s') is not a number", k + 1,
                            (int)(n > 40 ? 40 : n), t, s->e->metrics[k].name);
            if (simple) {
                vals[k++] = (double)iv;
                continue;
            }
            {
                char buf[64], *end;
                double d;
                if (n >= sizeof buf)
                    return FAIL(s, "value %zu ('%.40s...', metric '%s') is not a number", k + 1,
                                t, s->e->metrics[k].name);
                memcpy(buf, t, n);
                buf[n] = '\0';
                errno = 0;
                d = strtod(buf, &end);
                if (end != buf + n)
                    return FAIL(s, "value %zu ('%s', metric '%s') is not a number", k + 1, buf,
                                s->e->metrics[k].name);
                if (!isfinite(d))
                    return FAIL(s, "value %zu ('%s', metric '%s') is not finite", k + 1, buf,
                                s->e->metrics[k].name);
                if (d < 0 || (d == 0 && signbit(d)))
                    return FAIL(s, "value %zu ('%s', metric '%s') is negative", k + 1, buf,
                                s->e->metrics[k].name);
                vals[k++] = d;
            }
        }
    }
    if (k != nm)
        return FAIL(s, "node has %zu values, expected %zu (one per metric)", k, nm);
    return AA_OK;
}

static int start_node(reader *s, xmlNodePtr node)
{
    const char *region = NULL, *parent = NULL, *v = NULL, *flags = NULL;
    xmlAttrPtr at;
    uint32_t rid;
    long par;
    long idx;
    aa_thread *t = s->thread;
    /* fast path: no attrset, the node element is the bulk of every file */
    for (at = node->properties; at; at = at->next) {
        const char *nm = (const char *)at->name;
        const char **slot = NULL;
        if (!at->ns) {
            if (strcmp(nm, "v") == 0)
                slot = &v;
            else if (strcmp(nm, "region") == 0)
                slot = &region;
            else if (strcmp(nm, "parent") == 0)
                slot = &parent;
            else if (strcmp(nm, "flags") == 0)
                slot = &flags;
        }
        if (!slot)
            return FAIL(s, "unexpected attribute '%s' on <node>", nm);
        if (*slot)
            return FAIL(s, "duplicate attribute '%s' on <node>", nm);
        if (!at->children)
            *slot = "";
        else if (!at->children->next && at->children->type == XML_TEXT_NODE &&
                 at->children->content)
            *slot = (const char *)at->children->content;
        else
            return FAIL(s, "attribute '%s' on <node> must be plain text", nm);
    }
    if (!region)
        return FAIL(s, "missing attribute 'region' on <node>");
    if (!parent)
        return FAIL(s, "missing attribute 'parent' on <node>");
    if (!v)
        return FAIL(s, "missing attribute 'v' on <node>");
    if (aa_parse_u32(region, &rid))
        return FAIL(s, "attribute 'region': '%s' is not a region id", region);
    if (!aa_experiment_region(s->e, rid))
        return FAIL(s, "node refers to unknown region %u", rid);
    if (aa_parse_long(parent, &par))
        return FAIL(s, "attribute 'parent': '%s' is not an integer", parent);
    if (par < -1 || par >= (long)t->nnodes)
        return FAIL(s, "node %zu: parent %ld does not precede it (must be -1..%ld)", t->nnodes,
                    par, (long)t->nnodes - 1);
    idx = aa_thread_add_node(s->e, t, rid, (int32_t)par);
    if (idx < 0)
        return FAIL(s, "out of memory");
    if (flags) {
        if (strcmp(flags, "throttled") == 0)
            t->nodes[idx].flags = AA_NODE_THROTTLED;
        else if (flags[0] != '\0')
            return FAIL(s, "unknown node flags '%s' (known: throttled)", flags);
    }
    return parse_values(s, v, aa_node_values(s->e, t, (size_t)idx), s->e->nmetrics);
}

static int process_has_attr(const aa_process *p, const char *name)
{
    size_t i;
    for (i = 0; i < p->nattrs; i++)
        if (strcmp(p->attrs[i].name, name) == 0)
            return 1;
    return 0;
}

static int start_attr(reader *s, xmlNodePtr node, enum elem owner)
{
    attrset a = {.names = {"name"}, .n = 1};
    int rc;
    if ((rc = get_attrs(s, node, &a, E_ATTR)) || (rc = need(s, &a, 0, E_ATTR)))
        goto out;
    if (!a.values[0][0]) {
        rc = FAIL(s, "empty attribute name on <attr>");
        goto out;
    }
    if (owner == E_ENVIRONMENT ? aa_experiment_attr(s->e, a.values[0]) != NULL
                               : process_has_attr(s->proc, a.values[0])) {
        rc = FAIL(s, "duplicate <attr name=\"%s\">", a.values[0]);
        goto out;
    }
    free(s->attr_name);
    s->attr_name = strdup(a.values[0]);
    if (!s->attr_name)
        rc = FAIL(s, "out of memory");
    s->attr_owner = owner;
    aa_buf_reset(&s->text);
    aa_buf_puts(&s->text, "");
out:
    free_attrs(&a);
    return rc;
}

static int end_attr(reader *s)
{
    int rc;
    if (s->text.failed)
        return FAIL(s, "out of memory");
    if (s->attr_owner == E_ENVIRONMENT)
        rc = aa_experiment_set_attr(s->e, s->attr_name, s->text.data ? s->text.data : "");
    else
        rc = aa_process_set_attr(s->proc, s->attr_name, s->text.data ? s->text.data : "");
    free(s->attr_name);
    s->attr_name = NULL;
    return rc ? FAIL(s, "out of memory") : AA_OK;
}

static enum elem elem_of(const char *nm)
{
    size_t i;
    for (i = 1; i < sizeof elem_names / sizeof elem_names[0]; i++)
        if (strcmp(elem_names[i], nm) == 0)
            return (enum elem)i;
    return E_NONE;
}

static int allowed_child(enum elem parent, enum elem child)
{
    switch (parent) {
    case E_EXPERIMENT:
        return child == E_ENVIRONMENT || child == E_METRICS || child == E_REGIONS ||
               child == E_PROCESS;
    case E_REGIONMAP: return child == E_REGION;
    case E_ENVIRONMENT: return child == E_ATTR;
    case E_METRICS: return child == E_METRIC;
    case E_REGIONS: return child == E_REGION;
    case E_PROCESS: return child == E_ATTR || child == E_THREAD;
    case E_THREAD: return child == E_NODE;
    default: return 0;
    }
}

/* Called after an element closes (or right away for <x/>). */
static int end_element(reader *s, enum elem el)
{
    switch (el) {
    case E_ATTR: return end_attr(s);
    case E_REGIONS: return s->e ? check_region_parents(s) : AA_OK;
    case E_PROCESS: s->proc = NULL; break;
    case E_THREAD: s->thread = NULL; break;
    default: break;
    }
    return AA_OK;
}

static int start_element(reader *s, int depth)
{
    xmlNodePtr node = xmlTextReaderCurrentNode(s->r);
    const char *nm;
    enum elem el, parent;
    int rc;
    if (!node)
        return FAIL(s, "out of memory");
    s->line = xmlGetLineNo(node);
    if (s->line <= 0)
        s->line = xmlTextReaderGetParserLineNumber(s->r);
    nm = (const char *)node->name;
    if (node->ns && node->ns->href && strcmp((const char *)node->ns->href, AA_PROFILE_NS) != 0)
        return FAIL(s, "element <%s> is in namespace '%s', expected '%s'", nm,
                    (const char *)node->ns->href, AA_PROFILE_NS);
    el = elem_of(nm);
    if (depth >= MAX_DEPTH)
        return FAIL(s, "unexpected element <%s> (nested too deeply)", nm);
    if (depth == 0) {
        enum elem want = s->want_map ? E_REGIONMAP : E_EXPERIMENT;
        if (el != want)
            return FAIL(s, "root element is <%s>, expected <%s>", nm, elem_names[want]);
        s->stack[0] = el;
        return start_root(s, node, el);
    }
    parent = s->stack[depth - 1];
    if (el == E_NONE)
        return FAIL(s, "unknown element <%s> inside <%s>", nm, elem_names[parent]);
    if (!allowed_child(parent, el))
        return FAIL(s, "unexpected element <%s> inside <%s>", nm, elem_names[parent]);
    s->stack[depth] = el;
    if (parent == E_EXPERIMENT) {
        int sec = el == E_ENVIRONMENT ? 1 : el == E_METRICS ? 2 : el == E_REGIONS ? 3 : 4;
        if (sec < 4 && sec <= s->sections)
            return FAIL(s, "unexpected <%s>: %s", nm,
                        sec == s->sections ? "it appears twice"
                                           : "order is environment, metrics, regions, process");
        if (sec == 4 && (!s->seen_metrics || !s->seen_regions))
            return FAIL(s, "<process> before <%s>", s->seen_metrics ? "regions" : "metrics");
        s->sections = sec;
        if (el == E_METRICS)
            s->seen_metrics = 1;
        if (el == E_REGIONS)
            s->seen_regions = 1;
    }
    switch (el) {
    case E_METRIC: rc = start_metric(s, node); break;
    case E_REGION: rc = start_region(s, node); break;
    case E_PROCESS: rc = start_process(s, node); break;
    case E_THREAD: rc = start_thread(s, node); break;
    case E_NODE: rc = start_node(s, node); break;
    case E_ATTR:
        if (parent == E_PROCESS && s->proc->nthreads)
            return FAIL(s, "unexpected <attr> after <thread> in <process>");
        rc = start_attr(s, node, parent);
        break;
    default:
        /* container elements take no attributes */
        if (node->properties)
            return FAIL(s, "unexpected attribute '%s' on <%s>",
                        (const char *)node->properties->name, nm);
        rc = AA_OK;
    }
    if (rc)
        return rc;
    if (xmlTextReaderIsEmptyElement(s->r))
        return end_element(s, el);
    return AA_OK;
}

/* When libxml2 gives up on a file, the plainer reasons first: an empty
 * file, a gzip stream that ends early or is damaged, empty once
 * decompressed.  1 with why filled in when one applies. */
static int file_not_xml(const char *path, char *why, size_t n)
{
    struct stat st;
    unsigned char magic[2];
    FILE *fp;
    gzFile gz;
    char buf[65536];
    long long total = 0;
    int got, errnum = Z_OK;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (st.st_size == 0) {
        snprintf(why, n, "empty file (no XML at all)");
        return 1;
    }
    if (!(fp = fopen(path, "rb")))
        return 0;
    got = (int)fread(magic, 1, 2, fp);
    fclose(fp);
    if (got != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
        return 0;
    if (!(gz = gzopen(path, "rb")))
        return 0;
    while ((got = gzread(gz, buf, sizeof buf)) > 0 && total < (1LL << 30))
        total += got;
    if (got < 0)
        gzerror(gz, &errnum);
    else if (got == 0 && !gzeof(gz))
        errnum = Z_BUF_ERROR;
    else if (got == 0)
        gzerror(gz, &errnum);
    gzclose(gz);
    if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
        snprintf(why, n, "damaged or truncated gzip data (the compressed file ends early or "
                         "is corrupt)");
        return 1;
    }
    if (got == 0 && total == 0) {
        snprintf(why, n, "empty file once decompressed (no XML at all)");
        return 1;
    }
    return 0;
}

static int run(reader *s)
{
    int ret, seen_root = 0;
    while ((ret = xmlTextReaderRead(s->r)) == 1) {
        int type = xmlTextReaderNodeType(s->r);
        int depth = xmlTextReaderDepth(s->r);
        switch (type) {
        case XML_READER_TYPE_ELEMENT:
            if (s->saw_doctype) {
                xmlNodePtr rn = xmlTextReaderCurrentNode(s->r);
                s->line = rn ? xmlGetLineNo(rn) : xmlTextReaderGetParserLineNumber(s->r);
                return FAIL(s, "DOCTYPE declarations are not allowed (found before <%s>)",
                            rn ? (const char *)rn->name : "root");
            }
            if (start_element(s, depth))
                return AA_EINPUT;
            seen_root = 1;
            break;
        case XML_READER_TYPE_END_ELEMENT:
            if (depth >= 0 && depth < MAX_DEPTH && end_element(s, s->stack[depth]))
                return AA_EINPUT;
            break;
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_CDATA:
        case XML_READER_TYPE_WHITESPACE:
        case XML_READER_TYPE_SIGNIFICANT_WHITESPACE: {
            const char *t = (const char *)xmlTextReaderConstValue(s->r);
            if (depth > 0 && depth - 1 < MAX_DEPTH && s->stack[depth - 1] == E_ATTR &&
                s->attr_name) {
                aa_buf_puts(&s->text, t ? t : "");
            } else if (t && t[strspn(t, " \t\r\n")]) {
                xmlNodePtr tn = xmlTextReaderCurrentNode(s->r);
                const char *w = t + strspn(t, " \t\r\n");
                const char *c;
                s->line = tn ? xmlGetLineNo(tn) : -1;
                if (s->line <= 0)
                    s->line = xmlTextReaderGetParserLineNumber(s->r);
                /* libxml2 gives the line where the text ends */
                for (c = w; *c; c++)
                    if (*c == '\n')
                        s->line--;
                return FAIL(s, "unexpected text '%.*s' %s%s%s",
                            (int)(strcspn(w, "\r\n") > 30 ? 30 : strcspn(w, "\r\n")), w,
                            depth > 0 ? "inside <" : "outside the root element",
                            depth > 0 && depth - 1 < MAX_DEPTH
                                ? elem_names[s->stack[depth - 1]]
                                : "",
                            depth > 0 ? ">" : "");
            }
            break;
        }
        case XML_READER_TYPE_DOCUMENT_TYPE:
            /* a DTD node carries no line: reported at the root element,
             * which is the next node */
            s->saw_doctype = 1;
            break;
        case XML_READER_TYPE_ENTITY_REFERENCE:
            s->line = xmlTextReaderGetParserLineNumber(s->r);
            return FAIL(s, "entity references are not allowed");
        default: /* comments, processing instructions */
            break;
        }
    }
    if (ret < 0 || s->xml_failed) {
        char why[256];
        if (s->path && file_not_xml(s->path, why, sizeof why))
            return fail_at(s, 1, "%s", why);
        if (s->xml_failed)
            return fail_at(s, s->xml_line > 0 ? s->xml_line : xmlTextReaderGetParserLineNumber(s->r),
                           "not well-formed XML: %s", s->xml_msg);
        return fail_at(s, xmlTextReaderGetParserLineNumber(s->r),
                       "not well-formed XML (or out of memory)");
    }
    if (!seen_root)
        return fail_at(s, 1, "empty document");
    if (!s->want_map && (!s->seen_metrics || !s->seen_regions))
        return fail_at(s, xmlTextReaderGetParserLineNumber(s->r), "missing <%s> in <experiment>",
                       s->seen_metrics ? "regions" : "metrics");
    return AA_OK;
}

#define READ_OPTIONS (XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA)

static int read_common(reader *s, xmlTextReaderPtr r)
{
    xmlGenericErrorFunc saved;
    void *saved_ctx;
    int rc;
    if (!r)
        return aa_err_set(s->err, AA_EENV, "%s: cannot open for reading", s->name);
    s->r = r;
    aa_buf_init(&s->text);
    xmlTextReaderSetStructuredErrorHandler(r, structured_error, s);
    /* some libxml2 errors (encoding, I/O) bypass the reader's handler and
     * go to the generic one: silence it while reading */
    saved = xmlGenericError;
    saved_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent_generic);
    rc = run(s);
    xmlFreeTextReader(r);
    xmlSetGenericErrorFunc(saved_ctx, saved);
    aa_buf_free(&s->text);
    free(s->attr_name);
    s->attr_name = NULL;
    free(s->map_ids);
    s->map_ids = NULL;
    free(s->plinks);
    s->plinks = NULL;
    if (rc == AA_OK && s->e && aa_experiment_check(s->e, s->err)) {
        aa_err_prefix(s->err, "%s", s->name);
        rc = AA_EINPUT;
    }
    if (rc) {
        aa_experiment_free(s->e);
        aa_regionmap_free(s->m);
        s->e = NULL;
        s->m = NULL;
    }
    return rc;
}

/* Opens path with libxml2 without letting it print anything. */
static xmlTextReaderPtr open_file(const char *path, aa_err *err)
{
    struct stat st;
    FILE *fp;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        aa_err_set(err, AA_EINPUT, "%s: is a directory, not a profile file", path);
        return NULL;
    }
    fp = fopen(path, "rb");
    xmlGenericErrorFunc saved = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlTextReaderPtr r;
    if (!fp) {
        aa_err_set(err, errno == ENOENT || errno == EACCES || errno == EISDIR ? AA_EINPUT : AA_EENV,
                   "%s: %s", path, strerror(errno));
        return NULL;
    }
    fclose(fp);
    xmlSetGenericErrorFunc(NULL, silent_generic);
    r = xmlReaderForFile(path, NULL, READ_OPTIONS);
    xmlSetGenericErrorFunc(saved_ctx, saved);
    if (!r)
        aa_err_set(err, AA_EENV, "%s: cannot open for reading", path);
    return r;
}

static xmlTextReaderPtr open_memory(const char *data, size_t len, const char *name, aa_err *err)
{
    xmlGenericErrorFunc saved = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlTextReaderPtr r;
    if (len > INT_MAX) {
        aa_err_set(err, AA_EINPUT, "%s: too large to read from memory", name);
        return NULL;
    }
    xmlSetGenericErrorFunc(NULL, silent_generic);
    r = xmlReaderForMemory(data ? data : "", (int)len, NULL, NULL, READ_OPTIONS);
    xmlSetGenericErrorFunc(saved_ctx, saved);
    if (!r)
        aa_err_set(err, AA_EENV, "%s: cannot read from memory", name);
    return r;
}

void aa_profile_threads_init(void)
{
    xmlInitParser();
}

/* 1 when the file starts with the binary experiment's magic bytes. */
static int file_is_binary(const char *path)
{
    unsigned char head[8];
    FILE *fp = fopen(path, "rb");
    size_t n = 0;
    if (fp) {
        n = fread(head, 1, sizeof head, fp);
        fclose(fp);
    }
    return aa_experiment_is_binary(head, n);
}

int aa_experiment_read(const char *path, aa_experiment **out, aa_err *err)
{
    reader s;
    xmlTextReaderPtr r;
    int rc;
    *out = NULL;
    if (file_is_binary(path))
        return aa_experiment_read_binary(path, out, err);
    memset(&s, 0, sizeof s);
    s.name = path;
    s.path = path;
    s.err = err;
    if (!(r = open_file(path, err)))
        return err ? err->code : AA_EENV;
    rc = read_common(&s, r);
    if (rc == AA_OK)
        *out = s.e;
    return rc;
}

int aa_experiment_read_memory(const char *data, size_t len, const char *name,
                              aa_experiment **out, aa_err *err)
{
    reader s;
    xmlTextReaderPtr r;
    int rc;
    *out = NULL;
    if (data && aa_experiment_is_binary(data, len))
        return aa_experiment_read_binary_memory(data, len, name ? name : "<memory>", out, err);
    memset(&s, 0, sizeof s);
    s.name = name ? name : "<memory>";
    s.err = err;
    if (!(r = open_memory(data, len, s.name, err)))
        return err ? err->code : AA_EENV;
    rc = read_common(&s, r);
    if (rc == AA_OK)
        *out = s.e;
    return rc;
}

int aa_regionmap_read(const char *path, aa_regionmap **out, aa_err *err)
{
    reader s;
    xmlTextReaderPtr r;
    int rc;
    *out = NULL;
    memset(&s, 0, sizeof s);
    s.name = path;
    s.path = path;
    s.err = err;
    s.want_map = 1;
    if (!(r = open_file(path, err)))
        return err ? err->code : AA_EENV;
    rc = read_common(&s, r);
    if (rc == AA_OK)
        *out = s.m;
    return rc;
}

int aa_regionmap_read_memory(const char *data, size_t len, const char *name, aa_regionmap **out,
                             aa_err *err)
{
    reader s;
    xmlTextReaderPtr r;
    int rc;
    *out = NULL;
    memset(&s, 0, sizeof s);
    s.name = name ? name : "<memory>";
    s.err = err;
    s.want_map = 1;
    if (!(r = open_memory(data, len, s.name, err)))
        return err ? err->code : AA_EENV;
    rc = read_common(&s, r);
    if (rc == AA_OK)
        *out = s.m;
    return rc;
}
