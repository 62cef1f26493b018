/*
 * The chain engine's run loop: the plan of a run, the steps between outputs,
 * events and free-flight events, and the end rules.
 */
#include "engines/compliant/sim-priv.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engines/common/integrator.h"

/* Nothing can happen any more in a free chain: every contact settled. Outside
 * the window only the awake, approaching pairs are not (counted). */
/* Under drag (drag_state): a contact is loaded, some pair may still meet, or
 * nothing can happen any more. */
enum { CHAIN_BUSY, CHAIN_WAIT, CHAIN_REST };
static int drag_state(const cr_sim *s);

static int chain_at_rest(const cr_sim *s)
{
    if (s->has_fields)
        return drag_state(s) == CHAIN_REST;
    if (s->n_approach > 0)
        return 0;
    for (size_t j = 0; j < s->nwc; j++)
        if (!cr_sim_contact_settled(s, s->wcon[j]))
            return 0;
    return 1;
}

static int emit(cr_sim *s)
{
    s->stats.outputs++;
    return s->out_fn ? cr_listener_code(s->out_fn(s, s->out_user)) : CR_OK;
}

/* Under air drag alone (run_start refuses an automatic end under any other
 * field) a pair apart can still meet: a ball with less drag per mass catches
 * up with one ahead. Pair c, not loaded, never touches again by
 * cr_drag_pair_parts (a wall: at rest, no drag). */
static int pair_never_meets(const cr_sim *s, size_t c)
{
    double delta, rate;
    cr_sm_pair_now(s, c, &delta, &rate);
    return cr_drag_pair_parts(-delta, cr_sm_body_velocity(s, c), s->drag_kb[c], s->drag_kc[c],
                              cr_sm_body_velocity(s, c + 1), s->drag_kb[c + 1], s->drag_kc[c + 1]);
}

/* Under drag: a contact is loaded (busy), none is but some pair may still
 * meet (wait: check again later, or its closing comes first), or nothing
 * can happen any more (rest). */
static int drag_state(const cr_sim *s)
{
    int wait = 0;
    for (size_t c = 0; c < s->nc; c++) {
        if (!s->contact_on[c])
            continue;
        if (!s->quiet[c] && cr_sim_contact_loaded(s, c))
            return CHAIN_BUSY;
        wait |= !pair_never_meets(s, c);
    }
    return wait ? CHAIN_WAIT : CHAIN_REST;
}

/* When a waiting chain is checked again: the pair's reach shrinks as the
 * balls slow down; a tenth of the time run so far bounds the overshoot of
 * the end to 10 % at a few dozen checks per decade of time. */
static double drag_recheck(const cr_sim *s)
{
    return s->t + fmax(1e3 * s->T, 0.1 * s->t);
}

static double safety_cap(const cr_sim *s)
{
    double gap = 0.0;
    for (size_t c = 0; c < s->nc; c++)
        gap = fmax(gap, -s->delta0[c]);
    double cap = 2.0 * gap / s->V + 1e6 * s->T + s->settle;
    /* under drag: 50 relaxation times m/b of the least damped ball (its speed
     * down by e⁻⁵⁰), or with quadratic drag alone the time to cross twice the
     * largest gap from the speed V (exponent capped at 50) */
    for (size_t i = 0; i < s->nb && s->has_fields; i++) {
        double kb = s->drag_kb[i], kc = s->drag_kc[i];
        if (kb > 0.0)
            cap = fmax(cap, 2.0 * gap / s->V + 50.0 / kb + 1e6 * s->T);
        else if (kc > 0.0)
            cap = fmax(cap, expm1(fmin(2.0 * kc * gap, 50.0)) / (kc * s->V) + 1e6 * s->T);
    }
    return cap;
}

/* When the run stops next and what it writes. */
typedef struct {
    int automatic;  /* t_end ≤ 0: ends by the rule */
    cr_sampling sm; /* the sampling (engine-common.h); sm.dt is the grid */
    int coarsened;  /* an explicit interval's row budget was reached: dt widened */
    double t_stop, dt, next, pending;
    long rows;
} run_plan;

