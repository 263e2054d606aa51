"""Worlds consistent with what a player saw, and AND-OR search over belief states, on phantom
tic-tac-toe, against plain-Python brute force written here.

The brute force: a phantom tic-tac-toe of tuples (:func:`bf_step`) whose every history up to
a length is enumerated; the worlds of an information state are the true boards of all
histories that give the player the same information string (as OpenSpiel writes it: the
view and the player's own tries); a guaranteed win is a recursive search over sets of boards
(:func:`bf_wins`), written without the library's belief code.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.games.phantom_tictactoe import BOARDS
from jaxgames.search.belief import Plan, and_or_search, observation_history, sample_world

GAME = jaxgames.make("phantom_tictactoe")
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


# ---------------------------------------------------------------------- brute force
def line(board: tuple, piece: int) -> bool:
    return any(all(board[i] == piece for i in trio) for trio in LINES)


def bf_step(h: dict, a: int) -> dict:
    """A phantom tic-tac-toe state as a dict of tuples: board, views, tries, mover."""
    p = h["mover"]
    board, views, tries = (
        list(h["board"]),
        [list(v) for v in h["views"]],
        [list(t) for t in h["tries"]],
    )
    tries[p].append(a)
    mover, over = p, False
    if board[a] == 0:
        board[a] = views[p][a] = p + 1
        over = line(tuple(board), p + 1) or all(board)
        mover = 1 - p
    else:
        views[p][a] = board[a]
    return {
        "board": tuple(board),
        "views": tuple(tuple(v) for v in views),
        "tries": tuple(tuple(t) for t in tries),
        "mover": mover,
        "over": over,
        "moves": h["moves"] + (a,),
    }


START = {
    "board": (0,) * 9,
    "views": ((0,) * 9,) * 2,
    "tries": ((), ()),
    "mover": 0,
    "over": False,
    "moves": (),
}


def bf_histories(length: int) -> list[dict]:
    """Every history of at most ``length`` tries, finished games included."""
    out, frontier = [START], [START]
    for _ in range(length):
        nxt = []
        for h in frontier:
            if h["over"]:
                continue
            view = h["views"][h["mover"]]
            nxt += [bf_step(h, a) for a in range(9) if view[a] == 0]
        out += nxt
        frontier = nxt
    return out


def info(h: dict, p: int) -> tuple:
    """OpenSpiel's information string for ``p``, as a tuple: the view and own tries."""
    return (h["views"][p], h["tries"][p])


def bf_belief(h: dict) -> frozenset:
    """The boards the mover cannot rule out: own marks as seen, the opponent's seen marks,
    and as many more opponent marks as the turn says, anywhere else."""
    p = h["mover"]
    me, opp = p + 1, 2 - p
    view = h["views"][p]
    need = sum(v == me for v in view) + p
    out = set()
    for b in BOARDS.tolist():
        if (
            all((b[i] == me) == (view[i] == me) for i in range(9))
            and all(b[i] == opp for i in range(9) if view[i] == opp)
            and sum(c == opp for c in b) == need
        ):
            out.add(tuple(b))
    return frozenset(out)


@functools.cache
def bf_wins(belief: frozenset, me: int) -> bool:
    """Does the player win from every board of ``belief`` against every opponent? Tries
    every cell not surely the opponent's; both answers (refused, taken) must win."""
    opp = 3 - me
    for c in range(9):
        if not any(b[c] == 0 for b in belief):
            continue  # the cell is mine, or the opponent's on every board: nothing to learn
        refused = frozenset(b for b in belief if b[c] == opp)
        if refused and not bf_wins(refused, me):
            continue
        taken = [b[:c] + (me,) + b[c + 1 :] for b in belief if b[c] == 0]
        if taken and not all(line(t, me) for t in taken):
            replies, ok = set(), True
            for t in taken:
                for e in range(9):
                    if t[e] == 0:
                        r = t[:e] + (opp,) + t[e + 1 :]
                        ok &= not line(r, opp) and not all(r)
                        replies.add(r)
                ok &= not all(t)
            if not ok or not bf_wins(frozenset(replies), me):
                continue
        return True
    return False


def execute(plan: Plan, board: tuple, me: int) -> bool:
    """Run ``plan`` from the true ``board`` against every opponent reply (any empty cell):
    True when every run ends in the player's win."""
    opp = 3 - me
    c = plan.action
    if board[c] == opp:
        sub = plan.then.get("refused")
        return isinstance(sub, Plan) and execute(sub, board, me)
    if board[c] == me:
        return False
    placed = board[:c] + (me,) + board[c + 1 :]
    sub = plan.then.get("taken")
    if line(placed, me):
        return sub == "win"
    if not isinstance(sub, Plan) or all(placed):
        return False
    for e in range(9):
        if placed[e] == 0:
            r = placed[:e] + (opp,) + placed[e + 1 :]
            if line(r, opp) or all(r) or not execute(sub, r, me):
                return False
    return True


# ---------------------------------------------------------------------- our side
_step = jax.jit(GAME.step)


def our_state(moves: tuple):
    state = GAME.init()
    for a in moves:
        state = _step(state, a)
    return state


@jax.jit
def _histories(states, players):
    return jax.vmap(functools.partial(observation_history, GAME))(states, players)


@jax.jit
def _worlds(records):
    return jax.vmap(GAME.worlds)(records)


