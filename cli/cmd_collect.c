/*
 * cli/cmd_collect.c -- `autoanalyzer collect`: merges the per-rank profiles
 * of an output directory into one experiment file (collect/aa_collect.h),
 * writes it atomically, and reports what was merged (profiles, region map
 * files, the maps embedded in the program) and which ranks are missing.
 */
#include "cli/cli.h"
#include "collect/aa_collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_collect_summary[] = "merge per-rank profiles into one experiment file";
const char cmd_collect_usage[] =
    "usage: autoanalyzer collect DIR [-o EXP.xml] [--allow-missing] [--no-program-maps] [--json]\n"
    "       autoanalyzer collect EXP.xml [-o OUT.xml] [--allow-missing] [--no-program-maps]\n"
    "                                    [--json]\n"
    "\n"
    "Merges the profiles of one run into a single experiment file.  DIR is an\n"
    "output directory of a measured run (AUTOANALYZER_OUTPUT, or\n"
    "./autoanalyzer-<program>-<date>-<time>/): it holds rank-<N>.xml,\n"
    "rank-<N>.xml.gz or binary rank-<N>.aab files (AUTOANALYZER_COLLECT=files),\n"
    "or an experiment.xml or experiment.aab (AUTOANALYZER_COLLECT=mpi; the\n"
    "binary form is AUTOANALYZER_FORMAT's), and the instrumenter's\n"
    "region maps (*.regions.xml), which are merged in for region details.  A single\n"
    "experiment or profile file is accepted too (it is checked, and the region\n"
    "maps next to it are merged in).  The region maps embedded in the program\n"
    "by `autoanalyzer cc` are merged in as well, when the executable the run\n"
    "recorded still exists unchanged (same size and mtime); otherwise a note\n"
    "on stderr says why they were left out.\n"
    "\n"
    "All files must come from the same run (same experiment id and process\n"
    "count).  The expected ranks are 0..nprocs-1, nprocs as recorded in the\n"
    "files; missing ranks are listed on stderr.  When stderr is a terminal a\n"
    "progress bar there counts the rank files merged, and a line then says that\n"
    "the output is being written; otherwise nothing is shown.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write the merged experiment (default\n"
    "                     DIR/experiment.xml, or experiment.xml next to the\n"
    "                     input file); written atomically, '-' for stdout; a\n"
    "                     name ending in .aab gets the binary form (see convert)\n"
    "  --allow-missing    write the experiment even if ranks are missing\n"
    "                     (default: exit 3 without writing anything)\n"
    "  --no-program-maps  do not read the region maps embedded in the program\n"
    "  --threads N        threads reading rank files and compressing a binary\n"
    "                     output (1-16; default: one per CPU, at most 16); the\n"
    "                     result is the same for any N\n"
    "  --json             print the report as JSON on stdout: {\"output\",\n"
    "                     \"nprocs\", \"ranks\", \"missing\":[...], \"files\":[...],\n"
    "                     \"region_maps\":[...], \"program_maps\":{\"file\",\"maps\"}\n"
    "                     or null, \"program_maps_note\", \"regions\",\n"
    "                     \"metrics\":[...]}\n"
    "  -h, --help         show this help\n"
    "\n"
    "exit status: 0 merged; 2 usage error; 3 bad input (a malformed file, files\n"
    "of different runs, the same rank in two files, missing ranks without\n"
    "--allow-missing); 4 environment (cannot write the output).\n"
    "The file format is described in docs/profile-format.md.\n";

