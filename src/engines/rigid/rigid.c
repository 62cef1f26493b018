/*
 * The rigid engine: a chain model run as rigid balls, event-driven, under any
 * law of the core (docs/design.md, "Rigid engine"). This file: the model copy
 * and what a rigid run refuses, the law's per-pair parameters, the chain's
 * callbacks for the shared driver (rigid-driver.c: the run loop, the events,
 * the common getters), the chain's getters and the ops table. Free flight and
 * persistent contacts are in rigid-flight.c, impacts in rigid-impact.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "engines/rigid/rigid-law-priv.h"
#include "engines/rigid/rigid-priv.h"

/* ---- the geometry the driver calls (rigid-driver-priv.h) -------------------- */

/* Nothing approaches: without fields no impact can come any more. */
static int nothing_approaches(const void *e)
{
    const cr_rigid *r = e;
    for (size_t c = 0; c < r->nc; c++)
        if (r->on[c] && cr_rigid_gamma(r, c) < -r->drv.v_rest)
            return 0;
    return 1;
}

/* The automatic end's safety cap under air drag alone (0 under gravity or
 * pendulums: refused): the free chain's, or 50 relaxation times m/b of the
 * least damped ball, or under quadratic drag alone the time to cross twice
 * the largest gap from the speed V (the compliant chain's, sim-run.c). */
static double drag_cap(const void *e)
{
    const cr_rigid *r = e;
    if (r->gravity != 0.0 || r->pendulums)
        return 0.0;
    double gap = 0.0, V = r->drv.V, T = r->drv.T;
    for (size_t c = 0; c < r->nc; c++)
        gap = fmax(gap, r->g0[c]);
    double cap = 2.0 * gap / V + 1e6 * T;
    for (size_t i = 0; i < r->drv.nb; i++) {
        double kb = r->drag_kb[i], kc = r->drag_kc[i];
        if (kb > 0.0)
            cap = fmax(cap, 2.0 * gap / V + 50.0 / kb + 1e6 * T);
        else if (kc > 0.0)
            cap = fmax(cap, expm1(fmin(2.0 * kc * gap, 50.0)) / (kc * V) + 1e6 * T);
    }
    return cap;
}

/* No pair can meet again under drag (cr_drag_pair_parts). */
static int drag_parted(const void *e)
{
    const cr_rigid *r = e;
    for (size_t c = 0; c < r->nc; c++)
        if (r->on[c] &&
            !cr_drag_pair_parts(cr_rigid_gap(r, c), r->v[c], r->drag_kb[c], r->drag_kc[c],
                                r->v[c + 1], r->drag_kb[c + 1], r->drag_kc[c + 1]))
            return 0;
    return 1;
}

/* Before the first row: touching bodies at rest from the start are closed,
 * without events (as the chain engine). */
static int rigid_start(void *e)
{
    cr_rigid *r = e;
    cr_rigid_forces(r, r->d, r->acc, r->lambda);
    return cr_rigid_settle(r);
}

static int rigid_resolve(void *e, size_t *n)
{
    return cr_rigid_resolve(e, n);
}

static int rigid_settle(void *e)
{
    return cr_rigid_settle(e);
}

static int rigid_fly(void *e, double t_target, int *hit)
{
    return cr_rigid_fly(e, t_target, hit);
}

static double rigid_next_closing(void *e, double horizon)
{
    return cr_rigid_next_closing(e, horizon);
}

static void rigid_advance(void *e, double s)
{
    cr_rigid_advance(e, s);
}

static const cr_rigid_geometry chain_geometry = {
    .auto_end_refusal = "an automatic end needs a free chain, or air drag alone: with gravity "
                        "or pendulums give an end time",
    .start = rigid_start,
    .resolve = rigid_resolve,
    .settle = rigid_settle,
    .fly = rigid_fly,
    .next_closing = rigid_next_closing,
    .advance = rigid_advance,
    .nothing_approaches = nothing_approaches,
    .drag_cap = drag_cap,
    .drag_parted = drag_parted,
};

/* ---- create / destroy ---------------------------------------------------- */

