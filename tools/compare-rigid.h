/* `cradle compare --rigid-limit`: each compared episode rerun at stiffer
 * contacts and extrapolated to K → ∞ (cr_compare_rigid_limit), printed as a
 * table. Public API only. */
#ifndef CRADLE_COMPARE_RIGID_H
#define CRADLE_COMPARE_RIGID_H

#include <stdio.h>

#include "cradle/cradle.h"

/* Parses the option's argument "LEVELS[,RATIO]" (NULL: the defaults).
 * @return 0, or -1 with nothing changed. */
int compare_rigid_parse(const char *arg, cr_rigid_limit_options *o);

/* The rigid limit of episode @p k (@p ep) of a run of @p model, printed to
 * @p out. @return 0 or an exit status (the reason printed, prefixed by @p what). */
int compare_rigid_report(FILE *out, const char *what, const cr_model *model, size_t k,
                         const cr_episode_data *ep, const cr_rigid_limit_options *o);

#endif
