/*
 * _cakesolver: the exact solver of Special Cake's eating phase, compiled.
 *
 * A position is three 30-bit colour masks (white, black, red). The search packs it into a
 * 60-bit code of two bit planes, A = white | red and B = black | red (so white = A only,
 * black = B only, red = both, empty = neither); the code is A | B << 30.
 *
 * The board tables (what rests on what, the rising drop chains, the 150 nameable lines and the
 * 8 symmetries of the square) are handed in once by spheria.games.special_cake.solver from spheria.engine.board,
 * so the move generation below uses exactly the tables of the Python engine; it follows
 * spheria.games.special_cake.eating_outcomes step by step.
 *
 * The search is a win/loss negamax over canonical codes (min over the 8 symmetries applied to
 * every level and over the colour permutations the line rule cannot see), with a transposition
 * table of exact results, enhanced transposition cutoffs and move ordering. See docs/solver.md.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "cake_steps.h"

#define M30 ((uint32_t)0x3FFFFFFF)
#define KEY_MASK ((UINT64_C(1) << 60) - 1)
#define MAX_RAW 1024 /* 30 singles + 96*2 + 42*6 + 12*24 orders = 762 at most */
#define DEDUP_BITS 11
#define BUCKET 4
#define PROGRESS_CHECKS 16 /* limit checks (of 4096 positions) between two progress calls */

enum { VARIANT_MINT = 0, VARIANT_SUGAR = 1, VARIANT_POISONED = 2 };
enum { RULE_MIXED = 0, RULE_ANY = 1, RULE_SAME = 2 };
enum { UNKNOWN = 0, WIN = 1, LOSS = 2, ABORT = 3 };

/* ---- board tables, set once by init() ------------------------------------------------- */

static int tables_ready = 0;
static int running = 0; /* searches running with the GIL released: the tables must stay */
/* the pyramid's tables (ABOVE, CHAIN, the segments, SYM_T ...) are cake_steps.h's */

/* Portable popcount: without -mpopcnt, __builtin_popcount is a library call. */
static inline int popcount32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

static inline uint64_t encode(uint32_t w, uint32_t b, uint32_t r) {
    return (uint64_t)(w | r) | ((uint64_t)(b | r) << 30);
}

static inline void decode(uint64_t code, uint32_t *w, uint32_t *b, uint32_t *r) {
    uint32_t a = (uint32_t)(code & M30), bb = (uint32_t)(code >> 30) & M30;
    *w = a & ~bb;
    *b = bb & ~a;
    *r = a & bb;
}

/* ---- the search object ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int variant;
    int rule;
    int cherry;    /* poisoned: red is the cherry, never in a line, eaten only alone */
    int normalise; /* line rule 'any': colours other than the cherry do not matter */
    int nperms;
    uint8_t perms[6][3]; /* colour c goes to perms[p][c] */
    /* transposition table: entry = key | value << 60, 0 = empty; buckets of 4 */
    uint64_t *table;
    int bits; /* log2 of the number of entries */
    int max_bits;
    size_t used;
    /* statistics */
    unsigned long long positions;
    /* scratch */
    uint64_t raw[MAX_RAW];
    uint64_t (*kids)[MAX_RAW]; /* children to search, per candy count of the parent */
    uint64_t (*keys)[MAX_RAW]; /* their canonical codes */
    int32_t (*scores)[MAX_RAW];
    uint64_t dedup_key[1 << DEDUP_BITS];
    uint32_t dedup_stamp[1 << DEDUP_BITS];
    uint32_t stamp;
    /* limits */
    double deadline;
    unsigned long long next_check;
    unsigned long long checks;
    int abort_reason; /* 0 none, 1 time, 2 signal or an exception from the progress callback */
    PyObject *progress; /* borrowed for one value() call, or NULL */
    PyThreadState *thread_state;
    int busy;
} Search;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- move generation ------------------------------------------------------------------ */
/* Positions are handled as their two bit planes a = white | red and b = black | red: a drop
   moves a ball with its colour, so shifting both planes shifts the three colour masks. */

static inline uint64_t planes_code(uint32_t a, uint32_t b) { return (uint64_t)a | ((uint64_t)b << 30); }

