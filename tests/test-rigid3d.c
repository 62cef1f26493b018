/*
 * The rigid engine on spheres (cr_system_create_rigid on a dim-3 model, issue
 * 24 item 3) against references computed here:
 *
 * - a ball bouncing in a box of half-space walls under a tilted gravity vector,
 *   Newton's law e < 1: the walls are axis-aligned, so each axis is a ball
 *   bouncing on a floor of its own (closed forms per axis: first impact from
 *   the quadratic, then t_k = t₁ + (2v₁/g) Σ eʲ, speeds eᵏ v₁); every impact
 *   time and velocity, the far walls never met, and the ball at rest in the
 *   corner of three walls carrying m gₐ on each (the 3-wall resting set);
 * - Newton's law on the symmetric triple (a sphere striking three equal
 *   touching spheres arranged symmetrically about its line of motion, the
 *   line along an arbitrary direction): the 6-contact LCP w = G z + (1 + e)γ⁻
 *   solved here by enumerating its 64 active sets, and the symmetric closed
 *   form;
 * - the energetic law on the triple (α = 1 on the striker contacts, 0 on the
 *   touching ones): the energy quadratic's larger root;
 * - a sphere flying under tilted gravity meets one sliding on a floor: the
 *   contact time (the quartic) against a grid-and-bisection root, u⁺ against
 *   Newton's LCP on the pair and the floor contact;
 * - a planar pool of three discs, walls and gravity embedded in a tilted
 *   plane in space: the 3-D run taken back to the plane is the 2-D one
 *   (self-consistency);
 * - the frozen-normal rigid limit (cr_compare_rigid_limit) of the compliant
 *   triple, undamped and damped, against the energetic law's closed form for
 *   that symmetry (derived at rigid_limit_triple).
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "rigid-testutil.h"

/* ---- small vector helpers ----------------------------------------------------- */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void unit3(double *a)
{
    double n = sqrt(dot3(a, a));
    for (int d = 0; d < 3; d++)
        a[d] /= n;
}

static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* ---- a ball in a box ------------------------------------------------------------ */

/* One axis of the box: the ball bounces on the wall gravity pushes it to. */
typedef struct {
    double x0, v0, g; /* start, velocity, acceleration along the axis (g ≠ 0) */
    double wall;      /* the centre's position at contact with that wall */
    double t1, v1;    /* first impact: time, approach speed */
} box_axis;

/* First impact of the axis: x0 + v0 t + ½ g t² = wall, the positive root. */
static void axis_first_impact(box_axis *a)
{
    double A = 0.5 * a->g, B = a->v0, C = a->x0 - a->wall;
    double disc = sqrt(B * B - 4.0 * A * C);
    double r1 = (-B + disc) / (2.0 * A), r2 = (-B - disc) / (2.0 * A);
    a->t1 = r1 > 0.0 && (r2 <= 0.0 || r1 < r2) ? r1 : r2;
    a->v1 = fabs(a->v0 + a->g * a->t1);
}

/* Impact k ≥ 0 of the axis: time t₁ + (2 v₁/|g|) Σ_{j=1}^{k} eʲ, approach speed eᵏ v₁. */
static double axis_time(const box_axis *a, double e, size_t k)
{
    double s = 0.0;
    for (size_t j = 1; j <= k; j++)
        s += pow(e, (double)j);
    return a->t1 + 2.0 * a->v1 / fabs(a->g) * s;
}

/* Impacts on one axis before its bounces end (the first that leaves slower
 * than the rest speed lands: docs/design.md, "Rigid pools"). */
static size_t axis_count(const box_axis *a, double e, double v_rest)
{
    size_t K = 1;
    while (pow(e, (double)K) * a->v1 > v_rest)
        K++;
    return K;
}

