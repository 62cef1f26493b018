/*
 * The comparator (src/compare*.c, docs/compare.md): every check against a
 * reference computed here independently of compare — a closed form, a paper
 * equation (001 eqs. 13-16), the test's own integration of the chain
 * (refchain.h: fixed-step RK4), a second compliant run, or the monitor's own
 * measured u⁺ — never against a number compare fed itself. Checks against a
 * second compliant run or the measured u⁺ are self-consistency (CHECK_SELF).
 */
#include <hdf5.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refchain.h"

/* A model from YAML text, calibrated. */
static cr_model *model_of(const char *text)
{
    cr_model *m = NULL;
    char msg[512];
    if (cr_modelfile_parse(text, strlen(text), "test.yaml", &m, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(m, msg, sizeof msg) != CR_OK) {
        printf("model: %s\n", msg);
        cr_model_destroy(m);
        return NULL;
    }
    return m;
}

static cr_model *model_file(const char *name)
{
    char path[1024], msg[512];
    size_t len;
    snprintf(path, sizeof path, "%s/../../models/%s", CR_TEST_DATA, name);
    char *text = cr_file_read(path, &len, msg, sizeof msg, NULL);
    cr_model *m = text ? model_of(text) : NULL;
    free(text);
    return m;
}

/* A finished run: system and monitor (and the output file when @p out). */
typedef struct {
    cr_system *sys;
    cr_monitor *mon;
} run;

static int run_model(const cr_model *m, const char *out, run *r)
{
    char msg[512];
    memset(r, 0, sizeof(*r));
    r->sys = cr_system_create(m, msg, sizeof msg);
    cr_store *st =
        r->sys && out ? cr_store_create(out, r->sys, m, "test.yaml", NULL, msg, sizeof msg) : NULL;
    r->mon = r->sys ? cr_monitor_create(r->sys) : NULL;
    int rc = r->mon ? cr_system_run(r->sys, cr_model_settings(m)->t_end) : CR_ERR_INVALID;
    if (r->mon)
        cr_monitor_finish(r->mon);
    if (st && rc == CR_OK)
        rc = cr_store_write_episodes(st, r->mon) == CR_OK ? cr_store_commit(st, "complete", NULL)
                                                          : CR_ERR_IO;
    cr_store_destroy(st);
    return rc;
}

static void run_free(run *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
}

/* Row of (law, mode) in episode slot k. */
static size_t row_of(const cr_compare *c, size_t k, cr_law_id law, cr_compare_mode mode)
{
    cr_compare_episode e;
    cr_compare_get_episode(c, k, &e);
    for (size_t i = e.first_row; i < e.first_row + e.row_count; i++) {
        const cr_compare_row *r = cr_compare_get_row(c, i);
        if (r->law == law && r->mode == mode)
            return i;
    }
    return (size_t)-1;
}

/* max |a − b| / scale over n values */
static double max_diff(const double *a, const double *b, size_t n, double scale)
{
    double d = 0.0;
    for (size_t i = 0; a && b && i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]) / scale);
    return a && b ? d : INFINITY;
}

/* The measured u⁺ of the moving bodies in dof order (1-D: one per body). */
static void measured_after(const cr_monitor *mon, size_t k, double *u, size_t *n)
{
    size_t nb;
    const double *m = cr_monitor_masses(mon, k, &nb);
    const double *ua = cr_monitor_velocities(mon, k, 1, &nb);
    *n = 0;
    for (size_t q = 0; q < nb; q++)
        if (isfinite(m[q]))
            u[(*n)++] = ua[q];
}

/* The test's RK4 integration (refchain.h) of @p m: final velocities into @p v,
 * contact impulses into @p P (may be NULL); 1 when its error estimate is below
 * 1e-10 of @p V. */
static int rk4_of(const cr_model *m, double V, double *v, double *P)
{
    refchain c;
    double Pl[REFCHAIN_MAX], est = NAN;
    int ok = m && refchain_from_model(&c, m) &&
             refchain_final(&c, refchain_step(&c, V, 8000.0), 1e6, v, P ? P : Pl, &est) > 0.0 &&
             est <= 1e-10 * V;
    CHECK(ok, "RK4 reference (refchain.h): error estimate %.2e", est);
    return ok;
}

/* The two-body restitution of @p law at the speed V for the reduced mass mu,
 * by RK4 (refchain.h). */
static double rk4_restitution(const cr_contact_params *law, double mu, double V)
{
    double est = NAN;
    double e = refchain_restitution(law->K, law->n, law->C, law->m,
                                    law->release == CR_RELEASE_FORCE, mu, V, &est);
    CHECK(est <= 1e-10, "RK4 two-body reference: error estimate %.2e", est);
    return e;
}

/* ---- single contact, head on ------------------------------------------------------ */

/* Two balls of 1 and 3 kg, damped Hertz contact (restitution 0.8 at 1 m/s),
 * no field: for one contact the law's u⁺ is fixed by momentum and eᴺ
 * (= eᴾ = √κ·… for a central collision), so Newton, Poisson, GDI and the
 * energetic law must give the compliant u⁺ exactly (to the run's accuracy),
 * and the u⁺ of the test's RK4 integration of the pair. */
static const char *two_balls = "balls:\n"
                               "  - {mass: 1.0, radius: 0.5, x: 0.0, v: 1.0}\n"
                               "  - {mass: 3.0, radius: 0.5, x: 1.001}\n"
                               "contact: {K: 1.0e4, n: 1.5, restitution: 0.8, "
                               "reference_speed: 1.0, release: force}\n"
                               "integration: {rtol: 1.0e-12, atol: 1.0e-14}\n";

