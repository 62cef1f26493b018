/*
 * The threaded sweep: points are handed out one at a time (points differ in
 * cost by orders of magnitude: a long chain beside a short one), computed on
 * any thread, and written by one thread at a time (HDF5 is not thread-safe).
 * A row depends on its point only, so the table does not depend on which
 * thread computed what.
 */
#include <stdlib.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sweep/sweep-priv.h"

/* Flush to the disk at least this often (seconds) and after the last point. */
#define SW_FLUSH_SECONDS 2.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cr_sweep_default_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

typedef struct {
    const cr_sweep *s;
    cr_sweep_file *f;
    cr_sweep_progress progress;
    void *user;
    size_t total;
    double last_flush;
    int rc; /* the first write error */
} sw_run;

/* Stores one finished point (called by one thread at a time). */
static void store_point(sw_run *r, size_t i, const double *row, const char *err)
{
    if (r->rc != CR_OK)
        return;
    r->rc = cr_sweep_file_put(r->f, i, row, err);
    if (r->rc == CR_OK && now() - r->last_flush > SW_FLUSH_SECONDS) {
        r->rc = cr_sweep_file_flush(r->f);
        r->last_flush = now();
    }
    if (r->progress)
        r->progress(cr_sweep_file_done_count(r->f), r->total, r->user);
}

int cr_sweep_run(const cr_sweep *s, cr_sweep_file *f, int threads, cr_sweep_progress progress,
                 void *user, const volatile sig_atomic_t *stop)
{
    if (!s || !f)
        return CR_ERR_INVALID;
    size_t n = 0, *todo = malloc((s->points + 1) * sizeof(size_t));
    if (!todo)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < s->points; i++)
        if (!cr_sweep_file_is_done(f, i))
            todo[n++] = i;
    if (threads <= 0)
        threads = cr_sweep_default_threads();
    if ((size_t)threads > n)
        threads = n > 0 ? (int)n : 1;
    sw_run r = {s, f, progress, user, s->points, now(), CR_OK};
    int interrupted = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
    for (long k = 0; k < (long)n; k++) {
        double *row = malloc((s->ncol + 1) * sizeof(double));
        char err[CR_SWEEP_ERROR_LEN];
        int rc = row && r.rc == CR_OK ? cr_sweep_compute(s, todo[k], row, err, sizeof err, stop)
                                      : CR_ERR_NOMEM;
#ifdef _OPENMP
#pragma omp critical(cr_sweep_store)
#endif
        {
            if (rc == CR_OK)
                store_point(&r, todo[k], row, err);
            else if (rc == CR_ERR_INTERRUPTED)
                interrupted = 1;
            else if (r.rc == CR_OK)
                r.rc = rc;
        }
        free(row);
    }
    (void)threads;
    free(todo);
    int fl = cr_sweep_file_flush(f);
    if (r.rc != CR_OK)
        return r.rc;
    /* a stop that came after the last point left nothing undone */
    if ((interrupted || (stop && *stop)) && cr_sweep_file_done_count(f) < s->points)
        return CR_ERR_INTERRUPTED;
    return fl;
}
