/*
 * HDF5 writer: one layout for every engine (docs/hdf5-layout.md), written
 * against cr_system and cr_monitor only.
 *
 * Crash behaviour shapes the code. HDF5 1.10 without SWMR keeps no journal: a
 * file whose writer dies while HDF5 has unwritten or half-written metadata may
 * not open at all. So trajectory rows and events are buffered here and handed
 * to HDF5 only in store_flush, which ends with H5Fflush and fsync: between
 * flushes HDF5 writes nothing, and a kill there leaves the file exactly as the
 * last flush left it. Write errors (a full disk) kill the store: its temporary
 * file is closed and removed at once and the target path is never touched.
 *
 * Speed shapes the rest (docs/performance.md, "Trajectory writer"): a flush
 * hands HDF5 whole chunks of ~128 KiB from the store's own buffers
 * (H5Dwrite_chunk), uncompressed unless CRADLE_STORE_DEFLATE asks, so HDF5
 * neither caches, fills nor filters a chunk, and nothing is allocated per
 * chunk.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE (big_alloc) */
#include "cradle/rigid.h"
#include "cradle/store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/h5-util.h"
#include "base/base.h"
#include "store/store-priv.h"

/* Rows appended between flushes are bounded in bytes as well as in rows, so a
 * 10⁵-body pool does not buffer gigabytes. Each series also keeps the rows of
 * its partly filled last chunk (at most this many rows again: chunk_shape). */
#define BUFFER_BYTES (16u << 20)

/* Free space a new file needs beyond its model text: the metadata of the
 * initial layout is ~20 KiB; the rest is slack for the first rows. */
#define CREATE_MARGIN (256u << 10)

/* Trajectory series: one extendible dataset each, fed one row at a time. */
/* S_THETA, S_OMEGA: rigid bodies' orientation and angular velocity, only in
 * models with rotating bodies (cr_system_rotating_body_count > 0) */
enum {
    S_TIME,
    S_POS,
    S_VEL,
    S_KIN,
    S_POT,
    S_DISS,
    S_OVL,
    S_FORCE,
    S_IMPULSE,
    S_THETA,
    S_OMEGA,
    S_COUNT
};

/* Chunks (docs/hdf5-layout.md, "Chunks and compression"): about 128 KiB of a 2-D series,
 * rows × columns as square as the row allows (a time slice and a body's
 * history then cost about the same to read), 128 to 256 rows; a 1-D series
 * keeps 8 KiB (1024 doubles). The last, padded chunk of a short run stays
 * small: the default model's file and start-up. */
#define CHUNK_ELEMS 16384u
#define CHUNK_ROWS_MIN 128u
#define CHUNK_ROWS_MAX 256u
#define CHUNK_1D_BYTES 8192u

/* An extendible dataset written by whole chunks (H5Dwrite_chunk) from its own
 * buffer, which holds its rows chunk by chunk: row block q (crow rows), column
 * block b (ccol columns) at chunk q·nblk + b, so a flush hands HDF5 each chunk
 * where it lies. No HDF5 chunk cache, filter pipeline or fill value is used.
 * The buffer starts at file row `base` (a chunk boundary); its first `tail`
 * rows are in the file already, as the partly filled last chunk that the next
 * flush writes again with the rows appended since. */
typedef struct {
    hid_t dset;
    size_t cols;             /* 0: a 1-D series (one element per row) */
    size_t elem;             /* bytes per element */
    size_t crow, ccol, nblk; /* chunk shape (ccol 1 for a 1-D series), column blocks */
    size_t base, tail;       /* file row of the buffer's first row; rows already written */
    size_t room;             /* rows the buffer holds, a multiple of crow */
    unsigned char *buf;
    size_t mapped; /* bytes of buf when mmap'ed (big_alloc) */
} series;

enum { ST_OPEN, ST_DEAD, ST_COMMITTED };

struct cr_store {
    char *path, *tmp, *dir;
    cr_system *sys;
    const cr_model *model;
    int dim, state, rc; /* rc: the error that killed the store */
    size_t nb, nseries_contacts;
    hid_t fapl, file, traj, event_type;
    series s[S_COUNT], ev;
    size_t buffered, capacity; /* rows appended since the last flush, and their bound */
    size_t events_written;
    int deflate;                /* 0: chunks stored as they are; 1-9: shuffle + deflate level */
    z_stream *z;                /* one deflate stream, reset per chunk (deflate only) */
    unsigned char *shuf, *zout; /* deflate scratch: one chunk shuffled, deflated */
    size_t chunk_bytes, zout_bytes;
    double *row;   /* one row of a series split in column blocks, before it is scattered */
    unsigned omit; /* CR_OUT_* fields not written (output.fields; CR_OUT_ALL: none) */
    size_t *body_sel, nbsel;    /* bodies whose columns are written (output.bodies) */
    size_t *contact_sel, ncsel; /* contacts with a written body (chains' per-contact series) */
    double *all;                /* every body's dim numbers, before the selection is taken */
    int collisions_written;     /* /collisions (an empty one is written at commit otherwise) */
    size_t flush_rows;
    double flush_seconds, last_flush;
    double t_last; /* time of the last appended row */
    /* /restart: the last row taken between episodes (rs_buf: positions then
     * velocities), written at every flush it changed since */
    const cr_monitor *mon;
    double *rs_buf, *radius, rs_time, rs_scanned;
    int rs_dirty, rs_open; /* rs_open: an episode ran at the last row */
    char **recovered;
    size_t nrecovered;
    char err[CR_ERRMSG_LEN];
};

/* ---- small HDF5 helpers (each returns 0 or -1 and closes what it opened) --- */

static hid_t group_create(hid_t loc, const char *name)
{
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

/* ---- extendible series, written by whole chunks ---------------------------- */

/* The chunk shape of a series of @p cols columns (0: 1-D) of @p elem bytes
 * whose buffer may hold @p rows_max rows beyond its tail: rows × columns as
 * above, columns split into equal blocks, rows at most rows_max (so a
 * 10⁵-body row does not make the buffer hold 128 of them). */
static void chunk_shape(size_t cols, size_t elem, size_t rows_max, size_t *crow, size_t *ccol)
{
    if (cols == 0) {
        size_t r = CHUNK_1D_BYTES / elem;
        *crow = r < 1 ? 1 : r, *ccol = 1;
        return;
    }
    size_t r = CHUNK_ELEMS / cols;
    r = r < CHUNK_ROWS_MIN ? CHUNK_ROWS_MIN : (r > CHUNK_ROWS_MAX ? CHUNK_ROWS_MAX : r);
    r = r > rows_max ? rows_max : r;
    r = r < 1 ? 1 : r;
    size_t c = CHUNK_ELEMS / r;
    c = c < 1 ? 1 : (c > cols ? cols : c);
    size_t blocks = (cols + c - 1) / c;
    *crow = r, *ccol = (cols + blocks - 1) / blocks;
}

/* Bytes of one chunk of @p s, and where chunk (q, b) lies in its buffer. */
static size_t chunk_bytes(const series *s)
{
    return s->crow * s->ccol * s->elem;
}

static unsigned char *chunk_at(const series *s, size_t q, size_t b)
{
    return s->buf + (q * s->nblk + b) * chunk_bytes(s);
}

/* A zeroed buffer of @p bytes; *mapped: its size when it was mapped (munmap
 * it), else 0 (free it). One of megabytes is filled once per run and written
 * from at each flush: in 4 KiB pages its first filling costs a page fault per
 * page (a 1000-bead chain's 25 MB: 6,000 faults, as much CPU as writing the
 * rows to the file); mapped and marked for huge pages it costs one per 2 MiB
 * where the kernel has them (transparent huge pages in `madvise` mode,
 * Debian's default), and comes zeroed without a pass of memset. */
static void *big_alloc(size_t bytes, size_t *mapped)
{
    const size_t huge = (size_t)2 << 20;
    *mapped = 0;
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    if (bytes >= huge) {
        size_t len = (bytes + huge - 1) / huge * huge;
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            (void)madvise(p, len, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
            *mapped = len;
            return p;
        }
    }
#endif
    return calloc(1, bytes);
}

/* Room for @p rows rows (rounded up to whole row blocks); the contents are kept. */
static int series_grow(series *s, size_t rows)
{
    size_t blocks = (rows + s->crow - 1) / s->crow, room = blocks * s->crow;
    if (room <= s->room)
        return 0;
    if (s->mapped) /* a trajectory series never grows; /events is not mapped */
        return -1;
    size_t old = s->room / s->crow * s->nblk * chunk_bytes(s);
    size_t bytes = blocks * s->nblk * chunk_bytes(s);
    unsigned char *b = s->buf ? realloc(s->buf, bytes) : big_alloc(bytes, &s->mapped);
    if (!b)
        return -1;
    if (s->buf) /* zeros: the padding columns stay zero */
        memset(b + old, 0, bytes - old);
    s->buf = b;
    s->room = room;
    return 0;
}

static void series_free(series *s)
{
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    if (s->mapped) {
        munmap(s->buf, s->mapped);
        return;
    }
#endif
    free(s->buf);
}

/* An extendible series (first dimension unlimited) with the store's chunk
 * shape and filters, and its buffer: the partly filled last chunk plus
 * @p pending rows. */
static int series_open(cr_store *st, series *s, hid_t loc, const char *name, hid_t type,
                       size_t cols, size_t pending)
{
    int rank = cols ? 2 : 1;
    s->cols = cols;
    s->elem = H5Tget_size(type);
    if (s->elem == 0)
        return -1;
    chunk_shape(cols, s->elem, pending, &s->crow, &s->ccol);
    s->nblk = cols ? (cols + s->ccol - 1) / s->ccol : 1;
    if (series_grow(s, s->crow + pending) < 0)
        return -1;
    st->chunk_bytes = chunk_bytes(s) > st->chunk_bytes ? chunk_bytes(s) : st->chunk_bytes;
    hsize_t dims[2] = {0, cols}, maxd[2] = {H5S_UNLIMITED, cols};
    hsize_t chunk[2] = {s->crow, s->ccol};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int e = space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
                    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0
                ? -1
                : 0;
    if (e == 0 && st->deflate)
        e = H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, (unsigned)st->deflate) < 0 ? -1 : 0;
    if (e == 0)
        s->dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return e < 0 || s->dset < 0 ? -1 : 0;
}

/* Where row @p r of the buffer goes when the series has one column block (its
 * elements lie together), else NULL: put_row scatters it. */
static void *row_slot(const series *s, size_t r)
{
    if (s->nblk > 1)
        return NULL;
    return chunk_at(s, r / s->crow, 0) + r % s->crow * s->ccol * s->elem;
}

/* Row @p r of the buffer from @p row (cols elements), column block by block. */
static void put_row(series *s, size_t r, const void *row)
{
    size_t q = r / s->crow, off = r % s->crow * s->ccol * s->elem;
    for (size_t b = 0; b < s->nblk; b++) {
        size_t c0 = b * s->ccol, nc = s->cols - c0 < s->ccol ? s->cols - c0 : s->ccol;
        memcpy(chunk_at(s, q, b) + off, (const unsigned char *)row + c0 * s->elem, nc * s->elem);
    }
}

/* HDF5's shuffle filter (H5Zshuffle.c): byte k of every element, k = 0 … size−1. */
static void shuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t size)
{
    for (size_t k = 0; k < size; k++)
        for (size_t i = 0; i < n; i++)
            dst[k * n + i] = src[i * size + k];
}

/* One chunk's bytes through the dataset's filters as HDF5 would apply them
 * (shuffle, then deflate in zlib's format, which H5Z's inflate reads), with
 * the store's one stream: no allocation per chunk. @return the size, or 0. */
static size_t deflate_chunk(cr_store *st, const unsigned char *src, size_t bytes, size_t elem)
{
    shuffle(st->shuf, src, bytes / elem, elem);
    z_stream *z = st->z;
    if (deflateReset(z) != Z_OK)
        return 0;
    z->next_in = st->shuf;
    z->avail_in = (uInt)bytes;
    z->next_out = st->zout;
    z->avail_out = (uInt)st->zout_bytes;
    return deflate(z, Z_FINISH) == Z_STREAM_END ? st->zout_bytes - z->avail_out : 0;
}

/* Hands the first @p n rows of the buffer to HDF5, chunk by chunk where they
 * lie (the last chunk padded with zeros, which no reader sees: the extent ends
 * at the last row), and keeps that last chunk's rows at the start of the
 * buffer for the next write. Only whole chunks are written: HDF5 reads nothing
 * back, and an unfiltered chunk is rewritten in place. */
