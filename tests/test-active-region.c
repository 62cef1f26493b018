/*
 * Active-region integration of chains (issue 12) against the whole chain.
 *
 * The chain engine integrates only the bodies near a binding contact and moves
 * the others in exact free flight (docs/design.md, "Active region"); the model
 * setting integration.active_region: off integrates the whole chain at every
 * step, the engine as it was. The whole chain is the reference: at rtol 1e-12
 * both must give the same final velocities and contact impulses to 1e-8 of the
 * striker's speed (issue 12, "Tests") on 3-, 5- and 100-bead chains, Hertz and
 * linear, undamped and damped, with one window and with two. On 1000 beads both
 * are held against a whole-chain reference at rtol 1e-13 (the pulse to bead
 * 100 here; to bead 900 in bench/peers, `run.sh --active-check`, which takes
 * minutes). The inelastic lock of quiet pairs is checked against its closed
 * form (momentum kept, ½μγ² booked as dissipated work), and its effect on the
 * chains is bounded from the work it booked. The 3- and 5-bead chains are also
 * held against the test's own integration (refchain.h: fixed-step RK4, no
 * event location), and every striker pair against the exchange of
 * velocities of two equal undamped balls.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refchain.h"

/* The agreement tolerance: max |Δv| / striker speed. */
#define AGREE 1e-8

/* Steel balls of models/newton-cradle-5.yaml: 20 mm, 32.9 g, E 2.1e11, ν 0.3. */
static const double MASS = 0.0329, RADIUS = 0.01, E_STEEL = 2.1e11, NU_STEEL = 0.3;

static double hertz_K(void)
{
    return cr_contact_hertz_stiffness(E_STEEL, NU_STEEL, RADIUS, E_STEEL, NU_STEEL, RADIUS);
}

/* The striker 10 µm before n − 1 touching balls at rest, at 1 m/s. */
static cr_model *chain(int n, const cr_contact_params *law)
{
    cr_model *m = cr_model_create();
    double x = 0.0;
    for (int i = 0; i < n; i++) {
        cr_model_add_ball(m, MASS, RADIUS, x, i == 0 ? 1.0 : 0.0);
        x += 2 * RADIUS + (i == 0 ? 1e-5 : 0.0);
    }
    cr_model_set_default_contact(m, law);
    return m;
}

/* 100 beads with masses falling by 1 % a bead, a damped Hertz law, strikers at
 * both ends (1 m/s from the left, 0.6 m/s from the right) and a 2 µm gap after
 * bead 49: two windows that meet in the middle. */
static cr_model *two_strikers(void)
{
    cr_model *m = cr_model_create();
    double x = 0.0;
    for (int i = 0; i < 100; i++) {
        double v = i == 0 ? 1.0 : (i == 99 ? -0.6 : 0.0);
        cr_model_add_ball(m, MASS * pow(0.99, i), RADIUS, x, v);
        x += 2 * RADIUS + (i == 0 || i == 98 ? 1e-5 : (i == 49 ? 2e-6 : 0.0));
    }
    cr_contact_params law;
    /* C: a restitution of about 0.9 at 1 m/s for two balls (order of magnitude) */
    cr_contact_params_init(&law, hertz_K(), 1.5, 0.05 * hertz_K() * 1e-3, CR_RELEASE_FORCE);
    cr_model_set_default_contact(m, &law);
    return m;
}

typedef struct {
    size_t n;
    double *v, *P;
    double E0, E, W, t;
    cr_run_stats st;
} result;

static void result_free(result *r)
{
    free(r->v);
    free(r->P);
}

/* Runs @p model at @p rtol and @p atol with the given setting to @p t_end
 * (0: the automatic end) and keeps what the checks compare. */
