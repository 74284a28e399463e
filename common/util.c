/*
 * common/util.c -- strict number parsing and exact number formatting,
 * string helpers (edit distance for "did you mean", glob matching).
 */
#include "common/aa_common.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int aa_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    /* strtod accepts "nan"/"inf" and hex floats; reject the former above. */
    *out = v;
    return 0;
}

int aa_parse_long(const char *s, long *out)
{
    char *end;
    long v;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

int aa_parse_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

void aa_format_double(char out[32], double v)
{
    int prec;
    if (v == 0) {
        strcpy(out, "0");
        return;
    }
    if (v == (double)(long long)v && fabs(v) < 1e15) {
        snprintf(out, 32, "%lld", (long long)v);
        return;
    }
    for (prec = 6; prec <= 17; prec++) {
        snprintf(out, 32, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

char *aa_strdup(const char *s) { return s ? strdup(s) : NULL; }

int aa_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    int *row, best;
    if (la > 256 || lb > 256)
        return 1000;
    row = malloc((lb + 1) * sizeof *row);
    if (!row)
        return 1000;
    for (j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (j = 1; j <= lb; j++) {
            int cur = row[j];
            int sub = prev + (a[i - 1] != b[j - 1]);
            int del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    best = row[lb];
    free(row);
    return best;
}

int aa_glob_match(const char *pattern, const char *s)
{
    return fnmatch(pattern, s, 0) == 0;
}
