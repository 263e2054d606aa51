"""Host-side checks shared by the games whose board two players fill in turn, ``x`` first
(tic-tac-toe, connect four): a board given in notation must be one that play can reach."""

from __future__ import annotations

from jaxgames.game import GameError


def check_turns(
    name: str, board: str, x: int, o: int, x_line: bool, o_line: bool, line: str
) -> None:
    """Raise :class:`GameError` unless a board with ``x`` and ``o`` stones, of which each
    side's ``line`` (say "three in a row") is given, can arise in play: x moves first, the
    game stops at the first line.

    Args:
        name: the game's name, first in the message.
        board: what the notation calls the board ("board", "grid").
    """
    if x not in (o, o + 1):
        raise GameError(
            f"{name}: {board} has {x} x and {o} o; x moves first, so the number of "
            "x must equal the number of o or exceed it by one"
        )
    if x_line and o_line:
        raise GameError(f"{name}: both x and o have {line}")
    if x_line and x != o + 1:
        raise GameError(f"{name}: x has {line} but o moved after it")
    if o_line and x != o:
        raise GameError(f"{name}: o has {line} but x moved after it")
