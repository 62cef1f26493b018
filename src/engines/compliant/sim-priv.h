/**
 * @file sim-priv.h (private: the chain engine behind cr_system)
 * @brief Integration of a compliant model with SUNDIALS CVODES.
 *
 * Create, configure, run, query (as CVODE): cr_sim_create → cr_sim_set_* →
 * cr_sim_run → cr_sim_get_*. Every contact closing, opening, maximum compression
 * and (under the `force` convention) force release is located by CVODE's root
 * finding; contact impulses and dissipated work are integrated as quadratures,
 * never summed from output samples. The simulator writes no files: trajectories
 * leave through the output callback.
 */
#ifndef CRADLE_SIM_H
#define CRADLE_SIM_H

#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/system.h"

typedef struct cr_sim cr_sim;

/** Solver counters of the last run (the engine-independent cr_run_stats). */
typedef cr_run_stats cr_sim_stats;

/**
 * Called at t = 0, at every output time and at the end of the run. Query the
 * state with the cr_sim_get_* functions. A non-zero return stops the run with
 * CR_ERR_INTERRUPTED (the state stays consistent).
 */
typedef int (*cr_sim_output_fn)(const cr_sim *sim, void *user);

/**
 * Called after every root return, once the events of that instant are recorded
 * (cr_sim_events: indices @p first to cr_sim_event_count − 1). The state
 * getters give the state at the event. Non-zero return stops the run with
 * CR_ERR_INTERRUPTED. This is how the monitor follows a run without dense output.
 */
typedef int (*cr_sim_event_fn)(const cr_sim *sim, size_t first, void *user);

/**
 * Validates @p model (cr_model_validate) and copies what the run needs.
 * @return NULL on failure, with the reason in @p msg.
 */
cr_sim *cr_sim_create(const cr_model *model, char *msg, size_t msglen);
/** Frees the simulator; accepts NULL. */
void cr_sim_destroy(cr_sim *sim);

/** Relative tolerance, and absolute tolerance on the scaled state (δ/δ*, v/V). */
int cr_sim_set_tolerances(cr_sim *sim, double rtol, double atol);

int cr_sim_set_method(cr_sim *sim, cr_method method);
/** The method the run integrates with: the one set, or the automatic choice
 * (CR_METHOD_AUTO: docs/performance.md, "Integration methods"). */
cr_method cr_sim_method(const cr_sim *sim);
/** Output interval in s (≤ 0: a quarter of the characteristic time δ* / V) and callback. */
int cr_sim_set_output(cr_sim *sim, double interval, cr_sim_output_fn fn, void *user);
/** Sets the event callback (one; NULL removes it). */
int cr_sim_set_event_callback(cr_sim *sim, cr_sim_event_fn fn, void *user);
/**
 * Floor, relative to δ*, below which δ is clamped in the unbounded damping term
 * of the Jacobian (cr_contact_partials). Default 1e-6. Changes cost, not results.
 */
int cr_sim_set_jacobian_floor(cr_sim *sim, double rel_floor);

/**
 * Integrates from t = 0 to @p t_end (s). With t_end ≤ 0 the run ends at the first
 * instant when no contact is loaded and no neighbouring pair approaches (nothing
 * can happen any more in a free chain), or at a safety cap of
 * 2·(largest initial gap)/V + 10⁶·δ* / V.
 * A simulator runs once; create another for another run.
 */
int cr_sim_run(cr_sim *sim, double t_end);

/** Async-signal-safe: asks a running cr_sim_run to stop at the next output time. */
void cr_sim_request_stop(cr_sim *sim);

const char *cr_sim_last_error(const cr_sim *sim);
/** Why the run ended ("end time reached", "all contacts open and separating", ...). */
const char *cr_sim_end_reason(const cr_sim *sim);

size_t cr_sim_ball_count(const cr_sim *sim);
size_t cr_sim_contact_count(const cr_sim *sim);
double cr_sim_get_time(const cr_sim *sim);
void cr_sim_get_masses(const cr_sim *sim, double *m);
/** 1 for a wall (a fixed body). */
int cr_sim_body_is_fixed(const cr_sim *sim, size_t i);
/** 1 when pair @p c has a unilateral contact / a bilateral link. */
int cr_sim_pair_has_contact(const cr_sim *sim, size_t c);
int cr_sim_pair_is_linked(const cr_sim *sim, size_t c);
/**
 * Settling time of the links: twice the sum over links of √(m/k), an upper bound
 * on a wave's round trip through the link-connected clusters; 0 without links.
 * A contact between linked clusters (rods) can re-close within this time after
 * their centres of mass separate, so end rules wait for it.
 */
