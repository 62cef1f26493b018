/*
 * The `clumps` body list of a model file (docs/model-format.md, "Rigid
 * bodies"): planar rigid bodies (x, y, θ), each a clump of discs fixed in its
 * frame from a shape generator, with its mass and moment of inertia J about
 * its centre of mass (given, or what the shape gives):
 *   bar       `count` discs evenly along `length` (end centres ±length/2);
 *             mass: J = m length²/12 (a uniform slender bar);
 *             density: the discs as spheres, J = Σ mₖ sₖ² + (2/5) mₖ r²
 *   dumbbell  two discs at ±length/2 (radius, and radius2 for the second,
 *             default radius), spheres of mass m/2 each (or from density,
 *             equal radii only): J = m length²/4 + (m/5)(r² + r2²);
 *             `rod_mass` adds a uniform rod, m_rod length²/12
 *   rectangle discs at the corners (±width/2, ±height/2); mass: J = m (width²
 *             + height²)/12 (a uniform plate); density: four spheres
 *   discs     `features: [{x: [bx, by], radius}]` in the body frame, the centre
 *             of mass at its origin; needs mass and inertia
 * `inertia` overrides the shape's J. An entry {fixed: true, x, features}
 * adds fixed discs (supports) at x + bx instead, outside every clump, and
 * {shape: disc, radius, mass | density, x, v} a plain disc (no rotation). Each feature is a model
 * body at its lab position x + R(θ) s with velocity v + ω × R(θ) s.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model-priv.h"
#include "model/model.h"

#define BD_PI 3.14159265358979323846
#define BD_MAX_FEATURES 4096

typedef struct {
    const char *shape;
    double radius, radius2, length, width, height, rod_mass, mass, J;
    long count;
    double s[BD_MAX_FEATURES][2], fr[BD_MAX_FEATURES];
    size_t nf;
} clump_spec;

static int add_feature(clump_spec *c, double bx, double by, double r)
{
    if (c->nf >= BD_MAX_FEATURES)
        return -1;
    c->s[c->nf][0] = bx;
    c->s[c->nf][1] = by;
    c->fr[c->nf++] = r;
    return 0;
}

/* The discs of shape `discs`: each {x: [bx, by], radius > 0}. */
static int explicit_features(cr_yaml_ctx *ps, struct fy_node *map, const char *w, clump_spec *c)
{
    static const char *const keys[] = {"x", "radius", NULL};
    struct fy_node *seq = cr_yaml_child(map, "features");
    char f[128];
    snprintf(f, sizeof f, "%s.features", w);
    if (!seq || !fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, seq ? cr_yaml_line(seq) : cr_yaml_line(map), f,
                            "shape discs needs a non-empty list of {x: [bx, by], radius}");
    void *it = NULL;
    struct fy_node *e;
    int k = 0;
    while ((e = fy_node_sequence_iterate(seq, &it))) {
        char fw[160], xf[176];
        double r = 0, v[3];
        size_t got = 0;
        snprintf(fw, sizeof fw, "%s[%d]", f, k++);
        snprintf(xf, sizeof xf, "%s.x", fw);
        if (cr_yaml_need_map(ps, e, cr_yaml_line(seq), fw) || cr_yaml_check_keys(ps, e, fw, keys) ||
            cr_yaml_number(ps, e, cr_yaml_line(e), fw, "radius", 1, 0, &r) ||
            cr_yaml_positive(ps, e, fw, "radius", r))
            return ps->rc;
        struct fy_node *xn = cr_yaml_child(e, "x");
        if (!xn)
            return cr_yaml_fail(ps, cr_yaml_line(e), xf, "missing required field");
        if (cr_yaml_numbers(ps, xn, xf, v, 2, &got))
            return ps->rc;
        if (got != 2)
            return cr_yaml_fail(ps, cr_yaml_line(xn), xf, "needs two numbers [bx, by]");
        if (add_feature(c, v[0], v[1], r))
            return cr_yaml_fail(ps, cr_yaml_line(e), fw, "more than %d features", BD_MAX_FEATURES);
    }
    return CR_OK;
}

