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
