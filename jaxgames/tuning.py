"""Per-game search defaults, measured (kept out of the game-agnostic search layer, which
reads them by game name: rules files hold rules, searches hold no game names)."""

from typing import Any

ALPHABETA: dict[str, dict[str, Any]] = {
    # benchmarks/alphabeta.py on a 2-core CPU (benchmarks/README.md, "Alpha-beta"): the
    # game's own ordering (wins, blocks, threats) searches fewer nodes alone than with
    # killers, history or iterative deepening; a node above the horizon is cheapest settled
    # at once (7 moves, all legal); the table pays from depth 8; 128 lanes a device
    "connect4": {
        "killers": False,
        "history": False,
        "iterative_deepening": False,
        "last_ply": True,
        "tt_min_depth": 8,
        "lanes": 128,
        # searched to the end, the value is found by null-window tests (as the public
        # solvers do): Test_L1_R1's first 16 lines 14k nodes a position instead of 215k,
        # Test_L2_R1's first 200 in 0.9 s instead of 2.1 s; Test_L3_R1 the same 0.1 s
        "solver": "at_end",
    },
    # benchmarks/README.md, "Search speed" (1,024 random-play positions at depth 5, 2-core
    # CPU, 2 devices): 256 lanes a device searched 324-351 positions/s, 512 lanes 196-266 and
    # 128 lanes 296-331; wider lanes spill the caches and leave more lanes idle at the tail
    "othello": {
        "lanes": 256,
        # searched to the end (exact endgames): FFORUM #21's four moves (14 empty squares)
        # in 5.8M nodes without iterative deepening against 50M with it, and ordered fastest
        # first
        "iterative_deepening": "before_end",
        "lookahead": "at_end",
        # ... and only at nodes with 4 or more empty squares (8 plies by plies_left):
        # 128 copies of FFORUM #21's first child, table off (2-core CPU, 2 devices) solved in
        # 35.4 s against 44.2 s with the look-ahead everywhere, 2.6 % more nodes (6 empty
        # squares: 34.7 s, 21 % more nodes; 3: 39.7 s)
        "lookahead_depth": 8,
        # the last empty square played out at once (ExactValues): a midgame search never
        # reaches one and would pay for the test at every child
        "exact_values": "at_end",
        # the table only in exact endgames: 256 random-play positions (2-core CPU, 2
        # devices) searched 12-27 % faster at depth 4, 7 % at depth 5 and 15 % at depth 6
        # without it, for 5-14 % more nodes (midgame lines seldom transpose)
        "tt": "at_end",
    },
    # benchmarks/README.md, "Search speed" (random-play middlegame FENs, depth 3, quiescence
    # 4, 2-core CPU, 2 devices): 1,024 positions at 128 lanes a device 116 positions/s, 64
    # lanes 88, 256 lanes (the default 512, halved by the devices) 57-78 on 512 positions;
    # a chess lane's stack is large (states with their move planes, 218-move frames), so
    # wide loops spill the caches
    "chess": {
        "lanes": 128,
        # depth 3, quiescence 4, the same FENs and machine, configurations interleaved in one
        # process (medians of 3-5 rounds): 64 positions 58.4 positions/s without the table
        # against 54.4 with it (2,312 nodes a position against 2,280: lines seldom meet in 3
        # plies); kept from depth 4 on (not measured there)
        "tt_min_depth": 4,
        # iterative deepening only where every root has its lane: 64 positions (32 a
        # device, no queue) 51.9 positions/s with it against 33.1 without (its order halves
        # the longest search: 4,408 nodes against 8,877); 1,024 (a queue) 99.3 without it or
        # the table, against 89.3 with both and 74.7 with it alone
        "iterative_deepening": "without_queue",
    },
}
"""Per-game defaults of the search, measured: the machine and benchmark each came from are
in the comment above its entry. Rules files hold rules; how to search them is kept here."""
