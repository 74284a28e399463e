/*
 * cli/cmd_space.c -- `autoanalyzer space`: the Program Space commands
 * (add, list, show, query, diff, perfdiff, map, export, import, migrate)
 * on top of space/aa_space.h.  `space add` reads an experiment (file or
 * output directory), runs the analysis to store its findings too, and
 * stores everything in one transaction.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/aa_analyze.h"
#include "cli/space_print.h"
#include "engine/aa_engine.h"
#include "profile/aa_profile.h"
#include "space/aa_space.h"

const char cmd_space_summary[] = "store and compare executions in the Program Space";
/* One help text per subcommand (`space SUB --help`); the command's usage
 * is their concatenation. */
#define U_ADD                                                                                    \
    "  add EXP [--attr K=V]... [--name APP] [--no-analysis] [--full] [--json]\n"                 \
    "          [analysis options]\n"                                                             \
    "        store an experiment (file, or output directory with experiment.xml\n"              \
    "        or rank-<N>.xml files) with the findings of its analysis, made with\n"             \
    "        the analysis options below (--metric is the analysis' here); prints\n"             \
    "        'added execution N (K findings)', or {\"eid\":N} with --json.\n"                  \
    "        A run of more than 64 processes is stored compact: sums, per-region\n"            \
    "        distributions (<metric>:min, :median, :p90, :max, :stddev) and three\n"           \
    "        representative processes, without the experiment document; --full\n"             \
    "        stores every process and the document\n"
#define U_LIST "  list [--where K=V]... [--json]        executions matching all attributes\n"
#define U_SHOW                                                                                     \
    "  show EID [--json]                     one execution: attributes, metrics, and findings\n"    \
    "                                        with what each costs and the calling contexts a\n"      \
    "                                        hotspot adds up\n"
#define U_QUERY                                                                                  \
    "  query --metric M [--focus PATH]... [--descendants|--ancestors]\n"                         \
    "        [--where K=V]... [--agg max|min|mean|sum] [--json]\n"                               \
    "        results at foci (one PATH per hierarchy; others at the root),\n"                    \
    "        optionally aggregated across the selected executions, with units\n"
#define U_DIFF "  diff EID EID... [--map FILE] [--json]  structural difference\n"
#define U_PERFDIFF                                                                               \
    "  perfdiff A B --metric M --threshold T[%] [--min-size V] [--exhaustive]\n"                \
    "           [--map FILE] [--json]\n"                                                         \
    "        performance difference: every focus common to A and B is compared\n"               \
    "        once (so a change under a parent that moved less than T is found,\n"              \
    "        marked hidden); the foci differing by more than T, largest |delta| first;\n"      \
    "        --min-size hides those whose |delta| is below V (metric units);\n"                 \
    "        --exhaustive lists every common focus, differing or not\n"
#define U_MAP                                                                                    \
    "  map OLD NEW | map --map FILE | map --list | map --clear\n"                                \
    "        mapping directives (resource path prefix rewrites) applied before\n"               \
    "        diff and perfdiff\n"
#define U_PRUNE                                                                                  \
    "  prune APP PATH [--reason TEXT] | prune --remove APP PATH | prune --list [APP]\n"         \
    "        prunes: /Code resources marked irrelevant for an application (its\n"               \
    "        configuration name or application); the history-guided analysis\n"               \
    "        (analyze --history-from-space, run, nightly) removes findings at them\n"         \
    "        and below them, following the region when its lines move\n"
#define U_EXPORT "  export EID|--all -o FILE              the text format of docs/space.md\n"
#define U_IMPORT "  import FILE [--json]                  load an export (one transaction)\n"
#define U_MIGRATE "  migrate                               apply pending schema migrations\n"
#define U_DB                                                                                     \
    "  --db LOCATION  file path, sqlite:PATH or postgresql://... URL, before or\n"               \
    "                 after the subcommand (default: $AUTOANALYZER_DB, else\n"                  \
    "                 ./autoanalyzer-space.db); only add, import and map create\n"              \
    "                 a SQLite file, the other subcommands need an existing one\n"
#define U_EXIT "exit status: 0 ok, 2 usage, 3 bad input or unknown EID, 4 database unavailable\n"