static result run_tol(cr_model *model, cr_active_region ar, double rtol, double atol, double t_end)
{
    cr_settings set = *cr_model_settings(model);
    set.rtol = rtol;
    set.atol = atol;
    set.active_region = ar;
    cr_model_set_settings(model, &set);
    result r = {0};
    cr_system *s = tu_system(model);
    r.n = cr_system_body_count(s);
    r.E0 = cr_system_kinetic_energy(s) + cr_system_potential_energy(s);
    int rc = cr_system_run(s, t_end);
    CHECK(rc == CR_OK, "run failed: %s", cr_system_last_error(s));
    r.v = calloc(r.n, sizeof(double));
    r.P = calloc(r.n, sizeof(double));
    cr_system_get_velocities(s, r.v);
    for (size_t c = 0; c + 1 < r.n; c++) {
        cr_contact_view w;
        cr_system_get_contact(s, c, &w);
        r.P[c] = w.impulse;
    }
    r.W = cr_system_dissipated_work(s);
    r.E = cr_system_kinetic_energy(s) + cr_system_potential_energy(s) + r.W;
    r.t = cr_system_get_time(s);
    r.st = cr_system_get_stats(s);
    cr_system_destroy(s);
    return r;
}

/* The same at atol rtol/100. */
static result run(cr_model *model, cr_active_region ar, double rtol, double t_end)
{
    return run_tol(model, ar, rtol, 1e-2 * rtol, t_end);
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static double max_abs(const double *a, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i]));
    return d;
}

/*
 * A bound on what the locks did to the velocities, from the work they booked:
 * a lock of relative speed γ books ½μγ² and changes its bodies' velocities by
 * at most γ, so over k locks with total work W_lock the sum of the changes is at
 * most Σγ ≤ √(k Σγ²) = √(2 k W_lock / μ_min). In an undamped chain all of the
 * dissipated work is the locks'.
 */
static double lock_bound(const result *r, double mu_min)
{
    return sqrt(2.0 * (double)r->st.locks * r->W / mu_min);
}

/* Active region against the whole chain on one model at rtol 1e-12. */
static void agree(const char *name, cr_model *m, double V, int undamped)
{
    tu_case("%s", name);
    result a = run(m, CR_ACTIVE_REGION_ON, 1e-12, 0.0);
    result w = run(m, CR_ACTIVE_REGION_OFF, 1e-12, 0.0);
    double dv = max_diff(a.v, w.v, a.n) / V;
    double dP = max_diff(a.P, w.P, a.n - 1) / max_abs(w.P, w.n - 1);
    printf("%s: %zu bodies; active: %ld steps, %ld events, %ld windows (largest %ld bodies), "
           "%ld locks; whole: %ld steps, %ld events\n",
           name, a.n, a.st.steps, a.st.events, a.st.windows, a.st.max_window, a.st.locks,
           w.st.steps, w.st.events);
    CHECK_SELF(dv <= AGREE, "%s: max |v_active - v_whole| / V = %.3e > %g (issue 12)", name, dv,
               AGREE);
    CHECK_SELF(dP <= AGREE, "%s: max |P_active - P_whole| / max P = %.3e > %g", name, dP, AGREE);
    /* the short chains: both settings against the test's RK4 (refchain.h) */
    if (a.n <= 5) {
        double ea, eb, da = refchain_diff(m, a.v, V, &ea), dw = refchain_diff(m, w.v, V, &eb);
        CHECK_REF(da <= AGREE && dw <= AGREE && ea <= 0.1 * AGREE,
                  "%s: max |v - v_RK4| / V active %.3e, whole %.3e (<= %g; RK4 estimate %.1e)",
                  name, da, dw, AGREE, ea);
        printf("%s: vs fixed-step RK4 (refchain.h): active %.2e, whole %.2e (its estimate %.1e)\n",
               name, da, dw, ea);
    }
    printf("%s: max |v_active - v_whole| / V = %.2e, max |P_active - P_whole| / max P = %.2e "
           "(issue 12: <= %g)\n",
           name, dv, dP, AGREE);
    /* the whole chain is one window of every body; the active region must
     * really have integrated fewer on the long chains */
    CHECK(w.st.windows == 1 && w.st.max_window == (long)w.n, "%s: whole chain: %ld windows of %ld",
          name, w.st.windows, w.st.max_window);
    if (a.n >= 100)
        CHECK(a.st.windows > 1, "%s: active region never rebuilt (%ld windows)", name,
              a.st.windows);
    /* energy balance KE + U + W = E0 (W holds the locks' work): to the
     * whole chain's own residual, or 1e-10 of E0 when that is smaller */
    double res_a = fabs(a.E - a.E0) / a.E0, res_w = fabs(w.E - w.E0) / w.E0;
    CHECK_INV(res_a <= fmax(1e-10, 2.0 * res_w), "%s: energy balance %.2e (whole chain %.2e)", name,
              res_a, res_w);
    printf("%s: energy balance |KE + U + W - E0| / E0 = %.2e (whole chain %.2e)\n", name, res_a,
           res_w);
    if (undamped) {
        double b = lock_bound(&a, 0.5 * MASS * pow(0.99, (double)a.n)) / V;
        CHECK_SELF(b <= AGREE, "%s: the locks may have changed velocities by %.2e > %g", name, b,
                   AGREE);
        printf("%s: %ld locks booked W = %.3g J: velocity changes <= %.2e V\n", name, a.st.locks,
               a.W, b);
    }
    tu_case(NULL);
    result_free(&a);
    result_free(&w);
}

