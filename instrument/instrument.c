/*
 * instrument/instrument.c -- the libclang pass (SPEC §3): parses one C or
 * C++ translation unit with the user's flags, walks the function definitions
 * of the main file (C++: methods, templates and lambdas too, see cxx.c),
 * lists candidate regions (functions, loops, call statements, user pragma
 * blocks) with their stable ids, decides for each
 * whether it can be wrapped without changing the program (macro
 * boundaries, jumps into the region, setjmp, statement expressions,
 * pragmas, preprocessor conditionals, #include'd code), applies the size
 * rules (static inline functions, tiny leaf functions, short functions
 * -- a cost model of one visit --, bisection loops and tiny constant-trip
 * loops are left out unless asked for), and rewrites the
 * original bytes with single-line insertions plus a prelude.
 */
#include "instrument/instr_private.h"
#include "runtime/aa_probe.h" /* the descriptor contract: AA_RUNTIME_REFINED */

#include <clang-c/Index.h>
#include <ctype.h>
#include <dlfcn.h>
#include <glob.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- source text scan --------------------------------------------------- */

enum dir_kind { D_IF, D_ELSE, D_ENDIF, D_PRAGMA, D_AA_REGION, D_AA_END, D_INCLUDE, D_OTHER };

typedef struct directive {
    unsigned s, e; /* '#' .. end of line (exclusive of the newline) */
    enum dir_kind kind;
    int skipped;   /* in a preprocessor-skipped range */
    char name[128]; /* user region name */
} directive;

typedef struct src {
    const char *text;
    size_t len;
    unsigned char *code; /* 1 = code byte (not comment, not directive) */
    directive *dirs;
    size_t ndirs;
    unsigned *lines; /* offset of each line start */
    size_t nlines;
    int cxx;         /* C++: raw string literals, digit separators */
} src;

/* C++ raw string literal R"delim( ... )delim" (with an optional u8/u/U/L
 * prefix) whose quote is at i: one past its closing quote, or 0. */
static size_t raw_string_end(const src *S, size_t i)
{
    const char *t = S->text;
    size_t n = S->len, d = i + 1, k;
    if (!S->cxx || i == 0 || t[i - 1] != 'R')
        return 0;
    k = i - 1; /* the R: its prefix must start the token */
    while (k > 0 && (t[k - 1] == 'u' || t[k - 1] == 'U' || t[k - 1] == 'L' || t[k - 1] == '8'))
        k--;
    if (k > 0 && (isalnum((unsigned char)t[k - 1]) || t[k - 1] == '_'))
        return 0;
    while (d < n && d - i <= 17 && t[d] != '(' && t[d] != '"' && t[d] != '\\' && !isspace((unsigned char)t[d]))
        d++;
    if (d >= n || t[d] != '(')
        return 0;
    for (size_t j = d + 1; j + (d - i) < n; j++)
        if (t[j] == ')' && !strncmp(t + j + 1, t + i + 1, d - i - 1) && t[j + (d - i)] == '"')
            return j + (d - i) + 1;
    return 0;
}

/* A quote at i that separates digits (C++14 1'000'000): the token it is in
 * starts with a digit. */
static int digit_separator(const src *S, size_t i)
{
    const char *t = S->text;
    size_t k = i;
    if (!S->cxx)
        return 0;
    while (k > 0 && (isalnum((unsigned char)t[k - 1]) || t[k - 1] == '_' || t[k - 1] == '\'' ||
                     t[k - 1] == '.'))
        k--;
    return k < i && isdigit((unsigned char)t[k]);
}

static int scan_source(src *S)
{
    const char *t = S->text;
    size_t n = S->len, cap = 0, lcap = 0;
    int bol = 1;
    S->code = calloc(n + 1, 1);
    if (!S->code)
        return -1;
    for (size_t i = 0; i <= n; i++) {
        if (i == 0 || t[i - 1] == '\n') {
            if (S->nlines == lcap) {
                unsigned *nl = realloc(S->lines, (lcap = lcap ? 2 * lcap : 1024) * sizeof *nl);
                if (!nl)
                    return -1;
                S->lines = nl;
            }
            S->lines[S->nlines++] = (unsigned)i;
        }
    }
    for (size_t i = 0; i < n;) {
        char c = t[i];
        if (c == '\n') {
            bol = 1;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && t[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < n && !(t[j] == '*' && t[j + 1] == '/'))
                j++;
            i = j + 2 < n ? j + 2 : n;
            continue;
        }
        if (c == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n') {
                if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n')
                    i++;
                i++;
            }
            continue;
        }
        if (c == '#' && bol) {
            directive d;
            size_t j = i + 1, k;
            memset(&d, 0, sizeof d);
            d.s = (unsigned)i;
            while (j < n && t[j] != '\n') {
                if (t[j] == '\\' && j + 1 < n && t[j + 1] == '\n')
                    j++;
                else if (t[j] == '/' && j + 1 < n && t[j + 1] == '*') {
                    j += 2;
                    while (j + 1 < n && !(t[j] == '*' && t[j + 1] == '/'))
                        j++;
                    j++;
                }
                j++;
            }
            if (j > n)
                j = n;
            d.e = (unsigned)j;
            k = i + 1;
            while (k < j && (t[k] == ' ' || t[k] == '\t'))
                k++;
#define KW(w) (j - k >= sizeof(w) - 1 && strncmp(t + k, w, sizeof(w) - 1) == 0 && \
               (j - k == sizeof(w) - 1 || !isalnum((unsigned char)t[k + sizeof(w) - 1])))
            if (KW("if") || KW("ifdef") || KW("ifndef"))
                d.kind = D_IF;
            else if (KW("elif") || KW("else") || KW("elifdef") || KW("elifndef"))
                d.kind = D_ELSE;
            else if (KW("endif"))
                d.kind = D_ENDIF;
            else if (KW("include") || KW("include_next") || KW("import"))
                d.kind = D_INCLUDE;
            else if (KW("pragma")) {
                size_t p = k + 6;
                d.kind = D_PRAGMA;
                while (p < j && (t[p] == ' ' || t[p] == '\t'))
                    p++;
                if (j - p >= 12 && strncmp(t + p, "autoanalyzer", 12) == 0) {
                    size_t q = p + 12, ns;
                    while (q < j && (t[q] == ' ' || t[q] == '\t'))
                        q++;
                    if (j - q >= 6 && strncmp(t + q, "region", 6) == 0) {
                        d.kind = D_AA_REGION;
                        q += 6;
                        while (q < j && (t[q] == ' ' || t[q] == '\t'))
                            q++;
                        ns = q;
                        while (q < j && (isalnum((unsigned char)t[q]) || t[q] == '_' ||
                                         t[q] == '.' || t[q] == '-' || t[q] == ':'))
                            q++;
                        if (q - ns >= sizeof d.name)
                            q = ns + sizeof d.name - 1;
                        memcpy(d.name, t + ns, q - ns);
                    } else if (j - q >= 3 && strncmp(t + q, "end", 3) == 0) {
                        d.kind = D_AA_END;
                    }
                }
            } else
                d.kind = D_OTHER;
#undef KW
            if (S->ndirs == cap) {
                directive *nd = realloc(S->dirs, (cap = cap ? 2 * cap : 64) * sizeof *nd);
                if (!nd)
                    return -1;
                S->dirs = nd;
            }
            S->dirs[S->ndirs++] = d;
            i = j;
            continue;
        }
        bol = 0;
        if (c == '"' && raw_string_end(S, i)) {
            size_t j = raw_string_end(S, i);
            for (size_t q = i; q < j; q++)
                S->code[q] = 1;
            i = j;
            continue;
        }
        if (c == '\'' && digit_separator(S, i)) {
            S->code[i++] = 1;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < n && t[j] != c && t[j] != '\n') {
                if (t[j] == '\\')
                    j++;
                j++;
            }
            for (size_t q = i; q <= j && q < n; q++)
                S->code[q] = 1;
            i = j + 1;
            continue;
        }
        S->code[i] = 1;
        i++;
    }
    return 0;
}

static void offset_linecol(const src *S, unsigned off, int *line, int *col)
{
    size_t lo = 0, hi = S->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (S->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - S->lines[lo]) + 1;
}

/* Next code byte at or after off (len when none). */
static size_t next_code(const src *S, size_t off)
{
    while (off < S->len && (!S->code[off] || isspace((unsigned char)S->text[off])))
        off++;
    return off;
}

/* Offset of the last code byte before off, or -1. */
static long prev_code(const src *S, size_t off)
{
    long i = (long)off - 1;
    while (i >= 0 && (!S->code[i] || isspace((unsigned char)S->text[i])))
        i--;
    return i;
}

/* ---- AST nodes of one function ------------------------------------------ */

typedef struct node {
    CXCursor c;
    enum CXCursorKind kind;
    int parent, first, last, next; /* tree links, -1 = none */
    int index, nchild;             /* position among the parent's children */
    unsigned s, e;                 /* expansion offsets of the extent */
    int in_main;                   /* both ends in the main file */
    char *loop_path;               /* loops: "2.1" */
    int nloops;                    /* loops directly nested (for paths) */
} node;

typedef struct cand {
    aa_region_kind kind;
    unsigned mode;   /* mode bit that selects it */
    unsigned s, e;   /* wrapped range; functions: s = '{', e = after '}' */
    unsigned ds, de; /* user regions: the two directives' indices */
    unsigned ms;     /* start reported in the map (functions: the declaration) */
    char *name, *function, *key, *why;
    int fine;        /* loop or call: candidate for --refine/split */
    int blk;         /* node index of the enclosing block (direct child), -1 */
    int pragma_user; /* user region made by the pragmas */
    int forced;      /* made by a plan's merge: always selected */
    int merged;      /* member of a merge: replaced by the merged region */
    unsigned doff;   /* where a diagnostic about it points (main file) */
    int excluded;    /* filter said no */
    int func_index;  /* candidate index of the enclosing function, -1 */
    uint32_t hash, id, parent;
    int selected, round1, emitted;
    const char *small;       /* size rule that leaves it out by default, or NULL */
    int if_fn_kept;          /* ... only while its function's region is selected */
    int named;               /* an INCLUDE rule names its function literally */
    int split_named;         /* named by --refine / a plan's split */
    int refined;             /* split_named or a fine region inside one: its
                              * descriptor says AA_RUNTIME_REFINED */
    const char *skip_reason; /* left out by a size rule or the profile filter:
                              * listed in the map as not instrumented */
    const char *never;       /* C++: may never get a probe (constexpr, coroutine,
                              * defaulted...): listed in the map with this reason */
    /* C functions: the probe in a wrapper, the body outlined (see
     * outline_plan); ol_hdr NULL = the probe goes into the body */
    char *ol_hdr;            /* the declaration up to the body, on one line */
    char *ol_args;           /* "a, b, c": the parameters, forwarded */
    unsigned ol_hs, ol_name; /* offsets of the declaration and of the name */
    unsigned ol_hname;       /* offset of the name in ol_hdr */
    int ol_void, ol_static;  /* returns void; written static */
    const char *ol_why;      /* why the probe stays in the body (-v), or NULL */
} cand;

typedef struct ctx {
    CXTranslationUnit tu;
    CXFile mainf;
    src S;
    const char *path, *display, *base;
    const aa_instrument_opts *o;
    unsigned modes;
    /* macro expansion ranges in the main file, sorted by start */
    unsigned *mac, *macmax;
    size_t nmac, capmac;
    /* preprocessor-skipped ranges */
    unsigned *skip;
    size_t nskip;
    /* current function */
    node *n;
    size_t nn, capn;
    int fn_index;
    cand *c;
    size_t nc, capc;
    int nskipped;
    int oom;
    int collect_macros_only;
    int prescan; /* small_prescan: size rules only, no candidates */
    /* USRs of functions declared inline somewhere in the translation unit */
    char **inl;
    size_t ninl, capinl;
    /* functions of this file already left out by the size rules (their
     * calls cost nothing measurable: see not_straight_line) */
    char **smallfn;
    size_t nsmallfn, capsmallfn;
    /* call sites in this file by callee name (open addressing, see
     * count_call_sites): a short function calling a measured function that
     * is called from several places is kept, for the calling context */
    char **site_name;
    unsigned *site_count;
    size_t site_cap, nsites;
    const char *site_fn; /* count_call_sites: the function being scanned */
    /* diagnostics, printed together at the end (see flush_diags) */
    struct dmsg *dg;
    size_t ndg, capdg;
    /* C++ (docs/instrument.md, "C++") */
    int cxx;
    const char *ident;   /* the current function's identity in region ids
                          * (C++: name and parameter types; NULL = its name) */
    const char *never;   /* the current function may get no probe (constexpr,
                          * coroutine...): its regions are listed, not wrapped */
} ctx;

/* ---- diagnostics ----------------------------------------------------------
 * Every region left alone is recorded, then printed in GCC's format with a
 * tool prefix (`file:line:col: warning: autoanalyzer: HEAD: REASON`), in
 * source order; without opts->verbose each distinct (kind, reason) is
 * printed once, at its first location, with the number of others like it. */

typedef struct dmsg {
    unsigned off;
    size_t seq;       /* recording order: ties keep it */
    char *cls;        /* grouping class: region kind, "statement", "merge" */
    char *head;       /* "loop not instrumented", "call to MPI_Send not instrumented" */
    char *why;
    size_t more;      /* group head: how many others share cls and why */
    int shown;        /* printed (group head) */
} dmsg;

static void diag(ctx *X, unsigned off, const char *cls, const char *head, const char *why)
{
    dmsg *m;
    if (!X->o->diag)
        return;
    if (X->ndg == X->capdg) {
        dmsg *nv = realloc(X->dg, (X->capdg ? 2 * X->capdg : 64) * sizeof *nv);
        if (!nv) {
            X->oom = 1;
            return;
        }
        X->dg = nv;
        X->capdg = X->capdg ? 2 * X->capdg : 64;
    }
    m = &X->dg[X->ndg];
    memset(m, 0, sizeof *m);
    m->off = off;
    m->seq = X->ndg;
    m->cls = aa_strdup(cls);
    m->head = aa_strdup(head);
    m->why = aa_strdup(why);
    X->ndg++;
    if (!m->cls || !m->head || !m->why)
        X->oom = 1;
}

