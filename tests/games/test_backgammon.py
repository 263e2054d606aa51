"""Backgammon (full-turn moves) against GNU Backgammon, OpenSpiel and the tests' reference.

Truth from outside: the published opening-roll counts, GNU Backgammon's move lists and
position IDs for 300 positions (``reference/gnubg_backgammon.json``), OpenSpiel's
``backgammon`` played at random, and the pure-Python reference ``backgammon_reference.py``
(itself checked against those in ``test_backgammon_reference.py``).
"""

from __future__ import annotations

import functools
import json
import math
import random

import backgammon_reference as ref
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REFERENCE
from hypothesis import given
from hypothesis import strategies as st
from jaxgames.kernels import batched, playouts, stack

import jaxgames
import jaxgames.search
from jaxgames import CHANCE, GameError
from jaxgames.capabilities import Hashing, MoveLists, Sampling
from jaxgames.games import backgammon as bgm

pytestmark = pytest.mark.slow  # compiles many programs: outside the fast subset

GAME = jaxgames.make("backgammon")
OPENING = json.loads((REFERENCE / "backgammon_opening.json").read_text())
GNUBG = json.loads((REFERENCE / "gnubg_backgammon.json").read_text())
ROLLS = [(int(a), int(b)) for a, b in (row["roll"].split("-") for row in OPENING["rolls"])]


def state_of(own, opp, dice=None, player: int = 0):
    """A state from the reference's convention (own on roll), through the public parser."""
    text = ref.position_id(tuple(own), tuple(opp))
    if dice:
        text += f":{dice[0]}{dice[1]}:{'xo'[player]}"
    elif player:
        text += f":-:{'xo'[player]}"
    return GAME.parse(text)


def plays_of(state) -> dict[int, ref.Position]:
    """{action: position after it, from the mover's view} for a decision state."""
    return {a: (mine, theirs) for a, (mine, theirs) in GAME.plays(state).items()}


def swap_after(pid: str) -> ref.Position:
    """A play's ID in the gnubg fixture (opponent on roll) as the mover's (own, opp)."""
    return ref.swap(*ref.from_position_id(pid))


@functools.cache
def jitted():
    def observe(state):
        return {
            "player": GAME.player(state),
            "legal": GAME.legal_mask(state),
            "terminal": GAME.terminal(state),
            "utility": GAME.utility(state),
            "evaluate": GAME.evaluate(state),
            "hash": GAME.hash(state),
            "num_plays": GAME.num_plays(state),
        }

    return jax.jit(GAME.step), jax.jit(observe)


# ---------------------------------------------------------------- static facts
def test_static_facts():
    assert "backgammon" in jaxgames.list_games()
    assert jaxgames.make("backgammon") is GAME and GAME.spec == "backgammon"
    assert GAME.num_players == 2 and GAME.zero_sum and isinstance(GAME, Hashing)
    assert GAME.num_actions == math.comb(29, 4) == 23751
    assert GAME.num_chance_outcomes == 21
    assert (GAME.utility_min, GAME.utility_max) == (-3.0, 3.0)
    assert GAME.max_game_length >= 1000


def test_start_is_a_chance_node_with_the_dice_weights():
    _, observe = jitted()
    state = GAME.init()
    seen = observe(state)
    assert int(seen["player"]) == CHANCE and not bool(seen["terminal"])
    probs = np.asarray(GAME.chance_probs(state), np.float64)
    assert probs.shape == (21,) and abs(probs.sum() - 1.0) < 1e-6
    for k, (hi, lo) in enumerate(bgm.ROLLS):
        assert hi >= lo and probs[k] == pytest.approx(1 / 36 if hi == lo else 1 / 18)
        assert GAME.action_to_string(state, k) == f"{hi}{lo}"
        assert GAME.string_to_action(state, f"{lo}{hi}") == k
    assert sorted(map(tuple, bgm.ROLLS.tolist())) == sorted(
        (a, b) for a in range(1, 7) for b in range(1, a + 1)
    )
    legal = np.asarray(seen["legal"])
    assert legal[:21].all() and not legal[21:].any() and int(seen["num_plays"]) == 21
    assert GAME.position_id(state) == "4HPwATDgc/ABMA"


