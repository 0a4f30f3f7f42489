/*
 * tbbuild: the retrograde builder of Special Cake's eating-phase table (mint, no cherry).
 *
 * Compiled on demand by `spheria tablebase build` (spheria.games.special_cake.tablebase.build) and run as a
 * separate program; the board tables come from spheria.engine.board through a text file, so
 * the moves generated here are those of the engine (the same tables _cakesolver uses).
 *
 * The table holds one bit per eating position (shape, colouring): 1 when the player to move
 * wins. A level is every position with n candies; shapes (stable occupancy masks inside the
 * universe) are sorted by mask within the level, and a position's index is
 *     shape_rank * per_shape + woff[w] + colex rank of the white pattern,
 * where the white pattern is the white mask compressed onto the occupied sites (pext), w its
 * number of whites, and every shape of the level holds the same per_shape colourings (w and
 * n - w both at most the cap). Level n reads only levels n-1 .. n-4 (a move eats 1 to 4).
 *
 * Only one position per orbit of (symmetries that keep the universe) x (white <-> black) is
 * searched: the least one of a canonical shape, by (whites, white mask). Its value is then
 * written to every image (the bit is set only for a win, so images of losses stay 0).
 *
 * Poisoned (the tables file says "cherry 1"): a position is also the cherry's site, always a ball
 * with nothing on it (nothing ever comes to rest on the cherry: it starts on top and only drops).
 * Level n then holds the positions with n candies besides the cherry, numbered by (shape,
 * cherry) pairs: the shapes of n + 1 balls sorted by mask, each shape's uncovered sites in
 * increasing order, every pair holding the same per_shape colourings of its n other sites:
 *     pair_rank * per_shape + woff[w] + colex rank of the white pattern on the other sites.
 * The cherry is never eaten (the position with the cherry alone is lost for the player to move)
 * and is never part of a line. The symmetries map pairs onto pairs; the colour swap keeps the
 * cherry.
 *
 * Each finished level is written to DIR/level-NN.bin (header + bits, renamed into place), and
 * a run resumes from the levels it finds there. A level file holds nothing that depends on how
 * or where it was computed, so every build of the same tables writes the same bytes; the time
 * a level took goes to DIR/build-times.txt instead (one line appended per level written). Once the eating table is complete the set-up
 * table follows (DIR/setup-NN.bin, bit = Mint wins), from the full cakes down to the empty
 * table. See docs/tablebase.md.
 *
 * A level may be computed in chunks (--chunks K): chunk I takes every K-th canonical block
 * (from the I-th) and writes the blocks of their orbits to DIR/level-NN.chunk-III-of-KKK.bin;
 * the chunks are disjoint, so merging them gives the level's bits whatever computed them. A
 * build with --chunks resumes from its finished chunks; --level N --chunk I computes one chunk
 * alone (from the finished levels below, as a worker on another machine would), --level N
 * --merge assembles level N from its K chunk files.
 *
 * usage: tbbuild TABLES DIR [--threads N] [--upto LEVEL] [--no-symmetry] [--no-setup] [--plan]
 *                [--chunks K [--level N (--chunk I | --merge)]] [--reachable]
 *
 * --reachable counts, from a finished build, the set-up positions an alternating order of
 * placements reaches, and the full cakes among them that Mint wins.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __BMI2__
#include <immintrin.h>
#endif

#include "cake_steps.h"

#define MAX_LEVELS (NSITES + 1)
#define BLOCK 4096
#define FORMAT_VERSION 1
/* The level files' header: version 2 keeps no time (its last field is 0); version 1 (written
   before) kept the level's seconds there and is still read: its bits are the same. */
#define FILE_VERSION 2
#define TIMED_FILE_VERSION 1
#define TIMES_FILE "build-times.txt"
/* Two tables share the layout of shapes: the eating table (level-NN.bin, bit = the player to
   move wins) and the set-up table (setup-NN.bin, bit = Mint wins). */
enum { EATING = 0, SETUP = 1 };
static const char MAGIC[2][8] = {{'S', 'P', 'H', 'T', 'B', 'L', 'V', 'L'}, {'S', 'P', 'H', 'T', 'B', 'S', 'E', 'T'}};
static const char *const FILE_PREFIX[2] = {"level", "setup"};

enum { RULE_MIXED = 0, RULE_SAME = 1 };

/* ---- board tables (from the tables file) ---------------------------------------------- */

static uint32_t UNIVERSE;
static int CAP;
static int RULE;
static int CHERRY; /* poisoned: every position also has the cherry, on a site with nothing on it */
/* ABOVE, CHAIN, the segments and SYM_T are cake_steps.h's; here the segments by length too */
static int NSEG_OF[MAX_SEG_LEN + 1], SEG_OF[MAX_SEG_LEN + 1][MAX_SEGMENTS];
static int NSYM;
static uint64_t CONFIG_HASH;

static uint64_t BINOM[NSITES + 1][NSITES + 1];
static uint32_t RANK_T[4][NSITES + 1][256]; /* colex rank contribution of a byte, by ones before it */

static void die(const char *fmt, const char *arg) {
    fprintf(stderr, "tbbuild: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(2);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* The tables file: one record per line, "key v1 v2 ...". Its bytes make the config hash. */
static void read_tables(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot read the tables file %s", path);
    char line[4096];
    int nabove = 0, have_universe = 0, have_cap = 0;
    CONFIG_HASH = UINT64_C(0xcbf29ce484222325);
    while (fgets(line, sizeof line, f)) {
        CONFIG_HASH = fnv1a(line, strlen(line), CONFIG_HASH);
        char *save = NULL;
        char *key = strtok_r(line, " \n", &save);
        if (!key) continue;
        int v[NSITES + 2]; /* every number of the file is below 2^30 */
        int n = 0;
        for (char *tok; (tok = strtok_r(NULL, " \n", &save)) && n < NSITES + 2;) v[n++] = (int)strtol(tok, NULL, 10);
        if (!strcmp(key, "format") && n == 1) {
            if (v[0] != FORMAT_VERSION) die("%s: made for another format of the builder", path);
        } else if (!strcmp(key, "universe") && n == 1) {
            UNIVERSE = (uint32_t)v[0];
            have_universe = 1;
        } else if (!strcmp(key, "cap") && n == 1) {
            CAP = (int)v[0];
            have_cap = 1;
        } else if (!strcmp(key, "cherry") && n == 1 && (v[0] == 0 || v[0] == 1)) {
            CHERRY = v[0];
        } else if (!strcmp(key, "rule") && n == 1) {
            RULE = (int)v[0];
        } else if (!strcmp(key, "above") && n == 2 && v[0] >= 0 && v[0] < NSITES) {
            ABOVE[v[0]] = (uint32_t)v[1];
            nabove++;
        } else if (!strcmp(key, "chain") && n >= 2 && n <= MAX_SEG_LEN) {
            set_chain(v, n);
        } else if (!strcmp(key, "segment") && n >= 2 && n <= MAX_SEG_LEN && NSEG < MAX_SEGMENTS) {
            add_segment(v, n);
        } else if (!strcmp(key, "symmetry") && n == NSITES && NSYM < 8) {
            set_symmetry(NSYM++, v);
        } else {
            die("malformed line in the tables file: %s", key);
        }
    }
    fclose(f);
    if (nabove != NSITES || !have_universe || !have_cap || NSYM < 1) die("%s: incomplete tables", path);
    if (CAP < 0 || CAP > NSITES / 2 + 1) die("%s: cap out of range", path);
    finish_tables();
    for (int g = 0; g < NSEG; g++) SEG_OF[SEG_LEN[g]][NSEG_OF[SEG_LEN[g]]++] = g;
    for (int k = 0; k < NSYM; k++)
        if (sym_mask(k, UNIVERSE) != UNIVERSE) die("%s: a symmetry does not keep the universe", path);
}

static void init_combinatorics(void) {
    for (int n = 0; n <= NSITES; n++) {
        BINOM[n][0] = 1;
        for (int k = 1; k <= n; k++) BINOM[n][k] = BINOM[n - 1][k - 1] + (k <= n - 1 ? BINOM[n - 1][k] : 0);
    }
    /* colex rank of a pattern = sum over its set bits (position p, j-th set bit from 0) of C(p, j+1) */
    for (int chunk = 0; chunk < 4; chunk++)
        for (int before = 0; before <= NSITES; before++)
            for (int byte = 0; byte < 256; byte++) {
                uint64_t r = 0;
                int j = before;
                for (int bit = 0; bit < 8; bit++) {
                    int p = chunk * 8 + bit;
                    if (!(byte >> bit & 1)) continue;
                    if (p < NSITES && j + 1 <= NSITES) r += BINOM[p][j + 1];
                    j++;
                }
                RANK_T[chunk][before][byte] = (uint32_t)r;
            }
}

static inline uint32_t colex_rank(uint32_t pattern) {
    int c0 = __builtin_popcount(pattern & 0xFF), c1 = c0 + __builtin_popcount(pattern & 0xFF00),
        c2 = c1 + __builtin_popcount(pattern & 0xFF0000);
    return RANK_T[0][0][pattern & 255] + RANK_T[1][c0][(pattern >> 8) & 255] + RANK_T[2][c1][(pattern >> 16) & 255] +
           RANK_T[3][c2][pattern >> 24];
}

static uint32_t colex_unrank(uint64_t r, int w) {
    uint32_t pattern = 0;
    for (int j = w; j >= 1; j--) {
        int p = j - 1;
        while (p + 1 < NSITES && BINOM[p + 1][j] <= r) p++;
        pattern |= UINT32_C(1) << p;
        r -= BINOM[p][j];
    }
    return pattern;
}

static inline uint32_t next_combination(uint32_t x) {
    uint32_t t = x | (x - 1);
    return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(x) + 1));
}

