#!/usr/bin/env python3
"""tests/report/expect_analysis.py -- checks an analysis JSON (SPEC §9
contract of `autoanalyzer analyze --json`) against what a sample documents.

  expect_analysis.py ANALYSIS.json [--kind dissimilarity|disparity|dynamic|any]
      [--function F1,F2]   some core bottleneck (CCCR) of that kind lies in one of
                           them: its region or a calling-context ancestor belongs
                           to one of these functions
      [--map FILE.xml]     experiment or region map giving regions' end lines
      [--path-loop F:N]    ... and on its calling-context path (itself or an
                           ancestor) is a loop of function F whose lines (from
                           --map) contain N (the documented line)
      [--not-ids FILE]     ... and that loop's id is not in FILE (one id per
                           line: a region added by round-2 refinement)
      [--cause A,B]        that bottleneck names one of these root causes
      [--unavailable A,B]  all of these are listed as unavailable
      [--clusters N]       exactly N process clusters
      [--clusters-or-shared-cpus N EXPERIMENT.xml]
                           exactly N process clusters, or more only as the
                           processes' CPUs: every kept imbalance is one the
                           analysis says too few regions could tell from the
                           CPUs' pace (dissimilarity.placement_undecided), and
                           the processes that ran on one CPU (EXPERIMENT.xml's
                           `cpus`, 75% of their samples or more) are in one
                           cluster, and some CPU ran two of them
      [--alone RANK]       RANK forms a cluster of its own (or was excluded as a master)
      [--region-kind K]    that bottleneck's region has kind K (e.g. loop)
      [--none KIND]        no core bottleneck of that kind (a control case)
Prints what it found; exit status 0 when every expectation holds."""
import json, sys

