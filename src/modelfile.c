/*
 * YAML model files with libfyaml. libfyaml is used because it reports line and
 * column of every token: the error messages promise file, line and field.
 * Field-level checks (a negative mass, a missing key, overlapping balls) are
 * done here, at the node that holds the value, so the message can point at it;
 * cr_model_validate runs last as a safety net.
 */
#include "cradle/modelfile.h"

#include <errno.h>
#include <libfyaml.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"
#include "yaml-priv.h"

/* ---- contact laws ---------------------------------------------------------- */

typedef struct {
    cr_contact_params p;
    int has_material;
    double E, nu;
    int m_given;
    double target_e, target_v; /* restitution target (C solved later), 0: none */
} law_spec;

static int parse_law(cr_yaml_ctx *ps, struct fy_node *map, const char *where, law_spec *law,
                     int allow_between)
{
    static const char *const keys[] = {"K",       "n",           "C",       "m",
                                       "release", "material",    "between", "restitution",
                                       "reference_speed", NULL};
    static const char *const keys_default[] = {"K",       "n",        "C",     "m",
                                               "release", "material", "pairs", "restitution",
                                               "reference_speed", NULL};
    int line = cr_yaml_line(map);
    if (cr_yaml_check_keys(ps, map, where, allow_between ? keys : keys_default) != CR_OK)
        return ps->rc;
    double m = NAN;
    cr_yaml_number(ps, map, line, where, "K", 0, 0, &law->p.K);
    cr_yaml_number(ps, map, line, where, "n", 0, 0, &law->p.n);
    cr_yaml_number(ps, map, line, where, "C", 0, 0, &law->p.C);
    cr_yaml_number(ps, map, line, where, "m", 0, 0, &m);
    if (ps->rc != CR_OK)
        return ps->rc;
    if (!isnan(m)) {
        law->p.m = m;
        law->m_given = 1;
    } else if (!law->m_given) {
        law->p.m = law->p.n - 1.0;
    }
    struct fy_node *tn = cr_yaml_child(map, "restitution");
    if (tn) {
        law->target_v = 1.0;
        if (cr_yaml_number(ps, map, line, where, "restitution", 0, 0, &law->target_e) ||
            cr_yaml_number(ps, map, line, where, "reference_speed", 0, 0, &law->target_v))
            return ps->rc;
        char field[256];
        snprintf(field, sizeof field, "%s.restitution", where);
        if (!(law->target_e > 0.0 && law->target_e <= 1.0))
            return cr_yaml_fail(ps, cr_yaml_line(tn), field, "must lie in (0, 1] (got %g)",
                                law->target_e);
        if (!(law->target_v > 0.0))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "reference_speed")), field,
                                "reference_speed must be positive");
        if (cr_yaml_child(map, "C"))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "C")), field,
                                "give either C or restitution (C is then solved)");
    } else if (cr_yaml_child(map, "reference_speed")) {
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "reference_speed")), where,
                            "reference_speed goes with restitution");
    }
    struct fy_node *rel = cr_yaml_child(map, "release");
    if (rel) {
        char field[256];
        snprintf(field, sizeof field, "%s.release", where);
        const char *s = fy_node_is_scalar(rel) ? fy_node_get_scalar0(rel) : NULL;
        if (cr_release_from_name(s, &law->p.release) != CR_OK)
            return cr_yaml_fail(ps, cr_yaml_line(rel), field, "must be 'gap' or 'force' (got '%s')",
                        s ? s : "?");
    }
    struct fy_node *mat = cr_yaml_child(map, "material");
    if (mat) {
        char mw[256];
        snprintf(mw, sizeof mw, "%s.material", where);
        static const char *const mkeys[] = {"E", "nu", NULL};
        if (cr_yaml_need_map(ps, mat, line, mw) != CR_OK || cr_yaml_check_keys(ps, mat, mw, mkeys) != CR_OK)
            return ps->rc;
        int ml = cr_yaml_line(mat);
        if (cr_yaml_number(ps, mat, ml, mw, "E", 1, 0, &law->E) != CR_OK ||
            cr_yaml_number(ps, mat, ml, mw, "nu", 1, 0, &law->nu) != CR_OK ||
            cr_yaml_positive(ps, mat, mw, "E", law->E) != CR_OK)
            return ps->rc;
        if (!(law->nu > -1.0 && law->nu < 0.5))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(mat, "nu")), "nu",
                        "Poisson's ratio must lie in (-1, 0.5) (got %g)", law->nu);
        if (cr_yaml_child(map, "K"))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "K")), where,
                        "give either K or material, not both");
        law->has_material = 1;
        law->p.n = 1.5; /* Hertz */
        if (!law->m_given)
            law->p.m = 0.5;
    }
    char field[256];
    snprintf(field, sizeof field, "%s", where);
    if (!(law->p.n >= 1.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "n")), field, "n must be >= 1 (got %g)",
                    law->p.n);
    if (!law->has_material && !(law->p.K > 0.0))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "K")), field, "K must be positive (got %g)",
                    law->p.K);
    if (law->p.C < 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "C")), field, "C must be >= 0 (got %g)",
                    law->p.C);
    if (law->p.m < 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "m")), field,
                    "damping exponent m must be >= 0 (got %g)", law->p.m);
    return CR_OK;
}

