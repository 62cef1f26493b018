/*
 * Rigid impact configurations at the compression scale (issue 21, item 1;
 * docs/design.md, "Impact configurations at the compression scale"): a rigid
 * impact takes in every neighbouring pair whose gap is within θ·δ*, with
 * δ* = ((n+1) μ V² / (2K))^(1/(n+1)) the overlap of the pair at the
 * approach speed V. References, all computed here:
 * - gaps of 0.1 δ*: one impact of the three equal balls; under Newton's law
 *   with e = 1 its closed form is u⁺ = (−V/3, 2V/3, 2V/3) (P₁ = 2P₂,
 *   γ₁⁺ = V, γ₂⁺ = 0);
 * - gaps of 10 δ* (or θ = 0): a sequence of two-ball impacts, e = 1: the
 *   velocities pass down the chain, (0, 0, V);
 * - a linear spring-dashpot chain with gaps of 10 δ*: the sequence of
 *   two-ball impacts of an event-driven computation written here, each with
 *   the closed form e = exp(−πζ/√(1−ζ²)), ζ = C / (2√(Kμ)), of the pair's
 *   solved damping.
 */
#include <math.h>
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

#define M 0.03
#define R 0.01
#define V 1.0

typedef struct {
    size_t impacts, bodies_first;
    double u[3];
} rigid_result;

static rigid_result run_rigid(cr_model *model, cr_law_id law)
{
    rigid_result out = {0, 0, {NAN, NAN, NAN}};
    char msg[512];
    cr_law_params p;
    cr_law_params_init(&p);
    p.restitution = NAN; /* each pair's own */
    cr_system *sys = cr_system_create_rigid(model, law, &p, msg, sizeof msg);
    if (!sys) {
        CHECK(0, "rigid system: %s", msg);
        return out;
    }
    cr_monitor *mon = cr_monitor_create(sys);
    CHECK(cr_system_run(sys, 0.0) == CR_OK, "rigid run: %s", cr_system_last_error(sys));
    cr_monitor_finish(mon);
    out.impacts = cr_monitor_episode_count(mon);
    cr_episode_info in;
    if (out.impacts && cr_monitor_get_episode(mon, 0, &in) == CR_OK)
        out.bodies_first = in.body_count;
    cr_system_get_velocities(sys, out.u);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    return out;
}

/* Three equal balls, the first striking at V, the surface gaps g01, g12. */
static cr_model *three(double g01, double g12, const cr_contact_params *law, double theta)
{
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, M, R, 0.0, V);
    cr_model_add_ball(model, M, R, 2 * R + g01, 0.0);
    cr_model_add_ball(model, M, R, 4 * R + g01 + g12, 0.0);
    cr_model_set_default_contact(model, law);
    cr_settings s = *cr_model_settings(model);
    s.rigid_touching = theta;
    cr_model_set_settings(model, &s);
    return model;
}

static double dstar(const cr_contact_params *law, double mu)
{
    return pow((law->n + 1.0) * mu * V * V / (2.0 * law->K), 1.0 / (law->n + 1.0));
}

static double max_err(const double *u, const double *ref)
{
    double e = 0.0;
    for (int i = 0; i < 3; i++)
        e = fmax(e, fabs(u[i] - ref[i]) / V);
    return e;
}

