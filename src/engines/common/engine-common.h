/* What every engine shares below the ops table: the event margin, the wake
 * fraction, the output-interval rule, how a run stopped by a request or a
 * listener ends, event-array growth (engines/common/engine-common.c) and the
 * environment switches (engines/common/switches.c). */
#ifndef CRADLE_ENGINE_COMMON_H
#define CRADLE_ENGINE_COMMON_H

#include <math.h>
#include <stddef.h>

#include "base/base.h"
#include "base/sundials.h"
#include "cradle/model.h"
#include "cradle/system.h"

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

/* Trajectory rows a run writes at most over a given end time (an explicit
 * interval that asks for more is refused; past this many rows the interval is
 * widened tenfold). 1e7 rows of a 5-ball chain are ~1 GB uncompressed. */
#define CR_MAX_OUTPUT_ROWS 10000000

/* Air drag of a body whose drag per unit mass is kb (linear, 1/s) and kc
 * (quadratic, 1/m), at velocity v: its acceleration −(kb + kc|v|) v, and the
 * power m (kb + kc|v|) v² it takes (both engines; cr_model_drag). */
static inline double cr_drag_accel(double kb, double kc, double v)
{
    return -(kb + kc * fabs(v)) * v;
}

static inline double cr_drag_power(double m, double kb, double kc, double v)
{
    return m * (kb + kc * fabs(v)) * v * v;
}

/* Under drag a free ball's speed u falls by du/dt = −(kb + kc u) u without
 * turning, so from where it is it moves at most its reach ln(1 + kc u/kb)/kc
 * (u/kb without kc; unbounded without kb; 0 at rest). */
static inline double cr_drag_reach(double kb, double kc, double u)
{
    if (u <= 0.0)
        return 0.0;
    if (kb <= 0.0)
        return INFINITY;
    return kc > 0.0 ? log1p(kc * u / kb) / kc : u / kb;
}

/* Two free neighbours on a line, a (left, velocity va, drag per mass kba,
 * kca) and b (right) a surface gap apart (≤ 0: touching), never touch again:
 * together they travel less than the gap towards each other, or the gap never
 * shrinks: they move apart, or the one behind is not faster and has at least
 * the drag per mass of the one ahead at every speed (then it stays the slower:
 * the comparison principle for du/dt = −f(u)). Without drag on either, this is
 * "not approaching". A wall is a body at rest without drag. Both engines'
 * automatic end under drag (docs/design.md, "Air drag"). */
