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
#include "cradle/model.h"
#include "cradle/monitor.h"
#include "cradle/system.h"

typedef struct cr_store cr_store;

/** Version of the layout written (the root attribute `format_version`). */
#define CR_STORE_FORMAT_VERSION 2

/**
 * Opens a new output for @p sys, built from @p model, and attaches to it as an
 * output listener (one /trajectory row per output time). @p model_text (may be
 * NULL) and @p model_path are archived so the file explains itself.
 * @return NULL on failure with the reason (path and cause) in @p msg.
 */
CR_EXPORT cr_store *cr_store_create(const char *path, cr_system *sys, const cr_model *model,
                                    const char *model_path, const char *model_text, char *msg,
                                    size_t msglen);

/** Appends the system's current state to /trajectory (the output listener does this). */
CR_EXPORT int cr_store_append_frame(cr_store *store);

/**
 * Writes /episodes (a table) and /episode/NNNN groups (records, bodies,
 * velocities, α matrix, kinetic cosines, M and W, vector impulses and normals
 * where dim > 1, event indices). Call after cr_monitor_finish.
 */
CR_EXPORT int cr_store_write_episodes(cr_store *store, const cr_monitor *mon);

/**
 * Writes /final, /contacts, /events, the statistics, the end reason and
 * @p status ("complete", "interrupted", "failed"; with @p error the reason of
 * a failure), closes the file and, only when it closed cleanly, renames it into
 * place.
 */
CR_EXPORT int cr_store_commit(cr_store *store, const char *status, const char *error);

/** Detaches and frees the store; an uncommitted temporary file is removed. Accepts NULL. */
CR_EXPORT void cr_store_destroy(cr_store *store);

CR_EXPORT const char *cr_store_last_error(const cr_store *store);
/** The path the committed file has (the target). */
CR_EXPORT const char *cr_store_path(const cr_store *store);

#endif
