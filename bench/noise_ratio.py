#!/usr/bin/env python3
"""bench/noise_ratio.py -- the two noise estimates of the dissimilarity
analysis side by side (issue 12, bench/diagnosis.md seventeenth step): the
spread between processes that the analysis read (from the note of its JSON
report) and the spread of the processes' own visits, recomputed from the
experiment (median over processes, then over the regions run by every
process with a median self value of at least 2 ms and >= 2 visits on every
process, of sqrt(cpu_sq - cpu^2 / visits) / cpu; CPU time outside MPI and
I/O for the self values).  Reads lines "EXPERIMENT.xml ANALYSIS.json NAME"
on standard input and prints per line the two and their ratio, then the
ratio's distribution.

    for d in RUN/cases/seed-*; do echo "$d/run0/experiment.xml $d/analysis0.json $d"; done |
        python3 bench/noise_ratio.py
"""
import json
import math
import re
import statistics as st
import sys
import xml.etree.ElementTree as ET

NS = '{urn:autoanalyzer:profile:1}'


def visit_noise(path, min_self=0.002):
    root = ET.parse(path).getroot()
    names = [m.get('name') for m in root.iter(NS + 'metric')]
    index = {m: i for i, m in enumerate(names)}
    if 'cpu_sq' not in index:
        return None

    def val(v, m):
        if m not in index or v[index[m]] == '-':
            return 0.0
        return float(v[index[m]])

    procs = []
    for p in root.iter(NS + 'process'):
        paths, data = [], {}
        for n in p.iter(NS + 'node'):
            v = n.get('v').split()
            parent = int(n.get('parent'))
            path = (paths[parent] if parent >= 0 else ()) + (n.get('region'),)
            paths.append(path)
            inc = val(v, 'cpu') - val(v, 'mpi_cpu') - val(v, 'io_cpu')
            visits, cpu, sq = val(v, 'visits'), val(v, 'cpu'), val(v, 'cpu_sq')
            spread = math.sqrt(max(sq - cpu * cpu / visits, 0)) if visits >= 2 else None
            data[path] = [inc, inc, visits, spread, cpu]
        for path, d in data.items():
            if len(path) > 1 and path[:-1] in data:
                data[path[:-1]][1] -= d[0]
        procs.append(data)
    common = set(procs[0]).intersection(*[set(d) for d in procs[1:]])
    rels = []
    for path in common:
        if len(path) < 2 or st.median(d[path][1] for d in procs) < min_self:
            continue
        if any(d[path][3] is None or d[path][4] <= 0 for d in procs):
            continue
        rels.append(st.median(d[path][3] / d[path][4] for d in procs))
    return (st.median(rels), len(rels)) if len(rels) >= 3 else None


def between_noise(analysis):
    for note in json.load(open(analysis))['notes']:
        m = re.search(r'differ by ([0-9.e+]+)% in CPU time', note)
        if m:
            return float(m.group(1)) / 100
    return None


def main():
    ratios = []
    for line in sys.stdin:
        exp, analysis, name = line.split()
        b, v = between_noise(analysis), visit_noise(exp)
        if b is None or v is None or v[0] <= 0:
            print(name, 'between', b, 'visits', v and v[0], '(no ratio)')
            continue
        ratios.append(b / v[0])
        print('%s between %.4f visits %.4f (%d regions) ratio %.2f' % (name, b, v[0], v[1], b / v[0]))
    if ratios:
        ratios.sort()
        q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
        print('ratio over %d runs: median %.2f, 95th percentile %.2f, largest %.2f'
              % (len(ratios), st.median(ratios), q(0.95), ratios[-1]))


if __name__ == '__main__':
    main()
