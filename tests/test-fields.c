/*
 * Walls, bilateral links, gravity and pendulum suspension, each against an
 * analytic result; Glocker's rods; episode segmentation with fields; and the
 * scaling invariances of the compliant model.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refchain.h"

static cr_system *make_sim(cr_model *model, double rtol, double atol)
{
    cr_settings set = *cr_model_settings(model);
    set.rtol = rtol;
    set.atol = atol;
    cr_model_set_settings(model, &set);
    cr_system *sim = tu_system(model);
    return sim;
}

/* Complete elliptic integral of the first kind by the arithmetic-geometric mean:
 * K(k) = π / (2 AGM(1, √(1 − k²))). */
static double ellint_K(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return M_PI / (2.0 * a);
}

/* Exact pendulum: period 4 √(L/g) K(sin(θ₀/2)). Released from rest at θ₀, the
 * ball is back at rest on the other side at T/2: |v(T/2)| / (g sin θ₀ · T/2) is
 * the relative period error. rtol 1e-12, atol 1e-14. */
static void pendulum_period(double theta0)
{
    const double Lp = 0.5, g = 9.81, pivot = 0.0;
    double T = 4.0 * sqrt(Lp / g) * ellint_K(sin(theta0 / 2));
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 0.1, 0.01, pivot - Lp * theta0, 0.0);
    cr_model_set_pendulum(model, 0, pivot, Lp, g);
    tu_case("pendulum theta0 = %g", theta0);
    int f0 = tu_failed;
    cr_system *sim = make_sim(model, 1e-12, 1e-14);
    CHECK(cr_system_run(sim, 0.5 * T) == CR_OK, "run: %s", cr_system_last_error(sim));
    double x, v;
    cr_system_get_positions(sim, &x);
    cr_system_get_velocities(sim, &v);
    char ref[128];
    snprintf(ref, sizeof ref, "4 sqrt(L/g) K(sin(theta0/2)), theta0 = %g", theta0);
    double period_error = fabs(v) / (g * sin(theta0) * 0.5 * T);
    CHECK_REF(period_error <= 1e-8, "%s: relative period error %.3g", ref, period_error);
    CHECK_REL(x, pivot + Lp * theta0, 1e-8, "turning point at +theta0 after T/2");
    tu_case(NULL);
    tu_summary(f0, "pendulum theta0 = %g rad: T = %.12f s, relative period error %.2e (<= 1e-8)",
               theta0, T, period_error);
    cr_system_destroy(sim);
    cr_model_destroy(model);
}

/* Two masses on a linear link: ω² = k/μ; after one period the state returns. */
static void link_oscillator(void)
{
    const double m1 = 1.0, m2 = 3.0, k = 400.0, mu = m1 * m2 / (m1 + m2);
    double period = 2 * M_PI * sqrt(mu / k);
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m1, 0.01, 0.0, 0.3);
    cr_model_add_ball(model, m2, 0.01, 0.1, -0.1);
    cr_link link = {.k = k, .length = 0.1, .c = 0.0};
    cr_model_set_link(model, 0, &link);
    cr_system *sim = make_sim(model, 1e-12, 1e-14);
    CHECK(cr_system_run(sim, period) == CR_OK, "run: %s", cr_system_last_error(sim));
    double v[2], x[2];
    cr_system_get_velocities(sim, v);
    cr_system_get_positions(sim, x);
    CHECK_REL(v[0], 0.3, 1e-8, "link: v1 back after 2 pi sqrt(mu/k)");
    CHECK_REL(v[1], -0.1, 1e-8, "link: v2 back after one period");
    /* the centre of mass moves at (m1 v1 + m2 v2)/M = 0: distance back to 0.1 */
    CHECK_REL(x[1] - x[0], 0.1, 1e-9, "link: rest length back after one period");
    CHECK_REL_INV(cr_system_kinetic_energy(sim) + cr_system_potential_energy(sim),
                  0.5 * m1 * 0.09 + 0.5 * m2 * 0.01, 1e-9, "link: energy conserved");
    cr_system_destroy(sim);
    cr_model_destroy(model);
}

/* A Hertz ball dropped on a floor (wall) under gravity, undamped: T + U_contact +
 * m g h is conserved to 1e-9, and at 2 t_fall it is still t_c short of its apex
 * at the release height, so x = r + h − g t_c²/2 with t_c the Hertz contact
 * time at the impact speed √(2gh) (μ = m against the fixed wall): a 5e-8 m
 * deviation, checked to 1e-3 of itself (gravity shifts t_c by ~g t_c/v ≈ 1e-3). */
