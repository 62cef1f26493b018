/*
 * Air drag (issue 26, item 3) and the `density` field, against closed forms:
 *   - one ball in free flight, no gravity, in the compliant and the rigid
 *     engine: linear drag v = v₀ e^(−bt/m), x = x₀ + v₀ (m/b)(1 − e^(−bt/m));
 *     quadratic drag v = v₀ / (1 + c v₀ t/m), x = x₀ + (m/c) ln(1 + c v₀ t/m);
 *     and the energy balance T + dissipated = T₀;
 *   - a pendulum released at θ₀ = 1e-3 rad under linear drag with πγ/ω_d ≈ 0.05:
 *     the logarithmic decrement of successive swing extremes against the damped
 *     linear oscillator's πγ/ω_d (γ = b/2m, ω_d = √(g/L − γ²)), extremes read
 *     from sampled rows; the sin θ nonlinearity shifts it by 11θ₀²/96 ≈ 1.15e-7
 *     relative (not θ₀²/16, the period's share: tests/test-swing.c derives and
 *     checks it, on located swing-extreme events);
 *   - two equal balls under equal linear drag through a collision: total
 *     momentum P₀ e^(−bt/m) (the contact's forces cancel);
 *   - the monitor: drag's work in an episode is dissipation (field_work 0,
 *     dissipated = the growth of the dissipated-work quadrature);
 *   - model files: drag coefficients from viscosity (6πηr) and fluid density
 *     (½ρC_dπr², C_d default 0.47), masses from density (ρ (4/3)πr³, discs
 *     too), and the refusals (density beside mass, drag in dim 2, t_end auto
 *     with drag beside gravity);
 *   - the automatic end under drag alone: a ball under linear drag moves at
 *     most its reach u m/b, so a gap beyond it ends the run at once and one
 *     within it closes at t* = −(m/b) ln(1 − g b/(m u)); a pair separating at
 *     t = 0 meets again (a light ball with little drag catches a heavy one
 *     with much) and the run ends after that collision, with the events of a
 *     run to 20 s (both engines); with gravity beside drag it is refused.
 * The compliant cases run under the automatic method (ERK) and BDF, and the
 * rigid engine (CVODES flight). Run time: 0.6 s in the debug build (three reruns in the suite:
 * erk, adams-fixed-point).
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

/* The compliant engine under its automatic method (ERK here; the suite reruns
 * this test with CRADLE_AUTO_METHOD=adams-fixed-point), under BDF (Newton with
 * the Jacobian's drag entry), and the rigid engine. */
enum { COMPLIANT, COMPLIANT_BDF, RIGID };
static const char *const engine_name[] = {"compliant", "compliant BDF", "rigid"};

static cr_system *make(cr_model *model, int engine, double interval)
{
    cr_settings set = *cr_model_settings(model);
    set.rtol = 1e-12;
    set.atol = 1e-14;
    set.output_interval = interval;
    if (engine == COMPLIANT_BDF)
        set.method = CR_METHOD_BDF;
    cr_model_set_settings(model, &set);
    if (engine != RIGID)
        return tu_system(model);
    cr_law_params lp;
    cr_law_params_init(&lp);
    char msg[256];
    cr_system *sys = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    if (!sys) {
        printf("FAIL: cr_system_create_rigid: %s\n", msg);
        exit(1);
    }
    return sys;
}

typedef struct {
    double m, x0, v0, b, c, worst, E0;
    int quadratic, rows;
} flight;

/* At every output row after t = 0: the state against the closed forms. */
static int flight_row(const cr_system *sys, void *user)
{
    flight *f = user;
    double t = cr_system_get_time(sys), x, v, xr, vr;
    if (t <= 0.0)
        return CR_OK;
    cr_system_get_positions(sys, &x);
    cr_system_get_velocities(sys, &v);
    if (f->quadratic) {
        double s = 1.0 + f->c * f->v0 * t / f->m;
        vr = f->v0 / s;
        xr = f->x0 + f->m / f->c * log(s);
    } else {
        double e = exp(-f->b * t / f->m);
        vr = f->v0 * e;
        xr = f->x0 + f->v0 * f->m / f->b * (1.0 - e);
    }
    CHECK_REL(v, vr, 1e-10, f->quadratic ? "v0/(1 + c v0 t/m)" : "v0 exp(-b t/m)");
    CHECK_REL(x, xr, 1e-10, f->quadratic ? "x0 + (m/c) ln(1 + c v0 t/m)" : "x0 + v0 m/b (1 - e)");
    f->worst = fmax(f->worst, fmax(fabs(v / vr - 1.0), fabs(x / xr - 1.0)));
    CHECK_REL_INV(cr_system_kinetic_energy(sys) + cr_system_dissipated_work(sys), f->E0, 1e-9,
                  "T + dissipated = T0");
    f->rows++;
    return CR_OK;
}

