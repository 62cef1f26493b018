/*
 * Reference tables (include/cradle/table.h): a small table made here from two
 * sweeps (a 5 × 3 grid and its cell midpoints) and checked against direct
 * runs at other off-grid points; lookups at grid points; the interpolation
 * formula against a hand computation; the domain; zipped inputs; and the
 * committed restitution table against the series of Ramírez, Pöschel,
 * Brilliantov & Schwager, Phys. Rev. E 60, 4465 (1999); the committed cradle,
 * bead-column and pool tables against the two-body collision, the wall
 * restitution, Acary & Taha's eq. 27 and the chain3 table, and against direct
 * runs off their grids.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "cradle/sweep.h"
#include "cradle/table.h"
#include "testutil.h"

/* Two balls of mass 2 (mu = 1), K = 1, visco-elastic Hertz: the restitution
 * depends on eps = C v^(1/5) (docs/tables.md), a smooth function of both axes. */
#define PAIR_MODEL                                                                                 \
    "model:\n"                                                                                     \
    "  balls:\n"                                                                                   \
    "    - {mass: 2.0, radius: 0.5, x: 0.0, v: 1.0}\n"                                             \
    "    - {mass: 2.0, radius: 0.5, x: 1.0}\n"                                                     \
    "  contact: {K: 1.0, n: 1.5, C: 0.0, release: gap}\n"                                          \
    "  integration: {rtol: 1.0e-10, atol: 1.0e-12}\n"

static const char *grid_text = "name: grid\n" PAIR_MODEL "axes:\n"
                               "  - field: contact.C\n"
                               "    key: C\n"
                               "    range: {from: 0.01, to: 1.0, count: 5, scale: log}\n"
                               "  - field: balls[0].v\n"
                               "    key: v\n"
                               "    values: [0.5, 1.0, 2.0]\n";

/* Cell midpoints in log C and log v: what the bound is estimated from. */
static const char *mid_text = "name: mid\n" PAIR_MODEL "axes:\n"
                              "  - field: contact.C\n"
                              "    key: C\n"
                              "    range: {from: 0.017782794100389229, to: 0.56234132519034907, "
                              "count: 4, scale: log}\n"
                              "  - field: balls[0].v\n"
                              "    key: v\n"
                              "    values: [0.70710678118654757, 1.4142135623730951]\n";

/* Other off-grid points (a quarter into cells, and on a grid line): the
 * direct runs the stated bound must hold for. */
static const char *other_text = "name: other\n" PAIR_MODEL "axes:\n"
                                "  - field: contact.C\n"
                                "    key: C\n"
                                "    values: [0.0133352143, 0.075, 0.2, 0.9]\n"
                                "  - field: balls[0].v\n"
                                "    key: v\n"
                                "    values: [0.6, 1.0, 1.9]\n";

static int run_sweep(const char *text, const char *path)
{
    char msg[512];
    cr_sweep *s = NULL;
    cr_sweep_file *f = NULL;
    int rc = cr_sweep_parse(text, strlen(text), "test", ".", &s, msg, sizeof msg);
    if (rc == CR_OK)
        rc = cr_sweep_file_open(path, s, 1, &f, msg, sizeof msg);
    if (rc == CR_OK)
        rc = cr_sweep_run(s, f, 1, NULL, NULL, NULL);
    if (f)
        cr_sweep_file_close(f, rc == CR_OK ? "complete" : "failed", msg, sizeof msg);
    cr_sweep_destroy(s);
    if (rc != CR_OK)
        printf("sweep %s: %s\n", path, msg);
    return rc;
}

/* Every grid point gives back its stored row, bit for bit, with bound 0. */
static void check_grid_points(cr_table *t, const char *grid)
{
    char msg[512];
    cr_sweep_output *o = cr_sweep_output_open(grid, msg, sizeof msg);
    CHECK(o != NULL, "%s", msg);
    if (!o)
        return;
    long jc = cr_sweep_output_column_index(o, "C"), jv = cr_sweep_output_column_index(o, "v");
    long je = cr_table_column_index(t, "e_N[0]"), jk = cr_table_column_index(t, "kappa");
    int exact = 1, f0 = tu_failed;
    for (size_t i = 0; i < cr_sweep_output_points(o); i++) {
        const double *row = cr_sweep_output_row(o, i);
        double x[2] = {row[jc], row[jv]}, e, k, be, bk;
        int rc =
            cr_table_lookup(t, x, (size_t)je, &e, &be) | cr_table_lookup(t, x, (size_t)jk, &k, &bk);
        exact &= rc == CR_OK && e == row[je] && k == row[jk] && be == 0.0 && bk == 0.0;
    }
    CHECK_SELF(exact, "a grid point's lookup differs from its stored row");
    tu_summary(f0, "15 grid points: stored values returned exactly, bound 0");
    cr_sweep_output_close(o);
}

