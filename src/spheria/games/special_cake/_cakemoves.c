/*
 * _cakemoves: Special Cake's eating moves, compiled (optional: the games layer falls back to
 * Python when this module is absent).
 *
 * eating_moves(white, black, red, cherry, rule) returns exactly what
 * spheria.games.special_cake lists in Python: a dict from each move to the colour masks it
 * leaves, one move per distinct outcome, the first order found in the same search order
 * (single candies by site, then the lines of board.SEGMENTS, each eaten in every order where
 * every candy is unpinned when its turn comes).
 *
 * The board tables and the move objects are handed in once by init(), from spheria.engine.board
 * and spheria.games.special_cake, so this file holds no geometry of its own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "cake_steps.h"

#define MAX_MOVES 1024
#define SEEN_BITS 11

enum { RULE_MIXED = 0, RULE_ANY = 1, RULE_SAME = 2 };

static int ready = 0;
static int SEG_FIRST_MOVE[MAX_SEGMENTS]; /* index in MOVES of the segment's first order */
static PyObject *MOVES = NULL;           /* tuple: 30 single eats, then every order of every segment */
static const int FACTORIAL[MAX_SEG_LEN + 1] = {1, 1, 2, 6, 24};

/* What one call found: outcomes in order, deduplicated through a stamped hash set. */
typedef struct {
    int n;
    int move[MAX_MOVES];
    uint32_t w[MAX_MOVES], b[MAX_MOVES], r[MAX_MOVES];
} Found;

static uint64_t seen_key[1 << SEEN_BITS];
static uint32_t seen_stamp[1 << SEEN_BITS];
static uint32_t stamp = 0;

/* Keep the outcome unless an earlier move reached it (the first order found is the one listed). */
static void found_add(Found *f, int move, uint32_t w, uint32_t b, uint32_t r) {
    uint64_t key = (uint64_t)(w | r) | ((uint64_t)(b | r) << 30);
    size_t slot = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - SEEN_BITS));
    while (seen_stamp[slot] == stamp) {
        if (seen_key[slot] == key) return;
        slot = (slot + 1) & ((1 << SEEN_BITS) - 1);
    }
    seen_stamp[slot] = stamp;
    seen_key[slot] = key;
    if (f->n >= MAX_MOVES) return; /* cannot happen: at most 30 + 762 orders */
    f->move[f->n] = move;
    f->w[f->n] = w;
    f->b[f->n] = b;
    f->r[f->n] = r;
    f->n++;
}

/* The rank of a permutation of 0..n-1 in lexicographic order (as itertools.permutations lists it). */
static int order_rank(const uint8_t *order, int n) {
    int rank = 0;
    for (int i = 0; i < n; i++) {
        int smaller = 0;
        for (int j = i + 1; j < n; j++) smaller += order[j] < order[i];
        rank += smaller * FACTORIAL[n - 1 - i];
    }
    return rank;
}

/* Eat the line candies now on pos[0..n) (first on the line at index start[k]) in every order. */
static void line_orders(Found *f, int g, uint32_t w, uint32_t b, uint32_t r, const uint8_t *pos, const uint8_t *start,
                        int n, uint8_t *order, int depth) {
    uint32_t occ = w | b | r;
    for (int i = 0; i < n; i++) {
        int s = pos[i];
        if (pinned(s, occ)) continue; /* pinned now; maybe later in another order */
        uint8_t chain[MAX_SEG_LEN];
        int len = drop_chain(occ, s, chain);
        uint32_t nw = shift_down(w, chain, len), nb = shift_down(b, chain, len), nr = shift_down(r, chain, len);
        order[depth] = start[i];
        if (n == 1) {
            found_add(f, SEG_FIRST_MOVE[g] + order_rank(order, depth + 1), nw, nb, nr);
            continue;
        }
        uint8_t rest[MAX_SEG_LEN], rest_start[MAX_SEG_LEN];
        line_rest(pos, n, i, chain, len, rest);
        for (int j = 0, k = 0; j < n; j++)
            if (j != i) rest_start[k++] = start[j];
        line_orders(f, g, nw, nb, nr, rest, rest_start, n - 1, order, depth + 1);
    }
}

static void generate(Found *f, uint32_t w, uint32_t b, uint32_t r, int cherry, int rule) {
    uint32_t occ = w | b | r;
    f->n = 0;
    if (++stamp == 0) {
        memset(seen_stamp, 0, sizeof seen_stamp);
        stamp = 1;
    }
    for (uint32_t m = occ; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        if (pinned(s, occ)) continue;
        if (cherry && (r >> s & 1)) continue; /* the cherry is eaten only alone, ending the game */
        uint8_t chain[MAX_SEG_LEN];
        int len = drop_chain(occ, s, chain);
        found_add(f, s, shift_down(w, chain, len), shift_down(b, chain, len), shift_down(r, chain, len));
    }
    for (int g = 0; g < NSEG; g++) {
        uint32_t sm = SEG_MASK[g];
        if ((occ & sm) != sm) continue;
        if (cherry && (r & sm)) continue;
        int colours = ((w & sm) != 0) + ((b & sm) != 0) + ((r & sm) != 0);
        if (rule == RULE_MIXED && colours < 2) continue;
        if (rule == RULE_SAME && colours != 1) continue;
        if (!(SEG_HOLDS[g] & occ)) {
            /* nothing rests on the line: no candy is pinned or drops, the first order is the line's own */
            found_add(f, SEG_FIRST_MOVE[g], w & ~sm, b & ~sm, r & ~sm);
            continue;
        }
        uint8_t start[MAX_SEG_LEN] = {0, 1, 2, 3}, order[MAX_SEG_LEN];
        line_orders(f, g, w, b, r, SEG_SITES[g], start, SEG_LEN[g], order, 0);
    }
}

