/*
 * The pool engine, built from dim-2 models through cr_system: the θ = 0 pool is
 * the 1-D chain (1e-10), the pools of ../shared/seeds/001 sect. 4 conserve
 * momentum (1e-12) and energy (1e-9), the symmetric Bernoulli configuration
 * stays symmetric, walls reflect (a wall's own dashpot gives the analytic
 * restitution), gravity gives the free-fall time, a restitution target is met
 * at a wall and between discs, a pair with its own stiffness has the Hertz
 * duration of that stiffness, vector impulses balance momentum exactly, the
 * sparse Jacobian matches central differences, GMRES matches KLU, and bad
 * input is refused with a reason. (The pool episode checks moved to
 * test-monitor.c with the one monitor.)
 */
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"
#include "refchain.h"
#include "refpool.h"

static const double M = 0.0329, R = 0.01, K = 1.0878565e10;

/* 2√π Γ(7/5) / Γ(9/10): Hertz contact duration t_c = HERTZ_TC · δmax / v with
 * δmax = (5 μ v² / (4 K))^(2/5) (classical Hertz theory, as in test-sim). */
static const double HERTZ_TC = 2.943275184324706;

typedef struct {
    double m, r, x, y, vx, vy;
} disc;

/* A dim-2 model of @p n discs with one law and tight tolerances. */
static cr_model *pool_model(size_t n, const disc *d, const cr_contact_params *law, double rtol)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    for (size_t i = 0; i < n; i++) {
        double x[2] = {d[i].x, d[i].y}, v[2] = {d[i].vx, d[i].vy};
        cr_model_add_body(model, d[i].m, d[i].r, x, v);
    }
    cr_model_set_default_contact(model, law);
    cr_settings s = cr_settings_default();
    s.rtol = rtol;
    s.atol = rtol * 1e-2;
    cr_model_set_settings(model, &s);
    return model;
}

static cr_contact_params hertz(double k, double c, cr_release rel)
{
    cr_contact_params law;
    cr_contact_params_init(&law, k, 1.5, c, rel);
    return law;
}

/* cr_system_create + cr_system_run; exits when the system cannot be built. */
static cr_system *run_model(const cr_model *model, double t_end)
{
    cr_system *sys = tu_system(model);
    CHECK(cr_system_run(sys, t_end) == CR_OK, "pool run: %s", cr_system_last_error(sys));
    return sys;
}

static cr_system *run_pool(size_t n, const disc *d, double t_end, double rtol)
{
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    cr_model *model = pool_model(n, d, &law, rtol);
    cr_system *sys = run_model(model, t_end);
    cr_model_destroy(model); /* the engine keeps its own copy */
    return sys;
}

/* First event of @p kind at contact @p k, or NULL. */
static const cr_event *find_event(const cr_system *sys, size_t k, cr_event_kind kind)
{
    const cr_event *ev = cr_system_events(sys);
    for (size_t q = 0; q < cr_system_event_count(sys); q++)
        if (ev[q].contact == k && ev[q].kind == kind)
            return &ev[q];
    return NULL;
}

/* The contact between bodies a and b (b < 0: a wall), or (size_t)-1. */
static size_t contact_of(const cr_system *sys, size_t a, long b)
{
    for (size_t k = 0; k < cr_system_contact_count(sys); k++) {
        cr_contact_view v;
        cr_system_get_contact(sys, k, &v);
        if (v.body_a == a && v.body_b == b)
            return k;
    }
    return (size_t)-1;
}

/* max |v − v_RK4| / V of a pool's final velocities @p v against the test's own
 * integration of the discs (refpool.h: fixed-step RK4, turning normals, every
 * pair at every stage); its error estimate in *est (relative to V). */
