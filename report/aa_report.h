/*
 * report/aa_report.h -- the self-contained HTML report (SPEC §5.5) and the
 * run-to-run comparison behind it and behind the nightly gates (SPEC §6,
 * history-guided analysis).
 *
 * aa_report_html() renders one analysis as a single HTML page with inline
 * CSS, inline SVG charts and a little inline JavaScript (no network): the
 * findings, a per-region severity bar chart, a per-process heat map of the
 * main process metric by region, the OPTICS reachability plot (recomputed
 * here from the process vectors), the root-cause table, the attributes that
 * could not be measured and, when a comparison is given, the new, gone and
 * changed bottlenecks and the largest per-region performance differences.
 * Every string that comes from the measured program is HTML-escaped.
 *
 * aa_report_compare() matches two analyses region by region (by the path of
 * stable region ids from the root, SPEC §3.4) and bottleneck by bottleneck.
 */
#ifndef AA_REPORT_H
#define AA_REPORT_H

#include <stddef.h>

#include "analyze/aa_analyze.h"
#include "common/aa_common.h"
#include "profile/aa_profile.h"

/* A bottleneck seen in one or both runs. */
typedef struct aa_report_change {
    aa_finding_kind kind;
    char *region;        /* display name: "#3 loop@42 (heat.c:42 sweep)" */
    int cccr_before, cccr_after;          /* -1 when absent in that run */
    int class_before, class_after;        /* disparity class, -1 if none */
    double severity_before, severity_after; /* NAN when absent */
} aa_report_change;

/* Per-region difference of the mean (over processes) inclusive wall time. */
typedef struct aa_report_diff {
    char *region;        /* display name */
    char *path;          /* "/Code/<file>/<function>/<region>" style focus */
    double before, after; /* seconds per process */
    double delta;         /* after - before */
    double relative;      /* delta / before (INFINITY when before is 0) */
    double share;         /* before / whole-program wall of the baseline */
    double share_after;   /* after / whole-program wall of the current run */
    double main_before, main_after; /* the analysis' process metric (CPU time
                           * outside MPI by default), seconds per process */
    int partial;          /* the region was throttled in either run: its times
                           * are partial, the difference is no speed-up or
                           * slowdown (never counted by aa_report_slowdowns) */
    uint32_t region_id;   /* the region's stable id (SPEC §3.4) */
    double noise;         /* the region's run-to-run noise learned from stored runs
                           * (relative standard deviation); 0 = not known */
    int within_noise;     /* |relative| is within what runs of this configuration
                           * vary by: no change (never counted by aa_report_slowdowns) */
} aa_report_diff;

typedef struct aa_report_comparison {
    char *baseline_label;   /* e.g. "experiment abc (eid 4)" */
    double run_before, run_after; /* whole program: mean wall time per process (s) */
    size_t nnew, ngone, nchanged;
    aa_report_change *new_cccrs;  /* CCCRs only in the current run */
    aa_report_change *gone;       /* CCCRs only in the baseline */
    aa_report_change *changed;    /* in both, severity class or CCCR changed */
    size_t ndiffs;
    aa_report_diff *diffs;        /* regions common to both, |relative| desc */
    size_t nonly_current, nonly_baseline; /* regions present in one run only */
    char *history;          /* the historical knowledge the comparison used (one
                             * sentence), NULL none */
} aa_report_comparison;

/* Compares cur (the new run) with base (the baseline).  Both analyses must
 * still point at their experiments (a->exp).  label may be NULL. */
int aa_report_compare(const aa_analysis *cur, const aa_analysis *base, const char *label,
                      aa_report_comparison **out, aa_err *err);
void aa_report_comparison_free(aa_report_comparison *c);

/* Regions that count for slowdown gates: at least min_share of the program's
 * wall time in either run (the larger of the two shares, so a region that
 * grew from nothing to most of the run counts).  Returns how many diffs have relative > limit (and
 * fills up to nidx of their indices into c->diffs). */
size_t aa_report_slowdowns(const aa_report_comparison *c, double limit, double min_share,
                           size_t *idx, size_t nidx);

/* Appends the whole HTML page to out.  e may be NULL (then a->exp is used);
 * cmp may be NULL.  Returns AA_OK or an error code with err filled. */
int aa_report_html(const aa_analysis *a, const aa_experiment *e,
                   const aa_report_comparison *cmp, aa_buf *out, aa_err *err);

/* The same, reading the source lines of each finding's region from the
 * file the experiment names (as given to the compiler), or below
 * source_dir when that relative path does not open here; NULL: as given. */
int aa_report_html_ex(const aa_analysis *a, const aa_experiment *e,
                      const aa_report_comparison *cmp, const char *source_dir, aa_buf *out,
                      aa_err *err);

/* HTML-escapes s (& < > " ') into out; NULL is written as "". */
void aa_report_escape(aa_buf *out, const char *s);

/* ---- formats other tools read (report/export.c, docs/report.md) ---------- */
typedef enum aa_export_format {
    AA_EXPORT_CSV = 0,  /* tidy CSV: rank x thread x node x metric, RFC 4180 */
    AA_EXPORT_HATCHET,  /* Hatchet's literal format (JSON), merged tree, means */
    AA_EXPORT_CUBE,     /* CUBE4 .cubex (tar): merged tree, per thread, exclusive */
} aa_export_format;

int aa_export_format_parse(const char *s, aa_export_format *out); /* 0 ok, -1 unknown */
int aa_export(const aa_experiment *e, aa_export_format f, aa_buf *out, aa_err *err);
int aa_export_csv(const aa_experiment *e, aa_buf *out, aa_err *err);
int aa_export_hatchet(const aa_experiment *e, aa_buf *out, aa_err *err);
/* Binary (a tar archive): out->len bytes, not a C string. */
int aa_export_cube(const aa_experiment *e, aa_buf *out, aa_err *err);

/* Reads the TAU profiles profile.N.C.T of dir (report/import_tau.c) into a
 * new experiment: rank N, thread T, regions per function, visits and wall
 * (inclusive) per calling context.  Bad input: AA_EINPUT, "FILE:LINE: ...". */
int aa_import_tau(const char *dir, aa_experiment **out, aa_err *err);

/* Reads an mpiP report (report/import_mpip.c) into a new experiment: a
 * process per task, the whole program (AppTime, MPITime), functions and
 * MPI call sites along the callsite stacks with visits, wall, mpi_wall and
 * mpi_bytes_sent.  Bad input: AA_EINPUT, "NAME:LINE: ...". */
int aa_import_mpip(const char *path, aa_experiment **out, aa_err *err);
int aa_import_mpip_text(const char *name, const char *text, size_t len, aa_experiment **out,
                        aa_err *err);

#endif