static void print_json(const char *output, const aa_collect_report *rep, const aa_experiment *e)
{
    aa_buf b;
    aa_json j;
    size_t i;
    aa_buf_init(&b);
    aa_json_init(&j, &b, 1);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "output");
    if (output)
        aa_json_str(&j, output);
    else
        aa_json_null(&j);
    aa_json_key(&j, "experiment");
    aa_json_str(&j, e->id);
    aa_json_key(&j, "program");
    aa_json_str(&j, e->program);
    aa_json_key(&j, "nprocs");
    aa_json_int(&j, rep->nprocs);
    aa_json_key(&j, "ranks");
    aa_json_int(&j, (long long)rep->nranks);
    aa_json_key(&j, "missing");
    aa_json_arr_begin(&j);
    for (i = 0; i < rep->nmissing; i++)
        aa_json_int(&j, rep->missing[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "files");
    aa_json_arr_begin(&j);
    for (i = 0; i < rep->nfiles; i++)
        aa_json_str(&j, rep->files[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "region_maps");
    aa_json_arr_begin(&j);
    for (i = 0; i < rep->nmaps; i++)
        aa_json_str(&j, rep->maps[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "program_maps");
    if (rep->program) {
        aa_json_obj_begin(&j);
        aa_json_key(&j, "file");
        aa_json_str(&j, rep->program);
        aa_json_key(&j, "maps");
        aa_json_int(&j, (long long)rep->nprogram_maps);
        aa_json_obj_end(&j);
    } else {
        aa_json_null(&j);
    }
    aa_json_key(&j, "program_maps_note");
    if (rep->program_note)
        aa_json_str(&j, rep->program_note);
    else
        aa_json_null(&j);
    aa_json_key(&j, "regions");
    aa_json_int(&j, (long long)rep->nregions);
    aa_json_key(&j, "metrics");
    aa_json_arr_begin(&j);
    for (i = 0; i < e->nmetrics; i++)
        aa_json_str(&j, e->metrics[i].name);
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);
    aa_buf_putc(&b, '\n');
    fwrite(b.data, 1, b.len, stdout);
    aa_buf_free(&b);
}

/* The progress bar on a terminal: redrawn when the shown share changes,
 * erased at the end so the summary line stays clean. */
typedef struct progress_bar {
    int shown; /* per mille last drawn, -1 before the first */
} progress_bar;

static void draw_progress(void *ctx, size_t done, size_t total)
{
    progress_bar *pb = ctx;
    int pm = total ? (int)(done * 1000 / total) : 1000, fill = pm * 30 / 1000;
    if (pm == pb->shown)
        return;
    pb->shown = pm;
    if (done == total) {
        fprintf(stderr, "\r%70s\r", "");
        return;
    }
    fprintf(stderr, "\rcollect: [%.*s%*s] %3d%% %zu/%zu files", fill,
            "##############################", 30 - fill, "", pm / 10, done, total);
    fflush(stderr);
}

int cmd_collect(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    int allow_missing = 0, json = 0, i, rc;
    aa_collect_options copts;
    char *defout = NULL;
    aa_collect_report rep;
    aa_experiment *e = NULL;
    aa_err err;
    struct stat st;

    memset(&copts, 0, sizeof copts);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return cli_usage_error("collect", "%s needs a file name", a);
            output = argv[i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            output = a + 9;
        } else if (strcmp(a, "--allow-missing") == 0) {
            allow_missing = 1;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--no-program-maps") == 0) {
            copts.no_program_maps = 1;
        } else if (strcmp(a, "--threads") == 0) {
            long n;
            if (++i >= argc || aa_parse_long(argv[i], &n) || n < 1 || n > 16)
                return cli_usage_error("collect", "--threads needs a number from 1 to 16");
            copts.threads = (int)n;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && !input) {
            input = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("collect", "unknown option '%s'", a);
        } else if (!input) {
            input = a;
        } else {
            return cli_usage_error("collect", "unexpected argument '%s' (one DIR or file)", a);
        }
    }
    if (!input)
        return cli_usage_error("collect", "missing DIR (an output directory or experiment file)");
    if (output && !output[0])
        return cli_usage_error("collect", "empty output file name");
    if (json && output && strcmp(output, "-") == 0)
        return cli_usage_error("collect", "--json and -o - cannot both use stdout");

    progress_bar pb = {-1};
    if (isatty(STDERR_FILENO)) { /* quiet when stderr is a file or a pipe */
        copts.progress = draw_progress;
        copts.progress_ctx = &pb;
    }
    rc = aa_collect_dir_opts(input, &copts, &e, &rep, &err);
    if (pb.shown >= 0 && pb.shown < 1000) /* stopped part way: erase the bar */
        fprintf(stderr, "\r%70s\r", "");
    if (rc) {
        aa_collect_report_free(&rep);
        return cli_fail(&err);
    }

    if (!output) {
        size_t n = strlen(input) + 32;
        defout = malloc(n);
        if (!defout) {
            aa_experiment_free(e);
            aa_collect_report_free(&rep);
            fprintf(stderr, "autoanalyzer collect: out of memory\n");
            return EXIT_ENV;
        }
        if (stat(input, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(defout, n, "%s%sexperiment.xml", input,
                     input[strlen(input) - 1] == '/' ? "" : "/");
        } else {
            const char *slash = strrchr(input, '/');
            if (slash)
                snprintf(defout, n, "%.*s/experiment.xml", (int)(slash - input), input);
            else
                snprintf(defout, n, "experiment.xml");
        }
        output = defout;
    }

    if (rep.nmissing) {
        aa_buf ranks;
        aa_buf_init(&ranks);
        aa_collect_format_ranks(&ranks, rep.missing, rep.nmissing);
        fprintf(stderr, "autoanalyzer collect: %s: %zu of %d ranks missing: %s\n", input,
                rep.nmissing, rep.nprocs, ranks.data);
        aa_buf_free(&ranks);
        if (!allow_missing) {
            fprintf(stderr, "autoanalyzer collect: nothing written (use --allow-missing to "
                            "write the experiment anyway)\n");
            aa_experiment_free(e);
            aa_collect_report_free(&rep);
            free(defout);
            return EXIT_INPUT;
        }
    }

    if (strcmp(output, "-") == 0) {
        aa_buf b;
        aa_buf_init(&b);
        rc = aa_experiment_write_buf(e, &b, &err);
        if (rc == AA_OK)
            rc = cli_write_output("-", &b, &err);
        aa_buf_free(&b);
    } else {
        size_t ol = strlen(output);
        const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
        if (pb.shown >= 0) { /* a terminal, and files were merged: say what takes the time now */
            fprintf(stderr, "\rcollect: writing %.40s ...", base);
            fflush(stderr);
        }
        rc = ol > 4 && strcmp(output + ol - 4, ".aab") == 0
                 ? aa_experiment_write_binary_threads(e, output, copts.threads, &err)
                 : aa_experiment_write(e, output, &err);
        if (pb.shown >= 0)
            fprintf(stderr, "\r%70s\r", "");
    }
    if (rc) {
        aa_experiment_free(e);
        aa_collect_report_free(&rep);
        free(defout);
        return cli_fail(&err);
    }

    if (rep.program_note)
        fprintf(stderr, "autoanalyzer collect: note: %s\n", rep.program_note);
    if (json) {
        print_json(output, &rep, e);
    } else {
        FILE *fp = strcmp(output, "-") == 0 ? stderr : stdout;
        fprintf(fp, "collect: %s %zu %s (%zu of %d ranks), %zu region map%s, %zu regions, "
                    "%zu metrics -> %s\n",
                rep.single_file ? "checked" : "merged", rep.nfiles,
                rep.nfiles == 1 ? "file" : "files", rep.nranks, rep.nprocs, rep.nmaps,
                rep.nmaps == 1 ? "" : "s", rep.nregions, rep.nmetrics, output);
        if (rep.program)
            fprintf(fp, "collect: %zu region map%s embedded in %s\n", rep.nprogram_maps,
                    rep.nprogram_maps == 1 ? "" : "s", rep.program);
    }
    aa_experiment_free(e);
    aa_collect_report_free(&rep);
    free(defout);
    return EXIT_OK;
}
