/*
 * The rigid limit (issue 9, "Rigid limit and finite compliance"), on the planar
 * three-disc pool of ../shared/seeds/001 sect. 4 (models/pool-theta-tau.yaml:
 * θ = π/4, τ = 0, steel discs, Hertz n = 3/2):
 *
 * - `integration.normals: frozen` is parsed, refused in chains and for a bad
 *   value with the field named;
 * - frozen normals: the same pool at K and 100 K (C scaled by 100^((m+1)/(n+1)),
 *   written out here, not by the module) has the same α and u⁺ to 1e-9: the
 *   frozen pool is scale-invariant, and so under m → 4m (C × 4^(2/5)) and in
 *   grams, centimetres and milliseconds (001 sect. 3.4); the force stays on the frozen normal
 *   (Jacobian = central differences mid-impact, normal unchanged while the line
 *   of centres turns);
 * - cr_compare_rigid_limit on turning normals: α and u⁺ extrapolated to K → ∞
 *   equal the frozen-normal run to 1e-6; their observed order in
 *   h = K^(−1/(n+1)) is 1 (±0.05); the episode duration goes as K^(−1/(n+1))
 *   = K^(−0.4) (±1e-4 on the exponent; ±1e-6 with frozen normals, where it is
 *   exact); the first-touch-W momentum residual goes as K^(−0.4) too (±1e-3),
 *   and is at the integration tolerance (≤ 1e-9) with frozen normals;
 * - Bernoulli's configuration (θ = 2π/3): the extrapolated u⁺ is the
 *   closed-form elastic symmetric outcome (−1/5, 0), (3/5, ±√3/5) to 1e-6.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

#define THETA_TAU CR_TEST_DATA "/../../models/pool-theta-tau.yaml"

/* Hertz n = 3/2, default damping exponent m = n − 1 = 1/2: C scales as
 * a^((m+1)/(n+1)) = a^(3/5) for the same restitution (compare-rigid-limit.c). */
#define C_EXPONENT 0.6

static cr_model *parse(const char *text)
{
    char msg[512];
    cr_model *m = NULL;
    if (cr_modelfile_parse(text, strlen(text), "test.yaml", &m, msg, sizeof msg) != CR_OK)
        printf("parse: %s\n", msg);
    return m;
}

static cr_model *load(const char *path, int frozen)
{
    char msg[512];
    cr_model *m = NULL;
    if (cr_modelfile_load(path, &m, NULL, msg, sizeof msg) != CR_OK) {
        printf("FAIL load %s: %s\n", path, msg);
        exit(1);
    }
    cr_settings s = *cr_model_settings(m);
    s.frozen_normals = frozen;
    cr_model_set_settings(m, &s);
    return m;
}

/* A run with a monitor; exits when it cannot be built. */
typedef struct {
    cr_system *sys;
    cr_monitor *mon;
    cr_episode_data ep;
} run_t;

static run_t run(const cr_model *m)
{
    char msg[512];
    run_t r = {0};
    r.sys = cr_system_create(m, msg, sizeof msg);
    if (!r.sys) {
        printf("FAIL create: %s\n", msg);
        exit(1);
    }
    r.mon = cr_monitor_create(r.sys);
    int rc = cr_system_run(r.sys, cr_model_settings(m)->t_end);
    cr_monitor_finish(r.mon);
    if (rc != CR_OK || cr_monitor_episode_data(r.mon, 0, &r.ep) != CR_OK) {
        printf("FAIL run: %s\n", cr_system_last_error(r.sys));
        exit(1);
    }
    return r;
}

static void release(run_t *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
}

static void modelfile_option(void)
{
    cr_model *m = parse("dim: 2\nbodies:\n  - {mass: 1, radius: 0.01, x: [0, 0]}\n"
                        "contact: {K: 1.0e9}\nintegration: {normals: frozen}\n");
    CHECK(m && cr_model_settings(m)->frozen_normals == 1, "normals: frozen read");
    cr_model_destroy(m);
    m = parse("dim: 2\nbodies:\n  - {mass: 1, radius: 0.01, x: [0, 0]}\ncontact: {K: 1.0e9}\n");
    CHECK(m && cr_model_settings(m)->frozen_normals == 0, "turning is the default");
    cr_model_destroy(m);
    char msg[512] = "";
    const char *bad = "dim: 2\nbodies:\n  - {mass: 1, radius: 0.01, x: [0, 0]}\n"
                      "contact: {K: 1.0e9}\nintegration: {normals: fixed}\n";
    m = NULL;
    int rc = cr_modelfile_parse(bad, strlen(bad), "bad.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, "bad.yaml:5") &&
              strstr(msg, "integration.normals"),
          "bad value: %s", msg);
    const char *chain = "balls:\n  - {mass: 1, radius: 0.01, x: 0}\n"
                        "contact: {K: 1.0e9}\nintegration: {normals: frozen}\n";
    rc = cr_modelfile_parse(chain, strlen(chain), "chain.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, "integration.normals") && strstr(msg, "dim 2"),
          "chain refused: %s", msg);
}