def stack(states: list):
    return jax.tree.map(lambda *x: jnp.stack(x), *states)


@functools.cache
def representatives(length: int):
    """For each information state of the mover whose histories all have at most ``length``
    tries: one history, and the set of true boards over all of them."""
    boards: dict[tuple, set] = {}
    first: dict[tuple, dict] = {}
    for h in bf_histories(length):
        if h["over"]:
            continue
        p = h["mover"]
        key = (p, info(h, p))
        boards.setdefault(key, set()).add(h["board"])
        first.setdefault(key, h)
    complete = {}
    for (p, (view, tries)), found in boards.items():
        mine = sum(v == p + 1 for v in view)
        opp_marks = mine + p
        longest = len(tries) + opp_marks + mine  # the opponent's marks and refused tries
        if longest <= length:
            complete[(p, (view, tries))] = (first[(p, (view, tries))], found)
    return complete


def test_worlds_equal_brute_force() -> None:
    """For every information state whose histories have at most 5 tries: the valid worlds'
    boards are exactly the true boards of the histories the player cannot tell apart."""
    reps = representatives(5)
    assert len(reps) > 200
    items = list(reps.values())
    states = stack([our_state(h["moves"]) for h, _ in items])
    players = jnp.asarray([h["mover"] for h, _ in items], jnp.int32)
    worlds, valid = jax.device_get(_worlds(_histories(states, players).record))
    for i, (h, found) in enumerate(items):
        ours = {tuple(int(c) for c in b) for b in worlds.board[i][valid[i]]}
        assert ours == found, h["moves"]


def test_sampled_worlds_are_consistent() -> None:
    """Every drawn world (exact and by rejection) gives the observer the same observation
    and the same information-state key as the true state, and its board is a brute-force
    world."""
    reps = representatives(5)
    items = [v for k, v in sorted(reps.items())][::7][:40]
    states = stack([our_state(h["moves"]) for h, _ in items])
    players = jnp.asarray([h["mover"] for h, _ in items], jnp.int32)
    history = _histories(states, players)
    observe = jax.jit(jax.vmap(jax.vmap(GAME.observation, (0, None)), (0, 0)))
    keys = jax.jit(jax.vmap(jax.vmap(GAME.information_state_key, (0, None)), (0, 0)))
    true_obs = jax.vmap(GAME.observation)(states, players)
    for method, n in (("exact", 16), ("rejection", 4)):
        worlds = sample_world(GAME, history, 3, n, method=method)
        assert worlds.board.shape == (len(items), n, 9)
        np.testing.assert_array_equal(observe(worlds, players), jnp.repeat(true_obs[:, None], n, 1))
        np.testing.assert_array_equal(keys(worlds, players), jnp.repeat(history.key[:, None], n, 1))
        for i, (h, found) in enumerate(items):
            for b in np.asarray(worlds.board[i]):
                assert tuple(int(c) for c in b) in found, (method, h["moves"])
    # the same seed draws the same worlds
    again = sample_world(GAME, history, 3, 16)
    np.testing.assert_array_equal(again.board, sample_world(GAME, history, 3, 16).board)


def test_sample_world_needs_imperfect_information() -> None:
    ttt = jaxgames.make("tictactoe")
    with pytest.raises(GameError, match="not a game of imperfect information"):
        sample_world(ttt, None, 0, 4)
    with pytest.raises(GameError, match="belief states"):
        and_or_search(ttt, np.ones(3, bool))


def test_and_or_agrees_with_brute_force_in_the_first_four_plies() -> None:
    """Every belief state of the mover in every history of at most 4 tries: the same belief
    as brute force, the same answer (guaranteed win or not); every plan found wins when run
    against every opponent behaviour from every board of the belief."""
    table: dict = {}
    seen: set = set()
    wins = 0
    for h in bf_histories(4):
        if h["over"]:
            continue
        p = h["mover"]
        if (p, info(h, p)) in seen:
            continue
        seen.add((p, info(h, p)))
        belief = GAME.belief(our_state(h["moves"]), p)
        expected = bf_belief(h)
        assert {tuple(int(c) for c in b) for b in BOARDS[belief]} == expected, h["moves"]
        result = and_or_search(GAME, belief, table)
        assert result.win == bf_wins(expected, p + 1), h["moves"]
        if result.win:
            wins += 1
            assert all(execute(result.plan, b, p + 1) for b in expected), h["moves"]
    assert len(seen) == 317  # information states of the mover in the first 4 plies
    assert wins == 48  # guaranteed wins do arise: X at 4, O's edge 1 found by a refused try


def test_a_guaranteed_win_shown() -> None:
    """X takes the centre, O an edge, X runs into it: X knows the whole board and wins
    whatever O does unseen (O's edge loses in tic-tac-toe too):

    play 0; if taken: play 3; if refused (O blocked at 3): play 2 ... ; if taken: play 5 ...
    """
    state = GAME.parse("4 1 1")
    belief = GAME.belief(state, 0)
    assert belief.sum() == 1
    result = and_or_search(GAME, belief)
    assert result.win and result.plan.action == 0
    assert execute(result.plan, tuple(int(c) for c in BOARDS[belief][0]), 1)
    assert "play 0" in result.plan.show()
    # and no guaranteed win from the start: tic-tac-toe is a draw
    assert not and_or_search(GAME, GAME.belief(GAME.init(), 0)).win
