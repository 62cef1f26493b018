/*
 * The rigid limit of one impact episode (compare.h, docs/compare.md "The rigid
 * limit"): the episode's bodies, at their state when it starts, rerun with every
 * contact stiffer by aᵏ and damped so that each pair keeps its restitution, and
 * α, u⁺ extrapolated to K → ∞.
 *
 * Why C scales as a^((m+1)/(n+1)): with δ* = (μV²/K)^(1/(n+1)) and t* = δ* / V the
 * law f = K δⁿ + C δᵐ δ̇ in scaled variables keeps the one ratio C δ*^(m−n) V / K;
 * holding it fixed as K → aK needs C → a^(1 − (n−m)/(n+1)) C = a^((m+1)/(n+1)) C.
 * Everything that depends on K alone then moves with h = a^(−1/(n+1)) (δ* / R, the
 * turn of a pool's normals during contact, t_c in units of the flight time),
 * so the extrapolation is Richardson's in powers of h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare-priv.h"
#include "cradle/rigidlimit.h"
#include "cradle/system.h"

/* Richardson columns used: orders h, h², h³ eliminated (with 5 levels). */
#define RL_MAX_COLUMNS 3

cr_rigid_limit_options cr_rigid_limit_defaults(void)
{
    cr_rigid_limit_options o = {5, 10.0};
    return o;
}

void cr_rigid_limit_free(cr_rigid_limit *r)
{
    if (!r)
        return;
    free(r->alpha);
    free(r->velocity);
    free(r->alpha_limit);
    free(r->velocity_limit);
    r->alpha = r->velocity = r->alpha_limit = r->velocity_limit = NULL;
}

/* ---- the episode's configuration as a model of its own -------------------------- */

/* Positions and velocities of every body at t_start: the model run to there
 * (at t = 0 the model's own). */
static int state_at_start(const cr_model *model, double t_start, double *x, double *v, char *msg,
                          size_t msglen)
{
    size_t nb = cr_model_body_count(model), dim = (size_t)cr_model_dimension(model);
    if (t_start <= 0.0) {
        for (size_t i = 0; i < nb; i++)
            cr_model_get_body(model, i, x + dim * i, v + dim * i);
        return CR_OK;
    }
    cr_system *sys = cr_system_create(model, msg, msglen);
    if (!sys)
        return CR_ERR_MODEL;
    int rc = cr_system_run(sys, t_start);
    if (rc != CR_OK)
        cr_set_msg(msg, msglen, "running to the episode's start: %s", cr_system_last_error(sys));
    cr_system_get_positions(sys, x);
    cr_system_get_velocities(sys, v);
    cr_system_destroy(sys);
    return rc;
}

/* A pair law stiffer by a, damped for the same restitution. */
static cr_contact_params scaled_law(cr_contact_params law, double a)
{
    law.K *= a;
    law.C *= pow(a, (law.m + 1.0) / (law.n + 1.0));
    return law;
}

/* What a level needs of the original model: the episode's bodies (sub body i is
 * ep->bodies[i]) and the walls its records touch (sub wall w is walls[w]). */
typedef struct {
    const cr_model *model;
    const cr_episode_data *ep;
    const double *x, *v; /* every body's state at t_start, dim per body */
    size_t dim;          /* 2 (discs) or 3 (spheres) */
    size_t walls[64], nwalls;
} rl_source;

static int find_wall(const rl_source *s, size_t w)
{
    for (size_t q = 0; q < s->nwalls; q++)
        if (s->walls[q] == w)
            return (int)q;
    return -1;
}

