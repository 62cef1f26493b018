/* `cradle run` output: text summary, episode table and JSON, written once for
 * every engine through cr_system and cr_monitor. */
#include "run-report.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "tools-json.h"

#define SHOWN_BODIES 12
#define SHOWN_EPISODES 20
#define SHOWN_RECORDS 12
#define SHOWN_COLLISIONS 40

/* A vector as " 0.123456" (1-D) or " (0.1, 0.2)" (2-D), each number in @p fmt. */
static void print_in(const double *v, int dim, const char *fmt)
{
    printf(dim == 1 ? " " : " (");
    for (int d = 0; d < dim; d++) {
        printf(d ? ", " : "");
        printf(fmt, v[d]);
    }
    printf(dim == 1 ? "" : ")");
}

/* Body velocities: six decimals, as the summary has always shown them. */
static void print_vector(const double *v, int dim)
{
    print_in(v, dim, "%.6f");
}

static void print_law_line(const run_info *info, const cr_system *sys)
{
    size_t nb = cr_system_body_count(sys), nc = cr_system_contact_count(sys);
    cr_contact_params p;
    int dim = cr_system_dimension(sys);
    if (dim == 1)
        printf("  %zu bodies, %zu pairs", nb, nc);
    else
        printf("  %zu %s, %zu wall%s (%s)", nb, dim == 3 ? "spheres" : "discs",
               cr_system_wall_count(sys), cr_system_wall_count(sys) == 1 ? "" : "s",
               dim == 3 ? "3-D" : "planar");
    if (nb >= 2 && cr_model_pair_law(info->model, 0, 1, &p) == CR_OK)
        printf("; contact 0: K = %.4g, n = %g, C = %.6g, release %s\n", p.K, p.n, p.C,
               cr_release_name(p.release));
    else
        printf("\n");
    double e, v;
    if ((dim == 1 && nb >= 2 && cr_model_contact_target(info->model, 0, &e, &v)) ||
        (dim >= 2 && cr_model_default_target(info->model, &e, &v)))
        printf("  (C solved for restitution %g at %g m/s)\n", e, v);
}

/* Fields or fixed bodies take momentum: then p is not an invariant. */
static int momentum_conserved(const run_info *info, const cr_system *sys)
{
    if (cr_model_has_fields(info->model) || cr_system_wall_count(sys) > 0)
        return 0;
    for (size_t i = 0; i < cr_system_body_count(sys); i++)
        if (cr_system_body_is_fixed(sys, i))
            return 0;
    return 1;
}

static void print_balances(const run_info *info, const cr_system *sys)
{
    double T = cr_system_kinetic_energy(sys), U = cr_system_potential_energy(sys);
    double W = cr_system_dissipated_work(sys), E0 = info->E0;
    /* U holds contact, link and field energy, so T + U + W is conserved */
    printf("  energy: E0 = %.9g J; T + U + dissipated = %.9g + %.3g + %.3g J; "
           "balance %.2e (relative)\n",
           E0, T, U, W, E0 != 0 ? fabs(T + U + W - E0) / fabs(E0) : fabs(T + U + W));
    int dim = cr_system_dimension(sys);
    double p[3] = {0, 0, 0}, dp = 0, p0 = 0;
    cr_system_momentum(sys, p);
    for (int d = 0; d < dim; d++) {
        dp += (p[d] - info->p0[d]) * (p[d] - info->p0[d]);
        p0 += info->p0[d] * info->p0[d];
    }
    printf("  momentum: p0 =");
    print_in(info->p0, dim, "%.9g");
    printf(", p =");
    print_in(p, dim, "%.9g");
    if (momentum_conserved(info, sys))
        printf(" N s; balance %.2e (relative)\n", p0 > 0 ? sqrt(dp / p0) : sqrt(dp));
    else
        printf(" N s (walls or fields: not conserved)\n");
}

