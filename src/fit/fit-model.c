/*
 * One model run of a fit (cradle/fit.h): the model file with the parameters
 * and the tightened tolerances set as overrides (the `--set` machinery, so a
 * value goes through every check a value in the file gets), its damping
 * targets solved, the engine, the monitor, the rows evaluated. Also the
 * bounds transform and the lookup of a field's value in the file.
 */
#include <libfyaml.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/yaml.h"
#include "cradle/calibrate.h"
#include "cradle/modelfile.h"
#include "fit/fit-priv.h"

/* p = lo + (hi − lo)(1 + tanh u)/2 keeps lo < p < hi for every u; no bounds: p = u. */
double fit_param_from_u(const fit_param *k, double u)
{
    if (isnan(k->lo))
        return u;
    return k->lo + 0.5 * (k->hi - k->lo) * (1.0 + tanh(u));
}

double fit_param_to_u(const fit_param *k, double p)
{
    if (isnan(k->lo))
        return p;
    return atanh(2.0 * (p - k->lo) / (k->hi - k->lo) - 1.0);
}

double fit_param_dp_du(const fit_param *k, double u)
{
    if (isnan(k->lo))
        return 1.0;
    double t = tanh(u);
    return 0.5 * (k->hi - k->lo) * (1.0 - t * t);
}

/* The node at a `--set` path ("balls[1].mass", "balls.1.mass"), or NULL. */
static struct fy_node *node_at(struct fy_node *n, const char *path)
{
    char seg[128];
    const char *p = path;
    while (n && *p) {
        size_t l = strcspn(p, ".[]");
        if (l == 0 || l >= sizeof seg)
            return NULL;
        memcpy(seg, p, l);
        seg[l] = '\0';
        p += l;
        while (*p == '.' || *p == '[' || *p == ']')
            p++;
        if (fy_node_is_mapping(n)) {
            n = cr_yaml_child(n, seg);
        } else if (fy_node_is_sequence(n)) {
            char *end;
            long i = strtol(seg, &end, 10);
            n = *end || i < 0 ? NULL : fy_node_sequence_get_by_index(n, (int)i);
        } else
            return NULL;
    }
    return n;
}

int fit_field_value(const char *text, size_t len, const char *path, double *value)
{
    char msg[CR_ERRMSG_LEN];
    cr_yaml_ctx ps = {"model", msg, sizeof msg, CR_OK, NULL, 0};
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (!doc)
        return -1;
    struct fy_node *n = node_at(fy_document_root(doc), path);
    int rc = 1;
    if (n) {
        const char *s = fy_node_is_scalar(n) ? cr_yaml_text(n) : NULL;
        char *end = NULL;
        *value = s ? strtod(s, &end) : NAN;
        rc = s && end != s && *end == '\0' && isfinite(*value) ? 0 : 2;
    }
    fy_document_destroy(doc);
    return rc;
}

/* The model with the parameters and tolerances set, damping targets solved. */
static cr_model *model_at(const cr_fit *fit, const char *text, size_t len, const char *name,
                          const double *p, char *why, size_t whylen)
{
    size_t ni = fit->np + 3; /* the fit's tolerances replace integration.accuracy */
    char **items = calloc(ni, sizeof(char *));
    int rc = items ? CR_OK : CR_ERR_NOMEM;
    for (size_t j = 0; rc == CR_OK && j < fit->np; j++) {
        size_t l = strlen(fit->par[j].path) + 40;
        if (!(items[j] = malloc(l)))
            rc = CR_ERR_NOMEM;
        else
            snprintf(items[j], l, "%s=%.17g", fit->par[j].path, p[j]);
    }
    if (rc == CR_OK && (items[fit->np] = malloc(64)) && (items[fit->np + 1] = malloc(64)) &&
        (items[fit->np + 2] = malloc(64))) {
        snprintf(items[fit->np], 64, "integration.accuracy=0");
        snprintf(items[fit->np + 1], 64, "integration.rtol=%.3g", fit->rtol);
        snprintf(items[fit->np + 2], 64, "integration.atol=%.3g", fit->atol);
    } else
        rc = CR_ERR_NOMEM;
    cr_model *model = NULL;
    if (rc == CR_OK) {
        cr_modelfile_sets sets = {(const char *const *)items, ni, "fit: "};
        rc = cr_modelfile_parse_set(text, len, name, &sets, &model, NULL, why, whylen);
        if (rc == CR_OK && cr_calibrate_model(model, why, whylen) != CR_OK) {
            cr_model_destroy(model);
            model = NULL;
        }
    } else
        cr_set_msg(why, whylen, "out of memory");
    for (size_t j = 0; items && j < ni; j++)
        free(items[j]);
    free(items);
    return model;
}

/* Evaluates the rows on a finished run. */
static int observe_rows(const cr_system *sys, const cr_monitor *mon, const cr_fit_observation *obs,
                        size_t n, double *y, size_t *bad_row, char *why, size_t whylen)
{
    for (size_t i = 0; i < n; i++) {
        int rc = cr_fit_observe(sys, mon, &obs[i], &y[i], why, whylen);
        if (rc != CR_OK) {
            *bad_row = i;
            return rc;
        }
    }
    return CR_OK;
}

int fit_evaluate(const cr_fit *fit, const char *text, size_t len, const char *name, const double *p,
                 const cr_fit_observation *obs, size_t n, double *y, size_t *bad_row, char *why,
                 size_t whylen)
{
    *bad_row = (size_t)-1;
    cr_model *model = model_at(fit, text, len, name, p, why, whylen);
    if (!model)
        return CR_ERR_MODEL;
    for (size_t i = 0; i < n; i++)
        if (obs[i].kind == CR_FIT_SWING_EXTREME) { /* located only when asked: the rows ask */
            cr_settings set = *cr_model_settings(model);
            set.swing_extremes = 1;
            cr_model_set_settings(model, &set);
            break;
        }
    cr_system *sys = cr_system_create(model, why, whylen);
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    int rc = mon ? CR_OK : sys ? CR_ERR_NOMEM : CR_ERR_MODEL;
    if (rc == CR_OK && (rc = cr_system_run(sys, cr_model_settings(model)->t_end)) != CR_OK)
        cr_set_msg(why, whylen, "run: %s", cr_system_last_error(sys));
    if (rc == CR_OK && (rc = cr_monitor_finish(mon)) != CR_OK)
        cr_set_msg(why, whylen, "monitor: %s", cr_monitor_last_error(mon));
    if (rc == CR_OK)
        rc = observe_rows(sys, mon, obs, n, y, bad_row, why, whylen);
    else if (rc != CR_ERR_MODEL)
        rc = CR_ERR_SOLVER;
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
    return rc;
}

int cr_fit_field_value(const char *text, size_t len, const char *path, double *value,
                       const char **why)
{
    if (!text || !path || !value)
        return CR_ERR_INVALID;
    int rc = fit_field_value(text, len, path, value);
    if (why)
        *why = rc == 1 ? "missing" : rc == 2 ? "not a number" : rc < 0 ? "does not parse" : "";
    return rc == 0 ? CR_OK : rc < 0 ? CR_ERR_SYNTAX : CR_ERR_MODEL;
}
