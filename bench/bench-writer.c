/*
 * bench-writer: the trajectory writer (src/store/store.c) against raw write(2)
 * of the same bytes on the same disk (issue 22, item 7). Prints figures and
 * ratios measured in the same run; never judges.
 *
 *   bench-writer [MODEL] [--set PATH=VALUE ...] [--dir DIR] [--reps K] [--stat median|min]
 *
 * MODEL (default models/newton-cradle-5.yaml) with the --set overrides is run
 * K times (default 5) in each of these modes, in turn:
 *
 *   integrate   no output listener: the integration alone (the engine does
 *               not stop at output times)
 *   sample      a listener taking what the store takes at each output row
 *               (positions, velocities, energies, every contact's overlap,
 *               force and impulse), into one row: the engine's cost of a row
 *   store       cr_store_create, the run, cr_store_commit (no monitor), with
 *               CRADLE_STORE_DEFLATE unset (chunks stored as they are), then
 *               set to 1 (shuffle + deflate 1)
 *
 * The store's own time is measured inside the process: a listener registered
 * before cr_store_create starts a clock, one registered after it stops it, so
 * the store's listener (cr_store_append_frame) is what lies between; plus
 * create and commit; minus the sampling cost of the same rows (mode sample).
 * "Without fsync": this program defines fsync(2), which the library's calls
 * bind to (an executable's definition comes first); it skips the call in the
 * no-sync rows and times it in the others. Raw write(2): the same number of
 * bytes (rows × doubles per row, plus the events), written to a file in DIR
 * (default: the current folder) in 1 MiB calls from a 1 MiB buffer, no fsync,
 * then unlinked; once more with one fsync at the end; once more in calls of
 * 128 kB (a chunk) from a 16 MiB buffer (the store's, read back at a flush). CPU = the process's
 * user + system time (CLOCK_PROCESS_CPUTIME_ID); wall = CLOCK_MONOTONIC. Medians over K (--stat
 * min: the least of the K).
 */
#define _DEFAULT_SOURCE /* syscall(2) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cradle/cradle.h"

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    return clock_of(CLOCK_PROCESS_CPUTIME_ID);
}

static double wall_now(void)
{
    return clock_of(CLOCK_MONOTONIC);
}

/* ---- fsync, as the library sees it ------------------------------------------ */

static int skip_sync;
static long sync_calls;
static double sync_cpu, sync_wall;

int fsync(int fd)
{
    sync_calls++;
    if (skip_sync)
        return 0;
    double c0 = cpu_now(), w0 = wall_now();
    int rc = (int)syscall(SYS_fsync, fd);
    sync_cpu += cpu_now() - c0;
    sync_wall += wall_now() - w0;
    return rc;
}

/* ---- listeners ------------------------------------------------------------- */

typedef struct {
    double *row;
    size_t nbd, nc;
    double c0, w0, cpu, wall; /* time between start and stop, summed */
    size_t rows;
} probe;

static int start(const cr_system *sys, void *user)
{
    (void)sys;
    probe *p = user;
    p->c0 = cpu_now(), p->w0 = wall_now();
    return CR_OK;
}

static int stop(const cr_system *sys, void *user)
{
    (void)sys;
    probe *p = user;
    p->cpu += cpu_now() - p->c0, p->wall += wall_now() - p->w0;
    p->rows++;
    return CR_OK;
}

/* What cr_store_append_frame asks of the system for one row. */
static int sample(const cr_system *sys, void *user)
{
    probe *p = user;
    start(sys, p);
    double *r = p->row;
    r[0] = cr_system_get_time(sys);
    cr_system_get_positions(sys, r + 1);
    cr_system_get_velocities(sys, r + 1 + p->nbd);
    double *q = r + 1 + 2 * p->nbd;
    q[0] = cr_system_kinetic_energy(sys);
    q[1] = cr_system_potential_energy(sys);
    q[2] = cr_system_dissipated_work(sys);
    for (size_t c = 0; c < p->nc; c++) {
        cr_contact_view v;
        cr_system_get_contact(sys, c, &v);
        q[3 + 3 * c] = v.overlap, q[4 + 3 * c] = v.force, q[5 + 3 * c] = v.impulse;
    }
    return stop(sys, p);
}

/* ---- one run ---------------------------------------------------------------- */

