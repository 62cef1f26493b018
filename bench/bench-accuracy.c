/*
 * Traversal accuracy (issue 24, item 2): chains of N steel beads (the default
 * model's balls: 20 mm, the striker 10 µm before N − 1 touching beads at
 * 1 m/s) run until the pulse's velocity peak is at bead 0.9 N; the final
 * velocities of the beads around the pulse are scored against an independent
 * reference (tests/refwave.h: the discrete solitary wave from a GSL rk8pd
 * integration of 200 beads, extrapolated along the chain by its speed).
 * Prints CPU (in-process, create + run), steps, events and the error; never
 * judges.
 *
 *   bench-accuracy [--n N[,N…]] [--accuracy A | --rtol R [--atol A]]
 *                  [--method auto|bdf|adams|adams-fixed-point|erk] [--reps K]
 *
 * Defaults: N = 1000,10000,100000, accuracy 1e-6, auto, 1 rep.
 * BENCH_ACCURACY_BEADS=1 in the environment prints each scored bead's
 * velocity and error on stderr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/refwave.h"
#include "cradle/cradle.h"
#include "cradle/system.h"

static const double R_BALL = 0.01, M_BALL = 0.0329, GAP = 1e-5, V0 = 1.0;
static const double E_STEEL = 2.1e11, NU_STEEL = 0.3;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static cr_model *chain(size_t n, double *K)
{
    cr_model *m = cr_model_create();
    double x = 0.0;
    for (size_t i = 0; i < n; i++) {
        cr_model_add_ball(m, M_BALL, R_BALL, x, i == 0 ? V0 : 0.0);
        x += 2 * R_BALL + (i == 0 ? GAP : 0.0);
    }
    cr_contact_params law;
    *K = cr_contact_hertz_stiffness(E_STEEL, NU_STEEL, R_BALL, E_STEEL, NU_STEEL, R_BALL);
    cr_contact_params_init(&law, *K, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    return m;
}

typedef struct {
    double accuracy, rtol, atol;
    cr_method method;
    int reps;
} bench_opts;

/* One traversal of n beads: CPU (median of reps), counters, error. */
static int traverse(const refwave *w, size_t n, const bench_opts *o)
{
    double K;
    cr_model *m = chain(n, &K);
    cr_settings set = *cr_model_settings(m);
    if (o->accuracy > 0)
        set.accuracy = o->accuracy;
    else {
        set.rtol = o->rtol;
        set.atol = o->atol > 0 ? o->atol : 1e-2 * o->rtol;
    }
    set.method = o->method;
    /* the reference's scales: δ* = (μV²/K)^(2/5), μ = m/2, T = δ* / V */
    double dstar = pow(0.5 * M_BALL * V0 * V0 / K, 0.4), T = dstar / V0;
    size_t k = (size_t)(0.9 * (double)n);
    set.t_end = GAP / V0 + T * refwave_peak_time(w, k);
    cr_model_set_settings(m, &set);
    double *v = calloc(n, sizeof(double)), cpu[16];
    int reps = o->reps < 1 ? 1 : (o->reps > 16 ? 16 : o->reps);
    cr_run_stats st = {0};
    for (int r = 0; r < reps; r++) {
        char msg[256];
        double t0 = cpu_now();
        cr_system *s = cr_system_create(m, msg, sizeof msg);
        if (!s || cr_system_run(s, set.t_end) != CR_OK) {
            fprintf(stderr, "bench-accuracy: %s\n", s ? cr_system_last_error(s) : msg);
            return 1;
        }
        cpu[r] = cpu_now() - t0;
        st = cr_system_get_stats(s);
        cr_system_get_velocities(s, v);
        cr_system_destroy(s);
    }
    for (int a = 1; a < reps; a++) /* insertion sort: the median */
        for (int b = a; b > 0 && cpu[b] < cpu[b - 1]; b--) {
            double t = cpu[b];
            cpu[b] = cpu[b - 1], cpu[b - 1] = t;
        }
    /* the beads of the pulse and its near wake: k − 60 … k + 39 */
    double err = 0.0, peak_err = 0.0;
    size_t lo = k > 60 ? k - 60 : 0, hi = k + 40 < n ? k + 40 : n;
    for (size_t i = lo; i < hi; i++) {
        double e = fabs(v[i] / V0 - refwave_velocity(w, k, i));
        err = fmax(err, e);
        if (i == k)
            peak_err = e;
        if (getenv("BENCH_ACCURACY_BEADS"))
            fprintf(stderr, "bead %zu (k%+ld) v %.3e err %.2e\n", i, (long)i - (long)k, v[i], e);
    }
    /* behind it: the beads the wave left, as the short chain left them (its
     * beads 0 … J0 − 61 at t_j0, at rest or in free flight by then) */
    double err_behind = 0.0;
    for (size_t i = 0; i < lo; i++) {
        double ref = i + 60 < REFWAVE_J0 ? w->v[i] : 0.0;
        err_behind = fmax(err_behind, fabs(v[i] / V0 - ref));
    }
    err = fmax(err, err_behind);
    printf("| %zu | %s | %.3g | %.3g s | %ld | %ld | %.2e | %.2e |\n", n,
           o->accuracy > 0 ? "accuracy" : "rtol", o->accuracy > 0 ? o->accuracy : o->rtol,
           cpu[reps / 2], st.steps, st.events, err, peak_err);
    fflush(stdout);
    free(v);
    cr_model_destroy(m);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const mnames[] = {"bdf", "adams", "adams-fixed-point", "auto", "erk"};
    bench_opts o = {1e-6, 0, 0, CR_METHOD_AUTO, 1};
    const char *ns = "1000,10000,100000";
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--n"))
            ns = v;
        else if (!strcmp(a, "--accuracy"))
            o.accuracy = atof(v), o.rtol = 0;
        else if (!strcmp(a, "--rtol"))
            o.rtol = atof(v), o.accuracy = 0;
        else if (!strcmp(a, "--atol"))
            o.atol = atof(v);
        else if (!strcmp(a, "--reps"))
            o.reps = atoi(v);
        else if (!strcmp(a, "--method")) {
            for (int k = 0; k <= CR_METHOD_ERK; k++)
                if (!strcmp(v, mnames[k]))
                    o.method = (cr_method)k;
        } else {
            fprintf(stderr, "bench-accuracy: unknown option %s\n", a);
            return 2;
        }
    }
    refwave w = {0};
    double t0 = cpu_now();
    if (refwave_build(&w)) {
        fprintf(stderr, "bench-accuracy: the reference did not converge\n");
        return 1;
    }
    printf("# reference: tau %.15g T per bead (halves differ by %.1e), fit residual %.1e T, "
           "%.2f s\n",
           w.tau, w.tau_diff, w.fit_res, cpu_now() - t0);
    printf("| N | setting | value | CPU | steps | events | max error / V (beads 0.9N-60 … "
           "0.9N+39) | at bead 0.9N |\n|---|---|---|---|---|---|---|---|\n");
    for (const char *p = ns; *p;) {
        size_t n = strtoul(p, (char **)&p, 10);
        if (n < 2 * REFWAVE_J0 || traverse(&w, n, &o))
            return 1;
        if (*p == ',')
            p++;
    }
    return 0;
}
