/**
 * @file monitor.h
 * @brief Impact episodes of a compliant run, for every engine: impulses,
 * impulse ratios, restitution, the contact sequence, and the impact
 * configuration (M, W, u⁻) for the rigid laws. Definitions in docs/design.md
 * ("Contact states and episodes").
 *
 * The monitor follows a run as a listener of its cr_system (events and output
 * times): it needs no dense output and integrates nothing itself. Impulses are
 * differences of the engine's quadratures at located events, so the split into
 * compression (δ̇ > 0) and expansion (δ̇ < 0) is exact to the integration
 * tolerance.
 *
 * One rule set on the contact graph (a chain is the graph with contacts
 * (c, c + 1)): a group is a set of bodies joined by touching, loaded or linked
 * contacts; an episode starts when a contact closes approaching faster than
 * the rest speed (CR_MONITOR_START_FRACTION of the system's speed scale) outside
 * every active group, grows and merges as contacts close, and ends at the
 * first located event after which every contact of its group is settled or
 * back at rest under its static load (held for the settling time when links
 * ring).
 *
 * Destroy the monitor before its system.
 */
#ifndef CRADLE_MONITOR_H
#define CRADLE_MONITOR_H

#include "cradle/common.h"
#include "cradle/laws.h"
#include "cradle/system.h"

typedef struct cr_monitor cr_monitor;

/** Scalars of one episode. */
typedef struct {
    double t_start, t_end;   /**< s */
    size_t body_count;       /**< bodies of the group (cr_monitor_bodies) */
    size_t contact_count;    /**< contact records (cr_monitor_contacts) */
    size_t reference;        /**< the contact (system numbering) whose closing started it */
    size_t reference_record; /**< its index among the episode's contact records */
    double T_minus, T_plus;  /**< kinetic energy of the group's moving bodies before / after
                                  (lab frame; T⁺ includes the fields' work), J */
    /**
     * (T⁺ − field_work) / T⁻: the kinetic energy the impact itself keeps
     * (001 eq. 12's e). Without fields it is T⁺ / T⁻; under gravity or
     * pendulums the fields' work during the finite episode is taken out, as an
     * instantaneous rigid impact has none. Air drag is no field: its work
     * during the episode is dissipation (in dissipated, not field_work).
     */
    double kappa;
    double field_work;  /**< work of the fields on the group's bodies during the episode, J:
                             −ΔV of each body from its joining to the end
                             (cr_system_field_work), exact */
    double dissipated;  /**< T⁻ − T⁺ + field_work: damper work, air drag's work, plus
                             elastic energy abandoned by released contacts, J */
    int complete;       /**< 1: ended by the end rule; 0: still running when the run stopped */
    size_t event_count; /**< events of the episode (cr_monitor_events) */
} cr_episode_info;

/** Why a per-contact coefficient is NaN (flags of cr_contact_record). */
enum {
    CR_RECORD_AT_REST = 1,       /**< γ⁻ ≥ −CR_MONITOR_REST_FRACTION·|γ_ref⁻| (at rest or
                                      separating when it joined): eᴺ is undefined */
    CR_RECORD_NO_COMPRESSION = 2 /**< no compression impulse: eᴾ is undefined */
};

/**
 * A contact approaching slower than this fraction of the reference contact's
 * |γ⁻| is at rest: its eᴺ is NaN (flag CR_RECORD_AT_REST), and a loaded contact
 * that joined at rest is back at rest when it is that slow again and carries
 * no more than its force at joining. The contact's own approach energy is
 * then below 10⁻⁴ of the reference's (per unit reduced mass): an eᴺ there
 * describes how the others pushed it, not its restitution (docs/design.md).
 */
#define CR_MONITOR_REST_FRACTION 1e-2

/**
 * A closing slower than this fraction of the system's speed scale
 * (cr_system_get_scales) starts no episode: it is a field pressing touching
 * bodies together (a ball resting on a floor reaches the event margin at
 * ~1e-8 m/s), not an impact.
 */
#define CR_MONITOR_START_FRACTION 1e-6

