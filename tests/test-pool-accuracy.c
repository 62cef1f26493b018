/*
 * Pool accuracy against an independent integration (issue 23, item 9): the
 * 100-disc pool of bench/peers (steel discs in rows touching along x, each
 * disc raised by up to 1 µm, so that many neighbours in a row start a few
 * 10⁻¹² m or less apart, and one striker at 1 m/s), 10 contact times, against
 * the same discs and Hertz law integrated here by an embedded Runge-Kutta
 * method (Dormand & Prince 5(4), adaptive steps, no event location: the force
 * K δ^{3/2} is C¹ across δ = 0, and the step control shortens the steps
 * there). Final velocities within 1e-8 V at rtol 1e-11 (atol 1e-13): the
 * defaults (BDF + KLU, active region) and Adams with fixed point on every disc.
 *
 * The engine once set the overlap of every pair within ε_geom = 10⁻⁹ r of
 * touching to exactly 0, closing gaps of up to 5·10⁻¹² m: a floor of
 * 1.7·10⁻⁷ V on this pool (4.8·10⁻⁷ V on the 1000-disc one) at every rtol.
 * The reference is checked against itself at a 10 times tighter tolerance
 * (and agreed with scipy's DOP853 at rtol 1e-13 to 1e-10 V when written).
 */
#include <string.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"

/* bench/peers' pool (bench/peers/peers-cradle.c, pool()): steel discs, E = 2.1e11
 * Pa, ν = 0.3, R = 5 mm; K = (4/3) E/(2(1 − ν²)) √(R/2) for two equal discs. */
static const double RD = 0.005, MD = 0.0041, KH = 7692307692.3076925;
static const double T_END = 3.005e-4; /* 10 contact times, as in bench/peers */

#define NMAX 128

typedef struct {
    size_t n;
    double x[2 * NMAX], v[2 * NMAX]; /* initial centres (m) and velocities (m/s) */
} pool;

/* The packing of peers-cradle with its generator: rows touching along x, rows
 * ~1 µm apart, each disc raised by a jitter below 1 µm, and a striker on row 0. */
static void make_pool(pool *p, int n)
{
    int side = (int)ceil(sqrt((double)n)), k = 0;
    unsigned long long s = 7;
    memset(p, 0, sizeof *p);
    for (int row = 0; k < n; row++)
        for (int col = 0; col < side && k < n; col++, k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double jitter = 1e-6 * (double)(s >> 11) / 9007199254740992.0;
            p->x[2 * k] = 2 * RD * col + (row % 2) * RD;
            p->x[2 * k + 1] = row * (sqrt(3.0) * RD + 1e-6) + jitter;
        }
    p->x[2 * k] = -2 * RD - 1e-5;
    p->x[2 * k + 1] = 0.0;
    p->v[2 * k] = 1.0;
    p->n = (size_t)n + 1;
}

/* ---- the independent integration -------------------------------------------
 * State: displacements from the start in units of L and velocities in units of
 * V, time in units of L/V. Pairs: those whose surfaces start within a radius
 * (no disc moves a tenth of one here; checked at the end). */

static const double L = 1e-5, V = 1.0;

typedef struct {
    const pool *p;
    size_t np, *pi, *pj;
} ref_ctx;

static void ref_rhs(const ref_ctx *c, const double *z, double *dz)
{
    size_t n = c->p->n;
    const double *u = z, *w = z + 2 * n;
    double *du = dz, *dw = dz + 2 * n, acc = (L / V) / (V * MD);
    memcpy(du, w, 2 * n * sizeof(double));
    memset(dw, 0, 2 * n * sizeof(double));
    for (size_t q = 0; q < c->np; q++) {
        size_t i = c->pi[q], j = c->pj[q];
        double ax = c->p->x[2 * j] - c->p->x[2 * i] + L * (u[2 * j] - u[2 * i]);
        double ay = c->p->x[2 * j + 1] - c->p->x[2 * i + 1] + L * (u[2 * j + 1] - u[2 * i + 1]);
        double d = hypot(ax, ay), delta = 2 * RD - d;
        if (delta <= 0.0)
            continue;
        double f = KH * delta * sqrt(delta) * acc / d; /* along (ax, ay) from i to j */
        dw[2 * j] += f * ax;
        dw[2 * j + 1] += f * ay;
        dw[2 * i] -= f * ax;
        dw[2 * i + 1] -= f * ay;
    }
}