/* The 001 sect. 4 pool with an explicit damped Hertz law K, C (frozen normals),
 * masses @p mass, lengths times @p L and velocities times @p V (a change of
 * units, or of mass, is then a matter of K and C: see units_and_masses). */
static cr_model *pool_scaled(double K, double C, double mass, double L, double V)
{
    char text[2048];
    snprintf(text, sizeof text,
             "dim: 2\nbodies:\n"
             "  - {mass: %.17g, radius: %.17g, x: [%.17g, %.17g], v: [%.17g, %.17g]}\n"
             "  - {mass: %.17g, radius: %.17g, x: [0.0, 0.0]}\n"
             "  - {mass: %.17g, radius: %.17g, x: [%.17g, 0.0]}\n"
             "contact: {K: %.17g, n: 1.5, C: %.17g, release: gap}\n"
             "integration: {rtol: 1.0e-12, atol: %.17g, normals: frozen}\n",
             mass, 0.01 * L, -0.014149206691542817 * L, -0.014149206691542815 * L,
             0.7071067811865476 * V, 0.7071067811865475 * V, mass, 0.01 * L, mass, 0.01 * L,
             0.02 * L, K, C, 1e-14 * fmin(L, V));
    return parse(text);
}

static cr_model *damped_pool(double K, double C)
{
    return pool_scaled(K, C, 0.0329, 1.0, 1.0);
}

/* Frozen normals make the pool scale-invariant: K → 100 K with C → 100^(3/5) C
 * changes nothing but the time scale. C = 2e4 gives κ ≈ 0.8 (a real test of
 * the damping scaling: unscaled C changes κ by far more than 1e-9). */
static void frozen_is_scale_invariant(void)
{
    const double K = 1.0878565e10, C = 2.0e4;
    cr_model *m1 = damped_pool(K, C), *m2 = damped_pool(100 * K, pow(100, C_EXPONENT) * C);
    cr_model *m3 = damped_pool(100 * K, C);
    if (!m1 || !m2 || !m3) {
        CHECK(0, "damped pools parse");
        return;
    }
    run_t a = run(m1), b = run(m2), c = run(m3);
    const cr_contact_record *ra = a.ep.records, *rb = b.ep.records;
    int f0 = tu_failed;
    CHECK(a.ep.info.contact_count == 2 && b.ep.info.contact_count == 2, "two contacts each");
    CHECK_REL_SELF(rb[1].alpha, ra[1].alpha, 1e-9, "frozen alpha(100 K) = alpha(K)");
    CHECK_REL_SELF(b.ep.info.kappa, a.ep.info.kappa, 1e-9, "frozen kappa(100 K) = kappa(K)");
    double du = 0.0;
    for (size_t q = 0; q < 6; q++)
        du = fmax(du, fabs(a.ep.velocity_after[q] - b.ep.velocity_after[q]));
    CHECK_SELF(du < 1e-9, "frozen u+(100 K) = u+(K) to 1e-9 m/s (V = 1 m/s): %.2e", du);
    tu_summary(f0, "frozen, damped (kappa %.6f): alpha %.12f vs %.12f, |du+| %.1e m/s",
               a.ep.info.kappa, ra[1].alpha, rb[1].alpha, du);
    CHECK_SELF(fabs(c.ep.info.kappa - a.ep.info.kappa) > 1e-3,
               "without the C scaling kappa moves: %.6f vs %.6f", c.ep.info.kappa, a.ep.info.kappa);
    /* the duration scales as K^(-1/(n+1)) exactly */
    double da = a.ep.info.t_end - a.ep.info.t_start, db = b.ep.info.t_end - b.ep.info.t_start;
    CHECK_REL(db / da, pow(100, -0.4), 1e-8, "frozen duration ratio = 100^(-1/(n+1))");
    release(&a);
    release(&b);
    release(&c);
    cr_model_destroy(m1);
    cr_model_destroy(m2);
    cr_model_destroy(m3);
}

