/**
 * @file compare.h
 * @brief The comparator: every rigid impact law on every impact episode of a
 * compliant run, calibrated and predictive, with errors and verdicts
 * (docs/compare.md).
 *
 * An episode (cr_episode_data: the monitor's, or one read back from a run
 * file) gives the impact configuration (M, W, u⁻), the measured u⁺ and the
 * contact impulses P. Every law of the law core is evaluated on it in two
 * modes:
 *
 * - **calibrated**: each law takes the parameters measured on the same
 *   episode (per-contact eᴺ for Newton, Mosterman, Pandrea and the
 *   sequential law; eᴾ for Poisson; the one ε of the global dissipation index
 *   whose T⁺/T⁻ equals the measured κ; κ and α for the energetic law);
 * - **predictive**: what is known without a compliant run of the whole
 *   system: each contact's restitution from a two-body compliant run with its
 *   pair law and reduced mass at the reference contact's approach speed
 *   (cached); α and κ have no source yet (no prediction).
 *
 * The LZB law takes the pair laws in both modes (K, n, and the two-body
 * restitution as energetic restitution). A measured restitution above 1 is
 * passed as it is (cr_law_params::superelastic) and the row flagged
 * out-of-range.
 *
 * Create, add episodes, query (as the other modules): cr_compare_create →
 * cr_compare_add (or cr_compare_add_monitor) per episode → rows, episodes and
 * summaries. Nothing is printed; the two-body runs are the only simulations.
 */
#ifndef CRADLE_COMPARE_H
#define CRADLE_COMPARE_H

#include "cradle/common.h"
#include "cradle/calibrate.h"
#include "cradle/contact.h"
#include "cradle/laws.h"
#include "cradle/model.h"
#include "cradle/monitor.h"
#include "cradle/table.h"

typedef struct cr_compare cr_compare;

/** The two modes. */
typedef enum {
    CR_COMPARE_CALIBRATED = 0, /**< parameters measured on the same episode */
    CR_COMPARE_PREDICTIVE = 1  /**< parameters from two-body runs and tables */
} cr_compare_mode;
#define CR_COMPARE_MODE_COUNT 2

/** Verdict of one law in one mode on one episode. */
typedef enum {
    CR_COMPARE_OK = 0,        /**< one answer, every parameter in the law's range */
    CR_COMPARE_INFEASIBLE,    /**< the law has no admissible answer (or no parameter gives κ) */
    CR_COMPARE_MULTIPLE,      /**< several outcomes (sequential); the closest is reported */
    CR_COMPARE_OUT_OF_RANGE,  /**< a measured parameter outside the law's range, used as it
                                   is; without an answer when the law core refuses it */
    CR_COMPARE_TOO_LARGE,     /**< above the law core's size caps: nothing computed */
    CR_COMPARE_FAILED,        /**< the law's solver failed */
    CR_COMPARE_NO_PREDICTION, /**< no source for the law's parameters in this mode */
    CR_COMPARE_STATUS_COUNT
} cr_compare_status;

/** Flags of a row (cr_compare_row::flags). */
enum {
    CR_COMPARE_FLAG_OUT_OF_RANGE = 1,    /**< a parameter outside the law's range, used as it is */
    CR_COMPARE_FLAG_AT_REST = 2,         /**< eᴺ of a contact at rest passed as 0 (Newton's
                                              law does not depend on it there) */
    CR_COMPARE_FLAG_NO_COMPRESSION = 4,  /**< eᴾ of a contact without compression passed as 0 */
    CR_COMPARE_FLAG_FIELD_CORRECTED = 8, /**< measured against u⁺ − M⁻¹∫F_field dt */
    CR_COMPARE_FLAG_ELASTIC = 16         /**< predictive: e = 1 of an elastic pair law (C = 0),
                                              exact, without a run */
};

/**
 * A law's conditions are checked with this relative tolerance: γᵢ⁺ ≥ −tol·max|γ⁻|,
 * Pᵢ ≥ −tol·max|P|, T⁺ ≤ (1 + tol) T⁻ (the law core's own tolerance).
 */
#define CR_COMPARE_CONDITION_TOL 1e-9

