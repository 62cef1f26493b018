/*
 * The dim-3 body generators of a model file (docs/model-format.md,
 * "Generated sphere models"):
 *
 *   sphere_triple: a striker moving along the axis of three touching spheres
 *     that lie in the plane normal to the axis, so that it meets all three at
 *     once (the tetrahedral configuration: each contact normal makes
 *     acos(sqrt(2/3)) = 35.26 deg with the axis when the targets touch);
 *   lattice: a block of spheres on a simple cubic or face-centred cubic
 *     lattice, a tetrahedral stack of close-packed layers, or spheres placed
 *     by random sequential insertion in a box; optional random displacements
 *     (jitter) drawn from a stated distribution with a seed (GSL's
 *     Mersenne twister), a box of half-space walls and a striker aimed at a
 *     face.
 *
 * Every refusal names the generator's field and line (exit 3 in the CLI).
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model-priv.h"

#define CR_MF_PI 3.14159265358979323846

/* ---- common pieces -------------------------------------------------------- */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double *a)
{
    return hypot(hypot(a[0], a[1]), a[2]);
}

/* Adds one sphere (range-checked against the generator's map), with the
 * generator's material when it gave one. */
static int add_sphere(cr_yaml_ctx *ps, struct fy_node *map, const char *where, cr_model *model,
                      double mass, double radius, const double *x, const double *v,
                      const double *material)
{
    const cr_body_keys bk = {NULL, NULL, {NULL, NULL, NULL}, {NULL, NULL, NULL}, NULL, NULL};
    if (cr_modelfile_body_in_range(ps, map, where, &bk, mass, radius, x, v, 3))
        return ps->rc;
    int i = cr_modelfile_add_body(ps, NULL, model, mass, radius, x, v);
    if (i < 0)
        return i;
    if (material)
        cr_model_set_material(model, (size_t)i, material[0], material[1]);
    return CR_OK;
}

/* radius, mass or density and an optional material {E, nu} of a generator's
 * map; material[2] is 1 when one was given. */
static int read_sphere(cr_yaml_ctx *ps, struct fy_node *map, const char *w, double *radius,
                       double *mass, double *material)
{
    int line = cr_yaml_line(map);
    if (cr_yaml_number(ps, map, line, w, "radius", 1, 0, radius) ||
        cr_yaml_positive(ps, map, w, "radius", *radius) ||
        cr_modelfile_mass(ps, map, w, *radius, mass))
        return ps->rc;
    material[2] = 0.0;
    struct fy_node *mat = cr_yaml_child(map, "material");
    if (!mat)
        return CR_OK;
    char mw[96];
    snprintf(mw, sizeof mw, "%s.material", w);
    if (cr_modelfile_material(ps, mat, line, mw, &material[0], &material[1]))
        return ps->rc;
    material[2] = 1.0;
    return CR_OK;
}

/* Two unit vectors that complete the unit vector @p a to a right-handed
 * orthonormal frame (e1 from the coordinate axis least aligned with a). */
static void frame_of(const double *a, double *e1, double *e2)
{
    int k = fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2]) ? 0
            : fabs(a[1]) <= fabs(a[2])                           ? 1
                                                                 : 2;
    double ref[3] = {0, 0, 0};
    ref[k] = 1.0;
    double c[3] = {a[1] * ref[2] - a[2] * ref[1], a[2] * ref[0] - a[0] * ref[2],
                   a[0] * ref[1] - a[1] * ref[0]};
    double l = norm3(c);
    for (int d = 0; d < 3; d++)
        e1[d] = c[d] / l;
    e2[0] = a[1] * e1[2] - a[2] * e1[1];
    e2[1] = a[2] * e1[0] - a[0] * e1[2];
    e2[2] = a[0] * e1[1] - a[1] * e1[0];
}

/* A 3-vector field (optional; *given set when present). */
static int read_vec3(cr_yaml_ctx *ps, struct fy_node *map, const char *w, const char *key,
                     double *out, int *given)
{
    struct fy_node *n = cr_yaml_child(map, key);
    char field[96];
    size_t got = 0;
    *given = n != NULL;
    if (!n)
        return CR_OK;
    snprintf(field, sizeof field, "%s.%s", w, key);
    if (cr_yaml_numbers(ps, n, field, out, 3, &got))
        return ps->rc;
    if (got != 3)
        return cr_yaml_fail(ps, cr_yaml_line(n), field, "needs three numbers [x, y, z] (dim 3)");
    return CR_OK;
}

/* ---- sphere_triple ----------------------------------------------------------- */

typedef struct {
    double radius, mass, speed, gap, target_gap, material[3], axis[3], origin[3];
} triple_spec;

