/*
 * The dim-3 generators of a model file (src/model/modelfile-lattice.c) against
 * the geometry computed here: the symmetric triple's contact angles, the
 * nearest-neighbour distances and coordination numbers of the cubic, fcc and
 * tetrahedral blocks, the jitter's bound, seed and variance, the box walls and
 * the striker; cr_modelfile_explicit_bodies reading back to the same model;
 * the refusals (one line with file, line and field).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

static char msg[1024];

static cr_model *parse(const char *text)
{
    cr_model *m = NULL;
    int rc = cr_modelfile_parse(text, strlen(text), "gen.yaml", &m, msg, sizeof msg);
    if (rc != CR_OK)
        printf("     parse: %s\n", msg);
    return m;
}

static double dist(const cr_model *m, size_t i, size_t j)
{
    double a[3], b[3];
    cr_model_get_body(m, i, a, NULL);
    cr_model_get_body(m, j, b, NULL);
    return hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]);
}

/* Neighbours of body i within distance d (1 + 1e-12). */
static int neighbours(const cr_model *m, size_t i, double d)
{
    int c = 0;
    for (size_t j = 0; j < cr_model_body_count(m); j++)
        c += j != i && dist(m, i, j) <= d * (1.0 + 1e-12);
    return c;
}

/* The smallest centre distance over all pairs. */
static double min_distance(const cr_model *m)
{
    double best = INFINITY;
    for (size_t i = 0; i < cr_model_body_count(m); i++)
        for (size_t j = i + 1; j < cr_model_body_count(m); j++)
            best = fmin(best, dist(m, i, j));
    return best;
}

/* A sphere striking three touching spheres along their axis, axis [1, 2, 3]:
 * each target at 2r + gap from the striker, the targets touching each other,
 * and with gap 0 each contact normal at acos(sqrt(2/3)) = 35.26 deg to the
 * axis (the regular tetrahedron: circumradius of the targets' triangle
 * 2r/sqrt(3), height sqrt((2r)^2 - (2r)^2/3)). */
static void sphere_triple(void)
{
    tu_case("sphere_triple");
    const double r = 0.01, ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)};
    for (int gapped = 0; gapped < 2; gapped++) {
        char text[512];
        double gap = gapped ? 1e-4 : 0.0;
        snprintf(text, sizeof text,
                 "sphere_triple: {radius: %g, density: 7800, speed: 2, gap: %g, axis: [1, 2, 3],"
                 " origin: [0.1, -0.2, 0.3]}\ncontact: {material: {E: 2.0e11, nu: 0.3}}\n",
                 r, gap);
        cr_model *m = parse(text);
        CHECK(m && cr_model_body_count(m) == 4 && cr_model_dimension(m) == 3,
              "sphere_triple: 4 spheres in dim 3");
        if (!m)
            continue;
        double xs[3], vs[3];
        cr_model_get_body(m, 0, xs, vs);
        for (size_t j = 1; j <= 3; j++) {
            CHECK_REL(dist(m, 0, j), 2 * r + gap, 1e-14, "striker-target distance 2r + gap");
            CHECK_REL(dist(m, j, j % 3 + 1), 2 * r, 1e-14, "targets touch: distance 2r");
            double xt[3], e[3];
            cr_model_get_body(m, j, xt, NULL);
            for (int k = 0; k < 3; k++)
                e[k] = (xt[k] - xs[k]) / dist(m, 0, j);
            double c = e[0] * ax[0] + e[1] * ax[1] + e[2] * ax[2];
            double expect = sqrt(pow(2 * r + gap, 2) - 4 * r * r / 3) / (2 * r + gap);
            CHECK_REL(c, expect, 1e-13, "cos of the normal's angle to the axis (tetrahedron)");
            if (!gapped)
                CHECK_REL(c, sqrt(2.0 / 3.0), 1e-13, "touching: cos = sqrt(2/3), 35.26 deg");
        }
        CHECK_REL(vs[0] * ax[0] + vs[1] * ax[1] + vs[2] * ax[2], 2.0, 1e-14,
                  "striker velocity along the axis at the given speed");
        cr_model_destroy(m);
    }
}

/* The generated triple run by the engine, axis [1, 2, 3] (not a coordinate
 * axis, so the symmetry is the generator's, not the frame's): by the
 * three-fold symmetry about the axis the targets leave with equal speeds and
 * equal velocity components along the axis (1e-11 relative; rtol 1e-11), and momentum is
 * conserved (1e-12). */
