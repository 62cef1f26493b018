/*
 * The rigid engine for planar pools: discs and half-plane walls run as rigid
 * bodies, event-driven, under any law of the core (docs/design.md, "Rigid
 * pools"). This file: the model copy and what a rigid pool refuses, the law's
 * parameters per contact, the pool's callbacks for the shared driver
 * (rigid-driver.c: the run loop, the events, the common getters), the pool's
 * getters and the ops table. Flight and resting discs are in
 * rigid-pool-flight.c, impacts in rigid-pool-impact.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "engines/rigid/rigid-law-priv.h"
#include "engines/rigid/rigid-pool-priv.h"

/* ---- the geometry the driver calls (rigid-driver-priv.h) -------------------- */

static int rp_resolve(void *e, size_t *n)
{
    return cr_rp_resolve(e, n);
}

static int rp_settle(void *e)
{
    return cr_rp_settle(e);
}

static double rp_next_closing(void *e, double horizon)
{
    return cr_rp_next_closing(e, horizon);
}

static void rp_advance(void *e, double s)
{
    cr_rp_advance(e, s);
}

/* No start callback: discs resting at the start were settled at creation, and
 * the first instant settles again. No nothing_approaches: a flight to infinity
 * that meets nothing ends an automatic run. */
static const cr_rigid_geometry pool_geometry = {
    .auto_end_refusal = "an automatic end needs a pool without gravity: give an end time",
    .resolve = rp_resolve,
    .settle = rp_settle,
    .fly = cr_rigid_driver_fly_exact,
    .next_closing = rp_next_closing,
    .advance = rp_advance,
};

/* ---- create / destroy ---------------------------------------------------- */

static void rp_destroy(void *e)
{
    cr_rigid_pool *r = e;
    if (!r)
        return;
    for (size_t i = 0; r->bc && i < r->drv.nb; i++)
        free(r->bc[i]);
    double *arrays[] = {r->mass, r->radius, r->wn, r->wo, r->p, r->v, r->acc};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(r->bc);
    free(r->nbc);
    free(r->bccap);
    free(r->c);
    cr_rigid_driver_free(&r->drv);
    cr_model_destroy(r->model);
    free(r);
}

static int alloc_arrays(cr_rigid_pool *r)
{
    size_t nb = r->drv.nb ? r->drv.nb : 1, nw = r->nw ? r->nw : 1;
    r->mass = calloc(nb, sizeof(double));
    r->radius = calloc(nb, sizeof(double));
    r->p = calloc(2 * nb, sizeof(double));
    r->v = calloc(2 * nb, sizeof(double));
    r->acc = calloc(2 * nb, sizeof(double));
    r->wn = calloc(2 * nw, sizeof(double));
    r->wo = calloc(nw, sizeof(double));
    r->bc = calloc(nb, sizeof(size_t *));
    r->nbc = calloc(nb, sizeof(size_t));
    r->bccap = calloc(nb, sizeof(size_t));
    return r->mass && r->radius && r->p && r->v && r->acc && r->wn && r->wo && r->bc && r->nbc &&
                   r->bccap
               ? CR_OK
               : CR_ERR_NOMEM;
}

static void copy_model(cr_rigid_pool *r, const cr_model *model)
{
    cr_model_get_gravity_vector(model, r->g);
    r->drv.fields = r->g[0] != 0.0 || r->g[1] != 0.0;
    for (size_t i = 0; i < r->drv.nb; i++) {
        r->mass[i] = cr_model_mass(model, i);
        r->radius[i] = cr_model_radius(model, i);
        cr_model_get_body(model, i, &r->p[2 * i], &r->v[2 * i]);
        r->acc[2 * i] = r->g[0];
        r->acc[2 * i + 1] = r->g[1];
    }
    for (size_t w = 0; w < r->nw; w++)
        cr_model_get_plane(model, w, &r->wn[2 * w], &r->wo[w]);
    r->drv.out_interval = cr_model_settings(model)->output_interval;
    r->drv.out_every = cr_model_settings(model)->output_every;
    r->drv.out_none = cr_model_settings(model)->output_omit == CR_OUT_ALL;
    snprintf(r->drv.out_where, sizeof r->drv.out_where, "%s", cr_model_interval_where(model));
    r->touching = cr_model_settings(model)->rigid_touching;
}

