"""The chess legal move generator, on bitboards (:mod:`jaxgames.bitboard`: 64-bit sets of
squares as two uint32 words, so each operation is one vector instruction across a batch).

It works as a classic legal move generator does: the squares the other side attacks (its
sliders seeing through our king), the checkers (and the squares that block or capture a single
checker), the pinned pieces (which may only move along the line through the king), then every
piece's destinations masked by them. The legal moves come out as 72 bitboards of destination
squares, one per move shape (:data:`~jaxgames.games.chess.encoding.NUM_PLANES`). En passant is
checked exactly (both pawns leave their squares and the king's lines are traced again),
because it can expose the king along the rank. An earlier mailbox generator that tested each
of the 1,924 actions with table lookups cost several times as much per position on a CPU.

:func:`_analyze` runs the steps below in order; each step adds to what the ones before found.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import bitboard as bb
from jaxgames.games.chess.encoding import (
    _ACTION_BIT,
    _ACTION_WORD,
    _CASTLE,
    _DIRS,
    _KNIGHT_DELTAS,
    BISHOP,
    BLACK_BIT,
    EMPTY,
    KING,
    KNIGHT,
    NUM_PLANES,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
)

_NOT_A = bb.MASK64 ^ bb.files_mask({0})
_NOT_H = bb.MASK64 ^ bb.files_mask({7})
_NOT_AB = bb.MASK64 ^ bb.files_mask({0, 1})
_NOT_GH = bb.MASK64 ^ bb.files_mask({6, 7})


def _words(*masks: int) -> np.ndarray:
    return np.array([[m & 0xFFFFFFFF, m >> 32] for m in masks], np.uint32)


# The 8 directions as 4 axes, each a direction (a left shift) and its opposite (a right
# shift): N/S, E/W, NE/SW, NW/SE; the first two are rook lines, the last two bishop lines.
# Masks remove the bits a shift wraps onto the far file.
_AXIS_SHIFT = np.array([8, 1, 9, 7], np.uint32)
_AXIS_MASK = {True: _words(bb.MASK64, _NOT_A, _NOT_A, _NOT_H),
              False: _words(bb.MASK64, _NOT_H, _NOT_H, _NOT_A)}  # fmt: skip
# The 8 knight steps as 4 pairs: (1, 2)/(-1, -2), (-1, 2)/(1, -2), (2, 1)/(-2, -1),
# (-2, 1)/(2, -1).
_KNIGHT_SHIFT = np.array([17, 15, 10, 6], np.uint32)
_KNIGHT_WRAP = {True: _words(_NOT_A, _NOT_H, _NOT_AB, _NOT_GH),
                False: _words(_NOT_H, _NOT_A, _NOT_GH, _NOT_AB)}  # fmt: skip
_AXIS_OF = (0, 0, 1, 1, 2, 3, 3, 2)  # the axis of each of the 8 directions
_RANK = [bb.const(0xFF << (8 * r)) for r in range(8)]
# Castling squares as words [colour, side, word]: those that must be empty, not attacked.
_CASTLE_PATH, _CASTLE_SAFE = (
    _words(
        *(sum(1 << int(q) for q in np.flatnonzero(m)) for m in _CASTLE[key].reshape(4, 64))
    ).reshape(2, 2, 2)
    for key in ("empty", "safe")
)
_ALL, _NONE = bb.const(bb.MASK64), bb.const(0)


def _ray(origin: bb.Bits, empty: bb.Bits, step) -> bb.Bits:
    """The squares a slider on ``origin`` reaches by repeating ``step``: every empty square
    on the way and the first occupied one."""
    out, front = _NONE, origin
    for _ in range(7):
        front = step(front)
        out = bb.or_(out, front)
        front = bb.and_(front, empty)
    return out


class _Sides(NamedTuple):
    """The board as bitboards, seen from the side to move."""

    white: jax.Array  # bool: white is to move
    occupied: bb.Bits
    empty: bb.Bits
    mine: bb.Bits  # our pieces
    theirs: bb.Bits  # the other side's pieces
    ours: dict[int, bb.Bits]  # our pieces by type
    their: dict[int, bb.Bits]  # theirs by type
    their_rook_like: bb.Bits  # their rooks and queens
    their_bishop_like: bb.Bits  # their bishops and queens


def _sides(board: jax.Array, us: jax.Array) -> _Sides:
    """The bitboards of the mailbox ``board`` (int8[64]) for the side ``us`` to move."""
    white = us == WHITE
    occupied = bb.pack(board != EMPTY)
    black = bb.pack((board & BLACK_BIT) != 0)
    bit0, bit1, bit2 = (bb.pack((board & (1 << i)) != 0) for i in range(3))
    not0, not1, not2 = bb.not_(bit0), bb.not_(bit1), bb.not_(bit2)
    white_pieces = bb.and_(occupied, bb.not_(black))
    mine = bb.choose(white, white_pieces, black)
    theirs = bb.choose(white, black, white_pieces)
    kind = {  # piece type from its 3 bits (pawn 001, knight 010, ..., king 110)
        PAWN: bb.and_(bb.and_(bit0, not1), not2),
        KNIGHT: bb.and_(bb.and_(not0, bit1), not2),
        BISHOP: bb.and_(bb.and_(bit0, bit1), not2),
        ROOK: bb.and_(bb.and_(not0, not1), bit2),
        QUEEN: bb.and_(bb.and_(bit0, not1), bit2),
        KING: bb.and_(bb.and_(not0, bit1), bit2),
    }
    ours = {p: bb.and_(b, mine) for p, b in kind.items()}
    their = {p: bb.and_(b, theirs) for p, b in kind.items()}
    their_rook_like = bb.or_(their[ROOK], their[QUEEN])
    their_bishop_like = bb.or_(their[BISHOP], their[QUEEN])
    empty = bb.not_(occupied)
    return _Sides(
        white, occupied, empty, mine, theirs, ours, their, their_rook_like, their_bishop_like
    )


class _EnPassant(NamedTuple):
    """The squares an en-passant capture involves (all empty when there is none)."""

    target: bb.Bits  # the square the pawn skipped, where the capturer lands
    victim: bb.Bits  # the pawn that skipped it
    capturers: list[bb.Bits]  # our pawn west, east of the victim
    empty_after: list[bb.Bits]  # the empty squares after each capturer's capture


def _en_passant(sides: _Sides, ep: jax.Array) -> _EnPassant:
    """The captured pawn, and each possible capturer (west, east of it)."""
    white, ours, occupied = sides.white, sides.ours, sides.occupied
    has_ep = ep >= 0
    target_ep = bb.keep_if(has_ep, bb.square(jnp.where(has_ep, ep, 0)))
    victim = bb.choose(white, bb.step(target_ep, 0, -1), bb.step(target_ep, 0, 1))
    capturers = [
        bb.and_(bb.choose(white, bb.step(target_ep, df, -1), bb.step(target_ep, df, 1)),
                ours[PAWN])
        for df in (-1, 1)
    ]  # fmt: skip
    empty_after_ep = [
        bb.not_(bb.or_(bb.and_(occupied, bb.not_(bb.or_(c, victim))), target_ep)) for c in capturers
    ]
    return _EnPassant(target_ep, victim, capturers, empty_after_ep)


def _scan_lines(sides: _Sides, empty_after_ep: list[bb.Bits]) -> tuple:
    """One loop over the 4 axes: its outputs are materialised once (see jaxgames.bitboard),
    rather than recomputed inside each of the 72 plane computations of :func:`_piece_planes`.

    Returns:
        (danger: the squares their sliders, king and knights attack, the sliders seeing
        through our king; evasion: the squares of the lines from our king to a checking
        slider; checks: how many sliders give check; pinned: our pinned pieces; axis_pinned:
        those pinned along each axis, as words ``([4], [4])``; ep_exposed: per en-passant
        capturer, their sliders that would see our king after it).
    """
    empty, king, mine, their = sides.empty, sides.ours[KING], sides.mine, sides.their
    their_rook_like, their_bishop_like = sides.their_rook_like, sides.their_bishop_like

    def axis(i, carry):
        danger, evasion, checks, pinned, axis_pinned, ep_exposed = carry
        sliders = bb.choose(i < 2, their_rook_like, their_bishop_like)
        pinned_here = _NONE
        for left in (True, False):
            wrap = (jnp.asarray(_AXIS_MASK[left])[i, 0], jnp.asarray(_AXIS_MASK[left])[i, 1])

            def step(b, left=left, wrap=wrap):
                return bb.and_(bb.shift_by(b, jnp.asarray(_AXIS_SHIFT)[i], left), wrap)

            danger = bb.or_(danger, _ray(sliders, bb.or_(empty, king), step))
            danger = bb.or_(danger, step(their[KING]))
            kwrap = (jnp.asarray(_KNIGHT_WRAP[left])[i, 0], jnp.asarray(_KNIGHT_WRAP[left])[i, 1])
            knight_step = bb.shift_by(their[KNIGHT], jnp.asarray(_KNIGHT_SHIFT)[i], left)
            danger = bb.or_(danger, bb.and_(knight_step, kwrap))
            line = _ray(king, empty, step)
            check = bb.any_(bb.and_(line, sliders))
            checks = checks + check.astype(jnp.int32)
            evasion = bb.or_(evasion, bb.keep_if(check, line))
            blocker = bb.and_(line, mine)
            behind = _ray(blocker, empty, step)
            pin = bb.keep_if(bb.any_(bb.and_(behind, sliders)), blocker)
            pinned = bb.or_(pinned, pin)
            pinned_here = bb.or_(pinned_here, pin)
            ep_exposed = tuple(
                bb.or_(x, bb.and_(_ray(king, e, step), sliders))
                for x, e in zip(ep_exposed, empty_after_ep, strict=True)
            )
        axis_pinned = (axis_pinned[0].at[i].set(pinned_here[0]),
                       axis_pinned[1].at[i].set(pinned_here[1]))  # fmt: skip
        return danger, evasion, checks, pinned, axis_pinned, ep_exposed

    zero = jnp.zeros((), jnp.uint32)
    zeros4 = jnp.zeros((4,), jnp.uint32)
    return jax.lax.fori_loop(
        0, 4, axis,
        ((zero, zero), (zero, zero), jnp.int32(0), (zero, zero), (zeros4, zeros4),
         ((zero, zero), (zero, zero))),
    )  # fmt: skip


class _Checks(NamedTuple):
    """Where the side to move's pieces may go, given the checks against its king."""

    danger: bb.Bits  # every square the other side attacks
    knight_checkers: bb.Bits
    pawn_checkers: bb.Bits
    in_check: jax.Array  # bool
    target: bb.Bits  # where a piece other than the king may go
    king_target: bb.Bits  # where the king may go