/* The sphere mass of one feature disc from `density` (as for balls). */
static double sphere_mass(double rho, double r)
{
    return rho * 4.0 / 3.0 * BD_PI * r * r * r;
}

/* Features and, unless given, mass and J of a generated shape. */
static int shape_features(cr_yaml_ctx *ps, struct fy_node *map, const char *w, clump_spec *c,
                          double rho)
{
    double r = c->radius, L = c->length, ms;
    int line = cr_yaml_line(map);
    char f[128];
    if (strcmp(c->shape, "bar") == 0) {
        if (cr_yaml_count_in(ps, map, line, w, "count", 1, 2, BD_MAX_FEATURES, &c->count))
            return ps->rc;
        ms = rho > 0 ? sphere_mass(rho, r) : c->mass / (double)c->count;
        double J = 0.0;
        for (long k = 0; k < c->count; k++) {
            double s = -0.5 * L + L * (double)k / (double)(c->count - 1);
            add_feature(c, s, 0.0, r);
            J += ms * (s * s + 0.4 * r * r);
        }
        if (rho > 0) {
            c->mass = ms * (double)c->count;
            c->J = J;
        } else
            c->J = c->mass * L * L / 12.0;
    } else if (strcmp(c->shape, "dumbbell") == 0) {
        double r2 = c->radius2 > 0.0 ? c->radius2 : r;
        if (rho > 0 && r2 != r)
            return cr_yaml_fail(ps, cr_yaml_key_line(map, "density"),
                                (snprintf(f, sizeof f, "%s.density", w), f),
                                "a dumbbell of two radii takes mass (its centre of mass is "
                                "midway), not density");
        add_feature(c, -0.5 * L, 0.0, r);
        add_feature(c, 0.5 * L, 0.0, r2);
        if (rho > 0)
            c->mass = 2.0 * sphere_mass(rho, r);
        c->J = c->mass * (0.25 * L * L + 0.2 * (r * r + r2 * r2)) + c->rod_mass * L * L / 12.0;
        c->mass += c->rod_mass;
    } else if (strcmp(c->shape, "rectangle") == 0) {
        double a = 0.5 * c->width, b = 0.5 * c->height;
        if (cr_yaml_number(ps, map, line, w, "width", 1, 0, &c->width) ||
            cr_yaml_positive(ps, map, w, "width", c->width) ||
            cr_yaml_number(ps, map, line, w, "height", 1, 0, &c->height) ||
            cr_yaml_positive(ps, map, w, "height", c->height))
            return ps->rc;
        a = 0.5 * c->width;
        b = 0.5 * c->height;
        add_feature(c, -a, -b, r);
        add_feature(c, a, -b, r);
        add_feature(c, a, b, r);
        add_feature(c, -a, b, r);
        if (rho > 0) {
            ms = sphere_mass(rho, r);
            c->mass = 4.0 * ms;
            c->J = 4.0 * ms * (a * a + b * b + 0.4 * r * r);
        } else
            c->J = c->mass * (c->width * c->width + c->height * c->height) / 12.0;
    } else if (strcmp(c->shape, "discs") == 0) {
        if (rho > 0)
            return cr_yaml_fail(ps, cr_yaml_key_line(map, "density"),
                                (snprintf(f, sizeof f, "%s.density", w), f),
                                "shape discs takes mass and inertia, not density");
        return explicit_features(ps, map, w, c);
    } else
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "shape"),
                            (snprintf(f, sizeof f, "%s.shape", w), f),
                            "unknown shape '%s' (bar, dumbbell, rectangle, discs, disc)", c->shape);
    return CR_OK;
}