static void test_box(double e)
{
    tu_case("box e = %g", e);
    const double r = 0.01, m = 0.1, g[3] = {0.5, -0.3, -9.81};
    const double x0[3] = {0.0, 0.0, 0.05}, v0[3] = {0.3, 0.2, 0.0};
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 3);
    cr_model_add_body(model, m, r, x0, v0);
    /* the box x in [-0.2, 0.1], y in [-0.1, 0.2], z in [0, 0.5]: n·p >= offset */
    const double walls[6][4] = {{0, 0, 1, 0.0},  {-1, 0, 0, -0.1}, {0, 1, 0, -0.1},
                                {1, 0, 0, -0.2}, {0, -1, 0, -0.2}, {0, 0, -1, -0.5}};
    for (int w = 0; w < 6; w++)
        cr_model_add_plane(model, walls[w], walls[w][3], NULL);
    cr_model_set_gravity_vector(model, g);
    /* axes 0, 1, 2 bounce on walls 1 (x = 0.1), 2 (y = −0.1), 0 (z = 0) */
    box_axis ax[3] = {{x0[0], v0[0], g[0], 0.1 - r, 0, 0},
                      {x0[1], v0[1], g[1], -0.1 + r, 0, 0},
                      {x0[2], v0[2], g[2], r, 0, 0}};
    double t_end = 0.0;
    for (int d = 0; d < 3; d++) {
        axis_first_impact(&ax[d]);
        t_end = fmax(t_end, ax[d].t1 + 2.0 * ax[d].v1 * e / (fabs(ax[d].g) * (1.0 - e)));
    }
    t_end += 0.5;
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run run = run_rigid_to(model, CR_LAW_NEWTON, &lp, t_end);
    CHECK(run.rc == CR_OK, "box e = %g ran to %g s", e, t_end);
    double V;
    cr_system_get_scales(run.sys, NULL, &V, NULL);
    size_t K[3], next[3] = {0, 0, 0}, total = 0;
    for (int d = 0; d < 3; d++)
        total += K[d] = axis_count(&ax[d], e, 1e-6 * V);
    check_instantaneous(&run, total, "box");
    /* the episodes in time order are the three axes' closed-form sequences merged */
    size_t ne = cr_monitor_episode_count(run.mon), wrong_axis = 0;
    double worst_t = 0.0, worst_v = 0.0;
    for (size_t k = 0; k < ne && k < total; k++) {
        int a = -1;
        double ta = INFINITY;
        for (int d = 0; d < 3; d++)
            if (next[d] < K[d] && axis_time(&ax[d], e, next[d]) < ta) {
                ta = axis_time(&ax[d], e, next[d]);
                a = d;
            }
        cr_episode_info in;
        size_t nb, nr;
        cr_monitor_get_episode(run.mon, k, &in);
        const double *ub = cr_monitor_velocities(run.mon, k, 0, &nb);
        const double *ua = cr_monitor_velocities(run.mon, k, 1, &nb);
        const cr_contact_record *rec = cr_monitor_contacts(run.mon, k, &nr);
        long want_wall = a == 0 ? CR_WALL_BODY(1) : a == 1 ? CR_WALL_BODY(2) : CR_WALL_BODY(0);
        wrong_axis += rec[in.reference_record].body_b != want_wall;
        double speed = pow(e, (double)next[a]) * ax[a].v1, sign = ax[a].g > 0 ? 1.0 : -1.0;
        worst_t = fmax(worst_t, fabs(in.t_start - ta) / ax[a].t1);
        worst_v = fmax(worst_v, fabs(ub[a] - sign * speed) / ax[a].v1);
        worst_v = fmax(worst_v, fabs(ua[a] + sign * e * speed) / ax[a].v1);
        next[a]++;
    }
    printf("     box e = %g: %zu impacts (%zu, %zu, %zu on x, y, z); times off the closed forms "
           "by %.2e t1, velocities by %.2e v1\n",
           e, ne, K[0], K[1], K[2], worst_t, worst_v);
    CHECK(wrong_axis == 0, "every impact on the wall its axis predicts (%zu not)", wrong_axis);
    /* per axis: t₁ from the quadratic, then the geometric series (header) */
    CHECK_REF(worst_t <= 5e-12 && worst_v <= 1e-13,
              "e = %g: impact times %.3e t1, velocities %.3e v1 off the closed forms "
              "(tolerances 5e-12, 1e-13: roundoff of ~200 flights summed)",
              e, worst_t, worst_v);
    /* at rest in the corner of walls 0, 1, 2: each carries m |g·n| (orthogonal walls) */
    double p[3], u[3];
    cr_system_get_positions(run.sys, p);
    cr_system_get_velocities(run.sys, u);
    CHECK_REF(u[0] == 0.0 && u[1] == 0.0 && u[2] == 0.0 && fabs(p[0] - (0.1 - r)) <= 1e-15 &&
                  fabs(p[1] - (-0.1 + r)) <= 1e-15 && fabs(p[2] - r) <= 1e-15,
              "at rest in the corner: p = (%.17g, %.17g, %.17g), u = (%g, %g, %g)", p[0], p[1],
              p[2], u[0], u[1], u[2]);
    size_t loaded = 0;
    double worst_f = 0.0;
    for (size_t k = 0; k < cr_system_contact_count(run.sys); k++) {
        cr_contact_view w;
        cr_system_get_contact(run.sys, k, &w);
        if (w.state != CR_CONTACT_LOADED)
            continue;
        loaded++;
        size_t wall = CR_WALL_INDEX(w.body_b);
        double want = m * fabs(dot3(walls[wall], g));
        worst_f = fmax(worst_f, fabs(w.force - want) / want);
    }
    CHECK_REF(loaded == 3 && worst_f <= 1e-12,
              "three loaded walls, forces m|g.n| to %.2e relative (tolerance 1e-12)", worst_f);
    double E0 = 0.5 * m * dot3(v0, v0) - m * dot3(g, x0);
    double E = cr_system_kinetic_energy(run.sys) + cr_system_potential_energy(run.sys) +
               cr_system_dissipated_work(run.sys);
    CHECK_REL_INV(E, E0, 1e-12, "T + U + dissipated = E0");
    run_free(&run);
    cr_model_destroy(model);
}

/* ---- the symmetric triple ------------------------------------------------------- */

/*
 * Striker 0 (mass M, radius Rs) moving at V along the unit axis a strikes
 * spheres 1-3 (mass m, radius R), touching each other, their centres at
 * distance ρ = 2R/√3 from the axis, 120° apart; at contact the striker's centre
 * is h = √((Rs + R)² − ρ²) behind their plane, so each striker normal makes
 * the angle θ with a: cos θ = h/(Rs + R), sin θ = ρ/(Rs + R).
 */
