/*
 * FIT.h5 (docs/hdf5-layout.md, "Fit files"): the fit's parameters, covariance,
 * correlations and per-row residuals, with provenance (the model and data
 * texts, the command, the solver's settings) as the reference tables carry
 * theirs. Written to a temporary file beside the target and renamed over it
 * when complete.
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/h5-util.h"
#include "fit/fit-priv.h"

/* Layout version of fit files (docs/hdf5-layout.md, "Fit files"). */
#define FIT_FORMAT_VERSION 1

typedef struct {
    double start, value, std_error, lo, hi;
} param_row;

typedef struct {
    int64_t line, index;
    int observable;
    double time, value, sigma, model, residual;
} obs_row;

static int write_parameters(hid_t g, const cr_fit *fit)
{
    size_t np = fit->np;
    param_row *rows = calloc(np + 1, sizeof *rows);
    const char **paths = calloc(np + 1, sizeof(char *));
    if (!rows || !paths) {
        free(rows);
        free(paths);
        return -1;
    }
    for (size_t j = 0; j < np; j++) {
        const fit_param *k = &fit->par[j];
        rows[j] = (param_row){k->start, k->value, k->std_error, k->lo, k->hi};
        paths[j] = k->path;
    }
    const cr_h5_column c[] = {
        CR_H5_COL(param_row, start, H5T_NATIVE_DOUBLE, "field units"),
        CR_H5_COL(param_row, value, H5T_NATIVE_DOUBLE, "field units"),
        CR_H5_COL(param_row, std_error, H5T_NATIVE_DOUBLE, "field units"),
        CR_H5_COL(param_row, lo, H5T_NATIVE_DOUBLE, "field units (NaN: unbounded)"),
        CR_H5_COL(param_row, hi, H5T_NATIVE_DOUBLE, "field units (NaN: unbounded)")};
    int e = cr_h5_write_table(g, "parameters", sizeof *rows, c, 5, rows, np,
                              "one row per --vary field, in the order given");
    hid_t d = e ? -1 : H5Dopen2(g, "parameters", H5P_DEFAULT);
    e = e || d < 0 || cr_h5_attr_strings(d, "paths", paths, np);
    if (d >= 0)
        H5Dclose(d);
    e = e || cr_h5_write_doubles(g, "covariance", fit->covar, np, np, "field units squared");
    double *corr = malloc(np * np * sizeof(double));
    for (size_t i = 0; corr && i < np; i++)
        for (size_t j = 0; j < np; j++)
            corr[i * np + j] = cr_fit_correlation(fit, i, j);
    e = e || !corr || cr_h5_write_doubles(g, "correlation", corr, np, np, "1");
    free(corr);
    free(rows);
    free(paths);
    return e ? -1 : 0;
}

static hid_t observable_enum(void)
{
    const char *names[CR_FIT_OBSERVABLE_COUNT];
    for (int k = 0; k < CR_FIT_OBSERVABLE_COUNT; k++)
        names[k] = cr_fit_observable_name(k);
    return cr_h5_enum(names, CR_FIT_OBSERVABLE_COUNT);
}

static int write_rows(hid_t g, const char *name, const cr_fit_observation *o, size_t n,
                      const double *model, const double *sigma_model, const char *description)
{
    obs_row *rows = calloc(n + 1, sizeof *rows);
    hid_t kind = observable_enum();
    if (!rows || kind < 0) {
        free(rows);
        if (kind >= 0)
            H5Tclose(kind);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = (obs_row){(int64_t)o[i].line, o[i].index, (int)o[i].kind, o[i].time,
                            o[i].value,         o[i].sigma, model[i],       NAN};
        if (sigma_model)
            rows[i].residual = sigma_model[i];
        else
            rows[i].residual = (model[i] - o[i].value) / o[i].sigma;
    }
    cr_h5_column c[] = {CR_H5_COL(obs_row, line, H5T_NATIVE_INT64, "line of the data file"),
                        CR_H5_COL(obs_row, observable, kind, NULL),
                        CR_H5_COL(obs_row, time, H5T_NATIVE_DOUBLE, "s"),
                        CR_H5_COL(obs_row, index, H5T_NATIVE_INT64, "body or contact (-1: none)"),
                        CR_H5_COL(obs_row, value, H5T_NATIVE_DOUBLE, "observable's"),
                        CR_H5_COL(obs_row, sigma, H5T_NATIVE_DOUBLE, "observable's"),
                        CR_H5_COL(obs_row, model, H5T_NATIVE_DOUBLE, "observable's"),
                        CR_H5_COL(obs_row, residual, H5T_NATIVE_DOUBLE,
                                  sigma_model ? "observable's: propagated standard uncertainty"
                                              : "1: (model - value) / sigma")};
    if (sigma_model)
        c[7].name = "model_sigma";
    int e = cr_h5_write_table(g, name, sizeof *rows, c, 8, rows, n, description);
    H5Tclose(kind);
    free(rows);
    return e;
}