void report_summary(const run_info *info, const cr_system *sys)
{
    size_t nb = cr_system_body_count(sys);
    int dim = cr_system_dimension(sys);
    cr_run_stats st = cr_system_get_stats(sys);
    printf("cradle %s: %s (%s)\n", cr_version(), cr_model_name(info->model), info->model_path);
    print_law_line(info, sys);
    printf("  integrated %.6g -> %.6g s (%s)\n", cr_system_start_time(sys), cr_system_get_time(sys),
           cr_system_end_reason(sys));
    const char *method = cr_method_name(cr_system_method(sys));
    printf("  %s%s%ld steps, %ld RHS, %ld Jacobians, %ld events, %ld restarts",
           method ? method : "", method ? ": " : "", st.steps, st.rhs_evals, st.jac_evals,
           st.events, st.restarts);
    if (st.rebuilds)
        printf(", %ld neighbour rebuilds", st.rebuilds);
    printf(", %.3f s wall\n", info->wall);
    double acc = cr_model_settings(info->model)->accuracy, rtol, atol;
    if (acc > 0.0 && strcmp(cr_system_engine_name(sys), "chain") == 0) {
        cr_model_tolerances(info->model, &rtol, &atol);
        printf("  integration.accuracy %g: rtol %.3g, atol %.3g\n", acc, rtol, atol);
    }
    double *v = malloc(nb * (size_t)dim * sizeof(double));
    if (v) {
        cr_system_get_velocities(sys, v);
        printf("  final velocities (m/s):");
        for (size_t i = 0; i < nb && i < SHOWN_BODIES; i++)
            print_vector(v + i * (size_t)dim, dim);
        printf(nb > SHOWN_BODIES ? " ...\n" : "\n");
        free(v);
    }
    print_balances(info, sys);
    printf("  wrote %s\n", info->output);
}

/* "bodies 0-4" when the group is a run of consecutive bodies, else "7 bodies". */
static void print_bodies(const size_t *b, size_t n)
{
    int run = n > 0;
    for (size_t q = 1; q < n; q++)
        run &= b[q] == b[q - 1] + 1;
    if (run && n == 1)
        printf("body %zu", b[0]);
    else if (run)
        printf("bodies %zu-%zu", b[0], b[n - 1]);
    else
        printf("%zu bodies", n);
}

static void print_record_pair(const cr_contact_record *r)
{
    char with[48];
    if (r->body_b >= 0)
        snprintf(with, sizeof with, "%zu-%ld", r->body_a, r->body_b);
    else
        snprintf(with, sizeof with, "%zu|w%zu", r->body_a, CR_WALL_INDEX(r->body_b));
    printf("    %7zu %9s", r->contact, with);
}

void report_episodes(const cr_system *sys, const cr_monitor *mon)
{
    (void)sys;
    size_t n = cr_monitor_episode_count(mon);
    printf("  %zu impact episode%s\n", n, n == 1 ? "" : "s");
    for (size_t k = 0; k < n && k < SHOWN_EPISODES; k++) {
        cr_episode_info in;
        if (cr_monitor_get_episode(mon, k, &in) != CR_OK)
            continue;
        size_t nb, nc;
        const size_t *bodies = cr_monitor_bodies(mon, k, &nb);
        printf("  episode %zu: t = %.6g .. %.6g s, ", k, in.t_start, in.t_end);
        print_bodies(bodies, nb);
        /* under a field κ is what the impact itself keeps, not T+/T-: the
         * field's work over the episode is printed beside it */
        if (in.field_work != 0.0)
            printf(
                ", reference contact %zu, kappa = (T+ - W_field)/T- = %.9f, W_field = %.6g J%s\n",
                in.reference, in.kappa, in.field_work,
                in.complete ? "" : " (still running at the end)");
        else
            printf(", reference contact %zu, kappa = T+/T- = %.9f%s\n", in.reference, in.kappa,
                   in.complete ? "" : " (still running at the end)");
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
        printf("    %7s %9s %12s %10s %10s %10s %11s %11s\n", "contact", "bodies", "P [N s]",
               "alpha", "e_N", "e_P", "gamma- m/s", "gamma+ m/s");
        for (size_t c = 0; c < nc && c < SHOWN_RECORDS; c++) {
            print_record_pair(&r[c]);
            printf(" %12.6g %10.6f %10.6f %10.6f %11.6f %11.6f\n", r[c].impulse, r[c].alpha,
                   r[c].newton, r[c].poisson, r[c].gamma_minus, r[c].gamma_plus);
        }
        if (nc > SHOWN_RECORDS)
            printf("    ... %zu contacts in all (see the HDF5 file)\n", nc);
    }
    if (n > SHOWN_EPISODES)
        printf("  ... %zu episodes in all (see the HDF5 file)\n", n);
}

