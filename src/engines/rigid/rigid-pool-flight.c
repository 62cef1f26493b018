/*
 * The rigid pool between impacts: free flight and discs resting on walls.
 *
 * Free flight is exact: under no field every disc moves on a straight line,
 * under uniform gravity on a parabola, and a disc resting on a wall slides
 * along it with the constant acceleration its wall forces leave. The gap of
 * two discs therefore has the sign of f(s) = |d + w s + ½ A s²|² − R² (d, w,
 * A their relative position, velocity and acceleration; A = 0 unless one of
 * them rests on a wall): a quadratic whose first downward zero has a closed
 * form, a quartic otherwise. The gap of a disc and a wall is the quadratic
 * h + a s + ½ b s². Real roots are found in closed form up to degree 2 and by
 * bracketing between the roots of the derivative above (each bracket is
 * monotone: bisection cannot miss a sign change in it). A contact closes at
 * the first root after which its gap is negative: a near-tangent pass has
 * either no such root or one where it grazes, and a contact in touch that
 * leaves has its root at the start, which never counts, so neither repeats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/rigid/rigid-pool-priv.h"

/* ---- geometry ---------------------------------------------------------------- */

void cr_rp_geometry(const cr_rigid_pool *r, size_t i, long j, double *gap, double *n, double *gamma)
{
    const double *pi = &r->p[2 * i], *vi = &r->v[2 * i];
    if (j < 0) {
        size_t w = CR_WALL_INDEX(j);
        n[0] = r->wn[2 * w];
        n[1] = r->wn[2 * w + 1];
        *gap = n[0] * pi[0] + n[1] * pi[1] - r->radius[i] - r->wo[w];
        *gamma = n[0] * vi[0] + n[1] * vi[1];
        return;
    }
    const double *pj = &r->p[2 * j], *vj = &r->v[2 * j];
    double dx = pj[0] - pi[0], dy = pj[1] - pi[1], dist = hypot(dx, dy);
    n[0] = dist > 0.0 ? dx / dist : 1.0;
    n[1] = dist > 0.0 ? dy / dist : 0.0;
    *gap = dist - r->radius[i] - r->radius[j];
    *gamma = n[0] * (vj[0] - vi[0]) + n[1] * (vj[1] - vi[1]);
}

double cr_rp_tolerance(const cr_rigid_pool *r, size_t i, long j)
{
    return CR_GEOM_TOL * (j >= 0 ? fmin(r->radius[i], r->radius[j]) : r->radius[i]);
}

/* ---- roots of small polynomials -------------------------------------------- */

static double poly_eval(const double *c, int deg, double s)
{
    double f = c[deg];
    for (int k = deg - 1; k >= 0; k--)
        f = f * s + c[k];
    return f;
}

/* Real roots of c0 + c1 s + c2 s² in [lo, hi], sorted; the stable form (no
 * cancellation between −c1 and the square root). */
static int quadratic_roots(const double *c, double lo, double hi, double *out)
{
    double x[2];
    int n = 0;
    if (c[2] == 0.0) {
        if (c[1] != 0.0)
            x[n++] = -c[0] / c[1];
    } else {
        double disc = c[1] * c[1] - 4.0 * c[2] * c[0];
        if (disc < 0.0)
            return 0;
        double q = -0.5 * (c[1] + copysign(sqrt(disc), c[1]));
        if (q != 0.0) {
            x[n++] = q / c[2];
            x[n++] = c[0] / q;
        } else {
            x[n++] = 0.0; /* c0 = c1 = 0: the double root 0 */
        }
    }
    if (n == 2 && x[0] > x[1]) {
        double t = x[0];
        x[0] = x[1];
        x[1] = t;
    }
    int m = 0;
    for (int k = 0; k < n; k++)
        if (x[k] >= lo && x[k] <= hi)
            out[m++] = x[k];
    return m;
}