/* 001 sect. 3.4 on frozen-normal pools: α and κ are invariant under m → bm
 * with C → b^((n−m)/(n+1)) C (K fixed; n = 3/2, m = 1/2: b^(2/5)), and under a
 * change of units (mass ×μ, length ×λ, time ×τ: K ×μλ^(1−n)τ^(−2), C
 * ×μλ^(−m)τ^(−1)), where u⁺ scales as λ/τ. Here b = 4 and grams, centimetres,
 * milliseconds (μ = 1000, λ = 100, τ = 1000). */
static void units_and_masses(void)
{
    const double K = 1.0878565e10, C = 2.0e4, m = 0.0329, b = 4.0;
    const double mu = 1000.0, lam = 100.0, tau = 1000.0, V = lam / tau;
    cr_model *m1 = damped_pool(K, C);
    cr_model *m2 = pool_scaled(K, pow(b, 0.4) * C, b * m, 1.0, 1.0);
    cr_model *m3 = pool_scaled(K * mu * pow(lam, -0.5) / (tau * tau), C * mu / (sqrt(lam) * tau),
                               mu * m, lam, V);
    if (!m1 || !m2 || !m3) {
        CHECK(0, "scaled pools parse");
        return;
    }
    run_t a = run(m1), r2 = run(m2), r3 = run(m3);
    const run_t *scaled[2] = {&r2, &r3};
    const char *what[2] = {"m -> 4m", "g, cm, ms"};
    const double vscale[2] = {1.0, V};
    for (size_t k = 0; k < 2; k++) {
        const run_t *r = scaled[k];
        int f0 = tu_failed;
        tu_case("frozen pool, %s", what[k]);
        CHECK_SELF(fabs(r->ep.records[1].alpha / a.ep.records[1].alpha - 1) <= 1e-9,
                   "frozen alpha invariant (%s)", what[k]);
        CHECK_SELF(fabs(r->ep.info.kappa / a.ep.info.kappa - 1) <= 1e-9,
                   "frozen kappa invariant (%s)", what[k]);
        double du = 0.0;
        for (size_t q = 0; q < 6; q++)
            du = fmax(du, fabs(r->ep.velocity_after[q] / vscale[k] - a.ep.velocity_after[q]));
        CHECK_SELF(du < 1e-9, "u+ scales as lambda/tau (%s): %.2e", what[k], du);
        tu_summary(f0, "frozen pool, %s: alpha %.12f vs %.12f, kappa %.12f vs %.12f", what[k],
                   r->ep.records[1].alpha, a.ep.records[1].alpha, r->ep.info.kappa,
                   a.ep.info.kappa);
    }
    tu_case(NULL);
    release(&a);
    release(&r2);
    release(&r3);
    cr_model_destroy(m1);
    cr_model_destroy(m2);
    cr_model_destroy(m3);
}

/* Mid-impact with frozen normals: the Jacobian (no turning terms) matches
 * central differences, and contact 1-2's normal is the one at its first touch,
 * (1, 0), while the line of centres has turned. */
static void frozen_mid_impact(void)
{
    cr_model *m = load(THETA_TAU, 1);
    cr_settings s = *cr_model_settings(m);
    s.solver = CR_SOLVER_KLU;
    cr_model_set_settings(m, &s);
    char msg[512];
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    double err = -1.0;
    int f0 = tu_failed;
    int rc = sys ? cr_system_run(sys, 5.5e-5) : CR_ERR_INVALID;
    CHECK_SELF(rc == CR_OK && cr_system_check_jacobian(sys, &err) == CR_OK && err < 1e-6,
               "frozen Jacobian vs central differences: %.3g", err);
    cr_contact_view w = {0};
    size_t k12 = 0;
    for (size_t k = 0; sys && k < cr_system_contact_count(sys); k++) {
        cr_system_get_contact(sys, k, &w);
        if (w.body_a == 1 && w.body_b == 2) {
            k12 = k + 1;
            break;
        }
    }
    double x[6];
    cr_system_get_positions(sys, x);
    double turn = atan2(x[5] - x[3], x[4] - x[2]);
    CHECK_REF(k12 && w.state == CR_CONTACT_LOADED && w.normal[0] == 1.0 && w.normal[1] == 0.0 &&
                  fabs(turn) > 1e-5,
              "contact 1-2 loaded on its frozen normal (%.17g, %.17g) while the centres turned "
              "%.3g",
              w.normal[0], w.normal[1], turn);
    tu_summary(f0, "mid-impact: Jacobian to %.1e, line of centres turned %.2e rad, normal frozen",
               err, turn);
    cr_system_destroy(sys);
    cr_model_destroy(m);
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t q = 0; q < n; q++)
        d = fmax(d, fabs(a[q] - b[q]));
    return d;
}

