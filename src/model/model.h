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

/* Where output.interval was given ("FILE:LINE: output.interval", or the
 * --set that gave it), so that an engine's refusal of the interval, which
 * needs the contact time scale, names the file's line as every model-file
 * error does. The model file reader sets it (NULL clears it); the getter
 * gives "output.interval" for a model built in code. */
int cr_model_set_interval_where(cr_model *model, const char *where);
const char *cr_model_interval_where(const cr_model *model);

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

/* The key of a cell in dim 2 or 3 (@p c: dim indices). In 3-D two cells may
 * share a key (the prime stride again, on the 2-D key): a shared key only
 * makes a cell list look at more bodies, each checked by its distance. */
static inline int64_t cr_cell_key_dim(const int64_t *c, int dim)
{
    int64_t k = cr_cell_key(c[0], c[1]);
    return dim == 3 ? cr_cell_key(k, c[2]) : k;
}

/* The work uniform gravity @p g (dim components) and a pendulum suspension
 * (pivot, length, its gravity pg; length 0: none) do on a body of mass @p m
 * moving from @p x0 to @p x1 along the engine's coordinates: −ΔV, with
 * V = −m g·x + m pg L (1 − cos((x − pivot)/L)). Written as differences
 * (cos a₀ − cos a₁ = 2 sin((a₀ + a₁)/2) sin((a₁ − a₀)/2)) so that a short
 * episode's small displacement keeps its digits. 0 for a fixed body. */
static inline double cr_field_work(double m, const double *g, int dim, double pivot, double length,
                                   double pg, const double *x0, const double *x1)
{
    if (!isfinite(m))
        return 0.0;
    double W = 0.0;
    for (int d = 0; d < dim; d++)
        W += m * g[d] * (x1[d] - x0[d]);
    if (length > 0.0) {
        double a0 = (x0[0] - pivot) / length, a1 = (x1[0] - pivot) / length;
        W -= 2.0 * m * pg * length * sin(0.5 * (a0 + a1)) * sin(0.5 * (a1 - a0));
    }
    return W;
}

/* Planar rigid bodies (issue 25, dim 2): a clump groups the model bodies
 * first … first + count − 1 (its features: discs fixed in its frame, each a
 * model body at its lab position at t = 0) under one mass, centre of mass x,
 * moment of inertia J about it, angle θ and angular velocity ω. Features of
 * one clump never touch each other. A model without clumps is what it was. */
typedef struct {
    double mass, J;      /* kg, kg m² */
    double x[2], v[2];   /* centre of mass, m; its velocity, m/s */
    double theta, omega; /* rad, rad/s */
    size_t first, count; /* its features */
} cr_clump;

/* Adds a clump over features already added (CR_ERR_INVALID: bad range, mass or
 * J not positive, dim not 2). @return its index or an error code. */
int cr_model_add_clump(cr_model *model, const cr_clump *c);
size_t cr_model_clump_count(const cr_model *model);
const cr_clump *cr_model_get_clump(const cr_model *model, size_t k);

/* cr_model_embed's second half: every vector of a dim-2 or dim-3 model moved
 * in place by p → R p + t (R row-major 3×3, a rotation; dim 2 keeps only
 * rotations about z), velocities, wall normals and gravity by R, wall offsets
 * by n'·t; the model becomes dim @p dim (≥ its own). */
int cr_model_move_rigidly(cr_model *model, int dim, const double R[9], const double t[3]);

#endif
