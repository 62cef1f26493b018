/*
 * The pool's two nonlinear iterations give the same answer (issue 12): Adams
 * with fixed-point iteration (no Jacobian) against BDF with Newton and KLU, at
 * rtol 1e-12, on an undamped pool with many contacts and neighbour rebuilds,
 * the 001 sect. 4 pool, and a lightly damped pool with a wall and gravity: the
 * final velocities agree to 1e-9 of the striker's speed (closing times of
 * grazing contacts, 1 µm apart at 1e-9 V, are ill-conditioned and not
 * compared). The automatic choice takes fixed-point iteration
 * only for Adams on lightly damped laws (seen in the Jacobian count). Slots
 * (root functions and impulse quadratures) grow with the candidate list: in a
 * converging gas that starts with no candidates, each disc's momentum change
 * still equals the vector impulses of its contacts (Newton's third law over
 * the quadratures carried across every growth). A model file selects it with
 * `integration.solver: fixed-point`.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/modelfile.h"
#include "cradle/system.h"
#include "testutil.h"

static const double M = 0.0041, R = 0.005, K = 7.7e9, V = 1.0;

/* A triangular packing of rows x cols discs (rows touching along x, 1 µm
 * between rows) and a striker on row 0: the pulse spreads over the packing,
 * the striker bounces back and forth, and discs leave their neighbours. */
static cr_model *packing(int rows, int cols, double C, double rtol, cr_linear_solver solver,
                         cr_method method)
{
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    double v0[2] = {0.0, 0.0};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double x[2] = {2 * R * c + (r % 2) * R, r * (sqrt(3.0) * R + 1e-6)};
            cr_model_add_body(m, M, R, x, v0);
        }
    double xs[2] = {-2 * R - 1e-5, 0.0}, vs[2] = {V, 0.0};
    cr_model_add_body(m, M, R, xs, vs);
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, C, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_settings s = cr_settings_default();
    s.rtol = rtol;
    s.atol = 1e-2 * rtol;
    s.solver = solver;
    s.method = method;
    cr_model_set_settings(m, &s);
    return m;
}

typedef struct {
    double v[2 * 64];
    size_t nb, nc;
    cr_run_stats st;
} result;

static void run(const cr_model *m, double t_end, result *out)
{
    char msg[512];
    memset(out, 0, sizeof *out);
    cr_system *s = cr_system_create(m, msg, sizeof msg);
    int rc = s ? cr_system_run(s, t_end) : CR_ERR_INVALID;
    CHECK(rc == CR_OK, "run: %s", s ? cr_system_last_error(s) : msg);
    if (!s)
        return;
    out->nb = cr_system_body_count(s);
    cr_system_get_velocities(s, out->v);
    out->st = cr_system_get_stats(s);
    out->nc = cr_system_contact_count(s);
    cr_system_destroy(s);
}

/* Largest velocity difference / V. */
static void compare(const result *a, const result *b, const char *what)
{
    double dv = 0.0;
    int f0 = tu_failed;
    for (size_t q = 0; q < 2 * a->nb; q++)
        dv = fmax(dv, fabs(a->v[q] - b->v[q]) / V);
    tu_case("%s", what);
    CHECK(a->nc == b->nc, "%s: same contacts (%zu vs %zu)", what, a->nc, b->nc);
    CHECK_SELF(dv <= 1e-9, "%s: fixed-point vs BDF+KLU velocities %.3g > 1e-9", what, dv);
    tu_case(NULL);
    tu_summary(f0, "%s: velocities agree to %.2e V (steps %ld vs %ld, Jacobians %ld vs %ld)", what,
               dv, a->st.steps, b->st.steps, a->st.jac_evals, b->st.jac_evals);
}

/* Hertz contact time of two discs of mass M at closing speed V (Johnson,
 * Contact Mechanics, sect. 11.4): 2.94328 δmax / V, δmax = (5 μ V² / (4K))^(2/5). */
static double contact_time(void)
{
    return 2.943275184324706 * pow(5.0 * 0.5 * M * V * V / (4.0 * K), 0.4) / V;
}

