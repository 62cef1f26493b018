/* `cradle compare MODEL --rigid LAW ...`: the compliant run of MODEL and one
 * rigid run per LAW, compared collision by collision and over the run
 * (docs/compare.md, "Compare over a run"). Output: a table, --csv, --json,
 * and -o FILE (the compliant run with a /comparison of runs). */
#include "compare-runs.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rigid-table.h"
#include "tools-common.h"
#include "tools-json.h"

int compare_runs_check(const compare_runs_args *r)
{
    const rigid_args *p = &r->params;
    /* --table alone serves the episode comparison (the energetic law's
     * predictive α and κ); with --rigid it also feeds a rigid energetic run */
    if (!r->n && (!isnan(p->restitution) || !isnan(p->kappa) || p->alpha)) {
        tools_error("compare: --restitution, --kappa and --alpha need --rigid LAW");
        return EXIT_USAGE;
    }
    return 0;
}

/* Rows of each variant the table prints (all go to CSV, JSON, HDF5). */
#define SHOWN_COLLISIONS 20

void compare_runs_init(compare_runs_args *r)
{
    memset(r, 0, sizeof(*r));
    rigid_args_init(&r->params);
}

int compare_runs_option(int c, const char *arg, compare_runs_args *r)
{
    if (c != RIGID_OPT_LAW)
        return rigid_option(c, arg, &r->params);
    if (r->n == COMPARE_RUNS_MAX) {
        tools_error("compare: at most %d --rigid variants", COMPARE_RUNS_MAX);
        return EXIT_USAGE;
    }
    r->laws[r->n++] = arg;
    return 0;
}

/* One run and what the comparison needs of it. */
typedef struct {
    rigid_args args;
    tools_run t; /* system, monitor, and for the compliant run with -o its store and lock */
    char law[512], error[512];
    int interrupted; /* stopped by a signal (said once, with the output's fate) */
    cr_compare_runs_row *rows;
    cr_compare_runs_summary sum;
} one_run;

static void one_free(one_run *r)
{
    tools_run_release(&r->t);
    rigid_args_free(&r->args);
    free(r->rows);
}

/* Variant @p law with the common parameters it takes: --restitution for the
 * laws with one, --kappa/--alpha for energetic. @return 0 or EXIT_USAGE. */
static int variant_args(const compare_runs_args *c, const char *law, rigid_args *v)
{
    rigid_args_init(v);
    v->rigid = law;
    cr_law_id id;
    int named = cr_law_from_name(law, &id) == CR_OK;
    if (named && id == CR_LAW_ENERGETIC) {
        v->kappa = c->params.kappa;
        v->alpha = c->params.alpha;
        v->table = c->params.table;
    } else if (named && id != CR_LAW_MAX_DISSIPATION) {
        v->restitution = c->params.restitution;
    } else if (strcmp(law, "calibrated") == 0) {
        v->calibrate_on = c->params.calibrate_on;
        v->strict = c->params.strict;
    }
    int st = rigid_check(v);
    return st;
}

/* Runs r->t.sys to the model's end, stoppable, with a monitor. @return the
 * run's code (the text kept in r->error). */
static int run_one(one_run *r, const cr_model *model)
{
    if (!r->t.mon && !(r->t.mon = cr_monitor_create(r->t.sys)))
        return CR_ERR_NOMEM;
    if (tools_stop_requested()) { /* during an earlier run or between runs */
        snprintf(r->error, sizeof r->error, "interrupted before it started");
        r->interrupted = 1;
        return CR_ERR_INTERRUPTED;
    }
    int rc = tools_run_stoppable(&r->t, cr_model_settings(model)->t_end);
    cr_monitor_finish(r->t.mon);
    r->interrupted = rc == CR_ERR_INTERRUPTED;
    if (rc != CR_OK)
        snprintf(r->error, sizeof r->error, "%s", cr_system_last_error(r->t.sys));
    return rc;
}

/* The compliant run, written to @p out as `cradle run -o` writes (the lock,
 * a symbolic link followed, the file there kept until the command ends:
 * tools_open_outputs). A complete run is committed but not settled: the
 * rigid runs and /comparison come first (compare_runs). One that is not is
 * settled at once (OUT.partial-PID.h5 beside a file that was there).
 * @return 0 or an exit status (message printed). */
