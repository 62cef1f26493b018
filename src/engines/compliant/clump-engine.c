/*
 * The clump engine behind cr_system (dim 2 models with rigid bodies): the
 * system's bodies are the features (model bodies), so the monitor, the
 * contacts and the HDF5 layout see discs as in a pool; the rigid bodies'
 * orientation and angular velocity come through cr_system_rotating_body.
 * A feature's mass is reported as its body's mass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/common/engine-common.h"
#include "engines/compliant/clump-priv.h"
#include "engines/compliant/compliant.h"
#include "model/model.h"

typedef struct {
    cr_clumps *c;
    cr_system *sys;
    cr_model *model; /* own copy: radii, fixed bodies, clump ranges */
    size_t nclumps;
    char end[64];
} clump_engine;

#define CE(e) ((const clump_engine *)(e))

static int ce_output(void *user)
{
    clump_engine *ce = user;
    return cr_system_has_output_listener(ce->sys) ? cr_system_emit_output(ce->sys) : 0;
}

static int ce_events(void *user, size_t first)
{
    return cr_system_emit_events(((clump_engine *)user)->sys, first);
}

static void ce_destroy(void *e)
{
    clump_engine *ce = e;
    if (!ce)
        return;
    cr_clumps_destroy(ce->c);
    cr_model_destroy(ce->model);
    free(ce);
}

static void *ce_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    clump_engine *ce = calloc(1, sizeof(*ce));
    if (!ce || !(ce->model = cr_model_copy(model))) {
        free(ce);
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    ce->sys = sys;
    ce->nclumps = cr_model_clump_count(model);
    ce->c = cr_clumps_create(model, msg, msglen);
    if (!ce->c) {
        ce_destroy(ce);
        return NULL;
    }
    cr_clumps_set_callbacks(ce->c, cr_model_settings(model)->output_interval, ce_output, ce_events,
                            ce);
    return ce;
}

static int ce_run(void *e, double t_end)
{
    clump_engine *ce = e;
    int rc = cr_clumps_run(ce->c, t_end);
    snprintf(ce->end, sizeof ce->end, "%s",
             rc == CR_OK                ? "end time reached"
             : rc == CR_ERR_INTERRUPTED ? "stopped on request"
                                        : "failed");
    return rc;
}

static void ce_stop(void *e)
{
    cr_clumps_request_stop(((clump_engine *)e)->c);
}

static const char *ce_last_error(const void *e)
{
    return cr_clumps_last_error(CE(e)->c);
}

static const char *ce_end_reason(const void *e)
{
    return CE(e)->end;
}

static size_t ce_body_count(const void *e)
{
    return cr_model_body_count(CE(e)->model);
}

static size_t ce_wall_count(const void *e)
{
    return cr_model_plane_count(CE(e)->model);
}

static int ce_is_fixed(const void *e, size_t i)
{
    return cr_model_is_fixed(CE(e)->model, i);
}

static void ce_masses(const void *e, double *m)
{
    const clump_engine *ce = CE(e);
    for (size_t i = 0; i < ce_body_count(e); i++) {
        double J;
        cr_clumps_get_inertia(ce->c, cr_clumps_feature_body(ce->c, i), &m[i], &J);
        if (cr_model_is_fixed(ce->model, i))
            m[i] = INFINITY;
    }
}

static void ce_radii(const void *e, double *r)
{
    for (size_t i = 0; i < ce_body_count(e); i++)
        r[i] = cr_model_radius(CE(e)->model, i);
}

static int ce_wall(const void *e, size_t w, double *normal, double *offset)
{
    double n[3], off;
    int rc = cr_model_get_plane(CE(e)->model, w, n, &off);
    if (rc == CR_OK && normal)
        memcpy(normal, n, 2 * sizeof(double));
    if (rc == CR_OK && offset)
        *offset = off;
    return rc;
}

static double ce_time(const void *e)
{
    return cr_clumps_get_time(CE(e)->c);
}

static void ce_positions(const void *e, double *x)
{
    double v[2];
    for (size_t i = 0; i < ce_body_count(e); i++)
        cr_clumps_feature(CE(e)->c, i, x + 2 * i, v);
}

static void ce_velocities(const void *e, double *v)
{
    double x[2];
    for (size_t i = 0; i < ce_body_count(e); i++)
        cr_clumps_feature(CE(e)->c, i, x, v + 2 * i);
}

static size_t ce_contact_count(const void *e)
{
    return cr_clumps_contact_count(CE(e)->c);
}

