/*
 * The chain engine's model copy: create (validation, scales, the window's
 * arrays), destroy and the setters. The state, the window and the event
 * location are described in sim-priv.h.
 */
#include "engines/compliant/sim-priv.h"
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bodies added on each side of a run of binding contacts. A pulse crosses them
 * before its front reaches the window's edge, which costs a rebuild (a restart
 * of the multistep history): wider padding, fewer rebuilds, larger steps'
 * cost. Measured in docs/performance.md. */
#define REGION_PAD 8

/* The model copy: per body and per pair (alloc_model). */
static void free_model(cr_sim *s)
{
    free(s->mass);
    free(s->radius);
    free(s->x0);
    free(s->v0);
    free(s->delta0);
    free(s->fixed);
    free(s->law);
    free(s->force_only);
    free(s->contact_on);
    free(s->link);
    free(s->has_link);
    free(s->pivot);
    free(s->plength);
    free(s->pg);
    free(s->drag_kb);
    free(s->drag_kc);
    free(s->cluster);
    free(s->accel);
    free(s->mu);
}

/* The root functions and the event location's arrays (alloc_roots). */
static void free_roots(cr_sim *s)
{
    free(s->rootsfound);
    free(s->roff);
    free(s->root_contact);
    free(s->wake_level);
    free(s->quiet);
    free(s->frozen);
    free(s->pforce);
    free(s->rblock);
    free(s->rootk);
    free(s->glo);
    free(s->ghi);
    free(s->clo);
    free(s->chi);
    free(s->cmid);
    free(s->cand);
    free(s->guide);
    free(s->redo);
    free(s->redo_mark);
}

/* The window's layout, free flight and heap (alloc_window). */
static void free_window(cr_sim *s)
{
    free(s->ilo);
    free(s->ihi);
    free(s->nlo);
    free(s->nhi);
    free(s->ybody);
    free(s->yovl);
    free(s->yquad);
    free(s->wcon);
    free(s->wcon2);
    free(s->cwin);
    free(s->grp);
    free(s->gfirst);
    free(s->glast);
    free(s->off);
    free(s->g0);
    free(s->gv);
    free(s->gt);
    free(s->gm);
    free(s->ref_o);
    free(s->ref_tc);
    free(s->Pbank);
    free(s->heap);
    free(s->stamp);
    free(s->counted);
    free(s->bind);
}

void cr_sim_destroy(cr_sim *s)
{
    if (!s)
        return;
    cr_sm_window_free(s);
    if (s->ctx)
        SUNContext_Free(&s->ctx);
    free_model(s);
    free_roots(s);
    free_window(s);
    free(s->events);
    free(s);
}
static void choose_scales(cr_sim *s)
{
    double vmin = INFINITY, vmax = -INFINITY, mmin = INFINITY, rmin = INFINITY;
    double gmax = fabs(s->gravity), lmax = 0.0;
    for (size_t i = 0; i < s->nb; i++) {
        /* a wall is a body at rest: it counts for the relative speeds */
        vmin = fmin(vmin, s->v0[i]);
        vmax = fmax(vmax, s->v0[i]);
        if (s->fixed[i])
            continue;
        mmin = fmin(mmin, s->mass[i]);
        rmin = fmin(rmin, s->radius[i]);
        if (s->plength[i] > 0.0) {
            gmax = fmax(gmax, s->pg[i]);
            lmax = fmax(lmax, s->plength[i]);
        }
    }
    if (!isfinite(mmin)) { /* only walls: nothing moves */
        mmin = 1.0;
        rmin = 1.0;
    }
    if (vmax > vmin)
        s->V = vmax - vmin;
    else if (gmax > 0.0) /* released from rest in a field: the speed it will gain */
        s->V = sqrt(gmax * fmax(lmax, rmin));
    else
        s->V = 1.0;
    s->L = INFINITY;
    for (size_t c = 0; c < s->nc; c++) {
        if (!s->contact_on[c])
            continue;
        double ma = s->mass[c], mb = s->mass[c + 1];
        double mu = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
        const cr_contact_params *p = &s->law[c];
        s->L = fmin(s->L, pow(mu * s->V * s->V / p->K, 1.0 / (p->n + 1.0)));
    }
    if (!isfinite(s->L))
        s->L = rmin;
    s->T = s->L / s->V;
    s->Pscale = mmin * s->V;
    s->Escale = mmin * s->V * s->V;
    for (size_t i = 0; i < s->nb; i++)
        s->accel[i] = s->fixed[i] ? 0.0 : s->T / (s->V * s->mass[i]);
}