enum { M_INTEGRATE, M_SAMPLE, M_STORE, M_STORE_SYNC, M_DEFLATE, M_COUNT };
static const char *const mode_name[M_COUNT] = {
    "integrate", "sample", "store, no compression (no fsync)", "store, no compression (fsync)",
    "store, shuffle + deflate 1 (no fsync)"};

typedef struct {
    double cpu, wall;               /* whole run: create + run + commit */
    double writer_cpu, writer_wall; /* the store's part (store modes) */
    double sync_wall;
    long syncs;
    size_t rows, events, row_doubles;
    long long file_bytes;
} result;

static int run_once(const cr_model *model, const char *text, int mode, const char *out, result *res)
{
    char msg[1024];
    memset(res, 0, sizeof *res);
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    if (!sys) {
        fprintf(stderr, "bench-writer: %s\n", msg);
        return -1;
    }
    size_t nbd = cr_system_body_count(sys) * (size_t)cr_system_dimension(sys);
    size_t nc = cr_system_contacts_fixed(sys) ? cr_system_contact_count(sys) : 0;
    probe p = {malloc((4 + 2 * nbd + 3 * nc) * sizeof(double)), nbd, nc, 0, 0, 0, 0, 0};
    res->row_doubles = 4 + 2 * nbd + 3 * nc;
    skip_sync = mode != M_STORE_SYNC;
    sync_calls = 0, sync_cpu = sync_wall = 0;
    if (mode == M_DEFLATE)
        setenv("CRADLE_STORE_DEFLATE", "1", 1);
    else
        unsetenv("CRADLE_STORE_DEFLATE");
    double c0 = cpu_now(), w0 = wall_now();
    cr_store *st = NULL;
    int rc = CR_OK;
    if (mode == M_SAMPLE)
        rc = cr_system_add_output_listener(sys, sample, &p);
    else if (mode >= M_STORE) {
        rc = cr_system_add_output_listener(sys, start, &p);
        st = cr_store_create(out, sys, model, "bench", text, msg, sizeof msg);
        if (!st) {
            fprintf(stderr, "bench-writer: %s\n", msg);
            rc = CR_ERR_IO;
        }
        if (rc == CR_OK) /* after the store's: its listener lies between */
            rc = cr_system_add_output_listener(sys, stop, &p);
    }
    double create_cpu = cpu_now() - c0, create_wall = wall_now() - w0;
    if (rc == CR_OK) {
        rc = cr_system_run(sys, cr_model_settings(model)->t_end);
    }
    double commit_cpu = 0, commit_wall = 0;
    if (rc == CR_OK && st) {
        double c1 = cpu_now(), w1 = wall_now();
        rc = cr_store_commit(st, "complete", NULL);
        commit_cpu = cpu_now() - c1, commit_wall = wall_now() - w1;
        if (rc != CR_OK)
            fprintf(stderr, "bench-writer: %s\n", cr_store_last_error(st));
    }
    res->cpu = cpu_now() - c0, res->wall = wall_now() - w0;
    res->events = cr_system_event_count(sys);
    cr_store_destroy(st);
    cr_system_destroy(sys);
    if (mode == M_SAMPLE) {
        res->writer_cpu = p.cpu, res->writer_wall = p.wall, res->rows = p.rows;
    } else if (mode >= M_STORE) {
        /* start's clock, stopped by `after`: the store's listener in between */
        res->writer_cpu = create_cpu + p.cpu + commit_cpu;
        res->writer_wall = create_wall + p.wall + commit_wall;
        res->rows = p.rows;
        struct stat sb;
        res->file_bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
        unlink(out);
    }
    res->syncs = sync_calls, res->sync_wall = sync_wall;
    free(p.row);
    return rc == CR_OK ? 0 : -1;
}

/* ---- raw write(2) ------------------------------------------------------------ */

/* @p bytes written with write(2) in calls of @p block bytes, cycling through a
 * source of @p source bytes (1 MiB: hot in the caches; 16 MiB: as large as the
 * store's buffer, whose rows a flush reads back from memory), filled (not
 * zeros: no sparse shortcut) before the clock starts. */