double cr_sim_settle_time(const cr_sim *sim);
/**
 * 1 when contact @p c is loaded: f > 0 with an overlap above the event margin
 * (10⁻¹² δ*; touching bodies reached by roundoff alone are not loaded).
 */
int cr_sim_contact_loaded(const cr_sim *sim, size_t c);
/**
 * 1 when contact @p c is settled: not loaded, and the link-connected clusters it
 * joins (walls immobile) not approaching — the end rule of ARCHITECTURE.md, shared
 * by the automatic end of a run and the monitor's episode end. 1 for a pair
 * without contact.
 */
int cr_sim_contact_settled(const cr_sim *sim, size_t c);
/** Each getter fills an array of ball_count (or contact_count) doubles, SI units. */
void cr_sim_get_positions(const cr_sim *sim, double *x);
void cr_sim_get_velocities(const cr_sim *sim, double *v);
void cr_sim_get_overlaps(const cr_sim *sim, double *delta);
void cr_sim_get_overlap_rates(const cr_sim *sim, double *delta_dot);
void cr_sim_get_forces(const cr_sim *sim, double *f);
/** Impulses Pᵢ = ∫ fᵢ dt since t = 0 (quadrature), N s. */
void cr_sim_get_impulses(const cr_sim *sim, double *P);
double cr_sim_kinetic_energy(const cr_sim *sim);
/** Elastic energy stored in the contacts. */
double cr_sim_potential_energy(const cr_sim *sim);
/** Work dissipated by the dampers since t = 0 (quadrature). */
double cr_sim_dissipated_work(const cr_sim *sim);
double cr_sim_momentum(const cr_sim *sim);

size_t cr_sim_event_count(const cr_sim *sim);
const cr_event *cr_sim_events(const cr_sim *sim);
cr_sim_stats cr_sim_get_stats(const cr_sim *sim);
/** Internal scales: overlap δ* (m), speed V (m/s), time δ* / V (s). */
void cr_sim_get_scales(const cr_sim *sim, double *length, double *speed, double *time);

/*
 * Private: the chain engine's state and shared internals (src/engines/compliant/sim*.c).
 * Internal functions are prefixed cr_sm_.
 *
 * CVODES integration of a 1-D chain.
 *
 * State (scaled), three entries per body, interleaved so the Jacobian is banded
 * with mu = ml = 3:
 *   y[3i]       displacement of body i from its start, / δ*
 *   y[3i + 1]   velocity of body i, / V
 *   y[3i + 2]   overlap of pair i (bodies i, i + 1), / δ*   (i < N − 1)
 * Overlaps are states of their own rather than differences of positions so that
 * the relative tolerance applies to δ itself: no cancellation between positions
 * of order of the radii and overlaps of order 10⁻⁵ of them. Displacements are
 * states too because fields (gravity, pendulums) act on positions; the linear
 * invariant δ_c − δ_c(0) = d_c − d_{c+1} is kept by the linear multistep method
 * and the exact Jacobian.
 *
 * Active region. Only the bodies near a contact that can still change are
 * integrated: a contact *binds* when it is linked, or unilateral, awake (not a
 * quiet wake contact) and closed (δ at or above the event margin). Each run of
 * binding contacts, widened by REGION_PAD bodies on each side, is an interval
 * of the window; the window's states are laid out as above, interval after
 * interval, each interval starting with the overlap of the contact on its left
 * (its boundary contacts are states too, driven by the outside neighbour's
 * constant velocity, and carry no force: they are open or quiet). Every other
 * body flies freely, d = d₀ + v (τ − τ₀), exact without a field; every other
 * contact's overlap is linear in τ, so its next event has a closed-form time,
 * kept in a heap: an awake pair closes (it joins the window), a quiet pair
 * that touches while approaching sticks (see cr_sm_lock_pair). One CVODES
 * instance integrates the window; it is rebuilt (the window's states go back to
 * free flight, the new window starts from them) when a closing or a waking
 * makes a boundary or outside contact bind, when nothing in the window binds
 * any more, or when the window holds far more bodies than it needs. Without a
 * field the cost of a step and of a root search follows the window, not N, and
 * so does the error norm. Under a field, with the setting active_region: off,
 * or with CRADLE_ACTIVE_REGION=off in the environment, the window is the whole
 * chain and never changes (the engine as before).
 *
 * Scales: V is the largest initial relative speed, δ* = min over contacts of
 * (μ V² / K)^(1/(n+1)) (the overlap at which the contact has absorbed the
 * relative kinetic energy, up to a factor of order one), time δ* / V. With them a
 * steel cradle (K ≈ 10¹⁰) and a unit model give the same digits.
 *
 * Walls are fixed bodies: their acceleration factor is 0, so d and v stay 0.
 *
 * Events: the engine locates them itself (sim-locate.c): CVODE
 * takes single steps and sees no root functions; CRADLE_CHAIN_ROOTS=cvode in
 * the environment gives CVODE's root finding back (the same events).
 */

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <signal.h>
#include <sundials/sundials_types.h>

