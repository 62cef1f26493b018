/* cradle compare MODEL|RUN.h5: every rigid law on every impact episode,
 * calibrated and predictive (docs/compare.md); and `cradle law NAME --input
 * RUN.h5 --episode K`, one law on one episode read from a run file. */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare-report.h"
#include "compare-runs.h"
#include "compare-rigid.h"
#include "model-input.h"
#include "cradle/cradle.h"
#include "tools-common.h"
#include "tools-json.h"

/* Episodes whose table `cradle compare` prints (all go to CSV, JSON, HDF5). */
#define SHOWN_EPISODES 20
/* --error-estimate reruns at this fraction of the model's tolerances. */
#define ESTIMATE_FACTOR 1e-2

void usage_compare(FILE *out)
{
    fputs("usage: cradle compare MODEL|-|RUN.h5 [--set PATH=VALUE ...] [-o FILE]\n"
          "                      [--csv | --json] [--episode K] [--error-estimate] [-q]\n"
          "                      [--rigid-limit[=LEVELS[,RATIO]]]\n"
          "       cradle compare MODEL --rigid LAW [--rigid LAW ...] [--restitution E]\n"
          "                      [--kappa K --alpha A,...] [-o FILE] [--csv | --json] [-q]\n"
          "                      [--calibrate-on MODEL2] [--strict]\n"
          "\n"
          "Evaluates every rigid impact law on every impact episode of a compliant run,\n"
          "in two modes: calibrated (parameters measured on the same episode) and\n"
          "predictive (each contact's restitution from a two-body compliant run; lzb\n"
          "takes the pair laws in both), and reports per law u+, P, the error\n"
          "|u+law - u+|_M / |v_perp|_M, the energy and impulse errors, the law's own\n"
          "conditions and its status (docs/compare.md). A measured value outside a\n"
          "law's range (e_P > 1 on undamped chains) is used as it is, flagged\n"
          "out-of-range.\n"
          "A MODEL is run first; a RUN.h5 (from `cradle run`) is read as it is.\n"
          "With --rigid: the compliant run of MODEL against one rigid run per LAW\n"
          "(a law name, lzb, or calibrated: chains only; pools run rigid too),\n"
          "collision by collision (phase, u- and u+, energy, time to the next\n"
          "collision) and over the run (drift, energy decay);\n"
          "-o FILE holds the compliant run with that comparison (docs/compare.md).\n"
          "\n"
          "  -                   read the model from standard input\n"
          "  -s, --set PATH=VALUE\n"
          "                      set a model-file field of MODEL before it is read\n"
          "                      (as `cradle run --set`; repeat it)\n"
          "  -o, --output FILE   write a /comparison group: for a MODEL, FILE is the run's\n"
          "                      output; for RUN.h5, FILE may be RUN.h5 itself (replaced\n"
          "                      through a copy, never edited in place) or a new copy\n"
          "  -e, --episode K     only episode K (0-based)\n"
          "      --csv           one line per law, mode and episode (one header line)\n"
          "  -j, --json          everything as one JSON object\n"
          "  -E, --error-estimate\n"
          "                      rerun at rtol/100 and report the change of alpha, kappa,\n"
          "                      e_N, e_P as their accuracy\n"
          "  -R, --rigid-limit[=LEVELS[,RATIO]]\n"
          "                      pools: rerun each episode with K x RATIO^k (k < LEVELS;\n"
          "                      default 5,10), C scaled to keep restitution, and\n"
          "                      extrapolate alpha and u+ to K -> infinity (a table\n"
          "                      after the comparison; not with --csv or --json)\n"
          "      --table TABLE   predictive alpha and kappa of the energetic law from a\n"
          "                      reference table (data/, docs/tables.md) when it covers\n"
          "                      the episode; an episode of its configuration outside\n"
          "                      its axes is refused (exit 5)\n"
          "      --calibrate-on MODEL2\n"
          "                      --rigid calibrated: take alpha and kappa from the compliant\n"
          "                      run of MODEL2 (a prediction), not of MODEL\n"
          "      --strict        --rigid calibrated: a rigid impact whose bodies differ\n"
          "                      from the compliant collision's is an error (exit 6)\n"
          "  -q, --quiet         no table\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 done, 2 usage, 3 bad input (no episodes, an episode out of\n"
          "range, an unreadable file), 4 run or write failure, 5 an episode outside the\n"
          "--table's axes, 6 --strict mismatch, 130 interrupted.\n",
          out);
}

