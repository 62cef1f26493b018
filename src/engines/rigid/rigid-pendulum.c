/*
 * Exact free flight of pendulums (issue 22, item 6): between impacts a free
 * pendulum ball moves on the closed form of the pendulum equation, and the
 * first closing of a pair is found on those closed forms, with no step size
 * and no integration error.
 *
 * A ball on a string of length L (θ = (x0 + d − pivot)/L, θ'' = −ω² sin θ,
 * ω² = g/L) librating with modulus k = sin(θmax/2) < 1 moves as
 *     sin(θ/2) = k sn(u, k),  θ' = 2kω cn(u, k),  u = u0 + ω(t − t0)
 * (Jacobi's elliptic functions; dn(u) = cos(θ/2)), from which the energy
 * θ'²/(4ω²) + sin²(θ/2) = k² follows. The phase u0 is the incomplete
 * integral F(φ0, k) of the amplitude φ0 = atan2(sin(θ0/2), θ0'/(2ω)): read
 * from both sn and cn, it stays well conditioned at the turning points, where
 * asin(sin(θ0/2)/k) would lose half the digits. GSL computes sn, cn, dn
 * (descending Landen) and F (Carlson's R_F).
 *
 * The first closing of pair c is found by conservative advancement: from a
 * time s with gap g > 0 and rate ġ, no zero comes before τ* (a lower bound
 * from a bound on g̈), so the gap is evaluated at s + τ*, and so on. Near a
 * transversal zero this converges quadratically from above, never past it.
 * Two bounds, the larger step taken:
 *   A: |g̈| ≤ A, the largest field accelerations of the two balls: τ* solves
 *      g + ġτ − ½Aτ² = 0;
 *   B: two balls on equal strings (same L, g): g̈ = −g(sin θ₂ − sin θ₁) and
 *      |sin θ₂ − sin θ₁| ≤ |θ₂ − θ₁| = |g + S|/L (S constant), so
 *      g̈ ≥ −ω²(g + |S|) and, by comparison with h'' = −ω²(h + |S|), g ≥ h
 *      for ωτ ≤ π: τ* is h's first zero. This bound does not crawl when two
 *      balls swing side by side a hair apart (a cradle's usual state), where
 *      bound A would take steps of √(2g/A).
 * A flight this does not cover (a closed pair, uniform gravity, a ball near or
 * over the top, too many advancement steps) returns CR_RIGID_NOT_EXACT and is
 * flown by CVODES (rigid-flight.c).
 */
#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_mode.h>
#include <gsl/gsl_sf_ellint.h>
#include <gsl/gsl_sf_elljac.h>
#include <math.h>
#include <stdlib.h>

#include "engines/rigid/rigid-priv.h"

/* C11 has no M_PI (a POSIX XSI name) */
#define ELL_PI 3.14159265358979323846

/* Above this modulus (θmax ≈ 163°) the flight goes to CVODES: near the
 * separatrix K(k) grows without bound and F loses accuracy. */
#define ELL_K_MAX 0.99
/* Advancement steps of one pair within one flight before it is left to CVODES. */
#define ELL_MAX_STEPS 20000

/* The closed form of one body's motion since t0. */
typedef struct {
    int kind;                   /* ELL_FIXED, ELL_LINE (no field), ELL_PENDULUM */
    double t0, d0, v0;          /* ELL_LINE */
    double k, m, w, u0, L, off; /* ELL_PENDULUM: θ = (off + d)/L */
    double amax;                /* the largest |field acceleration| on the orbit */
    /* the last two evaluations (ell_at): a ball between two pairs is asked
     * for the same time by both, and a flight starts where the last ended */
    double memo_t[2], memo_d[2], memo_v[2];
    int memo_next;
} ell_body;

enum { ELL_FIXED, ELL_LINE, ELL_PENDULUM };

typedef struct {
    ell_body *b;
    int valid; /* the closed forms describe the state the engine has */
} ell_cache;