#include "model/contact-force.h"
#include "engines/common/engine-common.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "cradle needs SUNDIALS built with double");

/* the event margin on scaled overlaps (priv.h) */
#define CR_SM_ETA CR_EVENT_MARGIN

/* Not in the window. */
#define CR_SM_NONE ((size_t)-1)

/* Roots, three to five per window contact with a unilateral law (root_contact):
 * closing/opening (δ crosses the event margin), compression rate δ̇ (only while
 * loaded), the sign of the raw law for `force`-release contacts with damping,
 * the force's rate ḟ for contacts with damping (only while loaded: its
 * downward crossings are the force maxima, cr_contact_force_rate_function),
 * and the wake margin. A quiet (wake) contact shows CVODE its frozen signs
 * instead of its first three functions: it generates no events (see
 * cr_sm_wake_margin). Contacts outside the window have none: their events follow
 * from free flight (cr_sm_predict). */
enum {
    CR_SM_R_CLOSE,
    CR_SM_R_RATE,
    CR_SM_R_FORCE,
    CR_SM_R_PEAK,
    CR_SM_R_WAKE,
    CR_SM_R_PER_CONTACT
};

/* Adams' highest order. CVODE allows 12, and each step's Nordsieck work grows
 * as q²: on the 3-ball chain at rtol 1e-10 the order wandered up to 12 and back,
 * taking 398 steps; capped at 7 it takes 290 at 38 % fewer instructions, with
 * the same error against a BDF rtol-1e-13 run (1.7e-9 vs 1.5e-9). On the
 * 1000-bead chain at 1e-11 and the 5-ball cradle the cap changes nothing
 * (docs/performance.md, "Adams' order"). */
#define CR_SM_ADAMS_MAX_ORDER 7

/* A free-flight event of an outside contact: its closing or, quiet, its waking. */
typedef struct {
    double tau;          /* scaled time */
    size_t c;            /* contact */
    unsigned long stamp; /* valid while equal to the contact's stamp */
} cr_sm_out_event;

struct cr_sim {
    /* model copy */
    size_t nb, nc;
    double *mass, *radius, *x0, *v0, *delta0;
    int *fixed;
    cr_contact_params *law;
    int *contact_on;
    /* a contact without link or damper: its force is all the RHS needs
     * (sim-rhs.c's short path) */
    unsigned char *force_only;
    cr_link *link;
    int *has_link;
    double gravity;
    double *pivot, *plength, *pg; /* plength 0: no pendulum */
    /* air drag per body over its mass: a = −kb v − kc |v| v (1/s, 1/m) */
    double *drag_kb, *drag_kc;
    int has_fields;  /* gravity, pendulums or drag: every body is integrated */
    size_t *cluster; /* link-connected cluster of each body */
    double settle;   /* cr_sim_settle_time */

    /* scales */
    double L, V, T, Pscale, Escale;
    double *accel; /* T / (V m_i), 0 for walls: scaled acceleration per unit force */

