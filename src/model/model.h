/* What the engines and the calibration need from a model beyond model.h:
 * the classes of pairs that share a contact law, so that nothing walks the
 * O(N²) pairs of a pool. */
#ifndef CRADLE_MODEL_PRIV_H
#define CRADLE_MODEL_PRIV_H

#include <math.h>
#include <stdint.h>

#include "cradle/model.h"

/* Enumerating pair classes stops above this many distinct body kinds
 * (kinds² classes); a polydisperse pool has one kind per body. */
#define CR_MODEL_MAX_KINDS 256

/* Bodies that are interchangeable for every pair law without an entry of its
 * own (same mass, radius and material; fixed bodies left out): one
 * representative and the number of members per kind. rep and count hold
 * cr_model_body_count values. O(N log N). */
int cr_model_body_kinds(const cr_model *model, size_t *rep, size_t *count, size_t *nkinds);

/* Called once per class of pairs that share a law and a reduced mass: the law
 * (solved damping applied) and μ (a wall's pairs: the body's mass). A non-zero
 * return stops the enumeration and is returned. */
typedef int (*cr_pair_class_fn)(const cr_contact_params *law, double mu, void *user);

/* dim 1: every pair with a unilateral contact. dim 2: every explicit pair law,
 * then every pair of body kinds and every kind with every wall; with more than
 * max_kinds kinds only the explicit pairs are enumerated and the return is
 * CR_ERR_MODEL. */
int cr_model_pair_classes(const cr_model *model, size_t max_kinds, cr_pair_class_fn fn, void *user);

/* Cell lists (the pool engine's neighbour search, the model file's overlap
 * check): the cell of a coordinate, clamped so that absurd positions cannot
 * overflow the conversion, and a hash key of a cell pair computed with unsigned
 * wrap-around (a prime stride keeps keys distinct for |cy| < 2³¹). */
static inline int64_t cr_cell_index(double x, double h)
{
    double c = floor(x / h);
    return c > 1e15 ? (int64_t)1e15 : (c < -1e15 ? -(int64_t)1e15 : (int64_t)c);
}

static inline int64_t cr_cell_key(int64_t cx, int64_t cy)
{
    return (int64_t)((uint64_t)cx * 4294967311ULL + (uint64_t)cy);
}

#endif