static void hertz_gaps(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    double ds = dstar(&law, 0.5 * M);
    printf("     Hertz K = 1e9, m = %g kg, V = %g m/s: delta* = %.4g m\n", M, V, ds);

    const double one[3] = {-V / 3, 2 * V / 3, 2 * V / 3}, seq[3] = {0.0, 0.0, V};
    cr_model *model = three(0.1 * ds, 0.1 * ds, &law, 1.0);
    rigid_result r = run_rigid(model, CR_LAW_NEWTON);
    printf("     gaps 0.1 delta*, theta 1: %zu impact(s), u+ = (%.12f, %.12f, %.12f)\n", r.impacts,
           r.u[0], r.u[1], r.u[2]);
    CHECK(r.impacts == 1 && r.bodies_first == 3,
          "gaps 0.1 delta*: one impact of the 3 balls (got %zu impacts, %zu bodies)", r.impacts,
          r.bodies_first);
    CHECK_REF(max_err(r.u, one) <= 1e-9,
              "gaps 0.1 delta*: Newton e = 1 closed form (-V/3, 2V/3, 2V/3), "
              "error %.3g V",
              max_err(r.u, one));
    cr_model_destroy(model);

    model = three(10 * ds, 10 * ds, &law, 1.0);
    r = run_rigid(model, CR_LAW_NEWTON);
    printf("     gaps 10 delta*, theta 1: %zu impacts, u+ = (%.12f, %.12f, %.12f)\n", r.impacts,
           r.u[0], r.u[1], r.u[2]);
    CHECK(r.impacts == 2 && r.bodies_first == 2,
          "gaps 10 delta*: two two-ball impacts (got %zu, first of %zu bodies)", r.impacts,
          r.bodies_first);
    CHECK_REF(max_err(r.u, seq) <= 1e-9, "gaps 10 delta*: e = 1 exchanges, (0, 0, V), error %.3g V",
              max_err(r.u, seq));
    cr_model_destroy(model);

    /* the tolerance itself: 0.9 δ* joins, 1.1 δ* does not (a δ* off by 10 %
     * either way fails one of the two) */
    for (int side = 0; side < 2; side++) {
        double f = side ? 1.1 : 0.9;
        tu_case("second gap %.1f delta*", f);
        model = three(0.5 * ds, f * ds, &law, 1.0);
        r = run_rigid(model, CR_LAW_NEWTON);
        CHECK_REF(r.impacts == (side ? 2u : 1u) && max_err(r.u, side ? seq : one) <= 1e-9,
                  "second gap %.1f delta*: %s (%zu impacts, error %.3g V)", f,
                  side ? "two-ball impacts" : "one impact of the 3 balls", r.impacts,
                  max_err(r.u, side ? seq : one));
        cr_model_destroy(model);
    }

    tu_case(NULL);
    model = three(0.1 * ds, 0.1 * ds, &law, 0.0);
    r = run_rigid(model, CR_LAW_NEWTON);
    CHECK_REF(r.impacts == 2 && max_err(r.u, seq) <= 1e-9,
              "theta 0: gaps of 0.1 delta* are two-ball impacts again (%zu impacts, error %.3g V)",
              r.impacts, max_err(r.u, seq));
    cr_model_destroy(model);
}

/* Two impacts at one instant never share a body: balls 0-1 touching (0 at
 * 0.01 m/s), a 5 µm gap, balls 2-3 touching (3 at −1 m/s); the second
 * impact's δ* (≈ 50 µm at 1 m/s) would take in the gap and ball 1, already
 * in the first impact at that instant. */
static void one_body_one_impact(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model *m = cr_model_create();
    double x[4] = {0.0, 2 * R, 4 * R + 5e-6, 6 * R + 5e-6}, v[4] = {0.01, 0.0, 0.0, -1.0};
    for (int i = 0; i < 4; i++)
        cr_model_add_ball(m, M, R, x[i], v[i]);
    cr_model_set_default_contact(m, &law);
    char msg[512];
    cr_law_params p;
    cr_law_params_init(&p);
    p.restitution = NAN;
    cr_system *sys = cr_system_create_rigid(m, CR_LAW_NEWTON, &p, msg, sizeof msg);
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    int shared = -1;
    if (mon && cr_system_run(sys, 1e-3) == CR_OK && cr_monitor_finish(mon) == CR_OK) {
        shared = 0;
        size_t ne = cr_monitor_episode_count(mon);
        for (size_t a = 0; a < ne; a++)
            for (size_t b = a + 1; b < ne; b++) {
                cr_episode_info ia, ib;
                size_t na, nb;
                cr_monitor_get_episode(mon, a, &ia);
                cr_monitor_get_episode(mon, b, &ib);
                const size_t *ba = cr_monitor_bodies(mon, a, &na),
                             *bb = cr_monitor_bodies(mon, b, &nb);
                for (size_t i = 0; ia.t_start == ib.t_start && i < na; i++)
                    for (size_t j = 0; j < nb; j++)
                        shared += ba[i] == bb[j];
            }
    }
    CHECK(shared == 0, "impacts at one instant share no body (%d shared, %s)", shared,
          sys ? cr_system_last_error(sys) : msg);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(m);
}

/* Event-driven two-ball impacts of equal balls with restitution e: the
 * earliest closing pair first, until no pair approaches. */
