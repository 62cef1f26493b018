/*
 * Observables of a finished run (cradle/fit.h, docs/fit.md "Observables"):
 * everything comes from the monitor's collisions and episodes and the
 * system's located events. A row names a body or contact and a time; its
 * collision or episode is the one of that body or contact nearest the time,
 * within half the spacing of that body's collisions (the window
 * cr_compare_runs pairs two runs' collisions with, src/compare/compare-runs.c,
 * taken per body): never the k-th collision, whose number shifts when a
 * parameter splits or merges collisions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit-priv.h"

static double start_of(const cr_monitor *mon, size_t k)
{
    cr_collision_info c;
    return cr_monitor_get_collision(mon, k, &c) == CR_OK ? c.t_start : NAN;
}

/* Half the shortest time between the starts of @p n intervals (the
 * collisions of one body, the episodes of one contact): a time nearer one of
 * them than that is nearer to it than to any other of the same body (the
 * window cr_compare_runs pairs two runs' collisions with, taken per body).
 * The whole run when there is one. */
static double half_spacing(const double *start, size_t n, double run)
{
    double w = run;
    for (size_t i = 1; i < n; i++)
        w = fmin(w, 0.5 * (start[i] - start[i - 1]));
    return w;
}

/* Distance from @p t to the interval [a, b]. */
static double distance(double t, double a, double b)
{
    return t < a ? a - t : t > b ? t - b : 0.0;
}

/* The collision holding moving @p body (any collision when body < 0) nearest
 * @p t, within half the spacing of those collisions; −1 when none is. */
static long nearest_collision(const cr_system *sys, const cr_monitor *mon, long body, double t)
{
    size_t nc = cr_monitor_collision_count(mon), m = 0;
    double *start = malloc((nc + 1) * sizeof(double)), best = INFINITY;
    long pick = -1;
    for (size_t k = 0; start && k < nc; k++) {
        cr_collision_info c;
        if (cr_monitor_get_collision(mon, k, &c) != CR_OK ||
            (body >= 0 && !cr_monitor_collision_moves(mon, k, (size_t)body)))
            continue;
        start[m++] = c.t_start;
        double d = distance(t, c.t_start, c.t_end);
        if (d < best) {
            best = d;
            pick = (long)k;
        }
    }
    if (!start || !(best <= half_spacing(start, m, cr_system_get_time(sys))))
        pick = -1;
    free(start);
    return pick;
}

static int no_collision(char *why, size_t whylen, const char *what, double t)
{
    cr_set_msg(why, whylen, "%s: no collision within the pairing window of t = %g s in the run",
               what, t);
    return CR_ERR_MODEL;
}

static int velocity_after(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *o,
                          double *value, char *why, size_t whylen)
{
    char what[64];
    snprintf(what, sizeof what, "body %ld", o->index);
    if (cr_system_dimension(sys) != 1) {
        cr_set_msg(why, whylen, "velocity_after: chains only (dim 1) so far");
        return CR_ERR_MODEL;
    }
    long k = nearest_collision(sys, mon, o->index, o->time);
    if (k < 0)
        return no_collision(why, whylen, what, o->time);
    size_t nb = 0, nv = 0;
    const size_t *bodies = cr_monitor_collision_bodies(mon, (size_t)k, &nb);
    const double *v = cr_monitor_collision_velocities(mon, (size_t)k, 1, &nv);
    for (size_t i = 0; bodies && v && i < nb; i++)
        if (bodies[i] == (size_t)o->index) {
            *value = v[i];
            return CR_OK;
        }
    return no_collision(why, whylen, what, o->time);
}

/* The episode holding contact @p c nearest @p t, within half the spacing of
 * that contact's episodes; −1 when none is. */
static long nearest_episode(const cr_system *sys, const cr_monitor *mon, size_t c, double t)
{
    size_t ne = cr_monitor_episode_count(mon), m = 0;
    double *start = malloc((ne + 1) * sizeof(double)), best = INFINITY;
    long pick = -1;
    for (size_t k = 0; start && k < ne; k++) {
        cr_episode_info e;
        size_t n = 0;
        if (cr_monitor_get_episode(mon, k, &e) != CR_OK)
            continue;
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &n);
        int holds = 0;
        for (size_t q = 0; r && q < n; q++)
            holds |= r[q].contact == c;
        if (!holds)
            continue;
        start[m++] = e.t_start;
        double d = distance(t, e.t_start, e.t_end);
        if (d < best) {
            best = d;
            pick = (long)k;
        }
    }
    if (!start || !(best <= half_spacing(start, m, cr_system_get_time(sys))))
        pick = -1;
    free(start);
    return pick;
}

/* From the contact's first closing in episode k (its start when the contact
 * was touching) to its last opening before it closes again after the
 * episode: under `release: force` the surfaces part after the episode has
 * ended at the force's release, and the duration a circuit measures runs to
 * the geometric opening. */