static int dmsg_loc_cmp(const void *a, const void *b)
{
    const dmsg *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int dmsg_group_cmp(const void *a, const void *b)
{
    const dmsg *x = *(const dmsg *const *)a, *y = *(const dmsg *const *)b;
    int r = strcmp(x->cls, y->cls);
    if (!r)
        r = strcmp(x->why, y->why);
    if (!r)
        r = x->off != y->off ? (x->off < y->off ? -1 : 1) : (x->seq < y->seq ? -1 : x->seq > y->seq);
    return r;
}

/* Marks the first of each (cls, why) group as shown with its count. */
static int group_diags(ctx *X)
{
    dmsg **v = malloc(X->ndg * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < X->ndg; i++)
        v[i] = &X->dg[i];
    qsort(v, X->ndg, sizeof *v, dmsg_group_cmp);
    for (size_t i = 0; i < X->ndg;) {
        size_t j = i + 1;
        while (j < X->ndg && !strcmp(v[j]->cls, v[i]->cls) && !strcmp(v[j]->why, v[i]->why))
            j++;
        v[i]->shown = 1;
        v[i]->more = j - i - 1;
        i = j;
    }
    free(v);
    return 0;
}

static void flush_diags(ctx *X)
{
    FILE *f = X->o->diag;
    if (!f || !X->ndg)
        return;
    qsort(X->dg, X->ndg, sizeof *X->dg, dmsg_loc_cmp);
    if (X->o->verbose || group_diags(X))
        for (size_t i = 0; i < X->ndg; i++)
            X->dg[i].shown = 1;
    for (size_t i = 0; i < X->ndg; i++) {
        const dmsg *m = &X->dg[i];
        int line, col;
        if (!m->shown)
            continue;
        offset_linecol(&X->S, m->off, &line, &col);
        fprintf(f, "%s:%d:%d: warning: autoanalyzer: %s: %s", X->display, line, col, m->head,
                m->why);
        if (m->more)
            fprintf(f, " (and %zu more like it in this file)", m->more);
        fputc('\n', f);
    }
}

static void free_diags(ctx *X)
{
    for (size_t i = 0; i < X->ndg; i++) {
        free(X->dg[i].cls);
        free(X->dg[i].head);
        free(X->dg[i].why);
    }
    free(X->dg);
    for (size_t i = 0; i < X->ninl; i++)
        free(X->inl[i]);
    free(X->inl);
    for (size_t i = 0; i < X->nsmallfn; i++)
        free(X->smallfn[i]);
    free(X->smallfn);
    for (size_t i = 0; i < X->site_cap; i++)
        free(X->site_name[i]);
    free(X->site_name);
    free(X->site_count);
}

static int loc_off(ctx *X, CXSourceLocation l, unsigned *off)
{
    CXFile f;
    unsigned o;
    clang_getExpansionLocation(l, &f, NULL, NULL, &o);
    *off = o;
    return f && clang_File_isEqual(f, X->mainf);
}

static char *cx_str(CXString s)
{
    char *r = aa_strdup(clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return r;
}

static int add_node(ctx *X, CXCursor c, int parent)
{
    node *d;
    CXSourceRange r = clang_getCursorExtent(c);
    int a, b;
    if (X->nn == X->capn) {
        node *nn = realloc(X->n, (X->capn = X->capn ? 2 * X->capn : 256) * sizeof *nn);
        if (!nn) {
            X->oom = 1;
            return -1;
        }
        X->n = nn;
    }
    d = &X->n[X->nn];
    memset(d, 0, sizeof *d);
    d->c = c;
    d->kind = clang_getCursorKind(c);
    d->parent = parent;
    d->first = d->last = d->next = -1;
    a = loc_off(X, clang_getRangeStart(r), &d->s);
    b = loc_off(X, clang_getRangeEnd(r), &d->e);
    d->in_main = a && b && d->s <= d->e && d->e <= X->S.len;
    if (parent >= 0) {
        node *p = &X->n[parent];
        d->index = p->nchild++;
        if (p->last >= 0)
            X->n[p->last].next = (int)X->nn;
        else
            p->first = (int)X->nn;
        p->last = (int)X->nn;
    }
    return (int)X->nn++;
}

typedef struct visit_arg {
    ctx *X;
    int parent;
} visit_arg;

static enum CXChildVisitResult collect(CXCursor c, CXCursor p, CXClientData data)
{
    visit_arg *va = data, sub;
    int i;
    (void)p;
    i = add_node(va->X, c, va->parent);
    if (i < 0)
        return CXChildVisit_Break;
    sub.X = va->X;
    sub.parent = i;
    clang_visitChildren(c, collect, &sub);
    return CXChildVisit_Continue;
}

static int is_loop(enum CXCursorKind k)
{
    return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
           k == CXCursor_CXXForRangeStmt;
}

static int is_omp(enum CXCursorKind k)
{
    static signed char cache[1024]; /* 0 unknown, 1 yes, -1 no */
    CXString s;
    int r;
    if ((unsigned)k < sizeof cache && cache[k])
        return cache[k] > 0;
    s = clang_getCursorKindSpelling(k);
    r = strncmp(clang_getCString(s), "OMP", 3) == 0;
    clang_disposeString(s);
    if ((unsigned)k < sizeof cache)
        cache[k] = r ? 1 : -1;
    return r;
}

/* ---- safety checks ----------------------------------------------------- */

static int in_macro(ctx *X, unsigned s, unsigned e)
{
    /* binary search the last macro range starting at or before e */
    size_t lo = 0, hi = X->nmac;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (X->mac[2 * mid] <= e)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        unsigned ms = X->mac[2 * i], me = X->mac[2 * i + 1];
        if ((ms <= s && s < me) || (ms < e && e <= me))
            return 1;
        if (X->macmax[i] <= s)
            break; /* no earlier range reaches past s */
    }
    return 0;
}

static int mac_cmp(const void *a, const void *b)
{
    const unsigned *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static const char *conditional_problem(ctx *X, unsigned s, unsigned e)
{
    int depth = 0;
    for (size_t i = 0; i < X->S.ndirs; i++) {
        const directive *d = &X->S.dirs[i];
        if (d->s < s || d->s >= e)
            continue;
        if (d->kind == D_IF)
            depth++;
        else if (d->kind == D_ELSE && depth == 0)
            return "the region crosses a preprocessor conditional";
        else if (d->kind == D_ENDIF && --depth < 0)
            return "the region crosses a preprocessor conditional";
        else if (d->kind == D_INCLUDE)
            return NULL; /* fine inside; boundaries are checked elsewhere */
    }
    return depth ? "the region crosses a preprocessor conditional" : NULL;
}

/* 1 when [s,e) opens with a whole macro invocation and goes on past it in
 * the file: a macro starts exactly at s, ends before e, none holds s in its
 * arguments, and e is outside every macro -- `FOR_EACH(i, n) { ... }`, a
 * loop whose header a macro writes.  Text before the invocation and after
 * e wraps the statement as it wraps any other. */
static int macro_head(ctx *X, unsigned s, unsigned e)
{
    unsigned end = 0;
    size_t i;
    for (i = 0; i < X->nmac && X->mac[2 * i] <= s; i++) {
        unsigned ms = X->mac[2 * i], me = X->mac[2 * i + 1];
        if (ms == s)
            end = me > end ? me : end;
        else if (me > s)
            return 0; /* s inside an earlier invocation */
    }
    return end > s && end < e && !in_macro(X, end, e);
}

/* Reason why range [s,e) of the current function cannot be wrapped;
 * head_ok: a macro invocation may open it (macro_head). */
static const char *range_problem_ex(ctx *X, unsigned s, unsigned e, int head_ok)
{
    const char *why;
    if (in_macro(X, s, e) && !(head_ok && macro_head(X, s, e)))
        return "the region starts or ends inside a macro expansion";
    if ((why = conditional_problem(X, s, e)))
        return why;
    for (size_t i = 0; i < X->nn; i++) {
        node *d = &X->n[i];
        if (!d->in_main)
            continue;
        if (d->kind == CXCursor_GotoStmt && d->first >= 0) {
            CXCursor lab = clang_getCursorReferenced(X->n[d->first].c);
            CXSourceRange lr = clang_getCursorExtent(lab);
            unsigned ls;
            int inside_goto = d->s >= s && d->e <= e;
            if (!clang_Cursor_isNull(lab) && loc_off(X, clang_getRangeStart(lr), &ls) &&
                ls >= s && ls < e && !inside_goto)
                return "a goto outside the region jumps to a label inside it";
        } else if (d->kind == CXCursor_CaseStmt || d->kind == CXCursor_DefaultStmt) {
            if (d->s >= s && d->s < e) {
                int p = d->parent;
                while (p >= 0 && X->n[p].kind != CXCursor_SwitchStmt)
                    p = X->n[p].parent;
                if (p >= 0 && !(X->n[p].s >= s && X->n[p].e <= e))
                    return "a case label inside the region belongs to a switch outside it";
            }
        } else if (d->kind == CXCursor_IndirectGotoStmt) {
            return "the function uses computed goto";
        } else if (d->kind == CXCursor_CallExpr && d->s >= s && d->e <= e) {
            CXString nm = clang_getCursorSpelling(d->c);
            int bad = instr_call_unsafe(clang_getCString(nm));
            clang_disposeString(nm);
            if (bad)
                return "the region calls setjmp/longjmp (or vfork)";
        }
    }
    return NULL;
}

static const char *range_problem(ctx *X, unsigned s, unsigned e)
{
    return range_problem_ex(X, s, e, 0);
}

/* A `#pragma` (or _Pragma) immediately before offset s. */
static int under_pragma(ctx *X, unsigned s, int collapse_only)
{
    long pc = prev_code(&X->S, s);
    for (size_t i = X->S.ndirs; i-- > 0;) {
        const directive *d = &X->S.dirs[i];
        if (d->e > s)
            continue;
        if ((long)d->s < pc)
            break;
        if (d->kind == D_PRAGMA) {
            if (!collapse_only)
                return 1;
            for (unsigned q = d->s; q + 8 <= d->e; q++)
                if (!strncmp(X->S.text + q, "collapse", 8) || !strncmp(X->S.text + q, "ordered(", 8) ||
                    !strncmp(X->S.text + q, "tile", 4))
                    return 1;
        }
    }
    if (!collapse_only && pc >= 0 && X->S.text[pc] == ')') {
        int depth = 0;
        long i = pc;
        for (; i >= 0; i--) {
            if (!X->S.code[i])
                continue;
            if (X->S.text[i] == ')')
                depth++;
            else if (X->S.text[i] == '(' && --depth == 0)
                break;
        }
        i = prev_code(&X->S, (size_t)(i > 0 ? i : 0));
        if (i >= 6 && strncmp(X->S.text + i - 6, "_Pragma", 7) == 0)
            return 1;
    }
    return 0;
}

/* End of statement node i including its ';' (0 if not found). */
static unsigned stmt_end(ctx *X, int i)
{
    node *d = &X->n[i];
    size_t q;
    switch (d->kind) {
    case CXCursor_CompoundStmt:
        return d->e;
    case CXCursor_ForStmt:
    case CXCursor_CXXForRangeStmt:
    case CXCursor_WhileStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_LabelStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_IfStmt:
        if (d->last >= 0)
            return stmt_end(X, d->last);
        return 0;
    default:
        break;
    }
    if (is_omp(d->kind) || !d->in_main)
        return 0;
    if (d->e > 0 && X->S.text[d->e - 1] == ';')
        return d->e;
    q = next_code(&X->S, d->e);
    if (q < X->S.len && X->S.text[q] == ';')
        return (unsigned)q + 1;
    return 0;
}

/* 1 when another child of node i's parent starts at s too (a macro that
 * writes `int i; for (...)`: the declaration would move into the braces). */
static int sibling_at(ctx *X, int i, unsigned s)
{
    int k;
    if (X->n[i].parent < 0)
        return 0;
    for (k = X->n[X->n[i].parent].first; k >= 0; k = X->n[k].next)
        if (k != i && X->n[k].s == s)
            return 1;
    return 0;
}

/* Reasons common to loops and calls; NULL when the statement can be wrapped. */
static const char *stmt_problem(ctx *X, int i, unsigned s, unsigned e)
{
    int p;
    if (!X->n[i].in_main || e == 0)
        return "the statement is not entirely in the main file (#include'd code or macro)";
    for (p = X->n[i].parent; p >= 0; p = X->n[p].parent) {
        if (X->n[p].kind == CXCursor_StmtExpr)
            return "the statement is inside a statement expression";
    }
    p = X->n[i].parent;
    if (p >= 0 && is_omp(X->n[p].kind))
        return "the statement is directly under an OpenMP directive";
    if (under_pragma(X, s, 0))
        return "the statement is directly under a #pragma";
    {
        /* right after a macro invocation that is not a complete statement
         * (it may expand to _Pragma, a label, `else`, ...) */
        long pc = prev_code(&X->S, s);
        if (pc >= 0 && X->S.text[pc] != ';' && X->S.text[pc] != '}' && X->S.text[pc] != '{' &&
            X->S.text[pc] != ':' && in_macro(X, (unsigned)pc, (unsigned)pc + 1))
            return "the statement directly follows a macro (it may expand to a pragma)";
    }
    for (p = X->n[i].parent; p >= 0; p = X->n[p].parent)
        if (is_loop(X->n[p].kind) && under_pragma(X, X->n[p].s, 1))
            return "the loop is inside a collapsed OpenMP loop nest";
    /* a macro may open the statement when it does not open the enclosing
     * one as well (`#define M if (x) for (...)` would put the if inside) */
    p = X->n[i].parent;
    return range_problem_ex(X, s, e, p >= 0 && X->n[p].s < s && !sibling_at(X, i, s));
}

/* ---- candidates ---------------------------------------------------------- */

static cand *new_cand(ctx *X, aa_region_kind kind, unsigned mode, unsigned s, unsigned e,
                      const char *name, const char *function, const char *key)
{
    cand *c;
    if (X->nc == X->capc) {
        cand *nc = realloc(X->c, (X->capc = X->capc ? 2 * X->capc : 64) * sizeof *nc);
        if (!nc) {
            X->oom = 1;
            return NULL;
        }
        X->c = nc;
    }
    c = &X->c[X->nc++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->mode = mode;
    c->s = s;
    c->ms = s;
    c->e = e;
    c->name = aa_strdup(name);
    c->function = aa_strdup(function);
    c->key = aa_strdup(key);
    c->func_index = X->fn_index;
    c->doff = s;
    c->hash = aa_instrument_region_hash(X->base, X->ident ? X->ident : function,
                                        aa_region_kind_name(kind), key);
    c->never = X->never;
    if (!c->name || !c->function || !c->key)
        X->oom = 1;
    return c;
}

uint32_t aa_instrument_region_hash(const char *basename, const char *function,
                                   const char *kind, const char *path)
{
    uint32_t h = 2166136261u;
    const char *parts[4] = {basename, function, kind, path};
    for (int k = 0; k < 4; k++) {
        for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) {
            h ^= *p;
            h *= 16777619u;
        }
        h ^= 0xffu;
        h *= 16777619u;
    }
    return h;
}

/* Statement node that a call at node i forms, or -1. */
static int call_statement(ctx *X, int i)
{
    int cur = i;
    for (;;) {
        int p = X->n[cur].parent;
        enum CXCursorKind pk;
        if (p < 0)
            return -1;
        pk = X->n[p].kind;
        if (pk == CXCursor_UnexposedExpr || pk == CXCursor_ParenExpr) {
            cur = p;
            continue;
        }
        if (pk == CXCursor_CStyleCastExpr) {
            CXType t = clang_getCursorType(X->n[p].c);
            if (t.kind != CXType_Void)
                return -1;
            cur = p;
            continue;
        }
        if (pk == CXCursor_BinaryOperator || pk == CXCursor_CompoundAssignOperator) {
            node *pn = &X->n[p];
            if (X->n[cur].index != 1 || pn->first < 0)
                return -1;
            if (pk == CXCursor_BinaryOperator) {
                /* the operator between the operands must be '=' */
                size_t a = next_code(&X->S, X->n[pn->first].e);
                if (!(a < X->S.len && X->S.text[a] == '=' && X->S.text[a + 1] != '='))
                    return -1;
            }
            cur = p;
            continue;
        }
        {
            node *c = &X->n[cur];
            int last = c->index == X->n[p].nchild - 1;
            long pc = prev_code(&X->S, c->s);
            switch (pk) {
            case CXCursor_CompoundStmt:
            case CXCursor_LabelStmt:
            case CXCursor_DefaultStmt:
                return cur;
            case CXCursor_CaseStmt:
                return last && c->index >= 1 ? cur : -1;
            case CXCursor_IfStmt:
                return c->index >= 1 ? cur : -1;
            case CXCursor_WhileStmt:
            case CXCursor_SwitchStmt:
                return last && c->index >= 1 ? cur : -1;
            case CXCursor_DoStmt:
                return c->index == 0 ? cur : -1;
            case CXCursor_ForStmt:
            case CXCursor_CXXForRangeStmt:
                return last && pc >= 0 && X->S.text[pc] == ')' ? cur : -1;
            default:
                return -1;
            }
        }
    }
}

static void user_regions(ctx *X, int body, const char *fname, unsigned bs, unsigned be)
{
    int count = 0;
    for (size_t i = 0; i < X->S.ndirs; i++) {
        directive *d = &X->S.dirs[i];
        int depth = 0;
        size_t j;
        char key[160];
        cand *c;
        const char *why = NULL;
        int comp = -1;
        if (d->kind != D_AA_REGION || d->skipped || d->s < bs || d->s >= be)
            continue;
        for (size_t k = (size_t)body + 1; k < X->nn && d; k++)
            if (X->n[k].kind == CXCursor_LambdaExpr && X->n[k].s < d->s && d->s < X->n[k].e)
                d = NULL; /* the lambda's own region */
        if (!d)
            continue;
        for (j = i + 1; j < X->S.ndirs; j++) {
            directive *f = &X->S.dirs[j];
            if (f->skipped)
                continue;
            if (f->kind == D_AA_REGION)
                depth++;
            else if (f->kind == D_AA_END && depth-- == 0)
                break;
        }
        snprintf(key, sizeof key, "user %s#%d", d->name, ++count);
        if (j == X->S.ndirs || X->S.dirs[j].s >= be) {
            if (X->modes & AA_MODE_USER) {
                char head[200];
                snprintf(head, sizeof head, "user region %s not instrumented", d->name);
                diag(X, d->s, "user", head, "#pragma autoanalyzer region has no matching end "
                     "in the same function");
            }
            continue;
        }
        c = new_cand(X, AA_KIND_USER, AA_MODE_USER, d->s, X->S.dirs[j].e, d->name[0] ? d->name : "user", fname, key);
        if (!c)
            return;
        c->ds = (unsigned)i;
        c->de = (unsigned)j;
        c->pragma_user = 1;
        c->blk = -1;
        if (!d->name[0])
            why = "the region pragma has no name";
        else if (memchr(X->S.text + d->s, '\n', d->e - d->s) ||
                 memchr(X->S.text + X->S.dirs[j].s, '\n', X->S.dirs[j].e - X->S.dirs[j].s))
            why = "a region pragma spans several lines";
        /* innermost compound statement containing both pragmas, with no
         * statement straddling either of them */
        for (size_t k = (size_t)body; k < X->nn; k++) {
            node *n = &X->n[k];
            if (n->kind == CXCursor_CompoundStmt && n->in_main && n->s < d->s && n->e > c->e &&
                (comp < 0 || n->s >= X->n[comp].s))
                comp = (int)k;
        }
        if (!why && comp < 0)
            why = "the region pragmas are not in one block";
        if (!why) {
            for (int k = X->n[comp].first; k >= 0; k = X->n[k].next) {
                node *n = &X->n[k];
                if ((n->s < d->s && n->e > d->s) || (n->s < c->e && n->e > X->S.dirs[j].s))
                    why = "the region pragmas are not in one block";
                else if (n->s > d->s && n->e < X->S.dirs[j].s && n->kind == CXCursor_DeclStmt)
                    why = "the region declares variables (wrapping it would change their scope)";
            }
        }
        if (!why)
            why = range_problem(X, d->e, X->S.dirs[j].s);
        if (why)
            c->why = aa_strdup(why);
    }
}

/* A plan's `merge A B ...`: the named statement regions of this function
 * (siblings in one block) become one region from the first to the last. */
static void plan_merges(ctx *X, const char *fname)
{
    const aa_instr_plan *pl = X->o->plan;
    size_t first = (size_t)X->fn_index + 1, last = X->nc;
    for (size_t g = 0; g < pl->nmerge; g++) {
        const instr_merge *m = &pl->merge[g];
        size_t mem[64], nm = 0;
        unsigned s = ~0u, e = 0;
        const char *why = NULL;
        aa_buf key, name;
        cand *c;
        for (size_t k = first; k < last && nm < 64; k++) {
            for (size_t r = 0; r < m->n; r++)
                if (instr_plan_names(m->names[r], X->c[k].hash, X->c[k].name)) {
                    mem[nm++] = k;
                    break;
                }
        }
        if (nm == 0)
            continue;
        if (nm < 2 || nm != m->n) {
            char head[300], why2[300];
            snprintf(head, sizeof head, "merge %s ... not applied", m->names[0]);
            snprintf(why2, sizeof why2, "not every region was found in function %s; nothing "
                     "merged", fname);
            diag(X, X->c[mem[0]].doff, "merge", head, why2);
            continue;
        }
        aa_buf_init(&key);
        aa_buf_init(&name);
        aa_buf_puts(&key, "merge");
        aa_buf_puts(&name, "merge(");
        for (size_t k = 0; k < nm; k++) {
            cand *x = &X->c[mem[k]];
            if (x->blk < 0 || x->blk != X->c[mem[0]].blk || x->e == 0)
                why = "merged regions must be statements of one block";
            if (x->s < s)
                s = x->s;
            if (x->e > e)
                e = x->e;
            aa_buf_printf(&key, " %s", x->key);
            aa_buf_printf(&name, "%s%s", k ? "+" : "", x->name);
        }
        aa_buf_putc(&name, ')');
        if (!why) {
            for (int k = X->n[X->c[mem[0]].blk].first; k >= 0; k = X->n[k].next) {
                node *n = &X->n[k];
                if ((n->s < s && n->e > s) || (n->s < e && n->e > e))
                    why = "the merged range splits a statement";
                else if (n->s >= s && n->e <= e && n->kind == CXCursor_DeclStmt)
                    why = "the merged range declares variables (braces would change their scope)";
            }
        }
        if (!why)
            why = range_problem(X, s, e);
        c = new_cand(X, AA_KIND_USER, 0, s, e, name.data ? name.data : "merge", fname,
                     key.data ? key.data : "merge");
        aa_buf_free(&key);
        aa_buf_free(&name);
        if (!c)
            return;
        c->forced = 1;
        c->blk = -1;
        c->excluded = X->c[X->fn_index].excluded;
        if (why)
            c->why = aa_strdup(why);
        else
            for (size_t k = 0; k < nm; k++)
                X->c[mem[k]].merged = 1;
    }
}

/* ---- one function's candidates, phase by phase ---------------------------
 * Candidates live in X->c, which grows (realloc) as they are added: code
 * that adds candidates holds indices into it, never pointers, and a pointer
 * taken with CAND() is used only until the next new_cand(). */

#define CAND(X, i) (&(X)->c[(i)])

/* Index of a macro expansion range holding all of [s,e), or -1. */
static long macro_holding(ctx *X, unsigned s, unsigned e)
{
    size_t lo = 0, hi = X->nmac;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (X->mac[2 * mid] <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        if (X->mac[2 * i] <= s && e <= X->mac[2 * i + 1])
            return (long)i;
        if (X->macmax[i] < e)
            break; /* no earlier range reaches e */
    }
    return -1;
}

/* Node i was written in a macro's replacement text (the do { } while (0)
 * of an error macro, a call in a logging macro): it lies entirely inside
 * one expansion and its first token is not in the macro's arguments.  Such
 * a statement is not a user region: no candidate, no diagnostic, and it is
 * not counted in the ordinals of the region ids. */
static int macro_made(ctx *X, int i)
{
    node *d = &X->n[i];
    CXFile f = NULL;
    unsigned off = 0;
    long m;
    if (!d->in_main || !X->nmac)
        return 0;
    m = macro_holding(X, d->s, d->e);
    if (m < 0)
        return 0;
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(d->c)), &f, NULL, NULL, &off);
    return !f || !clang_File_isEqual(f, X->mainf) || off <= X->mac[2 * m];
}

/* Offset for a diagnostic about node i: where its first token is written
 * in the main file (inside a macro's arguments, too), else the start of
 * the nearest enclosing node that is in the main file. */
static unsigned diag_offset(ctx *X, int i)
{
    CXFile f = NULL;
    unsigned off = 0;
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(X->n[i].c)), &f, NULL, NULL,
                          &off);
    if (f && clang_File_isEqual(f, X->mainf) && off < X->S.len)
        return off;
    for (int p = i; p >= 0; p = X->n[p].parent)
        if (X->n[p].in_main)
            return X->n[p].s;
    return 0;
}

/* Non-static inline: inline in this or any other declaration of the
 * function (inline, __inline, __inline__, extern inline, gnu_inline, a
 * macro spelling them), with external linkage. */
static int declared_inline(ctx *X, CXCursor fn)
{
    int inl = clang_Cursor_isFunctionInlined(fn) ||
              clang_Cursor_isFunctionInlined(clang_getCanonicalCursor(fn));
    if (!inl) {
        CXString u = clang_getCursorUSR(fn);
        const char *us = clang_getCString(u);
        for (size_t k = 0; us && k < X->ninl && !inl; k++)
            inl = !strcmp(X->inl[k], us);
        clang_disposeString(u);
    }
    return inl;
}

static int nonstatic_inline(ctx *X, CXCursor fn)
{
    return declared_inline(X, fn) && clang_getCursorLinkage(fn) == CXLinkage_External;
}

/* ---- size rules (docs/instrument.md, "Small regions") ---------------------
 * A probe pair costs tens of nanoseconds and, in a small function, stops
 * the compiler from inlining it: regions whose whole execution is that
 * small are left out by default (AA_MODE_TINY, or an INCLUDE rule naming
 * the function, puts them back).  Nothing is added to code left out. */

/* Static inline: inline on some declaration, internal linkage. */
static int static_inline(ctx *X, CXCursor fn)
{
    return declared_inline(X, fn) && clang_getCursorLinkage(fn) == CXLinkage_Internal;
}

/* One past the last node of node i's subtree (nodes are in preorder). */
static size_t subtree_end(ctx *X, int i)
{
    /* preorder: the subtree ends where the next sibling of i, or of its
     * nearest ancestor that has one, begins */
    for (int p = i; p >= 0; p = X->n[p].parent)
        if (X->n[p].next >= 0)
            return (size_t)X->n[p].next;
    return X->nn;
}

static long long const_trips(ctx *X, int i);
static int nest_tiny(ctx *X, int i);
static int not_straight_line(ctx *X, int i);
static void trim_range(ctx *X, unsigned *s, unsigned *e);
static int blocks_in(ctx *X, size_t from, size_t end, int loops_ok);

/* 1 when `name` is a function of this file that the size rules left out. */
static int small_function(ctx *X, const char *name)
{
    for (size_t k = 0; k < X->nsmallfn; k++)
        if (!strcmp(X->smallfn[k], name))
            return 1;
    return 0;
}

static void note_small_function(ctx *X, const char *name)
{
    char *d;
    if (small_function(X, name))
        return;
    if (X->nsmallfn == X->capsmallfn) {
        char **nv = realloc(X->smallfn, (X->capsmallfn ? 2 * X->capsmallfn : 16) * sizeof *nv);
        if (!nv) {
            X->oom = 1;
            return;
        }
        X->smallfn = nv;
        X->capsmallfn = X->capsmallfn ? 2 * X->capsmallfn : 16;
    }
    if (!(d = aa_strdup(name))) {
        X->oom = 1;
        return;
    }
    X->smallfn[X->nsmallfn++] = d;
}

/* A loop that the tiny-loop rule leaves out: a constant trip count of at
 * most AA_TINY_MAX_TRIPS and a straight-line body (tiny_trips), or a loop
 * of a tiny nest (nest_tiny): itself or a loop around it heads one. */
static int tiny_trips(ctx *X, int i)
{
    long long trips = const_trips(X, i);
    return trips >= 0 && trips <= AA_TINY_MAX_TRIPS && !not_straight_line(X, i);
}

static int tiny_loop(ctx *X, int i)
{
    if (tiny_trips(X, i))
        return 1;
    for (int p = i; p >= 0; p = X->n[p].parent)
        if (X->n[p].kind == CXCursor_ForStmt && nest_tiny(X, p))
            return 1;
    return 0;
}

