/*
 * Collisions above episodes (src/monitor/collisions.c): the episodes of one impact
 * taken together.
 *
 * - A 7-ball pendulum cradle over 10 s, whose swings split into 1 to 21
 *   episodes each, gives one collision per swing: as many collisions as half
 *   periods of the exact pendulum (complete elliptic integral), to the count,
 *   each holding all seven balls and starting near T/4 + k T/2; the window's
 *   free flight is the half period; every episode lies in one collision and
 *   the collisions' impulses are their episodes' sums; undamped, κ = 1 once
 *   the fields' work (in the episodes and in the free flights between them) is
 *   taken out.
 * - Momentum balance to 1e-10 where no field acts (a field's impulse over a
 *   collision's milliseconds is no invariant): a chain with gaps (each binary
 *   impact its own collision under the automatic window; one collision of
 *   every episode with a window over the run) and the Bernoulli pool with its
 *   wall: per body, m (u⁺ − u⁻) equals the collision's summed vector impulses
 *   of its contacts.
 *
 * Cost: about 1 s (the 10 s cradle is 0.3 s of it).
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refchain.h"

typedef struct {
    cr_model *model;
    cr_system *sys;
    cr_monitor *mon;
} run_t;

static int run_yaml(run_t *r, const char *yaml)
{
    char msg[512];
    memset(r, 0, sizeof(*r));
    if (cr_modelfile_parse(yaml, strlen(yaml), "test.yaml", &r->model, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(r->model, msg, sizeof msg) != CR_OK) {
        printf("model: %s\n", msg);
        return -1;
    }
    r->sys = cr_system_create(r->model, msg, sizeof msg);
    r->mon = r->sys ? cr_monitor_create(r->sys) : NULL;
    if (!r->mon) {
        printf("system: %s\n", msg);
        return -1;
    }
    int rc = cr_system_run(r->sys, cr_model_settings(r->model)->t_end);
    if (rc != CR_OK)
        printf("run: %s\n", cr_system_last_error(r->sys));
    return rc == CR_OK && cr_monitor_finish(r->mon) == CR_OK ? 0 : -1;
}

static void run_free(run_t *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
    cr_model_destroy(r->model);
}

/* Complete elliptic integral of the first kind K(k) by the arithmetic-geometric
 * mean (Abramowitz & Stegun 17.6). */
static double ellip_K(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-16 * a; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return M_PI / (2.0 * a);
}

/* Largest |m (u⁺ − u⁻) − Σ ± ∫ f n dt| over the collision's moving bodies, relative to
 * the largest |m u⁻|: a body is body_a (force −f n; a wall contact: +f n, the wall's
 * normal points to the body) or body_b (+f n) of its contacts. */
static double momentum_residual(const cr_monitor *mon, const cr_system *sys, size_t k,
                                double *total)
{
    size_t nb, nr, d = (size_t)cr_system_dimension(sys), N = cr_system_body_count(sys);
    const size_t *b = cr_monitor_collision_bodies(mon, k, &nb);
    const double *u0 = cr_monitor_collision_velocities(mon, k, 0, &nb);
    const double *u1 = cr_monitor_collision_velocities(mon, k, 1, &nb);
    const cr_collision_record *rec = cr_monitor_collision_contacts(mon, k, &nr);
    const double *vec = cr_monitor_collision_vector_impulses(mon, k, &nr);
    double *mass = malloc(N * sizeof(double)), worst = 0.0, scale = 0.0, sum[3] = {0, 0, 0};
    cr_system_get_masses(sys, mass);
    for (size_t q = 0; q < nb; q++)
        for (size_t e = 0; e < d && isfinite(mass[b[q]]); e++)
            scale = fmax(scale, fabs(mass[b[q]] * u0[q * d + e]));
    for (size_t q = 0; q < nb; q++) {
        if (!isfinite(mass[b[q]]))
            continue;
        for (size_t e = 0; e < d; e++) {
            double dp = mass[b[q]] * (u1[q * d + e] - u0[q * d + e]), P = 0.0;
            for (size_t r = 0; r < nr; r++) {
                if (rec[r].body_a == b[q])
                    P += (rec[r].body_b < 0 ? 1.0 : -1.0) * vec[r * d + e];
                if (rec[r].body_b == (long)b[q])
                    P += vec[r * d + e];
            }
            worst = fmax(worst, fabs(dp - P));
            sum[e] += dp;
        }
    }
    /* total momentum change: what the walls and fixed bodies gave */
    for (size_t r = 0; r < nr; r++)
        for (size_t e = 0; e < d; e++)
            if (rec[r].body_b < 0)
                sum[e] -= vec[r * d + e];
            else if (!isfinite(mass[rec[r].body_b]))
                sum[e] += vec[r * d + e];
    *total = 0.0;
    for (size_t e = 0; e < d; e++)
        *total = fmax(*total, fabs(sum[e]) / scale);
    free(mass);
    return worst / scale;
}

