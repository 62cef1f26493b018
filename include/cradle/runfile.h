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
 * Opens @p path read-only. The file is untrusted input: its format version,
 * /model, /contacts and every /episodes row are checked against each other
 * before anything is kept (docs/errors.md, "Files cradle reads back").
 * @return NULL with a one-line reason naming the file and the dataset in
 * @p msg when it is not a cradle run file of this format version, has no
 * readable /episodes (a run killed before its end), or fails a check.
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
 * arrays stay valid until the next call or cr_run_file_close. Every dataset's
 * shape is checked against the /episodes row before it is read, and every
 * index, mass, velocity, normal and impulse for range. @p laws (may be NULL)
 * gets the pair law of each record from /contacts, or NULL when a law is
 * unknown. @return CR_ERR_INVALID for an index out of range, CR_ERR_HDF5 for a
 * group missing, unreadable or inconsistent (cr_run_file_last_error: one line
 * naming the file and the dataset).
 */
CR_EXPORT int cr_run_file_episode(cr_run_file *f, size_t k, cr_episode_data *d,
                                  const cr_contact_params **laws);

/** The state a run file keeps for `cradle run --continue` (/restart). */
typedef struct {
    int dim;
    size_t body_count;
    double time;                 /**< s: the last trajectory time between episodes */
    double *position, *velocity; /**< body_count × dim each */
    char *model_text;            /**< /model/text: the model as run */
    char *status;                /**< the root status (running: a killed run) */
    char *kind;                  /**< the engine that ran: chain, pool, rigid… */
} cr_restart_state;

/**
 * Reads the restart state of the run file @p path (complete, interrupted,
 * failed, or a killed run's temporary: what its last flush wrote), checking
 * the format version, /model and every /restart dataset for shape and range.
 * @return CR_OK, or CR_ERR_HDF5 with one line naming the file and the dataset
 * in @p msg (not a run file, a table, another format version, corrupt, no
 * /restart). Free with cr_restart_state_free.
 */
CR_EXPORT int cr_run_file_restart(const char *path, cr_restart_state *st, char *msg, size_t msglen);
/** Frees what cr_run_file_restart filled; accepts NULL. */
CR_EXPORT void cr_restart_state_free(cr_restart_state *st);

#endif
