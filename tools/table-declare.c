/* `cradle table make --configuration chain`: the grid's sweep is read back
 * from the grid file (its text and base model as stored), every point's
 * model is built and calibrated as the sweep ran it, and its chain impact's
 * quantities (cr_table_chain_quantities: the striker, ball 0, hitting the
 * others at rest) are matched to the axes. A declaration is thereby checked
 * against the models, never taken on trust: an axis that is no quantity, or a
 * quantity that varies with no axis, is refused. */
#include "table-declare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/sweep.h"

#define QN (5 * CR_TABLE_CHAIN_MAX + 1)
/* Two values are one when within this (relative, at least absolute): the
 * restitutions come from two-body runs, solved for to about 1e-10. */
#define SAME 1e-7

typedef struct {
    size_t n;                              /* bodies */
    char names[QN][CR_TABLE_QUANTITY_LEN]; /* the same at every point */
    size_t nq;
    double *val; /* points × nq */
} grid_values;

static int same(double a, double b)
{
    return fabs(a - b) <= SAME * (b != 0.0 ? fabs(b) : 1.0);
}

/* The chain impact of model @p m: masses, laws, gaps; ball 0 the striker. */
static int point_quantities(const char *grid, size_t i, cr_model *m, cr_restitution_cache *cache,
                            grid_values *g, table_decl *d, char *msg, size_t len)
{
    char why[512];
    size_t n = cr_model_body_count(m);
    if (cr_calibrate_model(m, why, sizeof why) != CR_OK) {
        snprintf(msg, len, "%s: point %zu: %s", grid, i, why);
        return -1;
    }
    if (cr_model_dimension(m) != 1 || n < 2 || n > CR_TABLE_CHAIN_MAX || (g->n && n != g->n)) {
        snprintf(msg, len, "%s: point %zu: %zu bodies: a chain table holds one chain of 2 to %d",
                 grid, i, n, CR_TABLE_CHAIN_MAX);
        return -1;
    }
    double mass[CR_TABLE_CHAIN_MAX], gap[CR_TABLE_CHAIN_MAX], x[CR_TABLE_CHAIN_MAX],
        v[CR_TABLE_CHAIN_MAX];
    cr_contact_params laws[CR_TABLE_CHAIN_MAX];
    for (size_t b = 0; b < n; b++) {
        mass[b] = cr_model_mass(m, b);
        cr_model_get_body(m, b, &x[b], &v[b]);
        if (b > 0 && v[b] != 0.0) {
            snprintf(msg, len,
                     "%s: point %zu: ball %zu moves (v = %g): a chain table's balls wait "
                     "at rest for the striker, ball 0",
                     grid, i, b, v[b]);
            return -1;
        }
    }
    if (!(v[0] > 0.0)) {
        snprintf(msg, len, "%s: point %zu: the striker, ball 0, does not move towards ball 1", grid,
                 i);
        return -1;
    }
    for (size_t c = 0; c + 1 < n; c++) {
        cr_model_pair_law(m, c, (long)c + 1, &laws[c]);
        gap[c] = x[c + 1] - x[c] - cr_model_radius(m, c) - cr_model_radius(m, c + 1);
        char law[3][32];
        snprintf(law[0], 32, "%.17g", laws[c].n);
        snprintf(law[1], 32, "%.17g", laws[c].m);
        snprintf(law[2], 32, "%s", cr_release_name(laws[c].release));
        for (int k = 0; k < 3; k++) {
            if (!d->law[k][0])
                snprintf(d->law[k], 32, "%s", law[k]);
            else if (strcmp(d->law[k], law[k]) != 0) {
                snprintf(msg, len,
                         "%s: point %zu, pair %zu-%zu: law.%s %s, elsewhere %s: a table "
                         "holds one contact law",
                         grid, i, c, c + 1,
                         k == 0   ? "n"
                         : k == 1 ? "m"
                                  : "release",
                         law[k], d->law[k]);
                return -1;
            }
        }
    }
    char names[QN][CR_TABLE_QUANTITY_LEN];
    size_t nq;
    if (cr_table_chain_quantities(cache, n, mass, laws, gap, v[0], names, g->val + i * QN, QN, &nq,
                                  why, sizeof why) != CR_OK) {
        snprintf(msg, len, "%s: point %zu: %s", grid, i, why);
        return -1;
    }
    if (!g->n) {
        g->n = n;
        g->nq = nq;
        memcpy(g->names, names, sizeof names);
    }
    return 0;
}

