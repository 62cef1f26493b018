/* Making a reference table (include/cradle/table.h, cr_table_make): a copy of
 * a finished sweep output with a /reference group of provenance and, from a second
 * sweep over off-grid points, each column's interpolation error bound. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cradle/sweepoutput.h"
#include "cradle/table.h"
#include "base/h5-util.h"
#include "base/base.h"

/* Twice the largest deviation seen: the check points are cell midpoints,
 * where multilinear interpolation errs most for a smooth function, and the
 * factor covers the cells' differing curvature between two checks. */
#define TB_BOUND_FACTOR 2.0

static int copy_file(const char *from, const char *to, char *msg, size_t msglen)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!in || !out) {
        cr_set_msg(msg, msglen, "%s: cannot %s: %s", in ? to : from, in ? "create" : "open",
                   strerror(errno));
        if (in)
            fclose(in);
        return CR_ERR_IO;
    }
    char buf[65536];
    size_t n;
    int e = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            e = 1;
    e |= ferror(in);
    fclose(in);
    e |= fclose(out) != 0;
    if (e) {
        cr_set_msg(msg, msglen, "%s: write failed: %s", to, strerror(errno));
        return CR_ERR_IO;
    }
    return CR_OK;
}

/* Largest |interpolated − direct| per column over the check points inside
 * the domain; @p checked counts the points that entered a column. */
static int check_bounds(cr_table *t, const char *check, double *bound, long *checked, char *msg,
                        size_t msglen)
{
    char why[CR_ERRMSG_LEN] = "";
    cr_sweep_output *c = cr_sweep_output_open(check, why, sizeof why);
    if (!c) {
        cr_set_msg(msg, msglen, "%s", why);
        return CR_ERR_HDF5;
    }
    size_t na = cr_table_axis_count(t), ncol = cr_table_column_count(t);
    long map[64];
    int rc = CR_OK;
    for (size_t a = 0; a < na && rc == CR_OK; a++) {
        map[a] = cr_sweep_output_column_index(c, cr_table_axis_name(t, a));
        if (map[a] < 0) {
            cr_set_msg(msg, msglen, "%s: no input '%s' (an axis of %s)", check,
                       cr_table_axis_name(t, a), cr_table_path(t));
            rc = CR_ERR_INVALID;
        }
    }
    for (size_t i = 0; rc == CR_OK && i < cr_sweep_output_points(c); i++) {
        const char *err = cr_sweep_output_error(c, i);
        if (!cr_sweep_output_done(c, i) || (err && err[0]))
            continue;
        const double *row = cr_sweep_output_row(c, i);
        double x[64];
        for (size_t a = 0; a < na; a++)
            x[a] = row[map[a]];
        for (size_t j = cr_sweep_output_inputs(c); j < ncol; j++) {
            long cj = cr_sweep_output_column_index(c, cr_table_column_name(t, j));
            double v;
            if (cj < 0 || !isfinite(row[cj]) || cr_table_lookup(t, x, j, &v, NULL) != CR_OK ||
                !isfinite(v))
                continue;
            double d = fabs(v - row[cj]);
            if (checked[j] == 0 || d > bound[j])
                bound[j] = d;
            checked[j]++;
        }
    }
    cr_sweep_output_close(c);
    for (size_t j = 0; j < ncol; j++)
        bound[j] = checked[j] ? TB_BOUND_FACTOR * bound[j] : NAN;
    return rc;
}

