/*
 * The pool's run: setup, then CVODE one step at a time; each step's events are
 * located by the engine (pool-roots.c) and handled at their own state, outputs
 * come at their interpolated states, and the run ends at the end time or,
 * without one, when nothing can happen any more.
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* The automatic end's at-rest test looks at every pair of discs (O(N²)). */
#define AUTO_END_MAX_DISCS 2000

/* Nothing can happen any more: no contact loaded, no disc moving towards a wall,
 * and no pair of discs on a collision course (closest approach below R). */
static int any_loaded(const cr_pool *p)
{
    for (size_t s = 0; s < p->nslots; s++) {
        double delta, rate, force;
        int on = 0;
        if (p->slot_contact[s] >= 0)
            cr_pool_contact_state(p, (size_t)p->slot_contact[s], &delta, &rate, &force, &on);
        if (on)
            return 1;
    }
    return 0;
}

/* Disc i moves towards a wall, or it and a later disc are on a collision
 * course (closest approach below R). */
static int may_meet(const cr_pool *p, const double *y, size_t i)
{
    size_t dim = (size_t)p->dim;
    double vi[3] = {0}, xi[3] = {0};
    for (size_t d = 0; d < dim; d++) {
        vi[d] = p->V * cr_pl_vel(p, y, i)[d];
        xi[d] = p->x0[dim * i + d] + p->L * cr_pl_disp(p, y, i)[d];
    }
    for (size_t w = 0; w < p->nw; w++)
        if (cr_pl_dot(p->wn + dim * w, vi, p->dim) < 0.0)
            return 1;
    for (size_t j = i + 1; j < p->n; j++) {
        double a[3] = {0}, w[3] = {0};
        for (size_t d = 0; d < dim; d++) {
            a[d] = p->x0[dim * j + d] + p->L * cr_pl_disp(p, y, j)[d] - xi[d];
            w[d] = p->V * cr_pl_vel(p, y, j)[d] - vi[d];
        }
        double aw = cr_pl_dot(a, w, p->dim), ww = cr_pl_dot(w, w, p->dim);
        if (aw >= 0.0 || ww == 0.0)
            continue; /* not approaching */
        double R = p->r[i] + p->r[j];
        if (cr_pl_dot(a, a, p->dim) - aw * aw / ww < R * R)
            return 1;
    }
    return 0;
}

static int pool_at_rest(const cr_pool *p)
{
    const double *y = N_VGetArrayPointer(p->y);
    if (any_loaded(p))
        return 0;
    for (size_t i = 0; i < p->n; i++)
        if (may_meet(p, y, i))
            return 0;
    return 1;
}

static int cvfail(cr_pool *p, const char *what, int flag)
{
    return cr_cvode_fail(p->err, what, p->t, flag);
}

/* One class of pairs is lightly damped: C δ*^m T / μ ≤ CR_SOLVER_AUTO_DAMPING,
 * with δ* and T the class's own characteristic overlap and time. */
static int class_damping(const cr_contact_params *law, double mu, void *user)
{
    double V = *(const double *)user;
    if (law->C == 0.0)
        return CR_OK;
    double d = pow(mu * V * V / law->K, 1.0 / (law->n + 1.0));
    return law->C * pow(d, law->m) * (d / V) / mu <= CR_SOLVER_AUTO_DAMPING ? CR_OK : 1;
}

/* Non-stiff: every contact law lightly damped (a pool has no links). When the
 * classes of pairs are too many to enumerate, only undamped laws count. */
static int lightly_damped(const cr_pool *p)
{
    int rc = cr_model_pair_classes(p->model, CR_MODEL_MAX_KINDS, class_damping, (void *)&p->V);
    if (rc == CR_OK)
        return 1;
    if (rc != CR_ERR_MODEL || cr_model_default_contact(p->model)->C != 0.0)
        return 0;
    for (size_t w = 0; w < p->nw; w++) {
        cr_contact_params law;
        if (cr_model_pair_law(p->model, 0, CR_WALL_BODY(w), &law) != CR_OK || law.C != 0.0)
            return 0;
    }
    return 1; /* the explicit pair laws were enumerated (and passed) before the error */
}

/* The arrays every run needs, the region's when it has one, and the state at
 * t = 0 (displacements 0, velocities scaled). */
