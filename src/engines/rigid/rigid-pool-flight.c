/*
 * The rigid pool between impacts: free flight and discs (spheres) resting on
 * walls, in dim D = 2 or 3 (vectors of D components; a wall is a half-plane
 * or a half-space n·p ≥ o).
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
    int D = r->dim;
    const double *pi = &r->p[(size_t)D * i], *vi = &r->v[(size_t)D * i];
    if (j < 0) {
        size_t w = CR_WALL_INDEX(j);
        memcpy(n, &r->wn[(size_t)D * w], (size_t)D * sizeof(double));
        *gap = cr_rp_dot(n, pi, D) - r->radius[i] - r->wo[w];
        *gamma = cr_rp_dot(n, vi, D);
        return;
    }
    const double *pj = &r->p[(size_t)D * (size_t)j], *vj = &r->v[(size_t)D * (size_t)j];
    double dp[3] = {0.0, 0.0, 0.0}, dv[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < D; d++) {
        dp[d] = pj[d] - pi[d];
        dv[d] = vj[d] - vi[d];
    }
    double dist = cr_rp_norm(dp, D);
    for (int d = 0; d < D; d++)
        n[d] = dist > 0.0 ? dp[d] / dist : (d == 0 ? 1.0 : 0.0);
    *gap = dist - r->radius[i] - r->radius[j];
    *gamma = cr_rp_dot(n, dv, D);
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
    int D = r->dim;
    double d[3] = {0.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 0.0}, A[3] = {0.0, 0.0, 0.0};
    double R = r->radius[i] + r->radius[j];
    for (int k = 0; k < D; k++) {
        d[k] = r->p[(size_t)D * j + (size_t)k] - r->p[(size_t)D * i + (size_t)k];
        w[k] = r->v[(size_t)D * j + (size_t)k] - r->v[(size_t)D * i + (size_t)k];
        A[k] = 0.5 * (r->acc[(size_t)D * j + (size_t)k] - r->acc[(size_t)D * i + (size_t)k]);
    }
    double dw = cr_rp_dot(d, w, D);
    if (A[0] == 0.0 && A[1] == 0.0 && A[2] == 0.0 && dw >= 0.0)
        return INFINITY; /* linear relative motion, not approaching: never closes */
    double c[5] = {cr_rp_dot(d, d, D) - R * R, 2.0 * dw,
                   cr_rp_dot(w, w, D) + 2.0 * cr_rp_dot(d, A, D), 2.0 * cr_rp_dot(w, A, D),
                   cr_rp_dot(A, A, D)};
    return first_closing(c, 4, S);
}

/* Closing time of disc i with wall w within S. */
static double wall_closing(const cr_rigid_pool *r, size_t i, size_t w, double S)
{
    size_t D = (size_t)r->dim;
    const double *n = &r->wn[D * w];
    double c[3] = {cr_rp_dot(n, &r->p[D * i], r->dim) - r->radius[i] - r->wo[w],
                   cr_rp_dot(n, &r->v[D * i], r->dim), 0.5 * cr_rp_dot(n, &r->acc[D * i], r->dim)};
    return first_closing(c, 2, S);
}

/* Every disc on its parabola for time s; resting contacts' impulses grow by
 * λ s. */
