/* Small dense linear algebra for the rigid-law core: column-major arrays,
 * LAPACKE/CBLAS underneath. Sizes are those of one impact (tens of dofs). */
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

/*
 * Non-negative least squares (Lawson & Hanson, "Solving Least Squares
 * Problems", 1974, ch. 23): x = argmin ‖A x − b‖ subject to x ≥ 0, A (m×n).
 * Returns 0, or -1 when the iteration limit 3n is exceeded.
 */
int cr_dense_nnls(const double *A, size_t m, size_t n, const double *b, double *x);

#endif
