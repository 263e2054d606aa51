"""Multi-player search: maxⁿ with shallow pruning, paranoid search, separate evaluations.

**maxⁿ** (Luckhardt and Irani 1986; the seeds' multi-player backup). Every node carries the
whole utility vector; the player to move takes the child that is best for itself::

    V(s) = UTILITY(s)                              if TERMINAL-TEST(s)
         = EVAL(s)                                 at the depth limit
         = V(RESULT(s, a*)),  a* = argmax_a V(RESULT(s, a))[PLAYER(s)]

Tie-breaking: among children equally good for the mover, the LOWEST action wins (children
are searched in action order and a later child replaces the best only when strictly
better). This is the rule of :func:`jaxgames.search.minimax`, so both return the same vector.

**Shallow pruning** (Korf 1991, "Multi-player alpha-beta pruning"). With static bounds
``L <= V_k`` for every component and ``sum_k V_k <= S`` (the game's ``utility_min`` and
``utility_sum_max``), take a node ``x`` whose mover ``i`` has found a child worth ``v`` so far,
below a parent whose mover ``j != i`` already holds a child worth ``beta_j`` to ``j``. The
value ``w`` that ``x`` will back up has ``w_i >= v_i``, so::

    w_j  <=  S - w_i - (n - 2) L  <=  S - v_i - (n - 2) L

and once ``v_i >= S - (n - 2) L - beta_j`` (Korf: ``v_i >= S - beta_j`` with ``L = 0``) the
parent can never prefer ``x`` (it takes a later child only when strictly better), so ``x``'s
remaining children are pruned and ``x`` returns ``v``, which the parent does not take.
*Immediate pruning* (same paper): once ``v_i`` reaches the most any component can be,
``min(U, S - (n - 1) L)``, no later child can be strictly better. Neither changes the value,
nor the move: the result equals plain maxⁿ exactly (ties included). In the best case the
leaves grow by the asymptotic branching factor ``(1 + sqrt(4b - 3)) / 2``
(``F(d) = F(d - 1) + (b - 1) F(d - 2)``); on random trees pruning does not reduce it.

**No deep pruning.** In two-player alpha-beta a bound from the grandparent prunes a
grandchild. With three players that is wrong: if the root (player 1) holds 5 and, two levels
down, player 3 finds a value that leaves player 1 at most 4, that subtree's value can still
change what player 2 picks at the node in between, and thereby what reaches the root
(``tests/search/test_maxn.py`` has two trees that differ only below such a cut and back up different
root values). Only the parent's bound is used here.

**Paranoid search** (Sturtevant and Korf 2000): the root player ``r`` assumes every other
player plays to minimise ``V_r``. The coalition is one opponent, so this is two-player
alpha-beta on the scalar ``V_r`` (fail-soft, windows ``(alpha, beta)`` on ``V_r``, deep cutoffs
allowed). The vector returned is that of the leaf the principal variation ends in; its
component ``r`` is the paranoid value.

**Separate evaluation functions** (Korf 1989, "Generalized game trees", section 2). Each
player has its own EVAL and nodes carry the vector of them; the mover picks by its own
component, which is exactly the maxⁿ backup (Korf's pair ``(f_MAX, f_MIN)``, with MIN
minimising its function, is the vector ``[f_MAX, -f_MIN]`` here). Alpha-beta is only sound
when the functions order positions alike: for two players, when the game is zero-sum (or
when the caller asserts it, ``agree=True``, e.g. for a constant-sum game). Otherwise the
search backs up the full vectors (shallow pruning stays exact, but without a real bound on
the sum it never fires).

Execution, as for alpha-beta: many roots at once on the device (:func:`maxn_batch`,
:func:`paranoid_batch`: every root a job of the lane engine, :mod:`jaxgames.search.lanes`,
each lane its own depth-first search with an explicit stack), or one deep search through the
host driver of :mod:`jaxgames.search.host` (:func:`maxn`, :func:`paranoid` with
``mode="host"``: the top ``split`` plies expanded on the host, level by level and without
pruning, the frontier searched by the lanes, one job per node, the values backed up the top
by the maxⁿ or the paranoid rule).

A frame holds its node's moves as a compact list (at most the game's ``max_moves`` with
:class:`~jaxgames.capabilities.MoveLists`, else ``num_actions``), in action order, generated
when the node becomes current and read one by one: a frame never holds, nor scans, an array
as wide as the action space.

The package:

* :mod:`~.frames`: a lane's frames, packed in rows, and its move lists;
* :mod:`~.rules`: the backup rules (plain maxⁿ, shallow pruning, paranoid);
* :mod:`~.event`: one event of every lane, and the lane engine's hooks;
* :mod:`~.batch`: :func:`maxn_batch`, :func:`paranoid_batch`, the pruning options;
* :mod:`~.single`: :func:`maxn`, :func:`paranoid`, one root (a lane, or the host driver).
"""

from jaxgames.search.maxn.batch import (
    PRUNINGS,
    maxn_batch,
    paranoid_batch,
    pruning_bounds,
    resolve_pruning,
)
from jaxgames.search.maxn.batch import _search as _search  # the tests search with their own rules
from jaxgames.search.maxn.rules import Paranoid, Plain, Shallow
from jaxgames.search.maxn.single import maxn, paranoid

__all__ = [
    "PRUNINGS",
    "Paranoid",
    "Plain",
    "Shallow",
    "maxn",
    "maxn_batch",
    "paranoid",
    "paranoid_batch",
    "pruning_bounds",
    "resolve_pruning",
]
