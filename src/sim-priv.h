/**
 * @file sim-priv.h (private: the chain engine behind cr_system)
 * @brief Integration of a compliant model with SUNDIALS CVODES.
 *
 * Create, configure, run, query (as CVODE): cr_sim_create → cr_sim_set_* →
 * cr_sim_run → cr_sim_get_*. Every contact closing, opening, maximum compression
 * and (under the `force` convention) force release is located by CVODE's root
 * finding; contact impulses and dissipated work are integrated as quadratures,
 * never summed from output samples. The simulator writes no files: trajectories
 * leave through the output callback.
 */
#ifndef CRADLE_SIM_H
#define CRADLE_SIM_H

#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/system.h"

typedef struct cr_sim cr_sim;

/** Solver counters of the last run (the engine-independent cr_run_stats). */
typedef cr_run_stats cr_sim_stats;

/**
 * Called at t = 0, at every output time and at the end of the run. Query the
 * state with the cr_sim_get_* functions. A non-zero return stops the run with
 * CR_ERR_INTERRUPTED (the state stays consistent).
 */
typedef int (*cr_sim_output_fn)(const cr_sim *sim, void *user);

/**
 * Called after every root return, once the events of that instant are recorded
 * (cr_sim_events: indices @p first to cr_sim_event_count − 1). The state
 * getters give the state at the event. Non-zero return stops the run with
 * CR_ERR_INTERRUPTED. This is how the monitor follows a run without dense output.
 */
typedef int (*cr_sim_event_fn)(const cr_sim *sim, size_t first, void *user);

/**
 * Validates @p model (cr_model_validate) and copies what the run needs.
 * @return NULL on failure, with the reason in @p msg.
 */
cr_sim *cr_sim_create(const cr_model *model, char *msg, size_t msglen);
/** Frees the simulator; accepts NULL. */
void cr_sim_destroy(cr_sim *sim);

/** Relative tolerance, and absolute tolerance on the scaled state (δ/δ*, v/V). */
int cr_sim_set_tolerances(cr_sim *sim, double rtol, double atol);
int cr_sim_set_method(cr_sim *sim, cr_method method);
/** The method the run integrates with: the one set, or the automatic choice
 * (CR_METHOD_AUTO: docs/performance.md, "Integration methods"). */
cr_method cr_sim_method(const cr_sim *sim);
/** Output interval in s (≤ 0: a quarter of the characteristic time δ* / V) and callback. */
int cr_sim_set_output(cr_sim *sim, double interval, cr_sim_output_fn fn, void *user);
/** Sets the event callback (one; NULL removes it). */
int cr_sim_set_event_callback(cr_sim *sim, cr_sim_event_fn fn, void *user);
/**
 * Floor, relative to δ*, below which δ is clamped in the unbounded damping term
 * of the Jacobian (cr_contact_partials). Default 1e-6. Changes cost, not results.
 */
int cr_sim_set_jacobian_floor(cr_sim *sim, double rel_floor);

/**
 * Integrates from t = 0 to @p t_end (s). With t_end ≤ 0 the run ends at the first
 * instant when no contact is loaded and no neighbouring pair approaches (nothing
 * can happen any more in a free chain), or at a safety cap of
 * 2·(largest initial gap)/V + 10⁶·δ* / V.
 * A simulator runs once; create another for another run.
 */
int cr_sim_run(cr_sim *sim, double t_end);

/** Async-signal-safe: asks a running cr_sim_run to stop at the next output time. */
void cr_sim_request_stop(cr_sim *sim);

const char *cr_sim_last_error(const cr_sim *sim);
/** Why the run ended ("end time reached", "all contacts open and separating", ...). */
const char *cr_sim_end_reason(const cr_sim *sim);

size_t cr_sim_ball_count(const cr_sim *sim);
size_t cr_sim_contact_count(const cr_sim *sim);
double cr_sim_get_time(const cr_sim *sim);
void cr_sim_get_masses(const cr_sim *sim, double *m);
/** 1 for a wall (a fixed body). */
int cr_sim_body_is_fixed(const cr_sim *sim, size_t i);
/** 1 when pair @p c has a unilateral contact / a bilateral link. */
int cr_sim_pair_has_contact(const cr_sim *sim, size_t c);
int cr_sim_pair_is_linked(const cr_sim *sim, size_t c);
/**
 * Settling time of the links: twice the sum over links of √(m/k), an upper bound
 * on a wave's round trip through the link-connected clusters; 0 without links.
 * A contact between linked clusters (rods) can re-close within this time after
 * their centres of mass separate, so end rules wait for it.
 */
double cr_sim_settle_time(const cr_sim *sim);
/**
 * 1 when contact @p c is loaded: f > 0 with an overlap above the event margin
 * (10⁻¹² δ*; touching bodies reached by roundoff alone are not loaded).
 */
int cr_sim_contact_loaded(const cr_sim *sim, size_t c);
/**
 * 1 when contact @p c is settled: not loaded, and the link-connected clusters it
 * joins (walls immobile) not approaching — the end rule of ARCHITECTURE.md, shared
 * by the automatic end of a run and the monitor's episode end. 1 for a pair
 * without contact.
 */
int cr_sim_contact_settled(const cr_sim *sim, size_t c);
/** Each getter fills an array of ball_count (or contact_count) doubles, SI units. */
void cr_sim_get_positions(const cr_sim *sim, double *x);
void cr_sim_get_velocities(const cr_sim *sim, double *v);
void cr_sim_get_overlaps(const cr_sim *sim, double *delta);
void cr_sim_get_overlap_rates(const cr_sim *sim, double *delta_dot);
void cr_sim_get_forces(const cr_sim *sim, double *f);
/** Impulses Pᵢ = ∫ fᵢ dt since t = 0 (quadrature), N s. */
void cr_sim_get_impulses(const cr_sim *sim, double *P);
double cr_sim_kinetic_energy(const cr_sim *sim);
/** Elastic energy stored in the contacts. */
double cr_sim_potential_energy(const cr_sim *sim);
/** Work dissipated by the dampers since t = 0 (quadrature). */
double cr_sim_dissipated_work(const cr_sim *sim);
double cr_sim_momentum(const cr_sim *sim);

size_t cr_sim_event_count(const cr_sim *sim);
const cr_event *cr_sim_events(const cr_sim *sim);
cr_sim_stats cr_sim_get_stats(const cr_sim *sim);
/** Internal scales: overlap δ* (m), speed V (m/s), time δ* / V (s). */
void cr_sim_get_scales(const cr_sim *sim, double *length, double *speed, double *time);

#endif
