/*
 * Least-squares fits of model-file fields (cradle/fit.h, docs/fit.md) with
 * GSL's gsl_multifit_nlinear: trust region with Levenberg–Marquardt steps on
 * the weighted residuals (model − value)/σ, Jacobians by GSL's central
 * differences, covariance (JᵀJ)⁻¹ from the Jacobian at the result.
 */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/modelfile.h"
#include "fit/fit-priv.h"

/* A weighted residual given to the solver for a trial point the model cannot
 * evaluate (a run fails, a row's collision is gone): the cost there is far
 * above any reached so far, so the trust region rejects the step and shrinks. */
#define FIT_PENALTY 1e10

/* What one evaluation of residuals needs: the fit, the model (the fit's own
 * or a prediction's), the rows, and whether they are weighted. */
typedef struct {
    cr_fit *fit;
    const char *text, *name;
    size_t len;
    const cr_fit_observation *obs;
    size_t n;
    int weighted;  /* 1: (y − value)/σ; 0: y (predictions) */
    double *p, *y; /* scratch: np, n */
    int failed;
    char why[CR_ERRMSG_LEN];
} fit_ctx;

static int residuals(const gsl_vector *u, void *params, gsl_vector *f)
{
    fit_ctx *c = params;
    cr_fit *fit = c->fit;
    for (size_t j = 0; j < fit->np; j++)
        c->p[j] = fit_param_from_u(&fit->par[j], gsl_vector_get(u, j));
    size_t bad;
    fit->runs++;
    int rc = fit_evaluate(fit, c->text, c->len, c->name, c->p, c->obs, c->n, c->y, &bad, c->why,
                          sizeof c->why);
    for (size_t i = 0; i < c->n; i++) {
        double r = c->weighted ? (c->y[i] - c->obs[i].value) / c->obs[i].sigma : c->y[i];
        gsl_vector_set(f, i, rc == CR_OK ? r : FIT_PENALTY);
    }
    if (rc != CR_OK) {
        c->failed++;
        fit->failed_runs++;
        snprintf(fit->last_failure, sizeof fit->last_failure, "%s", c->why);
    }
    return GSL_SUCCESS;
}

static void ctx_init(fit_ctx *c, cr_fit *fit, const char *text, size_t len, const char *name,
                     const cr_fit_observation *obs, size_t n, int weighted)
{
    memset(c, 0, sizeof *c);
    c->fit = fit;
    c->text = text;
    c->len = len;
    c->name = name;
    c->obs = obs;
    c->n = n;
    c->weighted = weighted;
    c->p = malloc((fit->np + 1) * sizeof(double));
    c->y = malloc((n + 1) * sizeof(double));
}

static void ctx_free(fit_ctx *c)
{
    free(c->p);
    free(c->y);
}

cr_fit *cr_fit_create(const char *text, size_t len, const char *name)
{
    cr_fit *fit = calloc(1, sizeof *fit);
    if (!fit || !text)
        return fit ? (free(fit), NULL) : NULL;
    fit->text = malloc(len + 1);
    fit->name = strdup(name ? name : "(model)");
    if (!fit->text || !fit->name) {
        cr_fit_destroy(fit);
        return NULL;
    }
    memcpy(fit->text, text, len);
    fit->text[len] = '\0';
    fit->len = len;
    fit->max_iterations = CR_FIT_DEFAULT_MAX_ITERATIONS;
    fit->convergence = "not run";
    return fit;
}

void cr_fit_destroy(cr_fit *fit)
{
    if (!fit)
        return;
    for (size_t j = 0; j < fit->np; j++)
        free(fit->par[j].path);
    free(fit->par);
    free(fit->obs);
    free(fit->data_name);
    free(fit->model_value);
    free(fit->covar_u);
    free(fit->covar);
    free(fit->text);
    free(fit->name);
    free(fit);
}

const char *cr_fit_last_error(const cr_fit *fit)
{
    return fit ? fit->msg : "no fit";
}

