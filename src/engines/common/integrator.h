/* CVODES plumbing shared by the chain (sim.c) and pool (pool.c) simulators:
 * the same setup, the same restart across a force jump, the same error text and
 * the same solver counters. The linear solver, the roots and the state layout
 * stay with each simulator. A NULL @p quad (and @p yQ) means no CVODES
 * quadratures: the caller integrates them as states. */
#ifndef CRADLE_INTEGRATOR_H
#define CRADLE_INTEGRATOR_H

#include <cvodes/cvodes.h>
#include <stddef.h>

#include "cradle/system.h"

/* CVodeInit at τ = 0 with the quadratures (error-controlled, same tolerances),
 * user data, tolerances and a step cap; CVODE's own messages go to @p err (a
 * CR_ERRMSG_LEN buffer), to be quoted by cr_cvode_fail. Returns a CVODE flag. */
int cr_cvode_init(void *mem, CVRhsFn rhs, N_Vector y, CVQuadRhsFn quad, N_Vector yQ, void *user,
                  double rtol, double atol, char *err);
/* The same at scaled time @p tau0 (the chain engine's active regions start
 * mid-run). */
int cr_cvode_init_at(void *mem, CVRhsFn rhs, double tau0, N_Vector y, CVQuadRhsFn quad, N_Vector yQ,
                     void *user, double rtol, double atol, char *err);

/* Records "@p what failed at t = … s with FLAG: CVODE's message" in @p err;
 * returns CR_ERR_SOLVER. */
int cr_cvode_fail(char *err, const char *what, double t, int flag);
/* The same with the flag's name given (ARKODE's names its own flags). */
int cr_solver_fail(char *err, const char *what, double t, const char *flag_name);

/* Restarts the multistep history at scaled time @p tau (the quadratures carry
 * on). CVodeReInit zeroes CVODE's counters, so those of the finished segment are
 * added to @p banked first. Returns a CVODE flag. */
int cr_cvode_restart(void *mem, double tau, N_Vector y, N_Vector yQ, cr_run_stats *banked);

/* Adds the counters of an instance about to be freed to @p banked. */
void cr_cvode_bank(void *mem, cr_run_stats *banked);

/* Counters of the whole run into @p out: @p banked plus the current segment's.
 * Other fields of @p out are left alone. */
void cr_cvode_counters(void *mem, const cr_run_stats *banked, cr_run_stats *out);

#endif
