/*
 * roughset/roughset.c -- rough-set analysis of a decision table (SPEC §5.4):
 * decision-relative discernibility matrix, core, reducts, local reducts
 * (prime implicants of each object's discernibility function) and the
 * inconsistent pairs.
 *
 * Every matrix entry is a bit set of attributes; a reduct is a minimal
 * hitting set of the (absorbed) family of nonempty entries, and an object's
 * local reducts are the minimal hitting sets of its own entries (a monotone
 * CNF's prime implicants).  Objects with equal conditions and decision share
 * one class, so the matrix is computed over distinct rows only.  Minimal
 * hitting sets are enumerated exactly by branching on the smallest unhit
 * set (each set found once); past AA_RS_EXACT_ATTRS attributes, or when the
 * enumeration grows too large, a greedy reduct is computed and flagged.
 */
#include "roughset/aa_roughset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AA_RS_EXACT_ATTRS 20
#define AA_RS_NODE_LIMIT 2000000
#define AA_RS_PAIR_LIMIT 100000

aa_dtable *aa_roughset_table_new(size_t nobjects, size_t nattrs, const char *const *attr_names)
{
    aa_dtable *t = calloc(1, sizeof *t);
    size_t i;
    if (!t)
        return NULL;
    t->nobjects = nobjects;
    t->nattrs = nattrs;
    t->attr_names = calloc(nattrs ? nattrs : 1, sizeof *t->attr_names);
    t->object_ids = calloc(nobjects ? nobjects : 1, sizeof *t->object_ids);
    t->values = calloc(nobjects * nattrs + 1, sizeof *t->values);
    t->decision = calloc(nobjects ? nobjects : 1, sizeof *t->decision);
    if (!t->attr_names || !t->object_ids || !t->values || !t->decision) {
        aa_roughset_table_free(t);
        return NULL;
    }
    for (i = 0; i < nattrs; i++) {
        char tmp[32];
        const char *nm = attr_names && attr_names[i] ? attr_names[i] : NULL;
        if (!nm) {
            snprintf(tmp, sizeof tmp, "a%zu", i + 1);
            nm = tmp;
        }
        t->attr_names[i] = aa_strdup(nm);
        if (!t->attr_names[i]) {
            aa_roughset_table_free(t);
            return NULL;
        }
    }
    return t;
}

int aa_roughset_table_set_object(aa_dtable *t, size_t obj, const char *id, const int *values,
                                 int decision)
{
    char tmp[32];
    if (!t || obj >= t->nobjects)
        return AA_EUSAGE;
    if (!id) {
        snprintf(tmp, sizeof tmp, "%zu", obj);
        id = tmp;
    }
    free(t->object_ids[obj]);
    t->object_ids[obj] = aa_strdup(id);
    if (!t->object_ids[obj])
        return AA_EENV;
    if (t->nattrs)
        memcpy(t->values + obj * t->nattrs, values, t->nattrs * sizeof *values);
    t->decision[obj] = decision;
    return AA_OK;
}

void aa_roughset_table_free(aa_dtable *t)
{
    size_t i;
    if (!t)
        return;
    if (t->attr_names)
        for (i = 0; i < t->nattrs; i++)
            free(t->attr_names[i]);
    if (t->object_ids)
        for (i = 0; i < t->nobjects; i++)
            free(t->object_ids[i]);
    free(t->attr_names);
    free(t->object_ids);
    free(t->values);
    free(t->decision);
    free(t);
}

void aa_roughset_result_free(aa_roughset_result *r, size_t nobjects)
{
    size_t i;
    if (!r)
        return;
    free(r->reducts);
    free(r->inconsistent);
    if (r->local)
        for (i = 0; i < nobjects; i++)
            free(r->local[i]);
    free(r->local);
    free(r->nlocal);
    memset(r, 0, sizeof *r);
}

/* ---- attribute-set helpers ------------------------------------------- */
static int popc(aa_attrset s) { return __builtin_popcountll(s); }

/* By size, then by attribute order (the set whose smallest differing
 * attribute is its own comes first). */
