/**
 * @file fit.h
 * @brief Fitting model-file fields to measurements (docs/fit.md): nonlinear
 * least squares over any fields a `--set` path names, the observables a
 * measurement gives (read from the monitor's collisions and episodes, paired
 * by time window and bodies), standard errors and correlations from the
 * Jacobian at the optimum, and predictions on another model with their
 * propagated uncertainty.
 *
 * The solver is GSL's gsl_multifit_nlinear (trust region, Levenberg–Marquardt
 * steps, geodesic acceleration) on the weighted residuals (model − value)/σ;
 * its Jacobian is GSL's central finite difference with a step tied to the
 * integration tolerance, which the fit tightens itself (cr_fit_summary::rtol,
 * h_df). Bounds LO < p < HI are kept by the transform
 * p = LO + (HI − LO)(1 + tanh u)/2: the solver moves u freely.
 *
 * Create, configure, run, query: cr_fit_create → cr_fit_add_parameter per
 * field → cr_fit_set_data → cr_fit_run → cr_fit_get_* → cr_fit_predict.
 * Nothing is printed.
 */
#ifndef CRADLE_FIT_H
#define CRADLE_FIT_H

#include "cradle/common.h"
#include "cradle/monitor.h"
#include "cradle/system.h"

/** What one row of a data file measures (docs/fit.md, "Observables"). */
typedef enum {
    /** a body's velocity after the collision of that body nearest the time (its u⁺ at the
     * end of its last episode in the collision), m/s; index: the body */
    CR_FIT_VELOCITY_AFTER = 0,
    /** the time a contact stays closed in the episode of that contact nearest the time,
     * from its first closing (or the episode's start when it was touching) to its last
     * opening, s; index: the contact (a chain's contact c joins bodies c and c + 1) */
    CR_FIT_CONTACT_DURATION,
    /** −v_cm⁺/v_cm⁻ over the moving bodies of the collision nearest the time; no index */
    CR_FIT_E_CM,
    /** the time from the first to the last contact opening of the collision nearest the
     * time, or of the whole run when the time is empty, s; no index */
    CR_FIT_OPENING_SPAN,
    /** the located force maximum of a contact in the episode of that contact nearest the
     * time (cr_system_locates_force_peaks: the compliant engines), N; index: the contact */
    CR_FIT_PEAK_FORCE,
    /** a pendulum ball's turning point nearest the time: its arc s from the bottom
     * (s = L θ), m, at a located swing-extreme event (root of ṡ = 0; the fit turns
     * on `output.swing_extremes`); index: the body */
    CR_FIT_SWING_EXTREME,
    CR_FIT_OBSERVABLE_COUNT
} cr_fit_observable;

/** "velocity_after", "contact_duration", "e_cm", "opening_span", "peak_force",
 * "swing_extreme"; NULL
 * otherwise. */
CR_EXPORT const char *cr_fit_observable_name(int kind);

/** One row of a data file. */
typedef struct {
    cr_fit_observable kind;
    double time;     /**< s; NaN: none given (opening_span: the whole run) */
    long index;      /**< body or contact; −1 when the observable takes none */
    double value;    /**< the measurement (NaN in a prediction's rows) */
    double sigma;    /**< its standard uncertainty, > 0 (NaN in a prediction's rows) */
    size_t line;     /**< line in the data file, for messages */
    int time_column; /**< 1-based columns of time and index, for messages */
    int index_column;
} cr_fit_observation;

/** Rows a data file may hold. */
#define CR_FIT_MAX_ROWS 100000

/**
 * Parses a data file (CSV with a header naming the columns observable, time,
 * index, value, sigma in any order; docs/fit.md). With @p need_values 0 the
 * value and sigma columns may be absent or empty (rows to predict).
 * @return CR_OK and a new array (free()) of @p n rows in @p out, or
 * CR_ERR_SYNTAX / CR_ERR_MODEL / CR_ERR_NOMEM with "file:line:column: field:
 * reason" in @p msg.
 */
