/*
 * An independent integration of a compliant 1-D chain, written for the tests
 * and sharing no code with cradle: balls on a line, contact c between balls c
 * and c + 1 with f = K δⁿ + C δᵐ δ̇ while δ > 0 (clipped at 0 under the
 * `force` release), integrated by the classical fourth-order Runge-Kutta
 * method at a fixed step in the gaps and velocities, until every contact is
 * open and no pair approaches. cradle integrates the same chains with CVODE's
 * variable-order BDF/Adams methods or ARKODE's adaptive ERK and locates every
 * closing and opening by root finding; this one takes fixed steps and finds no
 * events, so the two share neither method nor code.
 *
 * Its error: RK4 is fourth order where the force is smooth; at a closing, an
 * opening or a release the force or its derivatives jump, and a step across
 * one is halved (down to 2^-20 of it) until the change is pinned, so these
 * steps add little. refchain_final runs at h and h/2 and returns the h/2
 * result with the difference of the two as its error estimate; the tests set
 * their tolerance above that estimate and above cradle's own tolerance.
 */
#ifndef CRADLE_REFCHAIN_H
#define CRADLE_REFCHAIN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "refforce.h"

#define REFCHAIN_MAX 128

typedef struct {
    size_t n;                     /* balls */
    double m[REFCHAIN_MAX];       /* masses */
    double gap[REFCHAIN_MAX - 1]; /* x[c+1] − x[c] − r[c] − r[c+1] at t = 0 */
    double v[REFCHAIN_MAX];       /* velocities at t = 0 */
    double K[REFCHAIN_MAX - 1], e[REFCHAIN_MAX - 1]; /* f = K δ^e + C δ^dm δ̇ */
    double C[REFCHAIN_MAX - 1], dm[REFCHAIN_MAX - 1];
    int force_release; /* 1: f = max(0, …) */
} refchain;

/* Accelerations a and contact forces f from gaps g and velocities v. */
static inline void refchain_accel_(const refchain *c, const double *g, const double *v, double *a,
                                   double *f)
{
    for (size_t i = 0; i < c->n; i++)
        a[i] = 0.0;
    for (size_t k = 0; k + 1 < c->n; k++) {
        double fk = ref_force(c->K[k], c->e[k], c->C[k], c->dm[k], c->force_release, -g[k],
                              v[k] - v[k + 1]);
        f[k] = fk;
        a[k] -= fk / c->m[k];
        a[k + 1] += fk / c->m[k + 1];
    }
}

/* Which contacts are closed and which are clipped (force release, pulling
 * law): a change within a step is a closing, an opening or a release. */
static inline unsigned long refchain_state_(const refchain *c, const double *g, const double *v)
{
    unsigned long h = 1469598103934665603u;
    for (size_t k = 0; k + 1 < c->n; k++) {
        int st = g[k] < 0.0;
        if (st && c->force_release && c->C[k] != 0.0)
            st += ref_force_raw(c->K[k], c->e[k], c->C[k], c->dm[k], -g[k], v[k] - v[k + 1]) < 0.0;
        h = (h ^ (unsigned long)(st + 1)) * 1099511628211u;
    }
    return h;
}

/* One RK4 step of h from (g, v, P) into the same arrays. */
static inline void refchain_rk4_(const refchain *c, double h, double *g, double *v, double *P)
{
    size_t n = c->n, nc = n - 1;
    double gs[REFCHAIN_MAX], vs[REFCHAIN_MAX];
    double kg[4][REFCHAIN_MAX], kv[4][REFCHAIN_MAX], kf[4][REFCHAIN_MAX];
    static const double stage[4] = {0.0, 0.5, 0.5, 1.0}, weight[4] = {1, 2, 2, 1};
    for (int s = 0; s < 4; s++) {
        for (size_t k = 0; k < nc; k++)
            gs[k] = g[k] + (s ? stage[s] * h * kg[s - 1][k] : 0.0);
        for (size_t i = 0; i < n; i++)
            vs[i] = v[i] + (s ? stage[s] * h * kv[s - 1][i] : 0.0);
        refchain_accel_(c, gs, vs, kv[s], kf[s]);
        for (size_t k = 0; k < nc; k++)
            kg[s][k] = vs[k + 1] - vs[k];
    }
    for (size_t k = 0; k < nc; k++) {
        double dg = 0.0, df = 0.0;
        for (int s = 0; s < 4; s++) {
            dg += weight[s] * kg[s][k];
            df += weight[s] * kf[s][k];
        }
        g[k] += h / 6.0 * dg;
        P[k] += h / 6.0 * df;
    }
    for (size_t i = 0; i < n; i++) {
        double dv = 0.0;
        for (int s = 0; s < 4; s++)
            dv += weight[s] * kv[s][i];
        v[i] += h / 6.0 * dv;
    }
}

