/*
 * cake_steps.h: the pyramid's tables and the steps of eating in Special Cake, written once for
 * the three compiled pieces that eat: the move generator (engine/_cakemoves.c), the exact solver
 * (solver/_cakesolver.c) and the table builder (tablebase/tbbuild.c). Each of them is a single
 * translation unit, so the tables below are static: every program or extension has its own,
 * filled by its own reader (from spheria.engine.board, handed in by Python or through a file),
 * and the steps are static inline for the hot loops. They follow spheria.engine.board.
 *
 * Filling: ABOVE, CHAIN / CHAIN_LEN (set_chain) and the segments (add_segment, after
 * clear_segments), then finish_tables() derives BELOW and SEG_HOLDS. SYM_T (set_symmetry) is
 * for the pieces that use the square's symmetries.
 */
#ifndef SPHERIA_CAKE_STEPS_H
#define SPHERIA_CAKE_STEPS_H

#include <stdint.h>
#include <string.h>

#define NSITES 30
#define MAX_SEGMENTS 256
#define MAX_SEG_LEN 4

static uint32_t ABOVE[NSITES]; /* the sites resting on a site */
static uint32_t BELOW[NSITES]; /* the sites a site rests on */
static uint8_t CHAIN[NSITES][NSITES][MAX_SEG_LEN]; /* CHAIN[s][t]: s, t, ... up that diagonal */
static uint8_t CHAIN_LEN[NSITES][NSITES];
static int NSEG;
static uint32_t SEG_MASK[MAX_SEGMENTS];
static uint32_t SEG_HOLDS[MAX_SEGMENTS]; /* every site resting on a site of the segment */
static uint8_t SEG_SITES[MAX_SEGMENTS][MAX_SEG_LEN];
static uint8_t SEG_LEN[MAX_SEGMENTS];
/* image of a mask under symmetry k, by byte of the mask (unused by the move generator) */
static __attribute__((unused)) uint32_t SYM_T[8][4][256];

/* ---- filling the tables --------------------------------------------------------------- */

/* The rising chain sites[0..n): from sites[0] through sites[1] and up that diagonal. */
static inline void set_chain(const int *sites, int n) {
    CHAIN_LEN[sites[0]][sites[1]] = (uint8_t)n;
    for (int k = 0; k < n; k++) CHAIN[sites[0]][sites[1]][k] = (uint8_t)sites[k];
}

static inline void clear_segments(void) { NSEG = 0; }

/* One more nameable line, sites[0..n) in the order of board.SEGMENTS (room is the caller's check). */
static inline void add_segment(const int *sites, int n) {
    SEG_LEN[NSEG] = (uint8_t)n;
    SEG_MASK[NSEG] = 0;
    for (int k = 0; k < n; k++) {
        SEG_SITES[NSEG][k] = (uint8_t)sites[k];
        SEG_MASK[NSEG] |= UINT32_C(1) << sites[k];
    }
    NSEG++;
}

/* What follows from ABOVE and the segments: BELOW and SEG_HOLDS. */
static inline void finish_tables(void) {
    memset(BELOW, 0, sizeof BELOW);
    for (int s = 0; s < NSITES; s++)
        for (int t = 0; t < NSITES; t++)
            if (ABOVE[s] >> t & 1) BELOW[t] |= UINT32_C(1) << s;
    for (int g = 0; g < NSEG; g++) {
        SEG_HOLDS[g] = 0;
        for (int k = 0; k < SEG_LEN[g]; k++) SEG_HOLDS[g] |= ABOVE[SEG_SITES[g][k]];
    }
}

/* Symmetry k of the square as the site permutation perm[0..NSITES). */
static inline void set_symmetry(int k, const int *perm) {
    for (int chunk = 0; chunk < 4; chunk++)
        for (int byte = 0; byte < 256; byte++) {
            uint32_t image = 0;
            for (int bit = 0; bit < 8; bit++) {
                int s = chunk * 8 + bit;
                if (s < NSITES && (byte >> bit & 1)) image |= UINT32_C(1) << perm[s];
            }
            SYM_T[k][chunk][byte] = image;
        }
}

/* ---- the steps ------------------------------------------------------------------------ */

/* A ball is pinned when it holds up two or more balls. */
static inline int pinned(int s, uint32_t occ) {
    uint32_t held = ABOVE[s] & occ;
    return (held & (held - 1)) != 0;
}

static inline uint32_t sym_mask(int k, uint32_t m) {
    return SYM_T[k][0][m & 255] | SYM_T[k][1][(m >> 8) & 255] | SYM_T[k][2][(m >> 16) & 255] |
           SYM_T[k][3][(m >> 24) & 255];
}

/* The sites that shift when the ball on s leaves (s unpinned), into chain; returns how many:
   as board.drop_chain. */
static inline int drop_chain(uint32_t occ, int s, uint8_t *chain) {
    uint32_t held = ABOVE[s] & occ;
    chain[0] = (uint8_t)s;
    if (!held) return 1;
    int t = 31 - __builtin_clz(held);
    const uint8_t *full = CHAIN[s][t];
    int len = CHAIN_LEN[s][t];
    chain[1] = (uint8_t)t;
    int n = 2;
    while (n < len && (occ >> full[n] & 1)) {
        chain[n] = full[n];
        n++;
    }
    return n;
}

/* One mask after the chain drops (the ball on chain[0] eaten): as board.shift_down. */
static inline uint32_t shift_down(uint32_t m, const uint8_t *chain, int n) {
    uint32_t out = m & ~(UINT32_C(1) << chain[0]);
    for (int i = 1; i < n; i++) {
        out &= ~(UINT32_C(1) << chain[i]);
        if (m >> chain[i] & 1) out |= UINT32_C(1) << chain[i - 1];
    }
    return out;
}

/* A line's candies on pos[0..n), the one on pos[i] eaten with drop chain[0..len): where the
   n - 1 others are now, in their order, into rest (a candy on the chain dropped one step). */
static inline void line_rest(const uint8_t *pos, int n, int i, const uint8_t *chain, int len, uint8_t *rest) {
    int k = 0;
    for (int j = 0; j < n; j++) {
        if (j == i) continue;
        int o = pos[j];
        for (int q = 1; q < len; q++) {
            if (chain[q] == o) {
                o = chain[q - 1];
                break;
            }
        }
        rest[k++] = (uint8_t)o;
    }
}

#endif
