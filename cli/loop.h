/*
 * cli/loop.h -- private to cli/: the measure-analyze-store-report loop
 * shared by `autoanalyzer run`, `report` and `nightly` (implemented in
 * cli/cmd_run.c): loading an experiment from a file or directory, analysing
 * it, finding the last comparable run in the Program Space, and running an
 * instrumented program under the MPI launcher.
 */
#ifndef AA_CLI_LOOP_H
#define AA_CLI_LOOP_H

#include "analyze/aa_analyze.h"
#include "common/aa_common.h"
#include "profile/aa_profile.h"
#include "report/aa_report.h"

typedef struct loop_opts {
    int np;                 /* 0 = launch as given */
    const char *name;       /* configuration name (SpaceMap attribute "name") */
    size_t nattrs;
    char **attrs;           /* "k=v" */
    const char *out_dir;    /* NULL = ./autoanalyzer-<program>-<date>-<time> */
    const char *db;         /* NULL = $AUTOANALYZER_DB or the default */
    int no_store;
    int compare_last;       /* compare with the last stored run of the same name */
    const char *baseline;   /* explicit baseline experiment (file or dir) */
    const char *report;     /* HTML path; NULL = <dir>/report.html */
    int json;               /* print JSON instead of the text report */
    int quiet;              /* print nothing on stdout */
    int nlaunch;
    char **launch;
    const aa_analyze_options *analysis; /* NULL = the defaults */
} loop_opts;

typedef struct loop_result {
    char *dir;               /* experiment directory */
    char *report_path;
    aa_experiment *exp;
    aa_analysis *an;
    aa_experiment *base_exp;
    aa_analysis *base_an;
    aa_report_comparison *cmp;
    char *base_label;
    long long eid;           /* -1 when not stored */
    int prog_status;         /* program's exit status (128+sig when killed) */
    int have_profile;
} loop_result;

void loop_result_free(loop_result *r);
/* EXP file or directory holding experiment.xml (or rank-N.xml files to merge). */
int loop_load(const char *path, aa_experiment **e, char **dir, aa_err *err);
/* o: the analysis options (NULL = the defaults). */
int loop_analyze(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **a,
                 aa_err *err);
/* Latest stored execution whose attribute "name" (or, without a name, the
 * program) matches and whose experiment directory is not exclude_dir, with
 * its experiment still on disk.  *path = NULL when there is none. */
int loop_find_last(const char *db, const char *name, const char *program,
                   const char *exclude_dir, char **path, long long *eid, aa_err *err);
/* Loads the baseline, analyses it with the options of the current run (o,
 * NULL = the defaults) and compares; fills r->base_*, r->cmp. */
int loop_compare(loop_result *r, const char *base_path, const char *label,
                 const aa_analyze_options *o, aa_err *err);
/* Stores r->exp with its findings; sets r->eid. */
int loop_store(loop_result *r, const char *db, aa_err *err);
/* Writes analysis.json, analysis.xml and the HTML report. */
int loop_write_outputs(loop_result *r, const char *report, aa_err *err);
/* The whole `run`: launch, collect, analyse, compare, store, write. */
int loop_run(const loop_opts *o, loop_result *r, aa_err *err);
/* Space is compiled in. */
int loop_have_space(void);

#endif
