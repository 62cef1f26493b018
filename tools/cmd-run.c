/* cradle run [MODEL] [-o FILE]: one path for every engine. Read the model,
 * build the system, attach the monitor, the store and the progress line, run,
 * keep what was computed whatever happens, report. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cr-config.h"

#include "cradle/cradle.h"
#include "compare-report.h"
#include "model-input.h"
#include "run-report.h"
#include "rigid-table.h"
#include "run-rigid.h"
#include "tools-common.h"

void usage_run(FILE *out)
{
    fprintf(out,
            "usage: cradle run [MODEL|-] [--set PATH=VALUE ...] [-o FILE] [-q] [--json]\n"
            "                  [--cases DIR] [--compare] [--plot]\n"
            "       cradle run --continue RUN.h5 [-o FILE] [--set integration.t_end=T]\n"
            "                  [--set output.KEY=VALUE ...]\n"
            "                  [--rigid LAW [--restitution E] [--kappa K --alpha A,...]]\n"
            "                  [--rigid calibrated [--calibrate-on MODEL2] [--strict]]\n"
            "\n"
            "Integrates the compliant model in MODEL (YAML, see docs/model-format.md):\n"
            "a chain (dim 1), a planar pool (dim 2) or spheres (dim 3). Every contact\n"
            "closing, maximum compression and release is located; impact episodes are\n"
            "monitored; the trajectory, events and episodes go to FILE (HDF5,\n"
            "docs/hdf5-layout.md).\n"
            "\n"
            "  MODEL               model file (default: %s);\n"
            "                      - reads it from standard input\n"
            "  -s, --set PATH=VALUE\n"
            "                      set a model-file field before the model is read, e.g.\n"
            "                      --set chain.count=7 --set contact.restitution=0.9 (repeat\n"
            "                      it; docs/sweep.md); FILE records the\n"
            "                      model as run\n"
            "  -o, --output FILE   output file (default: cradle-out.h5; with --continue,\n"
            "                      RUN.h5's name ending in .continued.h5)\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -j, --json          print the summary and the impact episodes as JSON\n"
            "  -c, --cases DIR     write each episode as a law case (M, W, u-, measured\n"
            "                      kappa, alpha, e_N, e_P) for `cradle law`\n"
            "      --compare       compare every rigid law with each episode (as\n"
            "                      `cradle compare`) and add /comparison to FILE\n"
            "  -p, --plot          then draw FILE's figures with cradle-plot (FILE-KIND.png\n"
            "                      beside FILE; needs python3-matplotlib, docs/viewers.md)\n"
            "      --rigid LAW     run the same chain or pool as rigid bodies, every impact\n"
            "                      resolved by LAW of `cradle law --list` (docs/design.md,\n"
            "                      Rigid engine, Rigid pools); lzb takes K, n of the pair\n"
            "                      laws; calibrated is energetic with alpha, kappa of the\n"
            "                      compliant collision each impact stands for, once per\n"
            "                      collision (the compliant run is made first; chains only;\n"
            "                      mismatches listed; a kappa an impact cannot give is\n"
            "                      raised to its feasible minimum, or max-dissipation when\n"
            "                      none <= 1 fits, and counted: kappa_clamped); links and\n"
            "                      stacks of discs are refused. Impacts take in gaps up to\n"
            "                      rigid.touching x delta* (docs/model-format.md)\n"
            "      --calibrate-on MODEL2\n"
            "                      calibrated: take alpha, kappa from the compliant run of\n"
            "                      MODEL2 (a chain of as many pairs): a prediction\n"
            "      --strict        calibrated: a mismatch is an error (status mismatch,\n"
            "                      exit 6)\n"
            "      --restitution E restitution of every pair (default: 1 for undamped pair\n"
            "                      laws, the model's restitution target; a damped pair\n"
            "                      needs E)\n"
            "      --kappa K       energetic law: the energetic coefficient T+/T-\n"
            "      --alpha A,...   energetic law: impulse weights, one or one per pair;\n"
            "                      a pool: A for the contacts approaching at an impact,\n"
            "                      B (--alpha A,B) for those only touching\n"
            "      --table FILE    energetic law: alpha, kappa of each impact from a\n"
            "                      chain table (chainN: any impact of N balls, a striker\n"
            "                      on balls at rest, inside its axes; docs/tables.md)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops the run at the next step and keeps\n"
            "a valid file whose 'status' attribute says \"interrupted\"; a solver failure\n"
            "keeps one that says \"failed\" and why. Exit status: 0 done, 2 usage, 3 bad\n"
            "input, 4 run failure, 5 an impact outside the --table's axes, 6 --strict\n"
            "mismatch, 130 interrupted (docs/errors.md).\n",
            tools_default_model());
    fputs("\n"
          "  --continue RUN.h5   continue the compliant run of RUN.h5 (complete, interrupted,\n"
          "                      failed or killed: its temporary RUN.h5.tmp.PID or the\n"
          "                      .partial-PID.h5 it became) from its restart state, the\n"
          "                      last stored time between episodes, to a later\n"
          "                      integration.t_end (-o FILE, default RUN.continued.h5);\n"
          "                      --set may change only that, integration.rtol,\n"
          "                      integration.atol and output.*\n"
          "                      (docs/hdf5-layout.md, \"/restart\")\n",
          out);
}

typedef struct {
    model_io io;      /* -o, -q, -j, --set */
    const char *cont; /* --continue RUN.h5 */
    char *cont_out;   /* its default output (RUN.continued.h5) */
    const char *cases, *model;
    const char *input; /* the path as given ("-": standard input); model names it */
    int compare, plot;
    rigid_args rigid;
} run_args;

