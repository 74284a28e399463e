/*
 * report/report_int.h -- private to report/: per-process, per-region values
 * taken from an experiment and laid out along an analysis' region tree, so
 * the heat map, the OPTICS plot and the run comparison see the same numbers
 * the analysis clustered.
 */
#ifndef AA_REPORT_INT_H
#define AA_REPORT_INT_H

#include "report/aa_report.h"

typedef struct rp_values {
    size_t nproc, nreg;   /* nreg == a->nregions */
    int *ranks;           /* nproc ranks, experiment order */
    int *excluded;        /* nproc flags: rank excluded by the analysis */
    double *main;         /* nproc*nreg main process metric, NAN = not run */
    double *wall;         /* nproc*nreg inclusive wall time, NAN = not run */
    char *partial;        /* nreg flags: some node of the region was throttled,
                           * so its values are partial (docs/profile-format.md) */
    const char *main_label; /* "CPU time outside MPI", ... */
} rp_values;

int rp_values_compute(const aa_analysis *a, const aa_experiment *e, rp_values *out,
                      aa_err *err);
void rp_values_free(rp_values *v);

/* "#3 loop@42 (heat.c:42 sweep)"; caller frees. */
char *rp_region_label(const aa_analysis *a, size_t idx);
/* "0/5/12": path of static region ids from the root; caller frees. */
char *rp_region_key(const aa_analysis *a, size_t idx);

#endif
