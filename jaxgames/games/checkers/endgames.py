"""Checkers endgames with up to 4 pieces as numbered sub-spaces, for endgame tables
(:class:`~jaxgames.capabilities.PositionTables`, built by :mod:`jaxgames.search.tables`).

Names
-----
A table is named by its material: Black's pieces, ``v``, White's pieces, ``K`` a king and
``M`` a man, kings first: ``KvK`` (a king each), ``KMvK`` (Black a king and a man against a
king), ``MMvMM``. Black is player 0 (it moves first, from squares 1-12). Each side has at
least one piece and there are at most 4 in all: 41 tables. A capture of the last enemy
piece ends the game: such a move is a win at once
(:data:`~jaxgames.capabilities.SUCCESSOR_LOSS`, the successor is lost for its mover). The
colours are not folded together (``KvKM`` is a table of its own), so every signature is
solved on its own.

What a table's turn is
----------------------
In the game a multi-jump is played as several steps by the same player; in the tables a
turn is a WHOLE move: a capture is followed jump by jump to the end of the turn, and the
successor is the position after the last jump (a man crowned by a jump stops there), with
the other side to move. So mid-jump states have no numbers, and distances count whole moves
(plies of turns), not the game's steps. A side with no legal move (no piece, or every piece
blocked) has lost. The 40-step draw rule is ignored: the values are those of the game
without it, as endgame databases give them (the game itself still applies it).

Numbering (index version :data:`INDEX_VERSION`)
-----------------------------------------------
A material signature is ``(black_men, black_kings, white_men, white_kings)``. Within it a
position is numbered by the mixed radix

    index = ((((black_men_rank * K) + black_kings_rank) * M + white_men_rank) * K
             + white_kings_rank) * 2 + player

where each rank is the combinatorial number (``sum C(position_i, i + 1)`` over the group's
squares in increasing order) of the group's set of squares among the squares it may stand
on: 28 for men (not on their own crowning row), 32 for kings. Groups may overlap in this
product space: such a number is a hole (no legal position). The largest table is
``KMvKM``, ``28 * 32 * 28 * 32 * 2 = 1,605,632`` numbers; all 41 hold 14,910,600 numbers, of
which 12,817,672 are positions. Every placement without overlaps counts as a position,
reachable in a game or not, as the published databases count them (Schaeffer et al.,
"Checkers Is Solved", Science 2007, Table 1: the same boards).

Successors are generated here in numpy, vectorised over a chunk of numbers (bitboards as
uint32, a frontier of partial captures expanded jump by jump), far faster than stepping the
game's traced states one jump at a time. The rules are those of :mod:`.rules`.
"""

from __future__ import annotations

import functools
import itertools
import re
from math import comb
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import (
    SUCCESSOR_LOSS,
    SUCCESSOR_NONE,
    SUCCESSOR_SELF,
    TableExpansion,
)
from jaxgames.game import GameError
from jaxgames.games.checkers.board import FORWARD, JUMP, NEIGHBOUR, PROMOTION_RANK

INDEX_VERSION = 1
MAX_PIECES = 4
Material = tuple[int, int, int, int]  # (black men, black kings, white men, white kings)
MATERIALS: tuple[Material, ...] = tuple(
    m
    for m in itertools.product(range(MAX_PIECES + 1), repeat=4)
    if 2 <= sum(m) <= MAX_PIECES and m[0] + m[1] >= 1 and m[2] + m[3] >= 1
)
# a whole move's successors: at most 3 pieces of the side to move, each with at most 4
# simple moves (12), or captures of at most 3 pieces, each capture path a different order
# of the captured pieces; checked as moves are generated
MAX_SUCCESSORS = 12
# the squares each group may stand on, in increasing order: Black men not on 29-32, White
# men not on 1-4, kings anywhere
_ALLOWED = (np.arange(28), np.arange(32), np.arange(4, 32), np.arange(32))  # black men, ...
_BINOMIAL = np.asarray([[comb(n, k) for k in range(MAX_PIECES + 1)] for n in range(33)], np.int64)
# _MATERIAL_ID[bm, bk, wm, wk]: the position of a signature in MATERIALS, or -1
_MATERIAL_ID = np.full((13, 13, 13, 13), -1, np.int32)
for _i, _m in enumerate(MATERIALS):
    _MATERIAL_ID[_m] = _i
