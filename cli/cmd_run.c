/*
 * cli/cmd_run.c -- `autoanalyzer run`: runs an instrumented program (under
 * the MPI launcher when asked), then collects, analyses, stores the run in
 * the Program Space, writes analysis.json / analysis.xml / report.html into
 * the experiment directory and prints the text report (SPEC §1, §4.3, §5.5,
 * §6).  It also implements the loop helpers of cli/loop.h that `report` and
 * `nightly` share: loading an experiment, finding the last comparable run in
 * the Program Space, comparing, storing and writing the outputs.
 */
#include "cli/cli.h"
#include "cli/loop.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include("space/aa_space.h") && __has_include("space/module.mk")
#include "space/aa_space.h"
#define LOOP_HAVE_SPACE 1
#endif
#if __has_include("collect/aa_collect.h") && __has_include("collect/module.mk")
#include "collect/aa_collect.h"
#define LOOP_HAVE_COLLECT 1
#endif
#endif

const char cmd_run_summary[] = "run a program, then analyse, store and report the run";
const char cmd_run_usage[] =
    "usage: autoanalyzer run [--np N] [--name NAME] [--attr k=v]... [--out DIR]\n"
    "                        [--db DB] [--no-store] [--json] [-o REPORT.html]\n"
    "                        [--baseline EXP|DIR] [analysis options] -- LAUNCH...\n"
    "\n"
    "Runs LAUNCH (an instrumented program, e.g. built with `autoanalyzer cc mpicc`)\n"
    "with AUTOANALYZER_OUTPUT set to a new experiment directory, then collects the\n"
    "profiles, analyses the run, stores it in the Program Space and writes\n"
    "analysis.json, analysis.xml and report.html into the directory.  Prints the\n"
    "text report (or the JSON with --json).\n"
    "\n"
    "  --np N        run N processes: LAUNCH is prefixed with `mpirun -np N`\n"
    "                (plus --oversubscribe when N exceeds the cores) unless it\n"
    "                already starts with mpirun, mpiexec or srun.  Without --np a\n"
    "                non-MPI program runs directly.\n"
    "  --name NAME   configuration name, stored as attribute `name`; the report\n"
    "                compares with the last stored run of the same name\n"
    "  --attr k=v    extra attribute of the run (repeatable)\n"
    "  --out DIR     experiment directory (default ./autoanalyzer-<program>-<date>-<time>)\n"
    "  --db DB       Program Space (file, sqlite:PATH or postgresql://...; default\n"
    "                $AUTOANALYZER_DB or autoanalyzer-space.db)\n"
    "  --no-store    do not store the run in the Program Space\n"
    "  -o FILE       HTML report path (default DIR/report.html)\n"
    "  --json        print the analysis as JSON instead of text\n"
    "  --baseline EXP\n"
    "                compare with this experiment (file or directory) instead of\n"
    "                the last stored run of the same name\n"
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "  The run and the run it is compared with are analysed with the same options.\n"
    "\n"
    "AUTOANALYZER_COLLECT (mpi or files) is passed through; default mpi.\n"
    "Exit status: 0 ok; 2 usage; 3 bad profile; 4 the program failed (its status is\n"
    "reported and a profile it left behind is still analysed) or no profile was written.\n";

/* ---- small helpers ------------------------------------------------------ */

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

