/*
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
 * that touches while approaching sticks (see lock_pair). One CVODES
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
 * Events: the engine locates them itself (section "event location"): CVODE
 * takes single steps and sees no root functions; CRADLE_CHAIN_ROOTS=cvode in
 * the environment gives CVODE's root finding back (the same events).
 */
#include "sim-priv.h"

#include <cvodes/cvodes.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "engines-priv.h"
#include "integrator.h"
#include "nvector-small.h"
#include "priv.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "cradle needs SUNDIALS built with double");

#define EVENT_MIN_CAP 64

#define ETA CR_EVENT_MARGIN /* priv.h */

/* Not in the window. */
#define NONE ((size_t)-1)

/* Bodies added on each side of a run of binding contacts. A pulse crosses them
 * before its front reaches the window's edge, which costs a rebuild (a restart
 * of the multistep history): wider padding, fewer rebuilds, larger steps'
 * cost. Measured in docs/performance.md. */
#define REGION_PAD 8

/* Quiet contacts whose energy speed (energy_speed) reaches REGION_SPEED·rtol·V
 * stay in the window; below it their force is dropped in free flight (and an
 * approaching pair locks), which changes velocities by less than that. The
 * whole chain's own global error on 100 beads is of this order: 1.3e-10 V at
 * rtol 1e-12 (linear chain, against rtol 1e-13), 6.7e-8 V at rtol 1e-10 (Hertz
 * chain, against rtol 1e-12). A fixed speed instead (1e-10 V) kept the wake of
 * a 1000-bead chain at rtol 1e-10 in the window: 817 bodies, 8 times the cost. */
#define REGION_SPEED 100.0

/* The wake threshold's multiple of the integration noise (set_wake_levels). */
#define WAKE_NOISE 10.0

/* A free-flight event of an outside contact: its closing or, quiet, its waking. */
typedef struct {
    double tau;          /* scaled time */
    size_t c;            /* contact */
    unsigned long stamp; /* valid while equal to the contact's stamp */
} out_event;

struct cr_sim {
    /* model copy */
    size_t nb, nc;
    double *mass, *radius, *x0, *v0, *delta0;
    int *fixed;
    cr_contact_params *law;
    int *contact_on;
    cr_link *link;
    int *has_link;
    double gravity;
    double *pivot, *plength, *pg; /* plength 0: no pendulum */
    int has_fields;
    size_t *cluster; /* link-connected cluster of each body */
    double settle;   /* cr_sim_settle_time */

    /* scales */
    double L, V, T, Pscale, Escale;
    double *accel; /* T / (V m_i), 0 for walls: scaled acceleration per unit force */

    /* settings */
    double rtol, atol, out_interval, jac_floor_rel;
    cr_method method;
    cr_sim_output_fn out_fn;
    void *out_user;
    cr_sim_event_fn ev_fn;
    void *ev_user;

    /* CVODES: one instance over the window, none while nothing is integrated */
    SUNContext ctx;
    void *cvode;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS; /* fixed-point iteration, or NULL: CVODE's Newton */
    int nroots;
    int *rootsfound;
    /* first root of each root contact: three (closing, rate, wake), four with
     * a release root (release_root), in the order of the R_ names */
    size_t *roff;
    size_t *root_contact; /* pair of each block of roots: window contacts with a contact */
    size_t n_contact_roots;
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
    double *wake_level; /* (CR_WAKE_FRACTION·δ*)ⁿ⁺¹ of each pair (wake_margin) */
    int *quiet;         /* wake contacts: no events (wake_margin) */
    double *frozen;     /* the signs a quiet contact's first three roots show CVODE */

    /* The engine's own event location (section "event location"), unless
     * CRADLE_CHAIN_ROOTS=cvode asks for CVODE's root finding. Root function q
     * of the window belongs to root contact rblock[q]; rootk[c] is contact c's
     * block while it is a window's root contact. */
    int own_roots;
    size_t nrf, *rblock, *rootk;
    double *glo, *ghi;        /* the functions at tlo and at the end of the step, tn */
    double *clo, *chi, *cmid; /* the candidates' values during a search */
    size_t *cand, ncand;      /* the functions that differ between glo and ghi */
    unsigned char *guide;     /* candidate c may steer the secant */
    size_t *redo, nredo;      /* contacts whose functions an event redefined */
    unsigned char *redo_mark;
    double tlo, tn, hlast; /* scaled; hlast: the last step, for the tolerance */
    N_Vector *dky;         /* the derivatives y⁽ᵏ⁾(tn), k ≤ dky_q (taylor) */
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
    out_event *heap;        /* next events of outside contacts, earliest first */
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
static inline double wvel(const cr_sim *s, const double *y, size_t i)
{
    size_t k = s->ybody[i];
    return k != NONE ? y[k + 1] : s->gv[s->grp[i]];
}

/* Free flight of outside body i: its group's velocity and displacement now. */
static inline double fly_vel(const cr_sim *s, size_t i)
{
    return s->gv[s->grp[i]];
}

static inline double fly_dis(const cr_sim *s, size_t i)
{
    size_t r = s->grp[i];
    return s->off[i] + s->g0[r] + s->gv[r] * (s->tau - s->gt[r]);
}

static inline double fly_ovl(const cr_sim *s, size_t c)
{
    return s->ref_o[c] + (fly_vel(s, c) - fly_vel(s, c + 1)) * (s->tau - s->ref_tc[c]);
}

/* The scaled state now, wherever it lives. */
static inline double vel_now(const cr_sim *s, size_t i)
{
    size_t k = s->ybody[i];
    return k != NONE ? N_VGetArrayPointer(s->y)[k + 1] : fly_vel(s, i);
}

static inline double dis_now(const cr_sim *s, size_t i)
{
    size_t k = s->ybody[i];
    return k != NONE ? N_VGetArrayPointer(s->y)[k] : fly_dis(s, i);
}

static inline double ovl_now(const cr_sim *s, size_t c)
{
    size_t k = s->yovl[c];
    return k != NONE ? N_VGetArrayPointer(s->y)[k] : fly_ovl(s, c);
}

/* ∫ f_c dt so far, scaled: the finished windows' and the current one's. */
static inline double impulse_now(const cr_sim *s, size_t c)
{
    size_t k = s->yquad[c];
    return s->Pbank[c] + (k != NONE ? N_VGetArrayPointer(s->yQ)[k] : 0.0);
}

/* unilateral contact force of pair c (0 when the pair has no contact) */
static inline double contact_force(const cr_sim *s, size_t c, double delta, double rate)
{
    return s->contact_on[c] ? cr_contact_force(&s->law[c], delta, rate) : 0.0;
}

/* link tension of pair c (pulls the bodies together when positive) */
static inline double link_tension(const cr_sim *s, size_t c, double delta, double rate)
{
    if (!s->has_link[c])
        return 0.0;
    const cr_link *l = &s->link[c];
    double ext = s->radius[c] + s->radius[c + 1] - delta - l->length;
    return l->k * ext - l->c * rate; /* ė = −δ̇ */
}

/* field acceleration of body i at scaled displacement d (m/s²) */
static inline double field_accel(const cr_sim *s, size_t i, double d)
{
    double a = s->gravity;
    if (s->plength[i] > 0.0)
        a -= s->pg[i] * sin((s->x0[i] + s->L * d - s->pivot[i]) / s->plength[i]);
    return a;
}

/* First and one-past-last window contact of interval [lo, hi]: the contact on
 * its left (a boundary unless lo = 0), the internal ones, the one on its right. */
static inline size_t icon_first(size_t lo)
{
    return lo > 0 ? lo - 1 : 0;
}

static inline size_t icon_end(const cr_sim *s, size_t hi)
{
    return hi < s->nc ? hi + 1 : s->nc;
}

/* ---- CVODE callbacks (over the window) ------------------------------------- */

/* Adds the power dissipated in pair c (W) at overlap delta and rate (SI) to
 * @p diss, term by term (the sum rounds as it always did). An undamped
 * contact's rate is (f − Kδⁿ) δ̇ with f = Kδⁿ computed the same way: exactly
 * ±0, so it is skipped (its f and δⁿ were 3 % of a 5-ball cradle's run). */
static inline void dissipation(const cr_sim *s, size_t c, double delta, double rate, double *diss)
{
    if (s->contact_on[c] && s->law[c].C != 0.0)
        *diss += cr_contact_dissipation_rate(&s->law[c], delta, rate);
    if (s->has_link[c])
        *diss += s->link[c].c * rate * rate;
}

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydotv);
    double fscale = s->T / s->V;
    /* the impulses and the dissipated work, when they are states (qstate) */
    double *q = s->qstate ? yd + s->ny : NULL, diss = 0.0;

    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t i = lo; i <= hi; i++) {
            size_t j = s->ybody[i];
            yd[j] = y[j + 1];
            yd[j + 1] = s->fixed[i] || !s->has_fields ? 0.0 : fscale * field_accel(s, i, y[j]);
        }
        for (size_t c = icon_first(lo); c < icon_end(s, hi); c++) {
            size_t ja = s->ybody[c], jb = s->ybody[c + 1], jd = s->yovl[c];
            double va = ja != NONE ? y[ja + 1] : fly_vel(s, c);
            double vb = jb != NONE ? y[jb + 1] : fly_vel(s, c + 1);
            yd[jd] = va - vb;
            if (ja == NONE || jb == NONE)
                continue; /* a boundary contact: open or quiet, no force */
            double delta = s->L * y[jd], rate = s->V * (va - vb);
            /* compression-positive pair force: contact push minus link pull */
            double fc = contact_force(s, c, delta, rate);
            double f = fc - link_tension(s, c, delta, rate);
            if (!isfinite(f))
                return -1;
            yd[ja + 1] -= s->accel[c] * f;
            yd[jb + 1] += s->accel[c + 1] * f;
            if (q) { /* as quad_rhs computes them */
                q[s->yquad[c]] = fc * s->T / s->Pscale;
                dissipation(s, c, delta, rate, &diss);
            }
        }
    }
    if (q)
        q[s->nq] = diss * s->T / s->Escale;
    return 0;
}

static int jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
               N_Vector t2, N_Vector t3)
{
    (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double floor = s->jac_floor_rel * s->L;
    double fscale = s->T / s->V;

    SUNMatZero(J);
    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t i = lo; i <= hi; i++) {
            sunindextype d = (sunindextype)s->ybody[i], v = d + 1;
            SM_ELEMENT_B(J, d, v) = 1.0;
            if (!s->fixed[i] && s->plength[i] > 0.0) {
                double th = (s->x0[i] + s->L * y[d] - s->pivot[i]) / s->plength[i];
                SM_ELEMENT_B(J, v, d) = -fscale * s->pg[i] * cos(th) * s->L / s->plength[i];
            }
        }
        for (size_t c = icon_first(lo); c < icon_end(s, hi); c++) {
            size_t ja = s->ybody[c], jb = s->ybody[c + 1];
            sunindextype row_d = (sunindextype)s->yovl[c];
            sunindextype va = (sunindextype)(ja + 1), vb = (sunindextype)(jb + 1);
            if (ja != NONE)
                SM_ELEMENT_B(J, row_d, va) = 1.0;
            if (jb != NONE)
                SM_ELEMENT_B(J, row_d, vb) = -1.0;
            if (ja == NONE || jb == NONE)
                continue;

            double delta = s->L * y[row_d], rate = s->V * (y[va] - y[vb]), fd = 0.0, fv = 0.0;
            if (s->contact_on[c])
                cr_contact_partials(&s->law[c], delta, rate, floor, &fd, &fv);
            if (s->has_link[c]) { /* −T = −k(r_a + r_b − δ − ℓ) + c δ̇ */
                fd += s->link[c].k;
                fv += s->link[c].c;
            }
            /* scaled: ∂f/∂δ̃ = fd·L, ∂f/∂ṽ_a = fv·V, ∂f/∂ṽ_b = −fv·V */
            double gd = fd * s->L, gv = fv * s->V;
            double aa = s->accel[c], ab = s->accel[c + 1];
            SM_ELEMENT_B(J, va, row_d) -= aa * gd;
            SM_ELEMENT_B(J, va, va) -= aa * gv;
            SM_ELEMENT_B(J, va, vb) += aa * gv;
            SM_ELEMENT_B(J, vb, row_d) += ab * gd;
            SM_ELEMENT_B(J, vb, va) += ab * gv;
            SM_ELEMENT_B(J, vb, vb) -= ab * gv;
        }
    }
    return 0;
}

/* Quadratures: the impulse of every internal window contact, then the
 * dissipated work (boundary contacts carry no force). */