#ifdef __BMI2__
static inline uint32_t pext32(uint32_t x, uint32_t m) { return _pext_u32(x, m); }
static inline uint32_t pdep32(uint32_t x, uint32_t m) { return _pdep_u32(x, m); }
#else
static inline uint32_t pext32(uint32_t x, uint32_t m) {
    uint32_t out = 0;
    int k = 0;
    for (; m; m &= m - 1, k++)
        if (x & m & -m) out |= UINT32_C(1) << k;
    return out;
}
static inline uint32_t pdep32(uint32_t x, uint32_t m) {
    uint32_t out = 0;
    for (; m; m &= m - 1, x >>= 1)
        if (x & 1) out |= m & -m;
    return out;
}
#endif

/* ---- shapes --------------------------------------------------------------------------- */

typedef struct {
    uint32_t count;
    uint32_t *masks;  /* sorted; poisoned: a pair's shape, each shape once per uncovered site */
    uint8_t *cherry;  /* poisoned: a pair's cherry site (increasing within a shape); else NULL */
    uint64_t per_shape;
    uint64_t woff[NSITES + 2];
    int wlo, whi;
    uint64_t bits;
    uint64_t words;
} Level;

static Level LV[MAX_LEVELS];
static int TOP_LEVEL; /* candies in a full universe (besides the cherry) */
#define HASH_BITS 18 /* 141,120 shapes: a 2 MiB table, a little over half full */
static uint64_t HASH[1u << HASH_BITS]; /* (mask | 1 << 31) << 32 | rank (poisoned: its first pair); 0 = empty */
/* The set-up's levels: the shapes of k balls (for mint, the eating levels themselves; poisoned
   has its own, since its eating levels are (shape, cherry) pairs), and their ranks. */
static Level SETUP_STORE[MAX_LEVELS];
static Level *SLV = LV;
static uint64_t SETUP_HASH_STORE[1u << HASH_BITS];
static uint64_t *SHASH = HASH;

static uint32_t *all_shapes;
static size_t nshapes, cap_shapes;