/** Per-contact record of one episode. */
typedef struct {
    size_t contact; /**< contact number in the system */
    size_t body_a;  /**< its bodies (body_b < 0: wall CR_WALL_INDEX(body_b)) */
    long body_b;
    double impulse;     /**< Pᵢ = ∫ fᵢ dt over the episode, N s */
    double compression; /**< impulse while δ̇ > 0 */
    double expansion;   /**< impulse while δ̇ < 0 */
    double gamma_minus; /**< γᵢ⁻ = wᵢᵀu⁻ of the impact configuration (γ < 0 approaching), m/s */
    double gamma_plus;   /**< γᵢ⁺ = wᵢᵀu⁺ (same normals), m/s */
    double newton;       /**< eᴺ = −γ⁺/γ⁻ (NaN, flag CR_RECORD_AT_REST, where at rest) */
    double poisson;      /**< eᴾ = expansion / compression (NaN where no compression) */
    double alpha;        /**< α = Pᵢ / P_reference (001 eqs. 17, 26) */
    double peak_overlap; /**< largest δ at a located maximum compression (or at joining), m */
    /**
     * The located force maximum, N: the largest f at the contact's located
     * events (and at joining): maximum compression without a damper, the
     * root of ḟ = 0 (CR_EVENT_MAX_FORCE) with one, the closing where the force
     * only falls after it. Never a sample of the output rows.
     */
    double peak_force;
    int closings, openings; /**< located closings / openings in the episode */
    int flags;              /**< CR_RECORD_* reasons for NaN coefficients */
    double peak_force_time; /**< when peak_force was reached, s (NaN: never loaded) */
    /**
     * Time the contact was loaded in the episode, s: from each closing (or
     * re-engagement, or joining while loaded) to the next opening (or force
     * release, or the episode's end), summed.
     */
    double duration;
} cr_contact_record;

/**
 * One finished episode as plain arrays: what the store writes to
 * /episode/NNNN and reads back (cr_run_file_episode), and what the comparator
 * takes (cr_compare_add). The arrays belong to whoever filled the struct.
 */
typedef struct {
    cr_episode_info info;
    int dim;                          /**< numbers per body vector (1 or 2) */
    const size_t *bodies;             /**< info.body_count, increasing */
    const double *mass;               /**< per body, INFINITY for a fixed one */
    const double *velocity_before;    /**< u⁻, body_count × dim */
    const double *velocity_after;     /**< u⁺, body_count × dim */
    const cr_contact_record *records; /**< info.contact_count */
    const double *normals;            /**< at joining, contact_count × dim */
    const double *vector_impulses;    /**< ∫ f n dt, contact_count × dim */
    /** Models with rigid bodies (cr_system_rotating_body): the body-level
     * impact configuration of cr_monitor_impact, which the comparator takes
     * instead of the per-body arrays above; dofs = 0 and NULLs otherwise. */
    size_t dofs;
    const double *dof_mass;               /**< M's diagonal (m, m, J per rigid body) */
    const double *dof_before, *dof_after; /**< u⁻ and u⁺ on those dofs */
    const double *columns;                /**< W, contact_count × dofs (record r's column) */
} cr_episode_data;

/**
 * Attaches a monitor to @p sys (as an event and output listener). Create it
 * after the system and before cr_system_run; contacts touching and already
 * approaching at t = 0 open an episode at once.
 */
CR_EXPORT cr_monitor *cr_monitor_create(cr_system *sys);
/** Detaches and frees the monitor; accepts NULL. */
CR_EXPORT void cr_monitor_destroy(cr_monitor *mon);
/** After the run: closes episodes still running (complete = 0). */
CR_EXPORT int cr_monitor_finish(cr_monitor *mon);
/** What failed last (a listener's CR_ERR_NOMEM, a bad argument). */
CR_EXPORT const char *cr_monitor_last_error(const cr_monitor *mon);

CR_EXPORT size_t cr_monitor_episode_count(const cr_monitor *mon);
/** Episodes running now (0: the run is between episodes, where a continued
 * run may start: cradle/store.h, cr_store_set_monitor). */
