/*
 * Event location of the chain engine (sim-locate.c; issue 12,
 * "Local event location"): the engine searches only the root functions that
 * changed sign over a step, from one evaluation per step; CRADLE_CHAIN_ROOTS=cvode
 * gives CVODE's root finding back.
 *
 * 1. Two equal Hertz balls (the steel of models/newton-cradle-5.yaml, the
 *    striker 10 µm away at V = 1 m/s): closing at t₀ = gap/V, maximum
 *    compression at t₀ + I δ_m/V and opening at t₀ + 2 I δ_m/V, with
 *    δ_m = (5μV²/(4K))^(2/5) and I = ∫₀¹ dx/√(1 − x^(5/2)) = (2/5) B(2/5, 1/2)
 *    (energy integral of μδ̈ = −Kδ^(3/2); Johnson, Contact Mechanics, §11.4:
 *    t_c = 2 I (5/4)^(2/5) (μ²/(K²V))^(1/5) = 3.218… (μ²/(K²V))^(1/5)), with
 *    both integration methods at rtol 1e-12. The located states: the overlap
 *    at the closing and the opening is the event margin 1e-12 δ* (docs/design.md,
 *    "Events") to 1e-13 δ*, the compression rate at the maximum 0 to 1e-12 V;
 *    an event reported at the end of its step instead would be off by about
 *    V h, 1e-2 δ* here.
 * 2. The engine's events and CVODE's (CRADLE_CHAIN_ROOTS=cvode) on the model
 *    files: the same kinds, contacts and order, the same count, times within
 *    1e-12 of the run's end time (CVODE's root tolerance is 100 ε (|t| + |h|),
 *    5e-14 of it where both integrate the same steps), and final velocities
 *    within 1e-12 V (measured: bit for bit); on the decorated chain, whose
 *    restarts make the two runs take different steps, within 1e-6.
 * 3. ERKStep's events against CVODES Adams' at rtol 1e-12 on five model
 *    files: the same kinds and contacts, times and velocities within the two
 *    integrations' errors (below).
 * 4. ERKStep's events at every tolerance on the cradle and the 3-ball chain
 *    (below), its final velocities against BDF at rtol 1e-13 and against the
 *    test's own integration (refchain.h: fixed-step RK4, no event location).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refchain.h"

/* The closing and opening margin, in δ* (src/base/base.h CR_EVENT_MARGIN). */
#define EVENT_MARGIN 1e-12

/* A finished run: its events and final velocities. */
typedef struct {
    size_t nev, nb;
    cr_event *ev;
    double *v, t;
} run_out;

static void out_free(run_out *o)
{
    free(o->ev);
    free(o->v);
}

/* Runs a copy of @p model (method, rtol when > 0) to t_end (0: automatic)
 * with CVODE's root finding when @p cvode. @return 0 on success. */
static int run(const cr_model *model, int method, double rtol, double t_end, int cvode, run_out *o)
{
    cr_model *m = cr_model_copy(model);
    cr_settings set = *cr_model_settings(m);
    if (method >= 0)
        set.method = (cr_method)method;
    if (rtol > 0.0) {
        set.rtol = rtol;
        set.atol = 1e-2 * rtol;
    }
    cr_model_set_settings(m, &set);
    if (cvode)
        setenv("CRADLE_CHAIN_ROOTS", "cvode", 1);
    char msg[256];
    cr_system *s = cr_system_create(m, msg, sizeof msg);
    unsetenv("CRADLE_CHAIN_ROOTS");
    int rc = -1;
    memset(o, 0, sizeof *o);
    if (s && cr_system_run(s, t_end) == CR_OK) {
        o->nev = cr_system_event_count(s);
        o->nb = cr_model_body_count(m);
        o->ev = malloc((o->nev + 1) * sizeof(cr_event));
        o->v = malloc(o->nb * sizeof(double));
        memcpy(o->ev, cr_system_events(s), o->nev * sizeof(cr_event));
        cr_system_get_velocities(s, o->v);
        o->t = cr_system_get_time(s);
        rc = 0;
    } else {
        printf("run failed: %s\n", s ? cr_system_last_error(s) : msg);
    }
    cr_system_destroy(s);
    cr_model_destroy(m);
    return rc;
}

