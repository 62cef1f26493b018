#include "laws/dense-priv.h"

#include "base/lazylib.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#ifndef CR_LAPACKE_LIBRARY
#define CR_LAPACKE_LIBRARY "liblapacke.so.3"
#endif

/* LAPACKE and CBLAS are opened at the first rigid impact (lazylib-priv.h):
 * compliant runs never call them, and linking them loaded OpenBLAS, LAPACK and
 * gfortran into every process. The CBLAS functions are found through
 * liblapacke's dependencies (LAPACK, then the BLAS Debian's alternatives
 * select). The headers only provide the types. */
static struct {
    __typeof__(LAPACKE_dpotrf) *dpotrf;
    __typeof__(LAPACKE_dpotrs) *dpotrs;
    __typeof__(LAPACKE_dgelsy) *dgelsy;
    __typeof__(LAPACKE_dgelsd) *dgelsd;
    __typeof__(LAPACKE_dgesv) *dgesv;
    __typeof__(cblas_dtrsm) *dtrsm;
    __typeof__(cblas_dgemm) *dgemm;
    __typeof__(cblas_dgemv) *dgemv;
    char error[256]; /* empty when loaded */
} la;
static once_flag la_once = ONCE_FLAG_INIT;

static void la_load(void)
{
    const cr_lazy_symbol syms[] = {{"LAPACKE_dpotrf", &la.dpotrf},
                                   {"LAPACKE_dpotrs", &la.dpotrs},
                                   {"LAPACKE_dgelsy", &la.dgelsy},
                                   {"LAPACKE_dgelsd", &la.dgelsd},
                                   {"LAPACKE_dgesv", &la.dgesv},
                                   {"cblas_dtrsm", &la.dtrsm},
                                   {"cblas_dgemm", &la.dgemm},
                                   {"cblas_dgemv", &la.dgemv},
                                   {NULL, NULL}};
    void (*threads)(int) = NULL;
    const cr_lazy_symbol optional[] = {{"openblas_set_num_threads", &threads}, {NULL, NULL}};
    char ignored[8];
    if (cr_lazy_open(CR_LAPACKE_LIBRARY, syms, "LAPACKE is needed for rigid impact laws",
                     "liblapacke", la.error, sizeof la.error) != 0)
        return;
    /* One BLAS thread: the matrices are those of one impact (tens of dofs),
     * and sweeps compute points on parallel threads or MPI ranks. */
    if (cr_lazy_open(CR_LAPACKE_LIBRARY, optional, "", "", ignored, sizeof ignored) == 0)
        threads(1);
}

const char *cr_dense_load_error(void)
{
    call_once(&la_once, la_load);
    return la.error[0] ? la.error : NULL;
}

int cr_dense_cholesky(double *A, size_t n)
{
    if (cr_dense_load_error())
        return -1;
    return (int)la.dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, A, (lapack_int)n);
}

int cr_dense_cholesky_solve(const double *L, size_t n, double *B, size_t nrhs)
{
    if (cr_dense_load_error())
        return -1;
    return (int)la.dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)n, (lapack_int)nrhs, L, (lapack_int)n,
                          B, (lapack_int)n);
}

/* The void functions below run after cr_dense_cholesky (the laws' first
 * call), which has loaded the library or made the caller give up. */
void cr_dense_lower_solve(const double *L, size_t n, double *B, size_t nrhs)
{
    if (!cr_dense_load_error())
        la.dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)n,
                 (int)nrhs, 1.0, L, (int)n, B, (int)n);
}

void cr_dense_atb(const double *A, const double *B, size_t k, size_t m, size_t n, double *C)
{
    if (!cr_dense_load_error())
        la.dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A, (int)k, B,
                 (int)k, 0.0, C, (int)m);
}

void cr_dense_gemv(const double *A, size_t m, size_t n, const double *x, double *y)
{
    if (!cr_dense_load_error())
        la.dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, 1.0, A, (int)m, x, 1, 0.0, y, 1);
}

int cr_dense_solve(double *A, size_t n, double *b)
{
    lapack_int piv[CR_DENSE_SOLVE_MAX];
    if (n > CR_DENSE_SOLVE_MAX || cr_dense_load_error())
        return -1;
    return (int)la.dgesv(LAPACK_COL_MAJOR, (lapack_int)n, 1, A, (lapack_int)n, piv, b,
                         (lapack_int)n);
}

int cr_dense_min_norm(double *A, size_t m, size_t n, double *b, double *sv)
{
    lapack_int rank;
    if (cr_dense_load_error())
        return -1;
    return (int)la.dgelsd(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, 1, A, (lapack_int)m, b,
                          (lapack_int)(n > m ? n : m), sv, 1e-13, &rank);
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
    int info = jpvt ? (int)la.dgelsy(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)np, 1, work_a,
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