CR_EXPORT size_t cr_monitor_open_count(const cr_monitor *mon);
/** @return CR_ERR_INVALID for an index out of range or an episode still running. */
CR_EXPORT int cr_monitor_get_episode(const cr_monitor *mon, size_t k, cr_episode_info *info);
/** Bodies of the group, increasing (fixed bodies included); count in *n. */
CR_EXPORT const size_t *cr_monitor_bodies(const cr_monitor *mon, size_t k, size_t *n);
/** Masses of the group's bodies (INFINITY for a fixed one); count in *n. */
CR_EXPORT const double *cr_monitor_masses(const cr_monitor *mon, size_t k, size_t *n);
/** Velocities of the group's bodies (dim per body) before (after = 0) or after; bodies in *n. */
CR_EXPORT const double *cr_monitor_velocities(const cr_monitor *mon, size_t k, int after,
                                              size_t *n);
/** Positions of the group's bodies (dim per body, as cr_system_get_positions)
 * at each one's joining (after = 0) or at the episode's end; bodies in *n. */
CR_EXPORT const double *cr_monitor_positions(const cr_monitor *mon, size_t k, int after, size_t *n);
/** Per-contact records (unilateral contacts of the group); count in *n. */
CR_EXPORT const cr_contact_record *cr_monitor_contacts(const cr_monitor *mon, size_t k, size_t *n);
/** ∫ f n dt over the episode, dim values per record; records in *n. */
CR_EXPORT const double *cr_monitor_vector_impulses(const cr_monitor *mon, size_t k, size_t *n);
/** Unit normals at joining (the impact configuration's W), dim per record; records in *n. */
CR_EXPORT const double *cr_monitor_normals(const cr_monitor *mon, size_t k, size_t *n);
/** Indices into cr_system_events of the episode's events, in time order; count in *n. */
CR_EXPORT const size_t *cr_monitor_events(const cr_monitor *mon, size_t k, size_t *n);

/**
 * Episode k as plain arrays pointing into the monitor (valid while it lives).
 * @return CR_ERR_INVALID for an index out of range or an episode still running.
 */
CR_EXPORT int cr_monitor_episode_data(const cr_monitor *mon, size_t k, cr_episode_data *d);

/**
 * Impulse ratios αᵢⱼ = Pⱼ / Pᵢ between the episode's records (001 eq. 26), row
 * major, records² values into @p alpha (NaN where Pᵢ = 0).
 */
CR_EXPORT int cr_monitor_alpha_matrix(const cr_monitor *mon, size_t k, double *alpha);
/**
 * Kinetic angles of the impact configuration (001 eqs. 39–45): the cosines
 * wᵢᵀM⁻¹wⱼ / √(wᵢᵀM⁻¹wᵢ · wⱼᵀM⁻¹wⱼ) between the records' columns, records²
 * values into @p cosines; with rigid bodies on cr_monitor_impact's (M, W).
 */
CR_EXPORT int cr_monitor_kinetic_cosines(const cr_monitor *mon, size_t k, double *cosines);

/**
 * The impact configuration of episode k for the rigid laws: dim dofs per
 * moving body of the group, M diagonal, one column of W per record from the
 * normals at joining (−n on body_a, +n on body_b), u⁻. A rigid body
 * (cr_system_rotating_body) takes 3 dofs (v_x, v_y, ω) on the first of its
 * listed discs that joined, M = diag(m, m, J) in the lab frame, and its
 * columns carry the lever arms (±n, ±r × n), r from its centre of mass to the
 * disc's centre at joining; its other discs take no dofs. Caller destroys.
 */
CR_EXPORT cr_impact *cr_monitor_impact(const cr_monitor *mon, size_t k);

/* ---- collisions: episodes of one swing taken together ------------------------- */

/**
 * Collisions group the episodes an experimentalist sees as one impact: in a
 * pendulum cradle the pulse disperses and one swing's impact splits into
 * several episodes on changing subsets of the balls (re-contacts). Two
 * episodes that share a moving body belong to one collision when the later one
 * starts within the collision window τ after the earlier one ends, and the
 * relation is taken transitively. τ = CR_MONITOR_COLLISION_FRACTION · T_f,
 * where T_f, the free-flight time between collisions, is the longest time any
 * moving body spends between two of its episodes in the run (a pendulum
 * cradle: about half a period; docs/design.md, "Contact states and
 * episodes"). Collisions are built from the finished episodes by
 * cr_monitor_finish.
 */