static int run_compliant(one_run *c, const cr_model *model, const char *name, const char *text,
                         const char *out)
{
    int st = tools_open_outputs(&c->t, out, model, name, text);
    if (st != 0)
        return st;
    int rc = run_one(c, model);
    if (rc == CR_ERR_INVALID || rc == CR_ERR_NOMEM) { /* before the first step: nothing written */
        tools_error("%s: the compliant run: %s", name,
                    rc == CR_ERR_NOMEM ? "out of memory" : c->error);
        return rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    }
    const char *status = rc == CR_OK                ? "complete"
                         : rc == CR_ERR_INTERRUPTED ? "interrupted"
                                                    : "failed";
    if (c->t.store &&
        (cr_store_write_episodes(c->t.store, c->t.mon) != CR_OK ||
         cr_store_write_collisions(c->t.store, c->t.mon) != CR_OK ||
         cr_store_commit(c->t.store, status, rc == CR_OK ? NULL : c->error) != CR_OK)) {
        tools_error("%s", cr_store_last_error(c->t.store)); /* the write error: one line */
        tools_settle_output(&c->t, 1);                      /* nothing replaced the file there */
        return EXIT_RUN;
    }
    if (rc == CR_OK)
        return 0;
    if (c->t.store)
        tools_settle_output(&c->t, 0);
    int beside = c->t.kept && strcmp(c->t.kept, c->t.out) != 0;
    tools_error("%s: the compliant run: %s%s%s%s%s%s", name, c->error,
                out ? "; what was computed is kept in " : "", out ? c->t.kept : "",
                beside ? " (" : "", beside ? out : "", beside ? " is unchanged)" : "");
    return rc == CR_ERR_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_RUN;
}

/* ---- output -------------------------------------------------------------------- */

/* Rows of a comparison: the pairs, then the collisions left on either side. */
static size_t row_count(const cr_compare_runs_summary *s)
{
    return s->matched + s->unmatched_compliant + s->unmatched_rigid;
}

static void print_table(const one_run *c, const one_run *v, size_t nv)
{
    printf("compliant run: %zu collisions, %.6g s (%s), %.3f s wall\n",
           cr_monitor_collision_count(c->t.mon), cr_system_get_time(c->t.sys),
           cr_system_end_reason(c->t.sys), c->t.wall);
    for (size_t i = 0; i < nv; i++) {
        const one_run *r = &v[i];
        printf("\nrigid %s: law %s\n  %zu collisions, %.6g s (%s), %.3f s wall%s%s\n",
               r->args.rigid, r->law, r->sum.collisions_rigid, cr_system_get_time(r->t.sys),
               cr_system_end_reason(r->t.sys), r->t.wall, r->error[0] ? "; failed: " : "",
               r->error);
        printf("  %5s %5s %12s %11s %10s %10s %11s %11s %11s %5s\n", "compl", "rigid", "t compl. s",
               "phase s", "|du-|/V", "|du+|/V", "dT+/T-", "next c. s", "next r. s", "ep c/r");
        size_t n = row_count(&r->sum);
        for (size_t k = 0; k < n && k < SHOWN_COLLISIONS; k++) {
            const cr_compare_runs_row *w = &r->rows[k];
            char c[24] = "-", g[24] = "-";
            if (w->collision >= 0)
                snprintf(c, sizeof c, "%ld", w->collision);
            if (w->rigid_collision >= 0)
                snprintf(g, sizeof g, "%ld", w->rigid_collision);
            printf("  %5s %5s %12.6f %11.3e %10.3e %10.3e %11.3e %11.6f %11.6f %2zu/%-2zu%s\n", c,
                   g, w->collision >= 0 ? w->t_compliant : w->t_rigid, w->phase,
                   w->velocity_before_error, w->velocity_after_error, w->energy_error,
                   w->next_compliant, w->next_rigid, w->episodes_compliant, w->episodes_rigid,
                   w->collision < 0         ? " no compliant collision"
                   : w->rigid_collision < 0 ? " no rigid collision"
                   : w->same_bodies         ? ""
                                            : " bodies differ");
        }
        if (n > SHOWN_COLLISIONS)
            printf("  ... (%zu more: --csv or --json for all)\n", n - SHOWN_COLLISIONS);
    }
    printf("\nsummary (collisions paired by time and bodies within "
           "W = %.3g s, numbered from 0; errors over the pairs; V: max |u-| of the compliant "
           "collision)\n",
           nv ? v[0].sum.window : NAN);
    printf("  %-14s %9s %8s %9s %10s %10s %10s %11s %9s %9s %9s\n", "variant", "coll. c/r",
           "matched", "left c/r", "max du+/V", "mean du+/V", "max dT+/T-", "drift s", "drift/dt",
           "decay c", "decay r");
    for (size_t i = 0; i < nv; i++) {
        const cr_compare_runs_summary *s = &v[i].sum;
        printf("  %-14s %4zu/%-4zu %8zu %4zu/%-4zu %10.3e %10.3e %10.3e %11.3e %9.2e %9.6f "
               "%9.6f\n",
               v[i].args.rigid, s->collisions_compliant, s->collisions_rigid, s->matched,
               s->unmatched_compliant, s->unmatched_rigid, s->max_velocity_error,
               s->mean_velocity_error, s->max_energy_error, s->phase_drift,
               s->phase_drift / s->mean_interval, s->decay_compliant, s->decay_rigid);
    }
}

