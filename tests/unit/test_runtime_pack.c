/*
 * tests/unit/test_runtime_pack.c -- the runtime's binary profile packing
 * (runtime/pack.c, used to gather ranks' profiles to rank 0): round trip
 * of a one-process experiment with two threads, NaN values, flags,
 * attributes and unavailable metrics into an experiment whose metric order
 * differs; merging several ranks; duplicate ranks and every truncation of
 * the data rejected without a crash; rank 0's merge (header, missing ranks,
 * hosts) and the batches it receives.  pack.c is compiled into this test
 * (it needs only common/ and profile/).
 */
#include "runtime/pack.c"

#include "tests/tap.h"

static aa_experiment *one_rank(int rank)
{
    aa_experiment *e = aa_experiment_new();
    aa_region r = {0};
    aa_process *p;
    aa_thread *t;
    e->id = strdup("x");
    e->program = strdup("prog");
    e->nprocs = 4;
    aa_experiment_add_metric(e, "visits", "count");
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cycles", "count");
    r.id = 0; r.kind = AA_KIND_PROGRAM; r.name = "prog"; r.function = ""; r.file = "";
    aa_experiment_add_region(e, &r);
    r.id = 7; r.kind = AA_KIND_LOOP; r.name = "loop@7"; r.function = "main"; r.file = "a.c";
    r.line = 7; r.end_line = 9; r.parent = 0;
    aa_experiment_add_region(e, &r);
    p = aa_experiment_add_process(e, rank);
    free(p->host);
    p->host = strdup("h1");
    p->pid = 1234 + rank;
    aa_process_add_unavailable(p, "cycles");
    aa_process_set_attr(p, "mismatched_exits", "2");
    t = aa_process_add_thread(p, 0);
    aa_thread_add_node(e, t, 0, -1);
    aa_thread_add_node(e, t, 7, 0);
    t->nodes[1].flags = AA_NODE_THROTTLED;
    for (int i = 0; i < 2; i++) {
        double *v = aa_node_values(e, t, (size_t)i);
        v[0] = 1 + i;
        v[1] = 0.5 * (rank + 1) / (i + 1);
        v[2] = NAN;
    }
    t = aa_process_add_thread(p, 3);
    aa_thread_add_node(e, t, 0, -1);
    aa_node_values(e, t, 0)[0] = 1;
    aa_node_values(e, t, 0)[1] = 0.25;
    return e;
}