static int triple_read(cr_yaml_ctx *ps, struct fy_node *map, triple_spec *t)
{
    static const char *const keys[] = {"radius", "mass",       "density", "material", "speed",
                                       "gap",    "target_gap", "axis",    "origin",   NULL};
    const char *w = "sphere_triple";
    int line = cr_yaml_line(map), given = 0;
    *t = (triple_spec){.speed = 1.0, .axis = {1.0, 0.0, 0.0}};
    if (cr_yaml_need_map(ps, map, line, w) || cr_yaml_check_keys(ps, map, w, keys) ||
        read_sphere(ps, map, w, &t->radius, &t->mass, t->material) ||
        cr_yaml_number(ps, map, line, w, "speed", 0, 0, &t->speed) ||
        cr_yaml_number(ps, map, line, w, "gap", 0, 0, &t->gap) ||
        cr_yaml_number(ps, map, line, w, "target_gap", 0, 0, &t->target_gap) ||
        cr_yaml_positive(ps, map, w, "speed", t->speed) ||
        read_vec3(ps, map, w, "axis", t->axis, &given) ||
        read_vec3(ps, map, w, "origin", t->origin, &given))
        return ps->rc;
    if (!(t->gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "gap"), "sphere_triple.gap",
                            "must be zero or positive (got %g)", t->gap);
    if (!(t->target_gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "target_gap"), "sphere_triple.target_gap",
                            "must be zero or positive (got %g)", t->target_gap);
    double l = norm3(t->axis);
    if (!(l > 0.0) || !isfinite(l))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "axis"), "sphere_triple.axis",
                            "must be a non-zero vector [x, y, z]");
    for (int d = 0; d < 3; d++)
        t->axis[d] /= l;
    return CR_OK;
}

/*
 * sphere_triple: {radius, mass | density, material, speed, gap, target_gap,
 * axis, origin}. The targets' centres lie on a circle of radius
 * rho = (2r + target_gap)/sqrt(3) about `origin` in the plane normal to
 * `axis`; the striker starts on the axis at -h, with h chosen so that its
 * surface gap to each target is `gap` (h = sqrt((2r + gap)^2 - rho^2)), and
 * moves along +axis at `speed`. Body 0 is the striker, 1..3 the targets.
 */
int cr_modelfile_sphere_triple(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model)
{
    triple_spec t;
    if (triple_read(ps, map, &t))
        return ps->rc;
    double d = 2.0 * t.radius, rho = (d + t.target_gap) / sqrt(3.0);
    if (!(rho < d))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "target_gap"), "sphere_triple.target_gap",
                            "the striker would pass between the targets: need target_gap < "
                            "(sqrt(3) - 1) 2 radius = %g (got %g)",
                            (sqrt(3.0) - 1.0) * d, t.target_gap);
    double h = sqrt((d + t.gap) * (d + t.gap) - rho * rho), e1[3], e2[3];
    frame_of(t.axis, e1, e2);
    const double *mat = t.material[2] > 0.0 ? t.material : NULL;
    double xs[3], vs[3], rest[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        xs[k] = t.origin[k] - h * t.axis[k];
        vs[k] = t.speed * t.axis[k];
    }
    if (add_sphere(ps, map, "sphere_triple", model, t.mass, t.radius, xs, vs, mat))
        return ps->rc;
    for (int j = 0; j < 3; j++) {
        double phi = 2.0 * CR_MF_PI * j / 3.0, x[3];
        for (int k = 0; k < 3; k++)
            x[k] = t.origin[k] + rho * (cos(phi) * e1[k] + sin(phi) * e2[k]);
        if (add_sphere(ps, map, "sphere_triple", model, t.mass, t.radius, x, rest, mat))
            return ps->rc;
    }
    return CR_OK;
}

/* ---- lattice: the spec ---------------------------------------------------- */

enum { LAT_CUBIC, LAT_FCC, LAT_TETRA, LAT_RANDOM };
enum { JIT_NONE, JIT_UNIFORM, JIT_NORMAL };

typedef struct {
    int kind;
    long n[3]; /* sites along x, y, z (cubic, fcc); n[0]: layers (tetrahedral), count (random) */
    double radius, mass, spacing, material[3], v[3], origin[3];
    int jitter;   /* JIT_* */
    double jsize; /* uniform: half-width a; normal: sigma (draws beyond 3 sigma redrawn) */
    unsigned long seed;
    int box, lid;
    double L[3];
    long attempts;                     /* random insertion: tries before giving up */
    int striker, face_axis, face_sign; /* face x-: axis 0, sign -1 (comes from -x) */
    double s_speed, s_gap, s_radius, s_mass;
} lattice_spec;

static const char *const kind_names[] = {"cubic", "fcc", "tetrahedral", "random", NULL};