/* Item 1: the Hertz pair's events against the closed form. */
static void test_hertz_pair(int method)
{
    const double r = 0.01, E = 2.1e11, nu = 0.3, mass = 0.0329, V = 1.0, gap = 1e-5;
    cr_model *m = cr_model_create();
    cr_model_add_ball(m, mass, r, 0.0, V);
    cr_model_add_ball(m, mass, r, 2 * r + gap, 0.0);
    double K = cr_contact_hertz_stiffness(E, nu, r, E, nu, r);
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    double mu = 0.5 * mass, dstar = pow(mu * V * V / K, 0.4);
    double dm = pow(5.0 * mu * V * V / (4.0 * K), 0.4);
    double I = 0.4 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9);
    double t0 = gap / V, tm = I * dm / V;
    tu_case("Hertz pair, method %d", method);
    run_out o;
    if (run(m, method, 1e-12, 0.0, 0, &o) != 0) {
        CHECK(0, "the Hertz pair ran");
        cr_model_destroy(m);
        return;
    }
    printf("method %d: t_c = %.6g s = %.6f (mu^2/(K^2 V))^(1/5)\n", method, 2 * tm,
           2 * tm / pow(mu * mu / (K * K * V), 0.2));
    CHECK(o.nev == 3 && o.ev[0].kind == CR_EVENT_CLOSE &&
              o.ev[1].kind == CR_EVENT_MAX_COMPRESSION && o.ev[2].kind == CR_EVENT_OPEN,
          "close, max-compression, open: %zu events", o.nev);
    if (o.nev == 3) {
        /* the closing follows a free flight, to the margin: exact but for
         * roundoff in scaled time (1e-13: the root tolerance 100 ε (|t| + |h|)) */
        CHECK_REL(o.ev[0].t, t0 + EVENT_MARGIN * dstar / V, 1e-13, "free flight: gap / V");
        CHECK_REL(o.ev[1].t - t0, tm, 1e-8, "Hertz: I delta_m / V");
        CHECK_REL(o.ev[2].t - t0, 2 * tm, 1e-8, "Hertz: t_c = 2 I delta_m / V");
        for (int k = 0; k < 3; k += 2)
            CHECK(fabs(o.ev[k].overlap - EVENT_MARGIN * dstar) <= 1e-13 * dstar,
                  "event %d: overlap %.3e, the margin %.3e (within 1e-13 delta*)", k,
                  o.ev[k].overlap, EVENT_MARGIN * dstar);
        CHECK(fabs(o.ev[1].rate) <= 1e-12 * V, "max compression: rate %.3e (<= 1e-12 V)",
              o.ev[1].rate);
    }
    tu_case(NULL);
    out_free(&o);
    cr_model_destroy(m);
}

/* Items 2 and 3: the events and final velocities of two runs of a model file
 * (method @p ma with the engine's search; @p mb with CVODE's when @p cvode_b).
 * @p tol_t, @p tol_v: the agreement of event times (of t_end) and velocities
 * (of V). */
