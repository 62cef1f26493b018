/* The comparator's predictive α and κ from a reference table
 * (cr_compare_set_table, docs/tables.md "Compare"): the energetic law gets
 * them when the table covers the episode's configuration.
 *
 * Vocabulary: a table whose `configuration` attribute is "chain3" holds a
 * striker (body 0) hitting two touching balls at rest, with axes among
 * m2/m1, m3/m1, K23/K12 and e (each pair's two-body restitution at the
 * striker's speed; 1 without damping) and the law attributes law.n, law.m,
 * law.release that every pair must share. α and κ are invariant under
 * K → aK, m → bm and the matching change of C (001 sect. 3.4), so the ratios
 * and e are all the table needs. */
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

/* Each pair's restitution at the striker's speed @p v (exactly 1 when
 * undamped); refused unless both pairs share it (one e per table point). */
static int pair_restitution(cr_restitution_cache *cache, const double mass[3],
                            const cr_contact_params laws[2], double v, double *out, char *msg,
                            size_t len)
{
    double er[2];
    for (size_t r = 0; r < 2; r++) {
        double mu = mass[r] * mass[r + 1] / (mass[r] + mass[r + 1]);
        char m[CR_ERRMSG_LEN];
        er[r] = 1.0;
        if (laws[r].C != 0.0 &&
            cr_restitution_cache_get(cache, &laws[r], mu, v, &er[r], m, sizeof m) != CR_OK)
            return why(msg, len, "table: the two-body run for e failed");
    }
    if (fabs(er[0] - er[1]) > 1e-6)
        return why(msg, len,
                   "table: the two pairs have different restitutions (one e per table point)");
    *out = er[0];
    return CR_OK;
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
    if (strcmp(cr_table_attr(t, "configuration"), "chain3") != 0)
        return why(msg, msglen, "the table is not a chain3 table");
    /* without damping (C = 0, e = 1) the damping exponent and the release
     * convention do not change the force: only n must match */
    int damped = laws[0].C != 0.0 || laws[1].C != 0.0;
    if (!law_matches(t, "law.n", laws[0].n) || !law_matches(t, "law.n", laws[1].n) ||
        (damped && (!law_matches(t, "law.m", laws[0].m) || !law_matches(t, "law.m", laws[1].m) ||
                    (cr_table_attr(t, "law.release")[0] &&
                     (strcmp(cr_table_attr(t, "law.release"), cr_release_name(laws[0].release)) ||
                      strcmp(cr_table_attr(t, "law.release"), cr_release_name(laws[1].release)))))))
        return why(msg, msglen, "the table's contact law (law.n, law.m, law.release) differs");
    double er = 1.0;
    int rc;
    if (cr_table_axis_index(t, "e") >= 0 &&
        (rc = pair_restitution(cache, mass, laws, v, &er, msg, msglen)) != CR_OK)
        return rc;
    const char *keys[] = {"m2/m1", "m3/m1", "K23/K12", "e"};
    double vals[] = {mass[1] / mass[0], mass[2] / mass[0], laws[1].K / laws[0].K, er};
    double x[16], ba[2], bk;
    size_t na = cr_table_axis_count(t);
    for (size_t a = 0; a < na; a++) {
        size_t k = 0;
        while (k < 4 && strcmp(keys[k], cr_table_axis_name(t, a)) != 0)
            k++;
        if (k == 4 || a >= 16)
            return why(msg, msglen, "the table has an axis outside the chain3 vocabulary");
        x[a] = vals[k];
    }
    if ((rc = cr_table_alpha(t, x, 0, &alpha[0], &ba[0])) != CR_OK ||
        (rc = cr_table_alpha(t, x, 1, &alpha[1], &ba[1])) != CR_OK ||
        (rc = cr_table_kappa(t, x, kappa, &bk)) != CR_OK) {
        snprintf(msg, msglen, "%s", cr_table_last_error(t));
        return rc;
    }
    bound[0] = fmax(ba[0], ba[1]);
    bound[1] = bk;
    return CR_OK;
}

/* Striker on dof 0, dofs 1 and 2 at rest, records joining 0-1 and 1-2. */
static int is_chain3(const cmp_episode *e)
{
    if (e->dim != 1 || e->info.dofs != 3 || e->info.contacts != 2 || !e->laws)
        return 0;
    for (size_t r = 0; r < 2; r++) {
        long a = e->col[r].dof_a, b = e->col[r].dof_b;
        if (!((a == (long)r && b == (long)r + 1) || (b == (long)r && a == (long)r + 1)))
            return 0;
    }
    double v = e->u_minus[0];
    return v > 0.0 && fabs(e->u_minus[1]) <= 1e-12 * v && fabs(e->u_minus[2]) <= 1e-12 * v;
}

int cr_cmp_table_params(cr_compare *c, const cmp_episode *e, cr_law_params *p, double *par,
                        int *has_par, cr_compare_row *row)
{
    cr_table *t = c->table;
    if (strcmp(cr_table_attr(t, "configuration"), "chain3") != 0 || !is_chain3(e))
        return refuse(row, "the table does not cover this configuration (chain3: a striker "
                           "hitting two touching balls at rest)");
    double alpha[2], kappa, bound[2];
    char msg[CR_ERRMSG_LEN];
    if (cr_table_chain3_cached(t, c->cache, e->mass, e->laws, e->u_minus[0], alpha, &kappa, bound,
                               msg, sizeof msg) != CR_OK)
        return refuse(row, msg);
    size_t ref = e->info.reference;
    for (size_t r = 0; r < 2; r++)
        par[r] = alpha[r] / alpha[ref]; /* the table's α is relative to contact 0 */
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

void cr_compare_set_table(cr_compare *c, cr_table *t)
{
    if (c)
        c->table = t;
}
