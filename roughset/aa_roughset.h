/*
 * roughset/aa_roughset.h -- rough-set analysis of decision tables (SPEC
 * §5.4, §9): decision-relative discernibility matrix, core, reducts (all of
 * them for small attribute counts, a greedy one for large), per-object
 * discernibility functions and their prime implicants (local reducts), and
 * inconsistent pairs.  Attribute sets are bit masks, so at most 64
 * condition attributes.
 */
#ifndef AA_ROUGHSET_H
#define AA_ROUGHSET_H

#include <stddef.h>
#include <stdint.h>

#include "common/aa_common.h"

typedef uint64_t aa_attrset; /* bit a = condition attribute a */

typedef struct aa_dtable {
    size_t nobjects, nattrs;
    char **attr_names;  /* nattrs names */
    char **object_ids;  /* nobjects ids */
    int *values;        /* nobjects * nattrs condition values, row-major */
    int *decision;      /* nobjects decision values */
} aa_dtable;

/* Builds an empty table; names are copied.  NULL on no memory. */
aa_dtable *aa_roughset_table_new(size_t nobjects, size_t nattrs, const char *const *attr_names);
int aa_roughset_table_set_object(aa_dtable *t, size_t obj, const char *id, const int *values,
                                 int decision);
void aa_roughset_table_free(aa_dtable *t);

typedef struct aa_rs_pair {
    size_t a, b; /* object indices, a < b */
} aa_rs_pair;

typedef struct aa_roughset_result {
    aa_attrset core;
    size_t nreducts;
    aa_attrset *reducts;      /* sorted: by size, then by attribute order */
    int reducts_greedy;       /* 1 when only a greedy reduct was computed */
    size_t ninconsistent;
    aa_rs_pair *inconsistent; /* pairs with equal conditions, different decisions */
    /* local reducts (prime implicants of each object's discernibility
     * function), sorted as reducts */
    size_t *nlocal;           /* by object */
    aa_attrset **local;       /* by object */
    /* additions (after the original fields) */
    size_t ninconsistent_total; /* all such pairs; `inconsistent` lists at most 100,000 */
    int local_greedy;           /* 1 when some object's enumeration was too large and
                                   only a greedy local reduct was computed */
} aa_roughset_result;

int aa_roughset_analyze(const aa_dtable *t, aa_roughset_result *out, aa_err *err);
void aa_roughset_result_free(aa_roughset_result *r, size_t nobjects);

/* The shortest local reduct of object obj (lowest attribute order among
 * equals); 0 when the object has none (e.g. no other decision class). */
aa_attrset aa_roughset_shortest_local(const aa_roughset_result *r, size_t obj);

#endif
