/* The system: one engine behind the ops table, and the listeners that follow
 * its run (monitor, store, progress, compare). No physics lives here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "system/system.h"

const char *cr_event_kind_name(cr_event_kind kind)
{
    static const char *const names[] = {"close",           "open",          "max-compression",
                                        "min-compression", "force-release", "force-reengage",
                                        "max-force",       "swing-extreme"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

typedef struct {
    cr_output_listener out;
    cr_event_listener ev;
    void *user;
} listener;

struct cr_system {
    const cr_engine_ops *ops;
    void *engine;
    listener *ls;
    size_t nls, lscap;
    /* cr_system_set_start_time: the engines integrate from their own 0; the
     * clock they report is shifted here, and so are their events (a copy,
     * kept in step as they are emitted) */
    double t0;
    cr_event *shifted;
    size_t nshifted, shiftcap;
    char err[CR_ERRMSG_LEN];
};

cr_system *cr_system_build(const cr_engine_ops *ops, const cr_model *model, cr_engine_make make,
                           void *ctx, char *msg, size_t msglen)
{
    if (!ops || !model) {
        cr_set_msg(msg, msglen, "cr_system_create: no model");
        return NULL;
    }
    cr_system *sys = calloc(1, sizeof(*sys));
    if (!sys) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    sys->ops = ops;
    sys->engine = make ? make(model, sys, ctx, msg, msglen) : ops->create(model, sys, msg, msglen);
    if (!sys->engine) {
        free(sys);
        return NULL;
    }
    return sys;
}

cr_system *cr_system_create_with(const cr_engine_ops *ops, const cr_model *model, char *msg,
                                 size_t msglen)
{
    return cr_system_build(ops, model, NULL, NULL, msg, msglen);
}

/* The rigid-only controls: entries of the ops table that only rigid engines
 * fill (cradle/engine.h), so the door names no engine. */
int cr_system_rigid_law(const cr_system *sys, char *text, size_t len)
{
    if (!sys || !sys->ops->rigid_describe)
        return CR_ERR_INVALID;
    if (text && len)
        sys->ops->rigid_describe(sys->engine, text, len);
    return CR_OK;
}

int cr_system_rigid_set_provider(cr_system *sys, cr_rigid_provider fn, void *user,
                                 const char *label)
{
    if (!sys || !sys->ops->rigid_set_provider)
        return CR_ERR_INVALID;
    return sys->ops->rigid_set_provider(sys->engine, fn, user, label);
}

int cr_system_rigid_set_span(cr_system *sys, cr_rigid_span fn, void *user)
{
    if (!sys || !sys->ops->rigid_set_span)
        return CR_ERR_INVALID;
    return sys->ops->rigid_set_span(sys->engine, fn, user);
}

int cr_system_rigid_clamp_kappa(cr_system *sys, int on)
{
    if (!sys || !sys->ops->rigid_clamp_kappa)
        return CR_ERR_INVALID;
    return sys->ops->rigid_clamp_kappa(sys->engine, on);
}

const cr_kappa_clamp *cr_system_rigid_kappa_clamps(const cr_system *sys, size_t *n, int *on)
{
    if (n)
        *n = 0;
    if (on)
        *on = 0;
    if (!sys || !sys->ops->rigid_kappa_clamps)
        return NULL;
    return sys->ops->rigid_kappa_clamps(sys->engine, n, on);
}

size_t cr_system_rigid_kappa_fallbacks(const cr_system *sys)
{
    return sys && sys->ops->rigid_kappa_fallbacks ? sys->ops->rigid_kappa_fallbacks(sys->engine)
                                                  : 0;
}

void cr_system_destroy(cr_system *sys)
{
    if (!sys)
        return;
    sys->ops->destroy(sys->engine);
    free(sys->shifted);
    free(sys->ls);
    free(sys);
}

static int add_listener(cr_system *sys, listener l)
{
    if (sys->nls == sys->lscap) {
        size_t cap = sys->lscap ? 2 * sys->lscap : 4;
        listener *p = realloc(sys->ls, cap * sizeof(*p));
        if (!p)
            return CR_ERR_NOMEM;
        sys->ls = p;
        sys->lscap = cap;
    }
    sys->ls[sys->nls++] = l;
    return CR_OK;
}

int cr_system_add_output_listener(cr_system *sys, cr_output_listener fn, void *user)
{
    CR_CHECK(sys && fn, sys ? sys->err : NULL, CR_ERR_INVALID);
    return add_listener(sys, (listener){fn, NULL, user});
}

int cr_system_add_event_listener(cr_system *sys, cr_event_listener fn, void *user)
{
    CR_CHECK(sys && fn, sys ? sys->err : NULL, CR_ERR_INVALID);
    return add_listener(sys, (listener){NULL, fn, user});
}