/* 1 when node i's subtree holds a loop other than a tiny one, a goto, or
 * a call that may block (any call but libm, <ctype.h>, abs, builtins and
 * the functions of this file that the size rules leave out, see
 * small_prescan; calls through pointers included). */
static int not_straight_line(ctx *X, int i)
{
    return blocks_in(X, (size_t)i + 1, subtree_end(X, i), 0);
}

/* not_straight_line over the nodes [from, end); with loops_ok, loops of
 * any kind are no obstacle (only gotos and calls that may block are). */
static int blocks_in(ctx *X, size_t from, size_t end, int loops_ok)
{
    for (size_t k = from; k < end; k++) {
        enum CXCursorKind kd = X->n[k].kind;
        if (is_loop(kd) && !loops_ok) {
            if (!tiny_loop(X, (int)k))
                return 1;
            k = subtree_end(X, (int)k) - 1;
            continue;
        }
        /* an OpenMP directive starts or waits for threads (and its
         * captured statement may hide its calls from the nodes) */
        if (kd == CXCursor_GotoStmt || kd == CXCursor_IndirectGotoStmt || is_omp(kd))
            return 1;
        if (kd == CXCursor_CallExpr) {
            CXCursor ref = clang_getCursorReferenced(X->n[k].c);
            CXString nm;
            int pure;
            if (clang_Cursor_isNull(ref))
                return 1;
            if (X->cxx) { /* free functions and non-virtual methods */
                enum CXCursorKind rk = clang_getCursorKind(ref);
                char *q;
                if (!(rk == CXCursor_FunctionDecl || rk == CXCursor_FunctionTemplate ||
                      (rk == CXCursor_CXXMethod && !clang_CXXMethod_isVirtual(ref))))
                    return 1;
                nm = clang_getCursorSpelling(ref);
                q = instr_cxx_name(ref);
                pure = (rk == CXCursor_FunctionDecl && instr_call_pure(clang_getCString(nm))) ||
                       (q && small_function(X, q));
                free(q);
                clang_disposeString(nm);
                if (!pure)
                    return 1;
                continue;
            }
            if (clang_getCursorKind(ref) != CXCursor_FunctionDecl)
                return 1;
            nm = clang_getCursorSpelling(ref);
            pure = instr_call_pure(clang_getCString(nm)) ||
                   small_function(X, clang_getCString(nm));
            clang_disposeString(nm);
            if (!pure)
                return 1;
        }
    }
    return 0;
}

/* Statements of the body: every statement of every block (nested blocks
 * themselves and empty statements not counted) and each unbraced if/else
 * branch; a statement a macro expands to counts once, as written (the
 * statements inside the macro's text are not counted). */
static int count_statements(ctx *X, int body)
{
    size_t end = subtree_end(X, body);
    int n = 0;
    for (size_t k = (size_t)body + 1; k < end; k++) {
        node *d = &X->n[k];
        enum CXCursorKind pk = X->n[d->parent].kind;
        if (d->kind == CXCursor_CompoundStmt || d->kind == CXCursor_NullStmt)
            continue;
        if (d->parent != body && macro_made(X, d->parent))
            continue;
        if (pk == CXCursor_CompoundStmt || (pk == CXCursor_IfStmt && d->index >= 1))
            n++;
    }
    return n;
}

/* ---- call sites by callee ------------------------------------------------
 * How many calls in this file name each function: a function called from
 * one place has one calling context, and its region there says where its
 * time goes; called from several, only the regions of its callers tell the
 * calls apart (see short_function). */

static size_t site_slot(const ctx *X, const char *name)
{
    size_t h = 1469598103934665603u, i;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    for (i = h & (X->site_cap - 1); X->site_name[i] && strcmp(X->site_name[i], name);
         i = (i + 1) & (X->site_cap - 1))
        ;
    return i;
}

static int site_grow(ctx *X)
{
    ctx old = *X;
    size_t cap = X->site_cap ? 2 * X->site_cap : 256;
    X->site_name = calloc(cap, sizeof *X->site_name);
    X->site_count = calloc(cap, sizeof *X->site_count);
    X->site_cap = cap;
    if (!X->site_name || !X->site_count) {
        free(X->site_name);
        free(X->site_count);
        *X = old;
        return -1;
    }
    for (size_t i = 0; i < old.site_cap; i++)
        if (old.site_name[i]) {
            size_t j = site_slot(X, old.site_name[i]);
            X->site_name[j] = old.site_name[i];
            X->site_count[j] = old.site_count[i];
        }
    free(old.site_name);
    free(old.site_count);
    return 0;
}

/* Calls in this file to the function named `name`. */
static unsigned call_sites(const ctx *X, const char *name)
{
    if (!X->site_cap)
        return 0;
    size_t i = site_slot(X, name);
    return X->site_name[i] ? X->site_count[i] : 0;
}

static enum CXChildVisitResult site_visit(CXCursor c, CXCursor p, CXClientData data)
{
    ctx *X = data;
    CXCursor ref;
    char *nm;
    size_t i;
    (void)p;
    if (X->oom)
        return CXChildVisit_Break;
    if (clang_isDeclaration(clang_getCursorKind(c)) && clang_isCursorDefinition(c) &&
        (clang_getCursorKind(c) == CXCursor_FunctionDecl ||
         clang_getCursorKind(c) == CXCursor_CXXMethod ||
         clang_getCursorKind(c) == CXCursor_FunctionTemplate)) {
        /* a function's calls of itself give it no other calling context */
        const char *outer = X->site_fn;
        char *fn = X->cxx ? instr_cxx_name(c) : cx_str(clang_getCursorSpelling(c));
        if (!fn) {
            X->oom = 1;
            return CXChildVisit_Break;
        }
        X->site_fn = fn;
        clang_visitChildren(c, site_visit, X);
        X->site_fn = outer;
        free(fn);
        return CXChildVisit_Continue;
    }
    if (clang_getCursorKind(c) != CXCursor_CallExpr ||
        !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Recurse;
    ref = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(ref))
        return CXChildVisit_Recurse;
    nm = X->cxx ? instr_cxx_name(ref) : cx_str(clang_getCursorSpelling(ref));
    if (nm && X->site_fn && !strcmp(nm, X->site_fn)) {
        free(nm);
        return CXChildVisit_Recurse;
    }
    if (!nm || ((X->nsites + 1) * 2 > X->site_cap && site_grow(X))) {
        free(nm);
        X->oom = 1;
        return CXChildVisit_Break;
    }
    i = site_slot(X, nm);
    if (X->site_name[i])
        free(nm);
    else {
        X->site_name[i] = nm;
        X->nsites++;
    }
    X->site_count[i]++;
    return CXChildVisit_Recurse;
}

static void count_call_sites(ctx *X)
{
    clang_visitChildren(clang_getTranslationUnitCursor(X->tu), site_visit, X);
}

/* ---- short functions (a cost model on the AST) ----------------------------
 * A function (not main) whose own code cannot take long: no loop but tiny
 * and bisection loops, no goto, at most AA_SHORT_MAX_STATEMENTS statements,
 * and calls only to cheap routines (as for tiny leaves), to memory and
 * string routines, and to at most AA_SHORT_MAX_CALLS functions of the
 * program, which are regions of their own (or are left out themselves):
 * never an MPI call, I/O or another library routine, where a process may
 * wait, and no measured function that this file calls from several places
 * (the short caller is then its calling context: see call_sites).  Error paths (an if branch that only reports and then returns or
 * stops the program) are not counted.  Its time is a few hundred
 * instructions of straight-line code plus what its callees measure. */

/* Name of the function a call at node k calls (NULL: through a pointer or
 * unknown); *sys: declared in a system header, or defined in a header (a
 * header's code is never instrumented, so what it does is measured by no
 * region of its own: it counts as library code). */
static char *callee_name(ctx *X, int k, int *sys, int *method)
{
    CXCursor ref = clang_getCursorReferenced(X->n[k].c), def;
    enum CXCursorKind rk;
    *sys = 0;
    *method = 0;
    if (clang_Cursor_isNull(ref))
        return NULL;
    rk = clang_getCursorKind(ref);
    if (X->cxx && rk == CXCursor_CXXMethod && !clang_CXXMethod_isVirtual(ref))
        *method = 1;
    else if (rk != CXCursor_FunctionDecl && rk != CXCursor_FunctionTemplate)
        return NULL;
    *sys = clang_Location_isInSystemHeader(clang_getCursorLocation(ref));
    def = clang_getCursorDefinition(ref);
    if (!*sys && !clang_Cursor_isNull(def)) {
        CXFile f = NULL;
        clang_getFileLocation(clang_getCursorLocation(def), &f, NULL, NULL, NULL);
        *sys = !f || !clang_File_isEqual(f, X->mainf);
    }
    return X->cxx ? instr_cxx_name(ref) : cx_str(clang_getCursorSpelling(ref));
}

/* Node k is an if's then or else branch that ends the function or the
 * program after reporting: its last statement is a return or a call that
 * does not return (exit, abort, MPI_Abort, ...), and it calls nothing but
 * reporting (printf, perror, ...), non-returning and cheap routines. */
static int error_path(ctx *X, int k)
{
    int last = k, p = X->n[k].parent;
    size_t end;
    if (p < 0 || X->n[p].kind != CXCursor_IfStmt || X->n[k].index < 1)
        return 0;
    if (X->n[k].kind == CXCursor_CompoundStmt)
        last = X->n[k].last;
    if (last < 0)
        return 0;
    if (X->n[last].kind != CXCursor_ReturnStmt) {
        int sys, meth, ok;
        char *nm;
        if (X->n[last].kind != CXCursor_CallExpr)
            return 0;
        nm = callee_name(X, last, &sys, &meth);
        ok = nm && instr_call_noreturn(nm);
        free(nm);
        if (!ok)
            return 0;
    }
    end = subtree_end(X, k);
    for (size_t j = (size_t)k + 1; j < end; j++) {
        int sys, meth, ok;
        char *nm;
        if (X->n[j].kind == CXCursor_GotoStmt || X->n[j].kind == CXCursor_IndirectGotoStmt ||
            is_loop(X->n[j].kind))
            return 0;
        if (X->n[j].kind != CXCursor_CallExpr)
            continue;
        nm = callee_name(X, (int)j, &sys, &meth);
        ok = nm && (instr_call_report(nm) || instr_call_noreturn(nm) || instr_call_pure(nm) ||
                    small_function(X, nm));
        free(nm);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Source text of a binary operator's operator (node b: the text between
 * its first and last child), trimmed, into buf; "" when not in the file. */
static void operator_text(ctx *X, int b, char *buf, size_t cap)
{
    int l = X->n[b].first, r = X->n[b].last;
    unsigned s, e;
    buf[0] = '\0';
    if (l < 0 || r < 0 || l == r || !X->n[l].in_main || !X->n[r].in_main ||
        X->n[l].e > X->n[r].s)
        return;
    s = X->n[l].e;
    e = X->n[r].s;
    trim_range(X, &s, &e);
    if (e > s && e - s < cap) {
        memcpy(buf, X->S.text + s, e - s);
        buf[e - s] = '\0';
    }
}

/* The variable a DeclRefExpr at node k names (a local or a parameter). */
static int var_ref(ctx *X, int k, CXCursor *v)
{
    CXCursor ref;
    if (X->n[k].kind != CXCursor_DeclRefExpr)
        return 0;
    ref = clang_getCursorReferenced(X->n[k].c);
    if (clang_Cursor_isNull(ref) || (clang_getCursorKind(ref) != CXCursor_VarDecl &&
                                     clang_getCursorKind(ref) != CXCursor_ParmDecl))
        return 0;
    *v = ref;
    return 1;
}

#define AA_BISECT_VARS 16
typedef struct varset {
    CXCursor v[AA_BISECT_VARS];
    int n, full;
} varset;

static int varset_has(const varset *S, CXCursor c)
{
    for (int i = 0; i < S->n; i++)
        if (clang_equalCursors(S->v[i], c))
            return 1;
    return 0;
}

/* Adds the variables referenced in node k's subtree; 1 when one was new. */
static int varset_add_refs(ctx *X, varset *S, int k)
{
    size_t end = subtree_end(X, k);
    int added = 0;
    for (size_t j = (size_t)k; j < end; j++) {
        CXCursor v;
        if (!var_ref(X, (int)j, &v) || varset_has(S, v))
            continue;
        if (S->n == AA_BISECT_VARS) {
            S->full = 1;
            continue;
        }
        S->v[S->n++] = v;
        added = 1;
    }
    return added;
}

static int integer_type(CXCursor c)
{
    enum CXTypeKind t = clang_getCanonicalType(clang_getCursorType(c)).kind;
    return t >= CXType_Bool && t <= CXType_Int128;
}

static int unsigned_type(CXCursor c)
{
    enum CXTypeKind t = clang_getCanonicalType(clang_getCursorType(c)).kind;
    return t >= CXType_Bool && t <= CXType_UInt128;
}

/* Node k without implicit conversions and parentheses around it. */
static int strip_expr(ctx *X, int k)
{
    while (k >= 0 && (X->n[k].kind == CXCursor_UnexposedExpr || X->n[k].kind == CXCursor_ParenExpr) &&
           X->n[k].first >= 0 && X->n[k].first == X->n[k].last)
        k = X->n[k].first;
    return k;
}

/* The operator op with the integer literal lit at least halves a
 * non-negative integer: `/ C` with C >= 2, `>> C` with 1 <= C <= 63
 * (compound: `/=`, `>>=`).  Dividing by 10 or shifting by a byte
 * (`x >>= 8`) ends a loop on x sooner than halving does. */
static int halving_op(const char *op, const char *lit, int compound)
{
    char *q;
    long long c;
    if (!isdigit((unsigned char)lit[0]) || (lit[0] == '0' && lit[1]))
        return 0; /* decimal only */
    c = strtoll(lit, &q, 10);
    while (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L')
        q++;
    if (*q)
        return 0;
    if (!strcmp(op, compound ? "/=" : "/"))
        return c >= 2;
    if (!strcmp(op, compound ? ">>=" : ">>"))
        return c >= 1 && c <= 63;
    return 0;
}

/* Node h at least halves an integer: `E / C`, `E >> C` (halving_op);
 * *operand = E's node. */
static int halving(ctx *X, int h, int *operand)
{
    char op[8], lit[8];
    int r = strip_expr(X, X->n[h].last);
    unsigned s, e;
    if (X->n[h].kind != CXCursor_BinaryOperator || r < 0 || X->n[r].kind != CXCursor_IntegerLiteral ||
        !X->n[r].in_main || !integer_type(X->n[h].c))
        return 0;
    operator_text(X, h, op, sizeof op);
    s = X->n[r].s;
    e = X->n[r].e;
    trim_range(X, &s, &e);
    if (e <= s || e - s >= sizeof lit)
        return 0;
    memcpy(lit, X->S.text + s, e - s);
    lit[e - s] = '\0';
    *operand = X->n[h].first;
    return halving_op(op, lit, 0);
}

/* Node j assigns a variable of S (`v = E`, or a declaration `T v = E`):
 * the node of E, else -1. */
static int assigned_in(ctx *X, int j, const varset *S)
{
    char op[8];
    CXCursor v;
    int l = X->n[j].first;
    if (X->n[j].kind == CXCursor_VarDecl)
        return X->n[j].last >= 0 && varset_has(S, X->n[j].c) ? X->n[j].last : -1;
    if (X->n[j].kind != CXCursor_BinaryOperator || l < 0 || !var_ref(X, l, &v) || !varset_has(S, v))
        return -1;
    operator_text(X, j, op, sizeof op);
    return strcmp(op, "=") ? -1 : X->n[j].last;
}

/* Node j halves a variable of S in place: `v /= 2`, `v >>= 1`. */
static int halving_assign(ctx *X, int j, const varset *S)
{
    char op[8], lit[8];
    CXCursor v;
    int l = X->n[j].first, r;
    unsigned s, e;
    if (X->n[j].kind != CXCursor_CompoundAssignOperator || l < 0 || !var_ref(X, l, &v) ||
        !varset_has(S, v) || !integer_type(X->n[j].c))
        return 0;
    r = strip_expr(X, X->n[j].last);
    if (r < 0 || X->n[r].kind != CXCursor_IntegerLiteral || !X->n[r].in_main)
        return 0;
    operator_text(X, j, op, sizeof op);
    s = X->n[r].s;
    e = X->n[r].e;
    trim_range(X, &s, &e);
    if (e <= s || e - s >= sizeof lit)
        return 0;
    memcpy(lit, X->S.text + s, e - s);
    lit[e - s] = '\0';
    return halving_op(op, lit, 1);
}

/* The parts of the for loop at node i: its condition, step and body
 * nodes (-1 where absent), told apart by where they lie in the header. */
static void for_parts(ctx *X, int i, int *cond, int *inc, int *body)
{
    const char *t = X->S.text;
    unsigned a, semi[2], close = 0;
    int depth = 0, ns = 0;
    *cond = *inc = *body = -1;
    if (X->n[i].kind != CXCursor_ForStmt || !X->n[i].in_main || strncmp(t + X->n[i].s, "for", 3))
        return;
    a = (unsigned)next_code(&X->S, X->n[i].s + 3);
    if (a >= X->S.len || t[a] != '(')
        return;
    for (unsigned q = a; q < X->S.len; q++) {
        if (!X->S.code[q])
            continue;
        if (t[q] == '(')
            depth++;
        else if (t[q] == ')' && --depth == 0) {
            close = q;
            break;
        } else if (t[q] == ';' && depth == 1 && ns < 2)
            semi[ns++] = q;
    }
    if (ns != 2 || !close)
        return;
    for (int c = X->n[i].first; c >= 0; c = X->n[c].next) {
        if (!X->n[c].in_main)
            continue;
        if (X->n[c].s > semi[0] && X->n[c].e <= semi[1])
            *cond = c;
        else if (X->n[c].s > semi[1] && X->n[c].e <= close)
            *inc = c;
        else if (X->n[c].s > close)
            *body = c;
    }
}

/* A for loop whose step at least halves the one variable of its
 * condition, which nothing else writes: `for (b = 0; x; ++b, x >>= 8)`
 * (the bytes of an integer), `for (; n > 1; n /= 2)`.  The condition is
 * `x`, `x != 0`, `x > C` or `x >= C` with a constant C (>= 1 for >=): it
 * fails once x reaches 0, so the loop runs at most 64 times (64-bit x).
 * The body is straight-line (no loop but tiny ones, no goto, no call but
 * cheap ones). */
static int written_ref(ctx *X, int k);
static int const_value(ctx *X, int i, unsigned s, unsigned e, long long *v);
static int shift_loop(ctx *X, int i)
{
    int cond, inc, body, c, found = 0;
    size_t end = subtree_end(X, i);
    varset S;
    char op[8] = "";
    long long lim = 0;
    for_parts(X, i, &cond, &inc, &body);
    if (cond < 0 || inc < 0 || body < 0 || blocks_in(X, (size_t)i + 1, end, 0))
        return 0;
    S.n = S.full = 0;
    varset_add_refs(X, &S, cond);
    if (S.n != 1 || S.full || !integer_type(S.v[0]))
        return 0;
    c = strip_expr(X, cond);
    if (X->n[c].kind == CXCursor_BinaryOperator) {
        int r = strip_expr(X, X->n[c].last);
        unsigned rs, re;
        operator_text(X, c, op, sizeof op);
        if (r < 0 || !X->n[r].in_main)
            return 0;
        rs = X->n[r].s;
        re = X->n[r].e;
        trim_range(X, &rs, &re);
        if (strip_expr(X, X->n[c].first) < 0 || X->n[strip_expr(X, X->n[c].first)].kind != CXCursor_DeclRefExpr ||
            !const_value(X, i, rs, re, &lim))
            return 0;
        if (!((!strcmp(op, "!=") && lim == 0) || (!strcmp(op, ">") && lim >= 0) ||
              (!strcmp(op, ">=") && lim >= 1)))
            return 0;
    } else if (X->n[c].kind != CXCursor_DeclRefExpr)
        return 0;
    if (lim == 0 && strcmp(op, ">") && !unsigned_type(S.v[0]))
        return 0; /* `x`, `x != 0`: a negative x shifted right stays negative */
    for (size_t j = (size_t)inc; j < subtree_end(X, inc) && !found; j++) {
        int rhs = assigned_in(X, (int)j, &S);
        if (halving_assign(X, (int)j, &S))
            found = 1;
        else if (rhs >= 0) {
            int operand;
            varset E;
            int h = strip_expr(X, rhs);
            if (h >= 0 && halving(X, h, &operand) && operand >= 0) {
                E.n = E.full = 0;
                varset_add_refs(X, &E, operand);
                found = E.n == 1 && varset_has(&S, E.v[0]);
            }
        }
    }
    if (!found)
        return 0;
    for (size_t j = (size_t)body; j < subtree_end(X, body); j++) {
        CXCursor v;
        if (var_ref(X, (int)j, &v) && varset_has(&S, v) && written_ref(X, (int)j))
            return 0;
    }
    return 1;
}

/* A bisection loop: a while or do loop with a straight-line body (no loop
 * but tiny ones, no goto, no call but cheap ones) in which the variables
 * that decide the condition are reassigned from a halving of themselves:
 * `mid = (lo + hi) / 2; if (a[mid] < x) lo = mid + 1; else hi = mid;`.
 * With integer variables it runs at most 64 times (log2 of the range).
 * The controlling set is the condition's variables closed over the
 * assignments of the body (a variable assigned to one of them joins).
 * A for loop is one when its step halves its condition (shift_loop). */
static int bisection_loop(ctx *X, int i)
{
    int cond, up[2] = {-1, -1};
    size_t end = subtree_end(X, i);
    varset S;
    int grew, pass = 0;
    if (X->n[i].kind == CXCursor_WhileStmt) {
        cond = X->n[i].first;
        up[0] = X->n[i].last;
    } else if (X->n[i].kind == CXCursor_DoStmt) {
        cond = X->n[i].last;
        up[0] = X->n[i].first;
    } else if (X->n[i].kind == CXCursor_ForStmt)
        return shift_loop(X, i);
    else
        return 0;
    if (cond < 0 || up[0] < 0 || cond == up[0] || !X->n[i].in_main ||
        blocks_in(X, (size_t)i + 1, end, 0))
        return 0;
    S.n = S.full = 0;
    varset_add_refs(X, &S, cond);
    if (!S.n)
        return 0;
    do { /* close S over the assignments of the body and the step */
        grew = 0;
        for (int u = 0; u < 2; u++)
            for (size_t j = (size_t)up[u]; up[u] >= 0 && j < subtree_end(X, up[u]); j++) {
                int rhs = assigned_in(X, (int)j, &S);
                if (rhs >= 0)
                    grew |= varset_add_refs(X, &S, rhs);
            }
    } while (grew && ++pass < 8);
    if (S.full)
        return 0;
    for (int u = 0; u < 2; u++)
        for (size_t j = (size_t)up[u]; up[u] >= 0 && j < subtree_end(X, up[u]); j++) {
            int rhs = assigned_in(X, (int)j, &S);
            size_t rend;
            if (halving_assign(X, (int)j, &S))
                return 1;
            if (rhs < 0)
                continue;
            rend = subtree_end(X, rhs);
            for (size_t h = (size_t)rhs; h < rend; h++) {
                int operand;
                varset E;
                if (!halving(X, (int)h, &operand) || operand < 0)
                    continue;
                E.n = E.full = 0;
                varset_add_refs(X, &E, operand);
                for (int q = 0; q < E.n; q++)
                    if (varset_has(&S, E.v[q]))
                        return 1;
            }
        }
    return 0;
}

/* Statements on the longest path through node k: a block sums its
 * statements, an if costs 1 plus its dearer branch (an error path costs
 * nothing), a tiny or bisection loop 1 plus its body once, any other
 * statement (a macro's expansion included) 1.  What one visit executes,
 * up to the loops' trip counts. */
static int path_statements(ctx *X, int k)
{
    enum CXCursorKind kd = X->n[k].kind;
    int n = 0;
    if (kd == CXCursor_NullStmt || error_path(X, k))
        return 0;
    if (kd == CXCursor_CompoundStmt) {
        for (int c = X->n[k].first; c >= 0; c = X->n[c].next)
            n += path_statements(X, c);
        return n;
    }
    if (macro_made(X, k))
        return 1;
    if (kd == CXCursor_IfStmt) {
        int a = 0, b = 0;
        for (int c = X->n[k].first; c >= 0; c = X->n[c].next)
            if (X->n[c].index == 1)
                a = path_statements(X, c);
            else if (X->n[c].index == 2)
                b = path_statements(X, c);
        return 1 + (a > b ? a : b);
    }
    if (is_loop(kd) && X->n[k].last >= 0)
        return 1 + path_statements(X, X->n[k].last);
    return 1;
}

/* The body holds an OpenMP directive (`#pragma omp`, `_Pragma("omp ...")`):
 * threads start or wait there, whether or not libclang parsed it. */
static int omp_in_body(ctx *X, int body)
{
    const char *t = X->S.text + X->n[body].s, *end = X->S.text + X->n[body].e, *p = t;
    size_t end_node = subtree_end(X, body);
    for (size_t k = (size_t)body; k < end_node; k++)
        if (is_omp(X->n[k].kind))
            return 1;
    while (p < end && (p = memmem(p, (size_t)(end - p), "pragma", 6)) != NULL) {
        p += 6;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '(' || *p == '"'))
            p++;
        if (end - p >= 3 && !memcmp(p, "omp", 3))
            return 1;
    }
    return 0;
}

