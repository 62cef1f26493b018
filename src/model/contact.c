#include "cradle/contact.h"

#include <math.h>
#include <string.h>

#include "model/contact-force.h"
#include "base/base.h"

void cr_contact_params_init(cr_contact_params *p, double K, double n, double C, cr_release release)
{
    p->K = K;
    p->n = n;
    p->C = C;
    p->m = n - 1.0;
    p->release = release;
}

int cr_contact_params_check(const cr_contact_params *p)
{
    if (!p || !isfinite(p->K) || !isfinite(p->n) || !isfinite(p->C) || !isfinite(p->m))
        return CR_ERR_INVALID;
    if (p->K <= 0.0 || p->n < 1.0 || p->C < 0.0 || p->m < 0.0)
        return CR_ERR_INVALID;
    if (p->release != CR_RELEASE_GAP && p->release != CR_RELEASE_FORCE)
        return CR_ERR_INVALID;
    return CR_OK;
}

double cr_pow_overlap(double delta, double e)
{
    return cr_pow_overlap_inline(delta, e);
}

double cr_contact_force(const cr_contact_params *p, double delta, double delta_dot)
{
    return cr_contact_force_inline(p, delta, delta_dot);
}

void cr_contact_partials(const cr_contact_params *p, double delta, double delta_dot,
                         double delta_floor, double *df_ddelta, double *df_ddot)
{
    *df_ddelta = 0.0;
    *df_ddot = 0.0;
    if (delta <= 0.0)
        return;
    if (p->release == CR_RELEASE_FORCE && cr_contact_raw_force(p, delta, delta_dot) < 0.0)
        return;
    *df_ddelta = p->n * p->K * cr_pow_overlap(delta, p->n - 1.0);
    if (p->C != 0.0) {
        *df_ddot = p->C * cr_pow_overlap(delta, p->m);
        if (p->m != 0.0) {
            double d = delta > delta_floor ? delta : delta_floor;
            *df_ddelta += p->m * p->C * cr_pow_overlap(d, p->m - 1.0) * delta_dot;
        }
    }
}

double cr_contact_release_function(const cr_contact_params *p, double delta, double delta_dot,
                                   double delta_scale)
{
    double q = fmin(p->n, p->m), ek = p->n - q, ec = p->m - q;
    double raw = p->K * cr_pow_overlap(delta, ek) + p->C * cr_pow_overlap(delta, ec) * delta_dot;
    return raw / (p->K * cr_pow_overlap(delta_scale, ek));
}

int cr_contact_force_jumps(const cr_contact_params *p, int closing)
{
    return p->C > 0.0 && p->m == 0.0 && (closing || p->release == CR_RELEASE_GAP);
}

double cr_contact_energy(const cr_contact_params *p, double delta)
{
    if (delta <= 0.0)
        return 0.0;
    return p->K * cr_pow_overlap(delta, p->n + 1.0) / (p->n + 1.0);
}

double cr_contact_dissipation_rate(const cr_contact_params *p, double delta, double delta_dot)
{
    /* Power into the contact minus the rate of stored elastic energy:
     * f δ̇ − K δⁿ δ̇. Loaded, that is the damper's C δᵐ δ̇²; released under the
     * `force` convention (f = 0 while δ > 0) it is the elastic energy the
     * contact abandons, so that T + U + W stays constant in both conventions. */
    return cr_contact_dissipation_inline(p, cr_contact_force_inline(p, delta, delta_dot), delta,
                                         delta_dot);
}

double cr_contact_hertz_stiffness(double E1, double nu1, double R1, double E2, double nu2,
                                  double R2)
{
    double inv_E = (1.0 - nu1 * nu1) / E1 + (1.0 - nu2 * nu2) / E2;
    double inv_R = 1.0 / R1 + (isinf(R2) ? 0.0 : 1.0 / R2);
    return 4.0 / 3.0 / inv_E * sqrt(1.0 / inv_R);
}

const char *cr_release_name(cr_release r)
{
    return r == CR_RELEASE_FORCE ? "force" : "gap";
}

int cr_release_from_name(const char *name, cr_release *out)
{
    if (name && strcmp(name, "gap") == 0) {
        *out = CR_RELEASE_GAP;
        return CR_OK;
    }
    if (name && strcmp(name, "force") == 0) {
        *out = CR_RELEASE_FORCE;
        return CR_OK;
    }
    return CR_ERR_INVALID;
}
