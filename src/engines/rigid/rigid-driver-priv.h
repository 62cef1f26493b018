/*
 * The rigid engines' common driver (private): what a chain of rigid balls
 * (rigid-priv.h) and a pool of rigid discs (rigid-pool-priv.h) share, written
 * once (docs/design.md, "Rigid engines: the shared driver"):
 *   - the run: output plan, impacts and persistent contacts at an instant,
 *     flight to the next instant, end rules, interruption, failure texts;
 *   - the event list and the output rows given to cr_system;
 *   - the getters that read only this common state.
 * What differs by geometry (how bodies fly, which contacts close, how an
 * impact configuration is built and given to the law) comes in through a
 * cr_rigid_geometry table of callbacks.
 *
 * Each engine's struct holds a cr_rigid_driver as its FIRST member, so the
 * engine handle the ops table passes (void *) is also the driver's: the
 * shared getters and cr_rigid_driver_run take it as it comes.
 */
#ifndef CRADLE_RIGID_DRIVER_PRIV_H
#define CRADLE_RIGID_DRIVER_PRIV_H

#include <signal.h>
#include <stddef.h>

#include "cradle/engine.h"
#include "engines/common/engine-common.h"

/* Speeds below this fraction of the speed scale V are rest: a contact in touch
 * approaching slower is not an impact but a landing, and a contact leaving an
 * impact slower becomes persistent (the accumulation rule). Equal to the
 * monitor's CR_MONITOR_START_FRACTION on purpose: every impact an engine
 * resolves is fast enough to start an episode, and nothing slower is called
 * an impact. */
#define CR_RIGID_REST_FRACTION 1e-6

/* Field accelerations within this fraction of the field scale count as equal
 * (contacts the fields do not pull apart stay at rest). */
#define CR_RIGID_ACCEL_FRACTION 1e-10

/* What differs between the geometries, called by the driver on the engine
 * handle. Every int callback returns CR_OK, a negative code (the reason in the
 * driver's err) or a listener's code. */
typedef struct {
    /* Refusal of an automatic end when the model has fields (the run would
     * never end by itself): the error text. */
    const char *auto_end_refusal;
    /* Before the first row (NULL: nothing to do). */
    int (*start)(void *e);
    /* Every impact at the current instant; *n_impacts counts them. */
    int (*resolve)(void *e, size_t *n_impacts);
    /* Persistent contacts after the impacts of an instant. */
    int (*settle)(void *e);
    /* Free flight towards t_target; *hit 1 when a contact closes first. A
     * flight towards an infinite target that meets nothing ends the run.
     * cr_rigid_driver_fly_exact where the flight has a closed form. */
    int (*fly)(void *e, double t_target, int *hit);
    /* Exact flight (cr_rigid_driver_fly_exact): the time from now to the
     * first contact closing within @p horizon (INFINITY: none), then every
     * body moved on by @p s on its line or parabola (persistent contacts
     * booking their impulses). */
    double (*next_closing)(void *e, double horizon);
    void (*advance)(void *e, double s);
    /* Automatic end: 1 when nothing approaches, so nothing can come any more
     * (NULL: the flight to infinity decides). */
    int (*nothing_approaches)(const void *e);
    /* Automatic end under air drag alone (NULL: refused by auto_end_refusal):
     * drag_cap is the run's safety cap, 0 when another field acts (refused);
     * drag_parted is 1 when no pair can meet again (cr_drag_pair_parts). */
    double (*drag_cap)(const void *e);
    int (*drag_parted)(const void *e);
} cr_rigid_geometry;

typedef struct {
    cr_system *sys;
    const cr_rigid_geometry *geom;

    size_t nb; /* bodies */
    /* views of the engine's own per-body arrays (dim values per body for v),
     * set once they are allocated, for the shared getters; fixed NULL: no
     * body is fixed */
    int dim;
    const double *mass, *radius, *v;
    const int *fixed;
    int fields;                    /* gravity or pendulums: the flight is not a line */
    double L, V, T;                /* length, speed and time scales */
    double v_rest;                 /* CR_RIGID_REST_FRACTION · V */
    double out_interval;           /* the model's output interval, 0: the default */
    long out_every;                /* output.every: refused (a rigid run counts no steps) */
    int out_none;                  /* output.fields: none: rows at t = 0 and the end only */
    char out_where[CR_ERRMSG_LEN]; /* where the interval was given (its refusal names it) */

    /* state shared by every geometry */
    double t;
    double t_stop;     /* the run's end (INFINITY: automatic); flights may step past
                        * an output time and interpolate, never past this */
    double dissipated; /* kinetic energy the impacts and landings took */

    /* events */
    cr_event *ev;
    size_t nev, evcap;
    cr_run_stats stats;

    int ran;
    volatile sig_atomic_t stop;
    char end_reason[160];
    char err[CR_ERRMSG_LEN];
} cr_rigid_driver;

