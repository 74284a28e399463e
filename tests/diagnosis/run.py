#!/usr/bin/env python3
"""tests/diagnosis/run.py -- driver of the diagnosis validation suite
(bench/diagnosis.md): generates every case (gen.py), builds it plainly
(mpicc) and through the one-word wrapper ($AA_BUILD/bin/autoanalyzer-mpicc),
checks that both print the same checksum, runs the instrumented program
REPS times with mpirun, analyses each run (`autoanalyzer analyze DIR
--json`), scores it (score.py), rebuilds two-round cases with
AUTOANALYZER_REFINE=<round-1 analysis> and scores round 2, and prints the
tables by kind and by magnitude band.  The last line is exactly
`diagnosis: N of M checks pass`.

  run.py [--quick] [--seeds FILE] [--reps N] [--out DIR] [--limit N]
         [--jobs N] [--keep] [--set NAME=VALUE ...] [--nominal-costs]

  --quick       the QUICK subset (tests/diagnosis/quick.txt) instead of
                cases.txt
  --reps N      repetitions of each run (default $REPS or 3); with N > 1 a
                `stable` check per case: the same check verdicts every time
  --out DIR     work and results directory (default $TMPDIR/aa-diagnosis);
                DIR/results.jsonl holds every check, DIR/summary.json the
                tables
  --limit N     only the first N cases (a documented fraction of the list)
  --jobs N      cores to use (default nproc): cases run concurrently as far
                as their ranks fit in the cores (at least one at a time)
  --set N=V     an analysis setting (`autoanalyzer analyze --list-settings`)
                for every analysis of the run, round 2's refinement included;
                repeatable -- with --reanalyze, the loop for sweeping one
  --nominal-costs   size the MPI-cost cases (comm_volume,
                collective_heavy) and the I/O cases with gen.py's nominal
                costs, as runs before the eighteenth (MPI) and twenty-first
                (I/O) steps did, instead of measuring what MPI and I/O cost
                here at each rank count (mpi_costs.c, io_costs.c);
                --nominal-mpi-costs is the same
  run.py --summarize DIR   the tables again from DIR/results.jsonl (also
                while a run is still going: the cases done so far)
  run.py --reanalyze SRC [--out DIR]   analyses the runs kept by an earlier
                `--keep` run in SRC again with $AA_BUILD's analyzer and
                scores them (no build, no mpirun: seconds, not minutes) --
                the loop for changing the analysis.  `output` and `stable`
                are taken over from SRC; `round2` scores the kept round-2
                run, whose refinement came from SRC's round-1 analysis.
  run.py --reanalyze SRC --round2 [--out DIR]   also round 2 again: built
                with the refinement of the new round-1 analysis, run and
                analysed in DIR (mpirun again: minutes)
  run.py --stage STAGE ...   the suite split between two machines: the
                one that builds (the instrumenter, $AA_BUILD) and the one
                that measures (mpirun and the runtime's libraries only), e.g.
                a dedicated node:
      costs   (measuring machine) --seeds F --out C: C/costs.json
      build   (here) --seeds F --costs C/costs.json --out D:
              generates and builds every case, runs nothing
      run     (measuring machine) --out D --reps N: runs every built case
              not yet run and every round-2 program not yet run; appends
              the `output` checks to D/results.jsonl
      round2  (here) --out D: analyses run0 of the two-round cases and
              builds their round-2 programs (then `run` again)
              then (here) --reanalyze D --out D2 analyses and scores it all
  --costs FILE   size the MPI- and I/O-cost cases with costs measured
                elsewhere (a `costs` stage's costs.json; --mpi-costs FILE,
                an older mpi_costs.json: MPI costs only, I/O nominal)
Environment: AA_BUILD (default build), MPIRUN (default mpirun), MPICC
(default mpicc).  Exit 0 when the suite ran (the figures are the result),
1 when a case could not be built or run at all.
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen      # noqa: E402
import score    # noqa: E402

CHECKS = ['output', 'cluster', 'cccr', 'cause', 'disparity', 'dynamic', 'no_false', 'stable',
          'round2']
TARGETS = {'cluster': '>=95%', 'cccr': '>=95%', 'cause': '>=90%', 'no_false': '>=98%',
           'stable': '>=95%', 'round2': '>=90%', 'disparity': '>=95%', 'dynamic': '>=90%',
           'output': '100%'}
BANDS = ['<3%', '3-10%', '10-30%', '>=30%', 'none']


def env_for_mpi():
    e = dict(os.environ)
    e.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
              'OMPI_MCA_rmaps_base_oversubscribe': '1', 'OMPI_MCA_btl': 'self,vader',
              'OMPI_MCA_btl_vader_single_copy_mechanism': 'none'})
    return e


def sh(cmd, cwd, env=None, timeout=600):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return 124, 'timed out after %d s' % timeout


def checksum(text):
    for line in text.splitlines():
        if line.startswith('checksum: '):
            return line.strip()
    return None


MPI_COST_KINDS = ('comm_volume', 'collective_heavy')
IO_COST_KINDS = tuple(gen.IO_COST_KEYS)
STAGES = ('costs', 'build', 'run', 'round2')
# what each cost program measures (its "name value" lines)
COST_PROGRAMS = (('mpi_costs', MPI_COST_KINDS, ('allreduce_ms', 'sendrecv_ms_per_mb')),
                 ('io_costs', IO_COST_KINDS, tuple(k for k, _ in gen.IO_COST_KEYS.values())))


def measure_costs(seeds, cfg):
    """{nprocs: {cost: value}}: what MPI and I/O cost on this machine at the
    rank counts of the seeds whose injected cost is MPI's (mpi_costs.c:
    'allreduce_ms', 'sendrecv_ms_per_mb') or I/O's (io_costs.c:
    'write_ms_per_mb', 'fwrite_ms_per_mb', 'fprintf_ms_per_kline',
    'meta_ms'), run before any case; gen.py sizes those cases with them.
    Written to OUT/costs.json."""
    out, costs = cfg['out'], {}
    env = env_for_mpi()
    mpicc = os.environ.get('MPICC', 'mpicc')
    mpirun = os.environ.get('MPIRUN', 'mpirun').split()
    for prog, kinds, keys in COST_PROGRAMS:
        need = sorted({gen.plan(s)['nprocs'] for s in seeds if gen.plan(s)['kind'] in kinds})
        if not need:
            continue
        st, o = sh([mpicc, '-O2', '-o', prog, os.path.join(HERE, prog + '.c')], out, env)
        if st:
            raise RuntimeError('%s.c: %s' % (prog, o[-400:]))
        for P in need:
            st, o = sh(mpirun + ['--oversubscribe', '-np', str(P), './' + prog], out, env, 120)
            vals = dict(ln.split() for ln in o.splitlines() if len(ln.split()) == 2)
            try:
                costs.setdefault(P, {}).update({k: float(vals[k]) for k in keys})
            except (KeyError, ValueError):
                raise RuntimeError('%s at %d ranks (%d): %s' % (prog, P, st, o[-400:]))
    with open(os.path.join(out, 'costs.json'), 'w') as f:
        json.dump({str(k): v for k, v in costs.items()}, f, indent=1)
    mpi = [(P, c) for P, c in sorted(costs.items()) if 'allreduce_ms' in c]
    io = [(P, c) for P, c in sorted(costs.items()) if 'write_ms_per_mb' in c]
    if mpi:
        print('# MPI costs (CPU per call / per MB): ' + ', '.join(
            '%d ranks %.3g us / %.3g ms' % (P, 1e3 * c['allreduce_ms'], c['sendrecv_ms_per_mb'])
            for P, c in mpi))
    if io:
        print('# I/O costs (ms per MB write / fwrite, per 1000 lines, per metadata group): ' +
              ', '.join('%d ranks %.3g / %.3g / %.3g / %.3g' % (
                  P, c['write_ms_per_mb'], c['fwrite_ms_per_mb'], c['fprintf_ms_per_kline'],
                  c['meta_ms']) for P, c in io))
    return costs


def case_dir(cfg, seed):
    return os.path.join(cfg['out'], 'cases', 'seed-%04d' % seed)


def build_case(seed, cfg):
    """Generates one case and builds it plainly and through the wrapper;
    (exp, d, info) -- info['errors'] says what failed."""
    aa = cfg['aa_build']
    d = case_dir(cfg, seed)
    shutil.rmtree(d, ignore_errors=True)
    exp = gen.write_case(seed, d, cfg.get('costs', {}).get(gen.plan(seed)['nprocs']))
    env = env_for_mpi()
    env['TMPDIR'] = d
    info = {'case': exp['case'], 'seed': seed, 'nprocs': exp['nprocs'], 'errors': []}
    mpicc = os.environ.get('MPICC', 'mpicc')
    wrap = os.path.join(aa, 'bin', 'autoanalyzer-mpicc')
    st, o = sh([mpicc, '-O2', '-o', 'plain', 'prog.c'], d, env)
    if st:
        info['errors'].append('plain build: ' + o[-400:])
        return exp, d, info
    st, o = sh([wrap, '-O2', '-o', 'inst', 'prog.c'], d, env)
    if st:
        info['errors'].append('wrapper build: ' + o[-400:])
    return exp, d, info


def run_reps(exp, d, cfg, info, first=0):
    """Runs the plain build once and the instrumented one cfg['reps'] times
    (run<first>, run<first+1>, ...); the `output` check of each repetition."""
    env = env_for_mpi()
    env['TMPDIR'] = d
    mpirun = os.environ.get('MPIRUN', 'mpirun').split()
    P = exp['nprocs']
    st, o = sh(mpirun + ['--oversubscribe', '-np', str(P), './plain'], d, env, 300)
    want = checksum(o)
    if st or not want:
        info['errors'].append('plain run (%d): %s' % (st, o[-400:]))
        return []
    out = []
    for rep in range(first, first + cfg['reps']):
        e2 = dict(env)
        e2['AUTOANALYZER_OUTPUT'] = os.path.join(d, 'run%d' % rep)
        st, o = sh(mpirun + ['--oversubscribe', '-np', str(P), './inst'], d, e2, 300)
        got = checksum(o)
        c = {'case': exp['case'], 'kind': exp['kind'], 'band': score.band(exp), 'check': 'output',
             'detail': 'plain %s, instrumented %s (exit %d)' % (want, got, st), 'rep': rep}
        c['pass'] = (st == 0 and got == want)
        out.append(c)
    return out


def run_case(seed, cfg):
    """Builds, runs, analyses and scores one case; returns (checks, info)."""
    t0 = time.time()
    exp, d, info = build_case(seed, cfg)
    checks = []
    if info['errors']:
        return checks, info
    outputs = run_reps(exp, d, cfg, info)
    if not outputs:
        return checks, info
    env = env_for_mpi()
    env['TMPDIR'] = d
    verdicts = []
    per_rep = []
    for c in outputs:
        rep = c['rep']
        aj = os.path.join(d, 'analysis%d.json' % rep)
        st2, o2 = sh(analyze_cmd(cfg, os.path.join(d, 'run%d' % rep), aj), d, env, 300)
        if st2 or not os.path.exists(aj):
            info['errors'].append('analyze rep %d (%d): %s' % (rep, st2, o2[-400:]))
            a = {}
        else:
            a = json.load(open(aj))
        rc = [c] + score.score(exp, a)
        for x in rc:
            x['rep'] = rep
        per_rep.append(rc)
        verdicts.append(score.verdict(a) if a else None)
    for rc in per_rep:
        checks += rc
    if cfg['reps'] > 1:
        sig = [[(x['check'], x['pass']) for x in rc] for rc in per_rep]
        same = all(s == sig[0] for s in sig)
        checks.append({'case': exp['case'], 'kind': exp['kind'], 'band': score.band(exp),
                       'check': 'stable', 'pass': same, 'rep': None,
                       'detail': 'same check verdicts in %d reps' % cfg['reps'] if same else
                       'verdicts differ: ' + ' / '.join(
                           ','.join('%s=%s' % (k, 'ok' if v else 'FAIL') for k, v in s) for s in sig),
                       'same_findings': all(v == verdicts[0] for v in verdicts)})
    if exp['expect'].get('cccr_round2'):
        checks += round2(cfg, exp, d, d, os.path.join(d, 'analysis0.json'), info)
    info['seconds'] = round(time.time() - t0, 1)
    if not cfg['keep']:
        for name in os.listdir(d):
            p = os.path.join(d, name)
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif name in ('plain', 'inst', 'inst2'):
                os.unlink(p)
    return checks, info


def round2_build(cfg, src, d, aj, info):
    """Builds inst2 in d: prog.c of src instrumented with the refinement from
    round 1's analysis aj.  False (and an error in info) when it fails."""
    env = env_for_mpi()
    env['TMPDIR'] = d
    env['AUTOANALYZER_REFINE'] = aj
    for name in ('prog.c', 'kernel.h'):
        if src != d:
            shutil.copy(os.path.join(src, name), os.path.join(d, name))
    st, o = sh([os.path.join(cfg['aa_build'], 'bin', 'autoanalyzer-mpicc'), '-O2', '-o', 'inst2',
                'prog.c'], d, env)
    if st:
        info['errors'].append('round-2 build: ' + o[-400:])
    return st == 0