static int write_series(cr_store *st, series *s, size_t n)
{
    if (n == s->tail)
        return 0;
    hsize_t dims[2] = {s->base + n, s->cols};
    if (H5Dset_extent(s->dset, dims) < 0)
        return -1;
    size_t cb = chunk_bytes(s), rowb = s->ccol * s->elem;
    for (size_t q = 0; q * s->crow < n; q++) {
        size_t nr = n - q * s->crow < s->crow ? n - q * s->crow : s->crow;
        for (size_t b = 0; b < s->nblk; b++) {
            unsigned char *src = chunk_at(s, q, b);
            if (nr < s->crow) /* rows of an earlier block may linger there */
                memset(src + nr * rowb, 0, (s->crow - nr) * rowb);
            size_t bytes = cb;
            if (st->deflate) {
                bytes = deflate_chunk(st, src, cb, s->elem);
                src = st->zout;
                if (bytes == 0)
                    return -1;
            }
            hsize_t off[2] = {s->base + q * s->crow, b * s->ccol};
            if (H5Dwrite_chunk(s->dset, H5P_DEFAULT, 0, off, bytes, src) < 0)
                return -1;
        }
    }
    size_t keep = n % s->crow;
    if (keep)
        memmove(s->buf, chunk_at(s, n / s->crow, 0), s->nblk * cb);
    s->base += n - keep;
    s->tail = keep;
    return 0;
}

/* The compression asked for by CRADLE_STORE_DEFLATE (docs/hdf5-layout.md,
 * "Chunks and compression"): none by default, since deflate, even at level 1,
 * costs as much CPU as the integration of a large chain (a 1000-bead chain:
 * 0.15 s against 0.03 s uncompressed); 1–9: shuffle + deflate at that level. */
static int deflate_level(void)
{
    const char *v = getenv("CRADLE_STORE_DEFLATE");
    if (!v || !*v)
        return 0;
    char *end;
    long l = strtol(v, &end, 10);
    return *end == '\0' && l >= 0 && l <= 9 ? (int)l : 0;
}

/* The deflate stream and scratch of a compressing store, once: zlib's ~270 KB
 * of state set up and freed per chunk (HDF5's filter does that) is what made
 * glibc return memory to the kernel at every chunk. */
static int deflate_open(cr_store *st)
{
    if (!st->deflate)
        return 0;
    st->z = calloc(1, sizeof *st->z);
    if (!st->z || deflateInit(st->z, st->deflate) != Z_OK) {
        free(st->z);
        st->z = NULL;
        return -1;
    }
    st->zout_bytes = deflateBound(st->z, (uLong)st->chunk_bytes);
    st->shuf = malloc(st->chunk_bytes);
    st->zout = malloc(st->zout_bytes);
    return st->shuf && st->zout ? 0 : -1;
}

/* ---- errors ---------------------------------------------------------------- */

/* The operating system's errno behind the last failed HDF5 write ("errno =
 * 28" in the sec2 driver's message). HDF5 clears its error stack at the next
 * API call, and a failing write is usually followed by the closing calls of
 * its helper, so the stack is read when HDF5 reports the failure: the store's
 * silent error handler (H5Eset_auto2) records it here. */
static _Thread_local int h5_os_errno;

static herr_t find_errno(unsigned n, const H5E_error2_t *e, void *user)
{
    (void)n;
    const char *p = e->desc ? strstr(e->desc, "errno = ") : NULL;
    if (p && *(int *)user == 0)
        *(int *)user = atoi(p + 8);
    return 0;
}

static herr_t note_errno(hid_t stack, void *user)
{
    (void)user;
    int err = 0;
    H5Ewalk2(stack, H5E_WALK_UPWARD, find_errno, &err);
    if (err && h5_os_errno == 0)
        h5_os_errno = err;
    return 0; /* and print nothing: the library never prints */
}

/* The recorded errno since the last call (and forget it). */
static int hdf5_errno(void)
{
    int err = h5_os_errno;
    h5_os_errno = 0;
    return err;
}

static int close_file(cr_store *st, int discard);

/* The store is dead: @p rc and the message stay, the temporary goes. */
static int store_die(cr_store *st, int rc)
{
    st->rc = rc;
    st->state = ST_DEAD;
    close_file(st, 1);
    unlink(st->tmp);
    return rc;
}

/* A write failed: the store is dead. Its temporary is closed and removed now
 * (the space comes back at once on a full disk) and the target is left as it
 * was. The message says what failed, where, and the system's reason. */
static int store_fail(cr_store *st, const char *what)
{
    if (st->state != ST_OPEN)
        return st->rc;
    int err = hdf5_errno();
    if (err == ENOSPC || err == EDQUOT)
        cr_set_msg(st->err, sizeof st->err,
                   "%s: disk full while %s (%s); the output was not written and %s is unchanged",
                   st->path, what, strerror(err), st->path);
    else if (err)
        cr_set_msg(st->err, sizeof st->err,
                   "%s: write error while %s (%s); the output was not written and %s is "
                   "unchanged",
                   st->path, what, strerror(err), st->path);
    else
        cr_set_msg(st->err, sizeof st->err,
                   "%s: HDF5 error while %s; the output was not written and %s is unchanged",
                   st->path, what, st->path);
    return store_die(st, err ? CR_ERR_IO : CR_ERR_HDF5);
}

/* ---- closing --------------------------------------------------------------- */

/* Closes every id the store holds, the file last, each exactly once.
 * @p discard: the file is being thrown away after a write error. HDF5 1.10
 * still holds metadata it could not write; H5Fclose then fails with the file
 * half torn down, and a second H5Fclose (or HDF5's atexit handler) crashes in
 * H5F__close. Truncating the doomed file first gives back its space, so the
 * close can write that metadata and finish cleanly.
 * @return -1 when HDF5 reported an error (then the file is not complete). */
static int close_file(cr_store *st, int discard)
{
    int e = 0;
    void *handle = NULL;
    if (discard && st->file > 0 && H5Fget_vfd_handle(st->file, st->fapl, &handle) >= 0 && handle)
        e |= ftruncate(*(int *)handle, 0) < 0 ? -1 : 0;
    for (int k = 0; k < S_COUNT; k++) {
        if (st->s[k].dset > 0 && H5Dclose(st->s[k].dset) < 0)
            e = -1;
        st->s[k].dset = 0;
    }
    if (st->ev.dset > 0 && H5Dclose(st->ev.dset) < 0)
        e = -1;
    if (st->event_type > 0)
        H5Tclose(st->event_type);
    if (st->traj > 0 && H5Gclose(st->traj) < 0)
        e = -1;
    st->ev.dset = st->event_type = st->traj = 0;
    /* H5F_CLOSE_STRONG (fapl) closes whatever is still open in the file, so no
     * id of ours outlives this call. Never retried: see above. */
    if (st->file > 0 && H5Fclose(st->file) < 0)
        e = -1;
    st->file = 0;
    return e;
}

/* fsync on a path (a file, or a folder after a rename). */
static int sync_path(const char *path, int directory)
{
    int fd = open(path, O_RDONLY | (directory ? O_DIRECTORY : 0));
    if (fd < 0)
        return -1;
    int e = fsync(fd);
    if (close(fd) < 0)
        e = -1;
    return e < 0 && !(directory && errno == EINVAL) ? -1 : 0;
}

/* ---- the restart state (docs/hdf5-layout.md, "/restart") ------------------- */

/* A state a continued run can start from with a fresh monitor and a fresh
 * integrator: no episode running (the monitor's word when it is attached),
 * no contact loaded or overlapping beyond the touching tolerance (the model
 * a continuation builds must validate), every touching or linked contact
 * settled. An open contact that approaches is fine: its episode starts later. */
static int between_episodes(const cr_store *st)
{
    if (st->mon && cr_monitor_open_count(st->mon) > 0)
        return 0;
    size_t nc = cr_system_contact_count(st->sys);
    for (size_t k = 0; k < nc; k++) {
        cr_contact_view w;
        if (cr_system_get_contact(st->sys, k, &w) != CR_OK)
            return 0;
        double ra = st->radius[w.body_a], rb = w.body_b >= 0 ? st->radius[w.body_b] : 0.0;
        double rmin = ra > 0.0 && rb > 0.0 ? fmin(ra, rb) : fmax(ra, rb);
        if (w.state == CR_CONTACT_LOADED || w.overlap > CR_GEOM_TOL * rmin)
            return 0;
        if (!w.settled && (w.state != CR_CONTACT_OPEN || w.linked))
            return 0;
    }
    return 1;
}

/* At a row: a restart state when the run is between episodes. The contact
 * scan costs ~50 ns a contact (a 1000-bead chain in free flight, a row every
 * 1e-5 s: 0.05 s of 0.04 s without it), so it runs at the rows that end in a
 * flush, at the end, and otherwise at most every RESTART_SCAN_SECONDS of
 * wall time; a run in an episode skips it at once. */
#define RESTART_SCAN_SECONDS 0.01

static void take_restart(cr_store *st, int force, double now)
{
    if ((st->rs_open = st->mon && cr_monitor_open_count(st->mon) > 0))
        return;
    if (!force && now - st->rs_scanned < RESTART_SCAN_SECONDS)
        return;
    st->rs_scanned = now;
    if (!between_episodes(st))
        return;
    size_t nbd = st->nb * (size_t)st->dim;
    st->rs_time = cr_system_get_time(st->sys);
    cr_system_get_positions(st->sys, st->rs_buf);
    cr_system_get_velocities(st->sys, st->rs_buf + nbd);
    st->rs_dirty = 1;
}

static int overwrite(hid_t file, const char *name, const double *v)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    int e = d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (d >= 0 && H5Dclose(d) < 0)
        e = 1;
    return e ? -1 : 0;
}

static int write_restart(cr_store *st)
{
    if (!st->rs_dirty)
        return 0;
    size_t nbd = st->nb * (size_t)st->dim;
    if (overwrite(st->file, "restart/time", &st->rs_time) < 0 ||
        overwrite(st->file, "restart/position", st->rs_buf) < 0 ||
        overwrite(st->file, "restart/velocity", st->rs_buf + nbd) < 0)
        return -1;
    st->rs_dirty = 0;
    return 0;
}

/* /restart at creation: the state the run starts from (a start is between
 * episodes, or the run begins one at once and nothing better exists). */
static int open_restart(cr_store *st)
{
    size_t nbd = st->nb * (size_t)st->dim;
    if (!(st->rs_buf = calloc(2 * nbd + 1, sizeof(double))) ||
        !(st->radius = calloc(st->nb + 1, sizeof(double))))
        return -1;
    cr_system_get_radii(st->sys, st->radius);
    st->rs_time = cr_system_get_time(st->sys);
    cr_system_get_positions(st->sys, st->rs_buf);
    cr_system_get_velocities(st->sys, st->rs_buf + nbd);
    hid_t g = group_create(st->file, "restart");
    if (g < 0)
        return -1;
    int e = cr_h5_attr_string(g, "rule",
                              "the last trajectory time between episodes (no episode running, "
                              "no contact loaded); cradle run --continue starts there");
    e |= cr_h5_write_array(g, "time", H5T_NATIVE_DOUBLE, &st->rs_time, 0, 0, 0, "s");
    e |= cr_h5_write_doubles(g, "position", st->rs_buf, st->nb, (size_t)st->dim, "m");
    e |= cr_h5_write_doubles(g, "velocity", st->rs_buf + nbd, st->nb, (size_t)st->dim, "m/s");
    return H5Gclose(g) < 0 ? -1 : e;
}

int cr_store_note_continuation(cr_store *st, const char *source, double t0)
{
    CR_CHECK(st && source, st ? st->err : NULL, CR_ERR_INVALID);
    if (st->state != ST_OPEN)
        return st->state == ST_DEAD ? st->rc : CR_ERR_INVALID;
    if (cr_h5_attr_string(st->file, "continued_from", source) < 0 ||
        cr_h5_attr_double(st->file, "continued_at", t0) < 0)
        return store_fail(st, "writing the continuation's attributes");
    return CR_OK;
}

void cr_store_set_monitor(cr_store *st, const cr_monitor *mon)
{
    if (st)
        st->mon = mon;
}

/* ---- flushing -------------------------------------------------------------- */

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double time;
    int64_t contact;
    int kind;
    double overlap, rate, force, impulse;
} event_row;

