#!/usr/bin/env python3
"""A second, independent exact solver for the rule systems of sowdb (tests only).

It was written from the rules document alone (VARIANTS.md; the README's "Rule systems" states
the same rules), by someone who did not read sowdb's C++ code: its own move generation in plain
Python, one seed at a time, and its own retrograde analysis. It shares nothing with sowdb but
the reading of the rules, so compare.py can check sowdb's tables against it entry by entry.

Position: tuple of 2P seed counts, the mover's pits 0..P-1 first, sowing towards higher pits.
Value: the seeds the mover takes from now on minus the seeds the opponent takes, perfect play,
endless play worth 0. Usage: solver.py PRESET P NMAX prints every position's value and moves.
"""
import sys
from itertools import combinations

PRESETS = {
    'oware':            ('oware', dict(grand_slam='forbidden')),
    'wari-kc':          ('oware', dict(grand_slam='forbidden')),
    'abapa':            ('oware', dict(grand_slam='no_capture')),
    'warri':            ('oware', dict(grand_slam='no_capture')),
    'wari-modar':       ('oware', dict(grand_slam='no_capture')),
    'ayo':              ('oware', dict(grand_slam='capture')),
    'wari-pbm':         ('oware', dict(grand_slam='capture')),
    'kalah':            ('kalah', dict(ceo=False, end='no_move')),
    'kalah-tournament': ('kalah', dict(ceo=False, end='empty_side')),
    'kalah-irving':     ('kalah', dict(ceo=True, end='empty_side')),
    'wari-us':          ('wari-us', dict()),
}


def rot(b, P):
    return tuple(b[P:]) + tuple(b[:P])


# ---------------------------------------------------------------- Oware family
def oware_moves(b, P, opt):
    """Return ('end', value) or ('moves', [(pit, gain, next, same_player)])."""
    N = 2 * P
    own, opp = sum(b[:P]), sum(b[P:])
    opp_empty = opp == 0
    cands = []
    for i in range(P):
        k = b[i]
        if k == 0:
            continue
        a = list(b)
        a[i] = 0
        pos = i
        fed = False
        for _ in range(k):
            pos = (pos + 1) % N
            if pos == i:                 # skip_origin on laps
                pos = (pos + 1) % N
            a[pos] += 1
            if pos >= P:
                fed = True
        if opp_empty and not fed:        # feeding rule
            continue
        run = []
        j = pos
        if j >= P and a[j] in (2, 3):
            while j >= P and a[j] in (2, 3):
                run.append(j)
                j -= 1
        gs = False
        if run:
            left = sum(a[P:]) - sum(a[x] for x in run)
            gs = left == 0
        cands.append((i, a, run, gs))
    if not cands:
        return ('end', own - opp)
    if opt['grand_slam'] == 'forbidden':
        non = [c for c in cands if not c[3]]
        if non:
            cands = non
    res = []
    for i, a, run, gs in cands:
        gain = 0
        if run and not (gs and opt['grand_slam'] == 'no_capture'):
            if gs:   # captures every seed left on the opponent's side
                gain = sum(a[P:])
                for x in range(P, N):
                    a[x] = 0
            else:
                for x in run:
                    gain += a[x]
                    a[x] = 0
        res.append((i, gain, rot(a, P), False))
    return ('moves', res)


# ---------------------------------------------------------------- Kalah family
def ring(P):
    # own pits, own store ('S'), opponent pits; opponent's store skipped
    return list(range(P)) + ['S'] + list(range(P, 2 * P))


def sow_ring(a, start, R):
    """Sows every seed of pit `start` of board list `a` (in place) around ring R, the store
    included; returns (the last place sown, seeds sown into the store)."""
    k = a[start]
    a[start] = 0
    idx = start  # ring index of pit i == i for the mover's pits
    stored = 0
    for _ in range(k):
        idx = (idx + 1) % len(R)
        if R[idx] == 'S':
            stored += 1
        else:
            a[R[idx]] += 1
    return R[idx], stored


