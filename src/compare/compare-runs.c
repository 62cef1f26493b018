/*
 * Two runs of one model compared collision by collision and over the run
 * (cradle/compare.h; docs/compare.md, "Compare over a run"). Everything comes
 * from the monitors' collisions: nothing is rerun.
 */
#include <math.h>
#include <stdlib.h>
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

/* 1 when the collisions share a body that moves (a wall or floor shared by
 * two distant impacts pairs nothing). */
static int share_moving(const cr_monitor *cm, size_t kc, const cr_monitor *rm, size_t kr)
{
    size_t na = 0, nb = 0;
    const size_t *a = cr_monitor_collision_bodies(cm, kc, &na);
    const size_t *b = cr_monitor_collision_bodies(rm, kr, &nb);
    for (size_t i = 0; a && i < na; i++)
        for (size_t j = 0; b && j < nb; j++)
            if (a[i] == b[j] && cr_monitor_collision_moves(cm, kc, a[i]))
                return 1;
    return 0;
}

/* W: half the shortest time from a compliant collision to the next one of
 * one of its moving bodies (a rigid collision nearer to one than that is
 * nearer to it than to that body's next; two discs hitting two walls at one
 * instant share no body and do not shrink it); any time when no body has two
 * collisions. */
static double pairing_window(const cr_monitor *mon)
{
    size_t n = cr_monitor_collision_count(mon);
    double w = INFINITY;
    for (size_t k = 0; k < n; k++)
        for (size_t j = k + 1; j < n; j++)
            if (share_moving(mon, k, mon, j)) {
                w = fmin(w, 0.5 * (start_of(mon, j) - start_of(mon, k)));
                break;
            }
    return w;
}

/* Pairs the collisions (cradle/compare.h): pair[kc] = the rigid collision of
 * compliant collision kc, or −1; taken[kr] marks the rigid ones paired. */
static void pair_collisions(const cr_monitor *cm, const cr_monitor *rm, double window, long *pair,
                            char *taken)
{
    size_t nc = cr_monitor_collision_count(cm), nr = cr_monitor_collision_count(rm);
    for (size_t kc = 0; kc < nc; kc++) {
        double tc = start_of(cm, kc), best = INFINITY;
        int best_same = 0;
        pair[kc] = -1;
        for (size_t kr = 0; kr < nr; kr++) {
            double d = fabs(start_of(rm, kr) - tc);
            if (taken[kr] || !(d <= window) || !share_moving(cm, kc, rm, kr))
                continue;
            int same = same_bodies(cm, kc, rm, kr);
            if (d < best || (d == best && same && !best_same)) {
                best = d;
                best_same = same;
                pair[kc] = (long)kr;
            }
        }
        if (pair[kc] >= 0)
            taken[pair[kc]] = 1;
    }
}

static void fill_row(const cr_monitor *cm, const cr_monitor *rm, long k, long j, int dim,
                     cr_compare_runs_row *w)
{
    cr_collision_info c = {0}, r = {0};
    memset(w, 0, sizeof(*w));
    w->collision = k;
    w->rigid_collision = j;
    int hc = k >= 0 && cr_monitor_get_collision(cm, (size_t)k, &c) == CR_OK;
    int hr = j >= 0 && cr_monitor_get_collision(rm, (size_t)j, &r) == CR_OK;
    w->t_compliant = hc ? c.t_start : NAN;
    w->t_rigid = hr ? r.t_start : NAN;
    w->phase = w->t_rigid - w->t_compliant;
    w->next_compliant = hc ? next_interval(cm, (size_t)k, &c) : NAN;
    w->next_rigid = hr ? next_interval(rm, (size_t)j, &r) : NAN;
    w->speed = hc ? collision_speed(cm, (size_t)k, dim) : NAN;
    w->T_minus_compliant = hc ? c.T_minus : NAN;
    w->T_minus_rigid = hr ? r.T_minus : NAN;
    w->T_plus_compliant = hc ? c.T_plus : NAN;
    w->T_plus_rigid = hr ? r.T_plus : NAN;
    w->kappa_compliant = hc ? c.kappa : NAN;
    w->kappa_rigid = hr ? r.kappa : NAN;
    w->episodes_compliant = hc ? c.episode_count : 0;
    w->episodes_rigid = hr ? r.episode_count : 0;
    w->energy_error = w->velocity_before_error = w->velocity_after_error = NAN;
    if (!hc || !hr)
        return;
    w->same_bodies = 1;
    double s = w->speed > 0.0 ? w->speed : 1.0;
    w->velocity_before_error =
        velocity_error(cm, rm, (size_t)k, (size_t)j, 0, dim, &w->same_bodies) / s;
    w->velocity_after_error =
        velocity_error(cm, rm, (size_t)k, (size_t)j, 1, dim, &w->same_bodies) / s;
    w->energy_error = (r.T_plus - c.T_plus) / c.T_minus;
}