static double vs_rk4(size_t n, const disc *d, const cr_contact_params *law, const double *v,
                     double V, double *est)
{
    refpool c;
    memset(&c, 0, sizeof c);
    c.n = n;
    for (size_t i = 0; i < n; i++) {
        c.m[i] = d[i].m;
        c.r[i] = d[i].r;
        c.x[2 * i] = d[i].x;
        c.x[2 * i + 1] = d[i].y;
        c.v[2 * i] = d[i].vx;
        c.v[2 * i + 1] = d[i].vy;
    }
    c.K = law->K;
    c.e = law->n;
    c.C = law->C;
    c.dm = law->m;
    c.force_release = law->release == CR_RELEASE_FORCE;
    double vr[2 * REFPOOL_MAX], h = refpool_step(&c, V, 4000.0), worst = 0.0;
    *est = INFINITY;
    if (refpool_final(&c, h, 1e5 * h, vr, est) < 0.0)
        return INFINITY;
    *est /= V;
    for (size_t k = 0; k < 2 * n; k++)
        worst = fmax(worst, fabs(v[k] - vr[k]));
    return worst / V;
}

/* The same three balls on a line, as a chain and as a pool (θ = 0), both
 * through cr_system. */
static void pool_equals_chain(void)
{
    const double x[3] = {0.0, 0.02 + 1e-5, 0.04 + 1e-5};
    cr_model *chain = cr_model_create();
    disc d[3];
    for (int i = 0; i < 3; i++) {
        cr_model_add_ball(chain, M, R, x[i], i ? 0.0 : 1.0);
        d[i] = (disc){M, R, x[i], 0.0, i ? 0.0 : 1.0, 0.0};
    }
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(chain, &law);
    cr_settings s = cr_settings_default();
    s.rtol = 1e-12;
    s.atol = 1e-14;
    cr_model_set_settings(chain, &s);
    cr_system *cs = run_model(chain, 0.0);
    CHECK(strcmp(cr_system_engine_name(cs), "chain") == 0, "dim 1: the chain engine");
    double uc[3], up[6];
    cr_system_get_velocities(cs, uc);
    cr_system *ps = run_pool(3, d, 0.0, 1e-12);
    CHECK(strcmp(cr_system_engine_name(ps), "pool") == 0, "dim 2: the pool engine");
    cr_system_get_velocities(ps, up);
    int f0 = tu_failed;
    for (int i = 0; i < 3; i++) {
        CHECK_SELF(fabs(up[2 * i] - uc[i]) <= 1e-10, "ball %d: pool %.15g vs chain %.15g", i,
                   up[2 * i], uc[i]);
        CHECK_INV(up[2 * i + 1] == 0.0, "no motion off the line");
    }
    /* the line of three balls, integrated by the test's RK4 (refchain.h) */
    double ux[3] = {up[0], up[2], up[4]}, est, dr = refchain_diff(chain, ux, 1.0, &est);
    CHECK_REF(dr <= 1e-9 && est <= 1e-10, "theta = 0 pool vs RK4: %.3g (<= 1e-9; estimate %.1e)",
              dr, est);
    tu_summary(f0, "theta = 0 pool = chain to 1e-10, = RK4 to %.1e: (%.12f, %.12f, %.12f)", dr,
               up[0], up[2], up[4]);
    cr_system_destroy(cs);
    cr_system_destroy(ps);
    cr_model_destroy(chain);
}

/* 001 sect. 4 geometry: ball 2 at the origin, ball 3 on the x-axis beyond it,
 * ball 1 at −2R(cos θ, sin θ) + a small gap along that line, moving at
 * (cos(θ−τ), sin(θ−τ)) (corrected, seeds/README). */