def kalah_moves(b, P, opt):
    own, opp = sum(b[:P]), sum(b[P:])
    if opt['end'] == 'no_move':
        if own == 0:
            return ('end', -opp)
    else:
        if own == 0 or opp == 0:
            return ('end', own - opp)
    R = ring(P)
    res = []
    for i in range(P):
        if b[i] == 0:
            continue
        a = list(b)
        last, gain = sow_ring(a, i, R)
        if last == 'S':
            res.append((i, gain, tuple(a), True))
            continue
        if last < P and a[last] == 1:
            o = 2 * P - 1 - last
            if a[o] > 0 or opt['ceo']:
                gain += a[last] + a[o]
                a[last] = 0
                a[o] = 0
        res.append((i, gain, rot(a, P), False))
    return ('moves', res)


# ---------------------------------------------------------------- wari-us
def wari_us_moves(b, P, opt):
    own, opp = sum(b[:P]), sum(b[P:])
    if own == 0:
        return ('end', -opp)
    R = ring(P)
    res = []
    for i in range(P):
        if b[i] == 0:
            continue
        a = list(b)
        gain = 0
        start = i
        while True:
            last, stored = sow_ring(a, start, R)
            gain += stored
            if last == 'S' or last >= P:
                break
            o = 2 * P - 1 - last
            if a[o] != 2:
                break
            gain += 2
            a[o] = 0
            if last == 0 or a[last - 1] == 0:
                break
            start = last - 1
        res.append((i, gain, rot(a, P), False))
    return ('moves', res)


FAM = {'oware': oware_moves, 'kalah': kalah_moves, 'wari-us': wari_us_moves}


def layer(P, n):
    """All boards of 2P pits holding n seeds (stars and bars)."""
    N = 2 * P
    out = []
    for bars in combinations(range(n + N - 1), N - 1):
        prev = -1
        b = []
        for x in bars:
            b.append(x - prev - 1)
            prev = x
        b.append(n + N - 1 - prev - 1)
        out.append(tuple(b))
    return out


def solve(preset, P, nmax):
    fam, opt = PRESETS[preset]
    gm = FAM[fam]
    V = {}      # position -> value
    MV = {}     # position -> list of (pit, worth) or None if game over
    for n in range(nmax + 1):
        pos = layer(P, n)
        info = {}
        preds = {p: [] for p in pos}
        for p in pos:
            r = gm(p, P, opt)
            if r[0] == 'end':
                info[p] = ('end', r[1])
                continue
            exits = []   # (pit, worth)
            inl = []     # (pit, child)
            for pit, gain, nxt, same in r[1]:
                if gain == 0:
                    assert not same and sum(nxt) == n
                    inl.append((pit, nxt))
                    preds[nxt].append(p)
                else:
                    v = V[nxt]
                    exits.append((pit, gain + v if same else gain - v))
            info[p] = ('moves', exits, inl)
        val = {p: 0 for p in pos}
        for t in range(1, n + 1):
            W, Lz = set(), set()
            cnt = {}
            q = []
            for p in pos:
                it = info[p]
                if it[0] == 'end':
                    if it[1] >= t:
                        W.add(p); q.append((p, 'W'))
                    elif it[1] <= -t:
                        Lz.add(p); q.append((p, 'L'))
                    continue
                ex = [w for _, w in it[1]]
                if ex and max(ex) >= t:
                    W.add(p); q.append((p, 'W'))
                elif all(w <= -t for w in ex):
                    cnt[p] = len(it[2])
                    if cnt[p] == 0:
                        Lz.add(p); q.append((p, 'L'))
            while q:
                c, kind = q.pop()
                for p in preds[c]:
                    if p in W or p in Lz:
                        continue
                    if kind == 'L':
                        W.add(p); q.append((p, 'W'))
                    elif p in cnt:
                        cnt[p] -= 1
                        if cnt[p] == 0:
                            Lz.add(p); q.append((p, 'L'))
            assert not (W & Lz)
            for p in W:
                val[p] = t
            for p in Lz:
                val[p] = -t
        for p in pos:
            it = info[p]
            if it[0] == 'end':
                assert val[p] == it[1]
                V[p] = it[1]
                MV[p] = None
                continue
            V[p] = val[p]
            mv = list(it[1]) + [(pit, -val[c]) for pit, c in it[2]]
            mv.sort()
            MV[p] = mv
            # Bellman check
            assert max(w for _, w in mv) == val[p], (p, mv, val[p])
    return V, MV


if __name__ == '__main__':
    preset, P, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    V, MV = solve(preset, P, n)
    for p in sorted(V, key=lambda x: (sum(x), x)):
        print(' '.join(map(str, p)), V[p], MV[p])
