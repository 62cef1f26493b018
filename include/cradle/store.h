/**
 * @file store.h
 * @brief HDF5 output of a compliant run (layout in docs/hdf5-layout.md).
 *
 * The file is written under a temporary name beside the target and renamed
 * into place by cr_store_commit, so an interrupted or failed run never leaves
 * a half-written file under the requested name.
 */
#ifndef CRADLE_STORE_H
#define CRADLE_STORE_H

#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/monitor.h"
#include "cradle/pool.h"
#include "cradle/sim.h"

typedef struct cr_store cr_store;

/**
 * Opens a new output for @p sim's model. @p model_text (may be NULL) and
 * @p model_path are archived as attributes so the file explains itself.
 * @return NULL on failure with the reason in @p msg.
 */
CR_EXPORT cr_store *cr_store_create(const char *path, const cr_model *model,
                                    const char *model_path, const char *model_text,
                                    char *msg, size_t msglen);

/** Appends the simulator's current state to /trajectory (use it as the output callback body). */
CR_EXPORT int cr_store_append_frame(cr_store *store, const cr_sim *sim);

/** cr_sim_output_fn adapter: @p user is the cr_store. */
CR_EXPORT int cr_store_output_callback(const cr_sim *sim, void *user);

/**
 * Writes /episodes (a table) and /episode/NNNN groups (per-contact records,
 * velocities, α matrix, kinetic angles, M and W, event indices); see
 * docs/hdf5-layout.md. Call after cr_monitor_finish, before cr_store_commit.
 */
CR_EXPORT int cr_store_write_episodes(cr_store *store, const cr_monitor *mon);

/**
 * Writes /events, the run's statistics and @p status ("complete", "interrupted")
 * as attributes, closes the file and renames it into place.
 */
CR_EXPORT int cr_store_commit(cr_store *store, const cr_sim *sim, const char *status);

/** Frees the store; when not committed, the temporary file is removed. Accepts NULL. */
CR_EXPORT void cr_store_destroy(cr_store *store);

CR_EXPORT const char *cr_store_last_error(const cr_store *store);

/**
 * A pool's output, streamed like a chain's: /trajectory/time, position and
 * velocity (T × 2N: x₀, y₀, x₁, …), kinetic_energy, potential_energy,
 * dissipated_work; committed with the final state, contacts, events and
 * episodes by cr_store_commit_pool (temporary file and rename, as for chains).
 */
CR_EXPORT cr_store *cr_store_create_pool(const char *path, const cr_pool *pool,
                                         const char *model_path, const char *model_text,
                                         char *msg, size_t msglen);
CR_EXPORT int cr_store_append_pool_frame(cr_store *store, const cr_pool *pool);
/** cr_pool_output_fn adapter: @p user is the cr_store. */
CR_EXPORT int cr_store_pool_output_callback(const cr_pool *pool, void *user);
CR_EXPORT int cr_store_commit_pool(cr_store *store, const cr_pool *pool,
                                   const cr_pool_monitor *mon, const char *status);

/**
 * Writes the result of a pool run to @p path (atomically: temporary file and
 * rename): /final/position and /final/velocity (N × 2), /contacts (pairs with
 * their scalar and vector impulses; j < 0 is wall −1 − j), /events, the model
 * text, and with a monitor /episodes and /episode/NNNN. Layout in docs/hdf5-layout.md ("Pools").
 */
CR_EXPORT int cr_store_write_pool(const char *path, const cr_pool *pool,
                                  const cr_pool_monitor *mon, const char *model_path,
                                  const char *model_text, const char *status, char *msg,
                                  size_t msglen);

#endif
