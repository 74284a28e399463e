/*
 * engine/aa_engine.h -- the engine of `autoanalyzer run`, `report` and
 * `nightly`: loading an experiment (a file, a directory of rank profiles, or
 * an execution stored in the Program Space), analysing it, finding the last
 * comparable run through the Program Space and comparing with it, storing
 * the run with its findings, writing the outputs, running an instrumented
 * program under the MPI launcher, and evaluating the nightly gates.  The
 * functions return data; printing is the caller's (cli/).
 */
#ifndef AA_ENGINE_H
#define AA_ENGINE_H

#include "analyze/aa_analyze.h"
#include "common/aa_common.h"
#include "profile/aa_profile.h"
#include "report/aa_report.h"
#include "space/aa_space.h"

/* How much each region varies between stored runs of one configuration
 * (Karavanic's history-guided thresholds): for the latest
 * AA_ENGINE_NOISE_RUNS good runs (not failed, complete) of name (or, without
 * a name, of program), the mean value per process of metric ("wall" or
 * "cpu") of every region; a region's noise is the sample standard
 * deviation of those means over their mean, known when at least
 * AA_ENGINE_NOISE_MIN_RUNS runs measured it. */
#define AA_ENGINE_NOISE_RUNS 5
#define AA_ENGINE_NOISE_MIN_RUNS 3
typedef struct aa_engine_noise {
    size_t nruns;
    long long eids[AA_ENGINE_NOISE_RUNS]; /* the runs learned from, newest first */
    size_t n;
    uint32_t *region_ids;
    double *spread;                       /* relative standard deviation */
} aa_engine_noise;

typedef struct aa_engine_run_options {
    int np;                 /* 0 = launch as given */
    const char *name;       /* configuration name (SpaceMap attribute "name") */
    size_t nattrs;
    char **attrs;           /* "k=v" */
    const char *out_dir;    /* NULL = ./autoanalyzer-<program>-<date>-<time> */
    const char *db;         /* NULL = $AUTOANALYZER_DB or the default */
    int no_store;
    int compare_last;       /* compare with the last stored run of the same name */
    const char *baseline;   /* explicit baseline: experiment file or directory */
    const char *report;     /* HTML path; NULL = <dir>/report.html */
    int nlaunch;
    char **launch;
    const aa_analyze_options *analysis; /* NULL = the defaults */
} aa_engine_run_options;

typedef struct aa_engine_result {
    char *dir;               /* experiment directory */
    char *report_path;
    aa_experiment *exp;
    aa_analysis *an;
    aa_experiment *base_exp;
    aa_analysis *base_an;
    aa_report_comparison *cmp;
    char *base_label;
    long long base_eid;      /* stored execution compared with; -1 none */
    long long eid;           /* -1 when not stored */
    int prog_status;         /* program's exit status (128+sig when killed) */
    int have_profile;
    char *notes;             /* warnings for the user, one per line; NULL none */
    aa_engine_noise noise;   /* the run-to-run noise aa_engine_compare_history learned
                              * (wall time) and applied to cmp; n = 0 none */
} aa_engine_result;

void aa_engine_result_init(aa_engine_result *r);
void aa_engine_result_free(aa_engine_result *r);

/* ---- loading and analysing ------------------------------------------------- */
/* PATH: an experiment file, or a directory holding experiment.xml or rank-N.xml
 * files (merged by the collect library).  *dir (may be NULL) gets the
 * directory.  Missing ranks are not an error: *note (may be NULL) gets
 * "N of M ranks have no profile in PATH (missing: LIST)" and *missing
 * (may be NULL) the list.  A path that does not exist gives AA_EINPUT
 * ("PATH: No such file or directory"), like a malformed file. */
int aa_engine_load(const char *path, aa_experiment **e, char **dir, char **note,
                   char **missing, aa_err *err);
/* The experiment of stored execution eid: its stored document, or its
 * experiment directory when the document is absent (older databases).
 * *dir (may be NULL) gets its stored experiment_dir attribute or NULL. */
int aa_engine_load_stored(const char *db, long long eid, aa_experiment **e, char **dir,
                          aa_err *err);
/* o: the analysis options (NULL = the defaults). */
int aa_engine_analyze(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **a,
                      aa_err *err);

/* ---- the Program Space ---------------------------------------------------------- */
/* The findings of an analysis as Program Space records (regions as /Code
 * paths); free with aa_engine_findings_free. */
int aa_engine_findings(const aa_analysis *an, const aa_experiment *e, aa_space_finding **out,
                       size_t *n, aa_err *err);
void aa_engine_findings_free(aa_space_finding *f, size_t n);
/* Latest stored execution that can be a baseline for a run of this name
 * (or, without a name, of this program): attribute "name" (or the
 * application) matches, it is not the run itself (experiment id or
 * directory), it did not fail (no non-zero exit_status), is complete (no
 * missing_ranks) and its experiment can be loaded (stored document, or its
 * directory still on disk).  *eid = -1 when there is none. */
int aa_engine_find_last(const char *db, const char *name, const char *program,
                        const aa_experiment *self, const char *self_dir, long long *eid,
                        aa_err *err);
/* History-guided round 2 (SPEC §3.5, §6): the stable region ids of the
 * findings stored with the latest execution whose attribute "name" is
 * name, or else whose application is name.  *eid = -1 and *n = 0 when no
 * execution matches; ids are unique, in the findings' order. */
int aa_engine_refine_from_space(const char *db, const char *name, uint32_t **ids, size_t *n,
                                long long *eid, aa_err *err);
