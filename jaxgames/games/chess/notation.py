"""Chess notation (host side): FEN in and out (``parse``/``format``; ``"startpos"`` and
``"<FEN> moves e2e4 e7e5"`` are read too), UCI moves (``e2e4``, ``e7e8n``, castling ``e1g1``)
in and out, and SAN out (:meth:`~ChessNotation.san`; ``string_to_action`` also reads SAN).
"""

from __future__ import annotations

import math
import re

import jax.numpy as jnp
import numpy as np

from jaxgames.game import GameError, split_fields, whole_number
from jaxgames.games.chess.encoding import (
    _CASTLE,
    ACTIONS,
    BLACK,
    BLACK_BIT,
    CHECKMATE,
    EMPTY,
    HISTORY,
    KING,
    NUM_ACTIONS,
    PAWN,
    QUEEN,
    ROOK,
    START_FEN,
    WHITE,
    _sq,
)
from jaxgames.games.chess.position import ChessState, _finish_jit, _in_check_jit, _key_of

_FILES = "abcdefgh"
_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
_PIECE_LETTERS = ".pnbrqk"


def square_name(square: int) -> str:
    """``0 -> "a1"``, ``63 -> "h8"``."""
    return _FILES[square % 8] + str(square // 8 + 1)


class ChessNotation:
    """The host-side notation of :class:`~jaxgames.games.chess.Chess` (a mixin: it steps and
    reads the legal moves of the game it is mixed into)."""

    # ------------------------------------------------------------------ host side
    position_formats = (
        (
            "FEN: 6 fields, or 4 without the clocks",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        ),
        ("UCI moves from the start (or after a FEN)", "startpos moves e2e4 e7e5 g1f3"),
        ("the start", "startpos"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A FEN is its first 4 fields, and the next 2 when both are whole numbers (the
        clocks); ``startpos`` is one field; ``moves`` after either takes every following
        field that is a UCI move. The rest of the line (an EPD operation, a label) is the
        label."""
        fields = line.split()
        if not fields:
            return "", ""
        if fields[0] in ("startpos", "start"):
            count = 1
        else:
            count = min(4, len(fields))
            if len(fields) >= 6 and all(f.isascii() and f.isdigit() for f in fields[4:6]):
                count = 6
        if count < len(fields) and fields[count] == "moves":
            count += 1
            while count < len(fields) and _UCI_MOVE.fullmatch(fields[count]):
                count += 1
        return split_fields(line, count)

    def parse(self, text: str) -> ChessState:
        """FEN (6 fields; the two clocks may be left out) -> state. Also ``""`` or
        ``"startpos"`` for the start, and ``"<FEN or startpos> moves e2e4 e7e5 ..."`` (UCI
        moves played from it, so the repetition history is kept).

        Raises:
            GameError: one line naming the bad field, a missing king, a pawn on the first or
                last rank, or the side not to move being in check.
        """
        body, _, moves = text.strip().partition(" moves")
        body = body.strip()
        if body in ("", "startpos", "start"):
            body = START_FEN
        state = self._parse_fen(body)
        for move in moves.split():
            state = self._step_jit(state, jnp.int32(self.string_to_action(state, move)))
        return state

    def _parse_fen(self, fen: str) -> ChessState:
        fields = fen.split()
        if len(fields) == 4:
            fields += ["0", "1"]
        if len(fields) != 6:
            raise GameError(f"chess: FEN {fen!r} has {len(fields)} fields, expected 6 (or 4)")
        placement, side, rights, ep_text, half_text, full_text = fields
        ranks = placement.split("/")
        if len(ranks) != 8:
            raise GameError(f"chess: FEN placement {placement!r} has {len(ranks)} ranks, not 8")
        board = np.zeros((64,), np.int8)
        for i, rank_text in enumerate(ranks):
            rank, file = 7 - i, 0
            for c in rank_text:
                if c.isdigit() and c not in "09":
                    file += int(c)
                elif c.lower() in _PIECE_LETTERS[1:]:
                    if file > 7:
                        break
                    code = _PIECE_LETTERS.index(c.lower()) + (0 if c.isupper() else BLACK_BIT)
                    board[_sq(file, rank)] = code
                    file += 1
                else:
                    raise GameError(f"chess: bad character {c!r} in FEN rank {8 - i}")
            if file != 8:
                raise GameError(f"chess: FEN rank {8 - i} ({rank_text!r}) has not 8 squares")
        if side not in ("w", "b"):
            raise GameError(f"chess: FEN side to move {side!r} is not 'w' or 'b'")
        turn = WHITE if side == "w" else BLACK
        if rights != "-" and (set(rights) - set("KQkq") or len(set(rights)) != len(rights)):
            raise GameError(f"chess: FEN castling field {rights!r} is not '-' or from 'KQkq'")
        castling = 0
        for bit, c in zip((1, 2, 4, 8), "KQkq", strict=True):
            if c in rights:
                color, side_index = divmod(int(math.log2(bit)), 2)
                king_ok = board[_CASTLE["king_sq"][color]] == KING + BLACK_BIT * color
                rook_ok = board[_CASTLE["rook_sq"][color, side_index]] == ROOK + BLACK_BIT * color
                if king_ok and rook_ok:  # rights the board contradicts are dropped
                    castling |= bit
        ep = -1
        if ep_text != "-":
            if not re.fullmatch(r"[a-h][36]", ep_text):
                raise GameError(f"chess: FEN en-passant square {ep_text!r} is not - or a3..h6")
            ep = _sq(_FILES.index(ep_text[0]), int(ep_text[1]) - 1)
            if ep // 8 != (5 if turn == WHITE else 2):
                ep = -1  # on the wrong rank for the side to move: no capture is possible
        try:
            halfmove, fullmove = whole_number(half_text), whole_number(full_text)
        except ValueError:
            raise GameError(
                f"chess: FEN clocks {half_text!r} {full_text!r} are not integers"
            ) from None
        if halfmove < 0 or fullmove < 1:
            raise GameError(f"chess: FEN clocks {halfmove} {fullmove} are out of range")
        for color in (WHITE, BLACK):
            if int(np.sum(board == KING + BLACK_BIT * color)) != 1:
                raise GameError(f"chess: FEN has not exactly one {('white', 'black')[color]} king")
        if np.any((board[:8] & 7) == PAWN) or np.any((board[56:] & 7) == PAWN):
            raise GameError("chess: FEN has a pawn on the first or last rank")
        if bool(_in_check_jit(jnp.asarray(board), jnp.int32(1 - turn))):
            raise GameError("chess: FEN puts the side not to move in check")
        key = _key_of(board, turn, castling, -1)
        return _finish_jit(
            jnp.asarray(board),
            jnp.int32(turn),
            jnp.int32(castling),
            jnp.int32(ep),
            jnp.int32(halfmove),
            jnp.int32(fullmove),
            jnp.asarray(key),
            jnp.zeros((HISTORY, 2), jnp.uint32),
        )

    def format(self, state: ChessState) -> str:
        """State -> FEN (the en-passant square only when a capture onto it is legal, as
        python-chess writes it)."""
        board = np.asarray(state.board)
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                code = int(board[_sq(file, rank)])
                if code == EMPTY:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                letter = _PIECE_LETTERS[code & 7]
                row += letter if code >> 3 else letter.upper()
            rows.append(row + (str(empty) if empty else ""))
        rights = int(state.castling)
        castling = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq", strict=True) if rights & bit)
        ep = int(state.ep)
        return " ".join(
            [
                "/".join(rows),
                "wb"[int(state.turn)],
                castling or "-",
                square_name(ep) if ep >= 0 else "-",
                str(int(state.halfmove)),
                str(int(state.fullmove)),
            ]
        )

    def legal_actions(self, state: ChessState) -> list[int]:
        """The legal actions of a concrete state, ascending."""
        return [int(a) for a in np.flatnonzero(np.asarray(self.legal_mask(state)))]

    def action_to_string(self, state: ChessState, action: int) -> str:
        """UCI notation: ``e2e4``, ``e7e8q`` (a pawn's plain action onto the last rank is
        the queen promotion), ``e7e8n``, castling as the king's move ``e1g1``."""
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise GameError(f"chess: action {a} is outside 0..{NUM_ACTIONS - 1}")
        frm, to, under = int(ACTIONS.frm[a]), int(ACTIONS.to[a]), int(ACTIONS.under[a])
        text = square_name(frm) + square_name(to)
        if under:
            return text + _PIECE_LETTERS[under]
        if (int(np.asarray(state.board)[frm]) & 7) == PAWN and to // 8 in (0, 7):
            return text + "q"
        return text

    def uci_to_action(self, text: str) -> int:
        """UCI text -> action index, legal or not (``-1`` when no action has those squares).

        Raises:
            GameError: text that is not of the form ``e2e4`` or ``e7e8q``.
        """
        t = text.strip()
        m = re.fullmatch(r"([a-h][1-8])([a-h][1-8])([qrbn]?)", t)
        if not m:
            raise GameError(f"chess: bad UCI move {text!r}")
        frm = _FILES.index(t[0]) + 8 * (int(t[1]) - 1)
        to = _FILES.index(t[2]) + 8 * (int(t[3]) - 1)
        piece = _PIECE_LETTERS.index(m.group(3)) if m.group(3) else 0
        return int(ACTIONS.promo[frm, to, piece])

    def string_to_action(self, state: ChessState, text: str) -> int:
        """UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``exd6``, ``O-O``, ``e8=Q+``) -> the
        legal action. Raises GameError when malformed or illegal."""
        t = text.strip()
        if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", t):
            action = self.uci_to_action(t)
            board = np.asarray(state.board)
            frm, to = _FILES.index(t[0]) + 8 * (int(t[1]) - 1), 0
            to = _FILES.index(t[2]) + 8 * (int(t[3]) - 1)
            is_promotion = (int(board[frm]) & 7) == PAWN and to // 8 in (0, 7)
            if is_promotion and len(t) == 4:
                raise GameError(f"chess: move {text!r} promotes; add the piece (e.g. {t}q)")
            if not is_promotion and len(t) == 5:
                raise GameError(f"chess: move {text!r} is not a promotion")
            if action < 0:
                raise GameError(f"chess: illegal move {text!r}")
            self._check_legal(state, action, text)
            return action
        wanted = t.rstrip("+#!?").replace("0-0-0", "O-O-O").replace("0-0", "O-O")
        for action in self.legal_actions(state):
            if self.san(state, action, suffix=False) == wanted:
                return action
        if bool(self.terminal(state)):
            raise GameError(f"chess: move {text!r} after the game is over")
        raise GameError(f"chess: illegal or malformed move {text!r} (UCI or SAN expected)")

    def san(self, state: ChessState, action: int, suffix: bool = True) -> str:
        """Standard algebraic notation of a legal action, as python-chess writes it
        (disambiguation by file, then rank, then both; ``+`` check, ``#`` mate)."""
        a = int(action)
        board = np.asarray(state.board)
        frm, to, under = int(ACTIONS.frm[a]), int(ACTIONS.to[a]), int(ACTIONS.under[a])
        kind = int(board[frm]) & 7
        if kind == KING and abs(to - frm) == 2:
            text = "O-O" if to > frm else "O-O-O"
        elif kind == PAWN:
            capture = to % 8 != frm % 8
            text = (_FILES[frm % 8] + "x" if capture else "") + square_name(to)
            if to // 8 in (0, 7):
                text += "=" + _PIECE_LETTERS[under or QUEEN].upper()
        else:
            others = [
                int(ACTIONS.frm[b])
                for b in self.legal_actions(state)
                if b != a
                and int(ACTIONS.to[b]) == to
                and (int(board[ACTIONS.frm[b]]) & 7) == kind
                and int(ACTIONS.frm[b]) != frm
            ]
            text = _PIECE_LETTERS[kind].upper()
            if others:
                same_rank = any(o // 8 == frm // 8 for o in others)
                same_file = any(o % 8 == frm % 8 for o in others)
                if same_rank or not same_file:
                    text += _FILES[frm % 8]
                if same_file:
                    text += str(frm // 8 + 1)
            if board[to] != EMPTY:
                text += "x"
            text += square_name(to)
        if suffix:
            child = self._step_jit(state, jnp.int32(a))
            if int(child.status) == CHECKMATE:
                text += "#"
            elif bool(child.in_check):
                text += "+"
        return text

    def sample_positions(self) -> list[str]:
        """The start and the standard perft positions (Kiwipete and positions 3 to 6)."""
        return [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ]