static void rigid_destroy(void *e)
{
    cr_rigid *r = e;
    if (!r)
        return;
    cr_rigid_flight_free(r);
    cr_rigid_driver_free(&r->drv);
    double *arrays[] = {r->mass,    r->radius, r->x0,      r->g0,      r->tol,     r->pivot,
                        r->plength, r->pg,     r->eps,     r->alpha,   r->eta,     r->d,
                        r->v,       r->lambda, r->impulse, r->acc,     r->work,    r->work2,
                        r->fa,      r->lzb_k,  r->lzb_n,   r->dstar_a, r->dstar_e, r->drag_kb,
                        r->drag_kc, r->work3};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(r->fixed);
    free(r->clamps);
    free(r->on);
    free(r->closed);
    free(r->released);
    free(r->joined);
    free(r->settle_set);
    free(r->fields);
    free(r->contacts_of);
    free(r);
}

static int alloc_arrays(cr_rigid *r)
{
    size_t nb = r->drv.nb ? r->drv.nb : 1, nc = r->nc ? r->nc : 1;
    double **per_body[] = {&r->mass,  &r->radius, &r->x0,      &r->pivot,   &r->plength,
                           &r->pg,    &r->d,      &r->v,       &r->acc,     &r->work,
                           &r->work2, &r->fa,     &r->drag_kb, &r->drag_kc, &r->work3};
    double **per_pair[] = {&r->g0,     &r->tol,     &r->eps,     &r->alpha,
                           &r->lambda, &r->impulse, &r->dstar_a, &r->dstar_e};
    for (size_t k = 0; k < sizeof per_body / sizeof per_body[0]; k++)
        if (!(*per_body[k] = calloc(nb, sizeof(double))))
            return CR_ERR_NOMEM;
    for (size_t k = 0; k < sizeof per_pair / sizeof per_pair[0]; k++)
        if (!(*per_pair[k] = calloc(nc, sizeof(double))))
            return CR_ERR_NOMEM;
    r->fixed = calloc(nb, sizeof(int));
    r->on = calloc(nc, sizeof(int));
    r->closed = calloc(nc, sizeof(int));
    r->released = calloc(nc, sizeof(int));
    r->joined = calloc(nc, sizeof(int));
    r->settle_set = calloc(nc, sizeof(int));
    r->fields = calloc(3 * nb + 1, sizeof(double));
    r->contacts_of = malloc(2 * nc * sizeof(size_t));
    if (!r->fixed || !r->on || !r->closed || !r->released || !r->joined || !r->settle_set ||
        !r->fields || !r->contacts_of)
        return CR_ERR_NOMEM;
    return CR_OK;
}

/* What a rigid run cannot represent, named. */
static int refuse_features(const cr_model *model, char *msg, size_t msglen)
{
    if (cr_model_dimension(model) != 1) {
        cr_set_msg(msg, msglen,
                   "the chain's rigid engine takes dim 1 (got %d; pools: rigid-pool.c)",
                   cr_model_dimension(model));
        return CR_ERR_INVALID;
    }
    for (size_t c = 0; c < cr_model_contact_count(model); c++) {
        const cr_link *l = cr_model_link(model, c);
        if (l) {
            cr_set_msg(msg, msglen,
                       "links: pair %zu (bodies %zu-%zu) is a bilateral spring of finite "
                       "stiffness (k = %g N/m), which is not rigid: a rigid run cannot represent "
                       "it (rods and linked chains run compliant)",
                       c, c, c + 1, l->k);
            return CR_ERR_INVALID;
        }
    }
    return CR_OK;
}

/* δ*_c(V) = ((n+1) μ V² / (2K))^(1/(n+1)) of pair c, as a coefficient and an
 * exponent of V: the largest overlap the pair's law reaches in a two-body
 * impact at approach speed V (undamped; damping only lowers it). */
static void compression_scale(cr_rigid *r, const cr_model *model, size_t c)
{
    cr_contact_params p;
    r->dstar_a[c] = r->dstar_e[c] = 0.0;
    if (!r->on[c] || cr_model_pair_law(model, c, (long)c + 1, &p) != CR_OK || !(p.K > 0.0) ||
        !(p.n > 0.0))
        return;
    double ma = r->fixed[c] ? INFINITY : r->mass[c],
           mb = r->fixed[c + 1] ? INFINITY : r->mass[c + 1];
    double mu = isinf(ma) ? mb : (isinf(mb) ? ma : ma * mb / (ma + mb));
    if (!isfinite(mu))
        return;
    r->dstar_a[c] = pow((p.n + 1.0) * mu / (2.0 * p.K), 1.0 / (p.n + 1.0));
    r->dstar_e[c] = 2.0 / (p.n + 1.0);
}