const char cmd_space_usage[] =
    "usage: autoanalyzer space [--db LOCATION] <subcommand> ...\n"
    "\n"
    "The Program Space keeps every execution of an application: its SpaceMap\n"
    "attributes, resource hierarchies (/Code, /Machine, /Process), performance\n"
    "results per metric and focus, and the analysis findings.\n"
    "\n"
    "subcommands (`autoanalyzer space SUB --help` shows one):\n"
    U_ADD U_LIST U_SHOW U_QUERY U_DIFF U_PERFDIFF U_MAP U_PRUNE U_EXPORT U_IMPORT U_MIGRATE
    "\n"
    "options:\n"
    U_DB
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "\n"
    U_EXIT;

static const struct {
    const char *name, *help;
    int writes; /* may create the database */
} subcommands[] = {
    {"add", U_ADD, 1},           {"list", U_LIST, 0},     {"show", U_SHOW, 0},
    {"query", U_QUERY, 0},       {"diff", U_DIFF, 0},     {"perfdiff", U_PERFDIFF, 0},
    {"map", U_MAP, 1},           {"export", U_EXPORT, 0}, {"import", U_IMPORT, 1},
    {"migrate", U_MIGRATE, 0},   {"prune", U_PRUNE, 0},   {NULL, NULL, 0},
};

static int print_sub_help(int i)
{
    printf("usage: autoanalyzer space [--db LOCATION] %s ...\n\n%s\noptions:\n%s",
           subcommands[i].name, subcommands[i].help, U_DB);
    if (strcmp(subcommands[i].name, "add") == 0)
        fputs("\n" CLI_ANALYSIS_OPTIONS_HELP, stdout);
    fputs("\n" U_EXIT, stdout);
    return EXIT_OK;
}

#define NAME "space"

typedef struct strlist {
    size_t n;
    const char **v;
} strlist;

static int push(strlist *l, const char *s)
{
    const char **q = realloc(l->v, (l->n + 1) * sizeof *q);
    if (!q)
        return -1;
    l->v = q;
    l->v[l->n++] = s;
    return 0;
}

/* Common state: --db and --json, found anywhere. */
typedef struct opts {
    const char *db;
    int json;
    strlist pos;     /* positional arguments */
    strlist where_k, where_v;
    strlist attr_k, attr_v;
    strlist foci;
    const char *metric, *threshold, *agg, *name, *mapfile, *output, *min_size;
    const char *reason; /* prune --reason */
    int descendants, ancestors, exhaustive, all, list, clear, no_analysis;
    int remove;         /* prune --remove */
    int full; /* add --full */
    char **owned;
    size_t nowned;
    aa_analyze_options analysis; /* `add`: the options of its analysis */
} opts;

static void opts_free(opts *o)
{
    size_t i;
    free(o->pos.v);
    free(o->where_k.v);
    free(o->where_v.v);
    free(o->attr_k.v);
    free(o->attr_v.v);
    free(o->foci.v);
    for (i = 0; i < o->nowned; i++)
        free(o->owned[i]);
    free(o->owned);
    cli_analysis_free(&o->analysis);
}