/**
 * Relative tolerance of the LZB law's integration in the comparator. LZB is the
 * one law that integrates (most of compare's time on a pendulum cradle); at 1e-8
 * its u⁺ is within ~1e-7 of the exact one (measured: α on the 3-ball Hertz chain
 * 4.6e-8 off the compliant run), and compare stays within 10 % of the run's cost
 * (bench-compare); at the law core's default 1e-10 it takes ~25 % more.
 */
#define CR_COMPARE_LZB_TOL 1e-8

/** One law in one mode on one episode. */
typedef struct {
    size_t episode;           /**< the index given to cr_compare_add */
    cr_law_id law;            /**< the law (cr_law_name) */
    cr_compare_mode mode;     /**< calibrated or predictive */
    cr_compare_status status; /**< the verdict */
    int law_status;           /**< cr_law_status when the law ran, −1 when it did not */
    /** The law's one global parameter: GDI's ε, the energetic law's κ; NaN otherwise. */
    double parameter;
    double error;         /**< ‖u⁺_law − u⁺‖_M / ‖v⊥‖_M; NaN without an answer */
    double energy_error;  /**< (T⁺_law − T⁺) / T⁻ */
    double impulse_error; /**< ‖P_law − P‖ / ‖P‖ (Euclidean, measured P) */
    double energy_ratio;  /**< T⁺_law / T⁻ */
    int gamma_ok;         /**< the law's answer has γ⁺ ≥ 0 (−1: no answer) */
    int impulse_ok;       /**< P ≥ 0 (−1: no answer) */
    int energy_ok;        /**< T⁺ ≤ T⁻ (−1: no answer) */
    size_t outcomes;      /**< outcomes of the law (several for the sequential law) */
    size_t chosen;        /**< the outcome reported: the closest to u⁺ */
    int flags;            /**< CR_COMPARE_FLAG_* */
    char message[512];    /**< what the law or the mapping said ("" when nothing; a note that
                             did not fit ends it with "...") */
} cr_compare_row;

/** What the comparator kept of one episode. */
typedef struct {
    size_t index;     /**< the index given to cr_compare_add */
    size_t dofs;      /**< dofs of the impact configuration (dim per moving body) */
    size_t contacts;  /**< contact records (columns of W) */
    size_t reference; /**< the reference record */
    size_t first_row; /**< its rows: first_row … first_row + row_count − 1 */
    size_t row_count; /**< (laws × modes) */
    double kappa;     /**< T⁺/T⁻ of the reference u⁺ (field-corrected when fields act) */
    double v_perp; /**< ‖v⊥‖_M, the normal part of u⁻ in the kinetic metric (m/s·√kg) */
    double speed;  /**< |γ⁻| of the reference contact, m/s */
    double kappa_min;    /**< T⁺/T⁻ under maximal dissipation (GDI's ε = 0); NaN if unknown */
    int field_corrected; /**< 1: u⁺ − M⁻¹∫F_field dt is the reference */
    double t_start;      /**< s */
} cr_compare_episode;

/** Over all episodes, one law in one mode. */
typedef struct {
    size_t episodes; /**< episodes compared */
    size_t answered; /**< episodes where the law gave an answer (finite error) */
    size_t status[CR_COMPARE_STATUS_COUNT]; /**< episodes per verdict */
    double mean_error, max_error;           /**< over the answered episodes (NaN: none) */
    double mean_energy_error;               /**< mean |energy error| over them */
} cr_compare_summary;

/** A comparator with an empty two-body cache; NULL when out of memory. */
CR_EXPORT cr_compare *cr_compare_create(void);
/** Frees it; accepts NULL. */
CR_EXPORT void cr_compare_destroy(cr_compare *c);
CR_EXPORT const char *cr_compare_last_error(const cr_compare *c);

/**
 * Compares every law in both modes on one episode and keeps the rows.
 * @p laws: the pair law of each record (for the predictive two-body runs), or
 * NULL (predictive restitution then has no source). @p fields: 1 when fields
 * act on the bodies; the reference is then u⁻ + M⁻¹ Σ ∫f n dt, i.e. the
 * measured u⁺ less the field impulse M⁻¹∫F_field dt (docs/compare.md).
 * @return CR_OK, CR_ERR_INVALID for a malformed episode, CR_ERR_NOMEM.
 */
CR_EXPORT int cr_compare_add(cr_compare *c, size_t index, const cr_episode_data *ep,
                             const cr_contact_params *laws, int fields);
