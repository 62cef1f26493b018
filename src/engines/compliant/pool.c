/*
 * Pools of discs (dim 2) or spheres (dim 3): CVODES over the bodies, Newton with a sparse (KLU) or
 * matrix-free (GMRES) Jacobian, or Adams with fixed-point iteration (no Jacobian). This file: the
 * engine's creation from a model, its scales and the setters; the other jobs live in src/pool-*.c
 * (the list is in pool-priv.h).
 *
 * State (scaled): per disc its displacement from the start /δ* and velocity /V,
 * dim components each (pool-priv.h).
 * The overlap of a pair is computed without cancellation from the initial
 * relative position a₀ and the relative displacement b:
 *   δ = R − |a₀ + b| = (R² − |a₀|² − 2a₀·b − |b|²) / (R + |a₀ + b|),
 * with R² − |a₀|² = (R − |a₀|)(R + |a₀|) formed once; positions of order 10⁻²
 * and overlaps of order 10⁻⁵ then keep all their digits.
 */
#include "engines/compliant/pool-priv.h"

#include <cvodes/cvodes.h>
#include <math.h>
#include <stdlib.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "model/model.h"

/* Per-disc lists (neighbours, contacts of each disc): each list, then the arrays. */
static void free_lists(size_t n, size_t **lists, size_t *len, size_t *cap)
{
    if (lists)
        for (size_t i = 0; i < n; i++)
            free(lists[i]);
    free(lists);
    free(len);
    free(cap);
}

/* CVODES, its solvers and vectors, then the context they were made in. */
static void free_integrator(cr_pool *p)
{
    if (p->cvode)
        CVodeFree(&p->cvode);
    cr_pl_free_solver(p);
    if (p->y)
        N_VDestroy(p->y);
    if (p->yQ)
        N_VDestroy(p->yQ);
    if (p->ystep)
        N_VDestroy(p->ystep);
    cr_pl_region_free(p);
    if (p->ctx)
        SUNContext_Free(&p->ctx);
}

void cr_pool_destroy(cr_pool *p)
{
    if (!p)
        return;
    free_integrator(p);
    cr_model_destroy(p->model);
    void *arrays[] = {p->m,          p->r,      p->x0,    p->v0,    p->accel,        p->wn,
                      p->woff,       p->c,      p->found, p->sbuf,  p->slot_contact, p->dref,
                      p->rootsfound, p->glo,    p->ghi,   p->clo,   p->chi,          p->cmid,
                      p->cand,       p->guide,  p->qc,    p->hot,   p->pat_ptr,      p->pat_idx,
                      p->pblock,     p->events, p->ysub,  p->ysave, p->fixed};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(p->laws);
    free_lists(p->n, p->nbr, p->nnbr, p->nbrcap);
    free_lists(p->n, p->bc, p->nbc, p->bccap);
    free(p);
}

/* Characteristic overlap of one class of pairs: δ* = (μV²/K)^(1/(n+1)). */
static int class_scale(const cr_contact_params *law, double mu, void *user)
{
    double *L = ((double **)user)[0], V = *((double **)user)[1];
    *L = fmin(*L, pow(mu * V * V / law->K, 1.0 / (law->n + 1.0)));
    return CR_OK;
}

/* Too many body kinds to enumerate their pairs (a polydisperse pool): explicit
 * pairs exactly, and for the rest a bound no pair is stiffer than, O(N): μ of
 * the two lightest discs; the default law; Hertz with 1/E* ≥ 2 min (1 − ν²)/E
 * and R* ≤ r_max/2; each wall's law against the lightest disc with a wall's
 * material at its stiffest (R* ≤ r_max). */