/* Shape, sizes, mass or density and inertia of one entry. */
static int clump_shape(cr_yaml_ctx *ps, struct fy_node *map, const char *w, clump_spec *c)
{
    int line = cr_yaml_line(map);
    char f[128];
    struct fy_node *sh = cr_yaml_child(map, "shape");
    c->shape = sh ? cr_yaml_text(sh) : NULL;
    if (!c->shape)
        return cr_yaml_fail(ps, sh ? cr_yaml_line(sh) : line,
                            (snprintf(f, sizeof f, "%s.shape", w), f),
                            "missing required field (bar, dumbbell, rectangle, discs)");
    static const char *const shapes[] = {"bar", "dumbbell", "rectangle", "discs", NULL};
    int known = 0;
    for (int k = 0; shapes[k]; k++)
        known |= strcmp(c->shape, shapes[k]) == 0;
    if (!known)
        return cr_yaml_fail(ps, cr_yaml_line(sh), (snprintf(f, sizeof f, "%s.shape", w), f),
                            "unknown shape '%s' (bar, dumbbell, rectangle, discs, disc)", c->shape);
    int discs = strcmp(c->shape, "discs") == 0,
        needs_length = !discs && strcmp(c->shape, "rectangle");
    double rho = 0.0;
    if ((!discs && (cr_yaml_number(ps, map, line, w, "radius", 1, 0, &c->radius) ||
                    cr_yaml_positive(ps, map, w, "radius", c->radius))) ||
        (needs_length && (cr_yaml_number(ps, map, line, w, "length", 1, 0, &c->length) ||
                          cr_yaml_positive(ps, map, w, "length", c->length))) ||
        cr_yaml_number(ps, map, line, w, "rod_mass", 0, 0, &c->rod_mass) ||
        cr_yaml_number(ps, map, line, w, "radius2", 0, 0, &c->radius2))
        return ps->rc;
    if (cr_yaml_child(map, "rod_mass") && (strcmp(c->shape, "dumbbell") || !(c->rod_mass >= 0)))
        return cr_yaml_fail(
            ps, cr_yaml_key_line(map, "rod_mass"), (snprintf(f, sizeof f, "%s.rod_mass", w), f),
            "a dumbbell's rod mass, >= 0 (got %g on shape %s)", c->rod_mass, c->shape);
    if (cr_yaml_child(map, "radius2") &&
        (strcmp(c->shape, "dumbbell") || cr_yaml_positive(ps, map, w, "radius2", c->radius2)))
        return ps->rc ? ps->rc
                      : cr_yaml_fail(ps, cr_yaml_key_line(map, "radius2"),
                                     (snprintf(f, sizeof f, "%s.radius2", w), f),
                                     "only a dumbbell has a second radius");
    if (cr_yaml_child(map, "density")) {
        if (cr_yaml_child(map, "mass"))
            return cr_yaml_fail(ps, cr_yaml_key_line(map, "density"),
                                (snprintf(f, sizeof f, "%s.density", w), f),
                                "give either mass or density, not both");
        if (cr_yaml_number(ps, map, line, w, "density", 1, 0, &rho) ||
            cr_yaml_positive(ps, map, w, "density", rho))
            return ps->rc;
    } else if (cr_yaml_number(ps, map, line, w, "mass", 1, 0, &c->mass) ||
               cr_yaml_positive(ps, map, w, "mass", c->mass))
        return ps->rc;
    if (shape_features(ps, map, w, c, rho))
        return ps->rc;
    if (cr_yaml_child(map, "inertia")) {
        if (cr_yaml_number(ps, map, line, w, "inertia", 1, 0, &c->J) ||
            cr_yaml_positive(ps, map, w, "inertia", c->J))
            return ps->rc;
    } else if (discs)
        return cr_yaml_fail(ps, line, (snprintf(f, sizeof f, "%s.inertia", w), f),
                            "missing required field (shape discs gives no moment of inertia)");
    if (!(c->mass > 0.0 && isfinite(c->mass) && c->J > 0.0 && isfinite(c->J)))
        return cr_yaml_fail(ps, line, w, "mass %g and inertia %g must be finite and positive",
                            c->mass, c->J);
    return CR_OK;
}