static int contact_duration(const cr_system *sys, const cr_monitor *mon,
                            const cr_fit_observation *o, double *value, char *why, size_t whylen)
{
    size_t c = (size_t)o->index;
    if (c >= cr_system_contact_count(sys)) {
        cr_set_msg(why, whylen, "the model has %zu contacts (0 to %zu)",
                   cr_system_contact_count(sys), cr_system_contact_count(sys) - 1);
        return CR_ERR_MODEL;
    }
    long k = nearest_episode(sys, mon, c, o->time);
    char what[64];
    snprintf(what, sizeof what, "contact %zu", c);
    cr_episode_info info;
    if (k < 0 || cr_monitor_get_episode(mon, (size_t)k, &info) != CR_OK) {
        cr_set_msg(why, whylen, "%s: no episode within the pairing window of t = %g s", what,
                   o->time);
        return CR_ERR_MODEL;
    }
    const cr_event *ev = cr_system_events(sys);
    size_t ne = cr_system_event_count(sys);
    double t_close = info.t_start, t_open = NAN;
    int closed = 0;
    for (size_t i = 0; ev && i < ne; i++) {
        if (ev[i].contact != c || ev[i].t < info.t_start)
            continue;
        if (ev[i].kind == CR_EVENT_CLOSE && ev[i].t > info.t_end)
            break;
        if (ev[i].kind == CR_EVENT_CLOSE && !closed && ev[i].t <= info.t_end) {
            t_close = ev[i].t;
            closed = 1;
        }
        if (ev[i].kind == CR_EVENT_OPEN)
            t_open = ev[i].t;
    }
    if (isnan(t_open)) {
        cr_set_msg(why, whylen, "%s does not open after its episode at t = %g s", what,
                   info.t_start);
        return CR_ERR_MODEL;
    }
    *value = t_open - t_close;
    return CR_OK;
}

/* The located force maximum of contact c in its episode nearest the time:
 * the record's peak_force, located by the compliant engines (the maximum
 * compression, or a root of df/dt = 0 under damping; docs/hdf5-layout.md,
 * "Located peaks"); the rigid engines only sample, and are refused. */
static int peak_force(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *o,
                      double *value, char *why, size_t whylen)
{
    size_t c = (size_t)o->index;
    if (c >= cr_system_contact_count(sys)) {
        cr_set_msg(why, whylen, "the model has %zu contacts (0 to %zu)",
                   cr_system_contact_count(sys), cr_system_contact_count(sys) - 1);
        return CR_ERR_MODEL;
    }
    if (!cr_system_locates_force_peaks(sys)) {
        cr_set_msg(why, whylen, "peak_force: this engine samples forces, it locates no peaks");
        return CR_ERR_MODEL;
    }
    long k = nearest_episode(sys, mon, c, o->time);
    size_t n = 0;
    const cr_contact_record *r = k >= 0 ? cr_monitor_contacts(mon, (size_t)k, &n) : NULL;
    for (size_t q = 0; r && q < n; q++)
        if (r[q].contact == c && isfinite(r[q].peak_force)) {
            *value = r[q].peak_force;
            return CR_OK;
        }
    cr_set_msg(why, whylen, "contact %zu: no loaded episode within the pairing window of t = %g s",
               c, o->time);
    return CR_ERR_MODEL;
}

/* −v_cm⁺/v_cm⁻ over the collision's moving bodies (as the sweep's e_cm
 * column; planar: components along v_cm⁻). */
static int e_cm(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *o,
                double *value, char *why, size_t whylen)
{
    long k = nearest_collision(sys, mon, -1, o->time);
    if (k < 0)
        return no_collision(why, whylen, "e_cm", o->time);
    size_t nb = 0, nv = 0, na = 0, n = cr_system_body_count(sys);
    int dim = cr_system_dimension(sys);
    const size_t *body = cr_monitor_collision_bodies(mon, (size_t)k, &nb);
    const double *ub = cr_monitor_collision_velocities(mon, (size_t)k, 0, &nv);
    const double *ua = cr_monitor_collision_velocities(mon, (size_t)k, 1, &na);
    double *mass = malloc((n + 1) * sizeof(double));
    if (!mass) {
        cr_set_msg(why, whylen, "e_cm: out of memory");
        return CR_ERR_NOMEM;
    }
    if (!body || !ub || !ua || nv != nb || na != nb) { /* as the sweep's e_cm column checks */
        free(mass);
        cr_set_msg(why, whylen, "e_cm: the collision at t = %g s has no velocities", o->time);
        return CR_ERR_MODEL;
    }
    cr_system_get_masses(sys, mass);
    double M = 0, pb[3] = {0, 0, 0}, pa[3] = {0, 0, 0};
    for (size_t i = 0; i < nb; i++) {
        if (!isfinite(mass[body[i]]))
            continue;
        M += mass[body[i]];
        for (int d = 0; d < dim && d < 3; d++) {
            pb[d] += mass[body[i]] * ub[i * (size_t)dim + (size_t)d];
            pa[d] += mass[body[i]] * ua[i * (size_t)dim + (size_t)d];
        }
    }
    free(mass);
    double len2 = pb[0] * pb[0] + pb[1] * pb[1] + pb[2] * pb[2];
    if (!(M > 0) || !(len2 > 0)) {
        cr_set_msg(why, whylen, "e_cm: the collision at t = %g s has no centre-of-mass motion",
                   o->time);
        return CR_ERR_MODEL;
    }
    *value = -(pa[0] * pb[0] + pa[1] * pb[1] + pa[2] * pb[2]) / len2;
    return CR_OK;
}

