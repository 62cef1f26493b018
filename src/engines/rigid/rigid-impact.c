/*
 * The rigid engine at an impact: the impact configuration, the law, the
 * accumulation rule, and the two batches of events that make the monitor see
 * an instantaneous episode.
 *
 * The configuration is every pair in touch (gap within ε_geom) connected to an
 * approaching one, grown over the neighbouring pairs whose gap is within
 * θ·δ*_c, the overlap pair c would reach at the configuration's approach
 * speed (rigid.touching = θ; docs/design.md, "Impact configurations at the
 * compression scale"), and ended by wider gaps and by fixed bodies (an
 * infinite mass transmits nothing): in a chain, the run of bodies b0 … b1 and
 * pairs b0 … b1 − 1, so a cradle's touching balls take part, and so do balls a
 * few µm apart, which a compliant pulse crosses as if they touched. Bodies are
 * not moved: a gap inside the tolerance is closed for the law, and counted. M is diagonal over the
 * moving bodies, pair c has the column −1 on body c and +1 on body c + 1.
 *
 * Events: before the law, a `close` of every approaching pair (the reference
 * first: the fastest, lowest index on ties) with the pre-impact state; after
 * it, per pair with an impulse a `max-compression` at the compression impulse
 * and an `open` (it separates) or a `min-compression` (it stays in touch) at
 * the total, with the post-impact state. The monitor takes u⁻ at the first
 * batch and u⁺, P at the second: an episode with t_start = t_end.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "laws/laws.h"
#include "model/model.h"
#include "engines/rigid/rigid-law-priv.h"
#include "engines/rigid/rigid-priv.h"

#define NO_DOF SIZE_MAX

/* One impact configuration: bodies b0 … b1, pairs b0 … b1 − 1. */
typedef struct {
    size_t b0, b1, n, m;
    size_t ref;   /* reference pair (system numbering) */
    size_t *dof;  /* body b0 + q → its dof, or NO_DOF for a fixed body */
    double *u0;   /* u⁻ per dof */
    double *P;    /* impulse of the law, per pair of the configuration */
    double *Pc;   /* compression impulse (the plastic impact's) */
    double *work; /* m values */
    cr_impact *imp;
} config;

static void config_free(config *k)
{
    free(k->dof);
    free(k->u0);
    free(k->P);
    free(k->Pc);
    free(k->work);
    cr_impact_destroy(k->imp);
}

static double kinetic(const cr_rigid *r, size_t b0, size_t b1)
{
    double T = 0.0;
    for (size_t i = b0; i <= b1; i++)
        T += r->fixed[i] ? 0.0 : 0.5 * r->mass[i] * r->v[i] * r->v[i];
    return T;
}

/* M, W and u⁻ of the configuration, in the law core's terms. */
static int config_build(const cr_rigid *r, size_t b0, size_t b1, config *k)
{
    memset(k, 0, sizeof(*k));
    k->b0 = b0;
    k->b1 = b1;
    k->m = b1 - b0;
    size_t nbk = b1 - b0 + 1;
    k->dof = malloc(nbk * sizeof(size_t));
    k->u0 = malloc(nbk * sizeof(double));
    k->P = calloc(k->m, sizeof(double));
    k->Pc = calloc(k->m, sizeof(double));
    k->work = calloc(nbk + k->m, sizeof(double));
    if (!k->dof || !k->u0 || !k->P || !k->Pc || !k->work)
        return CR_ERR_NOMEM;
    double *mass = k->work;
    for (size_t q = 0; q < nbk; q++) {
        size_t i = b0 + q;
        k->dof[q] = r->fixed[i] ? NO_DOF : k->n;
        if (!r->fixed[i]) {
            mass[k->n] = r->mass[i];
            k->u0[k->n++] = r->v[i];
        }
    }
    if (r->law == CR_LAW_SEQUENTIAL) /* pair by pair (sequential_pairwise): no law core */
        return CR_OK;
    k->imp = cr_impact_create(k->n, k->m);
    if (!k->imp)
        return CR_ERR_NOMEM;
    cr_impact_set_mass_diagonal(k->imp, mass);
    cr_impact_set_velocity(k->imp, k->u0);
    for (size_t j = 0; j < k->m; j++) {
        memset(mass, 0, k->n * sizeof(double));
        if (k->dof[j] != NO_DOF)
            mass[k->dof[j]] = -1.0;
        if (k->dof[j + 1] != NO_DOF)
            mass[k->dof[j + 1]] = 1.0;
        cr_impact_set_gradient(k->imp, j, mass);
    }
    return CR_OK;
}

