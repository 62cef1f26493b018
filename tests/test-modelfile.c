/* Model files: the schema of docs/model-format.md, and one-line errors that
 * name file, line and field for every kind of bad input. */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

static char msg[1024];

static cr_model *load(const char *name, int expect_rc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CR_TEST_DATA, name);
    cr_model *model = NULL;
    msg[0] = '\0';
    tu_case("%s", name); /* the checks on this file that follow, too */
    int rc = cr_modelfile_load(path, &model, NULL, msg, sizeof msg);
    CHECK(rc == expect_rc, "%s: rc %d (%s), expected %d; message: %s", name, rc, cr_strerror(rc),
          expect_rc, msg);
    if (expect_rc != CR_OK)
        CHECK(model == NULL, "%s: no model on failure", name);
    return model;
}

/* The message is one line, names the file, the line and the field. */
static void expect_message(const char *file, const char *line_tag, const char *field)
{
    tu_case("message of %s: %s", file, field ? field : "");
    printf("     %s\n", msg);
    CHECK(strchr(msg, '\n') == NULL, "one line");
    CHECK(strstr(msg, file) != NULL, "names the file %s: %s", file, msg);
    if (line_tag)
        CHECK(strstr(msg, line_tag) != NULL, "names the line '%s': %s", line_tag, msg);
    if (field)
        CHECK(strstr(msg, field) != NULL, "names the field '%s': %s", field, msg);
}

/* Hertz K = (4/3) E* √R*, 1/E* = Σ (1 − ν²)/E, 1/R* = Σ 1/R (a flat: R = ∞). */
static double hertz_k(double E1, double nu1, double R1, double E2, double nu2, double R2)
{
    double Es = 1.0 / ((1 - nu1 * nu1) / E1 + (1 - nu2 * nu2) / E2);
    double Rs = isinf(R2) ? R1 : R1 * R2 / (R1 + R2);
    return 4.0 / 3.0 * Es * sqrt(Rs);
}

/* three_disc (src/model/modelfile-pool.c) places the pool of Acary & Taha sect. 4
 * from theta and tau: the same model as the hand-written pool-theta-tau.yaml,
 * bit for bit; and one clear line for a disc 1 that would overlap disc 3. */
static void three_disc(void)
{
    cr_model *g = load("three-disc.yaml", CR_OK);
    cr_model *h = load("../../models/pool-theta-tau.yaml", CR_OK);
    if (g && h) {
        CHECK(cr_model_dimension(g) == 2 && cr_model_body_count(g) == 3, "three_disc: 3 discs");
        int same = cr_model_body_count(g) == cr_model_body_count(h);
        for (size_t i = 0; same && i < cr_model_body_count(g); i++) {
            double xg[2], vg[2], xh[2], vh[2];
            cr_model_get_body(g, i, xg, vg);
            cr_model_get_body(h, i, xh, vh);
            same = memcmp(xg, xh, sizeof xg) == 0 && memcmp(vg, vh, sizeof vg) == 0 &&
                   cr_model_mass(g, i) == cr_model_mass(h, i) &&
                   cr_model_radius(g, i) == cr_model_radius(h, i);
            if (!same)
                printf("     disc %zu: (%.17g, %.17g) v (%.17g, %.17g) against (%.17g, %.17g) v "
                       "(%.17g, %.17g)\n",
                       i, xg[0], xg[1], vg[0], vg[1], xh[0], xh[1], vh[0], vh[1]);
        }
        CHECK(same, "three_disc at theta = pi/4, tau = 0 is models/pool-theta-tau.yaml exactly");
        cr_contact_params pg, ph;
        cr_model_pair_law(g, 0, 1, &pg);
        cr_model_pair_law(h, 0, 1, &ph);
        CHECK(pg.K == ph.K && pg.n == ph.n, "same contact law");
    }
    cr_model_destroy(g);
    cr_model_destroy(h);
    cr_model_destroy(load("three-disc-bad.yaml", CR_ERR_MODEL));
    expect_message("three-disc-bad.yaml", ":3:", "three_disc.theta");
}

