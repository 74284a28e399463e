/*
 * tests/unit/test_profile_write.c -- the XML writer of profile/: exact
 * output for a small experiment (format, escaping, NAN as "-", flags,
 * optional attributes left out), determinism, refusal of invalid models,
 * region maps, and the rounding of values to whole ns.
 */
#include "profile/aa_profile.h"
#include "tests/tap.h"

#include <math.h>
#include <stdlib.h>

static aa_experiment *small(void)
{
    aa_experiment *e = aa_experiment_new();
    aa_region r0 = {0, AA_KIND_PROGRAM, "program", "", "", 0, 0, 0, 0, 0};
    aa_region r12 = {12, AA_KIND_LOOP, "loop@42", "solve", "solver.c", 42, 5, 60, 6, 3};
    aa_region r3 = {3, AA_KIND_FUNCTION, "solve", "solve", "solver.c", 40, 1, 70, 1, 0};
    aa_process *p;
    aa_thread *t;
    long n;
    e->id = strdup("exp-1");
    e->program = strdup("a<b>&\"c'");
    e->nprocs = 2;
    aa_experiment_set_attr(e, "command", "mpirun -np 2 ./a \"x\"\tq\nz");
    aa_experiment_add_metric(e, "visits", "count");
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cycles", "count");
    aa_experiment_add_region(e, &r12);
    aa_experiment_add_region(e, &r0);
    aa_experiment_add_region(e, &r3);
    p = aa_experiment_add_process(e, 1);
    free(p->host);
    p->host = strdup("node\x01" "1\xff");
    p->pid = 4242;
    aa_process_add_unavailable(p, "cycles");
    t = aa_process_add_thread(p, 0);
    n = aa_thread_add_node(e, t, 0, -1);
    aa_node_values(e, t, (size_t)n)[0] = 1;
    aa_node_values(e, t, (size_t)n)[1] = 2.5;
    n = aa_thread_add_node(e, t, 12, 0);
    aa_node_values(e, t, (size_t)n)[0] = 1e20;
    aa_node_values(e, t, (size_t)n)[1] = 0.1;
    t->nodes[n].flags = AA_NODE_THROTTLED;
    aa_experiment_add_process(e, 0);
    return e;
}