static int setup_state(cr_pool *p)
{
    size_t n = p->n, sd = p->sd, dim = (size_t)p->dim;
    if (SUNContext_Create(NULL, &p->ctx) != 0)
        return CR_ERR_NOMEM;
    p->y = N_VNew_Serial((sunindextype)(sd * n), p->ctx);
    p->ystep = N_VNew_Serial((sunindextype)(sd * n), p->ctx);
    p->nbr = calloc(n, sizeof(size_t *));
    p->nnbr = calloc(n, sizeof(size_t));
    p->nbrcap = calloc(n, sizeof(size_t));
    p->hot = calloc(n, 1);
    p->ysub = malloc(sd * n * sizeof(double));
    p->ysave = malloc(2 * sd * n * sizeof(double));
    if (!p->y || !p->ystep || !p->nbr || !p->nnbr || !p->nbrcap || !p->hot || !p->ysub ||
        !p->ysave || cr_pl_grow_slots(p, 16) != CR_OK)
        return CR_ERR_NOMEM;
    p->region = cr_pl_use_region(p);
    if (p->region && cr_pl_region_alloc(p) != CR_OK)
        return CR_ERR_NOMEM;
    if (!p->region) { /* CVODES steps the full state */
        p->ya = p->y;
        p->yastep = p->ystep;
        p->na = n;
    }
    double *y = N_VGetArrayPointer(p->y);
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < dim; d++) {
            y[sd * i + d] = 0.0;
            y[sd * i + dim + d] = p->v0[dim * i + d] / p->V;
        }
    return CR_OK;
}

/* Method adams-fixed-point (the chains' name) is solver fixed-point; auto
 * takes it for Adams on a lightly damped pool. */
static int use_fixed_point(const cr_pool *p)
{
    return p->solver == CR_SOLVER_FIXED_POINT || p->method == CR_METHOD_ADAMS_FIXED_POINT ||
           (p->solver == CR_SOLVER_AUTO && p->method == CR_METHOD_ADAMS && lightly_damped(p));
}

/* The method a run takes (cr_pl_new_cvode: Adams when asked or iterating by
 * fixed point, else BDF), as the chains report theirs. */
int cr_pl_method(const cr_pool *p)
{
    if (use_fixed_point(p))
        return CR_METHOD_ADAMS_FIXED_POINT;
    return p->method == CR_METHOD_ADAMS ? CR_METHOD_ADAMS : CR_METHOD_BDF;
}

static int setup(cr_pool *p)
{
    p->skin = p->skin_rel * p->rmax;
    p->tau_stop = INFINITY;
    p->hmax_contact = -1;
    int rc = setup_state(p);
    if (rc != CR_OK)
        return rc;
    /* none yet: the rebuild below lays them out */
    if (cr_pl_layout_quadratures(p, N_VGetArrayPointer(p->y)) != CR_OK)
        return CR_ERR_NOMEM;
    p->quad_resized = 0;
    p->fixed_point = use_fixed_point(p);
    /* a region makes its own instance (region_build) */
    if (!p->region && (rc = cr_pl_new_cvode(p, 0.0, "CVODE setup")) != CR_OK)
        return rc;
    if ((rc = cr_pl_rebuild(p)) == CR_OK)
        cr_pl_roots_afresh(p);
    return rc;
}

static int emit(cr_pool *p)
{
    p->stats.outputs++;
    return p->out_fn ? cr_listener_code(p->out_fn(p, p->out_user)) : CR_OK;
}

/* The run stops early: say why. */
static int stopped(cr_pool *p, int rc)
{
    return cr_run_stopped(rc, p->t, p->end_reason, sizeof p->end_reason, p->err, sizeof p->err);
}

