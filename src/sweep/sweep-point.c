/*
 * One sweep point through the one pipeline: the base model with the point's
 * overrides, calibration, the engine, the monitor, the comparator (both
 * modes). Everything a point uses is its own, so points run on any thread or
 * rank give the same row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/calibrate.h"
#include "cradle/compare.h"
#include "cradle/monitor.h"
#include "cradle/system.h"
#include "sweep/sweep-priv.h"

static int stop_requested(const cr_system *sys, void *user)
{
    (void)sys;
    const volatile sig_atomic_t *stop = user;
    return *stop ? CR_ERR_INTERRUPTED : CR_OK;
}

static int stop_on_event(const cr_system *sys, size_t first, void *user)
{
    (void)first;
    return stop_requested(sys, user);
}

static void fail(char *err, size_t errlen, const char *what, const char *why)
{
    snprintf(err, errlen, "%s%s%s", what, what[0] ? ": " : "", why);
}

/* The first episode's scalars and per-contact values (chains: by contact
 * number; pools: by record). */
static void episode_columns(const cr_sweep *s, const cr_monitor *mon, int dim, double *row)
{
    cr_episode_info info;
    if (cr_monitor_get_episode(mon, 0, &info) != CR_OK)
        return;
    size_t n = 0, f = sw_col_fixed(s);
    const cr_contact_record *rec = cr_monitor_contacts(mon, 0, &n);
    row[f + SW_DURATION] = info.t_end - info.t_start;
    row[f + SW_REFERENCE] = dim == 1 ? (double)info.reference : (double)info.reference_record;
    row[f + SW_KAPPA] = info.kappa;
    row[f + SW_RECORDS] = (double)n;
    for (size_t r = 0; r < n; r++) {
        size_t c = dim == 1 ? rec[r].contact : r;
        if (c >= s->contacts)
            continue;
        row[sw_col_contact(s, 0, c)] = rec[r].alpha;
        row[sw_col_contact(s, 1, c)] = rec[r].newton;
        row[sw_col_contact(s, 2, c)] = rec[r].poisson;
        row[sw_col_contact(s, 3, c)] = rec[r].impulse;
    }
}

/* Every body's velocity at the run's end (for a cradle run to t_end: auto, the
 * velocities after the whole collision, every contact open). */
static void final_columns(const cr_sweep *s, const cr_system *sys, double *row)
{
    size_t n = cr_system_body_count(sys);
    int dim = cr_system_dimension(sys);
    double *v = malloc((n * (size_t)dim + 1) * sizeof(double));
    if (!v)
        return;
    cr_system_get_velocities(sys, v);
    for (size_t b = 0; b < n && b < s->bodies; b++)
        for (int k = 0; k < dim && k < s->dim; k++)
            row[sw_col_body(s, b, k)] = v[b * (size_t)dim + (size_t)k];
    free(v);
}

/* The first collision's centre-of-mass velocity over its moving bodies, before
 * (each body's u⁻ at its first episode) and after (u⁺ at its last), and
 * e_cm = −v_cm⁺/v_cm⁻ (a column of beads hitting a wall). Pools (dim 2 and 3):
 * components along v_cm⁻, so e_cm = −v_cm⁺·v_cm⁻/|v_cm⁻|². */
static void cm_columns(const cr_sweep *s, const cr_system *sys, const cr_monitor *mon, double *row)
{
    size_t nb = 0, nv = 0, na = 0, n = cr_system_body_count(sys);
    int dim = cr_system_dimension(sys);
    if (cr_monitor_collision_count(mon) == 0)
        return;
    const size_t *body = cr_monitor_collision_bodies(mon, 0, &nb);
    const double *ub = cr_monitor_collision_velocities(mon, 0, 0, &nv);
    const double *ua = cr_monitor_collision_velocities(mon, 0, 1, &na);
    double *mass = malloc((n + 1) * sizeof(double));
    if (!mass || !body || !ub || !ua || nv != nb || na != nb) {
        free(mass);
        return;
    }
    cr_system_get_masses(sys, mass);
    double M = 0, pb[3] = {0, 0, 0}, pa[3] = {0, 0, 0};
    for (size_t i = 0; i < nb; i++) {
        double m = mass[body[i]];
        if (!isfinite(m))
            continue;
        M += m;
        for (int k = 0; k < dim; k++) {
            pb[k] += m * ub[i * (size_t)dim + (size_t)k];
            pa[k] += m * ua[i * (size_t)dim + (size_t)k];
        }
    }
    free(mass);
    if (M <= 0)
        return;
    double before = pb[0] / M, after = pa[0] / M;
    if (dim >= 2) { /* 2-D: the sums and hypot as they were */
        double len = dim == 3 ? hypot(hypot(pb[0], pb[1]), pb[2]) : hypot(pb[0], pb[1]);
        double dot = pa[0] * pb[0] + pa[1] * pb[1];
        if (dim == 3)
            dot += pa[2] * pb[2];
        before = len / M;
        after = len > 0 ? dot / (len * M) : NAN;
    }
    size_t f = sw_col_fixed(s);
    row[f + SW_V_CM_BEFORE] = before;
    row[f + SW_V_CM_AFTER] = after;
    row[f + SW_E_CM] = before != 0 ? -after / before : NAN;
}