static void seed_pool(double theta, double tau)
{
    double g = 1e-5;
    disc d[3] = {
        {M, R, -(2 * R + g) * cos(theta), -(2 * R + g) * sin(theta), cos(theta - tau),
         sin(theta - tau)},
        {M, R, 0.0, 0.0, 0.0, 0.0},
        {M, R, 2 * R, 0.0, 0.0, 0.0},
    };
    tu_case("pool theta = %.4f tau = %.3f", theta, tau);
    int f0 = tu_failed;
    cr_system *p = run_pool(3, d, 0.0, 1e-12);
    double pm[2], v[6];
    cr_system_momentum(p, pm);
    cr_system_get_velocities(p, v);
    char ref[96];
    snprintf(ref, sizeof ref, "momentum x, theta %.3f tau %.3f", theta, tau);
    CHECK_INV(fabs(pm[0] - M * cos(theta - tau)) <= 1e-12 * M, "%s: %.17g", ref, pm[0]);
    CHECK_INV(fabs(pm[1] - M * sin(theta - tau)) <= 1e-12 * M, "momentum y: %.17g", pm[1]);
    CHECK_REL_INV(cr_system_kinetic_energy(p) + cr_system_potential_energy(p), 0.5 * M, 1e-9,
                  "energy conserved, undamped pool");
    /* vector impulses: m (u+ − u−) of ball 3 = impulse received from ball 2 */
    double ball3[2] = {0, 0};
    for (size_t k = 0; k < cr_system_contact_count(p); k++) {
        cr_contact_view cv;
        cr_system_get_contact(p, k, &cv);
        if (cv.body_b == 2) {
            ball3[0] += cv.vector_impulse[0];
            ball3[1] += cv.vector_impulse[1];
        }
    }
    CHECK_INV(fabs(M * v[4] - ball3[0]) <= 1e-10 * M && fabs(M * v[5] - ball3[1]) <= 1e-10 * M,
              "vector impulse balance of ball 3: %.12g vs %.12g", M * v[4], ball3[0]);
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    double est, dr = vs_rk4(3, d, &law, v, 1.0, &est);
    CHECK_REF(dr <= 1e-9 && est <= 1e-10, "pool vs RK4 (refpool.h): %.3g (<= 1e-9; estimate %.1e)",
              dr, est);
    tu_summary(f0,
               "pool theta = %.4f tau = %.3f: u1 = (%.6f, %.6f) u2 = (%.6f, %.6f) u3 = (%.6f, "
               "%.6f), %zu events; RK4 to %.1e",
               theta, tau, v[0], v[1], v[2], v[3], v[4], v[5], cr_system_event_count(p), dr);
    tu_case(NULL);
    cr_system_destroy(p);
}

/* Bernoulli: ball 1 on the x-axis strikes balls 2 and 3 placed symmetrically,
 * touching each other (θ = 2π/3, three closed contacts at impact): the outcome
 * is mirror-symmetric about the x-axis. */
static void bernoulli(void)
{
    double g = 1e-5, s = sqrt(3.0) * R;
    /* balls 2 and 3 at (0, ±R): touching; ball 1 on the axis touches both at
     * x = −√3 R: placed there minus the gap */
    disc d[3] = {
        {M, R, -s - g, 0.0, 1.0, 0.0},
        {M, R, 0.0, R, 0.0, 0.0},
        {M, R, 0.0, -R, 0.0, 0.0},
    };
    cr_system *p = run_pool(3, d, 0.0, 1e-12);
    double v[6];
    cr_system_get_velocities(p, v);
    int f0 = tu_failed;
    CHECK_INV(fabs(v[1]) <= 1e-10, "ball 1 stays on the axis: vy = %g", v[1]);
    CHECK_INV(fabs(v[2] - v[4]) <= 1e-10 && fabs(v[3] + v[5]) <= 1e-10,
              "balls 2 and 3 mirror each other: (%g, %g) vs (%g, %g)", v[2], v[3], v[4], v[5]);
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    double est, dr = vs_rk4(3, d, &law, v, 1.0, &est);
    CHECK_REF(dr <= 1e-9 && est <= 1e-10,
              "Bernoulli pool vs RK4 (refpool.h): %.3g (<= 1e-9; estimate %.1e)", dr, est);
    tu_summary(f0, "Bernoulli pool: u1 = %.6f, u2 = (%.6f, %.6f), mirror symmetric to 1e-10", v[0],
               v[2], v[3]);
    cr_system_destroy(p);
}

/* A disc bouncing between two walls: elastic, so it comes back at the same
 * speed; walls appear as contacts with a negative second body. */