static void triple_run(void)
{
    tu_case("sphere_triple run");
    cr_model *m = parse("sphere_triple: {radius: 0.01, density: 7800, speed: 1, gap: 1.0e-5,"
                        " axis: [1, 2, 3]}\ncontact: {material: {E: 2.0e11, nu: 0.3}}\n"
                        "integration: {rtol: 1.0e-11, atol: 1.0e-12}\n");
    if (!m)
        return;
    cr_system *sys = tu_system(m);
    CHECK(cr_system_run(sys, 0.0) == CR_OK, "the triple runs to its end");
    double v[12], p[3] = {0, 0, 0}, ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)};
    double speed[3], along[3];
    cr_system_get_velocities(sys, v);
    for (int j = 0; j < 3; j++) {
        const double *u = v + 3 * (j + 1);
        speed[j] = hypot(hypot(u[0], u[1]), u[2]);
        along[j] = u[0] * ax[0] + u[1] * ax[1] + u[2] * ax[2];
    }
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < 3; k++)
            p[k] += cr_model_mass(m, (size_t)b) * v[3 * b + k];
    CHECK_REL(speed[1], speed[0], 1e-11, "targets 1 and 2 leave at equal speeds (symmetry)");
    CHECK_REL(speed[2], speed[0], 1e-11, "targets 1 and 3 leave at equal speeds (symmetry)");
    CHECK_REL(along[1], along[0], 1e-11, "equal velocity along the axis (symmetry)");
    CHECK_REL(along[2], along[0], 1e-11, "equal velocity along the axis, 1 and 3 (symmetry)");
    double p0 = cr_model_mass(m, 0) * 1.0;
    CHECK_REL_INV(p[0] * ax[0] + p[1] * ax[1] + p[2] * ax[2], p0, 1e-12, "momentum along the axis");
    cr_system_destroy(sys);
    cr_model_destroy(m);
}

/* Interior coordination and the first two neighbour shells of a block:
 * cubic 6 at d and next sqrt(2) d; fcc 12 at d and next sqrt(2) d. */
static void block(const char *kind, int coordination, double second)
{
    tu_case("lattice %s", kind);
    const double r = 0.005, gap = 1e-4, d = 2 * r + gap;
    char text[512];
    snprintf(text, sizeof text,
             "lattice: {kind: %s, count: [6, 6, 6], radius: %g, mass: 0.004, gap: %g}\n"
             "contact: {K: 1.0e9}\n",
             kind, r, gap);
    cr_model *m = parse(text);
    CHECK(m != NULL, "lattice %s parses", kind);
    if (!m)
        return;
    size_t n = cr_model_body_count(m), interior = 0, wrong = 0;
    CHECK(n == (strcmp(kind, "fcc") == 0 ? 108u : 216u), "%s: %zu sites (fcc: half of 6^3)", kind,
          n);
    CHECK_REL(min_distance(m), d, 1e-12, "nearest-neighbour distance = spacing 2r + gap");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        double x[3];
        cr_model_get_body(m, i, x, NULL);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], x[k]);
            hi[k] = fmax(hi[k], x[k]);
        }
    }
    double a = strcmp(kind, "fcc") == 0 ? d / sqrt(2.0) : d; /* site step along an axis */
    for (size_t i = 0; i < n; i++) {
        double x[3];
        int inside = 1;
        cr_model_get_body(m, i, x, NULL);
        for (int k = 0; k < 3; k++)
            inside &= x[k] > lo[k] + 0.5 * a && x[k] < hi[k] - 0.5 * a;
        if (!inside)
            continue;
        interior++;
        wrong += neighbours(m, i, d) != coordination ||
                 neighbours(m, i, second * d * (1 - 1e-9)) != coordination;
    }
    CHECK_REF(interior > 0 && wrong == 0,
              "%s: every interior sphere (%zu) has %d neighbours at d "
              "and none closer than %g d beyond them",
              kind, interior, coordination, second);
    cr_model_destroy(m);
}

/* A tetrahedral stack of 4 layers: 20 spheres; the apex touches exactly the 3
 * below it at height sqrt(2/3) d; the bottom corners have 3 neighbours. */