/* The root in [a, b] of a polynomial monotone there, f(a) f(b) ≤ 0: bisection
 * to the last bit. */
static double bisect(const double *c, int deg, double a, double b)
{
    double fa = poly_eval(c, deg, a);
    for (int it = 0; it < 200; it++) {
        double m = 0.5 * (a + b);
        if (m <= a || m >= b)
            break;
        double fm = poly_eval(c, deg, m);
        if ((fm <= 0.0) == (fa <= 0.0)) {
            a = m;
            fa = fm;
        } else {
            b = m;
        }
    }
    return b;
}

/* Real roots of a polynomial of degree ≤ 4 in [lo, hi] (hi finite above
 * degree 2), sorted: the derivative's roots split [lo, hi] into monotone
 * brackets. A double root (a tangency) is found only where the sign changes. */
static int poly_roots(const double *c, int deg, double lo, double hi, double *out)
{
    while (deg > 0 && c[deg] == 0.0)
        deg--;
    if (deg <= 2) {
        double c3[3] = {c[0], deg >= 1 ? c[1] : 0.0, deg >= 2 ? c[2] : 0.0};
        return deg == 0 ? 0 : quadratic_roots(c3, lo, hi, out);
    }
    double dc[4], crit[4], edge[6];
    for (int k = 1; k <= deg; k++)
        dc[k - 1] = k * c[k];
    int nc = poly_roots(dc, deg - 1, lo, hi, crit), ne = 0, n = 0;
    edge[ne++] = lo;
    for (int k = 0; k < nc; k++)
        edge[ne++] = crit[k];
    edge[ne++] = hi;
    for (int k = 0; k + 1 < ne; k++) {
        double a = edge[k], b = edge[k + 1], fa = poly_eval(c, deg, a), fb = poly_eval(c, deg, b);
        if (fa == 0.0 && (n == 0 || out[n - 1] < a))
            out[n++] = a;
        else if (fa * fb < 0.0)
            out[n++] = bisect(c, deg, a, b);
    }
    if (ne >= 2 && poly_eval(c, deg, hi) == 0.0 && (n == 0 || out[n - 1] < hi))
        out[n++] = hi;
    return n;
}

/* The first s in (0, S] where the gap polynomial c turns negative, or INFINITY. */
static double first_closing(const double *c, int deg, double S)
{
    double roots[4];
    int top = deg;
    while (top > 0 && c[top] == 0.0)
        top--;
    if (top > 2 && !isfinite(S)) { /* Cauchy's bound: every real root lies below it */
        S = 0.0;
        for (int k = 0; k < top; k++)
            S = fmax(S, fabs(c[k] / c[top]));
        S += 1.0;
    }
    int n = poly_roots(c, deg, 0.0, S, roots);
    for (int k = 0; k < n; k++) {
        if (!(roots[k] > 0.0))
            continue;
        double after = k + 1 < n ? poly_eval(c, deg, 0.5 * (roots[k] + roots[k + 1]))
                       : isfinite(S) && S > roots[k] ? poly_eval(c, deg, 0.5 * (roots[k] + S))
                                                     : c[top];
        if (after < 0.0)
            return roots[k];
    }
    return INFINITY;
}

/* Closing time of discs i, j within S (f = |D(s)|² − R², D = d + w s + ½ A s²). */
static double pair_closing(const cr_rigid_pool *r, size_t i, size_t j, double S)
{
    double d[2], w[2], A[2], R = r->radius[i] + r->radius[j];
    for (int k = 0; k < 2; k++) {
        d[k] = r->p[2 * j + k] - r->p[2 * i + k];
        w[k] = r->v[2 * j + k] - r->v[2 * i + k];
        A[k] = 0.5 * (r->acc[2 * j + k] - r->acc[2 * i + k]);
    }
    double dw = d[0] * w[0] + d[1] * w[1];
    if (A[0] == 0.0 && A[1] == 0.0 && dw >= 0.0)
        return INFINITY; /* linear relative motion, not approaching: never closes */
    double c[5] = {d[0] * d[0] + d[1] * d[1] - R * R, 2.0 * dw,
                   w[0] * w[0] + w[1] * w[1] + 2.0 * (d[0] * A[0] + d[1] * A[1]),
                   2.0 * (w[0] * A[0] + w[1] * A[1]), A[0] * A[0] + A[1] * A[1]};
    return first_closing(c, 4, S);
}