static void print_csv(const one_run *v, size_t nv)
{
    printf("variant,law,collision,rigid_collision,t_compliant,t_rigid,phase,next_compliant,"
           "next_rigid,speed,"
           "velocity_before_error,velocity_after_error,T_minus_compliant,T_minus_rigid,"
           "T_plus_compliant,T_plus_rigid,energy_error,kappa_compliant,kappa_rigid,"
           "episodes_compliant,episodes_rigid,same_bodies\n");
    for (size_t i = 0; i < nv; i++)
        for (size_t k = 0; k < row_count(&v[i].sum); k++) {
            const cr_compare_runs_row *w = &v[i].rows[k];
            printf("%s,\"%s\",%ld,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                   "%.17g,%.17g,%.17g,%.17g,%.17g,%zu,%zu,%d\n",
                   v[i].args.rigid, v[i].law, w->collision, w->rigid_collision, w->t_compliant,
                   w->t_rigid, w->phase, w->next_compliant, w->next_rigid, w->speed,
                   w->velocity_before_error, w->velocity_after_error, w->T_minus_compliant,
                   w->T_minus_rigid, w->T_plus_compliant, w->T_plus_rigid, w->energy_error,
                   w->kappa_compliant, w->kappa_rigid, w->episodes_compliant, w->episodes_rigid,
                   w->same_bodies);
        }
}

static json_object *json_row(const cr_compare_runs_row *w)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "collision", json_object_new_int64((int64_t)w->collision));
    json_object_object_add(o, "rigid_collision",
                           json_object_new_int64((int64_t)w->rigid_collision));
    json_object_object_add(o, "t_compliant", tools_json_number(w->t_compliant));
    json_object_object_add(o, "t_rigid", tools_json_number(w->t_rigid));
    json_object_object_add(o, "phase", tools_json_number(w->phase));
    json_object_object_add(o, "next_compliant", tools_json_number(w->next_compliant));
    json_object_object_add(o, "next_rigid", tools_json_number(w->next_rigid));
    json_object_object_add(o, "speed", tools_json_number(w->speed));
    json_object_object_add(o, "velocity_before_error", tools_json_number(w->velocity_before_error));
    json_object_object_add(o, "velocity_after_error", tools_json_number(w->velocity_after_error));
    json_object_object_add(o, "T_minus_compliant", tools_json_number(w->T_minus_compliant));
    json_object_object_add(o, "T_minus_rigid", tools_json_number(w->T_minus_rigid));
    json_object_object_add(o, "T_plus_compliant", tools_json_number(w->T_plus_compliant));
    json_object_object_add(o, "T_plus_rigid", tools_json_number(w->T_plus_rigid));
    json_object_object_add(o, "energy_error", tools_json_number(w->energy_error));
    json_object_object_add(o, "kappa_compliant", tools_json_number(w->kappa_compliant));
    json_object_object_add(o, "kappa_rigid", tools_json_number(w->kappa_rigid));
    json_object_object_add(o, "episodes_compliant",
                           json_object_new_int64((int64_t)w->episodes_compliant));
    json_object_object_add(o, "episodes_rigid", json_object_new_int64((int64_t)w->episodes_rigid));
    json_object_object_add(o, "same_bodies", json_object_new_boolean(w->same_bodies));
    return o;
}