static void enumerate(int s, uint32_t chosen) {
    while (s < NSITES && !(UNIVERSE >> s & 1)) s++;
    if (s == NSITES) {
        if (nshapes == cap_shapes) {
            cap_shapes = cap_shapes ? 2 * cap_shapes : 1024;
            all_shapes = realloc(all_shapes, cap_shapes * sizeof *all_shapes);
            if (!all_shapes) die("%s", "out of memory");
        }
        all_shapes[nshapes++] = chosen;
        return;
    }
    enumerate(s + 1, chosen);
    if ((chosen & BELOW[s]) == BELOW[s]) enumerate(s + 1, chosen | UINT32_C(1) << s);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static inline uint32_t hslot(uint32_t mask) { return (uint32_t)((mask * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & ((1u << HASH_BITS) - 1); }

static inline uint32_t rank_in(const uint64_t *table, uint32_t mask) {
    uint32_t h = hslot(mask), key = mask | 0x80000000u;
    while ((uint32_t)(table[h] >> 32) != key) h = (h + 1) & ((1u << HASH_BITS) - 1);
    return (uint32_t)table[h];
}

static inline uint32_t shape_rank(uint32_t mask) { return rank_in(HASH, mask); }
static inline uint32_t setup_rank(uint32_t mask) { return rank_in(SHASH, mask); }

static void hash_insert(uint64_t *table, uint32_t mask, uint32_t rank) {
    uint32_t h = hslot(mask);
    while (table[h]) h = (h + 1) & ((1u << HASH_BITS) - 1);
    table[h] = (uint64_t)(mask | 0x80000000u) << 32 | rank;
}

/* The balls of occ with nothing on them: where the cherry may be. */
static inline uint32_t uncovered(uint32_t occ) {
    uint32_t holding = 0;
    for (uint32_t m = occ; m; m &= m - 1) holding |= BELOW[__builtin_ctz(m)];
    return occ & ~holding;
}

static void build_shapes(void) {
    enumerate(0, 0);
    qsort(all_shapes, nshapes, sizeof *all_shapes, cmp_u32);
    TOP_LEVEL = __builtin_popcount(UNIVERSE) - CHERRY;
    for (int n = 0; n <= TOP_LEVEL; n++) {
        Level *L = &LV[n];
        size_t room = 0;
        for (size_t i = 0; i < nshapes; i++)
            if (__builtin_popcount(all_shapes[i]) == n + CHERRY) room += CHERRY ? (size_t)__builtin_popcount(uncovered(all_shapes[i])) : 1;
        L->masks = malloc((room + 1) * sizeof(uint32_t));
        L->cherry = CHERRY ? malloc(room + 1) : NULL;
        if (!L->masks || (CHERRY && !L->cherry)) die("%s", "out of memory");
        L->count = 0;
        for (size_t i = 0; i < nshapes; i++) {
            uint32_t occ = all_shapes[i];
            if (__builtin_popcount(occ) != n + CHERRY) continue;
            if (!CHERRY) {
                L->masks[L->count++] = occ;
                continue;
            }
            hash_insert(HASH, occ, L->count);
            for (uint32_t u = uncovered(occ); u; u &= u - 1) {
                L->masks[L->count] = occ;
                L->cherry[L->count++] = (uint8_t)__builtin_ctz(u);
            }
        }
        L->wlo = n - CAP > 0 ? n - CAP : 0;
        L->whi = n < CAP ? n : CAP;
        L->per_shape = 0;
        for (int w = L->wlo; w <= L->whi; w++) {
            L->woff[w] = L->per_shape;
            L->per_shape += BINOM[n][w];
        }
        L->bits = (uint64_t)L->count * L->per_shape;
        L->words = (L->bits + 63) / 64;
        for (uint32_t i = 0; i < L->count && !CHERRY; i++) hash_insert(HASH, L->masks[i], i);
    }
    if (!CHERRY) return;
    /* poisoned's set-up: the shapes of k = 0 .. TOP_LEVEL balls (the cherry comes last) */
    SLV = SETUP_STORE;
    SHASH = SETUP_HASH_STORE;
    for (int k = 0; k <= TOP_LEVEL; k++) {
        Level *S = &SLV[k];
        S->masks = malloc((nshapes + 1) * sizeof(uint32_t));
        if (!S->masks) die("%s", "out of memory");
        S->count = 0;
        for (size_t i = 0; i < nshapes; i++)
            if (__builtin_popcount(all_shapes[i]) == k) {
                hash_insert(SHASH, all_shapes[i], S->count);
                S->masks[S->count++] = all_shapes[i];
            }
    }
}

/* ---- level storage -------------------------------------------------------------------- */

static uint64_t *TBITS[2][MAX_LEVELS]; /* loaded or computed levels, NULL when not held */
#define BITS (TBITS[EATING])
#define SBITS (TBITS[SETUP])
static uint64_t SETUP_PER[MAX_LEVELS]; /* set-up colourings of a shape: C(k, ceil(k/2)) */

static inline uint64_t per_shape_of(int kind, int n) { return kind == SETUP ? SETUP_PER[n] : LV[n].per_shape; }
static inline uint32_t blocks_of(int kind, int n) { return kind == SETUP ? SLV[n].count : LV[n].count; }
static inline uint64_t words_of(int kind, int n) { return ((uint64_t)blocks_of(kind, n) * per_shape_of(kind, n) + 63) / 64; }

/* Where the positions of shape occ (poisoned: with the cherry on cherry_bit) start in their level. */
static inline uint64_t block_base(const Level *L, uint32_t occ, uint32_t cherry_bit) {
    uint64_t rank = shape_rank(occ);
    if (CHERRY) rank += (uint64_t)__builtin_popcount(uncovered(occ) & (cherry_bit - 1));
    return rank * L->per_shape;
}

typedef struct {
    char magic[8];
    uint32_t version, level;
    uint64_t shapes, per_shape, config_hash, checksum, wins, seconds_x1000; /* 0 from FILE_VERSION 2 */
} Header;

static uint64_t checksum(const uint64_t *words, uint64_t n) {
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15);
    for (uint64_t i = 0; i < n; i++) h = (h ^ words[i]) * UINT64_C(0xff51afd7ed558ccd) + i;
    return h;
}

static uint64_t count_wins(const uint64_t *words, uint64_t n) {
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(words[i]);
    return c;
}

static void level_path(char *out, size_t size, const char *dir, int kind, int n) {
    snprintf(out, size, "%s/%s-%02d.bin", dir, FILE_PREFIX[kind], n);
}

/* Whether level n's file is there with a header of this build (its bits are not read). */
static int header_ok(const char *dir, int kind, int n, Header *h) {
    char path[4096];
    level_path(path, sizeof path, dir, kind, n);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = fread(h, sizeof *h, 1, f) == 1 && !memcmp(h->magic, MAGIC[kind], 8) &&
             (h->version == FILE_VERSION || h->version == TIMED_FILE_VERSION) &&
             h->level == (uint32_t)n && h->shapes == blocks_of(kind, n) && h->per_shape == per_shape_of(kind, n) &&
             h->config_hash == CONFIG_HASH;
    fclose(f);
    return ok;
}

/* Load a finished level whole; 0 when it is missing, of another build, truncated or corrupt. */
static int load_level(const char *dir, int kind, int n) {
    char path[4096];
    level_path(path, sizeof path, dir, kind, n);
    Header h;
    if (!header_ok(dir, kind, n, &h)) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint64_t words = words_of(kind, n);
    uint64_t *data = malloc(words * 8 + 8);
    int ok = data && fseek(f, (long)sizeof h, SEEK_SET) == 0 && fread(data, 8, words, f) == words &&
             checksum(data, words) == h.checksum;
    fclose(f);
    if (!ok) {
        free(data);
        printf("%s %2d  %s is damaged: computing it again\n", FILE_PREFIX[kind], n, path);
        return 0;
    }
    TBITS[kind][n] = data;
    return 1;
}

/* Append the time level n took to DIR/build-times.txt ("level 25 57.301"): the level file keeps none. */
static void record_time(const char *dir, int kind, int n, double seconds) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, TIMES_FILE);
    FILE *f = fopen(path, "a");
    if (!f) die("cannot write %s", path);
    fprintf(f, "%s %d %.3f\n", FILE_PREFIX[kind], n, seconds);
    if (fclose(f) != 0) die("cannot write %s", path);
}

static void save_level(const char *dir, int kind, int n, double seconds) {
    char path[4096], tmp[4200];
    level_path(path, sizeof path, dir, kind, n);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    uint64_t words = words_of(kind, n);
    const uint64_t *data = TBITS[kind][n];
    Header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC[kind], 8);
    h.version = FILE_VERSION;
    h.level = (uint32_t)n;
    h.shapes = blocks_of(kind, n);
    h.per_shape = per_shape_of(kind, n);
    h.config_hash = CONFIG_HASH;
    h.checksum = checksum(data, words);
    h.wins = count_wins(data, words);
    FILE *f = fopen(tmp, "wb");
    if (!f) die("cannot write %s", tmp);
    if (fwrite(&h, sizeof h, 1, f) != 1 || fwrite(data, 8, words, f) != words || fflush(f) != 0 ||
        fsync(fileno(f)) != 0)
        die("cannot write %s", tmp);
    fclose(f);
    if (rename(tmp, path) != 0) die("cannot rename into %s", path);
    record_time(dir, kind, n, seconds);
}

/* ---- move generation (as spheria.games.special_cake.eating_outcomes, two colours) ----- */

/* Move sizes in the order children are tried at each level: the size whose children's level
   has the most lost positions first (a lost child proves the win), set as levels finish. */
static int SIZE_ORDER[MAX_LEVELS][MAX_SEG_LEN];
static double LOST_SHARE[MAX_LEVELS];

