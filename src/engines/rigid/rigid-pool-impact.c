/*
 * The rigid pool at an impact: the impact configuration, the law, and the two
 * batches of events that make the monitor see an instantaneous episode (as
 * the chain's rigid engine, rigid-impact.c).
 *
 * The configuration is every contact in touch (gap within ε_geom) at this
 * instant, grouped by the discs they join: each group of discs connected by
 * disc–disc contacts in touch, with their wall contacts in touch, that holds
 * a contact approaching faster than the rest speed is one impact (walls are
 * fixed: they transmit nothing between groups). Touching discs that do not
 * approach take part, as a cradle's touching balls do. M is diagonal (each
 * disc's mass D times, D = 2 or 3), a disc pair's column of W is −n on disc
 * i and +n on disc j (n the unit line of centres from i to j at this
 * instant), a wall's is +n (its normal) on the disc: γ = wᵀu is the normal
 * relative velocity, positive separating.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/rigid/rigid-law-priv.h"
#include "engines/rigid/rigid-pool-priv.h"

/* One impact configuration. */
typedef struct {
    size_t nd, m, ref;
    size_t *disc;   /* nd discs */
    size_t *k;      /* m contacts */
    size_t D;       /* the pool's dimension */
    double *nrm;    /* D m: normals at this instant */
    double *u0;     /* D nd: u⁻ */
    double *P, *Pc; /* m: impulses of the law, compression impulses */
    double *buf;    /* 5 m + 2 D nd scratch: law parameters (4 m), plastic P (m), u (2 × D nd) */
    cr_impact *imp;
} config;

static void config_free(config *c)
{
    free(c->disc);
    free(c->k);
    free(c->nrm);
    free(c->u0);
    free(c->P);
    free(c->Pc);
    free(c->buf);
    cr_impact_destroy(c->imp);
}

/* Dof of disc i in the configuration (its index q among c->disc, × D). */
static size_t dof_of(const config *c, const size_t *slot, size_t i)
{
    return c->D * slot[i];
}

/* γ of contact q from the velocities u (D nd values). */
static double gamma_of(const cr_rigid_pool *r, const config *c, const size_t *slot, size_t q,
                       const double *u)
{
    const cr_rp_contact *k = &r->c[c->k[q]];
    int D = (int)c->D;
    const double *n = &c->nrm[c->D * q], *ua = &u[dof_of(c, slot, k->i)];
    if (k->j < 0)
        return cr_rp_dot(n, ua, D);
    const double *ub = &u[dof_of(c, slot, (size_t)k->j)];
    double du[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < D; d++)
        du[d] = ub[d] - ua[d];
    return cr_rp_dot(n, du, D);
}

/* M, W and u⁻ in the law core's terms. */
static int config_build(const cr_rigid_pool *r, config *c, const size_t *slot)
{
    size_t D = c->D, n = D * c->nd, m = c->m;
    c->nrm = malloc(D * m * sizeof(double));
    c->u0 = malloc(n * sizeof(double));
    c->P = calloc(m, sizeof(double));
    c->Pc = calloc(m, sizeof(double));
    c->buf = calloc(5 * m + 2 * n, sizeof(double));
    if (!c->nrm || !c->u0 || !c->P || !c->Pc || !c->buf || !(c->imp = cr_impact_create(n, m)))
        return CR_ERR_NOMEM;
    double *col = c->buf;
    for (size_t q = 0; q < c->nd; q++)
        for (size_t d = 0; d < D; d++) {
            col[D * q + d] = r->mass[c->disc[q]];
            c->u0[D * q + d] = r->v[D * c->disc[q] + d];
        }
    cr_impact_set_mass_diagonal(c->imp, col);
    cr_impact_set_velocity(c->imp, c->u0);
    for (size_t q = 0; q < m; q++) {
        const cr_rp_contact *k = &r->c[c->k[q]];
        double gap, gamma, *nq = &c->nrm[D * q];
        cr_rp_geometry(r, k->i, k->j, &gap, nq, &gamma);
        memset(col, 0, n * sizeof(double));
        size_t a = dof_of(c, slot, k->i);
        double sa = k->j < 0 ? 1.0 : -1.0;
        for (size_t d = 0; d < D; d++)
            col[a + d] = sa * nq[d];
        if (k->j >= 0) {
            size_t b = dof_of(c, slot, (size_t)k->j);
            for (size_t d = 0; d < D; d++)
                col[b + d] = nq[d];
        }
        cr_impact_set_gradient(c->imp, q, col);
    }
    return CR_OK;
}