/*
 * The lock against its closed form: balls 0 and 1 touch and approach each other
 * at γ (±γ/2), far below the wake threshold (quiet: the largest overlap their
 * energy allows is ((n+1)/2 γ²)^(1/(n+1)) δ* < 1e-6 δ* for γ < 2.8e-8 V); a
 * striker 2 hits ball 3 well away from them and sets V = 1 m/s. Below
 * REGION_SPEED·rtol·V = 1e-10 V at rtol 1e-12 (src/engines/compliant/sim-window.c) the pair,
 * outside the window, collides perfectly inelastically: both end at their mean velocity 0, and ½μγ²
 * = m γ² / 4 is booked as dissipated work (the undamped law dissipates nothing else). The whole
 * chain keeps the quiet pair's force: it bounces elastically, velocities ∓γ/2, so the settings
 * differ by γ/2 on these balls, the most a lock of this pair can change. Faster than REGION_SPEED
 * the pair joins the window and bounces as in the whole chain. The striker's collision is two equal
 * balls, undamped: they exchange velocities (striker at rest, ball 3 at V), in both settings.
 */
static void lock_closed_form(double g, int locks)
{
    const double V = 1.0;
    cr_model *m = cr_model_create();
    cr_model_add_ball(m, MASS, RADIUS, 0.0, 0.5 * g);
    cr_model_add_ball(m, MASS, RADIUS, 2 * RADIUS, -0.5 * g);
    cr_model_add_ball(m, MASS, RADIUS, 4 * RADIUS + 1e-3, V);
    cr_model_add_ball(m, MASS, RADIUS, 6 * RADIUS + 1e-3 + 1e-5, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, hertz_K(), 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    /* long enough for the slow elastic bounce of the quiet pair: Hertz
     * t_c ∝ γ^(-1/5), 160 times the striker's ~5e-5 s at γ = 1e-11 */
    const double t_end = 0.05;
    tu_case("quiet pair gamma = %g V", g);
    result a = run(m, CR_ACTIVE_REGION_ON, 1e-12, t_end);
    result w = run(m, CR_ACTIVE_REGION_OFF, 1e-12, t_end);
    printf("quiet pair at gamma = %g V: %ld locks, W = %.4g J\n", g, a.st.locks, a.W);
    CHECK(a.st.locks == locks, "gamma %g: %d locks expected, %ld", g, locks, a.st.locks);
    /* the whole chain's pair bounces elastically (Hertz, undamped); at γ =
     * 1e-11 V its overlaps are ~1e-9 δ*, 1e5 times atol: 1 % */
    CHECK_REL(w.v[0], -0.5 * g, 1e-2, "elastic bounce of the quiet pair (whole chain)");
    CHECK_REL(w.v[1], 0.5 * g, 1e-2, "elastic bounce of the quiet pair (whole chain)");
    /* (not W = 0: the undamped law books no work by construction) */
    for (int k = 0; k < 2; k++) {
        const result *r = k ? &a : &w;
        CHECK_REF(fabs(r->v[2]) <= 1e-9 * V && fabs(r->v[3] - V) <= 1e-9 * V,
                  "%s: striker pair = two equal undamped balls exchanging velocities: "
                  "(%.3e, %.12f) vs (0, %g) (<= 1e-9 V)",
                  k ? "active" : "whole", r->v[2], r->v[3], V);
    }
    double dv = max_diff(a.v, w.v, 2) / V; /* the quiet pair */
    if (locks) {
        CHECK_REF(fabs(a.v[0]) <= 1e-9 * g && fabs(a.v[1]) <= 1e-9 * g,
                  "locked pair at its mean velocity 0: %.3e %.3e m/s", a.v[0], a.v[1]);
        CHECK_REL(a.W, 0.25 * MASS * g * g, 1e-9, "perfectly inelastic: W = m g^2 / 4");
        CHECK_REF(fabs(dv - 0.5 * g) <= 1e-2 * g, "lock changed a velocity by %.3e V, not g/2", dv);
    } else {
        CHECK_REL(a.v[0], -0.5 * g, 1e-2, "elastic bounce of the quiet pair (active region)");
        CHECK_REL(a.W, 0.0, 1e-30, "no lock: no dissipated work");
        CHECK_SELF(dv <= 1e-3 * g, "active region and whole chain differ by %.3e V", dv);
    }
    CHECK_SELF(dv <= AGREE, "gamma %g: max |v_active - v_whole| / V = %.3e > %g", g, dv, AGREE);
    printf("gamma %g: quiet pair, max |v_active - v_whole| / V = %.3e (<= %g)\n", g, dv, AGREE);
    /* the striker's collision is the same in both */
    CHECK_SELF(fabs(a.v[2] - w.v[2]) <= 1e-10 && fabs(a.v[3] - w.v[3]) <= 1e-10,
               "striker pair differs: %.3e %.3e", a.v[2] - w.v[2], a.v[3] - w.v[3]);
    tu_case(NULL);
    result_free(&a);
    result_free(&w);
    cr_model_destroy(m);
}

/* The pulse of the 1000-bead chain reaches bead k at about A + B k s
 * (bench/peers/peers.py, measured on the rtol-1e-13 reference). */
static const double PULSE_A = 0.0029501237799928479 - 99 * 2.93556e-5, PULSE_B = 2.93556e-5;

/* The same at rtol 1e-6: the wake behind the pulse is left at the integration's
 * noise, above the fixed wake fraction 1e-6 δ*, and counted as quiet only
 * because the threshold follows the tolerance (src/engines/compliant/sim-roots.c,
 * cr_sm_set_wake_levels). Without that the window trailed the pulse (97 bodies by bead 100, 880 by
 * bead 900, 100 times the CPU). The active region must then be no less
 * accurate than the whole chain at the same tolerance (2.3e-5 vs 4.7e-4 V
 * against the rtol-1e-13 reference here). */
static void loose(cr_model *m, const result *ref, double t_end)
{
    result w = run(m, CR_ACTIVE_REGION_OFF, 1e-6, t_end);
    result a = run(m, CR_ACTIVE_REGION_ON, 1e-6, t_end);
    double ea = max_diff(a.v, ref->v, a.n), ew = max_diff(w.v, ref->v, w.n);
    printf("1000 beads at rtol 1e-6: max |v - v_ref| / V: active %.2e (largest window %ld, %ld "
           "events), whole %.2e (%ld events)\n",
           ea, a.st.max_window, a.st.events, ew, w.st.events);
    CHECK(a.st.max_window <= 40, "1000 beads at rtol 1e-6: the window grew to %ld bodies",
          a.st.max_window);
    CHECK_SELF(ea <= ew, "1000 beads at rtol 1e-6: active region error %.3e > whole chain's %.3e",
               ea, ew);
    result_free(&w);
    result_free(&a);
}

/* 1000 beads, the pulse to bead 100: the active region and the whole chain at
 * rtol 1e-12 against the whole chain at rtol 1e-13. */
static void thousand(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, hertz_K(), 1.5, 0.0, CR_RELEASE_GAP);
    cr_model *m = chain(1000, &law);
    double t_end = PULSE_A + PULSE_B * 100;
    result ref = run(m, CR_ACTIVE_REGION_OFF, 1e-13, t_end);
    result w = run(m, CR_ACTIVE_REGION_OFF, 1e-12, t_end);
    result a = run(m, CR_ACTIVE_REGION_ON, 1e-12, t_end);
    double ea = max_diff(a.v, ref.v, a.n), ew = max_diff(w.v, ref.v, w.n);
    printf("1000 beads to bead 100: active %ld steps (largest window %ld), whole %ld steps, "
           "reference %ld steps\n",
           a.st.steps, a.st.max_window, w.st.steps, ref.st.steps);
    CHECK_SELF(ea <= AGREE, "1000 beads: active region vs reference %.3e > %g", ea, AGREE);
    CHECK_SELF(ew <= AGREE, "1000 beads: whole chain vs reference %.3e > %g", ew, AGREE);
    printf("1000 beads: max |v - v_ref| / V: active %.2e, whole %.2e (<= %g)\n", ea, ew, AGREE);
    CHECK(a.st.max_window < 100, "1000 beads: window of %ld bodies", a.st.max_window);
    loose(m, &ref, t_end);
    result_free(&ref);
    result_free(&w);
    result_free(&a);
    cr_model_destroy(m);
}

