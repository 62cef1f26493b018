/* The contact law both independent references of the tests integrate
 * (refchain.h: chains, refpool.h: discs), written here once and independently
 * of src/model/contact-force.h: f = K δ^e + C δ^dm δ̇ on an overlap δ > 0,
 * clipped at 0 under force release. */
#ifndef CRADLE_REFFORCE_H
#define CRADLE_REFFORCE_H

#include <math.h>

/* d^p, with the Hertz powers through sqrt (pow is the cost of a long chain). */
static inline double ref_pow(double d, double p)
{
    if (p == 1.5)
        return d * sqrt(d);
    if (p == 0.5)
        return sqrt(d);
    if (p == 1.0)
        return d;
    if (p == 0.0)
        return 1.0;
    return pow(d, p);
}

/* The law's force before clipping, at overlap d > 0 and rate dd. */
static inline double ref_force_raw(double K, double e, double C, double dm, double d, double dd)
{
    double f = K * ref_pow(d, e);
    if (C != 0.0)
        f += C * ref_pow(d, dm) * dd;
    return f;
}

/* The force a contact transmits: 0 without overlap, clipped at 0 under force
 * release. */
static inline double ref_force(double K, double e, double C, double dm, int force_release, double d,
                               double dd)
{
    if (!(d > 0.0))
        return 0.0;
    double f = ref_force_raw(K, e, C, dm, d, dd);
    return force_release && f < 0.0 ? 0.0 : f;
}

#endif
