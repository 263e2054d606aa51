"""JAX's persistent compilation cache for jaxgames: compile once, not once per process.

XLA compilation is most of a short command's wait: a cold ``jaxgames show chess`` spends
most of its seconds compiling chess's move generator. :func:`use_persistent_cache` turns on
JAX's on-disk cache of compiled programs, so the next process with the same programs loads
them instead of compiling. The command line calls it before its command runs (except
``jaxgames bench``, whose figures time compilation itself), and so do
:func:`jaxgames.evaluate` and :func:`jaxgames.iter_evaluate`.

Where the cache lives:

- ``$JAXGAMES_CACHE_DIR`` when set (``off``, ``0``, ``false`` or ``no``: no cache at all,
  JAX's configuration left as it is);
- else ``$XDG_CACHE_HOME/jaxgames/xla``, or ``~/.cache/jaxgames/xla``.

A cache that the user configured for JAX itself (``JAX_COMPILATION_CACHE_DIR``, or
``jax.config.update("jax_compilation_cache_dir", ...)``) always wins and is used as it is,
with JAX's own thresholds; ``JAX_ENABLE_COMPILATION_CACHE=false`` turns caching off. In our
own directory every program is kept, however quick to compile (JAX keeps only those that
took a second or more unless told otherwise): a short command is many small compilations.
A directory that cannot be created or written means no cache, and no error.

The cache is trusted code: a program in it runs as the user, so it is created readable by
the user only and must not be shared with anyone who could write to it.
"""

from __future__ import annotations

import os

import jax

ENV = "JAXGAMES_CACHE_DIR"
"""The environment variable that chooses the cache directory, or turns the cache off."""

OFF = ("off", "0", "false", "no", "none")
"""Values of :data:`ENV` (any case) that turn the cache off."""

MIN_COMPILE_TIME_S = 0.0
"""Programs that took at least this long to compile are kept (JAX's default: 1 s)."""

_JAX_DIR = "jax_compilation_cache_dir"
_JAX_MIN_TIME = "jax_persistent_cache_min_compile_time_secs"
_JAX_DEFAULT_MIN_TIME = 1.0


def default_cache_dir() -> str:
    """``$XDG_CACHE_HOME/jaxgames/xla``, or ``~/.cache/jaxgames/xla``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxgames", "xla")


def use_persistent_cache() -> str | None:
    """Turn on JAX's persistent compilation cache; returns the directory in use, or None.

    Call it before the first compilation to cache every program (JAX 0.10 also picks up a
    directory set later, for the compilations after it). Idempotent: a second call returns
    the directory of the first. Never overrides a cache directory configured for JAX, and
    changes nothing when :data:`ENV` is one of :data:`OFF`, when JAX's cache is disabled
    (``jax_enable_compilation_cache``), or when the directory cannot be made writable.
    """
    configured = jax.config.values.get(_JAX_DIR)
    if configured:  # the user's own (or ours, from an earlier call): used as it is
        return str(configured)
    theirs = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    if theirs:  # set after JAX read its environment: theirs all the same, as they asked
        jax.config.update(_JAX_DIR, theirs)
        return theirs
    if not jax.config.values.get("jax_enable_compilation_cache", True):
        return None
    choice = os.environ.get(ENV, "").strip()
    if choice.lower() in OFF:
        return None
    path = os.path.abspath(os.path.expanduser(choice)) if choice else default_cache_dir()
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not (os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)):
        return None
    user_min_time = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" in os.environ
    if not user_min_time and jax.config.values.get(_JAX_MIN_TIME) == _JAX_DEFAULT_MIN_TIME:
        jax.config.update(_JAX_MIN_TIME, MIN_COMPILE_TIME_S)
    jax.config.update(_JAX_DIR, path)
    return path


__all__ = ["ENV", "OFF", "default_cache_dir", "use_persistent_cache"]