static void single_contact(void)
{
    cr_model *m = model_of(two_balls);
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "two balls run");
    cr_compare *c = cr_compare_create();
    CHECK(cr_monitor_episode_count(r.mon) == 1, "one episode (got %zu)",
          cr_monitor_episode_count(r.mon));
    CHECK(cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK, "add: %s", cr_compare_last_error(c));
    double u[2], ur[2];
    size_t n;
    measured_after(r.mon, 0, u, &n);
    int have = rk4_of(m, 1.0, ur, NULL);
    const cr_law_id same[] = {CR_LAW_NEWTON, CR_LAW_POISSON, CR_LAW_GLOBAL_DISSIPATION,
                              CR_LAW_ENERGETIC};
    for (size_t i = 0; i < 4; i++) {
        tu_case("one contact/%s", cr_law_name(same[i]));
        size_t row = row_of(c, 0, same[i], CR_COMPARE_CALIBRATED);
        const cr_compare_row *q = cr_compare_get_row(c, row);
        double d = max_diff(cr_compare_row_velocity(c, row), u, 2, 1.0);
        CHECK(q->status == CR_COMPARE_OK, "%s calibrated on one contact: status %s",
              cr_law_name(same[i]), cr_compare_status_name(q->status));
        CHECK_SELF(d <= 1e-9,
                   "%s calibrated on one contact: |u+law - u+| = %.3g (want <= 1e-9 of "
                   "|u-| = 1 m/s)",
                   cr_law_name(same[i]), d);
        double dr = have ? max_diff(cr_compare_row_velocity(c, row), ur, 2, 1.0) : INFINITY;
        CHECK_REF(dr <= 1e-9, "%s calibrated on one contact: |u+law - u+_RK4| = %.3g (<= 1e-9)",
                  cr_law_name(same[i]), dr);
    }
    tu_case(NULL);
    /* predictive: the two-body run uses two equal balls of 2μ; the compliant
     * run has 1 and 3 kg (μ = 0.75): restitution depends on μ only, so the
     * prediction equals the measured eᴺ to both runs' accuracy */
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &n);
    size_t row = row_of(c, 0, CR_LAW_NEWTON, CR_COMPARE_PREDICTIVE);
    const double *par = cr_compare_row_parameters(c, row);
    CHECK_REL_SELF(par ? par[0] : NAN, rec[0].newton, 1e-8,
                   "two-body run at mu = 0.75 vs the 1 kg / 3 kg run (rtol 1e-12 both)");
    CHECK_REL_SELF(rec[0].newton, 0.8, 1e-8, "restitution target 0.8 at 1 m/s (calibrate)");
    /* the restitution of the calibrated law, integrated here: the target, the
     * measured eᴺ, eᴾ (= eᴺ for one central contact) and the prediction */
    double e_rk4 = rk4_restitution(cr_model_contact(m, 0), 0.75, 1.0);
    CHECK_REL(e_rk4, 0.8, 1e-8, "RK4 of the calibrated pair law at 1 m/s: the target 0.8");
    CHECK_REL(rec[0].newton, e_rk4, 1e-8, "e_N: RK4 of the pair law at mu = 0.75, 1 m/s");
    CHECK_REL(rec[0].poisson, e_rk4, 1e-8, "e_P = e_N for one central contact, RK4");
    CHECK_REL(par ? par[0] : NAN, e_rk4, 1e-8, "predictive e: RK4 of the pair law");
    size_t runs, hits;
    cr_compare_cache_stats(c, &runs, &hits);
    CHECK(runs == 1 && hits >= 3,
          "one two-body run serves every predictive law (%zu runs, %zu "
          "hits)",
          runs, hits);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* ---- the energetic law as an identity check ----------------------------------------- */

/* Field-free chains and frozen-normal pools: with the measured α and κ the
 * energetic law (001 eqs. 17-18) must return the measured u⁺ on every feasible
 * episode (a real root, γ⁺ ≥ 0, P ≥ 0): u⁺ from the states, α and κ from the
 * quadratures. A pool's normals must be frozen (@p frozen): with turning normals
 * the compliant impulses are not along the first-touch W the law works with. */
static void energetic_identity(const char *name, int frozen, int *feasible)
{
    cr_model *m = model_file(name);
    if (m && frozen) {
        cr_settings s = *cr_model_settings(m);
        s.frozen_normals = 1;
        cr_model_set_settings(m, &s);
    }
    run r;
    tu_case("%s", name);
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "%s runs", name);
    cr_compare *c = cr_compare_create();
    double worst = 0.0;
    for (size_t k = 0; k < cr_monitor_episode_count(r.mon); k++) {
        if (cr_compare_add_monitor(c, r.mon, k, m) != CR_OK)
            continue;
        size_t slot = cr_compare_episode_count(c) - 1, row, n;
        row = row_of(c, slot, CR_LAW_ENERGETIC, CR_COMPARE_CALIBRATED);
        const cr_compare_row *q = cr_compare_get_row(c, row);
        if (!cr_compare_row_velocity(c, row) || q->gamma_ok != 1 || q->impulse_ok != 1)
            continue;
        double u[64], scale = 0.0;
        measured_after(r.mon, k, u, &n);
        size_t nb;
        const double *u0 = cr_monitor_velocities(r.mon, k, 0, &nb);
        for (size_t i = 0; i < nb; i++)
            scale = fmax(scale, fabs(u0[i]));
        worst = fmax(worst, max_diff(cr_compare_row_velocity(c, row), u, n, scale));
        (*feasible)++;
    }
    printf("     %s: %zu episodes, energetic worst |u+law - u+| / max|u-| = %.3g\n", name,
           cr_compare_episode_count(c), worst);
    CHECK_INV(worst <= 1e-8, "%s: calibrated energetic law off the measured u+ by %.3g (> 1e-8)",
              name, worst);
    tu_case(NULL);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* The pendulum cradle: fields act during each episode. Against the measured u⁺
 * the energetic law is off by at most the field impulse M⁻¹∫F dt; against
 * the corrected reference it is exact. */