/* Stores r->exp with its findings; sets r->eid. */
int aa_engine_store(aa_engine_result *r, const char *db, aa_err *err);

/* ---- comparing ------------------------------------------------------------------ */
/* Analyses base (taken over by r) with the options of the current run and
 * compares; fills r->base_*, r->cmp.  label NULL = "baseline experiment ID". */
int aa_engine_compare(aa_engine_result *r, aa_experiment *base, const char *label,
                      const aa_analyze_options *o, aa_err *err);
/* The same with the baseline loaded from a file or directory. */
int aa_engine_compare_path(aa_engine_result *r, const char *path, const aa_analyze_options *o,
                           aa_err *err);
/* The same with stored execution eid (label "stored run EID (DIR)"). */
int aa_engine_compare_stored(aa_engine_result *r, const char *db, long long eid,
                             const aa_analyze_options *o, aa_err *err);

/* ---- outputs and the whole run ----------------------------------------------------- */
/* Writes analysis.json, analysis.xml and the HTML report (report NULL =
 * DIR/report.html). */
int aa_engine_write_outputs(aa_engine_result *r, const char *report, aa_err *err);
/* The whole `run`: launch, collect, analyse, compare, store, write. */
int aa_engine_run(const aa_engine_run_options *o, aa_engine_result *r, aa_err *err);

/* ---- history: run-to-run noise ------------------------------------------------------ */

/* exclude_eid: a stored execution left out (the run being judged; -1 none).
 * nz->n = 0 when fewer than AA_ENGINE_NOISE_MIN_RUNS runs are stored. */
int aa_engine_learn_noise(const char *db, const char *name, const char *program,
                          const char *metric, long long exclude_eid, aa_engine_noise *nz,
                          aa_err *err);
void aa_engine_noise_free(aa_engine_noise *nz);
/* The region's noise, or NAN when not known. */
double aa_engine_noise_of(const aa_engine_noise *nz, uint32_t region_id);
/* History-guided comparison: learns the run-to-run noise of the
 * configuration (name, or without a name program) from the stored runs
 * (exclude_eid left out: the run being judged) and applies it to r->cmp:
 * each difference of a region with known noise gets it (aa_report_diff.
 * noise) and is within_noise when |relative| <= factor x noise (factor <= 0:
 * AA_ENGINE_NOISE_FACTOR), so the report and aa_report_slowdowns treat it
 * as no change; r->cmp->history says what was learned and from which runs
 * (or that too few are stored), r->noise keeps the learned noise.  No Program Space: no history, none
 * created.  Nothing to do without r->cmp. */
int aa_engine_compare_history(aa_engine_result *r, const char *db, const char *name,
                              const char *program, long long exclude_eid, double factor,
                              aa_err *err);

/* ---- history-guided analysis ---------------------------------------------------------
 * Karavanic's directives from the Program Space, as the analysis' history
 * input (aa_analyze_options.history): the prunes of the configuration
 * (name, or without a name program; a name no stored execution has as its
 * attribute "name" is taken as an application) and of its application, expanded to the
 * regions of e they cover (the pruned resource and the regions below it,
 * found by path and by the stable region id the resource had, so a region
 * that moved lines stays pruned); priorities: the regions of the findings
 * stored with the latest AA_ENGINE_NOISE_RUNS good runs (not e itself); and
 * the run-to-run noise learned from them (aa_engine_learn_noise on CPU
 * time: the analysis judges imbalances on CPU time, so their noise is
 * learned on that scale).  No Program Space: h->found = 0 and nothing else (none is created). */
typedef struct aa_engine_history {
    int found;                 /* a Program Space was there */
    size_t nexecutions;        /* stored executions of the configuration (by attribute
                                * name, else, when none has it, by application) */
    aa_analyze_history h;      /* points into what follows */
    char *source;
    aa_analyze_prune *prunes;
    aa_space_prune *stored;    /* the prunes as stored */
    size_t nstored;
    aa_analyze_priority *priorities;
    long long priority_runs[AA_ENGINE_NOISE_RUNS];
    aa_engine_noise noise;
} aa_engine_history;

int aa_engine_history_load(const char *db, const char *name, const char *program,
                           const aa_experiment *e, aa_engine_history *h, aa_err *err);
void aa_engine_history_free(aa_engine_history *h);

/* ---- nightly gates ---------------------------------------------------------------- */
typedef struct aa_engine_gate {
    const char *name;    /* "new-cccr" or "region-slowdown" */
    int tripped;
    char *region;        /* NULL for a gate that passed */
    char *message;       /* what tripped, or what was checked */
} aa_engine_gate;

typedef struct aa_engine_gate_options {
    int fail_new;           /* a core bottleneck the baseline did not have */
    double max_slowdown;    /* fraction; < 0 = off */
    double min_share;       /* fraction of the larger run's program time */
    const char *metric;     /* slowdown metric: "wall" (default) or a metric name */
    const aa_engine_noise *noise; /* NULL = none: a region's limit is raised to
                             * noise_factor times its run-to-run noise */
    double noise_factor;    /* 0 = AA_ENGINE_NOISE_FACTOR */
} aa_engine_gate_options;
#define AA_ENGINE_NOISE_FACTOR 3.0

/* Checks the gates on r->cmp (which must be set): one entry per tripped
 * gate instance, plus one passed entry per enabled gate with none tripped. */
int aa_engine_gates(const aa_engine_result *r, const aa_engine_gate_options *o,
                    aa_engine_gate **out, size_t *n, aa_err *err);
void aa_engine_gates_free(aa_engine_gate *g, size_t n);

#endif
