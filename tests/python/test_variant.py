"""The rules from Python: variants, the start position, legal moves, play, the outcome; a game
loop played with the tables agrees with their principal line."""

from __future__ import annotations

import pytest

import sowdb


def test_names_and_boards():
    assert sowdb.Variant("oware").name == "oware/6x4"
    v = sowdb.Variant("kalah", pits=4, seeds=3)
    assert v == sowdb.Variant("kalah/4x3")
    assert hash(v) == hash(sowdb.Variant("kalah/4x3"))
    assert (v.preset, v.pits, v.board_pits, v.seeds, v.total_stones) == ("kalah", 4, 8, 3, 24)
    assert sowdb.Variant("kalah", seeds=6).name == "kalah/6x6"
    assert str(v) == "kalah/4x3" and repr(v) == "sowdb.Variant('kalah/4x3')"
    assert v.start() == (3,) * 8


@pytest.mark.parametrize("args, kwargs, words", [
    (("nonsense",), {}, "nonsense"),
    (("kalah/4x3",), {"pits": 4}, "not both"),
    (("kalah",), {"pits": 9}, "9"),
    (("oware/6x0",), {}, ""),
    (("nonsense",), {"pits": 3}, "nonsense"),
])
def test_bad_variants(args, kwargs, words):
    with pytest.raises(sowdb.BadVariantError) as e:
        sowdb.Variant(*args, **kwargs)
    assert isinstance(e.value, ValueError)
    assert words in str(e.value)


def test_play_kalah_extra_turn_and_capture():
    v = sowdb.Variant("kalah/4x3")
    start = v.start()
    assert v.legal_moves(start) == [0, 1, 2, 3]
    # Pit 1's three seeds end in the store (pits 2, 3, store): an extra turn.
    r = v.play(start, 1)
    assert r.extra_turn and r.stored == 1 and r.gain == 1 and r.captured == 0
    assert r.board == (3, 0, 4, 4, 3, 3, 3, 3)  # still the mover's side
    assert r.stores == (1, 0)
    # Pit 0 ends in pit 3: no store, the opponent moves and sees the board turned.
    r = v.play(start, 0, stores=(2, 5))
    assert not r.extra_turn and r.board == (3, 3, 3, 3, 0, 4, 4, 4)
    assert r.stores == (5, 2)
    # Stores holding more seeds than the game (2PS = 24): refused, as `sowdb probe --stores`
    # refuses them; stores up to 24 are taken, as the CLI takes them.
    with pytest.raises(sowdb.BadPositionError, match=r"\(50, 50\).*kalah/4x3, which holds 24"):
        v.play([3] * 8, 1, stores=(50, 50))
    with pytest.raises(sowdb.BadPositionError, match="which holds 24"):
        v.play(start, 0, stores=(20, 5))  # 25 seeds: one too many
    assert v.play(start, 1, stores=(20, 4)).stores == (21, 4)
    # A capture: the last seed lands in an empty pit of the mover's facing a full one.
    r = v.play((1, 0, 0, 0, 0, 0, 5, 0), 0)
    assert r.captured == 6 and r.gain == 6 and r.game_over


def test_play_oware_capture_and_grand_slam_flag():
    v = sowdb.Variant("oware")
    board = (0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0)
    r = v.play(board, 5)  # sows into the opponent's pits 6 and 7 (1 and 2 seeds): takes pit 7
    assert r.captured == 2 and not r.extra_turn
    assert sum(r.board) == sum(board) - 2


def test_illegal_moves_and_game_over():
    v = sowdb.Variant("oware")
    board = (0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3)
    with pytest.raises(sowdb.IllegalMoveError, match=r"legal moves are \[1\]"):
        v.play(board, 0)
    with pytest.raises(sowdb.IllegalMoveError):
        v.play(board, 6)
    with pytest.raises(sowdb.BadPositionError):
        v.play((1, 2), 0)
    over = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3)
    assert v.legal_moves((0,) * 12) == [] and v.is_game_over((0,) * 12)
    assert v.rotate(over) == (0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0)


def test_outcome():
    v = sowdb.Variant("oware")
    o = v.outcome((1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 2, stores=(22, 24))
    assert (o.result, o.mover, o.opponent, o.total_seeds) == ("draw", 24.0, 24.0, 48)
    k = sowdb.Variant("kalah/4x3")
    over = (0, 0, 0, 0, 2, 1, 0, 0)  # the mover has no seed: kalah's game is over
    assert k.is_game_over(over)
    assert k.final_value(over) == -3
    o = k.outcome(over, stores=(12, 9))
    assert (o.result, o.mover, o.opponent) == ("draw", 12.0, 12.0)
    with pytest.raises(sowdb.BadPositionError, match="not over"):
        k.outcome(k.start())
    with pytest.raises(sowdb.BadPositionError, match="24"):
        k.outcome(over, 0, stores=(20, 20))


def test_a_game_loop_follows_the_principal_line(tables):
    """Best moves from the tables, played through Variant.play, walk the probe's line and end
    with the value the tables promised."""
    v = tables.variant
    for board in v.random_positions(30, tables.max_stones, seed=21):
        r = tables.probe(board)
        if r.line_end != "game_over":
            continue
        position = tuple(int(p) for p in board)
        mover_gain = [0, 0]  # the root mover's and the other's gains
        side = 0
        for step, pit in zip(r.line_steps, r.line):
            assert step.before == position and step.mover == side
            assert tables.best_move(position) == pit
            move = v.play(position, pit)
            mover_gain[side] += move.gain
            position = move.board
            if not move.extra_turn:
                side = 1 - side
        assert v.is_game_over(position)
        final = v.final_value(position) * (1 if side == 0 else -1)
        assert mover_gain[0] - mover_gain[1] + final == r.value
