/*
 * Comparator benchmark: the pendulum cradle (models/pendulum-cradle.yaml) run
 * long enough for 200 impact episodes, then every law in both modes on every
 * episode. Prints comparisons per second (one comparison = one law in one
 * mode on one episode) and compare's CPU time against the run's, both
 * measured in the same process (issue 9 asks for at most 10 %). Prints only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cr-config.h"
#include "cradle/cradle.h"

/* The episodes the benchmark wants, and the end time that gives them. */
#define EPISODES 200
#define T_END 13.0
/* Repetitions of the comparison pass (its time is small against the run's). */
#define REPEAT 10

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    char msg[1024];
    size_t len;
    char *text =
        cr_file_read(CR_SOURCE_ROOT "/models/pendulum-cradle.yaml", &len, msg, sizeof msg, NULL);
    cr_model *model = NULL;
    if (!text ||
        cr_modelfile_parse(text, len, "pendulum-cradle.yaml", &model, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(model, msg, sizeof msg) != CR_OK) {
        fprintf(stderr, "bench-compare: %s\n", msg);
        return 1;
    }
    cr_settings s = *cr_model_settings(model);
    s.t_end = T_END;
    cr_model_set_settings(model, &s);
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    double t0 = cpu();
    if (!mon || cr_system_run(sys, T_END) != CR_OK) {
        fprintf(stderr, "bench-compare: the run failed\n");
        return 1;
    }
    cr_monitor_finish(mon);
    double t_run = cpu() - t0;
    size_t ne = cr_monitor_episode_count(mon);
    if (ne > EPISODES)
        ne = EPISODES;
    double t_cmp = 0.0;
    size_t rows = 0;
    for (int rep = 0; rep < REPEAT; rep++) {
        cr_compare *c = cr_compare_create();
        double t1 = cpu();
        for (size_t k = 0; k < ne; k++)
            cr_compare_add_monitor(c, mon, k, model);
        t_cmp += cpu() - t1;
        rows = cr_compare_row_count(c);
        cr_compare_destroy(c);
    }
    t_cmp /= REPEAT;
    printf("# pendulum cradle to t = %g s: %zu episodes compared (%zu in the run), %d laws x "
           "%d modes\n",
           T_END, ne, cr_monitor_episode_count(mon), CR_LAW_COUNT, CR_COMPARE_MODE_COUNT);
    printf("run (monitor included)   %10.4f s CPU\n", t_run);
    printf("compare, all episodes    %10.4f s CPU (mean of %d)\n", t_cmp, REPEAT);
    printf("comparisons per second   %10.0f (%zu rows)\n", (double)rows / t_cmp, rows);
    printf("episodes per second      %10.0f\n", (double)ne / t_cmp);
    printf("compare / run            %10.2f %%  (issue 9: at most 10 %%)\n",
           100.0 * t_cmp * (double)cr_monitor_episode_count(mon) / (double)ne / t_run);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    cr_model_destroy(model);
    free(text);
    return 0;
}