# ---------------------------------------------------------------- the action space
def test_doubles_codes_are_all_nonincreasing_source_sequences():
    # Distinct non-increasing sequences over 0..25, as many as there are (C(29, 4)): every
    # multiset of at most four sources has exactly one code, and the rank formula inverts it.
    table = bgm.DOUBLES_SOURCES.astype(int)
    assert table.shape == (GAME.num_actions, 4)
    assert (np.diff(table, axis=1) <= 0).all() and table.min() == 0 and table.max() == 25
    assert len({tuple(row) for row in table}) == GAME.num_actions
    assert [bgm.doubles_rank(*row) for row in table.tolist()] == list(range(GAME.num_actions))
    # Non-doubles codes (order, s1, s2) fill the first 2 * 26 * 26 codes.
    assert bgm.NON_DOUBLES_CODES == 1352 <= GAME.num_actions


def test_every_code_decodes_to_moves_in_range():
    """The structural half of the bound: any code is at most 2 (non-doubles) or 4 (doubles)
    checker moves whose sources are points 1..24 or the bar; no play needs another code."""
    codes = jnp.arange(GAME.num_actions, dtype=jnp.int32)
    for dice in ((6, 5), (1, 1)):
        srcs, dies = jax.vmap(bgm._decode_moves, in_axes=(0, None))(
            codes, jnp.asarray(dice, jnp.int8)
        )
        srcs, dies = np.asarray(srcs), np.asarray(dies)
        assert srcs.min() == 0 and srcs.max() == 25
        assert set(np.unique(dies)) <= set(dice)
        if dice[0] != dice[1]:
            assert (srcs[:, 2:] == 0).all()


def test_doubles_plays_reorder_to_nonincreasing_sources():
    """Both claims behind the doubles encoding, checked on the reference's ordered move
    sequences: sorting a legal sequence's sources (bar first) keeps it legal with the same
    result, and different source multisets never give the same position."""
    checked = 0
    for own, opp, dice in ref.random_game_positions(seed=21, n=1500):
        if dice[0] != dice[1]:
            continue
        by_multiset: dict[tuple[int, ...], ref.Position] = {}
        for moves, position in ref.legal_sequences(own, opp, dice):
            ordered = sorted(moves, key=lambda m: -m[0])
            assert ref.apply_play(own, opp, ordered) == position
            key = tuple(source for source, _ in ordered)
            assert by_multiset.setdefault(key, position) == position
        assert len(set(by_multiset.values())) == len(by_multiset)
        checked += 1
    assert checked > 150


def test_the_largest_play_count_found():
    """1-1 with single checkers on 15 points (the opponent's all on the bar, blocking
    nothing): 2,226 distinct plays, the most a search over positions found; far below the
    23751 codes, and the same count as the reference's."""
    own = [0] * 26
    for point in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 23, 24):
        own[point] = 1
    opp = [0] * 25 + [15]
    state = state_of(own, opp, (1, 1))
    assert len(GAME.legal_actions(state)) == 2226 == len(ref.legal_plays(own, opp, (1, 1)))