static void pendulum(void)
{
    cr_model *m = model_file("pendulum-cradle.yaml");
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "pendulum cradle runs");
    cr_compare *c = cr_compare_create();
    int within = 1, exact = 1, used = 0;
    double worst_raw = 0.0, worst_ref = 0.0;
    for (size_t k = 0; k < cr_monitor_episode_count(r.mon); k++) {
        if (cr_compare_add_monitor(c, r.mon, k, m) != CR_OK)
            continue;
        size_t slot = cr_compare_episode_count(c) - 1, n;
        size_t row = row_of(c, slot, CR_LAW_ENERGETIC, CR_COMPARE_CALIBRATED);
        const double *ul = cr_compare_row_velocity(c, row);
        cr_compare_episode e;
        cr_compare_get_episode(c, slot, &e);
        if (!ul || !e.field_corrected)
            continue;
        double u[16], field = 0.0;
        measured_after(r.mon, k, u, &n);
        const double *J = cr_compare_field_impulse(c, slot);
        size_t nb;
        const double *mass = cr_monitor_masses(r.mon, k, &nb);
        for (size_t i = 0, d = 0; i < nb; i++)
            if (isfinite(mass[i]))
                field = fmax(field, fabs(J[d++] / mass[i]));
        double raw = max_diff(ul, u, n, 1.0);
        double ref = max_diff(ul, cr_compare_reference_velocity(c, slot), n, 1.0);
        within &= raw <= field + 1e-8;
        exact &= ref <= 1e-8;
        worst_raw = fmax(worst_raw, raw);
        worst_ref = fmax(worst_ref, ref);
        used++;
    }
    printf("     pendulum: %d field-corrected episodes; energetic vs measured u+ %.3g m/s, vs "
           "u+ - M^-1 int F dt %.3g m/s\n",
           used, worst_raw, worst_ref);
    CHECK(used >= 10, "pendulum episodes compared with the field correction: %d", used);
    CHECK_INV(within, "energetic vs measured u+ within the field impulse (worst %.3g)", worst_raw);
    CHECK_INV(exact, "energetic vs the corrected u+ to 1e-8 m/s (worst %.3g)", worst_ref);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* ---- predictive, 3-ball Hertz chain (001 sect. 3) ------------------------------------ */

/* Elastic Hertz pair laws predict e = 1. With unit masses and u⁻ = (1, 0, 0)
 * 001 gives Newton's and Poisson's u⁺ = (−1/3, 2/3, 2/3) (eqs. 13-15); GDI
 * with ε = 1 equals Newton's law with one ε (003 Prop. 3.1); the tangent part
 * of u⁻ is the common velocity (1/3, 1/3, 1/3), so ‖v⊥‖²_M = 2/3; the
 * sequential law has the two outcomes of eqs. 15 and 16. */
static void three_ball_predictive(void)
{
    cr_model *m = model_file("three-ball-chain.yaml");
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "three-ball chain runs");
    cr_compare *c = cr_compare_create();
    CHECK(cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK, "add");
    double u[3];
    size_t n;
    measured_after(r.mon, 0, u, &n);
    const double eq15[3] = {-1.0 / 3, 2.0 / 3, 2.0 / 3}, eq16[3] = {0, 0, 1};
    double vperp = sqrt(2.0 / 3.0), e15 = 0.0, e16 = 0.0;
    for (int i = 0; i < 3; i++) {
        e15 += (eq15[i] - u[i]) * (eq15[i] - u[i]);
        e16 += (eq16[i] - u[i]) * (eq16[i] - u[i]);
    }
    e15 = sqrt(e15) / vperp;
    e16 = sqrt(e16) / vperp;
    const cr_law_id laws[] = {CR_LAW_NEWTON, CR_LAW_POISSON, CR_LAW_GLOBAL_DISSIPATION};
    for (int i = 0; i < 3; i++) {
        tu_case("three-ball predictive/%s", cr_law_name(laws[i]));
        const cr_compare_row *q =
            cr_compare_get_row(c, row_of(c, 0, laws[i], CR_COMPARE_PREDICTIVE));
        printf("     %s predictive:\n", cr_law_name(laws[i]));
        CHECK_REL(q->error, e15, 1e-9, "001 eqs. 13-15 against the compliant u+");
        CHECK(q->flags & CR_COMPARE_FLAG_ELASTIC, "elastic pair law: e = 1 without a run");
    }
    tu_case(NULL);
    const cr_compare_row *q =
        cr_compare_get_row(c, row_of(c, 0, CR_LAW_SEQUENTIAL, CR_COMPARE_PREDICTIVE));
    CHECK(q->outcomes == 2 && q->status == CR_COMPARE_MULTIPLE, "sequential: 2 outcomes (%zu)",
          q->outcomes);
    CHECK_REL(q->error, fmin(e15, e16), 1e-9, "sequential: closest of 001 eqs. 15, 16");
    cr_compare_episode e;
    cr_compare_get_episode(c, 0, &e);
    CHECK_REL(e.v_perp, vperp, 1e-12, "|v_perp|_M = sqrt(2/3): u- less (1/3, 1/3, 1/3)");
    CHECK_REL(e.kappa_min, 1.0 / 3.0, 1e-12, "maximal dissipation keeps T+/T- = 1/3");
    size_t runs;
    cr_compare_cache_stats(c, &runs, NULL);
    CHECK(runs == 0, "no two-body run for elastic laws (%zu)", runs);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* The same chain with damped contacts (restitution 0.8 at 1 m/s): the predictive
 * e of both contacts is the two-body run's (μ = 1/2 at the reference speed
 * 1 m/s: the calibration target 0.8). With e per contact, 001 eq. 13 and
 * Newton's law (γ₁⁺ = −eγ₁⁻ = e, γ₂⁺ = 0 as γ₂⁻ = 0, both impulses positive)
 * give p₂ = (1 + e)/3, p₁ = 2p₂, u⁺ = (1 − 2(1 + e)/3, (1 + e)/3, (1 + e)/3);
 * Poisson (compression to the common 1/3 with Λ_C = (2/3, 1/3), expansion eΛ_C
 * leaving γ_E = (e, 0) ≥ 0) and GDI with ε = e (v − e v⊥) give the same. */