static void ball_on_floor(void)
{
    const double g = 9.81, h = 0.05, r = 0.01, m = 0.03;
    cr_model *model = cr_model_create();
    cr_model_add_wall(model, 0.0);
    cr_model_add_ball(model, m, r, r + h, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, cr_contact_hertz_stiffness(2.1e11, 0.3, r, 2.1e11, 0.3, INFINITY),
                           1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_model_set_gravity(model, -g);
    cr_system *sim = make_sim(model, 1e-12, 1e-14);
    double E0 = cr_system_kinetic_energy(sim) + cr_system_potential_energy(sim);
    double t_fall = sqrt(2 * h / g);
    CHECK(cr_system_run(sim, 2 * t_fall) == CR_OK, "run: %s", cr_system_last_error(sim));
    double xs[2], vs[2];
    cr_system_get_positions(sim, xs);
    cr_system_get_velocities(sim, vs);
    double x = xs[1];
    CHECK_REL_INV(cr_system_kinetic_energy(sim) + cr_system_potential_energy(sim), E0, 1e-9,
                  "energy with gravity and a wall");
    CHECK(cr_system_event_count(sim) >= 3, "close, max compression, open on the floor");
    double K = law.K, v = sqrt(2 * g * h);
    double t_c = 2.9432752 * pow(5.0 * m * v * v / (4.0 * K), 0.4) / v;
    double short_of_apex = 0.5 * g * t_c * t_c;
    CHECK_REF(fabs(x - (r + h - short_of_apex)) <= 1e-3 * short_of_apex,
              "at 2 t_fall: x - (r + h) = %.6g m, expected -g t_c^2/2 = %.6g m", x - (r + h),
              -short_of_apex);
    cr_system_destroy(sim);
    cr_model_destroy(model);
}

/* Glocker (000 sect. 3): a rod of length l1 strikes a rod of length l2 > l1 of the
 * same material; the effective restitution of the centre-of-mass velocities
 * tends to l1/l2 as the discretisation is refined. Lumped masses m = ρAΔx, links
 * k = EA/Δx, a linear unilateral contact 100 k between the rods, no damping. */
static double rods(int n1, int n2, double *tend)
{
    const double EA = 1.0, rhoA = 1.0, l1 = 1.0, v0 = 1.0;
    double dx = l1 / n1, k = EA / dx, m = rhoA * dx;
    cr_model *model = cr_model_create();
    for (int i = 0; i < n1 + n2; i++)
        cr_model_add_ball(model, m, 0.5 * dx, dx * i, i < n1 ? v0 : 0.0);
    cr_link link = {.k = k, .length = dx, .c = 0.0};
    for (int i = 0; i + 1 < n1 + n2; i++)
        if (i != n1 - 1)
            cr_model_set_link(model, (size_t)i, &link);
    cr_contact_params law;
    cr_contact_params_init(&law, 100.0 * k, 1.0, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_system *sim = make_sim(model, 1e-10, 1e-12);
    CHECK(cr_system_run(sim, 0.0) == CR_OK, "rods: %s", cr_system_last_error(sim));
    double *v = malloc((n1 + n2) * sizeof(double));
    cr_system_get_velocities(sim, v);
    double V1 = 0, V2 = 0;
    for (int i = 0; i < n1; i++)
        V1 += v[i] / n1;
    for (int i = n1; i < n1 + n2; i++)
        V2 += v[i] / n2;
    *tend = cr_system_get_time(sim);
    free(v);
    cr_system_destroy(sim);
    cr_model_destroy(model);
    return -(V2 - V1) / (0.0 - v0);
}

static void glocker_rods(void)
{
    printf("     Glocker rods, l2 = 2 l1: effective restitution vs elements of rod 1\n");
    printf("     %6s %6s %14s %12s\n", "n1", "n2", "e_eff", "|e - 1/2|");
    double err = INFINITY, first = 0.0, worst_fine = 0.0;
    for (int n1 = 4; n1 <= 32; n1 *= 2) {
        double tend;
        double e = rods(n1, 2 * n1, &tend);
        err = fabs(e - 0.5);
        printf("     %6d %6d %14.10f %12.3e\n", n1, 2 * n1, e, err);
        if (n1 == 4)
            first = err;
        if (n1 >= 16)
            worst_fine = fmax(worst_fine, err);
    }
    /* the discrete dispersion makes the error oscillate, not fall monotonically:
     * the two finest levels are within 1 % of l1/l2 and 5x closer than n1 = 4 */
    CHECK_REF(worst_fine < 0.01, "e_eff within 1%% of l1/l2 = 1/2 for n1 >= 16, worst %g",
              worst_fine);
    CHECK_REF(worst_fine < 0.2 * first, "refinement improves e_eff: %g vs %g at n1 = 4", worst_fine,
              first);
}

/* Scaling (001 eq. 21 remark 2b; dimensional analysis): without damping, u⁺/v
 * and κ do not change when every K is multiplied by a and every mass by b; with
 * damping when C is also multiplied by a^(n/(n+1)) b^(1/(n+1)); and changing the
 * units of length and time changes nothing. 5-ball chain, tolerance 1e-8. */
static void run_scaled(double a, double b, double C0, double Lu, double Tu, double *u)
{
    /* Lu, Tu: new units of length and time; K in N/m^n = kg m^(1-n) s^-2 */
    const double n = 1.5, K0 = 1e9, m0 = 0.03, r0 = 0.01;
    double K = a * K0 * pow(Lu, n - 1.0) * Tu * Tu; /* numbers in the new units */
    double C = C0 * pow(a, n / (n + 1)) * pow(b, 1 / (n + 1)) * pow(Lu, n - 1.0) * Tu;
    double r = r0 / Lu, v = 1.0 * Tu / Lu;
    cr_model *model = cr_model_create();
    for (int i = 0; i < 5; i++)
        cr_model_add_ball(model, b * m0, r, 2 * r * i + (i ? 1e-5 / Lu : 0.0), i ? 0.0 : v);
    cr_contact_params law;
    cr_contact_params_init(&law, K, n, C, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_system *sim = make_sim(model, 1e-11, 1e-13);
    CHECK(cr_system_run(sim, 0.0) == CR_OK, "run: %s", cr_system_last_error(sim));
    cr_system_get_velocities(sim, u);
    for (int i = 0; i < 5; i++)
        u[i] /= v;
    cr_system_destroy(sim);
    cr_model_destroy(model);
}

static void scaling(void)
{
    double ref[5], u[5];
    const double cases[][5] = {
        /* a, b, C0, length unit, time unit */
        {1e4, 1e-2, 0.0, 1.0, 1.0},
        {1e-3, 7.0, 0.0, 1.0, 1.0},
        {1.0, 1.0, 0.0, 1e-3, 1e-3}, /* mm and ms */
    };
    int f0 = tu_failed;
    run_scaled(1, 1, 0.0, 1, 1, ref);
    /* the unscaled chains themselves, against the test's RK4 (refchain.h) */
    double refd[5];
    run_scaled(1, 1, 500.0, 1, 1, refd);
    for (int damped = 0; damped < 2; damped++) {
        const double m0[5] = {0.03, 0.03, 0.03, 0.03, 0.03}, r0[5] = {0.01, 0.01, 0.01, 0.01, 0.01};
        const double x0[5] = {0.0, 0.02 + 1e-5, 0.04 + 1e-5, 0.06 + 1e-5, 0.08 + 1e-5};
        const double v0[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
        refchain c;
        refchain_init(&c, 5, m0, x0, r0, v0, 1e9, 1.5, damped ? 500.0 : 0.0, 0);
        double vr[5], P[4], est = NAN, d = 0.0;
        int ok = refchain_final(&c, refchain_step(&c, 1.0, 4000.0), 1.0, vr, P, &est) > 0.0;
        for (int i = 0; i < 5; i++)
            d = fmax(d, fabs((damped ? refd : ref)[i] - vr[i]));
        tu_case("5-ball chain%s", damped ? ", damped" : "");
        CHECK_REF(ok && d <= 1e-8 && est <= 1e-9,
                  "unscaled %s chain vs RK4 (refchain.h): %.3g (<= 1e-8; estimate %.1e)",
                  damped ? "damped" : "undamped", d, est);
    }
    tu_case(NULL);
    for (int k = 0; k < 3; k++) {
        run_scaled(cases[k][0], cases[k][1], cases[k][2], cases[k][3], cases[k][4], u);
        tu_case("undamped scaling %d", k);
        for (int i = 0; i < 5; i++)
            CHECK_SELF(fabs(u[i] - ref[i]) <= 1e-8, "undamped case %d ball %d: %.12g vs %.12g", k,
                       i, u[i], ref[i]);
    }
    const double dcases[][2] = {{1e4, 1e-2}, {1e-3, 7.0}};
    for (int k = 0; k < 2; k++) {
        run_scaled(dcases[k][0], dcases[k][1], 500.0, 1, 1, u);
        tu_case("damped scaling %d", k);
        for (int i = 0; i < 5; i++)
            CHECK_SELF(fabs(u[i] - refd[i]) <= 1e-8, "damped case %d ball %d: %.12g vs %.12g", k, i,
                       u[i], refd[i]);
    }
    tu_case(NULL);
    run_scaled(1, 1, 500.0, 1e-3, 1e-3, u);
    for (int i = 0; i < 5; i++)
        CHECK_SELF(fabs(u[i] - refd[i]) <= 1e-8, "damped, mm and ms, ball %d", i);
    tu_summary(f0, "scaling: u+/v invariant to 1e-8 under K x a, m x b (C x a^(n/(n+1)) "
                   "b^(1/(n+1))) and under units of length and time; unscaled = RK4");
}

int main(void)
{
    pendulum_period(0.05);
    pendulum_period(2.5);
    link_oscillator();
    ball_on_floor();
    glocker_rods();
    scaling();
    return tu_finish("test-fields");
}
