/* Small dense linear algebra for the rigid-law core: column-major arrays,
 * LAPACKE/CBLAS underneath, opened at the first call (dense.c). Sizes are
 * those of one impact (tens of dofs). */
#ifndef CRADLE_DENSE_PRIV_H
#define CRADLE_DENSE_PRIV_H

#include <stddef.h>

/* Element (i, j) of a column-major matrix with leading dimension ld. */
#define CR_AT(A, ld, i, j) ((A)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])

/* Cholesky factor L (lower, in place) of an SPD n×n matrix; 0 or LAPACK info. */
int cr_dense_cholesky(double *A, size_t n);
/* Solves L Lᵀ X = B in place for nrhs columns of B. */
int cr_dense_cholesky_solve(const double *L, size_t n, double *B, size_t nrhs);
/* Solves L X = B (forward substitution) in place for nrhs columns. */
void cr_dense_lower_solve(const double *L, size_t n, double *B, size_t nrhs);
/* C = Aᵀ B with A (k×m), B (k×n), C (m×n). */
void cr_dense_atb(const double *A, const double *B, size_t k, size_t m, size_t n, double *C);
/* y = A x with A (m×n). */
void cr_dense_gemv(const double *A, size_t m, size_t n, const double *x, double *y);

/* A x = b for a general n×n A (LU with partial pivoting, A overwritten), x in
 * b; n ≤ CR_DENSE_SOLVE_MAX. 0, or -1 / LAPACK info when it fails. */
#define CR_DENSE_SOLVE_MAX 64
int cr_dense_solve(double *A, size_t n, double *b);
/* Minimum-norm least squares of A x = b, A (m×n) overwritten (LAPACK dgelsd,
 * rcond 1e-13); b holds max(m, n) entries, x in its first n; sv gets the
 * min(m, n) singular values. 0, or -1 / LAPACK info. */
int cr_dense_min_norm(double *A, size_t m, size_t n, double *b, double *sv);

/* NULL once LAPACKE/CBLAS are loaded (first call loads them), else why not. */
const char *cr_dense_load_error(void);

/*
 * Non-negative least squares (Lawson & Hanson, "Solving Least Squares
 * Problems", 1974, ch. 23): x = argmin ‖A x − b‖ subject to x ≥ 0, A (m×n).
 * Returns 0, or -1 when the iteration limit 3n is exceeded.
 */
int cr_dense_nnls(const double *A, size_t m, size_t n, const double *b, double *x);

#endif
