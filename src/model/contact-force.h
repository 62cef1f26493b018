/* The contact force and the overlap powers, inline for the engines' right-hand
 * sides (a call per contact per RHS was a quarter of an undamped chain's RHS);
 * contact.c exports the same functions (cr_contact_force, cr_pow_overlap). */
#ifndef CRADLE_CONTACT_FORCE_H
#define CRADLE_CONTACT_FORCE_H

#include <math.h>

#include "cradle/contact.h"

/* δᵉ for an overlap δ ≥ 0, with 0⁰ = 1 and the Hertz exponents through sqrt
 * (contact.c; cr_pow_overlap_inline below for the right-hand sides). */
double cr_pow_overlap(double delta, double e);

/* δᵐ with the convention 0⁰ = 1, so the linear dashpot (m = 0) is C δ̇. The
 * Hertz exponents (n = 3/2: δ^½, δ^{3/2}, δ^{5/2}) go through sqrt, which is
 * exactly rounded and five times cheaper than pow: pow was 15 % of a 5-ball
 * cradle's CPU. Both agree to an ulp or two. */
static inline double cr_pow_overlap_inline(double delta, double e)
{
    if (e == 1.5)
        return delta * sqrt(delta);
    if (e == 0.0)
        return 1.0;
    if (e == 1.0)
        return delta;
    if (e == 0.5)
        return sqrt(delta);
    if (e == 2.5)
        return delta * delta * sqrt(delta);
    if (e == 2.0)
        return delta * delta;
    return pow(delta, e);
}

/* K δⁿ + C δᵐ δ̇ for δ > 0, before any release rule. */
static inline double cr_contact_raw_force(const cr_contact_params *p, double delta,
                                          double delta_dot)
{
    double f = p->K * cr_pow_overlap_inline(delta, p->n);
    if (p->C != 0.0)
        f += p->C * cr_pow_overlap_inline(delta, p->m) * delta_dot;
    return f;
}

/* The sign of ḟ, the force's rate, while δ > 0: ḟ = ∂f/∂δ δ̇ + ∂f/∂δ̇ δ̈ with
 * δ̈ from the right-hand side. With a damping exponent m > 0, ∂f/∂δ holds
 * m C δᵐ⁻¹ δ̇, unbounded as δ → 0⁺; the function is then δ¹⁻ᵐ ḟ = n K δⁿ⁻ᵐ δ̇
 * + m C δ̇² + C δ δ̈, the same sign and bounded. Its downward crossings are
 * the force maxima the engines locate (CR_EVENT_MAX_FORCE). */
static inline double cr_contact_force_rate_function(const cr_contact_params *p, double delta,
                                                    double delta_dot, double delta_ddot)
{
    if (p->m == 0.0)
        return p->n * p->K * cr_pow_overlap_inline(delta, p->n - 1.0) * delta_dot +
               p->C * delta_ddot;
    return p->n * p->K * cr_pow_overlap_inline(delta, p->n - p->m) * delta_dot +
           p->m * p->C * delta_dot * delta_dot + p->C * delta * delta_ddot;
}

/* cr_contact_force (cradle/contact.h): 0 when open, and under the force
 * release rule never pulling. */
static inline double cr_contact_force_inline(const cr_contact_params *p, double delta,
                                             double delta_dot)
{
    if (delta <= 0.0)
        return 0.0;
    double f = cr_contact_raw_force(p, delta, delta_dot);
    if (p->release == CR_RELEASE_FORCE && f < 0.0)
        return 0.0;
    return f;
}

/* cr_contact_dissipation_rate with the contact's force f (cr_contact_force)
 * already at hand: f δ̇ − K δⁿ δ̇. Without a damper f is K δⁿ computed the same
 * way, so the rate is ±0 and is not computed (its f and δⁿ were 3 % of a
 * 5-ball cradle's run). */
static inline double cr_contact_dissipation_inline(const cr_contact_params *p, double f,
                                                   double delta, double delta_dot)
{
    if (delta <= 0.0 || p->C == 0.0)
        return 0.0;
    return (f - p->K * cr_pow_overlap_inline(delta, p->n)) * delta_dot;
}

#endif
