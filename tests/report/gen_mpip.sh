#!/usr/bin/env bash
# tests/report/gen_mpip.sh -- writes an mpiP report as mpiP 3.5 lays it out
# (doc/UserGuide.md of LLNL/mpiP, "mpiP Output": header, MPI Time,
# Callsites with a stack depth of 2 (MPIP=-k2), the aggregate sections,
# Callsite Time statistics and Callsite Message Sent statistics, each with
# its "*" aggregate lines), for the import tests: NP tasks on two hosts;
# rank r spends (r+1) x FACTOR ms per MPI_Recv; with RENUMBER the callsite
# ids are numbered the other way round (mpiP's ids are not stable between
# reports), the code being the same.
#   gen_mpip.sh OUT NP [FACTOR] [RENUMBER]
set -eu
out=$1; np=$2; factor=${3:-1}; renumber=${4:-0}
awk -v np="$np" -v factor="$factor" -v renumber="$renumber" '
function rule() { print "---------------------------------------------------------------------------" }
function section(t) { print ""; rule(); s = "@--- " t " "; while (length(s) < 75) s = s "-"; print s; rule() }
BEGIN {
  # sites: 1 Send in exchange, 2 Recv in exchange, 3 Allreduce in main
  id[1] = renumber ? 3 : 1; id[2] = renumber ? 2 : 2; id[3] = renumber ? 1 : 3
  print "@ mpiP"
  print "@ Command : /home/user/heat/./heat -n 100"
  print "@ Version                  : 3.5.0"
  print "@ MPIP Build date          : Oct 20 2020, 18:22:06"
  print "@ Start time               : 2026 01 01 00:00:00"
  print "@ Stop time                : 2026 01 01 00:00:10"
  print "@ Timer Used               : PMPI_Wtime"
  print "@ MPIP env var             : -k2"
  print "@ Collector Rank           : 0"
  print "@ Collector PID            : 4242"
  print "@ Final Output Dir         : ."
  print "@ Report generation        : Single collector task"
  for (r = 0; r < np; r++)
    printf "@ MPI Task Assignment      : %d node%d\n", r, r % 2
  section("MPI Time (seconds)")
  print "Task    AppTime    MPITime     MPI%"
  for (r = 0; r < np; r++) {
    send[r] = 100 * 0.5; recv[r] = 100 * (r + 1) * factor; allr[r] = 10 * 2
    mpi[r] = (send[r] + recv[r] + allr[r]) / 1000; app[r] = 10
    printf "%4d %10.4g %10.4g %8.2f\n", r, app[r], mpi[r], 100 * mpi[r] / app[r]
    tapp += app[r]; tmpi += mpi[r]
  }
  printf "%4s %10.4g %10.4g %8.2f\n", "*", tapp, tmpi, 100 * tmpi / tapp
  section("Callsites: 3")
  print " ID Lev File/Address             Line Parent_Funct                                 MPI_Call"
  for (k = 1; k <= 3; k++) for (s = 1; s <= 3; s++) if (id[s] == k) {
    if (s == 1) { printf "%3d %3d %-24s %5d %-44s %s\n", k, 0, "heat.c", 57, "exchange", "Send"
                  printf "%3d %3d %-24s %5d %s\n", k, 1, "heat.c", 120, "main" }
    if (s == 2) { printf "%3d %3d %-24s %5d %-44s %s\n", k, 0, "heat.c", 63, "exchange", "Recv"
                  printf "%3d %3d %-24s %5d %s\n", k, 1, "heat.c", 120, "main" }
    if (s == 3) { printf "%3d %3d %-24s %5d %-44s %s\n", k, 0, "heat.c", 130, "main", "Allreduce"
                  printf "%3d %3d %-24s %5s %s\n", k, 1, "0x2b1c3f4a5d6e", "", "__libc_start_main" }
  }
  section("Aggregate Time (top twenty, descending, milliseconds)")
  print "Call                 Site       Time    App%    MPI%      Count    COV"
  printf "%-20s %4d %10.4g %7.2f %7.2f %10d %6.2f\n", "Recv", id[2], 1000, 1.0, 50.0, 100 * np, 0.5
  section("Aggregate Sent Message Size (top twenty, descending, bytes)")
  print "Call                 Site      Count      Total       Avrg  Sent%"
  printf "%-20s %4d %10d %10.3g %10.3g %6.2f\n", "Send", id[1], 100 * np, 409600 * np, 4096, 100
  section("Callsite Time statistics (all, milliseconds): " 3 * (np + 1))
  print "Name              Site Rank  Count      Max     Mean      Min   App%   MPI%"
  for (s = 1; s <= 3; s++) {
    name = s == 1 ? "Send" : s == 2 ? "Recv" : "Allreduce"
    for (r = 0; r < np; r++) {
      cnt = s == 3 ? 10 : 100
      tot = s == 1 ? send[r] : s == 2 ? recv[r] : allr[r]
      mean = tot / cnt
      printf "%-17s %4d %4d %6d %8.3g %8.3g %8.3g %6.2f %6.2f\n", name, id[s], r, cnt, mean, mean, mean, 100 * tot / 1000 / app[r], 100 * tot / 1000 / mpi[r]
      acnt[s] += cnt
    }
    printf "%-17s %4d %4s %6d %8.3g %8.3g %8.3g %6.2f %6.2f\n", name, id[s], "*", acnt[s], 1, 1, 1, 1, 1
  }
  section("Callsite Message Sent statistics (all, sent bytes)")
  print "Name              Site Rank   Count       Max      Mean       Min       Sum"
  for (r = 0; r < np; r++)
    printf "%-17s %4d %4d %7d %9.4g %9.4g %9.4g %9.4g\n", "Send", id[1], r, 100, 4096, 4096, 4096, 409600
  printf "%-17s %4d %4s %7d %9.4g %9.4g %9.4g %9.4g\n", "Send", id[1], "*", 100 * np, 4096, 4096, 4096, 409600 * np
  print ""
  s = "@--- End of Report "; while (length(s) < 75) s = s "-"; print s
}' > "$out"