/* Turning normals extrapolated to K → ∞ give the frozen-normal run. */
static void rigid_limit(void)
{
    cr_model *frozen = load(THETA_TAU, 1), *turning = load(THETA_TAU, 0);
    run_t f = run(frozen), t = run(turning);
    char msg[512];
    cr_rigid_limit rt, rf;
    cr_rigid_limit_options o = cr_rigid_limit_defaults();
    int rc1 = cr_compare_rigid_limit(turning, &t.ep, &o, &rt, msg, sizeof msg);
    CHECK(rc1 == CR_OK, "rigid limit (turning): %s", msg);
    int rc2 = cr_compare_rigid_limit(frozen, &f.ep, &o, &rf, msg, sizeof msg);
    CHECK(rc2 == CR_OK, "rigid limit (frozen): %s", msg);
    if (rc1 != CR_OK || rc2 != CR_OK)
        goto done;
    double a_frozen = f.ep.records[1].alpha, a_turn = t.ep.records[1].alpha;
    printf("     alpha_12: turning %.12f, frozen %.12f, extrapolated %.12f (levels K x 1 .. %g)\n",
           a_turn, a_frozen, rt.alpha_limit[1], rt.factor[rt.levels - 1]);
    CHECK_SELF(fabs(a_turn - a_frozen) > 1e-4, "the normals' turn shows at K: %.3g",
               fabs(a_turn - a_frozen));
    int f0 = tu_failed;
    CHECK_SELF(fabs(rt.alpha_limit[1] - a_frozen) <= 1e-6,
               "extrapolated alpha %.12f vs frozen %.12f", rt.alpha_limit[1], a_frozen);
    tu_summary(f0, "|alpha_limit - alpha_frozen| = %.2e <= 1e-6 (accuracy estimate %.1e)",
               fabs(rt.alpha_limit[1] - a_frozen), rt.alpha_accuracy);
    double du = max_diff(rt.velocity_limit, f.ep.velocity_after, 6);
    f0 = tu_failed;
    CHECK_SELF(du <= 1e-6, "extrapolated u+ vs frozen: %.3g m/s", du);
    tu_summary(f0, "|u+_limit - u+_frozen| = %.2e m/s <= 1e-6 (V = 1 m/s)", du);
    /* the orders and exponents are those of the theory: δ* ∝ K^(-1/(n+1)) */
    f0 = tu_failed;
    CHECK_REF(fabs(rt.alpha_order - 1.0) < 0.05 && fabs(rt.velocity_order - 1.0) < 0.05,
              "observed orders in h: alpha %.4f, u+ %.4f (stated: 1)", rt.alpha_order,
              rt.velocity_order);
    tu_summary(f0, "observed order in h = K^(-1/(n+1)): alpha %.4f, u+ %.4f (1 +- 0.05)",
               rt.alpha_order, rt.velocity_order);
    f0 = tu_failed;
    CHECK_REF(fabs(rt.duration_exponent + 0.4) < 1e-4, "duration exponent %.6f (-0.4)",
              rt.duration_exponent);
    CHECK_REF(fabs(rf.duration_exponent + 0.4) < 1e-6, "frozen duration exponent %.8f (-0.4)",
              rf.duration_exponent);
    tu_summary(f0, "duration ~ K^%.6f (turning), K^%.8f (frozen); -1/(n+1) = -0.4",
               rt.duration_exponent, rf.duration_exponent);
    f0 = tu_failed;
    CHECK_REF(fabs(rt.residual_exponent + 0.4) < 1e-3, "residual exponent %.6f (-0.4)",
              rt.residual_exponent);
    double worst = 0.0;
    for (size_t L = 0; L < rf.levels; L++)
        worst = fmax(worst, rf.residual[L]);
    CHECK_INV(rt.residual[0] > 1e-4 && worst < 1e-9,
              "first-touch-W residual: turning %.3g at K, frozen %.3g at most", rt.residual[0],
              worst);
    tu_summary(f0,
               "first-touch-W momentum residual %.3e at K ~ K^%.6f (-0.4 +- 1e-3); frozen <= %.1e",
               rt.residual[0], rt.residual_exponent, worst);
    /* the frozen levels themselves: α independent of K */
    double spread = 0.0;
    for (size_t L = 1; L < rf.levels; L++)
        spread = fmax(spread, fabs(rf.alpha[L * rf.contacts + 1] - rf.alpha[1]));
    f0 = tu_failed;
    CHECK_SELF(spread < 1e-8, "frozen alpha over K .. 1e4 K: spread %.3g", spread);
    tu_summary(f0, "frozen alpha over K .. 10^4 K (rtol 1e-10): spread %.1e <= 1e-8", spread);
done:
    cr_rigid_limit_free(&rt);
    cr_rigid_limit_free(&rf);
    release(&f);
    release(&t);
    cr_model_destroy(frozen);
    cr_model_destroy(turning);
}