static char *absolute(const char *p)
{
    char cwd[PATH_MAX];
    aa_buf b;
    if (p[0] == '/')
        return aa_strdup(p);
    if (!getcwd(cwd, sizeof cwd))
        return aa_strdup(p);
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/%s", cwd, strncmp(p, "./", 2) == 0 ? p + 2 : p);
    return aa_buf_detach(&b);
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

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
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

/* ---- tiny JSON reader for `space list` ----------------------------------- */

typedef struct jp {
    const char *s;
} jp;

static void jws(jp *p)
{
    while (*p->s && isspace((unsigned char)*p->s))
        p->s++;
}

/* Parses a string literal; *out (may be NULL) gets a malloc'd copy. */
static int jstr(jp *p, char **out)
{
    aa_buf b;
    jws(p);
    if (*p->s != '"')
        return -1;
    p->s++;
    aa_buf_init(&b);
    while (*p->s && *p->s != '"') {
        char c = *p->s++;
        if (c == '\\') {
            c = *p->s++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                int k;
                for (k = 0; k < 4 && isxdigit((unsigned char)*p->s); k++, p->s++)
                    v = v * 16 + (unsigned)(isdigit((unsigned char)*p->s)
                                                ? *p->s - '0'
                                                : (tolower((unsigned char)*p->s) - 'a' + 10));
                c = v < 128 ? (char)v : '?';
                break;
            }
            case '\0': aa_buf_free(&b); return -1;
            default: break;
            }
        }
        aa_buf_putc(&b, c);
    }
    if (*p->s != '"') {
        aa_buf_free(&b);
        return -1;
    }
    p->s++;
    if (out)
        *out = aa_buf_detach(&b);
    else
        aa_buf_free(&b);
    return 0;
}

static int jskip(jp *p, int depth)
{
    jws(p);
    if (depth > 64)
        return -1;
    if (*p->s == '"')
        return jstr(p, NULL);
    if (*p->s == '{' || *p->s == '[') {
        char close = *p->s == '{' ? '}' : ']';
        int obj = *p->s == '{';
        p->s++;
        jws(p);
        if (*p->s == close) {
            p->s++;
            return 0;
        }
        for (;;) {
            if (obj) {
                if (jstr(p, NULL))
                    return -1;
                jws(p);
                if (*p->s++ != ':')
                    return -1;
            }
            if (jskip(p, depth + 1))
                return -1;
            jws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s == close) {
                p->s++;
                return 0;
            }
            return -1;
        }
    }
    while (*p->s && !strchr(",}] \t\r\n", *p->s))
        p->s++;
    return 0;
}

typedef struct stored_run {
    long long eid;
    char *dir;
} stored_run;

/* Reads {"executions":[{"eid":N,"attrs":{"experiment_dir":"..."}}...]}. */
static int parse_list(const char *text, stored_run **runs, size_t *n)
{
    jp p = {text};
    char *key = NULL;
    *runs = NULL;
    *n = 0;
    jws(&p);
    if (*p.s++ != '{')
        return -1;
    for (;;) {
        jws(&p);
        if (*p.s == '}')
            return 0;
        if (jstr(&p, &key))
            return -1;
        jws(&p);
        if (*p.s++ != ':')
            goto bad;
        jws(&p);
        if (strcmp(key, "executions") == 0 && *p.s == '[') {
            p.s++;
            for (;;) {
                stored_run r = {-1, NULL};
                char *k2 = NULL;
                jws(&p);
                if (*p.s == ']') {
                    p.s++;
                    break;
                }
                if (*p.s++ != '{')
                    goto bad;
                for (;;) {
                    jws(&p);
                    if (*p.s == '}') {
                        p.s++;
                        break;
                    }
                    if (jstr(&p, &k2))
                        goto bad;
                    jws(&p);
                    if (*p.s++ != ':') {
                        free(k2);
                        goto bad;
                    }
                    jws(&p);
                    if (!strcmp(k2, "eid")) {
                        r.eid = strtoll(p.s, NULL, 10);
                        jskip(&p, 0);
                    } else if (!strcmp(k2, "attrs") && *p.s == '{') {
                        p.s++;
                        for (;;) {
                            char *ak = NULL;
                            jws(&p);
                            if (*p.s == '}') {
                                p.s++;
                                break;
                            }
                            if (jstr(&p, &ak)) {
                                free(k2);
                                goto bad;
                            }
                            jws(&p);
                            if (*p.s++ != ':') {
                                free(ak);
                                free(k2);
                                goto bad;
                            }
                            jws(&p);
                            if (!strcmp(ak, "experiment_dir") && *p.s == '"') {
                                free(r.dir);
                                jstr(&p, &r.dir);
                            } else {
                                jskip(&p, 0);
                            }
                            free(ak);
                            jws(&p);
                            if (*p.s == ',')
                                p.s++;
                        }
                    } else if (jskip(&p, 0)) {
                        free(k2);
                        goto bad;
                    }
                    free(k2);
                    k2 = NULL;
                    jws(&p);
                    if (*p.s == ',')
                        p.s++;
                }
                {
                    stored_run *nr = realloc(*runs, (*n + 1) * sizeof *nr);
                    if (!nr) {
                        free(r.dir);
                        goto bad;
                    }
                    *runs = nr;
                    nr[(*n)++] = r;
                }
                jws(&p);
                if (*p.s == ',')
                    p.s++;
            }
        } else if (jskip(&p, 0)) {
            goto bad;
        }
        free(key);
        key = NULL;
        jws(&p);
        if (*p.s == ',')
            p.s++;
    }
bad:
    free(key);
    return -1;
}