static void order_sizes(int n) {
    int *order = SIZE_ORDER[n];
    for (int i = 0; i < MAX_SEG_LEN; i++) order[i] = i + 1;
    for (int i = 1; i < MAX_SEG_LEN; i++)
        for (int j = i; j > 0; j--) {
            int la = n - order[j - 1], lb = n - order[j];
            double sa = la >= 0 ? LOST_SHARE[la] : -1.0, sb = lb >= 0 ? LOST_SHARE[lb] : -1.0;
            if (sb <= sa) break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

#define BATCH 8 /* children looked up at a time, their bits prefetched before any is read */

/* ---- moves of one shape ----------------------------------------------------------------- */
/* Which candies may be eaten, and where the others drop, depends on the shape alone; only a
   line's colour condition depends on the colouring. So the builder lists a shape's moves once
   (per block of colourings) as colour-blind transformations: a child shape, where that shape's
   positions start, and the drop steps to apply to the mint mask. Orders of one line that end
   in the same transformation are kept once. */

#define MAX_MOVES 400
typedef struct {
    uint32_t child_occ;
    uint32_t child_rest; /* the child's sites but the cherry's: where its colouring lies */
    uint32_t seg_mask; /* 0 for a single candy; else the line, whose colours the rule checks */
    uint64_t child_base;
    uint8_t nsteps;
    uint8_t len[MAX_SEG_LEN];
    uint8_t chain[MAX_SEG_LEN][MAX_SEG_LEN];
} Move;

typedef struct {
    int count[MAX_SEG_LEN + 1];
    Move moves[MAX_SEG_LEN + 1][MAX_MOVES];
} MoveList;

static inline uint32_t apply_steps(const Move *m, uint32_t mask) {
    for (int i = 0; i < m->nsteps; i++) mask = shift_down(mask, m->chain[i], m->len[i]);
    return mask;
}

static int same_transformation(const Move *a, const Move *b, uint32_t occ) {
    if (a->child_occ != b->child_occ) return 0;
    for (uint32_t m = occ; m; m &= m - 1)
        if (apply_steps(a, m & -m) != apply_steps(b, m & -m)) return 0;
    return 1;
}

static void add_move(MoveList *list, int size, Move *m, uint32_t occ, uint32_t cherry_bit, int first_of_line) {
    int level = __builtin_popcount(m->child_occ) - CHERRY;
    uint32_t child_cherry = apply_steps(m, cherry_bit);
    if ((child_cherry & uncovered(m->child_occ)) != child_cherry) die("%s", "a move left a ball on the cherry");
    m->child_rest = m->child_occ & ~child_cherry;
    m->child_base = block_base(&LV[level], m->child_occ, child_cherry);
    for (int i = first_of_line; i < list->count[size]; i++)
        if (same_transformation(&list->moves[size][i], m, occ)) return;
    if (list->count[size] == MAX_MOVES) die("%s", "too many moves of one size");
    list->moves[size][list->count[size]++] = *m;
}

/* The orders of eating the line candies now on pos[0..n), each unpinned when eaten. */
static void line_moves(MoveList *list, int size, uint32_t occ0, uint32_t cherry_bit, uint32_t occ, const uint8_t *pos,
                       int n, Move *m, int first_of_line) {
    for (int i = 0; i < n; i++) {
        int s = pos[i];
        if (pinned(s, occ)) continue;
        uint8_t chain[MAX_SEG_LEN];
        int len = drop_chain(occ, s, chain);
        int step = m->nsteps++;
        m->len[step] = (uint8_t)len;
        memcpy(m->chain[step], chain, (size_t)len);
        uint32_t nocc = shift_down(occ, chain, len);
        if (n == 1) {
            m->child_occ = nocc;
            add_move(list, size, m, occ0, cherry_bit, first_of_line);
        } else {
            uint8_t rest[MAX_SEG_LEN];
            line_rest(pos, n, i, chain, len, rest);
            line_moves(list, size, occ0, cherry_bit, nocc, rest, n - 1, m, first_of_line);
        }
        m->nsteps--;
    }
}

/* The moves of shape occ; poisoned: with the cherry on cherry_bit (never eaten, never in a line). */
static void list_moves(uint32_t occ, uint32_t cherry_bit, MoveList *list) {
    for (int size = 1; size <= MAX_SEG_LEN; size++) list->count[size] = 0;
    Move m;
    memset(&m, 0, sizeof m);
    for (uint32_t b = occ; b; b &= b - 1) {
        int s = __builtin_ctz(b);
        if (pinned(s, occ) || (cherry_bit >> s & 1)) continue;
        m.nsteps = 1;
        m.len[0] = (uint8_t)drop_chain(occ, s, m.chain[0]);
        m.child_occ = shift_down(occ, m.chain[0], m.len[0]);
        m.seg_mask = 0;
        add_move(list, 1, &m, occ, cherry_bit, list->count[1]);
    }
    for (int g = 0; g < NSEG; g++) {
        uint32_t sm = SEG_MASK[g];
        if ((occ & sm) != sm || (sm & cherry_bit)) continue;
        int size = SEG_LEN[g];
        m.seg_mask = sm;
        m.nsteps = 0;
        line_moves(list, size, occ, cherry_bit, occ, SEG_SITES[g], size, &m, list->count[size]);
    }
}

/* This thread's list of the moves of shape occ (listed again only when the shape changes). */
static __thread MoveList *THREAD_MOVES;
static __thread uint32_t THREAD_SHAPE, THREAD_CHERRY;
static __thread int THREAD_LISTED;

static const MoveList *thread_moves(uint32_t occ, uint32_t cherry_bit) {
    if (!THREAD_MOVES) {
        THREAD_MOVES = malloc(sizeof *THREAD_MOVES);
        if (!THREAD_MOVES) die("%s", "out of memory");
    }
    if (!THREAD_LISTED || THREAD_SHAPE != occ || THREAD_CHERRY != cherry_bit) {
        list_moves(occ, cherry_bit, THREAD_MOVES);
        THREAD_SHAPE = occ;
        THREAD_CHERRY = cherry_bit;
        THREAD_LISTED = 1;
    }
    return THREAD_MOVES;
}

/* 1 when the player to move at (rest, white) wins, with the shape's moves listed (rest: the
   candies' sites, the cherry's left out). */
static int wins_listed(int level, const MoveList *list, uint32_t rest, uint32_t white) {
    uint32_t black = rest & ~white;
    for (int k = 0; k < MAX_SEG_LEN; k++) {
        int size = SIZE_ORDER[level][k];
        if (size > level) continue;
        const Level *L = &LV[level - size];
        const uint64_t *bits = BITS[level - size];
        const Move *moves = list->moves[size];
        int n = list->count[size];
        for (int start = 0; start < n;) {
            const uint64_t *word[BATCH];
            int bit[BATCH], got = 0;
            for (; start < n && got < BATCH; start++) {
                const Move *m = &moves[start];
                if (m->seg_mask) {
                    int colours = ((white & m->seg_mask) != 0) + ((black & m->seg_mask) != 0);
                    if (RULE == RULE_MIXED ? colours < 2 : colours != 1) continue;
                }
                uint32_t pattern = pext32(apply_steps(m, white), m->child_rest);
                uint64_t idx = m->child_base + L->woff[__builtin_popcount(pattern)] + colex_rank(pattern);
                word[got] = &bits[idx >> 6];
                bit[got] = (int)(idx & 63);
                __builtin_prefetch(word[got]);
                got++;
            }
            for (int i = 0; i < got; i++)
                if (!(*word[i] >> bit[i] & 1)) return 1;
        }
    }
    return 0;
}

/* ---- one level ------------------------------------------------------------------------ */

typedef struct {
    uint32_t shape; /* rank within the level */
    uint8_t w;
    uint64_t start, end; /* colex ranks */
} Unit;

static inline void set_bit(uint64_t *words, uint64_t i) {
    __atomic_fetch_or(&words[i >> 6], UINT64_C(1) << (i & 63), __ATOMIC_RELAXED);
}

static int symmetry_on = 1;

/* Whether block i of level L (a shape; poisoned: a shape and the cherry's site) is the least of
   its images under the first nsym symmetries: only those are searched. */
static int canonical_block(const Level *L, uint32_t i, int nsym) {
    uint32_t occ = L->masks[i], cherry_bit = CHERRY ? UINT32_C(1) << L->cherry[i] : 0;
    for (int k = 1; k < nsym; k++) {
        uint32_t image = sym_mask(k, occ);
        if (image < occ || (image == occ && sym_mask(k, cherry_bit) < cherry_bit)) return 0;
    }
    return 1;
}

/* Level n's bits (BITS[n]); with chunks > 1 only those of chunk `chunk`'s canonical blocks' orbits. */
static uint64_t compute_level(int n, int threads, double build_start, uint64_t done_before, uint64_t total_all,
                              int chunk, int chunks) {
    (void)threads; /* without OpenMP: one thread */
    Level *L = &LV[n];
    BITS[n] = calloc(L->words + 1, 8);
    if (!BITS[n]) die("%s", "out of memory");
    if (n == 0) {
        /* mint: the empty cake, the opponent ate the last candy; poisoned: the cherry alone, lost */
        if (!CHERRY) BITS[0][0] = 1;
        return 1;
    }
    int nsym = symmetry_on ? NSYM : 1;
    /* work units: canonical shapes only, colourings with w <= n - w (the colour swap), in blocks */
    size_t nunits = 0, cap_units = 1024;
    Unit *units = malloc(cap_units * sizeof *units);
    uint64_t work = 0, canonical_seen = 0;
    for (uint32_t i = 0; i < L->count; i++) {
        if (!canonical_block(L, i, nsym)) continue;
        if (canonical_seen++ % (uint64_t)chunks != (uint64_t)chunk) continue;
        for (int w = L->wlo; w <= L->whi; w++) {
            if (symmetry_on && w > n - w) continue;
            for (uint64_t start = 0; start < BINOM[n][w]; start += BLOCK) {
                if (nunits == cap_units) {
                    cap_units *= 2;
                    units = realloc(units, cap_units * sizeof *units);
                    if (!units) die("%s", "out of memory");
                }
                uint64_t end = start + BLOCK < BINOM[n][w] ? start + BLOCK : BINOM[n][w];
                units[nunits++] = (Unit){i, (uint8_t)w, start, end};
                work += end - start;
            }
        }
    }
    double t0 = now(), last_print = t0;
    uint64_t done = 0, searched = 0;
    uint64_t *bits = BITS[n];
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : searched)
    for (size_t u = 0; u < nunits; u++) {
        const Unit *U = &units[u];
        uint32_t occ = L->masks[U->shape];
        uint32_t cherry_bit = CHERRY ? UINT32_C(1) << L->cherry[U->shape] : 0, rest = occ & ~cherry_bit;
        int w = U->w;
        const MoveList *moves = thread_moves(occ, cherry_bit);
        /* the symmetries that keep this shape (and the cherry's site) */
        int stab[8], nstab = 0;
        for (int k = 1; k < nsym; k++)
            if (sym_mask(k, occ) == occ && sym_mask(k, cherry_bit) == cherry_bit) stab[nstab++] = k;
        uint64_t image_base[8]; /* where each image of the shape starts */
        for (int k = 0; k < nsym; k++) image_base[k] = block_base(L, sym_mask(k, occ), sym_mask(k, cherry_bit));
        uint32_t image_occ[8]; /* the images' colourings lie on these sites */
        for (int k = 0; k < nsym; k++) image_occ[k] = sym_mask(k, rest);
        uint32_t pattern = colex_unrank(U->start, w);
        for (uint64_t r = U->start; r < U->end; r++) {
            uint32_t white = pdep32(pattern, rest), black = rest ^ white;
            if (w > 0 && r + 1 < U->end) pattern = next_combination(pattern);
            int canonical = 1;
            if (symmetry_on) {
                for (int j = 0; j < nstab && canonical; j++) canonical = sym_mask(stab[j], white) >= white;
                if (canonical && 2 * w == n) {
                    canonical = black >= white;
                    for (int j = 0; j < nstab && canonical; j++) canonical = sym_mask(stab[j], black) >= white;
                }
            }
            if (!canonical) continue;
            searched++;
            if (!wins_listed(n, moves, rest, white)) continue;
            set_bit(bits, (uint64_t)U->shape * L->per_shape + L->woff[w] + r);
            if (!symmetry_on) continue;
            for (int k = 0; k < nsym; k++) {
                uint32_t iw = pext32(sym_mask(k, white), image_occ[k]), ib = pext32(sym_mask(k, black), image_occ[k]);
                set_bit(bits, image_base[k] + L->woff[w] + colex_rank(iw));
                set_bit(bits, image_base[k] + L->woff[n - w] + colex_rank(ib));
            }
        }
        uint64_t d = __atomic_add_fetch(&done, U->end - U->start, __ATOMIC_RELAXED);
#ifdef _OPENMP
        int me = omp_get_thread_num();
#else
        int me = 0;
#endif
        double t = now();
        if (me == 0 && t - last_print >= 10.0) {
            last_print = t;
            double rate = (double)d / (t - t0);
            double all_rate = (double)(done_before + d) / (t - build_start);
            fprintf(stdout,
                    "level %2d  %5.1f%%  %" PRIu64 "/%" PRIu64 " canonical colourings  %.0f/s  level ETA %.0f s  "
                    "build ETA %.0f s\n",
                    n, 100.0 * (double)d / (double)work, d, work, rate, (double)(work - d) / rate,
                    (double)(total_all - done_before - d) / all_rate);
            fflush(stdout);
        }
    }
    free(units);
    return searched;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static long peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ---- chunks --------------------------------------------------------------------------- */

typedef struct {
    char magic[8];
    uint32_t version, level, chunk, chunks;
    uint64_t config_hash, per_shape, nblocks, searched, checksum, seconds_x1000;
} ChunkHeader;
static const char CHUNK_MAGIC[8] = {'S', 'P', 'H', 'T', 'B', 'C', 'H', 'K'};

static void chunk_path(char *out, size_t size, const char *dir, int n, int chunk, int chunks) {
    snprintf(out, size, "%s/level-%02d.chunk-%03d-of-%03d.bin", dir, n, chunk, chunks);
}

static int cmp_block(const void *a, const void *b) { return cmp_u32(a, b); }

/* The blocks chunk `chunk` of level n computes: the orbits of its canonical blocks, sorted. */
static uint32_t chunk_blocks(int n, int chunk, int chunks, uint32_t **out) {
    const Level *L = &LV[n];
    int nsym = symmetry_on ? NSYM : 1;
    uint32_t *blocks = malloc(((size_t)L->count + 1) * sizeof *blocks), count = 0;
    if (!blocks) die("%s", "out of memory");
    uint64_t canonical_seen = 0;
    for (uint32_t i = 0; i < L->count; i++) {
        if (!canonical_block(L, i, nsym)) continue;
        if (canonical_seen++ % (uint64_t)chunks != (uint64_t)chunk) continue;
        uint32_t occ = L->masks[i], cherry_bit = CHERRY ? UINT32_C(1) << L->cherry[i] : 0;
        uint32_t first = count;
        for (int k = 0; k < nsym; k++) {
            uint32_t b = (uint32_t)(block_base(L, sym_mask(k, occ), sym_mask(k, cherry_bit)) / L->per_shape);
            int seen = 0;
            for (uint32_t j = first; j < count && !seen; j++) seen = blocks[j] == b;
            if (!seen) blocks[count++] = b;
        }
    }
    qsort(blocks, count, sizeof *blocks, cmp_block);
    *out = blocks;
    return count;
}

static inline uint64_t bits_at(const uint64_t *w, uint64_t off) {
    uint64_t i = off >> 6;
    unsigned s = (unsigned)(off & 63);
    return s ? (w[i] >> s) | (w[i + 1] << (64 - s)) : w[i];
}

/* len bits of src from bit off, into dst (whole words, the last one's spare bits 0) */
static void extract_bits(const uint64_t *src, uint64_t off, uint64_t len, uint64_t *dst) {
    uint64_t nw = (len + 63) / 64;
    for (uint64_t q = 0; q < nw; q++) dst[q] = bits_at(src, off + 64 * q);
    if (len & 63) dst[nw - 1] &= (UINT64_C(1) << (len & 63)) - 1;
}

/* OR len bits of src into dst from bit off (dst has a spare word at its end) */
static void deposit_bits(uint64_t *dst, uint64_t off, uint64_t len, const uint64_t *src) {
    uint64_t nw = (len + 63) / 64;
    for (uint64_t q = 0; q < nw; q++) {
        uint64_t v = src[q];
        if (q == nw - 1 && (len & 63)) v &= (UINT64_C(1) << (len & 63)) - 1;
        uint64_t p = off + 64 * q, i = p >> 6;
        unsigned sh = (unsigned)(p & 63);
        dst[i] |= v << sh;
        if (sh) dst[i + 1] |= v >> (64 - sh);
    }
}

/* Write chunk `chunk` of level n from BITS[n] (where only that chunk was computed). */
static void save_chunk(const char *dir, int n, int chunk, int chunks, uint64_t searched, double seconds) {
    const Level *L = &LV[n];
    uint32_t *blocks;
    uint32_t nblocks = chunk_blocks(n, chunk, chunks, &blocks);
    uint64_t wpb = (L->per_shape + 63) / 64;
    uint64_t *data = calloc((size_t)nblocks * wpb + 1, 8);
    if (!data) die("%s", "out of memory");
    for (uint32_t j = 0; j < nblocks; j++) extract_bits(BITS[n], (uint64_t)blocks[j] * L->per_shape, L->per_shape, data + j * wpb);
    ChunkHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CHUNK_MAGIC, 8);
    h.version = FORMAT_VERSION;
    h.level = (uint32_t)n;
    h.chunk = (uint32_t)chunk;
    h.chunks = (uint32_t)chunks;
    h.config_hash = CONFIG_HASH;
    h.per_shape = L->per_shape;
    h.nblocks = nblocks;
    h.searched = searched;
    h.checksum = checksum(data, (uint64_t)nblocks * wpb) ^ fnv1a(blocks, (size_t)nblocks * sizeof *blocks, CONFIG_HASH);
    h.seconds_x1000 = (uint64_t)(seconds * 1000.0);
    char path[4096], tmp[4200];
    chunk_path(path, sizeof path, dir, n, chunk, chunks);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) die("cannot write %s", tmp);
    if (fwrite(&h, sizeof h, 1, f) != 1 || fwrite(blocks, sizeof *blocks, nblocks, f) != nblocks ||
        fwrite(data, 8, (size_t)nblocks * wpb, f) != (size_t)nblocks * wpb || fflush(f) != 0 || fsync(fileno(f)) != 0)
        die("cannot write %s", tmp);
    fclose(f);
    if (rename(tmp, path) != 0) die("cannot rename into %s", path);
    free(blocks);
    free(data);
}