static int quad_rhs(sunrealtype t, N_Vector yv, N_Vector qdot, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *q = N_VGetArrayPointer(qdot);
    double diss = 0.0;
    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t c = lo; c < hi; c++) {
            double delta = s->L * y[s->yovl[c]];
            double rate = s->V * (y[s->ybody[c] + 1] - y[s->ybody[c + 1] + 1]);
            q[s->yquad[c]] = contact_force(s, c, delta, rate) * s->T / s->Pscale;
            dissipation(s, c, delta, rate, &diss);
        }
    }
    q[s->nq] = diss * s->T / s->Escale;
    return 0;
}

/* Roots, four per window contact with a unilateral law (root_contact):
 * closing/opening (δ crosses the event margin), compression rate δ̇ (only while
 * loaded), the sign of the raw law for `force`-release contacts with damping,
 * and the wake margin. A quiet (wake) contact shows CVODE its frozen signs
 * instead of its first three functions: it generates no events (see
 * wake_margin). Contacts outside the window have none: their events follow
 * from free flight (predict). */
enum { R_CLOSE, R_RATE, R_FORCE, R_WAKE, R_PER_CONTACT };

/* Pair c has a release root: a `force`-release law with damping. Without one
 * R_FORCE is a constant, and CVODE is not shown it: each root function costs
 * every step (cvRcheck3 scans them all, 9 % of a 5-ball cradle's run). */
static inline int release_root(const cr_sim *s, size_t c)
{
    return s->law[c].release == CR_RELEASE_FORCE && s->law[c].C != 0.0;
}

/* Adams' highest order. CVODE allows 12, and each step's Nordsieck work grows
 * as q²: on the 3-ball chain at rtol 1e-10 the order wandered up to 12 and back,
 * taking 398 steps; capped at 7 it takes 290 at 38 % fewer instructions, with
 * the same error against a BDF rtol-1e-13 run (1.7e-9 vs 1.5e-9). On the
 * 1000-bead chain at 1e-11 and the 5-ball cradle the cap changes nothing
 * (docs/performance.md, "Adams' order"). */
#define ADAMS_MAX_ORDER 7

/* Contacts whose own energy cannot compress them beyond CR_WAKE_FRACTION·δ* are
 * quiet: behind a pulse, contacts left touching at δ ~ 1e-7 δ* with relative
 * speeds of 1e-9 V open and re-close every few hundred contact times, and their
 * compression rate flickers around 0 at the last bit (CVODE's root finder
 * cannot converge on such a function). The margin is the largest overlap the
 * contact's own energy allows, ((n+1)/K·(½μγ² + Kδⁿ⁺¹/(n+1)))^(1/(n+1)), over δ*,
 * minus the fraction: a local criterion, no look into the future. A quiet
 * contact keeps its force in the RHS while both its bodies are in the window,
 * generates no events and counts as settled. d and g: scaled overlap and
 * compression rate. */
/* The margin is computed as the (n+1)-th power of reach / (θ δ*), minus 1: the
 * same sign and the same roots, without the two pow calls that were 10 % of a
 * 5-ball cradle's CPU (wake_level holds (θ δ*)ⁿ⁺¹). */
static double wake_margin(const cr_sim *s, size_t c, double d, double g)
{
    const cr_contact_params *p = &s->law[c];
    double rate = s->V * g;
    double reach_pow = 0.5 * (p->n + 1.0) * s->mu[c] * rate * rate / p->K;
    if (d > 0.0)
        reach_pow += cr_pow_overlap(s->L * d, p->n + 1.0);
    return reach_pow / s->wake_level[c] - 1.0;
}

/* The first three root functions of pair c, as CVODE sees them when not quiet;
 * d the scaled overlap, va and vb the scaled velocities. */
static void live_roots(const cr_sim *s, size_t c, double d, double va, double vb, double *g)
{
    g[R_CLOSE] = d - ETA;
    /* compression rate only matters while loaded; elsewhere a constant keeps
     * bitwise-equal velocities of untouched bodies from an exact zero */
    g[R_RATE] = d > ETA ? va - vb : 1.0;
    const cr_contact_params *p = &s->law[c];
    if (p->release != CR_RELEASE_FORCE || p->C == 0.0) {
        g[R_FORCE] = -1.0; /* no release root: a constant never crosses */
    } else if (d <= ETA) {
        /* Open: the overlap itself, below the margin. A function that stays
         * exactly zero over an interval makes CVODE stop with CV_CLOSERT. */
        g[R_FORCE] = d - ETA;
    } else {
        g[R_FORCE] = cr_contact_release_function(p, s->L * d, s->V * (va - vb), s->L);
    }
}

/* The root functions of root contact k (block k) into gk, at the scaled
 * overlap d and velocities va, vb of its pair. */
static void block_values(const cr_sim *s, size_t k, double d, double va, double vb, double *gk)
{
    size_t c = s->root_contact[k];
    double g4[R_PER_CONTACT];
    if (s->quiet[c])
        memcpy(g4, s->frozen + 3 * c, 3 * sizeof(double));
    else
        live_roots(s, c, d, va, vb, g4);
    g4[R_WAKE] = wake_margin(s, c, d, va - vb);
    gk[0] = cr_root_nonzero(g4[R_CLOSE]);
    gk[1] = cr_root_nonzero(g4[R_RATE]);
    size_t wake = 2; /* the wake root's place: after the release root if any */
    if (s->roff[k + 1] - s->roff[k] == R_PER_CONTACT)
        gk[wake++] = cr_root_nonzero(g4[R_FORCE]);
    gk[wake] = cr_root_nonzero(g4[R_WAKE]);
}

/* The root functions of root contact k at the window state y into gk. */
static void contact_block(const cr_sim *s, const double *y, size_t k, double *gk)
{
    size_t c = s->root_contact[k];
    block_values(s, k, y[s->yovl[c]], wvel(s, y, c), wvel(s, y, c + 1), gk);
}

static int roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    for (size_t k = 0; k < s->n_contact_roots; k++)
        contact_block(s, y, k, g + s->roff[k]);
    return 0;
}

/* ---- create / destroy ------------------------------------------------------ */

/* Frees the window's CVODES objects; their counters are banked first. */
static void window_free(cr_sim *s)
{
    if (s->cvode) {
        cr_cvode_bank(s->cvode, &s->banked);
        CVodeFree(&s->cvode);
    }
    if (s->LS)
        SUNLinSolFree(s->LS);
    if (s->A)
        SUNMatDestroy(s->A);
    if (s->NLS)
        SUNNonlinSolFree(s->NLS);
    s->NLS = NULL;
    if (s->dky)
        N_VDestroyVectorArray(s->dky, ADAMS_MAX_ORDER + 1);
    s->dky = NULL;
    if (s->y)
        N_VDestroy(s->y);
    if (s->yQ)
        N_VDestroy(s->yQ);
    s->LS = NULL;
    s->A = NULL;
    s->y = s->yQ = NULL;
}

void cr_sim_destroy(cr_sim *s)
{
    if (!s)
        return;
    window_free(s);
    if (s->ctx)
        SUNContext_Free(&s->ctx);
    free(s->mass);
    free(s->radius);
    free(s->x0);
    free(s->v0);
    free(s->delta0);
    free(s->fixed);
    free(s->law);
    free(s->contact_on);
    free(s->link);
    free(s->has_link);
    free(s->pivot);
    free(s->plength);
    free(s->pg);
    free(s->cluster);
    free(s->accel);
    free(s->rootsfound);
    free(s->roff);
    free(s->root_contact);
    free(s->mu);
    free(s->wake_level);
    free(s->quiet);
    free(s->frozen);
    free(s->rblock);
    free(s->rootk);
    free(s->glo);
    free(s->ghi);
    free(s->clo);
    free(s->chi);
    free(s->cmid);
    free(s->cand);
    free(s->guide);
    free(s->redo);
    free(s->redo_mark);
    free(s->ilo);
    free(s->ihi);
    free(s->nlo);
    free(s->nhi);
    free(s->ybody);
    free(s->yovl);
    free(s->yquad);
    free(s->wcon);
    free(s->wcon2);
    free(s->cwin);
    free(s->grp);
    free(s->gfirst);
    free(s->glast);
    free(s->off);
    free(s->g0);
    free(s->gv);
    free(s->gt);
    free(s->gm);
    free(s->ref_o);
    free(s->ref_tc);
    free(s->Pbank);
    free(s->heap);
    free(s->stamp);
    free(s->counted);
    free(s->bind);
    free(s->events);
    free(s);
}
static void choose_scales(cr_sim *s)
{
    double vmin = INFINITY, vmax = -INFINITY, mmin = INFINITY, rmin = INFINITY;
    double gmax = fabs(s->gravity), lmax = 0.0;
    for (size_t i = 0; i < s->nb; i++) {
        /* a wall is a body at rest: it counts for the relative speeds */
        vmin = fmin(vmin, s->v0[i]);
        vmax = fmax(vmax, s->v0[i]);
        if (s->fixed[i])
            continue;
        mmin = fmin(mmin, s->mass[i]);
        rmin = fmin(rmin, s->radius[i]);
        if (s->plength[i] > 0.0) {
            gmax = fmax(gmax, s->pg[i]);
            lmax = fmax(lmax, s->plength[i]);
        }
    }
    if (!isfinite(mmin)) { /* only walls: nothing moves */
        mmin = 1.0;
        rmin = 1.0;
    }
    if (vmax > vmin)
        s->V = vmax - vmin;
    else if (gmax > 0.0) /* released from rest in a field: the speed it will gain */
        s->V = sqrt(gmax * fmax(lmax, rmin));
    else
        s->V = 1.0;
    s->L = INFINITY;
    for (size_t c = 0; c < s->nc; c++) {
        if (!s->contact_on[c])
            continue;
        double ma = s->mass[c], mb = s->mass[c + 1];
        double mu = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
        const cr_contact_params *p = &s->law[c];
        s->L = fmin(s->L, pow(mu * s->V * s->V / p->K, 1.0 / (p->n + 1.0)));
    }
    if (!isfinite(s->L))
        s->L = rmin;
    s->T = s->L / s->V;
    s->Pscale = mmin * s->V;
    s->Escale = mmin * s->V * s->V;
    for (size_t i = 0; i < s->nb; i++)
        s->accel[i] = s->fixed[i] ? 0.0 : s->T / (s->V * s->mass[i]);
}

