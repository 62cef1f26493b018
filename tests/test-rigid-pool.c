/*
 * The rigid engine on planar pools (cr_system_create_rigid on a dim-2 model)
 * against closed forms computed here: Bernoulli's three-disc pool (Acary &
 * Taha 2005 sect. 4, models/pool-bernoulli.yaml) under the energetic law and
 * under Newton's law (the 2×2 system of its two striker contacts), the
 * θ = π/4, τ = 0 pool under the energetic law (001 eq. 27), a disc bouncing
 * on a floor under gravity to its accumulation time, an off-centre collision
 * of two discs, and the inputs a rigid pool refuses. The monitor follows
 * every run: each impact is one instantaneous, complete episode.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "rigid-testutil.h"

#define G 9.81
#define R0 0.01
#define M0 0.0329

static const double zero[2] = {0.0, 0.0};

/* Bernoulli's pool (models/pool-bernoulli.yaml): a disc moving at v0 along x
 * strikes two touching discs at (0, ±r), 10 µm away, three equal discs;
 * @p wall adds the wall at x = 0.1 m. */
static cr_model *bernoulli(double v0, int wall)
{
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    double x0[2] = {-(sqrt(3.0) * R0 + 1e-5), 0.0}, v[2] = {v0, 0.0};
    double x1[2] = {0.0, R0}, x2[2] = {0.0, -R0};
    cr_model_add_body(m, M0, R0, x0, v);
    cr_model_add_body(m, M0, R0, x1, zero);
    cr_model_add_body(m, M0, R0, x2, zero);
    double n[2] = {-1.0, 0.0};
    if (wall)
        cr_model_add_plane(m, n, -0.1, NULL);
    return m;
}

/* Velocities now (6 values) of a 3-disc run. */
static void velocities(const rigid_run *r, double *u)
{
    cr_system_get_velocities(r->sys, u);
}

/* ---- Bernoulli under the energetic law ---------------------------------------- */

/*
 * Equal impulses P on the two striker contacts (α = 1 by symmetry, 001 sect.
 * 4), none on the contact between the struck discs (weight 0): u₀⁺ = (v0 −
 * √3 P/m, 0), u₁,₂⁺ = P/m (√3/2, ±1/2), and T⁺ = κ T⁻ gives 5p² − 2√3 p +
 * 1 − κ = 0 for p = P/(m v0), the larger root (001 eq. 19): for κ = 1
 * p = 2√3/5 and the elastic outcome (−1/5, 0), (3/5, ±√3/5) v0.
 */
