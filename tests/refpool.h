/*
 * An independent integration of a compliant pool of discs in the plane,
 * written for the tests and sharing no code with cradle (the 2-D sibling of
 * refchain.h): discs i, j in contact when δ = rᵢ + rⱼ − |xⱼ − xᵢ| > 0, the
 * force f = K δⁿ + C δᵐ δ̇ (clipped at 0 under the `force` release) along the
 * normal n = (xⱼ − xᵢ)/|xⱼ − xᵢ| of the moment (turning normals), δ̇ = −n·(vⱼ − vᵢ);
 * every pair is tested at every stage (no neighbour list). Classical RK4 at a
 * fixed step, a step across a closing, opening or release halved down to 2^-20
 * of it (bisection in place of event location), until every pair is open and
 * no pair will meet again in free flight. refpool_final runs at h and h/2 and
 * returns the h/2 velocities with their difference as its error estimate.
 */
#ifndef CRADLE_REFPOOL_H
#define CRADLE_REFPOOL_H

#include <math.h>
#include <string.h>

#include "refforce.h"

#define REFPOOL_MAX 16

typedef struct {
    size_t n;
    double m[REFPOOL_MAX], r[REFPOOL_MAX];
    double x[2 * REFPOOL_MAX], v[2 * REFPOOL_MAX]; /* at t = 0 */
    double K, e, C, dm;                            /* one law for every pair */
    int force_release;
} refpool;

/* Pair (i, j)'s overlap δ and rate δ̇ at (x, v). */
static inline void refpool_pair_(const refpool *c, size_t i, size_t j, const double *x,
                                 const double *v, double *delta, double *rate, double *nx,
                                 double *ny)
{
    double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1], d = hypot(dx, dy);
    *nx = dx / d;
    *ny = dy / d;
    *delta = c->r[i] + c->r[j] - d;
    *rate = -(*nx * (v[2 * j] - v[2 * i]) + *ny * (v[2 * j + 1] - v[2 * i + 1]));
}

/* Accelerations a from (x, v). */
static inline void refpool_accel_(const refpool *c, const double *x, const double *v, double *a)
{
    for (size_t k = 0; k < 2 * c->n; k++)
        a[k] = 0.0;
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = i + 1; j < c->n; j++) {
            double d, rate, nx, ny;
            refpool_pair_(c, i, j, x, v, &d, &rate, &nx, &ny);
            if (d <= 0.0)
                continue;
            double f = ref_force(c->K, c->e, c->C, c->dm, c->force_release, d, rate);
            a[2 * i] -= f * nx / c->m[i];
            a[2 * i + 1] -= f * ny / c->m[i];
            a[2 * j] += f * nx / c->m[j];
            a[2 * j + 1] += f * ny / c->m[j];
        }
}

/* Whether a pair closed, opened or released between (x0, v0) and (x1, v1):
 * its overlap changed sign, or (force release) its un-clipped force did. A
 * change of the overlap by less than 1e-12 of the radii is roundoff of the
 * positions (a touching row placed 2R apart, a precursor creeping ahead of a
 * pulse) and refines nothing. */
static inline int refpool_changed_(const refpool *c, const double *x0, const double *v0,
                                   const double *x1, const double *v1)
{
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = i + 1; j < c->n; j++) {
            double d0, d1, r0, r1, nx, ny;
            refpool_pair_(c, i, j, x0, v0, &d0, &r0, &nx, &ny);
            refpool_pair_(c, i, j, x1, v1, &d1, &r1, &nx, &ny);
            if (fabs(d1 - d0) <= 1e-12 * (c->r[i] + c->r[j]))
                continue;
            if ((d0 > 0.0) != (d1 > 0.0))
                return 1;
            if (c->force_release && c->C != 0.0 && d0 > 0.0 && d1 > 0.0 &&
                (ref_force_raw(c->K, c->e, c->C, c->dm, d0, r0) < 0.0) !=
                    (ref_force_raw(c->K, c->e, c->C, c->dm, d1, r1) < 0.0))
                return 1;
        }
    return 0;
}

static inline void refpool_rk4_(const refpool *c, double h, double *x, double *v)
{
    size_t N = 2 * c->n;
    double xs[2 * REFPOOL_MAX], vs[2 * REFPOOL_MAX];
    double kx[4][2 * REFPOOL_MAX], kv[4][2 * REFPOOL_MAX];
    static const double stage[4] = {0.0, 0.5, 0.5, 1.0}, weight[4] = {1, 2, 2, 1};
    for (int s = 0; s < 4; s++) {
        for (size_t k = 0; k < N; k++) {
            xs[k] = x[k] + (s ? stage[s] * h * kx[s - 1][k] : 0.0);
            vs[k] = v[k] + (s ? stage[s] * h * kv[s - 1][k] : 0.0);
        }
        refpool_accel_(c, xs, vs, kv[s]);
        memcpy(kx[s], vs, N * sizeof(double));
    }
    for (size_t k = 0; k < N; k++) {
        double dx = 0.0, dv = 0.0;
        for (int s = 0; s < 4; s++) {
            dx += weight[s] * kx[s][k];
            dv += weight[s] * kv[s][k];
        }
        x[k] += h / 6.0 * dx;
        v[k] += h / 6.0 * dv;
    }
}