/* The reference contact: the fastest approach, first found on ties. */
static size_t reference_contact(const cr_rigid_pool *r, const config *c, const size_t *slot)
{
    size_t ref = 0;
    for (size_t q = 1; q < c->m; q++)
        if (gamma_of(r, c, slot, q, c->u0) < gamma_of(r, c, slot, ref, c->u0))
            ref = q;
    return ref;
}

/* The law's parameters for this configuration: each contact's restitution
 * (and LZB's pair law), the energetic weights by role (approaching or only
 * touching) relative to the reference. */
static void law_params(const cr_rigid_pool *r, const config *c, const size_t *slot,
                       cr_law_params *lp)
{
    double *eps = c->buf, *alpha = c->buf + c->m, *K = c->buf + 2 * c->m, *N = c->buf + 3 * c->m;
    *lp = r->lp;
    for (size_t q = 0; q < c->m; q++) {
        const cr_rp_contact *k = &r->c[c->k[q]];
        eps[q] = k->eps;
        K[q] = k->K;
        N[q] = k->n;
        int hits = gamma_of(r, c, slot, q, c->u0) < -r->drv.v_rest;
        alpha[q] = (hits ? r->alpha_hit : r->alpha_touch) / r->alpha_hit;
    }
    lp->reference = c->ref;
    lp->restitutions = eps;
    if (r->law == CR_LAW_ENERGETIC)
        lp->alpha = alpha;
    if (r->law == CR_LAW_LZB) {
        /* LZB takes eⱼ as energetic restitutions; it refuses Newton's */
        lp->stiffness = K;
        lp->exponent = N;
        lp->energetic = eps;
        lp->restitutions = NULL;
    }
}

static int law_failed(cr_rigid_pool *r, const config *c, const char *status, const char *why)
{
    const cr_rp_contact *k = &r->c[c->k[c->ref]];
    cr_set_msg(r->drv.err, sizeof r->drv.err,
               "t = %.9g s: law %s on the impact of %zu contacts (reference: %s %zu with %s "
               "%ld): %s: %s",
               r->drv.t, cr_law_name(r->law), c->m, cr_rp_body_word(r), k->i,
               k->j >= 0 ? cr_rp_body_word(r) : "wall",
               k->j >= 0 ? k->j : (long)CR_WALL_INDEX(k->j), status, why);
    return CR_ERR_SOLVER;
}

/* u⁺ (into @p u) and P of the core law @p law. */
static int core_law(cr_rigid_pool *r, config *c, cr_law_id law, const cr_law_params *lp, double *u,
                    double *P)
{
    cr_law_result *res = cr_law_result_create();
    if (!res)
        return CR_ERR_NOMEM;
    int rc = CR_OK;
    if (cr_law_solve(c->imp, law, lp, res) != CR_OK)
        rc = law_failed(r, c, "solver failed", cr_impact_last_error(c->imp));
    cr_law_status st = cr_law_result_status(res);
    if (rc == CR_OK && st != CR_LAW_OK && st != CR_LAW_MULTIPLE)
        rc = law_failed(r, c, cr_law_status_name(st), cr_law_result_message(res));
    if (rc == CR_OK) {
        memcpy(u, cr_law_result_velocity(res, 0), c->D * c->nd * sizeof(double));
        memcpy(P, cr_law_result_impulse(res, 0), c->m * sizeof(double));
    }
    cr_law_result_destroy(res);
    return rc;
}

