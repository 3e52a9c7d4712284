#!/usr/bin/env python3
"""A second, independent exact solver for the rule systems of sowdb (tests only).

Its moves and values were written from the rules document alone (the rule model the project
was given, which docs/RULES.md states in the project's own words), by someone who did not read sowdb's C++ code: its own
move generation in plain Python, one seed at a time, and its own retrograde analysis. Its
depths to conversion were added later from the definition of depth (gen/solver.h, FORMAT.md),
by someone who read sowdb's solvers only to see which moves count as gaining seeds; they are
computed another way than sowdb's: after the values, in a pass of their own over each layer's
value-keeping moves, level by level up from the finished games (sowdb takes them from its
value search: threshold by threshold in the Oware family, depth first in the others). It
shares nothing with sowdb but the reading of the rules and of the definitions, so compare.py
can check sowdb's tables against it entry by entry.

Position: tuple of 2P seed counts, the mover's pits 0..P-1 first, sowing towards higher pits.
Value: the seeds the mover takes from now on minus the seeds the opponent takes, perfect play,
endless play worth 0. Depth: the plies the side that gains needs to force the value to be
realised (a move that gains seeds, or the end of the game), the other side delaying as long
as it can without giving up value; 0 for value 0 and for a finished game. A move's depth: 0
if it gains seeds, else its child's depth. Usage: solver.py PRESET P NMAX prints every
position's value, depth, moves (pit, worth, depth) and best move.
"""
import sys
from functools import lru_cache

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
    return tuple(b[P:] + b[:P])


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
    """All boards of 2P pits holding n seeds, in lexicographic order."""
    return compositions(2 * P, n)


@lru_cache(maxsize=None)
def compositions(pits, n):
    """All tuples of `pits` counts adding up to n, in lexicographic order."""
    if pits == 1:
        return [(n,)]
    return [(first,) + rest
            for first in range(n + 1) for rest in compositions(pits - 1, n - first)]


def solve_layers(preset, P, nmax):
    """Solves layers 0..nmax; yields, one layer at a time, (n, boards, value, depth, moves,
    best): boards = layer(P, n) in that order, and per board its value, its depth to
    conversion, its moves (a list of (pit, worth, depth) in pit order, or None when the game
    is over) and its best move (a pit, or None when the game is over)."""
    fam, opt = PRESETS[preset]
    gm = FAM[fam]
    V = {}      # board -> value, every layer solved so far (the exits read smaller layers)
    for n in range(nmax + 1):
        boards = layer(P, n)
        val, dep, mv, top = solve_layer(gm, P, opt, n, boards, V)
        V.update(zip(boards, val))
        yield n, boards, val, dep, mv, top


