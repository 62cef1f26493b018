/**
 * @file monitor.h
 * @brief Impact episodes of a compliant run: impulses, impulse ratios,
 * restitution, the contact sequence, and the impact configuration for the
 * rigid laws (definitions in ../shared/ARCHITECTURE.md).
 *
 * The monitor follows a run through the simulator's event callback: it needs
 * no dense output and integrates nothing itself. Impulses are differences of
 * the simulator's quadratures at located events, so the split into compression
 * (δ̇ > 0) and expansion (δ̇ < 0) is exact to the integration tolerance.
 *
 * Groups in a 1-D chain are contiguous runs of contacts: an episode starts when
 * a contact closes with γ < 0 outside every active episode (its group: that
 * contact and the touching contacts on either side), grows when a neighbouring
 * contact closes, merges with an episode it meets, and ends at the first event
 * after which no contact of the group is loaded and none approaches (γ ≥ 0).
 */
#ifndef CRADLE_MONITOR_H
#define CRADLE_MONITOR_H

#include "cradle/common.h"
#include "cradle/laws.h"
#include "cradle/pool.h"
#include "cradle/sim.h"

typedef struct cr_monitor cr_monitor;

/** Scalars of one episode. Balls first_ball … last_ball, contacts first_contact … last_contact. */
typedef struct {
    double t_start, t_end;     /**< s */
    size_t first_ball, last_ball;
    size_t first_contact, last_contact;
    size_t reference;          /**< the contact whose closing started the episode */
    double T_minus, T_plus;    /**< kinetic energy of the group before / after, J */
    double kappa;              /**< T⁺ / T⁻ (001 eq. 12's e) */
    double dissipated;         /**< energy lost during the episode: damper work plus elastic
                                    energy abandoned by released contacts (whole chain), J */
    int complete;              /**< 1: ended by the end rule; 0: still running when the run stopped */
    size_t event_count;        /**< events of the episode (cr_monitor_events) */
} cr_episode_info;

/** Per-contact record of one episode. */
typedef struct {
    size_t contact;
    double impulse;            /**< Pᵢ = ∫ fᵢ dt over the episode, N s */
    double compression;        /**< impulse while δ̇ > 0 */
    double expansion;          /**< impulse while δ̇ < 0 */
    double gamma_minus;        /**< γᵢ⁻ = −δ̇ at the start (γ < 0 approaching), m/s */
    double gamma_plus;         /**< γᵢ⁺ at the end */
    double newton;             /**< eᴺ = −γ⁺/γ⁻ (NaN where |γ⁻| ≤ 1e-9 of the group's speeds) */
    double poisson;            /**< eᴾ = expansion / compression (NaN where no compression) */
    double alpha;              /**< α = Pᵢ / P_reference (001 eqs. 17, 26) */
    double peak_overlap;       /**< largest δ at a maximum-compression event, m */
    double peak_force;         /**< largest f seen at events and outputs, N (sampled) */
    int closings, openings;    /**< located closings / openings in the episode */
} cr_contact_record;

/**
 * Attaches a monitor to @p sim (it takes the simulator's event callback) and
 * reads the initial state: touching contacts already approaching at t = 0 open
 * an episode at once. Create it after configuring and before cr_sim_run.
 */
CR_EXPORT cr_monitor *cr_monitor_create(cr_sim *sim);
/** Frees the monitor; accepts NULL. */
CR_EXPORT void cr_monitor_destroy(cr_monitor *mon);
/** After the run: closes episodes still running (complete = 0). */
CR_EXPORT int cr_monitor_finish(cr_monitor *mon);
/** Also follow output times (peak-force sampling); call from the output callback. */
CR_EXPORT void cr_monitor_sample(cr_monitor *mon);

CR_EXPORT size_t cr_monitor_episode_count(const cr_monitor *mon);
CR_EXPORT int cr_monitor_get_episode(const cr_monitor *mon, size_t k, cr_episode_info *info);
/** Per-contact records of episode k (first_contact … last_contact); count in *n. */
CR_EXPORT const cr_contact_record *cr_monitor_contacts(const cr_monitor *mon, size_t k,
                                                       size_t *n);