static const char *three_damped = "balls:\n"
                                  "  - {mass: 1.0, radius: 0.5, x: 0.0, v: 1.0}\n"
                                  "  - {mass: 1.0, radius: 0.5, x: 1.0}\n"
                                  "  - {mass: 1.0, radius: 0.5, x: 2.0}\n"
                                  "contact: {K: 1.0e4, n: 1.5, restitution: 0.8, "
                                  "reference_speed: 1.0, release: force}\n"
                                  "integration: {rtol: 1.0e-11, atol: 1.0e-13}\n";

static void three_ball_damped_predictive(void)
{
    cr_model *m = model_of(three_damped);
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "damped three-ball chain runs");
    cr_compare *c = cr_compare_create();
    CHECK(cr_monitor_episode_count(r.mon) >= 1 && cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK,
          "add");
    double u[3], ur[3];
    size_t n;
    measured_after(r.mon, 0, u, &n);
    /* the compliant u⁺ the rows are measured against, and the two-body
     * restitution of the pair law, integrated here */
    if (rk4_of(m, 1.0, ur, NULL))
        CHECK_REF(max_diff(u, ur, 3, 1.0) <= 1e-9, "damped chain u+ vs RK4: %.3g (<= 1e-9)",
                  max_diff(u, ur, 3, 1.0));
    double e_rk4 = rk4_restitution(cr_model_contact(m, 0), 0.5, 1.0);
    const cr_law_id laws[] = {CR_LAW_NEWTON, CR_LAW_POISSON, CR_LAW_GLOBAL_DISSIPATION};
    for (int i = 0; i < 3; i++) {
        tu_case("three-ball damped predictive/%s", cr_law_name(laws[i]));
        size_t row = row_of(c, 0, laws[i], CR_COMPARE_PREDICTIVE);
        const cr_compare_row *q = cr_compare_get_row(c, row);
        const double *par = cr_compare_row_parameters(c, row);
        double e = laws[i] == CR_LAW_GLOBAL_DISSIPATION ? q->parameter : par ? par[0] : NAN;
        printf("     %s predictive, e = %.12f:\n", cr_law_name(laws[i]), e);
        CHECK_REL_SELF(e, 0.8, 1e-8,
                       "two-body restitution at 1 m/s, mu = 1/2 (calibration target)");
        CHECK_REL(e, e_rk4, 1e-8, "two-body restitution at 1 m/s, mu = 1/2: RK4 of the pair law");
        if (par && laws[i] != CR_LAW_GLOBAL_DISSIPATION)
            CHECK(par[1] == par[0], "both contacts: the same pair law, mass and speed");
        const double eq[3] = {1.0 - 2.0 * (1.0 + e) / 3.0, (1.0 + e) / 3.0, (1.0 + e) / 3.0};
        double d = 0.0;
        for (int k = 0; k < 3; k++)
            d += (eq[k] - u[k]) * (eq[k] - u[k]);
        CHECK_REL(q->error, sqrt(d) / sqrt(2.0 / 3.0), 1e-9,
                  "001 eq. 13 with Newton's law at e, against the compliant u+");
    }
    tu_case(NULL);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* ---- LZB: the pair laws alone ---------------------------------------------------------- */

/* The 3-ball Hertz chain (ball 1 strikes two touching balls): LZB from the pair
 * laws (K = 1, n = 3/2, elastic: e = 1) must engage the touching contact and give
 * the compliant chain's α = P₂/P₁ (the two are the same bi-stiffness dynamics
 * with the configuration frozen, test-laws lzb_compliant), and conserve momentum
 * exactly (u⁺ = u⁻ + M⁻¹WP whatever P). Tolerance of α: compare integrates LZB
 * at CR_COMPARE_LZB_TOL = 1e-8, the run at rtol 1e-11; LZB's global error is a
 * few tolerances (measured 4.6e-8 on α), so 1e-7, 10 tolerances. */
