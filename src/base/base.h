/* Private helpers shared by the library's modules. */
#ifndef CRADLE_PRIV_H
#define CRADLE_PRIV_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "cradle/common.h"
#include "cradle/model.h"
#include "cradle/system.h"

#define CR_ERRMSG_LEN 512

/* Closing and opening are located where δ crosses CR_EVENT_MARGIN·δ*, not 0
 * (chains and pools alike). Bodies that touch at rest carry δ = 0 exactly, and
 * once a field or a wave reaches them roundoff makes δ flicker around 0 at the
 * 1e-40 level: crossing 0 would be noise, and a root function sitting at an exact
 * 0 stops CVODE (CV_CLOSERT). A margin of 1e-12 δ* is far below every
 * tolerance, and it makes touching contacts report their closing when a wave
 * arrives. A contact is "loaded" when f > 0 with δ above the margin. */
#define CR_EVENT_MARGIN 1e-12

/* A contact whose own energy cannot compress it beyond this fraction of δ* is a
 * wake contact: quiet, no events, settled (sim-roots.c, cr_sm_wake_margin). The force it
 * carries below this overlap is at most CR_WAKE_FRACTION^n of the pulse's. */
#define CR_WAKE_FRACTION 1e-6

/* δᵉ for an overlap δ ≥ 0, with 0⁰ = 1 and the Hertz exponents through sqrt
 * (contact-force.h has it inline for the right-hand sides). */
double cr_pow_overlap(double delta, double e);

/* Trajectory rows a run writes at most over a given end time (an explicit
 * interval that asks for more is refused; past this many rows the interval is
 * widened tenfold). 1e7 rows of a 5-ball chain are ~1 GB uncompressed. */
#define CR_MAX_OUTPUT_ROWS 10000000

/* CVODE stops with CV_ILL_INPUT ("Root found at and very near t") when a root
 * function is exactly 0 at a located root and again just after it. That happens
 * in real states: behind a pulse two beads of a loaded contact can carry
 * bit-identical velocities, so δ̇ is 0.0 over an interval; a heavily damped
 * release law K δ + C δ̇ can cancel to 0.0 at two neighbouring instants. Every
 * root function of every engine goes through this: an exact 0 counts as
 * positive, so only true sign changes are roots and CVODE never meets a zero. */
static inline double cr_root_nonzero(double g)
{
    /* not a power of two: CVODE's Illinois step scales the left value by powers
     * of two, and must never meet the right value exactly (0/0) */
    return g != 0.0 ? g : 1e-300;
}

/* Cell lists (the pool engine's neighbour search, the model file's overlap
 * check): the cell of a coordinate, clamped so that absurd positions cannot
 * overflow the conversion, and a hash key of a cell pair computed with unsigned
 * wrap-around (a prime stride keeps keys distinct for |cy| < 2³¹). */
static inline int64_t cr_cell_index(double x, double h)
{
    double c = floor(x / h);
    return c > 1e15 ? (int64_t)1e15 : (c < -1e15 ? -(int64_t)1e15 : (int64_t)c);
}

static inline int64_t cr_cell_key(int64_t cx, int64_t cy)
{
    return (int64_t)((uint64_t)cx * 4294967311ULL + (uint64_t)cy);
}

/* Writes a formatted message into a fixed buffer (never fails, truncates). */
static inline void cr_set_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void cr_set_msg(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* A listener's code as the engines return it: negative codes go up as they
 * are (a full disk is reported as such, not as an interruption), a positive
 * one is an interruption. */
static inline int cr_listener_code(int r)
{
    return r == 0 ? CR_OK : (r < 0 ? r : CR_ERR_INTERRUPTED);
}

/* The end of a run stopped at time @p t (s) by a request (CR_ERR_INTERRUPTED)
 * or by a listener's failure (any other code): writes the end reason and the
 * message into the engine's buffers; returns @p rc (error.c). */
int cr_run_stopped(int rc, double t, char *reason, size_t reason_len, char *err, size_t err_len);

/* Room for one more event in a growing array (doubling from 64): 0, or -1
 * when out of memory, the array left as it was (error.c). */
int cr_event_room(cr_event **events, size_t n, size_t *cap);

/* The engines' switches from the environment (debugging and tuning aids;
 * model.c). The model's integration.active_region unless
 * CRADLE_ACTIVE_REGION=off|on says otherwise: */
cr_active_region cr_env_active_region(const cr_model *model);
/* A count named @p name, or @p fallback when unset or negative: */
size_t cr_env_count(const char *name, size_t fallback);
/* The cr_method named @p name (cr_method_name), or @p fallback: */
int cr_env_method(const char *name, int fallback);

/* A SUNDIALS error handler (CVODES' and ARKODE's share the signature;
 * integrator.c): SUNDIALS hands its message over before returning the flag,
 * and it is kept in @p user, a CR_ERRMSG_LEN buffer, so the error the user
 * sees says why. */
void cr_sundials_error_handler(int code, const char *module, const char *function, char *msg,
                               void *user);

/* Argument check in pixman's return_val_if_fail style: records the failed
 * condition in the object's message buffer and returns the code. */
#define CR_CHECK(cond, msgbuf, code)                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            cr_set_msg((msgbuf), CR_ERRMSG_LEN, "%s: check failed: %s", __func__, #cond);          \
            return (code);                                                                         \
        }                                                                                          \
    } while (0)

/* An explicit output interval both engines refuse: finer than a millionth of
 * the contact time scale @p T (nothing to see there, and rows without end), or
 * more than CR_MAX_OUTPUT_ROWS over a given end time. */
static inline int cr_output_interval_check(double interval, double T, double t_end, char *err,
                                           size_t errlen)
{
    if (interval <= 0.0)
        return CR_OK;
    if (interval < 1e-6 * T) {
        cr_set_msg(err, errlen,
                   "output.interval: %g s is below a millionth of the contact time scale %g s",
                   interval, T);
        return CR_ERR_INVALID;
    }
    if (t_end > 0.0 && t_end / interval > CR_MAX_OUTPUT_ROWS) {
        cr_set_msg(err, errlen,
                   "output.interval: %g s asks for %.3g rows up to t_end = %g s (at most %d)",
                   interval, t_end / interval, t_end, CR_MAX_OUTPUT_ROWS);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

#endif