/* Closing time of disc i with wall w within S. */
static double wall_closing(const cr_rigid_pool *r, size_t i, size_t w, double S)
{
    const double *n = &r->wn[2 * w];
    double c[3] = {n[0] * r->p[2 * i] + n[1] * r->p[2 * i + 1] - r->radius[i] - r->wo[w],
                   n[0] * r->v[2 * i] + n[1] * r->v[2 * i + 1],
                   0.5 * (n[0] * r->acc[2 * i] + n[1] * r->acc[2 * i + 1])};
    return first_closing(c, 2, S);
}

/* Every disc on its parabola for time s; resting contacts' impulses grow by
 * λ s. */
void cr_rp_advance(cr_rigid_pool *r, double s)
{
    for (size_t k = 0; k < 2 * r->drv.nb; k++) {
        r->p[k] += s * (r->v[k] + 0.5 * s * r->acc[k]);
        r->v[k] += s * r->acc[k];
    }
    for (size_t k = 0; k < r->nc; k++) {
        cr_rp_contact *c = &r->c[k];
        if (!c->closed)
            continue;
        size_t w = CR_WALL_INDEX(c->j);
        c->P += c->lambda * s;
        c->Pv[0] += c->lambda * s * r->wn[2 * w];
        c->Pv[1] += c->lambda * s * r->wn[2 * w + 1];
        /* on the wall exactly: no drift of the gap over a long slide */
        double *p = &r->p[2 * c->i], *n = &r->wn[2 * w];
        double gap = n[0] * p[0] + n[1] * p[1] - r->radius[c->i] - r->wo[w];
        p[0] -= gap * n[0];
        p[1] -= gap * n[1];
    }
}

static int is_closed_wall(const cr_rigid_pool *r, size_t i, size_t w)
{
    for (size_t a = 0; a < r->nbc[i]; a++) {
        const cr_rp_contact *c = &r->c[r->bc[i][a]];
        if (c->closed && c->j == CR_WALL_BODY(w))
            return 1;
    }
    return 0;
}

double cr_rp_next_closing(cr_rigid_pool *r, double S)
{
    double smin = INFINITY;
    for (size_t i = 0; i < r->drv.nb; i++) {
        for (size_t j = i + 1; j < r->drv.nb; j++)
            smin = fmin(smin, pair_closing(r, i, j, fmin(S, smin)));
        for (size_t w = 0; w < r->nw; w++)
            if (!is_closed_wall(r, i, w))
                smin = fmin(smin, wall_closing(r, i, w, fmin(S, smin)));
    }
    r->drv.stats.root_evals++;
    return smin;
}

/* ---- resting discs ------------------------------------------------------------ */

/* A plastic impulse of contact k that brings its γ to 0 (a landing, or the
 * accumulation rule): booked in its impulses and the dissipated work. */