/* ---- cheap header functions ---------------------------------------------
 * A function defined in a project header (static inline, never
 * instrumented) is measured by nothing but its callers' regions, so a call
 * to it keeps a short caller -- unless it is cheap itself: no loop, no
 * goto, at most AA_SHORT_MAX_STATEMENTS statements, calling only cheap,
 * memory, string, reporting and non-returning routines, getenv and the
 * string-to-number routines, and cheap header functions (at most
 * AA_HDR_DEPTH levels).  PRK's prk_malloc (prk_get_alignment: getenv,
 * atoi, assert; posix_memalign) and prk_free (free) are cheap. */
#define AA_HDR_DEPTH 4

typedef struct hdr_scan {
    int depth, statements, bad;
} hdr_scan;

static int hdr_cheap_def(CXCursor def, int depth);

static int hdr_nowait(const char *nm)
{
    static const char *const w[] = {"atof", "atoi", "atol", "atoll", "getenv", "strtod",
                                    "strtof", "strtol", "strtoll", "strtoul", "strtoull"};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (!strcmp(nm, w[i]))
            return 1;
    return 0;
}

static enum CXChildVisitResult hdr_visit(CXCursor c, CXCursor p, CXClientData data)
{
    hdr_scan *h = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (clang_getCursorKind(p) == CXCursor_CompoundStmt && clang_isStatement(k) &&
        k != CXCursor_CompoundStmt && k != CXCursor_NullStmt)
        h->statements++;
    if (is_loop(k) || k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt || is_omp(k) ||
        h->statements > AA_SHORT_MAX_STATEMENTS) {
        h->bad = 1;
        return CXChildVisit_Break;
    }
    if (k == CXCursor_CallExpr) {
        CXCursor ref = clang_getCursorReferenced(c);
        CXString nm;
        const char *n;
        int ok;
        if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl) {
            h->bad = 1;
            return CXChildVisit_Break;
        }
        nm = clang_getCursorSpelling(ref);
        n = clang_getCString(nm);
        ok = n && (instr_call_pure(n) || instr_call_memory(n) || instr_call_report(n) ||
                   instr_call_noreturn(n) || hdr_nowait(n));
        clang_disposeString(nm);
        if (!ok)
            ok = hdr_cheap_def(clang_getCursorDefinition(ref), h->depth + 1);
        if (!ok) {
            h->bad = 1;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* 1 when def is the definition of a cheap function of a project header. */
static int hdr_cheap_def(CXCursor def, int depth)
{
    hdr_scan h = {depth, 0, 0};
    CXSourceLocation l;
    if (clang_Cursor_isNull(def) || depth > AA_HDR_DEPTH ||
        clang_getCursorKind(def) != CXCursor_FunctionDecl)
        return 0;
    l = clang_getCursorLocation(def);
    if (clang_Location_isFromMainFile(l) || clang_Location_isInSystemHeader(l))
        return 0;
    clang_visitChildren(def, hdr_visit, &h);
    return !h.bad;
}

/* The call at node k is to a cheap function defined in a project header. */
static int hdr_cheap_call(ctx *X, int k)
{
    CXCursor ref = clang_getCursorReferenced(X->n[k].c);
    if (X->cxx || clang_Cursor_isNull(ref))
        return 0;
    return hdr_cheap_def(clang_getCursorDefinition(ref), 0);
}

/* The call at node k is to a function defined in the main file. */
static int defined_here(ctx *X, int k)
{
    CXCursor ref = clang_getCursorReferenced(X->n[k].c), def;
    if (clang_Cursor_isNull(ref))
        return 0;
    def = clang_getCursorDefinition(ref);
    return !clang_Cursor_isNull(def) && clang_Location_isFromMainFile(clang_getCursorLocation(def));
}

/* The short-function rule for the body: its reason, or NULL. */
static const char *short_function(ctx *X, int body)
{
    size_t end = subtree_end(X, body);
    int calls = 0, bisect = 0;
    if (omp_in_body(X, body))
        return NULL;
    for (size_t k = (size_t)body + 1; k < end; k++) {
        enum CXCursorKind kd = X->n[k].kind;
        if (error_path(X, (int)k)) {
            k = subtree_end(X, (int)k) - 1;
            continue;
        }
        if (is_loop(kd)) {
            if (tiny_loop(X, (int)k))
                ;
            else if (bisection_loop(X, (int)k))
                bisect = 1;
            else
                return NULL;
            k = subtree_end(X, (int)k) - 1; /* both are straight-line inside */
            continue;
        }
        if (kd == CXCursor_GotoStmt || kd == CXCursor_IndirectGotoStmt)
            return NULL;
        if (kd == CXCursor_CallExpr) {
            int sys, meth;
            char *nm = callee_name(X, (int)k, &sys, &meth);
            int cheap = nm && (instr_call_pure(nm) || small_function(X, nm) ||
                               (!meth && instr_call_memory(nm)) || (!meth && instr_call_noreturn(nm)) ||
                               (sys && hdr_cheap_call(X, (int)k)));
            int mpi = nm && (!strncmp(nm, "MPI_", 4) || !strncmp(nm, "PMPI_", 5));
            int named = nm != NULL;
            /* a measured function called from several places: this caller's
             * region is what tells its calls apart (a phase function
             * calling a shared kernel with its own share of the work).
             * Measured means defined in this file and not left out: a
             * function defined elsewhere may be left out there (graph500's
             * aml_send, a short function of aml.c, called by four short
             * senders of validate.c millions of times), and then no caller's
             * region tells anything apart */
            int context = named && !cheap && !sys && !mpi && call_sites(X, nm) >= 2 &&
                          defined_here(X, (int)k);
            free(nm);
            if (cheap)
                continue;
            if (context)
                return NULL;
            /* a function of the program (not declared in a system header,
             * not MPI), or in C a call through a pointer: a region of its
             * own, or code the size rules leave out elsewhere */
            if (mpi || sys || (!named && X->cxx))
                return NULL;
            if (++calls > AA_SHORT_MAX_CALLS)
                return NULL;
        }
    }
    if (path_statements(X, body) > AA_SHORT_MAX_STATEMENTS)
        return NULL;
    return bisect ? "bounded search function (bisection loop, at most 64 steps)"
           : calls ? "short function (at most 24 statements per visit, at most 2 calls to functions of the program, no MPI or I/O)"
                   : "short leaf function (at most 24 statements per visit, no call that may wait)";
}

/* The size rule for a function, or NULL.  A function left out is noted,
 * so that calls to it do not count as blocking calls. */
static const char *function_small(ctx *X, CXCursor fn, int body, const char *fname)
{
    const char *why = NULL;
    if (X->cxx ? instr_has_word(X->S.text, X->S.code, X->n[0].s, X->n[body].s, "inline")
               : static_inline(X, fn))
        why = X->cxx && !instr_has_word(X->S.text, X->S.code, X->n[0].s, X->n[body].s, "static")
                  ? "inline function"
                  : "static inline function";
    else if (strcmp(fname, "main") && !not_straight_line(X, body) &&
             count_statements(X, body) <= AA_TINY_MAX_STATEMENTS)
        why = "tiny leaf function";
    else if (strcmp(fname, "main"))
        why = short_function(X, body);
    if (why)
        note_small_function(X, fname);
    return why;
}

/* The loop at node i is its function's body but for at most 24 straight-line
 * statements (declarations, assignments, a return; no other loop but tiny
 * ones, no call that may block), and it computes only (loops, but no call
 * that may block, no goto): a search or a BLAS-1 helper.  The function's
 * region measures the same time and visits, so a second probe pair around
 * the loop tells nothing.  It is left out while the function itself is
 * instrumented (size_rules).  A loop that communicates, does I/O or calls
 * other code stays: that is where the analysis places its findings. */
static int body_loop(ctx *X, int i, int body, const char *fname)
{
    int others = 0;
    if (X->n[i].parent != body || !strcmp(fname, "main") ||
        blocks_in(X, (size_t)i + 1, subtree_end(X, i), 1))
        return 0;
    for (int k = X->n[body].first; k >= 0; k = X->n[k].next) {
        if (k == i || X->n[k].kind == CXCursor_NullStmt)
            continue;
        /* blocks_in without loops_ok refuses any loop but a tiny one */
        if (++others > AA_SHORT_MAX_STATEMENTS || blocks_in(X, (size_t)k, subtree_end(X, k), 0))
            return 0;
    }
    return 1;
}

/* Value of the expression written at [s,e) of the main file (within node
 * i's subtree): a decimal literal, or any integer constant expression
 * libclang evaluates (macros, enumerators, sizeof).  0 when unknown. */
static int const_value(ctx *X, int i, unsigned s, unsigned e, long long *v)
{
    size_t end = subtree_end(X, i);
    char *q;
    char buf[32];
    if (e > s && e - s < sizeof buf) {
        memcpy(buf, X->S.text + s, e - s);
        buf[e - s] = '\0';
        if (isdigit((unsigned char)buf[0])) {
            long long x = strtoll(buf, &q, 10);
            while (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L')
                q++;
            if (!*q && (buf[0] != '0' || !buf[1])) {
                *v = x;
                return 1;
            }
        }
    }
    for (size_t k = (size_t)i + 1; k < end; k++) {
        node *d = &X->n[k];
        CXEvalResult r;
        int ok = 0;
        if (d->s != s || d->e != e || !clang_isExpression(d->kind))
            continue;
        r = clang_Cursor_Evaluate(d->c);
        if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
            *v = clang_EvalResult_getAsLongLong(r);
            ok = 1;
        }
        if (r)
            clang_EvalResult_dispose(r);
        return ok;
    }
    return 0;
}

/* [s,e) trimmed of blanks and comments. */
static void trim_range(ctx *X, unsigned *s, unsigned *e)
{
    long p;
    *s = (unsigned)next_code(&X->S, *s);
    p = prev_code(&X->S, *e);
    *e = p >= (long)*s ? (unsigned)p + 1 : *s;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* A `do { ... } while (0)`, the statement idiom of C macros: its
 * condition (the last child) is an integer constant 0, so it runs once. */
static int do_while_zero(ctx *X, int i)
{
    int cond = X->n[i].last;
    CXEvalResult r;
    int zero = 0;
    if (cond < 0 || !clang_isExpression(X->n[cond].kind))
        return 0;
    r = clang_Cursor_Evaluate(X->n[cond].c);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int)
        zero = clang_EvalResult_getAsLongLong(r) == 0;
    if (r)
        clang_EvalResult_dispose(r);
    return zero;
}

/* One bound of a for header: the constant c, or (var[0] set) the value of
 * the variable `var` plus c -- an enclosing loop's variable, for the nest
 * rule (nest_tiny). */
typedef struct for_term {
    char var[64];
    long long c;
} for_term;

/* A for header `for (v = A; v OP B; STEP)` as the size rules read it. */
typedef struct for_hdr {
    char var[64];
    for_term lo, hi; /* A and B */
    char op;         /* '<', '>' or '!' */
    int ol;          /* 1: < >, 2: <= >= != */
    long long step;  /* signed */
    unsigned hs, he;  /* the header, ( to ): where v is written */
} for_hdr;

/* [s,e) is a constant, or `w`, `w + C`, `w - C` with w an identifier and
 * C a constant (what an inner loop of a nest starts or stops at). */
static int for_bound(ctx *X, int i, unsigned s, unsigned e, for_term *b)
{
    const char *t = X->S.text;
    unsigned q = s, r;
    b->var[0] = '\0';
    b->c = 0;
    if (const_value(X, i, s, e, &b->c))
        return 1;
    while (q < e && ident_char(t[q]))
        q++;
    if (q == s || q - s >= sizeof b->var || isdigit((unsigned char)t[s]))
        return 0;
    memcpy(b->var, t + s, q - s);
    b->var[q - s] = '\0';
    r = (unsigned)next_code(&X->S, q);
    if (r >= e)
        return 1;
    if (t[r] != '+' && t[r] != '-')
        return 0;
    {
        unsigned s0 = r + 1, e0 = e;
        long long c;
        trim_range(X, &s0, &e0);
        if (!const_value(X, i, s0, e0, &c) || c < -(1LL << 40) || c > (1LL << 40))
            return 0;
        b->c = t[r] == '+' ? c : -c;
    }
    return 1;
}

/* Parses the header of the for loop at node i: `for (v = A; v OP B; STEP)`
 * with OP one of < <= != > >=, STEP one of v++ ++v v-- --v v += C v -= C
 * (C a decimal literal), A and B as for_bound reads them.  0 when not of
 * that form. */
static int for_header(ctx *X, int i, for_hdr *h)
{
    const char *t = X->S.text;
    node *d = &X->n[i];
    unsigned a, b, semi[2], close = 0, vs, ve, ce, os = 0;
    int depth = 0, ns = 0;
    char inc[64];
    size_t ni = 0;
    h->ol = 0;
    h->step = 0;
    if (d->kind != CXCursor_ForStmt || !d->in_main || strncmp(t + d->s, "for", 3))
        return 0;
    a = (unsigned)next_code(&X->S, d->s + 3);
    if (a >= X->S.len || t[a] != '(')
        return 0;
    for (unsigned q = a; q < X->S.len; q++) {
        if (!X->S.code[q])
            continue;
        if (t[q] == '(')
            depth++;
        else if (t[q] == ')' && --depth == 0) {
            close = q;
            break;
        } else if (t[q] == ';' && depth == 1) {
            if (ns == 2)
                return 0;
            semi[ns++] = q;
        }
    }
    if (ns != 2 || !close)
        return 0;
    /* init: [type] v = A */
    for (b = a + 1; b < semi[0] && !(t[b] == '=' && t[b + 1] != '='); b++)
        ;
    if (b >= semi[0])
        return 0;
    ve = b;
    vs = a + 1;
    trim_range(X, &vs, &ve);
    for (unsigned q = ve; q > vs && ident_char(t[q - 1]); q--)
        vs = q - 1;
    if (ve <= vs || ve - vs >= sizeof h->var)
        return 0;
    memcpy(h->var, t + vs, ve - vs);
    h->var[ve - vs] = '\0';
    {
        unsigned s0 = b + 1, e0 = semi[0];
        trim_range(X, &s0, &e0);
        if (!for_bound(X, i, s0, e0, &h->lo))
            return 0;
    }
    /* condition: v OP B */
    for (b = semi[0] + 1; b < semi[1]; b++)
        if (X->S.code[b] && (t[b] == '<' || t[b] == '>' || t[b] == '!')) {
            os = b;
            h->ol = t[b + 1] == '=' ? 2 : 1;
            if (t[b] == '!' && h->ol != 2)
                return 0;
            if (t[b + 1] == t[b])
                return 0; /* << >> */
            break;
        }
    if (!h->ol)
        return 0;
    h->op = t[os];
    {
        unsigned s0 = semi[0] + 1, e0 = os;
        trim_range(X, &s0, &e0);
        if (e0 - s0 != strlen(h->var) || strncmp(t + s0, h->var, e0 - s0))
            return 0;
        s0 = os + (unsigned)h->ol;
        e0 = semi[1];
        trim_range(X, &s0, &e0);
        if (!for_bound(X, i, s0, e0, &h->hi))
            return 0;
    }
    /* step */
    h->hs = a;
    h->he = close + 1;
    for (unsigned q = semi[1] + 1; q < close; q++)
        if (X->S.code[q] && !isspace((unsigned char)t[q])) {
            if (ni + 1 >= sizeof inc)
                return 0;
            inc[ni++] = t[q];
        }
    inc[ni] = '\0';
    ce = (unsigned)strlen(h->var);
    if (ni == ce + 2 && !strncmp(inc, h->var, ce) &&
        (!strcmp(inc + ce, "++") || !strcmp(inc + ce, "--")))
        h->step = inc[ce] == '+' ? 1 : -1;
    else if (ni == ce + 2 && !strcmp(inc + 2, h->var) && (!strncmp(inc, "++", 2) || !strncmp(inc, "--", 2)))
        h->step = inc[0] == '+' ? 1 : -1;
    else if (ni > ce + 2 && !strncmp(inc, h->var, ce) && inc[ce + 1] == '=' &&
             (inc[ce] == '+' || inc[ce] == '-')) {
        char *q;
        long long c = strtoll(inc + ce + 2, &q, 10);
        if (*q || c <= 0 || !isdigit((unsigned char)inc[ce + 2]))
            return 0;
        h->step = inc[ce] == '+' ? c : -c;
    } else
        return 0;
    return 1;
}

/* Iterations of `for (v = lo; v OP hi; v += step)`, -1 when unknown (a
 * bound out of range, or a != that the steps jump over). */
static long long trip_count(const for_hdr *h, long long lo, long long hi)
{
    long long step = h->step;
    if (lo < -(1LL << 40) || lo > (1LL << 40) || hi < -(1LL << 40) || hi > (1LL << 40))
        return -1;
    if (step > 0) {
        if (h->op == '<')
            return h->ol == 1 ? (hi > lo ? (hi - lo + step - 1) / step : 0)
                              : (hi >= lo ? (hi - lo) / step + 1 : 0);
        if (h->op == '!' && hi >= lo && (hi - lo) % step == 0)
            return (hi - lo) / step;
    } else {
        step = -step;
        if (h->op == '>')
            return h->ol == 1 ? (lo > hi ? (lo - hi + step - 1) / step : 0)
                              : (lo >= hi ? (lo - hi) / step + 1 : 0);
        if (h->op == '!' && lo >= hi && (lo - hi) % step == 0)
            return (lo - hi) / step;
    }
    return -1;
}

/* Constant trip count of the for loop at node i: `for (v = A; v OP B; STEP)`
 * with integer constants A and B (for_header).  A `do { } while (0)` runs
 * once.  -1 when unknown. */
static long long const_trips(ctx *X, int i)
{
    for_hdr h;
    if (X->n[i].kind == CXCursor_DoStmt)
        return do_while_zero(X, i) ? 1 : -1;
    if (!for_header(X, i, &h) || h.lo.var[0] || h.hi.var[0])
        return -1;
    return trip_count(&h, h.lo.c, h.hi.c);
}

/* ---- tiny loop nests --------------------------------------------------------
 * A nest of for loops whose every trip count is bounded once the enclosing
 * loops' variables take their values (`for (i = 0; i < 12; i++) for (j = i;
 * j > 0; j--)`: a triangular table search) runs a bounded number of
 * statements per execution, like a tiny loop.  It is found by running the
 * nest's control on its headers alone: each loop's bounds are constants or
 * an enclosing loop's variable plus a constant, the bodies are
 * straight-line otherwise (no while loop, no goto, no call that may block)
 * and change no loop variable but in its header's step, and the statements
 * executed -- each loop 1, plus its body per iteration, an if its dearer
 * branch -- are at most AA_TINY_MAX_NEST_STATEMENTS: 8 iterations of a
 * 24-statement body, what the tiny-loop rule already lets a short function
 * execute. */
#define AA_NEST_DEPTH 8
_Static_assert(AA_TINY_MAX_NEST_STATEMENTS == 192, "the reason text of a tiny nest says 192");

typedef struct nest_env {
    const char *var[AA_NEST_DEPTH];
    long long val[AA_NEST_DEPTH];
    int n;
} nest_env;

static long nest_loop(ctx *X, int i, nest_env *E, long budget);

/* Value of a bound under the enclosing loops' variables; 0 when unknown. */
static int nest_bound(const nest_env *E, const for_term *b, long long *v)
{
    if (!b->var[0]) {
        *v = b->c;
        return 1;
    }
    for (int k = E->n - 1; k >= 0; k--)
        if (!strcmp(E->var[k], b->var)) {
            *v = E->val[k] + b->c;
            return 1;
        }
    return 0;
}

/* Statements node k executes inside a nest, -1 when unbounded or over
 * budget. */
static long nest_statements(ctx *X, int k, nest_env *E, long budget)
{
    enum CXCursorKind kd = X->n[k].kind;
    long n = 0;
    if (budget < 0)
        return -1;
    if (kd == CXCursor_NullStmt)
        return 0;
    if (kd == CXCursor_CompoundStmt) {
        for (int c = X->n[k].first; c >= 0; c = X->n[c].next) {
            long m = nest_statements(X, c, E, budget - n);
            if (m < 0)
                return -1;
            n += m;
        }
        return n <= budget ? n : -1;
    }
    if (is_loop(kd))
        return nest_loop(X, k, E, budget);
    if (kd == CXCursor_IfStmt) {
        long a = 0, b = 0;
        for (int c = X->n[k].first; c >= 0; c = X->n[c].next)
            if (X->n[c].index == 1 || X->n[c].index == 2) {
                long m = nest_statements(X, c, E, budget - 1);
                if (m < 0)
                    return -1;
                if (X->n[c].index == 1)
                    a = m;
                else
                    b = m;
            }
        n = 1 + (a > b ? a : b);
        return n <= budget ? n : -1;
    }
    for (size_t j = (size_t)k + 1; j < subtree_end(X, k); j++)
        if (is_loop(X->n[j].kind))
            return -1; /* a loop inside another statement (a switch): not followed */
    return budget >= 1 ? 1 : -1;
}

/* Statements the loop at node i executes (1 plus its body per iteration)
 * with the enclosing loops' variables in E; -1 when unbounded or over
 * budget. */
static long nest_loop(ctx *X, int i, nest_env *E, long budget)
{
    for_hdr h;
    long long lo, hi, trips;
    long total = 1;
    int body = X->n[i].last;
    if (X->n[i].kind == CXCursor_DoStmt && do_while_zero(X, i)) {
        long m = X->n[i].first >= 0 ? nest_statements(X, X->n[i].first, E, budget - 1) : 0;
        return m < 0 ? -1 : 1 + m;
    }
    if (body < 0 || E->n == AA_NEST_DEPTH || !for_header(X, i, &h) || !nest_bound(E, &h.lo, &lo) ||
        !nest_bound(E, &h.hi, &hi) || (trips = trip_count(&h, lo, hi)) < 0 || trips > budget)
        return -1;
    E->var[E->n] = h.var;
    for (long long t = 0; t < trips; t++) {
        long m;
        E->val[E->n] = lo + t * h.step;
        E->n++;
        m = nest_statements(X, body, E, budget - total);
        E->n--;
        if (m < 0)
            return -1;
        total += m;
        if (total > budget)
            return -1;
    }
    return total;
}

/* Node k (a DeclRefExpr) is written to: the left side of an assignment,
 * the operand of ++, -- or & (its address taken). */
static int written_ref(ctx *X, int k)
{
    int p = X->n[k].parent;
    while (p >= 0 && X->n[p].kind == CXCursor_ParenExpr)
        k = p, p = X->n[p].parent;
    if (p < 0)
        return 0;
    if ((X->n[p].kind == CXCursor_BinaryOperator || X->n[p].kind == CXCursor_CompoundAssignOperator) &&
        X->n[p].first == k && X->n[p].last != k) {
        char op[8];
        operator_text(X, p, op, sizeof op);
        return X->n[p].kind == CXCursor_CompoundAssignOperator || !strcmp(op, "=");
    }
    if (X->n[p].kind == CXCursor_UnaryOperator && X->n[p].in_main && X->n[k].in_main) {
        const char *t = X->S.text;
        unsigned s = X->n[p].s, e = X->n[p].e;
        /* the operator: the text of the unary expression outside its operand */
        if (X->n[k].s > s)
            e = X->n[k].s;
        else
            s = X->n[k].e;
        trim_range(X, &s, &e);
        return (e - s == 2 && (!strncmp(t + s, "++", 2) || !strncmp(t + s, "--", 2))) ||
               (e - s == 1 && t[s] == '&');
    }
    return 0;
}

/* The for loop at node i heads a tiny nest (above). */
static int nest_tiny(ctx *X, int i)
{
    nest_env E;
    size_t end = subtree_end(X, i);
    for_hdr h[AA_NEST_DEPTH];
    int nh = 0;
    if (X->n[i].kind != CXCursor_ForStmt || blocks_in(X, (size_t)i + 1, end, 1))
        return 0;
    /* the nest's headers, and no while/do loop but do { } while (0) */
    for (size_t k = (size_t)i; k < end; k++) {
        if (!is_loop(X->n[k].kind))
            continue;
        if (X->n[k].kind == CXCursor_DoStmt && do_while_zero(X, (int)k))
            continue;
        if (nh == AA_NEST_DEPTH || !for_header(X, (int)k, &h[nh]))
            return 0;
        for (int q = 0; q < nh; q++)
            if (!strcmp(h[q].var, h[nh].var))
                return 0; /* one variable for two loops */
        nh++;
    }
    /* no loop variable written but in a loop's header, nor declared
     * again in a body (a shadowing `int i = 1000;` would be read instead) */
    for (size_t k = (size_t)i; k < end; k++) {
        CXString nm;
        const char *n;
        int hit = 0;
        if (!(X->n[k].kind == CXCursor_DeclRefExpr && written_ref(X, (int)k)) &&
            X->n[k].kind != CXCursor_VarDecl)
            continue;
        nm = clang_getCursorSpelling(X->n[k].c);
        n = clang_getCString(nm);
        for (int q = 0; q < nh && n && !hit; q++)
            if (!strcmp(n, h[q].var) && !(X->n[k].s >= h[q].hs && X->n[k].e <= h[q].he))
                hit = 1;
        clang_disposeString(nm);
        if (hit)
            return 0;
    }
    E.n = 0;
    return nest_loop(X, i, &E, AA_TINY_MAX_NEST_STATEMENTS) >= 0;
}

/* Why function `fn` (body node `body`) cannot get a probe, or NULL. */
static const char *function_problem(ctx *X, CXCursor fn, int body, const char *fname)
{
    node *b = &X->n[body];
    if (!b->in_main || b->e == 0 || b->s >= X->S.len || X->S.text[b->s] != '{' ||
        X->S.text[b->e - 1] != '}')
        return "the function body is not in the main file (macro or #include)";
    if (in_macro(X, b->s, b->s + 1))
        return "the function body starts inside a macro expansion";
    if (!strncmp(fname, "aa_runtime_", 11))
        return "the probe runtime itself is never instrumented";
    if (!X->cxx && nonstatic_inline(X, fn))
        return "non-static inline function (it may not reference the static region descriptor)";
    for (size_t i = 0; i < X->nn; i++)
        if (X->n[i].kind == CXCursor_CallExpr) {
            CXString nm = clang_getCursorSpelling(X->n[i].c);
            int bad = instr_call_unsafe(clang_getCString(nm));
            clang_disposeString(nm);
            if (bad)
                return "the function calls setjmp/longjmp (or vfork)";
        }
    return NULL;
}

/* ---- the outlined form ---------------------------------------------------
 * A probe in a function's body changes how the compiler inlines the body's
 * callees (GCC's inliner weighs the callee against the caller's estimated
 * time and size: XSBench's calculate_micro_xs is no longer inlined into an
 * instrumented calculate_macro_xs).  So a C function's region is measured
 * by a wrapper of its own name holding the probe, and the body, renamed
 * NAME__aa_body, static and noinline, is the user's text unchanged: the
 * compiler decides inside it exactly as in the plain build.  Everything
 * is written on the declaration's first line (no newline added). */

/* Identifiers in the body that name the enclosing function: renaming the
 * body would change what they print.  Not assert's (glibc's
 * __ASSERT_FUNCTION, two macro levels down): a failed assertion names
 * NAME__aa_body, and only as the program aborts. */
static int names_function(const char *t, size_t n)
{
    static const char *const w[] = {"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (strlen(w[i]) == n && !strncmp(t, w[i], n))
            return 1;
    return 0;
}

/* 1 when the macro expanded at offset off of the main file is defined with
 * one of names_function's identifiers (one level: the macro's own text). */
static int macro_names_function(ctx *X, unsigned off)
{
    CXCursor c = clang_getCursor(X->tu, clang_getLocationForOffset(X->tu, X->mainf, off)), d;
    CXToken *tk = NULL;
    unsigned nt = 0;
    int hit = 0;
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
        return 0;
    d = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(d))
        return 1; /* unknown: be safe */
    clang_tokenize(X->tu, clang_getCursorExtent(d), &tk, &nt);
    for (unsigned i = 0; i < nt && !hit; i++) {
        CXString sp;
        if (clang_getTokenKind(tk[i]) != CXToken_Identifier &&
            clang_getTokenKind(tk[i]) != CXToken_Keyword)
            continue;
        sp = clang_getTokenSpelling(X->tu, tk[i]);
        hit = names_function(clang_getCString(sp), strlen(clang_getCString(sp)));
        clang_disposeString(sp);
    }
    if (tk)
        clang_disposeTokens(X->tu, tk, nt);
    return hit;
}

/* outline_plan's checks and copy; act[i - hs] says whether byte i of the
 * declaration is code the preprocessor keeps (NULL: every code byte). */
#define DCODE(i) (act ? act[(i) - hs] : X->S.code[i])
static const char *outline_check(ctx *X, CXCursor fn, int root, int body, const char *fname,
                                 cand *fc, const unsigned char *act)
{
    static const char *const bad[] = {"__attribute__", "__attribute", "__declspec", "asm",
                                      "__asm__", "__asm", "_Noreturn", "noreturn", "extern",
                                      "inline", "__inline", "__inline__", "_Thread_local"};
    CXType t = clang_getCursorType(fn);
    unsigned hs = X->n[root].s, bs = X->n[body].s, be = X->n[body].e, no;
    size_t fl = strlen(fname);
    int nargs = clang_Cursor_getNumArguments(fn);
    aa_buf h = {0}, a = {0};

    if (X->cxx)
        return "C++ (the probe goes into the body)";
    if (X->o->probe_in_body)
        return "the outlined form is off (--probe-in-body)";
    if (!strcmp(fname, "main"))
        return "main (its implicit return 0)";
    /* macros may be used in the declaration (the copy expands them the
     * same way), the name and the body's brace must be written */
    if (!X->n[root].in_main || hs >= bs || in_macro(X, bs, bs + 1) || conditional_problem(X, hs, bs))
        return "the declaration is not plain text of the file";
    if (t.kind != CXType_FunctionProto && nargs != 0)
        return "K&R definition";
    if (t.kind == CXType_FunctionProto && clang_isFunctionTypeVariadic(t))
        return "variadic function";
    if (nargs < 0)
        return "unknown parameters";
    if (under_pragma(X, hs, 0))
        return "a pragma applies to the declaration";
    for (size_t i = 0; i < X->nn; i++)
        if (clang_isAttribute(X->n[i].kind))
            return "the declaration has attributes";
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (instr_has_word(X->S.text, X->S.code, hs, bs, bad[i]))
            return "the declaration has attributes or a storage class other than static";
    for (unsigned i = hs; i < bs; i++)
        if (DCODE(i) && (X->S.text[i] == '"' || X->S.text[i] == '\'' ||
                             (X->S.text[i] == '[' && i + 1 < bs && X->S.text[i + 1] == '[')))
            return "the declaration has attributes";
    if (!loc_off(X, clang_getCursorLocation(fn), &no) || no < hs || no + fl > bs ||
        strncmp(X->S.text + no, fname, fl))
        return "the name is not written in the declaration";
    /* NAME ( PARAMS ) then the body: no K&R parameter declarations, no
     * declarator around the name (a function returning a pointer to a
     * function) */
    {
        unsigned i = no + (unsigned)fl;
        int depth = 0;
        while (i < bs && (!DCODE(i) || isspace((unsigned char)X->S.text[i])))
            i++;
        if (i >= bs || X->S.text[i] != '(')
            return "the name is not followed by its parameters";
        for (; i < bs; i++) {
            if (!DCODE(i))
                continue;
            if (X->S.text[i] == '(')
                depth++;
            else if (X->S.text[i] == ')' && --depth == 0)
                break;
        }
        for (i++; i < bs; i++)
            if (DCODE(i) && !isspace((unsigned char)X->S.text[i]))
                return "K&R definition, or a declarator around the name";
    }
    /* something to inline: a call to a function defined in this
     * translation unit (the file or its headers) other than itself; with
     * none, the compiler has no inlining to decide in the body and the
     * outlined form would only cost a call */
    {
        int callee = 0;
        for (size_t k = (size_t)body; k < X->nn && !callee; k++) {
            CXCursor ref, def;
            if (X->n[k].kind != CXCursor_CallExpr)
                continue;
            ref = clang_getCursorReferenced(X->n[k].c);
            if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl)
                continue;
            def = clang_getCursorDefinition(ref);
            if (!clang_Cursor_isNull(def) && !clang_equalCursors(def, fn) &&
                !clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
                callee = 1;
        }
        if (!callee)
            return "nothing to inline in the body (no call to a function defined in this file or its headers)";
    }
    /* the body must not name its function (__func__, assert) */
    for (unsigned i = bs; i < be; i++) {
        unsigned j = i;
        if (!X->S.code[i] || !(isalpha((unsigned char)X->S.text[i]) || X->S.text[i] == '_') ||
            (i > 0 && (isalnum((unsigned char)X->S.text[i - 1]) || X->S.text[i - 1] == '_')))
            continue;
        while (j < be && (isalnum((unsigned char)X->S.text[j]) || X->S.text[j] == '_'))
            j++;
        if (names_function(X->S.text + i, j - i))
            return "the body names its function (__func__)";
        if (in_macro(X, i, i + 1) && macro_names_function(X, i))
            return "the body names its function (__func__)";
        i = j - 1;
    }
    for (int k = 0; k < nargs; k++) {
        char *pn = cx_str(clang_getCursorSpelling(clang_Cursor_getArgument(fn, (unsigned)k)));
        if (!pn) {
            X->oom = 1;
            aa_buf_free(&a);
            return NULL;
        }
        if (!*pn) {
            free(pn);
            aa_buf_free(&a);
            return "an unnamed parameter";
        }
        aa_buf_printf(&a, "%s%s", k ? ", " : "", pn);
        free(pn);
    }
    for (unsigned i = hs; i < bs; i++) {
        char ch = X->S.text[i];
        if (i == no)
            fc->ol_hname = (unsigned)h.len;
        if (!DCODE(i) || isspace((unsigned char)ch)) {
            if (h.len && h.data[h.len - 1] != ' ')
                aa_buf_putc(&h, ' ');
            continue;
        }
        aa_buf_putc(&h, ch);
    }
    while (h.len && h.data[h.len - 1] == ' ')
        h.data[--h.len] = '\0';
    if (h.failed || a.failed) {
        X->oom = 1;
        aa_buf_free(&h);
        aa_buf_free(&a);
        return NULL;
    }
    fc->ol_hdr = aa_buf_detach(&h);
    fc->ol_args = aa_buf_detach(&a);
    fc->ol_hs = hs;
    fc->ol_name = no;
    fc->ol_void = clang_getResultType(t).kind == CXType_Void;
    fc->ol_static = instr_has_word(X->S.text, X->S.code, hs, no, "static");
    return NULL;
}

#undef DCODE

/* Why the C function at root/body keeps its probe in the body, or NULL;
 * fills fc's ol_ fields when it can be outlined.  Conditionals in the
 * declaration (graph500's `#ifdef SSSP` around a parameter) are allowed:
 * the copy keeps the text the preprocessor keeps. */
static const char *outline_plan(ctx *X, CXCursor fn, int root, int body, const char *fname,
                                cand *fc)
{
    unsigned hs = X->n[root].s, bs = X->n[body].s;
    size_t ndirs = 0;
    CXSourceRangeList *sk;
    unsigned char *act;
    const char *why;
    if (hs >= bs || bs > X->S.len)
        return "the declaration is not plain text of the file";
    for (size_t i = 0; i < X->S.ndirs; i++)
        if (X->S.dirs[i].s >= hs && X->S.dirs[i].s < bs) {
            enum dir_kind dk = X->S.dirs[i].kind;
            if (dk != D_IF && dk != D_ELSE && dk != D_ENDIF)
                return "a preprocessor directive in the declaration";
            ndirs++;
        }
    if (!ndirs)
        return outline_check(X, fn, root, body, fname, fc, NULL);
    if (!(act = malloc(bs - hs))) {
        X->oom = 1;
        return NULL;
    }
    memcpy(act, X->S.code + hs, bs - hs);
    sk = clang_getSkippedRanges(X->tu, X->mainf);
    for (unsigned r = 0; sk && r < sk->count; r++) {
        unsigned s0, e0;
        loc_off(X, clang_getRangeStart(sk->ranges[r]), &s0);
        loc_off(X, clang_getRangeEnd(sk->ranges[r]), &e0);
        for (unsigned i = s0 > hs ? s0 : hs; i < e0 && i < bs; i++)
            act[i - hs] = 0;
    }
    if (sk)
        clang_disposeSourceRangeList(sk);
    why = outline_check(X, fn, root, body, fname, fc, act);
    free(act);
    return why;
}

/* The function region; sets X->fn_index.  -1 when out of memory. */
static int function_cand(ctx *X, CXCursor fn, int root, int body, const char *fname)
{
    const char *why = function_problem(X, fn, body, fname);
    cand *fc = new_cand(X, AA_KIND_FUNCTION, AA_MODE_FUNCTIONS, X->n[body].s, X->n[body].e,
                        fname, fname, "");
    if (!fc)
        return -1;
    X->fn_index = (int)(fc - X->c);
    fc->func_index = -1;
    if (X->n[root].in_main)
        fc->ms = fc->doff = X->n[root].s;
    if (why)
        fc->why = aa_strdup(why);
    if (!aa_instr_filter_accepts(X->o->filter, X->path, fname))
        fc->excluded = 1;
    fc->named = aa_instr_filter_names(X->o->filter, X->path, fname);
    fc->small = function_small(X, fn, body, fname);
    if (!why && !X->prescan)
        fc->ol_why = outline_plan(X, fn, root, body, fname, fc);
    return X->fn_index;
}

/* OpenMP directives hide their associated statements from the AST walk:
 * say so once per directive. */
static void omp_notes(ctx *X, int body)
{
    if (!(X->modes & (AA_MODE_OUTER_LOOPS | AA_MODE_INNER_LOOPS)) ||
        CAND(X, X->fn_index)->excluded)
        return;
    for (size_t i = (size_t)body; i < X->nn; i++)
        if (X->n[i].in_main && is_omp(X->n[i].kind) && !macro_made(X, (int)i)) {
            diag(X, X->n[i].s, "statement", "statement under an OpenMP directive not instrumented",
                 "nothing is inserted between #pragma omp and its statement");
            X->nskipped++;
        }
}

/* Nearest enclosing loop of node i that is a region candidate, or -1. */
static int enclosing_loop(ctx *X, int i)
{
    int p = X->n[i].parent;
    while (p >= 0 && !(is_loop(X->n[p].kind) && X->n[p].loop_path))
        p = X->n[p].parent;
    return p;
}

static void loop_cand(ctx *X, int i, int body, const char *fname, int *nloops_top)
{
    node *d = &X->n[i];
    int p = enclosing_loop(X, i), ord, line, col, ci;
    char name[64];
    unsigned e;
    const char *why;
    aa_buf path;
    cand *c;
    if (macro_made(X, i))
        return;
    ord = p >= 0 ? ++X->n[p].nloops : ++*nloops_top;
    aa_buf_init(&path);
    if (p >= 0)
        aa_buf_printf(&path, "%s.%d", X->n[p].loop_path, ord);
    else
        aa_buf_printf(&path, "loop %d", ord);
    d->loop_path = aa_buf_detach(&path);
    if (!d->loop_path) {
        X->oom = 1;
        return;
    }
    e = stmt_end(X, i);
    offset_linecol(&X->S, d->s, &line, &col);
    snprintf(name, sizeof name, "loop@%d", line);
    c = new_cand(X, AA_KIND_LOOP, p >= 0 ? AA_MODE_INNER_LOOPS : AA_MODE_OUTER_LOOPS, d->s, e,
                 name, fname, d->loop_path);
    if (!c)
        return;
    ci = (int)(c - X->c);
    c->fine = 1;
    c->excluded = CAND(X, X->fn_index)->excluded;
    c->named = CAND(X, X->fn_index)->named;
    if (tiny_trips(X, i))
        CAND(X, ci)->small = "tiny loop (constant trip count, straight-line body)";
    else if (tiny_loop(X, i))
        CAND(X, ci)->small = "tiny loop nest (bounded trip counts, at most 192 statements executed)";
    else if (bisection_loop(X, i))
        CAND(X, ci)->small = "bisection loop (at most 64 steps, straight-line body)";
    else if (body_loop(X, i, body, fname)) {
        CAND(X, ci)->small = "loop spanning the function body (measured by the function region)";
        CAND(X, ci)->if_fn_kept = 1;
    }
    c = CAND(X, ci);
    c->blk = d->parent >= 0 && X->n[d->parent].kind == CXCursor_CompoundStmt ? d->parent : -1;
    c->doff = diag_offset(X, i);
    why = stmt_problem(X, i, d->s, e);
    if (!why) {
        const char *t = X->S.text + d->s;
        if (strncmp(t, "for", 3) && strncmp(t, "while", 5) && strncmp(t, "do", 2) &&
            !macro_head(X, d->s, e)) /* FOR_EACH(i, n) { ... }: stmt_problem's check */
            why = "the loop does not start with its keyword (macro?)";
    }
    if (why)
        CAND(X, ci)->why = aa_strdup(why);
}

typedef struct callcount {
    char *name;
    int n;
} callcount;

typedef struct callcounts {
    callcount *v;
    size_t n;
} callcounts;

/* Occurrence number of `callee` in the function (1, 2, ...), 0 on OOM. */
static int count_call(callcounts *cc, const char *callee)
{
    callcount *nv;
    for (size_t k = 0; k < cc->n; k++)
        if (!strcmp(cc->v[k].name, callee))
            return ++cc->v[k].n;
    nv = realloc(cc->v, (cc->n + 1) * sizeof *nv);
    if (!nv)
        return 0;
    cc->v = nv;
    nv[cc->n].name = aa_strdup(callee);
    if (!nv[cc->n].name)
        return 0;
    nv[cc->n++].n = 1;
    return 1;
}

/* Why the call statement st (ending at e) cannot be wrapped, or NULL. */
static const char *call_problem(ctx *X, int st, unsigned e)
{
    const char *why;
    if (st < 0)
        return "the call is part of a larger expression or declaration (only call "
               "statements are wrapped)";
    if ((why = stmt_problem(X, st, X->n[st].s, e)))
        return why;
    for (size_t k = (size_t)st; k < X->nn && X->n[k].s < e; k++)
        if (X->n[k].kind == CXCursor_CompoundLiteralExpr && X->n[k].s >= X->n[st].s)
            return "the statement creates a compound literal (a block would end its lifetime "
                   "early)";
    return NULL;
}

static void call_cand(ctx *X, int i, const char *fname, callcounts *cc)
{
    CXCursor ref = clang_getCursorReferenced(X->n[i].c);
    char *callee;
    int cls, st, line, col, occ, ci;
    char key[300], name[300];
    const char *why;
    unsigned e = 0;
    cand *c;
    if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl ||
        macro_made(X, i))
        return;
    callee = cx_str(clang_getCursorSpelling(ref));
    if (!callee) {
        X->oom = 1;
        return;
    }
    cls = instr_call_class(callee, clang_Location_isInSystemHeader(clang_getCursorLocation(ref)));
    if (!cls) {
        free(callee);
        return;
    }
    if (!(occ = count_call(cc, callee))) {
        free(callee);
        X->oom = 1;
        return;
    }
    snprintf(key, sizeof key, "call %s#%d", callee, occ);
    offset_linecol(&X->S, X->n[i].s, &line, &col);
    snprintf(name, sizeof name, "%s@%d", callee, line);
    free(callee);
    st = call_statement(X, i);
    if (st >= 0)
        e = stmt_end(X, st);
    c = new_cand(X, AA_KIND_CALL, (unsigned)cls, st >= 0 ? X->n[st].s : X->n[i].s, e, name,
                 fname, key);
    if (!c)
        return;
    ci = (int)(c - X->c);
    c->fine = 1;
    c->excluded = CAND(X, X->fn_index)->excluded;
    c->named = CAND(X, X->fn_index)->named;
    c->blk = st >= 0 && X->n[st].parent >= 0 &&
                     X->n[X->n[st].parent].kind == CXCursor_CompoundStmt
                 ? X->n[st].parent
                 : -1;
    c->doff = diag_offset(X, st >= 0 ? st : i);
    why = call_problem(X, st, e);
    if (why)
        CAND(X, ci)->why = aa_strdup(why);
}

/* A function that may not be instrumented at all (setjmp, non-static
 * inline) keeps none of its inner regions either. */
static void propagate_function_problem(ctx *X)
{
    const char *fwhy = CAND(X, X->fn_index)->why, *why = NULL, *fsmall = CAND(X, X->fn_index)->small;
    /* a probe anywhere in a small function costs what leaving the function
     * out saves: its loops and calls go with it (user pragmas stay) */
    if (fsmall)
        for (size_t k = (size_t)X->fn_index + 1; k < X->nc; k++)
            if (!X->c[k].pragma_user && !X->c[k].forced) {
                X->c[k].small = !strcmp(fsmall, "static inline function")
                                    ? "in a static inline function"
                                : !strcmp(fsmall, "inline function") ? "in an inline function"
                                : !strcmp(fsmall, "tiny leaf function") ? "in a tiny leaf function"
                                                                        : "in a short function";
                X->c[k].if_fn_kept = 0;
            }
    if (!fwhy)
        return;
    if (strstr(fwhy, "setjmp"))
        why = "the enclosing function calls setjmp/longjmp (or vfork)";
    else if (strstr(fwhy, "non-static inline"))
        why = "the enclosing function is a non-static inline function";
    if (!why)
        return;
    for (size_t k = (size_t)X->fn_index + 1; k < X->nc; k++)
        if (!X->c[k].why && !(X->c[k].why = aa_strdup(why)))
            X->oom = 1;
}

/* The function's AST as nodes (X->n); returns the body node or -1. */
static int collect_function(ctx *X, CXCursor fn, int *root)
{
    visit_arg va = {X, -1};
    int body = -1;
    X->nn = 0;
    *root = add_node(X, fn, -1);
    if (*root < 0)
        return -1;
    va.parent = *root;
    clang_visitChildren(fn, collect, &va);
    for (int k = X->n[*root].first; k >= 0; k = X->n[k].next)
        if (X->n[k].kind == CXCursor_CompoundStmt)
            body = k;
    return body;
}

/* C++: a lambda of the function being processed, to be processed as a
 * function of its own once the enclosing one is done. */
typedef struct lambda_ref {
    CXCursor c;
    unsigned s, e;       /* its extent */
    const char *never;   /* why it may get no probe, or NULL */
} lambda_ref;

typedef struct lambdas {
    lambda_ref *v;
    size_t n;
} lambdas;

/* C++: the lambda at node i is in an unevaluated operand (sizeof,
 * decltype, noexcept, typeid, alignof, requires) or a constant context (a
 * constexpr variable's initializer, an `if constexpr` condition, alignas,
 * explicit(...), a template argument, an array bound): a probe there
 * cannot run or would make the expression non-constant.  A template
 * argument is a `<` right after a name (a comparison `x < f()` is taken for
 * one too, and a subscript `a[f()]` for a bound: those lambdas are only
 * left out, which is safe). */
static const char *lambda_context_problem(ctx *X, int i, unsigned body_s)
{
    static const char *const uneval[] = {"sizeof", "decltype", "noexcept", "typeid", "alignof",
                                         "_Alignof", "__typeof__", "typeof", "requires",
                                         "static_assert", "constexpr", "alignas", "explicit",
                                         NULL};
    const char *t = X->S.text;
    int depth = 0, angle = 0;
    for (long k = (long)X->n[i].s - 1; k > (long)body_s; k--) {
        if (!X->S.code[k])
            continue;
        if (t[k] == ')' || t[k] == ']')
            depth++;
        else if ((t[k] == '(' || t[k] == '[') && depth > 0)
            depth--;
        else if (t[k] == '>' && depth == 0 && t[k + 1] != '=' && (k == 0 || t[k - 1] != '-'))
            angle++; /* a template argument list closed before the lambda */
        else if (t[k] == '<' && depth == 0 && angle > 0 && t[k + 1] != '<' && t[k + 1] != '=')
            angle--;
        else if ((t[k] == '<' || t[k] == '[') && depth == 0) {
            long q = prev_code(&X->S, (size_t)k);
            int shift = t[k] == '<' && ((q >= 0 && t[q] == '<') || t[k + 1] == '<' || t[k + 1] == '=');
            if (t[k] == '<' && q >= 0 && t[q] == '<')
                k = q; /* the whole << */
            if (!shift && q >= 0 && (ident_char(t[q]) || t[q] == '>' || (t[k] == '[' && (t[q] == ']' || t[q] == ')'))))
                return t[k] == '<' ? "lambda in a template argument (a constant expression)"
                                   : "lambda in an array bound or subscript (maybe a constant expression)";
        } else if (t[k] == '(' && depth == 0) {
            long q = prev_code(&X->S, (size_t)k), b = q;
            while (b >= 0 && ident_char(t[b]))
                b--;
            for (int w = 0; uneval[w] && q > b; w++)
                if ((size_t)(q - b) == strlen(uneval[w]) && !strncmp(t + b + 1, uneval[w], (size_t)(q - b)))
                    return "lambda in an unevaluated or constant operand";
        } else if ((t[k] == ';' || t[k] == '{' || t[k] == '}') && depth == 0)
            break;
    }
    for (int p = X->n[i].parent; p >= 0; p = X->n[p].parent)
        if (X->n[p].kind == CXCursor_VarDecl) {
            if (instr_has_word(t, X->S.code, X->n[p].s, X->n[i].s, "constexpr") ||
                instr_has_word(t, X->S.code, X->n[p].s, X->n[i].s, "constinit"))
                return "lambda in a constexpr variable's initializer";
            break;
        }
    return NULL;
}

/* C++: why the lambda at node i may never get a probe, or NULL. */
static const char *lambda_never(ctx *X, int i, unsigned body_s)
{
    int lb = -1;
    const char *why;
    for (int k = X->n[i].first; k >= 0; k = X->n[k].next)
        if (X->n[k].kind == CXCursor_CompoundStmt)
            lb = k;
    if (X->never)
        return X->never;
    if (lb >= 0 && (why = instr_cxx_never(X->S.text, X->S.code, X->n[i].s, X->n[lb].s,
                                          X->n[lb].e)))
        return why;
    return lambda_context_problem(X, i, body_s);
}

static void add_lambda(ctx *X, lambdas *L, int i, unsigned body_s)
{
    lambda_ref *nv = realloc(L->v, (L->n + 1) * sizeof *nv);
    if (!nv) {
        X->oom = 1;
        return;
    }
    L->v = nv;
    nv[L->n].c = X->n[i].c;
    nv[L->n].s = X->n[i].s;
    nv[L->n].e = X->n[i].e;
    nv[L->n].never = lambda_never(X, i, body_s);
    L->n++;
}

/* C++: a definition without a body of its own (`= default`, `= delete`,
 * a function-try-block) is listed in the map, never wrapped. */
static void bodyless_cand(ctx *X, int root, const char *fname)
{
    node *r = &X->n[root];
    const char *why = NULL;
    cand *c;
    if (!r->in_main || macro_made(X, root))
        return;
    for (unsigned k = r->s; k < r->e && !why; k++)
        if (X->S.text[k] == '=' && X->S.code[k]) {
            size_t q = next_code(&X->S, k + 1);
            if (q + 7 <= r->e && !strncmp(X->S.text + q, "default", 7))
                why = "defaulted function (the compiler writes its body)";
            else if (q + 6 <= r->e && !strncmp(X->S.text + q, "delete", 6))
                why = "deleted function (no body)";
        }
    for (int k = r->first; k >= 0 && !why; k = X->n[k].next)
        if (X->n[k].kind == CXCursor_CXXTryStmt)
            why = "function-try-block (no plain body to put the probe in)";
        else if (clang_isStatement(X->n[k].kind) && X->n[k].in_main) /* a coroutine's body */
            why = instr_cxx_never(X->S.text, X->S.code, r->s, X->n[k].s, X->n[k].e);
    if (!why)
        return;
    X->never = why;
    c = new_cand(X, AA_KIND_FUNCTION, AA_MODE_FUNCTIONS, r->s, r->e, fname, fname, "");
    X->never = NULL;
    if (c) {
        c->func_index = -1;
        c->blk = -1;
    }
}

/* C++: why the function may never get a probe (constexpr, consteval,
 * coroutine), or NULL. */
static const char *function_never(ctx *X, int root, int body)
{
    if (!X->cxx)
        return NULL;
    return instr_cxx_never(X->S.text, X->S.code, X->n[root].s, X->n[body].s, X->n[body].e);
}

/* One function (a lambda with lname/lident set): its candidates, then its
 * lambdas as functions of their own. */
static void process_function_as(ctx *X, CXCursor fn, const char *lname, const char *lident,
                                 const char *lnever)
{
    char *fname = lname ? aa_strdup(lname)
                  : X->cxx ? instr_cxx_name(fn) : cx_str(clang_getCursorSpelling(fn));
    char *ident = lident ? aa_strdup(lident) : X->cxx ? instr_cxx_ident(fn) : NULL;
    int root = -1, body, nloops_top = 0;
    callcounts cc = {NULL, 0};
    lambdas L = {NULL, 0};

    if (!fname || (X->cxx && !ident)) {
        X->oom = 1;
        goto out;
    }
    X->ident = ident;
    body = collect_function(X, fn, &root);
    if (body < 0 && X->cxx && !X->oom && root >= 0)
        bodyless_cand(X, root, fname);
    if (body < 0 || X->oom || macro_made(X, root))
        goto out; /* a declaration, or a whole definition made by a macro */
    X->never = lnever ? lnever : function_never(X, root, body);
    if (function_cand(X, fn, root, body, fname) < 0)
        goto out;
    omp_notes(X, body);
    /* loops and calls, in preorder; a lambda's are its own */
    for (size_t i = (size_t)body; i < X->nn && !X->oom; i++) {
        if (X->n[i].kind == CXCursor_LambdaExpr) {
            if (X->n[i].in_main && !macro_made(X, (int)i))
                add_lambda(X, &L, (int)i, X->n[body].s);
            i = subtree_end(X, (int)i) - 1;
        } else if (is_loop(X->n[i].kind))
            loop_cand(X, (int)i, body, fname, &nloops_top);
        else if (X->n[i].kind == CXCursor_CallExpr)
            call_cand(X, (int)i, fname, &cc);
    }
    if (!X->oom)
        user_regions(X, body, fname, X->n[body].s, X->n[body].e);
    if (X->o->plan && !X->oom)
        plan_merges(X, fname);
    if (!X->oom)
        propagate_function_problem(X);
out:
    for (size_t i = 0; i < X->nn; i++)
        free(X->n[i].loop_path);
    for (size_t k = 0; k < cc.n; k++)
        free(cc.v[k].name);
    free(cc.v);
    X->fn_index = -1;
    X->ident = NULL;
    X->never = NULL;
    /* the lambdas: "main/lambda@42", identified by their ordinal */
    for (size_t k = 0; k < L.n && !X->oom; k++) {
        char nm[600], id[700];
        int line, col;
        offset_linecol(&X->S, L.v[k].s, &line, &col);
        snprintf(nm, sizeof nm, "%s/lambda@%d", fname, line);
        snprintf(id, sizeof id, "%s/lambda#%zu", ident ? ident : fname, k + 1);
        process_function_as(X, L.v[k].c, nm, id, L.v[k].never);
    }
    free(L.v);
    free(ident);
    free(fname);
}

static void process_function(ctx *X, CXCursor fn)
{
    process_function_as(X, fn, NULL, NULL, NULL);
}

/* C++: the lambdas in the initializer of a namespace-scope (or static
 * member) variable, `auto twice = [](int x) { ... };`: each is a function
 * region of its own, "twice/lambda@16", its loops and calls its own; in a
 * constant context (a constexpr variable, a template argument of the type)
 * it is listed with the reason and left alone, as in a function. */
static void namespace_lambdas(ctx *X, CXCursor var)
{
    char *vname = instr_cxx_name(var), *vident = instr_cxx_ident(var);
    int root = -1;
    lambdas L = {NULL, 0};
    if (!vname || !vident) {
        X->oom = 1;
        goto out;
    }
    collect_function(X, var, &root);
    for (size_t i = root >= 0 ? (size_t)root : X->nn; i < X->nn && !X->oom; i++)
        if (X->n[i].kind == CXCursor_LambdaExpr) {
            if (X->n[i].in_main && !macro_made(X, (int)i))
                add_lambda(X, &L, (int)i, X->n[root].s);
            i = subtree_end(X, (int)i) - 1;
        }
    for (size_t i = 0; i < X->nn; i++)
        free(X->n[i].loop_path);
    X->nn = 0;
    for (size_t k = 0; k < L.n && !X->oom; k++) {
        char nm[600], id[700];
        int line, col;
        offset_linecol(&X->S, L.v[k].s, &line, &col);
        snprintf(nm, sizeof nm, "%s/lambda@%d", vname, line);
        snprintf(id, sizeof id, "%s/lambda#%zu", vident, k + 1);
        process_function_as(X, L.v[k].c, nm, id, L.v[k].never);
    }
out:
    free(L.v);
    free(vname);
    free(vident);
}

/* small_prescan's view of one function: only the size rule. */
static void prescan_function(ctx *X, CXCursor fn)
{
    char *fname = X->cxx ? instr_cxx_name(fn) : cx_str(clang_getCursorSpelling(fn));
    int root = -1, body;
    if (!fname) {
        X->oom = 1;
        return;
    }
    body = collect_function(X, fn, &root);
    if (body >= 0 && !X->oom && !macro_made(X, root) && !small_function(X, fname))
        function_small(X, fn, body, fname);
    free(fname);
}

/* Remembers that the function declared by c is inline (by its USR). */
static void note_inline(ctx *X, CXCursor c)
{
    char *usr = cx_str(clang_getCursorUSR(c));
    if (!usr) {
        X->oom = 1;
        return;
    }
    if (X->ninl == X->capinl) {
        char **nv = realloc(X->inl, (X->capinl ? 2 * X->capinl : 16) * sizeof *nv);
        if (!nv) {
            free(usr);
            X->oom = 1;
            return;
        }
        X->inl = nv;
        X->capinl = X->capinl ? 2 * X->capinl : 16;
    }
    X->inl[X->ninl++] = usr;
}

/* C++: a declaration `= default` / `= delete` (libclang may not call it a
 * definition); it is listed in the map by bodyless_cand. */
static int defaulted_decl(ctx *X, CXCursor c)
{
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned s, e;
    if (!loc_off(X, clang_getRangeStart(r), &s) || !loc_off(X, clang_getRangeEnd(r), &e) ||
        e > X->S.len || s >= e)
        return 0;
    return (instr_has_word(X->S.text, X->S.code, s, e, "default") ||
            instr_has_word(X->S.text, X->S.code, s, e, "delete")) &&
           memchr(X->S.text + s, '=', e - s);
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, CXClientData data)
{
    ctx *X = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    (void)p;
    if (X->oom)
        return CXChildVisit_Break;
    if (k == CXCursor_MacroExpansion) {
        if (!X->collect_macros_only)
            return CXChildVisit_Continue;
        CXSourceRange r = clang_getCursorExtent(c);
        unsigned s, e;
        if (loc_off(X, clang_getRangeStart(r), &s) && loc_off(X, clang_getRangeEnd(r), &e)) {
            if (X->nmac == X->capmac) {
                unsigned *nm = realloc(X->mac, (X->capmac = X->capmac ? 2 * X->capmac : 256) *
                                                   2 * sizeof *nm);
                if (!nm) {
                    X->oom = 1;
                    return CXChildVisit_Break;
                }
                X->mac = nm;
            }
            X->mac[2 * X->nmac] = s;
            X->mac[2 * X->nmac + 1] = e > s ? e : s + 1;
            X->nmac++;
        }
        return CXChildVisit_Continue;
    }
    if (X->collect_macros_only) {
        if (k == CXCursor_FunctionDecl && clang_Cursor_isFunctionInlined(c))
            note_inline(X, c);
        return CXChildVisit_Continue;
    }
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    if (X->cxx && (k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
                   k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate ||
                   k == CXCursor_ClassTemplatePartialSpecialization ||
                   k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl))
        return CXChildVisit_Recurse; /* their functions are the file's too */
    if ((k == CXCursor_FunctionDecl ||
         (X->cxx && (k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
                     k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
                     k == CXCursor_FunctionTemplate))) &&
        (clang_isCursorDefinition(c) || (X->cxx && !X->prescan && defaulted_decl(X, c)))) {
        if (X->prescan)
            prescan_function(X, c);
        else
            process_function(X, c);
    }
    if (X->cxx && !X->prescan && k == CXCursor_VarDecl)
        namespace_lambdas(X, c);
    return CXChildVisit_Continue;
}

/* The size rules of the functions of the file, to a fixed point, before
 * any candidate is made: a helper calling a tiny helper defined after it
 * (or through a prototype) is tiny too.  The rules only grow the list of
 * small functions, so the passes stop when one adds nothing (at most
 * AA_PRESCAN_PASSES; a chain longer than that keeps its first callers). */
#define AA_PRESCAN_PASSES 6
static void small_prescan(ctx *X)
{
    size_t before;
    int pass = 0;
    X->prescan = 1;
    do {
        before = X->nsmallfn;
        clang_visitChildren(clang_getTranslationUnitCursor(X->tu), top_visit, X);
    } while (!X->oom && X->nsmallfn > before && ++pass < AA_PRESCAN_PASSES);
    X->prescan = 0;
}

/* ---- parsing ------------------------------------------------------------- */

static int flag_takes_arg(const char *a)
{
    static const char *const two[] = {"-o", "-MF", "-MT", "-MQ", "-x", "-Xlinker",
                                      "-Xpreprocessor", "-Xassembler", "-aux-info",
                                      "-l", "-L", "-u", "-T", "-z", NULL};
    for (int i = 0; two[i]; i++)
        if (!strcmp(a, two[i]))
            return 1;
    return 0;
}

/* Copies the flags that matter for parsing. */
static int keep_flags(int argc, const char *const *argv, const char ***out, int *nout)
{
    static const char *const sep[] = {"-I", "-D", "-U", "-include", "-imacros", "-isystem",
                                      "-iquote", "-idirafter", "-isysroot", "--sysroot", NULL};
    const char **v = calloc((size_t)argc + 8, sizeof *v);
    int n = 0;
    if (!v)
        return -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int matched = 0;
        for (int k = 0; sep[k]; k++) {
            size_t l = strlen(sep[k]);
            if (!strcmp(a, sep[k]) && i + 1 < argc) {
                v[n++] = a;
                v[n++] = argv[++i];
                matched = 1;
                break;
            }
            if (!strncmp(a, sep[k], l) && (l == 2 || a[l] == '=')) {
                v[n++] = a;
                matched = 1;
                break;
            }
        }
        if (matched)
            continue;
        if (!strncmp(a, "-std=", 5) || !strcmp(a, "-ansi") || !strncmp(a, "-fopenmp", 8) ||
            !strcmp(a, "-pthread") || !strncmp(a, "-O", 2) || !strcmp(a, "-funsigned-char") ||
            !strcmp(a, "-fsigned-char") || !strcmp(a, "-fgnu89-inline") ||
            !strcmp(a, "-fms-extensions") || !strcmp(a, "-m32") || !strcmp(a, "-m64") ||
            !strcmp(a, "-nostdinc") || !strcmp(a, "-undef") || !strcmp(a, "-fno-builtin") ||
            !strncmp(a, "-fno-common", 11) || !strcmp(a, "-fno-exceptions") ||
            !strcmp(a, "-fexceptions") || !strcmp(a, "-fno-rtti") || !strcmp(a, "-frtti") ||
            !strncmp(a, "-stdlib=", 8) || !strcmp(a, "-nostdinc++") ||
            !strcmp(a, "-fchar8_t") || !strcmp(a, "-fno-char8_t") ||
            !strcmp(a, "-fsized-deallocation") || !strcmp(a, "-fno-sized-deallocation"))
            v[n++] = a;
        else if (flag_takes_arg(a))
            i++;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* The compiler's own headers (stddef.h, ...): lib/clang/<ver>/include next
 * to the libclang that is loaded. */
static char *resource_include(void)
{
    Dl_info info;
    char pat[4096];
    glob_t g;
    char *res = NULL, *dir;
    if (!dladdr((void *)clang_createIndex, &info) || !info.dli_fname)
        return NULL;
    dir = aa_strdup(info.dli_fname);
    if (!dir)
        return NULL;
    snprintf(pat, sizeof pat, "%s/clang/*/include/stddef.h", dirname(dir));
    if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        res = aa_strdup(g.gl_pathv[g.gl_pathc - 1]);
        if (res)
            *strrchr(res, '/') = '\0';
    }
    globfree(&g);
    free(dir);
    return res;
}

/* The first error as AA_EINPUT "file:line:col: what" (the main file by its
 * display name). */
static int parse_error(ctx *X, aa_err *err)
{
    unsigned nd = clang_getNumDiagnostics(X->tu);
    for (unsigned i = 0; i < nd; i++) {
        CXDiagnostic dg = clang_getDiagnostic(X->tu, i);
        if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error) {
            CXString msg = clang_getDiagnosticSpelling(dg);
            CXFile f;
            unsigned line, col;
            char *fn = NULL;
            clang_getExpansionLocation(clang_getDiagnosticLocation(dg), &f, &line, &col, NULL);
            if (f && !clang_File_isEqual(f, clang_getFile(X->tu, X->path)))
                fn = cx_str(clang_getFileName(f));
            aa_err_set(err, AA_EINPUT, "%s:%u:%u: %s", fn && *fn ? fn : X->display, line, col,
                       clang_getCString(msg));
            free(fn);
            clang_disposeString(msg);
            clang_disposeDiagnostic(dg);
            return AA_EINPUT;
        }
        clang_disposeDiagnostic(dg);
    }
    return 0;
}

