/*
 * The sweep's HDF5 output (docs/sweep.md): every dataset is created at its
 * full size, contiguous and allocated at once (NaN, 0 or "" filled), so
 * storing a point writes raw data only and never HDF5's metadata: a file
 * stopped at any time between two points (Ctrl-C, SIGTERM, even a kill
 * between flushes) keeps a valid layout with every finished point in it, and
 * /done says which. A rerun fills in the rest.
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/h5-util.h"
#include "base/base.h"
#include "sweep/sweep-priv.h"

#define SW_KIND "cradle sweep"
#define SW_NAME_LEN 160

/* The fill value of the string datasets: HDF5 reads as many bytes as the type
 * is long (up to CR_SWEEP_ERROR_LEN), so it is a zeroed buffer that long. */
static const char no_text[CR_SWEEP_ERROR_LEN > SW_NAME_LEN ? CR_SWEEP_ERROR_LEN : SW_NAME_LEN];

struct cr_sweep_file {
    char *path;
    hid_t file, table, done, error;
    size_t points, ncol;
    unsigned char *is_done;
    size_t ndone;
    int resumed;
    char err[CR_ERRMSG_LEN];
};

/* ---- small HDF5 helpers ------------------------------------------------------------ */

/* A scalar string dataset (the sweep and model texts). */
static int text_dataset(hid_t loc, const char *name, const char *text)
{
    hid_t t = cr_h5_utf8_type(), space = H5Screate(H5S_SCALAR);
    hid_t d = t < 0 || space < 0
                  ? -1
                  : H5Dcreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = d < 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0 ? -1 : 0;
    if (d >= 0)
        H5Dclose(d);
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return e;
}

/* A dataset at its full size, allocated and filled at once (no metadata later). */
static hid_t full_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const void *fill)
{
    hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = -1;
    if (space >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) >= 0 &&
        H5Pset_fill_value(dcpl, type, fill) >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0)
        d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return d;
}

/* Writes @p n strings of fixed length @p len (rows of a 1-D or 2-D dataset). */
static int write_strings(hid_t d, const char *const *v, size_t n, size_t len)
{
    char *buf = calloc(n ? n : 1, len);
    hid_t t = cr_h5_fixed_string(len);
    int e = !buf || t < 0 ? -1 : 0;
    for (size_t i = 0; e == 0 && i < n; i++)
        snprintf(buf + i * len, len, "%s", v[i] ? v[i] : "");
    if (e == 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        e = -1;
    if (t >= 0)
        H5Tclose(t);
    free(buf);
    return e;
}

static hid_t group(hid_t loc, const char *name)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl >= 0)
        H5Pset_obj_track_times(gcpl, 0);
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0)
        H5Pclose(gcpl);
    return g;
}

/* ---- creating ---------------------------------------------------------------------- */

static int write_inputs(hid_t file, const cr_sweep *s)
{
    hid_t g = group(file, "inputs");
    size_t a = s->nin ? s->nin : 1;
    const char **names = calloc(a, sizeof(char *)), **fields = calloc(a, sizeof(char *));
    const char **text = calloc(s->points * a, sizeof(char *));
    int e = g < 0 || !names || !fields || !text ? -1 : 0;
    for (size_t j = 0; e == 0 && j < s->nin; j++) {
        names[j] = s->in[j].name;
        fields[j] = s->in[j].field;
        for (size_t i = 0; i < s->points; i++)
            text[i * s->nin + j] = cr_sweep_input_value(s, i, j);
    }
    hsize_t d1 = s->nin, d2[2] = {s->points, s->nin};
    hid_t tn = cr_h5_fixed_string(SW_NAME_LEN), tv = cr_h5_fixed_string(CR_SWEEP_INPUT_LEN);
    hid_t dn = e ? -1 : full_dataset(g, "name", tn, 1, &d1, no_text);
    hid_t df = e ? -1 : full_dataset(g, "field", tn, 1, &d1, no_text);
    hid_t dv = e ? -1 : full_dataset(g, "text", tv, 2, d2, no_text);
    if (dn < 0 || df < 0 || dv < 0 || write_strings(dn, names, s->nin, SW_NAME_LEN) ||
        write_strings(df, fields, s->nin, SW_NAME_LEN) ||
        write_strings(dv, text, s->points * s->nin, CR_SWEEP_INPUT_LEN))
        e = -1;
    hid_t ids[] = {dn, df, dv, tn, tv, g};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
        if (ids[k] >= 0)
            (k < 3 ? H5Dclose : k < 5 ? H5Tclose : H5Gclose)(ids[k]);
    free(names);
    free(fields);
    free(text);
    return e;
}