static void copy_model(cr_rigid *r, const cr_model *model)
{
    r->gravity = cr_model_gravity(model);
    r->drv.fields = cr_model_has_fields(model);
    /* read once: a getenv at every flight was 2 % of a pendulum run */
    r->flight_cvodes = cr_switch_rigid_flight_cvodes();
    for (size_t i = 0; i < r->drv.nb; i++) {
        r->fixed[i] = cr_model_is_fixed(model, i);
        r->mass[i] = cr_model_mass(model, i);
        r->radius[i] = cr_model_radius(model, i);
        r->x0[i] = cr_model_position(model, i);
        r->v[i] = r->fixed[i] ? 0.0 : cr_model_velocity(model, i);
        cr_model_pendulum(model, i, &r->pivot[i], &r->plength[i], &r->pg[i]);
        r->pendulums |= r->plength[i] > 0.0 && !r->fixed[i];
        double b, c;
        if (cr_model_drag(model, i, &b, &c)) {
            r->drag_kb[i] = b / r->mass[i];
            r->drag_kc[i] = c / r->mass[i];
            r->drag = 1;
        }
    }
    for (size_t c = 0; c < r->nc; c++) {
        r->on[c] = cr_model_contact_enabled(model, c);
        r->g0[c] = -cr_model_initial_overlap(model, c);
        double rmin = r->fixed[c]
                          ? r->radius[c + 1]
                          : (r->fixed[c + 1] ? r->radius[c] : fmin(r->radius[c], r->radius[c + 1]));
        r->tol[c] = CR_GEOM_TOL * rmin;
        r->contacts_of[2 * c] = r->contacts_of[2 * c + 1] = c;
        compression_scale(r, model, c);
    }
    const cr_settings *s = cr_model_settings(model);
    r->touching = s->rigid_touching;
    r->rtol = s->rtol;
    r->atol = s->atol;
    r->drv.out_interval = s->output_interval;
    r->drv.out_every = s->output_every;
    r->drv.out_none = s->output_omit == CR_OUT_ALL;
    snprintf(r->drv.out_where, sizeof r->drv.out_where, "%s", cr_model_interval_where(model));
}

/* The chain engine's speed scale (largest initial relative speed, else the
 * speed a field gives), the smallest radius as length, the field and mass
 * scales of the persistent-contact tolerances. */
static void choose_scales(cr_rigid *r)
{
    double vmin = INFINITY, vmax = -INFINITY, rmin = INFINITY, lmax = 0.0;
    r->amax = fabs(r->gravity);
    for (size_t i = 0; i < r->drv.nb; i++) {
        vmin = fmin(vmin, r->v[i]);
        vmax = fmax(vmax, r->v[i]);
        if (r->fixed[i])
            continue;
        rmin = fmin(rmin, r->radius[i]);
        r->mmax = fmax(r->mmax, r->mass[i]);
        if (r->plength[i] > 0.0) {
            r->amax = fmax(r->amax, r->pg[i]);
            lmax = fmax(lmax, r->plength[i]);
        }
    }
    if (!isfinite(rmin)) {
        rmin = 1.0;
        r->mmax = 1.0;
    }
    cr_rigid_driver_set_scales(
        &r->drv, rmin,
        vmax > vmin ? vmax - vmin : (r->amax > 0.0 ? sqrt(r->amax * fmax(lmax, rmin)) : 1.0));
    for (size_t i = 0; i < r->drv.nb; i++) /* drag at the speed scale */
        r->amax = fmax(r->amax, (r->drag_kb[i] + r->drag_kc[i] * r->drv.V) * r->drv.V);
    r->a_tol = CR_RIGID_ACCEL_FRACTION * r->amax;
    r->f_tol = CR_RIGID_RELEASE_FRACTION * r->mmax * r->amax;
}