def main():
    args = sys.argv[1:]
    path = args.pop(0)
    opts = {}
    while args:
        k = args.pop(0)
        opts[k] = args.pop(0)
        if k == '--clusters-or-shared-cpus':
            opts[k] = (opts[k], args.pop(0))
    with open(path) as f:
        a = json.load(f)
    bad = []
    kinds = (['dissimilarity', 'disparity', 'dynamic'] if opts.get('--kind', 'any') == 'any'
             else [opts['--kind']])
    found = []
    for kind in kinds:
        for b in a.get(kind, {}).get('bottlenecks', []):
            if b.get('cccr'):
                found.append((kind, b))
    for kind, b in found:
        print('# CCCR %s: %s in %s (%s:%s) causes=%s' % (kind, b.get('name'), b.get('function'),
              b.get('file'), b.get('line'), ','.join(b.get('root_causes', []))))
    clusters = a.get('dissimilarity', {}).get('clusters', [])
    print('# clusters: %s' % ' | '.join(','.join(str(r) for r in c.get('ranks', [])) for c in clusters))
    print('# excluded ranks: %s' % ','.join(str(r) for r in a.get('excluded_ranks', [])))
    print('# unavailable: %s' % ','.join(a.get('unavailable', [])))
    match = found
    regs = {r['index']: r for r in a.get('regions', [])}
    def path(b):
        out, i = [], b.get('index')
        while i is not None and i in regs:
            out.append(regs[i])
            i = regs[i].get('parent_index')
        return out
    if '--function' in opts:
        fs = opts['--function'].split(',')
        match = [(k, b) for k, b in match if any(r.get('function') in fs for r in path(b))]
        if not match:
            bad.append('no %s CCCR in (or under) %s' % ('/'.join(kinds), opts['--function']))
    if '--region-kind' in opts and match:
        m2 = [(k, b) for k, b in match if b.get('kind') == opts['--region-kind']]
        if not m2:
            bad.append('no matching CCCR is a %s' % opts['--region-kind'])
        match = m2
    if '--path-loop' in opts and match:
        import re
        fn, ln = opts['--path-loop'].rsplit(':', 1)  # C++ names hold '::'
        ln = int(ln)
        ends = {}
        if '--map' in opts:
            for m in re.finditer(r'<region ([^>]*)>', open(opts['--map']).read()):
                at = dict(re.findall(r'([a-z-]+)="([^"]*)"', m.group(1)))
                if 'id' in at and 'end-line' in at:
                    ends[int(at['id'])] = int(at['end-line'])
        old = set()
        if '--not-ids' in opts:
            old = set(int(x.split()[0]) for x in open(opts['--not-ids']) if x.strip())
        hit = None
        for k, b in match:
            for r in path(b):
                lo = r.get('line', 0)
                hi = ends.get(r.get('id'), lo)
                if (r.get('kind') == 'loop' and r.get('function') == fn and lo <= ln <= hi
                        and r.get('id') not in old):
                    hit = (b, r)
                    break
            if hit:
                break
        if hit:
            print('# narrowed: CCCR %s via loop %s (lines %d-%d)' % (hit[0].get('name'), hit[1].get('name'),
                  hit[1].get('line'), ends.get(hit[1].get('id'), hit[1].get('line'))))
        else:
            bad.append('no matching CCCR runs through a %sloop of %s spanning line %d'
                       % ('new ' if old else '', fn, ln))
    if '--cause' in opts and match:
        cs = opts['--cause'].split(',')
        if not any(set(cs) & set(b.get('root_causes', [])) for k, b in match):
            bad.append('no matching CCCR names a root cause in %s' % opts['--cause'])
    if '--unavailable' in opts:
        un = set(a.get('unavailable', []))
        for x in opts['--unavailable'].split(','):
            if x not in un:
                bad.append('%s not listed as unavailable' % x)
    if '--clusters' in opts and len(clusters) != int(opts['--clusters']):
        bad.append('%d clusters, want %s' % (len(clusters), opts['--clusters']))
    if '--clusters-or-shared-cpus' in opts:
        n, exp = opts['--clusters-or-shared-cpus']
        if len(clusters) != int(n):
            why = shared_cpus_split(a, clusters, exp)
            if why:
                bad.append('%d clusters, want %s (%s)' % (len(clusters), n, why))
            else:
                print('# %d clusters: the CPUs the processes shared, too few regions to tell'
                      % len(clusters))
    if '--alone' in opts:
        r = int(opts['--alone'])
        if not any(c.get('ranks') == [r] for c in clusters) and r not in a.get('excluded_ranks', []):
            bad.append('rank %d is neither alone in a cluster nor excluded as a master' % r)
    if '--none' in opts:
        nk = [b for b in a.get(opts['--none'], {}).get('bottlenecks', []) if b.get('cccr')]
        for b in nk:
            print('# CCCR %s: %s in %s' % (opts['--none'], b.get('name'), b.get('function')))
        if nk:
            bad.append('%d %s CCCR(s), want none' % (len(nk), opts['--none']))
    for b in bad:
        print('# FAIL: ' + b)
    return 1 if bad else 0

def shared_cpus_split(a, clusters, exp):
    """Why the partition is not the shared CPUs' one the analysis could not
    judge; '' when it is."""
    import re
    d = a.get('dissimilarity', {})
    und = d.get('placement_undecided') or {}
    if und.get('imbalances') != len(d.get('bottlenecks', [])):
        return 'not every imbalance undecided between the CPUs and the work: %s of %d' % (
            und.get('imbalances', 0), len(d.get('bottlenecks', [])))
    cpu = {}
    for m in re.finditer(r'<process rank="(\d+)"(.*?)</process>', open(exp).read(), re.S):
        c = re.search(r'<attr name="cpus">(\d+):([0-9.]+)', m.group(2))
        if c and float(c.group(2)) >= 0.75:
            cpu.setdefault(c.group(1), []).append(int(m.group(1)))
    of = {r: i for i, c in enumerate(clusters) for r in c.get('ranks', [])}
    for c, ranks in cpu.items():
        if len(set(of.get(r) for r in ranks)) > 1:
            return 'CPU %s ran ranks %s of different clusters' % (c, ranks)
    if not any(len(ranks) > 1 for ranks in cpu.values()):
        return 'no CPU ran two processes'
    return ''

sys.exit(main())