/* The law of contact c, with K from the material when one is given. */
static cr_contact_params law_for_pair(const law_spec *law, const cr_model *model, size_t c)
{
    cr_contact_params p = law->p;
    if (law->has_material) {
        /* a wall (radius 0) is a flat: R = ∞ in 1/R* = Σ 1/Rᵢ */
        double ra = cr_model_radius(model, c), rb = cr_model_radius(model, c + 1);
        p.K = cr_contact_hertz_stiffness(law->E, law->nu, ra > 0 ? ra : INFINITY, law->E,
                                         law->nu, rb > 0 ? rb : INFINITY);
    }
    return p;
}

/* ---- fields ---------------------------------------------------------------- */

/* External fields, read before the bodies: pendulum strikers are placed by angle. */
typedef struct {
    double gravity;
    int pendulum;
    double length, g;
    double *pivot; /* per body: the pivot (NAN: none / not yet known) */
    size_t cap;
} field_spec;

static int parse_fields(cr_yaml_ctx *ps, struct fy_node *map, field_spec *f)
{
    static const char *const keys[] = {"gravity", "pendulum", NULL};
    static const char *const pkeys[] = {"length", "g", NULL};
    if (!map)
        return CR_OK;
    if (cr_yaml_need_map(ps, map, 0, "fields") || cr_yaml_check_keys(ps, map, "fields", keys) ||
        cr_yaml_number(ps, map, cr_yaml_line(map), "fields", "gravity", 0, 0, &f->gravity))
        return ps->rc;
    struct fy_node *pm = cr_yaml_child(map, "pendulum");
    if (pm) {
        f->g = 9.81;
        if (cr_yaml_need_map(ps, pm, cr_yaml_line(map), "fields.pendulum") ||
            cr_yaml_check_keys(ps, pm, "fields.pendulum", pkeys) ||
            cr_yaml_number(ps, pm, cr_yaml_line(pm), "fields.pendulum", "length", 1, 0,
                           &f->length) ||
            cr_yaml_number(ps, pm, cr_yaml_line(pm), "fields.pendulum", "g", 0, 0, &f->g) ||
            cr_yaml_positive(ps, pm, "fields.pendulum", "length", f->length) ||
            cr_yaml_positive(ps, pm, "fields.pendulum", "g", f->g))
            return ps->rc;
        f->pendulum = 1;
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

/* ---- bodies ---------------------------------------------------------------- */

static int add_wall_checked(cr_yaml_ctx *ps, cr_model *model, struct fy_node *at,
                            const char *field, double x)
{
    size_t n = cr_model_ball_count(model);
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
        return cr_yaml_fail(ps, cr_yaml_line(at), field, "radius must be positive (got %g)", radius);
    size_t n = cr_model_ball_count(model);
    if (n > 0) {
        double xp = cr_model_position(model, n - 1), rp = cr_model_radius(model, n - 1);
        if (!(x > xp))
            return cr_yaml_fail(ps, cr_yaml_line(at), field,
                        "balls must be listed in increasing x (x = %g after %g)", x, xp);
        double delta = rp + radius - (x - xp);
        double tol = CR_GEOM_TOL * (rp > 0 && rp < radius ? rp : radius);
        if (delta > tol)
            return cr_yaml_fail(ps, cr_yaml_line(at), field,
                        "interpenetrates ball %zu at start by %g m (touching tolerance %g m)",
                        n - 1, delta, tol);
    }
    int rc = cr_model_add_ball(model, mass, radius, x, v);
    if (rc < 0) {
        ps->rc = rc;
        cr_set_msg(ps->msg, ps->msglen, "%s: %s", ps->file, cr_strerror(rc));
        return rc;
    }
    return CR_OK;
}

static int parse_balls(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model, field_spec *f)
{
    static const char *const keys[] = {"mass", "radius", "x", "v", "pivot", "wall", NULL};
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), "balls", "must be a non-empty list of balls");
    void *it = NULL;
    struct fy_node *b;
    int i = 0;
    while ((b = fy_node_sequence_iterate(seq, &it))) {
        char where[64];
        snprintf(where, sizeof where, "balls[%d]", i++);
        if (cr_yaml_need_map(ps, b, cr_yaml_line(seq), where) != CR_OK ||
            cr_yaml_check_keys(ps, b, where, keys) != CR_OK)
            return ps->rc;
        int line = cr_yaml_line(b);
        double mass = 0, radius = 0, x = 0, v = 0, pivot = NAN;
        struct fy_node *wall = cr_yaml_child(b, "wall");
        if (wall) {
            const char *w = fy_node_get_scalar0(wall);
            char field[96];
            snprintf(field, sizeof field, "%s.wall", where);
            if (!w || strcmp(w, "true") != 0)
                return cr_yaml_fail(ps, cr_yaml_line(wall), field, "must be true (or left out)");
            if (cr_yaml_child(b, "mass") || cr_yaml_child(b, "radius") || cr_yaml_child(b, "v"))
                return cr_yaml_fail(ps, cr_yaml_line(b), field,
                                    "a wall has only a position x (no mass, radius, v)");
            snprintf(field, sizeof field, "%s.x", where);
            if (cr_yaml_number(ps, b, line, where, "x", 1, 0, &x) ||
                add_wall_checked(ps, model, cr_yaml_child(b, "x"), field, x) ||
                note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
                return ps->rc;
            continue;
        }
        if (cr_yaml_number(ps, b, line, where, "pivot", 0, 0, &pivot) != CR_OK)
            return ps->rc;
        if (cr_yaml_number(ps, b, line, where, "mass", 1, 0, &mass) != CR_OK ||
            cr_yaml_number(ps, b, line, where, "radius", 1, 0, &radius) != CR_OK ||
            cr_yaml_number(ps, b, line, where, "x", 1, 0, &x) != CR_OK ||
            cr_yaml_number(ps, b, line, where, "v", 0, 0, &v) != CR_OK)
            return ps->rc;
        char field[96];
        if (!(mass > 0.0)) {
            snprintf(field, sizeof field, "%s.mass", where);
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "mass")), field, "must be positive (got %g)",
                        mass);
        }
        if (!(radius > 0.0)) {
            snprintf(field, sizeof field, "%s.radius", where);
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(b, "radius")), field, "must be positive (got %g)",
                        radius);
        }
        snprintf(field, sizeof field, "%s.x", where);
        if (add_ball_checked(ps, model, cr_yaml_child(b, "x"), field, mass, radius, x, v) != CR_OK)
            return ps->rc;
        /* a pendulum ball hangs above its given position unless a pivot is named */
        if (note_pivot(ps, f, cr_model_ball_count(model) - 1, isnan(pivot) ? x : pivot))
            return ps->rc;
    }
    return CR_OK;
}