typedef struct {
    double M, m, Rs, R, V, gap;
    double a[3], e1[3], e2[3]; /* the axis and two directions across it */
    double c, s;               /* cos θ, sin θ */
    double x[4][3], n[3][3];   /* centres at contact (striker: gap behind), striker normals */
} triple;

static triple triple_make(double M, double m, double Rs, double R, double V, double gap)
{
    triple t = {M, m, Rs, R, V, gap, {1.0, 2.0, 2.0}, {0}, {0}, 0, 0, {{0}}, {{0}}};
    unit3(t.a);
    double helper[3] = {0.0, 0.0, 1.0};
    cross3(t.a, helper, t.e1);
    unit3(t.e1);
    cross3(t.a, t.e1, t.e2);
    double rho = 2.0 * R / sqrt(3.0), D = Rs + R, h = sqrt(D * D - rho * rho);
    t.c = h / D;
    t.s = rho / D;
    for (int d = 0; d < 3; d++)
        t.x[0][d] = -(h + gap) * t.a[d];
    for (int k = 0; k < 3; k++) {
        double phi = 0.3 + 2.0 * M_PI * k / 3.0;
        for (int d = 0; d < 3; d++) {
            t.x[k + 1][d] = rho * (cos(phi) * t.e1[d] + sin(phi) * t.e2[d]);
            t.n[k][d] = (t.x[k + 1][d] + h * t.a[d]) / D;
        }
    }
    return t;
}

static cr_model *triple_model(const triple *t)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 3);
    double v[3] = {t->V * t->a[0], t->V * t->a[1], t->V * t->a[2]}, rest[3] = {0, 0, 0};
    cr_model_add_body(model, t->M, t->Rs, t->x[0], v);
    for (int k = 1; k <= 3; k++)
        cr_model_add_body(model, t->m, t->R, t->x[k], rest);
    return model;
}

/* Solves the n×n system A x = b (Gaussian elimination, partial pivoting);
 * @return 0 when singular. */
static int solve_small(int n, double A[6][6], double *b, double *x)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c]))
                piv = r;
        if (fabs(A[piv][c]) < 1e-14)
            return 0;
        for (int k = 0; k < n; k++) {
            double tmp = A[c][k];
            A[c][k] = A[piv][k];
            A[piv][k] = tmp;
        }
        double tb = b[c];
        b[c] = b[piv];
        b[piv] = tb;
        for (int r = c + 1; r < n; r++) {
            double f = A[r][c] / A[c][c];
            for (int k = c; k < n; k++)
                A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < n; k++)
            s -= A[r][k] * x[k];
        x[r] = s / A[r][r];
    }
    return 1;
}

/*
 * Newton's law as an LCP on nc ≤ 6 contacts and nd ≤ 12 dofs: W's rows (one
 * per contact), M⁻¹ per dof, G = W M⁻¹ Wᵀ, w = G z + (1 + e)γ⁻ ≥ 0, z ≥ 0,
 * wᵀz = 0 — solved by trying all 2^nc active sets (z = 0 off the set, w = 0
 * on it). @return 1 and u⁺ = u⁻ + M⁻¹ Wᵀ z, or 0 when no set qualifies.
 */
static int newton_lcp(int nc, int nd, double W[6][12], const double *minv, const double *u0,
                      double e, double vscale, double *u)
{
    double G[6][6], gm[6];
    for (int p = 0; p < nc; p++) {
        gm[p] = 0.0;
        for (int k = 0; k < nd; k++)
            gm[p] += W[p][k] * u0[k];
        for (int q = 0; q < nc; q++) {
            G[p][q] = 0.0;
            for (int k = 0; k < nd; k++)
                G[p][q] += W[p][k] * minv[k] * W[q][k];
        }
    }
    for (int set = 0; set < (1 << nc); set++) {
        int idx[6], na = 0;
        for (int q = 0; q < nc; q++)
            if (set & (1 << q))
                idx[na++] = q;
        double A[6][6], b[6], za[6], z[6] = {0};
        for (int p = 0; p < na; p++) {
            b[p] = -(1.0 + e) * gm[idx[p]];
            for (int q = 0; q < na; q++)
                A[p][q] = G[idx[p]][idx[q]];
        }
        if (na && !solve_small(na, A, b, za))
            continue;
        int ok = 1;
        for (int p = 0; p < na; p++) {
            z[idx[p]] = za[p];
            ok &= za[p] >= 0.0;
        }
        for (int p = 0; p < nc && ok; p++) {
            double w = (1.0 + e) * gm[p];
            for (int q = 0; q < nc; q++)
                w += G[p][q] * z[q];
            ok = (set & (1 << p)) || w >= -1e-14 * vscale;
        }
        if (!ok)
            continue;
        for (int k = 0; k < nd; k++) {
            u[k] = u0[k];
            for (int q = 0; q < nc; q++)
                u[k] += minv[k] * W[q][k] * z[q];
        }
        return 1;
    }
    return 0;
}

/* Newton's law on the triple: its 6 contacts (3 striker–target, 3
 * target–target; −n on the first body, +n on the second), 12 dofs. */
