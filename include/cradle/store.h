/**
 * @file store.h
 * @brief HDF5 output of a run, one layout for every engine
 * (docs/hdf5-layout.md).
 *
 * The file is written under a temporary name beside the target and renamed
 * into place by cr_store_commit only once it closed cleanly, so a failed or
 * interrupted run never replaces a good file with a broken one. The store
 * computes no physics: it writes what the system and the monitor report.
 */
#ifndef CRADLE_STORE_H
#define CRADLE_STORE_H

#include "cradle/common.h"
#include "cradle/compare.h"
#include "cradle/model.h"
#include "cradle/monitor.h"
#include "cradle/runcompare.h"
#include "cradle/system.h"

typedef struct cr_store cr_store;

/** Version of the layout written (the root attribute `format_version`). */
#define CR_STORE_FORMAT_VERSION 2

/**
 * Bounded loss on a kill or a power loss: buffered trajectory rows and new
 * events are written, H5Fflush'ed and fsync'ed at least every
 * CR_STORE_FLUSH_ROWS rows (fewer when rows are large: at most 16 MiB are
 * buffered) and at the first row appended CR_STORE_FLUSH_SECONDS of wall time
 * after the last flush. Between flushes HDF5 writes nothing, so a kill leaves
 * the file as the last flush left it (docs/hdf5-layout.md, "What survives").
 */
#define CR_STORE_FLUSH_ROWS 4096
#define CR_STORE_FLUSH_SECONDS 10.0

/**
 * Episodes with up to this many contact records get the dense records² α
 * matrix and kinetic cosines; above, both follow from what every episode
 * stores (impulses, M_diagonal, sparse W), as docs/hdf5-layout.md shows.
 */
#define CR_STORE_DENSE_MAX 512

/**
 * Opens a new output for @p sys, built from @p model, and attaches to it as an
 * output listener (one /trajectory row per output time). @p model_text (may be
 * NULL) and @p model_path are archived so the file explains itself.
 * @p model must stay valid until cr_store_commit (the pair laws of the
 * contacts the run met go into /contacts); @p sys until cr_store_destroy.
 *
 * A temporary PATH.tmp.PID left beside @p path by a process that is gone (a
 * SIGKILL, a power loss) is renamed to PATH.partial-PID.h5, never deleted;
 * @p msg then holds a one-line note (otherwise ""), and
 * cr_store_recovered_count / cr_store_recovered_path list them.
 * @return NULL on failure with the reason (path and cause) in @p msg; no
 * temporary file is left behind.
 */
CR_EXPORT cr_store *cr_store_create(const char *path, cr_system *sys, const cr_model *model,
                                    const char *model_path, const char *model_text, char *msg,
                                    size_t msglen);

/**
 * Appends the system's current state to /trajectory (the output listener does
 * this). @return CR_OK, or CR_ERR_IO (disk full, write error) / CR_ERR_HDF5
 * with the path and cause in cr_store_last_error: the store is then dead, its
 * temporary removed, and every later call returns the same code.
 */
CR_EXPORT int cr_store_append_frame(cr_store *store);

/** Sets the flush bound (rows ≥ 1, seconds ≥ 0; 0 s: flush at every row). */
CR_EXPORT int cr_store_set_flush_interval(cr_store *store, size_t rows, double seconds);

/**
 * Writes /episodes (a table) and /episode/NNNN groups (records, bodies,
 * velocities, α matrix, kinetic cosines, M and W, vector impulses and normals
 * where dim > 1, event indices). Call after cr_monitor_finish.
 */
CR_EXPORT int cr_store_write_episodes(cr_store *store, const cr_monitor *mon);

/**
 * Writes /collisions (a table, with the window and free flight as attributes)
 * and the flat datasets of /collision (episodes, bodies, velocities before and
 * after, per-contact totals, vector impulses) from the monitor's collisions
 * (docs/hdf5-layout.md). Call after cr_monitor_finish, once; a file committed
 * without it has both, empty.
 */
CR_EXPORT int cr_store_write_collisions(cr_store *store, const cr_monitor *mon);

/**
 * Writes /final, /contacts, the rest of /events, the statistics, the end reason
 * and @p status ("complete", "interrupted", "failed"; with @p error the reason
 * of a failure, e.g. cr_system_last_error, stored with the failure time), closes
 * the file and, only when every write and the close succeeded, renames it into
 * place. A failed run keeps its file this way. On a write error nothing is
 * renamed, the temporary is removed and the file at the target is untouched.
 */
CR_EXPORT int cr_store_commit(cr_store *store, const char *status, const char *error);

/** Detaches and frees the store; an uncommitted temporary file is removed. Accepts NULL. */
CR_EXPORT void cr_store_destroy(cr_store *store);

CR_EXPORT const char *cr_store_last_error(const cr_store *store);
/** The path the committed file has (the target). */
CR_EXPORT const char *cr_store_path(const cr_store *store);
/** Stale temporaries renamed by cr_store_create (their new paths). */
CR_EXPORT size_t cr_store_recovered_count(const cr_store *store);
/** @return the new path of the k-th, or NULL out of range. */
CR_EXPORT const char *cr_store_recovered_path(const cr_store *store, size_t k);

/* ---- reading a run file back, and adding a comparison ----------------------- */

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

/** What a /comparison group records about how it was made. */
typedef struct {
    const char *source;  /**< the run file or model the episodes came from */
    const char *command; /**< the command line */
    /** --error-estimate: per compared episode the changes of α, κ, eᴺ, eᴾ at
     * rtol/100 (4 values each, largest over the contacts), or NULL */
    const double *accuracy;
    double estimate_rtol; /**< the rtol of the estimate run (NaN without) */
} cr_comparison_params;

/**
 * Writes @p target as a copy of the run file @p source (which may be the same
 * path) with a /comparison group (docs/hdf5-layout.md) replacing any older
 * one. The copy is made beside @p target and renamed over it only after a
 * clean close and fsync: @p target is never edited in place, and on failure
 * it is unchanged and no temporary is left. @return CR_OK, CR_ERR_IO or
 * CR_ERR_HDF5 with the reason in @p msg.
 */
CR_EXPORT int cr_store_write_comparison(const char *source, const char *target,
                                        const cr_compare *cmp, const cr_comparison_params *params,
                                        char *msg, size_t msglen);

/**
 * Writes @p target as a copy of the compliant run file @p source with a
 * /comparison group holding the run comparison of @p n rigid variants
 * (docs/hdf5-layout.md, "/comparison of runs": tables `runs` and
 * `run_summary`), replacing any older /comparison; as
 * cr_store_write_comparison, @p target is never edited in place. @p command
 * is recorded. @return CR_OK, CR_ERR_IO or CR_ERR_HDF5 with the reason in @p msg.
 */
CR_EXPORT int cr_store_write_run_comparison(const char *source, const char *target,
                                            const cr_runcmp_variant *variants, size_t n,
                                            const char *command, char *msg, size_t msglen);

#endif