/*
 * chain: count equal balls; the first striker.count of them move at
 * striker.velocity and stand striker.gap (surface to surface) before the rest.
 */
static int parse_chain(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model, field_spec *f)
{
    static const char *const keys[] = {"count", "mass",    "radius", "x0",       "spacing",
                                       "velocity", "striker", "walls", "wall_gap", "link",
                                       NULL};
    static const char *const skeys[] = {"count", "velocity", "gap", "angle", NULL};
    static const char *const lkeys[] = {"k", "c", NULL};
    if (cr_yaml_need_map(ps, map, 0, "chain") != CR_OK || cr_yaml_check_keys(ps, map, "chain", keys) != CR_OK)
        return ps->rc;
    int line = cr_yaml_line(map);
    long count = 0, scount = 1;
    double mass = 0, radius = 0, x0 = 0, spacing = NAN, vrest = 0, vstrike = 0, gap = 0;
    double angle = NAN, wall_gap = 0;
    int wall_left = 0, wall_right = 0;
    if (cr_yaml_count(ps, map, line, "chain", "count", 1, 1, &count) != CR_OK ||
        cr_yaml_number(ps, map, line, "chain", "mass", 1, 0, &mass) != CR_OK ||
        cr_yaml_number(ps, map, line, "chain", "radius", 1, 0, &radius) != CR_OK ||
        cr_yaml_number(ps, map, line, "chain", "x0", 0, 0, &x0) != CR_OK ||
        cr_yaml_number(ps, map, line, "chain", "spacing", 0, 0, &spacing) != CR_OK ||
        cr_yaml_number(ps, map, line, "chain", "velocity", 0, 0, &vrest) != CR_OK ||
        cr_yaml_positive(ps, map, "chain", "mass", mass) != CR_OK ||
        cr_yaml_positive(ps, map, "chain", "radius", radius) != CR_OK)
        return ps->rc;
    if (isnan(spacing))
        spacing = 2.0 * radius;
    if (spacing < 2.0 * radius * (1.0 - CR_GEOM_TOL))
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "spacing")), "chain.spacing",
                    "balls interpenetrate at start: spacing %g < 2 radius = %g", spacing,
                    2.0 * radius);
    struct fy_node *st = cr_yaml_child(map, "striker");
    if (st) {
        if (cr_yaml_need_map(ps, st, line, "chain.striker") != CR_OK ||
            cr_yaml_check_keys(ps, st, "chain.striker", skeys) != CR_OK)
            return ps->rc;
        int sl = cr_yaml_line(st);
        if (cr_yaml_count(ps, st, sl, "chain.striker", "count", 0, 1, &scount) != CR_OK ||
            cr_yaml_number(ps, st, sl, "chain.striker", "angle", 0, 0, &angle) != CR_OK ||
            cr_yaml_number(ps, st, sl, "chain.striker", "velocity", isnan(angle), 0,
                           &vstrike) != CR_OK ||
            cr_yaml_number(ps, st, sl, "chain.striker", "gap", 0, 0, &gap) != CR_OK)
            return ps->rc;
        if (!isnan(angle) && !f->pendulum)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "angle")),
                                "chain.striker.angle", "needs fields.pendulum");
        if (!isnan(angle) && cr_yaml_child(st, "gap"))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "gap")), "chain.striker.gap",
                                "give either angle (a lifted pendulum) or gap");
        if (scount > count)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "count")), "chain.striker.count",
                        "more strikers (%ld) than balls (%ld)", scount, count);
        if (gap < 0.0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(st, "gap")), "chain.striker.gap",
                        "must be >= 0 (got %g)", gap);
    } else {
        scount = 0;
    }
    struct fy_node *wl = cr_yaml_child(map, "walls");
    if (wl) {
        void *it = NULL;
        struct fy_node *w;
        if (!fy_node_is_sequence(wl))
            return cr_yaml_fail(ps, cr_yaml_line(wl), "chain.walls", "a list: [left], [right] or [left, right]");
        while ((w = fy_node_sequence_iterate(wl, &it))) {
            const char *side = fy_node_get_scalar0(w);
            if (side && strcmp(side, "left") == 0)
                wall_left = 1;
            else if (side && strcmp(side, "right") == 0)
                wall_right = 1;
            else
                return cr_yaml_fail(ps, cr_yaml_line(w), "chain.walls",
                                    "'left' or 'right' (got '%s')", side ? side : "?");
        }
        if (cr_yaml_number(ps, map, line, "chain", "wall_gap", 0, 0, &wall_gap))
            return ps->rc;
        if (wall_gap < 0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "wall_gap")),
                                "chain.wall_gap", "must be >= 0 (got %g)", wall_gap);
    }
    cr_link link = {0};
    struct fy_node *ln = cr_yaml_child(map, "link");
    if (ln) {
        if (cr_yaml_need_map(ps, ln, line, "chain.link") ||
            cr_yaml_check_keys(ps, ln, "chain.link", lkeys) ||
            cr_yaml_number(ps, ln, cr_yaml_line(ln), "chain.link", "k", 1, 0, &link.k) ||
            cr_yaml_number(ps, ln, cr_yaml_line(ln), "chain.link", "c", 0, 0, &link.c) ||
            cr_yaml_positive(ps, ln, "chain.link", "k", link.k))
            return ps->rc;
        link.length = spacing;
    }
    if (wall_left) {
        if (add_wall_checked(ps, model, wl, "chain.walls", x0 - radius - wall_gap) ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
            return ps->rc;
    }
    size_t first = cr_model_ball_count(model);
    double rest = x0, shift = 0.0;
    for (long i = 0; i < count; i++) {
        /* touching neighbours are placed from the previous one so that the
         * overlap is exactly zero, not zero up to rounding; `rest` is the
         * position at rest (the pendulum pivot), `shift` the gap behind the
         * strikers */
        if (i > 0)
            rest += spacing;
        if (i == scount && i > 0 && isnan(angle))
            shift = gap;
        double x = rest + shift;
        double v = i < scount ? vstrike : vrest;
        if (i < scount && !isnan(angle)) {
            /* lifted strikers: arc coordinate pivot − L·angle, released at v */
            x = rest - f->length * angle;
            v = isnan(vstrike) ? 0.0 : vstrike;
        }
        if (add_ball_checked(ps, model, map, "chain", mass, radius, x, v) != CR_OK ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, rest))
            return ps->rc;
    }
    if (wall_right) {
        double xl = cr_model_position(model, cr_model_ball_count(model) - 1);
        if (add_wall_checked(ps, model, wl, "chain.walls", xl + radius + wall_gap) ||
            note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
            return ps->rc;
    }
    if (ln)
        for (long i = 0; i + 1 < count; i++)
            cr_model_set_link(model, first + (size_t)i, &link);
    return CR_OK;
}