static void walls(void)
{
    disc d = {M, R, 0.0, 0.0, 1.0, 0.5};
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    cr_model *model = pool_model(1, &d, &law, 1e-12);
    double left[2] = {-1.0, 0.0}, right[2] = {1.0, 0.0};
    CHECK(cr_model_add_plane(model, left, -0.02, NULL) == 0, "wall x <= 0.02");
    CHECK(cr_model_add_plane(model, right, -0.05, NULL) == 1, "wall x >= -0.05");
    cr_system *p = run_model(model, 0.05);
    double v[2];
    cr_system_get_velocities(p, v);
    /* 0.05 s: hits x = 0.01 at 0.01 s, back to −0.04 at 0.06 s: moving left now */
    CHECK_REL(v[0], -1.0, 1e-9, "elastic wall: vx reversed");
    CHECK_REL(v[1], 0.5, 1e-12, "frictionless wall: vy kept");
    CHECK(contact_of(p, 0, CR_WALL_BODY(0)) == 0, "wall contact listed first");
    /* 5 cm of travel against a skin of 5 mm: the neighbour list was rebuilt */
    CHECK(cr_system_get_stats(p).rebuilds > 0, "neighbour rebuilds happened (%ld)",
          cr_system_get_stats(p).rebuilds);
    cr_system_destroy(p);
    cr_model_destroy(model);
    /* a wall with its own linear spring-dashpot: the disc comes back with
     * e = exp(−πζ/√(1−ζ²)), ζ = C/(2√(K m)) (the wall does not move: μ = m) */
    {
        disc d1 = {M, R, 0.0, 0.0, 1.0, 0.0};
        cr_contact_params wl;
        double Kw = 1e7, zeta = 0.2;
        cr_contact_params_init(&wl, Kw, 1.0, zeta * 2 * sqrt(Kw * M), CR_RELEASE_GAP);
        model = pool_model(1, &d1, &law, 1e-12);
        CHECK(cr_model_add_plane(model, left, -0.02, &wl) == 0, "wall with its law");
        p = run_model(model, 0.0);
        double vw[2];
        cr_system_get_velocities(p, vw);
        CHECK_REL(-vw[0], exp(-M_PI * zeta / sqrt(1 - zeta * zeta)), 1e-8,
                  "wall's own dashpot law: e = exp(-pi z / sqrt(1 - z^2))");
        cr_system_destroy(p);
        cr_model_destroy(model);
    }
    /* a disc outside a wall is refused when the system is built, by name */
    model = pool_model(1, &d, &law, 1e-12);
    cr_model_add_plane(model, right, 0.5, NULL);
    char msg[256] = "";
    p = cr_system_create(model, msg, sizeof msg);
    CHECK(p == NULL && strstr(msg, "body 0") && strstr(msg, "outside wall 0"),
          "disc outside the wall refused: %s", msg);
    cr_system_destroy(p);
    cr_model_destroy(model);
}

static void bad_input(void)
{
    char msg[256] = "";
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    disc two[2] = {{M, R, 0, 0, 1, 0}, {M, 0.0, 0.05, 0, 0, 0}};
    cr_model *model = pool_model(2, two, &law, 1e-10);
    cr_system *p = cr_system_create(model, msg, sizeof msg);
    CHECK(p == NULL && strstr(msg, "body 1: radius"), "zero radius refused: %s", msg);
    cr_system_destroy(p);
    cr_model_destroy(model);
    two[1].r = R;
    two[1].x = 0.015;
    model = pool_model(2, two, &law, 1e-10);
    p = cr_system_create(model, msg, sizeof msg);
    CHECK(p != NULL, "created: %s", msg);
    /* overlapping discs are caught when the run lays out its contacts, as a
     * model error that names both discs */
    int rc = p ? cr_system_run(p, 1e-4) : CR_OK;
    CHECK(rc == CR_ERR_MODEL && strstr(cr_system_last_error(p), "discs 0 and 1 interpenetrate"),
          "overlapping discs refused at the start (rc %d: %s)", rc,
          p ? cr_system_last_error(p) : "");
    cr_system_destroy(p);
    cr_model_destroy(model);
    /* a pendulum has no meaning in the plane; gravity without an end time */
    model = pool_model(1, two, &law, 1e-10);
    CHECK(cr_model_set_pendulum(model, 0, 0.0, 1.0, 9.81) == CR_ERR_INVALID,
          "pendulum refused in dim 2");
    double g[2] = {0.0, -9.81};
    cr_model_set_gravity_vector(model, g);
    p = cr_system_create(model, msg, sizeof msg);
    rc = p ? cr_system_run(p, 0.0) : CR_OK;
    CHECK(rc == CR_ERR_INVALID && strstr(cr_system_last_error(p), "end time"),
          "gravity with an automatic end refused (rc %d: %s)", rc,
          p ? cr_system_last_error(p) : "");
    cr_system_destroy(p);
    cr_model_destroy(model);
}