/* Pools are dim-2 models of the same schema. */
static void pool_models(void)
{
    cr_model *m = load("pool-good.yaml", CR_OK);
    if (!m)
        return;
    CHECK(cr_model_dimension(m) == 2 && cr_model_body_count(m) == 3, "dim 2, 3 bodies");
    double x[2], v[2];
    cr_model_get_body(m, 0, x, v);
    CHECK(x[0] == 0.0 && x[1] == 0.05 && v[0] == 1.0 && v[1] == 0.0, "x: [x, y], v: [vx, vy]");
    cr_model_get_body(m, 2, x, v);
    CHECK(x[0] == 0.1 && v[0] == 0.0 && v[1] == 0.0, "v defaults to [0, 0]");
    /* per-disc materials with unequal radii: K per pair from both radii */
    cr_contact_params p;
    cr_model_pair_law(m, 0, 1, &p);
    CHECK_REL(p.K, hertz_k(2.1e11, 0.3, 0.01, 7.0e10, 0.33, 0.005), 1e-12,
              "steel r 10 mm / aluminium r 5 mm: (4/3) E* sqrt(R*)");
    CHECK(p.n == 1.5 && p.release == CR_RELEASE_FORCE && p.C == 0.0,
          "Hertz, the default's release, C to be solved");
    cr_model_pair_law(m, 2, 1, &p);
    CHECK_REL(p.K, hertz_k(7.0e10, 0.33, 0.005, 2.1e11, 0.3, 0.02), 1e-12,
              "aluminium r 5 mm / steel r 20 mm: (4/3) E* sqrt(R*)");
    cr_model_pair_law(m, 0, 2, &p);
    CHECK(p.K == 5.0e9 && p.n == 1.5 && p.release == CR_RELEASE_FORCE,
          "pair [2, 0]: its own K, the rest from the default");
    /* walls: a material (a flat of it), an own law */
    cr_model_pair_law(m, 0, CR_WALL_BODY(0), &p);
    CHECK_REL(p.K, hertz_k(2.1e11, 0.3, 0.01, 2.0e11, 0.29, INFINITY), 1e-12,
              "disc on a wall of its own material: R* = r");
    cr_model_pair_law(m, 1, CR_WALL_BODY(1), &p);
    CHECK(p.K == 1.0e9 && p.n == 1.5 && p.C == 0.0, "the wall's own law");
    double nrm[2], off;
    cr_model_get_plane(m, 0, nrm, &off);
    CHECK(cr_model_plane_count(m) == 2 && nrm[0] == 0.0 && nrm[1] == 1.0 && off == 0.0,
          "walls: normal and offset");
    double g[2];
    cr_model_get_gravity_vector(m, g);
    CHECK(g[0] == 0.0 && g[1] == -9.81 && cr_model_has_fields(m), "gravity as a vector");
    double e, vr;
    CHECK(cr_model_default_target(m, &e, &vr) && e == 0.9 && vr == 0.5, "restitution target");
    const cr_settings *st = cr_model_settings(m);
    CHECK(st->t_end == 0.05 && st->solver == CR_SOLVER_KLU && st->skin == 0.25 &&
              st->jacobian_floor == 1e-7 && st->output_interval == 1e-4,
          "pool settings and output honoured");
    CHECK(cr_model_validate(m, msg, sizeof msg) == CR_ERR_MODEL, "uncalibrated refused: %s", msg);
    CHECK(cr_calibrate_model(m, msg, sizeof msg) == CR_OK, "calibrate: %s", msg);
    cr_model_pair_law(m, 0, 1, &p);
    cr_contact_params pw;
    cr_model_pair_law(m, 1, CR_WALL_BODY(1), &pw);
    CHECK(p.C > 0.0 && pw.C > 0.0 && cr_model_validate(m, msg, sizeof msg) == CR_OK,
          "calibrated: C = %g (discs 0-1), %g (disc 1, wall 1): %s", p.C, pw.C, msg);
    cr_model_destroy(m);

    /* the older layout: discs with x, y, vx, vy */
    m = load("pool-discs.yaml", CR_OK);
    if (m) {
        cr_model_get_body(m, 0, x, v);
        CHECK(cr_model_dimension(m) == 2 && x[1] == 0.5 && v[0] == 1.0 && v[1] == -0.5,
              "discs layout = dim-2 bodies");
        cr_model_get_plane(m, 0, nrm, &off);
        CHECK(nrm[1] == 1.0 && off == 0.0, "wall normal made unit");
        cr_model_pair_law(m, 0, 1, &p);
        CHECK(p.K == 1e8 && p.C == 10.0 && p.m == 0.5, "one law for every pair");
    }
    cr_model_destroy(m);
    /* Hertz from materials keeps the default's damping (Hunt–Crossley m = n here) */
    static const char hc[] = "dim: 2\nbodies:\n  - {mass: 1, radius: 0.1, x: [0, 0]}\n"
                             "  - {mass: 1, radius: 0.2, x: [0.5, 0]}\n"
                             "contact: {material: {E: 2e11, nu: 0.3}, C: 5, m: 1.5}\n";
    CHECK(cr_modelfile_parse(hc, strlen(hc), "hc.yaml", &m, msg, sizeof msg) == CR_OK, "%s", msg);
    if (m) {
        cr_model_pair_law(m, 0, 1, &p);
        CHECK_REL(p.K, hertz_k(2e11, 0.3, 0.1, 2e11, 0.3, 0.2), 1e-12,
                  "radii 0.1 and 0.2 m: (4/3) E* sqrt(R*)");
        CHECK(p.C == 5.0 && p.m == 1.5, "the default's C and m kept (C %g, m %g)", p.C, p.m);
    }
    cr_model_destroy(m);
    char path[512];
    snprintf(path, sizeof path, "%s/../../models/pool-bernoulli.yaml", CR_TEST_DATA);
    CHECK(cr_modelfile_load(path, &m, NULL, msg, sizeof msg) == CR_OK, "pool-bernoulli: %s", msg);
    if (m) {
        cr_model_pair_law(m, 0, CR_WALL_BODY(0), &p);
        CHECK_REL(p.K, hertz_k(2.1e11, 0.3, 0.01, 2.1e11, 0.3, INFINITY), 1e-12,
                  "contact.material: the wall is a flat of it");
    }
    cr_model_destroy(m);
}

