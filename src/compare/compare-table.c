/* The comparator's predictive α and κ from a reference table
 * (cr_compare_set_table, docs/tables.md "Compare"): the energetic law gets
 * them when the table covers the episode's configuration.
 *
 * Vocabulary (table.h, cr_table_declaration): a table whose `configuration`
 * attribute is "chainN" holds a striker (body 0) hitting N − 1 touching balls
 * at rest; each axis is a declared impact-configuration quantity (mass and
 * stiffness ratios, each pair's two-body restitution at the striker's speed,
 * 1 without damping, or the one they share, gaps over d*), the others are
 * held fixed, and the law attributes law.n, law.m, law.release are every
 * pair's. α and κ are invariant under K → aK, m → bm and the matching change
 * of C (001 sect. 3.4), so the ratios and restitutions are all the table
 * needs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare-priv.h"
#include "cradle/calibrate.h"

static int refuse(cr_compare_row *row, const char *what)
{
    row->status = CR_COMPARE_NO_PREDICTION;
    cr_cmp_note(row, "%s", what);
    return 0;
}

/* The law attribute @p name of the table matches @p v (absent: anything). */
static int law_matches(cr_table *t, const char *name, double v)
{
    const char *s = cr_table_attr(t, name);
    return !s[0] || strtod(s, NULL) == v;
}

static int why(char *msg, size_t len, const char *what)
{
    snprintf(msg, len, "%s", what);
    return CR_ERR_INVALID;
}

#define Q_MAX (5 * CR_TABLE_CHAIN_MAX + 1)
/* A fixed quantity matches within this, relative (absolute for 0): the
 * restitutions come from two-body runs, solved for to about 1e-10. */
#define FIXED_TOL 1e-7

int cr_table_chain_quantities(cr_restitution_cache *cache, size_t n, const double *mass,
                              const cr_contact_params *laws, const double *gap, double v,
                              char (*names)[CR_TABLE_QUANTITY_LEN], double *values, size_t cap,
                              size_t *count, char *msg, size_t msglen)
{
    size_t k = 0;
    *count = 0;
    if (n < 2 || n > CR_TABLE_CHAIN_MAX || cap < 5 * n + 1)
        return why(msg, msglen, "a chain table holds 2 to 9 bodies");
#define PUT(value, ...)                                                                            \
    do {                                                                                           \
        snprintf(names[k], CR_TABLE_QUANTITY_LEN, __VA_ARGS__);                                    \
        values[k++] = (value);                                                                     \
    } while (0)
    for (size_t i = 1; i < n; i++)
        PUT(mass[i] / mass[0], "m%zu/m1", i + 1);
    for (size_t c = 1; c + 1 < n; c++)
        PUT(laws[c].K / laws[0].K, "K%zu%zu/K12", c + 1, c + 2);
    size_t first_e = k;
    int shared = 1;
    for (size_t c = 0; c + 1 < n; c++) {
        double mu = mass[c] * mass[c + 1] / (mass[c] + mass[c + 1]), e = 1.0;
        char m[CR_ERRMSG_LEN];
        if (laws[c].C != 0.0 &&
            cr_restitution_cache_get(cache, &laws[c], mu, v, &e, m, sizeof m) != CR_OK) {
            snprintf(msg, msglen, "pair %zu-%zu: the two-body run for e failed: %s", c + 1, c + 2,
                     m);
            return CR_ERR_INVALID;
        }
        PUT(e, "e%zu%zu", c + 1, c + 2);
        shared &= fabs(e - values[first_e]) <= 1e-6;
    }
    PUT(shared ? values[first_e] : NAN, "e");
    for (size_t c = 0; gap && c + 1 < n; c++) {
        double mu = mass[c] * mass[c + 1] / (mass[c] + mass[c + 1]), p = laws[c].n + 1.0;
        double dstar = pow(p * mu * v * v / (2.0 * laws[c].K), 1.0 / p);
        PUT(gap[c] / dstar, "g%zu%zu/d*", c + 1, c + 2);
    }
    /* absolute: what a table over the speed itself holds fixed */
    PUT(v, "v");
    PUT(mass[0], "m1");
    PUT(laws[0].K, "K12");
    shared = 1;
    for (size_t c = 0; c + 1 < n; c++) {
        PUT(laws[c].C, "C%zu%zu", c + 1, c + 2);
        shared &= laws[c].C == laws[0].C;
    }
    PUT(shared ? laws[0].C : NAN, "C");
#undef PUT
    *count = k;
    return CR_OK;
}

/* Every pair law has the table's law.n, and when damped its law.m and
 * law.release (without damping they do not change the force). */
static int laws_match(cr_table *t, size_t np, const cr_contact_params *laws)
{
    int damped = 0;
    for (size_t c = 0; c < np; c++)
        damped |= laws[c].C != 0.0;
    const char *rel = cr_table_attr(t, "law.release");
    for (size_t c = 0; c < np; c++)
        if (!law_matches(t, "law.n", laws[c].n) ||
            (damped && (!law_matches(t, "law.m", laws[c].m) ||
                        (rel[0] && strcmp(rel, cr_release_name(laws[c].release)) != 0))))
            return 0;
    return 1;
}