static int bad_path(cr_fit *fit, const char *path, const char *why)
{
    cr_set_msg(fit->msg, sizeof fit->msg, "--vary %s: %s", path, why);
    return CR_ERR_MODEL;
}

int cr_fit_add_parameter(cr_fit *fit, const char *path, double lo, double hi)
{
    if (!fit || !path || fit->fitted || fit->obs)
        return CR_ERR_INVALID;
    double start = NAN;
    int found = fit_field_value(fit->text, fit->len, path, &start);
    char why[CR_ERRMSG_LEN];
    if (found < 0)
        return bad_path(fit, path, "the model file does not parse");
    if (found == 1) {
        snprintf(why, sizeof why, "no such field in %s (give it a starting value there)",
                 fit->name);
        return bad_path(fit, path, why);
    }
    if (found == 2)
        return bad_path(fit, path, "not a number in the model file: only numbers can be fitted");
    for (size_t j = 0; j < fit->np; j++)
        if (strcmp(fit->par[j].path, path) == 0)
            return bad_path(fit, path, "varied twice");
    if (isnan(lo) != isnan(hi) || !(isnan(lo) || (isfinite(lo) && isfinite(hi) && lo < hi)))
        return bad_path(fit, path, "bounds must be LO:HI with LO < HI");
    if (!isnan(lo) && !(lo < start && start < hi)) {
        snprintf(why, sizeof why, "the starting value %g is not inside the bounds (%g, %g)", start,
                 lo, hi);
        return bad_path(fit, path, why);
    }
    if (fit->np == fit->capp) {
        size_t cap = fit->capp ? 2 * fit->capp : 4;
        fit_param *p = realloc(fit->par, cap * sizeof *p);
        if (!p)
            return CR_ERR_NOMEM;
        fit->par = p;
        fit->capp = cap;
    }
    fit_param *k = &fit->par[fit->np];
    if (!(k->path = strdup(path)))
        return CR_ERR_NOMEM;
    k->start = k->value = start;
    k->lo = lo;
    k->hi = hi;
    k->std_error = NAN;
    fit->np++;
    return CR_OK;
}

int cr_fit_set_max_iterations(cr_fit *fit, size_t max_iterations)
{
    if (!fit || max_iterations == 0)
        return CR_ERR_INVALID;
    fit->max_iterations = max_iterations;
    return CR_OK;
}

/* The runs' tolerance: the model's, at most 1e-10, and small enough that the
 * integration error of every row (≈ rtol relative to its size) stays below
 * 10⁻³ of its σ, so the residual is the data's and not the integrator's;
 * never below 1e-13, where double rounding in the events' times takes over.
 * The central-difference step follows from it: with observables accurate to
 * ε ≈ 10·rtol, h = ε^(1/3) balances truncation (h²) and noise (ε/h). */
static void choose_tolerances(cr_fit *fit, double model_rtol)
{
    double rtol = fmin(model_rtol, 1e-10);
    for (size_t i = 0; i < fit->n; i++) {
        const cr_fit_observation *o = &fit->obs[i];
        rtol = fmin(rtol, 1e-3 * o->sigma / fmax(fabs(o->value), o->sigma));
    }
    fit->rtol = fmax(rtol, 1e-13);
    fit->atol = 1e-2 * fit->rtol;
    fit->h_df = cbrt(10.0 * fit->rtol);
}

static double model_rtol(cr_fit *fit)
{
    cr_model *m = NULL;
    char msg[CR_ERRMSG_LEN];
    if (cr_modelfile_parse(fit->text, fit->len, fit->name, &m, msg, sizeof msg) != CR_OK)
        return CR_DEFAULT_RTOL;
    double r, a; /* under integration.accuracy: the rule's */
    cr_model_tolerances(m, &r, &a);
    cr_model_destroy(m);
    return r > 0 ? r : CR_DEFAULT_RTOL;
}