def solve_layer(gm, P, opt, n, boards, V):
    """Values, depths, moves and best moves of the boards of layer n; V holds the smaller
    layers."""
    size = len(boards)
    where = {b: i for i, b in enumerate(boards)}
    NONE = -(n + 1)          # below every worth: a position with no exit
    # best[i]: what i is worth without staying in the layer (the final value of a finished
    # game, else its best exit, else NONE); exits[i]: (pit, worth) of the moves that gain
    # seeds; inl[i]: (pit, child index) of those that do not; preds[c]: a position per move
    # into c.
    best = [NONE] * size
    over = [False] * size
    exits = [()] * size
    inl = [()] * size
    preds = [[] for _ in range(size)]
    for i, p in enumerate(boards):
        r = gm(p, P, opt)
        if r[0] == 'end':
            over[i] = True
            best[i] = r[1]
            continue
        ex = []
        il = []
        for pit, gain, nxt, same in r[1]:
            if gain == 0:
                assert not same
                c = where[nxt]          # a KeyError if nxt were not in the layer
                il.append((pit, c))
                preds[c].append(i)
            else:
                v = V[nxt]
                ex.append((pit, gain + v if same else gain - v))
        if ex:
            best[i] = max(w for _, w in ex)
        exits[i] = ex
        inl[i] = il
    degree = [len(x) for x in inl]

    # Values: for each threshold t, the positions whose mover can force a net gain of at
    # least t (W) and those whose opponent can (L), from scratch; a position's value is the
    # largest t of its W or L. The sets shrink as t grows: stop at the first empty pair.
    val = [0] * size
    for t in range(1, n + 1):
        count = [degree[i] if best[i] <= -t else -1 for i in range(size)]
        won = [i for i in range(size) if best[i] >= t]
        lost = [i for i in range(size) if count[i] == 0]
        if not won and not lost:
            break
        state = bytearray(size)      # 1: in W, 2: in L
        for i in won:
            state[i] = 1
        for i in lost:
            state[i] = 2
        stack = won + lost
        while stack:
            c = stack.pop()
            if state[c] == 2:        # a move to a lost child: the mover wins
                for p in preds[c]:
                    if not state[p]:
                        state[p] = 1
                        won.append(p)
                        stack.append(p)
            else:                    # one more move to a won child
                for p in preds[c]:
                    if not state[p] and count[p] > 0:
                        count[p] -= 1
                        if count[p] == 0:
                            state[p] = 2
                            lost.append(p)
                            stack.append(p)
        for i in won:
            val[i] = t
        for i in lost:
            val[i] = -t
    for i in range(size):
        if over[i]:
            assert val[i] == best[i], (boards[i], val[i], best[i])
        else:
            worths = [w for _, w in exits[i]] + [-val[c] for _, c in inl[i]]
            assert max(worths) == val[i], (boards[i], worths, val[i])   # Bellman

    # Depths: plies until the side that gains realises the value, the other side delaying
    # without giving up value. Only the value-keeping moves (worth == value) count: an exit
    # (gains seeds) ends the count there, an in-layer move goes on with its child. The winner
    # (value > 0) picks the quickest, the loser (value < 0) the slowest. Positions settle
    # level by level, from the finished games (0) up: a winner at the first level one of its
    # value-keeping moves reaches, a loser once all of them have settled.
    dep = [0] * size
    settled = [True] * size
    keep_preds = [[] for _ in range(size)]
    waiting = [0] * size         # a loser's value-keeping in-layer moves not settled yet
    levels = [[i for i in range(size) if over[i] and val[i] != 0], []]
    for i in range(size):
        v = val[i]
        if over[i] or v == 0:
            continue
        settled[i] = False
        kept_exit = any(w == v for _, w in exits[i])
        kept_inl = 0
        for _, c in inl[i]:
            if -val[c] == v:
                keep_preds[c].append(i)
                kept_inl += 1
        if (v > 0 and kept_exit) or (v < 0 and kept_inl == 0):
            settled[i] = True
            dep[i] = 1
            levels[1].append(i)
        waiting[i] = kept_inl
    d = 0
    while d < len(levels):
        for c in levels[d]:
            for p in keep_preds[c]:
                if settled[p]:
                    continue
                if val[p] < 0:
                    waiting[p] -= 1
                    if waiting[p] > 0:
                        continue
                settled[p] = True
                dep[p] = d + 1
                if len(levels) == d + 1:
                    levels.append([])
                levels[d + 1].append(p)
        d += 1
    assert all(settled), 'a value that no play realises'

    # Moves, and the best move: the value first; then, among the moves worth the value, the
    # quickest (value > 0) or the slowest (value < 0) realisation; for value 0 a move that
    # gains seeds if there is one; then the lowest pit.
    mv = [None] * size
    top = [None] * size
    for i in range(size):
        if over[i]:
            continue
        v = val[i]
        m = [(pit, w, 0) for pit, w in exits[i]]
        m += [(pit, -val[c], dep[c]) for pit, c in inl[i]]
        m.sort()
        mv[i] = m
        gaining = {pit for pit, _ in exits[i]}
        ranked = [(d if v > 0 else -d if v < 0 else pit not in gaining, pit)
                  for pit, w, d in m if w == v]
        top[i] = min(ranked)[1]
    return val, dep, mv, top


if __name__ == '__main__':
    preset, P, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for _, boards, val, dep, mv, top in solve_layers(preset, P, n):
        for b, v, d, m, t in zip(boards, val, dep, mv, top):
            print(' '.join(map(str, b)), v, d, m, t)