/*
 * rods: elastic rods end to end, each discretised into `elements` lumped masses
 * joined by links k = EA/Δx (Glocker's rods, 000 sect. 3). Contacts act only
 * between rods.
 */
static int parse_rods(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model, field_spec *f)
{
    static const char *const keys[] = {"elements", "length", "mass", "EA", "velocity", "gap",
                                       NULL};
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) == 0)
        return cr_yaml_fail(ps, cr_yaml_line(seq), "rods", "must be a non-empty list of rods");
    void *it = NULL;
    struct fy_node *r;
    int k = 0;
    double end = 0.0; /* surface of the previous rod */
    while ((r = fy_node_sequence_iterate(seq, &it))) {
        char w[64];
        snprintf(w, sizeof w, "rods[%d]", k);
        long ne = 0;
        double len = 0, mass = 0, EA = 0, v = 0, gap = 0;
        int line = cr_yaml_line(r);
        if (cr_yaml_need_map(ps, r, cr_yaml_line(seq), w) || cr_yaml_check_keys(ps, r, w, keys) ||
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
            double x = i == 0 ? end + (k ? gap : 0.0) + 0.5 * dx
                              : cr_model_position(model, first + (size_t)i - 1) + dx;
            if (add_ball_checked(ps, model, r, w, mass / (double)ne, 0.5 * dx, x, v) ||
                note_pivot(ps, f, cr_model_ball_count(model) - 1, NAN))
                return ps->rc;
        }
        for (long i = 0; i + 1 < ne; i++)
            cr_model_set_link(model, first + (size_t)i, &link);
        end = cr_model_position(model, cr_model_ball_count(model) - 1) + 0.5 * dx;
        k++;
    }
    return CR_OK;
}

