/*
 * The rigid engine (private): a chain of rigid balls, event-driven, behind
 * cr_system (docs/design.md, "Rigid engine"). The run loop, the event list
 * and the common getters are the shared driver's (rigid-driver-priv.h); the
 * chain's three jobs, one file each:
 *   rigid.c         the model copy, the law's parameters, the driver's
 *                   callbacks, the chain's getters and the ops table
 *   rigid-flight.c  persistent contacts (which close, their forces) and free
 *                   flight between impacts: exact under no field or uniform
 *                   gravity, CVODES with gap roots under pendulums
 *   rigid-impact.c  impacts: the impact configuration, the law, the
 *                   accumulation rule, the events the monitor reads
 *
 * State: per body the displacement d from its start and the velocity v; per
 * pair c (bodies c, c + 1) the gap g = g0 + d_{c+1} − d_c, never a state, and
 * whether the pair is closed (persistent contact: the two bodies move as one
 * and carry a force λ ≥ 0). Bodies joined by closed pairs form a run.
 */
#ifndef CRADLE_RIGID_PRIV_H
#define CRADLE_RIGID_PRIV_H

#include <stddef.h>

#include "cradle/engine.h"
#include "cradle/laws.h"
#include "engines/common/engine-common.h"
#include "engines/rigid/rigid-driver-priv.h"
#include "engines/rigid/rigid-engines.h"

/* A closed pair opens when its force falls below −CR_RIGID_RELEASE times the
 * weight scale; ten times CR_RIGID_ACCEL_FRACTION (rigid-driver-priv.h), so a
 * pair that just opened does not close again at once (hysteresis). */
#define CR_RIGID_RELEASE_FRACTION 1e-9

typedef struct cr_rigid cr_rigid;

struct cr_rigid {
    cr_rigid_driver drv; /* first: the engine handle is the driver's (rigid-driver-priv.h) */

    /* model copy (body count: drv.nb) */
    size_t nc;
    double *mass, *radius, *x0;
    int *fixed;
    int *on;     /* pair c has a unilateral contact */
    double *g0;  /* initial gap of pair c (0 exactly when touching) */
    double *tol; /* ε_geom of pair c: CR_GEOM_TOL × the smaller moving radius */
    /* the compression scale: δ*_c(V) = dstar_a[c] V^dstar_e[c], the overlap pair c
     * would reach at approach speed V ((n+1) μ V² / (2K))^(1/(n+1)); 0 without a
     * law. An impact takes in gaps up to touching × δ*_c (rigid.touching). */
    double *dstar_a, *dstar_e;
    double touching;
    size_t gaps_closed;    /* contacts whose gap (> ε_geom) an impact closed */
    double gap_closed_max; /* the largest of those gaps over its δ*_c */
    double gravity;
    double *pivot, *plength, *pg; /* plength 0: no pendulum */
    int pendulums;                /* any pendulum: CVODES flight */
    double *drag_kb, *drag_kc;    /* air drag over mass: a = −kb v − kc |v| v */
    int drag;                     /* any drag: CVODES flight (no closed form) */
    int flight_cvodes;            /* CRADLE_RIGID_FLIGHT=cvodes: no closed forms */
    double t_end_model;

    /* the law: per pair restitution, energetic weights, Mosterman's η */
    cr_law_id law;
    cr_law_params lp;
    double *eps, *alpha, *eta;
    double *lzb_k, *lzb_n; /* LZB: K and n of each pair's law (NULL for other laws) */

    /* per-impact parameters (cr_system_rigid_set_provider): called before each law */
    cr_rigid_provider provider;
    void *provider_user;
    char provider_label[512]; /* a table provider names its file and the bounds met */
    size_t impacts;           /* impacts resolved so far: the provider's impact index */
    cr_rigid_span span;       /* widens a configuration (cr_system_rigid_set_span) */
    void *span_user;
    size_t core0, core1; /* the configuration before the span widened it */
    size_t gaps_moved;   /* gaps the span took in, closed by moving bodies */
    double moved_max;    /* the widest of them, m */

    /* energetic κ below an impact's feasible minimum raised to it
     * (cr_system_rigid_clamp_kappa), and the impacts it happened to */
    int clamp;
    cr_kappa_clamp *clamps;
    size_t nclamps, clampcap;

    /* scales (L: min radius, V, T, v_rest: in drv) */
    double amax, mmax;   /* field acceleration and mass scales */
    double a_tol, f_tol; /* equal accelerations; release force */
    double rtol, atol;   /* CVODES tolerances (pendulums) */

    /* state (time and dissipated work: in drv) */
    double *d, *v;
    int *closed;
    int *released;   /* opened at this instant: not closed again before time moves */
    int *joined;     /* in the impact being resolved: touching for the monitor, gap or not */
    int *settle_set; /* cr_rigid_settle's trial closed set (scratch) */
    double *lambda;
    double *impulse;

    /* the last field evaluation without drag (rigid-flight.c, field_forces):
     * d, F, fa (N values each), then 1 when they are set */
    double *fields;

    /* scratch, N values each */
    double *acc, *work, *work2, *work3, *fa;

    size_t *contacts_of; /* the body_contacts getter's lists: c - 1, c per body */

    /* CVODES (pendulums only) */
    void *cv;
    /* the closed forms of exact pendulum flight (rigid-pendulum.c) */
    void *ell;
};

/* ---- rigid.c ---------------------------------------------------------------- */

