/*
 * The pool engine behind cr_system: the ops table over the cr_pool_* calls,
 * one table per dimension (the same functions; the table's dim is what
 * cr_system_dimension reports).
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>

#include "engines/compliant/compliant.h"
#include "model/model.h"

typedef struct {
    cr_pool *pool;
    cr_system *sys;
} pool_engine;

static int pool_output(const cr_pool *pool, void *user)
{
    (void)pool;
    return cr_system_emit_output(((pool_engine *)user)->sys);
}

static int pool_output_wanted(void *user)
{
    return cr_system_has_output_listener(((pool_engine *)user)->sys);
}

static int pool_events(const cr_pool *pool, size_t first, void *user)
{
    (void)pool;
    return cr_system_emit_events(((pool_engine *)user)->sys, first);
}

static void pe_destroy(void *e)
{
    pool_engine *pe = e;
    if (!pe)
        return;
    cr_pool_destroy(pe->pool);
    free(pe);
}

static void *pe_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    pool_engine *pe = calloc(1, sizeof(*pe));
    if (!pe) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    pe->sys = sys;
    pe->pool = cr_pool_create_from_model(model, msg, msglen);
    if (!pe->pool) {
        free(pe);
        return NULL;
    }
    cr_pool_set_output(pe->pool, cr_model_settings(model)->output_interval, pool_output, pe);
    pe->pool->out_wanted = pool_output_wanted;
    cr_pool_set_event_callback(pe->pool, pool_events, pe);
    return pe;
}

#define POOL(e) (((const pool_engine *)(e))->pool)

static int pe_run(void *e, double t_end)
{
    return cr_pool_run(((pool_engine *)e)->pool, t_end);
}

static void pe_stop(void *e)
{
    cr_pool_request_stop(((pool_engine *)e)->pool);
}

static const char *pe_last_error(const void *e)
{
    return cr_pool_last_error(POOL(e));
}

static const char *pe_end_reason(const void *e)
{
    return cr_pool_end_reason(POOL(e));
}

static size_t pe_body_count(const void *e)
{
    return POOL(e)->n;
}

static size_t pe_wall_count(const void *e)
{
    return POOL(e)->nw;
}

static int pe_is_fixed(const void *e, size_t i)
{
    return POOL(e)->fixed[i];
}

/* As every engine reports them: a fixed body's mass is infinite. */
static void pe_masses(const void *e, double *m)
{
    const cr_pool *p = POOL(e);
    cr_pool_get_discs(p, m, NULL);
    for (size_t i = 0; i < p->n; i++)
        if (p->fixed[i])
            m[i] = INFINITY;
}

static void pe_radii(const void *e, double *r)
{
    cr_pool_get_discs(POOL(e), NULL, r);
}

static int pe_wall(const void *e, size_t w, double *normal, double *offset)
{
    const cr_pool *p = POOL(e);
    if (w >= p->nw)
        return CR_ERR_INVALID;
    if (normal)
        memcpy(normal, p->wn + (size_t)p->dim * w, (size_t)p->dim * sizeof(double));
    if (offset)
        *offset = p->woff[w];
    return CR_OK;
}

static double pe_time(const void *e)
{
    return POOL(e)->t;
}

static void pe_positions(const void *e, double *x)
{
    cr_pool_get_positions(POOL(e), x);
}

static void pe_velocities(const void *e, double *v)
{
    cr_pool_get_velocities(POOL(e), v);
}

static size_t pe_contact_count(const void *e)
{
    return POOL(e)->nc;
}

/* Contact c's overlap, normal and rate at t = 0 (before the run has a state). */
static void initial_geometry(const cr_pool *p, const cr_pool_contact *c, cr_contact_view *w)
{
    size_t dim = (size_t)p->dim, i = (size_t)c->i;
    const double *vi = p->v0 + dim * i;
    if (c->j >= 0) {
        double d = cr_pl_norm(c->a0, p->dim), wv[3] = {0};
        const double *vj = p->v0 + dim * (size_t)c->j;
        w->overlap = c->c0 / (c->R + d);
        for (size_t q = 0; q < dim; q++) {
            w->normal[q] = c->a0[q] / d;
            wv[q] = vj[q] - vi[q];
        }
        w->rate = -cr_pl_dot(w->normal, wv, p->dim);
    } else {
        const double *m = p->wn + dim * (size_t)(-1 - c->j);
        w->overlap = c->c0;
        memcpy(w->normal, m, dim * sizeof(double));
        w->rate = -cr_pl_dot(m, vi, p->dim);
    }
}