/* ---- loop helpers ---------------------------------------------------------- */

int loop_have_space(void)
{
#ifdef LOOP_HAVE_SPACE
    return 1;
#else
    return 0;
#endif
}

void loop_result_free(loop_result *r)
{
    aa_report_comparison_free(r->cmp);
    if (r->base_an)
        aa_analyze_free(r->base_an);
    if (r->base_exp)
        aa_experiment_free(r->base_exp);
    if (r->an)
        aa_analyze_free(r->an);
    if (r->exp)
        aa_experiment_free(r->exp);
    free(r->dir);
    free(r->report_path);
    free(r->base_label);
    memset(r, 0, sizeof *r);
}

static int has_rank_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, "rank-", 5) == 0 && strstr(de->d_name, ".xml"))
            found = 1;
    closedir(d);
    return found;
}

int loop_load(const char *path, aa_experiment **e, char **dir, aa_err *err)
{
    aa_buf b;
    int rc;
    *e = NULL;
    if (dir)
        *dir = NULL;
    if (is_dir(path)) {
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/experiment.xml", path);
        if (!is_file(b.data) && !has_rank_files(path)) {
            rc = aa_err_set(err, AA_EENV, "%s: no experiment.xml and no rank-N.xml files in it",
                            path);
            aa_buf_free(&b);
            return rc;
        }
#ifdef LOOP_HAVE_COLLECT
        {
            /* collect also merges the region maps and checks the ranks */
            aa_collect_report rep;
            memset(&rep, 0, sizeof rep);
            rc = aa_collect_dir(path, e, &rep, err);
            if (rc == AA_OK && rep.nmissing) {
                aa_buf m;
                aa_buf_init(&m);
                aa_collect_format_ranks(&m, rep.missing, rep.nmissing);
                fprintf(stderr, "autoanalyzer: warning: %s: no profile from rank%s %s\n", path,
                        rep.nmissing == 1 ? "" : "s", m.data ? m.data : "");
                aa_buf_free(&m);
            }
            aa_collect_report_free(&rep);
        }
#else
        if (!is_file(b.data)) {
            aa_buf_free(&b);
            return aa_err_set(err, AA_EENV,
                              "%s: holds rank files but `collect` is not built yet", path);
        }
        rc = aa_experiment_read(b.data, e, err);
#endif
        aa_buf_free(&b);
        if (rc == AA_OK && dir)
            *dir = absolute(path);
        return rc;
    }
    if (!is_file(path))
        return aa_err_set(err, AA_EENV, "%s: no such file or directory", path);
    rc = aa_experiment_read(path, e, err);
    if (rc == AA_OK && dir) {
        char *abs = absolute(path), *slash = strrchr(abs, '/');
        if (slash && slash != abs)
            *slash = '\0';
        *dir = abs;
    }
    return rc;
}