/* The sequential law on a configuration (rigid-law.c: Han & Gilmore's
 * pairwise order, as the chain's rigid engine), velocities in u. */
typedef struct {
    const cr_rigid_pool *r;
    const config *c;
    const size_t *slot;
    double *u;
} stages;

static double stage_gamma(void *ctx, size_t q)
{
    const stages *s = ctx;
    return gamma_of(s->r, s->c, s->slot, q, s->u);
}

/* 1/m of the disc and of the other body (0 for a wall). */
static void inverse_masses(const cr_rigid_pool *r, const cr_rp_contact *k, double *ia, double *ib)
{
    *ia = 1.0 / r->mass[k->i];
    *ib = k->j >= 0 ? 1.0 / r->mass[k->j] : 0.0;
}

static double stage_inverse_mass(void *ctx, size_t q)
{
    const stages *s = ctx;
    double ia, ib;
    inverse_masses(s->r, &s->r->c[s->c->k[q]], &ia, &ib);
    return ia + ib;
}

static double stage_restitution(void *ctx, size_t q)
{
    const stages *s = ctx;
    return s->r->c[s->c->k[q]].eps;
}

static void stage_apply(void *ctx, size_t q, double lam)
{
    const stages *s = ctx;
    const cr_rp_contact *k = &s->r->c[s->c->k[q]];
    const double *n = &s->c->nrm[s->c->D * q];
    double ia, ib, sa = k->j < 0 ? 1.0 : -1.0;
    inverse_masses(s->r, k, &ia, &ib);
    for (size_t d = 0; d < s->c->D; d++) {
        s->u[dof_of(s->c, s->slot, k->i) + (size_t)d] += sa * lam * ia * n[d];
        if (k->j >= 0)
            s->u[dof_of(s->c, s->slot, (size_t)k->j) + (size_t)d] += lam * ib * n[d];
    }
}

static int sequential_pairwise(cr_rigid_pool *r, config *c, const size_t *slot, double *u)
{
    stages ctx = {r, c, slot, u};
    cr_rigid_stages s = {c->m,       &ctx, stage_gamma, stage_inverse_mass, stage_restitution,
                         stage_apply};
    memcpy(u, c->u0, c->D * c->nd * sizeof(double));
    if (cr_rigid_sequential(&s, r->drv.v_rest, c->P) == CR_OK)
        return CR_OK;
    return law_failed(r, c, "not terminated", "the pairwise sequence did not end");
}

/* Compression impulses: those of the plastic impact of the same
 * configuration (Newton with ε = 0: Poisson's compression phase, 002 eq.
 * 10-11), capped to [0, P]. */
static void compression_split(cr_rigid_pool *r, config *c)
{
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.restitution = 0.0;
    double *Pp = c->buf + 4 * c->m, *u = c->buf + 5 * c->m;
    char keep[CR_ERRMSG_LEN];
    memcpy(keep, r->drv.err, sizeof keep);
    if (core_law(r, c, CR_LAW_NEWTON, &lp, u, Pp) != CR_OK)
        memcpy(Pp, c->P, c->m * sizeof(double)); /* no split known: all compression */
    memcpy(r->drv.err, keep, sizeof keep);
    for (size_t q = 0; q < c->m; q++)
        c->Pc[q] = fmin(fmax(Pp[q], 0.0), fmax(c->P[q], 0.0));
}

/* `close` events of the approaching contacts, reference first. */
static int events_before(cr_rigid_pool *r, const config *c, const size_t *slot)
{
    size_t first = r->drv.nev;
    int rc = cr_rp_push_event(r, c->k[c->ref], CR_EVENT_CLOSE);
    /* approaching contacts close, and so do the gaps the impact closes for its law */
    for (size_t q = 0; q < c->m && rc == CR_OK; q++) {
        const cr_rp_contact *k = &r->c[c->k[q]];
        double gap, nn[3], gamma;
        cr_rp_geometry(r, k->i, k->j, &gap, nn, &gamma);
        if (q != c->ref && (gamma_of(r, c, slot, q, c->u0) < -r->drv.v_rest ||
                            gap > cr_rp_tolerance(r, k->i, k->j)))
            rc = cr_rp_push_event(r, c->k[q], CR_EVENT_CLOSE);
    }
    return rc == CR_OK ? cr_system_emit_events(r->drv.sys, first) : rc;
}