def _checks(sides: _Sides, danger: bb.Bits, evasion: bb.Bits, checks: jax.Array) -> _Checks:
    """Adds the pawn and knight attacks and checks to those of :func:`_scan_lines`: with one
    checker, other pieces must capture it or block its line; with two, only the king moves."""
    white, king, their, mine = sides.white, sides.ours[KING], sides.their, sides.mine
    pawn_attacks = bb.choose(
        white,
        bb.or_(bb.step(their[PAWN], -1, -1), bb.step(their[PAWN], 1, -1)),
        bb.or_(bb.step(their[PAWN], -1, 1), bb.step(their[PAWN], 1, 1)),
    )
    danger = bb.or_(danger, pawn_attacks)
    knight_checkers = _NONE
    for df, dr in _KNIGHT_DELTAS:
        knight_checkers = bb.or_(knight_checkers, bb.step(king, df, dr))
    knight_checkers = bb.and_(knight_checkers, their[KNIGHT])
    pawn_checkers = bb.and_(
        bb.choose(
            white,
            bb.or_(bb.step(king, -1, 1), bb.step(king, 1, 1)),
            bb.or_(bb.step(king, -1, -1), bb.step(king, 1, -1)),
        ),
        their[PAWN],
    )
    checks = checks + bb.count(knight_checkers) + bb.count(pawn_checkers)
    in_check = checks > 0
    evasion = bb.or_(evasion, bb.or_(knight_checkers, pawn_checkers))
    target = bb.choose(checks == 0, _ALL, bb.keep_if(checks == 1, evasion))
    target = bb.and_(target, bb.not_(mine))  # where a piece other than the king may go
    king_target = bb.and_(bb.not_(mine), bb.not_(danger))
    return _Checks(danger, knight_checkers, pawn_checkers, in_check, target, king_target)