/* A step of h; where a contact closes, opens or releases within it (the force
 * or its derivative jumps there, and RK4's order with it), the step is halved
 * down to h / 2^20 around the change: bisection in place of event location. */
static inline void refchain_step_(const refchain *c, double h, int depth, double *g, double *v,
                                  double *P)
{
    size_t n = c->n, nc = n - 1;
    double g1[REFCHAIN_MAX], v1[REFCHAIN_MAX], P1[REFCHAIN_MAX];
    memcpy(g1, g, nc * sizeof(double));
    memcpy(v1, v, n * sizeof(double));
    memcpy(P1, P, nc * sizeof(double));
    refchain_rk4_(c, h, g1, v1, P1);
    if (depth < 20 && refchain_state_(c, g, v) != refchain_state_(c, g1, v1)) {
        refchain_step_(c, 0.5 * h, depth + 1, g, v, P);
        refchain_step_(c, 0.5 * h, depth + 1, g, v, P);
        return;
    }
    memcpy(g, g1, nc * sizeof(double));
    memcpy(v, v1, n * sizeof(double));
    memcpy(P, P1, nc * sizeof(double));
}

/* One run at step h from t = 0: final velocities @p v and contact impulses @p P
 * (∫ f dt, Simpson's weights of the RK4 stages). @return the time at which every
 * contact was open and no pair approached, or −1 when that did not come before
 * @p t_max. */
static inline double refchain_run(const refchain *c, double h, double t_max, double *v, double *P)
{
    size_t n = c->n, nc = n - 1;
    double g[REFCHAIN_MAX];
    memcpy(g, c->gap, nc * sizeof(double));
    memcpy(v, c->v, n * sizeof(double));
    for (size_t k = 0; k < nc; k++)
        P[k] = 0.0;
    for (double t = 0.0; t < t_max; t += h) {
        refchain_step_(c, h, 0, g, v, P);
        int done = 1;
        for (size_t k = 0; k < nc && done; k++)
            done = g[k] > 0.0 && v[k] <= v[k + 1];
        if (done)
            return t + h;
    }
    return -1.0;
}

/* The run at h and at h/2: the h/2 velocities and impulses, and in @p err the
 * largest difference of the two velocity sets (the error estimate). @return the
 * end time of the h/2 run, −1 when a run did not end before t_max. */
static inline double refchain_final(const refchain *c, double h, double t_max, double *v, double *P,
                                    double *err)
{
    double v1[REFCHAIN_MAX], P1[REFCHAIN_MAX];
    double t1 = refchain_run(c, h, t_max, v1, P1);
    double t2 = refchain_run(c, 0.5 * h, t_max, v, P);
    *err = 0.0;
    for (size_t i = 0; i < c->n; i++)
        *err = fmax(*err, fabs(v[i] - v1[i]));
    return t1 < 0.0 ? -1.0 : t2;
}

/* The step: the shortest contact time scale δ* / V of the chain's pairs at the
 * speed V, δ* = (μ V² / K)^(1/(n+1)) (the Hertz or linear overlap of a head-on
 * impact at V, up to a factor of order one), divided by @p per. */
static inline double refchain_step(const refchain *c, double V, double per)
{
    double t = INFINITY;
    for (size_t k = 0; k + 1 < c->n; k++) {
        double mu = c->m[k] * c->m[k + 1] / (c->m[k] + c->m[k + 1]);
        t = fmin(t, pow(mu * V * V / c->K[k], 1.0 / (c->e[k] + 1.0)) / V);
    }
    return t / per;
}