/* Eat the candies now on pos[0..n) in every order where each is unpinned when eaten. */
static void line_orders(uint32_t a, uint32_t b, const uint8_t *pos, int n, uint64_t *out, int *nout) {
    uint32_t occ = a | b;
    for (int i = 0; i < n; i++) {
        int s = pos[i];
        if (pinned(s, occ)) continue; /* pinned now; maybe later in another order */
        uint8_t chain[MAX_SEG_LEN];
        int len = drop_chain(occ, s, chain);
        uint32_t na = shift_down(a, chain, len), nb = shift_down(b, chain, len);
        if (n == 1) {
            out[(*nout)++] = planes_code(na, nb);
            return;
        }
        uint8_t rest[MAX_SEG_LEN];
        line_rest(pos, n, i, chain, len, rest);
        line_orders(na, nb, rest, n - 1, out, nout);
    }
}

/* Every position one eating move reaches (with repeats): as special_cake.eating_outcomes. */
static int generate(const Search *S, uint32_t a, uint32_t b, uint64_t *out) {
    uint32_t occ = a | b, red = a & b;
    int n = 0;
    for (uint32_t m = occ; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        if (pinned(s, occ)) continue;
        if (S->cherry && (red >> s & 1)) continue; /* eaten only alone, and then the game is over */
        uint8_t chain[MAX_SEG_LEN];
        int len = drop_chain(occ, s, chain);
        out[n++] = planes_code(shift_down(a, chain, len), shift_down(b, chain, len));
    }
    uint32_t white = a & ~b, black = b & ~a;
    for (int g = 0; g < NSEG; g++) {
        uint32_t sm = SEG_MASK[g];
        if ((occ & sm) != sm) continue;
        if (S->cherry && (red & sm)) continue;
        if (S->rule != RULE_ANY) {
            int colours = ((white & sm) != 0) + ((black & sm) != 0) + ((red & sm) != 0);
            if (S->rule == RULE_MIXED ? colours < 2 : colours != 1) continue;
        }
        if (!(SEG_HOLDS[g] & occ)) {
            /* nothing rests on the line: every order eats it the same way, without drops */
            out[n++] = planes_code(a & ~sm, b & ~sm);
        } else {
            line_orders(a, b, SEG_SITES[g], SEG_LEN[g], out, &n);
        }
    }
    return n;
}

/* ---- canonical codes ------------------------------------------------------------------ */

/* The least code, ordered by (occupancy, code), over the symmetries and colour permutations. */
static uint64_t canonical(const Search *S, uint32_t a, uint32_t b) {
    uint32_t occ = a | b;
    uint32_t best_occ = occ;
    int syms[8], ns = 1;
    syms[0] = 0; /* the identity */
    for (int k = 1; k < 8; k++) {
        uint32_t t = sym_mask(k, occ);
        if (t < best_occ) {
            best_occ = t;
            ns = 0;
        }
        if (t == best_occ) syms[ns++] = k;
    }
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < ns; i++) {
        int k = syms[i];
        uint32_t ta = sym_mask(k, a), tb = sym_mask(k, b);
        uint64_t code = planes_code(ta, tb);
        if (code < best) best = code;
        if (S->nperms == 2) {
            /* white <-> black swaps the planes; red (both planes) stays */
            code = planes_code(tb, ta);
            if (code < best) best = code;
        } else if (S->nperms == 6) {
            uint32_t col[3] = {ta & ~tb, tb & ~ta, ta & tb};
            for (int p = 1; p < 6; p++) {
                uint32_t nm[3];
                nm[S->perms[p][0]] = col[0];
                nm[S->perms[p][1]] = col[1];
                nm[S->perms[p][2]] = col[2];
                code = encode(nm[0], nm[1], nm[2]);
                if (code < best) best = code;
            }
        }
    }
    return best;
}

/* ---- transposition table -------------------------------------------------------------- */

static inline size_t bucket_of(const Search *S, uint64_t key) {
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - (S->bits - 2))) * BUCKET;
}

