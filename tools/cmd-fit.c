/* cradle fit MODEL DATA.csv --vary PATH[=LO:HI] ...: least squares of model
 * fields to measured observables (docs/fit.md), with standard errors,
 * correlations, residuals, FIT.h5 and a prediction on another model. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cradle/cradle.h"
#include "model-input.h"
#include "tools-common.h"
#include "tools-json.h"

#define MAX_VARY 32

void usage_fit(FILE *out)
{
    fputs("usage: cradle fit MODEL DATA.csv --vary PATH[=LO:HI] ... [-o FIT.h5] [--json]\n"
          "                  [--set PATH=VALUE ...] [--predict OTHER_MODEL\n"
          "                  [--predict-data ROWS.csv]] [--max-iter N] [-q]\n"
          "       cradle fit MODEL ROWS.csv --synthetic SEED [--set PATH=VALUE ...]\n"
          "\n"
          "Fits the model-file fields named by --vary (the paths of --set, e.g.\n"
          "contact.C, balls[2].gap) to the measurements in DATA.csv (one row per\n"
          "observation with its uncertainty: observable,time,index,value,sigma;\n"
          "docs/fit.md) by nonlinear least squares (GSL's trust region,\n"
          "Levenberg-Marquardt). Prints the fitted values with standard errors, their\n"
          "correlations, the residual of every row and the number of runs.\n"
          "\n"
          "  --vary PATH[=LO:HI] a field to fit, starting from the model file's value;\n"
          "                      LO:HI bounds it (LO < start < HI); repeat it\n"
          "  -s, --set PATH=VALUE set a field of MODEL first (a start value, say)\n"
          "  -o, --output FIT.h5 write the fit with its provenance (docs/hdf5-layout.md)\n"
          "  -j, --json          print the result as JSON\n"
          "  --predict MODEL2    run the fitted values on MODEL2 (the same fields must be\n"
          "                      in it) and print the rows of DATA.csv (or of\n"
          "                      --predict-data ROWS.csv, value and sigma optional)\n"
          "                      with their propagated uncertainty\n"
          "  --max-iter N        trust-region iterations at most (default 50)\n"
          "  --synthetic SEED    no fit: print ROWS.csv as a data file whose values are\n"
          "                      MODEL's plus Gaussian noise of each row's sigma (GSL's\n"
          "                      MT19937 seeded with SEED; 0: no noise)\n"
          "  -q, --quiet         print nothing but errors\n"
          "\n"
          "Exit status: 0 converged; 3 bad input (one line naming file, line, column);\n"
          "4 a run failed or the fit did not converge (the last iterate is reported and\n"
          "FIT.h5 written with status not-converged).\n",
          out);
}

typedef struct {
    const char *path;
    double lo, hi;
} vary_arg;

typedef struct {
    const char *model, *data, *out, *predict, *predict_data;
    vary_arg vary[MAX_VARY];
    size_t nvary, max_iter;
    int json, quiet;
    long synthetic; /* the seed; −1: fit */
    model_sets sets;
} fit_args;

/* "PATH" or "PATH=LO:HI". */
static int parse_vary(fit_args *a, const char *arg)
{
    if (a->nvary == MAX_VARY) {
        tools_error("fit: more than %d --vary options", MAX_VARY);
        return EXIT_USAGE;
    }
    vary_arg *v = &a->vary[a->nvary];
    static char paths[MAX_VARY][512];
    const char *eq = strchr(arg, '=');
    size_t l = eq ? (size_t)(eq - arg) : strlen(arg);
    if (l == 0 || l >= sizeof paths[0]) {
        tools_error("--vary %s: expects PATH or PATH=LO:HI, e.g. --vary contact.C=0:100", arg);
        return EXIT_USAGE;
    }
    memcpy(paths[a->nvary], arg, l);
    paths[a->nvary][l] = '\0';
    v->path = paths[a->nvary];
    v->lo = v->hi = NAN;
    if (eq) {
        char *end;
        v->lo = strtod(eq + 1, &end);
        int ok = end != eq + 1 && *end == ':';
        const char *h = end + 1;
        v->hi = ok ? strtod(h, &end) : NAN;
        if (!ok || end == h || *end || !isfinite(v->lo) || !isfinite(v->hi)) {
            tools_error("--vary %s: bounds must be two numbers LO:HI", arg);
            return EXIT_INPUT;
        }
        if (!(v->lo < v->hi)) {
            tools_error("--vary %s: bounds must be LO:HI with LO < HI", arg);
            return EXIT_INPUT;
        }
    }
    a->nvary++;
    return 0;
}

