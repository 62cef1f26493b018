#include "cradle/model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "base/base.h"

typedef struct {
    double mass, radius, x, v;
    double y, vy; /* dim 2 and 3: the second components */
    double z, vz; /* dim 3: the third */
    int fixed;
    double E, nu; /* material, when has_material */
    int has_material;
    /* the pair to the right neighbour: its own law, link, contact switch */
    cr_contact_params right;
    int has_right;
    cr_link link;
    int has_link;
    int contact_off;
    /* restitution target of the pair (C to be calibrated) */
    double target_e, target_v;
    int has_target;
    /* pendulum suspension */
    double pivot, plength, pg;
    int has_pendulum;
    /* air drag: force −b v − c |v| v (kg/s, kg/m); both 0: none */
    double drag_b, drag_c;
} ball;

/* dim 2 and 3: a half-plane (half-space) wall n·p ≥ offset with an optional law
 * or material */
typedef struct {
    double nx, ny, nz, offset;
    cr_contact_params law;
    int has_law;
    double E, nu;
    int has_material;
} plane;

/* a pair law given by name (dim 2; dim 1 keeps it on the left ball) */
typedef struct {
    size_t i;
    long j;
    cr_contact_params law;
} pair_law;

/* damping solved for a law at a reduced mass (cr_calibrate_model) */
typedef struct {
    cr_contact_params law; /* C is the answer */
    double mu;
} solved_damping;

struct cr_model {
    char *name;
    char *interval_where; /* where output.interval was given (model files) */
    int dim;
    ball *balls;
    size_t n, cap;
    plane *planes;
    size_t nplanes;
    pair_law *pairs;
    size_t npairs;
    solved_damping *solved;
    size_t nsolved;
    cr_contact_params def;
    cr_settings settings;
    double gravity, gravity_y, gravity_z;
    double target_e, target_v; /* dim 2 default target; target_e = 0: none */
    cr_clump *clumps;          /* rigid bodies (model-clumps.c) */
    size_t nclumps;
};

cr_settings cr_settings_default(void)
{
    cr_settings s = {.t_end = 0.0,
                     .rtol = CR_DEFAULT_RTOL,
                     .atol = CR_DEFAULT_ATOL,
                     .output_interval = 0.0,
                     .method = CR_METHOD_AUTO,
                     .jacobian_floor = CR_DEFAULT_JACOBIAN_FLOOR,
                     .solver = CR_SOLVER_AUTO,
                     .skin = CR_DEFAULT_SKIN,
                     .active_region = CR_ACTIVE_REGION_AUTO,
                     .rigid_touching = 1.0};
    return s;
}

int cr_settings_body_written(const cr_settings *s, size_t b)
{
    if (s->output_nranges == 0)
        return 1;
    for (size_t k = 0; k < s->output_nranges; k++)
        if (b >= s->output_ranges[k][0] && b <= s->output_ranges[k][1])
            return 1;
    return 0;
}

/* What a program (not the model file, which says it with a line) may set
 * wrong in the output settings. */
static int validate_output(const cr_model *model, char *msg, size_t msglen)
{
    const cr_settings *s = &model->settings;
    if (s->output_omit > CR_OUT_ALL || s->output_every < 0 || s->output_max_rows < 0 ||
        s->output_nranges > CR_OUTPUT_MAX_RANGES ||
        (s->output_every > 0 && s->output_interval > 0)) {
        cr_set_msg(msg, msglen,
                   "output settings: need known fields, every >= 0, at most %d body ranges, "
                   "not both every and interval",
                   CR_OUTPUT_MAX_RANGES);
        return CR_ERR_MODEL;
    }
    for (size_t k = 0; k < s->output_nranges; k++)
        if (s->output_ranges[k][0] > s->output_ranges[k][1] || s->output_ranges[k][1] >= model->n) {
            cr_set_msg(msg, msglen, "output.bodies: range %zu-%zu outside bodies 0-%zu",
                       s->output_ranges[k][0], s->output_ranges[k][1], model->n - 1);
            return CR_ERR_MODEL;
        }
    return CR_OK;
}

const char *cr_method_name(int method)
{
    static const char *const names[] = {
        [CR_METHOD_BDF] = "bdf",
        [CR_METHOD_ADAMS] = "adams",
        [CR_METHOD_ADAMS_FIXED_POINT] = "adams-fixed-point",
        [CR_METHOD_AUTO] = "auto",
        [CR_METHOD_ERK] = "erk",
    };
    return method >= 0 && (size_t)method < sizeof names / sizeof names[0] ? names[method] : NULL;
}

cr_model *cr_model_create(void)
{
    cr_model *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    /* steel-like Hertz contact so that a model without a contact section runs */
    cr_contact_params_init(&m->def, 1e10, 1.5, 0.0, CR_RELEASE_GAP);
    m->settings = cr_settings_default();
    m->dim = 1;
    return m;
}

void cr_model_destroy(cr_model *model)
{
    if (!model)
        return;
    free(model->name);
    free(model->interval_where);
    free(model->balls);
    free(model->planes);
    free(model->pairs);
    free(model->solved);
    free(model->clumps);
    free(model);
}

int cr_model_add_ball(cr_model *model, double mass, double radius, double x, double v)
{
    if (!model || model->n >= CR_MAX_BODIES)
        return CR_ERR_INVALID;
    if (model->n == model->cap) {
        size_t cap = model->cap ? 2 * model->cap : 16;
        ball *b = realloc(model->balls, cap * sizeof(*b));
        if (!b)
            return CR_ERR_NOMEM;
        model->balls = b;
        model->cap = cap;
    }
    ball *b = &model->balls[model->n];
    memset(b, 0, sizeof(*b));
    b->mass = mass;
    b->radius = radius;
    b->x = x;
    b->v = v;
    return (int)model->n++;
}

int cr_model_set_fixed(cr_model *model, size_t i)
{
    if (!model || i >= model->n || model->dim < 2)
        return CR_ERR_INVALID;
    ball *b = &model->balls[i];
    b->fixed = 1;
    b->v = b->vy = b->vz = 0.0;
    return CR_OK;
}

int cr_model_add_wall(cr_model *model, double x)
{
    /* dim 2 has half-plane walls (cr_model_add_plane), not fixed bodies */
    if (!model || model->dim != 1)
        return CR_ERR_INVALID;
    /* the mass is never used: 1 keeps every finite-mass check simple */
    int i = cr_model_add_ball(model, 1.0, 0.0, x, 0.0);
    if (i >= 0)
        model->balls[i].fixed = 1;
    return i;
}

int cr_model_set_link(cr_model *model, size_t c, const cr_link *link)
{
    if (!model || !link || c + 1 >= model->n)
        return CR_ERR_INVALID;
    model->balls[c].link = *link;
    model->balls[c].has_link = 1;
    model->balls[c].contact_off = 1;
    return CR_OK;
}