/* Arrays of the model copy, nb bodies and nc pairs (at least 1). */
static int alloc_model(cr_sim *s, size_t nb, size_t nc)
{
    s->mass = malloc(nb * sizeof(double));
    s->radius = malloc(nb * sizeof(double));
    s->x0 = malloc(nb * sizeof(double));
    s->v0 = malloc(nb * sizeof(double));
    s->accel = malloc(nb * sizeof(double));
    s->fixed = calloc(nb, sizeof(int));
    s->pivot = calloc(nb, sizeof(double));
    s->plength = calloc(nb, sizeof(double));
    s->pg = calloc(nb, sizeof(double));
    s->drag_kb = calloc(nb, sizeof(double));
    s->drag_kc = calloc(nb, sizeof(double));
    s->cluster = calloc(nb, sizeof(size_t));
    s->delta0 = malloc(nc * sizeof(double));
    s->law = calloc(nc, sizeof(cr_contact_params));
    s->contact_on = calloc(nc, sizeof(int));
    s->force_only = calloc(nc ? nc : 1, 1);
    s->link = calloc(nc, sizeof(cr_link));
    s->has_link = calloc(nc, sizeof(int));
    s->mu = malloc(nc * sizeof(double));
    return s->mass && s->radius && s->x0 && s->v0 && s->accel && s->fixed && s->pivot &&
                   s->plength && s->pg && s->drag_kb && s->drag_kc && s->cluster && s->delta0 &&
                   s->law && s->contact_on && s->force_only && s->link && s->has_link && s->mu
               ? 0
               : -1;
}

/* Arrays of the root functions, CR_SM_R_PER_CONTACT at most per pair, and of
 * the event location. */
static int alloc_roots(cr_sim *s, size_t nb, size_t nc)
{
    size_t nf = CR_SM_R_PER_CONTACT * nc + nb; /* nb: the swing extremes' */
    s->root_contact = malloc((nc + nb) * sizeof(size_t));
    s->wake_level = malloc(nc * sizeof(double));
    s->quiet = calloc(nc, sizeof(int));
    s->frozen = calloc(3 * nc, sizeof(double));
    s->rootsfound = malloc(nf * sizeof(int));
    s->rblock = malloc(nf * sizeof(size_t));
    s->rootk = malloc(nc * sizeof(size_t));
    s->glo = malloc(nf * sizeof(double));
    s->ghi = malloc(nf * sizeof(double));
    s->clo = malloc(nf * sizeof(double));
    s->chi = malloc(nf * sizeof(double));
    s->cmid = malloc(nf * sizeof(double));
    s->cand = malloc(nf * sizeof(size_t));
    s->guide = malloc(nf);
    s->redo = malloc(nc * sizeof(size_t));
    s->redo_mark = calloc(nc, 1);
    s->roff = malloc((nc + nb + 1) * sizeof(size_t));
    s->pforce = calloc(nc ? nc : 1, sizeof(double));
    return s->root_contact && s->wake_level && s->quiet && s->frozen && s->rootsfound &&
                   s->rblock && s->rootk && s->glo && s->ghi && s->clo && s->chi && s->cmid &&
                   s->cand && s->guide && s->redo && s->redo_mark && s->roff && s->pforce
               ? 0
               : -1;
}

/* Arrays of the window's layout and of free flight: the window holds at most
 * every body and pair. */
static int alloc_window(cr_sim *s, size_t nb, size_t nc)
{
    s->ilo = malloc(nb * sizeof(size_t));
    s->ihi = malloc(nb * sizeof(size_t));
    s->nlo = malloc(nb * sizeof(size_t));
    s->nhi = malloc(nb * sizeof(size_t));
    s->ybody = malloc(nb * sizeof(size_t));
    s->yovl = malloc(nc * sizeof(size_t));
    s->yquad = malloc(nc * sizeof(size_t));
    s->wcon = malloc(nc * sizeof(size_t));
    s->wcon2 = malloc(nc * sizeof(size_t));
    s->cwin = calloc(nc, 1);
    s->grp = malloc(nb * sizeof(size_t));
    s->gfirst = malloc(nb * sizeof(size_t));
    s->glast = malloc(nb * sizeof(size_t));
    s->off = calloc(nb, sizeof(double));
    s->g0 = calloc(nb, sizeof(double));
    s->gv = calloc(nb, sizeof(double));
    s->gt = calloc(nb, sizeof(double));
    s->gm = calloc(nb, sizeof(double));
    s->ref_o = calloc(nc, sizeof(double));
    s->ref_tc = calloc(nc, sizeof(double));
    s->Pbank = calloc(nc, sizeof(double));
    s->stamp = calloc(nc, sizeof(unsigned long));
    s->counted = calloc(nc, 1);
    s->bind = malloc(nc * sizeof(size_t));
    return s->ilo && s->ihi && s->nlo && s->nhi && s->ybody && s->yovl && s->yquad && s->wcon &&
                   s->wcon2 && s->cwin && s->grp && s->gfirst && s->glast && s->off && s->g0 &&
                   s->gv && s->gt && s->gm && s->ref_o && s->ref_tc && s->Pbank && s->stamp &&
                   s->counted && s->bind
               ? 0
               : -1;
}