/* Every pool error names file, line and field. */
static void bad_pool(const char *text, const char *line_tag, const char *field, const char *why)
{
    cr_model *x = NULL;
    tu_case("bad pool: %s", field);
    int rc = cr_modelfile_parse(text, strlen(text), "pool.yaml", &x, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && x == NULL, "refused with CR_ERR_MODEL (rc %d): %s", rc, msg);
    cr_model_destroy(x);
    expect_message("pool.yaml", line_tag, field);
    CHECK(strstr(msg, why) != NULL, "says why ('%s'): %s", why, msg);
}

static void pool_errors(void)
{
    load("pool-overlap.yaml", CR_ERR_MODEL);
    expect_message("pool-overlap.yaml", ":6:", "bodies[2].x");
    CHECK(strstr(msg, "interpenetrates disc 0") != NULL, "names the other disc: %s", msg);
    load("pool-outside.yaml", CR_ERR_MODEL);
    expect_message("pool-outside.yaml", ":7:", "walls[1]");
    CHECK(strstr(msg, "disc 0 lies outside") != NULL, "names the disc: %s", msg);
    load("pool-normal.yaml", CR_ERR_MODEL);
    expect_message("pool-normal.yaml", ":6:", "walls[0].normal");
    CHECK(strstr(msg, "non-zero") && !strstr(msg, "check failed"), "a proper reason: %s", msg);

    const char *head = "dim: 2\nbodies:\n  - {mass: 1, radius: 0.1, x: [0, 0], v: [1, 0]}\n";
    char text[1024];
    snprintf(text, sizeof text, "%s  - {mass: -1, radius: 0.1, x: [1, 0]}\n", head);
    bad_pool(text, ":4:", "bodies[1].mass", "must be positive (got -1)");
    snprintf(text, sizeof text, "%s  - {mass: 1, radius: 0.1, x: [1]}\n", head);
    bad_pool(text, ":4:", "bodies[1].x", "two numbers");
    snprintf(text, sizeof text,
             "%s  - {mass: 1, radius: 0.1, x: [1, 0], material: {E: 1e9, nu: 0.7}}\n", head);
    bad_pool(text, ":4:", "bodies[1].material.nu", "(-1, 0.5)");
    snprintf(text, sizeof text, "%sfields:\n  pendulum: {length: 0.2}\nintegration: {t_end: 1}\n",
             head);
    bad_pool(text, ":5:", "fields.pendulum", "not available in dim 2");
    snprintf(text, sizeof text, "%sfields: {gravity: -9.81}\nintegration: {t_end: 1}\n", head);
    bad_pool(text, ":4:", "fields.gravity", "two numbers");
    snprintf(text, sizeof text, "%sfields: {gravity: [0, -9.81]}\n", head);
    bad_pool(text, ":4:", "integration.t_end", "give an end time");
    snprintf(text, sizeof text, "%scontact:\n  K: 1e9\n  pairs:\n    - {between: [0, 3], K: 1e8}\n",
             head);
    bad_pool(text, ":7:", "contact.pairs[0].between", "two different bodies");
    snprintf(text, sizeof text,
             "%s  - {mass: 1, radius: 0.1, x: [1, 0]}\ncontact:\n  K: 1e9\n  pairs:\n"
             "    - {between: [0, 1], restitution: 0.5}\n",
             head);
    bad_pool(text, ":8:", "contact.pairs[0].restitution", "every pair without C");
    snprintf(text, sizeof text, "%swalls:\n  - {normal: [1, 0], offset: -1, contact: {K: -5}}\n",
             head);
    bad_pool(text, ":5:", "walls[0].contact.K", "must be positive (got -5)");
    snprintf(text, sizeof text,
             "%scontact: {material: {E: 2e11, nu: 0.3}}\nwalls:\n  - {normal: [1, 0], offset: -1, "
             "contact: {C: 5}}\n",
             head);
    bad_pool(text, ":6:", "walls[0].contact", "K is needed");
    bad_pool("dim: 2\nballs:\n  - {mass: 1, radius: 0.1, x: 0}\n", ":1:", "dim", "dimension 1");
    bad_pool("dim: 2\nchain: {count: 2, mass: 1, radius: 0.1}\n", ":1:", "dim", "dimension 1");
    snprintf(text, sizeof text, "%slinks:\n  - {between: [0, 1], k: 1}\n", head);
    bad_pool(text, ":5:", "links", "dim 1");
    snprintf(text, sizeof text, "%sintegration: {solver: fast}\n", head);
    bad_pool(text, ":4:", "integration.solver", "auto, klu or gmres");
    bad_pool("balls:\n  - {mass: 1, radius: 0.1, x: 0}\nintegration: {skin: 0.3}\n",
             ":3:", "integration.skin", "dim 2");
    bad_pool("balls:\n  - {mass: 1, radius: 0.1, x: 0}\nwalls:\n  - {normal: [1, 0], offset: 0}\n",
             ":4:", "walls", "dim 2");
}

