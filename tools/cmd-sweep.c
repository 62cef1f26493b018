/* cradle sweep SWEEP.yaml: every point of a grid over model-file fields through
 * the pipeline (docs/sweep.md), on OpenMP threads or MPI ranks, into one HDF5
 * table that a rerun completes. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "cradle/sweep.h"
#include "sweep-mpi.h"
#include "cmd-sweep.h"
#include "tools-common.h"

void usage_sweep(FILE *out)
{
    fputs("usage: cradle sweep SWEEP.yaml [-o FILE] [--csv CSV] [-j N] [--force] [-q]\n"
          "       mpirun -n P cradle sweep SWEEP.yaml ...   (a build with -Dmpi=enabled)\n"
          "\n"
          "Runs every point of the grid SWEEP.yaml names (a base model and values of\n"
          "model-file fields, docs/sweep.md) through the pipeline: run, monitor, every\n"
          "rigid law calibrated and predictive. One row per point goes to FILE (HDF5):\n"
          "the inputs, episodes, duration, kappa, alpha, e_N, e_P per contact, each law's\n"
          "error; a point that fails is a row with its error text.\n"
          "\n"
          "  -o, --output FILE   output (default: SWEEP with .h5 for .yaml); an existing\n"
          "                      output of the same sweep is resumed: only the points\n"
          "                      missing are computed\n"
          "      --csv CSV       also write the table as CSV (- for standard output, the\n"
          "                      summary then goes to stderr)\n"
          "  -j, --jobs N        OpenMP threads (default: every core); under mpirun each\n"
          "                      rank computes one point at a time\n"
          "  -f, --force         start over: replace FILE whatever it holds\n"
          "  -q, --quiet         no progress, no summary\n"
          "  -h, --help          show this help\n"
          "\n"
          "Ctrl-C (or SIGTERM) stops at the next step and keeps a valid FILE with every\n"
          "finished point; the same command completes it. Exit status: 0 done (failed\n"
          "points included), 2 usage, 3 bad input (a bad sweep file, FILE holding another\n"
          "sweep or another cradle version's), 4 write failure, 130 interrupted.\n",
          out);
}

typedef struct {
    const char *sweep, *csv;
    char out[4096];
    int jobs, force, quiet;
} sweep_args;

static int parse_args(int argc, char **argv, sweep_args *a)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"csv", required_argument, NULL, 'C'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0; /* tools_bad_option says it in one line */
    while ((c = getopt_long(argc, argv, "o:j:fqh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'C':
            a->csv = optarg;
            break;
        case 'j':
            a->jobs = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || a->jobs < 1 || a->jobs > 4096) {
                tools_error("sweep: -j takes a number of threads from 1 to 4096 (got '%s')",
                            optarg);
                return EXIT_USAGE;
            }
            break;
        case 'f':
            a->force = 1;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'h':
            usage_sweep(stdout);
            return -1;
        default:
            return tools_bad_option("sweep", argv);
        }
    }
    if (argc - optind != 1) {
        tools_error("sweep takes one SWEEP.yaml, got %d arguments", argc - optind);
        return EXIT_USAGE;
    }
    a->sweep = argv[optind];
    char path[sizeof a->out];
    if (out) {
        snprintf(path, sizeof path, "%s", out);
    } else {
        size_t n = strlen(a->sweep);
        size_t cut = n > 5 && strcmp(a->sweep + n - 5, ".yaml") == 0  ? n - 5
                     : n > 4 && strcmp(a->sweep + n - 4, ".yml") == 0 ? n - 4
                                                                      : n;
        snprintf(path, sizeof path, "%.*s.h5", (int)cut, a->sweep);
    }
    /* a symbolic link stays one: the sweep writes its target */
    char msg[1024];
    char *target = tools_output_target(path, msg, sizeof msg);
    if (!target) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    snprintf(a->out, sizeof a->out, "%s", target);
    free(target);
    return 0;
}

/* ---- progress ----------------------------------------------------------------------- */

typedef struct {
    double start, last;
    size_t first_done; /* done when this run started (resumed points) */
    int tty, decile, quiet;
} progress;