    /* settings */
    double rtol, atol, out_interval, jac_floor_rel;
    /* integration.accuracy (0: none) and the window's energy projection
     * (sim-energy.c): conserve says it runs, e_true is the window's exact
     * energy in J, projections counts the corrections */
    double accuracy, e_true;
    int conserve;
    /* a link or a damped contact (pair_constants): auto's BDF. Kept, not
     * scanned at every window: the scan was 29 % of a 10⁵-bead traversal */
    int stiff_pairs;
    long projections, projections_refused;
    double projected_energy; /* Σ |ΔE| of the projections, J */
    long out_every;          /* output.every: a row at every k-th step of the window */
    long out_max_rows;       /* output.max_rows: the default rule's row cap (0: default) */
    int out_none;            /* output.fields: none: rows at t = 0 and the end only */
    double free_dt;          /* the default rule's free-flight interval (cr_free_flight_interval) */
    long every_steps;        /* steps since the last every-k row */
    int every_hit;           /* cr_sm_own_advance returned at a k-th step */
    char out_where[CR_ERRMSG_LEN]; /* where the interval was given (its refusal names it) */
    cr_method method;
    cr_sim_output_fn out_fn;
    void *out_user;
    int (*out_wanted)(void *user); /* NULL: out_fn always reads the state */
    cr_sim_event_fn ev_fn;
    void *ev_user;

    /* The stepper (sim-stepper.c): one CVODES or ERKStep instance over the
     * window, none while nothing is integrated; erk says which. */
    SUNContext ctx;
    void *stepper;
    int erk;
    /* ERKStep: the integrator's current point (tend, yend) and the start of
     * its last step (tstart, ystart), for cr_sm_step_again_to */
    N_Vector ystart, yend;
    N_Vector ydot, yprobe; /* scratch of erk_onto_new_side (sim-locate.c) */
    double tstart, tend;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS; /* fixed-point iteration, or NULL: CVODE's Newton */
    int nroots;
    int *rootsfound;
    /* first root of each root contact: three (closing, rate, wake), one more
     * with a release root (cr_sm_release_root), one more with a peak root
     * (cr_sm_peak_root), in the order of the R_ names */
    size_t *roff;
    size_t *root_contact; /* pair of each block of roots: window contacts with a contact */
    size_t n_contact_roots;
    /* Swing extremes (output.swing_extremes): after the contact blocks, one
     * block of one function, ṡ, per window pendulum ball; root_contact holds
     * its ball. n_root_blocks counts both kinds. */
    int swing_on;
    size_t n_root_blocks;
    double *mu; /* reduced mass of each pair (a wall is immovable) */
    /* Adams under a field restarts at every closing. Its history then spans
     * the integrated free flight before the contact, and the Hertz force's
     * δ^½ curvature at closing makes the next steps' error estimate
     * unreliable: two pendulums at rtol 1e-10 lost up to 1.7e-7 of an
     * episode's energy balance (2.6e-6 with the order capped at 7), 5e-9 with
     * the restart (BDF: 1.2e-8; tests/test-monitor.c). Without a field free
     * flight is exact or the bodies touch, and restarts there only cost (the
     * 1000-bead chain 20-40 % more steps at the same error). */
    int adams_field;
    /* Adams with fixed-point iteration integrates the impulses and the
     * dissipated work as the last nq + 1 states instead of CVODES
     * quadratures: one Nordsieck array instead of two, and one force
     * evaluation per RHS (quad_states). yQ is then a view of that tail. */
    int qstate, qstate_ok;
    double *wake_level; /* (CR_WAKE_FRACTION·δ*)ⁿ⁺¹ of each pair (cr_sm_wake_margin) */
    /* The peak roots' δ̈ needs the forces of pairs c − 1 to c + 1: a pass over
     * every root function at one state (cr_sm_roots_pass: pforce_on) computes
     * each window pair's force once into pforce, not four times per loaded
     * damped contact (a damped 1000-bead chain: 30 % more CPU than before the
     * peak roots that way, 17 % with pforce). */
    double *pforce;
    int pforce_on;
    size_t npeak;   /* window contacts with a peak root */
    int *quiet;     /* wake contacts: no events (cr_sm_wake_margin) */
    double *frozen; /* the signs a quiet contact's first three roots show CVODE */