static int lattice_kind(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    struct fy_node *k = cr_yaml_child(map, "kind");
    const char *v = k ? cr_yaml_text(k) : NULL;
    for (int i = 0; v && kind_names[i]; i++)
        if (strcmp(v, kind_names[i]) == 0) {
            s->kind = i;
            return CR_OK;
        }
    return cr_yaml_fail(ps, k ? cr_yaml_line(k) : cr_yaml_line(map), "lattice.kind",
                        "%s: cubic, fcc (close-packed), tetrahedral or random",
                        k ? "unknown kind" : "missing required field");
}

/* count: [nx, ny, nz] (cubic, fcc) or one whole number N (tetrahedral: the
 * layers; random: the spheres). */
static int lattice_counts(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    struct fy_node *c = cr_yaml_child(map, "count");
    int want = s->kind == LAT_CUBIC || s->kind == LAT_FCC ? 3 : 1;
    double v[3] = {0, 0, 0};
    size_t got = 0;
    if (!c)
        return cr_yaml_fail(ps, cr_yaml_line(map), "lattice.count", "missing required field (%s)",
                            want == 3 ? "[nx, ny, nz]" : "a whole number");
    if (cr_yaml_numbers(ps, c, "lattice.count", v, 3, &got))
        return ps->rc;
    if ((int)got != want)
        return cr_yaml_fail(ps, cr_yaml_line(c), "lattice.count", "kind %s needs %s",
                            kind_names[s->kind],
                            want == 3 ? "three whole numbers [nx, ny, nz]" : "one whole number");
    double total = 1.0;
    for (int d = 0; d < want; d++) {
        if (!(v[d] >= 1.0 && v[d] <= CR_MAX_BODIES && v[d] == floor(v[d])))
            return cr_yaml_fail(ps, cr_yaml_line(c), "lattice.count",
                                "count[%d] must be a whole number from 1 to %d (got %g)", d,
                                CR_MAX_BODIES, v[d]);
        s->n[d] = (long)v[d];
        total *= v[d];
    }
    if (s->kind == LAT_TETRA)
        total = v[0] * (v[0] + 1.0) * (v[0] + 2.0) / 6.0;
    if (s->kind == LAT_FCC) /* the sites with i + j + k even: at most half, rounded up */
        total = ceil(0.5 * total);
    if (total > CR_MAX_BODIES)
        return cr_yaml_fail(ps, cr_yaml_line(c), "lattice.count",
                            "gives %.0f spheres, more than a model holds (%d)", total,
                            CR_MAX_BODIES);
    return CR_OK;
}

/* spacing (centre to centre of nearest neighbours) or gap (surface to
 * surface), default 0 gap: touching spheres. */
static int lattice_spacing(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    double gap = 0.0;
    int line = cr_yaml_line(map);
    s->spacing = NAN;
    if (cr_yaml_child(map, "spacing") && cr_yaml_child(map, "gap"))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "gap"), "lattice.gap",
                            "give either spacing (centre to centre) or gap (surface to surface)");
    if (cr_yaml_number(ps, map, line, "lattice", "spacing", 0, 0, &s->spacing) ||
        cr_yaml_number(ps, map, line, "lattice", "gap", 0, 0, &gap))
        return ps->rc;
    if (s->kind == LAT_RANDOM && (cr_yaml_child(map, "spacing") || cr_yaml_child(map, "gap")))
        return cr_yaml_fail(ps,
                            cr_yaml_key_line(map, cr_yaml_child(map, "gap") ? "gap" : "spacing"),
                            "lattice.kind", "random insertion has no spacing or gap");
    if (!(gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "gap"), "lattice.gap",
                            "must be zero or positive (got %g)", gap);
    if (isnan(s->spacing))
        s->spacing = 2.0 * s->radius + gap;
    if (!(s->spacing >= 2.0 * s->radius) || !isfinite(s->spacing))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "spacing"), "lattice.spacing",
                            "neighbours would overlap: spacing %g < 2 radius = %g", s->spacing,
                            2.0 * s->radius);
    return CR_OK;
}

