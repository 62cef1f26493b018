/* `cradle run --rigid LAW`: parsing and checking the rigid options, building
 * the rigid system (public API only). */
#include "run-rigid.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rigid-table.h"
#include "tools-common.h"

void rigid_args_init(rigid_args *r)
{
    *r = (rigid_args){NULL, NULL, NULL, CR_LAW_NEWTON, 0, NAN, NAN, NULL, NULL, 0, NULL};
}

/* A whole number argument of @p opt; @return 0, or EXIT_USAGE with the message. */
static int number_arg(const char *opt, const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(*out)) {
        tools_error("%s: not a number: '%s'", opt, text);
        return EXIT_USAGE;
    }
    return 0;
}

int rigid_option(int c, const char *arg, rigid_args *r)
{
    switch (c) {
    case RIGID_OPT_LAW:
        r->rigid = arg;
        return 0;
    case RIGID_OPT_E:
        return number_arg("--restitution", arg, &r->restitution);
    case RIGID_OPT_KAPPA:
        return number_arg("--kappa", arg, &r->kappa);
    case RIGID_OPT_ALPHA:
        r->alpha = arg;
        return 0;
    case RIGID_OPT_TABLE:
        r->table = arg;
        return 0;
    case RIGID_OPT_STRICT:
        r->strict = 1;
        return 0;
    case RIGID_OPT_CALIBRATE_ON:
        r->calibrate_on = arg;
        return 0;
    default:
        return -1;
    }
}

/* --rigid and its parameters: the law exists and gets what it needs, no more. */
int rigid_check(rigid_args *a)
{
    int has_e = !isnan(a->restitution), has_k = !isnan(a->kappa) || a->alpha;
    if (!a->rigid) {
        int any = has_e || has_k || a->strict || a->calibrate_on;
        if (any)
            tools_error("%s needs --rigid LAW", has_e ? "--restitution"
                                                : has_k
                                                    ? "--kappa/--alpha"
                                                    : (a->strict ? "--strict" : "--calibrate-on"));
        return any ? EXIT_USAGE : 0;
    }
    if (a->table && !a->rigid) {
        tools_error("--table needs --rigid energetic");
        return EXIT_USAGE;
    }
    if ((a->strict || a->calibrate_on) && strcmp(a->rigid, "calibrated") != 0) {
        tools_error("%s: only --rigid calibrated maps impacts to collisions",
                    a->strict ? "--strict" : "--calibrate-on");
        return EXIT_USAGE;
    }
    if (strcmp(a->rigid, "calibrated") == 0) {
        if (has_e || has_k || a->table) {
            tools_error("--rigid calibrated takes its parameters from the compliant run: no "
                        "--restitution, --kappa, --alpha or --table");
            return EXIT_USAGE;
        }
        a->calibrated = 1;
        a->law = CR_LAW_ENERGETIC;
        return 0;
    }
    if (cr_law_from_name(a->rigid, &a->law) != CR_OK) {
        const char *s = cr_law_suggest(a->rigid);
        tools_error("--rigid: unknown law '%s'%s%s%s (cradle law --list)", a->rigid,
                    s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
        return EXIT_USAGE;
    }
    int energetic = a->law == CR_LAW_ENERGETIC;
    if (has_e && (energetic || a->law == CR_LAW_MAX_DISSIPATION)) {
        tools_error("--restitution: law %s has no restitution", a->rigid);
        return EXIT_USAGE;
    }
    if (has_e && !(a->restitution >= 0.0 && a->restitution <= 1.0)) {
        tools_error("--restitution: must lie in [0, 1] (got %g)", a->restitution);
        return EXIT_USAGE;
    }
    if (has_k && !energetic) {
        tools_error("--kappa/--alpha: only the energetic law takes them (not %s)", a->rigid);
        return EXIT_USAGE;
    }
    if (a->table && !energetic) {
        tools_error("--table: only the energetic law reads a table (not %s)", a->rigid);
        return EXIT_USAGE;
    }
    if (a->table && has_k) {
        tools_error("--table gives kappa and alpha: no --kappa or --alpha with it");
        return EXIT_USAGE;
    }
    if (energetic && !a->table && (isnan(a->kappa) || !a->alpha)) {
        tools_error("--rigid energetic needs --kappa K and --alpha A[,A...] (Acary & Taha 2005 "
                    "eq. 17-18), --table TABLE, or use --rigid calibrated");
        return EXIT_USAGE;
    }
    return 0;
}

/* --alpha: one weight for every pair, or one per pair of the model; into a new
 * array of @p nc values. A pool (@p pool, nc = 2) has no pairs: its two weights are
 * those of the approaching and the merely touching contacts of an impact.
 * @return 0 or EXIT_INPUT / EXIT_USAGE with the message. */
static int alpha_weights(const rigid_args *a, const char *model_path, size_t nc, int pool,
                         double **out)
{
    size_t n = 1;
    for (const char *p = a->alpha; *p; p++)
        n += *p == ',';
    double *w = calloc(nc > n ? nc : n, sizeof(double));
    char *copy = strdup(a->alpha), *save = NULL;
    if (!w || !copy) {
        free(w);
        free(copy);
        tools_error("out of memory");
        return EXIT_RUN;
    }
    size_t k = 0;
    int st = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && st == 0; tok = strtok_r(NULL, ",", &save))
        st = number_arg("--alpha", tok, &w[k++]);
    if (st == 0 && k != n)
        tools_error("--alpha: an empty value in '%s'", a->alpha), st = EXIT_USAGE;
    if (st == 0 && n != 1 && n != nc && pool)
        tools_error("--alpha: %zu values for the pool %s (give one, or two: approaching and "
                    "touching contacts)",
                    n, model_path),
            st = EXIT_INPUT;
    else if (st == 0 && n != 1 && n != nc)
        tools_error("--alpha: %zu values for the %zu pairs of %s (give one, or one per pair)", n,
                    nc, model_path),
            st = EXIT_INPUT;
    for (size_t c = 1; st == 0 && n == 1 && c < nc; c++)
        w[c] = w[0];
    free(copy);
    if (st != 0)
        free(w);
    *out = st == 0 ? w : NULL;
    return st;
}