def round2_run(exp, d):
    """Runs inst2 of d into d/round2."""
    env = env_for_mpi()
    env['TMPDIR'] = d
    rd = os.path.join(d, 'round2')
    shutil.rmtree(rd, ignore_errors=True)
    env['AUTOANALYZER_OUTPUT'] = rd
    mpirun = os.environ.get('MPIRUN', 'mpirun').split()
    sh(mpirun + ['--oversubscribe', '-np', str(exp['nprocs']), './inst2'], d, env, 300)
    return rd


def round2(cfg, exp, src, d, aj, info):
    """Round 2 of the two-round flow in d: prog.c of src instrumented with the
    refinement from round 1's analysis aj, run, analysed; its round2 checks."""
    a2 = {}
    if round2_build(cfg, src, d, aj, info):
        rd = round2_run(exp, d)
        a2j = os.path.join(d, 'analysis-round2.json')
        st2, o2 = sh(analyze_cmd(cfg, rd, a2j), d, env_for_mpi(), 300)
        if st2 or not os.path.exists(a2j):
            info['errors'].append('round-2 analyze (%d): %s' % (st2, o2[-400:]))
        else:
            a2 = json.load(open(a2j))
    r2 = [x for x in score.score(exp, {}, a2) if x['check'] == 'round2']
    for x in r2:
        x['rep'] = 0
    return r2


