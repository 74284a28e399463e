/*
 * space/space_io.c -- the Program Space export format (docs/space.md): one
 * line per record, a keyword, a space, then tab-separated fields with
 * backslash escapes (\\ \t \n).  Export writes executions in EID order,
 * records sorted by byte order, so an export -> import -> export round trip
 * is identical; import validates every line ("file:line: what") and stores
 * all executions in one transaction.
 */
#include "space/sp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_LINE "format autoanalyzer-space 1"

static void put_field(aa_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            aa_buf_puts(b, "\\\\");
        else if (*s == '\t')
            aa_buf_puts(b, "\\t");
        else if (*s == '\n')
            aa_buf_puts(b, "\\n");
        else
            aa_buf_putc(b, *s);
    }
}

static void put_rec(aa_buf *b, const char *kw, int n, ...)
{
    va_list ap;
    int i;
    aa_buf_puts(b, kw);
    va_start(ap, n);
    for (i = 0; i < n; i++) {
        aa_buf_putc(b, i ? '\t' : ' ');
        put_field(b, va_arg(ap, const char *));
    }
    va_end(ap);
    aa_buf_putc(b, '\n');
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs sql (one integer parameter: eid) and appends one record per row, the
 * fields being the columns as text; records are sorted. */
static int dump(aa_space *s, long long eid, const char *kw, const char *sql, int ncols,
                unsigned doubles, aa_buf *out, aa_err *err)
{
    sp_stmt *st;
    char **lines = NULL;
    size_t n = 0, cap = 0, i;
    int rc = s->db->ops->prepare(s->db, sql, &st, err), r;
    if (rc != AA_OK)
        return rc;
    s->db->ops->bind_int(st, 1, eid);
    while ((r = s->db->ops->step(st, err)) == 1) {
        aa_buf l;
        int c;
        aa_buf_init(&l);
        aa_buf_puts(&l, kw);
        for (c = 0; c < ncols; c++) {
            aa_buf_putc(&l, c ? '\t' : ' ');
            if (doubles & (1u << c)) {
                char v[32];
                aa_format_double(v, s->db->ops->col_double(st, c));
                aa_buf_puts(&l, v);
            } else {
                put_field(&l, s->db->ops->col_text(st, c));
            }
        }
        aa_buf_putc(&l, '\n');
        if (n == cap) {
            char **q = realloc(lines, (cap = cap ? cap * 2 : 256) * sizeof *q);
            if (!q) {
                aa_buf_free(&l);
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            lines = q;
        }
        lines[n++] = aa_buf_detach(&l);
    }
    s->db->ops->finalize(st);
    if (r >= 0) {
        if (n)
            qsort(lines, n, sizeof *lines, cmp_line);
        for (i = 0; i < n; i++)
            aa_buf_puts(out, lines[i]);
    }
    for (i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    return r < 0 ? (err->code ? err->code : AA_EENV) : AA_OK;
}

/* A number of a finding's record: its shortest exact form, empty when not
 * known (NAN). */
static void put_number(aa_buf *b, double v)
{
    char t[32];
    if (isfinite(v)) {
        aa_format_double(t, v);
        aa_buf_puts(b, t);
    }
}

/* One 'finding' record: kind, region, severity, class, confidence, causes
 * (comma-separated), suggestion, impact, run share, calling contexts
 * (newline-separated, escaped as \n). */
static char *finding_record(const aa_space_finding *f)
{
    aa_buf l;
    char t[32];
    size_t k;
    aa_buf_init(&l);
    aa_buf_puts(&l, "finding ");
    put_field(&l, f->kind);
    aa_buf_putc(&l, '\t');
    put_field(&l, f->region);
    aa_format_double(t, f->severity);
    aa_buf_printf(&l, "\t%s\t%d\t", t, f->severity_class);
    aa_format_double(t, f->confidence);
    aa_buf_printf(&l, "%s\t", t);
    for (k = 0; k < f->ncauses; k++) {
        if (k)
            aa_buf_putc(&l, ',');
        put_field(&l, f->causes[k]);
    }
    aa_buf_putc(&l, '\t');
    put_field(&l, f->suggestion ? f->suggestion : "");
    aa_buf_putc(&l, '\t');
    put_number(&l, f->impact_s);
    aa_buf_putc(&l, '\t');
    put_number(&l, f->run_share);
    aa_buf_putc(&l, '\t');
    for (k = 0; k < f->ncontexts; k++) {
        if (k)
            aa_buf_puts(&l, "\\n");
        put_field(&l, f->contexts[k]);
    }
    aa_buf_putc(&l, '\n');
    return aa_buf_detach(&l);
}

/* The findings of eid as read back (space_ops.c), one sorted record each. */
static int dump_findings(aa_space *s, long long eid, aa_buf *out, aa_err *err)
{
    aa_space_finding *f = NULL;
    size_t n = 0, i, k = 0;
    char **lines;
    int rc = aa_space_findings_of(s, eid, &f, &n, err);
    if (rc != AA_OK)
        return rc;
    lines = calloc(n + 1, sizeof *lines);
    for (i = 0; lines && i < n && (lines[k] = finding_record(&f[i])); i++)
        k++;
    if (lines && k == n) {
        qsort(lines, n, sizeof *lines, cmp_line);
        for (i = 0; i < n; i++)
            aa_buf_puts(out, lines[i]);
    } else {
        rc = aa_err_set(err, AA_EENV, "out of memory");
    }
    for (i = 0; lines && i < k; i++)
        free(lines[i]);
    free(lines);
    aa_space_findings_free(f, n);
    return rc;
}

static int export_one(aa_space *s, long long eid, aa_buf *out, aa_err *err)
{
    sp_stmt *st;
    int rc, r;
    char b[24];
    rc = s->db->ops->prepare(s->db,
                             "SELECT a.name, e.experiment, e.started, e.nprocs FROM executions e"
                             " JOIN applications a ON a.id = e.app WHERE e.eid = ?",
                             &st, err);
    if (rc != AA_OK)
        return rc;
    s->db->ops->bind_int(st, 1, eid);
    r = s->db->ops->step(st, err);
    if (r == 1) {
        snprintf(b, sizeof b, "%lld", eid);
        put_rec(out, "execution", 1, b);
        put_rec(out, "application", 1, s->db->ops->col_text(st, 0));
        put_rec(out, "experiment", 1, s->db->ops->col_text(st, 1));
        put_rec(out, "started", 1, s->db->ops->col_text(st, 2));
        snprintf(b, sizeof b, "%lld", s->db->ops->col_int(st, 3));
        put_rec(out, "nprocs", 1, b);
    }
    s->db->ops->finalize(st);
    if (r < 0)
        return err->code;
    if (r == 0)
        return aa_err_set(err, AA_EINPUT, "unknown execution %lld", eid);
    rc = dump(s, eid, "attr", "SELECT name, value FROM execution_attrs WHERE eid = ?", 2, 0, out,
                  err);
    if (rc == AA_OK)
        rc = dump(s, eid, "resource",
                  "SELECT r.path, r.type FROM execution_resources er JOIN resources r"
                  " ON r.id = er.resource WHERE er.eid = ?",
                  2, 0, out, err);
    if (rc == AA_OK)
        rc = dump(s, eid, "metric",
                  "SELECT name, unit FROM metrics WHERE id IN"
                  " (SELECT DISTINCT metric FROM results WHERE eid = ?)",
                  2, 0, out, err);
    if (rc == AA_OK)
        rc = dump(s, eid, "result",
                  "SELECT m.name, c.path, ma.path, p.path, r.value FROM results r"
                  " JOIN metrics m ON m.id = r.metric JOIN foci f ON f.id = r.focus"
                  " JOIN resources c ON c.id = f.code JOIN resources ma ON ma.id = f.machine"
                  " JOIN resources p ON p.id = f.process WHERE r.eid = ?",
                  5, 1u << 4, out, err);
    if (rc == AA_OK)
        rc = dump_findings(s, eid, out, err);
    if (rc == AA_OK)
        aa_buf_puts(out, "end\n");
    return rc;
}

int aa_space_export(aa_space *s, long long eid, aa_buf *out, aa_err *err)
{
    long long *eids = NULL;
    size_t n = 0, i;
    int rc = AA_OK;
    aa_buf_puts(out, "# autoanalyzer Program Space export (docs/space.md)\n" FORMAT_LINE "\n");
    if (eid >= 0)
        return export_one(s, eid, out, err);
    {
        /* The space's mapping directives, in order. */
        aa_space_map m;
        memset(&m, 0, sizeof m);
        rc = aa_space_map_load(s, &m, err);
        for (i = 0; rc == AA_OK && i < m.n; i++)
            put_rec(out, "map", 2, m.from[i], m.to[i]);
        aa_space_map_free(&m);
        if (rc != AA_OK)
            return rc;
    }
    {
        sp_stmt *st;
        int r;
        rc = s->db->ops->prepare(s->db, "SELECT eid FROM executions ORDER BY eid", &st, err);
        if (rc != AA_OK)
            return rc;
        while ((r = s->db->ops->step(st, err)) == 1) {
            long long *q = realloc(eids, (n + 1) * sizeof *q);
            if (!q)
                break;
            eids = q;
            eids[n++] = s->db->ops->col_int(st, 0);
        }
        s->db->ops->finalize(st);
    }
    for (i = 0; rc == AA_OK && i < n; i++)
        rc = export_one(s, eids[i], out, err);
    free(eids);
    return rc;
}

/* ---- import ---------------------------------------------------------------------- */
/* Splits the fields of one record in place; returns the count or -1 on a
 * bad escape. */
static int split_fields(char *s, char **f, int max)
{
    int n = 0;
    char *w = s, *r = s;
    f[n++] = w;
    for (; *r; r++) {
        if (*r == '\t') {
            *w++ = 0;
            if (n == max)
                return -1;
            f[n++] = w;
        } else if (*r == '\\') {
            r++;
            if (*r == '\\')
                *w++ = '\\';
            else if (*r == 't')
                *w++ = '\t';
            else if (*r == 'n')
                *w++ = '\n';
            else
                return -1;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    return n;
}

/* What one execution block declared, with the line of each declaration,
 * so a repeated or conflicting one names both lines. */
typedef struct block_seen {
    sp_strmap decl;      /* "a\tNAME" attr, "r\tPATH" resource, "m\tNAME" metric -> line */
    size_t nmetrics;
    sp_trimap *results;  /* per metric: (code, machine, process) -> line */
} block_seen;

static void block_seen_free(block_seen *b)
{
    size_t i;
    sp_strmap_free(&b->decl);
    for (i = 0; i < b->nmetrics; i++)
        sp_trimap_free(&b->results[i]);
    free(b->results);
    memset(b, 0, sizeof *b);
}

/* The line of declaration kind:name in b (0 = not declared), and records it at
 * line when new.  -1: out of memory. */
static long declared(block_seen *b, char kind, const char *name, int line)
{
    aa_buf k;
    long long prev = 0;
    int found;
    aa_buf_init(&k);
    aa_buf_printf(&k, "%c\t%s", kind, name);
    found = sp_strmap_get(&b->decl, k.data, &prev);
    if (!found && sp_strmap_put(&b->decl, k.data, line))
        prev = -1;
    aa_buf_free(&k);
    return found || prev < 0 ? (long)prev : 0;
}

/* The resource types of each hierarchy (the types space add stores, and
 * "group" for a level declared only as an ancestor). */
static int type_valid(const char *path, const char *type)
{
    static const char *const code[] = {"program", "file", "function", "group", NULL};
    static const char *const machine[] = {"machine", "host", "group", NULL};
    static const char *const process[] = {"execution", "process", "thread", "group", NULL};
    const char *const *v = strncmp(path, "/Code", 5) == 0 ? code
                           : strncmp(path, "/Machine", 8) == 0 ? machine
                                                               : process;
    aa_region_kind k;
    for (; *v; v++)
        if (strcmp(*v, type) == 0)
            return 1;
    return strncmp(path, "/Code", 5) == 0 && aa_region_kind_parse(type, &k) == 0;
}

/* "/Code", "/Code/..." and likewise for /Machine and /Process. */
static int known_hierarchy(const char *path)
{
    static const char *const roots[] = {"/Code", "/Machine", "/Process"};
    int i;
    for (i = 0; i < 3; i++) {
        size_t n = strlen(roots[i]);
        if (strncmp(path, roots[i], n) == 0 && (path[n] == 0 || path[n] == '/'))
            return 1;
    }
    return 0;
}

typedef struct import_arg {
    sp_exec_data *ex;
    size_t n;
    long long *eids;
    const aa_space_map *maps;
    const char *name;     /* the file, for messages */
    block_seen *seen;     /* per execution: the lines of its declarations */
} import_arg;

static int import_tx(aa_space *s, void *arg, aa_err *err)
{
    import_arg *a = arg;
    size_t i;
    int rc = AA_OK;
    aa_space_map have, add;
    memset(&have, 0, sizeof have);
    memset(&add, 0, sizeof add);
    for (i = 0; rc == AA_OK && i < a->n; i++) {
        /* a metric the space already has in another unit: the file's line */
        long which = -1;
        char unit[128];
        rc = sp_metric_conflict(s, &a->ex[i], &which, unit, sizeof unit, err);
        if (rc == AA_OK && which >= 0) {
            long line = declared(&a->seen[i], 'm', a->ex[i].metric_names[which], 0);
            return aa_err_set(err, AA_EINPUT,
                              "%s:%ld: metric '%s' has unit '%s' here but '%s' in the space",
                              a->name, line, a->ex[i].metric_names[which],
                              a->ex[i].metric_units[which], unit);
        }
        if (rc == AA_OK)
            rc = sp_store_execution(s, &a->ex[i], &a->eids[i], err);
    }
    /* Mapping directives not yet in the space. */
    if (rc == AA_OK && a->maps->n)
        rc = aa_space_map_load(s, &have, err);
    for (i = 0; rc == AA_OK && i < a->maps->n; i++) {
        size_t k;
        int dup = 0;
        for (k = 0; k < have.n; k++)
            if (!strcmp(have.from[k], a->maps->from[i]) && !strcmp(have.to[k], a->maps->to[i]))
                dup = 1;
        if (!dup && aa_space_map_add(&add, a->maps->from[i], a->maps->to[i]))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    }
    if (rc == AA_OK && add.n)
        rc = sp_map_store_in_tx(s, &add, err);
    aa_space_map_free(&have);
    aa_space_map_free(&add);
    return rc;
}

int aa_space_import(aa_space *s, const char *text, const char *name, long long **eids_out,
                    size_t *neids, aa_err *err)
{
    char *copy = aa_strdup(text), *line, *f[10];
    sp_exec_data *ex = NULL, *cur = NULL;
    block_seen *seen = NULL, *bs = NULL;
    size_t n = 0, i;
    int lineno = 0, rc = AA_OK, header = 0;
    import_arg a;
    aa_space_map maps;
    memset(&maps, 0, sizeof maps);
    if (!copy)
        return aa_err_set(err, AA_EENV, "out of memory");
#define BAD(...)                                                                                 \
    do {                                                                                         \
        char m_[512];                                                                            \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                    \
        rc = aa_err_set(err, AA_EINPUT, "%s:%d: %s", name, lineno, m_);                          \
        goto out;                                                                                \
    } while (0)
    for (line = copy; line && *line;) {
        char *nl = strchr(line, '\n'), *sp, *kw;
        int nf;
        if (nl)
            *nl = 0;
        lineno++;
        if (*line == '#' || *line == 0) {
            line = nl ? nl + 1 : NULL;
            continue;
        }
        if (!header) {
            if (strcmp(line, FORMAT_LINE) != 0)
                BAD("expected '" FORMAT_LINE "'");
            header = 1;
            line = nl ? nl + 1 : NULL;
            continue;
        }
        kw = line;
        sp = strchr(line, ' ');
        if (sp)
            *sp = 0;
        nf = sp ? split_fields(sp + 1, f, 10) : 0;
        if (nf < 0)
            BAD("bad field (escape or too many fields)");
        if (strcmp(kw, "execution") == 0) {
            sp_exec_data *q;
            if (cur)
                BAD("'execution' inside an execution (missing 'end')");
            q = realloc(ex, (n + 1) * sizeof *q);
            if (!q)
                BAD("out of memory");
            ex = q;
            {
                block_seen *qs = realloc(seen, (n + 1) * sizeof *qs);
                if (!qs)
                    BAD("out of memory");
                seen = qs;
            }
            bs = &seen[n];
            memset(bs, 0, sizeof *bs);
            sp_strmap_init(&bs->decl);
            cur = &ex[n++];
            sp_exec_data_init(cur);
        } else if (!cur && strcmp(kw, "map") == 0) {
            if (nf != 2 || !sp_path_valid(f[0]) || !sp_path_valid(f[1]))
                BAD("'map' takes two resource paths");
            if (aa_space_map_add(&maps, f[0], f[1]))
                BAD("out of memory");
        } else if (!cur) {
            BAD("'%s' outside an execution block", kw);
        } else if (strcmp(kw, "end") == 0) {
            if (!cur->application)
                BAD("execution without 'application'");
            cur = NULL;
        } else if (strcmp(kw, "application") == 0 || strcmp(kw, "experiment") == 0 ||
                   strcmp(kw, "started") == 0) {
            char **dst = kw[0] == 'a' ? &cur->application
                                      : kw[0] == 'e' ? &cur->experiment : &cur->started;
            if (nf != 1)
                BAD("'%s' takes one field", kw);
            free(*dst);
            *dst = aa_strdup(f[0]);
        } else if (strcmp(kw, "nprocs") == 0) {
            if (nf != 1 || aa_parse_long(f[0], &cur->nprocs) || cur->nprocs < 0)
                BAD("'nprocs' takes a non-negative integer");
        } else if (strcmp(kw, "attr") == 0) {
            long prev;
            if (nf != 2 || !*f[0])
                BAD("'attr' takes NAME and VALUE");
            if ((prev = declared(bs, 'a', f[0], lineno)) < 0)
                BAD("out of memory");
            if (prev)
                BAD("attribute '%s' given twice (first at line %ld)", f[0], prev);
            if (sp_exec_data_attr(cur, f[0], f[1]))
                BAD("out of memory");
        } else if (strcmp(kw, "resource") == 0) {
            long prev;
            if (nf != 2 || !sp_path_valid(f[0]) || !*f[1])
                BAD("'resource' takes PATH (absolute, no empty components) and TYPE");
            if (!known_hierarchy(f[0]))
                BAD("resource '%s' is in no hierarchy (paths start with /Code, /Machine or "
                    "/Process)", f[0]);
            if (!type_valid(f[0], f[1]))
                BAD("resource '%s' has type '%s', which is no type of its hierarchy", f[0],
                    f[1]);
            if ((prev = declared(bs, 'r', f[0], lineno)) < 0)
                BAD("out of memory");
            if (prev)
                BAD("resource '%s' declared twice (first at line %ld)", f[0], prev);
            if (sp_exec_data_resource(cur, f[0], f[1]) < 0)
                BAD("bad resource path '%s'", f[0]);
        } else if (strcmp(kw, "metric") == 0) {
            long prev, mi;
            if (nf != 2 || !*f[0])
                BAD("'metric' takes NAME and UNIT");
            if ((prev = declared(bs, 'm', f[0], lineno)) < 0)
                BAD("out of memory");
            if (prev) {
                for (i = 0; i < cur->nmetrics; i++)
                    if (strcmp(cur->metric_names[i], f[0]) == 0 &&
                        strcmp(cur->metric_units[i], f[1]) != 0)
                        BAD("metric '%s' declared again with unit '%s' (line %ld says '%s')",
                            f[0], f[1], prev, cur->metric_units[i]);
                BAD("metric '%s' declared twice (first at line %ld)", f[0], prev);
            }
            if ((mi = sp_exec_data_metric(cur, f[0], f[1])) < 0)
                BAD("out of memory");
            if ((size_t)mi >= bs->nmetrics) {
                sp_trimap *q = realloc(bs->results, ((size_t)mi + 1) * sizeof *q);
                if (!q)
                    BAD("out of memory");
                bs->results = q;
                while (bs->nmetrics <= (size_t)mi)
                    sp_trimap_init(&bs->results[bs->nmetrics++]);
            }
        } else if (strcmp(kw, "result") == 0) {
            long long idx[3], prev;
            long mi = -1;
            double v;
            int k;
            if (nf != 5)
                BAD("'result' takes METRIC, CODE, MACHINE, PROCESS and VALUE");
            for (i = 0; i < cur->nmetrics; i++)
                if (strcmp(cur->metric_names[i], f[0]) == 0)
                    mi = (long)i;
            if (mi < 0)
                BAD("result for undeclared metric '%s'", f[0]);
            for (k = 0; k < 3; k++)
                if (!sp_strmap_get(&cur->res_index, f[1 + k], &idx[k]))
                    BAD("result at undeclared resource '%s'", f[1 + k]);
            if (strncmp(f[1], "/Code", 5) || strncmp(f[2], "/Machine", 8) ||
                strncmp(f[3], "/Process", 8))
                BAD("a focus is CODE MACHINE PROCESS resources, in that order");
            if (aa_parse_double(f[4], &v))
                BAD("bad value '%s' (a finite number)", f[4]);
            if (v < 0)
                BAD("negative value %s (metrics measure times, counts and sizes)", f[4]);
            if (sp_trimap_get(&bs->results[mi], idx[0], idx[1], idx[2], &prev))
                BAD("a second result for metric '%s' at (%s, %s, %s) (first at line %lld)",
                    f[0], f[1], f[2], f[3], prev);
            if (sp_trimap_put(&bs->results[mi], idx[0], idx[1], idx[2], lineno))
                BAD("out of memory");
            if (sp_exec_data_result(cur, (int)mi, (long)idx[0], (long)idx[1], (long)idx[2], v))
                BAD("out of memory");
        } else if (strcmp(kw, "finding") == 0) {
            aa_space_finding g;
            long cls;
            char *causes[64], *contexts[64], *c;
            size_t nc = 0;
            if (nf != 7 && nf != 10)
                BAD("'finding' takes 7 fields, or 10 with its impact, run share and contexts");
            memset(&g, 0, sizeof g);
            g.impact_s = g.run_share = NAN;
            g.kind = f[0];
            g.region = f[1];
            if (strncmp(f[1], "/Code", 5) != 0 || (f[1][5] && f[1][5] != '/') ||
                !sp_strmap_get(&cur->res_index, f[1], NULL))
                BAD("finding at '%s', which is no declared /Code resource", f[1]);
            if (aa_parse_double(f[2], &g.severity) || aa_parse_long(f[3], &cls) ||
                aa_parse_double(f[4], &g.confidence))
                BAD("bad number in 'finding'");
            if (g.severity < 0 || g.severity > 1 || g.confidence < 0 || g.confidence > 1 ||
                cls < -1 || cls > 4)
                BAD("finding: severity and confidence lie in [0, 1], the class in -1..4");
            g.severity_class = (int)cls;
            for (c = f[5]; *c && nc < 64;) {
                char *comma = strchr(c, ',');
                if (comma)
                    *comma = 0;
                causes[nc++] = c;
                if (!comma)
                    break;
                c = comma + 1;
            }
            g.ncauses = nc;
            g.causes = causes;
            g.suggestion = f[6];
            if (nf == 10 && ((*f[7] && (aa_parse_double(f[7], &g.impact_s) ||
                                        !(g.impact_s >= 0) || !isfinite(g.impact_s))) ||
                             (*f[8] && (aa_parse_double(f[8], &g.run_share) ||
                                        !(g.run_share >= 0) || !isfinite(g.run_share)))))
                BAD("finding: impact and run share are numbers of 0 or more, or empty");
            for (c = nf == 10 && *f[9] ? f[9] : NULL; c && g.ncontexts < 64;) {
                char *eol = strchr(c, '\n');
                if (eol)
                    *eol = 0;
                if (!sp_strmap_get(&cur->res_index, c, NULL) || strncmp(c, "/Code/", 6) != 0)
                    BAD("finding context '%s' is no declared /Code resource", c);
                contexts[g.ncontexts++] = c;
                c = eol ? eol + 1 : NULL;
            }
            if (c)
                BAD("finding: more than 64 calling contexts");
            g.contexts = contexts;
            if (sp_exec_data_finding(cur, &g))
                BAD("out of memory");
        } else {
            BAD("unknown record '%s'", kw);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!header)
        BAD("empty file (expected '" FORMAT_LINE "')");
    if (cur)
        BAD("unexpected end of file (missing 'end')");
    a.ex = ex;
    a.n = n;
    a.maps = &maps;
    a.name = name;
    a.seen = seen;
    a.eids = calloc(n + 1, sizeof *a.eids);
    if (!a.eids) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    rc = sp_write_tx(s, import_tx, &a, err);
    if (rc == AA_OK) {
        *eids_out = a.eids;
        *neids = n;
    } else {
        free(a.eids);
    }
#undef BAD
out:
    for (i = 0; i < n; i++) {
        sp_exec_data_free(&ex[i]);
        block_seen_free(&seen[i]);
    }
    free(ex);
    free(seen);
    free(copy);
    aa_space_map_free(&maps);
    return rc;
}
