/* Damping from a target restitution, solved with compliant runs. The solved C
 * is checked against a closed form where there is one (the linear dashpot) and
 * otherwise in the test's own integration of the pair (refchain.h: fixed-step
 * RK4, no event location), and in another cradle run: unequal masses with the
 * same reduced mass, starting apart, through cr_system (not
 * cr_calibrate_restitution, which the solver itself calls). */
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"
#include "refchain.h"

/* Restitution of one contact with @p law between masses 3μ and 1.5μ (reduced
 * mass μ) closing at @p v from a gap: −γ⁺/γ⁻ from the final velocities. */
static double restitution_apart(const cr_contact_params *law, double mu, double v)
{
    char msg[256];
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 3.0 * mu, 0.01, 0.0, v);
    cr_model_add_ball(model, 1.5 * mu, 0.02, 0.03 + 1e-6, 0.0);
    cr_model_set_default_contact(model, law);
    cr_model_set_contact(model, 0, law);
    cr_settings s = cr_settings_default();
    s.rtol = 1e-12;
    s.atol = 1e-14;
    cr_model_set_settings(model, &s);
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    double u[2] = {NAN, NAN};
    CHECK(sys && cr_system_run(sys, 0.0) == CR_OK, "independent run: %s",
          sys ? cr_system_last_error(sys) : msg);
    if (sys)
        cr_system_get_velocities(sys, u);
    cr_system_destroy(sys);
    cr_model_destroy(model);
    return (u[1] - u[0]) / v;
}

/* The same restitution integrated by the test (refchain.h); NaN when its error
 * estimate is above 1e-10. */
static double restitution_rk4(const cr_contact_params *law, double mu, double v)
{
    double est = NAN;
    double e = refchain_restitution(law->K, law->n, law->C, law->m,
                                    law->release == CR_RELEASE_FORCE, mu, v, &est);
    return est <= 1e-10 ? e : NAN;
}

/* linear spring-dashpot, gap release: e = exp(−πζ/√(1−ζ²)) inverts to
 * ζ = −ln e / √(π² + ln² e), C = 2ζ√(Kμ) — to 1e-8 */
static void linear_dashpot(void)
{
    char msg[256];
    const double K = 1e6, mu = 0.5, v = 2.0, targets[] = {0.95, 0.7, 0.3};
    for (int k = 0; k < 3; k++) {
        double e = targets[k], C = NAN;
        tu_case("linear dashpot e = %g", e);
        cr_contact_params law;
        cr_contact_params_init(&law, K, 1.0, 0.0, CR_RELEASE_GAP);
        CHECK(cr_calibrate_damping(&law, mu, v, e, &C, msg, sizeof msg) == CR_OK, "%s", msg);
        double zeta = -log(e) / sqrt(M_PI * M_PI + log(e) * log(e));
        CHECK_REL(C, 2 * zeta * sqrt(K * mu), 1e-8, "linear dashpot: C = 2 zeta sqrt(K mu)");
    }
    tu_case(NULL);
}

/* damped Hertz (m = n − 1) and Hunt–Crossley (m = n): no closed form; the
 * solved C gives the target in an independent run (1e-9), and a target closer
 * to 1 needs less damping */
static void hertz_damping(void)
{
    char msg[256];
    const double targets[] = {0.3, 0.7, 0.95};
    double prevC = 0.0;
    for (int k = 0; k < 3; k++) {
        tu_case("damped Hertz e = %g", targets[k]);
        cr_contact_params law;
        cr_contact_params_init(&law, 1e10, 1.5, 0.0, CR_RELEASE_FORCE);
        double C = NAN;
        CHECK(cr_calibrate_damping(&law, 0.016, 1.0, targets[k], &C, msg, sizeof msg) == CR_OK,
              "%s", msg);
        law.C = C;
        CHECK_REL_SELF(restitution_apart(&law, 0.016, 1.0), targets[k], 1e-9,
                       "Hertz damped: solved C gives e* in another cradle run");
        CHECK_REL(restitution_rk4(&law, 0.016, 1.0), targets[k], 1e-9,
                  "Hertz damped: solved C gives e* in the test's RK4 (refchain.h)");
        CHECK(k == 0 || C < prevC, "monotone: more restitution, less damping (%g after %g)", C,
              prevC);
        prevC = C;
    }
    tu_case(NULL);
    cr_contact_params hc;
    cr_contact_params_init(&hc, 1e10, 1.5, 0.0, CR_RELEASE_FORCE);
    hc.m = 1.5;
    double Chc = NAN;
    CHECK(cr_calibrate_damping(&hc, 0.016, 1.0, 0.8, &Chc, msg, sizeof msg) == CR_OK, "%s", msg);
    hc.C = Chc;
    CHECK_REL_SELF(restitution_apart(&hc, 0.016, 1.0), 0.8, 1e-9,
                   "Hunt-Crossley: solved C gives e* in another cradle run");
    CHECK_REL(restitution_rk4(&hc, 0.016, 1.0), 0.8, 1e-9,
              "Hunt-Crossley: solved C gives e* in the test's RK4 (refchain.h)");
}