/* C++ parsed with the compiler's macros: its default dialect (g++ 12
 * defaults to gnu++17, clang 14 to gnu++14) unless the flags name one, and
 * sized deallocation when it has it (libstdc++ calls it otherwise).  The
 * flags go to out (at most 2); returns their number. */
static int cxx_dialect_flags(const char *predef, const char **args, int nargs, const char **out)
{
    static const struct {
        long v;
        const char *std, *gnu;
    } tab[] = {{202100L, "-std=c++2b", "-std=gnu++2b"}, {202002L, "-std=c++20", "-std=gnu++20"},
               {201703L, "-std=c++17", "-std=gnu++17"}, {201402L, "-std=c++14", "-std=gnu++14"},
               {201103L, "-std=c++11", "-std=gnu++11"}, {0, "-std=c++98", "-std=gnu++98"}};
    const char *p = strstr(predef, "#define __cplusplus ");
    int n = 0, have_std = 0;
    for (int i = 0; i < nargs; i++)
        have_std |= !strncmp(args[i], "-std=", 5) || !strcmp(args[i], "-ansi");
    if (p && !have_std) {
        long v = strtol(p + 20, NULL, 10);
        int strict = strstr(predef, "#define __STRICT_ANSI__ ") != NULL;
        for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
            if (v >= tab[k].v) {
                out[n++] = strict ? tab[k].std : tab[k].gnu;
                break;
            }
    }
    if (strstr(predef, "#define __cpp_sized_deallocation "))
        out[n++] = "-fsized-deallocation";
    return n;
}