/* "0-4" for a run of consecutive bodies, else "7 bodies" (collision table). */
static void format_bodies(char *buf, size_t len, const size_t *b, size_t n)
{
    int run = n > 0;
    for (size_t q = 1; q < n; q++)
        run &= b[q] == b[q - 1] + 1;
    if (run && n == 1)
        snprintf(buf, len, "%zu", b[0]);
    else if (run)
        snprintf(buf, len, "%zu-%zu", b[0], b[n - 1]);
    else
        snprintf(buf, len, "%zu bodies", n);
}

void report_collisions(const cr_monitor *mon)
{
    size_t n = cr_monitor_collision_count(mon);
    double ff = 0.0, window = cr_monitor_collision_window(mon, &ff);
    printf("  %zu collision%s", n, n == 1 ? "" : "s");
    if (ff > 0.0 && fabs(window - CR_MONITOR_COLLISION_FRACTION * ff) <= 1e-12 * ff)
        printf(" (episodes sharing bodies within %.4g s = %g x the longest free flight, %.4g s)\n",
               window, CR_MONITOR_COLLISION_FRACTION, ff);
    else if (ff > 0.0)
        printf(" (episodes sharing bodies within %.4g s, set by the caller)\n", window);
    else
        printf(" (no body in two episodes: one collision per episode)\n");
    if (n == 0)
        return;
    /* κ = (T+ − W_field)/T−: the field's work is a column when a field did any */
    int fields = 0;
    for (size_t k = 0; k < n && !fields; k++) {
        cr_collision_info c;
        fields = cr_monitor_get_collision(mon, k, &c) == CR_OK && c.field_work != 0.0;
    }
    printf("    %9s %12s %12s %8s %10s %12s %12s", "collision", "t_start s", "t_end s", "episodes",
           "bodies", "T- [J]", "T+ [J]");
    if (fields)
        printf(" %12s", "W_field [J]");
    printf(" %12s\n", "kappa");
    for (size_t k = 0; k < n && k < SHOWN_COLLISIONS; k++) {
        cr_collision_info c;
        if (cr_monitor_get_collision(mon, k, &c) != CR_OK)
            continue;
        size_t nb;
        char who[32];
        const size_t *b = cr_monitor_collision_bodies(mon, k, &nb);
        format_bodies(who, sizeof who, b, nb);
        printf("    %9zu %12.6f %12.6f %8zu %10s %12.6g %12.6g", k, c.t_start, c.t_end,
               c.episode_count, who, c.T_minus, c.T_plus);
        if (fields)
            printf(" %12.4g", c.field_work);
        printf(" %12.9f%s\n", c.kappa, c.complete ? "" : " (still running at the end)");
    }
    if (n > SHOWN_COLLISIONS)
        printf("    ... %zu collisions in all (see the HDF5 file)\n", n);
}

/* ---- JSON (json-c: strings are escaped, NaN becomes null) ------------------ */

static void put(json_object *o, const char *key, json_object *value)
{
    json_object_object_add(o, key, value);
}

/* The keys an episode's contact record and a collision's contact total share,
 * first and in this order: one place, so the two JSON layouts cannot drift. */
static json_object *json_contact(size_t contact, size_t body_a, long body_b, double impulse,
                                 double alpha)
{
    json_object *o = json_object_new_object();
    put(o, "contact", json_object_new_uint64(contact));
    put(o, "body_a", json_object_new_uint64(body_a));
    put(o, "body_b", json_object_new_int64(body_b));
    put(o, "impulse", tools_json_number(impulse));
    put(o, "alpha", tools_json_number(alpha));
    return o;
}

/* The same for the head of an episode and of a collision. */
static json_object *json_span(double t_start, double t_end, size_t reference, int complete)
{
    json_object *o = json_object_new_object();
    put(o, "t_start", tools_json_number(t_start));
    put(o, "t_end", tools_json_number(t_end));
    put(o, "reference", json_object_new_uint64(reference));
    put(o, "complete", json_object_new_boolean(complete));
    return o;
}

static json_object *json_record(const cr_contact_record *r, const double *vec, int dim)
{
    json_object *o = json_contact(r->contact, r->body_a, r->body_b, r->impulse, r->alpha);
    put(o, "newton", tools_json_number(r->newton));
    put(o, "poisson", tools_json_number(r->poisson));
    put(o, "gamma_minus", tools_json_number(r->gamma_minus));
    put(o, "gamma_plus", tools_json_number(r->gamma_plus));
    put(o, "flags", json_object_new_int(r->flags));
    if (vec)
        put(o, "vector_impulse", tools_json_numbers(vec, (size_t)dim));
    return o;
}

