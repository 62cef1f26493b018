/*
 * The chain's root functions (closing, compression rate, release, wake margin
 * per window contact), quiet contacts and their waking, and the events
 * recorded at a root.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/common/integrator.h"

/* The wake threshold's multiple of the integration noise (cr_sm_set_wake_levels). */
#define WAKE_NOISE 10.0

/* Pair c has a release root: a `force`-release law with damping. Without one
 * CR_SM_R_FORCE is a constant, and CVODE is not shown it: each root function costs
 * every step (cvRcheck3 scans them all, 9 % of a 5-ball cradle's run). */
int cr_sm_release_root(const cr_sim *s, size_t c)
{
    return s->law[c].release == CR_RELEASE_FORCE && s->law[c].C != 0.0;
}

/* Pair c has a peak root: a damped law, whose force peaks before the maximum
 * compression (without a damper f grows with δ, and the maximum-compression
 * event is the force maximum). */
int cr_sm_peak_root(const cr_sim *s, size_t c)
{
    return s->law[c].C != 0.0;
}

/* The root functions of pair c's block (the R_ names it has). */
size_t cr_sm_block_size(const cr_sim *s, size_t c)
{
    return CR_SM_R_PER_CONTACT - !cr_sm_release_root(s, c) - !cr_sm_peak_root(s, c);
}

/* The compression-positive force of pair c (contact push minus link pull),
 * SI, read from a window state; 0 for a boundary contact (as in the RHS). */
static double pair_force_now(const cr_sim *s, size_t c, cr_sm_read_fn read, const void *ctx)
{
    size_t ja = s->ybody[c], jb = s->ybody[c + 1];
    if (ja == CR_SM_NONE || jb == CR_SM_NONE)
        return 0.0;
    double delta = s->L * read(s, ctx, s->yovl[c]);
    double rate = s->V * (read(s, ctx, ja + 1) - read(s, ctx, jb + 1));
    return cr_sm_contact_force(s, c, delta, rate) - cr_sm_link_tension(s, c, delta, rate);
}

/* The same, or during a pass over the root functions its value from the
 * pass's start (pforce). */
static double pair_force(const cr_sim *s, size_t c, cr_sm_read_fn read, const void *ctx)
{
    return s->pforce_on ? s->pforce[c] : pair_force_now(s, c, read, ctx);
}

/* Scaled acceleration of body i, as cr_sm_rhs gives it; an outside body
 * flies freely (with a field the window is the whole chain). */
static double body_accel(const cr_sim *s, size_t i, cr_sm_read_fn read, const void *ctx)
{
    size_t j = s->ybody[i];
    if (j == CR_SM_NONE || s->fixed[i])
        return 0.0;
    double a = s->has_fields ? s->T / s->V *
                                   (cr_sm_field_accel(s, i, read(s, ctx, j)) +
                                    cr_sm_drag_accel(s, i, read(s, ctx, j + 1)))
                             : 0.0;
    if (i > 0)
        a += s->accel[i] * pair_force(s, i - 1, read, ctx);
    if (i < s->nc)
        a -= s->accel[i] * pair_force(s, i, read, ctx);
    return a;
}

/* The scaled δ̈ of pair c from the right-hand side: the peak root's ḟ needs
 * it, and only the forces of pairs c − 1 to c + 1 enter. */
double cr_sm_pair_accel(const cr_sim *s, size_t c, cr_sm_read_fn read, const void *ctx)
{
    return body_accel(s, c, read, ctx) - body_accel(s, c + 1, read, ctx);
}

static double read_vector(const cr_sim *s, const void *ctx, size_t j)
{
    (void)s;
    return ((const double *)ctx)[j];
}

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
double cr_sm_wake_margin(const cr_sim *s, size_t c, double d, double g)
{
    const cr_contact_params *p = &s->law[c];
    double rate = s->V * g;
    double reach_pow = 0.5 * (p->n + 1.0) * s->mu[c] * rate * rate / p->K;
    if (d > 0.0)
        reach_pow += cr_pow_overlap_inline(s->L * d, p->n + 1.0);
    return reach_pow / s->wake_level[c] - 1.0;
}