/* Dormand & Prince 5(4) (Hairer, Nørsett & Wanner, Solving ODEs I, Table 5.2),
 * FSAL, local extrapolation, error per component against tol (1 + |z|).
 * Final velocities (m/s) into v; @return the number of steps. */
static long reference(const pool *p, double t_end, double tol, double *v)
{
    static const double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
    static const double a21 = 1.0 / 5, a31 = 3.0 / 40, a32 = 9.0 / 40, a41 = 44.0 / 45,
                        a42 = -56.0 / 15, a43 = 32.0 / 9, a51 = 19372.0 / 6561,
                        a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729,
                        a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247,
                        a64 = 49.0 / 176, a65 = -5103.0 / 18656, b1 = 35.0 / 384, b3 = 500.0 / 1113,
                        b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
    /* b − b̂ (the 4th-order weights b̂ from the same table) */
    static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920,
                        e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;
    (void)c2, (void)c3, (void)c4, (void)c5; /* autonomous: the stages' times are not needed */
    size_t n = p->n, m = 4 * n, cap = n * n;
    ref_ctx c = {p, 0, malloc(cap * sizeof(size_t)), malloc(cap * sizeof(size_t))};
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (hypot(p->x[2 * j] - p->x[2 * i], p->x[2 * j + 1] - p->x[2 * i + 1]) < 3 * RD) {
                c.pi[c.np] = i;
                c.pj[c.np++] = j;
            }
    double *z = calloc(m, sizeof(double)), *zn = calloc(m, sizeof(double)),
           *zt = calloc(m, sizeof(double)), *k[7];
    for (int s = 0; s < 7; s++)
        k[s] = calloc(m, sizeof(double));
    for (size_t i = 0; i < 2 * n; i++)
        z[2 * n + i] = p->v[i] / V;
    double t = 0.0, tend = t_end * V / L, h = 1e-3;
    long steps = 0;
    ref_rhs(&c, z, k[0]);
    while (t < tend) {
        if (t + h > tend)
            h = tend - t;
#define STAGE(dst, ...)                                                                            \
    do {                                                                                           \
        for (size_t q = 0; q < m; q++)                                                             \
            zt[q] = z[q] + h * (__VA_ARGS__);                                                      \
        ref_rhs(&c, zt, dst);                                                                      \
    } while (0)
        STAGE(k[1], a21 * k[0][q]);
        STAGE(k[2], a31 * k[0][q] + a32 * k[1][q]);
        STAGE(k[3], a41 * k[0][q] + a42 * k[1][q] + a43 * k[2][q]);
        STAGE(k[4], a51 * k[0][q] + a52 * k[1][q] + a53 * k[2][q] + a54 * k[3][q]);
        STAGE(k[5], a61 * k[0][q] + a62 * k[1][q] + a63 * k[2][q] + a64 * k[3][q] + a65 * k[4][q]);
#undef STAGE
        for (size_t q = 0; q < m; q++)
            zn[q] = z[q] +
                    h * (b1 * k[0][q] + b3 * k[2][q] + b4 * k[3][q] + b5 * k[4][q] + b6 * k[5][q]);
        ref_rhs(&c, zn, k[6]);
        double err = 0.0;
        for (size_t q = 0; q < m; q++) {
            double e = h * (e1 * k[0][q] + e3 * k[2][q] + e4 * k[3][q] + e5 * k[4][q] +
                            e6 * k[5][q] + e7 * k[6][q]);
            err = fmax(err, fabs(e) / (tol * (1.0 + fmax(fabs(z[q]), fabs(zn[q])))));
        }
        if (err <= 1.0) {
            t += h;
            memcpy(z, zn, m * sizeof(double));
            memcpy(k[0], k[6], m * sizeof(double));
            steps++;
        }
        h *= fmin(5.0, fmax(0.2, 0.9 * pow(fmax(err, 1e-10), -0.2)));
    }
    /* no pair left out came near: every other pair stays a radius apart */
    double closest = INFINITY;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double ax = p->x[2 * j] - p->x[2 * i], ay = p->x[2 * j + 1] - p->x[2 * i + 1];
            if (hypot(ax, ay) < 3 * RD)
                continue;
            ax += L * (z[2 * j] - z[2 * i]);
            ay += L * (z[2 * j + 1] - z[2 * i + 1]);
            closest = fmin(closest, hypot(ax, ay) - 2 * RD);
        }
    CHECK(closest > RD, "a pair left out of the reference came %g m close", closest);
    for (size_t i = 0; i < 2 * n; i++)
        v[i] = V * z[2 * n + i];
    for (int s = 0; s < 7; s++)
        free(k[s]);
    free(z);
    free(zn);
    free(zt);
    free(c.pi);
    free(c.pj);
    return steps;
}