static void tetrahedral(void)
{
    tu_case("lattice tetrahedral");
    const double r = 0.01, d = 2 * r;
    cr_model *m = parse("lattice: {kind: tetrahedral, count: 4, radius: 0.01, density: 7800}\n"
                        "contact: {K: 1.0e9}\n");
    CHECK(m && cr_model_body_count(m) == 20, "tetrahedral, 4 layers: 20 = 4*5*6/6 spheres");
    if (!m)
        return;
    CHECK_REL(min_distance(m), d, 1e-12, "touching stack: nearest distance 2r");
    size_t apex = cr_model_body_count(m) - 1;
    double xa[3];
    cr_model_get_body(m, apex, xa, NULL);
    CHECK(neighbours(m, apex, d) == 3, "the apex touches 3 spheres");
    CHECK_REL(xa[2], 3 * d * sqrt(2.0 / 3.0), 1e-12, "apex height 3 sqrt(2/3) d (close packing)");
    CHECK(neighbours(m, 0, d) == 3 && neighbours(m, 3, d) == 3,
          "bottom corners: 2 in the layer + 1 above");
    cr_model_destroy(m);
}

/* Jitter: uniform in [-a, a] per coordinate (bound; variance a^2/3 within 25 %
 * for 3 x 125 draws, ~5 standard errors), the same seed the same block, another
 * seed another. */
static void jitter(void)
{
    tu_case("lattice jitter");
    const char *base = "lattice: {kind: cubic, count: [5, 5, 5], radius: 0.01, mass: 0.03, "
                       "gap: 0.001%s}\ncontact: {K: 1.0e9}\n";
    char t0[512], t1[512], t2[512];
    snprintf(t0, sizeof t0, base, "");
    snprintf(t1, sizeof t1, base, ", jitter: {distribution: uniform, size: 2.0e-4, seed: 5}");
    snprintf(t2, sizeof t2, base, ", jitter: {distribution: uniform, size: 2.0e-4, seed: 6}");
    cr_model *m0 = parse(t0), *m1 = parse(t1), *m1b = parse(t1), *m2 = parse(t2);
    CHECK(m0 && m1 && m1b && m2, "jittered lattices parse");
    if (m0 && m1 && m1b && m2) {
        double maxdev = 0, sum2 = 0, a = 2e-4;
        int same = 1, differs = 0;
        for (size_t i = 0; i < cr_model_body_count(m0); i++) {
            double x0[3], x1[3], x1b[3], x2[3];
            cr_model_get_body(m0, i, x0, NULL);
            cr_model_get_body(m1, i, x1, NULL);
            cr_model_get_body(m1b, i, x1b, NULL);
            cr_model_get_body(m2, i, x2, NULL);
            for (int k = 0; k < 3; k++) {
                double e = x1[k] - x0[k];
                maxdev = fmax(maxdev, fabs(e));
                sum2 += e * e;
                same &= x1[k] == x1b[k];
                differs |= x1[k] != x2[k];
            }
        }
        double var = sum2 / (3.0 * (double)cr_model_body_count(m0));
        CHECK_REF(maxdev <= a * (1 + 1e-9), "every displacement within the bound a (%g <= %g)",
                  maxdev, a);
        CHECK_REL(var, a * a / 3.0, 0.25, "variance of a uniform draw on [-a, a]: a^2/3");
        CHECK(same && differs, "the same seed gives the same block, another seed another");
    }
    cr_model_destroy(m0);
    cr_model_destroy(m1);
    cr_model_destroy(m1b);
    cr_model_destroy(m2);
}

/* Random sequential insertion of 200 spheres (r = 0.01) in a 0.2 m cube
 * (volume fraction 0.105): all placed, none overlapping, all inside the box;
 * the mean centre within 5 standard errors of the box centre (uniform draws
 * on [r, L - r]: sd 0.18/sqrt(12) per coordinate, / sqrt(200) for the mean);
 * the seed decides the draws. */
static void random_insertion(void)
{
    tu_case("lattice random");
    const char *t = "lattice: {kind: random, count: 200, radius: 0.01, mass: 0.01,"
                    " box: {size: [0.2, 0.2, 0.2], lid: true}, seed: %d}\ncontact: {K: 1.0e6}\n";
    char t1[256], t2[256];
    snprintf(t1, sizeof t1, t, 11);
    snprintf(t2, sizeof t2, t, 12);
    cr_model *m = parse(t1), *m2 = parse(t2);
    CHECK(m && m2 && cr_model_body_count(m) == 200 && cr_model_plane_count(m) == 6,
          "random: 200 spheres in a box with a lid (6 walls)");
    if (m && m2) {
        double mean[3] = {0, 0, 0}, x[3], y[3];
        int inside = 1, differs = 0;
        for (size_t i = 0; i < 200; i++) {
            cr_model_get_body(m, i, x, NULL);
            cr_model_get_body(m2, i, y, NULL);
            for (int k = 0; k < 3; k++) {
                inside &= x[k] >= 0.01 && x[k] <= 0.19;
                mean[k] += x[k] / 200.0;
                differs |= x[k] != y[k];
            }
        }
        double se = 0.18 / sqrt(12.0) / sqrt(200.0);
        CHECK_REF(min_distance(m) >= 0.02 && inside, "no overlap (min distance %g >= 2r), inside",
                  min_distance(m));
        CHECK_REF(fabs(mean[0] - 0.1) < 5 * se && fabs(mean[1] - 0.1) < 5 * se &&
                      fabs(mean[2] - 0.1) < 5 * se,
                  "mean centre (%g, %g, %g) within 5 standard errors of the box's", mean[0],
                  mean[1], mean[2]);
        CHECK(differs, "another seed, other draws");
    }
    cr_model_destroy(m);
    cr_model_destroy(m2);
}

