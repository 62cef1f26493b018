/**
 * @file sweepfile.h
 * @brief The output file of a sweep (docs/sweep.md): created or resumed,
 * written a point at a time, closed with its status. Read back with
 * cradle/sweepoutput.h.
 */
#ifndef CRADLE_SWEEPFILE_H
#define CRADLE_SWEEPFILE_H

#include <stddef.h>

#include "cradle/common.h"
#include "cradle/sweepoutput.h"

typedef struct cr_sweep cr_sweep;
typedef struct cr_sweep_file cr_sweep_file;

/**
 * Opens the output of @p s at @p path. A missing file (or any file with
 * @p force) is created under a temporary name and renamed into place once its
 * layout is written; an existing sweep file of the same sweep (hash) and
 * cradle version is resumed: its finished points are kept. Refused
 * (CR_ERR_INVALID, one line in @p msg, the file untouched): a file that is
 * not a cradle sweep file, another sweep's file, another version's.
 */
CR_EXPORT int cr_sweep_file_open(const char *path, const cr_sweep *s, int force,
                                 cr_sweep_file **out, char *msg, size_t msglen);
/** Points already done (ok or failed). */
CR_EXPORT size_t cr_sweep_file_done_count(const cr_sweep_file *f);
CR_EXPORT int cr_sweep_file_is_done(const cr_sweep_file *f, size_t i);
/** 1 when the file was resumed rather than created. */
CR_EXPORT int cr_sweep_file_resumed(const cr_sweep_file *f);
/** Stores point @p i's row and error text; written to the file at once. */
CR_EXPORT int cr_sweep_file_put(cr_sweep_file *f, size_t i, const double *row, const char *err);
/** Forces what was put to the disk (H5Fflush and fsync). */
CR_EXPORT int cr_sweep_file_flush(cr_sweep_file *f);
/**
 * Sets the `status` attribute ("complete", "interrupted", "failed"), closes
 * and frees. @return CR_OK or CR_ERR_HDF5 with the reason in @p msg. Accepts NULL.
 */
CR_EXPORT int cr_sweep_file_close(cr_sweep_file *f, const char *status, char *msg, size_t msglen);
CR_EXPORT const char *cr_sweep_file_last_error(const cr_sweep_file *f);

#endif