static json_object *json_summary(const cr_compare_runs_summary *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "collisions_compliant",
                           json_object_new_int64((int64_t)s->collisions_compliant));
    json_object_object_add(o, "collisions_rigid",
                           json_object_new_int64((int64_t)s->collisions_rigid));
    json_object_object_add(o, "matched", json_object_new_int64((int64_t)s->matched));
    json_object_object_add(o, "unmatched_compliant",
                           json_object_new_int64((int64_t)s->unmatched_compliant));
    json_object_object_add(o, "unmatched_rigid",
                           json_object_new_int64((int64_t)s->unmatched_rigid));
    json_object_object_add(o, "window", tools_json_number(s->window));
    json_object_object_add(o, "max_velocity_error", tools_json_number(s->max_velocity_error));
    json_object_object_add(o, "mean_velocity_error", tools_json_number(s->mean_velocity_error));
    json_object_object_add(o, "max_energy_error", tools_json_number(s->max_energy_error));
    json_object_object_add(o, "phase_drift", tools_json_number(s->phase_drift));
    json_object_object_add(o, "max_phase", tools_json_number(s->max_phase));
    json_object_object_add(o, "mean_interval", tools_json_number(s->mean_interval));
    json_object_object_add(o, "decay_compliant", tools_json_number(s->decay_compliant));
    json_object_object_add(o, "decay_rigid", tools_json_number(s->decay_rigid));
    return o;
}

static int print_json(const char *source, const one_run *c, const one_run *v, size_t nv)
{
    json_object *o = json_object_new_object(), *vs = json_object_new_array();
    json_object *co = json_object_new_object();
    json_object_object_add(o, "source", json_object_new_string(source));
    json_object_object_add(co, "collisions",
                           json_object_new_int64((int64_t)cr_monitor_collision_count(c->t.mon)));
    json_object_object_add(co, "t_end", tools_json_number(cr_system_get_time(c->t.sys)));
    json_object_object_add(co, "end_reason",
                           json_object_new_string(cr_system_end_reason(c->t.sys)));
    json_object_object_add(co, "wall_time", tools_json_number(c->t.wall));
    json_object_object_add(o, "compliant", co);
    for (size_t i = 0; i < nv; i++) {
        json_object *x = json_object_new_object(), *rows = json_object_new_array();
        json_object_object_add(x, "variant", json_object_new_string(v[i].args.rigid));
        json_object_object_add(x, "law", json_object_new_string(v[i].law));
        json_object_object_add(x, "end_reason",
                               json_object_new_string(cr_system_end_reason(v[i].t.sys)));
        json_object_object_add(x, "error", json_object_new_string(v[i].error));
        json_object_object_add(x, "wall_time", tools_json_number(v[i].t.wall));
        json_object_object_add(x, "summary", json_summary(&v[i].sum));
        for (size_t k = 0; k < row_count(&v[i].sum); k++)
            json_object_array_add(rows, json_row(&v[i].rows[k]));
        json_object_object_add(x, "rows", rows);
        json_object_array_add(vs, x);
    }
    json_object_object_add(o, "variants", vs);
    int ok = puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY)) >= 0;
    json_object_put(o);
    return ok ? 0 : EXIT_RUN;
}

/* ---- the command -------------------------------------------------------------------- */

static int compare_all(one_run *c, one_run *v, size_t nv)
{
    for (size_t i = 0; i < nv; i++) {
        size_t n = cr_monitor_collision_count(c->t.mon) + cr_monitor_collision_count(v[i].t.mon);
        if (!(v[i].rows = calloc(n ? n : 1, sizeof(cr_compare_runs_row))))
            return EXIT_RUN;
        if (cr_compare_runs(c->t.mon, v[i].t.mon, v[i].rows, n, &v[i].sum) != CR_OK) {
            tools_error("compare: the runs of %s cannot be compared", v[i].args.rigid);
            return EXIT_RUN;
        }
    }
    return 0;
}