static const char *pendulum7 = "name: pendulum-cradle-7\n"
                               "chain: {count: 7, mass: 0.0329, radius: 0.01,\n"
                               "        striker: {count: 1, angle: 0.2}}\n"
                               "contact: {material: {E: 2.1e11, nu: 0.3}, C: 0.0}\n"
                               "fields: {pendulum: {length: 0.2, g: 9.81}}\n"
                               "integration: {t_end: 10.0}\n"
                               "output: {interval: 1.0e-3}\n";

static void test_pendulum_cradle(void)
{
    run_t r;
    if (run_yaml(&r, pendulum7) != 0) {
        CHECK(0, "the 7-ball pendulum cradle ran");
        run_free(&r);
        return;
    }
    /* exact pendulum a = -g sin(s/L), amplitude 0.2 rad: T = 4 sqrt(L/g) K(sin(θ0/2)) */
    double L = 0.2, g = 9.81, t_end = 10.0, T = 4.0 * sqrt(L / g) * ellip_K(sin(0.1));
    /* the striker reaches the bottom at T/4; each swing returns after T/2 */
    size_t expected = (size_t)floor((t_end - T / 4) / (T / 2)) + 1;
    size_t ne = cr_monitor_episode_count(r.mon), nk = cr_monitor_collision_count(r.mon);
    printf("pendulum cradle: T = %.9g s, %zu episodes, %zu collisions, %zu half periods\n", T, ne,
           nk, expected);
    CHECK(ne > 3 * expected, "the swings split into episodes (%zu episodes)", ne);
    CHECK(nk == expected, "one collision per swing: %zu collisions, %zu half periods", nk,
          expected);
    /* the swings are well inside the run: none near t_end */
    CHECK(T / 4 + (double)(expected - 1) * T / 2 < t_end - 0.05 &&
              T / 4 + (double)expected * T / 2 > t_end + 0.05,
          "no swing within 50 ms of t_end");
    double ff = 0.0, window = cr_monitor_collision_window(r.mon, &ff);
    /* the longest free flight of a ball is a half period less the impacts' milliseconds */
    CHECK_REL(ff, T / 2, 0.01, "free flight = half period (exact pendulum)");
    CHECK_REL_SELF(window, CR_MONITOR_COLLISION_FRACTION * ff, 1e-15,
                   "window = fraction x free flight");

    int *seen = calloc(ne, sizeof(int));
    double worst_t = 0.0, worst_k = 0.0, worst_p = 0.0, no_flight = 0.0;
    size_t all7 = 0, max_eps = 0;
    for (size_t k = 0; k < nk; k++) {
        cr_collision_info c;
        cr_monitor_get_collision(r.mon, k, &c);
        worst_t = fmax(worst_t, fabs(c.t_start - (T / 4 + (double)k * T / 2)) / (T / 2));
        worst_k = fmax(worst_k, fabs(c.kappa - 1.0));
        all7 += c.body_count == 7;
        max_eps = c.episode_count > max_eps ? c.episode_count : max_eps;
        size_t n, nr;
        const size_t *eps = cr_monitor_collision_episodes(r.mon, k, &n);
        double P = 0.0, Pe = 0.0, We = 0.0;
        for (size_t q = 0; q < n; q++) {
            seen[eps[q]]++;
            size_t m;
            const cr_contact_record *rec = cr_monitor_contacts(r.mon, eps[q], &m);
            cr_episode_info in;
            cr_monitor_get_episode(r.mon, eps[q], &in);
            We += in.field_work;
            for (size_t i = 0; i < m; i++)
                Pe += rec[i].impulse;
        }
        const cr_collision_record *cr = cr_monitor_collision_contacts(r.mon, k, &nr);
        for (size_t i = 0; i < nr; i++)
            P += cr[i].impulse;
        worst_p = fmax(worst_p, fabs(P - Pe) / Pe);
        /* κ without the free flights' field work: what the rule must not forget */
        no_flight = fmax(no_flight, fabs((c.T_plus - We) / c.T_minus - 1.0));
    }
    size_t once = 0;
    for (size_t k = 0; k < ne; k++)
        once += seen[k] == 1;
    free(seen);
    printf("pendulum cradle: up to %zu episodes per collision; start off T/4 + kT/2 by <= %.3g T/2;"
           " |kappa - 1| <= %.3g (%.3g without the free flights' field work)\n",
           max_eps, worst_t, worst_k, no_flight);
    CHECK(once == ne, "every episode in exactly one collision (%zu of %zu)", once, ne);
    CHECK(all7 == nk, "every collision holds the 7 balls (%zu of %zu)", all7, nk);
    CHECK_REF(worst_t < 0.1, "collision k starts within 0.1 T/2 of T/4 + k T/2 (%.3g)", worst_t);
    CHECK_SELF(worst_p < 1e-12, "collision impulses = sums of the episodes' (%.3g, tol 1e-12)",
               worst_p);
    /* undamped Hertz: the impact keeps the kinetic energy; the episodes' field work
     * is second order in the displacement (docs/design.md), measured 1.1e-6 */
    CHECK_INV(worst_k < 5e-6, "kappa = 1 (energy conserved, undamped) within 5e-6: %.3g", worst_k);
    CHECK(no_flight > 100 * worst_k, "the free flights' field work matters (%.3g)", no_flight);
    run_free(&r);
}