static Found found;

static PyObject *eating_moves(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long w, b, r;
    int cherry, rule;
    if (!PyArg_ParseTuple(args, "KKKpi", &w, &b, &r, &cherry, &rule)) return NULL;
    if (!ready) {
        PyErr_SetString(PyExc_RuntimeError, "_cakemoves.init() has not been called");
        return NULL;
    }
    if ((w | b | r) >> NSITES || (w & b) || (w & r) || (b & r)) {
        PyErr_SetString(PyExc_ValueError, "colour masks must be disjoint masks of sites 0..29");
        return NULL;
    }
    if (rule < RULE_MIXED || rule > RULE_SAME) {
        PyErr_SetString(PyExc_ValueError, "rule is 0 (mixed), 1 (any) or 2 (same)");
        return NULL;
    }
    generate(&found, (uint32_t)w, (uint32_t)b, (uint32_t)r, cherry, rule);
    PyObject *result = PyDict_New();
    if (!result) return NULL;
    for (int i = 0; i < found.n; i++) {
        PyObject *masks = Py_BuildValue("(kkk)", (unsigned long)found.w[i], (unsigned long)found.b[i],
                                        (unsigned long)found.r[i]);
        if (!masks || PyDict_SetItem(result, PyTuple_GET_ITEM(MOVES, found.move[i]), masks) < 0) {
            Py_XDECREF(masks);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(masks);
    }
    return result;
}

/* Read up to max ints of lo..hi from a sequence; returns how many, or -1 with an error set. */
static int read_ints(PyObject *seq, int *out, int max, int lo, int hi) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of site numbers");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d numbers expected", max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if ((v == -1 && PyErr_Occurred()) || v < lo || v > hi) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%ld is not %d..%d", v, lo, hi);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static PyObject *init(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *above, *chains, *segments, *moves;
    if (!PyArg_ParseTuple(args, "OOOO!", &above, &chains, &segments, &PyTuple_Type, &moves)) return NULL;
    int buf[NSITES];
    ready = 0;
    if (read_ints(above, buf, NSITES, 0, 0x3FFFFFFF) != NSITES) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "above: one mask per site");
        return NULL;
    }
    for (int s = 0; s < NSITES; s++) ABOVE[s] = (uint32_t)buf[s];
    memset(CHAIN_LEN, 0, sizeof CHAIN_LEN);
    PyObject *fast = PySequence_Fast(chains, "chains must be a sequence");
    if (!fast) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        int n = read_ints(PySequence_Fast_GET_ITEM(fast, i), buf, MAX_SEG_LEN, 0, NSITES - 1);
        if (n < 2) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a chain has 2 sites or more");
            return NULL;
        }
        set_chain(buf, n);
    }
    Py_DECREF(fast);
    fast = PySequence_Fast(segments, "segments must be a sequence");
    if (!fast) return NULL;
    Py_ssize_t nseg = PySequence_Fast_GET_SIZE(fast);
    if (nseg > MAX_SEGMENTS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "too many segments");
        return NULL;
    }
    int next_move = NSITES;
    clear_segments();
    for (Py_ssize_t g = 0; g < nseg; g++) {
        int n = read_ints(PySequence_Fast_GET_ITEM(fast, g), buf, MAX_SEG_LEN, 0, NSITES - 1);
        if (n < 2) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a segment has 2 sites or more");
            return NULL;
        }
        add_segment(buf, n);
        SEG_FIRST_MOVE[g] = next_move;
        next_move += FACTORIAL[n];
    }
    Py_DECREF(fast);
    if (PyTuple_GET_SIZE(moves) != next_move) {
        PyErr_Format(PyExc_ValueError, "moves: %d expected (30 singles and every order of every segment)", next_move);
        return NULL;
    }
    finish_tables();
    Py_INCREF(moves);
    Py_XSETREF(MOVES, moves);
    ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"init", init, METH_VARARGS,
     "init(above, chains, segments, moves): the board tables and the move object of every eating order"},
    {"eating_moves", eating_moves, METH_VARARGS,
     "eating_moves(white, black, red, cherry, rule) -> {move: (white, black, red)}; rule 0 mixed, 1 any, 2 same"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_cakemoves", "Special Cake's eating moves, compiled.", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cakemoves(void) { return PyModule_Create(&module_def); }
