/* The engine factory: which engine runs a model. The door (system/) names no
 * engine; the engines register here, above both (docs/design.md, "Folders"). */
#include "base/base.h"
#include "engines/compliant/compliant.h"
#include "engines/rigid/rigid-engines.h"
#include "model/model.h"
#include "system/system.h"

/* `integration.engine: graph` on a chain: the contact-graph engine runs the
 * chain's embedding in the plane (docs/design.md, "One engine"). */
static cr_system *create_graph_chain(const cr_model *model, char *msg, size_t msglen)
{
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, origin[3] = {0, 0, 0};
    char why[CR_ERRMSG_LEN] = "";
    cr_model *flat = cr_model_embed(model, 2, identity, origin, why, sizeof why);
    if (!flat) {
        cr_set_msg(msg, msglen, "integration.engine: graph: cannot run on the contact graph: %s",
                   why);
        return NULL;
    }
    cr_system *sys = cr_system_create_with(&cr_pool_engine, flat, msg, msglen);
    cr_model_destroy(flat);
    return sys;
}

cr_system *cr_system_create(const cr_model *model, char *msg, size_t msglen)
{
    if (!model) {
        cr_set_msg(msg, msglen, "cr_system_create: no model");
        return NULL;
    }
    switch (cr_model_dimension(model)) {
    case 1:
        if (cr_model_settings(model)->engine == CR_ENGINE_GRAPH)
            return create_graph_chain(model, msg, msglen);
        return cr_system_create_with(&cr_chain_engine, model, msg, msglen);
    case 2:
        return cr_system_create_with(
            cr_model_clump_count(model) ? &cr_clump_engine : &cr_pool_engine, model, msg, msglen);
    case 3:
        return cr_system_create_with(&cr_pool3_engine, model, msg, msglen);
    default:
        cr_set_msg(msg, msglen, "no engine for a model of dimension %d", cr_model_dimension(model));
        return NULL;
    }
}

typedef struct {
    cr_law_id law;
    const cr_law_params *params;
} rigid_args;

static void *make_rigid(const cr_model *model, cr_system *sys, void *ctx, char *msg, size_t msglen)
{
    const rigid_args *a = ctx;
    return cr_rigid_create(model, sys, a->law, a->params, msg, msglen);
}

static void *make_rigid_pool(const cr_model *model, cr_system *sys, void *ctx, char *msg,
                             size_t msglen)
{
    const rigid_args *a = ctx;
    return cr_rigid_pool_create(model, sys, a->law, a->params, msg, msglen);
}

/* The rigid engines need their law at creation, which the ops table's create
 * cannot carry; the rest is the same door. Chains: one engine; pools of discs
 * and of spheres: one engine, two ops tables (dim 2, 3). */
cr_system *cr_system_create_rigid(const cr_model *model, cr_law_id law, const cr_law_params *params,
                                  char *msg, size_t msglen)
{
    if (!model) {
        cr_set_msg(msg, msglen, "cr_system_create_rigid: no model");
        return NULL;
    }
    if (cr_model_clump_count(model)) {
        cr_set_msg(msg, msglen,
                   "rigid runs of bodies with rotation (clumps) are not supported yet: run the "
                   "compliant model");
        return NULL;
    }
    rigid_args a = {law, params};
    if (cr_model_dimension(model) == 3)
        return cr_system_build(&cr_rigid_pool3_engine, model, make_rigid_pool, &a, msg, msglen);
    if (cr_model_dimension(model) == 2)
        return cr_system_build(&cr_rigid_pool_engine, model, make_rigid_pool, &a, msg, msglen);
    return cr_system_build(&cr_rigid_engine, model, make_rigid, &a, msg, msglen);
}