/* Parses X->path into X->tu.  With o->compiler, first as that compiler
 * sees the file (its predefined macros under -undef, its system include
 * directories after libclang's); if the compiler cannot be asked or that
 * parse fails, with libclang's own view, as before. */
static int parse_tu(ctx *X, CXIndex index, const char **args, int nargs, int argc,
                    const char *const *argv, aa_err *err)
{
    instr_compiler_view v;
    enum CXErrorCode ec;
    int rc;
    if (X->o->compiler && instr_compiler_view_get(X->o->compiler, X->cxx, argc, argv, &v) == 0) {
        const char **va = calloc((size_t)nargs + 6 + 2 * v.ndirs, sizeof *va);
        struct CXUnsavedFile uf = {instr_compiler_predef_path, v.predef,
                                   (unsigned long)v.predef_len};
        int n = 0;
        if (va) {
            va[n++] = "-undef";
            va[n++] = "-include";
            va[n++] = instr_compiler_predef_path;
            if (X->cxx) /* the compiler's C++ dialect, not libclang's default */
                n += cxx_dialect_flags(v.predef, args, nargs, va + n);
            for (int i = 0; i < nargs; i++)
                va[n++] = args[i];
            for (size_t k = 0; k < v.ndirs; k++) {
                va[n++] = "-idirafter";
                va[n++] = v.dirs[k];
            }
            ec = clang_parseTranslationUnit2(index, X->path, va, n, &uf, 1,
                                             CXTranslationUnit_DetailedPreprocessingRecord,
                                             &X->tu);
            free(va);
            if (ec == CXError_Success && X->tu && parse_error(X, err) == 0) {
                instr_compiler_view_free(&v);
                return 0;
            }
            if (X->tu)
                clang_disposeTranslationUnit(X->tu);
            X->tu = NULL;
            aa_err_clear(err);
            if (X->o->verbose && X->o->diag)
                fprintf(X->o->diag, "%s: note: autoanalyzer: parsed with libclang's own "
                        "predefined macros (%s's did not parse)\n", X->display, X->o->compiler);
        }
        instr_compiler_view_free(&v);
    }
    ec = clang_parseTranslationUnit2(index, X->path, args, nargs, NULL, 0,
                                     CXTranslationUnit_DetailedPreprocessingRecord, &X->tu);
    if (ec != CXError_Success || !X->tu)
        return aa_err_set(err, AA_EINPUT, "%s:1: libclang could not parse the file (error %d)",
                          X->display, (int)ec);
    rc = parse_error(X, err);
    return rc;
}