static int raw_write(const char *path, size_t bytes, size_t source, size_t block, int sync,
                     double *cpu, double *wall)
{
    char *buf = malloc(source);
    if (!buf)
        return -1;
    for (size_t i = 0; i < source; i++)
        buf[i] = (char)(i * 2654435761u >> 13);
    double c0 = cpu_now(), w0 = wall_now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = fd < 0 ? -1 : 0;
    for (size_t done = 0, at = 0; e == 0 && done < bytes;) {
        size_t n = bytes - done < block ? bytes - done : block;
        if (at + n > source)
            at = 0;
        ssize_t w = write(fd, buf + at, n);
        e = w <= 0 ? -1 : 0;
        done += w > 0 ? (size_t)w : 0;
        at += w > 0 ? (size_t)w : 0;
    }
    if (sync && e == 0)
        e = (int)syscall(SYS_fsync, fd);
    if (fd >= 0 && close(fd) < 0)
        e = -1;
    *cpu = cpu_now() - c0, *wall = wall_now() - w0;
    unlink(path);
    free(buf);
    return e;
}

/* ---- statistics and main ------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --stat min: the least of the repeats, a steadier estimate of a fixed amount
 * of work on a loaded machine (other processes only ever add to it) */
static int use_min;

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (use_min)
        return v[0];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MAX_SETS 32
#define MAX_REPS 51

