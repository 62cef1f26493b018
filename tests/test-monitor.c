/*
 * The one impact-episode monitor, on chains and pools through cr_system:
 * impulses, impulse ratios and restitution measured on compliant runs, checked
 * against single-contact theory, 001 eq. 18, the impulse balance, scaling
 * invariance (001 eq. 21 remark 2b), 001 eq. 42 for the pool's kinetic angle,
 * free flight between episodes, pendulum and rod episode counts, the chain
 * engine's table reproduced by the pool engine, and the static-preload rule.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"
#include "refchain.h"

/* ---- a run, and the state at every root return (the test's own listener) ---- */

#define MAXB 12

typedef struct {
    double t, D, U;
    double x[2 * MAXB], v[2 * MAXB];
} frame;

typedef struct {
    cr_model *model;
    cr_system *sys;
    cr_monitor *mon;
    frame *f;
    size_t nf, fcap;
} run_t;

/* Records (t, dissipated work, potential energy, positions, velocities) at
 * every root return: the independent side of the energy and kinematics checks. */
static int log_frame(const cr_system *sys, size_t first, void *user)
{
    run_t *r = user;
    (void)first;
    if (cr_system_body_count(sys) > MAXB)
        return CR_OK;
    if (r->nf == r->fcap) {
        r->fcap = r->fcap ? 2 * r->fcap : 64;
        r->f = realloc(r->f, r->fcap * sizeof(frame));
        if (!r->f)
            return CR_ERR_NOMEM;
    }
    frame *f = &r->f[r->nf++];
    f->t = cr_system_get_time(sys);
    f->D = cr_system_dissipated_work(sys);
    f->U = cr_system_potential_energy(sys);
    cr_system_get_positions(sys, f->x);
    cr_system_get_velocities(sys, f->v);
    return CR_OK;
}

/* The last frame logged at time t (episodes start and end at root returns). */
static const frame *frame_at(const run_t *r, double t)
{
    for (size_t k = r->nf; k-- > 0;)
        if (r->f[k].t == t)
            return &r->f[k];
    return NULL;
}

static run_t run_model(cr_model *model, double rtol, double atol)
{
    run_t r = {model, NULL, NULL, NULL, 0, 0};
    cr_settings s = *cr_model_settings(model);
    s.rtol = rtol;
    s.atol = atol;
    cr_model_set_settings(model, &s);
    char msg[512];
    r.sys = cr_system_create(model, msg, sizeof msg);
    if (!r.sys) {
        printf("FAIL: %s\n", msg);
        exit(1);
    }
    r.mon = cr_monitor_create(r.sys);
    CHECK(r.mon != NULL, "monitor");
    return r;
}

static void run_it(run_t *r, double t_end)
{
    cr_system_add_event_listener(r->sys, log_frame, r);
    CHECK(cr_system_run(r->sys, t_end) == CR_OK, "run: %s", cr_system_last_error(r->sys));
    CHECK(cr_monitor_finish(r->mon) == CR_OK, "finish: %s", cr_monitor_last_error(r->mon));
}

static run_t run(cr_model *model, double rtol, double atol, double t_end)
{
    run_t r = run_model(model, rtol, atol);
    run_it(&r, t_end);
    return r;
}

static void done(run_t *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
    cr_model_destroy(r->model);
    free(r->f);
}

static cr_model *chain(int n, const double *m, const double *x, const double *v,
                       const cr_contact_params *law)
{
    cr_model *model = cr_model_create();
    for (int i = 0; i < n; i++)
        cr_model_add_ball(model, m[i], 0.01, x[i], v[i]);
    cr_model_set_default_contact(model, law);
    return model;
}

/* The same bodies as a dim-2 model, centres on the x-axis. */
static cr_model *chain_2d(int n, const double *m, const double *x, const double *v,
                          const cr_contact_params *law)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    for (int i = 0; i < n; i++) {
        double xy[2] = {x[i], 0.0}, vv[2] = {v[i], 0.0};
        cr_model_add_body(model, m[i], 0.01, xy, vv);
    }
    cr_model_set_default_contact(model, law);
    return model;
}

/* M(u⁺ − u⁻) = W P for episode k, W from the normals at joining (or, with
 * vector = 1, the vector impulses ∫ f n dt): worst residual over the moving
 * bodies relative to the largest m|u⁻|. */
static double balance(const cr_monitor *mon, size_t k, int dim, int vector)
{
    size_t nb, nr;
    const size_t *bodies = cr_monitor_bodies(mon, k, &nb);
    const double *m = cr_monitor_masses(mon, k, &nb);
    const double *u0 = cr_monitor_velocities(mon, k, 0, &nb);
    const double *u1 = cr_monitor_velocities(mon, k, 1, &nb);
    const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nr);
    const double *vec = cr_monitor_vector_impulses(mon, k, &nr);
    const double *nrm = cr_monitor_normals(mon, k, &nr);
    double worst = 0.0, scale = 0.0;
    for (size_t q = 0; q < nb; q++) {
        if (isinf(m[q]))
            continue;
        for (int d = 0; d < dim; d++) {
            double wp = 0.0;
            for (size_t c = 0; c < nr; c++) {
                double s = (long)bodies[q] == rec[c].body_b ? 1.0
                           : bodies[q] == rec[c].body_a     ? (rec[c].body_b < 0 ? 1.0 : -1.0)
                                                            : 0.0;
                wp += s * (vector ? vec[c * dim + d] : rec[c].impulse * nrm[c * dim + d]);
            }
            worst = fmax(worst, fabs(m[q] * (u1[q * dim + d] - u0[q * dim + d]) - wp));
            scale = fmax(scale, fabs(m[q] * u0[q * dim + d]));
        }
    }
    return worst / scale;
}

/* ---- single contacts, 001 eq. 18, scaling ------------------------------------- */