/* The first three root functions of pair c, as CVODE sees them when not quiet;
 * d the scaled overlap, va and vb the scaled velocities. */
static void live_roots(const cr_sim *s, size_t c, double d, double va, double vb, double *g)
{
    g[CR_SM_R_CLOSE] = d - CR_SM_ETA;
    /* compression rate only matters while loaded; elsewhere a constant keeps
     * bitwise-equal velocities of untouched bodies from an exact zero */
    g[CR_SM_R_RATE] = d > CR_SM_ETA ? va - vb : 1.0;
    const cr_contact_params *p = &s->law[c];
    if (p->release != CR_RELEASE_FORCE || p->C == 0.0) {
        g[CR_SM_R_FORCE] = -1.0; /* no release root: a constant never crosses */
    } else if (d <= CR_SM_ETA) {
        /* Open: the overlap itself, below the margin. A function that stays
         * exactly zero over an interval makes CVODE stop with CV_CLOSERT. */
        g[CR_SM_R_FORCE] = d - CR_SM_ETA;
    } else {
        g[CR_SM_R_FORCE] = cr_contact_release_function(p, s->L * d, s->V * (va - vb), s->L);
    }
}

/* Pair c's peak root while closed and awake, at the scaled overlap d and
 * rate g: the sign of ḟ while the contact pushes, otherwise (released, or
 * tensile near the end under `gap`) a constant below 0, as while open or
 * quiet: no crossing at a closing where the force only falls (the closing is
 * that peak), and no root returns at the force's minima while it pulls. */
static double peak_function(const cr_sim *s, size_t c, double d, double g, cr_sm_read_fn read,
                            const void *ctx)
{
    double delta = s->L * d, rate = s->V * g;
    if (!(cr_contact_raw_force(&s->law[c], delta, rate) > 0.0))
        return -1.0;
    double acc = s->V / s->T * cr_sm_pair_accel(s, c, read, ctx);
    return cr_contact_force_rate_function(&s->law[c], delta, rate, acc);
}

/* The root functions of root contact k (block k) into gk, at the scaled
 * overlap d and velocities va, vb of its pair; the peak root reads the
 * neighbours it needs through @p read (only while the contact is loaded). */
void cr_sm_block_values(const cr_sim *s, size_t k, double d, double va, double vb,
                        cr_sm_read_fn read, const void *ctx, double *gk)
{
    size_t c = s->root_contact[k];
    double g4[CR_SM_R_PER_CONTACT];
    if (s->quiet[c])
        memcpy(g4, s->frozen + 3 * c, 3 * sizeof(double));
    else
        live_roots(s, c, d, va, vb, g4);
    g4[CR_SM_R_WAKE] = cr_sm_wake_margin(s, c, d, va - vb);
    gk[0] = cr_root_nonzero(g4[CR_SM_R_CLOSE]);
    gk[1] = cr_root_nonzero(g4[CR_SM_R_RATE]);
    size_t next = 2; /* the optional roots' places, in the order of the R_ names */
    if (cr_sm_release_root(s, c))
        gk[next++] = cr_root_nonzero(g4[CR_SM_R_FORCE]);
    if (cr_sm_peak_root(s, c))
        gk[next++] = cr_root_nonzero(
            s->quiet[c] || d <= CR_SM_ETA ? -1.0 : peak_function(s, c, d, va - vb, read, ctx));
    gk[next] = cr_root_nonzero(g4[CR_SM_R_WAKE]);
}

/* Ball i has a swing-extreme root: a pendulum ball, free to move, in a run
 * that asks for them. */
