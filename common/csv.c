/*
 * common/csv.c -- strict CSV reader (see common/aa_csv.h).  Responsible for
 * splitting text into rows and fields with exact line/column positions, the
 * optional header row, and the numeric-matrix view used by `cluster`.  Every
 * malformed input is reported as AA_EINPUT "FILE:LINE:COL: what"; nothing is
 * half-filled on error.
 */
#include "common/aa_csv.h"

#include <stdlib.h>
#include <string.h>

typedef struct field {
    char *text;
    size_t line, col;
} field;

typedef struct parser {
    const char *name;
    const char *s;
    size_t len, pos, line, col;
    aa_err *err;
} parser;

static int perr(parser *p, size_t line, size_t col, const char *what)
{
    return aa_err_set(p->err, AA_EINPUT, "%s:%zu:%zu: %s", p->name, line, col, what);
}

static int at_eol(const parser *p)
{
    if (p->pos >= p->len || p->s[p->pos] == '\n')
        return 1;
    return p->s[p->pos] == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n';
}

static void advance(parser *p)
{
    if (p->s[p->pos] == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    p->pos++;
}

static void skip_eol(parser *p)
{
    if (p->pos < p->len && p->s[p->pos] == '\r')
        advance(p);
    if (p->pos < p->len && p->s[p->pos] == '\n')
        advance(p);
}

static void skip_blanks(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
        advance(p);
}

/* Reads one field; leaves pos at ',' or end of line. */
static int read_field(parser *p, field *f)
{
    aa_buf b;
    aa_buf_init(&b);
    skip_blanks(p);
    f->line = p->line;
    f->col = p->col;
    if (p->pos < p->len && p->s[p->pos] == '"') {
        size_t ql = p->line, qc = p->col;
        advance(p);
        for (;;) {
            char c;
            if (p->pos >= p->len) {
                aa_buf_free(&b);
                return perr(p, ql, qc, "unterminated quoted field");
            }
            c = p->s[p->pos];
            if (c == '\0') {
                aa_buf_free(&b);
                return perr(p, p->line, p->col, "NUL byte in field");
            }
            if (c == '"') {
                if (p->pos + 1 < p->len && p->s[p->pos + 1] == '"') {
                    aa_buf_putc(&b, '"');
                    advance(p);
                    advance(p);
                    continue;
                }
                advance(p);
                break;
            }
            aa_buf_putc(&b, c);
            advance(p);
        }
        skip_blanks(p);
        if (!at_eol(p) && p->s[p->pos] != ',') {
            aa_buf_free(&b);
            return perr(p, p->line, p->col, "unexpected character after closing quote");
        }
    } else {
        size_t end = 0; /* length without trailing blanks */
        while (!at_eol(p) && p->s[p->pos] != ',') {
            char c = p->s[p->pos];
            if (c == '"') {
                aa_buf_free(&b);
                return perr(p, p->line, p->col, "quote inside an unquoted field");
            }
            if (c == '\r') {
                aa_buf_free(&b);
                return perr(p, p->line, p->col, "carriage return not followed by a line feed");
            }
            if (c == '\0') {
                aa_buf_free(&b);
                return perr(p, p->line, p->col, "NUL byte in field");
            }
            aa_buf_putc(&b, c);
            if (c != ' ' && c != '\t')
                end = b.len;
            advance(p);
        }
        b.len = end;
        if (b.data)
            b.data[end] = '\0';
    }
    if (b.failed) {
        aa_buf_free(&b);
        return aa_err_set(p->err, AA_EENV, "%s: out of memory", p->name);
    }
    f->text = b.data ? aa_buf_detach(&b) : aa_strdup("");
    if (!f->text)
        return aa_err_set(p->err, AA_EENV, "%s: out of memory", p->name);
    return AA_OK;
}

/* Is the rest of the current line blank? */
static int blank_line(const parser *p)
{
    size_t i = p->pos;
    while (i < p->len && (p->s[i] == ' ' || p->s[i] == '\t'))
        i++;
    if (i >= p->len || p->s[i] == '\n')
        return 1;
    return p->s[i] == '\r' && i + 1 < p->len && p->s[i + 1] == '\n';
}

void aa_csv_free(aa_csv *c)
{
    size_t i;
    if (!c)
        return;
    if (c->header) {
        for (i = 0; i < c->ncols; i++)
            free(c->header[i]);
        free(c->header);
    }
    if (c->cells) {
        for (i = 0; i < c->nrows * c->ncols; i++)
            free(c->cells[i]);
        free(c->cells);
    }
    free(c->cpos);
    free(c->lines);
    free(c->name);
    memset(c, 0, sizeof *c);
}

static int is_number(const char *s)
{
    double v;
    return aa_parse_double(s, &v) == 0;
}

int aa_csv_parse(const char *name, const char *text, size_t len, int header_mode,
                 size_t numeric_from, aa_csv *out, aa_err *err)
{
    parser p = {name, text, len, 0, 1, 1, err};
    field *fs = NULL;
    size_t nf = 0, capf = 0, ncols = 0, nrows_total = 0, first_line = 0;
    size_t *rowline = NULL, caprl = 0;
    int rc = AA_OK;
    size_t i;

    memset(out, 0, sizeof *out);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.pos = 3; /* UTF-8 byte order mark; columns count from after it */
    while (p.pos < p.len) {
        size_t start_nf = nf, row_line = p.line, k;
        if (blank_line(&p)) {
            while (!at_eol(&p))
                advance(&p);
            skip_eol(&p);
            continue;
        }
        for (;;) {
            if (nf == capf) {
                size_t nc = capf ? capf * 2 : 64;
                field *t = realloc(fs, nc * sizeof *t);
                if (!t) {
                    rc = aa_err_set(err, AA_EENV, "%s: out of memory", name);
                    goto done;
                }
                fs = t;
                capf = nc;
            }
            rc = read_field(&p, &fs[nf]);
            if (rc)
                goto done;
            nf++;
            if (ncols && nf - start_nf > ncols) {
                rc = aa_err_set(err, AA_EINPUT,
                                "%s:%zu:%zu: too many fields (expected %zu, as in line %zu)",
                                name, fs[nf - 1].line, fs[nf - 1].col, ncols, first_line);
                goto done;
            }
            if (p.pos < p.len && p.s[p.pos] == ',') {
                advance(&p);
                continue;
            }
            break;
        }
        k = nf - start_nf;
        if (!ncols) {
            ncols = k;
            first_line = row_line;
        } else if (k != ncols) {
            rc = aa_err_set(err, AA_EINPUT,
                            "%s:%zu:%zu: too few fields (%zu, expected %zu as in line %zu)", name,
                            p.line, p.col, k, ncols, first_line);
            goto done;
        }
        if (nrows_total == caprl) {
            size_t nc = caprl ? caprl * 2 : 64;
            size_t *t = realloc(rowline, nc * sizeof *t);
            if (!t) {
                rc = aa_err_set(err, AA_EENV, "%s: out of memory", name);
                goto done;
            }
            rowline = t;
            caprl = nc;
        }
        rowline[nrows_total++] = fs[start_nf].line;
        skip_eol(&p);
    }

    {
        size_t skip = 0, r;
        int header = 0;
        if (nrows_total && header_mode == AA_CSV_HEADER_ALWAYS)
            header = 1;
        else if (nrows_total && header_mode == AA_CSV_HEADER_AUTO) {
            for (i = numeric_from; i < ncols; i++)
                if (!is_number(fs[i].text))
                    header = 1;
        }
        out->name = aa_strdup(name);
        out->ncols = ncols;
        if (!out->name) {
            rc = aa_err_set(err, AA_EENV, "%s: out of memory", name);
            goto done;
        }
        if (header) {
            out->header = calloc(ncols, sizeof *out->header);
            if (!out->header) {
                rc = aa_err_set(err, AA_EENV, "%s: out of memory", name);
                goto done;
            }
            for (i = 0; i < ncols; i++) {
                out->header[i] = fs[i].text;
                fs[i].text = NULL;
            }
            skip = ncols;
        }
        out->nrows = nrows_total - (header ? 1 : 0);
        out->cells = calloc(out->nrows * ncols + 1, sizeof *out->cells);
        out->cpos = calloc(out->nrows * ncols + 1, sizeof *out->cpos);
        out->lines = calloc(out->nrows + 1, sizeof *out->lines);
        if (!out->cells || !out->cpos || !out->lines) {
            rc = aa_err_set(err, AA_EENV, "%s: out of memory", name);
            goto done;
        }
        for (i = 0; i < out->nrows * ncols; i++) {
            out->cells[i] = fs[skip + i].text;
            out->cpos[i] = fs[skip + i].col;
            fs[skip + i].text = NULL;
        }
        for (r = 0; r < out->nrows; r++)
            out->lines[r] = rowline[r + (header ? 1 : 0)];
    }

done:
    for (i = 0; i < nf; i++)
        free(fs[i].text);
    free(fs);
    free(rowline);
    if (rc)
        aa_csv_free(out);
    return rc;
}

int aa_csv_read(const char *path, int header_mode, size_t numeric_from, aa_csv *out,
                aa_err *err)
{
    char *text;
    size_t len;
    int rc;
    memset(out, 0, sizeof *out);
    rc = aa_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = aa_csv_parse(path, text, len, header_mode, numeric_from, out, err);
    free(text);
    return rc;
}

int aa_csv_cell_error(const aa_csv *c, size_t row, size_t col, aa_err *err, const char *fmt,
                      ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return aa_err_set(err, AA_EINPUT, "%s:%zu:%zu: %s", c->name, c->lines[row],
                      c->cpos[row * c->ncols + col], what);
}

void aa_csv_matrix_free(aa_csv_matrix *m)
{
    size_t i;
    if (!m)
        return;
    if (m->header) {
        for (i = 0; i < m->ncols; i++)
            free(m->header[i]);
        free(m->header);
    }
    free(m->x);
    memset(m, 0, sizeof *m);
}

static int to_matrix(aa_csv *c, aa_csv_matrix *m, aa_err *err)
{
    size_t r, j;
    memset(m, 0, sizeof *m);
    if (c->nrows == 0)
        return aa_err_set(err, AA_EINPUT, "%s:1:1: no data rows", c->name);
    m->x = malloc(c->nrows * c->ncols * sizeof *m->x);
    if (!m->x)
        return aa_err_set(err, AA_EENV, "%s: out of memory", c->name);
    for (r = 0; r < c->nrows; r++)
        for (j = 0; j < c->ncols; j++) {
            const char *s = c->cells[r * c->ncols + j];
            double v;
            if (aa_parse_double(s, &v) != 0) {
                int rc;
                if (!*s)
                    rc = aa_csv_cell_error(c, r, j, err, "empty field (a number is needed)");
                else
                    rc = aa_csv_cell_error(c, r, j, err, "'%.64s' is not a finite number", s);
                free(m->x);
                m->x = NULL;
                return rc;
            }
            m->x[r * c->ncols + j] = v;
        }
    m->nrows = c->nrows;
    m->ncols = c->ncols;
    m->header = c->header;
    c->header = NULL;
    return AA_OK;
}

int aa_csv_parse_matrix(const char *name, const char *text, size_t len, aa_csv_matrix *m,
                        aa_err *err)
{
    aa_csv c;
    int rc = aa_csv_parse(name, text, len, AA_CSV_HEADER_AUTO, 0, &c, err);
    memset(m, 0, sizeof *m);
    if (rc)
        return rc;
    rc = to_matrix(&c, m, err);
    aa_csv_free(&c);
    return rc;
}

int aa_csv_read_matrix(const char *path, aa_csv_matrix *m, aa_err *err)
{
    aa_csv c;
    int rc = aa_csv_read(path, AA_CSV_HEADER_AUTO, 0, &c, err);
    memset(m, 0, sizeof *m);
    if (rc)
        return rc;
    rc = to_matrix(&c, m, err);
    aa_csv_free(&c);
    return rc;
}