/* Sub-model bodies and walls (no laws yet). */
static int add_geometry(const rl_source *s, cr_model *sub)
{
    const cr_episode_data *ep = s->ep;
    int rc = cr_model_set_dimension(sub, (int)s->dim);
    for (size_t i = 0; rc >= 0 && i < ep->info.body_count; i++) {
        size_t b = ep->bodies[i];
        rc = cr_model_add_body(sub, cr_model_mass(s->model, b), cr_model_radius(s->model, b),
                               s->x + s->dim * b, s->v + s->dim * b);
    }
    for (size_t q = 0; rc >= 0 && q < s->nwalls; q++) {
        double nrm[3], off;
        cr_model_get_plane(s->model, s->walls[q], nrm, &off);
        rc = cr_model_add_plane(sub, nrm, off, NULL);
    }
    double g[3];
    cr_model_get_gravity_vector(s->model, g);
    return rc < 0 ? rc : cr_model_set_gravity_vector(sub, g);
}

/* Every pair's (and body-wall) law of the original, scaled by a, set explicitly. */
static int add_laws(const rl_source *s, cr_model *sub, double a)
{
    const cr_episode_data *ep = s->ep;
    size_t nb = ep->info.body_count;
    cr_contact_params law = scaled_law(*cr_model_default_contact(s->model), a);
    int rc = cr_model_set_default_contact(sub, &law);
    for (size_t i = 0; rc >= 0 && i < nb; i++) {
        for (size_t j = i + 1; rc >= 0 && j < nb; j++) {
            rc = cr_model_pair_law(s->model, ep->bodies[i], (long)ep->bodies[j], &law);
            law = scaled_law(law, a);
            if (rc >= 0)
                rc = cr_model_set_pair_law(sub, i, (long)j, &law);
        }
        for (size_t q = 0; rc >= 0 && q < s->nwalls; q++) {
            rc = cr_model_pair_law(s->model, ep->bodies[i], CR_WALL_BODY(s->walls[q]), &law);
            law = scaled_law(law, a);
            if (rc >= 0)
                rc = cr_model_set_pair_law(sub, i, CR_WALL_BODY(q), &law);
        }
    }
    return rc;
}

/* The model of level a: geometry, scaled laws, the original's settings (an end
 * time only with fields: the run stops after the first episode anyway). */
static cr_model *level_model(const rl_source *s, double a)
{
    cr_model *sub = cr_model_create();
    if (!sub || add_geometry(s, sub) < 0 || add_laws(s, sub, a) < 0) {
        cr_model_destroy(sub);
        return NULL;
    }
    cr_settings set = *cr_model_settings(s->model);
    set.t_end = cr_model_has_fields(s->model) ? fmax(set.t_end - s->ep->info.t_start, 0.0) : 0.0;
    cr_model_set_settings(sub, &set);
    cr_model_set_name(sub, "rigid-limit level");
    return sub;
}

/* ---- one level ---------------------------------------------------------------- */

/* Stops the run once the monitor has finished its first episode (later
 * episodes of the free bodies are not this one's). */
typedef struct {
    const cr_monitor *mon;
    int done;
} rl_stop;

static int stop_after_first(const cr_system *sys, size_t first, void *user)
{
    (void)sys, (void)first;
    rl_stop *st = user;
    cr_episode_info info;
    if (cr_monitor_get_episode(st->mon, 0, &info) == CR_OK) {
        st->done = 1;
        return CR_ERR_INTERRUPTED;
    }
    return CR_OK;
}

/* Sub-body or wall index → the original's numbering (records' body_b). */
static long original_b(const rl_source *s, long b)
{
    return b >= 0 ? (long)s->ep->bodies[b] : CR_WALL_BODY(s->walls[CR_WALL_INDEX(b)]);
}