/* --continue RUN.h5: no model (RUN.h5 holds it), no rigid law; the output
 * defaults to RUN.continued.h5 beside RUN.h5. @return 0 or EXIT_USAGE. */
static int continue_args(int nargs, run_args *a)
{
    if (nargs > 0 || a->rigid.rigid) {
        tools_error("--continue %s: the model and the engine are the run's; give no MODEL and "
                    "no --rigid",
                    a->cont);
        return EXIT_USAGE;
    }
    a->input = a->model = a->cont;
    if (a->io.out) /* -o */
        return 0;
    size_t n = strlen(a->cont);
    if (n > 3 && strcmp(a->cont + n - 3, ".h5") == 0)
        n -= 3;
    if (!(a->cont_out = malloc(n + 16))) {
        tools_error("out of memory");
        return EXIT_RUN;
    }
    snprintf(a->cont_out, n + 16, "%.*s.continued.h5", (int)n, a->cont);
    a->io.out = a->cont_out;
    return 0;
}

/* @return 0, or an exit status. */
static int parse_args(int argc, char **argv, run_args *a)
{
    static const struct option opts[] = {MODEL_IO_LONG_OPTIONS,
                                         {"cases", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"compare", no_argument, NULL, 'C'},
                                         {"plot", no_argument, NULL, 'p'},
                                         {"continue", required_argument, NULL, 'K'},
                                         RIGID_LONG_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->io.out = NULL; /* cradle-out.h5 unless --continue names another */
    rigid_args_init(&a->rigid);
    int c, st;
    optind = 1;
    opterr = 0; /* tools_bad_option says it in one line */
    while ((c = getopt_long(argc, argv, MODEL_IO_SHORT_OPTIONS "c:hp", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            a->cases = optarg;
            break;
        case 'C':
            a->compare = 1;
            break;
        case 'p':
            a->plot = 1;
            break;
        case 'K':
            a->cont = optarg;
            break;
        case 'h':
            usage_run(stdout);
            return -1;
        default:
            if ((st = model_io_option(c, optarg, &a->io)) >= 0 ||
                (st = rigid_option(c, optarg, &a->rigid)) >= 0) {
                if (st != 0)
                    return st;
                break;
            }
            return tools_bad_option("run", argv);
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
    if (a->cont)
        return continue_args(argc - optind, a);
    if (!a->io.out)
        a->io.out = "cradle-out.h5";
    a->input = optind < argc ? argv[optind] : tools_default_model();
    a->model = model_input_name(a->input);
    return rigid_check(&a->rigid);
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
    tools_run run;
    progress prog;
    double t0; /* --continue: the restart time */
} run_state;

static void release(run_state *r)
{
    tools_run_release(&r->run);
    cr_model_destroy(r->model);
    free(r->text);
}

/* A --set a continuation may take: the end time, the tolerances and the
 * output, which change for how long, how accurately and what is written,
 * never the physics. */
static int set_keeps_physics(const char *item)
{
    static const char *const numerics[] = {"integration.t_end", "integration.rtol",
                                           "integration.atol", "integration.accuracy"};
    size_t n = strcspn(item, "=");
    for (size_t k = 0; k < sizeof numerics / sizeof numerics[0]; k++)
        if (n == strlen(numerics[k]) && strncmp(item, numerics[k], n) == 0)
            return 1;
    return strncmp(item, "output.", 7) == 0 || (n == 6 && strncmp(item, "output", 6) == 0);
}

/* The model of --continue RUN.h5: its text with the allowed --set items, its
 * bodies at the restart state. @return 0 or an exit status (message printed). */
static int continued_model(run_args *a, run_state *r, const cr_restart_state *rs)
{
    char msg[1024];
    if (strcmp(rs->kind, "chain") != 0 && strcmp(rs->kind, "pool") != 0) {
        tools_error("%s: a %s run: only compliant runs (chain, pool) can be continued", a->cont,
                    rs->kind);
        return EXIT_INPUT;
    }
    for (size_t k = 0; k < a->io.sets.count; k++)
        if (!set_keeps_physics(a->io.sets.items[k])) {
            tools_error("--continue %s: --set %.*s would change the physics of the run; only "
                        "integration.t_end, .rtol, .atol, .accuracy and output.* may change",
                        a->cont, (int)strcspn(a->io.sets.items[k], "="), a->io.sets.items[k]);
            return EXIT_INPUT;
        }
    cr_modelfile_sets in = {a->io.sets.items, a->io.sets.count, "--set "};
    if (cr_modelfile_parse_set(rs->model_text, strlen(rs->model_text), a->cont, &in, &r->model,
                               &r->text, msg, sizeof msg) != CR_OK) {
        tools_error("%s: /model/text: %s", a->cont, msg);
        return EXIT_INPUT;
    }
    if (cr_calibrate_model(r->model, msg, sizeof msg) != CR_OK) {
        tools_error("%s: calibration: %s", a->cont, msg);
        return EXIT_INPUT;
    }
    if (cr_model_body_count(r->model) != rs->body_count ||
        cr_model_dimension(r->model) != rs->dim) {
        tools_error("%s: /restart holds %zu bodies in %d-D, its /model/text %zu in %d-D", a->cont,
                    rs->body_count, rs->dim, cr_model_body_count(r->model),
                    cr_model_dimension(r->model));
        return EXIT_INPUT;
    }
    for (size_t i = 0; i < rs->body_count; i++)
        if (cr_model_set_body_state(r->model, i, rs->position + i * (size_t)rs->dim,
                                    rs->velocity + i * (size_t)rs->dim) != CR_OK) {
            tools_error("%s: --continue of a model with rigid bodies (clumps) is not supported "
                        "yet: /restart holds no orientation",
                        a->cont);
            return EXIT_INPUT;
        }
    double t_end = cr_model_settings(r->model)->t_end;
    if (t_end > 0.0 && t_end <= rs->time) {
        tools_error("%s: integration.t_end = %.17g s is not after the restart time %.17g s; give "
                    "a later one with --set integration.t_end=T",
                    a->cont, t_end, rs->time);
        return EXIT_INPUT;
    }
    r->t0 = rs->time;
    return 0;
}

/* The model: from MODEL, or from RUN.h5 with --continue. @return 0 or an exit
 * status (message printed). */
static int load_model(run_args *a, run_state *r)
{
    if (!a->cont)
        return (r->model = model_input_load(a->input, &a->io.sets, 1, &r->text)) ? 0 : EXIT_INPUT;
    char msg[1024];
    cr_restart_state rs;
    if (cr_run_file_restart(a->cont, &rs, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg); /* "RUN.h5: why", as every reader of run files says it */
        return EXIT_INPUT;
    }
    int st = continued_model(a, r, &rs);
    cr_restart_state_free(&rs);
    return st;
}

/* Model, system, store, monitor: @return 0 or an exit status (message printed). */
static int set_up(run_args *a, run_state *r)
{
    int st;
    if ((st = load_model(a, r)) != 0)
        return st;
    if (!(r->run.sys = rigid_or_compliant_system(&a->rigid, a->model, r->model, &st)))
        return st;
    if (r->t0 > 0.0 && cr_system_set_start_time(r->run.sys, r->t0) != CR_OK) {
        tools_error("%s: %s", a->cont, cr_system_last_error(r->run.sys));
        return EXIT_INPUT;
    }
    if ((st = tools_open_outputs(&r->run, a->io.out, r->model, a->model, r->text)) != 0)
        return st;
    if (a->cont && cr_store_note_continuation(r->run.store, a->cont, r->t0) != CR_OK) {
        tools_error("%s", cr_store_last_error(r->run.store));
        return EXIT_RUN;
    }
    r->prog = (progress){cr_model_settings(r->model)->t_end, tools_now(), tools_now()};
    if (isatty(STDERR_FILENO) && !a->io.quiet)
        cr_system_add_output_listener(r->run.sys, show_progress, &r->prog);
    return 0;
}

/* Closes the file as what the run became; @return the exit status. */
static int finish(const run_args *a, run_state *r, int rc)
{
    if (rc == CR_ERR_INVALID || (a->rigid.tab && (rc == CR_ERR_MODEL || rc == CR_ERR_DOMAIN))) {
        /* a setting the engine refused before the first step, or a table that
         * does not describe an impact (--table): bad input, no file; an
         * impact outside the table's axes: exit 5, no file */
        tools_model_error(a->model, cr_system_last_error(r->run.sys));
        return rc == CR_ERR_DOMAIN ? EXIT_DOMAIN : EXIT_INPUT;
    }
    size_t nmis = 0;
    if (a->rigid.tab) /* the bounds met go with the law into the file (rigid_law_after_run) */
        cr_system_rigid_set_provider(r->run.sys, rigid_table_params, a->rigid.tab,
                                     rigid_table_label_after(a->rigid.tab));
    if (a->rigid.calib)
        cr_calibrated_rigid_finish(a->rigid.calib, cr_system_get_time(r->run.sys));
    const cr_rigid_mismatch *mis = cr_calibrated_rigid_mismatches(a->rigid.calib, &nmis);
    int mismatch = rc == CR_OK && a->rigid.strict && nmis > 0;
    const char *status = mismatch                   ? "mismatch"
                         : rc == CR_OK              ? "complete"
                         : rc == CR_ERR_INTERRUPTED ? "interrupted"
                                                    : "failed";
    char why[1024];
    snprintf(why, sizeof why, "%s", rc == CR_OK ? "" : cr_system_last_error(r->run.sys));
    /* an interrupted run keeps what was monitored up to the stop: the closed
     * episodes and their collisions, and an episode still open at the stop
     * closed there with complete = 0 (as at an end time; docs/errors.md) */
    cr_monitor_finish(r->run.mon);
    if (cr_store_write_episodes(r->run.store, r->run.mon) != CR_OK ||
        cr_store_write_collisions(r->run.store, r->run.mon) != CR_OK ||
        (a->rigid.calib && cr_store_write_mismatches(r->run.store, mis, nmis) != CR_OK) ||
        tools_commit(&r->run, status, rc == CR_OK ? NULL : why) != CR_OK) {
        /* a write error (disk full): that is the error to report */
        tools_error("%s", cr_store_last_error(r->run.store));
        return EXIT_RUN;
    }
    /* a run that did not complete never replaces the file that was there */
    const char *kept = r->run.kept ? r->run.kept : a->io.out;
    int beside = strcmp(kept, r->run.out) != 0;
    if (rc == CR_ERR_INTERRUPTED) {
        tools_error("%s; partial results kept in %s%s%s%s", why, kept, beside ? " (" : "",
                    beside ? a->io.out : "", beside ? " is unchanged)" : "");
        return EXIT_INTERRUPTED;
    }
    if (mismatch) {
        tools_error("%s: --strict: %zu mismatch%s between the rigid impacts and the compliant "
                    "collisions (listed in the summary, the JSON and /rigid_mismatches of %s, "
                    "status mismatch)",
                    a->model, nmis, nmis == 1 ? "" : "es", a->io.out);
        return EXIT_MISMATCH;
    }
    if (rc != CR_OK) {
        tools_error("%s: %s; what was computed is kept in %s (status failed%s%s%s)", a->model, why,
                    kept, beside ? "; " : "", beside ? a->io.out : "",
                    beside ? " is unchanged" : "");
        return EXIT_RUN;
    }
    return 0;
}

/* The cradle-plot installed beside this executable (/proc/self/exe), so that
 * a staged or moved install runs its own. NULL when there is none. */
static const char *plotter_beside_executable(void)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof "/cradle-plot");
    if (n <= 0)
        return NULL;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    strcpy(slash, "/cradle-plot");
    return access(path, X_OK) == 0 ? path : NULL;
}

/* cradle-plot: $CRADLE_PLOT, the one beside the executable, the installed
 * one, the source tree's, else PATH. */
static const char *find_plotter(void)
{
    const char *env = getenv("CRADLE_PLOT");
    static const char *const candidates[] = {CR_BINDIR "/cradle-plot",
                                             CR_SOURCE_ROOT "/tools/cradle-plot"};
    if (env && env[0])
        return env;
    const char *beside = plotter_beside_executable();
    if (beside)
        return beside;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    return "cradle-plot";
}

/* Runs cradle-plot on the output; its lines go to stderr under --json (stdout
 * is the JSON document) and nowhere under -q. @return 0 or EXIT_RUN. */
static int plot_output(const run_args *a)
{
    const char *plotter = find_plotter();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        tools_error("--plot: cannot start %s: %s", plotter, strerror(errno));
        return EXIT_RUN;
    }
    if (pid == 0) {
        if (a->io.json)
            dup2(STDERR_FILENO, STDOUT_FILENO);
        else if (a->io.quiet) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, STDOUT_FILENO);
        }
        char *args[] = {(char *)plotter, (char *)a->io.out, NULL};
        if (strchr(plotter, '/'))
            execv(plotter, args);
        else
            execvp(plotter, args);
        fprintf(stderr,
                "cradle: --plot: %s: %s (install python3-matplotlib and cradle-plot, "
                "or set CRADLE_PLOT); %s is written\n",
                plotter, strerror(errno), a->io.out);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127))
        tools_error("--plot: %s failed on %s (status %d); the run's file is written", plotter,
                    a->io.out, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return EXIT_RUN;
}