/* Five equal steel balls 0.1 mm apart, struck at 1 m/s, no field: four binary
 * impacts, each an exact exchange of velocities (equal masses, elastic), so
 * each ball flies its gap in the same 0.1 ms. */
static const char *gapped_equal = "name: gapped-equal\n"
                                  "chain: {count: 5, mass: 0.0329, radius: 0.01, spacing: 0.0201,\n"
                                  "        striker: {count: 1, velocity: 1.0}}\n"
                                  "contact: {material: {E: 2.1e11, nu: 0.3}, C: 0.0}\n"
                                  "integration: {rtol: 1.0e-12, atol: 1.0e-14}\n";

/* Unequal balls 0.1 mm apart: impacts and re-contacts in every order. */
static const char *gapped = "name: gapped-chain\n"
                            "balls:\n"
                            "  - {mass: 0.0329, radius: 0.01, x: 0.0, v: 1.0}\n"
                            "  - {mass: 0.0200, radius: 0.01, x: 0.0201}\n"
                            "  - {mass: 0.0500, radius: 0.01, x: 0.0402}\n"
                            "  - {mass: 0.0329, radius: 0.01, x: 0.0603}\n"
                            "  - {mass: 0.0100, radius: 0.01, x: 0.0804}\n"
                            "contact: {material: {E: 2.1e11, nu: 0.3}, C: 0.0}\n"
                            "integration: {rtol: 1.0e-12, atol: 1.0e-14}\n";

