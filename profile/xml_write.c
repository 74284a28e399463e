/*
 * profile/xml_write.c -- writes experiments, per-rank profiles and region
 * maps as XML text (docs/profile-format.md).
 *
 * This file deliberately does not use libxml2: the runtime links the writer
 * into the user's program, so it only needs common/ (aa_buf, atomic files,
 * aa_format_double).  Output is deterministic (same model, same bytes),
 * always well-formed: the five XML special characters and tab/newline/CR
 * are escaped as references, and characters XML 1.0 cannot carry at all
 * (other C0 controls, invalid UTF-8) become U+FFFD.  Numbers use the
 * shortest text that reads back as the same double; NAN is written as "-".
 */
#include "profile/aa_profile.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AA_PROFILE_NS "urn:autoanalyzer:profile:1"

static const char replacement_char[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Length of the valid UTF-8 sequence at s (1..4) or 0 if invalid.  Rejects
 * overlong forms, surrogates and code points XML 1.0 forbids (FFFE, FFFF). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned cp;
        if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        cp = ((c & 0x0F) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned cp;
        if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        cp = ((c & 0x07) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
             (s[3] & 0x3Fu);
        if (cp < 0x10000 || cp > 0x10FFFF)
            return 0;
        return 4;
    }
    return 0;
}

/* Appends s escaped for use in an attribute value or in element text. */
static void put_escaped(aa_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    const unsigned char *run = s;
    while (*s) {
        const char *rep = NULL;
        size_t n = 1;
        unsigned c = *s;
        if (c >= 0x20 && c < 0x80 && c != '&' && c != '<' && c != '>' && c != '"' &&
            c != '\'') {
            s++;
            continue;
        }
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        case '\t': rep = "&#9;"; break;
        case '\n': rep = "&#10;"; break;
        case '\r': rep = "&#13;"; break;
        default:
            if (c < 0x20) {
                rep = replacement_char;
            } else {
                n = utf8_len(s);
                if (n == 0) {
                    rep = replacement_char;
                    n = 1;
                } else {
                    s += n; /* valid multi-byte character: copy as is */
                    continue;
                }
            }
        }
        aa_buf_add(b, run, (size_t)(s - run));
        aa_buf_puts(b, rep);
        s += n;
        run = s;
    }
    aa_buf_add(b, run, (size_t)(s - run));
}

static void put_attr(aa_buf *b, const char *name, const char *value)
{
    aa_buf_putc(b, ' ');
    aa_buf_puts(b, name);
    aa_buf_puts(b, "=\"");
    put_escaped(b, value);
    aa_buf_putc(b, '"');
}

static void put_ulong(aa_buf *b, unsigned long long v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    aa_buf_add(b, tmp + i, sizeof tmp - (size_t)i);
}

static void put_long(aa_buf *b, long long v)
{
    if (v < 0) {
        aa_buf_putc(b, '-');
        put_ulong(b, (unsigned long long)0 - (unsigned long long)v);
    } else {
        put_ulong(b, (unsigned long long)v);
    }
}

static void put_int_attr(aa_buf *b, const char *name, long long v)
{
    aa_buf_putc(b, ' ');
    aa_buf_puts(b, name);
    aa_buf_puts(b, "=\"");
    put_long(b, v);
    aa_buf_putc(b, '"');
}

/* A value: "-" for NAN, exact integers directly, else the shortest
 * round-tripping decimal text. */
static void put_value(aa_buf *b, double v)
{
    char tmp[32];
    if (isnan(v)) {
        aa_buf_putc(b, '-');
        return;
    }
    if (v >= 0 && v < 1e15 && v == (double)(unsigned long long)v) {
        put_ulong(b, (unsigned long long)v);
        return;
    }
    /* Same text as aa_format_double (the shortest that reads back exactly)
     * in at most three tries: when a representation of d <= 15 digits
     * exists, "%.15g" prints exactly it (trailing zeros are dropped). */
    if (v < DBL_MIN) { /* subnormal: fewer digits, let the general loop find them */
        aa_format_double(tmp, v);
        aa_buf_puts(b, tmp);
        return;
    }
    snprintf(tmp, sizeof tmp, "%.15g", v);
    if (strtod(tmp, NULL) != v) {
        snprintf(tmp, sizeof tmp, "%.16g", v);
        if (strtod(tmp, NULL) != v)
            snprintf(tmp, sizeof tmp, "%.17g", v);
    }
    aa_buf_puts(b, tmp);
}