/* ---- --rigid calibrated ------------------------------------------------------ */

void rigid_args_free(rigid_args *r)
{
    cr_calibrated_rigid_destroy(r->calib);
    r->calib = NULL;
    rigid_table_free(r->tab);
    r->tab = NULL;
}

int rigid_calib_from_monitor(rigid_args *r, const cr_monitor *mon, size_t pairs)
{
    char msg[512];
    cr_calibrated_rigid *c = cr_calibrated_rigid_create(mon, pairs, msg, sizeof msg);
    if (!c) {
        tools_error("--rigid calibrated: %s", msg);
        return EXIT_INPUT;
    }
    cr_calibrated_rigid_destroy(r->calib);
    r->calib = c;
    return 0;
}

/* --calibrate-on FILE: the model whose compliant run lends α and κ, a chain
 * of as many pairs as @p model (NULL with the message printed). */
static cr_model *calibration_model(const char *path, const cr_model *model)
{
    char msg[1024];
    cr_model *m = NULL;
    if (cr_modelfile_load(path, &m, NULL, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(m, msg, sizeof msg) != CR_OK) {
        tools_error("--calibrate-on %s", msg);
        cr_model_destroy(m);
        return NULL;
    }
    if (cr_model_dimension(m) != 1 || cr_model_contact_count(m) != cr_model_contact_count(model)) {
        tools_error("--calibrate-on %s: a chain of %zu pairs calibrates a chain of %zu pairs only",
                    path, cr_model_contact_count(m), cr_model_contact_count(model));
        cr_model_destroy(m);
        return NULL;
    }
    return m;
}

/* The compliant run of @p model with a monitor, for its episodes; with
 * --calibrate-on, of that model instead (a prediction: docs/compare.md). */
static int compliant_episodes(rigid_args *a, const char *model_path, const cr_model *model)
{
    char msg[1024];
    cr_model *other = NULL;
    if (a->calibrate_on) {
        if (!(other = calibration_model(a->calibrate_on, model)))
            return EXIT_INPUT;
        model = other;
        model_path = a->calibrate_on;
    }
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    if (!sys) {
        tools_error("%s: %s", model_path, msg);
        cr_model_destroy(other);
        return EXIT_INPUT;
    }
    cr_monitor *mon = cr_monitor_create(sys);
    int rc = mon ? cr_system_run(sys, cr_model_settings(model)->t_end) : CR_ERR_NOMEM;
    int st = 0;
    if (rc != CR_OK) {
        tools_error("%s: --rigid calibrated: the compliant run failed: %s", model_path,
                    mon ? cr_system_last_error(sys) : "out of memory");
        st = rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    } else {
        cr_monitor_finish(mon);
        st = rigid_calib_from_monitor(a, mon, cr_model_contact_count(model));
    }
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(other);
    return st;
}

/* --rigid energetic --table: α and κ of each impact from the table. */
static cr_system *table_system(rigid_args *a, const char *model_path, const cr_model *model,
                               int *st)
{
    char msg[1024];
    *st = EXIT_INPUT;
    if (!a->tab && !(a->tab = rigid_table_open(a->table, model, msg, sizeof msg))) {
        tools_error("%s: --table %s", model_path, msg);
        return NULL;
    }
    /* placeholders, one per contact: each impact gets the table's */
    size_t nc = cr_model_contact_count(model);
    double *alpha = malloc((nc + 1) * sizeof(double));
    if (!alpha) {
        tools_error("out of memory");
        *st = EXIT_RUN;
        return NULL;
    }
    for (size_t c = 0; c <= nc; c++)
        alpha[c] = 1.0;
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.alpha = alpha;
    lp.kappa = 1.0;
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_ENERGETIC, &lp, msg, sizeof msg);
    free(alpha);
    if (!sys)
        tools_error("%s: %s", model_path, msg);
    else
        cr_system_rigid_set_provider(sys, rigid_table_params, a->tab, rigid_table_label(a->tab));
    return sys;
}