cr_sim *cr_sim_create(const cr_model *model, char *msg, size_t msglen)
{
    if (!model) {
        cr_set_msg(msg, msglen, "no model");
        return NULL;
    }
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    cr_sim *s = calloc(1, sizeof(*s));
    if (!s)
        goto nomem;
    s->nb = cr_model_ball_count(model);
    s->nc = cr_model_contact_count(model);
    size_t nb = s->nb, nc = s->nc ? s->nc : 1;
    s->mass = malloc(nb * sizeof(double));
    s->radius = malloc(nb * sizeof(double));
    s->x0 = malloc(nb * sizeof(double));
    s->v0 = malloc(nb * sizeof(double));
    s->accel = malloc(nb * sizeof(double));
    s->fixed = calloc(nb, sizeof(int));
    s->pivot = calloc(nb, sizeof(double));
    s->plength = calloc(nb, sizeof(double));
    s->pg = calloc(nb, sizeof(double));
    s->cluster = calloc(nb, sizeof(size_t));
    s->delta0 = malloc(nc * sizeof(double));
    s->law = calloc(nc, sizeof(cr_contact_params));
    s->contact_on = calloc(nc, sizeof(int));
    s->link = calloc(nc, sizeof(cr_link));
    s->has_link = calloc(nc, sizeof(int));
    s->root_contact = malloc(nc * sizeof(size_t));
    s->mu = malloc(nc * sizeof(double));
    s->wake_level = malloc(nc * sizeof(double));
    s->quiet = calloc(nc, sizeof(int));
    s->frozen = calloc(3 * nc, sizeof(double));
    s->rootsfound = malloc((R_PER_CONTACT * nc) * sizeof(int));
    size_t nf = R_PER_CONTACT * nc;
    s->rblock = malloc(nf * sizeof(size_t));
    s->rootk = malloc(nc * sizeof(size_t));
    s->glo = malloc(nf * sizeof(double));
    s->ghi = malloc(nf * sizeof(double));
    s->clo = malloc(nf * sizeof(double));
    s->chi = malloc(nf * sizeof(double));
    s->cmid = malloc(nf * sizeof(double));
    s->cand = malloc(nf * sizeof(size_t));
    s->guide = malloc(nf);
    s->redo = malloc(nc * sizeof(size_t));
    s->redo_mark = calloc(nc, 1);
    s->roff = malloc((nc + 1) * sizeof(size_t));
    s->ilo = malloc(nb * sizeof(size_t));
    s->ihi = malloc(nb * sizeof(size_t));
    s->nlo = malloc(nb * sizeof(size_t));
    s->nhi = malloc(nb * sizeof(size_t));
    s->ybody = malloc(nb * sizeof(size_t));
    s->yovl = malloc(nc * sizeof(size_t));
    s->yquad = malloc(nc * sizeof(size_t));
    s->wcon = malloc(nc * sizeof(size_t));
    s->wcon2 = malloc(nc * sizeof(size_t));
    s->cwin = calloc(nc, 1);
    s->grp = malloc(nb * sizeof(size_t));
    s->gfirst = malloc(nb * sizeof(size_t));
    s->glast = malloc(nb * sizeof(size_t));
    s->off = calloc(nb, sizeof(double));
    s->g0 = calloc(nb, sizeof(double));
    s->gv = calloc(nb, sizeof(double));
    s->gt = calloc(nb, sizeof(double));
    s->gm = calloc(nb, sizeof(double));
    s->ref_o = calloc(nc, sizeof(double));
    s->ref_tc = calloc(nc, sizeof(double));
    s->Pbank = calloc(nc, sizeof(double));
    s->stamp = calloc(nc, sizeof(unsigned long));
    s->counted = calloc(nc, 1);
    s->bind = malloc(nc * sizeof(size_t));
    if (!s->mass || !s->radius || !s->x0 || !s->v0 || !s->accel || !s->fixed || !s->pivot ||
        !s->plength || !s->pg || !s->cluster || !s->delta0 || !s->law || !s->contact_on ||
        !s->link || !s->has_link || !s->root_contact || !s->mu || !s->wake_level || !s->quiet ||
        !s->frozen || !s->rootsfound || !s->roff || !s->ilo || !s->ihi || !s->nlo || !s->nhi ||
        !s->ybody || !s->yovl || !s->yquad || !s->wcon || !s->wcon2 || !s->cwin || !s->grp ||
        !s->gfirst || !s->glast || !s->off || !s->g0 || !s->gv || !s->gt || !s->gm || !s->ref_o ||
        !s->ref_tc || !s->Pbank || !s->stamp || !s->counted || !s->bind || !s->rblock ||
        !s->rootk || !s->glo || !s->ghi || !s->clo || !s->chi || !s->cmid || !s->cand ||
        !s->guide || !s->redo || !s->redo_mark)
        goto nomem;
    s->gravity = cr_model_gravity(model);
    s->has_fields = cr_model_has_fields(model);
    for (size_t i = 0; i < nb; i++) {
        s->mass[i] = cr_model_mass(model, i);
        s->radius[i] = cr_model_radius(model, i);
        s->x0[i] = cr_model_position(model, i);
        s->v0[i] = cr_model_is_fixed(model, i) ? 0.0 : cr_model_velocity(model, i);
        s->fixed[i] = cr_model_is_fixed(model, i);
        cr_model_pendulum(model, i, &s->pivot[i], &s->plength[i], &s->pg[i]);
    }
    for (size_t c = 0; c < s->nc; c++) {
        s->delta0[c] = cr_model_initial_overlap(model, c);
        s->contact_on[c] = cr_model_contact_enabled(model, c);
        s->law[c] = *cr_model_contact(model, c);
        const cr_link *l = cr_model_link(model, c);
        if (l) {
            s->link[c] = *l;
            s->has_link[c] = 1;
        }
        if (s->contact_on[c])
            s->root_contact[s->n_contact_roots++] = c;
        s->cluster[c + 1] = s->has_link[c] ? s->cluster[c] : c + 1;
    }
    choose_scales(s);
    /* before the run every body is outside the window, in free flight from its
     * start: the getters answer from the model copy through the same code */
    for (size_t i = 0; i < nb; i++) {
        s->ybody[i] = NONE;
        s->grp[i] = s->gfirst[i] = s->glast[i] = i;
        s->gv[i] = s->v0[i] / s->V;
        s->gm[i] = s->fixed[i] ? INFINITY : s->mass[i];
    }
    for (size_t c = 0; c < s->nc; c++) {
        s->yovl[c] = s->yquad[c] = NONE;
        s->ref_o[c] = s->delta0[c] / s->L;
    }
    /* fields act on every body: no free flight is exact under them. The
     * environment overrides the model's setting (a debugging aid). */
    cr_active_region ar = cr_model_settings(model)->active_region;
    const char *region = getenv("CRADLE_ACTIVE_REGION");
    if (region && strcmp(region, "off") == 0)
        ar = CR_ACTIVE_REGION_OFF;
    else if (region && strcmp(region, "on") == 0)
        ar = CR_ACTIVE_REGION_ON;
    s->whole = s->has_fields || ar == CR_ACTIVE_REGION_OFF;
    const char *cr = getenv("CRADLE_CHAIN_ROOTS");
    s->own_roots = !(cr && strcmp(cr, "cvode") == 0);
    const char *qs = getenv("CRADLE_IMPULSE_STATES");
    s->qstate_ok = !(qs && strcmp(qs, "off") == 0);
    const char *pad = getenv("CRADLE_REGION_PAD");
    s->pad = pad && atoi(pad) >= 0 ? (size_t)atoi(pad) : REGION_PAD;
    for (size_t c = 0; c < s->nc; c++) {
        double ma = s->mass[c], mb = s->mass[c + 1];
        s->mu[c] = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
    }
    for (size_t c = 0; c < s->nc; c++)
        if (s->has_link[c]) {
            double m = s->fixed[c]
                           ? s->mass[c + 1]
                           : (s->fixed[c + 1] ? s->mass[c] : 0.5 * (s->mass[c] + s->mass[c + 1]));
            s->settle += 2.0 * sqrt(m / s->link[c].k);
        }
    const cr_settings *set = cr_model_settings(model);
    s->rtol = set->rtol;
    s->atol = set->atol;
    s->method = set->method;
    s->out_interval = set->output_interval;
    s->jac_floor_rel = set->jacobian_floor > 0.0 ? set->jacobian_floor : CR_DEFAULT_JACOBIAN_FLOOR;
    snprintf(s->end_reason, sizeof s->end_reason, "not run");
    return s;
nomem:
    cr_set_msg(msg, msglen, "out of memory");
    cr_sim_destroy(s);
    return NULL;
}

int cr_sim_set_tolerances(cr_sim *s, double rtol, double atol)
{
    CR_CHECK(s && rtol > 0.0 && rtol < 1.0 && atol > 0.0, s ? s->err : NULL, CR_ERR_INVALID);
    s->rtol = rtol;
    s->atol = atol;
    return CR_OK;
}

int cr_sim_set_method(cr_sim *s, cr_method method)
{
    CR_CHECK(s && method >= CR_METHOD_BDF && method <= CR_METHOD_AUTO, s ? s->err : NULL,
             CR_ERR_INVALID);
    s->method = method;
    return CR_OK;
}

int cr_sim_set_output(cr_sim *s, double interval, cr_sim_output_fn fn, void *user)
{
    CR_CHECK(s && isfinite(interval), s ? s->err : NULL, CR_ERR_INVALID);
    s->out_interval = interval;
    s->out_fn = fn;
    s->out_user = user;
    return CR_OK;
}

int cr_sim_set_event_callback(cr_sim *s, cr_sim_event_fn fn, void *user)
{
    CR_CHECK(s, NULL, CR_ERR_INVALID);
    s->ev_fn = fn;
    s->ev_user = user;
    return CR_OK;
}

int cr_sim_set_jacobian_floor(cr_sim *s, double rel_floor)
{
    CR_CHECK(s && rel_floor > 0.0 && isfinite(rel_floor), s ? s->err : NULL, CR_ERR_INVALID);
    s->jac_floor_rel = rel_floor;
    return CR_OK;
}

void cr_sim_request_stop(cr_sim *s)
{
    if (s)
        s->stop_requested = 1;
}

/* ---- event location -------------------------------------------------------- */

/*
 * The engine locates its events itself; CRADLE_CHAIN_ROOTS=cvode gives back
 * CVODE's root finding (for comparison: the same events). CVODE's evaluates
 * every root function and interpolates the window's whole state about 24
 * times per root return (cvRcheck2, cvRcheck3 and the Illinois iterations of
 * cvRootfind): 29 % of a 5-ball cradle's run. Here CVODE takes single steps
 * (CV_ONE_STEP); the root functions are evaluated once, at each step's end;
 * only those that changed sign over the step are searched, with CVODE's
 * Illinois method and tolerance 100 ε (|t_n| + |h|), evaluating only their
 * contacts; a contact's rate and release functions, which jump where its
 * closing function crosses, do not steer the secant (as src/pool-roots.c).
 * own_advance returns what CVode returns in CV_NORMAL mode: the first root in
 * (t_lo, min(t_n, target)], else the target, else the stop time, with the
 * state interpolated there. After a root return the events may have redefined
 * some contacts' functions (a contact falls quiet or wakes up: mark_redo):
 * those are evaluated again at both ends, as CVODE evaluates all of them again.
 */

/* Opposite signs (never a product: 1e-300 · 1e-25 underflows to 0). */
static inline int differ(double a, double b)
{
    return (a < 0.0) != (b < 0.0);
}

static void mark_redo(cr_sim *s, size_t c)
{
    if (!s->redo_mark[c]) {
        s->redo_mark[c] = 1;
        s->redo[s->nredo++] = c;
    }
}

static void clear_redo(cr_sim *s)
{
    for (size_t j = 0; j < s->nredo; j++)
        s->redo_mark[s->redo[j]] = 0;
    s->nredo = 0;
}

/* Every root function of the window at the state y into g. */
static void roots_at(cr_sim *s, const double *y, double *g)
{
    for (size_t k = 0; k < s->n_contact_roots; k++)
        contact_block(s, y, k, g + s->roff[k]);
    s->gevals++;
}

/* A fresh start at τ from the state s->y (a new window, a restart). */
static void roots_afresh(cr_sim *s)
{
    s->tlo = s->tn = s->tau;
    s->stepped = s->at_tstop = 0;
    s->dky_q = -1;
    s->ncand = 0;
    clear_redo(s);
    if (s->n_contact_roots)
        roots_at(s, N_VGetArrayPointer(s->y), s->glo);
}

/* The functions whose signs differ at tlo and tn: the candidates. */
static void sign_changes(cr_sim *s)
{
    s->ncand = 0;
    for (size_t q = 0; q < s->nrf; q++)
        if (differ(s->glo[q], s->ghi[q]))
            s->cand[s->ncand++] = q;
}

/* The candidates' values at the state y into out, each contact's block once
 * (the candidates are in increasing order, a block's functions together). */
static void cand_values(cr_sim *s, const double *y, double *out)
{
    double gk[R_PER_CONTACT];
    size_t kprev = NONE;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q];
        if (k != kprev)
            contact_block(s, y, k, gk);
        kprev = k;
        out[c] = gk[q - s->roff[k]];
    }
    s->gevals++;
}

/*
 * A search interpolates only the components its candidates need (an overlap
 * and two velocities per contact), from the derivatives of the step's
 * interpolating polynomial at tn, taken once per step that has a search: q + 1
 * calls of CVodeGetDky at tn instead of one full interpolation per trial
 * point (about 12 per event). The polynomial is the same; its values differ
 * from CVodeGetDky's in the last bits, far inside the root tolerance.
 * @return 0, or -1 when the vectors cannot be had (then full interpolation).
 */
static int taylor(cr_sim *s)
{
    if (s->dky_q >= 0)
        return 0;
    if (!s->dky && !(s->dky = N_VCloneVectorArray(ADAMS_MAX_ORDER + 1, s->y)))
        return -1;
    int q = 0;
    if (CVodeGetLastOrder(s->cvode, &q) != CV_SUCCESS || q > ADAMS_MAX_ORDER)
        return -1;
    for (int k = 0; k <= q; k++)
        if (CVodeGetDky(s->cvode, s->tn, k, s->dky[k]) != CV_SUCCESS)
            return -1;
    s->dky_q = q;
    return 0;
}

/* Component j of the state at the scaled time tn + dt: Σ y⁽ᵏ⁾ dtᵏ/k! (Horner). */
static double taylor_at(const cr_sim *s, size_t j, double dt)
{
    double r = N_VGetArrayPointer(s->dky[s->dky_q])[j];
    for (int k = s->dky_q - 1; k >= 0; k--)
        r = N_VGetArrayPointer(s->dky[k])[j] + r * dt / (k + 1);
    return r;
}

static double taylor_vel(const cr_sim *s, size_t i, double dt)
{
    size_t k = s->ybody[i];
    return k != NONE ? taylor_at(s, k + 1, dt) : s->gv[s->grp[i]];
}