/** The same for episode @p k of @p mon, the pair laws and fields taken from @p model. */
CR_EXPORT int cr_compare_add_monitor(cr_compare *c, const cr_monitor *mon, size_t k,
                                     const cr_model *model);

CR_EXPORT size_t cr_compare_episode_count(const cr_compare *c);
/** The k-th episode added (0 … count − 1). */
CR_EXPORT int cr_compare_get_episode(const cr_compare *c, size_t k, cr_compare_episode *out);
/** The reference u⁺ of the k-th episode (dofs values). */
CR_EXPORT const double *cr_compare_reference_velocity(const cr_compare *c, size_t k);
/** The field impulse ∫F_field dt per dof of the k-th episode (0 without fields). */
CR_EXPORT const double *cr_compare_field_impulse(const cr_compare *c, size_t k);
/** The measured contact impulses of the k-th episode (contacts values). */
CR_EXPORT const double *cr_compare_measured_impulse(const cr_compare *c, size_t k);
/** The impact configuration of the k-th episode (owned by the comparator; NULL above the caps). */
CR_EXPORT cr_impact *cr_compare_impact(const cr_compare *c, size_t k);

CR_EXPORT size_t cr_compare_row_count(const cr_compare *c);
CR_EXPORT const cr_compare_row *cr_compare_get_row(const cr_compare *c, size_t i);
/** u⁺ of the law's chosen outcome (the episode's dofs values), or NULL without an answer. */
CR_EXPORT const double *cr_compare_row_velocity(const cr_compare *c, size_t i);
/** P of the chosen outcome (contacts values), or NULL without an answer. */
CR_EXPORT const double *cr_compare_row_impulse(const cr_compare *c, size_t i);
/**
 * The per-contact parameters the law was given (contacts values: restitution
 * of each contact, α for the energetic law, the energetic restitution eⱼ for
 * LZB), or NULL when it takes none.
 */
CR_EXPORT const double *cr_compare_row_parameters(const cr_compare *c, size_t i);

/** Over every episode added: @p law in @p mode. */
CR_EXPORT int cr_compare_summarize(const cr_compare *c, cr_law_id law, cr_compare_mode mode,
                                   cr_compare_summary *s);

/**
 * A reference table for the predictive mode (docs/tables.md, "Compare"): the
 * energetic law's α and κ come from @p t when it covers the episode, instead
 * of "no prediction". Set it before cr_compare_add; @p t (NULL: none) must
 * outlive the comparator's adds and is not freed by it.
 */
CR_EXPORT void cr_compare_set_table(cr_compare *c, cr_table *t);
/**
 * The first episode of the table's configuration whose impact lies outside
 * the table's axes (or off a fixed quantity): "episode K: TABLE: QUANTITY =
 * V is outside ...", "" when none. Its row is `no-prediction` too; `cradle
 * compare --table` refuses such a model (exit 5).
 */
CR_EXPORT const char *cr_compare_table_refusal(const cr_compare *c);

/** Two-body runs made for the predictive mode (cache misses), and cache hits. */
CR_EXPORT void cr_compare_cache_stats(const cr_compare *c, size_t *runs, size_t *hits);
/**
 * The comparator's two-body restitution cache (calibrate.h), to share: its
 * table lookups use it, and a rigid run's table provider may
 * (cr_table_chain3_cached). Owned by @p c; NULL for NULL.
 */
CR_EXPORT cr_restitution_cache *cr_compare_restitution_cache(cr_compare *c);

CR_EXPORT const char *cr_compare_mode_name(cr_compare_mode mode);
CR_EXPORT const char *cr_compare_status_name(cr_compare_status status);

/* ---- two runs compared (src/compare/compare-runs.c) ------------------------------
 *
 * Two runs of the same model compared collision by collision and over
 * the whole run: the compliant run against a rigid one (docs/compare.md,
 * "Compare over a run").
 *
 * Collisions (monitor.h) are paired by time and bodies, never by order: in
 * the order of the compliant collisions, each takes the rigid collision not
 * yet taken that shares a moving body with it and starts nearest in time,
 * within the window W (half the shortest time from a compliant collision to
 * the next one of one of its moving bodies; any time when no body has two),
 * the one with the same
 * bodies first on a tie. Collisions left on either side are rows of their
 * own, never shifted into the next pair. Per matched collision: when it starts in
 * each run (the phase), the pre- and post-collision velocities of every body
 * of either (u⁻ of its first joining, u⁺ of its last episode's end), the
 * kinetic energies, and the time to the next collision. Over the run: the
 * phase drift (t_rigid − t_compliant of the last matched collision), the
 * energy decay Π κ over the matched collisions of each run (the kinetic
 * energy the impacts kept, the fields' work taken out), and the counts of
 * unmatched collisions. The module computes from two finished monitors; it runs
 * nothing itself.
 */

