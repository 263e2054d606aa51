"""Connect-k with gravity from the rules, in pure Python: the oracle of the connect-four
tests (written for the tests, independent of the JAX game)."""

from __future__ import annotations

import math
import random


class Ref:
    """Connect-k with gravity: columns are stacks of "x"/"o" from the bottom."""

    def __init__(self, w: int, h: int, k: int) -> None:
        self.w, self.h, self.k = w, h, k
        self.cols: list[list[str]] = [[] for _ in range(w)]
        self.n = 0
        self.winner: str | None = None

    def at(self, c: int, r: int) -> str | None:
        if 0 <= c < self.w and 0 <= r < len(self.cols[c]):
            return self.cols[c][r]
        return None

    def completes(self, c: int, r: int, piece: str) -> bool:
        """Would ``piece`` at (c, r) make k in a row (runs counted from that cell)?"""
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                i = 1
                while self.at(c + sign * i * dc, r + sign * i * dr) == piece:
                    run += 1
                    i += 1
            if run >= self.k:
                return True
        return False

    def over(self) -> bool:
        return self.winner is not None or self.n == self.w * self.h

    def legal(self) -> list[int]:
        return [] if self.over() else [c for c in range(self.w) if len(self.cols[c]) < self.h]

    def mover(self) -> str:
        return "xo"[self.n % 2]

    def wins_with(self, c: int) -> bool:
        return self.completes(c, len(self.cols[c]), self.mover())

    def play(self, c: int) -> None:
        assert c in self.legal()
        piece = self.mover()
        won = self.wins_with(c)
        self.cols[c].append(piece)
        self.n += 1
        if won:
            self.winner = piece

    def utility(self) -> float:
        """Pons distance score from the definition, scaled by the fastest win's score."""
        if self.winner is None:
            return 0.0
        cells = self.w * self.h
        base = (cells + 1) // 2 + 1
        stones = sum(col.count(self.winner) for col in self.cols)
        u = (base - stones) / (base - self.k)
        return u if self.winner == "x" else -u

    def heuristic(self) -> float:
        """The documented threat heuristic, for x, on an unfinished board: every window of
        k cells in a row, open lines weighted n * n (n < k), plus the centre-column stone
        difference, squashed by tanh(raw / 16) / (2 * max_score)."""
        raw = 0.0
        for c in range(self.w):
            for r in range(self.h):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    end_c, end_r = c + dc * (self.k - 1), r + dr * (self.k - 1)
                    if not (0 <= end_c < self.w and 0 <= end_r < self.h):
                        continue
                    stones = [self.at(c + i * dc, r + i * dr) for i in range(self.k)]
                    nx, no = stones.count("x"), stones.count("o")
                    if no == 0 and nx < self.k:
                        raw += nx * nx
                    if nx == 0 and no < self.k:
                        raw -= no * no
        for c in {(self.w - 1) // 2, self.w // 2}:
            raw += self.cols[c].count("x") - self.cols[c].count("o")
        base = (self.w * self.h + 1) // 2 + 1
        return math.tanh(raw / 16.0) / (2.0 * max(1, base - self.k))

    def grid(self) -> str:
        rows = []
        for r in reversed(range(self.h)):
            rows.append("".join(self.at(c, r) or "." for c in range(self.w)))
        return "/".join(rows)


def ref_play(w: int, h: int, k: int, moves: list[int]) -> Ref:
    ref = Ref(w, h, k)
    for m in moves:
        ref.play(m)
    return ref


def random_game(rng: random.Random, w: int, h: int, k: int, stop: float = 0.0) -> list[int]:
    ref, moves = Ref(w, h, k), []
    while ref.legal() and not rng.random() < stop:
        m = rng.choice(ref.legal())
        ref.play(m)
        moves.append(m)
    return moves
