"""Small poker games with OpenSpiel's rules: Kuhn poker and Leduc hold'em.

Both are two-player zero-sum games of imperfect information: they implement the capability
:class:`jaxgames.capabilities.ImperfectInformation` (a fixed-shape observation and an
information-state key per player), and the deal is made of chance nodes. Their rules, action
numbers, chance outcomes, observations and returns are those of OpenSpiel's ``kuhn_poker``
and ``leduc_poker`` (the tests play them side by side).

Notation, shared by both: a position is the list of moves played from the start (chance
outcomes included), space-separated, as :meth:`action_to_string` writes them, or ``start``.
"""

from __future__ import annotations

from typing import Any

from jaxgames.game import Game, GameError, State


class MoveListNotation:
    """``parse``/``format`` of a position as its moves from the start (a mixin for
    :class:`~jaxgames.game.Game` subclasses that define ``moves_played`` and
    ``string_to_action``)."""

    def moves_played(self, state: State) -> list[int]:
        """The actions and chance outcomes played from the start to ``state``, in order."""
        raise NotImplementedError

    def parse(self: Any, text: str) -> State:
        """``"start"``, ``""`` or space-separated moves from the start, e.g. ``"K J b p"``.

        Raises:
            GameError: an unknown or illegal move (one line naming it).
        """
        state = self.init()
        for token in text.split():
            if token.lower() == "start" and not text.split()[1:]:
                break
            state = self._step(state, self.string_to_action(state, token))
        return state

    def format(self: Any, state: State) -> str:
        """State -> its moves from the start, ``"start"`` for the first position."""
        tokens = []
        replay = self.init()
        for action in self.moves_played(state):
            tokens.append(self.action_to_string(replay, action))
            replay = self._step(replay, action)
        return " ".join(tokens) or "start"

    def _step(self: Any, state: State, action: int) -> State:
        if not isinstance(self, Game):
            raise GameError("MoveListNotation is a mixin for games")
        return self.step(state, action)