int cr_sm_swing_ball(const cr_sim *s, size_t i)
{
    return s->swing_on && !s->fixed[i] && s->plength[i] > 0.0;
}

/* Ball i's swing function at the window state y: ṡ (scaled); where ṡ is 0
 * exactly (a release from rest) the sign ṡ takes next, that of s̈: a start
 * from rest is the given state, not a crossing to locate. */
static double swing_function(const cr_sim *s, size_t i, const double *y)
{
    double v = y[s->ybody[i] + 1];
    if (v == 0.0)
        v = body_accel(s, i, read_vector, y);
    return cr_root_nonzero(v);
}

/* The root functions of root block k at the window state y into gk: a
 * contact's, or a swing block's ṡ (scaled). */
void cr_sm_contact_block(const cr_sim *s, const double *y, size_t k, double *gk)
{
    size_t c = s->root_contact[k];
    if (k >= s->n_contact_roots) {
        gk[0] = swing_function(s, c, y);
        return;
    }
    cr_sm_block_values(s, k, y[s->yovl[c]], cr_sm_wvel(s, y, c), cr_sm_wvel(s, y, c + 1),
                       read_vector, y, gk);
}

/* Every root function of the window at the state y into g; with peak roots
 * the window pairs' forces first, once each (pforce: a tight loop over them
 * measured 4 % faster than computing each on demand). */
void cr_sm_roots_pass(cr_sim *s, const double *y, double *g)
{
    if (s->npeak) {
        for (size_t j = 0; j < s->nwc; j++)
            s->pforce[s->wcon[j]] = pair_force_now(s, s->wcon[j], read_vector, y);
        s->pforce_on = 1;
    }
    for (size_t k = 0; k < s->n_root_blocks; k++)
        cr_sm_contact_block(s, y, k, g + s->roff[k]);
    s->pforce_on = 0;
}

int cr_sm_roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *user)
{
    (void)t;
    cr_sm_roots_pass(user, N_VGetArrayPointer(yv), g);
    return 0;
}

static void live_roots_now(const cr_sim *s, size_t c, double *g)
{
    live_roots(s, c, cr_sm_ovl_now(s, c), cr_sm_vel_now(s, c), cr_sm_vel_now(s, c + 1), g);
}

double cr_sm_margin_now(const cr_sim *s, size_t c)
{
    return cr_sm_wake_margin(s, c, cr_sm_ovl_now(s, c),
                             cr_sm_vel_now(s, c) - cr_sm_vel_now(s, c + 1));
}

/* Pair c's functions change (it falls quiet or wakes up): the event location
 * evaluates them again at both ends of the rest of the step (sim-locate.c,
 * roots_resume). */
static void mark_redo(cr_sim *s, size_t c)
{
    if (!s->redo_mark[c]) {
        s->redo_mark[c] = 1;
        s->redo[s->nredo++] = c;
    }
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
void cr_sm_init_quiet(cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++)
        if (s->contact_on[c] && cr_sm_margin_now(s, c) < 0.0)
            freeze(s, c);
}

/* The wake threshold θ of each pair (cr_sm_wake_margin): CR_WAKE_FRACTION, or where
 * the tolerance cannot resolve that, the reach of a contact whose relative
 * speed is at the integration's noise. Velocities carry errors of about
 * rtol·V, so a contact's energy is known to ~ rtol², its reach to
 * rtol^(2/(n+1))·δ*: at rtol 1e-6 (Hertz) that is 1.6e-5 δ*, and a wake left
 * at 1e-6 δ* by the pulse never counted as quiet: the 1000-bead chain's window
 * trailed the pulse over 880 beads and took 9 s instead of 0.1 s. The force a
 * quiet contact can carry, θⁿ of the pulse's, stays at the tolerance's
 * order. wake_level holds (θ δ*)ⁿ⁺¹. */
