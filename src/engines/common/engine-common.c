#include "engines/common/engine-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int cr_run_stopped(int rc, double t, char *reason, size_t reason_len, char *err, size_t err_len)
{
    if (rc == CR_ERR_INTERRUPTED) {
        snprintf(reason, reason_len, "interrupted");
        cr_set_msg(err, err_len, "run interrupted at t = %.9g s", t);
    } else {
        snprintf(reason, reason_len, "stopped by a listener");
        cr_set_msg(err, err_len, "a listener failed at t = %.9g s: %s", t, cr_strerror(rc));
    }
    return rc;
}

int cr_event_room(cr_event **events, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    cr_event *e = realloc(*events, c * sizeof(*e));
    if (!e)
        return -1;
    *events = e;
    *cap = c;
    return 0;
}

double cr_free_flight_interval(const cr_model *model, double V)
{
    double rmin = INFINITY;
    for (size_t i = 0; i < cr_model_body_count(model); i++) {
        double r = cr_model_radius(model, i);
        if (r > 0.0 && !cr_model_is_fixed(model, i))
            rmin = fmin(rmin, r);
    }
    return isfinite(rmin) && V > 0.0 ? 0.1 * rmin / V : 0.0;
}

cr_sampling cr_sampling_plan(double interval, long every, int none, double free_dt, double T,
                             double t_end, long max_rows)
{
    long cap = max_rows > 0 ? max_rows : CR_OUTPUT_DEFAULT_ROW_CAP;
    cr_sampling sm = {CR_SAMPLE_AUTO, INFINITY, 1, 0, 0, cap, 0, cap};
    if (none) {
        sm.rule = CR_SAMPLE_NONE;
    } else if (every > 0) {
        sm.rule = CR_SAMPLE_EVERY;
        sm.every = every;
    } else if (interval > 0.0) {
        sm.rule = CR_SAMPLE_INTERVAL;
        sm.dt = interval;
    } else {
        sm.dt = fmax(0.25 * T, t_end > 0.0 ? t_end / 1000.0 : 0.0);
        double m = floor(free_dt / sm.dt);
        sm.free_every = m > 1.0 ? (m < 1e9 ? (long)m : 1000000000L) : 1;
    }
    return sm;
}

void cr_sampling_count(cr_sampling *sm)
{
    if (sm->rule != CR_SAMPLE_AUTO || ++sm->rows < sm->cap)
        return;
    sm->dt *= 10.0;
    sm->cap += sm->cap_step;
    sm->widenings++;
}

double cr_sampling_next_free(const cr_sampling *sm, double t)
{
    double m = (double)sm->free_every * sm->dt;
    return (floor(t * (1.0 + 1e-12) / m) + 1.0) * m;
}