/* Per contact with an impulse a `max-compression` at the compression
 * impulse, then `open` (it separates) or `min-compression` (it stays in
 * touch), with the post-impact state. */
static int events_after(cr_rigid_pool *r, const config *c)
{
    size_t first = r->drv.nev;
    int rc = CR_OK;
    for (size_t q = 0; q < c->m && rc == CR_OK; q++) {
        cr_rp_contact *k = &r->c[c->k[q]];
        double gap, n[3], gamma, total = k->P;
        cr_rp_geometry(r, k->i, k->j, &gap, n, &gamma);
        if (c->P[q] > 0.0) {
            k->P = total - c->P[q] + c->Pc[q];
            rc = cr_rp_push_event(r, c->k[q], CR_EVENT_MAX_COMPRESSION);
            k->P = total;
        }
        if (rc == CR_OK && gamma > r->drv.v_rest)
            rc = cr_rp_push_event(r, c->k[q], CR_EVENT_OPEN);
        else if (rc == CR_OK && c->P[q] - c->Pc[q] > 1e-12 * c->P[q])
            rc = cr_rp_push_event(r, c->k[q], CR_EVENT_MIN_COMPRESSION);
    }
    return rc == CR_OK ? cr_system_emit_events(r->drv.sys, first) : rc;
}

static double kinetic(const cr_rigid_pool *r, const config *c)
{
    double T = 0.0;
    for (size_t q = 0; q < c->nd; q++) {
        const double *v = &r->v[c->D * c->disc[q]];
        T += 0.5 * r->mass[c->disc[q]] * cr_rp_dot(v, v, r->dim);
    }
    return T;
}

/* One impact: events before, the law, the books, events after. */
static int impact(cr_rigid_pool *r, config *c, const size_t *slot)
{
    int rc = config_build(r, c, slot);
    if (rc != CR_OK)
        return rc;
    c->ref = reference_contact(r, c, slot);
    cr_law_params lp;
    law_params(r, c, slot, &lp);
    for (size_t q = 0; q < c->m; q++)
        r->c[c->k[q]].joined = 1;
    double *u = c->buf + 5 * c->m + c->D * c->nd, T0 = kinetic(r, c);
    rc = events_before(r, c, slot);
    if (rc == CR_OK)
        rc = r->law == CR_LAW_SEQUENTIAL ? sequential_pairwise(r, c, slot, u)
                                         : core_law(r, c, r->law, &lp, u, c->P);
    r->impacts++;
    if (rc != CR_OK) {
        for (size_t q = 0; q < c->m; q++)
            r->c[c->k[q]].joined = 0;
        return rc;
    }
    compression_split(r, c);
    for (size_t q = 0; q < c->nd; q++)
        memcpy(&r->v[c->D * c->disc[q]], &u[c->D * q], c->D * sizeof(double));
    for (size_t q = 0; q < c->m; q++) {
        cr_rp_contact *k = &r->c[c->k[q]];
        k->P += c->P[q];
        for (size_t d = 0; d < c->D; d++)
            k->Pv[d] += c->P[q] * c->nrm[c->D * q + d];
        k->closed = 0; /* resting contacts are decided again after the impacts */
    }
    r->drv.dissipated += T0 - kinetic(r, c);
    rc = events_after(r, c);
    for (size_t q = 0; q < c->m; q++)
        r->c[c->k[q]].joined = 0;
    return rc;
}

/* ---- finding the configurations ------------------------------------------------ */

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* θ·δ* of the pair (i, j) at approach speed V: ((n+1) μ V² / (2K))^(1/(n+1))
 * with the pair law's K, n (0 without a law). */
