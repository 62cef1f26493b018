/*
 * The energetic law's κ clamp in rigid runs (cr_system_rigid_clamp_kappa,
 * docs/compare.md "Rigid runs: --rigid calibrated"): a κ borrowed from
 * elsewhere that asks an impact for more loss than it can give is raised to
 * the impact's feasible minimum, and the outcome is checked against closed
 * forms written here (Acary & Taha 2005, 001 eq. 17-18: T⁺ = κT⁻ along the
 * impulse direction a).
 *   - grazing re-contact (one contact): two balls flying together, one closing
 *     on the other at δ ≪ their speed. The approach energy ½μδ² is all an
 *     impact can lose, so κ_min = 1 − ½μδ²/T⁻; at κ_min the impact is plastic,
 *     both balls at the centre-of-mass velocity.
 *   - a striker on two touching balls (two contacts, a = (1, 0.8), unit
 *     masses): the energy balance has a real impulse from κ = 1 − (aᵀγ)²/(2 aᵀGa T⁻)
 *     on, but contact 0 separates only from p = 1/(2 − 0.8) on, where
 *     u⁺ = (1/6, 1/6, 2/3) and κ = 1/2.
 *   - the same with a = (1, 1.9): contact 0 separates only at T⁺/T⁻ > 1, so
 *     no dissipative κ fits; maximal dissipation resolves it, u⁺ = (1/3, 1/3, 1/3).
 * Without the clamp all runs still stop as infeasible (the law unchanged);
 * with a feasible κ the clamp changes nothing, bit for bit.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

/* Balls of masses @p m at positions @p x (radius 0.01 m) with velocities @p v,
 * no field, run to 1 s. */
static cr_model *chain(size_t n, const double *m, const double *x, const double *v)
{
    cr_model *model = cr_model_create();
    for (size_t i = 0; i < n; i++)
        cr_model_add_ball(model, m[i], 0.01, x[i], v[i]);
    cr_contact_params p;
    cr_contact_params_init(&p, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &p);
    cr_settings s = cr_settings_default();
    s.t_end = 1.0;
    cr_model_set_settings(model, &s);
    return model;
}

/* The energetic law with κ, weights @p alpha (reference 0), clamp on or off;
 * final velocities into @p u. @return the run's code. */
static int run_energetic(const cr_model *model, double kappa, const double *alpha, int clamp,
                         double *u, cr_system **out)
{
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.kappa = kappa;
    lp.alpha = alpha;
    char msg[256];
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_ENERGETIC, &lp, msg, sizeof msg);
    if (!sys) {
        printf("create failed: %s\n", msg);
        return CR_ERR_INVALID;
    }
    CHECK(cr_system_rigid_clamp_kappa(sys, clamp) == CR_OK, "clamp set");
    int rc = cr_system_run(sys, 1.0);
    cr_system_get_velocities(sys, u);
    *out = sys;
    return rc;
}

