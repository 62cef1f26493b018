/*
 * The monitor's impact configuration of planar rigid bodies (issue 25, item 2):
 * M = diag(m, m, J) per body in the lab frame, W's columns (n, r × n).
 *
 *  (a) Pandrea's bar on two supports (seed paper 004, fig. 3; the seeds README
 *      errata; models/pandrea-bar.yaml, path in argv[1]): the (M, W, u⁻) the
 *      monitor records for the compliant bar's episode equals M = diag(12, 12,
 *      4), W from the supports at a = b = 0.5 m either side of O and
 *      u⁻ = (0, −10, 2), written here from the paper; Newton's law with
 *      k = 0.7 on the monitored configuration gives the paper's P = (115.6,
 *      88.4) N s, ω_z = −1.4 rad/s, V_y = 7 m/s to 1e-10;
 *  (b) a dumbbell striking a wall at one disc, axis parallel to the wall: the
 *      monitor's m_eff = 1/(wᵀM⁻¹w) equals 1/(1/m + r⊥²/J) to 1e-14;
 *  (c) the comparator on the bar's episode: T⁻ = ½ m v² + ½ J ω² = 608 J
 *      (the paper's data), the comparator's configuration is the monitor's,
 *      and its reference u⁺ = (V, ω) at the episode's end gives the T⁺ the
 *      monitor took from the engine, ½ m |V|² + ½ J ω².
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

/* Runs @p s to @p t with a monitor; the configuration of its first episode. */
static cr_impact *first_impact(cr_system *s, double t)
{
    cr_monitor *mon = cr_monitor_create(s);
    CHECK(mon != NULL, "monitor created");
    if (!mon)
        return NULL;
    int rc = cr_system_run(s, t);
    CHECK(rc == CR_OK, "run: %s", cr_system_last_error(s));
    cr_monitor_finish(mon);
    CHECK(cr_monitor_episode_count(mon) >= 1, "an episode (%zu)", cr_monitor_episode_count(mon));
    cr_impact *imp = cr_monitor_episode_count(mon) ? cr_monitor_impact(mon, 0) : NULL;
    cr_monitor_destroy(mon);
    return imp;
}