static void land(cr_rigid_pool *r, size_t k)
{
    cr_rp_contact *c = &r->c[k];
    double gap, n[2], gamma;
    cr_rp_geometry(r, c->i, c->j, &gap, n, &gamma);
    double ia = 1.0 / r->mass[c->i], ib = c->j >= 0 ? 1.0 / r->mass[c->j] : 0.0;
    double P = -gamma / (ia + ib), T0 = 0.0, T1 = 0.0;
    double *va = &r->v[2 * c->i], *vb = c->j >= 0 ? &r->v[2 * c->j] : NULL;
    T0 = 0.5 * (va[0] * va[0] + va[1] * va[1]) / ia;
    T0 += vb ? 0.5 * (vb[0] * vb[0] + vb[1] * vb[1]) / ib : 0.0;
    /* the wall's column is +n on the disc, a pair's −n on disc i */
    double sa = c->j >= 0 ? -1.0 : 1.0;
    for (int d = 0; d < 2; d++) {
        va[d] += sa * P * ia * n[d];
        if (vb)
            vb[d] += P * ib * n[d];
    }
    T1 = 0.5 * (va[0] * va[0] + va[1] * va[1]) / ia;
    T1 += vb ? 0.5 * (vb[0] * vb[0] + vb[1] * vb[1]) / ib : 0.0;
    c->P += P;
    c->Pv[0] += P * n[0];
    c->Pv[1] += P * n[1];
    r->drv.dissipated += T0 - T1;
}

/* Walls of disc i in touch (at most 8 looked at: a disc touches at most two
 * non-parallel lines in a corner, more only with repeated walls). */
static size_t walls_in_touch(cr_rigid_pool *r, size_t i, long *ids, size_t cap, int *rc)
{
    size_t n = 0;
    for (size_t w = 0; w < r->nw && n < cap; w++) {
        double gap, nn[2], gamma;
        cr_rp_geometry(r, i, CR_WALL_BODY(w), &gap, nn, &gamma);
        if (gap > cr_rp_tolerance(r, i, CR_WALL_BODY(w)))
            continue;
        long k = cr_rp_contact_id(r, i, CR_WALL_BODY(w));
        if (k < 0) {
            *rc = CR_ERR_NOMEM;
            return 0;
        }
        ids[n++] = k;
    }
    return n;
}

/* Forces of the active set {x} or {x, y} of disc i's walls (y < 0: one wall)
 * that bring the normal accelerations to 0; @return 0 when a force is negative
 * or the walls are parallel. */
static int active_forces(const cr_rigid_pool *r, size_t i, const double *nx, const double *ny,
                         double *lam)
{
    double m = r->mass[i], bx = -m * (nx[0] * r->g[0] + nx[1] * r->g[1]);
    lam[0] = bx;
    lam[1] = 0.0;
    if (ny) {
        double cxy = nx[0] * ny[0] + nx[1] * ny[1], det = 1.0 - cxy * cxy;
        double by = -m * (ny[0] * r->g[0] + ny[1] * r->g[1]);
        if (det < 1e-12)
            return 0; /* parallel walls: one of them does */
        lam[0] = (bx - cxy * by) / det;
        lam[1] = (by - cxy * bx) / det;
    }
    return lam[0] >= 0.0 && lam[1] >= 0.0;
}

static const double *wall_normal(const cr_rigid_pool *r, long k)
{
    return &r->wn[2 * CR_WALL_INDEX(r->c[k].j)];
}

/* The LCP at acceleration level of disc i on its walls ids in touch (γ
 * already 0 on those marked rest): the first active set, of no wall, one or
 * two resting walls, whose forces are ≥ 0 and whose acceleration moves the
 * disc into none of the resting walls. At most two walls act in the plane;
 * for n ≤ 2 independent normals one set always qualifies. */
