"""Chess, with every rule of the FIDE Laws that a program can decide from the position.

Rules (FIDE Laws of Chess, articles 3, 5 and 9, as a program applies them):

* every piece moves as in article 3; "a piece may not be moved to a square occupied by a
  piece of the same colour" and no move may leave the mover's own king in check;
* castling, king side and queen side: "the king is transferred from its original square two
  squares towards the rook ... then that rook is transferred to the square the king has just
  crossed", only if neither piece has moved, the squares between them are empty, the king is
  not in check and "the square which the king must cross" and its destination are not
  attacked;
* en passant: a pawn that "attacks a square crossed by an opponent's pawn which has advanced
  two squares in one move" may capture it on the next move only;
* promotion: a pawn reaching the last rank becomes a queen, rook, bishop or knight of the same
  colour, as the player chooses;
* the game ends at checkmate (the side to move is in check with no legal move: the other side
  wins), at stalemate (no legal move, not in check: a draw), and, as draws, when neither side
  can mate (``python-chess``'s insufficient-material rule: bare kings, a single minor piece,
  or bishops all on one colour), when the same position (same side to move, castling rights
  and en-passant capture) occurs for the third time, and when 50 moves by each player
  (100 plies) passed without a capture or a pawn move. A checkmate on the move that reaches
  the 100th ply stands. The two claimable draws (threefold, 50 moves) are applied
  automatically, so every game is finite (at most :data:`MAX_GAME_LENGTH` plies).

Encoding:

* square ``s = 8 * rank + file`` with ``a1 = 0``, ``h1 = 7``, ``a8 = 56``, ``h8 = 63``;
* the board is a mailbox ``int8[64]``: 0 empty, 1..6 a white pawn, knight, bishop, rook,
  queen, king, 9..14 the black ones (``8 | type``); the code 7 is the "wall" beyond the edge;
* actions are absolute (the same index means the same squares for both colours):
  ``0 .. 1791`` are the 1,792 (from, to) pairs a queen or a knight could move between on an
  empty board, in (from, to) order. They cover every move of every piece: king moves,
  castling (the king's two-square move, as UCI writes it), pawn pushes, double pushes,
  captures, en passant, and promotion to a queen (the plain pair). ``1792 .. 1923`` are the
  under-promotions: for white (rank 7 -> 8) then black (rank 2 -> 1), each (from, to) pawn
  pair (straight or diagonal; 22 per colour) times knight, bishop, rook. So ``A = 1,924``
  actions, one per legal move of any position (218 is the most any known position has),
  and no legal move list is ever truncated;
* :class:`ChessState` keeps the board, the side to move, castling rights, the en-passant
  square (only when an en-passant capture is legal, as in python-chess's FEN), the clocks,
  the 64-bit Zobrist key (``uint32[2]``, kept incrementally), the keys of the last 100
  positions (enough for the 50-move window) for the repetition rule, and the legal moves
  (as move planes, below), the check flag and the status of the position, computed once
  when the position is made (``step`` computes them, so ``terminal`` costs nothing).

The code lives in these modules:

* :mod:`.encoding`: piece codes, the action space, castling and Zobrist tables, move planes;
* :mod:`.movegen`: the legal move generator on bitboards (attack map, checks, pins);
* :mod:`.movelist`: compact move lists and uniform sampling read off the move planes;
* :mod:`.position`: :class:`ChessState` and the status of a position (mate, draws);
* :mod:`.rules`: the :class:`Chess` game (``step``, the null move, utility);
* :mod:`.evaluation`: the evaluation and the search hints (MVV-LVA, noisy moves);
* :mod:`.notation`: FEN, UCI and SAN (host side).

The legal moves are kept in the state as 72 bitboards of destination squares, one per move
shape (:data:`NUM_PLANES`); ``legal_mask`` reads the 1,924-wide mask off them, searches read
a compact list of at most 218 moves off them (:meth:`Chess.legal_moves`), and random playouts
draw a move from their population counts, both without building the mask
(:meth:`Chess.sample_actions`).

Search hints: :meth:`Chess.move_order_scores` orders captures by MVV-LVA (most valuable
victim, least valuable attacker) and promotions first; :meth:`Chess.noisy_mask` marks
captures and promotions, the moves quiescence search plays past the horizon;
:meth:`Chess.move_scores` and :meth:`Chess.noisy_moves` say the same of the moves of a
compact list, computed for those moves only, and :meth:`Chess.in_check` reads the check
flag kept in the state. The horizon
effect they cure (``tests/games/test_chess.py``): in ``4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1`` a
one-ply alpha-beta search plays Qxd5 and scores a won pawn, because the recapture exd5,
which loses the queen, lies beyond its horizon; with ``quiescence=4`` the captures are
played out, Qxd5 is refuted and another move is chosen, at a lower (correct) value.
"""

from jaxgames.games.chess.encoding import (
    ACTIONS,
    BISHOP,
    BLACK,
    BLACK_BIT,
    CHECKMATE,
    EMPTY,
    FIFTY_MOVES,
    HISTORY,
    INSUFFICIENT,
    KING,
    KNIGHT,
    MAX_GAME_LENGTH,
    NUM_ACTIONS,
    NUM_PLANES,
    ONGOING,
    PAWN,
    QUEEN,
    ROOK,
    STALEMATE,
    START_FEN,
    STATUS_NAMES,
    THREEFOLD,
    WALL,
    WHITE,
)
from jaxgames.games.chess.movegen import _analyze as _analyze  # the benchmarks time it alone
from jaxgames.games.chess.movelist import MAX_MOVES
from jaxgames.games.chess.notation import square_name
from jaxgames.games.chess.position import ChessState
from jaxgames.games.chess.position import _key_of as _key_of  # the tests check keys with it
from jaxgames.games.chess.rules import Chess

__all__ = [
    "ACTIONS",
    "BISHOP",
    "BLACK",
    "BLACK_BIT",
    "CHECKMATE",
    "EMPTY",
    "FIFTY_MOVES",
    "HISTORY",
    "INSUFFICIENT",
    "KING",
    "KNIGHT",
    "MAX_GAME_LENGTH",
    "MAX_MOVES",
    "NUM_ACTIONS",
    "NUM_PLANES",
    "ONGOING",
    "PAWN",
    "QUEEN",
    "ROOK",
    "STALEMATE",
    "START_FEN",
    "STATUS_NAMES",
    "THREEFOLD",
    "WALL",
    "WHITE",
    "Chess",
    "ChessState",
    "square_name",
]