static int write_attrs(hid_t g, const cr_fit *fit, const cr_fit_file_info *in)
{
    cr_fit_summary s;
    cr_fit_get_summary(fit, &s);
    return cr_h5_attr_string(g, "kind", "cradle fit") ||
           cr_h5_attr_string(g, "cradle_version", cr_version()) ||
           cr_h5_attr_string(g, "status", s.converged ? "converged" : "not-converged") ||
           cr_h5_attr_string(g, "convergence", s.convergence) ||
           cr_h5_attr_string(g, "model_path", in->model_path ? in->model_path : "") ||
           cr_h5_attr_string(g, "data_path", in->data_path ? in->data_path : "") ||
           cr_h5_attr_string(g, "command", in->command ? in->command : "") ||
           cr_h5_attr_string(g, "solver",
                             "GSL gsl_multifit_nlinear, trust region, Levenberg-Marquardt, "
                             "More scaling, central-difference Jacobian") ||
           cr_h5_attr_string(g, "bounds", "p = lo + (hi - lo)(1 + tanh u)/2") ||
           cr_h5_attr_double(g, "rtol", s.rtol) || cr_h5_attr_double(g, "atol", s.atol) ||
           cr_h5_attr_double(g, "h_df", s.h_df) || cr_h5_attr_double(g, "chi2", s.chi2) ||
           cr_h5_attr_double(g, "chi2_start", s.chi2_start) ||
           cr_h5_attr_int64(g, "runs", (int64_t)s.runs) ||
           cr_h5_attr_int64(g, "failed_runs", (int64_t)s.failed_runs) ||
           cr_h5_attr_string(g, "last_failure", s.last_failure) ||
           cr_h5_attr_int64(g, "iterations", (int64_t)s.iterations) ||
           cr_h5_attr_int64(g, "observations", (int64_t)s.observations) ||
           cr_h5_attr_int64(g, "parameters", (int64_t)s.parameters);
}

static int write_prediction(hid_t f, const cr_fit_file_info *in)
{
    hid_t g = H5Gcreate2(f, "prediction", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = g < 0 || cr_h5_attr_string(g, "model_path", in->predict_model_path) ||
            cr_h5_write_text(g, "model_text", in->predict_model_text, "UTF-8 model file text") ||
            write_rows(g, "observations", in->predict_obs, in->predict_count, in->predict_value,
                       in->predict_sigma, "the rows predicted with the fitted parameters");
    if (g >= 0)
        H5Gclose(g);
    return e;
}

static int write_file(const char *path, const cr_fit *fit, const cr_fit_file_info *in)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = f < 0 ? -1 : H5Gcreate2(f, "fit", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    /* the root says what the file is, as run and sweep files do */
    int e = g < 0 || cr_h5_attr_string(f, "kind", "cradle fit") ||
            cr_h5_attr_int64(f, "format_version", FIT_FORMAT_VERSION) || write_attrs(g, fit, in) ||
            cr_h5_write_text(g, "model_text", fit->text, "UTF-8 model file text") ||
            cr_h5_write_text(g, "data_text", in->data_text, "UTF-8 data file text") ||
            write_parameters(g, fit) ||
            write_rows(g, "observations", fit->obs, fit->n, fit->model_value, NULL,
                       "the data file's rows with the model's values at the result");
    if (g >= 0 && H5Gclose(g) < 0)
        e = 1;
    if (!e && in->predict_model_path && in->predict_count)
        e = write_prediction(f, in);
    if (f >= 0 && H5Fclose(f) < 0)
        e = 1;
    return e;
}

int cr_fit_write(const cr_fit *fit, const char *path, const cr_fit_file_info *info, char *msg,
                 size_t msglen)
{
    if (!fit || !path || !info || !fit->model_value || !fit->covar)
        return CR_ERR_INVALID;
    char *tmp = malloc(strlen(path) + 32);
    if (!tmp)
        return CR_ERR_NOMEM;
    sprintf(tmp, "%s.tmp%ld", path, (long)getpid());
    int rc = CR_OK;
    H5E_BEGIN_TRY
    {
        if (write_file(tmp, fit, info)) {
            cr_set_msg(msg, msglen, "%s: cannot write the fit file", path);
            rc = CR_ERR_HDF5;
        }
    }
    H5E_END_TRY;
    if (rc == CR_OK && rename(tmp, path) != 0) {
        cr_set_msg(msg, msglen, "%s: cannot rename into place: %s", path, strerror(errno));
        rc = CR_ERR_IO;
    }
    if (rc != CR_OK)
        remove(tmp);
    free(tmp);
    return rc;
}
