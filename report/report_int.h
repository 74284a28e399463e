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

/* Next line of text (without its end, "\r\n" or "\n") or NULL; *lineno
 * counts (report/import_tau.c; the TAU and mpiP readers). */
char *rp_next_line(char **p, size_t *lineno);

int rp_values_compute(const aa_analysis *a, const aa_experiment *e, rp_values *out,
                      aa_err *err);
void rp_values_free(rp_values *v);

/* "#3 loop@42 (heat.c:42 sweep)"; caller frees. */
char *rp_region_label(const aa_analysis *a, size_t idx);
/* "0/5/12": path of static region ids from the root; caller frees. */
char *rp_region_key(const aa_analysis *a, size_t idx);

/* Per-region means and the run's length, computed once for all views. */
typedef struct rp_stats {
    double run_s;      /* whole program: mean inclusive wall time per analysed process */
    double *incl;      /* by region: mean inclusive wall per analysed process (0 = not run) */
    double *excl;      /* by region: incl minus its children's incl (>= 0) */
    double *main_mean; /* by region: mean main metric per analysed process */
    int *cluster;      /* by process (rp_values order): the analysis' cluster, -1 excluded */
    size_t *first_child, *next_sibling; /* region tree, (size_t)-1 = none */
} rp_stats;

int rp_stats_compute(const aa_analysis *a, const rp_values *v, rp_stats *s);
void rp_stats_free(rp_stats *s);

/* Shared writers (report/html.c). */
void rp_put_time(aa_buf *o, double s);
void rp_put_share(aa_buf *o, double s, double run); /* "12.3% of the run" */
void rp_put_region(aa_buf *o, const aa_analysis *a, size_t idx);
const char *rp_severity_name(int cls); /* "very low" .. "very high", "-" otherwise */

/* Views of report/views.c: the call tree, a finding's per-rank bars and the
 * source lines of a region (when its file can be read). */
void rp_section_calltree(aa_buf *o, const aa_analysis *a, const rp_values *v,
                         const rp_stats *s);
void rp_rank_bars(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                  const aa_finding *f, size_t nth);
/* Beyond the heat map's rows: the distribution of the main metric over the
 * processes (smallest, median, 90th percentile, largest and its rank) of the
 * regions whose slowest process is furthest above the median. */
void rp_section_distribution(aa_buf *o, const aa_analysis *a, const rp_values *v,
                             const rp_stats *s);
void rp_source_lines(aa_buf *o, const aa_analysis *a, size_t region, const char *source_dir);

#endif