/* What an automatic end needs: few enough discs for the O(N²) at-rest test, no field. */
static int check_automatic_end(cr_pool *p)
{
    if (p->n > AUTO_END_MAX_DISCS) {
        cr_set_msg(p->err, sizeof p->err,
                   "automatic end checks every pair (O(N^2)): give an end time for N > %d",
                   AUTO_END_MAX_DISCS);
        return CR_ERR_INVALID;
    }
    if (cr_pl_has_field(p)) {
        cr_set_msg(p->err, sizeof p->err,
                   "an automatic end needs a free pool: with gravity give an end time");
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* After a root return: events, the event listener, a rebuild if asked. */
static int after_roots(cr_pool *p, double t_stop)
{
    int need = 0, rc;
    size_t first = p->nev;
    if ((rc = cr_pl_handle_roots(p, &need)) != CR_OK)
        return rc;
    if (p->ev_fn && p->nev > first &&
        (rc = cr_listener_code(p->ev_fn(p, first, p->ev_user))) != CR_OK)
        return stopped(p, rc);
    if (need && (rc = cr_pl_rebuild(p)) != CR_OK)
        return rc;
    if (!need && p->need_region && (rc = cr_pl_region_build(p)) != CR_OK)
        return rc;
    if (need)
        CVodeSetStopTime(p->cvode, t_stop / p->T);
    return CR_OK;
}

/* The run ends here: say why, with a last output. */
static int finish(cr_pool *p, const char *why)
{
    snprintf(p->end_reason, sizeof p->end_reason, "%s", why);
    int rc = emit(p);
    return rc == CR_OK ? CR_OK : stopped(p, rc);
}

/* The run's state between steps. */
typedef struct {
    double t_stop, dt;
    double taun; /* the end of the step being searched (scaled) */
    long k;      /* next output: k dt */
    int automatic;
    cr_sampling sm; /* the sampling (engine-common.h); dt is sm.dt */
    int free;       /* the default rule: no contact loaded (free flight) */
    long steps;     /* output.every: steps since the last row */
} run_ctx;

/* A row written: the default rule counts it and, at its cap, widens the grid
 * tenfold from the row's time on. */
static void count_row(cr_pool *p, run_ctx *ctx, double tout)
{
    if (ctx->sm.rule != CR_SAMPLE_AUTO)
        return;
    cr_sampling_count(&ctx->sm);
    if (ctx->sm.dt != ctx->dt) {
        ctx->dt = ctx->sm.dt;
        ctx->k = (long)floor(tout / ctx->dt) + 1;
        p->stats.output_widenings = ctx->sm.widenings;
    }
}

/* Outputs due before time t (s), each at its interpolated state; the one at
 * t_stop is left to finish. In free flight the default rule writes only every
 * free_every-th grid point. */
static int outputs_before(cr_pool *p, run_ctx *ctx, double t)
{
    for (;; ctx->k++) {
        double tout = fmin((double)ctx->k * ctx->dt, ctx->t_stop);
        if (tout >= t || tout >= ctx->t_stop)
            return CR_OK;
        if (ctx->free && ctx->k % ctx->sm.free_every != 0)
            continue;
        if (!p->out_fn || (p->out_wanted && !p->out_wanted(p->out_user))) {
            p->stats.outputs++; /* nobody reads it: no interpolation */
            continue;
        }
        cr_pl_state_at(p, tout / p->T);
        int rc = emit(p);
        if (rc != CR_OK)
            return stopped(p, rc);
        count_row(p, ctx, tout);
    }
}

/* A restart at p->t from p->y and p->yQ with a new quadrature layout. */
static int restart_quadratures(cr_pool *p, const run_ctx *rc_)
{
    int rc = cr_pl_layout_quadratures(p, N_VGetArrayPointer(p->y));
    if (rc != CR_OK)
        return rc;
    int flag = cr_pl_resize_quadratures(p);
    if (flag != CV_SUCCESS)
        return cvfail(p, "quadrature layout", flag);
    if ((rc = cr_pl_restart(p, p->t / p->T, "quadrature layout")) != CR_OK)
        return rc;
    CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
    return CR_OK;
}

/*
 * The safety net of warm_up: a candidate without quadratures that closed
 * during the step (its closing function changed sign, or it overlaps at the
 * end) would lose the impulse of the step. The step is then taken again from
 * its start (p->tlo) with a quadrature slot for it: @p cut is set.
 */
static int missed_quadratures(cr_pool *p, const run_ctx *rc_, int *cut)
{
    size_t missed = 0;
    if (p->region) /* every contact that exerts a force has its slot (warm) */
        return CR_OK;
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id < 0 || p->c[id].qslot >= 0)
            continue;
        if (p->ghi[CR_PL_SR * s] > 0.0 ||
            cr_root_differ(p->glo[CR_PL_SR * s], p->ghi[CR_PL_SR * s])) {
            p->c[id].qslot = CR_PL_WANTS_QSLOT;
            missed++;
        }
    }
    if (!missed)
        return CR_OK;
    *cut = 1;
    p->missed++;
    cr_pl_state_at(p, p->tlo);
    if (missed > p->qcap - p->nq)
        return restart_quadratures(p, rc_);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id >= 0 && p->c[id].qslot == CR_PL_WANTS_QSLOT)
            cr_pl_take_qslot(p, id);
    }
    int rc = cr_pl_restart(p, p->tlo, "CVodeReInit");
    if (rc != CR_OK)
        return rc;
    CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
    return CR_OK;
}