void cr_system_remove_listeners(cr_system *sys, const void *user)
{
    if (!sys)
        return;
    size_t k = 0;
    for (size_t q = 0; q < sys->nls; q++)
        if (sys->ls[q].user != user)
            sys->ls[k++] = sys->ls[q];
    sys->nls = k;
}

/* Copies the engine's events not yet shifted, times moved by t0. */
static int shift_events(cr_system *sys)
{
    size_t n = sys->ops->event_count(sys->engine);
    if (sys->t0 == 0.0 || n <= sys->nshifted)
        return CR_OK;
    if (n > sys->shiftcap) {
        size_t cap = n > 2 * sys->shiftcap ? n : 2 * sys->shiftcap;
        cr_event *p = realloc(sys->shifted, cap * sizeof(*p));
        if (!p)
            return CR_ERR_NOMEM;
        sys->shifted = p;
        sys->shiftcap = cap;
    }
    const cr_event *ev = sys->ops->events(sys->engine);
    for (size_t k = sys->nshifted; k < n; k++) {
        sys->shifted[k] = ev[k];
        sys->shifted[k].t += sys->t0;
    }
    sys->nshifted = n;
    return CR_OK;
}

int cr_system_set_start_time(cr_system *sys, double t0)
{
    CR_CHECK(sys && isfinite(t0) && t0 >= 0.0, sys ? sys->err : NULL, CR_ERR_INVALID);
    CR_CHECK(sys->ops->event_count(sys->engine) == 0 && sys->ops->time(sys->engine) == 0.0,
             sys->err, CR_ERR_INVALID);
    sys->t0 = t0;
    return CR_OK;
}

double cr_system_start_time(const cr_system *sys)
{
    return sys ? sys->t0 : 0.0;
}

int cr_system_emit_output(cr_system *sys)
{
    if (shift_events(sys) != CR_OK)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < sys->nls; q++) {
        int rc = sys->ls[q].out ? sys->ls[q].out(sys, sys->ls[q].user) : CR_OK;
        if (rc != CR_OK)
            return rc;
    }
    return CR_OK;
}

int cr_system_has_output_listener(const cr_system *sys)
{
    for (size_t q = 0; sys && q < sys->nls; q++)
        if (sys->ls[q].out)
            return 1;
    return 0;
}

int cr_system_emit_events(cr_system *sys, size_t first)
{
    if (shift_events(sys) != CR_OK)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < sys->nls; q++) {
        int rc = sys->ls[q].ev ? sys->ls[q].ev(sys, first, sys->ls[q].user) : CR_OK;
        if (rc != CR_OK)
            return rc;
    }
    return CR_OK;
}

int cr_system_run(cr_system *sys, double t_end)
{
    CR_CHECK(sys && isfinite(t_end), sys ? sys->err : NULL, CR_ERR_INVALID);
    /* an automatic end (t_end <= 0) stays automatic */
    CR_CHECK(t_end <= 0.0 || t_end > sys->t0, sys->err, CR_ERR_INVALID);
    int rc = sys->ops->run(sys->engine, t_end > 0.0 ? t_end - sys->t0 : t_end);
    return shift_events(sys) != CR_OK && rc == CR_OK ? CR_ERR_NOMEM : rc;
}

void cr_system_request_stop(cr_system *sys)
{
    if (sys)
        sys->ops->request_stop(sys->engine);
}

const char *cr_system_last_error(const cr_system *sys)
{
    if (!sys)
        return "no system";
    return sys->err[0] ? sys->err : sys->ops->last_error(sys->engine);
}

const char *cr_system_end_reason(const cr_system *sys)
{
    return sys ? sys->ops->end_reason(sys->engine) : "no system";
}

const char *cr_system_engine_name(const cr_system *sys)
{
    return sys ? sys->ops->name : "none";
}

int cr_system_dimension(const cr_system *sys)
{
    return sys ? sys->ops->dim : 0;
}

size_t cr_system_body_count(const cr_system *sys)
{
    return sys ? sys->ops->body_count(sys->engine) : 0;
}

size_t cr_system_wall_count(const cr_system *sys)
{
    return sys ? sys->ops->wall_count(sys->engine) : 0;
}

void cr_system_get_masses(const cr_system *sys, double *mass)
{
    if (sys && mass)
        sys->ops->masses(sys->engine, mass);
}

void cr_system_get_radii(const cr_system *sys, double *radius)
{
    if (sys && radius)
        sys->ops->radii(sys->engine, radius);
}

int cr_system_body_is_fixed(const cr_system *sys, size_t i)
{
    if (!sys || i >= cr_system_body_count(sys))
        return 0;
    return sys->ops->is_fixed(sys->engine, i);
}

