/* Small HDF5 helpers every writer of cradle files shares (private): UTF-8
 * string types and scalar attributes. Each returns 0 or -1 (hid_t: -1) and
 * closes what it opened. */
#ifndef CRADLE_H5_UTIL_H
#define CRADLE_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* A variable-length UTF-8 string type (caller closes). */
hid_t cr_h5_utf8_type(void);
/* A fixed-length UTF-8 string type of @p n bytes, NUL-terminated (caller closes). */
hid_t cr_h5_fixed_string(size_t n);
/* Writes a scalar attribute of @p type, or overwrites the one of that name
 * (runs update their status and counters in place). */
int cr_h5_attr_number(hid_t obj, const char *name, hid_t type, const void *v);
int cr_h5_attr_string(hid_t obj, const char *name, const char *value);
int cr_h5_attr_double(hid_t obj, const char *name, double v);
int cr_h5_attr_int64(hid_t obj, const char *name, int64_t v);

#endif
