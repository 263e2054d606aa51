"""Bulk evaluation: many positions through a batch search, in chunks, one row per position.

    rows = jaxgames.evaluate("connect4", ["4453", "4455 18"], algorithm="alphabeta", depth=4)

:mod:`~jaxgames.bulk.evaluate` searches the chunks and makes the rows;
:mod:`~jaxgames.bulk.output` writes them (JSONL, CSV, a table), resumably, and checks that
rows already in an output file belong to the run that resumes it;
:mod:`~jaxgames.bulk.distributed` slices the input over the processes of a multi-process run.
"""

from jaxgames.bulk.distributed import initialize_distributed, part_path, process_slice
from jaxgames.bulk.evaluate import (
    ALGORITHMS,
    DEFAULT_CHUNK_SIZE,
    Chunk,
    batch_search,
    check_chunk_memory,
    columns,
    default_algorithm,
    evaluate,
    iter_chunks,
    iter_evaluate,
    known_algorithms,
)

__all__ = [
    "ALGORITHMS",
    "DEFAULT_CHUNK_SIZE",
    "Chunk",
    "batch_search",
    "check_chunk_memory",
    "columns",
    "default_algorithm",
    "evaluate",
    "initialize_distributed",
    "iter_chunks",
    "iter_evaluate",
    "known_algorithms",
    "part_path",
    "process_slice",
]