/*
 * A step that passes over a contact. CVODE meets a contact's force only where
 * it evaluates the right-hand side: a step longer than the contact's loaded
 * stretch can start before it (or at its closing) and end after it, and its
 * corrector, seeing no force at the end, accepts free flight through the
 * other disc (a grazing disc, whose overlap lasts 2√(2 R D)/V, felt nothing
 * when a free-flight step followed its closing). Such a step is taken again
 * from the last event handled with a step limit (closed_in_passing,
 * opened_too_fast), which pool-roots.c lifts at the contact's maximum
 * compression or opening; a step again too long for the contact's true,
 * shorter stretch is cut again. The free-flight step cap this replaces
 * missed grazes shallower than ~5 µm between steel discs.
 */
static int retake(cr_pool *p, const run_ctx *rc_, double tau, double hmax, long id, int *cut)
{
    cr_pl_state_at(p, tau);
    int flag = CVodeSetMaxStep(p->cvode, hmax), rc;
    if (flag != CV_SUCCESS)
        return cvfail(p, "step limit", flag);
    if ((rc = cr_pl_restart(p, tau, "CVodeReInit")) != CR_OK)
        return rc;
    CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
    p->tlo = tau;
    cr_pl_roots_afresh(p);
    p->hmax_contact = id;
    p->retakes++;
    *cut = 1;
    return CR_OK;
}

/* An opening located at tr by a step of length h longer than half the
 * contact's loaded stretch (from its closing): the step is taken again from
 * the last event (p->tlo) before anything at tr is handled. */
static int opened_too_fast(cr_pool *p, const run_ctx *rc_, double tr, double h, size_t nc, int *cut)
{
    for (size_t c = 0; c < nc; c++) {
        size_t q = p->cand[c];
        if (q >= CR_PL_SR * p->nslots || q % CR_PL_SR || p->rootsfound[q] >= 0)
            continue;
        long id = p->slot_contact[q / CR_PL_SR];
        double stretch = tr - p->c[id].tclose;
        if (h > 0.5 * stretch && tr > p->tlo)
            return retake(p, rc_, p->tlo, 0.25 * stretch, id, cut);
    }
    return CR_OK;
}

/* Scaled time for contact k's overlap to grow by a quarter of what its
 * closing rate @p rate (m/s) can compress it, δmax/4 with ½ μ δ̇² = K δmax^(n+1)/(n+1)
 * (μ the pair's reduced mass, a wall's disc its own): a step longer than
 * this from the closing may pass over the stretch. */
static double closing_scale(const cr_pool *p, const cr_pool_contact *k, double rate)
{
    const cr_contact_params *law = cr_pl_law(p, k);
    double mu = p->m[k->i];
    if (p->fixed[k->i]) /* then j moves: a fixed pair never closes */
        mu = p->m[k->j];
    else if (!cr_pl_is_wall(k) && !p->fixed[k->j])
        mu = mu * p->m[k->j] / (mu + p->m[k->j]);
    double dmax = pow((law->n + 1.0) * mu * rate * rate / (2.0 * law->K), 1.0 / (law->n + 1.0));
    return 0.25 * dmax / rate / p->T;
}

/* Closings just handled (events from @p first, at tr) that the rest of the
 * step or the next one (CVODE's next size) could pass over: longer than
 * closing_scale, or than half the way to tend when a hidden crossing ended
 * the search there (its extremum). The step is taken again from tr; when the
 * events restarted the integrator there (@p cut set), its steps are limited. */
static int closed_in_passing(cr_pool *p, const run_ctx *rc_, size_t first, double tr, double tend,
                             int *cut)
{
    double hnext = 0.0, tn = rc_->taun;
    CVodeGetCurrentStep(p->cvode, &hnext);
    double ahead = *cut ? INFINITY : fmax(tn - tr, hnext);
    for (size_t e = first; e < p->nev; e++) {
        const cr_event *ev = &p->events[e];
        if (ev->kind != CR_EVENT_CLOSE || !(ev->rate > 0.0))
            continue;
        double H = closing_scale(p, &p->c[ev->contact], ev->rate);
        if (tend < tn)
            H = fmin(H, 0.5 * (tend - tr));
        if (ahead <= H)
            continue;
        if (!*cut)
            return retake(p, rc_, tr, H, (long)ev->contact, cut);
        p->hmax_contact = (long)ev->contact;
        int flag = CVodeSetMaxStep(p->cvode, H);
        return flag == CV_SUCCESS ? CR_OK : cvfail(p, "step limit", flag);
    }
    return CR_OK;
}

