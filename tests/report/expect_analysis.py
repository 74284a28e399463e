#!/usr/bin/env python3
"""tests/report/expect_analysis.py -- checks an analysis JSON (SPEC §9
contract of `autoanalyzer analyze --json`) against what a sample documents.

  expect_analysis.py ANALYSIS.json [--kind dissimilarity|disparity|any]
      [--function F1,F2]   some core bottleneck (CCCR) of that kind lies in one of them
      [--line-in F:N]      ... and one of them is a region of function F whose
                            source lines contain N (the documented line)
      [--cause A,B]        that bottleneck names one of these root causes
      [--unavailable A,B]  all of these are listed as unavailable
      [--clusters N]       exactly N process clusters
      [--alone RANK]       RANK forms a cluster of its own
      [--region-kind K]    that bottleneck's region has kind K (e.g. loop)
Prints what it found; exit status 0 when every expectation holds."""
import json, sys

def main():
    args = sys.argv[1:]
    path = args.pop(0)
    opts = {}
    while args:
        k = args.pop(0)
        opts[k] = args.pop(0)
    with open(path) as f:
        a = json.load(f)
    bad = []
    kinds = ['dissimilarity', 'disparity'] if opts.get('--kind', 'any') == 'any' else [opts['--kind']]
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
    print('# unavailable: %s' % ','.join(a.get('unavailable', [])))
    match = found
    if '--function' in opts:
        fs = opts['--function'].split(',')
        match = [(k, b) for k, b in match if b.get('function') in fs]
        if not match:
            bad.append('no %s CCCR in %s' % ('/'.join(kinds), opts['--function']))
    if '--region-kind' in opts and match:
        m2 = [(k, b) for k, b in match if b.get('kind') == opts['--region-kind']]
        if not m2:
            bad.append('no matching CCCR is a %s' % opts['--region-kind'])
        match = m2
    if '--line-in' in opts and match:
        fn, ln = opts['--line-in'].split(':')
        ln = int(ln)
        regions = {r['id']: r for r in a.get('regions', [])}
        ok = False
        for k, b in match:
            r = regions.get(b.get('region'), {})
            lo, hi = r.get('line', 0), r.get('end_line', r.get('line', 0))
            if b.get('function') == fn and lo <= ln <= max(hi, lo):
                ok = True
        if not ok:
            bad.append('no matching CCCR of %s spans line %d' % (fn, ln))
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
    if '--alone' in opts:
        r = int(opts['--alone'])
        if not any(c.get('ranks') == [r] for c in clusters):
            bad.append('rank %d is not alone in a cluster' % r)
    for b in bad:
        print('# FAIL: ' + b)
    return 1 if bad else 0

sys.exit(main())