static void test_gapped_chains(void)
{
    run_t r;
    if (run_yaml(&r, gapped_equal) != 0) {
        CHECK(0, "the equal gapped chain ran");
        run_free(&r);
        return;
    }
    size_t ne = cr_monitor_episode_count(r.mon), nk = cr_monitor_collision_count(r.mon);
    double ff = 0.0;
    cr_monitor_collision_window(r.mon, &ff);
    printf("equal gapped chain: %zu episodes, %zu collisions (free flight %.4g s)\n", ne, nk, ff);
    CHECK(ne == 4, "four binary impacts, four episodes (%zu)", ne);
    /* Each flight is the gap less what the ball moved during the contact: the
     * pair's overlap is 0 at both ends of a contact, so both balls moved as the
     * centre of mass, v t_c / 2. Hertz (f = K δ^1.5, K = 4/3 E* √R*): δ_m =
     * (5 μ v² / 4K)^(2/5), t_c = 2 δ_m / v · (2/5) B(2/5, 1/2) (Johnson, Contact
     * Mechanics, sect. 11.4). So T_f = gap / v − t_c / 2. */
    double Es = 2.1e11 / (2.0 * (1.0 - 0.09)), K = 4.0 / 3.0 * Es * sqrt(0.005);
    double dm = pow(5.0 * 0.5 * 0.0329 / (4.0 * K), 0.4);
    double tc = 2.0 * dm * 0.4 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9);
    CHECK_REL(ff, 1e-4 - tc / 2.0, 1e-8, "free flight = gap / v - t_c / 2 (Hertz contact time)");
    /* equal free flights: none within a quarter of the longest */
    CHECK(nk == ne, "each binary impact its own collision under the automatic window (%zu)", nk);
    /* the same closed form: impact k starts at gap/v + k (gap/v + t_c/2), and the
     * chain ends as (0, 0, 0, 0, v) */
    double worst_t = 0.0, v[5];
    for (size_t k = 0; k < ne; k++) {
        cr_episode_info in;
        cr_monitor_get_episode(r.mon, k, &in);
        worst_t = fmax(worst_t, fabs(in.t_start - (1e-4 + (double)k * (1e-4 + tc / 2.0))));
    }
    cr_system_get_velocities(r.sys, v);
    CHECK_REF(worst_t <= 1e-9 * 5e-4, "impact k at gap/v + k (gap/v + t_c/2): off by %.3g s",
              worst_t);
    CHECK_REF(fabs(v[4] - 1.0) <= 1e-9 &&
                  fmax(fmax(fabs(v[0]), fabs(v[1])), fmax(fabs(v[2]), fabs(v[3]))) <= 1e-9,
              "four exchanges: (0, 0, 0, 0, 1) m/s, got (%.3g, %.3g, %.3g, %.3g, %.12f)", v[0],
              v[1], v[2], v[3], v[4]);
    run_free(&r);

    if (run_yaml(&r, gapped) != 0) {
        CHECK(0, "the gapped chain ran");
        run_free(&r);
        return;
    }
    ne = cr_monitor_episode_count(r.mon);
    CHECK(cr_monitor_set_collision_window(r.mon, 1.0) == CR_OK, "window set");
    nk = cr_monitor_collision_count(r.mon);
    printf("unequal gapped chain: %zu episodes, %zu collision with a 1 s window\n", ne, nk);
    CHECK(nk == 1, "one collision under a window over the run (%zu)", nk);
    cr_collision_info c;
    if (nk == 1 && cr_monitor_get_collision(r.mon, 0, &c) == CR_OK) {
        CHECK(c.episode_count == ne && c.body_count == 5, "it holds every episode and ball");
        double total, res = momentum_residual(r.mon, r.sys, 0, &total);
        printf("unequal gapped chain: per-body momentum residual %.3g, total %.3g (of max |m u-|)"
               "\n",
               res, total);
        CHECK_INV(res < 1e-10, "m (u+ - u-) = summed contact impulses per body, 1e-10: %.3g", res);
        CHECK_INV(total < 1e-10, "momentum conserved over the collision, 1e-10: %.3g", total);
        /* no field, undamped: the compliant impacts keep the kinetic energy */
        CHECK_REL_INV(c.kappa, 1.0, 1e-9, "undamped Hertz, no field: T+/T- = 1");
    }
    /* the unequal chain's outcome, integrated by the test (refchain.h) */
    double vu[5], est, d;
    cr_system_get_velocities(r.sys, vu);
    d = refchain_diff(r.model, vu, 1.0, &est);
    CHECK_REF(d <= 1e-9 && est <= 1e-10,
              "unequal gapped chain vs RK4 (refchain.h): %.3g (<= 1e-9; estimate %.1e)", d, est);
    CHECK(cr_monitor_set_collision_window(r.mon, 0.0) == CR_OK &&
              cr_monitor_collision_window(r.mon, NULL) < 1.0,
          "back to the automatic window");
    run_free(&r);
}