/* The bilinear formula in (log C, log v) written out from the four corners. */
static void check_formula(cr_table *t)
{
    double C = 0.05, v = 1.3;
    double C0 = cr_table_axis_value(t, 0, 1), C1 = cr_table_axis_value(t, 0, 2);
    double v0 = cr_table_axis_value(t, 1, 1), v1 = cr_table_axis_value(t, 1, 2);
    double wc = log(C / C0) / log(C1 / C0), wv = log(v / v0) / log(v1 / v0);
    double f[2][2];
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            double x[2] = {a ? C1 : C0, b ? v1 : v0};
            cr_table_restitution(t, x, 0, 0, &f[a][b], NULL);
        }
    double want = (1 - wc) * (1 - wv) * f[0][0] + wc * (1 - wv) * f[1][0] +
                  (1 - wc) * wv * f[0][1] + wc * wv * f[1][1];
    double x[2] = {C, v}, got;
    CHECK(cr_table_restitution(t, x, 0, 0, &got, NULL) == CR_OK, "%s", cr_table_last_error(t));
    CHECK_REL(got, want, 1e-14, "bilinear in log C, log v from the 4 corners, written here");
    CHECK(cr_table_axis_is_log(t, 0) && cr_table_axis_is_log(t, 1), "geometric axes: log");
}

/* Direct runs at other off-grid points are within the stated bound. */
static void check_off_grid(cr_table *t, const char *other)
{
    char msg[512];
    cr_sweep_output *o = cr_sweep_output_open(other, msg, sizeof msg);
    CHECK(o != NULL, "%s", msg);
    if (!o)
        return;
    long jc = cr_sweep_output_column_index(o, "C"), jv = cr_sweep_output_column_index(o, "v");
    long je = cr_sweep_output_column_index(o, "e_N[0]");
    size_t n = 0;
    double worst = 0.0, bound = NAN;
    int f0 = tu_failed;
    for (size_t i = 0; i < cr_sweep_output_points(o); i++) {
        const double *row = cr_sweep_output_row(o, i);
        double x[2] = {row[jc], row[jv]}, e, b;
        if (cr_table_restitution(t, x, 0, 0, &e, &b) != CR_OK)
            continue;
        n++;
        if (b > 0.0)
            bound = b;
        worst = fmax(worst, fabs(e - row[je]) / (b > 0.0 ? b : 1.0));
        /* the table against direct cradle runs: its own stated error */
        CHECK_SELF(fabs(e - row[je]) <= b, "C = %g, v = %g: |%.9g - %.9g| > bound %.3g", x[0], x[1],
                   e, row[je], b);
    }
    CHECK(n == 12, "12 off-grid points looked up (got %zu)", n);
    CHECK(bound > 1e-6 && bound < 0.05, "the bound is an estimate, not 0 or 1: %g", bound);
    tu_summary(f0, "%zu off-grid direct runs within the bound %.3g (worst at %.2f of it)", n, bound,
               worst);
    cr_sweep_output_close(o);
}

static void check_domain(cr_table *t)
{
    double x[2] = {2.0, 1.0}, e, b;
    CHECK(cr_table_restitution(t, x, 0, 0, &e, &b) == CR_ERR_DOMAIN, "C = 2 is refused");
    const char *m = cr_table_last_error(t);
    CHECK(strstr(m, "C = 2 is outside the table's domain [0.01, 1]") && !strchr(m, '\n'),
          "one line naming the axis and its range: %s", m);
    x[0] = NAN;
    CHECK(cr_table_restitution(t, x, 0, 0, &e, &b) == CR_ERR_DOMAIN, "NaN is refused");
    CHECK(strcmp(cr_strerror(CR_ERR_DOMAIN), "outside the table's domain") == 0, "strerror");
    CHECK(cr_table_value(t, (double[]){0.1, 1.0}, "nonesuch", &e, &b) == CR_ERR_INVALID,
          "unknown column");
}

