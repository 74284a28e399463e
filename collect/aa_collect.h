/*
 * collect/aa_collect.h -- merging the per-rank profiles of one run
 * (SPEC §4.3).
 *
 * An output directory holds rank-<N>.xml (or rank-<N>.xml.gz) files written
 * by each process in `AUTOANALYZER_COLLECT=files` mode, or one
 * experiment.xml written by rank 0, plus the instrumenter's region maps
 * (*.regions.xml).  aa_collect_dir merges them into one experiment and
 * reports what it found: the files merged, the ranks missing (by the
 * expected count nprocs recorded in the files), the region maps used.
 *
 * Region maps also travel inside the program (profile/aa_profile.h,
 * aa_regionmap_read_elf): when the experiment records its executable
 * (environment attributes executable, executable_size, executable_mtime)
 * and that file still exists with the same size and mtime, the maps
 * embedded in it are merged too, after the *.regions.xml files.  Problems
 * with them (file changed or gone, a damaged section, conflicting ids) are
 * not errors: the maps are skipped and rep->program_note says why.
 *
 * Errors (AA_EINPUT, message naming the files): a file that does not read
 * (see aa_experiment_read), two files with different experiment ids or
 * rank counts, the same rank in two files, a rank-<N> file holding another
 * rank, one region id with different details in two files.  Missing ranks
 * are not an error here: the caller decides (rep->nmissing).
 */
#ifndef AA_COLLECT_H
#define AA_COLLECT_H

#include <stddef.h>

#include "common/aa_common.h"
#include "profile/aa_profile.h"

typedef struct aa_collect_report {
    int single_file;   /* input was one experiment file, not rank files */
    size_t nfiles;     /* profile files read, in rank order */
    char **files;
    size_t nmaps;      /* region maps merged, sorted by name */
    char **maps;
    int nprocs;        /* expected number of ranks */
    size_t nranks;     /* ranks present */
    size_t nmissing;   /* ranks below nprocs with no profile */
    int *missing;      /* ascending */
    size_t nregions, nmetrics; /* of the merged experiment */
    char *program;        /* executable whose embedded maps were merged, or NULL */
    size_t nprogram_maps; /* framed maps found in it */
    char *program_note;   /* why the executable's maps were not used, or NULL */
} aa_collect_report;

typedef struct aa_collect_options {
    int no_program_maps; /* do not read the maps embedded in the executable */
    /* Called after each rank file is merged (done of total files); the
     * caller decides whether and how to show it.  NULL: not called. */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /* Threads reading rank files (each file is read whole by one thread and
     * merged in rank order by the caller's thread: the result and any error
     * are the same for every count).  0: one per online CPU, at most 16. */
    int threads;
} aa_collect_options;

/* path: an output directory or a single experiment / profile file.
 * rep may be NULL; when given it is filled (also on errors, as far as the
 * merge got) and must be released with aa_collect_report_free. */
int aa_collect_dir(const char *path, aa_experiment **out, aa_collect_report *rep, aa_err *err);
/* The same with options (o may be NULL: the defaults). */
int aa_collect_dir_opts(const char *path, const aa_collect_options *o, aa_experiment **out,
                        aa_collect_report *rep, aa_err *err);
void aa_collect_report_free(aa_collect_report *rep);
/* Names the regions of e -- one rank file's experiment, read on its own --
 * as aa_collect_dir names a merged one: from the region maps of dir
 * (*.regions.xml: source details a profile left empty, regions nobody
 * executed) and, unless o says not, from the maps embedded in the program
 * e records.  rep (may be NULL; zeroed, then filled: maps, program,
 * program_note) must be released with aa_collect_report_free. */
int aa_collect_name_regions(const char *dir, aa_experiment *e, const aa_collect_options *o,
                            aa_collect_report *rep, aa_err *err);

/* "0, 3-5, 9" for a sorted rank list, into b. */
void aa_collect_format_ranks(aa_buf *b, const int *ranks, size_t n);

#endif
