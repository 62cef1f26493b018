/*
 * YAML model files with libfyaml: one schema for chains (dim 1) and planar
 * pools (dim 2), docs/model-format.md. libfyaml reports the line of every
 * token, so every error names file, line and field. Field-level checks (a
 * negative mass, a missing key, overlapping bodies, a disc outside a wall) are
 * done here, at the node that holds the value; cr_model_validate runs last as a
 * safety net. No parser builds a simulator: the result is a cr_model.
 */
#include "cradle/modelfile.h"

#include <libfyaml.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model-priv.h"
#include "model/model.h"

/* ---- contact laws ---------------------------------------------------------- */

typedef struct {
    cr_contact_params p;
    int has_material;
    double E, nu;
    int m_given;
    double target_e, target_v; /* restitution target (C solved later), 0: none */
} law_spec;

static const char *const DEFAULT_LAW_KEYS[] = {
    "K", "n", "C", "m", "release", "material", "pairs", "restitution", "reference_speed", NULL};
static const char *const PAIR_LAW_KEYS[] = {
    "K", "n", "C", "m", "release", "material", "between", "restitution", "reference_speed", NULL};
static const char *const WALL_LAW_KEYS[] = {"K", "n", "C", "m", "release", NULL};

/* "where.key" */
static const char *field_of(char *buf, size_t len, const char *where, const char *key)
{
    snprintf(buf, len, "%s%s%s", where, where[0] ? "." : "", key);
    return buf;
}

/* A material {E, nu} at node @p mat (field @p where). */
static int parse_material(cr_yaml_ctx *ps, struct fy_node *mat, int line, const char *where,
                          double *E, double *nu)
{
    static const char *const mkeys[] = {"E", "nu", NULL};
    char f[256];
    if (cr_yaml_need_map(ps, mat, line, where) || cr_yaml_check_keys(ps, mat, where, mkeys))
        return ps->rc;
    int ml = cr_yaml_line(mat);
    if (cr_yaml_number(ps, mat, ml, where, "E", 1, 0, E) ||
        cr_yaml_number(ps, mat, ml, where, "nu", 1, 0, nu) ||
        cr_yaml_positive(ps, mat, where, "E", *E))
        return ps->rc;
    if (!(*nu > -1.0 && *nu < 0.5))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(mat, "nu")),
                            field_of(f, sizeof f, where, "nu"),
                            "Poisson's ratio must lie in (-1, 0.5) (got %g)", *nu);
    return CR_OK;
}

/* restitution + reference_speed: the damping is solved later (cr_calibrate_model). */
static int parse_target(cr_yaml_ctx *ps, struct fy_node *map, const char *where, law_spec *law)
{
    struct fy_node *tn = cr_yaml_child(map, "restitution");
    struct fy_node *vn = cr_yaml_child(map, "reference_speed");
    char field[256];
    field_of(field, sizeof field, where, "restitution");
    if (!tn) {
        if (vn)
            return cr_yaml_fail(ps, cr_yaml_line(vn),
                                field_of(field, sizeof field, where, "reference_speed"),
                                "goes with restitution");
        return CR_OK;
    }
    int line = cr_yaml_line(map);
    law->target_v = 1.0;
    if (cr_yaml_number(ps, map, line, where, "restitution", 0, 0, &law->target_e) ||
        cr_yaml_number(ps, map, line, where, "reference_speed", 0, 0, &law->target_v))
        return ps->rc;
    if (!(law->target_e > 0.0 && law->target_e <= 1.0))
        return cr_yaml_fail(ps, cr_yaml_line(tn), field, "must lie in (0, 1] (got %g)",
                            law->target_e);
    if (!(law->target_v > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(vn), field, "reference_speed must be positive");
    if (cr_yaml_child(map, "C"))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "C")), field,
                            "give either C or restitution (C is then solved)");
    return CR_OK;
}

static int parse_release(cr_yaml_ctx *ps, struct fy_node *map, const char *where, law_spec *law)
{
    struct fy_node *rel = cr_yaml_child(map, "release");
    if (!rel)
        return CR_OK;
    char field[256];
    const char *s = fy_node_is_scalar(rel) ? fy_node_get_scalar0(rel) : NULL;
    if (cr_release_from_name(s, &law->p.release) != CR_OK)
        return cr_yaml_fail(ps, cr_yaml_line(rel), field_of(field, sizeof field, where, "release"),
                            "must be 'gap' or 'force' (got '%s')", s ? s : "?");
    return CR_OK;
}

/* The numbers of a law must make a law (n ≥ 1, K > 0 unless a material gives it). */
static int check_law(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const law_spec *law)
{
    char f[256];
    const char *bad = !(law->p.n >= 1.0)                        ? "n"
                      : !law->has_material && !(law->p.K > 0.0) ? "K"
                      : law->p.C < 0.0                          ? "C"
                      : law->p.m < 0.0                          ? "m"
                                                                : NULL;
    if (!bad)
        return CR_OK;
    double v = bad[0] == 'n'   ? law->p.n
               : bad[0] == 'K' ? law->p.K
               : bad[0] == 'C' ? law->p.C
                               : law->p.m;
    const char *rule = bad[0] == 'n'   ? "must be >= 1"
                       : bad[0] == 'K' ? "must be positive"
                                       : "must be >= 0";
    return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, bad)),
                        field_of(f, sizeof f, where, bad), "%s (got %g)", rule, v);
}

/* A law mapping: the keys it names replace those of @p law (a default or a base). */
static int parse_law(cr_yaml_ctx *ps, struct fy_node *map, const char *where, law_spec *law,
                     const char *const *keys)
{
    int line = cr_yaml_line(map);
    if (cr_yaml_check_keys(ps, map, where, keys) != CR_OK)
        return ps->rc;
    double m = NAN;
    if (cr_yaml_number(ps, map, line, where, "K", 0, 0, &law->p.K) ||
        cr_yaml_number(ps, map, line, where, "n", 0, 0, &law->p.n) ||
        cr_yaml_number(ps, map, line, where, "C", 0, 0, &law->p.C) ||
        cr_yaml_number(ps, map, line, where, "m", 0, 0, &m))
        return ps->rc;
    /* m = n − 1 unless given: it follows an n named here, and a law that names
     * neither (a pair naming only K) keeps the m of the law it starts from */
    if (!isnan(m)) {
        law->p.m = m;
        law->m_given = 1;
    } else if (!law->m_given && cr_yaml_child(map, "n")) {
        law->p.m = law->p.n - 1.0;
    }
    if (parse_target(ps, map, where, law) || parse_release(ps, map, where, law))
        return ps->rc;
    struct fy_node *mat = cr_yaml_child(map, "material");
    if (mat) {
        char mw[256];
        if (parse_material(ps, mat, line, field_of(mw, sizeof mw, where, "material"), &law->E,
                           &law->nu))
            return ps->rc;
        if (cr_yaml_child(map, "K"))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "K")), where,
                                "give either K or material, not both");
        struct fy_node *nn = cr_yaml_child(map, "n");
        if (nn && law->p.n != 1.5) {
            char nf[256];
            return cr_yaml_fail(ps, cr_yaml_line(nn), field_of(nf, sizeof nf, where, "n"),
                                "a material gives Hertz's n = 1.5 (got %g): drop n, or give K and "
                                "n without material",
                                law->p.n);
        }
        law->has_material = 1;
        law->p.n = 1.5; /* Hertz */
        if (!law->m_given)
            law->p.m = 0.5;
    }
    return check_law(ps, map, where, law);
}

/* A dim-vector field ([x, y] or [x, y, z]) at @p key of @p map; `required` or
 * keeps *out. */
static int parse_vec(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                     int required, int dim, double *out)
{
    char field[256];
    field_of(field, sizeof field, where, key);
    struct fy_node *n = cr_yaml_child(map, key);
    if (!n) {
        if (required)
            return cr_yaml_fail(ps, cr_yaml_line(map), field, "missing required field");
        return CR_OK;
    }
    double v[3];
    size_t got = 0;
    if (cr_yaml_numbers(ps, n, field, v, (size_t)dim, &got))
        return ps->rc;
    if (got != (size_t)dim)
        return cr_yaml_fail(ps, cr_yaml_line(n), field, "needs %s numbers %s (dim %d)",
                            dim == 2 ? "two" : "three", dim == 2 ? "[x, y]" : "[x, y, z]", dim);
    for (int d = 0; d < dim; d++)
        out[d] = v[d];
    return CR_OK;
}

/* ---- fields ---------------------------------------------------------------- */

/* External fields, read before the bodies: pendulum strikers are placed by angle. */
typedef struct {
    double gravity[3];
    int pendulum;
    double length, g;
    double *pivot; /* per body: the pivot (NAN: none / not yet known) */
    size_t cap;
    /* fields.drag: the fluid (viscosity η or a linear coefficient; density ρ and C_d) */
    int drag, drag_line;
    double viscosity, linear, fluid_density, cd;
} field_spec;

#define CR_MF_PI 3.14159265358979323846

/* fields.drag: linear drag from the viscosity (Stokes, 6πηr) or a coefficient,
 * quadratic drag from the fluid's density and C_d (½ρC_dπr²). */
static int parse_drag(cr_yaml_ctx *ps, struct fy_node *dm, int dim, field_spec *f)
{
    static const char *const keys[] = {"viscosity", "linear", "fluid_density", "cd", NULL};
    const char *w = "fields.drag";
    int line = cr_yaml_line(dm);
    if (dim != 1)
        return cr_yaml_fail(ps, line, w,
                            "drag is available in dim 1 only (the pool engines' free flight "
                            "knows no drag)");
    f->viscosity = f->linear = f->fluid_density = 0.0;
    f->cd = 0.47;
    if (cr_yaml_need_map(ps, dm, 0, w) || cr_yaml_check_keys(ps, dm, w, keys) ||
        cr_yaml_number(ps, dm, line, w, "viscosity", 0, 0, &f->viscosity) ||
        cr_yaml_number(ps, dm, line, w, "linear", 0, 0, &f->linear) ||
        cr_yaml_number(ps, dm, line, w, "fluid_density", 0, 0, &f->fluid_density) ||
        cr_yaml_number(ps, dm, line, w, "cd", 0, 0, &f->cd))
        return ps->rc;
    const char *const names[] = {"viscosity", "linear", "fluid_density", "cd"};
    const double vals[] = {f->viscosity, f->linear, f->fluid_density, f->cd};
    for (int k = 0; k < 4; k++)
        if (!(vals[k] >= 0.0) || !(vals[k] <= CR_MAX_MAGNITUDE))
            return cr_yaml_fail(ps, cr_yaml_key_line(dm, names[k]), w,
                                "%s must be >= 0 and finite (got %g)", names[k], vals[k]);
    if (cr_yaml_child(dm, "viscosity") && cr_yaml_child(dm, "linear"))
        return cr_yaml_fail(ps, cr_yaml_key_line(dm, "linear"), w,
                            "give either viscosity (Stokes drag 6 pi eta r) or linear (a "
                            "coefficient in kg/s), not both");
    if (cr_yaml_child(dm, "cd") && !cr_yaml_child(dm, "fluid_density"))
        return cr_yaml_fail(ps, cr_yaml_key_line(dm, "cd"), w,
                            "cd needs fluid_density (quadratic drag 1/2 rho cd pi r^2 v^2)");
    f->drag = 1;
    f->drag_line = line;
    return CR_OK;
}