static int write_layout(hid_t file, const cr_sweep *s)
{
    hid_t g = group(file, "sweep");
    int e = g < 0 || text_dataset(g, "text", s->text) ||
                    text_dataset(g, "model_text", s->model_text) ||
                    cr_h5_attr_string(g, "model_path", s->model_path)
                ? -1
                : 0;
    if (g >= 0)
        H5Gclose(g);
    if (e || cr_h5_attr_string(file, "kind", SW_KIND) ||
        cr_h5_attr_int64(file, "format_version", CR_SWEEP_FORMAT_VERSION) ||
        cr_h5_attr_string(file, "cradle_version", cr_version()) ||
        cr_h5_attr_string(file, "sweep_hash", s->hash) ||
        cr_h5_attr_string(file, "name", s->name) || cr_h5_attr_string(file, "status", "running") ||
        cr_h5_attr_int64(file, "points", (long long)s->points) || write_inputs(file, s))
        return -1;
    hsize_t dc = s->ncol, dt[2] = {s->points, s->ncol}, dp = s->points;
    hid_t tn = cr_h5_fixed_string(SW_NAME_LEN), te = cr_h5_fixed_string(CR_SWEEP_ERROR_LEN);
    const double nan = NAN;
    const signed char zero = 0;
    hid_t dcol = full_dataset(file, "columns", tn, 1, &dc, no_text);
    hid_t ids[] = {dcol, full_dataset(file, "table", H5T_IEEE_F64LE, 2, dt, &nan),
                   full_dataset(file, "done", H5T_STD_I8LE, 1, &dp, &zero),
                   full_dataset(file, "error", te, 1, &dp, no_text)};
    e = dcol < 0 || write_strings(dcol, (const char *const *)s->columns, s->ncol, SW_NAME_LEN);
    for (size_t k = 0; k < 4; k++) {
        e |= ids[k] < 0;
        if (ids[k] >= 0)
            H5Dclose(ids[k]);
    }
    H5Tclose(tn);
    H5Tclose(te);
    return e ? -1 : 0;
}

/* Creates the layout under a temporary name and renames it over @p path. */
static int create_file(cr_sweep_file *f, const cr_sweep *s, char *msg, size_t msglen)
{
    size_t len = strlen(f->path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        cr_set_msg(msg, msglen, "%s: out of memory", f->path);
        return CR_ERR_NOMEM;
    }
    snprintf(tmp, len, "%s.tmp.%ld", f->path, (long)getpid());
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0)
        H5Pset_obj_track_times(fcpl, 0);
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    int e = file < 0 || write_layout(file, s);
    void *handle = NULL;
    int fd = file >= 0 && H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle
                 ? *(int *)handle
                 : -1;
    int space = file >= 0 && e && errno == ENOSPC;
    if (file >= 0 && H5Fclose(file) < 0) {
        e = 1;
        space |= errno == ENOSPC;
        /* HDF5 1.10 keeps a file whose close failed (its metadata could not
         * be written: a full disk) and crashes on it in its exit handler. The
         * temporary is abandoned: free its blocks and close it again, so the
         * id goes and the process can exit normally. */
        if (fd >= 0 && ftruncate(fd, 0) == 0)
            H5Fclose(file);
    }
    if (e || rename(tmp, f->path) != 0) {
        int err = errno;
        unlink(tmp);
        if (e && space) {
            cr_set_msg(msg, msglen, "%s: cannot create the sweep output: %s", f->path,
                       strerror(ENOSPC));
            free(tmp);
            return CR_ERR_IO;
        }
        cr_set_msg(msg, msglen, "%s: cannot create the sweep output (%s)", f->path,
                   e ? "HDF5 error: is the folder writable, the disk full?" : strerror(err));
        free(tmp);
        return CR_ERR_IO;
    }
    free(tmp);
    return CR_OK;
}