/* The candidates' values at the scaled time tau inside the step into out. */
static void cand_values_at(cr_sim *s, double tau, double *out)
{
    double gk[R_PER_CONTACT], dt = tau - s->tn;
    size_t kprev = NONE;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q];
        if (k != kprev) {
            size_t p = s->root_contact[k];
            block_values(s, k, taylor_at(s, s->yovl[p], dt), taylor_vel(s, p, dt),
                         taylor_vel(s, p + 1, dt), gk);
        }
        kprev = k;
        out[c] = gk[q - s->roff[k]];
    }
    s->gevals++;
}

/* The state (and quadratures) at the scaled time tau inside the last step. */
static void state_at(cr_sim *s, double tau)
{
    CVodeGetDky(s->cvode, tau, 0, s->y);
    if (!s->qstate)
        CVodeGetQuadDky(s->cvode, tau, 0, s->yQ);
    s->y_at_tn = tau == s->tn;
}

/* Which candidates may steer the secant: a contact's rate and release
 * functions (between its closing and its wake function in the block) jump
 * where its closing function crosses; with that one among the candidates they
 * follow it. */
static void guides(cr_sim *s)
{
    size_t crossing = NONE; /* the last block whose closing function is a candidate */
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q], i = q - s->roff[k];
        s->guide[c] = 1;
        if (i == 0)
            crossing = k;
        else if (i + 1 < s->roff[k + 1] - s->roff[k] && crossing == k)
            s->guide[c] = 0;
    }
}

/* The candidate whose crossing is nearest the low end: the largest
 * |hi/(hi − lo)| among the sign changes (cvRootfind's imax), preferring the
 * ones that may steer. -1 when none changes sign. */
static long nearest(const double *lo, const double *hi, const unsigned char *guide, size_t nc)
{
    long imax = -1;
    double maxfrac = 0.0;
    int smooth = 0;
    for (size_t c = 0; c < nc; c++)
        if (differ(lo[c], hi[c])) {
            double frac = fabs(hi[c] / (hi[c] - lo[c]));
            if ((guide[c] && !smooth) || ((guide[c] || !smooth) && frac > maxfrac) || imax < 0) {
                maxfrac = frac;
                imax = (long)c;
                smooth |= guide[c];
            }
        }
    return imax;
}

/* cvRootfind's trial point, kept 0.1 … 0.5 of the bracket away from its ends
 * when the secant lands closer than ttol/2. */
static double trial(double tlo, double thi, double glo, double ghi, double alph, double ttol)
{
    double tmid = thi - (thi - tlo) * ghi / (ghi - alph * glo);
    double fracint = fabs(thi - tlo) / ttol, fracsub = fracint > 5.0 ? 0.1 : 0.5 / fracint;
    if (fabs(tmid - tlo) < 0.5 * ttol)
        tmid = tlo + fracsub * (thi - tlo);
    if (fabs(thi - tmid) < 0.5 * ttol)
        tmid = thi - fracsub * (thi - tlo);
    return tmid;
}

/* The first root in (tlo, thi] among the candidates, whose values at the ends
 * are in clo and chi: the Illinois method on the interpolated state. Returns
 * its time (the high end of the last bracket, where the located functions
 * have their new signs); rootsfound holds ±1 for them, as CVodeGetRootInfo. */
static double locate(cr_sim *s, double tlo, double thi)
{
    double ttol = (fabs(s->tn) + fabs(s->hlast)) * DBL_EPSILON * 100.0, alph = 1.0;
    int side = 0, sideprev = -1;
    size_t nc = s->ncand;
    guides(s);
    long imax = nearest(s->clo, s->chi, s->guide, nc);
    const double *y = N_VGetArrayPointer(s->y);
    int full = thi - tlo > ttol && taylor(s) != 0;
    while (fabs(thi - tlo) > ttol) {
        alph = sideprev == side ? (side == 2 ? 2.0 * alph : 0.5 * alph) : 1.0;
        double tmid = trial(tlo, thi, s->clo[imax], s->chi[imax], alph, ttol);
        if (full) {
            CVodeGetDky(s->cvode, tmid, 0, s->y);
            cand_values(s, y, s->cmid);
        } else {
            cand_values_at(s, tmid, s->cmid);
        }
        sideprev = side;
        long m = nearest(s->clo, s->cmid, s->guide, nc);
        memcpy(m >= 0 ? s->chi : s->clo, s->cmid, nc * sizeof(double));
        if (m >= 0) { /* a sign change in (tlo, tmid] */
            thi = tmid;
            imax = m;
            side = 1;
        } else {
            tlo = tmid;
            side = 2;
        }
    }
    memset(s->rootsfound, 0, s->nrf * sizeof(int));
    for (size_t c = 0; c < nc; c++)
        if (differ(s->clo[c], s->chi[c]))
            s->rootsfound[s->cand[c]] = s->clo[c] > 0.0 ? -1 : 1;
    return thi;
}

/* A root return: the first root in (tlo, thi], the state there; the
 * candidates' values there become the low end of the rest of the step. */
static int root_return(cr_sim *s, double thi, double *tret)
{
    double tr = locate(s, s->tlo, thi);
    state_at(s, tr);
    size_t nc = 0;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c];
        s->glo[q] = s->chi[c];
        if (differ(s->glo[q], s->ghi[q]))
            s->cand[nc++] = q;
    }
    s->ncand = nc;
    s->tlo = tr;
    *tret = tr;
    return CV_ROOT_RETURN;
}

/* After the events of a root return: the functions they redefined, again at
 * tlo (the state of the return) and at the end of the step. */
static void roots_resume(cr_sim *s)
{
    size_t n = 0;
    for (size_t j = 0; j < s->nredo; j++) {
        size_t c = s->redo[j], k = s->rootk[c];
        if (k < s->n_contact_roots && s->root_contact[k] == c)
            s->redo[n++] = k; /* its block */
        s->redo_mark[c] = 0;
    }
    s->nredo = 0;
    if (n == 0)
        return;
    double *y = N_VGetArrayPointer(s->y);
    if (s->tau != s->tlo)
        CVodeGetDky(s->cvode, s->tlo, 0, s->y);
    for (size_t j = 0; j < n; j++)
        contact_block(s, y, s->redo[j], s->glo + s->roff[s->redo[j]]);
    if (s->stepped) {
        CVodeGetDky(s->cvode, s->tn, 0, s->y);
        s->y_at_tn = 1;
        for (size_t j = 0; j < n; j++)
            contact_block(s, y, s->redo[j], s->ghi + s->roff[s->redo[j]]);
        sign_changes(s);
    }
    s->gevals += 1 + s->stepped;
}

/* What the step that ends at tn gives towards target: a root return, a return
 * at the target or the stop time, or (@p more) nothing: the next step. */
static int step_returns(cr_sim *s, double target, double *tret, int *more)
{
    *more = 0;
    if (target < s->tn) { /* the target inside the step: roots before it first */
        if (s->ncand) {
            CVodeGetDky(s->cvode, target, 0, s->y);
            cand_values(s, N_VGetArrayPointer(s->y), s->cmid);
            int any = 0;
            for (size_t c = 0; c < s->ncand; c++) {
                s->clo[c] = s->glo[s->cand[c]];
                any |= differ(s->clo[c], s->cmid[c]);
            }
            if (any) {
                memcpy(s->chi, s->cmid, s->ncand * sizeof(double));
                return root_return(s, target, tret);
            }
            for (size_t c = 0; c < s->ncand; c++)
                s->glo[s->cand[c]] = s->cmid[c];
            s->tlo = target;
        }
        state_at(s, target);
        *tret = target;
        return CV_SUCCESS;
    }
    if (s->ncand) {
        for (size_t c = 0; c < s->ncand; c++) {
            s->clo[c] = s->glo[s->cand[c]];
            s->chi[c] = s->ghi[s->cand[c]];
        }
        return root_return(s, s->tn, tret);
    }
    double *g = s->glo; /* no root in the step: its end is the next low end */
    s->glo = s->ghi;
    s->ghi = g;
    s->tlo = s->tn;
    s->stepped = 0;
    if (target > s->tn && !s->at_tstop) {
        *more = 1;
        return CV_SUCCESS;
    }
    if (!s->y_at_tn)
        state_at(s, s->tn);
    else if (!s->qstate)
        CVodeGetQuadDky(s->cvode, s->tn, 0, s->yQ);
    *tret = s->tn;
    return target <= s->tn ? CV_SUCCESS : CV_TSTOP_RETURN;
}

/* CVode(target, CV_NORMAL) with the engine's own event location. */
static int own_advance(cr_sim *s, double target, double *tret)
{
    roots_resume(s);
    for (;;) {
        int more = 1;
        if (s->stepped) {
            int flag = step_returns(s, target, tret, &more);
            if (!more)
                return flag;
        }
        sunrealtype tn;
        int flag = CVode(s->cvode, target, s->y, &tn, CV_ONE_STEP);
        if (flag < 0) {
            *tret = s->tn;
            return flag;
        }
        CVodeGetLastStep(s->cvode, &s->hlast);
        s->tn = tn;
        s->dky_q = -1;
        s->stepped = s->y_at_tn = 1;
        s->at_tstop = flag == CV_TSTOP_RETURN;
        if (s->n_contact_roots) {
            roots_at(s, N_VGetArrayPointer(s->y), s->ghi);
            sign_changes(s);
        }
    }
}

/* ---- integration ----------------------------------------------------------- */

/* Overlap and rate of pair c now (SI). */
static void pair_now(const cr_sim *s, size_t c, double *delta, double *rate)
{
    *delta = s->L * ovl_now(s, c);
    *rate = s->V * (vel_now(s, c) - vel_now(s, c + 1));
}

/* Velocity of body i now; a wall's is 0 exactly, its states carrying only the
 * linear solver's roundoff. */
static double body_velocity(const cr_sim *s, size_t i)
{
    return s->fixed[i] ? 0.0 : s->V * vel_now(s, i);
}

static int cvode_fail(cr_sim *s, const char *what, int flag)
{
    return cr_cvode_fail(s->err, what, s->t, flag);
}

static void live_roots_now(const cr_sim *s, size_t c, double *g)
{
    live_roots(s, c, ovl_now(s, c), vel_now(s, c), vel_now(s, c + 1), g);
}

static double margin_now(const cr_sim *s, size_t c)
{
    return wake_margin(s, c, ovl_now(s, c), vel_now(s, c) - vel_now(s, c + 1));
}

/* Freezes pair c's first three roots at the signs they have now. */
static void freeze(cr_sim *s, size_t c)
{
    double g[3];
    live_roots_now(s, c, g);
    for (int q = 0; q < 3; q++)
        s->frozen[3 * c + q] = g[q] > 0.0 ? 1.0 : -1.0;
    s->quiet[c] = 1;
    mark_redo(s, c);
}

/* Quiet from the start: contacts touching at rest until a wave reaches them. */
static void init_quiet(cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++)
        if (s->contact_on[c] && margin_now(s, c) < 0.0)
            freeze(s, c);
}

/* The speed, over V, that pair c's own energy (relative kinetic plus elastic)
 * could give it: √(2 E / μ) / V with E = ½μγ² + K δⁿ⁺¹/(n+1). Bounds what its
 * force could still change in its bodies' relative velocity. */
static double energy_speed(const cr_sim *s, size_t c)
{
    double delta, rate;
    pair_now(s, c, &delta, &rate);
    double E = 0.5 * s->mu[c] * rate * rate + cr_contact_energy(&s->law[c], delta);
    return sqrt(2.0 * E / s->mu[c]) / s->V;
}

/* Pair c binds its bodies into the window: linked, or a unilateral contact
 * closed (at or above the event margin, as the closing root counts) and awake,
 * or quiet with a force that still matters. Outside the window a quiet
 * contact's force is dropped (and an approaching pair locks), which changes
 * its bodies' relative velocity by at most its energy speed: the window keeps
 * quiet contacts whose energy speed reaches REGION_SPEED·rtol. Without this, the
 * wake threshold alone (an overlap of θ δ*) leaves out speeds up to
 * √(2/(n+1)) θ^((n+1)/2) V: 2.8e-8 V for Hertz, 1e-6 V for linear contacts,
 * where a 100-bead linear chain's final velocities moved by 1.1e-7 V. */
static int binds(const cr_sim *s, size_t c)
{
    if (s->has_link[c])
        return 1;
    if (!s->contact_on[c] || ovl_now(s, c) < ETA)
        return 0;
    return !s->quiet[c] || energy_speed(s, c) >= s->region_speed;
}

/* -- the heap of free-flight events (earliest first, lazy deletion) -- */

static int heap_less(const out_event *a, const out_event *b)
{
    return a->tau < b->tau || (a->tau == b->tau && a->c < b->c);
}

