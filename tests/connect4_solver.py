"""A connect-four solver from the definition of Pons's score, in pure Python (negamax with
alpha-beta over column stacks): the oracle of the alpha-beta tests, written for the tests
and independent of the JAX game and search."""

from __future__ import annotations


def play(cols: tuple, col: int, who: int) -> tuple:
    return cols[:col] + (cols[col] + (who,),) + cols[col + 1 :]


def completes_line(cols: tuple, col: int, width: int, connect: int = 4) -> bool:
    """Does the top stone of column ``col`` lie on a line of ``connect`` of its colour?"""
    row = len(cols[col]) - 1
    who = cols[col][row]
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < width and 0 <= r < len(cols[c]) and cols[c][r] == who:
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= connect:
            return True
    return False


class PonsSolver:
    """Connect-four scores as Pascal Pons's solver defines them, by plain-Python negamax.

    Score for the player to move: ``(cells + 1 - stones) // 2`` if the mover can win with
    the next stone, and so on down (positive: the mover wins, the sooner the larger; 0: a
    draw; negative: the mover loses). Negamax alpha-beta over column tuples, the centre
    columns first, an immediate win found before any search, the window clipped to the best
    score still possible, a dict of lower/upper bounds per position, and the exact score
    found by null-window probes (Pons's ``solve``).
    """

    def __init__(self, width: int = 7, height: int = 6) -> None:
        self.width, self.height, self.cells = width, height, width * height
        self.order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
        self.bounds: dict[tuple, tuple[int, int]] = {}

    @staticmethod
    def ends(moves: str, action: int, width: int = 7, height: int = 6) -> bool:
        """Does playing ``action`` after ``moves`` end the game (a line or a full board)?"""
        cols = PonsSolver.columns(moves, width)
        after = play(cols, action, len(moves) % 2)
        return completes_line(after, action, width) or len(moves) + 1 == width * height

    @staticmethod
    def columns(moves: str, width: int = 7) -> tuple:
        cols = [()] * width
        for i, ch in enumerate(moves):
            c = int(ch) - 1
            cols[c] = cols[c] + (i % 2,)
        return tuple(cols)

    def score(self, moves: str) -> int:
        cols = self.columns(moves, self.width)
        stones = len(moves)
        low, high = -(self.cells - stones) // 2, (self.cells + 1 - stones) // 2
        while low < high:  # binary search with null windows, as in Pons's solver
            mid = low + (high - low) // 2
            if mid <= 0 and low // 2 < mid:
                mid = low // 2
            elif mid >= 0 and high // 2 > mid:
                mid = high // 2
            r = self.negamax(cols, stones, mid, mid + 1)
            if r <= mid:
                high = r
            else:
                low = r
        return low

    def negamax(self, cols: tuple, stones: int, alpha: int, beta: int) -> int:
        me = stones % 2
        moves = [c for c in self.order if len(cols[c]) < self.height]
        for c in moves:
            if completes_line(play(cols, c, me), c, self.width):
                return (self.cells + 1 - stones) // 2
        if stones + 1 == self.cells:
            return 0  # the last stone, and it does not win
        best_possible = (self.cells - 1 - stones) // 2
        if beta > best_possible:
            beta = best_possible
            if alpha >= beta:
                return beta
        low, high = self.bounds.get(cols, (-self.cells, self.cells))
        if high < beta:
            beta = high
            if alpha >= beta:
                return beta
        if low > alpha:
            alpha = low
            if alpha >= beta:
                return alpha
        alpha0, beta0 = alpha, beta
        best = -self.cells
        for c in moves:
            v = -self.negamax(play(cols, c, me), stones + 1, -beta, -alpha)
            best = max(best, v)
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        if best <= alpha0:
            high = min(high, best)
        elif best >= beta0:
            low = max(low, best)
        else:
            low = high = best
        self.bounds[cols] = (low, high)
        return best