static int parse_pendulum(cr_yaml_ctx *ps, struct fy_node *pm, int dim, field_spec *f)
{
    static const char *const pkeys[] = {"length", "g", NULL};
    const char *w = "fields.pendulum";
    if (dim != 1)
        return cr_yaml_fail(ps, cr_yaml_line(pm), w,
                            "pendulum suspension is 1-D (contacts along the arc coordinate): "
                            "not available in dim %d",
                            dim);
    f->g = 9.81;
    if (cr_yaml_need_map(ps, pm, 0, w) || cr_yaml_check_keys(ps, pm, w, pkeys) ||
        cr_yaml_number(ps, pm, cr_yaml_line(pm), w, "length", 1, 0, &f->length) ||
        cr_yaml_number(ps, pm, cr_yaml_line(pm), w, "g", 0, 0, &f->g) ||
        cr_yaml_positive(ps, pm, w, "length", f->length) || cr_yaml_positive(ps, pm, w, "g", f->g))
        return ps->rc;
    f->pendulum = 1;
    return CR_OK;
}

static int parse_fields(cr_yaml_ctx *ps, struct fy_node *map, int dim, field_spec *f)
{
    static const char *const keys[] = {"gravity", "pendulum", "drag", NULL};
    if (!map)
        return CR_OK;
    if (cr_yaml_need_map(ps, map, 0, "fields") || cr_yaml_check_keys(ps, map, "fields", keys))
        return ps->rc;
    struct fy_node *g = cr_yaml_child(map, "gravity");
    if (g && dim == 1 &&
        cr_yaml_number(ps, map, cr_yaml_line(map), "fields", "gravity", 0, 0, &f->gravity[0]))
        return ps->rc;
    if (g && dim >= 2 && parse_vec(ps, map, "fields", "gravity", 0, dim, f->gravity))
        return ps->rc;
    struct fy_node *pm = cr_yaml_child(map, "pendulum"), *dm = cr_yaml_child(map, "drag");
    if (dm && parse_drag(ps, dm, dim, f))
        return ps->rc;
    return pm ? parse_pendulum(ps, pm, dim, f) : CR_OK;
}

/* Every moving body's drag coefficients from its radius and the fluid. */
static int apply_drag(cr_yaml_ctx *ps, const field_spec *f, cr_model *model)
{
    for (size_t i = 0; f->drag && i < cr_model_body_count(model); i++) {
        if (cr_model_is_fixed(model, i))
            continue;
        double r = cr_model_radius(model, i);
        double b = f->linear > 0.0 ? f->linear : 6.0 * CR_MF_PI * f->viscosity * r;
        double c = 0.5 * f->fluid_density * f->cd * CR_MF_PI * r * r;
        if (cr_model_set_drag(model, i, b, c))
            return cr_yaml_fail(ps, f->drag_line, "fields.drag",
                                "body %zu: drag coefficients b = %g, c = %g exceed %g", i, b, c,
                                CR_MAX_MAGNITUDE);
    }
    return CR_OK;
}

/* Remembers the pivot of the body just added (NAN for none). */
static int note_pivot(cr_yaml_ctx *ps, field_spec *f, size_t i, double pivot)
{
    if (i >= f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        while (cap <= i)
            cap *= 2;
        double *p = realloc(f->pivot, cap * sizeof(double));
        if (!p) {
            ps->rc = CR_ERR_NOMEM;
            cr_set_msg(ps->msg, ps->msglen, "%s: out of memory", ps->file);
            return ps->rc;
        }
        for (size_t k = f->cap; k < cap; k++)
            p[k] = NAN;
        f->pivot = p;
        f->cap = cap;
    }
    f->pivot[i] = pivot;
    return CR_OK;
}

/* Hangs every moving body on its pendulum and sets gravity. */
static int apply_fields(cr_yaml_ctx *ps, const field_spec *f, cr_model *model)
{
    cr_model_set_gravity_vector(model, f->gravity);
    if (apply_drag(ps, f, model))
        return ps->rc;
    if (!f->pendulum)
        return CR_OK;
    for (size_t i = 0; i < cr_model_body_count(model); i++) {
        if (cr_model_is_fixed(model, i))
            continue;
        double pivot = i < f->cap ? f->pivot[i] : NAN;
        if (isnan(pivot))
            return cr_yaml_fail(ps, 0, "fields.pendulum",
                                "body %zu has no pivot (rods cannot hang)", i);
        cr_model_set_pendulum(model, i, pivot, f->length, f->g);
    }
    return CR_OK;
}

/* ---- the range of a body's numbers ---------------------------------------- */

/* One number of a body within cr_model_validate's range (products like ½mv²
 * and K δⁿ stay finite), refused at the field that gave it: @p key of @p map,
 * or the map itself when the number was computed (a generated chain's
 * positions). @p magnitude: mass and radius lie within CR_MAX_MAGNITUDE⁻¹ ..
 * CR_MAX_MAGNITUDE; positions and velocities only below it in size. */
static int number_in_range(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                           const char *what, double value, int magnitude)
{
    double lo = magnitude ? 1.0 / CR_MAX_MAGNITUDE : -CR_MAX_MAGNITUDE;
    if (value >= lo && value <= CR_MAX_MAGNITUDE)
        return CR_OK;
    struct fy_node *at = key ? cr_yaml_child(map, key) : NULL;
    char field[256];
    if (at)
        cr_yaml_path(field, sizeof field, where, key);
    else
        snprintf(field, sizeof field, "%s", where);
    if (at)
        return cr_yaml_fail(ps, cr_yaml_line(at), field,
                            "must lie within %g .. %g in SI units (got %g)", lo, CR_MAX_MAGNITUDE,
                            value);
    return cr_yaml_fail(ps, cr_yaml_line(map), field,
                        "gives a %s of %g, outside %g .. %g in SI units", what, value, lo,
                        CR_MAX_MAGNITUDE);
}

int cr_modelfile_body_in_range(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                               const cr_body_keys *k, double mass, double radius, const double *x,
                               const double *v, int dim)
{
    if (number_in_range(ps, map, where, k->mass, "mass", mass, 1) ||
        number_in_range(ps, map, where, k->radius, "radius", radius, 1))
        return ps->rc;
    for (int d = 0; d < dim; d++)
        if (number_in_range(ps, map, where, k->x[d], "position", x[d], 0) ||
            number_in_range(ps, k->vmap ? k->vmap : map, k->vmap ? k->vwhere : where, k->v[d],
                            "velocity", v[d], 0))
            return ps->rc;
    return CR_OK;
}

/* ---- dim 1: balls, chains, rods, links ------------------------------------ */

static int add_wall_checked(cr_yaml_ctx *ps, cr_model *model, struct fy_node *at, const char *field,
                            double x)
{
    size_t n = cr_model_ball_count(model);
    if (n > 0 && cr_model_is_fixed(model, n - 1))
        return cr_yaml_fail(ps, cr_yaml_line(at), field,
                            "two walls next to each other (a wall needs a ball between it and "
                            "the wall before)");
    if (n > 0) {
        double xp = cr_model_position(model, n - 1), rp = cr_model_radius(model, n - 1);
        if (!(x >= xp + rp * (1.0 - CR_GEOM_TOL)))
            return cr_yaml_fail(ps, cr_yaml_line(at), field,
                                "wall at x = %g cuts the body before it (surface at %g)", x,
                                xp + rp);
    }
    int rc = cr_model_add_wall(model, x);
    if (rc < 0)
        return cr_yaml_fail(ps, cr_yaml_line(at), field, "%s", cr_strerror(rc));
    return CR_OK;
}

static int add_ball_checked(cr_yaml_ctx *ps, cr_model *model, struct fy_node *at, const char *field,
                            double mass, double radius, double x, double v)
{
    if (!(mass > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(at), field, "mass must be positive (got %g)", mass);
    if (!(radius > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(at), field, "radius must be positive (got %g)",
                            radius);
    size_t n = cr_model_ball_count(model);
    if (n > 0) {
        double xp = cr_model_position(model, n - 1), rp = cr_model_radius(model, n - 1);
        if (!(x > xp))
            return cr_yaml_fail(ps, cr_yaml_line(at), field,
                                "balls must be listed in increasing x (x = %g after %g)", x, xp);
        double delta = rp + radius - (x - xp);
        double tol = CR_GEOM_TOL * (rp > 0 && rp < radius ? rp : radius);
        if (delta > tol)
            return cr_yaml_fail(
                ps, cr_yaml_line(at), field,
                "interpenetrates ball %zu at start by %g m (touching tolerance %g m)", n - 1, delta,
                tol);
    }
    int rc = cr_model_add_ball(model, mass, radius, x, v);
    if (rc < 0) {
        ps->rc = rc;
        cr_set_msg(ps->msg, ps->msglen, "%s: %s", ps->file, cr_strerror(rc));
        return rc;
    }
    return CR_OK;
}

/* The mass of @p map (radius already read): `mass`, or `density` ρ giving
 * m = ρ (4/3) π r³ (a ball in every dimension: a disc of a pool is a ball
 * moving in a plane); exactly one of them. */
int cr_modelfile_mass(cr_yaml_ctx *ps, struct fy_node *map, const char *where, double radius,
                      double *mass)
{
    int line = cr_yaml_line(map);
    if (!cr_yaml_child(map, "density"))
        return cr_yaml_number(ps, map, line, where, "mass", 1, 0, mass) ||
                       cr_yaml_positive(ps, map, where, "mass", *mass)
                   ? ps->rc
                   : CR_OK;
    if (cr_yaml_child(map, "mass"))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "density"), where,
                            "give either mass or density (mass = density 4/3 pi radius^3), "
                            "not both");
    double rho = 0.0;
    if (cr_yaml_number(ps, map, line, where, "density", 1, 0, &rho) ||
        cr_yaml_positive(ps, map, where, "density", rho))
        return ps->rc;
    *mass = rho * 4.0 / 3.0 * CR_MF_PI * radius * radius * radius;
    if (!(*mass > 0.0) || !isfinite(*mass))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "density"), where,
                            "density %g and radius %g give no finite positive mass", rho, radius);
    return CR_OK;
}

/* mass (or density) and radius of a body entry, positive, with the line of
 * the bad value */
static int body_mass_radius(cr_yaml_ctx *ps, struct fy_node *b, const char *where, double *mass,
                            double *radius)
{
    int line = cr_yaml_line(b);
    if (cr_yaml_number(ps, b, line, where, "radius", 1, 0, radius) ||
        cr_yaml_positive(ps, b, where, "radius", *radius) ||
        cr_modelfile_mass(ps, b, where, *radius, mass))
        return ps->rc;
    return CR_OK;
}

int cr_modelfile_add_body(cr_yaml_ctx *ps, const char *where, cr_model *model, double mass,
                          double radius, const double *x, const double *v)
{
    int i = cr_model_add_body(model, mass, radius, x, v);
    if (i < 0) {
        ps->rc = i;
        if (where)
            cr_set_msg(ps->msg, ps->msglen, "%s: %s: %s", ps->file, where, cr_strerror(i));
        else
            cr_set_msg(ps->msg, ps->msglen, "%s: %s", ps->file, cr_strerror(i));
    }
    return i;
}

/* An optional per-body material {E, nu}. */
int cr_modelfile_material(cr_yaml_ctx *ps, struct fy_node *mat, int line, const char *where,
                          double *E, double *nu)
{
    return parse_material(ps, mat, line, where, E, nu);
}