/* Read chunk `chunk` of level n whole and check it; OR its blocks into `into` unless NULL.
   0 when it is missing, of another build, truncated or corrupt. */
static int read_chunk(const char *dir, int n, int chunk, int chunks, uint64_t *into, ChunkHeader *out) {
    const Level *L = &LV[n];
    char path[4096];
    chunk_path(path, sizeof path, dir, n, chunk, chunks);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    ChunkHeader h;
    uint64_t wpb = (L->per_shape + 63) / 64;
    int ok = fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, CHUNK_MAGIC, 8) && h.version == FORMAT_VERSION &&
             h.level == (uint32_t)n && h.chunk == (uint32_t)chunk && h.chunks == (uint32_t)chunks &&
             h.config_hash == CONFIG_HASH && h.per_shape == L->per_shape && h.nblocks <= L->count;
    uint32_t *blocks = NULL;
    uint64_t *data = NULL;
    if (ok) {
        blocks = malloc((size_t)h.nblocks * sizeof *blocks + 4);
        data = malloc((size_t)h.nblocks * wpb * 8 + 8);
        ok = blocks && data && fread(blocks, sizeof *blocks, h.nblocks, f) == h.nblocks &&
             fread(data, 8, (size_t)h.nblocks * wpb, f) == (size_t)h.nblocks * wpb &&
             (checksum(data, h.nblocks * wpb) ^ fnv1a(blocks, (size_t)h.nblocks * sizeof *blocks, CONFIG_HASH)) ==
                 h.checksum;
        for (uint64_t j = 0; ok && j < h.nblocks; j++) ok = blocks[j] < L->count;
    }
    fclose(f);
    if (ok && into)
        for (uint64_t j = 0; j < h.nblocks; j++) deposit_bits(into, (uint64_t)blocks[j] * L->per_shape, L->per_shape, data + j * wpb);
    free(blocks);
    free(data);
    if (ok && out) *out = h;
    return ok;
}