/* The quantity axis @p a is: its key's own if that matches, else e, else the
 * first that equals the axis at every point. */
static long axis_quantity(const grid_values *g, const double *axis, size_t np, const char *key)
{
    long pick = -1;
    for (size_t q = 0; q < g->nq; q++) {
        int all = 1;
        for (size_t i = 0; all && i < np; i++)
            all = same(g->val[i * QN + q], axis[i]);
        if (!all)
            continue;
        if (strcmp(g->names[q], key) == 0)
            return (long)q;
        if (pick < 0 || strcmp(g->names[q], "e") == 0)
            pick = (long)q;
    }
    return pick;
}

/* A quantity some axis stands for: itself, or a pair's e (C) under the axis
 * e (C) every pair shares, or that one under a pair's. */
static int covered(const table_decl *d, const char *q)
{
    for (size_t a = 0; a < d->naxes; a++) {
        const char *x = d->quantity[a];
        if (strcmp(x, q) == 0 || ((q[0] == 'e' || q[0] == 'C') && x[0] == q[0] && (!q[1] || !x[1])))
            return 1;
    }
    return 0;
}

/* v, m1, K12, Cij: the units. */
static int absolute(const char *q)
{
    return strcmp(q, "v") == 0 || strcmp(q, "m1") == 0 || strcmp(q, "K12") == 0 || q[0] == 'C';
}

static int declare_axes(const char *grid, cr_table *t, cr_sweep_output *o, grid_values *g,
                        table_decl *d, char *msg, size_t len)
{
    size_t np = cr_sweep_output_points(o);
    double *axis = malloc((np + 1) * sizeof(double));
    if (!axis)
        return snprintf(msg, len, "out of memory"), -1;
    d->naxes = cr_table_axis_count(t);
    for (size_t a = 0; a < d->naxes; a++) {
        const char *key = cr_table_axis_name(t, a);
        long j = cr_sweep_output_column_index(o, key);
        for (size_t i = 0; i < np; i++)
            axis[i] = cr_sweep_output_row(o, i)[j];
        long q = axis_quantity(g, axis, np, key);
        if (q < 0) {
            snprintf(msg, len,
                     "%s: axis %s (%s) is no impact-configuration quantity of a chain of %zu "
                     "bodies (docs/tables.md): at point 0 it is %.9g",
                     grid, key, cr_table_axis_field(t, a), g->n, axis[0]);
            free(axis);
            return -1;
        }
        snprintf(d->quantity[a], CR_TABLE_QUANTITY_LEN, "%s", g->names[q]);
    }
    free(axis);
    int speed = 0; /* an axis in the units: v, m1, K12, C or Cij */
    for (size_t a = 0; a < d->naxes; a++)
        speed |= absolute(d->quantity[a]);
    for (size_t q = 0; q < g->nq; q++) {
        const char *name = g->names[q];
        if (covered(d, name) || strcmp(name, "e") == 0 || strcmp(name, "C") == 0)
            continue; /* e (C), when no axis, is the pairs' eij (Cij), held fixed one by one */
        /* over the speed (or a stiffness, a mass, a damping) itself, the other
         * units and the damping are held fixed and the restitutions follow;
         * otherwise ratios and restitutions are all alpha and kappa depend on
         * (001 sect. 3.4): the units are free */
        if ((speed && name[0] == 'e') || (!speed && absolute(name)))
            continue;
        double v0 = g->val[q];
        for (size_t i = 1; i < np; i++)
            if (!same(g->val[i * QN + q], v0)) {
                snprintf(msg, len,
                         "%s: %s varies over the grid (%.9g at point 0, %.9g at point %zu) and "
                         "no axis is it: a table's axes must be the impact's quantities",
                         grid, name, v0, g->val[i * QN + q], i);
                return -1;
            }
        snprintf(d->fixed[d->nfixed], CR_TABLE_QUANTITY_LEN, "%s", name);
        d->fixed_value[d->nfixed++] = v0;
    }
    return 0;
}