/* A row the start run cannot give: file, line, the column at fault. */
static int bad_row(cr_fit *fit, const cr_fit_observation *o, const char *why)
{
    int on_index = strncmp(why, "the model has", 13) == 0;
    cr_set_msg(fit->msg, sizeof fit->msg, "%s:%zu:%d: %s: %s", fit->data_name, o->line,
               on_index ? o->index_column : o->time_column, on_index ? "index" : "time", why);
    return CR_ERR_MODEL;
}

int cr_fit_set_data(cr_fit *fit, const cr_fit_observation *obs, size_t n, const char *name)
{
    if (!fit || !obs || n == 0 || fit->obs)
        return CR_ERR_INVALID;
    for (size_t i = 0; i < n; i++)
        if (!(obs[i].sigma > 0) || !isfinite(obs[i].value))
            return CR_ERR_INVALID;
    fit->obs = malloc(n * sizeof *obs);
    fit->model_value = malloc(n * sizeof(double));
    fit->data_name = strdup(name ? name : "(data)");
    if (!fit->obs || !fit->model_value || !fit->data_name)
        return CR_ERR_NOMEM;
    memcpy(fit->obs, obs, n * sizeof *obs);
    fit->n = n;
    choose_tolerances(fit, model_rtol(fit));
    double *p = malloc((fit->np + 1) * sizeof(double));
    if (!p)
        return CR_ERR_NOMEM;
    for (size_t j = 0; j < fit->np; j++)
        p[j] = fit->par[j].start;
    size_t row;
    char why[CR_ERRMSG_LEN];
    fit->runs++;
    int rc = fit_evaluate(fit, fit->text, fit->len, fit->name, p, fit->obs, n, fit->model_value,
                          &row, why, sizeof why);
    free(p);
    if (rc == CR_ERR_MODEL && row < n)
        return bad_row(fit, &fit->obs[row], why);
    if (rc != CR_OK) {
        cr_set_msg(fit->msg, sizeof fit->msg, "%s: %s", fit->name, why);
        return rc;
    }
    fit->chi2_start = fit->chi2 = 0;
    for (size_t i = 0; i < n; i++) {
        double r = (fit->model_value[i] - obs[i].value) / obs[i].sigma;
        fit->chi2_start += r * r;
    }
    fit->chi2 = fit->chi2_start;
    return CR_OK;
}

/* The trust-region solver's settings: Levenberg–Marquardt steps, Moré's
 * scaling (the parameters' units differ by orders of magnitude), GSL's
 * central-difference Jacobian with the step of choose_tolerances. */
static gsl_multifit_nlinear_parameters solver_parameters(const cr_fit *fit)
{
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    fp.trs = gsl_multifit_nlinear_trs_lm;
    fp.scale = gsl_multifit_nlinear_scale_more;
    fp.fdtype = GSL_MULTIFIT_NLINEAR_CTRDIFF;
    fp.h_df = fit->h_df;
    return fp;
}

/* Covariance in u from the weighted Jacobian J, then in field units
 * C_p = D C_u D with D = diag(dp/du). */
static int store_covariance(cr_fit *fit, const gsl_matrix *J, const gsl_vector *u)
{
    size_t np = fit->np;
    gsl_matrix *cu = gsl_matrix_alloc(np, np);
    if (!cu)
        return CR_ERR_NOMEM;
    gsl_multifit_nlinear_covar(J, 0.0, cu);
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < np; j++) {
            double di = fit_param_dp_du(&fit->par[i], gsl_vector_get(u, i));
            double dj = fit_param_dp_du(&fit->par[j], gsl_vector_get(u, j));
            fit->covar_u[i * np + j] = gsl_matrix_get(cu, i, j);
            fit->covar[i * np + j] = di * dj * gsl_matrix_get(cu, i, j);
        }
    gsl_matrix_free(cu);
    for (size_t j = 0; j < np; j++)
        fit->par[j].std_error = sqrt(fit->covar[j * np + j]);
    return CR_OK;
}

