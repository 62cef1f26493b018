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

/* An enum type of values 0 .. @p n-1 named @p names (caller closes; -1 on failure). */
hid_t cr_h5_enum(const char *const *names, int n);

/* A dataset of rank 0 (a scalar), 1 or 2 written in one go, with its "units"
 * attribute when @p units is not NULL. */
int cr_h5_write_array(hid_t loc, const char *name, hid_t type, const void *v, int rank, size_t rows,
                      size_t cols, const char *units);
/* A text as a scalar fixed-length UTF-8 string dataset, "units" @p what. Not
 * a variable-length string: raw data, written by H5Dwrite at once, where a
 * variable-length one sits in HDF5's metadata cache until a flush, and
 * metadata that cannot be written (a full disk) leaves HDF5 1.10 unable to
 * close the file. */
int cr_h5_write_text(hid_t loc, const char *name, const char *text, const char *what);
/* Doubles: @p rows numbers (@p cols 0) or a rows x cols matrix. */
int cr_h5_write_doubles(hid_t loc, const char *name, const double *v, size_t rows, size_t cols,
                        const char *units);

/* ---- reading a file that may be corrupt or crafted -------------------------------------------
 *
 * Every reader of our own files (run files, sweep outputs, tables) goes
 * through these: nothing read is trusted before it is checked, and HDF5 is
 * kept away from what it does not check itself (docs/errors.md, "Files
 * cradle reads back"):
 *
 * - a dataset's class, rank and every extent are compared with what the
 *   caller expects (a record that says 5 bodies gets 5 masses or an error),
 *   before a buffer is sized or HDF5 reads into it;
 * - sizes from the file are checked for overflow and against a cap before
 *   any allocation (CR_H5_MAX_READ_BYTES per read, CR_H5_MAX_STRING per
 *   string);
 * - fixed-length strings are read into buffers one byte longer and always
 *   end in NUL;
 * - a variable-length string is read only after its heap reference has been
 *   checked by our own bounded parse of the bytes HDF5 1.10 trusts: the
 *   attribute message in the object header (or the dataset's raw data), then
 *   the global heap collection it names (signature, size inside the file,
 *   every object inside the collection, the index present, the object's size
 *   equal to the string's length). H5HG_read copies an object of the size the
 *   heap claims into a buffer of the size the reference claims, indexes its
 *   object table without a bound, and a free-space object of size 0 makes
 *   its parse loop forever: each seen on byte-flipped files (crashes, a hang,
 *   6 GB allocated).
 *
 * Failures are one line, the first one kept: "PATH: /dataset: what".
 */

/* Bytes one dataset read may allocate (the largest legitimate: a sweep table
 * of 10^7 points, CR_SWEEP_MAX_POINTS, of ~100 columns is 8 GB and is beyond
 * it; reference tables are ~1 MB). */
#define CR_H5_MAX_READ_BYTES ((size_t)1 << 30)
/* Bytes of one string read back (model and sweep texts: the input limit of
 * cr_file_read, docs/errors.md). */
#define CR_H5_MAX_STRING ((size_t)64 << 20)

typedef struct {
    const char *path; /* for the messages */
    hid_t file;
    int fd;              /* HDF5's own descriptor (sec2), for the raw checks */
    uint64_t size, base; /* bytes of the file; the user block */
    unsigned sa, ss;     /* sizes of addresses and lengths in the file */
    char *msg;
    size_t msglen;
    int failed;
} cr_h5_reader;

/*
 * Opens @p path read-only after checking it is a regular file with HDF5's
 * signature. @return 0, or -1 with "PATH: why" in @p msg (also where later
 * failures go, the first one kept).
 */
int cr_h5_reader_open(cr_h5_reader *r, const char *path, char *msg, size_t msglen);
void cr_h5_reader_close(cr_h5_reader *r);
/* Records "PATH: /NAME: what" (the first failure only; NAME NULL: "PATH: what"). @return -1. */
int cr_h5_fail(cr_h5_reader *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 1 when @p name (a path from the root, components checked one by one) is an
 * object, 0 when not there, -1 (recorded) when HDF5 cannot tell. */
int cr_h5_has(cr_h5_reader *r, const char *name);

/* What a dataset holds, checked before its shape is looked at. */
typedef enum {
    CR_H5_NUMBERS, /* integers, floats or enums: read through a native type */
    CR_H5_STRINGS, /* fixed-length strings */
    CR_H5_ROWS     /* a compound table */
} cr_h5_kind;

/*
 * The rank (0 .. 2) and extents of dataset @p name, after checking it is one
 * and holds @p kind. @return 0, or -1 recorded.
 */
int cr_h5_shape(cr_h5_reader *r, const char *name, cr_h5_kind kind, int *rank, hsize_t dims[2]);

/*
 * Reads dataset @p name into @p buf through @p memtype (a native number type)
 * after checking it holds numbers and has exactly @p rank and @p dims
 * (rank 0: a scalar). @return 0, or -1 recorded.
 */
int cr_h5_read_numbers(cr_h5_reader *r, const char *name, hid_t memtype, void *buf, int rank,
                       const hsize_t *dims);

/*
 * A 1-D compound table of at most @p cap rows read through columns @p c
 * (matched by name; each must be there and hold a number): a new buffer of
 * n rows of @p size bytes (never NULL on success: one zeroed row for n = 0).
 * @return the rows, or NULL recorded.
 */
void *cr_h5_read_rows(cr_h5_reader *r, const char *name, size_t size, const cr_h5_column *c,
                      size_t nc, size_t cap, size_t *n);

/*
 * Fixed-length strings of a dataset of exactly @p rank and @p dims, each into
 * a slot of @p len bytes that always ends in NUL (longer strings cut): a new
 * buffer of count x len bytes. @return it, or NULL recorded.
 */
char *cr_h5_read_strings(cr_h5_reader *r, const char *name, int rank, const hsize_t *dims,
                         size_t len);

/*
 * A scalar string dataset (fixed or variable length) of at most @p cap bytes
 * as a new NUL-terminated string. @return it, or NULL recorded.
 */
char *cr_h5_read_text(cr_h5_reader *r, const char *name, size_t cap);

/*
 * Scalar attributes of object @p obj (@p objname names it in messages, "/" for
 * the root). Each returns 1 when read, 0 when the attribute is not there, -1
 * (recorded) when it is there but not what it should be. Strings are new
 * NUL-terminated buffers of at most @p cap bytes (fixed or variable length).
 */
int cr_h5_attr_text(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr, size_t cap,
                    char **out);
int cr_h5_attr_integer(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr,
                       int64_t *out);
int cr_h5_attr_real(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr, double *out);

/* The names of @p obj's attributes (at most @p max, new strings into
 * @p names, their count in @p n), from our own parse of its object header:
 * HDF5's H5Aiterate builds a table of every attribute and crashes releasing
 * it when one is damaged. 0, or -1 recorded. */
int cr_h5_attr_names(cr_h5_reader *r, hid_t obj, const char *objname, char **names, size_t max,
                     size_t *n);

/* @p s (a text read from a file) as a message may echo it: control bytes as
 * \n, \t, \xNN, cut after @p max characters with "..."; into @p buf,
 * returned. */
const char *cr_h5_echo(const char *s, size_t max, char *buf, size_t len);

#endif
