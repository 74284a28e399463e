/*
 * analyze/an_internal.h -- private to analyze/: the attribute table shared
 * by the analysis (analyze.c) and the renderings (render.c), and small
 * helpers for growable string lists.
 */
#ifndef AA_AN_INTERNAL_H
#define AA_AN_INTERNAL_H

#include <stddef.h>

enum an_attr_kind { AN_ONE, AN_SUM, AN_RATE };

typedef struct an_attr_def {
    const char *name;
    const char *m1, *m2; /* base metrics */
    int kind;            /* an_attr_kind */
    int is_default;
    const char *suggest;       /* one-line suggestion when it is a cause */
    const char *suggest_dissim; /* for dissimilarity findings (NULL = suggest) */
} an_attr_def;

const an_attr_def *an_attr_table(size_t *n);
const an_attr_def *an_attr_find(const char *name);

/* Appends a copy of s to a string list; -1 on no memory. */
int an_strlist_add(char ***list, size_t *n, const char *s);
void an_strlist_free(char **list, size_t n);

#endif