/* Copies the bodies, the pairs' laws and links, the link-connected clusters
 * and the pairs with a contact (the root contacts). */
static void copy_model(cr_sim *s, const cr_model *model)
{
    s->gravity = cr_model_gravity(model);
    s->has_fields = cr_model_has_fields(model);
    for (size_t i = 0; i < s->nb; i++) {
        s->mass[i] = cr_model_mass(model, i);
        s->radius[i] = cr_model_radius(model, i);
        s->x0[i] = cr_model_position(model, i);
        s->v0[i] = cr_model_is_fixed(model, i) ? 0.0 : cr_model_velocity(model, i);
        s->fixed[i] = cr_model_is_fixed(model, i);
        cr_model_pendulum(model, i, &s->pivot[i], &s->plength[i], &s->pg[i]);
        double b, c;
        if (cr_model_drag(model, i, &b, &c)) {
            s->drag_kb[i] = b / s->mass[i];
            s->drag_kc[i] = c / s->mass[i];
        }
    }
    for (size_t c = 0; c < s->nc; c++) {
        s->delta0[c] = cr_model_initial_overlap(model, c);
        s->contact_on[c] = cr_model_contact_enabled(model, c);
        s->law[c] = *cr_model_contact(model, c);
        const cr_link *l = cr_model_link(model, c);
        if (l) {
            s->link[c] = *l;
            s->has_link[c] = 1;
        }
        s->force_only[c] = s->contact_on[c] && !s->has_link[c] && s->law[c].C == 0.0;
        if (s->contact_on[c])
            s->root_contact[s->n_contact_roots++] = c;
        s->cluster[c + 1] = s->has_link[c] ? s->cluster[c] : c + 1;
    }
}

/* Before the run every body is outside the window, in free flight from its
 * start: the getters answer from the model copy through the same code. */
static void start_in_flight(cr_sim *s)
{
    for (size_t i = 0; i < s->nb; i++) {
        s->ybody[i] = CR_SM_NONE;
        s->grp[i] = s->gfirst[i] = s->glast[i] = i;
        s->gv[i] = s->v0[i] / s->V;
        s->gm[i] = s->fixed[i] ? INFINITY : s->mass[i];
    }
    for (size_t c = 0; c < s->nc; c++) {
        s->yovl[c] = s->yquad[c] = CR_SM_NONE;
        s->ref_o[c] = s->delta0[c] / s->L;
    }
}

/* The window's setting and the engine's switches. Fields act on every body:
 * no free flight is exact under them. The environment overrides the model's
 * setting (a debugging aid). */
static void read_switches(cr_sim *s, const cr_model *model)
{
    s->whole = s->has_fields || cr_switch_active_region(model) == CR_ACTIVE_REGION_OFF;
    s->own_roots = !cr_switch_chain_roots_cvode();
    s->auto_explicit = (cr_method)cr_switch_auto_method(); /* erk, adams-fixed-point or auto */
    s->qstate_ok = cr_switch_impulse_states();
    s->pad = cr_switch_region_pad(REGION_PAD);
}

/* The window's padding under ERK with the projection: ERK restarts without
 * a history to rebuild, so a narrower window is cheaper (10⁴ beads at
 * accuracy 1e-6: 0.66 s against 0.85 s with 8) and was no less accurate. */
#define ACCURACY_REGION_PAD 4

/* A chain that keeps its energy: no damper, no link, no field. */
static int conservative(const cr_sim *s)
{
    return !s->has_fields && !s->stiff_pairs;
}

/* Under integration.accuracy: the rule's tolerances (cr_model_tolerances),
 * and the energy projection where the chain keeps its energy (sim-energy.c). */
static void apply_accuracy(cr_sim *s, const cr_model *model)
{
    if (!(s->accuracy > 0.0))
        return;
    cr_model_tolerances(model, &s->rtol, &s->atol);
    s->conserve = conservative(s);
    if (s->conserve && cr_sim_method(s) == CR_METHOD_ERK)
        s->pad = cr_switch_region_pad(ACCURACY_REGION_PAD);
}