static int triple_newton_lcp(const triple *t, double e, double *u)
{
    double W[6][12] = {{0}}, minv[12], u0[12] = {0};
    int pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (int k = 0; k < 12; k++)
        minv[k] = k < 3 ? 1.0 / t->M : 1.0 / t->m;
    for (int d = 0; d < 3; d++)
        u0[d] = t->V * t->a[d];
    for (int q = 0; q < 6; q++) {
        int i = pair[q][0], j = pair[q][1];
        double n[3], len = 0.0;
        for (int d = 0; d < 3; d++) {
            n[d] = t->x[j][d] - t->x[i][d] + (i == 0 ? -t->gap * t->a[d] : 0.0);
            len += n[d] * n[d];
        }
        for (int d = 0; d < 3; d++) {
            W[q][3 * i + d] = -n[d] / sqrt(len);
            W[q][3 * j + d] = n[d] / sqrt(len);
        }
    }
    return newton_lcp(6, 12, W, minv, u0, e, t->V, u);
}

/* u⁺ of the triple with the same impulse P on each striker contact and none
 * between the targets. */
static void triple_outcome(const triple *t, double P, double *u)
{
    for (int d = 0; d < 3; d++) {
        u[d] = (t->V - 3.0 * t->c * P / t->M) * t->a[d];
        for (int k = 0; k < 3; k++)
            u[3 * (k + 1) + d] = P * t->n[k][d] / t->m;
    }
}

static double max_diff(const double *a, const double *b, int n)
{
    double w = 0.0;
    for (int k = 0; k < n; k++)
        w = fmax(w, fabs(a[k] - b[k]));
    return w;
}

/*
 * By symmetry the LCP keeps equal impulses P on the striker contacts and Q on
 * the target pairs; P pushes each target out from the axis (its normal has the
 * radial part sin θ), so the target pairs separate and Q = 0, and γ⁺ = −eγ⁻
 * on a striker contact gives P (1/m + 3cos²θ/M) = (1 + e) V cos θ.
 */
static void test_triple_newton(double e)
{
    tu_case("triple newton e = %g", e);
    triple t = triple_make(0.3, 0.2, 0.015, 0.01, 1.0, 1e-5);
    cr_model *model = triple_model(&t);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run run = run_rigid_to(model, CR_LAW_NEWTON, &lp, 0.01);
    CHECK(run.rc == CR_OK, "triple newton e = %g ran", e);
    check_instantaneous(&run, 1, "triple newton");
    double u[12], lcp[12], sym[12];
    cr_system_get_velocities(run.sys, u);
    int solved = triple_newton_lcp(&t, e, lcp);
    CHECK(solved, "the test's LCP has a solution among its 64 active sets");
    triple_outcome(&t, (1.0 + e) * t.V * t.c / (1.0 / t.m + 3.0 * t.c * t.c / t.M), sym);
    double d_lcp = max_diff(u, lcp, 12), d_sym = max_diff(u, sym, 12);
    printf("     triple newton e = %g: u+ off the LCP by %.2e, off the symmetric form by %.2e "
           "m/s\n",
           e, d_lcp, d_sym);
    CHECK_REF(solved && d_lcp <= 1e-14 * t.V,
              "u+ = the 6-contact LCP solved here (%.3e m/s, tolerance 1e-14 V)", d_lcp);
    CHECK_REF(d_sym <= 1e-14 * t.V, "u+ = the symmetric closed form (%.3e m/s, tolerance 1e-14 V)",
              d_sym);
    size_t nr = 0;
    const cr_contact_record *rec = cr_monitor_contacts(run.mon, 0, &nr);
    double worst_q = 0.0;
    for (size_t k = 0; rec && k < nr; k++)
        if (rec[k].body_a != 0)
            worst_q = fmax(worst_q, fabs(rec[k].impulse));
    CHECK(nr == 6, "one impact of 6 contacts (the touching target pairs in): %zu", nr);
    CHECK_REF(worst_q <= 1e-15, "no impulse between the targets (%.2e N s)", worst_q);
    double p[3];
    cr_system_momentum(run.sys, p);
    double p_err = 0.0;
    for (int d = 0; d < 3; d++)
        p_err = fmax(p_err, fabs(p[d] - t.M * t.V * t.a[d]));
    CHECK_INV(p_err <= 1e-15 * t.M * t.V, "momentum kept (%.2e N s)", p_err);
    run_free(&run);
    cr_model_destroy(model);
}

/*
 * The energetic law with α = 1 on the three striker contacts and 0 on the
 * target pairs: equal impulses P, u⁺ as in triple_outcome, and T⁺ = κT⁻:
 * ½M(V − 3cP/M)² + 3P²/(2m) = κ½MV², i.e. A P² − 6cV P + MV²(1 − κ) = 0 with
 * A = 9c²/M + 3/m; the larger root (001 eq. 18's branch)
 * P = (3cV + V√(9c² − A M (1 − κ)))/A.
 */
static double energetic_P(const triple *t, double kappa)
{
    double A = 9.0 * t->c * t->c / t->M + 3.0 / t->m;
    return (3.0 * t->c * t->V + t->V * sqrt(9.0 * t->c * t->c - A * t->M * (1.0 - kappa))) / A;
}