int cr_model_set_contact_target(cr_model *model, size_t c, double e, double v)
{
    if (!model || c + 1 >= model->n || model->dim != 1 || !(e > 0.0 && e <= 1.0) || !(v > 0.0) ||
        !isfinite(v))
        return CR_ERR_INVALID;
    model->balls[c].target_e = e;
    model->balls[c].target_v = v;
    model->balls[c].has_target = 1;
    return CR_OK;
}

int cr_model_contact_target(const cr_model *model, size_t c, double *e, double *v)
{
    const ball *b = &model->balls[c];
    if (!b->has_target)
        return 0;
    *e = b->target_e;
    *v = b->target_v;
    return 1;
}

int cr_model_set_contact_enabled(cr_model *model, size_t c, int enabled)
{
    if (!model || c + 1 >= model->n)
        return CR_ERR_INVALID;
    model->balls[c].contact_off = !enabled;
    return CR_OK;
}

int cr_model_set_gravity(cr_model *model, double g)
{
    if (!model || !isfinite(g))
        return CR_ERR_INVALID;
    model->gravity = g;
    return CR_OK;
}

int cr_model_set_pendulum(cr_model *model, size_t i, double pivot, double length, double g)
{
    /* the arc coordinate is a 1-D idea: a planar pendulum would be a link to a pivot */
    if (!model || i >= model->n || model->dim != 1)
        return CR_ERR_INVALID;
    ball *b = &model->balls[i];
    b->pivot = pivot;
    b->plength = length;
    b->pg = g;
    b->has_pendulum = 1;
    return CR_OK;
}

int cr_model_set_drag(cr_model *model, size_t i, double b, double c)
{
    /* within the range of every other body number, so that b v and c v² stay finite */
    if (!model || i >= model->n || !(b >= 0.0) || !(c >= 0.0) || !(b <= CR_MAX_MAGNITUDE) ||
        !(c <= CR_MAX_MAGNITUDE))
        return CR_ERR_INVALID;
    model->balls[i].drag_b = b;
    model->balls[i].drag_c = c;
    return CR_OK;
}

int cr_model_drag(const cr_model *model, size_t i, double *b, double *c)
{
    const ball *bl = &model->balls[i];
    *b = bl->fixed ? 0.0 : bl->drag_b;
    *c = bl->fixed ? 0.0 : bl->drag_c;
    return *b > 0.0 || *c > 0.0;
}

int cr_model_has_drag(const cr_model *model)
{
    double b, c;
    for (size_t i = 0; i < model->n; i++)
        if (cr_model_drag(model, i, &b, &c))
            return 1;
    return 0;
}

int cr_model_is_fixed(const cr_model *model, size_t i)
{
    return model->balls[i].fixed;
}

const cr_link *cr_model_link(const cr_model *model, size_t c)
{
    return model->balls[c].has_link ? &model->balls[c].link : NULL;
}

int cr_model_contact_enabled(const cr_model *model, size_t c)
{
    return !model->balls[c].contact_off;
}

double cr_model_gravity(const cr_model *model)
{
    return model->gravity;
}

int cr_model_pendulum(const cr_model *model, size_t i, double *pivot, double *length, double *g)
{
    const ball *b = &model->balls[i];
    if (!b->has_pendulum)
        return 0;
    *pivot = b->pivot;
    *length = b->plength;
    *g = b->pg;
    return 1;
}

int cr_model_has_fields(const cr_model *model)
{
    if (model->gravity != 0.0 || model->gravity_y != 0.0 || model->gravity_z != 0.0)
        return 1;
    for (size_t i = 0; i < model->n; i++)
        if (model->balls[i].has_pendulum)
            return 1;
    return cr_model_has_drag(model);
}

int cr_model_set_default_contact(cr_model *model, const cr_contact_params *p)
{
    if (!model || !p)
        return CR_ERR_INVALID;
    model->def = *p;
    return CR_OK;
}

int cr_model_set_contact(cr_model *model, size_t c, const cr_contact_params *p)
{
    if (!model || !p || c + 1 >= model->n || model->dim != 1)
        return CR_ERR_INVALID;
    model->balls[c].right = *p;
    model->balls[c].has_right = 1;
    return CR_OK;
}

int cr_model_set_name(cr_model *model, const char *name)
{
    if (!model || !name)
        return CR_ERR_INVALID;
    char *copy = strdup(name);
    if (!copy)
        return CR_ERR_NOMEM;
    free(model->name);
    model->name = copy;
    return CR_OK;
}

int cr_model_set_interval_where(cr_model *model, const char *where)
{
    if (!model)
        return CR_ERR_INVALID;
    char *copy = where ? strdup(where) : NULL;
    if (where && !copy)
        return CR_ERR_NOMEM;
    free(model->interval_where);
    model->interval_where = copy;
    return CR_OK;
}

const char *cr_model_interval_where(const cr_model *model)
{
    return model && model->interval_where ? model->interval_where : "output.interval";
}

void cr_model_set_settings(cr_model *model, const cr_settings *s)
{
    if (model && s)
        model->settings = *s;
}

const char *cr_model_name(const cr_model *model)
{
    return model->name ? model->name : "unnamed";
}

const cr_settings *cr_model_settings(const cr_model *model)
{
    return &model->settings;
}

size_t cr_model_ball_count(const cr_model *model)
{
    return model->n;
}

size_t cr_model_contact_count(const cr_model *model)
{
    return model->dim == 1 && model->n > 0 ? model->n - 1 : 0;
}

double cr_model_mass(const cr_model *model, size_t i)
{
    return model->balls[i].mass;
}

double cr_model_radius(const cr_model *model, size_t i)
{
    return model->balls[i].radius;
}

double cr_model_position(const cr_model *model, size_t i)
{
    return model->balls[i].x;
}

double cr_model_velocity(const cr_model *model, size_t i)
{
    return model->balls[i].v;
}

const cr_contact_params *cr_model_contact(const cr_model *model, size_t c)
{
    return model->balls[c].has_right ? &model->balls[c].right : &model->def;
}

double cr_model_initial_overlap(const cr_model *model, size_t c)
{
    const ball *a = &model->balls[c], *b = &model->balls[c + 1];
    double delta = a->radius + b->radius - (b->x - a->x);
    /* a wall has no radius: the ball's sets the tolerance */
    double rmin = a->fixed ? b->radius : (b->fixed ? a->radius : fmin(a->radius, b->radius));
    return fabs(delta) <= CR_GEOM_TOL * rmin ? 0.0 : delta;
}

/* Masses, radii, positions and velocities of every body, in any dimension. */
/* Outside the range where products like ½mv² and K δⁿ stay finite. */
static int out_of_range(double x)
{
    return !(x >= 1.0 / CR_MAX_MAGNITUDE && x <= CR_MAX_MAGNITUDE);
}

