/*
 * cli/cmd_nightly.c -- `autoanalyzer nightly CONFIG`: the unattended
 * bottleneck report for a team's code (SPEC §1, §6 history-guided
 * analysis).  Reads a key = value configuration (docs/nightly.md), builds
 * the program (normally with CC="autoanalyzer cc mpicc"), runs it through
 * the engine (analyse, store in the Program Space, compare with the last
 * stored run of the same configuration name through the Space, write the
 * HTML report), prints the gates the engine evaluated, writes them as JSON
 * and JUnit XML for CI when asked, and exits 1 when a gate trips: a new
 * core bottleneck (CCCR) or a region slower than the allowed percentage.
 */
#include "cli/cli.h"
#include "engine/aa_engine.h"
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
    "usage: autoanalyzer nightly [--json FILE] [--junit FILE] [analysis options] CONFIG\n"
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
    "  max-region-slowdown = 10%      gate: a region's mean time per process grew\n"
    "                                 by more than this (default: off; the % is required)\n"
    "  min-region-share = 2%          regions below this share of the program time in\n"
    "                                 both runs are ignored by the slowdown gate\n"
    "  slowdown-metric = wall|cpu     what the slowdown gate measures: inclusive wall\n"
    "                                 time (default) or CPU time outside MPI\n"
    "  analysis = OPTIONS             analysis options for this configuration, as on the\n"
    "                                 command line, e.g. --exclude-ranks 0 --set\n"
    "                                 noise_factor=6 (options given on the command line\n"
    "                                 are applied after them)\n"
    "\n"
    "  --json FILE    write the result (run, baseline, report, every gate) as JSON\n"
    "  --junit FILE   write JUnit XML: one testcase per gate, for CI systems\n"
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

/* What a night came to, for the JSON and JUnit outputs. */
typedef struct night {
    const char *name, *status; /* "passed", "tripped", "no-baseline", "error" */
    const char *error;         /* the message when status is "error" */
    const aa_engine_result *r; /* NULL before the run */
    const aa_engine_gate *gates;
    size_t ngates;
    const aa_engine_noise *noise; /* the history used by the gates, or NULL */
} night;

static void json_night(const night *n, aa_buf *b)
{
    aa_json j;
    size_t k;
    aa_json_init(&j, b, 1);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "name");
    aa_json_str(&j, n->name);
    aa_json_key(&j, "status");
    aa_json_str(&j, n->status);
    if (n->error) {
        aa_json_key(&j, "error");
        aa_json_str(&j, n->error);
    }
    if (n->r) {
        aa_json_key(&j, "experiment");
        aa_json_str(&j, n->r->dir);
        aa_json_key(&j, "eid");
        if (n->r->eid >= 0)
            aa_json_int(&j, n->r->eid);
        else
            aa_json_null(&j);
        aa_json_key(&j, "program_status");
        aa_json_int(&j, n->r->prog_status);
        aa_json_key(&j, "report");
        aa_json_str(&j, n->r->report_path);
        aa_json_key(&j, "baseline");
        if (n->r->cmp) {
            aa_json_obj_begin(&j);
            aa_json_key(&j, "eid");
            if (n->r->base_eid >= 0)
                aa_json_int(&j, n->r->base_eid);
            else
                aa_json_null(&j);
            aa_json_key(&j, "label");
            aa_json_str(&j, n->r->cmp->baseline_label);
            aa_json_obj_end(&j);
        } else {
            aa_json_null(&j);
        }
    }
    if (n->noise && n->noise->n) {
        aa_json_key(&j, "history");
        aa_json_obj_begin(&j);
        aa_json_key(&j, "noise_from");
        aa_json_arr_begin(&j);
        for (k = 0; k < n->noise->nruns; k++)
            aa_json_int(&j, n->noise->eids[k]);
        aa_json_arr_end(&j);
        aa_json_key(&j, "noise_regions");
        aa_json_int(&j, (long long)n->noise->n);
        aa_json_obj_end(&j);
    }
    aa_json_key(&j, "gates");
    aa_json_arr_begin(&j);
    for (k = 0; k < n->ngates; k++) {
        aa_json_obj_begin(&j);
        aa_json_key(&j, "gate");
        aa_json_str(&j, n->gates[k].name);
        aa_json_key(&j, "tripped");
        aa_json_bool(&j, n->gates[k].tripped);
        aa_json_key(&j, "region");
        if (n->gates[k].region)
            aa_json_str(&j, n->gates[k].region);
        else
            aa_json_null(&j);
        aa_json_key(&j, "message");
        aa_json_str(&j, n->gates[k].message);
        aa_json_obj_end(&j);
    }
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);
    aa_buf_putc(b, '\n');
}

/* JUnit XML (the schema Jenkins, GitLab and GitHub read): one testsuite,
 * one testcase per gate record; a night without a baseline is one skipped
 * testcase, a failed build or run one testcase with an <error>. */