/* The reference pair: the fastest approach, lowest index on ties. */
static size_t reference_pair(const cr_rigid *r, const config *k)
{
    size_t ref = k->b0;
    for (size_t c = k->b0; c < k->b1; c++)
        if (cr_rigid_gamma(r, c) < cr_rigid_gamma(r, ref))
            ref = c;
    return ref;
}

/* The sequential law in a run (rigid-law.c: Han & Gilmore's pairwise
 * order), on the pairs b0 … b1 − 1 of the configuration, velocities in r->v. */
typedef struct {
    cr_rigid *r;
    config *k;
    const double *eps;
} stages;

static double stage_gamma(void *ctx, size_t q)
{
    const stages *s = ctx;
    return cr_rigid_gamma(s->r, s->k->b0 + q);
}

/* 1/m of each body of pair c (0 for a fixed one). */
static void inverse_masses(const cr_rigid *r, size_t c, double *ia, double *ib)
{
    *ia = r->fixed[c] ? 0.0 : 1.0 / r->mass[c];
    *ib = r->fixed[c + 1] ? 0.0 : 1.0 / r->mass[c + 1];
}

static double stage_inverse_mass(void *ctx, size_t q)
{
    const stages *s = ctx;
    double ia, ib;
    inverse_masses(s->r, s->k->b0 + q, &ia, &ib);
    return ia + ib;
}

static double stage_restitution(void *ctx, size_t q)
{
    return ((const stages *)ctx)->eps[q];
}

static void stage_apply(void *ctx, size_t q, double lam)
{
    const stages *s = ctx;
    size_t c = s->k->b0 + q;
    double ia, ib;
    inverse_masses(s->r, c, &ia, &ib);
    s->r->v[c] -= lam * ia;
    s->r->v[c + 1] += lam * ib;
}

static int sequential_pairwise(cr_rigid *r, config *k, const double *eps)
{
    stages ctx = {r, k, eps};
    cr_rigid_stages s = {k->m,       &ctx, stage_gamma, stage_inverse_mass, stage_restitution,
                         stage_apply};
    if (cr_rigid_sequential(&s, r->drv.v_rest, k->P) == CR_OK)
        return CR_OK;
    cr_set_msg(r->drv.err, sizeof r->drv.err,
               "t = %.9g s: sequential: the pairwise sequence on pairs %zu-%zu did not end after "
               "%zu stages",
               r->drv.t, k->b0, k->b1 - 1, CR_RIGID_MAX_STAGES(k->m));
    return CR_ERR_SOLVER;
}

/* Parameters of the core law for this configuration: per-pair values of the
 * engine mapped onto the configuration's contacts, then the provider's
 * changes (cr_system_rigid_set_provider). @p buf holds 5 m values. */
