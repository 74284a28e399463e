/*
 * runtime/aa_probe.h -- the probe ABI between instrumented code and the
 * AutoAnalyzer runtime (libautoanalyzer-rt).  This is the contract the
 * instrumenter emits code against; keep it small and stable.
 *
 * Every static code region has one static descriptor in the instrumented
 * translation unit, zero-initialised except for the fields the instrumenter
 * fills.  The runtime registers a descriptor on its first enter and caches
 * its own index in `handle`, so later probes cost no lookup.
 *
 *   static aa_runtime_region aa_r_12 = {12u, 0u, 1, 40, 1, 80, 1,
 *                                       "solve", "solve", "solver.c", 0};
 *   aa_runtime_enter(&aa_r_12);  ...  aa_runtime_exit(&aa_r_12);
 *
 * or the scope form, which closes the region on every path out of the
 * enclosing block (return, break, continue, goto out, falling off the end):
 *
 *   { AA_RUNTIME_SCOPE(aa_r_12); ...body... }
 *
 * In C++ the scope form is an RAII guard (AA_RUNTIME_GUARD), whose
 * destructor also closes the region when an exception propagates through:
 *
 *   { AA_RUNTIME_GUARD(aa_r_12); ...body... }
 *
 * The scope forms enter through aa_runtime_enter_scope, inline: when the
 * runtime has gated the region in the innermost open calling context of
 * this thread (many visits, each too short to be worth two clock reads:
 * docs/runtime.md, Throttling), the visit is only counted there and the
 * probe steps into the region's own context (its gates become the
 * innermost ones) without calling the runtime; the cleanup
 * (aa_runtime_scope_close) steps back out.  A few loads, a compare, an
 * increment and two thread-local stores.  When the runtime is called
 * inside such a visit (a measured child, an MPI or I/O call), it first
 * opens the contexts the probes stepped into, so nesting stays exact.
 * With AUTOANALYZER_DISABLE set, the runtime points the probes at gates
 * that stop every scope probe there (nothing counted, nothing called).
 *
 * Exits that do not match the innermost open region are detected and
 * counted, never crashed on.  These functions are safe to call from any
 * thread, before MPI_Init and after MPI_Finalize.
 */
#ifndef AA_PROBE_H
#define AA_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AA_RUNTIME_ABI 1

typedef struct aa_runtime_region {
    uint32_t id;       /* stable region id (SPEC §3.4) */
    uint32_t parent;   /* static parent region id, 0 = top level */
    int32_t kind;      /* aa_region_kind: 1 function, 2 loop, 3 call, 4 user,
                        * | AA_RUNTIME_REFINED */
    int32_t line, col, end_line, end_col;
    const char *name;     /* "solve", "loop@42", "MPI_Send@57" */
    const char *function; /* enclosing function */
    const char *file;     /* source file */
    int32_t handle;       /* runtime-private; must start as 0 */
} aa_runtime_region;

/* Flag in `kind`: the region was refined in round 2 (named by --refine or
 * a plan's split, or one of the regions inside a named one); the runtime
 * never throttles it, nor a loop or call site entered in its context, so
 * the round-2 run needs no AUTOANALYZER_REFINE (docs/runtime.md). */
#define AA_RUNTIME_REFINED 0x100

void aa_runtime_enter(aa_runtime_region *r);
void aa_runtime_exit(aa_runtime_region *r);
/* Cleanup handler of the scope form (before gates; kept for old objects). */
void aa_runtime_scope_end(aa_runtime_region **r);

/* Gated child regions of the innermost open calling context of the calling
 * thread, set by the runtime (NULL while nothing is recorded): the first
 * `region` slots in use, each with the visits counted at the probe since it
 * was gated and the gates of the region's own context there (`inner`).
 * `off` set: no probe records anything in this context.  The runtime owns
 * the storage; probes only read the slots, increment their own count and
 * move aa_runtime_gates_at between a context and its gated children. */
#define AA_RUNTIME_GATES 4
#ifdef __cplusplus
#define AA_RUNTIME_NULL_ __null /* no -Wzero-as-null-pointer-constant, C++98 too */
#define AA_RUNTIME_INT_(p) reinterpret_cast<__UINTPTR_TYPE__>(p) /* no -Wold-style-cast */
#define AA_RUNTIME_PTR_(T, i) reinterpret_cast<T>(i)
#else
#define AA_RUNTIME_NULL_ ((void *)0)
#define AA_RUNTIME_INT_(p) ((__UINTPTR_TYPE__)(p))
#define AA_RUNTIME_PTR_(T, i) ((T)(i))
#endif
typedef struct aa_runtime_gates {
    const aa_runtime_region *region[AA_RUNTIME_GATES];
    uint64_t visits[AA_RUNTIME_GATES];
    struct aa_runtime_gates *inner[AA_RUNTIME_GATES];
    int32_t off;
} aa_runtime_gates;
extern __thread aa_runtime_gates *aa_runtime_gates_at __attribute__((tls_model("initial-exec")));

/* Enters r, or only counts the visit and steps into r's context when r is
 * gated here; returns what the cleanup must close: NULL nothing, r the
 * region, the enclosing gates + 1 (an odd address) a step to undo. */
static __inline__ __attribute__((always_inline, unused)) aa_runtime_region *
aa_runtime_enter_scope(aa_runtime_region *r)
{
    aa_runtime_gates *g = aa_runtime_gates_at;
    if (__builtin_expect(g && g->region[0], 0)) {
        int i;
        for (i = 0; i < AA_RUNTIME_GATES && g->region[i]; i++)
            if (g->region[i] == r) {
                g->visits[i]++;
                aa_runtime_gates_at = g->inner[i];
                return AA_RUNTIME_PTR_(aa_runtime_region *, AA_RUNTIME_INT_(g) | 1u);
            }
        if (g->off)
            return AA_RUNTIME_NULL_;
    }
    aa_runtime_enter(r);
    return r;
}

static __inline__ __attribute__((always_inline, unused)) void
aa_runtime_scope_close(aa_runtime_region **r)
{
    if (*r) {
        if (AA_RUNTIME_INT_(*r) & 1u)
            aa_runtime_gates_at = AA_RUNTIME_PTR_(aa_runtime_gates *, AA_RUNTIME_INT_(*r) - 1u);
        else
            aa_runtime_exit(*r);
    }
}

#define AA_RUNTIME_CAT_(a, b) a##b
#define AA_RUNTIME_CAT(a, b) AA_RUNTIME_CAT_(a, b)
#define AA_RUNTIME_SCOPE(desc)                                                  \
    __attribute__((cleanup(aa_runtime_scope_close), unused))                   \
    aa_runtime_region *AA_RUNTIME_CAT(aa_scope_, __LINE__) =                    \
        aa_runtime_enter_scope(&(desc))

#ifdef __cplusplus
}

/* C++: closes the region when it goes out of scope (return, break,
 * continue, goto out, throw, an exception propagating through).  Not
 * copyable; C++98 spelling so that every dialect accepts it. */
struct aa_runtime_guard {
    aa_runtime_region *aa_r_;
    explicit aa_runtime_guard(aa_runtime_region *r) : aa_r_(aa_runtime_enter_scope(r)) {}
    ~aa_runtime_guard() { aa_runtime_scope_close(&aa_r_); }
private:
    aa_runtime_guard(const aa_runtime_guard &);
    aa_runtime_guard &operator=(const aa_runtime_guard &);
};
#define AA_RUNTIME_GUARD(desc) ::aa_runtime_guard AA_RUNTIME_CAT(aa_guard_, __LINE__)(&(desc))
#endif
#endif