/* Two numbers [a, b] of key (default 0, 0). */
static int vec2(cr_yaml_ctx *ps, struct fy_node *map, const char *w, const char *key, int required,
                double *out)
{
    char f[128];
    snprintf(f, sizeof f, "%s.%s", w, key);
    struct fy_node *n = cr_yaml_child(map, key);
    double v[3];
    size_t got = 0;
    if (!n)
        return required ? cr_yaml_fail(ps, cr_yaml_line(map), f, "missing required field") : CR_OK;
    if (cr_yaml_numbers(ps, n, f, v, 2, &got))
        return ps->rc;
    if (got != 2)
        return cr_yaml_fail(ps, cr_yaml_line(n), f, "needs two numbers [x, y]");
    out[0] = v[0];
    out[1] = v[1];
    return CR_OK;
}

/* Features of this clump must not overlap those of the clumps before it. */
static int check_clear(cr_yaml_ctx *ps, struct fy_node *map, const char *w, const cr_model *model,
                       size_t first)
{
    for (size_t i = first; i < cr_model_body_count(model); i++) {
        double xi[3], vi[3];
        cr_model_get_body(model, i, xi, vi);
        for (size_t j = 0; j < first; j++) {
            double xj[3], vj[3];
            cr_model_get_body(model, j, xj, vj);
            double R = cr_model_radius(model, i) + cr_model_radius(model, j);
            if (hypot(xi[0] - xj[0], xi[1] - xj[1]) < R * (1.0 - CR_GEOM_TOL))
                return cr_yaml_fail(ps, cr_yaml_line(map), w,
                                    "feature %zu overlaps feature %zu of an earlier body",
                                    i - first, j);
        }
    }
    return CR_OK;
}

static int add_clump(cr_yaml_ctx *ps, struct fy_node *map, const char *w, cr_model *model,
                     clump_spec *c)
{
    static const char *const keys[] = {
        "shape",   "radius",  "radius2", "length", "count", "width", "height",   "rod_mass", "mass",
        "density", "inertia", "x",       "theta",  "v",     "omega", "features", "material", NULL};
    cr_clump k = {0};
    int line = cr_yaml_line(map);
    if (cr_yaml_need_map(ps, map, line, w) || cr_yaml_check_keys(ps, map, w, keys) ||
        clump_shape(ps, map, w, c) || vec2(ps, map, w, "x", 1, k.x) ||
        vec2(ps, map, w, "v", 0, k.v) ||
        cr_yaml_number(ps, map, line, w, "theta", 0, 0, &k.theta) ||
        cr_yaml_number(ps, map, line, w, "omega", 0, 0, &k.omega))
        return ps->rc;
    k.mass = c->mass;
    k.J = c->J;
    k.first = cr_model_body_count(model);
    k.count = c->nf;
    double ct = cos(k.theta), st = sin(k.theta);
    for (size_t f = 0; f < c->nf; f++) {
        double rs[2] = {ct * c->s[f][0] - st * c->s[f][1], st * c->s[f][0] + ct * c->s[f][1]};
        double x[3] = {k.x[0] + rs[0], k.x[1] + rs[1], 0};
        double v[3] = {k.v[0] - k.omega * rs[1], k.v[1] + k.omega * rs[0], 0};
        int i = cr_modelfile_add_body(ps, w, model, c->mass, c->fr[f], x, v);
        if (i < 0 || cr_modelfile_body_material(ps, map, w, model, (size_t)i))
            return ps->rc;
    }
    if (check_clear(ps, map, w, model, k.first))
        return ps->rc;
    int rc = cr_model_add_clump(model, &k);
    if (rc < 0) {
        ps->rc = rc;
        cr_set_msg(ps->msg, ps->msglen, "%s: %s: %s", ps->file, w, cr_strerror(rc));
        return rc;
    }
    return CR_OK;
}

