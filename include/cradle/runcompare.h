/**
 * @file runcompare.h
 * @brief Two runs of the same model compared collision by collision and over
 * the whole run: the compliant run against a rigid one (docs/compare.md,
 * "Compare over a run").
 *
 * Collisions (monitor.h) are matched by their order: collision k of one run
 * with collision k of the other; among rigid collisions that start at the
 * same instant (resolved at once, in no physical order) the compliant
 * collision takes the one with its bodies. Per matched collision: when it starts in
 * each run (the phase), the pre- and post-collision velocities of every body
 * of either (u⁻ of its first joining, u⁺ of its last episode's end), the
 * kinetic energies, and the time to the next collision. Over the run: the
 * phase drift (t_rigid − t_compliant of the last matched collision), the
 * energy decay Π κ over the matched collisions of each run (the kinetic
 * energy the impacts kept, the fields' work taken out), and the counts of
 * unmatched collisions. The module computes from two finished monitors; it runs
 * nothing itself.
 */
#ifndef CRADLE_RUNCOMPARE_H
#define CRADLE_RUNCOMPARE_H

#include "cradle/common.h"
#include "cradle/monitor.h"

/** Collision k of both runs. Velocity errors are relative to the collision's speed scale. */
typedef struct {
    size_t collision;             /**< k (0-based) */
    double t_compliant, t_rigid;  /**< start of collision k in each run, s */
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
} cr_runcmp_row;

/** The whole run. */
typedef struct {
    size_t collisions_compliant, collisions_rigid; /**< collisions of each run */
    size_t matched;                                /**< min of the two: the rows */
    double max_velocity_error;                     /**< largest velocity_after_error of the rows */
    double mean_velocity_error;                    /**< its mean */
    double max_energy_error;                       /**< largest |energy_error| */
    double phase_drift;                            /**< phase of the last row, s (NaN: no row) */
    double max_phase;                              /**< largest |phase|, s */
    double mean_interval;   /**< mean compliant time between collisions, s (NaN: < 2) */
    double decay_compliant; /**< Π κ over the matched collisions, compliant */
    double decay_rigid;     /**< the same, rigid */
} cr_runcmp_summary;

/**
 * Compares the collisions of two finished monitors (cr_monitor_finish called)
 * of the same model. @p rows receives up to @p cap rows (may be NULL with cap
 * 0: the summary still covers every matched collision). @return CR_OK, or
 * CR_ERR_INVALID for a NULL monitor or different dimensions or body counts.
 */
/** One rigid variant compared with the compliant run (what the store writes). */
typedef struct {
    const char *name;          /**< as asked for ("newton", "calibrated", …) */
    const char *law;           /**< cr_system_rigid_law: the law and its parameters */
    const char *end_reason;    /**< why the rigid run ended */
    const char *error;         /**< empty, or why the rigid run failed (rows up to there) */
    const cr_runcmp_row *rows; /**< summary.matched rows */
    cr_runcmp_summary summary;
} cr_runcmp_variant;

CR_EXPORT int cr_runcmp_collisions(const cr_monitor *compliant, const cr_monitor *rigid,
                                   cr_runcmp_row *rows, size_t cap, cr_runcmp_summary *summary);

#endif
