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

#include "cradle/calibrated.h"
#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/monitor.h"
#include "cradle/system.h"

typedef struct cr_store cr_store;

/** Version of the layout written (the root attribute `format_version`;
 * docs/hdf5-layout.md, "Format versions"). 3: the output a user chooses
 * (/trajectory's fields and column indices) and this round's additions. */
#define CR_STORE_FORMAT_VERSION 3
/** The oldest layout the readers (cr_run_file_open, cradle.read) accept: 2
 * differs from 3 only by what 3 adds. A newer version is refused. */
#define CR_STORE_FORMAT_OLDEST 2

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

/**
 * The monitor following the same run: /restart then holds only states taken
 * while it has no episode running (docs/hdf5-layout.md, "/restart"; without
 * it, the contacts alone decide). @p mon must outlive the store's run.
 */
CR_EXPORT void cr_store_set_monitor(cr_store *store, const cr_monitor *mon);

/**
 * Marks the file as the continuation of run file @p source from its restart
 * state at @p t0 s (root attributes continued_from, continued_at; written at
 * the next flush). @return CR_OK, or the store's error.
 */
CR_EXPORT int cr_store_note_continuation(cr_store *store, const char *source, double t0);

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
 * and @p status ("complete", "interrupted", "failed", or "mismatch": a
 * calibrated rigid run under `--strict` whose impacts did not all map; with @p error the reason
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

/**
 * A calibrated rigid run (cradle/calibrated.h): writes its mismatches as the
 * table /rigid_mismatches and their count as the root attribute
 * `rigid_mismatches` (docs/hdf5-layout.md), before cr_store_commit.
 * @return CR_OK or CR_ERR_HDF5.
 */
CR_EXPORT int cr_store_write_mismatches(cr_store *store, const cr_rigid_mismatch *m, size_t n);

#endif
