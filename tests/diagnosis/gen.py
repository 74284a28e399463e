#!/usr/bin/env python3
"""tests/diagnosis/gen.py -- generator of the diagnosis validation suite
(bench/diagnosis.md): from one integer seed it writes a C MPI
mini-application with one injected, documented bottleneck (or none) and the
diagnosis the analysis should reach, expected.json.

  gen.py SEED OUTDIR          writes OUTDIR/prog.c, OUTDIR/kernel.h,
                              OUTDIR/expected.json
  gen.py --list FILE          prints "seed kind nprocs" for the seeds in FILE

Everything about a case -- kind, ranks, magnitude, noise, structure, names --
follows from the seed (random.Random(seed)); the kind is KINDS[seed % 13]
below seed 2000 (the seeds of bench/diagnosis.md's steps one to twenty-two
keep their programs) and KINDS_2000[seed % 14] from 2000 on (the dynamic
imbalance added), so a run of consecutive seeds covers every kind.  Programs look like real codes:
a setup phase, a time-step loop over compute phases (some called through a
function-pointer table), a helper called from several call sites, a
recursive tree walk, a static inline helper, halo exchanges (MPI_Sendrecv
or MPI_Isend/Irecv + Waitall), an MPI_Allreduce per step.  Work is counted
in the calibrated unit of kernel.h (AA_ITERS_PER_MS steps ~ 1 ms), so
magnitudes are real; I/O, message and collective costs are measured on
the machine (run.py: mpi_costs.c, io_costs.c) or nominal (NOMINAL_*
below).  The program prints one timing-free line
`checksum: N` (rank 0), so plain and instrumented builds can be compared.

The injected region is always one that the default (round-1)
instrumentation measures: a function, or an outer loop of a function
(`expect.cccr`); for depth 2 and 3 the injection sits in an inner loop that
only round 2 (AUTOANALYZER_REFINE) measures (`expect.cccr_round2`).
Lines are those the region map reports: a function's line is the line of
its definition (written on one line), a loop's the line of its `for`.

expected.json: the schema shared with the real-application cases, plus
optional keys the scorer understands:
  expect.cccr.via / expect.cccr_round2.via  the calling function on the
      path (context-sensitive cases: only that call path is imbalanced)
  benign: [{"function", "kind"}]  regions a finding on which is not false:
      background regions that really are large (>= BENIGN_SHARE of the run)
      for disparity -- the injected function of a context-sensitive case
      too, when its work in the balanced calling context is that large --,
      the master's and workers' functions for master/worker
  magnitude.nominal  true when the run share is estimated from nominal
      I/O or MPI rates rather than from the calibrated work unit
"""
import json
import math
import os
import random
import shutil
import sys

KINDS = ['compute_imbalance', 'uneven_decomposition', 'groups', 'master_worker',
         'late_sender', 'comm_volume', 'collective_heavy', 'io_write', 'io_fwrite',
         'io_fprintf', 'io_metadata', 'hotspot', 'noise']
# from seed 2000 on: the heaviest step moving between processes (each step
# a different K of the P ranks does F x a phase's work; equal totals)
KINDS_2000 = KINDS + ['dynamic_imbalance']
DISSIMILAR = {'compute_imbalance', 'uneven_decomposition', 'groups', 'late_sender'}
DISPARITY = {'comm_volume', 'collective_heavy', 'io_write', 'io_fwrite', 'io_fprintf',
             'io_metadata', 'hotspot'}
# nominal costs (ms) where the cost is not the calibrated work unit
NOMINAL_MS_PER_MB_MPI = 1.0       # shared-memory message copy, oversubscribed
NOMINAL_MS_PER_ALLREDUCE = 0.05   # one small MPI_Allreduce
# The MPI costs are machine's and rank count's: run.py measures them
# (mpi_costs.c: CPU time per small MPI_Allreduce and per MB of MPI_Sendrecv
# at the case's rank count) and passes them as `costs`
# {'allreduce_ms', 'sendrecv_ms_per_mb'}; the nominal values above, 7-60x
# and 4-5x what this 2-core VM measures at 2-8 ranks (bench/diagnosis.md,
# eighteenth step), are kept for reproducing earlier runs (--nominal-mpi-costs).
NOMINAL_MS_PER_MB_IO = 0.25       # write()/fwrite() into the page cache
NOMINAL_MS_PER_KLINE = 0.3        # 1000 fprintf lines
NOMINAL_MS_PER_META = 0.04        # one open+close+stat+unlink group
# The I/O costs are the machine's too: run.py measures them (io_costs.c:
# the time the analysis judges such a region on, per MB of write()/fwrite(),
# per 1000 fprintf lines, per metadata group, at the case's rank count) and
# passes them in `costs` ('write_ms_per_mb', 'fwrite_ms_per_mb',
# 'fprintf_ms_per_kline', 'meta_ms'); the nominal values above stand where
# a cost was not measured.  On the 16-core VM of bench/diagnosis.md's
# twentieth step write() cost about half the nominal 0.25 ms per MB, and
# the I/O hotspots held half the share their cases meant.
IO_COST_KEYS = {'io_write': ('write_ms_per_mb', NOMINAL_MS_PER_MB_IO),
                'io_fwrite': ('fwrite_ms_per_mb', NOMINAL_MS_PER_MB_IO),
                'io_fprintf': ('fprintf_ms_per_kline', NOMINAL_MS_PER_KLINE),
                'io_metadata': ('meta_ms', NOMINAL_MS_PER_META)}


def io_cost(costs, kind):
    """The cost unit of I/O kind `kind`: measured when costs has it."""
    key, nominal = IO_COST_KEYS[kind]
    return (costs or {}).get(key, nominal)
BENIGN_SHARE = 0.15