/* Level n from its chunk files into BITS[n]; returns the positions searched (sum of the chunks'). */
static uint64_t merge_chunks(const char *dir, int n, int chunks, double *seconds) {
    BITS[n] = calloc(LV[n].words + 1, 8);
    if (!BITS[n]) die("%s", "out of memory");
    uint64_t searched = 0;
    *seconds = 0.0;
    for (int c = 0; c < chunks; c++) {
        ChunkHeader h;
        if (!read_chunk(dir, n, c, chunks, BITS[n], &h)) {
            char path[4096];
            chunk_path(path, sizeof path, dir, n, c, chunks);
            die("the chunk %s is missing or damaged", path);
        }
        searched += h.searched;
        *seconds += (double)h.seconds_x1000 / 1000.0;
    }
    return searched;
}

static void remove_chunks(const char *dir, int n, int chunks) {
    for (int c = 0; c < chunks; c++) {
        char path[4096];
        chunk_path(path, sizeof path, dir, n, c, chunks);
        unlink(path);
    }
}

/* ---- the set-up ----------------------------------------------------------------------- */
/* After k placements Mint has ceil(k/2) candies and Liquorice floor(k/2); Mint places when k is
   even. A set-up position's bit is 1 when Mint wins; the full cake is Mint's to eat, so its
   bit is the eating table's. Placements add a ball and move nothing, so the table is a plain
   minimax from the full cake down to the empty table, one level at a time. */

static inline uint32_t placeable(uint32_t occ) {
    uint32_t m = 0;
    for (uint32_t u = UNIVERSE & ~occ; u; u &= u - 1) {
        int s = __builtin_ctz(u);
        if ((occ & BELOW[s]) == BELOW[s]) m |= UINT32_C(1) << s;
    }
    return m;
}

static inline uint64_t setup_index(int k, uint32_t occ, uint32_t white) {
    return (uint64_t)setup_rank(occ) * SETUP_PER[k] + colex_rank(pext32(white, occ));
}

/* The full cakes: copied from the eating table's last level. Poisoned: the last placement leaves
   one site, where the cherry goes, and Mint eats first; the candies' pattern is the same. */
static void setup_from_eating(int top) {
    const Level *S = &SLV[top], *L = &LV[top];
    int w = (top + 1) / 2;
    SBITS[top] = calloc(words_of(SETUP, top) + 1, 8);
    if (!SBITS[top]) die("%s", "out of memory");
    for (uint32_t i = 0; i < S->count; i++) {
        uint32_t cherry_bit = CHERRY ? UNIVERSE & ~S->masks[i] : 0;
        uint64_t base = block_base(L, S->masks[i] | cherry_bit, cherry_bit);
        for (uint64_t r = 0; r < SETUP_PER[top]; r++) {
            uint64_t e = base + L->woff[w] + r;
            if (BITS[top][e >> 6] >> (e & 63) & 1) set_bit(SBITS[top], (uint64_t)i * SETUP_PER[top] + r);
        }
    }
}