int main(int argc, char **argv)
{
    const char *model_path = NULL, *dir = ".";
    const char *sets[MAX_SETS];
    size_t nsets = 0;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--set") == 0 && i + 1 < argc && nsets < MAX_SETS)
            sets[nsets++] = argv[++i];
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--stat") == 0 && i + 1 < argc)
            use_min = strcmp(argv[++i], "min") == 0;
        else if (argv[i][0] != '-' && !model_path)
            model_path = argv[i];
        else {
            fprintf(stderr, "usage: bench-writer [MODEL] [--set PATH=VALUE ...] [--dir DIR] "
                            "[--reps K] [--stat median|min]\n");
            return 2;
        }
    }
    reps = reps < 1 ? 1 : (reps > MAX_REPS ? MAX_REPS : reps);
    if (!model_path)
        model_path = "models/newton-cradle-5.yaml";
    char msg[1024], *text = NULL;
    size_t len = 0;
    FILE *f = fopen(model_path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        rewind(f);
        text = malloc(len + 1);
        if (text && fread(text, 1, len, f) == len)
            text[len] = '\0';
        else
            free(text), text = NULL;
        fclose(f);
    }
    cr_model *model = NULL;
    char *effective = NULL;
    cr_modelfile_sets in = {sets, nsets, "--set "};
    if (!text || cr_modelfile_parse_set(text, len, model_path, &in, &model, &effective, msg,
                                        sizeof msg) != CR_OK) {
        fprintf(stderr, "bench-writer: %s: %s\n", model_path, text ? msg : "cannot read");
        free(text);
        return 1;
    }
    char out[4096], raw[4096];
    snprintf(out, sizeof out, "%s/bench-writer-%ld.h5", dir, (long)getpid());
    snprintf(raw, sizeof raw, "%s/bench-writer-raw-%ld.bin", dir, (long)getpid());

    static double cpu[M_COUNT][MAX_REPS], wall[M_COUNT][MAX_REPS], wcpu[M_COUNT][MAX_REPS],
        wwall[M_COUNT][MAX_REPS], swall[M_COUNT][MAX_REPS];
    /* raw write(2): 1 MiB calls from 1 MiB, no fsync and one at the end;
     * 128 kB calls (a chunk) from 16 MiB, no fsync */
    static double rcpu[3][MAX_REPS], rwall[3][MAX_REPS];
    static const size_t raw_source[3] = {1u << 20, 1u << 20, 16u << 20};
    static const size_t raw_block[3] = {1u << 20, 1u << 20, 128000};
    result last[M_COUNT];
    memset(last, 0, sizeof last);
    size_t bytes = 0;
    for (int k = 0; k < reps; k++) {
        for (int m = 0; m < M_COUNT; m++) {
            result r;
            if (run_once(model, effective, m, out, &r) < 0)
                return 1;
            cpu[m][k] = r.cpu, wall[m][k] = r.wall, wcpu[m][k] = r.writer_cpu,
            wwall[m][k] = r.writer_wall, swall[m][k] = r.sync_wall;
            last[m] = r;
        }
        bytes = last[M_STORE].rows * last[M_STORE].row_doubles * sizeof(double) +
                last[M_STORE].events * 56;
        for (int s = 0; s < 3; s++)
            if (raw_write(raw, bytes, raw_source[s], raw_block[s], s == 1, &rcpu[s][k],
                          &rwall[s][k]) < 0) {
                fprintf(stderr, "bench-writer: cannot write %s\n", raw);
                return 1;
            }
    }
    /* the store's own cost: its listener's time less the sampling of the rows */
    double sample_cpu = median(wcpu[M_SAMPLE], reps), sample_wall = median(wwall[M_SAMPLE], reps);
    double integ = median(cpu[M_INTEGRATE], reps);
    size_t rows = last[M_STORE].rows;
    double mb = (double)bytes / 1e6;
    FILE *la = fopen("/proc/loadavg", "r");
    double l1 = 0;
    if (la) {
        if (fscanf(la, "%lf", &l1) != 1)
            l1 = 0;
        fclose(la);
    }
    printf("# bench-writer: %s", model_path);
    for (size_t i = 0; i < nsets; i++)
        printf(" --set %s", sets[i]);
    printf("\n# %zu rows of %zu doubles + %zu events = %.2f MB; %d repeats, %s; load %.1f; "
           "files in %s\n",
           rows, last[M_STORE].row_doubles, last[M_STORE].events, mb, reps,
           use_min ? "least of each" : "medians", l1, dir);
    printf("| mode | run CPU [s] | run wall [s] | writer CPU [s] | writer wall [s] | fsync "
           "calls, wall [s] | file [MB] | rows/s (CPU) | MB/s (CPU) |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    double store_cpu = 0;
    for (int m = 0; m < M_COUNT; m++) {
        double c = median(cpu[m], reps), w = median(wall[m], reps);
        if (m == M_INTEGRATE) {
            printf("| %s | %.4f | %.4f | - | - | - | - | - | - |\n", mode_name[m], c, w);
            continue;
        }
        double wc = median(wcpu[m], reps), ww = median(wwall[m], reps);
        if (m == M_SAMPLE) {
            printf("| %s (sampling only) | %.4f | %.4f | %.4f | %.4f | - | - | %.0f | - |\n",
                   mode_name[m], c, w, wc, ww, wc > 0 ? (double)rows / wc : 0);
            continue;
        }
        wc -= sample_cpu, ww -= sample_wall;
        if (m == M_STORE)
            store_cpu = wc;
        printf("| %s | %.4f | %.4f | %.4f | %.4f | %ld, %.4f | %.2f | %.0f | %.0f |\n",
               mode_name[m], c, w, wc, ww, last[m].syncs, median(swall[m], reps),
               (double)last[m].file_bytes / 1e6, wc > 0 ? (double)rows / wc : 0,
               wc > 0 ? mb / wc : 0);
    }
    double rc0 = median(rcpu[0], reps), rw0 = median(rwall[0], reps);
    double rc1 = median(rcpu[1], reps), rw1 = median(rwall[1], reps);
    printf("| raw write(2), 1 MiB calls (no fsync) | - | - | %.4f | %.4f | 0 | %.2f | - | %.0f |\n",
           rc0, rw0, mb, rc0 > 0 ? mb / rc0 : 0);
    printf("| raw write(2), 1 MiB calls, one fsync | - | - | %.4f | %.4f | 1 | %.2f | - | %.0f |\n",
           rc1, rw1, mb, rc1 > 0 ? mb / rc1 : 0);
    double rc2 = median(rcpu[2], reps), rw2 = median(rwall[2], reps);
    printf(
        "| raw write(2), 128 kB calls from 16 MiB (no fsync) | - | - | %.4f | %.4f | 0 | %.2f | - "
        "| %.0f |\n",
        rc2, rw2, mb, rc2 > 0 ? mb / rc2 : 0);
    printf("# writer (no compression, no fsync) / raw write(2) throughput: %.2f (1 MiB from 1 "
           "MiB), %.2f (128 kB from 16 MiB) (CPU); writer CPU / integration CPU: %.3f; sampling "
           "CPU / integration CPU: %.3f\n",
           store_cpu > 0 ? rc0 / store_cpu : 0, store_cpu > 0 ? rc2 / store_cpu : 0,
           integ > 0 ? store_cpu / integ : 0, integ > 0 ? sample_cpu / integ : 0);
    cr_model_destroy(model);
    free(effective);
    free(text);
    return 0;
}
