/*
 * Active-region integration of pools (issue 12) against the whole pool.
 *
 * The pool engine integrates only the discs near an engaged contact and moves
 * the others exactly, at rest or in free flight (docs/design.md, "Active
 * region"); integration.active_region: off integrates every disc at every
 * step, the engine as it was, and is the reference here. At rtol 1e-12 both
 * must give the same final velocities and positions to 1e-8 of the striker's
 * speed (issue 12, "Tests"), the same events (pair, kind, in the same order;
 * compression extrema within 1e-6 of a contact time, closings and openings
 * within 1e-8 V t in the overlap their time implies) and output rows that
 * carry the exact states of the discs outside the region. Cases: a 100-disc packing
 * hit by a striker (the bench/peers pool at N = 100), a small pool with two
 * separate collisions and a wall, a disc that flies in from beyond the
 * neighbour skin; with BDF + KLU, Adams + fixed point and GMRES. The region
 * must also have done its job: stayed smaller than the pool, grown as discs
 * joined, shrunk as they settled (five discs and a wall), and held the flier
 * alone while it flew. The disc flying in is also held against the test's own
 * integration (refpool.h: fixed-step RK4, every pair at every stage, exact
 * free flight between contacts), both settings, to AGREE.
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"
#include "refpool.h"

/* The agreement tolerance: max |Δv| / striker speed. */
#define AGREE 1e-8

/* Steel discs of test-pool: 20 mm, 32.9 g, Hertz K of two such balls. */
static const double M = 0.0329, R = 0.01, K = 1.0878565e10;

/* Hertz contact time of two such discs at 1 m/s (test-pool's closed form:
 * t_c = 2.943275 δmax / v, δmax = (5 μ v² / (4 K))^(2/5)). */
static double contact_time(void)
{
    return 2.943275184324706 * pow(5.0 * 0.5 * M / (4.0 * K), 0.4);
}