/* The speed scale: the largest initial relative speed of two discs or of a
 * disc and a wall, else the speed gravity gives over the smallest radius. */
static void choose_scales(cr_rigid_pool *r)
{
    double rmin = INFINITY, vmax = 0.0;
    r->amax = hypot(r->g[0], r->g[1]);
    for (size_t i = 0; i < r->drv.nb; i++) {
        rmin = fmin(rmin, r->radius[i]);
        r->mmax = fmax(r->mmax, r->mass[i]);
        double s = hypot(r->v[2 * i], r->v[2 * i + 1]);
        vmax = fmax(vmax, r->nw ? s : 0.0);
        for (size_t j = i + 1; j < r->drv.nb; j++)
            vmax = fmax(vmax, hypot(r->v[2 * j] - r->v[2 * i], r->v[2 * j + 1] - r->v[2 * i + 1]));
    }
    if (!isfinite(rmin))
        rmin = 1.0;
    cr_rigid_driver_set_scales(&r->drv, rmin,
                               vmax > 0.0 ? vmax : (r->amax > 0.0 ? sqrt(r->amax * rmin) : 1.0));
    r->a_tol = CR_RIGID_ACCEL_FRACTION * r->amax;
}

/* "discs 0-1" or "disc 0 and wall 1", for messages. */
static void pair_name(size_t i, long j, char *buf, size_t len)
{
    if (j >= 0)
        snprintf(buf, len, "discs %zu-%ld", i, j);
    else
        snprintf(buf, len, "disc %zu and wall %zu", i, CR_WALL_INDEX(j));
}

/* Restitution and LZB's K, n of the pair (i, j) from the law given or the
 * pair law: 1 for an undamped pair law, the model's restitution target where
 * it gives one; a damped law without one is refused (its restitution depends
 * on the impact speed). */
