/**
 * @file engine.h
 * @brief The one place where an engine plugs in: the ops table every engine
 * implements (CONVENTIONS §8, like GSL's step types), and the two calls an
 * engine makes back into its system. The chain and pool engines are built this
 * way; so is tests/test-replay.c's replay engine. Everything above the engines
 * (monitor, store, CLI) sees only cradle/system.h.
 */
#ifndef CRADLE_ENGINE_H
#define CRADLE_ENGINE_H

#include "cradle/model.h"
#include "cradle/rigid.h"
#include "cradle/system.h"

/* One engine behind cr_system. Every function takes the engine's own state
 * (created by `create`); getters mirror the cr_system_get_* documentation. */
typedef struct cr_engine_ops {
    const char *name;
    /* builds the engine for @p model; reports through cr_system_emit_* on @p sys */
    void *(*create)(const cr_model *model, cr_system *sys, char *msg, size_t msglen);
    void (*destroy)(void *e);
    int (*run)(void *e, double t_end);
    void (*request_stop)(void *e);
    const char *(*last_error)(const void *e);
    const char *(*end_reason)(const void *e);

    int dim;
    int contacts_fixed;
    /* 1: every force maximum of a contact is at one of its located events
     * (CR_EVENT_MAX_FORCE where damped): cr_system_locates_force_peaks */
    int locates_force_peaks;
    size_t (*body_count)(const void *e);
    size_t (*wall_count)(const void *e);
    int (*is_fixed)(const void *e, size_t i);
    void (*masses)(const void *e, double *m);
    void (*radii)(const void *e, double *r);
    int (*wall)(const void *e, size_t w, double *normal, double *offset);
    double (*time)(const void *e);
    void (*positions)(const void *e, double *x);
    void (*velocities)(const void *e, double *v);
    size_t (*contact_count)(const void *e);
    int (*contact)(const void *e, size_t k, cr_contact_view *view);
    const size_t *(*body_contacts)(const void *e, size_t i, size_t *n);
    size_t (*event_count)(const void *e);
    const cr_event *(*events)(const void *e);
    double (*kinetic_energy)(const void *e);
    double (*potential_energy)(const void *e);
    double (*dissipated_work)(const void *e);
    void (*momentum)(const void *e, double *p);
    double (*settle_time)(const void *e);
    cr_run_stats (*stats)(const void *e);
    void (*scales)(const void *e, double *length, double *speed, double *time);
    /* optional diagnostic (NULL: the engine has none): cr_system_check_jacobian */
    int (*check_jacobian)(void *e, double *max_rel);
    /* optional (NULL: not reported): cr_system_method */
    int (*method)(const void *e);
    /* optional (NULL: the engine has no fields, the work is 0): cr_system_field_work */
    double (*field_work)(const void *e, size_t i, const double *x0, const double *x1);
    /* optional (NULL: no body rotates): cr_system_rotating_body_count and
     * cr_system_rotating_body (planar rigid bodies, the clump engine) */
    size_t (*rotating_count)(const void *e);
    int (*rotating_body)(const void *e, size_t k, cr_rotating_body *out);

    /* Optional, rigid engines only (cradle/rigid.h); NULL where an engine has
     * no such control, and the cr_system_rigid_* call then answers as for a
     * compliant engine (CR_ERR_INVALID, NULL or 0). */
    void (*rigid_describe)(const void *e, char *text, size_t len); /* cr_system_rigid_law */
    int (*rigid_set_provider)(void *e, cr_rigid_provider fn, void *user, const char *label);
    int (*rigid_set_span)(void *e, cr_rigid_span fn, void *user);
    int (*rigid_clamp_kappa)(void *e, int on);
    const cr_kappa_clamp *(*rigid_kappa_clamps)(const void *e, size_t *n, int *on);
    size_t (*rigid_kappa_fallbacks)(const void *e);
} cr_engine_ops;

/**
 * Called by an engine at t = 0, every output time and the end: runs the output
 * listeners. @return the first non-zero code (the engine stops and returns it).
 */
CR_EXPORT int cr_system_emit_output(cr_system *sys);
/**
 * 1 when some listener takes outputs: an engine may skip forming the state of
 * an output time nobody reads (interpolating it costs; it still counts it).
 */
CR_EXPORT int cr_system_has_output_listener(const cr_system *sys);
/**
 * Called by an engine after a root return recorded events @p first …: runs the
 * event listeners. @return the first non-zero code.
 */
CR_EXPORT int cr_system_emit_events(cr_system *sys, size_t first);

/**
 * A system around the engine @p ops for @p model, built by ops->create (the
 * engine factory, src/engines/engines.c, picks the chain or pool engine this
 * way). @return NULL with the reason in @p msg.
 */
CR_EXPORT cr_system *cr_system_create_with(const cr_engine_ops *ops, const cr_model *model,
                                           char *msg, size_t msglen);

#endif
