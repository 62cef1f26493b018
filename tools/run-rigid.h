/* `cradle run --rigid LAW`: the options that run a model as rigid balls under
 * a law of the core instead of the compliant engine (public API only). */
#ifndef CRADLE_RUN_RIGID_H
#define CRADLE_RUN_RIGID_H

#include "cradle/calibrated.h"
#include "cradle/cradle.h"

typedef struct rigid_table rigid_table;

typedef struct {
    const char *rigid, *alpha, *table; /* --rigid LAW, --alpha list, --table FILE */
    cr_law_id law;
    int calibrated;             /* --rigid calibrated: energetic, each collision's alpha, kappa */
    double restitution, kappa;  /* NaN: not given */
    cr_calibrated_rigid *calib; /* the compliant run's collisions (calibrated), owned */
    rigid_table *tab;           /* --table: the opened table, owned */
    int strict;                 /* --strict: a calibrated run with mismatches exits EXIT_MISMATCH */
    const char
        *calibrate_on; /* --calibrate-on MODEL: the compliant run calibrated on, else MODEL's own */
} rigid_args;

/* Option codes beyond every short option, so any command can take them. */
enum {
    RIGID_OPT_LAW = 0x200,
    RIGID_OPT_E,
    RIGID_OPT_KAPPA,
    RIGID_OPT_ALPHA,
    RIGID_OPT_TABLE,
    RIGID_OPT_STRICT,
    RIGID_OPT_CALIBRATE_ON
};

#define RIGID_LONG_OPTIONS                                                                         \
    {"rigid", required_argument, NULL, RIGID_OPT_LAW},                                             \
        {"restitution", required_argument, NULL, RIGID_OPT_E},                                     \
        {"kappa", required_argument, NULL, RIGID_OPT_KAPPA},                                       \
        {"alpha", required_argument, NULL, RIGID_OPT_ALPHA},                                       \
        {"strict", no_argument, NULL, RIGID_OPT_STRICT},                                           \
        {"calibrate-on", required_argument, NULL, RIGID_OPT_CALIBRATE_ON},                         \
    {                                                                                              \
        "table", required_argument, NULL, RIGID_OPT_TABLE                                          \
    }

void rigid_args_init(rigid_args *r);
/* Takes option @p c of RIGID_LONG_OPTIONS: @return 0, an exit status, or -1 when
 * @p c is not one of them. */
int rigid_option(int c, const char *arg, rigid_args *r);
/* The law exists and gets what it needs, no more: @return 0 or an exit status. */
int rigid_check(rigid_args *r);
/* The system for @p model: compliant, or rigid under the law asked for
 * (calibrated: the compliant run of @p model is made first, its episodes kept
 * in r->calib); NULL with the message printed and the exit status in *st. */
cr_system *rigid_or_compliant_system(rigid_args *r, const char *model_path, const cr_model *model,
                                     int *st);
/* --rigid calibrated from the episodes of a compliant run already made
 * (cradle compare): @return 0 or an exit status (message printed). */
int rigid_calib_from_monitor(rigid_args *r, const cr_monitor *mon, size_t pairs);
/* Frees what the rigid options own (the calibration, the table). */
void rigid_args_free(rigid_args *r);
/* One line naming the calibrated law for summaries ("energetic (calibrated: ...)"). */
#define RIGID_CALIBRATED_LABEL                                                                     \
    "calibrated: alpha, kappa of the compliant collision each impact stands for, once"

#endif
