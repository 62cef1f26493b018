/* cradle run [MODEL] [-o FILE]: one path for every engine. Read the model,
 * build the system, attach the monitor, the store and the progress line, run,
 * keep what was computed whatever happens, report. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "run-report.h"
#include "tools-common.h"

static cr_system *volatile running;

static void on_stop_signal(int sig)
{
    (void)sig;
    if (running)
        cr_system_request_stop(running);
}

void usage_run(FILE *out)
{
    fprintf(out,
            "usage: cradle run [MODEL] [-o FILE] [-q] [--json] [--cases DIR]\n"
            "                  [--rigid LAW [--restitution E] [--kappa K --alpha A[,A...]]]\n"
            "\n"
            "Integrates the compliant model in MODEL (YAML, see docs/model-format.md):\n"
            "a chain (dim 1) or a planar pool (dim 2). Every contact closing, maximum\n"
            "compression and release is located; impact episodes are monitored; the\n"
            "trajectory, events and episodes go to FILE (HDF5, docs/hdf5-layout.md).\n"
            "\n"
            "  MODEL               model file (default: %s)\n"
            "  -o, --output FILE   output file (default: cradle-out.h5)\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -j, --json          print the summary and the impact episodes as JSON\n"
            "  -c, --cases DIR     write each episode as a law case (M, W, u-, measured\n"
            "                      kappa, alpha, e_N) for `cradle law`\n"
            "      --rigid LAW     run the same chain as rigid balls, every impact resolved\n"
            "                      by LAW of `cradle law --list` (docs/design.md, Rigid\n"
            "                      engine); links and pools are refused\n"
            "      --restitution E restitution of every pair (default: 1 for undamped pair\n"
            "                      laws, the model's restitution target; a damped pair\n"
            "                      needs E)\n"
            "      --kappa K       energetic law: the energetic coefficient T+/T-\n"
            "      --alpha A,...   energetic law: impulse weights, one or one per pair\n"
            "  -h, --help          show this help\n"
            "\n"
            "Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops the run at the next step and keeps\n"
            "a valid file whose 'status' attribute says \"interrupted\"; a solver failure\n"
            "keeps one that says \"failed\" and why. Exit status: 0 done, 2 usage, 3 bad\n"
            "input, 4 run failure, 130 interrupted (docs/errors.md).\n",
            tools_default_model());
}

typedef struct {
    const char *out, *cases, *model;
    int quiet, json;
    const char *rigid, *alpha; /* --rigid LAW, --alpha list */
    cr_law_id law;
    double restitution, kappa; /* NaN: not given */
} run_args;

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

/* --rigid and its parameters: the law exists and gets what it needs, no more. */
static int check_rigid(run_args *a)
{
    int has_e = !isnan(a->restitution), has_k = !isnan(a->kappa) || a->alpha;
    if (!a->rigid) {
        if (has_e || has_k)
            tools_error("%s needs --rigid LAW", has_e ? "--restitution" : "--kappa/--alpha");
        return has_e || has_k ? EXIT_USAGE : 0;
    }
    if (strcmp(a->rigid, "calibrated") == 0) {
        tools_error("--rigid calibrated: the laws' parameters measured on the compliant run, "
                    "episode by episode, are the comparator's job (cradle compare), not built yet");
        return EXIT_USAGE;
    }
    if (strcmp(a->rigid, "lzb") == 0 && cr_law_from_name(a->rigid, &a->law) != CR_OK) {
        tools_error("--rigid lzb: the LZB law is not in the law core yet (cradle law --list)");
        return EXIT_USAGE;
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
    if (energetic && (isnan(a->kappa) || !a->alpha)) {
        tools_error("--rigid energetic needs --kappa K and --alpha A[,A...] (Acary & Taha 2005 "
                    "eq. 17-18; from a reference table later)");
        return EXIT_USAGE;
    }
    return 0;
}

/* @return 0, or an exit status. */
static int parse_args(int argc, char **argv, run_args *a)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"cases", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"rigid", required_argument, NULL, 'R'},
                                         {"restitution", required_argument, NULL, 'E'},
                                         {"kappa", required_argument, NULL, 'K'},
                                         {"alpha", required_argument, NULL, 'A'},
                                         {NULL, 0, NULL, 0}};
    *a = (run_args){"cradle-out.h5", NULL, NULL, 0, 0, NULL, NULL, CR_LAW_NEWTON, NAN, NAN};
    int c, st;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qjc:h", opts, NULL)) != -1) {
        switch (c) {
        case 'R':
            a->rigid = optarg;
            break;
        case 'E':
            if ((st = number_arg("--restitution", optarg, &a->restitution)) != 0)
                return st;
            break;
        case 'K':
            if ((st = number_arg("--kappa", optarg, &a->kappa)) != 0)
                return st;
            break;
        case 'A':
            a->alpha = optarg;
            break;
        case 'o':
            a->out = optarg;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'c':
            a->cases = optarg;
            break;
        case 'h':
            usage_run(stdout);
            return -1;
        default:
            usage_run(stderr);
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        const char *extra = argv[optind + 1];
        size_t n = strlen(extra);
        if (n > 3 && strcmp(extra + n - 3, ".h5") == 0)
            tools_error("run takes one model file; to name the output, use -o %s", extra);
        else
            tools_error("run takes one model file, got %d arguments", argc - optind);
        return EXIT_USAGE;
    }
    a->model = optind < argc ? argv[optind] : tools_default_model();
    return check_rigid(a);
}