/* A grid with a repeated value, and a sweep not finished: refused, one line. */
static void check_refusals(void)
{
    static const char *twice = "name: twice\n" PAIR_MODEL "axes:\n"
                               "  - field: contact.C\n"
                               "    values: [0.1, 0.1, 0.2]\n";
    char msg[512] = "";
    cr_table *t = NULL;
    CHECK(run_sweep(twice, "twice.h5") == CR_OK, "sweep with a repeated value");
    CHECK(cr_table_open("twice.h5", &t, msg, sizeof msg) == CR_ERR_INVALID && !t &&
              strstr(msg, "twice.h5: the inputs are not a full crossed grid (2 cells, 3 points)"),
          "repeated grid point: %s", msg);
    cr_sweep *s = NULL;
    cr_sweep_file *f = NULL;
    int rc = cr_sweep_parse(grid_text, strlen(grid_text), "test", ".", &s, msg, sizeof msg);
    if (rc == CR_OK)
        rc = cr_sweep_file_open("partial.h5", s, 1, &f, msg, sizeof msg);
    double row[256];
    char err[CR_SWEEP_ERROR_LEN];
    if (rc == CR_OK && cr_sweep_column_count(s) <= 256 &&
        cr_sweep_compute(s, 0, row, err, sizeof err, NULL) == CR_OK)
        cr_sweep_file_put(f, 0, row, err);
    cr_sweep_file_close(f, "interrupted", msg, sizeof msg);
    cr_sweep_destroy(s);
    CHECK(cr_table_open("partial.h5", &t, msg, sizeof msg) == CR_ERR_INVALID &&
              strstr(msg, "point 1 is not computed: finish the sweep first"),
          "unfinished sweep: %s", msg);
    remove("twice.h5");
    remove("partial.h5");
}

/* tests/data/sweep-small.yaml zips contact.C with contact.n: two axes, not three. */
static void check_zip(void)
{
    char msg[512];
    cr_sweep *s = NULL;
    int rc = cr_sweep_load(CR_TEST_DATA "/sweep-small.yaml", &s, msg, sizeof msg);
    CHECK(rc == CR_OK, "%s", msg);
    cr_sweep_file *f = NULL;
    if (rc == CR_OK)
        rc = cr_sweep_file_open("zip.h5", s, 1, &f, msg, sizeof msg);
    if (rc == CR_OK)
        rc = cr_sweep_run(s, f, 1, NULL, NULL, NULL);
    cr_sweep_file_close(f, "complete", msg, sizeof msg);
    cr_sweep_destroy(s);
    cr_table *t = NULL;
    CHECK(rc == CR_OK && cr_table_open("zip.h5", &t, msg, sizeof msg) == CR_OK, "%s", msg);
    CHECK(cr_table_axis_count(t) == 2 && strcmp(cr_table_axis_name(t, 0), "m2/m1") == 0 &&
              strcmp(cr_table_axis_field(t, 1), "contact.n") == 0,
          "axes m2/m1 and contact.n; contact.C rides along");
    cr_table_close(t);
}

/* The committed table data/restitution-gap.h5 at small eps against the
 * two-term series e = 1 - C1 eps + C2 eps^2 of Ramírez et al. 1999 (eq. 26,
 * in the variable eps of docs/tables.md), C1 = sqrt(pi) Gamma(3/5) /
 * (2^(1/5) 5^(2/5) Gamma(21/10)) = 1.15344886 (Schwager & Pöschel 1998),
 * C2 = (3/5) C1^2 = 0.79826; the next term is about -0.5 eps^3, and the
 * runs' own error (rtol 1e-10) up to 1e-8. */