static json_object *json_episode(const cr_monitor *mon, size_t k, int dim)
{
    cr_episode_info in;
    if (cr_monitor_get_episode(mon, k, &in) != CR_OK)
        return NULL;
    json_object *o = json_span(in.t_start, in.t_end, in.reference, in.complete);
    put(o, "kappa", tools_json_number(in.kappa));
    put(o, "dissipated", tools_json_number(in.dissipated));
    put(o, "field_work", tools_json_number(in.field_work));
    size_t nb, nc, nv;
    const size_t *bodies = cr_monitor_bodies(mon, k, &nb);
    put(o, "bodies", tools_json_indices(bodies, nb));
    const double *ub = cr_monitor_velocities(mon, k, 0, &nb);
    put(o, "velocity_before", tools_json_numbers(ub, nb * (size_t)dim));
    const double *ua = cr_monitor_velocities(mon, k, 1, &nb);
    put(o, "velocity_after", tools_json_numbers(ua, nb * (size_t)dim));
    const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
    const double *vec = cr_monitor_vector_impulses(mon, k, &nv);
    json_object *c = json_object_new_array_ext((int)nc);
    for (size_t q = 0; q < nc; q++)
        json_object_array_add(c, json_record(&r[q], vec ? vec + q * (size_t)dim : NULL, dim));
    put(o, "contacts", c);
    return o;
}

static json_object *json_collision(const cr_monitor *mon, size_t k, int dim)
{
    cr_collision_info in;
    if (cr_monitor_get_collision(mon, k, &in) != CR_OK)
        return NULL;
    json_object *o = json_span(in.t_start, in.t_end, in.reference, in.complete);
    put(o, "T_minus", tools_json_number(in.T_minus));
    put(o, "T_plus", tools_json_number(in.T_plus));
    put(o, "kappa", tools_json_number(in.kappa));
    put(o, "field_work", tools_json_number(in.field_work));
    put(o, "dissipated", tools_json_number(in.dissipated));
    size_t ne, nb, nc, nv;
    const size_t *eps = cr_monitor_collision_episodes(mon, k, &ne);
    put(o, "episodes", tools_json_indices(eps, ne));
    const size_t *bodies = cr_monitor_collision_bodies(mon, k, &nb);
    put(o, "bodies", tools_json_indices(bodies, nb));
    put(o, "velocity_before",
        tools_json_numbers(cr_monitor_collision_velocities(mon, k, 0, &nb), nb * (size_t)dim));
    put(o, "velocity_after",
        tools_json_numbers(cr_monitor_collision_velocities(mon, k, 1, &nb), nb * (size_t)dim));
    const cr_collision_record *r = cr_monitor_collision_contacts(mon, k, &nc);
    const double *vec = cr_monitor_collision_vector_impulses(mon, k, &nv);
    json_object *c = json_object_new_array_ext((int)nc);
    for (size_t q = 0; q < nc; q++) {
        json_object *x =
            json_contact(r[q].contact, r[q].body_a, r[q].body_b, r[q].impulse, r[q].alpha);
        put(x, "episodes", json_object_new_uint64(r[q].episode_count));
        if (vec)
            put(x, "vector_impulse", tools_json_numbers(vec + q * (size_t)dim, (size_t)dim));
        json_object_array_add(c, x);
    }
    put(o, "contacts", c);
    return o;
}

/* --rigid calibrated: collisions applied and the mismatches (cradle/calibrated.h). */
static json_object *calibration_json(const cr_calibrated_rigid *c)
{
    size_t applied, n = 0, total = cr_calibrated_rigid_collisions(c, &applied);
    const cr_rigid_mismatch *m = cr_calibrated_rigid_mismatches(c, &n);
    json_object *o = json_object_new_object(), *list = json_object_new_array();
    put(o, "collisions", json_object_new_int64((int64_t)total));
    put(o, "applied", json_object_new_int64((int64_t)applied));
    for (size_t k = 0; k < n; k++) {
        json_object *r = json_object_new_object();
        put(r, "t", tools_json_number(m[k].t));
        put(r, "first_body", json_object_new_int64((int64_t)m[k].first_body));
        put(r, "last_body", json_object_new_int64((int64_t)m[k].last_body));
        put(r, "collision", json_object_new_int64(m[k].collision));
        put(r, "t_collision", tools_json_number(m[k].t_collision));
        put(r, "collision_first_body", json_object_new_int64((int64_t)m[k].collision_first_body));
        put(r, "collision_last_body", json_object_new_int64((int64_t)m[k].collision_last_body));
        put(r, "kind", json_object_new_string(cr_mismatch_kind_name(m[k].kind)));
        json_object_array_add(list, r);
    }
    put(o, "mismatches", list);
    return o;
}