/** A pair of collisions, or one left unmatched. Velocity errors are relative to
 * the compliant collision's speed scale; NaN where a side is missing. */
typedef struct {
    long collision;               /**< the compliant collision (0-based), −1: none */
    long rigid_collision;         /**< the rigid collision paired with it (0-based), −1: none */
    double t_compliant, t_rigid;  /**< their starts, s (NaN: no such collision) */
    double phase;                 /**< t_rigid − t_compliant, s */
    double next_compliant;        /**< t(k + 1) − t(k) in the compliant run (NaN: last), s */
    double next_rigid;            /**< the same in the rigid run, s */
    double speed;                 /**< max |u⁻| over the compliant collision's bodies, m/s */
    double velocity_before_error; /**< max over bodies |u⁻_rigid − u⁻_compliant| / speed */
    double velocity_after_error;  /**< max over bodies |u⁺_rigid − u⁺_compliant| / speed */
    double T_minus_compliant;     /**< kinetic energy before (cr_collision_info T_minus), J */
    double T_minus_rigid;         /**< J */
    double T_plus_compliant;      /**< kinetic energy after, J */
    double T_plus_rigid;          /**< J */
    double energy_error;          /**< (T⁺_rigid − T⁺_compliant) / T⁻_compliant */
    double kappa_compliant;       /**< the collision's κ (field work taken out) */
    double kappa_rigid;           /**< the rigid collision's κ */
    size_t episodes_compliant;    /**< episodes of the collision in each run */
    size_t episodes_rigid;        /**< (a rigid run's impacts at one or several instants) */
    int same_bodies;              /**< 1: both collisions hold the same bodies */
} cr_compare_runs_row;

/** The whole run. */
typedef struct {
    size_t collisions_compliant, collisions_rigid; /**< collisions of each run */
    size_t matched;                                /**< pairs: rows 0 … matched − 1 */
    size_t unmatched_compliant; /**< then the compliant collisions left unpaired */
    size_t unmatched_rigid;     /**< then the rigid ones */
    double window;              /**< W, s (INFINITY: any time) */
    double max_velocity_error;  /**< largest velocity_after_error of the rows */
    double mean_velocity_error; /**< its mean */
    double max_energy_error;    /**< largest |energy_error| */
    double phase_drift;         /**< phase of the last row, s (NaN: no row) */
    double max_phase;           /**< largest |phase|, s */
    double mean_interval;       /**< mean compliant time between collisions, s (NaN: < 2) */
    double decay_compliant;     /**< Π κ over the matched collisions, compliant */
    double decay_rigid;         /**< the same, rigid */
} cr_compare_runs_summary;

/** One rigid variant compared with the compliant run (what the store writes). */
typedef struct {
    const char *name;                /**< as asked for ("newton", "calibrated", …) */
    const char *law;                 /**< cr_system_rigid_law: the law and its parameters */
    const char *end_reason;          /**< why the rigid run ended */
    const char *error;               /**< empty, or why the rigid run failed (rows up to there) */
    const cr_compare_runs_row *rows; /**< matched + unmatched_compliant + unmatched_rigid rows */
    cr_compare_runs_summary summary;
} cr_compare_runs_variant;

/**
 * Compares the collisions of two finished monitors (cr_monitor_finish called)
 * of the same model. @p rows receives up to @p cap rows (may be NULL with cap
 * 0: the summary still covers every collision): the pairs in the compliant
 * order, then the compliant collisions left, then the rigid ones left; at most
 * collisions_compliant + collisions_rigid. @return CR_OK, or
 * CR_ERR_INVALID for a NULL monitor or different dimensions or body counts.
 */
CR_EXPORT int cr_compare_runs(const cr_monitor *compliant, const cr_monitor *rigid,
                              cr_compare_runs_row *rows, size_t cap,
                              cr_compare_runs_summary *summary);

#endif