/* An optional per-body material {E, nu} (model-priv.h). */
int cr_modelfile_body_material(cr_yaml_ctx *ps, struct fy_node *b, const char *where,
                               cr_model *model, size_t i)
{
    struct fy_node *mat = cr_yaml_child(b, "material");
    if (!mat)
        return CR_OK;
    char mw[96];
    double E, nu;
    if (parse_material(ps, mat, cr_yaml_line(b), field_of(mw, sizeof mw, where, "material"), &E,
                       &nu))
        return ps->rc;
    cr_model_set_material(model, i, E, nu);
    return CR_OK;
}

/* A dim-1 body's centre: `x`, or `gap`, its surface gap to the body before
 * (a wall's surface is its position), so that a gapped chain is written
 * without computing positions; exactly one of the two. */
static int body_position(cr_yaml_ctx *ps, struct fy_node *b, const char *where, cr_model *model,
                         double radius, double *x)
{
    struct fy_node *xn = cr_yaml_child(b, "x"), *gn = cr_yaml_child(b, "gap");
    char field[96];
    if (xn && gn)
        return cr_yaml_fail(ps, cr_yaml_line(gn), field_of(field, sizeof field, where, "gap"),
                            "give either x or gap (the surface gap to the body before)");
    if (!gn)
        return cr_yaml_number(ps, b, cr_yaml_line(b), where, "x", 1, 0, x);
    double gap = 0.0;
    size_t n = cr_model_ball_count(model);
    field_of(field, sizeof field, where, "gap");
    if (cr_yaml_number(ps, b, cr_yaml_line(b), where, "gap", 1, 0, &gap))
        return ps->rc;
    if (!(gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(gn), field, "must be >= 0 (got %g)", gap);
    if (n == 0)
        return cr_yaml_fail(ps, cr_yaml_line(gn), field,
                            "the first body has no body before it: give x");
    *x = cr_model_position(model, n - 1) + cr_model_radius(model, n - 1) + gap + radius;
    return CR_OK;
}

/* {wall: true, x} in a dim-1 list */
static int parse_ball_wall(cr_yaml_ctx *ps, struct fy_node *b, const char *where, cr_model *model,
                           field_spec *f)
{
    struct fy_node *wall = cr_yaml_child(b, "wall");
    const char *w = fy_node_get_scalar0(wall);
    char field[96];
    double x = 0;
    field_of(field, sizeof field, where, "wall");
    if (!w || strcmp(w, "true") != 0)
        return cr_yaml_fail(ps, cr_yaml_line(wall), field, "must be true (or left out)");
    if (cr_yaml_child(b, "mass") || cr_yaml_child(b, "radius") || cr_yaml_child(b, "v") ||
        cr_yaml_child(b, "material"))
        return cr_yaml_fail(ps, cr_yaml_line(b), field,
                            "a wall has only a position x (no mass, radius, v, material)");
    struct fy_node *at = cr_yaml_child(b, "gap") ? cr_yaml_child(b, "gap") : cr_yaml_child(b, "x");
    field_of(field, sizeof field, where, cr_yaml_child(b, "gap") ? "gap" : "x");
    if (body_position(ps, b, where, model, 0.0, &x) || add_wall_checked(ps, model, at, field, x) ||
        note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
        return ps->rc;
    return CR_OK;
}

/* balls: (or bodies: in dim 1) an explicit list of balls and walls in increasing x */
static int parse_balls(cr_yaml_ctx *ps, struct fy_node *seq, const char *list, cr_model *model,
                       field_spec *f)
{
    static const char *const keys[] = {"mass", "density", "radius", "x",        "gap",
                                       "v",    "pivot",   "wall",   "material", NULL};
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), list, "must be a non-empty list of balls");
    void *it = NULL;
    struct fy_node *b;
    int i = 0;
    while ((b = fy_node_sequence_iterate(seq, &it))) {
        char where[64], field[96];
        snprintf(where, sizeof where, "%s[%d]", list, i++);
        if (cr_yaml_need_map(ps, b, cr_yaml_line(seq), where) != CR_OK ||
            cr_yaml_check_keys(ps, b, where, keys) != CR_OK)
            return ps->rc;
        if (cr_yaml_child(b, "wall")) {
            if (parse_ball_wall(ps, b, where, model, f))
                return ps->rc;
            continue;
        }
        int line = cr_yaml_line(b);
        double mass = 0, radius = 0, x = 0, v = 0, pivot = NAN;
        const char *xkey = cr_yaml_child(b, "gap") ? "gap" : "x";
        /* a position from a gap is computed: the entry is named, not its gap */
        const cr_body_keys bk = {"mass", "radius", {cr_yaml_child(b, "gap") ? NULL : "x"},
                                 {"v"},  NULL,     NULL};
        if (cr_yaml_number(ps, b, line, where, "pivot", 0, 0, &pivot) ||
            body_mass_radius(ps, b, where, &mass, &radius) ||
            body_position(ps, b, where, model, radius, &x) ||
            cr_yaml_number(ps, b, line, where, "v", 0, 0, &v) ||
            cr_modelfile_body_in_range(ps, b, where, &bk, mass, radius, &x, &v, 1) ||
            add_ball_checked(ps, model, cr_yaml_child(b, xkey),
                             field_of(field, sizeof field, where, xkey), mass, radius, x, v))
            return ps->rc;
        size_t k = cr_model_ball_count(model) - 1;
        /* a pendulum ball hangs above its given position unless a pivot is named */
        if (cr_modelfile_body_material(ps, b, where, model, k) ||
            note_pivot(ps, f, k, isnan(pivot) ? x : pivot))
            return ps->rc;
    }
    return CR_OK;
}

/* What a chain: generator asks for. */
typedef struct {
    long count, scount;
    double mass, radius, x0, spacing, vrest, vstrike, gap, angle, wall_gap;
    double *gaps; /* count − 1 surface gaps, pair by pair (NULL: spacing) */
    int wall_left, wall_right;
    cr_link link;
    int linked;
} chain_spec;

static int chain_striker(cr_yaml_ctx *ps, struct fy_node *st, const field_spec *f, chain_spec *c)
{
    static const char *const skeys[] = {"count", "velocity", "gap", "angle", NULL};
    const char *w = "chain.striker";
    if (!st) {
        c->scount = 0;
        return CR_OK;
    }
    if (cr_yaml_need_map(ps, st, 0, w) || cr_yaml_check_keys(ps, st, w, skeys))
        return ps->rc;
    int sl = cr_yaml_line(st);
    if (cr_yaml_count(ps, st, sl, w, "count", 0, 1, &c->scount) ||
        cr_yaml_number(ps, st, sl, w, "angle", 0, 0, &c->angle) ||
        cr_yaml_number(ps, st, sl, w, "velocity", isnan(c->angle), 0, &c->vstrike) ||
        cr_yaml_number(ps, st, sl, w, "gap", 0, 0, &c->gap))
        return ps->rc;
    if (!isnan(c->angle) && !f->pendulum)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "angle")), "chain.striker.angle",
                            "needs fields.pendulum");
    if (!isnan(c->angle) && cr_yaml_child(st, "gap"))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "gap")), "chain.striker.gap",
                            "give either angle (a lifted pendulum) or gap");
    if (c->scount > c->count)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "count")), "chain.striker.count",
                            "more strikers (%ld) than balls (%ld)", c->scount, c->count);
    if (c->gap < 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "gap")), "chain.striker.gap",
                            "must be >= 0 (got %g)", c->gap);
    return CR_OK;
}

static int chain_walls(cr_yaml_ctx *ps, struct fy_node *map, chain_spec *c)
{
    struct fy_node *wl = cr_yaml_child(map, "walls");
    if (!wl)
        return CR_OK;
    void *it = NULL;
    struct fy_node *w;
    if (!fy_node_is_sequence(wl))
        return cr_yaml_fail(ps, cr_yaml_line(wl), "chain.walls",
                            "a list: [left], [right] or [left, right]");
    while ((w = fy_node_sequence_iterate(wl, &it))) {
        const char *side = fy_node_get_scalar0(w);
        if (side && strcmp(side, "left") == 0)
            c->wall_left = 1;
        else if (side && strcmp(side, "right") == 0)
            c->wall_right = 1;
        else
            return cr_yaml_fail(ps, cr_yaml_line(w), "chain.walls", "'left' or 'right' (got '%s')",
                                side ? side : "?");
    }
    if (cr_yaml_number(ps, map, cr_yaml_line(map), "chain", "wall_gap", 0, 0, &c->wall_gap))
        return ps->rc;
    if (c->wall_gap < 0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "wall_gap")), "chain.wall_gap",
                            "must be >= 0 (got %g)", c->wall_gap);
    return CR_OK;
}

static int chain_link(cr_yaml_ctx *ps, struct fy_node *map, chain_spec *c)
{
    static const char *const lkeys[] = {"k", "c", NULL};
    struct fy_node *ln = cr_yaml_child(map, "link");
    if (!ln)
        return CR_OK;
    const char *w = "chain.link";
    if (cr_yaml_need_map(ps, ln, cr_yaml_line(map), w) || cr_yaml_check_keys(ps, ln, w, lkeys) ||
        cr_yaml_number(ps, ln, cr_yaml_line(ln), w, "k", 1, 0, &c->link.k) ||
        cr_yaml_number(ps, ln, cr_yaml_line(ln), w, "c", 0, 0, &c->link.c) ||
        cr_yaml_positive(ps, ln, w, "k", c->link.k))
        return ps->rc;
    c->link.length = c->spacing;
    c->linked = 1;
    return CR_OK;
}

/* gaps: [g₀, …, g_{count−2}], the surface gap of each pair, instead of a
 * spacing or a striker gap (one way to place the balls). */
static int chain_gaps(cr_yaml_ctx *ps, struct fy_node *map, chain_spec *c)
{
    struct fy_node *gn = cr_yaml_child(map, "gaps");
    if (!gn)
        return CR_OK;
    const char *w = "chain.gaps";
    if (cr_yaml_child(map, "spacing") || !isnan(c->angle) || c->gap != 0.0 || c->linked)
        return cr_yaml_fail(ps, cr_yaml_line(gn), w,
                            "give either gaps or spacing, striker.gap, striker.angle or link");
    size_t want = (size_t)(c->count - 1), n = 0;
    if (!(c->gaps = calloc(want ? want : 1, sizeof(double))))
        return cr_yaml_fail(ps, cr_yaml_line(gn), w, "out of memory");
    if (cr_yaml_numbers(ps, gn, w, c->gaps, want, &n))
        return ps->rc;
    if (n != want)
        return cr_yaml_fail(ps, cr_yaml_line(gn), w, "%zu values for the %zu pairs of %ld balls", n,
                            want, c->count);
    for (size_t k = 0; k < n; k++)
        if (!(c->gaps[k] >= 0.0))
            return cr_yaml_fail(ps, cr_yaml_line(gn), w, "gaps[%zu] must be >= 0 (got %g)", k,
                                c->gaps[k]);
    return CR_OK;
}