static int cmp_set(const void *a, const void *b)
{
    aa_attrset x = *(const aa_attrset *)a, y = *(const aa_attrset *)b, d;
    if (popc(x) != popc(y))
        return popc(x) < popc(y) ? -1 : 1;
    if (x == y)
        return 0;
    d = x ^ y;
    d &= -d;
    return (x & d) ? -1 : 1;
}

/* Sorts, removes duplicates and supersets (absorption); returns the new count. */
static size_t absorb(aa_attrset *s, size_t n)
{
    size_t i, j, m = 0;
    if (n == 0)
        return 0;
    qsort(s, n, sizeof *s, cmp_set);
    for (i = 0; i < n; i++) {
        int keep = 1;
        for (j = 0; j < m; j++)
            if ((s[j] & s[i]) == s[j]) { /* an earlier (not larger) subset */
                keep = 0;
                break;
            }
        if (keep)
            s[m++] = s[i];
    }
    return m;
}

typedef struct mhs {
    const aa_attrset *f;
    size_t nf;
    aa_attrset *out;
    size_t nout, cap;
    long nodes;
    int overflow;
} mhs;

static int minimal(const mhs *m, aa_attrset h)
{
    aa_attrset rest = h;
    while (rest) {
        aa_attrset e = rest & -rest;
        size_t i;
        int priv = 0;
        rest &= rest - 1;
        for (i = 0; i < m->nf && !priv; i++)
            if ((m->f[i] & h) == e)
                priv = 1;
        if (!priv)
            return 0;
    }
    return 1;
}

static void mhs_rec(mhs *m, aa_attrset chosen, aa_attrset excluded)
{
    size_t i, pick = m->nf;
    int best = 65;
    aa_attrset cand;
    if (m->overflow)
        return;
    if (++m->nodes > AA_RS_NODE_LIMIT) {
        m->overflow = 1;
        return;
    }
    for (i = 0; i < m->nf; i++)
        if (!(m->f[i] & chosen)) {
            int c = popc(m->f[i] & ~excluded);
            if (c < best) {
                best = c;
                pick = i;
                if (c == 0)
                    return; /* cannot be hit any more */
            }
        }
    if (pick == m->nf) {
        if (!minimal(m, chosen))
            return;
        if (m->nout == m->cap) {
            size_t nc = m->cap ? m->cap * 2 : 16;
            aa_attrset *t = realloc(m->out, nc * sizeof *t);
            if (!t) {
                m->overflow = 1;
                return;
            }
            m->out = t;
            m->cap = nc;
        }
        m->out[m->nout++] = chosen;
        return;
    }
    cand = m->f[pick] & ~excluded;
    while (cand) {
        aa_attrset e = cand & -cand;
        cand &= cand - 1;
        mhs_rec(m, chosen | e, excluded);
        excluded |= e;
    }
}

/* Greedy minimal hitting set, starting from `start`. */
static aa_attrset greedy(const aa_attrset *f, size_t nf, aa_attrset start, size_t nattrs)
{
    aa_attrset h = start;
    size_t i, a;
    for (;;) {
        size_t bestc = 0, besta = 0;
        for (a = 0; a < nattrs; a++) {
            size_t c = 0;
            aa_attrset e = (aa_attrset)1 << a;
            if (h & e)
                continue;
            for (i = 0; i < nf; i++)
                if (!(f[i] & h) && (f[i] & e))
                    c++;
            if (c > bestc) {
                bestc = c;
                besta = a;
            }
        }
        if (!bestc)
            break;
        h |= (aa_attrset)1 << besta;
    }
    for (a = nattrs; a-- > 0;) {
        aa_attrset e = (aa_attrset)1 << a, t = h & ~e;
        int all = 1;
        if (!(h & e))
            continue;
        for (i = 0; i < nf && all; i++)
            if (!(f[i] & t))
                all = 0;
        if (all)
            h = t;
    }
    return h;
}

/* All minimal hitting sets of f (absorbed), sorted; *greedy_used set when
 * only a greedy one was computed.  Returns NULL with *n = 0 on no memory. */