static void lzb_three_ball(void)
{
    cr_model *m = model_file("three-ball-chain.yaml");
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "three-ball chain runs");
    cr_compare *c = cr_compare_create();
    CHECK(cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK, "add");
    size_t n;
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &n);
    size_t row = row_of(c, 0, CR_LAW_LZB, CR_COMPARE_CALIBRATED);
    size_t pred = row_of(c, 0, CR_LAW_LZB, CR_COMPARE_PREDICTIVE);
    const cr_compare_row *q = cr_compare_get_row(c, row);
    const double *P = cr_compare_row_impulse(c, row), *u = cr_compare_row_velocity(c, row);
    const double *e = cr_compare_row_parameters(c, row);
    CHECK(q->status == CR_COMPARE_OK && P && u && e, "lzb answers on the chain: %s %s",
          cr_compare_status_name(q->status), q->message);
    CHECK(e && e[0] == 1.0 && e[1] == 1.0 && (q->flags & CR_COMPARE_FLAG_ELASTIC),
          "elastic pair laws: energetic restitution 1");
    double ur[3], Pr[2];
    int have = rk4_of(m, 1.0, ur, Pr);
    if (P && u) {
        printf("     lzb: alpha = %.12f, compliant %.12f, RK4 %.12f; error %.3g\n", P[1] / P[0],
               rec[1].alpha, have ? Pr[1] / Pr[0] : NAN, q->error);
        CHECK(P[1] > 0.0, "the contact touching at rest engages (P = %.6g)", P[1]);
        CHECK_REL_SELF(P[1] / P[0], rec[1].alpha, 1e-7, "compliant alpha of the same Hertz chain");
        CHECK_REL(P[1] / P[0], have ? Pr[1] / Pr[0] : NAN, 1e-7,
                  "alpha of the same Hertz chain integrated by RK4 (refchain.h)");
        /* unit masses, u⁻ = (1, 0, 0): momentum 1 */
        CHECK_INV(fabs(u[0] + u[1] + u[2] - 1.0) <= 1e-14, "momentum exact: %.3g",
                  u[0] + u[1] + u[2] - 1.0);
    }
    const cr_compare_row *p = cr_compare_get_row(c, pred);
    CHECK(p->status == q->status && p->error == q->error && p->mode == CR_COMPARE_PREDICTIVE,
          "predictive lzb: the same pair laws, the same row");
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* A damped pair law: LZB's energetic restitution is the two-body restitution of
 * the pair law at the reference speed (the same run the predictive Newton row
 * uses, cached), i.e. the model's calibration target 0.8 at 1 m/s; K and n are
 * the pair law's. */
static void lzb_damped(void)
{
    cr_model *m = model_of(two_balls);
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "two balls run");
    cr_compare *c = cr_compare_create();
    CHECK(cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK, "add");
    size_t row = row_of(c, 0, CR_LAW_LZB, CR_COMPARE_CALIBRATED);
    const double *e = cr_compare_row_parameters(c, row);
    CHECK_REL_SELF(e ? e[0] : NAN, 0.8, 1e-8, "two-body restitution at 1 m/s (calibration target)");
    CHECK_REL(e ? e[0] : NAN, rk4_restitution(cr_model_contact(m, 0), 0.75, 1.0), 1e-8,
              "two-body restitution at 1 m/s: RK4 of the pair law");
    /* one central contact: LZB's γ⁺ = −e γ⁻ (energetic = Newton for two bodies), so
     * it matches the compliant u⁺ to the two runs' accuracy */
    const cr_compare_row *q = cr_compare_get_row(c, row);
    CHECK_SELF(q->status == CR_COMPARE_OK && q->error <= 1e-8, "lzb on one contact: %s, error %.3g",
               cr_compare_status_name(q->status), q->error);
    size_t runs;
    cr_compare_cache_stats(c, &runs, NULL);
    CHECK(runs == 1, "one two-body run serves lzb and the predictive laws (%zu)", runs);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* ---- the calibrated mapping ------------------------------------------------------- */

/* The undamped 5-ball cradle: contacts 1-3 touch at rest, contact 0's eᴾ is
 * above 1 (the pulse leaves the striker's contact with more expansion than
 * compression impulse). */
static void calibrated_mapping(void)
{
    cr_model *m = model_file("newton-cradle-5.yaml");
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "default cradle runs");
    cr_compare *c = cr_compare_create();
    CHECK(cr_compare_add_monitor(c, r.mon, 0, m) == CR_OK, "add");
    size_t n;
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &n);
    size_t row = row_of(c, 0, CR_LAW_NEWTON, CR_COMPARE_CALIBRATED);
    const double *eN = cr_compare_row_parameters(c, row);
    CHECK_SELF(eN && eN[0] == rec[0].newton,
               "Newton takes the measured e_N of the striker's contact");
    int zeros = 1;
    for (size_t i = 1; eN && i < n; i++)
        zeros &= (rec[i].flags & CR_RECORD_AT_REST) && eN[i] == 0.0;
    CHECK(zeros && (cr_compare_get_row(c, row)->flags & CR_COMPARE_FLAG_AT_REST),
          "contacts at rest: e_N passed as 0 and flagged");
    row = row_of(c, 0, CR_LAW_POISSON, CR_COMPARE_CALIBRATED);
    const double *eP = cr_compare_row_parameters(c, row);
    const cr_compare_row *q = cr_compare_get_row(c, row);
    int same = 1;
    for (size_t i = 0; eP && i < n; i++)
        same &= eP[i] == rec[i].poisson;
    CHECK_SELF(same, "Poisson takes e_P (not e_N), unclamped");
    CHECK(rec[0].poisson > 1.0 && (q->flags & CR_COMPARE_FLAG_OUT_OF_RANGE) &&
              q->status == CR_COMPARE_OUT_OF_RANGE,
          "e_P = %.6g > 1: flagged out-of-range (status %s), never clamped", rec[0].poisson,
          cr_compare_status_name(q->status));
    /* ... and used as it is (002 eqs. 10-17): compression brings the equal balls to
     * their common velocity ū; ball 0 feels only contact 0, which separates (the
     * striker bounces back), so no correction μ₀ acts: P₀ = (1 + eᴾ₀) m (u₀⁻ − ū).
     * e_P clamped to 1 would give 2 m (u₀⁻ − ū), 5 % less. */
    size_t nb;
    const double *mass = cr_monitor_masses(r.mon, 0, &nb);
    const double *um = cr_monitor_velocities(r.mon, 0, 0, &nb);
    double ubar = 0.0;
    for (size_t i = 0; i < nb; i++)
        ubar += um[i] / (double)nb;
    const double *P = cr_compare_row_impulse(c, row);
    CHECK(nb == 5 && mass[4] == mass[0], "five equal balls");
    CHECK_REL(P ? P[0] : NAN, (1.0 + rec[0].poisson) * mass[0] * (um[0] - ubar), 1e-12,
              "Poisson with e_P > 1: (1 + e_P) times the compression impulse (002 eq. 10-17)");
    CHECK(q->energy_ok == 0 && q->energy_ratio > 1.0,
          "the superelastic answer gains energy, and the row says T+ <= T- fails (%.9g)",
          q->energy_ratio);
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* GDI's ε from κ(ε) = κ_min + ε²(1 − κ_min) (000 eq. 56): the law core's own
 * T⁺/T⁻ at that ε must be the measured κ. */
