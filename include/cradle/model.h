/**
 * @file model.h
 * @brief A compliant multibody model: bodies on a line (a 1-D chain), what joins
 * each neighbouring pair (a unilateral contact law, a bilateral link, or both),
 * external fields, and the run settings a model file carries.
 *
 * Bodies are given in increasing position; pair c joins bodies c and c + 1.
 * A wall is a fixed body of zero radius (a floor, the wall a bead column hits):
 * it never moves and its mass does not enter any sum. The coordinate along the
 * line is the arc length for pendulum-suspended balls (contacts act along it:
 * exact when impacts happen at the bottom of the swing, as in a cradle).
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

/**
 * Appends a fixed wall at @p x (a body of zero radius that never moves).
 * @return its index (≥ 0), or a negative error code.
 */
CR_EXPORT int cr_model_add_wall(cr_model *model, double x);

/** A linear bilateral link (spring-dashpot) between the bodies of a pair. */
typedef struct {
    double k;      /**< stiffness, N/m (> 0) */
    double length; /**< rest distance between the centres, m */
    double c;      /**< damping, N s/m (≥ 0) */
} cr_link;

/** Links pair @p c; the pair's unilateral contact is switched off unless re-enabled. */
CR_EXPORT int cr_model_set_link(cr_model *model, size_t c, const cr_link *link);
/** Switches the unilateral contact of pair @p c on or off (on by default). */
CR_EXPORT int cr_model_set_contact_enabled(cr_model *model, size_t c, int enabled);
/** Uniform acceleration along +x (e.g. −9.81 for a column with x up), m/s². */
CR_EXPORT int cr_model_set_gravity(cr_model *model, double g);
/**
 * Hangs body @p i on a string of @p length from a pivot at arc coordinate
 * @p pivot, in a field @p g (> 0): acceleration −g sin((x − pivot)/length).
 */
CR_EXPORT int cr_model_set_pendulum(cr_model *model, size_t i, double pivot, double length,
                                    double g);

CR_EXPORT int cr_model_is_fixed(const cr_model *model, size_t i);
/** @return the link of pair @p c, or NULL. */
CR_EXPORT const cr_link *cr_model_link(const cr_model *model, size_t c);
CR_EXPORT int cr_model_contact_enabled(const cr_model *model, size_t c);
CR_EXPORT double cr_model_gravity(const cr_model *model);
/** @return 1 and the pendulum of body @p i, or 0 when it hangs on nothing. */
CR_EXPORT int cr_model_pendulum(const cr_model *model, size_t i, double *pivot, double *length,
                                double *g);
/** @return 1 when any external field acts (then runs need an end time). */
CR_EXPORT int cr_model_has_fields(const cr_model *model);

/**
 * Asks for the damping C of pair @p c to be solved so that the pair's contact has
 * restitution @p e at impact speed @p v (cr_calibrate_model does it).
 */
CR_EXPORT int cr_model_set_contact_target(cr_model *model, size_t c, double e, double v);
/** @return 1 and the target of pair @p c, or 0. */
CR_EXPORT int cr_model_contact_target(const cr_model *model, size_t c, double *e, double *v);

/** Sets the contact law used by every pair without its own. */
CR_EXPORT int cr_model_set_default_contact(cr_model *model, const cr_contact_params *p);
/** Sets the law of contact @p c (between balls c and c + 1); the balls must exist. */
CR_EXPORT int cr_model_set_contact(cr_model *model, size_t c, const cr_contact_params *p);

CR_EXPORT int cr_model_set_name(cr_model *model, const char *name);
CR_EXPORT void cr_model_set_settings(cr_model *model, const cr_settings *s);

CR_EXPORT const char *cr_model_name(const cr_model *model);
CR_EXPORT const cr_settings *cr_model_settings(const cr_model *model);
CR_EXPORT size_t cr_model_ball_count(const cr_model *model);
/** Number of pairs (contacts), ball_count − 1 (0 for an empty model). */
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
 * A new model holding bodies @p first … @p last of @p model, with their pair laws,
 * links, targets, pendulums, gravity and settings; positions and velocities from
 * @p x and @p v (last − first + 1 values each) or, when NULL, the originals.
 * The building block for advancing one contact cluster while the rest of a long
 * chain moves freely: a cluster's simulator is cr_sim_create of its sub-chain.
 * @return NULL on bad indices or out of memory.
 */
CR_EXPORT cr_model *cr_model_subchain(const cr_model *model, size_t first, size_t last,
                                      const double *x, const double *v);

/**
 * Checks the physics before anything is integrated: finite numbers, positive
 * masses and radii, increasing positions, no initial interpenetration beyond
 * CR_GEOM_TOL, valid contact laws and settings.
 * @return CR_OK, or CR_ERR_MODEL with a one-line reason in @p msg.
 */
CR_EXPORT int cr_model_validate(const cr_model *model, char *msg, size_t msglen);

#endif