NAMES = {
    'phase': ['relax', 'advance', 'update_flux', 'smooth', 'compute_forces', 'integrate',
              'apply_stencil', 'sweep_rows', 'correct', 'predict', 'diffuse', 'advect',
              'assemble', 'project', 'remap'],
    'setup': ['setup_mesh', 'init_fields', 'build_tables', 'partition_domain', 'load_config'],
    'helper': ['interp', 'flux_limiter', 'eval_kernel', 'local_solve', 'weight_sum'],
    'chelper': ['edge_update', 'face_flux', 'cell_source', 'node_correct'],
    'rec': ['tree_walk', 'refine_cell', 'bisect', 'octree_visit'],
    'halo': ['exchange_halo', 'halo_update', 'swap_ghosts', 'communicate_bounds'],
    'reduce': ['global_sum', 'reduce_norm', 'check_convergence'],
    'inline': ['damp', 'clampv', 'blend'],
    'io': ['write_checkpoint', 'dump_state', 'save_snapshot', 'flush_diagnostics'],
    'fprintf': ['log_progress', 'print_diagnostics', 'write_report'],
    'meta': ['rotate_logs', 'scan_outputs', 'touch_markers'],
    'comm': ['transpose', 'redistribute', 'gather_boundaries', 'exchange_blocks'],
    'coll': ['sync_residuals', 'global_checks', 'norm_all'],
    'mw': [('dispatch_tasks', 'compute_task')],
}


def loguniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class Src:
    """C source with line tracking."""
    def __init__(self):
        self.lines = []

    def add(self, text=''):
        for t in text.split('\n'):
            self.lines.append(t)
        return len(self.lines)          # line number of the last line added

    def next_line(self):
        return len(self.lines) + 1

    def text(self):
        return '\n'.join(self.lines) + '\n'


