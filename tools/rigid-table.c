/* `--rigid energetic --table TABLE`: each rigid impact's α and κ looked up in
 * a reference table (docs/tables.md) instead of given or calibrated. A
 * chainN table (a striker hitting N − 1 touching balls at rest) covers every
 * impact of N bodies of that shape, the striker coming from either side: the
 * impact's mass and stiffness ratios, restitutions at the striker's speed and
 * gaps over d* are mapped onto the table's declared axes. An impact the
 * table does not describe stops the run (exit 3), one outside its axes too
 * (exit 5), with one line naming it: a table says nothing about
 * configurations it does not hold, and a silent fallback would pass a guess
 * for a reference. */
#include "rigid-table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/table.h"

#define NB CR_TABLE_CHAIN_MAX

struct rigid_table {
    cr_table *table;
    cr_restitution_cache *cache; /* the pairs' two-body restitutions, once per (law, μ, v) */
    const cr_model *model;
    double *x, *v; /* positions and velocities of the system's bodies */
    double alpha[NB];
    double bound[2]; /* the largest bounds of α and κ over the impacts so far */
    char label[400];
    size_t label_base; /* the label's length before the bounds met are added */
};

rigid_table *rigid_table_open(const char *path, const cr_model *model, char *msg, size_t len)
{
    rigid_table *r = calloc(1, sizeof *r);
    size_t n = cr_model_body_count(model);
    if (!r || !(r->cache = cr_restitution_cache_create()) ||
        !(r->x = malloc((n + 1) * sizeof(double))) || !(r->v = malloc((n + 1) * sizeof(double)))) {
        snprintf(msg, len, "out of memory");
        rigid_table_free(r);
        return NULL;
    }
    if (cr_table_open(path, &r->table, msg, len) != CR_OK) {
        rigid_table_free(r);
        return NULL;
    }
    if (cr_table_chain_bodies(r->table) == 0 || cr_model_dimension(model) != 1) {
        snprintf(msg, len,
                 "%s: a rigid run reads chain tables (configuration chainN: a striker hitting "
                 "touching balls at rest; this one: '%s') for chains only",
                 path, cr_table_attr(r->table, "configuration"));
        rigid_table_free(r);
        return NULL;
    }
    r->model = model;
    snprintf(r->label, sizeof r->label, "table %s: alpha, kappa looked up at each impact", path);
    r->label_base = strlen(r->label);
    return r;
}

const char *rigid_table_label(const rigid_table *r)
{
    return r->label;
}

const char *rigid_table_label_after(rigid_table *r)
{
    /* from the base each time: a second call does not add the bounds twice */
    size_t used = r->label_base;
    snprintf(r->label + used, sizeof r->label - used,
             "; largest bounds met: alpha +- %.3g, kappa +- %.3g", r->bound[0], r->bound[1]);
    return r->label;
}

void rigid_table_bounds(const rigid_table *r, double bound[2])
{
    bound[0] = r->bound[0];
    bound[1] = r->bound[1];
}

/* The impact's bodies first .. first + count in striker order (the moving
 * end first): @return +1 (the lowest body strikes), −1 (the highest), 0
 * (not a striker hitting bodies at rest). */
static int striker_side(const double *v, size_t first, size_t count)
{
    double lo = v[first], hi = v[first + count];
    int rest_lo = 1, rest_hi = 1;
    for (size_t i = first + 1; i <= first + count; i++)
        rest_lo &= fabs(v[i]) <= 1e-12 * fabs(lo);
    for (size_t i = first; i < first + count; i++)
        rest_hi &= fabs(v[i]) <= 1e-12 * fabs(hi);
    return lo > 0.0 && rest_lo ? 1 : hi < 0.0 && rest_hi ? -1 : 0;
}

int rigid_table_params(const cr_system *sys, size_t impact, size_t first, size_t count,
                       cr_law_params *p, char *msg, size_t msglen, void *user)
{
    rigid_table *r = user;
    const char *path = cr_table_path(r->table);
    cr_system_get_velocities(sys, r->v);
    cr_system_get_positions(sys, r->x);
    int side = count + 1 <= NB ? striker_side(r->v, first, count) : 0;
    for (size_t b = first; b <= first + count; b++)
        side = cr_model_is_fixed(r->model, b) ? 0 : side; /* a wall is no ball of a chain */
    if (side == 0) {
        snprintf(msg, msglen,
                 "table %s: rigid impact %zu (pairs %zu-%zu, %zu bodies) is not a striker hitting "
                 "touching balls at rest, the configuration a %s table holds",
                 path, impact, first, first + count - 1, count + 1,
                 cr_table_attr(r->table, "configuration"));
        return CR_ERR_MODEL;
    }
    size_t n = count + 1;
    double mass[NB], gap[NB], alpha[NB], kappa, bound[2];
    cr_contact_params laws[NB];
    for (size_t k = 0; k < n; k++) { /* k-th body from the striker */
        size_t b = side > 0 ? first + k : first + count - k;
        mass[k] = cr_model_mass(r->model, b);
        if (k + 1 < n) {
            size_t lo = side > 0 ? b : b - 1; /* the pair (lo, lo + 1) */
            cr_model_pair_law(r->model, lo, (long)lo + 1, &laws[k]);
            gap[k] = r->x[lo + 1] - r->x[lo] - cr_model_radius(r->model, lo) -
                     cr_model_radius(r->model, lo + 1);
        }
    }
    char why[512];
    int rc = cr_table_chain(r->table, r->cache, n, mass, laws, gap,
                            fabs(r->v[side > 0 ? first : first + count]), alpha, &kappa, bound, why,
                            sizeof why);
    if (rc != CR_OK) {
        snprintf(msg, msglen, "rigid impact %zu: %s", impact, why);
        /* outside the axes (exit 5), else not described by the table (exit 3) */
        return rc == CR_ERR_DOMAIN ? rc : CR_ERR_MODEL;
    }
    /* the table's α is per contact from the striker, relative to its first */
    for (size_t j = 0; j < count; j++)
        r->alpha[j] = side > 0 ? alpha[j] : alpha[count - 1 - j];
    double aref = r->alpha[p->reference];
    for (size_t j = 0; j < count; j++)
        r->alpha[j] /= aref;
    p->alpha = r->alpha;
    p->kappa = kappa;
    r->bound[0] = fmax(r->bound[0], bound[0]);
    r->bound[1] = fmax(r->bound[1], bound[1]);
    return CR_OK;
}

void rigid_table_free(rigid_table *r)
{
    if (r) {
        cr_table_close(r->table);
        cr_restitution_cache_destroy(r->cache);
        free(r->x);
        free(r->v);
        free(r);
    }
}
