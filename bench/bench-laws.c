/*
 * Rigid-law benchmark: evaluations per second on chains of m = 2, 5, 10, 50
 * contacts (ball 1 strikes the others at rest), for each law that scales to
 * them; ratios against Newton at m = 2 measured in the same run. Prints only.
 */
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
    cr_law_result_destroy(res);
    return 0;
}