/* Single frictionless contact, against the test's own integration of the pair
 * (refchain.h: fixed-step RK4, no event location, its impulse ∫ f dt by the
 * stages' weights): eᴺ = γ⁺/|γ⁻| of the RK4 velocities, eᴾ = eᴺ for one contact
 * (000 sect. 7), the energy of the relative motion drops by e², the impulse is
 * the RK4 ∫ f dt, and the compression impulse is μ|γ⁻| (the relative velocity
 * is 0 at maximal compression: closed form); the linear dashpot also gives
 * exp(−πζ/√(1−ζ²)). Tolerance 1e-8 (RK4 estimate below 1e-10 of |γ⁻| at
 * δ* / V / 16000: the damper's √δ at the ends slows its convergence). */
static void two_balls(const char *name, const cr_contact_params *law, double e_exact)
{
    const double m[2] = {2.0, 3.0}, x[2] = {0.0, 0.0201}, v[2] = {1.5, -0.5};
    const double mu = m[0] * m[1] / (m[0] + m[1]), g0 = v[1] - v[0];
    tu_case("%s", name);
    cr_model *model = chain(2, m, x, v, law);
    refchain rc;
    double vr[2], Pr[1], est = NAN;
    int have = refchain_from_model(&rc, model) &&
               refchain_final(&rc, refchain_step(&rc, -g0, 16000.0), 1.0, vr, Pr, &est) > 0.0;
    double e_rk4 = (vr[1] - vr[0]) / -g0;
    CHECK(have && est <= 1e-10 * -g0, "%s: RK4 reference (estimate %.2e)", name, est);
    run_t r = run(model, 1e-12, 1e-14, 0.0);
    CHECK(cr_monitor_episode_count(r.mon) == 1, "%s: one episode, got %zu", name,
          cr_monitor_episode_count(r.mon));
    cr_episode_info info;
    size_t nc;
    cr_monitor_get_episode(r.mon, 0, &info);
    const cr_contact_record *c = cr_monitor_contacts(r.mon, 0, &nc);
    char ref[160];
    snprintf(ref, sizeof ref, "%s: eN = gamma+/|gamma-| of the RK4 pair", name);
    CHECK_REL(c->newton, e_rk4, 1e-8, ref);
    snprintf(ref, sizeof ref, "%s: eP = eN (000 sect. 7) of the RK4 pair", name);
    CHECK_REL(c->poisson, e_rk4, 1e-8, ref);
    /* relative-motion energy T − p²/(2M) */
    double M = m[0] + m[1], p = m[0] * v[0] + m[1] * v[1];
    double Trel0 = info.T_minus - p * p / (2 * M), Trel1 = info.T_plus - p * p / (2 * M);
    snprintf(ref, sizeof ref, "%s: T_rel+/T_rel- = e^2 of the RK4 pair", name);
    CHECK_REL(Trel1 / Trel0, e_rk4 * e_rk4, 1e-8, ref);
    snprintf(ref, sizeof ref, "%s: P = RK4 int f dt", name);
    CHECK_REL(c->impulse, Pr[0], 1e-8, ref);
    snprintf(ref, sizeof ref, "%s: compression impulse = mu |gamma-| (closed form)", name);
    CHECK_REL(c->compression, mu * -g0, 1e-8, ref);
    /* energy invariant: the kinetic energy lost = the damper work integrated by
     * the engine's quadrature + the elastic energy still stored at the end */
    const frame *f0 = frame_at(&r, info.t_start), *f1 = frame_at(&r, info.t_end);
    CHECK(f0 && f1, "%s: frames at t_start, t_end", name);
    if (f0 && f1) {
        snprintf(ref, sizeof ref, "%s: dissipated = quadrature + stored elastic (invariant)", name);
        CHECK_REL_INV(info.dissipated, f1->D - f0->D + f1->U - f0->U, 1e-8, ref);
    }
    CHECK(fabs(info.field_work) <= 1e-10 * info.T_minus,
          "%s: no field, field work %.3g J (<= 1e-10 T-)", name, info.field_work);
    if (!isnan(e_exact)) {
        snprintf(ref, sizeof ref, "%s: analytic restitution", name);
        CHECK_REL(c->newton, e_exact, 1e-8, ref);
    }
    CHECK_INV(balance(r.mon, 0, 1, 0) < 1e-10, "%s: impulse balance %.3g", name,
              balance(r.mon, 0, 1, 0));
    CHECK(c->flags == 0 && info.complete, "%s: coefficients defined, ended by the rule", name);
    tu_case(NULL);
    done(&r);
}

/* 001 eq. 18 (corrected sign of q̇₃⁺, seeds/README) from the measured α and κ. */
static void eq18(double e, double a, double *v)
{
    double D = -1 + 2 * e - 2 * a * e + 2 * a + 2 * a * a * e - 2 * a * a;
    double s = (1 + sqrt(D)) / (2 * (1 - a + a * a));
    v[0] = 1 - s;
    v[1] = -s * (a - 1);
    v[2] = s * a;
}

/* The three Hertz balls at K × kscale, m × mscale; u⁺, κ of the episode, and in
 * @p ref the test's RK4 integration of the same chain (refchain.h): u⁺, and α as
 * the ratio of its contact impulses ∫ f dt. */