/* The analytic sparse Jacobian against central differences of the right-hand
 * side, in the middle of a three-contact impact (relative 1e-6); under gravity
 * too (a constant field leaves the Jacobian as it is). */
static void jacobian_check(void)
{
    double g = 1e-5, s = sqrt(3.0) * R;
    disc d[4] = {
        {M, R, -s - g, 0.0, 1.0, 0.2},
        {M, R, 0.0, R, 0.0, 0.0},
        {M, R, 0.0, -R, 0.0, 0.0},
        {M, R, 0.0, 3 * R, -0.3, 0.0},
    };
    cr_contact_params law = hertz(K, 2.0e3, CR_RELEASE_GAP);
    double down[2] = {0.0, -1.0}, grav[2] = {3.0, -9.81};
    for (int k = 0; k < 2; k++) {
        tu_case("jacobian%s", k ? ", gravity" : "");
        int f0 = tu_failed;
        cr_model *model = pool_model(4, d, &law, 1e-10);
        cr_model_add_plane(model, down, -0.05, NULL);
        if (k)
            cr_model_set_gravity_vector(model, grav);
        char msg[256] = "";
        double err = -1.0;
        /* stop while the contacts are loaded */
        cr_settings set = *cr_model_settings(model);
        set.solver = CR_SOLVER_KLU; /* the check compares the assembled sparse matrix */
        cr_model_set_settings(model, &set);
        cr_system *sys = cr_system_create(model, msg, sizeof msg);
        CHECK(sys && cr_system_run(sys, g / 1.0 + 2e-5) == CR_OK &&
                  cr_system_check_jacobian(sys, &err) == CR_OK,
              "check: %s %s", msg, sys ? cr_system_last_error(sys) : "");
        cr_system_destroy(sys);
        /* (differences of cradle's own right-hand side) */
        CHECK_SELF(err >= 0.0 && err < 1e-6, "analytic vs finite-difference Jacobian: %.3g", err);
        tu_summary(f0, "sparse Jacobian = central differences to %.2e (<= 1e-6), mid-impact%s", err,
                   k ? ", under gravity" : "");
        cr_model_destroy(model);
    }
    tu_case(NULL);
}

/* The matrix-free solver (GMRES with the per-disc block preconditioner) gives
 * the direct solver's answer: the 001 sect. 4 pool to 1e-9 (rtol 1e-12). */
static void gmres_equals_klu(void)
{
    double g = 1e-5, th = 0.4, tau = 0.3, u[2][6];
    disc d[3] = {
        {M, R, -(2 * R + g) * cos(th), -(2 * R + g) * sin(th), cos(th - tau), sin(th - tau)},
        {M, R, 0.0, 0.0, 0.0, 0.0},
        {M, R, 2 * R, 0.0, 0.0, 0.0},
    };
    cr_contact_params law = hertz(K, 1e3, CR_RELEASE_FORCE);
    for (int k = 0; k < 2; k++) {
        cr_model *model = pool_model(3, d, &law, 1e-12);
        cr_settings s = *cr_model_settings(model);
        s.solver = k ? CR_SOLVER_GMRES : CR_SOLVER_KLU;
        cr_model_set_settings(model, &s);
        cr_system *p = run_model(model, 0.0);
        cr_system_get_velocities(p, u[k]);
        cr_system_destroy(p);
        cr_model_destroy(model);
    }
    int f0 = tu_failed;
    for (int q = 0; q < 6; q++)
        CHECK_SELF(fabs(u[1][q] - u[0][q]) <= 1e-9, "GMRES vs KLU, component %d: %.15g vs %.15g", q,
                   u[1][q], u[0][q]);
    double est, dr = fmax(vs_rk4(3, d, &law, u[0], 1.0, &est), vs_rk4(3, d, &law, u[1], 1.0, &est));
    CHECK_REF(dr <= 1e-9 && est <= 1e-10,
              "KLU and GMRES vs RK4 (refpool.h): %.3g (<= 1e-9; estimate %.1e)", dr, est);
    tu_summary(f0,
               "GMRES + block preconditioner = KLU to 1e-9, = RK4 to %.1e (damped pool, force "
               "release)",
               dr);
}