/** Velocities of the group's balls before (after = 0) or after (after = 1); count in *n. */
CR_EXPORT const double *cr_monitor_velocities(const cr_monitor *mon, size_t k, int after,
                                              size_t *n);
/** Indices into cr_sim_events of the episode's events, in time order; count in *n. */
CR_EXPORT const size_t *cr_monitor_events(const cr_monitor *mon, size_t k, size_t *n);
/** Masses of the group's balls; count in *n. */
CR_EXPORT const double *cr_monitor_masses(const cr_monitor *mon, size_t k, size_t *n);
/**
 * The impact configuration of episode k for the rigid laws: M, W of the group's
 * contacts in the engine's coordinates (ball velocities) and u⁻. Caller destroys.
 */
CR_EXPORT cr_impact *cr_monitor_impact(const cr_monitor *mon, size_t k);

/* ---- pools ------------------------------------------------------------------ */

/**
 * Impact episodes of a planar pool. A group is a connected set of discs joined
 * by loaded or touching contacts (and walls); it starts when a contact closes
 * with γ < 0 outside every active group, grows and merges as contacts close,
 * and ends at the first event after which no contact of the group is loaded and
 * none approaches. Per contact: scalar and vector impulses (∫ f dt, ∫ f n dt),
 * the compression/expansion split, γ± along the contact normal, eᴺ, eᴾ, α.
 */
typedef struct cr_pool_monitor cr_pool_monitor;

/** Attaches to @p pool (takes its event callback); create before cr_pool_run. */
CR_EXPORT cr_pool_monitor *cr_pool_monitor_create(cr_pool *pool);
CR_EXPORT void cr_pool_monitor_destroy(cr_pool_monitor *mon);
/** After the run: closes episodes still running (complete = 0). */
CR_EXPORT int cr_pool_monitor_finish(cr_pool_monitor *mon);
CR_EXPORT size_t cr_pool_monitor_episode_count(const cr_pool_monitor *mon);
/** Scalars of episode k; first_ball/last_ball are the smallest and largest disc index. */
CR_EXPORT int cr_pool_monitor_get_episode(const cr_pool_monitor *mon, size_t k,
                                          cr_episode_info *info);
/** Discs of episode k, increasing; count in *n. */
CR_EXPORT const size_t *cr_pool_monitor_discs(const cr_pool_monitor *mon, size_t k, size_t *n);
/** Velocities (vx, vy per disc of cr_pool_monitor_discs) before / after; count of discs in *n. */
CR_EXPORT const double *cr_pool_monitor_velocities(const cr_pool_monitor *mon, size_t k,
                                                   int after, size_t *n);
/** Contact records (`contact` indexes cr_pool contacts); count in *n. */
CR_EXPORT const cr_contact_record *cr_pool_monitor_contacts(const cr_pool_monitor *mon,
                                                            size_t k, size_t *n);
/** Vector impulses ∫ f n dt over the episode, two per contact record. */
CR_EXPORT const double *cr_pool_monitor_vector_impulses(const cr_pool_monitor *mon, size_t k,
                                                        size_t *n);
/**
 * Unit normals (from i towards j, or the wall normal) of the episode's contacts
 * at its start, two per contact record: the impact configuration's W.
 */
CR_EXPORT const double *cr_pool_monitor_normals(const cr_pool_monitor *mon, size_t k, size_t *n);
/**
 * The impact configuration of pool episode k for the rigid laws: 2 dofs per disc
 * of cr_pool_monitor_discs (vx, vy), M = diag of the masses, one column per
 * contact record from the normals at joining (+n on disc j and on the disc of a
 * wall contact, −n on disc i), u⁻. Caller destroys.
 */
CR_EXPORT cr_impact *cr_pool_monitor_impact(const cr_pool_monitor *mon, size_t k);

#endif
