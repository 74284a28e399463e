/*
 * engine/run.c -- the whole `autoanalyzer run` (SPEC §1, §4.3, §5.5, §6):
 * launching an instrumented program (under the MPI launcher when asked)
 * with AUTOANALYZER_OUTPUT set to a new experiment directory, collecting
 * its profiles, recording the run's environment as attributes, analysing,
 * comparing with the given baseline or the last comparable stored run,
 * storing the run in the Program Space and writing analysis.json,
 * analysis.xml and report.html.
 */
#include "engine/engine_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int is_launcher(const char *a)
{
    const char *b = base_name(a);
    return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "srun") ||
           !strcmp(b, "orterun") || !strcmp(b, "prun");
}


static int mkdir_p(const char *path, aa_err *err)
{
    char tmp[PATH_MAX];
    size_t i, n = strlen(path);
    if (n >= sizeof tmp)
        return aa_err_set(err, AA_EENV, "%s: path too long", path);
    memcpy(tmp, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return aa_err_set(err, AA_EENV, "%s: cannot create directory: %s", tmp,
                                  strerror(errno));
            tmp[i] = c;
        }
    }
    return AA_OK;
}



/* Shell-quoted command line, for the record. */
static void quote_args(aa_buf *b, char **argv, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const char *s = argv[i];
        int plain = *s != '\0';
        const char *q;
        for (q = s; *q; q++)
            if (!(isalnum((unsigned char)*q) || strchr("-_./=:,+@%", *q)))
                plain = 0;
        if (i)
            aa_buf_putc(b, ' ');
        if (plain) {
            aa_buf_puts(b, s);
            continue;
        }
        aa_buf_putc(b, '\'');
        for (q = s; *q; q++) {
            if (*q == '\'')
                aa_buf_puts(b, "'\\''");
            else
                aa_buf_putc(b, *q);
        }
        aa_buf_putc(b, '\'');
    }
}

/* The program of a launch line: after a launcher, the first argument that is
 * not an option or an option's value. */
static const char *program_of(char **argv, int n)
{
    static const char *const with_value[] = {
        "-np", "-n", "-c", "--np", "-H", "--host", "-hostfile", "--hostfile", "-machinefile",
        "--machinefile", "--map-by", "--bind-to", "--rank-by", "-x", "-wdir", "--wdir", "-N",
        "--npernode", "-npernode", "--prefix", "-p", "--partition", "--ntasks", "-t", "--time",
        NULL};
    int i = 0, k;
    if (n > 0 && is_launcher(argv[0])) {
        for (i = 1; i < n; i++) {
            if (argv[i][0] != '-')
                break;
            if (!strcmp(argv[i], "--mca") || !strcmp(argv[i], "-mca")) {
                i += 2;
                continue;
            }
            if (strchr(argv[i], '='))
                continue;
            for (k = 0; with_value[k]; k++)
                if (!strcmp(argv[i], with_value[k]))
                    i++;
        }
    }
    return i < n ? base_name(argv[i]) : "program";
}

int aa_engine_write_outputs(aa_engine_result *r, const char *report, aa_err *err)
{
    aa_buf b, p;
    int rc;
    aa_buf_init(&b);
    aa_buf_init(&p);
    if ((rc = aa_analyze_format_json(r->an, &b)) != AA_OK) {
        rc = aa_err_set(err, AA_EENV, "cannot format the analysis as JSON");
        goto out;
    }
    aa_buf_printf(&p, "%s/analysis.json", r->dir);
    if ((rc = aa_write_file_atomic(p.data, b.data ? b.data : "", b.len, err)))
        goto out;
    aa_buf_reset(&b);
    aa_buf_reset(&p);
    if ((rc = aa_analyze_format_xml(r->an, &b)) != AA_OK) {
        rc = aa_err_set(err, AA_EENV, "cannot format the analysis as XML");
        goto out;
    }
    aa_buf_printf(&p, "%s/analysis.xml", r->dir);
    if ((rc = aa_write_file_atomic(p.data, b.data ? b.data : "", b.len, err)))
        goto out;
    aa_buf_reset(&b);
    if ((rc = aa_report_html(r->an, r->exp, r->cmp, &b, err)))
        goto out;
    free(r->report_path);
    if (report) {
        r->report_path = aa_strdup(report);
    } else {
        aa_buf_reset(&p);
        aa_buf_printf(&p, "%s/report.html", r->dir);
        r->report_path = aa_buf_detach(&p);
    }
    rc = aa_write_file_atomic(r->report_path, b.data, b.len, err);
out:
    aa_buf_free(&b);
    aa_buf_free(&p);
    return rc;
}