/* A disc at rest a height h above a floor, under gravity g = (gx, gy): its
 * surface reaches the floor at t = √(2h/|gy|) with vx = gx t (free fall, closed
 * form); T + U + dissipated stays E0 with U = −m g·p. */
static void free_fall(void)
{
    double h = 0.01, gx = 2.0, gy = -9.81, gv[2] = {gx, gy}, up[2] = {0.0, 1.0};
    disc d = {M, R, 0.0, R + h, 0.0, 0.0};
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    cr_model *model = pool_model(1, &d, &law, 1e-12);
    cr_model_add_plane(model, up, 0.0, NULL); /* the floor y >= 0 */
    cr_model_set_gravity_vector(model, gv);
    double tc = sqrt(2.0 * h / -gy);
    char msg[256];
    cr_system *p = cr_system_create(model, msg, sizeof msg);
    CHECK(p != NULL, "created: %s", msg);
    if (!p)
        return;
    double E0 = cr_system_kinetic_energy(p) + cr_system_potential_energy(p);
    CHECK_REL(E0, -M * gy * (R + h), 1e-15, "U0 = -m g.p at start");
    CHECK(cr_system_run(p, 1.5 * tc) == CR_OK, "run: %s", cr_system_last_error(p));
    const cr_event *close = find_event(p, 0, CR_EVENT_CLOSE);
    CHECK(close != NULL, "the disc reaches the floor");
    if (close)
        CHECK_REL(close->t, tc, 1e-9, "free fall: t = sqrt(2 h / g)");
    double v[2];
    cr_system_get_velocities(p, v);
    CHECK_REL(v[0], gx * 1.5 * tc, 1e-9, "the floor does not touch vx: vx = gx t");
    double E =
        cr_system_kinetic_energy(p) + cr_system_potential_energy(p) + cr_system_dissipated_work(p);
    CHECK_REL_INV(E, E0, 1e-9, "energy with the field's potential");
    cr_system_destroy(p);
    cr_model_destroy(model);
}

/* A restitution target (cr_model_set_default_target + cr_calibrate_model): a
 * disc meeting a wall with a law of its own, and two discs, at the reference
 * speed come apart with the target restitution (calibration tolerance 1e-8). */