def test_move_lists_are_the_legal_actions():
    """The compact lists (MoveLists): exactly the legal mask's actions in increasing order,
    then -1, never more than max_moves (C(18, 4) = 3060, above the 2,226 of the largest
    position found); the 21 rolls at a chance node; nothing once the game is over."""
    assert isinstance(GAME, MoveLists) and GAME.max_moves == math.comb(18, 4) == 3060
    step, observe = jitted()
    lists = jax.jit(GAME.legal_moves)
    largest = [0] * 26
    for point in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 23, 24):
        largest[point] = 1
    positions = ref.random_game_positions(seed=4, n=60) + [
        (e["own"], e["opp"], tuple(e["dice"])) for e in GNUBG["positions"][::10]
    ]
    positions.append((largest, [0] * 25 + [15], (1, 1)))
    states = [state_of(own, opp, dice) for own, opp, dice in positions] + [GAME.init()]
    last = [14, 1] + [0] * 24  # one checker left, on the 1-point: any roll finishes
    finish = state_of(last, [0] * 6 + [15] + [0] * 19, (6, 5))
    states.append(step(finish, jnp.int32(next(iter(plays_of(finish))))))
    for state in states:
        legal = np.flatnonzero(np.asarray(observe(state)["legal"]))
        got = np.asarray(lists(state))
        assert got.shape == (GAME.max_moves,) and got.dtype == np.int32
        assert got[: legal.size].tolist() == legal.tolist()
        assert (got[legal.size :] == -1).all()
    assert legal.size == 0 and lists(GAME.init())[:22].tolist() == [*range(21), -1]


# ---------------------------------------------------------------- legal plays
def test_opening_roll_counts():
    start = ref.START
    for row, dice in zip(OPENING["rolls"], ROLLS, strict=True):
        state = state_of(*start, dice)
        plays = plays_of(state)
        assert len(plays) == row["distinct_plays"], row["roll"]
        assert len(set(plays.values())) == len(plays), row["roll"]  # one code per position
        assert set(plays.values()) == ref.legal_plays(*start, dice), row["roll"]


def test_plays_match_the_reference_on_random_positions():
    """Resulting positions equal the reference's, and distinct codes give distinct ones."""
    largest = 0
    for own, opp, dice in ref.random_game_positions(seed=2, n=250):
        plays = plays_of(state_of(own, opp, dice))
        assert len(set(plays.values())) == len(plays), (ref.position_id(own, opp), dice)
        assert set(plays.values()) == ref.legal_plays(own, opp, dice), (
            ref.position_id(own, opp),
            dice,
        )
        largest = max(largest, len(plays))
    assert largest <= GAME.num_actions


@pytest.mark.parametrize("start", range(0, 300, 50))
def test_plays_match_gnubg(start):
    step, observe = jitted()
    for entry in GNUBG["positions"][start : start + 50]:
        own, opp, dice = entry["own"], entry["opp"], tuple(entry["dice"])
        state = state_of(own, opp, dice)
        assert GAME.position_id(state) == entry["position_id"]
        plays = plays_of(state)
        want = {swap_after(pid) for pid in entry["plays"]}
        assert set(plays.values()) == want and len(plays) == len(want), entry["tags"]
        for pid, points in entry.get("game_over_points", {}).items():
            (action,) = [a for a, pos in plays.items() if pos == swap_after(pid)]
            seen = observe(step(state, jnp.int32(action)))
            assert bool(seen["terminal"])
            assert np.asarray(seen["utility"]).tolist() == [points, -points]


def _openspiel_position(state, player: int) -> ref.Position:
    """OpenSpiel's board from ``player``'s view: board(p, pos) in one frame (player 0 moves
    from pos 0 to 23, player 1 from 23 to 0); bar and borne-off counts from the observation
    tensor (bar at 192, off at 193 for the observing player)."""

    def side(p: int) -> ref.Side:
        counts = [0] * 26
        for pos in range(24):
            counts[24 - pos if p == 0 else pos + 1] = state.board(p, pos)
        obs = state.observation_tensor(p)
        counts[25], counts[0] = int(obs[192]), int(obs[193])
        return tuple(counts)

    return side(player), side(1 - player)


def _openspiel_plays(state, player: int) -> set[ref.Position]:
    """Positions after the whole roll (OpenSpiel plays a double as two decisions)."""
    out, frontier = set(), [state]
    while frontier:
        node = frontier.pop()
        if node.is_terminal() or node.is_chance_node() or node.current_player() != player:
            out.add(_openspiel_position(node, player))
        else:
            frontier += [node.child(a) for a in node.legal_actions()]
    return out