static double bound_scale(const cr_pool *p, double L)
{
    const cr_model *md = p->model;
    double m1 = INFINITY, m2 = INFINITY, amin = INFINITY, V2 = p->V * p->V, E, nu;
    for (size_t i = 0; i < p->n; i++) {
        if (p->fixed[i])
            continue; /* its mass is not used */
        m2 = fmin(m2, fmax(m1, p->m[i]));
        m1 = fmin(m1, p->m[i]);
        if (cr_model_material(md, i, &E, &nu))
            amin = fmin(amin, (1.0 - nu * nu) / E);
    }
    double mu = isfinite(m2) ? m1 * m2 / (m1 + m2) : m1;
    const cr_contact_params *d = cr_model_default_contact(md);
    L = fmin(L, pow(mu * V2 / d->K, 1.0 / (d->n + 1.0)));
    if (isfinite(amin))
        L = fmin(L, pow(mu * V2 / (4.0 / 3.0 / (2.0 * amin) * sqrt(0.5 * p->rmax)), 0.4));
    for (size_t w = 0; w < p->nw; w++) {
        cr_contact_params law;
        cr_model_pair_law(md, 0, CR_WALL_BODY(w), &law);
        L = fmin(L, pow(m1 * V2 / law.K, 1.0 / (law.n + 1.0)));
        if (isfinite(amin) && cr_model_plane_material(md, w, &E, &nu)) {
            double K = 4.0 / 3.0 / (amin + (1.0 - nu * nu) / E) * sqrt(p->rmax);
            L = fmin(L, pow(m1 * V2 / K, 0.4));
        }
    }
    return L;
}

/* Scales as for chains: V bounds the relative speeds (walls are at rest), δ* is
 * the smallest characteristic overlap over every class of pairs (the stiffest
 * law sets it), time δ* /V. */
static void choose_scales(cr_pool *p)
{
    int dim = p->dim;
    double vmax = 0.0, vm[3] = {0, 0, 0}, mmin = INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        for (int d = 0; d < dim; d++)
            vm[d] += p->v0[(size_t)dim * i + (size_t)d] / (double)p->n;
        if (!p->fixed[i])
            mmin = fmin(mmin, p->m[i]);
    }
    if (!isfinite(mmin)) /* every body fixed: nothing moves; any scale will do */
        mmin = p->m[0];
    for (size_t i = 0; i < p->n; i++) {
        double dv[3] = {0};
        for (int d = 0; d < dim; d++)
            dv[d] = p->v0[(size_t)dim * i + (size_t)d] - vm[d];
        vmax = fmax(vmax, cr_pl_norm(dv, dim));
    }
    p->V = 2.0 * fmax(vmax, cr_pl_norm(vm, dim));
    if (!(p->V > 0.0))
        p->V = 1.0;
    double L = INFINITY, *args[2] = {&L, &p->V};
    int rc = cr_model_pair_classes(p->model, CR_MODEL_MAX_KINDS, class_scale, args);
    if (rc != CR_OK)
        L = bound_scale(p, L); /* explicit pairs are in L already */
    if (!isfinite(L)) {        /* one disc, no walls: nothing touches; any scale will do */
        const cr_contact_params *d = cr_model_default_contact(p->model);
        L = pow(0.5 * mmin * p->V * p->V / d->K, 1.0 / (d->n + 1.0));
    }
    p->L = L;
    p->T = p->L / p->V;
    p->Pscale = mmin * p->V;
    p->Escale = mmin * p->V * p->V;
    for (size_t i = 0; i < p->n; i++)
        p->accel[i] = p->fixed[i] ? 0.0 : p->T / (p->V * p->m[i]);
}