static void gdi_epsilon(void)
{
    cr_model *m = model_file("damped-cradle.yaml");
    run r;
    CHECK(m && run_model(m, NULL, &r) == CR_OK, "damped cradle runs");
    cr_compare *c = cr_compare_create();
    int checked = 0;
    for (size_t k = 0; k < cr_monitor_episode_count(r.mon); k++) {
        if (cr_compare_add_monitor(c, r.mon, k, m) != CR_OK)
            continue;
        size_t slot = cr_compare_episode_count(c) - 1;
        cr_compare_episode e;
        cr_compare_get_episode(c, slot, &e);
        cr_episode_info in;
        cr_monitor_get_episode(r.mon, k, &in);
        const cr_compare_row *q = cr_compare_get_row(
            c, row_of(c, slot, CR_LAW_GLOBAL_DISSIPATION, CR_COMPARE_CALIBRATED));
        if (!isfinite(q->error) || e.contacts < 2)
            continue;
        printf("     episode %zu: epsilon = %.9f\n", k, q->parameter);
        tu_case("damped cradle episode %zu", k);
        CHECK_REL_SELF(q->energy_ratio, in.kappa, 1e-12, "GDI's T+/T- at epsilon = measured kappa");
        tu_case(NULL);
        checked++;
    }
    CHECK(checked > 0, "a multi-contact damped episode with GDI in range");
    cr_compare_destroy(c);
    run_free(&r);
    cr_model_destroy(m);
}

/* ---- sizes and bad input ------------------------------------------------------------ */

/* A synthetic chain episode of @p nb balls, the first striking. */
typedef struct {
    size_t *bodies;
    double *mass, *u0, *u1, *nrm, *vec;
    cr_contact_record *rec;
    cr_episode_data d;
} synthetic;

static void synthetic_make(synthetic *s, size_t nb)
{
    size_t nr = nb - 1;
    s->bodies = malloc(nb * sizeof(size_t));
    s->mass = malloc(nb * sizeof(double));
    s->u0 = calloc(nb, sizeof(double));
    s->u1 = calloc(nb, sizeof(double));
    s->nrm = malloc(nr * sizeof(double));
    s->vec = calloc(nr, sizeof(double));
    s->rec = calloc(nr, sizeof(cr_contact_record));
    for (size_t i = 0; i < nb; i++)
        s->bodies[i] = i, s->mass[i] = 1.0;
    s->u0[0] = 1.0;
    s->u1[nb - 1] = 1.0;
    for (size_t r = 0; r < nr; r++) {
        s->nrm[r] = 1.0;
        s->rec[r] = (cr_contact_record){.contact = r,
                                        .body_a = r,
                                        .body_b = (long)r + 1,
                                        .impulse = 1.0,
                                        .alpha = 1.0,
                                        .newton = NAN,
                                        .poisson = 1.0,
                                        .gamma_minus = r ? 0.0 : -1.0};
        s->rec[r].flags = r ? CR_RECORD_AT_REST : 0;
    }
    memset(&s->d, 0, sizeof s->d);
    s->d.info.body_count = nb;
    s->d.info.contact_count = nr;
    s->d.dim = 1;
    s->d.bodies = s->bodies;
    s->d.mass = s->mass;
    s->d.velocity_before = s->u0;
    s->d.velocity_after = s->u1;
    s->d.records = s->rec;
    s->d.normals = s->nrm;
    s->d.vector_impulses = s->vec;
}

static void synthetic_free(synthetic *s)
{
    free(s->bodies), free(s->mass), free(s->u0), free(s->u1), free(s->nrm), free(s->vec);
    free(s->rec);
}

static void sizes_and_bad_input(void)
{
    cr_compare *c = cr_compare_create();
    synthetic s;
    synthetic_make(&s, CR_LAW_MAX_DOFS + 1);
    CHECK(cr_compare_add(c, 7, &s.d, NULL, 0) == CR_OK, "a 1001-ball episode is accepted");
    int large = 1;
    for (size_t i = 0; i < cr_compare_row_count(c); i++)
        large &= cr_compare_get_row(c, i)->status == CR_COMPARE_TOO_LARGE;
    CHECK(large && cr_compare_row_count(c) == CR_LAW_COUNT * CR_COMPARE_MODE_COUNT,
          "above the law core's caps every row says too-large, nothing computed");
    synthetic_free(&s);
    synthetic_make(&s, 3);
    s.d.info.reference_record = 5;
    size_t rows = cr_compare_row_count(c);
    CHECK(cr_compare_add(c, 0, &s.d, NULL, 0) == CR_ERR_INVALID &&
              cr_compare_row_count(c) == rows && cr_compare_episode_count(c) == 1,
          "a reference record out of range is refused, nothing added");
    s.d.info.reference_record = 0;
    s.mass[1] = -1.0;
    CHECK(cr_compare_add(c, 0, &s.d, NULL, 0) == CR_ERR_INVALID, "a negative mass is refused");
    s.mass[1] = 1.0;
    CHECK(cr_compare_add(c, 1, &s.d, NULL, 0) == CR_OK, "the 3-ball synthetic episode");
    size_t row = row_of(c, 1, CR_LAW_NEWTON, CR_COMPARE_PREDICTIVE);
    CHECK(cr_compare_get_row(c, row)->status == CR_COMPARE_NO_PREDICTION,
          "no pair laws: no predictive restitution");
    synthetic_free(&s);
    cr_compare_destroy(c);
}