static int split_kv(opts *o, const char *arg, const char *opt, strlist *k, strlist *v)
{
    const char *eq = strchr(arg, '=');
    char *key, **q;
    if (!eq || eq == arg)
        return cli_usage_error(NAME, "%s takes KEY=VALUE, not '%s'", opt, arg);
    key = strndup(arg, (size_t)(eq - arg));
    q = realloc(o->owned, (o->nowned + 1) * sizeof *q);
    if (!key || !q) {
        free(key);
        return cli_usage_error(NAME, "out of memory");
    }
    o->owned = q;
    o->owned[o->nowned++] = key;
    push(k, key);
    push(v, eq + 1);
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    int i, add = strcmp(argv[1], "add") == 0;
    memset(o, 0, sizeof *o);
    aa_analyze_options_init(&o->analysis);
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (add) { /* `add` analyses: the shared analysis options (its --metric too) */
            int st = EXIT_OK, t = cli_analysis_opt(NAME, argc, argv, &i, &o->analysis, &st);
            if (t == CLI_AOPT_ERROR)
                return st;
            if (t == CLI_AOPT_OK)
                continue;
        }
#define VAL(dst)                                                                                 \
    do {                                                                                         \
        if (i + 1 >= argc)                                                                       \
            return cli_usage_error(NAME, "%s needs a value", a);                                 \
        dst = argv[++i];                                                                         \
    } while (0)
        if (strcmp(a, "--db") == 0)
            VAL(o->db);
        else if (strncmp(a, "--db=", 5) == 0)
            o->db = a + 5;
        else if (strcmp(a, "--json") == 0)
            o->json = 1;
        else if (strcmp(a, "--where") == 0 || strcmp(a, "--attr") == 0) {
            const char *v;
            int rc;
            VAL(v);
            rc = a[2] == 'w' ? split_kv(o, v, a, &o->where_k, &o->where_v)
                             : split_kv(o, v, a, &o->attr_k, &o->attr_v);
            if (rc)
                return rc;
        } else if (strcmp(a, "--focus") == 0) {
            const char *v;
            VAL(v);
            push(&o->foci, v);
        } else if (strcmp(a, "--metric") == 0)
            VAL(o->metric);
        else if (strcmp(a, "--threshold") == 0)
            VAL(o->threshold);
        else if (strcmp(a, "--min-size") == 0)
            VAL(o->min_size);
        else if (strcmp(a, "--agg") == 0)
            VAL(o->agg);
        else if (strcmp(a, "--name") == 0)
            VAL(o->name);
        else if (strcmp(a, "--map") == 0)
            VAL(o->mapfile);
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            VAL(o->output);
        else if (strcmp(a, "--descendants") == 0)
            o->descendants = 1;
        else if (strcmp(a, "--ancestors") == 0)
            o->ancestors = 1;
        else if (strcmp(a, "--exhaustive") == 0)
            o->exhaustive = 1;
        else if (strcmp(a, "--all") == 0)
            o->all = 1;
        else if (strcmp(a, "--list") == 0)
            o->list = 1;
        else if (strcmp(a, "--clear") == 0)
            o->clear = 1;
        else if (strcmp(a, "--no-analysis") == 0)
            o->no_analysis = 1;
        else if (strcmp(a, "--full") == 0)
            o->full = 1;
        else if (strcmp(a, "--reason") == 0)
            VAL(o->reason);
        else if (strcmp(a, "--remove") == 0)
            o->remove = 1;
        else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                push(&o->pos, argv[i]);
        } else if (a[0] == '-' && a[1])
            return cli_usage_error(NAME, "unknown option '%s'", a);
        else
            push(&o->pos, a);
#undef VAL
    }
    return 0;
}

static int parse_eid(const char *s, long long *eid)
{
    long v;
    if (aa_parse_long(s, &v) || v < 1)
        return cli_usage_error(NAME, "'%s' is not an execution id", s);
    *eid = v;
    return 0;
}

static int emit(aa_buf *out)
{
    aa_err err;
    aa_err_clear(&err);
    if (cli_write_output("-", out, &err) != AA_OK)
        return cli_fail(&err);
    return EXIT_OK;
}

static int do_add(aa_space *s, opts *o)
{
    aa_experiment *e = NULL;
    aa_analysis *an = NULL;
    aa_space_add_options ao;
    aa_space_finding *findings = NULL;
    size_t nfindings = 0, i;
    aa_attr *attrs = NULL;
    aa_err err;
    long long eid;
    int rc;
    aa_buf out;

    if (o->pos.n != 1)
        return cli_usage_error(NAME, "add takes one experiment (file or directory)");
    aa_err_clear(&err);
    {
        char *note = NULL;
        rc = aa_engine_load(o->pos.v[0], &e, NULL, &note, NULL, &err);
        if (note)
            fprintf(stderr, "autoanalyzer space: %s\n", note);
        free(note);
        if (rc != AA_OK)
            return cli_fail(&err);
    }
    if (!o->no_analysis) {
        aa_err aerr;
        aa_err_clear(&aerr);
        if (aa_analyze_run(e, &o->analysis, &an, &aerr) == AA_OK && an)
            rc = aa_engine_findings(an, e, &findings, &nfindings, &aerr);
        else
            rc = AA_OK, an = an ? an : NULL;
        if (rc != AA_OK) {
            if (an)
                aa_analyze_free(an);
            aa_experiment_free(e);
            return cli_fail(&aerr);
        }
        if (!an)
            fprintf(stderr, "autoanalyzer space: analysis not available (%s); storing the "
                            "measurements without findings\n",
                    aerr.msg[0] ? aerr.msg : "failed");
    }
    memset(&ao, 0, sizeof ao);
    ao.application = o->name;
    attrs = calloc(o->attr_k.n + 1, sizeof *attrs);
    for (i = 0; attrs && i < o->attr_k.n; i++) {
        attrs[i].name = (char *)o->attr_k.v[i];
        attrs[i].value = (char *)o->attr_v.v[i];
    }
    ao.nattrs = o->attr_k.n;
    ao.attrs = attrs;
    ao.nfindings = nfindings;
    ao.full = o->full;
    ao.findings = findings;
    {
        const char *fail = getenv("AA_SPACE_TEST_FAIL_AFTER");
        long v;
        if (fail && aa_parse_long(fail, &v) == 0)
            ao.fail_after_rows = v;
    }
    rc = aa_space_add(s, e, &ao, &eid, &err);
    aa_engine_findings_free(findings, nfindings);
    free(attrs);
    if (an)
        aa_analyze_free(an);
    aa_experiment_free(e);
    if (rc != AA_OK)
        return cli_fail(&err);
    aa_buf_init(&out);
    if (o->json)
        aa_buf_printf(&out, "{\"eid\":%lld}\n", eid);
    else
        aa_buf_printf(&out, "added execution %lld (%zu finding%s)\n", eid, nfindings,
                      nfindings == 1 ? "" : "s");
    rc = emit(&out);
    aa_buf_free(&out);
    return rc;
}