/* --alpha: one weight for every pair, or one per pair of the model; into a new
 * array of @p nc values. @return 0 or EXIT_INPUT / EXIT_USAGE with the message. */
static int alpha_weights(const run_args *a, size_t nc, double **out)
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
    if (st == 0 && n != 1 && n != nc)
        tools_error("--alpha: %zu values for the %zu pairs of %s (give one, or one per pair)", n,
                    nc, a->model),
            st = EXIT_INPUT;
    for (size_t c = 1; st == 0 && n == 1 && c < nc; c++)
        w[c] = w[0];
    free(copy);
    if (st != 0)
        free(w);
    *out = st == 0 ? w : NULL;
    return st;
}

/* The system: compliant, or rigid under the law asked for. */
static cr_system *make_system(const run_args *a, const cr_model *model, int *st)
{
    char msg[1024];
    cr_system *sys = NULL;
    double *alpha = NULL;
    *st = EXIT_INPUT;
    if (!a->rigid) {
        sys = cr_system_create(model, msg, sizeof msg);
    } else {
        cr_law_params lp;
        cr_law_params_init(&lp);
        lp.restitution = a->restitution; /* NaN: each pair's own */
        lp.kappa = a->kappa;
        if (a->alpha && (*st = alpha_weights(a, cr_model_contact_count(model), &alpha)) != 0)
            return NULL;
        lp.alpha = alpha;
        sys = cr_system_create_rigid(model, a->law, &lp, msg, sizeof msg);
        *st = EXIT_INPUT;
    }
    if (!sys)
        tools_error("%s: %s", a->model, msg);
    free(alpha);
    return sys;
}