/* jitter: {distribution: uniform | normal, size: a | sigma, seed: S} */
static int lattice_jitter(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    static const char *const keys[] = {"distribution", "size", "seed", NULL};
    struct fy_node *j = cr_yaml_child(map, "jitter");
    const char *w = "lattice.jitter";
    double seed = 1.0;
    if (!j)
        return CR_OK;
    if (cr_yaml_need_map(ps, j, cr_yaml_line(map), w) || cr_yaml_check_keys(ps, j, w, keys) ||
        cr_yaml_number(ps, j, cr_yaml_line(j), w, "size", 1, 0, &s->jsize) ||
        cr_yaml_number(ps, j, cr_yaml_line(j), w, "seed", 0, 0, &seed))
        return ps->rc;
    struct fy_node *dn = cr_yaml_child(j, "distribution");
    const char *dv = dn ? cr_yaml_text(dn) : NULL;
    s->jitter = dv && strcmp(dv, "uniform") == 0  ? JIT_UNIFORM
                : dv && strcmp(dv, "normal") == 0 ? JIT_NORMAL
                                                  : JIT_NONE;
    if (s->jitter == JIT_NONE)
        return cr_yaml_fail(ps, dn ? cr_yaml_line(dn) : cr_yaml_line(j),
                            "lattice.jitter.distribution", "uniform or normal%s",
                            dn ? "" : " (missing required field)");
    if (!(s->jsize >= 0.0) || !isfinite(s->jsize))
        return cr_yaml_fail(ps, cr_yaml_key_line(j, "size"), "lattice.jitter.size",
                            "must be zero or positive (got %g)", s->jsize);
    if (!(seed >= 0.0 && seed <= 4294967295.0 && seed == floor(seed)))
        return cr_yaml_fail(ps, cr_yaml_key_line(j, "seed"), "lattice.jitter.seed",
                            "a whole number from 0 to 4294967295 (got %g)", seed);
    s->seed = (unsigned long)seed;
    return CR_OK;
}

/* The largest displacement a jitter draw gives per coordinate. */
static double jitter_bound(const lattice_spec *s)
{
    return s->jitter == JIT_UNIFORM ? s->jsize : s->jitter == JIT_NORMAL ? 3.0 * s->jsize : 0.0;
}

/* box: {size: [Lx, Ly, Lz], lid: false}: walls x = 0, x = Lx, y = 0, y = Ly, a
 * floor z = 0 and, with lid, a ceiling z = Lz. */
static int lattice_box(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    static const char *const keys[] = {"size", "lid", NULL};
    struct fy_node *b = cr_yaml_child(map, "box");
    const char *w = "lattice.box";
    int given = 0;
    if (!b)
        return s->kind == LAT_RANDOM
                   ? cr_yaml_fail(ps, cr_yaml_line(map), w, "random insertion needs a box to fill")
                   : CR_OK;
    if (cr_yaml_need_map(ps, b, cr_yaml_line(map), w) || cr_yaml_check_keys(ps, b, w, keys) ||
        read_vec3(ps, b, w, "size", s->L, &given))
        return ps->rc;
    if (!given)
        return cr_yaml_fail(ps, cr_yaml_line(b), "lattice.box.size",
                            "missing required field [Lx, Ly, Lz]");
    for (int d = 0; d < 3; d++)
        if (!(s->L[d] > 0.0) || !isfinite(s->L[d]))
            return cr_yaml_fail(ps, cr_yaml_key_line(b, "size"), "lattice.box.size",
                                "size[%d] must be positive (got %g)", d, s->L[d]);
    struct fy_node *lid = cr_yaml_child(b, "lid");
    const char *lv = lid ? cr_yaml_text(lid) : "false";
    if (!lv || (strcmp(lv, "true") != 0 && strcmp(lv, "false") != 0))
        return cr_yaml_fail(ps, cr_yaml_line(lid), "lattice.box.lid", "true or false");
    s->lid = strcmp(lv, "true") == 0;
    if (cr_yaml_child(map, "origin"))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "origin"), "lattice.origin",
                            "give either origin or box (a block in a box sits on its floor, "
                            "centred)");
    s->box = 1;
    return CR_OK;
}

/* striker: {face: x- | x+ | y- | y+ | z- | z+, speed, gap, radius, mass |
 * density}: a sphere on the line normal to that face through the block's
 * centre, `gap` from the face's tangent plane, moving into the block. */
static int lattice_striker(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    static const char *const keys[] = {"face", "speed", "gap", "radius", "mass", "density", NULL};
    struct fy_node *st = cr_yaml_child(map, "striker");
    const char *w = "lattice.striker";
    if (!st)
        return CR_OK;
    if (cr_yaml_need_map(ps, st, cr_yaml_line(map), w) || cr_yaml_check_keys(ps, st, w, keys))
        return ps->rc;
    int line = cr_yaml_line(st);
    s->s_radius = s->radius;
    s->s_mass = s->mass;
    s->s_speed = 1.0;
    if (cr_yaml_number(ps, st, line, w, "speed", 0, 0, &s->s_speed) ||
        cr_yaml_number(ps, st, line, w, "gap", 0, 0, &s->s_gap) ||
        cr_yaml_number(ps, st, line, w, "radius", 0, 0, &s->s_radius) ||
        cr_yaml_positive(ps, st, w, "speed", s->s_speed) ||
        cr_yaml_positive(ps, st, w, "radius", s->s_radius) ||
        ((cr_yaml_child(st, "mass") || cr_yaml_child(st, "density")) &&
         cr_modelfile_mass(ps, st, w, s->s_radius, &s->s_mass)))
        return ps->rc;
    if (!(s->s_gap >= 0.0))
        return cr_yaml_fail(ps, cr_yaml_key_line(st, "gap"), "lattice.striker.gap",
                            "must be zero or positive (got %g)", s->s_gap);
    struct fy_node *f = cr_yaml_child(st, "face");
    const char *fv = f ? cr_yaml_text(f) : NULL;
    if (!fv || strlen(fv) != 2 || fv[0] < 'x' || fv[0] > 'z' || (fv[1] != '-' && fv[1] != '+'))
        return cr_yaml_fail(ps, f ? cr_yaml_line(f) : line, "lattice.striker.face",
                            "x-, x+, y-, y+, z- or z+ (the side the striker comes from)%s",
                            f ? "" : ": missing required field");
    s->face_axis = fv[0] - 'x';
    s->face_sign = fv[1] == '-' ? -1 : 1;
    s->striker = 1;
    return CR_OK;
}