static void rest_on_walls(cr_rigid_pool *r, size_t i, const long *ids, const int *rest, size_t n)
{
    double m = r->mass[i], *a = &r->acc[2 * i];
    for (long x = -1; x < (long)n; x++)
        for (long y = -1; y < (long)n; y++) {
            if ((x >= 0 && !rest[x]) || (y >= 0 && (y <= x || !rest[y])) || (x < 0 && y >= 0))
                continue;
            double lam[2] = {0.0, 0.0}, acc[2] = {r->g[0], r->g[1]};
            const double *nx = x >= 0 ? wall_normal(r, ids[x]) : NULL;
            const double *ny = y >= 0 ? wall_normal(r, ids[y]) : NULL;
            if (nx && !active_forces(r, i, nx, ny, lam))
                continue;
            for (int d = 0; d < 2; d++)
                acc[d] += ((nx ? lam[0] * nx[d] : 0.0) + (ny ? lam[1] * ny[d] : 0.0)) / m;
            int ok = 1;
            for (size_t q = 0; q < n && ok; q++) {
                const double *nq = wall_normal(r, ids[q]);
                ok = !rest[q] || nq[0] * acc[0] + nq[1] * acc[1] >= -r->a_tol;
            }
            if (!ok)
                continue;
            a[0] = acc[0];
            a[1] = acc[1];
            for (size_t q = 0; q < n; q++) {
                cr_rp_contact *c = &r->c[ids[q]];
                c->lambda = (long)q == x ? lam[0] : ((long)q == y ? lam[1] : 0.0);
                c->closed = c->lambda > 0.0;
            }
            return;
        }
}

/* A contact in touch at rest relative to its bodies: landing speeds (slower
 * than the rest speed) are taken out so nothing sinks; a contact the field
 * presses is brought to rest by the accumulation rule. */
static int at_rest(const cr_rigid_pool *r, double gamma, double pressed)
{
    return (gamma < 0.0 && gamma >= -r->drv.v_rest) ||
           (pressed < -r->a_tol && fabs(gamma) <= r->drv.v_rest);
}

/* Disc pairs in touch at rest: landed; pressed together, refused. */
static int discs_at_rest(cr_rigid_pool *r, int check_only)
{
    for (size_t i = 0; i < r->drv.nb; i++)
        for (size_t j = i + 1; j < r->drv.nb; j++) {
            double gap, n[2], gamma;
            cr_rp_geometry(r, i, (long)j, &gap, n, &gamma);
            if (gap > cr_rp_tolerance(r, i, (long)j))
                continue;
            double pressed = n[0] * (r->acc[2 * j] - r->acc[2 * i]) +
                             n[1] * (r->acc[2 * j + 1] - r->acc[2 * i + 1]);
            if (check_only && pressed < -r->a_tol && gamma <= r->drv.v_rest) {
                cr_set_msg(r->drv.err, sizeof r->drv.err,
                           "t = %.9g s: discs %zu and %zu rest on each other, pressed together "
                           "by gravity (%.3g m/s^2): a rigid pool represents discs resting on "
                           "walls only, not stacks (run the model compliant)",
                           r->drv.t, i, j, -pressed);
                return CR_ERR_SOLVER;
            }
            if (check_only || !at_rest(r, gamma, pressed))
                continue;
            long k = cr_rp_contact_id(r, i, (long)j);
            if (k < 0)
                return CR_ERR_NOMEM;
            land(r, (size_t)k);
        }
    return CR_OK;
}

int cr_rp_settle(cr_rigid_pool *r)
{
    int rc = discs_at_rest(r, 0);
    for (size_t i = 0; i < r->drv.nb && rc == CR_OK; i++) {
        long ids[8];
        int rest[8];
        size_t n = walls_in_touch(r, i, ids, 8, &rc);
        for (size_t q = 0; q < n; q++) {
            double gap, nn[2], gamma;
            cr_rp_geometry(r, i, r->c[ids[q]].j, &gap, nn, &gamma);
            double pressed = nn[0] * r->g[0] + nn[1] * r->g[1];
            rest[q] = at_rest(r, gamma, pressed);
            if (rest[q])
                land(r, (size_t)ids[q]);
        }
        r->acc[2 * i] = r->g[0];
        r->acc[2 * i + 1] = r->g[1];
        for (size_t q = 0; q < r->nbc[i]; q++)
            r->c[r->bc[i][q]].closed = 0;
        if (n)
            rest_on_walls(r, i, ids, rest, n);
    }
    if (rc == CR_ERR_NOMEM)
        cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
    return rc == CR_OK ? discs_at_rest(r, 1) : rc;
}