void cr_sm_set_wake_levels(cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++) {
        double n = s->law[c].n;
        double theta = fmax(CR_WAKE_FRACTION, WAKE_NOISE * pow(s->rtol, 2.0 / (n + 1.0)));
        s->wake_level[c] = pow(theta * s->L, n + 1.0);
    }
}

int cr_sm_push_event(cr_sim *s, size_t c, cr_event_kind kind)
{
    if (cr_event_room(&s->events, s->nev, &s->evcap) != 0)
        return CR_ERR_NOMEM;
    cr_event *e = &s->events[s->nev++];
    e->t = s->t;
    e->contact = c;
    e->kind = kind;
    cr_sm_pair_now(s, c, &e->overlap, &e->rate);
    e->force = cr_sm_contact_force(s, c, e->overlap, e->rate);
    e->impulse = s->Pscale * cr_sm_impulse_now(s, c);
    s->stats.events++;
    return CR_OK;
}

/* The events a root crossing of pair c means (signs before: @p lo; root
 * functions now: @p now). Used for CVODE's own root returns and when a quiet
 * contact wakes up and its frozen signs meet the live ones. */
static int contact_events(cr_sim *s, size_t c, const double *lo, const double *now, int *restart)
{
    int close = (lo[CR_SM_R_CLOSE] < 0.0) != (now[CR_SM_R_CLOSE] < 0.0);
    int closing = close && now[CR_SM_R_CLOSE] > 0.0;
    int rc = CR_OK;
    if (close) {
        rc = cr_sm_push_event(s, c, closing ? CR_EVENT_CLOSE : CR_EVENT_OPEN);
        *restart |= cr_contact_force_jumps(&s->law[c], closing) || (closing && s->adams_field);
    }
    /* an open contact has no rate or force events; at a located crossing its
     * direction says which side the contact is on (ERKStep's state at the
     * root may show an overlap of 1e-17 on the old side) */
    if (rc != CR_OK || (close ? !closing : cr_sm_ovl_now(s, c) <= CR_SM_ETA))
        return rc;
    if ((lo[CR_SM_R_RATE] < 0.0) != (now[CR_SM_R_RATE] < 0.0))
        rc = cr_sm_push_event(
            s, c, now[CR_SM_R_RATE] < 0.0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION);
    /* the release root jumps from the overlap to the law at closing: that
     * crossing is the closing event, not a re-engagement */
    if (rc == CR_OK && !close && (lo[CR_SM_R_FORCE] < 0.0) != (now[CR_SM_R_FORCE] < 0.0))
        rc = cr_sm_push_event(
            s, c, now[CR_SM_R_FORCE] < 0.0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE);
    return rc;
}

/* Pair c wakes up and reports what its frozen roots hid (e.g. the closing of a
 * touching contact a wave reached). */
int cr_sm_wake_up(cr_sim *s, size_t c, int *restart)
{
    double now[3];
    live_roots_now(s, c, now);
    s->quiet[c] = 0;
    mark_redo(s, c);
    return contact_events(s, c, s->frozen + 3 * c, now, restart);
}

/* Pair c's wake margin crossed 0 in direction @p dir: it falls quiet, or
 * wakes up. The direction, not the margin's value now, decides: after
 * ERKStep's step to the root (cr_sm_step_again_to) the state is the
 * Runge-Kutta solution there, on which a margin of 1e-14 may still show its
 * old sign. A window starts from states CVODE did not locate, so a crossing
 * may repeat the state the contact is in: nothing to do then. */
static int wake_crossing(cr_sim *s, size_t c, int dir, int *restart)
{
    if (dir < 0) {
        if (!s->quiet[c])
            freeze(s, c);
        return CR_OK;
    }
    return s->quiet[c] ? cr_sm_wake_up(s, c, restart) : CR_OK;
}

/* A downward crossing of pair c's peak root: a force maximum while loaded.
 * At a closing or opening of the same instant the function jumps from or to
 * its constant: no peak (the closing's own force is the one where the force
 * only falls after closing). */