static int lattice_read(cr_yaml_ctx *ps, struct fy_node *map, lattice_spec *s)
{
    static const char *const keys[] = {
        "kind",   "count", "radius",  "mass",     "density", "material", "spacing", "gap",
        "jitter", "box",   "striker", "velocity", "origin",  "attempts", "seed",    NULL};
    const char *w = "lattice";
    int line = cr_yaml_line(map), given = 0;
    double attempts = NAN;
    memset(s, 0, sizeof *s);
    if (cr_yaml_need_map(ps, map, line, w) || cr_yaml_check_keys(ps, map, w, keys) ||
        lattice_kind(ps, map, s) || lattice_counts(ps, map, s) ||
        read_sphere(ps, map, w, &s->radius, &s->mass, s->material) || lattice_spacing(ps, map, s) ||
        lattice_jitter(ps, map, s) || lattice_box(ps, map, s) || lattice_striker(ps, map, s) ||
        read_vec3(ps, map, w, "velocity", s->v, &given) ||
        read_vec3(ps, map, w, "origin", s->origin, &given) ||
        cr_yaml_number(ps, map, line, w, "attempts", 0, 0, &attempts))
        return ps->rc;
    if (s->kind == LAT_RANDOM && cr_yaml_child(map, "jitter"))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "jitter"), "lattice.jitter",
                            "random insertion has no sites to jitter (its draws take seed)");
    if (cr_yaml_child(map, "seed") && s->kind != LAT_RANDOM)
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "seed"), "lattice.seed",
                            "only random insertion draws with seed (a jitter has its own)");
    double seed = 1.0;
    if (cr_yaml_number(ps, map, line, w, "seed", 0, 0, &seed))
        return ps->rc;
    if (!(seed >= 0.0 && seed <= 4294967295.0 && seed == floor(seed)))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "seed"), "lattice.seed",
                            "a whole number from 0 to 4294967295 (got %g)", seed);
    if (s->kind == LAT_RANDOM)
        s->seed = (unsigned long)seed;
    if (!isnan(attempts) && s->kind != LAT_RANDOM)
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "attempts"), "lattice.attempts",
                            "only random insertion makes attempts");
    /* a bound on the work: 1000 draws per sphere beyond the first 10^6 (each
     * draw costs a few cells' tests; beyond it the procedure has jammed) */
    double most = fmin(1e9, 1000.0 * (double)s->n[0] + 1e6);
    if (!isnan(attempts) && !(attempts >= 1.0 && attempts <= most))
        return cr_yaml_fail(ps, cr_yaml_key_line(map, "attempts"), "lattice.attempts",
                            "must lie in 1 .. %g (1000 per sphere + 10^6, at most 1e9; got %g)",
                            most, attempts);
    s->attempts = isnan(attempts) ? 100 * s->n[0] + 100000 : (long)attempts;
    return CR_OK;
}

/* ---- lattice: the sites ------------------------------------------------------ */

static size_t site_count(const lattice_spec *s)
{
    long L = s->n[0];
    switch (s->kind) {
    case LAT_CUBIC:
        return (size_t)(s->n[0] * s->n[1] * s->n[2]);
    case LAT_FCC: { /* (i, j, k) with i + j + k even */
        size_t c = 0;
        for (long k = 0; k < s->n[2]; k++)
            for (long j = 0; j < s->n[1]; j++)
                c += (size_t)((s->n[0] + ((j + k) % 2 == 0 ? 1 : 0)) / 2);
        return c;
    }
    case LAT_TETRA:
        return (size_t)(L * (L + 1) * (L + 2) / 6);
    default:
        return (size_t)L;
    }
}

/*
 * The lattice sites for nearest-neighbour distance d, before placement:
 *   cubic: (i, j, k) d;
 *   fcc: (i, j, k) d/sqrt(2) with i + j + k even (the conventional cubic cell
 *     of side a = sqrt(2) d, faces normal to x, y, z);
 *   tetrahedral: close-packed triangular layers, layer l (from the bottom) a
 *     triangle of side L - l spheres sitting in the hollows of layer l - 1:
 *     (d (i + j/2 + l/2), d (sqrt(3)/2 j + l/(2 sqrt(3))), d sqrt(2/3) l).
 */