void cr_rp_advance(cr_rigid_pool *r, double s)
{
    size_t D = (size_t)r->dim;
    for (size_t k = 0; k < D * r->drv.nb; k++) {
        r->p[k] += s * (r->v[k] + 0.5 * s * r->acc[k]);
        r->v[k] += s * r->acc[k];
    }
    for (size_t k = 0; k < r->nc; k++) {
        cr_rp_contact *c = &r->c[k];
        if (!c->closed)
            continue;
        size_t w = CR_WALL_INDEX(c->j);
        const double *n = &r->wn[D * w];
        c->P += c->lambda * s;
        for (size_t d = 0; d < D; d++)
            c->Pv[d] += c->lambda * s * n[d];
        /* on the wall exactly: no drift of the gap over a long slide */
        double *p = &r->p[D * c->i];
        double gap = cr_rp_dot(n, p, r->dim) - r->radius[c->i] - r->wo[w];
        for (size_t d = 0; d < D; d++)
            p[d] -= gap * n[d];
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
    int D = r->dim;
    double gap, n[3], gamma;
    cr_rp_geometry(r, c->i, c->j, &gap, n, &gamma);
    double ia = 1.0 / r->mass[c->i], ib = c->j >= 0 ? 1.0 / r->mass[c->j] : 0.0;
    double P = -gamma / (ia + ib), T0 = 0.0, T1 = 0.0;
    double *va = &r->v[(size_t)D * c->i], *vb = c->j >= 0 ? &r->v[(size_t)D * (size_t)c->j] : NULL;
    T0 = 0.5 * cr_rp_dot(va, va, D) / ia;
    T0 += vb ? 0.5 * cr_rp_dot(vb, vb, D) / ib : 0.0;
    /* the wall's column is +n on the disc, a pair's −n on disc i */
    double sa = c->j >= 0 ? -1.0 : 1.0;
    for (int d = 0; d < D; d++) {
        va[d] += sa * P * ia * n[d];
        if (vb)
            vb[d] += P * ib * n[d];
    }
    T1 = 0.5 * cr_rp_dot(va, va, D) / ia;
    T1 += vb ? 0.5 * cr_rp_dot(vb, vb, D) / ib : 0.0;
    c->P += P;
    for (int d = 0; d < D; d++)
        c->Pv[d] += P * n[d];
    r->drv.dissipated += T0 - T1;
}

/* Walls of disc i in touch (at most 8 looked at: a disc touches at most D
 * independent walls in a corner, more only with repeated walls). */
static size_t walls_in_touch(cr_rigid_pool *r, size_t i, long *ids, size_t cap, int *rc)
{
    size_t n = 0;
    for (size_t w = 0; w < r->nw && n < cap; w++) {
        double gap, nn[3], gamma;
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

/* Forces of three walls (a corner of half-spaces) that bring the normal
 * accelerations to 0: G λ = b with G the Gram matrix of the unit normals, by
 * Cramer's rule; @return 0 when the normals are dependent (one of a smaller
 * set does). */
static int corner_forces(const double *const nrm[3], const double *b, double *lam)
{
    double G[3][3];
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            G[a][c] = cr_rp_dot(nrm[a], nrm[c], 3);
    double det = G[0][0] * (G[1][1] * G[2][2] - G[1][2] * G[2][1]) -
                 G[0][1] * (G[1][0] * G[2][2] - G[1][2] * G[2][0]) +
                 G[0][2] * (G[1][0] * G[2][1] - G[1][1] * G[2][0]);
    if (det < 1e-12)
        return 0;
    for (int col = 0; col < 3; col++) {
        double H[3][3];
        memcpy(H, G, sizeof H);
        for (int a = 0; a < 3; a++)
            H[a][col] = b[a];
        lam[col] = (H[0][0] * (H[1][1] * H[2][2] - H[1][2] * H[2][1]) -
                    H[0][1] * (H[1][0] * H[2][2] - H[1][2] * H[2][0]) +
                    H[0][2] * (H[1][0] * H[2][1] - H[1][1] * H[2][0])) /
                   det;
    }
    return 1;
}

/* Forces of the active set {x}, {x, y} or (3-D) {x, y, z} of disc i's walls
 * (NULL: fewer walls) that bring the normal accelerations to 0; @return 0
 * when a force is negative or the walls are dependent. */
static int active_forces(const cr_rigid_pool *r, size_t i, const double *nx, const double *ny,
                         const double *nz, double *lam)
{
    int D = r->dim;
    double m = r->mass[i], bx = -m * cr_rp_dot(nx, r->g, D);
    lam[0] = bx;
    lam[1] = lam[2] = 0.0;
    if (nz) {
        const double *nrm[3] = {nx, ny, nz};
        double b[3] = {bx, -m * cr_rp_dot(ny, r->g, D), -m * cr_rp_dot(nz, r->g, D)};
        if (!corner_forces(nrm, b, lam))
            return 0;
    } else if (ny) {
        double cxy = cr_rp_dot(nx, ny, D), det = 1.0 - cxy * cxy;
        double by = -m * cr_rp_dot(ny, r->g, D);
        if (det < 1e-12)
            return 0; /* parallel walls: one of them does */
        lam[0] = (bx - cxy * by) / det;
        lam[1] = (by - cxy * bx) / det;
    }
    return lam[0] >= 0.0 && lam[1] >= 0.0 && lam[2] >= 0.0;
}

static const double *wall_normal(const cr_rigid_pool *r, long k)
{
    return &r->wn[(size_t)r->dim * CR_WALL_INDEX(r->c[k].j)];
}

/* Active set (x, y, z) of resting walls, as indices into ids with −1 for
 * none, in increasing order: the sets the LCP tries (z only in 3-D). */
static int active_set_valid(const cr_rigid_pool *r, const int *rest, long x, long y, long z)
{
    if ((x < 0 && y >= 0) || (y < 0 && z >= 0) || (z >= 0 && r->dim < 3))
        return 0;
    return (x < 0 || rest[x]) && (y < 0 || (y > x && rest[y])) && (z < 0 || (z > y && rest[z]));
}

/* The acceleration of disc i under the active set's forces lam; @return 1
 * when it moves the disc into none of its resting walls. */
static int active_accel(const cr_rigid_pool *r, size_t i, const double *const nrm[3],
                        const double *lam, const long *ids, const int *rest, size_t n, double *acc)
{
    int D = r->dim;
    double m = r->mass[i];
    for (int d = 0; d < D; d++) {
        double f = (nrm[0] ? lam[0] * nrm[0][d] : 0.0) + (nrm[1] ? lam[1] * nrm[1][d] : 0.0);
        if (nrm[2])
            f += lam[2] * nrm[2][d];
        acc[d] = r->g[d] + f / m;
    }
    for (size_t q = 0; q < n; q++)
        if (rest[q] && !(cr_rp_dot(wall_normal(r, ids[q]), acc, D) >= -r->a_tol))
            return 0;
    return 1;
}

/* The LCP at acceleration level of disc i on its walls ids in touch (γ
 * already 0 on those marked rest): the first active set, of no wall, one, two
 * or (3-D) three resting walls, whose forces are ≥ 0 and whose acceleration
 * moves the disc into none of the resting walls. At most D walls act; for
 * n ≤ D independent normals one set always qualifies (G is positive
 * definite: the LCP has a solution, found by enumeration). */
static void rest_on_walls(cr_rigid_pool *r, size_t i, const long *ids, const int *rest, size_t n)
{
    double *a = &r->acc[(size_t)r->dim * i];
    for (long x = -1; x < (long)n; x++)
        for (long y = -1; y < (long)n; y++)
            for (long z = -1; z < (long)n; z++) {
                if (!active_set_valid(r, rest, x, y, z))
                    continue;
                double lam[3] = {0.0, 0.0, 0.0}, acc[3] = {0.0, 0.0, 0.0};
                const double *nrm[3] = {x >= 0 ? wall_normal(r, ids[x]) : NULL,
                                        y >= 0 ? wall_normal(r, ids[y]) : NULL,
                                        z >= 0 ? wall_normal(r, ids[z]) : NULL};
                if (nrm[0] && !active_forces(r, i, nrm[0], nrm[1], nrm[2], lam))
                    continue;
                if (!active_accel(r, i, nrm, lam, ids, rest, n, acc))
                    continue;
                memcpy(a, acc, (size_t)r->dim * sizeof(double));
                for (size_t q = 0; q < n; q++) {
                    cr_rp_contact *c = &r->c[ids[q]];
                    long sq = (long)q;
                    c->lambda = sq == x ? lam[0] : sq == y ? lam[1] : sq == z ? lam[2] : 0.0;
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
            double gap, n[3], gamma, da[3] = {0.0, 0.0, 0.0};
            cr_rp_geometry(r, i, (long)j, &gap, n, &gamma);
            if (gap > cr_rp_tolerance(r, i, (long)j))
                continue;
            for (int d = 0; d < r->dim; d++)
                da[d] =
                    r->acc[(size_t)r->dim * j + (size_t)d] - r->acc[(size_t)r->dim * i + (size_t)d];
            double pressed = cr_rp_dot(n, da, r->dim);
            if (check_only && pressed < -r->a_tol && gamma <= r->drv.v_rest) {
                const char *w = cr_rp_body_word(r);
                cr_set_msg(r->drv.err, sizeof r->drv.err,
                           "t = %.9g s: %ss %zu and %zu rest on each other, pressed together "
                           "by gravity (%.3g m/s^2): a rigid pool represents %ss resting on "
                           "walls only, not stacks (run the model compliant)",
                           r->drv.t, w, i, j, -pressed, w);
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
            double gap, nn[3], gamma;
            cr_rp_geometry(r, i, r->c[ids[q]].j, &gap, nn, &gamma);
            double pressed = cr_rp_dot(nn, r->g, r->dim);
            rest[q] = at_rest(r, gamma, pressed);
            if (rest[q])
                land(r, (size_t)ids[q]);
        }
        memcpy(&r->acc[(size_t)r->dim * i], r->g, (size_t)r->dim * sizeof(double));
        for (size_t q = 0; q < r->nbc[i]; q++)
            r->c[r->bc[i][q]].closed = 0;
        if (n)
            rest_on_walls(r, i, ids, rest, n);
    }
    if (rc == CR_ERR_NOMEM)
        cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
    return rc == CR_OK ? discs_at_rest(r, 1) : rc;
}
