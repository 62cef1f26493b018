/*
 * The chain engine's getters: the state now in SI units, energies, events,
 * counters and scales.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>
#include <string.h>

#include "engines/common/integrator.h"

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
    cr_sm_pair_now(s, c, &delta, &rate);
    return delta > CR_SM_ETA * s->L && cr_sm_contact_force(s, c, delta, rate) > 0.0;
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
        p += s->mass[j] * cr_sm_body_velocity(s, j);
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
    double va = s->has_link[c] ? cr_sm_body_velocity(s, c) : cluster_velocity(s, c);
    double vb = s->has_link[c] ? cr_sm_body_velocity(s, c + 1) : cluster_velocity(s, c + 1);
    return va <= vb;
}

void cr_sim_get_positions(const cr_sim *s, double *x)
{
    /* a wall is where it was; its states carry only the linear solver's roundoff */
    for (size_t i = 0; i < s->nb; i++)
        x[i] = s->x0[i] + (!s->fixed[i] ? s->L * cr_sm_dis_now(s, i) : 0.0);
}

void cr_sim_get_velocities(const cr_sim *s, double *v)
{
    for (size_t i = 0; i < s->nb; i++)
        v[i] = cr_sm_body_velocity(s, i);
}

void cr_sim_get_overlaps(const cr_sim *s, double *delta)
{
    double rate;
    for (size_t c = 0; c < s->nc; c++)
        cr_sm_pair_now(s, c, &delta[c], &rate);
}

void cr_sim_get_overlap_rates(const cr_sim *s, double *rate)
{
    double delta;
    for (size_t c = 0; c < s->nc; c++)
        cr_sm_pair_now(s, c, &delta, &rate[c]);
}

void cr_sim_get_forces(const cr_sim *s, double *f)
{
    for (size_t c = 0; c < s->nc; c++) {
        double delta, rate;
        cr_sm_pair_now(s, c, &delta, &rate);
        f[c] = cr_sm_contact_force(s, c, delta, rate);
    }
}

void cr_sim_get_impulses(const cr_sim *s, double *P)
{
    for (size_t c = 0; c < s->nc; c++)
        P[c] = s->Pscale * cr_sm_impulse_now(s, c);
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
        double v = s->V * cr_sm_vel_now(s, i);
        T += 0.5 * s->mass[i] * v * v;
    }
    return T;
}

double cr_sim_potential_energy(const cr_sim *s)
{
    double U = 0.0;
    for (size_t c = 0; c < s->nc; c++) {
        double delta = s->L * cr_sm_ovl_now(s, c);
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
        double x = s->x0[i] + s->L * cr_sm_dis_now(s, i);
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
            p += s->mass[i] * (s->V * cr_sm_vel_now(s, i));
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
    /* the stepper's counters are read as asked: every exit of the run sees
     * them (those of finished windows and segments are banked) */
    cr_sim_stats st = s->stats, c = s->banked;
    if (s->stepper)
        cr_sm_stepper_counters(s, &c);
    st.steps = c.steps;
    st.rhs_evals = c.rhs_evals;
    st.jac_evals = c.jac_evals;
    st.root_evals = c.root_evals + s->gevals; /* with the engine's own evaluations */
    st.nonlin_iters = c.nonlin_iters;
    st.projections = s->projections;
    st.projections_refused = s->projections_refused;
    st.projected_energy = s->projected_energy;
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
