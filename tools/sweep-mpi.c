/*
 * Sweep points over MPI ranks. Rank 0 owns the output file and deals indices
 * dynamically (points differ in cost by orders of magnitude, so a static split
 * would leave ranks idle). Its main thread only deals, receives and writes;
 * rank 0's own points run on a second thread, so a long point of its own never
 * keeps the workers waiting for their next index (MPI_THREAD_FUNNELED: only
 * the main thread calls MPI). Each worker holds two indices while many remain
 * (no wait between points), one near the end (no worker left with two of the
 * last points while the others have none). Waiting ranks nap instead of
 * spinning (wait_for). A row is a function of its point alone: the table
 * equals the serial one bit for bit whatever rank computed which row.
 */
#include "sweep-mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CR_HAVE_MPI
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "mpi-shim.h"
#include "tools-common.h"
#endif

int sweep_mpi_built(void)
{
#ifdef CR_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifndef CR_HAVE_MPI

int sweep_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 1;
}
int sweep_mpi_rank(void)
{
    return 0;
}
int sweep_mpi_share(int value)
{
    return value;
}
void sweep_mpi_finalize(void) {}
int sweep_mpi_run(const cr_sweep *s, cr_sweep_file *f, cr_sweep_progress progress, void *user,
                  const volatile sig_atomic_t *stop)
{
    return cr_sweep_run(s, f, 1, progress, user, stop);
}

#else

enum { TAG_WORK = 1, TAG_RESULT = 2 };
/* Indices a worker holds at once: one computing, one waiting. */
#define IN_FLIGHT 2

static int mpi_started;
/* the MPI library allows rank 0's points on a thread of their own */
static int own_thread_ok;
static int mpi_ranks = 1;
/* the MPI calls, from libcradle-mpi.so (mpi-shim.h) */
static const cradle_mpi_api *mpi;

/* Opens the module (RTLD_GLOBAL: Open MPI's own plugins, opened by libmpi,
 * resolve symbols of libmpi and open-pal in the global scope). The name is
 * looked up in the executable's run path: the build's tools/ folder, or
 * PREFIX/LIBDIR/cradle once installed. */
static const cradle_mpi_api *open_module(void)
{
    void *h = dlopen(CRADLE_MPI_MODULE, RTLD_NOW | RTLD_GLOBAL);
    const cradle_mpi_api *api = h ? dlsym(h, CRADLE_MPI_TABLE) : NULL;
    if (!api)
        tools_error("sweep: started by an MPI launcher, but %s", dlerror());
    return api;
}

int sweep_mpi_init(int *argc, char ***argv)
{
    /* only under a launcher: a plain `cradle sweep` never loads MPI */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
        return 1;
    if (!(mpi = open_module()))
        return 0;
    int size = mpi->init(argc, argv, &own_thread_ok);
    if (size < 1)
        return 1;
    mpi_started = 1;
    mpi_ranks = size;
    return size;
}

int sweep_mpi_rank(void)
{
    return mpi_started ? mpi->rank() : 0;
}

int sweep_mpi_share(int value)
{
    if (mpi_started)
        mpi->bcast_int(&value);
    return value;
}

void sweep_mpi_finalize(void)
{
    if (mpi_started)
        mpi->finalize();
    mpi_started = 0;
}

/* A result message: index, status, the row, the error text. */
typedef struct {
    size_t ncol, bytes;
    unsigned char *buf;
} message;

static int message_init(message *m, size_t ncol)
{
    m->ncol = ncol;
    m->bytes = 2 * sizeof(int64_t) + ncol * sizeof(double) + CR_SWEEP_ERROR_LEN;
    m->buf = calloc(1, m->bytes);
    return m->buf ? 0 : -1;
}

static int64_t *msg_head(message *m)
{
    return (int64_t *)(void *)m->buf;
}
static double *msg_row(message *m)
{
    return (double *)(void *)(m->buf + 2 * sizeof(int64_t));
}
static char *msg_err(message *m)
{
    return (char *)(m->buf + 2 * sizeof(int64_t) + m->ncol * sizeof(double));
}

static void compute_into(const cr_sweep *s, message *m, int64_t index,
                         const volatile sig_atomic_t *stop)
{
    msg_head(m)[0] = index;
    msg_head(m)[1] =
        cr_sweep_compute(s, (size_t)index, msg_row(m), msg_err(m), CR_SWEEP_ERROR_LEN, stop);
}

/* Waits for a message without spinning: Open MPI's blocking calls poll at full
 * speed, which takes a core from the rank that shares it (oversubscribed
 * runs, a busy machine); a 1 ms nap costs nothing next to a point (workers
 * hold two indices, so it delays no work but the last). */
static int wait_for(int source, int tag)
{
    int from = source;
    const struct timespec nap = {0, 1000000};
    while (!mpi->iprobe(source, tag, &from))
        nanosleep(&nap, NULL);
    return from;
}

static void send_index(int to, int64_t index)
{
    mpi->send(&index, sizeof index, to, TAG_WORK);
}

static int worker(const cr_sweep *s, const volatile sig_atomic_t *stop)
{
    message m;
    if (message_init(&m, cr_sweep_column_count(s)) != 0)
        mpi->abort(4);
    for (;;) {
        int64_t index;
        wait_for(0, TAG_WORK);
        mpi->recv(&index, sizeof index, 0, TAG_WORK, NULL);
        if (index < 0)
            break;
        compute_into(s, &m, index, stop);
        mpi->send(m.buf, m.bytes, 0, TAG_RESULT);
    }
    free(m.buf);
    return CR_OK;
}

