/* The ops table every engine implements (CONVENTIONS §8: ops tables where
 * several implementations exist), and what an engine calls back into the
 * system. Private: the layers above an engine see only cradle/system.h. */
#ifndef CRADLE_ENGINE_H
#define CRADLE_ENGINE_H

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
} cr_engine_ops;

extern const cr_engine_ops cr_chain_engine; /* sim.c: dim 1, banded */
extern const cr_engine_ops cr_pool_engine;  /* pool.c: dim 2, sparse */

/* Called by an engine at t = 0, every output time and the end: runs the output
 * listeners; returns the first non-zero code (propagate it). */
int cr_system_emit_output(cr_system *sys);
/* Called by an engine after a root return recorded events first …: runs the
 * event listeners; returns the first non-zero code. */
int cr_system_emit_events(cr_system *sys, size_t first);

/* Creates a system around an engine given its ops (tests plug a replay engine in
 * through the same door as the chain and pool engines). */
cr_system *cr_system_create_with(const cr_engine_ops *ops, const cr_model *model, char *msg,
                                 size_t msglen);

#endif
