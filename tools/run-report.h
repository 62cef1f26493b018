/* What `cradle run` prints about a finished run: the text summary with the
 * episode table, the same as JSON, and the episodes as law cases. One writer
 * for every engine (public API only). */
#ifndef CRADLE_RUN_REPORT_H
#define CRADLE_RUN_REPORT_H

#include "cradle/cradle.h"

/* What the report needs besides the system and the monitor. */
typedef struct {
    const cr_model *model;
    const char *model_path;
    const char *output;
    double E0;                        /* T + U at t = 0, J */
    double p0[3];                     /* momentum at t = 0 */
    double wall;                      /* wall-clock seconds of the run */
    const cr_calibrated_rigid *calib; /* --rigid calibrated: its mapping, else NULL */
    int tabled;                       /* --table: table_bound holds the bounds */
    double table_bound[2];            /* α, κ: the table's largest over the impacts */
} run_info;

void report_summary(const run_info *info, const cr_system *sys);
void report_episodes(const cr_system *sys, const cr_monitor *mon);
/* The collisions (episodes of one impact taken together): a short table. */
void report_collisions(const cr_monitor *mon);
/* --rigid calibrated: collisions applied and the mismatches, a few lines. */
void report_calibration(const cr_calibrated_rigid *c);
/* JSON through json-c on stdout; @return 0 or -1 (out of memory). */
int report_json(const run_info *info, const cr_system *sys, const cr_monitor *mon);
/* Each episode as a law case in @p dir (the count on stderr unless @p quiet);
 * @return 0 or -1 with the reason printed. */
int report_cases(const char *dir, const run_info *info, const cr_monitor *mon, int quiet);

#endif