/* Every law in both modes: the first episode's error and the mean over all. */
static int compare_columns(const cr_sweep *s, const cr_monitor *mon, const cr_model *model,
                           double *row, char *err, size_t errlen)
{
    cr_compare *cmp = cr_compare_create();
    if (!cmp) {
        fail(err, errlen, "compare", "out of memory");
        return 0;
    }
    size_t ne = cr_monitor_episode_count(mon);
    for (size_t k = 0; k < ne; k++)
        if (cr_compare_add_monitor(cmp, mon, k, model) != CR_OK) {
            char why[CR_ERRMSG_LEN];
            snprintf(why, sizeof why, "episode %zu: %s", k, cr_compare_last_error(cmp));
            fail(err, errlen, "compare", why);
            cr_compare_destroy(cmp);
            return 0;
        }
    for (size_t i = 0; i < cr_compare_row_count(cmp); i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, i);
        if (r->episode == 0)
            row[cr_sweep_law_column(s, 0, (int)r->law, (int)r->mode)] = r->error;
    }
    for (int law = 0; law < CR_LAW_COUNT; law++)
        for (int mode = 0; mode < CR_COMPARE_MODE_COUNT; mode++) {
            cr_compare_summary sum;
            if (ne &&
                cr_compare_summarize(cmp, (cr_law_id)law, (cr_compare_mode)mode, &sum) == CR_OK)
                row[cr_sweep_law_column(s, 1, law, mode)] = sum.mean_error;
        }
    cr_compare_destroy(cmp);
    return 1;
}

/* Runs the model; @return CR_OK (the row filled, or err set), or CR_ERR_INTERRUPTED. */
static int run_point(const cr_sweep *s, cr_model *model, double *row, char *err, size_t errlen,
                     const volatile sig_atomic_t *stop)
{
    char msg[CR_ERRMSG_LEN];
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    if (!sys) {
        fail(err, errlen, "", msg);
        return CR_OK;
    }
    if (cr_system_rotating_body_count(sys) > 0) {
        cr_system_destroy(sys);
        fail(err, errlen, "",
             "alpha, kappa and the laws' errors of rigid bodies that rotate (clumps) need the "
             "monitor's inertia and lever arms (issue 25, item 2): not supported yet");
        return CR_OK;
    }
    cr_monitor *mon = cr_monitor_create(sys);
    if (!mon) {
        cr_system_destroy(sys);
        fail(err, errlen, "", "out of memory");
        return CR_OK;
    }
    if (stop) {
        cr_system_add_output_listener(sys, stop_requested, (void *)stop);
        cr_system_add_event_listener(sys, stop_on_event, (void *)stop);
    }
    int rc = cr_system_run(sys, cr_model_settings(model)->t_end);
    if (rc == CR_ERR_INTERRUPTED && stop && *stop) {
        cr_monitor_destroy(mon);
        cr_system_destroy(sys);
        return CR_ERR_INTERRUPTED;
    }
    cr_monitor_finish(mon);
    size_t f = sw_col_fixed(s);
    if (rc != CR_OK) {
        fail(err, errlen, "run", cr_system_last_error(sys));
    } else {
        row[f + SW_EPISODES] = (double)cr_monitor_episode_count(mon);
        row[f + SW_T_END] = cr_system_get_time(sys);
        episode_columns(s, mon, cr_model_dimension(model), row);
        cm_columns(s, sys, mon, row);
        final_columns(s, sys, row);
        compare_columns(s, mon, model, row, err, errlen);
    }
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    return CR_OK;
}

int cr_sweep_compute(const cr_sweep *s, size_t i, double *row, char *err, size_t errlen,
                     const volatile sig_atomic_t *stop)
{
    if (!s || !row || !err || errlen == 0 || i >= s->points)
        return CR_ERR_INVALID;
    for (size_t j = 0; j < s->ncol; j++)
        row[j] = NAN;
    size_t *pos = calloc(s->naxes + 1, sizeof(size_t));
    if (!pos)
        return CR_ERR_NOMEM;
    cr_sweep_point_index(s, i, pos);
    for (size_t j = 0; j < s->nin; j++)
        row[j] = s->in[j].numbers[pos[s->in[j].axis]];
    free(pos);
    err[0] = '\0';
    if (stop && *stop)
        return CR_ERR_INTERRUPTED;
    char msg[CR_ERRMSG_LEN];
    cr_model *model = cr_sweep_point_model(s, i, msg, sizeof msg);
    if (!model) {
        fail(err, errlen, "", msg);
        return CR_OK;
    }
    int rc = CR_OK;
    if (cr_calibrate_model(model, msg, sizeof msg) != CR_OK)
        fail(err, errlen, "calibration", msg);
    else
        rc = run_point(s, model, row, err, errlen, stop);
    cr_model_destroy(model);
    return rc;
}
