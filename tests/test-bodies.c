/*
 * Planar rigid bodies (issue 25, first step): the clump engine against
 * references found independently of it.
 *
 *  (a) a dumbbell striking a wall at one disc, axis parallel to the wall, no
 *      initial rotation: the contact acts on m_eff = 1/(1/m + r⊥²/J). Undamped
 *      Hertz, the two-ball closed forms with μ = m_eff: contact time
 *      2.943275184324706 δmax/v, δmax = (5 m_eff v²/(4K))^(2/5) (Johnson,
 *      Contact Mechanics §11.4) and impulse 2 m_eff v. The body turns during
 *      the contact, so the departure falls as (δmax/r⊥)² ∝ K^(−4/5)
 *      (docs/design.md, "Rigid bodies"): over K, 10 K, 100 K the observed
 *      order is checked and the Richardson limit matches the closed forms to
 *      1e-6;
 *  (b) a bar falling flat and level onto two fixed supports symmetric about
 *      its centre, linear spring-dashpot (damping exponent 0, release gap):
 *      equal impulses, no rotation, and each contact the closed form of one
 *      contact with half the mass: P = (m/2) v (1 + e), e = exp(−πζ/√(1−ζ²)),
 *      contact time π/ω_d;
 *  (c) bad inputs: one line naming file, line and field, CR_ERR_MODEL;
 *  (d) invariants of a free collision of two rotating bodies (no wall, no
 *      field): momentum, angular momentum about a fixed point, energy.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

static const double HERTZ_TC = 2.943275184324706;

static cr_system *load(const char *text, char *msg, size_t len)
{
    cr_model *m = NULL;
    if (cr_modelfile_parse(text, strlen(text), "test.yaml", &m, msg, len) != CR_OK)
        return NULL;
    cr_system *s = cr_system_create(m, msg, len);
    cr_model_destroy(m);
    return s;
}

/* Closing and opening times of contact k (the first of each). */
static void contact_times(const cr_system *s, size_t k, double *t0, double *t1)
{
    const cr_event *e = cr_system_events(s);
    *t0 = *t1 = NAN;
    for (size_t q = 0; q < cr_system_event_count(s); q++) {
        if (e[q].contact != k)
            continue;
        if (e[q].kind == CR_EVENT_CLOSE && isnan(*t0))
            *t0 = e[q].t;
        if (e[q].kind == CR_EVENT_OPEN && isnan(*t1))
            *t1 = e[q].t;
    }
}

/* (a) one run: the dumbbell at stiffness K; contact time and impulse. */
static int dumbbell_run(double K, double m, double J, double v, double *tc, double *P)
{
    char text[1024], msg[512];
    snprintf(text, sizeof text,
             "dim: 2\n"
             "clumps:\n"
             "  - {shape: dumbbell, radius: 0.01, radius2: 0.005, length: 0.1, mass: %.17g,\n"
             "     inertia: %.17g, x: [0.01001, 0.05], theta: 1.5707963267948966, v: [%.17g, 0]}\n"
             "walls:\n"
             "  - {normal: [1, 0], offset: 0}\n"
             "contact: {K: %.17g, n: 1.5}\n"
             "integration: {t_end: 1, rtol: 1.0e-12, atol: 1.0e-14}\n",
             m, J, -v, K);
    cr_system *s = load(text, msg, sizeof msg);
    CHECK(s != NULL, "dumbbell model loads: %s", s ? "" : msg);
    if (!s)
        return -1;
    double dmax = pow(1.25 / (1.0 / m + 0.0025 / J) * v * v / K, 0.4);
    int rc = cr_system_run(s, 1e-5 / v + 1.5 * HERTZ_TC * dmax / v);
    CHECK(rc == CR_OK, "dumbbell run: %s", cr_system_last_error(s));
    double t0, t1;
    contact_times(s, 0, &t0, &t1);
    cr_contact_view w;
    cr_system_get_contact(s, 0, &w);
    *tc = t1 - t0;
    *P = w.impulse;
    cr_system_destroy(s);
    return rc;
}

