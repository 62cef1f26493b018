/* Contact law f = K δⁿ + C δᵐ δ̇ (../shared/seeds/001_e08116da91db305f.txt eq. 20). */
#include <string.h>

#include "cradle/contact.h"
#include "testutil.h"

/* Central finite difference, an independent check of the analytic partials. */
static double fd(const cr_contact_params *p, double d, double r, int wrt_rate)
{
    double h = 1e-6 * (wrt_rate ? fabs(r) : d);
    if (wrt_rate)
        return (cr_contact_force(p, d, r + h) - cr_contact_force(p, d, r - h)) / (2 * h);
    return (cr_contact_force(p, d + h, r) - cr_contact_force(p, d - h, r)) / (2 * h);
}

int main(void)
{
    cr_contact_params p;
    cr_contact_params_init(&p, 2.0e9, 1.5, 3.0e4, CR_RELEASE_GAP);
    CHECK(p.m == 0.5, "default damping exponent n - 1, got %g", p.m);
    CHECK(cr_contact_params_check(&p) == CR_OK, "valid law refused");

    /* The law itself, evaluated by hand: K δ^1.5 + C δ^0.5 δ̇. */
    double d = 2e-5, r = 0.3;
    CHECK_REL(cr_contact_force(&p, d, r), 2.0e9 * pow(d, 1.5) + 3.0e4 * sqrt(d) * r, 1e-15,
              "eq. 20 by hand");
    CHECK(cr_contact_force(&p, -1e-9, 1.0) == 0.0, "no force when open");
    CHECK(cr_contact_force(&p, 0.0, 1.0) == 0.0, "no force at zero overlap");

    /* gap release may pull; force release clips to zero */
    double pull = cr_contact_force(&p, 1e-9, -10.0);
    CHECK(pull < 0.0, "gap convention gives tension near the end, got %g", pull);
    p.release = CR_RELEASE_FORCE;
    CHECK(cr_contact_force(&p, 1e-9, -10.0) == 0.0, "force convention never pulls");
    p.release = CR_RELEASE_GAP;

    /* partial derivatives against central differences (relative 1e-6) */
    double fdd, fdv;
    cr_contact_partials(&p, d, r, 1e-12, &fdd, &fdv);
    /* (the differences are of cradle's own force, checked by hand above) */
    CHECK_REL_SELF(fdd, fd(&p, d, r, 0), 1e-6, "central difference of f in delta");
    CHECK_REL_SELF(fdv, fd(&p, d, r, 1), 1e-6, "central difference of f in delta_dot");

    /* the bounded damping term: below the floor, δ is replaced by the floor */
    cr_contact_partials(&p, 1e-12, r, 1e-8, &fdd, &fdv);
    double expect = 1.5 * 2.0e9 * pow(1e-12, 0.5) + 0.5 * 3.0e4 * pow(1e-8, -0.5) * r;
    CHECK_REL(fdd, expect, 1e-14, "ARCHITECTURE.md Jacobian bound");

    /* linear spring-dashpot: f = K δ + C δ̇, ∂f/∂δ = K exactly */
    cr_contact_params lin;
    cr_contact_params_init(&lin, 1e4, 1.0, 2.0, CR_RELEASE_GAP);
    CHECK_REL(cr_contact_force(&lin, 1e-3, 0.5), 1e4 * 1e-3 + 2.0 * 0.5, 1e-15, "K d + C d'");
    cr_contact_partials(&lin, 1e-3, 0.5, 1e-12, &fdd, &fdv);
    CHECK_REL(fdd, 1e4, 1e-15, "dF/dd = K");
    CHECK_REL(fdv, 2.0, 1e-15, "dF/dd' = C");

    /* energies and dissipation */
    CHECK_REL(cr_contact_energy(&p, d), 2.0e9 * pow(d, 2.5) / 2.5, 1e-15, "K d^(n+1)/(n+1)");
    CHECK_REL(cr_contact_dissipation_rate(&p, d, r), 3.0e4 * sqrt(d) * r * r, 1e-15, "C d^m d'^2");

    /* Hertz stiffness, two steel spheres R = 10 mm, E = 210 GPa, nu = 0.3:
     * E* = E / (2 (1 - nu^2)) = 1.153846e11 Pa, R* = 5 mm,
     * K = 4/3 E* sqrt(R*) = 1.0878565e10 N/m^1.5 (computed by hand) */
    double K = cr_contact_hertz_stiffness(2.1e11, 0.3, 0.01, 2.1e11, 0.3, 0.01);
    CHECK_REL(K, 4.0 / 3.0 * (2.1e11 / (2 * 0.91)) * sqrt(0.005), 1e-14, "Hertz formula");
    CHECK_REL(K, 1.0878565e10, 1e-7, "hand computation");
    /* sphere on a flat wall: R* = R */
    CHECK_REL(cr_contact_hertz_stiffness(2.1e11, 0.3, 0.01, 2.1e11, 0.3, INFINITY),
              4.0 / 3.0 * (2.1e11 / (2 * 0.91)) * sqrt(0.01), 1e-14, "Hertz, wall");

    cr_release rel;
    CHECK(cr_release_from_name("force", &rel) == CR_OK && rel == CR_RELEASE_FORCE, "parse");
    CHECK(cr_release_from_name("sticky", &rel) == CR_ERR_INVALID, "unknown release refused");
    CHECK(strcmp(cr_release_name(CR_RELEASE_GAP), "gap") == 0, "name");

    cr_contact_params bad = p;
    bad.n = 0.5;
    CHECK(cr_contact_params_check(&bad) == CR_ERR_INVALID, "n < 1 refused");
    bad = p;
    bad.K = NAN;
    CHECK(cr_contact_params_check(&bad) == CR_ERR_INVALID, "NaN refused");
    return tu_finish("test-contact");
}