static int chain_read(cr_yaml_ctx *ps, struct fy_node *map, const field_spec *f, chain_spec *c)
{
    static const char *const keys[] = {"count",    "mass", "density",  "radius",  "x0",
                                       "spacing",  "gaps", "velocity", "striker", "walls",
                                       "wall_gap", "link", NULL};
    const char *w = "chain";
    if (cr_yaml_need_map(ps, map, 0, w) || cr_yaml_check_keys(ps, map, w, keys))
        return ps->rc;
    int line = cr_yaml_line(map);
    if (cr_yaml_count_in(ps, map, line, w, "count", 1, 1, CR_MAX_BODIES, &c->count) ||
        cr_yaml_number(ps, map, line, w, "radius", 1, 0, &c->radius) ||
        cr_yaml_number(ps, map, line, w, "x0", 0, 0, &c->x0) ||
        cr_yaml_number(ps, map, line, w, "spacing", 0, 0, &c->spacing) ||
        cr_yaml_number(ps, map, line, w, "velocity", 0, 0, &c->vrest) ||
        cr_yaml_positive(ps, map, w, "radius", c->radius) ||
        cr_modelfile_mass(ps, map, w, c->radius, &c->mass))
        return ps->rc;
    if (isnan(c->spacing))
        c->spacing = 2.0 * c->radius;
    if (c->spacing < 2.0 * c->radius * (1.0 - CR_GEOM_TOL))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "spacing")), "chain.spacing",
                            "balls interpenetrate at start: spacing %g < 2 radius = %g", c->spacing,
                            2.0 * c->radius);
    if (chain_striker(ps, cr_yaml_child(map, "striker"), f, c) || chain_walls(ps, map, c) ||
        chain_link(ps, map, c) || chain_gaps(ps, map, c))
        return ps->rc;
    return CR_OK;
}

/* Places the balls: touching neighbours from the previous one so that the
 * overlap is exactly zero, not zero up to rounding; `rest` is the position at
 * rest (the pendulum pivot), `shift` the gap behind the strikers. */
static int chain_place(cr_yaml_ctx *ps, struct fy_node *map, const chain_spec *c, cr_model *model,
                       field_spec *f)
{
    double rest = c->x0, shift = 0.0;
    for (long i = 0; i < c->count; i++) {
        if (i > 0)
            rest += c->gaps ? 2.0 * c->radius + c->gaps[i - 1] : c->spacing;
        if (i == c->scount && i > 0 && isnan(c->angle))
            shift = c->gap;
        double x = rest + shift;
        double v = i < c->scount ? c->vstrike : c->vrest;
        if (i < c->scount && !isnan(c->angle)) {
            /* lifted strikers: arc coordinate pivot − L·angle, released at v */
            x = rest - f->length * c->angle;
            v = isnan(c->vstrike) ? 0.0 : c->vstrike;
        }
        /* x0 gives the first ball's position; the others' are computed */
        cr_body_keys bk = {"mass", "radius", {i == 0 ? "x0" : NULL}, {"velocity"}, NULL, NULL};
        struct fy_node *st = cr_yaml_child(map, "striker");
        if (i < c->scount && st) { /* a striker's velocity is the striker's */
            bk.vmap = st;
            bk.vwhere = "chain.striker";
        }
        if (cr_modelfile_body_in_range(ps, map, "chain", &bk, c->mass, c->radius, &x, &v, 1) ||
            add_ball_checked(ps, model, map, "chain", c->mass, c->radius, x, v) ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, rest))
            return ps->rc;
    }
    return CR_OK;
}

/* The chain's walls, balls and links as chain_read found them (the caller
 * frees c->gaps). */
static int place_chain(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model, field_spec *f,
                       chain_spec *c)
{
    if (chain_read(ps, map, f, c))
        return ps->rc;
    struct fy_node *wl = cr_yaml_child(map, "walls");
    if (c->wall_left &&
        (add_wall_checked(ps, model, wl, "chain.walls", c->x0 - c->radius - c->wall_gap) ||
         note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN)))
        return ps->rc;
    size_t first = cr_model_ball_count(model);
    if (chain_place(ps, map, c, model, f))
        return ps->rc;
    if (c->wall_right) {
        double xl = cr_model_position(model, cr_model_ball_count(model) - 1);
        if (add_wall_checked(ps, model, wl, "chain.walls", xl + c->radius + c->wall_gap) ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
            return ps->rc;
    }
    if (c->linked)
        for (long i = 0; i + 1 < c->count; i++)
            cr_model_set_link(model, first + (size_t)i, &c->link);
    return CR_OK;
}

/*
 * chain: count equal balls; the first striker.count of them move at
 * striker.velocity and stand striker.gap (surface to surface) before the rest.
 */
static int parse_chain(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model, field_spec *f)
{
    chain_spec c = {.scount = 1, .spacing = NAN, .angle = NAN};
    int rc = place_chain(ps, map, model, f, &c);
    free(c.gaps);
    return rc;
}

/*
 * rods: elastic rods end to end, each discretised into `elements` lumped masses
 * joined by links k = EA/Δx (Glocker's rods, 000 sect. 3). Contacts act only
 * between rods.
 */
static int parse_rod(cr_yaml_ctx *ps, struct fy_node *r, const char *w, int k, double *end,
                     cr_model *model, field_spec *f)
{
    static const char *const keys[] = {"elements", "length", "mass", "EA", "velocity", "gap", NULL};
    long ne = 0;
    double len = 0, mass = 0, EA = 0, v = 0, gap = 0;
    int line = cr_yaml_line(r);
    if (cr_yaml_check_keys(ps, r, w, keys) ||
        cr_yaml_count(ps, r, line, w, "elements", 1, 1, &ne) ||
        cr_yaml_number(ps, r, line, w, "length", 1, 0, &len) ||
        cr_yaml_number(ps, r, line, w, "mass", 1, 0, &mass) ||
        cr_yaml_number(ps, r, line, w, "EA", 1, 0, &EA) ||
        cr_yaml_number(ps, r, line, w, "velocity", 0, 0, &v) ||
        cr_yaml_number(ps, r, line, w, "gap", 0, 0, &gap) ||
        cr_yaml_positive(ps, r, w, "length", len) || cr_yaml_positive(ps, r, w, "mass", mass) ||
        cr_yaml_positive(ps, r, w, "EA", EA))
        return ps->rc;
    if (gap < 0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(r, "gap")), w, "gap must be >= 0");
    double dx = len / (double)ne;
    cr_link link = {.k = EA / dx, .length = dx, .c = 0.0};
    size_t first = cr_model_ball_count(model);
    for (long i = 0; i < ne; i++) {
        double x = i == 0 ? *end + (k ? gap : 0.0) + 0.5 * dx
                          : cr_model_position(model, first + (size_t)i - 1) + dx;
        /* an element's mass and half length are computed from the rod's */
        const cr_body_keys bk = {NULL, NULL, {NULL}, {"velocity"}, NULL, NULL};
        if (cr_modelfile_body_in_range(ps, r, w, &bk, mass / (double)ne, 0.5 * dx, &x, &v, 1) ||
            add_ball_checked(ps, model, r, w, mass / (double)ne, 0.5 * dx, x, v) ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
            return ps->rc;
    }
    for (long i = 0; i + 1 < ne; i++)
        cr_model_set_link(model, first + (size_t)i, &link);
    *end = cr_model_position(model, cr_model_ball_count(model) - 1) + 0.5 * dx;
    return CR_OK;
}

static int parse_rods(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model, field_spec *f)
{
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), "rods", "must be a non-empty list of rods");
    void *it = NULL;
    struct fy_node *r;
    int k = 0;
    double end = 0.0; /* surface of the previous rod */
    while ((r = fy_node_sequence_iterate(seq, &it))) {
        char w[64];
        snprintf(w, sizeof w, "rods[%d]", k);
        if (cr_yaml_need_map(ps, r, cr_yaml_line(seq), w) || parse_rod(ps, r, w, k, &end, model, f))
            return ps->rc;
        k++;
    }
    return CR_OK;
}

/* One entry of links: {between: [i, i+1], k, length, c, contact} */
static int parse_link(cr_yaml_ctx *ps, struct fy_node *l, const char *w, cr_model *model)
{
    static const char *const keys[] = {"between", "k", "length", "c", "contact", NULL};
    char field[96];
    field_of(field, sizeof field, w, "between");
    if (cr_yaml_check_keys(ps, l, w, keys))
        return ps->rc;
    double pair[2];
    size_t got = 0;
    struct fy_node *bt = cr_yaml_child(l, "between");
    if (!bt)
        return cr_yaml_fail(ps, cr_yaml_line(l), field, "missing required field");
    if (cr_yaml_numbers(ps, bt, field, pair, 2, &got))
        return ps->rc;
    size_t n = cr_model_ball_count(model);
    if (got != 2 || pair[1] != pair[0] + 1 || pair[0] < 0 || pair[1] >= (double)n ||
        pair[0] != floor(pair[0]))
        return cr_yaml_fail(ps, cr_yaml_line(bt), field,
                            "must name two neighbouring bodies [i, i+1] that exist "
                            "(there are %zu)",
                            n);
    size_t c = (size_t)pair[0];
    cr_link link = {.length = cr_model_position(model, c + 1) - cr_model_position(model, c)};
    int line = cr_yaml_line(l);
    if (cr_yaml_number(ps, l, line, w, "k", 1, 0, &link.k) ||
        cr_yaml_number(ps, l, line, w, "length", 0, 0, &link.length) ||
        cr_yaml_number(ps, l, line, w, "c", 0, 0, &link.c) ||
        cr_yaml_positive(ps, l, w, "k", link.k) ||
        cr_yaml_positive(ps, l, w, "length", link.length))
        return ps->rc;
    if (link.c < 0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(l, "c")), w, "c must be >= 0");
    cr_model_set_link(model, c, &link);
    struct fy_node *ct = cr_yaml_child(l, "contact");
    if (ct) {
        const char *v = fy_node_get_scalar0(ct);
        if (!v || (strcmp(v, "true") && strcmp(v, "false")))
            return cr_yaml_fail(ps, cr_yaml_line(ct), w, "contact: true or false");
        cr_model_set_contact_enabled(model, c, strcmp(v, "true") == 0);
    }
    return CR_OK;
}

static int parse_links(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model)
{
    if (!seq)
        return CR_OK;
    if (cr_model_dimension(model) != 1)
        return cr_yaml_fail(ps, cr_yaml_line(seq), "links",
                            "links join neighbours of a chain "
                            "(dim 1)");
    if (!fy_node_is_sequence(seq))
        return cr_yaml_fail(ps, cr_yaml_line(seq), "links", "must be a list");
    void *it = NULL;
    struct fy_node *l;
    int k = 0;
    while ((l = fy_node_sequence_iterate(seq, &it))) {
        char w[64];
        snprintf(w, sizeof w, "links[%d]", k++);
        if (cr_yaml_need_map(ps, l, cr_yaml_line(seq), w) || parse_link(ps, l, w, model))
            return ps->rc;
    }
    return CR_OK;
}

/* ---- dim 2 and 3: discs (spheres), walls ------------------------------------ */

/* The length of a dim-vector (hypot in 2-D, as it always was). */
static double vec_norm(const double *a, int dim)
{
    return dim == 3 ? hypot(hypot(a[0], a[1]), a[2]) : hypot(a[0], a[1]);
}

/* One disc: `bodies` entries carry vectors (x: [x, y], v: [vx, vy]; in dim 3
 * three components each); the older `discs` layout names the components
 * (x, y, vx, vy). */