static int validate_bodies(const cr_model *model, char *msg, size_t msglen)
{
    const char *what = model->dim == 1 ? "ball" : "body";
    for (size_t i = 0; i < model->n; i++) {
        const ball *b = &model->balls[i];
        if (!isfinite(b->mass) || b->mass <= 0.0) {
            cr_set_msg(msg, msglen, "%s %zu: mass must be positive and finite (got %g)", what, i,
                       b->mass);
            return CR_ERR_MODEL;
        }
        if (b->fixed && model->dim == 1) {
            if (!isfinite(b->x)) {
                cr_set_msg(msg, msglen, "wall %zu: position must be finite", i);
                return CR_ERR_MODEL;
            }
            continue;
        }
        if (!isfinite(b->radius) || b->radius <= 0.0) {
            cr_set_msg(msg, msglen, "%s %zu: radius must be positive and finite (got %g)", what, i,
                       b->radius);
            return CR_ERR_MODEL;
        }
        if (!isfinite(b->x) || !isfinite(b->v) || !isfinite(b->y) || !isfinite(b->vy) ||
            !isfinite(b->z) || !isfinite(b->vz)) {
            cr_set_msg(msg, msglen, "%s %zu: position and velocity must be finite", what, i);
            return CR_ERR_MODEL;
        }
        if (out_of_range(b->mass) || out_of_range(b->radius) ||
            fmax(fmax(fmax(fabs(b->x), fabs(b->y)), fmax(fabs(b->v), fabs(b->vy))),
                 fmax(fabs(b->z), fabs(b->vz))) > CR_MAX_MAGNITUDE) {
            cr_set_msg(msg, msglen,
                       "%s %zu: mass, radius, position and speed must lie within %g .. %g in SI "
                       "units (got m = %g, r = %g)",
                       what, i, 1.0 / CR_MAX_MAGNITUDE, CR_MAX_MAGNITUDE, b->mass, b->radius);
            return CR_ERR_MODEL;
        }
        if (b->has_pendulum && (!(b->plength > 0.0) || !(b->pg > 0.0) || !isfinite(b->pivot) ||
                                !isfinite(b->plength) || !isfinite(b->pg))) {
            cr_set_msg(msg, msglen, "ball %zu: pendulum needs length > 0, g > 0 (got %g, %g)", i,
                       b->plength, b->pg);
            return CR_ERR_MODEL;
        }
        if ((b->drag_b > 0.0 || b->drag_c > 0.0) && model->dim != 1) {
            /* the pool engines' free flight (exact, or parabolas) knows no drag */
            cr_set_msg(msg, msglen, "%s %zu: drag is available in dim 1 only (chains)", what, i);
            return CR_ERR_MODEL;
        }
    }
    return CR_OK;
}

static int law_invalid(const cr_contact_params *p, char *msg, size_t msglen, const char *what)
{
    if (cr_contact_params_check(p) == CR_OK)
        return CR_OK;
    cr_set_msg(msg, msglen,
               "%s: need K > 0, n >= 1, C >= 0, damping exponent >= 0 "
               "(got K = %g, n = %g, C = %g, m = %g)",
               what, p->K, p->n, p->C, p->m);
    return CR_ERR_MODEL;
}

/* dim 1: positions increase, neighbours do not interpenetrate, pair laws and
 * links are valid, targets were solved. */
static int validate_chain(const cr_model *model, char *msg, size_t msglen)
{
    for (size_t c = 0; c + 1 < model->n; c++) {
        const ball *a = &model->balls[c], *b = &model->balls[c + 1];
        if (b->x <= a->x) {
            cr_set_msg(msg, msglen,
                       "balls %zu and %zu: positions must increase along the chain "
                       "(x = %g, %g)",
                       c, c + 1, a->x, b->x);
            return CR_ERR_MODEL;
        }
        if (a->fixed && b->fixed) {
            cr_set_msg(msg, msglen, "bodies %zu and %zu: two walls next to each other", c, c + 1);
            return CR_ERR_MODEL;
        }
        if (a->has_link) {
            const cr_link *l = &a->link;
            if (!(l->k > 0.0) || !(l->length > 0.0) || !(l->c >= 0.0) || !isfinite(l->k) ||
                !isfinite(l->length) || !isfinite(l->c)) {
                cr_set_msg(msg, msglen, "link %zu: need k > 0, length > 0, c >= 0 (got %g, %g, %g)",
                           c, l->k, l->length, l->c);
                return CR_ERR_MODEL;
            }
        }
        if (a->contact_off)
            continue; /* linked mass points: no unilateral contact, overlap allowed */
        double delta = cr_model_initial_overlap(model, c);
        if (delta > 0.0) {
            cr_set_msg(msg, msglen,
                       "balls %zu and %zu interpenetrate at start by %g m "
                       "(touching tolerance %g m)",
                       c, c + 1, delta,
                       CR_GEOM_TOL * (a->radius < b->radius ? a->radius : b->radius));
            return CR_ERR_MODEL;
        }
        if (a->has_target && a->target_e < 1.0 && cr_model_contact(model, c)->C == 0.0) {
            cr_set_msg(msg, msglen,
                       "contact %zu: its damping is to be solved from restitution %g; call "
                       "cr_calibrate_model first (cradle run does)",
                       c, a->target_e);
            return CR_ERR_MODEL;
        }
        char what[48];
        snprintf(what, sizeof what, "contact %zu", c);
        if (law_invalid(cr_model_contact(model, c), msg, msglen, what) != CR_OK)
            return CR_ERR_MODEL;
    }
    for (size_t i = 0; i < model->n; i++)
        if (model->balls[i].has_pendulum && model->balls[i].fixed) {
            cr_set_msg(msg, msglen, "wall %zu cannot hang on a pendulum", i);
            return CR_ERR_MODEL;
        }
    return CR_OK;
}

/* A pair class whose damping is still to be solved from the default target. */
static int unsolved_class(const cr_contact_params *law, double mu, void *user)
{
    (void)mu, (void)user;
    return law->C != 0.0 ? CR_OK : 1;
}

/* dim 2 and 3: discs (spheres) inside every wall, valid laws (default, per
 * pair, walls', from materials), targets solved. Overlaps between discs are left to the pool
 * engine's first neighbour search (O(N log N)), which refuses them by name.
 * Fixed bodies (cr_model_set_fixed) are discs or spheres that never move. */
