/*
 * The window's time stepper: CVODES (BDF or Adams) or ARKODE's explicit
 * Runge-Kutta method (ERKStep). The engine's event location (sim-locate.c),
 * the window (sim-window.c) and the run (sim-run.c) go through these calls
 * and do not ask which one runs, except where CVODES has what ERKStep lacks
 * (quadratures, CVODE's root finding: an ERK window integrates its impulses
 * as states and locates its events itself).
 *
 * Why an explicit method (docs/performance.md, "Explicit Runge-Kutta"): on an
 * undamped chain a multistep method restarts its order from one at every
 * window it builds and pays a Nordsieck history of up to eight vectors per
 * step; the 5-ball cradle's error of 1e-6 took CVODES Adams 186 steps, 44 of
 * them climbing from order one. A one-step method has no history to build.
 * Its error estimate across a contact's closing (where the Hertz force starts
 * as (t − t₀)^(3/2)) is sound for the fifth-order Cash-Karp pair with its
 * fourth-order embedding; the order-8 Fehlberg pair, whose embedding is of
 * order 7, was not (its error stayed at 1e-6 to 3e-5 whatever the tolerance).
 */
#include "engines/compliant/sim-priv.h"

#include <arkode/arkode_erkstep.h>
#include <stdio.h>
#include <stdlib.h>

#include "engines/common/integrator.h"

/* The Butcher table, and the degree of the Hermite interpolant ERKStep gives
 * inside a step (its order minus one, ERKStep's own cap for a fifth-order
 * method). At degree 4 each ERKStepGetDky evaluates the RHS once more (the
 * event search's Taylor coefficients: 5 per searched step). Degree 3 needs
 * none and was 2-17 % cheaper on the 3- and 5-ball chains, but its event
 * times were 1.9e-9 of the end time off Adams' at rtol 1e-12 (against
 * 1.9e-10) and the 1000-bead chain 12 % slower (more steps onto an event's
 * side). */
#define ERK_TABLE ARKODE_CASH_KARP_6_4_5
#define ERK_DEGREE 4

/* The integrator's current point: where the next step starts. */
static void erk_mark(cr_sim *s, double t)
{
    N_VScale(1.0, s->y, s->yend);
    s->tend = t;
}

/* ERKStep from (t, y) on, and the run's stop time again: in 6.4.1
 * ERKStepReset clears it (CVodeReInit keeps it), and without it steps ran
 * past the end and the last output came from the interpolant. */
static int erk_reset(cr_sim *s, double t, N_Vector y)
{
    int flag = ERKStepReset(s->stepper, t, y);
    if (flag == ARK_SUCCESS && s->tau_stop > t)
        flag = ERKStepSetStopTime(s->stepper, s->tau_stop);
    return flag;
}

static int erk_create(cr_sim *s, double atol)
{
    s->ystart = N_VClone(s->y);
    s->yend = N_VClone(s->y);
    s->ydot = N_VClone(s->y);
    s->yprobe = N_VClone(s->y);
    if (!s->ystart || !s->yend || !s->ydot || !s->yprobe)
        return ARK_MEM_FAIL;
    erk_mark(s, s->tau);
    s->stepper = ERKStepCreate(cr_sm_rhs, s->tau, s->y, s->ctx);
    if (!s->stepper)
        return ARK_MEM_FAIL;
    int flag = ERKStepSetErrHandlerFn(s->stepper, cr_sundials_error_handler, s->err);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSetUserData(s->stepper, s);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSStolerances(s->stepper, s->rtol, atol);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSetMaxNumSteps(s->stepper, 1000000);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSetTableNum(s->stepper, ERK_TABLE);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSetInterpolantDegree(s->stepper, ERK_DEGREE);
    if (flag == ARK_SUCCESS && s->tau_stop > s->tau)
        flag = ERKStepSetStopTime(s->stepper, s->tau_stop);
    return flag;
}

static int cvode_create(cr_sim *s, cr_method method, double atol)
{
    s->stepper = CVodeCreate(method == CR_METHOD_BDF ? CV_BDF : CV_ADAMS, s->ctx);
    if (!s->stepper)
        return CV_MEM_FAIL;
    int flag =
        cr_cvode_init_at(s->stepper, cr_sm_rhs, s->tau, s->y, s->qstate ? NULL : cr_sm_quad_rhs,
                         s->qstate ? NULL : s->yQ, s, s->rtol, atol, s->err);
    if (flag == CV_SUCCESS && s->tau_stop > s->tau)
        flag = CVodeSetStopTime(s->stepper, s->tau_stop);
    if (flag == CV_SUCCESS && method != CR_METHOD_BDF)
        flag = CVodeSetMaxOrd(s->stepper, CR_SM_ADAMS_MAX_ORDER);
    return flag;
}

int cr_sm_stepper_create(cr_sim *s, cr_method method, double atol)
{
    s->erk = method == CR_METHOD_ERK;
    return s->erk ? erk_create(s, atol) : cvode_create(s, method, atol);
}

