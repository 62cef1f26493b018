/**
 * @file calibrate.h
 * @brief Contact parameters from measurable targets, solved with compliant runs.
 *
 * The damping C that gives a single contact a target coefficient of
 * restitution at a reference impact speed is solved for (not taken from a
 * formula that only holds for another damping law): each trial C is a
 * two-body compliant run with the same law.
 */
#ifndef CRADLE_CALIBRATE_H
#define CRADLE_CALIBRATE_H

#include "cradle/common.h"
#include "cradle/contact.h"
#include "cradle/model.h"

/**
 * Restitution e = −γ⁺/γ⁻ of one contact with law @p law between bodies of reduced
 * mass @p mu meeting at relative speed @p v (0 if they never separate).
 */
CR_EXPORT int cr_calibrate_restitution(const cr_contact_params *law, double mu, double v, double *e,
                                       char *msg, size_t msglen);

/**
 * Two-body restitutions (cr_calibrate_restitution) computed once per distinct
 * key: the law's K, n, C, damping exponent m and release, the reduced mass μ
 * and the speed v, compared exactly (what determines the run). The comparator
 * owns one (cr_compare_restitution_cache) and the rigid runs' table provider
 * can share it (cr_table_chain3_cached). Not thread-safe: one per thread.
 */
typedef struct cr_restitution_cache cr_restitution_cache;

/** An empty cache; NULL when out of memory. */
CR_EXPORT cr_restitution_cache *cr_restitution_cache_create(void);
/** Frees the cache; accepts NULL. */
CR_EXPORT void cr_restitution_cache_destroy(cr_restitution_cache *c);
/**
 * cr_calibrate_restitution through the cache (@p c NULL: no cache, always a
 * run). A failed run is not kept. @return as cr_calibrate_restitution.
 */
CR_EXPORT int cr_restitution_cache_get(cr_restitution_cache *c, const cr_contact_params *law,
                                       double mu, double v, double *e, char *msg, size_t msglen);
/** Two-body runs made (misses) and answers served from the cache (hits); NULL allowed. */
CR_EXPORT void cr_restitution_cache_stats(const cr_restitution_cache *c, size_t *runs,
                                          size_t *hits);

/**
 * The damping coefficient C (law->C is ignored) for which that contact has
 * restitution @p e_target in (0, 1], to a relative 1e-10 in C.
 */
CR_EXPORT int cr_calibrate_damping(const cr_contact_params *law, double mu, double v,
                                   double e_target, double *C, char *msg, size_t msglen);

/**
 * Solves the damping of every pair of @p model that has a restitution target:
 * dim 1, each pair with cr_model_set_contact_target (C set on the pair; identical
 * neighbours share the answer); dim 2, the default target
 * (cr_model_set_default_target) for every pair without a damping of its own, one
 * solve per distinct law and reduced mass (pairs of body kinds, explicit pairs,
 * bodies against walls; cr_model_add_solved_damping), never per pair of discs.
 */
CR_EXPORT int cr_calibrate_model(cr_model *model, char *msg, size_t msglen);

#endif