static int validate_pool(const cr_model *model, char *msg, size_t msglen)
{
    for (size_t w = 0; w < model->nplanes; w++) {
        const plane *pl = &model->planes[w];
        for (size_t i = 0; i < model->n; i++) {
            const ball *b = &model->balls[i];
            double ov = pl->offset + b->radius - (pl->nx * b->x + pl->ny * b->y);
            if (model->dim == 3)
                ov -= pl->nz * b->z;
            if (ov > CR_GEOM_TOL * b->radius) {
                cr_set_msg(
                    msg, msglen,
                    "body %zu lies outside wall %zu (normal (%g, %g, %g), offset %g) by %g m", i, w,
                    pl->nx, pl->ny, pl->nz, pl->offset, ov);
                return CR_ERR_MODEL;
            }
        }
        char what[48];
        snprintf(what, sizeof what, "wall %zu: its contact law", w);
        if (pl->has_law && law_invalid(&pl->law, msg, msglen, what) != CR_OK)
            return CR_ERR_MODEL;
    }
    for (size_t k = 0; k < model->npairs; k++) {
        const pair_law *q = &model->pairs[k];
        char what[64];
        if (q->j >= 0)
            snprintf(what, sizeof what, "pair (%zu, %ld): its contact law", q->i, q->j);
        else
            snprintf(what, sizeof what, "body %zu and wall %zu: their contact law", q->i,
                     CR_WALL_INDEX(q->j));
        if (law_invalid(&q->law, msg, msglen, what) != CR_OK)
            return CR_ERR_MODEL;
    }
    if (model->target_e > 0.0 && model->target_e < 1.0) {
        int rc = cr_model_pair_classes(model, CR_MODEL_MAX_KINDS, unsolved_class, NULL);
        if (rc == CR_ERR_MODEL) {
            cr_set_msg(msg, msglen,
                       "restitution target: more than %d distinct bodies (mass, radius, "
                       "material); give C",
                       CR_MODEL_MAX_KINDS);
            return CR_ERR_MODEL;
        }
        if (rc != CR_OK) {
            cr_set_msg(msg, msglen,
                       "contact damping is to be solved from restitution %g; call "
                       "cr_calibrate_model first (cradle run does)",
                       model->target_e);
            return CR_ERR_MODEL;
        }
    }
    return CR_OK;
}

/* integration.accuracy → the local tolerances (docs/design.md, "Global
 * accuracy"). Error model, measured on chain traversals of 10³ to 10⁵ beads
 * with the chain engine's ERK, energy projection and padding of 4
 * (docs/performance.md, "Traversal accuracy"): the final velocities' error is
 * ACCURACY_PER_CROSSING · n · rtol · V, n the contacts the pulse crosses,
 * counted as the model's bodies (measured 0.0028 to 0.0035 over 10³ to 10⁵
 * beads and rtol 1e-7 to 5e-10). ACCURACY_SAFETY leaves room for the
 * scatter; above ACCURACY_RTOL_MAX the chain's rtol-scaled wake thresholds
 * broke the model (1000 beads at rtol 1e-6: 5.7e-3 V instead of 9e-6). */
#define ACCURACY_PER_CROSSING 0.0035
#define ACCURACY_SAFETY 2.0
#define ACCURACY_RTOL_MAX 1e-7
#define ACCURACY_ATOL_PER_RTOL 1e-2
/* The finest rtol double precision resolves: 100 ε. */
#define RTOL_FLOOR (100.0 * DBL_EPSILON)
/* Chains the engine cannot project (dampers, links, fields: BDF, or Adams
 * under a field) get rtol ten times finer: on the model files at a fixed
 * rtol their error was up to 30 times ERK's with the projection
 * (decorated-chain, BDF: 3.1e-6, 4.5e-7, 7.3e-8 V at rtol 1e-7, 1e-8, 1e-9;
 * damped-cradle 7.8e-8 at 1e-7, pendulum-cradle to 2 s 2.4e-7). */
#define ACCURACY_UNPROJECTED 10.0

/* Whether a chain keeps its energy (the engine then projects onto it): no
 * damper (nor a restitution target to solve one for), link or field. */
static int keeps_energy(const cr_model *model)
{
    if (cr_model_has_fields(model))
        return 0;
    for (size_t c = 0; c + 1 < model->n; c++)
        if (cr_model_link(model, c) || cr_model_contact(model, c)->C > 0.0 ||
            (model->balls[c].has_target && model->balls[c].target_e < 1.0))
            return 0;
    return 1;
}

void cr_model_tolerances(const cr_model *model, double *rtol, double *atol)
{
    const cr_settings *s = &model->settings;
    if (!(s->accuracy > 0.0)) {
        *rtol = s->rtol;
        *atol = s->atol;
        return;
    }
    double crossings = fmax(1.0, ACCURACY_PER_CROSSING * (double)model->n);
    double unprojected = keeps_energy(model) ? 1.0 : ACCURACY_UNPROJECTED;
    *rtol = fmin(ACCURACY_RTOL_MAX, s->accuracy / (ACCURACY_SAFETY * crossings)) / unprojected;
    *atol = ACCURACY_ATOL_PER_RTOL * *rtol;
}

static int validate_accuracy(const cr_model *model, char *msg, size_t msglen)
{
    const cr_settings *s = &model->settings;
    if (s->accuracy == 0.0)
        return CR_OK;
    if (!(s->accuracy >= CR_ACCURACY_MIN && s->accuracy <= CR_ACCURACY_MAX)) {
        cr_set_msg(msg, msglen, "integration.accuracy: must lie in [%g, %g] or be 0 (got %g)",
                   CR_ACCURACY_MIN, CR_ACCURACY_MAX, s->accuracy);
        return CR_ERR_MODEL;
    }
    if (model->dim != 1) {
        cr_set_msg(msg, msglen,
                   "integration.accuracy: chains (dim 1) only for now; a pool "
                   "takes rtol and atol");
        return CR_ERR_MODEL;
    }
    double rtol, atol;
    cr_model_tolerances(model, &rtol, &atol);
    if (rtol < RTOL_FLOOR) {
        cr_set_msg(msg, msglen,
                   "integration.accuracy %g over %zu bodies needs rtol %.2g, below what double "
                   "precision resolves (%.1e)",
                   s->accuracy, model->n, rtol, RTOL_FLOOR);
        return CR_ERR_MODEL;
    }
    return CR_OK;
}

static int validate_settings(const cr_model *model, char *msg, size_t msglen)
{
    const cr_settings *s = &model->settings;
    if (!(s->rtol > 0.0 && s->rtol < 1.0) || !(s->atol > 0.0) || !isfinite(s->t_end) ||
        !isfinite(s->output_interval)) {
        cr_set_msg(msg, msglen, "integration settings: need 0 < rtol < 1, atol > 0, finite times");
        return CR_ERR_MODEL;
    }
    if (validate_accuracy(model, msg, msglen) != CR_OK)
        return CR_ERR_MODEL;
    if (!(s->rigid_touching >= 0.0 && s->rigid_touching <= 1e6)) {
        cr_set_msg(msg, msglen, "rigid.touching: must lie in [0, 1e6] (got %g)", s->rigid_touching);
        return CR_ERR_MODEL;
    }
    if (!(s->jacobian_floor > 0.0 && s->jacobian_floor < 1.0) || !(s->skin > 0.0) ||
        !isfinite(s->skin) || (unsigned)s->solver > CR_SOLVER_FIXED_POINT) {
        cr_set_msg(msg, msglen,
                   "integration settings: need 0 < jacobian_floor < 1, skin > 0, "
                   "a known solver");
        return CR_ERR_MODEL;
    }
    if ((unsigned)s->active_region > CR_ACTIVE_REGION_OFF) {
        cr_set_msg(msg, msglen, "integration settings: active_region must be auto, on or off");
        return CR_ERR_MODEL;
    }
    if (s->active_region == CR_ACTIVE_REGION_ON && cr_model_has_fields(model)) {
        cr_set_msg(msg, msglen,
                   "integration settings: active_region on needs a model without gravity, "
                   "pendulums or drag (free flight is exact only without fields)");
        return CR_ERR_MODEL;
    }
    return validate_output(model, msg, msglen);
}

