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
    int rc = cr_modelfile_load(path, &model, NULL, msg, sizeof msg);
    CHECK(rc == expect_rc, "%s: rc %d (%s), expected %d; message: %s", name, rc,
          cr_strerror(rc), expect_rc, msg);
    if (expect_rc != CR_OK)
        CHECK(model == NULL, "%s: no model on failure", name);
    return model;
}

/* The message is one line, names the file, the line and the field. */
static void expect_message(const char *file, const char *line_tag, const char *field)
{
    printf("     %s\n", msg);
    CHECK(strchr(msg, '\n') == NULL, "one line");
    CHECK(strstr(msg, file) != NULL, "names the file %s: %s", file, msg);
    if (line_tag)
        CHECK(strstr(msg, line_tag) != NULL, "names the line '%s': %s", line_tag, msg);
    if (field)
        CHECK(strstr(msg, field) != NULL, "names the field '%s': %s", field, msg);
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
        CHECK(cr_model_ball_count(mm) == 11 && cr_model_is_fixed(mm, 0) && !cr_model_is_fixed(mm, 1),
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
        CHECK(cr_model_contact(mm, 2)->C > 0 &&
                  cr_model_validate(mm, msg, sizeof msg) == CR_OK,
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
    CHECK(cr_modelfile_parse(bad_number, strlen(bad_number), "inline.yaml", &x, msg,
                             sizeof msg) == CR_ERR_MODEL,
          "non-number refused");
    expect_message("inline.yaml", ":3:", "chain.mass");
    static const char zero_radius[] = "chain: {count: 2, mass: 1, radius: 0}\n";
    CHECK(cr_modelfile_parse(zero_radius, strlen(zero_radius), "inline.yaml", &x, msg,
                             sizeof msg) == CR_ERR_MODEL,
          "zero radius refused");
    expect_message("inline.yaml", ":1:", "radius");
    return tu_finish("test-modelfile");
}