static double compression_gap(const cr_rigid_pool *r, size_t i, long j, double V)
{
    cr_contact_params p;
    if (!(V > 0.0) || cr_model_pair_law(r->model, i, j, &p) != CR_OK || !(p.K > 0.0))
        return 0.0;
    double mu = j >= 0 ? r->mass[i] * r->mass[j] / (r->mass[i] + r->mass[j]) : r->mass[i];
    return r->touching * pow((p.n + 1.0) * mu * V * V / (2.0 * p.K), 1.0 / (p.n + 1.0));
}

/* Adds contact k to the list; @return CR_OK or CR_ERR_NOMEM. */
static int list_add(size_t **list, size_t *n, size_t *cap, size_t k)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16, *p = realloc(*list, nc * sizeof(size_t));
        if (!p)
            return CR_ERR_NOMEM;
        *list = p;
        *cap = nc;
    }
    (*list)[(*n)++] = k;
    return CR_OK;
}

/* Grows the groups of touching discs over pairs whose gap is within θ·δ* at
 * the group's approach speed (docs/design.md, "Impact configurations at the
 * compression scale"), until no pair joins; counts the gaps joined. */
static int grow_groups(cr_rigid_pool *r, size_t *parent, size_t **list, size_t *n, size_t *cap)
{
    size_t nb = r->drv.nb;
    double *V = calloc(nb ? nb : 1, sizeof(double));
    if (!V)
        return CR_ERR_NOMEM;
    for (int changed = 1, round = 0; changed && round < 64; round++) {
        changed = 0;
        for (size_t i = 0; i < nb; i++)
            V[i] = 0.0;
        for (size_t a = 0; a < *n; a++) {
            const cr_rp_contact *k = &r->c[(*list)[a]];
            double gap, nn[3], gamma;
            cr_rp_geometry(r, k->i, k->j, &gap, nn, &gamma);
            size_t root = uf_find(parent, k->i);
            V[root] = fmax(V[root], -gamma);
        }
        for (size_t i = 0; i < nb; i++)
            for (long j = -(long)r->nw; j < (long)nb; j++) {
                if (j >= 0 && (size_t)j <= i)
                    continue;
                if (j >= 0 && uf_find(parent, i) == uf_find(parent, (size_t)j))
                    continue;
                double gap, nn[3], gamma, tol = cr_rp_tolerance(r, i, j);
                cr_rp_geometry(r, i, j, &gap, nn, &gamma);
                double Vg =
                    fmax(V[uf_find(parent, i)], j >= 0 ? V[uf_find(parent, (size_t)j)] : 0.0);
                if (gap <= tol || !(Vg > 0.0) || gap > compression_gap(r, i, j, Vg))
                    continue;
                long k = cr_rp_contact_id(r, i, j);
                if (k < 0 || list_add(list, n, cap, (size_t)k) != CR_OK) {
                    free(V);
                    return k < 0 ? CR_ERR_SOLVER : CR_ERR_NOMEM;
                }
                if (j >= 0)
                    parent[uf_find(parent, (size_t)j)] = uf_find(parent, i);
                r->gaps_closed++;
                r->gap_closed_max =
                    fmax(r->gap_closed_max, gap / (compression_gap(r, i, j, Vg) / r->touching));
                changed = 1;
            }
    }
    free(V);
    return CR_OK;
}