/* links: [{between: [i, i+1], k, length, c, contact}] */
static int parse_links(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model)
{
    static const char *const keys[] = {"between", "k", "length", "c", "contact", NULL};
    if (!seq)
        return CR_OK;
    if (!fy_node_is_sequence(seq))
        return cr_yaml_fail(ps, cr_yaml_line(seq), "links", "must be a list");
    void *it = NULL;
    struct fy_node *l;
    int k = 0;
    while ((l = fy_node_sequence_iterate(seq, &it))) {
        char w[64], field[96];
        snprintf(w, sizeof w, "links[%d]", k++);
        snprintf(field, sizeof field, "%s.between", w);
        if (cr_yaml_need_map(ps, l, cr_yaml_line(seq), w) || cr_yaml_check_keys(ps, l, w, keys))
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
    }
    return CR_OK;
}

/* Hangs every moving body on its pendulum and sets gravity. */
static int apply_fields(cr_yaml_ctx *ps, const field_spec *f, cr_model *model)
{
    cr_model_set_gravity(model, f->gravity);
    if (!f->pendulum)
        return CR_OK;
    for (size_t i = 0; i < cr_model_ball_count(model); i++) {
        if (cr_model_is_fixed(model, i))
            continue;
        double pivot = i < f->cap ? f->pivot[i] : NAN;
        if (isnan(pivot))
            return cr_yaml_fail(ps, 0, "fields.pendulum", "body %zu has no pivot (rods cannot hang)",
                                i);
        cr_model_set_pendulum(model, i, pivot, f->length, f->g);
    }
    return CR_OK;
}

static int parse_contact(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model)
{
    law_spec def;
    memset(&def, 0, sizeof def);
    cr_contact_params_init(&def.p, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    if (map) {
        if (cr_yaml_need_map(ps, map, 0, "contact") != CR_OK ||
            parse_law(ps, map, "contact", &def, 0) != CR_OK)
            return ps->rc;
        if (!def.has_material && !cr_yaml_child(map, "K"))
            return cr_yaml_fail(ps, cr_yaml_line(map), "contact.K",
                        "missing required field (or give contact.material)");
    }
    size_t nc = cr_model_contact_count(model);
    for (size_t c = 0; c < nc; c++) {
        cr_contact_params p = law_for_pair(&def, model, c);
        cr_model_set_contact(model, c, &p);
        if (def.target_e > 0.0)
            cr_model_set_contact_target(model, c, def.target_e, def.target_v);
    }
    struct fy_node *pairs = cr_yaml_child(map, "pairs");
    if (!pairs)
        return CR_OK;
    if (!fy_node_is_sequence(pairs))
        return cr_yaml_fail(ps, cr_yaml_line(pairs), "contact.pairs", "must be a list");
    void *it = NULL;
    struct fy_node *pm;
    int k = 0;
    while ((pm = fy_node_sequence_iterate(pairs, &it))) {
        char where[64];
        snprintf(where, sizeof where, "contact.pairs[%d]", k++);
        if (cr_yaml_need_map(ps, pm, cr_yaml_line(pairs), where) != CR_OK)
            return ps->rc;
        struct fy_node *bt = cr_yaml_child(pm, "between");
        char field[96];
        snprintf(field, sizeof field, "%s.between", where);
        if (!bt)
            return cr_yaml_fail(ps, cr_yaml_line(pm), field, "missing required field");
        long a = -1, b = -1;
        if (fy_node_is_sequence(bt) && fy_node_sequence_item_count(bt) == 2) {
            const char *sa = fy_node_get_scalar0(fy_node_sequence_get_by_index(bt, 0));
            const char *sb = fy_node_get_scalar0(fy_node_sequence_get_by_index(bt, 1));
            a = sa ? strtol(sa, NULL, 10) : -1;
            b = sb ? strtol(sb, NULL, 10) : -1;
        }
        if (a < 0 || b != a + 1 || (size_t)b >= cr_model_ball_count(model))
            return cr_yaml_fail(ps, cr_yaml_line(bt), field,
                        "must name two neighbouring balls [i, i+1] of the chain");
        law_spec law = def;
        law.m_given = 0;
        if (cr_yaml_child(pm, "C"))
            law.target_e = 0.0; /* the pair's own C replaces the default's target */
        if (parse_law(ps, pm, where, &law, 1) != CR_OK)
            return ps->rc;
        if (cr_yaml_child(pm, "K"))
            law.has_material = 0;
        cr_contact_params p = law_for_pair(&law, model, (size_t)a);
        cr_model_set_contact(model, (size_t)a, &p);
        if (law.target_e > 0.0)
            cr_model_set_contact_target(model, (size_t)a, law.target_e, law.target_v);
    }
    return CR_OK;
}

static int parse_settings(cr_yaml_ctx *ps, struct fy_node *integ, struct fy_node *out,
                          cr_model *model)
{
    static const char *const ikeys[] = {"t_end", "rtol", "atol", "method", NULL};
    static const char *const okeys[] = {"interval", NULL};
    cr_settings s = cr_settings_default();
    if (integ) {
        if (cr_yaml_need_map(ps, integ, 0, "integration") != CR_OK ||
            cr_yaml_check_keys(ps, integ, "integration", ikeys) != CR_OK)
            return ps->rc;
        int l = cr_yaml_line(integ);
        if (cr_yaml_number(ps, integ, l, "integration", "t_end", 0, 1, &s.t_end) != CR_OK ||
            cr_yaml_number(ps, integ, l, "integration", "rtol", 0, 0, &s.rtol) != CR_OK ||
            cr_yaml_number(ps, integ, l, "integration", "atol", 0, 0, &s.atol) != CR_OK)
            return ps->rc;
        if (!(s.rtol > 0.0 && s.rtol < 1.0))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "rtol")), "integration.rtol",
                        "must lie in (0, 1) (got %g)", s.rtol);
        if (!(s.atol > 0.0))
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "atol")), "integration.atol",
                        "must be positive (got %g)", s.atol);
        if (s.t_end < 0.0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(integ, "t_end")), "integration.t_end",
                        "must be positive or 'auto' (got %g)", s.t_end);
        struct fy_node *m = cr_yaml_child(integ, "method");
        if (m) {
            const char *v = fy_node_get_scalar0(m);
            if (v && strcmp(v, "bdf") == 0)
                s.method = CR_METHOD_BDF;
            else if (v && strcmp(v, "adams") == 0)
                s.method = CR_METHOD_ADAMS;
            else
                return cr_yaml_fail(ps, cr_yaml_line(m), "integration.method",
                            "must be 'bdf' or 'adams' (got '%s')", v ? v : "?");
        }
    }
    if (out) {
        if (cr_yaml_need_map(ps, out, 0, "output") != CR_OK ||
            cr_yaml_check_keys(ps, out, "output", okeys) != CR_OK ||
            cr_yaml_number(ps, out, cr_yaml_line(out), "output", "interval", 0, 1,
                       &s.output_interval) != CR_OK)
            return ps->rc;
        if (s.output_interval < 0.0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(out, "interval")), "output.interval",
                        "must be positive or 'auto'");
    }
    cr_model_set_settings(model, &s);
    return CR_OK;
}