typedef struct {
    model_io io; /* -o, -q, -j, --set */
    const char *input;
    int csv, estimate;
    long episode; /* −1: all */
    char command[1024];
    compare_runs_args runs;    /* --rigid LAW ...: compare over a run */
    int rigid;                 /* --rigid-limit */
    cr_rigid_limit_options rl; /* its levels */
} compare_args;

static long parse_index(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= 0 ? v : -2;
}

static void keep_command(compare_args *a, int argc, char **argv)
{
    size_t used = (size_t)snprintf(a->command, sizeof a->command, "cradle");
    for (int i = 0; i < argc && used < sizeof a->command; i++)
        used += (size_t)snprintf(a->command + used, sizeof a->command - used, " %s", argv[i]);
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    static const struct option opts[] = {MODEL_IO_LONG_OPTIONS,
                                         {"episode", required_argument, NULL, 'e'},
                                         {"csv", no_argument, NULL, 'C'},
                                         {"error-estimate", no_argument, NULL, 'E'},
                                         {"help", no_argument, NULL, 'h'},
                                         RIGID_LONG_OPTIONS,
                                         {"rigid-limit", optional_argument, NULL, 'R'},
                                         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    a->episode = -1;
    compare_runs_init(&a->runs);
    keep_command(a, argc, argv);
    int c, st;
    optind = 1;
    opterr = 0; /* tools_bad_option says it in one line */
    while ((c = getopt_long(argc, argv, MODEL_IO_SHORT_OPTIONS "e:EhR", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if ((a->episode = parse_index(optarg)) < 0) {
                tools_error("compare: --episode takes a whole number >= 0 (got '%s')", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'C':
            a->csv = 1;
            break;
        case 'E':
            a->estimate = 1;
            break;
        case 'R':
            a->rigid = 1;
            if (compare_rigid_parse(optarg, &a->rl) != 0) {
                tools_error("compare: --rigid-limit=LEVELS[,RATIO]: 3 to %d levels, a ratio > 1 "
                            "(got '%s')",
                            CR_RIGID_LIMIT_MAX_LEVELS, optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            usage_compare(stdout);
            return -1;
        default:
            if ((st = model_io_option(c, optarg, &a->io)) >= 0 ||
                (st = compare_runs_option(c, optarg, &a->runs)) >= 0) {
                if (st != 0)
                    return st;
                break;
            }
            return tools_bad_option("compare", argv);
        }
    }
    if ((st = compare_runs_check(&a->runs)) != 0)
        return st;
    if (a->runs.n && (a->episode >= 0 || a->estimate || a->rigid)) {
        tools_error("compare: --rigid compares whole runs: no --episode, --error-estimate or "
                    "--rigid-limit");
        return EXIT_USAGE;
    }
    if (a->csv && a->io.json) {
        tools_error("compare: --csv and --json: give one");
        return EXIT_USAGE;
    }
    if (a->rigid && (a->csv || a->io.json)) {
        tools_error("compare: --rigid-limit prints a table: not with --csv or --json");
        return EXIT_USAGE;
    }
    if (argc - optind != 1) {
        tools_error("compare takes one MODEL or RUN.h5, got %d arguments", argc - optind);
        return EXIT_USAGE;
    }
    a->input = argv[optind];
    return 0;
}

/* Whether @p model has rigid bodies that rotate (clumps): a probe system. */
static int has_rotating(const cr_model *model)
{
    char msg[1024];
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    size_t n = sys ? cr_system_rotating_body_count(sys) : 0;
    cr_system_destroy(sys);
    return n > 0;
}

/* ---- runs ------------------------------------------------------------------------ */

/* One compliant run: system, monitor, store (when @p out), run, finish.
 * @return 0 or an exit status (message printed). */
static int run_model(const cr_model *model, const char *path, const char *text, const char *out,
                     tools_run *r)
{
    char msg[1024];
    if (!(r->sys = cr_system_create(model, msg, sizeof msg))) {
        tools_error("%s: %s", path, msg);
        return EXIT_INPUT;
    }
    int st = tools_open_outputs(r, out, model, path, text);
    if (st != 0)
        return st;
    int rc = tools_run_stoppable(r, cr_model_settings(model)->t_end);
    /* stopped or not, the episodes monitored so far (cmd-run.c does the same) */
    cr_monitor_finish(r->mon);
    if (rc == CR_OK)
        return 0;
    if (rc == CR_ERR_INVALID) {
        tools_model_error(path, cr_system_last_error(r->sys));
        return EXIT_INPUT;
    }
    char why[1024];
    snprintf(why, sizeof why, "%s", cr_system_last_error(r->sys));
    if (r->store &&
        (cr_store_write_episodes(r->store, r->mon) != CR_OK ||
         cr_store_write_collisions(r->store, r->mon) != CR_OK ||
         tools_commit(r, rc == CR_ERR_INTERRUPTED ? "interrupted" : "failed", why) != CR_OK)) {
        tools_error("%s", cr_store_last_error(r->store)); /* the write error: one line */
        return EXIT_RUN;
    }
    /* a run that did not complete never replaces the file that was there */
    const char *kept = r->kept ? r->kept : out;
    int beside = kept && r->out && strcmp(kept, r->out) != 0;
    tools_error("%s: %s%s%s%s%s%s", path, why, out ? "; what was computed is kept in " : "",
                out ? kept : "", beside ? " (" : "", beside ? out : "",
                beside ? " is unchanged)" : "");
    return rc == CR_ERR_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_RUN;
}

/* ---- error estimate ------------------------------------------------------------- */

static double max_change(const cr_contact_record *a, size_t na, const cr_contact_record *b,
                         size_t nb, int which)
{
    double worst = 0.0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            if (a[i].contact != b[j].contact)
                continue;
            double x = which == 0 ? a[i].alpha : which == 1 ? a[i].newton : a[i].poisson;
            double y = which == 0 ? b[j].alpha : which == 1 ? b[j].newton : b[j].poisson;
            if (isfinite(x) && isfinite(y))
                worst = fmax(worst, fabs(x - y));
        }
    return worst;
}

/* The changes of α, κ, eᴺ, eᴾ between @p mon and a rerun at rtol/100, per
 * compared episode (matched by index and reference contact; NaN otherwise). */
static double *estimate(const cr_model *model, const char *path, const cr_compare *cmp,
                        const cr_monitor *mon_of_file, cr_run_file *file, double *rtol)
{
    cr_model *fine = cr_model_copy(model);
    if (!fine)
        return NULL;
    cr_settings s = *cr_model_settings(fine);
    s.rtol *= ESTIMATE_FACTOR;
    s.atol *= ESTIMATE_FACTOR;
    if (s.accuracy > 0.0) /* integration.accuracy: its rule's rtol scales with it */
        s.accuracy = fmax(CR_ACCURACY_MIN, ESTIMATE_FACTOR * s.accuracy);
    *rtol = s.rtol;
    cr_model_set_settings(fine, &s);
    tools_run r = {0};
    size_t ne = cr_compare_episode_count(cmp);
    double *acc = malloc((4 * ne + 1) * sizeof(double));
    int st = acc ? run_model(fine, path, NULL, NULL, &r) : EXIT_RUN;
    for (size_t k = 0; st == 0 && k < ne; k++) {
        cr_compare_episode ce;
        cr_compare_get_episode(cmp, k, &ce);
        cr_episode_data a, b;
        int ok = (mon_of_file ? cr_monitor_episode_data(mon_of_file, ce.index, &a)
                              : cr_run_file_episode(file, ce.index, &a, NULL)) == CR_OK &&
                 cr_monitor_episode_data(r.mon, ce.index, &b) == CR_OK &&
                 a.info.reference == b.info.reference;
        double *o = acc + 4 * k;
        o[0] = ok ? max_change(a.records, a.info.contact_count, b.records, b.info.contact_count, 0)
                  : NAN;
        o[1] = ok ? fabs(a.info.kappa - b.info.kappa) : NAN;
        o[2] = ok ? max_change(a.records, a.info.contact_count, b.records, b.info.contact_count, 1)
                  : NAN;
        o[3] = ok ? max_change(a.records, a.info.contact_count, b.records, b.info.contact_count, 2)
                  : NAN;
    }
    tools_run_release(&r);
    cr_model_destroy(fine);
    if (st != 0) {
        free(acc);
        return NULL;
    }
    return acc;
}

/* ---- output ---------------------------------------------------------------------- */

/*
 * No row says ok over a number that is not finite (issue 23): the readers
 * refuse non-finite and out-of-range inputs, so this never fires on what they
 * accept (fuzz-runfile asserts it); should a law still answer inf or NaN, the
 * command says so in one line (exit 4) rather than print an ok.
 */
static int check_ok_rows(const cr_compare *cmp, const char *what, size_t only)
{
    for (size_t i = 0; i < cr_compare_row_count(cmp); i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, i);
        if (r->status != CR_COMPARE_OK || (only != SIZE_MAX && i != only))
            continue;
        cr_compare_episode e = {0};
        for (size_t k = 0; k < cr_compare_episode_count(cmp); k++) {
            cr_compare_get_episode(cmp, k, &e);
            if (i >= e.first_row && i < e.first_row + e.row_count)
                break;
        }
        const double *u = cr_compare_row_velocity(cmp, i);
        int finite = isfinite(r->error) && isfinite(r->energy_ratio) && u;
        for (size_t k = 0; finite && k < e.dofs; k++)
            finite = isfinite(u[k]);
        if (!finite) {
            tools_error("%s: episode %zu: %s (%s): the law's answer is not finite (error %g, "
                        "T+/T- %g): not reported as ok",
                        what, e.index, cr_law_name(r->law), cr_compare_mode_name(r->mode), r->error,
                        r->energy_ratio);
            return EXIT_RUN;
        }
    }
    return 0;
}

/* --table: an episode of the table's configuration outside its axes is
 * refused (exit 5, docs/tables.md), before any file is written. */
static int table_refused(const compare_args *a, const cr_compare *cmp)
{
    const char *why = cr_compare_table_refusal(cmp);
    if (!why[0])
        return 0;
    tools_error("%s: --table: %s", a->input, why);
    return EXIT_DOMAIN;
}

static int report(const compare_args *a, const cr_compare *cmp, const compare_view *v)
{
    int st = check_ok_rows(cmp, a->input, SIZE_MAX);
    if (st != 0)
        return st;
    if (a->io.json)
        return compare_print_json(stdout, cmp, v) == 0 ? 0 : EXIT_RUN;
    if (a->csv)
        compare_print_csv(stdout, cmp);
    else if (!a->io.quiet)
        compare_print_table(stdout, cmp, v);
    return 0;
}

/* /comparison into @p target (-o, a symbolic link followed: tools_output_target) */
static int write_out(const compare_args *a, const char *source, const char *target,
                     const cr_compare *cmp, const compare_view *v)
{
    if (!a->io.out)
        return 0;
    char msg[1024];
    cr_comparison_params p = {a->input, a->command, v->accuracy, v->estimate_rtol};
    if (cr_store_write_comparison(source, target, cmp, &p, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    if (!a->io.quiet && !a->io.json && !a->csv)
        printf("wrote /comparison to %s\n", a->io.out);
    return 0;
}

/* Episodes to compare: all, or the one asked for (checked before any output). */
static int episode_range(const compare_args *a, size_t n, const char *what, size_t *first,
                         size_t *last)
{
    if (n == 0) {
        tools_error("%s: no impact episodes to compare", what);
        return EXIT_INPUT;
    }
    if (a->episode >= 0 && (size_t)a->episode >= n) {
        tools_error("%s: episode %ld out of range (%zu episode%s: 0 to %zu)", what, a->episode, n,
                    n == 1 ? "" : "s", n - 1);
        return EXIT_INPUT;
    }
    *first = a->episode >= 0 ? (size_t)a->episode : 0;
    *last = a->episode >= 0 ? (size_t)a->episode + 1 : n;
    return 0;
}

/* ---- MODEL ----------------------------------------------------------------------- */

static int compare_model_file(const compare_args *a, cr_compare *cmp)
{
    char msg[1024];
    if (a->io.out && tools_check_output(a->io.out, a->input, msg, sizeof msg) != 0) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    char *text = NULL;
    const char *name = model_input_name(a->input);
    cr_model *model = model_input_load(a->input, &a->io.sets, 1, &text);
    tools_run r = {0};
    int st = model ? 0 : EXIT_INPUT;
    if (st == 0 && a->rigid && cr_model_dimension(model) == 1) { /* before any file is written */
        tools_error("%s: --rigid-limit is built for pools (dim 2 or 3): a chain's normals never "
                    "turn",
                    name);
        st = EXIT_INPUT;
    }
    if (st == 0 && a->rigid && has_rotating(model)) {
        tools_error("%s: --rigid-limit follows disc velocities; with rigid bodies that rotate "
                    "(clumps) it would need the bodies' (v, omega): not supported yet",
                    name);
        st = EXIT_INPUT;
    }
    st = st ? st : run_model(model, name, text, a->io.out, &r);
    size_t first = 0, last = 0;
    if (st == 0)
        st = episode_range(a, cr_monitor_episode_count(r.mon), name, &first, &last);
    double t0 = tools_now();
    for (size_t k = first; st == 0 && k < last; k++)
        if (cr_compare_add_monitor(cmp, r.mon, k, model) != CR_OK) {
            tools_error("%s: %s", name, cr_compare_last_error(cmp));
            st = EXIT_RUN;
        }
    double tc = tools_now() - t0;
    compare_view v = {name, NULL, NAN, a->episode >= 0 ? 1 : SHOWN_EPISODES};
    double *acc = NULL;
    if (st == 0 && a->estimate &&
        !(acc = estimate(model, name, cmp, r.mon, NULL, &v.estimate_rtol)))
        st = EXIT_RUN;
    v.accuracy = acc;
    if (st == 0)
        st = table_refused(a, cmp);
    if (st == 0 && r.store &&
        (cr_store_write_episodes(r.store, r.mon) != CR_OK ||
         cr_store_write_collisions(r.store, r.mon) != CR_OK ||
         tools_commit(&r, "complete", NULL) != CR_OK)) {
        tools_error("%s", cr_store_last_error(r.store));
        st = EXIT_RUN;
    }
    if (st == 0)
        st = report(a, cmp, &v);
    if (st == 0 && !a->io.quiet && !a->io.json && !a->csv)
        printf("compared %zu episode%s in %.3f s (the run took %.3f s)\n", last - first,
               last - first == 1 ? "" : "s", tc, r.wall);
    if (st == 0)
        st = write_out(a, r.out ? r.out : "", r.out ? r.out : "", cmp, &v);
    for (size_t k = first; st == 0 && a->rigid && k < last; k++) {
        cr_episode_data d;
        st = cr_monitor_episode_data(r.mon, k, &d) == CR_OK
                 ? compare_rigid_report(stdout, name, model, k, &d, &a->rl)
                 : EXIT_RUN;
    }
    free(acc);
    tools_run_release(&r);
    cr_model_destroy(model);
    free(text);
    return st;
}

/* ---- RUN.h5 ---------------------------------------------------------------------- */

/* The run file's model, parsed (and calibrated) from its text; NULL with the
 * message printed. */
static cr_model *model_of_run(const char *path, cr_run_file *f)
{
    const char *text = cr_run_file_model_text(f);
    char name[1100];
    snprintf(name, sizeof name, "%s:/model/text", path);
    if (!text[0]) {
        tools_error("%s: the file holds no model text (fields unknown)", path);
        return NULL;
    }
    return model_input_parse(text, strlen(text), name);
}

/* A run file keeps its episodes per disc, not the body-level impact
 * configuration of rigid bodies (cr_monitor_impact): those models are compared
 * from the model, where the monitor has it. @return 0 or EXIT_INPUT (printed). */
static int rotating_refused(const char *path, const cr_model *model)
{
    if (!has_rotating(model))
        return 0;
    tools_error("%s: a run file holds no impact configuration of rigid bodies that rotate "
                "(clumps); compare the model itself (cradle compare MODEL)",
                path);
    return EXIT_INPUT;
}

static int compare_run_file(const compare_args *a, cr_compare *cmp)
{
    char msg[1024];
    if (a->io.out && strcmp(a->io.out, a->input) != 0 &&
        tools_check_output(a->io.out, a->input, msg, sizeof msg) != 0) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    /* -o: its target when a link, locked for the whole command */
    char *target = NULL;
    int lock = -1;
    if (a->io.out && (!(target = tools_output_target(a->io.out, msg, sizeof msg)) ||
                      (lock = tools_lock_output(target, msg, sizeof msg)) < 0)) {
        tools_error("%s", msg);
        free(target);
        return EXIT_INPUT;
    }
    cr_run_file *f = cr_run_file_open(a->input, msg, sizeof msg);
    if (!f) {
        tools_error("%s", msg);
        tools_unlock_output(lock, target);
        free(target);
        return EXIT_INPUT;
    }
    size_t first = 0, last = 0;
    int st = episode_range(a, cr_run_file_episode_count(f), a->input, &first, &last);
    cr_model *model = st == 0 ? model_of_run(a->input, f) : NULL;
    if (st == 0 && !model)
        st = EXIT_INPUT;
    if (st == 0)
        st = rotating_refused(a->input, model);
    for (size_t k = first; st == 0 && k < last; k++) {
        cr_episode_data d;
        const cr_contact_params *laws;
        if (cr_run_file_episode(f, k, &d, &laws) != CR_OK) {
            tools_error("%s", cr_run_file_last_error(f)); /* names the file and the dataset */
            st = EXIT_INPUT;
        } else if (cr_compare_add(cmp, k, &d, laws, cr_model_has_fields(model)) != CR_OK) {
            tools_error("%s: episode %zu: %s", a->input, k, cr_compare_last_error(cmp));
            st = EXIT_INPUT;
        }
    }
    compare_view v = {a->input, NULL, NAN, a->episode >= 0 ? 1 : SHOWN_EPISODES};
    double *acc = NULL;
    if (st == 0 && a->estimate &&
        !(acc = estimate(model, a->input, cmp, NULL, f, &v.estimate_rtol)))
        st = EXIT_RUN;
    v.accuracy = acc;
    if (st == 0)
        st = table_refused(a, cmp);
    if (st == 0)
        st = report(a, cmp, &v);
    for (size_t k = first; st == 0 && a->rigid && k < last; k++) {
        cr_episode_data d;
        if (cr_run_file_episode(f, k, &d, NULL) != CR_OK) {
            tools_error("%s", cr_run_file_last_error(f));
            st = EXIT_INPUT;
        } else
            st = compare_rigid_report(stdout, a->input, model, k, &d, &a->rl);
    }
    cr_run_file_close(f);
    if (st == 0)
        st = write_out(a, a->input, target, cmp, &v);
    tools_unlock_output(lock, target);
    free(target);
    free(acc);
    cr_model_destroy(model);
    return st;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a;
    int st = parse_args(argc, argv, &a);
    if (st != 0)
        return st < 0 ? 0 : st;
    cr_compare *cmp = cr_compare_create();
    if (!cmp) {
        tools_error("out of memory");
        return EXIT_RUN;
    }
    cr_table *table = NULL;
    char msg[512] = "";
    /* --table (a rigid option) serves the episode comparison too */
    const char *table_path = a.runs.params.table;
    if (table_path && cr_table_open(table_path, &table, msg, sizeof msg) != CR_OK) {
        tools_error("compare: --table %s", msg);
        cr_compare_destroy(cmp);
        return EXIT_INPUT;
    }
    cr_compare_set_table(cmp, table);
    if (tools_is_hdf5(a.input) && a.io.sets.count) {
        tools_error("compare: --set applies to a MODEL; %s is a run file (its model is as run)",
                    a.input);
        cr_compare_destroy(cmp);
        cr_table_close(table);
        return EXIT_USAGE;
    }
    if (a.runs.n && tools_is_hdf5(a.input)) {
        tools_error("compare: --rigid runs MODEL compliant and rigid; %s is a run file (give its "
                    "model)",
                    a.input);
        cr_compare_destroy(cmp);
        return EXIT_USAGE;
    }
    compare_runs_io io = {a.input, a.io.out, a.command, &a.io.sets, a.csv, a.io.json, a.io.quiet};
    st = a.runs.n                 ? compare_runs(&io, &a.runs)
         : tools_is_hdf5(a.input) ? compare_run_file(&a, cmp)
                                  : compare_model_file(&a, cmp);
    cr_compare_destroy(cmp);
    cr_table_close(table);
    return st;
}

/* ---- cradle run --compare ------------------------------------------------------- */

int compare_after_run(const char *model_path, const cr_model *model, const cr_monitor *mon,
                      const char *out, int quiet, int json)
{
    cr_compare *cmp = cr_compare_create();
    int st = cmp ? 0 : EXIT_RUN;
    for (size_t k = 0; st == 0 && k < cr_monitor_episode_count(mon); k++)
        if (cr_compare_add_monitor(cmp, mon, k, model) != CR_OK) {
            tools_error("%s: compare: %s", model_path, cr_compare_last_error(cmp));
            st = EXIT_RUN;
        }
    char msg[1024];
    cr_comparison_params p = {model_path, "cradle run --compare", NULL, NAN};
    if (st == 0 && cr_store_write_comparison(out, out, cmp, &p, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        st = EXIT_RUN;
    }
    if (st == 0 && !quiet && !json)
        compare_print_summary(stdout, cmp);
    cr_compare_destroy(cmp);
    return st;
}

/* ---- cradle law NAME --input RUN.h5 --episode K ------------------------------------ */

typedef struct {
    cr_law_id law;
    const char *input;
    long episode;
    cr_compare_mode mode;
    int json;
} law_args;

static int parse_law_args(int argc, char **argv, law_args *a)
{
    static const struct option opts[] = {{"input", required_argument, NULL, 'i'},
                                         {"episode", required_argument, NULL, 'e'},
                                         {"mode", required_argument, NULL, 'm'},
                                         {"json", no_argument, NULL, 'j'},
                                         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    a->episode = -1;
    int c;
    optind = 1;
    opterr = 0; /* tools_bad_option says it in one line */
    while ((c = getopt_long(argc, argv, "i:e:m:j", opts, NULL)) != -1) {
        if (c == 'i')
            a->input = optarg;
        else if (c == 'j')
            a->json = 1;
        else if (c == 'e' && (a->episode = parse_index(optarg)) < 0) {
            tools_error("law: --episode takes a whole number >= 0 (got '%s')", optarg);
            return EXIT_USAGE;
        } else if (c == 'm') {
            if (strcmp(optarg, "calibrated") && strcmp(optarg, "predictive")) {
                tools_error("law: --mode is calibrated or predictive (got '%s')", optarg);
                return EXIT_USAGE;
            }
            a->mode = strcmp(optarg, "calibrated") ? CR_COMPARE_PREDICTIVE : CR_COMPARE_CALIBRATED;
        } else if (c == '?') {
            return tools_bad_option("law", argv);
        }
    }
    if (optind < argc && cr_law_from_name(argv[optind], &a->law) != CR_OK) {
        const char *near = cr_law_suggest(argv[optind]);
        tools_error("law: unknown law '%s'%s%s%s (cradle law --list)", argv[optind],
                    near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return EXIT_USAGE;
    }
    if (optind + 1 != argc || !a->input || a->episode < 0) {
        tools_error("law: cradle law NAME --input RUN.h5 --episode K [--mode calibrated|"
                    "predictive] [--json]");
        return EXIT_USAGE;
    }
    return 0;
}

static void text_array(const char *label, const double *v, size_t n)
{
    printf("  %-9s", label);
    for (size_t i = 0; v && i < n; i++)
        printf(" %.10g", v[i]);
    putchar('\n');
}

static int print_law_json(const law_args *a, const cr_compare *cmp, size_t row, const double *gamma)
{
    const cr_compare_row *r = cr_compare_get_row(cmp, row);
    cr_compare_episode e;
    cr_compare_get_episode(cmp, 0, &e);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "law", json_object_new_string(cr_law_name(r->law)));
    json_object_object_add(o, "episode", json_object_new_int64(a->episode));
    json_object_object_add(o, "mode", json_object_new_string(cr_compare_mode_name(r->mode)));
    json_object_object_add(o, "status", json_object_new_string(cr_compare_status_name(r->status)));
    json_object_object_add(o, "message", json_object_new_string(r->message));
    const double *u = cr_compare_row_velocity(cmp, row), *P = cr_compare_row_impulse(cmp, row);
    const double *par = cr_compare_row_parameters(cmp, row);
    /* NaN (a law that failed) is written as null, as everywhere else: json-c
     * would write NaN, which no JSON parser accepts */
    json_object_object_add(o, "gamma_minus", tools_json_numbers(gamma, e.contacts));
    json_object_object_add(o, "parameters", tools_json_numbers(par, e.contacts));
    json_object_object_add(o, "velocity", tools_json_numbers(u, e.dofs));
    json_object_object_add(o, "impulse", tools_json_numbers(P, e.contacts));
    json_object_object_add(o, "energy_ratio", tools_json_number(r->energy_ratio));
    json_object_object_add(o, "error", tools_json_number(r->error));
    const char *text =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text && printf("%s\n", text) > 0 ? 0 : EXIT_RUN;
    json_object_put(o);
    return rc;
}

static int print_law(const law_args *a, const cr_compare *cmp, size_t row)
{
    const cr_compare_row *r = cr_compare_get_row(cmp, row);
    cr_compare_episode e;
    cr_compare_get_episode(cmp, 0, &e);
    double *gamma = malloc((e.contacts + 1) * sizeof(double));
    if (!gamma || cr_impact_get_gamma(cr_compare_impact(cmp, 0), gamma) != CR_OK) {
        free(gamma);
        tools_error("out of memory");
        return EXIT_RUN;
    }
    int st = 0;
    if (a->json) {
        st = print_law_json(a, cmp, row, gamma);
    } else {
        printf("law %s on %s episode %ld (%s; %zu dofs, %zu contacts): %s%s%s\n",
               cr_law_name(r->law), a->input, a->episode, cr_compare_mode_name(r->mode), e.dofs,
               e.contacts, cr_compare_status_name(r->status), r->message[0] ? ": " : "",
               r->message);
        text_array("gamma-", gamma, e.contacts);
        text_array("params", cr_compare_row_parameters(cmp, row), e.contacts);
        if (isfinite(r->parameter))
            printf("  %-9s %.10g\n", r->law == CR_LAW_ENERGETIC ? "kappa" : "epsilon",
                   r->parameter);
        text_array("u+", cr_compare_row_velocity(cmp, row), e.dofs);
        text_array("P", cr_compare_row_impulse(cmp, row), e.contacts);
        printf("  %-9s %.10g\n", "T+/T-", r->energy_ratio);
        text_array("measured", cr_compare_reference_velocity(cmp, 0), e.dofs);
        printf("  %-9s %.3e (|u+law - u+|_M / |v_perp|_M)\n", "error", r->error);
    }
    free(gamma);
    return st;
}

int cmd_law_episode(int argc, char **argv)
{
    law_args a;
    int st = parse_law_args(argc, argv, &a);
    if (st)
        return st;
    char msg[1024];
    cr_run_file *f = cr_run_file_open(a.input, msg, sizeof msg);
    if (!f) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    compare_args ca = {.input = a.input, .episode = a.episode};
    size_t first, last;
    st = episode_range(&ca, cr_run_file_episode_count(f), a.input, &first, &last);
    cr_model *model = st == 0 ? model_of_run(a.input, f) : NULL;
    st = st ? st : model ? 0 : EXIT_INPUT;
    cr_compare *cmp = st == 0 ? cr_compare_create() : NULL;
    cr_episode_data d;
    const cr_contact_params *laws;
    if (st == 0 && !cmp) {
        tools_error("out of memory");
        st = EXIT_RUN;
    } else if (st == 0 && cr_run_file_episode(f, first, &d, &laws) != CR_OK) {
        tools_error("%s", cr_run_file_last_error(f)); /* names the file and the dataset */
        st = EXIT_INPUT;
    } else if (st == 0 &&
               cr_compare_add(cmp, first, &d, laws, cr_model_has_fields(model)) != CR_OK) {
        tools_error("%s: episode %ld: %s", a.input, a.episode, cr_compare_last_error(cmp));
        st = EXIT_INPUT;
    }
    size_t row = 0;
    const cr_compare_row *r = NULL;
    for (size_t i = 0; st == 0 && i < cr_compare_row_count(cmp); i++) {
        const cr_compare_row *q = cr_compare_get_row(cmp, i);
        if (q->law == a.law && q->mode == a.mode)
            r = q, row = i;
    }
    if (st == 0 && r &&
        (r->status == CR_COMPARE_NO_PREDICTION || r->status == CR_COMPARE_TOO_LARGE ||
         !cr_compare_impact(cmp, 0))) {
        /* the law has no parameters (or no size) for this episode: bad input */
        tools_error("%s: episode %ld: %s (%s): %s: %s", a.input, a.episode, cr_law_name(a.law),
                    cr_compare_mode_name(a.mode), cr_compare_status_name(r->status), r->message);
        st = EXIT_INPUT;
    }
    if (st == 0 && r)
        st = check_ok_rows(cmp, a.input, row);
    if (st == 0 && r)
        st = print_law(&a, cmp, row);
    cr_compare_destroy(cmp);
    cr_model_destroy(model);
    cr_run_file_close(f);
    return st;
}
