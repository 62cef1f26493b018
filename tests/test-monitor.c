/*
 * Impact-episode monitor: impulses, impulse ratios and restitution measured on
 * compliant runs, checked against single-contact theory, 001 eq. 18, the
 * impulse balance, and scaling invariance (001 eq. 21 remark 2b).
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

typedef struct {
    cr_model *model;
    cr_sim *sim;
    cr_monitor *mon;
} run_t;

static run_t run_model(cr_model *model, double rtol, double atol)
{
    run_t r = {model, NULL, NULL};
    char msg[512];
    r.sim = cr_sim_create(model, msg, sizeof msg);
    if (!r.sim) {
        printf("FAIL: %s\n", msg);
        exit(1);
    }
    cr_sim_set_tolerances(r.sim, rtol, atol);
    r.mon = cr_monitor_create(r.sim);
    CHECK(r.mon != NULL, "monitor");
    CHECK(cr_sim_run(r.sim, 0.0) == CR_OK, "run: %s", cr_sim_last_error(r.sim));
    CHECK(cr_monitor_finish(r.mon) == CR_OK, "finish");
    return r;
}

static void done(run_t *r)
{
    cr_monitor_destroy(r->mon);
    cr_sim_destroy(r->sim);
    cr_model_destroy(r->model);
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

/* M(u⁺ − u⁻) = W P for a chain group: mᵢ(uᵢ⁺ − uᵢ⁻) = P_{i−1} − P_i; worst relative residual. */
static double impulse_balance(const cr_monitor *mon, size_t k)
{
    size_t nb, nc;
    const double *u0 = cr_monitor_velocities(mon, k, 0, &nb);
    const double *u1 = cr_monitor_velocities(mon, k, 1, &nb);
    const double *m = cr_monitor_masses(mon, k, &nb);
    const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nc);
    double worst = 0, scale = 0;
    for (size_t i = 0; i < nb; i++) {
        double P = (i > 0 ? rec[i - 1].impulse : 0.0) - (i < nc ? rec[i].impulse : 0.0);
        worst = fmax(worst, fabs(m[i] * (u1[i] - u0[i]) - P));
        scale = fmax(scale, fabs(m[i] * u0[i]));
    }
    return worst / scale;
}

/* Single frictionless contact: eᴺ = eᴾ (000 sect. 7), and the energy of the
 * relative motion drops by (eᴺ)²; the linear dashpot gives exp(−πζ/√(1−ζ²)). */
static void two_balls(const char *name, const cr_contact_params *law, double e_exact)
{
    const double m[2] = {2.0, 3.0}, x[2] = {0.0, 0.0201}, v[2] = {1.5, -0.5};
    run_t r = run_model(chain(2, m, x, v, law), 1e-12, 1e-14);
    CHECK(cr_monitor_episode_count(r.mon) == 1, "%s: one episode, got %zu", name,
          cr_monitor_episode_count(r.mon));
    cr_episode_info info;
    size_t nc;
    cr_monitor_get_episode(r.mon, 0, &info);
    const cr_contact_record *c = cr_monitor_contacts(r.mon, 0, &nc);
    char ref[128];
    snprintf(ref, sizeof ref, "%s: eN = eP (000 sect. 7)", name);
    CHECK_REL(c->poisson, c->newton, 1e-10, ref);
    /* relative-motion energy T − p²/(2M) */
    double M = m[0] + m[1], p = m[0] * v[0] + m[1] * v[1];
    double Trel0 = info.T_minus - p * p / (2 * M), Trel1 = info.T_plus - p * p / (2 * M);
    snprintf(ref, sizeof ref, "%s: T_rel+/T_rel- = eN^2", name);
    CHECK_REL(Trel1 / Trel0, c->newton * c->newton, 1e-9, ref);
    snprintf(ref, sizeof ref, "%s: compression + expansion = P", name);
    CHECK_REL(c->compression + c->expansion, c->impulse, 1e-10, ref);
    snprintf(ref, sizeof ref, "%s: dissipated = T- - T+", name);
    CHECK_REL(info.dissipated, info.T_minus - info.T_plus, 1e-8, ref);
    if (!isnan(e_exact)) {
        snprintf(ref, sizeof ref, "%s: analytic restitution", name);
        CHECK_REL(c->newton, e_exact, 1e-8, ref);
    }
    CHECK(impulse_balance(r.mon, 0) < 1e-10, "%s: impulse balance %.3g", name,
          impulse_balance(r.mon, 0));
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

static double three_ball_alpha(double kscale, double mscale, double *uplus, double *kappa)
{
    const double m[3] = {mscale, mscale, mscale};
    const double x[3] = {0.0, 0.02 + 1e-5, 0.04 + 1e-5}, v[3] = {1.0, 0, 0};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9 * kscale, 1.5, 0.0, CR_RELEASE_GAP);
    run_t r = run_model(chain(3, m, x, v, &law), 1e-12, 1e-14);
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
    CHECK(info.reference == 0 && nc == 2 && info.complete, "reference contact 0, 2 contacts");
    double a = c[1].alpha;
    CHECK(impulse_balance(r.mon, 0) < 1e-10, "3 balls: impulse balance %.3g",
          impulse_balance(r.mon, 0));
    done(&r);
    return a;
}