def plan(seed):
    """All random choices of a case."""
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)] if seed < 2000 else KINDS_2000[seed % len(KINDS_2000)]
    p = {'seed': seed, 'kind': kind}
    nprocs = rng.choices([2, 3, 4, 5, 6, 8, 12, 16], [4, 4, 36, 6, 16, 24, 5, 5])[0]
    if kind == 'master_worker':
        nprocs = max(nprocs, 3)
    if kind == 'groups':
        nprocs = max(nprocs, 4)
    p['nprocs'] = nprocs
    # per-rank base work (ms of kernel CPU): most runs short
    cls = rng.random()
    if cls < 0.80:
        T = rng.uniform(200, 600)
    elif cls < 0.95:
        T = rng.uniform(600, 1500)
    else:
        T = rng.uniform(1500, 3000)
    T = min(T, 6000.0 / nprocs)       # wall ~ T * nprocs / 2 on two cores
    p['T'] = T
    p['nsteps'] = rng.choice([5, 8, 10, 12, 16, 20, 25, 30, 40])
    p['noise'] = rng.choices([0.0, 0.02, 0.05, 0.10], [40, 30, 20, 10])[0]
    u = rng.random()
    p['setup'] = 0.0 if u < 0.2 else (rng.uniform(0.02, 0.2) if u < 0.7 else rng.uniform(0.2, 0.6))
    if kind == 'noise' or kind in DISPARITY:
        p['setup'] = min(p['setup'], 0.1)
    p['nphases'] = 5 if kind == 'noise' else rng.choice([2, 3, 3, 4])
    p['halo_mode'] = rng.choice(['sendrecv', 'isend'])
    p['halo_doubles'] = rng.choice([64, 256, 1024])
    p['fptr'] = rng.random() < 0.6
    names = {}
    for k in ('setup', 'helper', 'chelper', 'rec', 'halo', 'reduce', 'inline', 'io',
              'fprintf', 'meta', 'comm', 'coll'):
        names[k] = rng.choice(NAMES[k])
    p['names'] = names
    p['depth'] = 1
    p['context'] = False
    loop_budget = (1 - p['setup']) * T
    if kind in DISSIMILAR:
        p['depth'] = rng.choices([0, 1, 2, 3], [20, 45, 25, 10])[0]
        if kind in ('compute_imbalance', 'groups'):
            p['context'] = rng.random() < 0.25
        if kind == 'late_sender':
            p['depth'] = rng.choice([0, 1, 1, 2])
        f = loguniform(rng, 1.02, 10.0)
        r = loguniform(rng, 0.01, 0.8)
        cmax = 0.6 * loop_budget
        if kind == 'uneven_decomposition':
            q = rng.choice([1, 1, 2, 2, 3, 4, 5, 8, 12, 20, 50])
            f = (q + 1.0) / q
            p['q'] = q
            p['r_extra'] = rng.randint(1, nprocs - 1)
        rmax = cmax * (f - 1) / (T + cmax * (f - 1))
        r = min(r, rmax)
        extra = r * T / (1 - r)
        p['culprit_ms'] = extra / (f - 1)
        p['factor'] = f
        p['run_share'] = r
        if kind == 'groups':
            G = rng.choice([2, 3, 4]) if nprocs >= 8 else 2
            if nprocs >= 6 and G == 2:
                G = rng.choice([2, 3])
            p['G'] = G
            p['group_mode'] = rng.choice(['block', 'cyclic'])
        elif kind == 'compute_imbalance':
            k = rng.choice([1, 1, 2, max(1, nprocs // 4), max(1, nprocs // 2)])
            k = min(k, nprocs - 1)
            p['slow'] = sorted(rng.sample(range(nprocs), k))
        elif kind == 'late_sender':
            k = min(rng.choice([1, 1, 2]), nprocs - 1)
            p['slow'] = sorted(rng.sample(range(nprocs), k))
        elif kind == 'uneven_decomposition':
            p['slow'] = list(range(p['r_extra']))
    elif kind in DISPARITY:
        p['depth'] = rng.choices([0, 1, 2], [25, 50, 25])[0] if kind == 'hotspot' else (rng.choice([0, 1]) if kind == 'comm_volume' else 1)
        r = rng.uniform(0.3, 0.8)
        p['run_share'] = r
        # every other phase at most half the culprit's share: it dominates
        p['nphases'] = max(2, min(12, int(math.ceil(0.82 * (1 - r) / (0.5 * r)))))
        p['culprit_ms'] = r * T        # the region's share of the run (nominal for non-compute)
        p['factor'] = None
        # the hotspot's own cost is taken out of the other phases
    elif kind == 'dynamic_imbalance':
        # per step K ranks (a different K each step) do F x the culprit's
        # work; every step lasts as long as theirs, the others wait
        # (F - 1) x its per-step work: a share r of the run per process
        # waits, r = (F-1) C (P-K)/P / (T + (F-1) C), C the culprit's work
        # over the run at factor 1.  Steps: a multiple of P (equal totals).
        p['depth'] = rng.choices([0, 1, 2], [30, 50, 20])[0]
        K = min(rng.choice([1, 1, 1, max(1, nprocs // 4)]), nprocs - 1)
        f = loguniform(rng, 1.5, 6.0)
        q = (nprocs - K) / nprocs
        r = min(loguniform(rng, 0.01, 0.5), 0.5 * q)
        C = min(r * T / ((f - 1) * (q - r)), 0.6 * loop_budget)
        p['K'] = K
        p['factor'] = f
        p['culprit_ms'] = C
        p['run_share'] = (f - 1) * C * q / (T + (f - 1) * C)
        p['nsteps'] = nprocs * max(2, int(math.ceil(p['nsteps'] / nprocs)))
    elif kind == 'master_worker':
        p['run_share'] = 1.0
        p['factor'] = None
        p['culprit_ms'] = 0.0
        p['ntasks'] = rng.choice([2, 3, 4]) * (nprocs - 1)
    else:
        p['run_share'] = 0.0
        p['factor'] = None
        p['culprit_ms'] = 0.0
    # leave names for the culprit phase (hotspot, dissimilarity culprits)
    names['phases'] = rng.sample(NAMES['phase'], p['nphases'])
    return p


def iters(ms):
    return max(1, int(round(ms * 100000)))


def generate(seed, costs=None):
    """The program text and expected.json of case `seed`; costs: the
    measured MPI and I/O costs at its rank count (None, or a cost missing:
    the nominal ones)."""
    p = plan(seed)
    ms_per_mb = (costs or {}).get('sendrecv_ms_per_mb', NOMINAL_MS_PER_MB_MPI)
    ms_per_allreduce = (costs or {}).get('allreduce_ms', NOMINAL_MS_PER_ALLREDUCE)
    kind, P, T, S = p['kind'], p['nprocs'], p['T'], p['nsteps']
    n = p['names']
    rng = random.Random(seed * 7919 + 1)
    src = Src()
    lines = {}
    # background budget (per rank, per run, ms)
    setup_ms = p['setup'] * T
    loop_ms = T - setup_ms
    if kind in DISPARITY:
        bg_ms = max(loop_ms - p['culprit_ms'], 0.15 * loop_ms)
        if kind != 'hotspot':   # nominal cost: keep compute background as planned
            pass
    elif kind in DISSIMILAR or kind == 'dynamic_imbalance':
        bg_ms = max(loop_ms - p['culprit_ms'], 0.1 * loop_ms)
    else:
        bg_ms = loop_ms
    # split the background among phases, helper, recursion, halo compute
    nph = p['nphases']
    wts = [rng.uniform(0.6, 1.4) for _ in range(nph)] if kind != 'noise' else [1.0] * nph
    helper_frac, rec_frac = (0.12, 0.06) if kind != 'noise' else (0.0, 0.0)
    ph_total = bg_ms * (1 - helper_frac - rec_frac)
    ph_ms = [ph_total * w / sum(wts) for w in wts]
    helper_ms = bg_ms * helper_frac
    rec_ms = bg_ms * rec_frac
    shares = {}   # function -> estimated share of the run (for benign)

    src.add('/*\n * Generated by tests/diagnosis/gen.py, seed %d: a %s case on %d ranks.' % (seed, kind, P))
    src.add(' * The expected diagnosis is in expected.json beside this file.\n */')
    src.add('#define _POSIX_C_SOURCE 200809L')
    src.add('#include <mpi.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>')
    if kind.startswith('io_'):
        src.add('#include <fcntl.h>\n#include <sys/stat.h>\n#include <unistd.h>')
    src.add('#include "kernel.h"\n')
    src.add('#define NSTEPS %d\n#define SEED %dULL\n#define NOISE %.3f' % (S, seed, p['noise']))
    src.add('\nstatic int rank, nprocs, step_no;\nstatic double load = 1.0;\nstatic uint64_t hsum;')
    if kind.startswith('io_'):
        src.add('static char iodir[512];')
    src.add('')
    src.add('/* per-step jitter of the work: the noise axis */')
    src.add('#define scaled(n) aa_scaled((n), NOISE, SEED, rank, step_no)\n')
    src.add('static inline double %s(double v)\n{\n    return v > 1e12 ? v * 1e-6 : v;\n}\n' % n['inline'])

    # helper called from several call sites (balanced)
    h_calls = max(1, nph - 1) if kind not in ('noise', 'master_worker') else 0
    if h_calls:
        src.add('/* helper called from several phases */')
        src.add('static double %s(long n, double x)\n{\n    return aa_work(scaled(n), x);\n}\n' % n['helper'])
    # recursion (balanced)
    if kind not in ('noise', 'master_worker'):
        src.add('/* recursive tree walk: 2^depth leaves */')
        src.add('static double %s(int depth, long n)\n{\n    if (depth == 0)\n        return aa_work(scaled(n), depth);\n'
                '    return %s(depth - 1, n / 2) + %s(depth - 1, n - n / 2);\n}\n' % (n['rec'], n['rec'], n['rec']))

    def inj_amount(ms):
        return iters(ms / S)

    expect_cccr = None
    expect_r2 = None
    expect_disp = None
    expect_dyn = None
    culprit_fn = None
    benign = []

    # ---- culprit code (dissimilarity kinds): emitted as a function body ----
    def emit_injected(fname, sig, load_expr, base_ms, depth, prologue=None, epilogue=None):
        """A function with a balanced part and the injected piece at `depth`.
        Returns (cccr, round2) as dicts."""
        nonlocal src
        bal_it = iters(0.15 * base_ms / S / 4) if base_ms > 0 else 1000
        inj_it = iters(base_ms / S)
        fl = src.next_line(); src.add('static double %s\n{' % sig)
        src.add('    double s = 0.0;\n    int b, c, d;\n    (void)c; (void)d;')
        if prologue:
            src.add(prologue)
        cccr = r2 = None
        if depth == 0:
            src.add('    for (b = 0; b < 4; b++)\n        s += aa_work(scaled(%d), b);' % bal_it)
            src.add('    s += aa_work(scaled((long)(%d * %s)), s);   /* INJECTED */' % (inj_it, load_expr))
            cccr = {'function': fname, 'line': fl}
        elif depth == 1:
            src.add('    for (b = 0; b < 4; b++)\n        s += aa_work(scaled(%d), b);' % bal_it)
            ln = src.add('    for (b = 0; b < 8; b++) {')
            src.add('        s += aa_work(scaled((long)(%d / 8 * %s)), b);   /* INJECTED */\n    }' % (inj_it, load_expr))
            cccr = {'function': fname, 'line': ln}
        elif depth == 2:
            src.add('    for (b = 0; b < 4; b++)\n        s += aa_work(scaled(%d), b);' % bal_it)
            ln = src.add('    for (b = 0; b < 4; b++) {')
            src.add('        for (c = 0; c < 2; c++)\n            s += aa_work(scaled(%d), c);' % max(1, bal_it // 2))
            l2 = src.add('        for (c = 0; c < 4; c++)')
            src.add('            s += aa_work(scaled((long)(%d / 16 * %s)), c);   /* INJECTED */\n    }' % (inj_it, load_expr))
            cccr = {'function': fname, 'line': ln}
            r2 = {'function': fname, 'line': l2}
        else:
            src.add('    for (b = 0; b < 4; b++)\n        s += aa_work(scaled(%d), b);' % bal_it)
            ln = src.add('    for (b = 0; b < 2; b++) {')
            src.add('        for (c = 0; c < 2; c++)\n            s += aa_work(scaled(%d), c);' % max(1, bal_it // 2))
            src.add('        for (c = 0; c < 2; c++) {')
            src.add('            for (d = 0; d < 2; d++)\n                s += aa_work(scaled(%d), d);' % max(1, bal_it // 4))
            l2 = src.add('            for (d = 0; d < 4; d++)')
            src.add('                s += aa_work(scaled((long)(%d / 16 * %s)), d);   /* INJECTED */\n        }\n    }' % (inj_it, load_expr))
            cccr = {'function': fname, 'line': ln}
            r2 = {'function': fname, 'line': l2}
        if epilogue:
            src.add(epilogue)
        src.add('    return s;\n}\n')
        return cccr, r2

    # ---- kind-specific code ----
    slow = p.get('slow', [])
    groups = None
    extra_phase = None        # (name, call text) added to the step loop
    if kind in ('compute_imbalance', 'groups', 'uneven_decomposition'):
        if kind == 'groups':
            G = p['G']
            if p['group_mode'] == 'block':
                gof = [r * G // P for r in range(P)]
            else:
                gof = [r % G for r in range(P)]
            levels = [1 + (p['factor'] - 1) * g / (G - 1) for g in range(G)]
            groups = [[r for r in range(P) if gof[r] == g] for g in range(G)]
            slow = groups[-1]
            load_init = '    {\n        static const double lv[%d] = {%s};\n        load = lv[%s];\n    }' % (
                G, ', '.join('%.6f' % x for x in levels),
                ('rank * %d / nprocs' % G) if p['group_mode'] == 'block' else ('rank %% %d' % G))
        elif kind == 'uneven_decomposition':
            q = p['q']
            load_init = '    {\n        /* %d blocks over %d ranks: the first %d get one more */\n' \
                        '        int nb = %d, q = nb / nprocs, r = nb %% nprocs;\n' \
                        '        load = (double)(q + (rank < r)) / q;\n    }' % (
                            q * P + p['r_extra'], P, p['r_extra'], q * P + p['r_extra'])
        else:
            load_init = '    if (%s)\n        load = %.6f;' % (' || '.join('rank == %d' % r for r in slow), p['factor'])
        cname = n['chelper'] if p['context'] else rng.choice([x for x in NAMES['phase'] if x not in n['phases']])
        culprit_fn = cname
        if p['context']:
            sig = '%s(int hot)' % cname
            cccr, r2 = emit_injected(cname, sig, '(hot ? load : 1.0)', p['culprit_ms'], p['depth'])
            via = n['phases'][0]
            cccr['via'] = via
            if r2:
                r2['via'] = via
            # the other calling context runs the same work on every rank:
            # a hotspot there is real when that work is large
            if p['culprit_ms'] / T >= BENIGN_SHARE:
                benign.append({'function': cname, 'kind': 'disparity'})
        else:
            sig = '%s(void)' % cname
            cccr, r2 = emit_injected(cname, sig, 'load', p['culprit_ms'], p['depth'])
            extra_phase = cname
        expect_cccr, expect_r2 = cccr, r2
    elif kind == 'late_sender':
        load_init = '    if (%s)\n        load = %.6f;' % (' || '.join('rank == %d' % r for r in slow), p['factor'])
    elif kind == 'dynamic_imbalance':
        load_init = ''
        cname = rng.choice([x for x in NAMES['phase'] if x not in n['phases']])
        culprit_fn = cname
        heavy = '((step_no + rank) %% nprocs < %d ? %.6f : 1.0)' % (p['K'], p['factor'])
        cccr, r2 = emit_injected(cname, '%s(void)' % cname, heavy, p['culprit_ms'], p['depth'])
        extra_phase = cname
        expect_dyn = cccr
        expect_r2 = r2   # depth 2: the inner loop round 2 measures
        if p['culprit_ms'] * p['factor'] / T >= BENIGN_SHARE:
            benign.append({'function': cname, 'kind': 'disparity'})
    else:
        load_init = ''

    # phases
    for i, ph in enumerate(n['phases'] if kind != 'master_worker' else []):
        it = iters(ph_ms[i] / S)
        fl = src.next_line(); src.add('static double %s(int step)\n{' % ph)
        src.add('    double s = 0.0;\n    int b;')
        nl = rng.choice([1, 2])
        for L in range(nl):
            src.add('    for (b = 0; b < %d; b++)\n        s += aa_work(scaled(%d), b + step);' % (4, max(1, it // (4 * nl))))
        if h_calls and i < h_calls:
            src.add('    s += %s(%d, s);' % (n['helper'], iters(helper_ms / S / h_calls)))
        if kind != 'noise' and i == nph - 1:
            src.add('    s += %s(3, %d);' % (n['rec'], iters(rec_ms / S)))
        if p['context'] and i == 0:
            src.add('    s += %s(1);' % culprit_fn)
        if p['context'] and i == 1 % nph and nph > 1:
            src.add('    s += %s(0);' % culprit_fn)
        src.add('    return %s(s);\n}\n' % n['inline'])
        share = ph_ms[i] / T
        if share >= BENIGN_SHARE:
            benign.append({'function': ph, 'kind': 'disparity'})
    if setup_ms / T >= BENIGN_SHARE:
        benign.append({'function': n['setup'], 'kind': 'disparity'})

    # setup
    src.add('/* setup phase: %.0f%% of the run */' % (100 * p['setup']))
    src.add('static double %s(void)\n{\n    double s = 0.0;\n    int b;' % n['setup'])
    src.add('    for (b = 0; b < 16; b++)\n        s += aa_work(%d, b);' % iters(setup_ms / 16) if setup_ms > 0 else '    b = 0;')
    src.add('    return s + b;\n}\n')

    # halo exchange (late sender: injected compute before the sends)
    hd = p['halo_doubles']
    src.add('static double sendbuf[%d], recvbuf[%d];\n' % (2 * hd, 2 * hd))
    if kind == 'late_sender':
        pro_it = iters(p['culprit_ms'] / S)
        fl = src.next_line(); src.add('static double %s(int step)\n{' % n['halo'])
        src.add('    double s = 0.0;\n    int b, c, left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;')
        src.add('    MPI_Request rq[4];\n    (void)c;')
        src.add('    for (b = 0; b < %d; b++)\n        sendbuf[b] = step + rank + b * 0.5;' % hd)
        if p['depth'] == 0:
            src.add('    s += aa_work(scaled((long)(%d * load)), step);   /* INJECTED: late sender */' % pro_it)
            expect_cccr = {'function': n['halo'], 'line': fl}
        elif p['depth'] == 1:
            ln = src.add('    for (b = 0; b < 8; b++)')
            src.add('        s += aa_work(scaled((long)(%d / 8 * load)), b);   /* INJECTED: late sender */' % pro_it)
            expect_cccr = {'function': n['halo'], 'line': ln}
        else:
            ln = src.add('    for (b = 0; b < 4; b++) {')
            src.add('        for (c = 0; c < 2; c++)\n            s += aa_work(scaled(%d), c);' % iters(0.05 * p['culprit_ms'] / S / 8))
            l2 = src.add('        for (c = 0; c < 4; c++)')
            src.add('            s += aa_work(scaled((long)(%d / 16 * load)), c);   /* INJECTED: late sender */\n    }' % pro_it)
            expect_cccr = {'function': n['halo'], 'line': ln}
            expect_r2 = {'function': n['halo'], 'line': l2}
        src.add('    sendbuf[0] += s * 1e-12;')
        src.add('    MPI_Irecv(recvbuf, %d, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);' % hd)
        src.add('    MPI_Irecv(recvbuf + %d, %d, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);' % (hd, hd))
        src.add('    MPI_Send(sendbuf, %d, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);' % hd)
        src.add('    MPI_Send(sendbuf, %d, MPI_DOUBLE, left, 2, MPI_COMM_WORLD);' % hd)
        src.add('    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);')
        src.add('    return s + recvbuf[0] + recvbuf[%d];\n}\n' % (2 * hd - 1))
        culprit_fn = n['halo']
    else:
        src.add('static double %s(int step)\n{' % n['halo'])
        src.add('    int b, left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;')
        src.add('    for (b = 0; b < %d; b++)\n        sendbuf[b] = sendbuf[b + %d] = step + rank + b * 0.25;' % (hd, hd))
        if p['halo_mode'] == 'sendrecv':
            src.add('    MPI_Sendrecv(sendbuf, %d, MPI_DOUBLE, right, 1, recvbuf, %d, MPI_DOUBLE, left, 1,\n'
                    '                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);' % (hd, hd))
            src.add('    MPI_Sendrecv(sendbuf + %d, %d, MPI_DOUBLE, left, 2, recvbuf + %d, %d, MPI_DOUBLE, right, 2,\n'
                    '                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);' % (hd, hd, hd, hd))
        else:
            src.add('    {\n        MPI_Request rq[4];')
            src.add('        MPI_Irecv(recvbuf, %d, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);' % hd)
            src.add('        MPI_Irecv(recvbuf + %d, %d, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);' % (hd, hd))
            src.add('        MPI_Isend(sendbuf, %d, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[2]);' % hd)
            src.add('        MPI_Isend(sendbuf + %d, %d, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[3]);' % (hd, hd))
            src.add('        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);\n    }')
        src.add('    return recvbuf[0] + recvbuf[%d];\n}\n' % (2 * hd - 1))

    # reduction
    src.add('static double %s(double v)\n{\n    uint64_t h = aa_bits(v, (uint64_t)step_no), t = 0;' % n['reduce'])
    src.add('    MPI_Allreduce(&h, &t, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);')
    src.add('    return (double)(t % 1000u);\n}\n')

    # disparity culprits
    cause = None
    disp_fn = None
    if kind in DISPARITY:
        ms = p['culprit_ms']
        d = p['depth']
        if kind == 'hotspot':
            disp_fn = rng.choice([x for x in NAMES['phase'] if x not in n['phases']])
            it = iters(ms / S)
            fl = src.next_line(); src.add('static double %s(int step)\n{\n    double s = 0.0;\n    int b, c;\n    (void)c;' % disp_fn)
            src.add('    for (b = 0; b < 2; b++)\n        s += aa_work(scaled(%d), b);' % iters(0.02 * ms / S / 2))
            if d == 0:
                src.add('    s += aa_work(scaled(%d), step);   /* INJECTED: hotspot */' % it)
                expect_disp = {'function': disp_fn, 'line': fl}
            elif d == 1:
                ln = src.add('    for (b = 0; b < 8; b++)')
                src.add('        s += aa_work(scaled(%d), b + step);   /* INJECTED: hotspot */' % (it // 8))
                expect_disp = {'function': disp_fn, 'line': ln}
            else:
                ln = src.add('    for (b = 0; b < 4; b++) {')
                src.add('        for (c = 0; c < 2; c++)\n            s += aa_work(scaled(%d), c);' % iters(0.1 * ms / S / 8))
                l2 = src.add('        for (c = 0; c < 4; c++)')
                src.add('            s += aa_work(scaled(%d), c + step);   /* INJECTED: hotspot */\n    }' % (it // 16))
                expect_disp = {'function': disp_fn, 'line': ln}
                expect_r2 = {'function': disp_fn, 'line': l2}
            src.add('    return s;\n}\n')
            cause = None     # instructions: no counters on this machine
        elif kind == 'comm_volume':
            disp_fn = n['comm']
            mb = ms / ms_per_mb / S          # MB per rank per step
            nmsg = 4
            cnt = max(1024, int(mb * 1e6 / 8 / nmsg))
            src.add('static double *bigsend, *bigrecv;')
            fl = src.next_line(); src.add('static double %s(int step)\n{' % disp_fn)
            src.add('    int b, left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;')
            src.add('    bigsend[0] = step + rank;')
            body = '    MPI_Sendrecv(bigsend, %d, MPI_DOUBLE, right, 3, bigrecv, %d, MPI_DOUBLE, left, 3,\n' \
                   '                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* INJECTED: volume */' % (cnt, cnt)
            if d == 0:
                src.add('    b = 0;')
                for _ in range(nmsg):
                    src.add(body)
                expect_disp = {'function': disp_fn, 'line': fl}
            else:
                ln = src.add('    for (b = 0; b < %d; b++)' % nmsg)
                src.add('        MPI_Sendrecv(bigsend, %d, MPI_DOUBLE, right, 3, bigrecv, %d, MPI_DOUBLE, left, 3,\n'
                        '                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* INJECTED: volume */' % (cnt, cnt))
                expect_disp = {'function': disp_fn, 'line': ln}
            src.add('    return bigrecv[0] + b;\n}\n')
            cause = 'mpi_bytes'
            p['nominal'] = True
        elif kind == 'collective_heavy':
            disp_fn = n['coll']
            ncoll = max(4, int(ms / ms_per_allreduce / S))
            fl = src.next_line(); src.add('static double %s(int step)\n{\n    double v = step + rank, t = 0.0, s = 0.0;\n    int b;' % disp_fn)
            if True:
                ln = src.add('    for (b = 0; b < %d; b++) {' % ncoll)
                src.add('        MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);   /* INJECTED */\n'
                        '        s += t;\n    }')
                expect_disp = {'function': disp_fn, 'line': ln}
            src.add('    return s;\n}\n')
            cause = 'mpi_time'
            p['nominal'] = True
        elif kind in ('io_write', 'io_fwrite'):
            disp_fn = n['io']
            mb = ms / io_cost(costs, kind) / S
            chunk = 1 << 16
            nchunks = max(2, int(mb * 1e6 / chunk))
            src.add('static char iobuf[%d];' % chunk)
            fl = src.next_line(); src.add('static double %s(int step)\n{\n    char path[600];\n    int b;' % disp_fn)
            src.add('    snprintf(path, sizeof path, "%s/ckpt-%d", iodir, rank);')
            if kind == 'io_write':
                src.add('    static int fd = -1;\n    if (fd < 0)\n        fd = open(path, O_WRONLY | O_CREAT, 0600);\n    if (fd < 0)\n        MPI_Abort(MPI_COMM_WORLD, 3);')
                src.add('    iobuf[0] = (char)step;')
                ln = src.add('    for (b = 0; b < %d; b++) {' % nchunks)
                src.add('        if (write(fd, iobuf, sizeof iobuf) != (ssize_t)sizeof iobuf)   /* INJECTED */\n'
                        '            MPI_Abort(MPI_COMM_WORLD, 3);\n        if (b % 64 == 63)\n            lseek(fd, 0, SEEK_SET);\n    }')
                src.add('    lseek(fd, 0, SEEK_SET);\n    if (step == NSTEPS - 1)\n        close(fd);')
            else:
                src.add('    static FILE *f;\n    if (!f)\n        f = fopen(path, "wb");\n    if (!f)\n        MPI_Abort(MPI_COMM_WORLD, 3);')
                src.add('    iobuf[0] = (char)step;')
                ln = src.add('    for (b = 0; b < %d; b++) {' % nchunks)
                src.add('        if (fwrite(iobuf, 1, sizeof iobuf, f) != sizeof iobuf)   /* INJECTED */\n'
                        '            MPI_Abort(MPI_COMM_WORLD, 3);\n        if (b % 64 == 63)\n            rewind(f);\n    }')
                src.add('    rewind(f);\n    if (step == NSTEPS - 1)\n        fclose(f);')
            src.add('    return b;\n}\n')
            expect_disp = {'function': disp_fn, 'line': ln}
            cause = 'disk_io_bytes'
            p['nominal'] = True
        elif kind == 'io_fprintf':
            disp_fn = n['fprintf']
            nl = max(100, int(ms / io_cost(costs, kind) * 1000 / S))
            fl = src.next_line(); src.add('static double %s(int step)\n{\n    char path[600];\n    int b;\n    FILE *f;' % disp_fn)
            src.add('    snprintf(path, sizeof path, "%s/log-%d", iodir, rank);')
            src.add('    f = fopen(path, "w");\n    if (!f)\n        MPI_Abort(MPI_COMM_WORLD, 3);')
            ln = src.add('    for (b = 0; b < %d; b++)' % nl)
            src.add('        fprintf(f, "step %d cell %d value %.6e residual %.3e\\n", step, b, b * 0.5, 1.0 / (b + 1));   /* INJECTED */')
            src.add('    fclose(f);\n    return b;\n}\n')
            expect_disp = {'function': disp_fn, 'line': ln}
            cause = None     # fprintf is not interposed by the runtime
            p['nominal'] = True
        elif kind == 'io_metadata':
            disp_fn = n['meta']
            nm = max(10, int(ms / io_cost(costs, kind) / S))
            fl = src.next_line(); src.add('static double %s(int step)\n{\n    char path[600];\n    struct stat st;\n    int b;\n    long sz = 0;' % disp_fn)
            ln = src.add('    for (b = 0; b < %d; b++) {' % nm)
            src.add('        int fd;   /* INJECTED: metadata calls */')
            src.add('        snprintf(path, sizeof path, "%s/m-%d-%d", iodir, rank, b % 8);')
            src.add('        fd = open(path, O_WRONLY | O_CREAT, 0600);\n        if (fd >= 0)\n            close(fd);')
            src.add('        if (stat(path, &st) == 0)\n            sz += st.st_size + 1;\n        unlink(path);\n    }')
            src.add('    return sz + step;\n}\n')
            expect_disp = {'function': disp_fn, 'line': ln}
            cause = None     # open/close/stat/unlink are not interposed by the runtime
            p['nominal'] = True

    # master/worker
    if kind == 'master_worker':
        disp, comp = NAMES['mw'][0]
        tasks = p['ntasks']
        task_it = iters(loop_ms * (P - 1) / tasks / S)
        src.add('static double %s(long n, double x)\n{\n    return aa_work(scaled(n), x);\n}\n' % comp)
        src.add('/* rank 0 hands out tasks round-robin and collects the results */')
        src.add('static double %s(int step)\n{\n    int t;\n    uint64_t h = 0, r;' % disp)
        src.add('    for (t = 0; t < %d; t++) {\n        int w = 1 + t %% (nprocs - 1);\n        double x = step * 100 + t;' % tasks)
        src.add('        MPI_Send(&x, 1, MPI_DOUBLE, w, 5, MPI_COMM_WORLD);\n    }')
        src.add('    for (t = 0; t < %d; t++) {\n        int w = 1 + t %% (nprocs - 1);' % tasks)
        src.add('        MPI_Recv(&r, 1, MPI_UINT64_T, w, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        h += r;\n    }')
        src.add('    return (double)(h % 100000u);\n}\n')
        src.add('static double worker_loop(int step)\n{\n    int t;\n    double s = 0.0;')
        src.add('    for (t = rank - 1; t < %d; t += nprocs - 1) {\n        double x;\n        uint64_t r;' % tasks)
        src.add('        MPI_Recv(&x, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);')
        src.add('        r = aa_bits(%s(%d, x), 0);\n        s += (double)(r %% 1000u);' % (comp, task_it))
        src.add('        MPI_Send(&r, 1, MPI_UINT64_T, 0, 6, MPI_COMM_WORLD);\n    }\n    return s + step;\n}\n')
        benign += [{'function': f, 'kind': k} for f in (disp, comp, 'worker_loop')
                   for k in ('dissimilarity', 'disparity')]

    # main
    calls = []
    if kind == 'master_worker':
        calls.append('acc += rank == 0 ? %s(step) : worker_loop(step);' % NAMES['mw'][0][0])
    else:
        if p['fptr']:
            calls.append('for (k = 0; k < %d; k++)\n            acc += phase_tab[k](step);' % nph)
        else:
            for ph in n['phases']:
                calls.append('acc += %s(step);' % ph)
        if extra_phase:
            calls.insert(rng.randint(0, len(calls)), 'acc += %s();' % extra_phase)
        if disp_fn:
            calls.insert(rng.randint(0, len(calls)), 'acc += %s(step);' % disp_fn)
    calls.append('acc += %s(step);' % n['halo'])
    calls.append('acc += %s(acc);' % n['reduce'])
    if p['fptr'] and kind != 'master_worker':
        src.add('static double (*const phase_tab[%d])(int) = {%s};\n' % (nph, ', '.join(n['phases'])))
    ml = src.add('int main(int argc, char **argv)\n{\n    double acc = 0.0;\n    int step, k;\n    uint64_t total = 0;\n    (void)k;\n    (void)load;')
    src.add('    MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);')
    src.add('    if (nprocs != %d && rank == 0)\n        fprintf(stderr, "note: generated for %d ranks\\n");' % (P, P))
    if load_init:
        src.add(load_init)
    if kind.startswith('io_'):
        src.add('    {\n        const char *t = getenv("TMPDIR");\n'
                '        snprintf(iodir, sizeof iodir, "%s/aa-diag-%d-%d", t && *t ? t : "/tmp", (int)getpid(), rank);\n'
                '        if (mkdir(iodir, 0700) != 0)\n            MPI_Abort(MPI_COMM_WORLD, 3);\n    }')
    if kind == 'comm_volume':
        src.add('    bigsend = calloc(%d, sizeof(double));\n    bigrecv = calloc(%d, sizeof(double));' % (cnt, cnt))
    src.add('    acc = %s();' % n['setup'])
    tl = src.add('    for (step = 0; step < NSTEPS; step++) {')
    src.add('        step_no = step;')
    for c in calls:
        src.add('        ' + c)
    src.add('        hsum = aa_bits(acc, hsum);\n        acc = %s(acc);\n    }' % n['inline'])
    if kind.startswith('io_'):
        src.add('    {\n        char path[600];\n        snprintf(path, sizeof path, "%s/ckpt-%d", iodir, rank);\n        unlink(path);\n'
                '        snprintf(path, sizeof path, "%s/log-%d", iodir, rank);\n        unlink(path);\n        rmdir(iodir);\n    }')
    src.add('    MPI_Reduce(&hsum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);')
    src.add('    if (rank == 0)\n        printf("checksum: %llu\\n", (unsigned long long)total);')
    src.add('    MPI_Finalize();\n    return 0;\n}')

    dissimilar = kind in DISSIMILAR or kind == 'master_worker'
    # the noise axis is itself a small dynamic imbalance: every step each
    # rank's work is scaled by 1 + noise x U(-1, 1), independently, and
    # all wait for the latest: E[max of P] - E[mean] = noise (P-1)/(P+1)
    # of the step's work (the loop's share of the run, at most 1)
    jitter_share = p['noise'] * (P - 1) / (P + 1) * min(1.0, loop_ms / T)
    if kind == 'master_worker':
        groups = [[0], list(range(1, P))]
        slow = [0]
    if kind == 'late_sender':
        culprit_fn = n['halo']
    exp = {
        'case': 'gen-%04d-%s' % (seed, kind),
        'nprocs': P,
        'kind': kind,
        'magnitude': {'region_factor': round(p['factor'], 4) if p['factor'] else None,
                      'run_share': round(p['run_share'], 4)},
        'expect': {
            'dissimilar': dissimilar,
            'slow_ranks': slow if dissimilar else [],
            'cccr': expect_cccr,
            'cccr_round2': expect_r2,
            'cause': cause,
            'disparity': expect_disp,
            'no_finding': kind == 'noise',
            'dynamic': expect_dyn,
            'dynamic_jitter_share': round(jitter_share, 4),
        },
        'benign': benign,
        'axes': {'seed': seed, 'nprocs': P, 'noise': p['noise'], 'setup_share': round(p['setup'], 3),
                 'depth': p['depth'], 'context': p['context'], 'per_rank_ms': round(T, 1),
                 'nsteps': S, 'halo': p['halo_mode'], 'fptr': p['fptr']},
    }
    if groups:
        exp['expect']['groups'] = groups
    if p.get('nominal'):
        exp['magnitude']['nominal'] = True
        if costs and kind in ('comm_volume', 'collective_heavy') and 'allreduce_ms' in costs:
            exp['magnitude']['measured_costs'] = {k: costs[k] for k in ('allreduce_ms', 'sendrecv_ms_per_mb')}
        elif costs and kind in IO_COST_KEYS and IO_COST_KEYS[kind][0] in costs:
            exp['magnitude']['measured_costs'] = {IO_COST_KEYS[kind][0]: costs[IO_COST_KEYS[kind][0]]}
    return src.text(), exp


def write_case(seed, outdir, costs=None):
    text, exp = generate(seed, costs)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'prog.c'), 'w') as f:
        f.write(text)
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kernel.h'),
                os.path.join(outdir, 'kernel.h'))
    with open(os.path.join(outdir, 'expected.json'), 'w') as f:
        json.dump(exp, f, indent=1)
        f.write('\n')
    return exp


def read_seeds(path):
    out = []
    for line in open(path):
        line = line.split('#')[0].strip()
        if line:
            out.append(int(line.split()[0]))
    return out


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == '--list':
        for s in read_seeds(a[1]):
            p = plan(s)
            print(s, p['kind'], p['nprocs'])
        return 0
    if len(a) != 2:
        sys.stderr.write(__doc__)
        return 2
    exp = write_case(int(a[0]), a[1])
    print(json.dumps(exp['expect']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
