/*
 * The pool's right-hand sides: the discs' motion under the contact forces and
 * gravity, and the quadratures (impulses, dissipated work); and the check of
 * the analytic Jacobian against central differences of the first.
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_sparse.h>

/* Adds contact k's force to the compact derivative yd; -1 if not finite. */
static int contact_rhs(const cr_pool *p, const double *y, const cr_pool_contact *k, double *yd)
{
    if (cr_pl_surely_open(p, y, k))
        return 0;
    double delta, rate, n[3] = {0}, dist;
    cr_pl_geom(p, y, k, &delta, &rate, n, &dist);
    double f = cr_contact_force_inline(cr_pl_law(p, k), delta, rate);
    if (!isfinite(f))
        return -1;
    if (f == 0.0)
        return 0;
    size_t i = (size_t)k->i, dim = (size_t)p->dim;
    double *ai = yd + p->sd * cr_pl_cpos(p, i) + dim; /* disc i's velocity rows */
    if (cr_pl_is_wall(k)) {
        for (size_t d = 0; d < dim; d++)
            ai[d] += p->accel[i] * f * n[d];
    } else {
        size_t j = (size_t)k->j;
        double *aj = yd + p->sd * cr_pl_cpos(p, j) + dim;
        for (size_t d = 0; d < dim; d++) {
            aj[d] += p->accel[j] * f * n[d];
            ai[d] -= p->accel[i] * f * n[d];
        }
    }
    return 0;
}

/* In a region only the contacts between active discs (those with quadrature
 * slots: warm) exert forces; a contact reaching outside closes as an event
 * first, and the region grows (handle_roots). */
int cr_pl_rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    const cr_pool *p = user;
    const double *yc = N_VGetArrayPointer(yv), *y = cr_pl_full_state(p, t, yv);
    double *yd = N_VGetArrayPointer(ydv);
    /* gravity is constant: it enters the RHS, never the Jacobian */
    size_t dim = (size_t)p->dim, sd = p->sd;
    double g[3] = {0};
    for (size_t d = 0; d < dim; d++)
        g[d] = p->g[d] * p->T / p->V;
    for (size_t a = 0; a < p->na; a++) {
        int still = p->fixed[p->region ? p->act[a] : a]; /* a fixed disc feels nothing */
        for (size_t d = 0; d < dim; d++) {
            yd[sd * a + d] = yc[sd * a + dim + d];
            yd[sd * a + dim + d] = still ? 0.0 : g[d];
        }
    }
    if (p->region) {
        for (size_t q = 0; q < p->nq; q++)
            if (contact_rhs(p, y, &p->c[p->qc[q]], yd))
                return -1;
        return 0;
    }
    for (size_t s = 0; s < p->nslots; s++)
        if (p->slot_contact[s] >= 0 && contact_rhs(p, y, &p->c[p->slot_contact[s]], yd))
            return -1;
    return 0;
}

int cr_pl_quad_rhs(sunrealtype t, N_Vector yv, N_Vector qd, void *user)
{
    const cr_pool *p = user;
    const double *y = cr_pl_full_state(p, t, yv);
    double *q = N_VGetArrayPointer(qd);
    double diss = 0.0, sc = p->T / p->Pscale;
    size_t nqv = p->nqv;
    memset(q, 0, nqv * p->qcap * sizeof(double));
    for (size_t s = 0; s < p->nq; s++) {
        double delta, rate, n[3] = {0}, dist;
        const cr_pool_contact *k = &p->c[p->qc[s]];
        if (cr_pl_surely_open(p, y, k))
            continue;
        cr_pl_geom(p, y, k, &delta, &rate, n, &dist);
        double f = cr_contact_force_inline(cr_pl_law(p, k), delta, rate);
        q[nqv * s] = f * sc;
        for (int d = 0; d < p->dim; d++)
            q[nqv * s + 1 + (size_t)d] = f * n[d] * sc;
        diss += cr_contact_dissipation_inline(cr_pl_law(p, k), f, delta, rate);
    }
    q[nqv * p->qcap] = diss * p->T / p->Escale;
    return 0;
}

/* The analytic Jacobian at the compact state @p base, dense (ny × ny, row-major). */
static void jac_dense(cr_pool *p, N_Vector base, SUNMatrix J, double *dense, size_t ny)
{
    cr_pl_jac(p->t / p->T, base, NULL, J, p, NULL, NULL, NULL);
    sunindextype *ptr = SM_INDEXPTRS_S(J), *idx = SM_INDEXVALS_S(J);
    for (size_t c = 0; c < ny; c++)
        for (sunindextype q = ptr[c]; q < ptr[c + 1]; q++)
            dense[(size_t)idx[q] * ny + c] += SM_DATA_S(J)[q];
}

/* The largest difference between @p dense and central differences of the
 * right-hand side at @p base (step 1e-7 relative); v: three scratch vectors. */
static double fd_worst(cr_pool *p, N_Vector base, N_Vector v[3], const double *dense, size_t ny)
{
    double worst = 0.0;
    for (size_t c = 0; c < ny; c++) {
        N_VScale(1.0, base, v[0]);
        double *yd = N_VGetArrayPointer(v[0]), h = 1e-7 * fmax(1.0, fabs(yd[c]));
        double y0 = yd[c];
        yd[c] = y0 + h;
        cr_pl_rhs(p->t / p->T, v[0], v[1], p);
        yd[c] = y0 - h;
        cr_pl_rhs(p->t / p->T, v[0], v[2], p);
        const double *a = N_VGetArrayPointer(v[1]), *b = N_VGetArrayPointer(v[2]);
        for (size_t r = 0; r < ny; r++)
            worst = fmax(worst, fabs((a[r] - b[r]) / (2 * h) - dense[r * ny + c]));
    }
    return worst;
}

int cr_pool_check_jacobian(cr_pool *p, double *max_rel)
{
    CR_CHECK(p && max_rel && p->ran && p->A, p ? p->err : NULL, CR_ERR_INVALID);
    size_t ny = p->sd * p->na;
    SUNMatrix J = SUNMatClone(p->A);
    N_Vector base = N_VClone(p->ya), v[3] = {N_VClone(p->ya), N_VClone(p->ya), N_VClone(p->ya)};
    double *dense = calloc(ny * ny, sizeof(double));
    int rc = J && base && v[0] && v[1] && v[2] && dense ? CR_OK : CR_ERR_NOMEM;
    if (rc == CR_OK) {
        /* the integrated discs' part of the current state (in a region, compact) */
        for (size_t a = 0; a < p->na; a++)
            memcpy(N_VGetArrayPointer(base) + p->sd * a,
                   N_VGetArrayPointer(p->y) + p->sd * (p->region ? p->act[a] : a),
                   p->sd * sizeof(double));
        jac_dense(p, base, J, dense, ny);
        double scale = 0.0;
        for (size_t k = 0; k < ny * ny; k++)
            scale = fmax(scale, fabs(dense[k]));
        double worst = fd_worst(p, base, v, dense, ny);
        *max_rel = scale > 0 ? worst / scale : worst;
    }
    if (J)
        SUNMatDestroy(J);
    if (base)
        N_VDestroy(base);
    for (int k = 0; k < 3; k++)
        if (v[k])
            N_VDestroy(v[k]);
    free(dense);
    return rc;
}