/* Rank 0's bookkeeping. */
typedef struct {
    const cr_sweep *s;
    cr_sweep_file *f;
    size_t *todo, n, next;
    int *flight, ranks;
    long in_flight;
    int rc, interrupted;
    cr_sweep_progress progress;
    void *user;
    double last_flush;
} master;

/* Rows reach the disk at least this often (seconds), as in cr_sweep_run. */
#define FLUSH_SECONDS 2.0

static void store(master *M, message *m)
{
    int rc = (int)msg_head(m)[1];
    if (rc == CR_ERR_INTERRUPTED) {
        M->interrupted = 1;
    } else if (rc != CR_OK) {
        if (M->rc == CR_OK)
            M->rc = rc;
    } else if (M->rc == CR_OK) {
        M->rc = cr_sweep_file_put(M->f, (size_t)msg_head(m)[0], msg_row(m), msg_err(m));
        if (M->rc == CR_OK && mpi->wtime() - M->last_flush > FLUSH_SECONDS) {
            M->rc = cr_sweep_file_flush(M->f);
            M->last_flush = mpi->wtime();
        }
        if (M->progress)
            M->progress(cr_sweep_file_done_count(M->f), cr_sweep_point_count(M->s), M->user);
    }
}

static int dealing(const master *M, const volatile sig_atomic_t *stop)
{
    return M->next < M->n && M->rc == CR_OK && !M->interrupted && !(stop && *stop);
}

/* Receives one result (blocking), stores it, sends that rank its next index. */
static void receive(master *M, message *m, const volatile sig_atomic_t *stop)
{
    int from = wait_for(-1, TAG_RESULT);
    mpi->recv(m->buf, m->bytes, from, TAG_RESULT, NULL);
    M->flight[from]--;
    M->in_flight--;
    store(M, m);
    int want = M->n - M->next > (size_t)(IN_FLIGHT * M->ranks) ? IN_FLIGHT : 1;
    while (dealing(M, stop) && M->flight[from] < want) {
        send_index(from, (int64_t)M->todo[M->next++]);
        M->flight[from]++;
        M->in_flight++;
    }
}

static int pending(void)
{
    return mpi->iprobe(-1, TAG_RESULT, NULL);
}

/* Rank 0's own point, computed on a thread while the main thread deals. */
typedef struct {
    const cr_sweep *s;
    message m;
    int64_t index;
    const volatile sig_atomic_t *stop;
    atomic_int finished;
    pthread_t thread;
    int running;
} own_point;

static void *own_compute(void *arg)
{
    own_point *o = arg;
    compute_into(o->s, &o->m, o->index, o->stop);
    atomic_store(&o->finished, 1);
    return NULL;
}

/* Starts rank 0's next point (inline when no thread can be had). */
static void own_start(master *M, own_point *o)
{
    o->index = (int64_t)M->todo[M->next++];
    atomic_store(&o->finished, 0);
    o->running = own_thread_ok && pthread_create(&o->thread, NULL, own_compute, o) == 0;
    if (!o->running) {
        compute_into(M->s, &o->m, o->index, o->stop);
        store(M, &o->m);
    }
}

static void deal(master *M, message *m, own_point *o, const volatile sig_atomic_t *stop)
{
    const struct timespec nap = {0, 1000000};
    for (int r = 1; r < M->ranks; r++)
        for (int k = 0; k < IN_FLIGHT && dealing(M, stop); k++) {
            send_index(r, (int64_t)M->todo[M->next++]);
            M->flight[r]++;
            M->in_flight++;
        }
    for (;;) {
        int idle = 1;
        while (M->in_flight > 0 && pending()) {
            receive(M, m, stop);
            idle = 0;
        }
        if (o->running && atomic_load(&o->finished)) {
            pthread_join(o->thread, NULL);
            o->running = 0;
            store(M, &o->m);
            idle = 0;
        }
        if (!o->running && dealing(M, stop)) {
            own_start(M, o);
            idle = 0;
        }
        if (!o->running && M->in_flight == 0 && !dealing(M, stop))
            break;
        if (idle)
            nanosleep(&nap, NULL);
    }
    for (int r = 1; r < M->ranks; r++)
        send_index(r, -1);
}

int sweep_mpi_run(const cr_sweep *s, cr_sweep_file *f, cr_sweep_progress progress, void *user,
                  const volatile sig_atomic_t *stop)
{
    int ranks = mpi_started ? mpi_ranks : 1;
    if (ranks == 1)
        return cr_sweep_run(s, f, 1, progress, user, stop);
    if (sweep_mpi_rank() != 0)
        return worker(s, stop);
    master M = {s, f, NULL, 0, 0, NULL, ranks, 0, CR_OK, 0, progress, user, mpi->wtime()};
    message m = {0, 0, NULL};
    own_point o = {.s = s, .stop = stop};
    M.todo = malloc((cr_sweep_point_count(s) + 1) * sizeof(size_t));
    M.flight = calloc((size_t)ranks, sizeof(int));
    if (!M.todo || !M.flight || message_init(&m, cr_sweep_column_count(s)) != 0 ||
        message_init(&o.m, cr_sweep_column_count(s)) != 0)
        mpi->abort(4);
    for (size_t i = 0; i < cr_sweep_point_count(s); i++)
        if (!cr_sweep_file_is_done(f, i))
            M.todo[M.n++] = i;
    deal(&M, &m, &o, stop);
    free(M.todo);
    free(M.flight);
    free(m.buf);
    free(o.m.buf);
    int fl = cr_sweep_file_flush(f);
    if (M.rc != CR_OK)
        return M.rc;
    /* a stop that came after the last point left nothing undone */
    int undone = cr_sweep_file_done_count(f) < cr_sweep_point_count(s);
    return (M.interrupted || (stop && *stop)) && undone ? CR_ERR_INTERRUPTED : fl;
}

#endif