/* The system: compliant, or rigid under the law asked for. */
cr_system *rigid_or_compliant_system(rigid_args *a, const char *model_path, const cr_model *model,
                                     int *st)
{
    char msg[1024];
    cr_system *sys = NULL;
    double *alpha = NULL;
    *st = EXIT_INPUT;
    if (!a->rigid) {
        sys = cr_system_create(model, msg, sizeof msg);
    } else if (cr_model_dimension(model) == 3) { /* before any compliant run or file */
        tools_error("%s: --rigid %s: rigid runs of 3-D models (spheres) are not available yet; "
                    "the compliant run of the model works without --rigid",
                    model_path, a->rigid);
        return NULL;
    } else if (a->calibrated && cr_model_dimension(model) == 2) {
        tools_error("%s: --rigid calibrated: pools have no fixed pairs to carry each episode's "
                    "alpha; give --rigid energetic --kappa K --alpha A[,B]",
                    model_path);
        return NULL;
    } else if (a->calibrated) {
        /* the rigid system first: a model it refuses costs no compliant run */
        cr_law_params lp;
        cr_law_params_init(&lp);
        size_t nc = cr_model_contact_count(model);
        if (!(alpha = malloc((nc ? nc : 1) * sizeof(double)))) {
            tools_error("out of memory");
            *st = EXIT_RUN;
            return NULL;
        }
        for (size_t c = 0; c < nc; c++)
            alpha[c] = 1.0; /* placeholders: each impact gets its episode's */
        lp.alpha = alpha;
        lp.kappa = 1.0;
        sys = cr_system_create_rigid(model, CR_LAW_ENERGETIC, &lp, msg, sizeof msg);
        if (sys && !a->calib && (*st = compliant_episodes(a, model_path, model)) != 0) {
            cr_system_destroy(sys);
            free(alpha);
            return NULL;
        }
        /* each impact mapped to the compliant collision it stands for, whose α
         * and κ it takes once (cradle/calibrated.h); a borrowed κ below an
         * impact's feasible minimum is raised to it and counted */
        if (sys && cr_calibrated_rigid_attach(a->calib, sys, RIGID_CALIBRATED_LABEL) != CR_OK) {
            tools_error("%s: --rigid calibrated: the calibration does not fit this chain",
                        model_path);
            cr_system_destroy(sys);
            free(alpha);
            return NULL;
        }
    } else if (a->table) {
        return table_system(a, model_path, model, st);
    } else {
        cr_law_params lp;
        cr_law_params_init(&lp);
        lp.restitution = a->restitution; /* NaN: each pair's own */
        lp.kappa = a->kappa;
        int pool = cr_model_dimension(model) == 2;
        size_t nc = pool ? 2 : cr_model_contact_count(model);
        if (a->alpha && (*st = alpha_weights(a, model_path, nc, pool, &alpha)) != 0)
            return NULL;
        lp.alpha = alpha;
        sys = cr_system_create_rigid(model, a->law, &lp, msg, sizeof msg);
        *st = EXIT_INPUT;
    }
    if (!sys)
        tools_error("%s: %s", model_path, msg);
    free(alpha);
    return sys;
}