static uint64_t compute_setup_level(int k, int threads) {
    (void)threads;
    const Level *L = &SLV[k];
    int w = (k + 1) / 2, mint_places = k % 2 == 0;
    int nsym = symmetry_on ? NSYM : 1;
    SBITS[k] = calloc(words_of(SETUP, k) + 1, 8);
    if (!SBITS[k]) die("%s", "out of memory");
    uint64_t *bits = SBITS[k];
    const uint64_t *above = SBITS[k + 1];
    uint64_t searched = 0;
    double t0 = now(), last_print = t0;
    uint64_t done = 0, work = 0;
    for (uint32_t i = 0; i < L->count; i++) {
        int canonical = 1;
        for (int q = 1; q < nsym && canonical; q++) canonical = sym_mask(q, L->masks[i]) >= L->masks[i];
        if (canonical) work += SETUP_PER[k];
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : searched)
    for (uint32_t i = 0; i < L->count; i++) {
        uint32_t occ = L->masks[i];
        int canonical = 1;
        for (int q = 1; q < nsym && canonical; q++) canonical = sym_mask(q, occ) >= occ;
        if (!canonical) continue;
        int stab[8], nstab = 0;
        for (int q = 1; q < nsym; q++)
            if (sym_mask(q, occ) == occ) stab[nstab++] = q;
        uint64_t image_base[8];
        uint32_t image_occ[8];
        for (int q = 0; q < nsym; q++) {
            image_occ[q] = sym_mask(q, occ);
            image_base[q] = (uint64_t)setup_rank(image_occ[q]) * SETUP_PER[k];
        }
        uint32_t sites = placeable(occ);
        int nkids = 0;
        uint32_t kid_bit[NSITES];
        uint64_t kid_base[NSITES];
        for (uint32_t m = sites; m; m &= m - 1) {
            kid_bit[nkids] = m & -m;
            kid_base[nkids++] = (uint64_t)setup_rank(occ | (m & -m)) * SETUP_PER[k + 1];
        }
        uint32_t pattern = colex_unrank(0, w);
        for (uint64_t r = 0; r < SETUP_PER[k]; r++) {
            uint32_t white = pdep32(pattern, occ);
            if (w > 0 && r + 1 < SETUP_PER[k]) pattern = next_combination(pattern);
            int canon = 1;
            for (int j = 0; j < nstab && canon; j++) canon = sym_mask(stab[j], white) >= white;
            if (!canon) continue;
            searched++;
            int mint_wins = !mint_places; /* OR over Mint's placements, AND over Liquorice's */
            for (int c = 0; c < nkids; c++) {
                uint32_t cocc = occ | kid_bit[c], cwhite = mint_places ? white | kid_bit[c] : white;
                uint64_t idx = kid_base[c] + colex_rank(pext32(cwhite, cocc));
                int v = (int)(above[idx >> 6] >> (idx & 63) & 1);
                if (mint_places ? v : !v) {
                    mint_wins = v;
                    break;
                }
            }
            if (!mint_wins) continue;
            for (int q = 0; q < nsym; q++)
                set_bit(bits, image_base[q] + colex_rank(pext32(sym_mask(q, white), image_occ[q])));
        }
        uint64_t d = __atomic_add_fetch(&done, SETUP_PER[k], __ATOMIC_RELAXED);
#ifdef _OPENMP
        int me = omp_get_thread_num();
#else
        int me = 0;
#endif
        double t = now();
        if (me == 0 && t - last_print >= 10.0) {
            last_print = t;
            printf("setup %2d  %5.1f%%  %.0f colourings/s\n", k, 100.0 * (double)d / (double)work,
                   (double)d / (t - t0));
            fflush(stdout);
        }
    }
    return searched;
}

static void build_setup(const char *dir, int threads) {
    int top = TOP_LEVEL;
    if ((top + 1) / 2 > CAP) die("%s", "the cap is below the set-up's candies of one colour");
    for (int k = 0; k <= top; k++) SETUP_PER[k] = BINOM[k][(k + 1) / 2];
    for (int n = 0; n < top; n++) {
        free(BITS[n]);
        BITS[n] = NULL;
    }
    Header h;
    int low = top;
    while (low >= 0 && header_ok(dir, SETUP, low, &h)) low--;
    low++; /* setup-low .. setup-top are finished */
    if (low <= top && low > 0 && !load_level(dir, SETUP, low)) low = top + 1;
    if (low > top) {
        if (!BITS[top] && !load_level(dir, EATING, top)) die("%s", "the eating table's last level is missing");
        setup_from_eating(top);
        save_level(dir, SETUP, top, 0.0);
        printf("setup %2d  done  %" PRIu64 " full cakes  %" PRIu64 " won by Mint\n", top,
               (uint64_t)SLV[top].count * SETUP_PER[top], count_wins(SBITS[top], words_of(SETUP, top)));
        low = top;
    } else if (low < top + 1) {
        printf("setup: levels %d..%d are in %s\n", low, top, dir);
    }
    free(BITS[top]);
    BITS[top] = NULL;
    for (int k = low - 1; k >= 0; k--) {
        double t = now(), cpu = cpu_seconds();
        uint64_t searched = compute_setup_level(k, threads);
        double seconds = now() - t;
        cpu = cpu_seconds() - cpu;
        save_level(dir, SETUP, k, seconds);
        printf("setup %2d  done  %u shapes  %" PRIu64 " positions  %" PRIu64 " won by Mint  %" PRIu64
               " searched  %.1f s  cpu %.1f s  peak RSS %ld MiB\n",
               k, SLV[k].count, (uint64_t)SLV[k].count * SETUP_PER[k], count_wins(SBITS[k], words_of(SETUP, k)), searched,
               seconds, cpu, peak_rss_kib() / 1024);
        fflush(stdout);
        free(SBITS[k + 1]);
        SBITS[k + 1] = NULL;
    }
    if (!SBITS[0] && !load_level(dir, SETUP, 0)) die("%s", "the set-up's first level is missing");
    printf("setup: from the empty table %s wins\n", SBITS[0][0] & 1 ? "Mint" : "Liquorice");
}

/* The set-up positions that some alternating order of placements (Mint first) reaches from
   the empty table, level by level, forward; at the top, how many cakes a set-up can finish and
   how many of them Mint wins (from the finished set-up table's top level). */
static void count_reachable(const char *dir, int threads) {
    (void)threads;
    int top = TOP_LEVEL;
    for (int k = 0; k <= top; k++) SETUP_PER[k] = BINOM[k][(k + 1) / 2];
    uint64_t *reach = calloc(words_of(SETUP, 0) + 1, 8);
    if (!reach) die("%s", "out of memory");
    reach[0] = 1; /* the empty table */
    for (int k = 0; k < top; k++) {
        uint64_t *next = calloc(words_of(SETUP, k + 1) + 1, 8);
        if (!next) die("%s", "out of memory");
        const Level *L = &SLV[k];
        int w = (k + 1) / 2, mint_places = k % 2 == 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (uint32_t i = 0; i < L->count; i++) {
            uint32_t occ = L->masks[i];
            uint32_t sites = placeable(occ);
            int nkids = 0;
            uint32_t kid_bit[NSITES];
            uint64_t kid_base[NSITES];
            for (uint32_t m = sites; m; m &= m - 1) {
                kid_bit[nkids] = m & -m;
                kid_base[nkids++] = (uint64_t)setup_rank(occ | (m & -m)) * SETUP_PER[k + 1];
            }
            uint32_t pattern = colex_unrank(0, w);
            for (uint64_t r = 0; r < SETUP_PER[k]; r++) {
                uint32_t white = pdep32(pattern, occ);
                if (w > 0 && r + 1 < SETUP_PER[k]) pattern = next_combination(pattern);
                uint64_t idx = (uint64_t)i * SETUP_PER[k] + r;
                if (!(reach[idx >> 6] >> (idx & 63) & 1)) continue;
                for (int c = 0; c < nkids; c++) {
                    uint32_t cocc = occ | kid_bit[c], cwhite = mint_places ? white | kid_bit[c] : white;
                    set_bit(next, kid_base[c] + colex_rank(pext32(cwhite, cocc)));
                }
            }
        }
        free(reach);
        reach = next;
        printf("reachable %2d  %" PRIu64 " of %" PRIu64 " set-up positions\n", k + 1,
               count_wins(reach, words_of(SETUP, k + 1)), (uint64_t)SLV[k + 1].count * SETUP_PER[k + 1]);
        fflush(stdout);
    }
    if (!load_level(dir, SETUP, top)) die("%s", "the set-up table's top level is missing: build the table first");
    uint64_t words = words_of(SETUP, top), cakes = count_wins(reach, words), won = 0;
    for (uint64_t q = 0; q < words; q++) won += (uint64_t)__builtin_popcountll(reach[q] & SBITS[top][q]);
    printf("reachable: %" PRIu64 " of %" PRIu64 " full cakes have an alternating order of placements, %" PRIu64
           " of them won by Mint\n",
           cakes, (uint64_t)SLV[top].count * SETUP_PER[top], won);
    free(reach);
}

/* The canonical colourings of a level: the work of computing it (for the ETA). */
static uint64_t level_work(int n) {
    const Level *L = &LV[n];
    uint64_t work = 0;
    int nsym = symmetry_on ? NSYM : 1;
    for (uint32_t i = 0; i < L->count; i++) {
        if (!canonical_block(L, i, nsym)) continue;
        for (int w = L->wlo; w <= L->whi; w++)
            if (!symmetry_on || w <= n - w) work += BINOM[n][w];
    }
    return work;
}

