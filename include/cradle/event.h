/**
 * @file event.h
 * @brief The events an engine locates by root finding (contact closing,
 * maximum compression, release, ...), as the system's event listeners and
 * cr_system_events hand them over.
 */
#ifndef CRADLE_EVENT_H
#define CRADLE_EVENT_H

#include <stddef.h>

#include "cradle/common.h"

/** What happened at an event located by root finding. */
typedef enum {
    CR_EVENT_CLOSE = 0,           /**< δ crosses the event margin upwards */
    CR_EVENT_OPEN = 1,            /**< δ crosses it downwards */
    CR_EVENT_MAX_COMPRESSION = 2, /**< δ̇ crosses 0 downwards while δ > 0 */
    CR_EVENT_MIN_COMPRESSION = 3, /**< δ̇ crosses 0 upwards while δ > 0 */
    CR_EVENT_FORCE_RELEASE = 4,   /**< `force` convention: f reaches 0 while δ > 0 */
    CR_EVENT_FORCE_REENGAGE = 5,  /**< `force` convention: f turns positive again */
    /** a damped contact's force peaks: ḟ crosses 0 downwards while f > 0 (without a
     * damper the peak is the maximum compression; where the force only falls
     * after closing, the closing) */
    CR_EVENT_MAX_FORCE = 6,
    /** a pendulum ball's turning point: its arc velocity ṡ crosses 0 while it
     * touches nothing (`output.swing_extremes`); `contact` holds the ball,
     * `overlap` its arc s (m), `rate` ṡ (0), `force` and `impulse` 0 */
    CR_EVENT_SWING_EXTREME = 7
} cr_event_kind;

/** One located event. */
typedef struct {
    double t;           /**< time, s */
    size_t contact;     /**< contact number (the ball of a swing extreme) */
    cr_event_kind kind; /**< what happened */
    double overlap;     /**< δ at the event, m */
    double rate;        /**< δ̇ at the event, m/s */
    double force;       /**< f at the event, N */
    double impulse;     /**< ∫ f dt of this contact from t = 0 to the event, N s */
} cr_event;

/** @return "close", "open", "max-compression", … */
CR_EXPORT const char *cr_event_kind_name(cr_event_kind kind);

#endif