static void finish_decl(table_decl *d, size_t n)
{
    snprintf(d->configuration, sizeof d->configuration, "chain%zu", n);
    for (size_t a = 0; a < d->naxes; a++)
        d->qp[a] = d->quantity[a];
    for (size_t k = 0; k < d->nfixed; k++)
        d->fp[k] = d->fixed[k];
    d->decl = (cr_table_declaration){d->configuration, d->qp, d->fp, d->fixed_value, d->nfixed};
}

/* The sweep of grid output @p o, read back and checked to make it. */
static cr_sweep *stored_sweep(const char *grid, const cr_sweep_output *o, char *msg, size_t len)
{
    cr_sweep *s = NULL;
    char why[1024] = "";
    if (cr_sweep_parse_stored(cr_sweep_output_attr(o, "text"),
                              cr_sweep_output_attr(o, "model_text"), grid, &s, why,
                              sizeof why) != CR_OK) {
        snprintf(msg, len, "%s: /sweep/text: %s", grid, why);
        return NULL;
    }
    if (cr_sweep_point_count(s) != cr_sweep_output_points(o) ||
        strcmp(cr_sweep_hash(s), cr_sweep_output_attr(o, "sweep_hash")) != 0) {
        snprintf(msg, len, "%s: /sweep/text does not make this grid (its points or hash differ)",
                 grid);
        cr_sweep_destroy(s);
        return NULL;
    }
    return s;
}

cr_sweep *table_grid_sweep(const char *grid, char *msg, size_t len)
{
    char why[1024] = "";
    cr_sweep_output *o = cr_sweep_output_open(grid, why, sizeof why);
    if (!o) {
        snprintf(msg, len, "%s", why);
        return NULL;
    }
    cr_sweep *s = stored_sweep(grid, o, msg, len);
    cr_sweep_output_close(o);
    return s;
}

int table_declare(const char *grid, table_decl *d, char *msg, size_t len)
{
    memset(d, 0, sizeof *d);
    cr_table *t = NULL;
    cr_sweep *s = NULL;
    cr_restitution_cache *cache = cr_restitution_cache_create();
    char why[1024] = "";
    cr_sweep_output *o = cr_sweep_output_open(grid, why, sizeof why);
    int rc = !o || !cache || cr_table_open(grid, &t, why, sizeof why) != CR_OK ? -1 : 0;
    if (rc != 0)
        snprintf(msg, len, "%s", why[0] ? why : "out of memory");
    if (rc == 0 && !(s = stored_sweep(grid, o, msg, len)))
        rc = -1;
    size_t np = o ? cr_sweep_output_points(o) : 0;
    if (rc == 0 && cr_table_axis_count(t) > DECL_MAX) {
        snprintf(msg, len, "%s: more than %d axes", grid, DECL_MAX);
        rc = -1;
    }
    grid_values g = {0};
    if (rc == 0 && !(g.val = malloc((np + 1) * QN * sizeof(double)))) {
        snprintf(msg, len, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < np; i++) {
        cr_model *m = cr_sweep_point_model(s, i, why, sizeof why);
        if (!m)
            snprintf(msg, len, "%s: point %zu: %s", grid, i, why);
        rc = m ? point_quantities(grid, i, m, cache, &g, d, msg, len) : -1;
        cr_model_destroy(m);
    }
    if (rc == 0)
        rc = declare_axes(grid, t, o, &g, d, msg, len);
    if (rc == 0)
        finish_decl(d, g.n);
    free(g.val);
    cr_sweep_destroy(s);
    cr_table_close(t);
    cr_sweep_output_close(o);
    cr_restitution_cache_destroy(cache);
    return rc;
}