void report_calibration(const cr_calibrated_rigid *c)
{
    size_t applied, n = 0, total = cr_calibrated_rigid_collisions(c, &applied);
    const cr_rigid_mismatch *m = cr_calibrated_rigid_mismatches(c, &n);
    printf("  calibrated: the rigid impacts took alpha and kappa of %zu of the %zu compliant "
           "collisions; %zu mismatch%s\n",
           applied, total, n, n == 1 ? "" : "es");
    for (size_t k = 0; k < n && k < 20; k++) {
        if (m[k].kind == CR_MISMATCH_MISSED)
            printf("    missed:");
        else
            printf("    t = %.6f s, bodies %zu-%zu: %s", m[k].t, m[k].first_body, m[k].last_body,
                   cr_mismatch_kind_name(m[k].kind));
        if (m[k].collision >= 0)
            printf(" (collision %ld at t = %.6f s, bodies %zu-%zu)", m[k].collision,
                   m[k].t_collision, m[k].collision_first_body, m[k].collision_last_body);
        printf("\n");
    }
    if (n > 20)
        printf("    ... (%zu more: --json or /rigid_mismatches for all)\n", n - 20);
}

int report_json(const run_info *info, const cr_system *sys, const cr_monitor *mon)
{
    int dim = cr_system_dimension(sys);
    size_t nb = cr_system_body_count(sys);
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    put(o, "model", json_object_new_string(cr_model_name(info->model)));
    put(o, "model_file", json_object_new_string(info->model_path));
    put(o, "output", json_object_new_string(info->output));
    put(o, "engine", json_object_new_string(cr_system_engine_name(sys)));
    char law[1024];
    if (cr_system_rigid_law(sys, law, sizeof law) == CR_OK) {
        put(o, "rigid_law", json_object_new_string(law));
        put(o, "rigid_touching",
            json_object_new_double(cr_model_settings(info->model)->rigid_touching));
    }
    if (info->calib)
        put(o, "calibration", calibration_json(info->calib));
    if (info->tabled) {
        json_object *b = json_object_new_object();
        put(b, "alpha", json_object_new_double(info->table_bound[0]));
        put(b, "kappa", json_object_new_double(info->table_bound[1]));
        put(o, "table_bounds", b);
    }
    size_t nclamp = 0;
    int clamping = 0;
    cr_system_rigid_kappa_clamps(sys, &nclamp, &clamping);
    size_t fallbacks = cr_system_rigid_kappa_fallbacks(sys);
    if (clamping) {
        put(o, "kappa_clamped", json_object_new_int64((int64_t)(nclamp - fallbacks)));
        put(o, "kappa_fallbacks", json_object_new_int64((int64_t)fallbacks));
    }
    put(o, "dim", json_object_new_int(dim));
    if (cr_system_start_time(sys) > 0.0) /* a continued run (--continue) */
        put(o, "t_start", tools_json_number(cr_system_start_time(sys)));
    put(o, "t_end", tools_json_number(cr_system_get_time(sys)));
    put(o, "end_reason", json_object_new_string(cr_system_end_reason(sys)));
    const char *method = cr_method_name(cr_system_method(sys));
    if (method)
        put(o, "integration_method", json_object_new_string(method));
    put(o, "wall_time", tools_json_number(info->wall));
    double *v = malloc((nb ? nb : 1) * (size_t)dim * sizeof(double));
    if (v) {
        cr_system_get_velocities(sys, v);
        put(o, "final_velocities", tools_json_numbers(v, nb * (size_t)dim));
        free(v);
    }
    size_t ne = cr_monitor_episode_count(mon);
    json_object *eps = json_object_new_array_ext((int)ne);
    for (size_t k = 0; k < ne; k++) {
        json_object *e = json_episode(mon, k, dim);
        if (e)
            json_object_array_add(eps, e);
    }
    put(o, "episodes", eps);
    size_t nk = cr_monitor_collision_count(mon);
    double ff = 0.0, window = cr_monitor_collision_window(mon, &ff);
    put(o, "collision_window", tools_json_number(window));
    put(o, "free_flight", tools_json_number(ff));
    json_object *cols = json_object_new_array_ext((int)nk);
    for (size_t k = 0; k < nk; k++) {
        json_object *c = json_collision(mon, k, dim);
        if (c)
            json_object_array_add(cols, c);
    }
    put(o, "collisions", cols);
    const char *text =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text ? (puts(text) >= 0 ? 0 : -1) : -1;
    json_object_put(o);
    return rc;
}

