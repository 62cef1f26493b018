/*
 * Rigid-law benchmark: evaluations per second on chains of m = 2, 5, 10, 50
 * contacts (ball 1 strikes the others at rest), for each law that scales to
 * them; ratios against Newton at m = 2 measured in the same run. Then the LZB law
 * (integrated, so measured apart) and Siconos' own LZB when it is built.
 * Prints only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cradle/cradle.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One LZB evaluation on an N-ball unit chain (ball 0 at 1 m/s, the others touching
 * at rest, Hertz, e = 1); u⁺ into u. */
static int lzb_once(cr_law_result *res, size_t nb, double tol, double u0, double *u)
{
    double mass[16], v[16] = {0};
    for (size_t i = 0; i < nb; i++)
        mass[i] = 1.0;
    v[0] = u0;
    cr_impact *imp = cr_impact_create_chain(nb, mass, v);
    cr_law_params p;
    cr_law_params_init(&p);
    p.tolerance = tol;
    int rc = cr_law_solve(imp, CR_LAW_LZB, &p, res);
    if (rc == CR_OK && cr_law_result_outcome_count(res) == 1)
        for (size_t i = 0; i < nb; i++)
            u[i] = cr_law_result_velocity(res, 0)[i];
    cr_impact_destroy(imp);
    return rc == CR_OK ? 0 : -1;
}

#ifdef CR_SICONOS_LZB
/* Siconos 4.4's MultipleImpact on the same chain (tests/ref-siconos-lzb.cpp): the
 * processor time of the impact alone (its own report) and u⁺. */
static double siconos_once(size_t nb, double dp, double *u)
{
    char cmd[512];
    size_t used = (size_t)snprintf(cmd, sizeof cmd, "%s %g 1e-30 1 1.5", CR_SICONOS_LZB, dp);
    for (size_t c = 0; c + 1 < nb; c++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, " 1");
    used += (size_t)snprintf(cmd + used, sizeof cmd - used, " --");
    for (size_t i = 0; i < nb; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, " 1");
    used += (size_t)snprintf(cmd + used, sizeof cmd - used, " -- 1");
    for (size_t i = 1; i < nb; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, " 0");
    FILE *f = popen(cmd, "r");
    double t = NAN;
    size_t got = 0;
    while (f && got < nb && fscanf(f, "%lf", &u[got]) == 1)
        got++;
    if (f && (fscanf(f, "%lf", &t) != 1 || pclose(f) != 0 || got != nb))
        t = NAN;
    return t;
}
#endif

/*
 * LZB: evaluations per second on 3-, 5- and 10-ball chains at tolerance 1e-8, with
 * the error of u⁺ against a 1e-13 run; then Siconos' MultipleImpact (when built)
 * at its fixed primary-impulse steps, with its error against the same reference.
 */
static void bench_lzb(cr_law_result *res)
{
    static const size_t balls[] = {3, 5, 10};
    double ref[3][16];
    printf("\n# lzb on N-ball unit chains (Hertz, e = 1), tolerance 1e-8; error = max |u+ - "
           "u+(1e-13)|\n");
    printf("%-6s %12s %12s %12s  %s\n", "N", "evals/s", "us/eval", "error", "trace");
    for (size_t k = 0; k < 3; k++) {
        size_t nb = balls[k];
        double u[16], err = 0.0;
        if (lzb_once(res, nb, 1e-13, 1.0, ref[k]) != 0 || lzb_once(res, nb, 1e-8, 1.0, u) != 0) {
            printf("%-6zu failed\n", nb);
            continue;
        }
        for (size_t i = 0; i < nb; i++)
            err = fmax(err, fabs(u[i] - ref[k][i]));
        long reps = 0;
        double t0 = now(), t;
        do {
            lzb_once(res, nb, 1e-8, 1.0 + 1e-9 * (double)(reps % 7), u);
            reps++;
            t = now() - t0;
        } while (t < 0.5);
        printf("%-6zu %12.0f %12.1f %12.2e  %s\n", nb, (double)reps / t, 1e6 * t / (double)reps,
               err, cr_law_result_trace(res));
    }
#ifdef CR_SICONOS_LZB
    printf("\n# Siconos 4.4 MultipleImpact (BiStiffness, zero thresholds 1e-30) on the same "
           "chains:\n# processor time of the impact alone, error against our 1e-13 run\n");
    printf("%-6s %10s %12s %12s %12s\n", "N", "dp", "evals/s", "s/eval", "error");
    for (size_t k = 0; k < 3; k++)
        for (double dp = 1e-4; dp > 0.9e-6; dp /= 10) {
            size_t nb = balls[k];
            double u[16], err = 0.0, t = siconos_once(nb, dp, u);
            for (size_t i = 0; i < nb; i++)
                err = fmax(err, fabs(u[i] - ref[k][i]));
            printf("%-6zu %10.0e %12.2f %12.4f %12.2e\n", nb, dp, 1.0 / t, t, err);
        }
#else
    printf("# Siconos' MultipleImpact: not built (libsiconos-kernel-dev missing)\n");
#endif
}

int main(void)
{
    static const int sizes[] = {2, 5, 10, 50};
    static const cr_law_id laws[] = {CR_LAW_NEWTON,    CR_LAW_GLOBAL_DISSIPATION, CR_LAW_POISSON,
                                     CR_LAW_ENERGETIC, CR_LAW_MOSTERMAN,          CR_LAW_PANDREA};
    cr_law_result *res = cr_law_result_create();
    double base = 0.0;
    printf("# rigid laws on an (m+1)-ball chain, unit masses, e = 0.9\n");
    printf("%-20s %4s %14s %12s %10s\n", "law", "m", "evals/s", "us/eval", "vs newton m=2");
    for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++)
        for (size_t k = 0; k < 4; k++) {
            int m = sizes[k], n = m + 1;
            double *mass = malloc(n * sizeof(double)), *u = calloc(n, sizeof(double));
            double *alpha = malloc(m * sizeof(double));
            for (int i = 0; i < n; i++)
                mass[i] = 1.0;
            for (int i = 0; i < m; i++)
                alpha[i] = 0.9;
            u[0] = 1.0;
            cr_impact *imp = cr_impact_create_chain(n, mass, u);
            cr_law_params p;
            cr_law_params_init(&p);
            p.restitution = 0.9;
            p.kappa = 0.9;
            p.alpha = alpha;
            long reps = 0;
            double t0 = now(), t;
            do {
                /* a fresh velocity each time, so nothing is cached between calls */
                u[0] = 1.0 + 1e-9 * (double)(reps % 7);
                cr_impact_set_velocity(imp, u);
                cr_law_solve(imp, laws[l], &p, res);
                reps++;
                t = now() - t0;
            } while (t < 0.2);
            double per = t / (double)reps;
            if (base == 0.0)
                base = per;
            printf("%-20s %4d %14.0f %12.2f %10.2f  (%s)\n", cr_law_name(laws[l]), m, 1.0 / per,
                   1e6 * per, per / base, cr_law_status_name(cr_law_result_status(res)));
            cr_impact_destroy(imp);
            free(mass);
            free(u);
            free(alpha);
        }
    bench_lzb(res);
    cr_law_result_destroy(res);
    return 0;
}