int cr_model_validate(const cr_model *model, char *msg, size_t msglen)
{
    if (!model)
        return CR_ERR_INVALID;
    if (model->n == 0) {
        cr_set_msg(msg, msglen, "the model has no bodies");
        return CR_ERR_MODEL;
    }
    int rc = validate_bodies(model, msg, msglen);
    if (rc == CR_OK)
        rc = law_invalid(&model->def, msg, msglen, "default contact law");
    if (rc == CR_OK)
        rc = model->dim == 1 ? validate_chain(model, msg, msglen)
                             : validate_pool(model, msg, msglen);
    if (rc == CR_OK)
        rc = validate_settings(model, msg, msglen);
    return rc;
}

cr_model *cr_model_subchain(const cr_model *model, size_t first, size_t last, const double *x,
                            const double *v)
{
    if (!model || first > last || last >= model->n)
        return NULL;
    cr_model *sub = cr_model_create();
    if (!sub)
        return NULL;
    sub->def = model->def;
    sub->settings = model->settings;
    sub->gravity = model->gravity;
    if ((model->name && cr_model_set_name(sub, model->name) != CR_OK) ||
        cr_model_set_interval_where(sub, model->interval_where) != CR_OK) {
        cr_model_destroy(sub);
        return NULL;
    }
    for (size_t i = first; i <= last; i++) {
        const ball *b = &model->balls[i];
        int k = cr_model_add_ball(sub, b->mass, b->radius, x ? x[i - first] : b->x,
                                  v ? v[i - first] : b->v);
        if (k < 0) {
            cr_model_destroy(sub);
            return NULL;
        }
        /* everything a body carries, including the pair to its right; the last
         * body's right pair is outside the sub-chain */
        ball *nb = &sub->balls[k];
        double xi = nb->x, vi = nb->v;
        *nb = *b;
        nb->x = xi;
        nb->v = vi;
        if (i == last) {
            nb->has_right = nb->has_link = nb->has_target = 0;
            nb->contact_off = 0;
        }
    }
    return sub;
}

/* ---- dimension, bodies and walls in dim dimensions ------------------------ */

int cr_model_set_dimension(cr_model *model, int dim)
{
    if (!model || dim < 1 || dim > 3 || model->n > 0)
        return CR_ERR_INVALID;
    model->dim = dim;
    return CR_OK;
}

int cr_model_dimension(const cr_model *model)
{
    return model ? model->dim : 0;
}

size_t cr_model_body_count(const cr_model *model)
{
    return model ? model->n : 0;
}

int cr_model_add_body(cr_model *model, double mass, double radius, const double *x, const double *v)
{
    if (!model || !x || !v)
        return CR_ERR_INVALID;
    int i = cr_model_add_ball(model, mass, radius, x[0], v[0]);
    if (i >= 0 && model->dim >= 2) {
        model->balls[i].y = x[1];
        model->balls[i].vy = v[1];
    }
    if (i >= 0 && model->dim == 3) {
        model->balls[i].z = x[2];
        model->balls[i].vz = v[2];
    }
    return i;
}

int cr_model_get_body(const cr_model *model, size_t i, double *x, double *v)
{
    if (!model || i >= model->n)
        return CR_ERR_INVALID;
    const ball *b = &model->balls[i];
    if (x) {
        x[0] = b->x;
        if (model->dim >= 2)
            x[1] = b->y;
        if (model->dim == 3)
            x[2] = b->z;
    }
    if (v) {
        v[0] = b->fixed ? 0.0 : b->v;
        if (model->dim >= 2)
            v[1] = b->fixed ? 0.0 : b->vy;
        if (model->dim == 3)
            v[2] = b->fixed ? 0.0 : b->vz;
    }
    return CR_OK;
}

int cr_model_set_body_state(cr_model *model, size_t i, const double *x, const double *v)
{
    if (!model || i >= model->n || !x || !v)
        return CR_ERR_INVALID;
    ball *b = &model->balls[i];
    if (b->fixed)
        return CR_OK; /* a wall stays where the model put it */
    for (size_t k = 0; k < model->nclumps; k++)
        if (i >= model->clumps[k].first && i < model->clumps[k].first + model->clumps[k].count)
            return CR_ERR_INVALID; /* a feature moves with its body (θ is not given) */
    b->x = x[0];
    b->v = v[0];
    if (model->dim >= 2) {
        b->y = x[1];
        b->vy = v[1];
    }
    if (model->dim == 3) {
        b->z = x[2];
        b->vz = v[2];
    }
    return CR_OK;
}

int cr_model_add_plane(cr_model *model, const double *normal, double offset,
                       const cr_contact_params *law)
{
    if (!model || !normal || model->dim < 2)
        return CR_ERR_INVALID;
    double nz = model->dim == 3 ? normal[2] : 0.0;
    double len =
        model->dim == 3 ? hypot(hypot(normal[0], normal[1]), nz) : hypot(normal[0], normal[1]);
    if (!(len > 0.0) || !isfinite(len) || !isfinite(offset))
        return CR_ERR_INVALID;
    plane *p = realloc(model->planes, (model->nplanes + 1) * sizeof(*p));
    if (!p)
        return CR_ERR_NOMEM;
    model->planes = p;
    plane *w = &p[model->nplanes];
    memset(w, 0, sizeof(*w));
    /* a unit normal: the offset scales with it, so the half-plane is the same */
    w->nx = normal[0] / len;
    w->ny = normal[1] / len;
    w->nz = nz / len;
    w->offset = offset / len;
    if (law) {
        w->law = *law;
        w->has_law = 1;
    }
    return (int)model->nplanes++;
}

size_t cr_model_plane_count(const cr_model *model)
{
    return model ? model->nplanes : 0;
}

int cr_model_get_plane(const cr_model *model, size_t w, double *normal, double *offset)
{
    if (!model || w >= model->nplanes)
        return CR_ERR_INVALID;
    if (normal) {
        normal[0] = model->planes[w].nx;
        normal[1] = model->planes[w].ny;
        if (model->dim == 3)
            normal[2] = model->planes[w].nz;
    }
    if (offset)
        *offset = model->planes[w].offset;
    return CR_OK;
}

