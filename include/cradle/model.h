/**
 * @file model.h
 * @brief A compliant multibody model: balls on a line (a 1-D chain), the contact
 * law of each neighbouring pair, and the run settings a model file carries.
 *
 * Balls are given in increasing position; contact c joins balls c and c + 1.
 * The module knows nothing about CVODE or HDF5.
 */
#ifndef CRADLE_MODEL_H
#define CRADLE_MODEL_H

#include "cradle/common.h"
#include "cradle/contact.h"

/** Integration method of the compliant run. */
typedef enum { CR_METHOD_BDF = 0, CR_METHOD_ADAMS = 1 } cr_method;

/** Run settings carried by a model file (a plain input struct). */
typedef struct {
    double t_end;           /**< end time in s; ≤ 0: automatic (see cr_sim_run) */
    double rtol;            /**< CVODE relative tolerance */
    double atol;            /**< absolute tolerance on the scaled state (overlap / δ*, v / V) */
    double output_interval; /**< trajectory sampling interval in s; ≤ 0: automatic */
    cr_method method;       /**< BDF (default) or Adams */
} cr_settings;

typedef struct cr_model cr_model;

/** Relative geometric tolerance ε_geom: |δ| ≤ CR_GEOM_TOL·min(rᵢ, rⱼ) counts as touching. */
#define CR_GEOM_TOL 1e-9

/** @return the default settings: automatic end, rtol 1e-10, atol 1e-12, BDF. */
CR_EXPORT cr_settings cr_settings_default(void);

/** @return a new empty model, or NULL when out of memory. */
CR_EXPORT cr_model *cr_model_create(void);
/** Frees a model; accepts NULL. */
CR_EXPORT void cr_model_destroy(cr_model *model);

/**
 * Appends a ball. Balls must come in increasing position.
 * @return the ball's index (≥ 0), or a negative error code.
 */
CR_EXPORT int cr_model_add_ball(cr_model *model, double mass, double radius, double x, double v);

/** Sets the contact law used by every pair without its own. */
CR_EXPORT int cr_model_set_default_contact(cr_model *model, const cr_contact_params *p);
/** Sets the law of contact @p c (between balls c and c + 1); the balls must exist. */
CR_EXPORT int cr_model_set_contact(cr_model *model, size_t c, const cr_contact_params *p);

CR_EXPORT int cr_model_set_name(cr_model *model, const char *name);
CR_EXPORT void cr_model_set_settings(cr_model *model, const cr_settings *s);

CR_EXPORT const char *cr_model_name(const cr_model *model);
CR_EXPORT const cr_settings *cr_model_settings(const cr_model *model);
CR_EXPORT size_t cr_model_ball_count(const cr_model *model);
/** Number of contacts, ball_count − 1 (0 for an empty model). */
CR_EXPORT size_t cr_model_contact_count(const cr_model *model);
CR_EXPORT double cr_model_mass(const cr_model *model, size_t i);
CR_EXPORT double cr_model_radius(const cr_model *model, size_t i);
CR_EXPORT double cr_model_position(const cr_model *model, size_t i);
CR_EXPORT double cr_model_velocity(const cr_model *model, size_t i);
/** Contact law of contact @p c (its own or the default). */
CR_EXPORT const cr_contact_params *cr_model_contact(const cr_model *model, size_t c);
/**
 * Initial overlap of contact @p c, rᵢ + rᵢ₊₁ − (xᵢ₊₁ − xᵢ); snapped to exactly 0
 * when within the touching tolerance, so touching balls stay touching.
 */
CR_EXPORT double cr_model_initial_overlap(const cr_model *model, size_t c);

/**
 * Checks the physics before anything is integrated: finite numbers, positive
 * masses and radii, increasing positions, no initial interpenetration beyond
 * CR_GEOM_TOL, valid contact laws and settings.
 * @return CR_OK, or CR_ERR_MODEL with a one-line reason in @p msg.
 */
CR_EXPORT int cr_model_validate(const cr_model *model, char *msg, size_t msglen);

#endif
