"""The list pass of the Star lanes: before each event, the move lists of the decision frames
just opened, one lane after another (see :func:`fill`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.search.star_lanes.frames import CHANCE_KIND, Lane, offsets
from jaxgames.search.star_lanes.nodes import Nodes


def fill(nodes: Nodes, lanes: Lane) -> Lane:
    """The lists of the decision frames opened since the last event, one lane after
    another, for those lanes only: a lockstep pass over every lane would make a list
    per lane and event (move generation is by far a game's dearest function), and one
    state at a time the game's own branches (``lax.cond``) really branch.

    With ``keep_lists`` (Star2), the lists that the probing pass of a chance frame just
    above the horizon's edge makes for its decision children are kept (one such frame
    is open per lane at a time), and its full pass, opening the same nodes again,
    copies them instead of making them twice."""
    config = nodes.config
    k, m = config.outcomes, config.max_moves
    width = lanes.sp.shape[0]
    (which,) = jnp.nonzero(lanes.pending, size=width, fill_value=0)
    at = offsets(config)  # one lane at a time, every op counts: the few fields only

    def one(j, lanes: Lane) -> Lane:
        i = which[j]
        sp = lanes.sp[i]
        state = jax.tree.map(lambda x: x[i, sp], lanes.state)
        rows = lanes.rows
        if not config.keep_lists:
            moves, count = nodes.moves(state)
        else:
            up = jnp.maximum(sp - 1, 0)
            r = jnp.clip(rows[i, up, at["last"]].astype(jnp.int32), 0, k - 1)
            kept_count = rows[i, up, at["kept"] + r].astype(jnp.int32)
            chance = rows[i, up, at["kind"]] == CHANCE_KIND
            probing = rows[i, up, at["phase"]] == 0
            level = (sp == config.depth - 1) & chance
            again = level & ~probing & (kept_count >= 0)
            # the kept list is sliced out first: a branch that closed over the whole
            # buffer would take all of it
            kept = jax.lax.dynamic_slice(lanes.kept, (i, r, 0), (1, 1, m))[0, 0]
            moves, count = jax.lax.cond(
                again, lambda: (kept.astype(jnp.int32), kept_count), lambda: nodes.moves(state)
            )
            keep = level & probing
            rows = rows.at[i, up, at["kept"] + r].set(
                jnp.where(keep, count, kept_count).astype(rows.dtype)
            )
            row = jnp.where(keep, moves, kept).astype(lanes.kept.dtype)
            lanes = lanes._replace(
                kept=jax.lax.dynamic_update_slice(lanes.kept, row[None, None], (i, r, 0))
            )
        probe_only = rows[i, sp, at["probe_only"]] > 0.5
        count = jnp.where(probe_only, jnp.minimum(count, 1), count)
        return lanes._replace(
            moves=jax.lax.dynamic_update_slice(
                lanes.moves, moves.astype(lanes.moves.dtype)[None, None], (i, sp, 0)
            ),
            rows=rows.at[i, sp, at["count"]].set(count.astype(rows.dtype)),
        )

    count = jnp.sum(lanes.pending, dtype=jnp.int32)
    lanes = jax.lax.fori_loop(0, count, one, lanes)
    return lanes._replace(pending=jnp.zeros_like(lanes.pending))