/* Gap of pair c now, m (negative: interpenetration within roundoff). */
static inline double cr_rigid_gap(const cr_rigid *r, size_t c)
{
    double da = r->fixed[c] ? 0.0 : r->d[c], db = r->fixed[c + 1] ? 0.0 : r->d[c + 1];
    return r->g0[c] + (db - da);
}

/* Relative normal velocity γ = v_{c+1} − v_c (γ < 0 approaching). */
static inline double cr_rigid_gamma(const cr_rigid *r, size_t c)
{
    return r->v[c + 1] - r->v[c];
}

/* Pair c is in touch: a unilateral contact whose gap is within ε_geom. */
static inline int cr_rigid_in_touch(const cr_rigid *r, size_t c)
{
    return r->on[c] && cr_rigid_gap(r, c) <= r->tol[c];
}

/* "newton (restitution 0.9)": the law and its parameters, one line. */
void cr_rigid_describe(const void *e, char *buf, size_t len);
/* Registers the span hook (before the run). */
int cr_rigid_set_span(void *e, cr_rigid_span fn, void *user);
/* Registers the per-impact parameter provider (before the run). */
int cr_rigid_set_provider(void *e, cr_rigid_provider fn, void *user, const char *label);
/* κ clamping of the energetic law (cr_system_rigid_clamp_kappa) and its record. */
int cr_rigid_set_clamp(void *e, int on);
const cr_kappa_clamp *cr_rigid_clamps(const void *e, size_t *n, int *on);
/* Of those, the impacts resolved by maximal dissipation (fallback). */
size_t cr_rigid_fallbacks(const void *e);

/* Records an event of pair c with the state now; an impact's events carry no
 * finite force (0), a persistent contact's its λ. */
int cr_rigid_push_event(cr_rigid *r, size_t c, cr_event_kind kind, double force, double impulse);

/* ---- rigid-flight.c --------------------------------------------------------- */

/* Field acceleration of body i at displacement d (m/s²); 0 for fixed bodies. */
double cr_rigid_field_accel(const cr_rigid *r, size_t i, double d, double v);

/*
 * One run of bodies i0 … i1 joined by closed pairs i0 … i1 − 1, given the
 * external "force" F_i on each (a force, or a momentum for a plastic merge):
 * the common acceleration (or velocity) into a[i] and the pair forces (or
 * impulses) into lam[c], compression positive. A run holding a fixed body does
 * not move; between two fixed bodies the distribution is the least compressive
 * one (smallest pair force 0).
 */
void cr_rigid_run_balance(const cr_rigid *r, size_t i0, size_t i1, const double *F, double *a,
                          double *lam);

/* Accelerations of every body and forces of the closed pairs at displacements
 * @p d (closed pairs: λ; others 0). */
void cr_rigid_forces(const cr_rigid *r, const double *d, double *a, double *lam);

/*
 * Persistent contacts at the current instant: the pairs in touch and at rest
 * relative to each other close when the fields press them together or do not
 * pull them apart (an LCP at acceleration level, solved by growing the closed
 * set: the chain's Delassus matrix is a Z-matrix); their bodies take one
 * velocity (momentum kept, impulses booked). Emits close/open events. @return
 * CR_OK or a listener's code.
 */
int cr_rigid_settle(cr_rigid *r);

/* Exact flight (no pendulums), through cr_rigid_driver_fly_exact: the time
 * to the first open pair closing within @p horizon under the accelerations of
 * this instant (which it computes: constant under uniform fields), and every
 * body moved on by @p tau. */
double cr_rigid_next_closing(cr_rigid *r, double horizon);
void cr_rigid_advance(cr_rigid *r, double tau);

/*
 * Free flight from r->drv.t towards @p t_target: exact without pendulums, CVODES
 * with them. Stops early at a gap closing (an impact or landing to resolve) or
 * a release (emitted). *@p hit is 1 when it stopped early. @return CR_OK,
 * CR_ERR_SOLVER or a listener's code.
 */
int cr_rigid_fly(cr_rigid *r, double t_target, int *hit);

/* The engine changed the state (an impact, a merge, the closed set): the
 * integrator's history does not hold across it. */
void cr_rigid_flight_touch(cr_rigid *r);
/* Frees the CVODES memory. */
void cr_rigid_flight_free(cr_rigid *r);
/* CVODE's counters into r->stats (steps, RHS and root evaluations). */
void cr_rigid_flight_stats(const cr_rigid *r, cr_run_stats *st);

/* ---- rigid-impact.c --------------------------------------------------------- */

/*
 * Resolves every impact at the current instant: pairs in touch approaching
 * faster than the rest speed, grouped into impact configurations (runs of
 * pairs in touch, ended by fixed bodies), each given to the law; repeated
 * until nothing approaches (capped). @p n_impacts counts them. @return CR_OK,
 * CR_ERR_SOLVER (the law failed; reason in r->drv.err) or a listener's code.
 */
int cr_rigid_resolve(cr_rigid *r, size_t *n_impacts);

/* ---- rigid-pendulum.c ------------------------------------------------------- */

/* What cr_rigid_fly_elliptic returns for a flight it leaves to CVODES. */
#define CR_RIGID_NOT_EXACT 1

/* Flies to @p t_target on the pendulums' closed forms, stopping at the first
 * pair that closes (*hit); CR_RIGID_NOT_EXACT when the flight has none (a
 * closed pair, uniform gravity, a ball near the top, a grazing double zero). */
int cr_rigid_fly_elliptic(cr_rigid *r, double t_target, int *hit);
/* The engine changed the state: the closed forms are built again. */
void cr_rigid_elliptic_touch(cr_rigid *r);
void cr_rigid_elliptic_free(cr_rigid *r);

#endif
