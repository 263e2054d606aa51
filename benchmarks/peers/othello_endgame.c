/* An exact Othello endgame solver in plain C, the FFORUM benchmark's independent check and
 * its one-core peer (written for this benchmark; a plain solver, not a tuned engine).
 *
 * Input, one position a line: 64 squares a1 b1 ... h1 a2 ... h8 ('X' black, 'O' white,
 * '-' empty), a space, the side to move ('X' or 'O'), anything after ignored.
 * Output, for each legal move of each position: "<line> <move> <score> <nodes>", the score
 * the exact final disc difference for the side to move after that move under perfect play
 * (empty squares of a finished game given to the winner), nodes the search's count.
 *
 * Search: fail-soft negamax alpha-beta over bitboards; with more than SORT_EMPTIES empty
 * squares, moves are tried fastest first (fewest replies left to the opponent) and nodes
 * are kept in a 2^22-entry table of bounds. Every move is searched with the full window
 * (each move's exact score is wanted, not only the best one).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t board_t;

enum { SORT_EMPTIES = 6, TABLE_BITS = 22, LINE_MAX_CHARS = 512 };

static long long node_count;

/* one step in direction d on the 8x8 board (bit = rank * 8 + file), no wrap across files */
static board_t shift(board_t b, int d) {
    const board_t not_a = 0xfefefefefefefefeULL, not_h = 0x7f7f7f7f7f7f7f7fULL;
    switch (d) {
    case 0: return (b << 1) & not_a;
    case 1: return (b >> 1) & not_h;
    case 2: return b << 8;
    case 3: return b >> 8;
    case 4: return (b << 9) & not_a;
    case 5: return (b << 7) & not_h;
    case 6: return (b >> 7) & not_a;
    default: return (b >> 9) & not_h;
    }
}

static board_t legal_moves(board_t me, board_t them) {
    board_t moves = 0, empty = ~(me | them);
    for (int d = 0; d < 8; d++) {
        board_t run = shift(me, d) & them;
        for (int k = 0; k < 5; k++) run |= shift(run, d) & them;
        moves |= shift(run, d) & empty;
    }
    return moves;
}

static board_t flipped(board_t me, board_t them, int square) {
    board_t all = 0;
    for (int d = 0; d < 8; d++) {
        board_t run = 0, at = shift(1ULL << square, d);
        while (at & them) {
            run |= at;
            at = shift(at, d);
        }
        if (at & me) all |= run;
    }
    return all;
}

static int count(board_t b) { return __builtin_popcountll(b); }

static int final_score(board_t me, board_t them) {
    int diff = count(me) - count(them), empty = 64 - count(me | them);
    return diff > 0 ? diff + empty : diff < 0 ? diff - empty : 0;
}

typedef struct {
    board_t me, them;
    signed char lower, upper;
} entry_t;

static entry_t *table;

static entry_t *slot_of(board_t me, board_t them) {
    uint64_t h = me * 0x9E3779B97F4A7C15ULL ^ (them + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return &table[(h ^ (h >> 29)) & ((1ULL << TABLE_BITS) - 1)];
}

static int solve(board_t me, board_t them, int alpha, int beta, int passed) {
    node_count++;
    board_t moves = legal_moves(me, them);
    if (!moves) {
        if (passed) return final_score(me, them);
        return -solve(them, me, -beta, -alpha, 1);
    }
    int empties = 64 - count(me | them);
    entry_t *entry = NULL;
    if (empties > SORT_EMPTIES) {
        entry = slot_of(me, them);
        if (entry->me == me && entry->them == them) {
            if (entry->lower >= beta) return entry->lower;
            if (entry->upper <= alpha) return entry->upper;
            if (entry->lower > alpha) alpha = entry->lower;
            if (entry->upper < beta) beta = entry->upper;
            if (alpha >= beta) return alpha;
        }
    }
    int alpha0 = alpha, n = 0, squares[32], replies[32];
    for (board_t rest = moves; rest; rest &= rest - 1) {
        int sq = __builtin_ctzll(rest);
        replies[n] = 0;
        if (empties > SORT_EMPTIES) {
            board_t f = flipped(me, them, sq);
            replies[n] = count(legal_moves(them & ~f, me | f | (1ULL << sq)));
        }
        /* insertion by fewest replies; equal keys keep square order */
        int j = n++;
        while (j > 0 && replies[j - 1] > replies[n - 1]) j--;
        int key = replies[n - 1];
        memmove(&squares[j + 1], &squares[j], (size_t)(n - 1 - j) * sizeof(int));
        memmove(&replies[j + 1], &replies[j], (size_t)(n - 1 - j) * sizeof(int));
        squares[j] = sq;
        replies[j] = key;
    }
    int best = -127;
    for (int i = 0; i < n && best < beta; i++) {
        board_t f = flipped(me, them, squares[i]);
        int v = -solve(them & ~f, me | f | (1ULL << squares[i]), -beta, -alpha, 0);
        if (v > best) best = v;
        if (v > alpha) alpha = v;
    }
    if (entry) {
        entry->me = me;
        entry->them = them;
        entry->lower = best >= beta ? best : (best > alpha0 ? best : -127);
        entry->upper = best <= alpha0 ? best : (best < beta ? best : 127);
    }
    return best;
}

int main(void) {
    table = calloc((size_t)1 << TABLE_BITS, sizeof(entry_t));
    if (!table) return 2;
    char line[LINE_MAX_CHARS];
    for (int number = 1; fgets(line, sizeof line, stdin); number++) {
        if (strlen(line) < 66 || (line[65] != 'X' && line[65] != 'O')) {
            printf("%d bad-line 0 0\n", number);
            continue;
        }
        board_t black = 0, white = 0;
        for (int i = 0; i < 64; i++) {
            if (line[i] == 'X') black |= 1ULL << i;
            if (line[i] == 'O') white |= 1ULL << i;
        }
        board_t me = line[65] == 'X' ? black : white, them = line[65] == 'X' ? white : black;
        for (board_t rest = legal_moves(me, them); rest; rest &= rest - 1) {
            int sq = __builtin_ctzll(rest);
            board_t f = flipped(me, them, sq);
            node_count = 0;
            int score = -solve(them & ~f, me | f | (1ULL << sq), -64, 64, 0);
            printf("%d %c%d %d %lld\n", number, 'a' + sq % 8, sq / 8 + 1, score, node_count);
            fflush(stdout);
        }
    }
    free(table);
    return 0;
}