static aa_attrset *hitting_sets(const aa_attrset *f, size_t nf, size_t nattrs, int exact,
                                size_t *n, int *greedy_used, int *nomem)
{
    mhs m = {f, nf, NULL, 0, 0, 0, 0};
    *greedy_used = 0;
    *n = 0;
    if (nf == 0)
        return NULL;
    if (exact) {
        mhs_rec(&m, 0, 0);
        if (!m.overflow) {
            if (m.nout)
                qsort(m.out, m.nout, sizeof *m.out, cmp_set);
            *n = m.nout;
            return m.out;
        }
        free(m.out);
    }
    {
        aa_attrset core = 0, *one = malloc(sizeof *one);
        size_t i;
        if (!one) {
            *nomem = 1;
            return NULL;
        }
        for (i = 0; i < nf; i++)
            if (popc(f[i]) == 1)
                core |= f[i];
        one[0] = greedy(f, nf, core, nattrs);
        *n = 1;
        *greedy_used = 1;
        return one;
    }
}

/* ---- the analysis ---------------------------------------------------- */
static const aa_dtable *g_t; /* for qsort comparators (single-threaded use) */

static int cmp_cond(size_t a, size_t b)
{
    const int *x = g_t->values + a * g_t->nattrs, *y = g_t->values + b * g_t->nattrs;
    size_t k;
    for (k = 0; k < g_t->nattrs; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

static int cmp_obj(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = cmp_cond(a, b);
    if (c)
        return c;
    if (g_t->decision[a] != g_t->decision[b])
        return g_t->decision[a] < g_t->decision[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static int cmp_pair(const void *pa, const void *pb)
{
    const aa_rs_pair *a = pa, *b = pb;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

aa_attrset aa_roughset_shortest_local(const aa_roughset_result *r, size_t obj)
{
    /* local reducts are sorted by size, then attribute order */
    if (!r || !r->nlocal || !r->local || r->nlocal[obj] == 0)
        return 0;
    return r->local[obj][0];
}

int aa_roughset_analyze(const aa_dtable *t, aa_roughset_result *out, aa_err *err)
{
    size_t n = t ? t->nobjects : 0, na = t ? t->nattrs : 0;
    size_t *ord = NULL, *cls_rep = NULL, *cls_of = NULL, ncls = 0, i, j;
    aa_attrset *ent = NULL, *glob = NULL, **cls_local = NULL;
    size_t *cls_nlocal = NULL, nglob = 0, capglob = 0;
    int exact = na <= AA_RS_EXACT_ATTRS, nomem = 0, g;

    memset(out, 0, sizeof *out);
    if (!t)
        return aa_err_set(err, AA_EUSAGE, "roughset: no table");
    if (na > 64)
        return aa_err_set(err, AA_EINPUT, "roughset: %zu condition attributes (at most 64)", na);
    ord = malloc((n ? n : 1) * sizeof *ord);
    cls_rep = malloc((n ? n : 1) * sizeof *cls_rep);
    cls_of = malloc((n ? n : 1) * sizeof *cls_of);
    ent = malloc((n ? n : 1) * sizeof *ent);
    out->nlocal = calloc(n ? n : 1, sizeof *out->nlocal);
    out->local = calloc(n ? n : 1, sizeof *out->local);
    if (!ord || !cls_rep || !cls_of || !ent || !out->nlocal || !out->local)
        goto nomem;

    /* Classes of equal conditions and decision; inconsistent pairs. */
    for (i = 0; i < n; i++)
        ord[i] = i;
    g_t = t;
    qsort(ord, n, sizeof *ord, cmp_obj);
    for (i = 0; i < n; i++) {
        if (i == 0 || cmp_cond(ord[i], ord[i - 1]) != 0 ||
            t->decision[ord[i]] != t->decision[ord[i - 1]])
            cls_rep[ncls++] = ord[i];
        cls_of[ord[i]] = ncls - 1;
    }
    {
        size_t cap = 0;
        for (i = 0; i < n;) {
            size_t e = i + 1, a, b;
            while (e < n && cmp_cond(ord[e], ord[i]) == 0)
                e++;
            for (a = i; a < e; a++)
                for (b = a + 1; b < e; b++)
                    if (t->decision[ord[a]] != t->decision[ord[b]]) {
                        aa_rs_pair p;
                        p.a = ord[a] < ord[b] ? ord[a] : ord[b];
                        p.b = ord[a] < ord[b] ? ord[b] : ord[a];
                        out->ninconsistent_total++;
                        if (out->ninconsistent >= AA_RS_PAIR_LIMIT)
                            continue;
                        if (out->ninconsistent == cap) {
                            size_t nc = cap ? cap * 2 : 16;
                            aa_rs_pair *tp = realloc(out->inconsistent, nc * sizeof *tp);
                            if (!tp)
                                goto nomem;
                            out->inconsistent = tp;
                            cap = nc;
                        }
                        out->inconsistent[out->ninconsistent++] = p;
                    }
            i = e;
        }
        if (out->ninconsistent)
            qsort(out->inconsistent, out->ninconsistent, sizeof *out->inconsistent,
                  cmp_pair);
    }

    /* Per class: its entries, absorbed; their minimal hitting sets. */
    cls_local = calloc(ncls ? ncls : 1, sizeof *cls_local);
    cls_nlocal = calloc(ncls ? ncls : 1, sizeof *cls_nlocal);
    if (!cls_local || !cls_nlocal)
        goto nomem;
    for (i = 0; i < ncls; i++) {
        size_t x = cls_rep[i], ne = 0;
        const int *vx = t->values + x * na;
        for (j = 0; j < ncls; j++) {
            size_t y = cls_rep[j], k;
            const int *vy = t->values + y * na;
            aa_attrset m = 0;
            if (t->decision[x] == t->decision[y])
                continue;
            for (k = 0; k < na; k++)
                if (vx[k] != vy[k])
                    m |= (aa_attrset)1 << k;
            if (m)
                ent[ne++] = m; /* empty: inconsistent, skipped */
        }
        ne = absorb(ent, ne);
        if (nglob + ne > capglob) {
            size_t nc = (nglob + ne) * 2 + 16;
            aa_attrset *tg = realloc(glob, nc * sizeof *tg);
            if (!tg)
                goto nomem;
            glob = tg;
            capglob = nc;
        }
        if (ne)
            memcpy(glob + nglob, ent, ne * sizeof *ent);
        nglob += ne;
        cls_local[i] = hitting_sets(ent, ne, na, 1, &cls_nlocal[i], &g, &nomem);
        if (nomem)
            goto nomem;
        if (g)
            out->local_greedy = 1;
    }
    for (i = 0; i < n; i++) {
        size_t c = cls_of[i], k = cls_nlocal[c];
        out->nlocal[i] = k;
        if (k) {
            out->local[i] = malloc(k * sizeof **out->local);
            if (!out->local[i])
                goto nomem;
            memcpy(out->local[i], cls_local[c], k * sizeof **out->local);
        }
    }

    /* Global family: the minimal entries of all classes. */
    nglob = absorb(glob, nglob);
    for (i = 0; i < nglob; i++)
        if (popc(glob[i]) == 1)
            out->core |= glob[i];
    out->reducts = hitting_sets(glob, nglob, na, exact, &out->nreducts, &out->reducts_greedy,
                                &nomem);
    if (nomem)
        goto nomem;

    for (i = 0; i < ncls; i++)
        free(cls_local[i]);
    free(cls_local);
    free(cls_nlocal);
    free(ord);
    free(cls_rep);
    free(cls_of);
    free(ent);
    free(glob);
    return AA_OK;
nomem:
    if (cls_local)
        for (i = 0; i < ncls; i++)
            free(cls_local[i]);
    free(cls_local);
    free(cls_nlocal);
    free(ord);
    free(cls_rep);
    free(cls_of);
    free(ent);
    free(glob);
    aa_roughset_result_free(out, n);
    return aa_err_set(err, AA_EENV, "roughset: out of memory (%zu objects)", n);
}