static void lattice_sites(const lattice_spec *s, double *p)
{
    double d = s->spacing, h = d / sqrt(2.0);
    size_t c = 0;
    if (s->kind == LAT_CUBIC || s->kind == LAT_FCC)
        for (long k = 0; k < s->n[2]; k++)
            for (long j = 0; j < s->n[1]; j++)
                for (long i = 0; i < s->n[0]; i++) {
                    if (s->kind == LAT_FCC && (i + j + k) % 2 != 0)
                        continue;
                    double a = s->kind == LAT_FCC ? h : d;
                    p[3 * c] = (double)i * a;
                    p[3 * c + 1] = (double)j * a;
                    p[3 * c + 2] = (double)k * a;
                    c++;
                }
    if (s->kind == LAT_TETRA)
        for (long l = 0; l < s->n[0]; l++)
            for (long j = 0; j < s->n[0] - l; j++)
                for (long i = 0; i < s->n[0] - l - j; i++) {
                    p[3 * c] = d * ((double)i + 0.5 * (double)j + 0.5 * (double)l);
                    p[3 * c + 1] =
                        d * (sqrt(3.0) / 2.0 * (double)j + (double)l / (2.0 * sqrt(3.0)));
                    p[3 * c + 2] = d * sqrt(2.0 / 3.0) * (double)l;
                    c++;
                }
}

static void bounds_of(const double *p, size_t n, double *lo, double *hi)
{
    for (int d = 0; d < 3; d++) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], p[3 * i + (size_t)d]);
            hi[d] = fmax(hi[d], p[3 * i + (size_t)d]);
        }
}

/* Moves the block into its box (centred in x and y, on the floor with room
 * for the jitter) or to its origin; refuses a block that does not fit. */
static int place_block(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s, double *p,
                       size_t n)
{
    double lo[3], hi[3], shift[3], m = s->radius + jitter_bound(s);
    bounds_of(p, n, lo, hi);
    if (s->box) {
        for (int d = 0; d < 3; d++) {
            double need = hi[d] - lo[d] + 2.0 * m;
            if ((d < 2 || s->lid) && need > s->L[d])
                return cr_yaml_fail(ps, cr_yaml_key_line(cr_yaml_child(map, "box"), "size"),
                                    "lattice.box.size",
                                    "the block does not fit the box: it needs %g m along %c "
                                    "(spheres, spacing and jitter bound), the box has %g m",
                                    need, 'x' + d, s->L[d]);
        }
        shift[0] = 0.5 * s->L[0] - 0.5 * (lo[0] + hi[0]);
        shift[1] = 0.5 * s->L[1] - 0.5 * (lo[1] + hi[1]);
        shift[2] = m - lo[2];
    } else
        for (int d = 0; d < 3; d++)
            shift[d] = s->origin[d] - lo[d];
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++)
            p[3 * i + (size_t)d] += shift[d];
    return CR_OK;
}

/* One jitter draw: uniform in [-a, a], or normal with sigma redrawn beyond 3 sigma. */
static double jitter_draw(const lattice_spec *s, gsl_rng *rng)
{
    if (s->jitter == JIT_UNIFORM)
        return gsl_ran_flat(rng, -s->jsize, s->jsize);
    double x;
    do
        x = gsl_ran_gaussian(rng, s->jsize);
    while (fabs(x) > 3.0 * s->jsize);
    return x;
}

/* The block's sites, placed and jittered (a new array of 3 n). */
static double *lattice_positions(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s,
                                 size_t *n)
{
    *n = site_count(s);
    double *p = malloc(3 * *n * sizeof *p);
    gsl_rng *rng = s->jitter ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    if (!p || (s->jitter && !rng)) {
        free(p);
        gsl_rng_free(rng);
        cr_yaml_fail(ps, cr_yaml_line(map), "lattice", "out of memory");
        return NULL;
    }
    lattice_sites(s, p);
    if (place_block(ps, map, s, p, *n)) {
        free(p);
        gsl_rng_free(rng);
        return NULL;
    }
    if (rng) {
        gsl_rng_set(rng, s->seed);
        for (size_t i = 0; i < 3 * *n; i++)
            p[i] += jitter_draw(s, rng);
        gsl_rng_free(rng);
    }
    return p;
}

/* ---- lattice: random sequential insertion ------------------------------------ */

/* A uniform grid of cells (side >= 2 r, at most ~4 N cells) over the box,
 * each a linked list of the spheres placed in it. */
typedef struct {
    long g[3];
    double h;
    long *head, *next;
} insert_grid;