/* A body's closed form from its state now; 0 when no closed form fits. */
static int ell_from_state(const cr_rigid *r, size_t i, ell_body *e)
{
    e->memo_t[0] = e->memo_t[1] = NAN;
    e->memo_next = 0;
    e->t0 = r->drv.t;
    if (r->fixed[i]) {
        e->kind = ELL_FIXED;
        e->amax = 0.0;
        return 1;
    }
    if (r->plength[i] <= 0.0) {
        e->kind = ELL_LINE;
        e->d0 = r->d[i];
        e->v0 = r->v[i];
        e->amax = 0.0;
        return 1;
    }
    e->kind = ELL_PENDULUM;
    e->L = r->plength[i];
    e->off = r->x0[i] - r->pivot[i];
    e->w = sqrt(r->pg[i] / e->L);
    double th = (e->off + r->d[i]) / e->L, s = sin(0.5 * th), c = r->v[i] / (2.0 * e->w * e->L);
    e->k = hypot(s, c);
    if (!(e->k <= ELL_K_MAX) || fabs(th) >= ELL_PI)
        return 0;
    e->m = e->k * e->k;
    gsl_sf_result F;
    /* F(φ, k) reduces φ by multiples of π itself (F(φ + π) = F(φ) + 2K) */
    if (e->k > 0.0 && gsl_sf_ellint_F_e(atan2(s, c), e->k, GSL_PREC_DOUBLE, &F) != GSL_SUCCESS)
        return 0;
    e->u0 = e->k > 0.0 ? F.val : 0.0;
    /* |sin θ| on the orbit: sin θmax = 2k√(1 − k²) below θmax = π/2, else 1 */
    double smax = e->k * e->k <= 0.5 ? 2.0 * e->k * sqrt(1.0 - e->m) : 1.0;
    e->amax = r->pg[i] * smax;
    return 1;
}

/* Displacement and velocity of a body at time t. */
static void ell_at(ell_body *e, double t, double *d, double *v)
{
    if (e->kind == ELL_FIXED) {
        *d = 0.0;
        *v = 0.0;
    } else if (e->kind == ELL_LINE) {
        *d = e->d0 + e->v0 * (t - e->t0);
        *v = e->v0;
    } else {
        for (int k = 0; k < 2; k++)
            if (e->memo_t[k] == t) {
                *d = e->memo_d[k];
                *v = e->memo_v[k];
                return;
            }
        double sn = 0.0, cn = 1.0, dn = 1.0;
        if (e->k > 0.0)
            gsl_sf_elljac_e(e->u0 + e->w * (t - e->t0), e->m, &sn, &cn, &dn);
        *d = 2.0 * e->L * asin(e->k * sn) - e->off;
        *v = 2.0 * e->L * e->k * e->w * cn;
        int k = e->memo_next;
        e->memo_t[k] = t;
        e->memo_d[k] = *d;
        e->memo_v[k] = *v;
        e->memo_next = 1 - k;
    }
}

/* Bound B's constant S = L(θ₂ − θ₁) − g, or NAN when the strings differ. */
static double twin_offset(const cr_rigid *r, size_t c, const ell_body *a, const ell_body *b)
{
    if (a->kind != ELL_PENDULUM || b->kind != ELL_PENDULUM || a->L != b->L ||
        r->pg[c] != r->pg[c + 1])
        return NAN;
    /* θ₂ − θ₁ = (off₂ + d₂ − off₁ − d₁)/L and g = g0 + d₂ − d₁ */
    return b->off - a->off - r->g0[c];
}

/* A closed pair whose balls hang on equal strings at one angle (S = 0: a
 * cradle's balls touching at rest, or swinging as a block) and move alike:
 * each follows its own closed form, the same one, so the pair force stays
 * zero and the pair closed, which is what the CVODES flight would find. */
static int twins_together(const cr_rigid *r, size_t c, const ell_body *a, const ell_body *b)
{
    double S = twin_offset(r, c, a, b);
    return !isnan(S) && fabs(S) <= r->tol[c] && fabs(r->v[c + 1] - r->v[c]) <= r->drv.v_rest &&
           fabs(a->k - b->k) <= 1e-12 && fabs(a->u0 - b->u0) <= 1e-12;
}

/* The lower bound on the time to the next zero of a gap g ≥ 0 with rate gd. */
static double safe_step(double g, double gd, double A, double S, double w)
{
    double tau = gd < 0.0 ? g / -gd : INFINITY;
    if (A > 0.0)
        tau = (gd + sqrt(gd * gd + 2.0 * A * g)) / A;
    if (!isnan(S)) {
        double a = g + fabs(S), R = hypot(a, gd / w), psi = atan2(gd / w, a);
        double tb = R > 0.0 ? (psi + acos(fmin(1.0, fabs(S) / R))) / w : INFINITY;
        tau = fmax(tau, fmin(tb, ELL_PI / w));
    }
    return tau;
}

/* The first time in (t0, t_target] where pair c closes, INFINITY when it
 * does not; NAN when the advancement gave up. */