/* The rigid variants: systems first (bad input before any run), then runs. */
static int rigid_runs(const compare_runs_io *io, compare_runs_args *a, const cr_model *model,
                      one_run *c, one_run *v)
{
    const char *name = model_input_name(io->input);
    int st = 0;
    for (size_t i = 0; st == 0 && i < a->n; i++) {
        if (v[i].args.calibrated && !v[i].args.calibrate_on)
            st = rigid_calib_from_monitor(&v[i].args, c->t.mon, cr_model_contact_count(model));
        int sst = 0;
        if (st == 0 && !(v[i].t.sys = rigid_or_compliant_system(&v[i].args, name, model, &sst)))
            return sst;
        if (st == 0)
            cr_system_rigid_law(v[i].t.sys, v[i].law, sizeof v[i].law);
    }
    for (size_t i = 0; st == 0 && i < a->n; i++) {
        int rc = run_one(&v[i], model);
        if (v[i].args.tab) { /* the law with the table's bounds met */
            cr_system_rigid_set_provider(v[i].t.sys, rigid_table_params, v[i].args.tab,
                                         rigid_table_label_after(v[i].args.tab));
            cr_system_rigid_law(v[i].t.sys, v[i].law, sizeof v[i].law);
        }
        if (rc == CR_ERR_INTERRUPTED) /* said with where the compliant run is (compare_runs) */
            st = EXIT_INTERRUPTED;
        else if (rc == CR_ERR_INVALID) {
            tools_error("%s: --rigid %s: %s", name, v[i].args.rigid, v[i].error);
            st = EXIT_INPUT;
        } else if (rc == CR_ERR_NOMEM) {
            tools_error("out of memory");
            st = EXIT_RUN;
        }
        /* a law failing mid-run: its rows up to there are compared, the error reported */
    }
    return st;
}

/* After a complete compliant run, a command that did not finish: the rigid
 * run that was interrupted (not said yet), and where the compliant run's file
 * is when it is not at the output. */
static void say_unfinished(const compare_runs_io *io, const char *name, const one_run *c,
                           const one_run *v, size_t n, int st)
{
    int beside = io->out && c->t.kept && strcmp(c->t.kept, c->t.out) != 0;
    char where[1024] = "";
    if (beside)
        snprintf(
            where, sizeof where,
            "the compliant run (complete, without /comparison) is kept in %s (%s is unchanged)",
            c->t.kept, io->out);
    else if (io->out && st != 0)
        snprintf(where, sizeof where, "the compliant run (complete, without /comparison) is in %s",
                 io->out);
    if (st == EXIT_INTERRUPTED) {
        for (size_t i = 0; i < n; i++)
            if (v[i].interrupted) {
                tools_error("%s: --rigid %s: %s%s%s", name, v[i].args.rigid, v[i].error,
                            where[0] ? "; " : "", where);
                return;
            }
    } else if (st != 0 && beside) {
        tools_error("%s: %s", name, where); /* after the failure's own line */
    }
}

/* Common parameters that no variant takes are refused, not ignored. */
static int params_used(const compare_runs_args *a, const one_run *v)
{
    int e = 0, k = 0, cal = 0;
    for (size_t i = 0; i < a->n; i++) {
        e |= !isnan(v[i].args.restitution);
        k |= !isnan(v[i].args.kappa) || v[i].args.alpha || v[i].args.table;
        cal |= v[i].args.calibrated;
    }
    if ((a->params.calibrate_on || a->params.strict) && !cal) {
        tools_error("compare: %s: no --rigid calibrated variant",
                    a->params.strict ? "--strict" : "--calibrate-on");
        return EXIT_USAGE;
    }
    if (!isnan(a->params.restitution) && !e) {
        tools_error("compare: --restitution: no --rigid variant takes a restitution");
        return EXIT_USAGE;
    }
    if ((!isnan(a->params.kappa) || a->params.alpha || a->params.table) && !k) {
        tools_error("compare: --kappa/--alpha/--table: no --rigid energetic variant");
        return EXIT_USAGE;
    }
    return 0;
}

/* --strict: a calibrated variant whose impacts and the compliant collisions
 * they stand for differ in bodies is an error, after everything is reported
 * (the mismatches are the unmatched rows). @return 0 or EXIT_MISMATCH. */
static int strict_mismatches(const char *name, one_run *v, size_t nv)
{
    int st = 0;
    for (size_t i = 0; i < nv; i++) {
        if (!v[i].args.strict || !v[i].args.calib)
            continue;
        size_t n = 0;
        cr_calibrated_rigid_finish(v[i].args.calib, cr_system_get_time(v[i].t.sys));
        cr_calibrated_rigid_mismatches(v[i].args.calib, &n);
        if (n) {
            tools_error("%s: --strict: %zu mismatch%s between the rigid impacts and the "
                        "compliant collisions (cradle run --rigid calibrated lists them)",
                        name, n, n == 1 ? "" : "es");
            st = EXIT_MISMATCH;
        }
    }
    return st;
}

/* --table: the rigid run made once before anything is written, so an impact
 * the table does not describe (exit 3) or holds outside its axes (exit 5) is
 * refused with one line and no file, as `cradle run` does. */
