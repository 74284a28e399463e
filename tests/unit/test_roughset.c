/*
 * tests/unit/test_roughset.c -- rough sets: a decision table worked out by
 * hand (the SPEC §5.4 example where object x8's function is a3 v (a1 ^ a5),
 * an inconsistent pair, core, all reducts, every object's local reducts), a
 * table with a nonempty core, and property tests on random tables against
 * exhaustive subset enumeration (reducts and local reducts are exactly the
 * minimal attribute sets that preserve discernibility; core = intersection
 * of the reducts).
 */
#include "roughset/aa_roughset.h"
#include "tests/tap.h"

#include <stdlib.h>

#define S(...) set_of((int[]){__VA_ARGS__, 0})
static aa_attrset set_of(const int *a) /* 1-based attribute numbers, 0-terminated */
{
    aa_attrset s = 0;
    for (; *a; a++)
        s |= (aa_attrset)1 << (*a - 1);
    return s;
}

static unsigned long long rs = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(unsigned m)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (unsigned)(rs % m);
}

static void spec_example(void)
{
    const char *names[] = {"a1", "a2", "a3", "a4", "a5"};
    /* id, a1..a5, decision */
    struct { const char *id; int v[5]; int d; } rows[] = {
        {"x8", {0, 0, 1, 0, 0}, 1}, {"y1", {1, 0, 0, 0, 0}, 0}, {"y2", {0, 0, 0, 0, 1}, 0},
        {"y3", {1, 0, 0, 1, 1}, 0}, {"z", {0, 1, 0, 0, 0}, 1},  {"w", {1, 0, 0, 0, 0}, 1},
    };
    aa_dtable *t = aa_roughset_table_new(6, 5, names);
    aa_roughset_result r;
    aa_err err;
    size_t i;
    for (i = 0; i < 6; i++)
        aa_roughset_table_set_object(t, i, rows[i].id, rows[i].v, rows[i].d);
    is_int(aa_roughset_analyze(t, &r, &err), 0, "analyze runs");
    ok(r.ninconsistent == 1 && r.inconsistent[0].a == 1 && r.inconsistent[0].b == 5 &&
           r.ninconsistent_total == 1,
       "inconsistent pair (y1, w): equal conditions, different decisions");
    is_int(r.core, 0, "core is empty (no entry is a single attribute)");
    ok(r.nreducts == 3 && r.reducts[0] == S(1, 5) && r.reducts[1] == S(2, 3, 5) &&
           r.reducts[2] == S(1, 2, 3, 4) && !r.reducts_greedy,
       "reducts {a1,a5} {a2,a3,a5} {a1,a2,a3,a4}, sorted by size");
    ok(r.nlocal[0] == 2 && r.local[0][0] == S(3) && r.local[0][1] == S(1, 5),
       "x8: a3 v (a1 ^ a5) -> local reducts {a3}, {a1,a5}");
    is_int(aa_roughset_shortest_local(&r, 0), S(3), "x8: shortest local reduct {a3}");
    ok(r.nlocal[1] == 2 && r.local[1][0] == S(1) && r.local[1][1] == S(2, 3),
       "y1 (empty entry with w skipped): {a1}, {a2,a3}");
    ok(r.nlocal[2] == 2 && r.local[2][0] == S(5) && r.local[2][1] == S(1, 2, 3),
       "y2: {a5}, {a1,a2,a3}");
    ok(r.nlocal[3] == 2 && r.local[3][0] == S(4) && r.local[3][1] == S(5),
       "y3: supersets absorbed by {a4,a5} -> {a4}, {a5}");
    ok(r.nlocal[4] == 2 && r.local[4][0] == S(2) && r.local[4][1] == S(1, 5), "z: {a2}, {a1,a5}");
    ok(r.nlocal[5] == 2 && r.local[5][0] == S(5) && r.local[5][1] == S(1, 4), "w: {a5}, {a1,a4}");
    aa_roughset_result_free(&r, 6);
    aa_roughset_table_free(t);
}

