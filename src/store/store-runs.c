/*
 * /comparison of runs: the compliant run against each rigid variant,
 * collision by collision and over the run (docs/hdf5-layout.md). The store
 * computes nothing: it writes what cr_compare_runs reports, through a
 * copy renamed over the target (store-priv.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/comparefile.h"
#include "cradle/store.h"
#include "base/base.h"
#include "store/store-priv.h"

#define NAME_LEN 24
#define LAW_LEN 160

typedef struct {
    char variant[NAME_LEN];
    int64_t collision, rigid_collision;
    double t_compliant, t_rigid, phase, next_compliant, next_rigid, speed;
    double velocity_before_error, velocity_after_error;
    double T_minus_compliant, T_minus_rigid, T_plus_compliant, T_plus_rigid, energy_error;
    double kappa_compliant, kappa_rigid;
    int64_t episodes_compliant, episodes_rigid;
    int8_t same_bodies;
} run_row_out;

typedef struct {
    char variant[NAME_LEN];
    char law[LAW_LEN];
    char end_reason[LAW_LEN];
    char error[LAW_LEN];
    int64_t collisions_compliant, collisions_rigid, matched, unmatched_compliant, unmatched_rigid;
    double window;
    double max_velocity_error, mean_velocity_error, max_energy_error;
    double phase_drift, max_phase, mean_interval, decay_compliant, decay_rigid;
} run_summary_out;

typedef struct {
    const cr_compare_runs_variant *v;
    size_t n;
    const char *source, *command;
} runs_ctx;

static void row_out(run_row_out *o, const char *variant, const cr_compare_runs_row *r)
{
    snprintf(o->variant, NAME_LEN, "%s", variant);
    o->collision = (int64_t)r->collision;
    o->rigid_collision = (int64_t)r->rigid_collision;
    o->t_compliant = r->t_compliant;
    o->t_rigid = r->t_rigid;
    o->phase = r->phase;
    o->next_compliant = r->next_compliant;
    o->next_rigid = r->next_rigid;
    o->speed = r->speed;
    o->velocity_before_error = r->velocity_before_error;
    o->velocity_after_error = r->velocity_after_error;
    o->T_minus_compliant = r->T_minus_compliant;
    o->T_minus_rigid = r->T_minus_rigid;
    o->T_plus_compliant = r->T_plus_compliant;
    o->T_plus_rigid = r->T_plus_rigid;
    o->energy_error = r->energy_error;
    o->kappa_compliant = r->kappa_compliant;
    o->kappa_rigid = r->kappa_rigid;
    o->episodes_compliant = (int64_t)r->episodes_compliant;
    o->episodes_rigid = (int64_t)r->episodes_rigid;
    o->same_bodies = (int8_t)r->same_bodies;
}

/* The pairs, then the collisions left on either side (cradle/compare.h). */
static size_t rows_of(const cr_compare_runs_summary *s)
{
    return s->matched + s->unmatched_compliant + s->unmatched_rigid;
}

static int write_rows(hid_t g, const runs_ctx *c)
{
    size_t n = 0, at = 0;
    for (size_t v = 0; v < c->n; v++)
        n += rows_of(&c->v[v].summary);
    run_row_out *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t v = 0; v < c->n; v++)
        for (size_t k = 0; k < rows_of(&c->v[v].summary); k++)
            row_out(&rows[at++], c->v[v].name, &c->v[v].rows[k]);
    hid_t sn = cr_h5_fixed_string(NAME_LEN), D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT64;
    const cr_h5_column col[] = {
        CR_H5_COL(run_row_out, variant, sn, "1 (rigid variant)"),
        CR_H5_COL(run_row_out, collision, I, "1 (row of the compliant /collisions; -1: none)"),
        CR_H5_COL(run_row_out, rigid_collision, I,
                  "1 (the rigid run's collision paired; -1: none)"),
        CR_H5_COL(run_row_out, t_compliant, D, "s"),
        CR_H5_COL(run_row_out, t_rigid, D, "s"),
        CR_H5_COL(run_row_out, phase, D, "s (t_rigid - t_compliant)"),
        CR_H5_COL(run_row_out, next_compliant, D, "s (to the next collision; NaN: last)"),
        CR_H5_COL(run_row_out, next_rigid, D, "s"),
        CR_H5_COL(run_row_out, speed, D, "m/s (max |u-| of the compliant collision)"),
        CR_H5_COL(run_row_out, velocity_before_error, D, "1 (max |u-_rigid - u-| / speed)"),
        CR_H5_COL(run_row_out, velocity_after_error, D, "1 (max |u+_rigid - u+| / speed)"),
        CR_H5_COL(run_row_out, T_minus_compliant, D, "J"),
        CR_H5_COL(run_row_out, T_minus_rigid, D, "J"),
        CR_H5_COL(run_row_out, T_plus_compliant, D, "J"),
        CR_H5_COL(run_row_out, T_plus_rigid, D, "J"),
        CR_H5_COL(run_row_out, energy_error, D, "1 ((T+_rigid - T+) / T-)"),
        CR_H5_COL(run_row_out, kappa_compliant, D, "1"),
        CR_H5_COL(run_row_out, kappa_rigid, D, "1"),
        CR_H5_COL(run_row_out, episodes_compliant, I, "1"),
        CR_H5_COL(run_row_out, episodes_rigid, I, "1"),
        CR_H5_COL(run_row_out, same_bodies, H5T_NATIVE_INT8,
                  "1 (both collisions hold the same bodies)"),
    };
    int e =
        cr_h5_write_table(g, "runs", sizeof(run_row_out), col, sizeof col / sizeof col[0], rows, n,
                          "per rigid variant: the collisions paired by time and bodies, then "
                          "those left unpaired on either side");
    H5Tclose(sn);
    free(rows);
    return e;
}