/* ‖Δ(Mu) − W P‖ / ‖W P‖ with W from the normals at joining (field-free). */
static double momentum_residual(const cr_episode_data *d)
{
    size_t nb = d->info.body_count, dim = (size_t)d->dim;
    double *r = calloc(dim * nb + 1, sizeof(double)), *wp = calloc(dim * nb + 1, sizeof(double));
    double num = 0.0, den = 0.0;
    if (!r || !wp) {
        free(r);
        free(wp);
        return NAN;
    }
    for (size_t i = 0; i < nb; i++)
        for (size_t c = 0; c < dim; c++)
            r[dim * i + c] =
                d->mass[i] * (d->velocity_after[dim * i + c] - d->velocity_before[dim * i + c]);
    for (size_t k = 0; k < d->info.contact_count; k++) {
        const cr_contact_record *rec = &d->records[k];
        const double *n = d->normals + dim * k;
        for (size_t i = 0; i < nb; i++) {
            double s = d->bodies[i] == rec->body_a ? (rec->body_b < 0 ? 1.0 : -1.0)
                       : rec->body_b >= 0 && d->bodies[i] == (size_t)rec->body_b ? 1.0
                                                                                 : 0.0;
            for (size_t c = 0; c < dim; c++)
                wp[dim * i + c] += s * n[c] * rec->impulse;
        }
    }
    for (size_t q = 0; q < dim * nb; q++) {
        num += (r[q] - wp[q]) * (r[q] - wp[q]);
        den += wp[q] * wp[q];
    }
    free(r);
    free(wp);
    return den > 0.0 ? sqrt(num / den) : NAN;
}

/* Copies level L's α (per record of ep, matched by bodies) and u⁺ into out. */
static int take_level(const rl_source *s, const cr_episode_data *d, size_t L, cr_rigid_limit *out,
                      char *msg, size_t msglen)
{
    const cr_episode_data *ep = s->ep;
    for (size_t k = 0; k < ep->info.contact_count; k++) {
        double a = NAN;
        for (size_t q = 0; q < d->info.contact_count; q++) {
            const cr_contact_record *rq = &d->records[q];
            if (ep->bodies[rq->body_a] == ep->records[k].body_a &&
                original_b(s, rq->body_b) == ep->records[k].body_b)
                a = rq->alpha;
        }
        out->alpha[L * out->contacts + k] = a;
    }
    size_t dim = s->dim;
    for (size_t i = 0; i < ep->info.body_count; i++) {
        double *u = out->velocity + L * out->dofs + dim * i;
        for (size_t c = 0; c < dim; c++)
            u[c] = NAN;
        for (size_t q = 0; q < d->info.body_count; q++)
            if (d->bodies[q] == i)
                memcpy(u, d->velocity_after + dim * q, dim * sizeof(double));
    }
    const cr_contact_record *ref = &d->records[d->info.reference_record];
    const cr_contact_record *ref0 = &ep->records[ep->info.reference_record];
    if (ep->bodies[ref->body_a] != ref0->body_a || original_b(s, ref->body_b) != ref0->body_b) {
        cr_set_msg(msg, msglen, "at K x %g the episode starts at another contact", out->factor[L]);
        return CR_ERR_INVALID;
    }
    out->duration[L] = d->info.t_end - d->info.t_start;
    out->residual[L] = momentum_residual(d);
    return CR_OK;
}

static int run_level(const rl_source *s, size_t L, cr_rigid_limit *out, char *msg, size_t msglen)
{
    cr_model *sub = level_model(s, out->factor[L]);
    cr_system *sys = sub ? cr_system_create(sub, msg, msglen) : NULL;
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    rl_stop st = {mon, 0};
    int rc = mon ? cr_system_add_event_listener(sys, stop_after_first, &st) : CR_ERR_NOMEM;
    if (rc == CR_OK) {
        rc = cr_system_run(sys, cr_model_settings(sub)->t_end);
        if (rc == CR_ERR_INTERRUPTED && st.done)
            rc = CR_OK;
        if (rc != CR_OK)
            cr_set_msg(msg, msglen, "K x %g: %s", out->factor[L], cr_system_last_error(sys));
    }
    cr_episode_data d;
    if (rc == CR_OK && (cr_monitor_finish(mon) != CR_OK || cr_monitor_episode_count(mon) == 0 ||
                        cr_monitor_episode_data(mon, 0, &d) != CR_OK)) {
        cr_set_msg(msg, msglen, "K x %g: no complete episode", out->factor[L]);
        rc = CR_ERR_INVALID;
    }
    if (rc == CR_OK)
        rc = take_level(s, &d, L, out, msg, msglen);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(sub);
    if (!sub && msg)
        cr_set_msg(msg, msglen, "out of memory building a level");
    return sub ? rc : CR_ERR_NOMEM;
}

