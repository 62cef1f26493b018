/* Damping from a target restitution, solved with compliant runs. */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

int main(void)
{
    char msg[256];
    /* linear spring-dashpot, gap release: e = exp(−πζ/√(1−ζ²)) inverts to
     * ζ = −ln e / √(π² + ln² e), C = 2ζ√(Kμ) — to 1e-8 */
    const double K = 1e6, mu = 0.5, v = 2.0;
    const double targets[] = {0.95, 0.7, 0.3};
    for (int k = 0; k < 3; k++) {
        double e = targets[k], C;
        cr_contact_params law;
        cr_contact_params_init(&law, K, 1.0, 0.0, CR_RELEASE_GAP);
        CHECK(cr_calibrate_damping(&law, mu, v, e, &C, msg, sizeof msg) == CR_OK, "%s", msg);
        double zeta = -log(e) / sqrt(M_PI * M_PI + log(e) * log(e));
        CHECK_REL(C, 2 * zeta * sqrt(K * mu), 1e-8, "linear dashpot: C = 2 zeta sqrt(K mu)");
    }
    /* damped Hertz (m = n − 1) and Hunt–Crossley (m = n): no closed form; the
     * solved C reproduces the target in an independent run (1e-9), and a target
     * closer to 1 needs less damping */
    double prevC = INFINITY;
    for (int k = 0; k < 3; k++) {
        cr_contact_params law;
        cr_contact_params_init(&law, 1e10, 1.5, 0.0, CR_RELEASE_FORCE);
        double C, e;
        CHECK(cr_calibrate_damping(&law, 0.016, 1.0, targets[2 - k], &C, msg, sizeof msg) == CR_OK,
              "%s", msg);
        law.C = C;
        CHECK(cr_calibrate_restitution(&law, 0.016, 1.0, &e, msg, sizeof msg) == CR_OK, "%s",
              msg);
        CHECK_REL(e, targets[2 - k], 1e-9, "Hertz damped: round trip e(C(e*)) = e*");
        CHECK(k == 0 || C < prevC, "monotone: more restitution, less damping");
        prevC = C;
    }
    cr_contact_params hc;
    cr_contact_params_init(&hc, 1e10, 1.5, 0.0, CR_RELEASE_FORCE);
    hc.m = 1.5;
    double Chc, ehc;
    CHECK(cr_calibrate_damping(&hc, 0.016, 1.0, 0.8, &Chc, msg, sizeof msg) == CR_OK, "%s", msg);
    hc.C = Chc;
    cr_calibrate_restitution(&hc, 0.016, 1.0, &ehc, msg, sizeof msg);
    CHECK_REL(ehc, 0.8, 1e-9, "Hunt-Crossley: round trip");
    /* a model with targets: every pair gets its C (and equal pairs share it) */
    cr_model *model = cr_model_create();
    for (int i = 0; i < 4; i++)
        cr_model_add_ball(model, 0.032, 0.01, 0.02 * i + (i ? 1e-4 : 0.0), i ? 0.0 : 1.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    for (size_t c = 0; c < 3; c++)
        cr_model_set_contact_target(model, c, 0.9, 1.0);
    CHECK(cr_calibrate_model(model, msg, sizeof msg) == CR_OK, "%s", msg);
    double e1;
    cr_contact_params p1 = *cr_model_contact(model, 1);
    CHECK(p1.C > 0 && p1.C == cr_model_contact(model, 2)->C, "equal pairs, equal C");
    cr_calibrate_restitution(&p1, 0.016, 1.0, &e1, msg, sizeof msg);
    CHECK_REL(e1, 0.9, 1e-9, "model pair: e = 0.9 at 1 m/s");
    cr_model_destroy(model);
    /* bad targets */
    double C;
    CHECK(cr_calibrate_damping(&law, 0.016, 1.0, 1.5, &C, msg, sizeof msg) == CR_ERR_INVALID,
          "e > 1 refused");
    return tu_finish("test-calibrate");
}
