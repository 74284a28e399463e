/*
 * tests/unit/test_analyze_util.h -- helpers shared by the analyze/ unit
 * tests: static regions of a hand-built experiment.
 */
#ifndef AA_TEST_ANALYZE_UTIL_H
#define AA_TEST_ANALYZE_UTIL_H

#include "profile/aa_profile.h"

#include <string.h>

/* Region id with the given parent, kind and name, in function "f" of t.c
 * at line 10 x id (the program region: no function, no file). */
static void add_region(aa_experiment *e, uint32_t id, uint32_t parent, const char *name,
                       aa_region_kind kind)
{
    aa_region r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.parent = parent;
    r.kind = kind;
    r.name = (char *)name;
    r.function = (char *)(id ? "f" : "");
    r.file = (char *)(id ? "t.c" : "");
    r.line = (int)id * 10;
    aa_experiment_add_region(e, &r);
}

#endif