static inline int tt_probe(Search *S, uint64_t key) {
    if (!S->table) return UNKNOWN;
    const uint64_t *slot = S->table + bucket_of(S, key);
    for (int i = 0; i < BUCKET; i++) {
        uint64_t e = slot[i];
        if (!e) return UNKNOWN;
        if ((e & KEY_MASK) == key) return (int)(e >> 60);
    }
    return UNKNOWN;
}

static inline int entry_candies(uint64_t e) {
    return popcount32((uint32_t)(e & M30) | ((uint32_t)(e >> 30) & M30));
}

static void tt_put(uint64_t *table, int bits, uint64_t entry, size_t *used) {
    uint64_t key = entry & KEY_MASK;
    uint64_t *slot = table + (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - (bits - 2))) * BUCKET;
    int victim = 0;
    int fewest = 99;
    for (int i = 0; i < BUCKET; i++) {
        uint64_t e = slot[i];
        if (!e) {
            slot[i] = entry;
            (*used)++;
            return;
        }
        if ((e & KEY_MASK) == key) {
            slot[i] = entry;
            return;
        }
        /* replace the entry with the fewest candies: the cheapest to find again */
        int c = entry_candies(e);
        if (c < fewest) {
            fewest = c;
            victim = i;
        }
    }
    slot[victim] = entry;
}

/* Zeroed memory for a table; on Linux mapped lazily and backed by huge pages where the kernel
   allows (the probes are random, so fewer TLB misses matter). */
static uint64_t *table_memory(int bits) {
    size_t bytes = ((size_t)1 << bits) * sizeof(uint64_t);
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
#else
    return calloc((size_t)1 << bits, sizeof(uint64_t));
#endif
}

static void table_free(uint64_t *table, int bits) {
    if (!table) return;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    munmap(table, ((size_t)1 << bits) * sizeof(uint64_t));
#else
    (void)bits;
    free(table);
#endif
}

static int tt_alloc(Search *S, int bits) {
    uint64_t *table = table_memory(bits);
    if (!table) return -1;
    size_t used = 0;
    if (S->table) {
        size_t n = (size_t)1 << S->bits;
        for (size_t i = 0; i < n; i++)
            if (S->table[i]) tt_put(table, bits, S->table[i], &used);
        table_free(S->table, S->bits);
    }
    S->table = table;
    S->bits = bits;
    S->used = used;
    return 0;
}

static void tt_store(Search *S, uint64_t key, int value) {
    if (!S->table) return;
    if (S->bits < S->max_bits && S->used * 4 > ((size_t)3 << S->bits)) {
        (void)tt_alloc(S, S->bits + 1); /* on failure keep the table we have */
    }
    tt_put(S->table, S->bits, key | ((uint64_t)value << 60), &S->used);
}

/* ---- the search ----------------------------------------------------------------------- */

static int check_limits(Search *S) {
    S->next_check = S->positions + 4096;
    if (S->deadline > 0 && now_seconds() > S->deadline) {
        S->abort_reason = 1;
        return 1;
    }
    if (++S->checks % (S->progress ? PROGRESS_CHECKS : 64) == 0) {
        /* every 256k positions (64k with a progress callback): let Python see Ctrl-C */
        PyEval_RestoreThread(S->thread_state);
        int err = PyErr_CheckSignals();
        if (!err && S->progress) {
            PyObject *result = PyObject_CallFunction(S->progress, "K", S->positions);
            if (result)
                Py_DECREF(result);
            else
                err = -1;
        }
        S->thread_state = PyEval_SaveThread();
        if (err) {
            S->abort_reason = 2;
            return 1;
        }
    }
    return 0;
}

static inline int is_lost_terminal(const Search *S, uint32_t occ, uint32_t r) {
    /* Poisoned: the cherry stands alone, the player to move must eat it. */
    return S->cherry && occ == r;
}

static inline int is_won_terminal(const Search *S, uint32_t occ) {
    /* Mint and sugar: the board is empty, the opponent ate the last candy. */
    return !S->cherry && occ == 0;
}

static int cmp_pair(int32_t sa, uint64_t ka, int32_t sb, uint64_t kb) {
    if (sa != sb) return sa < sb ? -1 : 1;
    return ka < kb ? -1 : ka > kb;
}

