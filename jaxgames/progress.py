"""What a long job is doing, for whoever shows it.

Library code names its phases (``with progress.phase("compiling the search"): ...``) and
counts its work (``progress.count(done, total, "positions")``); both cost nothing unless a
display is installed. The command line installs a :class:`StatusLine` when stderr is a
terminal, so a user sees "compiling" while XLA compiles and the count while work runs,
with the time elapsed ticking even inside one long device call.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Protocol


class Display(Protocol):
    def show_phase(self, text: str) -> None: ...

    def show_count(self, done: int, total: int | None, unit: str) -> None: ...


_display: Display | None = None


@contextmanager
def installed(display: Display | None) -> Iterator[None]:
    """Make ``display`` the receiver of phases and counts for the duration."""
    global _display
    previous, _display = _display, display
    try:
        yield
    finally:
        _display = previous


@contextmanager
def phase(text: str) -> Iterator[None]:
    """A named phase of work (nested phases show the innermost)."""
    display = _display
    if display is None:
        yield
        return
    previous = getattr(display, "phase_text", "")
    display.show_phase(text)
    try:
        yield
    finally:
        display.show_phase(previous)


def count(done: int, total: int | None = None, unit: str = "") -> None:
    """``done`` of ``total`` (None: unknown) units of work are finished."""
    if _display is not None:
        _display.show_count(done, total, unit)


def compiled_call(fn: Any, *args: Any, what: str) -> Any:
    """``fn(*args)`` for a jitted ``fn``, its compilation shown as a phase of its own.

    ``fn.lower(*args).compile()`` fills the same cache a call reads, so the call after it
    does not compile again, and a call whose program is already compiled skips straight
    to running (the lowering is cached too).
    """
    if _display is None:
        return fn(*args)
    with phase(f"compiling {what}"):
        fn.lower(*args).compile()
    with phase(what):
        return fn(*args)


class StatusLine:
    """One line on a terminal's stderr: the phase, the count and the seconds elapsed,
    redrawn a few times a second; cleared by :meth:`close`."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 0.2) -> None:
        self.stream = stream or sys.stderr
        self.phase_text = ""
        self.counted = ""
        self.start = time.perf_counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, args=(interval,), daemon=True)
        self._thread.start()

    def show_phase(self, text: str) -> None:
        with self._lock:
            self.phase_text = text
        self._draw()

    def show_count(self, done: int, total: int | None, unit: str) -> None:
        if total:
            filled = min(30, 30 * done // total)
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,} {unit}"
        else:
            bar = f"{done:,} {unit}"
        elapsed = time.perf_counter() - self.start
        rate = f"  {done / elapsed:,.0f} {unit}/s" if elapsed > 0 and done and unit else ""
        with self._lock:
            self.counted = bar.rstrip() + rate
        self._draw()

    def _tick(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self._draw()

    def _draw(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            parts = [p for p in (self.phase_text, self.counted) if p]
            elapsed = time.perf_counter() - self.start
            text = "  ".join(parts + [f"{elapsed:.1f} s"])
            self.stream.write(f"\r{text}\x1b[K")  # \x1b[K: clear the rest of the line
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self._stop.set()
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        self._thread.join()


class PhaseLog:
    """One line on stderr each time a phase begins, with the seconds since the display was
    made: progress for a log file or a pipe, where a redrawn status line would be noise."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.phase_text = ""
        self.start = time.perf_counter()

    def show_phase(self, text: str) -> None:
        self.phase_text = text
        if text:
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"jaxgames: {elapsed:.2f} s: {text}\n")
            self.stream.flush()

    def show_count(self, done: int, total: int | None, unit: str) -> None:
        pass  # the rows themselves, and the summary, say how far the work is

    def close(self) -> None:
        pass


DISPLAYS = ("auto", "line", "log", "off")
"""``--progress`` choices: ``auto`` (a status line when stderr is a terminal, else none),
``line``, ``log`` (:class:`PhaseLog`), ``off``."""


@contextmanager
def status_line(shown: bool | str) -> Iterator[StatusLine | PhaseLog | None]:
    """The display ``shown`` names (True: a :class:`StatusLine`; ``"log"``: a
    :class:`PhaseLog`; False or ``"off"``: none) installed for the duration."""
    if shown is True or shown == "line":
        display: StatusLine | PhaseLog = StatusLine()
    elif shown == "log":
        display = PhaseLog()
    else:
        yield None
        return
    try:
        with installed(display):
            yield display
    finally:
        display.close()