def table(rows, key, keys):
    out = []
    cols = [c for c in CHECKS if any(r['check'] == c for r in rows)]
    out.append('%-22s %6s ' % (key, 'cases') + ' '.join('%11s' % c for c in cols))
    for k in keys:
        sub = [r for r in rows if r[key] == k]
        if not sub:
            continue
        cases = len(set(r['case'] for r in sub))
        cells = []
        for c in cols:
            x = [r for r in sub if r['check'] == c]
            cells.append('%11s' % ('%d/%d' % (sum(r['pass'] for r in x), len(x)) if x else '-'))
        out.append('%-22s %6d ' % (k, cases) + ' '.join(cells))
    return out


def summarize(rows, infos):
    lines = []
    kinds = [k for k in gen.KINDS_2000 if any(r['kind'] == k for r in rows)]
    lines += table(rows, 'kind', kinds)
    lines.append('')
    lines += table(rows, 'band', [b for b in BANDS if any(r['band'] == b for r in rows)])
    lines.append('')
    lines.append('%-10s %9s %7s %8s' % ('check', 'pass', '%', 'target'))
    tot = {}
    for c in CHECKS:
        x = [r for r in rows if r['check'] == c]
        if not x:
            continue
        n = sum(r['pass'] for r in x)
        tot[c] = [n, len(x)]
        lines.append('%-10s %9s %6.1f%% %8s' % (c, '%d/%d' % (n, len(x)), 100.0 * n / len(x), TARGETS[c]))
    cases = sorted(set(r['case'] for r in rows))
    fc = set(r['case'] for r in rows if r['check'] == 'no_false' and not r['pass'])
    lines.append('cases with a false CCCR: %d of %d (%.1f%%, target <=2%%)' % (
        len(fc), len(cases), 100.0 * len(fc) / max(1, len(cases))))
    errs = [i for i in infos if i['errors']]
    if errs:
        lines.append('cases with errors: %d (%s)' % (len(errs), ', '.join(i['case'] for i in errs[:10])))
    n = sum(r['pass'] for r in rows)
    lines.append('diagnosis: %d of %d checks pass' % (n, len(rows)))
    return lines, tot