static double three_ball_alpha(double kscale, double mscale, double *uplus, double *kappa,
                               double *ref)
{
    const double m[3] = {mscale, mscale, mscale};
    const double x[3] = {0.0, 0.02 + 1e-5, 0.04 + 1e-5}, v[3] = {1.0, 0, 0};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9 * kscale, 1.5, 0.0, CR_RELEASE_GAP);
    tu_case("3 balls, K x %g, m x %g", kscale, mscale);
    cr_model *model = chain(3, m, x, v, &law);
    if (ref) {
        refchain rc;
        double P[2], est = NAN;
        CHECK(refchain_from_model(&rc, model) &&
                  refchain_final(&rc, refchain_step(&rc, 1.0, 4000.0), 1.0, ref, P, &est) > 0.0 &&
                  est <= 1e-11,
              "RK4 reference of the 3 balls: estimate %.2e", est);
        ref[3] = P[1] / P[0];
    }
    run_t r = run(model, 1e-12, 1e-14, 0.0);
    CHECK(cr_monitor_episode_count(r.mon) == 1, "3 balls: one episode, got %zu",
          cr_monitor_episode_count(r.mon));
    cr_episode_info info;
    cr_monitor_get_episode(r.mon, 0, &info);
    size_t nc, nb;
    const cr_contact_record *c = cr_monitor_contacts(r.mon, 0, &nc);
    const double *u1 = cr_monitor_velocities(r.mon, 0, 1, &nb);
    if (uplus)
        memcpy(uplus, u1, 3 * sizeof(double));
    if (kappa)
        *kappa = info.kappa;
    CHECK(info.reference == 0 && info.reference_record == 0 && nc == 2 && info.complete,
          "reference contact 0, 2 contacts");
    double a = c[1].alpha;
    CHECK_INV(balance(r.mon, 0, 1, 0) < 1e-10, "3 balls: impulse balance %.3g",
              balance(r.mon, 0, 1, 0));
    /* the alpha matrix's reference row is the records' alpha; the kinetic angle
     * of contacts (0,1), (1,2) for equal masses: cos = −√(m₁m₃/((m₁+m₂)(m₂+m₃))) = −½ */
    double A[4], cs[4];
    CHECK(cr_monitor_alpha_matrix(r.mon, 0, A) == CR_OK &&
              cr_monitor_kinetic_cosines(r.mon, 0, cs) == CR_OK,
          "alpha matrix and cosines");
    CHECK_SELF(A[1] == c[1].alpha && A[0] == 1.0 && fabs(A[2] * A[1] - 1.0) < 1e-15,
               "alpha matrix: row 0 = records' alpha, a10 a01 = 1");
    if (kscale == 1.0)
        CHECK_REL(cs[1], -0.5, 1e-15, "kinetic cosine, equal masses: -1/2 (001 eq. 42)");
    tu_case(NULL);
    done(&r);
    return a;
}

static void three_balls(void)
{
    double u[3], kappa, ref[4];
    double alpha = three_ball_alpha(1.0, 1.0, u, &kappa, ref);
    printf("     3 Hertz balls: alpha = %.10f, kappa = %.12f, u+ = (%.8f, %.8f, %.8f); RK4: alpha "
           "%.10f, u+ = (%.8f, %.8f, %.8f)\n",
           alpha, kappa, u[0], u[1], u[2], ref[3], ref[0], ref[1], ref[2]);
    /* the monitor's u⁺ and α against the independent integration */
    for (int i = 0; i < 3; i++)
        CHECK_REL(u[i], ref[i], 1e-8, "u+ of the RK4 integration (refchain.h)");
    CHECK_REL(alpha, ref[3], 1e-8, "alpha = P_12 / P_01 of the RK4 integration");
    /* undamped: the kinetic energy comes back */
    CHECK_REL_INV(kappa, 1.0, 1e-9, "undamped: kappa = 1");
    /* eq. 18 holds for any 3-ball outcome with these α, κ (momentum, energy and
     * the impulse ratio): an identity of the monitor's numbers */
    double w[3];
    eq18(kappa, alpha, w);
    for (int i = 0; i < 3; i++)
        CHECK_REL_INV(w[i], u[i], 1e-8, "001 eq. 18 from measured (alpha, kappa) = compliant u+");
    /* α does not depend on the scale of K and m (001 eq. 21, remark 2b) */
    double a2 = three_ball_alpha(1e6, 1e-2, NULL, NULL, NULL);
    CHECK_REL_SELF(a2, alpha, 1e-8, "alpha invariant under K x 1e6, m x 1e-2 (001 eq. 21 2b)");
}

/* ---- segmentation ---------------------------------------------------------------- */

/* The 5-ball cradle is one episode; 1 → 2 → 3 with gaps is two, the second
 * starting when ball 2's free flight closes the gap to ball 3. */
static void segmentation(void)
{
    const double m5[5] = {1, 1, 1, 1, 1},
                 x5[5] = {0, 0.02 + 1e-5, 0.04 + 1e-5, 0.06 + 1e-5, 0.08 + 1e-5};
    const double v5[5] = {1, 0, 0, 0, 0};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    run_t r = run(chain(5, m5, x5, v5, &law), 1e-11, 1e-13, 0.0);
    CHECK(cr_monitor_episode_count(r.mon) == 1, "cradle: one episode, got %zu",
          cr_monitor_episode_count(r.mon));
    cr_episode_info info;
    cr_monitor_get_episode(r.mon, 0, &info);
    size_t nb, nr;
    const size_t *bodies = cr_monitor_bodies(r.mon, 0, &nb);
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &nr);
    CHECK(nb == 5 && bodies[0] == 0 && bodies[4] == 4 && nr == 4, "the whole cradle is the group");
    CHECK_REL_INV(info.kappa, 1.0, 1e-9, "undamped cradle: kappa = 1");
    /* the four balls at rest: γ⁻ = 0 up to roundoff, eN undefined */
    int rest = 1;
    for (size_t c = 1; c < nr; c++)
        rest &= isnan(rec[c].newton) && (rec[c].flags & CR_RECORD_AT_REST);
    CHECK(rest && !(rec[0].flags & CR_RECORD_AT_REST), "touching contacts at rest flagged");
    size_t nev;
    cr_monitor_events(r.mon, 0, &nev);
    CHECK(nev == cr_system_event_count(r.sys), "every event belongs to the episode");
    done(&r);

    /* equal Hertz balls exchange velocities: 1 stops, 2 flies and hits 3 later */
    const double m3[3] = {1, 1, 1}, x3[3] = {0, 0.021, 0.043}, v3[3] = {1, 0, 0};
    r = run(chain(3, m3, x3, v3, &law), 1e-11, 1e-13, 0.0);
    CHECK(cr_monitor_episode_count(r.mon) == 2, "two collisions, got %zu episodes",
          cr_monitor_episode_count(r.mon));
    for (size_t k = 0; k < cr_monitor_episode_count(r.mon) && k < 2; k++) {
        cr_monitor_get_episode(r.mon, k, &info);
        rec = cr_monitor_contacts(r.mon, k, &nr);
        CHECK(info.reference == k && nr == 1 && rec[0].contact == k,
              "episode %zu: contact %zu alone", k, k);
        CHECK_INV(balance(r.mon, k, 1, 0) < 1e-10, "impulse balance of episode %zu", k);
    }
    cr_episode_info first;
    cr_monitor_get_episode(r.mon, 0, &first);
    cr_monitor_get_episode(r.mon, 1, &info);
    /* closed form: ball 0 reaches ball 1 at t = 1 mm / V; the Hertz contact lasts
     * t_c = 2√π Γ(7/5)/Γ(9/10) δmax/V (μ = 1/2); the pair's centre moves at V/2
     * and the two touch again at the opening, so ball 1 leaves at
     * x = 0.021 + V t_c/2 and flies at V to ball 2 (at 0.043): the second
     * episode starts at 3e-3 + t_c/2 s and the first ends at 1e-3 + t_c s */
    double dmax = pow(5.0 * 0.5 / (4.0 * 1e9), 0.4);
    double tc = 2.0 * sqrt(M_PI) * tgamma(1.4) / tgamma(0.9) * dmax;
    CHECK_REL(first.t_end, 1e-3 + tc, 1e-9, "first episode ends at gap/V + Hertz t_c");
    CHECK_REL(info.t_start, 3e-3 + 0.5 * tc, 1e-9,
              "second episode starts at 3e-3 + t_c/2 s (free flight at V after the exchange)");
    /* and the monitor's own kinematics: the frame at the first end */
    const frame *f = frame_at(&r, first.t_end);
    CHECK(f != NULL, "frame at the first episode's end");
    if (f) {
        double gap = f->x[2] - f->x[1] - 0.02, t = first.t_end + gap / (f->v[1] - f->v[2]);
        CHECK_REL_SELF(info.t_start, t, 1e-9, "second episode starts after free flight");
    }
    done(&r);
}

