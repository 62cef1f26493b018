/**
 * @file runfile.h
 * @brief A run file (docs/hdf5-layout.md) read back: its model text, status
 * and episodes, what `cradle compare RUN.h5` and `cradle law --input RUN.h5`
 * take (src/store/run-file.c).
 */
#ifndef CRADLE_RUNFILE_H
#define CRADLE_RUNFILE_H

#include "cradle/common.h"
#include "cradle/contact.h"
#include "cradle/monitor.h"

/** A finished run file opened for reading (its episodes, its model text). */
typedef struct cr_run_file cr_run_file;

/**
 * Opens @p path read-only. @return NULL with a one-line reason in @p msg when
 * it is not a cradle run file of this format version or has no readable
 * /episodes (a run killed before its end).
 */
CR_EXPORT cr_run_file *cr_run_file_open(const char *path, char *msg, size_t msglen);
/** Closes; accepts NULL. */
CR_EXPORT void cr_run_file_close(cr_run_file *f);
CR_EXPORT const char *cr_run_file_last_error(const cr_run_file *f);
/** The model file's text as run ("" when the file has none). */
CR_EXPORT const char *cr_run_file_model_text(const cr_run_file *f);
/** The root `status` attribute (complete, interrupted, failed, running). */
CR_EXPORT const char *cr_run_file_status(const cr_run_file *f);
CR_EXPORT int cr_run_file_dimension(const cr_run_file *f);
CR_EXPORT size_t cr_run_file_episode_count(const cr_run_file *f);
/**
 * Episode @p k as the monitor gave it (/episodes row k and /episode/NNNN); the
 * arrays stay valid until the next call or cr_run_file_close. @p laws (may be
 * NULL) gets the pair law of each record from /contacts, or NULL when a law is
 * unknown. @return CR_ERR_INVALID for an index out of range, CR_ERR_HDF5 for a
 * group missing or unreadable (message in cr_run_file_last_error).
 */
CR_EXPORT int cr_run_file_episode(cr_run_file *f, size_t k, cr_episode_data *d,
                                  const cr_contact_params **laws);

#endif