static void test_triple_energetic(double kappa)
{
    tu_case("triple energetic kappa = %g", kappa);
    triple t = triple_make(0.3, 0.2, 0.015, 0.01, 1.0, 1e-5);
    cr_model *model = triple_model(&t);
    cr_law_params lp;
    cr_law_params_init(&lp);
    double alpha[2] = {1.0, 0.0};
    lp.alpha = alpha;
    lp.kappa = kappa;
    rigid_run run = run_rigid_to(model, CR_LAW_ENERGETIC, &lp, 0.01);
    CHECK(run.rc == CR_OK, "triple energetic kappa = %g ran", kappa);
    check_instantaneous(&run, 1, "triple energetic");
    double u[12], want[12];
    cr_system_get_velocities(run.sys, u);
    triple_outcome(&t, energetic_P(&t, kappa), want);
    double d = max_diff(u, want, 12);
    printf("     triple energetic kappa = %g: u+ off the closed form by %.2e m/s\n", kappa, d);
    CHECK_REF(d <= 1e-14 * t.V,
              "u+ = the energy quadratic's larger root (%.3e m/s, tolerance 1e-14 V)", d);
    run_free(&run);
    cr_model_destroy(model);
}

/* ---- a flying sphere meets one sliding on a floor: the quartic -------------------- */

/*
 * Sphere A rests on the floor z ≥ 0 and slides at (0.5, 0, 0) m/s under the
 * tilted gravity g = (0.4, −0.2, −9.81) (its acceleration (0.4, −0.2, 0): the
 * floor carries m g_z); sphere B flies from 5 cm behind, 3 cm aside and 5 cm
 * above at (1, 0.3, 0) m/s under g. Their relative motion D(t) = D₀ + w t +
 * ½ (0, 0, g_z) t² makes |D|² − (2r)² a quartic, which the engine brackets
 * between its derivative's roots. Reference computed here independently: the
 * first sign change of |D(t)| − 2r on a grid of 10⁵ points, refined by
 * bisection; u⁺ from Newton's LCP (e = 0.9) on the sphere pair and A's floor
 * contact (touching, resting: B pushes A into the floor), solved here.
 */
static const double QG[3] = {0.4, -0.2, -9.81}, QR = 0.01, QM = 0.05;

static void quartic_state(double t, double *xa, double *xb, double *va, double *vb)
{
    const double a0[3] = {0.0, 0.0, QR}, b0[3] = {-0.05, -0.03, QR + 0.05};
    const double ua[3] = {0.5, 0.0, 0.0}, ub[3] = {1.0, 0.3, 0.0};
    for (int d = 0; d < 3; d++) {
        double ga = d < 2 ? QG[d] : 0.0;
        xa[d] = a0[d] + ua[d] * t + 0.5 * ga * t * t;
        xb[d] = b0[d] + ub[d] * t + 0.5 * QG[d] * t * t;
        va[d] = ua[d] + ga * t;
        vb[d] = ub[d] + QG[d] * t;
    }
}

static double quartic_gap(double t)
{
    double xa[3], xb[3], va[3], vb[3], D[3];
    quartic_state(t, xa, xb, va, vb);
    for (int d = 0; d < 3; d++)
        D[d] = xb[d] - xa[d];
    return sqrt(dot3(D, D)) - 2.0 * QR;
}

static void test_quartic(void)
{
    tu_case("quartic");
    const double e = 0.9;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 3);
    double xa[3], xb[3], va[3], vb[3], floor_n[3] = {0, 0, 1};
    quartic_state(0.0, xa, xb, va, vb);
    cr_model_add_body(model, QM, QR, xa, va);
    cr_model_add_body(model, QM, QR, xb, vb);
    cr_model_add_plane(model, floor_n, 0.0, NULL);
    cr_model_set_gravity_vector(model, QG);
    /* the reference contact time: grid, then bisection to the last bit */
    double lo = 0.0, hi = 0.2, step = hi / 1e5;
    for (double t = step; t <= hi; t += step)
        if (quartic_gap(t) < 0.0) {
            lo = t - step;
            hi = t;
            break;
        }
    for (int it = 0; it < 200 && hi - lo > 0.0; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        *(quartic_gap(mid) < 0.0 ? &hi : &lo) = mid;
    }
    double tc = hi;
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = e;
    rigid_run run = run_rigid_to(model, CR_LAW_NEWTON, &lp, tc * 1.0000001);
    CHECK(run.rc == CR_OK, "quartic ran");
    cr_episode_info in;
    size_t nr = 0;
    int have = run.mon && cr_monitor_episode_count(run.mon) == 1 &&
               cr_monitor_get_episode(run.mon, 0, &in) == CR_OK;
    CHECK(have, "one impact");
    if (have) {
        cr_monitor_contacts(run.mon, 0, &nr);
        quartic_state(tc, xa, xb, va, vb);
        double W[6][12] = {{0}}, minv[6], u0[6], u[6], n[3], len;
        for (int d = 0; d < 3; d++) {
            n[d] = xb[d] - xa[d];
            minv[d] = minv[3 + d] = 1.0 / QM;
            u0[d] = va[d];
            u0[3 + d] = vb[d];
        }
        va[2] = u0[2] = 0.0; /* A rests on the floor */
        len = sqrt(dot3(n, n));
        for (int d = 0; d < 3; d++) {
            W[0][d] = -n[d] / len; /* the pair: −n on A, +n on B */
            W[0][3 + d] = n[d] / len;
            W[1][d] = floor_n[d]; /* the floor: +n on A */
        }
        int solved = newton_lcp(2, 6, W, minv, u0, e, 1.0, u);
        double got[6];
        cr_system_get_velocities(run.sys, got);
        /* the run stops 1e-7 tc after the impact: flight since then taken back */
        double dt = cr_system_get_time(run.sys) - in.t_start;
        for (int d = 0; d < 3; d++) {
            got[d] -= (d < 2 ? QG[d] : 0.0) * dt;
            got[3 + d] -= QG[d] * dt;
        }
        double du = max_diff(got, u, 6);
        printf("     quartic: contact at %.15f s (reference %.15f s, off by %.2e s); u+ off "
               "the LCP by %.2e m/s\n",
               in.t_start, tc, fabs(in.t_start - tc), du);
        CHECK(nr == 2, "the impact holds the pair and A's floor contact (%zu)", nr);
        CHECK_REF(fabs(in.t_start - tc) <= 1e-12 * tc,
                  "contact time = the grid-and-bisection root (%.3e s, tolerance 1e-12 tc)",
                  fabs(in.t_start - tc));
        CHECK_REF(solved && du <= 2e-12,
                  "u+ = Newton's 2-contact LCP solved here (%.3e m/s, tolerance 2e-12)", du);
    }
    run_free(&run);
    cr_model_destroy(model);
}