def test_plays_match_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring"})
    rng = random.Random(5)
    state, checked, doubles = game.new_initial_state(), 0, 0
    while checked < 150:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            player = state.current_player()
            own, opp = _openspiel_position(state, player)
            obs = state.observation_tensor(player)
            dice = (int(obs[198]), int(obs[199]))
            mine = plays_of(state_of(own, opp, (max(dice), min(dice))))
            assert set(mine.values()) == _openspiel_plays(state, player), (
                ref.position_id(own, opp),
                dice,
            )
            checked += 1
            doubles += dice[0] == dice[1]
            while not state.is_terminal() and state.current_player() == player:
                state.apply_action(rng.choice(state.legal_actions()))
    assert doubles > 10


def test_special_rolls():
    """Single-die plays, the larger-die rule, no-move passes, partial doubles and the bar."""
    seen = set()
    for entry in GNUBG["positions"]:
        tags = set(entry["tags"])
        interesting = tags & {"no_move", "larger_die_rule", "doubles_partial", "both_bars"}
        if not interesting:
            continue
        state = state_of(entry["own"], entry["opp"], tuple(entry["dice"]))
        plays = plays_of(state)
        if "no_move" in tags:
            assert list(plays) == [0] and GAME.action_to_string(state, 0) == "pass"
            assert GAME.string_to_action(state, "pass") == 0
        seen |= interesting
    assert seen == {"no_move", "larger_die_rule", "doubles_partial", "both_bars"}


# ---------------------------------------------------------------- the sampling hint
@functools.partial(jax.jit, static_argnums=1)
def _ranked(state, size: int):
    """(number of plays n, the codes of ranks 0..size-1 (clipped to n - 1)): the counters
    run on ``size`` copies of the position, one rank per lane (lanes on the last axis)."""
    own = jnp.broadcast_to(state.own[:, None], (26, size))
    opp = jnp.broadcast_to(state.opp[:, None], (26, size))
    hi = jnp.full((size,), state.dice[0], jnp.int32)
    lo = jnp.full((size,), state.dice[1], jnp.int32)
    nd = bgm._non_doubles_table(own, opp, hi, lo)
    dd = bgm._doubles_table(own, opp, jnp.clip(hi, 1, 6))
    doubles = hi == lo
    n = jnp.where(doubles, dd.n, nd.n)
    ranks = jnp.minimum(jnp.arange(size), n - 1)
    codes = jnp.where(
        doubles, bgm._doubles_pick(dd, ranks), bgm._non_doubles_pick(nd, ranks, hi, lo)
    )
    return n[0], codes


def test_play_ranks_are_a_bijection_onto_the_legal_actions():
    """The hint counts and decodes plays without the mask: rank r -> code is a bijection
    from 0..n-1 onto exactly the legal actions."""
    _, observe = jitted()
    positions = ref.random_game_positions(seed=8, n=200) + [
        (e["own"], e["opp"], tuple(e["dice"])) for e in GNUBG["positions"][::3]
    ]
    for own, opp, dice in positions:
        state = state_of(own, opp, dice)
        legal = set(np.flatnonzero(np.asarray(observe(state)["legal"])).tolist())
        n, codes = _ranked(state, 256 if len(legal) <= 256 else 4096)
        assert int(n) == len(legal) == int(observe(state)["num_plays"])
        assert set(np.asarray(codes)[: int(n)].tolist()) == legal, (ref.position_id(own, opp), dice)