static int law_params(cr_rigid *r, config *k, cr_law_params *lp, double *buf)
{
    double *eps = buf, *alpha = buf + k->m, *eta = buf + 2 * k->m;
    *lp = r->lp;
    for (size_t j = 0; j < k->m; j++)
        eps[j] = r->eps[k->b0 + j];
    lp->restitutions = eps;
    lp->reference = k->ref - k->b0;
    if (r->law == CR_LAW_LZB) {
        /* LZB takes eⱼ as energetic restitutions; it refuses Newton's */
        double *K = buf + 3 * k->m, *n = buf + 4 * k->m;
        memcpy(K, r->lzb_k + k->b0, k->m * sizeof(double));
        memcpy(n, r->lzb_n + k->b0, k->m * sizeof(double));
        lp->stiffness = K;
        lp->exponent = n;
        lp->energetic = eps;
        lp->restitutions = NULL;
    }
    if (r->law == CR_LAW_ENERGETIC) {
        double aref = r->alpha[k->ref];
        if (!(aref > 0.0) && !r->provider) {
            cr_set_msg(r->drv.err, sizeof r->drv.err,
                       "t = %.9g s: energetic: the reference pair %zu has alpha weight %g "
                       "(must be positive)",
                       r->drv.t, k->ref, aref);
            return CR_ERR_SOLVER;
        }
        for (size_t j = 0; j < k->m; j++)
            alpha[j] = aref > 0.0 ? r->alpha[k->b0 + j] / aref : 0.0;
        lp->alpha = alpha;
    }
    if (r->eta) {
        for (size_t j = 0; j < k->m; j++)
            eta[j] = r->eta[k->b0 + j];
        lp->eta = eta;
    }
    if (!r->provider)
        return CR_OK;
    char why[CR_ERRMSG_LEN] = "";
    int rc =
        r->provider(r->drv.sys, r->impacts, k->b0, k->m, lp, why, sizeof why, r->provider_user);
    if (rc != CR_OK) {
        cr_set_msg(r->drv.err, sizeof r->drv.err, "t = %.9g s: impact %zu (pairs %zu-%zu): %s",
                   r->drv.t, r->impacts, k->b0, k->b1 - 1,
                   why[0] ? why : "the parameter provider failed");
        /* a table that does not describe the impact, or holds it outside its
         * axes, is the caller's to report as such (docs/tables.md) */
        return rc == CR_ERR_DOMAIN || rc == CR_ERR_MODEL ? rc : CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* A verdict a run can go on with: one outcome (several: the first). */
static int law_failed(cr_rigid *r, const config *k, cr_law_status st, const char *why)
{
    cr_set_msg(r->drv.err, sizeof r->drv.err,
               "t = %.9g s: law %s on the impact of pairs %zu-%zu: %s: %s", r->drv.t,
               cr_law_name(r->law), k->b0, k->b1 - 1, cr_law_status_name(st), why);
    return CR_ERR_SOLVER;
}

/* One more record of cr_system_rigid_kappa_clamps; NULL out of memory. */
static cr_kappa_clamp *clamp_record(cr_rigid *r, const config *k, double kappa)
{
    if (r->nclamps == r->clampcap) {
        size_t cap = r->clampcap ? 2 * r->clampcap : 16;
        cr_kappa_clamp *q = realloc(r->clamps, cap * sizeof *q);
        if (!q) {
            cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
            return NULL;
        }
        r->clamps = q;
        r->clampcap = cap;
    }
    cr_kappa_clamp *c = &r->clamps[r->nclamps++];
    *c = (cr_kappa_clamp){r->drv.t, k->b0, k->m, kappa, NAN, 0};
    return c;
}

/* κ below this impact's feasible minimum (cr_system_rigid_clamp_kappa): raised
 * to it when that is ≤ 1; when no dissipative κ along α leaves every contact
 * separating (the borrowed α does not fit this configuration), *@p law becomes
 * maximal dissipation, the one parameter-free outcome of least T⁺. Either is
 * recorded; κ_used of a fallback is filled in after the law. */
static int clamp_kappa(cr_rigid *r, config *k, cr_law_params *lp, cr_law_id *law)
{
    double kmin;
    int rc = cr_law_energetic_kappa_min(k->imp, lp, &kmin);
    if ((rc != CR_OK && rc != CR_ERR_DOMAIN) || (rc == CR_OK && !(lp->kappa < kmin)))
        return CR_OK; /* feasible as asked, or the law says why not */
    cr_kappa_clamp *c = clamp_record(r, k, lp->kappa);
    if (!c)
        return CR_ERR_NOMEM;
    if (rc == CR_OK && kmin <= 1.0) {
        lp->kappa = c->kappa_used = kmin;
    } else {
        c->fallback = 1;
        *law = CR_LAW_MAX_DISSIPATION;
    }
    return CR_OK;
}

/* u⁺ and P of the core law into r->v and k->P. */
static int core_law(cr_rigid *r, config *k, const cr_law_params *given)
{
    cr_law_params use = *given, *lp = &use;
    cr_law_id law = r->law;
    cr_law_result *res = cr_law_result_create();
    int rc = res ? CR_OK : CR_ERR_NOMEM;
    if (rc == CR_OK && r->clamp && r->law == CR_LAW_ENERGETIC)
        rc = clamp_kappa(r, k, lp, &law);
    if (rc == CR_OK && cr_law_solve(k->imp, law, lp, res) != CR_OK)
        rc = law_failed(r, k, CR_LAW_SOLVER_FAILED, cr_impact_last_error(k->imp));
    cr_law_status st = res ? cr_law_result_status(res) : CR_LAW_SOLVER_FAILED;
    if (rc == CR_OK && st != CR_LAW_OK && st != CR_LAW_MULTIPLE)
        rc = law_failed(r, k, st, cr_law_result_message(res));
    if (rc == CR_OK && law != r->law)
        r->clamps[r->nclamps - 1].kappa_used = cr_law_result_energy_ratio(res, 0);
    if (rc == CR_OK) {
        const double *u = cr_law_result_velocity(res, 0);
        memcpy(k->P, cr_law_result_impulse(res, 0), k->m * sizeof(double));
        for (size_t q = 0; q <= k->b1 - k->b0; q++)
            if (k->dof[q] != NO_DOF)
                r->v[k->b0 + q] = u[k->dof[q]];
    }
    cr_law_result_destroy(res);
    return rc;
}

/* The law with this impact's parameters; u⁺ into r->v, P into k->P. */
static int apply_law(cr_rigid *r, config *k, const cr_law_params *lp, const double *eps)
{
    int rc = r->law == CR_LAW_SEQUENTIAL
                 ? sequential_pairwise(r, k, lp->restitutions ? lp->restitutions : eps)
                 : core_law(r, k, lp);
    r->impacts++;
    return rc;
}

/* Compression impulses: those of the plastic impact of the same configuration
 * (Newton with ε = 0: Poisson's compression phase, 002 eq. 10-11), capped to
 * [0, P]; for one contact under Newton's law eᴾ = eᴺ = ε. On a chain the
 * plastic impact is the LCP of a Z-matrix, solved by growing the set of pairs
 * that end together: every pair still approaching joins, each run of joined
 * bodies takes the centre-of-mass velocity of its momenta before the impact,
 * until none approaches (monotone, at most m rounds of O(m); the core's Lemke
 * solver took 3 s on 1000 balls). */
static void compression_split(cr_rigid *r, config *k)
{
    size_t nbk = k->b1 - k->b0 + 1;
    double *F = r->work, *V = r->acc, *lam = r->work2, *u = r->fa;
    int *joined = calloc(k->m, sizeof(int));
    for (size_t q = 0; q < nbk; q++) {
        size_t i = k->b0 + q;
        u[i] = k->dof[q] == NO_DOF ? 0.0 : k->u0[k->dof[q]];
        F[i] = r->fixed[i] ? 0.0 : r->mass[i] * u[i];
    }
    for (size_t round = 0; joined && round <= k->m; round++) {
        int grew = 0;
        for (size_t j = 0; j < k->m; j++)
            if (!joined[j] && u[k->b0 + j + 1] - u[k->b0 + j] < 0.0)
                joined[j] = grew = 1;
        if (!grew)
            break;
        for (size_t i = k->b0; i <= k->b1;) {
            size_t i1 = i;
            while (i1 < k->b1 && joined[i1 - k->b0])
                i1++;
            cr_rigid_run_balance(r, i, i1, F, V, lam);
            for (size_t q = i; q <= i1 && i1 > i; q++)
                u[q] = V[q];
            for (size_t c = i; c < i1; c++)
                k->Pc[c - k->b0] = lam[c];
            i = i1 + 1;
        }
    }
    for (size_t j = 0; j < k->m; j++)
        k->Pc[j] = joined ? fmin(fmax(joined[j] ? k->Pc[j] : 0.0, 0.0), fmax(k->P[j], 0.0))
                          : fmax(k->P[j], 0.0);
    free(joined);
}

/* The accumulation rule: pairs of the configuration leaving slower than the
 * rest speed become persistent now. The bodies of each run of such pairs take
 * its velocity (momentum kept; 0 with a fixed body), and the impulses that
 * takes join P. A ball bouncing on a floor with e < 1 would bounce infinitely
 * often before t∞; its last bounce instead leaves it resting. */
static void accumulate(cr_rigid *r, config *k)
{
    double *F = r->work, *V = r->acc, *lam = r->work2;
    for (size_t c = k->b0; c < k->b1;) {
        if (fabs(cr_rigid_gamma(r, c)) > r->drv.v_rest) {
            c++;
            continue;
        }
        size_t i0 = c, i1 = c + 1;
        while (i1 < k->b1 && fabs(cr_rigid_gamma(r, i1)) <= r->drv.v_rest)
            i1++;
        for (size_t i = i0; i <= i1; i++)
            F[i] = r->fixed[i] ? 0.0 : r->mass[i] * r->v[i];
        cr_rigid_run_balance(r, i0, i1, F, V, lam);
        for (size_t i = i0; i <= i1; i++)
            if (!r->fixed[i])
                r->v[i] = V[i];
        for (size_t j = i0; j < i1; j++)
            k->P[j - k->b0] += lam[j];
        c = i1;
    }
}

/* The `close` events of the approaching pairs, reference first. */
static int events_before(cr_rigid *r, const config *k)
{
    size_t first = r->drv.nev;
    int rc = cr_rigid_push_event(r, k->ref, CR_EVENT_CLOSE, 0.0, r->impulse[k->ref]);
    /* approaching pairs close, and so do the gaps the impact closes for its law */
    for (size_t c = k->b0; c < k->b1 && rc == CR_OK; c++)
        if (c != k->ref &&
            (cr_rigid_gamma(r, c) < -r->drv.v_rest || cr_rigid_gap(r, c) > r->tol[c]))
            rc = cr_rigid_push_event(r, c, CR_EVENT_CLOSE, 0.0, r->impulse[c]);
    return rc == CR_OK ? cr_system_emit_events(r->drv.sys, first) : rc;
}

/* Compression, then separation or staying in touch, per pair, after the law. */
static int events_after(cr_rigid *r, const config *k, const double *before)
{
    size_t first = r->drv.nev;
    int rc = CR_OK;
    for (size_t j = 0; j < k->m && rc == CR_OK; j++) {
        size_t c = k->b0 + j;
        int leaves = cr_rigid_gamma(r, c) > r->drv.v_rest;
        if (k->P[j] > 0.0)
            rc = cr_rigid_push_event(r, c, CR_EVENT_MAX_COMPRESSION, 0.0, before[j] + k->Pc[j]);
        if (rc == CR_OK && leaves) {
            r->closed[c] = 0;
            rc = cr_rigid_push_event(r, c, CR_EVENT_OPEN, 0.0, r->impulse[c]);
        } else if (rc == CR_OK && k->P[j] - k->Pc[j] > 1e-12 * k->P[j]) {
            rc = cr_rigid_push_event(r, c, CR_EVENT_MIN_COMPRESSION, 0.0, r->impulse[c]);
        }
    }
    return rc == CR_OK ? cr_system_emit_events(r->drv.sys, first) : rc;
}

/* The approach speed of the configuration b0 … b1: its fastest pair's −γ. */
static double approach_speed(const cr_rigid *r, size_t b0, size_t b1)
{
    double V = 0.0;
    for (size_t c = b0; c < b1; c++)
        V = fmax(V, -cr_rigid_gamma(r, c));
    return V;
}

/* θ·δ*_c at approach speed V (0 without a law). */
static double compression_gap(const cr_rigid *r, size_t c, double V)
{
    return r->dstar_a[c] > 0.0 && V > 0.0 ? r->touching * r->dstar_a[c] * pow(V, r->dstar_e[c])
                                          : 0.0;
}

static int joins(const cr_rigid *r, size_t c, double V)
{
    return r->on[c] && cr_rigid_gap(r, c) <= fmax(r->tol[c], compression_gap(r, c, V));
}

/* Grows b0 … b1 over neighbouring pairs whose gap is within θ·δ* at the
 * configuration's approach speed, which a joining pair may raise: until no
 * pair joins. A fixed body stays an end. */
static void grow(const cr_rigid *r, size_t lo, size_t *b0, size_t *b1)
{
    for (;;) {
        double V = approach_speed(r, *b0, *b1);
        size_t s = *b0, e = *b1;
        while (s > lo && !r->fixed[s] && joins(r, s - 1, V))
            s--;
        while (e < r->nc && !r->fixed[e] && joins(r, e, V))
            e++;
        if (s == *b0 && e == *b1)
            return;
        *b0 = s;
        *b1 = e;
    }
}

/* The span hook's configuration (cr_system_rigid_set_span), kept within the
 * chain and short of fixed bodies inside. */
static void widen(const cr_rigid *r, size_t lo, size_t *b0, size_t *b1)
{
    size_t s = *b0, e = *b1;
    r->span(r->drv.sys, r->drv.t, &s, &e, r->span_user);
    /* a fixed body joins only across a pair in touch: a gap to a wall cannot
     * be closed by moving the wall, and closed for the law it would be an
     * impulse at a distance */
    while (*b0 > lo && *b0 > s && !r->fixed[*b0] &&
           (!r->fixed[*b0 - 1] || cr_rigid_gap(r, *b0 - 1) <= r->tol[*b0 - 1]))
        (*b0)--;
    while (*b1 < r->nc && *b1 < e && !r->fixed[*b1] &&
           (!r->fixed[*b1 + 1] || cr_rigid_gap(r, *b1) <= r->tol[*b1]))
        (*b1)++;
}

/* Bodies the span hook took in beyond the touching scale are moved onto
 * contact, towards the configuration's core: a compliant collision brings
 * them there before they take part, and a rigid impact that gave them their
 * share at a distance would leave them a gap's width off their compliant
 * course (on the 7-ball pendulum cradle, 0.25 mm and 26 ms of phase after one
 * swing). A fixed body is never moved: that gap stays closed for the law only. */
static void move_body(cr_rigid *r, size_t i, double by)
{
    /* the fields' potential the move changes is booked with the dissipated
     * work, so T + U + dissipated still balances (docs/compare.md) */
    double x0 = r->x0[i] + r->d[i], x1 = x0 + by, g = r->gravity;
    r->drv.dissipated +=
        cr_field_work(r->mass[i], &g, 1, r->pivot[i], r->plength[i], r->pg[i], &x0, &x1);
    r->d[i] += by;
}

static void close_spanned_gaps(cr_rigid *r, const config *k)
{
    for (size_t c = r->core0; c-- > k->b0;) {
        double g = cr_rigid_gap(r, c);
        if (g <= r->tol[c] || r->fixed[c])
            continue;
        for (size_t i = k->b0; i <= c; i++)
            if (!r->fixed[i])
                move_body(r, i, g);
        r->gaps_moved++;
        r->moved_max = fmax(r->moved_max, g);
    }
    for (size_t c = r->core1; c < k->b1; c++) {
        double g = cr_rigid_gap(r, c);
        if (g <= r->tol[c] || r->fixed[c + 1])
            continue;
        for (size_t i = c + 1; i <= k->b1; i++)
            if (!r->fixed[i])
                move_body(r, i, -g);
        r->gaps_moved++;
        r->moved_max = fmax(r->moved_max, g);
    }
}

/* The gaps an impact closes for its law: counted, with the widest over δ*. */
static void count_closed_gaps(cr_rigid *r, const config *k)
{
    double V = -cr_rigid_gamma(r, k->ref);
    for (size_t c = k->b0; c < k->b1; c++) {
        double g = cr_rigid_gap(r, c),
               ds = r->touching > 0.0 ? compression_gap(r, c, V) / r->touching : 0.0;
        if (g > r->tol[c]) {
            r->gaps_closed++;
            if (ds > 0.0)
                r->gap_closed_max = fmax(r->gap_closed_max, g / ds);
        }
    }
}

/* An impact larger than the law takes is refused before its dense
 * configuration is built (10⁵ touching balls asked for 23 GB and were killed;
 * 2·10⁴ took 6 GB and 16 s to be told too-large). The chain's sequential law
 * works pair by pair, without the law core's caps. */
static int size_check(cr_rigid *r, size_t b0, size_t b1)
{
    if (r->law == CR_LAW_SEQUENTIAL)
        return CR_OK;
    size_t dofs = 0;
    for (size_t i = b0; i <= b1; i++)
        dofs += !r->fixed[i];
    char why[256];
    if (cr_law_size_check(r->law, dofs, b1 - b0, why, sizeof why) == CR_LAW_OK)
        return CR_OK;
    const config k = {.b0 = b0, .b1 = b1};
    return law_failed(r, &k, CR_LAW_TOO_LARGE, why);
}

/* One impact: the law's parameters (before any event: a provider that
 * refuses leaves no half episode), events before, the law, the accumulation
 * rule, the books, events after. */
static int impact(cr_rigid *r, size_t b0, size_t b1)
{
    config k;
    int rc = size_check(r, b0, b1);
    if (rc != CR_OK)
        return rc;
    rc = config_build(r, b0, b1, &k);
    double *before = malloc((k.m ? k.m : 1) * sizeof(double));
    double *buf = malloc(5 * (k.m ? k.m : 1) * sizeof(double));
    if (rc != CR_OK || !before || !buf) {
        free(before);
        free(buf);
        config_free(&k);
        cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
        return CR_ERR_NOMEM;
    }
    k.ref = reference_pair(r, &k);
    if (r->span)
        close_spanned_gaps(r, &k);
    count_closed_gaps(r, &k);
    double T0 = kinetic(r, b0, b1);
    for (size_t j = 0; j < k.m; j++)
        before[j] = r->impulse[b0 + j];
    cr_law_params lp;
    rc = law_params(r, &k, &lp, buf);
    /* the pairs of the impact touch for the monitor while it is resolved, a
     * gap closed for the law too: its bodies belong to the episode */
    for (size_t c = b0; c < b1; c++)
        r->joined[c] = 1;
    if (rc == CR_OK)
        rc = events_before(r, &k);
    if (rc == CR_OK)
        rc = apply_law(r, &k, &lp, buf);
    if (rc == CR_OK) {
        compression_split(r, &k);
        accumulate(r, &k);
        for (size_t j = 0; j < k.m; j++)
            r->impulse[b0 + j] += k.P[j];
        r->drv.dissipated += T0 - kinetic(r, b0, b1);
        cr_rigid_flight_touch(r);
        rc = events_after(r, &k, before);
    }
    for (size_t c = b0; c < b1; c++)
        r->joined[c] = 0;
    free(before);
    free(buf);
    config_free(&k);
    return rc;
}

/* The next configuration with an approaching pair from pair @p c on: pairs
 * in touch c … e − 1 with no fixed body inside, grown at the compression
 * scale; @return 1 and its bodies. */
static int next_config(cr_rigid *r, size_t c, size_t *b0, size_t *b1, size_t *next)
{
    /* bodies before the scan's start were resolved at this instant already:
     * a configuration grows no further back (one body, one impact at a time) */
    size_t lo = c ? c + 1 : 0;
    while (c < r->nc) {
        if (!cr_rigid_in_touch(r, c)) {
            c++;
            continue;
        }
        size_t s = c;
        while (c + 1 < r->nc && cr_rigid_in_touch(r, c + 1) && !r->fixed[c + 1])
            c++;
        int approaching = 0;
        for (size_t j = s; j <= c; j++)
            approaching |= cr_rigid_gamma(r, j) < -r->drv.v_rest;
        c++;
        if (approaching) {
            *b0 = s;
            *b1 = c;
            if (r->touching > 0.0)
                grow(r, lo, b0, b1);
            r->core0 = *b0;
            r->core1 = *b1;
            if (r->span)
                widen(r, lo, b0, b1);
            *next = *b1;
            return 1;
        }
    }
    return 0;
}

int cr_rigid_resolve(cr_rigid *r, size_t *n_impacts)
{
    *n_impacts = 0;
    for (size_t round = 0;; round++) {
        size_t c = 0, b0, b1, found = 0;
        while (next_config(r, c, &b0, &b1, &c)) {
            if (round >= CR_RIGID_MAX_IMPACTS_AT_ONCE) {
                cr_set_msg(r->drv.err, sizeof r->drv.err,
                           "t = %.9g s: pairs %zu-%zu still approach after %d impacts at this "
                           "instant (law %s)",
                           r->drv.t, b0, b1 - 1, CR_RIGID_MAX_IMPACTS_AT_ONCE, cr_law_name(r->law));
                return CR_ERR_SOLVER;
            }
            int rc = impact(r, b0, b1);
            if (rc != CR_OK)
                return rc;
            found++;
        }
        *n_impacts += found;
        if (!found)
            return CR_OK;
    }
}
