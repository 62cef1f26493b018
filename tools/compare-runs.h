/* `cradle compare MODEL --rigid LAW ...`: the compliant run of MODEL and one
 * rigid run per LAW, compared collision by collision and over the run
 * (docs/compare.md, "Compare over a run"; public API only). */
#ifndef CRADLE_TOOLS_COMPARE_RUNS_H
#define CRADLE_TOOLS_COMPARE_RUNS_H

#include "model-input.h"
#include "run-rigid.h"

/* Most --rigid variants one command compares. */
#define COMPARE_RUNS_MAX 16

typedef struct {
    const char *laws[COMPARE_RUNS_MAX];
    size_t n;
    rigid_args params; /* --restitution, --kappa, --alpha: for the variants that take them */
} compare_runs_args;

void compare_runs_init(compare_runs_args *r);
/* Takes a RIGID_LONG_OPTIONS option: @return 0, an exit status, or -1 when
 * @p c is not one of them. */
int compare_runs_option(int c, const char *arg, compare_runs_args *r);

/* Parameters without a --rigid variant: @return 0 or EXIT_USAGE (message printed). */
int compare_runs_check(const compare_runs_args *r);

typedef struct {
    const char *input, *out, *command;
    const model_sets *sets;
    int csv, json, quiet;
} compare_runs_io;

/* The runs and the comparison: @return 0 or an exit status (message printed). */
int compare_runs(const compare_runs_io *io, compare_runs_args *r);

#endif