/* Restitution of pair c from its law: 1 for an undamped law (a two-body
 * collision keeps its energy), the model's target where it gives one. A damped
 * law without a target has a restitution that depends on the impact speed:
 * not known without a compliant run. */
static int pair_restitution(const cr_model *model, size_t c, double *e, char *msg, size_t msglen)
{
    double v;
    cr_contact_params p;
    if (cr_model_contact_target(model, c, e, &v))
        return CR_OK;
    if (cr_model_pair_law(model, c, (long)c + 1, &p) == CR_OK && p.C == 0.0) {
        *e = 1.0;
        return CR_OK;
    }
    cr_set_msg(msg, msglen,
               "pair %zu (bodies %zu-%zu) is damped (C = %g) without a restitution target: its "
               "restitution is not known without a compliant run; give one (--restitution E)",
               c, c, c + 1, p.C);
    return CR_ERR_INVALID;
}

static int set_restitutions(cr_rigid *r, const cr_model *model, const cr_law_params *p, char *msg,
                            size_t msglen)
{
    for (size_t c = 0; c < r->nc; c++) {
        double e = p->restitutions ? p->restitutions[c] : p->restitution;
        if (!p->restitutions && isnan(e) && r->on[c] &&
            pair_restitution(model, c, &e, msg, msglen) != CR_OK)
            return CR_ERR_INVALID;
        if (r->on[c] && !(e >= 0.0 && e <= 1.0)) {
            cr_set_msg(msg, msglen, "restitution of pair %zu must lie in [0, 1] (got %g)", c, e);
            return CR_ERR_INVALID;
        }
        r->eps[c] = r->on[c] ? e : 0.0;
    }
    return CR_OK;
}

/* LZB's pair laws: K and n of each pair's contact law, as the compliant run
 * uses them (its eⱼ are the restitutions above). The core takes n in [1, 10]
 * and K > 0: a pair law outside is refused here, naming the pair. */
static int set_lzb(cr_rigid *r, const cr_model *model, char *msg, size_t msglen)
{
    size_t nc = r->nc ? r->nc : 1;
    r->lzb_k = calloc(nc, sizeof(double));
    r->lzb_n = calloc(nc, sizeof(double));
    if (!r->lzb_k || !r->lzb_n)
        return CR_ERR_NOMEM;
    for (size_t c = 0; c < r->nc; c++) {
        cr_contact_params cp;
        r->lzb_k[c] = 1.0;
        r->lzb_n[c] = 1.5;
        if (!r->on[c])
            continue;
        if (cr_model_pair_law(model, c, (long)c + 1, &cp) != CR_OK || !(cp.K > 0.0) ||
            !(cp.n >= 1.0 && cp.n <= 10.0)) {
            cr_set_msg(msg, msglen,
                       "lzb: pair %zu (bodies %zu-%zu) has no contact law with K > 0 and n in "
                       "[1, 10] for LZB's pair laws",
                       c, c, c + 1);
            return CR_ERR_INVALID;
        }
        r->lzb_k[c] = cp.K;
        r->lzb_n[c] = cp.n;
    }
    return CR_OK;
}

/* The law and its per-pair parameters (documented in system.h). */
static int set_law(cr_rigid *r, const cr_model *model, cr_law_id law, const cr_law_params *p,
                   char *msg, size_t msglen)
{
    cr_law_params given;
    if (cr_rigid_law_take(law, p, &given, &r->lp, msg, msglen) != CR_OK)
        return CR_ERR_INVALID;
    p = &given;
    r->law = law;
    if (cr_rigid_law_uses_restitution(law) && set_restitutions(r, model, p, msg, msglen) != CR_OK)
        return CR_ERR_INVALID;
    if (law == CR_LAW_ENERGETIC) {
        if (!p->alpha || !(p->kappa > 0.0 && isfinite(p->kappa))) {
            cr_set_msg(msg, msglen,
                       "energetic: needs kappa > 0 and one impulse weight alpha per pair (001 "
                       "eq. 17-18); got %s",
                       p->alpha ? "a bad kappa" : "no alpha");
            return CR_ERR_INVALID;
        }
        for (size_t c = 0; c < r->nc; c++) {
            if (!(p->alpha[c] >= 0.0 && isfinite(p->alpha[c]))) {
                cr_set_msg(msg, msglen,
                           "energetic: alpha of pair %zu must be finite and >= 0 "
                           "(got %g)",
                           c, p->alpha[c]);
                return CR_ERR_INVALID;
            }
            r->alpha[c] = p->alpha[c];
        }
    }
    if (law == CR_LAW_LZB && set_lzb(r, model, msg, msglen) != CR_OK)
        return CR_ERR_INVALID;
    if (law == CR_LAW_MOSTERMAN && p->eta) {
        if (!(r->eta = malloc((r->nc ? r->nc : 1) * sizeof(double))))
            return CR_ERR_NOMEM;
        memcpy(r->eta, p->eta, r->nc * sizeof(double));
    }
    return CR_OK;
}

