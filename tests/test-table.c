/*
 * Reference tables (include/cradle/table.h): a small table made here from two
 * sweeps (a 5 × 3 grid and its cell midpoints) and checked against direct
 * runs at other off-grid points; lookups at grid points; the interpolation
 * formula against a hand computation; the domain; zipped inputs; and the
 * committed restitution table against the series of Ramírez, Pöschel,
 * Brilliantov & Schwager, Phys. Rev. E 60, 4465 (1999).
 */
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
    int exact = 1;
    for (size_t i = 0; i < cr_sweep_output_points(o); i++) {
        const double *row = cr_sweep_output_row(o, i);
        double x[2] = {row[jc], row[jv]}, e, k, be, bk;
        int rc =
            cr_table_lookup(t, x, (size_t)je, &e, &be) | cr_table_lookup(t, x, (size_t)jk, &k, &bk);
        exact &= rc == CR_OK && e == row[je] && k == row[jk] && be == 0.0 && bk == 0.0;
    }
    CHECK(exact, "a grid point's lookup differs from its stored row");
    printf("ok   15 grid points: stored values returned exactly, bound 0\n");
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
    for (size_t i = 0; i < cr_sweep_output_points(o); i++) {
        const double *row = cr_sweep_output_row(o, i);
        double x[2] = {row[jc], row[jv]}, e, b;
        if (cr_table_restitution(t, x, 0, 0, &e, &b) != CR_OK)
            continue;
        n++;
        if (b > 0.0)
            bound = b;
        worst = fmax(worst, fabs(e - row[je]) / (b > 0.0 ? b : 1.0));
        CHECK(fabs(e - row[je]) <= b, "C = %g, v = %g: |%.9g - %.9g| > bound %.3g", x[0], x[1], e,
              row[je], b);
    }
    CHECK(n == 12, "12 off-grid points looked up (got %zu)", n);
    CHECK(bound > 1e-6 && bound < 0.05, "the bound is an estimate, not 0 or 1: %g", bound);
    printf("ok   %zu off-grid direct runs within the bound %.3g (worst at %.2f of it)\n", n, bound,
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
    int n = 0;
    for (size_t k = 0; k < cr_table_axis_length(t, 0); k++) {
        double eps = cr_table_axis_value(t, 0, k), e;
        if (eps > 0.0101)
            break;
        cr_table_restitution(t, &eps, 0, 0, &e, NULL);
        double c1 = sqrt(M_PI) * tgamma(0.6) / (pow(2.0, 0.2) * pow(5.0, 0.4) * tgamma(2.1));
        double series = 1.0 - c1 * eps + 0.6 * c1 * c1 * eps * eps;
        CHECK(fabs(e - series) <= eps * eps * eps + 1e-8, "eps = %g: e = %.12g, series %.12g", eps,
              e, series);
        n++;
    }
    CHECK(n == 21, "21 grid points in [1e-3, 1e-2]");
    printf("ok   restitution-gap table: %d points within eps^3 + 1e-8 of the series\n", n);
    cr_table_close(t);
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
    check_refusals();
    check_committed();
    const char *files[] = {"grid.h5", "mid.h5", "other.h5", "table.h5", "zip.h5", NULL};
    for (const char **f = files; *f; f++)
        remove(*f);
    if (chdir("/tmp") == 0)
        rmdir(dir);
    return tu_finish("test-table");
}