/* The value of quantity @p name among @p names (−1: not there). */
static long quantity_index(char (*names)[CR_TABLE_QUANTITY_LEN], size_t nq, const char *name)
{
    for (size_t q = 0; q < nq; q++)
        if (strcmp(names[q], name) == 0)
            return (long)q;
    return -1;
}

/* An impact's value within 1e-9 of an axis end is taken as that end: its
 * restitution comes from a two-body run, equal to the grid's only to the
 * solver's accuracy. */
static double snap_to_axis(const cr_table *t, size_t a, double x)
{
    double lo = cr_table_axis_value(t, a, 0);
    double hi = cr_table_axis_value(t, a, cr_table_axis_length(t, a) - 1);
    if (fabs(x - lo) <= 1e-9 * fmax(1.0, fabs(lo)))
        return lo;
    if (fabs(x - hi) <= 1e-9 * fmax(1.0, fabs(hi)))
        return hi;
    return x;
}

/* The table's axes as the impact's quantities in @p x; the fixed
 * quantities checked. */
static int impact_point(cr_table *t, char (*names)[CR_TABLE_QUANTITY_LEN], const double *values,
                        size_t nq, size_t n, double *x, char *msg, size_t msglen)
{
    for (size_t a = 0; a < cr_table_axis_count(t); a++) {
        const char *q = cr_table_axis_quantity(t, a);
        long i = quantity_index(names, nq, q);
        if (i < 0) {
            snprintf(msg, msglen, "%s: axis %s is '%s', no quantity of a chain of %zu bodies",
                     cr_table_path(t), cr_table_axis_name(t, a), q, n);
            return CR_ERR_INVALID;
        }
        if (isnan(values[i])) { /* e or C, which the impact's pairs do not share */
            snprintf(msg, msglen,
                     "%s: axis %s is %s, one value every pair shares, and the impact's pairs "
                     "have different ones (%s12 = %.9g, %s23 = %.9g)",
                     cr_table_path(t), cr_table_axis_name(t, a), q, q,
                     values[quantity_index(names, nq, q[0] == 'e' ? "e12" : "C12")], q,
                     n > 2 ? values[quantity_index(names, nq, q[0] == 'e' ? "e23" : "C23")] : NAN);
            return CR_ERR_INVALID;
        }
        x[a] = snap_to_axis(t, a, values[i]);
    }
    for (size_t k = 0; k < cr_table_fixed_count(t); k++) {
        const char *q = cr_table_fixed_name(t, k);
        double f = cr_table_fixed_value(t, k);
        long i = quantity_index(names, nq, q);
        if (i < 0 && strncmp(q, "g", 1) == 0)
            continue; /* gaps unknown to the caller (an episode's contacts are closed) */
        if (i < 0) {
            snprintf(msg, msglen, "%s: fixed quantity '%s' is no quantity of a chain of %zu bodies",
                     cr_table_path(t), q, n);
            return CR_ERR_INVALID;
        }
        if (!(fabs(values[i] - f) <= FIXED_TOL * (f != 0.0 ? fabs(f) : 1.0))) {
            snprintf(msg, msglen,
                     "%s: %s = %.9g is outside the table's domain [%.9g, %.9g] (held fixed)",
                     cr_table_path(t), q, values[i], f, f);
            return CR_ERR_DOMAIN;
        }
    }
    return CR_OK;
}

int cr_table_chain(cr_table *t, cr_restitution_cache *cache, size_t n, const double *mass,
                   const cr_contact_params *laws, const double *gap, double v, double *alpha,
                   double *kappa, double bound[2], char *msg, size_t msglen)
{
    size_t nb = cr_table_chain_bodies(t);
    if (nb == 0 || nb != n) {
        snprintf(msg, msglen,
                 "%s: the table's configuration is '%s'; the impact is a chain of %zu bodies "
                 "(chain%zu)",
                 cr_table_path(t), cr_table_attr(t, "configuration"), n, n);
        return CR_ERR_INVALID;
    }
    if (!laws_match(t, n - 1, laws)) {
        snprintf(msg, msglen, "%s: the table's contact law (law.n, law.m, law.release) differs",
                 cr_table_path(t));
        return CR_ERR_INVALID;
    }
    char names[Q_MAX][CR_TABLE_QUANTITY_LEN];
    double values[Q_MAX], x[64];
    size_t nq;
    int rc = cr_table_chain_quantities(cache, n, mass, laws, gap, v, names, values, Q_MAX, &nq, msg,
                                       msglen);
    if (rc == CR_OK && cr_table_axis_count(t) > 64)
        rc = why(msg, msglen, "too many axes");
    if (rc != CR_OK || (rc = impact_point(t, names, values, nq, n, x, msg, msglen)) != CR_OK)
        return rc;
    bound[0] = 0.0;
    for (size_t c = 0; c + 1 < n; c++) {
        double b;
        if ((rc = cr_table_alpha(t, x, c, &alpha[c], &b)) != CR_OK)
            break;
        bound[0] = fmax(bound[0], b);
    }
    if (rc == CR_OK)
        rc = cr_table_kappa(t, x, kappa, &bound[1]);
    if (rc != CR_OK)
        snprintf(msg, msglen, "%s", cr_table_last_error(t));
    return rc;
}