    /* The engine's own event location (sim-locate.c), unless
     * CRADLE_CHAIN_ROOTS=cvode asks for CVODE's root finding. Root function q
     * of the window belongs to root contact rblock[q]; rootk[c] is contact c's
     * block while it is a window's root contact. */
    int own_roots;
    /* CRADLE_AUTO_METHOD=erk|adams-fixed-point: what auto runs on every chain
     * it gives an explicit method (the test suite runs its reference tests
     * with each); CR_METHOD_AUTO: by size (cr_sim_method) */
    cr_method auto_explicit;
    size_t nrf, *rblock, *rootk;
    double *glo, *ghi;        /* the functions at tlo and at the end of the step, tn */
    double *clo, *chi, *cmid; /* the candidates' values during a search */
    size_t *cand, ncand;      /* the functions that differ between glo and ghi */
    unsigned char *guide;     /* candidate c may steer the secant */
    size_t *redo, nredo;      /* contacts whose functions an event redefined */
    unsigned char *redo_mark;
    double tlo, tn, hlast; /* scaled; hlast: the last step, for the tolerance */
    N_Vector *dky;         /* the derivatives y⁽ᵏ⁾(tn), k ≤ dky_q (sim-locate.c: taylor) */
    int dky_q;             /* -1: not taken for this step */
    int stepped;           /* a step ends at tn > tlo, not searched to its end yet */
    int at_tstop, y_at_tn; /* the step reached the stop time; s->y holds y(tn) */
    long gevals;           /* evaluation passes over root functions */

    /* the window (active region) */
    int whole;                    /* 1: the whole chain, always (fields, or asked) */
    size_t pad;                   /* REGION_PAD unless CRADLE_REGION_PAD says */
    double region_speed;          /* REGION_SPEED·rtol: quiet contacts faster bind */
    size_t nint, *ilo, *ihi;      /* intervals of window bodies, increasing, apart */
    size_t *nlo, *nhi;            /* the next intervals, during a rebuild */
    size_t *ybody, *yovl, *yquad; /* window index of d_i (v_i next), δ_c, ∫f_c dt */
    size_t *wcon, *wcon2, nwc;    /* window contacts in order (internal, boundary) */
    unsigned char *cwin;          /* contact c is a window contact */
    size_t nwb, ny, nq;           /* window bodies, states, impulse quadratures */
    /* Outside bodies move in rigid groups (intervals; a free body is a group of
     * one): body i's group is rooted at grp[i], d_i = off_i + G(τ) with the
     * root's G(τ) = g0 + gv (τ − gt); gm its mass (INFINITY with a wall). */
    size_t *grp, *gfirst, *glast;
    double *off, *g0, *gv, *gt, *gm;
    double *ref_o, *ref_tc; /* outside contact: overlap at ref_tc */
    double *Pbank, Wbank;   /* quadratures of the windows before (scaled) */
    cr_sm_out_event *heap;  /* next events of outside contacts, earliest first */
    size_t nheap, heapcap;
    unsigned long *stamp;
    unsigned char *counted; /* outside, awake and approaching: unsettled */
    size_t n_approach;
    size_t *bind; /* binding contacts, at a rebuild */
    double tau_stop;
    long rebuilds, bumps;

    /* state after the last return */
    double t, tau; /* s and scaled */
    int ran;
    volatile sig_atomic_t stop_requested;

    cr_event *events;
    size_t nev, evcap;
    cr_sim_stats stats;
    cr_sim_stats banked; /* CVODE counters of the segments and windows before */
    char end_reason[128];
    char err[CR_ERRMSG_LEN];
};

/* ---- state access ---------------------------------------------------------- */

/* Scaled velocity of body i in window vector y: its state, or for the outside
 * neighbour of a boundary contact its free flight. */
static inline double cr_sm_wvel(const cr_sim *s, const double *y, size_t i)
{
    size_t k = s->ybody[i];
    return k != CR_SM_NONE ? y[k + 1] : s->gv[s->grp[i]];
}

/* Free flight of outside body i: its group's velocity and displacement now. */
static inline double cr_sm_fly_vel(const cr_sim *s, size_t i)
{
    return s->gv[s->grp[i]];
}