/* From the first to the last opening between the collision's start and the
 * next collision's (or of the whole run). */
static int opening_span(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *o,
                        double *value, char *why, size_t whylen)
{
    double from = 0, to = INFINITY;
    if (!isnan(o->time)) {
        long k = nearest_collision(sys, mon, -1, o->time);
        if (k < 0)
            return no_collision(why, whylen, "opening_span", o->time);
        from = start_of(mon, (size_t)k);
        if ((size_t)k + 1 < cr_monitor_collision_count(mon))
            to = start_of(mon, (size_t)k + 1);
    }
    const cr_event *ev = cr_system_events(sys);
    size_t ne = cr_system_event_count(sys);
    double first = NAN, last = NAN;
    for (size_t i = 0; ev && i < ne; i++)
        if (ev[i].kind == CR_EVENT_OPEN && ev[i].t >= from && ev[i].t < to) {
            if (isnan(first))
                first = ev[i].t;
            last = ev[i].t;
        }
    if (isnan(first)) {
        cr_set_msg(why, whylen, "opening_span: no contact opens %s",
                   isnan(o->time) ? "in the run" : "after that collision");
        return CR_ERR_MODEL;
    }
    *value = last - first;
    return CR_OK;
}

/* The located turning point of ball o->index nearest the time, within half
 * the spacing of that ball's extremes (as collisions are paired): its arc s
 * (the event's overlap column). Turning points are events only under
 * output.swing_extremes, which the fit sets (fit_evaluate). */
static int swing_extreme(const cr_system *sys, const cr_fit_observation *o, double *value,
                         char *why, size_t whylen)
{
    const cr_event *ev = cr_system_events(sys);
    size_t ne = cr_system_event_count(sys), m = 0;
    double prev = NAN, w = cr_system_get_time(sys), best = INFINITY;
    for (size_t i = 0; ev && i < ne; i++) {
        if (ev[i].kind != CR_EVENT_SWING_EXTREME || ev[i].contact != (size_t)o->index)
            continue;
        if (m++ > 0)
            w = fmin(w, 0.5 * (ev[i].t - prev));
        prev = ev[i].t;
        if (fabs(ev[i].t - o->time) < best) {
            best = fabs(ev[i].t - o->time);
            *value = ev[i].overlap;
        }
    }
    if (m == 0 || !(best <= w)) {
        *value = NAN;
        cr_set_msg(why, whylen,
                   "body %ld: no swing extreme within the pairing window of t = %g s (%zu in "
                   "the run; only pendulum balls of chains have them)",
                   o->index, o->time, m);
        return CR_ERR_MODEL;
    }
    return CR_OK;
}

int cr_fit_observe(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *obs,
                   double *value, char *why, size_t whylen)
{
    if (!sys || !mon || !obs || !value)
        return CR_ERR_INVALID;
    *value = NAN;
    if ((obs->kind == CR_FIT_VELOCITY_AFTER || obs->kind == CR_FIT_SWING_EXTREME) &&
        obs->index >= 0 && (size_t)obs->index >= cr_system_body_count(sys)) {
        cr_set_msg(why, whylen, "the model has %zu bodies (0 to %zu)", cr_system_body_count(sys),
                   cr_system_body_count(sys) - 1);
        return CR_ERR_MODEL;
    }
    switch (obs->kind) {
    case CR_FIT_VELOCITY_AFTER:
        return velocity_after(sys, mon, obs, value, why, whylen);
    case CR_FIT_CONTACT_DURATION:
        return contact_duration(sys, mon, obs, value, why, whylen);
    case CR_FIT_E_CM:
        return e_cm(sys, mon, obs, value, why, whylen);
    case CR_FIT_OPENING_SPAN:
        return opening_span(sys, mon, obs, value, why, whylen);
    case CR_FIT_PEAK_FORCE:
        return peak_force(sys, mon, obs, value, why, whylen);
    case CR_FIT_SWING_EXTREME:
        return swing_extreme(sys, obs, value, why, whylen);
    default:
        return CR_ERR_INVALID;
    }
}