/* --level N: compute chunk I of level N alone (its file; nothing if it is there already), or
   with --merge assemble level N from its chunks. The levels below must be finished. */
static int one_level(const char *dir, int n, int chunk, int chunks, int merge, int threads) {
    if (n < 1 || n > TOP_LEVEL) die("%s", "--level is out of range (1 .. the top level)");
    if (merge) {
        double seconds;
        uint64_t searched = merge_chunks(dir, n, chunks, &seconds);
        save_level(dir, EATING, n, seconds);
        remove_chunks(dir, n, chunks);
        printf("level %2d  merged  %d chunks  %" PRIu64 " won  %" PRIu64 " searched\n", n, chunks,
               count_wins(BITS[n], LV[n].words), searched);
        return 0;
    }
    if (chunk < 0 || chunk >= chunks) die("%s", "--chunk must be below --chunks");
    if (read_chunk(dir, n, chunk, chunks, NULL, NULL)) {
        printf("level %2d  chunk %d of %d is in %s\n", n, chunk, chunks, dir);
        return 0;
    }
    Header h;
    for (int m = 0; m < n; m++)
        if (header_ok(dir, EATING, m, &h)) LOST_SHARE[m] = 1.0 - (double)h.wins / (double)LV[m].bits;
    for (int m = n - 4 > 0 ? n - 4 : 0; m < n; m++)
        if (!load_level(dir, EATING, m)) {
            char arg[16];
            snprintf(arg, sizeof arg, "%d", m);
            die("level %s below is not finished", arg);
        }
    order_sizes(n);
    double t = now();
    uint64_t searched = compute_level(n, threads, t, 0, level_work(n), chunk, chunks);
    save_chunk(dir, n, chunk, chunks, searched, now() - t);
    printf("level %2d  chunk %d of %d  done  %" PRIu64 " searched  %.1f s  peak RSS %ld MiB\n", n, chunk, chunks,
           searched, now() - t, peak_rss_kib() / 1024);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tbbuild TABLES DIR [--threads N] [--upto LEVEL] [--no-symmetry] [--no-setup] [--plan]\n");
        return 2;
    }
    const char *tables = argv[1], *dir = argv[2];
    int threads = 2, upto = -1, plan = 0, setup = 1, chunks = 1, only_level = -1, only_chunk = -1, merge = 0;
    int reachable = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--upto") && i + 1 < argc) {
            upto = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-setup")) {
            setup = 0;
        } else if (!strcmp(argv[i], "--plan")) {
            plan = 1;
        } else if (!strcmp(argv[i], "--chunks") && i + 1 < argc) {
            chunks = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            only_level = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
            only_chunk = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reachable")) {
            reachable = 1;
        } else if (!strcmp(argv[i], "--merge")) {
            merge = 1;
        } else if (!strcmp(argv[i], "--no-symmetry")) {
            symmetry_on = 0;
        } else {
            die("unknown argument %s", argv[i]);
        }
    }
    if (threads < 1) threads = 1;
    read_tables(tables);
    init_combinatorics();
    build_shapes();
    if (upto < 0 || upto > TOP_LEVEL) upto = TOP_LEVEL;
    if (chunks < 1 || chunks > 999) die("%s", "--chunks takes 1 to 999");
    if (reachable) {
        count_reachable(dir, threads);
        return 0;
    }
    if (only_level >= 0) return one_level(dir, only_level, only_chunk, chunks, merge, threads);
    if (only_chunk >= 0 || merge) die("%s", "--chunk and --merge need --level");
    uint64_t total_positions = 0, total_work = 0, level_works[MAX_LEVELS];
    for (int n = 0; n <= upto; n++) {
        total_positions += LV[n].bits;
        level_works[n] = level_work(n);
        total_work += level_works[n];
    }
    printf("tablebase: %zu shapes, %d symmetries, cap %d, %" PRIu64 " positions (%" PRIu64
           " canonical colourings) in levels 0..%d, %d threads\n",
           nshapes, NSYM, CAP, total_positions, total_work, upto, threads);
    fflush(stdout);
    if (plan) {
        for (int n = 0; n <= upto; n++)
            printf("plan %2d  %u shapes  %" PRIu64 " positions  %" PRIu64 " canonical  %.1f MiB\n", n, LV[n].count,
                   LV[n].bits, level_works[n], (double)LV[n].words * 8.0 / 1048576.0);
        return 0;
    }
    double build_start = now();
    uint64_t done_work = 0, skipped_work = 0;
    /* resume: the first level without a file of this build, once the four below it load whole */
    int first = 0;
    Header h;
    while (first <= upto && header_ok(dir, EATING, first, &h)) {
        LOST_SHARE[first] = 1.0 - (double)h.wins / (double)LV[first].bits;
        first++;
    }
    for (int bad = 0; first <= upto && bad >= 0;) {
        bad = -1;
        for (int m = first - 4 > 0 ? first - 4 : 0; m < first && bad < 0; m++)
            if (!BITS[m] && !load_level(dir, EATING, m)) bad = m;
        if (bad < 0) break;
        for (int m = bad; m < first; m++) {
            free(BITS[m]);
            BITS[m] = NULL;
        }
        first = bad;
    }
    for (int n = 0; n < first; n++) skipped_work += level_works[n];
    if (first > 0) printf("resuming: levels 0..%d are in %s\n", first - 1, dir);
    for (int n = first; n <= upto; n++) {
        /* drop what no later level reads */
        if (n >= 5 && BITS[n - 5]) {
            free(BITS[n - 5]);
            BITS[n - 5] = NULL;
        }
        double t = now(), cpu = cpu_seconds();
        order_sizes(n);
        uint64_t searched;
        double seconds;
        if (chunks > 1 && n > 0) {
            for (int c = 0; c < chunks; c++) {
                if (read_chunk(dir, n, c, chunks, NULL, NULL)) {
                    printf("level %2d  chunk %d of %d is in %s\n", n, c, chunks, dir);
                    continue;
                }
                double tc = now();
                uint64_t s = compute_level(n, threads, build_start, done_work, total_work - skipped_work, c, chunks);
                save_chunk(dir, n, c, chunks, s, now() - tc);
                free(BITS[n]);
                BITS[n] = NULL;
                printf("level %2d  chunk %d of %d  done  %" PRIu64 " searched  %.1f s\n", n, c, chunks, s, now() - tc);
                fflush(stdout);
            }
            searched = merge_chunks(dir, n, chunks, &seconds);
        } else {
            searched = compute_level(n, threads, build_start, done_work, total_work - skipped_work, 0, 1);
            seconds = now() - t;
        }
        cpu = cpu_seconds() - cpu;
        save_level(dir, EATING, n, seconds);
        if (chunks > 1) remove_chunks(dir, n, chunks);
        done_work += level_works[n];
        uint64_t w = count_wins(BITS[n], LV[n].words);
        LOST_SHARE[n] = 1.0 - (double)w / (double)LV[n].bits;
        printf("level %2d  done  %u shapes  %" PRIu64 " positions  %" PRIu64 " won  %" PRIu64
               " enumerated  %" PRIu64 " searched  %.1f s  cpu %.1f s  %.0f enumerated/s  peak RSS %ld MiB\n",
               n, LV[n].count, LV[n].bits, w, level_works[n], searched, seconds, cpu,
               (double)level_works[n] / (seconds > 0 ? seconds : 1e-9), peak_rss_kib() / 1024);
        fflush(stdout);
    }
    printf("tablebase: levels 0..%d complete in %.1f s\n", upto, now() - build_start);
    fflush(stdout);
    if (setup && upto == TOP_LEVEL) build_setup(dir, threads);
    return 0;
}