/* Two collisions that meet merge into one episode: the older start and its
 * reference contact are kept. Contact 2 closes at 1e-5 s, contact 0 at 2e-5 s,
 * and contact 1 while both are loaded (a contact lasts ~6e-4 s here). */
static void merging(void)
{
    const double m[4] = {1, 1, 1, 1}, v[4] = {1, 0, 0, -1};
    const double x[4] = {0, 0.02 + 2e-5, 0.04 + 3e-5, 0.06 + 4e-5};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    run_t r = run(chain(4, m, x, v, &law), 1e-12, 1e-14, 0.0);
    cr_episode_info in = {0};
    size_t nb = 0, nr = 0;
    CHECK(cr_monitor_episode_count(r.mon) == 1 && cr_monitor_get_episode(r.mon, 0, &in) == CR_OK,
          "merged: one episode, got %zu", cr_monitor_episode_count(r.mon));
    cr_monitor_bodies(r.mon, 0, &nb);
    cr_monitor_contacts(r.mon, 0, &nr);
    CHECK(in.reference == 2 && nb == 4 && nr == 3, "the older collision's reference (2), 4 balls");
    CHECK_REL(in.t_start, 1e-5, 1e-9, "starts when the right pair closes: gap / speed");
    CHECK_REL_INV(in.kappa, 1.0, 1e-9, "undamped: kappa = 1");
    CHECK_INV(balance(r.mon, 0, 1, 0) < 1e-10, "merged: impulse balance %.3g",
              balance(r.mon, 0, 1, 0));
    done(&r);
}

/* Impulse balance on every episode of a damped, decorated chain. */
static void decorated(void)
{
    char path[512], msg[512];
    snprintf(path, sizeof path, "%s/../../models/decorated-chain.yaml", CR_TEST_DATA);
    cr_model *model = NULL;
    CHECK(cr_modelfile_load(path, &model, NULL, msg, sizeof msg) == CR_OK, "%s", msg);
    run_t r = run(model, 1e-12, 1e-14, 0.0);
    size_t n = cr_monitor_episode_count(r.mon);
    double worst = 0;
    for (size_t k = 0; k < n; k++)
        worst = fmax(worst, balance(r.mon, k, 1, 0));
    int f0 = tu_failed;
    CHECK_INV(n >= 1 && worst < 1e-10, "decorated chain: %zu episodes, worst balance %.3g", n,
              worst);
    tu_summary(f0, "decorated chain: %zu episodes, M(u+ - u-) = W P to %.2e (<= 1e-10)", n, worst);
    /* the rigid-law configuration of the first episode reproduces gamma- */
    cr_impact *imp = cr_monitor_impact(r.mon, 0);
    size_t nc;
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &nc);
    double g[64];
    CHECK(imp && cr_impact_contact_count(imp) == nc && nc <= 64, "impact configuration");
    if (imp && nc <= 64) {
        cr_impact_get_gamma(imp, g);
        for (size_t c = 0; c < nc; c++)
            CHECK_SELF(fabs(g[c] - rec[c].gamma_minus) <= 1e-15, "gamma- of contact %zu", c);
    }
    cr_impact_destroy(imp);
    done(&r);
}

/* ---- fields and links (moved from test-fields with the monitor) ----------------- */

static double ellint_K(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return M_PI / (2.0 * a);
}

/* Glocker (000 sect. 3) rods, lumped: the contact between the rods chatters
 * while the rods still approach; the settling time keeps it one episode. */