int cr_modelfile_parse(const char *text, size_t len, const char *filename, cr_model **out,
                       char *msg, size_t msglen)
{
    static const char *const top_keys[] = {"name",   "description", "balls",  "chain",
                                           "rods",   "links",       "fields", "contact",
                                           "integration", "output", NULL};
    cr_yaml_ctx ps = {.file = filename ? filename : "<model>", .msg = msg, .msglen = msglen};
    if (!text || !out) {
        cr_set_msg(msg, msglen, "cr_modelfile_parse: no text or output");
        return CR_ERR_INVALID;
    }
    *out = NULL;

    cr_model *model = NULL;
    field_spec fields = {0};
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (!doc)
        goto done;
    struct fy_node *root = fy_document_root(doc);
    if (!root || !fy_node_is_mapping(root)) {
        cr_yaml_fail(&ps, cr_yaml_line(root), "(top level)", "a model file is a mapping with 'balls' or "
                                                  "'chain', 'contact', ...");
        goto done;
    }
    if (cr_yaml_check_keys(&ps, root, "", top_keys) != CR_OK)
        goto done;
    model = cr_model_create();
    if (!model) {
        cr_set_msg(msg, msglen, "%s: out of memory", ps.file);
        ps.rc = CR_ERR_NOMEM;
        goto done;
    }
    struct fy_node *name = cr_yaml_child(root, "name");
    cr_model_set_name(model, name && fy_node_get_scalar0(name) ? fy_node_get_scalar0(name)
                                                               : ps.file);
    struct fy_node *balls = cr_yaml_child(root, "balls"), *chain = cr_yaml_child(root, "chain");
    struct fy_node *rods = cr_yaml_child(root, "rods");
    if ((balls != NULL) + (chain != NULL) + (rods != NULL) > 1) {
        cr_yaml_fail(&ps, cr_yaml_line(chain ? chain : rods), chain ? "chain" : "rods",
                     "give one of 'balls', 'chain', 'rods'");
        goto done;
    }
    if (!balls && !chain && !rods) {
        cr_yaml_fail(&ps, 1, "balls", "missing required field (a list of balls, a 'chain' or 'rods')");
        goto done;
    }
    if (parse_fields(&ps, cr_yaml_child(root, "fields"), &fields) != CR_OK)
        goto done;
    if ((balls ? parse_balls(&ps, balls, model, &fields)
               : chain ? parse_chain(&ps, chain, model, &fields)
                       : parse_rods(&ps, rods, model, &fields)) != CR_OK)
        goto done;
    if (parse_links(&ps, cr_yaml_child(root, "links"), model) != CR_OK)
        goto done;
    if (apply_fields(&ps, &fields, model) != CR_OK)
        goto done;
    if (parse_contact(&ps, cr_yaml_child(root, "contact"), model) != CR_OK)
        goto done;
    if (parse_settings(&ps, cr_yaml_child(root, "integration"), cr_yaml_child(root, "output"), model) != CR_OK)
        goto done;
    if (cr_model_has_fields(model) && cr_model_settings(model)->t_end <= 0.0) {
        struct fy_node *te = cr_yaml_child(cr_yaml_child(root, "integration"), "t_end");
        cr_yaml_fail(&ps, te ? cr_yaml_line(te) : cr_yaml_line(cr_yaml_child(root, "fields")),
                     "integration.t_end",
                     "with gravity or pendulums nothing comes to rest: give an end time");
        goto done;
    }
    char why[CR_ERRMSG_LEN];
    /* a restitution target leaves C to cr_calibrate_model: validate without it */
    int targets = 0;
    for (size_t c = 0; c < cr_model_contact_count(model); c++) {
        double e, v;
        targets |= cr_model_contact_target(model, c, &e, &v) && e < 1.0;
    }
    if (!targets && cr_model_validate(model, why, sizeof why) != CR_OK) {
        cr_set_msg(msg, msglen, "%s: %s", ps.file, why);
        ps.rc = CR_ERR_MODEL;
    }
done:
    if (doc)
        fy_document_destroy(doc);
    free(fields.pivot);
    if (ps.rc != CR_OK) {
        cr_model_destroy(model);
        return ps.rc;
    }
    *out = model;
    return CR_OK;
}