void *cr_rigid_create(const cr_model *model, cr_system *sys, cr_law_id law, const cr_law_params *p,
                      char *msg, size_t msglen)
{
    if (cr_model_validate(model, msg, msglen) != CR_OK ||
        refuse_features(model, msg, msglen) != CR_OK)
        return NULL;
    cr_rigid *r = calloc(1, sizeof(*r));
    if (!r) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    cr_rigid_driver_init(&r->drv, sys, &chain_geometry);
    r->drv.nb = cr_model_ball_count(model);
    r->nc = cr_model_contact_count(model);
    if (alloc_arrays(r) != CR_OK) {
        cr_set_msg(msg, msglen, "out of memory");
        rigid_destroy(r);
        return NULL;
    }
    cr_rigid_driver_set_bodies(&r->drv, 1, r->mass, r->radius, r->fixed, r->v);
    copy_model(r, model);
    choose_scales(r);
    if (set_law(r, model, law, p, msg, msglen) != CR_OK) {
        rigid_destroy(r);
        return NULL;
    }
    return r;
}

/* ", v0, v1, …" of @p n values after @p used characters of @p buf. */
static void append_list(char *buf, size_t len, const double *v, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        size_t used = strlen(buf);
        if (used + 2 >= len)
            return;
        snprintf(buf + used, len - used, "%s%.9g", c ? ", " : "", v[c]);
    }
}

static void describe_law(const cr_rigid *r, char *buf, size_t len);

size_t cr_rigid_fallbacks(const void *e)
{
    const cr_rigid *r = e;
    size_t fb = 0;
    for (size_t k = 0; k < r->nclamps; k++)
        fb += r->clamps[k].fallback != 0;
    return fb;
}

/* The law, and after a run the impacts whose κ was raised. */
void cr_rigid_describe(const void *e, char *buf, size_t len)
{
    const cr_rigid *r = e;
    describe_law(r, buf, len);
    size_t used = strlen(buf), fb = cr_rigid_fallbacks(r);
    if (r->gaps_closed && used + 1 < len)
        used += (size_t)snprintf(buf + used, len - used,
                                 "; %zu gap%s within %g delta* closed for the law (widest %.3g "
                                 "delta*)",
                                 r->gaps_closed, r->gaps_closed == 1 ? "" : "s", r->touching,
                                 r->gap_closed_max);
    if (r->gaps_moved && used + 1 < len)
        used +=
            (size_t)snprintf(buf + used, len - used,
                             "; %zu gap%s of a collision's bodies closed by moving them (widest "
                             "%.3g m)",
                             r->gaps_moved, r->gaps_moved == 1 ? "" : "s", r->moved_max);
    if (r->nclamps - fb && used + 1 < len)
        used += (size_t)snprintf(buf + used, len - used,
                                 "; kappa raised to the impact's feasible minimum at %zu impact%s",
                                 r->nclamps - fb, r->nclamps - fb == 1 ? "" : "s");
    if (fb && used + 1 < len)
        snprintf(buf + used, len - used,
                 "; %zu impact%s where no kappa <= 1 fits alpha resolved by max-dissipation", fb,
                 fb == 1 ? "" : "s");
}