static int parse_args(int argc, char **argv, fit_args *a)
{
    static const struct option opts[] = {{"vary", required_argument, NULL, 'v'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"predict", required_argument, NULL, 'P'},
                                         {"predict-data", required_argument, NULL, 'D'},
                                         {"max-iter", required_argument, NULL, 'm'},
                                         {"set", required_argument, NULL, 's'},
                                         {"synthetic", required_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->max_iter = CR_FIT_DEFAULT_MAX_ITERATIONS;
    a->synthetic = -1;
    opterr = 0;
    int c, rc;
    char *end;
    while ((c = getopt_long(argc, argv, "o:jqhs:", opts, NULL)) != -1) {
        switch (c) {
        case 'v':
            if ((rc = parse_vary(a, optarg)) != 0)
                return rc;
            break;
        case 'o':
            a->out = optarg;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'P':
            a->predict = optarg;
            break;
        case 'D':
            a->predict_data = optarg;
            break;
        case 'm':
            a->max_iter = (size_t)strtoul(optarg, &end, 10);
            if (*end || a->max_iter == 0 || a->max_iter > 100000 || optarg[0] == '-') {
                tools_error("fit: --max-iter %s: a whole number from 1 to 100000", optarg);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if ((rc = model_sets_add(&a->sets, optarg)) != 0)
                return rc;
            break;
        case 'S':
            a->synthetic = strtol(optarg, &end, 10);
            if (*end || !*optarg || a->synthetic < 0) {
                tools_error("fit: --synthetic %s: a seed, a whole number >= 0", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            usage_fit(stdout);
            return -1;
        default:
            return tools_bad_option("fit", argv);
        }
    }
    if (argc - optind != 2) {
        tools_error("fit: give MODEL and DATA.csv (cradle help fit), got %d arguments",
                    argc - optind);
        return EXIT_USAGE;
    }
    a->model = argv[optind];
    a->data = argv[optind + 1];
    if (a->synthetic >= 0 && (a->nvary || a->predict || a->out)) {
        tools_error("fit: --synthetic makes data: no --vary, --predict or -o with it");
        return EXIT_USAGE;
    }
    if (a->nvary == 0 && a->synthetic < 0) {
        tools_error("fit: name the fields to fit with --vary PATH[=LO:HI]");
        return EXIT_USAGE;
    }
    if (a->predict_data && !a->predict) {
        tools_error("fit: --predict-data needs --predict MODEL2");
        return EXIT_USAGE;
    }
    return 0;
}

/* A whole input file; NULL with the message printed. */
static char *read_input(const char *path, size_t *len)
{
    char msg[1024];
    char *text = cr_file_read(path, len, msg, sizeof msg, NULL);
    if (!text)
        tools_error("%s", msg);
    return text;
}

/* The model text with the --set fields set (what is fitted), after checking
 * it reads as a model (its targets solved). */
static char *read_model(const char *path, const model_sets *sets, size_t *len)
{
    char *effective = NULL;
    cr_model *m = model_input_load(path, sets, 1, &effective);
    if (!m)
        return NULL;
    cr_model_destroy(m);
    *len = effective ? strlen(effective) : 0;
    return effective;
}

static int read_rows(const char *path, int need_values, cr_fit_observation **obs, size_t *n,
                     char **text)
{
    size_t len = 0;
    char msg[1024];
    if (!(*text = read_input(path, &len)))
        return EXIT_INPUT;
    if (cr_fit_data_parse(*text, len, path, need_values, obs, n, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    return 0;
}

static void print_parameters(const cr_fit *fit)
{
    size_t np = cr_fit_parameter_count(fit);
    printf("\n%-28s %14s %14s %12s  %s\n", "parameter", "start", "value", "std error", "bounds");
    for (size_t j = 0; j < np; j++) {
        double s, v, e, lo, hi;
        cr_fit_get_parameter(fit, j, &s, &v, &e, &lo, &hi);
        printf("%-28s %14.8g %14.8g %12.4g  ", cr_fit_parameter_path(fit, j), s, v, e);
        if (isnan(lo))
            printf("none\n");
        else
            printf("%g:%g\n", lo, hi);
    }
    printf("\ncorrelation\n");
    for (size_t i = 0; i < np; i++) {
        printf("%-28s", cr_fit_parameter_path(fit, i));
        for (size_t j = 0; j < np; j++)
            printf(" %8.4f", cr_fit_correlation(fit, i, j));
        printf("\n");
    }
}

static void print_row(const cr_fit_observation *o, double model, double last, int predicted)
{
    char t[32] = "-", i[32] = "-";
    if (!isnan(o->time))
        snprintf(t, sizeof t, "%.6g", o->time);
    if (o->index >= 0)
        snprintf(i, sizeof i, "%ld", o->index);
    printf("%5zu  %-17s %12s %6s %14.8g %10.3g %14.8g ", o->line, cr_fit_observable_name(o->kind),
           t, i, o->value, o->sigma, model);
    printf(predicted ? "%10.3g\n" : "%+10.3f\n", last);
}

static void print_text(const cr_fit *fit, const fit_args *a, const cr_fit_observation *pobs,
                       const double *pv, const double *ps, size_t pn)
{
    cr_fit_summary s;
    cr_fit_get_summary(fit, &s);
    printf("fit: %s to %s: %zu observations, %zu parameters\n", a->model, a->data, s.observations,
           s.parameters);
    printf("%s (%s) after %zu iterations, %zu runs; chi2 %.6g (start %.6g), %zu degrees of "
           "freedom\n",
           s.converged ? "converged" : "NOT converged", s.convergence, s.iterations, s.runs, s.chi2,
           s.chi2_start, s.observations - s.parameters);
    printf("runs at rtol %.3g, atol %.3g; central differences, step h_df = %.3g\n", s.rtol, s.atol,
           s.h_df);
    if (s.failed_runs)
        printf("%zu runs at trial points failed and were turned back from (the last: %s)\n",
               s.failed_runs, s.last_failure);
    print_parameters(fit);
    printf("\n%5s  %-17s %12s %6s %14s %10s %14s %10s\n", "line", "observable", "time", "index",
           "value", "sigma", "model", "residual");
    for (size_t i = 0; i < s.observations; i++) {
        double m, r;
        cr_fit_get_residual(fit, i, &m, &r);
        print_row(cr_fit_observation_at(fit, i), m, r, 0);
    }
    if (!pn)
        return;
    printf("\nprediction on %s (model: predicted value; last: its standard uncertainty)\n",
           a->predict);
    printf("%5s  %-17s %12s %6s %14s %10s %14s %10s\n", "line", "observable", "time", "index",
           "value", "sigma", "model", "sigma");
    for (size_t i = 0; i < pn; i++)
        print_row(&pobs[i], pv[i], ps[i], 1);
}

static json_object *json_row(const cr_fit_observation *o, double model, double last,
                             const char *last_name)
{
    json_object *r = json_object_new_object();
    json_object_object_add(r, "line", json_object_new_int64((int64_t)o->line));
    json_object_object_add(r, "observable",
                           json_object_new_string(cr_fit_observable_name(o->kind)));
    json_object_object_add(r, "time", tools_json_number(o->time));
    json_object_object_add(r, "index", o->index >= 0 ? json_object_new_int64(o->index) : NULL);
    json_object_object_add(r, "value", tools_json_number(o->value));
    json_object_object_add(r, "sigma", tools_json_number(o->sigma));
    json_object_object_add(r, "model", tools_json_number(model));
    json_object_object_add(r, last_name, tools_json_number(last));
    return r;
}

static json_object *json_parameters(const cr_fit *fit)
{
    json_object *arr = json_object_new_array();
    for (size_t j = 0; j < cr_fit_parameter_count(fit); j++) {
        double s, v, e, lo, hi;
        cr_fit_get_parameter(fit, j, &s, &v, &e, &lo, &hi);
        json_object *p = json_object_new_object();
        json_object_object_add(p, "path", json_object_new_string(cr_fit_parameter_path(fit, j)));
        json_object_object_add(p, "start", tools_json_number(s));
        json_object_object_add(p, "value", tools_json_number(v));
        json_object_object_add(p, "std_error", tools_json_number(e));
        json_object_object_add(p, "lo", tools_json_number(lo));
        json_object_object_add(p, "hi", tools_json_number(hi));
        json_object_array_add(arr, p);
    }
    return arr;
}

static int print_json(const cr_fit *fit, const fit_args *a, const cr_fit_observation *pobs,
                      const double *pv, const double *ps, size_t pn)
{
    cr_fit_summary s;
    cr_fit_get_summary(fit, &s);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "model", json_object_new_string(a->model));
    json_object_object_add(o, "data", json_object_new_string(a->data));
    json_object_object_add(o, "converged", json_object_new_boolean(s.converged));
    json_object_object_add(o, "convergence", json_object_new_string(s.convergence));
    json_object_object_add(o, "iterations", json_object_new_int64((int64_t)s.iterations));
    json_object_object_add(o, "runs", json_object_new_int64((int64_t)s.runs));
    json_object_object_add(o, "failed_runs", json_object_new_int64((int64_t)s.failed_runs));
    json_object_object_add(o, "last_failure", json_object_new_string(s.last_failure));
    json_object_object_add(o, "chi2", tools_json_number(s.chi2));
    json_object_object_add(o, "chi2_start", tools_json_number(s.chi2_start));
    json_object_object_add(o, "rtol", tools_json_number(s.rtol));
    json_object_object_add(o, "h_df", tools_json_number(s.h_df));
    json_object_object_add(o, "parameters", json_parameters(fit));
    size_t np = cr_fit_parameter_count(fit);
    json_object *corr = json_object_new_array();
    for (size_t i = 0; i < np; i++) {
        json_object *row = json_object_new_array();
        for (size_t j = 0; j < np; j++)
            json_object_array_add(row, tools_json_number(cr_fit_correlation(fit, i, j)));
        json_object_array_add(corr, row);
    }
    json_object_object_add(o, "correlation", corr);
    json_object *rows = json_object_new_array();
    for (size_t i = 0; i < s.observations; i++) {
        double m, r;
        cr_fit_get_residual(fit, i, &m, &r);
        json_object_array_add(rows, json_row(cr_fit_observation_at(fit, i), m, r, "residual"));
    }
    json_object_object_add(o, "observations", rows);
    if (pn) {
        json_object *p = json_object_new_object(), *pr = json_object_new_array();
        json_object_object_add(p, "model", json_object_new_string(a->predict));
        for (size_t i = 0; i < pn; i++)
            json_object_array_add(pr, json_row(&pobs[i], pv[i], ps[i], "model_sigma"));
        json_object_object_add(p, "observations", pr);
        json_object_object_add(o, "prediction", p);
    }
    int ok = puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                        JSON_C_TO_STRING_NOSLASHESCAPE)) >= 0;
    json_object_put(o);
    return ok ? 0 : EXIT_RUN;
}

/* The command line as run, for the file's provenance. */
static char *command_line(int argc, char **argv)
{
    size_t l = 16;
    for (int i = 0; i < argc; i++)
        l += strlen(argv[i]) + 1;
    char *s = malloc(l);
    if (!s)
        return NULL;
    strcpy(s, "cradle");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* Everything the command holds. */
typedef struct {
    char *model_text, *data_text, *predict_text, *predict_rows_text, *command;
    cr_fit_observation *obs, *pobs;
    size_t n, pn, model_len, predict_len;
    double *pv, *ps;
    cr_fit *fit;
} fit_state;

static void state_free(fit_state *st)
{
    free(st->model_text);
    free(st->data_text);
    free(st->predict_text);
    free(st->predict_rows_text);
    free(st->command);
    free(st->obs);
    free(st->pobs);
    free(st->pv);
    free(st->ps);
    cr_fit_destroy(st->fit);
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The inputs, every one checked before the first fit run. */
static int load_inputs(const fit_args *a, fit_state *st)
{
    char msg[1024];
    if (a->out) {
        /* none of the inputs, and no file that is not HDF5, is ever replaced */
        if (tools_check_output(a->out, a->model, msg, sizeof msg) != 0) {
            tools_error("%s", msg);
            return EXIT_INPUT;
        }
        const char *inputs[3] = {a->data, a->predict, a->predict_data};
        for (int k = 0; k < 3; k++)
            if (inputs[k] && same_file(a->out, inputs[k])) {
                tools_error("%s: the output is the input file %s itself: refusing to overwrite it",
                            a->out, inputs[k]);
                return EXIT_INPUT;
            }
        if (access(a->out, F_OK) == 0 && !tools_is_hdf5(a->out)) {
            tools_error("%s: exists and is not an HDF5 file: refusing to replace it", a->out);
            return EXIT_INPUT;
        }
    }
    if (!(st->model_text = read_model(a->model, &a->sets, &st->model_len)))
        return EXIT_INPUT;
    int rc = read_rows(a->data, a->synthetic < 0, &st->obs, &st->n, &st->data_text);
    if (rc)
        return rc;
    if (a->predict) {
        if (!(st->predict_text = read_model(a->predict, NULL, &st->predict_len)))
            return EXIT_INPUT;
        for (size_t j = 0; j < a->nvary; j++) {
            double v;
            const char *why;
            if (cr_fit_field_value(st->predict_text, st->predict_len, a->vary[j].path, &v, &why) !=
                CR_OK) {
                tools_error("--predict %s: %s: %s in it (the fitted value goes there)", a->predict,
                            a->vary[j].path, why);
                return EXIT_INPUT;
            }
        }
        if (a->predict_data &&
            (rc = read_rows(a->predict_data, 0, &st->pobs, &st->pn, &st->predict_rows_text)))
            return rc;
    }
    return 0;
}

static int setup_fit(const fit_args *a, fit_state *st)
{
    st->fit = cr_fit_create(st->model_text, st->model_len, a->model);
    if (!st->fit) {
        tools_error("fit: out of memory");
        return EXIT_RUN;
    }
    cr_fit_set_max_iterations(st->fit, a->max_iter);
    for (size_t j = 0; j < a->nvary; j++)
        if (cr_fit_add_parameter(st->fit, a->vary[j].path, a->vary[j].lo, a->vary[j].hi) != CR_OK) {
            tools_error("%s", cr_fit_last_error(st->fit));
            return EXIT_INPUT;
        }
    int rc = cr_fit_set_data(st->fit, st->obs, st->n, a->data);
    if (rc != CR_OK) {
        tools_error("%s", cr_fit_last_error(st->fit));
        return rc == CR_ERR_MODEL ? EXIT_INPUT : EXIT_RUN;
    }
    return 0;
}

static int predict(const fit_args *a, fit_state *st)
{
    const cr_fit_observation *rows = st->pobs ? st->pobs : st->obs;
    size_t n = st->pobs ? st->pn : st->n;
    st->pv = malloc(n * sizeof(double));
    st->ps = malloc(n * sizeof(double));
    if (!st->pv || !st->ps)
        return EXIT_RUN;
    int rc = cr_fit_predict(st->fit, st->predict_text, st->predict_len, a->predict, rows, n, st->pv,
                            st->ps);
    if (rc != CR_OK) {
        tools_error("--predict %s", cr_fit_last_error(st->fit));
        return rc == CR_ERR_MODEL ? EXIT_INPUT : EXIT_RUN;
    }
    if (!st->pobs)
        st->pobs = st->obs, st->obs = NULL;
    st->pn = n;
    return 0;
}

static int write_fit(const fit_args *a, fit_state *st)
{
    cr_fit_file_info info = {a->model, a->data, st->data_text, st->command, NULL,
                             NULL,     NULL,    NULL,          NULL,        0};
    if (st->pn) {
        info.predict_model_path = a->predict;
        info.predict_model_text = st->predict_text;
        info.predict_obs = st->pobs;
        info.predict_value = st->pv;
        info.predict_sigma = st->ps;
        info.predict_count = st->pn;
    }
    char msg[1024];
    if (cr_fit_write(st->fit, a->out, &info, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    return 0;
}

/* --synthetic: the rows with MODEL's values plus noise, as a data file. */
static int synthesize(const fit_args *a, fit_state *st)
{
    for (size_t i = 0; i < st->n; i++) {
        if (!(st->obs[i].sigma > 0)) {
            tools_error("%s:%zu: sigma: --synthetic needs each row's sigma (the noise)", a->data,
                        st->obs[i].line);
            return EXIT_INPUT;
        }
        st->obs[i].value = 0;
    }
    int rc = setup_fit(a, st);
    double *v = rc ? NULL : malloc(st->n * sizeof(double));
    if (!rc && (!v || cr_fit_synthesize(st->fit, (unsigned long)a->synthetic, v) != CR_OK))
        rc = EXIT_RUN;
    if (!rc) {
        printf("# cradle fit --synthetic %ld: %s, %s\n", a->synthetic, a->model,
               a->synthetic ? "Gaussian noise of each row's sigma" : "no noise");
        printf("observable,time,index,value,sigma\n");
        for (size_t i = 0; i < st->n; i++) {
            const cr_fit_observation *o = &st->obs[i];
            printf("%s,", cr_fit_observable_name(o->kind));
            if (!isnan(o->time))
                printf("%.12g", o->time);
            printf(",");
            if (o->index >= 0)
                printf("%ld", o->index);
            printf(",%.17g,%.12g\n", v[i], o->sigma);
        }
    }
    free(v);
    return rc;
}

int cmd_fit(int argc, char **argv)
{
    fit_args a;
    fit_state st = {0};
    /* before getopt_long permutes argv */
    st.command = command_line(argc, argv);
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(st.command);
        return rc < 0 ? 0 : rc;
    }
    rc = load_inputs(&a, &st);
    if (!rc && a.synthetic >= 0) {
        rc = synthesize(&a, &st);
        state_free(&st);
        return rc;
    }
    if (!rc)
        rc = setup_fit(&a, &st);
    int fit_rc = rc ? CR_OK : cr_fit_run(st.fit);
    if (!rc && fit_rc != CR_OK && fit_rc != CR_ERR_NOT_CONVERGED) {
        tools_error("fit: %s", cr_fit_last_error(st.fit));
        rc = fit_rc == CR_ERR_MODEL ? EXIT_INPUT : EXIT_RUN;
    }
    if (!rc && a.predict && fit_rc == CR_OK)
        rc = predict(&a, &st);
    if (!rc && !a.quiet)
        rc = a.json ? print_json(st.fit, &a, st.pobs, st.pv, st.ps, st.pn)
                    : (print_text(st.fit, &a, st.pobs, st.pv, st.ps, st.pn), 0);
    if (!rc && a.out)
        rc = write_fit(&a, &st);
    if (!rc && fit_rc == CR_ERR_NOT_CONVERGED) {
        tools_error("fit: %s%s%s", cr_fit_last_error(st.fit), a.out ? "; written to " : "",
                    a.out ? a.out : "");
        rc = EXIT_RUN;
    }
    state_free(&st);
    return rc;
}