/* Whether code was met before at this node (same stamp); records it if not. */
static inline int seen_before(Search *S, uint64_t code, uint32_t stamp) {
    size_t h = (size_t)((code * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - DEDUP_BITS));
    while (S->dedup_stamp[h] == stamp) {
        if (S->dedup_key[h] == code) return 1;
        h = (h + 1) & ((1u << DEDUP_BITS) - 1);
    }
    S->dedup_stamp[h] = stamp;
    S->dedup_key[h] = code;
    return 0;
}

/* Ordering score of a child, lower first: fewest candies (the biggest eat, the smallest subtree),
   then fewest unpinned candies (fewest single eats for the opponent). Measured on full mint
   cakes this beats the reverse orders, a parity rule, mobility and a history heuristic. */
static int32_t child_score(uint32_t a, uint32_t b) {
    uint32_t occ = a | b;
    int free_candies = 0;
    for (uint32_t m = occ; m; m &= m - 1) free_candies += !pinned(__builtin_ctz(m), occ);
    return (int32_t)(popcount32(occ) * 64 + free_candies);
}

/* Value for the player to move of the non-terminal position code, whose canonical code is key.
   Positions keep the frame of the root (children are searched as generated); the table is
   keyed by canonical codes. */
static int search(Search *S, uint64_t code, uint64_t key) {
    uint32_t a = (uint32_t)(code & M30), b = (uint32_t)(code >> 30);
    int n = popcount32(a | b);
    S->positions++;
    if (S->positions >= S->next_check && check_limits(S)) return ABORT;

    int nraw = generate(S, a, b, S->raw);
    uint64_t *kids = S->kids[n], *keys = S->keys[n];
    int32_t *scores = S->scores[n];
    int nk = 0;
    uint32_t stamp = ++S->stamp;
    if (stamp == 0) {
        memset(S->dedup_stamp, 0, sizeof S->dedup_stamp);
        stamp = S->stamp = 1;
    }
    /* pass 1: terminal children, canonical codes, duplicates; start fetching the table buckets */
    for (int i = 0; i < nraw; i++) {
        uint64_t raw = S->raw[i];
        uint32_t ca = (uint32_t)(raw & M30), cb = (uint32_t)(raw >> 30);
        uint32_t cocc = ca | cb;
        if (is_won_terminal(S, cocc)) continue; /* eating the last candy loses */
        if (is_lost_terminal(S, cocc, ca & cb)) {
            tt_store(S, key, WIN);
            return WIN;
        }
        /* one set holds raw and canonical codes: either names a child already listed */
        if (seen_before(S, raw, stamp)) continue;
        uint64_t ck = canonical(S, ca, cb);
        if (ck != raw && seen_before(S, ck, stamp)) continue;
        __builtin_prefetch(S->table + bucket_of(S, ck));
        kids[nk] = raw;
        keys[nk] = ck;
        nk++;
    }
    /* pass 2: enhanced transposition cutoff, then order the unknown children */
    int listed = nk;
    nk = 0;
    for (int i = 0; i < listed; i++) {
        uint64_t raw = kids[i], ck = keys[i];
        int v = tt_probe(S, ck);
        if (v == LOSS) {
            tt_store(S, key, WIN);
            return WIN;
        }
        if (v == WIN) continue;
        int32_t sc = child_score((uint32_t)(raw & M30), (uint32_t)(raw >> 30));
        /* insertion sort by (score, key): a deterministic order */
        int j = nk++;
        while (j > 0 && cmp_pair(sc, ck, scores[j - 1], keys[j - 1]) < 0) {
            kids[j] = kids[j - 1];
            keys[j] = keys[j - 1];
            scores[j] = scores[j - 1];
            j--;
        }
        kids[j] = raw;
        keys[j] = ck;
        scores[j] = sc;
    }
    for (int i = 0; i < nk; i++) {
        int v = search(S, kids[i], keys[i]);
        if (v == ABORT) return ABORT;
        if (v == LOSS) {
            tt_store(S, key, WIN);
            return WIN;
        }
    }
    tt_store(S, key, LOSS);
    return LOSS;
}

