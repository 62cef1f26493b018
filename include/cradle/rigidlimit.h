/**
 * @file rigidlimit.h
 * @brief The rigid limit of one impact episode: the episode rerun with every
 * contact stiffness multiplied by aᵏ, k = 0 … levels − 1, and its impulse
 * ratios, restitution and κ extrapolated to K → ∞ (docs/compare.md, "The
 * rigid limit"; src/compare/compare-rigid-limit.c). Unlike the comparator it
 * runs simulations of its own.
 */
#ifndef CRADLE_RIGIDLIMIT_H
#define CRADLE_RIGIDLIMIT_H

#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/monitor.h"

/** Most stiffness levels cr_compare_rigid_limit runs. */
#define CR_RIGID_LIMIT_MAX_LEVELS 8
/**
 * Level-to-level changes below this (relative to max(1, |q|); residuals below
 * it) are the integration's noise at the default rtol: no order or exponent is
 * given (NaN).
 */
#define CR_RIGID_LIMIT_NOISE 1e-9

/** Stiffness levels: Kₖ = aᵏ K for k = 0 … levels − 1 (a plain input struct). */
typedef struct {
    size_t levels; /**< 3 … CR_RIGID_LIMIT_MAX_LEVELS (default 5) */
    double ratio;  /**< a > 1 (default 10) */
} cr_rigid_limit_options;

/** @return the defaults: 5 levels, a = 10 (K … 10⁴ K). */
CR_EXPORT cr_rigid_limit_options cr_rigid_limit_defaults(void);

/**
 * An episode's configuration rerun at stiffer contacts and extrapolated to
 * K → ∞ (docs/compare.md, "The rigid limit"). Small parameter h = (Kₖ/K)^(−1/(n+1)):
 * overlaps, durations and the turn of a pool's normals during the episode all
 * scale with it. Arrays are allocated by cr_compare_rigid_limit; free with
 * cr_rigid_limit_free.
 */
typedef struct {
    size_t levels, contacts, dofs;            /**< contacts: the episode's records, in its order */
    double n;                                 /**< the contacts' stiffness exponent (one value) */
    double factor[CR_RIGID_LIMIT_MAX_LEVELS]; /**< Kₖ / K */
    double h[CR_RIGID_LIMIT_MAX_LEVELS];      /**< (Kₖ/K)^(−1/(n+1)) */
    double duration[CR_RIGID_LIMIT_MAX_LEVELS]; /**< episode duration, s */
    /** first-touch-W momentum residual ‖M(u⁺ − u⁻) − W P‖ / ‖W P‖ (W: normals at
     * joining; Euclidean over the dofs): how far the run is from the rigid
     * laws' geometry */
    double residual[CR_RIGID_LIMIT_MAX_LEVELS];
    double *alpha;    /**< levels × contacts: α at each level (NaN: contact absent) */
    double *velocity; /**< levels × dofs: u⁺ at each level (the episode's bodies) */
    double *alpha_limit, *velocity_limit; /**< extrapolated to h = 0 (Richardson) */
    double alpha_accuracy;    /**< max |change| of α's limit from its previous column */
    double velocity_accuracy; /**< the same for u⁺, m/s */
    /** observed orders in h from the last three levels: log(‖q₁ − q₂‖/‖q₂ − q₃‖)/log(h₁/h₂)
     * (max norms; NaN when the levels agree to CR_RIGID_LIMIT_NOISE) */
    double alpha_order, velocity_order;
    /** slopes d log(·)/d log K between the last two levels (theory: −1/(n+1) for
     * both with turning normals; the residual is ~0 with frozen ones, and its
     * exponent NaN below CR_RIGID_LIMIT_NOISE) */
    double duration_exponent, residual_exponent;
} cr_rigid_limit;

/**
 * Reruns episode @p ep of a run of @p model (dim 2 or 3, calibrated: each pair's
 * solved damping is used) at stiffness levels Kₖ = aᵏ K, scaling every pair
 * law's C by (aᵏ)^((m+1)/(n+1)) so that each pair's restitution stays the
 * same: the bodies of the episode at their state at its start (the model is
 * run to t_start first), the walls it touches, the model's settings (frozen
 * normals included). Each level's first episode is matched to @p ep by its
 * contacts' bodies. @p opt NULL: the defaults.
 * @return CR_OK; CR_ERR_INVALID (a chain, contacts with different n, a level
 * without the episode's contacts) or a run's error, with the reason in @p msg.
 */
CR_EXPORT int cr_compare_rigid_limit(const cr_model *model, const cr_episode_data *ep,
                                     const cr_rigid_limit_options *opt, cr_rigid_limit *out,
                                     char *msg, size_t msglen);
/** Frees the arrays of @p r (accepts a zeroed struct). */
CR_EXPORT void cr_rigid_limit_free(cr_rigid_limit *r);

#endif