/* A box: 5 walls (no lid), the block centred on the floor, the striker on the
 * x- face's normal through the centre, gap from the face's tangent plane. */
static void box_and_striker(void)
{
    tu_case("lattice box");
    cr_model *m = parse("lattice: {kind: fcc, count: [4, 4, 4], radius: 0.01, density: 7800,\n"
                        "  box: {size: [0.2, 0.1, 0.1]},\n"
                        "  striker: {face: x-, speed: 1.5, gap: 0.002}}\n"
                        "contact: {material: {E: 2.0e11, nu: 0.3}}\n");
    CHECK(m && cr_model_plane_count(m) == 5, "box without a lid: 5 walls");
    if (!m)
        return;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 1; i < cr_model_body_count(m); i++) {
        double x[3];
        cr_model_get_body(m, i, x, NULL);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], x[k]);
            hi[k] = fmax(hi[k], x[k]);
        }
    }
    double xs[3], vs[3], E = 0, nu = 0;
    cr_model_get_body(m, 0, xs, vs);
    CHECK_REL(lo[2], 0.01, 1e-12, "the bottom layer touches the floor (z = r)");
    CHECK_REL(0.5 * (lo[0] + hi[0]), 0.1, 1e-12, "block centred in x");
    CHECK_REL(xs[0], lo[0] - 0.01 - 0.002 - 0.01, 1e-12, "striker gap from the x- tangent plane");
    CHECK_REL(xs[1], 0.5 * (lo[1] + hi[1]), 1e-12, "striker on the face's centre line");
    CHECK(vs[0] == 1.5 && vs[1] == 0 && vs[2] == 0, "striker moves +x at its speed");
    CHECK(cr_model_plane_material(m, 0, &E, &nu) && E == 2.0e11, "box walls take contact.material");
    cr_model_destroy(m);
}

/* cr_modelfile_explicit_bodies: the text reads back to the same bodies and walls. */
static void explicit_round_trip(void)
{
    tu_case("explicit bodies");
    const char *text = "name: rt\nlattice: {kind: cubic, count: [3, 2, 2], radius: 0.01,\n"
                       "  density: 7800, gap: 0.001, box: {size: [0.1, 0.1, 0.1], lid: true},\n"
                       "  jitter: {distribution: normal, size: 1.0e-4, seed: 9}}\n"
                       "walls: [{normal: [1, 1, 0], offset: -1}]\n"
                       "fields: {gravity: [0, 0, -9.81]}\n"
                       "contact: {material: {E: 2.0e11, nu: 0.3}, restitution: 0.5}\n"
                       "integration: {t_end: 0.1}\n";
    cr_model *m = parse(text), *back = NULL;
    char *out = NULL;
    CHECK(m && cr_modelfile_explicit_bodies(text, strlen(text), "rt.yaml", m, NULL, NULL,
                                            "# test\n", &out, msg, sizeof msg) == CR_OK,
          "explicit_bodies writes");
    if (out)
        back = parse(out);
    CHECK(back != NULL, "the written text parses");
    if (m && back) {
        int same = cr_model_body_count(m) == cr_model_body_count(back) &&
                   cr_model_plane_count(m) == cr_model_plane_count(back);
        for (size_t i = 0; same && i < cr_model_body_count(m); i++) {
            double a[3], b[3];
            cr_model_get_body(m, i, a, NULL);
            cr_model_get_body(back, i, b, NULL);
            same = memcmp(a, b, sizeof a) == 0 && cr_model_mass(m, i) == cr_model_mass(back, i) &&
                   cr_model_radius(m, i) == cr_model_radius(back, i);
        }
        for (size_t w = 0; same && w < cr_model_plane_count(m); w++) {
            double a[3], b[3], oa, ob;
            cr_model_get_plane(m, w, a, &oa);
            cr_model_get_plane(back, w, b, &ob);
            same = memcmp(a, b, sizeof a) == 0 && oa == ob;
        }
        CHECK_SELF(same, "bodies (bit for bit) and the 6 + 1 walls read back the same");
    }
    free(out);
    cr_model_destroy(m);
    cr_model_destroy(back);
}