static void glocker_rods(void)
{
    int f0 = tu_failed;
    for (int n1 = 4; n1 <= 32; n1 *= 2) {
        tu_case("rods n1 = %d", n1);
        int n2 = 2 * n1;
        double dx = 1.0 / n1, k = 1.0 / dx, m = dx;
        cr_model *model = cr_model_create();
        for (int i = 0; i < n1 + n2; i++)
            cr_model_add_ball(model, m, 0.5 * dx, dx * i, i < n1 ? 1.0 : 0.0);
        cr_link link = {.k = k, .length = dx, .c = 0.0};
        for (int i = 0; i + 1 < n1 + n2; i++)
            if (i != n1 - 1)
                cr_model_set_link(model, (size_t)i, &link);
        cr_contact_params law;
        cr_contact_params_init(&law, 100.0 * k, 1.0, 0.0, CR_RELEASE_GAP);
        cr_model_set_default_contact(model, &law);
        run_t r = run(model, 1e-10, 1e-12, 0.0);
        size_t nr = 0;
        cr_episode_info in = {0};
        cr_monitor_get_episode(r.mon, 0, &in);
        cr_monitor_contacts(r.mon, 0, &nr);
        CHECK(cr_monitor_episode_count(r.mon) == 1 && nr == 1 && in.reference == (size_t)n1 - 1,
              "rods n1 = %d: one episode on the one unilateral contact, got %zu episodes", n1,
              cr_monitor_episode_count(r.mon));
        /* field-free: the links' impulses cancel within each rod */
        CHECK_INV(fabs(in.field_work) <= 1e-9 * in.T_minus, "rods n1 = %d: field work %.3g J", n1,
                  in.field_work);
        done(&r);
    }
    tu_case(NULL);
    tu_summary(f0, "Glocker rods n1 = 4 .. 32: one episode each");
}

/* Two equal pendulums touching at rest; one released at θ₀ collides every half
 * period: 20 episodes in 10 T, the first at T/4 (exact period, elliptic K). The
 * fields' work during an episode is the drop of pendulum potential of its balls. */
static void two_pendulums(void)
{
    const double Lp = 0.3, g = 9.81, r = 0.01, theta0 = 0.05, m = 0.03;
    double T = 4.0 * sqrt(Lp / g) * ellint_K(sin(theta0 / 2));
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m, r, -Lp * theta0, 0.0);
    cr_model_add_ball(model, m, r, 2 * r, 0.0);
    cr_model_set_pendulum(model, 0, 0.0, Lp, g);
    cr_model_set_pendulum(model, 1, 2 * r, Lp, g);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    run_t rr = run(model, 1e-10, 1e-12, 10 * T);
    size_t n = cr_monitor_episode_count(rr.mon);
    CHECK_REF(n == 20, "collisions at T/4 + k T/2: 20 in 10 T, got %zu", n);
    cr_episode_info in;
    if (cr_monitor_get_episode(rr.mon, 0, &in) == CR_OK)
        CHECK_REL(in.t_start, 0.25 * T, 1e-8, "first collision at T/4 (exact pendulum)");
    double worst_w = 0.0, worst_k = 0.0, raw_min = INFINITY, wmax = 0.0;
    for (size_t k = 0; k < n; k++) {
        cr_monitor_get_episode(rr.mon, k, &in);
        const frame *f0 = frame_at(&rr, in.t_start), *f1 = frame_at(&rr, in.t_end);
        if (!f0 || !f1)
            continue;
        /* V = m g L (1 − cos((x − pivot)/L)) per ball; W = −ΔV */
        double W = 0.0;
        const double piv[2] = {0.0, 2 * r};
        for (int i = 0; i < 2; i++)
            W -= m * g * Lp * (cos((f0->x[i] - piv[i]) / Lp) - cos((f1->x[i] - piv[i]) / Lp));
        worst_w = fmax(worst_w, fabs(in.field_work - W));
        wmax = fmax(wmax, fabs(W));
        worst_k = fmax(worst_k, fabs(in.kappa - 1.0));
        raw_min = fmin(raw_min, fabs(in.T_plus / in.T_minus - 1.0));
    }
    printf("     two pendulums: field work up to %.3g J, = -dV of the pendulums to %.3g J; "
           "|T+/T- - 1| >= %.3g, |kappa - 1| <= %.3g\n",
           wmax, worst_w, raw_min, worst_k);
    /* the mean-force estimate is exact for a uniform field; for these equal
     * balls exchanging velocities its first-order error cancels between them */
    CHECK_INV(worst_w <= 1e-4 * wmax, "field work = pendulum potential drop (1e-4): %.3g of %.3g J",
              worst_w, wmax);
    /* invariant: undamped, T⁺ − W = T⁻; raw T⁺/T⁻ is off by W/T⁻ ≥ 1e-6 */
    CHECK_INV(worst_k <= 1e-7 && raw_min > 10 * worst_k,
              "kappa = (T+ - W)/T- = 1 (undamped) to %.3g, T+/T- off by >= %.3g", worst_k, raw_min);
    done(&rr);
}

/* A column of 10 touching beads falling on a floor under gravity: one episode
 * (until the bottom bead could fall back, 2v/g later), every bead in it from
 * the start; the inner contacts only touched (γ⁻ = 0): eN undefined. */