/* Whether a pair is stiff (a link, a damper: cr_sim_method), each pair's
 * reduced mass (a wall is immovable) and the links' settling time
 * (cr_sim_settle_time). */
static void pair_constants(cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++)
        s->stiff_pairs |= s->has_link[c] || (s->contact_on[c] && s->law[c].C > 0.0);
    for (size_t c = 0; c < s->nc; c++) {
        double ma = s->mass[c], mb = s->mass[c + 1];
        s->mu[c] = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
    }
    for (size_t c = 0; c < s->nc; c++)
        if (s->has_link[c]) {
            double m = s->fixed[c]
                           ? s->mass[c + 1]
                           : (s->fixed[c + 1] ? s->mass[c] : 0.5 * (s->mass[c] + s->mass[c + 1]));
            s->settle += 2.0 * sqrt(m / s->link[c].k);
        }
}

cr_sim *cr_sim_create(const cr_model *model, char *msg, size_t msglen)
{
    if (!model) {
        cr_set_msg(msg, msglen, "no model");
        return NULL;
    }
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    cr_sim *s = calloc(1, sizeof(*s));
    if (!s)
        goto nomem;
    s->nb = cr_model_ball_count(model);
    s->nc = cr_model_contact_count(model);
    size_t nb = s->nb, nc = s->nc ? s->nc : 1;
    if (alloc_model(s, nb, nc) || alloc_roots(s, nb, nc) || alloc_window(s, nb, nc))
        goto nomem;
    copy_model(s, model);
    choose_scales(s);
    start_in_flight(s);
    read_switches(s, model);
    pair_constants(s);
    const cr_settings *set = cr_model_settings(model);
    s->rtol = set->rtol;
    s->atol = set->atol;
    s->accuracy = set->accuracy;
    s->method = set->method;
    s->out_interval = set->output_interval;
    s->out_every = set->output_every;
    s->out_max_rows = set->output_max_rows;
    s->out_none = set->output_omit == CR_OUT_ALL;
    s->swing_on = set->swing_extremes;
    apply_accuracy(s, model);
    s->free_dt = cr_free_flight_interval(model, s->V);
    if (s->out_every > 0) /* k-th steps are counted by the engine's own search */
        s->own_roots = 1;
    snprintf(s->out_where, sizeof s->out_where, "%s", cr_model_interval_where(model));
    s->jac_floor_rel = set->jacobian_floor > 0.0 ? set->jacobian_floor : CR_DEFAULT_JACOBIAN_FLOOR;
    snprintf(s->end_reason, sizeof s->end_reason, "not run");
    return s;
nomem:
    cr_set_msg(msg, msglen, "out of memory");
    cr_sim_destroy(s);
    return NULL;
}

int cr_sim_set_tolerances(cr_sim *s, double rtol, double atol)
{
    CR_CHECK(s && rtol > 0.0 && rtol < 1.0 && atol > 0.0, s ? s->err : NULL, CR_ERR_INVALID);
    s->rtol = rtol;
    s->atol = atol;
    return CR_OK;
}

int cr_sim_set_method(cr_sim *s, cr_method method)
{
    CR_CHECK(s && method >= CR_METHOD_BDF && method <= CR_METHOD_ERK, s ? s->err : NULL,
             CR_ERR_INVALID);
    s->method = method;
    return CR_OK;
}

int cr_sim_set_output(cr_sim *s, double interval, cr_sim_output_fn fn, void *user)
{
    CR_CHECK(s && isfinite(interval), s ? s->err : NULL, CR_ERR_INVALID);
    if (interval != s->out_interval) /* no longer the model's: not its file's line */
        snprintf(s->out_where, sizeof s->out_where, "output interval");
    s->out_interval = interval;
    s->out_fn = fn;
    s->out_user = user;
    return CR_OK;
}

int cr_sim_set_event_callback(cr_sim *s, cr_sim_event_fn fn, void *user)
{
    CR_CHECK(s, NULL, CR_ERR_INVALID);
    s->ev_fn = fn;
    s->ev_user = user;
    return CR_OK;
}

int cr_sim_set_jacobian_floor(cr_sim *s, double rel_floor)
{
    CR_CHECK(s && rel_floor > 0.0 && isfinite(rel_floor), s ? s->err : NULL, CR_ERR_INVALID);
    s->jac_floor_rel = rel_floor;
    return CR_OK;
}

void cr_sim_request_stop(cr_sim *s)
{
    if (s)
        s->stop_requested = 1;
}