static void pandrea_bar(const char *path)
{
    tu_case("Pandrea's bar: monitored (M, W, u-)");
    cr_model *model = NULL;
    char msg[512];
    CHECK(cr_modelfile_load(path, &model, NULL, msg, sizeof msg) == CR_OK, "%s: %s", path, msg);
    cr_system *s = model ? cr_system_create(model, msg, sizeof msg) : NULL;
    CHECK(s != NULL, "system: %s", s ? "" : msg);
    cr_impact *imp = s ? first_impact(s, cr_model_settings(model)->t_end) : NULL;
    CHECK(imp && cr_impact_dof_count(imp) == 3 && cr_impact_contact_count(imp) == 2,
          "one body of 3 dofs, two contacts");
    if (imp && cr_impact_dof_count(imp) == 3 && cr_impact_contact_count(imp) == 2) {
        /* the paper: m = 12 kg, J = m l²/3 = 4 kg m², supports at x = ∓0.5 m,
         * normal +y, v = −10 m/s, ω = 2 rad/s; (r × n)_z = r_x */
        const double Mref[9] = {12, 0, 0, 0, 12, 0, 0, 0, 4};
        const double Wref[6] = {0, 0, 1, 1, -0.5, 0.5}, uref[3] = {0, -10, 2};
        double M[9], W[6], u[3], dM = 0, dW = 0, du = 0;
        cr_impact_get_mass(imp, M);
        cr_impact_get_gradients(imp, W);
        cr_impact_get_velocity(imp, u);
        for (int i = 0; i < 9; i++)
            dM = fmax(dM, fabs(M[i] - Mref[i]) / 12.0);
        for (int i = 0; i < 6; i++)
            dW = fmax(dW, fabs(W[i] - Wref[i]));
        for (int i = 0; i < 3; i++)
            du = fmax(du, fabs(u[i] - uref[i]) / 10.0);
        CHECK_REF(dM <= 1e-15 && dW <= 1e-15 && du <= 1e-15,
                  "M = diag(12, 12, 4), W from a = b = 0.5 m, u- = (0, -10, 2) (paper 004 fig. 3): "
                  "max rel. differences %.2e %.2e %.2e",
                  dM, dW, du);
        tu_case("Pandrea's bar: Newton k = 0.7 on the monitored configuration");
        cr_law_params p;
        cr_law_params_init(&p);
        p.restitution = 0.7;
        cr_law_result *res = cr_law_result_create();
        int rc = cr_law_solve(imp, CR_LAW_NEWTON, &p, res);
        CHECK(rc == CR_OK && cr_law_result_status(res) == CR_LAW_OK, "Newton solves: %s",
              cr_law_result_message(res));
        if (rc == CR_OK && cr_law_result_status(res) == CR_LAW_OK) {
            const double *P = cr_law_result_impulse(res, 0), *v = cr_law_result_velocity(res, 0);
            CHECK_REL(P[0], 115.6, 1e-10, "P1 = 115.6 N s (paper 004, sect. 3)");
            CHECK_REL(P[1], 88.4, 1e-10, "P2 = 88.4 N s (paper 004, sect. 3)");
            CHECK_REL(v[2], -1.4, 1e-10, "omega_z = -1.4 rad/s (paper 004, sect. 3)");
            CHECK_REL(v[1], 7.0, 1e-10, "V_y = 7 m/s (paper 004, sect. 3)");
            CHECK_REF(fabs(v[0]) <= 1e-12, "V_x = 0 (normals along y): %.3e", v[0]);
            printf("  bar: P = %.15g %.15g, V_y = %.15g, omega = %.15g\n", P[0], P[1], v[1], v[2]);
        }
        cr_law_result_destroy(res);
    }
    cr_impact_destroy(imp);
    cr_system_destroy(s);
    cr_model_destroy(model);
}

static void dumbbell_meff(void)
{
    tu_case("dumbbell on a wall: monitored m_eff");
    const double m = 0.2, J = 5.0e-4, rp = 0.05, v = 1.0;
    char text[1024], msg[512];
    snprintf(text, sizeof text,
             "dim: 2\n"
             "clumps:\n"
             "  - {shape: dumbbell, radius: 0.01, radius2: 0.005, length: 0.1, mass: %.17g,\n"
             "     inertia: %.17g, x: [0.01001, 0.05], theta: 1.5707963267948966, v: [%.17g, 0]}\n"
             "walls:\n"
             "  - {normal: [1, 0], offset: 0}\n"
             "contact: {K: 1.0e8, n: 1.5}\n"
             "integration: {t_end: 1, rtol: 1.0e-10}\n",
             m, J, -v);
    cr_model *model = NULL;
    CHECK(cr_modelfile_parse(text, strlen(text), "test.yaml", &model, msg, sizeof msg) == CR_OK,
          "dumbbell parses: %s", msg);
    cr_system *s = model ? cr_system_create(model, msg, sizeof msg) : NULL;
    CHECK(s != NULL, "system: %s", s ? "" : msg);
    cr_impact *imp = s ? first_impact(s, 2e-3) : NULL;
    CHECK(imp && cr_impact_dof_count(imp) == 3 && cr_impact_contact_count(imp) == 1,
          "one body of 3 dofs, one contact");
    if (imp && cr_impact_dof_count(imp) == 3 && cr_impact_contact_count(imp) == 1) {
        double M[9], w[3], g = 0.0;
        cr_impact_get_mass(imp, M);
        cr_impact_get_gradients(imp, w);
        for (int i = 0; i < 3; i++)
            g += w[i] * w[i] / M[4 * i];
        double meff = 1.0 / (1.0 / m + rp * rp / J); /* the reference */
        CHECK_REL(1.0 / g, meff, 1e-14, "m_eff = 1/(w^T M^-1 w) = 1/(1/m + r^2/J)");
        printf("  dumbbell: m_eff %.17g, closed form %.17g\n", 1.0 / g, meff);
    }
    cr_impact_destroy(imp);
    cr_system_destroy(s);
    cr_model_destroy(model);
}