int cr_modelfile_load(const char *path, cr_model **out, char **text_out, char *msg,
                      size_t msglen)
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

/* ---- pools ----------------------------------------------------------------- */

int cr_modelfile_is_pool(const char *text, size_t len)
{
    char msg[64];
    cr_yaml_ctx ps = {.file = "", .msg = msg, .msglen = sizeof msg};
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (!doc)
        return 0;
    struct fy_node *root = fy_document_root(doc);
    int yes = root && fy_node_is_mapping(root) && cr_yaml_child(root, "discs") != NULL;
    fy_document_destroy(doc);
    return yes;
}

int cr_modelfile_parse_pool(const char *text, size_t len, const char *filename, cr_pool **out,
                            cr_pool_settings *set, char *msg, size_t msglen)
{
    static const char *const top[] = {"name", "description", "discs", "walls",
                                      "contact", "integration", NULL};
    static const char *const dkeys[] = {"mass", "radius", "x", "y", "vx", "vy", NULL};
    static const char *const wkeys[] = {"normal", "offset", "contact", NULL};
    static const char *const ikeys[] = {"t_end", "rtol", "atol", "skin", "solver", NULL};
    cr_yaml_ctx ps = {.file = filename ? filename : "<pool>", .msg = msg, .msglen = msglen};
    *out = NULL;
    set->t_end = 0.0;
    set->rtol = 1e-10;
    set->atol = 1e-12;
    double skin = 0.5;
    cr_disc *d = NULL;
    cr_pool *pool = NULL;
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    struct fy_node *root = doc ? fy_document_root(doc) : NULL;
    if (!doc)
        goto done;
    if (!root || !fy_node_is_mapping(root) || cr_yaml_check_keys(&ps, root, "", top))
        goto done;
    struct fy_node *dl = cr_yaml_child(root, "discs");
    if (!fy_node_is_sequence(dl) || fy_node_sequence_item_count(dl) == 0) {
        cr_yaml_fail(&ps, cr_yaml_line(dl), "discs", "must be a non-empty list of discs");
        goto done;
    }
    size_t n = (size_t)fy_node_sequence_item_count(dl);
    d = calloc(n, sizeof(cr_disc));
    if (!d) {
        cr_yaml_fail(&ps, 0, "discs", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        struct fy_node *b = fy_node_sequence_get_by_index(dl, (int)i);
        char w[48];
        snprintf(w, sizeof w, "discs[%zu]", i);
        int l = cr_yaml_line(b);
        if (cr_yaml_need_map(&ps, b, cr_yaml_line(dl), w) || cr_yaml_check_keys(&ps, b, w, dkeys) ||
            cr_yaml_number(&ps, b, l, w, "mass", 1, 0, &d[i].mass) ||
            cr_yaml_number(&ps, b, l, w, "radius", 1, 0, &d[i].radius) ||
            cr_yaml_number(&ps, b, l, w, "x", 1, 0, &d[i].x) ||
            cr_yaml_number(&ps, b, l, w, "y", 1, 0, &d[i].y) ||
            cr_yaml_number(&ps, b, l, w, "vx", 0, 0, &d[i].vx) ||
            cr_yaml_number(&ps, b, l, w, "vy", 0, 0, &d[i].vy) ||
            cr_yaml_positive(&ps, b, w, "mass", d[i].mass) ||
            cr_yaml_positive(&ps, b, w, "radius", d[i].radius))
            goto done;
    }
    /* overlaps at start, with the line of the disc (larger pools: the first
     * neighbour search refuses them, without a line) */
    for (size_t j = 1; n <= 2000 && j < n; j++)
        for (size_t i = 0; i < j; i++) {
            double gap = hypot(d[j].x - d[i].x, d[j].y - d[i].y) - d[i].radius - d[j].radius;
            double tol = CR_GEOM_TOL * fmin(d[i].radius, d[j].radius);
            if (gap < -tol) {
                char w[48];
                snprintf(w, sizeof w, "discs[%zu]", j);
                cr_yaml_fail(&ps, cr_yaml_line(fy_node_sequence_get_by_index(dl, (int)j)), w,
                             "interpenetrates disc %zu at start by %g m (touching tolerance %g m)",
                             i, -gap, tol);
                goto done;
            }
        }
    law_spec law;
    memset(&law, 0, sizeof law);
    cr_contact_params_init(&law.p, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    struct fy_node *cm = cr_yaml_child(root, "contact");
    if (cm && (cr_yaml_need_map(&ps, cm, 0, "contact") || parse_law(&ps, cm, "contact", &law, 0)))
        goto done;
    if (cm && (cr_yaml_child(cm, "pairs") || law.target_e > 0.0)) {
        cr_yaml_fail(&ps, cr_yaml_line(cm), "contact",
                     "pools take one contact law (no pairs, no restitution target yet)");
        goto done;
    }
    if (law.has_material) {
        for (size_t i = 1; i < n; i++)
            if (d[i].radius != d[0].radius) {
                cr_yaml_fail(&ps, cr_yaml_line(cr_yaml_child(cm, "material")),
                             "contact.material", "needs equal radii in a pool; give K");
                goto done;
            }
        law.p.K = cr_contact_hertz_stiffness(law.E, law.nu, d[0].radius, law.E, law.nu,
                                             d[0].radius);
    }
    struct fy_node *in = cr_yaml_child(root, "integration");
    if (in) {
        int l = cr_yaml_line(in);
        if (cr_yaml_need_map(&ps, in, 0, "integration") ||
            cr_yaml_check_keys(&ps, in, "integration", ikeys) ||
            cr_yaml_number(&ps, in, l, "integration", "t_end", 0, 1, &set->t_end) ||
            cr_yaml_number(&ps, in, l, "integration", "rtol", 0, 0, &set->rtol) ||
            cr_yaml_number(&ps, in, l, "integration", "atol", 0, 0, &set->atol) ||
            cr_yaml_number(&ps, in, l, "integration", "skin", 0, 0, &skin))
            goto done;
    }
    pool = cr_pool_create(n, d, &law.p, msg, msglen);
    if (!pool) {
        char why[CR_ERRMSG_LEN];
        snprintf(why, sizeof why, "%s", msg);
        cr_yaml_fail(&ps, cr_yaml_line(dl), "discs", "%s", why);
        goto done;
    }
    struct fy_node *sv = cr_yaml_child(in, "solver");
    if (sv) {
        const char *name = fy_node_get_scalar0(sv);
        cr_pool_solver solver = CR_POOL_SOLVER_AUTO;
        if (name && strcmp(name, "klu") == 0)
            solver = CR_POOL_SOLVER_KLU;
        else if (name && strcmp(name, "gmres") == 0)
            solver = CR_POOL_SOLVER_GMRES;
        else if (!name || strcmp(name, "auto") != 0) {
            cr_yaml_fail(&ps, cr_yaml_line(sv), "integration.solver",
                         "auto, klu or gmres (got '%s')", name ? name : "?");
            goto done;
        }
        cr_pool_set_linear_solver(pool, solver);
    }
    if (cr_pool_set_tolerances(pool, set->rtol, set->atol) != CR_OK ||
        cr_pool_set_skin(pool, skin) != CR_OK) {
        cr_yaml_fail(&ps, cr_yaml_line(in), "integration",
                     "need 0 < rtol < 1, atol > 0, skin > 0");
        goto done;
    }
    struct fy_node *wl = cr_yaml_child(root, "walls");
    if (wl && !fy_node_is_sequence(wl)) {
        cr_yaml_fail(&ps, cr_yaml_line(wl), "walls", "must be a list");
        goto done;
    }
    for (int k = 0; wl && k < fy_node_sequence_item_count(wl); k++) {
        struct fy_node *w = fy_node_sequence_get_by_index(wl, k);
        char where[48];
        snprintf(where, sizeof where, "walls[%d]", k);
        double nrm[2], off = 0.0;
        size_t got = 0;
        if (cr_yaml_need_map(&ps, w, cr_yaml_line(wl), where) ||
            cr_yaml_check_keys(&ps, w, where, wkeys) ||
            cr_yaml_numbers(&ps, cr_yaml_child(w, "normal"), "normal", nrm, 2, &got) ||
            cr_yaml_number(&ps, w, cr_yaml_line(w), where, "offset", 1, 0, &off))
            goto done;
        /* a wall may carry its own law; material data then use R* = r of the disc */
        law_spec wlaw = law;
        struct fy_node *wc = cr_yaml_child(w, "contact");
        char wcw[64];
        snprintf(wcw, sizeof wcw, "%s.contact", where);
        wlaw.has_material = 0;
        wlaw.m_given = 0;
        if (wc && (cr_yaml_need_map(&ps, wc, cr_yaml_line(w), wcw) ||
                   parse_law(&ps, wc, wcw, &wlaw, 0)))
            goto done;
        if (wc && wlaw.has_material)
            wlaw.p.K = cr_contact_hertz_stiffness(wlaw.E, wlaw.nu, d[0].radius, wlaw.E, wlaw.nu,
                                                  INFINITY);
        int rc = got == 2 ? cr_pool_add_wall_law(pool, nrm[0], nrm[1], off, wc ? &wlaw.p : NULL)
                          : CR_ERR_INVALID;
        if (rc != CR_OK) {
            cr_yaml_fail(&ps, cr_yaml_line(w), where, "%s",
                         got == 2 ? cr_pool_last_error(pool) : "normal needs two numbers");
            goto done;
        }
    }
done:
    if (doc)
        fy_document_destroy(doc);
    free(d);
    if (ps.rc != CR_OK) {
        cr_pool_destroy(pool);
        return ps.rc;
    }
    *out = pool;
    return CR_OK;
}
