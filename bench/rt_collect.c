/*
 * bench/rt_collect.c -- rank 0's part of AUTOANALYZER_COLLECT=mpi at
 * MPI_Finalize, without MPI: the packs every rank would send
 * (runtime/pack.c) are made once from a synthetic experiment and stored in
 * a file; `merge` then does what rank 0 does with them -- merge every pack
 * into one experiment (aa_rt_merge_*, the runtime's code) and write it as
 * XML or binary into a file -- and prints its CPU time (user + sys) and
 * peak memory (the process's maximum resident set, getrusage).  Two ways
 * to hold the packs: --all, one buffer of every rank's pack (the MPI_Gatherv
 * of the runtime before batching), or --batch (the default), one batch of
 * at most AA_RT_BATCH_BYTES / AA_RT_BATCH_RANKS at a time, as
 * runtime/mpi.c receives them now.
 *
 *   rt_collect gen P R PACKS          synthetic slow-group run, P ranks x R
 *                                     regions, whole ns (as the runtime)
 *   rt_collect merge PACKS OUT [--all]   OUT ending in .aab: binary, else XML
 *
 * bench/rt_collect.sh runs both for a range of P; docs/runtime.md and
 * bench/rt_collect.md have the figures.
 */
#include "analyze/aa_analyze.h"
#include "runtime/rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

/* One process of e as a one-process experiment, packed into b. */
static int pack_rank(const aa_experiment *e, size_t p, aa_buf *b)
{
    const aa_process *src = &e->processes[p];
    aa_experiment *o = aa_experiment_new();
    aa_process *dst;
    size_t t, i;
    int rc;
    o->id = aa_strdup(e->id);
    o->program = aa_strdup(e->program);
    o->nprocs = e->nprocs;
    for (i = 0; i < e->nmetrics; i++)
        aa_experiment_add_metric(o, e->metrics[i].name, e->metrics[i].unit);
    for (i = 0; i < e->nregions; i++)
        aa_experiment_add_region(o, &e->regions[i]);
    dst = aa_experiment_add_process(o, src->rank);
    free(dst->host);
    dst->host = aa_strdup(src->host);
    dst->pid = src->pid;
    for (i = 0; i < src->nattrs; i++)
        aa_process_set_attr(dst, src->attrs[i].name, src->attrs[i].value);
    for (t = 0; t < src->nthreads; t++) {
        const aa_thread *st = &src->threads[t];
        aa_thread *dt = aa_process_add_thread(dst, st->id);
        for (i = 0; i < st->nnodes; i++) {
            long n = aa_thread_add_node(o, dt, st->nodes[i].region, st->nodes[i].parent);
            memcpy(aa_node_values(o, dt, (size_t)n), aa_node_values(e, st, i),
                   e->nmetrics * sizeof(double));
        }
    }
    rc = aa_rt_pack(o, b);
    aa_experiment_free(o);
    return rc;
}

