/*
 * Two runs of one model compared collision by collision and over the run
 * (cradle/compare.h; docs/compare.md, "Compare over a run"). Everything comes
 * from the monitors' collisions: nothing is rerun.
 */
#include <math.h>
#include <string.h>

#include "cradle/compare.h"
#include "base/base.h"

/* Numbers per body vector of the monitor's episodes (1 for a chain). */
static int monitor_dim(const cr_monitor *mon)
{
    cr_episode_data d;
    for (size_t k = 0; k < cr_monitor_episode_count(mon); k++)
        if (cr_monitor_episode_data(mon, k, &d) == CR_OK)
            return d.dim;
    return 0;
}

/* Velocity of body @p b in collision k (dim values), or NULL when the
 * collision does not hold it. */
static const double *body_velocity(const cr_monitor *mon, size_t k, size_t b, int after, int dim)
{
    size_t nb = 0, nv = 0;
    const size_t *bodies = cr_monitor_collision_bodies(mon, k, &nb);
    const double *v = cr_monitor_collision_velocities(mon, k, after, &nv);
    for (size_t i = 0; bodies && v && i < nb; i++)
        if (bodies[i] == b)
            return v + i * (size_t)dim;
    return NULL;
}

/* Largest |u_rigid − u_compliant| over the bodies of either collision
 * (compliant kc, rigid kr); a body
 * one of them does not hold counts with its velocity in the other against 0
 * and clears *same. */
static double velocity_error(const cr_monitor *cm, const cr_monitor *rm, size_t kc, size_t kr,
                             int after, int dim, int *same)
{
    double worst = 0.0;
    const cr_monitor *mons[2] = {cm, rm};
    size_t ks[2] = {kc, kr};
    for (int side = 0; side < 2; side++) {
        size_t nb = 0;
        const size_t *bodies = cr_monitor_collision_bodies(mons[side], ks[side], &nb);
        for (size_t i = 0; bodies && i < nb; i++) {
            const double *a = body_velocity(cm, kc, bodies[i], after, dim);
            const double *b = body_velocity(rm, kr, bodies[i], after, dim);
            *same &= a && b;
            for (int d = 0; d < dim; d++) {
                double va = a ? a[d] : 0.0, vb = b ? b[d] : 0.0;
                worst = fmax(worst, fabs(vb - va));
            }
        }
    }
    return worst;
}

/* max |u⁻| over the compliant collision's bodies: the scale of its errors. */
static double collision_speed(const cr_monitor *mon, size_t k, int dim)
{
    size_t nb = 0;
    const double *v = cr_monitor_collision_velocities(mon, k, 0, &nb);
    double s = 0.0;
    for (size_t i = 0; v && i < nb * (size_t)dim; i++)
        s = fmax(s, fabs(v[i]));
    return s;
}

static double next_interval(const cr_monitor *mon, size_t k, const cr_collision_info *c)
{
    cr_collision_info n;
    if (cr_monitor_get_collision(mon, k + 1, &n) != CR_OK)
        return NAN;
    return n.t_start - c->t_start;
}

static int same_bodies(const cr_monitor *cm, size_t kc, const cr_monitor *rm, size_t kr)
{
    size_t na = 0, nb = 0;
    const size_t *a = cr_monitor_collision_bodies(cm, kc, &na);
    const size_t *b = cr_monitor_collision_bodies(rm, kr, &nb);
    return na == nb && (na == 0 || (a && b && memcmp(a, b, na * sizeof(size_t)) == 0));
}

static double start_of(const cr_monitor *mon, size_t k)
{
    cr_collision_info c;
    return cr_monitor_get_collision(mon, k, &c) == CR_OK ? c.t_start : NAN;
}

/* The rigid collision compared with compliant collision k: collision k,
 * except among rigid collisions starting at the same instant (a rigid run
 * resolves several at once, in no physical order: the two wall hits of a
 * symmetric pool), where compliant collision k takes the one of that group
 * with its bodies (the r-th such, r its rank among the compliant ones of the
 * group with those bodies). */
static size_t rigid_match(const cr_monitor *cm, const cr_monitor *rm, size_t k, size_t n)
{
    double t = start_of(rm, k);
    size_t a = k, b = k + 1, rank = 0;
    while (a > 0 && start_of(rm, a - 1) == t)
        a--;
    while (b < n && start_of(rm, b) == t)
        b++;
    if (b - a == 1 || same_bodies(cm, k, rm, k))
        return k;
    for (size_t c = a; c < k; c++)
        rank += same_bodies(cm, c, cm, k);
    for (size_t j = a; j < b; j++)
        if (same_bodies(cm, k, rm, j) && rank-- == 0)
            return j;
    return k;
}

