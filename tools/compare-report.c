/* `cradle compare` output: table, CSV and JSON from cr_compare's rows. */
#include "compare-report.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools-json.h"

static const char *flag_text(int flags, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", flags & CR_COMPARE_FLAG_OUT_OF_RANGE ? " out-of-range" : "",
             flags & CR_COMPARE_FLAG_AT_REST ? " at-rest:0" : "",
             flags & CR_COMPARE_FLAG_NO_COMPRESSION ? " no-compression:0" : "",
             flags & CR_COMPARE_FLAG_ELASTIC ? " elastic:e=1" : "");
    return buf;
}

/* Best first: rows with an answer by error, then the rest in table order. */
static const cr_compare *sort_cmp;
static int by_error(const void *a, const void *b)
{
    const cr_compare_row *x = cr_compare_get_row(sort_cmp, *(const size_t *)a);
    const cr_compare_row *y = cr_compare_get_row(sort_cmp, *(const size_t *)b);
    int fx = isfinite(x->error), fy = isfinite(y->error);
    if (fx != fy)
        return fy - fx;
    if (fx && x->error != y->error)
        return x->error < y->error ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return i < j ? -1 : i > j;
}

static const char *yes_no(int v)
{
    return v < 0 ? "-" : v ? "yes" : "NO";
}

static void print_episode(FILE *out, const cr_compare *cmp, size_t k, const compare_view *v)
{
    cr_compare_episode e;
    cr_compare_get_episode(cmp, k, &e);
    fprintf(out,
            "episode %zu: t = %.9g s, %zu dofs, %zu contacts, reference record %zu, |gamma-| = "
            "%.6g m/s, kappa = %.9f, kappa_min = %.9f\n",
            e.index, e.t_start, e.dofs, e.contacts, e.reference, e.speed, e.kappa, e.kappa_min);
    if (e.field_corrected)
        fprintf(out, "  measured against u+ - M^-1 int F_field dt (fields act during the "
                     "episode)\n");
    if (v && v->accuracy) {
        const double *a = v->accuracy + 4 * k;
        fprintf(out,
                "  accuracy (change at rtol/100): alpha %.2e, kappa %.2e, e_N %.2e, e_P %.2e\n",
                a[0], a[1], a[2], a[3]);
    }
    size_t *idx = malloc((e.row_count ? e.row_count : 1) * sizeof(size_t));
    if (!idx)
        return;
    for (size_t i = 0; i < e.row_count; i++)
        idx[i] = e.first_row + i;
    sort_cmp = cmp;
    qsort(idx, e.row_count, sizeof(size_t), by_error);
    fprintf(out, "  %-18s %-10s %-13s %10s %11s %11s %5s %4s %6s %11s  %s\n", "law", "mode",
            "status", "error", "energy err", "impulse err", "g+>=0", "P>=0", "T+<=T-", "parameter",
            "notes");
    for (size_t i = 0; i < e.row_count; i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, idx[i]);
        char flags[96];
        fprintf(out, "  %-18s %-10s %-13s %10.3e %11.3e %11.3e %5s %4s %6s %11.9g %s",
                cr_law_name(r->law), cr_compare_mode_name(r->mode),
                cr_compare_status_name(r->status), r->error, r->energy_error, r->impulse_error,
                yes_no(r->gamma_ok), yes_no(r->impulse_ok), yes_no(r->energy_ok), r->parameter,
                flag_text(r->flags, flags, sizeof flags));
        if (r->outcomes > 1)
            fprintf(out, " %zu outcomes, closest #%zu", r->outcomes, r->chosen + 1);
        fprintf(out, "%s%s\n", r->message[0] ? " | " : "", r->message);
    }
    free(idx);
}

typedef struct {
    cr_law_id law;
    cr_compare_mode mode;
    cr_compare_summary s;
} summary_row;

static int by_mean(const void *a, const void *b)
{
    const summary_row *x = a, *y = b;
    int fx = isfinite(x->s.mean_error), fy = isfinite(y->s.mean_error);
    if (fx != fy)
        return fy - fx;
    if (fx && x->s.mean_error != y->s.mean_error)
        return x->s.mean_error < y->s.mean_error ? -1 : 1;
    return (int)(x->law * 2 + x->mode) - (int)(y->law * 2 + y->mode);
}

