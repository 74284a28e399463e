/*
 * cli/cmd_instrument.c -- `autoanalyzer instrument`: instruments one C
 * source file (SPEC §3) and writes the instrumented source and its region
 * map (<out>.regions.xml or --map FILE).  Compile flags come after `--`, or
 * from compile_commands.json when none are given; the MPI compiler's
 * include flags are added as the compiler wrapper adds them (wrap/).
 */
#include "cli/cli.h"
#include "engine/aa_engine.h"
#include "instrument/aa_instrument.h"
#include "wrap/aa_wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_instrument_summary[] = "instrument a C source file with code regions";
const char cmd_instrument_usage[] =
    "usage: autoanalyzer instrument [options] FILE.c [-- COMPILER FLAGS...]\n"
    "\n"
    "Writes FILE.c with a probe around every selected code region and the\n"
    "region map (XML).  Unsafe regions are left alone with a warning in\n"
    "GCC's format, \"file:line:col: warning: autoanalyzer: ... not\n"
    "instrumented: reason\", each reason once per file (-v: every one).\n"
    "\n"
    "options:\n"
    "  --mode LIST      functions,outer-loops,inner-loops,mpi,mathlib,syscalls,\n"
    "                   libc,user,tiny,all (default: functions,outer-loops)\n"
    "                   static inline functions, tiny leaf functions (<= 12\n"
    "                   statements, no loop, no call that may block), loops\n"
    "                   of <= 8 constant iterations with a straight-line body,\n"
    "                   nests of bounded for loops executing <= 192\n"
    "                   statements, short functions, bisection loops\n"
    "                   and a loop spanning an instrumented function's body\n"
    "                   are left out unless `tiny` (or `all`) is given or an\n"
    "                   --include names the function; the map lists them\n"
    "  --include GLOB   instrument only functions matching GLOB (repeatable)\n"
    "  --exclude GLOB   do not instrument functions matching GLOB (repeatable)\n"
    "  --include-file GLOB / --exclude-file GLOB   the same for source files\n"
    "  --filter FILE    Score-P-like filter file (SCOREP_REGION_NAMES_BEGIN ...)\n"
    "  --refine FILE    round 2: add loops and call sites inside the critical\n"
    "                   regions of an analysis (JSON/XML, or one id per line)\n"
    "                   (the experiment.xml beside FILE, if any, also filters\n"
    "                   as --filter-from; refined regions are never filtered)\n"
    "  --refine-from-space NAME\n"
    "                   round 2 from history: refine the regions of the findings\n"
    "                   stored with the latest run of configuration NAME (its\n"
    "                   `name` attribute, else its application) in the Program\n"
    "                   Space; says which stored run it used\n"
    "  --db DB          Program Space for --refine-from-space (default\n"
    "                   $AUTOANALYZER_DB or autoanalyzer-space.db)\n"
    "  --filter-from EXP  leave out the functions `autoanalyzer filter --from EXP`\n"
    "                   lists (tiny and hot in that measured run)\n"
    "  --plan FILE      region plan: eliminate|split|merge ID|NAME...\n"
    "  --compdb DIR     take flags from DIR/compile_commands.json\n"
    "  --compiler CC    parse as CC sees the file: its predefined macros and\n"
    "                   system include directories for these flags (default:\n"
    "                   $CC, else cc; \"none\": libclang's own)\n"
    "  -o OUT.c         output file (default: standard output)\n"
    "  --map FILE       region map (default: OUT.c.regions.xml when -o is given)\n"
    "  --probe-in-body  a C function's probe in its body (default: in a wrapper\n"
    "                   of its name around the body outlined as NAME__aa_body,\n"
    "                   so the compiler inlines into the body as without probes)\n"
    "  -q               no warnings\n"
    "  -v               every warning, and excluded functions\n"
    "\n"
    "exit status: 0 ok, 2 usage, 3 the file does not parse or is already\n"
    "instrumented, 4 environment.\n";