/* ---- extrapolation -------------------------------------------------------------- */

/* Richardson in powers of h (ratio ρ = h_{k−1}/h_k between levels) on the
 * sequence q[k·stride], k < L: the last diagonal entry with up to
 * RL_MAX_COLUMNS orders removed, and in *change its difference from the
 * column before (the accuracy estimate). */
static double richardson(const double *q, size_t stride, size_t L, double rho, double *change)
{
    double T[CR_RIGID_LIMIT_MAX_LEVELS][RL_MAX_COLUMNS + 1];
    size_t J = L - 1 < RL_MAX_COLUMNS ? L - 1 : RL_MAX_COLUMNS;
    for (size_t k = 0; k < L; k++) {
        T[k][0] = q[k * stride];
        for (size_t j = 1; j <= J && j <= k; j++)
            T[k][j] = T[k][j - 1] + (T[k][j - 1] - T[k - 1][j - 1]) / (pow(rho, (double)j) - 1.0);
    }
    *change = fabs(T[L - 1][J] - T[L - 1][J - 1]);
    return T[L - 1][J];
}

/* Observed order in h from the last three levels (max norm over @p m entries);
 * NaN when the levels agree to CR_RIGID_LIMIT_NOISE (nothing depends on K). */
static double observed_order(const double *q, size_t m, size_t L, double rho)
{
    double d1 = 0.0, d2 = 0.0, scale = 1.0;
    for (size_t e = 0; e < m; e++) {
        d1 = fmax(d1, fabs(q[(L - 3) * m + e] - q[(L - 2) * m + e]));
        d2 = fmax(d2, fabs(q[(L - 2) * m + e] - q[(L - 1) * m + e]));
        scale = fmax(scale, fabs(q[(L - 1) * m + e]));
    }
    return d1 > CR_RIGID_LIMIT_NOISE * scale && d2 > CR_RIGID_LIMIT_NOISE * scale
               ? log(d1 / d2) / log(rho)
               : NAN;
}

static void extrapolate(cr_rigid_limit *r, double rho)
{
    size_t L = r->levels;
    r->alpha_accuracy = r->velocity_accuracy = 0.0;
    for (size_t k = 0; k < r->contacts; k++) {
        double ch;
        r->alpha_limit[k] = richardson(r->alpha + k, r->contacts, L, rho, &ch);
        r->alpha_accuracy = fmax(r->alpha_accuracy, ch);
    }
    for (size_t k = 0; k < r->dofs; k++) {
        double ch;
        r->velocity_limit[k] = richardson(r->velocity + k, r->dofs, L, rho, &ch);
        r->velocity_accuracy = fmax(r->velocity_accuracy, ch);
    }
    r->alpha_order = observed_order(r->alpha, r->contacts, L, rho);
    r->velocity_order = observed_order(r->velocity, r->dofs, L, rho);
    double la = log(r->factor[L - 1] / r->factor[L - 2]);
    r->duration_exponent = log(r->duration[L - 1] / r->duration[L - 2]) / la;
    r->residual_exponent = r->residual[L - 1] > CR_RIGID_LIMIT_NOISE
                               ? log(r->residual[L - 1] / r->residual[L - 2]) / la
                               : NAN;
}

/* ---- the entry point ---------------------------------------------------------- */

