/*
 * common/buf.c -- growable NUL-terminated string buffer.  An allocation
 * failure sets `failed` and drops further appends instead of aborting, so
 * code inside a measured program can use it too.
 */
#include "common/aa_common.h"

#include <stdlib.h>
#include <string.h>

void aa_buf_init(aa_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void aa_buf_free(aa_buf *b)
{
    free(b->data);
    aa_buf_init(b);
}

void aa_buf_reset(aa_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static int grow(aa_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;
    if (b->failed)
        return -1;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void aa_buf_add(aa_buf *b, const void *data, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void aa_buf_puts(aa_buf *b, const char *s) { aa_buf_add(b, s, strlen(s)); }

void aa_buf_putc(aa_buf *b, char c) { aa_buf_add(b, &c, 1); }

void aa_buf_printf(aa_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *aa_buf_detach(aa_buf *b)
{
    char *p = b->data;
    if (!p)
        p = calloc(1, 1);
    aa_buf_init(b);
    return p;
}