static void dumbbell_wall(void)
{
    tu_case("dumbbell on a wall");
    const double m = 0.2, J = 5.0e-4, v = 1.0, rp = 0.05;
    double meff = 1.0 / (1.0 / m + rp * rp / J); /* the reference effective mass */
    double K[3] = {1e7, 1e8, 1e9}, tc[3], P[3];
    for (int k = 0; k < 3; k++)
        if (dumbbell_run(K[k], m, J, v, &tc[k], &P[k]) != CR_OK)
            return;
    /* departures d = obs/closed − 1 ≈ A K^(−p): p from three K a decade apart */
    double tcl[3], dt[3], dP[3];
    for (int k = 0; k < 3; k++) {
        tcl[k] = HERTZ_TC * pow(1.25 * meff * v * v / K[k], 0.4) / v;
        dt[k] = tc[k] / tcl[k] - 1.0;
        dP[k] = P[k] / (2.0 * meff * v) - 1.0;
        printf("  K = %g: contact time %.15g s (closed %.15g, departure %.3e), impulse %.15g "
               "(closed %.15g, departure %.3e)\n",
               K[k], tc[k], tcl[k], dt[k], P[k], 2.0 * meff * v, dP[k]);
    }
    const double *d[2] = {dt, dP};
    const char *what[2] = {"contact time", "impulse"};
    for (int q = 0; q < 2; q++) {
        double p = log10((d[q][0] - d[q][1]) / (d[q][1] - d[q][2]));
        double lim = d[q][2] - (d[q][1] - d[q][2]) / (pow(10.0, p) - 1.0);
        printf("  %s: observed order %.4f (expected 4/5), extrapolated departure %.2e\n", what[q],
               p, lim);
        CHECK_REF(fabs(p - 0.8) < 0.05, "%s departure order %.4f vs 4/5 (design.md derivation)",
                  what[q], p);
        CHECK_REF(fabs(lim) < 1e-8, /* the issue asks 1e-6; measured 1e-10 */
                  "%s: extrapolated limit matches the closed form with mu = m_eff (%.2e)", what[q],
                  lim);
    }
}

/* (a') the same dumbbell with a restitution target: C is solved for the
 * contact's effective mass at the initial configuration, so the impulse is
 * m_eff v (1 + e) (up to the K^(-4/5) departure, 5e-7 at this K). */
static void dumbbell_target(void)
{
    tu_case("dumbbell restitution target");
    const double m = 0.2, J = 5.0e-4, v = 1.0, e = 0.8;
    double meff = 1.0 / (1.0 / m + 0.0025 / J);
    char text[1024], msg[512];
    snprintf(text, sizeof text,
             "dim: 2\n"
             "clumps:\n"
             "  - {shape: dumbbell, radius: 0.01, radius2: 0.005, length: 0.1, mass: %.17g,\n"
             "     inertia: %.17g, x: [0.01001, 0.05], theta: 1.5707963267948966, v: [%.17g, 0]}\n"
             "walls:\n"
             "  - {normal: [1, 0], offset: 0}\n"
             "contact: {K: 1.0e9, n: 1.5, restitution: %.17g, reference_speed: %.17g}\n"
             "integration: {t_end: 1, rtol: 1.0e-12, atol: 1.0e-14}\n",
             m, J, -v, e, v);
    cr_model *md = NULL;
    int rc = cr_modelfile_parse(text, strlen(text), "test.yaml", &md, msg, sizeof msg);
    if (rc == CR_OK)
        rc = cr_calibrate_model(md, msg, sizeof msg);
    cr_system *s = rc == CR_OK ? cr_system_create(md, msg, sizeof msg) : NULL;
    cr_model_destroy(md);
    CHECK(s != NULL, "dumbbell with a target loads and calibrates: %s", s ? "" : msg);
    if (!s)
        return;
    CHECK(cr_system_run(s, 2e-3) == CR_OK, "run: %s", cr_system_last_error(s));
    cr_contact_view w;
    cr_system_get_contact(s, 0, &w);
    CHECK_REL(w.impulse / (meff * v) - 1.0, e, 1e-5,
              "the target e with m_eff = 1/(1/m + r^2/J): P = m_eff v (1 + e)");
    cr_system_destroy(s);
}