def resummarize(out):
    """Prints the tables again from OUT/results.jsonl (also of an unfinished run)."""
    rows, infos = [], []
    for line in open(os.path.join(out, 'results.jsonl')):
        d = json.loads(line)
        if 'info' in d:
            infos.append(d['info'])
        else:
            rows.append(d)
    rows.sort(key=lambda r: r['case'])
    lines, _ = summarize(rows, infos)
    print('# %d cases from %s' % (len(infos), os.path.join(out, 'results.jsonl')))
    for ln in lines:
        print(ln)
    return 0


def analyze_cmd(cfg, rd, aj):
    """The analysis command of run directory rd into aj, with the --set settings."""
    sets = [x for s in cfg.get('sets', []) for x in ('--set', s)]
    return [os.path.join(cfg['aa_build'], 'bin', 'autoanalyzer'), 'analyze', rd, '--json', aj,
            '-q'] + sets


def analyze_and_score(cfg, exp, rd, aj, a2=None):
    """Analyses the run directory rd into aj and scores it; (checks, analysis, error)."""
    st, o = sh(analyze_cmd(cfg, rd, aj),
               os.path.dirname(rd), env_for_mpi(), 300)
    if st or not os.path.exists(aj):
        return score.score(exp, {}, a2), {}, 'analyze %s (%d): %s' % (rd, st, o[-400:])
    a = json.load(open(aj))
    return score.score(exp, a, a2), a, None