static void restitution_target(void)
{
    const double e = 0.85, vref = 1.0;
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_FORCE), wl = hertz(1e9, 0.0, CR_RELEASE_FORCE);
    disc d[3] = {
        {M, R, 0.0, 0.0, vref, 0.0}, /* towards the wall at x = 0.02 */
        /* these two meet at vref, along y, clear of the wall and of disc 0 */
        {2 * M, R, -0.1, 0.3, 0.0, 0.5 * vref},
        {2 * M, R, -0.1, 0.3 + 2 * R + 1e-4, 0.0, -0.5 * vref},
    };
    cr_model *model = pool_model(3, d, &law, 1e-12);
    double left[2] = {-1.0, 0.0};
    cr_model_add_plane(model, left, -0.03, &wl);
    cr_model_set_default_target(model, e, vref);
    char msg[256] = "";
    CHECK(cr_system_create(model, msg, sizeof msg) == NULL && strstr(msg, "cr_calibrate_model"),
          "uncalibrated target refused: %s", msg);
    CHECK(cr_calibrate_model(model, msg, sizeof msg) == CR_OK, "calibrate: %s", msg);
    cr_contact_params pw, pd;
    cr_model_pair_law(model, 0, CR_WALL_BODY(0), &pw);
    cr_model_pair_law(model, 1, 2, &pd);
    CHECK(pw.C > 0 && pd.C > 0 && pw.K == 1e9 && pd.K == K, "solved C: wall %g, discs %g", pw.C,
          pd.C);
    cr_system *p = run_model(model, 0.0);
    double v[6];
    cr_system_get_velocities(p, v);
    CHECK_REL_SELF(-v[0] / vref, e, 1e-8, "wall's restitution = the target");
    CHECK_REL_SELF((v[5] - v[3]) / vref, e, 1e-8, "discs' restitution = the target");
    /* the solved laws integrated here (refchain.h): a disc of mass M on a wall is
     * the central impact at mu = M, the two discs of 2M at mu = M */
    double ew, ed, rw, rd;
    rw = refchain_restitution(pw.K, pw.n, pw.C, pw.m, 1, M, vref, &ew);
    rd = refchain_restitution(pd.K, pd.n, pd.C, pd.m, 1, M, vref, &ed);
    CHECK(ew <= 1e-10 && ed <= 1e-10, "RK4 estimates %.1e, %.1e", ew, ed);
    CHECK_REL(-v[0] / vref, rw, 1e-8, "wall's restitution: RK4 of the solved wall law at mu = M");
    CHECK_REL((v[5] - v[3]) / vref, rd, 1e-8, "discs' restitution: RK4 of the solved law");
    cr_system_destroy(p);
    cr_model_destroy(model);
}

/* Per-pair laws: disc 0 strikes disc 1 through a pair law of its own (K01),
 * disc 2 strikes disc 3 through the default (K), side by side: each contact
 * lasts the Hertz duration of its own stiffness (closed form, as test-sim for
 * chains). Equal masses exchange velocities, so nothing approaches afterwards
 * and the automatic end comes right after the last opening. */
static void pair_law(void)
{
    const double v = 1.0, K01 = K / 50.0, mu = M / 2;
    disc d[4] = {
        {M, R, 0.0, 0.0, v, 0.0},
        {M, R, 2 * R + 1e-5, 0.0, 0.0, 0.0},
        {M, R, 0.0, 0.1, v, 0.0},
        {M, R, 2 * R + 1e-5, 0.1, 0.0, 0.0},
    };
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP), own = hertz(K01, 0.0, CR_RELEASE_GAP);
    cr_model *model = pool_model(4, d, &law, 1e-12);
    CHECK(cr_model_set_pair_law(model, 1, 0, &own) == CR_OK, "pair law (1, 0) set");
    cr_system *p = run_model(model, 0.0);
    const double kk[2] = {K01, K};
    const size_t kc[2] = {contact_of(p, 0, 1), contact_of(p, 2, 3)};
    for (int q = 0; q < 2; q++) {
        const cr_event *c = find_event(p, kc[q], CR_EVENT_CLOSE);
        const cr_event *o = find_event(p, kc[q], CR_EVENT_OPEN);
        tu_case("pair law %d", q);
        CHECK(c && o, "contact %d closes and opens", q);
        if (!c || !o)
            continue;
        double dmax = pow(5.0 * mu * v * v / (4.0 * kk[q]), 0.4);
        CHECK_REL(o->t - c->t, HERTZ_TC * dmax / v, 1e-8,
                  q ? "default law: Hertz duration of K" : "pair law: Hertz duration of K01");
    }
    tu_case(NULL);
    CHECK(strcmp(cr_system_end_reason(p), "all contacts open and separating") == 0,
          "ended by the rule: %s", cr_system_end_reason(p));
    cr_system_destroy(p);
    cr_model_destroy(model);
}

/* Characteristic scales: δ* follows the stiffest pair law (a stiff pair
 * shrinks it to (μV²/K)^(1/(n+1)) of that pair), and the default output interval
 * is about δ* / (4V) with t_end auto, at least t_end/1000 otherwise. */
