/*
 * The rigid engine (cr_system_create_rigid) against closed forms and papers:
 * a ball bouncing on a floor to its accumulation point, two pendulums under
 * Newton's law, pendulum cradles under the sequential and Newton laws, the
 * energetic law fed the compliant run's α and κ, LZB against the compliant
 * cradle (and the run comparison on it), the run comparison on two
 * hand-solved impact sequences, per-impact parameters from a provider, and
 * the inputs a rigid run refuses. The monitor follows every run: each impact must be one complete
 * episode with t_start = t_end.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "rigid-testutil.h"
#include "refchain.h"

#define G 9.81

static cr_settings settings_until(double t_end)
{
    cr_settings s = cr_settings_default();
    s.t_end = t_end;
    return s;
}

/* A rigid system with a monitor, run to the model's end time. */
static rigid_run run_rigid(const cr_model *model, cr_law_id law, const cr_law_params *p)
{
    return run_rigid_to(model, law, p, cr_model_settings(model)->t_end);
}

/* Velocity of body @p i after (after = 1) or before episode k. */
static double episode_velocity(const cr_monitor *mon, size_t k, size_t i, int after)
{
    size_t nb;
    const size_t *b = cr_monitor_bodies(mon, k, &nb);
    const double *v = cr_monitor_velocities(mon, k, after, &nb);
    for (size_t q = 0; q < nb; q++)
        if (b[q] == i)
            return v[q];
    return NAN;
}

/* ---- a ball on a floor ----------------------------------------------------- */

/* A ball of radius 0.01 m released from rest with its bottom h above a floor
 * (a wall), gravity −g, Newton's law with restitution e. Closed form: first
 * impact t₁ = √(2h/g) at v₁ = g t₁; impact k at t_k = t₁ + Σ_{j<k} 2eʲv₁/g
 * with approach speed e^(k−1) v₁; t∞ = t₁(1 + e)/(1 − e). */
