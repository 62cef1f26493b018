#include "dense-priv.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cr_dense_cholesky(double *A, size_t n)
{
    return (int)LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, A, (lapack_int)n);
}

int cr_dense_cholesky_solve(const double *L, size_t n, double *B, size_t nrhs)
{
    return (int)LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)n, (lapack_int)nrhs, L,
                               (lapack_int)n, B, (lapack_int)n);
}

void cr_dense_lower_solve(const double *L, size_t n, double *B, size_t nrhs)
{
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)n, (int)nrhs,
                1.0, L, (int)n, B, (int)n);
}

void cr_dense_atb(const double *A, const double *B, size_t k, size_t m, size_t n, double *C)
{
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A, (int)k, B,
                (int)k, 0.0, C, (int)m);
}

void cr_dense_gemv(const double *A, size_t m, size_t n, const double *x, double *y)
{
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, 1.0, A, (int)m, x, 1, 0.0, y, 1);
}

/* Least squares on the columns listed in `set`: z = argmin ‖A_P z − b‖. LAPACK
 * dgelsy (QR with column pivoting) tolerates rank deficiency like the SVD-based
 * dgelsd and costs a third to a fifth of it; NNLS calls it once per pivot. */
static int ls_on_set(const double *A, size_t m, const double *b, const size_t *set, size_t np,
                     double *work_a, double *work_b, double *z)
{
    for (size_t k = 0; k < np; k++)
        memcpy(work_a + k * m, A + set[k] * m, m * sizeof(double));
    size_t ldb = m > np ? m : np;
    memset(work_b, 0, ldb * sizeof(double));
    memcpy(work_b, b, m * sizeof(double));
    lapack_int *jpvt = calloc(np ? np : 1, sizeof(lapack_int));
    lapack_int rank;
    int info = jpvt
                   ? (int)LAPACKE_dgelsy(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)np, 1, work_a,
                                         (lapack_int)m, work_b, (lapack_int)ldb, jpvt, 1e-13, &rank)
                   : -1;
    free(jpvt);
    for (size_t k = 0; k < np; k++)
        z[k] = work_b[k];
    return info;
}

int cr_dense_nnls(const double *A, size_t m, size_t n, const double *b, double *x)
{
    size_t ldb = m > n ? m : n;
    double *w = malloc(n * sizeof(double)), *r = malloc(m * sizeof(double));
    double *z = malloc(n * sizeof(double)), *wa = malloc(m * n * sizeof(double) + 8);
    double *wb = malloc(ldb * sizeof(double));
    size_t *set = malloc(n * sizeof(size_t));
    char *passive = calloc(n, 1);
    int rc = -1;
    if (!w || !r || !z || !wa || !wb || !set || !passive)
        goto done;
    memset(x, 0, n * sizeof(double));
    double anorm = 0.0;
    for (size_t i = 0; i < m * n; i++)
        anorm = fmax(anorm, fabs(A[i]));
    double bnorm = 0.0;
    for (size_t i = 0; i < m; i++)
        bnorm = fmax(bnorm, fabs(b[i]));
    double tol = 1e-12 * (anorm * bnorm + 1e-300) * (double)(m + n);
    for (size_t outer = 0; outer < 3 * n + 3; outer++) {
        /* r = b − A x, w = Aᵀ r (the negative gradient) */
        cr_dense_gemv(A, m, n, x, r);
        for (size_t i = 0; i < m; i++)
            r[i] = b[i] - r[i];
        cr_dense_atb(A, r, m, n, 1, w);
        size_t t = n;
        double wmax = tol;
        for (size_t j = 0; j < n; j++)
            if (!passive[j] && w[j] > wmax) {
                wmax = w[j];
                t = j;
            }
        if (t == n) {
            rc = 0; /* KKT conditions hold */
            goto done;
        }
        passive[t] = 1;
        for (size_t inner = 0; inner < 3 * n + 3; inner++) {
            size_t np = 0;
            for (size_t j = 0; j < n; j++)
                if (passive[j])
                    set[np++] = j;
            if (ls_on_set(A, m, b, set, np, wa, wb, z) != 0)
                goto done;
            double alpha = 2.0;
            for (size_t k = 0; k < np; k++)
                if (z[k] <= 0.0) {
                    double a = x[set[k]] / (x[set[k]] - z[k]);
                    if (a < alpha)
                        alpha = a;
                }
            if (alpha > 1.0) { /* feasible: accept */
                for (size_t k = 0; k < np; k++)
                    x[set[k]] = z[k];
                break;
            }
            for (size_t k = 0; k < np; k++) {
                size_t j = set[k];
                x[j] += alpha * (z[k] - x[j]);
                if (x[j] <= 1e-15 * (fabs(z[k]) + 1.0)) {
                    x[j] = 0.0;
                    passive[j] = 0;
                }
            }
        }
    }
done:
    free(w);
    free(r);
    free(z);
    free(wa);
    free(wb);
    free(set);
    free(passive);
    return rc;
}