/* The events located since the last flush, after the tail of /events. */
static int append_events(cr_store *st)
{
    size_t n = cr_system_event_count(st->sys), k0 = st->events_written;
    if (n <= k0)
        return 0;
    series *s = &st->ev;
    if (series_grow(s, s->tail + n - k0) < 0)
        return -1;
    const cr_event *ev = cr_system_events(st->sys);
    event_row *rows = (event_row *)row_slot(s, s->tail); /* one column block: rows lie together */
    memset(rows, 0, (n - k0) * sizeof(*rows));           /* zeroed padding on disk */
    for (size_t i = k0; i < n; i++)
        rows[i - k0] = (event_row){
            ev[i].t,     (int64_t)ev[i].contact, (int)ev[i].kind, ev[i].overlap, ev[i].rate,
            ev[i].force, ev[i].impulse};
    if (write_series(st, s, s->tail + n - k0) < 0)
        return -1;
    st->events_written = n;
    return 0;
}

/* Hands the buffered rows and new events to HDF5 and makes the file on disk
 * whole: H5Fflush writes HDF5's metadata, fsync the kernel's pages (so a power
 * loss, not only a kill, keeps what was flushed). */
static int store_flush_sync(cr_store *st, const char *what, int sync);

static int store_flush(cr_store *st, const char *what)
{
    return store_flush_sync(st, what, 1);
}

/* @p sync 0: no fsync here, for the commit, whose fsync before the rename
 * covers these rows too (one disk wait less at a stop request: 0.02-0.03 s
 * at 10⁵ beads). */
static int store_flush_sync(cr_store *st, const char *what, int sync)
{
    if (st->state != ST_OPEN)
        return st->rc;
    h5_os_errno = 0;
    for (int k = 0; k < S_COUNT; k++) {
        series *s = &st->s[k];
        if (s->dset <= 0)
            continue;
        if (write_series(st, s, s->tail + st->buffered) < 0)
            return store_fail(st, what);
    }
    st->buffered = 0;
    if (append_events(st) < 0 || write_restart(st) < 0 ||
        cr_h5_attr_double(st->file, "t_end", st->t_last) < 0 ||
        H5Fflush(st->file, H5F_SCOPE_GLOBAL) < 0)
        return store_fail(st, what);
    void *handle = NULL;
    if (sync && H5Fget_vfd_handle(st->file, st->fapl, &handle) >= 0 && handle &&
        fsync(*(int *)handle) < 0) {
        cr_set_msg(st->err, sizeof st->err,
                   "%s: write error while %s (fsync: %s); the output was not written and %s "
                   "is unchanged",
                   st->path, what, strerror(errno), st->path);
        return store_die(st, CR_ERR_IO);
    }
    st->last_flush = wall_seconds();
    return CR_OK;
}

/* ---- stale temporaries ----------------------------------------------------- */

/* Process @p pid is gone (kill(pid, 0) fails with ESRCH; EPERM means alive). */
static int process_gone(long pid)
{
    return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static int remember(cr_store *st, const char *path)
{
    char **r = realloc(st->recovered, (st->nrecovered + 1) * sizeof(*r));
    if (!r)
        return -1;
    st->recovered = r;
    r[st->nrecovered] = strdup(path);
    if (!r[st->nrecovered])
        return -1;
    st->nrecovered++;
    return 0;
}

/* Renames @p stale (a temporary of dead process @p pid) to BASE.partial-PID.h5,
 * or BASE.partial-PID-2.h5, … when that exists: never deleted, never
 * overwritten. */
static void keep_partial(cr_store *st, const char *stale, long pid)
{
    size_t len = strlen(st->path) + 64;
    char *dst = malloc(len);
    if (!dst)
        return;
    for (int k = 1; k < 1000; k++) {
        if (k == 1)
            snprintf(dst, len, "%s.partial-%ld.h5", st->path, pid);
        else
            snprintf(dst, len, "%s.partial-%ld-%d.h5", st->path, pid, k);
        struct stat sb;
        if (lstat(dst, &sb) == 0)
            continue;
        if (rename(stale, dst) == 0)
            remember(st, dst);
        break;
    }
    free(dst);
}

/* PID when @p name is BASE.tmp.PID (digits only), else 0. */
static long temp_pid(const char *name, const char *base)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
        return 0;
    const char *p = name + bl + 5;
    if (!*p)
        return 0;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return 0;
    return strtol(p, NULL, 10);
}

/* Temporaries of dead writers into the same target (a SIGKILL, a power loss)
 * hold what they flushed: they are renamed, so the next run neither deletes nor
 * mistakes them. Temporaries of live processes are left alone. */
static void recover_stale(cr_store *st)
{
    const char *slash = strrchr(st->path, '/');
    const char *base = slash ? slash + 1 : st->path;
    DIR *d = opendir(st->dir);
    if (!d)
        return;
    struct dirent *ent;
    size_t len = strlen(st->path) + 256;
    char *full = malloc(len);
    while (full && (ent = readdir(d)) != NULL) {
        long pid = temp_pid(ent->d_name, base);
        if (pid == 0 || pid == (long)getpid() || !process_gone(pid))
            continue;
        snprintf(full, len, "%s/%s", st->dir, ent->d_name);
        keep_partial(st, full, pid);
    }
    free(full);
    closedir(d);
}

/* ---- the file at creation: root attributes, /model, empty series ----------- */

static int write_root(cr_store *st, const cr_model *model, const char *model_path)
{
    int e = cr_h5_attr_int64(st->file, "format_version", CR_STORE_FORMAT_VERSION);
    e |= cr_h5_attr_string(st->file, "cradle_version", cr_version());
    e |= cr_h5_attr_string(st->file, "model_name", cr_model_name(model));
    e |= cr_h5_attr_string(st->file, "model_file", model_path);
    e |= cr_h5_attr_string(st->file, "status", "running");
    e |= cr_h5_attr_string(st->file, "end_reason", "");
    e |= cr_h5_attr_string(st->file, "error", "");
    e |= cr_h5_attr_double(st->file, "t_end", 0.0);
    e |= cr_h5_attr_double(st->file, "failure_time", NAN);
    e |= cr_h5_attr_int64(st->file, "failure_contact", -1);
    e |= cr_h5_attr_int64(st->file, "writer_pid", (int64_t)getpid());
    return e;
}

/* Bodies: mass (INFINITY for fixed), the fixed flag, radius, initial state. */
static int write_bodies(cr_store *st, hid_t g, const cr_model *model)
{
    size_t n = st->nb, dim = (size_t)st->dim;
    double *m = malloc((n + 1) * sizeof(double)), *r = malloc((n + 1) * sizeof(double));
    double *x = malloc((n * dim + 1) * sizeof(double)), *v = malloc((n * dim + 1) * sizeof(double));
    uint8_t *fixed = malloc(n + 1);
    int e = m && r && x && v && fixed ? 0 : -1;
    if (e == 0) {
        cr_system_get_masses(st->sys, m);
        cr_system_get_radii(st->sys, r);
        for (size_t i = 0; i < n; i++) {
            fixed[i] = (uint8_t)(cr_system_body_is_fixed(st->sys, i) != 0);
            if (cr_model_get_body(model, i, x + i * dim, v + i * dim) != CR_OK)
                e = -1;
        }
        e |= cr_h5_write_doubles(g, "mass", m, n, 0, "kg (inf: fixed body)");
        e |= cr_h5_write_array(g, "fixed", H5T_NATIVE_UINT8, fixed, 1, n, 0, "1: fixed body");
        e |= cr_h5_write_doubles(g, "radius", r, n, 0, "m");
        e |= cr_h5_write_doubles(g, "position0", x, n, dim, "m");
        e |= cr_h5_write_doubles(g, "velocity0", v, n, dim, "m/s");
    }
    free(m), free(r), free(x), free(v), free(fixed);
    return e;
}

/* Rigid bodies (models with clumps only): mass, moment of inertia, their
 * features (first, count) and the start state of the centre of mass. */
static int write_rigid_bodies(cr_store *st, hid_t g)
{
    size_t nr = cr_system_rotating_body_count(st->sys);
    if (nr == 0)
        return 0;
    double *d = malloc(8 * nr * sizeof(double));
    int64_t *f = malloc(2 * nr * sizeof(int64_t));
    int e = d && f ? 0 : -1;
    for (size_t k = 0; e == 0 && k < nr; k++) {
        cr_rotating_body b;
        e = cr_system_rotating_body(st->sys, k, &b) == CR_OK ? 0 : -1;
        d[k] = b.mass;
        d[nr + k] = b.J;
        f[2 * k] = (int64_t)b.first;
        f[2 * k + 1] = (int64_t)b.count;
    }
    if (e == 0) {
        e |= cr_h5_write_doubles(g, "body_mass", d, nr, 0, "kg (rigid bodies)");
        e |= cr_h5_write_doubles(g, "body_inertia", d + nr, nr, 0,
                                 "kg m^2 (about the centre of mass)");
        e |= cr_h5_write_array(g, "body_features", H5T_NATIVE_INT64, f, 2, nr, 2,
                               "1 (first body, count: the discs of each rigid body)");
    }
    free(d), free(f);
    return e;
}

/* Half-plane walls (W × dim normals, offsets); empty datasets when none. */
static int write_walls(cr_store *st, hid_t g)
{
    size_t nw = cr_system_wall_count(st->sys), dim = (size_t)st->dim;
    double *nrm = malloc((nw * dim + 1) * sizeof(double)), *off = malloc((nw + 1) * sizeof(double));
    int e = nrm && off ? 0 : -1;
    for (size_t w = 0; e == 0 && w < nw; w++) {
        double n3[3] = {0, 0, 0};
        e = cr_system_get_wall(st->sys, w, n3, &off[w]) == CR_OK ? 0 : -1;
        memcpy(nrm + w * dim, n3, dim * sizeof(double));
    }
    if (e == 0) {
        e |= cr_h5_write_doubles(g, "wall_normal", nrm, nw, dim, "1 (unit normal into free space)");
        e |= cr_h5_write_doubles(g, "wall_offset", off, nw, 0, "m");
    }
    free(nrm), free(off);
    return e;
}

static int write_model(cr_store *st, const cr_model *model, const char *text)
{
    hid_t g = group_create(st->file, "model");
    if (g < 0)
        return -1;
    const cr_settings *set = cr_model_settings(model);
    double grav[3] = {0, 0, 0};
    cr_model_get_gravity_vector(model, grav);
    int e = cr_h5_attr_string(g, "kind", cr_system_engine_name(st->sys));
    char law[1024];
    if (cr_system_rigid_law(st->sys, law, sizeof law) == CR_OK) {
        e |= cr_h5_attr_string(g, "rigid_law", law);
        e |= cr_h5_attr_double(g, "rigid_touching", set->rigid_touching);
    }
    e |= cr_h5_attr_int64(g, "dim", st->dim);
    e |= cr_h5_attr_int64(g, "body_count", (int64_t)st->nb);
    e |= cr_h5_attr_int64(g, "wall_count", (int64_t)cr_system_wall_count(st->sys));
    e |= cr_h5_attr_double(g, "t_end_requested", set->t_end);
    double rtol, atol; /* under integration.accuracy: the rule's */
    cr_model_tolerances(model, &rtol, &atol);
    e |= cr_h5_attr_double(g, "rtol", rtol);
    e |= cr_h5_attr_double(g, "atol", atol);
    e |= cr_h5_attr_double(g, "accuracy", set->accuracy);
    e |= cr_h5_attr_double(g, "output_interval", set->output_interval);
    e |= cr_h5_attr_int64(g, "output_every", set->output_every);
    e |= write_bodies(st, g, model);
    e |= write_walls(st, g);
    e |= write_rigid_bodies(st, g);
    e |= cr_h5_write_doubles(g, "gravity", grav, (size_t)st->dim, 0, "m/s^2");
    e |= cr_h5_write_text(g, "text", text,
                          "UTF-8 model file text"); /* a dataset: attributes are capped at 64 KiB */
    return H5Gclose(g) < 0 ? -1 : e;
}

_Static_assert(CR_EVENT_CLOSE == 0, "event kinds number the enum from 0");

/* The kinds' enum; `swing-extreme` only in runs that locate them
 * (output.swing_extremes), so the files of every other run stay as they were. */
static hid_t event_kind_type(const cr_model *model)
{
    const char *names[CR_EVENT_SWING_EXTREME + 1];
    int n = cr_model_settings(model)->swing_extremes ? CR_EVENT_SWING_EXTREME + 1
                                                     : CR_EVENT_MAX_FORCE + 1;
    for (int k = 0; k < n; k++)
        names[k] = cr_event_kind_name((cr_event_kind)k);
    return cr_h5_enum(names, n);
}

