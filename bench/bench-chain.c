/*
 * Chain benchmark: Hertz chains of N steel beads struck at one end, integrated
 * for a fixed 40 characteristic times (the pulse crosses ~15 beads). Prints
 * wall time, steps, RHS and Jacobian evaluations and the cost per step relative
 * to the N = 100 baseline measured in the same run, plus BDF vs Adams and the
 * cost of tightening rtol on the 5-ball cradle. Never fails: it only reports.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "cradle/cradle.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static cr_model *chain(int n, double gap)
{
    cr_model *m = cr_model_create();
    double r = 0.005, mass = 0.0041, x = 0.0;
    for (int i = 0; i < n; i++) {
        cr_model_add_ball(m, mass, r, x, i == 0 ? 1.0 : 0.0);
        x += 2 * r + (i == 0 ? gap : 0.0);
    }
    cr_contact_params law;
    cr_contact_params_init(&law, cr_contact_hertz_stiffness(2.1e11, 0.3, r, 2.1e11, 0.3, r), 1.5,
                           0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    return m;
}

typedef struct {
    double wall;
    cr_run_stats st;
    double v_last;
} result;

static int with_monitor;

/* The system for @p m with tolerances and method (model settings). */
static cr_system *make(cr_model *m, double rtol, double atol, cr_method method)
{
    cr_settings set = *cr_model_settings(m);
    set.rtol = rtol;
    set.atol = atol;
    set.method = method;
    cr_model_set_settings(m, &set);
    char msg[256];
    cr_system *s = cr_system_create(m, msg, sizeof msg);
    if (!s)
        printf("error: %s\n", msg);
    return s;
}

static result run(cr_model *m, double t_end_in_T, double rtol, cr_method method)
{
    cr_system *s = make(m, rtol, rtol * 1e-2, method);
    result r = {0};
    if (!s)
        return r;
    double T;
    cr_system_get_scales(s, NULL, NULL, &T);
    double t0 = now();
    cr_monitor *mon = with_monitor ? cr_monitor_create(s) : NULL;
    int rc = cr_system_run(s, t_end_in_T > 0 ? t_end_in_T * T : 0.0);
    cr_monitor_finish(mon);
    r.wall = now() - t0;
    cr_monitor_destroy(mon);
    r.st = cr_system_get_stats(s);
    double v[8];
    if (cr_system_body_count(s) <= 8) {
        cr_system_get_velocities(s, v);
        r.v_last = v[cr_system_body_count(s) - 1];
    }
    if (rc != CR_OK)
        printf("error: %s\n", cr_system_last_error(s));
    cr_system_destroy(s);
    return r;
}

int main(int argc, char **argv)
{
    int nmax = argc > 1 ? atoi(argv[1]) : 10000;
    printf("# chain scaling: Hertz steel beads, 40 characteristic times, rtol 1e-10, BDF\n");
    printf("%8s %10s %8s %8s %6s %12s %14s %12s\n", "N", "wall [s]", "steps", "RHS", "Jac",
           "us/step", "per-step ratio", "peak RSS MB");
    double base = 0.0;
    for (int n = 100; n <= nmax; n *= 10) {
        cr_model *m = chain(n, 0.0);
        result r = run(m, 40.0, 1e-10, CR_METHOD_BDF);
        double per = r.wall / (double)(r.st.steps ? r.st.steps : 1);
        if (base == 0.0)
            base = per;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        /* peak resident set of the process so far: grows with the largest N run */
        printf("%8d %10.4f %8ld %8ld %6ld %12.2f %14.2f %12.1f\n", n, r.wall, r.st.steps,
               r.st.rhs_evals, r.st.jac_evals, 1e6 * per, per / base, ru.ru_maxrss / 1024.0);
        cr_model_destroy(m);
    }
    printf("# (linear cost per step means the ratio grows ~10x per decade of N)\n\n");

    /* accuracy vs cost: error of u+ against a tolerance-converged run (BDF,
     * rtol 1e-13), for the default (BDF 1e-10) and the alternatives */
    for (int nb = 3; nb <= 5; nb += 2) {
        printf(
            "# %d-ball steel cradle, automatic end: error of u+ vs BDF rtol 1e-13; time ratio vs "
            "the default (BDF, rtol 1e-10), best of 20\n",
            nb);
        printf("%6s %8s %12s %8s %12s %10s\n", "method", "rtol", "wall [s]", "steps", "max|du+|",
               "time ratio");
        cr_model *m = chain(nb, 1e-5);
        double uref[8], u[8];
        {
            cr_system *s = make(m, 1e-13, 1e-15, CR_METHOD_BDF);
            cr_system_run(s, 0.0);
            cr_system_get_velocities(s, uref);
            cr_system_destroy(s);
        }
        double rtols[] = {1e-8, 1e-10, 1e-12}, walls[6], errs[6];
        long nsteps[6];
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 3; j++) {
                double best = 1e30;
                long steps = 0;
                for (int rep = 0; rep < 20; rep++) {
                    cr_system *s =
                        make(m, rtols[j], rtols[j] * 1e-2, k ? CR_METHOD_ADAMS : CR_METHOD_BDF);
                    double t0 = now();
                    cr_system_run(s, 0.0);
                    double w = now() - t0;
                    if (w < best)
                        best = w;
                    steps = cr_system_get_stats(s).steps;
                    cr_system_get_velocities(s, u);
                    cr_system_destroy(s);
                }
                double err = 0.0;
                for (int i = 0; i < nb; i++)
                    err = fmax(err, fabs(u[i] - uref[i]));
                walls[3 * k + j] = best;
                errs[3 * k + j] = err;
                nsteps[3 * k + j] = steps;
            }
        for (int q = 0; q < 6; q++)
            printf("%6s %8.0e %12.6f %8ld %12.3e %10.2f\n", q >= 3 ? "adams" : "bdf", rtols[q % 3],
                   walls[q], nsteps[q], errs[q], walls[q] / walls[1]);
        cr_model_destroy(m);
        printf("\n");
    }
    printf("\n# monitoring overhead (issue 4 budget: <= 10%%), best of 5 runs each\n");
    printf("%-28s %12s %12s %8s\n", "case", "plain [s]", "monitor [s]", "ratio");
    const int sizes[] = {5, 100, 1000};
    for (int k = 0; k < 3; k++) {
        cr_model *mm = chain(sizes[k], 1e-5);
        double best[2] = {1e30, 1e30};
        for (int rep = 0; rep < 5; rep++)
            for (with_monitor = 0; with_monitor < 2; with_monitor++) {
                double w = run(mm, sizes[k] <= 5 ? 0.0 : 60.0, 1e-10, CR_METHOD_BDF).wall;
                if (w < best[with_monitor])
                    best[with_monitor] = w;
            }
        with_monitor = 0;
        printf("chain of %-5d %14s %12.5f %12.5f %8.3f\n", sizes[k], "", best[0], best[1],
               best[1] / best[0]);
        cr_model_destroy(mm);
    }
    return 0;
}
