/*
 * runtime/aa_runtime.h -- public API of the AutoAnalyzer measurement runtime
 * (libautoanalyzer, libautoanalyzer-mpi), for programs that annotate regions
 * by hand or control measurement.  The instrumenter's probe ABI is in
 * runtime/aa_probe.h, the AA_REGION_BEGIN/END, AA_REGION_SCOPE,
 * AA_PAUSE/AA_RESUME macros (active only with -DAUTOANALYZER) in
 * runtime/aa_user.h; both are included here.  Installed as
 * <autoanalyzer/aa_runtime.h>.
 *
 *   aa_runtime_user_begin("assemble"); ... aa_runtime_user_end("assemble");
 *   aa_runtime_pause(); ... aa_runtime_resume();   (MPI_Pcontrol(0) / (1))
 *   aa_runtime_flush();  writes this process's profile now (files mode)
 *
 * Fortran (gfortran/ifort naming, hidden length arguments):
 *   call aa_runtime_enter_f(id, 'solve')  /  call aa_runtime_exit_f(id, 'solve')
 *   call aa_runtime_user_begin_f('name')  /  call aa_runtime_user_end_f('name')
 *   call aa_runtime_pause_f() / aa_runtime_resume_f() / aa_runtime_flush_f()
 *
 * Configuration is by environment variables (docs/runtime.md):
 * AUTOANALYZER_OUTPUT, _COLLECT, _FORMAT, _COUNTERS, _PAPI_EVENTS, _THROTTLE,
 * _CPU_INTERVAL_US, _ENV_VARS, _INPUTS, _GIT_REV, _CLOCK.
 */
#ifndef AA_RUNTIME_H
#define AA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/aa_probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* User regions identified by name (kind "user"; id derived from the name). */
void aa_runtime_user_begin(const char *name);
void aa_runtime_user_end(const char *name);
/* Enters NAME and returns its descriptor for aa_runtime_scope_end (the
 * scope form AA_REGION_SCOPE); NULL when it cannot be recorded. */
aa_runtime_region *aa_runtime_user_enter(const char *name);

/* Stop / restart recording new region entries, MPI and I/O attribution for
 * the whole process.  Regions already open keep running. */
void aa_runtime_pause(void);
void aa_runtime_resume(void);

/* Writes this process's profile now as rank-<N>.xml (rank-<N>.aab in the
 * binary form, AUTOANALYZER_FORMAT) in the output directory
 * (regions still open are included as if closed now; measuring goes on).
 * Returns 0 on success. */
int aa_runtime_flush(void);

/* Number of counter events measured (0: none configured, or the machine
 * has none of them; see the profile's `unavailable` list). */
int aa_runtime_counters_available(void);

/* Build information recorded in the experiment's environment (SPEC 4.3):
 * the compiler wrapper defines these in an object it links into the
 * program, e.g.  const char aa_runtime_compiler[] = "mpicc (gcc 12.2)";
 * The runtime references them weakly, so they are optional. */
extern const char aa_runtime_compiler[];
extern const char aa_runtime_cflags[];

/* Fortran entry points (also callable from C). */
void aa_runtime_enter_f_(const int32_t *id, const char *name, size_t name_len);
void aa_runtime_exit_f_(const int32_t *id, const char *name, size_t name_len);
/* The enter of a region refined in round 2 (AA_RUNTIME_REFINED). */
void aa_runtime_enter_refined_f_(const int32_t *id, const char *name, size_t name_len);
void aa_runtime_user_begin_f_(const char *name, size_t name_len);
void aa_runtime_user_end_f_(const char *name, size_t name_len);
void aa_runtime_pause_f_(void);
void aa_runtime_resume_f_(void);
void aa_runtime_flush_f_(void);

#ifdef __cplusplus
}
#endif

#include "runtime/aa_user.h"
#endif