static void core_example(void)
{
    int v[3][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 1}}, d[3] = {0, 1, 0};
    aa_dtable *t = aa_roughset_table_new(3, 3, NULL);
    aa_roughset_result r;
    aa_err err;
    size_t i;
    for (i = 0; i < 3; i++)
        aa_roughset_table_set_object(t, i, NULL, v[i], d[i]);
    aa_roughset_analyze(t, &r, &err);
    is_str(t->attr_names[2], "a3", "default attribute names a1..");
    is_int(r.core, S(1), "core {a1} (entry o1/o2 is {a1} alone)");
    ok(r.nreducts == 2 && r.reducts[0] == S(1, 2) && r.reducts[1] == S(1, 3),
       "reducts {a1,a2}, {a1,a3}");
    ok(r.ninconsistent == 0, "consistent");
    aa_roughset_result_free(&r, 3);
    aa_roughset_table_free(t);

    /* one decision class: nothing to discern */
    t = aa_roughset_table_new(2, 2, NULL);
    aa_roughset_table_set_object(t, 0, "p", (int[]){1, 2}, 7);
    aa_roughset_table_set_object(t, 1, "q", (int[]){3, 4}, 7);
    aa_roughset_analyze(t, &r, &err);
    ok(r.nreducts == 0 && r.core == 0 && r.nlocal[0] == 0 &&
           aa_roughset_shortest_local(&r, 0) == 0,
       "one decision class: no entries, no reducts, no local reducts");
    aa_roughset_result_free(&r, 2);
    aa_roughset_table_free(t);
}

/* every nonempty entry hit? */
static int hits_all(const aa_dtable *t, aa_attrset h, long only)
{
    size_t x, y, k;
    for (x = 0; x < t->nobjects; x++) {
        if (only >= 0 && (size_t)only != x)
            continue;
        for (y = 0; y < t->nobjects; y++) {
            aa_attrset m = 0;
            if (t->decision[x] == t->decision[y])
                continue;
            for (k = 0; k < t->nattrs; k++)
                if (t->values[x * t->nattrs + k] != t->values[y * t->nattrs + k])
                    m |= (aa_attrset)1 << k;
            if (m && !(m & h))
                return 0;
        }
    }
    return 1;
}

static int minimal_preserving(const aa_dtable *t, aa_attrset h, long only)
{
    size_t k;
    if (!hits_all(t, h, only))
        return 0;
    for (k = 0; k < t->nattrs; k++)
        if ((h >> k & 1) && hits_all(t, h & ~((aa_attrset)1 << k), only))
            return 0;
    return 1;
}

static void property(void)
{
    int seed, bad = 0;
    for (seed = 0; seed < 300; seed++) {
        size_t na = 1 + rnd(8), n = 1 + rnd(12), i, k, cnt;
        unsigned vals = 2 + rnd(2);
        aa_dtable *t = aa_roughset_table_new(n, na, NULL);
        aa_roughset_result r;
        aa_err err;
        aa_attrset s, inter = ~(aa_attrset)0;
        for (i = 0; i < n; i++) {
            int v[8];
            for (k = 0; k < na; k++)
                v[k] = (int)rnd(vals);
            aa_roughset_table_set_object(t, i, NULL, v, (int)rnd(2 + rnd(2)));
        }
        if (aa_roughset_analyze(t, &r, &err)) {
            bad++;
            continue;
        }
        /* reducts == all minimal preserving subsets (when there is something to hit) */
        cnt = 0;
        for (s = 0; s < ((aa_attrset)1 << na); s++)
            if (s && minimal_preserving(t, s, -1))
                cnt++;
        for (i = 0; i < r.nreducts; i++) {
            if (!minimal_preserving(t, r.reducts[i], -1))
                bad++;
            inter &= r.reducts[i];
        }
        if (cnt != r.nreducts)
            bad++;
        if (r.nreducts && inter != r.core)
            bad++;
        for (i = 0; i < n; i++) {
            size_t j;
            cnt = 0;
            for (s = 1; s < ((aa_attrset)1 << na); s++)
                if (minimal_preserving(t, s, (long)i))
                    cnt++;
            if (cnt != r.nlocal[i])
                bad++;
            for (j = 0; j < r.nlocal[i]; j++)
                if (!minimal_preserving(t, r.local[i][j], (long)i))
                    bad++;
        }
        if (bad)
            diag("seed %d: mismatch", seed);
        aa_roughset_result_free(&r, n);
        aa_roughset_table_free(t);
        if (bad)
            break;
    }
    ok(bad == 0, "300 random tables: reducts and local reducts = exhaustive minimal sets, "
                 "core = intersection of reducts");
}

static void greedy_large(void)
{
    size_t na = 30, n = 40, i, k;
    aa_dtable *t = aa_roughset_table_new(n, na, NULL);
    aa_roughset_result r;
    aa_err err;
    for (i = 0; i < n; i++) {
        int v[30];
        for (k = 0; k < na; k++)
            v[k] = (int)rnd(3);
        aa_roughset_table_set_object(t, i, NULL, v, (int)(i % 3));
    }
    aa_roughset_analyze(t, &r, &err);
    ok(r.reducts_greedy && r.nreducts == 1 && minimal_preserving(t, r.reducts[0], -1),
       "30 attributes: one greedy reduct, flagged, minimal and preserving");
    aa_roughset_result_free(&r, n);
    aa_roughset_table_free(t);
}

int main(void)
{
    spec_example();
    core_example();
    property();
    greedy_large();
    return tap_done();
}