static void heap_down(cr_sim *s, size_t k)
{
    out_event *h = s->heap;
    for (;;) {
        size_t l = 2 * k + 1, m = k;
        if (l < s->nheap && heap_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < s->nheap && heap_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == k)
            return;
        out_event tmp = h[k];
        h[k] = h[m];
        h[m] = tmp;
        k = m;
    }
}

static void heap_pop(cr_sim *s)
{
    s->heap[0] = s->heap[--s->nheap];
    heap_down(s, 0);
}

/* Drops stale entries when they outnumber the contacts (each contact has at
 * most one valid entry), so the heap stays O(N) over any run. */
static void heap_compact(cr_sim *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->nheap; k++)
        if (s->heap[k].stamp == s->stamp[s->heap[k].c])
            s->heap[n++] = s->heap[k];
    s->nheap = n;
    for (size_t k = n / 2; k-- > 0;)
        heap_down(s, k);
}

static int heap_push(cr_sim *s, double tau, size_t c)
{
    if (s->nheap == s->heapcap) {
        if (s->nheap > 2 * s->nc + 64) {
            heap_compact(s);
        } else {
            size_t cap = s->heapcap ? 2 * s->heapcap : 64;
            out_event *h = realloc(s->heap, cap * sizeof(*h));
            if (!h)
                return CR_ERR_NOMEM;
            s->heap = h;
            s->heapcap = cap;
        }
    }
    out_event *h = s->heap;
    size_t k = s->nheap++;
    h[k] = (out_event){tau, c, s->stamp[c]};
    while (k > 0 && heap_less(&h[k], &h[(k - 1) / 2])) {
        out_event tmp = h[k];
        h[k] = h[(k - 1) / 2];
        h[(k - 1) / 2] = tmp;
        k = (k - 1) / 2;
    }
    return CR_OK;
}

/* The earliest valid free-flight event (stale entries dropped), INFINITY if none. */
static double heap_top(cr_sim *s)
{
    while (s->nheap && s->heap[0].stamp != s->stamp[s->heap[0].c])
        heap_pop(s);
    return s->nheap ? s->heap[0].tau : INFINITY;
}

static void uncount(cr_sim *s, size_t c)
{
    if (s->counted[c]) {
        s->counted[c] = 0;
        s->n_approach--;
    }
}

/* Outside contact c (both bodies in free flight): its overlap is linear in τ,
 * so its next event has a closed form. Awake and approaching, it closes where δ
 * reaches the event margin (and is unsettled until then). Quiet, its force
 * (below θⁿ of a pulse's, θ = CR_WAKE_FRACTION) is left out; approaching
 * slower than REGION_SPEED·rtol·V, it sticks where it touches (lock_pair), at once
 * if it overlaps already, so free flight never presses bodies into each other;
 * faster, it joins the window at the event margin. Quiet with a wake margin of 0
 * or more (a lock changed its bodies' velocities), it wakes up now. Separating
 * or at rest, nothing happens in free flight. */
static int predict(cr_sim *s, size_t c)
{
    s->stamp[c]++;
    uncount(s, c);
    s->ref_o[c] = fly_ovl(s, c);
    s->ref_tc[c] = s->tau;
    if (!s->contact_on[c])
        return CR_OK;
    double g = fly_vel(s, c) - fly_vel(s, c + 1), d = s->ref_o[c];
    if (s->quiet[c] && wake_margin(s, c, d, g) >= 0.0)
        return heap_push(s, s->tau, c);
    if (!(g > 0.0))
        return CR_OK;
    /* a quiet pair too fast to lock (energy_speed) joins the window instead */
    int locks = s->quiet[c] && energy_speed(s, c) < s->region_speed;
    double target = locks ? 0.0 : ETA;
    if (!s->quiet[c]) {
        s->counted[c] = 1;
        s->n_approach++;
    }
    return heap_push(s, d >= target ? s->tau : s->tau + (target - d) / g, c);
}

/* Body i's group becomes free bodies, each with the group's velocity (the
 * window takes one of them): O(size of the group). */
static void unlock_group(cr_sim *s, size_t i)
{
    size_t r = s->grp[i];
    if (s->gfirst[r] == s->glast[r])
        return;
    size_t first = s->gfirst[r], last = s->glast[r];
    double v = s->gv[r];
    for (size_t j = first; j <= last; j++) {
        double d = fly_dis(s, j);
        s->off[j] = 0.0;
        s->g0[j] = d;
        s->gt[j] = s->tau;
        s->gv[j] = v;
        s->gm[j] = s->fixed[j] ? INFINITY : s->mass[j];
        s->gfirst[j] = s->glast[j] = j;
    }
    for (size_t j = first; j <= last; j++)
        s->grp[j] = j;
}

/* Contact c's bodies' groups stick together: quiet contacts outside the window
 * carry no force, so an approaching quiet pair that touches would press on
 * into each other and its elastic energy, released later, would come from
 * nowhere (the wake of a loose tolerance then never settles). Instead the two
 * groups make a perfectly inelastic collision: momentum is kept, and the
 * relative kinetic energy, ½μγ² with γ below REGION_SPEED·rtol·V (faster pairs join
 * the window), is booked as dissipated work; no velocity changes by more than
 * γ. The smaller group is relinked to the larger's root (union by size, so
 * a body is relinked O(log N) times). @p bump: a window boundary moved. */
static int lock_pair(cr_sim *s, size_t c, int *bump)
{
    size_t a = s->grp[c], b = s->grp[c + 1];
    size_t first = s->gfirst[a], last = s->glast[b];
    /* the contacts whose overlap rate changes, from their state now */
    size_t ends[3] = {c, first > 0 ? first - 1 : NONE, last < s->nc ? last : NONE};
    for (int k = 0; k < 3; k++)
        if (ends[k] != NONE && s->yovl[ends[k]] == NONE) {
            s->ref_o[ends[k]] = fly_ovl(s, ends[k]);
            s->ref_tc[ends[k]] = s->tau;
        }
    double ma = s->gm[a], mb = s->gm[b], va = s->gv[a], vb = s->gv[b], v, mu;
    if (isinf(ma) || isinf(mb)) {
        v = isinf(ma) ? va : vb;
        mu = isinf(ma) ? (isinf(mb) ? 0.0 : mb) : ma;
    } else {
        v = (ma * va + mb * vb) / (ma + mb);
        mu = ma * mb / (ma + mb);
    }
    s->Wbank += 0.5 * mu * (va - vb) * (va - vb) * s->V * s->V / s->Escale;
    size_t big = s->glast[a] - s->gfirst[a] >= s->glast[b] - s->gfirst[b] ? a : b;
    size_t small = big == a ? b : a;
    double Gb = s->g0[big] + s->gv[big] * (s->tau - s->gt[big]);
    double Gs = s->g0[small] + s->gv[small] * (s->tau - s->gt[small]);
    for (size_t j = s->gfirst[small]; j <= s->glast[small]; j++) {
        s->off[j] += Gs - Gb;
        s->grp[j] = big;
    }
    s->g0[big] = Gb;
    s->gt[big] = s->tau;
    s->gv[big] = v;
    s->gm[big] = ma + mb;
    s->gfirst[big] = first;
    s->glast[big] = last;
    s->stats.locks++;
    int rc = predict(s, c);
    for (int k = 1; k < 3 && rc == CR_OK; k++) {
        if (ends[k] == NONE)
            continue;
        if (s->yovl[ends[k]] == NONE)
            rc = predict(s, ends[k]);
        else
            *bump = 1; /* a boundary of the window: its outside neighbour changed speed */
    }
    return rc;
}

/* -- the window -- */

/* Intervals (nlo, nhi) of the bodies of the sorted binding contacts
 * bind[0 .. n), each widened by the padding; @return their number. */
static size_t intervals_of(cr_sim *s, size_t n)
{
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t c = s->bind[j];
        size_t lo = c > s->pad ? c - s->pad : 0;
        size_t hi = c + 1 + s->pad < s->nb ? c + 1 + s->pad : s->nb - 1;
        if (m > 0 && lo <= s->nhi[m - 1] + 1) {
            if (hi > s->nhi[m - 1])
                s->nhi[m - 1] = hi;
        } else {
            s->nlo[m] = lo;
            s->nhi[m] = hi;
            m++;
        }
    }
    return m;
}

/* Returns the window's states to free flight at τ and banks its quadratures. */
static void window_dissolve(cr_sim *s)
{
    if (s->y) {
        const double *y = N_VGetArrayPointer(s->y), *q = N_VGetArrayPointer(s->yQ);
        for (size_t k = 0; k < s->nint; k++)
            for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++) {
                size_t j = s->ybody[i];
                s->grp[i] = s->gfirst[i] = s->glast[i] = i;
                s->off[i] = 0.0;
                s->g0[i] = s->fixed[i] ? 0.0 : y[j];
                s->gv[i] = s->fixed[i] ? 0.0 : y[j + 1];
                s->gt[i] = s->tau;
                s->gm[i] = s->fixed[i] ? INFINITY : s->mass[i];
                s->ybody[i] = NONE;
            }
        for (size_t j = 0; j < s->nwc; j++) {
            size_t c = s->wcon[j];
            s->ref_o[c] = y[s->yovl[c]];
            s->ref_tc[c] = s->tau;
            if (s->yquad[c] != NONE)
                s->Pbank[c] += q[s->yquad[c]];
            s->yovl[c] = s->yquad[c] = NONE;
        }
        s->Wbank += q[s->nq];
    }
    window_free(s);
    s->nint = s->nwc = s->nwb = s->ny = s->nq = s->n_contact_roots = 0;
}

/* ---- integration method --------------------------------------------------- */

/* The method a run uses: the one asked for, or for CR_METHOD_AUTO, Adams with
 * fixed-point iteration for a chain with neither links nor damped contacts,
 * and BDF otherwise (docs/performance.md, "Integration methods").
 * - A link is a spring the rods of a chain hold together with, far stiffer
 *   than the contacts' time scale (models/glocker-rods.yaml): fixed-point
 *   iteration converges only while h·‖∂f/∂y‖ < 1, Newton's does not need it.
 * - A heavy damper is stiff the same way (ζ = 11: fixed point 3.5 to 8 times
 *   slower than BDF), a light one is not (ζ ≤ 4: as fast or faster); but
 *   under fixed-point iteration the impulse quadratures follow the velocity
 *   states only to the corrector's tolerance (max |m Δv − ΔP| 2e-10 of the
 *   striker's momentum on the damped cradle at rtol 1e-10, BDF 6e-12). The
 *   monitor's field-work estimate then reads 3e-12 of T⁻ where no field
 *   acts, and the comparator fits GDI's ε to damped episodes' κ to 1e-12
 *   (tests/test-compare.c); the gain would be 10 to 40 %. Damped chains stay
 *   with BDF; `adams-fixed-point` asks for the other. */
cr_method cr_sim_method(const cr_sim *s)
{
    if (s->method != CR_METHOD_AUTO)
        return s->method;
    for (size_t c = 0; c < s->nc; c++)
        if (s->has_link[c] || (s->contact_on[c] && s->law[c].C > 0.0))
            return CR_METHOD_BDF;
    return CR_METHOD_ADAMS_FIXED_POINT;
}

/* The nonlinear solver of the window's CVODES instance: fixed-point iteration
 * (no Jacobian, no linear algebra: each iteration is one RHS), or Newton with
 * the banded LU of the exact Jacobian (bandwidth 3, the interleaved layout).
 * Returns a CVODE flag (CV_MEM_FAIL: out of memory). */
static int attach_solver(cr_sim *s, cr_method method)
{
    if (method == CR_METHOD_ADAMS_FIXED_POINT) {
        s->NLS = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
        return s->NLS ? CVodeSetNonlinearSolver(s->cvode, s->NLS) : CV_MEM_FAIL;
    }
    sunindextype ny = (sunindextype)s->ny, bw = ny > 3 ? 3 : ny - 1;
    s->A = SUNBandMatrix(ny, bw, bw, s->ctx);
    s->LS = s->A ? SUNLinSol_Band(s->y, s->A, s->ctx) : NULL;
    if (!s->A || !s->LS)
        return CV_MEM_FAIL;
    int flag = CVodeSetLinearSolver(s->cvode, s->LS, s->A);
    return flag == CV_SUCCESS ? CVodeSetJacFn(s->cvode, jac) : flag;
}

/* Lays the window out over the intervals nlo/nhi (n of them) at τ, from the
 * free flight of its bodies and contacts, and starts CVODES on it. */
