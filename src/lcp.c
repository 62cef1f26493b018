#include "lcp-priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

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
    NumericsMatrix *M = NM_create_from_data(NM_DENSE, (int)m, (int)m, Gc);
    LinearComplementarityProblem prob = {.size = (int)m, .M = M, .q = qc};
    SolverOptions *opt = solver_options_create(solver_id);
    int info = linearComplementarity_driver(&prob, z, w, opt);
    solver_options_delete(opt);
    /* Siconos 4.4 clears the members but does not release the struct itself */
    free(opt);
    NM_clear_not_dense(M);
    free(M);
    free(Gc);
    free(qc);
    free(w);
    return info;
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
    for (size_t i = 0; i < m; i++)
        all_nonneg &= q[i] >= 0.0;
    if (all_nonneg) {
        memset(z, 0, m * sizeof(double));
        *residual = 0.0;
        return 0;
    }
    int info = run_solver(SICONOS_LCP_LEMKE, m, G, q, z);
    *residual = natural_residual(m, G, q, z);
    if (info == 0 && *residual < 1e-9)
        return 0;
    if (m <= 20) {
        info = run_solver(SICONOS_LCP_ENUM, m, G, q, z);
        *residual = natural_residual(m, G, q, z);
        if (info == 0 && *residual < 1e-9)
            return 0;
    }
    return info ? info : -1;
}
