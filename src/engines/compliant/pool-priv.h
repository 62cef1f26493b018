/**
 * @file pool-priv.h (private: the pool engine behind cr_system)
 * @brief Ball pools: discs in a plane (dim 2) or spheres in space (dim 3, the
 * same engine with a longer stride), contacts between any pair found by a
 * cell-list neighbour search with a skin, fixed walls (half-planes,
 * half-spaces), integrated with CVODES and a sparse (KLU) Jacobian.
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
#include "cradle/system.h"
#include "engines/common/root-search.h"

typedef struct cr_pool cr_pool;

/** One disc (a plain input struct). */
typedef struct {
    double mass, radius; /**< kg, m */
    double x, y;         /**< centre, m */
    double vx, vy;       /**< velocity, m/s */
} cr_disc;

/**
 * The pool of a dim-2 or dim-3 model (validated first): its discs, walls, gravity, pair
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
 * Adds a fixed wall: the half-plane (half-space) n·p ≥ offset is free space for
 * the disc surfaces (disc i overlaps the wall by offset + rᵢ − n·pᵢ). @p normal
 * (dim values) need not be unit. Every disc must start inside every wall
 * (CR_ERR_MODEL otherwise).
 */
int cr_pool_add_wall(cr_pool *p, const double *normal, double offset);
/** As cr_pool_add_wall, with the wall's own contact law (NULL: the discs' law). */
int cr_pool_add_wall_law(cr_pool *p, const double *normal, double offset,
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
/** Positions and velocities, dim·N values each (x₀, y₀, [z₀,] x₁, …). */
void cr_pool_get_positions(const cr_pool *p, double *xy);
void cr_pool_get_velocities(const cr_pool *p, double *vxy);
double cr_pool_kinetic_energy(const cr_pool *p);
double cr_pool_potential_energy(const cr_pool *p);
double cr_pool_dissipated_work(const cr_pool *p);
/** Momentum, dim values. */
void cr_pool_momentum(const cr_pool *p, double *mom);

/**
 * Contacts that have ever been candidates, numbered in order of appearance:
 * disc pairs (i, j) with i < j, or disc i and wall w (j = −1 − w).
 */
size_t cr_pool_contact_count(const cr_pool *p);
void cr_pool_contact_bodies(const cr_pool *p, size_t k, long *i, long *j);
/** ∫ f dt (N s) and ∫ f n dt (dim values) of contact k since t = 0. */
double cr_pool_contact_impulse(const cr_pool *p, size_t k, double *vector);
/** Events (their `contact` field indexes the contacts above). */
size_t cr_pool_event_count(const cr_pool *p);
const cr_event *cr_pool_events(const cr_pool *p);
cr_run_stats cr_pool_get_stats(const cr_pool *p);
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

/* ==== Engine internals: shared by the src/engines/compliant/pool*.c files only ================
 *
 * One job a file (docs/design.md, "Pool engine"):
 *   pool.c            create, destroy, scales, the cr_pool_set_* setters
 *   pool-neighbours.c the contact registry, cell-list candidates, slots and
 *                     neighbour rebuilds
 *   pool-quad.c       quadrature slots of the warm contacts (impulses, work)
 *   pool-rhs.c        the right-hand sides (motion, quadratures) and the
 *                     check of the Jacobian against differences of the first
 *   pool-solver.c     the CVODES instance, restarts and the solvers of its
 *                     iterations: KLU on the warm Jacobian pattern, GMRES with
 *                     its block preconditioner, or fixed point
 *   pool-roots.c      root functions and the engine's own event location
 *   pool-region.c     the active region (compact state, exact flight)
 *   pool-run.c        setup and the run loop (steps, events, outputs, end)
 *   pool-query.c      the cr_pool_get_* queries
 *   pool-engine.c     the ops table behind cr_system
 *
 * State (scaled): per disc its displacement from the start /δ* and its
 * velocity /V, dim components each: y[sd·i … sd·i + sd − 1] with the stride
 * sd = 2 dim (dim 2: dx, dy, vx, vy). Every loop over components runs over
 * dim; 2-D sums keep their order (and hypot), so planar pools are bit for bit
 * what they were. Internal functions are prefixed cr_pl_.
 */

#include <cvodes/cvodes.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <signal.h>
#include <stdint.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "engines/common/integrator.h"
#include "engines/common/engine-common.h"
#include "model/contact-force.h"

/* One contact that has ever been a candidate. Vectors have dim components. */
typedef struct {
    long i, j;             /* discs, or j = −1 − wall */
    double a0[3], R, c0;   /* pair geometry at t = 0; walls: c0 = initial overlap */
    double P, Pv[3];       /* impulses before its quadrature slot (scaled) */
    long slot;             /* −1 when not a candidate */
    long qslot;            /* its impulses' quadratures (−1: none; see warm_up) */
    cr_contact_params law; /* the pair's law, from the model when the contact appears */
    /* frozen normal (integration.normals: frozen): n₀, overlap δ₀ and scaled
     * relative displacement b₀ at first touch; kept while a candidate */
    int frozen;
    double fn[3], fdelta, fb[3];
    double tclose; /* scaled time of its last closing (0 before any) */
} cr_pool_contact;

struct cr_pool {
    size_t n, nw;
    int dim;    /* 2 (discs) or 3 (spheres) */
    size_t sd;  /* state values per disc: 2 dim */
    size_t nqv; /* quadratures per slot: ∫ f dt and ∫ f n dt, 1 + dim */
    /* the engine's own copy: pair laws are looked up as contacts appear, and the
     * caller may destroy its model after cr_system_create */
    cr_model *model;
    double *m, *r, *accel; /* accel: T/(V m), 0 for a fixed disc */
    char *fixed;           /* per disc: fixed (cr_model_set_fixed), it never moves */
    double *x0, *v0;       /* start positions and velocities, dim per disc */
    double *wn, *woff;     /* wall unit normals (dim per wall) and offsets */
    double g[3];           /* uniform gravity, m/s² */
    double L, V, T, Pscale, Escale, rmax, skin_rel, skin;
    double rtol, atol, jac_floor;
    cr_method method;
    int frozen_normals; /* integration.normals: frozen */

    cr_pool_contact *c;
    size_t nc, ccap;
    uint64_t *hkey; /* open-addressing map pair key → contact id + 1 */
    size_t *hval;
    size_t hcap;

    size_t nslots;    /* grown as the candidates need (grow_slots) */
    int quad_resized; /* the quadrature vector changed length: CVODE needs it again */
    /* quadrature slots (nqv impulses each, then the dissipated energy): only
     * contacts near moving discs have one (warm_up); free slots have carried
     * exactly 0 since the last restart, so a contact may take one at any time */
    long *qc; /* contact of each quadrature slot */
    size_t nq, qcap;
    char *hot;          /* per disc, scratch of warm_up */
    long missed;        /* steps taken again for a contact without quadratures */
    int pattern_stale;  /* warm contacts the KLU pattern lacks (lay_pattern) */
    long *slot_contact; /* contact id of each slot, −1 free */
    double *dref;       /* displacements at the last rebuild (scaled) */
    size_t **nbr;       /* per disc: neighbour discs (j > i and j < i) in the candidates */
    size_t *nnbr, *nbrcap;
    size_t **bc; /* per disc: every contact id it has had (cr_system_body_contacts) */
    size_t *nbc, *bccap;

    SUNContext ctx;
    void *cvode;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS; /* fixed-point iteration (no Jacobian), or NULL: Newton */
    int fixed_point;
    int *rootsfound;
    /* the engine's own event location (see locate_roots): every root function
     * at the last point searched (glo) and at the end of the step (ghi), the
     * functions that changed sign, their values in the search, the state at
     * the end of the step, and how many evaluations it made */
    N_Vector ystep;
    double *glo, *ghi, *clo, *chi, *cmid, tlo;
    size_t *cand, nroot;
    unsigned char *guide; /* per candidate: may steer the root search (guides) */
    size_t nsearch;       /* candidates of the search under way */
    long gevals;
    /* hidden crossings (cr_pl_hidden_end): the state at the end of a shortened
     * search (sd n) and the state kept while it is found (2 sd n: full, compact) */
    double *ysub, *ysave;
    long hidden; /* steps whose search a hidden crossing shortened */
    /* contacts a step passed over (pool-run.c, passed_over): steps taken
     * again, and the contact whose step limit stands until it opens (-1) */
    long retakes, hmax_contact;
    sunindextype *pat_ptr, *pat_idx; /* the Jacobian pattern, restored at every evaluation */
    size_t pat_nnz;
    cr_linear_solver solver;
    double *pblock; /* GMRES: per disc, the inverse of the sd×sd block of I − γJ */

    /* active region (docs/design.md, "Active region"): CVODES integrates the
     * discs act[0 … na) only, in the compact state ya (sd values per disc, in
     * disc order; pos[i] is disc i's place, −1 outside); every other disc
     * moves exactly, at rest or in free flight (fly) from its state at tau_r
     * (yr). y and ystep stay full states. Off (region 0): act is the
     * identity, ya and yastep are y and ystep. */
    int region;
    size_t na, *act, *fly, nfly, pad;
    long *pos;
    char *dstate; /* per disc: DISC_REST, DISC_FLY or DISC_ACTIVE */
    double tau_r, tau_stop, *yr, *yfull;
    N_Vector ya, yastep;
    size_t *live, nlive; /* root functions that can change: slots and discs that move */
    size_t *queue;       /* scratch of choose_active */
    long region_builds, max_active, since_check;
    long region_shrinks; /* regions rebuilt smaller (cr_pl_region_oversized) */
    int need_region;     /* a contact with a disc outside the region closed */

    double t;
    int ran;
    long rebuilds;
    cr_pool_event_fn ev_fn;
    void *ev_user;
    cr_pool_output_fn out_fn;
    void *out_user;
    int (*out_wanted)(void *user); /* NULL: out_fn always reads the state */
    double out_interval;
    long out_every;                /* output.every: a row at every k-th step */
    long out_max_rows;             /* output.max_rows (0: default) */
    int out_none;                  /* output.fields: none: rows at t = 0 and the end only */
    char out_where[CR_ERRMSG_LEN]; /* where the interval was given (its refusal names it) */
    volatile sig_atomic_t stop_requested;
    cr_event *events;
    size_t nev, evcap;
    cr_run_stats stats;
    cr_run_stats banked; /* CVODE counters of the segments before the last restart */
    char end_reason[128];
    char err[CR_ERRMSG_LEN];
};

static inline int cr_pl_is_wall(const cr_pool_contact *k)
{
    return k->j < 0;
}

/* The law of a contact (per pair: cr_model_pair_law when it first appeared). */
static inline const cr_contact_params *cr_pl_law(const cr_pool *p, const cr_pool_contact *k)
{
    (void)p;
    return &k->law;
}

/* Dim-generic vector helpers: a·b summed in component order, and |a| by
 * hypot (in 3-D hypot of hypot), so that dim 2 gives what the planar code gave. */
static inline double cr_pl_dot(const double *a, const double *b, int dim)
{
    double s = a[0] * b[0] + a[1] * b[1];
    return dim == 3 ? s + a[2] * b[2] : s;
}

static inline double cr_pl_norm(const double *a, int dim)
{
    return dim == 3 ? hypot(hypot(a[0], a[1]), a[2]) : hypot(a[0], a[1]);
}

/* Disc i's displacement and velocity in the scaled state y (dim values each). */
static inline const double *cr_pl_disp(const cr_pool *p, const double *y, size_t i)
{
    return y + p->sd * i;
}

static inline const double *cr_pl_vel(const cr_pool *p, const double *y, size_t i)
{
    return y + p->sd * i + (size_t)p->dim;
}

/* Disc i's displacement since the last neighbour search (scaled, dim values). */
static inline void cr_pl_moved(const cr_pool *p, const double *y, size_t i, double *dv)
{
    const double *di = cr_pl_disp(p, y, i), *ref = p->dref + (size_t)p->dim * i;
    for (int d = 0; d < p->dim; d++)
        dv[d] = di[d] - ref[d];
}

/* Disc i moves in the scaled state y (a velocity component is not 0). */
static inline int cr_pl_moving(const cr_pool *p, const double *y, size_t i)
{
    const double *v = cr_pl_vel(p, y, i);
    return v[0] != 0.0 || v[1] != 0.0 || (p->dim == 3 && v[2] != 0.0);
}

/* Gravity is on (some component is not 0). */
static inline int cr_pl_has_field(const cr_pool *p)
{
    return p->g[0] != 0.0 || p->g[1] != 0.0 || p->g[2] != 0.0;
}

/* The relative velocity w = V (vⱼ − vᵢ) of a pair in the scaled state y. */
static inline void cr_pl_rel_vel(const cr_pool *p, const double *y, size_t i, size_t j, double *w)
{
    const double *vi = cr_pl_vel(p, y, i), *vj = cr_pl_vel(p, y, j);
    for (int d = 0; d < p->dim; d++)
        w[d] = p->V * (vj[d] - vi[d]);
}

/* A pair contact along its frozen normal n₀: δ = δ₀ − n₀·(b − b₀), linear in the
 * relative displacement b, and δ̇ = −n₀·w; the force stays along n₀. This is the
 * geometry of the rigid laws (W fixed at the impact configuration), and it makes
 * the pool scale-invariant: α does not depend on K. dist = ∞ drops the turning
 * terms (divided by the centre distance) from the Jacobian blocks. */
static inline void cr_pl_frozen_geom(const cr_pool *p, const double *y, const cr_pool_contact *k,
                                     double *delta, double *rate, double *n, double *dist)
{
    size_t i = (size_t)k->i, j = (size_t)k->j;
    const double *di = cr_pl_disp(p, y, i), *dj = cr_pl_disp(p, y, j);
    double b[3] = {0}, w[3] = {0};
    for (int d = 0; d < p->dim; d++)
        b[d] = dj[d] - di[d] - k->fb[d];
    *delta = k->fdelta - p->L * cr_pl_dot(k->fn, b, p->dim);
    cr_pl_rel_vel(p, y, i, j, w);
    for (int d = 0; d < p->dim; d++)
        n[d] = k->fn[d];
    *dist = INFINITY;
    *rate = -cr_pl_dot(k->fn, w, p->dim);
}

/* Overlap, rate δ̇, unit normal n (dim values: from i towards j, or the wall
 * normal) and centre distance (walls: unused; a frozen normal: ∞) of contact
 * k in the scaled state y. */
static inline void cr_pl_geom(const cr_pool *p, const double *y, const cr_pool_contact *k,
                              double *delta, double *rate, double *n, double *dist)
{
    size_t i = (size_t)k->i;
    int dim = p->dim;
    if (k->frozen) {
        cr_pl_frozen_geom(p, y, k, delta, rate, n, dist);
        return;
    }
    if (cr_pl_is_wall(k)) {
        const double *m = p->wn + (size_t)dim * (size_t)(-1 - k->j);
        *delta = k->c0 - p->L * cr_pl_dot(m, cr_pl_disp(p, y, i), dim);
        *rate = -p->V * cr_pl_dot(m, cr_pl_vel(p, y, i), dim);
        for (int d = 0; d < dim; d++)
            n[d] = m[d];
        *dist = 1.0;
        return;
    }
    size_t j = (size_t)k->j;
    const double *di = cr_pl_disp(p, y, i), *dj = cr_pl_disp(p, y, j);
    double b[3] = {0}, a[3] = {0}, w[3] = {0};
    for (int d = 0; d < dim; d++) {
        b[d] = p->L * (dj[d] - di[d]);
        a[d] = k->a0[d] + b[d];
    }
    double dd = cr_pl_norm(a, dim);
    double num = k->c0 - 2.0 * cr_pl_dot(k->a0, b, dim) - cr_pl_dot(b, b, dim);
    *delta = num / (k->R + dd);
    for (int d = 0; d < dim; d++)
        n[d] = a[d] / dd;
    *dist = dd;
    cr_pl_rel_vel(p, y, i, j, w);
    *rate = -cr_pl_dot(n, w, dim);
}

/* Overlap and rate of contact k alone (cr_pl_geom without the normal). */
static inline void cr_pl_overlap(const cr_pool *p, const double *y, const cr_pool_contact *k,
                                 double *delta, double *rate)
{
    double n[3] = {0}, dist;
    cr_pl_geom(p, y, k, delta, rate, n, &dist);
}

/* Certainly open: a turning pair contact whose centres are farther apart than
 * R (the numerator of δ is not positive), found without a square root. Its
 * force and dissipation are 0. */
static inline int cr_pl_surely_open(const cr_pool *p, const double *y, const cr_pool_contact *k)
{
    if (k->frozen || cr_pl_is_wall(k))
        return 0;
    const double *di = cr_pl_disp(p, y, (size_t)k->i), *dj = cr_pl_disp(p, y, (size_t)k->j);
    double b[3] = {0};
    for (int d = 0; d < p->dim; d++)
        b[d] = p->L * (dj[d] - di[d]);
    return k->c0 - 2.0 * cr_pl_dot(k->a0, b, p->dim) - cr_pl_dot(b, b, p->dim) <= 0.0;
}

/* Disc i's place in the compact state (the identity without a region). */
static inline size_t cr_pl_cpos(const cr_pool *p, size_t i)
{
    return p->region ? (size_t)p->pos[i] : i;
}

/* Root functions per candidate slot: closing, compression rate, force
 * release, force rate ḟ (the located peaks of damped laws); then one per disc. */
#define CR_PL_SR 4

/* qslot of a contact the safety net found loading without one (missed_quadratures) */
#define CR_PL_WANTS_QSLOT (-2)

/* ---- pool-neighbours.c: contact records, candidates, slots, rebuilds */
void cr_pl_freeze_normal(const cr_pool *p, const double *y, cr_pool_contact *k);
int cr_pl_grow_slots(cr_pool *p, size_t need);
int cr_pl_rebuild(cr_pool *p);
int cr_pl_method(const cr_pool *p); /* the cr_method a run takes */

/* ---- pool-quad.c: quadrature slots of the warm contacts */
double cr_pl_impulse(const cr_pool *p, const cr_pool_contact *k, double *pv);
int cr_pl_take_qslot(cr_pool *p, long id);
int cr_pl_warm(const cr_pool *p, const cr_pool_contact *k);
int cr_pl_warm_up(cr_pool *p, const double *y);
int cr_pl_layout_quadratures(cr_pool *p, const double *y);
int cr_pl_resize_quadratures(cr_pool *p);

/* ---- pool-rhs.c: CVODE's right-hand sides */
int cr_pl_rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user);
int cr_pl_quad_rhs(sunrealtype t, N_Vector yv, N_Vector qd, void *user);