/* ---- a planar pool embedded in space -------------------------------------------- */

/*
 * Three discs in a box of three walls under gravity (0.3, −9.81), Newton
 * e = 0.8, against the same pool as spheres in the plane through a point c
 * spanned by the orthonormal e1, e2 (every position c + x e1 + y e2, every
 * vector x e1 + y e2, each wall n1 e1 + n2 e2 with its offset plus n·c): the
 * 3-D run, taken back to the plane, must be the 2-D one (cradle against
 * cradle: the same impacts in the same order; the two differ by roundoff
 * only).
 */
static cr_model *embedded_pool(int dim, const double *c, const double *e1, const double *e2)
{
    const double x[3][2] = {{0.0, 0.05}, {0.05, 0.04}, {-0.05, 0.08}};
    const double v[3][2] = {{1.0, 0.5}, {-0.8, 0.0}, {0.3, -0.6}};
    const double wn[3][2] = {{0, 1}, {1, 0}, {-1, 0}}, wo[3] = {0.0, -0.15, -0.15};
    const double g[2] = {0.3, -9.81}, r[3] = {0.01, 0.015, 0.012}, m[3] = {0.03, 0.05, 0.04};
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, dim);
    double p3[3], v3[3], n3[3], g3[3];
    for (int b = 0; b < 3; b++) {
        for (int d = 0; d < 3; d++) {
            p3[d] = dim == 2 ? (d < 2 ? x[b][d] : 0.0) : c[d] + x[b][0] * e1[d] + x[b][1] * e2[d];
            v3[d] = dim == 2 ? (d < 2 ? v[b][d] : 0.0) : v[b][0] * e1[d] + v[b][1] * e2[d];
        }
        cr_model_add_body(model, m[b], r[b], p3, v3);
    }
    for (int w = 0; w < 3; w++) {
        for (int d = 0; d < 3; d++)
            n3[d] = dim == 2 ? (d < 2 ? wn[w][d] : 0.0) : wn[w][0] * e1[d] + wn[w][1] * e2[d];
        cr_model_add_plane(model, n3, wo[w] + (dim == 3 ? dot3(n3, c) : 0.0), NULL);
    }
    for (int d = 0; d < 3; d++)
        g3[d] = dim == 2 ? (d < 2 ? g[d] : 0.0) : g[0] * e1[d] + g[1] * e2[d];
    cr_model_set_gravity_vector(model, g3);
    return model;
}

