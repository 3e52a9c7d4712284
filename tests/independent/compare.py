#!/usr/bin/env python3
"""Compares sowdb's tables with the independent solver (solver.py), entry by entry.

Usage: compare.py SOWDB
For every case below it builds the tables with `sowdb gen` (in a new temporary directory,
removed at the end), looks every position up with
`sowdb probe --json --max-plies 0 -`, and compares the value, the set of legal moves, each
move's worth and whether the game is over. Prints a line per case and exits 1 on any
difference (showing up to 5 of them per case).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solver import PRESETS, solve  # noqa: E402

ALL = sorted(PRESETS)
DISTINCT = ['oware', 'abapa', 'ayo', 'kalah', 'kalah-tournament', 'kalah-irving', 'wari-us']
# (presets, pits per side, largest layer): every preset on the small boards, the presets with
# distinct rules on the larger ones.
CASES = ([(p, 1, 24) for p in ALL] + [(p, 2, 16) for p in ALL] + [(p, 3, 11) for p in ALL] +
         [(p, 4, 8) for p in DISTINCT] + [(p, 5, 6) for p in DISTINCT] +
         [(p, 6, 6) for p in DISTINCT] + [(p, 8, 4) for p in DISTINCT])


def compare(sowdb, work, preset, pits, nmax):
    values, moves = solve(preset, pits, nmax)
    tables = os.path.join(work, f'{preset}-{pits}')
    subprocess.run([sowdb, 'gen', '--variant', preset, '--pits', str(pits), '--max-stones',
                    str(nmax), '--out', tables, '--quiet', '--zstd-level', '1'], check=True)
    order = sorted(values, key=lambda b: (sum(b), b))
    given = ''.join(' '.join(map(str, b)) + '\n' for b in order)
    run = subprocess.run([sowdb, 'probe', '--tables', tables, '--json', '--max-plies', '0', '-'],
                         input=given, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    if run.returncode != 0 or len(lines) != len(order):
        return [f'sowdb probe: exit code {run.returncode}, {len(lines)} answers for '
                f'{len(order)} positions: {run.stderr[:300]}']
    differences = []
    for board, line in zip(order, lines):
        j = json.loads(line)
        mine = moves[board] or []
        theirs = sorted((m['pit'], m['worth']) for m in j['moves'])
        if (j['value'] != values[board] or theirs != mine or
                bool(j['game_over']) != (moves[board] is None)):
            differences.append(f'{" ".join(map(str, board))}: solver value {values[board]} '
                               f'moves {mine}; sowdb value {j["value"]} moves {theirs} '
                               f'game_over {j["game_over"]}')
    print(f'{preset:17s} P={pits} layers 0..{nmax:2d}: {len(order):6d} positions, '
          f'{len(differences)} differences', flush=True)
    return differences


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sowdb = sys.argv[1]
    work = tempfile.mkdtemp(prefix='sowdb-independent-')
    failed = 0
    try:
        for preset, pits, nmax in CASES:
            differences = compare(sowdb, work, preset, pits, nmax)
            for d in differences[:5]:
                print('   ', d)
            failed += bool(differences)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f'{len(CASES) - failed} of {len(CASES)} cases agree')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