static void check_committed(void)
{
    char msg[512];
    cr_table *t = NULL;
    int rc = cr_table_open(CR_TEST_DATA "/../../data/restitution-gap.h5", &t, msg, sizeof msg);
    CHECK(rc == CR_OK, "%s", msg);
    if (rc != CR_OK)
        return;
    CHECK(cr_table_attr(t, "git_revision")[0] && cr_table_attr(t, "date")[0] &&
              cr_table_attr(t, "tolerances")[0] && cr_table_attr(t, "base_model")[0],
          "provenance attributes present");
    size_t checked;
    double bound = cr_table_bound(t, (size_t)cr_table_column_index(t, "e_N[0]"), &checked);
    CHECK(checked >= 30 && bound < 2e-3, "bound %g from %zu check points", bound, checked);
    int n = 0, f0 = tu_failed;
    for (size_t k = 0; k < cr_table_axis_length(t, 0); k++) {
        double eps = cr_table_axis_value(t, 0, k), e;
        if (eps > 0.0101)
            break;
        cr_table_restitution(t, &eps, 0, 0, &e, NULL);
        double c1 = sqrt(M_PI) * tgamma(0.6) / (pow(2.0, 0.2) * pow(5.0, 0.4) * tgamma(2.1));
        double series = 1.0 - c1 * eps + 0.6 * c1 * c1 * eps * eps;
        CHECK_REF(fabs(e - series) <= eps * eps * eps + 1e-8, "eps = %g: e = %.12g, series %.12g",
                  eps, e, series);
        n++;
    }
    CHECK(n == 21, "21 grid points in [1e-3, 1e-2]");
    tu_summary(f0, "restitution-gap table: %d points within eps^3 + 1e-8 of the series", n);
    cr_table_close(t);
}

/* ---- the committed tables of this round: cradles, bead columns, the pool ---- */

static cr_table *open_data(const char *name)
{
    char path[512], msg[512];
    snprintf(path, sizeof path, CR_TEST_DATA "/../../data/%s", name);
    tu_case("%s", name); /* the caller labels its own checks after this */
    cr_table *t = NULL;
    int rc = cr_table_open(path, &t, msg, sizeof msg);
    CHECK(rc == CR_OK, "%s", msg);
    if (t)
        CHECK(cr_table_attr(t, "git_revision")[0] && cr_table_attr(t, "date")[0] &&
                  cr_table_attr(t, "base_model")[0] && cr_table_attr(t, "figure")[0],
              "%s: provenance attributes present", name);
    return t;
}

static double value(cr_table *t, const double *x, const char *col)
{
    double v = NAN;
    int rc = cr_table_value(t, x, col, &v, NULL);
    CHECK(rc == CR_OK, "%s: %s", col, cr_table_last_error(t));
    return v;
}

/* The chain3 lookup of a damped chain through one restitution cache, as the
 * rigid runs' table provider does at each impact: N impacts of the same pairs
 * at the same speed make one two-body run (equal masses and laws: both pairs
 * share the key), every other lookup a hit, with the uncached answer bit for
 * bit; another speed or another damping is another key. The comparator's
 * cache is the same object (cr_compare_restitution_cache). */
static void check_chain3_cache(void)
{
    cr_table *t = open_data("chain3-hertz.h5");
    if (!t)
        return;
    tu_case("chain3 cache");
    cr_release rel = CR_RELEASE_FORCE;
    cr_release_from_name(cr_table_attr(t, "law.release"), &rel);
    cr_contact_params law;
    cr_contact_params_init(&law, 1.0, strtod(cr_table_attr(t, "law.n"), NULL), 0.0, rel);
    if (cr_table_attr(t, "law.m")[0])
        law.m = strtod(cr_table_attr(t, "law.m"), NULL);
    char msg[512];
    double C = NAN;
    CHECK(cr_calibrate_damping(&law, 0.5, 1.0, 0.9, &C, msg, sizeof msg) == CR_OK, "%s", msg);
    law.C = C;
    const double mass[3] = {1.0, 1.0, 1.0};
    const cr_contact_params laws[2] = {law, law};
    double a0[2], k0, b0[2], a[2], k, b[2];
    int rc = cr_table_chain3(t, mass, laws, 1.0, a0, &k0, b0, msg, sizeof msg);
    CHECK(rc == CR_OK, "uncached lookup: %s", msg);
    cr_restitution_cache *cache = cr_restitution_cache_create();
    const size_t N = 50;
    size_t same = 0, runs = 0, hits = 0;
    for (size_t i = 0; i < N; i++) {
        rc = cr_table_chain3_cached(t, cache, mass, laws, 1.0, a, &k, b, msg, sizeof msg);
        same += rc == CR_OK && a[0] == a0[0] && a[1] == a0[1] && k == k0;
    }
    cr_restitution_cache_stats(cache, &runs, &hits);
    CHECK_SELF(same == N, "%zu of %zu cached lookups equal the uncached one bit for bit", same, N);
    CHECK(runs == 1 && hits == 2 * N - 1, "%zu impacts: %zu two-body run, %zu hits (want 1, %zu)",
          N, runs, hits, 2 * N - 1);
    cr_table_chain3_cached(t, cache, mass, laws, 0.9, a, &k, b, msg, sizeof msg);
    cr_contact_params more[2] = {law, law};
    more[0].C = more[1].C = 1.01 * C;
    cr_table_chain3_cached(t, cache, mass, more, 1.0, a, &k, b, msg, sizeof msg);
    cr_restitution_cache_stats(cache, &runs, &hits);
    CHECK(runs == 3 && hits == 2 * N + 1, "another speed, another C: new keys (%zu runs, %zu hits)",
          runs, hits);
    cr_restitution_cache_destroy(cache);
    cr_compare *cmp = cr_compare_create();
    cr_table_chain3_cached(t, cr_compare_restitution_cache(cmp), mass, laws, 1.0, a, &k, b, msg,
                           sizeof msg);
    cr_compare_cache_stats(cmp, &runs, &hits);
    CHECK(runs == 1 && hits == 1, "the comparator's cache serves the lookup (%zu runs, %zu hits)",
          runs, hits);
    cr_compare_destroy(cmp);
    tu_case(NULL);
    cr_table_close(t);
}