/* One ball, no gravity, linear (quadratic = 0) or quadratic drag, checked at
 * t = 0.5, 1, 1.5, 2 s (the drag has taken 1 − e⁻² of the speed at the end). */
static void free_flight(int engine, int quadratic)
{
    flight f = {.m = 0.05, .x0 = 0.0, .v0 = 2.0, .quadratic = quadratic};
    f.b = quadratic ? 0.0 : 0.05;
    f.c = quadratic ? 0.025 : 0.0; /* b/m = c v0/m = 1/s */
    f.E0 = 0.5 * f.m * f.v0 * f.v0;
    const char *en = engine_name[engine];
    tu_case("%s free flight, %s drag", en, quadratic ? "quadratic" : "linear");
    int f0 = tu_failed;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, f.m, 0.01, f.x0, f.v0);
    CHECK(cr_model_set_drag(model, 0, f.b, f.c) == CR_OK, "set drag");
    cr_system *sys = make(model, engine, 0.5);
    cr_system_add_output_listener(sys, flight_row, &f);
    CHECK(cr_system_run(sys, 2.0) == CR_OK, "run: %s", cr_system_last_error(sys));
    CHECK(f.rows == 4, "4 rows after t = 0 (got %d)", f.rows);
    tu_case(NULL);
    tu_summary(f0,
               "%s engine, %s drag, free flight to t = 2 s: worst relative error %.2e (<= 1e-10)",
               en, quadratic ? "quadratic" : "linear", f.worst);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* Two equal balls under equal linear drag, one striking the other: the
 * contact's forces cancel in the total momentum, which decays as
 * P₀ e^(−bt/m) through the collision (a closed form that the contact does not
 * touch); and T + U + dissipated (drag's quadrature, the contact's) = T₀. */
static void collision_momentum(int engine)
{
    const double m = 0.05, r = 0.01, v0 = 1.0, b = 0.05, t_end = 0.2;
    const char *en = engine_name[engine];
    tu_case("%s collision under drag", en);
    int f0 = tu_failed;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m, r, 0.0, v0);
    cr_model_add_ball(model, m, r, 2.0 * r + 0.05, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP); /* undamped Hertz */
    cr_model_set_default_contact(model, &law);
    for (size_t i = 0; i < 2; i++)
        cr_model_set_drag(model, i, b, 0.0);
    cr_system *sys = make(model, engine, 0.0);
    CHECK(cr_system_run(sys, t_end) == CR_OK, "run: %s", cr_system_last_error(sys));
    double v[2];
    cr_system_get_velocities(sys, v);
    CHECK(v[1] > v[0] && cr_system_event_count(sys) >= 1, "the struck ball leads after the impact");
    double P = m * (v[0] + v[1]), Pr = m * v0 * exp(-b * t_end / m);
    CHECK_REL(P, Pr, 1e-10, "P0 exp(-b t/m): internal forces cancel");
    CHECK_REL_INV(cr_system_kinetic_energy(sys) + cr_system_potential_energy(sys) +
                      cr_system_dissipated_work(sys),
                  0.5 * m * v0 * v0, 1e-8, "T + U + dissipated = T0");
    tu_case(NULL);
    tu_summary(f0,
               "%s engine, 2-ball collision under equal linear drag: momentum %.12g vs "
               "P0 e^(-bt/m) = %.12g (<= 1e-10), energy balanced",
               en, P, Pr);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

typedef struct {
    double t[2], D[2]; /* time and dissipated work at the first and last event */
    size_t n;
} event_log;

static int log_event(const cr_system *sys, size_t first, void *user)
{
    (void)first;
    event_log *l = user;
    int k = l->n++ == 0 ? 0 : 1;
    l->t[k] = cr_system_get_time(sys);
    l->D[k] = cr_system_dissipated_work(sys);
    return CR_OK;
}

/* The automatic end (t_end ≤ 0) under drag alone: both engines end when no
 * pair can meet again (cr_drag_pair_parts); under drag and gravity it is
 * refused. */
