/**
 * @file system.h
 * @brief One interface to every engine: the compliant chain engine (1-D,
 * banded), the pool engine (2-D, sparse) and any later one (3-D, rigid, a
 * replayed recording) look the same to the monitor, the store and the tools.
 *
 * Rigid runs are built by cr_system_create_rigid (cradle/rigid.h) and are the
 * same door; located events are described in cradle/event.h.
 *
 * Create, configure, run, query (as CVODE): cr_system_create → listeners →
 * cr_system_run → cr_system_get_*. Everything above the engines (monitor,
 * store, compare, the CLI) is written once against this header.
 *
 * Bodies are numbered 0 … N−1 as in the model; a fixed body (a wall of a
 * chain) has mass INFINITY and never moves. Half-plane walls (pools) are not
 * bodies: a contact with wall w names CR_WALL_BODY(w) as its second body.
 * Vectors of bodies hold dim numbers per body (x₀, y₀, x₁, y₁, … in 2-D).
 *
 * Contacts are numbered by the engine: a chain's contact c joins bodies c and
 * c + 1 and the set never changes; a pool's contacts appear as bodies come
 * near each other (cr_system_contact_count grows during a run, never shrinks,
 * and a contact keeps its number).
 */
#ifndef CRADLE_SYSTEM_H
#define CRADLE_SYSTEM_H

#include "cradle/common.h"
#include "cradle/event.h"
#include "cradle/model.h"

typedef struct cr_system cr_system;

/**
 * Contact states (ARCHITECTURE.md, refined in docs/design.md): open (a gap
 * beyond the geometric tolerance), touching (within it, no force), loaded
 * (f > 0 with δ above the event margin).
 */
typedef enum {
    CR_CONTACT_OPEN = 0,
    CR_CONTACT_TOUCHING = 1,
    CR_CONTACT_LOADED = 2
} cr_contact_state;

/** Everything the layers above an engine need to know about one contact, now. */
typedef struct {
    size_t body_a;          /**< first body */
    long body_b;            /**< second body (> body_a), or CR_WALL_BODY(w) */
    int unilateral;         /**< 1: a unilateral contact law acts (0: a link only) */
    int linked;             /**< 1: a bilateral link joins the two bodies */
    cr_contact_state state; /**< open, touching or loaded */
    /**
     * 1 when the engine's end rule holds for this contact: not loaded and the
     * bodies (or link-connected clusters) it joins not approaching. The monitor's
     * episode end and the automatic end of a run both use it.
     */
    int settled;
    double overlap;           /**< δ, m (negative: a gap) */
    double rate;              /**< δ̇ = −γ, m/s (positive: compression) */
    double force;             /**< f ≥ 0 (or tensile under `gap` release), N */
    double impulse;           /**< ∫ f dt since t = 0, N s */
    double normal[3];         /**< unit normal from body_a towards body_b (wall: its normal) */
    double vector_impulse[3]; /**< ∫ f n dt since t = 0 (dim components), N s */
} cr_contact_view;

/** Solver counters of a run (all engines; a counter an engine lacks stays 0). */
typedef struct {
    long steps, rhs_evals, jac_evals, root_evals, restarts, events, outputs;
    long nonlin_iters; /**< Newton iterations */
    long rebuilds;     /**< neighbour-list rebuilds (pools) */
    /* active region (docs/design.md, "Active region"; pools: regions, largest in discs): */
    long windows;    /**< windows built (the first included; 1 for the whole chain) */
    long max_window; /**< most bodies integrated at once */
    long shrinks;    /**< windows rebuilt smaller to let settled bodies go (pools) */
    long locks;      /**< quiet pairs locked inelastically in free flight */
    /** times the default sampling reached its row cap and widened its
     * intervals tenfold (CR_OUTPUT_DEFAULT_ROW_CAP; docs/model-format.md) */
    long output_widenings;
    /** `integration.accuracy`'s energy projections of a chain's window
     * (docs/design.md, "Global accuracy"): corrections made, corrections
     * refused (larger than 1e-6 of the relative kinetic energy: not an
     * integration error), and the energy they moved in all, J */
    long projections, projections_refused;
    double projected_energy;
} cr_run_stats;

/**
 * Called at t = 0, at every output time and at the end of the run; read the
 * state with the getters. Return CR_OK, or a negative error code: the run
 * stops and cr_system_run returns that code (CR_ERR_INTERRUPTED only when that
 * is what the listener returned).
 */
