#include "laws/lcp-priv.h"

#include "laws/dense-priv.h"
#include "base/lazylib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* Types and constants only: the library itself is opened at the first LCP
 * (below), so a run that never needs one does not load Siconos Numerics and
 * the MUMPS, scotch and BLAS/LAPACK libraries behind it (issue 12, start-up). */
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#ifndef CR_SICONOS_LIBRARY
#define CR_SICONOS_LIBRARY "libsiconos_numerics.so.7"
#endif

typedef NumericsMatrix *(*nm_create_fn)(int, int, int, void *);
typedef SolverOptions *(*options_create_fn)(int);
typedef int (*lcp_driver_fn)(LinearComplementarityProblem *, double *, double *, SolverOptions *);
typedef void (*options_delete_fn)(SolverOptions *);
typedef void (*nm_clear_fn)(NumericsMatrix *);

/* The pointers must have the headers' types. _Generic does not evaluate its
 * operand, so these checks reference no symbol and link nothing. */
#define CR_SAME_TYPE(fn, type) _Static_assert(_Generic(&fn, type : 1, default : 0), #fn)
CR_SAME_TYPE(NM_create_from_data, nm_create_fn);
CR_SAME_TYPE(solver_options_create, options_create_fn);
CR_SAME_TYPE(linearComplementarity_driver, lcp_driver_fn);
CR_SAME_TYPE(solver_options_delete, options_delete_fn);
CR_SAME_TYPE(NM_clear_not_dense, nm_clear_fn);

static struct {
    nm_create_fn nm_create;
    options_create_fn options_create;
    lcp_driver_fn driver;
    options_delete_fn options_delete;
    nm_clear_fn nm_clear;
    char error[256]; /* empty when loaded */
} siconos;
static once_flag siconos_once = ONCE_FLAG_INIT;

/* Opened once per process and never closed (Siconos keeps no state between
 * calls that would need it). */
static void siconos_load(void)
{
    const cr_lazy_symbol syms[] = {{"NM_create_from_data", &siconos.nm_create},
                                   {"solver_options_create", &siconos.options_create},
                                   {"linearComplementarity_driver", &siconos.driver},
                                   {"solver_options_delete", &siconos.options_delete},
                                   {"NM_clear_not_dense", &siconos.nm_clear},
                                   {NULL, NULL}};
    if (cr_lazy_open(CR_SICONOS_LIBRARY, syms, "Siconos Numerics is needed for this law's LCP",
                     "libsiconos-numerics7", siconos.error, sizeof siconos.error) == 0)
        siconos.error[0] = '\0';
}

const char *cr_lcp_load_error(void)
{
    call_once(&siconos_once, siconos_load);
    return siconos.error[0] ? siconos.error : NULL;
}

static double natural_residual(size_t m, const double *G, const double *q, const double *z)
{
    double scale = 0.0, res = 0.0;
    for (size_t i = 0; i < m; i++)
        scale = fmax(scale, fabs(q[i]));
    for (size_t i = 0; i < m; i++) {
        double w = q[i];
        for (size_t j = 0; j < m; j++)
            w += G[j * m + i] * z[j];
        res = fmax(res, fabs(fmin(z[i], w)));
    }
    return scale > 0.0 ? res / scale : res;
}

static int run_solver(int solver_id, size_t m, const double *G, const double *q, double *z)
{
    double *Gc = malloc(m * m * sizeof(double)), *qc = malloc(m * sizeof(double));
    double *w = malloc(m * sizeof(double));
    if (!Gc || !qc || !w) {
        free(Gc);
        free(qc);
        free(w);
        return -1;
    }
    memcpy(Gc, G, m * m * sizeof(double));
    memcpy(qc, q, m * sizeof(double));
    memset(z, 0, m * sizeof(double));
    NumericsMatrix *M = siconos.nm_create(NM_DENSE, (int)m, (int)m, Gc);
    LinearComplementarityProblem prob = {.size = (int)m, .M = M, .q = qc};
    SolverOptions *opt = siconos.options_create(solver_id);
    int info = siconos.driver(&prob, z, w, opt);
    siconos.options_delete(opt);
    /* Siconos 4.4 clears the members but does not release the struct itself */
    free(opt);
    siconos.nm_clear(M);
    free(M);
    free(Gc);
    free(qc);
    free(w);
    return info;
}

/*
 * Enumeration of the active sets S (z_S = −G_SS⁻¹ q_S, z = 0 elsewhere), the
 * fallback when Lemke fails. Our own rather than Siconos' SICONOS_LCP_ENUM,
 * which leaks its enumeration state (enum_init) whenever it finds no solution
 * (LeakSanitizer, in the law-case fuzz target). 2^m sets: m ≤ ENUM_MAX.
 */
#define ENUM_MAX 16

static int enumerate(size_t m, const double *G, const double *q, double *z)
{
    double A[ENUM_MAX * ENUM_MAX], b[ENUM_MAX];
    size_t idx[ENUM_MAX];
    double scale = 0.0;
    for (size_t i = 0; i < m; i++)
        scale = fmax(scale, fabs(q[i]));
    for (unsigned long mask = 0; mask < (1ul << m); mask++) {
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (mask & (1ul << i))
                idx[k++] = i;
        for (size_t i = 0; i < k; i++) {
            b[i] = -q[idx[i]];
            for (size_t j = 0; j < k; j++)
                A[j * k + i] = G[idx[j] * m + idx[i]];
        }
        if (k && cr_dense_solve(A, k, b) != 0)
            continue;
        memset(z, 0, m * sizeof(double));
        int ok = 1;
        for (size_t i = 0; i < k && ok; i++) {
            ok = b[i] >= -1e-12 * scale / (G[idx[i] * m + idx[i]] + 1e-300);
            z[idx[i]] = fmax(b[i], 0.0);
        }
        if (ok && natural_residual(m, G, q, z) < 1e-9)
            return 0;
    }
    return -1;
}

int cr_lcp_solve(size_t m, const double *G, const double *q, double *z, double *residual)
{
    if (m == 0) {
        *residual = 0.0;
        return 0;
    }
    /* Trivial case first: q ≥ 0 gives z = 0 (no impulse needed). Lemke is exact
     * here too, but this keeps separating configurations off the solver. */
    int all_nonneg = 1;
    double scale = 0.0;
    for (size_t i = 0; i < m; i++) {
        all_nonneg &= q[i] >= 0.0;
        scale = fmax(scale, fabs(q[i]));
    }
    if (all_nonneg) {
        memset(z, 0, m * sizeof(double));
        *residual = 0.0;
        return 0;
    }
    if (cr_lcp_load_error()) {
        *residual = NAN;
        return CR_LCP_UNAVAILABLE;
    }
    /* The LCP is positively homogeneous in q: solve with max |q| = 1, where the
     * pivoting tolerances of Siconos are meant to work, and scale z back. */
    double *qs = malloc(m * sizeof(double));
    if (!qs)
        return -1;
    for (size_t i = 0; i < m; i++)
        qs[i] = q[i] / scale;
    int info = run_solver(SICONOS_LCP_LEMKE, m, G, qs, z);
    *residual = natural_residual(m, G, qs, z);
    if ((info != 0 || !(*residual < 1e-9)) && m <= ENUM_MAX) {
        info = enumerate(m, G, qs, z);
        *residual = natural_residual(m, G, qs, z);
    }
    free(qs);
    for (size_t i = 0; i < m; i++)
        z[i] *= scale;
    if (info == 0 && *residual < 1e-9)
        return 0;
    return info ? info : -1;
}