/* Runs argv; returns the exit status (128+signal when killed), -1 when it
 * could not be started. */
static int spawn(char **argv, aa_err *err)
{
    pid_t pid;
    int st;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return aa_err_set(err, AA_EENV, "fork: %s", strerror(errno)), -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "autoanalyzer run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            return aa_err_set(err, AA_EENV, "waitpid: %s", strerror(errno)), -1;
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

int aa_engine_run(const aa_engine_run_options *o, aa_engine_result *r, aa_err *err)
{
    char **argv = NULL;
    int argc = 0, i, rc, direct, binary = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *prog = program_of(o->launch, o->nlaunch);
    aa_buf b;
    char *store_db = NULL, *note = NULL, *missing = NULL;
    aa_analyze_options aopt;
    aa_engine_history hist;

    aa_engine_result_init(r);
    memset(&hist, 0, sizeof hist);
    if (o->analysis)
        aopt = *o->analysis;
    else
        aa_analyze_options_init(&aopt);
    aopt.optics_keep = SIZE_MAX; /* the report draws the reachability plot at any scale */
    direct = o->np <= 0 || is_launcher(o->launch[0]);
    argv = calloc((size_t)o->nlaunch + 8, sizeof *argv);
    if (!argv)
        return aa_err_set(err, AA_EENV, "out of memory");
    if (!direct) {
        char npbuf[32];
        snprintf(npbuf, sizeof npbuf, "%d", o->np);
        argv[argc++] = aa_strdup("mpirun");
        argv[argc++] = aa_strdup("-np");
        argv[argc++] = aa_strdup(npbuf);
        if (ncpu > 0 && o->np > ncpu)
            argv[argc++] = aa_strdup("--oversubscribe");
    }
    for (i = 0; i < o->nlaunch; i++)
        argv[argc++] = aa_strdup(o->launch[i]);
    argv[argc] = NULL;

    /* the experiment directory */
    if (o->out_dir) {
        if ((rc = mkdir_p(o->out_dir, err)))
            goto out;
        r->dir = en_absolute(o->out_dir);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32];
        int k;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        aa_buf_init(&b);
        for (k = 1;; k++) {
            aa_buf_reset(&b);
            aa_buf_printf(&b, "autoanalyzer-%s-%s", prog, stamp);
            if (k > 1)
                aa_buf_printf(&b, "-%d", k);
            if (mkdir(b.data, 0777) == 0)
                break;
            if (errno != EEXIST || k > 1000) {
                rc = aa_err_set(err, AA_EENV, "%s: cannot create directory: %s", b.data,
                                strerror(errno));
                aa_buf_free(&b);
                goto out;
            }
        }
        r->dir = en_absolute(b.data);
        aa_buf_free(&b);
    }
    {
        /* stale results must not be mistaken for this run's */
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/experiment.xml", r->dir);
        unlink(b.data);
        memcpy(b.data + b.len - 4, ".aab", 4);
        unlink(b.data);
        aa_buf_free(&b);
    }
    setenv("AUTOANALYZER_OUTPUT", r->dir, 1);
    if (!getenv("AUTOANALYZER_COLLECT"))
        setenv("AUTOANALYZER_COLLECT", "mpi", 1);

    r->prog_status = spawn(argv, err);
    if (r->prog_status < 0) {
        rc = err->code;
        goto out;
    }

    /* collect and record the environment of the run */
    /* a run that wrote nothing is the environment's problem (exit 4), not a
     * malformed profile */
    if (!(binary = en_has_profiles(r->dir)))
        rc = aa_err_set(err, AA_EENV, "%s: no experiment.xml and no rank-N.xml files in it",
                        r->dir);
    else
        rc = aa_engine_load(r->dir, &r->exp, NULL, &note, &missing, err);
    if (rc) {
        if (r->prog_status != 0)
            aa_err_set(err, AA_EENV, "the program failed (exit status %d) and left no profile in %s",
                       r->prog_status, r->dir);
        else if (rc == AA_EENV)
            aa_err_prefix(err, "no profile was written (is the program built with "
                               "`autoanalyzer cc`?)");
        rc = err->code;
        goto out;
    }
    if (note)
        en_note(r, "warning: %s", note);
    r->have_profile = 1;
    if (o->np > 0 && r->exp->nprocs < o->np)
        /* e.g. linked without the MPI runtime: every process measured itself
         * as a run of one, and the last profile written replaced the others */
        en_note(r,
                "warning: --np %d, but the experiment holds %d process%s: "
                "the program was probably not linked with the MPI runtime "
                "(-lautoanalyzer-mpi; build it with `autoanalyzer cc mpicc`), so each process "
                "measured itself as a separate run and only one profile was kept",
                o->np, r->exp->nprocs, r->exp->nprocs == 1 ? "" : "es");
    aa_buf_init(&b);
    quote_args(&b, argv, argc);
    aa_experiment_set_attr(r->exp, "command", b.data);
    aa_buf_free(&b);
    aa_experiment_set_attr(r->exp, "launcher", direct && !is_launcher(argv[0]) ? "none"
                                                                               : base_name(argv[0]));
    {
        char np[32];
        snprintf(np, sizeof np, "%d", r->exp->nprocs);
        aa_experiment_set_attr(r->exp, "np", np);
    }
    aa_experiment_set_attr(r->exp, "experiment_dir", r->dir);
    if (!aa_experiment_attr(r->exp, "program") && r->exp->program)
        aa_experiment_set_attr(r->exp, "program", r->exp->program);
    if (o->name)
        aa_experiment_set_attr(r->exp, "name", o->name);
    for (i = 0; (size_t)i < o->nattrs; i++) {
        char *kv = aa_strdup(o->attrs[i]), *eq = strchr(kv, '=');
        *eq = '\0';
        aa_experiment_set_attr(r->exp, kv, eq + 1);
        free(kv);
    }
    if (missing)
        aa_experiment_set_attr(r->exp, "missing_ranks", missing);
    if (r->prog_status) {
        char st[32];
        snprintf(st, sizeof st, "%d", r->prog_status);
        aa_experiment_set_attr(r->exp, "exit_status", st);
    }
    /* the measured experiment with the run's attributes, in the form the
     * runtime chose (binary for big runs, docs/runtime.md) */
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/experiment.%s", r->dir, binary & 2 ? "aab" : "xml");
    rc = binary & 2 ? aa_experiment_write_binary(r->exp, b.data, err)
                    : aa_experiment_write(r->exp, b.data, err);
    aa_buf_free(&b);
    if (rc)
        goto out;

    store_db = aa_strdup(o->db ? o->db : getenv("AUTOANALYZER_DB"));
    /* history-guided analysis: the Program Space's prunes, priorities and
     * noise for this configuration, when a Program Space is used */
    if (!o->no_store || o->compare_last) {
        aa_err e2;
        aa_err_clear(&e2);
        if (aa_engine_history_load(store_db, o->name, r->exp->program, r->exp, &hist, &e2))
            en_note(r, "no history used for the analysis: %s", e2.msg);
        else if (hist.found)
            aopt.history = &hist.h;
    }
    if ((rc = aa_engine_analyze(r->exp, &aopt, &r->an, err)))
        goto out;
    /* the baseline's OPTICS ordering is never drawn */
    aopt.optics_keep = o->analysis ? o->analysis->optics_keep : AA_OPTICS_KEEP_DEFAULT;

    /* compare with the baseline or the last comparable stored run */
    if (o->baseline) {
        if ((rc = aa_engine_compare_path(r, o->baseline, &aopt, err)))
            goto out;
    } else if (o->compare_last || !o->no_store) {
        long long eid = -1;
        aa_err e2;
        aa_err_clear(&e2);
        if (aa_engine_find_last(store_db, o->name, o->name ? NULL : r->exp->program, r->exp,
                                r->dir, &eid, &e2) == AA_OK &&
            eid >= 0 && (rc = aa_engine_compare_stored(r, store_db, eid, &aopt, err)))
            goto out;
    }
    if (!o->no_store && (rc = aa_engine_store(r, store_db, err)))
        goto out;
    if (r->cmp) { /* history-guided: changes within the stored runs' noise are none */
        aa_err e2;
        aa_err_clear(&e2);
        if (aa_engine_compare_history(r, store_db, o->name, o->name ? NULL : r->exp->program,
                                      r->eid, 0, &e2) != AA_OK)
            en_note(r, "no history used: %s", e2.msg);
    }
    rc = aa_engine_write_outputs(r, o->report, err);
out:
    aa_engine_history_free(&hist);
    free(note);
    free(missing);
    free(store_db);
    for (i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}