static int erk_step(cr_sim *s, double target, double *tn)
{
    N_Vector v = s->ystart;
    s->ystart = s->yend;
    s->yend = v;
    s->tstart = s->tend;
    int flag = ERKStepEvolve(s->stepper, target, s->y, tn, ARK_ONE_STEP);
    if (flag >= 0)
        erk_mark(s, *tn);
    return flag;
}

int cr_sm_step(cr_sim *s, double target, double *tn)
{
    int flag = s->erk ? erk_step(s, target, tn) : CVode(s->stepper, target, s->y, tn, CV_ONE_STEP);
    if (flag >= 0)
        s->hlast = cr_sm_last_step(s);
    return flag;
}

/*
 * ERKStep: the last step again from its start, ending at t inside it (an
 * event). The state at t is then a Runge-Kutta solution, and the next step
 * starts there: the interpolant inside a step (Hermite, degree 4) is less
 * accurate than the step (the 5-ball cradle's final velocities, read at the
 * last opening, were off by 1.5e-8 V at rtol 1e-9, 2.4e-9 at a step's end),
 * and a step that starts at a closing does not straddle the Hertz force's
 * (t − t₀)^(3/2) onset. Costs one step per event.
 */
int cr_sm_step_again_to(cr_sim *s, double t)
{
    int flag = ERKStepReset(s->stepper, s->tstart, s->ystart);
    if (flag == ARK_SUCCESS)
        flag = ERKStepSetStopTime(s->stepper, t);
    double tn = s->tstart;
    N_VScale(1.0, s->ystart, s->yend);
    s->tend = s->tstart;
    while (flag >= 0 && tn < t)
        flag = erk_step(s, t, &tn);
    if (flag < 0) { /* the state and time of the last good point, together */
        N_VScale(1.0, s->ystart, s->y);
        return flag;
    }
    if (s->tau_stop > t)
        flag = ERKStepSetStopTime(s->stepper, s->tau_stop);
    s->hlast = cr_sm_last_step(s);
    return flag < 0 ? flag : ARK_SUCCESS;
}

double cr_sm_last_step(const cr_sim *s)
{
    sunrealtype h = 0.0;
    if (s->erk)
        ERKStepGetLastStep(s->stepper, &h);
    else
        CVodeGetLastStep(s->stepper, &h);
    return h;
}

int cr_sm_dky(cr_sim *s, double t, int k, N_Vector out)
{
    return s->erk ? ERKStepGetDky(s->stepper, t, k, out) : CVodeGetDky(s->stepper, t, k, out);
}

int cr_sm_dky_degree(const cr_sim *s)
{
    int q = -1;
    if (s->erk)
        return ERK_DEGREE;
    return CVodeGetLastOrder(s->stepper, &q) == CV_SUCCESS ? q : -1;
}

/* ERKStep keeps its counters across a reset; CVodeReInit zeroes them, so
 * those of the finished segment are banked first (cr_cvode_restart). */
int cr_sm_stepper_restart_at(cr_sim *s, double t)
{
    erk_mark(s, t);
    return erk_reset(s, t, s->y);
}

int cr_sm_stepper_restart(cr_sim *s)
{
    if (s->erk)
        return cr_sm_stepper_restart_at(s, s->tau);
    return cr_cvode_restart(s->stepper, s->tau, s->y, s->qstate ? NULL : s->yQ, &s->banked);
}

static void erk_counters(void *mem, const cr_sim_stats *banked, cr_sim_stats *out)
{
    long steps = 0, nfe = 0;
    ERKStepGetNumSteps(mem, &steps);
    ERKStepGetNumRhsEvals(mem, &nfe);
    out->steps = banked->steps + steps;
    out->rhs_evals = banked->rhs_evals + nfe;
    out->jac_evals = banked->jac_evals;
    out->root_evals = banked->root_evals;
    out->nonlin_iters = banked->nonlin_iters;
}

void cr_sm_stepper_counters(const cr_sim *s, cr_sim_stats *out)
{
    if (s->erk)
        erk_counters(s->stepper, &s->banked, out);
    else
        cr_cvode_counters(s->stepper, &s->banked, out);
}

void cr_sm_stepper_free(cr_sim *s)
{
    N_Vector *v[] = {&s->ystart, &s->yend, &s->ydot, &s->yprobe};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        if (*v[k])
            N_VDestroy(*v[k]);
        *v[k] = NULL;
    }
    if (!s->stepper)
        return;
    cr_sm_stepper_counters(s, &s->banked);
    if (s->erk)
        ERKStepFree(&s->stepper);
    else
        CVodeFree(&s->stepper);
    s->stepper = NULL;
}

int cr_sm_solver_fail(cr_sim *s, const char *what, int flag)
{
    if (!s->erk)
        return cr_cvode_fail(s->err, what, s->t, flag);
    char *name = ERKStepGetReturnFlagName(flag);
    int rc = cr_solver_fail(s->err, what, s->t, name);
    free(name);
    return rc;
}
