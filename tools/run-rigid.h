/* `cradle run --rigid LAW`: the options that run a model as rigid balls under
 * a law of the core instead of the compliant engine (public API only). */
#ifndef CRADLE_RUN_RIGID_H
#define CRADLE_RUN_RIGID_H

#include "cradle/cradle.h"

typedef struct {
    const char *rigid, *alpha; /* --rigid LAW, --alpha list */
    cr_law_id law;
    double restitution, kappa; /* NaN: not given */
} rigid_args;

#define RIGID_LONG_OPTIONS                                                                         \
    {"rigid", required_argument, NULL, 'R'}, {"restitution", required_argument, NULL, 'E'},        \
        {"kappa", required_argument, NULL, 'K'},                                                   \
    {                                                                                              \
        "alpha", required_argument, NULL, 'A'                                                      \
    }

void rigid_args_init(rigid_args *r);
/* Takes option @p c of RIGID_LONG_OPTIONS: @return 0, an exit status, or -1 when
 * @p c is not one of them. */
int rigid_option(int c, const char *arg, rigid_args *r);
/* The law exists and gets what it needs, no more: @return 0 or an exit status. */
int rigid_check(rigid_args *r);
/* The system for @p model: compliant, or rigid under the law asked for; NULL with
 * the message printed and the exit status in *st. */
cr_system *rigid_or_compliant_system(const rigid_args *r, const char *model_path,
                                     const cr_model *model, int *st);

#endif
