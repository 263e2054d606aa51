"""Chess endgames with few pieces as numbered sub-spaces, for endgame tables.

An ending is named by its material, white's pieces then black's, each starting with the
king: ``KQK`` (king and queen against king), ``KQKR`` (king and queen against king and
rook), ``KPK``. A table of ``KQK`` also answers the colour-flipped ending (black's king and
queen against white's king): the board is mirrored top to bottom and the colours and the
side to move swapped, which changes no value.

Numbering (index version :data:`INDEX_VERSION`), both sides to move in one table:

* the pieces in a fixed order: white's king, black's king, white's other pieces in the
  name's order, then black's;
* endings without pawns use all 8 symmetries of the board: the position is turned so that
  white's king stands in the triangle a1-d1-d4, and when it stands on the diagonal a1-d4,
  black's king on or below that diagonal; the 462 legal placements of the two kings so
  reduced are numbered 0..461 (the standard count), every other piece gets its square
  0..63;
* endings with pawns use the left-right mirror only: the first pawn is put on files a-d,
  ranks 2-7 (24 squares), every other piece gets its square 0..63;
* the side to move is the lowest digit: ``index = 2 * placement + (1 if black to move)``.

So ``KQKR`` has ``462 * 64 * 64 * 2 = 3,784,704`` numbers and ``KPK``
``24 * 64 * 64 * 2 = 196,608``. Numbers whose pieces share a square, or whose side not
to move is in check, name no legal position ("broken"); a position the symmetries leave
fixed (both kings on the diagonal) may have two numbers, both solved alike.

Tables hold positions without castling rights or an en-passant capture (none is possible
with a single pawn), and ignore the move counters: the 50-move rule and repetitions are
left out, as in every distance-to-mate table.

Successors are generated here in numpy, vectorised over a whole chunk of numbers: a
specialised generator for few pieces (square lists, 64-bit occupancy masks, lookup tables
of targets, lines and the squares between), which runs far faster over millions of
positions than stepping the full game's states. The rules are those of :mod:`.rules`:
a position with no legal move is checkmate (in check) or stalemate; a position with
insufficient material by python-chess's rule (two bishops on squares of one colour) is a
draw even with moves left; a pawn promotes to a queen, rook, bishop or knight.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import SUCCESSOR_DRAW, SUCCESSOR_NONE, SUCCESSOR_SELF, TableExpansion
from jaxgames.game import GameError
from jaxgames.games.chess.encoding import (
    BISHOP,
    BLACK_BIT,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
)

INDEX_VERSION = 1
ENDINGS = ("KQK", "KRK", "KBBK", "KBNK", "KPK", "KQKR")
"""The endings whose tables are built and published here (others of up to four pieces,
pawns on one side only, are accepted too)."""
MAX_PIECES = 4
NONE, SELF, DRAW = SUCCESSOR_NONE, SUCCESSOR_SELF, SUCCESSOR_DRAW
_LETTERS = {"P": PAWN, "N": KNIGHT, "B": BISHOP, "R": ROOK, "Q": QUEEN, "K": KING}
_NAMES = {v: k for k, v in _LETTERS.items()}
_ABSENT = 64  # the square of no piece: every lookup table has an empty row 64
_PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)


# ---------------------------------------------------------------- geometry (numpy, import time)
def _symmetries() -> np.ndarray:
    """int64[8, 65]: the square each of the 8 board symmetries sends a square to (bit 0:
    mirror files, bit 1: mirror ranks, bit 2: swap files and ranks); 64 stays 64."""
    out = np.full((8, 65), _ABSENT, np.int64)
    for t in range(8):
        for s in range(64):
            f, r = s % 8, s // 8
            if t & 1:
                f = 7 - f
            if t & 2:
                r = 7 - r
            if t & 4:
                f, r = r, f
            out[t, s] = 8 * r + f
    return out


SYMMETRY = _symmetries()


def _kings() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 8-fold reduction of the two kings: for each (white king, black king) the
    symmetry that brings them to their canonical placement ``int64[64, 64]``; the number
    of each canonical placement ``int64[64, 64]`` (-1: not canonical, or kings touching);
    and the placements by number ``int64[462, 2]``."""
    number = np.full((64, 64), -1, np.int64)
    pairs = []
    for wk in range(64):
        f, r = wk % 8, wk // 8
        if not (f <= 3 and r <= f):
            continue
        for bk in range(64):
            if max(abs(f - bk % 8), abs(r - bk // 8)) <= 1:
                continue
            if f == r and bk // 8 > bk % 8:  # white king on a1-d4: black king not above it
                continue
            number[wk, bk] = len(pairs)
            pairs.append((wk, bk))
    turn = np.zeros((64, 64), np.int64)
    for wk in range(64):
        for bk in range(64):
            for t in range(8):
                a, b = SYMMETRY[t, wk], SYMMETRY[t, bk]
                f, r = a % 8, a // 8
                if f <= 3 and r <= f and not (f == r and b // 8 > b % 8):
                    turn[wk, bk] = t
                    break
    return turn, number, np.asarray(pairs, np.int64)


KING_SYMMETRY, KING_NUMBER, KING_PAIRS = _kings()
assert KING_PAIRS.shape[0] == 462


def _geometry() -> dict[str, np.ndarray]:
    """Targets of each piece from each square (padded with 64), which squares each attacks,
    and the squares strictly between two squares on a line (as 64-bit masks)."""
    dirs_orth = ((0, 1), (0, -1), (1, 0), (-1, 0))
    dirs_diag = ((1, 1), (-1, 1), (1, -1), (-1, -1))
    knight = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))

    def ray_targets(s, dirs, reach):
        f, r = s % 8, s // 8
        out = []
        for df, dr in dirs:
            for k in range(1, reach + 1):
                if 0 <= f + df * k < 8 and 0 <= r + dr * k < 8:
                    out.append(8 * (r + dr * k) + f + df * k)
        return out

    targets = {}
    for piece, dirs, reach, width in (
        (KING, dirs_orth + dirs_diag, 1, 8),
        (KNIGHT, knight, 1, 8),
        (BISHOP, dirs_diag, 7, 13),
        (ROOK, dirs_orth, 7, 14),
        (QUEEN, dirs_orth + dirs_diag, 7, 27),
    ):
        table = np.full((65, width), _ABSENT, np.int64)
        for s in range(64):
            t = ray_targets(s, dirs, reach)
            table[s, : len(t)] = t
        targets[piece] = table
    attacks = np.zeros((7, 65, 65), np.bool_)  # [piece, from, to], the empty board
    for piece, table in targets.items():
        for s in range(64):
            attacks[piece, s, table[s][table[s] < 64]] = True
    between = np.zeros((65, 65), np.uint64)
    for a in range(64):
        for b in range(64):
            df, dr = b % 8 - a % 8, b // 8 - a // 8
            if (df == 0) == (dr == 0) and abs(df) != abs(dr):
                continue  # not on a line (or the same square)
            if df != 0 and dr != 0 and abs(df) != abs(dr):
                continue
            step_f, step_r = int(np.sign(df)), int(np.sign(dr))
            mask = 0
            f, r = a % 8 + step_f, a // 8 + step_r
            while (f, r) != (b % 8, b // 8):
                mask |= 1 << (8 * r + f)
                f, r = f + step_f, r + step_r
            between[a, b] = mask
    pawn_attack = np.zeros((2, 65, 65), np.bool_)  # [colour, from, to]
    for colour, dr in ((0, 1), (1, -1)):
        for s in range(64):
            f, r = s % 8, s // 8
            for df in (-1, 1):
                if 0 <= f + df < 8 and 0 <= r + dr < 8:
                    pawn_attack[colour, s, 8 * (r + dr) + f + df] = True
    return {"targets": targets, "attacks": attacks, "between": between, "pawn": pawn_attack}


_GEO = _geometry()
_BIT = np.concatenate([np.uint64(1) << np.arange(64, dtype=np.uint64), [np.uint64(0)]])  # [65]


# ---------------------------------------------------------------- materials
class Material(NamedTuple):
    """An ending: its name and its pieces as (colour, type), in the table's order."""

    name: str  # e.g. "KQKR": white's pieces, then black's
    pieces: tuple[tuple[int, int], ...]  # [P]: white king, black king, white's, black's

    @property
    def has_pawns(self) -> bool:
        return any(t == PAWN for _, t in self.pieces)

    @property
    def size(self) -> int:
        others = len(self.pieces) - (2 if not self.has_pawns else 1)
        return (24 if self.has_pawns else 462) * 64**others * 2


def split_name(name: str) -> tuple[str, str]:
    """``"KQKR"`` -> ``("KQ", "KR")``; GameError on anything else than a material name."""
    text = name.strip().upper()
    if len(text) < 2 or text[0] != "K" or text.count("K") != 2 or set(text) - set(_LETTERS):
        raise GameError(
            f"chess tables: {name!r} is not a material like KQK or KQKR (white's pieces, "
            "then black's, each starting with K)"
        )
    cut = text.index("K", 1)
    return text[:cut], text[cut:]


def _name(white: str, black: str) -> str:
    order = "QRBNP"  # the usual way to write material: heavier pieces first
    key = lambda p: order.index(p)  # noqa: E731
    return "K" + "".join(sorted(white[1:], key=key)) + "K" + "".join(sorted(black[1:], key=key))


@functools.cache
def material(name: str) -> Material:
    """The :class:`Material` of an ending name (GameError when unsupported)."""
    white, black = split_name(name)
    canonical = _name(white, black)
    if len(white) + len(black) > MAX_PIECES:
        raise GameError(
            f"chess tables: {name!r} has {len(white) + len(black)} pieces; at most {MAX_PIECES}"
        )
    if (white + black).count("P") > 1:
        raise GameError(f"chess tables: {name!r} has more than one pawn (not supported)")
    if _insufficient_static(white, black) is True:
        raise GameError(f"chess tables: {name!r} is a draw by insufficient material")
    pieces = [(0, KING), (1, KING)]
    pieces += [(0, _LETTERS[p]) for p in canonical[1 : canonical.index("K", 1)]]
    pieces += [(1, _LETTERS[p]) for p in canonical[canonical.index("K", 1) + 1 :]]
    return Material(canonical, tuple(pieces))


def _insufficient_static(white: str, black: str) -> bool | None:
    """python-chess's insufficient-material rule as far as the material alone decides it:
    True (always a draw), False (never), None (it depends on the bishops' square colours)."""

    def short(mine: str, theirs: str) -> bool | None:
        if any(p in mine for p in "PRQ"):
            return False
        if "N" in mine:
            return len(mine) <= 2 and not any(p in theirs for p in "PNBR")
        if "B" in mine:
            if "N" in white + black or "P" in white + black:
                return False
            return True if (white + black).count("B") == 1 else None  # one bishop: one colour
        return True

    a, b = short(white, black), short(black, white)
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def dependencies(name: str) -> tuple[str, ...]:
    """The endings a capture or a promotion leads to from ``name`` (each named as its
    table is: maybe colour-flipped), draws by material left out; in a fixed order."""
    m = material(name)
    out: list[str] = []
    for event in _events(m):
        child = _child_table(m, event)
        if child is not None and child[0] not in out and child[0] != m.name:
            out.append(child[0])
    return tuple(out)


# An event: what a move does to the material: (index of the captured piece or -1,
# promotion piece type or 0).
Event = tuple[int, int]


def _events(m: Material) -> list[Event]:
    victims = [-1] + [j for j, (_, t) in enumerate(m.pieces) if t != KING]
    promos = [0] + (list(_PROMOTIONS) if m.has_pawns else [])
    pawn = [j for j, (_, t) in enumerate(m.pieces) if t == PAWN]
    return [(v, p) for v in victims for p in promos if not (p and v in pawn)]


@functools.cache
def _child_table(m: Material, event: Event) -> tuple[str, bool, tuple[int, ...]] | None:
    """The table a move with ``event`` leads to: (its name, colour-flipped, which of the
    parent's piece columns fill its columns, in its order); None: a draw by material."""
    victim, promo = event
    left = [(j, c, t) for j, (c, t) in enumerate(m.pieces) if j != victim]
    if promo:  # the promoting pawn: any pawn (the table's pieces of one kind are alike)
        k = next(i for i, (_, _, t) in enumerate(left) if t == PAWN)
        left[k] = (left[k][0], left[k][1], -promo)  # marked: the column's new piece type
    types = {j: abs(t) for j, _, t in left}
    white = "K" + "".join(_NAMES[abs(t)] for _, c, t in left if c == 0 and abs(t) != KING)
    black = "K" + "".join(_NAMES[abs(t)] for _, c, t in left if c == 1 and abs(t) != KING)
    if _insufficient_static(white, black) is True:
        return None
    flip = _prefer_flip(white, black)  # tables keep the stronger side as white
    child = material(_name(black, white) if flip else _name(white, black))
    used: list[int] = []
    columns = []
    for colour, piece in child.pieces:
        want_colour = 1 - colour if flip else colour
        j = next(j for j, c, t in left if c == want_colour and types[j] == piece and j not in used)
        used.append(j)
        columns.append(j)
    return child.name, flip, tuple(columns)


_VALUE = {"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9}


def _prefer_flip(white: str, black: str) -> bool:
    """Tables are kept with the stronger side (more material, by the usual values; with a
    pawn when equal) as white: KRK, not KKR."""
    w = sum(_VALUE[p] for p in white[1:])
    b = sum(_VALUE[p] for p in black[1:])
    return b > w or (b == w and len(black) > len(white))


def table_name(name: str) -> str:
    """The name a table of ``name`` is kept under (``KKQ`` -> ``KQK``)."""
    white, black = split_name(name)
    if _prefer_flip(white, black):
        white, black = black, white
    return material(_name(white, black)).name


# ---------------------------------------------------------------- numbering (numpy or jax)
def index_of(m: Material, squares: Any, black: Any, xp: Any = np) -> Any:
    """The numbers of positions: ``squares int[B, P]`` in the table's piece order (white
    to be the table's white), ``black int[B]`` (1: black to move). -1 where the kings of a
    pawnless ending touch. Works on numpy arrays and (traced) jax arrays alike."""
    squares = xp.asarray(squares)
    if m.has_pawns:
        first = next(j for j, (_, t) in enumerate(m.pieces) if t == PAWN)
        mirror = (squares[:, first] % 8) >= 4
        squares = xp.where(mirror[:, None], squares ^ 7, squares)
        pawn = squares[:, first]
        index = (pawn // 8 - 1) * 4 + pawn % 8
        rest = [j for j in range(len(m.pieces)) if j != first]
    else:
        turn = xp.asarray(KING_SYMMETRY)[squares[:, 0], squares[:, 1]]
        squares = xp.asarray(SYMMETRY)[turn[:, None], squares]
        index = xp.asarray(KING_NUMBER)[squares[:, 0], squares[:, 1]]
        rest = list(range(2, len(m.pieces)))
    bad = index < 0
    for j in rest:
        index = index * 64 + squares[:, j]
    index = index * 2 + black
    return xp.where(bad, -1, index)


def squares_of(m: Material, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of :func:`index_of`: ``(squares int64[B, P], black int64[B])``."""
    index = np.asarray(index, np.int64)
    black = index % 2
    rest = index // 2
    count = len(m.pieces)
    squares = np.zeros((index.shape[0], count), np.int64)
    if m.has_pawns:
        first = next(j for j, (_, t) in enumerate(m.pieces) if t == PAWN)
        others = [j for j in range(count) if j != first]
    else:
        others = list(range(2, count))
    for j in reversed(others):
        squares[:, j] = rest % 64
        rest = rest // 64
    if m.has_pawns:
        squares[:, first] = 8 * (rest // 4 + 1) + rest % 4
    else:
        squares[:, :2] = KING_PAIRS[rest]
    return squares, black


def fen_of(m: Material, squares: np.ndarray, black: int) -> str:
    """The FEN of one position of ending ``m`` (no castling, no en passant, move 1)."""
    board = [""] * 64
    for (colour, piece), s in zip(m.pieces, squares, strict=True):
        letter = _NAMES[piece]
        board[int(s)] = letter if colour == 0 else letter.lower()
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board[8 * r + f]
            if p:
                row += (str(empty) if empty else "") + p
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" b" if black else " w") + " - - 0 1"


# ---------------------------------------------------------------- successors (numpy)
def _attacked(target, pieces, squares, occ):
    """bool[...]: ``target`` (int[...]) is attacked by any of ``pieces`` ((colour, type)
    list) standing on ``squares`` (int[..., P'], 64 = captured) with occupancy ``occ``."""
    hit = np.zeros(target.shape, np.bool_)
    for (colour, piece), s in zip(pieces, squares, strict=True):
        if piece == PAWN:
            hit |= _GEO["pawn"][colour][s, target]
        elif piece in (KING, KNIGHT):
            hit |= _GEO["attacks"][piece][s, target]
        else:
            line = _GEO["attacks"][piece][s, target]
            hit |= line & ((_GEO["between"][s, target] & occ) == 0)
    return hit


def _insufficient(m: Material, squares: np.ndarray) -> np.ndarray:
    """bool[B]: a draw by python-chess's material rule (only bishops can depend on it)."""
    white = "K" + "".join(_NAMES[t] for c, t in m.pieces[2:] if c == 0)
    black = "K" + "".join(_NAMES[t] for c, t in m.pieces[2:] if c == 1)
    static = _insufficient_static(white, black)
    if static is not None:
        return np.full((squares.shape[0],), static)
    bishops = [j for j, (_, t) in enumerate(m.pieces) if t == BISHOP]
    shade = (squares[:, bishops] % 8 + squares[:, bishops] // 8) % 2  # [B, nb]
    return np.all(shade == shade[:, :1], axis=1)


def expand(m: Material, index: np.ndarray, deps: tuple[str, ...]) -> TableExpansion:
    """The positions numbered ``index`` (int[B]) of ending ``m`` and their successors.

    ``deps`` names the dependency tables (their codes are 1, 2, ... in this order)."""
    index = np.asarray(index, np.int64)
    sq, black = squares_of(m, index)
    count = len(m.pieces)
    occ = np.bitwise_or.reduce(_BIT[sq], axis=1)  # uint64[B]
    distinct = np.ones(index.shape, np.bool_)
    for a in range(count):
        for b in range(a + 1, count):
            distinct &= sq[:, a] != sq[:, b]
    pawns_ok = np.ones(index.shape, np.bool_)
    for j, (_, t) in enumerate(m.pieces):
        if t == PAWN:
            pawns_ok &= (sq[:, j] >= 8) & (sq[:, j] < 56)
    mover_king = np.where(black == 1, sq[:, 1], sq[:, 0])
    other_king = np.where(black == 1, sq[:, 0], sq[:, 1])
    in_check = np.zeros(index.shape, np.bool_)
    exposed = np.zeros(index.shape, np.bool_)  # the side not to move is in check: broken
    for colour in (0, 1):
        rows = black == colour
        cols = [j for j, (c, _) in enumerate(m.pieces) if c != colour]
        own = [j for j, (c, _) in enumerate(m.pieces) if c == colour]
        enemy = [m.pieces[j] for j in cols]
        mine = [m.pieces[j] for j in own]
        in_check[rows] = _attacked(mover_king[rows], enemy, sq[rows][:, cols].T, occ[rows])
        exposed[rows] = _attacked(other_king[rows], mine, sq[rows][:, own].T, occ[rows])
    valid = distinct & pawns_ok & ~exposed & (index_of(m, sq, black) >= 0)

    width = max_moves(m)
    kid_table = np.full((index.shape[0], width), NONE, np.int8)
    kid_index = np.zeros((index.shape[0], width), np.int32)
    for colour in (0, 1):
        rows = np.flatnonzero(valid & (black == colour))
        if rows.size:
            t, i = _successors(m, sq[rows], occ[rows], colour, deps)
            kid_table[rows, : t.shape[1]] = t
            kid_index[rows, : t.shape[1]] = i
    has_move = np.any(kid_table != NONE, axis=1)
    insufficient = _insufficient(m, sq)
    terminal = valid & (~has_move | insufficient)
    end_value = np.where(~has_move & in_check, -1, 0).astype(np.int8)
    kid_table[terminal] = NONE
    return TableExpansion(valid, terminal, end_value, kid_table, kid_index)


@functools.cache
def max_moves(m: Material) -> int:
    """The most moves a side of ending ``m`` can have (the width of successor rows)."""
    most = 0
    for colour in (0, 1):
        n = 0
        for c, t in m.pieces:
            if c == colour:
                n += 13 if t == PAWN else _GEO["targets"][t].shape[1]
        most = max(most, n)
    return most


def _successors(m: Material, sq: np.ndarray, occ: np.ndarray, colour: int, deps: tuple):
    """The moves of side ``colour`` in positions ``sq int64[B, P]`` (all legal positions
    with that side to move): ``(kid_table int8[B, W], kid_index int32[B, W])``."""
    own_occ = np.bitwise_or.reduce(
        _BIT[sq[:, [j for j, (c, _) in enumerate(m.pieces) if c == colour]]], axis=1
    )
    king_col = 0 if colour == 0 else 1
    tables, indexes = [], []
    for j, (c, piece) in enumerate(m.pieces):
        if c != colour:
            continue
        frm = sq[:, j]
        if piece == PAWN:
            to, promo = _pawn_targets(frm, occ, own_occ, colour)
        else:
            to = _GEO["targets"][piece][frm]  # [B, K]
            promo = np.zeros(to.shape, np.int64)
            ok = to < 64
            if piece in (BISHOP, ROOK, QUEEN):
                ok &= (_GEO["between"][frm[:, None], to] & occ[:, None]) == 0
            to = np.where(ok & ((_BIT[to] & own_occ[:, None]) == 0), to, _ABSENT)
        # the position after each move: the piece on `to`, a piece standing there captured
        after = np.broadcast_to(sq[:, None, :], (*to.shape, len(m.pieces))).copy()  # [B, K, P]
        after[:, :, j] = to
        victim = np.full(to.shape, -1, np.int64)
        for e, (ce, te) in enumerate(m.pieces):
            if ce != colour:
                hit = (sq[:, e][:, None] == to) & (to < 64)
                if te == KING:  # never legal (the parent would be broken); refused anyway
                    to = np.where(hit, _ABSENT, to)
                    continue
                victim = np.where(hit, e, victim)
                after[:, :, e] = np.where(hit, _ABSENT, after[:, :, e])
        occ_after = (occ[:, None] & ~_BIT[frm][:, None]) | _BIT[to]
        enemy = [p for p in m.pieces if p[0] != colour]
        enemy_cols = [e for e, p in enumerate(m.pieces) if p[0] != colour]
        king_sq = after[:, :, king_col]
        safe = ~_attacked(king_sq, enemy, np.moveaxis(after[:, :, enemy_cols], -1, 0), occ_after)
        legal = (to < 64) & safe
        code = np.full(to.shape, NONE, np.int8)
        number = np.zeros(to.shape, np.int64)
        for event in _events(m):
            happens = legal & (victim == event[0]) & (promo == event[1])
            if not happens.any():
                continue
            child = _child_table(m, event)
            if child is None:
                code = np.where(happens, DRAW, code)
                continue
            name, flip, columns = child
            cm = material(name)
            kid_sq = after[happens][:, list(columns)]
            kid_black = np.full((kid_sq.shape[0],), 1 - colour, np.int64)
            if flip:
                kid_sq, kid_black = kid_sq ^ 56, 1 - kid_black
            code[happens] = SELF if name == m.name else 1 + deps.index(name)
            number[happens] = index_of(cm, kid_sq, kid_black)
        tables.append(code)
        indexes.append(number)
    return np.concatenate(tables, axis=1), np.concatenate(indexes, axis=1).astype(np.int32)


def _pawn_targets(frm: np.ndarray, occ: np.ndarray, own_occ: np.ndarray, colour: int):
    """A pawn's moves: ``(to int64[B, 13], promotion type int64[B, 13])``: the push, the
    double push, two captures; each onto the last rank is four moves (Q, R, B, N)."""
    forward = 8 if colour == 0 else -8
    start = 1 if colour == 0 else 6
    last = 7 if colour == 0 else 0
    rank, file = frm // 8, frm % 8
    one = frm + forward
    empty = lambda s: (_BIT[np.clip(s, 0, 64)] & occ) == 0  # noqa: E731
    push = np.where(empty(one), one, _ABSENT)
    double = np.where((rank == start) & empty(one) & empty(frm + 2 * forward), frm + 2 * forward,
                      _ABSENT)  # fmt: skip
    enemy_occ = occ & ~own_occ
    caps = []
    for df in (-1, 1):
        t = one + df
        ok = (file + df >= 0) & (file + df < 8) & ((_BIT[np.clip(t, 0, 64)] & enemy_occ) != 0)
        caps.append(np.where(ok, t, _ABSENT))
    to_cols, promo_cols = [], []
    promotes = (one // 8) == last
    for t in (push, caps[0], caps[1]):
        for p in _PROMOTIONS:
            to_cols.append(np.where(promotes, t, _ABSENT) if p != QUEEN else t)
            promo_cols.append(np.where(promotes, p, 0))
    to_cols.append(double)
    promo_cols.append(np.zeros_like(double))
    return np.stack(to_cols, axis=1), np.stack(promo_cols, axis=1)


# ---------------------------------------------------------------- probing (traced)
def key_of(board: jax.Array, turn: jax.Array, castling: jax.Array, names: tuple[str, ...]):
    """Which of the tables ``names`` holds a position, and its number there (traced, ONE
    position): ``(slot int32, index int32)``, slot -1 when none does (other material,
    castling rights)."""
    board = board.astype(jnp.int32)
    present = jnp.stack(
        [jnp.sum(board == (t | BLACK_BIT * c)) for c in (0, 1) for t in range(1, 7)]
    )  # [12]: pieces of each colour and type
    slot, number = jnp.int32(-1), jnp.int32(0)
    for k, name in enumerate(names):
        m = material(name)
        for flip in (False, True):
            need = np.zeros((12,), np.int32)
            for c, t in m.pieces:
                need[6 * (c ^ flip) + t - 1] += 1
            match = jnp.all(present == need) & (castling == 0)
            columns = []
            seen: dict[int, int] = {}
            for c, t in m.pieces:
                code = t | BLACK_BIT * (c ^ flip)
                n = int(np.sum(need[6 * (c ^ flip) + t - 1]))
                where = jnp.nonzero(board == code, size=n, fill_value=0)[0]
                columns.append(where[seen.get(code, 0)])
                seen[code] = seen.get(code, 0) + 1
            squares = jnp.stack(columns)[None, :]
            black = turn.astype(jnp.int32)
            if flip:
                squares, black = squares ^ 56, 1 - black
            i = index_of(m, squares, black[None], jnp)[0]
            take = match & (slot < 0)
            slot = jnp.where(take, k, slot)
            number = jnp.where(take, i, number)
    return slot, jnp.maximum(number, 0)


# ---------------------------------------------------------------- the capability
class ChessTableSpace:
    """One ending as a :class:`jaxgames.capabilities.TableSpace`."""

    version = INDEX_VERSION

    def __init__(self, name: str) -> None:
        self.material = material(name)
        self.name = self.material.name
        self.size = self.material.size
        self.max_successors = max_moves(self.material)
        self.dependencies = dependencies(self.name)

    def expand(self, index: np.ndarray) -> TableExpansion:
        return expand(self.material, index, self.dependencies)

    def describe(self, index: int) -> str:
        squares, black = squares_of(self.material, np.asarray([index]))
        return fen_of(self.material, squares[0], int(black[0]))


class ChessTables:
    """Chess endings as sub-spaces for endgame tables
    (:class:`jaxgames.capabilities.PositionTables`), mixed into :class:`Chess`."""

    table_names = ENDINGS

    def table_space(self, name: str) -> ChessTableSpace:
        """The ending ``name`` (``KQK``, ``KQKR``: white's pieces, then black's)."""
        if table_name(name) != material(name).name:
            raise GameError(
                f"chess tables: {name!r} is kept as {table_name(name)!r} (the stronger side "
                "white); build that one"
            )
        return ChessTableSpace(name)

    def table_name(self, name: str) -> str:
        """The table that holds ending ``name`` (``KKQ`` -> ``KQK``)."""
        return table_name(name)

    def table_key(self, state: Any, names: tuple[str, ...]) -> tuple[jax.Array, jax.Array]:
        """Which of the tables ``names`` holds ``state``, and its number (see
        :func:`key_of`); positions with castling rights are in none."""
        return key_of(state.board, state.turn, state.castling, names)