static void store_result(cr_fit *fit, gsl_multifit_nlinear_workspace *w)
{
    const gsl_vector *u = gsl_multifit_nlinear_position(w);
    const gsl_vector *f = gsl_multifit_nlinear_residual(w);
    for (size_t j = 0; j < fit->np; j++)
        fit->par[j].value = fit_param_from_u(&fit->par[j], gsl_vector_get(u, j));
    fit->chi2 = 0;
    for (size_t i = 0; i < fit->n; i++) {
        double r = gsl_vector_get(f, i);
        fit->model_value[i] = fit->obs[i].value + fit->obs[i].sigma * r;
        fit->chi2 += r * r;
    }
    fit->iterations = gsl_multifit_nlinear_niter(w);
}

static const char *reason(int status, int info)
{
    if (status == GSL_SUCCESS)
        return info == 1 ? "step" : info == 2 ? "gradient" : "cost";
    if (status == GSL_EMAXITER)
        return "iteration limit reached";
    if (status == GSL_ENOPROG)
        return "no further progress (cost flat to the solver's accuracy)";
    return gsl_strerror(status);
}

int cr_fit_run(cr_fit *fit)
{
    if (!fit || !fit->obs || fit->np == 0 || fit->fitted)
        return CR_ERR_INVALID;
    if (fit->n < fit->np) {
        cr_set_msg(fit->msg, sizeof fit->msg,
                   "%s: %zu observations for %zu parameters: the fit needs at least as many",
                   fit->data_name, fit->n, fit->np);
        return CR_ERR_MODEL;
    }
    /* GSL's default handler aborts: off while GSL runs (the library never
     * aborts), the caller's handler put back after */
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    size_t np = fit->np;
    fit->covar_u = calloc(np * np, sizeof(double));
    fit->covar = calloc(np * np, sizeof(double));
    fit_ctx c;
    ctx_init(&c, fit, fit->text, fit->len, fit->name, fit->obs, fit->n, 1);
    gsl_multifit_nlinear_parameters fp = solver_parameters(fit);
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, fit->n, np);
    gsl_vector *u0 = gsl_vector_alloc(np);
    int rc = c.p && c.y && w && u0 && fit->covar_u && fit->covar ? CR_OK : CR_ERR_NOMEM;
    if (rc == CR_OK) {
        for (size_t j = 0; j < np; j++)
            gsl_vector_set(u0, j, fit_param_to_u(&fit->par[j], fit->par[j].start));
        gsl_multifit_nlinear_fdf fdf = {residuals, NULL, NULL, fit->n, np, &c, 0, 0, 0};
        gsl_multifit_nlinear_init(u0, &fdf, w);
        int info = 0;
        int status = gsl_multifit_nlinear_driver(fit->max_iterations, 1e-8, 1e-8, 1e-10, NULL, NULL,
                                                 &info, w);
        store_result(fit, w);
        rc = store_covariance(fit, gsl_multifit_nlinear_jac(w), gsl_multifit_nlinear_position(w));
        fit->fitted = 1;
        fit->converged = status == GSL_SUCCESS;
        fit->convergence = reason(status, info);
        if (rc == CR_OK && !fit->converged) {
            rc = CR_ERR_NOT_CONVERGED;
            cr_set_msg(fit->msg, sizeof fit->msg,
                       "the fit did not converge: %s after %zu iterations", fit->convergence,
                       fit->iterations);
        }
    }
    gsl_vector_free(u0);
    gsl_multifit_nlinear_free(w);
    ctx_free(&c);
    gsl_set_error_handler(handler);
    return rc;
}

int cr_fit_get_summary(const cr_fit *fit, cr_fit_summary *s)
{
    if (!fit || !s)
        return CR_ERR_INVALID;
    s->parameters = fit->np;
    s->observations = fit->n;
    s->runs = fit->runs;
    s->iterations = fit->iterations;
    s->failed_runs = fit->failed_runs;
    s->last_failure = fit->last_failure;
    s->converged = fit->converged;
    s->convergence = fit->convergence;
    s->chi2_start = fit->chi2_start;
    s->chi2 = fit->chi2;
    s->rtol = fit->rtol;
    s->atol = fit->atol;
    s->h_df = fit->h_df;
    return CR_OK;
}

