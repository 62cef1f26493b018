/**
 * @file contact.h
 * @brief The compliant normal contact law f = K δⁿ + C δᵐ δ̇ (m = n − 1 by default).
 *
 * Acary & Taha 2005 (eq. 20). δ is the overlap (positive when
 * the bodies interpenetrate), δ̇ > 0 is compression. The module knows nothing about
 * bodies: it maps (δ, δ̇) to a force and its partial derivatives.
 */
#ifndef CRADLE_CONTACT_H
#define CRADLE_CONTACT_H

#include "cradle/common.h"

/** How a contact lets go (ARCHITECTURE.md, "Two release conventions"). */
typedef enum {
    /** force applied while δ > 0; it may turn tensile near the end */
    CR_RELEASE_GAP = 0,
    /** no tension: f = max(0, K δⁿ + C δᵐ δ̇) while δ > 0 */
    CR_RELEASE_FORCE = 1
} cr_release;

/** Parameters of one contact law (a plain input struct). */
typedef struct {
    double K;           /**< stiffness, N/mⁿ */
    double n;           /**< stiffness exponent (3/2 Hertz, 1 linear), n ≥ 1 */
    double C;           /**< damping coefficient, N s/m^(m+1) */
    double m;           /**< damping exponent, default n − 1 */
    cr_release release; /**< release convention */
} cr_contact_params;

/** Fills @p p with f = K δⁿ + C δⁿ⁻¹ δ̇ (damping exponent n − 1). */
CR_EXPORT void cr_contact_params_init(cr_contact_params *p, double K, double n, double C,
                                      cr_release release);

/** @return CR_OK when K > 0, n ≥ 1, C ≥ 0, m ≥ 0 and all are finite. */
CR_EXPORT int cr_contact_params_check(const cr_contact_params *p);

/** Contact force for overlap @p delta and rate @p delta_dot; 0 when δ ≤ 0. */
CR_EXPORT double cr_contact_force(const cr_contact_params *p, double delta, double delta_dot);

/**
 * Partial derivatives ∂f/∂δ and ∂f/∂δ̇ for the integrator's Jacobian.
 *
 * The damping part of ∂f/∂δ, m C δᵐ⁻¹ δ̇, is unbounded as δ → 0⁺ when m < 1: it is
 * evaluated with δ replaced by max(δ, @p delta_floor). Newton iterations only need
 * an approximate Jacobian, so this changes the cost, never the answer.
 */
CR_EXPORT void cr_contact_partials(const cr_contact_params *p, double delta, double delta_dot,
                                   double delta_floor, double *df_ddelta, double *df_ddot);

/**
 * A root function for the `force` release: the un-clipped law K δⁿ + C δᵐ δ̇ with
 * δ^min(n, m) divided out, scaled by K δ*^(n − min) to be of order one. It
 * changes sign exactly where the clipped force reaches 0 or turns positive
 * again, and unlike K δⁿ itself it does not underflow to an exact 0 at the tiny
 * overlaps of a wave front (an exact zero stops CVODE's root finding). δ > 0.
 */
CR_EXPORT double cr_contact_release_function(const cr_contact_params *p, double delta,
                                             double delta_dot, double delta_scale);

/**
 * 1 when the force jumps as δ crosses 0: a damper with no overlap factor
 * (m = 0, C > 0) acts with C δ̇ ≠ 0 at δ = 0⁺. At closing always; at opening only
 * under the `gap` convention (under `force` the force is 0 there already).
 * Integrators restart at such crossings and nowhere else.
 */
CR_EXPORT int cr_contact_force_jumps(const cr_contact_params *p, int closing);

/** Elastic energy stored in the contact, K δⁿ⁺¹ / (n + 1) for δ > 0. */
CR_EXPORT double cr_contact_energy(const cr_contact_params *p, double delta);

/**
 * Rate of energy loss in the contact, f δ̇ − K δⁿ δ̇ (≥ 0): the damper's C δᵐ δ̇²
 * while loaded, and under the `force` convention, while released with δ > 0,
 * the elastic energy left behind (−K δⁿ δ̇).
 */
CR_EXPORT double cr_contact_dissipation_rate(const cr_contact_params *p, double delta,
                                             double delta_dot);

/**
 * Hertz stiffness of two spheres: K = (4/3) E* √R*, with
 * 1/E* = (1−ν₁²)/E₁ + (1−ν₂²)/E₂ and 1/R* = 1/R₁ + 1/R₂.
 * A flat wall is R₂ = INFINITY.
 */
CR_EXPORT double cr_contact_hertz_stiffness(double E1, double nu1, double R1, double E2, double nu2,
                                            double R2);

/** @return "gap" or "force". */
CR_EXPORT const char *cr_release_name(cr_release r);

/** Parses "gap" / "force"; @return CR_OK or CR_ERR_INVALID. */
CR_EXPORT int cr_release_from_name(const char *name, cr_release *out);

#endif
