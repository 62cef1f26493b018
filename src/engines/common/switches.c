/* The engines' environment switches, read here and nowhere else: debugging
 * and comparison aids that change what an engine computes (docs/design.md,
 * "Environment switches"). They are read each time an engine asks (when it is
 * built, or when it decides on its active region), so a test can set one
 * between two runs of one process. */
#include <stdlib.h>
#include <string.h>

#include "engines/common/engine-common.h"

cr_active_region cr_switch_active_region(const cr_model *model)
{
    const char *env = getenv("CRADLE_ACTIVE_REGION");
    if (env && strcmp(env, "off") == 0)
        return CR_ACTIVE_REGION_OFF;
    if (env && strcmp(env, "on") == 0)
        return CR_ACTIVE_REGION_ON;
    return cr_model_settings(model)->active_region;
}

size_t cr_switch_region_pad(size_t fallback)
{
    const char *env = getenv("CRADLE_REGION_PAD");
    return env && atoi(env) >= 0 ? (size_t)atoi(env) : fallback;
}

int cr_switch_auto_method(void)
{
    const char *env = getenv("CRADLE_AUTO_METHOD");
    for (int k = 0; env && cr_method_name(k); k++)
        if (strcmp(env, cr_method_name(k)) == 0)
            return k == CR_METHOD_ERK || k == CR_METHOD_ADAMS_FIXED_POINT ? k : CR_METHOD_AUTO;
    return CR_METHOD_AUTO;
}

int cr_switch_chain_roots_cvode(void)
{
    const char *env = getenv("CRADLE_CHAIN_ROOTS");
    return env && strcmp(env, "cvode") == 0;
}

int cr_switch_impulse_states(void)
{
    const char *env = getenv("CRADLE_IMPULSE_STATES");
    return !(env && strcmp(env, "off") == 0);
}

int cr_switch_rigid_flight_cvodes(void)
{
    const char *env = getenv("CRADLE_RIGID_FLIGHT");
    return env && strcmp(env, "cvodes") == 0;
}
