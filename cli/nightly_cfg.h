/*
 * cli/nightly_cfg.h -- private to cli/: the configuration file of
 * `autoanalyzer nightly` (docs/nightly.md) and the splitting of its command
 * lines into words, apart from the command so that the fuzz target
 * (fuzz/fuzz_nightly.c) reaches them.
 */
#ifndef AA_NIGHTLY_CFG_H
#define AA_NIGHTLY_CFG_H

#include "common/aa_common.h"

typedef struct nightly_cfg {
    char *name, *run, *build, *workdir, *db, *out, *report, *analysis;
    char *slowdown_metric; /* "wall" (NULL) or "cpu" */
    int np;
    int analysis_line; /* line of the `analysis` key */
    int run_line;      /* line of the `run` key */
    int fail_new;
    double max_slowdown; /* fraction; < 0 = off */
    double min_share;
    size_t nenv, nattr;
    char **env, **attr;
} nightly_cfg;

/* Reads CONFIG: AA_EINPUT "path:line: what" on bad input, AA_EENV when it
 * cannot be read.  c is filled (release with nightly_cfg_free, also after
 * an error). */
int nightly_cfg_read(const char *path, nightly_cfg *c, aa_err *err);
void nightly_cfg_free(nightly_cfg *c);

enum { WORDS_OK = 0, WORDS_NOMEM = -1, WORDS_QUOTE = -2, WORDS_EMPTY = -3 };
/* Splits a command line into words (quotes '...' and "...", backslash):
 * WORDS_OK, or WORDS_QUOTE / WORDS_EMPTY / WORDS_NOMEM with nothing left
 * allocated.  *words is NULL-terminated. */
int nightly_split_words(const char *s, char ***words, int *n);
void nightly_free_words(char **w, int n);
/* The error for a nightly_split_words failure of key's value at path:line. */
int nightly_words_error(aa_err *err, int why, const char *path, int line, const char *key,
                        const char *val);

#endif
