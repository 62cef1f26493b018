/* Small HDF5 helpers every writer of cradle files shares (src/base/h5-util.h). */
#include "base/h5-util.h"

hid_t cr_h5_utf8_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t cr_h5_fixed_string(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, n) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

int cr_h5_attr_number(hid_t obj, const char *name, hid_t type, const void *v)
{
    htri_t there = H5Aexists(obj, name);
    if (there < 0)
        return -1;
    hid_t a;
    if (there) {
        a = H5Aopen(obj, name, H5P_DEFAULT);
    } else {
        hid_t space = H5Screate(H5S_SCALAR);
        a = space < 0 ? -1 : H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (space >= 0)
            H5Sclose(space);
    }
    if (a < 0)
        return -1;
    int e = H5Awrite(a, type, v) < 0 ? -1 : 0;
    return H5Aclose(a) < 0 ? -1 : e;
}

int cr_h5_attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = cr_h5_utf8_type();
    if (t < 0)
        return -1;
    const char *p = value ? value : "";
    int e = cr_h5_attr_number(obj, name, t, &p);
    return H5Tclose(t) < 0 ? -1 : e;
}

int cr_h5_attr_double(hid_t obj, const char *name, double v)
{
    return cr_h5_attr_number(obj, name, H5T_NATIVE_DOUBLE, &v);
}

int cr_h5_attr_int64(hid_t obj, const char *name, int64_t v)
{
    return cr_h5_attr_number(obj, name, H5T_NATIVE_INT64, &v);
}

hid_t cr_h5_compound_type(size_t size, const cr_h5_column *c, size_t nc)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, size);
    for (size_t i = 0; t >= 0 && i < nc; i++)
        if (H5Tinsert(t, c[i].name, c[i].offset, c[i].type) < 0) {
            H5Tclose(t);
            return -1;
        }
    return t;
}

int cr_h5_attr_strings(hid_t obj, const char *name, const char *const *v, size_t n)
{
    hsize_t dim = n;
    hid_t t = cr_h5_utf8_type(), space = H5Screate_simple(1, &dim, NULL);
    hid_t a = t < 0 || space < 0 ? -1 : H5Acreate2(obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    int e = a < 0 || H5Awrite(a, t, v) < 0 ? -1 : 0;
    if (a >= 0 && H5Aclose(a) < 0)
        e = -1;
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return e;
}

/* Tables have at most this many columns (the widest, /comparison/rows, has 25). */
#define H5_MAX_COLUMNS 64

int cr_h5_table_units(hid_t d, const cr_h5_column *c, size_t nc, const char *description)
{
    const char *u[H5_MAX_COLUMNS];
    size_t n = nc < H5_MAX_COLUMNS ? nc : H5_MAX_COLUMNS;
    for (size_t i = 0; i < n; i++)
        u[i] = c[i].units;
    int e = cr_h5_attr_strings(d, "units", u, n);
    if (description)
        e |= cr_h5_attr_string(d, "description", description);
    return e;
}

int cr_h5_write_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                      const void *rows, size_t n, const char *description)
{
    hid_t t = cr_h5_compound_type(size, c, nc);
    if (t < 0)
        return -1;
    hsize_t dim = n;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d =
        space < 0 ? -1 : H5Dcreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = d < 0 || (n && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) ? -1 : 0;
    if (d >= 0) {
        e |= cr_h5_table_units(d, c, nc, description);
        if (H5Dclose(d) < 0)
            e = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    H5Tclose(t);
    return e;
}

int cr_h5_read_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                     void *rows, size_t n)
{
    if (n == 0)
        return 0;
    hid_t t = cr_h5_compound_type(size, c, nc);
    hid_t d = t < 0 ? -1 : H5Dopen2(loc, name, H5P_DEFAULT);
    int e = d < 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0 ? -1 : 0;
    if (d >= 0)
        H5Dclose(d);
    if (t >= 0)
        H5Tclose(t);
    return e;
}

hid_t cr_h5_enum(const char *const *names, int n)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT);
    for (int k = 0; t >= 0 && k < n; k++)
        if (H5Tenum_insert(t, names[k], &k) < 0) {
            H5Tclose(t);
            return -1;
        }
    return t;
}

int cr_h5_write_array(hid_t loc, const char *name, hid_t type, const void *v, int rank, size_t rows,
                      size_t cols, const char *units)
{
    hsize_t dims[2] = {rows, cols};
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
    hid_t d =
        space < 0 ? -1 : H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    size_t count = rank == 0 ? 1 : rows * (rank == 2 ? cols : 1);
    int e = d < 0 || (count && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) ? -1 : 0;
    if (d >= 0 && units)
        e |= cr_h5_attr_string(d, "units", units);
    if (d >= 0 && H5Dclose(d) < 0)
        e = -1;
    if (space >= 0)
        H5Sclose(space);
    return e;
}

int cr_h5_write_doubles(hid_t loc, const char *name, const double *v, size_t rows, size_t cols,
                        const char *units)
{
    return cr_h5_write_array(loc, name, H5T_NATIVE_DOUBLE, v, cols ? 2 : 1, rows, cols, units);
}
