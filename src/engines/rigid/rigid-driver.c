/*
 * The rigid engines' common driver: the event-driven run, the event list and
 * the getters of the common state, for chains (rigid.c) and pools
 * (rigid-pool.c) alike (rigid-driver-priv.h). The geometry's callbacks do the
 * physics; this file only decides when to call them, when to give cr_system a
 * row and when the run ends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/rigid/rigid-driver-priv.h"

/* More impacts than this in one run end it (a ball between two walls with
 * e = 1 never comes to rest). */
#define MAX_IMPACTS 10000000L
/* Returns from the flight in a row without time moving on before the run
 * stops as stuck. */
#define MAX_RETURNS_AT_ONCE 10000

void cr_rigid_driver_init(cr_rigid_driver *d, cr_system *sys, const cr_rigid_geometry *geom)
{
    d->sys = sys;
    d->geom = geom;
    snprintf(d->end_reason, sizeof d->end_reason, "not run");
}

void cr_rigid_driver_set_scales(cr_rigid_driver *d, double L, double V)
{
    d->L = L;
    d->V = V;
    d->T = L / V;
    d->v_rest = CR_RIGID_REST_FRACTION * V;
}

void cr_rigid_driver_set_bodies(cr_rigid_driver *d, int dim, const double *mass,
                                const double *radius, const int *fixed, const double *v)
{
    d->dim = dim;
    d->mass = mass;
    d->radius = radius;
    d->fixed = fixed;
    d->v = v;
}

void cr_rigid_driver_free(cr_rigid_driver *d)
{
    free(d->ev);
}

cr_event *cr_rigid_driver_event(cr_rigid_driver *d)
{
    if (cr_event_room(&d->ev, d->nev, &d->evcap) != 0) {
        cr_set_msg(d->err, sizeof d->err, "out of memory at t = %.9g s", d->t);
        return NULL;
    }
    d->stats.events++;
    cr_event *e = &d->ev[d->nev++];
    e->t = d->t;
    return e;
}

static int emit(cr_rigid_driver *d)
{
    d->stats.outputs++;
    return cr_listener_code(cr_system_emit_output(d->sys));
}

/* ---- the run -------------------------------------------------------------- */

typedef struct {
    int automatic, sparse;
    double t_stop, dt, next;
    double recheck; /* under drag: when the automatic end is checked again */
    long impacts;
    int stuck;
} plan;

static int plan_run(cr_rigid_driver *d, double t_end, plan *p)
{
    p->automatic = t_end <= 0.0;
    p->t_stop = p->automatic ? INFINITY : t_end;
    if (p->automatic && d->fields) /* drag alone (cr_rigid_driver_run) */
        p->t_stop = d->geom->drag_cap(d);
    p->recheck = INFINITY;
    if (d->out_every > 0) {
        cr_set_msg(d->err, sizeof d->err,
                   "output.every: a rigid run has no integrator steps to count; give "
                   "output.interval");
        return CR_ERR_INVALID;
    }
    d->t_stop = p->t_stop;
    p->dt = d->out_interval > 0.0 ? d->out_interval : (p->automatic ? INFINITY : t_end / 1000.0);
    if (d->out_none)
        p->dt = INFINITY;
    /* free flight without a field is a straight line: rows at the impacts only */
    p->sparse = d->out_interval <= 0.0 && !d->fields;
    p->next = p->dt;
    p->impacts = 0;
    p->stuck = 0;
    return cr_output_interval_check(d->out_interval, d->out_where, d->T, t_end, d->err,
                                    sizeof d->err);
}

static int end_run(cr_rigid_driver *d, const char *why, int *done)
{
    snprintf(d->end_reason, sizeof d->end_reason, "%s", why);
    *done = 1;
    return emit(d);
}

/* Impacts and persistent contacts at this instant, then the end rules. */
static int at_instant(cr_rigid_driver *d, plan *p, int *done)
{
    const cr_rigid_geometry *g = d->geom;
    size_t n = 0;
    int rc = g->resolve(d, &n);
    if (rc == CR_OK)
        rc = g->settle(d);
    if (rc != CR_OK)
        return rc;
    p->impacts += (long)n;
    if (p->impacts >= MAX_IMPACTS)
        return end_run(d, "safety cap reached (10^7 impacts)", done);
    if (p->automatic && d->fields) {
        /* under drag a pair apart can still meet: check again at
         * t + max(10³ T, t/10) unless a closing comes first (the compliant
         * chain's rule, docs/model-format.md "Integration") */
        if (g->drag_parted(d))
            return end_run(d, "all contacts open and no pair can meet again under drag", done);
        p->recheck = d->t + fmax(1e3 * d->T, 0.1 * d->t);
    } else if (p->automatic && g->nothing_approaches && g->nothing_approaches(d)) {
        return end_run(d, "all contacts open and separating", done);
    }
    return n > 0 && p->sparse ? emit(d) : CR_OK;
}

/* Flight to the next output or the end; an early stop is a closing (or a
 * release) at a new instant. Without a field and an automatic end, a flight
 * that meets nothing ever ends the run. */