static inline void refpool_step_(const refpool *c, double h, int depth, double *x, double *v)
{
    size_t N = 2 * c->n;
    double x1[2 * REFPOOL_MAX], v1[2 * REFPOOL_MAX];
    memcpy(x1, x, N * sizeof(double));
    memcpy(v1, v, N * sizeof(double));
    refpool_rk4_(c, h, x1, v1);
    if (depth < 20 && refpool_changed_(c, x, v, x1, v1)) {
        refpool_step_(c, 0.5 * h, depth + 1, x, v);
        refpool_step_(c, 0.5 * h, depth + 1, x, v);
        return;
    }
    memcpy(x, x1, N * sizeof(double));
    memcpy(v, v1, N * sizeof(double));
}

/* 1 when every pair is open and none will come within contact in free flight. */
static inline int refpool_done_(const refpool *c, const double *x, const double *v)
{
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = i + 1; j < c->n; j++) {
            double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
            double wx = v[2 * j] - v[2 * i], wy = v[2 * j + 1] - v[2 * i + 1];
            double s = c->r[i] + c->r[j], dd = dx * dx + dy * dy, dw = dx * wx + dy * wy;
            double ww = wx * wx + wy * wy;
            if (dd <= s * s)
                return 0;
            if (dw < 0.0 && ww > 0.0 && dd - dw * dw / ww <= s * s)
                return 0;
        }
    return 1;
}

/* With every pair open: the time to the first closing in free flight (∞: none);
 * 0 when a pair is closed. */
static inline double refpool_next_contact_(const refpool *c, const double *x, const double *v)
{
    double t = INFINITY;
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = i + 1; j < c->n; j++) {
            double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
            double wx = v[2 * j] - v[2 * i], wy = v[2 * j + 1] - v[2 * i + 1];
            double s = c->r[i] + c->r[j], cc = dx * dx + dy * dy - s * s;
            double b = dx * wx + dy * wy, a = wx * wx + wy * wy;
            /* touching to roundoff and not approaching (discs placed 2R apart
             * in floating point): a negligible force, no contact */
            if (cc <= 0.0 && (b < 0.0 || cc < -1e-12 * s * s))
                return 0.0;
            if (b >= 0.0 || a == 0.0 || b * b - a * cc < 0.0)
                continue;
            t = fmin(t, (-b - sqrt(b * b - a * cc)) / a);
        }
    return t;
}

/* One run at step h: final velocities @p v (2n); the end time, −1 past t_max
 * (free flight between contacts taken in one exact move). */
static inline double refpool_run(const refpool *c, double h, double t_max, double *v)
{
    double x[2 * REFPOOL_MAX];
    memcpy(x, c->x, 2 * c->n * sizeof(double));
    memcpy(v, c->v, 2 * c->n * sizeof(double));
    for (double t = 0.0; t < t_max; t += h) {
        /* all pairs open: free flight, exact, to a step before the next closing */
        double t_hit = refpool_next_contact_(c, x, v);
        if (t_hit > 2.0 * h && isfinite(t_hit)) {
            for (size_t k = 0; k < 2 * c->n; k++)
                x[k] += v[k] * (t_hit - h);
            t += t_hit - h;
        }
        refpool_step_(c, h, 0, x, v);
        if (refpool_done_(c, x, v))
            return t + h;
    }
    return -1.0;
}

/* The runs at h and h/2: the h/2 velocities, their largest difference in *err. */
static inline double refpool_final(const refpool *c, double h, double t_max, double *v, double *err)
{
    double v1[2 * REFPOOL_MAX];
    double t1 = refpool_run(c, h, t_max, v1), t2 = refpool_run(c, 0.5 * h, t_max, v);
    *err = 0.0;
    for (size_t k = 0; k < 2 * c->n; k++)
        *err = fmax(*err, fabs(v[k] - v1[k]));
    return t1 < 0.0 ? -1.0 : t2;
}

/* The step: the contact time scale (μ V² / K)^(1/(n+1)) / V of the lightest
 * pair at the speed V, divided by @p per. */
static inline double refpool_step(const refpool *c, double V, double per)
{
    double mmin = INFINITY;
    for (size_t i = 0; i < c->n; i++)
        mmin = fmin(mmin, c->m[i]);
    return pow(0.5 * mmin * V * V / c->K, 1.0 / (c->e + 1.0)) / V / per;
}

#endif