static void sequence(double *x, double *u, const double *r, double e)
{
    for (int round = 0; round < 100; round++) {
        int best = -1;
        double tmin = INFINITY;
        for (int c = 0; c < 2; c++) {
            double gap = x[c + 1] - x[c] - r[c] - r[c + 1], closing = u[c] - u[c + 1];
            if (closing > 0.0 && gap / closing < tmin) {
                tmin = gap / closing;
                best = c;
            }
        }
        if (best < 0)
            return;
        for (int i = 0; i < 3; i++)
            x[i] += u[i] * tmin;
        double ua = u[best], ub = u[best + 1]; /* equal masses */
        u[best] = 0.5 * (ua + ub) - 0.5 * e * (ua - ub);
        u[best + 1] = 0.5 * (ua + ub) + 0.5 * e * (ua - ub);
    }
}

static void linear_gaps(void)
{
    const char *text = "balls:\n"
                       "  - {mass: 0.03, radius: 0.01, x: 0.0, v: 1.0}\n"
                       "  - {mass: 0.03, radius: 0.01, gap: GAP}\n"
                       "  - {mass: 0.03, radius: 0.01, gap: GAP}\n"
                       "contact: {K: 1.0e7, n: 1, restitution: 0.8, reference_speed: 1.0, "
                       "release: gap}\n";
    /* δ* of the undamped linear pair: sqrt(μ V² / K) */
    double ds = sqrt(0.5 * M * V * V / 1e7), g = 10 * ds;
    char buf[512], num[32], msg[512];
    snprintf(num, sizeof num, "%.17g", g);
    const char *p = text;
    size_t n = 0;
    while (*p && n + 32 < sizeof buf) {
        if (strncmp(p, "GAP", 3) == 0) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", num);
            p += 3;
        } else
            buf[n++] = *p++;
    }
    buf[n] = '\0';
    cr_model *model = NULL;
    if (cr_modelfile_parse(buf, n, "linear.yaml", &model, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(model, msg, sizeof msg) != CR_OK) {
        CHECK(0, "linear chain: %s", msg);
        return;
    }
    cr_contact_params law;
    cr_model_pair_law(model, 0, 1, &law);
    double zeta = law.C / (2.0 * sqrt(law.K * 0.5 * M));
    double e = exp(-M_PI * zeta / sqrt(1.0 - zeta * zeta));
    double x[3] = {0.0, 2 * R + g, 4 * R + 2 * g}, u[3] = {V, 0.0, 0.0}, r3[3] = {R, R, R};
    sequence(x, u, r3, e);
    rigid_result rr = run_rigid(model, CR_LAW_NEWTON);
    printf("     linear, gaps 10 delta*: zeta = %.9f, e = %.12f (target 0.8); %zu impacts, u+ = "
           "(%.12f, %.12f, %.12f) vs (%.12f, %.12f, %.12f)\n",
           zeta, e, rr.impacts, rr.u[0], rr.u[1], rr.u[2], u[0], u[1], u[2]);
    CHECK_REF(max_err(rr.u, u) <= 1e-9,
              "linear gaps 10 delta*: two-ball sequence, e = exp(-pi zeta/sqrt(1-zeta^2)): error "
              "%.3g V",
              max_err(rr.u, u));
    cr_model_destroy(model);
}

/* The same three balls as discs of a pool on a line (the rigid pool engine's
 * configurations grow the same way): gaps of 0.1 δ* are one impact, 10 δ* a
 * sequence; Newton's law with e = 1 as above. */