/* Newton's cradle: N = 2 is the two-body collision, v_final = ((1 - e)/2,
 * (1 + e)/2) of the striker's speed (momentum and the pair's restitution e,
 * which the calibration set: 1e-7); e = 1 the exact exchange (0, 1). Every
 * point conserves momentum: Σ v_final = 1 (equal masses, 1e-12). */
static void check_cradle(const char *name)
{
    cr_table *t = open_data(name);
    if (!t)
        return;
    tu_case("%s", name);
    double worst2 = 0, worstp = 0;
    int f0 = tu_failed;
    for (size_t i = 0; i < cr_table_axis_length(t, 0); i++)
        for (size_t k = 0; k < cr_table_axis_length(t, 1); k++) {
            double x[2] = {cr_table_axis_value(t, 0, i), cr_table_axis_value(t, 1, k)}, sum = 0;
            for (int b = 0; b < (int)x[0]; b++) {
                char col[32];
                snprintf(col, sizeof col, "v_final[%d]", b);
                sum += value(t, x, col);
            }
            worstp = fmax(worstp, fabs(sum - 1.0));
            if (x[0] == 2.0)
                worst2 = fmax(worst2, fmax(fabs(value(t, x, "v_final[0]") - (1 - x[1]) / 2),
                                           fabs(value(t, x, "v_final[1]") - (1 + x[1]) / 2)));
        }
    CHECK_REF(worst2 < 1e-7, "%s: N = 2 against the two-body outcome: %.2e", name, worst2);
    CHECK_INV(worstp < 1e-12, "%s: momentum of every point: %.2e", name, worstp);
    tu_case(NULL);
    tu_summary(f0, "%s: N = 2 is the two-body outcome (%.1e), momentum kept (%.1e)", name, worst2,
               worstp);
    cr_table_close(t);
}

/* A column of one bead is one ball on the wall: e_cm = the pair's restitution
 * e (1e-7: calibration and run). */
static void check_column(void)
{
    cr_table *t = open_data("column-restitution.h5");
    if (!t)
        return;
    tu_case("column-restitution.h5, N = 1");
    double worst = 0;
    int f0 = tu_failed;
    for (size_t k = 0; k < cr_table_axis_length(t, 1); k++) {
        double x[2] = {1.0, cr_table_axis_value(t, 1, k)};
        worst = fmax(worst, fabs(value(t, x, "e_cm") - x[1]));
    }
    CHECK_REF(worst < 1e-7, "column N = 1: e_cm against e: %.2e", worst);
    tu_case(NULL);
    tu_summary(f0, "column-restitution: N = 1 gives e_cm = e (%.1e)", worst);
    cr_table_close(t);
}

/* Acary & Taha 2005 eq. 27 (tau = 0, unit masses and speed, as
 * tests/validation/validate.py evaluates it): u+ from alpha_12 and kappa. The
 * largest deviation of the table's v_final from it at theta. */