int cr_model_set_plane_material(cr_model *model, size_t w, double E, double nu)
{
    if (!model || w >= model->nplanes || !(E > 0.0) || !isfinite(E) || !(nu > -1.0 && nu < 0.5))
        return CR_ERR_INVALID;
    model->planes[w].E = E;
    model->planes[w].nu = nu;
    model->planes[w].has_material = 1;
    return CR_OK;
}

int cr_model_set_gravity_vector(cr_model *model, const double *g)
{
    if (!model || !g || !isfinite(g[0]) || (model->dim >= 2 && !isfinite(g[1])) ||
        (model->dim == 3 && !isfinite(g[2])))
        return CR_ERR_INVALID;
    model->gravity = g[0];
    model->gravity_y = model->dim >= 2 ? g[1] : 0.0;
    model->gravity_z = model->dim == 3 ? g[2] : 0.0;
    return CR_OK;
}

void cr_model_get_gravity_vector(const cr_model *model, double *g)
{
    g[0] = model->gravity;
    if (model->dim >= 2)
        g[1] = model->gravity_y;
    if (model->dim == 3)
        g[2] = model->gravity_z;
}

/* ---- materials and pair laws ---------------------------------------------- */

int cr_model_set_material(cr_model *model, size_t i, double E, double nu)
{
    if (!model || i >= model->n || !(E > 0.0) || !isfinite(E) || !(nu > -1.0 && nu < 0.5))
        return CR_ERR_INVALID;
    model->balls[i].E = E;
    model->balls[i].nu = nu;
    model->balls[i].has_material = 1;
    return CR_OK;
}

int cr_model_plane_material(const cr_model *model, size_t w, double *E, double *nu)
{
    if (!model || w >= model->nplanes || !model->planes[w].has_material)
        return 0;
    *E = model->planes[w].E;
    *nu = model->planes[w].nu;
    return 1;
}

const cr_contact_params *cr_model_default_contact(const cr_model *model)
{
    return &model->def;
}

int cr_model_material(const cr_model *model, size_t i, double *E, double *nu)
{
    if (!model || i >= model->n || !model->balls[i].has_material)
        return 0;
    *E = model->balls[i].E;
    *nu = model->balls[i].nu;
    return 1;
}

/* Position of pair (i, j) in the table sorted by (i, j), or where it would go. */
static size_t pair_slot(const cr_model *model, size_t i, long j, int *found)
{
    size_t lo = 0, hi = model->npairs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pair_law *q = &model->pairs[mid];
        if (q->i < i || (q->i == i && q->j < j))
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < model->npairs && model->pairs[lo].i == i && model->pairs[lo].j == j;
    return lo;
}

int cr_model_set_pair_law(cr_model *model, size_t i, long j, const cr_contact_params *p)
{
    if (!model || !p || i >= model->n)
        return CR_ERR_INVALID;
    if (model->dim == 1)
        return j == (long)i + 1 ? cr_model_set_contact(model, i, p) : CR_ERR_INVALID;
    if (j >= 0 ? (size_t)j >= model->n || (size_t)j == i : CR_WALL_INDEX(j) >= model->nplanes)
        return CR_ERR_INVALID;
    if (j >= 0 && (size_t)j < i) { /* stored with i < j */
        size_t t = (size_t)j;
        j = (long)i;
        i = t;
    }
    /* sorted, so that the pool engine finds a pair's law in O(log P) whenever
     * a contact appears */
    int found;
    size_t at = pair_slot(model, i, j, &found);
    if (found) {
        model->pairs[at].law = *p;
        return CR_OK;
    }
    pair_law *q = realloc(model->pairs, (model->npairs + 1) * sizeof(*q));
    if (!q)
        return CR_ERR_NOMEM;
    model->pairs = q;
    memmove(q + at + 1, q + at, (model->npairs - at) * sizeof(*q));
    q[at] = (pair_law){i, j, *p};
    model->npairs++;
    return CR_OK;
}

static int same_law_but_damping(const cr_contact_params *a, const cr_contact_params *b)
{
    return a->K == b->K && a->n == b->n && a->m == b->m && a->release == b->release;
}

/* Hertz between the materials of body i and body j (or flat wall), if both have one. */
static int material_law(const cr_model *model, size_t i, long j, cr_contact_params *out)
{
    const ball *a = &model->balls[i];
    double E2, nu2, R2;
    if (!a->has_material)
        return 0;
    if (j >= 0) {
        const ball *b = &model->balls[j]; /* a fixed disc or sphere has its radius */
        if (!b->has_material)
            return 0;
        E2 = b->E;
        nu2 = b->nu;
        R2 = b->radius;
    } else {
        const plane *w = &model->planes[CR_WALL_INDEX(j)];
        if (!w->has_material)
            return 0;
        E2 = w->E;
        nu2 = w->nu;
        R2 = INFINITY;
    }
    double K = cr_contact_hertz_stiffness(a->E, a->nu, a->radius, E2, nu2, R2);
    cr_contact_params_init(out, K, 1.5, model->def.C, model->def.release);
    /* a Hertz default keeps its damping exponent (m = n gives Hunt–Crossley);
     * another default's exponent belongs to its own n */
    if (model->def.n == 1.5)
        out->m = model->def.m;
    return 1;
}

/* 1/m_eff of body i pushed along the unit normal n at its centre: a feature
 * of a clump gives 1/M + (r × n)²/J with r from the clump's centre of mass
 * (the initial configuration); a fixed body 0; another body 1/m. */
static double inverse_mass_along(const cr_model *model, size_t i, const double *n)
{
    const ball *b = &model->balls[i];
    if (b->fixed)
        return 0.0;
    for (size_t k = 0; k < model->nclumps; k++) {
        const cr_clump *c = &model->clumps[k];
        if (i < c->first || i >= c->first + c->count)
            continue;
        double rxn = (b->x - c->x[0]) * n[1] - (b->y - c->x[1]) * n[0];
        return 1.0 / c->mass + rxn * rxn / c->J;
    }
    return 1.0 / b->mass;
}

/* With clumps (model-format.md "Rigid bodies"): the pair's effective mass
 * 1/(wᵀM⁻¹w) along its normal at the initial configuration (the line of
 * centres, or the wall's normal). */
static double clump_pair_mass(const cr_model *model, size_t i, long j)
{
    double n[2];
    if (j < 0) {
        const plane *w = &model->planes[CR_WALL_INDEX(j)];
        n[0] = w->nx;
        n[1] = w->ny;
    } else {
        const ball *a = &model->balls[i], *b = &model->balls[j];
        double d = hypot(b->x - a->x, b->y - a->y);
        n[0] = (b->x - a->x) / d;
        n[1] = (b->y - a->y) / d;
    }
    double inv =
        inverse_mass_along(model, i, n) + (j < 0 ? 0.0 : inverse_mass_along(model, (size_t)j, n));
    return 1.0 / inv;
}