static void describe_law(const cr_rigid *r, char *buf, size_t len)
{
    int one = 1, same_n = 1;
    for (size_t c = 1; c < r->nc; c++)
        one &= r->eps[c] == r->eps[0];
    for (size_t c = 1; r->lzb_n && c < r->nc; c++)
        same_n &= r->lzb_n[c] == r->lzb_n[0] && r->lzb_k[c] == r->lzb_k[0];
    char list[512] = "";
    if (r->provider && r->provider_label[0]) {
        cr_set_msg(buf, len, "%s (%s)", cr_law_name(r->law), r->provider_label);
        return;
    }
    if (r->law == CR_LAW_ENERGETIC) {
        append_list(list, sizeof list, r->alpha, r->nc);
        cr_set_msg(buf, len, "energetic (kappa %.9g, alpha per pair: %s)", r->lp.kappa, list);
        return;
    }
    if (!cr_rigid_law_uses_restitution(r->law)) {
        cr_set_msg(buf, len, "%s", cr_law_name(r->law));
        return;
    }
    const char *what = r->law == CR_LAW_LZB ? "energetic restitution" : "restitution";
    if (one && r->nc > 0)
        snprintf(list, sizeof list, "%s %.9g", what, r->eps[0]);
    else {
        snprintf(list, sizeof list, "%s per pair: ", what);
        append_list(list, sizeof list, r->eps, r->nc);
    }
    if (r->law == CR_LAW_LZB && same_n && r->nc > 0)
        cr_set_msg(buf, len, "lzb (%s; pair laws K = %.9g, n = %.9g)", list, r->lzb_k[0],
                   r->lzb_n[0]);
    else if (r->law == CR_LAW_LZB)
        cr_set_msg(buf, len, "lzb (%s; K, n of each pair's law)", list);
    else
        cr_set_msg(buf, len, "%s (%s)", cr_law_name(r->law), list);
}

int cr_rigid_set_provider(void *e, cr_rigid_provider fn, void *user, const char *label)
{
    cr_rigid *r = e;
    /* after the run, the same provider may only say what it did (its label) */
    CR_CHECK(!r->drv.ran || (fn == r->provider && user == r->provider_user), r->drv.err,
             CR_ERR_INVALID);
    r->provider = fn;
    r->provider_user = user;
    snprintf(r->provider_label, sizeof r->provider_label, "%s", label ? label : "");
    return CR_OK;
}

int cr_rigid_set_span(void *e, cr_rigid_span fn, void *user)
{
    cr_rigid *r = e;
    CR_CHECK(!r->drv.ran, r->drv.err, CR_ERR_INVALID);
    r->span = fn;
    r->span_user = user;
    return CR_OK;
}

int cr_rigid_set_clamp(void *e, int on)
{
    cr_rigid *r = e;
    CR_CHECK(!r->drv.ran && r->law == CR_LAW_ENERGETIC, r->drv.err, CR_ERR_INVALID);
    r->clamp = on != 0;
    return CR_OK;
}

const cr_kappa_clamp *cr_rigid_clamps(const void *e, size_t *n, int *on)
{
    const cr_rigid *r = e;
    if (n)
        *n = r->nclamps;
    if (on)
        *on = r->clamp;
    return r->nclamps ? r->clamps : NULL;
}

/* ---- events ------------------------------------------------------------------ */

int cr_rigid_push_event(cr_rigid *r, size_t c, cr_event_kind kind, double force, double impulse)
{
    cr_event *e = cr_rigid_driver_event(&r->drv);
    if (!e)
        return CR_ERR_NOMEM;
    *e = (cr_event){r->drv.t, c, kind, -cr_rigid_gap(r, c), -cr_rigid_gamma(r, c), force, impulse};
    return CR_OK;
}

/* ---- getters ---------------------------------------------------------------- */

#define RG(e) ((const cr_rigid *)(e))

static size_t rigid_no_walls(const void *e)
{
    (void)e;
    return 0;
}

static int rigid_wall(const void *e, size_t w, double *n, double *o)
{
    (void)e, (void)w, (void)n, (void)o;
    return CR_ERR_INVALID;
}

static void rigid_positions(const void *e, double *x)
{
    const cr_rigid *r = e;
    for (size_t i = 0; i < r->drv.nb; i++)
        x[i] = r->x0[i] + (r->fixed[i] ? 0.0 : r->d[i]);
}