/*
 * The first event among the @p nc functions that changed sign in the step that
 * ended at the scaled time taun (state ys): located, preceded by the outputs
 * due before it, and handled at its own state. A restart (force jump,
 * neighbour rebuild, new region) cuts the step there: @p cut is set and the
 * integrator goes on from the event. @p ended: the automatic end.
 */
static int next_event(cr_pool *p, run_ctx *rc_, double taun, double h, size_t nc, const double *ys,
                      int *cut, int *ended)
{
    for (size_t c = 0; c < nc; c++) {
        p->clo[c] = p->glo[p->cand[c]];
        p->chi[c] = p->ghi[p->cand[c]];
    }
    double tr = cr_pl_locate_roots(p, p->tlo, taun, h, nc); /* scaled */
    int rc = opened_too_fast(p, rc_, tr, h, nc, cut);
    if (rc != CR_OK || *cut)
        return rc;
    if ((rc = outputs_before(p, rc_, tr * p->T)) != CR_OK)
        return rc;
    cr_pl_state_at(p, tr);
    long restarts = p->stats.restarts, rebuilds = p->rebuilds, regions = p->region_builds;
    size_t first = p->nev;
    if ((rc = after_roots(p, rc_->t_stop)) != CR_OK)
        return rc;
    rc_->free = rc_->sm.rule == CR_SAMPLE_AUTO && !any_loaded(p);
    p->tlo = tr;
    const double *y = N_VGetArrayPointer(p->y);
    if (p->stats.restarts != restarts || p->rebuilds != rebuilds || p->region_builds != regions) {
        CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
        cr_pl_roots_afresh(p);
        *cut = 1;
    }
    if ((rc = closed_in_passing(p, rc_, first, tr, taun, cut)) != CR_OK)
        return rc;
    if (!*cut) {
        /* the search's candidates at the event; the events handled may
         * have redefined their functions (a frozen normal), so both ends */
        for (size_t c = 0; c < nc; c++) {
            p->glo[p->cand[c]] = cr_pl_root_one(p, y, p->cand[c]);
            p->ghi[p->cand[c]] = cr_pl_root_one(p, ys, p->cand[c]);
        }
    }
    if (rc_->automatic && pool_at_rest(p)) {
        *ended = 1;
        return finish(p, "all contacts open and separating");
    }
    return CR_OK;
}

/*
 * Events of the step that ended at the scaled time taun, in time order
 * (next_event), then the root functions at its end become the start of the
 * next search and the contacts the motion reached get quadrature slots. A
 * hidden crossing (cr_pl_hidden_end) splits the search: first up to it, where
 * it is an ordinary sign change, then on from there.
 */
static int step_events(cr_pool *p, run_ctx *rc_, double taun, double h, int *cut, int *ended)
{
    const double *ys = N_VGetArrayPointer(p->ystep);
    *cut = *ended = 0;
    rc_->taun = taun;
    for (double tend = p->tlo; tend < taun;) {
        cr_pl_roots_step(p, ys, p->ghi);
        p->gevals++;
        tend = cr_pl_hidden_end(p, taun, ys);
        const double *ye = tend < taun ? p->ysub : ys;
        int rc = missed_quadratures(p, rc_, cut);
        if (rc != CR_OK || *cut)
            return rc;
        for (size_t nc = 0; (nc = cr_pl_sign_changes(p, nc)) > 0;)
            if ((rc = next_event(p, rc_, tend, h, nc, ye, cut, ended)) != CR_OK || *cut || *ended)
                return rc;
        if (p->region)
            for (size_t c = 0; c < p->nlive; c++)
                p->glo[p->live[c]] = p->ghi[p->live[c]];
        else
            memcpy(p->glo, p->ghi, p->nroot * sizeof(double));
        p->tlo = tend;
        if (tend < taun) /* the rest of the step from the state there */
            cr_pl_state_at(p, tend);
    }
    if (p->region || cr_pl_warm_up(p, ys))
        return CR_OK;
    /* out of free quadrature slots: a new layout, from the end of the step */
    N_VScale(1.0, p->ystep, p->y);
    CVodeGetQuad(p->cvode, &taun, p->yQ);
    p->t = taun * p->T;
    *cut = 1;
    return restart_quadratures(p, rc_);
}

/* The end time (without one, a safety cap far beyond the pool's coming
 * apart) and the sampling: the chains' rule (cr_sampling_plan). */