static int put_vector(hid_t g, const char *name, hid_t ftype, hid_t mtype, const void *v, size_t n)
{
    hsize_t dims[1] = {n};
    hid_t s = H5Screate_simple(1, dims, NULL);
    hid_t d = s < 0 ? -1 : H5Dcreate2(g, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = d < 0 || (n && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0);
    if (d >= 0)
        H5Dclose(d);
    if (s >= 0)
        H5Sclose(s);
    return e ? -1 : 0;
}

/* @p n names, fixed length CR_TABLE_QUANTITY_LEN (longer ones are refused before). */
static int put_names(hid_t g, const char *name, const char *const *v, size_t n)
{
    char *buf = calloc(n + 1, CR_TABLE_QUANTITY_LEN);
    hsize_t dims[1] = {n};
    hid_t ft = H5Tcopy(H5T_C_S1);
    hid_t s = H5Screate_simple(1, dims, NULL);
    int e = !buf || ft < 0 || s < 0 || H5Tset_size(ft, CR_TABLE_QUANTITY_LEN) < 0;
    for (size_t k = 0; !e && k < n; k++)
        snprintf(buf + k * CR_TABLE_QUANTITY_LEN, CR_TABLE_QUANTITY_LEN, "%s", v[k]);
    hid_t d = e ? -1 : H5Dcreate2(g, name, ft, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e = e || d < 0 || (n && H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    if (d >= 0)
        H5Dclose(d);
    if (s >= 0)
        H5Sclose(s);
    if (ft >= 0)
        H5Tclose(ft);
    free(buf);
    return e ? -1 : 0;
}

/* The declaration of what the axes are (table.h, cr_table_declaration). */
static int put_declaration(hid_t g, const cr_table *t, const cr_table_declaration *d)
{
    return cr_h5_attr_string(g, "configuration", d->configuration) ||
           put_names(g, "quantity", d->quantity, cr_table_axis_count(t)) ||
           put_names(g, "fixed_quantity", d->fixed, d->nfixed) ||
           put_vector(g, "fixed_value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d->fixed_value,
                      d->nfixed);
}

/* A declaration names a configuration and short quantities. */
static int declaration_ok(const cr_table *t, const cr_table_declaration *d, char *msg,
                          size_t msglen)
{
    int ok = d->configuration && d->configuration[0] && d->quantity && (d->fixed || !d->nfixed) &&
             (d->fixed_value || !d->nfixed);
    for (size_t a = 0; ok && a < cr_table_axis_count(t); a++)
        ok = d->quantity[a] && strlen(d->quantity[a]) < CR_TABLE_QUANTITY_LEN;
    for (size_t k = 0; ok && k < d->nfixed; k++)
        ok = d->fixed[k] && strlen(d->fixed[k]) < CR_TABLE_QUANTITY_LEN &&
             isfinite(d->fixed_value[k]);
    if (!ok)
        cr_set_msg(msg, msglen, "%s: an incomplete declaration of the axes", cr_table_path(t));
    return ok;
}

/* "key: n values lo .. hi (geometric|linear)" per axis, one line each. */
static char *grid_text(const cr_table *t)
{
    size_t cap = 256 * (cr_table_axis_count(t) + 1), used = 0;
    char *s = calloc(cap, 1);
    for (size_t a = 0; s && a < cr_table_axis_count(t); a++) {
        size_t n = cr_table_axis_length(t, a);
        used += (size_t)snprintf(s + used, cap - used, "%s%s (%s): %zu values %.9g .. %.9g%s",
                                 a ? "; " : "", cr_table_axis_name(t, a), cr_table_axis_field(t, a),
                                 n, cr_table_axis_value(t, a, 0), cr_table_axis_value(t, a, n - 1),
                                 n < 3                        ? ""
                                 : cr_table_axis_is_log(t, a) ? " geometric (log interpolation)"
                                                              : " (linear interpolation)");
        if (used >= cap)
            break;
    }
    return s;
}

static int write_group(const char *path, const cr_table *t, const char *const *attrs,
                       const cr_table_declaration *decl, const double *bound, const long *checked,
                       char *msg, size_t msglen)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = f < 0 ? -1 : H5Gcreate2(f, "reference", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char *grid = grid_text(t);
    int e = g < 0 || !grid || cr_h5_attr_int64(g, "format_version", CR_TABLE_FORMAT_VERSION);
    e = e || cr_h5_attr_string(g, "kind", "cradle reference table") ||
        cr_h5_attr_string(g, "cradle_version", cr_version()) ||
        cr_h5_attr_string(g, "grid", grid) ||
        cr_h5_attr_string(g, "bound_rule",
                          "2 x the largest |interpolated - direct| over the check points (cell "
                          "midpoints run directly); 0 at grid points");
    for (size_t k = 0; !e && attrs && attrs[k] && attrs[k + 1]; k += 2)
        if (!decl || strcmp(attrs[k], "configuration") != 0) /* the declaration's wins */
            e = cr_h5_attr_string(g, attrs[k], attrs[k + 1]);
    e = e || (decl && put_declaration(g, t, decl));
    size_t ncol = cr_table_column_count(t);
    e = e || put_vector(g, "bound", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, bound, ncol) ||
        put_vector(g, "checked", H5T_STD_I64LE, H5T_NATIVE_LONG, checked, ncol);
    free(grid);
    if (g >= 0)
        H5Gclose(g);
    if (f >= 0 && H5Fclose(f) < 0)
        e = 1;
    if (e) {
        cr_set_msg(msg, msglen, "%s: cannot write the /reference group", path);
        return CR_ERR_HDF5;
    }
    return CR_OK;
}

int cr_table_make(const char *grid, const char *check, const char *out, const char *const *attrs,
                  char *msg, size_t msglen)
{
    return cr_table_make_declared(grid, check, out, attrs, NULL, msg, msglen);
}

int cr_table_make_declared(const char *grid, const char *check, const char *out,
                           const char *const *attrs, const cr_table_declaration *decl, char *msg,
                           size_t msglen)
{
    CR_CHECK(grid && out, msg, CR_ERR_INVALID);
    cr_table *t = NULL;
    int rc = cr_table_open(grid, &t, msg, msglen);
    if (rc != CR_OK)
        return rc;
    if (decl && !declaration_ok(t, decl, msg, msglen)) {
        cr_table_close(t);
        return CR_ERR_INVALID;
    }
    size_t ncol = cr_table_column_count(t);
    double *bound = malloc((ncol + 1) * sizeof(double));
    long *checked = calloc(ncol + 1, sizeof(long));
    if (!bound || !checked)
        rc = CR_ERR_NOMEM;
    for (size_t j = 0; rc == CR_OK && j < ncol; j++)
        bound[j] = NAN;
    if (rc == CR_OK && cr_table_axis_count(t) > 64)
        rc = CR_ERR_INVALID;
    if (rc == CR_OK && check)
        rc = check_bounds(t, check, bound, checked, msg, msglen);
    char *tmp = malloc(strlen(out) + 16);
    if (rc == CR_OK && !tmp)
        rc = CR_ERR_NOMEM;
    if (rc == CR_OK) {
        sprintf(tmp, "%s.tmp%ld", out, (long)getpid());
        rc = copy_file(grid, tmp, msg, msglen);
        if (rc == CR_OK)
            rc = write_group(tmp, t, attrs, decl, bound, checked, msg, msglen);
        if (rc == CR_OK && rename(tmp, out) != 0) {
            cr_set_msg(msg, msglen, "%s: cannot rename into place: %s", out, strerror(errno));
            rc = CR_ERR_IO;
        }
        if (rc != CR_OK)
            remove(tmp);
    }
    free(tmp);
    free(bound);
    free(checked);
    cr_table_close(t);
    return rc;
}