static void undamped_packing(void)
{
    double tc = contact_time();
    static result a, b;
    cr_model *m1 = packing(5, 6, 0.0, 1e-12, CR_SOLVER_FIXED_POINT, CR_METHOD_BDF);
    cr_model *m2 = packing(5, 6, 0.0, 1e-12, CR_SOLVER_KLU, CR_METHOD_BDF);
    run(m1, 12 * tc, &a);
    run(m2, 12 * tc, &b);
    CHECK(a.st.jac_evals == 0 && b.st.jac_evals > 0, "fixed point: no Jacobian (%ld, %ld)",
          a.st.jac_evals, b.st.jac_evals);
    compare(&a, &b, "undamped 31-disc packing, 12 contact times");
    cr_model_destroy(m1);
    cr_model_destroy(m2);
}

/* Lightly damped (C δ*^m T / μ ≈ 0.1), against a wall, under gravity. */
static void damped_wall(void)
{
    double tc = contact_time(), dstar = pow(0.5 * M * V * V / K, 0.4);
    double C = 0.1 * 0.5 * M / (pow(dstar, 0.5) * dstar / V);
    static result a, b;
    double up[2] = {1.0, 0.0}, g[2] = {0.0, -9.81};
    cr_model *m[2];
    for (int k = 0; k < 2; k++) {
        m[k] = packing(3, 4, C, 1e-12, k ? CR_SOLVER_KLU : CR_SOLVER_AUTO,
                       k ? CR_METHOD_BDF : CR_METHOD_ADAMS);
        cr_model_add_plane(m[k], up, -3 * R - 1e-5, NULL); /* behind the striker */
        cr_model_set_gravity_vector(m[k], g);
    }
    run(m[0], 10 * tc, &a);
    run(m[1], 10 * tc, &b);
    CHECK(a.st.jac_evals == 0, "Adams on a lightly damped pool: fixed point by default (%ld)",
          a.st.jac_evals);
    compare(&a, &b, "lightly damped 13-disc packing, wall and gravity");
    cr_model_destroy(m[0]);
    cr_model_destroy(m[1]);
}

/* The automatic choice keeps Newton for BDF, and for Adams on a heavily damped
 * law (C δ*^m T / μ = 10). */
static void automatic_choice(void)
{
    double tc = contact_time(), dstar = pow(0.5 * M * V * V / K, 0.4);
    double C = 10.0 * 0.5 * M / (pow(dstar, 0.5) * dstar / V);
    static result a;
    cr_model *m = packing(1, 3, 0.0, 1e-8, CR_SOLVER_AUTO, CR_METHOD_BDF);
    run(m, 3 * tc, &a);
    CHECK(a.st.jac_evals > 0, "BDF keeps Newton (%ld Jacobians)", a.st.jac_evals);
    cr_model_destroy(m);
    m = packing(1, 3, C, 1e-8, CR_SOLVER_AUTO, CR_METHOD_ADAMS);
    run(m, 3 * tc, &a);
    CHECK(a.st.jac_evals > 0, "Adams, heavily damped: Newton (%ld Jacobians)", a.st.jac_evals);
    cr_model_destroy(m);
    m = packing(1, 3, 0.0, 1e-8, CR_SOLVER_AUTO, CR_METHOD_ADAMS);
    run(m, 3 * tc, &a);
    CHECK(a.st.jac_evals == 0, "Adams, undamped: fixed point (%ld Jacobians)", a.st.jac_evals);
    cr_model_destroy(m);
    /* the chains' name for it: method adams-fixed-point, even heavily damped */
    m = packing(1, 3, C, 1e-8, CR_SOLVER_AUTO, CR_METHOD_ADAMS_FIXED_POINT);
    run(m, 3 * tc, &a);
    CHECK(a.st.jac_evals == 0, "method adams-fixed-point: fixed point (%ld Jacobians)",
          a.st.jac_evals);
    cr_model_destroy(m);
    m = packing(1, 3, 0.0, 1e-8, CR_SOLVER_AUTO, CR_METHOD_AUTO);
    run(m, 3 * tc, &a);
    CHECK(a.st.jac_evals > 0, "method auto on a pool: BDF (%ld Jacobians)", a.st.jac_evals);
    cr_model_destroy(m);
}

