#!/usr/bin/env bash
# tests/report/gen_experiment.sh -- writes a small synthetic experiment XML
# (SPEC §4.3 profile format) for the report tests: NP ranks, a program with
# hostile region/file names (<script>, quotes, ampersands) and, when SLOW is
# set, rank NP-1 spending SLOW times longer in the inner loop; SCALE
# multiplies every time (the same run, slower).
#   gen_experiment.sh OUT.xml [NP] [SLOW] [ID] [SCALE]
set -eu
out=$1; np=${2:-4}; slow=${3:-1}; id=${4:-exp-test}; scale=${5:-1}
awk -v np="$np" -v slow="$slow" -v id="$id" -v scale="$scale" 'BEGIN {
  print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
  printf "<experiment xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" id=\"%s\" program=\"evil&lt;prog&gt;\" nprocs=\"%d\">\n", id, np
  print "  <environment>"
  print "    <attr name=\"command\">mpirun -np 4 ./a.out &lt;script&gt;alert(&quot;env&quot;)&lt;/script&gt;</attr>"
  print "  </environment>"
  print "  <metrics>"
  print "    <metric name=\"visits\" unit=\"count\"/>"
  print "    <metric name=\"wall\" unit=\"s\"/>"
  print "    <metric name=\"cpu\" unit=\"s\"/>"
  print "    <metric name=\"mpi_wall\" unit=\"s\"/>"
  print "    <metric name=\"mpi_cpu\" unit=\"s\"/>"
  print "    <metric name=\"mpi_bytes_sent\" unit=\"bytes\"/>"
  print "  </metrics>"
  print "  <regions>"
  print "    <region id=\"0\" kind=\"program\" name=\"program\"/>"
  print "    <region id=\"1\" kind=\"function\" name=\"main\" function=\"main\" file=\"x&quot;y&apos;.c\" line=\"10\"/>"
  print "    <region id=\"2\" kind=\"function\" name=\"solve&lt;T&gt;\" function=\"solve&lt;T&gt;\" file=\"x&quot;y&apos;.c\" line=\"20\" parent=\"1\"/>"
  print "    <region id=\"3\" kind=\"loop\" name=\"&lt;script&gt;alert(1)&lt;/script&gt;\" function=\"solve&lt;T&gt;\" file=\"x&quot;y&apos;.c\" line=\"22\" parent=\"2\"/>"
  print "    <region id=\"4\" kind=\"call\" name=\"MPI_Allreduce@30\" function=\"main\" file=\"x&quot;y&apos;.c\" line=\"30\" parent=\"1\"/>"
  print "    <region id=\"5\" kind=\"loop\" name=\"loop@40 &amp; &quot;more&quot;\" function=\"main\" file=\"x&quot;y&apos;.c\" line=\"40\" parent=\"1\"/>"
  print "  </regions>"
  for (r = 0; r < np; r++) {
    f = (r == np - 1) ? slow : 1
    loop = (2.0 * f + r * 0.001) * scale
    other = (0.5 + r * 0.0005) * scale
    mpiw = (0.1 + (slow > 1 ? (r == np - 1 ? 0.01 : 2.0 * (slow - 1)) : 0.01)) * scale
    solve = loop + 0.05
    mainw = solve + mpiw + other + 0.01
    printf "  <process rank=\"%d\" host=\"node&amp;%d\" pid=\"%d\">\n    <thread id=\"0\">\n", r, r, 100 + r
    printf "      <node region=\"0\" parent=\"-1\" v=\"1 %.6f %.6f %.6f %.6f %d\"/>\n", mainw + 0.01, mainw, mpiw, mpiw, 4096
    printf "      <node region=\"1\" parent=\"0\" v=\"1 %.6f %.6f %.6f %.6f %d\"/>\n", mainw, mainw - 0.01, mpiw, mpiw, 4096
    printf "      <node region=\"2\" parent=\"1\" v=\"10 %.6f %.6f 0 0 0\"/>\n", solve, solve
    printf "      <node region=\"3\" parent=\"2\" v=\"1000 %.6f %.6f 0 0 0\"/>\n", loop, loop
    printf "      <node region=\"4\" parent=\"1\" v=\"10 %.6f %.6f %.6f %.6f %d\"/>\n", mpiw, mpiw, mpiw, mpiw, 4096
    printf "      <node region=\"5\" parent=\"1\" v=\"100 %.6f %.6f 0 0 0\"/>\n", other, other
    print "    </thread>\n  </process>"
  }
  print "</experiment>"
}' > "$out"
