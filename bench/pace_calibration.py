#!/usr/bin/env python3
"""bench/pace_calibration.py -- how far a CPU's measured pace explains
process differences, on both sides: the splits of balanced regions along
the CPUs (which analyze/pace.c should explain) and the injected imbalances
(which it must not).

For each experiment (a suite case kept with `run.py --keep`: DIR/cases/*/run*,
or an edge probe's work directory: DIR/*/exp-*), with the runtime's pace
attributes (pace_ns, pace_mad_ns, pace_samples):
  * balanced side: every region of 1% or more of the median program CPU
    time on every process, other than the case's injected region, whose
    processes ran on two CPUs (each process at least 75% of its time on
    one): S the CPU group with the higher mean log CPU time there, F the
    other; D = mean_S log x - mean_F log x, U = mean_S log pace - mean_F log
    pace, z = U / its standard error;
  * injected side: the case's expected slow ranks S in its expected CCCR
    function (inclusive), F the others: the same D, U, z.
The pace test explains a difference when U > 0, z >= Z and D <= K x U.  It
prints, for each K of a range, how many balanced splits along the CPUs it
explains (of those with z >= Z) and how many injected imbalances it would
drop, and the D / U quantiles of the balanced splits.  The x here is a
region's CPU time outside MPI and I/O calls (exclusive), as the analysis's
process metric is on a loaded node.

  python3 bench/pace_calibration.py [--build B] [--z Z] [--min-diff F] DIR...

--min-diff: the balanced splits that matter differ by this fraction or
more (default 0.05: a finding where nothing explains it).
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import subprocess
import sys


def process_attrs(xml):
    out = {}
    for m in re.finditer(r'<process rank="(\d+)"(.*?)<thread', xml, re.S):
        out[int(m.group(1))] = dict(re.findall(r'<attr name="([a-z_]+)">([^<]*)</attr>', m.group(2)))
    return out


def main_cpu(a):
    best, share = None, 0.0
    for part in a.get('cpus', '').split(','):
        if ':' in part:
            c, s = part.split(':')
            if float(s) > share:
                best, share = int(c), float(s)
    return best if share >= 0.75 else None


def pace_of(a):
    try:
        ns, mad, n = float(a['pace_ns']), float(a['pace_mad_ns']), float(a['pace_samples'])
    except (KeyError, ValueError):
        return None
    if ns <= 0 or n < 1:
        return None
    return math.log(ns), 1.4826 * mad / (ns * math.sqrt(n))


def region_values(build, exp):
    """{path: {rank: (exclusive, inclusive)}} of CPU time outside MPI and I/O, thread 0"""
    out = subprocess.run([os.path.join(build, 'bin', 'autoanalyzer'), 'export', '--format',
                          'csv', exp], capture_output=True, text=True).stdout
    acc = {}
    for r in csv.DictReader(out.splitlines()):
        if r['thread'] != '0' or r['metric'] not in ('cpu', 'mpi_cpu', 'io_cpu'):
            continue
        sign = 1 if r['metric'] == 'cpu' else -1
        key = r['path'] or r['region']
        v = acc.setdefault(key, {}).setdefault(int(r['rank']), [0.0, 0.0])
        v[0] += sign * float(r['exclusive'])
        v[1] += sign * float(r['inclusive'])
    return acc


def diff(values, paces, slow, fast):
    def mean(xs):
        return sum(xs) / len(xs)
    if any(values[p] <= 0 for p in slow + fast):
        return None
    D = mean([math.log(values[p]) for p in slow]) - mean([math.log(values[p]) for p in fast])
    U = mean([paces[p][0] for p in slow]) - mean([paces[p][0] for p in fast])
    se = math.sqrt(sum(paces[p][1] ** 2 for p in slow) / len(slow) ** 2 +
                   sum(paces[p][1] ** 2 for p in fast) / len(fast) ** 2)
    return D, U, (U / se if se > 0 else (math.inf if U > 0 else 0))


def experiment(build, exp, expected):
    xml = open(os.path.join(exp, 'experiment.xml')).read()
    attrs = process_attrs(xml)
    paces = {r: pace_of(a) for r, a in attrs.items()}
    if not paces or any(p is None for p in paces.values()):
        return [], []
    vals = region_values(build, exp)
    ranks = sorted(paces)
    prog = sorted(sum(v.get(r, [0, 0])[0] for v in vals.values()) for r in ranks)[len(ranks) // 2]
    cpus = {r: main_cpu(attrs[r]) for r in ranks}
    groups = {}
    for r in ranks:
        groups.setdefault(cpus[r], []).append(r)
    inj_fn = inj_slow = None
    if expected and expected['expect'].get('dissimilar') and expected['expect'].get('cccr'):
        inj_fn = expected['expect']['cccr']['function']
        inj_slow = expected['expect']['slow_ranks']
    balanced, injected = [], []
    if None not in groups and len(groups) == 2:
        a, b = list(groups.values())
        for path, v in vals.items():
            if inj_fn and inj_fn in path.split('/'):
                continue
            x = {r: v.get(r, [0, 0])[0] for r in ranks}
            if min(x.values()) <= 0 or min(x.values()) < 0.01 * prog:
                continue
            ma = sum(math.log(x[r]) for r in a) / len(a)
            mb = sum(math.log(x[r]) for r in b) / len(b)
            s, f = (a, b) if ma >= mb else (b, a)
            d = diff(x, paces, s, f)
            if d:
                balanced.append((exp, path, d))
    if inj_fn and inj_slow and len(inj_slow) < len(ranks):
        x = {r: 0.0 for r in ranks}
        for path, v in vals.items():
            if path.split('/')[-1] == inj_fn:
                for r in ranks:
                    x[r] += v.get(r, [0, 0])[1]
        fast = [r for r in ranks if r not in inj_slow]
        d = diff(x, paces, list(inj_slow), fast)
        if d:
            injected.append((exp, inj_fn, d))
    return balanced, injected


def experiments(dirs):
    for d in dirs:
        for exp in sorted(glob.glob(os.path.join(d, 'cases', '*', 'run*'))):
            if os.path.exists(os.path.join(exp, 'experiment.xml')):
                e = os.path.join(os.path.dirname(exp), 'expected.json')
                yield exp, json.load(open(e)) if os.path.exists(e) else None
        for exp in sorted(glob.glob(os.path.join(d, '*', 'exp-*'))):
            name = os.path.basename(os.path.dirname(exp))
            e = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'edge_probes',
                             name + '.json')
            yield exp, json.load(open(e)) if os.path.exists(e) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.environ.get('AA_BUILD', 'build'))
    ap.add_argument('--z', type=float, default=3.0)
    ap.add_argument('--min-diff', type=float, default=0.05)
    ap.add_argument('dirs', nargs='+')
    o = ap.parse_args()
    bal, inj = [], []
    for exp, expected in experiments(o.dirs):
        b, i = experiment(o.build, exp, expected)
        bal += b
        inj += i
    sig = [d for d in bal if d[2][1] > 0 and d[2][2] >= o.z]
    print('balanced splits along two CPUs: %d, the slower CPU group measured slower (z >= %g): %d'
          % (len(bal), o.z, len(sig)))
    ratios = sorted(d[2][0] / d[2][1] for d in sig)
    if ratios:
        q = lambda p: ratios[min(len(ratios) - 1, int(p * len(ratios)))]
        print('D/U of those: min %.2f, 10%% %.2f, median %.2f, 90%% %.2f, max %.2f'
              % (ratios[0], q(0.1), q(0.5), q(0.9), ratios[-1]))
    print('injected imbalances: %d, their slow ranks measured slower (z >= %g): %d'
          % (len(inj), o.z, sum(1 for d in inj if d[2][1] > 0 and d[2][2] >= o.z)))
    big = [d for d in sig if d[2][0] >= math.log(1 + o.min_diff)]
    print('of those, %d differ by %g%% or more (a finding if not explained)'
          % (len(big), 100 * o.min_diff))
    print('pace_k | balanced explained | of them %g%% or more | injected dropped' % (100 * o.min_diff))
    for k in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
        nb = sum(1 for d in sig if d[2][0] <= k * d[2][1])
        nbig = sum(1 for d in big if d[2][0] <= k * d[2][1])
        dropped = [d for d in inj if d[2][1] > 0 and d[2][2] >= o.z and d[2][0] <= k * d[2][1]]
        print('%6.1f | %4d of %-4d | %4d of %-4d | %d of %d %s' % (k, nb, len(sig), nbig, len(big), len(dropped), len(inj),
              ' '.join('%s(D %.2f U %.2f)' % (os.path.relpath(e, os.path.dirname(os.path.dirname(e))), D, U)
                       for e, _, (D, U, z) in dropped)[:300]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