static void bead_column(void)
{
    const double r = 0.005, m = 0.004, v0 = 0.5, g = 9.81;
    cr_model *model = cr_model_create();
    cr_model_add_wall(model, 0.0);
    for (int i = 0; i < 10; i++)
        cr_model_add_ball(model, m, r, r + 1e-4 + 2 * r * i, -v0);
    cr_contact_params law;
    cr_contact_params_init(&law, 5e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_model_set_gravity(model, -g);
    run_t rr = run(model, 1e-10, 1e-12, 4e-3);
    CHECK(cr_monitor_episode_count(rr.mon) == 1, "bead column: one episode, got %zu",
          cr_monitor_episode_count(rr.mon));
    cr_episode_info in;
    if (cr_monitor_get_episode(rr.mon, 0, &in) == CR_OK) {
        size_t nb, nr;
        const size_t *b = cr_monitor_bodies(rr.mon, 0, &nb);
        const cr_contact_record *rec = cr_monitor_contacts(rr.mon, 0, &nr);
        CHECK(nb == 11 && b[0] == 0 && b[10] == 10 && in.complete && in.reference == 0,
              "the wall and all beads, floor contact the reference, ended by the rule");
        cr_impact *imp = cr_monitor_impact(rr.mon, 0);
        CHECK(imp && cr_impact_dof_count(imp) == 10 && cr_impact_contact_count(imp) == 10,
              "impact configuration: 10 moving beads, 10 contacts (one with the wall)");
        cr_impact_destroy(imp);
        int rest = nr == 10 && isfinite(rec[0].newton);
        for (size_t c = 1; c < nr; c++)
            rest &= isnan(rec[c].newton) && (rec[c].flags & CR_RECORD_AT_REST) &&
                    fabs(rec[c].gamma_minus) < 1e-9 * v0;
        CHECK(rest, "inner contacts touching at rest: gamma- = 0, eN NaN (was 5694)");
        /* gravity's work on the column during the episode: Σ m g Δx */
        const frame *f0 = frame_at(&rr, in.t_start), *f1 = frame_at(&rr, in.t_end);
        if (f0 && f1) {
            double W = 0.0;
            for (int i = 1; i <= 10; i++)
                W += -m * g * (f1->x[i] - f0->x[i]);
            CHECK_REL_INV(in.field_work, W, 1e-6, "field work = sum m g dx (uniform gravity)");
        }
    }
    done(&rr);
}

/* Static preload (issue 8): ball B rests on a floor under gravity, ball A falls
 * onto it (B starts touching the floor, so it sinks into its static overlap). The floor contact
 * closes at once under B's weight (a few 1e-9 s, at ~1e-8 m/s): no episode. The impact is A on B:
 * reference contact A–B; the floor contact joins loaded at rest, its eN is undefined. */
static void preload(int damped)
{
    const double r = 0.01, m = 0.0329, g = 9.81, v0 = 0.5, K = 1.0878565e10;
    cr_model *model = cr_model_create();
    cr_model_add_wall(model, 0.0);
    cr_model_add_ball(model, m, r, r, 0.0);            /* B on the floor */
    cr_model_add_ball(model, m, r, 3 * r + 1e-3, -v0); /* A, 1 mm above */
    cr_contact_params hertz, floor;
    cr_contact_params_init(&hertz, K, 1.5, 0.0, CR_RELEASE_GAP);
    /* a damped floor: B settles within a few of its periods (0.3 ms); else steel
     * on steel, undamped: B rings on the floor under its weight (issue 8's case) */
    cr_contact_params_init(&floor, 1e7, 1.0, 0.5 * 2 * sqrt(1e7 * m), CR_RELEASE_FORCE);
    cr_model_set_default_contact(model, &hertz);
    if (damped)
        cr_model_set_contact(model, 0, &floor);
    cr_model_set_gravity(model, -g);
    tu_case("preload, %s floor", damped ? "damped" : "undamped");
    run_t rr = run(model, 1e-10, 1e-12, 4e-3);
    size_t n = cr_monitor_episode_count(rr.mon);
    cr_episode_info in = {0};
    cr_monitor_get_episode(rr.mon, 0, &in);
    printf("     preload, %s floor: %zu episodes; first t = %.9g .. %.9g s, reference %zu, "
           "complete %d, "
           "field work %.4g J, kappa %.9f\n",
           damped ? "damped linear" : "undamped Hertz", n, in.t_start, in.t_end, in.reference,
           in.complete, in.field_work, in.kappa);
    size_t nr = 0;
    const cr_contact_record *rec = cr_monitor_contacts(rr.mon, 0, &nr);
    for (size_t c = 0; c < nr; c++)
        printf("     contact %zu: P %.6g alpha %.6f eN %.6f eP %.6f gamma- %.3g gamma+ %.3g "
               "flags %d\n",
               rec[c].contact, rec[c].impulse, rec[c].alpha, rec[c].newton, rec[c].poisson,
               rec[c].gamma_minus, rec[c].gamma_plus, rec[c].flags);
    CHECK(n >= 1 && in.reference == 1,
          "the reference contact is A-B (the impact), not the floor at t = 1.9e-9 s");
    /* free fall of A onto B, which has sunk by its static overlap m g / K_floor:
     * ½ g t² + v₀ t = gap + m g / K_floor (kinematics) */
    double gap = 1e-3 + m * g / 1e7, ts = (-v0 + sqrt(v0 * v0 + 2 * g * gap)) / g;
    if (damped)
        CHECK_REL(in.t_start, ts, 1e-8, "the episode starts when A reaches B (free fall)");
    CHECK(nr == 2 && isnan(rec[0].newton) && (rec[0].flags & CR_RECORD_AT_REST),
          "floor contact: eN NaN, at rest (was 1.09e7)");
    CHECK(nr == 2 && isfinite(rec[1].newton) && rec[1].flags == 0, "A-B contact: eN defined");
    CHECK(in.complete, "the episode ends by the rule (the floor contact back at rest)");
    const frame *f0 = frame_at(&rr, in.t_start), *f1 = frame_at(&rr, in.t_end);
    if (f0 && f1) {
        double W = -m * g * (f1->x[1] - f0->x[1] + f1->x[2] - f0->x[2]);
        CHECK_REL_INV(in.field_work, W, 1e-6, "field work = sum m g dx (uniform gravity)");
    }
    tu_case(NULL);
    done(&rr);
}

/* ---- pools through the same monitor ------------------------------------------------- */

static const double PM = 0.0329, PR = 0.01, PK = 1.0878565e10;

static cr_model *pool(size_t n, const double (*d)[4], double K)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    for (size_t i = 0; i < n; i++)
        cr_model_add_body(model, PM, PR, d[i], d[i] + 2);
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    return model;
}

/* Impulse balance in a pool (issue 4): with the vector impulses ∫ f n dt,
 * m (u⁺ − u⁻) = Σ ±∫ f n dt exactly; with the scalar impulses and the
 * impact-configuration W (normals at first touch) it is off by the rotation of
 * the normals during contact, a finite-compliance effect that shrinks as K grows. */