/* The model of @p path, calibrated; @return NULL with the message printed. */
static cr_model *load_model(const char *path, char **text)
{
    char msg[1024];
    size_t len = 0;
    cr_model *model = NULL;
    *text = cr_file_read(path, &len, msg, sizeof msg, NULL);
    if (!*text) {
        tools_error("%s", msg);
        return NULL;
    }
    if (cr_modelfile_parse(*text, len, path, &model, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return NULL;
    }
    if (cr_calibrate_model(model, msg, sizeof msg) != CR_OK) {
        tools_error("%s: calibration: %s", path, msg);
        cr_model_destroy(model);
        return NULL;
    }
    return model;
}

/* A progress line on a terminal, at most twice a second. */
typedef struct {
    double t_end, last, start;
} progress;

static int show_progress(const cr_system *sys, void *user)
{
    progress *p = user;
    double now = tools_now();
    if (now - p->last < 0.5)
        return CR_OK;
    p->last = now;
    double t = cr_system_get_time(sys);
    if (p->t_end > 0)
        fprintf(stderr, "\r  t = %.6g s (%.0f %%), %zu events, %.0f s  ", t, 100 * t / p->t_end,
                cr_system_event_count(sys), now - p->start);
    else
        fprintf(stderr, "\r  t = %.6g s, %zu events, %.0f s  ", t, cr_system_event_count(sys),
                now - p->start);
    return CR_OK;
}

/* The pieces of one run, freed together. */
typedef struct {
    cr_model *model;
    char *text;
    cr_system *sys;
    cr_monitor *mon;
    cr_store *store;
    progress prog;
} run_state;

static void release(run_state *r)
{
    cr_monitor_destroy(r->mon);
    cr_store_destroy(r->store);
    cr_system_destroy(r->sys);
    cr_model_destroy(r->model);
    free(r->text);
}

/* Model, system, store, monitor: @return 0 or an exit status (message printed). */
static int set_up(const run_args *a, run_state *r)
{
    char msg[1024];
    if (!(r->model = load_model(a->model, &r->text)))
        return EXIT_INPUT;
    int st;
    if (!(r->sys = make_system(a, r->model, &st)))
        return st;
    msg[0] = '\0';
    if (!(r->store =
              cr_store_create(a->out, r->sys, r->model, a->model, r->text, msg, sizeof msg))) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    if (msg[0]) /* a stale temporary file kept under another name: always said */
        tools_error("%s", msg);
    if (!(r->mon = cr_monitor_create(r->sys))) {
        tools_error("out of memory");
        return EXIT_RUN;
    }
    r->prog = (progress){cr_model_settings(r->model)->t_end, tools_now(), tools_now()};
    if (isatty(STDERR_FILENO) && !a->quiet)
        cr_system_add_output_listener(r->sys, show_progress, &r->prog);
    return 0;
}

/* Closes the file as what the run became; @return the exit status. */
static int finish(const run_args *a, run_state *r, int rc)
{
    if (rc == CR_ERR_INVALID) {
        /* a setting the engine refused before the first step: bad input, no file */
        tools_error("%s: %s", a->model, cr_system_last_error(r->sys));
        return EXIT_INPUT;
    }
    const char *status = rc == CR_OK                ? "complete"
                         : rc == CR_ERR_INTERRUPTED ? "interrupted"
                                                    : "failed";
    char why[1024];
    snprintf(why, sizeof why, "%s", rc == CR_OK ? "" : cr_system_last_error(r->sys));
    cr_monitor_finish(r->mon);
    if (cr_store_write_episodes(r->store, r->mon) != CR_OK ||
        cr_store_commit(r->store, status, rc == CR_OK ? NULL : why) != CR_OK) {
        /* a write error (disk full): that is the error to report */
        tools_error("%s", cr_store_last_error(r->store));
        return EXIT_RUN;
    }
    if (rc == CR_ERR_INTERRUPTED) {
        tools_error("%s; partial results kept in %s", why, a->out);
        return EXIT_INTERRUPTED;
    }
    if (rc != CR_OK) {
        tools_error("%s: %s; what was computed is kept in %s (status failed)", a->model, why,
                    a->out);
        return EXIT_RUN;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int st = parse_args(argc, argv, &a);
    if (st != 0)
        return st < 0 ? 0 : st;
    char msg[1024];
    if (tools_check_output(a.out, a.model, msg, sizeof msg) != 0) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    run_state r = {0};
    if ((st = set_up(&a, &r)) != 0) {
        release(&r);
        return st;
    }
    run_info info = {r.model, a.model, a.out, 0.0, {0, 0, 0}, 0.0};
    info.E0 = cr_system_kinetic_energy(r.sys) + cr_system_potential_energy(r.sys);
    cr_system_momentum(r.sys, info.p0);
    running = r.sys;
    tools_catch_stop_signals(on_stop_signal);
    double t0 = tools_now();
    int rc = cr_system_run(r.sys, cr_model_settings(r.model)->t_end);
    info.wall = tools_now() - t0;
    running = NULL;
    if (isatty(STDERR_FILENO) && !a.quiet)
        fputs("\r\033[K", stderr);
    st = finish(&a, &r, rc);
    if (st == 0 && a.json && report_json(&info, r.sys, r.mon) != 0)
        st = EXIT_RUN;
    if (st == 0 && !a.json && !a.quiet) {
        report_summary(&info, r.sys);
        char law[256];
        if (cr_system_rigid_law(r.sys, law, sizeof law) == CR_OK)
            printf("  rigid run: law %s\n", law);
        report_episodes(r.sys, r.mon);
    }
    if (st == 0 && a.cases && report_cases(a.cases, &info, r.mon) != 0)
        st = EXIT_RUN;
    release(&r);
    return st;
}
