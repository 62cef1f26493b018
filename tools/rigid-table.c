/* `--rigid energetic --table TABLE`: each rigid impact's α and κ looked up in
 * a reference table (docs/tables.md) instead of given or calibrated. A chain3
 * table covers a striker hitting two touching balls at rest; an impact of
 * another shape stops the run with one line naming it (a table says nothing
 * about configurations it does not hold, and a silent fallback would pass a
 * guess for a reference). */
#include "rigid-table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/table.h"

struct rigid_table {
    cr_table *table;
    cr_restitution_cache *cache; /* the pairs' two-body restitutions, once per (law, μ, v) */
    const cr_model *model;
    double alpha[2];
    char label[160];
};

rigid_table *rigid_table_open(const char *path, const cr_model *model, char *msg, size_t len)
{
    rigid_table *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(msg, len, "out of memory");
        return NULL;
    }
    if (!(r->cache = cr_restitution_cache_create())) {
        snprintf(msg, len, "out of memory");
        free(r);
        return NULL;
    }
    if (cr_table_open(path, &r->table, msg, len) != CR_OK) {
        cr_restitution_cache_destroy(r->cache);
        free(r);
        return NULL;
    }
    if (strcmp(cr_table_attr(r->table, "configuration"), "chain3") != 0 ||
        cr_model_body_count(model) != 3 || cr_model_dimension(model) != 1) {
        snprintf(msg, len,
                 "%s: a rigid run reads chain3 tables (a striker hitting two touching balls "
                 "at rest) for 3-ball chains only",
                 path);
        rigid_table_free(r);
        return NULL;
    }
    r->model = model;
    snprintf(r->label, sizeof r->label, "table %s: alpha, kappa looked up at each impact", path);
    return r;
}

const char *rigid_table_label(const rigid_table *r)
{
    return r->label;
}

int rigid_table_params(const cr_system *sys, size_t impact, size_t first, size_t count,
                       cr_law_params *p, char *msg, size_t msglen, void *user)
{
    rigid_table *r = user;
    double v[3], mass[3];
    cr_contact_params laws[2];
    cr_system_get_velocities(sys, v);
    if (first != 0 || count != 2 || !(v[0] > 0.0) || fabs(v[1]) > 1e-12 * v[0] ||
        fabs(v[2]) > 1e-12 * v[0]) {
        snprintf(msg, msglen,
                 "table: rigid impact %zu (pairs %zu-%zu) is not a striker hitting two touching "
                 "balls at rest, the one configuration a chain3 table holds",
                 impact, first, first + count - 1);
        return CR_ERR_INVALID;
    }
    for (size_t i = 0; i < 3; i++)
        mass[i] = cr_model_mass(r->model, i);
    cr_model_pair_law(r->model, 0, 1, &laws[0]);
    cr_model_pair_law(r->model, 1, 2, &laws[1]);
    double alpha[2], kappa, bound[2];
    char why[512];
    int rc = cr_table_chain3_cached(r->table, r->cache, mass, laws, v[0], alpha, &kappa, bound, why,
                                    sizeof why);
    if (rc != CR_OK) {
        snprintf(msg, msglen, "table %s: %s", cr_table_path(r->table), why);
        return rc;
    }
    for (size_t j = 0; j < 2; j++)
        r->alpha[j] = alpha[j] / alpha[p->reference];
    p->alpha = r->alpha;
    p->kappa = kappa;
    return CR_OK;
}

void rigid_table_free(rigid_table *r)
{
    if (r) {
        cr_table_close(r->table);
        cr_restitution_cache_destroy(r->cache);
        free(r);
    }
}