/*
 * The model files' tolerances (rtol 1e-10, atol 1e-12, Adams): 300 beads to
 * the automatic end against the whole chain at rtol 1e-13, atol 1e-15. With
 * the model's atol the window's Adams method stayed at order 5 to 6 (the
 * whole chain's at 7): the states at the atol level (the pulse's leading
 * edge, the pads, the impulses) decided CVODE's order after every rebuild, and
 * the pulse lost energy, max |v - v_ref| 2.9e-8 V against 7.9e-9 V for the
 * whole chain, kappa - 1 = -6.0e-8 against +1.3e-8 (docs/performance.md,
 * "Active region"). The window's atol is now at most rtol/1000: the active
 * region must be within 2 times the whole chain's error, and so must its
 * kappa - 1 (the single episode's restitution; undamped, so 1 exactly) and its
 * energy balance KE + U + W - E0.
 */
static void model_tolerances(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, hertz_K(), 1.5, 0.0, CR_RELEASE_GAP);
    cr_model *m = chain(300, &law);
    result ref = run_tol(m, CR_ACTIVE_REGION_OFF, 1e-13, 1e-15, 0.0);
    result w = run_tol(m, CR_ACTIVE_REGION_OFF, 1e-10, 1e-12, 0.0);
    result a = run_tol(m, CR_ACTIVE_REGION_ON, 1e-10, 1e-12, 0.0);
    double ea = max_diff(a.v, ref.v, a.n), ew = max_diff(w.v, ref.v, w.n);
    /* kappa - 1 from the kinetic energies: T+ / T- - 1 = 2 (kappa - 1) */
    double T0 = 0.5 * MASS, ka = 0.0, kw = 0.0;
    for (size_t i = 0; i < a.n; i++) {
        ka += 0.5 * MASS * a.v[i] * a.v[i];
        kw += 0.5 * MASS * w.v[i] * w.v[i];
    }
    ka = sqrt(ka / T0) - 1.0;
    kw = sqrt(kw / T0) - 1.0;
    double ba = fabs(a.E - a.E0) / a.E0, bw = fabs(w.E - w.E0) / w.E0;
    printf("300 beads, rtol 1e-10, atol 1e-12: max |v - v_ref| / V active %.2e, whole %.2e; "
           "kappa - 1 active %.2e, whole %.2e; energy balance active %.2e, whole %.2e\n",
           ea, ew, ka, kw, ba, bw);
    CHECK_SELF(ea <= 2.0 * ew,
               "300 beads at atol 1e-12: active region error %.3e > 2 x whole's %.3e", ea, ew);
    CHECK_SELF(fabs(ka) <= 2.0 * fabs(kw),
               "300 beads at atol 1e-12: |kappa - 1| %.3e > 2 x whole's %.3e", fabs(ka), fabs(kw));
    CHECK_INV(ba <= 2.0 * bw, "300 beads at atol 1e-12: energy balance %.3e > 2 x whole's %.3e", ba,
              bw);
    result_free(&ref);
    result_free(&w);
    result_free(&a);
    cr_model_destroy(m);
}