static run_ctx run_plan(const cr_pool *p, double t_end)
{
    run_ctx ctx = {.t_stop = t_end, .k = 1, .automatic = t_end <= 0.0};
    double extent = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        double a[3] = {0};
        for (int d = 0; d < p->dim; d++)
            a[d] = p->x0[(size_t)p->dim * i + (size_t)d] - p->x0[d];
        extent = fmax(extent, cr_pl_norm(a, p->dim));
    }
    if (ctx.automatic)
        ctx.t_stop = 4.0 * extent / p->V + 1e6 * p->T;
    ctx.sm =
        cr_sampling_plan(p->out_interval, p->out_every, p->out_none,
                         cr_free_flight_interval(p->model, p->V), p->T, t_end, p->out_max_rows);
    ctx.dt = ctx.sm.dt;
    return ctx;
}

/* One CVODE step and what it brings: its events, the outputs due, the end
 * (@p done) and, when settled discs could leave, a smaller region. */
static int advance(cr_pool *p, run_ctx *ctx, int *done)
{
    sunrealtype tret, h = 0.0;
    int flag = CVode(p->cvode, ctx->t_stop / p->T, p->yastep, &tret, CV_ONE_STEP), rc, cut;
    if (flag < 0 && p->stop_requested)
        return CR_OK; /* the step abandoned: the run stops on the last one (cr_pool_run) */
    if (flag < 0)
        return cvfail(p, "CVode", flag);
    if (p->region)
        cr_pl_fill_full(p, tret, N_VGetArrayPointer(p->yastep), N_VGetArrayPointer(p->ystep));
    CVodeGetLastStep(p->cvode, &h);
    double tn = tret * p->T;
    if ((rc = step_events(p, ctx, tret, h, &cut, done)) != CR_OK || *done || cut)
        return rc;
    if ((rc = outputs_before(p, ctx, tn)) != CR_OK)
        return rc;
    if (p->region)
        cr_pl_fill_full(p, tret, N_VGetArrayPointer(p->yastep), N_VGetArrayPointer(p->y));
    else
        N_VScale(1.0, p->ystep, p->y);
    CVodeGetQuad(p->cvode, &tret, p->yQ);
    p->t = tn;
    if (flag == CV_TSTOP_RETURN || tn >= ctx->t_stop) {
        *done = 1;
        return finish(p, ctx->automatic ? "safety cap reached before the pool came apart"
                                        : "end time reached");
    }
    if (ctx->sm.rule == CR_SAMPLE_EVERY && ++ctx->steps >= ctx->sm.every) {
        ctx->steps = 0; /* output.every: the k-th step's end */
        if ((rc = emit(p)) != CR_OK)
            return stopped(p, rc);
    }
    ctx->free = ctx->sm.rule == CR_SAMPLE_AUTO && !any_loaded(p);
    if (cr_pl_region_oversized(p)) { /* settled discs leave: a smaller region */
        size_t na = p->na;
        if ((rc = cr_pl_region_build(p)) != CR_OK)
            return rc;
        p->region_shrinks += p->na < na;
        cr_pl_roots_afresh(p);
    }
    return CR_OK;
}

int cr_pool_run(cr_pool *p, double t_end)
{
    CR_CHECK(p && !p->ran && isfinite(t_end), p ? p->err : NULL, CR_ERR_INVALID);
    int automatic = t_end <= 0.0, rc;
    if (automatic && (rc = check_automatic_end(p)) != CR_OK)
        return rc;
    rc = setup(p);
    p->ran = 1;
    if (rc != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(p->err, sizeof p->err, "out of memory setting up the pool");
        return rc;
    }
    run_ctx ctx = run_plan(p, t_end);
    if ((rc = cr_output_interval_check(p->out_interval, p->out_where, p->T, t_end, p->err,
                                       sizeof p->err)))
        return rc;
    p->tau_stop = ctx.t_stop / p->T;
    CVodeSetStopTime(p->cvode, ctx.t_stop / p->T);
    p->t = p->tlo = 0.0;
    if ((rc = emit(p)) != CR_OK)
        return stopped(p, rc);
    if (automatic && pool_at_rest(p)) {
        snprintf(p->end_reason, sizeof p->end_reason, "all contacts open and separating");
        return CR_OK;
    }
    for (int done = 0;;) {
        if (p->stop_requested) {
            rc = emit(p);
            return stopped(p, rc == CR_OK ? CR_ERR_INTERRUPTED : rc);
        }
        if ((rc = advance(p, &ctx, &done)) != CR_OK || done)
            return rc;
    }
}