static const char expected[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<experiment xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" id=\"exp-1\" "
    "program=\"a&lt;b&gt;&amp;&quot;c&apos;\" nprocs=\"2\">\n"
    "  <environment>\n"
    "    <attr name=\"command\">mpirun -np 2 ./a &quot;x&quot;&#9;q&#10;z</attr>\n"
    "  </environment>\n"
    "  <metrics>\n"
    "    <metric name=\"visits\" unit=\"count\"/>\n"
    "    <metric name=\"wall\" unit=\"s\"/>\n"
    "    <metric name=\"cycles\" unit=\"count\"/>\n"
    "  </metrics>\n"
    "  <regions>\n"
    "    <region id=\"0\" kind=\"program\" name=\"program\"/>\n"
    "    <region id=\"3\" kind=\"function\" name=\"solve\" function=\"solve\" file=\"solver.c\" "
    "line=\"40\" col=\"1\" end-line=\"70\" end-col=\"1\"/>\n"
    "    <region id=\"12\" kind=\"loop\" name=\"loop@42\" function=\"solve\" file=\"solver.c\" "
    "line=\"42\" col=\"5\" end-line=\"60\" end-col=\"6\" parent=\"3\"/>\n"
    "  </regions>\n"
    "  <process rank=\"0\"/>\n"
    "  <process rank=\"1\" host=\"node\xEF\xBF\xBD" "1\xEF\xBF\xBD\" pid=\"4242\" unavailable=\"cycles\">\n"
    "    <thread id=\"0\">\n"
    "      <node region=\"0\" parent=\"-1\" v=\"1 2.5 -\"/>\n"
    "      <node region=\"12\" parent=\"0\" v=\"1e+20 0.1 -\" flags=\"throttled\"/>\n"
    "    </thread>\n"
    "  </process>\n"
    "</experiment>\n";

int main(void)
{
    aa_experiment *e = small();
    aa_buf b, b2;
    aa_err err;
    aa_regionmap *m;
    aa_region ra = {7, AA_KIND_FUNCTION, "f", "f", "x.c", 3, 1, 9, 1, 0};
    aa_region rb = {2, AA_KIND_CALL, "MPI_Send@5", "f", "x.c", 5, 3, 5, 20, 7};

    aa_buf_init(&b);
    aa_buf_init(&b2);
    is_int(aa_experiment_write_buf(e, &b, &err), AA_OK, "small experiment written");
    is_str(b.data, expected, "exact text");
    is_int(aa_experiment_write_buf(e, &b2, &err), AA_OK, "written again");
    is_str(b2.data, b.data, "deterministic");

    /* a parent naming no region is not written (the reader would refuse it) */
    {
        aa_region r5 = {5, AA_KIND_LOOP, "loop@9", "solve", "solver.c", 9, 1, 9, 9, 77};
        aa_buf b3;
        aa_buf_init(&b3);
        aa_experiment_add_region(e, &r5);
        is_int(aa_experiment_write_buf(e, &b3, &err), AA_OK, "dangling parent: written");
        ok(b3.data && strstr(b3.data, "name=\"loop@9\" function=\"solve\" file=\"solver.c\" "
                                      "line=\"9\" col=\"1\" end-line=\"9\" end-col=\"9\"/>"),
           "without the parent that names no region");
        ok(b3.data && strstr(b3.data, "parent=\"3\""), "a parent that exists is kept");
        aa_buf_free(&b3);
    }

    /* invalid models are refused, nothing appended */
    aa_buf_reset(&b);
    aa_node_values(e, &e->processes[1].threads[0], 1)[1] = -1;
    is_int(aa_experiment_write_buf(e, &b, &err), AA_EUSAGE, "negative value refused");
    ok(strstr(err.msg, "bad wall value") != NULL, "message names the metric: %s", err.msg);
    aa_node_values(e, &e->processes[1].threads[0], 1)[1] = INFINITY;
    is_int(aa_experiment_write_buf(e, &b, &err), AA_EUSAGE, "infinite value refused");
    aa_node_values(e, &e->processes[1].threads[0], 1)[1] = 1;
    e->nprocs = 1;
    is_int(aa_experiment_write_buf(e, &b, &err), AA_EUSAGE, "rank >= nprocs refused");
    ok(strstr(err.msg, "rank 1") != NULL, "message: %s", err.msg);
    is_int(b.len, 0, "nothing appended on refusal");
    aa_experiment_free(e);

    /* times to whole ns (aa_values_whole): cpu_sq scaled with cpu's
     * rounding, so cpu^2 / visits <= cpu_sq <= cpu^2 still holds -- five
     * 9.92-ns visits: cpu 49.6 ns -> 50 ns */
    {
        aa_experiment *w = aa_experiment_new();
        double row[3] = {49.6e-9, 5 * 9.92e-9 * 9.92e-9, 5};
        aa_experiment_add_metric(w, "cpu", "s");
        aa_experiment_add_metric(w, "cpu_sq", "s2");
        aa_experiment_add_metric(w, "visits", "count");
        aa_values_whole(w, row);
        ok(row[0] == 50e-9 && row[1] * 5 >= row[0] * row[0] * (1 - 1e-12) &&
               row[1] <= row[0] * row[0],
           "whole ns: cpu %g, cpu_sq %g within [cpu^2/5, cpu^2]", row[0], row[1]);
        aa_experiment_free(w);
    }

    m = aa_regionmap_new("x.c");
    aa_regionmap_add_region(m, &ra);
    aa_regionmap_add_region(m, &rb);
    aa_buf_reset(&b);
    is_int(aa_regionmap_write_buf(m, &b, &err), AA_OK, "region map written");
    is_str(b.data,
           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<regionmap xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" source=\"x.c\">\n"
           "  <region id=\"2\" kind=\"call\" name=\"MPI_Send@5\" function=\"f\" file=\"x.c\" "
           "line=\"5\" col=\"3\" end-line=\"5\" end-col=\"20\" parent=\"7\"/>\n"
           "  <region id=\"7\" kind=\"function\" name=\"f\" function=\"f\" file=\"x.c\" "
           "line=\"3\" col=\"1\" end-line=\"9\" end-col=\"1\"/>\n"
           "</regionmap>\n",
           "region map text, sorted by id");
    aa_regionmap_free(m);
    aa_buf_free(&b);
    aa_buf_free(&b2);
    return tap_done();
}