/* The setting: read from a model file, refused under a field when on. */
static void setting(void)
{
    char msg[512];
    const char *base = "chain: {count: 3, mass: 0.0329, radius: 0.01, striker: {velocity: 1}}\n";
    char text[1024];
    const char *vals[] = {"auto", "on", "off"};
    const cr_active_region want[] = {CR_ACTIVE_REGION_AUTO, CR_ACTIVE_REGION_ON,
                                     CR_ACTIVE_REGION_OFF};
    for (int k = 0; k < 3; k++) {
        tu_case("active_region: %s", vals[k]);
        snprintf(text, sizeof text, "%sintegration: {active_region: %s}\n", base, vals[k]);
        cr_model *m = NULL;
        cr_modelfile_parse(text, strlen(text), "t.yaml", &m, msg, sizeof msg);
        CHECK(m && cr_model_settings(m)->active_region == want[k], "active_region: %s: %s", vals[k],
              m ? "wrong value" : msg);
        cr_model_destroy(m);
    }
    tu_case(NULL);
    snprintf(text, sizeof text, "%sintegration: {active_region: maybe}\n", base);
    cr_model *m = NULL;
    int rc = cr_modelfile_parse(text, strlen(text), "t.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, "integration.active_region") &&
              strstr(msg, "t.yaml:2"),
          "bad value: %s", msg);
    snprintf(text, sizeof text,
             "%sfields: {gravity: -9.81}\nintegration: {t_end: 1, active_region: on}\n", base);
    rc = cr_modelfile_parse(text, strlen(text), "t.yaml", &m, msg, sizeof msg);
    CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, "integration.active_region") &&
              strstr(msg, "t.yaml:3"),
          "on under a field: %s", msg);
    /* through the API: cr_model_validate refuses it too */
    cr_contact_params law;
    cr_contact_params_init(&law, hertz_K(), 1.5, 0.0, CR_RELEASE_GAP);
    cr_model *api = chain(3, &law);
    cr_model_set_gravity(api, -9.81);
    cr_settings set = *cr_model_settings(api);
    set.active_region = CR_ACTIVE_REGION_ON;
    set.t_end = 1.0;
    cr_model_set_settings(api, &set);
    CHECK(cr_model_validate(api, msg, sizeof msg) == CR_ERR_MODEL && strstr(msg, "active_region"),
          "API, on under gravity: %s", msg);
    cr_model_destroy(api);
}