_NAME_FORM = re.compile(r"([KM]*)V([KM]*)$")
_NONE = 32  # the square of no piece / off the board in the padded tables below
_NEXT = np.vstack([np.where(NEIGHBOUR < 0, _NONE, NEIGHBOUR), np.full((1, 4), _NONE)])  # [33, 4]
_OVER_TWO = np.vstack([np.where(JUMP < 0, _NONE, JUMP), np.full((1, 4), _NONE)])  # [33, 4]
_BIT = np.concatenate([np.uint32(1) << np.arange(32, dtype=np.uint32), [np.uint32(0)]])  # [33]
_FORWARD = np.zeros((2, 4), bool)  # [player, direction]: a man of that player may go that way
for _p in (0, 1):
    _FORWARD[_p, list(FORWARD[_p])] = True
_CROWN = np.asarray(PROMOTION_RANK, np.uint32)  # [2]: each player's crowning row


# ---------------------------------------------------------------- names
def material_name(material: Material) -> str:
    """``(0, 1, 1, 0)`` -> ``"KvM"``: Black's kings and men, ``v``, White's."""
    bm, bk, wm, wk = material
    return "K" * bk + "M" * bm + "v" + "K" * wk + "M" * wm


def parse_name(name: str) -> Material:
    """The material of a table name (any letter order and case; GameError, one line, on
    anything else than an allowed material)."""
    match = _NAME_FORM.match(str(name).strip().upper())
    if not match:
        raise GameError(
            f"checkers tables: {name!r} is not a material like KMvK (Black's pieces, 'v', "
            "White's; K a king, M a man)"
        )
    black, white = match.groups()
    material = (black.count("M"), black.count("K"), white.count("M"), white.count("K"))
    if not black or not white:
        raise GameError(f"checkers tables: {name!r}: each side needs at least one piece")
    if sum(material) > MAX_PIECES:
        raise GameError(
            f"checkers tables: {name!r} has {sum(material)} pieces; at most {MAX_PIECES}"
        )
    return material


def dependencies(material: Material) -> tuple[str, ...]:
    """The tables a move from ``material`` can lead to (by either side): captures of any
    of the enemy's pieces, a man crowned, or both (taking the last enemy piece ends the
    game and needs no table). Fewer pieces, or as many with fewer men: never a cycle.
    Sorted smallest first."""
    out: set[Material] = set()
    for mover in (0, 1):
        own = list(material[2 * mover : 2 * mover + 2])  # [men, kings]
        enemy = list(material[2 - 2 * mover : 4 - 2 * mover])
        for men_taken in range(enemy[0] + 1):
            for kings_taken in range(enemy[1] + 1):
                for crowned in range(min(own[0], 1) + 1):
                    if men_taken + kings_taken + crowned == 0:
                        continue
                    mine = (own[0] - crowned, own[1] + crowned)
                    theirs = (enemy[0] - men_taken, enemy[1] - kings_taken)
                    if sum(theirs) == 0:
                        continue  # the game is over: no table
                    out.add((*mine, *theirs) if mover == 0 else (*theirs, *mine))
    order = sorted(out, key=lambda m: (sum(m), m[0] + m[2], m))
    return tuple(material_name(m) for m in order)


def _sizes(material: Material) -> list[int]:
    """The number of sets of each group: C(allowed squares, count)."""
    return [comb(len(_ALLOWED[g]), material[g]) for g in range(4)]


def table_size(material: Material) -> int:
    """The numbers of a signature (holes included)."""
    return int(np.prod(_sizes(material))) * 2


# ---------------------------------------------------------------- numbering (numpy, host)
def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(x, np.uint32)).astype(np.int64)


def _rank_host(boards: np.ndarray, group: int) -> np.ndarray:
    """int64[B]: the combinatorial rank of each set ``boards uint32[B]`` among the group's
    allowed squares (any number of pieces)."""
    allowed = _ALLOWED[group]
    present = ((boards[:, None] >> allowed.astype(np.uint32)) & 1).astype(np.int64)  # [B, n]
    seen_before = np.cumsum(present, axis=1) - present  # [B, n]
    terms = _BINOMIAL[np.arange(len(allowed))[None, :], np.minimum(seen_before + 1, MAX_PIECES)]
    return np.sum(present * terms, axis=1)


def _unrank_host(rank: np.ndarray, group: int, count: int) -> np.ndarray:
    """uint32[B]: the sets of ``count`` squares with those ranks (the inverse)."""
    allowed = _ALLOWED[group]
    board = np.zeros(rank.shape, np.uint32)
    rank = rank.astype(np.int64).copy()
    for i in range(count, 0, -1):
        column = _BINOMIAL[: len(allowed), i]  # [n]: C(c, i), increasing in c
        position = np.searchsorted(column, rank, side="right") - 1
        rank -= column[position]
        board |= _BIT[allowed[position]]
    return board