static long grid_cell(const insert_grid *G, const double *x, int d)
{
    long c = (long)floor(x[d] / G->h);
    return c < 0 ? 0 : c >= G->g[d] ? G->g[d] - 1 : c;
}

/* 1 when a sphere at @p x (radius r) clears every sphere placed so far. */
static int grid_clear(const insert_grid *G, const double *p, const double *x, double r)
{
    long c[3] = {grid_cell(G, x, 0), grid_cell(G, x, 1), grid_cell(G, x, 2)};
    for (long k = c[2] - 1; k <= c[2] + 1; k++)
        for (long j = c[1] - 1; j <= c[1] + 1; j++)
            for (long i = c[0] - 1; i <= c[0] + 1; i++) {
                if (i < 0 || j < 0 || k < 0 || i >= G->g[0] || j >= G->g[1] || k >= G->g[2])
                    continue;
                for (long b = G->head[(k * G->g[1] + j) * G->g[0] + i]; b >= 0; b = G->next[b]) {
                    double e[3] = {p[3 * b] - x[0], p[3 * b + 1] - x[1], p[3 * b + 2] - x[2]};
                    if (dot3(e, e) < 4.0 * r * r)
                        return 0;
                }
            }
    return 1;
}

static int grid_init(insert_grid *G, const lattice_spec *s)
{
    double cells = INFINITY;
    G->h = 2.0 * s->radius;
    for (;;) {
        cells = 1.0;
        for (int d = 0; d < 3; d++) {
            /* clamped before the cast: a huge box over a tiny radius is inf */
            G->g[d] = (long)fmin(fmax(1.0, floor(s->L[d] / G->h)), 1e15);
            cells *= (double)G->g[d];
        }
        if (cells <= 4.0 * (double)s->n[0] + 64.0)
            break;
        G->h *= 1.25;
    }
    G->head = malloc((size_t)cells * sizeof *G->head);
    G->next = malloc((size_t)s->n[0] * sizeof *G->next);
    if (!G->head || !G->next)
        return -1;
    for (long c = 0; c < (long)cells; c++)
        G->head[c] = -1;
    return 0;
}

/*
 * Random sequential insertion: centres drawn uniformly in the box shrunk by
 * r (GSL's mt19937 with lattice.seed, default 1), each kept when it clears
 * every sphere kept before; `attempts` draws in all (default 100 N + 10^5). This
 * procedure jams near a volume fraction of 0.38: more spheres than that are
 * refused here rather than placed overlapping.
 */
static double *random_positions(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s,
                                size_t *n)
{
    double r = s->radius;
    *n = (size_t)s->n[0];
    for (int d = 0; d < 3; d++)
        if (s->L[d] < 2.0 * r) {
            cr_yaml_fail(ps, cr_yaml_key_line(cr_yaml_child(map, "box"), "size"),
                         "lattice.box.size", "a sphere of radius %g does not fit (size[%d] = %g)",
                         r, d, s->L[d]);
            return NULL;
        }
    double phi = (double)s->n[0] * 4.0 / 3.0 * CR_MF_PI * r * r * r / (s->L[0] * s->L[1] * s->L[2]);
    if (!(phi <= 0.38)) { /* refused before drawing: the draws could never place them */
        cr_yaml_fail(ps, cr_yaml_key_line(map, "count"), "lattice.count",
                     "the spheres do not fit: volume fraction %.3g above 0.38, near which random "
                     "insertion jams",
                     phi);
        return NULL;
    }
    insert_grid G = {{0, 0, 0}, 0, NULL, NULL};
    double *p = malloc(3 * *n * sizeof *p);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    long placed = 0, tries = 0;
    if (p && rng && grid_init(&G, s) == 0) {
        gsl_rng_set(rng, s->seed);
        for (; placed < s->n[0] && tries < s->attempts; tries++) {
            double *x = p + 3 * placed;
            for (int d = 0; d < 3; d++)
                x[d] = gsl_ran_flat(rng, r, s->L[d] - r);
            if (!grid_clear(&G, p, x, r))
                continue;
            long c =
                (grid_cell(&G, x, 2) * G.g[1] + grid_cell(&G, x, 1)) * G.g[0] + grid_cell(&G, x, 0);
            G.next[placed] = G.head[c];
            G.head[c] = placed++;
        }
    } else
        cr_yaml_fail(ps, cr_yaml_line(map), "lattice", "out of memory");
    gsl_rng_free(rng);
    free(G.head);
    free(G.next);
    if (ps->rc == CR_OK && placed < s->n[0]) {
        double phi =
            (double)placed * 4.0 / 3.0 * CR_MF_PI * r * r * r / (s->L[0] * s->L[1] * s->L[2]);
        cr_yaml_fail(ps, cr_yaml_key_line(map, "count"), "lattice.count",
                     "the spheres do not fit: random insertion placed %ld of %ld in %ld attempts "
                     "(volume fraction %.3g; this procedure jams near 0.38)",
                     placed, s->n[0], tries, phi);
    }
    if (ps->rc != CR_OK) {
        free(p);
        return NULL;
    }
    return p;
}