/* --short (the memcheck rerun): 3- and 5-bead chains, two strikers and the
 * locks; no single-striker 100-bead chains, no 1000-bead reference. */
int main(int argc, char **argv)
{
    int full = !(argc > 1 && strcmp(argv[1], "--short") == 0);
    setting();
    cr_contact_params hertz, linear;
    cr_contact_params_init(&hertz, hertz_K(), 1.5, 0.0, CR_RELEASE_GAP);
    /* linear: the same contact time scale order, n = 1 */
    cr_contact_params_init(&linear, 1e7, 1.0, 0.0, CR_RELEASE_GAP);
    static const int sizes[] = {3, 5, 100};
    for (int k = 0; k < (full ? 3 : 2); k++) {
        char name[64];
        snprintf(name, sizeof name, "%d-bead Hertz chain", sizes[k]);
        cr_model *m = chain(sizes[k], &hertz);
        agree(name, m, 1.0, 1);
        cr_model_destroy(m);
    }
    cr_model *m;
    if (full) {
        m = chain(100, &linear);
        agree("100-bead linear chain", m, 1.0, 1);
        cr_model_destroy(m);
    }
    m = two_strikers();
    agree("100 beads, two strikers, damped, tapered", m, 1.6, 0);
    cr_model_destroy(m);
    lock_closed_form(1e-11, 1);
    lock_closed_form(1e-8, 0);
    if (full) {
        thousand();
        model_tolerances();
    }
    return tu_finish("test-active-region");
}