static cr_model *new_pool(void)
{
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    cr_contact_params law;
    cr_contact_params_init(&law, K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    return m;
}

static void add(cr_model *m, double x, double y, double vx, double vy)
{
    double p[2] = {x, y}, v[2] = {vx, vy};
    cr_model_add_body(m, M, R, p, v);
}

/* bench/peers' packing at n discs: rows touching along x, rows ~1 µm apart
 * with a fixed pseudo-random jitter, a striker at 1 m/s 10 µm before row 0. */
static cr_model *packing(int n)
{
    cr_model *m = new_pool();
    int side = (int)ceil(sqrt((double)n)), k = 0;
    unsigned long long s = 7;
    for (int row = 0; k < n; row++)
        for (int col = 0; col < side && k < n; col++, k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double jitter = 1e-6 * (double)(s >> 11) / 9007199254740992.0;
            add(m, 2 * R * col + (row % 2) * R, row * (sqrt(3.0) * R + 1e-6) + jitter, 0, 0);
        }
    add(m, -2 * R - 1e-5, 0.0, 1.0, 0.0);
    return m;
}

/* Two collisions far apart (one of three discs, one of a disc on a wall) and
 * a resting disc nobody touches. */
static cr_model *small(void)
{
    cr_model *m = new_pool();
    double th = M_PI / 3, g = 1e-5;
    add(m, -(2 * R + g) * cos(th), -(2 * R + g) * sin(th), cos(th), sin(th));
    add(m, 0.0, 0.0, 0.0, 0.0);
    add(m, 2 * R, 0.0, 0.0, 0.0);
    add(m, 1.0, 0.5, 0.0, 1.0); /* 2 mm from the wall y = 0.5 + R + 2 mm */
    add(m, -1.0, 0.0, 0.0, 0.0);
    double n[2] = {0.0, -1.0}; /* free space: −y ≥ offset */
    cr_model_add_plane(m, n, -(0.5 + R + 2e-3), NULL);
    return m;
}

/* A resting row of 6 touching discs and a cue disc 0.2 m away (beyond the
 * neighbour skin): it flies in, the row takes the pulse. */
static cr_model *fly_in(void)
{
    cr_model *m = new_pool();
    for (int i = 0; i < 6; i++)
        add(m, 2 * R * i, 0.0, 0.0, 0.0);
    add(m, -0.2, 0.003, 2.0, 0.0);
    return m;
}

typedef struct {
    size_t n, nev, rows;
    double t, *x, *v, *xrow; /* final positions and velocities; positions at the 5th row */
    double t_solo;           /* outputs up to this time record the region so far (solo) */
    long solo;
    cr_event *ev;
    long *pa, *pb; /* each event's pair */
    cr_run_stats st;
} result;

static void result_free(result *r)
{
    free(r->x);
    free(r->v);
    free(r->xrow);
    free(r->ev);
    free(r->pa);
    free(r->pb);
}

/* Output rows: the positions of the 5th, as an HDF5 row would carry them. */
static int on_output(const cr_system *s, void *user)
{
    result *r = user;
    if (r->rows++ == 5)
        cr_system_get_positions(s, r->xrow);
    if (cr_system_get_time(s) <= r->t_solo)
        r->solo = cr_system_get_stats(s).max_window;
    return 0;
}

static result run(cr_model *m, cr_active_region ar, cr_method method, cr_linear_solver solver,
                  double t_end, double t_solo)
{
    cr_settings set = *cr_model_settings(m);
    set.rtol = 1e-12;
    set.atol = 1e-14;
    set.active_region = ar;
    set.method = method;
    set.solver = solver;
    set.output_interval = t_end > 0 ? t_end / 20 : 0.0;
    cr_model_set_settings(m, &set);
    result r = {0};
    r.t_solo = t_solo;
    cr_system *s = tu_system(m);
    r.n = cr_system_body_count(s);
    r.x = calloc(2 * r.n, sizeof(double));
    r.v = calloc(2 * r.n, sizeof(double));
    r.xrow = calloc(2 * r.n, sizeof(double));
    cr_system_add_output_listener(s, on_output, &r);
    int rc = cr_system_run(s, t_end);
    CHECK(rc == CR_OK, "run failed: %s", cr_system_last_error(s));
    cr_system_get_positions(s, r.x);
    cr_system_get_velocities(s, r.v);
    r.nev = cr_system_event_count(s);
    r.ev = malloc((r.nev + 1) * sizeof(cr_event));
    r.pa = malloc((r.nev + 1) * sizeof(long));
    r.pb = malloc((r.nev + 1) * sizeof(long));
    memcpy(r.ev, cr_system_events(s), r.nev * sizeof(cr_event));
    for (size_t e = 0; e < r.nev; e++) {
        cr_contact_view w;
        cr_system_get_contact(s, r.ev[e].contact, &w);
        r.pa[e] = (long)w.body_a;
        r.pb[e] = w.body_b;
    }
    r.st = cr_system_get_stats(s);
    r.t = cr_system_get_time(s);
    cr_system_destroy(s);
    return r;
}

/* The final velocities of the model @p m (no wall, no field, one law; up to
 * REFPOOL_MAX discs) by refpool.h; its error estimate in *est (relative to V).
 * 0 when refpool cannot take the model. */
static int rk4_velocities(const cr_model *m, double V, double *v, double *est)
{
    size_t n = cr_model_body_count(m);
    const cr_contact_params *law = cr_model_default_contact(m);
    if (n > REFPOOL_MAX || cr_model_plane_count(m) > 0 || cr_model_has_fields(m) || !law)
        return 0;
    refpool c;
    memset(&c, 0, sizeof c);
    c.n = n;
    for (size_t i = 0; i < n; i++) {
        c.m[i] = cr_model_mass(m, i);
        c.r[i] = cr_model_radius(m, i);
        cr_model_get_body(m, i, &c.x[2 * i], &c.v[2 * i]);
    }
    c.K = law->K;
    c.e = law->n;
    c.C = law->C;
    c.dm = law->m;
    c.force_release = law->release == CR_RELEASE_FORCE;
    double h = refpool_step(&c, V, 4000.0);
    if (refpool_final(&c, h, 100.0, v, est) < 0.0)
        return 0;
    *est /= V;
    return 1;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* What agree asks of the region besides agreement. */
typedef struct {
    double max_share; /* largest region: this share of the discs at most (< 1) */
    int grows;        /* discs join it: more than one region built */
    int shrinks;      /* settled discs leave it: a region rebuilt smaller */
    double t_solo;    /* > 0: up to this time the region is one disc (a lone flier) */
} expect;

/* The active region against the whole pool: velocities and positions (over
 * V t, the distance the striker flies) to AGREE, output rows likewise, the
 * same events (V: the striker's speed); the region as @p ex says. */
static void agree(const char *name, cr_model *m, double V, cr_method method,
                  cr_linear_solver solver, double t_end, expect ex)
{
    tu_case("%s", name);
    result w = run(m, CR_ACTIVE_REGION_OFF, method, solver, t_end, 0.0);
    result a = run(m, CR_ACTIVE_REGION_AUTO, method, solver, t_end, ex.t_solo);
    double dv = max_diff(a.v, w.v, 2 * a.n) / V, span = V * w.t;
    double dx = max_diff(a.x, w.x, 2 * a.n) / span, drow = max_diff(a.xrow, w.xrow, 2 * a.n) / span;
    printf("  %-34s max |dv|/V %.2e, |dx|/(V t) %.2e, rows %.2e; events %zu/%zu; "
           "regions %ld (%ld smaller), largest %ld of %zu\n",
           name, dv, dx, drow, a.nev, w.nev, a.st.windows, a.st.shrinks, a.st.max_window, a.n);
    CHECK_SELF(dv <= AGREE, "%s: velocities differ by %.3g V", name, dv);
    CHECK_SELF(dx <= AGREE, "%s: positions differ by %.3g V t", name, dx);
    CHECK(a.rows == w.rows && a.rows > 5, "%s: output rows %zu/%zu", name, a.rows, w.rows);
    CHECK_SELF(drow <= AGREE, "%s: output rows' positions differ by %.3g V t", name, drow);
    /* to the automatic end, small pools: against the test's RK4 (refpool.h) */
    double vr[2 * REFPOOL_MAX], est = NAN;
    if (t_end == 0.0 && rk4_velocities(m, V, vr, &est)) {
        double ea = max_diff(a.v, vr, 2 * a.n) / V, ew = max_diff(w.v, vr, 2 * w.n) / V;
        CHECK_REF(ea <= AGREE && ew <= AGREE && est <= 0.1 * AGREE,
                  "%s: max |v - v_RK4| / V active %.3g, whole %.3g (<= %g; RK4 estimate %.1e)",
                  name, ea, ew, AGREE, est);
        printf("  %-34s vs RK4 (refpool.h): active %.2e, whole %.2e (its estimate %.1e)\n", "", ea,
               ew, est);
    }
    CHECK(a.nev == w.nev && a.nev > 0, "%s: %zu events, whole pool %zu", name, a.nev, w.nev);
    /* Event times: a closing or opening where δ crosses 1e-12 δ* moves by
     * Δδ / δ̇, and behind the front δ̇ can be 1e-11 V (a touching contact
     * creeping open): its time is compared through the overlap it implies,
     * |Δt δ̇| ≤ AGREE V t (as the positions). Compression extrema are
     * compared in time, to 1e-6 t_c. */
    size_t same = 0;
    double dt = 0.0, dd = 0.0;
    for (size_t e = 0; e < a.nev && e < w.nev; e++) {
        const cr_event *x = &a.ev[e], *y = &w.ev[e];
        same += x->kind == y->kind && a.pa[e] == w.pa[e] && a.pb[e] == w.pb[e];
        if (y->kind == CR_EVENT_CLOSE || y->kind == CR_EVENT_OPEN)
            dd = fmax(dd, fabs(x->t - y->t) * fabs(y->rate));
        else
            dt = fmax(dt, fabs(x->t - y->t));
    }
    CHECK_SELF(same == w.nev, "%s: %zu of %zu events with the same pair and kind in order", name,
               same, w.nev);
    CHECK_SELF(dt <= 1e-6 * contact_time(), "%s: compression event times differ by %.3g s", name,
               dt);
    CHECK_SELF(dd <= AGREE * span, "%s: closings and openings differ by %.3g m", name, dd);
    printf("  %-34s events: compression times within %.2e t_c, closings/openings within %.2e "
           "V t\n",
           "", dt / contact_time(), dd / span);
    CHECK(w.st.windows == 1 && w.st.max_window == (long)w.n, "%s: off integrates every disc", name);
    if (ex.max_share < 1.0)
        CHECK(a.st.max_window <= (long)(ex.max_share * (double)a.n),
              "%s: region of %ld discs of %zu", name, a.st.max_window, a.n);
    CHECK(!ex.grows || a.st.windows > 1, "%s: %ld regions built", name, a.st.windows);
    CHECK(!ex.shrinks || a.st.shrinks > 0, "%s: the region never shrank (%ld regions)", name,
          a.st.windows);
    CHECK(w.st.shrinks == 0, "%s: the whole pool has no region to shrink", name);
    if (ex.t_solo > 0.0)
        CHECK(a.solo == 1, "%s: %ld discs integrated by t = %.3g s, the flier alone", name, a.solo,
              ex.t_solo);
    tu_case(NULL);
    result_free(&w);
    result_free(&a);
}

/* The cue of fly_in closes on disc 0 where free flight puts it: centres 2R
 * apart, t = (0.2 − √((2R)² − 0.003²)) / 2 m/s (the margin 1e-12 δ* moves it
 * by ~1e-17 s). Once one step of free flight carried the cue through that
 * closing (no event, 2 mm deep); the engine now finds a closing function that
 * crosses and comes back within a step (pool-roots.c, hidden crossings). */
static void flight_closing(cr_model *m)
{
    double t_close = (0.2 - sqrt(4 * R * R - 0.003 * 0.003)) / 2.0;
    for (int k = 0; k < 2; k++) {
        tu_case("cue closing, %s", k ? "active region" : "whole pool");
        result r = run(m, k ? CR_ACTIVE_REGION_AUTO : CR_ACTIVE_REGION_OFF, CR_METHOD_BDF,
                       CR_SOLVER_AUTO, 0.0, 0.0);
        CHECK(r.nev > 0 && r.ev[0].kind == CR_EVENT_CLOSE && r.pa[0] == 0 && r.pb[0] == 6,
              "%s: the cue's closing on disc 0 comes first", k ? "active region" : "whole pool");
        double tc = r.nev ? r.ev[0].t : 0.0;
        CHECK_REF(fabs(tc - t_close) <= 1e-9 * t_close,
                  "%s: free-flight closing at %.15g s, %.15g s", k ? "active region" : "whole pool",
                  tc, t_close);
        result_free(&r);
    }
    tu_case(NULL);
}

/* Under gravity no disc flies exactly: auto integrates every disc, on is refused. */
static void field(void)
{
    cr_model *m = small();
    cr_model_set_gravity(m, -9.81);
    result r = run(m, CR_ACTIVE_REGION_AUTO, CR_METHOD_BDF, CR_SOLVER_AUTO, 2e-4, 0.0);
    CHECK(r.st.max_window == (long)r.n, "gravity: auto integrates all %zu discs (%ld)", r.n,
          r.st.max_window);
    result_free(&r);
    cr_settings set = *cr_model_settings(m);
    set.active_region = CR_ACTIVE_REGION_ON;
    set.t_end = 1e-3;
    cr_model_set_settings(m, &set);
    char msg[512];
    CHECK(cr_model_validate(m, msg, sizeof msg) == CR_ERR_MODEL && strstr(msg, "active_region"),
          "gravity with on refused: %s", msg);
    cr_model_destroy(m);
}

/* The model file takes the setting in dim 2. */
static void setting(void)
{
    const char *vals[] = {"auto", "on", "off"};
    const cr_active_region want[] = {CR_ACTIVE_REGION_AUTO, CR_ACTIVE_REGION_ON,
                                     CR_ACTIVE_REGION_OFF};
    for (int k = 0; k < 3; k++) {
        tu_case("active_region: %s", vals[k]);
        char text[512], msg[512];
        snprintf(text, sizeof text,
                 "dim: 2\nbodies:\n  - {mass: 1, radius: 0.1, x: [0, 0], v: [1, 0]}\n"
                 "  - {mass: 1, radius: 0.1, x: [0.3, 0]}\n"
                 "contact: {K: 1.0e6, n: 1.5}\nintegration: {active_region: %s}\n",
                 vals[k]);
        cr_model *m = NULL;
        cr_modelfile_parse(text, strlen(text), "t.yaml", &m, msg, sizeof msg);
        CHECK(m && cr_model_settings(m)->active_region == want[k], "dim 2, active_region: %s: %s",
              vals[k], m ? "wrong value" : msg);
        cr_model_destroy(m);
    }
    tu_case(NULL);
}

int main(void)
{
    double tc = contact_time();
    printf("pool active region vs whole pool at rtol 1e-12 (contact time %.3g s):\n", tc);
    cr_model *m = packing(100);
    /* the packing's last region (its fourth) holds 82 of the 101 discs: built
     * at 2.04e-4 s, when the contacts that start a few 1e-12 m open close
     * (77 at 1.88e-4 s while the engine shut such gaps at t = 0) */
    expect pack = {0.85, 1, 0, 0.0}, five = {0.8, 1, 1, 0.0};
    agree("100-disc packing, BDF + KLU", m, 1.0, CR_METHOD_BDF, CR_SOLVER_AUTO, 4 * tc, pack);
    agree("100-disc packing, Adams + fixed point", m, 1.0, CR_METHOD_ADAMS, CR_SOLVER_FIXED_POINT,
          4 * tc, pack);
    cr_model_destroy(m);
    m = small();
    agree("5 discs and a wall, automatic end", m, 1.0, CR_METHOD_BDF, CR_SOLVER_AUTO, 0.0, five);
    agree("5 discs and a wall, GMRES", m, 1.0, CR_METHOD_BDF, CR_SOLVER_GMRES, 4e-3, five);
    cr_model_destroy(m);
    /* every disc of the row takes the pulse, so the region holds all 7 at
     * some time; while the cue flies (half its way to the row) it is alone */
    m = fly_in();
    expect fly = {1.0, 1, 0, 0.5 * (0.2 - 2 * R) / 2.0};
    agree("a disc flying in, automatic end", m, 2.0, CR_METHOD_BDF, CR_SOLVER_AUTO, 0.0, fly);
    flight_closing(m);
    cr_model_destroy(m);
    field();
    setting();
    return tu_finish("test-pool-region");
}