typedef int (*cr_output_listener)(const cr_system *sys, void *user);

/**
 * Called after every root return, once the events of that instant are
 * recorded: indices @p first … cr_system_event_count − 1 of cr_system_events.
 * The getters give the state at the events. Return as cr_output_listener.
 */
typedef int (*cr_event_listener)(const cr_system *sys, size_t first, void *user);

/**
 * Builds the engine for @p model (validated first): the chain engine for
 * dim 1, the pool engine for dim 2. Copies what the run needs; the model may
 * be destroyed afterwards. @return NULL with a one-line reason in @p msg.
 */
CR_EXPORT cr_system *cr_system_create(const cr_model *model, char *msg, size_t msglen);
/** Frees the system; accepts NULL. */
CR_EXPORT void cr_system_destroy(cr_system *sys);

/** Adds a listener (several may attach; called in the order added). */
CR_EXPORT int cr_system_add_output_listener(cr_system *sys, cr_output_listener fn, void *user);
CR_EXPORT int cr_system_add_event_listener(cr_system *sys, cr_event_listener fn, void *user);
/** Removes every listener registered with @p user (a monitor or store going away). */
CR_EXPORT void cr_system_remove_listeners(cr_system *sys, const void *user);

/**
 * Integrates from t = 0 to @p t_end (s). With t_end ≤ 0 the run ends at the
 * first instant when every contact is settled (held for the settling time when
 * links ring), or at the engine's safety cap; fields need an end time.
 * A system runs once.
 * @return CR_OK, CR_ERR_INTERRUPTED after cr_system_request_stop, a listener's
 * code, or CR_ERR_SOLVER / CR_ERR_NOMEM with the reason in cr_system_last_error.
 */
CR_EXPORT int cr_system_run(cr_system *sys, double t_end);
/**
 * Starts the clock at @p t0 ≥ 0 s instead of 0 (`cradle run --continue`): the
 * run's times, events and t_end are the clock's; the engines integrate from
 * their own 0, which the physics allows since no field depends on time.
 * Impulses and dissipated work count from the start. Call before the run.
 * @return CR_ERR_INVALID after the run began or for a bad @p t0.
 */
CR_EXPORT int cr_system_set_start_time(cr_system *sys, double t0);
/** The clock's start (0 unless cr_system_set_start_time). */
CR_EXPORT double cr_system_start_time(const cr_system *sys);

/** Async-signal-safe: asks a running cr_system_run to stop at the next return. */
CR_EXPORT void cr_system_request_stop(cr_system *sys);

CR_EXPORT const char *cr_system_last_error(const cr_system *sys);
/** Why the run ended ("end time reached", "all contacts open and separating", …). */
CR_EXPORT const char *cr_system_end_reason(const cr_system *sys);
/** "chain", "pool" or "rigid" (the engine behind the interface). */
CR_EXPORT const char *cr_system_engine_name(const cr_system *sys);

CR_EXPORT int cr_system_dimension(const cr_system *sys);
CR_EXPORT size_t cr_system_body_count(const cr_system *sys);
/** Half-plane walls (pools); chains have walls as fixed bodies instead. */
CR_EXPORT size_t cr_system_wall_count(const cr_system *sys);
/** Masses (INFINITY for a fixed body) and radii (0 for a chain wall), N values each. */
CR_EXPORT void cr_system_get_masses(const cr_system *sys, double *mass);
CR_EXPORT void cr_system_get_radii(const cr_system *sys, double *radius);
CR_EXPORT int cr_system_body_is_fixed(const cr_system *sys, size_t i);
/** Wall @p w: unit normal (dim values) pointing into the free space, and offset. */
CR_EXPORT int cr_system_get_wall(const cr_system *sys, size_t w, double *normal, double *offset);

CR_EXPORT double cr_system_get_time(const cr_system *sys);
/** Positions and velocities of every body, dim·N values (fixed bodies exactly at rest). */
CR_EXPORT void cr_system_get_positions(const cr_system *sys, double *x);
CR_EXPORT void cr_system_get_velocities(const cr_system *sys, double *v);