static int peak_event(cr_sim *s, size_t c)
{
    double delta, rate;
    cr_sm_pair_now(s, c, &delta, &rate);
    if (s->quiet[c] || cr_sm_ovl_now(s, c) <= CR_SM_ETA ||
        !(cr_sm_contact_force(s, c, delta, rate) > 0.0))
        return CR_OK;
    return cr_sm_push_event(s, c, CR_EVENT_MAX_FORCE);
}

/* Ball i's ṡ crossed 0: a turning point, unless the ball touches a
 * neighbour (or a wall) then: inside a collision ṡ passes 0 because of the
 * contact force, which is no swing extreme. */
static int swing_event(cr_sim *s, size_t i)
{
    if ((i > 0 && s->contact_on[i - 1] && cr_sm_ovl_now(s, i - 1) > CR_SM_ETA) ||
        (i < s->nc && s->contact_on[i] && cr_sm_ovl_now(s, i) > CR_SM_ETA))
        return CR_OK;
    if (cr_event_room(&s->events, s->nev, &s->evcap) != 0)
        return CR_ERR_NOMEM;
    cr_event *e = &s->events[s->nev++];
    *e = (cr_event){.t = s->t,
                    .contact = i,
                    .kind = CR_EVENT_SWING_EXTREME,
                    .overlap = s->x0[i] + s->L * cr_sm_dis_now(s, i) - s->pivot[i],
                    .rate = cr_sm_body_velocity(s, i)};
    s->stats.events++;
    return CR_OK;
}

/* The swing blocks' crossings (after the contacts'). */
static int swing_roots(cr_sim *s)
{
    int rc = CR_OK;
    for (size_t k = s->n_contact_roots; k < s->n_root_blocks && rc == CR_OK; k++)
        if (s->rootsfound[s->roff[k]])
            rc = swing_event(s, s->root_contact[k]);
    return rc;
}

int cr_sm_handle_roots(cr_sim *s, int *restart)
{
    /* the engine's own search (cr_sm_own_advance) left them in rootsfound */
    int flag = s->own_roots ? CV_SUCCESS : CVodeGetRootInfo(s->stepper, s->rootsfound);
    if (flag != CV_SUCCESS)
        return cr_sm_solver_fail(s, "CVodeGetRootInfo", flag);
    int rc = CR_OK;
    for (size_t k = 0; k < s->n_contact_roots && rc == CR_OK; k++) {
        size_t c = s->root_contact[k];
        const int *rk = s->rootsfound + s->roff[k];
        size_t nk = s->roff[k + 1] - s->roff[k], next = 2;
        int r[CR_SM_R_PER_CONTACT] = {rk[0], rk[1], 0, 0, rk[nk - 1]};
        if (cr_sm_release_root(s, c))
            r[CR_SM_R_FORCE] = rk[next++];
        if (cr_sm_peak_root(s, c))
            r[CR_SM_R_PEAK] = rk[next++];
        if (!s->quiet[c] && (r[CR_SM_R_CLOSE] || r[CR_SM_R_RATE] || r[CR_SM_R_FORCE])) {
            /* rootsfound gives the direction: the sign before is the opposite */
            double now[3], lo[3];
            live_roots_now(s, c, now);
            for (int q = 0; q < 3; q++) {
                lo[q] = r[q] ? -(double)r[q] : now[q];
                now[q] = r[q] ? (double)r[q] : now[q];
            }
            rc = contact_events(s, c, lo, now, restart);
        }
        if (r[CR_SM_R_PEAK] < 0 && !r[CR_SM_R_CLOSE] && rc == CR_OK)
            rc = peak_event(s, c);
        if (r[CR_SM_R_WAKE] && rc == CR_OK)
            rc = wake_crossing(s, c, r[CR_SM_R_WAKE], restart);
    }
    return rc == CR_OK ? swing_roots(s) : rc;
}
