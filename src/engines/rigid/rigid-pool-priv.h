/*
 * The rigid engine for pools (private): discs and half-plane walls (dim 2),
 * or spheres and half-space walls (dim 3), run as rigid bodies, event-driven,
 * behind cr_system (docs/design.md, "Rigid engine", "Rigid pools"). Both
 * dimensions are one code: every vector has dim components (D below), and
 * 2-D runs do the same arithmetic, in the same order, as before 3-D. The run
 * loop, the event list and the common getters are the shared driver's
 * (rigid-driver-priv.h); the pool's three jobs, one file each:
 *   rigid-pool.c         the model copy, the law's parameters, the driver's
 *                        callbacks, the pool's getters and the ops tables
 *   rigid-pool-flight.c  free flight (exact: straight lines, parabolas), the
 *                        next contact time, discs resting on walls
 *   rigid-pool-impact.c  impacts: the impact configuration, the law, the
 *                        accumulation rule, the events the monitor reads
 *
 * State: per disc its position p and velocity v (D values each); contacts are
 * numbered as they first come in touch (disc pairs i < j, or disc i and wall
 * w, j = CR_WALL_BODY(w)) and keep their number. A disc–wall contact may be
 * closed: the disc rests on (or slides along) the wall and the wall carries a
 * constant force λ ≥ 0 until the next impact. Contacts between discs are never
 * closed: a disc resting on another disc is refused (a stack needs persistent
 * contacts whose normals turn, which no closed form follows).
 *
 * Cost: every event checks every pair of discs, O(N²): rigid pools are for
 * tens to hundreds of discs.
 */
#ifndef CRADLE_RIGID_POOL_PRIV_H
#define CRADLE_RIGID_POOL_PRIV_H

#include <math.h>
#include <stddef.h>

#include "cradle/engine.h"
#include "cradle/laws.h"
#include "engines/common/engine-common.h"
#include "engines/rigid/rigid-driver-priv.h"
#include "engines/rigid/rigid-engines.h"

/* One contact ever in touch. */
typedef struct {
    size_t i;
    long j;          /* disc j > i, or CR_WALL_BODY(w) */
    double eps;      /* restitution of the pair law (laws that take one) */
    double K, n;     /* LZB: the pair law's K and n */
    int closed;      /* a disc–wall contact at rest: persistent */
    int joined;      /* in the impact being resolved: touching for the monitor */
    double lambda;   /* its force, N */
    double P, Pv[3]; /* ∫ f dt and ∫ f n dt since t = 0 (D components) */
} cr_rp_contact;

typedef struct cr_rigid_pool cr_rigid_pool;

struct cr_rigid_pool {
    cr_rigid_driver drv; /* first: the engine handle is the driver's (rigid-driver-priv.h) */
    cr_model *model;     /* own copy: pair laws of contacts met during the run */

    int dim; /* D: 2 (discs, half-planes) or 3 (spheres, half-spaces) */

    /* discs (count: drv.nb) and walls */
    size_t nw;
    double *mass, *radius;
    double *wn, *wo; /* wall unit normals (D per wall) and offsets */
    double g[3];
    double touching;       /* rigid.touching: θ of the compression scale */
    size_t gaps_closed;    /* contacts whose gap (> ε_geom) an impact closed */
    double gap_closed_max; /* the widest over its δ* */

    /* the law */
    cr_law_id law;
    cr_law_params lp;
    double restitution;            /* NaN: each contact's own */
    double alpha_hit, alpha_touch; /* energetic weights: approaching, merely touching */

    size_t impacts; /* impacts resolved so far */

    /* scales (L, V, T, v_rest: in drv) */
    double a_tol, mmax, amax;

    /* state (time and dissipated work: in drv) */
    double *p, *v, *acc; /* D per disc; acc: g plus the wall forces of resting discs */

    /* contacts */
    cr_rp_contact *c;
    size_t nc, ccap;
    size_t **bc; /* contacts of each disc */
    size_t *nbc, *bccap;
};

/* a·b over D components: the 2-D sum first, in the order 2-D runs always used */
static inline double cr_rp_dot(const double *a, const double *b, int dim)
{
    double s = a[0] * b[0] + a[1] * b[1];
    return dim == 3 ? s + a[2] * b[2] : s;
}

/* |a| over D components (hypot: no overflow, and 2-D's own arithmetic) */
static inline double cr_rp_norm(const double *a, int dim)
{
    return dim == 3 ? hypot(hypot(a[0], a[1]), a[2]) : hypot(a[0], a[1]);
}

/* "disc" or "sphere", for messages */
static inline const char *cr_rp_body_word(const cr_rigid_pool *r)
{
    return r->dim == 3 ? "sphere" : "disc";
}

/* ---- rigid-pool.c ---------------------------------------------------------- */

void cr_rigid_pool_describe(const void *e, char *buf, size_t len);
int cr_rigid_pool_set_provider(void *e, cr_rigid_provider fn, void *user, const char *label);

/* Contact of disc i with body j (a disc > i or a wall), registered on first
 * touch; @return its index, or −1 out of memory / a restitution not known
 * (reason in r->drv.err). */
long cr_rp_contact_id(cr_rigid_pool *r, size_t i, long j);
/* Records an event of contact k with the state now. */
int cr_rp_push_event(cr_rigid_pool *r, size_t k, cr_event_kind kind);

/* ---- rigid-pool-flight.c ---------------------------------------------------- */

/* Gap (m, negative: interpenetration within roundoff), unit normal from i
 * towards j (a wall: its normal) and γ = normal relative velocity (positive
 * separating) of disc i and body j now. */
void cr_rp_geometry(const cr_rigid_pool *r, size_t i, long j, double *gap, double *n,
                    double *gamma);
/* ε_geom of the pair: CR_GEOM_TOL × the smaller radius (a wall: the disc's). */
double cr_rp_tolerance(const cr_rigid_pool *r, size_t i, long j);

/*
 * Resting contacts at this instant: every disc–wall contact in touch whose
 * disc does not approach or leave it faster than the rest speed, where
 * gravity presses the disc in (an LCP per disc over its walls, at most D
 * active: a floor, an edge, in 3-D a corner), closes, its normal velocity set to 0 (impulse
 * booked); the others open (events). Refuses, with CR_ERR_SOLVER and the
 * reason, a disc that would rest on another disc. Sets r->acc.
 */
int cr_rp_settle(cr_rigid_pool *r);

/* Exact flight, through cr_rigid_driver_fly_exact: the time to the first
 * contact closing (an impact or a landing) within @p horizon (INFINITY:
 * none; every pair of discs and every disc and wall not resting on it is
 * checked, one root evaluation), and every disc moved on by @p s. */
double cr_rp_next_closing(cr_rigid_pool *r, double horizon);
void cr_rp_advance(cr_rigid_pool *r, double s);

/* ---- rigid-pool-impact.c ----------------------------------------------------- */

/* Every impact at this instant (groups of discs joined by contacts in touch
 * with one approaching faster than the rest speed, each given to the law),
 * repeated until nothing approaches (capped). */
int cr_rp_resolve(cr_rigid_pool *r, size_t *n_impacts);

#endif