static void test_embedded(void)
{
    tu_case("embedded pool");
    double c[3] = {0.3, -0.2, 0.7}, e1[3] = {2.0, -1.0, 2.0}, helper[3] = {0.0, 1.0, 0.0}, e2[3];
    unit3(e1);
    cross3(e1, helper, e2);
    unit3(e2);
    cr_model *m2 = embedded_pool(2, c, e1, e2), *m3 = embedded_pool(3, c, e1, e2);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 0.8;
    const double t_end = 0.6;
    rigid_run r2 = run_rigid_to(m2, CR_LAW_NEWTON, &lp, t_end);
    rigid_run r3 = run_rigid_to(m3, CR_LAW_NEWTON, &lp, t_end);
    CHECK(r2.rc == CR_OK && r3.rc == CR_OK, "the pool ran in 2-D and in 3-D");
    size_t n2 = cr_monitor_episode_count(r2.mon), n3 = cr_monitor_episode_count(r3.mon);
    double worst_t = 0.0, worst_u = 0.0, worst_out = 0.0;
    for (size_t k = 0; k < n2 && k < n3; k++) {
        cr_episode_info a, b;
        cr_monitor_get_episode(r2.mon, k, &a);
        cr_monitor_get_episode(r3.mon, k, &b);
        worst_t = fmax(worst_t, fabs(a.t_start - b.t_start));
    }
    double u2[6], u3[9], x3[9];
    cr_system_get_velocities(r2.sys, u2);
    cr_system_get_velocities(r3.sys, u3);
    cr_system_get_positions(r3.sys, x3);
    for (int b = 0; b < 3; b++) {
        worst_u = fmax(worst_u, fabs(dot3(u3 + 3 * b, e1) - u2[2 * b]));
        worst_u = fmax(worst_u, fabs(dot3(u3 + 3 * b, e2) - u2[2 * b + 1]));
        double off[3], nrm[3];
        for (int d = 0; d < 3; d++)
            off[d] = x3[3 * b + d] - c[d];
        cross3(e1, e2, nrm);
        worst_out = fmax(worst_out, fabs(dot3(off, nrm)));
    }
    printf("     embedded pool: %zu and %zu impacts; times differ by %.2e s, final velocities "
           "by %.2e m/s, out of the plane by %.2e m\n",
           n2, n3, worst_t, worst_u, worst_out);
    CHECK(n2 == n3 && n2 > 10, "the same number of impacts (%zu, %zu)", n2, n3);
    CHECK_SELF(
        worst_t <= 1e-13 && worst_u <= 1e-12,
        "3-D = 2-D taken back to the plane: times %.3e s, velocities %.3e m/s (1e-13, 1e-12)",
        worst_t, worst_u);
    CHECK_SELF(worst_out <= 1e-13,
               "the spheres stay in the plane (%.3e m, 1e-13: roundoff at the 1 m offset)",
               worst_out);
    run_free(&r2);
    run_free(&r3);
    cr_model_destroy(m2);
    cr_model_destroy(m3);
}

/* ---- the rigid limit of the compliant triple, frozen normals ----------------------- */

/*
 * The exit speed of one Hertz contact μ δ̈ = −(K δ^1.5 + C δ^0.5 δ̇) entered at
 * speed w (release at δ = 0, `release: gap`), by classical RK4 on (δ, δ̇) with
 * @p steps steps over the undamped contact time 2.943 δ_max/w; @return e = exit/w.
 * The √δ of the damping leaves RK4 second order here (measured: 1.3e-7 at
 * 5000 steps, 7.3e-9 at 20000 in u⁺).
 */
static double hertz_rk4(double mu, double K, double C, double w, int steps)
{
    double dmax = pow(5.0 * mu * w * w / (4.0 * K), 0.4), T = 2.943275184324706 * dmax / w;
    double h = T / steps, y[2] = {0.0, w};
    for (int it = 0; it < 20 * steps; it++) {
        double k[4][2], s[2];
        for (int st = 0; st < 4; st++) {
            double f = st == 0 ? 0.0 : (st == 3 ? 1.0 : 0.5);
            for (int c = 0; c < 2; c++)
                s[c] = y[c] + (st ? f * h * k[st - 1][c] : 0.0);
            double dp = fmax(s[0], 0.0);
            k[st][0] = s[1];
            k[st][1] = -(K * pow(dp, 1.5) + C * sqrt(dp) * s[1]) / mu;
        }
        double y0 = y[0], y1 = y[1];
        for (int c = 0; c < 2; c++)
            y[c] += h / 6.0 * (k[0][c] + 2.0 * k[1][c] + 2.0 * k[2][c] + k[3][c]);
        if (it > 10 && y[0] <= 0.0) { /* back at δ = 0: the exit speed by linear interpolation */
            double f = y0 / (y0 - y[0]);
            return -(y1 + f * (y[1] - y1)) / w;
        }
    }
    return NAN;
}

/* e by RK4 at 40000 and 80000 steps, Richardson-extrapolated in h². */
static double hertz_restitution(double mu, double K, double C, double w)
{
    double e1 = hertz_rk4(mu, K, C, w, 40000), e2 = hertz_rk4(mu, K, C, w, 80000);
    return (4.0 * e2 - e1) / 3.0;
}

/*
 * With frozen normals each striker contact's overlap is linear along its
 * normal nₖ, and by symmetry the three carry one force f: a target gets f nₖ/m
 * (outwards from the axis, so the target pairs open and carry nothing), the
 * striker −Σ f nⱼ/M = −3 f cos θ a/M, and δ̈ = −f (1/m + 3cos²θ/M): one Hertz
 * contact of mass μ = 1/(1/m + 3cos²θ/M) entered at V cos θ, whose exit speed
 * is e V cos θ, at every stiffness. The impulse P = μ(1 + e)V cos θ on each
 * striker contact is then the energetic law's outcome for α = 1 on them, 0 on
 * the pairs, and κ = T⁺/T⁻ of that outcome; here P comes from the energetic
 * closed form (energetic_P) at that κ: undamped, e = κ = 1 exactly; damped,
 * e from the RK4 integration above.
 */
