/*
 * Planar pools: the θ = 0 pool is the 1-D chain (1e-10), the pools of
 * ../shared/seeds/001 sect. 4 conserve momentum (1e-12) and energy (1e-9), the
 * symmetric Bernoulli configuration stays symmetric, walls reflect, vector
 * impulses balance momentum exactly, and bad input is refused. (The pool's
 * episode checks moved to test-monitor.c with the one monitor.)
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

static const double M = 0.0329, R = 0.01, K = 1.0878565e10;

static cr_pool *run_pool(size_t n, const cr_disc *d, double t_end, double rtol)
{
    char msg[512];
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_pool *p = cr_pool_create(n, d, &law, msg, sizeof msg);
    if (!p) {
        printf("FAIL: %s\n", msg);
        exit(1);
    }
    cr_pool_set_tolerances(p, rtol, rtol * 1e-2);
    CHECK(cr_pool_run(p, t_end) == CR_OK, "pool run: %s", cr_pool_last_error(p));
    return p;
}

/* The same three balls on a line, as a chain and as a pool (θ = 0). */
static void pool_equals_chain(void)
{
    const double x[3] = {0.0, 0.02 + 1e-5, 0.04 + 1e-5};
    cr_model *model = cr_model_create();
    cr_disc d[3];
    for (int i = 0; i < 3; i++) {
        cr_model_add_ball(model, M, R, x[i], i ? 0.0 : 1.0);
        d[i] = (cr_disc){M, R, x[i], 0.0, i ? 0.0 : 1.0, 0.0};
    }
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    char msg[256];
    cr_sim *sim = cr_sim_create(model, msg, sizeof msg);
    cr_sim_set_tolerances(sim, 1e-12, 1e-14);
    CHECK(cr_sim_run(sim, 0.0) == CR_OK, "chain: %s", cr_sim_last_error(sim));
    double uc[3], up[6];
    cr_sim_get_velocities(sim, uc);
    cr_pool *p = run_pool(3, d, 0.0, 1e-12);
    cr_pool_get_velocities(p, up);
    for (int i = 0; i < 3; i++) {
        CHECK(fabs(up[2 * i] - uc[i]) <= 1e-10, "ball %d: pool %.15g vs chain %.15g", i,
              up[2 * i], uc[i]);
        CHECK(up[2 * i + 1] == 0.0, "no motion off the line");
    }
    printf("ok   theta = 0 pool = chain to 1e-10: (%.12f, %.12f, %.12f)\n", up[0], up[2], up[4]);

    cr_sim_destroy(sim);
    cr_model_destroy(model);
    cr_pool_destroy(p);
}

/* 001 sect. 4 geometry: ball 2 at the origin, ball 3 on the x-axis beyond it,
 * ball 1 at −2R(cos θ, sin θ) + a small gap along that line, moving at
 * (cos(θ−τ), sin(θ−τ)) (corrected, seeds/README). */
static void seed_pool(double theta, double tau)
{
    double g = 1e-5;
    cr_disc d[3] = {
        {M, R, -(2 * R + g) * cos(theta), -(2 * R + g) * sin(theta), cos(theta - tau),
         sin(theta - tau)},
        {M, R, 0.0, 0.0, 0.0, 0.0},
        {M, R, 2 * R, 0.0, 0.0, 0.0},
    };
    cr_pool *p = run_pool(3, d, 0.0, 1e-12);
    double px, py, v[6];
    cr_pool_momentum(p, &px, &py);
    cr_pool_get_velocities(p, v);
    char ref[96];
    snprintf(ref, sizeof ref, "momentum x, theta %.3f tau %.3f", theta, tau);
    CHECK(fabs(px - M * cos(theta - tau)) <= 1e-12 * M, "%s: %.17g", ref, px);
    CHECK(fabs(py - M * sin(theta - tau)) <= 1e-12 * M, "momentum y: %.17g", py);
    CHECK_REL(cr_pool_kinetic_energy(p) + cr_pool_potential_energy(p), 0.5 * M, 1e-9,
              "energy conserved, undamped pool");
    /* vector impulses: m (u+ − u−) of ball 3 = impulse received from ball 2 */
    double P3 = 0, vec[2], ball3[2] = {0, 0};
    for (size_t k = 0; k < cr_pool_contact_count(p); k++) {
        long i, j;
        cr_pool_contact_bodies(p, k, &i, &j);
        P3 = cr_pool_contact_impulse(p, k, vec);
        if (j == 2) {
            ball3[0] += vec[0];
            ball3[1] += vec[1];
        }
    }
    (void)P3;
    CHECK(fabs(M * v[4] - ball3[0]) <= 1e-10 * M && fabs(M * v[5] - ball3[1]) <= 1e-10 * M,
          "vector impulse balance of ball 3: %.12g vs %.12g", M * v[4], ball3[0]);
    printf("ok   pool theta = %.4f tau = %.3f: u1 = (%.6f, %.6f) u2 = (%.6f, %.6f) u3 = (%.6f, "
           "%.6f), %zu events\n",
           theta, tau, v[0], v[1], v[2], v[3], v[4], v[5], cr_pool_event_count(p));
    cr_pool_destroy(p);
}