/* ---- cradle ---------------------------------------------------------------- */

static void run_cradle(const pool *p, double rtol, cr_method method, cr_active_region region,
                       double *v, long *steps)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    for (size_t i = 0; i < p->n; i++)
        cr_model_add_body(model, MD, RD, p->x + 2 * i, p->v + 2 * i);
    cr_contact_params law;
    cr_contact_params_init(&law, KH, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_settings s = cr_settings_default();
    s.rtol = rtol;
    s.atol = 1e-2 * rtol;
    s.method = method;
    s.active_region = region;
    cr_model_set_settings(model, &s);
    cr_system *sys = tu_system(model);
    CHECK(cr_system_run(sys, T_END) == CR_OK, "pool run: %s", cr_system_last_error(sys));
    cr_system_get_velocities(sys, v);
    *steps = cr_system_get_stats(sys).steps;
    cr_system_destroy(sys);
    cr_model_destroy(model);
}

static double max_diff(const double *a, const double *b, size_t m)
{
    double d = 0.0;
    for (size_t i = 0; i < m; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

int main(void)
{
    static pool p;
    make_pool(&p, 100);
    /* the case at issue is there: neighbours within ε_geom of touching, not touching */
    int near = 0;
    for (size_t i = 0; i < p.n; i++)
        for (size_t j = i + 1; j < p.n; j++) {
            double gap = hypot(p.x[2 * j] - p.x[2 * i], p.x[2 * j + 1] - p.x[2 * i + 1]) - 2 * RD;
            near += gap > 0.0 && gap <= CR_GEOM_TOL * RD;
        }
    CHECK(near >= 10, "only %d pairs start within 1e-9 r of touching", near);
    printf("     %d pairs start a gap of at most %g m apart\n", near, CR_GEOM_TOL * RD);

    double vref[2 * NMAX], vtight[2 * NMAX], v[2 * NMAX];
    long sref = reference(&p, T_END, 1e-13, vref), stight = reference(&p, T_END, 1e-14, vtight);
    double self = max_diff(vref, vtight, 2 * p.n) / V;
    printf("     reference: %ld steps at tol 1e-13, %ld at 1e-14; they differ by %.2e V\n", sref,
           stight, self);
    CHECK(self <= 1e-9, "the reference moves by %g V between tolerances 1e-13 and 1e-14", self);

    static const struct {
        cr_method method;
        cr_active_region region;
        const char *name;
    } cases[] = {
        {CR_METHOD_AUTO, CR_ACTIVE_REGION_AUTO, "defaults (BDF + KLU, active region)"},
        {CR_METHOD_ADAMS_FIXED_POINT, CR_ACTIVE_REGION_OFF, "Adams + fixed point, every disc"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long steps = 0;
        tu_case("%s", cases[c].name);
        run_cradle(&p, 1e-11, cases[c].method, cases[c].region, v, &steps);
        double err = max_diff(v, vref, 2 * p.n) / V;
        CHECK_REF(err <= 1e-8, "%s: final velocities %.3g V from the reference", cases[c].name,
                  err);
        printf("     %s, rtol 1e-11: %ld steps, max |v - v_ref| / V = %.2e (<= 1e-8)\n",
               cases[c].name, steps, err);
    }
    return tu_finish("test-pool-accuracy");
}