/* a chain with targets: every pair gets its C (and equal pairs share it) */
static void chain_targets(void)
{
    char msg[256];
    cr_model *model = cr_model_create();
    for (int i = 0; i < 4; i++)
        cr_model_add_ball(model, 0.032, 0.01, 0.02 * i + (i ? 1e-4 : 0.0), i ? 0.0 : 1.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    for (size_t c = 0; c < 3; c++)
        cr_model_set_contact_target(model, c, 0.9, 1.0);
    CHECK(cr_calibrate_model(model, msg, sizeof msg) == CR_OK, "%s", msg);
    cr_contact_params p1 = *cr_model_contact(model, 1);
    CHECK(p1.C > 0 && p1.C == cr_model_contact(model, 2)->C, "equal pairs, equal C");
    CHECK_REL_SELF(restitution_apart(&p1, 0.016, 1.0), 0.9, 1e-9,
                   "model pair: e = 0.9 at 1 m/s (another cradle run)");
    CHECK_REL(restitution_rk4(&p1, 0.016, 1.0), 0.9, 1e-9, "model pair: e = 0.9 at 1 m/s (RK4)");
    /* bad targets */
    double C;
    CHECK(cr_calibrate_damping(&law, 0.016, 1.0, 1.5, &C, msg, sizeof msg) == CR_ERR_INVALID,
          "e > 1 refused");
    cr_model_destroy(model);
}

/* dim 2: one target for every pair without a damping of its own, solved per
 * class (law, reduced mass): two kinds of discs (steel, aluminium), a pair law
 * of its own and a wall. Every class meets the target in an independent run
 * (1e-9); 2000 discs of two kinds need 6 solves, not 2 million. */
static void pool_targets(void)
{
    char msg[256];
    const double e = 0.8, v = 0.7;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    const size_t n = 2000;
    for (size_t i = 0; i < n; i++) {
        double x[2] = {0.05 * (double)(i % 50), 0.05 * (double)(i / 50)}, u[2] = {0, 0};
        int steel = i % 3 != 0;
        cr_model_add_body(model, steel ? 0.0329 : 0.0113, 0.01, x, u);
        cr_model_set_material(model, i, steel ? 2.1e11 : 7.0e10, steel ? 0.3 : 0.33);
    }
    cr_contact_params def, own, wl;
    cr_contact_params_init(&def, 1e10, 1.5, 0.0, CR_RELEASE_FORCE);
    cr_contact_params_init(&own, 3e9, 1.5, 0.0, CR_RELEASE_FORCE);
    cr_contact_params_init(&wl, 1e8, 1.0, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &def);
    cr_model_set_pair_law(model, 1, 2, &own);
    double nrm[2] = {0.0, 1.0};
    cr_model_add_plane(model, nrm, -0.02, &wl);
    cr_model_set_default_target(model, e, v);
    CHECK(cr_calibrate_model(model, msg, sizeof msg) == CR_OK, "%s", msg);
    const long pairs[5][2] = {{1, 2}, {0, 1}, {0, 3}, {4, 5}, {0, CR_WALL_BODY(0)}};
    const char *what[5] = {"own pair law", "aluminium-steel (materials)",
                           "aluminium-aluminium (materials)", "steel-steel (materials)",
                           "wall's own law"};
    for (int k = 0; k < 5; k++) {
        cr_contact_params p;
        size_t i = (size_t)pairs[k][0];
        long j = pairs[k][1];
        cr_model_pair_law(model, i, j, &p);
        double mi = cr_model_mass(model, i), mj = j >= 0 ? cr_model_mass(model, (size_t)j) : 0;
        double mu = j >= 0 ? mi * mj / (mi + mj) : mi;
        tu_case("%s", what[k]);
        CHECK(p.C > 0, "pair %d: C = %g solved", k, p.C);
        CHECK_REL_SELF(restitution_apart(&p, mu, v), e, 1e-9, what[k]);
        CHECK_REL(restitution_rk4(&p, mu, v), e, 1e-9, "the test's RK4 of the solved law");
    }
    tu_case(NULL);
    CHECK(cr_model_validate(model, msg, sizeof msg) == CR_OK, "calibrated pool valid: %s", msg);
    cr_model_destroy(model);
}

int main(void)
{
    linear_dashpot();
    hertz_damping();
    chain_targets();
    pool_targets();
    return tu_finish("test-calibrate");
}