/* GDI's ε on the 3-ball chain u⁻ = (1, 0, 0), unit masses, computed here from
 * 000 eq. 56: v = (1/3, 1/3, 1/3), v⊥ = (2/3, −1/3, −1/3), κ_min = 1/3.
 * A reference u⁺ = (−0.4, 0.2, 1.2) (momentum 1, T⁺ = 0.82, κ = 1.64) needs
 * ε² = (1.64 − 1/3)/(2/3) = 1.96: ε = 1.4 > 1, used as it is (out-of-range)
 * and the law answers v − 1.4 v⊥ = (−0.6, 0.8, 0.8). A reference with κ = 0.12
 * below κ_min (u⁺ = (0.2, 0.2, 0.2), as a field could make it) has no ε:
 * infeasible, nothing substituted. */
static void gdi_synthetic(void)
{
    cr_compare *c = cr_compare_create();
    synthetic s;
    synthetic_make(&s, 3);
    s.u1[0] = -0.4, s.u1[1] = 0.2, s.u1[2] = 1.2;
    CHECK(cr_compare_add(c, 0, &s.d, NULL, 0) == CR_OK, "synthetic kappa = 1.64");
    size_t row = row_of(c, 0, CR_LAW_GLOBAL_DISSIPATION, CR_COMPARE_CALIBRATED);
    const cr_compare_row *q = cr_compare_get_row(c, row);
    CHECK_REL(q->parameter, 1.4, 1e-12, "epsilon from kappa = 1.64 (000 eq. 56)");
    CHECK(q->status == CR_COMPARE_OUT_OF_RANGE && (q->flags & CR_COMPARE_FLAG_OUT_OF_RANGE),
          "epsilon > 1 flagged out-of-range (%s)", cr_compare_status_name(q->status));
    const double want[3] = {-0.6, 0.8, 0.8};
    CHECK_REF(max_diff(cr_compare_row_velocity(c, row), want, 3, 1.0) <= 1e-12,
              "GDI at epsilon = 1.4: v - 1.4 v_perp = (-0.6, 0.8, 0.8)");
    /* the Newton row on the same episode, every column computed here: eᴺ₀ =
     * (0.2 + 0.4)/1 = 0.6, contact 1 at rest (0); 001 eq. 13 with Newton's law
     * (γ₁⁺ = 0.6, γ₂⁺ = 0): p₂ = 1.6/3, p₁ = 2p₂, u⁺ = (1 − 3.2/3, 1.6/3, 1.6/3).
     * error ‖u⁺ − (−0.4, 0.2, 1.2)‖/‖v⊥‖ = √(2/3)/√(2/3) = 1; energy error
     * (T⁺ − 0.82)/0.5 with T⁺ = 0.86/3; impulse error against the records' P =
     * (1, 1): ‖(0.2/3, −1.4/3)‖/√2 = 1/3. */
    row = row_of(c, 0, CR_LAW_NEWTON, CR_COMPARE_CALIBRATED);
    q = cr_compare_get_row(c, row);
    const double *eN = cr_compare_row_parameters(c, row);
    CHECK_REF(eN && fabs(eN[0] - 0.6) <= 1e-15 && eN[1] == 0.0, "e_N = (0.6, 0 at rest)");
    const double nw[3] = {1.0 - 3.2 / 3.0, 1.6 / 3.0, 1.6 / 3.0};
    CHECK_REF(max_diff(cr_compare_row_velocity(c, row), nw, 3, 1.0) <= 1e-12,
              "newton at e = (0.6, 0): 001 eq. 13");
    CHECK_REL(q->error, 1.0, 1e-12, "|u+law - u+|_M / |v_perp|_M");
    CHECK_REL(q->energy_error, (0.86 / 3.0 - 0.82) / 0.5, 1e-12, "(T+law - T+)/T-");
    CHECK_REL(q->impulse_error, 1.0 / 3.0, 1e-12, "|P_law - P| / |P|");
    CHECK(q->gamma_ok == 1 && q->impulse_ok == 1 && q->energy_ok == 1 && q->status == CR_COMPARE_OK,
          "newton's own conditions hold (%d %d %d, %s)", q->gamma_ok, q->impulse_ok, q->energy_ok,
          cr_compare_status_name(q->status));
    s.u1[0] = s.u1[1] = s.u1[2] = 0.2;
    CHECK(cr_compare_add(c, 1, &s.d, NULL, 0) == CR_OK, "synthetic kappa = 0.12");
    row = row_of(c, 1, CR_LAW_GLOBAL_DISSIPATION, CR_COMPARE_CALIBRATED);
    q = cr_compare_get_row(c, row);
    CHECK(q->status == CR_COMPARE_INFEASIBLE && !cr_compare_row_velocity(c, row) &&
              strstr(q->message, "kappa_min"),
          "kappa below kappa_min: infeasible, no epsilon substituted (%s: %s)",
          cr_compare_status_name(q->status), q->message);
    /* a configuration the law core refuses (a zero normal: the contact constrains
     * no velocity) within the caps: every row says failed, with the reason */
    s.u1[0] = -0.4, s.u1[1] = 0.2, s.u1[2] = 1.2;
    s.nrm[1] = 0.0;
    CHECK(cr_compare_add(c, 2, &s.d, NULL, 0) == CR_OK, "synthetic with a zero normal");
    q = cr_compare_get_row(c, row_of(c, 2, CR_LAW_NEWTON, CR_COMPARE_CALIBRATED));
    CHECK(q->status == CR_COMPARE_FAILED && strstr(q->message, "refused"),
          "a refused configuration: failed (%s: %s)", cr_compare_status_name(q->status),
          q->message);
    synthetic_free(&s);
    cr_compare_destroy(c);
}