def test_batched_sampling_draws_the_ranked_plays():
    """The batched hint (decision work skipped at chance steps, doubles lanes and bear-off
    lanes gathered in chunks) draws exactly the floor(u * n)-th play of the ranking above,
    and the inverse-CDF roll at chance nodes."""
    positions = ref.random_game_positions(seed=9, n=60)
    doubles = [p for p in positions if p[2][0] == p[2][1]][:6]
    others = [p for p in positions if p[2][0] != p[2][1]][:6]
    bearing_off = [  # the 7 x 7 bear-off grid, also gathered in chunks (of B // 4)
        (e["own"], e["opp"], tuple(e["dice"]))
        for e in GNUBG["positions"]
        if "bearoff" in e["tags"] and e["dice"][0] != e["dice"][1]
    ][:6]
    assert len(bearing_off) == 6
    states = [state_of(own, opp, dice) for own, opp, dice in doubles + others + bearing_off]
    states += [GAME.init(), GAME.init()]
    u = np.asarray(jax.random.uniform(jax.random.key(3), (len(states),)))
    drawn = np.asarray(jax.jit(GAME.sample_actions)(stack(states), jnp.asarray(u)))
    for state, ui, action in zip(states[:-2], u[:-2], drawn[:-2], strict=True):
        n, codes = _ranked(state, 256)
        assert action == int(codes[min(int(ui * int(n)), int(n) - 1)])
    cdf = np.cumsum(bgm.ROLL_PROBS.astype(np.float64))
    for ui, action in zip(u[-2:], drawn[-2:], strict=True):
        assert action == min(int(np.sum(cdf <= ui * cdf[-1])), 20)


# ---------------------------------------------------------------- scoring
@pytest.mark.parametrize(
    ("loser", "points"),
    [
        ({"off": 1, 6: 14}, 1),
        ({6: 15}, 2),
        ({6: 14, 25: 1}, 3),
        ({6: 14, 20: 1}, 3),
        ({6: 14, 18: 1}, 2),
    ],
)
def test_single_gammon_backgammon(loser, points):
    """x bears off its last checker; o (the loser) as given, in o's own numbering."""
    opp = [0] * 26
    for point, n in loser.items():
        opp[0 if point == "off" else point] = n
    own = [0] * 26
    own[0], own[1] = 14, 1
    assert ref.result(tuple(own), tuple(opp)) == 0
    step, observe = jitted()
    state = state_of(own, opp, (6, 5))
    (action,) = plays_of(state)
    seen = observe(step(state, jnp.int32(action)))
    assert bool(seen["terminal"]) and int(seen["player"]) == CHANCE
    assert np.asarray(seen["utility"]).tolist() == [points, -points]
    assert np.asarray(seen["evaluate"]).tolist() == [points, -points]
    assert not np.asarray(seen["legal"]).any() and int(seen["num_plays"]) == 0
    # The same finish by o: the utility flips sign.
    seen_o = observe(step(state_of(own, opp, (6, 5), player=1), jnp.int32(action)))
    assert np.asarray(seen_o["utility"]).tolist() == [-points, points]