/* ---- lattice: striker, walls, the whole generator ---------------------------- */

/* The striker's centre and velocity: on the face's normal through the
 * block's centre, its surface `gap` from the face's tangent plane (the jitter
 * bound included), moving into the block. Refused outside the box. */
static int striker_place(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s,
                         const double *p, size_t n, double *x, double *v)
{
    double lo[3], hi[3], m = s->radius + jitter_bound(s);
    int a = s->face_axis;
    bounds_of(p, n, lo, hi);
    for (int d = 0; d < 3; d++) {
        x[d] = 0.5 * (lo[d] + hi[d]);
        v[d] = 0.0;
    }
    double reach = m + s->s_gap + s->s_radius;
    x[a] = s->face_sign < 0 ? lo[a] - reach : hi[a] + reach;
    v[a] = -s->face_sign * s->s_speed;
    int above_lid = a == 2 && s->face_sign > 0 && !s->lid; /* an open top is no limit */
    if (s->box && (x[a] - s->s_radius < 0.0 || (!above_lid && x[a] + s->s_radius > s->L[a])))
        return cr_yaml_fail(ps, cr_yaml_key_line(cr_yaml_child(map, "striker"), "gap"),
                            "lattice.striker",
                            "the striker does not fit in the box beside the "
                            "block (its centre would be at %g m along %c)",
                            x[a], 'x' + a);
    return CR_OK;
}

/* The box's half-space walls (free space n.p >= offset); their laws come
 * from the model's contact section (modelfile.c). */
static int add_box_walls(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s,
                         cr_model *model)
{
    for (int k = 0; k < 6; k++) {
        int d = k / 2, far = k % 2;
        if (d == 2 && far && !s->lid)
            continue;
        double nrm[3] = {0, 0, 0};
        nrm[d] = far ? -1.0 : 1.0;
        int w = cr_model_add_plane(model, nrm, far ? -s->L[d] : 0.0, NULL);
        if (w < 0)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "box")), "lattice.box", "%s",
                                cr_strerror(w));
    }
    return CR_OK;
}

/* The first overlapping pair among the generated spheres, named at the field
 * that made it (a jitter too wide for the gap). */
static int lattice_overlaps(cr_yaml_ctx *ps, struct fy_node *map, const lattice_spec *s,
                            const cr_model *model)
{
    size_t i = 0, j = 0;
    double depth = 0.0;
    int bad = cr_modelfile_first_overlap(model, &i, &j, &depth);
    if (bad < 0)
        return cr_yaml_fail(ps, cr_yaml_line(map), "lattice", "out of memory");
    if (!bad)
        return CR_OK;
    int st = s->striker && (i == 0 || j == 0);
    const char *key = st ? "striker" : s->jitter ? "jitter" : "spacing";
    char field[64];
    snprintf(field, sizeof field, "lattice.%s", key);
    return cr_yaml_fail(ps, cr_yaml_key_line(map, key), field,
                        "spheres %zu and %zu overlap by %g m%s", i, j, depth,
                        s->jitter && !st ? " (the jitter is too wide for the lattice's gap)" : "");
}

/*
 * lattice: {kind, count, radius, mass | density, material, spacing | gap,
 * jitter, box, striker, velocity, origin, attempts} (docs/model-format.md).
 * The striker, when given, is body 0; the block's spheres follow in site
 * order (x fastest, then y, then z; layer by layer for tetrahedral).
 */
int cr_modelfile_lattice(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model)
{
    lattice_spec s;
    size_t n = 0;
    if (lattice_read(ps, map, &s))
        return ps->rc;
    double *p = s.kind == LAT_RANDOM ? random_positions(ps, map, &s, &n)
                                     : lattice_positions(ps, map, &s, &n);
    if (!p)
        return ps->rc;
    const double *mat = s.material[2] > 0.0 ? s.material : NULL;
    double xs[3], vs[3];
    if (s.striker &&
        (striker_place(ps, map, &s, p, n, xs, vs) ||
         add_sphere(ps, map, "lattice.striker", model, s.s_mass, s.s_radius, xs, vs, mat))) {
        free(p);
        return ps->rc;
    }
    for (size_t i = 0; i < n; i++)
        if (add_sphere(ps, map, "lattice", model, s.mass, s.radius, p + 3 * i, s.v, mat)) {
            free(p);
            return ps->rc;
        }
    free(p);
    if (lattice_overlaps(ps, map, &s, model) || (s.box && add_box_walls(ps, map, &s, model)))
        return ps->rc;
    return CR_OK;
}
