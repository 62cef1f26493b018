/* Small HDF5 helpers every writer of cradle files shares (src/h5-util.h). */
#include "h5-util.h"

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