/* Sets what a new engine shares: "not run" as its end reason. */
void cr_rigid_driver_init(cr_rigid_driver *d, cr_system *sys, const cr_rigid_geometry *geom);
/* The scales from the length L and the speed V: T = L / V, v_rest. */
void cr_rigid_driver_set_scales(cr_rigid_driver *d, double L, double V);
/* The views of the engine's body arrays (never reallocated during a run). */
void cr_rigid_driver_set_bodies(cr_rigid_driver *d, int dim, const double *mass,
                                const double *radius, const int *fixed, const double *v);
/* Frees the event list. */
void cr_rigid_driver_free(cr_rigid_driver *d);

/* A new event at the end of the list, time and count set (the caller fills
 * the rest); NULL out of memory, with the reason in d->err. */
cr_event *cr_rigid_driver_event(cr_rigid_driver *d);

/* The whole run (the ops table's run): plan, then instants and flights until
 * an end rule, an interruption or a failure. */
int cr_rigid_driver_run(void *e, double t_end);

/* Exact flight through the geometry's next_closing and advance: to the first
 * closing (*hit 1) or to @p t_target; towards an infinite target that meets
 * nothing the bodies stay where they are (the run ends). One step. */
int cr_rigid_driver_fly_exact(void *e, double t_target, int *hit);

/* Getters of the common state, for both ops tables. */
void cr_rigid_driver_stop(void *e);
const char *cr_rigid_driver_error(const void *e);
const char *cr_rigid_driver_reason(const void *e);
size_t cr_rigid_driver_body_count(const void *e);
int cr_rigid_driver_is_fixed(const void *e, size_t i);
/* Fixed bodies: infinite mass (as the other engines). */
void cr_rigid_driver_masses(const void *e, double *m);
void cr_rigid_driver_radii(const void *e, double *rad);
void cr_rigid_driver_velocities(const void *e, double *v);
double cr_rigid_driver_time(const void *e);
size_t cr_rigid_driver_event_count(const void *e);
const cr_event *cr_rigid_driver_events(const void *e);
double cr_rigid_driver_dissipated(const void *e);
double cr_rigid_driver_settle_time(const void *e);
cr_run_stats cr_rigid_driver_stats(const void *e);
void cr_rigid_driver_scales(const void *e, double *length, double *speed, double *time);
/* The ops table's create: refuses, the rigid engines need a law
 * (cr_system_create_rigid). */
void *cr_rigid_driver_create_plain(const cr_model *model, cr_system *sys, char *msg, size_t msglen);

/* The ops-table entries every rigid engine takes from the driver, for its
 * table's initializer (each engine adds name, dim, destroy, its geometry's
 * getters and stats). */
#define CR_RIGID_DRIVER_OPS                                                                        \
    .create = cr_rigid_driver_create_plain, .run = cr_rigid_driver_run,                            \
    .request_stop = cr_rigid_driver_stop, .last_error = cr_rigid_driver_error,                     \
    .end_reason = cr_rigid_driver_reason, .body_count = cr_rigid_driver_body_count,                \
    .is_fixed = cr_rigid_driver_is_fixed, .masses = cr_rigid_driver_masses,                        \
    .radii = cr_rigid_driver_radii, .time = cr_rigid_driver_time,                                  \
    .velocities = cr_rigid_driver_velocities, .event_count = cr_rigid_driver_event_count,          \
    .events = cr_rigid_driver_events, .dissipated_work = cr_rigid_driver_dissipated,               \
    .settle_time = cr_rigid_driver_settle_time, .scales = cr_rigid_driver_scales

#endif