#define CR_MONITOR_COLLISION_FRACTION 0.25

/** Scalars of one collision. */
typedef struct {
    double t_start, t_end;   /**< first episode's start, last episode's end, s */
    size_t episode_count;    /**< its episodes (cr_monitor_collision_episodes) */
    size_t body_count;       /**< bodies of its episodes (fixed ones included) */
    size_t contact_count;    /**< distinct unilateral contacts (cr_monitor_collision_contacts) */
    size_t reference;        /**< the first episode's reference contact */
    size_t reference_record; /**< its index among the collision's contacts */
    /** kinetic energy of the moving bodies at their first joining / their last episode's end, J */
    double T_minus, T_plus;
    /**
     * Work of the fields on the bodies over the collision, J: the episodes'
     * field_work plus, for each body's free flight between two of its
     * episodes, its kinetic energy change there (exact: only fields act; air
     * drag in those flights is counted here too, so κ stays the impact's).
     */
    double field_work;
    double kappa;      /**< (T⁺ − field_work) / T⁻ */
    double dissipated; /**< T⁻ − T⁺ + field_work (the episodes' dissipated, summed), J */
    int complete;      /**< 1: every episode complete */
} cr_collision_info;

/** Per-contact totals over a collision's episodes. */
typedef struct {
    size_t contact; /**< contact number in the system */
    size_t body_a;  /**< its bodies (body_b < 0: wall CR_WALL_INDEX(body_b)) */
    long body_b;
    double impulse;       /**< Σ of the episodes' Pᵢ, N s */
    double compression;   /**< Σ of the episodes' compression impulses, N s */
    double expansion;     /**< Σ of the episodes' expansion impulses, N s */
    double alpha;         /**< impulse / the reference contact's impulse */
    size_t episode_count; /**< episodes in which the contact is a record */
} cr_collision_record;

/**
 * Sets the collision window τ in seconds (≤ 0: the automatic rule above).
 * After cr_monitor_finish the collisions are rebuilt at once.
 */
CR_EXPORT int cr_monitor_set_collision_window(cr_monitor *mon, double window);
/**
 * The window τ used (s) and, in @p free_flight (may be NULL), T_f (0 when no
 * body has two episodes). @return NAN before cr_monitor_finish.
 */
CR_EXPORT double cr_monitor_collision_window(const cr_monitor *mon, double *free_flight);
/** Collisions, in the order of their first episodes (0 before cr_monitor_finish). */
CR_EXPORT size_t cr_monitor_collision_count(const cr_monitor *mon);
/** @return CR_ERR_INVALID for an index out of range. */
CR_EXPORT int cr_monitor_get_collision(const cr_monitor *mon, size_t k, cr_collision_info *info);
/** Its episodes (indices for cr_monitor_get_episode), increasing; count in *n. */
CR_EXPORT const size_t *cr_monitor_collision_episodes(const cr_monitor *mon, size_t k, size_t *n);
/** Its bodies, increasing (fixed bodies included); count in *n. */
CR_EXPORT const size_t *cr_monitor_collision_bodies(const cr_monitor *mon, size_t k, size_t *n);
/** 1 when @p body takes part in collision k and moves (finite mass), else 0. */
CR_EXPORT int cr_monitor_collision_moves(const cr_monitor *mon, size_t k, size_t body);
/**
 * Velocities of its bodies, dim per body: before (after = 0: u⁻ of each body's
 * first episode of the collision) or after (u⁺ of its last); bodies in *n.
 */
CR_EXPORT const double *cr_monitor_collision_velocities(const cr_monitor *mon, size_t k, int after,
                                                        size_t *n);
/** Per-contact totals, by contact number; count in *n. */
CR_EXPORT const cr_collision_record *cr_monitor_collision_contacts(const cr_monitor *mon, size_t k,
                                                                   size_t *n);
/** Σ of the episodes' ∫ f n dt per contact record, dim values each; records in *n. */
CR_EXPORT const double *cr_monitor_collision_vector_impulses(const cr_monitor *mon, size_t k,
                                                             size_t *n);

#endif
