/* HDF5 helpers the store's writers share (private): attributes, compound
 * tables with per-column units, and the copy-then-rename replacement that
 * keeps a target file untouched until the new one is complete. */
#ifndef CRADLE_STORE_PRIV_H
#define CRADLE_STORE_PRIV_H

#include <hdf5.h>
#include <stddef.h>

#include "h5-util.h"

/* One column of a compound table: name, offset in the row struct, HDF5 type, units. */
typedef struct {
    const char *name;
    size_t offset;
    hid_t type;
    const char *units;
} cr_h5_column;

/* A 1-D compound dataset of @p n rows with "units" (per column) and "description". */
int cr_h5_write_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                      const void *rows, size_t n, const char *description);
/*
 * Copies @p source beside @p target, lets @p write add to the copy, closes and
 * fsyncs it and renames it over @p target: the target is never edited in
 * place, and on failure it is unchanged and no temporary is left. @p what
 * names the group in the message. @return CR_OK, CR_ERR_IO or CR_ERR_HDF5.
 */
int cr_store_replace_through_copy(const char *source, const char *target,
                                  int (*write)(hid_t file, const void *ctx), const void *ctx,
                                  const char *what, char *msg, size_t msglen);

#endif