int main(void)
{
    aa_experiment *src = one_rank(2), *dst;
    aa_buf b;
    aa_err err;
    int mw, mc;
    const aa_process *p;
    aa_buf_init(&b);
    is_int(aa_rt_pack(src, &b), 0, "pack one process");
    dst = aa_experiment_new();
    dst->nprocs = 4;
    aa_experiment_add_metric(dst, "cycles", "count"); /* different order */
    is_int(aa_rt_unpack_merge(dst, b.data, b.len, &err), AA_OK, "unpack into another experiment");
    is_int((int)dst->nmetrics, 3, "metrics merged by name");
    mw = aa_experiment_metric_index(dst, "wall");
    mc = aa_experiment_metric_index(dst, "cycles");
    p = aa_experiment_process(dst, 2);
    ok(p != NULL, "rank 2 present");
    if (p) {
        is_str(p->host, "h1", "host");
        is_int((int)p->pid, 1236, "pid");
        ok(aa_process_metric_unavailable(p, "cycles"), "unavailable list");
        is_int((int)p->nattrs, 1, "attributes");
        is_int((int)p->nthreads, 2, "two threads");
        is_int(p->threads[1].id, 3, "thread id kept");
        is_int((int)p->threads[0].nnodes, 2, "nodes");
        is_int((int)p->threads[0].nodes[1].region, 7, "node region");
        is_int(p->threads[0].nodes[1].parent, 0, "node parent");
        ok(p->threads[0].nodes[1].flags & AA_NODE_THROTTLED, "throttled flag");
        is_double(aa_node_values(dst, &p->threads[0], 1)[mw], 0.75, 0, "value exact");
        ok(isnan(aa_node_values(dst, &p->threads[0], 1)[mc]), "NaN kept");
    }
    ok(aa_experiment_region(dst, 7) && aa_experiment_region(dst, 7)->end_line == 9,
       "regions merged");
    is_int(aa_experiment_check(dst, &err), AA_OK, "merged experiment is consistent");
    is_int(aa_rt_unpack_merge(dst, b.data, b.len, &err), AA_EINPUT, "duplicate rank rejected");
    {
        aa_experiment *r1 = one_rank(1);
        aa_buf b1;
        aa_buf_init(&b1);
        aa_rt_pack(r1, &b1);
        is_int(aa_rt_unpack_merge(dst, b1.data, b1.len, &err), AA_OK, "second rank merged");
        is_int((int)dst->nprocesses, 2, "two processes, sorted");
        is_int(dst->processes[0].rank, 1, "sorted by rank");
        aa_buf_free(&b1);
        aa_experiment_free(r1);
    }
    {
        int bad = 0;
        for (size_t n = 0; n < b.len; n++) {
            aa_experiment *e = aa_experiment_new();
            e->nprocs = 4;
            if (aa_rt_unpack_merge(e, b.data, n, &err) == AA_OK)
                bad++;
            aa_experiment_free(e);
        }
        is_int(bad, 0, "every truncation rejected");
    }
    is_int(aa_rt_unpack_merge(dst, "JUNK", 4, &err), AA_EINPUT, "bad header rejected");
    {
        /* rank 0's merge: rank 0's header, every pack, a failed one missing */
        aa_rt_merge m;
        aa_experiment *own = one_rank(0), *r3 = one_rank(3);
        aa_buf b3;
        aa_buf_init(&b3);
        aa_rt_pack(r3, &b3);
        aa_experiment_set_attr(own, "collect", "mpi");
        is_int(aa_rt_merge_begin(&m, own, 4), 0, "merge begins");
        is_int(m.e->nprocs, 4, "nprocs of the job");
        is_str(aa_experiment_attr(m.e, "collect"), "mpi", "rank 0's environment");
        aa_rt_merge_pack(&m, 0, b.data, b.len); /* holds rank 2: merged as rank 2 */
        aa_rt_merge_pack(&m, 1, NULL, 0);       /* sent nothing */
        aa_rt_merge_pack(&m, 2, "JUNK", 4);     /* malformed */
        aa_rt_merge_pack(&m, 3, b3.data, b3.len);
        is_int(aa_rt_merge_finish(&m), 0, "merge finishes");
        is_int((int)m.e->nprocesses, 2, "two packs merged");
        is_str(aa_experiment_attr(m.e, "missing_ranks"), "1 2", "empty and malformed packs missing");
        is_str(aa_experiment_attr(m.e, "hosts"), "h1", "hosts: the distinct hosts");
        is_int(aa_experiment_check(m.e, &err), AA_OK, "merged experiment is consistent");
        aa_rt_merge_free(&m);
        aa_buf_free(&b3);
        aa_experiment_free(r3);
        aa_experiment_free(own);
    }
    {
        /* batches: bytes and ranks bounded, at least one rank each, every
         * rank in exactly one */
        int lens[10] = {5, 5, 5, 100, 0, 0, 3, 3, 3, 3}, from, to, n = 0, seen = 0, okb = 1;
        is_int(aa_rt_batch_end(lens, 10, 0, 15, 100), 3, "batch: up to the byte bound");
        is_int(aa_rt_batch_end(lens, 10, 3, 15, 100), 4, "batch: one pack above the bound alone");
        is_int(aa_rt_batch_end(lens, 10, 4, 15, 3), 7, "batch: at most max_ranks ranks");
        is_int(aa_rt_batch_end(lens, 10, 9, 15, 100), 10, "batch: the last rank");
        for (from = 0; from < 10; from = to, n++) {
            to = aa_rt_batch_end(lens, 10, from, 10, 4);
            okb &= to > from && to - from <= 4;
            seen += to - from;
        }
        ok(okb && seen == 10, "batches cover every rank once (%d batches)", n);
    }
    aa_buf_free(&b);
    aa_experiment_free(src);
    aa_experiment_free(dst);
    return tap_done();
}