static double eq27_deviation(cr_table *t, double theta)
{
    double x[2] = {theta, 0.0};
    double a = value(t, x, "alpha[1]"), k = value(t, x, "kappa"), c = cos(theta), sn = sin(theta);
    double D = 2 * (k - 1) * (a * a - a * c + 1) + 1;
    double q = (1 + sqrt(D)) / (-2 * a * c + 2 * a * a + 2);
    double want[6] = {c * (1 - q), sn * (1 - q), (c - a) * q, sn * q, a * q, 0.0}, worst = 0;
    for (int i = 0; i < 6; i++) {
        char col[32];
        snprintf(col, sizeof col, "v_final[%d].%s", i / 2, i % 2 ? "y" : "x");
        worst = fmax(worst, fabs(value(t, x, col) - want[i]));
    }
    return worst;
}

/* The pool: with frozen normals (the rigid limit) eq. 27 holds to the runs'
 * error (1e-9; it measures 4e-12), alpha_12 does not depend on tau (frictionless, fixed normals:
 * the tangential velocity enters no impulse; 1e-8), and at theta = 0 the pool
 * is the collinear three-ball chain, whose alpha data/chain3-hertz.h5 holds
 * (equal masses and stiffnesses, undamped; another engine, 1e-8). With turning
 * normals eq. 27 holds to the normals' rotation (1e-3, measured 8e-4;
 * validate.py allows 2e-3 with a 10 um gap). */
static void check_pool(void)
{
    cr_table *r = open_data("pool-alpha12-rigid.h5"), *f = open_data("pool-alpha12.h5");
    cr_table *c = open_data("chain3-hertz.h5");
    if (r && f && c) {
        tu_case("pool tables");
        int f0 = tu_failed;
        /* eq. 27 of the rows' own alpha and kappa: an identity of the outcome */
        double dr = eq27_deviation(r, M_PI / 4), df = eq27_deviation(f, M_PI / 4);
        CHECK_INV(dr < 1e-9, "rigid pool, theta = pi/4: eq. 27 within %.2e", dr);
        CHECK_INV(df < 1e-3, "finite-K pool, theta = pi/4: eq. 27 within %.2e", df);
        double spread = 0;
        for (size_t i = 0; i < cr_table_axis_length(r, 0); i++) {
            double x[2] = {cr_table_axis_value(r, 0, i), 0.0}, a0 = value(r, x, "alpha[1]");
            for (size_t k = 0; k < cr_table_axis_length(r, 1); k++) {
                x[1] = cr_table_axis_value(r, 1, k);
                spread = fmax(spread, fabs(value(r, x, "alpha[1]") - a0));
            }
        }
        CHECK_INV(spread < 1e-8, "rigid pool: alpha_12 independent of tau within %.2e", spread);
        double x0[2] = {0.0, 0.0}, xc[4] = {1.0, 1.0, 1.0, 1.0}, ac = NAN;
        cr_table_alpha(c, xc, 1, &ac, NULL);
        double a0 = value(r, x0, "alpha[1]");
        CHECK_SELF(fabs(a0 - ac) < 1e-8, "theta = 0: pool alpha %.12g, chain3 alpha %.12g", a0, ac);
        tu_case(NULL);
        tu_summary(f0,
                   "pool: eq. 27 within %.1e (frozen), %.1e (turning); alpha tau-free within "
                   "%.1e; theta = 0 is the chain (%.1e)",
                   dr, df, spread, fabs(a0 - ac));
    }
    cr_table_close(r);
    cr_table_close(f);
    cr_table_close(c);
}

/* Off the grid: a direct run of the table's own sweep (its base model in
 * data/sweeps/models, the table's `set`) at one point against the lookup,
 * which must be within the stored bound. */
