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

/* Noise model (noise.c).  The run's relative noise of the clustered metric:
 * the median, over regions run by all P processes whose median self value
 * is at least min_value, of 1.4826 x MAD / median of their self values
 * (self: P x R, row per process).  0 when no region qualifies. */
double an_noise_relative(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double min_value, size_t *nused);
/* OPTICS eps of the level set[0..m) of the region tree (regions in
 * preorder, subtree of r = [r, subtree_end[r])): factor x noise_rel x
 * sqrt(2 x the sum of the squared median self values of every region in the
 * level's subtrees), at least resolution. */
double an_level_eps(const double *self, const unsigned char *ran, size_t P, size_t R,
                    const size_t *set, size_t m, const size_t *subtree_end, double noise_rel,
                    double factor, double resolution);

#endif