static void duration(char *buf, size_t len, double s)
{
    if (s < 90)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 5400)
        snprintf(buf, len, "%.0f min", s / 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

/* Terminal: a line rewritten at most twice a second; otherwise one line per 10 %. */
static void show_progress(size_t done, size_t total, void *user)
{
    progress *p = user;
    double now = tools_now(), el = now - p->start;
    size_t here = done - p->first_done;
    double rate = el > 0 ? (double)here / el : 0;
    char left[32] = "?";
    if (rate > 0)
        duration(left, sizeof left, (double)(total - done) / rate);
    if (p->quiet)
        return;
    if (p->tty) {
        if (now - p->last < 0.5 && done < total)
            return;
        p->last = now;
        fprintf(stderr, "\r  %zu/%zu points (%.0f %%), %.3g points/s, %s left   ", done, total,
                100.0 * (double)done / (double)total, rate, left);
        return;
    }
    int decile = (int)(10 * done / total);
    if (decile > p->decile) {
        p->decile = decile;
        fprintf(stderr, "cradle sweep: %.0f %% (%zu/%zu points), %.3g points/s, %s left\n",
                floor(100.0 * (double)done / (double)total), done, total, rate, left);
    }
}

/* ---- output ------------------------------------------------------------------------- */

static int write_csv(const char *path, const char *csv)
{
    char msg[1024];
    cr_sweep_output *t = cr_sweep_output_open(path, msg, sizeof msg);
    if (!t) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    FILE *f = strcmp(csv, "-") == 0 ? stdout : fopen(csv, "w");
    int rc = f ? cr_sweep_output_write_csv(t, f) : CR_ERR_IO;
    if (f && f != stdout && fclose(f) != 0)
        rc = CR_ERR_IO;
    cr_sweep_output_close(t);
    if (rc != CR_OK) {
        tools_error("%s: cannot write the CSV table", csv);
        return EXIT_RUN;
    }
    return 0;
}

static size_t failed_points(const char *path, size_t *first)
{
    char msg[1024];
    cr_sweep_output *t = cr_sweep_output_open(path, msg, sizeof msg);
    size_t n = 0;
    for (size_t i = 0; t && i < cr_sweep_output_points(t); i++)
        if (cr_sweep_output_done(t, i) && cr_sweep_output_error(t, i)[0] && n++ == 0)
            *first = i;
    cr_sweep_output_close(t);
    return n;
}

/* On stdout, or on stderr when the CSV table goes to stdout (`--csv -`). */
static void summary(const sweep_args *a, const cr_sweep *s, const progress *p, size_t done,
                    int ranks, int threads)
{
    FILE *o = a->csv && strcmp(a->csv, "-") == 0 ? stderr : stdout;
    size_t first = 0, nf = failed_points(a->out, &first);
    double el = tools_now() - p->start;
    size_t here = done - p->first_done;
    fprintf(o, "sweep %s: %zu points, %zu computed in %.3g s (%.3g points/s, %d %s)%s\n",
            cr_sweep_name(s), cr_sweep_point_count(s), here, el, el > 0 ? (double)here / el : 0.0,
            ranks > 1 ? ranks : threads,
            ranks > 1      ? "MPI ranks"
            : threads == 1 ? "thread"
                           : "threads",
            p->first_done ? " (resumed)" : "");
    if (nf) {
        char msg[1024];
        cr_sweep_output *t = cr_sweep_output_open(a->out, msg, sizeof msg);
        fprintf(o, "  %zu point%s failed; the first, point %zu: %s\n", nf, nf == 1 ? "" : "s",
                first, t ? cr_sweep_output_error(t, first) : "?");
        cr_sweep_output_close(t);
    }
    fprintf(o, "  wrote %s\n", a->out);
}

/* ---- the command -------------------------------------------------------------------- */

/* Rank 0: the output, resumed or new; @return 0 or an exit status (printed). */
static int open_output(const sweep_args *a, const cr_sweep *s, cr_sweep_file **f, int *lock)
{
    char msg[1024] = "";
    const char *files[] = {a->sweep, cr_sweep_model_path(s), a->out};
    if (tools_check_output(a->out, a->sweep, msg, sizeof msg) != 0 ||
        (cr_sweep_model_path(s)[0] &&
         tools_check_output(a->out, cr_sweep_model_path(s), msg, sizeof msg) != 0) ||
        (a->csv && tools_check_csv(a->csv, files, 3, msg, sizeof msg) != 0) ||
        (*lock = tools_lock_output(a->out, msg, sizeof msg)) < 0) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    int rc = cr_sweep_file_open(a->out, s, a->force, f, msg, sizeof msg);
    if (rc != CR_OK) {
        tools_error("%s", msg);
        return rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    }
    return 0;
}

static int run_points(const sweep_args *a, const cr_sweep *s, int ranks, cr_sweep_file *f);

static int run_sweep(const sweep_args *a, const cr_sweep *s, int ranks)
{
    int rank = sweep_mpi_rank(), st = 0, lock = -1;
    cr_sweep_file *f = NULL;
    if (rank == 0)
        st = open_output(a, s, &f, &lock);
    if ((st = sweep_mpi_share(st)) != 0) {
        cr_sweep_file_close(f, NULL, NULL, 0);
        tools_unlock_output(lock, a->out);
        return st;
    }
    st = run_points(a, s, ranks, f);
    tools_unlock_output(lock, a->out);
    return st;
}

/* The points, then the file closed as what the sweep became (rank 0). */
static int run_points(const sweep_args *a, const cr_sweep *s, int ranks, cr_sweep_file *f)
{
    int rank = sweep_mpi_rank();
    int threads = ranks > 1 ? 1 : a->jobs ? a->jobs : cr_sweep_default_threads();
    progress p = {tools_now(),           0,  f ? cr_sweep_file_done_count(f) : 0,
                  isatty(STDERR_FILENO), -1, a->quiet || rank != 0};
    if (f && !a->quiet && p.first_done)
        fprintf(stderr, "cradle sweep: resuming %s: %zu of %zu points done\n", a->out, p.first_done,
                cr_sweep_point_count(s));
    p.decile = f ? (int)(10 * p.first_done / cr_sweep_point_count(s)) : 0;
    const volatile sig_atomic_t *stop = tools_catch_stop_signals();
    int rc = ranks > 1 ? sweep_mpi_run(s, f, show_progress, &p, stop)
                       : cr_sweep_run(s, f, threads, show_progress, &p, stop);
    if (rank != 0)
        return 0;
    if (p.tty && !a->quiet)
        fputs("\r\033[K", stderr);
    size_t done = cr_sweep_file_done_count(f);
    char msg[1024], why[1024];
    const char *status = rc == CR_OK                ? "complete"
                         : rc == CR_ERR_INTERRUPTED ? "interrupted"
                                                    : "failed";
    snprintf(why, sizeof why, "%s", cr_sweep_file_last_error(f));
    int closed = cr_sweep_file_close(f, status, msg, sizeof msg);
    /* one line: the write that failed, or else the close */
    if (rc != CR_OK && rc != CR_ERR_INTERRUPTED) {
        tools_error("%s%s", why, closed != CR_OK ? " (and the output could not be closed)" : "");
        return EXIT_RUN;
    }
    if (closed != CR_OK) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    if (rc == CR_ERR_INTERRUPTED) {
        tools_error("interrupted: %zu of %zu points done, kept in %s; the same command "
                    "completes it",
                    done, cr_sweep_point_count(s), a->out);
        return EXIT_INTERRUPTED;
    }
    if (rc != CR_OK)
        return EXIT_RUN;
    if (!a->quiet)
        summary(a, s, &p, done, ranks, threads);
    return a->csv ? write_csv(a->out, a->csv) : 0;
}

int cmd_sweep(int argc, char **argv)
{
    int ranks = sweep_mpi_init(&argc, &argv);
    if (ranks < 1)
        return EXIT_RUN;
    sweep_args a;
    int st = parse_args(argc, argv, &a);
    if (st == 0) {
        char msg[1024];
        cr_sweep *s = NULL;
        if (cr_sweep_load(a.sweep, &s, msg, sizeof msg) != CR_OK) {
            if (sweep_mpi_rank() == 0)
                tools_error("%s", msg);
            st = EXIT_INPUT;
        } else {
            st = run_sweep(&a, s, ranks);
        }
        cr_sweep_destroy(s);
    }
    sweep_mpi_finalize();
    return st < 0 ? 0 : st;
}
