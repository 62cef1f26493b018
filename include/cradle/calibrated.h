/**
 * @file calibrated.h
 * @brief Rigid runs calibrated on a compliant run (`cradle run MODEL --rigid
 * calibrated`; docs/compare.md, "Rigid runs: --rigid calibrated").
 *
 * A compliant collision (monitor.h: the episodes of one swing taken
 * together) is what one rigid impact stands for. Each rigid impact of a chain
 * is mapped to a compliant collision by time and bodies: the first collision
 * not yet applied whose bodies meet the impact's and whose time span, widened
 * by the monitor's collision window τ on both sides, holds the impact. The
 * impact then takes in every body of that collision (cr_system_rigid_set_span:
 * gaps closed for the law) and the energetic law applies the collision's
 * impulse ratios α over all its contacts and its κ once, for the whole
 * collision, κ with the fields' exact work over the collision taken out
 * (cr_collision_info kappa, cr_calibrated_rigid_kappa): the fields act in the
 * rigid flight after the impact, as they act during the compliant collision,
 * so they are not applied twice.
 *
 * What does not map one to one is listed, never silently patched:
 * - CR_MISMATCH_BODIES: the impact, widened, does not hold the collision's
 *   bodies exactly (a fixed body in between, or rigid bodies the collision
 *   did not touch);
 * - CR_MISMATCH_REPEAT: another impact within a collision already applied
 *   (the rigid bodies met again where the compliant ones did not): resolved
 *   along the collision's α with κ = 1, no energy taken twice;
 * - CR_MISMATCH_NONE: no collision of these bodies within the window: the
 *   collision nearest in time that holds one of its pairs lends α and κ;
 * - CR_MISMATCH_MISSED: a compliant collision before the rigid run's end that
 *   no rigid impact took (cr_calibrated_rigid_finish; t is NaN).
 */
#ifndef CRADLE_CALIBRATED_H
#define CRADLE_CALIBRATED_H

#include <stddef.h>

#include "cradle/common.h"
#include "cradle/monitor.h"
#include "cradle/rigid.h"

typedef struct cr_calibrated_rigid cr_calibrated_rigid;

/** How a rigid impact failed to map one to one (see the file comment). */
typedef enum {
    CR_MISMATCH_BODIES = 0,
    CR_MISMATCH_REPEAT = 1,
    CR_MISMATCH_NONE = 2,
    CR_MISMATCH_MISSED = 3
} cr_mismatch_kind;

/** One rigid impact that did not map one to one to a compliant collision. */
typedef struct {
    double t;                     /**< time of the rigid impact, s */
    size_t first_body, last_body; /**< its bodies (after widening) */
    long collision;               /**< the compliant collision whose α, κ it took (−1: none) */
    double t_collision;           /**< that collision's start, s (NaN: none) */
    size_t collision_first_body, collision_last_body; /**< its bodies */
    cr_mismatch_kind kind;
} cr_rigid_mismatch;

/** @return "bodies", "repeat", "none", "missed". */
CR_EXPORT const char *cr_mismatch_kind_name(cr_mismatch_kind kind);

/**
 * The calibration of a finished compliant monitor (cr_monitor_finish called)
 * of a chain with @p pairs pairs: every collision's time span, bodies,
 * reference contact, α per pair and κ (none: a rigid impact then has no
 * collision to stand for, and stops its run). The monitor may be destroyed
 * afterwards. @return NULL with a one-line reason in @p msg.
 */
CR_EXPORT cr_calibrated_rigid *cr_calibrated_rigid_create(const cr_monitor *compliant, size_t pairs,
                                                          char *msg, size_t msglen);
/** Frees; accepts NULL. */
CR_EXPORT void cr_calibrated_rigid_destroy(cr_calibrated_rigid *c);
/**
 * Attaches to a rigid chain system of the energetic law before its run: the
 * span hook, the parameter provider (labelled @p label, may be NULL) and κ
 * clamping (an impact whose borrowed κ is infeasible gets its feasible
 * minimum, recorded as cr_system_rigid_kappa_clamps). Resets the mapping, so
 * one calibration serves several runs in turn. @return CR_ERR_INVALID for a
 * system that is not a rigid chain of as many pairs as the calibration.
 */
CR_EXPORT int cr_calibrated_rigid_attach(cr_calibrated_rigid *c, cr_system *rigid,
                                         const char *label);
/** After the run (ended at @p t_end, s): lists the compliant collisions that
 * started before it and that no rigid impact took (CR_MISMATCH_MISSED). */
CR_EXPORT void cr_calibrated_rigid_finish(cr_calibrated_rigid *c, double t_end);
/** The mismatches of the last run attached, in order; count in *n. */
CR_EXPORT const cr_rigid_mismatch *cr_calibrated_rigid_mismatches(const cr_calibrated_rigid *c,
                                                                  size_t *n);
/** The κ collision @p k lends: (T⁺ − W_field)/T⁻, the monitor's; NaN out of
 * range. */
CR_EXPORT double cr_calibrated_rigid_kappa(const cr_calibrated_rigid *c, size_t k);
/** Compliant collisions, and how many the last run applied. */
CR_EXPORT size_t cr_calibrated_rigid_collisions(const cr_calibrated_rigid *c, size_t *applied);

#endif
