/*
 * common/rankset.c -- writes a set of process ranks compactly for people and
 * for summaries other tools read: runs of consecutive ranks as "0-1535",
 * arithmetic progressions of at least three ranks as "1-2045:4" (first-last:
 * step), everything else one by one, comma-separated ("0-3,8,10-30:10");
 * when it is shorter, as a union of residue classes modulo a small step, each
 * written that way ("0-2046:2,3-2047:4" for all ranks but every fourth).
 * The text, HTML and JSON renderings all use this one writer.
 */
#include "common/aa_common.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* Length of the progression starting at r[i] with the step r[i+1]-r[i]. */
static size_t run_length(const int *r, size_t n, size_t i, long *step)
{
    size_t j = i + 1;
    if (j >= n) {
        *step = 0;
        return 1;
    }
    *step = (long)r[j] - r[i];
    while (j + 1 < n && (long)r[j + 1] - r[j] == *step)
        j++;
    return j - i + 1;
}

static void put_sorted(aa_buf *out, const int *r, size_t n)
{
    size_t i = 0;
    int first = 1;
    while (i < n) {
        long step;
        size_t len = run_length(r, n, i, &step);
        aa_buf_puts(out, first ? "" : ",");
        first = 0;
        if (step == 1 && len >= 2) {
            aa_buf_printf(out, "%d-%d", r[i], r[i + len - 1]);
            i += len;
        } else if (step > 1 && len >= 3) {
            aa_buf_printf(out, "%d-%d:%ld", r[i], r[i + len - 1], step);
            i += len;
        } else {
            aa_buf_printf(out, "%d", r[i]);
            i++;
        }
    }
}

/* The same set as a union of residue classes modulo step, each written as
 * above: every fourth rank but one is "0-2046:2,3-2047:4".  Classes are
 * written in the order of their first rank. */
static void put_classes(aa_buf *out, const int *r, size_t n, int step, int *tmp)
{
    int c, first = 1;
    for (c = 0; c < step; c++) {
        size_t i, m = 0;
        for (i = 0; i < n; i++)
            if (((long)r[i] - r[0]) % step == c)
                tmp[m++] = r[i];
        if (!m)
            continue;
        aa_buf_puts(out, first ? "" : ",");
        first = 0;
        put_sorted(out, tmp, m);
    }
}

#define MAX_CLASS_STEP 16

void aa_put_rankset(aa_buf *out, const int *ranks, size_t n)
{
    int *s, *tmp, step, best_step = 1;
    size_t i, m = 0, best;
    aa_buf b;
    if (!n)
        return;
    s = malloc(n * sizeof *s);
    tmp = malloc(n * sizeof *tmp);
    if (!s || !tmp) {
        free(s);
        free(tmp);
        out->failed = 1;
        return;
    }
    memcpy(s, ranks, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_int);
    for (i = 0; i < n; i++) /* drop duplicates */
        if (!m || s[m - 1] != s[i])
            s[m++] = s[i];
    /* the shortest of: sorted runs, or classes modulo a small step */
    aa_buf_init(&b);
    put_sorted(&b, s, m);
    best = b.len;
    for (step = 2; step <= MAX_CLASS_STEP && m > 3; step++) {
        aa_buf_reset(&b);
        put_classes(&b, s, m, step, tmp);
        if (!b.failed && b.len < best) {
            best = b.len;
            best_step = step;
        }
    }
    aa_buf_free(&b);
    if (best_step == 1)
        put_sorted(out, s, m);
    else
        put_classes(out, s, m, best_step, tmp);
    free(s);
    free(tmp);
}

char *aa_rankset_str(const int *ranks, size_t n)
{
    aa_buf b;
    aa_buf_init(&b);
    aa_put_rankset(&b, ranks, n);
    if (b.failed) {
        aa_buf_free(&b);
        return NULL;
    }
    if (!b.len) {
        aa_buf_free(&b);
        return aa_strdup("");
    }
    return aa_buf_detach(&b);
}