def _piece_planes(
    sides: _Sides,
    pinned: bb.Bits,
    axis_pinned: tuple[jax.Array, jax.Array],
    checks: _Checks,
    only_white: bb.Bits,
    only_black: bb.Bits,
) -> list[bb.Bits]:
    """The move planes of the sliders, the king's steps, the pawns and the knights (castling
    and en passant are added by :func:`_add_castling` and :func:`_add_en_passant`)."""
    ours, empty, theirs = sides.ours, sides.empty, sides.theirs
    king, target, king_target = ours[KING], checks.target, checks.king_target
    planes: list[bb.Bits] = [_NONE] * NUM_PLANES
    for d, (df, dr) in enumerate(_DIRS):
        i = _AXIS_OF[d]
        free = bb.not_(bb.and_(pinned, bb.not_((axis_pinned[0][i], axis_pinned[1][i]))))
        front = bb.and_(bb.or_(ours[ROOK if d < 4 else BISHOP], ours[QUEEN]), free)
        for k in range(1, 8):
            front = bb.step(front, df, dr)
            planes[7 * d + k - 1] = bb.and_(front, target)
            front = bb.and_(front, empty)
        king_step = bb.and_(bb.step(king, df, dr), king_target)
        planes[7 * d] = bb.or_(planes[7 * d], king_step)
        # Pawns: pushes north (white) or south (black), captures on the forward diagonals.
        if d in (2, 3):
            continue
        forward = only_white if d in (0, 4, 5) else only_black
        pawns = bb.and_(bb.and_(ours[PAWN], free), forward)
        if d in (0, 1):
            one = bb.and_(bb.step(pawns, df, dr), empty)
            two = bb.and_(bb.step(bb.and_(one, _RANK[2 if d == 0 else 5]), df, dr), empty)
            planes[7 * d + 1] = bb.or_(planes[7 * d + 1], bb.and_(two, target))
            pawn_moves = bb.and_(one, target)
        else:
            pawn_moves = bb.and_(bb.and_(bb.step(pawns, df, dr), theirs), target)
        planes[7 * d] = bb.or_(planes[7 * d], pawn_moves)
        planes[64 + d] = bb.and_(pawn_moves, bb.or_(_RANK[0], _RANK[7]))
    knights = bb.and_(ours[KNIGHT], bb.not_(pinned))  # a pinned knight never moves
    for n, (df, dr) in enumerate(_KNIGHT_DELTAS):
        planes[56 + n] = bb.and_(bb.step(knights, df, dr), target)
    return planes


