/*
 * An independent reference for a long Hertz chain's traversal, written for the
 * tests and benchmarks and sharing no code with cradle: the discrete solitary
 * wave that a striker launches into a chain of equal touching beads, from a
 * tight integration of a short chain (GSL odeiv2, rk8pd: Prince-Dormand 8(9),
 * against cradle's ERK 5(4) and Adams), extrapolated along the chain by its
 * speed.
 *
 * The chain (equal masses m, Hertz law f = K δ^(3/2), no damping) is written
 * in its own scaled variables: overlaps by δ* = (μV²/K)^(2/5) with μ = m/2,
 * velocities by the striker's V, time by T = δ* / V. Then
 *   dδ_c/dt = v_c − v_(c+1),   dv_i/dt = (f_(i−1) − f_i) / 2,   f = max(δ, 0)^(3/2)
 * with no parameter left: every such chain is the same problem. The
 * integration starts at the striker's closing (t = 0: striker at 1, every
 * overlap 0), so the only kink of the force at the start is at t = 0, and no
 * event is crossed afterwards until the wave leaves a bead behind.
 *
 * Extrapolation: after some tens of beads the leading pulse is the discrete
 * solitary wave (the trailing waves are slower and separate from it; with no
 * precompression the chain has no linear waves to radiate): bead k's velocity
 * is then bead j's delayed by (k − j)τ, τ the wave's time per bead. τ is
 * fitted by least squares to the times of the velocity peaks of beads
 * REFWAVE_FIT_LO … REFWAVE_FIT_HI (each located by regula falsi on
 * δ_(k−1) − δ_k, which is zero where bead k's acceleration is), and the fit's
 * largest residual says how steady the wave is there.
 */
#ifndef CRADLE_REFWAVE_H
#define CRADLE_REFWAVE_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REFWAVE_N 200     /* beads of the short chain */
#define REFWAVE_FIT_LO 80 /* beads whose peaks fit τ */
#define REFWAVE_FIT_HI 160
#define REFWAVE_J0 150 /* the bead the long chain's pulse is mapped onto */
#define REFWAVE_EPS 1e-14

typedef struct {
    double tau;      /* the wave's time per bead, in T */
    double t_j0;     /* the time of bead REFWAVE_J0's velocity peak, in T */
    double fit_res;  /* the largest residual of the peak times' fit, in T */
    double tau_diff; /* τ from the fit's first half minus its second half */
    /* velocities (in V) of beads 0 … REFWAVE_N − 1 and overlaps (in δ*) of
     * contacts 0 … REFWAVE_N − 2 at t_j0 */
    double v[REFWAVE_N], d[REFWAVE_N - 1];
    double amax; /* the largest |dv/dt| of a bead then, in V/T */
} refwave;

static int refwave_rhs_(double t, const double *y, double *dy, void *p)
{
    (void)t, (void)p;
    const double *d = y, *v = y + REFWAVE_N - 1;
    double *dd = dy, *dv = dy + REFWAVE_N - 1, fprev = 0.0;
    for (size_t c = 0; c + 1 < REFWAVE_N; c++) {
        double f = d[c] > 0.0 ? d[c] * sqrt(d[c]) : 0.0;
        dd[c] = v[c] - v[c + 1];
        dv[c] = 0.5 * (fprev - f);
        fprev = f;
    }
    dv[REFWAVE_N - 1] = 0.5 * fprev;
    return GSL_SUCCESS;
}

#define REFWAVE_DIM (2 * REFWAVE_N - 1)

/* y from t to t1 by a fresh driver (so that every call is the same
 * integration whatever came before). */
static inline int refwave_advance_(double *t, double t1, double *y)
{
    gsl_odeiv2_system sys = {refwave_rhs_, NULL, REFWAVE_DIM, NULL};
    gsl_odeiv2_driver *d =
        gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3, REFWAVE_EPS, REFWAVE_EPS);
    if (!d)
        return GSL_ENOMEM;
    gsl_odeiv2_driver_set_nmax(d, 0);
    int rc = gsl_odeiv2_driver_apply(d, t, t1, y);
    gsl_odeiv2_driver_free(d);
    return rc;
}

/* Bead k's peak: the root of δ_(k−1) − δ_k in (ta, tb), where it turns from
 * positive to negative, by the Illinois variant of regula falsi from the state
 * ya at ta. Returns the time; y gets the state there. */