/* A disc placed from an earlier one: `next_to: J`, `direction: [dx, dy]` (from
 * J's centre; any length), `gap: G` (surface to surface, ≥ 0), instead of x. */
static int disc_next_to(cr_yaml_ctx *ps, struct fy_node *b, const char *where, cr_model *model,
                        double radius, double *x)
{
    char field[96];
    double gap = 0.0, dir[3] = {0, 0, 0}, J = 0.0, xj[3], vj[3];
    int line = cr_yaml_line(b), dim = cr_model_dimension(model);
    if (cr_yaml_child(b, "x"))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "x")),
                            field_of(field, sizeof field, where, "x"),
                            "give either x or next_to, direction and gap");
    if (cr_yaml_number(ps, b, line, where, "next_to", 1, 0, &J) ||
        cr_yaml_number(ps, b, line, where, "gap", 1, 0, &gap) ||
        parse_vec(ps, b, where, "direction", 1, dim, dir))
        return ps->rc;
    size_t n = cr_model_body_count(model);
    if (!(J >= 0.0 && J < (double)n && J == floor(J)))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "next_to")),
                            field_of(field, sizeof field, where, "next_to"),
                            "must name an earlier body, 0 .. %zu (got %g)", n ? n - 1 : 0, J);
    if (!(gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "gap")),
                            field_of(field, sizeof field, where, "gap"), "must be >= 0 (got %g)",
                            gap);
    double len = vec_norm(dir, dim);
    if (!(len > 0.0) || !isfinite(len))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "direction")),
                            field_of(field, sizeof field, where, "direction"),
                            "must be a non-zero vector");
    size_t j = (size_t)J;
    cr_model_get_body(model, j, xj, vj);
    double d = cr_model_radius(model, j) + gap + radius;
    for (int k = 0; k < dim; k++)
        x[k] = xj[k] + d * dir[k] / len;
    return CR_OK;
}

/* `fixed: true`: a disc or sphere that never moves. It has a radius, a
 * position and perhaps a material; a mass or a velocity would mean nothing.
 * @p fixed: 1 when the entry says so. */
static int disc_fixed(cr_yaml_ctx *ps, struct fy_node *b, const char *where, int *fixed)
{
    struct fy_node *f = cr_yaml_child(b, "fixed");
    const char *w = fy_node_get_scalar0(f);
    char field[96];
    *fixed = 0;
    if (!f)
        return CR_OK;
    field_of(field, sizeof field, where, "fixed");
    if (!w || (strcmp(w, "true") != 0 && strcmp(w, "false") != 0))
        return cr_yaml_fail(ps, cr_yaml_line(f), field, "must be true or false");
    *fixed = strcmp(w, "true") == 0;
    if (*fixed &&
        (cr_yaml_child(b, "mass") || cr_yaml_child(b, "density") || cr_yaml_child(b, "v")))
        return cr_yaml_fail(ps, cr_yaml_line(f), field,
                            "a fixed body has a radius, a position and perhaps a material (no "
                            "mass, density or v: it never moves)");
    return CR_OK;
}

static int parse_disc(cr_yaml_ctx *ps, struct fy_node *b, const char *where, int legacy,
                      cr_model *model)
{
    static const char *const keys[] = {"mass",    "density",   "radius", "x",     "v", "material",
                                       "next_to", "direction", "gap",    "fixed", NULL};
    static const char *const lkeys[] = {"mass", "density", "radius",   "x", "y",
                                        "vx",   "vy",      "material", NULL};
    double mass = 1.0, radius = 0, x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    int line = cr_yaml_line(b), dim = cr_model_dimension(model), fixed = 0;
    if (cr_yaml_check_keys(ps, b, where, legacy ? lkeys : keys) || disc_fixed(ps, b, where, &fixed))
        return ps->rc;
    if (fixed ? cr_yaml_number(ps, b, line, where, "radius", 1, 0, &radius) ||
                    cr_yaml_positive(ps, b, where, "radius", radius)
              : body_mass_radius(ps, b, where, &mass, &radius))
        return ps->rc;
    if (legacy ? (cr_yaml_number(ps, b, line, where, "x", 1, 0, &x[0]) ||
                  cr_yaml_number(ps, b, line, where, "y", 1, 0, &x[1]) ||
                  cr_yaml_number(ps, b, line, where, "vx", 0, 0, &v[0]) ||
                  cr_yaml_number(ps, b, line, where, "vy", 0, 0, &v[1]))
               : ((cr_yaml_child(b, "next_to") || cr_yaml_child(b, "gap")
                       ? disc_next_to(ps, b, where, model, radius, x)
                       : parse_vec(ps, b, where, "x", 1, dim, x)) ||
                  parse_vec(ps, b, where, "v", 0, dim, v)))
        return ps->rc;
    const char *xk = cr_yaml_child(b, "x") ? "x" : NULL; /* else placed by next_to */
    const cr_body_keys bk =
        legacy ? (cr_body_keys){"mass", "radius", {"x", "y", NULL}, {"vx", "vy", NULL}, NULL, NULL}
               : (cr_body_keys){"mass", "radius", {xk, xk, xk}, {"v", "v", "v"}, NULL, NULL};
    if (cr_modelfile_body_in_range(ps, b, where, &bk, mass, radius, x, v, dim))
        return ps->rc;
    int i = cr_modelfile_add_body(ps, NULL, model, mass, radius, x, v);
    if (i < 0)
        return i;
    if (fixed)
        cr_model_set_fixed(model, (size_t)i);
    return cr_modelfile_body_material(ps, b, where, model, (size_t)i);
}

static int parse_discs(cr_yaml_ctx *ps, struct fy_node *seq, const char *list, cr_model *model)
{
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), list, "must be a non-empty list of bodies");
    void *it = NULL;
    struct fy_node *b;
    int i = 0;
    while ((b = fy_node_sequence_iterate(seq, &it))) {
        char where[64];
        snprintf(where, sizeof where, "%s[%d]", list, i++);
        if (cr_yaml_need_map(ps, b, cr_yaml_line(seq), where) ||
            parse_disc(ps, b, where, strcmp(list, "discs") == 0, model))
            return ps->rc;
    }
    return CR_OK;
}

typedef struct {
    int64_t key;
    size_t i;
} cell_entry;

static int cmp_cell(const void *a, const void *b)
{
    const cell_entry *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->i < y->i ? -1 : x->i > y->i);
}

/* The key of the cell of position p (dim values) shifted by off cells. */
static int64_t cell_of(const double *p, int dim, double h, const int64_t *off)
{
    int64_t c[3] = {0};
    for (int d = 0; d < dim; d++)
        c[d] = cr_cell_index(p[d], h) + off[d];
    return cr_cell_key_dim(c, dim);
}

/* The distance between the centres of bodies i and j (positions p, dim each). */
static double centre_distance(const double *p, int dim, size_t i, size_t j)
{
    double a[3] = {0};
    for (int d = 0; d < dim; d++)
        a[d] = p[dim * j + (size_t)d] - p[dim * i + (size_t)d];
    return vec_norm(a, dim);
}

/* Bodies of cell @p key with indices below j (the sorted list @p cells of n)
 * that overlap body j beyond the touching tolerance: the first by index. */
static void overlaps_in_cell(const cr_model *model, const double *p, int dim,
                             const cell_entry *cells, size_t n, int64_t key, size_t j, size_t *bi,
                             size_t *bj, double *depth, int *found)
{
    cell_entry probe = {key, 0};
    const cell_entry *at = cells, *hi = cells + n;
    while (at < hi) { /* first entry of the cell */
        const cell_entry *mid = at + (hi - at) / 2;
        if (cmp_cell(mid, &probe) < 0)
            at = mid + 1;
        else
            hi = mid;
    }
    for (; at < cells + n && at->key == key && at->i < j; at++) {
        size_t i = at->i;
        double ri = cr_model_radius(model, i), rj = cr_model_radius(model, j);
        double gap = centre_distance(p, dim, i, j) - ri - rj;
        if (gap < -CR_GEOM_TOL * fmin(ri, rj) && (!*found || i < *bi)) {
            *bi = i;
            *bj = j;
            *depth = -gap;
            *found = 1;
        }
    }
}

/* The first pair (by the later disc's index) whose discs interpenetrate beyond
 * the touching tolerance: a cell list (cells of 2 r_max), O(N log N).
 * @return 1 with the pair in *bi < *bj and the depth, or 0. */