static void test_ball_on_floor(double e)
{
    const double h = 0.1, r0 = 0.01, m = 0.01;
    cr_model *model = cr_model_create();
    cr_model_add_wall(model, 0.0);
    cr_model_add_ball(model, m, r0, r0 + h, 0.0);
    cr_model_set_gravity(model, -G);
    double t1 = sqrt(2.0 * h / G), v1 = G * t1, tinf = t1 * (1.0 + e) / (1.0 - e);
    cr_settings s = settings_until(tinf + 0.3);
    s.output_interval = 1e-3;
    cr_model_set_settings(model, &s);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    tu_case("ball on floor e = %g", e);
    rigid_run r = run_rigid(model, CR_LAW_NEWTON, &lp);
    CHECK(r.rc == CR_OK, "ball on floor (e = %g) ran", e);
    check_instantaneous(&r, RIGID_SOME, "ball on floor");

    /* the accumulation rule: impact K is the first to leave slower than
     * 1e-6 V; it ends the bouncing (docs/design.md, Rigid engine) */
    double V;
    cr_system_get_scales(r.sys, NULL, &V, NULL);
    size_t K = 1;
    while (pow(e, (double)K) * v1 >= 1e-6 * V)
        K++;
    size_t n = cr_monitor_episode_count(r.mon);
    CHECK_REF(n == K, "e = %g: %zu impacts, the rule makes %zu", e, n, K);

    double tk = t1, worst_t = 0.0, worst_v = 0.0;
    for (size_t k = 0; k < n && k < K; k++) {
        cr_episode_info in;
        cr_monitor_get_episode(r.mon, k, &in);
        double vk = pow(e, (double)k) * v1, after = episode_velocity(r.mon, k, 1, 1);
        worst_t = fmax(worst_t, fabs(in.t_start - tk) / tinf);
        if (k + 1 < K) /* the last one leaves at rest: the rule */
            worst_v = fmax(worst_v, fabs(after - e * vk) / v1);
        tk += 2.0 * e * vk / G;
    }
    CHECK_REL(worst_t + 1.0, 1.0, 1e-13, "bounce times t_k, closed form");
    CHECK_REL(worst_v + 1.0, 1.0, 1e-13, "rebound speeds e^k v1 (bounce heights (e^k v1)^2/2g)");
    cr_episode_info last;
    cr_monitor_get_episode(r.mon, n - 1, &last);
    /* t∞ − t_K is the tail of bounces below the rest speed: 2eᴷv₁/(g(1−e)) */
    double tail = 2.0 * pow(e, (double)K) * v1 / (G * (1.0 - e));
    CHECK_REL(last.t_start + tail, tinf, 1e-13, "t_K + tail = t_inf = t1 (1+e)/(1-e)");
    CHECK_REF(tail <= 2.0 * 1e-6 * V / (G * (1.0 - e)),
              "the switch comes at most 2 v_rest/(g(1-e)) = %.3g s before t_inf (tail %.3g s)",
              2.0 * 1e-6 * V / (G * (1.0 - e)), tail);
    CHECK(episode_velocity(r.mon, n - 1, 1, 1) == 0.0, "the last impact leaves the ball at rest");

    /* persistent contact until the end: at rest on the floor, carrying m g,
     * no event after the switch */
    double v[2], x[2];
    cr_system_get_velocities(r.sys, v);
    cr_system_get_positions(r.sys, x);
    cr_contact_view w;
    cr_system_get_contact(r.sys, 0, &w);
    const cr_event *ev = cr_system_events(r.sys);
    size_t nev = cr_system_event_count(r.sys);
    CHECK_REF(v[1] == 0.0 && fabs(x[1] - r0) <= 1e-9 * r0, "resting at x = r: v %g, x - r %g", v[1],
              x[1] - r0);
    CHECK(w.state == CR_CONTACT_LOADED && w.settled, "floor contact loaded and settled");
    CHECK_REL(w.force, m * G, 1e-12, "persistent contact force = m g");
    CHECK(nev > 0 && ev[nev - 1].t <= last.t_start, "no event after the switch (last at %.9g s)",
          nev ? ev[nev - 1].t : NAN);
    /* energy: what the impacts took is the potential energy lost */
    double E = cr_system_kinetic_energy(r.sys) + cr_system_potential_energy(r.sys) +
               cr_system_dissipated_work(r.sys);
    CHECK_REL_INV(E, -m * -G * (r0 + h), 1e-13, "T + U + dissipated = m g (r + h)");
    tu_case(NULL);
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- pendulums ------------------------------------------------------------- */

/* Complete elliptic integral of the first kind K(k) by the AGM. */
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

/* Rows of a one-ball run: time, position, velocity. */
typedef struct {
    size_t n;
    double t[64], x[64], v[64];
} rows64;

static int keep_row(const cr_system *sys, void *user)
{
    rows64 *r = user;
    if (r->n < 64) {
        r->t[r->n] = cr_system_get_time(sys);
        cr_system_get_positions(sys, &r->x[r->n]);
        cr_system_get_velocities(sys, &r->v[r->n]);
        r->n++;
    }
    return 0;
}

/* One pendulum of 20 cm released at θ₀ = 1 rad, no impact: the flight is the
 * pendulum's own (exact on Jacobi's elliptic functions, rigid-pendulum.c).
 * Reference: the period T = 4√(ℓ/g) K(sin(θ₀/2)), K by the AGM here; at
 * t = jT/4 the ball is at the bottom (θ = 0, speed 2√(gℓ) sin(θ₀/2)) or at
 * ∓θ₀ at rest. The tolerance is the flight's: 1e-13 of ℓθ₀ exact, 1e-10 under
 * CRADLE_RIGID_FLIGHT=cvodes (rtol 1e-12 over two periods). */
static void test_pendulum_period(void)
{
    const double ell = 0.2, theta0 = 1.0, k = sin(0.5 * theta0);
    const double T = 4.0 * sqrt(ell / G) * ellip_K(k), vmax = 2.0 * sqrt(G * ell) * k;
    const char *sw = getenv("CRADLE_RIGID_FLIGHT");
    double tol = sw && strcmp(sw, "cvodes") == 0 ? 1e-10 : 1e-13;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 0.0329, 0.01, -ell * theta0, 0.0);
    cr_model_set_pendulum(model, 0, 0.0, ell, G);
    cr_settings s = settings_until(2.0 * T);
    s.output_interval = T / 4.0;
    s.rtol = 1e-12;
    s.atol = 1e-14;
    cr_model_set_settings(model, &s);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    char msg[512];
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    rows64 rows = {0};
    if (sys)
        cr_system_add_output_listener(sys, keep_row, &rows);
    int rc = sys ? cr_system_run(sys, 2.0 * T) : CR_ERR_INVALID;
    /* 9 rows at jT/4, j = 0 … 8, and the end's own row 2 ulps after the last */
    CHECK(rc == CR_OK && rows.n == 10, "pendulum period: run %d, %zu rows (want 10)", rc, rows.n);
    double worst_x = 0.0, worst_v = 0.0;
    for (size_t i = 0; i < rows.n; i++) {
        /* j = 0, 4, 8: −θ₀ at rest; 2, 6: +θ₀ at rest; odd: the bottom */
        long j = lround(rows.t[i] / (T / 4.0));
        double x = j % 2 ? 0.0 : (j % 4 ? ell * theta0 : -ell * theta0);
        double v = j % 2 ? (j % 4 == 1 ? vmax : -vmax) : 0.0;
        worst_x = fmax(worst_x, fabs(rows.x[i] - x) / (ell * theta0));
        worst_v = fmax(worst_v, fabs(rows.v[i] - v) / vmax);
    }
    printf("pendulum at 1 rad: position %.3g, velocity %.3g at the quarter periods\n", worst_x,
           worst_v);
    CHECK_REF(worst_x <= tol && worst_v <= tol,
              "pendulum at 1 rad, 2 periods: position %.3g, velocity %.3g at the quarter periods "
              "of 4 sqrt(l/g) K(sin(theta0/2)) (tolerance %g)",
              worst_x, worst_v, tol);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* n equal balls hanging touching in a row, ball 0 lifted by θ₀ and released. */
static cr_model *pendulum_row(size_t n, double theta0, double ell, double t_end)
{
    const double m = 0.0329, r0 = 0.01;
    cr_model *model = cr_model_create();
    for (size_t i = 0; i < n; i++) {
        double pivot = 2.0 * r0 * (double)i;
        cr_model_add_ball(model, m, r0, i ? pivot : pivot - ell * theta0, 0.0);
        cr_model_set_pendulum(model, i, pivot, ell, G);
    }
    cr_settings s = settings_until(t_end);
    /* the isochronism error measured below is 4.4e-10 v1 at theta0 = 0.01: the
     * flight's integration error (2e-10 v1 at rtol 1e-12, once CVODES no
     * longer stopped at every output row) must stay well under it */
    s.rtol = 1e-13;
    s.atol = 1e-14;
    cr_model_set_settings(model, &s);
    return model;
}

/* Two equal pendulums, Newton's law e: the velocities after collision k
 * against the harmonic map. The first collision is at the bottom exactly
 * (the struck ball rests there): after it (1 ∓ e)/2 · v₁. Both then return to
 * the bottom half a period later reversed, and collide again: per collision
 * (a, b) ← (−a, −b) then Newton's 2×2 map. Off the harmonic limit the two
 * half-periods differ (period T₀(1 + θ²/16 + …)): the balls meet off the bottom
 * by a phase φ ≤ πθ₀²/16, where the field has changed their speeds by a
 * fraction ~φ²: @return the largest deviation over @p ncoll collisions
 * relative to v₁. */
static double two_pendulums(double theta0, double e, size_t ncoll, double *t1_err)
{
    const double ell = 0.2;
    double T4 = sqrt(ell / G) * ellip_K(sin(0.5 * theta0));
    cr_model *model = pendulum_row(2, theta0, ell, T4 + (double)ncoll * 2.0 * T4 - T4 * 0.5);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    tu_case("two pendulums theta0 = %g", theta0);
    rigid_run r = run_rigid(model, CR_LAW_NEWTON, &lp);
    check_instantaneous(&r, RIGID_SOME, "two pendulums");
    double v1 = 2.0 * sqrt(G * ell) * sin(0.5 * theta0);
    double a = v1, b = 0.0, worst = 0.0;
    size_t n = cr_monitor_episode_count(r.mon);
    CHECK_REF(n == ncoll, "two pendulums: %zu collisions, want %zu", n, ncoll);
    for (size_t k = 0; k < n && k < ncoll; k++) {
        if (k > 0) { /* half a period later, reversed */
            a = -a;
            b = -b;
        }
        double pa = 0.5 * ((1.0 - e) * a + (1.0 + e) * b);
        double pb = 0.5 * ((1.0 + e) * a + (1.0 - e) * b);
        a = pa;
        b = pb;
        worst = fmax(worst, fabs(episode_velocity(r.mon, k, 0, 1) - a) / v1);
        worst = fmax(worst, fabs(episode_velocity(r.mon, k, 1, 1) - b) / v1);
    }
    cr_episode_info in;
    cr_monitor_get_episode(r.mon, 0, &in);
    *t1_err = fabs(in.t_start - T4) / T4;
    tu_case(NULL);
    run_free(&r);
    cr_model_destroy(model);
    return worst;
}

static void test_two_pendulums(void)
{
    const double e = 0.8, theta = 0.02;
    double t1a, t1b;
    double big = two_pendulums(theta, e, 6, &t1a);
    double small = two_pendulums(theta / 2.0, e, 6, &t1b);
    printf("two pendulums: deviation from the harmonic map %.3g (theta %g), %.3g (theta %g)\n", big,
           theta, small, theta / 2.0);
    CHECK_REL(t1a + 1.0, 1.0, 1e-10, "first collision at T/4 = sqrt(l/g) K(sin(theta/2))");
    double phi = M_PI * theta * theta / 16.0;
    CHECK_REF(big <= 6.0 * phi * phi,
              "6 collisions within the isochronism error: %.3g <= 6 (pi theta^2/16)^2 = %.3g", big,
              6.0 * phi * phi);
    /* it is the isochronism error: (θ²)², so halving θ divides it by 16 */
    CHECK_REL(big / small, 16.0, 0.15, "deviation ~ theta^4 (halving theta: / 16)");
}

/* A 5-ball pendulum cradle, e = 1, sequential law: one in, one out, exactly.
 * The outgoing ball swings out with the incoming speed v₁ = 2√(gℓ) sin(θ₀/2)
 * and returns after half a period T/2 = 2√(ℓ/g) K(sin(θ₀/2)). */
static void test_cradle_sequential(void)
{
    const double ell = 0.2, theta0 = 0.2;
    double T4 = sqrt(ell / G) * ellip_K(sin(0.5 * theta0));
    double v1 = 2.0 * sqrt(G * ell) * sin(0.5 * theta0);
    cr_model *model = pendulum_row(5, theta0, ell, 20.0 * T4);
    rigid_run r = run_rigid(model, CR_LAW_SEQUENTIAL, NULL);
    CHECK(r.rc == CR_OK, "cradle (sequential) ran");
    check_instantaneous(&r, RIGID_SOME, "cradle sequential");
    size_t n = cr_monitor_episode_count(r.mon);
    CHECK(n == 10, "10 impacts before 10 half-periods (got %zu)", n);
    double rest = 0.0, rest0 = 0.0, speed = 0.0, tim = 0.0;
    int sides = 1;
    for (size_t k = 0; k < n; k++) {
        cr_episode_info in;
        cr_monitor_get_episode(r.mon, k, &in);
        size_t out = k % 2 ? 0 : 4; /* ball 4 leaves, then ball 0, … */
        sides &= in.reference == (k % 2 ? 3u : 0u);
        for (size_t i = 0; i < 5; i++) {
            double u = episode_velocity(r.mon, k, i, 1);
            if (i == out)
                speed = fmax(speed, fabs(fabs(u) - v1) / v1);
            else if (k == 0)
                rest0 = fmax(rest0, fabs(u) / v1);
            else
                rest = fmax(rest, fabs(u) / v1);
        }
        tim = fmax(tim, fabs(in.t_start - (T4 + (double)k * 2.0 * T4)) / T4);
    }
    CHECK(sides, "impacts alternate: pair 0, pair 3, ...");
    CHECK_REF(rest0 == 0.0, "first impact: the other four balls exactly at rest (%.3g)", rest0);
    /* later the resting balls carry the integration error of their last swing:
     * a position error rtol·ℓθ₀ is a field force that gives them at most
     * π·rtol·v₁ per half period */
    double bound = M_PI * cr_model_settings(model)->rtol * (double)n;
    CHECK_REF(rest <= bound,
              "the other four at rest to the integration error: %.3g <= n pi rtol = %.3g", rest,
              bound);
    CHECK_REL(speed + 1.0, 1.0, 1e-9, "outgoing speed = v1 = 2 sqrt(g l) sin(theta0/2)");
    CHECK_REL(tim + 1.0, 1.0, 1e-9, "impact k at T/4 + k T/2 (nonlinear period)");
    run_free(&r);
    cr_model_destroy(model);
}

/* A 3-ball pendulum cradle, e = 1, Newton's law: the first impact gives
 * (−1/3, 2/3, 2/3) v₁, not the cradle's (0, 0, 1): Acary & Taha 2005 sect. 3,
 * their example of why Newton's law fails on touching balls. */
static void test_cradle_newton(void)
{
    const double ell = 0.2, theta0 = 0.2;
    double T4 = sqrt(ell / G) * ellip_K(sin(0.5 * theta0));
    double v1 = 2.0 * sqrt(G * ell) * sin(0.5 * theta0);
    cr_model *model = pendulum_row(3, theta0, ell, 1.5 * T4);
    rigid_run r = run_rigid(model, CR_LAW_NEWTON, NULL);
    CHECK(r.rc == CR_OK && cr_monitor_episode_count(r.mon) >= 1, "cradle (newton) ran");
    const double want[3] = {-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
    double worst = 0.0;
    for (size_t i = 0; i < 3; i++)
        worst = fmax(worst, fabs(episode_velocity(r.mon, 0, i, 1) / v1 - want[i]));
    CHECK_REL(worst + 1.0, 1.0, 1e-9, "u+ / v1 = (-1/3, 2/3, 2/3) (Acary & Taha 2005)");
    /* the compression impulse is the plastic impact's (all at v₁/3: P_c = (2/3,
     * 1/3) m v₁) and Newton's P = (4/3, 2/3) m v₁ = (1 + e) P_c: eᴾ = e = 1 */
    size_t nr;
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &nr);
    CHECK(nr == 2, "two records");
    CHECK_REL(rec[0].poisson, 1.0, 1e-12, "e_P of pair 0 = P / P_plastic - 1 = 1");
    CHECK_REL(rec[1].poisson, 1.0, 1e-12, "e_P of pair 1 = 1");
    CHECK_REL(rec[0].compression / (0.0329 * v1), 2.0 / 3.0, 1e-9,
              "compression impulse of pair 0 = plastic impact's 2/3 m v1");
    /* balls 1 and 2 leave together: a persistent contact without force */
    cr_contact_view w;
    cr_system_get_contact(r.sys, 1, &w);
    CHECK_REF(w.state == CR_CONTACT_TOUCHING && w.overlap == 0.0,
              "balls 1, 2 still touching at the end (overlap %g)", w.overlap);
    run_free(&r);
    cr_model_destroy(model);
}

/* Positions at every `open` event of pair 0 (a listener of the system). */
typedef struct {
    double x[8][2];
    size_t n;
} opens;

static int on_open(const cr_system *sys, size_t first, void *user)
{
    opens *o = user;
    const cr_event *ev = cr_system_events(sys);
    for (size_t k = first; k < cr_system_event_count(sys); k++)
        if (ev[k].kind == CR_EVENT_OPEN && ev[k].force == 0.0 && o->n < 8 &&
            fabs(ev[k].rate) <= 1e-6) /* a release, not a rebound */
            cr_system_get_positions(sys, o->x[o->n++]);
    return CR_OK;
}

/* Two pendulums of lengths ℓ and 2ℓ, the short one lifted, plastic impacts
 * (e = 0): stuck together they carry λ = m g (sin(x/2ℓ) − sin(x/ℓ))/2 (equal
 * masses, x the common displacement from the pivots), which vanishes at the
 * bottom: each release must come where both are back over their pivots, to
 * the release margin 10⁻⁹ m g (x ≈ 4·10⁻⁹ ℓ). */
static void test_release(void)
{
    const double m = 0.0329, r0 = 0.01, ell = 0.2;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m, r0, -ell * 0.1, 0.0);
    cr_model_set_pendulum(model, 0, 0.0, ell, G);
    cr_model_add_ball(model, m, r0, 2.0 * r0, 0.0);
    cr_model_set_pendulum(model, 1, 2.0 * r0, 2.0 * ell, G);
    cr_settings s = settings_until(3.0);
    cr_model_set_settings(model, &s);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 0.0;
    char msg[256];
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    opens o = {{{0}}, 0};
    cr_system_add_event_listener(sys, on_open, &o);
    int rc = cr_system_run(sys, 3.0);
    double worst = 0.0;
    for (size_t k = 0; k < o.n; k++)
        worst = fmax(worst, fmax(fabs(o.x[k][0]), fabs(o.x[k][1] - 2.0 * r0)) / ell);
    printf("release: %zu releases, largest |x|/l %.3g\n", o.n, worst);
    CHECK(rc == CR_OK && o.n >= 2, "stuck pendulums part %zu times in 3 s", o.n);
    CHECK_REF(worst <= 1e-8, "each release over the pivots: |x| / l = %.3g <= 1e-8", worst);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* ---- the energetic law fed the compliant episode -------------------------- */

/* The 3-ball chain of Acary & Taha (unit masses, Hertz K = 1): its compliant
 * episode's α and κ make the rigid energetic law give back the compliant u⁺
 * (001 eq. 17-18), field-free, to 1e-8; both are the chain integrated by the
 * test's RK4 (refchain.h). */
static void test_energetic_calibrated(void)
{
    cr_model *model = cr_model_create();
    for (int i = 0; i < 3; i++)
        cr_model_add_ball(model, 1.0, 0.5, (double)i, i ? 0.0 : 1.0);
    cr_contact_params p;
    cr_contact_params_init(&p, 1.0, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &p);
    cr_settings s = cr_settings_default();
    s.rtol = 1e-12;
    s.atol = 1e-14;
    cr_model_set_settings(model, &s);
    char msg[256];
    cr_system *c = cr_system_create(model, msg, sizeof msg);
    cr_monitor *cm = cr_monitor_create(c);
    cr_system_run(c, 0.0);
    cr_monitor_finish(cm);
    cr_episode_info in;
    cr_monitor_get_episode(cm, 0, &in);
    size_t nr;
    const cr_contact_record *rec = cr_monitor_contacts(cm, 0, &nr);
    double alpha[2] = {rec[0].alpha, rec[1].alpha};
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.kappa = in.kappa;
    lp.alpha = alpha;
    rigid_run r = run_rigid(model, CR_LAW_ENERGETIC, &lp);
    double worst = 0.0;
    for (size_t i = 0; i < 3; i++)
        worst = fmax(worst, fabs(episode_velocity(r.mon, 0, i, 1) - episode_velocity(cm, 0, i, 1)));
    CHECK_REL_SELF(worst + 1.0, 1.0, 1e-8,
                   "energetic(alpha, kappa of the compliant run): u+ = compliant");
    /* and both against the test's RK4 of the chain (refchain.h) */
    double ur[3], uc[3], ea, ec;
    for (size_t i = 0; i < 3; i++) {
        ur[i] = episode_velocity(r.mon, 0, i, 1);
        uc[i] = episode_velocity(cm, 0, i, 1);
    }
    double da = refchain_diff(model, ur, 1.0, &ea), dc = refchain_diff(model, uc, 1.0, &ec);
    CHECK_REF(da <= 1e-8 && dc <= 1e-8 && ea <= 1e-10,
              "energetic rigid u+ %.3g, compliant u+ %.3g from RK4 (refchain.h; <= 1e-8)", da, dc);
    run_free(&r);
    cr_monitor_destroy(cm);
    cr_system_destroy(c);
    cr_model_destroy(model);
}

/* ---- exact free flight ------------------------------------------------------ */

/* Three balls with gaps, no field: each impact at gap / speed exactly (the
 * flight is a straight line, no integrator). */
static void test_free_flight(void)
{
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 1.0, 0.5, 0.0, 1.0);
    cr_model_add_ball(model, 1.0, 0.5, 1.25, 0.0);
    cr_model_add_ball(model, 1.0, 0.5, 2.75, 0.0);
    rigid_run r = run_rigid(model, CR_LAW_NEWTON, NULL);
    CHECK(cr_monitor_episode_count(r.mon) == 2, "two impacts");
    cr_episode_info a, b;
    cr_monitor_get_episode(r.mon, 0, &a);
    cr_monitor_get_episode(r.mon, 1, &b);
    CHECK_REL(a.t_start, 0.25, 1e-15, "first impact at gap/v = 0.25 s");
    CHECK_REL(b.t_start, 0.75, 1e-15, "second at 0.25 + 0.5/1 s");
    CHECK(strcmp(cr_system_end_reason(r.sys), "all contacts open and separating") == 0,
          "automatic end: %s", cr_system_end_reason(r.sys));
    run_free(&r);
    cr_model_destroy(model);
}