/* Π κ over the paired collisions of one side: the kinetic energy the impacts
 * kept, the fields' work taken out (a pendulum's swing between collisions
 * changes T without dissipating anything). */
static double decay(const cr_monitor *mon, const long *index, size_t n)
{
    double p = 1.0;
    for (size_t k = 0; k < n; k++) {
        cr_collision_info c;
        if (cr_monitor_get_collision(mon, (size_t)index[k], &c) != CR_OK)
            return NAN;
        p *= c.kappa;
    }
    return p;
}

static void add_row(cr_compare_runs_row *rows, size_t cap, size_t *n, const cr_compare_runs_row *w)
{
    if (*n < cap)
        rows[*n] = *w;
    (*n)++;
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
    size_t nc = s->collisions_compliant = cr_monitor_collision_count(compliant);
    size_t nr = s->collisions_rigid = cr_monitor_collision_count(rigid);
    s->window = pairing_window(compliant);
    long *pair = malloc((nc ? nc : 1) * sizeof(long));
    long *mc = malloc((nc ? nc : 1) * sizeof(long)), *mr = malloc((nc ? nc : 1) * sizeof(long));
    char *taken = calloc(nr ? nr : 1, 1);
    if (!pair || !mc || !mr || !taken) {
        free(pair);
        free(mc);
        free(mr);
        free(taken);
        return CR_ERR_NOMEM;
    }
    pair_collisions(compliant, rigid, s->window, pair, taken);
    s->phase_drift = s->mean_interval = s->decay_compliant = s->decay_rigid = NAN;
    double sum = 0.0;
    size_t n = 0;
    cr_compare_runs_row w;
    for (size_t k = 0; k < nc; k++) {
        if (pair[k] < 0)
            continue;
        fill_row(compliant, rigid, (long)k, pair[k], dim, &w);
        add_row(rows, cap, &n, &w);
        mc[s->matched] = (long)k;
        mr[s->matched++] = pair[k];
        s->max_velocity_error = fmax(s->max_velocity_error, w.velocity_after_error);
        sum += w.velocity_after_error;
        s->max_energy_error = fmax(s->max_energy_error, fabs(w.energy_error));
        s->max_phase = fmax(s->max_phase, fabs(w.phase));
        s->phase_drift = w.phase;
    }
    for (size_t k = 0; k < nc; k++)
        if (pair[k] < 0) {
            fill_row(compliant, rigid, (long)k, -1, dim, &w);
            add_row(rows, cap, &n, &w);
            s->unmatched_compliant++;
        }
    for (size_t k = 0; k < nr; k++)
        if (!taken[k]) {
            fill_row(compliant, rigid, -1, (long)k, dim, &w);
            add_row(rows, cap, &n, &w);
            s->unmatched_rigid++;
        }
    if (s->matched) {
        s->mean_velocity_error = sum / (double)s->matched;
        s->decay_compliant = decay(compliant, mc, s->matched);
        s->decay_rigid = decay(rigid, mr, s->matched);
    }
    if (nc >= 2)
        s->mean_interval =
            (start_of(compliant, nc - 1) - start_of(compliant, 0)) / (double)(nc - 1);
    free(pair);
    free(mc);
    free(mr);
    free(taken);
    return CR_OK;
}