static void junit_night(const night *n, aa_buf *b)
{
    size_t k, nfail = 0, ncases = n->ngates ? n->ngates : 1;
    for (k = 0; k < n->ngates; k++)
        nfail += n->gates[k].tripped != 0;
    aa_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    aa_buf_puts(b, "  <testsuite name=\"autoanalyzer nightly ");
    aa_report_escape(b, n->name);
    aa_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\" skipped=\"%d\">\n", ncases,
                  nfail, n->error ? 1 : 0, !n->error && !n->ngates ? 1 : 0);
    if (n->r && n->r->report_path) {
        aa_buf_puts(b, "    <properties>\n      <property name=\"report\" value=\"");
        aa_report_escape(b, n->r->report_path);
        aa_buf_puts(b, "\"/>\n      <property name=\"experiment\" value=\"");
        aa_report_escape(b, n->r->dir);
        aa_buf_puts(b, "\"/>\n    </properties>\n");
    }
    for (k = 0; k < ncases; k++) {
        const aa_engine_gate *g = k < n->ngates ? &n->gates[k] : NULL;
        aa_buf_puts(b, "    <testcase classname=\"autoanalyzer.nightly.");
        aa_report_escape(b, n->name);
        aa_buf_puts(b, "\" name=\"");
        if (g) {
            aa_report_escape(b, g->name);
            if (g->region) {
                aa_buf_puts(b, ": ");
                aa_report_escape(b, g->region);
            }
        } else {
            aa_buf_puts(b, n->error ? "build and run" : "gates");
        }
        aa_buf_puts(b, "\">\n");
        if (g && g->tripped) {
            aa_buf_puts(b, "      <failure message=\"");
            aa_report_escape(b, g->message);
            aa_buf_puts(b, "\" type=\"");
            aa_report_escape(b, g->name);
            aa_buf_puts(b, "\"/>\n");
        } else if (!g && n->error) {
            aa_buf_puts(b, "      <error message=\"");
            aa_report_escape(b, n->error);
            aa_buf_puts(b, "\"/>\n");
        } else if (!g) {
            aa_buf_puts(b, "      <skipped message=\"no earlier run of this configuration to "
                           "compare with\"/>\n");
        }
        if (n->r && n->r->report_path) {
            aa_buf_puts(b, "      <system-out>report: ");
            aa_report_escape(b, n->r->report_path);
            aa_buf_puts(b, "</system-out>\n");
        }
        aa_buf_puts(b, "    </testcase>\n");
    }
    aa_buf_puts(b, "  </testsuite>\n</testsuites>\n");
}

/* Writes the requested machine-readable results; 0 or an error code. */
static int write_results(const char *json, const char *junit, const night *n, aa_err *err)
{
    aa_buf b;
    int rc = AA_OK;
    if (json) {
        aa_buf_init(&b);
        json_night(n, &b);
        rc = cli_write_output(json, &b, err);
        aa_buf_free(&b);
    }
    if (rc == AA_OK && junit) {
        aa_buf_init(&b);
        junit_night(n, &b);
        rc = cli_write_output(junit, &b, err);
        aa_buf_free(&b);
    }
    return rc;
}

