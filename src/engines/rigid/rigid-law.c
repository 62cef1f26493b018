/*
 * The law side shared by the rigid engines (rigid-law-priv.h): parameters
 * taken at creation and the pairwise sequential law. The core's sequential
 * law enumerates every order and every simultaneous subset (several outcomes,
 * 001 sect. 3.2); a run needs one outcome, so both engines take this order.
 */
#include <math.h>

#include "engines/common/engine-common.h"
#include "engines/rigid/rigid-law-priv.h"

int cr_rigid_law_uses_restitution(cr_law_id law)
{
    return law != CR_LAW_MAX_DISSIPATION && law != CR_LAW_ENERGETIC;
}

int cr_rigid_law_take(cr_law_id law, const cr_law_params *p, cr_law_params *given,
                      cr_law_params *lp, char *msg, size_t msglen)
{
    if ((unsigned)law >= CR_LAW_COUNT) {
        cr_set_msg(msg, msglen, "no rigid law %d", (int)law);
        return CR_ERR_INVALID;
    }
    if (p)
        *given = *p;
    else {
        cr_law_params_init(given);
        given->restitution = NAN;
    }
    *lp = *given;
    lp->restitutions = lp->alpha = lp->eta = NULL;
    lp->stiffness = lp->exponent = lp->energetic = NULL;
    return CR_OK;
}

int cr_rigid_sequential(const cr_rigid_stages *s, double v_rest, double *P)
{
    size_t cap = CR_RIGID_MAX_STAGES(s->m);
    for (size_t stage = 0;; stage++) {
        size_t q = 0;
        for (size_t j = 1; j < s->m; j++)
            if (s->gamma(s->ctx, j) < s->gamma(s->ctx, q))
                q = j;
        double g = s->gamma(s->ctx, q);
        if (g >= -v_rest)
            return CR_OK;
        if (stage >= cap)
            return CR_ERR_SOLVER;
        double lam = -(1.0 + s->restitution(s->ctx, q)) * g / s->inverse_mass(s->ctx, q);
        s->apply(s->ctx, q, lam);
        P[q] += lam;
    }
}