static inline int cr_drag_pair_parts(double gap, double va, double kba, double kca, double vb,
                                     double kbb, double kcb)
{
    if (cr_drag_reach(kba, kca, va) + cr_drag_reach(kbb, kcb, -vb) < gap)
        return 1;
    if (va > vb)
        return 0;
    if (va <= 0.0 && vb >= 0.0)
        return 1;
    return va > 0.0 ? kba >= kbb && kca >= kcb : kbb >= kba && kcb >= kca;
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
 * message into the engine's buffers; returns @p rc (engines/common/engine-common.c). */
int cr_run_stopped(int rc, double t, char *reason, size_t reason_len, char *err, size_t err_len);

/* Room for one more event in a growing array (doubling from 64): 0, or -1
 * when out of memory, the array left as it was (engines/common/engine-common.c). */
int cr_event_room(cr_event **events, size_t n, size_t *cap);

/* The engines' switches from the environment, debugging and comparison aids,
 * each read here and nowhere else (engines/common/switches.c; docs/design.md,
 * "Environment switches"). The model's integration.active_region unless
 * CRADLE_ACTIVE_REGION=off|on says otherwise: */
cr_active_region cr_switch_active_region(const cr_model *model);
/* CRADLE_REGION_PAD, bodies added around an active region, or @p fallback: */
size_t cr_switch_region_pad(size_t fallback);
/* CRADLE_AUTO_METHOD: erk or adams-fixed-point where auto would choose for an
 * undamped chain, else CR_METHOD_AUTO: */
int cr_switch_auto_method(void);
/* 1 with CRADLE_CHAIN_ROOTS=cvode (the chain locates events with CVODES' own
 * root finding instead of its local search): */
int cr_switch_chain_roots_cvode(void);
/* 0 with CRADLE_IMPULSE_STATES=off (the chain integrates impulses as CVODES
 * quadratures instead of states): */
int cr_switch_impulse_states(void);
/* 1 with CRADLE_RIGID_FLIGHT=cvodes (rigid pendulums fly by CVODES, not on
 * their closed forms; a comparison aid): */
int cr_switch_rigid_flight_cvodes(void);

/* How the trajectory is sampled (docs/model-format.md, "Output"), one plan for
 * the chain and the pool engines. */
typedef enum {
    CR_SAMPLE_AUTO,     /* the default rule below */
    CR_SAMPLE_INTERVAL, /* output.interval: rows on the grid k·dt */
    CR_SAMPLE_EVERY,    /* output.every: a row at every k-th integrator step */
    CR_SAMPLE_NONE      /* output.fields: none: rows only at t = 0 and the end */
} cr_sample_rule;

/* The default rule: rows dt = max(T/4, t_end/1000 when given) apart while a
 * contact is loaded (about 12 per contact time), only every free_every-th of
 * those grid points in free flight (the time the fastest body takes to cross a
 * tenth of the smallest radius), and, after every CR_OUTPUT_DEFAULT_ROW_CAP
 * rows, both intervals widened tenfold (counted: widenings). */
typedef struct {
    cr_sample_rule rule;
    double dt;       /* the grid (INFINITY: no grid) */
    long free_every; /* CR_SAMPLE_AUTO: grid points per free-flight row */
    long every;      /* CR_SAMPLE_EVERY: k */
    long rows, cap;  /* CR_SAMPLE_AUTO: rows written, the next cap */
    long widenings;
    long cap_step; /* rows between two widenings */
} cr_sampling;

/* The free-flight interval of the default rule: the time the fastest body
 * (speed scale @p V) takes to cross a tenth of the smallest radius of a
 * moving body; 0 when no body has a radius. */
double cr_free_flight_interval(const cr_model *model, double V);

/* The plan of a run: @p interval > 0 (explicit), @p every > 0, @p none, or the
 * default rule from the contact time scale @p T = δ* / V and @p free_dt
 * (cr_free_flight_interval), with its row cap @p max_rows (0: the default)
 * (engines/common/engine-common.c). */
cr_sampling cr_sampling_plan(double interval, long every, int none, double free_dt, double T,
                             double t_end, long max_rows);

/* A row written under the plan: at the cap the default rule widens. */
void cr_sampling_count(cr_sampling *sm);

/* The grid time after which free flight writes its next row (the default
 * rule), after time @p t: the next multiple of free_every·dt. */
double cr_sampling_next_free(const cr_sampling *sm, double t);

/* An explicit output interval both engines refuse: finer than a millionth of
 * the contact time scale @p T (nothing to see there, and rows without end), or
 * more than CR_MAX_OUTPUT_ROWS over a given end time. @p where names it
 * (cr_model_interval_where: the model file's line). */
static inline int cr_output_interval_check(double interval, const char *where, double T,
                                           double t_end, char *err, size_t errlen)
{
    if (interval <= 0.0)
        return CR_OK;
    if (interval < 1e-6 * T) {
        cr_set_msg(err, errlen, "%s: %g s is below a millionth of the contact time scale %g s",
                   where, interval, T);
        return CR_ERR_INVALID;
    }
    if (t_end > 0.0 && t_end / interval > CR_MAX_OUTPUT_ROWS) {
        cr_set_msg(err, errlen, "%s: %g s asks for %.3g rows up to t_end = %g s (at most %d)",
                   where, interval, t_end / interval, t_end, CR_MAX_OUTPUT_ROWS);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

#endif