static void pool_gaps(void)
{
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    double ds = dstar(&law, 0.5 * M);
    const double one[3] = {-V / 3, 2 * V / 3, 2 * V / 3}, seq[3] = {0.0, 0.0, V};
    for (int wide = 0; wide < 2; wide++) {
        double g = (wide ? 10.0 : 0.1) * ds;
        tu_case("pool, gaps %g delta*", wide ? 10.0 : 0.1);
        char text[1024], msg[512];
        snprintf(text, sizeof text,
                 "dim: 2\nbodies:\n"
                 "  - {mass: %.17g, radius: %.17g, x: [0, 0], v: [%.17g, 0]}\n"
                 "  - {mass: %.17g, radius: %.17g, x: [%.17g, 0]}\n"
                 "  - {mass: %.17g, radius: %.17g, x: [%.17g, 0]}\n"
                 "contact: {K: 1.0e9, n: 1.5}\n",
                 M, R, V, M, R, 2 * R + g, M, R, 4 * R + 2 * g);
        cr_model *model = NULL;
        if (cr_modelfile_parse(text, strlen(text), "pool.yaml", &model, msg, sizeof msg) != CR_OK) {
            CHECK(0, "pool model: %s", msg);
            continue;
        }
        rigid_result r = {0, 0, {NAN, NAN, NAN}};
        cr_law_params p;
        cr_law_params_init(&p);
        p.restitution = NAN;
        cr_system *sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &p, msg, sizeof msg);
        if (sys) {
            cr_monitor *mon = cr_monitor_create(sys);
            CHECK(cr_system_run(sys, 0.0) == CR_OK, "pool run: %s", cr_system_last_error(sys));
            cr_monitor_finish(mon);
            r.impacts = cr_monitor_episode_count(mon);
            double v[6];
            cr_system_get_velocities(sys, v);
            for (int i = 0; i < 3; i++)
                r.u[i] = v[2 * i];
            cr_monitor_destroy(mon);
            cr_system_destroy(sys);
        }
        const double *ref = wide ? seq : one;
        printf("     pool, gaps %g delta*: %zu impact(s), u+ = (%.12f, %.12f, %.12f)\n",
               wide ? 10.0 : 0.1, r.impacts, r.u[0], r.u[1], r.u[2]);
        CHECK_REF(r.impacts == (wide ? 2u : 1u) && max_err(r.u, ref) <= 1e-9,
                  "pool, gaps %g delta*: %s (%zu impacts, error %.3g V)", wide ? 10.0 : 0.1,
                  wide ? "two-ball sequence (0, 0, V)" : "one impact, (-V/3, 2V/3, 2V/3)",
                  r.impacts, max_err(r.u, ref));
        cr_model_destroy(model);
    }
}