CR_EXPORT int cr_fit_data_parse(const char *text, size_t len, const char *filename, int need_values,
                                cr_fit_observation **out, size_t *n, char *msg, size_t msglen);

/**
 * Evaluates one observable on a finished run (its system and monitor after
 * cr_monitor_finish). Collisions and episodes are chosen by bodies and time:
 * the one of the body (contact) whose start is nearest the time, and only
 * within the pairing window (half the shortest time between two collisions
 * of one moving body, as cr_compare_runs pairs them): never by index.
 * @return CR_OK, CR_ERR_MODEL when the run has no such body, contact or
 * collision (the reason in @p why), CR_ERR_INVALID.
 */
CR_EXPORT int cr_fit_observe(const cr_system *sys, const cr_monitor *mon,
                             const cr_fit_observation *obs, double *value, char *why,
                             size_t whylen);

/**
 * The number at a `--set` path of the YAML model text: CR_OK; CR_ERR_MODEL
 * when the path is not there (@p why "missing") or holds no number (@p why
 * "not a number"); CR_ERR_SYNTAX when the text does not parse.
 */
CR_EXPORT int cr_fit_field_value(const char *text, size_t len, const char *path, double *value,
                                 const char **why);

typedef struct cr_fit cr_fit;

/** Iterations of the trust-region solver before a fit stops unconverged. */
#define CR_FIT_DEFAULT_MAX_ITERATIONS 50

/**
 * A fit of the model in @p text (@p name in messages). @return NULL when out
 * of memory.
 */
CR_EXPORT cr_fit *cr_fit_create(const char *text, size_t len, const char *name);
/** Frees; accepts NULL. */
CR_EXPORT void cr_fit_destroy(cr_fit *fit);
/** The reason of the last failure (one line). */
CR_EXPORT const char *cr_fit_last_error(const cr_fit *fit);

/**
 * Varies the field at @p path (a `--set` path, docs/model-format.md
 * "Overrides") from the value the model file gives it. @p lo, @p hi: bounds
 * (both NaN: none), LO < start < HI. @return CR_OK, or CR_ERR_MODEL when the
 * path is not in the file, its value is not a number, the bounds are not
 * LO < HI or do not hold the start value.
 */
CR_EXPORT int cr_fit_add_parameter(cr_fit *fit, const char *path, double lo, double hi);

/**
 * The measurements (copied); @p name names the data file in messages. Runs
 * the model once at the start values and evaluates every row: a row the run
 * cannot give (no such body or contact, no collision near its time) is
 * CR_ERR_MODEL with "name:line:column: field: reason". CR_ERR_SOLVER when the
 * model itself does not run.
 */
CR_EXPORT int cr_fit_set_data(cr_fit *fit, const cr_fit_observation *obs, size_t n,
                              const char *name);
CR_EXPORT int cr_fit_set_max_iterations(cr_fit *fit, size_t max_iterations);

/**
 * Fits (once per fit object). @return CR_OK (converged), CR_ERR_NOT_CONVERGED
 * (the results hold the last iterate), CR_ERR_MODEL (fewer rows than
 * parameters), CR_ERR_INVALID (no data, no parameter, already run), or
 * CR_ERR_NOMEM.
 */
CR_EXPORT int cr_fit_run(cr_fit *fit);

/**
 * Synthetic data: the rows' values at the start (cr_fit_set_data's run) plus
 * Gaussian noise of each row's σ from GSL's MT19937 seeded with @p seed
 * (0: no noise), into @p values. @return CR_OK, CR_ERR_INVALID before data.
 */
CR_EXPORT int cr_fit_synthesize(const cr_fit *fit, unsigned long seed, double *values);