static void test_same_events(const char *file, int ma, int mb, int cvode_b, double rtol,
                             double t_end, double tol_t, double tol_v)
{
    cr_model *m = tu_load_model(file);
    if (!m) {
        CHECK(0, "%s loads", file);
        return;
    }
    const char *other = cvode_b ? "CVODE's" : "the other method's";
    tu_case("%s, methods %d, %d%s, rtol %g", file, ma, mb, cvode_b ? " (CVODE roots)" : "", rtol);
    run_out a, b;
    int ra = run(m, ma, rtol, t_end, 0, &a), rb = run(m, mb, rtol, t_end, cvode_b, &b);
    CHECK(ra == 0 && rb == 0, "%s: both runs", file);
    if (ra == 0 && rb == 0) {
        int same = a.nev == b.nev;
        double dt = 0.0, dv = 0.0, V = 0.0;
        for (size_t k = 0; same && k < a.nev; k++) {
            same = a.ev[k].kind == b.ev[k].kind && a.ev[k].contact == b.ev[k].contact;
            dt = fmax(dt, fabs(a.ev[k].t - b.ev[k].t));
        }
        for (size_t i = 0; i < a.nb; i++) {
            dv = fmax(dv, fabs(a.v[i] - b.v[i]));
            V = fmax(V, fabs(b.v[i]));
        }
        CHECK_SELF(same,
                   "%s (methods %d, %d, rtol %g): %zu events, %s %zu, same kinds and contacts",
                   file, ma, mb, rtol, a.nev, other, b.nev);
        CHECK_SELF(dt <= tol_t * b.t && dv <= tol_v * V,
                   "%s: event times within %.2e of t_end (<= %.0e), velocities %.2e V (<= %.0e)",
                   file, dt / b.t, tol_t, dv / V, tol_v);
        printf("     %s methods %d, %d: %zu events, max |dt| %.2e t_end, max |dv| %.2e V\n", file,
               ma, mb, a.nev, dt / b.t, dv / V);
        /* to the automatic end, on the chains refchain.h covers: both runs against
         * the test's RK4, within 30 times the runs' rtol (the model's when not set;
         * measured up to 21 rtol on the cradle); the decorated chain's 20 beads and
         * its restarts at every damped closing, 300 (measured 190 rtol at 1e-10,
         * 47 at 1e-12: cradle converges to the RK4 numbers) */
        double est = NAN, rt = rtol > 0.0 ? rtol : cr_model_settings(m)->rtol;
        rt *= strcmp(file, "decorated-chain.yaml") == 0 ? 10.0 : 1.0;
        refchain rc;
        double vr[REFCHAIN_MAX], Pr[REFCHAIN_MAX];
        if (t_end == 0.0 && refchain_from_model(&rc, m) && rc.n <= 32 &&
            refchain_final(&rc, refchain_step(&rc, V, 4000.0), 1e3, vr, Pr, &est) > 0.0) {
            double ea = 0.0, eb = 0.0;
            for (size_t i = 0; i < a.nb; i++) {
                ea = fmax(ea, fabs(a.v[i] - vr[i]) / V);
                eb = fmax(eb, fabs(b.v[i] - vr[i]) / V);
            }
            est /= V;
            CHECK_REF(ea <= 30.0 * rt && eb <= 30.0 * rt && est <= rt,
                      "%s: final velocities vs RK4 (refchain.h) %.2e, %.2e V (<= 30 rtol = %.0e; "
                      "estimate %.1e)",
                      file, ea, eb, 30.0 * rt, est);
            printf("     %s: vs RK4 (refchain.h) %.2e, %.2e V\n", file, ea, eb);
        }
        out_free(&a);
        out_free(&b);
    }
    tu_case(NULL);
    cr_model_destroy(m);
}

static void test_same_as_cvode(const char *file, int method, double rtol, double t_end, double tol)
{
    test_same_events(file, method, method, 1, rtol, t_end, tol, tol);
}

/* Item 4: ERKStep's events hold at every tolerance. Each event's step is
 * taken again to end at the root, and the state there may show a located
 * function on its old side: without moving it onto the new side a contact
 * that opened still read as loaded and the run went on to its stop time (the
 * cradle at rtol 1e-8, the 3-ball chain at 1e-6), and without the handlers
 * taking the located direction a touching contact's wake-up was lost (9 or 3
 * events). A chain of n − 1 contacts touched by a pulse, rtol 1e-5 … 1e-11
 * (atol rtol/100): 3 (n − 1) events, close, max-compression and open per
 * contact in that order, the automatic end, and final velocities within
 * 3 rtol·V of BDF at rtol 1e-13 (measured on the cradle 0.08 … 0.47 rtol
 * from 1e-5 to 1e-10, 1.7 rtol at 1e-11; with the event states read from the
 * interpolant instead, 1.5 rtol at 1e-8 and 15 at 1e-9). */