static int load_mapfile(opts *o, aa_space_map *m, aa_err *err)
{
    memset(m, 0, sizeof *m);
    if (!o->mapfile)
        return AA_OK;
    return aa_space_map_read(o->mapfile, m, err);
}

static int do_sub(aa_space *s, const char *sub, opts *o)
{
    aa_err err;
    aa_buf out;
    int rc = AA_OK;
    aa_err_clear(&err);
    aa_buf_init(&out);
    if (strcmp(sub, "list") == 0) {
        aa_space_where w = {o->where_k.n, o->where_k.v, o->where_v.v};
        aa_space_execution *v = NULL;
        size_t n = 0;
        if (o->pos.n)
            return cli_usage_error(NAME, "list takes no arguments");
        rc = aa_space_executions(s, &w, &v, &n, &err);
        if (rc == AA_OK)
            space_print_list(&out, v, n, o->json);
        aa_space_executions_free(v, n);
    } else if (strcmp(sub, "show") == 0) {
        long long eid = 0;
        if (o->pos.n != 1)
            return cli_usage_error(NAME, "show takes one execution id");
        aa_space_shown x;
        if (parse_eid(o->pos.v[0], &eid))
            return EXIT_USAGE;
        rc = aa_space_show(s, eid, &x, &err);
        if (rc == AA_OK) {
            space_print_show(&out, &x, o->json);
            aa_space_shown_free(&x);
        }
    } else if (strcmp(sub, "query") == 0) {
        aa_space_query q;
        if (!o->metric)
            return cli_usage_error(NAME, "query needs --metric M");
        if (o->pos.n)
            return cli_usage_error(NAME, "query takes no positional arguments");
        if (o->descendants && o->ancestors)
            return cli_usage_error(NAME, "--descendants and --ancestors exclude each other");
        memset(&q, 0, sizeof q);
        q.metric = o->metric;
        q.nfoci = o->foci.n;
        q.foci = o->foci.v;
        q.relatives = o->descendants ? AA_SPACE_DESCENDANTS
                                     : o->ancestors ? AA_SPACE_ANCESTORS : AA_SPACE_SELF;
        q.where.n = o->where_k.n;
        q.where.keys = o->where_k.v;
        q.where.values = o->where_v.v;
        q.agg = o->agg;
        {
            aa_space_query_result r;
            rc = aa_space_run_query(s, &q, &r, &err);
            if (rc == AA_OK) {
                space_print_query(&out, &q, &r, o->json);
                aa_space_query_free(&r);
            }
        }
    } else if (strcmp(sub, "diff") == 0) {
        long long eids[8];
        aa_space_map m;
        size_t i;
        if (o->pos.n < 2 || o->pos.n > 8)
            return cli_usage_error(NAME, "diff takes 2 to 8 execution ids");
        for (i = 0; i < o->pos.n; i++)
            if (parse_eid(o->pos.v[i], &eids[i]))
                return EXIT_USAGE;
        rc = load_mapfile(o, &m, &err);
        if (rc == AA_OK) {
            aa_space_diff_result r;
            rc = aa_space_diff(s, eids, o->pos.n, &m, &r, &err);
            if (rc == AA_OK) {
                space_print_diff(&out, &r, o->json);
                aa_space_diff_free(&r);
            }
        }
        aa_space_map_free(&m);
    } else if (strcmp(sub, "perfdiff") == 0) {
        aa_space_perfdiff_options po;
        aa_space_map m;
        long long a = 0, b = 0;
        char *t;
        size_t len;
        if (o->pos.n != 2)
            return cli_usage_error(NAME, "perfdiff takes two execution ids");
        if (!o->metric || !o->threshold)
            return cli_usage_error(NAME, "perfdiff needs --metric M and --threshold T[%%]");
        if (parse_eid(o->pos.v[0], &a) || parse_eid(o->pos.v[1], &b))
            return EXIT_USAGE;
        memset(&po, 0, sizeof po);
        t = aa_strdup(o->threshold);
        len = t ? strlen(t) : 0;
        if (len && t[len - 1] == '%') {
            po.relative = 1;
            t[len - 1] = 0;
        }
        if (!t || aa_parse_double(t, &po.threshold) || po.threshold < 0) {
            free(t);
            return cli_usage_error(NAME, "--threshold takes a non-negative number, optionally "
                                         "with %%");
        }
        free(t);
        if (o->min_size && (aa_parse_double(o->min_size, &po.min_size) || po.min_size < 0))
            return cli_usage_error(NAME, "--min-size takes a non-negative number (in the "
                                         "metric's unit)");
        po.metric = o->metric;
        po.exhaustive = o->exhaustive;
        rc = load_mapfile(o, &m, &err);
        po.extra = &m;
        if (rc == AA_OK) {
            aa_space_perfdiff_result r;
            rc = aa_space_perfdiff(s, a, b, &po, &r, &err);
            if (rc == AA_OK) {
                space_print_perfdiff(&out, a, b, &po, &r, o->json);
                aa_space_perfdiff_free(&r);
            }
        }
        aa_space_map_free(&m);
    } else if (strcmp(sub, "map") == 0) {
        aa_space_map m;
        memset(&m, 0, sizeof m);
        if (o->clear) {
            rc = aa_space_map_clear(s, &err);
        } else if (o->list || (!o->mapfile && !o->pos.n)) {
            size_t i;
            rc = aa_space_map_load(s, &m, &err);
            for (i = 0; rc == AA_OK && i < m.n; i++)
                aa_buf_printf(&out, "map %s %s\n", m.from[i], m.to[i]);
        } else {
            if (o->mapfile)
                rc = aa_space_map_read(o->mapfile, &m, &err);
            if (rc == AA_OK && o->pos.n) {
                if (o->pos.n != 2)
                    return cli_usage_error(NAME, "map takes OLD NEW");
                if (o->pos.v[0][0] != '/' || o->pos.v[1][0] != '/')
                    return cli_usage_error(NAME, "map paths are resource paths ('/Code/...')");
                aa_space_map_add(&m, o->pos.v[0], o->pos.v[1]);
            }
            if (rc == AA_OK)
                rc = aa_space_map_store(s, &m, &err);
        }
        aa_space_map_free(&m);
    } else if (strcmp(sub, "prune") == 0) {
        if (o->list || (!o->remove && !o->pos.n)) {
            aa_space_prune *v = NULL;
            size_t n = 0;
            if (o->pos.n > 1)
                return cli_usage_error(NAME, "prune --list takes at most one application");
            rc = aa_space_prunes(s, o->pos.n ? o->pos.v[0] : NULL, &v, &n, &err);
            if (rc == AA_OK)
                space_print_prunes(&out, v, n, o->json);
            aa_space_prunes_free(v, n);
        } else {
            if (o->pos.n != 2)
                return cli_usage_error(NAME, "prune takes APP PATH");
            if (o->remove && o->reason)
                return cli_usage_error(NAME, "prune --remove takes no --reason");
            rc = o->remove ? aa_space_prune_remove(s, o->pos.v[0], o->pos.v[1], &err)
                           : aa_space_prune_add(s, o->pos.v[0], o->pos.v[1], o->reason, &err);
            if (rc == AA_OK && !o->json)
                aa_buf_printf(&out, "%s %s for %s\n", o->remove ? "unpruned" : "pruned",
                              o->pos.v[1], o->pos.v[0]);
        }
    } else if (strcmp(sub, "export") == 0) {
        long long eid = -1;
        if (!o->output)
            return cli_usage_error(NAME, "export needs -o FILE");
        if (o->all == (o->pos.n == 1) || o->pos.n > 1)
            return cli_usage_error(NAME, "export takes one execution id or --all");
        if (!o->all && parse_eid(o->pos.v[0], &eid))
            return EXIT_USAGE;
        rc = aa_space_export(s, eid, &out, &err);
        if (rc == AA_OK)
            rc = cli_write_output(o->output, &out, &err);
        aa_buf_free(&out);
        return rc == AA_OK ? EXIT_OK : cli_fail(&err);
    } else if (strcmp(sub, "import") == 0) {
        char *text;
        size_t len, i;
        long long *eids = NULL;
        size_t n = 0;
        if (o->pos.n != 1)
            return cli_usage_error(NAME, "import takes one file");
        rc = aa_read_file(o->pos.v[0], &text, &len, &err);
        if (rc == AA_OK) {
            if (strlen(text) != len)
                rc = aa_err_set(&err, AA_EINPUT, "%s: NUL byte in text file", o->pos.v[0]);
            else
                rc = aa_space_import(s, text, o->pos.v[0], &eids, &n, &err);
            free(text);
        }
        if (rc == AA_OK) {
            if (o->json) {
                aa_buf_puts(&out, "{\"eids\":[");
                for (i = 0; i < n; i++)
                    aa_buf_printf(&out, "%s%lld", i ? "," : "", eids[i]);
                aa_buf_puts(&out, "]}\n");
            } else {
                for (i = 0; i < n; i++)
                    aa_buf_printf(&out, "imported execution %lld\n", eids[i]);
            }
        }
        free(eids);
    } else if (strcmp(sub, "migrate") == 0) {
        int applied = 0, v = 0;
        rc = aa_space_migrate(s, &applied, &err);
        if (rc == AA_OK)
            rc = aa_space_schema_version(s, &v, &err);
        if (rc == AA_OK)
            aa_buf_printf(&out, "schema version %d (%d migration%s applied)\n", v, applied,
                          applied == 1 ? "" : "s");
    } else {
        aa_buf_free(&out);
        return cli_usage_error(NAME, "unknown subcommand '%s'", sub);
    }
    if (rc != AA_OK) {
        aa_buf_free(&out);
        return cli_fail(&err);
    }
    rc = emit(&out);
    aa_buf_free(&out);
    return rc;
}

