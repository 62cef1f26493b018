/**
 * @file pool-priv.h (private: the pool engine behind cr_system)
 * @brief Planar ball pools: discs in a plane, contacts between any pair found
 * by a cell-list neighbour search with a skin, fixed walls (half-planes),
 * integrated with CVODES and a sparse (KLU) Jacobian.
 *
 * Same contact law and conventions as chains (contact.h, ARCHITECTURE.md):
 * overlap δ = rᵢ + rⱼ − |pⱼ − pᵢ|, normal n from i to j, force f n on j and
 * −f n on i. Every contact closing, maximum compression and release is located
 * by root finding (the engine's own, over the functions that changed sign in
 * a step); scalar impulses ∫ f dt and vector impulses ∫ f n dt are
 * quadratures. Newton iterations use KLU or, for large pools, matrix-free
 * GMRES; non-stiff pools may use Adams with fixed-point iteration instead
 * (cr_linear_solver, model.h). Without a field only the discs near an
 * overlapping or approaching contact are integrated (the active region,
 * integration.active_region); the others move exactly.
 */
#ifndef CRADLE_POOL_H
#define CRADLE_POOL_H

#include "cradle/common.h"
#include "cradle/contact.h"
#include "cradle/model.h"
#include "sim-priv.h"

typedef struct cr_pool cr_pool;

/** One disc (a plain input struct). */
typedef struct {
    double mass, radius; /**< kg, m */
    double x, y;         /**< centre, m */
    double vx, vy;       /**< velocity, m/s */
} cr_disc;

/**
 * The pool of a dim-2 model (validated first): its discs, walls, gravity, pair
 * laws (each contact takes cr_model_pair_law when it first appears) and
 * settings. Keeps its own copy of the model. Overlaps beyond CR_GEOM_TOL of the
 * smaller radius are found by the first neighbour search: cr_pool_run refuses
 * them with CR_ERR_MODEL before it integrates anything. @return NULL with the
 * reason.
 */
cr_pool *cr_pool_create_from_model(const cr_model *model, char *msg, size_t msglen);
/** A pool of @p n discs with one contact law (a dim-2 model built on the spot). */
cr_pool *cr_pool_create(size_t n, const cr_disc *discs, const cr_contact_params *law, char *msg,
                        size_t msglen);
void cr_pool_destroy(cr_pool *p);

/**
 * Adds a fixed wall: the half-plane n·p ≥ offset is free space for the disc
 * surfaces (disc i overlaps the wall by offset + rᵢ − n·pᵢ). @p nx, @p ny need not
 * be unit. Every disc must start inside every wall (CR_ERR_MODEL otherwise).
 */
int cr_pool_add_wall(cr_pool *p, double nx, double ny, double offset);
/** As cr_pool_add_wall, with the wall's own contact law (NULL: the discs' law). */
int cr_pool_add_wall_law(cr_pool *p, double nx, double ny, double offset,
                         const cr_contact_params *law);
int cr_pool_set_tolerances(cr_pool *p, double rtol, double atol);
/** Linear solver of the Newton iterations (cr_linear_solver, model.h). */
int cr_pool_set_linear_solver(cr_pool *p, cr_linear_solver solver);
/** Neighbour-list skin relative to the largest radius (default 0.5). */
int cr_pool_set_skin(cr_pool *p, double rel_skin);
/**
 * Integrates to @p t_end (s). With t_end ≤ 0 the run ends when no contact is
 * loaded and no pair of discs (nor disc and wall) approaches on a collision
 * course; that check is O(N²) and limited to N ≤ 2000; with gravity an end
 * time is needed.
 */
int cr_pool_run(cr_pool *p, double t_end);
/** Called at t = 0, every output interval and the end; non-zero stops the run. */
typedef int (*cr_pool_output_fn)(const cr_pool *pool, void *user);
/** Output interval in s (≤ 0: δ* /(4V), but at least t_end/1000 when t_end is given). */
int cr_pool_set_output(cr_pool *p, double interval, cr_pool_output_fn fn, void *user);
/** Async-signal-safe: asks a running cr_pool_run to stop (CR_ERR_INTERRUPTED). */
void cr_pool_request_stop(cr_pool *p);
const char *cr_pool_last_error(const cr_pool *p);
/** Why the run ended ("end time reached", "all contacts open and separating", …). */
const char *cr_pool_end_reason(const cr_pool *p);

size_t cr_pool_disc_count(const cr_pool *p);
double cr_pool_get_time(const cr_pool *p);
/** Positions and velocities, 2N values each (x₀, y₀, x₁, …). */
void cr_pool_get_positions(const cr_pool *p, double *xy);
void cr_pool_get_velocities(const cr_pool *p, double *vxy);
double cr_pool_kinetic_energy(const cr_pool *p);
double cr_pool_potential_energy(const cr_pool *p);
double cr_pool_dissipated_work(const cr_pool *p);
void cr_pool_momentum(const cr_pool *p, double *px, double *py);

/**
 * Contacts that have ever been candidates, numbered in order of appearance:
 * disc pairs (i, j) with i < j, or disc i and wall w (j = −1 − w).
 */
size_t cr_pool_contact_count(const cr_pool *p);
void cr_pool_contact_bodies(const cr_pool *p, size_t k, long *i, long *j);
/** ∫ f dt (N s) and ∫ f n dt (2 values) of contact k since t = 0. */
double cr_pool_contact_impulse(const cr_pool *p, size_t k, double *vector);
/** Events (their `contact` field indexes the contacts above). */
size_t cr_pool_event_count(const cr_pool *p);
const cr_event *cr_pool_events(const cr_pool *p);
cr_sim_stats cr_pool_get_stats(const cr_pool *p);
/** Neighbour-list rebuilds so far (each restarts the integrator). */
long cr_pool_rebuilds(const cr_pool *p);

/**
 * Overlap δ, rate δ̇, force and whether contact @p k is loaded (f > 0 with δ above
 * the event margin), at the current state. Contacts out of the candidate list are
 * open: δ < 0, f = 0.
 */
void cr_pool_contact_state(const cr_pool *p, size_t k, double *delta, double *rate, double *force,
                           int *loaded);
/** Current unit normal of contact @p k: from disc i towards j (the frozen one
 * under integration.normals: frozen), or the wall's. */
void cr_pool_contact_normal(const cr_pool *p, size_t k, double *n);
/** Masses and radii of the discs (N values each; either may be NULL). */
void cr_pool_get_discs(const cr_pool *p, double *mass, double *radius);

/**
 * Called after every root return, once its events are recorded (indices
 * @p first … cr_pool_event_count − 1); non-zero stops the run. See
 * cr_sim_event_fn.
 */
typedef int (*cr_pool_event_fn)(const cr_pool *pool, size_t first, void *user);
int cr_pool_set_event_callback(cr_pool *p, cr_pool_event_fn fn, void *user);
/**
 * Diagnostic: compares the analytic sparse Jacobian at the current state with
 * central differences of the right-hand side (dense, O(N²): small pools) and
 * returns in @p max_rel the largest difference relative to the largest entry.
 * Call after cr_pool_run with the KLU solver (CR_ERR_INVALID otherwise).
 */
int cr_pool_check_jacobian(cr_pool *p, double *max_rel);

#endif