/* ---- rewriting ------------------------------------------------------------ */

typedef struct edit {
    unsigned off, del;
    int order;       /* 0 close, 1 replace, 2 open */
    unsigned outer;  /* opens: region end (larger first) */
    char *text;
} edit;

static int edit_cmp(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    if (x->order != y->order)
        return x->order - y->order;
    if (x->outer != y->outer)
        return x->outer > y->outer ? -1 : 1;
    return 0;
}

static void c_string(aa_buf *b, const char *s)
{
    aa_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            aa_buf_putc(b, '\\');
        if ((unsigned char)*s < 32)
            aa_buf_printf(b, "\\%03o", (unsigned char)*s);
        else
            aa_buf_putc(b, *s);
    }
    aa_buf_putc(b, '"');
}

static const char probe_decls[] =
    "#ifndef AA_PROBE_H\n"
    "#define AA_PROBE_H\n"
    "#define AA_RUNTIME_ABI 1\n"
    "typedef struct aa_runtime_region {\n"
    "    __UINT32_TYPE__ id;\n"
    "    __UINT32_TYPE__ parent;\n"
    "    __INT32_TYPE__ kind;\n"
    "    __INT32_TYPE__ line, col, end_line, end_col;\n"
    "    const char *name;\n"
    "    const char *function;\n"
    "    const char *file;\n"
    "    __INT32_TYPE__ handle;\n"
    "} aa_runtime_region;\n"
    "#define AA_RUNTIME_REFINED 0x100\n"
    "void aa_runtime_enter(aa_runtime_region *r);\n"
    "void aa_runtime_exit(aa_runtime_region *r);\n"
    "void aa_runtime_scope_end(aa_runtime_region **r);\n"
    "#define AA_RUNTIME_GATES 4\n"
    "#ifdef __cplusplus\n"
    "#define AA_RUNTIME_NULL_ __null\n"
    "#define AA_RUNTIME_INT_(p) reinterpret_cast<__UINTPTR_TYPE__>(p)\n"
    "#define AA_RUNTIME_PTR_(T, i) reinterpret_cast<T>(i)\n"
    "#else\n"
    "#define AA_RUNTIME_NULL_ ((void *)0)\n"
    "#define AA_RUNTIME_INT_(p) ((__UINTPTR_TYPE__)(p))\n"
    "#define AA_RUNTIME_PTR_(T, i) ((T)(i))\n"
    "#endif\n"
    "typedef struct aa_runtime_gates {\n"
    "    const aa_runtime_region *region[AA_RUNTIME_GATES];\n"
    "    __UINT64_TYPE__ visits[AA_RUNTIME_GATES];\n"
    "    struct aa_runtime_gates *inner[AA_RUNTIME_GATES];\n"
    "    __INT32_TYPE__ off;\n"
    "} aa_runtime_gates;\n"
    "extern __thread aa_runtime_gates *aa_runtime_gates_at "
    "__attribute__((tls_model(\"initial-exec\")));\n"
    "static __inline__ __attribute__((always_inline, unused)) aa_runtime_region *\n"
    "aa_runtime_enter_scope(aa_runtime_region *r)\n"
    "{\n"
    "    aa_runtime_gates *g = aa_runtime_gates_at;\n"
    "    if (__builtin_expect(g && g->region[0], 0)) {\n"
    "        int i;\n"
    "        for (i = 0; i < AA_RUNTIME_GATES && g->region[i]; i++)\n"
    "            if (g->region[i] == r) {\n"
    "                g->visits[i]++;\n"
    "                aa_runtime_gates_at = g->inner[i];\n"
    "                return AA_RUNTIME_PTR_(aa_runtime_region *, AA_RUNTIME_INT_(g) | 1u);\n"
    "            }\n"
    "        if (g->off)\n"
    "            return AA_RUNTIME_NULL_;\n"
    "    }\n"
    "    aa_runtime_enter(r);\n"
    "    return r;\n"
    "}\n"
    "static __inline__ __attribute__((always_inline, unused)) void\n"
    "aa_runtime_scope_close(aa_runtime_region **r)\n"
    "{\n"
    "    if (*r) {\n"
    "        if (AA_RUNTIME_INT_(*r) & 1u)\n"
    "            aa_runtime_gates_at = AA_RUNTIME_PTR_(aa_runtime_gates *, AA_RUNTIME_INT_(*r) - 1u);\n"
    "        else\n"
    "            aa_runtime_exit(*r);\n"
    "    }\n"
    "}\n"
    "#define AA_RUNTIME_CAT_(a, b) a##b\n"
    "#define AA_RUNTIME_CAT(a, b) AA_RUNTIME_CAT_(a, b)\n"
    "#define AA_RUNTIME_SCOPE(desc) "
    "__attribute__((cleanup(aa_runtime_scope_close), unused)) "
    "aa_runtime_region *AA_RUNTIME_CAT(aa_scope_, __LINE__) = "
    "aa_runtime_enter_scope(&(desc))\n"
    "#endif\n";

const char *aa_instrument_probe_decls(void)
{
    return probe_decls;
}

/* The probe declarations of the prelude: C as they are; C++ with the
 * probes in extern "C" and the RAII guard of runtime/aa_probe.h. */
static void put_probe_decls(aa_buf *out, int cxx)
{
    const char *abi = "#define AA_RUNTIME_ABI 1\n", *cat = "#define AA_RUNTIME_CAT_";
    const char *a = strstr(probe_decls, abi), *c = strstr(probe_decls, cat);
    const char *end = c ? strstr(c, "#endif\n") : NULL; /* the include guard's */
    if (!cxx || !a || !c || !end) {
        aa_buf_puts(out, probe_decls);
        return;
    }
    a += strlen(abi);
    aa_buf_add(out, probe_decls, (size_t)(a - probe_decls));
    aa_buf_puts(out, "extern \"C\" {\n");
    aa_buf_add(out, a, (size_t)(c - a));
    aa_buf_puts(out, "}\n");
    aa_buf_add(out, c, (size_t)(end - c));
    aa_buf_puts(out, instr_cxx_guard_decls());
    aa_buf_puts(out, end);
}

static int add_edit(edit **v, size_t *n, size_t *cap, unsigned off, unsigned del, int order,
                    unsigned outer, const char *text)
{
    if (*n == *cap) {
        edit *nv = realloc(*v, (*cap = *cap ? 2 * *cap : 64) * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
    }
    (*v)[*n].off = off;
    (*v)[*n].del = del;
    (*v)[*n].order = order;
    (*v)[*n].outer = outer;
    (*v)[*n].text = aa_strdup(text);
    if (!(*v)[*n].text)
        return -1;
    (*n)++;
    return 0;
}

/* The outlined form of function c (outline_plan): at the declaration,
 * `static DECL__aa_body(...) __attribute__((noinline)); DECL(...) { PROBE
 * return NAME__aa_body(args); } static ` and the name of the definition
 * renamed; all on the declaration's first line. */
static int outline_edits(ctx *X, const cand *c, const char *probe, edit **ed, size_t *ne,
                         size_t *cap)
{
    aa_buf b = {0};
    size_t fl = strlen(c->name);
    char *body_name = NULL;
    int rc;
    aa_buf_printf(&b, "%s__aa_body", c->name);
    body_name = aa_buf_detach(&b);
    if (!body_name)
        return -1;
    if (!c->ol_static)
        aa_buf_puts(&b, "static ");
    aa_buf_add(&b, c->ol_hdr, c->ol_hname);
    aa_buf_puts(&b, body_name);
    aa_buf_printf(&b, "%s __attribute__((noinline)); %s { %s %s%s(%s); } %s",
                  c->ol_hdr + c->ol_hname + fl, c->ol_hdr, probe, c->ol_void ? "" : "return ",
                  body_name, c->ol_args, c->ol_static ? "" : "static ");
    if (b.failed) {
        aa_buf_free(&b);
        free(body_name);
        return -1;
    }
    rc = add_edit(ed, ne, cap, c->ol_hs, 0, 2, c->e, b.data);
    rc |= add_edit(ed, ne, cap, c->ol_name, (unsigned)fl, 1, 0, body_name);
    aa_buf_free(&b);
    free(body_name);
    (void)X;
    return rc;
}

static int plan_names_cand(const char *ref, const cand *c)
{
    return instr_plan_names(ref, c->id, c->name) ||
           (c->kind == AA_KIND_FUNCTION && instr_plan_names(ref, c->id, c->function));
}

/* "loop not instrumented", "call to MPI_Send not instrumented", ... */
static void cand_head(const cand *c, char *out, size_t n)
{
    switch (c->kind) {
    case AA_KIND_FUNCTION:
        snprintf(out, n, "function %s not instrumented", c->name);
        break;
    case AA_KIND_CALL:
        snprintf(out, n, "call to %.*s not instrumented", (int)strcspn(c->name, "@"), c->name);
        break;
    case AA_KIND_USER:
        snprintf(out, n, "%s %s not instrumented", c->forced ? "merged region" : "user region",
                 c->name);
        break;
    default:
        snprintf(out, n, "%s not instrumented", aa_region_kind_name(c->kind));
        break;
    }
}

/* --refine / a plan's split: the fine regions inside the named ones. */
static void split_regions(ctx *X)
{
    const aa_instr_plan *pl = X->o->plan;
    for (size_t k = 0; k < pl->nsplit; k++) {
        int found = 0;
        for (size_t i = 0; i < X->nc; i++) {
            cand *r = &X->c[i];
            if (!plan_names_cand(pl->split[k], r))
                continue;
            found = 1;
            r->split_named = 1;
            r->refined = 1;
            for (size_t j = 0; j < X->nc; j++) {
                cand *f = &X->c[j];
                int fn = r->kind == AA_KIND_FUNCTION ? (int)i : r->func_index;
                if (j == i || !f->fine || f->excluded || f->merged || f->func_index != fn)
                    continue;
                if (f->s >= r->s && f->e <= r->e && f->e > 0)
                    f->selected = f->refined = 1;
            }
            r->selected = !r->excluded || r->selected;
        }
        if (!found && X->o->verbose && X->o->diag)
            fprintf(X->o->diag, "note: %s: region %s (refine/split) is not in this file\n",
                    X->display, pl->split[k]);
    }
}

/* 1 when some region of the file (instrumented or not) is named by ref. */
static int plan_ref_found(const ctx *X, const char *ref)
{
    for (size_t i = 0; i < X->nc; i++)
        if (plan_names_cand(ref, &X->c[i]) || instr_plan_names(ref, X->c[i].hash, X->c[i].name))
            return 1;
    return 0;
}

/* opts.warn_unmatched: "plan:line: warning: ..." for every plan or refine
 * entry that names no region of this file (a misspelled name, a stale id). */
static void plan_unmatched(ctx *X)
{
    const aa_instr_plan *pl = X->o->plan;
    static const char fmt[] = "%s:%d: warning: %s '%s' matches no region of %s\n";
    for (size_t k = 0; k < pl->nelim; k++)
        if (!plan_ref_found(X, pl->elim[k]))
            fprintf(X->o->diag, fmt, pl->elim_at[k].file, pl->elim_at[k].line, "eliminate",
                    pl->elim[k], X->display);
    for (size_t k = 0; k < pl->nsplit; k++)
        if (!plan_ref_found(X, pl->split[k]))
            fprintf(X->o->diag, fmt, pl->split_at[k].file, pl->split_at[k].line, "split",
                    pl->split[k], X->display);
    for (size_t g = 0; g < pl->nmerge; g++)
        for (size_t r = 0; r < pl->merge[g].n; r++)
            if (!plan_ref_found(X, pl->merge[g].names[r]))
                fprintf(X->o->diag, fmt, pl->merge[g].at.file, pl->merge[g].at.line, "merge",
                        pl->merge[g].names[r], X->display);
}

/* The size rules: small regions are left out (and listed in the map)
 * unless AA_MODE_TINY asks for them, an INCLUDE rule names their function,
 * or a split names the region itself. */
static void size_rules(ctx *X)
{
    if (X->modes & AA_MODE_TINY)
        return;
    for (size_t i = 0; i < X->nc; i++) {
        cand *c = &X->c[i];
        if (!c->selected || !c->small || c->named || c->split_named || c->forced ||
            c->pragma_user)
            continue;
        if (c->if_fn_kept && (c->func_index < 0 || !X->c[c->func_index].selected))
            continue;
        c->selected = 0;
        c->skip_reason = c->small;
    }
}

/* --filter-from: functions measured as tiny and hot lose all their
 * regions, unless a refinement (split) names the function or one of its
 * regions: a refined region is never filtered. */
static void profile_filter(ctx *X)
{
    const aa_instr_plan *pl = X->o->plan;
    for (size_t i = 0; i < X->nc; i++) {
        cand *fc = &X->c[i];
        int hit = 0, split = 0;
        size_t to;
        if (fc->kind != AA_KIND_FUNCTION || fc->named)
            continue;
        for (size_t k = 0; k < pl->npfilter && !hit; k++)
            hit = !strcmp(pl->pfilter[k], fc->function);
        if (!hit)
            continue;
        for (to = i + 1; to < X->nc && X->c[to].func_index == (int)i; to++)
            split |= X->c[to].split_named;
        if (split || fc->split_named)
            continue;
        for (size_t k = i; k < to; k++) {
            cand *c = &X->c[k];
            if (!c->selected || c->forced || c->pragma_user)
                continue;
            c->selected = 0;
            c->skip_reason = "tiny and hot in the measured profile (--filter-from)";
        }
    }
}

static void select_regions(ctx *X)
{
    const aa_instr_plan *pl = X->o->plan;
    /* round 1: what the modes ask for */
    for (size_t i = 0; i < X->nc; i++) {
        cand *c = &X->c[i];
        unsigned m = c->mode;
        if (m == AA_MODE_OUTER_LOOPS)
            m |= AA_MODE_INNER_LOOPS;
        c->round1 = ((X->modes & m) || c->forced) && !c->excluded && !c->merged;
    }
    /* ids: round-1 regions claim theirs first, in source order; a clash
     * re-hashes the key with a salt, deterministically */
    {
        size_t cap = 64;
        uint32_t *set;
        unsigned char *used;
        while (cap < 4 * X->nc + 4)
            cap *= 2;
        set = calloc(cap, sizeof *set);
        used = calloc(cap, 1);
        if (!set || !used) {
            free(set);
            free(used);
            X->oom = 1;
            return;
        }
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < X->nc; i++) {
                cand *c = &X->c[i];
                uint32_t id = c->hash;
                int salt = 0;
                size_t h;
                if (c->round1 != !pass)
                    continue;
                for (;;) {
                    int clash = id == AA_REGION_ROOT;
                    for (h = (id * 2654435761u) & (cap - 1); !clash && used[h]; h = (h + 1) & (cap - 1))
                        if (set[h] == id)
                            clash = 1;
                    if (!clash)
                        break;
                    {
                        char key[600];
                        snprintf(key, sizeof key, "%s#collision%d", c->key, ++salt);
                        id = aa_instrument_region_hash(X->base, c->function,
                                                       aa_region_kind_name(c->kind), key);
                    }
                }
                used[h] = 1;
                set[h] = id;
                c->id = id;
            }
        }
        free(set);
        free(used);
    }
    for (size_t i = 0; i < X->nc; i++)
        X->c[i].selected = X->c[i].round1;
    if (pl) {
        for (size_t i = 0; i < X->nc; i++)
            if (X->c[i].merged)
                X->c[i].selected = 0;
        split_regions(X);
    }
    size_rules(X);
    for (size_t i = 0; i < X->nc; i++)
        if (X->c[i].never && X->c[i].selected) {
            X->c[i].selected = 0;
            X->c[i].skip_reason = X->c[i].never;
        }
    if (pl)
        profile_filter(X);
    if (pl)
        for (size_t k = 0; k < pl->nelim; k++)
            for (size_t i = 0; i < X->nc; i++)
                if (plan_names_cand(pl->elim[k], &X->c[i]))
                    X->c[i].selected = 0;
    if (pl && X->o->warn_unmatched && X->o->diag)
        plan_unmatched(X);
}