/* A fixed sphere and a moving one: `fixed: true` and the velocity come back. */
static void explicit_fixed(void)
{
    tu_case("explicit bodies, fixed");
    const char *text = "dim: 3\nbodies:\n  - {fixed: true, radius: 0.01, x: [0, 0, 0]}\n"
                       "  - {mass: 0.03, radius: 0.01, x: [0.03, 0, 0], v: [-1, 0.5, 0]}\n"
                       "contact: {K: 1.0e9}\n";
    cr_model *m = parse(text), *back = NULL;
    char *out = NULL;
    if (m && cr_modelfile_explicit_bodies(text, strlen(text), "f.yaml", m, NULL, NULL, NULL, &out,
                                          msg, sizeof msg) == CR_OK)
        back = parse(out);
    double v0[3], v1[3];
    int same = back && cr_model_is_fixed(back, 0) && !cr_model_is_fixed(back, 1);
    if (same) {
        cr_model_get_body(m, 1, NULL, v0);
        cr_model_get_body(back, 1, NULL, v1);
        same = memcmp(v0, v1, sizeof v0) == 0;
    }
    CHECK_SELF(same, "a fixed sphere stays fixed, a moving one keeps its velocity");
    free(out);
    cr_model_destroy(m);
    cr_model_destroy(back);
}

/* Each refusal: CR_ERR_MODEL, one line naming gen.yaml, the line and the field. */
static void refused(const char *text, const char *where, const char *field)
{
    cr_model *m = NULL;
    int rc = cr_modelfile_parse(text, strlen(text), "gen.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, where) && strstr(msg, field) &&
              !strchr(msg, '\n'),
          "refused with %s %s: %s", where, field, msg);
    cr_model_destroy(m);
}

static void refusals(void)
{
    tu_case("refusals");
    const char *tail = "contact: {K: 1.0e9}\n";
    char t[512];
#define REFUSE(body, where, field)                                                                 \
    do {                                                                                           \
        snprintf(t, sizeof t, "%s%s", body, tail);                                                 \
        refused(t, where, field);                                                                  \
    } while (0)
    REFUSE("lattice: {kind: cubic, count: [4, 4, 4], radius: 0.01, mass: 1,\n"
           "  box: {size: [0.05, 0.1, 0.1]}}\n",
           "gen.yaml:2:", "lattice.box.size");
    REFUSE("lattice: {kind: cubic, count: [4, -1, 4], radius: 0.01, mass: 1}\n",
           "gen.yaml:1:", "lattice.count");
    REFUSE("lattice:\n  kind: cubic\n  count: [3, 3, 3]\n  radius: 0.01\n  mass: 1\n"
           "  jitter: {distribution: uniform, size: 0.001, seed: 1}\n",
           "gen.yaml:6:", "lattice.jitter");
    REFUSE("lattice: {kind: cubic, count: [3, 3, 3], radius: 0.01, mass: 1, spacing: 0.015}\n",
           "gen.yaml:1:", "lattice.spacing");
    REFUSE("lattice:\n  kind: random\n  count: 200\n  radius: 0.01\n  mass: 1\n"
           "  box: {size: [0.1, 0.1, 0.1]}\n",
           "gen.yaml:3:", "lattice.count");
    /* the work bound: 1000 draws per sphere + 10^6 */
    REFUSE("lattice:\n  kind: random\n  count: 2\n  radius: 0.01\n  mass: 1\n"
           "  box: {size: [0.1, 0.1, 0.1]}\n  attempts: 2e6\n",
           "gen.yaml:7:", "lattice.attempts");
    REFUSE("lattice: {kind: hexagonal, count: 3, radius: 0.01, mass: 1}\n",
           "gen.yaml:1:", "lattice.kind");
    REFUSE("sphere_triple: {radius: 0.01, mass: 1, target_gap: 0.02}\n",
           "gen.yaml:1:", "sphere_triple.target_gap");
    REFUSE("dim: 2\nsphere_triple: {radius: 0.01, mass: 1}\n", "gen.yaml:1:", "dim");
#undef REFUSE
}

int main(void)
{
    sphere_triple();
    triple_run();
    block("cubic", 6, sqrt(2.0));
    block("fcc", 12, sqrt(2.0));
    tetrahedral();
    jitter();
    box_and_striker();
    random_insertion();
    explicit_round_trip();
    explicit_fixed();
    refusals();
    return tu_finish("test-lattice");
}