static void test_grazing(void)
{
    const double m[2] = {0.03, 0.05}, V = 0.3, delta = 1e-3, gap = 1e-4;
    const double x[2] = {0.0, 0.02 + gap}, v[2] = {V + delta, V}, alpha[2] = {1.0, 1.0};
    const double kappa = 0.95; /* a compliant collision's, borrowed */
    cr_model *model = chain(2, m, x, v);
    double mu = m[0] * m[1] / (m[0] + m[1]);
    double T = 0.5 * (m[0] * v[0] * v[0] + m[1] * v[1] * v[1]), loss = 0.5 * mu * delta * delta;
    double vcm = (m[0] * v[0] + m[1] * v[1]) / (m[0] + m[1]), u[2];
    cr_system *sys;

    int rc = run_energetic(model, kappa, alpha, 0, u, &sys);
    CHECK(rc == CR_ERR_SOLVER && strstr(cr_system_last_error(sys), "discriminant"),
          "without the clamp: infeasible as before: %s", cr_system_last_error(sys));
    cr_system_destroy(sys);

    rc = run_energetic(model, kappa, alpha, 1, u, &sys);
    CHECK(rc == CR_OK, "with the clamp the run completes: %s", cr_system_last_error(sys));
    size_t n = 0;
    int on = 0;
    const cr_kappa_clamp *c = cr_system_rigid_kappa_clamps(sys, &n, &on);
    CHECK(on && n == 1 && c, "one clamped impact recorded (%zu)", n);
    if (c) {
        CHECK_REL(c->t, gap / delta, 1e-12, "impact at gap / delta (exact flight)");
        CHECK(c->first_pair == 0 && c->pair_count == 1 && c->kappa == kappa,
              "record: pair 0, kappa asked %g", c->kappa);
        CHECK_REL(1.0 - c->kappa_used, loss / T, 1e-9, "1 - kappa_min = (1/2 mu delta^2) / T-");
        CHECK(c->fallback == 0, "clamped, no fallback");
    }
    /* κ carries 1 − κ_min ≈ 2.6e-6 to 1 ulp (1e-16 / 2.6e-6 = 4e-11 relative), and
     * the law's root takes a square root of Δ, so γ⁺ is 0 to √4e-11 ≈ 6e-6 of δ:
     * the outcome is plastic to 1e-4 δ, the centre-of-mass velocity to that */
    double tol = 1e-4 * delta;
    CHECK_REF(fabs(u[0] - vcm) <= tol && fabs(u[1] - vcm) <= tol && u[1] - u[0] >= 0.0,
              "u+ = centre-of-mass velocity to 1e-4 delta (plastic, closed form): %.3g, %.3g",
              u[0] - vcm, u[1] - vcm);
    double p0 = m[0] * v[0] + m[1] * v[1], p1 = m[0] * u[0] + m[1] * u[1];
    CHECK_REL_INV(p1, p0, 1e-14, "momentum conserved");
    double T1 = 0.5 * (m[0] * u[0] * u[0] + m[1] * u[1] * u[1]);
    CHECK_REL(T - T1, loss, 1e-9, "T- - T+ = (1 - kappa_min) T- = 1/2 mu delta^2");
    char law[256];
    cr_system_rigid_law(sys, law, sizeof law);
    CHECK(strstr(law, "feasible minimum at 1 impact") != NULL, "law text flags it: %s", law);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

static void test_two_contacts(void)
{
    const double m[3] = {1.0, 1.0, 1.0}, x[3] = {-0.5, 0.02, 0.04}, v[3] = {1.0, 0.0, 0.0};
    const double alpha[2] = {1.0, 0.8};
    cr_model *model = chain(3, m, x, v);
    double u[3], u_ok[3];
    cr_system *sys;
    const double asked[2] = {0.3, 0.45}; /* Δ < 0; Δ > 0 but contact 0 still approaching */
    const char *why[2] = {"discriminant", "would still approach"};
    for (int k = 0; k < 2; k++) {
        tu_case("kappa %g", asked[k]);
        int rc = run_energetic(model, asked[k], alpha, 0, u, &sys);
        CHECK(rc == CR_ERR_SOLVER && strstr(cr_system_last_error(sys), why[k]),
              "kappa %g without the clamp: %s", asked[k], cr_system_last_error(sys));
        cr_system_destroy(sys);
        rc = run_energetic(model, asked[k], alpha, 1, u, &sys);
        size_t n = 0;
        const cr_kappa_clamp *c = cr_system_rigid_kappa_clamps(sys, &n, NULL);
        CHECK(rc == CR_OK && n == 1, "kappa %g clamped: %s", asked[k], cr_system_last_error(sys));
        /* p = 1/(2 − a1) closes contact 0: u⁺ = (1 − p, p − a1 p, a1 p) */
        double p = 1.0 / (2.0 - alpha[1]);
        CHECK_REL(u[0], 1.0 - p, 1e-12, "u0+ = 1/6 (contact 0 just stops approaching)");
        CHECK_REL(u[1], (1.0 - alpha[1]) * p, 1e-12, "u1+ = 1/6");
        CHECK_REL(u[2], alpha[1] * p, 1e-12, "u2+ = 2/3");
        CHECK_REL_INV(u[0] + u[1] + u[2], 1.0, 1e-14, "momentum conserved");
        if (c)
            CHECK_REL_SELF(c->kappa_used, 0.5 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) / 0.5,
                           1e-12, "kappa used = T+/T- of that outcome (1/2)");
        cr_system_destroy(sys);
    }
    tu_case(NULL);
    /* a feasible κ: the clamp does nothing, bit for bit */
    int rc = run_energetic(model, 0.9, alpha, 0, u_ok, &sys);
    cr_system_destroy(sys);
    int rc2 = run_energetic(model, 0.9, alpha, 1, u, &sys);
    size_t n = 1;
    cr_system_rigid_kappa_clamps(sys, &n, NULL);
    CHECK_SELF(rc == CR_OK && rc2 == CR_OK && n == 0 && memcmp(u, u_ok, sizeof u) == 0,
               "feasible kappa 0.9: no clamp, the same u+ bit for bit");
    cr_system_destroy(sys);
    /* a = (1, 1.9): contact 0 separates only from p = 1/(2 − 1.9) = 10 on, where
     * T⁺/T⁻ = 1 + (A p² + B p)/T⁻ = 1 + (2.71·100 − 10)/0.5 > 1: no dissipative κ
     * fits, the impact falls back to maximal dissipation, u⁺ = prox_T(u⁻) =
     * (1/3, 1/3, 1/3) (all three plastic, closed form), T⁺/T⁻ = 1/3 */
    const double skew[2] = {1.0, 1.9};
    rc = run_energetic(model, 0.9, skew, 1, u, &sys);
    const cr_kappa_clamp *fb = cr_system_rigid_kappa_clamps(sys, &n, NULL);
    CHECK(rc == CR_OK && n == 1 && fb && fb->fallback == 1, "alpha (1, 1.9): one fallback: %s",
          cr_system_last_error(sys));
    for (int i = 0; i < 3; i++)
        CHECK_REL(u[i], 1.0 / 3.0, 1e-12, "u+ = 1/3 each (maximal dissipation, closed form)");
    if (fb)
        CHECK_REL(fb->kappa_used, 1.0 / 3.0, 1e-12, "recorded T+/T- of the fallback = 1/3");
    cr_system_destroy(sys);
    rc = run_energetic(model, 0.9, skew, 0, u, &sys);
    CHECK(rc == CR_ERR_SOLVER, "alpha (1, 1.9) without the clamp: fails as before: %s",
          cr_system_last_error(sys));
    cr_system_destroy(sys);
    /* other laws and pools refuse the clamp */
    cr_law_params lp;
    cr_law_params_init(&lp);
    char msg[256];
    sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    CHECK(cr_system_rigid_clamp_kappa(sys, 1) == CR_ERR_INVALID, "newton: no clamp");
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

int main(void)
{
    test_grazing();
    test_two_contacts();
    return tu_finish("test-rigid-clamp");
}