int cmd_instrument(int argc, char **argv)
{
    const char *out = NULL, *map = NULL, *file = NULL, *modes_s = NULL, *compdb = NULL;
    const char *compiler = getenv("CC");
    aa_instr_filter *filter = aa_instr_filter_new();
    aa_instr_plan *plan = NULL;
    aa_instrument_opts o;
    aa_instrument_result res;
    aa_err err;
    int nflags = 0, rc = 0, have_dashdash = 0, quiet = 0, verbose = 0;
    char **flags = NULL, **dbflags = NULL, **mpiflags = NULL, **allflags = NULL;
    int ndb = 0, nmpi = 0;
    const char *from_space = NULL, *space_db = NULL;

    memset(&o, 0, sizeof o);
    aa_err_clear(&err);
    if (!filter)
        return EXIT_ENV;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEED_ARG()                                                                  \
    do {                                                                            \
        if (i + 1 >= argc) {                                                        \
            rc = cli_usage_error("instrument", "%s needs an argument", a);          \
            goto done;                                                              \
        }                                                                           \
    } while (0)
        if (!strcmp(a, "--")) {
            have_dashdash = 1;
            flags = argv + i + 1;
            nflags = argc - i - 1;
            break;
        } else if (!strcmp(a, "--mode")) {
            NEED_ARG();
            modes_s = argv[++i];
        } else if (!strncmp(a, "--mode=", 7)) {
            modes_s = a + 7;
        } else if (!strcmp(a, "--include") || !strcmp(a, "--exclude") ||
                   !strcmp(a, "--include-file") || !strcmp(a, "--exclude-file")) {
            NEED_ARG();
            if (aa_instr_filter_add(filter, strstr(a, "-file") ? 'P' : 'F', a[2] == 'i',
                                    argv[++i])) {
                rc = EXIT_ENV;
                goto done;
            }
        } else if (!strcmp(a, "--filter")) {
            NEED_ARG();
            if (aa_instr_filter_load(filter, argv[++i], &err)) {
                rc = cli_fail(&err);
                goto done;
            }
        } else if (!strcmp(a, "--filter-from")) {
            NEED_ARG();
            if (!plan && !(plan = aa_instr_plan_new())) {
                rc = EXIT_ENV;
                goto done;
            }
            if (aa_instr_plan_load_filter_from(plan, argv[++i], 0, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
        } else if (!strcmp(a, "--refine") || !strcmp(a, "--plan")) {
            NEED_ARG();
            if (!plan && !(plan = aa_instr_plan_new())) {
                rc = EXIT_ENV;
                goto done;
            }
            if ((a[2] == 'r' ? aa_instr_plan_load_refine(plan, argv[i + 1], &err)
                             : aa_instr_plan_load(plan, argv[i + 1], &err))) {
                rc = cli_fail(&err);
                goto done;
            }
            i++;
        } else if (!strcmp(a, "--refine-from-space")) {
            NEED_ARG();
            from_space = argv[++i];
        } else if (!strcmp(a, "--db")) {
            NEED_ARG();
            space_db = argv[++i];
        } else if (!strcmp(a, "--compdb")) {
            NEED_ARG();
            compdb = argv[++i];
        } else if (!strcmp(a, "--compiler")) {
            NEED_ARG();
            compiler = argv[++i];
        } else if (!strcmp(a, "-o")) {
            NEED_ARG();
            out = argv[++i];
        } else if (!strcmp(a, "--map")) {
            NEED_ARG();
            map = argv[++i];
        } else if (!strcmp(a, "-q")) {
            quiet = 1;
        } else if (!strcmp(a, "-v")) {
            verbose = 1;
        } else if (!strcmp(a, "--probe-in-body")) {
            o.probe_in_body = 1;
        } else if (a[0] == '-' && a[1]) {
            rc = cli_usage_error("instrument", "unknown option '%s'", a);
            goto done;
        } else if (file) {
            rc = cli_usage_error("instrument", "only one source file, got '%s' and '%s'", file, a);
            goto done;
        } else {
            file = a;
        }
#undef NEED_ARG
    }
    if (!file) {
        rc = cli_usage_error("instrument", "no source file given");
        goto done;
    }
    if (from_space) {
        /* history-guided: the latest stored findings of this configuration */
        uint32_t *ids = NULL;
        size_t n = 0;
        long long eid = -1;
        char origin[64];
        if (aa_engine_refine_from_space(space_db ? space_db : getenv("AUTOANALYZER_DB"),
                                        from_space, &ids, &n, &eid, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if (eid < 0) {
            free(ids);
            fprintf(stderr, "autoanalyzer instrument: no run of '%s' stored in the Program "
                            "Space to refine from\n", from_space);
            rc = EXIT_INPUT;
            goto done;
        }
        snprintf(origin, sizeof origin, "stored execution %lld", eid);
        if ((!plan && !(plan = aa_instr_plan_new())) ||
            aa_instr_plan_refine_ids(plan, origin, ids, n, &err)) {
            free(ids);
            rc = plan ? cli_fail(&err) : EXIT_ENV;
            goto done;
        }
        free(ids);
        if (!quiet)
            fprintf(stderr, "autoanalyzer instrument: refining %zu region%s from the findings of "
                            "stored execution %lld ('%s')\n",
                    n, n == 1 ? "" : "s", eid, from_space);
    }
    if (modes_s && aa_instrument_parse_modes(modes_s, &o.modes, &err)) {
        rc = cli_usage_error("instrument", "%s", err.msg);
        goto done;
    }
    if (!have_dashdash || compdb) {
        aa_err e2;
        if (aa_instrument_compdb_flags(file, compdb, &ndb, &dbflags, &e2) == 0) {
            flags = dbflags;
            nflags = ndb;
        } else if (compdb) {
            rc = cli_fail(&e2);
            goto done;
        }
    }
    o.filter = filter;
    o.plan = plan;
    o.diag = quiet ? NULL : stderr;
    o.verbose = verbose;
    o.warn_unmatched = 1;
    if (!compiler || !*compiler)
        compiler = "cc";
    o.compiler = strcmp(compiler, "none") ? compiler : NULL;
    /* the MPI include flags, as the wrapper finds them: from the MPI
     * compiler named (--compiler, $CC, or first after --), else from
     * mpicc when installed; after the user's flags */
    {
        const char *mc = o.compiler && aa_wrap_is_mpi_compiler(o.compiler) ? o.compiler
                         : nflags > 0 && flags[0][0] != '-' && aa_wrap_is_mpi_compiler(flags[0])
                             ? flags[0]
                             : "mpicc";
        if (aa_wrap_mpi_compile_flags(mc, &nmpi, &mpiflags, &err) == AA_OK && nmpi > 0 &&
            (allflags = calloc((size_t)(nflags + nmpi + 1), sizeof *allflags)) != NULL) {
            for (int i = 0; i < nflags; i++)
                allflags[i] = flags[i];
            for (int i = 0; i < nmpi; i++)
                allflags[nflags + i] = mpiflags[i];
            flags = allflags;
            nflags += nmpi;
        }
    }
    rc = aa_instrument_file(file, nflags, (const char *const *)flags, &o, &res, &err);
    if (rc) {
        rc = cli_fail(&err);
        goto done;
    }
    {
        char *mapbuf = NULL;
        if (!map && out && strcmp(out, "-")) {
            aa_buf b;
            aa_buf_init(&b);
            aa_buf_printf(&b, "%s.regions.xml", out);
            map = mapbuf = aa_buf_detach(&b);
        }
        if (map && aa_regionmap_write(res.map, map, &err))
            rc = cli_fail(&err);
        else if (cli_write_output(out ? out : "-", &res.source, &err))
            rc = cli_fail(&err);
        free(mapbuf);
    }
    aa_instrument_result_free(&res);
done:
    aa_instr_filter_free(filter);
    aa_instr_plan_free(plan);
    aa_instrument_free_args(ndb, dbflags);
    aa_wrap_free_argv(nmpi, mpiflags);
    free(allflags);
    return rc;
}
