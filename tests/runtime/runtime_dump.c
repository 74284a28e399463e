/*
 * tests/runtime/runtime_dump.c -- reads a profile or experiment with the
 * profile reader (aa_experiment_read, libxml2, validating) and prints it as
 * lines the runtime's end-to-end tests (tests/e2e/runtime*.t) check with
 * awk/grep:
 *
 *   exp id=<id> program=<p> nprocs=<n> processes=<k>
 *   env <name>=<value>
 *   proc <rank> host=<h> pid=<pid> threads=<t> unavailable=<m,m,...>
 *   pattr <rank> <name>=<value>
 *   node <rank> <thread> <path> <metric>=<value> ... [throttled]
 *
 * <path> is the region names from the root down joined by '/', the root
 * being "ROOT".  NAN values print as "nan".  Exit status 3 when the file
 * does not read (message on stderr).
 */
#include "profile/aa_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void path_of(const aa_experiment *e, const aa_thread *t, int32_t i, aa_buf *out)
{
    const aa_region *r;
    if (t->nodes[i].parent < 0) {
        aa_buf_puts(out, "ROOT");
        return;
    }
    path_of(e, t, t->nodes[i].parent, out);
    r = aa_experiment_region(e, t->nodes[i].region);
    aa_buf_putc(out, '/');
    aa_buf_puts(out, r ? r->name : "?");
}

int main(int argc, char **argv)
{
    aa_experiment *e;
    aa_err err;
    size_t p, t, i, k;
    if (argc != 2) {
        fprintf(stderr, "usage: runtime_dump PROFILE.xml\n");
        return 2;
    }
    if (aa_experiment_read(argv[1], &e, &err) != AA_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 3;
    }
    printf("exp id=%s program=%s nprocs=%d processes=%zu\n", e->id, e->program, e->nprocs,
           e->nprocesses);
    for (i = 0; i < e->nattrs; i++)
        printf("env %s=%s\n", e->attrs[i].name, e->attrs[i].value);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        printf("proc %d host=%s pid=%ld threads=%zu unavailable=", pr->rank,
               pr->host ? pr->host : "", pr->pid, pr->nthreads);
        for (i = 0; i < pr->nunavailable; i++)
            printf("%s%s", i ? "," : "", pr->unavailable[i]);
        printf("\n");
        for (i = 0; i < pr->nattrs; i++)
            printf("pattr %d %s=%s\n", pr->rank, pr->attrs[i].name, pr->attrs[i].value);
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            for (i = 0; i < th->nnodes; i++) {
                aa_buf path;
                const double *v = aa_node_values(e, th, i);
                aa_buf_init(&path);
                path_of(e, th, (int32_t)i, &path);
                printf("node %d %d %s", pr->rank, th->id, path.data);
                aa_buf_free(&path);
                for (k = 0; k < e->nmetrics; k++) {
                    if (isnan(v[k]))
                        printf(" %s=nan", e->metrics[k].name);
                    else
                        printf(" %s=%.9g", e->metrics[k].name, v[k]);
                }
                if (th->nodes[i].flags & AA_NODE_THROTTLED)
                    printf(" throttled");
                printf("\n");
            }
        }
    }
    aa_experiment_free(e);
    return 0;
}