static const char *pool = "name: pool-bernoulli\n"
                          "dim: 2\n"
                          "bodies:\n"
                          "  - {mass: 0.0329, radius: 0.01, x: [-0.01733050807568877, 0.0], "
                          "v: [1.0, 0.0]}\n"
                          "  - {mass: 0.0329, radius: 0.01, x: [0.0, 0.01]}\n"
                          "  - {mass: 0.0329, radius: 0.01, x: [0.0, -0.01]}\n"
                          "walls:\n"
                          "  - {normal: [-1, 0], offset: -0.1}\n"
                          "contact: {material: {E: 2.1e11, nu: 0.3}}\n"
                          "integration: {t_end: 0.2, rtol: 1.0e-12, atol: 1.0e-14}\n";

static void test_pool(void)
{
    run_t r;
    if (run_yaml(&r, pool) != 0) {
        CHECK(0, "the pool ran");
        run_free(&r);
        return;
    }
    size_t ne = cr_monitor_episode_count(r.mon), nk = cr_monitor_collision_count(r.mon);
    printf("pool: %zu episodes, %zu collisions\n", ne, nk);
    /* the three-disc impact, then each disc of the pair hits the wall alone
     * after a 0.15 s flight: three collisions (the two wall hits share no body) */
    CHECK(ne == 3 && nk == 3, "pool: 3 episodes, 3 collisions (%zu, %zu)", ne, nk);
    double worst = 0.0, total;
    for (size_t k = 0; k < nk; k++)
        worst = fmax(worst, momentum_residual(r.mon, r.sys, k, &total));
    CHECK_INV(worst < 1e-10, "pool: per-body vector momentum balance of each collision: %.3g",
              worst);
    cr_monitor_set_collision_window(r.mon, 1.0);
    nk = cr_monitor_collision_count(r.mon);
    CHECK(nk == 1, "pool: one collision with a window over the run (%zu)", nk);
    if (nk == 1) {
        double res = momentum_residual(r.mon, r.sys, 0, &total);
        size_t nr;
        const cr_collision_record *rec = cr_monitor_collision_contacts(r.mon, 0, &nr);
        size_t walls = 0;
        for (size_t i = 0; i < nr; i++)
            walls += rec[i].body_b < 0;
        printf("pool: one collision, %zu contacts (%zu with the wall), residual %.3g\n", nr, walls,
               res);
        CHECK(walls == 2, "pool: both wall contacts in it");
        CHECK_INV(res < 1e-10, "pool, walls included: per-body balance 1e-10: %.3g", res);
        /* the wall is the only external impulse: Σ m Δu = wall impulses */
        CHECK_INV(total < 1e-10, "pool: Σ m Δu = the wall's impulses, 1e-10: %.3g", total);
    }
    run_free(&r);
}

int main(void)
{
    CHECK(cr_monitor_collision_count(NULL) == 0, "no monitor, no collisions");
    CHECK(cr_monitor_set_collision_window(NULL, 1.0) == CR_ERR_INVALID, "NULL refused");
    test_pendulum_cradle();
    test_gapped_chains();
    test_pool();
    return tu_finish("test-collisions");
}
