/* Small HDF5 helpers every writer (and the reader) of cradle files shares
 * (private): UTF-8 string types, attributes, arrays and compound tables. Each returns 0 or -1
 * (hid_t: -1) and closes what it opened. */
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

/* One column of a compound table: name, offset in the row struct, HDF5 type
 * (not owned), units. */
typedef struct {
    const char *name;
    size_t offset;
    hid_t type;
    const char *units;
} cr_h5_column;

/* The column of row struct @p row whose member and HDF5 field are both @p name:
 * the one spelling every table of the store uses. */
#define CR_H5_COL(row, name, type, units)                                                          \
    {                                                                                              \
#name, offsetof(row, name), type, units                                                    \
    }

/* The compound type of a row of @p size bytes (caller closes; -1 on failure). */
hid_t cr_h5_compound_type(size_t size, const cr_h5_column *c, size_t nc);
/* A 1-D attribute of @p n strings. */
int cr_h5_attr_strings(hid_t obj, const char *name, const char *const *v, size_t n);
/* The per-column "units" attribute every table carries (docs/hdf5-layout.md),
 * and "description" when not NULL. */
int cr_h5_table_units(hid_t d, const cr_h5_column *c, size_t nc, const char *description);
/* A 1-D compound dataset of @p n rows with its units and description. */
int cr_h5_write_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                      const void *rows, size_t n, const char *description);

/*
 * Reads the @p n rows of the 1-D compound dataset @p name into @p rows through
 * the columns @p c (matched by name: a reader lists only the fields it needs;
 * units unused). n = 0 reads nothing.
 */
int cr_h5_read_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                     void *rows, size_t n);

/* An enum type of values 0 .. @p n-1 named @p names (caller closes; -1 on failure). */
hid_t cr_h5_enum(const char *const *names, int n);

/* A dataset of rank 0 (a scalar), 1 or 2 written in one go, with its "units"
 * attribute when @p units is not NULL. */
int cr_h5_write_array(hid_t loc, const char *name, hid_t type, const void *v, int rank, size_t rows,
                      size_t cols, const char *units);
/* Doubles: @p rows numbers (@p cols 0) or a rows x cols matrix. */
int cr_h5_write_doubles(hid_t loc, const char *name, const double *v, size_t rows, size_t cols,
                        const char *units);

#endif