static inline double cr_sm_fly_dis(const cr_sim *s, size_t i)
{
    size_t r = s->grp[i];
    return s->off[i] + s->g0[r] + s->gv[r] * (s->tau - s->gt[r]);
}

static inline double cr_sm_fly_ovl(const cr_sim *s, size_t c)
{
    return s->ref_o[c] + (cr_sm_fly_vel(s, c) - cr_sm_fly_vel(s, c + 1)) * (s->tau - s->ref_tc[c]);
}

/* The scaled state now, wherever it lives. */
static inline double cr_sm_vel_now(const cr_sim *s, size_t i)
{
    size_t k = s->ybody[i];
    return k != CR_SM_NONE ? N_VGetArrayPointer(s->y)[k + 1] : cr_sm_fly_vel(s, i);
}

static inline double cr_sm_dis_now(const cr_sim *s, size_t i)
{
    size_t k = s->ybody[i];
    return k != CR_SM_NONE ? N_VGetArrayPointer(s->y)[k] : cr_sm_fly_dis(s, i);
}

static inline double cr_sm_ovl_now(const cr_sim *s, size_t c)
{
    size_t k = s->yovl[c];
    return k != CR_SM_NONE ? N_VGetArrayPointer(s->y)[k] : cr_sm_fly_ovl(s, c);
}

/* ∫ f_c dt so far, scaled: the finished windows' and the current one's. */
static inline double cr_sm_impulse_now(const cr_sim *s, size_t c)
{
    size_t k = s->yquad[c];
    return s->Pbank[c] + (k != CR_SM_NONE ? N_VGetArrayPointer(s->yQ)[k] : 0.0);
}

/* unilateral contact force of pair c (0 when the pair has no contact) */
static inline double cr_sm_contact_force(const cr_sim *s, size_t c, double delta, double rate)
{
    return s->contact_on[c] ? cr_contact_force_inline(&s->law[c], delta, rate) : 0.0;
}

/* link tension of pair c (pulls the bodies together when positive) */
static inline double cr_sm_link_tension(const cr_sim *s, size_t c, double delta, double rate)
{
    if (!s->has_link[c])
        return 0.0;
    const cr_link *l = &s->link[c];
    double ext = s->radius[c] + s->radius[c + 1] - delta - l->length;
    return l->k * ext - l->c * rate; /* ė = −δ̇ */
}

/* field acceleration of body i at scaled displacement d (m/s²) */
static inline double cr_sm_field_accel(const cr_sim *s, size_t i, double d)
{
    double a = s->gravity;
    if (s->plength[i] > 0.0)
        a -= s->pg[i] * sin((s->x0[i] + s->L * d - s->pivot[i]) / s->plength[i]);
    return a;
}

/* drag acceleration of body i at scaled velocity vs (m/s²) */
static inline double cr_sm_drag_accel(const cr_sim *s, size_t i, double vs)
{
    return cr_drag_accel(s->drag_kb[i], s->drag_kc[i], s->V * vs);
}

/* the power drag takes from body i at scaled velocity vs (W): m (kb v² + kc |v|³) */
static inline double cr_sm_drag_power(const cr_sim *s, size_t i, double vs)
{
    return s->fixed[i] ? 0.0 : cr_drag_power(s->mass[i], s->drag_kb[i], s->drag_kc[i], s->V * vs);
}

/* First and one-past-last window contact of interval [lo, hi]: the contact on
 * its left (a boundary unless lo = 0), the internal ones, the one on its right. */
static inline size_t cr_sm_icon_first(size_t lo)
{
    return lo > 0 ? lo - 1 : 0;
}

static inline size_t cr_sm_icon_end(const cr_sim *s, size_t hi)
{
    return hi < s->nc ? hi + 1 : s->nc;
}

/* Overlap and rate of pair c now (SI). */
static inline void cr_sm_pair_now(const cr_sim *s, size_t c, double *delta, double *rate)
{
    *delta = s->L * cr_sm_ovl_now(s, c);
    *rate = s->V * (cr_sm_vel_now(s, c) - cr_sm_vel_now(s, c + 1));
}

/* Velocity of body i now; a wall's is 0 exactly, its states carrying only the
 * linear solver's roundoff. */