static void check_direct(const char *table, const char *model, const char *set, const char *point,
                         const double *x, const char *col)
{
    char text[512], msg[512], err[CR_SWEEP_ERROR_LEN];
    snprintf(text, sizeof text, "name: direct\nmodel: models/%s\n%s%saxes:\n%s", model,
             set[0] ? "set:\n" : "", set, point);
    cr_sweep *s = NULL;
    cr_table *t = open_data(table);
    tu_case("%s, direct run", table);
    int f0 = tu_failed;
    int rc = cr_sweep_parse(text, strlen(text), "direct", CR_TEST_DATA "/../../data/sweeps", &s,
                            msg, sizeof msg);
    CHECK(rc == CR_OK, "direct sweep: %s", msg);
    if (rc == CR_OK && t) {
        double *row = calloc(cr_sweep_column_count(s) + 1, sizeof(double)), v = NAN, b = NAN;
        rc = row ? cr_sweep_compute(s, 0, row, err, sizeof err, NULL) : CR_ERR_NOMEM;
        CHECK(rc == CR_OK && !err[0], "direct run: %s", err);
        cr_table_value(t, x, col, &v, &b);
        double d = row ? row[cr_sweep_column_index(s, col)] : NAN;
        CHECK_SELF(fabs(v - d) <= b, "%s at (%g, %g): %s lookup %.10g, direct %.10g, bound %.3g",
                   table, x[0], x[1], col, v, d, b);
        tu_summary(f0, "%s at (%g, %g): %s within %.1e of a direct run (bound %.1e)", table, x[0],
                   x[1], col, fabs(v - d), b);
        free(row);
    }
    tu_case(NULL);
    cr_sweep_destroy(s);
    cr_table_close(t);
}

/* The impact-configuration quantities of a 3-ball chain (table.h): the
 * ratios, e = 1 undamped, and each pair's gap over d*, against the closed
 * form of Hertz's maximum compression, d* = (5 mu V^2 / (4K))^(2/5) for
 * n = 3/2 (Johnson, Contact Mechanics, eq. 11.24). */
static void check_chain_quantities(void)
{
    tu_case("chain quantities");
    const double mass[3] = {2.0, 1.8, 2.2}, gap[2] = {1e-3, 0.0}, V = 0.5;
    cr_contact_params laws[2];
    cr_contact_params_init(&laws[0], 1000.0, 1.5, 0.0, CR_RELEASE_FORCE);
    cr_contact_params_init(&laws[1], 1500.0, 1.5, 0.0, CR_RELEASE_FORCE);
    char names[16][CR_TABLE_QUANTITY_LEN], msg[256];
    double v[16];
    size_t n = 0;
    int rc =
        cr_table_chain_quantities(NULL, 3, mass, laws, gap, V, names, v, 16, &n, msg, sizeof msg);
    const char *want[] = {"m2/m1",  "m3/m1", "K23/K12", "e12", "e23", "e",   "g12/d*",
                          "g23/d*", "v",     "m1",      "K12", "C12", "C23", "C"};
    int named = rc == CR_OK && n == 14;
    for (size_t q = 0; named && q < n; q++)
        named = strcmp(names[q], want[q]) == 0;
    CHECK(named, "the quantities of a 3-ball chain, in order (%zu: %s)", n, msg);
    if (!named)
        return;
    double mu = mass[0] * mass[1] / (mass[0] + mass[1]);
    double dstar = pow(5.0 * mu * V * V / (4.0 * laws[0].K), 0.4);
    CHECK_REF(v[0] == 0.9 && v[1] == 2.2 / 2.0 && v[2] == 1.5 && v[3] == 1.0 && v[4] == 1.0 &&
                  v[5] == 1.0,
              "ratios and undamped restitutions exact (%.17g %.17g %.17g %g %g %g)", v[0], v[1],
              v[2], v[3], v[4], v[5]);
    CHECK_REF(fabs(v[6] / (gap[0] / dstar) - 1.0) < 1e-14 && v[7] == 0.0,
              "g12/d* = %.17g, Hertz's closed form %.17g", v[6], gap[0] / dstar);
    CHECK(v[8] == V && v[9] == 2.0 && v[10] == 1000.0 && v[11] == 0.0 && v[12] == 0.0 &&
              v[13] == 0.0,
          "the units: v, m1, K12, C12, C23, C (%g %g %g %g %g %g)", v[8], v[9], v[10], v[11], v[12],
          v[13]);
    CHECK(cr_table_chain_quantities(NULL, 10, mass, laws, gap, V, names, v, 16, &n, msg,
                                    sizeof msg) == CR_ERR_INVALID,
          "10 bodies: refused (%s)", msg);
}

/* A declaration written by cr_table_make_declared reads back; one with a
 * name too long for the file is refused with nothing written. */