static int first_overlap(const cr_model *model, cell_entry *cells, size_t *bi, size_t *bj,
                         double *depth)
{
    size_t n = cr_model_body_count(model);
    int dim = cr_model_dimension(model);
    double rmax = 0.0, *p = malloc((size_t)dim * n * sizeof(double));
    if (!p)
        return 0;
    for (size_t i = 0; i < n; i++) {
        cr_model_get_body(model, i, p + (size_t)dim * i, NULL);
        rmax = fmax(rmax, cr_model_radius(model, i));
    }
    double h = 2.0 * rmax;
    const int64_t zero[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        cells[i] = (cell_entry){cell_of(p + (size_t)dim * i, dim, h, zero), i};
    qsort(cells, n, sizeof *cells, cmp_cell);
    int found = 0, nz = dim == 3 ? 1 : 0;
    for (size_t j = 0; j < n && !found; j++)
        for (int64_t dx = -1; dx <= 1; dx++)
            for (int64_t dy = -1; dy <= 1; dy++)
                for (int64_t dz = -nz; dz <= nz; dz++) {
                    const int64_t off[3] = {dx, dy, dz};
                    overlaps_in_cell(model, p, dim, cells, n,
                                     cell_of(p + (size_t)dim * j, dim, h, off), j, bi, bj, depth,
                                     &found);
                }
    free(p);
    return found;
}

int cr_modelfile_first_overlap(const cr_model *model, size_t *bi, size_t *bj, double *depth)
{
    cell_entry *cells = malloc((cr_model_body_count(model) + 1) * sizeof *cells);
    if (!cells)
        return -1;
    int bad = first_overlap(model, cells, bi, bj, depth);
    free(cells);
    return bad;
}

/* Overlaps at start, named by the later disc's line (the engine's neighbour
 * search would refuse them too, without a line). */
static int check_overlaps(cr_yaml_ctx *ps, struct fy_node *seq, const char *list,
                          const cr_model *model)
{
    size_t n = cr_model_body_count(model), i = 0, j = 0;
    double depth = 0.0;
    cell_entry *cells = malloc(n * sizeof *cells);
    if (!cells) {
        ps->rc = CR_ERR_NOMEM;
        cr_set_msg(ps->msg, ps->msglen, "%s: out of memory", ps->file);
        return ps->rc;
    }
    int bad = first_overlap(model, cells, &i, &j, &depth);
    free(cells);
    if (!bad)
        return CR_OK;
    char field[64];
    snprintf(field, sizeof field, "%s[%zu].x", list, j);
    double tol = CR_GEOM_TOL * fmin(cr_model_radius(model, i), cr_model_radius(model, j));
    struct fy_node *b = fy_node_sequence_get_by_index(seq, (int)j);
    double ri = cr_model_radius(model, i), rj = cr_model_radius(model, j);
    if (depth >= ri + rj) /* the centres coincide: no normal to push them apart along */
        return cr_yaml_fail(ps, cr_yaml_line(b), field,
                            "has the same centre as %s %zu (coincident bodies)",
                            cr_model_dimension(model) == 3 ? "sphere" : "disc", i);
    return cr_yaml_fail(ps, cr_yaml_line(b), field,
                        "interpenetrates %s %zu at start by %g m (touching tolerance %g m)",
                        cr_model_dimension(model) == 3 ? "sphere" : "disc", i, depth, tol);
}

/* A wall's own law: the keys it names replace the default law's. With a
 * default from materials there is no single law to start from: K is needed. */
static int wall_law(cr_yaml_ctx *ps, struct fy_node *wc, const char *where, const law_spec *def,
                    law_spec *law)
{
    *law = *def;
    law->has_material = 0;
    law->m_given = 0;
    law->target_e = 0.0;
    if (cr_yaml_need_map(ps, wc, 0, where) || parse_law(ps, wc, where, law, WALL_LAW_KEYS))
        return ps->rc;
    if (def->has_material && !cr_yaml_child(wc, "K"))
        return cr_yaml_fail(ps, cr_yaml_line(wc), where,
                            "K is needed (the default law comes from materials; or give the "
                            "wall a material)");
    return CR_OK;
}

/* Every disc must start inside the wall: named at the wall's line. */
static int check_inside(cr_yaml_ctx *ps, struct fy_node *w, const char *where,
                        const cr_model *model, size_t wi)
{
    double nrm[3], off;
    int dim = cr_model_dimension(model);
    cr_model_get_plane(model, wi, nrm, &off);
    for (size_t i = 0; i < cr_model_body_count(model); i++) {
        double x[3] = {0}, r = cr_model_radius(model, i);
        cr_model_get_body(model, i, x, NULL);
        double ov = off + r - (nrm[0] * x[0] + nrm[1] * x[1]);
        if (dim == 3)
            ov -= nrm[2] * x[2];
        if (ov > CR_GEOM_TOL * r)
            return cr_yaml_fail(ps, cr_yaml_line(w), where,
                                "%s %zu lies outside the wall (by %g m; free space is "
                                "n.p >= offset)",
                                dim == 3 ? "sphere" : "disc", i, ov);
    }
    return CR_OK;
}

/* walls[k]: {normal: [nx, ny] (dim 3: [nx, ny, nz]), offset, contact: {law},
 * material: {E, nu}} */
static int parse_wall(cr_yaml_ctx *ps, struct fy_node *w, const char *where, const law_spec *def,
                      cr_model *model)
{
    static const char *const keys[] = {"normal", "offset", "contact", "material", NULL};
    double nrm[3] = {0, 0, 0}, off = 0.0, E = 0, nu = 0;
    char field[96];
    int dim = cr_model_dimension(model);
    if (cr_yaml_check_keys(ps, w, where, keys) || parse_vec(ps, w, where, "normal", 1, dim, nrm) ||
        cr_yaml_number(ps, w, cr_yaml_line(w), where, "offset", 1, 0, &off))
        return ps->rc;
    if (dim == 3 && !(vec_norm(nrm, 3) > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(w, "normal")),
                            field_of(field, sizeof field, where, "normal"),
                            "must be a non-zero vector [nx, ny, nz] (got [%g, %g, %g])", nrm[0],
                            nrm[1], nrm[2]);
    if (!(vec_norm(nrm, dim) > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(w, "normal")),
                            field_of(field, sizeof field, where, "normal"),
                            "must be a non-zero vector [nx, ny] (got [%g, %g])", nrm[0], nrm[1]);
    law_spec law;
    struct fy_node *wc = cr_yaml_child(w, "contact"), *mat = cr_yaml_child(w, "material");
    if (wc && mat)
        return cr_yaml_fail(ps, cr_yaml_line(mat), field_of(field, sizeof field, where, "material"),
                            "give the wall either its own contact law or a material");
    if (wc && wall_law(ps, wc, field_of(field, sizeof field, where, "contact"), def, &law))
        return ps->rc;
    if (mat && parse_material(ps, mat, cr_yaml_line(w),
                              field_of(field, sizeof field, where, "material"), &E, &nu))
        return ps->rc;
    int wi = cr_model_add_plane(model, nrm, off, wc ? &law.p : NULL);
    if (wi < 0)
        return cr_yaml_fail(ps, cr_yaml_line(w), where, "%s", cr_strerror(wi));
    /* contact.material makes every wall without a law or material of its own a flat
     * of that material */
    if (mat || (!wc && def->has_material))
        cr_model_set_plane_material(model, (size_t)wi, mat ? E : def->E, mat ? nu : def->nu);
    return check_inside(ps, w, where, model, (size_t)wi);
}

static int parse_walls(cr_yaml_ctx *ps, struct fy_node *seq, const law_spec *def, cr_model *model)
{
    if (!seq)
        return CR_OK;
    if (!fy_node_is_sequence(seq))
        return cr_yaml_fail(ps, cr_yaml_line(seq), "walls", "must be a list");
    void *it = NULL;
    struct fy_node *w;
    int k = 0;
    while ((w = fy_node_sequence_iterate(seq, &it))) {
        char where[48];
        snprintf(where, sizeof where, "walls[%d]", k++);
        if (cr_yaml_need_map(ps, w, cr_yaml_line(seq), where) ||
            parse_wall(ps, w, where, def, model))
            return ps->rc;
    }
    return CR_OK;
}

/* ---- contact laws of a model ------------------------------------------------ */

/* The default law of the `contact` section (K or a material required). */
static int default_law(cr_yaml_ctx *ps, struct fy_node *map, law_spec *def)
{
    memset(def, 0, sizeof *def);
    cr_contact_params_init(&def->p, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    if (!map)
        return CR_OK;
    if (cr_yaml_need_map(ps, map, 0, "contact") ||
        parse_law(ps, map, "contact", def, DEFAULT_LAW_KEYS))
        return ps->rc;
    if (!def->has_material && !cr_yaml_child(map, "K"))
        return cr_yaml_fail(ps, cr_yaml_line(map), "contact.K",
                            "missing required field (or give contact.material)");
    return CR_OK;
}

/* Two body indices [i, j] of contact.pairs[k].between. */
static int pair_between(cr_yaml_ctx *ps, struct fy_node *pm, const char *where,
                        const cr_model *model, size_t *i, size_t *j)
{
    char field[96];
    field_of(field, sizeof field, where, "between");
    struct fy_node *bt = cr_yaml_child(pm, "between");
    if (!bt)
        return cr_yaml_fail(ps, cr_yaml_line(pm), field, "missing required field");
    double v[2];
    size_t got = 0, n = cr_model_body_count(model);
    if (cr_yaml_numbers(ps, bt, field, v, 2, &got))
        return ps->rc;
    int ok = got == 2 && v[0] >= 0 && v[1] >= 0 && v[0] < (double)n && v[1] < (double)n &&
             v[0] == floor(v[0]) && v[1] == floor(v[1]) && v[0] != v[1];
    if (cr_model_dimension(model) == 1 && ok && v[1] != v[0] + 1)
        return cr_yaml_fail(ps, cr_yaml_line(bt), field,
                            "must name two neighbouring balls [i, i+1] of the chain");
    if (!ok)
        return cr_yaml_fail(ps, cr_yaml_line(bt), field,
                            "must name two different bodies [i, j] that exist (there are %zu)", n);
    *i = (size_t)v[0];
    *j = (size_t)v[1];
    return CR_OK;
}

/* dim 1: the law of contact c, Hertz when both sides have a material (the
 * ball's own, else the law's; a wall is a flat of the law's material). */
static cr_contact_params law_for_pair(const law_spec *law, const cr_model *model, size_t c,
                                      int use_bodies)
{
    cr_contact_params p = law->p;
    double E[2], nu[2], R[2];
    int have = 1, own = 0;
    for (int k = 0; k < 2; k++) {
        size_t b = c + (size_t)k;
        R[k] = cr_model_radius(model, b) > 0 ? cr_model_radius(model, b) : INFINITY;
        if (use_bodies && cr_model_material(model, b, &E[k], &nu[k])) {
            own = 1;
        } else if (law->has_material) {
            E[k] = law->E;
            nu[k] = law->nu;
        } else {
            have = 0;
        }
    }
    if (have && (law->has_material || own)) {
        p.K = cr_contact_hertz_stiffness(E[0], nu[0], R[0], E[1], nu[1], R[1]);
        if (!law->has_material) { /* Hertz from the balls' materials replaces K and n */
            p.n = 1.5;
            if (!law->m_given)
                p.m = 0.5;
        }
    }
    return p;
}

static int chain_pairs(cr_yaml_ctx *ps, struct fy_node *pairs, const law_spec *def, cr_model *model)
{
    void *it = NULL;
    struct fy_node *pm;
    int k = 0;
    while ((pm = fy_node_sequence_iterate(pairs, &it))) {
        char where[64];
        size_t a, b;
        snprintf(where, sizeof where, "contact.pairs[%d]", k++);
        if (cr_yaml_need_map(ps, pm, cr_yaml_line(pairs), where) ||
            pair_between(ps, pm, where, model, &a, &b))
            return ps->rc;
        law_spec law = *def;
        if (cr_yaml_child(pm, "C"))
            law.target_e = 0.0; /* the pair's own C replaces the default's target */
        if (parse_law(ps, pm, where, &law, PAIR_LAW_KEYS) != CR_OK)
            return ps->rc;
        if (cr_yaml_child(pm, "K"))
            law.has_material = 0;
        cr_contact_params p = law_for_pair(&law, model, a, !cr_yaml_child(pm, "K"));
        cr_model_set_contact(model, a, &p);
        if (law.target_e > 0.0)
            cr_model_set_contact_target(model, a, law.target_e, law.target_v);
    }
    return CR_OK;
}

static int chain_contact(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model)
{
    law_spec def;
    if (default_law(ps, map, &def))
        return ps->rc;
    size_t nc = cr_model_contact_count(model);
    for (size_t c = 0; c < nc; c++) {
        cr_contact_params p = law_for_pair(&def, model, c, 1);
        cr_model_set_contact(model, c, &p);
        if (def.target_e > 0.0)
            cr_model_set_contact_target(model, c, def.target_e, def.target_v);
    }
    struct fy_node *pairs = cr_yaml_child(map, "pairs");
    if (!pairs)
        return CR_OK;
    if (!fy_node_is_sequence(pairs))
        return cr_yaml_fail(ps, cr_yaml_line(pairs), "contact.pairs", "must be a list");
    return chain_pairs(ps, pairs, &def, model);
}

/* dim 2: contact.pairs[k] replaces what it names in the law the pair has so
 * far (from the materials or the default); a material there is both discs'. */
static int pool_pairs(cr_yaml_ctx *ps, struct fy_node *pairs, cr_model *model)
{
    void *it = NULL;
    struct fy_node *pm;
    int k = 0;
    while ((pm = fy_node_sequence_iterate(pairs, &it))) {
        char where[64], field[96];
        size_t a, b;
        snprintf(where, sizeof where, "contact.pairs[%d]", k++);
        if (cr_yaml_need_map(ps, pm, cr_yaml_line(pairs), where) ||
            pair_between(ps, pm, where, model, &a, &b))
            return ps->rc;
        law_spec law;
        memset(&law, 0, sizeof law);
        cr_model_pair_law(model, a, (long)b, &law.p);
        if (parse_law(ps, pm, where, &law, PAIR_LAW_KEYS))
            return ps->rc;
        if (law.target_e > 0.0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(pm, "restitution")),
                                field_of(field, sizeof field, where, "restitution"),
                                "in dim %d contact.restitution is the target of every pair "
                                "without C; give this pair C",
                                cr_model_dimension(model));
        if (law.has_material)
            law.p.K = cr_contact_hertz_stiffness(law.E, law.nu, cr_model_radius(model, a), law.E,
                                                 law.nu, cr_model_radius(model, b));
        cr_model_set_pair_law(model, a, (long)b, &law.p);
    }
    return CR_OK;
}

/* dim 2: the default law, contact.material as every disc's default material,
 * the restitution target; walls come next (their laws start from the default). */
static int pool_contact(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model, law_spec *def)
{
    if (default_law(ps, map, def))
        return ps->rc;
    cr_model_set_default_contact(model, &def->p);
    for (size_t i = 0; def->has_material && i < cr_model_body_count(model); i++) {
        double E, nu;
        if (!cr_model_material(model, i, &E, &nu))
            cr_model_set_material(model, i, def->E, def->nu);
    }
    if (def->target_e > 0.0)
        cr_model_set_default_target(model, def->target_e, def->target_v);
    return CR_OK;
}

/* ---- settings -------------------------------------------------------------- */

static int parse_method(cr_yaml_ctx *ps, struct fy_node *integ, int dim, cr_settings *s)
{
    struct fy_node *m = cr_yaml_child(integ, "method");
    if (!m)
        return CR_OK;
    const char *v = fy_node_get_scalar0(m);
    for (int k = 0; cr_method_name(k); k++)
        if (v && strcmp(v, cr_method_name(k)) == 0) {
            s->method = (cr_method)k;
            if (k == CR_METHOD_ERK && dim >= 2) /* the pool engine is CVODES only */
                return cr_yaml_fail(ps, cr_yaml_line(m), "integration.method",
                                    "'erk' integrates chains; a pool takes 'auto', 'bdf', "
                                    "'adams' or 'adams-fixed-point'");
            return CR_OK;
        }
    return cr_yaml_fail(ps, cr_yaml_line(m), "integration.method",
                        "must be 'auto', 'bdf', 'adams', 'adams-fixed-point' or 'erk' (got '%s')",
                        v ? v : "?");
    return CR_OK;
}

/* Chains and pools: integration.active_region, auto (default), on or off. */
static int parse_active_region(cr_yaml_ctx *ps, struct fy_node *integ, cr_settings *s)
{
    struct fy_node *a = cr_yaml_child(integ, "active_region");
    if (!a)
        return CR_OK;
    const char *v = fy_node_get_scalar0(a);
    if (v && strcmp(v, "auto") == 0)
        s->active_region = CR_ACTIVE_REGION_AUTO;
    else if (v && strcmp(v, "on") == 0)
        s->active_region = CR_ACTIVE_REGION_ON;
    else if (v && strcmp(v, "off") == 0)
        s->active_region = CR_ACTIVE_REGION_OFF;
    else
        return cr_yaml_fail(ps, cr_yaml_line(a), "integration.active_region",
                            "auto, on or off (got '%s')", v ? v : "?");
    return CR_OK;
}

/* integration.engine: auto (default), chain (dim 1 only) or graph. */
static int parse_engine(cr_yaml_ctx *ps, struct fy_node *integ, int dim, cr_settings *s)
{
    struct fy_node *e = cr_yaml_child(integ, "engine");
    if (!e)
        return CR_OK;
    const char *v = fy_node_get_scalar0(e);
    if (v && strcmp(v, "auto") == 0)
        s->engine = CR_ENGINE_AUTO;
    else if (v && strcmp(v, "chain") == 0 && dim == 1)
        s->engine = CR_ENGINE_CHAIN;
    else if (v && strcmp(v, "graph") == 0)
        s->engine = CR_ENGINE_GRAPH;
    else
        return cr_yaml_fail(ps, cr_yaml_line(e), "integration.engine",
                            "auto, graph or (dim 1) chain (got '%s'%s)", v ? v : "?",
                            v && strcmp(v, "chain") == 0 ? " in a pool" : "");
    return CR_OK;
}

/* Pool-only: `normals: frozen` (each pair's normal fixed at first touch) or
 * `turning` (the default: the line of centres). */
static int parse_normals(cr_yaml_ctx *ps, struct fy_node *nn, cr_settings *s)
{
    const char *v = fy_node_get_scalar0(nn);
    if (v && strcmp(v, "frozen") == 0)
        s->frozen_normals = 1;
    else if (v && strcmp(v, "turning") == 0)
        s->frozen_normals = 0;
    else
        return cr_yaml_fail(ps, cr_yaml_line(nn), "integration.normals",
                            "turning or frozen (got '%s')", v ? v : "?");
    return CR_OK;
}

/* Pool-only settings: the neighbour skin, Newton's linear solver, the normals. */
static int parse_pool_settings(cr_yaml_ctx *ps, struct fy_node *integ, int dim, cr_settings *s)
{
    struct fy_node *sk = cr_yaml_child(integ, "skin"), *sv = cr_yaml_child(integ, "solver");
    struct fy_node *nn = cr_yaml_child(integ, "normals");
    if (dim == 1 && nn)
        return cr_yaml_fail(ps, cr_yaml_line(nn), "integration.normals",
                            "a pool setting (dim 2); a chain's normals never turn");
    if (dim == 1 && (sk || sv))
        return cr_yaml_fail(ps, cr_yaml_line(sk ? sk : sv),
                            sk ? "integration.skin" : "integration.solver",
                            "a pool setting (dim 2); chains have a banded solver");
    if (nn && parse_normals(ps, nn, s))
        return ps->rc;
    if (cr_yaml_number(ps, integ, cr_yaml_line(integ), "integration", "skin", 0, 0, &s->skin) ||
        (sk && cr_yaml_positive(ps, integ, "integration", "skin", s->skin)))
        return ps->rc;
    if (!sv)
        return CR_OK;
    const char *name = fy_node_get_scalar0(sv);
    if (name && strcmp(name, "klu") == 0)
        s->solver = CR_SOLVER_KLU;
    else if (name && strcmp(name, "gmres") == 0)
        s->solver = CR_SOLVER_GMRES;
    else if (name && strcmp(name, "auto") == 0)
        s->solver = CR_SOLVER_AUTO;
    else if (name && strcmp(name, "fixed-point") == 0)
        s->solver = CR_SOLVER_FIXED_POINT;
    else
        return cr_yaml_fail(ps, cr_yaml_line(sv), "integration.solver",
                            "auto, klu or gmres (Newton), or fixed-point (got '%s')",
                            name ? name : "?");
    return CR_OK;
}

/* accuracy: a global target on the final velocities (relative to V), which the
 * chain engine turns into rtol and atol (docs/design.md, "Global accuracy"):
 * given with either of those, the file would say two things; pools refuse it
 * for now. */
static int parse_accuracy(cr_yaml_ctx *ps, struct fy_node *integ, int dim, cr_settings *s)
{
    struct fy_node *an = cr_yaml_child(integ, "accuracy");
    if (!an)
        return CR_OK;
    if (cr_yaml_number(ps, integ, cr_yaml_line(integ), "integration", "accuracy", 0, 0,
                       &s->accuracy))
        return ps->rc;
    int l = cr_yaml_line(an);
    if (s->accuracy == 0.0) /* none: rtol and atol as given (cradle fit's runs) */
        return CR_OK;
    if (!(s->accuracy >= CR_ACCURACY_MIN && s->accuracy <= CR_ACCURACY_MAX))
        return cr_yaml_fail(ps, l, "integration.accuracy",
                            "must lie in [%g, %g], or be 0 for none (a target on the final "
                            "velocities, relative to the velocity scale V; got %g)",
                            CR_ACCURACY_MIN, CR_ACCURACY_MAX, s->accuracy);
    struct fy_node *both = cr_yaml_child(integ, "rtol");
    if (both || (both = cr_yaml_child(integ, "atol")))
        return cr_yaml_fail(ps, l, "integration.accuracy",
                            "give either accuracy (a global target: the engine sets rtol and "
                            "atol) or rtol/atol (local, per-step tolerances), not both (%s on "
                            "line %d)",
                            cr_yaml_child(integ, "rtol") ? "rtol" : "atol", cr_yaml_line(both));
    if (dim != 1)
        return cr_yaml_fail(ps, l, "integration.accuracy",
                            "chains (dim 1) only for now; give a pool rtol and atol");
    return CR_OK;
}

static int parse_integration(cr_yaml_ctx *ps, struct fy_node *integ, int dim, cr_settings *s)
{
    static const char *const ikeys[] = {"t_end",          "rtol",     "atol",   "method",
                                        "jacobian_floor", "skin",     "solver", "normals",
                                        "active_region",  "accuracy", "engine", NULL};
    const char *w = "integration";
    if (cr_yaml_need_map(ps, integ, 0, w) || cr_yaml_check_keys(ps, integ, w, ikeys))
        return ps->rc;
    int l = cr_yaml_line(integ);
    if (cr_yaml_number(ps, integ, l, w, "t_end", 0, 1, &s->t_end) ||
        cr_yaml_number(ps, integ, l, w, "rtol", 0, 0, &s->rtol) ||
        cr_yaml_number(ps, integ, l, w, "atol", 0, 0, &s->atol) ||
        cr_yaml_number(ps, integ, l, w, "jacobian_floor", 0, 0, &s->jacobian_floor))
        return ps->rc;
    if (!(s->rtol > 0.0 && s->rtol < 1.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "rtol")), "integration.rtol",
                            "must lie in (0, 1) (got %g)", s->rtol);
    if (!(s->atol > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "atol")), "integration.atol",
                            "must be positive (got %g)", s->atol);
    if (s->t_end < 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "t_end")), "integration.t_end",
                            "must be positive or 'auto' (got %g)", s->t_end);
    if (!(s->jacobian_floor > 0.0 && s->jacobian_floor < 1.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "jacobian_floor")),
                            "integration.jacobian_floor", "must lie in (0, 1) (got %g)",
                            s->jacobian_floor);
    return parse_accuracy(ps, integ, dim, s) || parse_method(ps, integ, dim, s) ||
                   parse_pool_settings(ps, integ, dim, s) || parse_active_region(ps, integ, s) ||
                   parse_engine(ps, integ, dim, s)
               ? ps->rc
               : CR_OK;
}