static void pool_balance(void)
{
    printf("     pool impulse balance (theta = 1, tau = 0.3), residual / (m v):\n");
    printf("     %10s %14s %18s\n", "K / K_steel", "vector impulses", "W of first touch");
    double prev = 0.0, g = 1e-9, th = 1.0;
    const double d[3][4] = {
        {-(2 * PR + g) * cos(th), -(2 * PR + g) * sin(th), cos(th - 0.3), sin(th - 0.3)},
        {0.0, 0.0, 0.0, 0.0},
        {2 * PR, 0.0, 0.0, 0.0},
    };
    for (int k = 0; k < 3; k++) {
        double scale = pow(100.0, k);
        tu_case("pool K x %g", scale);
        run_t r = run(pool(3, d, PK * scale), 1e-12, 1e-14, 0.0);
        CHECK(cr_monitor_episode_count(r.mon) == 1, "one episode");
        double exact = balance(r.mon, 0, 2, 1), geo = balance(r.mon, 0, 2, 0);
        printf("     %10.0e %14.2e %18.2e\n", scale, exact, geo);
        CHECK_INV(exact <= 1e-13, "vector impulses balance momentum exactly: %.3g", exact);
        /* the normals turn by ~δ* / R during contact, δ* ∝ K^(-1/(n+1)) = K^-0.4: each
         * hundredfold stiffer contact divides the residual by 100^0.4 (0.5 % kept for the
         * next order in δ* / R) */
        if (k > 0)
            CHECK_REL(geo / prev, pow(100.0, -0.4), 5e-3,
                      "first-touch W residual shrinks as K^-0.4 (normal rotation ~ delta*/R)");
        prev = geo;
        done(&r);
    }
    tu_case(NULL);
}

/* Pool episodes (issue 4): the 001 sect. 4 pool is one episode, undamped κ = 1;
 * two collisions far apart are two episodes; one contact between equal discs
 * has eᴺ = eᴾ = 1 and P = m v. */
static void pool_episodes(void)
{
    double g = 1e-5, th = M_PI / 3;
    const double d[5][4] = {
        {-(2 * PR + g) * cos(th), -(2 * PR + g) * sin(th), cos(th), sin(th)},
        {0.0, 0.0, 0.0, 0.0},
        {2 * PR, 0.0, 0.0, 0.0},
        /* a second, separate collision far away, later */
        {1.0, 0.0, 0.0, 0.0},
        {1.0 + 2 * PR + 2e-3, 0.0, -1.0, 0.0},
    };
    run_t r = run(pool(5, d, PK), 1e-12, 1e-14, 3e-3);
    size_t n = cr_monitor_episode_count(r.mon);
    CHECK(n == 2, "two episodes, got %zu", n);
    for (size_t k = 0; k < n; k++) {
        tu_case("pool episode %zu", k);
        cr_episode_info in;
        cr_monitor_get_episode(r.mon, k, &in);
        size_t nd, nc;
        const size_t *disc = cr_monitor_bodies(r.mon, k, &nd);
        const cr_contact_record *rec = cr_monitor_contacts(r.mon, k, &nc);
        double worst = balance(r.mon, k, 2, 1);
        CHECK_INV(worst <= 1e-13, "episode %zu: vector impulse balance %.3g", k, worst);
        CHECK_REL_INV(in.kappa, 1.0, 1e-9, "undamped pool episode: kappa = 1");
        CHECK(in.complete, "ended by the rule");
        if (k == 0) {
            CHECK(nd == 3 && disc[0] == 0 && disc[2] == 2, "first episode: discs 0, 1, 2");
            /* kinetic angle of contacts 0-1 and 1-2 at θ = π/3: n₁·n₂ = −½ cos θ
             * (001 eq. 42), from the episode's impact configuration */
            cr_impact *imp = cr_monitor_impact(r.mon, k);
            size_t a = nc, b = nc;
            for (size_t c = 0; c < nc; c++) {
                if (rec[c].body_a == 0 && rec[c].body_b == 1)
                    a = c;
                if (rec[c].body_a == 1 && rec[c].body_b == 2)
                    b = c;
            }
            CHECK(imp && nc <= 4 && a < nc && b < nc, "contacts 0-1 and 1-2 in the episode");
            if (imp && nc <= 4 && a < nc && b < nc) {
                double cs[16];
                cr_monitor_kinetic_cosines(r.mon, k, cs);
                CHECK_REL(cr_impact_kinetic_cosine(imp, a, b), -0.5 * cos(th), 1e-6,
                          "001 eq. 42 from the pool episode (normals at first touch)");
                CHECK_REL_SELF(cs[a * nc + b], cr_impact_kinetic_cosine(imp, a, b), 1e-14,
                               "monitor's kinetic cosine = the law core's (laws.c)");
                double gam[4];
                cr_impact_get_gamma(imp, gam);
                CHECK_SELF(fabs(gam[a] - rec[a].gamma_minus) <= 1e-15,
                           "gamma- is the impact configuration's W^T u-");
            }
            cr_impact_destroy(imp);
        }
        if (k == 1) {
            CHECK(nd == 2 && disc[0] == 3, "second episode: discs 3, 4");
            /* one contact between equal discs: eN = eP = 1, P = m v */
            CHECK_REL(rec[0].newton, 1.0, 1e-9, "single contact: eN = 1 (undamped)");
            CHECK_REL(rec[0].poisson, 1.0, 1e-9, "single contact: eP = eN = 1 (000 sect. 7)");
            CHECK_REL(rec[0].impulse, PM * 1.0, 1e-9, "P = mu (1 + e) v = m v");
        }
    }
    tu_case(NULL);
    done(&r);
}

/* A chain given as a dim-2 model with every centre on the x-axis: the pool
 * engine's episode table is the chain engine's (1e-10 at rtol 1e-13; at 1e-12 the
 * two integrations differ by 2e-10 in kappa). Records are matched by
 * their bodies (the engines number contacts differently). */
