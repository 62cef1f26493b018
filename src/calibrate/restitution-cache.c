/* Two-body restitutions computed once per distinct (law, μ, v): shared by the
 * comparator's predictive mode and table lookups and the rigid runs' table
 * provider (calibrate.h). A linear list: a run compares a handful of pair
 * laws, masses and speeds, each lookup costs far less than one two-body run. */
#include <stdlib.h>

#include "cradle/calibrate.h"

typedef struct {
    cr_contact_params law;
    double mu, v, e;
} entry;

struct cr_restitution_cache {
    entry *e;
    size_t n, cap, runs, hits;
};

cr_restitution_cache *cr_restitution_cache_create(void)
{
    return calloc(1, sizeof(cr_restitution_cache));
}

void cr_restitution_cache_destroy(cr_restitution_cache *c)
{
    if (c) {
        free(c->e);
        free(c);
    }
}

/* Everything of the law the two-body run reads (cr_calibrate_restitution). */
static int same_law(const cr_contact_params *a, const cr_contact_params *b)
{
    return a->K == b->K && a->n == b->n && a->C == b->C && a->m == b->m && a->release == b->release;
}

int cr_restitution_cache_get(cr_restitution_cache *c, const cr_contact_params *law, double mu,
                             double v, double *e, char *msg, size_t msglen)
{
    for (size_t k = 0; c && law && k < c->n; k++)
        if (c->e[k].mu == mu && c->e[k].v == v && same_law(&c->e[k].law, law)) {
            *e = c->e[k].e;
            c->hits++;
            return CR_OK;
        }
    int rc = cr_calibrate_restitution(law, mu, v, e, msg, msglen);
    if (rc != CR_OK || !c)
        return rc;
    c->runs++;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        entry *q = realloc(c->e, cap * sizeof(*q));
        if (!q)
            return CR_OK; /* the answer stands; it is just not kept */
        c->e = q;
        c->cap = cap;
    }
    c->e[c->n++] = (entry){*law, mu, v, *e};
    return CR_OK;
}

void cr_restitution_cache_stats(const cr_restitution_cache *c, size_t *runs, size_t *hits)
{
    if (runs)
        *runs = c ? c->runs : 0;
    if (hits)
        *hits = c ? c->hits : 0;
}
