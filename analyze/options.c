/*
 * analyze/options.c -- the analysis options: their defaults, and the table
 * of numeric thresholds (aa_analyze_tunables) that every command running
 * the analysis accepts as `--set NAME=VALUE`.  Each threshold carries its
 * justification: the diagnosis suite's figures on both sides (what it
 * catches, what it falsely flags; bench/diagnosis.md).
 */
#include "analyze/aa_analyze.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define T(name, field, def, lo, hi, unit, why) \
    {name, offsetof(aa_analyze_options, field), def, lo, hi, unit, why}

static const aa_analyze_tunable tunables[] = {
    T("noise_factor", noise_factor, 1.5, 1.0, 100.0, "x noise",
      "OPTICS eps of a level: this multiple of the distance the measured noise of balanced "
      "regions gives there -- small, so that groups a few noise deviations apart are cut; "
      "separation_t then decides which cuts are differences.  With separation_t 5 on 260 "
      "suite runs: 1: right partitions 208, innermost CCCRs 46/80, cases with a false CCCR "
      "29; 1.5: 207, 45, 30 (bench/diagnosis.md, sixth step).  OPTICS alone needed 5: "
      "202, 37, 25"),
    T("noise_quantile", noise_quantile, 0.5, 0.0, 1.0, "quantile over the regions",
      "the run's relative noise is this quantile of the regions' relative spreads (each "
      "region's median gap between its sorted process values): the median reads a program "
      "whose processes differ in most regions as noisy (miniAMR without load balancing: "
      "92-120%).  0.25 against 0.5, right partitions and cases with a false CCCR: N8b 60 / 65, "
      "11 / 6; N9c 69 / 69, 4 / 4; N10 66 / 67, 2 / 1; innermost CCCRs the same; it finds "
      "miniamr-lb0's stencil_calc, 0.5 does not in that run (bench/diagnosis.md, "
      "sixteenth step)"),
    T("noise_max", noise_max, 0.2, 0.0, 1e6, "of the metric",
      "the spread between processes is the noise only up to this relative spread: beyond "
      "it the processes do different work.  Measured on balanced work, over 1,535 suite "
      "analyses (16-core VM, N8b-N22): median 0.3-1.8%, largest 10.3%; real applications' "
      "balanced cases at most 9% (AMR, PIC, XSBench); above it: a program of one or two "
      "regions whose work grows with the rank (54%: its own imbalance read as the noise), "
      "miniAMR without load balancing 92-120%, pic-geometric 51% in one run "
      "(bench/diagnosis.md, twenty-second step); 0: no bound"),
    T("noise_visit_cap", noise_visit_cap, 4.0, 0.0, 1e6, "x visit spread",
      "the spread between processes is the noise only up to this multiple of the spread the "
      "processes' own visits give (median over processes and regions of sqrt(cpu_sq - "
      "cpu^2/visits) / cpu; one region at least; 0: no cap): beyond it the processes do "
      "different work.  Ratio between the two on 200 suite runs with cpu_sq (N8, N9c, N10): "
      "median 0.85, largest 3.18; real applications: AMR, XSBench 0.71-1.17, miniAMR with "
      "load balancing 7.3, without 51; the cap holds in regions every process visited twice "
      "or more, a region visited once keeps the spread between processes (bench/diagnosis.md, "
      "seventeenth step)"),
    T("one_visit_k", one_visit_k, 1.0, 0.0, 1e6, "x one visit's spread",
      "a region some process visited once (a set-up loop) averages nothing: its noise is at "
      "least this times how much one visit of the program's regions varies (median over "
      "processes and regions of sqrt(visits) x sqrt(cpu_sq - cpu^2/visits) / cpu, one region "
      "at least), in each region at most its spread between processes times the square root "
      "of its median visits (work that changes from visit to visit alike on every process is "
      "no noise between them); 0 turns it off.  The suite's set-up loops (visited once, the same work on "
      "every process): their spread between processes over the run's noise on the 16-core "
      "VM (333 runs) median 1.0, 90% 2.3, largest 6.7 -- over one visit's noise median 0.52, "
      "90% 1.4, largest 4.9; on the 2-core VM (N16-N19) largest 4.6 and 1.6.  16-core VM, "
      "432 runs, cluster / no false CCCR / cases with a false CCCR: off 369 / 403 / 23; 0.5 "
      "374 / 408 / 19; 1 380 / 416 / 11; 2 382 / 417 / 10; on the 2-core VM's 864 runs 1 "
      "and 2 gain one run (0697) and lose none (with the cap by the spread between processes: "
      "0697 back as before, nothing else changed on either machine); real applications "
      "unchanged (251 of 288); "
      "miniAMR's visits vary by 34-56% (adaptive work), so a one-visit difference there must "
      "be large to count (bench/diagnosis.md, twenty-first step)"),
    T("separation_t", separation_t, 6.0, 0.0, 1e6, "standard errors",
      "two clusters of a level differ when their means are this many standard errors apart "
      "(each component on its own within-cluster spread, at least the noise model's spread "
      "of one process; for several components the chi-square quantile with the same tail; "
      "and by at least the resolution); the least separated are merged first.  Right "
      "partitions, innermost CCCRs, cases with a false CCCR on 260 runs without cpu_sq / "
      "144 runs with it, first version (along the line joining the means): off (OPTICS "
      "alone at noise_factor 5): 202, 37/80, 25 / 119, 23/43, 7; 4: 204, 47, 36 / -; 5: "
      "207, 45, 30 / 122, 28, 8; 6: 207, 43, 27 / 122, 26, 7; 8: - / 62, 11, 3 of the "
      "first 72 (bench/diagnosis.md, sixth step); each component on its own spread, 6: "
      "210, 43, 26 / 127, 26, 3 (eighth step)"),
    T("resolution", resolution_s, 0.002, 0.0, 1e6, "s",
      "smallest CPU-time difference per process that is a difference at all: CPU "
      "time is interpolated between clock reads 100 us apart.  Right partitions, "
      "innermost CCCRs, cases with a false CCCR on the 288 runs N1-N4: 2 ms: 262, 63/87, "
      "10; 1 ms: 259, 62/87, 11; 0.5 ms: 256, 60/87, 10 (bench/diagnosis.md, eleventh "
      "step)"),
    T("disparity_min_share", disparity_min_share, 0.2, 0.0, 1.0, "of the run",
      "a hotspot (disparity CCR) holds at least this share of the run in its own "
      "code (self time)"),
    T("spike_z", spike_z, 3.0, 0.0, 1e6, "standard errors",
      "an imbalance carried by a few visits is no imbalance: the slow processes' excess "
      "in a region must exceed this many standard errors of the spread of their visits "
      "beyond the processes' typical spread (cpu_sq; a single 10-ms spike in one visit "
      "gives a ratio near 1, the same extra work in every visit a ratio that grows with "
      "the square root of the visits); inactive without cpu_sq"),
    T("placement_z", placement_z, 3.0, 0.0, 1e6, "spreads",
      "processes that shared CPUs and split along them (each CPU's processes in one "
      "cluster): the split is the CPUs' speed, not work, when the region's log ratio slow / "
      "others is within this many spreads (1.4826 MAD over the program's regions of 1% or "
      "more, with the ratio's standard error) of the median ratio over those regions; 0 "
      "turns it off.  The 504 suite runs N8b-N14: of the 15 imbalances that followed the "
      "CPUs, the 8 true ones stood 4.6-176 spreads out, the 4 false ones of a uniform speed "
      "-0.4 to 0.5 (seeds 753, 791, 792, 883: all fixed), 3 false ones of I/O loops 3.5-8.0 "
      "(kept); every other check unchanged; N15 and N16 (unseen) fix 909 and 987 "
      "(analyze/placement.c; bench/diagnosis.md, nineteenth step)"),
    T("speed_z", speed_z, 5.0, 0.0, 1e6, "spreads",
      "an imbalance is the processes' speed, not the region's work, when its slow processes "
      "are slower in every region of 1% or more (the median of each process's log excess "
      "over the regions) and what that leaves of the region's log ratio is within this many "
      "spreads (the processes' mean 1.4826 MAD of their excess from region to region, times "
      "sqrt(1/slow + 1/others)); 0 turns it off.  Suite runs (bench/diagnosis.md, twentieth "
      "step): true imbalances 6.6 or more (135 on the 2-core VM, 118 on the 16-core one), "
      "false ones of a uniform speed -1.1 to 5.0 on the 16-core VM: 223 of its 261 false "
      "imbalances dropped, 0 true ones (analyze/speed.c).  The same test makes two "
      "clusters of a partition of three or more one when their speeds differ by this many "
      "spreads or more and every region of the level differs by that speed alone: on the "
      "16-core VM right partitions 380 -> 387 of 432 (an injected imbalance's slow ranks "
      "split by one's slower CPU), none lost; the 2-core VM's 864 runs and the real "
      "applications unchanged (twenty-first step)"),
    T("speed_max", speed_max, 1.5, 1.0, 1e6, "times",
      "... and the slow processes' speed is at most this many times the others': a CPU's "
      "pace differed by up to 1.31 times over a run on the 16-core VM (1.03 on the 2-core "
      "one); more work in every region beyond it is work (miniAMR lb_opt 0: rank 0 1.7-2.8 "
      "times slower everywhere, kept)"),
    T("pace_k", pace_k, 2.0, 0.0, 1e6, "x the pace's log ratio",
      "with fewer than 5 regions of 1% or more (no speed from the program's own code), an "
      "imbalance is the CPUs' pace the runtime measured (a fixed spin timed at its CPU "
      "samples) when its log ratio slow / others is at most this many times the slow "
      "processes' log pace ratio; 0 turns it off.  The CPU time of work moves more than a "
      "short spin's middle half does.  Suite and probe runs with the pace recorded (QUICK, "
      "N32, edge probes; bench/pace_calibration.py, bench/diagnosis.md thirty-third step): of "
      "35 balanced regions split 5% or more along the two CPUs with the slower CPU measured "
      "slower, 12 within 1x, 19 within 1.5x, 25 within 2x, 26 within 2.5x, 28 within 4x (the "
      "rest: seeds 2904, 2920, 2922, paces 3% apart and regions 18-31%, and 2932, pace 12.5% "
      "and regions 30-102%); of 45 injected imbalances, 2 within 2x (2% and "
      "5% uneven decompositions, 3% in their region against paces 7-9% apart, found by "
      "neither analysis), 3 within 2.5x (seed 2902: 22% more work on ranks 9% slower), 4 "
      "within 3x (analyze/pace.c).  The same bound makes one of two clusters apart only by "
      "their CPUs' pace (every component within pace_k times, the most different one 1/pace_k "
      "times or more; edge probes cxx_virtual and fnptr_dispatch, thirty-fourth step)"),
    T("pace_z", pace_z, 3.0, 0.0, 1e6, "standard errors",
      "... and the slow processes' pace is slower by this many standard errors or more (each "
      "process's 1.4826 MAD / sqrt(samples) of its spins, relative): the paces alike explain "
      "nothing.  The balanced splits of 5% or more explained at pace_k 2 had 4.9-122; three "
      "of 6-9% at 2.2-2.9 were not"),
    T("placement_min_share", placement_min_share, 0.75, 0.0, 1.0, "of a process's time",
      "a process ran on one CPU when that CPU had at least this share of the runtime's "
      "samples of it; a process the scheduler moved more has no placement (its pace is a "
      "mix of the CPUs') and may fall in either cluster.  The 648 suite runs N8b-N16, "
      "cluster / cases with a false CCCR: 0.5 and 0.6 610 / 19; 0.75 and 0.9 611 / 18 "
      "(N16 seed 987: rank 3, 67% on the slower CPU, clustered with the faster one); 1 610 "
      "/ 19; the test off 605 / 24 (bench/diagnosis.md, nineteenth step)"),
    T("own_share", own_share, 0.5, 0.0, 1.01, "of the region's difference",
      "a CCR whose CCR descendants are findings is still an innermost one (a CCCR beside "
      "them) when at least this share of its slow processes' excess is in its own code "
      "(its value less its children's) and that excess is a finding by itself "
      "(finding_min_share); 1.01 turns it off.  The 144 suite runs N5+N6 (injected work in "
      "leaf regions): no analysis changes at 0.2 and 0.5, one at 0 (seed 299's main, 1.8 ms "
      "of set-up and own code beside predict's 7 ms); the 16 real-application runs: 0.2 and "
      "0.5 add pic-geometric's initialisation loop (95% of its 63-162 ms in its own code, "
      "hidden by a 2-ms CCR below it) and nothing else, 0 adds 4 more in miniAMR and AMR "
      "(docs/analysis.md, own code)"),
    T("io_out", io_out, 1.0, 0.0, 1.0, "switch",
      "1: the CPU (wall) time inside I/O calls (io_cpu, io_time) is left out of the "
      "process metric as the time inside MPI is; 0: kept in.  The 72 runs of N8b "
      "analysed both ways: the same totals (2 false CCCRs of I/O loops removed, 2 others "
      "added; bench/diagnosis.md, fifteenth step); with cpu_fix_k the I/O loops' "
      "remaining CPU outside the calls is judged against its resolution (sixteenth step)"),
    T("speed_normalize", speed_normalize, 1.0, 0.0, 1.0, "switch",
      "1: each process's CPU time outside the calls is divided by its speed (its median "
      "excess over the processes' mean across the program's regions of finding_min_share "
      "or more, 5 at least, within speed_max) before the processes are compared; the noise "
      "is measured on the values as they were.  Re-analysis, 16-core VM 432 runs: right "
      "partitions 411 -> 417, innermost CCCRs 119 -> 127 of 135, runs without a false CCCR "
      "429 -> 428; 2-core VM 1,152 runs: 16 checks gained, 1 lost (bench/diagnosis.md, "
      "twenty-second step); 0: off"),
    T("blocked_work", blocked_work, 1.0, 0.0, 1.0, "switch",
      "1: the wall time a process spends off the CPU outside MPI and I/O calls beyond its "
      "run delay's share (sleeping, waiting for a device, a lock, a page) counts as its "
      "work, as CPU time does: a rank that waits for a device while the others wait for it "
      "in MPI is the late one; the run delay (time runnable but not running) is taken from "
      "the regions in proportion to their CPU time first (at most their off-CPU time), then "
      "from the smallest off-CPU times left: the edge probes slow_start and device_wait lost "
      "4 false imbalances of 90 checks, the suites (N31, N32 kept and fresh, both dynamic "
      "sets, QUICK) and the real applications no check (bench/diagnosis.md, thirty-third "
      "step); 0: CPU time alone"),
    T("idle_bound", idle_bound, 1.0, 0.0, 1.0, "switch",
      "1: an imbalance's impact is at most what the other processes are idle over the "
      "whole program (the latest process's whole-program time less their work), or the slow "
      "processes' excess on the whole program when that is more, whenever the difference is "
      "beyond the whole program's noise (eps): phases heavy on opposite ranks with no "
      "synchronization between them cost nothing, however imbalanced each is.  Edge probe, "
      "2 ranks, phase_a 2x on rank 0, phase_b 2x on rank 1: imbalances 35% and 28% of the "
      "run -> 8% (rank 0 7% slower over the program) and none; 16-core VM 432 runs and "
      "2-core VM N25-N29: no finding bounded (bench/diagnosis.md, twenty-fifth step); 0: off"),
    T("io_work", io_work, 1.0, 0.0, 1.0, "switch",
      "1: the I/O calls of each process, at their region's mean cost a call over all "
      "processes, are put back into the process metric (io_out 1): a process that writes "
      "alone while the others wait in MPI is the late one, processes doing the same I/O get "
      "the same time whatever the disk did to each call; 0: I/O is left out altogether"),
    T("cpu_fix_k", cpu_fix_k, 0.2, 0.0, 1e6, "x cpu_fix",
      "the CPU time of a region outside its MPI and I/O calls is known only to within what "
      "the runtime's real clock reads misplaced between the calls and the code around "
      "them (cpu_fix: the sum of the misplaced parts, large in loops of many short calls "
      "on a loaded node); a component's standard deviation in the significance test "
      "includes this multiple of the region's mean cpu_fix (a sum of n misplacements of "
      "random sign is off by about the sum over sqrt(n)).  N9 (72 runs), right partitions, "
      "innermost CCCRs, cases with a false CCCR: 0: 64, 19/22, 9; 0.02: 65, 19, 8; 0.05: "
      "66, 19, 7; 0.1, 0.2, 0.3: 69, 19, 4; 0.5-4: 68, 18, 4 (a late sender's 2.4 ms "
      "beside 1.1 ms of cpu_fix lost).  N10 (72 other runs) at 0.2 against 0: 67 / 59, "
      "18/23 / 18/23, 1 / 9 (bench/diagnosis.md, sixteenth step)"),
    T("mpi_call_res", mpi_call_res_s, 1e-6, 0.0, 1.0, "s a call",
      "the CPU time of a region outside its MPI calls is what is left between them; in a "
      "loop of many short calls that is the loop's and the runtime's own few tens of ns a "
      "call, and it differs between processes by as much: a component's standard deviation "
      "in the significance test includes this times the region's mean MPI calls.  Suite "
      "CCCRs in regions with MPI calls, their impact per call: false ones (16-core VM, "
      "collective loops of 31,800-275,320 MPI_Allreduce: CPU outside them 61-69 ns a call) "
      "25-77 ns, on the 2-core VM without cpu_fix (N8b 0461, 4,280 calls) 680 ns; true ones "
      "(late senders, 40-100 calls) 127 us and more (bench/diagnosis.md, twenty-first and "
      "twenty-fourth steps).  0.1 us left 0461 to the spike test, which no longer reads MPI "
      "polling as a spike; 1 us: nothing else changes on 2,853 kept runs; 0 turns it off"),
    T("preempted_share", preempted_share, 0.2, 0.0, 1.0, "of a process's wall time",
      "a process is preempted when this share of its wall time is neither CPU time nor "
      "waiting in MPI or I/O (the machine ran other processes; the profile-guided "
      "filter's test); its regions are then judged for hotspots on CPU + I/O time, as "
      "its waits in MPI are waits for processes the machine did not run.  On 260 suite "
      "runs (median process 52% unexplained) 0.1 and 0.2: right disparity CCCRs "
      "139/140, causes 80/80, cases with a false CCCR 25; 0.3: 138, 79, 31; 0.5: 129, "
      "70, 37; off (1): 129, 70, 41"),
    T("finding_min_share", finding_min_share, 0.01, 0.0, 1.0, "of the program",
      "no imbalance whose impact is below this share of the program's CPU time outside "
      "MPI (the metric it is measured on).  Right partitions, innermost CCCRs, cases with "
      "a false CCCR on 144 runs with cpu_sq / 260 without: 0.02: 127, 26/43, 3 / 210, "
      "43/80, 26; 0.01: 133, 32, 3 / 216, 56, 33 (the 7 more are one-process spikes of "
      "~5 ms that the cpu_sq test removes); 0.005: 133, 32, 3 / - (bench/diagnosis.md, "
      "eighth step).  A dynamic imbalance's cost is judged on the same scale (of the wall "
      "time, which preemption stretches, 30 dynamic runs found 18; of this, 20, no false "
      "finding; twenty-ninth step)"),
    T("mpi_call_cpu", mpi_call_cpu_s, 1e-3, 0.0, 1e6, "s per call",
      "a preempted process's MPI calls count on the CPU time they can need -- this per "
      "call plus their bytes at mpi_copy_rate -- as beyond it they poll for a partner "
      "the machine does not run (a halo exchange of 512-byte messages: 2.5-5 ms of CPU "
      "per call at load 20, a scheduler's time slice; 2,040 small allreduces: 0.1-0.2 "
      "ms each).  Cases with a false CCCR on N1-N4 (288 runs), every other check "
      "unchanged unless said: off 10; 10 us 12, and 2 collective-heavy hotspots lost "
      "(disparity 156/158); 0.3 ms 9; 1 ms 8; 3 ms 10 (bench/diagnosis.md, twelfth "
      "step).  On a dedicated node no process is preempted and this does nothing"),
    T("mpi_copy_rate", mpi_copy_rate, 1e9, 1.0, 1e15, "bytes/s",
      "see mpi_call_cpu: 1 GB/s, below any node's memory copy rate"),
    T("master_min_share", master_min_share, 0.5, 0.0, 1.0, "of rank 0's time",
      "rank 0 is a master when at least this share of its time (wall, without MPI "
      "set-up) is in regions no other process runs and this share of the others' time "
      "in regions it does not run; a rank 0 that prints results or skips a loop stays in"),
    T("traffic_min_rate", traffic_min_rate, 1e7, 0.0, 1e15, "bytes/s",
      "\"much MPI traffic\" needs a region's MPI calls to move at least this many bytes "
      "per second of their time (1% of a 1 GB/s network); on the suite the 13 "
      "message-volume regions move 1e8-4.9e9 B/s, the 23 other MPI regions holding "
      "over 5% of a run at most 3.6e6 B/s (waiting, latency)"),
    T("disk_min_rate", disk_min_rate, 1e7, 0.0, 1e15, "bytes/s",
      "\"heavy disk I/O\" needs a region's I/O calls to move at least this many bytes per "
      "second of their time (1% of a 1 GB/s disk, as traffic_min_rate for MPI); the suite's "
      "write and fwrite regions move 3.7e9-1.9e10 B/s, its fprintf regions 3.1e7-1.0e8 "
      "(a write a line), the ranks' printed reports 1.1e5-1.8e6 and miniAMR's refine on "
      "rank 0 1e6 (497 bytes in 20 calls: latency, not volume; bench/diagnosis.md, "
      "twenty-second step)"),
    T("traffic_min_call", traffic_min_call, 1024.0, 0.0, 1e15, "bytes per call",
      "... and at least this many bytes per MPI call (sent and received): below it a call "
      "costs its latency, not its bytes -- the message size at which a 1 GB/s copy takes "
      "as long as a 1-us call (Hockney's n1/2).  The suite's message-volume regions move "
      "16 kB and more per call, its allreduce loops 16 B: at 2 ranks (0.4 us per allreduce) "
      "661,000 of them moved 12 MB/s and were named \"much MPI traffic\" (seed 812, three "
      "repetitions; bench/diagnosis.md, eighteenth step)"),
    T("dynamic_corr", dynamic_corr, 0.0, 0.0, 1.0, "correlation",
      "a dynamic imbalance (analyze/dynamic.c): within each process, from step to step, "
      "the wait at the step's synchronizations correlates with the step's own work (CPU "
      "time outside MPI and I/O since the previous step) at most -this; 0: any negative "
      "correlation, its significance (dynamic_z) and slope decide.  A bulk-synchronous "
      "step gives -1 without noise (t = max w - w); on the 2-core VM, 4-16 ranks, the "
      "preemption's waits leave the injected cases -0.23 to -0.99 and the noise axis's "
      "jitter -0.24 to -0.57: no value parts them.  Suite seeds 2001-2407 (30 injected "
      "dynamic imbalances) / 2000-2071 (72 cases, none false at any setting): 0.5 finds "
      "9/30 and 1/6, 0 finds 13/30 and 3/6 at dynamic_z 3 (bench/diagnosis.md, "
      "twenty-third step)"),
    T("dynamic_slope", dynamic_slope, 0.5, 0.0, 1e6, "of the work",
      "... and the wait falls by at least this share of the work a process lacks (the "
      "within-process regression slope of the wait on the work at most -this; 1 in "
      "theory, 1.0-2.0 on the 2-core VM's injected cases where the heavy rank's "
      "preemption stretches its step, 4-5.5 at 16 ranks; 0.83-0.98 for the noise axis's "
      "jitter); and more than half of the processes show it in their own steps (a load "
      "that moves visits every process: a master/worker case's 0.50 is not one)"),
    T("dynamic_z", dynamic_z, 2.0, 0.0, 1e6, "standard errors",
      "... and the correlation is this many standard errors from 0 (Fisher's z, "
      "atanh(-rho) sqrt(steps - processes - 3)).  With dynamic_corr 0, seeds 2001-2407 / "
      "2000-2071: z 3 finds 13/30 and 3/6, 2.5 17/30 and 3/6, 2 20/30 and 3/6; false "
      "findings on the 66 other cases at 2: none -- three dynamic findings where the "
      "noise axis's jitter (5%, 4-6 ranks) itself makes the ranks wait 2.7-3.3% of the "
      "run, found at 1.9-2.2%.  The misses are 1-5% of the run at 6-16 ranks on 2 cores "
      "(bench/diagnosis.md, twenty-third step)"),
    T("dynamic_noise_k", dynamic_noise_k, 1.0, 0.0, 1e6, "x one visit's noise",
      "... and where processes shared a CPU (with each other, or preempted by other programs) "
      "its cost counts only the steps' work spread "
      "beyond what the machine makes a constant step vary by: this times how much one visit "
      "of the program's regions varies (noise.one_visit, relative: the CPU time of the same "
      "work on a CPU shared with other processes, its caches refilled after each switch) "
      "times the step's mean work, subtracted as variances (on cores of their own one "
      "visit's spread is the program's: a load that moves varies every region it is in).  "
      "The balanced sample on 4 ranks of 2 cores, 55 runs: one visit varies by 8-36%, the "
      "steps' work by 11-15%, 2-6% of the run by the bound where half of the processes' own "
      "steps showed the pattern (3 runs; the CI's loop.t once reported one), none with the "
      "noise taken off; the suite's injected cases (one visit 0.2-5.5%): no finding changed "
      "on the 30 dynamic runs, N26b, N27, N30 (bench/diagnosis.md, twenty-seventh step).  "
      "Beside make check no two processes kept a CPU: 8 of 200 balanced runs false, 1.4-2.8%, "
      "none with the preempted ones counted; 30 new dynamic runs 18/30 and the rotating sample "
      "100/100 either way (twenty-ninth step); 0 turns it off"),
};