static int window_build(cr_sim *s, size_t n)
{
    size_t *t = s->ilo;
    s->ilo = s->nlo;
    s->nlo = t;
    t = s->ihi;
    s->ihi = s->nhi;
    s->nhi = t;
    s->nint = n;
    /* bodies joining from a locked group free the whole group first */
    for (size_t m = 0; m < n; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++)
            if (s->ybody[i] == NONE)
                unlock_group(s, i);
    size_t k = 0, q = 0, nw = 0, nr = 0, nbw = 0, nroot = 0;
    for (size_t m = 0; m < n; m++) {
        size_t lo = s->ilo[m], hi = s->ihi[m];
        if (lo > 0)
            s->yovl[lo - 1] = k++;
        for (size_t i = lo; i <= hi; i++, nbw++) {
            s->ybody[i] = k;
            k += 2;
            if (i < s->nc)
                s->yovl[i] = k++;
        }
        for (size_t c = icon_first(lo); c < icon_end(s, hi); c++) {
            s->wcon[nw++] = c;
            if (c >= lo && c < hi)
                s->yquad[c] = q++;
            if (s->contact_on[c]) {
                s->roff[nr] = nroot;
                size_t end = nroot + R_PER_CONTACT - !release_root(s, c);
                for (; nroot < end; nroot++)
                    s->rblock[nroot] = nr;
                s->rootk[c] = nr;
                s->root_contact[nr++] = c;
            }
        }
    }
    s->roff[nr] = nroot;
    s->ny = k;
    s->nq = q;
    s->nwc = nw;
    s->nwb = nbw;
    s->stats.windows += n > 0;
    if ((long)nbw > s->stats.max_window)
        s->stats.max_window = (long)nbw;
    s->n_contact_roots = nr;
    s->nrf = nroot;
    if (n == 0)
        return CR_OK;

    int rc = CR_ERR_NOMEM;
    cr_method method = cr_sim_method(s);
    s->qstate = s->qstate_ok && method == CR_METHOD_ADAMS_FIXED_POINT;
    sunindextype nq1 = (sunindextype)(s->nq + 1);
    s->y = cr_nvector_small((sunindextype)s->ny + (s->qstate ? nq1 : 0), s->ctx);
    if (!s->y)
        goto fail;
    s->yQ = s->qstate ? N_VMake_Serial(nq1, N_VGetArrayPointer(s->y) + s->ny, s->ctx)
                      : cr_nvector_small(nq1, s->ctx);
    if (!s->yQ)
        goto fail;
    double *y = N_VGetArrayPointer(s->y);
    for (size_t m = 0; m < n; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++) {
            y[s->ybody[i]] = fly_dis(s, i);
            y[s->ybody[i] + 1] = fly_vel(s, i);
        }
    for (size_t j = 0; j < nw; j++)
        y[s->yovl[s->wcon[j]]] = fly_ovl(s, s->wcon[j]);
    N_VConst(0.0, s->yQ);

    s->adams_field = method != CR_METHOD_BDF && s->has_fields;
    s->cvode = CVodeCreate(method == CR_METHOD_BDF ? CV_BDF : CV_ADAMS, s->ctx);
    if (!s->cvode)
        goto fail;
    int flag = cr_cvode_init_at(s->cvode, rhs, s->tau, s->y, s->qstate ? NULL : quad_rhs,
                                s->qstate ? NULL : s->yQ, s, s->rtol, s->atol, s->err);
    if (flag == CV_SUCCESS && s->tau_stop > s->tau)
        flag = CVodeSetStopTime(s->cvode, s->tau_stop);
    if (flag == CV_SUCCESS && method != CR_METHOD_BDF)
        flag = CVodeSetMaxOrd(s->cvode, ADAMS_MAX_ORDER);
    if (flag != CV_SUCCESS) {
        rc = cvode_fail(s, "CVODE setup", flag);
        goto fail;
    }

    flag = attach_solver(s, method);
    if (flag == CV_MEM_FAIL)
        goto fail;
    if (flag == CV_SUCCESS && nr > 0 && !s->own_roots) {
        s->nroots = (int)nroot;
        flag = CVodeRootInit(s->cvode, s->nroots, roots);
    }
    if (flag == CV_SUCCESS) {
        if (s->own_roots)
            roots_afresh(s);
        return CR_OK;
    }
    rc = cvode_fail(s, "CVODE setup", flag);
fail:
    /* back to free flight from the same states: the getters stay valid */
    for (size_t m = 0; m < n; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++)
            s->ybody[i] = NONE;
    for (size_t j = 0; j < nw; j++)
        s->yovl[s->wcon[j]] = s->yquad[s->wcon[j]] = NONE;
    window_free(s);
    s->nint = s->nwc = s->nwb = s->ny = s->nq = s->n_contact_roots = 0;
    return rc;
}

/* A new window at τ around the binding contacts bind[0 .. nbind) (sorted,
 * unique): the old one's states go to free flight, contacts that leave it get
 * their free-flight events, contacts that enter it lose theirs. */
static int rebuild(cr_sim *s, size_t nbind)
{
    size_t nold = s->nwc;
    window_dissolve(s);
    size_t *old = s->wcon; /* the old list stays readable in the spare array */
    s->wcon = s->wcon2;
    s->wcon2 = old;
    int rc = window_build(s, intervals_of(s, nbind));
    s->rebuilds++;
    for (size_t j = 0; j < nold && rc == CR_OK; j++) {
        size_t c = old[j];
        if (s->yovl[c] == NONE) {
            s->cwin[c] = 0;
            rc = predict(s, c);
        }
    }
    for (size_t j = 0; j < s->nwc; j++) {
        size_t c = s->wcon[j];
        if (!s->cwin[c]) {
            s->cwin[c] = 1;
            s->stamp[c]++;
            uncount(s, c);
        }
    }
    return rc;
}

/* The wake threshold θ of each pair (wake_margin): CR_WAKE_FRACTION, or where
 * the tolerance cannot resolve that, the reach of a contact whose relative
 * speed is at the integration's noise. Velocities carry errors of about
 * rtol·V, so a contact's energy is known to ~ rtol², its reach to
 * rtol^(2/(n+1))·δ*: at rtol 1e-6 (Hertz) that is 1.6e-5 δ*, and a wake left
 * at 1e-6 δ* by the pulse never counted as quiet: the 1000-bead chain's window
 * trailed the pulse over 880 beads and took 9 s instead of 0.1 s. The force a
 * quiet contact can carry, θⁿ of the pulse's, stays at the tolerance's
 * order. wake_level holds (θ δ*)ⁿ⁺¹. */
static void set_wake_levels(cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++) {
        double n = s->law[c].n;
        double theta = fmax(CR_WAKE_FRACTION, WAKE_NOISE * pow(s->rtol, 2.0 / (n + 1.0)));
        s->wake_level[c] = pow(theta * s->L, n + 1.0);
    }
}

/* The first window at τ = 0: the whole chain, or the binding contacts padded. */
static int setup(cr_sim *s)
{
    if (SUNContext_Create(NULL, &s->ctx) != 0)
        return CR_ERR_NOMEM;
    s->tau = 0.0;
    s->region_speed = REGION_SPEED * s->rtol;
    set_wake_levels(s);
    init_quiet(s);
    size_t n = 0;
    if (s->whole && s->nb > 0) {
        s->nlo[0] = 0;
        s->nhi[0] = s->nb - 1;
        n = 1;
    } else if (!s->whole) {
        size_t nbind = 0;
        for (size_t c = 0; c < s->nc; c++)
            if (binds(s, c))
                s->bind[nbind++] = c;
        n = intervals_of(s, nbind);
    }
    int rc = window_build(s, n);
    for (size_t c = 0; c < s->nc && rc == CR_OK; c++) {
        if (s->yovl[c] != NONE)
            s->cwin[c] = 1;
        else
            rc = predict(s, c);
    }
    return rc;
}

static int push_event(cr_sim *s, size_t c, cr_event_kind kind)
{
    if (s->nev == s->evcap) {
        size_t cap = s->evcap ? 2 * s->evcap : EVENT_MIN_CAP;
        cr_event *e = realloc(s->events, cap * sizeof(*e));
        if (!e)
            return CR_ERR_NOMEM;
        s->events = e;
        s->evcap = cap;
    }
    cr_event *e = &s->events[s->nev++];
    e->t = s->t;
    e->contact = c;
    e->kind = kind;
    pair_now(s, c, &e->overlap, &e->rate);
    e->force = contact_force(s, c, e->overlap, e->rate);
    e->impulse = s->Pscale * impulse_now(s, c);
    s->stats.events++;
    return CR_OK;
}

/* The events a root crossing of pair c means (signs before: @p lo; root
 * functions now: @p now). Used for CVODE's own root returns and when a quiet
 * contact wakes up and its frozen signs meet the live ones. */
static int contact_events(cr_sim *s, size_t c, const double *lo, const double *now, int *restart)
{
    int close = (lo[R_CLOSE] < 0.0) != (now[R_CLOSE] < 0.0);
    int rc = CR_OK;
    if (close) {
        int closing = now[R_CLOSE] > 0.0;
        rc = push_event(s, c, closing ? CR_EVENT_CLOSE : CR_EVENT_OPEN);
        *restart |= cr_contact_force_jumps(&s->law[c], closing) || (closing && s->adams_field);
    }
    if (ovl_now(s, c) <= ETA || rc != CR_OK)
        return rc;
    if ((lo[R_RATE] < 0.0) != (now[R_RATE] < 0.0))
        rc = push_event(s, c,
                        now[R_RATE] < 0.0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION);
    /* the release root jumps from the overlap to the law at closing: that
     * crossing is the closing event, not a re-engagement */
    if (rc == CR_OK && !close && (lo[R_FORCE] < 0.0) != (now[R_FORCE] < 0.0))
        rc =
            push_event(s, c, now[R_FORCE] < 0.0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE);
    return rc;
}

/* Pair c wakes up and reports what its frozen roots hid (e.g. the closing of a
 * touching contact a wave reached). */
static int wake_up(cr_sim *s, size_t c, int *restart)
{
    double now[3];
    live_roots_now(s, c, now);
    s->quiet[c] = 0;
    mark_redo(s, c);
    return contact_events(s, c, s->frozen + 3 * c, now, restart);
}

/* Pair c's wake margin crossed 0: it falls quiet, or wakes up. A window starts
 * from states CVODE did not locate, so a crossing may repeat the state the
 * contact is in: nothing to do then. */
static int wake_crossing(cr_sim *s, size_t c, int *restart)
{
    if (margin_now(s, c) < 0.0) {
        if (!s->quiet[c])
            freeze(s, c);
        return CR_OK;
    }
    return s->quiet[c] ? wake_up(s, c, restart) : CR_OK;
}