/* ---- pool-solver.c: the CVODES instance and its solvers */
int cr_pl_new_cvode(cr_pool *p, double tau0, const char *what);
int cr_pl_jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
              N_Vector t2, N_Vector t3);
int cr_pl_attach_solver(cr_pool *p);
/* Frees the linear and nonlinear solvers and the matrix (NULL after). */
void cr_pl_free_solver(cr_pool *p);
int cr_pl_use_new_list(cr_pool *p);
int cr_pl_restart(cr_pool *p, double tau, const char *what);

/* ---- pool-roots.c: root functions, event location, events */
void cr_pl_roots_afresh(cr_pool *p);
void cr_pl_roots_step(cr_pool *p, const double *y, double *g);
double cr_pl_root_one(const cr_pool *p, const double *y, size_t q);
size_t cr_pl_sign_changes(cr_pool *p, size_t prev);
double cr_pl_hidden_end(cr_pool *p, double taun, const double *ys);
double cr_pl_locate_roots(cr_pool *p, double tlo, double thi, double h, size_t nc);
void cr_pl_state_at(cr_pool *p, double tau);
int cr_pl_handle_roots(cr_pool *p, int *need_rebuild);

/* ---- pool-region.c: the active region */
int cr_pl_use_region(const cr_pool *p);
int cr_pl_region_alloc(cr_pool *p);
void cr_pl_region_free(cr_pool *p);
int cr_pl_region_build(cr_pool *p);
int cr_pl_region_oversized(cr_pool *p);
void cr_pl_fill_full(const cr_pool *p, double tau, const double *ya, double *y);
const double *cr_pl_full_state(const cr_pool *p, double tau, N_Vector yv);

#endif