#undef T

void aa_analyze_options_init(aa_analyze_options *o)
{
    size_t i;
    memset(o, 0, sizeof *o);
    o->proc_metric = AA_PMETRIC_CPU;
    o->region_metric = AA_RMETRIC_CRNM;
    o->auto_exclude_master = 1;
    o->optics_keep = AA_OPTICS_KEEP_DEFAULT;
    for (i = 0; i < sizeof tunables / sizeof tunables[0]; i++)
        *(double *)((char *)o + tunables[i].offset) = tunables[i].def;
}

const aa_analyze_tunable *aa_analyze_tunables(size_t *n)
{
    if (n)
        *n = sizeof tunables / sizeof tunables[0];
    return tunables;
}

const aa_analyze_tunable *aa_analyze_tunable_find(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof tunables / sizeof tunables[0]; i++)
        if (strcmp(tunables[i].name, name) == 0)
            return &tunables[i];
    return NULL;
}

int aa_analyze_options_set(aa_analyze_options *o, const char *assignment, aa_err *err)
{
    const char *eq = strchr(assignment, '=');
    char name[64];
    const aa_analyze_tunable *t;
    double v;
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name)
        return aa_err_set(err, AA_EUSAGE, "--set '%s': expected NAME=VALUE", assignment);
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = 0;
    if (!(t = aa_analyze_tunable_find(name)))
        return aa_err_set(err, AA_EUSAGE, "--set: unknown setting '%s' (`autoanalyzer "
                          "analyze --list-settings` lists them)", name);
    if (aa_parse_double(eq + 1, &v) || !isfinite(v))
        return aa_err_set(err, AA_EUSAGE, "--set %s: '%s' is not a number", name, eq + 1);
    if (v < t->min || v > t->max)
        return aa_err_set(err, AA_EUSAGE, "--set %s: %g is outside [%g, %g]", name, v, t->min,
                          t->max);
    *(double *)((char *)o + t->offset) = v;
    return AA_OK;
}