/* Per-law caps: a 25-ball chain (24 contacts) is within the law core's general
 * caps but above the sequential law's 20 contacts (2^m branches): that row says
 * too-large (the law core's CR_LAW_TOO_LARGE), the others answer. */
static void per_law_cap(void)
{
    cr_compare *c = cr_compare_create();
    synthetic s;
    synthetic_make(&s, CR_LAW_MAX_CONTACTS_SEQUENTIAL + 5);
    CHECK(cr_compare_add(c, 0, &s.d, NULL, 0) == CR_OK, "25-ball episode");
    const cr_compare_row *seq =
        cr_compare_get_row(c, row_of(c, 0, CR_LAW_SEQUENTIAL, CR_COMPARE_CALIBRATED));
    const cr_compare_row *nwt =
        cr_compare_get_row(c, row_of(c, 0, CR_LAW_NEWTON, CR_COMPARE_CALIBRATED));
    CHECK(seq->status == CR_COMPARE_TOO_LARGE && seq->outcomes == 0 &&
              strstr(seq->message, "sequential takes at most"),
          "sequential above its cap: too-large (%s: %s)", cr_compare_status_name(seq->status),
          seq->message);
    CHECK(nwt->status == CR_COMPARE_OK, "newton within the caps answers (%s)",
          cr_compare_status_name(nwt->status));
    synthetic_free(&s);
    cr_compare_destroy(c);
}

/* ---- through a run file ------------------------------------------------------------- */

/* Episodes read back from the HDF5 file give the same rows as the monitor's. */
static void run_file_round_trip(void)
{
    char path[64];
    snprintf(path, sizeof path, "test-compare-%ld.h5", (long)getpid());
    cr_model *m = model_file("damped-cradle.yaml");
    run r;
    CHECK(m && run_model(m, path, &r) == CR_OK, "damped cradle with a file");
    char msg[512];
    cr_run_file *f = cr_run_file_open(path, msg, sizeof msg);
    CHECK(f && cr_run_file_episode_count(f) == cr_monitor_episode_count(r.mon),
          "run file opens with its episodes: %s", f ? "" : msg);
    cr_compare *a = cr_compare_create(), *b = cr_compare_create();
    for (size_t k = 0; f && k < cr_run_file_episode_count(f); k++) {
        cr_episode_data d;
        const cr_contact_params *laws;
        CHECK(cr_run_file_episode(f, k, &d, &laws) == CR_OK && laws, "episode %zu read", k);
        cr_compare_add(a, k, &d, laws, 0);
        cr_compare_add_monitor(b, r.mon, k, m);
    }
    int same = cr_compare_row_count(a) == cr_compare_row_count(b) && cr_compare_row_count(a) > 0;
    for (size_t i = 0; same && i < cr_compare_row_count(a); i++) {
        const cr_compare_row *x = cr_compare_get_row(a, i), *y = cr_compare_get_row(b, i);
        same = x->status == y->status &&
               (x->error == y->error || (isnan(x->error) && isnan(y->error)));
    }
    CHECK_SELF(same, "rows from the file equal the rows from the monitor, bit for bit");
    cr_episode_data d;
    CHECK(f && cr_run_file_episode(f, 99, &d, NULL) == CR_ERR_INVALID,
          "episode out of range refused");
    cr_run_file_close(f);
    /* /comparison added through a copy; the rows are all there */
    CHECK(cr_store_write_comparison(path, path, a, NULL, msg, sizeof msg) == CR_OK, "%s", msg);
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = h >= 0 ? H5Dopen2(h, "comparison/rows", H5P_DEFAULT) : -1;
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hssize_t nrows = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    CHECK(nrows == (hssize_t)cr_compare_row_count(a), "/comparison/rows holds %lld rows",
          (long long)nrows);
    if (sp >= 0)
        H5Sclose(sp);
    if (ds >= 0)
        H5Dclose(ds);
    if (h >= 0)
        H5Fclose(h);
    CHECK(cr_store_write_comparison("no-such.h5", path, a, NULL, msg, sizeof msg) == CR_ERR_IO &&
              access(path, R_OK) == 0,
          "a failed copy leaves the target: %s", msg);
    cr_compare_destroy(a);
    cr_compare_destroy(b);
    run_free(&r);
    cr_model_destroy(m);
    unlink(path);
}

int main(void)
{
    single_contact();
    int feasible = 0;
    energetic_identity("three-ball-chain.yaml", 0, &feasible);
    energetic_identity("newton-cradle-5.yaml", 0, &feasible);
    energetic_identity("damped-cradle.yaml", 0, &feasible);
    energetic_identity("decorated-chain.yaml", 0, &feasible);
    energetic_identity("pool-theta-tau.yaml", 1, &feasible);
    energetic_identity("pool-bernoulli.yaml", 1, &feasible);
    CHECK(feasible >= 6, "feasible field-free episodes checked: %d", feasible);
    pendulum();
    three_ball_predictive();
    three_ball_damped_predictive();
    lzb_three_ball();
    lzb_damped();
    calibrated_mapping();
    gdi_epsilon();
    sizes_and_bad_input();
    gdi_synthetic();
    per_law_cap();
    run_file_round_trip();
    return tu_finish("test-compare");
}