static int gen(int nprocs, int nregions, const char *path)
{
    aa_synth_options o;
    aa_experiment *e;
    aa_err err;
    aa_buf b;
    FILE *f = fopen(path, "wb");
    int32_t n = nprocs;
    size_t p;
    if (!f) {
        perror(path);
        return 1;
    }
    aa_synth_options_init(&o);
    o.scenario = AA_SYNTH_SLOW_GROUP;
    o.nprocs = nprocs;
    o.nregions = (size_t)nregions;
    if (aa_synth_generate(&o, &e, NULL, NULL, &err)) {
        fprintf(stderr, "rt_collect: %s\n", err.msg);
        return 1;
    }
    aa_experiment_values_whole(e);
    aa_experiment_set_attr(e, "collect", "mpi");
    fwrite(&n, sizeof n, 1, f);
    aa_buf_init(&b);
    for (p = 0; p < e->nprocesses; p++) {
        uint32_t len;
        aa_buf_reset(&b);
        if (pack_rank(e, p, &b)) {
            fprintf(stderr, "rt_collect: cannot pack rank %zu\n", p);
            return 1;
        }
        len = (uint32_t)b.len;
        fwrite(&len, sizeof len, 1, f);
        fwrite(b.data, 1, b.len, f);
    }
    aa_buf_free(&b);
    aa_experiment_free(e);
    return fclose(f) != 0;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int merge(const char *packs, const char *out, int all)
{
    FILE *f = fopen(packs, "rb");
    int32_t nprocs;
    int *lens, from, to, r;
    long *offs;
    char *buf;
    size_t most = 1, total = 0, ol = strlen(out);
    aa_rt_merge m;
    aa_experiment *own;
    aa_err err;
    aa_buf w;
    double c0, c1;
    struct rusage ru;
    int binary = ol > 4 && strcmp(out + ol - 4, ".aab") == 0, rc;
    if (!f || fread(&nprocs, sizeof nprocs, 1, f) != 1 || nprocs < 1) {
        fprintf(stderr, "rt_collect: %s: cannot read\n", packs);
        return 1;
    }
    lens = calloc((size_t)nprocs, sizeof *lens);
    offs = calloc((size_t)nprocs, sizeof *offs);
    for (r = 0; r < nprocs; r++) { /* the gathered lengths (MPI_Gather) */
        uint32_t len;
        if (fread(&len, sizeof len, 1, f) != 1)
            return 1;
        lens[r] = (int)len;
        offs[r] = ftell(f);
        total += len;
        fseek(f, (long)len, SEEK_CUR);
    }
    c0 = cpu_seconds();
    /* rank 0's own profile: the header of the merged experiment */
    own = aa_experiment_new();
    own->id = aa_strdup("bench");
    own->program = aa_strdup("synth");
    own->nprocs = nprocs;
    aa_experiment_set_attr(own, "collect", "mpi");
    if (aa_rt_merge_begin(&m, own, nprocs))
        return 1;
    aa_experiment_free(own);
    if (all) {
        buf = malloc(total + 1);
        for (r = 0; r < nprocs; r++) {
            fseek(f, offs[r], SEEK_SET);
            if (fread(buf + (offs[r] - offs[0] - 4 * r), 1, (size_t)lens[r], f) != (size_t)lens[r])
                return 1;
        }
        for (r = 0; r < nprocs; r++)
            aa_rt_merge_pack(&m, r, buf + (offs[r] - offs[0] - 4 * r), (size_t)lens[r]);
    } else {
        for (from = 0; from < nprocs; from = to) {
            size_t bytes = 0;
            to = aa_rt_batch_end(lens, nprocs, from, AA_RT_BATCH_BYTES, AA_RT_BATCH_RANKS);
            for (r = from; r < to; r++)
                bytes += (size_t)lens[r];
            most = bytes > most ? bytes : most;
        }
        buf = malloc(most);
        for (from = 0; from < nprocs; from = to) {
            size_t off = 0;
            to = aa_rt_batch_end(lens, nprocs, from, AA_RT_BATCH_BYTES, AA_RT_BATCH_RANKS);
            fseek(f, offs[from], SEEK_SET);
            for (r = from; r < to; r++, off += (size_t)lens[r - 1]) {
                fseek(f, offs[r], SEEK_SET);
                if (fread(buf + off, 1, (size_t)lens[r], f) != (size_t)lens[r])
                    return 1;
            }
            for (r = from, off = 0; r < to; off += (size_t)lens[r], r++)
                aa_rt_merge_pack(&m, r, buf + off, (size_t)lens[r]);
        }
        free(buf); /* as runtime/mpi.c: the batch buffer goes before the write */
        buf = NULL;
    }
    fclose(f);
    c1 = cpu_seconds();
    aa_err_clear(&err);
    aa_buf_init(&w);
    if (aa_rt_merge_finish(&m) ||
        (binary ? aa_experiment_write_binary_buf(m.e, &w, &err)
                : aa_experiment_write_buf(m.e, &w, &err)) ||
        aa_write_file_atomic(out, w.data, w.len, &err)) {
        fprintf(stderr, "rt_collect: %s: %s\n", out, err.msg);
        return 1;
    }
    rc = m.missing.len != 0;
    getrusage(RUSAGE_SELF, &ru);
    printf("P %d packs %.1f MB (%s) -> %s %.1f MB: rank 0 CPU %.2f s (merge %.2f, write %.2f), "
           "peak memory %ld MB%s\n",
           nprocs, total / 1e6, all ? "all at once" : "batches", binary ? "binary" : "XML",
           w.len / 1e6, cpu_seconds() - c0, c1 - c0, cpu_seconds() - c1, ru.ru_maxrss / 1024,
           rc ? ", MISSING RANKS" : "");
    aa_buf_free(&w);
    aa_rt_merge_free(&m);
    free(buf);
    free(lens);
    free(offs);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "gen") == 0)
        return gen(atoi(argv[2]), atoi(argv[3]), argv[4]);
    if ((argc == 4 || (argc == 5 && strcmp(argv[4], "--all") == 0)) &&
        strcmp(argv[1], "merge") == 0)
        return merge(argv[2], argv[3], argc == 5);
    fprintf(stderr, "usage: rt_collect gen P R PACKS | rt_collect merge PACKS OUT[.aab] [--all]\n");
    return 2;
}