def _add_castling(
    planes: list[bb.Bits], sides: _Sides, us: jax.Array, castling: jax.Array, checks: _Checks
) -> None:
    """Adds castling to ``planes``: the king's two-square move east (king side) or west
    (queen side)."""
    white, king, ours, occupied = sides.white, sides.ours[KING], sides.ours, sides.occupied
    in_check, danger = checks.in_check, checks.danger
    home_rank = jnp.where(white, 0, 56)
    king_home = bb.any_(bb.and_(king, bb.square(home_rank + 4)))
    for side, (d, rook_file) in enumerate(((2, 7), (3, 0))):
        bits = jnp.asarray(_CASTLE["bit"])[us, side]
        rook_home = bb.any_(bb.and_(ours[ROOK], bb.square(home_rank + rook_file)))
        path = (jnp.asarray(_CASTLE_PATH)[us, side, 0], jnp.asarray(_CASTLE_PATH)[us, side, 1])
        crossed = (jnp.asarray(_CASTLE_SAFE)[us, side, 0], jnp.asarray(_CASTLE_SAFE)[us, side, 1])
        ok = (
            ((castling & bits) != 0)
            & ~in_check
            & king_home
            & rook_home
            & ~bb.any_(bb.and_(path, occupied))
            & ~bb.any_(bb.and_(crossed, danger))
        )
        two = bb.step(bb.step(king, 1 if d == 2 else -1, 0), 1 if d == 2 else -1, 0)
        planes[7 * d + 1] = bb.or_(planes[7 * d + 1], bb.keep_if(ok, two))


