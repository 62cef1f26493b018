/*
 * The chain engine behind cr_system: cr_sim wrapped in the engine table.
 */
#include "model/model.h"
#include "engines/compliant/sim-priv.h"

#include <stdlib.h>
#include <string.h>

#include "engines/compliant/compliant.h"

typedef struct {
    cr_sim *sim;
    cr_system *sys;
    size_t *contacts_of; /* contact c twice: body i's contacts are i − 1 and i */
} chain_engine;

static int chain_output(const cr_sim *sim, void *user)
{
    (void)sim;
    return cr_system_emit_output(((chain_engine *)user)->sys);
}

static int chain_output_wanted(void *user)
{
    return cr_system_has_output_listener(((chain_engine *)user)->sys);
}

static int chain_events(const cr_sim *sim, size_t first, void *user)
{
    (void)sim;
    return cr_system_emit_events(((chain_engine *)user)->sys, first);
}

static void chain_destroy(void *e)
{
    chain_engine *c = e;
    if (!c)
        return;
    cr_sim_destroy(c->sim);
    free(c->contacts_of);
    free(c);
}

static void *chain_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    chain_engine *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    c->sys = sys;
    c->sim = cr_sim_create(model, msg, msglen);
    size_t nc = c->sim ? c->sim->nc : 0;
    c->contacts_of = malloc((2 * nc + 1) * sizeof(size_t));
    if (!c->sim || !c->contacts_of) {
        if (c->sim)
            cr_set_msg(msg, msglen, "out of memory");
        chain_destroy(c);
        return NULL;
    }
    for (size_t k = 0; k < nc; k++)
        c->contacts_of[2 * k] = c->contacts_of[2 * k + 1] = k;
    c->sim->jac_floor_rel = cr_model_settings(model)->jacobian_floor;
    cr_sim_set_output(c->sim, cr_model_settings(model)->output_interval, chain_output, c);
    c->sim->out_wanted = chain_output_wanted;
    cr_sim_set_event_callback(c->sim, chain_events, c);
    return c;
}

#define SIM(e) (((const chain_engine *)(e))->sim)

static int chain_run(void *e, double t_end)
{
    return cr_sim_run(((chain_engine *)e)->sim, t_end);
}

static void chain_stop(void *e)
{
    cr_sim_request_stop(((chain_engine *)e)->sim);
}

static const char *chain_last_error(const void *e)
{
    return cr_sim_last_error(SIM(e));
}

static const char *chain_end_reason(const void *e)
{
    return cr_sim_end_reason(SIM(e));
}

static size_t chain_body_count(const void *e)
{
    return SIM(e)->nb;
}

static size_t chain_no_walls(const void *e)
{
    (void)e;
    return 0;
}

static int chain_is_fixed(const void *e, size_t i)
{
    return SIM(e)->fixed[i];
}

static void chain_masses(const void *e, double *m)
{
    const cr_sim *s = SIM(e);
    for (size_t i = 0; i < s->nb; i++)
        m[i] = s->fixed[i] ? INFINITY : s->mass[i];
}

static void chain_radii(const void *e, double *r)
{
    memcpy(r, SIM(e)->radius, SIM(e)->nb * sizeof(double));
}

static int chain_wall(const void *e, size_t w, double *normal, double *offset)
{
    (void)e, (void)w, (void)normal, (void)offset;
    return CR_ERR_INVALID;
}

static double chain_time(const void *e)
{
    return SIM(e)->t;
}

static void chain_positions(const void *e, double *x)
{
    cr_sim_get_positions(SIM(e), x);
}

static void chain_velocities(const void *e, double *v)
{
    cr_sim_get_velocities(SIM(e), v);
}

static size_t chain_contact_count(const void *e)
{
    return SIM(e)->nc;
}

static int chain_contact(const void *e, size_t c, cr_contact_view *w)
{
    const cr_sim *s = SIM(e);
    memset(w, 0, sizeof(*w));
    w->body_a = c;
    w->body_b = (long)c + 1;
    w->unilateral = s->contact_on[c];
    w->linked = s->has_link[c];
    cr_sm_pair_now(s, c, &w->overlap, &w->rate);
    w->force = cr_sm_contact_force(s, c, w->overlap, w->rate);
    double rmin = s->fixed[c]
                      ? s->radius[c + 1]
                      : (s->fixed[c + 1] ? s->radius[c] : fmin(s->radius[c], s->radius[c + 1]));
    if (cr_sim_contact_loaded(s, c))
        w->state = CR_CONTACT_LOADED;
    else if (w->overlap >= -CR_GEOM_TOL * rmin)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    w->settled = cr_sim_contact_settled(s, c);
    w->impulse = s->Pscale * cr_sm_impulse_now(s, c);
    w->normal[0] = 1.0;
    w->vector_impulse[0] = w->impulse;
    return CR_OK;
}

static const size_t *chain_body_contacts(const void *e, size_t i, size_t *n)
{
    const chain_engine *c = e;
    size_t nc = c->sim->nc;
    *n = (i > 0 && i - 1 < nc) + (i < nc);
    return *n ? c->contacts_of + (i > 0 ? 2 * i - 1 : 0) : NULL;
}

static size_t chain_event_count(const void *e)
{
    return SIM(e)->nev;
}

static const cr_event *chain_events_get(const void *e)
{
    return SIM(e)->events;
}

static double chain_kinetic(const void *e)
{
    return cr_sim_kinetic_energy(SIM(e));
}

static double chain_potential(const void *e)
{
    return cr_sim_potential_energy(SIM(e));
}

static double chain_field_work(const void *e, size_t i, const double *x0, const double *x1)
{
    const cr_sim *s = SIM(e);
    if (s->fixed[i])
        return 0.0;
    return cr_field_work(s->mass[i], &s->gravity, 1, s->pivot[i], s->plength[i], s->pg[i], x0, x1);
}

static double chain_dissipated(const void *e)
{
    return cr_sim_dissipated_work(SIM(e));
}

static void chain_momentum(const void *e, double *p)
{
    p[0] = cr_sim_momentum(SIM(e));
}

static double chain_settle(const void *e)
{
    return SIM(e)->settle;
}

static cr_run_stats chain_stats(const void *e)
{
    return cr_sim_get_stats(SIM(e));
}

static void chain_scales(const void *e, double *length, double *speed, double *time)
{
    cr_sim_get_scales(SIM(e), length, speed, time);
}

static int chain_method(const void *e)
{
    return (int)cr_sim_method(SIM(e));
}

const cr_engine_ops cr_chain_engine = {
    .name = "chain",
    .create = chain_create,
    .destroy = chain_destroy,
    .run = chain_run,
    .request_stop = chain_stop,
    .last_error = chain_last_error,
    .end_reason = chain_end_reason,
    .dim = 1,
    .contacts_fixed = 1,
    .locates_force_peaks = 1,
    .body_count = chain_body_count,
    .wall_count = chain_no_walls,
    .is_fixed = chain_is_fixed,
    .masses = chain_masses,
    .radii = chain_radii,
    .wall = chain_wall,
    .time = chain_time,
    .positions = chain_positions,
    .velocities = chain_velocities,
    .contact_count = chain_contact_count,
    .contact = chain_contact,
    .body_contacts = chain_body_contacts,
    .event_count = chain_event_count,
    .events = chain_events_get,
    .kinetic_energy = chain_kinetic,
    .potential_energy = chain_potential,
    .field_work = chain_field_work,
    .dissipated_work = chain_dissipated,
    .momentum = chain_momentum,
    .settle_time = chain_settle,
    .stats = chain_stats,
    .scales = chain_scales,
    .method = chain_method,
};