/* ---- Python glue ---------------------------------------------------------------------- */

static int check_masks(unsigned long long mw, unsigned long long mb, unsigned long long mr, uint32_t *w, uint32_t *b,
                       uint32_t *r) {
    if ((mw | mb | mr) >> NSITES) {
        PyErr_SetString(PyExc_ValueError, "masks must hold sites 0..29 only");
        return -1;
    }
    if ((mw & mb) | (mw & mr) | (mb & mr)) {
        PyErr_SetString(PyExc_ValueError, "a site holds two colours");
        return -1;
    }
    uint32_t occ = (uint32_t)(mw | mb | mr);
    for (int s = 0; s < NSITES; s++) {
        if ((occ >> s & 1) && (occ & BELOW[s]) != BELOW[s]) {
            PyErr_Format(PyExc_ValueError, "the ball on site %d floats: a ball needs all four balls below it", s);
            return -1;
        }
    }
    *w = (uint32_t)mw;
    *b = (uint32_t)mb;
    *r = (uint32_t)mr;
    return 0;
}

static int parse_masks(PyObject *args, uint32_t *w, uint32_t *b, uint32_t *r) {
    unsigned long long mw, mb, mr;
    if (!PyArg_ParseTuple(args, "KKK", &mw, &mb, &mr)) return -1;
    return check_masks(mw, mb, mr, w, b, r);
}

static int check_tables(void) {
    if (!tables_ready) {
        PyErr_SetString(PyExc_RuntimeError, "_cakesolver.init() has not been called");
        return -1;
    }
    return 0;
}

static int Search_init(Search *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"variant", "line_rule", "max_table_bits", NULL};
    int variant, rule, max_bits = 26;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ii|i", kwlist, &variant, &rule, &max_bits)) return -1;
    if (check_tables() < 0) return -1;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Search is in use by another thread");
        return -1;
    }
    if (variant < 0 || variant > 2 || rule < 0 || rule > 2) {
        PyErr_SetString(PyExc_ValueError, "variant must be 0..2 (mint, sugar, poisoned), line_rule 0..2 (mixed, any, same)");
        return -1;
    }
    if (max_bits < 12 || max_bits > 34) {
        PyErr_SetString(PyExc_ValueError, "max_table_bits must be 12..34");
        return -1;
    }
    self->variant = variant;
    self->rule = rule;
    self->cherry = variant == VARIANT_POISONED;
    self->normalise = rule == RULE_ANY;
    static const uint8_t all_perms[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
    /* colours the rules cannot tell apart: none in 'any' (normalised away), white/black only
       where red is the cherry (poisoned) or absent (mint), all three in sugar */
    self->nperms = self->normalise ? 1 : variant == VARIANT_SUGAR ? 6 : 2;
    memcpy(self->perms, all_perms, sizeof(uint8_t) * 3 * (size_t)self->nperms);
    self->max_bits = max_bits;
    table_free(self->table, self->bits);
    self->table = NULL;
    self->bits = 0;
    self->used = 0;
    if (!self->kids) {
        self->kids = PyMem_Calloc(NSITES + 1, sizeof *self->kids);
        self->scores = PyMem_Calloc(NSITES + 1, sizeof *self->scores);
        self->keys = PyMem_Calloc(NSITES + 1, sizeof *self->keys);
        if (!self->kids || !self->scores || !self->keys) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

static void Search_dealloc(Search *self) {
    table_free(self->table, self->bits);
    PyMem_Free(self->kids);
    PyMem_Free(self->scores);
    PyMem_Free(self->keys);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int enter(Search *self) {
    if (check_tables() < 0) return -1;
    if (!self->kids) {
        PyErr_SetString(PyExc_RuntimeError, "Search is not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Search is in use by another thread");
        return -1;
    }
    return 0;
}

static PyObject *Search_value(Search *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"white", "black", "red", "time_limit", "progress", NULL};
    unsigned long long mw, mb, mr;
    double time_limit = -1.0;
    PyObject *progress = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KKK|dO", kwlist, &mw, &mb, &mr, &time_limit, &progress)) return NULL;
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        return NULL;
    }
    uint32_t w, b, r;
    if (check_masks(mw, mb, mr, &w, &b, &r) < 0 || enter(self) < 0) return NULL;
    if (self->normalise) {
        /* line rule 'any': only the cherry's colour matters */
        if (self->cherry) {
            w |= b;
        } else {
            w |= b | r;
            r = 0;
        }
        b = 0;
    }
    uint32_t occ = w | b | r;
    if (is_won_terminal(self, occ)) return PyLong_FromLong(1);
    if (is_lost_terminal(self, occ, r)) return PyLong_FromLong(-1);
    if (!self->table && tt_alloc(self, self->max_bits < 20 ? self->max_bits : 20) < 0) return PyErr_NoMemory();
    uint64_t key = canonical(self, w | r, b | r);
    int v = tt_probe(self, key);
    if (v == UNKNOWN) {
        self->busy = 1;
        running++;
        self->deadline = time_limit >= 0 ? now_seconds() + time_limit : -1.0;
        self->next_check = self->positions + 4096;
        self->abort_reason = 0;
        self->progress = progress == Py_None ? NULL : progress;
        self->thread_state = PyEval_SaveThread();
        v = search(self, planes_code(w | r, b | r), key);
        PyEval_RestoreThread(self->thread_state);
        self->progress = NULL;
        self->busy = 0;
        running--;
        if (v == ABORT) {
            if (self->abort_reason == 1) PyErr_SetString(PyExc_TimeoutError, "the solver ran out of time");
            return NULL; /* reason 2: the signal handler's or the callback's exception is set */
        }
    }
    return PyLong_FromLong(v == WIN ? 1 : -1);
}

static PyObject *Search_children(Search *self, PyObject *args) {
    uint32_t w, b, r;
    if (parse_masks(args, &w, &b, &r) < 0 || enter(self) < 0) return NULL;
    int n = generate(self, w | r, b | r, self->raw);
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < i && !dup; j++) dup = self->raw[j] == self->raw[i];
        if (dup) continue;
        uint32_t cw, cb, cr;
        decode(self->raw[i], &cw, &cb, &cr);
        PyObject *item = Py_BuildValue("(kkk)", (unsigned long)cw, (unsigned long)cb, (unsigned long)cr);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    return list;
}