/* The one stiffness exponent of the episode's contacts, and its walls. */
static int check_episode(const cr_model *model, const cr_episode_data *ep, rl_source *s, double *n,
                         char *msg, size_t msglen)
{
    *n = NAN;
    for (size_t k = 0; k < ep->info.contact_count; k++) {
        const cr_contact_record *rec = &ep->records[k];
        cr_contact_params law;
        int rc = cr_model_pair_law(model, rec->body_a, rec->body_b, &law);
        if (rc != CR_OK)
            return rc;
        if (isfinite(*n) && law.n != *n) {
            cr_set_msg(msg, msglen, "contacts with n = %g and %g: no one small parameter", *n,
                       law.n);
            return CR_ERR_INVALID;
        }
        *n = law.n;
        if (rec->body_b < 0 && find_wall(s, CR_WALL_INDEX(rec->body_b)) < 0) {
            if (s->nwalls == sizeof s->walls / sizeof s->walls[0]) {
                cr_set_msg(msg, msglen, "more than %zu walls in one episode", s->nwalls);
                return CR_ERR_INVALID;
            }
            s->walls[s->nwalls++] = CR_WALL_INDEX(rec->body_b);
        }
    }
    for (size_t i = 0; i < ep->info.body_count; i++)
        if (!isfinite(ep->mass[i]) || cr_model_is_fixed(model, ep->bodies[i])) {
            cr_set_msg(msg, msglen,
                       "a fixed body in the episode (the levels rerun moving bodies and walls)");
            return CR_ERR_INVALID;
        }
    return ep->info.contact_count ? CR_OK : CR_ERR_INVALID;
}

static int allocate(cr_rigid_limit *r)
{
    size_t L = r->levels;
    r->alpha = malloc((L * r->contacts + 1) * sizeof(double));
    r->velocity = malloc((L * r->dofs + 1) * sizeof(double));
    r->alpha_limit = malloc((r->contacts + 1) * sizeof(double));
    r->velocity_limit = malloc((r->dofs + 1) * sizeof(double));
    return r->alpha && r->velocity && r->alpha_limit && r->velocity_limit ? CR_OK : CR_ERR_NOMEM;
}

int cr_compare_rigid_limit(const cr_model *model, const cr_episode_data *ep,
                           const cr_rigid_limit_options *opt, cr_rigid_limit *out, char *msg,
                           size_t msglen)
{
    cr_rigid_limit_options o = opt ? *opt : cr_rigid_limit_defaults();
    if (!out)
        return CR_ERR_INVALID;
    memset(out, 0, sizeof(*out));
    int dim = model ? cr_model_dimension(model) : 0;
    if (!model || !ep || dim < 2 || ep->dim != dim) {
        cr_set_msg(msg, msglen,
                   "the rigid limit is built for pools (dim 2 or 3): a chain's normals "
                   "never turn");
        return CR_ERR_INVALID;
    }
    if (o.levels < 3 || o.levels > CR_RIGID_LIMIT_MAX_LEVELS || !(o.ratio > 1.0) ||
        !isfinite(o.ratio)) {
        cr_set_msg(msg, msglen, "rigid limit: 3 to %d levels and a ratio > 1 (got %zu, %g)",
                   CR_RIGID_LIMIT_MAX_LEVELS, o.levels, o.ratio);
        return CR_ERR_INVALID;
    }
    rl_source s = {model, ep, NULL, NULL, (size_t)dim, {0}, 0};
    int rc = check_episode(model, ep, &s, &out->n, msg, msglen);
    if (rc != CR_OK)
        return rc;
    size_t nb = cr_model_body_count(model), sd = (size_t)dim;
    double *xv = malloc(2 * sd * nb * sizeof(double));
    out->levels = o.levels;
    out->contacts = ep->info.contact_count;
    out->dofs = sd * ep->info.body_count;
    rc = xv ? allocate(out) : CR_ERR_NOMEM;
    if (rc == CR_OK)
        rc = state_at_start(model, ep->info.t_start, xv, xv + sd * nb, msg, msglen);
    s.x = xv;
    s.v = xv + sd * nb;
    for (size_t L = 0; rc == CR_OK && L < o.levels; L++) {
        out->factor[L] = pow(o.ratio, (double)L);
        out->h[L] = pow(out->factor[L], -1.0 / (out->n + 1.0));
        rc = run_level(&s, L, out, msg, msglen);
    }
    free(xv);
    if (rc == CR_OK)
        extrapolate(out, pow(o.ratio, 1.0 / (out->n + 1.0)));
    if (rc == CR_ERR_NOMEM)
        cr_set_msg(msg, msglen, "out of memory");
    if (rc != CR_OK)
        cr_rigid_limit_free(out);
    return rc;
}
