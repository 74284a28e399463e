/*
 * tests/unit/test_collect.c -- collect/: merging per-rank files through the
 * API: values survive the merge exactly (also when ranks list metrics in
 * different orders or lack some), threads and attributes move along,
 * region conflicts and rank-count mismatches are errors naming both files,
 * the missing-rank report and its range formatting.
 */
#include "collect/aa_collect.h"
#include "tests/tap.h"
#include "tests/unit/test_profile_util.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[256];

static void write_rank(aa_experiment *e, int rank)
{
    char path[512];
    aa_err err;
    snprintf(path, sizeof path, "%s/rank-%d.xml", dir, rank);
    if (aa_experiment_write(e, path, &err))
        diag("write %s: %s", path, err.msg);
}

static aa_experiment *rank_exp(const char *id, int nprocs, int rank)
{
    return tpu_build(id, nprocs, (const int[]){rank}, 1, 2, 6, 12);
}

static void clean(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dir);
    if (system(cmd) != 0)
        diag("rm failed");
}

int main(void)
{
    aa_experiment *parts[4], *out = NULL, *e;
    aa_collect_report rep;
    aa_err err;
    aa_buf b;
    int r, rc;
    size_t i;

    snprintf(dir, sizeof dir, "%s/aa-collect-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return 1;

    aa_buf_init(&b);
    aa_collect_format_ranks(&b, (const int[]){0, 1, 2, 5, 7, 8}, 6);
    is_str(b.data, "0-2, 5, 7-8", "rank ranges");
    aa_buf_free(&b);

    /* 4 ranks; rank 2 lists its metrics in another order and lacks one */
    for (r = 0; r < 4; r++) {
        parts[r] = rank_exp("run", 4, r);
        if (r == 2) {
            aa_experiment *x = parts[r], *y = aa_experiment_new();
            aa_process *p = &x->processes[0], *q;
            size_t k, t, n;
            int idx[16];
            y->id = strdup(x->id);
            y->program = strdup(x->program);
            y->nprocs = x->nprocs;
            for (k = x->nmetrics; k-- > 0;)
                if (strcmp(x->metrics[k].name, "cpu") != 0)
                    aa_experiment_add_metric(y, x->metrics[k].name, x->metrics[k].unit);
            for (k = 0; k < x->nregions; k++)
                aa_experiment_add_region(y, &x->regions[k]);
            q = aa_experiment_add_process(y, 2);
            for (k = 0; k < x->nmetrics; k++)
                idx[k] = aa_experiment_metric_index(y, x->metrics[k].name);
            for (t = 0; t < p->nthreads; t++) {
                aa_thread *th = aa_process_add_thread(q, p->threads[t].id);
                for (n = 0; n < p->threads[t].nnodes; n++) {
                    long j = aa_thread_add_node(y, th, p->threads[t].nodes[n].region, p->threads[t].nodes[n].parent);
                    th->nodes[j].flags = p->threads[t].nodes[n].flags;
                    for (k = 0; k < x->nmetrics; k++)
                        if (idx[k] >= 0)
                            aa_node_values(y, th, (size_t)j)[idx[k]] = aa_node_values(x, &p->threads[t], n)[k];
                }
            }
            parts[r] = y;
            aa_experiment_free(x);
        }
        write_rank(parts[r], r);
    }
    rc = aa_collect_dir(dir, &out, &rep, &err);
    if (!ok(rc == AA_OK && out, "4 ranks merged"))
        diag("%s", err.msg);
    if (out) {
        is_int(out->nprocesses, 4, "4 processes");
        is_int(rep.nfiles, 4, "4 files reported");
        is_int(rep.nmissing, 0, "nothing missing");
        is_int(out->nmetrics, parts[0]->nmetrics, "metric union");
        ok(aa_process_metric_unavailable(aa_experiment_process(out, 2), "cpu"), "rank 2: cpu unavailable");
        ok(!aa_process_metric_unavailable(aa_experiment_process(out, 1), "cpu"), "rank 1: cpu available");
        for (r = 0; r < 4; r++) {
            const aa_process *p = aa_experiment_process(out, r), *q = &parts[r]->processes[0];
            int same = p && p->nthreads == q->nthreads;
            size_t t, n, k;
            for (t = 0; same && t < p->nthreads; t++) {
                same = p->threads[t].nnodes == q->threads[t].nnodes;
                for (n = 0; same && n < p->threads[t].nnodes; n++)
                    for (k = 0; k < out->nmetrics; k++) {
                        int j = aa_experiment_metric_index(parts[r], out->metrics[k].name);
                        double a = aa_node_values(out, &p->threads[t], n)[k];
                        double c = j < 0 ? NAN : aa_node_values(parts[r], &q->threads[t], n)[j];
                        if (isnan(a) != isnan(c) || (!isnan(a) && a != c))
                            same = 0;
                    }
            }
            ok(same, "rank %d: values and threads exact after merge", r);
        }
        is_str(aa_experiment_attr(out, "command"), "mpirun -np 4 ./solver --size=100", "environment kept");
        aa_buf_init(&b);
        ok(aa_experiment_write_buf(out, &b, &err) == AA_OK, "merged experiment writes");
        aa_buf_free(&b);
    }
    aa_experiment_free(out);
    out = NULL;
    aa_collect_report_free(&rep);

    /* missing ranks are reported, not an error */
    unlink(strcat(strcpy((char[512]){0}, dir), "/rank-1.xml"));
    unlink(strcat(strcpy((char[512]){0}, dir), "/rank-3.xml"));
    rc = aa_collect_dir(dir, &out, &rep, &err);
    ok(rc == AA_OK && rep.nmissing == 2 && rep.missing[0] == 1 && rep.missing[1] == 3,
       "ranks 1 and 3 reported missing");
    aa_experiment_free(out);
    out = NULL;
    aa_collect_report_free(&rep);

    /* region with the same id but different details */
    e = rank_exp("run", 4, 1);
    free(e->regions[1].name);
    e->regions[1].name = strdup("other");
    write_rank(e, 1);
    aa_experiment_free(e);
    rc = aa_collect_dir(dir, &out, &rep, &err);
    ok(rc == AA_EINPUT && out == NULL, "conflicting region rejected");
    ok(strstr(err.msg, "rank-1.xml: region") && strstr(err.msg, "in ") && strstr(err.msg, "rank-0.xml"),
       "message names both files: %s", err.msg);
    aa_collect_report_free(&rep);

    /* nprocs mismatch */
    e = rank_exp("run", 5, 1);
    write_rank(e, 1);
    aa_experiment_free(e);
    rc = aa_collect_dir(dir, &out, NULL, &err);
    ok(rc == AA_EINPUT && strstr(err.msg, "nprocs 5 differs from 4"), "nprocs mismatch: %s", err.msg);

    clean();
    rc = aa_collect_dir(dir, &out, NULL, &err);
    ok(rc == AA_EINPUT && strstr(err.msg, "no profiles here"), "empty directory: %s", err.msg);

    for (i = 0; i < 4; i++)
        aa_experiment_free(parts[i]);
    rmdir(dir);
    return tap_done();
}
