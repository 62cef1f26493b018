/* What `cradle compare` prints: the table (laws as rows, best first, per
 * episode and over the run), CSV (one header line, one line per row) and JSON
 * (json-c). Public API only. */
#ifndef CRADLE_COMPARE_REPORT_H
#define CRADLE_COMPARE_REPORT_H

#include <stdio.h>

#include "cradle/cradle.h"

/* Per compared episode: the changes of α, κ, eᴺ, eᴾ at rtol/100 (4 values), or NULL. */
typedef struct {
    const char *source;     /* what the episodes came from */
    const double *accuracy; /* 4 per compared episode, or NULL */
    double estimate_rtol;
    size_t shown; /* episodes whose table is printed (the summary covers all) */
} compare_view;

void compare_print_table(FILE *out, const cr_compare *cmp, const compare_view *v);
void compare_print_summary(FILE *out, const cr_compare *cmp);
void compare_print_csv(FILE *out, const cr_compare *cmp);
/* @return 0 or -1 (out of memory, write error). */
int compare_print_json(FILE *out, const cr_compare *cmp, const compare_view *v);

/* cradle run --compare: every episode of @p mon compared and /comparison added
 * to the committed run file @p out; the summary printed unless @p quiet or
 * @p json. @return 0 or an exit status (cmd-compare.c). */
int compare_after_run(const char *model_path, const cr_model *model, const cr_monitor *mon,
                      const char *out, int quiet, int json);

#endif