/* ---- refusals --------------------------------------------------------------- */

static void test_refusals(void)
{
    cr_model *linked = cr_model_create();
    cr_model_add_ball(linked, 1.0, 0.1, 0.0, 1.0);
    cr_model_add_ball(linked, 1.0, 0.1, 0.2, 0.0);
    cr_link l = {1e4, 0.2, 0.0};
    cr_model_set_link(linked, 0, &l);
    expect_refused(linked, CR_LAW_NEWTON, NULL, "not rigid", "a link");

    cr_model *damped = cr_model_create();
    cr_model_add_ball(damped, 1.0, 0.1, 0.0, 1.0);
    cr_model_add_ball(damped, 1.0, 0.1, 0.3, 0.0);
    cr_contact_params p;
    cr_contact_params_init(&p, 1e6, 1.0, 50.0, CR_RELEASE_FORCE);
    cr_model_set_default_contact(damped, &p);
    expect_refused(damped, CR_LAW_NEWTON, NULL, "--restitution", "a damped pair, no restitution");
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.5;
    expect_refused(damped, CR_LAW_NEWTON, &lp, "[0, 1]", "restitution 1.5");
    cr_law_params_init(&lp);
    expect_refused(damped, CR_LAW_ENERGETIC, &lp, "alpha", "energetic without alpha");
    cr_law_params_init(&lp);
    lp.restitution = 0.5; /* given: the damped pair runs */
    char msg[256];
    cr_system *ok = cr_system_create_rigid(damped, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    char law[128] = "";
    CHECK(ok && cr_system_rigid_law(ok, law, sizeof law) == CR_OK &&
              strcmp(law, "newton (restitution 0.5)") == 0 &&
              strcmp(cr_system_engine_name(ok), "rigid") == 0,
          "with --restitution it runs: %s", ok ? law : msg);
    cr_system_destroy(ok);
    cr_model_destroy(linked);
    cr_model_destroy(damped);
}

/* ---- LZB against the compliant cradle --------------------------------------- */

/* Collision velocities of body i (after = 1: u⁺) of collision k. */
static double collision_velocity(const cr_monitor *mon, size_t k, size_t i, int after)
{
    size_t nb, nv;
    const size_t *b = cr_monitor_collision_bodies(mon, k, &nb);
    const double *v = cr_monitor_collision_velocities(mon, k, after, &nv);
    for (size_t q = 0; q < nb; q++)
        if (b[q] == i)
            return v[q];
    return NAN;
}

/*
 * A 5-ball pendulum cradle with e = 1 (the undamped default Hertz law): under
 * LZB with the model's own pair laws (K, n, e = 1) the first impact is the
 * undamped Hertz chain with a frozen configuration (Liu, Zhao & Brogliato
 * 2008), so its u⁺ is the compliant run's first collision: the pulse
 * disperses (the balls next to the last keep small velocities), unlike the
 * sequential law's one-in, one-out. What differs is the pendulum force during
 * the compliant collision's finite duration τ, which the instantaneous impact
 * does not have: near the bottom it changes the speeds by a fraction ~ gτ²/ℓ
 * (displacement vτ, restoring acceleration g·vτ/ℓ over τ). The same numbers
 * through cr_compare_runs (the run comparison): its row 0 must give the
 * error computed here. And the rigid impact itself against the test's own
 * integration of that frozen chain (refchain.h: five touching Hertz balls,
 * the first at the rigid run's u⁻, no field), to 1e-8 of the speed (LZB
 * integrates at its default tolerance 1e-10).
 */
static void test_cradle_lzb(void)
{
    const double ell = 0.2, theta0 = 0.1;
    double T4 = sqrt(ell / G) * ellip_K(sin(0.5 * theta0));
    cr_model *model = pendulum_row(5, theta0, ell, 1.5 * T4);
    char msg[256];
    cr_system *c = cr_system_create(model, msg, sizeof msg);
    cr_monitor *cm = cr_monitor_create(c);
    int crc = cr_system_run(c, cr_model_settings(model)->t_end);
    cr_monitor_finish(cm);
    rigid_run r = run_rigid(model, CR_LAW_LZB, NULL);
    CHECK(crc == CR_OK && r.rc == CR_OK && cr_monitor_collision_count(cm) >= 1 &&
              cr_monitor_collision_count(r.mon) >= 1,
          "cradle: compliant and lzb runs");
    check_instantaneous(&r, RIGID_SOME, "cradle (lzb)");
    cr_collision_info ci;
    cr_monitor_get_collision(cm, 0, &ci);
    double tau = ci.t_end - ci.t_start, bound = G * tau * tau / ell;
    double speed = 0.0, worst = 0.0;
    for (size_t i = 0; i < 5; i++)
        speed = fmax(speed, fabs(collision_velocity(cm, 0, i, 0)));
    for (size_t i = 0; i < 5; i++)
        worst =
            fmax(worst, fabs(collision_velocity(r.mon, 0, i, 1) - collision_velocity(cm, 0, i, 1)));
    printf("# lzb cradle: |u+ - u+_compliant| / v1 = %.3g (bound g tau^2 / l = %.3g, tau = "
           "%.3g s)\n",
           worst / speed, bound, tau);
    CHECK_SELF(worst / speed <= bound, "lzb u+ = compliant first collision within %.3g: %.3g",
               bound, worst / speed);
    {
        double m5[5], x5[5], r5[5], v5[5], vr[5], P[4], est = NAN, d = 0.0;
        for (size_t i = 0; i < 5; i++) {
            m5[i] = cr_model_mass(model, i);
            r5[i] = cr_model_radius(model, i);
            x5[i] = 2.0 * r5[0] * (double)i;
            v5[i] = collision_velocity(r.mon, 0, i, 0);
        }
        const cr_contact_params *law = cr_model_contact(model, 0);
        refchain rc;
        refchain_init(&rc, 5, m5, x5, r5, v5, law->K, law->n, law->C, 0);
        for (size_t k = 0; k < 4; k++)
            rc.gap[k] = 0.0;
        int ok = refchain_final(&rc, refchain_step(&rc, speed, 4000.0), 1.0, vr, P, &est) > 0.0;
        for (size_t i = 0; i < 5; i++)
            d = fmax(d, fabs(collision_velocity(r.mon, 0, i, 1) - vr[i]) / speed);
        CHECK_REF(ok && law->C == 0.0 && d <= 1e-8 && est <= 1e-10 * speed,
                  "lzb first impact vs RK4 of the frozen Hertz chain (refchain.h): %.3g (<= 1e-8; "
                  "estimate %.1e)",
                  d, est);
        printf("# lzb cradle: first impact vs RK4 of the frozen chain %.2e v1\n", d);
    }
    double u3 = fabs(collision_velocity(r.mon, 0, 3, 1));
    CHECK(u3 > 1e-3 * speed, "lzb disperses: ball 3 keeps %.3g v1 (sequential: 0)", u3 / speed);
    char law[256];
    cr_system_rigid_law(r.sys, law, sizeof law);
    CHECK(strstr(law, "lzb (energetic restitution 1; pair laws K = ") != NULL, "law text: %s", law);
    cr_compare_runs_row row;
    cr_compare_runs_summary sum;
    CHECK(cr_compare_runs(cm, r.mon, &row, 1, &sum) == CR_OK && sum.matched >= 1,
          "run comparison of compliant and lzb");
    CHECK_REL_SELF(row.velocity_after_error, worst / speed, 1e-12,
                   "runcmp row 0: the u+ error computed here from the two monitors");
    cr_collision_info ri;
    cr_monitor_get_collision(r.mon, 0, &ri);
    CHECK_REF(row.phase == ri.t_start - ci.t_start && fabs(row.phase) <= 1e-9 * T4,
              "runcmp phase of collision 0: %.3g s (both at T/4)", row.phase);
    CHECK_REL_SELF(row.energy_error, (ri.T_plus - ci.T_plus) / ci.T_minus, 1e-12,
                   "runcmp energy error of collision 0");
    run_free(&r);
    cr_monitor_destroy(cm);
    cr_system_destroy(c);
    cr_model_destroy(model);
}

/*
 * The run comparison against two impact sequences solved by hand (it had been
 * checked on a run compared with itself). Three unit balls of radius 0.5 at
 * x = 0, 1.25, 2.75, ball 0 at 1 m/s, no field, Newton's law:
 *  - e = 1 (the "compliant" side): exchanges, collisions {0,1} at 0.25 s and
 *    {1,2} at 0.75 s, velocities (0, 1, 0) then (0, 0, 1);
 *  - e = 1/2 (the "rigid" side): {0,1} at 0.25 s gives (1/4, 3/4, 0); ball 1
 *    covers 0.5 m at 3/4 m/s: {1,2} at 0.25 + 2/3 s gives (1/4, 3/16, 9/16);
 *    ball 0 (1/4) then catches ball 1 (3/16) across 1/3 m at 1/16 m/s:
 *    {0,1} at 11/12 + 16/3 = 6.25 s gives (13/64, 15/64, 9/16), and nothing
 *    approaches any more.
 * Each impact is its own collision (window 0.01 s). Two rows: phases 0 and
 * 1/6 s; speeds 1; errors before 0 and 1/4, after 1/4 and 7/16; T⁻ (1/2, 1/2)
 * and (1/2, 9/32); energy errors −3/8 and −83/128; κ 1 and 5/8 each (no field:
 * T⁺/T⁻); next intervals 1/2 and 2/3 s; decays 1 and 25/64; mean compliant
 * interval 1/2 s.
 */
static void test_runcmp_closed_form(void)
{
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 1.0, 0.5, 0.0, 1.0);
    cr_model_add_ball(model, 1.0, 0.5, 1.25, 0.0);
    cr_model_add_ball(model, 1.0, 0.5, 2.75, 0.0);
    cr_law_params half;
    cr_law_params_init(&half);
    half.restitution = 0.5;
    rigid_run a = run_rigid(model, CR_LAW_NEWTON, NULL), b = run_rigid(model, CR_LAW_NEWTON, &half);
    CHECK(a.rc == CR_OK && b.rc == CR_OK && cr_monitor_set_collision_window(a.mon, 0.01) == CR_OK &&
              cr_monitor_set_collision_window(b.mon, 0.01) == CR_OK,
          "runs with e = 1 and e = 1/2");
    cr_compare_runs_row rows[3];
    cr_compare_runs_summary sum;
    CHECK(cr_compare_runs(a.mon, b.mon, rows, 3, &sum) == CR_OK, "runcmp");
    CHECK_REF(sum.collisions_compliant == 2 && sum.collisions_rigid == 3 && sum.matched == 2,
              "collisions 2 (e = 1) and 3 (e = 1/2), 2 matched: %zu, %zu, %zu",
              sum.collisions_compliant, sum.collisions_rigid, sum.matched);
    static const struct {
        double t_c, t_r, next_c, next_r, before, after, Tm_c, Tm_r, Tp_c, Tp_r, kappa_r;
    } want[2] = {{0.25, 0.25, 0.5, 2.0 / 3.0, 0.0, 0.25, 0.5, 0.5, 0.5, 0.3125, 0.625},
                 {0.75, 0.25 + 2.0 / 3.0, NAN, 5.0 + 1.0 / 3.0, 0.25, 7.0 / 16.0, 0.5, 9.0 / 32.0,
                  0.5, 45.0 / 256.0, 0.625}};
    for (size_t k = 0; k < 2 && sum.matched == 2; k++) {
        const cr_compare_runs_row *w = &rows[k];
        double got[11] = {w->t_compliant,
                          w->t_rigid,
                          w->next_compliant,
                          w->next_rigid,
                          w->velocity_before_error,
                          w->velocity_after_error,
                          w->T_minus_compliant,
                          w->T_minus_rigid,
                          w->T_plus_compliant,
                          w->T_plus_rigid,
                          w->kappa_rigid};
        const double *exp = &want[k].t_c;
        double worst = 0.0;
        for (int q = 0; q < 11; q++)
            if (!(isnan(exp[q]) && isnan(got[q])))
                worst = fmax(worst, fabs(got[q] - exp[q]) / fmax(1.0, fabs(exp[q])));
        tu_case("runcmp row %zu", k);
        CHECK_REF(worst <= 1e-14 && w->same_bodies && w->speed == 1.0,
                  "row %zu: t %.15g, %.15g; next %.15g, %.15g; errors %.15g, %.15g; T- %.15g, "
                  "%.15g; T+ %.15g, %.15g; kappa %.15g (largest difference %.2e)",
                  k, got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7], got[8], got[9],
                  got[10], worst);
        CHECK_REL(w->phase, want[k].t_r - want[k].t_c, 1e-14, "phase 0, then 1/6 s (by hand)");
        CHECK_REL(w->energy_error, (want[k].Tp_r - want[k].Tp_c) / want[k].Tm_c, 1e-14,
                  "energy error -3/8, then -83/128 (by hand)");
        CHECK_REL(w->kappa_compliant, 1.0, 1e-14, "e = 1: kappa 1");
    }
    tu_case(NULL);
    CHECK_REL(sum.phase_drift, 1.0 / 6.0, 1e-14, "phase drift: 11/12 - 3/4 s (by hand)");
    CHECK_REL(sum.max_velocity_error, 7.0 / 16.0, 1e-14, "largest u+ error 7/16 (by hand)");
    CHECK_REL(sum.mean_velocity_error, (0.25 + 7.0 / 16.0) / 2.0, 1e-14, "mean u+ error");
    CHECK_REL(sum.max_energy_error, 83.0 / 128.0, 1e-14, "largest |energy error| 83/128");
    CHECK_REL(sum.decay_compliant, 1.0, 1e-14, "decay, e = 1: 1");
    CHECK_REL(sum.decay_rigid, 25.0 / 64.0, 1e-14, "decay, e = 1/2: (5/8)^2");
    CHECK_REL(sum.mean_interval, 0.5, 1e-14, "mean compliant interval 1/2 s");
    run_free(&a);
    run_free(&b);
    cr_model_destroy(model);
}