static int pe_contact(const void *e, size_t k, cr_contact_view *w)
{
    const cr_pool *p = POOL(e);
    const cr_pool_contact *c = &p->c[k];
    memset(w, 0, sizeof(*w));
    w->body_a = (size_t)c->i;
    w->body_b = c->j;
    w->unilateral = 1;
    w->impulse = cr_pool_contact_impulse(p, k, w->vector_impulse);
    double rmin = c->j >= 0 ? fmin(p->r[c->i], p->r[c->j]) : p->r[c->i];
    if (!p->y) /* before the run: the initial geometry */
        initial_geometry(p, c, w);
    else {
        double dist;
        cr_pl_geom(p, N_VGetArrayPointer(p->y), c, &w->overlap, &w->rate, w->normal, &dist);
    }
    w->force = w->overlap > 0.0 ? cr_contact_force(cr_pl_law(p, c), w->overlap, w->rate) : 0.0;
    if (w->overlap > CR_EVENT_MARGIN * p->L && w->force > 0.0)
        w->state = CR_CONTACT_LOADED;
    else if (w->overlap >= -CR_GEOM_TOL * rmin)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    /* the pool's end rule: not loaded, and a candidate pair not approaching */
    w->settled = w->state != CR_CONTACT_LOADED && !(c->slot >= 0 && w->rate > 0.0);
    return CR_OK;
}

static const size_t *pe_body_contacts(const void *e, size_t i, size_t *n)
{
    const cr_pool *p = POOL(e);
    *n = p->bc ? p->nbc[i] : 0;
    return *n ? p->bc[i] : NULL;
}

static size_t pe_event_count(const void *e)
{
    return POOL(e)->nev;
}

static const cr_event *pe_events(const void *e)
{
    return POOL(e)->events;
}

static double pe_kinetic(const void *e)
{
    return cr_pool_kinetic_energy(POOL(e));
}

static double pe_field_work(const void *e, size_t i, const double *x0, const double *x1)
{
    const cr_pool *p = POOL(e);
    return cr_field_work(p->fixed[i] ? INFINITY : p->m[i], p->g, p->dim, 0.0, 0.0, 0.0, x0, x1);
}

static double pe_potential(const void *e)
{
    return cr_pool_potential_energy(POOL(e));
}

static double pe_dissipated(const void *e)
{
    return cr_pool_dissipated_work(POOL(e));
}

static void pe_momentum(const void *e, double *p)
{
    cr_pool_momentum(POOL(e), p);
}

static double pe_settle(const void *e)
{
    (void)e;
    return 0.0;
}

static cr_run_stats pe_stats(const void *e)
{
    cr_run_stats st = cr_pool_get_stats(POOL(e));
    st.rebuilds = POOL(e)->rebuilds;
    return st;
}

static void pe_scales(const void *e, double *length, double *speed, double *time)
{
    const cr_pool *p = POOL(e);
    if (length)
        *length = p->L;
    if (speed)
        *speed = p->V;
    if (time)
        *time = p->T;
}

static int pe_method(const void *e)
{
    return cr_pl_method(POOL(e));
}

static int pe_check_jacobian(void *e, double *max_rel)
{
    return cr_pool_check_jacobian(((pool_engine *)e)->pool, max_rel);
}

/* Everything but the name and the dimension: the same engine in 2-D and 3-D. */
#define POOL_OPS                                                                                   \
    .create = pe_create, .destroy = pe_destroy, .run = pe_run, .request_stop = pe_stop,            \
    .last_error = pe_last_error, .end_reason = pe_end_reason, .contacts_fixed = 0,                 \
    .locates_force_peaks = 1, .body_count = pe_body_count, .wall_count = pe_wall_count,            \
    .is_fixed = pe_is_fixed, .masses = pe_masses, .radii = pe_radii, .wall = pe_wall,              \
    .time = pe_time, .positions = pe_positions, .velocities = pe_velocities,                       \
    .contact_count = pe_contact_count, .contact = pe_contact, .body_contacts = pe_body_contacts,   \
    .event_count = pe_event_count, .events = pe_events, .kinetic_energy = pe_kinetic,              \
    .potential_energy = pe_potential, .field_work = pe_field_work,                                 \
    .dissipated_work = pe_dissipated, .momentum = pe_momentum, .settle_time = pe_settle,           \
    .stats = pe_stats, .scales = pe_scales, .check_jacobian = pe_check_jacobian,                   \
    .method = pe_method,

const cr_engine_ops cr_pool_engine = {.name = "pool", .dim = 2, POOL_OPS};

const cr_engine_ops cr_pool3_engine = {.name = "pool", .dim = 3, POOL_OPS};
