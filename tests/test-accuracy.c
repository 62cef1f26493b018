/*
 * Traversal accuracy (issue 24, item 2): chains of 10³ and 10⁴ steel beads at
 * `integration.accuracy: 1e-6`, read from a model file, against an
 * independent reference: the discrete solitary wave of tests/refwave.h (a GSL
 * rk8pd integration of 200 beads in the chain's own scaled variables, its
 * speed fitted to the peaks of beads 80-160 and known to ~1e-14, extrapolated
 * along the chain). The run ends when the reference puts the velocity peak at
 * bead k = 0.9 N; the final velocities of every bead, and the time and
 * amplitude of bead k's velocity peak, must be within 1e-6 V of it (a time
 * error counts as the velocity error it makes on the pulse's steepest flank).
 * A damped 10-bead chain (BDF, no projection) against tests/refchain.h too.
 * About 3.5 s wall in the -O2 debug build on a shared machine (1.3 s CPU; the
 * 10⁴-bead run); `--short` skips it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/modelfile.h"
#include "cradle/system.h"
#include "refchain.h"
#include "refwave.h"
#include "testutil.h"

static const double R = 0.01, MASS = 0.0329, GAP = 1e-5, V0 = 1.0, E_MOD = 2.1e11, NU = 0.3;
static const double ACCURACY = 1e-6;

/* Hertz's stiffness of two equal spheres (Johnson 1985, §4.2):
 * K = (4/3) E* √R*, 1/E* = 2(1 − ν²)/E, R* = R/2. */
static double hertz_k(void)
{
    return 4.0 / 3.0 * E_MOD / (2.0 * (1.0 - NU * NU)) * sqrt(0.5 * R);
}

/* The model file's text: the chain generator, a striker 10 µm before n − 1
 * touching beads, the run's end and the accuracy. */
static cr_model *chain_model(size_t n, double t_end)
{
    char text[1024];
    snprintf(text, sizeof text,
             "chain:\n  count: %zu\n  mass: %.17g\n  radius: %.17g\n"
             "  striker: {count: 1, velocity: %.17g, gap: %.17g}\n"
             "contact:\n  material: {E: %.17g, nu: %.17g}\n  release: gap\n"
             "integration:\n  t_end: %.17g\n  accuracy: %g\n"
             "output: {fields: none}\n",
             n, MASS, R, V0, GAP, E_MOD, NU, t_end, ACCURACY);
    cr_model *m = NULL;
    char msg[512];
    if (cr_modelfile_parse(text, strlen(text), "traversal.yaml", &m, msg, sizeof msg) != CR_OK)
        fprintf(stderr, "traversal.yaml: %s\n", msg);
    return m;
}

/* Bead k's velocity peak from the run's end state, by one Newton step on its
 * acceleration a = (f_(k−1) − f_k)/m with the jerk from the contacts'
 * rates: the peak's time offset from the end, and its velocity. */
static void peak_from_end(cr_system *s, size_t k, double K, const double *v, double *dt,
                          double *vpeak)
{
    double f[2], fdot[2];
    for (int j = 0; j < 2; j++) {
        cr_contact_view w;
        cr_system_get_contact(s, k - 1 + (size_t)j, &w);
        double d = fmax(w.overlap, 0.0);
        f[j] = K * d * sqrt(d);
        fdot[j] = 1.5 * K * sqrt(d) * w.rate;
    }
    double a = (f[0] - f[1]) / MASS, jerk = (fdot[0] - fdot[1]) / MASS;
    *dt = -a / jerk;
    *vpeak = v[k] + a * *dt + 0.5 * jerk * *dt * *dt;
}