/* Reduced mass of a pair: a fixed body or a wall is immovable. */
static double pair_reduced_mass(const cr_model *model, size_t i, long j)
{
    if (model->nclumps)
        return clump_pair_mass(model, i, j);
    double ma = model->balls[i].mass;
    if (j < 0 || model->balls[j].fixed)
        return ma;
    double mb = model->balls[j].mass;
    return model->balls[i].fixed ? mb : ma * mb / (ma + mb);
}

/* The law of a pair without an entry of its own: Hertz from the materials, else
 * the wall's own law, else the default. Depends only on the bodies' kinds. */
static void implicit_law(const cr_model *model, size_t a, long b, cr_contact_params *out)
{
    if (material_law(model, a, b, out))
        return;
    if (b < 0 && model->planes[CR_WALL_INDEX(b)].has_law)
        *out = model->planes[CR_WALL_INDEX(b)].law;
    else
        *out = model->def;
}

/* Damping solved for the default restitution target (cr_calibrate_model). */
static void apply_solved(const cr_model *model, double mu, cr_contact_params *out)
{
    if (!(model->target_e > 0.0 && model->target_e < 1.0) || out->C != 0.0)
        return;
    for (size_t k = 0; k < model->nsolved; k++)
        if (model->solved[k].mu == mu && same_law_but_damping(&model->solved[k].law, out)) {
            out->C = model->solved[k].law.C;
            return;
        }
}

int cr_model_pair_law(const cr_model *model, size_t i, long j, cr_contact_params *out)
{
    if (!model || !out || i >= model->n ||
        (j >= 0 ? (size_t)j >= model->n : CR_WALL_INDEX(j) >= model->nplanes))
        return CR_ERR_INVALID;
    if (model->dim == 1) {
        if (j != (long)i + 1)
            return CR_ERR_INVALID;
        *out = *cr_model_contact(model, i);
        return CR_OK;
    }
    size_t a = i;
    long b = j;
    if (b >= 0 && (size_t)b < a) {
        a = (size_t)b;
        b = (long)i;
    }
    int found;
    size_t at = pair_slot(model, a, b, &found);
    if (found)
        *out = model->pairs[at].law;
    else
        implicit_law(model, a, b, out);
    apply_solved(model, pair_reduced_mass(model, a, b), out);
    return CR_OK;
}

int cr_model_set_default_target(cr_model *model, double e, double v)
{
    if (!model || !(e > 0.0 && e <= 1.0) || !(v > 0.0) || !isfinite(v))
        return CR_ERR_INVALID;
    model->target_e = e;
    model->target_v = v;
    return CR_OK;
}

int cr_model_default_target(const cr_model *model, double *e, double *v)
{
    if (!model || !(model->target_e > 0.0))
        return 0;
    *e = model->target_e;
    *v = model->target_v;
    return 1;
}

int cr_model_add_solved_damping(cr_model *model, const cr_contact_params *law, double mu, double C)
{
    if (!model || !law || !(mu > 0.0) || !(C >= 0.0) || !isfinite(C))
        return CR_ERR_INVALID;
    solved_damping *q = realloc(model->solved, (model->nsolved + 1) * sizeof(*q));
    if (!q)
        return CR_ERR_NOMEM;
    model->solved = q;
    q[model->nsolved].law = *law;
    q[model->nsolved].law.C = C;
    q[model->nsolved].mu = mu;
    model->nsolved++;
    return CR_OK;
}

/* ---- copies, body kinds and pair classes ------------------------------------ */

static void *dup_array(const void *src, size_t n, size_t size, int *fail)
{
    if (n == 0 || !src)
        return NULL;
    void *p = malloc(n * size);
    if (!p) {
        *fail = 1;
        return NULL;
    }
    memcpy(p, src, n * size);
    return p;
}

cr_model *cr_model_copy(const cr_model *model)
{
    if (!model)
        return NULL;
    cr_model *c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    *c = *model;
    int fail = 0;
    c->name = model->name ? strdup(model->name) : NULL;
    fail |= model->name && !c->name;
    c->interval_where = model->interval_where ? strdup(model->interval_where) : NULL;
    fail |= model->interval_where && !c->interval_where;
    c->balls = dup_array(model->balls, model->n, sizeof(ball), &fail);
    c->cap = model->n;
    c->planes = dup_array(model->planes, model->nplanes, sizeof(plane), &fail);
    c->pairs = dup_array(model->pairs, model->npairs, sizeof(pair_law), &fail);
    c->solved = dup_array(model->solved, model->nsolved, sizeof(solved_damping), &fail);
    c->clumps = dup_array(model->clumps, model->nclumps, sizeof(cr_clump), &fail);
    if (fail) {
        cr_model_destroy(c);
        return NULL;
    }
    return c;
}

/* What makes two bodies interchangeable for every pair law without an entry
 * of its own: mass, radius and material. */
typedef struct {
    double mass, radius, E, nu;
    int has_material;
    size_t i;
} kind_key;

static int cmp_kind(const void *pa, const void *pb)
{
    const kind_key *a = pa, *b = pb;
    double da[4] = {a->mass, a->radius, a->E, a->nu}, db[4] = {b->mass, b->radius, b->E, b->nu};
    if (a->has_material != b->has_material)
        return a->has_material < b->has_material ? -1 : 1;
    for (int k = 0; k < 4; k++)
        if (da[k] != db[k])
            return da[k] < db[k] ? -1 : 1;
    return 0;
}

/* The kinds of the moving bodies (@p fixed 0) or of the fixed ones (1). */
static int body_kinds_of(const cr_model *model, int fixed, size_t *rep, size_t *count,
                         size_t *nkinds)
{
    *nkinds = 0;
    kind_key *k = malloc((model->n ? model->n : 1) * sizeof(*k));
    if (!k)
        return CR_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < model->n; i++) {
        const ball *b = &model->balls[i];
        if (b->fixed != fixed)
            continue;
        k[m++] = (kind_key){
            b->mass,         b->radius, b->has_material ? b->E : 0.0, b->has_material ? b->nu : 0.0,
            b->has_material, i};
    }
    qsort(k, m, sizeof(*k), cmp_kind);
    for (size_t q = 0; q < m; q++) {
        if (q == 0 || cmp_kind(&k[q - 1], &k[q]) != 0) {
            rep[*nkinds] = k[q].i;
            count[(*nkinds)++] = 0;
        }
        count[*nkinds - 1]++;
    }
    free(k);
    return CR_OK;
}

int cr_model_body_kinds(const cr_model *model, size_t *rep, size_t *count, size_t *nkinds)
{
    return body_kinds_of(model, 0, rep, count, nkinds);
}

/* Explicit pairs, every pair of body kinds (one kind with itself when it has two
 * bodies) and every kind with every wall. */