/* 36 discs on a grid 3.2 R apart (no candidates at t = 0: gaps 1.2 R beyond
 * the skin 0.5 R), all moving towards the centre at up to V: the candidate
 * list grows from 0 to ~3 per disc, through neighbour rebuilds. For every disc
 * m (v − v₀) = Σ ±∫ f n dt over its contacts (force on body_b along n, on
 * body_a against it), to 1e-8 m V (rtol 1e-10; an impulse lost in a growth
 * would be ~m V); the total momentum stays 0. */
static void growing_gas(cr_linear_solver solver)
{
    enum { SIDE = 6, N = SIDE * SIDE };
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    double v0[N][2], c = 0.5 * (SIDE - 1) * 3.2 * R;
    for (int k = 0; k < N; k++) {
        double x[2] = {3.2 * R * (k % SIDE), 3.2 * R * (k / SIDE)};
        v0[k][0] = -V * (x[0] - c) / c;
        v0[k][1] = -V * (x[1] - c) / c;
        cr_model_add_body(m, M, R, x, v0[k]);
    }
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_settings st = cr_settings_default();
    st.rtol = 1e-10;
    st.atol = 1e-12;
    st.solver = solver;
    cr_model_set_settings(m, &st);
    char msg[512];
    tu_case("converging gas, %s", solver == CR_SOLVER_KLU ? "KLU" : "fixed point");
    int f0 = tu_failed;
    cr_system *s = cr_system_create(m, msg, sizeof msg);
    int rc = s ? cr_system_run(s, 4.0 * c / V) : CR_ERR_INVALID;
    CHECK(rc == CR_OK, "gas run: %s", s ? cr_system_last_error(s) : msg);
    if (!s) {
        tu_case(NULL);
        cr_model_destroy(m);
        return;
    }
    static double v[N][2], dp[N][2];
    memset(dp, 0, sizeof dp);
    cr_system_get_velocities(s, &v[0][0]);
    size_t nc = cr_system_contact_count(s);
    for (size_t k = 0; k < nc; k++) {
        cr_contact_view w;
        cr_system_get_contact(s, k, &w);
        for (int d = 0; d < 2; d++) {
            dp[w.body_a][d] -= w.vector_impulse[d];
            if (w.body_b >= 0)
                dp[w.body_b][d] += w.vector_impulse[d];
        }
    }
    double worst = 0.0, px = 0.0, py = 0.0;
    for (int i = 0; i < N; i++) {
        for (int d = 0; d < 2; d++)
            worst = fmax(worst, fabs(M * (v[i][d] - v0[i][d]) - dp[i][d]) / (M * V));
        px += M * v[i][0];
        py += M * v[i][1];
    }
    cr_run_stats rs = cr_system_get_stats(s);
    CHECK(nc >= N && rs.rebuilds > 0, "the list grew: %zu contacts, %ld rebuilds", nc, rs.rebuilds);
    CHECK_INV(worst <= 1e-8, "m dv = sum of vector impulses: %.3g > 1e-8", worst);
    CHECK_INV(hypot(px, py) <= 1e-12 * N * M * V, "total momentum %.3g", hypot(px, py));
    tu_case(NULL);
    tu_summary(f0, "converging gas (%s): %zu contacts, %ld rebuilds, m dv - impulses %.2e m V",
               solver == CR_SOLVER_KLU ? "KLU" : "fixed point", nc, rs.rebuilds, worst);
    cr_system_destroy(s);
    cr_model_destroy(m);
}

/* `integration.solver: fixed-point` in a model file (docs/model-format.md). */
static void model_file(void)
{
    const char *text = "dim: 2\n"
                       "bodies:\n"
                       "  - {mass: 1, radius: 0.1, x: [0, 0], v: [1, 0]}\n"
                       "  - {mass: 1, radius: 0.1, x: [0.3, 0]}\n"
                       "contact: {K: 1e6}\n"
                       "integration: {solver: fixed-point}\n";
    cr_model *m = NULL;
    char msg[256] = "";
    int rc = cr_modelfile_parse(text, strlen(text), "fp.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_OK && m && cr_model_settings(m)->solver == CR_SOLVER_FIXED_POINT,
          "solver: fixed-point parsed: %s", msg);
    cr_model_destroy(m);
}

int main(void)
{
    model_file();
    growing_gas(CR_SOLVER_KLU);
    growing_gas(CR_SOLVER_FIXED_POINT);
    undamped_packing();
    damped_wall();
    automatic_choice();
    return tu_finish("test-pool-engines");
}
