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
 * The correction scales the velocities of each group of the window relative
 * to the group's centre of mass, v ← v_cm,g + s (v − v_cm,g), one s for all:
 * the orthogonal projection (in the mass metric) onto the energy level within
 * every group's momentum level. A group is a run of bodies closer than a
 * radius to their neighbours: a pulse with the beads at rest ahead of it and
 * its wake, whose momentum the scaling shares (the pulse's amplitude drift is
 * the error it corrects: scaling only the bodies in touch leaves it, and the
 * 10⁴-bead traversal then misses 1e-6), while two pulses far apart keep their
 * own momenta (one centre for the window moved 2e-6 of it between them,
 * tests/test-accuracy.c).
 *
 * e_true follows what enters and leaves: at a rebuild the bodies and contacts
 * that change sides carry their states' energy, so the new window's e_true is
 * its state's energy plus the old one's remaining defect.
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

/* The last body of the group that starts at body a (≤ hi): neighbours closer
 * than the smaller radius of the two are in one group (a pulse, the beads at
 * rest ahead of it, its wake); a wider gap parts two groups. */
static size_t group_end(const cr_sim *s, size_t a, size_t hi)
{
    while (a < hi && s->contact_on[a] &&
           s->L * cr_sm_ovl_now(s, a) > -fmin(s->radius[a], s->radius[a + 1]))
        a++;
    return a;
}

/* The centre-of-mass velocity (scaled) and mass of the free bodies a … b. */
static double group_vcm(const cr_sim *s, const double *y, size_t a, size_t b, double *mass)
{
    double M = 0.0, P = 0.0;
    for (size_t i = a; i <= b; i++)
        if (!s->fixed[i]) {
            M += s->mass[i];
            P += s->mass[i] * y[s->ybody[i] + 1];
        }
    *mass = M;
    return M > 0.0 ? P / M : 0.0;
}

/* Every group of the window scaled about its own centre of mass by @p scale,
 * or (scale < 0) their kinetic energy relative to those centres, in J. */
static double scale_groups(cr_sim *s, double *y, double scale)
{
    double Krel = 0.0;
    for (size_t k = 0; k < s->nint; k++)
        for (size_t a = s->ilo[k], b; a <= s->ihi[k]; a = b + 1) {
            b = group_end(s, a, s->ihi[k]);
            double M, vcm = group_vcm(s, y, a, b, &M);
            for (size_t i = a; M > 0.0 && i <= b; i++) {
                if (s->fixed[i])
                    continue;
                double *v = &y[s->ybody[i] + 1], u = s->V * (*v - vcm);
                if (scale < 0.0)
                    Krel += 0.5 * s->mass[i] * u * u;
                else
                    *v = vcm + scale * (*v - vcm);
            }
        }
    return Krel;
}

void cr_sm_project_energy(cr_sim *s)
{
    if (!s->conserve || !s->y)
        return;
    double *y = N_VGetArrayPointer(s->y), Krel = scale_groups(s, y, -1.0);
    double dE = s->e_true - cr_sm_window_energy(s);
    if (!(Krel > 0.0) || !(fabs(dE) <= CR_SM_MAX_PROJECTION * Krel)) {
        s->projections_refused += dE != 0.0;
        return;
    }
    scale_groups(s, y, sqrt(1.0 + dE / Krel));
    s->projections++;
    s->projected_energy += fabs(dE);
}
