/*
 * Probe for issue 12's "explicit path": ARKODE's ERKStep with the order-8
 * Fehlberg 13-7-8 table against CVODE's Adams method with fixed-point
 * iteration (and BDF with a dense Newton solve), on the same hand-written
 * right-hand side of the 5-ball steel cradle (models/newton-cradle-5.yaml:
 * Hertz, gap release, striker 10 µm before four touching balls at 1 m/s),
 * with root finding on every overlap (closings and openings at δ = 1e-6 δ*,
 * as the engine's first root function). Both libraries are Debian's system SUNDIALS 6.4.1
 * (unoptimised, so the ratios between them are what counts, not the times
 * against the engine's optimised CVODES); the build recipe of build-deps/
 * has no ARKODE. Prints, per method and tolerance: CPU per run (median of 21),
 * steps, RHS evaluations, events, the error of the final velocities and of
 * the opening time of contact 0 against CVODE Adams at rtol 1e-13.
 *
 *   cc -O2 bench/erk-probe.c -o erk-probe -lsundials_arkode -lsundials_cvode \
 *      -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm
 *
 * State (scaled: δ* = (μV²/K)^(2/5), V = 1 m/s, T = δ* / V): per ball its
 * displacement d_i / δ* and velocity v_i/V; the overlaps δ_c = δ0_c + d_c − d_{c+1}
 * are formed from displacements of order one (no cancellation against radii).
 */
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <time.h>

#define NB 5
#define NC (NB - 1)
/* roots at δ = ETA·δ*, not 0: touching contacts start at δ = 0, where an
 * identically zero root function stops ERKStep ("root found at and very near
 * t") as it would CVODE (the engine's event margin does the same) */
#define ETA 1e-6

static double delta0[NC], kscaled; /* initial overlaps /δ*, K δ*^1.5 T / (m V) */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *u)
{
    (void)t;
    (void)u;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv);
    for (int i = 0; i < NB; i++) {
        yd[2 * i] = y[2 * i + 1];
        yd[2 * i + 1] = 0.0;
    }
    for (int c = 0; c < NC; c++) {
        double d = delta0[c] + y[2 * c] - y[2 * c + 2];
        double f = d > 0.0 ? kscaled * d * sqrt(d) : 0.0;
        yd[2 * c + 1] -= f;
        yd[2 * c + 3] += f;
    }
    return 0;
}

static int roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *u)
{
    (void)t;
    (void)u;
    const double *y = N_VGetArrayPointer(yv);
    for (int c = 0; c < NC; c++)
        g[c] = delta0[c] + y[2 * c] - y[2 * c + 2] - ETA;
    return 0;
}

typedef struct {
    double cpu, v[NB], t_open0;
    long steps, rhs, events;
} result;

enum { ERK8, ADAMS_FP, BDF_DENSE };
static const char *const names[] = {"erk-fehlberg-13-7-8", "cvode-adams-fixed-point",
                                    "cvode-bdf-dense-newton"};

static void init_state(double *y)
{
    memset(y, 0, 2 * NB * sizeof(double));
    y[1] = 1.0; /* the striker */
}

