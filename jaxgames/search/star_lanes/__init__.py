"""Expectiminimax with Star1/Star2 pruning, many roots at once: each root a job of the lane
engine (:mod:`jaxgames.search.lanes`), searched by one lane with an explicit stack.

The same search as the host driver of :mod:`jaxgames.search.expectiminimax`. Values are
player 0's, in ``[L, U]`` (the game's utility bounds). A chance frame keeps, per outcome r,
bounds ``lo[r] <= value(r) <= hi[r]`` (``L``/``U`` until known); its value is then bounded
by ``sum p lo`` and ``sum p hi``, and outcome r is searched with the window that decides a
cut (Ballard's Star1)::

    A_r = (alpha - sum_{s != r} p_s hi_s) / p_r        B_r = (beta - sum_{s != r} p_s lo_s) / p_r

A fail-soft answer ``v`` raises ``lo[r]`` (``v >= B_r``), lowers ``hi[r]`` (``v <= A_r``), or
fixes both (exact). The frame stops as soon as ``sum p lo >= beta`` or ``sum p hi <= alpha``.
With Star2, a first pass over the outcomes probes each one's decision node by its first
move only (a MAX node's first move bounds it from below, a MIN node's from above) before
the full pass; a decision node's probed first move is not searched again where the probe's
answer decides the window it would get. With ``"alphabeta"``, chance frames search every
outcome with ``[L, U]``; with ``"none"``, decision frames do not cut either.

Frames do not scale with the action space. A decision frame's moves are generated once,
when the node is opened, into a compact list of at most ``M`` moves (the game's
:class:`~jaxgames.capabilities.MoveLists`, else the legal mask's first ``M`` actions),
sorted best first by the ordering (the game's hint, or the one-ply look-ahead), so an event
reads the move at the frame's cursor. A chance frame's list is the chance outcomes of
nonzero probability, in outcome order. Lists are made in a pass of their own before each
event, for the lanes that opened a decision node only (see :func:`~.lists.fill`).

An event of a lane pops its current frame if that is done (reporting the value to the
parent) and then expands the (new) current frame. Two shortcuts save whole events without
changing any value or count:

* at the horizon's edge (children are leaves), an event settles up to ``W`` children at
  once: they are stepped and valued together, then folded into the frame one by one in
  order, stopping where the one-at-a-time search would have cut;
* a chance child one ply above the horizon (its outcomes are leaves) is valued in the event
  that reaches it, its outcomes stepped and folded together the same way (Star1 within
  its window; a probing pass over leaves is the full pass, so Star2 adds nothing there).

Decision moves are tried in the game's ordering (lowest action, or list position, first
among equals); there is no transposition table, so Star2's second pass opens a probed
decision node again: its list is copied from the probe's just above the horizon's edge
(where most probes are), made again elsewhere.

The package:

* :mod:`~.frames`: the config, a frame packed in a row, the lane;
* :mod:`~.nodes`: a node's kind, list and window; a child's report; leaves folded at once;
* :mod:`~.lists`: the list pass before each event;
* :mod:`~.event`: one event of a lane, and the lane engine's other hooks;
* :mod:`~.driver`: :func:`star_lanes`, compiled, run and gathered.
"""

from jaxgames.search.star_lanes.driver import make_config, star_lanes
from jaxgames.search.star_lanes.frames import Config

__all__ = ["Config", "make_config", "star_lanes"]