/* Bernoulli: ball 1 on the x-axis strikes balls 2 and 3 placed symmetrically,
 * touching each other (θ = 2π/3, three closed contacts at impact): the outcome
 * is mirror-symmetric about the x-axis. */
static void bernoulli(void)
{
    double g = 1e-5, s = sqrt(3.0) * R;
    cr_disc d[3] = {
        {M, R, -2 * R - g, 0.0, 1.0, 0.0},
        {M, R, s - s, R, 0.0, 0.0},
        {M, R, s - s, -R, 0.0, 0.0},
    };
    /* balls 2 and 3 at (0, ±R): touching; ball 1 on the axis touches both at
     * x = −√3 R: place it there minus the gap */
    d[0].x = -s - g;
    cr_pool *p = run_pool(3, d, 0.0, 1e-12);
    double v[6];
    cr_pool_get_velocities(p, v);
    CHECK(fabs(v[1]) <= 1e-10, "ball 1 stays on the axis: vy = %g", v[1]);
    CHECK(fabs(v[2] - v[4]) <= 1e-10 && fabs(v[3] + v[5]) <= 1e-10,
          "balls 2 and 3 mirror each other: (%g, %g) vs (%g, %g)", v[2], v[3], v[4], v[5]);
    printf("ok   Bernoulli pool: u1 = %.6f, u2 = (%.6f, %.6f), mirror symmetric to 1e-10\n",
           v[0], v[2], v[3]);
    cr_pool_destroy(p);
}

/* A disc bouncing between two walls: elastic, so it comes back at the same
 * speed; walls appear as contacts with j < 0. */
static void walls(void)
{
    cr_disc d = {M, R, 0.0, 0.0, 1.0, 0.5};
    char msg[256];
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_pool *p = cr_pool_create(1, &d, &law, msg, sizeof msg);
    CHECK(cr_pool_add_wall(p, -1.0, 0.0, -0.02) == CR_OK, "wall x <= 0.02");
    CHECK(cr_pool_add_wall(p, 1.0, 0.0, -0.05) == CR_OK, "wall x >= -0.05");
    cr_pool_set_tolerances(p, 1e-12, 1e-14);
    CHECK(cr_pool_run(p, 0.05) == CR_OK, "run: %s", cr_pool_last_error(p));
    double v[2];
    cr_pool_get_velocities(p, v);
    /* 0.05 s: hits x = 0.01 at 0.01 s, back to −0.04 at 0.06 s: moving left now */
    CHECK_REL(v[0], -1.0, 1e-9, "elastic wall: vx reversed");
    CHECK_REL(v[1], 0.5, 1e-12, "frictionless wall: vy kept");
    long i, j;
    cr_pool_contact_bodies(p, 0, &i, &j);
    CHECK(i == 0 && j < 0, "wall contact listed");
    /* 5 cm of travel against a skin of 2 mm: the neighbour list was rebuilt */
    CHECK(cr_pool_rebuilds(p) > 0, "neighbour rebuilds happened (%ld)", cr_pool_rebuilds(p));
    cr_pool_destroy(p);
    /* a wall with its own linear spring-dashpot: the disc comes back with
     * e = exp(−πζ/√(1−ζ²)), ζ = C/(2√(K m)) (the wall does not move: μ = m) */
    {
        cr_disc d1 = {M, R, 0.0, 0.0, 1.0, 0.0};
        cr_contact_params wl;
        double Kw = 1e7, zeta = 0.2;
        cr_contact_params_init(&wl, Kw, 1.0, zeta * 2 * sqrt(Kw * M), CR_RELEASE_GAP);
        p = cr_pool_create(1, &d1, &law, msg, sizeof msg);
        CHECK(cr_pool_add_wall_law(p, -1.0, 0.0, -0.02, &wl) == CR_OK, "wall with its law");
        cr_pool_set_tolerances(p, 1e-12, 1e-14);
        CHECK(cr_pool_run(p, 0.0) == CR_OK, "run: %s", cr_pool_last_error(p));
        double vw[2];
        cr_pool_get_velocities(p, vw);
        CHECK_REL(-vw[0], exp(-M_PI * zeta / sqrt(1 - zeta * zeta)), 1e-8,
                  "wall's own dashpot law: e = exp(-pi z / sqrt(1 - z^2))");
        cr_pool_destroy(p);
    }
    /* a disc outside a wall is refused */
    p = cr_pool_create(1, &d, &law, msg, sizeof msg);
    CHECK(cr_pool_add_wall(p, 1.0, 0.0, 0.5) == CR_ERR_MODEL, "disc outside the wall refused");
    CHECK(strstr(cr_pool_last_error(p), "outside") != NULL, "message: %s", cr_pool_last_error(p));
    cr_pool_destroy(p);
}

