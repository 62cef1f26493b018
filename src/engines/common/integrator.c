#include "engines/common/integrator.h"

#include <stdio.h>
#include <stdlib.h>

#include "engines/common/engine-common.h"

int cr_cvode_init(void *mem, CVRhsFn rhs, N_Vector y, CVQuadRhsFn quad, N_Vector yQ, void *user,
                  double rtol, double atol, char *err)
{
    return cr_cvode_init_at(mem, rhs, 0.0, y, quad, yQ, user, rtol, atol, err);
}

int cr_cvode_init_at(void *mem, CVRhsFn rhs, double tau0, N_Vector y, CVQuadRhsFn quad, N_Vector yQ,
                     void *user, double rtol, double atol, char *err)
{
    CVodeSetErrHandlerFn(mem, cr_sundials_error_handler, err);
    int flag = CVodeInit(mem, rhs, tau0, y);
    if (flag == CV_SUCCESS)
        flag = CVodeSetUserData(mem, user);
    if (flag == CV_SUCCESS)
        flag = CVodeSStolerances(mem, rtol, atol);
    if (flag == CV_SUCCESS)
        flag = CVodeSetMaxNumSteps(mem, 1000000);
    if (!quad)
        return flag; /* the caller integrates its quadratures as states */
    if (flag == CV_SUCCESS)
        flag = CVodeQuadInit(mem, quad, yQ);
    if (flag == CV_SUCCESS)
        flag = CVodeSetQuadErrCon(mem, SUNTRUE);
    if (flag == CV_SUCCESS)
        flag = CVodeQuadSStolerances(mem, rtol, atol);
    return flag;
}

int cr_solver_fail(char *err, const char *what, double t, const char *flag_name)
{
    char detail[CR_ERRMSG_LEN];
    snprintf(detail, sizeof detail, "%s", err);
    cr_set_msg(err, CR_ERRMSG_LEN, "%s failed at t = %.9g s with %s%s%s", what, t,
               flag_name ? flag_name : "unknown flag", detail[0] ? ": " : "", detail);
    return CR_ERR_SOLVER;
}

int cr_cvode_fail(char *err, const char *what, double t, int flag)
{
    char *name = CVodeGetReturnFlagName(flag);
    int rc = cr_solver_fail(err, what, t, name);
    free(name);
    return rc;
}

void cr_cvode_counters(void *mem, const cr_run_stats *banked, cr_run_stats *out)
{
    long steps = 0, rhs = 0, jac = 0, roots = 0, iters = 0;
    CVodeGetNumSteps(mem, &steps);
    CVodeGetNumRhsEvals(mem, &rhs);
    CVodeGetNumJacEvals(mem, &jac);
    CVodeGetNumGEvals(mem, &roots);
    CVodeGetNumNonlinSolvIters(mem, &iters);
    out->steps = banked->steps + steps;
    out->rhs_evals = banked->rhs_evals + rhs;
    out->jac_evals = banked->jac_evals + jac;
    out->root_evals = banked->root_evals + roots;
    out->nonlin_iters = banked->nonlin_iters + iters;
}

void cr_cvode_bank(void *mem, cr_run_stats *banked)
{
    cr_cvode_counters(mem, banked, banked);
}

int cr_cvode_restart(void *mem, double tau, N_Vector y, N_Vector yQ, cr_run_stats *banked)
{
    cr_cvode_counters(mem, banked, banked);
    int flag = CVodeReInit(mem, tau, y);
    if (flag == CV_SUCCESS && yQ)
        flag = CVodeQuadReInit(mem, yQ);
    return flag;
}