static void chain_as_pool(const char *name, int nb, const double *m, const double *x,
                          const double *v, const cr_contact_params *law)
{
    tu_case("%s", name);
    run_t c = run(chain(nb, m, x, v, law), 1e-13, 1e-15, 0.0);
    run_t p = run(chain_2d(nb, m, x, v, law), 1e-13, 1e-15, 0.0);
    size_t n = cr_monitor_episode_count(c.mon);
    CHECK(n >= 1 && cr_monitor_episode_count(p.mon) == n, "%s: %zu episodes in both", name, n);
    double worst = 0.0;
    int same = 1;
    for (size_t k = 0; k < n && cr_monitor_episode_count(p.mon) == n; k++) {
        cr_episode_info a, b;
        cr_monitor_get_episode(c.mon, k, &a);
        cr_monitor_get_episode(p.mon, k, &b);
        size_t na, nbr;
        const cr_contact_record *ra = cr_monitor_contacts(c.mon, k, &na);
        const cr_contact_record *rb = cr_monitor_contacts(p.mon, k, &nbr);
        same &= na == nbr;
        const double qa[3] = {a.t_start, a.t_end, a.kappa}, qb[3] = {b.t_start, b.t_end, b.kappa};
        for (int q = 0; q < 3; q++) {
            worst = fmax(worst, fabs(qa[q] - qb[q]) / fabs(qa[q]));
        }
        for (size_t i = 0; i < na && same; i++) {
            size_t j = 0;
            while (j < nbr && !(rb[j].body_a == ra[i].body_a && rb[j].body_b == ra[i].body_b))
                j++;
            same &= j < nbr && ra[i].flags == rb[j].flags;
            if (j == nbr)
                break;
            const double xa[4] = {ra[i].impulse, ra[i].alpha, ra[i].newton, ra[i].poisson};
            const double xb[4] = {rb[j].impulse, rb[j].alpha, rb[j].newton, rb[j].poisson};
            for (int q = 0; q < 4; q++)
                if (!(isnan(xa[q]) && isnan(xb[q]))) {
                    worst = fmax(worst, fabs(xa[q] - xb[q]) / fabs(xa[q]));
                }
        }
    }
    printf("     %s: chain engine vs pool engine, episode tables differ by %.2e (relative)\n", name,
           worst);
    CHECK_SELF(same && worst <= 1e-10,
               "%s: dim-2 chain = chain (t_start, t_end, kappa, P, alpha, eN, eP) to 1e-10: %.3g",
               name, worst);
    tu_case(NULL);
    done(&c);
    done(&p);
}

static void chains_as_pools(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, PK, 1.5, 0.0, CR_RELEASE_GAP);
    const double m3[3] = {PM, PM, PM}, x3[3] = {0, 0.021, 0.043}, v3[3] = {1, 0, 0};
    chain_as_pool("3 balls, two collisions", 3, m3, x3, v3, &law);
    const double m5[5] = {PM, 2 * PM, PM, PM, 0.5 * PM};
    const double x5[5] = {0, 0.02 + 1e-5, 0.04 + 1e-5, 0.06 + 1e-5, 0.08 + 1e-5};
    const double v5[5] = {1, 0, 0, 0, 0};
    chain_as_pool("5-ball cradle, unequal masses", 5, m5, x5, v5, &law);
    /* touching and approaching at t = 0: the episode opens at the t = 0 output
     * (where pool contacts first exist), in both engines; equal undamped balls
     * exchange velocities: eN = 1, P = m Δv (closed form) */
    const double x2[2] = {0.0, 2 * PR}, v2[2] = {0.5, -0.5};
    for (int k = 0; k < 2; k++) {
        tu_case("touching at t = 0, %s engine", k ? "pool" : "chain");
        run_t p =
            run(k ? chain_2d(2, m3, x2, v2, &law) : chain(2, m3, x2, v2, &law), 1e-12, 1e-14, 0.0);
        cr_episode_info in = {0};
        size_t nr = 0;
        const cr_contact_record *rec = NULL;
        if (cr_monitor_get_episode(p.mon, 0, &in) == CR_OK)
            rec = cr_monitor_contacts(p.mon, 0, &nr);
        CHECK(cr_monitor_episode_count(p.mon) == 1 && in.t_start == 0.0 && in.complete && nr == 1,
              "%s: touching and approaching at t = 0 opens an episode at t = 0",
              k ? "pool" : "chain");
        if (nr == 1) {
            CHECK_REL(rec[0].newton, 1.0, 1e-9, "touching at t = 0, undamped: eN = 1");
            CHECK_REL(rec[0].impulse, PM * 1.0, 1e-9, "touching at t = 0: P = m dv");
        }
        done(&p);
    }
    tu_case(NULL);
}

/* ---- API edges ---------------------------------------------------------------------- */

static void api(void)
{
    const double m[2] = {1, 1}, x[2] = {0, 0.021}, v[2] = {1, 0};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    run_t r = run(chain(2, m, x, v, &law), 1e-10, 1e-12, 0.0);
    cr_episode_info in;
    double A[1];
    size_t n = 7;
    CHECK(cr_monitor_get_episode(r.mon, 1, &in) == CR_ERR_INVALID &&
              cr_monitor_alpha_matrix(r.mon, 1, A) == CR_ERR_INVALID &&
              cr_monitor_contacts(r.mon, 1, &n) == NULL && n == 0 &&
              cr_monitor_impact(r.mon, 1) == NULL,
          "index out of range: CR_ERR_INVALID, NULL, count 0");
    CHECK(cr_monitor_create(NULL) == NULL && cr_monitor_finish(NULL) == CR_ERR_INVALID,
          "NULL system refused");
    done(&r);
}

int main(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, 1e6, 1.0, 0.0, CR_RELEASE_GAP);
    double mu = 2.0 * 3.0 / 5.0;
    double zeta = 0.1;
    law.C = zeta * 2 * sqrt(law.K * mu);
    two_balls("linear dashpot, gap", &law, exp(-M_PI * zeta / sqrt(1 - zeta * zeta)));
    cr_contact_params_init(&law, 1e9, 1.5, 2e3, CR_RELEASE_GAP);
    two_balls("damped Hertz, gap", &law, NAN);
    law.release = CR_RELEASE_FORCE;
    two_balls("damped Hertz, force", &law, NAN);
    three_balls();
    segmentation();
    merging();
    decorated();
    glocker_rods();
    two_pendulums();
    bead_column();
    preload(1);
    preload(0);
    pool_balance();
    pool_episodes();
    chains_as_pools();
    api();
    return tu_finish("test-monitor");
}