/* ---- law cases ----------------------------------------------------------- */

/* A measured coefficient as a case's restitution: undefined (NaN: a contact at
 * rest for eᴺ, one without compression for eᴾ) does not enter the law, 0 is
 * written; above 1 (undamped chains: eᴾ of the striker's contact) it is written
 * as it is, with `superelastic: true`; below 0 no law is defined for it, 0 is
 * written and the comment and measured.out_of_range say so.
 * @return 1 when substituted (below 0). */
static int case_parameter(double measured, double *e, int *superelastic)
{
    if (!isfinite(measured)) {
        *e = 0.0;
        return 0;
    }
    if (measured < 0.0) {
        *e = 0.0;
        return 1;
    }
    *superelastic |= measured > 1.0;
    *e = measured;
    return 0;
}

static void yaml_numbers(FILE *f, const char *key, const cr_contact_record *r, size_t n,
                         int poisson)
{
    fprintf(f, "  %s: [", key);
    for (size_t c = 0; c < n; c++) {
        double v = poisson ? r[c].poisson : r[c].newton;
        fprintf(f, c ? ", " : "");
        if (isfinite(v))
            fprintf(f, "%.17g", v);
        else
            fprintf(f, "null");
    }
    fprintf(f, "]\n");
}

static int out_of_range(double v)
{
    return isfinite(v) && (v < 0.0 || v > 1.0);
}

/* The coefficients as measured, out-of-range ones flagged: no law reads this
 * block (the law block holds eᴺ and eᴾ); `cradle law NAME --input RUN.h5
 * --episode K` also gives GDI its one ε, as `cradle compare` does. */
static void write_measured(FILE *f, const cr_episode_info *in, const cr_contact_record *r, size_t n,
                           size_t k)
{
    fprintf(f,
            "# measured on the episode, as they are (no law reads this block); GDI takes one "
            "epsilon\n# from kappa: cradle law global-dissipation --input RUN.h5 "
            "--episode %zu (docs/compare.md)\nmeasured:\n",
            k);
    yaml_numbers(f, "e_N", r, n, 0);
    yaml_numbers(f, "e_P", r, n, 1);
    fprintf(f, "  kappa: %.17g\n  out_of_range: [", in->kappa);
    int first = 1;
    for (size_t c = 0; c < n; c++)
        if (out_of_range(r[c].newton) || out_of_range(r[c].poisson)) {
            fprintf(f, "%s%zu", first ? "" : ", ", c);
            first = 0;
        }
    fprintf(f, "]\n");
}

/* The LZB law's pair laws for the case, as `cradle compare` maps them (K and n of
 * each record's pair law, the two-body restitution as energetic restitution):
 * the comparator's LZB row of episode @p k. 0 when they are unknown. */
static int lzb_pair_laws(cr_compare *cmp, const run_info *info, const cr_monitor *mon, size_t k,
                         size_t nc, double *K, double *n, double *e)
{
    cr_compare_episode ce;
    if (!cmp || cr_compare_add_monitor(cmp, mon, k, info->model) != CR_OK ||
        cr_compare_get_episode(cmp, cr_compare_episode_count(cmp) - 1, &ce) != CR_OK ||
        ce.contacts != nc)
        return 0;
    const double *par = NULL;
    for (size_t i = ce.first_row; i < ce.first_row + ce.row_count && !par; i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, i);
        if (r->law == CR_LAW_LZB && r->mode == CR_COMPARE_CALIBRATED)
            par = cr_compare_row_parameters(cmp, i);
    }
    const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nc);
    for (size_t c = 0; par && c < nc; c++) {
        cr_contact_params law;
        if (cr_model_pair_law(info->model, rec[c].body_a, rec[c].body_b, &law) != CR_OK)
            return 0;
        K[c] = law.K;
        n[c] = law.n;
        e[c] = par[c];
    }
    return par != NULL;
}