static inline double refwave_peak_(size_t k, double ta, const double *ya, double tb, double *y)
{
    double yb[REFWAVE_DIM];
    double t = ta;
    memcpy(yb, ya, sizeof yb);
    refwave_advance_(&t, tb, yb);
    double ga = ya[k - 1] - ya[k], gb = yb[k - 1] - yb[k];
    double a = ta, b = tb;
    int side = 0;
    for (int it = 0; it < 100 && b - a > 4e-16 * b; it++) {
        double tm = (a * gb - b * ga) / (gb - ga);
        memcpy(y, ya, sizeof yb);
        t = ta;
        refwave_advance_(&t, tm, y);
        double gm = y[k - 1] - y[k];
        if (gm == 0.0)
            return tm;
        if ((gm > 0) == (ga > 0)) {
            a = tm, ga = gm;
            if (side == -1)
                gb *= 0.5;
            side = -1;
        } else {
            b = tm, gb = gm;
            if (side == 1)
                ga *= 0.5;
            side = 1;
        }
    }
    memcpy(y, ya, sizeof yb);
    t = ta;
    double tm = 0.5 * (a + b);
    refwave_advance_(&t, tm, y);
    return tm;
}

/* Integrates the short chain, locates its beads' peaks, fits τ and keeps
 * the velocities at bead REFWAVE_J0's peak. 0 on success. */
static inline int refwave_build(refwave *w)
{
    double y[REFWAVE_DIM], ypk[REFWAVE_DIM], tpk[REFWAVE_N], yj0[REFWAVE_DIM];
    memset(y, 0, sizeof y);
    y[REFWAVE_N - 1] = 1.0; /* the striker */
    double t = 0.0, dt = 0.05;
    size_t k = REFWAVE_FIT_LO;
    while (k <= REFWAVE_FIT_HI) {
        if (t > 10.0 * REFWAVE_N) /* the wave takes ~3 T a bead */
            return -1;
        double ya[REFWAVE_DIM], ta = t;
        memcpy(ya, y, sizeof y);
        if (refwave_advance_(&t, ta + dt, y) != GSL_SUCCESS)
            return -1;
        /* every bead whose peak falls in (ta, t): one at a time, in order */
        while (k <= REFWAVE_FIT_HI && ya[k - 1] - ya[k] > 0.0 && y[k - 1] - y[k] <= 0.0) {
            tpk[k] = refwave_peak_(k, ta, ya, t, ypk);
            if (k == REFWAVE_J0) {
                memcpy(yj0, ypk, sizeof yj0);
                memcpy(w->d, ypk, sizeof w->d);
                memcpy(w->v, ypk + REFWAVE_N - 1, sizeof w->v);
                w->t_j0 = tpk[k];
            }
            k++;
        }
    }
    /* least squares t_k = a + τ k over the fit's beads, and over each half */
    double tau[3] = {0, 0, 0}, a = 0.0;
    size_t lo[3] = {REFWAVE_FIT_LO, REFWAVE_FIT_LO, (REFWAVE_FIT_LO + REFWAVE_FIT_HI) / 2};
    size_t hi[3] = {REFWAVE_FIT_HI, (REFWAVE_FIT_LO + REFWAVE_FIT_HI) / 2, REFWAVE_FIT_HI};
    for (int f = 0; f < 3; f++) {
        double n = (double)(hi[f] - lo[f] + 1), sk = 0, st = 0, skk = 0, skt = 0;
        for (size_t j = lo[f]; j <= hi[f]; j++) {
            double kk = (double)j - (double)lo[f], tt = tpk[j] - tpk[lo[f]];
            sk += kk, st += tt, skk += kk * kk, skt += kk * tt;
        }
        tau[f] = (n * skt - sk * st) / (n * skk - sk * sk);
        if (f == 0)
            a = (st - tau[0] * sk) / n + tpk[lo[0]];
    }
    double dv[REFWAVE_DIM];
    refwave_rhs_(0.0, yj0, dv, NULL);
    w->amax = 0.0;
    for (size_t i = 0; i < REFWAVE_N; i++)
        w->amax = fmax(w->amax, fabs(dv[REFWAVE_N - 1 + i]));
    w->tau = tau[0];
    w->tau_diff = tau[1] - tau[2];
    w->fit_res = 0.0;
    for (size_t j = REFWAVE_FIT_LO; j <= REFWAVE_FIT_HI; j++)
        w->fit_res =
            fmax(w->fit_res, fabs(tpk[j] - (a + tau[0] * ((double)j - (double)REFWAVE_FIT_LO))));
    return 0;
}

/* The time (in T, from the striker's closing) when bead k ≥ REFWAVE_J0 of a
 * long chain has its velocity peak. */
static inline double refwave_peak_time(const refwave *w, size_t k)
{
    return w->t_j0 + (double)(k - REFWAVE_J0) * w->tau;
}

/* Bead i's velocity (in V) at refwave_peak_time(w, k) in a long chain, for
 * beads near the pulse (|i − k| < REFWAVE_J0 − REFWAVE_FIT_LO, i < k + 40). */
static inline double refwave_velocity(const refwave *w, size_t k, size_t i)
{
    return w->v[i + REFWAVE_J0 - k];
}

#endif