static size_t rigid_nc(const void *e)
{
    return RG(e)->nc;
}

/* Loaded: a persistent contact carrying a force; touching: in touch without
 * one; settled: not approaching (between impacts a rigid contact is always
 * settled: a persistent contact is at rest under its load). */
static int rigid_contact(const void *e, size_t c, cr_contact_view *w)
{
    const cr_rigid *r = e;
    memset(w, 0, sizeof(*w));
    w->body_a = c;
    w->body_b = (long)c + 1;
    w->unilateral = r->on[c];
    w->overlap = -cr_rigid_gap(r, c);
    w->rate = -cr_rigid_gamma(r, c);
    w->force = r->closed[c] && r->lambda[c] > 0.0 ? r->lambda[c] : 0.0;
    if (r->on[c] && r->closed[c] && r->lambda[c] > r->f_tol)
        w->state = CR_CONTACT_LOADED;
    else if (r->on[c] && (-w->overlap <= r->tol[c] || r->joined[c]))
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    w->settled = !r->on[c] || cr_rigid_gamma(r, c) >= -r->drv.v_rest;
    w->impulse = r->impulse[c];
    w->normal[0] = 1.0;
    w->vector_impulse[0] = w->impulse;
    return CR_OK;
}

static const size_t *rigid_body_contacts(const void *e, size_t i, size_t *n)
{
    size_t nc = RG(e)->nc;
    *n = (i > 0 && i - 1 < nc) + (i < nc);
    return *n ? RG(e)->contacts_of + (i > 0 ? 2 * i - 1 : 0) : NULL;
}

static double rigid_kinetic(const void *e)
{
    const cr_rigid *r = e;
    double T = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++)
        T += r->fixed[i] ? 0.0 : 0.5 * r->mass[i] * r->v[i] * r->v[i];
    return T;
}

/* Field potentials only: rigid contacts store no elastic energy. */
static double rigid_potential(const void *e)
{
    const cr_rigid *r = e;
    double U = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++) {
        if (r->fixed[i])
            continue;
        double x = r->x0[i] + r->d[i];
        U -= r->mass[i] * r->gravity * x;
        if (r->plength[i] > 0.0)
            U += r->mass[i] * r->pg[i] * r->plength[i] *
                 (1.0 - cos((x - r->pivot[i]) / r->plength[i]));
    }
    return U;
}

static double rigid_field_work(const void *e, size_t i, const double *x0, const double *x1)
{
    const cr_rigid *r = e;
    if (r->fixed[i])
        return 0.0;
    return cr_field_work(r->mass[i], &r->gravity, 1, r->pivot[i], r->plength[i], r->pg[i], x0, x1);
}

static void rigid_momentum(const void *e, double *p)
{
    const cr_rigid *r = e;
    p[0] = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++)
        p[0] += r->fixed[i] ? 0.0 : r->mass[i] * r->v[i];
}

static cr_run_stats rigid_stats(const void *e)
{
    cr_run_stats st = RG(e)->drv.stats;
    if (RG(e)->pendulums || RG(e)->drag)
        cr_rigid_flight_stats(RG(e), &st);
    return st;
}

const cr_engine_ops cr_rigid_engine = {
    .name = "rigid",
    CR_RIGID_DRIVER_OPS,
    .destroy = rigid_destroy,
    .dim = 1,
    .contacts_fixed = 1,
    .wall_count = rigid_no_walls,
    .wall = rigid_wall,
    .positions = rigid_positions,
    .contact_count = rigid_nc,
    .contact = rigid_contact,
    .body_contacts = rigid_body_contacts,
    .kinetic_energy = rigid_kinetic,
    .potential_energy = rigid_potential,
    .field_work = rigid_field_work,
    .momentum = rigid_momentum,
    .stats = rigid_stats,
    .rigid_describe = cr_rigid_describe,
    .rigid_set_provider = cr_rigid_set_provider,
    .rigid_set_span = cr_rigid_set_span,
    .rigid_clamp_kappa = cr_rigid_set_clamp,
    .rigid_kappa_clamps = cr_rigid_clamps,
    .rigid_kappa_fallbacks = cr_rigid_fallbacks,
};