def reanalyze_case(d, old, cfg):
    """Re-analyses the kept runs of one case directory; (checks, info)."""
    t0 = time.time()
    exp = json.load(open(os.path.join(d, 'expected.json')))
    info = {'case': exp['case'], 'seed': int(d.rsplit('-', 1)[1]), 'nprocs': exp['nprocs'],
            'errors': []}
    checks = []
    out = os.path.join(cfg['out'], 'cases', os.path.basename(d))
    os.makedirs(out, exist_ok=True)
    reps = sorted(int(n[3:]) for n in os.listdir(d) if n.startswith('run') and n[3:].isdigit())
    for rep in reps:
        ch, _, err = analyze_and_score(cfg, exp, os.path.join(d, 'run%d' % rep),
                                       os.path.join(out, 'analysis%d.json' % rep))
        if err:
            info['errors'].append(err)
        ch = [x for x in ch if x['check'] != 'round2']
        ch += [x for x in old if x['check'] == 'output' and x.get('rep') == rep]
        for x in ch:
            x['rep'] = rep
        checks += ch
    if len(reps) > 1:
        sig = {}
        for x in checks:
            sig.setdefault(x['rep'], []).append((x['check'], x['pass']))
        same = all(sorted(v) == sorted(sig[reps[0]]) for v in sig.values())
        checks.append({'case': exp['case'], 'kind': exp['kind'], 'band': score.band(exp),
                       'check': 'stable', 'pass': same, 'rep': None,
                       'detail': 'same check verdicts in %d reps (re-analysed)' % len(reps)})
    r2 = os.path.join(d, 'round2')
    if exp['expect'].get('cccr_round2') and cfg.get('round2') and reps:
        checks += round2(cfg, exp, d, out, os.path.join(out, 'analysis0.json'), info)
    elif exp['expect'].get('cccr_round2'):
        a2 = {}
        if os.path.isdir(r2):
            _, a2, err = analyze_and_score(cfg, exp, r2, os.path.join(out, 'analysis-round2.json'))
            if err:
                info['errors'].append(err)
        r = [x for x in score.score(exp, {}, a2) if x['check'] == 'round2']
        for x in r:
            x['rep'] = 0
        checks += r
    info['seconds'] = round(time.time() - t0, 1)
    return checks, info