int cmd_space(int argc, char **argv)
{
    const char *sub = NULL, *db = NULL;
    char **args = NULL;
    opts o;
    aa_space *s = NULL;
    aa_err err;
    int rc, i, k, json = 0, nargs = 0, sub_i = -1;
    /* Options before the subcommand (git-style): --db, --json, --help. */
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db = argv[++i];
        else if (strncmp(argv[i], "--db=", 5) == 0)
            db = argv[i] + 5;
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return cli_print_help(NAME);
        else if (strcmp(argv[i], "--db") == 0)
            return cli_usage_error(NAME, "--db needs a value");
        else
            return cli_usage_error(NAME, "unknown option '%s' before the subcommand", argv[i]);
    }
    if (i >= argc)
        return cli_usage_error(NAME, "missing subcommand");
    sub = argv[i];
    for (k = 0; subcommands[k].name; k++)
        if (strcmp(sub, subcommands[k].name) == 0)
            sub_i = k;
    if (sub_i < 0)
        return cli_usage_error(NAME, "unknown subcommand '%s'", sub);
    if (cli_wants_help(argc - i, argv + i))
        return print_sub_help(sub_i);
    /* The subcommand and its arguments, as parse() expects them. */
    args = calloc((size_t)(argc - i) + 2, sizeof *args);
    if (!args)
        return cli_usage_error(NAME, "out of memory");
    args[nargs++] = argv[0];
    for (k = i; k < argc; k++)
        args[nargs++] = argv[k];
    rc = parse(nargs, args, &o);
    if (rc) {
        opts_free(&o);
        free(args);
        return rc;
    }
    if (!o.db)
        o.db = db;
    o.json |= json;
    aa_err_clear(&err);
    /* Reading subcommands never create a database (a mistyped --db is an
     * error, not a new empty file); of `map`, only storing directives may. */
    if (subcommands[sub_i].writes &&
        !(strcmp(sub, "map") == 0 && (o.list || o.clear || (!o.mapfile && !o.pos.n))))
        rc = aa_space_open(o.db, &s, &err);
    else
        rc = aa_space_open_existing(o.db, &s, &err);
    if (rc != AA_OK) {
        opts_free(&o);
        free(args);
        return cli_fail(&err);
    }
    rc = strcmp(sub, "add") == 0 ? do_add(s, &o) : do_sub(s, sub, &o);
    if (rc == EXIT_OK)
        aa_space_close(s);
    else
        aa_space_close_failed(s);
    opts_free(&o);
    free(args);
    return rc;
}