/* Bernoulli's configuration (models/pool-bernoulli.yaml, 001 sect. 4, θ = 2π/3):
 * by symmetry α = 1 and, undamped, κ = 1, so the rigid outcome is closed-form:
 * with c = cos 30°, P = 4c/(4c² + 2) (per unit mass and speed) gives the striker
 * 1 − 2Pc = −1/5 and the struck discs P (c, ±1/2) = (3/5, ±√3/5). The
 * extrapolated u⁺ must be that to 1e-6, though the run at K is off by ~1e-4. */
static void bernoulli_closed_form(void)
{
    cr_model *m = load(CR_TEST_DATA "/../../models/pool-bernoulli.yaml", 0);
    run_t t = run(m);
    char msg[512];
    cr_rigid_limit r;
    int rc = cr_compare_rigid_limit(m, &t.ep, NULL, &r, msg, sizeof msg);
    CHECK(rc == CR_OK && r.dofs == 6, "rigid limit (Bernoulli): %s", msg);
    if (rc == CR_OK) {
        double s3 = sqrt(3.0);
        double exact[6] = {-0.2, 0.0, 0.6, 0.2 * s3, 0.6, -0.2 * s3};
        double d_inf = max_diff(r.velocity_limit, exact, 6);
        double d_K = max_diff(t.ep.velocity_after, exact, 6);
        int f0 = tu_failed;
        CHECK_REF(d_inf <= 1e-6 && d_K > 1e-5, "Bernoulli u+: limit off by %.3g, run at K by %.3g",
                  d_inf, d_K);
        tu_summary(f0,
                   "Bernoulli u+(K -> inf) = closed form to %.1e m/s (<= 1e-6; the run at K: %.1e)",
                   d_inf, d_K);
    }
    cr_rigid_limit_free(&r);
    release(&t);
    cr_model_destroy(m);
}

static void bad_input(void)
{
    cr_model *m = load(THETA_TAU, 0);
    run_t t = run(m);
    char msg[512] = "";
    cr_rigid_limit r;
    cr_rigid_limit_options o = {2, 10.0};
    CHECK(cr_compare_rigid_limit(m, &t.ep, &o, &r, msg, sizeof msg) == CR_ERR_INVALID &&
              strstr(msg, "levels") && !r.alpha,
          "two levels refused: %s", msg);
    o = (cr_rigid_limit_options){4, 1.0};
    CHECK(cr_compare_rigid_limit(m, &t.ep, &o, &r, msg, sizeof msg) == CR_ERR_INVALID,
          "ratio 1 refused: %s", msg);
    cr_model *chain = parse("balls:\n  - {mass: 1, radius: 0.01, x: 0, v: 1}\n"
                            "  - {mass: 1, radius: 0.01, x: 0.03}\ncontact: {K: 1.0e9}\n");
    run_t c = run(chain);
    CHECK(cr_compare_rigid_limit(chain, &c.ep, NULL, &r, msg, sizeof msg) == CR_ERR_INVALID &&
              strstr(msg, "dim 2"),
          "a chain refused: %s", msg);
    release(&c);
    release(&t);
    cr_model_destroy(chain);
    cr_model_destroy(m);
}

int main(void)
{
    modelfile_option();
    frozen_is_scale_invariant();
    units_and_masses();
    frozen_mid_impact();
    rigid_limit();
    bernoulli_closed_form();
    bad_input();
    return tu_finish("test-rigid-limit");
}