void compare_print_summary(FILE *out, const cr_compare *cmp)
{
    summary_row rows[CR_LAW_COUNT * CR_COMPARE_MODE_COUNT];
    size_t n = 0, ne = cr_compare_episode_count(cmp), runs, hits;
    for (int law = 0; law < CR_LAW_COUNT; law++)
        for (int mode = 0; mode < CR_COMPARE_MODE_COUNT; mode++, n++) {
            rows[n].law = (cr_law_id)law;
            rows[n].mode = (cr_compare_mode)mode;
            cr_compare_summarize(cmp, rows[n].law, rows[n].mode, &rows[n].s);
        }
    qsort(rows, n, sizeof rows[0], by_mean);
    cr_compare_cache_stats(cmp, &runs, &hits);
    fprintf(out,
            "over %zu episode%s (error = |u+law - u+|_M / |v_perp|_M; mean and max over the "
            "episodes with an answer; %zu two-body run%s)\n",
            ne, ne == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
    fprintf(out, "  %-18s %-10s %8s %4s %6s %6s %6s %6s %6s %6s %11s %11s %11s\n", "law", "mode",
            "answered", "ok", "infeas", "multi", "range", "large", "failed", "no-pr", "mean err",
            "max err", "mean |dE|");
    for (size_t i = 0; i < n; i++) {
        const cr_compare_summary *s = &rows[i].s;
        fprintf(out, "  %-18s %-10s %8zu %4zu %6zu %6zu %6zu %6zu %6zu %6zu %11.3e %11.3e %11.3e\n",
                cr_law_name(rows[i].law), cr_compare_mode_name(rows[i].mode), s->answered,
                s->status[CR_COMPARE_OK], s->status[CR_COMPARE_INFEASIBLE],
                s->status[CR_COMPARE_MULTIPLE], s->status[CR_COMPARE_OUT_OF_RANGE],
                s->status[CR_COMPARE_TOO_LARGE], s->status[CR_COMPARE_FAILED],
                s->status[CR_COMPARE_NO_PREDICTION], s->mean_error, s->max_error,
                s->mean_energy_error);
    }
}

void compare_print_table(FILE *out, const cr_compare *cmp, const compare_view *v)
{
    size_t ne = cr_compare_episode_count(cmp), shown = v && v->shown ? v->shown : ne;
    for (size_t k = 0; k < ne && k < shown; k++)
        print_episode(out, cmp, k, v);
    if (ne > shown)
        fprintf(out, "... %zu episodes in all (--episode K shows one, --csv and --json all)\n", ne);
    compare_print_summary(out, cmp);
}

/* ---- CSV ------------------------------------------------------------------------ */

static void csv_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
    fputc('"', out);
}

void compare_print_csv(FILE *out, const cr_compare *cmp)
{
    fputs("episode,law,mode,status,law_status,parameter,error,energy_error,impulse_error,"
          "energy_ratio,gamma_ok,impulse_ok,energy_ok,outcomes,chosen,flags,message\n",
          out);
    for (size_t i = 0; i < cr_compare_row_count(cmp); i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, i);
        fprintf(out, "%zu,%s,%s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d,%d,%zu,%zu,%d,",
                r->episode, cr_law_name(r->law), cr_compare_mode_name(r->mode),
                cr_compare_status_name(r->status),
                r->law_status >= 0 ? cr_law_status_name((cr_law_status)r->law_status) : "",
                r->parameter, r->error, r->energy_error, r->impulse_error, r->energy_ratio,
                r->gamma_ok, r->impulse_ok, r->energy_ok, r->outcomes, r->chosen, r->flags);
        csv_text(out, r->message);
        fputc('\n', out);
    }
}

/* ---- JSON ---------------------------------------------------------------------- */

static void put(json_object *o, const char *k, json_object *v)
{
    json_object_object_add(o, k, v);
}

static json_object *jbool(int v)
{
    return v < 0 ? NULL : json_object_new_boolean(v);
}

static json_object *json_row(const cr_compare *cmp, size_t i, size_t n, size_t m)
{
    const cr_compare_row *r = cr_compare_get_row(cmp, i);
    json_object *o = json_object_new_object();
    put(o, "law", json_object_new_string(cr_law_name(r->law)));
    put(o, "mode", json_object_new_string(cr_compare_mode_name(r->mode)));
    put(o, "status", json_object_new_string(cr_compare_status_name(r->status)));
    put(o, "law_status",
        r->law_status >= 0
            ? json_object_new_string(cr_law_status_name((cr_law_status)r->law_status))
            : NULL);
    put(o, "parameter", tools_json_number(r->parameter));
    put(o, "error", tools_json_number(r->error));
    put(o, "energy_error", tools_json_number(r->energy_error));
    put(o, "impulse_error", tools_json_number(r->impulse_error));
    put(o, "energy_ratio", tools_json_number(r->energy_ratio));
    put(o, "gamma_ok", jbool(r->gamma_ok));
    put(o, "impulse_ok", jbool(r->impulse_ok));
    put(o, "energy_ok", jbool(r->energy_ok));
    put(o, "outcomes", json_object_new_uint64(r->outcomes));
    put(o, "chosen", json_object_new_uint64(r->chosen));
    put(o, "flags", json_object_new_int(r->flags));
    put(o, "message", json_object_new_string(r->message));
    put(o, "velocity", tools_json_numbers(cr_compare_row_velocity(cmp, i), n));
    put(o, "impulse", tools_json_numbers(cr_compare_row_impulse(cmp, i), m));
    put(o, "parameters", tools_json_numbers(cr_compare_row_parameters(cmp, i), m));
    return o;
}