def _groups(black, white, kings) -> tuple:
    return black & ~kings, black & kings, white & ~kings, white & kings


def index_host(material: Material, black, white, kings, player) -> np.ndarray:
    """int64[B]: the numbers of positions (uint32[B] sets, player int[B]) of ``material``."""
    index = np.zeros(np.shape(black), np.int64)
    for group, (board, size) in enumerate(
        zip(_groups(black, white, kings), _sizes(material), strict=True)
    ):
        index = index * size + _rank_host(board, group)
    return index * 2 + np.asarray(player, np.int64)


def positions_host(material: Material, index: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(black, white, kings uint32[B], player int64[B], valid bool[B])``: the positions
    numbered ``index`` and whether each is one (False for a hole)."""
    index = np.asarray(index, np.int64)
    player = index % 2
    rest = index // 2
    sizes = _sizes(material)
    boards = [None] * 4
    for group in range(3, -1, -1):
        boards[group] = _unrank_host(rest % sizes[group], group, material[group])
        rest = rest // sizes[group]
    black, white = boards[0] | boards[1], boards[2] | boards[3]
    valid = _popcount(black | white) == sum(material)
    return black, white, boards[1] | boards[3], player, valid


# ---------------------------------------------------------------- whole moves (numpy, host)
def _mover_squares(own: np.ndarray) -> np.ndarray:
    """int64[B, 3]: the squares of the side to move's pieces (at most 3), 32 for none."""
    bits = ((own[:, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)  # [B, 32]
    squares = np.full((own.shape[0], MAX_PIECES - 1), _NONE, np.int64)
    rows, cols = np.nonzero(bits)
    slot = np.arange(rows.size) - np.searchsorted(rows, rows)  # the k-th piece of its row
    if slot.size and slot.max() >= MAX_PIECES - 1:
        raise GameError("checkers tables: a side to move with more than 3 pieces")
    squares[rows, slot] = cols
    return squares


def whole_moves(black, white, kings, player) -> tuple[np.ndarray, ...]:
    """Every whole move of the positions ``(black, white, kings uint32[B], player int[B])``
    (at most 3 pieces to move): captures (compulsory; each followed jump by jump to the end
    of the turn) or else simple moves. Returns flat arrays over the moves: ``(row int64[C],
    black, white, kings uint32[C])``, the position after each, the other side to move."""
    black, white, kings = (np.asarray(x, np.uint32) for x in (black, white, kings))
    player = np.asarray(player, np.int64)
    own = np.where(player == 0, black, white)
    opp = np.where(player == 0, white, black)
    squares = _mover_squares(own)  # [B, 3]
    rows = np.arange(black.shape[0])

    # first jumps: [B, 3 pieces, 4 directions]
    frm = squares[:, :, None]  # [B, 3, 1]
    is_king = (kings[:, None, None] & _BIT[frm]) != 0  # [B, 3, 1]
    may_go = is_king | _FORWARD[player][:, None, :]  # [B, 3, 4]
    direction = np.arange(4)[None, None, :]
    over, land = _NEXT[frm, direction], _OVER_TWO[frm, direction]  # [B, 3, 4]
    empty = ~(own | opp)  # [B]
    jumps = may_go & (frm < _NONE) & (land < _NONE)
    jumps &= ((opp[:, None, None] & _BIT[over]) != 0) & ((empty[:, None, None] & _BIT[land]) != 0)
    captures_exist = jumps.any(axis=(1, 2))  # [B]

    out_rows, out_own, out_opp, out_kings = [], [], [], []
    # simple moves, where no capture exists
    steps = may_go & (frm < _NONE) & (over < _NONE) & ~captures_exist[:, None, None]
    steps &= (empty[:, None, None] & _BIT[over]) != 0
    r, j, d = np.nonzero(steps)
    start, to = squares[r, j], _NEXT[squares[r, j], d]
    crowned = ~is_king[r, j, 0] & ((_BIT[to] & _CROWN[player[r]]) != 0)
    out_rows.append(r)
    out_own.append((own[r] & ~_BIT[start]) | _BIT[to])
    out_opp.append(opp[r])
    out_kings.append((kings[r] & ~_BIT[start]) | np.where(is_king[r, j, 0] | crowned, _BIT[to], 0))

    # captures: a frontier of jumps to make, expanded until each turn ends
    r, j, d = np.nonzero(jumps)
    f_row, f_from, f_dir = r, squares[r, j], d
    f_own, f_opp, f_kings = own[r], opp[r], kings[r]
    while f_row.size:
        over, land = _NEXT[f_from, f_dir], _OVER_TWO[f_from, f_dir]
        was_king = (f_kings & _BIT[f_from]) != 0
        crowned = ~was_king & ((_BIT[land] & _CROWN[player[f_row]]) != 0)
        f_own = (f_own & ~_BIT[f_from]) | _BIT[land]
        f_opp = f_opp & ~_BIT[over]
        f_kings = (f_kings & ~_BIT[f_from] & ~_BIT[over]) | np.where(
            was_king | crowned, _BIT[land], 0
        )
        # the jumping piece jumps on where it can (a man crowned by this jump stops)
        is_king = (was_king | crowned)[:, None]
        may_go = is_king | _FORWARD[player[f_row]]  # [F, 4]
        o2, l2 = _NEXT[land[:, None], np.arange(4)], _OVER_TWO[land[:, None], np.arange(4)]
        empty = ~(f_own | f_opp)
        more = may_go & (l2 < _NONE) & ~crowned[:, None]
        more &= ((f_opp[:, None] & _BIT[o2]) != 0) & ((empty[:, None] & _BIT[l2]) != 0)
        done = ~more.any(axis=1)
        out_rows.append(f_row[done])
        out_own.append(f_own[done])
        out_opp.append(f_opp[done])
        out_kings.append(f_kings[done])
        k, d = np.nonzero(more)
        f_row, f_from, f_dir = f_row[k], land[k], d
        f_own, f_opp, f_kings = f_own[k], f_opp[k], f_kings[k]

    row = np.concatenate(out_rows)
    own_after = np.concatenate(out_own).astype(np.uint32)
    opp_after = np.concatenate(out_opp).astype(np.uint32)
    kings_after = np.concatenate(out_kings).astype(np.uint32)
    order = np.argsort(row, kind="stable")
    row, own_after, opp_after, kings_after = (
        x[order] for x in (row, own_after, opp_after, kings_after)
    )
    black_moved = player[row] == 0
    del rows
    return (
        row,
        np.where(black_moved, own_after, opp_after),
        np.where(black_moved, opp_after, own_after),
        kings_after,
    )


def expand(material: Material, index: np.ndarray, deps: tuple[str, ...]) -> TableExpansion:
    """The positions numbered ``index`` (int[B]) of ``material`` and their whole moves'
    successors; ``deps`` names the dependency tables (coded 1, 2, ... in this order)."""
    index = np.asarray(index, np.int64)
    black, white, kings, player, valid = positions_host(material, index)
    batch = index.shape[0]
    rows = np.flatnonzero(valid)
    row, kid_black, kid_white, kid_kings = whole_moves(
        black[rows], white[rows], kings[rows], player[rows]
    )
    kid_player = 1 - player[rows][row]
    slot = np.arange(row.size) - np.searchsorted(row, row)  # the move's column in its row
    if slot.size and slot.max() >= MAX_SUCCESSORS:
        worst = int(index[rows[row[np.argmax(slot)]]])
        raise GameError(
            f"checkers tables: {material_name(material)} number {worst} has more than "
            f"{MAX_SUCCESSORS} whole moves"
        )
    # each successor's table and number there
    men_b, kings_b = _popcount(kid_black & ~kid_kings), _popcount(kid_black & kid_kings)
    men_w, kings_w = _popcount(kid_white & ~kid_kings), _popcount(kid_white & kid_kings)
    kid_material = _MATERIAL_ID[men_b, kings_b, men_w, kings_w]  # [C]
    to_move_has_none = np.where(kid_player == 0, men_b + kings_b, men_w + kings_w) == 0
    code = np.full(row.shape, SUCCESSOR_NONE, np.int8)
    number = np.zeros(row.shape, np.int64)
    code[to_move_has_none] = SUCCESSOR_LOSS
    for material_id in np.unique(kid_material[~to_move_has_none]):
        here = (kid_material == material_id) & ~to_move_has_none
        kid = MATERIALS[int(material_id)]
        name = material_name(kid)
        code[here] = SUCCESSOR_SELF if kid == material else 1 + deps.index(name)
        number[here] = index_host(
            kid, kid_black[here], kid_white[here], kid_kings[here], kid_player[here]
        )
    kid_table = np.full((batch, MAX_SUCCESSORS), SUCCESSOR_NONE, np.int8)
    kid_index = np.zeros((batch, MAX_SUCCESSORS), np.int32)
    kid_table[rows[row], slot] = code
    kid_index[rows[row], slot] = number
    terminal = valid & np.all(kid_table == SUCCESSOR_NONE, axis=1)  # no move: lost
    end_value = np.where(terminal, -1, 0).astype(np.int8)
    return TableExpansion(valid, terminal, end_value, kid_table, kid_index)


def fen(black: int, white: int, kings: int, player: int) -> str:
    """The PDN FEN of a position (``B:W21,K30:B1``)."""

    def side(pieces: int) -> str:
        squares = [s for s in range(32) if pieces >> s & 1]
        return ",".join(("K" if kings >> s & 1 else "") + str(s + 1) for s in squares)

    return f"{'BW'[player]}:W{side(white)}:B{side(black)}"


# ---------------------------------------------------------------- sub-spaces
class CheckersTableSpace:
    """One material signature as a :class:`jaxgames.capabilities.TableSpace`."""

    version = INDEX_VERSION
    max_successors = MAX_SUCCESSORS

    def __init__(self, material: Material) -> None:
        self.material = material
        self.name = material_name(material)
        self.size = table_size(material)
        self.dependencies = dependencies(material)

    def expand(self, index: np.ndarray) -> TableExpansion:
        return expand(self.material, index, self.dependencies)

    def describe(self, index: int) -> str:
        black, white, kings, player, _ = positions_host(self.material, np.asarray([index]))
        return fen(int(black[0]), int(white[0]), int(kings[0]), int(player[0]))


# ---------------------------------------------------------------- probing (traced)
def _rank_traced(board: jax.Array, group: int) -> jax.Array:
    """int32: the combinatorial rank of the set ``board`` among the group's allowed squares
    (any number of pieces; traced, the same numbers as :func:`_rank_host`)."""
    allowed = _ALLOWED[group]
    present = (board >> jnp.asarray(allowed.astype(np.uint32))) & 1  # [n]
    seen_before = jnp.cumsum(present) - present  # [n]
    terms = jnp.asarray(_BINOMIAL.astype(np.int32))[
        jnp.arange(len(allowed)), jnp.minimum(seen_before + 1, MAX_PIECES)
    ]
    return jnp.sum(jnp.where(present == 1, terms, 0)).astype(jnp.int32)


def key_of(state: Any, names: tuple[str, ...]) -> tuple[jax.Array, jax.Array]:
    """Which of the tables ``names`` holds ``state`` and its number there (traced, ONE
    state): ``(slot int32, index int32)``, slot -1 when none does (other material, or
    mid-jump: a turn not finished has no number)."""
    groups = _groups(state.black, state.white, state.kings)
    counts = [jnp.minimum(jax.lax.population_count(g).astype(jnp.int32), 12) for g in groups]
    material_id = jnp.asarray(_MATERIAL_ID)[tuple(counts)]
    ranks = [_rank_traced(g, k) for k, g in enumerate(groups)]
    player = state.player.astype(jnp.int32)
    whole = state.jumper < 0
    slot, number = jnp.int32(-1), jnp.int32(0)
    for k, name in enumerate(names):
        material = parse_name(name)
        take = whole & (material_id == MATERIALS.index(material))
        index = jnp.int32(0)
        for rank, size in zip(ranks, _sizes(material), strict=True):
            index = index * size + rank
        index = index * 2 + player
        take = take & (slot < 0)
        slot = jnp.where(take, k, slot)
        number = jnp.where(take, index, number)
    return slot, number


# ---------------------------------------------------------------- the capability
class CheckersTables:
    """Checkers endgames as sub-spaces for endgame tables
    (:class:`jaxgames.capabilities.PositionTables`), mixed into :class:`Checkers`."""

    table_names = tuple(material_name(m) for m in MATERIALS)

    def table_space(self, name: str) -> CheckersTableSpace:
        """The signature ``name`` (``KMvK``: Black's pieces, ``v``, White's)."""
        return _space(parse_name(name))

    def table_name(self, name: str) -> str:
        """The table holding ``name``: its canonical spelling (``mkvk`` -> ``KMvK``)."""
        return material_name(parse_name(name))

    def table_key(self, state: Any, names: tuple[str, ...]) -> tuple[jax.Array, jax.Array]:
        """Which of the tables ``names`` holds ``state``, and its number (see
        :func:`key_of`); mid-jump states are in none."""
        return key_of(state, names)


@functools.cache
def _space(material: Material) -> CheckersTableSpace:
    return CheckersTableSpace(material)
