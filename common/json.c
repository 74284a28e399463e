/*
 * common/json.c -- streaming JSON writer used by every --json output.
 * Commas and indentation are handled here so callers only say what to
 * write; strings are escaped per RFC 8259, non-finite numbers become null.
 */
#include "common/aa_common.h"

#include <math.h>
#include <string.h>

void aa_json_init(aa_json *j, aa_buf *out, int pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
    j->first[0] = 1;
}

static void newline(aa_json *j)
{
    int i;
    if (!j->pretty)
        return;
    aa_buf_putc(j->out, '\n');
    for (i = 0; i < j->depth; i++)
        aa_buf_puts(j->out, "  ");
}

/* Called before every value and key. */
static void pre_value(aa_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (!j->first[j->depth])
            aa_buf_putc(j->out, ',');
        newline(j);
    }
    j->first[j->depth] = 0;
}

static void open_(aa_json *j, char c)
{
    pre_value(j);
    aa_buf_putc(j->out, c);
    if (j->depth < (int)sizeof j->first - 1)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(aa_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty)
        newline(j);
    aa_buf_putc(j->out, c);
}

void aa_json_obj_begin(aa_json *j) { open_(j, '{'); }
void aa_json_obj_end(aa_json *j) { close_(j, '}'); }
void aa_json_arr_begin(aa_json *j) { open_(j, '['); }
void aa_json_arr_end(aa_json *j) { close_(j, ']'); }

void aa_json_escape(aa_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    aa_buf_putc(b, '"');
    for (; *p; p++) {
        switch (*p) {
        case '"': aa_buf_puts(b, "\\\""); break;
        case '\\': aa_buf_puts(b, "\\\\"); break;
        case '\n': aa_buf_puts(b, "\\n"); break;
        case '\r': aa_buf_puts(b, "\\r"); break;
        case '\t': aa_buf_puts(b, "\\t"); break;
        case '\b': aa_buf_puts(b, "\\b"); break;
        case '\f': aa_buf_puts(b, "\\f"); break;
        default:
            if (*p < 0x20)
                aa_buf_printf(b, "\\u%04x", *p);
            else
                aa_buf_putc(b, (char)*p);
        }
    }
    aa_buf_putc(b, '"');
}

void aa_json_key(aa_json *j, const char *key)
{
    pre_value(j);
    aa_json_escape(j->out, key);
    aa_buf_puts(j->out, j->pretty ? ": " : ":");
    j->after_key = 1;
}

void aa_json_str(aa_json *j, const char *s)
{
    pre_value(j);
    aa_json_escape(j->out, s);
}

void aa_json_num(aa_json *j, double v)
{
    char tmp[32];
    pre_value(j);
    if (!isfinite(v)) {
        aa_buf_puts(j->out, "null");
        return;
    }
    aa_format_double(tmp, v);
    aa_buf_puts(j->out, tmp);
}

void aa_json_int(aa_json *j, long long v)
{
    pre_value(j);
    aa_buf_printf(j->out, "%lld", v);
}

void aa_json_bool(aa_json *j, int v)
{
    pre_value(j);
    aa_buf_puts(j->out, v ? "true" : "false");
}

void aa_json_null(aa_json *j)
{
    pre_value(j);
    aa_buf_puts(j->out, "null");
}