static int write_summary(hid_t g, const runs_ctx *c)
{
    run_summary_out *rows = calloc(c->n ? c->n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t v = 0; v < c->n; v++) {
        const cr_compare_runs_variant *x = &c->v[v];
        const cr_compare_runs_summary *s = &x->summary;
        run_summary_out *o = &rows[v];
        snprintf(o->variant, NAME_LEN, "%s", x->name);
        snprintf(o->law, LAW_LEN, "%s", x->law ? x->law : "");
        snprintf(o->end_reason, LAW_LEN, "%s", x->end_reason ? x->end_reason : "");
        snprintf(o->error, LAW_LEN, "%s", x->error ? x->error : "");
        o->collisions_compliant = (int64_t)s->collisions_compliant;
        o->collisions_rigid = (int64_t)s->collisions_rigid;
        o->matched = (int64_t)s->matched;
        o->unmatched_compliant = (int64_t)s->unmatched_compliant;
        o->unmatched_rigid = (int64_t)s->unmatched_rigid;
        o->window = s->window;
        o->max_velocity_error = s->max_velocity_error;
        o->mean_velocity_error = s->mean_velocity_error;
        o->max_energy_error = s->max_energy_error;
        o->phase_drift = s->phase_drift;
        o->max_phase = s->max_phase;
        o->mean_interval = s->mean_interval;
        o->decay_compliant = s->decay_compliant;
        o->decay_rigid = s->decay_rigid;
    }
    hid_t sn = cr_h5_fixed_string(NAME_LEN), sl = cr_h5_fixed_string(LAW_LEN);
    hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT64;
    const cr_h5_column col[] = {
        CR_H5_COL(run_summary_out, variant, sn, "1"),
        CR_H5_COL(run_summary_out, law, sl, "1 (the law and its parameters)"),
        CR_H5_COL(run_summary_out, end_reason, sl, "1"),
        CR_H5_COL(run_summary_out, error, sl, "1 (empty: the rigid run completed)"),
        CR_H5_COL(run_summary_out, collisions_compliant, I, "1"),
        CR_H5_COL(run_summary_out, collisions_rigid, I, "1"),
        CR_H5_COL(run_summary_out, matched, I, "1"),
        CR_H5_COL(run_summary_out, unmatched_compliant, I, "1"),
        CR_H5_COL(run_summary_out, unmatched_rigid, I, "1"),
        CR_H5_COL(run_summary_out, window, D, "s (pairing window; inf: any time)"),
        CR_H5_COL(run_summary_out, max_velocity_error, D, "1"),
        CR_H5_COL(run_summary_out, mean_velocity_error, D, "1"),
        CR_H5_COL(run_summary_out, max_energy_error, D, "1"),
        CR_H5_COL(run_summary_out, phase_drift, D, "s (phase of the last matched collision)"),
        CR_H5_COL(run_summary_out, max_phase, D, "s"),
        CR_H5_COL(run_summary_out, mean_interval, D, "s (compliant, between collisions)"),
        CR_H5_COL(run_summary_out, decay_compliant, D,
                  "1 (product of the matched collisions' kappa)"),
        CR_H5_COL(run_summary_out, decay_rigid, D, "1"),
    };
    int e = cr_h5_write_table(g, "run_summary", sizeof(run_summary_out), col,
                              sizeof col / sizeof col[0], rows, c->n, "one row per rigid variant");
    H5Tclose(sn);
    H5Tclose(sl);
    free(rows);
    return e;
}

static int write_group(hid_t file, const void *ctx)
{
    const runs_ctx *c = ctx;
    hid_t g = cr_store_comparison_group(file, c->source, c->command ? c->command : "");
    if (g < 0)
        return -1;
    int e = cr_h5_attr_string(g, "kind", "runs");
    e |= cr_h5_attr_string(g, "matching",
                           "collision k of the compliant run with collision k "
                           "of each rigid run (/collisions order)");
    e |= e ? -1 : write_rows(g, c);
    e |= e ? -1 : write_summary(g, c);
    return H5Gclose(g) < 0 ? -1 : e;
}

int cr_store_write_run_comparison(const char *source, const char *target,
                                  const cr_compare_runs_variant *variants, size_t n,
                                  const char *command, char *msg, size_t msglen)
{
    if (!source || !target || (n && !variants)) {
        cr_set_msg(msg, msglen, "write run comparison: no source, target or variants");
        return CR_ERR_INVALID;
    }
    runs_ctx c = {variants, n, source, command};
    return cr_store_replace_through_copy(source, target, write_group, &c, "/comparison", msg,
                                         msglen);
}