static int flight(cr_rigid_driver *d, plan *p, int *done)
{
    double t0 = d->t, target = fmin(fmin(p->next, p->t_stop), p->recheck);
    int hit = 0, rc = d->geom->fly(d, target, &hit);
    if (rc != CR_OK)
        return rc;
    p->stuck = d->t > t0 ? 0 : p->stuck + 1;
    if (p->stuck > MAX_RETURNS_AT_ONCE) {
        cr_set_msg(d->err, sizeof d->err, "t = %.9g s: %d returns without time moving on", d->t,
                   MAX_RETURNS_AT_ONCE);
        return CR_ERR_SOLVER;
    }
    if (hit)
        return CR_OK;
    if (isinf(target))
        return end_run(d, "all contacts open and separating", done);
    if (target >= p->t_stop)
        return end_run(
            d, p->automatic ? "safety cap reached before the chain came apart" : "end time reached",
            done);
    if (target < p->next && target < p->t_stop)
        return CR_OK; /* a recheck under drag, not a row: at_instant checks */
    while (p->next <= d->t * (1.0 + 1e-12))
        p->next += p->dt;
    return emit(d);
}

int cr_rigid_driver_fly_exact(void *e, double t_target, int *hit)
{
    cr_rigid_driver *d = e;
    double horizon = t_target - d->t, s = d->geom->next_closing(e, horizon);
    *hit = isfinite(s) && s <= horizon;
    if (*hit) {
        d->geom->advance(e, s);
        d->t += s;
    } else if (isfinite(horizon)) {
        d->geom->advance(e, horizon);
        d->t = t_target;
    }
    d->stats.steps++;
    return CR_OK;
}

static int fail_text(cr_rigid_driver *d, int rc)
{
    /* a solver, a memory or a parameter provider's failure (a table that does
     * not hold the impact) has its own text in d->err already */
    if (rc != CR_ERR_SOLVER && rc != CR_ERR_NOMEM && rc != CR_ERR_DOMAIN && rc != CR_ERR_MODEL) {
        cr_run_stopped(rc, d->t, d->end_reason, sizeof d->end_reason, d->err, sizeof d->err);
    } else {
        snprintf(d->end_reason, sizeof d->end_reason, "failed");
    }
    return rc;
}

int cr_rigid_driver_run(void *e, double t_end)
{
    cr_rigid_driver *d = e;
    CR_CHECK(!d->ran, d->err, CR_ERR_INVALID);
    if (t_end <= 0.0 && d->fields && !(d->geom->drag_cap && d->geom->drag_cap(d) > 0.0)) {
        cr_set_msg(d->err, sizeof d->err, "%s", d->geom->auto_end_refusal);
        return CR_ERR_INVALID;
    }
    d->ran = 1;
    plan p;
    int rc = plan_run(d, t_end, &p);
    if (rc != CR_OK)
        return rc;
    d->t = 0.0;
    if (d->geom->start)
        rc = d->geom->start(d);
    if (rc == CR_OK)
        rc = emit(d);
    for (int done = 0; rc == CR_OK && !done;) {
        if (d->stop) {
            rc = emit(d);
            rc = rc == CR_OK ? CR_ERR_INTERRUPTED : rc;
            break;
        }
        rc = at_instant(d, &p, &done);
        if (rc == CR_OK && !done)
            rc = flight(d, &p, &done);
    }
    return rc == CR_OK ? CR_OK : fail_text(d, rc);
}

/* ---- getters of the common state ------------------------------------------- */

#define DRV(e) ((const cr_rigid_driver *)(e))

void cr_rigid_driver_stop(void *e)
{
    ((cr_rigid_driver *)e)->stop = 1;
}

const char *cr_rigid_driver_error(const void *e)
{
    return DRV(e)->err;
}

const char *cr_rigid_driver_reason(const void *e)
{
    return DRV(e)->end_reason;
}

size_t cr_rigid_driver_body_count(const void *e)
{
    return DRV(e)->nb;
}

int cr_rigid_driver_is_fixed(const void *e, size_t i)
{
    return DRV(e)->fixed ? DRV(e)->fixed[i] : 0;
}

void cr_rigid_driver_masses(const void *e, double *m)
{
    const cr_rigid_driver *d = e;
    for (size_t i = 0; i < d->nb; i++)
        m[i] = d->fixed && d->fixed[i] ? INFINITY : d->mass[i];
}

void cr_rigid_driver_radii(const void *e, double *rad)
{
    memcpy(rad, DRV(e)->radius, DRV(e)->nb * sizeof(double));
}

void cr_rigid_driver_velocities(const void *e, double *v)
{
    memcpy(v, DRV(e)->v, (size_t)DRV(e)->dim * DRV(e)->nb * sizeof(double));
}

double cr_rigid_driver_time(const void *e)
{
    return DRV(e)->t;
}

size_t cr_rigid_driver_event_count(const void *e)
{
    return DRV(e)->nev;
}

const cr_event *cr_rigid_driver_events(const void *e)
{
    return DRV(e)->ev;
}

double cr_rigid_driver_dissipated(const void *e)
{
    return DRV(e)->dissipated;
}

/* The settling time is the links' (system.h): rigid runs have none. */
double cr_rigid_driver_settle_time(const void *e)
{
    (void)e;
    return 0.0;
}

cr_run_stats cr_rigid_driver_stats(const void *e)
{
    return DRV(e)->stats;
}

void cr_rigid_driver_scales(const void *e, double *length, double *speed, double *time)
{
    if (length)
        *length = DRV(e)->L;
    if (speed)
        *speed = DRV(e)->V;
    if (time)
        *time = DRV(e)->T;
}

void *cr_rigid_driver_create_plain(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    (void)model, (void)sys;
    cr_set_msg(msg, msglen, "the rigid engine needs a law: cr_system_create_rigid");
    return NULL;
}