static int handle_roots(cr_sim *s, int *restart)
{
    /* the engine's own search (own_advance) left them in rootsfound */
    int flag = s->own_roots ? CV_SUCCESS : CVodeGetRootInfo(s->cvode, s->rootsfound);
    if (flag != CV_SUCCESS)
        return cvode_fail(s, "CVodeGetRootInfo", flag);
    int rc = CR_OK;
    for (size_t k = 0; k < s->n_contact_roots && rc == CR_OK; k++) {
        size_t c = s->root_contact[k];
        const int *rk = s->rootsfound + s->roff[k];
        size_t nk = s->roff[k + 1] - s->roff[k];
        int r[R_PER_CONTACT] = {rk[0], rk[1], nk == R_PER_CONTACT ? rk[2] : 0, rk[nk - 1]};
        if (!s->quiet[c] && (r[R_CLOSE] || r[R_RATE] || r[R_FORCE])) {
            /* rootsfound gives the direction: the sign before is the opposite */
            double now[3], lo[3];
            live_roots_now(s, c, now);
            for (int q = 0; q < 3; q++) {
                lo[q] = r[q] ? -(double)r[q] : now[q];
                now[q] = r[q] ? (double)r[q] : now[q];
            }
            rc = contact_events(s, c, lo, now, restart);
        }
        if (r[R_WAKE] && rc == CR_OK)
            rc = wake_crossing(s, c, restart);
    }
    return rc;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* After the events of one instant: the window follows the binding contacts
 * (s->bind[0 .. nextra) holds outside contacts that now bind). It is rebuilt
 * when a contact outside it or on its boundary binds, when nothing in it binds
 * any more (its bodies fly freely), or when it holds more than twice the
 * padding beyond what it needs; otherwise a force jump restarts it, and so does
 * a change of speed of a boundary's outside neighbour (@p bump: a lock). */
static int update_region(cr_sim *s, int restart, int bump, size_t nextra)
{
    int need = 0;
    if (!s->whole) {
        size_t nbind = nextra;
        need = nextra > 0;
        for (size_t j = 0; j < s->nwc; j++) {
            size_t c = s->wcon[j];
            if (!binds(s, c))
                continue;
            need |= s->ybody[c] == NONE || s->ybody[c + 1] == NONE;
            s->bind[nbind++] = c;
        }
        if (nextra > 0)
            qsort(s->bind, nbind, sizeof(size_t), cmp_size);
        need |= nbind == 0 && s->nint > 0;
        if (!need && nbind > 0) {
            size_t m = intervals_of(s, nbind), bodies = 0;
            for (size_t k = 0; k < m; k++)
                bodies += s->nhi[k] - s->nlo[k] + 1;
            need = s->nwb > bodies + 2 * s->pad;
        }
        if (need) {
            int rc = rebuild(s, nbind);
            if (rc != CR_OK)
                return rc;
        }
    }
    s->stats.restarts += restart;
    if ((!restart && !bump) || need || !s->cvode)
        return CR_OK; /* a new window starts a new history */
    s->bumps += !restart;
    /* Restart the multistep history across the jump; the quadratures carry on. */
    int flag = cr_cvode_restart(s->cvode, s->tau, s->y, s->qstate ? NULL : s->yQ, &s->banked);
    if (flag == CV_SUCCESS && s->own_roots)
        roots_afresh(s);
    return flag == CV_SUCCESS ? CR_OK : cvode_fail(s, "CVodeReInit", flag);
}

/* Nothing can happen any more in a free chain: every contact settled. Outside
 * the window only the awake, approaching pairs are not (counted). */
static int chain_at_rest(const cr_sim *s)
{
    if (s->n_approach > 0)
        return 0;
    for (size_t j = 0; j < s->nwc; j++)
        if (!cr_sim_contact_settled(s, s->wcon[j]))
            return 0;
    return 1;
}

/* A listener's code: negative codes are propagated as they are, so a full disk
 * is reported as such and not as an interruption. */
static int listener_code(int r)
{
    return r == 0 ? CR_OK : (r < 0 ? r : CR_ERR_INTERRUPTED);
}

static int emit(cr_sim *s)
{
    s->stats.outputs++;
    return s->out_fn ? listener_code(s->out_fn(s, s->out_user)) : CR_OK;
}

static double safety_cap(const cr_sim *s)
{
    double gap = 0.0;
    for (size_t c = 0; c < s->nc; c++)
        gap = fmax(gap, -s->delta0[c]);
    return 2.0 * gap / s->V + 1e6 * s->T + s->settle;
}

/* When the run stops next and what it writes. */
typedef struct {
    int automatic; /* t_end ≤ 0: ends by the rule */
    int sparse;    /* automatic sampling of a free chain: nothing written in free flight */
    int coarsened; /* the row budget was reached: dt widened */
    double t_stop, dt, next, pending;
    long rows;
} run_plan;

/* The default sampling: ~12 samples per contact duration, but no more than
 * about 1000 frames over a given end time (long chains write N columns a
 * frame); in free flight (no contact loaded, no field, no link) no rows at all:
 * a free flight needs none beyond its ends. An explicit interval is honoured, up
 * to CR_MAX_OUTPUT_ROWS over a given end time. */
static int plan_run(cr_sim *s, double t_end, run_plan *p)
{
    p->automatic = t_end <= 0.0;
    p->t_stop = p->automatic ? safety_cap(s) : t_end;
    p->dt = s->out_interval > 0.0 ? s->out_interval
                                  : fmax(0.25 * s->T, p->automatic ? 0.0 : t_end / 1000.0);
    p->sparse = s->out_interval <= 0.0 && !s->has_fields && s->settle == 0.0;
    p->coarsened = 0;
    p->next = p->dt;
    p->pending = INFINITY;
    p->rows = 1;
    return cr_output_interval_check(s->out_interval, s->T, t_end, s->err, sizeof s->err);
}

/* The next output time after @p t; t is CVODE's time times T, which can fall an
 * ulp short of the output time it was asked for. */
static void skip_past(run_plan *p, double t)
{
    if (p->next > t * (1.0 + 1e-12))
        return;
    /* in one step: after a long free flight the gap can be 10⁹ intervals */
    p->next = (floor(t * (1.0 + 1e-12) / p->dt) + 1.0) * p->dt;
}

/* Some contact is loaded and awake: something is happening (only binding
 * contacts can be, and they are in the window). */
static int contacts_busy(const cr_sim *s)
{
    for (size_t j = 0; j < s->nwc; j++)
        if (!s->quiet[s->wcon[j]] && cr_sim_contact_loaded(s, s->wcon[j]))
            return 1;
    return 0;
}

static double next_stop(const cr_sim *s, const run_plan *p)
{
    /* in free flight the next root return (a closing) or the end comes first */
    if (p->sparse && !contacts_busy(s))
        return fmin(p->t_stop, p->pending);
    return fmin(fmin(p->next, p->t_stop), p->pending);
}

/* After the events of an instant: the listener, then the automatic end (at
 * rest, held for the settling time when links ring). */
static int after_events(cr_sim *s, run_plan *p, size_t first, int *done)
{
    int rc;
    if (s->ev_fn && s->nev > first && (rc = listener_code(s->ev_fn(s, first, s->ev_user))) != CR_OK)
        return rc;
    skip_past(p, s->t); /* free flight skipped outputs: resume after now */
    if (!p->automatic)
        return CR_OK;
    int rest = chain_at_rest(s);
    if (rest && s->settle == 0.0) {
        snprintf(s->end_reason, sizeof s->end_reason, "all contacts open and separating");
        *done = 1;
        return emit(s);
    }
    if (rest && !isfinite(p->pending))
        p->pending = s->t + s->settle;
    else if (!rest)
        p->pending = INFINITY;
    return CR_OK;
}

/* A root return of the window. */
static int after_roots(cr_sim *s, run_plan *p, int *done)
{
    size_t first = s->nev;
    int restart = 0;
    int rc = handle_roots(s, &restart);
    if (rc == CR_OK)
        rc = update_region(s, restart, 0, 0);
    return rc == CR_OK ? after_events(s, p, first, done) : rc;
}

/* The free-flight events due now: closings of awake outside contacts (located
 * exactly at the event margin), quiet outside contacts that touch (lock_pair)
 * or wake up. */
static int after_outside(cr_sim *s, run_plan *p, int *done)
{
    size_t first = s->nev, nextra = 0;
    int restart = 0, bump = 0, rc = CR_OK;
    while (rc == CR_OK && heap_top(s) <= s->tau) {
        size_t c = s->heap[0].c;
        heap_pop(s);
        s->stamp[c]++;
        uncount(s, c);
        int quiet_touch = s->quiet[c] && margin_now(s, c) < 0.0;
        if (quiet_touch && energy_speed(s, c) < s->region_speed) {
            rc = lock_pair(s, c, &bump);
            continue;
        }
        if (quiet_touch) {
            /* it binds at the margin (binds): into the window, no event */
            double d = ovl_now(s, c);
            s->ref_o[c] = d < ETA ? ETA : d;
            s->ref_tc[c] = s->tau;
        } else if (s->quiet[c]) {
            rc = wake_up(s, c, &restart);
        } else {
            /* at the margin, not an ulp below it: the closing root's sign */
            double d = ovl_now(s, c);
            s->ref_o[c] = d < ETA ? ETA : d;
            s->ref_tc[c] = s->tau;
            rc = push_event(s, c, CR_EVENT_CLOSE);
            restart |= cr_contact_force_jumps(&s->law[c], 1);
        }
        if (rc == CR_OK && binds(s, c))
            s->bind[nextra++] = c;
        else if (rc == CR_OK)
            rc = predict(s, c);
    }
    if (rc == CR_OK)
        rc = update_region(s, restart, bump, nextra);
    return rc == CR_OK ? after_events(s, p, first, done) : rc;
}

/* A return at an output time, the end time or the settling deadline. */
static int after_output(cr_sim *s, run_plan *p, int flag, double tout, int *done)
{
    if (s->t >= p->pending) {
        if (chain_at_rest(s)) {
            snprintf(s->end_reason, sizeof s->end_reason,
                     "all contacts open and separating for the settling time");
            *done = 1;
            return emit(s);
        }
        p->pending = INFINITY;
        return CR_OK;
    }
    int rc = emit(s);
    if (rc != CR_OK)
        return rc;
    if (flag == CV_TSTOP_RETURN || tout >= p->t_stop) {
        snprintf(s->end_reason, sizeof s->end_reason, "%s",
                 p->automatic ? "safety cap reached before the chain came apart"
                              : "end time reached");
        *done = 1;
        return CR_OK;
    }
    if (++p->rows >= CR_MAX_OUTPUT_ROWS && !p->coarsened) {
        /* keep going, writing ten times less: the file stays bounded */
        p->dt *= 10.0;
        p->coarsened = 1;
    }
    skip_past(p, s->t);
    return s->stop_requested ? CR_ERR_INTERRUPTED : CR_OK;
}

int cr_sim_run(cr_sim *s, double t_end)
{
    CR_CHECK(s && isfinite(t_end), s ? s->err : NULL, CR_ERR_INVALID);
    CR_CHECK(!s->ran, s->err, CR_ERR_INVALID);
    if (t_end <= 0.0 && s->has_fields) {
        cr_set_msg(s->err, sizeof s->err,
                   "an automatic end needs a free chain: with gravity or pendulums give an "
                   "end time");
        return CR_ERR_INVALID;
    }
    s->ran = 1;
    s->err[0] = '\0';
    run_plan plan;
    int rc = plan_run(s, t_end, &plan);
    if (rc != CR_OK)
        return rc;
    s->tau_stop = plan.t_stop / s->T;
    if ((rc = setup(s)) != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(s->err, sizeof s->err, "out of memory setting up CVODES");
        return rc;
    }

    s->t = 0.0;
    if ((rc = emit(s)) != CR_OK)
        goto interrupted;
    if (plan.automatic && chain_at_rest(s)) {
        snprintf(s->end_reason, sizeof s->end_reason, "all contacts open and separating");
        return CR_OK;
    }
    for (int done = 0; !done;) {
        /* a stop request is honoured at once, between any two returns */
        if (s->stop_requested) {
            rc = emit(s);
            if (rc == CR_OK)
                rc = CR_ERR_INTERRUPTED;
            goto interrupted;
        }
        double tout = next_stop(s, &plan);
        /* the window runs to the next output or free-flight event, whichever
         * comes first; without a window, time jumps there */
        double target = tout / s->T, th = heap_top(s);
        int outside = th <= target;
        if (outside)
            target = th;
        int flag = CV_SUCCESS;
        if (target > s->tau * (1.0 + 4.0 * DBL_EPSILON) && s->cvode) {
            sunrealtype tret;
            flag = s->own_roots ? own_advance(s, target, &tret)
                                : CVode(s->cvode, target, s->y, &tret, CV_NORMAL);
            s->tau = tret;
            s->t = tret * s->T;
            if (flag < 0)
                return cvode_fail(s, "CVode", flag);
            if (!s->qstate && !s->own_roots)
                CVodeGetQuad(s->cvode, &tret, s->yQ);
        } else if (target > s->tau) {
            s->tau = target;
            s->t = target * s->T;
        }
        if (flag == CV_ROOT_RETURN || (outside && flag != CV_TSTOP_RETURN)) {
            rc = flag == CV_ROOT_RETURN ? after_roots(s, &plan, &done)
                                        : after_outside(s, &plan, &done);
            if (rc == CR_ERR_SOLVER || rc == CR_ERR_NOMEM)
                return rc;
        } else {
            rc = after_output(s, &plan, flag, tout, &done);
        }
        if (rc != CR_OK)
            goto interrupted;
    }
    if (plan.coarsened)
        snprintf(s->end_reason + strlen(s->end_reason),
                 sizeof s->end_reason - strlen(s->end_reason),
                 " (output interval widened to %.3g s after %d rows)", plan.dt, CR_MAX_OUTPUT_ROWS);
    return CR_OK;
interrupted:
    if (rc == CR_ERR_INTERRUPTED) {
        snprintf(s->end_reason, sizeof s->end_reason, "interrupted");
        cr_set_msg(s->err, sizeof s->err, "run interrupted at t = %.9g s", s->t);
    } else {
        snprintf(s->end_reason, sizeof s->end_reason, "stopped by a listener");
        cr_set_msg(s->err, sizeof s->err, "a listener failed at t = %.9g s: %s", s->t,
                   cr_strerror(rc));
    }
    return rc;
}

/* ---- queries --------------------------------------------------------------- */

const char *cr_sim_last_error(const cr_sim *s)
{
    return s ? s->err : "no simulator";
}

const char *cr_sim_end_reason(const cr_sim *s)
{
    return s->end_reason;
}

size_t cr_sim_ball_count(const cr_sim *s)
{
    return s->nb;
}

size_t cr_sim_contact_count(const cr_sim *s)
{
    return s->nc;
}

double cr_sim_get_time(const cr_sim *s)
{
    return s->t;
}

void cr_sim_get_masses(const cr_sim *s, double *m)
{
    memcpy(m, s->mass, s->nb * sizeof(double));
}

int cr_sim_body_is_fixed(const cr_sim *s, size_t i)
{
    return i < s->nb && s->fixed[i];
}

int cr_sim_pair_has_contact(const cr_sim *s, size_t c)
{
    return c < s->nc && s->contact_on[c];
}

int cr_sim_pair_is_linked(const cr_sim *s, size_t c)
{
    return c < s->nc && s->has_link[c];
}

double cr_sim_settle_time(const cr_sim *s)
{
    return s->settle;
}

int cr_sim_contact_loaded(const cr_sim *s, size_t c)
{
    if (c >= s->nc || !s->contact_on[c])
        return 0;
    double delta, rate;
    pair_now(s, c, &delta, &rate);
    return delta > ETA * s->L && contact_force(s, c, delta, rate) > 0.0;
}

/* Velocity of the centre of mass of the link-connected cluster holding body i
 * (0 when the cluster holds a wall). */
static double cluster_velocity(const cr_sim *s, size_t i)
{
    size_t id = s->cluster[i];
    double p = 0.0, m = 0.0;
    for (size_t j = id; j < s->nb && s->cluster[j] == id; j++) {
        if (s->fixed[j])
            return 0.0;
        p += s->mass[j] * body_velocity(s, j);
        m += s->mass[j];
    }
    return p / m;
}

int cr_sim_contact_settled(const cr_sim *s, size_t c)
{
    if (c >= s->nc || !s->contact_on[c] || s->quiet[c])
        return 1;
    if (cr_sim_contact_loaded(s, c))
        return 0;
    double va = s->has_link[c] ? body_velocity(s, c) : cluster_velocity(s, c);
    double vb = s->has_link[c] ? body_velocity(s, c + 1) : cluster_velocity(s, c + 1);
    return va <= vb;
}

void cr_sim_get_positions(const cr_sim *s, double *x)
{
    /* a wall is where it was; its states carry only the linear solver's roundoff */
    for (size_t i = 0; i < s->nb; i++)
        x[i] = s->x0[i] + (!s->fixed[i] ? s->L * dis_now(s, i) : 0.0);
}

void cr_sim_get_velocities(const cr_sim *s, double *v)
{
    for (size_t i = 0; i < s->nb; i++)
        v[i] = body_velocity(s, i);
}

void cr_sim_get_overlaps(const cr_sim *s, double *delta)
{
    double rate;
    for (size_t c = 0; c < s->nc; c++)
        pair_now(s, c, &delta[c], &rate);
}

void cr_sim_get_overlap_rates(const cr_sim *s, double *rate)
{
    double delta;
    for (size_t c = 0; c < s->nc; c++)
        pair_now(s, c, &delta, &rate[c]);
}

void cr_sim_get_forces(const cr_sim *s, double *f)
{
    for (size_t c = 0; c < s->nc; c++) {
        double delta, rate;
        pair_now(s, c, &delta, &rate);
        f[c] = contact_force(s, c, delta, rate);
    }
}

void cr_sim_get_impulses(const cr_sim *s, double *P)
{
    for (size_t c = 0; c < s->nc; c++)
        P[c] = s->Pscale * impulse_now(s, c);
}

double cr_sim_dissipated_work(const cr_sim *s)
{
    return s->Escale * (s->Wbank + (s->yQ ? N_VGetArrayPointer(s->yQ)[s->nq] : 0.0));
}

double cr_sim_kinetic_energy(const cr_sim *s)
{
    double T = 0.0;
    for (size_t i = 0; i < s->nb; i++) {
        if (s->fixed[i])
            continue;
        double v = s->V * vel_now(s, i);
        T += 0.5 * s->mass[i] * v * v;
    }
    return T;
}

double cr_sim_potential_energy(const cr_sim *s)
{
    double U = 0.0;
    for (size_t c = 0; c < s->nc; c++) {
        double delta = s->L * ovl_now(s, c);
        if (s->contact_on[c])
            U += cr_contact_energy(&s->law[c], delta);
        if (s->has_link[c]) {
            double ext = s->radius[c] + s->radius[c + 1] - delta - s->link[c].length;
            U += 0.5 * s->link[c].k * ext * ext;
        }
    }
    for (size_t i = 0; i < s->nb; i++) {
        if (s->fixed[i])
            continue;
        double x = s->x0[i] + s->L * dis_now(s, i);
        U -= s->mass[i] * s->gravity * x;
        if (s->plength[i] > 0.0)
            U += s->mass[i] * s->pg[i] * s->plength[i] *
                 (1.0 - cos((x - s->pivot[i]) / s->plength[i]));
    }
    return U;
}

double cr_sim_momentum(const cr_sim *s)
{
    double p = 0.0;
    for (size_t i = 0; i < s->nb; i++)
        if (!s->fixed[i])
            p += s->mass[i] * (s->V * vel_now(s, i));
    return p;
}

size_t cr_sim_event_count(const cr_sim *s)
{
    return s->nev;
}

const cr_event *cr_sim_events(const cr_sim *s)
{
    return s->events;
}

cr_sim_stats cr_sim_get_stats(const cr_sim *s)
{
    /* CVODE's counters are read as asked: every exit of the run sees them */
    cr_sim_stats st = s->stats;
    st.steps = s->banked.steps;
    st.rhs_evals = s->banked.rhs_evals;
    st.jac_evals = s->banked.jac_evals;
    st.root_evals = s->banked.root_evals + s->gevals;
    st.nonlin_iters = s->banked.nonlin_iters;
    if (s->cvode) {
        cr_cvode_counters(s->cvode, &s->banked, &st);
        st.root_evals += s->gevals;
    }
    return st;
}

void cr_sim_get_scales(const cr_sim *s, double *length, double *speed, double *time)
{
    if (length)
        *length = s->L;
    if (speed)
        *speed = s->V;
    if (time)
        *time = s->T;
}

const char *cr_event_kind_name(cr_event_kind kind)
{
    static const char *const names[] = {"close",           "open",          "max-compression",
                                        "min-compression", "force-release", "force-reengage"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

/* ---- the chain engine behind cr_system ------------------------------------- */

typedef struct {
    cr_sim *sim;
    cr_system *sys;
    size_t *contacts_of; /* contact c twice: body i's contacts are i − 1 and i */
} chain_engine;

static int chain_output(const cr_sim *sim, void *user)
{
    (void)sim;
    return cr_system_emit_output(((chain_engine *)user)->sys);
}

static int chain_events(const cr_sim *sim, size_t first, void *user)
{
    (void)sim;
    return cr_system_emit_events(((chain_engine *)user)->sys, first);
}

static void chain_destroy(void *e)
{
    chain_engine *c = e;
    if (!c)
        return;
    cr_sim_destroy(c->sim);
    free(c->contacts_of);
    free(c);
}

static void *chain_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    chain_engine *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    c->sys = sys;
    c->sim = cr_sim_create(model, msg, msglen);
    size_t nc = c->sim ? c->sim->nc : 0;
    c->contacts_of = malloc((2 * nc + 1) * sizeof(size_t));
    if (!c->sim || !c->contacts_of) {
        if (c->sim)
            cr_set_msg(msg, msglen, "out of memory");
        chain_destroy(c);
        return NULL;
    }
    for (size_t k = 0; k < nc; k++)
        c->contacts_of[2 * k] = c->contacts_of[2 * k + 1] = k;
    c->sim->jac_floor_rel = cr_model_settings(model)->jacobian_floor;
    cr_sim_set_output(c->sim, cr_model_settings(model)->output_interval, chain_output, c);
    cr_sim_set_event_callback(c->sim, chain_events, c);
    return c;
}

#define SIM(e) (((const chain_engine *)(e))->sim)

static int chain_run(void *e, double t_end)
{
    return cr_sim_run(((chain_engine *)e)->sim, t_end);
}

static void chain_stop(void *e)
{
    cr_sim_request_stop(((chain_engine *)e)->sim);
}

static const char *chain_last_error(const void *e)
{
    return cr_sim_last_error(SIM(e));
}

static const char *chain_end_reason(const void *e)
{
    return cr_sim_end_reason(SIM(e));
}

static size_t chain_body_count(const void *e)
{
    return SIM(e)->nb;
}

static size_t chain_no_walls(const void *e)
{
    (void)e;
    return 0;
}

static int chain_is_fixed(const void *e, size_t i)
{
    return SIM(e)->fixed[i];
}

static void chain_masses(const void *e, double *m)
{
    const cr_sim *s = SIM(e);
    for (size_t i = 0; i < s->nb; i++)
        m[i] = s->fixed[i] ? INFINITY : s->mass[i];
}

static void chain_radii(const void *e, double *r)
{
    memcpy(r, SIM(e)->radius, SIM(e)->nb * sizeof(double));
}

static int chain_wall(const void *e, size_t w, double *normal, double *offset)
{
    (void)e, (void)w, (void)normal, (void)offset;
    return CR_ERR_INVALID;
}

static double chain_time(const void *e)
{
    return SIM(e)->t;
}

static void chain_positions(const void *e, double *x)
{
    cr_sim_get_positions(SIM(e), x);
}

static void chain_velocities(const void *e, double *v)
{
    cr_sim_get_velocities(SIM(e), v);
}

static size_t chain_contact_count(const void *e)
{
    return SIM(e)->nc;
}

static int chain_contact(const void *e, size_t c, cr_contact_view *w)
{
    const cr_sim *s = SIM(e);
    memset(w, 0, sizeof(*w));
    w->body_a = c;
    w->body_b = (long)c + 1;
    w->unilateral = s->contact_on[c];
    w->linked = s->has_link[c];
    pair_now(s, c, &w->overlap, &w->rate);
    w->force = contact_force(s, c, w->overlap, w->rate);
    double rmin = s->fixed[c]
                      ? s->radius[c + 1]
                      : (s->fixed[c + 1] ? s->radius[c] : fmin(s->radius[c], s->radius[c + 1]));
    if (cr_sim_contact_loaded(s, c))
        w->state = CR_CONTACT_LOADED;
    else if (w->overlap >= -CR_GEOM_TOL * rmin)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    w->settled = cr_sim_contact_settled(s, c);
    w->impulse = s->Pscale * impulse_now(s, c);
    w->normal[0] = 1.0;
    w->vector_impulse[0] = w->impulse;
    return CR_OK;
}

static const size_t *chain_body_contacts(const void *e, size_t i, size_t *n)
{
    const chain_engine *c = e;
    size_t nc = c->sim->nc;
    *n = (i > 0 && i - 1 < nc) + (i < nc);
    return *n ? c->contacts_of + (i > 0 ? 2 * i - 1 : 0) : NULL;
}

static size_t chain_event_count(const void *e)
{
    return SIM(e)->nev;
}

static const cr_event *chain_events_get(const void *e)
{
    return SIM(e)->events;
}

static double chain_kinetic(const void *e)
{
    return cr_sim_kinetic_energy(SIM(e));
}

static double chain_potential(const void *e)
{
    return cr_sim_potential_energy(SIM(e));
}

static double chain_dissipated(const void *e)
{
    return cr_sim_dissipated_work(SIM(e));
}

static void chain_momentum(const void *e, double *p)
{
    p[0] = cr_sim_momentum(SIM(e));
}

static double chain_settle(const void *e)
{
    return SIM(e)->settle;
}

static cr_run_stats chain_stats(const void *e)
{
    return cr_sim_get_stats(SIM(e));
}

static void chain_scales(const void *e, double *length, double *speed, double *time)
{
    cr_sim_get_scales(SIM(e), length, speed, time);
}

static int chain_method(const void *e)
{
    return (int)cr_sim_method(SIM(e));
}

const cr_engine_ops cr_chain_engine = {
    .name = "chain",
    .create = chain_create,
    .destroy = chain_destroy,
    .run = chain_run,
    .request_stop = chain_stop,
    .last_error = chain_last_error,
    .end_reason = chain_end_reason,
    .dim = 1,
    .contacts_fixed = 1,
    .body_count = chain_body_count,
    .wall_count = chain_no_walls,
    .is_fixed = chain_is_fixed,
    .masses = chain_masses,
    .radii = chain_radii,
    .wall = chain_wall,
    .time = chain_time,
    .positions = chain_positions,
    .velocities = chain_velocities,
    .contact_count = chain_contact_count,
    .contact = chain_contact,
    .body_contacts = chain_body_contacts,
    .event_count = chain_event_count,
    .events = chain_events_get,
    .kinetic_energy = chain_kinetic,
    .potential_energy = chain_potential,
    .dissipated_work = chain_dissipated,
    .momentum = chain_momentum,
    .settle_time = chain_settle,
    .stats = chain_stats,
    .scales = chain_scales,
    .method = chain_method,
};
