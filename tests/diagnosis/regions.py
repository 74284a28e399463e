#!/usr/bin/env python3
"""tests/diagnosis/regions.py -- what the instrumenter's region choice
(size rules, modes) does to the diagnosis suite, without running anything:
generates every case of cases.txt (gen.py), instruments its prog.c in the
default mode with $AA_BUILD's `autoanalyzer instrument`, and checks that
every region the suite expects to be found (the round-1 CCCR and the
disparity region: function and line) is instrumented.  With --against
BUILD it also instruments with that other build and lists every region
BUILD instrumented that $AA_BUILD leaves out (the regions a change of
the rules drops).  Deterministic and quick (no mpirun): the companion of
`run.py` when only the instrumenter changed.

  regions.py [--seeds FILE] [--against BUILD] [--out DIR]

Environment: AA_BUILD (default build), MPICC (default mpicc, for its
include directories).  Exit 0 when every expected region is instrumented
(and, with --against, none is dropped), 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def seeds_of(path):
    out = []
    for line in open(path):
        line = line.split('#')[0].strip()
        if line:
            out.append(int(line.split()[0]))
    return out


def regions(build, src, outdir, tag, flags):
    """{(function, name, line): instrumented?} of the default-mode map."""
    m = os.path.join(outdir, tag + '.regions.xml')
    subprocess.run([os.path.join(build, 'bin', 'autoanalyzer'), 'instrument', '-q', src,
                    '-o', os.path.join(outdir, tag + '.c'), '--map', m, '--'] + flags,
                   check=True)
    got = {}
    for r in re.findall(r'<region [^>]*>', open(m).read()):
        def attr(k):
            x = re.search(' %s="([^"]*)"' % k, r)
            return x.group(1) if x else None
        got[(attr('function'), attr('name'), attr('line'))] = 'instrumented="no"' not in r
    return got


def main():
    args = sys.argv[1:]
    seeds_file = os.path.join(HERE, 'cases.txt')
    against = None
    out = None
    while args:
        a = args.pop(0)
        if a in ('--seeds', '--against', '--out') and args:
            v = args.pop(0)
            if a == '--seeds':
                seeds_file = v
            elif a == '--against':
                against = v
            else:
                out = v
        else:
            sys.stderr.write(__doc__)
            return 2
    build = os.environ.get('AA_BUILD', 'build')
    mpicc = os.environ.get('MPICC', 'mpicc')
    inc = subprocess.run([mpicc, '--showme:incdirs'], capture_output=True, text=True).stdout.split()
    flags = ['-I' + d for d in inc]
    out = out or tempfile.mkdtemp(prefix='aa-regions.')
    missing, dropped, n = [], [], 0
    for s in seeds_of(seeds_file):
        d = os.path.join(out, 'seed-%04d' % s)
        subprocess.run([sys.executable, os.path.join(HERE, 'gen.py'), str(s), d],
                       capture_output=True, check=True)
        exp = json.load(open(os.path.join(d, 'expected.json')))
        src = os.path.join(d, 'prog.c')
        mine = regions(build, src, d, 'this', flags)
        n += 1
        for key in ('cccr', 'disparity'):
            x = exp['expect'].get(key)
            if not isinstance(x, dict) or 'function' not in x:
                continue
            if not any(on and k[0] == x['function'] and k[2] == str(x['line'])
                       for k, on in mine.items()):
                missing.append((exp['case'], key, '%s:%s' % (x['function'], x['line'])))
        if against:
            other = regions(against, src, d, 'against', flags)
            dropped += [(exp['case'], k) for k, on in other.items() if on and not mine.get(k)]
    print('regions: %d cases; expected regions not instrumented: %d' % (n, len(missing)))
    for m in missing:
        print('  missing %s %s %s' % m)
    if against:
        print('regions: instrumented by %s, left out by %s: %d' % (against, build, len(dropped)))
        for c, k in dropped:
            print('  dropped %s %s/%s line %s' % (c, k[0], k[1], k[2]))
    return 1 if missing or dropped else 0


if __name__ == '__main__':
    sys.exit(main())