/* `{fixed: true, features: [{x, radius}], x: [..]}`: fixed discs (supports,
 * posts) at x + bx, each a fixed model body outside every clump. */
static int add_fixed(cr_yaml_ctx *ps, struct fy_node *map, const char *w, cr_model *model,
                     clump_spec *c)
{
    static const char *const keys[] = {"fixed", "x", "features", "material", NULL};
    double x0[2] = {0, 0};
    const char *ft = cr_yaml_text(cr_yaml_child(map, "fixed"));
    char f[96];
    if (!ft || strcmp(ft, "true") != 0)
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "fixed"),
                            (snprintf(f, sizeof f, "%s.fixed", w), f), "must be true");
    if (cr_yaml_check_keys(ps, map, w, keys) || vec2(ps, map, w, "x", 0, x0) ||
        explicit_features(ps, map, w, c))
        return ps->rc;
    size_t first = cr_model_body_count(model);
    for (size_t k = 0; k < c->nf; k++) {
        double x[3] = {x0[0] + c->s[k][0], x0[1] + c->s[k][1], 0}, v[3] = {0, 0, 0};
        int i = cr_modelfile_add_body(ps, w, model, 1.0, c->fr[k], x, v);
        if (i < 0)
            return i;
        cr_model_set_fixed(model, (size_t)i);
        if (cr_modelfile_body_material(ps, map, w, model, (size_t)i))
            return ps->rc;
    }
    return check_clear(ps, map, w, model, first);
}

/* `{shape: disc, radius, mass | density, x, v}`: a plain disc (a clump of
 * one at its centre: no rotational state, a model body outside every clump). */
static int add_disc(cr_yaml_ctx *ps, struct fy_node *map, const char *w, cr_model *model,
                    clump_spec *c)
{
    static const char *const keys[] = {"shape", "radius", "mass",     "density",
                                       "x",     "v",      "material", NULL};
    double mass = 0.0, r = 0.0, x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    int line = cr_yaml_line(map);
    (void)c;
    if (cr_yaml_check_keys(ps, map, w, keys) ||
        cr_yaml_number(ps, map, line, w, "radius", 1, 0, &r) ||
        cr_yaml_positive(ps, map, w, "radius", r) || cr_modelfile_mass(ps, map, w, r, &mass) ||
        vec2(ps, map, w, "x", 1, x) || vec2(ps, map, w, "v", 0, v))
        return ps->rc;
    size_t first = cr_model_body_count(model);
    int i = cr_modelfile_add_body(ps, w, model, mass, r, x, v);
    if (i < 0)
        return i;
    if (cr_modelfile_body_material(ps, map, w, model, (size_t)i))
        return ps->rc;
    return check_clear(ps, map, w, model, first);
}

static int is_disc(struct fy_node *map)
{
    const char *t = cr_yaml_text(cr_yaml_child(map, "shape"));
    return t && strcmp(t, "disc") == 0;
}

int cr_modelfile_clumps(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model)
{
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), "clumps", "must be a non-empty list of bodies");
    clump_spec *c = malloc(sizeof(*c));
    if (!c) {
        ps->rc = CR_ERR_NOMEM;
        cr_set_msg(ps->msg, ps->msglen, "%s: out of memory", ps->file);
        return ps->rc;
    }
    void *it = NULL;
    struct fy_node *b;
    int i = 0, rc = CR_OK;
    while (rc == CR_OK && (b = fy_node_sequence_iterate(seq, &it))) {
        char where[64];
        snprintf(where, sizeof where, "clumps[%d]", i++);
        memset(c, 0, sizeof(*c));
        rc = cr_yaml_need_map(ps, b, cr_yaml_line(seq), where)
                 ? ps->rc
                 : (cr_yaml_child(b, "fixed") ? add_fixed
                    : is_disc(b)              ? add_disc
                                              : add_clump)(ps, b, where, model, c);
    }
    free(c);
    return rc;
}