/* Per-disc arrays and walls from the engine's own model. */
static int load_model(cr_pool *p)
{
    const cr_model *md = p->model;
    size_t n = p->n = cr_model_body_count(md), dim = (size_t)p->dim;
    double **arr[] = {&p->m, &p->r, &p->accel};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
        if (!(*arr[k] = malloc(n * sizeof(double))))
            return CR_ERR_NOMEM;
    p->x0 = malloc(dim * n * sizeof(double));
    p->v0 = malloc(dim * n * sizeof(double));
    p->fixed = calloc(n ? n : 1, 1);
    if (!p->x0 || !p->v0 || !p->fixed || !(p->dref = calloc(dim * n, sizeof(double))))
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        p->fixed[i] = (char)(cr_model_is_fixed(md, i) != 0);
        cr_model_get_body(md, i, p->x0 + dim * i, p->v0 + dim * i);
        p->m[i] = cr_model_mass(md, i);
        p->r[i] = cr_model_radius(md, i);
        p->rmax = fmax(p->rmax, p->r[i]);
    }
    size_t nw = cr_model_plane_count(md);
    p->wn = malloc(dim * (nw + 1) * sizeof(double));
    p->woff = malloc((nw + 1) * sizeof(double));
    if (!p->wn || !p->woff)
        return CR_ERR_NOMEM;
    for (size_t w = 0; w < nw; w++)
        cr_model_get_plane(md, w, p->wn + dim * w, &p->woff[w]);
    p->nw = nw;
    cr_model_get_gravity_vector(md, p->g);
    return CR_OK;
}

/* Run settings of the model (the cr_pool_set_* calls may change them). */
static void load_settings(cr_pool *p)
{
    const cr_settings *set = cr_model_settings(p->model);
    p->rtol = set->rtol;
    p->atol = set->atol;
    p->jac_floor = set->jacobian_floor;
    p->solver = set->solver;
    p->skin_rel = set->skin;
    p->method = set->method;
    p->out_interval = set->output_interval;
    p->out_every = set->output_every;
    p->out_max_rows = set->output_max_rows;
    p->out_none = set->output_omit == CR_OUT_ALL;
    snprintf(p->out_where, sizeof p->out_where, "%s", cr_model_interval_where(p->model));
    p->frozen_normals = set->frozen_normals;
}

cr_pool *cr_pool_create_from_model(const cr_model *model, char *msg, size_t msglen)
{
    int dim = model ? cr_model_dimension(model) : 0;
    if (dim != 2 && dim != 3) {
        cr_set_msg(msg, msglen, "a pool is built from a model of dimension 2 or 3");
        return NULL;
    }
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    if (cr_model_settings(model)->method == CR_METHOD_ERK) { /* pools run CVODES only */
        cr_set_msg(msg, msglen,
                   "integration.method 'erk' integrates chains; a pool takes 'auto', 'bdf', "
                   "'adams' or 'adams-fixed-point'");
        return NULL;
    }
    cr_pool *p = calloc(1, sizeof(*p));
    if (p) {
        p->dim = dim;
        p->sd = 2 * (size_t)dim;
        p->nqv = 1 + (size_t)dim;
    }
    if (!p || !(p->model = cr_model_copy(model)) || load_model(p) != CR_OK) {
        cr_set_msg(msg, msglen, "out of memory");
        cr_pool_destroy(p);
        return NULL;
    }
    load_settings(p);
    choose_scales(p);
    return p;
}

cr_pool *cr_pool_create(size_t n, const cr_disc *d, const cr_contact_params *law, char *msg,
                        size_t msglen)
{
    if (n == 0 || !d || !law) {
        cr_set_msg(msg, msglen, "a pool needs discs and a contact law");
        return NULL;
    }
    cr_model *model = cr_model_create();
    int rc = model ? cr_model_set_dimension(model, 2) : CR_ERR_NOMEM;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        double x[2] = {d[i].x, d[i].y}, v[2] = {d[i].vx, d[i].vy};
        rc = cr_model_add_body(model, d[i].mass, d[i].radius, x, v);
    }
    if (rc >= 0)
        rc = cr_model_set_default_contact(model, law);
    cr_pool *p = rc >= 0 ? cr_pool_create_from_model(model, msg, msglen) : NULL;
    if (rc < 0)
        cr_set_msg(msg, msglen, "%s", cr_strerror(rc));
    cr_model_destroy(model);
    return p;
}