static void put_region(aa_buf *b, const aa_region *r, const char *indent, const char *skipped)
{
    aa_buf_puts(b, indent);
    aa_buf_puts(b, "<region");
    put_int_attr(b, "id", r->id);
    put_attr(b, "kind", aa_region_kind_name(r->kind));
    put_attr(b, "name", r->name);
    if (r->function && r->function[0])
        put_attr(b, "function", r->function);
    if (r->file && r->file[0])
        put_attr(b, "file", r->file);
    if (r->line)
        put_int_attr(b, "line", r->line);
    if (r->col)
        put_int_attr(b, "col", r->col);
    if (r->end_line)
        put_int_attr(b, "end-line", r->end_line);
    if (r->end_col)
        put_int_attr(b, "end-col", r->end_col);
    if (r->parent)
        put_int_attr(b, "parent", r->parent);
    if (skipped) {
        put_attr(b, "instrumented", "no");
        put_attr(b, "reason", skipped);
    }
    aa_buf_puts(b, "/>\n");
}

static void put_attrs(aa_buf *b, const aa_attr *a, size_t n, const char *indent)
{
    size_t i;
    for (i = 0; i < n; i++) {
        aa_buf_puts(b, indent);
        aa_buf_puts(b, "<attr");
        put_attr(b, "name", a[i].name);
        aa_buf_putc(b, '>');
        put_escaped(b, a[i].value);
        aa_buf_puts(b, "</attr>\n");
    }
}

static int check_regions(const aa_region *r, size_t n, aa_err *err)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if ((unsigned)r[i].kind >= AA_KIND_COUNT_)
            return aa_err_set(err, AA_EUSAGE, "region %u: invalid kind %d", r[i].id,
                              (int)r[i].kind);
        if (r[i].line < 0 || r[i].col < 0 || r[i].end_line < 0 || r[i].end_col < 0)
            return aa_err_set(err, AA_EUSAGE, "region %u: negative source position", r[i].id);
    }
    return AA_OK;
}

static void put_process(const aa_experiment *e, const aa_process *p, aa_buf *b)
{
    size_t i, t, k;
    aa_buf_puts(b, "  <process");
    put_int_attr(b, "rank", p->rank);
    if (p->host && p->host[0])
        put_attr(b, "host", p->host);
    if (p->pid)
        put_int_attr(b, "pid", p->pid);
    if (p->nunavailable) {
        aa_buf_puts(b, " unavailable=\"");
        for (i = 0; i < p->nunavailable; i++) {
            if (i)
                aa_buf_putc(b, ' ');
            put_escaped(b, p->unavailable[i]);
        }
        aa_buf_putc(b, '"');
    }
    if (p->nattrs == 0 && p->nthreads == 0) {
        aa_buf_puts(b, "/>\n");
        return;
    }
    aa_buf_puts(b, ">\n");
    put_attrs(b, p->attrs, p->nattrs, "    ");
    for (t = 0; t < p->nthreads; t++) {
        const aa_thread *th = &p->threads[t];
        aa_buf_puts(b, "    <thread");
        put_int_attr(b, "id", th->id);
        if (th->nnodes == 0) {
            aa_buf_puts(b, "/>\n");
            continue;
        }
        aa_buf_puts(b, ">\n");
        for (i = 0; i < th->nnodes; i++) {
            const aa_node *n = &th->nodes[i];
            const double *v = aa_node_values(e, th, i);
            aa_buf_puts(b, "      <node region=\"");
            put_ulong(b, n->region);
            aa_buf_puts(b, "\" parent=\"");
            put_long(b, n->parent);
            aa_buf_puts(b, "\" v=\"");
            for (k = 0; k < e->nmetrics; k++) {
                if (k)
                    aa_buf_putc(b, ' ');
                put_value(b, v[k]);
            }
            aa_buf_putc(b, '"');
            if (n->flags & AA_NODE_THROTTLED)
                aa_buf_puts(b, " flags=\"throttled\"");
            aa_buf_puts(b, "/>\n");
        }
        aa_buf_puts(b, "    </thread>\n");
    }
    aa_buf_puts(b, "  </process>\n");
}