/* The configurations of @p a and @p b agree to 0 (bit for bit). */
static int same_impact(cr_impact *a, cr_impact *b)
{
    size_t n = cr_impact_dof_count(a), m = cr_impact_contact_count(a);
    if (n != cr_impact_dof_count(b) || m != cr_impact_contact_count(b) || n > 8 || m > 4)
        return 0;
    double x[64], y[64];
    cr_impact_get_mass(a, x);
    cr_impact_get_mass(b, y);
    int same = memcmp(x, y, n * n * sizeof(double)) == 0;
    cr_impact_get_gradients(a, x);
    cr_impact_get_gradients(b, y);
    same &= memcmp(x, y, n * m * sizeof(double)) == 0;
    cr_impact_get_velocity(a, x);
    cr_impact_get_velocity(b, y);
    return same && memcmp(x, y, n * sizeof(double)) == 0;
}

static void bar_compare(const char *path)
{
    tu_case("Pandrea's bar: the comparator");
    cr_model *model = NULL;
    char msg[512];
    CHECK(cr_modelfile_load(path, &model, NULL, msg, sizeof msg) == CR_OK, "%s: %s", path, msg);
    /* the restitution targets 0.7, as `cradle compare` solves them */
    CHECK(model && cr_calibrate_model(model, msg, sizeof msg) == CR_OK, "calibration: %s", msg);
    cr_system *s = model ? cr_system_create(model, msg, sizeof msg) : NULL;
    cr_monitor *mon = s ? cr_monitor_create(s) : NULL;
    cr_compare *c = cr_compare_create();
    CHECK(mon && c, "system, monitor, comparator");
    if (!mon || !c || cr_system_run(s, cr_model_settings(model)->t_end) != CR_OK ||
        cr_monitor_finish(mon) != CR_OK || cr_monitor_episode_count(mon) != 1 ||
        cr_compare_add_monitor(c, mon, 0, model) != CR_OK) {
        CHECK(0, "run and compare: %s", c ? cr_compare_last_error(c) : "");
    } else {
        cr_episode_info info;
        cr_monitor_get_episode(mon, 0, &info);
        /* m = 12, v = -10, J = 4, omega = 2 (paper 004, fig. 3) */
        CHECK_REL(info.T_minus, 0.5 * 12 * 100 + 0.5 * 4 * 4, 1e-15,
                  "T- = m v^2/2 + J omega^2/2 = 608 J (rotation included)");
        cr_impact *a = cr_monitor_impact(mon, 0), *b = cr_compare_impact(c, 0);
        CHECK_SELF(a && b && same_impact(a, b), "the comparator takes the monitor's (M, W, u-)");
        cr_impact_destroy(a);
        /* u+ on the body-level dofs against the energy the monitor took from
         * the engine's (V, omega) at the episode's end */
        const double *u = cr_compare_reference_velocity(c, 0);
        double T1 = u ? 0.5 * 12 * (u[0] * u[0] + u[1] * u[1]) + 0.5 * 4 * u[2] * u[2] : NAN;
        CHECK_REL_INV(T1, info.T_plus, 1e-14,
                      "the reference u+ = (V, omega) at the end: m |V|^2/2 + J omega^2/2 = T+");
        printf("  bar: t_end %.9g complete %d\n", info.t_end, info.complete);
        printf("  bar: kappa %.12g, u+ = (%.12g, %.12g, %.12g)\n", info.kappa, u ? u[0] : NAN,
               u ? u[1] : NAN, u ? u[2] : NAN);
    }
    cr_compare_destroy(c);
    cr_monitor_destroy(mon);
    cr_system_destroy(s);
    cr_model_destroy(model);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test-bodies-impact models/pandrea-bar.yaml\n");
        return 2;
    }
    pandrea_bar(argv[1]);
    dumbbell_meff();
    bar_compare(argv[1]);
    return tu_finish("bodies-impact");
}