int cr_table_chain3(cr_table *t, const double mass[3], const cr_contact_params laws[2], double v,
                    double alpha[2], double *kappa, double bound[2], char *msg, size_t msglen)
{
    return cr_table_chain3_cached(t, NULL, mass, laws, v, alpha, kappa, bound, msg, msglen);
}

int cr_table_chain3_cached(cr_table *t, cr_restitution_cache *cache, const double mass[3],
                           const cr_contact_params laws[2], double v, double alpha[2],
                           double *kappa, double bound[2], char *msg, size_t msglen)
{
    if (cr_table_chain_bodies(t) != 3)
        return why(msg, msglen, "the table is not a chain3 table");
    return cr_table_chain(t, cache, 3, mass, laws, NULL, v, alpha, kappa, bound, msg, msglen);
}

/* A chain episode: records joining dofs r and r + 1, one end's dof
 * striking the others at rest. @return +1 (dof 0 strikes), −1 (the last
 * dof), 0 (not a chain episode). */
static int chain_side(const cmp_episode *e)
{
    size_t n = e->info.dofs;
    if (e->dim != 1 || n < 2 || e->info.contacts != n - 1 || !e->laws)
        return 0;
    for (size_t r = 0; r + 1 < n; r++) {
        long a = e->col[r].dof_a, b = e->col[r].dof_b;
        if (!((a == (long)r && b == (long)r + 1) || (b == (long)r && a == (long)r + 1)))
            return 0;
    }
    double lo = e->u_minus[0], hi = e->u_minus[n - 1];
    int rest_lo = 1, rest_hi = 1;
    for (size_t i = 1; i < n; i++)
        rest_lo &= fabs(e->u_minus[i]) <= 1e-12 * fabs(lo);
    for (size_t i = 0; i + 1 < n; i++)
        rest_hi &= fabs(e->u_minus[i]) <= 1e-12 * fabs(hi);
    return lo > 0.0 && rest_lo ? 1 : hi < 0.0 && rest_hi ? -1 : 0;
}

int cr_cmp_table_params(cr_compare *c, const cmp_episode *e, cr_law_params *p, double *par,
                        int *has_par, cr_compare_row *row)
{
    cr_table *t = c->table;
    size_t nb = cr_table_chain_bodies(t);
    int side = nb ? chain_side(e) : 0;
    if (side == 0 || e->info.dofs != nb) {
        char what[200];
        snprintf(what, sizeof what,
                 "the table does not cover this configuration (%s: a striker hitting %zu "
                 "touching balls at rest)",
                 cr_table_attr(t, "configuration"), nb ? nb - 1 : 0);
        return refuse(row, what);
    }
    /* the chain as the table holds it: the striker first (mirrored when it
     * comes from the last dof) */
    double mass[CR_TABLE_CHAIN_MAX], alpha[CR_TABLE_CHAIN_MAX], kappa, bound[2];
    cr_contact_params laws[CR_TABLE_CHAIN_MAX];
    for (size_t k = 0; k < nb; k++) {
        mass[k] = e->mass[side > 0 ? k : nb - 1 - k];
        if (k + 1 < nb)
            laws[k] = e->laws[side > 0 ? k : nb - 2 - k];
    }
    char msg[CR_ERRMSG_LEN];
    int rc =
        cr_table_chain(t, c->cache, nb, mass, laws, NULL, fabs(e->u_minus[side > 0 ? 0 : nb - 1]),
                       alpha, &kappa, bound, msg, sizeof msg);
    if (rc == CR_ERR_DOMAIN && !c->table_refusal[0])
        snprintf(c->table_refusal, sizeof c->table_refusal, "episode %zu: %s", e->info.index, msg);
    if (rc != CR_OK)
        return refuse(row, msg);
    size_t ref = e->info.reference;
    double aref = alpha[side > 0 ? ref : nb - 2 - ref];
    for (size_t r = 0; r + 1 < nb; r++) /* the table's α is relative to its contact 0 */
        par[r] = alpha[side > 0 ? r : nb - 2 - r] / aref;
    p->alpha = par;
    p->kappa = kappa;
    p->reference = ref;
    row->parameter = kappa;
    *has_par = 1;
    char what[200];
    snprintf(what, sizeof what, "alpha, kappa from table %s (bounds %.2g, %.2g)", cr_table_path(t),
             bound[0], bound[1]);
    cr_cmp_note(row, "%s", what);
    return 1;
}

const char *cr_compare_table_refusal(const cr_compare *c)
{
    return c ? c->table_refusal : "";
}

void cr_compare_set_table(cr_compare *c, cr_table *t)
{
    if (c)
        c->table = t;
}