static cr_model *light_behind_heavy(void)
{
    /* separating at t = 0 (2 m/s ahead of 1 m/s), but the heavy ball 1's drag
     * (b/m = 1/s) stops it within 2 m (its reach v m/b) while the light ball 0
     * (b/m = 0.1/s, reach 10 m) catches it near t = 2 s and bounces back */
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, 0.2, 0.01, 0.0, 1.0);
    cr_model_add_ball(model, 1.0, 0.01, 0.03, 2.0);
    cr_model_set_drag(model, 0, 0.02, 0.0);
    cr_model_set_drag(model, 1, 1.0, 0.0);
    return model;
}

static void auto_end_meets_again(int engine)
{
    tu_case("%s automatic end under drag: the pair meets again", engine_name[engine]);
    int f0 = tu_failed;
    cr_model *model = light_behind_heavy();
    cr_system *sys = make(model, engine, 0.0);
    int rc = cr_system_run(sys, 0.0);
    CHECK(rc == CR_OK, "run: %s", cr_system_last_error(sys));
    size_t n = cr_system_event_count(sys);
    double t_auto = cr_system_get_time(sys), v[2];
    const double t_last = n ? cr_system_events(sys)[n - 1].t : 0.0;
    cr_system_get_velocities(sys, v);
    CHECK(n >= 1 && strstr(cr_system_end_reason(sys), "drag"),
          "the pair that separated at t = 0 met again (%zu events), ended by the drag rule (%s)", n,
          cr_system_end_reason(sys));
    CHECK(t_auto == t_last && v[0] < 0.0 && v[1] > 0.0,
          "ends at the collision's last event (t = %.6g, last event %.6g), the light ball "
          "bouncing back (v = %.3g, %.3g)",
          t_auto, t_last, v[0], v[1]);
    /* the same run to 20 s (ten relaxation times of ball 1 later) has no other event */
    cr_system *ref = make(model, engine, 0.0);
    CHECK(cr_system_run(ref, 20.0) == CR_OK, "run to 20 s: %s", cr_system_last_error(ref));
    CHECK_SELF(cr_system_event_count(ref) == n,
               "to 20 s: the same %zu events (got %zu): nothing happened after the auto end", n,
               cr_system_event_count(ref));
    /* under drag and gravity an automatic end is refused, naming gravity */
    cr_system_destroy(ref);
    cr_model_set_gravity(model, -9.81);
    ref = make(model, engine, 0.0);
    rc = cr_system_run(ref, 0.0);
    CHECK(rc == CR_ERR_INVALID && strstr(cr_system_last_error(ref), "gravity"),
          "drag and gravity: refused, naming gravity (rc %d: %s)", rc, cr_system_last_error(ref));
    tu_case(NULL);
    tu_summary(f0,
               "%s engine, t_end auto under drag: a separating pair meets again at t = %.4g s, "
               "the run ends there by the drag rule; a 20 s run has the same %zu events",
               engine_name[engine], t_last, n);
    cr_system_destroy(ref);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* Ball 0 at u = 1 m/s under linear drag b/m = 1/s moves at most its reach
 * u m/b = 1 m; ball 1 rests a gap g ahead. g = 1.001 m: they never meet and
 * the automatic end comes at t = 0; g = 0.999 m: they meet at the closed form
 * t* = −(m/b) ln(1 − g b/(m u)) = ln 1000 = 6.908 s. */
static void auto_end_reach(int engine)
{
    tu_case("%s automatic end under drag: reach", engine_name[engine]);
    int f0 = tu_failed;
    double t_close = 0.0;
    for (int meets = 0; meets <= 1; meets++) {
        double g = meets ? 0.999 : 1.001;
        cr_model *model = cr_model_create();
        cr_model_add_ball(model, 1.0, 0.01, 0.0, 1.0);
        cr_model_add_ball(model, 1.0, 0.01, 0.02 + g, 0.0);
        cr_model_set_drag(model, 0, 1.0, 0.0);
        cr_system *sys = make(model, engine, 0.0);
        CHECK(cr_system_run(sys, 0.0) == CR_OK, "run: %s", cr_system_last_error(sys));
        size_t n = cr_system_event_count(sys);
        if (!meets) {
            CHECK(n == 0 && cr_system_get_time(sys) == 0.0 &&
                      strstr(cr_system_end_reason(sys), "drag"),
                  "gap 1.001 m beyond the reach 1 m: ends at t = 0 (t = %g, %zu events, %s)",
                  cr_system_get_time(sys), n, cr_system_end_reason(sys));
        } else {
            CHECK(n >= 1, "gap 0.999 m: the balls meet (%zu events)", n);
            t_close = n ? cr_system_events(sys)[0].t : 0.0;
            /* the closing is located at the surfaces' touch */
            CHECK_REL(t_close, log(1000.0), 1e-9, "t* = -(m/b) ln(1 - g b/(m u)) = ln 1000");
        }
        cr_system_destroy(sys);
        cr_model_destroy(model);
    }
    tu_case(NULL);
    tu_summary(f0,
               "%s engine, t_end auto under linear drag: a gap beyond the reach u m/b ends the "
               "run at t = 0, within it the balls meet at t = %.9g (closed form ln 1000)",
               engine_name[engine], t_close);
}

/* A pool (dim 2) with drag set from code is refused by both pool engines
 * (cr_model_validate): their exact flights know no drag. */
static void pool_refused(void)
{
    tu_case("pool with drag");
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    const double x[2] = {0.0, 0.0}, v[2] = {1.0, 0.0};
    cr_model_add_body(model, 1.0, 0.1, x, v);
    CHECK(cr_model_set_drag(model, 0, 0.1, 0.0) == CR_OK, "set drag");
    char msg[256] = "";
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    CHECK(!sys && strstr(msg, "drag is available in dim 1 only"), "compliant pool refused: %s",
          msg);
    cr_law_params lp;
    cr_law_params_init(&lp);
    msg[0] = '\0';
    cr_system *rs = cr_system_create_rigid(model, CR_LAW_NEWTON, &lp, msg, sizeof msg);
    CHECK(!rs && strstr(msg, "drag is available in dim 1 only"), "rigid pool refused: %s", msg);
    cr_system_destroy(sys);
    cr_system_destroy(rs);
    cr_model_destroy(model);
    tu_case(NULL);
}

/* The monitor under drag: drag is no field (an episode's field_work is 0
 * without gravity), and the episode's dissipated T⁻ − T⁺ + W is the drag's
 * work over the contact, the growth of the system's dissipated-work
 * quadrature from the closing to the opening event (undamped contact). */
static void episode_dissipation(void)
{
    const double m = 0.05, r = 0.01, b = 0.5;
    tu_case("episode under drag");
    int f0 = tu_failed;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m, r, 0.0, 1.0);
    cr_model_add_ball(model, m, r, 2.0 * r + 0.01, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e7, 1.5, 0.0, CR_RELEASE_GAP); /* contact ~1e-4 s */
    cr_model_set_default_contact(model, &law);
    for (size_t i = 0; i < 2; i++)
        cr_model_set_drag(model, i, b, 0.0);
    cr_system *sys = make(model, COMPLIANT, 0.0);
    event_log l = {{0}, {0}, 0};
    cr_system_add_event_listener(sys, log_event, &l);
    cr_monitor *mon = cr_monitor_create(sys);
    CHECK(cr_system_run(sys, 0.05) == CR_OK, "run: %s", cr_system_last_error(sys));
    CHECK(cr_monitor_finish(mon) == CR_OK, "finish: %s", cr_monitor_last_error(mon));
    cr_episode_info in = {0};
    CHECK(cr_monitor_episode_count(mon) == 1 && cr_monitor_get_episode(mon, 0, &in) == CR_OK,
          "one episode");
    CHECK(in.field_work == 0.0, "drag is not field work (got %g)", in.field_work);
    CHECK(fabs(in.t_start - l.t[0]) <= 1e-12 && fabs(in.t_end - l.t[1]) <= 1e-12,
          "the episode runs from the closing to the opening event");
    CHECK_REL_INV(in.dissipated, l.D[1] - l.D[0], 1e-9,
                  "episode's T- - T+ = drag's work over the contact (quadrature)");
    CHECK(in.kappa < 1.0, "kappa below 1 by drag's loss in the contact (%.12f)", in.kappa);
    tu_case(NULL);
    tu_summary(f0,
               "episode under linear drag (b/m = 10/s): field_work 0, dissipated %.6e J = "
               "drag's work over the contact %.6e J, kappa %.9f",
               in.dissipated, l.D[1] - l.D[0], in.kappa);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

/* The turning point between samples (t0, x0, v0) and (t1, x1, v1) whose
 * velocities change sign: the extreme of the cubic Hermite interpolant of
 * (x, v) (error O(h⁴ x'''') with h the sampling step). */
static double hermite_extreme(double h, double x0, double v0, double x1, double v1)
{
    /* x(s) = h00 x0 + h10 h v0 + h01 x1 + h11 h v1, s in [0, 1]; x'(s) = A s² + B s + C */
    double A = 6.0 * (x0 - x1) + 3.0 * h * (v0 + v1);
    double B = 6.0 * (x1 - x0) - h * (4.0 * v0 + 2.0 * v1);
    double C = h * v0;
    double s;
    if (fabs(A) < 1e-300) {
        s = -C / B;
    } else {
        double disc = sqrt(fmax(B * B - 4.0 * A * C, 0.0));
        double q = -0.5 * (B + copysign(disc, B));
        double s1 = q / A, s2 = C / q;
        s = (s1 >= -1e-9 && s1 <= 1.0 + 1e-9) ? s1 : s2;
    }
    double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * h * v0 + (-2 * s3 + 3 * s2) * x1 +
           (s3 - s2) * h * v1;
}

typedef struct {
    double h, xp, vp, ext[8];
    int next;
} swings;

/* At every row: a velocity sign change since the last row brackets an extreme. */
static int swing_row(const cr_system *sys, void *user)
{
    swings *w = user;
    double x, v;
    cr_system_get_positions(sys, &x);
    cr_system_get_velocities(sys, &v);
    if (cr_system_get_time(sys) > 0.0 && w->next < 8 &&
        ((w->vp < 0.0 && v >= 0.0) || (w->vp > 0.0 && v <= 0.0)))
        w->ext[w->next++] = hermite_extreme(w->h, w->xp, w->vp, x, v);
    w->xp = x;
    w->vp = v;
    return CR_OK;
}

/* Pendulum under linear drag: the decrement of successive extremes (opposite
 * sides, half a damped period apart) is πγ/ω_d for the linear oscillator.
 * Method: rows every T_d/400; an extreme is located by the velocity's sign
 * change between two rows and refined by the cubic Hermite interpolant of the
 * rows' (x, v) (error ~ (ω h)⁴/384 ≈ 1.6e-10 of the amplitude). */
static void pendulum_decrement(int engine)
{
    const double m = 0.1, r = 0.01, L = 1.0, g = 9.81, theta0 = 1e-3, gam = 0.05;
    const double b = 2.0 * m * gam, wd = sqrt(g / L - gam * gam), ref = M_PI * gam / wd;
    const char *en = engine_name[engine];
    tu_case("%s pendulum decrement", en);
    int f0 = tu_failed;
    cr_model *model = cr_model_create();
    cr_model_add_ball(model, m, r, L * theta0, 0.0);
    cr_model_set_pendulum(model, 0, 0.0, L, g);
    cr_model_set_drag(model, 0, b, 0.0);
    swings w = {.h = 2.0 * M_PI / wd / 400.0};
    w.ext[w.next++] = L * theta0; /* released from rest: the first extreme */
    cr_system *sys = make(model, engine, w.h);
    cr_system_add_output_listener(sys, swing_row, &w);
    /* 7 more extremes: 3.5 damped periods, and a little more */
    CHECK(cr_system_run(sys, 3.6 * 2.0 * M_PI / wd) == CR_OK, "run: %s", cr_system_last_error(sys));
    CHECK(w.next == 8, "8 extremes found (got %d)", w.next);
    double worst = 0.0;
    for (int n = 0; n + 1 < w.next; n++) {
        double dec = log(fabs(w.ext[n]) / fabs(w.ext[n + 1]));
        CHECK_REL(dec, ref, 1e-6, "pi gamma / omega_d of the damped linear oscillator");
        worst = fmax(worst, fabs(dec / ref - 1.0));
    }
    tu_case(NULL);
    tu_summary(f0,
               "%s engine, pendulum theta0 = 1e-3 rad, linear drag: decrement of 7 successive "
               "extremes vs pi gamma/omega_d = %.6f, worst relative error %.2e (<= 1e-6)",
               en, ref, worst);
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

static int parse(const char *text, cr_model **model, char *msg, size_t len)
{
    *model = NULL;
    return cr_modelfile_parse(text, strlen(text), "drag.yaml", model, msg, len);
}

/* The model file's drag and density fields: coefficients and masses from
 * their formulas, and the refusals, each one line naming file, line, field. */
static void model_file(void)
{
    int f0 = tu_failed;
    char msg[512];
    cr_model *md;
    const char *ok = "balls:\n"
                     "  - {density: 7800, radius: 0.01, x: 0, v: 1}\n"
                     "  - {mass: 0.2, radius: 0.02, x: 0.1}\n"
                     "fields:\n"
                     "  drag: {viscosity: 1.8e-5, fluid_density: 1.2}\n"
                     "integration: {t_end: 1}\n";
    tu_case("model file drag and density");
    CHECK(parse(ok, &md, msg, sizeof msg) == CR_OK, "parse: %s", msg);
    if (md) {
        double b, c;
        CHECK_REL(cr_model_mass(md, 0), 7800.0 * 4.0 / 3.0 * M_PI * 1e-6, 1e-15,
                  "m = rho (4/3) pi r^3");
        CHECK(cr_model_drag(md, 1, &b, &c) == 1, "body 1 has drag");
        CHECK_REL(b, 6.0 * M_PI * 1.8e-5 * 0.02, 1e-15, "Stokes b = 6 pi eta r");
        CHECK_REL(c, 0.5 * 1.2 * 0.47 * M_PI * 0.02 * 0.02, 1e-15,
                  "Newton c = 1/2 rho C_d pi r^2, C_d = 0.47");
        cr_model_destroy(md);
    }
    const char *disc = "discs:\n  - {density: 1000, radius: 0.1, x: 0, y: 0}\n";
    CHECK(parse(disc, &md, msg, sizeof msg) == CR_OK, "disc: %s", msg);
    if (md) {
        CHECK_REL(cr_model_mass(md, 0), 1000.0 * 4.0 / 3.0 * M_PI * 1e-3, 1e-15,
                  "a disc is a ball moving in a plane: m = rho (4/3) pi r^3");
        cr_model_destroy(md);
    }
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"balls:\n  - {mass: 1, radius: 0.01, x: 0}\n  - {mass: 1, density: 7800, radius: 0.01, x: "
         "0.1}\n",
         "drag.yaml:3: balls[1]: give either mass or density"},
        {"chain: {count: 3, mass: 1, density: 2, radius: 0.01, velocity: 0}\n",
         "drag.yaml:1: chain: give either mass or density"},
        {"balls:\n  - {density: -1, radius: 0.01, x: 0}\n",
         "drag.yaml:2: balls[0].density: must be positive"},
        {"balls:\n  - {mass: 1, radius: 0.01, x: 0, v: 1}\n"
         "fields:\n  drag: {linear: 0.1}\n  gravity: -9.81\n",
         "drag.yaml:4: integration.t_end: with gravity, pendulums, or drag beside links"},
        {"balls:\n  - {mass: 1, radius: 0.01, x: 0}\n"
         "fields:\n  drag: {linear: 0.1, viscosity: 1}\nintegration: {t_end: 1}\n",
         "drag.yaml:4: fields.drag: give either viscosity"},
        {"balls:\n  - {mass: 1, radius: 0.01, x: 0}\n"
         "fields:\n  drag: {cd: 1}\nintegration: {t_end: 1}\n",
         "drag.yaml:4: fields.drag: cd needs fluid_density"},
        {"balls:\n  - {mass: 1, radius: 1e50, x: 0}\n"
         "fields:\n  drag: {viscosity: 1e60}\nintegration: {t_end: 1}\n",
         "drag.yaml:4: fields.drag: body 0: drag coefficients"},
        {"discs:\n  - {mass: 1, radius: 0.1, x: [0, 0]}\n"
         "fields:\n  drag: {linear: 0.1}\nintegration: {t_end: 1}\n",
         "drag.yaml:4: fields.drag: drag is available in dim 1 only"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = parse(bad[k].text, &md, msg, sizeof msg);
        CHECK(rc == CR_ERR_MODEL && strncmp(msg, bad[k].want, strlen(bad[k].want)) == 0 &&
                  !strchr(msg, '\n'),
              "bad input %zu: one line \"%s...\" (got rc %d, \"%s\")", k, bad[k].want, rc, msg);
        cr_model_destroy(md);
    }
    tu_case(NULL);
    tu_summary(f0,
               "model file: density gives m = rho (4/3) pi r^3 (balls and discs), viscosity "
               "and fluid_density give 6 pi eta r and 1/2 rho C_d pi r^2; %zu refusals",
               sizeof bad / sizeof bad[0]);
}

int main(void)
{
    for (int engine = COMPLIANT; engine <= RIGID; engine++) {
        free_flight(engine, 0);
        free_flight(engine, 1);
        pendulum_decrement(engine);
        collision_momentum(engine);
        auto_end_meets_again(engine);
        auto_end_reach(engine);
    }
    episode_dissipation();
    pool_refused();
    model_file();
    return tu_finish("test-drag");
}