static int ce_contact(const void *e, size_t k, cr_contact_view *w)
{
    const clump_engine *ce = CE(e);
    long i, j;
    double L;
    memset(w, 0, sizeof(*w));
    cr_clumps_contact_features(ce->c, k, &i, &j);
    w->body_a = (size_t)i;
    w->body_b = j;
    w->unilateral = 1;
    w->impulse = cr_clumps_contact_impulse(ce->c, k, w->vector_impulse);
    cr_clumps_contact_now(ce->c, k, &w->overlap, &w->rate, w->normal, &w->force);
    cr_clumps_scales(ce->c, &L, NULL, NULL);
    double rmin = cr_model_radius(ce->model, (size_t)i);
    if (j >= 0)
        rmin = fmin(rmin, cr_model_radius(ce->model, (size_t)j));
    w->state = w->overlap > CR_EVENT_MARGIN * L && w->force > 0.0 ? CR_CONTACT_LOADED
               : w->overlap >= -CR_GEOM_TOL * rmin                ? CR_CONTACT_TOUCHING
                                                                  : CR_CONTACT_OPEN;
    w->settled = w->state != CR_CONTACT_LOADED && !(w->rate > 0.0);
    return CR_OK;
}

static const size_t *ce_body_contacts(const void *e, size_t i, size_t *n)
{
    return cr_clumps_feature_contacts(CE(e)->c, i, n);
}

static size_t ce_event_count(const void *e)
{
    return cr_clumps_event_count(CE(e)->c);
}

static const cr_event *ce_events_list(const void *e)
{
    return cr_clumps_events(CE(e)->c);
}

static double ce_kinetic(const void *e)
{
    return cr_clumps_kinetic_energy(CE(e)->c);
}

/* −Σ m g·x over the bodies' centres of mass. */
static double ce_potential(const void *e)
{
    const clump_engine *ce = CE(e);
    double g[3] = {0, 0, 0}, U = 0.0;
    cr_model_get_gravity_vector(ce->model, g);
    for (size_t b = 0; b < cr_clumps_body_count(ce->c); b++) {
        double x[2], v[2], th, om, m, J;
        cr_clumps_get_body(ce->c, b, x, v, &th, &om);
        cr_clumps_get_inertia(ce->c, b, &m, &J);
        if (isfinite(m) && (g[0] != 0.0 || g[1] != 0.0))
            U -= m * (g[0] * x[0] + g[1] * x[1]);
    }
    return U;
}

static double ce_dissipated(const void *e)
{
    return cr_clumps_dissipated_work(CE(e)->c);
}

static void ce_momentum(const void *e, double *p)
{
    cr_clumps_momentum(CE(e)->c, p);
}

static double ce_settle(const void *e)
{
    (void)e;
    return 0.0;
}

static cr_run_stats ce_stats(const void *e)
{
    return cr_clumps_get_stats(CE(e)->c);
}

static void ce_scales(const void *e, double *length, double *speed, double *time)
{
    cr_clumps_scales(CE(e)->c, length, speed, time);
}

static size_t ce_rotating_count(const void *e)
{
    return CE(e)->nclumps;
}

static int ce_rotating_body(const void *e, size_t k, cr_rotating_body *out)
{
    const clump_engine *ce = CE(e);
    const cr_clump *cl = cr_model_get_clump(ce->model, k);
    if (!cl)
        return CR_ERR_INVALID;
    cr_clumps_get_body(ce->c, k, out->x, out->v, &out->theta, &out->omega);
    cr_clumps_get_inertia(ce->c, k, &out->mass, &out->J);
    out->first = cl->first;
    out->count = cl->count;
    return CR_OK;
}

/* The clump engine integrates with CVODES' BDF always (clump.c): its stiff
 * contacts and small size leave no choice worth making. */
static int ce_method(const void *e)
{
    (void)e;
    return CR_METHOD_BDF;
}

const cr_engine_ops cr_clump_engine = {.name = "clump",
                                       .dim = 2,
                                       .create = ce_create,
                                       .destroy = ce_destroy,
                                       .run = ce_run,
                                       .request_stop = ce_stop,
                                       .last_error = ce_last_error,
                                       .end_reason = ce_end_reason,
                                       .contacts_fixed = 0,
                                       .locates_force_peaks = 0,
                                       .body_count = ce_body_count,
                                       .wall_count = ce_wall_count,
                                       .is_fixed = ce_is_fixed,
                                       .masses = ce_masses,
                                       .radii = ce_radii,
                                       .wall = ce_wall,
                                       .time = ce_time,
                                       .positions = ce_positions,
                                       .velocities = ce_velocities,
                                       .contact_count = ce_contact_count,
                                       .contact = ce_contact,
                                       .body_contacts = ce_body_contacts,
                                       .event_count = ce_event_count,
                                       .events = ce_events_list,
                                       .kinetic_energy = ce_kinetic,
                                       .potential_energy = ce_potential,
                                       .dissipated_work = ce_dissipated,
                                       .momentum = ce_momentum,
                                       .settle_time = ce_settle,
                                       .stats = ce_stats,
                                       .method = ce_method,
                                       .scales = ce_scales,
                                       .rotating_count = ce_rotating_count,
                                       .rotating_body = ce_rotating_body};