/* ---- opening and resuming ------------------------------------------------------------ */

/* The layout a resumed file must have, each dataset checked for its kind
 * and shape (the writer writes rows into them by offset). */
static int check_layout(cr_h5_reader *r, const cr_sweep *s)
{
    struct {
        const char *name;
        cr_h5_kind kind;
        int rank;
        hsize_t d0, d1;
    } want[] = {
        {"done", CR_H5_NUMBERS, 1, s->points, 1},
        {"error", CR_H5_STRINGS, 1, s->points, 1},
        {"columns", CR_H5_STRINGS, 1, s->ncol, 1},
        {"inputs/name", CR_H5_STRINGS, 1, s->nin, 1},
        {"inputs/field", CR_H5_STRINGS, 1, s->nin, 1},
        {"inputs/text", CR_H5_STRINGS, 2, s->points, s->nin},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int rank;
        hsize_t dims[2];
        if (cr_h5_shape(r, want[k].name, want[k].kind, &rank, dims) != 0)
            return -1;
        if (rank != want[k].rank || dims[0] != want[k].d0 || (rank == 2 && dims[1] != want[k].d1))
            return cr_h5_fail(r, want[k].name, "shape (%llu%s) does not match /table's",
                              (unsigned long long)dims[0], rank == 2 ? ", ..." : "");
    }
    return 0;
}

/* Whether an existing file may be resumed by @p s; the reason in msg when not.
 * The file is untrusted input: its attributes and every dataset's kind and
 * shape are checked (base/h5-util.h) before HDF5 opens it for writing, so a
 * damaged file is refused, not written into. */
static int check_existing(const char *path, const cr_sweep *s, char *msg, size_t msglen)
{
    cr_h5_reader r;
    char why[CR_ERRMSG_LEN] = "", *kind = NULL, *hash = NULL, *version = NULL;
    int64_t format = 0;
    int rc = cr_h5_reader_open(&r, path, why, sizeof why) == 0
                 ? cr_h5_attr_text(&r, r.file, "/", "kind", 64, &kind)
                 : -1;
    int is_sweep = rc == 1 && strcmp(kind, SW_KIND) == 0;
    int layout = -1;
    hsize_t dims[2] = {0, 0};
    if (is_sweep) {
        int rank = 0;
        layout = cr_h5_attr_integer(&r, r.file, "/", "format_version", &format) == 1 &&
                         cr_h5_attr_text(&r, r.file, "/", "sweep_hash", 64, &hash) == 1 &&
                         cr_h5_attr_text(&r, r.file, "/", "cradle_version", 64, &version) == 1 &&
                         cr_h5_shape(&r, "table", CR_H5_NUMBERS, &rank, dims) == 0 && rank == 2
                     ? 0
                     : -1;
        if (layout != 0 && !r.failed)
            cr_h5_fail(&r, NULL,
                       "format_version, sweep_hash, cradle_version or a 2-D /table "
                       "missing");
    }
    char h[80] = "", v[80] = "";
    cr_h5_echo(hash ? hash : "", 60, h, sizeof h);
    cr_h5_echo(version ? version : "", 60, v, sizeof v);
    free(kind);
    free(hash);
    free(version);
    rc = CR_ERR_INVALID;
    if (!is_sweep)
        cr_set_msg(msg, msglen,
                   "%s: exists and is not a cradle sweep file%s%s%s: refusing to replace it "
                   "(--force starts over)",
                   path, r.failed ? " (" : "", r.failed ? why : "", r.failed ? ")" : "");
    else if (layout != 0)
        cr_set_msg(msg, msglen, "%s: refusing to resume it (--force starts over)", why);
    else if (format != CR_SWEEP_FORMAT_VERSION)
        cr_set_msg(msg, msglen,
                   "%s: a sweep file of format version %lld (this cradle writes %d): refusing to "
                   "resume it (--force starts over)",
                   path, (long long)format, CR_SWEEP_FORMAT_VERSION);
    else if (strcmp(h, s->hash) != 0)
        cr_set_msg(msg, msglen,
                   "%s: holds another sweep (%s; this sweep and its model are %s): refusing "
                   "to resume it (--force starts over)",
                   path, h, s->hash);
    else if (strcmp(v, cr_version()) != 0)
        cr_set_msg(msg, msglen,
                   "%s: written by cradle %s; resuming needs the same version (this is %s; "
                   "--force starts over)",
                   path, v, cr_version());
    /* a build of the same version with other output columns (a sweep output
     * from before the v_final and e_cm columns) */
    else if (dims[0] != s->points || dims[1] != s->ncol)
        cr_set_msg(msg, msglen,
                   "%s: its table has %llu x %llu values, this sweep writes %zu x %zu: "
                   "refusing to resume it (--force starts over)",
                   path, (unsigned long long)dims[0], (unsigned long long)dims[1], s->points,
                   s->ncol);
    else if (check_layout(&r, s) != 0)
        cr_set_msg(msg, msglen, "%s: refusing to resume it (--force starts over)", why);
    else
        rc = CR_OK;
    cr_h5_reader_close(&r);
    return rc;
}

