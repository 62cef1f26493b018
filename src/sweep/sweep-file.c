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

/* A string attribute into @p buf ("" when absent or not a string). */
static void attr_read(hid_t obj, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t ft = a < 0 ? -1 : H5Aget_type(a);
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0) {
        hid_t t = cr_h5_utf8_type();
        char *s = NULL;
        if (H5Aread(a, t, &s) >= 0 && s) {
            snprintf(buf, len, "%s", s);
            H5free_memory(s);
        }
        H5Tclose(t);
    }
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
}

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
    if (file >= 0 && H5Fclose(file) < 0)
        e = 1;
    if (e || rename(tmp, f->path) != 0) {
        int err = errno;
        unlink(tmp);
        cr_set_msg(msg, msglen, "%s: cannot create the sweep output (%s)", f->path,
                   e ? "HDF5 error: is the folder writable, the disk full?" : strerror(err));
        free(tmp);
        return CR_ERR_IO;
    }
    free(tmp);
    return CR_OK;
}

/* ---- opening and resuming ------------------------------------------------------------ */

/* Whether an existing file may be resumed by @p s; the reason in msg when not. */
static int check_existing(const char *path, const cr_sweep *s, char *msg, size_t msglen)
{
    hid_t file = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    char kind[64], hash[64], version[64];
    if (file < 0) {
        cr_set_msg(msg, msglen,
                   "%s: exists and is not a cradle sweep file: refusing to replace it "
                   "(--force starts over)",
                   path);
        return CR_ERR_INVALID;
    }
    attr_read(file, "kind", kind, sizeof kind);
    attr_read(file, "sweep_hash", hash, sizeof hash);
    attr_read(file, "cradle_version", version, sizeof version);
    hsize_t dims[2] = {0, 0};
    hid_t table = H5Dopen2(file, "table", H5P_DEFAULT), space = -1;
    if (table >= 0 && (space = H5Dget_space(table)) >= 0 && H5Sget_simple_extent_ndims(space) == 2)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (table >= 0)
        H5Dclose(table);
    H5Fclose(file);
    if (strcmp(kind, SW_KIND) != 0) {
        cr_set_msg(msg, msglen,
                   "%s: exists and is not a cradle sweep file: refusing to replace it "
                   "(--force starts over)",
                   path);
        return CR_ERR_INVALID;
    }
    if (strcmp(hash, s->hash) != 0) {
        cr_set_msg(msg, msglen,
                   "%s: holds another sweep (%s; this sweep and its model are %s): refusing "
                   "to resume it (--force starts over)",
                   path, hash, s->hash);
        return CR_ERR_INVALID;
    }
    if (strcmp(version, cr_version()) != 0) {
        cr_set_msg(msg, msglen,
                   "%s: written by cradle %s; resuming needs the same version (this is %s; "
                   "--force starts over)",
                   path, version, cr_version());
        return CR_ERR_INVALID;
    }
    /* a build of the same version with other output columns (a sweep output
     * from before the v_final and e_cm columns) */
    if (dims[0] != s->points || dims[1] != s->ncol) {
        cr_set_msg(msg, msglen,
                   "%s: its table has %llu x %llu values, this sweep writes %zu x %zu: "
                   "refusing to resume it (--force starts over)",
                   path, (unsigned long long)dims[0], (unsigned long long)dims[1], s->points,
                   s->ncol);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

static int open_rw(cr_sweep_file *f, char *msg, size_t msglen)
{
    f->file = H5Fopen(f->path, H5F_ACC_RDWR, H5P_DEFAULT);
    f->table = f->file < 0 ? -1 : H5Dopen2(f->file, "table", H5P_DEFAULT);
    f->done = f->file < 0 ? -1 : H5Dopen2(f->file, "done", H5P_DEFAULT);
    f->error = f->file < 0 ? -1 : H5Dopen2(f->file, "error", H5P_DEFAULT);
    f->is_done = calloc(f->points, 1);
    if (f->table < 0 || f->done < 0 || f->error < 0 || !f->is_done ||
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