/* (b) the bar on two supports; returns the two impulses. */
static void bar_on_supports(void)
{
    tu_case("bar on two supports");
    const double m = 12.0, v = 1.0, Kl = 1e7, C = 2000.0;
    char text[1024], msg[512];
    snprintf(text, sizeof text,
             "dim: 2\n"
             "clumps:\n"
             "  - {shape: bar, count: 2, radius: 0.02, length: 1.0, mass: %.17g,\n"
             "     inertia: 4, x: [0, 0.04001], v: [0, %.17g]}\n"
             "  - {fixed: true, features: [{x: [-0.5, 0], radius: 0.02},\n"
             "                             {x: [0.5, 0], radius: 0.02}]}\n"
             "contact: {K: %.17g, n: 1, C: %.17g, m: 0, release: gap}\n"
             "integration: {t_end: 1, rtol: 1.0e-13, atol: 1.0e-15}\n",
             m, -v, Kl, C);
    cr_system *s = load(text, msg, sizeof msg);
    CHECK(s != NULL, "bar model loads: %s", s ? "" : msg);
    if (!s)
        return;
    double mu = 0.5 * m, wn = sqrt(Kl / mu), zeta = C / (2.0 * sqrt(Kl * mu));
    double wd = wn * sqrt(1.0 - zeta * zeta), e = exp(-M_PI * zeta / sqrt(1.0 - zeta * zeta));
    int rc = cr_system_run(s, 1e-5 / v + 1.5 * M_PI / wd);
    CHECK(rc == CR_OK, "bar run: %s", cr_system_last_error(s));
    /* contacts: features 0, 1 (the bar) with 2, 3 (the supports) */
    double Pk[2] = {0, 0}, tk[2] = {0, 0};
    size_t nfound = 0;
    for (size_t k = 0; k < cr_system_contact_count(s); k++) {
        cr_contact_view w;
        cr_system_get_contact(s, k, &w);
        if (!((w.body_a == 0 && w.body_b == 2) || (w.body_a == 1 && w.body_b == 3)))
            continue;
        double t0, t1;
        contact_times(s, k, &t0, &t1);
        Pk[w.body_a] = w.impulse;
        tk[w.body_a] = t1 - t0;
        nfound++;
    }
    CHECK(nfound == 2, "two support contacts (%zu)", nfound);
    CHECK_INV(fabs(Pk[0] - Pk[1]) <= 1e-13 * Pk[0], "equal impulses by symmetry: %.17g %.17g",
              Pk[0], Pk[1]);
    CHECK_REL(Pk[0], mu * v * (1.0 + e), 1e-11, "one linear contact of mass m/2: mu v (1 + e)");
    CHECK_REL(tk[0], M_PI / wd, 1e-11, "one linear contact of mass m/2: pi/omega_d");
    cr_rotating_body b;
    cr_system_rotating_body(s, 0, &b);
    CHECK_REL(b.v[1], e * v, 1e-11, "the bar leaves at e v (one contact of mass m/2)");
    CHECK_INV(fabs(b.omega) * 0.5 < 1e-13 * v, "no rotation by symmetry (omega %.3e)", b.omega);
    printf("  bar: P = %.17g %.17g (closed %.17g), contact time %.15g (closed %.15g)\n", Pk[0],
           Pk[1], mu * v * (1.0 + e), tk[0], M_PI / wd);
    cr_system_destroy(s);
}

/* Σ m (x × v) + J ω about the origin, over the rotating bodies. */
static double angular_momentum(const cr_system *s)
{
    double L = 0.0;
    for (size_t k = 0; k < cr_system_rotating_body_count(s); k++) {
        cr_rotating_body b;
        cr_system_rotating_body(s, k, &b);
        L += b.mass * (b.x[0] * b.v[1] - b.x[1] * b.v[0]) + b.J * b.omega;
    }
    return L;
}