int cr_system_get_wall(const cr_system *sys, size_t w, double *normal, double *offset)
{
    if (!sys || w >= cr_system_wall_count(sys))
        return CR_ERR_INVALID;
    return sys->ops->wall(sys->engine, w, normal, offset);
}

double cr_system_get_time(const cr_system *sys)
{
    return sys ? sys->t0 + sys->ops->time(sys->engine) : 0.0;
}

void cr_system_get_positions(const cr_system *sys, double *x)
{
    if (sys && x)
        sys->ops->positions(sys->engine, x);
}

void cr_system_get_velocities(const cr_system *sys, double *v)
{
    if (sys && v)
        sys->ops->velocities(sys->engine, v);
}

size_t cr_system_contact_count(const cr_system *sys)
{
    return sys ? sys->ops->contact_count(sys->engine) : 0;
}

int cr_system_contacts_fixed(const cr_system *sys)
{
    return sys ? sys->ops->contacts_fixed : 0;
}

int cr_system_locates_force_peaks(const cr_system *sys)
{
    return sys ? sys->ops->locates_force_peaks : 0;
}

int cr_system_get_contact(const cr_system *sys, size_t k, cr_contact_view *view)
{
    if (!sys || !view || k >= sys->ops->contact_count(sys->engine))
        return CR_ERR_INVALID;
    return sys->ops->contact(sys->engine, k, view);
}

const size_t *cr_system_body_contacts(const cr_system *sys, size_t i, size_t *n)
{
    if (n)
        *n = 0;
    if (!sys || !n || i >= cr_system_body_count(sys))
        return NULL;
    return sys->ops->body_contacts(sys->engine, i, n);
}

size_t cr_system_event_count(const cr_system *sys)
{
    return sys ? sys->ops->event_count(sys->engine) : 0;
}

const cr_event *cr_system_events(const cr_system *sys)
{
    if (!sys)
        return NULL;
    /* events an engine recorded since its last emit (none in the engines
     * here: they emit after every root return) are not in the copy yet */
    if (sys->t0 != 0.0 && shift_events((cr_system *)sys) != CR_OK)
        return NULL;
    return sys->t0 != 0.0 ? sys->shifted : sys->ops->events(sys->engine);
}

double cr_system_kinetic_energy(const cr_system *sys)
{
    return sys ? sys->ops->kinetic_energy(sys->engine) : 0.0;
}

double cr_system_potential_energy(const cr_system *sys)
{
    return sys ? sys->ops->potential_energy(sys->engine) : 0.0;
}

double cr_system_field_work(const cr_system *sys, size_t i, const double *x0, const double *x1)
{
    if (!sys || !sys->ops->field_work || !x0 || !x1 || i >= sys->ops->body_count(sys->engine))
        return 0.0;
    return sys->ops->field_work(sys->engine, i, x0, x1);
}

double cr_system_dissipated_work(const cr_system *sys)
{
    return sys ? sys->ops->dissipated_work(sys->engine) : 0.0;
}

void cr_system_momentum(const cr_system *sys, double *p)
{
    if (sys && p)
        sys->ops->momentum(sys->engine, p);
}

double cr_system_settle_time(const cr_system *sys)
{
    return sys ? sys->ops->settle_time(sys->engine) : 0.0;
}

cr_run_stats cr_system_get_stats(const cr_system *sys)
{
    cr_run_stats none = {0};
    return sys ? sys->ops->stats(sys->engine) : none;
}

void cr_system_get_scales(const cr_system *sys, double *length, double *speed, double *time)
{
    if (sys)
        sys->ops->scales(sys->engine, length, speed, time);
}

int cr_system_method(const cr_system *sys)
{
    return sys && sys->ops->method ? sys->ops->method(sys->engine) : -1;
}

int cr_system_check_jacobian(cr_system *sys, double *max_rel)
{
    CR_CHECK(sys && max_rel, sys ? sys->err : NULL, CR_ERR_INVALID);
    if (!sys->ops->check_jacobian) {
        cr_set_msg(sys->err, sizeof sys->err, "the %s engine has no Jacobian check",
                   sys->ops->name);
        return CR_ERR_INVALID;
    }
    return sys->ops->check_jacobian(sys->engine, max_rel);
}

size_t cr_system_rotating_body_count(const cr_system *sys)
{
    return sys && sys->ops->rotating_count ? sys->ops->rotating_count(sys->engine) : 0;
}

int cr_system_rotating_body(const cr_system *sys, size_t k, cr_rotating_body *out)
{
    if (!sys || !out || k >= cr_system_rotating_body_count(sys))
        return CR_ERR_INVALID;
    return sys->ops->rotating_body(sys->engine, k, out);
}