static void traversal(const refwave *w, size_t n)
{
    char label[64];
    snprintf(label, sizeof label, "%zu beads at accuracy %g", n, ACCURACY);
    tu_case("%s", label);
    double K = hertz_k();
    double dstar = pow(0.5 * MASS * V0 * V0 / K, 0.4), T = dstar / V0;
    size_t k = (size_t)(0.9 * (double)n);
    double t_end = GAP / V0 + T * refwave_peak_time(w, k);
    cr_model *m = chain_model(n, t_end);
    CHECK(m != NULL, "the model file with integration.accuracy parses");
    if (!m)
        return;
    cr_system *s = tu_system(m);
    CHECK(s && cr_system_run(s, t_end) == CR_OK, "the traversal runs");
    if (!s) {
        cr_model_destroy(m);
        return;
    }
    CHECK(cr_system_method(s) == CR_METHOD_ERK, "auto runs ERK under accuracy");
    double *v = malloc(n * sizeof(double));
    cr_system_get_velocities(s, v);
    /* every bead: near the pulse by the wave's translation, behind it as the
     * short chain left them (at rest or in free flight by then) */
    double err = 0.0;
    for (size_t i = 0; i < n; i++) {
        double ref = i + 60 >= k ? (i < k + 40 ? refwave_velocity(w, k, i) : 0.0)
                                 : (i + 60 < REFWAVE_J0 ? w->v[i] : 0.0);
        err = fmax(err, fabs(v[i] / V0 - ref));
    }
    printf("  %zu beads: max |v - v_ref| = %.2e V\n", n, err);
    CHECK_REF(err <= ACCURACY, "final velocities within 1e-6 V of the solitary-wave reference");
    /* the projection scales velocities about the window's centre of mass:
     * momentum stays exact, and energy is what it projects onto, less what
     * the wake's inelastic locks take (each below ½μ(100·rtol·V)²: 10⁻¹⁰ of
     * the energy at rtol 1e-7) */
    double p = 0.0, E = 0.0;
    for (size_t i = 0; i < n; i++) {
        p += MASS * v[i];
        E += 0.5 * MASS * v[i] * v[i];
    }
    for (size_t c = 0; c + 1 < n; c++) {
        cr_contact_view cv;
        cr_system_get_contact(s, c, &cv);
        double d = fmax(cv.overlap, 0.0);
        E += 0.4 * K * d * d * sqrt(d);
    }
    double E0 = 0.5 * MASS * V0 * V0;
    printf("  momentum balance %.1e, energy balance %.1e (relative)\n", p / (MASS * V0) - 1.0,
           E / E0 - 1.0);
    CHECK_INV(fabs(p / (MASS * V0) - 1.0) <= 1e-12, "momentum conserved");
    CHECK_INV(fabs(E / E0 - 1.0) <= 1e-7, "energy conserved (but for the locks)");
    double dt, vpeak;
    peak_from_end(s, k, K, v, &dt, &vpeak);
    printf("  bead %zu: peak time off by %.2e T (%.2e V on the steepest flank), amplitude by "
           "%.2e V\n",
           k, dt / T, fabs(dt / T) * w->amax, fabs(vpeak / V0 - w->v[REFWAVE_J0]));
    CHECK_REF(fabs(dt / T) * w->amax <= ACCURACY, "bead 0.9 N's peak time (reference: refwave)");
    CHECK_REF(fabs(vpeak / V0 - w->v[REFWAVE_J0]) <= ACCURACY,
              "bead 0.9 N's peak velocity (reference: refwave)");
    free(v);
    cr_system_destroy(s);
    cr_model_destroy(m);
}

/* A damped chain (Hunt-Crossley, f = K δ^(3/2) + C δ^(1/2) δ̇): no energy to
 * project, so auto runs BDF and the rule's rtol is ten times finer. Against
 * tests/refchain.h (classical RK4 at a fixed step, no events, its own error
 * estimate from the run at twice the step). */