/* Elements of dataset @p d (0 when it is not 1-D). */
static size_t length_of(hid_t d)
{
    hid_t sp = d < 0 ? -1 : H5Dget_space(d);
    hsize_t n = 0;
    int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
             H5Sget_simple_extent_dims(sp, &n, NULL) == 1;
    if (sp >= 0)
        H5Sclose(sp);
    return ok ? (size_t)n : 0;
}

static int open_rw(cr_sweep_file *f, char *msg, size_t msglen)
{
    f->file = H5Fopen(f->path, H5F_ACC_RDWR, H5P_DEFAULT);
    f->table = f->file < 0 ? -1 : H5Dopen2(f->file, "table", H5P_DEFAULT);
    f->done = f->file < 0 ? -1 : H5Dopen2(f->file, "done", H5P_DEFAULT);
    f->error = f->file < 0 ? -1 : H5Dopen2(f->file, "error", H5P_DEFAULT);
    f->is_done = calloc(f->points + 1, 1);
    /* the layout was checked (created here, or read back by check_existing);
     * /done's length again, as it sizes the read */
    if (f->table < 0 || f->done < 0 || f->error < 0 || !f->is_done ||
        length_of(f->done) != f->points || length_of(f->error) != f->points ||
        H5Dread(f->done, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->is_done) < 0) {
        cr_set_msg(msg, msglen, "%s: cannot open the sweep output for writing", f->path);
        return CR_ERR_HDF5;
    }
    for (size_t i = 0; i < f->points; i++)
        f->ndone += f->is_done[i] != 0;
    return cr_h5_attr_string(f->file, "status", "running") ? CR_ERR_HDF5 : CR_OK;
}

int cr_sweep_file_open(const char *path, const cr_sweep *s, int force, cr_sweep_file **out,
                       char *msg, size_t msglen)
{
    if (!path || !path[0] || !s || !out) {
        cr_set_msg(msg, msglen, "cr_sweep_file_open: no path, sweep or output");
        return CR_ERR_INVALID;
    }
    *out = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    cr_sweep_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        cr_set_msg(msg, msglen, "%s: out of memory", path);
        return CR_ERR_NOMEM;
    }
    f->file = f->table = f->done = f->error = -1;
    f->points = s->points;
    f->ncol = s->ncol;
    int exists = access(path, F_OK) == 0;
    int rc = exists && !force ? check_existing(path, s, msg, msglen) : CR_OK;
    f->resumed = exists && !force;
    if (rc == CR_OK && !f->resumed)
        rc = create_file(f, s, msg, msglen);
    if (rc == CR_OK)
        rc = open_rw(f, msg, msglen);
    if (rc != CR_OK) {
        cr_sweep_file_close(f, NULL, NULL, 0);
        return rc;
    }
    *out = f;
    return CR_OK;
}

