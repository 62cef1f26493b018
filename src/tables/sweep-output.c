/* A sweep output read back (tables, tests, `cradle sweep --csv`): the whole
 * table in memory, with its inputs, errors and attributes. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cradle/sweepoutput.h"

struct cr_sweep_output {
    size_t points, ncol, nin;
    double *table;
    unsigned char *done;
    char *error;              /* points × CR_SWEEP_ERROR_LEN */
    char *columns;            /* ncol × 160 */
    char *in_name, *in_field; /* nin × 160 */
    char *in_text;            /* points × nin × CR_SWEEP_INPUT_LEN */
    char *attrs[8][2];        /* name, value */
    size_t nattrs;
};

#define NAME_LEN 160

/* A fixed-string dataset of any shape into a new buffer of @p len per string. */
static char *read_strings(hid_t file, const char *name, size_t count, size_t len)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    char *buf = calloc(count ? count : 1, len);
    int e = d < 0 || t < 0 || !buf || H5Tset_size(t, len) < 0 ||
            H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
            (count && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    if (e) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A string attribute or a scalar string dataset. */
static char *read_text(hid_t file, const char *name, int dataset)
{
    hid_t o = dataset ? H5Dopen2(file, name, H5P_DEFAULT)
                      : (H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1);
    hid_t t = H5Tcopy(H5T_C_S1);
    char *s = NULL, *copy = NULL;
    if (o >= 0 && t >= 0 && H5Tset_size(t, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(t, H5T_CSET_UTF8) >= 0 &&
        (dataset ? H5Dread(o, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) : H5Aread(o, t, &s)) >= 0 &&
        s) {
        copy = strdup(s);
        H5free_memory(s);
    }
    if (t >= 0)
        H5Tclose(t);
    if (o >= 0)
        (dataset ? H5Dclose : H5Aclose)(o);
    return copy ? copy : strdup("");
}

static long long read_int_attr(hid_t file, const char *name)
{
    long long v = -1;
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1;
    if (a >= 0) {
        H5Aread(a, H5T_NATIVE_LLONG, &v);
        H5Aclose(a);
    }
    return v;
}

static size_t dim_of(hid_t file, const char *name, int k)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t sp = d < 0 ? -1 : H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_dims(sp, dims, NULL);
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    return rank > k ? (size_t)dims[k] : 0;
}

static int read_all(cr_sweep_output *t, hid_t file)
{
    static const char *const names[] = {"kind",   "cradle_version", "sweep_hash",
                                        "status", "name",           NULL};
    for (const char *const *n = names; *n; n++) {
        t->attrs[t->nattrs][0] = strdup(*n);
        t->attrs[t->nattrs++][1] = read_text(file, *n, 0);
    }
    t->attrs[t->nattrs][0] = strdup("text");
    t->attrs[t->nattrs++][1] = read_text(file, "sweep/text", 1);
    t->attrs[t->nattrs][0] = strdup("model_text");
    t->attrs[t->nattrs++][1] = read_text(file, "sweep/model_text", 1);
    if (strcmp(t->attrs[0][1], "cradle sweep") != 0 ||
        read_int_attr(file, "format_version") != CR_SWEEP_FORMAT_VERSION)
        return -1;
    t->points = dim_of(file, "table", 0);
    t->ncol = dim_of(file, "table", 1);
    t->nin = dim_of(file, "inputs/name", 0);
    t->table = malloc((t->points * t->ncol + 1) * sizeof(double));
    t->done = calloc(t->points + 1, 1);
    t->error = read_strings(file, "error", t->points, CR_SWEEP_ERROR_LEN);
    t->columns = read_strings(file, "columns", t->ncol, NAME_LEN);
    t->in_name = read_strings(file, "inputs/name", t->nin, NAME_LEN);
    t->in_field = read_strings(file, "inputs/field", t->nin, NAME_LEN);
    t->in_text = read_strings(file, "inputs/text", t->points * t->nin, CR_SWEEP_INPUT_LEN);
    hid_t dt = H5Dopen2(file, "table", H5P_DEFAULT), dd = H5Dopen2(file, "done", H5P_DEFAULT);
    int e = !t->table || !t->done || !t->error || !t->columns || !t->in_name || !t->in_field ||
            !t->in_text || dt < 0 || dd < 0 ||
            H5Dread(dt, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t->table) < 0 ||
            H5Dread(dd, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, t->done) < 0;
    if (dt >= 0)
        H5Dclose(dt);
    if (dd >= 0)
        H5Dclose(dd);
    return e ? -1 : 0;
}

cr_sweep_output *cr_sweep_output_open(const char *path, char *msg, size_t msglen)
{
    if (path && access(path, R_OK) != 0) {
        cr_set_msg(msg, msglen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = path && H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    if (file < 0) {
        cr_set_msg(msg, msglen, "%s: not an HDF5 file", path ? path : "(null)");
        return NULL;
    }
    cr_sweep_output *t = calloc(1, sizeof *t);
    if (!t || read_all(t, file) != 0) {
        cr_set_msg(msg, msglen, "%s: not a cradle sweep file of format version %d", path,
                   CR_SWEEP_FORMAT_VERSION);
        cr_sweep_output_close(t);
        t = NULL;
    }
    H5Fclose(file);
    return t;
}

void cr_sweep_output_close(cr_sweep_output *t)
{
    if (!t)
        return;
    for (size_t k = 0; k < t->nattrs; k++) {
        free(t->attrs[k][0]);
        free(t->attrs[k][1]);
    }
    free(t->table);
    free(t->done);
    free(t->error);
    free(t->columns);
    free(t->in_name);
    free(t->in_field);
    free(t->in_text);
    free(t);
}

size_t cr_sweep_output_points(const cr_sweep_output *t)
{
    return t ? t->points : 0;
}
size_t cr_sweep_output_columns(const cr_sweep_output *t)
{
    return t ? t->ncol : 0;
}
const char *cr_sweep_output_column(const cr_sweep_output *t, size_t j)
{
    return t && j < t->ncol ? t->columns + j * NAME_LEN : NULL;
}
long cr_sweep_output_column_index(const cr_sweep_output *t, const char *name)
{
    for (size_t j = 0; t && name && j < t->ncol; j++)
        if (strcmp(t->columns + j * NAME_LEN, name) == 0)
            return (long)j;
    return -1;
}
const double *cr_sweep_output_row(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->table + i * t->ncol : NULL;
}
int cr_sweep_output_done(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->done[i] != 0 : 0;
}
const char *cr_sweep_output_error(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->error + i * CR_SWEEP_ERROR_LEN : NULL;
}
size_t cr_sweep_output_inputs(const cr_sweep_output *t)
{
    return t ? t->nin : 0;
}
const char *cr_sweep_output_input_name(const cr_sweep_output *t, size_t j)
{
    return t && j < t->nin ? t->in_name + j * NAME_LEN : NULL;
}
const char *cr_sweep_output_input_field(const cr_sweep_output *t, size_t j)
{
    return t && j < t->nin ? t->in_field + j * NAME_LEN : NULL;
}
const char *cr_sweep_output_input_text(const cr_sweep_output *t, size_t i, size_t j)
{
    return t && i < t->points && j < t->nin ? t->in_text + (i * t->nin + j) * CR_SWEEP_INPUT_LEN
                                            : NULL;
}
const char *cr_sweep_output_attr(const cr_sweep_output *t, const char *name)
{
    for (size_t k = 0; t && name && k < t->nattrs; k++)
        if (strcmp(t->attrs[k][0], name) == 0)
            return t->attrs[k][1];
    return NULL;
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int cr_sweep_output_write_csv(const cr_sweep_output *t, FILE *out)
{
    if (!t || !out)
        return CR_ERR_INVALID;
    fputs("point", out);
    for (size_t j = 0; j < t->nin; j++) {
        fputc(',', out);
        csv_text(out, cr_sweep_output_input_name(t, j));
    }
    fputs(",status", out);
    for (size_t j = t->nin; j < t->ncol; j++) {
        fputc(',', out);
        csv_text(out, cr_sweep_output_column(t, j));
    }
    fputs(",error\n", out);
    for (size_t i = 0; i < t->points; i++) {
        const char *err = cr_sweep_output_error(t, i);
        fprintf(out, "%zu", i);
        for (size_t j = 0; j < t->nin; j++) {
            fputc(',', out);
            csv_text(out, cr_sweep_output_input_text(t, i, j));
        }
        fprintf(out, ",%s", !t->done[i] ? "pending" : err[0] ? "failed" : "ok");
        const double *row = cr_sweep_output_row(t, i);
        for (size_t j = t->nin; j < t->ncol; j++)
            fprintf(out, ",%.17g", row[j]);
        fputc(',', out);
        csv_text(out, err);
        fputc('\n', out);
    }
    return ferror(out) ? CR_ERR_IO : CR_OK;
}
