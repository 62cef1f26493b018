/*
 * The fields' work over an episode (issue 21, item 6): on a damped pendulum
 * cradle the monitor's field_work of every episode equals −ΔV of the pendulum
 * suspension, V = m g L (1 − cos((s − pivot)/L)), computed here from the
 * episode's stored start and end positions (cr_monitor_positions) and the
 * model's pendulums; with it taken out, a damped group keeps κ ≤ 1 and a
 * dissipation ≥ 0 in every episode and every collision (a rigid impact law's
 * energetic coefficient cannot exceed 1 when the contacts dissipate).
 */
#include <math.h>
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

/* −ΔV of body i between positions s0 and s1 (arc lengths), the closed form
 * written as a difference of cosines through their product form. */
static double pendulum_work(const cr_model *model, size_t i, double m, double s0, double s1)
{
    double pivot, length, g;
    if (!cr_model_pendulum(model, i, &pivot, &length, &g))
        return 0.0;
    double a0 = (s0 - pivot) / length, a1 = (s1 - pivot) / length;
    /* V1 − V0 = m g L (cos a0 − cos a1) */
    return -2.0 * m * g * length * sin(0.5 * (a0 + a1)) * sin(0.5 * (a1 - a0));
}

static void damped_cradle(const char *file, double t_end)
{
    tu_case("%s", file);
    cr_model *model = tu_load_model(file);
    if (!model) {
        CHECK(0, "model %s", file);
        return;
    }
    cr_settings s = *cr_model_settings(model);
    s.rtol = 1e-12;
    s.atol = 1e-14;
    cr_model_set_settings(model, &s);
    cr_system *sys = tu_system(model);
    cr_monitor *mon = cr_monitor_create(sys);
    CHECK(cr_system_run(sys, t_end) == CR_OK, "%s: run: %s", file, cr_system_last_error(sys));
    CHECK(cr_monitor_finish(mon) == CR_OK, "%s: finish", file);

    size_t ne = cr_monitor_episode_count(mon), worst_ep = 0;
    double worst_w = 0.0, wmax = 0.0, kmax = -INFINITY, dmin = INFINITY;
    for (size_t k = 0; k < ne; k++) {
        cr_episode_info in;
        size_t n;
        cr_monitor_get_episode(mon, k, &in);
        const size_t *bodies = cr_monitor_bodies(mon, k, &n);
        const double *mass = cr_monitor_masses(mon, k, &n);
        const double *x0 = cr_monitor_positions(mon, k, 0, &n);
        const double *x1 = cr_monitor_positions(mon, k, 1, &n);
        double W = 0.0;
        for (size_t q = 0; q < n; q++)
            if (isfinite(mass[q]))
                W += pendulum_work(model, bodies[q], mass[q], x0[q], x1[q]);
        double err = fabs(in.field_work - W) / (fabs(W) + 1e-30);
        if (err > worst_w) {
            worst_w = err;
            worst_ep = k;
        }
        wmax = fmax(wmax, fabs(W));
        kmax = fmax(kmax, in.kappa);
        dmin = fmin(dmin, in.dissipated);
    }
    size_t nc = cr_monitor_collision_count(mon);
    double ckmax = -INFINITY, cdmin = INFINITY;
    for (size_t k = 0; k < nc; k++) {
        cr_collision_info c;
        cr_monitor_get_collision(mon, k, &c);
        ckmax = fmax(ckmax, c.kappa);
        cdmin = fmin(cdmin, c.dissipated);
    }
    printf("     %s to %g s at rtol 1e-12: %zu episodes, %zu collisions; field work up to %.3g J, "
           "= -dV to %.2e (episode %zu); kappa <= %.12f, dissipated >= %.3g J; collisions: "
           "kappa <= %.12f, dissipated >= %.3g J\n",
           file, t_end, ne, nc, wmax, worst_w, worst_ep, kmax, dmin, ckmax, cdmin);
    CHECK(ne >= 20 && wmax > 0.0, "%s: episodes under a field (%zu)", file, ne);
    /* the closed form against the engine's: roundoff only */
    CHECK_REF(worst_w <= 1e-12, "%s: field work = -dV of the pendulums (1e-12 relative): %.3g",
              file, worst_w);
    CHECK_INV(kmax <= 1.0 + 1e-9, "%s: every episode's kappa <= 1 + 1e-9: %.12f", file, kmax);
    CHECK_INV(dmin >= -1e-12, "%s: every episode dissipates >= -1e-12 J: %.3g", file, dmin);
    CHECK_INV(ckmax <= 1.0 + 1e-9, "%s: every collision's kappa <= 1 + 1e-9: %.12f", file, ckmax);
    CHECK_INV(cdmin >= -1e-12, "%s: every collision dissipates >= -1e-12 J: %.3g", file, cdmin);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

int main(void)
{
    damped_cradle("pendulum-cradle-5.yaml", 25.0);
    damped_cradle("pendulum-cradle-7.yaml", 25.0);
    return tu_finish("field-work");
}