/* (d) a rectangle and a dumbbell, both spinning, meet off-centre. */
static void free_collision(void)
{
    tu_case("free collision");
    const char *text = "dim: 2\n"
                       "clumps:\n"
                       "  - {shape: rectangle, radius: 0.01, width: 0.1, height: 0.06, mass: 0.5,\n"
                       "     x: [0, 0], theta: 0.3, v: [1.0, 0.1], omega: 3}\n"
                       "  - {shape: dumbbell, radius: 0.012, length: 0.12, mass: 0.3, rod_mass: "
                       "0.05,\n"
                       "     x: [0.15, 0.03], theta: 1.2, v: [-0.5, 0], omega: -2}\n"
                       "contact: {K: 1.0e8, n: 1.5}\n"
                       "integration: {t_end: 1, rtol: 1.0e-11, atol: 1.0e-13}\n";
    char msg[512];
    cr_system *s = load(text, msg, sizeof msg);
    CHECK(s != NULL, "free collision loads: %s", s ? "" : msg);
    if (!s)
        return;
    double p0[2], L0 = angular_momentum(s), E0 = cr_system_kinetic_energy(s);
    cr_system_momentum(s, p0);
    int rc = cr_system_run(s, 0.15);
    CHECK(rc == CR_OK, "free collision run: %s", cr_system_last_error(s));
    double p[2], L = angular_momentum(s), E = cr_system_kinetic_energy(s);
    cr_system_momentum(s, p);
    double P = 0.0;
    for (size_t k = 0; k < cr_system_contact_count(s); k++) {
        cr_contact_view w;
        cr_system_get_contact(s, k, &w);
        P += w.impulse;
    }
    printf("  free collision: impulse %.6g N s, |dp| %.2e, dL %.2e, dE/E %.2e\n", P,
           hypot(p[0] - p0[0], p[1] - p0[1]), L - L0, E / E0 - 1.0);
    CHECK(P > 0.01, "the bodies collide (total impulse %g N s)", P);
    CHECK_INV(hypot(p[0] - p0[0], p[1] - p0[1]) < 1e-13 * hypot(p0[0], p0[1]),
              "momentum conserved");
    CHECK_INV(fabs(L - L0) < 1e-9 * fabs(L0), "angular momentum about the origin conserved");
    CHECK_INV(fabs(E / E0 - 1.0) < 1e-8, "energy conserved (undamped)");
    cr_system_destroy(s);
}

/* What each shape generator gives (docs/model-format.md, "Rigid bodies"):
 * mass, J and feature count against the formulas written here. */
static void shapes(void)
{
    tu_case("shape disc");
    char dm[512];
    cr_system *d = load("dim: 2\nclumps:\n  - {shape: disc, radius: 0.01, density: 7800, x: [0, "
                        "0]}\n  - {shape: bar, count: 2, radius: 0.01, length: 1, mass: 1, x: [0, "
                        "1]}\nintegration: {t_end: 1}\n",
                        dm, sizeof dm);
    double mass[3] = {0, 0, 0};
    if (d)
        cr_system_get_masses(d, mass);
    CHECK(d && cr_system_rotating_body_count(d) == 1 && cr_system_body_count(d) == 3 &&
              fabs(mass[0] / (7800 * 4.0 / 3.0 * M_PI * 1e-6) - 1) < 1e-14,
          "a disc is no rigid body, its mass from density as for balls: %s", d ? "" : dm);
    cr_system_destroy(d);
    static const struct {
        const char *entry;
        double mass, J;
        size_t count;
    } cases[] = {
        {"{shape: bar, count: 5, radius: 0.01, length: 2, mass: 12", 12.0, 12.0 * 4.0 / 12.0, 5},
        {"{shape: bar, count: 3, radius: 0.1, length: 2, density: 1000",
         3 * 1000 * 4.0 / 3.0 * M_PI * 1e-3,
         1000 * 4.0 / 3.0 * M_PI * 1e-3 * (2 * 1.0 + 3 * 0.4 * 0.01), 3},
        {"{shape: dumbbell, radius: 0.01, radius2: 0.02, length: 0.1, mass: 2", 2.0,
         2.0 * 0.01 / 4.0 + 2.0 / 5.0 * (1e-4 + 4e-4), 2},
        {"{shape: dumbbell, radius: 0.01, length: 0.1, mass: 2, rod_mass: 0.6", 2.6,
         2.0 * 0.01 / 4.0 + 2.0 / 5.0 * 2e-4 + 0.6 * 0.01 / 12.0, 2},
        {"{shape: rectangle, radius: 0.01, width: 0.3, height: 0.1, mass: 3", 3.0,
         3.0 * (0.09 + 0.01) / 12.0, 4},
        {"{shape: rectangle, radius: 0.01, width: 0.3, height: 0.1, inertia: 0.5, mass: 3", 3.0,
         0.5, 4},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_case("shape %zu", k);
        char text[512], msg[512];
        snprintf(text, sizeof text,
                 "dim: 2\nclumps:\n  - %s, x: [0, 0]}\nintegration: {t_end: 1}\n", cases[k].entry);
        cr_system *s = load(text, msg, sizeof msg);
        CHECK(s != NULL, "%s loads: %s", cases[k].entry, s ? "" : msg);
        if (!s)
            continue;
        cr_rotating_body b;
        CHECK(cr_system_rotating_body_count(s) == 1 && cr_system_rotating_body(s, 0, &b) == CR_OK,
              "one rigid body");
        CHECK(fabs(b.mass / cases[k].mass - 1) < 1e-14 && fabs(b.J / cases[k].J - 1) < 1e-14 &&
                  b.count == cases[k].count && cr_system_body_count(s) == cases[k].count,
              "%s: mass %.17g (formula %.17g), J %.17g (formula %.17g), %zu features",
              cases[k].entry, b.mass, cases[k].mass, b.J, cases[k].J, b.count);
        cr_system_destroy(s);
    }
}

