/*
 * The energy projection of a chain's window under `integration.accuracy`
 * (docs/design.md, "Global accuracy"). An explicit Runge-Kutta step neither
 * keeps nor loses energy exactly: its local error has a systematic part, and
 * on a pulse that crosses n contacts the amplitude, and with it the speed
 * (c ∝ v_max^(1/5) for Hertz), drifts by a fixed amount per contact, so the
 * pulse's timing error grows as n². The window's energy is conserved where
 * nothing dissipates (no damping, links or fields) and no force acts across
 * its boundary (the padding ahead, open contacts behind): here the engine
 * keeps its exact value, e_true, and brings the window's velocities back
 * onto it at every restart and rebuild (Hairer, Lubich & Wanner, Geometric
 * Numerical Integration, §IV.4: projection keeps the method's order).
 *
 * The correction scales the velocities relative to the window's centre of
 * mass, v ← v_cm + s (v − v_cm): the orthogonal projection (in the mass
 * metric) onto the energy level within the momentum level, so momentum stays
 * exact. e_true follows what enters and leaves: at a rebuild the bodies and
 * contacts that change sides carry their states' energy, so the new window's
 * e_true is its state's energy plus the old one's remaining defect.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>

/* The window state's energy in J: kinetic energy of its bodies, potential
 * energy of its contacts. */
double cr_sm_window_energy(const cr_sim *s)
{
    if (!s->y)
        return 0.0;
    const double *y = N_VGetArrayPointer(s->y);
    double E = 0.0;
    for (size_t k = 0; k < s->nint; k++)
        for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++)
            if (!s->fixed[i]) {
                double v = s->V * y[s->ybody[i] + 1];
                E += 0.5 * s->mass[i] * v * v;
            }
    for (size_t j = 0; j < s->nwc; j++) {
        size_t c = s->wcon[j];
        if (s->contact_on[c])
            E += cr_contact_energy(&s->law[c], s->L * y[s->yovl[c]]);
    }
    return E;
}

/* Brings the window's energy to e_true (see above). A correction larger than
 * CR_SM_MAX_PROJECTION of the kinetic energy is not an integration error: it
 * is refused, and the defect is kept for the next one. */
#define CR_SM_MAX_PROJECTION 1e-6

void cr_sm_project_energy(cr_sim *s)
{
    if (!s->conserve || !s->y)
        return;
    double *y = N_VGetArrayPointer(s->y);
    double M = 0.0, P = 0.0;
    for (size_t k = 0; k < s->nint; k++)
        for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++)
            if (!s->fixed[i]) {
                M += s->mass[i];
                P += s->mass[i] * y[s->ybody[i] + 1];
            }
    if (!(M > 0.0))
        return;
    double vcm = P / M, Krel = 0.0;
    for (size_t k = 0; k < s->nint; k++)
        for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++)
            if (!s->fixed[i]) {
                double u = s->V * (y[s->ybody[i] + 1] - vcm);
                Krel += 0.5 * s->mass[i] * u * u;
            }
    double dE = s->e_true - cr_sm_window_energy(s);
    if (!(Krel > 0.0) || !(fabs(dE) <= CR_SM_MAX_PROJECTION * Krel))
        return;
    double scale = sqrt(1.0 + dE / Krel);
    for (size_t k = 0; k < s->nint; k++)
        for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++)
            if (!s->fixed[i]) {
                double *v = &y[s->ybody[i] + 1];
                *v = vcm + scale * (*v - vcm);
            }
    s->projections++;
}