static inline double cr_sm_body_velocity(const cr_sim *s, size_t i)
{
    return s->fixed[i] ? 0.0 : s->V * cr_sm_vel_now(s, i);
}

/* ---- sim-rhs.c: CVODE's right-hand sides and the banded Jacobian */
int cr_sm_rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *user);
int cr_sm_jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
              N_Vector t2, N_Vector t3);
int cr_sm_quad_rhs(sunrealtype t, N_Vector yv, N_Vector qdot, void *user);

/* ---- sim-roots.c: root functions, quiet and waking contacts, events at a root */
int cr_sm_release_root(const cr_sim *s, size_t c);
int cr_sm_swing_ball(const cr_sim *s, size_t i);
int cr_sm_peak_root(const cr_sim *s, size_t c);
size_t cr_sm_block_size(const cr_sim *s, size_t c);
double cr_sm_wake_margin(const cr_sim *s, size_t c, double d, double g);
/* window component j of a state, wherever the caller has it (a vector, an interpolant) */
typedef double (*cr_sm_read_fn)(const cr_sim *s, const void *ctx, size_t j);
double cr_sm_pair_accel(const cr_sim *s, size_t c, cr_sm_read_fn read, const void *ctx);
void cr_sm_block_values(const cr_sim *s, size_t k, double d, double va, double vb,
                        cr_sm_read_fn read, const void *ctx, double *gk);
void cr_sm_contact_block(const cr_sim *s, const double *y, size_t k, double *gk);
int cr_sm_roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *user);
void cr_sm_roots_pass(cr_sim *s, const double *y, double *g);
double cr_sm_margin_now(const cr_sim *s, size_t c);
void cr_sm_init_quiet(cr_sim *s);
void cr_sm_set_wake_levels(cr_sim *s);
int cr_sm_push_event(cr_sim *s, size_t c, cr_event_kind kind);
int cr_sm_wake_up(cr_sim *s, size_t c, int *restart);
int cr_sm_handle_roots(cr_sim *s, int *restart);

/* ---- sim-locate.c: the engine's own event location */
void cr_sm_roots_afresh(cr_sim *s);
int cr_sm_own_advance(cr_sim *s, double target, double *tret);

/* ---- sim-flight.c: free flight outside the window: its event heap, locks */
double cr_sm_energy_speed(const cr_sim *s, size_t c);
int cr_sm_binds(const cr_sim *s, size_t c);
void cr_sm_heap_pop(cr_sim *s);
double cr_sm_heap_top(cr_sim *s);
void cr_sm_uncount(cr_sim *s, size_t c);
int cr_sm_predict(cr_sim *s, size_t c);
void cr_sm_unlock_group(cr_sim *s, size_t i);
int cr_sm_lock_pair(cr_sim *s, size_t c, int *bump);

/* ---- sim-window.c: the window (active region) and its CVODES instance */
void cr_sm_window_free(cr_sim *s);
int cr_sm_solver_fail(cr_sim *s, const char *what, int flag);

/* sim-stepper.c: the window's stepper, CVODES or ERKStep */
int cr_sm_stepper_create(cr_sim *s, cr_method method, double atol);
int cr_sm_step(cr_sim *s, double target, double *tn); /* one step; sets hlast */
double cr_sm_last_step(const cr_sim *s);
int cr_sm_dky(cr_sim *s, double t, int k, N_Vector out);
int cr_sm_dky_degree(const cr_sim *s); /* the interpolant's degree at tn; -1: unknown */
int cr_sm_stepper_restart(cr_sim *s);  /* at s->tau from s->y */
int cr_sm_step_again_to(cr_sim *s, double t);
int cr_sm_stepper_restart_at(cr_sim *s, double t); /* ERKStep: from s->y at t */
void cr_sm_stepper_counters(const cr_sim *s, cr_sim_stats *out);
void cr_sm_stepper_free(cr_sim *s);
int cr_sm_setup(cr_sim *s);

/* Energy projection under integration.accuracy (sim-energy.c). */
double cr_sm_window_energy(const cr_sim *s);
void cr_sm_project_energy(cr_sim *s);
int cr_sm_update_region(cr_sim *s, int restart, int bump, size_t nextra);

#endif