static void damped_chain(void)
{
    enum { N = 10 };
    tu_case("damped 10-bead chain at accuracy 1e-6 (BDF)");
    double K = hertz_k(), dstar = pow(0.5 * MASS * V0 * V0 / K, 0.4), C = 0.1 * K * dstar / V0;
    double m[N], x[N], r[N], v[N];
    cr_model *model = cr_model_create();
    for (size_t i = 0; i < N; i++) {
        m[i] = MASS, r[i] = R, v[i] = i == 0 ? V0 : 0.0;
        x[i] = 2.0 * R * (double)i + (i > 0 ? GAP : 0.0);
        cr_model_add_ball(model, m[i], r[i], x[i], v[i]);
    }
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, C, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_settings set = *cr_model_settings(model);
    set.accuracy = ACCURACY;
    cr_model_set_settings(model, &set);
    double rtol, atol;
    cr_model_tolerances(model, &rtol, &atol);
    CHECK(rtol == 1e-8 && atol == 1e-10, "the rule's tolerances for a damped chain");
    cr_system *s = tu_system(model);
    CHECK(cr_system_run(s, 0.0) == CR_OK && cr_system_method(s) == CR_METHOD_BDF,
          "it runs, with BDF");
    double vc[N], vr[N], P[N], est;
    cr_system_get_velocities(s, vc);
    refchain ref;
    refchain_init(&ref, N, m, x, r, v, K, 1.5, C, 0);
    double h = refchain_step(&ref, V0, 4000.0);
    CHECK(refchain_final(&ref, h, 1e7 * h, vr, P, &est) > 0.0 && est <= 1e-7 * V0,
          "the RK4 reference ends, its error estimate below 1e-7 V");
    double err = 0.0;
    for (size_t i = 0; i < N; i++)
        err = fmax(err, fabs(vc[i] - vr[i]) / V0);
    printf("  damped chain: max |v - v_ref| = %.2e V (reference's estimate %.1e V)\n", err,
           est / V0);
    CHECK_REF(err <= ACCURACY, "final velocities within 1e-6 V of the RK4 reference");
    cr_system_destroy(s);
    cr_model_destroy(model);
}

/* Two groups of 100 beads 1 m apart, each struck by its own bead: the
 * groups exchange no force, so each keeps its own momentum. The projection
 * scales each group about its own centre of mass (sim-energy.c: one centre
 * for the window moved 2e-6 of the momentum from one group to the other). */
static void two_groups(void)
{
    enum { G = 100 };
    tu_case("two separated pulses at accuracy 1e-6");
    double K = hertz_k();
    cr_model *model = cr_model_create();
    /* group 0 struck at its right end towards −x, group 1 at its left end
     * towards +x: their pulses and the beads they shed move apart */
    for (size_t i = 0; i < G; i++)
        cr_model_add_ball(model, MASS, R, 2.0 * R * (double)i + (i + 1 == G ? GAP : 0.0),
                          i + 1 == G ? -V0 : 0.0);
    for (size_t i = 0; i < G; i++)
        cr_model_add_ball(model, MASS, R, 3.0 + 2.0 * R * (double)i + (i > 0 ? GAP : 0.0),
                          i == 0 ? 0.7 * V0 : 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_settings set = *cr_model_settings(model);
    set.accuracy = ACCURACY;
    cr_model_set_settings(model, &set);
    cr_system *s = tu_system(model);
    /* 4 ms: both pulses inside their groups; the groups meet only much later */
    CHECK(s && cr_system_run(s, 0.004) == CR_OK, "it runs");
    double v[2 * G], p[2] = {0.0, 0.0}, p0[2] = {-MASS * V0, 0.7 * MASS * V0};
    cr_system_get_velocities(s, v);
    for (size_t i = 0; i < 2 * G; i++)
        p[i / G] += MASS * v[i];
    for (size_t g = 0; g < 2; g++) {
        printf("  group %zu: momentum balance %.1e (relative)\n", g, p[g] / p0[g] - 1.0);
        CHECK_INV(fabs(p[g] / p0[g] - 1.0) <= 1e-12, "group %zu keeps its momentum", g);
    }
    CHECK_INV(fabs((p[0] + p[1]) - (p0[0] + p0[1])) <= 1e-12 * MASS * V0,
              "the total momentum stays exact");
    CHECK(cr_system_get_stats(s).projections > 0, "the projection ran (else this checks nothing)");
    cr_system_destroy(s);
    cr_model_destroy(model);
}

int main(int argc, char **argv)
{
    refwave w = {0};
    tu_case("reference");
    CHECK(refwave_build(&w) == 0, "the 200-bead reference integrates");
    /* a steady wave: the time per bead from the fit's two halves agrees, and
     * the peaks lie on a line */
    printf("reference: tau %.15g T per bead, halves differ by %.1e, residual %.1e T\n", w.tau,
           w.tau_diff, w.fit_res);
    CHECK_INV(fabs(w.tau_diff) <= 1e-12 * w.tau, "the solitary wave's speed is steady");
    CHECK_INV(w.fit_res <= 1e-10, "its peaks lie on a line");
    damped_chain();
    two_groups();
    traversal(&w, 1000);
    if (!(argc > 1 && strcmp(argv[1], "--short") == 0))
        traversal(&w, 10000);
    return tu_finish("test-accuracy");
}