/* Every contact in touch now, registered; discs joined by them share a root. */
static int contacts_in_touch(cr_rigid_pool *r, size_t *parent, size_t **list, size_t *n,
                             size_t *cap)
{
    *n = 0;
    for (size_t i = 0; i < r->drv.nb; i++)
        parent[i] = i;
    for (size_t i = 0; i < r->drv.nb; i++)
        for (long j = -(long)r->nw; j < (long)r->drv.nb; j++) {
            if (j >= 0 && (size_t)j <= i)
                continue;
            double gap, nn[3], gamma;
            cr_rp_geometry(r, i, j, &gap, nn, &gamma);
            if (gap > cr_rp_tolerance(r, i, j))
                continue;
            long k = cr_rp_contact_id(r, i, j);
            if (k < 0)
                return CR_ERR_SOLVER;
            if (list_add(list, n, cap, (size_t)k) != CR_OK)
                return CR_ERR_NOMEM;
            if (j >= 0)
                parent[uf_find(parent, (size_t)j)] = uf_find(parent, i);
        }
    return r->touching > 0.0 ? grow_groups(r, parent, list, n, cap) : CR_OK;
}

/* The configuration of root @p root: its discs and contacts; @return 1 when
 * one of its contacts approaches faster than the rest speed. */
static int gather(cr_rigid_pool *r, size_t root, size_t *parent, const size_t *list, size_t n,
                  config *c, size_t *slot)
{
    int approaching = 0;
    memset(c, 0, sizeof(*c));
    c->D = (size_t)r->dim;
    for (size_t a = 0; a < n; a++) {
        const cr_rp_contact *k = &r->c[list[a]];
        if (uf_find(parent, k->i) != root)
            continue;
        double gap, nn[3], gamma;
        cr_rp_geometry(r, k->i, k->j, &gap, nn, &gamma);
        approaching |= gamma < -r->drv.v_rest;
        c->m++;
    }
    if (!approaching)
        return 0;
    c->k = malloc(c->m * sizeof(size_t));
    c->disc = malloc(r->drv.nb * sizeof(size_t));
    if (!c->k || !c->disc)
        return -1;
    c->m = 0;
    for (size_t a = 0; a < n; a++)
        if (uf_find(parent, r->c[list[a]].i) == root)
            c->k[c->m++] = list[a];
    for (size_t i = 0; i < r->drv.nb; i++)
        if (uf_find(parent, i) == root) {
            slot[i] = c->nd;
            c->disc[c->nd++] = i;
        }
    return 1;
}

/* One round: every configuration with an approaching contact, resolved. */
static int one_round(cr_rigid_pool *r, size_t *parent, size_t *slot, size_t **list, size_t *cap,
                     size_t *found)
{
    size_t n = 0;
    int rc = contacts_in_touch(r, parent, list, &n, cap);
    for (size_t i = 0; i < r->drv.nb && rc == CR_OK; i++) {
        if (uf_find(parent, i) != i)
            continue;
        config c;
        int g = gather(r, i, parent, *list, n, &c, slot);
        if (g < 0)
            rc = CR_ERR_NOMEM;
        else if (g > 0) {
            rc = impact(r, &c, slot);
            (*found)++;
        }
        config_free(&c);
    }
    return rc;
}

int cr_rp_resolve(cr_rigid_pool *r, size_t *n_impacts)
{
    size_t *parent = malloc((r->drv.nb ? r->drv.nb : 1) * sizeof(size_t));
    size_t *slot = malloc((r->drv.nb ? r->drv.nb : 1) * sizeof(size_t)), *list = NULL, cap = 0;
    int rc = parent && slot ? CR_OK : CR_ERR_NOMEM;
    *n_impacts = 0;
    for (size_t round = 0; rc == CR_OK; round++) {
        size_t found = 0;
        rc = one_round(r, parent, slot, &list, &cap, &found);
        *n_impacts += found;
        if (rc != CR_OK || !found)
            break;
        if (round + 1 >= CR_RIGID_MAX_IMPACTS_AT_ONCE) {
            cr_set_msg(r->drv.err, sizeof r->drv.err,
                       "t = %.9g s: contacts still approach after %d impacts at this instant "
                       "(law %s)",
                       r->drv.t, CR_RIGID_MAX_IMPACTS_AT_ONCE, cr_law_name(r->law));
            rc = CR_ERR_SOLVER;
        }
    }
    if (rc == CR_ERR_NOMEM)
        cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
    free(parent);
    free(slot);
    free(list);
    return rc;
}