static void check_declaration(void)
{
    tu_case("declaration");
    const char *q[] = {"m2/m1", "e"}, *fixed[] = {"m3/m1", "K23/K12"};
    const double fv[] = {1.25, 0.5};
    cr_table_declaration d = {"chain3", q, fixed, fv, 2};
    char msg[512];
    int rc = cr_table_make_declared("grid.h5", NULL, "declared.h5", NULL, &d, msg, sizeof msg);
    cr_table *t = NULL;
    if (rc == CR_OK)
        rc = cr_table_open("declared.h5", &t, msg, sizeof msg);
    CHECK(rc == CR_OK, "declared table made and opened: %s", msg);
    if (t)
        CHECK(strcmp(cr_table_axis_quantity(t, 0), "m2/m1") == 0 &&
                  strcmp(cr_table_axis_quantity(t, 1), "e") == 0 && cr_table_fixed_count(t) == 2 &&
                  strcmp(cr_table_fixed_name(t, 1), "K23/K12") == 0 &&
                  cr_table_fixed_value(t, 0) == 1.25 && cr_table_chain_bodies(t) == 3 &&
                  strcmp(cr_table_attr(t, "configuration"), "chain3") == 0,
              "the declaration reads back (axes, fixed quantities, chain3)");
    cr_table_close(t);
    const char *longq[] = {"m2/m1", "a-quantity-name-longer-than-31-bytes"};
    d.quantity = longq;
    CHECK(cr_table_make_declared("grid.h5", NULL, "long.h5", NULL, &d, msg, sizeof msg) ==
                  CR_ERR_INVALID &&
              access("long.h5", F_OK) != 0,
          "a quantity name too long: refused, nothing written (%s)", msg);
}

int main(void)
{
    char dir[] = "/tmp/cradle-test-table-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return EXIT_FAILURE;
    CHECK(run_sweep(grid_text, "grid.h5") == CR_OK, "grid sweep");
    CHECK(run_sweep(mid_text, "mid.h5") == CR_OK, "midpoint sweep");
    CHECK(run_sweep(other_text, "other.h5") == CR_OK, "other off-grid sweep");
    char msg[512];
    const char *attrs[] = {"description", "test table", NULL};
    int rc = cr_table_make("grid.h5", "mid.h5", "table.h5", attrs, msg, sizeof msg);
    CHECK(rc == CR_OK, "%s", msg);
    cr_table *t = NULL;
    rc = cr_table_open("table.h5", &t, msg, sizeof msg);
    CHECK(rc == CR_OK, "%s", msg);
    if (rc == CR_OK) {
        CHECK(strcmp(cr_table_attr(t, "description"), "test table") == 0, "attribute kept");
        check_grid_points(t, "grid.h5");
        check_formula(t);
        check_off_grid(t, "other.h5");
        check_domain(t);
    }
    cr_table_close(t);
    CHECK(cr_table_make("grid.h5", "nonesuch.h5", "bad.h5", NULL, msg, sizeof msg) != CR_OK &&
              access("bad.h5", F_OK) != 0,
          "a missing check file: refused, nothing written");
    check_zip();
    check_chain_quantities();
    check_declaration();
    check_refusals();
    check_committed();
    check_cradle("cradle-hertz.h5");
    check_cradle("cradle-linear.h5");
    check_column();
    check_pool();
    check_chain3_cache();
    static const double xp[2] = {0.5, 0.3}, xc[2] = {7, 0.87}, xr[2] = {6, 0.91};
    check_direct("pool-alpha12-rigid.h5", "pool3.yaml", "  integration.normals: frozen\n",
                 "  - {field: three_disc.theta, values: [0.5]}\n"
                 "  - {field: three_disc.tau, values: [0.3]}\n",
                 xp, "alpha[1]");
    check_direct("column-restitution.h5", "column.yaml", "",
                 "  - {field: chain.count, values: [7]}\n"
                 "  - {field: contact.restitution, values: [0.87]}\n",
                 xc, "e_cm");
    check_direct("cradle-hertz.h5", "cradle.yaml", "",
                 "  - {field: chain.count, values: [6]}\n"
                 "  - {field: contact.restitution, values: [0.91]}\n",
                 xr, "v_final[5]");
    const char *files[] = {"grid.h5", "mid.h5", "other.h5", "table.h5", "zip.h5", NULL};
    for (const char **f = files; *f; f++)
        remove(*f);
    if (chdir("/tmp") == 0)
        rmdir(dir);
    return tu_finish("test-table");
}