static void fill_row(const cr_monitor *cm, const cr_monitor *rm, size_t k, size_t n, int dim,
                     cr_compare_runs_row *w)
{
    cr_collision_info c, r;
    size_t j = rigid_match(cm, rm, k, n);
    cr_monitor_get_collision(cm, k, &c);
    cr_monitor_get_collision(rm, j, &r);
    memset(w, 0, sizeof(*w));
    w->collision = k;
    w->t_compliant = c.t_start;
    w->t_rigid = r.t_start;
    w->phase = r.t_start - c.t_start;
    w->next_compliant = next_interval(cm, k, &c);
    w->next_rigid = next_interval(rm, j, &r);
    w->speed = collision_speed(cm, k, dim);
    w->same_bodies = 1;
    double s = w->speed > 0.0 ? w->speed : 1.0;
    w->velocity_before_error = velocity_error(cm, rm, k, j, 0, dim, &w->same_bodies) / s;
    w->velocity_after_error = velocity_error(cm, rm, k, j, 1, dim, &w->same_bodies) / s;
    w->T_minus_compliant = c.T_minus;
    w->T_minus_rigid = r.T_minus;
    w->T_plus_compliant = c.T_plus;
    w->T_plus_rigid = r.T_plus;
    w->energy_error = (r.T_plus - c.T_plus) / c.T_minus;
    w->kappa_compliant = c.kappa;
    w->kappa_rigid = r.kappa;
    w->episodes_compliant = c.episode_count;
    w->episodes_rigid = r.episode_count;
}

/* Π κ over collisions 0 … last: the kinetic energy the impacts kept, the
 * fields' work taken out (a pendulum's swing between collisions changes T
 * without dissipating anything). */
static double decay(const cr_monitor *mon, size_t last)
{
    double p = 1.0;
    for (size_t k = 0; k <= last; k++) {
        cr_collision_info c;
        if (cr_monitor_get_collision(mon, k, &c) != CR_OK)
            return NAN;
        p *= c.kappa;
    }
    return p;
}

int cr_compare_runs(const cr_monitor *compliant, const cr_monitor *rigid, cr_compare_runs_row *rows,
                    size_t cap, cr_compare_runs_summary *summary)
{
    if (!compliant || !rigid || !summary || (cap && !rows))
        return CR_ERR_INVALID;
    int dc = monitor_dim(compliant), dr = monitor_dim(rigid), dim = dc ? dc : dr;
    if (dc && dr && dc != dr)
        return CR_ERR_INVALID;
    cr_compare_runs_summary *s = summary;
    memset(s, 0, sizeof(*s));
    s->collisions_compliant = cr_monitor_collision_count(compliant);
    s->collisions_rigid = cr_monitor_collision_count(rigid);
    s->matched = s->collisions_compliant < s->collisions_rigid ? s->collisions_compliant
                                                               : s->collisions_rigid;
    s->phase_drift = s->mean_interval = s->decay_compliant = s->decay_rigid = NAN;
    double sum = 0.0;
    for (size_t k = 0; k < s->matched; k++) {
        cr_compare_runs_row w;
        fill_row(compliant, rigid, k, s->matched, dim, &w);
        if (k < cap)
            rows[k] = w;
        s->max_velocity_error = fmax(s->max_velocity_error, w.velocity_after_error);
        sum += w.velocity_after_error;
        s->max_energy_error = fmax(s->max_energy_error, fabs(w.energy_error));
        s->max_phase = fmax(s->max_phase, fabs(w.phase));
        s->phase_drift = w.phase;
    }
    if (s->matched) {
        s->mean_velocity_error = sum / (double)s->matched;
        s->decay_compliant = decay(compliant, s->matched - 1);
        s->decay_rigid = decay(rigid, s->matched - 1);
    }
    if (s->collisions_compliant >= 2) {
        cr_collision_info a, b;
        cr_monitor_get_collision(compliant, 0, &a);
        cr_monitor_get_collision(compliant, s->collisions_compliant - 1, &b);
        s->mean_interval = (b.t_start - a.t_start) / (double)(s->collisions_compliant - 1);
    }
    return CR_OK;
}
