#!/usr/bin/env python3
"""Compares sowdb's tables with the independent solver (solver.py), entry by entry.

Usage: compare.py SOWDB [PRESET PITS NMAX]
For every case below (or the one given) it builds the tables with `sowdb gen` (in a new
temporary directory, removed at the end), looks every position up with
`sowdb probe --json --max-plies 0 -`, and compares the value, the depth to conversion, whether
the game is over, the set of legal moves with each move's worth and depth, and the best move.
Runs two cases at a time, prints a line per case as it ends and exits 1 on any difference
(showing up to 5 of them per case).
"""
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from math import comb

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solver import PRESETS, layer, solve_layers  # noqa: E402

ALL = sorted(PRESETS)
DISTINCT = ['oware', 'abapa', 'ayo', 'kalah', 'kalah-tournament', 'kalah-irving', 'wari-us']
# (presets, pits per side, largest layer): every preset on the small boards, the presets with
# distinct rules on the larger ones. P = 7 stops at 7 seeds so that the test stays within a few
# minutes also where sowdb is built with sanitizers.
CASES = ([(p, 1, 24) for p in ALL] + [(p, 2, 16) for p in ALL] + [(p, 3, 11) for p in ALL] +
         [(p, 4, 9) for p in DISTINCT] + [(p, 5, 8) for p in DISTINCT] +
         [(p, 6, 8) for p in DISTINCT] + [(p, 7, 7) for p in DISTINCT] +
         [(p, 8, 5) for p in DISTINCT])


def compare(sowdb, work, preset, pits, nmax):
    """Compares one case; returns the number of positions and the differences found."""
    tables = os.path.join(work, f'{preset}-{pits}')
    subprocess.run([sowdb, 'gen', '--variant', preset, '--pits', str(pits), '--max-stones',
                    str(nmax), '--out', tables, '--quiet', '--zstd-level', '1'], check=True)
    given = tables + '.txt'
    total = 0
    with open(given, 'w') as f:
        for n in range(nmax + 1):
            boards = layer(pits, n)
            total += len(boards)
            f.writelines(' '.join(map(str, b)) + '\n' for b in boards)
    # sowdb answers while the solver works: one line per board, in the solver's order.
    differences = []
    answered = 0
    with open(given) as f, tempfile.TemporaryFile(mode='w+') as err:
        probe = subprocess.Popen([sowdb, 'probe', '--tables', tables, '--json', '--max-plies',
                                  '0', '-'], stdin=f, stdout=subprocess.PIPE, stderr=err,
                                 text=True)
        for n, boards, val, dep, mv, top in solve_layers(preset, pits, nmax):
            for b, v, d, m, t in zip(boards, val, dep, mv, top):
                line = probe.stdout.readline()
                if not line:
                    break
                answered += 1
                j = json.loads(line)
                theirs = sorted((x['pit'], x['worth'], x['depth']) for x in j['moves'])
                if (j['value'] != v or j['depth'] != d or theirs != (m or []) or
                        bool(j['game_over']) != (m is None) or j['best'] != t):
                    differences.append(
                        f'{" ".join(map(str, b))}: solver value {v} depth {d} moves {m} '
                        f'best {t}; sowdb value {j["value"]} depth {j["depth"]} moves {theirs} '
                        f'best {j["best"]} game_over {j["game_over"]}')
            if answered < total and not line:
                break
        extra = len(probe.stdout.read().splitlines())
        code = probe.wait()
        if code != 0 or answered != total or extra:
            err.seek(0)
            differences.insert(0, f'sowdb probe: exit code {code}, {answered + extra} answers '
                               f'for {total} positions: {err.read()[:300]}')
    shutil.rmtree(tables, ignore_errors=True)
    os.remove(given)
    return total, differences


def run(case):
    """compare() of one case (preset, pits, nmax) in a worker: the case, its positions, its
    differences and its seconds."""
    sowdb, work, preset, pits, nmax = case
    start = time.monotonic()
    total, differences = compare(sowdb, work, preset, pits, nmax)
    return preset, pits, nmax, total, differences, time.monotonic() - start


def main():
    if len(sys.argv) not in (2, 5):
        print(__doc__, file=sys.stderr)
        return 2
    sowdb = sys.argv[1]
    cases = CASES if len(sys.argv) == 2 else [(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))]
    work = tempfile.mkdtemp(prefix='sowdb-independent-')
    failed = 0
    positions = 0
    start = time.monotonic()
    # Two cases at a time (each also runs sowdb alongside), the largest first.
    jobs = min(2, os.cpu_count() or 1)
    order = sorted(cases, key=lambda c: -comb(c[2] + 2 * c[1], 2 * c[1]))
    try:
        with multiprocessing.Pool(jobs) as pool:
            for preset, pits, nmax, total, differences, seconds in pool.imap_unordered(
                    run, [(sowdb, work) + c for c in order]):
                positions += total
                print(f'{preset:17s} P={pits} layers 0..{nmax:2d}: {total:7d} positions, '
                      f'{len(differences)} differences ({seconds:.1f} s)', flush=True)
                for d in differences[:5]:
                    print('   ', d, flush=True)
                failed += bool(differences)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f'{len(cases) - failed} of {len(cases)} cases agree, {positions} positions '
          f'({time.monotonic() - start:.0f} s)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
