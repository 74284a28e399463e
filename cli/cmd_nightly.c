/*
 * cli/cmd_nightly.c -- `autoanalyzer nightly CONFIG`: the unattended
 * bottleneck report for a team's code (SPEC §1, §6 history-guided
 * analysis).  Reads a key = value configuration (docs/nightly.md), builds
 * the program (normally with CC="autoanalyzer cc mpicc"), runs it through
 * the `run` loop (analyse, store in the Program Space, compare with the last
 * stored run of the same configuration name, write the HTML report) and
 * exits 1 when a gate trips: a new core bottleneck (CCCR) or a region slower
 * than the allowed percentage.
 */
#include "cli/cli.h"
#include "cli/loop.h"
#include "cli/nightly_cfg.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char cmd_nightly_summary[] = "build, run, analyse, compare with the last run; gate on regressions";
const char cmd_nightly_usage[] =
    "usage: autoanalyzer nightly [analysis options] CONFIG\n"
    "\n"
    "Builds and runs the program described by CONFIG, analyses the run, stores it\n"
    "in the Program Space, compares it with the last stored run of the same `name`,\n"
    "writes the HTML report and checks the gates.  CONFIG holds `key = value` lines\n"
    "(# comments); relative paths are relative to CONFIG's directory:\n"
    "\n"
    "  name = NAME                    configuration name (required)\n"
    "  run = COMMAND ARGS...          the instrumented program (required)\n"
    "  build = SHELL COMMAND          run first with sh -c, e.g.\n"
    "                                 make CC=\"autoanalyzer cc mpicc\"\n"
    "  np = N                         MPI processes (run under mpirun -np N)\n"
    "  workdir = DIR                  where build and run execute (default: CONFIG's dir)\n"
    "  db = DB                        Program Space (default $AUTOANALYZER_DB or\n"
    "                                 autoanalyzer-space.db in workdir)\n"
    "  out = DIR                      where experiment directories go (default nightly-runs)\n"
    "  report = FILE.html             HTML report (default nightly-NAME.html)\n"
    "  env = KEY=VALUE                environment for build and run (repeatable)\n"
    "  attr = KEY=VALUE               attribute stored with the run (repeatable)\n"
    "  fail-on-new-cccr = yes|no      gate: a core bottleneck that the last run did not\n"
    "                                 have (default no)\n"
    "  max-region-slowdown = 10%      gate: a region's mean wall time per process grew\n"
    "                                 by more than this (default: off)\n"
    "  min-region-share = 2%          regions below this share of the baseline's\n"
    "                                 program time are ignored by the slowdown gate\n"
    "  analysis = OPTIONS             analysis options for this configuration, as on the\n"
    "                                 command line, e.g. --exclude-ranks 0 --set\n"
    "                                 noise_factor=6 (options given on the command line\n"
    "                                 are applied after them)\n"
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "  The run and the stored run it is compared with are analysed with the same\n"
    "  options.\n"
    "\n"
    "Exit status: 0 no gate tripped (or no earlier run to compare with), 1 a gate\n"
    "tripped (each is listed), 2 usage, 3 bad CONFIG (file:line: what), 4 the build\n"
    "or the program failed, or the environment.\n";

static char *resolve(const char *base, const char *p)
{
    aa_buf b;
    if (!p)
        return NULL;
    if (p[0] == '/' || strstr(p, "://") || !strncmp(p, "sqlite:/", 8))
        return aa_strdup(p);
    aa_buf_init(&b);
    if (!strncmp(p, "sqlite:", 7))
        aa_buf_printf(&b, "sqlite:%s/%s", base, p + 7);
    else
        aa_buf_printf(&b, "%s/%s", base, p);
    return aa_buf_detach(&b);
}

/* The configuration's `analysis = OPTIONS` line, parsed by the parser of
 * the command line; errors name the file and line (exit 3). */
