#!/usr/bin/env python3
"""tests/diagnosis/score.py -- scores one analysis against one expected
diagnosis (the suite's expected.json schema, bench/diagnosis.md).

  score.py EXPECTED.json ANALYSIS.json [--round2 ANALYSIS2.json]

Prints one JSON object per check on stdout:
  {"case", "kind", "band", "check", "pass": true|false, "detail"}
Checks (only those the expectation makes meaningful are emitted):
  cluster    the process partition is exactly the expected one: the slow
             ranks vs the rest, or the expected groups (a rank the analysis
             excluded as a master counts as a group of its own); for a
             case with no dissimilarity, one cluster
  cccr       some dissimilarity CCCR is exactly the expected innermost
             region (function and line; `via`: that function is on its
             calling-context path)
  cause      the CCCR matching the expectation (dissimilarity CCCR for a
             dissimilar case, disparity CCCR otherwise) names the cause
  disparity  some disparity CCCR is exactly the expected region
  dynamic    some dynamic-imbalance CCCR is exactly the expected region
             (where the work that moves between processes is)
  no_false   no CCCR lies where nothing was injected: none at all on a
             no-bottleneck program; otherwise each CCCR must be on the
             calling-context path of an expected region (itself, an
             ancestor or a descendant) or inside a `benign` function.  A
             benign entry with `slow_ranks` is a real imbalance a
             no-bottleneck program has (bench/real_diagnosis.sh says why):
             a dissimilarity CCCR inside its function with exactly those
             slow ranks, and the partition it makes, are no false finding
             and no false cluster.  A
             dynamic imbalance is no false finding where the noise axis's
             per-step jitter alone makes the ranks wait at least
             JITTER_BENIGN of the run (expect.dynamic_jitter_share: the
             jitter is a dynamic imbalance of that size)
  round2     (with --round2) some CCCR of round 2 is exactly the expected
             round-2 region (of the expected kind: dissimilarity, dynamic
             or disparity)
Exit 0 (the checks carry the verdicts), 2 on bad usage or unreadable input.
"""
import json
import sys

# half the analysis' finding_min_share (1%): a dynamic imbalance of the
# noise axis's jitter that costs this much may be measured at 1%
JITTER_BENIGN = 0.005


def band(exp):
    r = (exp.get('magnitude') or {}).get('run_share')
    if exp.get('expect', {}).get('no_finding') or r is None or r <= 0:
        return 'none'
    if r < 0.03:
        return '<3%'
    if r < 0.10:
        return '3-10%'
    if r < 0.30:
        return '10-30%'
    return '>=30%'


class Analysis:
    def __init__(self, a):
        self.a = a
        self.regs = {r['index']: r for r in a.get('regions', [])}

    def path(self, idx):
        out = []
        while idx is not None and idx in self.regs:
            out.append(self.regs[idx])
            idx = self.regs[idx].get('parent_index')
        return out

    def cccrs(self, kind):
        return [b for b in self.a.get(kind, {}).get('bottlenecks', []) if b.get('cccr')]

    def matches(self, idx, want):
        """region idx is exactly `want` (function, line, optional via)."""
        r = self.regs.get(idx)
        if not r or want is None:
            return False
        if r.get('function') != want.get('function') or r.get('line') != want.get('line'):
            return False
        via = want.get('via')
        if via:
            return any(x.get('function') == via and x.get('kind') == 'function'
                       for x in self.path(idx)[1:])
        return True

    def related(self, idx, want):
        """region idx is on the calling-context path of a region matching want."""
        if want is None:
            return False
        for j in self.regs:
            if self.matches(j, want):
                if any(x['index'] == idx for x in self.path(j)):
                    return True       # idx is an ancestor (or itself)
                if any(x['index'] == j for x in self.path(idx)):
                    return True       # idx is a descendant
        return False

    def in_function(self, idx, fn):
        return any(x.get('function') == fn for x in self.path(idx))


def partition(a, nprocs):
    parts = [frozenset(c.get('ranks', [])) for c in a.get('dissimilarity', {}).get('clusters', [])]
    for r in a.get('excluded_ranks', []):
        parts.append(frozenset([r]))
    return set(p for p in parts if p)


