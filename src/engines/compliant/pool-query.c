/*
 * Queries of a pool: state, energies, momentum, contacts, events, counters.
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>

const char *cr_pool_last_error(const cr_pool *p)
{
    return p ? p->err : "no pool";
}

const char *cr_pool_end_reason(const cr_pool *p)
{
    return p->end_reason[0] ? p->end_reason : "not run";
}

size_t cr_pool_disc_count(const cr_pool *p)
{
    return p->n;
}

double cr_pool_get_time(const cr_pool *p)
{
    return p->t;
}

void cr_pool_get_positions(const cr_pool *p, double *x)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    size_t dim = (size_t)p->dim;
    for (size_t i = 0; i < p->n; i++)
        for (size_t d = 0; d < dim; d++)
            x[dim * i + d] = p->x0[dim * i + d] + (y ? p->L * y[p->sd * i + d] : 0.0);
}

void cr_pool_get_velocities(const cr_pool *p, double *v)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    size_t dim = (size_t)p->dim;
    for (size_t i = 0; i < p->n; i++)
        for (size_t d = 0; d < dim; d++)
            v[dim * i + d] = y ? p->V * y[p->sd * i + dim + d] : p->v0[dim * i + d];
}

double cr_pool_kinetic_energy(const cr_pool *p)
{
    size_t dim = (size_t)p->dim;
    double T = 0.0, *v = malloc(dim * p->n * sizeof(double));
    if (!v)
        return NAN;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++)
        T += 0.5 * p->m[i] * cr_pl_dot(v + dim * i, v + dim * i, p->dim);
    free(v);
    return T;
}

double cr_pool_potential_energy(const cr_pool *p)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    double U = 0.0;
    /* the field's potential −m g·p, zero at the origin as for chains */
    size_t dim = (size_t)p->dim;
    for (size_t i = 0; i < p->n && cr_pl_has_field(p); i++) {
        if (p->fixed[i])
            continue; /* it never moves: a constant, left out as walls are */
        double x[3] = {0};
        for (size_t d = 0; d < dim; d++)
            x[d] = p->x0[dim * i + d] + (y ? p->L * y[p->sd * i + d] : 0.0);
        U -= p->m[i] * cr_pl_dot(p->g, x, p->dim);
    }
    for (size_t s = 0; y && s < p->nslots; s++) {
        if (p->slot_contact[s] < 0)
            continue;
        double delta, rate;
        const cr_pool_contact *k = &p->c[p->slot_contact[s]];
        cr_pl_overlap(p, y, k, &delta, &rate);
        U += cr_contact_energy(cr_pl_law(p, k), delta);
    }
    return U;
}

double cr_pool_dissipated_work(const cr_pool *p)
{
    return p->yQ ? p->Escale * N_VGetArrayPointer(p->yQ)[p->nqv * p->qcap] : 0.0;
}

void cr_pool_momentum(const cr_pool *p, double *mom)
{
    size_t dim = (size_t)p->dim;
    double *v = malloc(dim * p->n * sizeof(double));
    for (size_t d = 0; d < dim; d++)
        mom[d] = 0.0;
    if (!v)
        return;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++)
        for (size_t d = 0; d < dim; d++)
            mom[d] += p->m[i] * v[dim * i + d];
    free(v);
}

size_t cr_pool_contact_count(const cr_pool *p)
{
    return p->nc;
}

void cr_pool_contact_bodies(const cr_pool *p, size_t k, long *i, long *j)
{
    *i = p->c[k].i;
    *j = p->c[k].j;
}

double cr_pool_contact_impulse(const cr_pool *p, size_t k, double *vec)
{
    double pv[3] = {0, 0, 0}, P = p->yQ ? cr_pl_impulse(p, &p->c[k], pv) : 0.0;
    for (int d = 0; vec && d < p->dim; d++)
        vec[d] = p->yQ ? p->Pscale * pv[d] : 0.0;
    return p->Pscale * P;
}

size_t cr_pool_event_count(const cr_pool *p)
{
    return p->nev;
}

const cr_event *cr_pool_events(const cr_pool *p)
{
    return p->events;
}

cr_run_stats cr_pool_get_stats(const cr_pool *p)
{
    /* CVODE's counters are read as asked: every exit of the run sees them */
    cr_run_stats st = p->stats;
    if (p->cvode)
        cr_cvode_counters(p->cvode, &p->banked, &st);
    st.root_evals += p->gevals; /* the engine's own event location */
    st.windows = p->region ? p->region_builds : (p->cvode ? 1 : 0);
    st.max_window = p->region ? p->max_active : (long)p->n;
    st.shrinks = p->region_shrinks;
    return st;
}

long cr_pool_rebuilds(const cr_pool *p)
{
    return p->rebuilds;
}

void cr_pool_contact_state(const cr_pool *p, size_t k, double *delta, double *rate, double *force,
                           int *loaded)
{
    const cr_pool_contact *c = &p->c[k];
    *delta = -INFINITY;
    *rate = 0.0;
    *force = 0.0;
    *loaded = 0;
    if (c->slot < 0 || !p->y)
        return;
    const double *y = N_VGetArrayPointer(p->y);
    cr_pl_overlap(p, y, c, delta, rate);
    *force = cr_contact_force(cr_pl_law(p, c), *delta, *rate);
    *loaded = *delta > CR_EVENT_MARGIN * p->L && *force > 0.0;
}

void cr_pool_get_discs(const cr_pool *p, double *mass, double *radius)
{
    if (mass)
        memcpy(mass, p->m, p->n * sizeof(double));
    if (radius)
        memcpy(radius, p->r, p->n * sizeof(double));
}

void cr_pool_contact_normal(const cr_pool *p, size_t k, double *nrm)
{
    const cr_pool_contact *c = &p->c[k];
    size_t dim = (size_t)p->dim;
    if (c->j < 0) {
        memcpy(nrm, p->wn + dim * (size_t)(-1 - c->j), dim * sizeof(double));
        return;
    }
    if (c->frozen) {
        memcpy(nrm, c->fn, dim * sizeof(double));
        return;
    }
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    size_t i = (size_t)c->i, j = (size_t)c->j;
    double a[3] = {0};
    for (size_t d = 0; d < dim; d++)
        a[d] = p->x0[dim * j + d] + (y ? p->L * y[p->sd * j + d] : 0.0) -
               (p->x0[dim * i + d] + (y ? p->L * y[p->sd * i + d] : 0.0));
    double len = cr_pl_norm(a, p->dim);
    for (size_t d = 0; d < dim; d++)
        nrm[d] = a[d] / len;
}