static void test_bernoulli_energetic(double kappa)
{
    tu_case("Bernoulli energetic kappa = %g", kappa);
    const double v0 = 1.0;
    cr_model *model = bernoulli(v0, 0);
    cr_law_params lp;
    cr_law_params_init(&lp);
    double alpha[2] = {1.0, 0.0};
    lp.alpha = alpha;
    lp.kappa = kappa;
    rigid_run r = run_rigid_to(model, CR_LAW_ENERGETIC, &lp, 0.01);
    CHECK(r.rc == CR_OK, "Bernoulli energetic kappa %g ran", kappa);
    check_instantaneous(&r, 1, "Bernoulli energetic");
    double p = (sqrt(3.0) + sqrt(3.0 - 5.0 * (1.0 - kappa))) / 5.0, u[6];
    double want[6] = {v0 * (1.0 - sqrt(3.0) * p), 0.0,
                      v0 * p * sqrt(3.0) / 2.0,   v0 * p / 2.0,
                      v0 * p * sqrt(3.0) / 2.0,   -v0 * p / 2.0};
    velocities(&r, u);
    double worst = 0.0;
    for (int k = 0; k < 6; k++)
        worst = fmax(worst, fabs(u[k] - want[k]));
    printf("     Bernoulli energetic kappa %g: off the closed form by %.2e m/s; u+ = (%.12f, "
           "%.12f) (%.12f, %.12f) (%.12f, %.12f)\n",
           kappa, worst, u[0], u[1], u[2], u[3], u[4], u[5]);
    CHECK_REF(worst <= 1e-12 * v0,
              "Bernoulli energetic kappa %g: u+ off the closed form by %.3e m/s", kappa, worst);
    if (kappa == 1.0) {
        CHECK_REL(u[0], -0.2 * v0, 1e-12, "elastic symmetric outcome -1/5 (001 sect. 4)");
        CHECK_REL(u[2], 0.6 * v0, 1e-12, "3/5");
        CHECK_REL(u[3], sqrt(3.0) / 5.0 * v0, 1e-12, "sqrt(3)/5");
    }
    cr_episode_info in;
    size_t nr = 0;
    const cr_contact_record *rec = NULL;
    if (r.mon && cr_monitor_get_episode(r.mon, 0, &in) == CR_OK)
        rec = cr_monitor_contacts(r.mon, 0, &nr);
    CHECK(rec && nr == 3, "the impact configuration holds the three contacts (touching pair in)");
    for (size_t j = 0; rec && j < nr; j++)
        if (rec[j].body_b == 2 && rec[j].body_a == 1)
            CHECK_REF(fabs(rec[j].impulse) <= 1e-15, "no impulse between the struck discs (%g)",
                      rec[j].impulse);
    if (rec)
        CHECK_REL(in.kappa, kappa, 1e-12, "kappa = T+/T- as given");
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- θ = π/4, τ = 0 under the energetic law: 001 eq. 27 ------------------------ */

/*
 * Disc 1 strikes disc 2 along the line of centres at θ (unit speed), disc 2
 * touches disc 3 at (2r, 0) (models/pool-theta-tau.yaml). With impulse P on
 * contact 1-2 and αP on contact 2-3 (p = P/(m v0)): u₁⁺ = (1 − p)(cos θ,
 * sin θ), u₂⁺ = p(cos θ − α, sin θ), u₃⁺ = αp (1, 0); T⁺ = κT⁻ gives
 * A p² − 2p + 1 − κ = 0, A = 2 − 2α cos θ + 2α² (001 eq. 27, its larger root).
 */
static void test_theta_tau(double alpha, double kappa)
{
    tu_case("theta-tau alpha = %g kappa = %g", alpha, kappa);
    const double th = M_PI / 4.0, gap = 1e-5;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double x0[2] = {-(2 * R0 + gap) * cos(th), -(2 * R0 + gap) * sin(th)};
    double v[2] = {cos(th), sin(th)}, x1[2] = {0.0, 0.0}, x2[2] = {2 * R0, 0.0};
    cr_model_add_body(model, M0, R0, x0, v);
    cr_model_add_body(model, M0, R0, x1, zero);
    cr_model_add_body(model, M0, R0, x2, zero);
    cr_law_params lp;
    cr_law_params_init(&lp);
    double w[2] = {1.0, alpha};
    lp.alpha = w;
    lp.kappa = kappa;
    rigid_run r = run_rigid_to(model, CR_LAW_ENERGETIC, &lp, 0.005);
    CHECK(r.rc == CR_OK, "theta-tau energetic ran");
    check_instantaneous(&r, 1, "theta-tau");
    double A = 2.0 - 2.0 * alpha * cos(th) + 2.0 * alpha * alpha;
    double p = (1.0 + sqrt(1.0 - A * (1.0 - kappa))) / A, u[6];
    double want[6] = {cos(th) * (1 - p), sin(th) * (1 - p), (cos(th) - alpha) * p,
                      sin(th) * p,       alpha * p,         0.0};
    velocities(&r, u);
    double worst = 0.0;
    for (int k = 0; k < 6; k++)
        worst = fmax(worst, fabs(u[k] - want[k]));
    CHECK_REF(worst <= 1e-12,
              "theta = pi/4, alpha %g, kappa %g: u+ off 001 eq. 27 by %.3e m/s (tolerance 1e-12)",
              alpha, kappa, worst);
    printf("     theta-tau alpha %g kappa %g: |u+ - eq. 27| = %.2e m/s\n", alpha, kappa, worst);
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- Bernoulli under Newton's law: the 2×2 system --------------------------------- */

/*
 * Newton's law with restitution e when the two striker contacts take impulses
 * and the contact between the struck discs none: G P = −(1 + e) γ⁻ with
 * G = WᵀM⁻¹W (2×2, solved by Cramer's rule), u⁺ = u⁻ + M⁻¹ W P. Checked
 * admissible here (P ≥ 0, the third contact separating), then compared.
 */
static void newton_reference(double e, double v0, double *u)
{
    double n1[2] = {sqrt(3.0) / 2.0, 0.5}, n2[2] = {sqrt(3.0) / 2.0, -0.5}, im = 1.0 / M0;
    /* columns: contact 0-1 is −n1 on disc 0, +n1 on disc 1; contact 0-2 likewise */
    double W[6][2] = {{-n1[0], -n2[0]}, {-n1[1], -n2[1]}, {n1[0], 0},
                      {n1[1], 0},       {0, n2[0]},       {0, n2[1]}};
    double um[6] = {v0, 0, 0, 0, 0, 0}, Gm[2][2] = {{0, 0}, {0, 0}}, g[2] = {0, 0};
    for (int a = 0; a < 2; a++) {
        for (int d = 0; d < 6; d++)
            g[a] += W[d][a] * um[d];
        for (int b = 0; b < 2; b++)
            for (int d = 0; d < 6; d++)
                Gm[a][b] += W[d][a] * im * W[d][b];
    }
    double det = Gm[0][0] * Gm[1][1] - Gm[0][1] * Gm[1][0];
    double b0 = -(1 + e) * g[0], b1 = -(1 + e) * g[1];
    double P[2] = {(b0 * Gm[1][1] - Gm[0][1] * b1) / det, (Gm[0][0] * b1 - Gm[1][0] * b0) / det};
    for (int d = 0; d < 6; d++)
        u[d] = um[d] + im * (W[d][0] * P[0] + W[d][1] * P[1]);
    double g12 = -(u[5] - u[3]); /* n from disc 1 (0, r) to disc 2 (0, −r) is (0, −1) */
    CHECK_REF(P[0] >= 0 && P[1] >= 0 && g12 >= 0,
              "Newton e = %g: the 2-contact answer is admissible", e);
}

static void test_bernoulli_newton(double e)
{
    tu_case("Bernoulli Newton e = %g", e);
    const double v0 = 1.0;
    cr_model *model = bernoulli(v0, 0);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.01);
    CHECK(r.rc == CR_OK, "Bernoulli Newton e = %g ran", e);
    check_instantaneous(&r, 1, "Bernoulli Newton");
    double u[6], want[6], p[2];
    velocities(&r, u);
    newton_reference(e, v0, want);
    double worst = 0.0;
    for (int k = 0; k < 6; k++)
        worst = fmax(worst, fabs(u[k] - want[k]));
    CHECK_REF(worst <= 1e-12, "Newton e = %g: u+ off the 2x2 solution by %.3e m/s", e, worst);
    printf("     Bernoulli Newton e = %g: |u+ - 2x2 closed form| = %.2e m/s\n", e, worst);
    cr_system_momentum(r.sys, p);
    CHECK_INV(fabs(p[0] - M0 * v0) <= 1e-15 && fabs(p[1]) <= 1e-15,
              "momentum kept: (%.17g, %.3g) vs (%.17g, 0) N s", p[0], p[1], M0 * v0);
    if (e == 1.0) {
        double exact[6] = {-0.2, 0.0, 0.6, sqrt(3.0) / 5.0, 0.6, -sqrt(3.0) / 5.0};
        worst = 0.0;
        for (int k = 0; k < 6; k++)
            worst = fmax(worst, fabs(u[k] - exact[k] * v0));
        CHECK_REF(worst <= 1e-12, "Newton e = 1 is the elastic (-1/5, 0), (3/5, +-sqrt3/5): %.3e",
                  worst);
    }
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- a disc on a floor under gravity ---------------------------------------------- */

/*
 * A disc released with its bottom h above a floor (wall normal (0, 1)),
 * sliding along x at vx, gravity (0, −g), Newton's law with restitution e.
 * Closed form: first impact t₁ = √(2h/g) at v₁ = g t₁, impact k at
 * t_k = t₁ + 2t₁ Σ_{j=1}^{k−1} eʲ, approach speed e^(k−1) v₁, accumulation
 * t∞ = t₁(1 + e)/(1 − e). The accumulation rule (docs/design.md, "Rigid
 * pools") ends the bouncing at the first impact leaving slower than the rest
 * speed 1e-6 V: the disc then slides on the floor, y = r, carrying m g.
 */
static void test_floor(double e)
{
    tu_case("floor e = %g", e);
    const double h = 0.1, m = 0.01, vx = 0.3;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double x[2] = {0.0, R0 + h}, v[2] = {vx, 0.0}, n[2] = {0.0, 1.0}, g[2] = {0.0, -G};
    cr_model_add_body(model, m, R0, x, v);
    cr_model_add_plane(model, n, 0.0, NULL);
    cr_model_set_gravity_vector(model, g);
    double t1 = sqrt(2.0 * h / G), v1 = G * t1, tinf = t1 * (1.0 + e) / (1.0 - e);
    double t_end = tinf + 0.2;
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, t_end);
    CHECK(r.rc == CR_OK, "floor e = %g ran", e);
    double V, v_rest;
    cr_system_get_scales(r.sys, NULL, &V, NULL);
    v_rest = 1e-6 * V;
    size_t K = 1;
    while (pow(e, (double)K) * v1 > v_rest)
        K++;
    check_instantaneous(&r, K, "floor");
    size_t ne = cr_monitor_episode_count(r.mon);
    double tk = t1, worst_t = 0.0, worst_v = 0.0, t_last = 0.0;
    for (size_t k = 0; k < ne; k++) {
        cr_episode_info in;
        size_t nb;
        cr_monitor_get_episode(r.mon, k, &in);
        const double *ub = cr_monitor_velocities(r.mon, k, 0, &nb);
        worst_t = fmax(worst_t, fabs(in.t_start - tk) / t1);
        worst_v = fmax(worst_v, fabs(ub[1] + pow(e, (double)k) * v1) / v1);
        t_last = in.t_start;
        tk += 2.0 * t1 * pow(e, (double)k + 1.0);
    }
    printf("     floor e = %g: %zu impacts; times off the closed form by %.2e t1, approach "
           "speeds by %.2e v1\n",
           e, ne, worst_t, worst_v);
    CHECK_REF(worst_t <= 1e-12 && worst_v <= 1e-12,
              "e = %g: impact times %.3e t1, speeds %.3e v1 off the closed form (tolerance 1e-12)",
              e, worst_t, worst_v);
    /* what the bounces left after the last one add: 2 e^K v1 / (g (1 − e)) ≤ 2 v_rest/(g(1−e)) */
    double rest = 2.0 * v_rest / (G * (1.0 - e));
    CHECK_REF(t_last <= tinf && tinf - t_last <= rest,
              "e = %g: last impact %.12g s, t_inf = t1(1+e)/(1-e) = %.12g s (within %.2e s)", e,
              t_last, tinf, rest);
    double p[2], u[2];
    cr_system_get_positions(r.sys, p);
    cr_system_get_velocities(r.sys, u);
    CHECK_REF(u[1] == 0.0 && fabs(p[1] - R0) <= 1e-15, "resting on the floor: y = %.17g, vy = %g",
              p[1], u[1]);
    CHECK_REL(p[0], vx * t_end, 1e-12, "sliding along the floor at vx (frictionless)");
    cr_contact_view w;
    CHECK(cr_system_contact_count(r.sys) == 1 && cr_system_get_contact(r.sys, 0, &w) == CR_OK &&
              w.state == CR_CONTACT_LOADED,
          "the floor contact is loaded");
    CHECK_REL(w.force, m * G, 1e-12, "resting force m g");
    double E0 = 0.5 * m * vx * vx + m * G * (R0 + h);
    double E = cr_system_kinetic_energy(r.sys) + cr_system_potential_energy(r.sys) +
               cr_system_dissipated_work(r.sys);
    CHECK_REL_INV(E, E0, 1e-12, "T + U + dissipated = E0");
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- a falling disc meets a resting one: the quartic ------------------------------- */

/*
 * Disc A rests on a floor, sliding at (0.5, 0) m/s; disc B flies at (1, 0) m/s
 * from 5 cm behind and 5 cm above it, falling under gravity. Their relative
 * motion is D(t) = D₀ + w t + ½ g t² (A's acceleration is 0, B's g): the
 * contact time is the first root of the quartic |D(t)|² − (2r)², which the
 * engine brackets between its derivative's roots. Reference computed here
 * independently: the first sign change of |D(t)| − 2r on a grid of 10⁵
 * points, refined by bisection. The impact configuration holds A's floor
 * contact (resting, touching); x-momentum is kept (the floor pushes along y).
 */
/* |D(t)| − 2r of test_falling_on_resting's discs, from their start. */
static double falling_gap(double t)
{
    return hypot(-0.05 + 0.5 * t, 0.05 - 0.5 * G * t * t) - 2 * R0;
}

static void test_falling_on_resting(void)
{
    tu_case(NULL);
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double xa[2] = {0.0, R0}, va[2] = {0.5, 0.0}, xb[2] = {-0.05, R0 + 0.05}, vb[2] = {1.0, 0.0};
    double n[2] = {0.0, 1.0}, g[2] = {0.0, -G};
    cr_model_add_body(model, M0, R0, xa, va);
    cr_model_add_body(model, M0, R0, xb, vb);
    cr_model_add_plane(model, n, 0.0, NULL);
    cr_model_set_gravity_vector(model, g);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.09);
    CHECK(r.rc == CR_OK, "falling on a resting disc ran");
    /* the reference contact time */
    double t0 = 0.0, t1 = 0.0, h = 0.09 / 1e5;
    for (int k = 1; k <= 100000 && t1 == 0.0; k++)
        if (falling_gap(k * h) <= 0.0) {
            t0 = (k - 1) * h;
            t1 = k * h;
        }
    for (int it = 0; it < 200; it++) {
        double m = 0.5 * (t0 + t1);
        if (falling_gap(m) <= 0.0)
            t1 = m;
        else
            t0 = m;
    }
    cr_episode_info in;
    size_t nr = 0;
    int got = r.mon && cr_monitor_get_episode(r.mon, 0, &in) == CR_OK;
    if (got)
        cr_monitor_contacts(r.mon, 0, &nr);
    CHECK(got && t1 > 0.0, "an impact (reference contact time %.15g s)", t1);
    if (got)
        CHECK_REL(in.t_start, t1, 1e-12, "first root of |D(t)|^2 - (2r)^2 (grid + bisection)");
    CHECK(nr == 2, "the configuration holds the pair and A's floor contact (%zu contacts)", nr);
    double p[2];
    cr_system_momentum(r.sys, p);
    CHECK_INV(fabs(p[0] - M0 * 1.5) <= 1e-15, "x-momentum kept: %.17g vs %.17g N s", p[0],
              M0 * 1.5);
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- an off-centre collision ------------------------------------------------------ */

/*
 * Disc A (m₁, r₁) at the origin moving at (1, 0) meets disc B (m₂, r₂) at rest
 * at (d, b), |b| < R = r₁ + r₂: contact at t = d − √(R² − b²), normal
 * n = (√(R² − b²), b)/R, γ⁻ = −n_x; Newton's law with one contact:
 * P = (1 + e) n_x / (1/m₁ + 1/m₂), u_A⁺ = (1, 0) − P n/m₁, u_B⁺ = P n/m₂.
 * One contact: every law that takes a restitution gives the same answer
 * (the sequential law's pairwise stage is Newton's).
 */
static void test_off_centre(cr_law_id law)
{
    tu_case("off-centre %s", cr_law_name(law));
    const double m1 = 1.0, m2 = 2.0, r1 = 0.01, r2 = 0.015, R = r1 + r2, d = 0.1, b = 0.012;
    const double e = 0.8;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double xa[2] = {0.0, 0.0}, va[2] = {1.0, 0.0}, xb[2] = {d, b};
    cr_model_add_body(model, m1, r1, xa, va);
    cr_model_add_body(model, m2, r2, xb, zero);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run r = run_rigid_to(model, law, &lp, 0.2);
    CHECK(r.rc == CR_OK, "off-centre (%s) ran", cr_law_name(law));
    check_instantaneous(&r, 1, "off-centre");
    double c = sqrt(R * R - b * b), n[2] = {c / R, b / R};
    double P = (1.0 + e) * n[0] / (1.0 / m1 + 1.0 / m2);
    double want[4] = {1.0 - P * n[0] / m1, -P * n[1] / m1, P * n[0] / m2, P * n[1] / m2}, u[4];
    cr_system_get_velocities(r.sys, u);
    double worst = 0.0;
    for (int k = 0; k < 4; k++)
        worst = fmax(worst, fabs(u[k] - want[k]));
    CHECK_REF(worst <= 1e-13, "off-centre %s: u+ off the oblique-impact closed form by %.3e m/s",
              cr_law_name(law), worst);
    printf("     off-centre (%s): |u+ - closed form| = %.2e m/s\n", cr_law_name(law), worst);
    cr_episode_info in;
    if (cr_monitor_get_episode(r.mon, 0, &in) == CR_OK) {
        CHECK_REL(in.t_start, d - c, 1e-12, "contact time d - sqrt(R^2 - b^2)");
        size_t nr;
        const double *nn = cr_monitor_normals(r.mon, 0, &nr);
        const double *pv = cr_monitor_vector_impulses(r.mon, 0, &nr);
        CHECK_REF(nr == 1 && fabs(nn[0] - n[0]) <= 1e-12 && fabs(nn[1] - n[1]) <= 1e-12,
                  "normal at impact (%.15g, %.15g)", nn[0], nn[1]);
        CHECK_REF(nr == 1 && fabs(pv[0] - P * n[0]) <= 1e-12 && fabs(pv[1] - P * n[1]) <= 1e-12,
                  "vector impulse P n");
    }
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- compare over a run ------------------------------------------------------- */

/*
 * models/pool-bernoulli.yaml compliant (steel, Hertz from the material)
 * against rigid Newton e = 1 (cr_compare_runs): three collisions each,
 * the two wall hits at one instant in the rigid run matched to the compliant
 * ones by their bodies (same_bodies on every row). Tolerance 10⁻³ V on u⁺:
 * the compliant u⁺ is 3.3·10⁻⁴ V off the rigid one (docs/compare.md, the
 * rigid limit: its discs turn their normals during contact).
 */
static void test_compare_run(void)
{
    tu_case(NULL);
    cr_model *model = bernoulli(1.0, 1);
    for (size_t i = 0; i < 3; i++)
        cr_model_set_material(model, i, 2.1e11, 0.3);
    cr_model_set_plane_material(model, 0, 2.1e11, 0.3);
    char msg[512];
    cr_system *cs = cr_system_create(model, msg, sizeof msg);
    cr_monitor *cm = cs ? cr_monitor_create(cs) : NULL;
    int rc = cm ? cr_system_run(cs, 0.2) : CR_ERR_INVALID;
    cr_monitor_finish(cm);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.2);
    cr_compare_runs_row rows[4];
    cr_compare_runs_summary sum;
    CHECK(rc == CR_OK && r.rc == CR_OK && cr_compare_runs(cm, r.mon, rows, 4, &sum) == CR_OK,
          "compliant and rigid Bernoulli runs compared");
    CHECK(sum.matched == 3, "3 collisions matched (%zu)", sum.matched);
    for (size_t k = 0; k < sum.matched && k < 4; k++)
        CHECK_SELF(rows[k].same_bodies && rows[k].velocity_after_error <= 1e-3,
                   "collision %zu: same bodies %d, |du+|/V = %.3e", k, rows[k].same_bodies,
                   rows[k].velocity_after_error);
    run_free(&r);
    cr_monitor_destroy(cm);
    cr_system_destroy(cs);
    cr_model_destroy(model);
}

/* ---- touching at rest, near-tangent passes ---------------------------------------- */

/*
 * Two equal discs resting on a floor under gravity, B sliding at 1 m/s into
 * A at rest: the impact configuration holds the disc pair (approaching) and
 * both floor contacts (touching at rest, loaded). Newton's law with e = 1 on
 * a horizontal line of centres: the velocities are exchanged (the 1-D
 * two-body result, the floor normals being orthogonal to the line of
 * centres take no impulse); both discs keep resting on the floor.
 */
static void test_on_floor_exchange(void)
{
    tu_case(NULL);
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double xb[2] = {-0.1, R0}, vb[2] = {1.0, 0.0}, xa[2] = {0.0, R0};
    double n[2] = {0.0, 1.0}, g[2] = {0.0, -G};
    cr_model_add_body(model, M0, R0, xb, vb);
    cr_model_add_body(model, M0, R0, xa, zero);
    cr_model_add_plane(model, n, 0.0, NULL);
    cr_model_set_gravity_vector(model, g);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.2);
    CHECK(r.rc == CR_OK, "sliding discs on a floor ran");
    check_instantaneous(&r, 1, "sliding discs");
    size_t nr = 0;
    const cr_contact_record *rec = r.mon ? cr_monitor_contacts(r.mon, 0, &nr) : NULL;
    CHECK(nr == 3, "the impact holds the pair and both resting floor contacts (%zu)", nr);
    double u[4], p[4];
    cr_system_get_velocities(r.sys, u);
    cr_system_get_positions(r.sys, p);
    CHECK_REF(fabs(u[0]) <= 1e-15 && fabs(u[2] - 1.0) <= 1e-15 && u[1] == 0.0 && u[3] == 0.0,
              "velocities exchanged: (%g, %g) (%g, %g)", u[0], u[1], u[2], u[3]);
    /* B stops where it met A (x = −2r); A slides on for 0.2 − t_c */
    double tc = 0.1 - 2 * R0;
    CHECK_REF(fabs(p[0] + 2 * R0) <= 1e-15 && fabs(p[2] - (0.2 - tc)) <= 1e-14 &&
                  fabs(p[1] - R0) <= 1e-15 && fabs(p[3] - R0) <= 1e-15,
              "positions: B at (%.17g, %.17g), A at (%.17g, %.17g)", p[0], p[1], p[2], p[3]);
    for (size_t j = 0; rec && j < nr; j++)
        if (rec[j].body_b < 0)
            CHECK_REF(fabs(rec[j].impulse) <= 1e-15, "no impulse through the floor (%g)",
                      rec[j].impulse);
    run_free(&r);
    cr_model_destroy(model);
}

/*
 * Near-tangent passes: disc A at (1, 0) m/s towards disc B at rest whose
 * centre is off the line by b = R (1 ± 1e-13). Outside: the closed form has
 * no real contact time (the relative distance's minimum is b > R). Inside:
 * they touch with γ = −√(1 − (b/R)²) ≈ −4.5e-7 m/s, slower than the rest
 * speed 1e-6 V: a landing, not an impact (no episode), and the pass goes on.
 * Either way the run ends by the automatic rule, velocities within the rest
 * speed of their start, and never loops.
 */
static void test_grazing(double rel)
{
    tu_case("grazing %g", rel);
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    double R = 2 * R0, xa[2] = {0.0, 0.0}, va[2] = {1.0, 0.0}, xb[2] = {0.1, R * (1.0 + rel)};
    cr_model_add_body(model, M0, R0, xa, va);
    cr_model_add_body(model, M0, R0, xb, zero);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.0);
    CHECK(r.rc == CR_OK &&
              strcmp(cr_system_end_reason(r.sys), "all contacts open and separating") == 0,
          "grazing (b = R (1 %+g)) ran to the automatic end", rel);
    check_instantaneous(&r, 0, "grazing");
    double u[4];
    cr_system_get_velocities(r.sys, u);
    double dv = fmax(fmax(fabs(u[0] - 1.0), fabs(u[1])), fmax(fabs(u[2]), fabs(u[3])));
    CHECK_REF(dv <= 1e-6, "grazing (b = R (1 %+g)): velocities moved by %.3e m/s <= 1e-6 V", rel,
              dv);
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- automatic end and refusals ------------------------------------------------------ */

static void test_automatic_end(void)
{
    tu_case(NULL);
    cr_model *model = bernoulli(1.0, 0);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    rigid_run r = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.0);
    CHECK(r.rc == CR_OK &&
              strcmp(cr_system_end_reason(r.sys), "all contacts open and separating") == 0,
          "automatic end without walls: %s", r.sys ? cr_system_end_reason(r.sys) : "-");
    double u[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    if (r.sys)
        velocities(&r, u);
    CHECK_REF(fabs(u[0] + 0.2) <= 1e-12 && fabs(u[2] - 0.6) <= 1e-12 && r.sys &&
                  cr_system_get_time(r.sys) < 1.0,
              "automatic end at the impact: elastic outcome (%g, %g), t = %g s", u[0], u[2],
              r.sys ? cr_system_get_time(r.sys) : NAN);
    CHECK(r.sys && cr_system_dimension(r.sys) == 2 &&
              strcmp(cr_system_engine_name(r.sys), "rigid") == 0,
          "a dim-2 rigid system");
    CHECK(r.sys && cr_system_rigid_set_provider(r.sys, NULL, NULL, NULL) == CR_ERR_INVALID,
          "per-impact parameters refused on a pool");
    run_free(&r);
    cr_model_destroy(model);
}

static void test_refusals(void)
{
    /* a stack: disc 1 resting on disc 0 resting on the floor */
    cr_model *stack = cr_model_create();
    cr_model_set_dimension(stack, 2);
    double x0[2] = {0.0, R0}, x1[2] = {0.0, 3 * R0}, n[2] = {0.0, 1.0}, g[2] = {0.0, -G};
    cr_model_add_body(stack, M0, R0, x0, zero);
    cr_model_add_body(stack, M0, R0, x1, zero);
    cr_model_add_plane(stack, n, 0.0, NULL);
    cr_model_set_gravity_vector(stack, g);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 0.5;
    expect_refused(stack, CR_LAW_NEWTON, &lp, "not stacks", "a stack at rest");

    /* a stack that forms: disc 1 dropped onto disc 0 resting on the floor
     * bounces (e = 0.5) until the accumulation rule would rest it on disc 0:
     * the run stops there with the same line, after finitely many impacts */
    double x2[2] = {0.0, 3 * R0 + 0.01};
    cr_model *drop = cr_model_create();
    cr_model_set_dimension(drop, 2);
    cr_model_add_body(drop, M0, R0, x0, zero);
    cr_model_add_body(drop, M0, R0, x2, zero);
    cr_model_add_plane(drop, n, 0.0, NULL);
    cr_model_set_gravity_vector(drop, g);
    rigid_run r = run_rigid_to(drop, CR_LAW_NEWTON, &lp, 1.0);
    CHECK(r.rc == CR_ERR_SOLVER && strstr(cr_system_last_error(r.sys), "not stacks") &&
              cr_system_get_time(r.sys) < 1.0,
          "a stack forming mid-run stops it at t = %g s: %s",
          r.sys ? cr_system_get_time(r.sys) : NAN, r.sys ? cr_system_last_error(r.sys) : "-");
    /* disc 0 stays put (Newton's LCP: the floor contact keeps γ⁺ = 0), so
     * disc 1 bounces as on a floor: it would rest at t∞ = t₁(1 + e)/(1 − e),
     * t₁ = √(2h/g), h = 1 cm, and stops within 2 v_rest/(g(1 − e)) before */
    double V = 1.0, t1 = sqrt(2.0 * 0.01 / G), tinf = t1 * 1.5 / 0.5;
    if (r.sys)
        cr_system_get_scales(r.sys, NULL, &V, NULL);
    double ts = r.sys ? cr_system_get_time(r.sys) : NAN, tail = 2e-6 * V / (G * 0.5);
    CHECK_REF(ts <= tinf && tinf - ts <= tail,
              "the stack forms at %.12g s, t_inf %.12g s (within %.2e s)", ts, tinf, tail);
    run_free(&r);
    cr_model_destroy(drop);

    cr_model *damped = bernoulli(1.0, 1);
    cr_contact_params cp;
    cr_contact_params_init(&cp, 1e6, 1.5, 50.0, CR_RELEASE_FORCE);
    cr_model_set_default_contact(damped, &cp);
    expect_refused(damped, CR_LAW_NEWTON, NULL, "--restitution", "a damped pool, no restitution");
    cr_law_params_init(&lp);
    expect_refused(damped, CR_LAW_ENERGETIC, &lp, "alpha", "energetic without alpha");
    cr_law_params_init(&lp);
    lp.restitution = 1.5;
    expect_refused(damped, CR_LAW_NEWTON, &lp, "[0, 1]", "restitution 1.5");

    cr_model *floor = bernoulli(1.0, 0);
    cr_model_set_gravity_vector(floor, g);
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    char msg[256];
    cr_system *sys = cr_system_create_rigid(floor, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    CHECK(sys && cr_system_run(sys, 0.0) == CR_ERR_INVALID &&
              strstr(cr_system_last_error(sys), "end time"),
          "gravity needs an end time");
    cr_system_destroy(sys);
    cr_model_destroy(stack);
    cr_model_destroy(damped);
    cr_model_destroy(floor);
}

int main(void)
{
    test_bernoulli_energetic(1.0);
    test_bernoulli_energetic(0.64);
    test_theta_tau(0.5, 1.0);
    test_theta_tau(0.6, 0.8);
    test_bernoulli_newton(1.0);
    test_bernoulli_newton(0.5);
    test_floor(0.5);
    test_floor(0.8);
    test_falling_on_resting();
    test_off_centre(CR_LAW_NEWTON);
    test_off_centre(CR_LAW_SEQUENTIAL);
    test_off_centre(CR_LAW_POISSON);
    test_compare_run();
    test_on_floor_exchange();
    test_grazing(1e-13);
    test_grazing(-1e-13);
    test_automatic_end();
    tu_case(NULL);
    test_refusals();
    return tu_finish("test-rigid-pool");
}