def reanalyze(src, cfg):
    """--reanalyze: every kept case of src again, tables as a full run prints them."""
    old = {}
    for line in open(os.path.join(src, 'results.jsonl')):
        x = json.loads(line)
        if 'check' in x:
            old.setdefault(x['case'], []).append(x)
    os.makedirs(cfg['out'], exist_ok=True)
    rows, infos = [], []
    cdir = os.path.join(src, 'cases')
    with open(os.path.join(cfg['out'], 'results.jsonl'), 'w') as resf:
        for name in sorted(os.listdir(cdir)):
            d = os.path.join(cdir, name)
            if not os.path.exists(os.path.join(d, 'expected.json')) or \
                    not os.path.isdir(os.path.join(d, 'run0')):
                continue
            exp_case = json.load(open(os.path.join(d, 'expected.json')))['case']
            ch, info = reanalyze_case(d, old.get(exp_case, []), cfg)
            rows += ch
            infos.append(info)
            for c in ch:
                resf.write(json.dumps(c) + '\n')
            resf.write(json.dumps({'info': info}) + '\n')
            bad = [c['check'] for c in ch if not c['pass']]
            print('# %-34s %2d ranks  %s' % (info['case'], info['nprocs'],
                                             'fail: ' + ','.join(bad) if bad else 'all pass'))
    rows.sort(key=lambda r: r['case'])
    lines, _ = summarize(rows, infos)
    print('# %d cases re-analysed from %s' % (len(infos), src))
    for ln in lines:
        print(ln)
    return 0


def pool(cfg, items, work, done):
    """Runs work(x) for every (x, ranks) of items, concurrently as far as their
    ranks fit in cfg['jobs'] cores (at least one at a time); done(x, result)
    under a lock, in completion order."""
    lock = threading.Condition()
    free = [cfg['jobs']]

    def worker(x, need):
        try:
            r = work(x)
        except Exception as e:      # a driver bug must not hang the pool
            r = e
        with lock:
            done(x, r)
            free[0] += need
            lock.notify_all()

    threads = []
    for x, ranks in items:
        need = min(ranks, cfg['jobs'])
        with lock:
            while free[0] < need and free[0] < cfg['jobs']:
                lock.wait()
            free[0] -= need
        t = threading.Thread(target=worker, args=(x, need))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()


def built_cases(cfg):
    """(case directory, expected) of every case under cfg['out']/cases."""
    cdir = os.path.join(cfg['out'], 'cases')
    out = []
    for name in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        d = os.path.join(cdir, name)
        if os.path.exists(os.path.join(d, 'expected.json')):
            out.append((d, json.load(open(os.path.join(d, 'expected.json')))))
    return out


def stage_build(cfg, seeds):
    """--stage build: generates and builds every case, runs nothing."""
    errs = []

    def done(seed, r):
        info = r[2] if isinstance(r, tuple) else {'case': 'seed-%d' % seed, 'errors': [repr(r)]}
        if info['errors']:
            errs.append(info)
        print('# %-34s %s' % (info['case'], 'ERROR ' + info['errors'][0][:120].replace('\n', ' ')
                              if info['errors'] else 'built'))
        sys.stdout.flush()
    pool(cfg, [(s, 1) for s in seeds], lambda s: build_case(s, cfg), done)
    print('# %d cases built in %s, %d with errors' % (len(seeds), cfg['out'], len(errs)))
    return 1 if errs else 0