static double first_closing(const cr_rigid *r, size_t c, ell_body *a, ell_body *b, double t_target)
{
    double A = a->amax + b->amax, S = twin_offset(r, c, a, b);
    double w = a->kind == ELL_PENDULUM ? a->w : b->w;
    double s = r->drv.t, resolution = 4.0 * DBL_EPSILON * fmax(fabs(t_target), r->drv.T);
    for (int it = 0; it < ELL_MAX_STEPS; it++) {
        double da, va, db, vb;
        ell_at(a, s, &da, &va);
        ell_at(b, s, &db, &vb);
        double g = r->g0[c] + db - da, gd = vb - va;
        /* converged from above onto a zero (not at the flight's start, where
         * the pair may be in touch and separating) */
        if (s > r->drv.t && (g <= 1e-6 * r->tol[c] || (g <= r->tol[c] && gd < 0.0)))
            return s;
        if (g < 0.0 && gd < 0.0)
            return s;
        double tau = safe_step(fmax(g, 0.0), gd, A, S, w);
        if (!(tau > resolution)) {
            if (g <= r->tol[c] && gd < 0.0)
                return s;
            if (g <= r->tol[c] && gd == 0.0 && A == 0.0)
                return INFINITY; /* resting in touch, no field: nothing moves it */
            return NAN;          /* a double zero (grazing): CVODES decides */
        }
        if (s + tau >= t_target)
            return INFINITY;
        s += tau;
    }
    return NAN;
}

static ell_cache *cache_of(cr_rigid *r)
{
    ell_cache *e = r->ell;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (e)
            e->b = calloc(r->drv.nb, sizeof(ell_body));
        if (!e || !e->b) {
            free(e);
            return NULL;
        }
        r->ell = e;
    }
    return e;
}

/* Every closed pair joins two balls on equal strings at one angle moving
 * alike, read from the model and the velocities: checked before the closed
 * forms are built, so a flight CVODES must fly costs no elliptic integrals
 * (twins_together then compares the orbits themselves). */
static int closed_pairs_level(const cr_rigid *r)
{
    for (size_t c = 0; c < r->nc; c++) {
        if (!r->closed[c])
            continue;
        double S = (r->x0[c + 1] - r->pivot[c + 1]) - (r->x0[c] - r->pivot[c]) - r->g0[c];
        if (r->fixed[c] || r->fixed[c + 1] || !(r->plength[c] > 0.0) ||
            r->plength[c] != r->plength[c + 1] || r->pg[c] != r->pg[c + 1] ||
            !(fabs(S) <= r->tol[c]) || !(fabs(r->v[c + 1] - r->v[c]) <= r->drv.v_rest))
            return 0;
    }
    return 1;
}

/* The flight is exact: no uniform field, no closed pair, every ball's orbit a
 * libration with a modulus below ELL_K_MAX (closed forms built from the state
 * when the engine changed it). */
static int exact_possible(cr_rigid *r, ell_cache *e)
{
    if (r->gravity != 0.0 || !closed_pairs_level(r))
        return 0;
    if (!e->valid)
        for (size_t i = 0; i < r->drv.nb; i++)
            if (!ell_from_state(r, i, &e->b[i]))
                return 0;
    for (size_t c = 0; c < r->nc; c++)
        if (r->closed[c] && !twins_together(r, c, &e->b[c], &e->b[c + 1]))
            return 0;
    e->valid = 1;
    return 1;
}

int cr_rigid_fly_elliptic(cr_rigid *r, double t_target, int *hit)
{
    ell_cache *e = cache_of(r);
    if (!e)
        return CR_ERR_NOMEM;
    if (!exact_possible(r, e)) {
        e->valid = 0;
        return CR_RIGID_NOT_EXACT;
    }
    double t = t_target;
    for (size_t c = 0; c < r->nc; c++) {
        if (!r->on[c] || r->closed[c])
            continue;
        double tc = first_closing(r, c, &e->b[c], &e->b[c + 1], fmin(t, t_target));
        if (isnan(tc))
            return CR_RIGID_NOT_EXACT;
        t = fmin(t, tc);
    }
    *hit = t < t_target;
    for (size_t i = 0; i < r->drv.nb; i++)
        if (!r->fixed[i])
            ell_at(&e->b[i], t, &r->d[i], &r->v[i]);
    r->drv.t = t;
    r->drv.stats.steps++;
    cr_rigid_forces(r, r->d, r->acc, r->lambda);
    return CR_OK;
}

void cr_rigid_elliptic_touch(cr_rigid *r)
{
    if (r->ell)
        ((ell_cache *)r->ell)->valid = 0;
}

void cr_rigid_elliptic_free(cr_rigid *r)
{
    ell_cache *e = r->ell;
    if (e)
        free(e->b);
    free(e);
    r->ell = NULL;
}