static PyObject *Search_canonical(Search *self, PyObject *args) {
    uint32_t w, b, r;
    if (parse_masks(args, &w, &b, &r) < 0 || enter(self) < 0) return NULL;
    uint32_t cw, cb, cr;
    decode(canonical(self, w | r, b | r), &cw, &cb, &cr);
    return Py_BuildValue("(kkk)", (unsigned long)cw, (unsigned long)cb, (unsigned long)cr);
}

static PyObject *Search_clear(Search *self, PyObject *Py_UNUSED(ignored)) {
    if (enter(self) < 0) return NULL;
    table_free(self->table, self->bits);
    self->table = NULL;
    self->bits = 0;
    self->used = 0;
    Py_RETURN_NONE;
}

static PyObject *Search_get_positions(Search *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->positions);
}

static PyObject *Search_get_table_entries(Search *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->used);
}

static PyObject *Search_get_table_capacity(Search *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->table ? (size_t)1 << self->bits : 0);
}

static PyMethodDef Search_methods[] = {
    {"value", (PyCFunction)(void (*)(void))Search_value, METH_VARARGS | METH_KEYWORDS,
     "value(white, black, red, time_limit=-1, progress=None) -> +1 or -1 for the player to move; TimeoutError past "
     "the limit; progress(positions) is called every 65536 positions"},
    {"children", (PyCFunction)Search_children, METH_VARARGS,
     "children(white, black, red) -> the distinct positions one eating move reaches, as mask triples"},
    {"canonical", (PyCFunction)Search_canonical, METH_VARARGS,
     "canonical(white, black, red) -> the representative of the position's symmetry class"},
    {"clear", (PyCFunction)Search_clear, METH_NOARGS, "free the transposition table"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"positions", (getter)Search_get_positions, NULL, "positions expanded since this Search was made", NULL},
    {"table_entries", (getter)Search_get_table_entries, NULL, "positions held in the table", NULL},
    {"table_capacity", (getter)Search_get_table_capacity, NULL, "slots in the table (8 bytes each)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spheria.games.special_cake.solver._cakesolver.Search",
    .tp_basicsize = sizeof(Search),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(variant, line_rule, max_table_bits=26): a solver with its own transposition table",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static int seq_ints(PyObject *seq, const char *what, int *out, int max_len, int lo, int hi) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max_len) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d items", what, max_len);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static PyObject *module_init(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *above, *chains, *segments, *symmetries;
    if (!PyArg_ParseTuple(args, "OOOO", &above, &chains, &segments, &symmetries)) return NULL;
    if (running) {
        PyErr_SetString(PyExc_RuntimeError, "a search is running: the tables cannot change now");
        return NULL;
    }
    tables_ready = 0; /* until every table is read */
    int buf[NSITES];
    /* above: 30 masks */
    PyObject *fast = PySequence_Fast(above, "above must be a sequence");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != NSITES) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "above must have 30 masks");
        return NULL;
    }
    for (int s = 0; s < NSITES; s++) {
        unsigned long long m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, s));
        if (PyErr_Occurred() || m >> NSITES) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "above: masks of sites 0..29");
            return NULL;
        }
        ABOVE[s] = (uint32_t)m;
    }
    Py_DECREF(fast);
    /* chains: (s, t, ...) rising from s through t */
    memset(CHAIN_LEN, 0, sizeof CHAIN_LEN);
    fast = PySequence_Fast(chains, "chains must be a sequence");
    if (!fast) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        int n = seq_ints(PySequence_Fast_GET_ITEM(fast, i), "chain", buf, MAX_SEG_LEN, 0, NSITES - 1);
        if (n < 0 || n < 2) {
            Py_DECREF(fast);
            if (n >= 0) PyErr_SetString(PyExc_ValueError, "a chain has at least 2 sites");
            return NULL;
        }
        set_chain(buf, n);
    }
    Py_DECREF(fast);
    for (int s = 0; s < NSITES; s++) {
        for (int t = 0; t < NSITES; t++) {
            if ((ABOVE[s] >> t & 1) && CHAIN_LEN[s][t] < 2) {
                PyErr_Format(PyExc_ValueError, "no chain for sites %d, %d", s, t);
                return NULL;
            }
        }
    }
    /* segments */
    fast = PySequence_Fast(segments, "segments must be a sequence");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) > MAX_SEGMENTS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "too many segments");
        return NULL;
    }
    clear_segments();
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        int n = seq_ints(PySequence_Fast_GET_ITEM(fast, i), "segment", buf, MAX_SEG_LEN, 0, NSITES - 1);
        if (n < 0 || n < 2) {
            Py_DECREF(fast);
            if (n >= 0) PyErr_SetString(PyExc_ValueError, "a segment has at least 2 sites");
            return NULL;
        }
        add_segment(buf, n);
    }
    Py_DECREF(fast);
    finish_tables();
    /* symmetries: 8 site permutations */
    fast = PySequence_Fast(symmetries, "symmetries must be a sequence");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != 8) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "symmetries must hold 8 permutations");
        return NULL;
    }
    for (int k = 0; k < 8; k++) {
        int n = seq_ints(PySequence_Fast_GET_ITEM(fast, k), "symmetry", buf, NSITES, 0, NSITES - 1);
        if (n < 0 || n != NSITES) {
            Py_DECREF(fast);
            if (n >= 0) PyErr_SetString(PyExc_ValueError, "a symmetry maps all 30 sites");
            return NULL;
        }
        set_symmetry(k, buf);
    }
    Py_DECREF(fast);
    tables_ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"init", module_init, METH_VARARGS,
     "init(above, chains, segments, symmetries): the board tables, from spheria.engine.board"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cakesolver_module = {
    PyModuleDef_HEAD_INIT, "_cakesolver", "The compiled exact search of Special Cake's eating phase.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cakesolver(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&cakesolver_module);
    if (!m) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