int cr_pool_add_wall(cr_pool *p, const double *normal, double offset)
{
    return cr_pool_add_wall_law(p, normal, offset, NULL);
}

int cr_pool_add_wall_law(cr_pool *p, const double *normal, double offset,
                         const cr_contact_params *law)
{
    CR_CHECK(p && normal && (!law || cr_contact_params_check(law) == CR_OK), p ? p->err : NULL,
             CR_ERR_INVALID);
    int dim = p->dim;
    double len = cr_pl_norm(normal, dim), nrm[3] = {0};
    CR_CHECK(!p->ran && isfinite(len) && isfinite(offset) && len > 0.0, p->err, CR_ERR_INVALID);
    for (int d = 0; d < dim; d++)
        nrm[d] = normal[d] / len;
    offset /= len;
    for (size_t i = 0; i < p->n; i++) {
        double ov = offset + p->r[i] - cr_pl_dot(nrm, p->x0 + (size_t)dim * i, dim);
        if (ov > CR_GEOM_TOL * p->r[i]) {
            cr_set_msg(p->err, sizeof p->err,
                       "disc %zu lies outside the wall with unit normal (%g, %g, %g), offset %g "
                       "(overlap %g m)",
                       i, nrm[0], nrm[1], dim == 3 ? nrm[2] : 0.0, offset, ov);
            return CR_ERR_MODEL;
        }
    }
    int w = cr_model_add_plane(p->model, nrm, offset, law);
    if (w < 0)
        return w;
    double *wn = realloc(p->wn, (size_t)dim * (p->nw + 1) * sizeof(double));
    if (wn)
        p->wn = wn;
    double *wo = wn ? realloc(p->woff, (p->nw + 1) * sizeof(double)) : NULL;
    if (!wo)
        return CR_ERR_NOMEM;
    p->woff = wo;
    for (int d = 0; d < dim; d++)
        p->wn[(size_t)dim * p->nw + (size_t)d] = nrm[d];
    p->woff[p->nw] = offset;
    p->nw++;
    choose_scales(p); /* a stiffer wall sets a smaller characteristic overlap */
    return CR_OK;
}

int cr_pool_set_output(cr_pool *p, double interval, cr_pool_output_fn fn, void *user)
{
    CR_CHECK(p && isfinite(interval), p ? p->err : NULL, CR_ERR_INVALID);
    if (interval != p->out_interval) /* no longer the model's: not its file's line */
        snprintf(p->out_where, sizeof p->out_where, "output interval");
    p->out_interval = interval;
    p->out_fn = fn;
    p->out_user = user;
    return CR_OK;
}

void cr_pool_request_stop(cr_pool *p)
{
    if (p)
        p->stop_requested = 1;
}

int cr_pool_set_tolerances(cr_pool *p, double rtol, double atol)
{
    CR_CHECK(p && rtol > 0 && rtol < 1 && atol > 0, p ? p->err : NULL, CR_ERR_INVALID);
    p->rtol = rtol;
    p->atol = atol;
    return CR_OK;
}

int cr_pool_set_linear_solver(cr_pool *p, cr_linear_solver solver)
{
    CR_CHECK(p && !p->ran && (unsigned)solver <= CR_SOLVER_FIXED_POINT, p ? p->err : NULL,
             CR_ERR_INVALID);
    p->solver = solver;
    return CR_OK;
}

int cr_pool_set_skin(cr_pool *p, double rel)
{
    CR_CHECK(p && rel > 0 && isfinite(rel), p ? p->err : NULL, CR_ERR_INVALID);
    p->skin_rel = rel;
    return CR_OK;
}

int cr_pool_set_event_callback(cr_pool *p, cr_pool_event_fn fn, void *user)
{
    CR_CHECK(p, NULL, CR_ERR_INVALID);
    p->ev_fn = fn;
    p->ev_user = user;
    return CR_OK;
}