/* The sampling (cr_sampling_plan, docs/model-format.md "Output"): the
 * default rule's rows per contact time while a contact is loaded and its
 * coarse interval in free flight (links ring while no contact is loaded: a
 * chain with links counts as loaded), output.every's k-th steps, or none. An
 * explicit interval is honoured, up to CR_MAX_OUTPUT_ROWS over a given end
 * time. */
static int plan_run(cr_sim *s, double t_end, run_plan *p)
{
    p->automatic = t_end <= 0.0;
    p->t_stop = p->automatic ? safety_cap(s) : t_end;
    p->sm = cr_sampling_plan(s->out_interval, s->out_every, s->out_none, s->free_dt, s->T, t_end,
                             s->out_max_rows);
    p->dt = p->sm.dt;
    p->coarsened = 0;
    p->next = p->dt;
    p->pending = INFINITY;
    p->rows = 1;
    return cr_output_interval_check(s->out_interval, s->out_where, s->T, t_end, s->err,
                                    sizeof s->err);
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

/* Somebody reads the rows (a run without output listeners, a calibration's
 * two-body run, returns at its events and on the contact grid only: its steps
 * stay those it always had). */
static int rows_wanted(const cr_sim *s)
{
    return s->out_fn && (!s->out_wanted || s->out_wanted(s->out_user));
}

static double next_stop(const cr_sim *s, const run_plan *p)
{
    if (p->sm.rule == CR_SAMPLE_AUTO && s->settle == 0.0 && !contacts_busy(s)) {
        /* in free flight the default rule writes every free_every-th grid point */
        if (rows_wanted(s))
            return fmin(fmin(cr_sampling_next_free(&p->sm, s->t), p->t_stop), p->pending);
        if (!s->has_fields) /* nothing to write: the next event or the end */
            return fmin(p->t_stop, p->pending);
    }
    return fmin(fmin(p->next, p->t_stop), p->pending);
}

/* The automatic end under drag: at rest it ends now; waiting, it checks again
 * at drag_recheck unless an event comes first; busy, the events will say. */
static int drag_end_check(cr_sim *s, run_plan *p, int *done)
{
    int state = drag_state(s);
    if (state == CHAIN_REST) {
        snprintf(s->end_reason, sizeof s->end_reason,
                 "all contacts open and no pair can meet again under drag");
        *done = 1;
        return emit(s);
    }
    p->pending = state == CHAIN_WAIT ? drag_recheck(s) : INFINITY;
    return CR_OK;
}

/* After the events of an instant: the listener, then the automatic end (at
 * rest, held for the settling time when links ring). */
static int after_events(cr_sim *s, run_plan *p, size_t first, int *done)
{
    int rc;
    if (s->ev_fn && s->nev > first &&
        (rc = cr_listener_code(s->ev_fn(s, first, s->ev_user))) != CR_OK)
        return rc;
    skip_past(p, s->t); /* free flight skipped outputs: resume after now */
    if (!p->automatic)
        return CR_OK;
    if (s->has_fields)
        return drag_end_check(s, p, done);
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
    int rc = cr_sm_handle_roots(s, &restart);
    if (rc == CR_OK)
        rc = cr_sm_update_region(s, restart, 0, 0);
    return rc == CR_OK ? after_events(s, p, first, done) : rc;
}

/* The free-flight events due now: closings of awake outside contacts (located
 * exactly at the event margin), quiet outside contacts that touch (cr_sm_lock_pair)
 * or wake up. */
static int after_outside(cr_sim *s, run_plan *p, int *done)
{
    size_t first = s->nev, nextra = 0;
    int restart = 0, bump = 0, rc = CR_OK;
    while (rc == CR_OK && cr_sm_heap_top(s) <= s->tau) {
        size_t c = s->heap[0].c;
        cr_sm_heap_pop(s);
        s->stamp[c]++;
        cr_sm_uncount(s, c);
        int quiet_touch = s->quiet[c] && cr_sm_margin_now(s, c) < 0.0;
        if (quiet_touch && cr_sm_energy_speed(s, c) < s->region_speed) {
            rc = cr_sm_lock_pair(s, c, &bump);
            continue;
        }
        if (quiet_touch) {
            /* it binds at the margin (cr_sm_binds): into the window, no event */
            double d = cr_sm_ovl_now(s, c);
            s->ref_o[c] = d < CR_SM_ETA ? CR_SM_ETA : d;
            s->ref_tc[c] = s->tau;
        } else if (s->quiet[c]) {
            rc = cr_sm_wake_up(s, c, &restart);
        } else {
            /* at the margin, not an ulp below it: the closing root's sign */
            double d = cr_sm_ovl_now(s, c);
            s->ref_o[c] = d < CR_SM_ETA ? CR_SM_ETA : d;
            s->ref_tc[c] = s->tau;
            rc = cr_sm_push_event(s, c, CR_EVENT_CLOSE);
            restart |= cr_contact_force_jumps(&s->law[c], 1);
        }
        if (rc == CR_OK && cr_sm_binds(s, c))
            s->bind[nextra++] = c;
        else if (rc == CR_OK)
            rc = cr_sm_predict(s, c);
    }
    if (rc == CR_OK)
        rc = cr_sm_update_region(s, restart, bump, nextra);
    return rc == CR_OK ? after_events(s, p, first, done) : rc;
}

/* A return at an output time, the end time or the settling deadline. */
static int after_output(cr_sim *s, run_plan *p, int flag, double tout, int *done)
{
    /* s->t can fall an ulp short of the time it was asked for (skip_past) */
    int due = s->t * (1.0 + 1e-12) >= p->pending;
    if (due && s->has_fields)
        return drag_end_check(s, p, done);
    if (due) {
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
    if (p->sm.rule == CR_SAMPLE_AUTO && rows_wanted(s)) {
        cr_sampling_count(&p->sm); /* at the cap: tenfold wider */
        p->dt = p->sm.dt;
        s->stats.output_widenings = p->sm.widenings;
    } else if (++p->rows >= CR_MAX_OUTPUT_ROWS && !p->coarsened) {
        /* keep going, writing ten times less: the file stays bounded */
        p->dt *= 10.0;
        p->coarsened = 1;
    }
    skip_past(p, s->t);
    return s->stop_requested ? CR_ERR_INTERRUPTED : CR_OK;
}

/* The only field is air drag and no link joins two balls: each ball's free
 * flight is its own, and drag_state decides the end. */
static int drag_alone(const cr_sim *s)
{
    if (s->gravity != 0.0)
        return 0;
    for (size_t i = 0; i < s->nb; i++)
        if (s->plength[i] > 0.0)
            return 0;
    for (size_t c = 0; c < s->nc; c++)
        if (s->has_link[c])
            return 0;
    return 1;
}

/* Checks the arguments, plans the run and sets the engine up at t = 0. */
static int run_start(cr_sim *s, double t_end, run_plan *plan)
{
    CR_CHECK(s && isfinite(t_end), s ? s->err : NULL, CR_ERR_INVALID);
    CR_CHECK(!s->ran, s->err, CR_ERR_INVALID);
    if (t_end <= 0.0 && s->has_fields && !drag_alone(s)) {
        cr_set_msg(s->err, sizeof s->err,
                   "an automatic end needs a free chain, or air drag alone without links: with "
                   "gravity, pendulums or links give an end time");
        return CR_ERR_INVALID;
    }
    s->ran = 1;
    s->err[0] = '\0';
    int rc = plan_run(s, t_end, plan);
    if (rc != CR_OK)
        return rc;
    s->tau_stop = plan->t_stop / s->T;
    if ((rc = cr_sm_setup(s)) != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(s->err, sizeof s->err, "out of memory setting up CVODES");
        return rc;
    }
    return CR_OK;
}

/* Integrates the window to @p target (scaled), or to its first root or stop
 * time before; without a window, or already there, time jumps to the target.
 * @p flag: CVODE's return (CV_SUCCESS when nothing was integrated). */
static int advance(cr_sim *s, double target, int *flag)
{
    *flag = CV_SUCCESS;
    if (target > s->tau * (1.0 + 4.0 * DBL_EPSILON) && s->stepper) {
        sunrealtype tret;
        *flag = s->own_roots ? cr_sm_own_advance(s, target, &tret)
                             : CVode(s->stepper, target, s->y, &tret, CV_NORMAL);
        s->tau = tret;
        s->t = tret * s->T;
        if (*flag < 0)
            return cr_sm_solver_fail(s, s->erk ? "ERKStepEvolve" : "CVode", *flag);
        if (!s->qstate && !s->own_roots)
            CVodeGetQuad(s->stepper, &tret, s->yQ);
    } else if (target > s->tau) {
        s->tau = target;
        s->t = target * s->T;
    }
    return CR_OK;
}

/* The end of a run stopped by a request or by a listener's failure. */
static int run_stopped(cr_sim *s, int rc)
{
    return cr_run_stopped(rc, s->t, s->end_reason, sizeof s->end_reason, s->err, sizeof s->err);
}

int cr_sim_run(cr_sim *s, double t_end)
{
    run_plan plan;
    int rc = run_start(s, t_end, &plan);
    if (rc != CR_OK)
        return rc;
    s->t = 0.0;
    if ((rc = emit(s)) != CR_OK)
        return run_stopped(s, rc);
    if (plan.automatic && s->has_fields) {
        int state = drag_state(s);
        if (state == CHAIN_REST) {
            snprintf(s->end_reason, sizeof s->end_reason,
                     "all contacts open and no pair can meet again under drag");
            return CR_OK;
        }
        plan.pending = state == CHAIN_WAIT ? drag_recheck(s) : INFINITY;
    } else if (plan.automatic && chain_at_rest(s)) {
        snprintf(s->end_reason, sizeof s->end_reason, "all contacts open and separating");
        return CR_OK;
    }
    for (int done = 0; !done;) {
        /* a stop request is honoured at once, between any two returns */
        if (s->stop_requested) {
            rc = emit(s);
            return run_stopped(s, rc == CR_OK ? CR_ERR_INTERRUPTED : rc);
        }
        double tout = next_stop(s, &plan);
        /* the window runs to the next output or free-flight event, whichever
         * comes first; without a window, time jumps there */
        double target = tout / s->T, th = cr_sm_heap_top(s);
        int outside = th <= target;
        if (outside)
            target = th;
        int flag;
        if ((rc = advance(s, target, &flag)) != CR_OK)
            return rc;
        if (s->every_hit) {
            s->every_hit = 0;
            if (flag == CV_SUCCESS && s->t < tout) { /* output.every: a k-th step */
                if ((rc = emit(s)) != CR_OK)
                    return run_stopped(s, rc);
                continue;
            }
        }
        if (s->stop_requested && flag != CV_ROOT_RETURN)
            continue; /* returned short of the target: stop there (above) */
        if (flag == CV_ROOT_RETURN || (outside && flag != CV_TSTOP_RETURN)) {
            rc = flag == CV_ROOT_RETURN ? after_roots(s, &plan, &done)
                                        : after_outside(s, &plan, &done);
            if (rc == CR_ERR_SOLVER || rc == CR_ERR_NOMEM)
                return rc;
        } else {
            rc = after_output(s, &plan, flag, tout, &done);
        }
        if (rc != CR_OK)
            return run_stopped(s, rc);
    }
    if (plan.coarsened || plan.sm.widenings)
        snprintf(s->end_reason + strlen(s->end_reason),
                 sizeof s->end_reason - strlen(s->end_reason),
                 " (output interval widened to %.3g s after %ld rows)", plan.dt,
                 plan.coarsened ? (long)CR_MAX_OUTPUT_ROWS : plan.sm.widenings * plan.sm.cap_step);
    return CR_OK;
}