static int table_probe(cr_system *probe, const cr_model *model, const char *name, const char *law)
{
    int rc = cr_system_run(probe, cr_model_settings(model)->t_end);
    if (rc != CR_ERR_DOMAIN && rc != CR_ERR_MODEL)
        return 0; /* anything else is the variant's own failure, reported with its rows */
    tools_error("%s: --rigid %s: %s", name, law, cr_system_last_error(probe));
    return rc == CR_ERR_DOMAIN ? EXIT_DOMAIN : EXIT_INPUT;
}

int compare_runs(const compare_runs_io *io, compare_runs_args *a)
{
    char msg[1024];
    one_run c = {0}, v[COMPARE_RUNS_MAX];
    memset(v, 0, sizeof v);
    int st = 0;
    for (size_t i = 0; st == 0 && i < a->n; i++)
        st = variant_args(a, a->laws[i], &v[i].args);
    if (st == 0)
        st = params_used(a, v);
    if (st == 0 && io->out && tools_check_output(io->out, io->input, msg, sizeof msg) != 0) {
        tools_error("%s", msg);
        st = EXIT_INPUT;
    }
    char *text = NULL;
    const char *name = model_input_name(io->input);
    cr_model *model = st == 0 ? model_input_load(io->input, io->sets, 1, &text) : NULL;
    if (st == 0 && !model)
        st = EXIT_INPUT;
    if (st == 0 && !(c.t.sys = cr_system_create(model, msg, sizeof msg))) {
        tools_error("%s: %s", name, msg);
        st = EXIT_INPUT;
    }
    if (st == 0 && cr_system_rotating_body_count(c.t.sys) > 0) {
        tools_error("%s: %s", name,
                    "rigid runs of bodies that rotate (clumps) are not supported yet (issue 25, "
                    "item 3); `cradle compare MODEL` without --rigid compares their episodes with "
                    "every law");
        st = EXIT_INPUT;
    }
    /* the variants' systems before the compliant run: a refusal writes nothing */
    for (size_t i = 0; st == 0 && i < a->n; i++) {
        rigid_args probe_args = v[i].args;
        /* its parameters come later: the model's features now (a pool's refusal is its own) */
        if (probe_args.calibrated && cr_model_dimension(model) == 1) {
            rigid_args_init(&probe_args);
            probe_args.rigid = "max-dissipation";
            probe_args.law = CR_LAW_MAX_DISSIPATION;
        }
        int pst = 0;
        cr_system *probe = rigid_or_compliant_system(&probe_args, name, model, &pst);
        if (!probe)
            st = pst;
        else if (probe_args.tab)
            st = table_probe(probe, model, name, v[i].args.rigid);
        cr_system_destroy(probe);
        if (probe_args.tab != v[i].args.tab)
            rigid_table_free(probe_args.tab);
    }
    int compliant = st == 0 ? run_compliant(&c, model, name, text, io->out) : -1;
    st = compliant > 0 ? compliant : st;
    if (st == 0)
        st = rigid_runs(io, a, model, &c, v);
    if (st == 0)
        st = compare_all(&c, v, a->n);
    if (st == 0 && io->json)
        st = print_json(name, &c, v, a->n);
    else if (st == 0 && io->csv)
        print_csv(v, a->n);
    else if (st == 0 && !io->quiet)
        print_table(&c, v, a->n);
    if (st == 0 && io->out) {
        cr_compare_runs_variant out[COMPARE_RUNS_MAX];
        for (size_t i = 0; i < a->n; i++)
            out[i] = (cr_compare_runs_variant){
                v[i].args.rigid, v[i].law,  cr_system_end_reason(v[i].t.sys),
                v[i].error,      v[i].rows, v[i].sum};
        cr_store_destroy(c.t.store); /* closed before the copy */
        c.t.store = NULL;
        /* into the file at the output (a symbolic link's target) */
        if (cr_store_write_run_comparison(c.t.out, c.t.out, out, a->n, io->command, msg,
                                          sizeof msg) != CR_OK) {
            tools_error("%s", msg);
            st = EXIT_RUN;
        }
    }
    if (compliant == 0 && io->out) /* the compliant run went beside a file there unless all did */
        tools_settle_output(&c.t, st == 0);
    if (compliant == 0)
        say_unfinished(io, name, &c, v, a->n, st);
    if (st == 0)
        st = strict_mismatches(name, v, a->n);
    one_free(&c);
    for (size_t i = 0; i < a->n; i++)
        one_free(&v[i]);
    cr_model_destroy(model);
    free(text);
    return st;
}