/** Scalars of a fit. */
typedef struct {
    size_t parameters, observations;
    size_t runs;       /**< model runs made (start, iterations, Jacobians, predictions) */
    size_t iterations; /**< trust-region iterations */
    /** runs at trial points that failed (a run error, a row's collision gone): each
     * was given residuals of 10¹⁰, so the solver turned back; the last reason in
     * last_failure ("" when none) */
    size_t failed_runs;
    const char *last_failure;
    int converged;           /**< 1: a convergence test held (reason in convergence) */
    const char *convergence; /**< "step", "gradient", "cost", or why not */
    double chi2_start;       /**< Σ ((model − value)/σ)² at the start values */
    double chi2;             /**< the same at the result */
    double rtol, atol;       /**< the runs' tolerances (the model's, tightened) */
    double h_df;             /**< the finite-difference step (relative; absolute in u) */
} cr_fit_summary;

CR_EXPORT int cr_fit_get_summary(const cr_fit *fit, cr_fit_summary *s);
CR_EXPORT size_t cr_fit_parameter_count(const cr_fit *fit);
CR_EXPORT const char *cr_fit_parameter_path(const cr_fit *fit, size_t j);
/** Start, result and standard error (from (JᵀJ)⁻¹ of the weighted Jacobian at the
 * result, σ as given: no rescaling by χ²); bounds NaN when none. */
CR_EXPORT int cr_fit_get_parameter(const cr_fit *fit, size_t j, double *start, double *value,
                                   double *std_error, double *lo, double *hi);
/** Correlation of parameters i and j at the result (NaN before cr_fit_run). */
CR_EXPORT double cr_fit_correlation(const cr_fit *fit, size_t i, size_t j);
CR_EXPORT size_t cr_fit_observation_count(const cr_fit *fit);
CR_EXPORT const cr_fit_observation *cr_fit_observation_at(const cr_fit *fit, size_t i);
/** The model's value of row @p i at the result and the residual (model − value)/σ. */
CR_EXPORT int cr_fit_get_residual(const cr_fit *fit, size_t i, double *model, double *residual);

/**
 * ∂(model value of row i)/∂(parameter j) at @p params (the fit's parameters,
 * in field units), by the fit's finite-difference rule on the unbounded
 * transform, divided by dp/du: row-major n × p into @p J. For tests and
 * checks. @return CR_OK or CR_ERR_SOLVER.
 */
CR_EXPORT int cr_fit_jacobian(cr_fit *fit, const double *params, double *J);

/**
 * The observables @p obs (value and sigma ignored) on the model @p text with
 * the fitted parameters set (each path must be in it): @p value gets the
 * predictions and @p sigma their propagated standard uncertainty
 * √(g C gᵀ), g the prediction's Jacobian, C the fit's covariance.
 * @return CR_OK, CR_ERR_MODEL (a path or a row the model does not have; the
 * reason in cr_fit_last_error), CR_ERR_SOLVER, CR_ERR_INVALID before cr_fit_run.
 */
CR_EXPORT int cr_fit_predict(cr_fit *fit, const char *text, size_t len, const char *name,
                             const cr_fit_observation *obs, size_t n, double *value, double *sigma);

/** What a fit file records besides the fit (provenance). */
typedef struct {
    const char *model_path, *data_path, *data_text, *command;
    /* a prediction (NULL model_path: none) */
    const char *predict_model_path, *predict_model_text;
    const cr_fit_observation *predict_obs;
    const double *predict_value, *predict_sigma;
    size_t predict_count;
} cr_fit_file_info;

/**
 * Writes FIT.h5 (docs/hdf5-layout.md, "Fit files"): written beside @p path
 * and renamed over it when complete, so a failure leaves what was there.
 * @return CR_OK, or CR_ERR_HDF5 / CR_ERR_IO with the reason in @p msg.
 */
CR_EXPORT int cr_fit_write(const cr_fit *fit, const char *path, const cr_fit_file_info *info,
                           char *msg, size_t msglen);

#endif