static void scales_and_output(void)
{
    disc d[3] = {
        {M, R, 0.0, 0.0, 1.0, 0.0},
        {M, R, 2 * R + 1e-5, 0.0, 0.0, 0.0},
        {M, R, 0.1, 0.1, 0.0, 0.0},
    };
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP),
                      stiff = hertz(1e3 * K, 0.0, CR_RELEASE_GAP);
    cr_model *model = pool_model(3, d, &law, 1e-10);
    cr_model_set_pair_law(model, 0, 2, &stiff);
    char msg[256];
    cr_system *p = cr_system_create(model, msg, sizeof msg);
    double L, V;
    cr_system_get_scales(p, &L, &V, NULL);
    CHECK_REL(L, pow(0.5 * M * V * V / (1e3 * K), 0.4), 1e-14,
              "delta* from the stiffest pair (mu V^2 / K)^(1/(n+1))");
    cr_system_destroy(p);
    cr_model_destroy(model);
}

/* Counts the output calls of a run. */
static int count_output(const cr_system *sys, void *user)
{
    (void)sys;
    ++*(long *)user;
    return CR_OK;
}

/* Outputs the default rule (docs/model-format.md, "Output") gives over [0, t]
 * with grid dt, m grid points per free-flight row and the one contact loaded
 * on [tc, to]: t = 0, the grid points inside the contact, every m-th outside,
 * and the end. Counted here from the rule, not from the engine's loop. */
static double rule_outputs(double t, double dt, long m, double tc, double to)
{
    double n = 2.0;
    for (long k = 1; (double)k * dt < t; k++) {
        double tk = (double)k * dt;
        n += (tk > tc && tk < to) || k % m == 0;
    }
    return n;
}

static void output_interval(void)
{
    disc d[2] = {{M, R, 0.0, 0.0, 1.0, 0.0}, {M, R, 2 * R + 1e-5, 0.0, 0.0, 0.0}};
    cr_contact_params law = hertz(K, 0.0, CR_RELEASE_GAP);
    for (int k = 0; k < 2; k++) {
        tu_case("output interval, t_end %s", k ? "given" : "auto");
        int f0 = tu_failed;
        cr_model *model = pool_model(2, d, &law, 1e-10);
        char msg[256];
        cr_system *p = cr_system_create(model, msg, sizeof msg);
        long n = 0;
        double T, V;
        cr_system_get_scales(p, NULL, &V, &T);
        cr_system_add_output_listener(p, count_output, &n);
        double t_end = k ? 0.1 : 0.0; /* t_end / 1000 > δ* / (4V) */
        CHECK(cr_system_run(p, t_end) == CR_OK, "run: %s", cr_system_last_error(p));
        double t = cr_system_get_time(p);
        const cr_event *c = find_event(p, 0, CR_EVENT_CLOSE);
        const cr_event *o = find_event(p, 0, CR_EVENT_OPEN);
        /* the grid: δ* / (4V), or t_end/1000; in free flight every m-th point,
         * m dt the time V takes over a tenth of the radius */
        double dt = fmax(0.25 * T, t_end / 1000.0);
        long m = (long)fmax(1.0, floor(0.1 * R / V / dt));
        double expect = c && o ? rule_outputs(t, dt, m, c->t, o->t) : -10.0;
        CHECK(fabs((double)n - expect) <= 1.0, "%s: %ld outputs, the rule gives %.0f (m = %ld)",
              k ? "t_end 0.1 s: t_end/1000" : "auto: delta*/(4V)", n, expect, m);
        tu_summary(f0, "output interval, %s: %ld outputs over %.3g s (delta*/V = %.3g s)",
                   k ? "t_end given" : "t_end auto", n, t, T);
        cr_system_destroy(p);
        cr_model_destroy(model);
    }
    tu_case(NULL);
}

int main(void)
{
    pool_equals_chain();
    seed_pool(M_PI / 3, 0.0);
    seed_pool(0.4, 0.3);
    seed_pool(0.0, 0.5);
    bernoulli();
    jacobian_check();
    gmres_equals_klu();
    walls();
    bad_input();
    free_fall();
    restitution_target();
    pair_law();
    scales_and_output();
    output_interval();
    return tu_finish("test-pool");
}