static int pool_pair_classes(const cr_model *model, const size_t *rep, const size_t *count,
                             size_t nk, cr_pair_class_fn fn, void *user)
{
    int rc = CR_OK;
    cr_contact_params p;
    for (size_t k = 0; k < model->npairs && rc == CR_OK; k++) {
        const pair_law *q = &model->pairs[k];
        p = q->law;
        double mu = pair_reduced_mass(model, q->i, q->j);
        apply_solved(model, mu, &p);
        rc = fn(&p, mu, user);
    }
    for (size_t a = 0; a < nk && rc == CR_OK; a++) {
        for (size_t b = a; b < nk && rc == CR_OK; b++) {
            if (b == a && count[a] < 2)
                continue;
            implicit_law(model, rep[a], (long)rep[b], &p);
            double mu = pair_reduced_mass(model, rep[a], (long)rep[b]);
            apply_solved(model, mu, &p);
            rc = fn(&p, mu, user);
        }
        for (size_t w = 0; w < model->nplanes && rc == CR_OK; w++) {
            implicit_law(model, rep[a], CR_WALL_BODY(w), &p);
            double mu = model->balls[rep[a]].mass;
            apply_solved(model, mu, &p);
            rc = fn(&p, mu, user);
        }
    }
    return rc;
}

/* The same body of a clump (features never touch each other). */
static int same_clump(const cr_model *model, size_t i, size_t j)
{
    for (size_t k = 0; k < model->nclumps; k++) {
        const cr_clump *c = &model->clumps[k];
        if (i >= c->first && i < c->first + c->count)
            return j >= c->first && j < c->first + c->count;
    }
    return 0;
}

/* With clumps every pair has its own effective mass: every feature pair of two
 * bodies and every feature with every wall (models of clumps are small). */
static int clump_pair_classes(const cr_model *model, cr_pair_class_fn fn, void *user)
{
    int rc = CR_OK;
    cr_contact_params p;
    for (size_t i = 0; i < model->n && rc == CR_OK; i++) {
        for (size_t j = i + 1; j < model->n && rc == CR_OK; j++) {
            if (same_clump(model, i, j) || (model->balls[i].fixed && model->balls[j].fixed))
                continue;
            cr_model_pair_law(model, i, (long)j, &p);
            rc = fn(&p, pair_reduced_mass(model, i, (long)j), user);
        }
        for (size_t w = 0; w < model->nplanes && rc == CR_OK && !model->balls[i].fixed; w++) {
            cr_model_pair_law(model, i, CR_WALL_BODY(w), &p);
            rc = fn(&p, pair_reduced_mass(model, i, CR_WALL_BODY(w)), user);
        }
    }
    return rc;
}

int cr_model_pair_classes(const cr_model *model, size_t max_kinds, cr_pair_class_fn fn, void *user)
{
    if (model->nclumps)
        return clump_pair_classes(model, fn, user);
    if (model->dim == 1) {
        for (size_t c = 0; c + 1 < model->n; c++) {
            if (model->balls[c].contact_off)
                continue;
            int rc = fn(cr_model_contact(model, c), pair_reduced_mass(model, c, (long)c + 1), user);
            if (rc != CR_OK)
                return rc;
        }
        return CR_OK;
    }
    size_t n = model->n ? model->n : 1, *rep = malloc(4 * n * sizeof(size_t)), nk, nf = 0;
    if (!rep)
        return CR_ERR_NOMEM;
    int rc = cr_model_body_kinds(model, rep, rep + n, &nk);
    if (rc == CR_OK) /* the fixed discs' or spheres' kinds: each meets every moving kind */
        rc = body_kinds_of(model, 1, rep + 2 * n, rep + 3 * n, &nf);
    int many = nk > max_kinds || nf > max_kinds;
    if (rc == CR_OK)
        rc = pool_pair_classes(model, rep, rep + n, many ? 0 : nk, fn, user);
    for (size_t a = 0; !many && a < nk && rc == CR_OK; a++)
        for (size_t f = 0; f < nf && rc == CR_OK; f++) {
            cr_contact_params p;
            implicit_law(model, rep[a], (long)rep[2 * n + f], &p);
            double mu = model->balls[rep[a]].mass; /* the fixed body does not move */
            apply_solved(model, mu, &p);
            rc = fn(&p, mu, user);
        }
    if (rc == CR_OK && many)
        rc = CR_ERR_MODEL;
    free(rep);
    return rc;
}

/* ---- clumps (planar rigid bodies; docs/model-format.md, "Rigid bodies") */

int cr_model_add_clump(cr_model *model, const cr_clump *c)
{
    if (!model || !c || model->dim != 2 || c->count == 0 || c->first + c->count > model->n ||
        !(c->mass > 0.0) || !(c->J > 0.0) || !isfinite(c->mass) || !isfinite(c->J))
        return CR_ERR_INVALID;
    cr_clump *a = realloc(model->clumps, (model->nclumps + 1) * sizeof(*a));
    if (!a)
        return CR_ERR_NOMEM;
    model->clumps = a;
    a[model->nclumps] = *c;
    return (int)model->nclumps++;
}

size_t cr_model_clump_count(const cr_model *model)
{
    return model ? model->nclumps : 0;
}

const cr_clump *cr_model_get_clump(const cr_model *model, size_t k)
{
    return model && k < model->nclumps ? &model->clumps[k] : NULL;
}

/* ---- rigid motions (cr_model_embed) --------------------------------------- */

/* y = R x on 3-vectors, R row-major. */
static void rotate3(const double R[9], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

int cr_model_move_rigidly(cr_model *model, int dim, const double R[9], const double t[3])
{
    if (!model || model->dim < 2 || dim < model->dim || dim > 3 || model->nclumps)
        return CR_ERR_INVALID;
    model->dim = dim;
    for (size_t i = 0; i < model->n; i++) {
        ball *b = &model->balls[i];
        double x[3] = {b->x, b->y, b->z}, v[3] = {b->v, b->vy, b->vz}, y[3], w[3];
        rotate3(R, x, y);
        rotate3(R, v, w);
        b->x = y[0] + t[0];
        b->y = y[1] + t[1];
        b->z = dim == 3 ? y[2] + t[2] : 0.0;
        b->v = w[0];
        b->vy = w[1];
        b->vz = dim == 3 ? w[2] : 0.0;
    }
    for (size_t k = 0; k < model->nplanes; k++) {
        /* n·p ≥ offset becomes n'·p' ≥ offset + n'·t with n' = R n, p' = R p + t */
        plane *p = &model->planes[k];
        double n[3] = {p->nx, p->ny, p->nz}, m[3];
        rotate3(R, n, m);
        p->nx = m[0];
        p->ny = m[1];
        p->nz = dim == 3 ? m[2] : 0.0;
        p->offset += m[0] * t[0] + m[1] * t[1] + (dim == 3 ? m[2] * t[2] : 0.0);
    }
    double g[3] = {model->gravity, model->gravity_y, model->gravity_z}, h[3];
    rotate3(R, g, h);
    model->gravity = h[0];
    model->gravity_y = h[1];
    model->gravity_z = dim == 3 ? h[2] : 0.0;
    return CR_OK;
}