static void bad_input(void)
{
    char msg[256];
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_disc two[2] = {{M, R, 0, 0, 1, 0}, {M, 0.0, 0.05, 0, 0, 0}};
    CHECK(cr_pool_create(2, two, &law, msg, sizeof msg) == NULL && strstr(msg, "radius"),
          "zero radius refused: %s", msg);
    two[1].radius = R;
    two[1].x = 0.015;
    cr_pool *p = cr_pool_create(2, two, &law, msg, sizeof msg);
    CHECK(p != NULL, "created");
    /* overlapping discs are caught when the run lays out its contacts */
    int rc = p ? cr_pool_run(p, 1e-4) : CR_OK;
    CHECK(rc != CR_OK, "overlapping discs refused at the start (rc %d: %s)", rc,
          p ? cr_pool_last_error(p) : "");
    cr_pool_destroy(p);
}

/* The analytic sparse Jacobian against central differences of the right-hand
 * side, in the middle of a three-contact impact (relative 1e-6). */
static void jacobian_check(void)
{
    double g = 1e-5, s = sqrt(3.0) * R;
    cr_disc d[4] = {
        {M, R, -s - g, 0.0, 1.0, 0.2},
        {M, R, 0.0, R, 0.0, 0.0},
        {M, R, 0.0, -R, 0.0, 0.0},
        {M, R, 0.0, 3 * R, -0.3, 0.0},
    };
    char msg[256];
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 2.0e3, CR_RELEASE_GAP);
    cr_pool *p = cr_pool_create(4, d, &law, msg, sizeof msg);
    cr_pool_add_wall(p, 0.0, -1.0, -0.05);
    /* stop while the contacts are loaded */
    CHECK(cr_pool_run(p, g / 1.0 + 2e-5) == CR_OK, "run: %s", cr_pool_last_error(p));
    double err = -1.0;
    CHECK(cr_pool_check_jacobian(p, &err) == CR_OK, "check: %s", cr_pool_last_error(p));
    CHECK(err >= 0.0 && err < 1e-6, "analytic vs finite-difference Jacobian: %.3g", err);
    printf("ok   sparse Jacobian = central differences to %.2e (<= 1e-6), mid-impact\n", err);
    cr_pool_destroy(p);
}

/* The matrix-free solver (GMRES with the per-disc block preconditioner) gives
 * the direct solver's answer: the 001 sect. 4 pool to 1e-9 (rtol 1e-12). */
static void gmres_equals_klu(void)
{
    double g = 1e-5, th = 0.4, tau = 0.3, u[2][6];
    cr_disc d[3] = {
        {M, R, -(2 * R + g) * cos(th), -(2 * R + g) * sin(th), cos(th - tau), sin(th - tau)},
        {M, R, 0.0, 0.0, 0.0, 0.0},
        {M, R, 2 * R, 0.0, 0.0, 0.0},
    };
    for (int k = 0; k < 2; k++) {
        char msg[256];
        cr_contact_params law;
        cr_contact_params_init(&law, K, 1.5, 1e3, CR_RELEASE_FORCE);
        cr_pool *p = cr_pool_create(3, d, &law, msg, sizeof msg);
        cr_pool_set_tolerances(p, 1e-12, 1e-14);
        cr_pool_set_linear_solver(p, k ? CR_POOL_SOLVER_GMRES : CR_POOL_SOLVER_KLU);
        CHECK(cr_pool_run(p, 0.0) == CR_OK, "run %d: %s", k, cr_pool_last_error(p));
        cr_pool_get_velocities(p, u[k]);
        cr_pool_destroy(p);
    }
    for (int q = 0; q < 6; q++)
        CHECK(fabs(u[1][q] - u[0][q]) <= 1e-9, "GMRES vs KLU, component %d: %.15g vs %.15g", q,
              u[1][q], u[0][q]);
    printf("ok   GMRES + block preconditioner = KLU to 1e-9 (damped pool, force release)\n");
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
    return tu_finish("test-pool");
}