int loop_analyze(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **a,
                 aa_err *err)
{
    aa_analyze_options defo;
    if (!o) {
        aa_analyze_options_init(&defo);
        o = &defo;
    }
    return aa_analyze_run(e, o, a, err);
}

int loop_find_last(const char *db, const char *name, const char *program,
                   const char *exclude_dir, char **path, long long *eid, aa_err *err)
{
    *path = NULL;
    *eid = -1;
#ifdef LOOP_HAVE_SPACE
    {
        aa_space *s = NULL;
        aa_buf out;
        const char *keys[1], *vals[1];
        aa_space_where w;
        stored_run *runs = NULL;
        size_t n = 0, i;
        int rc;
        if ((rc = aa_space_open(db, &s, err)))
            return rc;
        keys[0] = name ? "name" : "application";
        vals[0] = name ? name : program;
        w.n = vals[0] ? 1 : 0;
        w.keys = keys;
        w.values = vals;
        aa_buf_init(&out);
        rc = aa_space_list(s, &w, 1, &out, err);
        aa_space_close(s);
        if (rc) {
            aa_buf_free(&out);
            return rc;
        }
        if (parse_list(out.data ? out.data : "{}", &runs, &n)) {
            aa_buf_free(&out);
            for (i = 0; i < n; i++)
                free(runs[i].dir);
            free(runs);
            return aa_err_set(err, AA_EENV, "cannot read the Program Space listing");
        }
        aa_buf_free(&out);
        for (i = 0; i < n; i++) {
            if (!runs[i].dir || runs[i].eid <= *eid)
                continue;
            if (exclude_dir && strcmp(runs[i].dir, exclude_dir) == 0)
                continue;
            if (!is_dir(runs[i].dir))
                continue;
            free(*path);
            *path = aa_strdup(runs[i].dir);
            *eid = runs[i].eid;
        }
        for (i = 0; i < n; i++)
            free(runs[i].dir);
        free(runs);
        return AA_OK;
    }
#else
    (void)db;
    (void)name;
    (void)program;
    (void)exclude_dir;
    (void)err;
    return AA_OK;
#endif
}

int loop_compare(loop_result *r, const char *base_path, const char *label,
                 const aa_analyze_options *o, aa_err *err)
{
    int rc;
    if ((rc = loop_load(base_path, &r->base_exp, NULL, err))) {
        aa_err_prefix(err, "baseline");
        return rc;
    }
    if ((rc = loop_analyze(r->base_exp, o, &r->base_an, err))) {
        aa_err_prefix(err, "baseline %s", base_path);
        return rc;
    }
    if (!label) {
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "baseline experiment %s (%s)", r->base_exp->id ? r->base_exp->id : "?",
                      base_path);
        r->base_label = aa_buf_detach(&b);
        label = r->base_label;
    } else {
        r->base_label = aa_strdup(label);
    }
    return aa_report_compare(r->an, r->base_an, label, &r->cmp, err);
}