/* rigid: {touching: θ}, what rigid runs of the model take as touching */
static int parse_rigid(cr_yaml_ctx *ps, struct fy_node *rig, cr_settings *s)
{
    static const char *const keys[] = {"touching", NULL};
    if (cr_yaml_need_map(ps, rig, 0, "rigid") != CR_OK ||
        cr_yaml_check_keys(ps, rig, "rigid", keys) != CR_OK ||
        cr_yaml_number(ps, rig, cr_yaml_line(rig), "rigid", "touching", 0, 0, &s->rigid_touching))
        return ps->rc;
    if (!(s->rigid_touching >= 0.0 && s->rigid_touching <= 1e6))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(rig, "touching")), "rigid.touching",
                            "must lie in [0, 1e6] (a multiple of the compression delta*; got %g)",
                            s->rigid_touching);
    return CR_OK;
}

static int parse_settings(cr_yaml_ctx *ps, struct fy_node *integ, struct fy_node *out,
                          struct fy_node *rig, cr_model *model)
{
    cr_settings s = cr_settings_default();
    if (integ && parse_integration(ps, integ, cr_model_dimension(model), &s))
        return ps->rc;
    if (rig && parse_rigid(ps, rig, &s))
        return ps->rc;
    if (out && cr_modelfile_output(ps, out, model, &s) != CR_OK)
        return ps->rc;
    cr_model_set_settings(model, &s);
    return CR_OK;
}