size_t cr_fit_parameter_count(const cr_fit *fit)
{
    return fit ? fit->np : 0;
}

const char *cr_fit_parameter_path(const cr_fit *fit, size_t j)
{
    return fit && j < fit->np ? fit->par[j].path : NULL;
}

int cr_fit_get_parameter(const cr_fit *fit, size_t j, double *start, double *value,
                         double *std_error, double *lo, double *hi)
{
    if (!fit || j >= fit->np)
        return CR_ERR_INVALID;
    const fit_param *k = &fit->par[j];
    if (start)
        *start = k->start;
    if (value)
        *value = k->value;
    if (std_error)
        *std_error = k->std_error;
    if (lo)
        *lo = k->lo;
    if (hi)
        *hi = k->hi;
    return CR_OK;
}

double cr_fit_correlation(const cr_fit *fit, size_t i, size_t j)
{
    if (!fit || !fit->fitted || i >= fit->np || j >= fit->np)
        return NAN;
    size_t np = fit->np;
    return fit->covar[i * np + j] / sqrt(fit->covar[i * np + i] * fit->covar[j * np + j]);
}

size_t cr_fit_observation_count(const cr_fit *fit)
{
    return fit ? fit->n : 0;
}

const cr_fit_observation *cr_fit_observation_at(const cr_fit *fit, size_t i)
{
    return fit && i < fit->n ? &fit->obs[i] : NULL;
}

int cr_fit_get_residual(const cr_fit *fit, size_t i, double *model, double *residual)
{
    if (!fit || i >= fit->n || !fit->model_value)
        return CR_ERR_INVALID;
    if (model)
        *model = fit->model_value[i];
    if (residual)
        *residual = (fit->model_value[i] - fit->obs[i].value) / fit->obs[i].sigma;
    return CR_OK;
}

/* GSL's finite-difference Jacobian of @p c's residuals at u (the rule the
 * solver uses: central differences, step h_df·|u_j|, h_df when u_j = 0;
 * the residuals at u, @p f, are not needed by central differences). */