static void test_erk_tolerances(const char *file)
{
    cr_model *m = tu_load_model(file);
    if (!m) {
        CHECK(0, "%s loads", file);
        return;
    }
    run_out ref;
    tu_case("%s, ERK at every tolerance", file);
    refchain rc;
    double vr[REFCHAIN_MAX], Pr[REFCHAIN_MAX], est = NAN;
    int have = refchain_from_model(&rc, m) &&
               refchain_final(&rc, refchain_step(&rc, 1.0, 4000.0), 1e3, vr, Pr, &est) > 0.0;
    CHECK(have && est <= 1e-12, "%s: RK4 reference (estimate %.1e)", file, est);
    if (run(m, CR_METHOD_BDF, 1e-13, 0.0, 0, &ref) != 0) {
        CHECK(0, "%s: the BDF reference ran", file);
        cr_model_destroy(m);
        return;
    }
    size_t nc = ref.nb - 1;
    for (double rtol = 1e-5; rtol > 5e-12; rtol /= 10.0) {
        run_out o;
        if (run(m, CR_METHOD_ERK, rtol, 0.0, 0, &o) != 0) {
            CHECK(0, "%s: ERK at rtol %g ran", file, rtol);
            continue;
        }
        int *seen = calloc(nc, sizeof(int)), order = seen && o.nev == 3 * nc;
        for (size_t k = 0; k < o.nev && order; k++) {
            size_t c = o.ev[k].contact;
            static const cr_event_kind seq[] = {CR_EVENT_CLOSE, CR_EVENT_MAX_COMPRESSION,
                                                CR_EVENT_OPEN};
            order = c < nc && seen[c] < 3 && o.ev[k].kind == seq[seen[c]];
            seen[c] += order;
        }
        free(seen);
        double dv = 0.0, dr = 0.0;
        for (size_t i = 0; i < o.nb; i++) {
            dv = fmax(dv, fabs(o.v[i] - ref.v[i]));
            dr = fmax(dr, have ? fabs(o.v[i] - vr[i]) : INFINITY);
        }
        CHECK(order && fabs(o.t - ref.t) <= 1e-3 * ref.t,
              "%s, ERK rtol %g: %zu events, close/max/open per contact, ends at %.6g s (BDF %.6g)",
              file, rtol, o.nev, o.t, ref.t);
        CHECK_SELF(dv <= 3.0 * rtol,
                   "%s, ERK rtol %g: final velocities within %.2e V of BDF (<= 3 rtol)", file, rtol,
                   dv);
        CHECK_REF(dr <= 3.0 * rtol,
                  "%s, ERK rtol %g: final velocities within %.2e V of RK4 (refchain.h; <= 3 rtol)",
                  file, rtol, dr);
        out_free(&o);
    }
    tu_case(NULL);
    out_free(&ref);
    cr_model_destroy(m);
}

int main(void)
{
    test_erk_tolerances("newton-cradle-5.yaml");
    test_erk_tolerances("three-ball-chain.yaml");
    test_hertz_pair(CR_METHOD_ADAMS_FIXED_POINT);
    test_hertz_pair(CR_METHOD_BDF);
    test_hertz_pair(CR_METHOD_ERK);
    /* CVODE's root finding runs under CVODES only: Adams where auto runs ERK */
    test_same_as_cvode("newton-cradle-5.yaml", CR_METHOD_ADAMS_FIXED_POINT, 0.0, 0.0, 1e-12);
    test_same_as_cvode("newton-cradle-5.yaml", CR_METHOD_ADAMS_FIXED_POINT, 1e-7, 0.0, 1e-12);
    test_same_as_cvode("newton-cradle-5.yaml", CR_METHOD_BDF, 1e-8, 0.0, 1e-12);
    test_same_as_cvode("three-ball-chain.yaml", CR_METHOD_ADAMS_FIXED_POINT, 0.0, 0.0, 1e-12);
    test_same_as_cvode("damped-cradle.yaml", -1, 0.0, 0.0, 1e-12);
    test_same_as_cvode("dashpot-pair.yaml", -1, 0.0, 0.0, 1e-12);
    test_same_as_cvode("pendulum-cradle-3.yaml", -1, 0.0, 0.5, 1e-12);
    test_same_as_cvode("glocker-rods.yaml", -1, 0.0, 0.0, 1e-12);
    /* Its damped contact restarts the history at each closing (a force
     * jump): a restart a root tolerance later starts other steps, and the
     * two runs part by their integration errors (rtol 1e-10 on 20 beads:
     * 5.7e-9 V, 8.9e-8 of t_end measured), not by roundoff. */
    test_same_as_cvode("decorated-chain.yaml", -1, 0.0, 0.0, 1e-6);
    /* item 3: ERKStep against CVODES Adams at rtol 1e-12, two integrations
     * within their errors (the solitary wave's tail closes its last contacts
     * at relative speeds of 1e-7 V: their times are ill-conditioned) */
    int erk = CR_METHOD_ERK, adams = CR_METHOD_ADAMS_FIXED_POINT;
    test_same_events("newton-cradle-5.yaml", erk, adams, 0, 1e-12, 0.0, 1e-9, 1e-9);
    test_same_events("three-ball-chain.yaml", erk, adams, 0, 1e-12, 0.0, 1e-9, 1e-9);
    test_same_events("bead-column.yaml", erk, adams, 0, 1e-12, 0.004, 1e-9, 1e-9);
    test_same_events("pendulum-cradle.yaml", erk, adams, 0, 1e-12, 2.0, 1e-9, 1e-9);
    test_same_events("solitary-wave.yaml", erk, adams, 0, 1e-12, 0.0, 1e-6, 1e-9);
    return tu_finish("events");
}