CR_EXPORT size_t cr_system_contact_count(const cr_system *sys);
/** 1 when the contact set is fixed for the whole run (chains): per-contact series make sense. */
CR_EXPORT int cr_system_contacts_fixed(const cr_system *sys);
/**
 * 1 when the engine locates every force maximum of a contact as one of its
 * events (the compliant engines: CR_EVENT_MAX_FORCE for damped laws, the
 * maximum compression without a damper, the closing where the force only
 * falls after it). Otherwise (the rigid engines) the monitor also samples
 * forces at outputs.
 */
CR_EXPORT int cr_system_locates_force_peaks(const cr_system *sys);
/** The contact's current view. @return CR_ERR_INVALID for an index out of range. */
CR_EXPORT int cr_system_get_contact(const cr_system *sys, size_t k, cr_contact_view *view);
/**
 * Contacts that involve body @p i (every contact it has ever had); count in *n.
 * The array stays valid until the next engine return.
 */
CR_EXPORT const size_t *cr_system_body_contacts(const cr_system *sys, size_t i, size_t *n);

CR_EXPORT size_t cr_system_event_count(const cr_system *sys);
CR_EXPORT const cr_event *cr_system_events(const cr_system *sys);

CR_EXPORT double cr_system_kinetic_energy(const cr_system *sys);
/** Elastic energy in contacts and links plus the field potentials. */
CR_EXPORT double cr_system_potential_energy(const cr_system *sys);
/** Work dissipated since t = 0 (quadrature), including elastic energy abandoned at release. */
CR_EXPORT double cr_system_dissipated_work(const cr_system *sys);
/**
 * Work the fields (gravity, a pendulum suspension) do on body @p i moving from
 * position @p x0 to @p x1 (dim values each, as cr_system_get_positions gives
 * them): −ΔV of its field potential, exact for these conservative fields, J.
 * 0 for a fixed body or an engine without fields. What the monitor takes out
 * of an episode's κ (cr_episode_info field_work).
 */
CR_EXPORT double cr_system_field_work(const cr_system *sys, size_t i, const double *x0,
                                      const double *x1);
/** Momentum of the moving bodies, dim values. */
CR_EXPORT void cr_system_momentum(const cr_system *sys, double *p);
/**
 * Settling time of the links (2 Σ √(m/k); 0 without links): contacts between
 * linked clusters can re-close within it after their centres separate, so end
 * rules wait for it.
 */
CR_EXPORT double cr_system_settle_time(const cr_system *sys);
CR_EXPORT cr_run_stats cr_system_get_stats(const cr_system *sys);
/** Internal scales: overlap δ* (m), speed V (m/s), time δ* / V (s); any may be NULL. */
CR_EXPORT void cr_system_get_scales(const cr_system *sys, double *length, double *speed,
                                    double *time);

/**
 * Diagnostic: compares the engine's analytic Jacobian at the current state with
 * central differences of its right-hand side (dense: small systems) and gives
 * the largest difference relative to the largest entry in @p max_rel. Call after
 * (part of) a run. @return CR_ERR_INVALID when the engine offers no such check
 * or cannot make it in its current state (pools: only with the KLU solver).
 */
CR_EXPORT int cr_system_check_jacobian(cr_system *sys, double *max_rel);

/** A planar rigid body (a clump of discs, model-format.md "Rigid bodies"). */
typedef struct {
    double mass, J;      /**< kg, kg m² about the centre of mass */
    double x[2], v[2];   /**< centre of mass (m) and its velocity (m/s) */
    double theta, omega; /**< angle (rad) and angular velocity (rad/s) */
    size_t first, count; /**< its features: bodies first … first + count − 1 */
} cr_rotating_body;

/** Rigid bodies with rotation (0 for models of balls, discs and spheres). */
CR_EXPORT size_t cr_system_rotating_body_count(const cr_system *sys);
/** State of rigid body @p k at the current time. @return CR_ERR_INVALID when out of range. */
CR_EXPORT int cr_system_rotating_body(const cr_system *sys, size_t k, cr_rotating_body *out);

/**
 * The integration method the engine runs with, as a cr_method: the model's
 * setting, or with CR_METHOD_AUTO the choice made from the model (chains:
 * docs/performance.md, "Integration methods"; pools: BDF, or Adams with
 * fixed-point iteration when `adams` meets a lightly damped pool,
 * docs/model-format.md "solver"). -1 for engines that do not report it (the
 * rigid engines).
 */
CR_EXPORT int cr_system_method(const cr_system *sys);

#endif
