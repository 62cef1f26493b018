/* The fit layer's shared state (cradle/fit.h): the problem the solver sees,
 * the parameters with their bounds transform, and the results. */
#ifndef CRADLE_FIT_PRIV_H
#define CRADLE_FIT_PRIV_H

#include <stddef.h>

#include "base/base.h"
#include "cradle/fit.h"

/* One varied field. */
typedef struct {
    char *path;
    double start, lo, hi; /* lo, hi NaN: unbounded */
    double value, std_error;
} fit_param;

struct cr_fit {
    char *text; /* the model file */
    size_t len;
    char *name;
    fit_param *par;
    size_t np, capp;
    cr_fit_observation *obs;
    size_t n;
    char *data_name;
    double *model_value; /* per row at the result */
    double *covar_u;     /* np × np, in the transformed variables u */
    double *covar;       /* np × np, in field units */
    size_t max_iterations, iterations, runs, failed_runs;
    char last_failure[CR_ERRMSG_LEN];
    double rtol, atol, h_df, chi2_start, chi2;
    int fitted, converged;
    const char *convergence;
    char msg[CR_ERRMSG_LEN];
};

/* Field value p of parameter @p k from the solver's variable u, and dp/du. */
double fit_param_from_u(const fit_param *k, double u);
double fit_param_to_u(const fit_param *k, double p);
double fit_param_dp_du(const fit_param *k, double u);

/*
 * Runs the model @p text with the parameters @p p (field units) and the
 * tolerances set, and evaluates the rows: @p y gets the model values.
 * @return CR_OK; CR_ERR_MODEL (a row the run cannot give: row index in
 * *bad_row, reason in @p why) or CR_ERR_SOLVER / CR_ERR_NOMEM (reason in @p why).
 */
int fit_evaluate(const cr_fit *fit, const char *text, size_t len, const char *name, const double *p,
                 const cr_fit_observation *obs, size_t n, double *y, size_t *bad_row, char *why,
                 size_t whylen);

/* The value of the scalar at @p path in YAML @p text: 0, 1 (not there), 2 (not a
 * number), -1 (the text does not parse). */
int fit_field_value(const char *text, size_t len, const char *path, double *value);

#endif