def stage_run(cfg):
    """--stage run: on the machine that measures, runs every built case not yet
    run (cfg['reps'] repetitions) and every round-2 build not yet run; appends
    the `output` checks to results.jsonl.  Needs mpirun and the runtime's
    libraries, not the instrumenter."""
    resf = open(os.path.join(cfg['out'], 'results.jsonl'), 'a')

    def work(de):
        d, exp = de
        info = {'case': exp['case'], 'seed': int(d.rsplit('-', 1)[1]), 'nprocs': exp['nprocs'],
                'errors': []}
        t0 = time.time()
        ch = []
        if os.path.exists(os.path.join(d, 'inst')) and not os.path.isdir(os.path.join(d, 'run0')):
            ch = run_reps(exp, d, cfg, info)
        if os.path.exists(os.path.join(d, 'inst2')) and not os.path.isdir(os.path.join(d, 'round2')):
            round2_run(exp, d)
            info['round2'] = True
        info['seconds'] = round(time.time() - t0, 1)
        return ch, info

    def done(de, r):
        ch, info = r if isinstance(r, tuple) else ([], {'case': de[1]['case'], 'errors': [repr(r)]})
        if not ch and not info['errors'] and not info.get('round2'):
            return
        for c in ch:
            resf.write(json.dumps(c) + '\n')
        resf.write(json.dumps({'info': info}) + '\n')
        resf.flush()
        bad = [c['check'] for c in ch if not c['pass']]
        print('# %-34s %6.1f s  %s' % (info['case'], info.get('seconds', 0),
                                       'ERROR ' + info['errors'][0][:120] if info['errors'] else
                                       'output differs' if bad else 'ran'))
        sys.stdout.flush()
    pool(cfg, [(de, de[1]['nprocs']) for de in built_cases(cfg)], work, done)
    resf.close()
    return 0


def stage_round2(cfg):
    """--stage round2: analyses run0 of every two-round case that ran and
    builds its round-2 program with that refinement (then --stage run)."""
    n = 0
    for d, exp in built_cases(cfg):
        if not exp['expect'].get('cccr_round2') or not os.path.isdir(os.path.join(d, 'run0')) \
                or os.path.exists(os.path.join(d, 'inst2')):
            continue
        info = {'case': exp['case'], 'errors': []}
        aj = os.path.join(d, 'analysis0.json')
        st, o = sh(analyze_cmd(cfg, os.path.join(d, 'run0'), aj), d, env_for_mpi(), 300)
        if st == 0 and round2_build(cfg, d, d, aj, info):
            n += 1
        else:
            print('# %s: %s' % (exp['case'], (info['errors'] or [o])[0][-200:]))
    print('# %d round-2 programs built in %s' % (n, cfg['out']))
    return 0