/* A chain with one law on every contact. */
static inline void refchain_init(refchain *c, size_t n, const double *m, const double *x,
                                 const double *r, const double *v, double K, double e, double C,
                                 int force_release)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->m[i] = m[i];
        c->v[i] = v[i];
    }
    for (size_t k = 0; k + 1 < n; k++) {
        c->gap[k] = x[k + 1] - x[k] - r[k] - r[k + 1];
        c->K[k] = K;
        c->e[k] = e;
        c->C[k] = C;
        c->dm[k] = e - 1.0;
    }
    c->force_release = force_release;
}

/* The restitution of a central impact of reduced mass @p mu at the speed V
 * under f = K δⁿ + C δᵐ δ̇ (force release: clipped at 0): two balls of 2μ, the
 * pair integrated at δ* / V / 8000. @return γ⁺/V, its error estimate in *est
 * (relative to V). A wall contact of a body of mass m is the pair at μ = m. */
static inline double refchain_restitution(double K, double n, double C, double dm, int force,
                                          double mu, double V, double *est)
{
    const double m[2] = {2 * mu, 2 * mu}, x[2] = {0.0, 1.0}, r[2] = {0.5, 0.5};
    const double v[2] = {V, 0.0};
    refchain c;
    double vf[2], P[1];
    refchain_init(&c, 2, m, x, r, v, K, n, C, force);
    c.gap[0] = 0.0;
    c.dm[0] = dm;
    double h = refchain_step(&c, V, 8000.0);
    if (refchain_final(&c, h, 1e6 * h, vf, P, est) < 0.0)
        return NAN;
    *est /= V;
    return (vf[1] - vf[0]) / V;
}

#ifdef CRADLE_MODEL_H
/* The chain of a model (its inputs read through the API): 1 when the model is
 * one this integration covers (a chain of at most REFCHAIN_MAX balls, no wall,
 * link, field or fixed body, one release convention), else 0. */
static inline int refchain_from_model(refchain *c, const cr_model *model)
{
    size_t n = cr_model_ball_count(model);
    if (cr_model_dimension(model) != 1 || n < 2 || n > REFCHAIN_MAX ||
        cr_model_body_count(model) != n || cr_model_has_fields(model))
        return 0;
    memset(c, 0, sizeof *c);
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        if (cr_model_is_fixed(model, i))
            return 0;
        c->m[i] = cr_model_mass(model, i);
        c->v[i] = cr_model_velocity(model, i);
    }
    for (size_t k = 0; k + 1 < n; k++) {
        const cr_contact_params *p = cr_model_contact(model, k);
        if (!p || cr_model_link(model, k) || !cr_model_contact_enabled(model, k))
            return 0;
        c->gap[k] = cr_model_position(model, k + 1) - cr_model_position(model, k) -
                    cr_model_radius(model, k) - cr_model_radius(model, k + 1);
        c->K[k] = p->K;
        c->e[k] = p->n;
        c->C[k] = p->C;
        c->dm[k] = p->m;
        if (k > 0 && (p->release == CR_RELEASE_FORCE) != c->force_release)
            return 0;
        c->force_release = p->release == CR_RELEASE_FORCE;
    }
    return 1;
}

/* The reference's final velocities of @p model (struck at speed @p V) at the
 * step δ* / V / 4000 and its estimate; @return max |v − v_ref| / V over the balls
 * for cradle's velocities @p v, NaN when the model is not one refchain covers
 * (or has more than 32 balls) or did not end. */
static inline double refchain_diff(const cr_model *model, const double *v, double V, double *est)
{
    refchain c;
    double vr[REFCHAIN_MAX], P[REFCHAIN_MAX], err = NAN, d = 0.0;
    *est = NAN;
    /* beyond 32 balls the chain takes thousands of contact times to come apart
     * (the solitary wave's tail): not a reference this one gives in seconds */
    if (!refchain_from_model(&c, model) || c.n > 32)
        return NAN;
    double h = refchain_step(&c, V, 4000.0);
    /* an impact of n balls lasts a few n contact times: 100 n of them is the limit */
    if (refchain_final(&c, h, 100.0 * (double)c.n * h * 4000.0, vr, P, &err) < 0.0)
        return NAN;
    for (size_t i = 0; i < c.n; i++)
        d = fmax(d, fabs(v[i] - vr[i]));
    *est = err / V;
    return d / V;
}
#endif

#endif
