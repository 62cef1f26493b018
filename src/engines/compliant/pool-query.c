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

void cr_pool_get_positions(const cr_pool *p, double *xy)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    for (size_t i = 0; i < p->n; i++) {
        xy[2 * i] = p->x0[i] + (y ? p->L * y[4 * i] : 0.0);
        xy[2 * i + 1] = p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0);
    }
}

void cr_pool_get_velocities(const cr_pool *p, double *v)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    for (size_t i = 0; i < p->n; i++) {
        v[2 * i] = y ? p->V * y[4 * i + 2] : p->vx0[i];
        v[2 * i + 1] = y ? p->V * y[4 * i + 3] : p->vy0[i];
    }
}

double cr_pool_kinetic_energy(const cr_pool *p)
{
    double T = 0.0, *v = malloc(2 * p->n * sizeof(double));
    if (!v)
        return NAN;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++)
        T += 0.5 * p->m[i] * (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]);
    free(v);
    return T;
}

double cr_pool_potential_energy(const cr_pool *p)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    double U = 0.0;
    /* the field's potential −m g·p, zero at the origin as for chains */
    for (size_t i = 0; i < p->n && (p->gx != 0.0 || p->gy != 0.0); i++)
        U -= p->m[i] * (p->gx * (p->x0[i] + (y ? p->L * y[4 * i] : 0.0)) +
                        p->gy * (p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0)));
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
    return p->yQ ? p->Escale * N_VGetArrayPointer(p->yQ)[3 * p->qcap] : 0.0;
}

void cr_pool_momentum(const cr_pool *p, double *px, double *py)
{
    double *v = malloc(2 * p->n * sizeof(double));
    *px = *py = 0.0;
    if (!v)
        return;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++) {
        *px += p->m[i] * v[2 * i];
        *py += p->m[i] * v[2 * i + 1];
    }
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
    double px, py, P = p->yQ ? cr_pl_impulse(p, &p->c[k], &px, &py) : 0.0;
    if (vec) {
        vec[0] = p->yQ ? p->Pscale * px : 0.0;
        vec[1] = p->yQ ? p->Pscale * py : 0.0;
    }
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
    if (c->j < 0) {
        size_t w = (size_t)(-1 - c->j);
        nrm[0] = p->wnx[w];
        nrm[1] = p->wny[w];
        return;
    }
    if (c->frozen) {
        nrm[0] = c->fnx;
        nrm[1] = c->fny;
        return;
    }
    double xy[4];
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    size_t i = (size_t)c->i, j = (size_t)c->j;
    xy[0] = p->x0[i] + (y ? p->L * y[4 * i] : 0.0);
    xy[1] = p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0);
    xy[2] = p->x0[j] + (y ? p->L * y[4 * j] : 0.0);
    xy[3] = p->y0[j] + (y ? p->L * y[4 * j + 1] : 0.0);
    double d = hypot(xy[2] - xy[0], xy[3] - xy[1]);
    nrm[0] = (xy[2] - xy[0]) / d;
    nrm[1] = (xy[3] - xy[1]) / d;
}