# ---------------------------------------------------------------- notation
def test_format_and_parse_round_trip():
    step, _ = jitted()
    text = GAME.format(GAME.init())
    assert text == "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=-"
    for sample in GAME.sample_positions():
        state = GAME.parse(sample)
        again = GAME.parse(GAME.format(state))
        for a, b in zip(state, again, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for own, opp, dice in ref.random_game_positions(seed=4, n=60):
        for player in (0, 1):
            state = state_of(own, opp, dice, player)
            again = GAME.parse(GAME.format(state))
            for a, b in zip(state, again, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            assert GAME.position_id(state) == ref.position_id(own, opp)


@given(st.integers(0, 10**6), st.integers(0, 1))
def test_random_boards_round_trip(seed, player):
    rng = random.Random(seed)
    own, opp = [0] * 26, [0] * 26
    for side, other in ((own, opp), (opp, own)):
        for _ in range(15):
            while True:
                p = rng.choice([0, 25] + list(range(1, 25)))
                if p in (0, 25) or not other[25 - p]:
                    side[p] += 1
                    break
    if own[0] == 15 and opp[0] == 15:
        opp[0], opp[6] = 14, 1
    state = state_of(own, opp, None, player)
    back = GAME.parse(GAME.format(state))
    assert GAME.format(back) == GAME.format(state)
    assert np.asarray(back.own).tolist() == own and np.asarray(back.opp).tolist() == opp
    assert ref.from_position_id(GAME.position_id(state)) == (tuple(own), tuple(opp))


def test_position_ids_with_dice_and_player():
    state = GAME.parse("4HPwATDgc/ABMA:31")
    assert np.asarray(state.dice).tolist() == [3, 1] and int(GAME.player(state)) == 0
    state = GAME.parse("4HPwATDgc/ABMA:13:o")
    assert np.asarray(state.dice).tolist() == [3, 1] and int(GAME.player(state)) == 1
    assert GAME.format(state).endswith("to_move=o dice=31")
    assert GAME.parse("start").hash.tolist() == GAME.init().hash.tolist()
    assert (
        bgm.position_id(*bgm.from_position_id(GNUBG["half_order_evidence"]["id_after"]))
        == (GNUBG["half_order_evidence"]["id_after"])
    )


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5", "to_move"),
        ("x: 24:2 13:5 8:3 6:6 o: 24:2 13:5 8:3 6:5 to_move=x", "16 checkers"),
        ("x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=71", "dice"),
        ("x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=z", "to_move"),
        ("x: 24:2 13:5 8:3 6:5 o: 1:2 13:5 8:3 6:5 to_move=x", "both players"),
        ("x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 off:3 to_move=x", "off"),
        ("x: 26:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x", "26"),
        ("x: 24:2 13:5 8:3 6:5 zz o: 24:2 13:5 8:3 6:5 to_move=x", "'zz'"),
        ("4HPwATDgc/ABMA:9", "dice"),
        ("////////////////", "token"),
    ],
)
def test_parse_errors_name_what_is_wrong(text, what):
    with pytest.raises(GameError) as err:
        GAME.parse(text)
    message = str(err.value)
    assert what in message and "\n" not in message and message.startswith("backgammon")


def test_move_notation_round_trips_for_every_play():
    positions = [(e["own"], e["opp"], tuple(e["dice"])) for e in GNUBG["positions"][:300:10]]
    for own, opp, dice in positions + [(*ref.START, (4, 4)), (*ref.START, (6, 5))]:
        state = state_of(own, opp, dice)
        for action in plays_of(state):
            text = GAME.action_to_string(state, action)
            assert GAME.string_to_action(state, text) == action, text
            parts = text.split()
            if len(parts) > 1:  # the order of the parts does not matter
                assert GAME.string_to_action(state, " ".join(parts[::-1])) == action


def test_move_notation_examples():
    state = GAME.parse("4HPwATDgc/ABMA:31")
    action = GAME.string_to_action(state, "8/5 6/5")
    assert GAME.action_to_string(state, action) == "8/5 6/5"
    assert GAME.string_to_action(state, "6/5 8/5") == action
    run = GAME.string_to_action(GAME.parse("4HPwATDgc/ABMA:65"), "24/13")
    assert GAME.action_to_string(GAME.parse("4HPwATDgc/ABMA:65"), run) == "24/13"
    doubles = GAME.parse("4HPwATDgc/ABMA:33")
    assert GAME.action_to_string(doubles, GAME.string_to_action(doubles, "8/5(2) 6/3(2)")) == (
        "8/5(2) 6/3(2)"
    )
    for bad in ("24/30", "13/7 13/7", "6/8", "bar/22", "x/y"):
        with pytest.raises(GameError):
            GAME.string_to_action(state, bad)