/* ---- writing ------------------------------------------------------------------------ */

/* Writes @p count elements at @p offset of a dataset (row i of a table). */
static int write_at(hid_t d, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count,
                    const void *buf)
{
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, count, NULL);
    int e = fs < 0 || ms < 0 ||
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, buf) < 0;
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return e ? -1 : 0;
}

int cr_sweep_file_put(cr_sweep_file *f, size_t i, const double *row, const char *err)
{
    if (!f || i >= f->points || !row)
        return CR_ERR_INVALID;
    /* zeroed: the bytes after the text reach the file too (same file whoever wrote it) */
    char text[CR_SWEEP_ERROR_LEN] = {0};
    snprintf(text, sizeof text, "%s", err ? err : "");
    hsize_t st2[2] = {i, 0}, ct2[2] = {1, f->ncol}, st1 = i, ct1 = 1;
    hid_t te = cr_h5_fixed_string(CR_SWEEP_ERROR_LEN);
    const unsigned char one = 1;
    /* the row and its text first, /done last: a point is done once all of it is there */
    int e = te < 0 || write_at(f->table, H5T_NATIVE_DOUBLE, 2, st2, ct2, row) ||
            write_at(f->error, te, 1, &st1, &ct1, text) ||
            write_at(f->done, H5T_NATIVE_UCHAR, 1, &st1, &ct1, &one);
    if (te >= 0)
        H5Tclose(te);
    if (e) {
        cr_set_msg(f->err, sizeof f->err, "%s: write error on point %zu (disk full?)", f->path, i);
        return CR_ERR_HDF5;
    }
    if (!f->is_done[i]) {
        f->is_done[i] = 1;
        f->ndone++;
    }
    return CR_OK;
}

int cr_sweep_file_flush(cr_sweep_file *f)
{
    if (!f || f->file < 0)
        return CR_ERR_INVALID;
    if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0) {
        cr_set_msg(f->err, sizeof f->err, "%s: flush failed (disk full?)", f->path);
        return CR_ERR_HDF5;
    }
    void *handle = NULL;
    if (H5Fget_vfd_handle(f->file, H5P_DEFAULT, &handle) >= 0 && handle)
        fsync(*(int *)handle);
    return CR_OK;
}

int cr_sweep_file_close(cr_sweep_file *f, const char *status, char *msg, size_t msglen)
{
    if (!f)
        return CR_OK;
    int e = 0;
    if (status && f->file >= 0)
        e = cr_h5_attr_string(f->file, "status", status) ||
            cr_h5_attr_int64(f->file, "done", (long long)f->ndone);
    hid_t ids[] = {f->table, f->done, f->error};
    for (size_t k = 0; k < 3; k++)
        if (ids[k] >= 0)
            H5Dclose(ids[k]);
    if (f->file >= 0 && H5Fclose(f->file) < 0)
        e = 1;
    if (e && msg)
        cr_set_msg(msg, msglen, "%s: HDF5 error while closing the sweep output", f->path);
    free(f->is_done);
    free(f->path);
    free(f);
    return e ? CR_ERR_HDF5 : CR_OK;
}

size_t cr_sweep_file_done_count(const cr_sweep_file *f)
{
    return f ? f->ndone : 0;
}
int cr_sweep_file_is_done(const cr_sweep_file *f, size_t i)
{
    return f && i < f->points ? f->is_done[i] != 0 : 0;
}
int cr_sweep_file_resumed(const cr_sweep_file *f)
{
    return f ? f->resumed : 0;
}
const char *cr_sweep_file_last_error(const cr_sweep_file *f)
{
    return f ? f->err : "";
}