static json_object *json_episode(const cr_compare *cmp, size_t k, const compare_view *v)
{
    cr_compare_episode e;
    cr_compare_get_episode(cmp, k, &e);
    json_object *o = json_object_new_object();
    put(o, "index", json_object_new_uint64(e.index));
    put(o, "t_start", tools_json_number(e.t_start));
    put(o, "dofs", json_object_new_uint64(e.dofs));
    put(o, "contacts", json_object_new_uint64(e.contacts));
    put(o, "reference", json_object_new_uint64(e.reference));
    put(o, "kappa", tools_json_number(e.kappa));
    put(o, "kappa_min", tools_json_number(e.kappa_min));
    put(o, "v_perp", tools_json_number(e.v_perp));
    put(o, "speed", tools_json_number(e.speed));
    put(o, "field_corrected", json_object_new_boolean(e.field_corrected));
    put(o, "reference_velocity", tools_json_numbers(cr_compare_reference_velocity(cmp, k), e.dofs));
    put(o, "field_impulse", tools_json_numbers(cr_compare_field_impulse(cmp, k), e.dofs));
    put(o, "measured_impulse", tools_json_numbers(cr_compare_measured_impulse(cmp, k), e.contacts));
    if (v && v->accuracy) {
        const double *a = v->accuracy + 4 * k;
        json_object *acc = json_object_new_object();
        put(acc, "alpha", tools_json_number(a[0]));
        put(acc, "kappa", tools_json_number(a[1]));
        put(acc, "newton", tools_json_number(a[2]));
        put(acc, "poisson", tools_json_number(a[3]));
        put(o, "accuracy", acc);
    }
    json_object *rows = json_object_new_array_ext((int)e.row_count);
    for (size_t i = 0; i < e.row_count; i++)
        json_object_array_add(rows, json_row(cmp, e.first_row + i, e.dofs, e.contacts));
    put(o, "rows", rows);
    return o;
}

static json_object *json_summary(const cr_compare *cmp)
{
    json_object *a = json_object_new_array();
    for (int law = 0; law < CR_LAW_COUNT; law++)
        for (int mode = 0; mode < CR_COMPARE_MODE_COUNT; mode++) {
            cr_compare_summary s;
            cr_compare_summarize(cmp, (cr_law_id)law, (cr_compare_mode)mode, &s);
            json_object *o = json_object_new_object();
            put(o, "law", json_object_new_string(cr_law_name((cr_law_id)law)));
            put(o, "mode", json_object_new_string(cr_compare_mode_name((cr_compare_mode)mode)));
            put(o, "episodes", json_object_new_uint64(s.episodes));
            put(o, "answered", json_object_new_uint64(s.answered));
            json_object *st = json_object_new_object();
            for (int k = 0; k < CR_COMPARE_STATUS_COUNT; k++)
                put(st, cr_compare_status_name((cr_compare_status)k),
                    json_object_new_uint64(s.status[k]));
            put(o, "status", st);
            put(o, "mean_error", tools_json_number(s.mean_error));
            put(o, "max_error", tools_json_number(s.max_error));
            put(o, "mean_energy_error", tools_json_number(s.mean_energy_error));
            json_object_array_add(a, o);
        }
    return a;
}

int compare_print_json(FILE *out, const cr_compare *cmp, const compare_view *v)
{
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    size_t runs, hits, ne = cr_compare_episode_count(cmp);
    cr_compare_cache_stats(cmp, &runs, &hits);
    put(o, "source", json_object_new_string(v && v->source ? v->source : ""));
    put(o, "two_body_runs", json_object_new_uint64(runs));
    put(o, "estimate_rtol", tools_json_number(v ? v->estimate_rtol : NAN));
    json_object *eps = json_object_new_array_ext((int)ne);
    for (size_t k = 0; k < ne; k++)
        json_object_array_add(eps, json_episode(cmp, k, v));
    put(o, "episodes", eps);
    put(o, "summary", json_summary(cmp));
    const char *text =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text && fprintf(out, "%s\n", text) > 0 ? 0 : -1;
    json_object_put(o);
    return rc;
}