def score(exp, a, a2=None):
    e = exp['expect']
    A = Analysis(a)
    base = {'case': exp.get('case'), 'kind': exp.get('kind'), 'band': band(exp)}
    out = []

    def check(name, ok, detail=''):
        d = dict(base)
        d.update({'check': name, 'pass': bool(ok), 'detail': detail})
        out.append(d)

    P = exp.get('nprocs')
    got = partition(a, P)
    gotd = ' | '.join(','.join(map(str, sorted(p))) for p in sorted(got, key=min))
    if e.get('dissimilar'):
        if e.get('groups'):
            want = set(frozenset(g) for g in e['groups'])
        else:
            slow = frozenset(e.get('slow_ranks', []))
            want = {slow, frozenset(range(P)) - slow} if P else {slow}
            want.discard(frozenset())
        check('cluster', got == want, 'got %s; want %s' % (gotd, ' | '.join(
            ','.join(map(str, sorted(p))) for p in sorted(want, key=min))))
    dis = A.cccrs('dissimilarity')
    dsp = A.cccrs('disparity')
    dyn = A.cccrs('dynamic')
    known = [x for x in exp.get('benign', []) if x.get('slow_ranks') is not None
             and x.get('kind', 'dissimilarity') == 'dissimilarity']

    def known_imbalance(b):
        return any(A.in_function(b['index'], x['function']) and
                   sorted(b.get('slow_ranks') or []) == sorted(x['slow_ranks']) for x in known)

    if not e.get('dissimilar'):
        ok = len(got) <= 1
        if not ok and dis and all(known_imbalance(b) for b in dis) and P:
            slow = frozenset(dis[0].get('slow_ranks') or [])
            ok = got == {slow, frozenset(range(P)) - slow}
        check('cluster', ok, 'got %s; want one cluster%s' % (
            gotd, ' (or the benign imbalance\'s)' if known else ''))

    def desc(b):
        return '%s@%s:%s' % (b.get('name'), b.get('function'), b.get('line'))

    if e.get('cccr'):
        hit = [b for b in dis if A.matches(b['index'], e['cccr'])]
        check('cccr', hit, 'dissimilarity CCCRs: %s; want %s:%s%s' % (
            ', '.join(desc(b) for b in dis) or 'none', e['cccr']['function'], e['cccr']['line'],
            ' via ' + e['cccr']['via'] if e['cccr'].get('via') else ''))
    if e.get('disparity'):
        hit = [b for b in dsp if A.matches(b['index'], e['disparity'])]
        check('disparity', hit, 'disparity CCCRs: %s; want %s:%s' % (
            ', '.join(desc(b) for b in dsp) or 'none', e['disparity']['function'], e['disparity']['line']))
    if e.get('dynamic'):
        hit = [b for b in dyn if A.matches(b['index'], e['dynamic'])]
        check('dynamic', hit, 'dynamic CCCRs: %s; want %s:%s' % (
            ', '.join(desc(b) for b in dyn) or 'none', e['dynamic']['function'],
            e['dynamic']['line']))
    if e.get('cause'):
        causes = e['cause'] if isinstance(e['cause'], list) else [e['cause']]
        if e.get('dissimilar') and e.get('cccr'):
            cands = [b for b in dis if A.matches(b['index'], e['cccr'])]
        else:
            cands = [b for b in dsp if A.matches(b['index'], e.get('disparity'))]
        named = sorted(set(c for b in cands for c in b.get('root_causes', [])))
        check('cause', any(c in named for c in causes), 'named %s; want %s%s' % (
            ','.join(named) or 'none', '|'.join(causes), '' if cands else ' (region not found)'))

    # false CCCRs
    benign = exp.get('benign', [])
    false = []
    jitter = (e.get('dynamic_jitter_share') or 0) >= JITTER_BENIGN
    for kind, lst in (('dissimilarity', dis), ('disparity', dsp), ('dynamic', dyn)):
        for b in lst:
            i = b['index']
            if kind == 'dynamic' and jitter:
                continue
            if e.get('no_finding'):
                if not (kind == 'dissimilarity' and known_imbalance(b)):
                    false.append(kind[:5] + ' ' + desc(b))
                continue
            ok = (A.related(i, e.get('cccr')) or A.related(i, e.get('cccr_round2'))
                  or (kind == 'disparity' and A.related(i, e.get('disparity')))
                  or (kind != 'dissimilarity' and A.related(i, e.get('dynamic'))))
            if kind == 'dissimilarity' and not e.get('dissimilar'):
                ok = False
            if not ok:
                ok = any(x.get('kind', kind) == kind and A.in_function(i, x['function']) for x in benign)
            if not ok:
                false.append(kind[:5] + ' ' + desc(b))
    check('no_false', not false, 'false CCCRs: %s' % (', '.join(false) or 'none'))

    if a2 is not None and e.get('cccr_round2'):
        A2 = Analysis(a2)
        kind = ('dissimilarity' if e.get('dissimilar')
                else 'dynamic' if e.get('dynamic') else 'disparity')
        lst = A2.cccrs(kind)
        hit = [b for b in lst if A2.matches(b['index'], e['cccr_round2'])]
        check('round2', hit, 'round-2 %s CCCRs: %s; want %s:%s' % (
            kind, ', '.join(desc(b) for b in lst) or 'none', e['cccr_round2']['function'],
            e['cccr_round2']['line']))
    return out


def verdict(a):
    """What the analysis concluded, for the stability comparison."""
    A = Analysis(a)
    parts = sorted(sorted(p) for p in partition(a, None))
    found = []
    for kind in ('dissimilarity', 'disparity', 'dynamic'):
        for b in A.cccrs(kind):
            found.append((kind, b.get('function'), b.get('line'),
                          tuple(x.get('function') for x in A.path(b['index'])),
                          tuple(sorted(b.get('root_causes', [])))))
    return [parts, sorted(found)]


def main():
    args = sys.argv[1:]
    a2 = None
    if '--round2' in args:
        i = args.index('--round2')
        if i + 1 >= len(args):
            sys.stderr.write(__doc__)
            return 2
        a2p = args[i + 1]
        del args[i:i + 2]
    else:
        a2p = None
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        exp = json.load(open(args[0]))
        a = json.load(open(args[1]))
        if a2p:
            a2 = json.load(open(a2p))
    except (OSError, ValueError) as x:
        sys.stderr.write('score.py: %s\n' % x)
        return 2
    for c in score(exp, a, a2):
        print(json.dumps(c))
    return 0


if __name__ == '__main__':
    sys.exit(main())