def main():
    a = sys.argv[1:]
    cfg = {'reps': int(os.environ.get('REPS', '3')), 'keep': False, 'limit': None,
           'jobs': os.cpu_count() or 1,
           'out': os.path.join(os.environ.get('TMPDIR', '/tmp'), 'aa-diagnosis')}
    seeds_file = os.path.join(HERE, 'cases.txt')
    if len(a) == 2 and a[0] == '--summarize':
        return resummarize(a[1])
    src = None
    while a:
        o = a.pop(0)
        if o == '--quick':
            seeds_file = os.path.join(HERE, 'quick.txt')
        elif o == '--seeds' and a:
            seeds_file = a.pop(0)
        elif o == '--reps' and a:
            cfg['reps'] = int(a.pop(0))
        elif o == '--out' and a:
            cfg['out'] = os.path.abspath(a.pop(0))
        elif o == '--limit' and a:
            cfg['limit'] = int(a.pop(0))
        elif o == '--jobs' and a:
            cfg['jobs'] = max(1, int(a.pop(0)))
        elif o == '--keep':
            cfg['keep'] = True
        elif o == '--set' and a:
            cfg.setdefault('sets', []).append(a.pop(0))
        elif o == '--reanalyze' and a:
            src = os.path.abspath(a.pop(0))
        elif o == '--round2':
            cfg['round2'] = True
        elif o in ('--nominal-costs', '--nominal-mpi-costs'):
            cfg['nominal'] = True
        elif o in ('--costs', '--mpi-costs') and a:
            cfg['costs_file'] = a.pop(0)
        elif o == '--stage' and a and a[0] in STAGES:
            cfg['stage'] = a.pop(0)
        else:
            sys.stderr.write(__doc__)
            return 2
    stage = cfg.get('stage')
    if stage == 'run':
        return stage_run(cfg)
    if stage == 'costs':
        os.makedirs(cfg['out'], exist_ok=True)
        measure_costs(gen.read_seeds(seeds_file)[:cfg['limit']], cfg)
        return 0
    aa = os.environ.get('AA_BUILD', 'build')
    cfg['aa_build'] = aa if os.path.isabs(aa) else os.path.join(TOP, aa)
    if not os.access(os.path.join(cfg['aa_build'], 'bin', 'autoanalyzer-mpicc'), os.X_OK):
        sys.stderr.write('run.py: %s/bin/autoanalyzer-mpicc not built\n' % cfg['aa_build'])
        return 1
    if src:
        if cfg['out'] == src:
            sys.stderr.write('run.py: --reanalyze needs an --out other than its source\n')
            return 2
        return reanalyze(src, cfg)
    if stage == 'round2':
        return stage_round2(cfg)
    seeds = gen.read_seeds(seeds_file)[:cfg['limit']]
    os.makedirs(cfg['out'], exist_ok=True)
    if cfg.get('costs_file'):
        cfg['costs'] = {int(k): v for k, v in json.load(open(cfg['costs_file'])).items()}
    elif not cfg.get('nominal'):
        try:
            cfg['costs'] = measure_costs(seeds, cfg)
        except RuntimeError as x:
            sys.stderr.write('run.py: %s\n' % x)
            return 1
    if stage == 'build':
        return stage_build(cfg, seeds)
    t0 = time.time()
    rows, infos = [], []
    resf = open(os.path.join(cfg['out'], 'results.jsonl'), 'w')

    def done(seed, r):
        ch, info = r if isinstance(r, tuple) else \
            ([], {'case': 'seed-%d' % seed, 'errors': ['driver: %r' % r]})
        rows.extend(ch)
        infos.append(info)
        for c in ch:
            resf.write(json.dumps(c) + '\n')
        resf.write(json.dumps({'info': info}) + '\n')
        resf.flush()
        bad = [c['check'] for c in ch if not c['pass']]
        sys.stdout.write('# %-34s %2d ranks %6.1f s  %s\n' % (
            info['case'], info.get('nprocs', 0), info.get('seconds', 0),
            'ERROR ' + info['errors'][0][:120].replace('\n', ' ') if info['errors'] and not ch
            else ('fail: ' + ','.join(bad) if bad else 'all pass')))
        sys.stdout.flush()
    pool(cfg, [(s, gen.plan(s)['nprocs']) for s in seeds], lambda s: run_case(s, cfg), done)
    resf.close()
    rows.sort(key=lambda r: r['case'])
    lines, tot = summarize(rows, infos)
    el = time.time() - t0
    with open(os.path.join(cfg['out'], 'summary.json'), 'w') as f:
        json.dump({'seeds_file': os.path.basename(seeds_file), 'cases': len(seeds), 'reps': cfg['reps'],
                   'seconds': round(el, 1), 'totals': tot,
                   'pass': sum(r['pass'] for r in rows), 'checks': len(rows)}, f, indent=1)
    print('# %d cases, %d reps, %.0f s; results in %s' % (len(seeds), cfg['reps'], el, cfg['out']))
    for ln in lines:
        print(ln)
    return 1 if any(i['errors'] and not any(r['case'] == i['case'] for r in rows) for i in infos) else 0


if __name__ == '__main__':
    sys.exit(main())