# ---------------------------------------------------------------- hash and EVAL
def test_hash_matches_recomputation_along_random_games():
    step, observe = jitted()
    rng = random.Random(1)
    state, hashes, evals = GAME.init(), set(), []
    for _ in range(400):
        seen = observe(state)
        np.testing.assert_array_equal(np.asarray(seen["hash"]), GAME.recompute_hash(state))
        hashes.add(tuple(np.asarray(seen["hash"]).tolist()))
        value = np.asarray(seen["evaluate"])
        assert value[0] == -value[1]
        if bool(seen["terminal"]):
            np.testing.assert_array_equal(value, np.asarray(seen["utility"]))
            assert abs(value[0]) in (1.0, 2.0, 3.0)
            state = GAME.init()
            continue
        assert abs(value[0]) < 3.0
        evals.append(value[0])
        legal = np.flatnonzero(np.asarray(seen["legal"]))
        state = step(state, jnp.int32(rng.choice(legal.tolist())))
    assert len(hashes) > 300 and len(set(evals)) > 50


def test_eval_is_its_documented_formula():
    """EVAL against the docstring's formula written out in Python (the prime, the longest
    run of made points, included), on random positions of both players to move."""

    def side(board):
        on = board[1:25]
        made = [n >= 2 for n in on]
        prime = run = 0
        for m in made:
            run = run + 1 if m else 0
            prime = max(prime, run)
        pips = sum(point * n for point, n in enumerate(board))
        return pips, on.count(1), sum(made), sum(made[:6]), prime, board[25], board[0]

    evaluate = jax.jit(GAME.evaluate)
    for i, (own, opp, dice) in enumerate(ref.random_game_positions(seed=6, n=80)):
        player = i % 2
        state = state_of(own, opp, dice, player=player)
        po, bo, mo, ho, pro, baro, offo = side(list(own))
        pp, bp, mp, hp, prp, barp, offp = side(list(opp))
        raw = 0.2 * (pp - po) / math.sqrt(1 + (po + pp) / 20) + 0.15 * (bp - bo)
        raw += 0.1 * (mo - mp) + 0.1 * (ho - hp) + 0.15 * (pro - prp) + 0.5 * (barp - baro)
        raw += 0.1 * (offo - offp) + 0.25
        e = 2.5 * math.tanh(raw / 2) * (1 if player == 0 else -1)
        np.testing.assert_allclose(np.asarray(evaluate(state)), [e, -e], atol=1e-5)


def test_hash_depends_on_dice_and_side():
    a = GAME.parse("4HPwATDgc/ABMA:31")
    b = GAME.parse("4HPwATDgc/ABMA:42")
    c = GAME.parse("4HPwATDgc/ABMA:31:o")
    keys = {tuple(np.asarray(GAME.hash(s)).tolist()) for s in (a, b, c, GAME.init())}
    assert len(keys) == 4


# ---------------------------------------------------------------- playouts
class _MaskOnly(bgm.Backgammon):
    """The game without its sampler hint: the playout kernel draws from the legal mask."""

    sample_actions = None  # no Sampling capability


@pytest.mark.parametrize("game", [GAME, _MaskOnly()], ids=["sampler", "mask"])
def test_random_playouts_finish_with_valid_utilities(game):
    assert isinstance(GAME, Sampling)
    # From the start (sampler only: long) and from a bear-off with 4-4 to play (both ways).
    starts = [GAME.parse(GAME.sample_positions()[4])]
    if isinstance(game, Sampling):
        starts.append(GAME.init())
    result = playouts(game, stack(starts), 2, jax.random.key(0))
    utilities = np.asarray(result.utilities)  # [N, 2, 2]
    assert not np.asarray(result.truncated).any()
    assert set(np.abs(utilities[..., 0]).ravel()) <= {1.0, 2.0, 3.0}
    np.testing.assert_array_equal(utilities[..., 0], -utilities[..., 1])
    assert (np.asarray(result.lengths) > 0).all()


def test_batched_kernels_agree_with_single_states():
    fns = batched(GAME)
    states = fns.init(3)
    assert np.asarray(fns.player(states)).tolist() == [CHANCE] * 3
    stepped = fns.step(states, jnp.asarray([0, 5, 20], jnp.int32))
    assert np.asarray(stepped.dice).tolist() == [[1, 1], [3, 3], [6, 6]]
