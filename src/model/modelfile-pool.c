/*
 * The `three_disc` body list of a model file (docs/model-format.md): the
 * planar three-disc pool of Acary & Taha 2005 sect. 4 (seed paper 001) from
 * its angles, so that a sweep can vary θ and τ as fields. Disc 2 sits at the
 * origin and touches disc 3 at (2r, 0); disc 1 strikes disc 2 along the line
 * of centres at angle θ with a velocity turned by τ from it:
 *   x1 = −(2r + gap)(cos θ, sin θ),  v1 = speed (cos(θ − τ), sin(θ − τ)),
 * the placement of models/pool-theta-tau.yaml (which it reproduces bit for bit).
 */
#include <math.h>

#include "model/model-priv.h"

#define TD_HALF_PI 1.57079632679489661923

/* Disc 1 must clear disc 3 at the start: |x1 − x3| ≥ 2r, i.e.
 * cos θ ≥ −(2r + gap)/(4r) (θ = 2π/3 and gap 0: all three touch). */
static int clears_disc3(double r, double d, double theta)
{
    double dx = -d * cos(theta) - 2.0 * r, dy = -d * sin(theta);
    return hypot(dx, dy) >= 2.0 * r * (1.0 - CR_GEOM_TOL);
}

int cr_modelfile_three_disc(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model)
{
    static const char *const keys[] = {"theta",  "tau",   "mass", "density",
                                       "radius", "speed", "gap",  NULL};
    const char *w = "three_disc";
    double theta = 0, tau = 0, mass = 0, radius = 0, speed = 1, gap = 0;
    int line = cr_yaml_line(map);
    if (cr_yaml_need_map(ps, map, line, w) || cr_yaml_check_keys(ps, map, w, keys) ||
        cr_yaml_number(ps, map, line, w, "theta", 1, 0, &theta) ||
        cr_yaml_number(ps, map, line, w, "tau", 0, 0, &tau) ||
        cr_yaml_number(ps, map, line, w, "radius", 1, 0, &radius) ||
        cr_yaml_number(ps, map, line, w, "speed", 0, 0, &speed) ||
        cr_yaml_number(ps, map, line, w, "gap", 0, 0, &gap) ||
        cr_yaml_positive(ps, map, w, "radius", radius) ||
        cr_modelfile_mass(ps, map, w, radius, &mass) ||
        cr_yaml_positive(ps, map, w, "speed", speed))
        return ps->rc;
    if (gap < 0)
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "gap"), "three_disc.gap",
                            "must be zero or positive (got %g)", gap);
    if (!(fabs(tau) < TD_HALF_PI))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "tau"), "three_disc.tau",
                            "disc 1 must approach disc 2: |tau| < pi/2 (got %g)", tau);
    double d = 2.0 * radius + gap;
    if (!clears_disc3(radius, d, theta))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "theta"), "three_disc.theta",
                            "disc 1 would overlap disc 3: need cos(theta) >= "
                            "-(2 radius + gap)/(4 radius), about theta <= 2 pi/3 (got %g)",
                            theta);
    double x[3][2] = {{-d * cos(theta), -d * sin(theta)}, {0.0, 0.0}, {2.0 * radius, 0.0}};
    double v1[2] = {speed * cos(theta - tau), speed * sin(theta - tau)}, rest[2] = {0.0, 0.0};
    const cr_body_keys bk = {"mass", "radius", {NULL, NULL, NULL}, {"speed", "speed", NULL},
                             NULL,   NULL};
    double speed_only[2] = {speed, 0.0}; /* the speed given, not its components */
    if (cr_modelfile_body_in_range(ps, map, w, &bk, mass, radius, x[0], speed_only, 2))
        return ps->rc;
    for (int i = 0; i < 3; i++) {
        if (cr_modelfile_body_in_range(ps, map, w, &bk, mass, radius, x[i], rest, 2))
            return ps->rc;
        int rc = cr_model_add_body(model, mass, radius, x[i], i == 0 ? v1 : rest);
        if (rc < 0) {
            ps->rc = rc;
            cr_set_msg(ps->msg, ps->msglen, "%s: %s", ps->file, cr_strerror(rc));
            return rc;
        }
    }
    return CR_OK;
}