int loop_store(loop_result *r, const char *db, aa_err *err)
{
#ifdef LOOP_HAVE_SPACE
    aa_space *s = NULL;
    aa_space_add_options o;
    aa_space_finding *f = NULL;
    char **paths = NULL;
    size_t i, nf = 0;
    int rc;
    r->eid = -1;
    paths = aa_space_code_paths(r->exp);
    f = calloc(r->an->nfindings + 1, sizeof *f);
    if (!paths || !f) {
        free(f);
        if (paths)
            aa_space_free_strings(paths, r->exp->nregions);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (i = 0; i < r->an->nfindings; i++) {
        const aa_finding *fi = &r->an->findings[i];
        const aa_region *info = r->an->regions[fi->region].info;
        size_t ri;
        if (!info || info < r->exp->regions || info >= r->exp->regions + r->exp->nregions)
            continue;
        ri = (size_t)(info - r->exp->regions);
        f[nf].kind = fi->kind == AA_FINDING_DISSIMILARITY ? "dissimilarity" : "disparity";
        f[nf].region = paths[ri];
        f[nf].severity = fi->severity;
        f[nf].severity_class = fi->severity_class;
        f[nf].confidence = fi->confidence;
        f[nf].ncauses = fi->ncauses;
        f[nf].causes = fi->causes;
        f[nf].suggestion = fi->suggestion;
        nf++;
    }
    memset(&o, 0, sizeof o);
    o.nfindings = nf;
    o.findings = f;
    rc = aa_space_open(db, &s, err);
    if (rc == AA_OK) {
        rc = aa_space_add(s, r->exp, &o, &r->eid, err);
        aa_space_close(s);
    }
    free(f);
    aa_space_free_strings(paths, r->exp->nregions);
    return rc;
#else
    (void)db;
    (void)err;
    r->eid = -1;
    return AA_OK;
#endif
}

int loop_write_outputs(loop_result *r, const char *report, aa_err *err)
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

int loop_run(const loop_opts *o, loop_result *r, aa_err *err)
{
    char **argv = NULL;
    int argc = 0, i, rc, direct;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *prog = program_of(o->launch, o->nlaunch);
    aa_buf b;
    char *store_db = NULL;

    memset(r, 0, sizeof *r);
    r->eid = -1;
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
        r->dir = absolute(o->out_dir);
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
        r->dir = absolute(b.data);
        aa_buf_free(&b);
    }
    {
        /* stale results must not be mistaken for this run's */
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/experiment.xml", r->dir);
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
    rc = loop_load(r->dir, &r->exp, NULL, err);
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
    r->have_profile = 1;
    if (o->np > 0 && r->exp->nprocs < o->np)
        /* e.g. linked without the MPI runtime: every process measured itself
         * as a run of one, and the last profile written replaced the others */
        fprintf(stderr,
                "autoanalyzer run: warning: --np %d, but the experiment holds %d process%s: "
                "the program was probably not linked with the MPI runtime "
                "(-lautoanalyzer-mpi; build it with `autoanalyzer cc mpicc`), so each process "
                "measured itself as a separate run and only one profile was kept\n",
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
    if (r->prog_status) {
        char st[32];
        snprintf(st, sizeof st, "%d", r->prog_status);
        aa_experiment_set_attr(r->exp, "exit_status", st);
    }
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/experiment.xml", r->dir);
    rc = aa_experiment_write(r->exp, b.data, err);
    aa_buf_free(&b);
    if (rc)
        goto out;

    if ((rc = loop_analyze(r->exp, o->analysis, &r->an, err)))
        goto out;

    /* compare with the baseline or the last comparable stored run */
    store_db = aa_strdup(o->db ? o->db : getenv("AUTOANALYZER_DB"));
    if (o->baseline) {
        if ((rc = loop_compare(r, o->baseline, NULL, o->analysis, err)))
            goto out;
    } else if (loop_have_space() && (o->compare_last || !o->no_store)) {
        char *last = NULL;
        long long eid;
        aa_err e2;
        aa_err_clear(&e2);
        if (loop_find_last(store_db, o->name, o->name ? NULL : r->exp->program, r->dir, &last,
                           &eid, &e2) == AA_OK &&
            last) {
            aa_buf_init(&b);
            aa_buf_printf(&b, "stored run %lld (%s)", eid, last);
            rc = loop_compare(r, last, b.data, o->analysis, err);
            aa_buf_free(&b);
            free(last);
            if (rc)
                goto out;
        } else {
            free(last);
        }
    }
    if (!o->no_store && (rc = loop_store(r, store_db, err)))
        goto out;
    rc = loop_write_outputs(r, o->report, err);
out:
    free(store_db);
    for (i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}

/* ---- the command ------------------------------------------------------------ */

int cmd_run(int argc, char **argv)
{
    loop_opts o;
    loop_result r;
    aa_analyze_options ao;
    aa_err err;
    char **attrs = NULL;
    int i, rc;
    aa_buf text;

    memset(&o, 0, sizeof o);
    aa_err_clear(&err);
    aa_analyze_options_init(&ao);
    attrs = calloc((size_t)argc + 1, sizeof *attrs);
    if (!attrs)
        return EXIT_ENV;
    o.attrs = attrs;
    o.analysis = &ao;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            rc = cli_print_help("run");
            goto done;
        }
        if ((r = cli_analysis_opt("run", argc, argv, &i, &ao, &rc)) == CLI_AOPT_ERROR)
            goto done;
        if (r == CLI_AOPT_OK)
            continue;
        if (!strcmp(a, "--no-store")) {
            o.no_store = 1;
            continue;
        }
        if (!strcmp(a, "--json")) {
            o.json = 1;
            continue;
        }
        if (i + 1 >= argc) {
            rc = cli_usage_error("run", "option %s needs a value", a);
            goto done;
        }
        if (!strcmp(a, "--np")) {
            long np;
            if (aa_parse_long(argv[++i], &np) || np < 1 || np > 1000000) {
                rc = cli_usage_error("run", "--np wants a positive number, not '%s'", argv[i]);
                goto done;
            }
            o.np = (int)np;
        } else if (!strcmp(a, "--name")) {
            o.name = argv[++i];
        } else if (!strcmp(a, "--attr")) {
            const char *kv = argv[++i];
            if (!strchr(kv, '=') || kv[0] == '=') {
                rc = cli_usage_error("run", "--attr wants k=v, not '%s'", kv);
                goto done;
            }
            attrs[o.nattrs++] = argv[i];
        } else if (!strcmp(a, "--out")) {
            o.out_dir = argv[++i];
        } else if (!strcmp(a, "--db")) {
            o.db = argv[++i];
        } else if (!strcmp(a, "-o")) {
            o.report = argv[++i];
        } else if (!strcmp(a, "--baseline")) {
            o.baseline = argv[++i];
        } else {
            rc = cli_usage_error("run", "unknown option '%s'", a);
            goto done;
        }
    }
    if (i >= argc) {
        rc = cli_usage_error("run", "no program to run (give it after --)");
        goto done;
    }
    o.launch = argv + i;
    o.nlaunch = argc - i;

    rc = loop_run(&o, &r, &err);
    if (rc != AA_OK) {
        int st = r.prog_status;
        loop_result_free(&r);
        if (st > 0 && rc == AA_EENV)
            fprintf(stderr, "autoanalyzer run: the program failed with exit status %d\n", st);
        rc = cli_fail(&err);
        goto done;
    }
    aa_buf_init(&text);
    if (o.json)
        aa_analyze_format_json(r.an, &text);
    else
        aa_analyze_format_text(r.an, &text);
    if (text.len)
        fwrite(text.data, 1, text.len, stdout);
    aa_buf_free(&text);
    if (!o.json) {
        if (r.cmp)
            printf("\nCompared with %s: %zu new, %zu gone, %zu changed core bottleneck%s.\n",
                   r.cmp->baseline_label, r.cmp->nnew, r.cmp->ngone, r.cmp->nchanged,
                   r.cmp->nnew + r.cmp->ngone + r.cmp->nchanged == 1 ? "" : "s");
        printf("\nexperiment: %s\n", r.dir);
        if (r.eid >= 0)
            printf("stored as execution %lld\n", r.eid);
        printf("report: %s\n", r.report_path);
    }
    fflush(stdout);
    rc = EXIT_OK;
    if (r.prog_status != 0) {
        fprintf(stderr, "autoanalyzer run: the program failed with exit status %d "
                        "(its profile was analysed)\n", r.prog_status);
        rc = EXIT_ENV;
    }
    loop_result_free(&r);
done:
    cli_analysis_free(&ao);
    free(attrs);
    return rc;
}
