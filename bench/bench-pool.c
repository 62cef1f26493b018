/*
 * Pool scaling: N = 10², 10³, 10⁴ steel discs in a dense triangular packing
 * (touching neighbours along the rows, small random gaps between rows) struck
 * by one disc, integrated for 40 characteristic times. Prints wall time,
 * steps, neighbour rebuilds and the cost per step relative to N = 100 measured
 * in the same run. Prints only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cradle/cradle.h"
#include "cradle/system.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A dim-2 model: n discs in a triangular packing and one striker. */
static cr_model *packing(int n, double M, double R, const cr_contact_params *law, int solver)
{
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    int side = (int)ceil(sqrt((double)n)), k = 0;
    double v0[2] = {0.0, 0.0};
    for (int row = 0; k < n; row++)
        for (int col = 0; col < side && k < n; col++, k++) {
            double jitter = 1e-6 * (double)rand() / RAND_MAX;
            double x[2] = {2 * R * col + (row % 2) * R, row * (sqrt(3.0) * R + 1e-6) + jitter};
            cr_model_add_body(model, M, R, x, v0);
        }
    double xs[2] = {-2 * R - 1e-5, 0.0}, vs[2] = {1.0, 0.0};
    cr_model_add_body(model, M, R, xs, vs);
    cr_model_set_default_contact(model, law);
    cr_settings s = cr_settings_default();
    s.rtol = 1e-8;
    s.atol = 1e-10;
    s.solver = (cr_linear_solver)solver;
    cr_model_set_settings(model, &s);
    return model;
}

int main(int argc, char **argv)
{
    int nmax = argc > 1 ? atoi(argv[1]) : 10000;
    const double R = 0.005, M = 0.0041;
    cr_contact_params law;
    cr_contact_params_init(&law, cr_contact_hertz_stiffness(2.1e11, 0.3, R, 2.1e11, 0.3, R), 1.5,
                           0.0, CR_RELEASE_GAP);
    printf("# pool scaling: steel discs, triangular packing, one striker, 40 characteristic "
           "times, rtol 1e-8, BDF, through cr_system\n");
    printf("%6s %8s %10s %8s %9s %12s %14s\n", "solver", "N", "wall [s]", "steps", "rebuilds",
           "us/step", "per-step ratio");
    for (int solver = CR_SOLVER_KLU; solver <= CR_SOLVER_GMRES; solver++) {
        double base = 0.0;
        srand(7);
        for (int n = 100; n <= nmax; n *= 10) {
            if (solver == CR_SOLVER_KLU && n > 1000 && nmax > 1000 && argc < 3)
                continue; /* KLU at 10⁴ takes minutes (fill-in); ask for it with a 2nd argument */
            cr_model *model = packing(n, M, R, &law, solver);
            char msg[256];
            cr_system *sys = cr_system_create(model, msg, sizeof msg);
            cr_model_destroy(model);
            if (!sys) {
                printf("  N = %d: %s\n", n, msg);
                continue;
            }
            /* the same span as before the port to cr_system, so runs compare */
            double T = pow(0.5 * M / law.K, 0.4) / 2.0;
            double t0 = now();
            int rc = cr_system_run(sys, 40 * T);
            double wall = now() - t0;
            cr_run_stats st = cr_system_get_stats(sys);
            double per = wall / (double)(st.steps ? st.steps : 1);
            if (base == 0.0)
                base = per;
            printf("%6s %8d %10.3f %8ld %9ld %12.1f %14.2f%s\n",
                   solver == CR_SOLVER_KLU ? "klu" : "gmres", n, wall, st.steps, st.rebuilds,
                   1e6 * per, per / base, rc == CR_OK ? "" : "  (failed)");
            if (rc != CR_OK)
                printf("  %s\n", cr_system_last_error(sys));
            cr_system_destroy(sys);
        }
    }
    printf("# (linear cost per step means the ratio grows ~10x per decade of N)\n");
    return 0;
}