int aa_experiment_write_buf(const aa_experiment *e, aa_buf *b, aa_err *err)
{
    size_t i, p;
    int rc;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "no experiment to write");
    rc = aa_experiment_check(e, err);
    if (rc) {
        aa_err_prefix(err, "cannot write experiment");
        if (err)
            err->code = AA_EUSAGE;
        return AA_EUSAGE;
    }
    rc = check_regions(e->regions, e->nregions, err);
    if (rc)
        return rc;
    if (e->nprocs < 1 || e->nprocs > (1 << 24))
        return aa_err_set(err, AA_EUSAGE,
                          "cannot write experiment: nprocs is %d (must be 1..16777216)",
                          e->nprocs);
    for (p = 0; p < e->nprocesses; p++)
        if (e->processes[p].rank >= e->nprocs)
            return aa_err_set(err, AA_EUSAGE,
                              "cannot write experiment: rank %d is not below nprocs %d",
                              e->processes[p].rank, e->nprocs);

    aa_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<experiment xmlns=\""
                   AA_PROFILE_NS "\" version=\"1\"");
    put_attr(b, "id", e->id);
    put_attr(b, "program", e->program);
    put_int_attr(b, "nprocs", e->nprocs);
    aa_buf_puts(b, ">\n");

    if (e->nattrs) {
        aa_buf_puts(b, "  <environment>\n");
        put_attrs(b, e->attrs, e->nattrs, "    ");
        aa_buf_puts(b, "  </environment>\n");
    } else {
        aa_buf_puts(b, "  <environment/>\n");
    }

    if (e->nmetrics) {
        aa_buf_puts(b, "  <metrics>\n");
        for (i = 0; i < e->nmetrics; i++) {
            aa_buf_puts(b, "    <metric");
            put_attr(b, "name", e->metrics[i].name);
            put_attr(b, "unit", e->metrics[i].unit);
            aa_buf_puts(b, "/>\n");
        }
        aa_buf_puts(b, "  </metrics>\n");
    } else {
        aa_buf_puts(b, "  <metrics/>\n");
    }

    if (e->nregions) {
        aa_buf_puts(b, "  <regions>\n");
        for (i = 0; i < e->nregions; i++) {
            aa_region r = e->regions[i];
            /* a parent that names no region here is not written: the reader
             * refuses it (the runtime registers regions on first entry, so a
             * run paused at a parent's entry can leave one) */
            if (r.parent && !aa_experiment_region(e, r.parent))
                r.parent = 0;
            put_region(b, &r, "    ", NULL);
        }
        aa_buf_puts(b, "  </regions>\n");
    } else {
        aa_buf_puts(b, "  <regions/>\n");
    }

    for (p = 0; p < e->nprocesses; p++)
        put_process(e, &e->processes[p], b);
    aa_buf_puts(b, "</experiment>\n");
    if (b->failed)
        return aa_err_set(err, AA_EENV, "out of memory writing experiment");
    return AA_OK;
}

int aa_experiment_write(const aa_experiment *e, const char *path, aa_err *err)
{
    aa_buf b;
    int rc;
    aa_buf_init(&b);
    rc = aa_experiment_write_buf(e, &b, err);
    if (rc == AA_OK)
        rc = aa_write_file_atomic(path, b.data, b.len, err);
    else
        aa_err_prefix(err, "%s", path);
    aa_buf_free(&b);
    return rc;
}

static int cmp_region_ptr(const void *a, const void *b)
{
    uint32_t x = (*(const aa_region *const *)a)->id, y = (*(const aa_region *const *)b)->id;
    return x < y ? -1 : x > y;
}

int aa_regionmap_write_buf(const aa_regionmap *m, aa_buf *b, aa_err *err)
{
    size_t i;
    int rc;
    const aa_region **sorted;
    if (!m)
        return aa_err_set(err, AA_EUSAGE, "no region map to write");
    rc = check_regions(m->regions, m->nregions, err);
    if (rc)
        return rc;
    sorted = malloc((m->nregions ? m->nregions : 1) * sizeof *sorted);
    if (!sorted)
        return aa_err_set(err, AA_EENV, "out of memory writing region map");
    for (i = 0; i < m->nregions; i++)
        sorted[i] = &m->regions[i];
    qsort(sorted, m->nregions, sizeof *sorted, cmp_region_ptr);
    for (i = 1; i < m->nregions; i++)
        if (sorted[i]->id == sorted[i - 1]->id) {
            uint32_t dup = sorted[i]->id;
            free(sorted);
            return aa_err_set(err, AA_EUSAGE, "region map: duplicate region id %u", dup);
        }
    aa_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<regionmap xmlns=\"" AA_PROFILE_NS
                   "\" version=\"1\"");
    put_attr(b, "source", m->source);
    if (m->nregions == 0 && m->nskipped == 0) {
        aa_buf_puts(b, "/>\n");
    } else {
        aa_buf_puts(b, ">\n");
        for (i = 0; i < m->nregions; i++)
            put_region(b, sorted[i], "  ", NULL);
        /* not-instrumented entries after the regions, in the order given */
        for (i = 0; i < m->nskipped; i++)
            put_region(b, &m->skipped[i].region, "  ", m->skipped[i].reason);
        aa_buf_puts(b, "</regionmap>\n");
    }
    free(sorted);
    if (b->failed)
        return aa_err_set(err, AA_EENV, "out of memory writing region map");
    return AA_OK;
}

int aa_regionmap_write(const aa_regionmap *m, const char *path, aa_err *err)
{
    aa_buf b;
    int rc;
    aa_buf_init(&b);
    rc = aa_regionmap_write_buf(m, &b, err);
    if (rc == AA_OK)
        rc = aa_write_file_atomic(path, b.data, b.len, err);
    else
        aa_err_prefix(err, "%s", path);
    aa_buf_free(&b);
    return rc;
}