int cmd_nightly(int argc, char **argv)
{
    nightly_cfg c;
    aa_err err;
    char cwd[PATH_MAX], *cfgdir = NULL, *slash, *workdir = NULL, *db = NULL, *out = NULL,
                       *report = NULL, **words = NULL, stamp[32], *json = NULL, *junit = NULL;
    int rc, nwords = 0, i, tripped = 0, have_r = 0;
    size_t k;
    aa_engine_run_options o;
    aa_engine_result r;
    aa_engine_gate *gates = NULL;
    size_t ngates = 0;
    aa_engine_noise noise;
    aa_buf b;
    time_t now = time(NULL);
    struct tm tm;
    const char *config = NULL;
    aa_analyze_options ao;
    night nt;

    /* the command line: --json/--junit, analysis options (checked here,
     * applied after the configuration's) and CONFIG */
    memset(&c, 0, sizeof c);
    memset(&noise, 0, sizeof noise);
    aa_analyze_options_init(&ao);
    for (i = 1; i < argc; i++) {
        int st = EXIT_OK, t;
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--junit")) {
            char **slot = argv[i][2] == 'j' && argv[i][3] == 's' ? &json : &junit;
            if (i + 1 >= argc) {
                cli_analysis_free(&ao);
                return cli_usage_error("nightly", "option %s needs a value", argv[i]);
            }
            *slot = argv[++i];
            continue;
        }
        t = cli_analysis_opt("nightly", argc, argv, &i, &ao, &st);
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
    /* result files are relative to where the command was started */
    if (!getcwd(cwd, sizeof cwd))
        return EXIT_ENV;
    json = json && strcmp(json, "-") ? resolve(cwd, json) : (json ? aa_strdup(json) : NULL);
    junit = junit && strcmp(junit, "-") ? resolve(cwd, junit) : (junit ? aa_strdup(junit) : NULL);
    memset(&nt, 0, sizeof nt);
    aa_err_clear(&err);
    if ((rc = nightly_cfg_read(config, &c, &err))) {
        nightly_cfg_free(&c);
        free(json);
        free(junit);
        return cli_fail(&err);
    }
    nt.name = c.name;
    if ((rc = nightly_split_words(c.run, &words, &nwords)) != WORDS_OK) {
        nightly_words_error(&err, rc, config, c.run_line, "run", c.run);
        nightly_cfg_free(&c);
        free(json);
        free(junit);
        return cli_fail(&err);
    }
    if ((rc = analysis_from_config(&c, config, &ao, &err)))
        goto fail;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--junit")) {
            i++;
            continue;
        }
        if (cli_analysis_parse(argc, argv, &i, &ao, &err) == CLI_AOPT_ERROR) {
            rc = err.code;
            goto fail;
        }
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
    rc = aa_engine_run(&o, &r, &err);
    aa_buf_free(&b);
    cli_print_notes("nightly", r.notes);
    have_r = 1;
    if (rc)
        goto fail;
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
    nt.r = &r;
    if (r.prog_status) {
        fprintf(stderr, "autoanalyzer nightly: the program failed with exit status %d\n",
                r.prog_status);
        aa_err_set(&err, AA_EENV, "the program failed with exit status %d", r.prog_status);
        nt.status = "error";
        nt.error = err.msg;
        rc = write_results(json, junit, &nt, &err) ? cli_fail(&err) : EXIT_ENV;
        goto out;
    }
    if (!r.cmp) {
        printf("gates: no earlier run of '%s' to compare with; nothing to check\n", c.name);
        nt.status = "no-baseline";
    } else {
        aa_engine_gate_options go;
        int wall = !c.slowdown_metric || strcmp(c.slowdown_metric, "wall") == 0;
        printf("compared with %s\n", r.cmp->baseline_label);
        /* the comparison went through the history (aa_engine_compare_history):
         * differences within the stored runs' noise are marked in the report */
        if (r.cmp->history)
            printf("history: %s\n", r.cmp->history);
        memset(&go, 0, sizeof go);
        go.fail_new = c.fail_new;
        go.max_slowdown = c.max_slowdown;
        go.min_share = c.min_share;
        go.metric = c.slowdown_metric;
        /* history-guided thresholds: each region's run-to-run noise in the
         * stored runs of this configuration (the judged run left out), the
         * comparison's for wall time, learned for the CPU metric */
        if (c.max_slowdown >= 0 && wall && r.noise.n) {
            go.noise = &r.noise;
        } else if (c.max_slowdown >= 0 && !wall &&
                   aa_engine_learn_noise(db ? db : getenv("AUTOANALYZER_DB"), c.name, NULL,
                                         c.slowdown_metric, r.eid, &noise, &err) == AA_OK &&
                   noise.n) {
            size_t q;
            printf("history: run-to-run noise of %zu regions (%s) learned from %zu stored runs (",
                   noise.n, c.slowdown_metric, noise.nruns);
            for (q = 0; q < noise.nruns; q++)
                printf("%s%lld", q ? ", " : "", noise.eids[q]);
            printf(")\n");
            go.noise = &noise;
        }
        if (go.noise) {
            printf("history: a region slower by less than %.0fx its noise is not a slowdown\n",
                   AA_ENGINE_NOISE_FACTOR);
            nt.noise = go.noise;
        }
        aa_err_clear(&err);
        if ((rc = aa_engine_gates(&r, &go, &gates, &ngates, &err)))
            goto fail;
        for (k = 0; k < ngates; k++)
            if (gates[k].tripped) {
                printf("gate tripped: %s\n", gates[k].message);
                tripped++;
            }
        if (!tripped)
            printf("gates: all passed\n");
        nt.status = tripped ? "tripped" : "passed";
        nt.gates = gates;
        nt.ngates = ngates;
    }
    if (write_results(json, junit, &nt, &err)) {
        rc = cli_fail(&err);
        goto out;
    }
    rc = tripped ? EXIT_FINDINGS : EXIT_OK;
    goto out;
fail:
    {
        /* the CI still gets its result files, saying what went wrong */
        aa_err e2;
        aa_err_clear(&e2);
        nt.status = "error";
        nt.error = err.msg;
        nt.r = have_r && r.dir ? &r : NULL;
        write_results(json, junit, &nt, &e2);
    }
    rc = cli_fail(&err);
out:
    if (have_r)
        aa_engine_result_free(&r);
    aa_engine_gates_free(gates, ngates);
    aa_engine_noise_free(&noise);
    for (i = 0; i < nwords; i++)
        free(words[i]);
    free(words);
    free(cfgdir);
    free(workdir);
    free(db);
    free(out);
    free(report);
    free(json);
    free(junit);
    nightly_cfg_free(&c);
    cli_analysis_free(&ao);
    return rc;
}