/* One run to t_end (scaled); events: every root return. */
static result run(int method, double rtol, double t_end)
{
    result r = {0};
    r.t_open0 = NAN;
    SUNContext ctx;
    SUNContext_Create(NULL, &ctx);
    N_Vector y = N_VNew_Serial(2 * NB, ctx);
    init_state(N_VGetArrayPointer(y));
    void *mem;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    SUNNonlinearSolver NLS = NULL;
    double t0 = cpu_now();
    if (method == ERK8) {
        mem = ERKStepCreate(rhs, 0.0, y, ctx);
        ERKStepSetTableNum(mem, ARKODE_FEHLBERG_13_7_8);
        ERKStepSStolerances(mem, rtol, 1e-2 * rtol);
        ERKStepSetMaxNumSteps(mem, 10000000);
        ERKStepRootInit(mem, NC, roots);
    } else {
        mem = CVodeCreate(method == ADAMS_FP ? CV_ADAMS : CV_BDF, ctx);
        CVodeInit(mem, rhs, 0.0, y);
        CVodeSStolerances(mem, rtol, 1e-2 * rtol);
        CVodeSetMaxNumSteps(mem, 10000000);
        if (method == ADAMS_FP) {
            NLS = SUNNonlinSol_FixedPoint(y, 0, ctx);
            CVodeSetNonlinearSolver(mem, NLS);
        } else {
            A = SUNDenseMatrix(2 * NB, 2 * NB, ctx);
            LS = SUNLinSol_Dense(y, A, ctx);
            CVodeSetLinearSolver(mem, LS, A);
        }
        CVodeRootInit(mem, NC, roots);
    }
    double t = 0.0;
    while (t < t_end) {
        int flag = method == ERK8 ? ERKStepEvolve(mem, t_end, y, &t, ARK_NORMAL)
                                  : CVode(mem, t_end, y, &t, CV_NORMAL);
        if (flag < 0) {
            fprintf(stderr, "%s failed: %d\n", names[method], flag);
            break;
        }
        if (flag == CV_ROOT_RETURN) { /* == ARK_ROOT_RETURN == 2 */
            int found[NC];
            if (method == ERK8)
                ERKStepGetRootInfo(mem, found);
            else
                CVodeGetRootInfo(mem, found);
            r.events++;
            if (found[0] < 0 && isnan(r.t_open0)) /* contact 0 opening */
                r.t_open0 = t;
        }
    }
    const double *yy = N_VGetArrayPointer(y);
    for (int i = 0; i < NB; i++)
        r.v[i] = yy[2 * i + 1];
    if (method == ERK8) {
        ERKStepGetNumSteps(mem, &r.steps);
        long nfe;
        ERKStepGetNumRhsEvals(mem, &nfe);
        r.rhs = nfe;
        ERKStepFree(&mem);
    } else {
        CVodeGetNumSteps(mem, &r.steps);
        CVodeGetNumRhsEvals(mem, &r.rhs);
        CVodeFree(&mem);
    }
    r.cpu = cpu_now() - t0;
    if (NLS)
        SUNNonlinSolFree(NLS);
    if (LS)
        SUNLinSolFree(LS);
    if (A)
        SUNMatDestroy(A);
    N_VDestroy(y);
    SUNContext_Free(&ctx);
    return r;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    /* steel, E 2.1e11, ν 0.3, r 10 mm, m 32.9 g: K = (4/3) E* √R*, E* = E/(2(1−ν²)) */
    const double E = 2.1e11, nu = 0.3, r = 0.01, m = 0.0329, V = 1.0, gap = 1e-5;
    double K = 4.0 / 3.0 * (E / (2 * (1 - nu * nu))) * sqrt(r / 2), mu = m / 2;
    double L = pow(mu * V * V / K, 0.4), T = L / V;
    kscaled = K * pow(L, 1.5) * T / (m * V);
    delta0[0] = -gap / L;
    for (int c = 1; c < NC; c++)
        delta0[c] = 0.0;
    /* the pulse crosses four contacts in ~12 T after the gap closes at gap/V */
    double t_end = gap / L + 60.0;
    result ref = run(ADAMS_FP, 1e-13, t_end);
    printf("5-ball cradle: delta* = %.4g m, T = %.4g s, t_end = %.1f T; reference: CVODE "
           "Adams rtol 1e-13, %ld steps, %ld events\n",
           L, T, t_end, ref.steps, ref.events);
    printf("%-24s %7s %10s %7s %7s %6s %10s %10s\n", "method", "rtol", "cpu [ms]", "steps", "rhs",
           "events", "err v", "err t_open");
    const double rtols[] = {1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
    for (int meth = 0; meth < 3; meth++)
        for (size_t k = 0; k < sizeof rtols / sizeof rtols[0]; k++) {
            double cpu[21];
            result r = {0};
            for (int rep = 0; rep < 21; rep++) {
                r = run(meth, rtols[k], t_end);
                cpu[rep] = r.cpu;
            }
            qsort(cpu, 21, sizeof(double), cmp);
            double ev = 0.0;
            for (int i = 0; i < NB; i++)
                ev = fmax(ev, fabs(r.v[i] - ref.v[i]));
            printf("%-24s %7.0e %10.4f %7ld %7ld %6ld %10.2e %10.2e\n", names[meth], rtols[k],
                   1e3 * cpu[10], r.steps, r.rhs, r.events, ev,
                   fabs(r.t_open0 - ref.t_open0) / (ref.t_open0));
        }
    return 0;
}