static int pair_params(const cr_rigid_pool *r, size_t i, long j, cr_rp_contact *k, char *msg,
                       size_t msglen)
{
    cr_contact_params cp;
    double e, v;
    char name[64];
    pair_name(i, j, name, sizeof name);
    int has_law = cr_model_pair_law(r->model, i, j, &cp) == CR_OK;
    k->eps = r->restitution;
    k->K = has_law ? cp.K : 0.0;
    k->n = has_law ? cp.n : 0.0;
    if (cr_rigid_law_uses_restitution(r->law) && isnan(k->eps)) {
        if (cr_model_default_target(r->model, &e, &v))
            k->eps = e;
        else if (has_law && cp.C == 0.0)
            k->eps = 1.0;
        else {
            cr_set_msg(msg, msglen,
                       "%s: the pair law is damped (C = %g) without a restitution target: its "
                       "restitution is not known without a compliant run; give one "
                       "(--restitution E)",
                       name, has_law ? cp.C : NAN);
            return CR_ERR_INVALID;
        }
    }
    if (r->law == CR_LAW_LZB && !(k->K > 0.0 && k->n >= 1.0 && k->n <= 10.0)) {
        cr_set_msg(msg, msglen,
                   "lzb: %s have no contact law with K > 0 and n in [1, 10] for LZB's pair laws",
                   name);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* Every pair a run may meet gets its parameters now, so a run never stops on
 * a missing one: O(N²) pair laws, as the run's own cost. */
static int check_pairs(const cr_rigid_pool *r, char *msg, size_t msglen)
{
    cr_rp_contact k;
    for (size_t i = 0; i < r->drv.nb; i++) {
        for (size_t j = i + 1; j < r->drv.nb; j++)
            if (pair_params(r, i, (long)j, &k, msg, msglen) != CR_OK)
                return CR_ERR_INVALID;
        for (size_t w = 0; w < r->nw; w++)
            if (pair_params(r, i, CR_WALL_BODY(w), &k, msg, msglen) != CR_OK)
                return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* The law and its parameters (documented in system.h). */
static int set_law(cr_rigid_pool *r, cr_law_id law, const cr_law_params *p, char *msg,
                   size_t msglen)
{
    cr_law_params given;
    if (cr_rigid_law_take(law, p, &given, &r->lp, msg, msglen) != CR_OK)
        return CR_ERR_INVALID;
    p = &given;
    r->law = law;
    r->restitution = p->restitutions ? NAN : p->restitution;
    if (cr_rigid_law_uses_restitution(law) && !isnan(r->restitution) &&
        !(r->restitution >= 0.0 && r->restitution <= 1.0)) {
        cr_set_msg(msg, msglen, "restitution must lie in [0, 1] (got %g)", r->restitution);
        return CR_ERR_INVALID;
    }
    if (law == CR_LAW_ENERGETIC) {
        if (!p->alpha || !(p->kappa > 0.0 && isfinite(p->kappa)) || !(p->alpha[0] > 0.0) ||
            !isfinite(p->alpha[0]) || !(p->alpha[1] >= 0.0 && isfinite(p->alpha[1]))) {
            cr_set_msg(msg, msglen,
                       "energetic on a pool: needs kappa > 0 and two impulse weights alpha "
                       "(approaching contacts > 0, touching ones >= 0; 001 eq. 17-18)");
            return CR_ERR_INVALID;
        }
        r->alpha_hit = p->alpha[0];
        r->alpha_touch = p->alpha[1];
    }
    return check_pairs(r, msg, msglen);
}

void *cr_rigid_pool_create(const cr_model *model, cr_system *sys, cr_law_id law,
                           const cr_law_params *p, char *msg, size_t msglen)
{
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    for (size_t i = 0; i < cr_model_body_count(model); i++)
        if (cr_model_is_fixed(model, i)) { /* the compliant pool engine runs them */
            cr_set_msg(msg, msglen,
                       "body %zu is fixed: rigid pools have half-plane walls, not fixed discs", i);
            return NULL;
        }
    cr_rigid_pool *r = calloc(1, sizeof(*r));
    if (!r || !(r->model = cr_model_copy(model))) {
        free(r);
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    cr_rigid_driver_init(&r->drv, sys, &pool_geometry);
    r->drv.nb = cr_model_ball_count(model);
    r->nw = cr_model_plane_count(model);
    if (alloc_arrays(r) != CR_OK) {
        cr_set_msg(msg, msglen, "out of memory");
        rp_destroy(r);
        return NULL;
    }
    cr_rigid_driver_set_bodies(&r->drv, 2, r->mass, r->radius, NULL, r->v);
    copy_model(r, model);
    choose_scales(r);
    if (set_law(r, law, p, msg, msglen) != CR_OK) {
        rp_destroy(r);
        return NULL;
    }
    /* discs resting at the start: a stack is refused here, before any output */
    if (cr_rp_settle(r) != CR_OK) {
        cr_set_msg(msg, msglen, "%s", r->drv.err);
        rp_destroy(r);
        return NULL;
    }
    return r;
}

static void describe_pool_law(const cr_rigid_pool *r, char *buf, size_t len);

/* The law, and after a run the gaps its impacts closed. */
void cr_rigid_pool_describe(const void *e, char *buf, size_t len)
{
    const cr_rigid_pool *r = e;
    describe_pool_law(r, buf, len);
    size_t used = strlen(buf);
    if (r->gaps_closed && used + 1 < len)
        snprintf(buf + used, len - used,
                 "; %zu gap%s within %g delta* closed for the law (widest %.3g delta*)",
                 r->gaps_closed, r->gaps_closed == 1 ? "" : "s", r->touching, r->gap_closed_max);
}

static void describe_pool_law(const cr_rigid_pool *r, char *buf, size_t len)
{
    if (r->law == CR_LAW_ENERGETIC)
        cr_set_msg(buf, len,
                   "energetic (kappa %.9g, alpha %.9g on approaching contacts, %.9g on touching "
                   "ones)",
                   r->lp.kappa, r->alpha_hit, r->alpha_touch);
    else if (!cr_rigid_law_uses_restitution(r->law))
        cr_set_msg(buf, len, "%s", cr_law_name(r->law));
    else if (!isnan(r->restitution))
        cr_set_msg(buf, len, "%s (%srestitution %.9g)", cr_law_name(r->law),
                   r->law == CR_LAW_LZB ? "energetic " : "", r->restitution);
    else if (r->law == CR_LAW_LZB)
        cr_set_msg(buf, len, "lzb (energetic restitution, K and n of each pair law)");
    else
        cr_set_msg(buf, len, "%s (restitution of each pair law)", cr_law_name(r->law));
}

/* Per-impact parameters are per model pair (system.h): a pool's contacts are
 * made during the run, so a provider has no pairs to name. */
int cr_rigid_pool_set_provider(void *e, cr_rigid_provider fn, void *user, const char *label)
{
    cr_rigid_pool *r = e;
    (void)fn, (void)user, (void)label;
    cr_set_msg(r->drv.err, sizeof r->drv.err,
               "per-impact law parameters (calibrated runs) take model pairs: a pool has none");
    return CR_ERR_INVALID;
}

/* ---- contacts and events --------------------------------------------------- */

static int note_body_contact(cr_rigid_pool *r, size_t i, size_t k)
{
    if (r->nbc[i] == r->bccap[i]) {
        size_t cap = r->bccap[i] ? 2 * r->bccap[i] : 4;
        size_t *p = realloc(r->bc[i], cap * sizeof(size_t));
        if (!p)
            return CR_ERR_NOMEM;
        r->bc[i] = p;
        r->bccap[i] = cap;
    }
    r->bc[i][r->nbc[i]++] = k;
    return CR_OK;
}

long cr_rp_contact_id(cr_rigid_pool *r, size_t i, long j)
{
    for (size_t a = 0; a < r->nbc[i]; a++) {
        const cr_rp_contact *k = &r->c[r->bc[i][a]];
        if ((k->i == i && k->j == j) || (j >= 0 && k->i == (size_t)j && k->j == (long)i))
            return (long)r->bc[i][a];
    }
    if (j >= 0 && (size_t)j < i) {
        size_t t = (size_t)j;
        j = (long)i;
        i = t;
    }
    if (r->nc == r->ccap) {
        size_t cap = r->ccap ? 2 * r->ccap : 16;
        cr_rp_contact *c = realloc(r->c, cap * sizeof(*c));
        if (!c) {
            cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
            return -1;
        }
        r->c = c;
        r->ccap = cap;
    }
    cr_rp_contact *k = &r->c[r->nc];
    memset(k, 0, sizeof(*k));
    k->i = i;
    k->j = j;
    if (pair_params(r, i, j, k, r->drv.err, sizeof r->drv.err) != CR_OK)
        return -1;
    if (note_body_contact(r, i, r->nc) != CR_OK ||
        (j >= 0 && note_body_contact(r, (size_t)j, r->nc) != CR_OK)) {
        cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory at t = %.9g s", r->drv.t);
        return -1;
    }
    return (long)r->nc++;
}

int cr_rp_push_event(cr_rigid_pool *r, size_t k, cr_event_kind kind)
{
    cr_event *e = cr_rigid_driver_event(&r->drv);
    if (!e)
        return CR_ERR_NOMEM;
    double gap, n[2], gamma;
    cr_rp_geometry(r, r->c[k].i, r->c[k].j, &gap, n, &gamma);
    *e = (cr_event){r->drv.t, k, kind, -gap, -gamma, 0.0, r->c[k].P};
    return CR_OK;
}

/* ---- getters ---------------------------------------------------------------- */

#define RP(e) ((const cr_rigid_pool *)(e))

static size_t rp_nw(const void *e)
{
    return RP(e)->nw;
}

static int rp_wall(const void *e, size_t w, double *n, double *o)
{
    const cr_rigid_pool *r = e;
    if (w >= r->nw)
        return CR_ERR_INVALID;
    if (n) {
        n[0] = r->wn[2 * w];
        n[1] = r->wn[2 * w + 1];
    }
    if (o)
        *o = r->wo[w];
    return CR_OK;
}

static void rp_positions(const void *e, double *x)
{
    memcpy(x, RP(e)->p, 2 * RP(e)->drv.nb * sizeof(double));
}

static size_t rp_nc(const void *e)
{
    return RP(e)->nc;
}

/* Loaded: a resting disc's wall carrying a force; touching: within ε_geom;
 * settled: not approaching (a resting contact is at rest under its load). */
static int rp_contact(const void *e, size_t k, cr_contact_view *w)
{
    const cr_rigid_pool *r = e;
    if (k >= r->nc)
        return CR_ERR_INVALID;
    const cr_rp_contact *c = &r->c[k];
    double gap, n[2], gamma;
    cr_rp_geometry(r, c->i, c->j, &gap, n, &gamma);
    memset(w, 0, sizeof(*w));
    w->body_a = c->i;
    w->body_b = c->j;
    w->unilateral = 1;
    w->overlap = -gap;
    w->rate = -gamma;
    w->force = c->closed ? c->lambda : 0.0;
    if (c->closed && c->lambda > 0.0)
        w->state = CR_CONTACT_LOADED;
    else if (gap <= cr_rp_tolerance(r, c->i, c->j) || c->joined)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    w->settled = gamma >= -r->drv.v_rest;
    w->impulse = c->P;
    w->normal[0] = n[0];
    w->normal[1] = n[1];
    w->vector_impulse[0] = c->Pv[0];
    w->vector_impulse[1] = c->Pv[1];
    return CR_OK;
}

static const size_t *rp_body_contacts(const void *e, size_t i, size_t *n)
{
    *n = RP(e)->nbc[i];
    return *n ? RP(e)->bc[i] : NULL;
}

static double rp_kinetic(const void *e)
{
    const cr_rigid_pool *r = e;
    double T = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++)
        T += 0.5 * r->mass[i] * (r->v[2 * i] * r->v[2 * i] + r->v[2 * i + 1] * r->v[2 * i + 1]);
    return T;
}

/* The field's potential −m g·p, zero at the origin as for the compliant pool;
 * rigid contacts store no elastic energy. */
static double rp_potential(const void *e)
{
    const cr_rigid_pool *r = e;
    double U = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++)
        U -= r->mass[i] * (r->g[0] * r->p[2 * i] + r->g[1] * r->p[2 * i + 1]);
    return U;
}

static double rp_field_work(const void *e, size_t i, const double *x0, const double *x1)
{
    const cr_rigid_pool *r = e;
    return cr_field_work(r->mass[i], r->g, 2, 0.0, 0.0, 0.0, x0, x1);
}

static void rp_momentum(const void *e, double *p)
{
    const cr_rigid_pool *r = e;
    p[0] = p[1] = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++) {
        p[0] += r->mass[i] * r->v[2 * i];
        p[1] += r->mass[i] * r->v[2 * i + 1];
    }
}

const cr_engine_ops cr_rigid_pool_engine = {
    .name = "rigid",
    CR_RIGID_DRIVER_OPS,
    .destroy = rp_destroy,
    .dim = 2,
    .contacts_fixed = 0,
    .wall_count = rp_nw,
    .wall = rp_wall,
    .positions = rp_positions,
    .contact_count = rp_nc,
    .contact = rp_contact,
    .body_contacts = rp_body_contacts,
    .kinetic_energy = rp_kinetic,
    .potential_energy = rp_potential,
    .field_work = rp_field_work,
    .momentum = rp_momentum,
    .stats = cr_rigid_driver_stats,
    .rigid_describe = cr_rigid_pool_describe,
    .rigid_set_provider = cr_rigid_pool_set_provider,
};