static void test_rigid_limit_triple(double C)
{
    tu_case("rigid limit triple C = %g", C);
    triple t = triple_make(0.3, 0.2, 0.015, 0.01, 1.0, 1e-5);
    const double K = 1e9;
    char text[4096];
    int len = snprintf(text, sizeof text, "dim: 3\nbodies:\n");
    for (int b = 0; b < 4; b++)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "  - {mass: %.17g, radius: %.17g, x: [%.17g, %.17g, %.17g], v: [%.17g, "
                        "%.17g, %.17g]}\n",
                        b ? t.m : t.M, b ? t.R : t.Rs, t.x[b][0], t.x[b][1], t.x[b][2],
                        b ? 0.0 : t.V * t.a[0], b ? 0.0 : t.V * t.a[1], b ? 0.0 : t.V * t.a[2]);
    snprintf(text + len, sizeof text - (size_t)len,
             "contact: {K: %.17g, n: 1.5, C: %.17g, release: gap}\n"
             "integration: {rtol: 1.0e-12, atol: 1.0e-15, normals: frozen}\n",
             K, C);
    char msg[512];
    cr_model *model = NULL;
    int rc = cr_modelfile_parse(text, strlen(text), "triple.yaml", &model, msg, sizeof msg);
    CHECK(rc == CR_OK, "the frozen triple parses: %s", rc == CR_OK ? "" : msg);
    if (rc != CR_OK)
        return;
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    rc = mon ? cr_system_run(sys, 0.0) : CR_ERR_INVALID;
    cr_monitor_finish(mon);
    cr_episode_data ep;
    rc = rc == CR_OK ? cr_monitor_episode_data(mon, 0, &ep) : rc;
    CHECK(rc == CR_OK, "the compliant triple ran with one episode");
    cr_rigid_limit out;
    if (rc == CR_OK)
        rc = cr_compare_rigid_limit(model, &ep, NULL, &out, msg, sizeof msg);
    CHECK(rc == CR_OK, "rigid limit on dim 3: %s", rc == CR_OK ? "ok" : msg);
    if (rc == CR_OK) {
        double mu = 1.0 / (1.0 / t.m + 3.0 * t.c * t.c / t.M), w = t.V * t.c;
        double e = C == 0.0 ? 1.0 : hertz_restitution(mu, K, C, w);
        double P_newton = mu * (1.0 + e) * w, u[12], want[12];
        triple_outcome(&t, P_newton, u);
        double T0 = 0.5 * t.M * t.V * t.V, T1 = 0.5 * t.M * dot3(u, u);
        for (int k = 1; k < 4; k++)
            T1 += 0.5 * t.m * dot3(u + 3 * k, u + 3 * k);
        triple_outcome(&t, energetic_P(&t, T1 / T0), want);
        /* the limit's bodies in the episode's order */
        double worst_u = 0.0, worst_a = 0.0;
        for (size_t i = 0; i < ep.info.body_count; i++)
            for (int d = 0; d < 3; d++)
                worst_u = fmax(worst_u, fabs(out.velocity_limit[3 * i + (size_t)d] -
                                             want[3 * ep.bodies[i] + (size_t)d]));
        for (size_t k = 0; k < out.contacts; k++)
            worst_a = fmax(worst_a, fabs(out.alpha_limit[k] - (ep.records[k].body_a == 0)));
        printf("     rigid limit triple C = %g: e = %.12f, kappa = %.12f; u+ off the energetic "
               "closed form by %.2e m/s, alpha off (1, 1, 1, 0, 0, 0) by %.2e\n",
               C, e, T1 / T0, worst_u, worst_a);
        CHECK(out.contacts == 6 && ep.info.body_count == 4, "6 contacts, 4 bodies (%zu, %zu)",
              out.contacts, ep.info.body_count);
        /* undamped: the compliant run's tolerance; damped: the RK4 reference's
         * (1.6e-9 measured, Richardson of 40000 and 80000 steps) */
        double tol = C == 0.0 ? 1e-10 : 1e-8;
        CHECK_REF(worst_u <= tol * t.V,
                  "u+ (K -> inf) = the energetic closed form (%.3e m/s, tolerance %g V)", worst_u,
                  tol);
        CHECK_REF(worst_a <= 1e-8,
                  "alpha (K -> inf) = 1 on the striker contacts, 0 on the "
                  "pairs (%.3e)",
                  worst_a);
        cr_rigid_limit_free(&out);
    }
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* ---- what a rigid sphere pool refuses ---------------------------------------------- */

static void test_refusals(void)
{
    tu_case("refusals");
    /* a sphere resting on another under gravity: a stack */
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 3);
    double x0[3] = {0, 0, 0.01}, x1[3] = {0, 0, 0.03}, v[3] = {0, 0, 0}, n[3] = {0, 0, 1};
    double g[3] = {0, 0, -9.81};
    cr_model_add_body(model, 0.1, 0.01, x0, v);
    cr_model_add_body(model, 0.1, 0.01, x1, v);
    cr_model_add_plane(model, n, 0.0, NULL);
    cr_model_set_gravity_vector(model, g);
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 0.5;
    expect_refused(model, CR_LAW_NEWTON, &lp, "spheres 0 and 1 rest on each other",
                   "a stack of spheres");
    cr_model_destroy(model);
}

int main(void)
{
    test_box(0.8);
    test_box(0.5);
    test_triple_newton(1.0);
    test_triple_newton(0.5);
    test_triple_energetic(1.0);
    test_triple_energetic(0.7);
    test_quartic();
    test_embedded();
    test_rigid_limit_triple(0.0);
    test_rigid_limit_triple(3e4);
    test_refusals();
    tu_case(NULL);
    return tu_finish("test-rigid3d");
}