/* /events: an extendible table, appended at every flush so a kill keeps them. */
static int open_events(cr_store *st)
{
    hid_t kind = event_kind_type(st->model);
    if (kind < 0)
        return -1;
    const cr_h5_column f[] = {
        CR_H5_COL(event_row, time, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(event_row, contact, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(event_row, kind, kind, "1 (enum)"),
        CR_H5_COL(event_row, overlap, H5T_NATIVE_DOUBLE, "m"),
        CR_H5_COL(event_row, rate, H5T_NATIVE_DOUBLE, "m/s"),
        CR_H5_COL(event_row, force, H5T_NATIVE_DOUBLE, "N"),
        CR_H5_COL(event_row, impulse, H5T_NATIVE_DOUBLE, "N s"),
    };
    size_t nf = sizeof f / sizeof f[0];
    st->event_type = cr_h5_compound_type(sizeof(event_row), f, nf);
    int e =
        st->event_type < 0 || series_open(st, &st->ev, st->file, "events", st->event_type, 0, 0) < 0
            ? -1
            : cr_h5_table_units(st->ev.dset, f, nf,
                                "contact events located by root finding, in time order");
    H5Tclose(kind);
    return e;
}

static int write_indices(hid_t g, const char *name, const size_t *v, size_t n, const char *units);

/* The chosen output (docs/model-format.md, "Output"): the fields kept, the
 * bodies whose columns are written and the chain's contacts touching one of
 * them (both in increasing order). */
static int choose_output(cr_store *st)
{
    const cr_settings *set = cr_model_settings(st->model);
    st->omit = set->output_omit & CR_OUT_ALL;
    st->body_sel = malloc((st->nb + 1) * sizeof(size_t));
    st->contact_sel = malloc((st->nseries_contacts + 1) * sizeof(size_t));
    st->all = malloc((st->nb * (size_t)st->dim + 1) * sizeof(double));
    if (!st->body_sel || !st->contact_sel || !st->all)
        return -1;
    for (size_t b = 0; b < st->nb; b++)
        if (cr_settings_body_written(set, b))
            st->body_sel[st->nbsel++] = b;
    for (size_t c = 0; c < st->nseries_contacts; c++) {
        cr_contact_view v;
        if (cr_system_get_contact(st->sys, c, &v) != CR_OK)
            return -1;
        if (cr_settings_body_written(set, v.body_a) ||
            (v.body_b >= 0 && cr_settings_body_written(set, (size_t)v.body_b)))
            st->contact_sel[st->ncsel++] = c;
    }
    return 0;
}

/* What /trajectory holds: the attribute `fields` (the series written, "" for
 * none) and the indices of its columns' bodies and contacts. */
static int write_selection(cr_store *st)
{
    static const char *const names[] = {"position", "velocity", "energies",
                                        "overlap",  "force",    "impulse"};
    char fields[128] = "";
    for (int k = 0; k < 6; k++)
        if (!(st->omit & (1u << k)) && (k < 3 || st->nseries_contacts))
            snprintf(fields + strlen(fields), sizeof fields - strlen(fields), "%s%s",
                     fields[0] ? " " : "", names[k]);
    int e = cr_h5_attr_string(st->traj, "fields", fields);
    if (st->omit == CR_OUT_ALL)
        return e;
    e |= write_indices(st->traj, "bodies", st->body_sel, st->nbsel,
                       "1 (body of each dim columns of position and velocity)");
    /* empty in a pool, which has no per-contact series: one structure */
    e |= write_indices(st->traj, "contacts", st->contact_sel, st->ncsel,
                       "1 (row of /contacts of each column of overlap, force, impulse)");
    return e;
}

/* Trajectory series: per body dim columns; per contact only when the contact
 * set is fixed (chains), since a pool's contacts appear during the run. Only
 * the chosen fields, bodies and contacts (choose_output). */
static int open_trajectory(cr_store *st)
{
    st->traj = group_create(st->file, "trajectory");
    if (st->traj < 0 || choose_output(st) < 0 || write_selection(st) < 0)
        return -1;
    if (st->omit == CR_OUT_ALL)
        return 0; /* output.fields: none */
    size_t nbd = st->nbsel * (size_t)st->dim, nc = st->ncsel;
    static const char *const name[S_COUNT] = {
        "time",    "position", "velocity", "kinetic_energy", "potential_energy", "dissipated_work",
        "overlap", "force",    "impulse",  "orientation",    "angular_velocity"};
    static const char *const units[S_COUNT] = {"s",
                                               "m (columns: x0, [y0,] x1, ...)",
                                               "m/s",
                                               "J",
                                               "J",
                                               "J",
                                               "m",
                                               "N",
                                               "N s (integral of f dt since t = 0)",
                                               "rad (column k: rigid body k's angle)",
                                               "rad/s (column k: rigid body k)"};
    size_t nr = cr_system_rotating_body_count(st->sys);
    size_t cols[S_COUNT] = {0, nbd, nbd, 0, 0, 0, nc, nc, nc, nr, nr};
    size_t row_doubles = 4 + 2 * nbd + 3 * nc + 2 * nr;
    st->capacity = BUFFER_BYTES / (row_doubles * sizeof(double));
    st->capacity = st->capacity < 1 ? 1 : st->capacity;
    st->capacity = st->capacity > CR_STORE_FLUSH_ROWS ? CR_STORE_FLUSH_ROWS : st->capacity;
    /* a whole number of the widest series' chunk rows: a flush of a full
     * buffer then ends on a chunk boundary, and the next one does not write
     * that chunk again (a 1000-bead chain: 384 rows, not 419, and a quarter
     * fewer bytes written) */
    size_t crow, ccol;
    chunk_shape(nbd > nc ? nbd : nc, sizeof(double), st->capacity, &crow, &ccol);
    st->capacity = st->capacity / crow * crow;
    st->row = malloc((nbd > 3 * nc ? nbd : 3 * nc) * sizeof(double) + 1);
    int e = st->row ? 0 : -1;
    static const unsigned field[S_COUNT] = {0,
                                            CR_OUT_POSITION,
                                            CR_OUT_VELOCITY,
                                            CR_OUT_ENERGIES,
                                            CR_OUT_ENERGIES,
                                            CR_OUT_ENERGIES,
                                            CR_OUT_OVERLAP,
                                            CR_OUT_FORCE,
                                            CR_OUT_IMPULSE,
                                            CR_OUT_POSITION,
                                            CR_OUT_VELOCITY};
    for (int k = 0; e == 0 && k < S_COUNT; k++) {
        if ((k >= S_OVL && k <= S_IMPULSE && nc == 0) || (k >= S_THETA && nr == 0) ||
            (st->omit & field[k]))
            continue;
        series *s = &st->s[k];
        e = series_open(st, s, st->traj, name[k], H5T_NATIVE_DOUBLE, cols[k], st->capacity) < 0
                ? -1
                : cr_h5_attr_string(s->dset, "units", units[k]);
    }
    return e;
}

/* ---- create / destroy ------------------------------------------------------ */

static cr_store *store_alloc(const char *path, cr_system *sys, const cr_model *model)
{
    cr_store *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->sys = sys;
    st->model = model;
    st->dim = cr_system_dimension(sys);
    st->nb = cr_system_body_count(sys);
    st->nseries_contacts = cr_system_contacts_fixed(sys) ? cr_system_contact_count(sys) : 0;
    st->flush_rows = CR_STORE_FLUSH_ROWS;
    st->flush_seconds = CR_STORE_FLUSH_SECONDS;
    st->deflate = deflate_level();
    st->path = strdup(path);
    size_t tl = strlen(path) + 32;
    st->tmp = malloc(tl);
    st->dir = strdup(path);
    if (!st->path || !st->tmp || !st->dir) {
        cr_store_destroy(st);
        return NULL;
    }
    snprintf(st->tmp, tl, "%s.tmp.%ld", path, (long)getpid());
    char *slash = strrchr(st->dir, '/');
    if (!slash)
        strcpy(st->dir, ".");
    else
        slash[slash == st->dir ? 1 : 0] = '\0';
    return st;
}

/* The layout written at creation, flushed so the file is readable from the start. */
static int store_layout(cr_store *st, const cr_model *model, const char *model_path,
                        const char *model_text)
{
    if (write_root(st, model, model_path) < 0)
        return store_fail(st, "writing the root attributes");
    if (write_model(st, model, model_text) < 0)
        return store_fail(st, "writing /model");
    if (open_trajectory(st) < 0)
        return store_fail(st, "creating /trajectory");
    if (open_events(st) < 0)
        return store_fail(st, "creating /events");
    if (open_restart(st) < 0)
        return store_fail(st, "creating /restart");
    if (deflate_open(st) < 0) {
        cr_set_msg(st->err, sizeof st->err, "%s: out of memory for the deflate stream", st->path);
        return store_die(st, CR_ERR_NOMEM);
    }
    int rc = store_flush(st, "creating the file layout");
    if (rc == CR_OK)
        (void)sync_path(st->dir, 1); /* best effort: the temporary's name survives a power loss */
    return rc;
}

/* A disk too full for the file's first flush is refused before HDF5 touches
 * it: if HDF5 1.10 cannot write the metadata of a new file, it can neither
 * close it nor shut down at exit (it loops in H5_term_library). */
static int room_for(const cr_store *st, const char *text, char *msg, size_t msglen)
{
    struct statvfs vfs;
    if (statvfs(st->dir, &vfs) != 0)
        return 1; /* H5Fcreate will say what is wrong with the folder */
    unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
    unsigned long long need = CREATE_MARGIN + (text ? strlen(text) : 0);
    if (avail >= need)
        return 1;
    cr_set_msg(msg, msglen, "%s: disk full: %llu KiB free in %s, a new output needs %llu KiB",
               st->path, avail / 1024, st->dir, need / 1024);
    return 0;
}

static int on_output(const cr_system *sys, void *user)
{
    (void)sys;
    return cr_store_append_frame(user);
}

/* Events reach the file at the flushes of rows, and also when flush_seconds
 * have passed since the last flush: a run whose rows are far apart, or that
 * writes none (output.fields: none), keeps its events on a kill as well. */
static int on_events(const cr_system *sys, size_t first, void *user)
{
    cr_store *st = user;
    (void)sys, (void)first;
    if (st->state == ST_OPEN && wall_seconds() - st->last_flush >= st->flush_seconds)
        return store_flush(st, "appending events");
    return CR_OK;
}

static void store_note_recovered(const cr_store *st, char *msg, size_t msglen)
{
    if (st->nrecovered == 0)
        cr_set_msg(msg, msglen, "%s", "");
    else
        cr_set_msg(
            msg, msglen, "kept %s: the temporary output of an earlier run whose process is gone%s",
            st->recovered[0], st->nrecovered > 1 ? " (and more: cr_store_recovered_path)" : "");
}

cr_store *cr_store_create(const char *path, cr_system *sys, const cr_model *model,
                          const char *model_path, const char *model_text, char *msg, size_t msglen)
{
    if (!path || !*path || !sys || !model) {
        cr_set_msg(msg, msglen, "cr_store_create: no path, system or model");
        return NULL;
    }
    /* The library never prints: HDF5's automatic error stack dump is replaced
     * by a silent handler that keeps the OS reason of failed writes. */
    H5Eset_auto2(H5E_DEFAULT, note_errno, NULL);
    h5_os_errno = 0;
    cr_store *st = store_alloc(path, sys, model);
    if (!st) {
        cr_set_msg(msg, msglen, "%s: out of memory", path);
        return NULL;
    }
    recover_stale(st);
    if (!room_for(st, model_text, msg, msglen)) {
        st->state = ST_DEAD;
        cr_store_destroy(st);
        return NULL;
    }
    st->fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (st->fapl < 0 || H5Pset_fclose_degree(st->fapl, H5F_CLOSE_STRONG) < 0) {
        cr_set_msg(msg, msglen, "%s: HDF5 error while preparing the file", path);
        cr_store_destroy(st);
        return NULL;
    }
    st->file = H5Fcreate(st->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, st->fapl);
    if (st->file < 0) {
        int err = hdf5_errno();
        unlink(st->tmp); /* HDF5 may have created it before failing */
        cr_set_msg(msg, msglen, "%s: %s the output file %s (%s)", path,
                   err == ENOSPC || err == EDQUOT ? "disk full: cannot create" : "cannot create",
                   st->tmp, err ? strerror(err) : "is the folder writable?");
        st->state = ST_DEAD;
        cr_store_destroy(st);
        return NULL;
    }
    int rc = store_layout(st, model, model_path, model_text);
    if (rc == CR_OK && (cr_system_add_output_listener(sys, on_output, st) != CR_OK ||
                        cr_system_add_event_listener(sys, on_events, st) != CR_OK)) {
        cr_set_msg(st->err, sizeof st->err, "%s: out of memory attaching to the system", path);
        rc = store_die(st, CR_ERR_NOMEM);
    }
    if (rc != CR_OK) {
        cr_set_msg(msg, msglen, "%s", st->err);
        cr_store_destroy(st);
        return NULL;
    }
    st->last_flush = wall_seconds();
    store_note_recovered(st, msg, msglen);
    return st;
}

void cr_store_destroy(cr_store *st)
{
    if (!st)
        return;
    if (st->sys)
        cr_system_remove_listeners(st->sys, st);
    if (st->state == ST_OPEN) { /* never committed: nothing of it is kept */
        close_file(st, 1);
        if (st->tmp)
            unlink(st->tmp);
    }
    if (st->fapl > 0)
        H5Pclose(st->fapl);
    for (int k = 0; k < S_COUNT; k++)
        series_free(&st->s[k]);
    series_free(&st->ev);
    if (st->z) {
        deflateEnd(st->z);
        free(st->z);
    }
    free(st->shuf), free(st->zout), free(st->row);
    free(st->body_sel), free(st->contact_sel), free(st->all);
    free(st->rs_buf), free(st->radius);
    for (size_t i = 0; i < st->nrecovered; i++)
        free(st->recovered[i]);
    free(st->recovered);
    free(st->path);
    free(st->tmp);
    free(st->dir);
    free(st);
}

int cr_store_set_flush_interval(cr_store *st, size_t rows, double seconds)
{
    CR_CHECK(st && rows >= 1 && seconds >= 0.0 && !isnan(seconds), st ? st->err : NULL,
             CR_ERR_INVALID);
    st->flush_rows = rows;
    st->flush_seconds = seconds;
    return CR_OK;
}

const char *cr_store_last_error(const cr_store *st)
{
    return st ? st->err : "no store";
}

const char *cr_store_path(const cr_store *st)
{
    return st ? st->path : NULL;
}

size_t cr_store_recovered_count(const cr_store *st)
{
    return st ? st->nrecovered : 0;
}

const char *cr_store_recovered_path(const cr_store *st, size_t k)
{
    return st && k < st->nrecovered ? st->recovered[k] : NULL;
}

/* ---- appending ------------------------------------------------------------- */

/* Where the next row of @p s is filled: its place in the buffer, or @p
 * scratch when the series has several column blocks (then row_end scatters
 * it). */
static double *row_begin(const cr_store *st, const series *s, double *scratch)
{
    double *p = row_slot(s, s->tail + st->buffered);
    return p ? p : scratch;
}

static void row_end(const cr_store *st, series *s, const double *filled)
{
    if (s->nblk > 1)
        put_row(s, s->tail + st->buffered, filled);
}

/* The chosen contacts' overlap, force and impulse, into the series kept
 * (an omitted one fills scratch that is not written). */
static void buffer_contacts(cr_store *st)
{
    size_t nc = st->ncsel;
    series *so = &st->s[S_OVL], *sf = &st->s[S_FORCE], *sp = &st->s[S_IMPULSE];
    double *ov = so->dset > 0 ? row_begin(st, so, st->row) : st->row;
    double *f = sf->dset > 0 ? row_begin(st, sf, st->row + nc) : st->row + nc;
    double *P = sp->dset > 0 ? row_begin(st, sp, st->row + 2 * nc) : st->row + 2 * nc;
    for (size_t j = 0; j < nc; j++) {
        cr_contact_view v;
        if (cr_system_get_contact(st->sys, st->contact_sel[j], &v) != CR_OK)
            v.overlap = v.force = v.impulse = NAN;
        ov[j] = v.overlap;
        f[j] = v.force;
        P[j] = v.impulse;
    }
    if (so->dset > 0)
        row_end(st, so, ov);
    if (sf->dset > 0)
        row_end(st, sf, f);
    if (sp->dset > 0)
        row_end(st, sp, P);
}

/* Positions or velocities (@p get) of the chosen bodies into series @p s. */
static void buffer_bodies(cr_store *st, series *s, void (*get)(const cr_system *, double *))
{
    if (s->dset <= 0)
        return;
    double *x = row_begin(st, s, st->row);
    if (st->nbsel == st->nb) {
        get(st->sys, x);
    } else {
        size_t dim = (size_t)st->dim;
        get(st->sys, st->all);
        for (size_t j = 0; j < st->nbsel; j++)
            memcpy(x + j * dim, st->all + st->body_sel[j] * dim, dim * sizeof(double));
    }
    row_end(st, s, x);
}

/* The rigid bodies' angles and angular velocities (models with rotation). */
static void buffer_rotation(cr_store *st)
{
    series *sa = &st->s[S_THETA], *sw = &st->s[S_OMEGA];
    size_t nr = cr_system_rotating_body_count(st->sys);
    double *a = sa->dset > 0 ? row_begin(st, sa, st->row) : NULL;
    double *w = sw->dset > 0 ? row_begin(st, sw, st->row + nr) : NULL;
    for (size_t k = 0; (a || w) && k < nr; k++) {
        cr_rotating_body b;
        cr_system_rotating_body(st->sys, k, &b);
        if (a)
            a[k] = b.theta;
        if (w)
            w[k] = b.omega;
    }
    if (a)
        row_end(st, sa, a);
    if (w)
        row_end(st, sw, w);
}

int cr_store_append_frame(cr_store *st)
{
    CR_CHECK(st, NULL, CR_ERR_INVALID);
    if (st->state != ST_OPEN)
        return st->state == ST_DEAD ? st->rc : CR_ERR_INVALID;
    series *s = st->s;
    st->t_last = cr_system_get_time(st->sys);
    double now = wall_seconds();
    int flush = st->buffered + 1 >= st->capacity || st->buffered + 1 >= st->flush_rows ||
                now - st->last_flush >= st->flush_seconds;
    /* the end of the run emits a row too: the commit's flush takes it as well */
    take_restart(st, flush || st->omit == CR_OUT_ALL, now);
    if (st->omit == CR_OUT_ALL)
        return CR_OK; /* output.fields: none */
    *row_begin(st, &s[S_TIME], NULL) = st->t_last;
    buffer_bodies(st, &s[S_POS], cr_system_get_positions);
    buffer_bodies(st, &s[S_VEL], cr_system_get_velocities);
    buffer_rotation(st);
    if (s[S_KIN].dset > 0) {
        *row_begin(st, &s[S_KIN], NULL) = cr_system_kinetic_energy(st->sys);
        *row_begin(st, &s[S_POT], NULL) = cr_system_potential_energy(st->sys);
        *row_begin(st, &s[S_DISS], NULL) = cr_system_dissipated_work(st->sys);
    }
    if (st->ncsel && (st->omit & CR_OUT_PER_CONTACT) != CR_OUT_PER_CONTACT)
        buffer_contacts(st);
    st->buffered++;
    /* the bound on what a kill loses: flush_rows rows (fewer when rows are
     * large: the buffer holds BUFFER_BYTES of new rows) or flush_seconds of
     * wall time */
    if (flush)
        return store_flush(st, "appending trajectory rows");
    return CR_OK;
}

/* ---- the end of the run ---------------------------------------------------- */

/* /final of a model with rigid bodies: per body its centre of mass, velocity,
 * angle and angular velocity (nothing for other models). */
static int write_final_rotation(cr_store *st, hid_t g)
{
    size_t nr = cr_system_rotating_body_count(st->sys);
    if (nr == 0)
        return 0;
    double *buf = malloc(6 * nr * sizeof(double));
    if (!buf)
        return -1;
    double *x = buf, *v = buf + 2 * nr, *th = buf + 4 * nr, *om = buf + 5 * nr;
    for (size_t k = 0; k < nr; k++) {
        cr_rotating_body b;
        cr_system_rotating_body(st->sys, k, &b);
        memcpy(x + 2 * k, b.x, 2 * sizeof(double));
        memcpy(v + 2 * k, b.v, 2 * sizeof(double));
        th[k] = b.theta;
        om[k] = b.omega;
    }
    int e = cr_h5_write_doubles(g, "body_position", x, nr, 2, "m (rigid bodies' centres of mass)");
    e |= cr_h5_write_doubles(g, "body_velocity", v, nr, 2, "m/s");
    e |= cr_h5_write_doubles(g, "orientation", th, nr, 0, "rad");
    e |= cr_h5_write_doubles(g, "angular_velocity", om, nr, 0, "rad/s");
    free(buf);
    return e;
}

static int write_final(cr_store *st)
{
    size_t nbd = st->nb * (size_t)st->dim;
    double *v = malloc((nbd + 1) * sizeof(double));
    hid_t g = v ? group_create(st->file, "final") : -1;
    int e = g < 0 ? -1 : 0;
    if (e == 0) {
        double t = cr_system_get_time(st->sys);
        e |= cr_h5_write_array(g, "time", H5T_NATIVE_DOUBLE, &t, 0, 0, 0, "s");
        cr_system_get_positions(st->sys, v);
        e |= cr_h5_write_doubles(g, "position", v, st->nb, (size_t)st->dim, "m");
        cr_system_get_velocities(st->sys, v);
        e |= cr_h5_write_doubles(g, "velocity", v, st->nb, (size_t)st->dim, "m/s");
        e |= write_final_rotation(st, g);
        if (H5Gclose(g) < 0)
            e = -1;
    }
    free(v);
    return e;
}

typedef struct {
    int64_t body_a, body_b;
    int8_t unilateral, linked, settled;
    int state;
    double overlap, rate, force, impulse;
    double normal[3], vector_impulse[3];
    double K, n, C, m;
    int release;
} contact_row;

static void contact_row_fill(const cr_store *st, size_t k, contact_row *r)
{
    cr_contact_view v;
    memset(r, 0, sizeof(*r));
    if (cr_system_get_contact(st->sys, k, &v) != CR_OK)
        memset(&v, 0, sizeof v);
    *r = (contact_row){(int64_t)v.body_a,
                       (int64_t)v.body_b,
                       (int8_t)v.unilateral,
                       (int8_t)v.linked,
                       (int8_t)v.settled,
                       (int)v.state,
                       v.overlap,
                       v.rate,
                       v.force,
                       v.impulse,
                       {0},
                       {0},
                       NAN,
                       NAN,
                       NAN,
                       NAN,
                       -1};
    memcpy(r->normal, v.normal, sizeof v.normal);
    memcpy(r->vector_impulse, v.vector_impulse, sizeof v.vector_impulse);
    cr_contact_params law;
    if (cr_model_pair_law(st->model, v.body_a, v.body_b, &law) == CR_OK) {
        r->K = law.K, r->n = law.n, r->C = law.C, r->m = law.m;
        r->release = law.release == CR_RELEASE_FORCE ? 1 : 0;
    }
}

static int write_contacts(cr_store *st)
{
    size_t n = cr_system_contact_count(st->sys);
    hsize_t dim = (hsize_t)st->dim;
    static const char *const states[] = {"open", "touching", "loaded"};
    static const char *const release[] = {"gap", "force"};
    hid_t vec = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &dim);
    hid_t ste = cr_h5_enum(states, 3), rel = cr_h5_enum(release, 2);
    int none = -1; /* the model gave no law for the pair */
    if (rel >= 0 && H5Tenum_insert(rel, "unknown", &none) < 0) {
        H5Tclose(rel);
        rel = -1;
    }
    contact_row *rows = calloc(n ? n : 1, sizeof(*rows));
    int e = vec < 0 || ste < 0 || rel < 0 || !rows ? -1 : 0;
    for (size_t k = 0; e == 0 && k < n; k++)
        contact_row_fill(st, k, &rows[k]);
    const cr_h5_column f[] = {
        CR_H5_COL(contact_row, body_a, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(contact_row, body_b, H5T_NATIVE_INT64, "1 (< 0: wall -1 - body_b)"),
        CR_H5_COL(contact_row, unilateral, H5T_NATIVE_INT8, "1 (1: contact law acts)"),
        CR_H5_COL(contact_row, linked, H5T_NATIVE_INT8, "1 (1: bilateral link)"),
        CR_H5_COL(contact_row, settled, H5T_NATIVE_INT8, "1 (1: end rule holds)"),
        CR_H5_COL(contact_row, state, ste, "1 (enum)"),
        CR_H5_COL(contact_row, overlap, H5T_NATIVE_DOUBLE, "m"),
        CR_H5_COL(contact_row, rate, H5T_NATIVE_DOUBLE, "m/s"),
        CR_H5_COL(contact_row, force, H5T_NATIVE_DOUBLE, "N"),
        CR_H5_COL(contact_row, impulse, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(contact_row, normal, vec, "1"),
        CR_H5_COL(contact_row, vector_impulse, vec, "N s"),
        CR_H5_COL(contact_row, K, H5T_NATIVE_DOUBLE, "N/m^n"),
        CR_H5_COL(contact_row, n, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(contact_row, C, H5T_NATIVE_DOUBLE, "N s/m^(m+1)"),
        CR_H5_COL(contact_row, m, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(contact_row, release, rel, "1 (enum)"),
    };
    if (e == 0)
        e = cr_h5_write_table(st->file, "contacts", sizeof(contact_row), f, sizeof f / sizeof f[0],
                              rows, n,
                              "every contact of the run, state at the end; impulses since t = 0");
    free(rows);
    if (vec >= 0)
        H5Tclose(vec);
    if (ste >= 0)
        H5Tclose(ste);
    if (rel >= 0)
        H5Tclose(rel);
    return e;
}

/* The contact a failure message names ("contact N"), or −1. */
static int64_t named_contact(const char *error)
{
    const char *p = error ? strstr(error, "contact ") : NULL;
    if (!p || !isdigit((unsigned char)p[8]))
        return -1;
    return strtoll(p + 8, NULL, 10);
}

/* A rigid run that clamps κ (cr_system_rigid_clamp_kappa): how many impacts
 * were raised and how many fell back (the JSON's two counts, same names), and
 * each one's t, pairs, κ asked and κ used (docs/hdf5-layout.md). */
static int write_kappa_clamps(cr_store *st)
{
    size_t n = 0;
    int on = 0;
    const cr_kappa_clamp *c = cr_system_rigid_kappa_clamps(st->sys, &n, &on);
    if (!on)
        return 0;
    size_t fallbacks = cr_system_rigid_kappa_fallbacks(st->sys);
    int e = cr_h5_attr_int64(st->file, "kappa_clamped", (int64_t)(n - fallbacks));
    e |= cr_h5_attr_int64(st->file, "kappa_fallbacks", (int64_t)fallbacks);
    double *rows = n ? malloc(6 * n * sizeof(double)) : NULL;
    if (n && !rows)
        return -1;
    for (size_t k = 0; k < n; k++) {
        double row[6] = {c[k].t,     (double)c[k].first_pair, (double)c[k].pair_count,
                         c[k].kappa, c[k].kappa_used,         (double)c[k].fallback};
        memcpy(rows + 6 * k, row, sizeof row);
    }
    if (n && H5Lexists(st->file, "kappa_clamps", H5P_DEFAULT) <= 0)
        e |= cr_h5_write_doubles(st->file, "kappa_clamps", rows, n, 6, "1");
    free(rows);
    return e;
}

static int write_summary(cr_store *st, const char *status, const char *error)
{
    hid_t f = st->file;
    cr_run_stats s = cr_system_get_stats(st->sys);
    double L = NAN, V = NAN, T = NAN, t = cr_system_get_time(st->sys);
    cr_system_get_scales(st->sys, &L, &V, &T);
    int failed = strcmp(status, "failed") == 0;
    int e = cr_h5_attr_string(f, "end_reason", cr_system_end_reason(st->sys));
    const char *method = cr_method_name(cr_system_method(st->sys));
    e |= cr_h5_attr_string(f, "integration_method", method ? method : "");
    e |= cr_h5_attr_string(f, "error", error ? error : "");
    e |= cr_h5_attr_double(f, "t_end", t);
    e |= cr_h5_attr_double(f, "failure_time", failed ? t : NAN);
    e |= cr_h5_attr_int64(f, "failure_contact", failed ? named_contact(error) : -1);
    e |= cr_h5_attr_double(f, "length_scale", L);
    e |= cr_h5_attr_double(f, "speed_scale", V);
    e |= cr_h5_attr_double(f, "time_scale", T);
    const struct {
        const char *name;
        long v;
    } c[] = {{"steps", s.steps},
             {"rhs_evals", s.rhs_evals},
             {"jac_evals", s.jac_evals},
             {"root_evals", s.root_evals},
             {"restarts", s.restarts},
             {"events", s.events},
             {"outputs", s.outputs},
             {"nonlin_iters", s.nonlin_iters},
             {"rebuilds", s.rebuilds},
             {"output_widenings", s.output_widenings},
             {"energy_projections", s.projections},
             {"energy_projections_refused", s.projections_refused}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        e |= cr_h5_attr_int64(f, c[k].name, c[k].v);
    e |= cr_h5_attr_double(f, "energy_projected", s.projected_energy);
    e |= write_kappa_clamps(st);
    char law[1024];
    if (cr_system_rigid_law(st->sys, law, sizeof law) == CR_OK)
        e |= cr_h5_attr_string(f, "rigid_law_after_run", law);
    /* last: a file whose status is not "running" has everything above */
    e |= cr_h5_attr_string(f, "status", status);
    return e;
}

/* Closed cleanly, synced, then renamed: only then is the target replaced. */
static int store_close_and_rename(cr_store *st)
{
    if (close_file(st, 0) < 0)
        return store_fail(st, "closing the file");
    if (sync_path(st->tmp, 0) < 0) {
        cr_set_msg(st->err, sizeof st->err,
                   "%s: write error while syncing the file (%s); the output was not written "
                   "and %s is unchanged",
                   st->path, strerror(errno), st->path);
        return store_die(st, CR_ERR_IO);
    }
    if (rename(st->tmp, st->path) != 0) {
        int err = errno;
        st->state = ST_DEAD;
        st->rc = CR_ERR_IO;
        cr_set_msg(st->err, sizeof st->err,
                   "%s: cannot move the finished file into place (%s); it is kept as %s", st->path,
                   strerror(err), st->tmp);
        return st->rc;
    }
    sync_path(st->dir, 1);
    st->state = ST_COMMITTED;
    return CR_OK;
}

static int write_collisions(cr_store *st, const cr_monitor *mon);

int cr_store_commit(cr_store *st, const char *status, const char *error)
{
    CR_CHECK(st && status, st ? st->err : NULL, CR_ERR_INVALID);
    CR_CHECK(strcmp(status, "complete") == 0 || strcmp(status, "interrupted") == 0 ||
                 strcmp(status, "failed") == 0 || strcmp(status, "mismatch") == 0,
             st->err, CR_ERR_INVALID);
    if (st->state == ST_DEAD)
        return st->rc;
    CR_CHECK(st->state == ST_OPEN, st->err, CR_ERR_INVALID);
    /* the state at the end, when it is the last row's and that row came
     * between episodes (the monitor may be finished by now: its episodes
     * closed at the stop) */
    if (!st->rs_open && cr_system_get_time(st->sys) == st->t_last)
        take_restart(st, 1, wall_seconds());
    int rc = store_flush_sync(st, "writing the last trajectory rows", 0);
    if (rc != CR_OK)
        return rc;
    if (write_final(st) < 0)
        return store_fail(st, "writing /final");
    if (write_contacts(st) < 0)
        return store_fail(st, "writing /contacts");
    if (!st->collisions_written && write_collisions(st, NULL) < 0)
        return store_fail(st, "writing /collisions");
    if (write_summary(st, status, error) < 0)
        return store_fail(st, "writing the run summary");
    return store_close_and_rename(st);
}

/* ---- episodes -------------------------------------------------------------- */

typedef struct {
    int64_t index;
    double t_start, t_end;
    int64_t body_count, contact_count, reference, reference_record;
    double T_minus, T_plus, kappa, field_work, dissipated;
    int8_t complete;
    int64_t event_count;
} episode_row;

static int write_episode_table(cr_store *st, const cr_monitor *mon, size_t n)
{
    episode_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    int e = 0;
    for (size_t k = 0; k < n && e == 0; k++) {
        cr_episode_info in;
        e = cr_monitor_get_episode(mon, k, &in) == CR_OK ? 0 : -1;
        rows[k] = (episode_row){(int64_t)k,
                                in.t_start,
                                in.t_end,
                                (int64_t)in.body_count,
                                (int64_t)in.contact_count,
                                (int64_t)in.reference,
                                (int64_t)in.reference_record,
                                in.T_minus,
                                in.T_plus,
                                in.kappa,
                                in.field_work,
                                in.dissipated,
                                (int8_t)in.complete,
                                (int64_t)in.event_count};
    }
    const cr_h5_column f[] = {
        CR_H5_COL(episode_row, index, H5T_NATIVE_INT64, "1 (group /episode/NNNN)"),
        CR_H5_COL(episode_row, t_start, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(episode_row, t_end, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(episode_row, body_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(episode_row, contact_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(episode_row, reference, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(episode_row, reference_record, H5T_NATIVE_INT64,
                  "1 (row of the episode's contacts)"),
        CR_H5_COL(episode_row, T_minus, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(episode_row, T_plus, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(episode_row, kappa, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(episode_row, field_work, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(episode_row, dissipated, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(episode_row, complete, H5T_NATIVE_INT8, "1 (0: run ended first)"),
        CR_H5_COL(episode_row, event_count, H5T_NATIVE_INT64, "1"),
    };
    if (e == 0)
        e = cr_h5_write_table(st->file, "episodes", sizeof(episode_row), f, sizeof f / sizeof f[0],
                              rows, n, "impact episodes found by the monitor");
    free(rows);
    return e;
}

void cr_store_record_columns(cr_h5_column c[CR_STORE_RECORD_COLUMNS])
{
    const cr_h5_column f[CR_STORE_RECORD_COLUMNS] = {
        CR_H5_COL(cr_store_record_row, contact, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(cr_store_record_row, body_a, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(cr_store_record_row, body_b, H5T_NATIVE_INT64, "1 (< 0: wall -1 - body_b)"),
        CR_H5_COL(cr_store_record_row, impulse, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(cr_store_record_row, compression, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(cr_store_record_row, expansion, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(cr_store_record_row, gamma_minus, H5T_NATIVE_DOUBLE, "m/s"),
        CR_H5_COL(cr_store_record_row, gamma_plus, H5T_NATIVE_DOUBLE, "m/s"),
        CR_H5_COL(cr_store_record_row, newton, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(cr_store_record_row, poisson, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(cr_store_record_row, alpha, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(cr_store_record_row, peak_overlap, H5T_NATIVE_DOUBLE, "m"),
        CR_H5_COL(cr_store_record_row, peak_force, H5T_NATIVE_DOUBLE, "N"),
        CR_H5_COL(cr_store_record_row, closings, H5T_NATIVE_INT32, "1"),
        CR_H5_COL(cr_store_record_row, openings, H5T_NATIVE_INT32, "1"),
        CR_H5_COL(cr_store_record_row, flags, H5T_NATIVE_INT32,
                  "1 (1: at rest, eN NaN; 2: no compression, eP NaN)"),
        CR_H5_COL(cr_store_record_row, peak_force_time, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(cr_store_record_row, duration, H5T_NATIVE_DOUBLE, "s (loaded time)"),
    };
    memcpy(c, f, sizeof f);
}

/* ---- /episode/NNNN: many small objects, made alike ---------------------------
 *
 * A run writes a group and ~15 small datasets per episode, each with its
 * units attribute (a rigid pendulum cradle's 56 episodes: ~900 objects, 40 %
 * of the run's CPU). What every one of them needs is made once per
 * cr_store_write_episodes: the units' string type and space, and the
 * records' compound type; attributes are created without asking first
 * whether they exist (HDF5 walks the header for that). Creation property
 * lists stay HDF5's defaults: measured, a dataset created with any list of
 * its own (compact storage, no modification times) cost ~20,000
 * instructions more, HDF5 copying the list and checking the filters, than
 * compact storage saved. The bytes of the layout do not change. */
typedef struct {
    hid_t utf8, scalar;
    hid_t records;
} ep_ctx;

static void ep_close(ep_ctx *x)
{
    hid_t *ids[] = {&x->utf8, &x->scalar, &x->records};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        if (*ids[k] >= 0)
            H5Idec_ref(*ids[k]);
        *ids[k] = -1;
    }
}

static int ep_open(ep_ctx *x)
{
    cr_h5_column f[CR_STORE_RECORD_COLUMNS];
    cr_store_record_columns(f);
    x->utf8 = cr_h5_utf8_type();
    x->scalar = H5Screate(H5S_SCALAR);
    x->records = cr_h5_compound_type(sizeof(cr_store_record_row), f, CR_STORE_RECORD_COLUMNS);
    int e = x->utf8 < 0 || x->scalar < 0 || x->records < 0 ? -1 : 0;
    if (e)
        ep_close(x);
    return e;
}

static int ep_units(const ep_ctx *x, hid_t d, const char *units)
{
    hid_t a = H5Acreate2(d, "units", x->utf8, x->scalar, H5P_DEFAULT, H5P_DEFAULT);
    int e = a < 0 || H5Awrite(a, x->utf8, &units) < 0 ? -1 : 0;
    return a >= 0 && H5Aclose(a) < 0 ? -1 : e;
}

/* A dataset (rank 1 or 2), written and left open for its attributes; -1
 * when anything failed (nothing left open). */
static hid_t ep_dataset(hid_t loc, const char *name, hid_t type, const void *v, int rank,
                        size_t rows, size_t cols)
{
    hsize_t dims[2] = {rows, cols};
    size_t count = rows * (rank == 2 ? cols : 1);
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t d =
        space < 0 ? -1 : H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (space >= 0)
        H5Sclose(space);
    if (d >= 0 && count && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        H5Dclose(d);
        return -1;
    }
    return d;
}

/* cr_h5_write_array's dataset and units attribute, with the context's
 * units type and space. */
static int ep_array(const ep_ctx *x, hid_t loc, const char *name, hid_t type, const void *v,
                    int rank, size_t rows, size_t cols, const char *units)
{
    hid_t d = ep_dataset(loc, name, type, v, rank, rows, cols);
    int e = d < 0 || (units && ep_units(x, d, units) < 0) ? -1 : 0;
    return d >= 0 && H5Dclose(d) < 0 ? -1 : e;
}

static int ep_doubles(const ep_ctx *x, hid_t loc, const char *name, const double *v, size_t rows,
                      size_t cols, const char *units)
{
    return ep_array(x, loc, name, H5T_NATIVE_DOUBLE, v, cols ? 2 : 1, rows, cols, units);
}

static int ep_indices(const ep_ctx *x, hid_t g, const char *name, const size_t *v, size_t n,
                      const char *units)
{
    int64_t *w = malloc((n ? n : 1) * sizeof(*w));
    if (!w)
        return -1;
    for (size_t i = 0; i < n; i++)
        w[i] = (int64_t)v[i];
    int e = ep_array(x, g, name, H5T_NATIVE_INT64, w, 1, n, 0, units);
    free(w);
    return e;
}

static int write_records(const ep_ctx *x, hid_t g, const cr_contact_record *rec, size_t n)
{
    cr_store_record_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t i = 0; i < n; i++)
        rows[i] = (cr_store_record_row){(int64_t)rec[i].contact,
                                        (int64_t)rec[i].body_a,
                                        rec[i].body_b,
                                        rec[i].impulse,
                                        rec[i].compression,
                                        rec[i].expansion,
                                        rec[i].gamma_minus,
                                        rec[i].gamma_plus,
                                        rec[i].newton,
                                        rec[i].poisson,
                                        rec[i].alpha,
                                        rec[i].peak_overlap,
                                        rec[i].peak_force,
                                        rec[i].closings,
                                        rec[i].openings,
                                        rec[i].flags,
                                        rec[i].peak_force_time,
                                        rec[i].duration};
    cr_h5_column f[CR_STORE_RECORD_COLUMNS];
    cr_store_record_columns(f);
    hid_t d = ep_dataset(g, "contacts", x->records, rows, 1, n, 0);
    int e = d < 0 || cr_h5_table_units(d, f, CR_STORE_RECORD_COLUMNS,
                                       "per-contact records of the episode") < 0
                ? -1
                : 0;
    if (d >= 0 && H5Dclose(d) < 0)
        e = -1;
    free(rows);
    return e;
}

static int write_indices(hid_t g, const char *name, const size_t *v, size_t n, const char *units)
{
    int64_t *w = malloc((n ? n : 1) * sizeof(*w));
    if (!w)
        return -1;
    for (size_t i = 0; i < n; i++)
        w[i] = (int64_t)v[i];
    int e = cr_h5_write_array(g, name, H5T_NATIVE_INT64, w, 1, n, 0, units);
    free(w);
    return e;
}

/* Where each body's dofs are: @p moving[i] the moving bodies before
 * bodies[i]; @p dense, when the body numbers span at most a few times their
 * count (a chain's episode: consecutive), the block of body bodies[0] + j at
 * j (−1: fixed or not in the episode). */
typedef struct {
    const size_t *bodies;
    const double *mass;
    const long *moving, *dense;
    size_t nb, span;
} dof_map;

/* Position of body @p b among the group's moving bodies (dim dofs each), or
 * −1: a lookup, else a binary search in the increasing bodies (a linear
 * search per record was 10¹⁰ steps for the one episode of a resting
 * 10⁵-bead column). */
static long dof_block(const dof_map *m, long b)
{
    if (b < 0 || m->nb == 0)
        return -1;
    if (m->dense)
        return (size_t)b >= m->bodies[0] && (size_t)b - m->bodies[0] < m->span
                   ? m->dense[(size_t)b - m->bodies[0]]
                   : -1;
    const size_t *bodies = m->bodies;
    const double *mass = m->mass;
    const long *moving = m->moving;
    size_t nb = m->nb, lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bodies[mid] < (size_t)b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nb && bodies[lo] == (size_t)b && isfinite(mass[lo]) ? moving[lo] : -1;
}

/* The impact configuration in the structure it has: M diagonal (dim entries per
 * moving body), W sparse (−n on body_a, +n on body_b per record; fixed bodies
 * and walls have no dofs). Nothing here grows as records². */
static int write_configuration(const ep_ctx *x, hid_t g, int dim, const size_t *bodies,
                               const double *mass, size_t nb, const cr_contact_record *rec,
                               const double *nrm, size_t nr)
{
    size_t D = 0, nz = 0, d = (size_t)dim;
    for (size_t i = 0; i < nb; i++)
        D += isfinite(mass[i]) ? d : 0;
    double *Md = malloc((D + 1) * sizeof(double)), *val = malloc((2 * d * nr + 1) * sizeof(double));
    int64_t *row = malloc((2 * d * nr + 1) * sizeof(int64_t)),
            *col = malloc((2 * d * nr + 1) * sizeof(int64_t));
    int64_t *dof_body = malloc((D + 1) * sizeof(int64_t));
    long *moving = malloc((nb + 1) * sizeof(long)), *dense = NULL;
    int e = Md && val && row && col && dof_body && moving ? 0 : -1;
    for (size_t i = 0, before = 0; e == 0 && i < nb; i++) {
        moving[i] = (long)before;
        before += isfinite(mass[i]) ? 1 : 0;
    }
    size_t span = nb ? bodies[nb - 1] - bodies[0] + 1 : 0;
    if (e == 0 && nb && span <= 4 * nb && (dense = malloc(span * sizeof(long))))
        for (size_t j = 0, i = 0; j < span; j++) {
            int here = i < nb && bodies[i] == bodies[0] + j;
            dense[j] = here && isfinite(mass[i]) ? moving[i] : -1;
            i += here;
        }
    const dof_map map = {bodies, mass, moving, dense, nb, span};
    for (size_t i = 0, q = 0; e == 0 && i < nb; i++)
        for (size_t c = 0; isfinite(mass[i]) && c < d; c++, q++)
            Md[q] = mass[i], dof_body[q] = (int64_t)bodies[i];
    for (size_t r = 0; e == 0 && r < nr; r++) {
        long blk[2] = {dof_block(&map, (long)rec[r].body_a), dof_block(&map, rec[r].body_b)};
        for (int side = 0; side < 2; side++)
            for (size_t c = 0; blk[side] >= 0 && c < d; c++, nz++) {
                row[nz] = blk[side] * (int64_t)d + (int64_t)c;
                col[nz] = (int64_t)r;
                val[nz] = side == 0 ? -nrm[r * d + c] : nrm[r * d + c];
            }
    }
    hid_t w = e == 0 ? group_create(g, "W") : -1;
    e |= w < 0 ? -1 : 0;
    if (e == 0) {
        int64_t shape[2] = {(int64_t)D, (int64_t)nr};
        hsize_t two = 2;
        hid_t sp = H5Screate_simple(1, &two, NULL);
        hid_t a =
            sp < 0 ? -1 : H5Acreate2(w, "shape", H5T_NATIVE_INT64, sp, H5P_DEFAULT, H5P_DEFAULT);
        e |= a < 0 || H5Awrite(a, H5T_NATIVE_INT64, shape) < 0 ? -1 : 0;
        if (a >= 0 && H5Aclose(a) < 0)
            e = -1;
        if (sp >= 0)
            H5Sclose(sp);
        e |= ep_array(x, w, "row", H5T_NATIVE_INT64, row, 1, nz, 0, "1 (dof)");
        e |= ep_array(x, w, "col", H5T_NATIVE_INT64, col, 1, nz, 0, "1 (record)");
        e |= ep_doubles(x, w, "value", val, nz, 0, "1 (gamma = W^T u)");
        e |= H5Gclose(w) < 0 ? -1 : 0;
        e |= ep_doubles(x, g, "M_diagonal", Md, D, 0, "kg");
        e |=
            ep_array(x, g, "dof_body", H5T_NATIVE_INT64, dof_body, 1, D, 0, "1 (body of each dof)");
    }
    free(Md), free(val), free(row), free(col), free(dof_body), free(moving), free(dense);
    return e;
}

/* α and the kinetic cosines are records² numbers: written up to
 * CR_STORE_DENSE_MAX records. Above, α_ij = P_j / P_i is the records'
 * impulses and the cosines follow from M_diagonal and W (docs). */
static int write_dense(const ep_ctx *x, hid_t g, const cr_monitor *mon, size_t k, size_t nr)
{
    int dense = nr <= CR_STORE_DENSE_MAX;
    int e = cr_h5_attr_int64(g, "dense_matrices", dense);
    if (!dense)
        return e;
    double *buf = malloc((nr * nr + 1) * sizeof(double));
    if (!buf)
        return -1;
    e |= cr_monitor_alpha_matrix(mon, k, buf) == CR_OK ? 0 : -1;
    e |= e ? -1 : ep_doubles(x, g, "alpha_matrix", buf, nr, nr, "1 (alpha_ij = P_j / P_i)");
    e |= e ? -1 : (cr_monitor_kinetic_cosines(mon, k, buf) == CR_OK ? 0 : -1);
    e |= e ? -1 : ep_doubles(x, g, "kinetic_cosine", buf, nr, nr, "1 (001 eq. 39-45)");
    free(buf);
    return e;
}

static int write_episode(cr_store *st, const ep_ctx *x, hid_t top, const cr_monitor *mon, size_t k)
{
    char name[32];
    snprintf(name, sizeof name, "%04zu", k);
    hid_t g = group_create(top, name);
    if (g < 0)
        return -1;
    size_t nb, nm, nv0, nv1, nr, ni, nn, nev, d = (size_t)st->dim;
    const size_t *bodies = cr_monitor_bodies(mon, k, &nb);
    const double *mass = cr_monitor_masses(mon, k, &nm);
    const double *u0 = cr_monitor_velocities(mon, k, 0, &nv0);
    const double *u1 = cr_monitor_velocities(mon, k, 1, &nv1);
    const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nr);
    const double *imp = cr_monitor_vector_impulses(mon, k, &ni);
    const double *nrm = cr_monitor_normals(mon, k, &nn);
    const size_t *ev = cr_monitor_events(mon, k, &nev);
    int e = nm == nb && nv0 == nb && nv1 == nb && ni == nr && nn == nr &&
                    (nb == 0 || (bodies && mass && u0 && u1)) && (nr == 0 || (rec && imp && nrm)) &&
                    (nev == 0 || ev)
                ? 0
                : -1;
    e |= e ? -1 : ep_indices(x, g, "bodies", bodies, nb, "1");
    e |= e ? -1 : ep_doubles(x, g, "mass", mass, nb, 0, "kg (inf: fixed body)");
    e |= e ? -1 : ep_doubles(x, g, "velocity_before", u0, nb, d, "m/s");
    e |= e ? -1 : ep_doubles(x, g, "velocity_after", u1, nb, d, "m/s");
    e |= e ? -1 : write_records(x, g, rec, nr);
    e |= e ? -1 : ep_doubles(x, g, "vector_impulse", imp, nr, d, "N s (integral of f n dt)");
    e |= e ? -1 : ep_doubles(x, g, "normal", nrm, nr, d, "1 (unit normal at joining)");
    e |= e ? -1 : write_configuration(x, g, st->dim, bodies, mass, nb, rec, nrm, nr);
    e |= e ? -1 : write_dense(x, g, mon, k, nr);
    e |= e ? -1 : ep_indices(x, g, "events", ev, nev, "1 (row of /events)");
    return H5Gclose(g) < 0 ? -1 : e;
}

int cr_store_write_episodes(cr_store *st, const cr_monitor *mon)
{
    CR_CHECK(st && mon, st ? st->err : NULL, CR_ERR_INVALID);
    if (st->state == ST_DEAD)
        return st->rc;
    CR_CHECK(st->state == ST_OPEN, st->err, CR_ERR_INVALID);
    size_t n = cr_monitor_episode_count(mon);
    if (write_episode_table(st, mon, n) < 0)
        return store_fail(st, "writing /episodes");
    hid_t top = group_create(st->file, "episode");
    if (top < 0)
        return store_fail(st, "writing /episode");
    ep_ctx x;
    int e = ep_open(&x);
    for (size_t k = 0; k < n && e == 0; k++)
        e = write_episode(st, &x, top, mon, k);
    ep_close(&x);
    if (H5Gclose(top) < 0 || e < 0)
        return store_fail(st, "writing /episode");
    if (cr_store_write_contact_peaks(st->file, mon, cr_system_contact_count(st->sys)) < 0)
        return store_fail(st, "writing /contact_peaks");
    return CR_OK;
}

/* ---- collisions ------------------------------------------------------------ */

/* /collisions: one row per collision; its episodes, bodies and contact totals
 * are runs of the flat datasets in /collision, at the row's offsets (ragged
 * arrays: no group per collision, so 10⁵ collisions cost 7 datasets). */
typedef struct {
    int64_t index, episode_offset, episode_count, body_offset, body_count, contact_offset;
    int64_t contact_count, reference, reference_record;
    double t_start, t_end, T_minus, T_plus, kappa, field_work, dissipated;
    int8_t complete;
} collision_row;

typedef struct {
    int64_t contact, body_a, body_b;
    double impulse, compression, expansion, alpha;
    int64_t episode_count;
} collision_record_row;

static int write_collision_table(cr_store *st, const cr_monitor *mon, size_t n, size_t *ne,
                                 size_t *nb, size_t *nr)
{
    collision_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    int e = 0;
    *ne = *nb = *nr = 0;
    for (size_t k = 0; k < n && e == 0; k++) {
        cr_collision_info c;
        e = cr_monitor_get_collision(mon, k, &c) == CR_OK ? 0 : -1;
        rows[k] = (collision_row){(int64_t)k,
                                  (int64_t)*ne,
                                  (int64_t)c.episode_count,
                                  (int64_t)*nb,
                                  (int64_t)c.body_count,
                                  (int64_t)*nr,
                                  (int64_t)c.contact_count,
                                  (int64_t)c.reference,
                                  (int64_t)c.reference_record,
                                  c.t_start,
                                  c.t_end,
                                  c.T_minus,
                                  c.T_plus,
                                  c.kappa,
                                  c.field_work,
                                  c.dissipated,
                                  (int8_t)c.complete};
        *ne += c.episode_count;
        *nb += c.body_count;
        *nr += c.contact_count;
    }
    const cr_h5_column f[] = {
        CR_H5_COL(collision_row, index, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(collision_row, episode_offset, H5T_NATIVE_INT64,
                  "1 (first row of /collision/episodes)"),
        CR_H5_COL(collision_row, episode_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(collision_row, body_offset, H5T_NATIVE_INT64,
                  "1 (first row of /collision/bodies)"),
        CR_H5_COL(collision_row, body_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(collision_row, contact_offset, H5T_NATIVE_INT64,
                  "1 (first row of /collision/contacts)"),
        CR_H5_COL(collision_row, contact_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(collision_row, reference, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(collision_row, reference_record, H5T_NATIVE_INT64,
                  "1 (row among the collision's contacts)"),
        CR_H5_COL(collision_row, t_start, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(collision_row, t_end, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(collision_row, T_minus, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(collision_row, T_plus, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(collision_row, kappa, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(collision_row, field_work, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(collision_row, dissipated, H5T_NATIVE_DOUBLE, "J"),
        CR_H5_COL(collision_row, complete, H5T_NATIVE_INT8,
                  "1 (0: an episode still ran at the end)"),
    };
    if (e == 0)
        e = cr_h5_write_table(st->file, "collisions", sizeof(collision_row), f,
                              sizeof f / sizeof f[0], rows, n,
                              "collisions: episodes sharing bodies within the window");
    free(rows);
    return e;
}

static int write_collision_records(hid_t g, const cr_collision_record *rec, size_t n)
{
    collision_record_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t i = 0; i < n; i++)
        rows[i] = (collision_record_row){(int64_t)rec[i].contact,
                                         (int64_t)rec[i].body_a,
                                         rec[i].body_b,
                                         rec[i].impulse,
                                         rec[i].compression,
                                         rec[i].expansion,
                                         rec[i].alpha,
                                         (int64_t)rec[i].episode_count};
    const cr_h5_column f[] = {
        CR_H5_COL(collision_record_row, contact, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(collision_record_row, body_a, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(collision_record_row, body_b, H5T_NATIVE_INT64, "1 (< 0: wall -1 - body_b)"),
        CR_H5_COL(collision_record_row, impulse, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(collision_record_row, compression, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(collision_record_row, expansion, H5T_NATIVE_DOUBLE, "N s"),
        CR_H5_COL(collision_record_row, alpha, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(collision_record_row, episode_count, H5T_NATIVE_INT64, "1"),
    };
    int e =
        cr_h5_write_table(g, "contacts", sizeof(collision_record_row), f, sizeof f / sizeof f[0],
                          rows, n, "per-contact totals of every collision, at contact_offset");
    free(rows);
    return e;
}

/* The flat datasets of /collision, every collision's runs one after another. */
static int write_collision_data(cr_store *st, const cr_monitor *mon, size_t n, size_t ne, size_t nb,
                                size_t nr)
{
    size_t d = (size_t)st->dim;
    size_t *eps = malloc((ne + 1) * sizeof(size_t)), *bodies = malloc((nb + 1) * sizeof(size_t));
    double *u0 = malloc((nb * d + 1) * sizeof(double)), *u1 = malloc((nb * d + 1) * sizeof(double));
    double *vec = malloc((nr * d + 1) * sizeof(double));
    cr_collision_record *rec = malloc((nr + 1) * sizeof(*rec));
    int e = eps && bodies && u0 && u1 && vec && rec ? 0 : -1;
    size_t ie = 0, ib = 0, ir = 0;
    for (size_t k = 0; k < n && e == 0; k++) {
        size_t m, mb, mr;
        const size_t *pe = cr_monitor_collision_episodes(mon, k, &m);
        e |= ie + m <= ne ? 0 : -1;
        for (size_t q = 0; q < m && e == 0; q++)
            eps[ie++] = pe[q];
        const size_t *pb = cr_monitor_collision_bodies(mon, k, &mb);
        const double *v0 = cr_monitor_collision_velocities(mon, k, 0, &mb);
        const double *v1 = cr_monitor_collision_velocities(mon, k, 1, &mb);
        e |= ib + mb <= nb && (mb == 0 || (pb && v0 && v1)) ? 0 : -1;
        for (size_t q = 0; q < mb && e == 0; q++, ib++) {
            bodies[ib] = pb[q];
            memcpy(u0 + ib * d, v0 + q * d, d * sizeof(double));
            memcpy(u1 + ib * d, v1 + q * d, d * sizeof(double));
        }
        const cr_collision_record *pr = cr_monitor_collision_contacts(mon, k, &mr);
        const double *pv = cr_monitor_collision_vector_impulses(mon, k, &mr);
        e |= ir + mr <= nr && (mr == 0 || (pr && pv)) ? 0 : -1;
        for (size_t q = 0; q < mr && e == 0; q++, ir++) {
            rec[ir] = pr[q];
            memcpy(vec + ir * d, pv + q * d, d * sizeof(double));
        }
    }
    hid_t g = e == 0 ? group_create(st->file, "collision") : -1;
    e |= g < 0 ? -1 : 0;
    e |= e ? -1 : write_indices(g, "episodes", eps, ie, "1 (row of /episodes)");
    e |= e ? -1 : write_indices(g, "bodies", bodies, ib, "1");
    e |= e ? -1 : cr_h5_write_doubles(g, "velocity_before", u0, ib, d, "m/s");
    e |= e ? -1 : cr_h5_write_doubles(g, "velocity_after", u1, ib, d, "m/s");
    e |= e ? -1 : write_collision_records(g, rec, ir);
    e |= e ? -1 : cr_h5_write_doubles(g, "vector_impulse", vec, ir, d, "N s (integral of f n dt)");
    if (g >= 0 && H5Gclose(g) < 0)
        e = -1;
    free(eps), free(bodies), free(u0), free(u1), free(vec), free(rec);
    return e;
}

/* @p mon NULL: the empty tables of a file whose caller wrote no collisions. */
static int write_collisions(cr_store *st, const cr_monitor *mon)
{
    size_t n = mon ? cr_monitor_collision_count(mon) : 0, ne, nb, nr;
    double ff = NAN, window = mon ? cr_monitor_collision_window(mon, &ff) : NAN;
    int e = write_collision_table(st, mon, n, &ne, &nb, &nr);
    if (e == 0) {
        hid_t d = H5Dopen2(st->file, "collisions", H5P_DEFAULT);
        e = d < 0 ? -1 : 0;
        e |= e ? -1 : cr_h5_attr_double(d, "window", window);
        e |= e ? -1 : cr_h5_attr_double(d, "free_flight", ff);
        e |= e ? -1 : cr_h5_attr_double(d, "fraction", CR_MONITOR_COLLISION_FRACTION);
        if (d >= 0 && H5Dclose(d) < 0)
            e = -1;
    }
    e |= e ? -1 : write_collision_data(st, mon, n, ne, nb, nr);
    st->collisions_written = 1;
    return e;
}

int cr_store_write_collisions(cr_store *st, const cr_monitor *mon)
{
    CR_CHECK(st && mon, st ? st->err : NULL, CR_ERR_INVALID);
    if (st->state == ST_DEAD)
        return st->rc;
    CR_CHECK(st->state == ST_OPEN && !st->collisions_written, st->err, CR_ERR_INVALID);
    if (write_collisions(st, mon) < 0)
        return store_fail(st, "writing /collisions");
    return CR_OK;
}

/* ---- the mismatches of a calibrated rigid run ----------------------------------- */

typedef struct {
    double t, t_collision;
    int64_t first_body, last_body, collision, collision_first_body, collision_last_body;
    char kind[8];
} mismatch_row;

int cr_store_write_mismatches(cr_store *st, const cr_rigid_mismatch *m, size_t n)
{
    CR_CHECK(st && (m || n == 0), st ? st->err : NULL, CR_ERR_INVALID);
    if (st->state == ST_DEAD)
        return st->rc;
    CR_CHECK(st->state == ST_OPEN, st->err, CR_ERR_INVALID);
    mismatch_row *rows = calloc(n ? n : 1, sizeof(*rows));
    hid_t kind = cr_h5_fixed_string(sizeof rows->kind);
    if (!rows || kind < 0) {
        free(rows);
        if (kind >= 0)
            H5Tclose(kind);
        return store_fail(st, "writing /rigid_mismatches");
    }
    for (size_t k = 0; k < n; k++) {
        rows[k] = (mismatch_row){m[k].t,
                                 m[k].t_collision,
                                 (int64_t)m[k].first_body,
                                 (int64_t)m[k].last_body,
                                 m[k].collision,
                                 (int64_t)m[k].collision_first_body,
                                 (int64_t)m[k].collision_last_body,
                                 ""};
        snprintf(rows[k].kind, sizeof rows[k].kind, "%s", cr_mismatch_kind_name(m[k].kind));
    }
    const cr_h5_column c[] = {
        CR_H5_COL(mismatch_row, t, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(mismatch_row, first_body, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(mismatch_row, last_body, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(mismatch_row, collision, H5T_NATIVE_INT64,
                  "1 (the compliant run's collision, 0-based; -1: none)"),
        CR_H5_COL(mismatch_row, t_collision, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(mismatch_row, collision_first_body, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(mismatch_row, collision_last_body, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(mismatch_row, kind, kind, "bodies, repeat, none or missed"),
    };
    int e = cr_h5_write_table(st->file, "rigid_mismatches", sizeof(mismatch_row), c,
                              sizeof c / sizeof c[0], rows, n,
                              "rigid impacts of a calibrated run that did not map one to one to "
                              "a compliant collision (cradle/calibrated.h)");
    e |= cr_h5_attr_int64(st->file, "rigid_mismatches", (int64_t)n);
    H5Tclose(kind);
    free(rows);
    return e < 0 ? store_fail(st, "writing /rigid_mismatches") : CR_OK;
}