/* rigid.touching and gap: in a file: one line naming the field. */
static void bad_input(void)
{
    static const struct {
        const char *text, *field;
    } cases[] = {
        {"balls: [{mass: 1, radius: 0.5, x: 0, v: 1}, {mass: 1, radius: 0.5, x: 1}]\n"
         "rigid: {touching: -1}\n",
         "rigid.touching"},
        {"balls: [{mass: 1, radius: 0.5, x: 0, v: 1}, {mass: 1, radius: 0.5, x: 1}]\n"
         "rigid: {touching: abc}\n",
         "rigid.touching"},
        {"balls: [{mass: 1, radius: 0.5, x: 0, v: 1}, {mass: 1, radius: 0.5, x: 1}]\n"
         "rigid: {touch: 1}\n",
         "rigid"},
        {"balls: [{mass: 1, radius: 0.5, x: 0, v: 1}, {mass: 1, radius: 0.5, gap: -0.1}]\n",
         "balls[1].gap"},
        {"balls: [{mass: 1, radius: 0.5, x: 0, v: 1}, {mass: 1, radius: 0.5, x: 1, gap: 0}]\n",
         "balls[1].gap"},
        {"balls: [{mass: 1, radius: 0.5, gap: 0, v: 1}, {mass: 1, radius: 0.5, x: 1}]\n",
         "balls[0].gap"},
        {"chain: {count: 3, mass: 1, radius: 0.5, gaps: [0], striker: {velocity: 1}}\n",
         "chain.gaps"},
        {"chain: {count: 3, mass: 1, radius: 0.5, gaps: [0, -1], striker: {velocity: 1}}\n",
         "chain.gaps"},
        {"chain: {count: 3, mass: 1, radius: 0.5, spacing: 1.1, gaps: [0, 0], striker: "
         "{velocity: 1}}\n",
         "chain.gaps"},
        {"dim: 2\nbodies: [{mass: 1, radius: 0.5, x: [0, 0]}, {mass: 1, radius: 0.5, next_to: 3, "
         "direction: [1, 0], gap: 0}]\n",
         "bodies[1].next_to"},
        {"dim: 2\nbodies: [{mass: 1, radius: 0.5, x: [0, 0]}, {mass: 1, radius: 0.5, next_to: 0, "
         "direction: [0, 0], gap: 0}]\n",
         "bodies[1].direction"},
        {"dim: 2\nbodies: [{mass: 1, radius: 0.5, x: [0, 0]}, {mass: 1, radius: 0.5, next_to: 0, "
         "direction: [1, 0], gap: -1}]\n",
         "bodies[1].gap"},
        {"dim: 2\nbodies: [{mass: 1, radius: 0.5, x: [0, 0]}, {mass: 1, radius: 0.5, x: [2, 0], "
         "next_to: 0, direction: [1, 0], gap: 0}]\n",
         "bodies[1].x"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_model *model = NULL;
        char msg[512] = "";
        tu_case("bad input %zu (%s)", k, cases[k].field);
        int rc = cr_modelfile_parse(cases[k].text, strlen(cases[k].text), "bad.yaml", &model, msg,
                                    sizeof msg);
        CHECK(rc != CR_OK && !model && strstr(msg, "bad.yaml:") && strstr(msg, cases[k].field),
              "bad input %zu refused naming file, line and %s: rc %d, '%s'", k, cases[k].field, rc,
              msg);
        cr_model_destroy(model);
    }
    tu_case(NULL);
}

/* gap: and gaps: place the balls as the explicit positions would. */
static void gap_positions(void)
{
    const char *a = "balls:\n  - {mass: 1, radius: 0.5, x: 0, v: 1}\n"
                    "  - {mass: 2, radius: 0.25, gap: 0.001}\n  - {wall: true, gap: 0.002}\n";
    const char *b = "chain: {count: 3, mass: 1, radius: 0.5, x0: 0.25, gaps: [0.001, 0.002], "
                    "striker: {velocity: 1}}\n";
    cr_model *ma = NULL, *mb = NULL;
    char msg[512];
    int ra = cr_modelfile_parse(a, strlen(a), "a.yaml", &ma, msg, sizeof msg);
    int rb = cr_modelfile_parse(b, strlen(b), "b.yaml", &mb, msg, sizeof msg);
    CHECK(ra == CR_OK && rb == CR_OK, "gapped models parse: %s", msg);
    if (ra == CR_OK && rb == CR_OK) {
        double xa[3] = {cr_model_position(ma, 0), cr_model_position(ma, 1),
                        cr_model_position(ma, 2)};
        double xb[3] = {cr_model_position(mb, 0), cr_model_position(mb, 1),
                        cr_model_position(mb, 2)};
        /* 0, 0.5 + 0.001 + 0.25, then the wall at the second's surface + 0.002;
         * the chain: 0.25, + 1.001, + 1.002 */
        CHECK_REF(fabs(xa[1] - 0.751) <= 1e-15 && fabs(xa[2] - 1.003) <= 1e-15,
                  "balls with gap: x = (%.17g, %.17g, %.17g)", xa[0], xa[1], xa[2]);
        CHECK_REF(fabs(xb[1] - 1.251) <= 1e-15 && fabs(xb[2] - 2.253) <= 1e-15,
                  "chain gaps: x = (%.17g, %.17g, %.17g)", xb[0], xb[1], xb[2]);
    }
    cr_model_destroy(ma);
    cr_model_destroy(mb);
    /* a disc next to another: centre at r_j + gap + r along the direction */
    const char *c = "dim: 2\nbodies:\n  - {mass: 1, radius: 0.5, x: [1, 2]}\n"
                    "  - {mass: 1, radius: 0.25, next_to: 0, direction: [3, 4], gap: 0.25}\n";
    cr_model *mc = NULL;
    int rcc = cr_modelfile_parse(c, strlen(c), "c.yaml", &mc, msg, sizeof msg);
    double x[2] = {NAN, NAN}, v[2];
    if (rcc == CR_OK)
        cr_model_get_body(mc, 1, x, v);
    /* distance 0.5 + 0.25 + 0.25 = 1 along (0.6, 0.8) */
    CHECK_REF(rcc == CR_OK && fabs(x[0] - 1.6) <= 1e-15 && fabs(x[1] - 2.8) <= 1e-15,
              "disc next_to: x = (%.17g, %.17g), expected (1.6, 2.8): %s", x[0], x[1], msg);
    cr_model_destroy(mc);
}

int main(void)
{
    hertz_gaps();
    linear_gaps();
    pool_gaps();
    one_body_one_impact();
    bad_input();
    gap_positions();
    return tu_finish("rigid-touching");
}