static int write_case(const char *path, const run_info *info, const cr_monitor *mon, size_t k,
                      cr_compare *cmp)
{
    cr_episode_info in;
    size_t nc;
    if (cr_monitor_get_episode(mon, k, &in) != CR_OK)
        return 0;
    const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
    cr_impact *imp = cr_monitor_impact(mon, k);
    if (!imp)
        return 0; /* nothing moves: no configuration */
    double *alpha = malloc((nc + 1) * sizeof(double)), *e = malloc((nc + 1) * sizeof(double));
    double *ep = malloc((nc + 1) * sizeof(double)), *pair = malloc(3 * (nc + 1) * sizeof(double));
    char comment[1024], subst[512] = "";
    int rc = alpha && e && ep && pair ? CR_OK : CR_ERR_NOMEM;
    cr_law_params p;
    cr_law_params_init(&p);
    for (size_t c = 0; rc == CR_OK && c < nc; c++) {
        alpha[c] = r[c].alpha;
        int bad_n = case_parameter(r[c].newton, &e[c], &p.superelastic);
        int bad_p = case_parameter(r[c].poisson, &ep[c], &p.superelastic);
        if (bad_n || bad_p) {
            size_t used = strlen(subst);
            snprintf(subst + used, sizeof subst - used, " record %zu: e_N = %.9g, e_P = %.9g;", c,
                     r[c].newton, r[c].poisson);
        }
    }
    p.reference = in.reference_record;
    p.kappa = in.kappa;
    p.alpha = alpha;
    p.restitutions = e;
    p.poisson_restitutions = ep;
    if (rc == CR_OK &&
        lzb_pair_laws(cmp, info, mon, k, nc, pair, pair + nc + 1, pair + 2 * (nc + 1))) {
        p.stiffness = pair;
        p.exponent = pair + nc + 1;
        p.energetic = pair + 2 * (nc + 1);
    }
    snprintf(comment, sizeof comment,
             "episode %zu of %s, t = %.9g .. %.9g s; kappa and alpha as measured; restitution "
             "= measured e_N (0 at rest, where Newton's law does not depend on it), "
             "poisson_restitution = measured e_P (0 without compression), as they are%s; lzb: "
             "the pair laws, energetic restitution from two-body runs (docs/compare.md)%s%s",
             k, info->model_path, in.t_start, in.t_end,
             p.superelastic ? " (above 1: superelastic)" : "",
             subst[0] ? "; NEGATIVE, no law takes them, written as 0 (see measured):" : "", subst);
    FILE *f = rc == CR_OK ? fopen(path, "w") : NULL;
    if (rc == CR_OK)
        rc = f ? cr_lawcase_write(f, imp, &p, comment) : CR_ERR_IO;
    if (rc == CR_OK)
        write_measured(f, &in, r, nc, k);
    if (f && (ferror(f) || fclose(f) != 0))
        rc = CR_ERR_IO;
    free(alpha);
    free(e);
    free(ep);
    free(pair);
    cr_impact_destroy(imp);
    return rc == CR_OK ? 1 : -1;
}

int report_cases(const char *dir, const run_info *info, const cr_monitor *mon, int quiet)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cradle: %s: cannot create the folder: %s\n", dir, strerror(errno));
        return -1;
    }
    size_t written = 0;
    /* the comparator maps LZB's parameters; without it the cases just lack them */
    cr_compare *cmp = cr_compare_create();
    for (size_t k = 0; k < cr_monitor_episode_count(mon); k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/episode-%04zu.yaml", dir, k);
        int w = write_case(path, info, mon, k, cmp);
        if (w < 0) {
            fprintf(stderr, "cradle: %s: cannot write the law case\n", path);
            cr_compare_destroy(cmp);
            return -1;
        }
        written += (size_t)w;
    }
    cr_compare_destroy(cmp);
    if (!quiet)
        fprintf(stderr, "cradle: %zu law case%s written to %s/\n", written, written == 1 ? "" : "s",
                dir);
    return 0;
}