/* A maximal-dissipation fallback (`--rigid calibrated`, docs/compare.md)
 * leaves the bodies it closes moving together, and on a pendulum cradle no
 * impact follows: say when the last one was, so that a run gone quiet is not
 * read as a cradle still clicking. */
static void report_last_impact(const cr_system *sys, const cr_monitor *mon)
{
    size_t ne = cr_monitor_episode_count(mon), fallbacks = cr_system_rigid_kappa_fallbacks(sys);
    cr_episode_info last;
    if (!fallbacks || !ne || cr_monitor_get_episode(mon, ne - 1, &last) != CR_OK)
        return;
    printf("  note: the last impact is at t = %.6g s of %.6g s: the %zu max-dissipation "
           "fallbacks leave the bodies they close moving together\n",
           last.t_start, cr_system_get_time(sys), fallbacks);
}

/* The default sampling's row cap bound (docs/model-format.md, "Output"): one
 * line on stderr, even under -q, since rows were thinned that the user may
 * have expected. */
static void report_row_cap(const cr_system *sys, const cr_model *model)
{
    long w = cr_system_get_stats(sys).output_widenings,
         cap = cr_model_settings(model)->output_max_rows;
    if (w > 0)
        fprintf(stderr,
                "cradle: note: the default sampling reached its cap of %ld rows %ld time%s and "
                "widened its intervals %gx; output.max_rows, output.interval or output.every "
                "choose the rows\n",
                cap > 0 ? cap : CR_OUTPUT_DEFAULT_ROW_CAP, w, w > 1 ? "s" : "",
                pow(10.0, (double)w));
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int st = parse_args(argc, argv, &a);
    if (st != 0)
        return st < 0 ? 0 : st;
    char msg[1024];
    if (tools_check_output(a.io.out, a.input, msg, sizeof msg) != 0 ||
        (a.cases && tools_check_folder(a.cases, msg, sizeof msg) != 0)) {
        tools_error("%s%s", a.cases && strstr(msg, a.cases) == msg ? "--cases " : "", msg);
        return EXIT_INPUT;
    }
    run_state r = {0};
    if ((st = set_up(&a, &r)) != 0) {
        release(&r);
        rigid_args_free(&a.rigid);
        free(a.cont_out);
        return st;
    }
    run_info info = {r.model, a.model, a.io.out, 0.0, {0, 0, 0}, 0.0, a.rigid.calib, 0, {0, 0}};
    info.E0 = cr_system_kinetic_energy(r.run.sys) + cr_system_potential_energy(r.run.sys);
    cr_system_momentum(r.run.sys, info.p0);
    int rc = tools_run_stoppable(&r.run, cr_model_settings(r.model)->t_end);
    info.wall = r.run.wall;
    if ((info.tabled = a.rigid.tab != NULL))
        rigid_table_bounds(a.rigid.tab, info.table_bound);
    if (isatty(STDERR_FILENO) && !a.io.quiet)
        fputs("\r\033[K", stderr);
    st = finish(&a, &r, rc);
    report_row_cap(r.run.sys, r.model);
    /* a --strict mismatch still reports: the list is what the user needs */
    int report = st == 0 || st == EXIT_MISMATCH;
    if (report && a.io.json && report_json(&info, r.run.sys, r.run.mon) != 0)
        st = EXIT_RUN;
    if (report && !a.io.json && !a.io.quiet) {
        report_summary(&info, r.run.sys);
        char law[512];
        if (cr_system_rigid_law(r.run.sys, law, sizeof law) == CR_OK)
            printf("  rigid run: law %s\n  impacts take in gaps up to %g delta* (rigid.touching)\n",
                   law, cr_model_settings(r.model)->rigid_touching);
        if (a.rigid.calib)
            report_calibration(a.rigid.calib);
        if (info.tabled)
            printf("  table bounds: alpha +- %.3g, kappa +- %.3g (stored interpolation bounds, "
                   "largest over the impacts; 0 at grid points)\n",
                   info.table_bound[0], info.table_bound[1]);
        report_last_impact(r.run.sys, r.run.mon);
        report_episodes(r.run.sys, r.run.mon);
        report_collisions(r.run.mon);
    }
    if (st == 0 && a.cases && report_cases(a.cases, &info, r.run.mon, a.io.quiet) != 0)
        st = EXIT_RUN;
    if (st == 0 && a.compare)
        st = compare_after_run(a.model, r.model, r.run.mon, r.run.out, a.io.quiet, a.io.json);
    if (st == 0 && a.plot)
        st = plot_output(&a);
    release(&r);
    rigid_args_free(&a.rigid);
    free(a.cont_out);
    return st;
}