/* The region map entry of candidate c (strings borrowed from c and X). */
static void map_region(ctx *X, const cand *c, aa_region *r)
{
    int l1, c1, l2, c2;
    offset_linecol(&X->S, c->ms, &l1, &c1);
    offset_linecol(&X->S, c->e > 0 ? c->e - 1 : 0, &l2, &c2);
    memset(r, 0, sizeof *r);
    r->id = c->id;
    r->kind = c->kind;
    r->name = c->name;
    r->function = c->function;
    r->file = (char *)X->display;
    r->line = l1;
    r->col = c1;
    r->end_line = l2;
    r->end_col = c2;
    r->parent = c->parent;
}

static int rewrite(ctx *X, aa_instrument_result *res, aa_err *err)
{
    edit *ed = NULL;
    size_t ne = 0, cap = 0, pos = 0;
    aa_buf *out = &res->source;
    char txt[256];
    int rc = 0;

    res->map = aa_regionmap_new(X->display);
    if (!res->map)
        return aa_err_set(err, AA_EENV, "out of memory");
    {
        int nexcl = 0;
        for (size_t i = 0; i < X->nc; i++) {
            cand *c = &X->c[i];
            if (c->kind != AA_KIND_FUNCTION || !c->excluded)
                continue;
            nexcl++;
            if (X->o->verbose && X->o->diag) {
                int line, col;
                offset_linecol(&X->S, c->ms, &line, &col);
                fprintf(X->o->diag, "note: %s:%d: function %s excluded by the filters; left alone\n",
                        X->display, line, c->name);
            }
        }
        if (nexcl && !X->o->verbose && X->o->diag)
            fprintf(X->o->diag, "note: %s: %d function%s excluded by the filters (-v lists them)\n",
                    X->display, nexcl, nexcl == 1 ? "" : "s");
    }
    for (size_t i = 0; i < X->nc; i++) {
        cand *c = &X->c[i];
        if (!c->selected)
            continue;
        if (c->why) {
            char head[400];
            cand_head(c, head, sizeof head);
            diag(X, c->doff, aa_region_kind_name(c->kind), head, c->why);
            X->nskipped++;
            continue;
        }
        c->emitted = 1;
    }
    /* static parents: innermost emitted region containing this one (the
     * candidates of one function are contiguous, the function first) */
    for (size_t i = 0; i < X->nc; i++) {
        cand *c = &X->c[i], *best = NULL;
        size_t from, to;
        if (!c->emitted || c->kind == AA_KIND_FUNCTION || c->func_index < 0)
            continue;
        from = (size_t)c->func_index;
        for (to = from + 1; to < X->nc && X->c[to].func_index == c->func_index; to++)
            ;
        for (size_t k = from; k < to; k++) {
            cand *p = &X->c[k];
            int same_fn = (c->kind == AA_KIND_FUNCTION) ? 0
                          : (p->kind == AA_KIND_FUNCTION ? (int)k == c->func_index
                                                         : p->func_index == c->func_index);
            if (k == i || !p->emitted || !same_fn)
                continue;
            if (p->s <= c->s && p->e >= c->e && !(p->s == c->s && p->e == c->e && k > i)) {
                if (!best || (p->s >= best->s && p->e <= best->e))
                    best = p;
            }
        }
        c->parent = best ? best->id : 0;
    }
    for (size_t i = 0; i < X->nc && !rc; i++) {
        cand *c = &X->c[i];
        aa_region r;
        if (!c->emitted)
            continue;
        snprintf(txt, sizeof txt, "AA_INSTRUMENT_SCOPE_(aa_r_%u);", c->id);
        if (c->kind == AA_KIND_FUNCTION && c->ol_hdr)
            rc |= outline_edits(X, c, txt, &ed, &ne, &cap);
        else if (c->kind == AA_KIND_FUNCTION) {
            char t2[300];
            if (X->o->verbose && X->o->diag && c->ol_why) {
                int line, col;
                offset_linecol(&X->S, c->ms, &line, &col);
                fprintf(X->o->diag, "note: %s:%d: function %s: probe in the body: %s\n",
                        X->display, line, c->name, c->ol_why);
            }
            snprintf(t2, sizeof t2, " %s", txt);
            rc |= add_edit(&ed, &ne, &cap, c->s + 1, 0, 2, c->e, t2);
        } else if (c->kind == AA_KIND_USER && c->pragma_user) {
            directive *a = &X->S.dirs[c->ds], *b = &X->S.dirs[c->de];
            char t2[300];
            snprintf(t2, sizeof t2, "{ %s", txt);
            rc |= add_edit(&ed, &ne, &cap, a->s, a->e - a->s, 1, 0, t2);
            rc |= add_edit(&ed, &ne, &cap, b->s, b->e - b->s, 1, 0, "}");
        } else {
            char t2[300];
            snprintf(t2, sizeof t2, "{ %s ", txt);
            rc |= add_edit(&ed, &ne, &cap, c->s, 0, 2, c->e, t2);
            rc |= add_edit(&ed, &ne, &cap, c->e, 0, 0, 0, " }");
        }
        map_region(X, c, &r);
        if (aa_regionmap_add_region(res->map, &r))
            rc = -1;
    }
    /* regions left out by a size rule or the profile filter: listed in
     * the map with the reason, nothing inserted */
    for (size_t i = 0; i < X->nc && !rc; i++) {
        cand *c = &X->c[i];
        aa_region r;
        if (c->emitted || !c->skip_reason)
            continue;
        map_region(X, c, &r);
        r.parent = 0; /* as before: a left-out region names no static parent */
        if (aa_regionmap_add_skipped(res->map, &r, c->skip_reason))
            rc = -1;
        if (X->o->verbose && X->o->diag)
            fprintf(X->o->diag, "note: %s:%d: %s %s not instrumented: %s\n", X->display, r.line,
                    aa_region_kind_name(c->kind), c->name, c->skip_reason);
    }
    /* user pragmas that are not instrumented: blank them (keep the line) */
    for (size_t i = 0; i < X->S.ndirs && !rc; i++) {
        directive *d = &X->S.dirs[i];
        int used = 0;
        if ((d->kind != D_AA_REGION && d->kind != D_AA_END) || d->skipped)
            continue;
        for (size_t k = 0; k < ne; k++)
            if (ed[k].off == d->s && ed[k].del)
                used = 1;
        if (!used && !memchr(X->S.text + d->s, '\n', d->e - d->s))
            rc |= add_edit(&ed, &ne, &cap, d->s, d->e - d->s, 1, 0, "");
    }
    if (rc) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    flush_diags(X);
    if (X->oom) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    if (ne)
        qsort(ed, ne, sizeof *ed, edit_cmp);
    /* prelude */
    aa_buf_printf(out, "%s from ", AA_INSTRUMENT_MARKER);
    for (const char *p = X->display; *p; p++)
        aa_buf_putc(out, *p == '*' ? '_' : *p);
    aa_buf_printf(out, " by autoanalyzer; do not edit */\n");
    put_probe_decls(out, X->cxx);
    if (X->cxx) /* an RAII guard: exceptions propagating through close it too */
        aa_buf_puts(out, "#define AA_INSTRUMENT_SCOPE_(d) ::aa_runtime_guard d##_scope(&::d)\n"
                         "#if defined(AA_PROBE_H) && defined(AA_RUNTIME_ABI) && "
                         "defined(AA_RUNTIME_REFINED) && defined(AA_RUNTIME_CAT_) && defined(AA_RUNTIME_CAT) && "
                         "defined(AA_RUNTIME_SCOPE) && defined(AA_RUNTIME_GUARD) && "
                         "defined(AA_INSTRUMENT_SCOPE_)\n"
                         "#endif\n");
    else
        aa_buf_puts(out, "#define AA_INSTRUMENT_SCOPE_(d) __attribute__((cleanup("
                         "aa_runtime_scope_close), unused)) aa_runtime_region *d##_scope = "
                         "aa_runtime_enter_scope(&d)\n"
                         "#if defined(AA_PROBE_H) && defined(AA_RUNTIME_ABI) && "
                         "defined(AA_RUNTIME_REFINED) && defined(AA_RUNTIME_CAT_) && defined(AA_RUNTIME_CAT) && "
                         "defined(AA_RUNTIME_SCOPE) && defined(AA_INSTRUMENT_SCOPE_)\n"
                         "#endif\n");
    for (size_t i = 0; i < X->nc; i++) {
        cand *c = &X->c[i];
        int l1, c1, l2, c2;
        if (!c->emitted)
            continue;
        offset_linecol(&X->S, c->ms, &l1, &c1);
        offset_linecol(&X->S, c->e > 0 ? c->e - 1 : 0, &l2, &c2);
        aa_buf_printf(out, "static aa_runtime_region aa_r_%u = {%uu, %uu, %d, %d, %d, %d, %d, ",
                      c->id, c->id, c->parent,
                      (int)c->kind | (c->refined ? AA_RUNTIME_REFINED : 0), l1, c1, l2, c2);
        c_string(out, c->name);
        aa_buf_puts(out, ", ");
        c_string(out, c->function);
        aa_buf_puts(out, ", ");
        c_string(out, X->display);
        aa_buf_puts(out, ", 0};\n");
    }
    aa_buf_puts(out, "#line 1 ");
    c_string(out, X->display);
    aa_buf_putc(out, '\n');
    for (size_t k = 0; k < ne; k++) {
        if (ed[k].off < pos)
            continue; /* overlapping replacement: cannot happen, be safe */
        aa_buf_add(out, X->S.text + pos, ed[k].off - pos);
        aa_buf_puts(out, ed[k].text);
        pos = ed[k].off + ed[k].del;
    }
    aa_buf_add(out, X->S.text + pos, X->S.len - pos);
    if (out->failed)
        rc = aa_err_set(err, AA_EENV, "out of memory");
out:
    for (size_t k = 0; k < ne; k++)
        free(ed[k].text);
    free(ed);
    return rc;
}

/* The prelude's marker at the start of a line (the prelude's first line). */
static int already_instrumented(const char *text, size_t len)
{
    size_t ml = strlen(AA_INSTRUMENT_MARKER);
    for (size_t i = 0; i + ml <= len; i++) {
        if ((i == 0 || text[i - 1] == '\n') && !strncmp(text + i, AA_INSTRUMENT_MARKER, ml))
            return 1;
        i += strcspn(text + i, "\n");
    }
    return 0;
}

int aa_instrument_file(const char *path, int argc, const char *const *argv,
                       const aa_instrument_opts *o, aa_instrument_result *res, aa_err *err)
{
    static const aa_instrument_opts defaults = {0};
    ctx X;
    char *text = NULL, *res_inc = NULL, *pathcopy = NULL;
    size_t len;
    const char **args = NULL;
    int nargs = 0, rc;
    CXIndex index = NULL;

    if (instr_is_fortran(path))
        return instr_fortran_file(path, argc, argv, o, res, err);
    memset(&X, 0, sizeof X);
    memset(res, 0, sizeof *res);
    aa_buf_init(&res->source);
    if (!o)
        o = &defaults;
    X.o = o;
    X.modes = o->modes ? o->modes : AA_MODE_DEFAULT;
    X.path = path;
    X.display = o->display_name ? o->display_name : path;
    X.fn_index = -1;
    {
        aa_err rerr;
        aa_err_clear(&rerr);
        if (aa_read_file(path, &text, &len, &rerr))
            return aa_err_set(err, AA_EINPUT, "%s:1: cannot read the source file (%s)", path,
                              rerr.msg);
    }
    if (already_instrumented(text, len)) {
        free(text);
        return aa_err_set(err, AA_EINPUT,
                          "%s:1: already instrumented by autoanalyzer (instrument the original "
                          "source instead)", X.display);
    }
    pathcopy = aa_strdup(X.display);
    X.base = pathcopy ? basename(pathcopy) : "";
    X.S.text = text;
    X.S.len = len;
    X.cxx = X.S.cxx = instr_is_cxx(path, o->compiler, argc, argv);
    if (scan_source(&X.S) || keep_flags(argc, argv, &args, &nargs)) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    if (X.cxx) { /* keep_flags left room: the file is C++ whatever its name */
        memmove(args + 2, args, (size_t)nargs * sizeof *args);
        args[0] = "-x";
        args[1] = "c++";
        nargs += 2;
    }
    res_inc = resource_include();
    if (res_inc) {
        args[nargs++] = "-isystem";
        args[nargs++] = res_inc;
    }
    args[nargs++] = "-Wno-everything";
    index = clang_createIndex(0, 0);
    if ((rc = parse_tu(&X, index, args, nargs, argc, argv, err)))
        goto out;
    X.mainf = clang_getFile(X.tu, path);
    {
        CXSourceRangeList *sk = clang_getSkippedRanges(X.tu, X.mainf);
        for (unsigned i = 0; sk && i < sk->count; i++) {
            unsigned s, e;
            loc_off(&X, clang_getRangeStart(sk->ranges[i]), &s);
            loc_off(&X, clang_getRangeEnd(sk->ranges[i]), &e);
            for (size_t k = 0; k < X.S.ndirs; k++)
                if (X.S.dirs[k].s > s && X.S.dirs[k].s < e)
                    X.S.dirs[k].skipped = 1;
        }
        if (sk)
            clang_disposeSourceRangeList(sk);
    }
    /* macro expansion ranges first (the record lists them before use) */
    X.collect_macros_only = 1;
    clang_visitChildren(clang_getTranslationUnitCursor(X.tu), top_visit, &X);
    if (X.nmac) {
        qsort(X.mac, X.nmac, 2 * sizeof *X.mac, mac_cmp);
        X.macmax = malloc(X.nmac * sizeof *X.macmax);
        if (!X.macmax)
            X.oom = 1;
        for (size_t i = 0; X.macmax && i < X.nmac; i++)
            X.macmax[i] = i && X.macmax[i - 1] > X.mac[2 * i + 1] ? X.macmax[i - 1]
                                                                   : X.mac[2 * i + 1];
    }
    X.collect_macros_only = 0;
    if (!X.oom)
        count_call_sites(&X);
    if (!X.oom)
        small_prescan(&X);
    if (!X.oom)
        clang_visitChildren(clang_getTranslationUnitCursor(X.tu), top_visit, &X);
    if (X.oom) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    select_regions(&X);
    rc = rewrite(&X, res, err);
    res->nskipped = X.nskipped;
out:
    if (X.tu)
        clang_disposeTranslationUnit(X.tu);
    if (index)
        clang_disposeIndex(index);
    for (size_t i = 0; i < X.nc; i++) {
        free(X.c[i].name);
        free(X.c[i].function);
        free(X.c[i].key);
        free(X.c[i].why);
    }
    for (size_t i = 0; i < X.nc; i++) {
        free(X.c[i].ol_hdr);
        free(X.c[i].ol_args);
    }
    free(X.c);
    free(X.n);
    free_diags(&X);
    free(X.mac);
    free(X.macmax);
    free(X.S.code);
    free(X.S.dirs);
    free(X.S.lines);
    free(args);
    free(res_inc);
    free(pathcopy);
    free(text);
    if (rc)
        aa_instrument_result_free(res);
    return rc;
}

void aa_instrument_result_free(aa_instrument_result *res)
{
    aa_buf_free(&res->source);
    aa_regionmap_free(res->map);
    res->map = NULL;
}

int aa_instrument_parse_modes(const char *list, unsigned *modes, aa_err *err)
{
    static const struct {
        const char *name;
        unsigned bits;
    } tab[] = {{"functions", AA_MODE_FUNCTIONS}, {"outer-loops", AA_MODE_OUTER_LOOPS},
               {"inner-loops", AA_MODE_INNER_LOOPS | AA_MODE_OUTER_LOOPS},
               {"loops", AA_MODE_INNER_LOOPS | AA_MODE_OUTER_LOOPS}, {"mpi", AA_MODE_MPI},
               {"mathlib", AA_MODE_MATHLIB}, {"syscalls", AA_MODE_SYSCALLS},
               {"libc", AA_MODE_LIBC}, {"user", AA_MODE_USER}, {"tiny", AA_MODE_TINY},
               {"all", AA_MODE_ALL},
               {"default", AA_MODE_DEFAULT}};
    const char *p = list;
    unsigned m = 0;
    while (*p) {
        size_t l = strcspn(p, ",");
        size_t k;
        for (k = 0; k < sizeof tab / sizeof tab[0]; k++)
            if (strlen(tab[k].name) == l && !strncmp(tab[k].name, p, l))
                break;
        if (k == sizeof tab / sizeof tab[0])
            return aa_err_set(err, AA_EUSAGE,
                              "unknown mode '%.*s' (modes: functions, outer-loops, inner-loops, "
                              "mpi, mathlib, syscalls, libc, user, tiny, all)", (int)l, p);
        m |= tab[k].bits;
        p += l;
        if (*p == ',')
            p++;
    }
    if (!m)
        return aa_err_set(err, AA_EUSAGE, "empty mode list");
    *modes = m;
    return 0;
}