static int fd_jacobian(fit_ctx *c, const gsl_vector *u, const gsl_vector *f, gsl_matrix *J)
{
    cr_fit *fit = c->fit;
    gsl_vector *work = gsl_vector_alloc(c->n);
    if (!work)
        return CR_ERR_NOMEM;
    gsl_multifit_nlinear_fdf fdf = {residuals, NULL, NULL, c->n, fit->np, c, 0, 0, 0};
    gsl_multifit_nlinear_df(fit->h_df, GSL_MULTIFIT_NLINEAR_CTRDIFF, u, NULL, &fdf, f, J, work);
    gsl_vector_free(work);
    if (c->failed) {
        cr_set_msg(fit->msg, sizeof fit->msg, "%s: %s", c->name, c->why);
        return CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* u of the parameters @p p (NULL: the fit's result). */
static gsl_vector *u_of(const cr_fit *fit, const double *p)
{
    gsl_vector *u = gsl_vector_alloc(fit->np);
    for (size_t j = 0; u && j < fit->np; j++)
        gsl_vector_set(u, j, fit_param_to_u(&fit->par[j], p ? p[j] : fit->par[j].value));
    return u;
}

int cr_fit_jacobian(cr_fit *fit, const double *params, double *J)
{
    if (!fit || !params || !J || !fit->obs)
        return CR_ERR_INVALID;
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    fit_ctx c;
    ctx_init(&c, fit, fit->text, fit->len, fit->name, fit->obs, fit->n, 1);
    gsl_vector *u = u_of(fit, params), *f = gsl_vector_calloc(fit->n);
    gsl_matrix *Ju = gsl_matrix_alloc(fit->n, fit->np);
    int rc = c.p && c.y && u && f && Ju ? fd_jacobian(&c, u, f, Ju) : CR_ERR_NOMEM;
    for (size_t i = 0; rc == CR_OK && i < fit->n; i++)
        for (size_t j = 0; j < fit->np; j++)
            J[i * fit->np + j] = gsl_matrix_get(Ju, i, j) * fit->obs[i].sigma /
                                 fit_param_dp_du(&fit->par[j], gsl_vector_get(u, j));
    gsl_vector_free(u);
    gsl_vector_free(f);
    gsl_matrix_free(Ju);
    ctx_free(&c);
    gsl_set_error_handler(handler);
    return rc;
}

/* sigma = √(g C_u gᵀ), g = ∂y/∂u of the rows (their values at the result are
 * in @p value already). */
static int predict_sigma(fit_ctx *c, const double *value, double *sigma)
{
    cr_fit *fit = c->fit;
    size_t np = fit->np;
    gsl_vector *u = u_of(fit, NULL), *f = gsl_vector_alloc(c->n);
    gsl_matrix *J = gsl_matrix_alloc(c->n, np);
    int rc = u && f && J ? CR_OK : CR_ERR_NOMEM;
    for (size_t i = 0; rc == CR_OK && i < c->n; i++)
        gsl_vector_set(f, i, value[i]);
    if (rc == CR_OK)
        rc = fd_jacobian(c, u, f, J);
    for (size_t i = 0; rc == CR_OK && i < c->n; i++) {
        double v = 0;
        for (size_t a = 0; a < np; a++)
            for (size_t b = 0; b < np; b++)
                v += gsl_matrix_get(J, i, a) * fit->covar_u[a * np + b] * gsl_matrix_get(J, i, b);
        sigma[i] = sqrt(fmax(v, 0.0));
    }
    gsl_vector_free(u);
    gsl_vector_free(f);
    gsl_matrix_free(J);
    return rc;
}

int cr_fit_predict(cr_fit *fit, const char *text, size_t len, const char *name,
                   const cr_fit_observation *obs, size_t n, double *value, double *sigma)
{
    if (!fit || !text || !obs || !value || !sigma || !fit->fitted || n == 0)
        return CR_ERR_INVALID;
    for (size_t j = 0; j < fit->np; j++) {
        double v;
        if (fit_field_value(text, len, fit->par[j].path, &v) != 0) {
            cr_set_msg(fit->msg, sizeof fit->msg,
                       "%s: %s: no number there to set the fitted "
                       "value into",
                       name, fit->par[j].path);
            return CR_ERR_MODEL;
        }
    }
    double *p = malloc((fit->np + 1) * sizeof(double));
    if (!p)
        return CR_ERR_NOMEM;
    for (size_t j = 0; j < fit->np; j++)
        p[j] = fit->par[j].value;
    size_t row;
    char why[CR_ERRMSG_LEN];
    fit->runs++;
    int rc = fit_evaluate(fit, text, len, name, p, obs, n, value, &row, why, sizeof why);
    free(p);
    if (rc == CR_ERR_MODEL && row < n) {
        int on_index = strncmp(why, "the model has", 13) == 0;
        cr_set_msg(fit->msg, sizeof fit->msg, "%s: row of line %zu (%s): %s", name, obs[row].line,
                   on_index ? "index" : "time", why);
        return rc;
    }
    if (rc != CR_OK) {
        cr_set_msg(fit->msg, sizeof fit->msg, "%s: %s", name, why);
        return rc;
    }
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    fit_ctx c;
    ctx_init(&c, fit, text, len, name, obs, n, 0);
    rc = c.p && c.y ? predict_sigma(&c, value, sigma) : CR_ERR_NOMEM;
    ctx_free(&c);
    gsl_set_error_handler(handler);
    return rc;
}

int cr_fit_synthesize(const cr_fit *fit, unsigned long seed, double *values)
{
    if (!fit || !values || !fit->obs)
        return CR_ERR_INVALID;
    gsl_rng *rng = seed ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    if (seed && !rng)
        return CR_ERR_NOMEM;
    if (rng)
        gsl_rng_set(rng, seed);
    for (size_t i = 0; i < fit->n; i++)
        values[i] = fit->model_value[i] + (rng ? gsl_ran_gaussian(rng, fit->obs[i].sigma) : 0.0);
    gsl_rng_free(rng);
    return CR_OK;
}