/* (c) bad inputs */
static void bad_input(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"dim: 2\nclumps:\n  - {shape: dumbbell, radius: 0.01, length: 0.1, mass: 1,\n"
         "     inertia: -1, x: [0, 0]}\n",
         "test.yaml:4: clumps[0].inertia"},
        {"dim: 2\nclumps:\n  - {shape: dumbbell, radius: 0, length: 0.1, mass: 1, x: [0, 0]}\n",
         "test.yaml:3: clumps[0].radius"},
        {"dim: 2\nclumps:\n  - shape: discs\n    mass: 1\n    inertia: 1\n    x: [0, 0]\n"
         "    features: [{x: [0, 0], radius: 0.0}]\n",
         "test.yaml:7: clumps[0].features[0].radius"},
        {"dim: 2\nclumps:\n  - {shape: blob, radius: 0.01, mass: 1, x: [0, 0]}\n",
         "test.yaml:3: clumps[0].shape"},
        {"dim: 2\nclumps:\n  - {shape: bar, count: 1, radius: 0.01, length: 1, mass: 1, x: [0, "
         "0]}\n",
         "test.yaml:3: clumps[0].count"},
        {"dim: 2\nclumps:\n  - {shape: bar, count: 3, radius: 0.1, length: 1, mass: 1, x: [0, 0]}\n"
         "  - {shape: bar, count: 3, radius: 0.1, length: 1, mass: 1, x: [0, 0.1]}\n",
         "test.yaml:4: clumps[1]"},
        {"dim: 2\nclumps:\n  - {shape: discs, mass: 1, x: [0, 0], features: [{x: [0, 0], radius: "
         "1}]}\n",
         "test.yaml:3: clumps[0].inertia"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_case("bad input %zu", k);
        cr_model *m = NULL;
        char msg[512] = "";
        int rc = cr_modelfile_parse(cases[k].text, strlen(cases[k].text), "test.yaml", &m, msg,
                                    sizeof msg);
        CHECK(rc == CR_ERR_MODEL && !m && strstr(msg, cases[k].want) && !strchr(msg, '\n'),
              "refused with one line naming '%s': rc %d, '%s'", cases[k].want, rc, msg);
        cr_model_destroy(m);
    }
}

int main(void)
{
    bad_input();
    shapes();
    bar_on_supports();
    dumbbell_target();
    free_collision();
    dumbbell_wall();
    return tu_finish("bodies");
}
