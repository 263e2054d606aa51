"""Checkers endgame tables (jaxgames.games.checkers.endgames through jaxgames.search.tables),
checked against an independent solver written here: its own move generator on (row, column)
coordinates of the standard board (not the game's bitboards), whole moves (a multi-jump to
its end, a man crowned stops), and retrograde analysis by predecessor counting (not the
engine's sweeps). Every position of the 2-piece materials and of ``KKvK`` must have the
same win/draw/loss and the same distance in both. The published position counts (Schaeffer
et al., "Checkers Is Solved", Science 2007, Table 1, boards of 2 pieces 6,972 and 3 pieces
261,224) are checked against the numbering. The tables' whole moves are checked against
the game's own steps, and alpha-beta with the tables against the tables.
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from math import comb

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import PositionTables, TableSpace
from jaxgames.cli import main
from jaxgames.games.checkers import endgames
from jaxgames.search import tables as tb
from jaxgames.search.alphabeta import alphabeta_batch

GAME = jaxgames.make("checkers")
SOLVED = ("KvK", "KvM", "MvK", "MvM", "KKvK")  # closed under moves (and the end)
PAD = 64  # states per search or step call: one compiled shape


# ---------------------------------------------------------------- the independent solver
def _square_row_column(n: int) -> tuple[int, int]:
    """Standard numbering: square 1 top row (Black's side), rows of 4 dark squares."""
    row = (n - 1) // 4
    return row, 2 * ((n - 1) % 4) + (1 if row % 2 == 0 else 0)


AT = {_square_row_column(n): n for n in range(1, 33)}
DIRECTIONS = ((1, -1), (1, 1), (-1, -1), (-1, 1))  # (row step, column step); Black goes +1


def _forward(colour: int, is_king: bool) -> tuple[tuple[int, int], ...]:
    if is_king:
        return DIRECTIONS
    return tuple(d for d in DIRECTIONS if d[0] == (1 if colour == 0 else -1))


def _jumps(square, is_king, colour, mine, theirs, kings):
    """Whole captures continuing from ``square``: each the final (mine, theirs, kings)."""
    row, col = _square_row_column(square)
    found = []
    for dr, dc in _forward(colour, is_king):
        over, land = AT.get((row + dr, col + dc)), AT.get((row + 2 * dr, col + 2 * dc))
        if over is None or land is None or over not in theirs or land in mine | theirs:
            continue
        crowned = not is_king and _square_row_column(land)[0] == (7 if colour == 0 else 0)
        now_king = is_king or crowned
        m = (mine - {square}) | {land}
        t = theirs - {over}
        k = (kings - {square, over}) | ({land} if now_king else set())
        more = [] if crowned else _jumps(land, now_king, colour, m, t, k)
        found.extend(more or [(m, t, k)])
    return found


def whole_moves_reference(position):
    """Successors of ``(black, white, kings, colour)`` (frozensets of squares 1-32)."""
    black, white, kings, colour = position
    mine, theirs = (black, white) if colour == 0 else (white, black)
    results = []
    for square in sorted(mine):
        results += _jumps(square, square in kings, colour, mine, theirs, kings)
    if not results:
        for square in sorted(mine):
            row, col = _square_row_column(square)
            for dr, dc in _forward(colour, square in kings):
                to = AT.get((row + dr, col + dc))
                if to is None or to in mine | theirs:
                    continue
                crowned = _square_row_column(to)[0] == (7 if colour == 0 else 0)
                is_king = square in kings or crowned
                k = (kings - {square}) | ({to} if is_king else set())
                results.append(((mine - {square}) | {to}, theirs, k))
    out = []
    for m, t, k in results:
        b, w = (m, t) if colour == 0 else (t, m)
        out.append((frozenset(b), frozenset(w), frozenset(k), 1 - colour))
    return out


def positions_of(name: str):
    """Every position of a material name (``KMvK``), both sides to move."""
    black, white = name.split("v")
    groups = [
        (0, False, black.count("M")),
        (0, True, black.count("K")),
        (1, False, white.count("M")),
        (1, True, white.count("K")),
    ]
    allowed = {
        (0, False): range(1, 29),  # a man never stands on its crowning row
        (1, False): range(5, 33),
        (0, True): range(1, 33),
        (1, True): range(1, 33),
    }
    choices = [list(itertools.combinations(allowed[(c, k)], n)) for c, k, n in groups]
    for picks in itertools.product(*choices):
        squares = [s for p in picks for s in p]
        if len(set(squares)) < len(squares):
            continue
        black_set = frozenset(picks[0] + picks[1])
        white_set = frozenset(picks[2] + picks[3])
        kings = frozenset(picks[1] + picks[3])
        for colour in (0, 1):
            yield (black_set, white_set, kings, colour)


def solve_reference(names) -> dict:
    """Distance (turns) of every position of ``names`` (a set closed under moves, plus the
    positions where the side to move has no piece): odd won, even lost, absent drawn."""
    nodes = [p for name in names for p in positions_of(name)]
    known = set(nodes)
    kids = {p: whole_moves_reference(p) for p in nodes}
    parents = defaultdict(list)
    left = {}
    bare = "bare"  # every position whose side to move has no piece: lost at once
    for p, row in kids.items():
        left[p] = len(row)
        for kid in row:
            mover = kid[0] if kid[3] == 0 else kid[1]
            if not mover:
                kid = bare
            else:
                assert kid in known, f"{kid} leaves the solved materials"
            parents[kid].append(p)
    distance = {bare: 0}
    distance.update({p: 0 for p, row in kids.items() if not row})
    layer = [q for q in distance]
    d = 0
    while layer:
        following = []
        for q in layer:
            for p in parents[q]:
                if p in distance:
                    continue
                if d % 2 == 0:  # q lost: p wins in d + 1 (the first such q is the quickest)
                    distance[p] = d + 1
                    following.append(p)
                else:  # q won: p is lost when every move is (the last one the longest)
                    left[p] -= 1
                    if left[p] == 0:
                        distance[p] = d + 1
                        following.append(p)
        layer, d = following, d + 1
    del distance[bare]
    return {p: distance.get(p) for p in nodes}


def fen_of(position) -> str:
    black, white, kings, colour = position

    def side(pieces):
        return ",".join(("K" if s in kings else "") + str(s) for s in sorted(pieces))

    return f"{'BW'[colour]}:W{side(white)}:B{side(black)}"


# ---------------------------------------------------------------- fixtures and helpers
@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    directory = tmp_path_factory.mktemp("checkers-tables")
    for name in SOLVED:
        tb.build(GAME, name, directory)
    return directory


@pytest.fixture(scope="module")
def tables(folder):
    return tb.open_tables(GAME, folder)


def stacked(states):
    return jax.tree.map(lambda *x: np.stack(x), *states)


def padded(states):
    return stacked(states + [states[0]] * (-len(states) % PAD))


def probe_all(tables, states):
    got = tb.probe(GAME, stacked(states), tables)
    return got.wdl.astype(int), got.distance.astype(int)


@functools.cache
def step_all():
    def children(state):
        moves = GAME.legal_moves(state)  # [48]
        return moves, jax.vmap(lambda a: GAME.step(state, jnp.maximum(a, 0)))(moves)

    return jax.jit(jax.vmap(children))


def turn_ends_by_steps(states):
    """Each state's whole moves by the game's own steps: the sets after each turn."""
    out = [[] for _ in states]
    frontier = list(enumerate(states))
    while frontier:
        following = []
        for start in range(0, len(frontier), PAD):
            part = frontier[start : start + PAD]
            moves, kids = jax.device_get(step_all()(padded([s for _, s in part])))
            for row, (owner, _) in enumerate(part):
                for k in np.flatnonzero(moves[row] >= 0):
                    kid = jax.tree.map(lambda x, r=row, c=k: x[r, c], kids)
                    if int(kid.jumper) >= 0:
                        following.append((owner, kid))
                    else:
                        out[owner].append((int(kid.black), int(kid.white), int(kid.kings)))
        frontier = following
    return out


def random_positions(names, count, seed):
    rng = np.random.default_rng(seed)
    fens = []
    while len(fens) < count:
        space = GAME.table_space(names[rng.integers(len(names))])
        index = int(rng.integers(space.size))
        if space.expand(np.asarray([index])).valid[0]:
            fens.append(space.describe(index))
    return fens


# ---------------------------------------------------------------- tests
def test_names_tables_and_dependencies():
    assert isinstance(GAME, PositionTables)
    assert len(GAME.table_names) == 41 and "KKvKK" in GAME.table_names
    assert GAME.table_name("mkvk") == "KMvK"
    space = GAME.table_space("KMvK")
    assert isinstance(space, TableSpace) and space.size == 28 * 32 * 32 * 2
    # captures, a crowning (taking the last piece ends the game: no table)
    assert space.dependencies == ("KvK", "MvK", "KKvK")
    for name in GAME.table_names:  # every dependency is smaller: no cycles
        m = endgames.parse_name(name)
        for dep in GAME.table_space(name).dependencies:
            d = endgames.parse_name(dep)
            assert (sum(d), d[0] + d[2]) < (sum(m), m[0] + m[2])
    for bad, words in (
        ("KQK", "not a material"),
        ("KKKvKK", "at most 4"),
        ("vKK", "at least one piece"),
        ("KvK v", "not a material"),
    ):
        with pytest.raises(GameError, match=words):
            GAME.table_space(bad)


def test_numbering_goes_round_and_counts_match_the_published_ones():
    material = (1, 1, 0, 1)  # a man and a king against a king
    size = endgames.table_size(material)
    black, white, kings, player, valid = endgames.positions_host(material, np.arange(size))
    again = endgames.index_host(material, black, white, kings, player)
    assert np.array_equal(again[valid], np.arange(size)[valid])
    assert int(valid.sum()) == 28 * 31 * 30 * 2  # holes: two groups on one square
    # the traced key (probing) gives the same numbers
    pick = np.flatnonzero(valid)[:: size // 50]
    states = stacked([GAME.parse(GAME.table_space("KMvK").describe(int(i))) for i in pick])
    slot, number = jax.jit(jax.vmap(lambda s: GAME.table_key(s, ("KvK", "KMvK"))))(states)
    assert np.all(np.asarray(slot) == 1) and np.array_equal(np.asarray(number), pick)

    # boards (side to move not counted, one-sided boards counted), Schaeffer et al. 2007
    def boards(pieces):
        legal = 0
        for m in endgames.MATERIALS:
            if sum(m) == pieces:
                legal += int(endgames.positions_host(m, np.arange(endgames.table_size(m)))[4].sum())
        one_side = sum(comb(28, men) * comb(32 - men, pieces - men) for men in range(pieces + 1))
        return legal // 2 + 2 * one_side

    assert boards(2) == 6_972 and boards(3) == 261_224


def test_whole_moves_are_the_games_own_turns():
    names = [endgames.material_name(m) for m in endgames.MATERIALS if sum(m) == 4]
    fens = random_positions(names, 600, seed=1)
    # multi-jumps are rare at random: a few positions that have them
    # (triple jumps by a king and by a man, a double jump, a man crowned by a jump who
    # stops there though as a king it could jump on)
    fens += ["B:WK7,K8,K14:BK17", "B:W9,17,25:B5", "B:WK2,K6,K14:BK17", "B:WK25,K26:B21"]
    states = [GAME.parse(f) for f in fens]
    fields = stacked(states)
    row, black, white, kings = endgames.whole_moves(
        fields.black, fields.white, fields.kings, fields.player.astype(np.int64)
    )
    mine = defaultdict(list)
    for r, b, w, k in zip(row, black, white, kings, strict=True):
        mine[int(r)].append((int(b), int(w), int(k)))
    theirs = turn_ends_by_steps(states)
    captures = 0
    for i, fen in enumerate(fens):
        assert sorted(mine[i]) == sorted(theirs[i]), fen
        captures += any(bin(b | w).count("1") < 4 for b, w, _ in theirs[i])
    assert captures >= 20
    assert [len(theirs[i]) for i in range(-4, 0)] == [1, 1, 1, 1]
    assert [bin(theirs[i][0][1]).count("1") for i in range(-4, 0)] == [0, 0, 1, 1]
    black, _, kings = theirs[-1][0]
    assert black & kings and black == 1 << 29  # crowned on 30 (21x30), the turn over


def test_tables_agree_with_the_independent_solver_on_every_position(tables):
    solved = solve_reference(SOLVED)
    positions = list(solved)
    states = [GAME.parse(fen_of(p)) for p in positions]
    wdl, dist = probe_all(tables, states)
    want = np.asarray([-1 if solved[p] is None else solved[p] for p in positions])
    want_wdl = np.where(want < 0, 0, np.where(want % 2 == 1, 1, -1))
    assert np.array_equal(wdl, want_wdl)
    assert np.array_equal(dist, want)
    assert len(positions) == 6976 + 29760
    # the tables say something: KKvK is won for its kings with either side to move, mostly
    kkvk = np.asarray([fen_of(p).startswith("B") and len(p[0]) == 2 for p in positions])
    assert (wdl[kkvk] == 1).mean() > 0.9
    in_kkvk = np.asarray([len(p[0]) == 2 for p in positions])
    longest = max(int(d) for d in want[in_kkvk] if d % 2 == 1)
    assert tables.meta["KKvK"]["longest_win"] == longest


def test_alphabeta_takes_table_positions_as_exact_leaves(folder, tables):
    fens = random_positions(["KKvK", "MvM", "KvM"], 3 * PAD, seed=2)
    states = [GAME.parse(f) for f in fens]
    states = [s for s in states if not bool(GAME.terminal(s))][:PAD]
    wdl, _ = probe_all(tables, states)
    game = jaxgames.make("checkers", tables=str(folder))
    result = alphabeta_batch(game, stacked(states), 2)
    mover = np.asarray([int(s.player) for s in states])
    value = np.asarray(result.value)[np.arange(len(states)), mover]
    # exact, whatever the depth, except where a root's capture jumps on past the horizon
    # (a mid-jump position has no number)
    # a table position won in d plies is worth 1 - d * MATE_STEP: its sign is the result
    agree = np.where(np.abs(value) < 0.5, 0, np.sign(value)) == wdl
    assert agree.mean() > 0.95 and result.stats["exact_hits"] > 0
    for i in np.flatnonzero(~agree):
        assert any(
            int(k.jumper) >= 0 for k in [GAME.step(states[i], a) for a in legal_actions(states[i])]
        )


def legal_actions(state):
    return [int(a) for a in np.asarray(GAME.legal_moves(state)) if a >= 0]


def test_second_build_is_instant_and_the_command_line(folder, capsys):
    report = tb.build(GAME, "KKvK", folder)
    assert not report.built  # found with its metadata, not rebuilt
    assert report.meta["table"] == "KKvK" and report.meta["index_version"] == 1
    assert main(["tables", "build", "checkers", "kkvk", "KvK", "--dir", str(folder), "-q"]) == 0
    out = capsys.readouterr().out
    assert out.count("present") == 2 and "checkers KKvK" in out
    # Black's two kings against a lone king in the corner: a win
    assert main(["tables", "probe", "checkers", "B:WK4:BK10,K15", "--dir", str(folder)]) == 0
    assert capsys.readouterr().out.startswith("win, ")
    assert main(["tables", "build", "checkers", "KXvK", "--dir", str(folder)]) == 2
    assert "not a material" in capsys.readouterr().err