static void three_balls(void)
{
    double u[3], kappa;
    double alpha = three_ball_alpha(1.0, 1.0, u, &kappa);
    printf("     3 Hertz balls: alpha = %.10f, kappa = %.12f, u+ = (%.8f, %.8f, %.8f)\n", alpha,
           kappa, u[0], u[1], u[2]);
    double w[3];
    eq18(kappa, alpha, w);
    for (int i = 0; i < 3; i++)
        CHECK_REL(w[i], u[i], 1e-8, "001 eq. 18 from measured (alpha, kappa) = compliant u+");
    /* α does not depend on the scale of K and m (001 eq. 21, remark 2b) */
    double a2 = three_ball_alpha(1e6, 1e-2, NULL, NULL);
    CHECK_REL(a2, alpha, 1e-8, "alpha invariant under K x 1e6, m x 1e-2 (001 eq. 21 2b)");
}

/* Segmentation: the 5-ball cradle is one episode; 1 → 2 → 3 with gaps is two. */
static void segmentation(void)
{
    const double m5[5] = {1, 1, 1, 1, 1}, x5[5] = {0, 0.02 + 1e-5, 0.04 + 1e-5, 0.06 + 1e-5,
                                                   0.08 + 1e-5};
    const double v5[5] = {1, 0, 0, 0, 0};
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    run_t r = run_model(chain(5, m5, x5, v5, &law), 1e-11, 1e-13);
    CHECK(cr_monitor_episode_count(r.mon) == 1, "cradle: one episode, got %zu",
          cr_monitor_episode_count(r.mon));
    cr_episode_info info;
    cr_monitor_get_episode(r.mon, 0, &info);
    CHECK(info.first_ball == 0 && info.last_ball == 4, "the whole cradle is the group");
    CHECK_REL(info.kappa, 1.0, 1e-9, "undamped cradle: kappa = 1");
    size_t nev;
    cr_monitor_events(r.mon, 0, &nev);
    CHECK(nev == cr_sim_event_count(r.sim), "every event belongs to the episode");
    done(&r);

    /* equal Hertz balls exchange velocities: 1 stops, 2 flies and hits 3 later */
    const double m3[3] = {1, 1, 1}, x3[3] = {0, 0.021, 0.043}, v3[3] = {1, 0, 0};
    r = run_model(chain(3, m3, x3, v3, &law), 1e-11, 1e-13);
    CHECK(cr_monitor_episode_count(r.mon) == 2, "two collisions, got %zu episodes",
          cr_monitor_episode_count(r.mon));
    for (size_t k = 0; k < cr_monitor_episode_count(r.mon) && k < 2; k++) {
        cr_monitor_get_episode(r.mon, k, &info);
        CHECK(info.reference == k && info.first_contact == k && info.last_contact == k,
              "episode %zu: contact %zu alone", k, k);
        CHECK(impulse_balance(r.mon, k) < 1e-10, "impulse balance");
    }
    cr_monitor_get_episode(r.mon, 1, &info);
    /* the second contact closes after 1 mm + 2 mm of flight at 1 m/s, give or take
     * the first contact's duration (~0.6 ms at K = 1e9, m = 1 kg) */
    CHECK(info.t_start > 2.9e-3 && info.t_start < 3.7e-3, "second episode at %g s", info.t_start);
    done(&r);
}

/* Impulse balance on every episode of a damped, decorated chain. */
static void decorated(void)
{
    char path[512], msg[512];
    snprintf(path, sizeof path, "%s/../../models/decorated-chain.yaml", CR_TEST_DATA);
    cr_model *model = NULL;
    CHECK(cr_modelfile_load(path, &model, NULL, msg, sizeof msg) == CR_OK, "%s", msg);
    run_t r = run_model(model, 1e-12, 1e-14);
    size_t n = cr_monitor_episode_count(r.mon);
    double worst = 0;
    for (size_t k = 0; k < n; k++)
        worst = fmax(worst, impulse_balance(r.mon, k));
    CHECK(n >= 1 && worst < 1e-10, "decorated chain: %zu episodes, worst balance %.3g", n, worst);
    printf("ok   decorated chain: %zu episodes, M(u+ - u-) = W P to %.2e (<= 1e-10)\n", n, worst);
    /* the rigid-law configuration of the first episode reproduces gamma- */
    cr_impact *imp = cr_monitor_impact(r.mon, 0);
    size_t nc;
    const cr_contact_record *rec = cr_monitor_contacts(r.mon, 0, &nc);
    double g[64];
    CHECK(imp && cr_impact_contact_count(imp) == nc && nc <= 64, "impact configuration");
    if (imp && nc <= 64) {
        cr_impact_get_gamma(imp, g);
        for (size_t c = 0; c < nc; c++)
            CHECK(fabs(g[c] - rec[c].gamma_minus) <= 1e-15, "gamma- of contact %zu", c);
    }
    cr_impact_destroy(imp);
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
    decorated();
    return tu_finish("test-monitor");
}
