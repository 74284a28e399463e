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
    int32_t kind;      /* aa_region_kind: 1 function, 2 loop, 3 call, 4 user */
    int32_t line, col, end_line, end_col;
    const char *name;     /* "solve", "loop@42", "MPI_Send@57" */
    const char *function; /* enclosing function */
    const char *file;     /* source file */
    int32_t handle;       /* runtime-private; must start as 0 */
} aa_runtime_region;

void aa_runtime_enter(aa_runtime_region *r);
void aa_runtime_exit(aa_runtime_region *r);
/* Cleanup handler of the scope form. */
void aa_runtime_scope_end(aa_runtime_region **r);

#define AA_RUNTIME_CAT_(a, b) a##b
#define AA_RUNTIME_CAT(a, b) AA_RUNTIME_CAT_(a, b)
#define AA_RUNTIME_SCOPE(desc)                                                  \
    __attribute__((cleanup(aa_runtime_scope_end), unused))                     \
    aa_runtime_region *AA_RUNTIME_CAT(aa_scope_, __LINE__) =                    \
        (aa_runtime_enter(&(desc)), &(desc))

#ifdef __cplusplus
}

/* C++: closes the region when it goes out of scope (return, break,
 * continue, goto out, throw, an exception propagating through).  Not
 * copyable; C++98 spelling so that every dialect accepts it. */
struct aa_runtime_guard {
    aa_runtime_region *aa_r_;
    explicit aa_runtime_guard(aa_runtime_region *r) : aa_r_(r) { aa_runtime_enter(r); }
    ~aa_runtime_guard() { aa_runtime_exit(aa_r_); }
private:
    aa_runtime_guard(const aa_runtime_guard &);
    aa_runtime_guard &operator=(const aa_runtime_guard &);
};
#define AA_RUNTIME_GUARD(desc) ::aa_runtime_guard AA_RUNTIME_CAT(aa_guard_, __LINE__)(&(desc))
#endif
#endif