/* ---- the whole file --------------------------------------------------------- */

/* The body list of a file and the dimension it implies: `balls`, `chain`, `rods`
 * (dim 1), `discs` (dim 2), `bodies` (dim from `dim:` 1, 2 or 3, default 1). */
typedef struct {
    struct fy_node *node;
    const char *key;
    int dim;
} body_list;

static int find_bodies(cr_yaml_ctx *ps, struct fy_node *root, body_list *bl)
{
    static const char *const names[] = {"balls",      "chain",   "rods",          "discs", "bodies",
                                        "three_disc", "lattice", "sphere_triple", "clumps"};
    static const int dims[] = {1, 1, 1, 2, 0, 2, 3, 3, 2};
    int given = 0;
    double dim = 0;
    if (cr_yaml_number(ps, root, 1, "", "dim", 0, 0, &dim))
        return ps->rc;
    struct fy_node *dn = cr_yaml_child(root, "dim");
    if (dn && dim != 1 && dim != 2 && dim != 3)
        return cr_yaml_fail(ps, cr_yaml_line(dn), "dim",
                            "must be 1 (a chain), 2 (a planar pool) or 3 (spheres) (got %g)", dim);
    bl->node = NULL;
    for (int k = 0; k < 9; k++) {
        struct fy_node *n = cr_yaml_child(root, names[k]);
        if (!n)
            continue;
        if (given++)
            return cr_yaml_fail(ps, cr_yaml_line(n), names[k],
                                "give one of 'bodies', 'balls', 'chain', 'rods', 'discs', "
                                "'three_disc', 'lattice', 'sphere_triple', 'clumps'");
        *bl = (body_list){n, names[k], dims[k] ? dims[k] : (dn ? (int)dim : 1)};
        if (dn && dims[k] && dims[k] != (int)dim)
            return cr_yaml_fail(ps, cr_yaml_line(dn), "dim",
                                "'%s' describes a model of "
                                "dimension %d (got dim: %g)",
                                names[k], dims[k], dim);
    }
    if (!bl->node)
        return cr_yaml_fail(ps, 1, "bodies",
                            "missing required field (a list of bodies, a 'chain' or 'rods')");
    return CR_OK;
}

static int parse_dim1(cr_yaml_ctx *ps, struct fy_node *root, const body_list *bl, cr_model *model,
                      field_spec *fields)
{
    struct fy_node *walls = cr_yaml_child(root, "walls");
    if (walls)
        return cr_yaml_fail(ps, cr_yaml_line(walls), "walls",
                            "half-plane walls are dim 2; a chain's walls are bodies "
                            "{wall: true, x}");
    int rc = strcmp(bl->key, "chain") == 0  ? parse_chain(ps, bl->node, model, fields)
             : strcmp(bl->key, "rods") == 0 ? parse_rods(ps, bl->node, model, fields)
                                            : parse_balls(ps, bl->node, bl->key, model, fields);
    if (rc || parse_links(ps, cr_yaml_child(root, "links"), model) ||
        apply_fields(ps, fields, model))
        return ps->rc;
    return chain_contact(ps, cr_yaml_child(root, "contact"), model);
}

/* dim 2 and 3: the pool engine's models */
static int parse_dim2(cr_yaml_ctx *ps, struct fy_node *root, const body_list *bl, cr_model *model,
                      field_spec *fields)
{
    law_spec def;
    struct fy_node *contact = cr_yaml_child(root, "contact");
    int rc = strcmp(bl->key, "three_disc") == 0 ? cr_modelfile_three_disc(ps, bl->node, model)
             : strcmp(bl->key, "lattice") == 0  ? cr_modelfile_lattice(ps, bl->node, model)
             : strcmp(bl->key, "sphere_triple") == 0
                 ? cr_modelfile_sphere_triple(ps, bl->node, model)
             : strcmp(bl->key, "clumps") == 0 ? cr_modelfile_clumps(ps, bl->node, model)
                                              : parse_discs(ps, bl->node, bl->key, model) ||
                                                    check_overlaps(ps, bl->node, bl->key, model);
    if (rc || parse_links(ps, cr_yaml_child(root, "links"), model) ||
        apply_fields(ps, fields, model) || pool_contact(ps, contact, model, &def))
        return ps->rc;
    /* a generator's box walls take contact.material as a listed wall does */
    for (size_t w = 0; def.has_material && w < cr_model_plane_count(model); w++)
        cr_model_set_plane_material(model, w, def.E, def.nu);
    if (parse_walls(ps, cr_yaml_child(root, "walls"), &def, model))
        return ps->rc;
    struct fy_node *pairs = cr_yaml_child(contact, "pairs");
    if (pairs && !fy_node_is_sequence(pairs))
        return cr_yaml_fail(ps, cr_yaml_line(pairs), "contact.pairs", "must be a list");
    return pairs ? pool_pairs(ps, pairs, model) : CR_OK;
}

/* Restitution targets leave C to cr_calibrate_model: validation waits for it. */
static int targets_pending(const cr_model *model)
{
    double e, v;
    if (cr_model_default_target(model, &e, &v) && e < 1.0)
        return 1;
    for (size_t c = 0; c < cr_model_contact_count(model); c++)
        if (cr_model_contact_target(model, c, &e, &v) && e < 1.0)
            return 1;
    return 0;
}

/* Air drag is the only field and no link joins two bodies: the chain engine
 * ends such a run by itself (t_end: auto; docs/model-format.md, "Fields"). */
static int drag_alone(const cr_model *model)
{
    double pivot, length, g;
    if (!cr_model_has_drag(model) || cr_model_gravity(model) != 0.0)
        return 0;
    for (size_t i = 0; i < cr_model_body_count(model); i++)
        if (cr_model_pendulum(model, i, &pivot, &length, &g))
            return 0;
    for (size_t c = 0; c < cr_model_contact_count(model); c++)
        if (cr_model_link(model, c))
            return 0;
    return 1;
}

/* Everything after the body list: settings, the end-time rule, validation. */
static int finish_model(cr_yaml_ctx *ps, struct fy_node *root, cr_model *model)
{
    if (parse_settings(ps, cr_yaml_child(root, "integration"), cr_yaml_child(root, "output"),
                       cr_yaml_child(root, "rigid"), model))
        return ps->rc;
    if (cr_model_has_fields(model) && !drag_alone(model) &&
        cr_model_settings(model)->t_end <= 0.0) {
        struct fy_node *te = cr_yaml_child(cr_yaml_child(root, "integration"), "t_end");
        return cr_yaml_fail(ps, te ? cr_yaml_line(te) : cr_yaml_line(cr_yaml_child(root, "fields")),
                            "integration.t_end",
                            "with gravity, pendulums, or drag beside links, open separating "
                            "contacts do not end a run: give an end time");
    }
    if (cr_model_clump_count(model) && cr_model_settings(model)->t_end <= 0.0) {
        struct fy_node *te = cr_yaml_child(cr_yaml_child(root, "integration"), "t_end");
        return cr_yaml_fail(ps, te ? cr_yaml_line(te) : cr_yaml_line(cr_yaml_child(root, "clumps")),
                            "integration.t_end",
                            "a model with rigid bodies (clumps) has no automatic end yet: give "
                            "an end time");
    }
    if (cr_model_has_fields(model) &&
        cr_model_settings(model)->active_region == CR_ACTIVE_REGION_ON)
        return cr_yaml_fail(
            ps, cr_yaml_line(cr_yaml_child(cr_yaml_child(root, "integration"), "active_region")),
            "integration.active_region",
            "on needs a model without gravity, pendulums or drag (free flight is exact "
            "only without fields): auto or off");
    char why[CR_ERRMSG_LEN];
    if (!targets_pending(model) && cr_model_validate(model, why, sizeof why) != CR_OK) {
        cr_set_msg(ps->msg, ps->msglen, "%s: %s", ps->file, why);
        ps->rc = CR_ERR_MODEL;
    }
    return ps->rc;
}

static int parse_root(cr_yaml_ctx *ps, struct fy_node *root, cr_model *model, field_spec *fields)
{
    static const char *const top_keys[] = {
        "name",       "description", "dim",     "bodies",        "balls",   "chain",       "rods",
        "discs",      "walls",       "links",   "fields",        "contact", "integration", "output",
        "three_disc", "rigid",       "lattice", "sphere_triple", "clumps",  NULL};
    body_list bl = {0};
    if (!root || !fy_node_is_mapping(root))
        return cr_yaml_fail(ps, cr_yaml_line(root), "(top level)",
                            "a model file is a mapping with 'bodies' (or 'chain'), "
                            "'contact', ...");
    if (cr_yaml_check_keys(ps, root, "", top_keys) || find_bodies(ps, root, &bl))
        return ps->rc;
    struct fy_node *name = cr_yaml_child(root, "name");
    cr_model_set_name(model,
                      name && fy_node_get_scalar0(name) ? fy_node_get_scalar0(name) : ps->file);
    cr_model_set_dimension(model, bl.dim);
    if (parse_fields(ps, cr_yaml_child(root, "fields"), bl.dim, fields) ||
        (bl.dim == 1 ? parse_dim1(ps, root, &bl, model, fields)
                     : parse_dim2(ps, root, &bl, model, fields)))
        return ps->rc;
    return finish_model(ps, root, model);
}

int cr_modelfile_parse_doc(cr_yaml_ctx *ps, struct fy_document *doc, cr_model **out)
{
    field_spec fields = {0};
    cr_model *model = cr_model_create();
    *out = NULL;
    if (!model) {
        cr_set_msg(ps->msg, ps->msglen, "%s: out of memory", ps->file);
        return ps->rc = CR_ERR_NOMEM;
    }
    parse_root(ps, fy_document_root(doc), model, &fields);
    free(fields.pivot);
    if (ps->rc != CR_OK) {
        cr_model_destroy(model);
        return ps->rc;
    }
    *out = model;
    return CR_OK;
}

int cr_modelfile_parse(const char *text, size_t len, const char *filename, cr_model **out,
                       char *msg, size_t msglen)
{
    cr_yaml_ctx ps = {.file = filename ? filename : "<model>", .msg = msg, .msglen = msglen};
    if (!text || !out) {
        cr_set_msg(msg, msglen, "cr_modelfile_parse: no text or output");
        return CR_ERR_INVALID;
    }
    *out = NULL;
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (doc) {
        cr_modelfile_parse_doc(&ps, doc, out);
        fy_document_destroy(doc);
    }
    return ps.rc;
}

int cr_modelfile_load(const char *path, cr_model **out, char **text_out, char *msg, size_t msglen)
{
    if (text_out)
        *text_out = NULL;
    if (!path || !out) {
        cr_set_msg(msg, msglen, "cr_modelfile_load: no path or output");
        return CR_ERR_INVALID;
    }
    size_t len;
    int rc;
    char *text = cr_yaml_read_file(path, &len, msg, msglen, &rc);
    if (!text)
        return rc;
    rc = cr_modelfile_parse(text, len, path, out, msg, msglen);
    if (rc == CR_OK && text_out)
        *text_out = text;
    else
        free(text);
    return rc;
}