def _add_en_passant(
    planes: list[bb.Bits],
    sides: _Sides,
    en_passant: _EnPassant,
    ep_exposed: tuple[bb.Bits, bb.Bits],
    checks: _Checks,
    only_white: bb.Bits,
    only_black: bb.Bits,
) -> jax.Array:
    """Adds the en-passant captures to ``planes``: legal when, with both pawns gone and ours
    on the target, no slider, knight or other pawn attacks the king. Returns whether one is
    legal (bool)."""
    victim, target_ep, capturers = en_passant.victim, en_passant.target, en_passant.capturers
    knight_checkers, pawn_checkers = checks.knight_checkers, checks.pawn_checkers
    ep_legal = jnp.bool_(False)
    for c, (white_dir, black_dir) in enumerate(((4, 6), (5, 7))):  # capturer west, east
        exposed = (
            bb.any_(ep_exposed[c])
            | bb.any_(knight_checkers)
            | bb.any_(bb.and_(pawn_checkers, bb.not_(victim)))
        )
        ok = bb.any_(capturers[c]) & bb.any_(bb.and_(victim, sides.their[PAWN])) & ~exposed
        ep_legal = ep_legal | ok
        capture = bb.keep_if(ok, target_ep)
        for d, side in ((white_dir, only_white), (black_dir, only_black)):
            planes[7 * d] = bb.or_(planes[7 * d], bb.and_(capture, side))
    return ep_legal


def _analyze(
    board: jax.Array, us: jax.Array, castling: jax.Array, ep: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Legal moves of the side ``us`` to move, as bitboards (the classic legal generator:
    attack map, checkers, pins, then every piece's moves masked by them).

    * ``danger``: the squares the other side attacks, its sliders seeing through our king
      (so the king cannot step back along a checking line);
    * checkers: with one, other pieces must capture it or block its line (``target``); with
      two, only the king moves;
    * pins: a piece of ours first from our king along a line, with an enemy slider of that
      line behind it, moves only along that line;
    * en passant is tested exactly (both pawns leave their squares, the king's lines are
      traced again), since it can uncover the king along a rank.

    Args:
        board: int8[64].
        us: int32, the side to move.
        castling: int32 rights bits.
        ep: int32, the square a pawn just skipped (-1: none).

    Returns:
        (moves uint32[NUM_PLANES, 2] (see :data:`NUM_PLANES`), in_check bool, an
        en-passant capture is legal bool).
    """
    us = jnp.asarray(us, jnp.int32)
    sides = _sides(board, us)
    en_passant = _en_passant(sides, ep)
    danger, evasion, checks, pinned, axis_pinned, ep_exposed = _scan_lines(
        sides, en_passant.empty_after
    )
    checked = _checks(sides, danger, evasion, checks)
    only_white, only_black = bb.keep_if(sides.white, _ALL), bb.keep_if(~sides.white, _ALL)
    planes = _piece_planes(sides, pinned, axis_pinned, checked, only_white, only_black)
    _add_castling(planes, sides, us, castling, checked)
    ep_legal = _add_en_passant(
        planes, sides, en_passant, ep_exposed, checked, only_white, only_black
    )
    moves = jnp.stack([jnp.stack(p) for p in planes])  # [72, 2]
    return moves.astype(jnp.uint32), checked.in_check, ep_legal


def _legal_of(moves: jax.Array) -> jax.Array:
    """bool[A]: the legal mask of move planes ``uint32[NUM_PLANES, 2]``."""
    words = moves.reshape(-1)[jnp.asarray(_ACTION_WORD)]  # [A]
    return ((words >> jnp.asarray(_ACTION_BIT)) & 1) != 0