/* ---- per-impact parameters --------------------------------------------------- */

typedef struct {
    double e[3];
    size_t calls, bad;
} schedule;

/* Impact k gets restitution e[k]; the engine's numbering must be 0, 1, 2 on
 * the one pair of a ball and a floor. */
static int scheduled(const cr_system *sys, size_t impact, size_t first, size_t count,
                     cr_law_params *p, char *msg, size_t msglen, void *user)
{
    (void)sys;
    schedule *s = user;
    s->bad += impact != s->calls || first != 0 || count != 1 || p->reference != 0;
    s->calls++;
    if (impact >= 3) {
        snprintf(msg, msglen, "no restitution for impact %zu", impact);
        return CR_ERR_INVALID;
    }
    static double eps[1];
    eps[0] = s->e[impact];
    p->restitutions = eps;
    return CR_OK;
}

/* A ball dropped on a floor, Newton's law with e = 0.5, 0.8, 0.3 at impacts
 * 0, 1, 2 from the provider: rebound speed ratios e_k exactly (closed form of
 * one contact against a fixed body), and the provider's refusal of impact 3
 * ends the run with its line. */
static void test_provider(void)
{
    const double h = 0.1, r0 = 0.01, m = 0.01;
    cr_model *model = cr_model_create();
    cr_model_add_wall(model, 0.0);
    cr_model_add_ball(model, m, r0, r0 + h, 0.0);
    cr_model_set_gravity(model, -G);
    cr_settings st = settings_until(2.0);
    cr_model_set_settings(model, &st);
    char msg[256];
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 1.0;
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    schedule s = {{0.5, 0.8, 0.3}, 0, 0};
    CHECK(cr_system_rigid_set_provider(sys, scheduled, &s, "scheduled restitution") == CR_OK,
          "provider set");
    cr_monitor *mon = cr_monitor_create(sys);
    int rc = cr_system_run(sys, 2.0);
    cr_monitor_finish(mon);
    CHECK(rc == CR_ERR_SOLVER && strstr(cr_system_last_error(sys), "no restitution for impact 3"),
          "the provider's refusal ends the run: %s", cr_system_last_error(sys));
    CHECK(s.bad == 0 && s.calls == 4, "impacts numbered 0..3 on pair 0 (%zu calls, %zu bad)",
          s.calls, s.bad);
    size_t n = cr_monitor_episode_count(mon);
    CHECK(n == 3, "three impacts resolved (%zu)", n);
    for (size_t k = 0; k < n && k < 3; k++)
        CHECK_REL(-episode_velocity(mon, k, 1, 1) / episode_velocity(mon, k, 1, 0), s.e[k], 1e-14,
                  "rebound ratio of impact k = the provider's e_k");
    char law[128];
    cr_system_rigid_law(sys, law, sizeof law);
    CHECK(strcmp(law, "newton (scheduled restitution)") == 0, "law text: %s", law);
    schedule other = s;
    CHECK(cr_system_rigid_set_provider(sys, scheduled, &other, NULL) == CR_ERR_INVALID,
          "no other provider after the run");
    /* the same one may relabel (what it found: a table's bounds) */
    CHECK(cr_system_rigid_set_provider(sys, scheduled, &s, "relabelled") == CR_OK, "relabel");
    cr_system_rigid_law(sys, law, sizeof law);
    CHECK(strcmp(law, "newton (relabelled)") == 0, "law text after relabelling: %s", law);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

int main(void)
{
    test_ball_on_floor(0.5);
    test_ball_on_floor(0.8);
    test_two_pendulums();
    test_pendulum_period();
    test_cradle_sequential();
    test_cradle_newton();
    test_release();
    test_energetic_calibrated();
    test_cradle_lzb();
    test_runcmp_closed_form();
    test_provider();
    test_free_flight();
    test_refusals();
    return tu_finish("test-rigid");
}