int main(void)
{
    /* good files */
    cr_model *m = load("two-balls.yaml", CR_OK);
    if (m) {
        CHECK(cr_model_ball_count(m) == 2, "2 balls");
        const cr_contact_params *p = cr_model_contact(m, 0);
        CHECK(p->K == 1e6 && p->n == 1.0 && p->C == 20.0 && p->m == 0.0, "law parsed");
        CHECK(p->release == CR_RELEASE_FORCE, "release parsed");
        const cr_settings *s = cr_model_settings(m);
        CHECK(s->t_end == 0.01 && s->rtol == 1e-11 && s->atol == 1e-13, "settings parsed");
        CHECK(s->method == CR_METHOD_ADAMS && s->output_interval == 1e-4, "method, output");
        CHECK(strcmp(cr_model_name(m), "two-balls") == 0, "name");
        CHECK_REL(cr_model_initial_overlap(m, 0), -1e-4, 1e-9, "gap 0.1 mm from positions");
    }
    cr_model_destroy(m);

    m = load("chain-pairs.yaml", CR_OK);
    if (m) {
        CHECK(cr_model_ball_count(m) == 4, "chain generator count");
        CHECK(cr_model_velocity(m, 0) == 0.5 && cr_model_velocity(m, 1) == 0.5 &&
                  cr_model_velocity(m, 2) == 0.0,
              "two strikers");
        CHECK(cr_model_initial_overlap(m, 0) == 0.0, "strikers touch each other exactly");
        CHECK_REL(cr_model_initial_overlap(m, 1), -0.001, 1e-9, "striker gap");
        CHECK(cr_model_initial_overlap(m, 2) == 0.0, "resting balls touch exactly");
        CHECK(cr_model_position(m, 0) == 0.1, "x0");
        /* Hertz K from the material, R = 5 mm: 4/3 E/(2(1-nu^2)) sqrt(2.5 mm) */
        CHECK_REL(cr_model_contact(m, 0)->K, 4.0 / 3.0 * 2.1e11 / 1.82 * sqrt(0.0025), 1e-12,
                  "Hertz K from material");
        CHECK(cr_model_contact(m, 0)->n == 1.5, "material implies n = 3/2");
        const cr_contact_params *p = cr_model_contact(m, 1);
        CHECK(p->K == 1e8 && p->C == 5.0 && p->m == 0.5, "per-pair override");
    }
    cr_model_destroy(m);

    /* the default model ships with the sources */
    char path[512];
    snprintf(path, sizeof path, "%s/../../models/newton-cradle-5.yaml", CR_TEST_DATA);
    cr_model *def = NULL;
    CHECK(cr_modelfile_load(path, &def, NULL, msg, sizeof msg) == CR_OK, "default: %s", msg);
    CHECK(def && cr_model_ball_count(def) == 5, "5 balls");
    cr_model_destroy(def);

    /* walls, gravity, rods and pendulums from the example models */
    cr_model *mm = NULL;
    snprintf(path, sizeof path, "%s/../../models/bead-column.yaml", CR_TEST_DATA);
    CHECK(cr_modelfile_load(path, &mm, NULL, msg, sizeof msg) == CR_OK, "bead column: %s", msg);
    if (mm) {
        CHECK(cr_model_ball_count(mm) == 11 && cr_model_is_fixed(mm, 0) &&
                  !cr_model_is_fixed(mm, 1),
              "a floor wall and 10 beads");
        CHECK(cr_model_gravity(mm) == -9.81, "gravity");
        CHECK_REL(cr_model_initial_overlap(mm, 0), -1e-4, 1e-9, "wall gap 0.1 mm");
        /* Hertz with a flat: R* = R */
        CHECK_REL(cr_model_contact(mm, 0)->K, 4.0 / 3.0 * 2.1e11 / 1.82 * sqrt(0.005), 1e-12,
                  "Hertz K against a wall: R* = R");
    }
    cr_model_destroy(mm);
    snprintf(path, sizeof path, "%s/../../models/glocker-rods.yaml", CR_TEST_DATA);
    CHECK(cr_modelfile_load(path, &mm, NULL, msg, sizeof msg) == CR_OK, "rods: %s", msg);
    if (mm) {
        int links = 0;
        for (size_t c = 0; c < cr_model_contact_count(mm); c++)
            links += cr_model_link(mm, c) != NULL;
        CHECK(cr_model_ball_count(mm) == 48 && links == 46, "16 + 32 elements, 46 links");
        CHECK(!cr_model_link(mm, 15) && cr_model_contact_enabled(mm, 15) &&
                  !cr_model_contact_enabled(mm, 14),
              "contact only between the rods");
        CHECK_REL(cr_model_link(mm, 0)->k, 16.0, 1e-12, "k = EA/dx");
        CHECK(cr_model_initial_overlap(mm, 15) == 0.0, "rods touch");
    }
    cr_model_destroy(mm);
    snprintf(path, sizeof path, "%s/../../models/pendulum-cradle.yaml", CR_TEST_DATA);
    CHECK(cr_modelfile_load(path, &mm, NULL, msg, sizeof msg) == CR_OK, "pendulums: %s", msg);
    if (mm) {
        double pivot, length, g;
        CHECK(cr_model_pendulum(mm, 0, &pivot, &length, &g) && pivot == 0.0 && length == 0.2,
              "striker pivot and length");
        CHECK_REL(cr_model_position(mm, 0), -0.2 * 0.2, 1e-12, "lifted by 0.2 rad (arc)");
        CHECK(cr_model_pendulum(mm, 3, &pivot, &length, &g) && pivot == cr_model_position(mm, 3),
              "resting balls hang at their pivots");
        CHECK(cr_model_initial_overlap(mm, 1) == 0.0, "resting balls touch");
    }
    cr_model_destroy(mm);

    /* a restitution target: C is solved by cr_calibrate_model, not before */
    snprintf(path, sizeof path, "%s/../../models/damped-cradle.yaml", CR_TEST_DATA);
    CHECK(cr_modelfile_load(path, &mm, NULL, msg, sizeof msg) == CR_OK, "damped cradle: %s", msg);
    if (mm) {
        double e, v;
        CHECK(cr_model_contact_target(mm, 2, &e, &v) && e == 0.9 && v == 1.0, "target read");
        CHECK(cr_model_validate(mm, msg, sizeof msg) == CR_ERR_MODEL, "uncalibrated refused");
        CHECK(cr_calibrate_model(mm, msg, sizeof msg) == CR_OK, "%s", msg);
        CHECK(cr_model_contact(mm, 2)->C > 0 && cr_model_validate(mm, msg, sizeof msg) == CR_OK,
              "calibrated: C = %g", cr_model_contact(mm, 2)->C);
    }
    cr_model_destroy(mm);

    /* bad input */
    load("does-not-exist.yaml", CR_ERR_IO);
    expect_message("does-not-exist.yaml", NULL, "cannot open");

    load("bad-syntax.yaml", CR_ERR_SYNTAX);
    expect_message("bad-syntax.yaml", ":4:", "syntax");

    load("negative-mass.yaml", CR_ERR_MODEL);
    expect_message("negative-mass.yaml", ":4:", "balls[1].mass");

    load("missing-field.yaml", CR_ERR_MODEL);
    expect_message("missing-field.yaml", ":7:", "balls[1].radius");

    load("overlap.yaml", CR_ERR_MODEL);
    expect_message("overlap.yaml", ":4:", "balls[1].x");
    CHECK(strstr(msg, "interpenetrates") != NULL, "says why: %s", msg);

    load("unknown-field.yaml", CR_ERR_MODEL);
    expect_message("unknown-field.yaml", ":3:", "contact.damping");

    load("link-missing.yaml", CR_ERR_MODEL);
    expect_message("link-missing.yaml", ":6:", "links[0].between");

    load("fields-no-end.yaml", CR_ERR_MODEL);
    expect_message("fields-no-end.yaml", ":5:", "integration.t_end");

    load("wall-cuts.yaml", CR_ERR_MODEL);
    expect_message("wall-cuts.yaml", ":4:", "balls[1].x");

    /* inline text: syntax errors carry the line too */
    static const char bad_number[] = "chain:\n  count: 3\n  mass: heavy\n  radius: 0.01\n";
    cr_model *x = NULL;
    CHECK(cr_modelfile_parse(bad_number, strlen(bad_number), "inline.yaml", &x, msg, sizeof msg) ==
              CR_ERR_MODEL,
          "non-number refused");
    expect_message("inline.yaml", ":3:", "chain.mass");
    static const char zero_radius[] = "chain: {count: 2, mass: 1, radius: 0}\n";
    CHECK(cr_modelfile_parse(zero_radius, strlen(zero_radius), "inline.yaml", &x, msg,
                             sizeof msg) == CR_ERR_MODEL,
          "zero radius refused");
    expect_message("inline.yaml", ":1:", "radius");
    pool_models();
    three_disc();
    pool_errors();
    return tu_finish("test-modelfile");
}
