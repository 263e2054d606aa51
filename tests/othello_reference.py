"""Othello from the rules, in pure Python: the oracle of the Othello tests (written for the
tests, independent of the JAX game)."""

from __future__ import annotations

PASS = 64
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


class Ref:
    """Othello from the rules: a list of 64 cells "X", "O" or "-", row-major from a1 (top
    left), and the side to move. A pass is a move only when no placement is legal."""

    def __init__(self, cells: list[str] | None = None, to_move: str = "X") -> None:
        if cells is None:
            cells = ["-"] * 64
            cells[27] = cells[36] = "O"  # d4, e5
            cells[28] = cells[35] = "X"  # e4, d5
        self.cells = list(cells)
        self.to_move = to_move

    def other(self, side: str) -> str:
        return "O" if side == "X" else "X"

    def flips(self, square: int, side: str) -> list[int]:
        """Discs flipped if ``side`` places on ``square`` (empty list: not a legal placement)."""
        if self.cells[square] != "-":
            return []
        row, col = divmod(square, 8)
        flipped = []
        for dr, dc in DIRECTIONS:
            run = []
            r, c = row + dr, col + dc
            while 0 <= r < 8 and 0 <= c < 8 and self.cells[r * 8 + c] == self.other(side):
                run.append(r * 8 + c)
                r, c = r + dr, c + dc
            if run and 0 <= r < 8 and 0 <= c < 8 and self.cells[r * 8 + c] == side:
                flipped += run
        return flipped

    def placements(self, side: str) -> list[int]:
        return [s for s in range(64) if self.flips(s, side)]

    def actions(self) -> list[int]:
        """Legal actions: the placements, else [64] (pass), else [] at the end."""
        mine = self.placements(self.to_move)
        if mine:
            return mine
        return [PASS] if self.placements(self.other(self.to_move)) else []

    def over(self) -> bool:
        return not self.actions()

    def play(self, action: int) -> None:
        assert action in self.actions(), action
        if action != PASS:
            for s in self.flips(action, self.to_move) + [action]:
                self.cells[s] = self.to_move
        self.to_move = self.other(self.to_move)

    def copy(self) -> Ref:
        return Ref(self.cells, self.to_move)

    def text(self) -> str:
        return "".join(self.cells) + " " + self.to_move

    def difference(self) -> int:
        return self.cells.count("X") - self.cells.count("O")