static int analysis_from_config(const nightly_cfg *c, const char *path, aa_analyze_options *ao,
                                aa_err *err)
{
    char **w = NULL;
    int n = 0, i, rc = AA_OK;
    if (!c->analysis)
        return AA_OK;
    if ((rc = nightly_split_words(c->analysis, &w, &n)) != WORDS_OK)
        return nightly_words_error(err, rc, path, c->analysis_line, "analysis", c->analysis);
    for (i = 0; rc == AA_OK && i < n; i++) {
        aa_err e2;
        int t;
        aa_err_clear(&e2);
        t = cli_analysis_parse(n, w, &i, ao, &e2);
        if (t == CLI_AOPT_ERROR)
            rc = aa_err_set(err, e2.code == AA_EENV ? AA_EENV : AA_EINPUT, "%s:%d: analysis: %s",
                            path, c->analysis_line, e2.msg);
        else if (t == CLI_AOPT_NONE)
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: analysis: '%s' is not an analysis option",
                            path, c->analysis_line, w[i]);
    }
    for (i = 0; i < n; i++)
        free(w[i]);
    free(w);
    return rc;
}

int cmd_nightly(int argc, char **argv)
{
    nightly_cfg c;
    aa_err err;
    char cwd[PATH_MAX], *cfgdir = NULL, *slash, *workdir = NULL, *db = NULL, *out = NULL,
                       *report = NULL, **words = NULL, stamp[32];
    int rc, nwords = 0, i, tripped = 0;
    size_t k;
    loop_opts o;
    loop_result r;
    aa_buf b;
    time_t now = time(NULL);
    struct tm tm;
    const char *config = NULL;
    aa_analyze_options ao;

    /* the command line: analysis options (checked here, applied after the
     * configuration's) and CONFIG */
    aa_analyze_options_init(&ao);
    for (i = 1; i < argc; i++) {
        int st = EXIT_OK, t = cli_analysis_opt("nightly", argc, argv, &i, &ao, &st);
        if (t == CLI_AOPT_ERROR) {
            cli_analysis_free(&ao);
            return st;
        }
        if (t == CLI_AOPT_OK)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_analysis_free(&ao);
            return cli_usage_error("nightly", "unknown option '%s'", argv[i]);
        }
        if (config) {
            cli_analysis_free(&ao);
            return cli_usage_error("nightly", "too many arguments");
        }
        config = argv[i];
    }
    cli_analysis_free(&ao);
    aa_analyze_options_init(&ao);
    if (!config)
        return cli_usage_error("nightly", "no configuration file given");
    aa_err_clear(&err);
    if ((rc = nightly_cfg_read(config, &c, &err))) {
        nightly_cfg_free(&c);
        return cli_fail(&err);
    }
    if ((rc = nightly_split_words(c.run, &words, &nwords)) != WORDS_OK) {
        nightly_words_error(&err, rc, config, c.run_line, "run", c.run);
        nightly_cfg_free(&c);
        return cli_fail(&err);
    }
    if ((rc = analysis_from_config(&c, config, &ao, &err)))
        goto fail;
    for (i = 1; i < argc; i++)
        if (cli_analysis_parse(argc, argv, &i, &ao, &err) == CLI_AOPT_ERROR) {
            rc = err.code;
            goto fail;
        }
    if (!getcwd(cwd, sizeof cwd)) {
        nightly_cfg_free(&c);
        return EXIT_ENV;
    }
    cfgdir = config[0] == '/' ? aa_strdup(config) : resolve(cwd, config);
    slash = strrchr(cfgdir, '/');
    *slash = '\0';
    workdir = resolve(cfgdir, c.workdir ? c.workdir : ".");
    db = c.db ? resolve(cfgdir, c.db) : NULL;
    out = resolve(cfgdir, c.out ? c.out : "nightly-runs");
    if (c.report) {
        report = resolve(cfgdir, c.report);
    } else {
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/nightly-%s.html", cfgdir, c.name);
        report = aa_buf_detach(&b);
    }
    if (chdir(workdir) != 0) {
        rc = aa_err_set(&err, AA_EENV, "%s: workdir %s: %s", config, workdir, strerror(errno));
        goto fail;
    }
    for (k = 0; k < c.nenv; k++) {
        char *eq = strchr(c.env[k], '=');
        *eq = '\0';
        setenv(c.env[k], eq + 1, 1);
        *eq = '=';
    }
    if (c.build && *c.build) {
        int st;
        printf("== nightly %s: build: %s\n", c.name, c.build);
        fflush(stdout);
        st = system(c.build);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            rc = aa_err_set(&err, AA_EENV, "%s: the build failed (%s)", config, c.build);
            goto fail;
        }
    }
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    memset(&o, 0, sizeof o);
    o.np = c.np;
    o.name = c.name;
    o.nattrs = c.nattr;
    o.attrs = c.attr;
    o.db = db;
    o.report = report;
    o.launch = words;
    o.nlaunch = nwords;
    o.compare_last = 1;
    o.analysis = &ao;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/%s-%s-%ld", out, c.name, stamp, (long)getpid());
    o.out_dir = b.data;
    printf("== nightly %s: run: %s\n", c.name, c.run);
    fflush(stdout);
    rc = loop_run(&o, &r, &err);
    aa_buf_free(&b);
    if (rc) {
        loop_result_free(&r);
        goto fail;
    }
    {
        aa_buf t;
        aa_buf_init(&t);
        aa_analyze_format_text(r.an, &t);
        if (t.len)
            fwrite(t.data, 1, t.len, stdout);
        aa_buf_free(&t);
    }
    printf("\nexperiment: %s\n", r.dir);
    if (r.eid >= 0)
        printf("stored as execution %lld\n", r.eid);
    printf("report: %s\n", r.report_path);
    if (r.prog_status) {
        fprintf(stderr, "autoanalyzer nightly: the program failed with exit status %d\n",
                r.prog_status);
        loop_result_free(&r);
        rc = EXIT_ENV;
        goto out;
    }
    if (!r.cmp) {
        printf("gates: no earlier run of '%s' to compare with%s; nothing to check\n", c.name,
               loop_have_space() ? "" : " (the Program Space is not built yet)");
    } else {
        printf("compared with %s\n", r.cmp->baseline_label);
        if (c.fail_new) {
            for (k = 0; k < r.cmp->nnew; k++) {
                printf("gate tripped: new core bottleneck (%s): %s\n",
                       r.cmp->new_cccrs[k].kind == AA_FINDING_DISSIMILARITY ? "dissimilarity"
                                                                            : "disparity",
                       r.cmp->new_cccrs[k].region);
                tripped++;
            }
        }
        if (c.max_slowdown >= 0) {
            size_t n = aa_report_slowdowns(r.cmp, c.max_slowdown, c.min_share, NULL, 0), j;
            size_t *idx = calloc(n + 1, sizeof *idx);
            if (idx) {
                aa_report_slowdowns(r.cmp, c.max_slowdown, c.min_share, idx, n);
                for (j = 0; j < n; j++) {
                    const aa_report_diff *d = &r.cmp->diffs[idx[j]];
                    printf("gate tripped: region slower by %.1f%% (limit %.1f%%): %s "
                           "(%.6g s -> %.6g s per process)\n",
                           isfinite(d->relative) ? d->relative * 100 : 1e9, c.max_slowdown * 100,
                           d->region, d->before, d->after);
                    tripped++;
                }
                free(idx);
            }
        }
        if (!tripped)
            printf("gates: all passed\n");
    }
    loop_result_free(&r);
    rc = tripped ? EXIT_FINDINGS : EXIT_OK;
    goto out;
fail:
    rc = cli_fail(&err);
out:
    for (i = 0; i < nwords; i++)
        free(words[i]);
    free(words);
    free(cfgdir);
    free(workdir);
    free(db);
    free(out);
    free(report);
    nightly_cfg_free(&c);
    cli_analysis_free(&ao);
    return rc;
}
