/*
 * Quadrature slots: only candidates near moving discs (warm) integrate their
 * impulses ∫ f dt, ∫ f n dt, each in a slot of 1 + dim quadratures, followed by
 * the dissipated work. Slots cost every step (quadratures ride in CVODE's
 * history), so there are only as many as the warm contacts need.
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>

/* The impulses of contact k (scaled): those before its quadrature slot plus
 * the slot's. */
double cr_pl_impulse(const cr_pool *p, const cr_pool_contact *k, double *pv)
{
    const double *q = k->qslot >= 0 ? N_VGetArrayPointer(p->yQ) + p->nqv * (size_t)k->qslot : NULL;
    for (int d = 0; d < p->dim; d++)
        pv[d] = k->Pv[d] + (q ? q[1 + d] : 0.0);
    return k->P + (q ? q[0] : 0.0);
}

/* Gives contact k a free quadrature slot: 0 when there is none left. */
int cr_pl_take_qslot(cr_pool *p, long id)
{
    if (p->nq == p->qcap)
        return 0;
    p->c[id].qslot = (long)p->nq;
    p->qc[p->nq++] = id;
    p->pattern_stale = 1;
    return 1;
}

/* Discs that move (or feel gravity), and their candidate neighbours: hot. */
static void mark_hot(cr_pool *p, const double *y)
{
    if (p->region)
        return; /* warm: the contacts between active discs */
    int field = cr_pl_has_field(p);
    for (size_t i = 0; i < p->n; i++)
        p->hot[i] = field || cr_pl_moving(p, y, i);
    for (size_t i = 0; i < p->n; i++)
        if (p->hot[i] == 1)
            for (size_t k = 0; k < p->nnbr[i]; k++)
                if (!p->hot[p->nbr[i][k]])
                    p->hot[p->nbr[i][k]] = 2;
}

/* A candidate near motion (one of its discs is hot: mark_hot), or one that
 * missed_quadratures found loading. */
int cr_pl_warm(const cr_pool *p, const cr_pool_contact *k)
{
    if (p->region) /* the contacts that exert forces (cr_pl_rhs) */
        return p->pos[k->i] >= 0 && (cr_pl_is_wall(k) || p->pos[k->j] >= 0);
    return p->hot[k->i] || (!cr_pl_is_wall(k) && p->hot[k->j]) || k->qslot == CR_PL_WANTS_QSLOT;
}

/*
 * Quadrature slots for the candidates near motion (mark_hot at the state y):
 * a disc at rest with no force stays exactly at rest, so only contacts of
 * moving discs and of their neighbours can load before the next step ends
 * (step_events checks it and takes the step again otherwise). @return 0 when
 * the free slots ran out (layout_quadratures and a restart are needed).
 */
int cr_pl_warm_up(cr_pool *p, const double *y)
{
    mark_hot(p, y);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id >= 0 && p->c[id].qslot < 0 && cr_pl_warm(p, &p->c[id]) && !cr_pl_take_qslot(p, id))
            return 0;
    }
    return 1;
}

/* A region's warm contacts are those between its active discs (or with a
 * wall): found from the active discs' contacts, in slot order as a scan of
 * every slot finds them. @return how many, or (size_t)-1 (out of memory). */
static size_t region_warm(cr_pool *p)
{
    size_t ns = cr_pl_region_slots(p, 1), m = 0;
    for (size_t k = 0; k < ns && ns != (size_t)-1; k++)
        if (p->slot_contact[p->sbuf[k]] >= 0)
            p->sbuf[m++] = p->sbuf[k];
    return ns == (size_t)-1 ? ns : m;
}

/* A new quadrature layout (at a restart, before CVODE sees p->yQ): every
 * contact's impulses move to its record, the dissipated energy stays, and the
 * warm candidates take fresh slots, with as many again free (and 64). */
int cr_pl_layout_quadratures(cr_pool *p, const double *y)
{
    const double *oq = p->yQ ? N_VGetArrayPointer(p->yQ) : NULL;
    size_t nqv = p->nqv;
    double diss = oq ? oq[nqv * p->qcap] : 0.0;
    for (size_t s = 0; s < p->nq; s++) {
        cr_pool_contact *k = &p->c[p->qc[s]];
        k->P += oq[nqv * s];
        for (int d = 0; d < p->dim; d++)
            k->Pv[d] += oq[nqv * s + 1 + (size_t)d];
        k->qslot = -1;
        p->qc[s] = -1;
    }
    p->nq = 0;
    mark_hot(p, y);
    size_t need = 0;
    if (p->region && (need = region_warm(p)) == (size_t)-1)
        return CR_ERR_NOMEM;
    for (size_t s = 0; s < p->nslots && !p->region; s++)
        need += p->slot_contact[s] >= 0 && cr_pl_warm(p, &p->c[p->slot_contact[s]]);
    /* a region's warm contacts are fixed until its next build: no room to grow */
    size_t cap = p->region ? need + 1 : 2 * need + 64;
    if (cap != p->qcap || !p->yQ) {
        N_Vector q = cr_nvector_small((sunindextype)(nqv * cap + 1), p->ctx);
        long *qc = realloc(p->qc, cap * sizeof(long));
        if (qc)
            p->qc = qc;
        if (!q || !qc) {
            if (q)
                N_VDestroy(q);
            return CR_ERR_NOMEM;
        }
        if (p->yQ)
            N_VDestroy(p->yQ);
        p->yQ = q;
        p->qcap = cap;
        p->quad_resized = 1;
    }
    N_VConst(0.0, p->yQ);
    N_VGetArrayPointer(p->yQ)[nqv * cap] = diss;
    if (!p->region) {
        cr_pl_warm_up(p, y); /* room for all of them */
        return CR_OK;
    }
    for (size_t k = 0; k < need; k++)
        cr_pl_take_qslot(p, p->slot_contact[p->sbuf[k]]);
    return CR_OK;
}

/* CVODE's quadratures on a resized vector (before the restart that follows
 * every rebuild): freed and set up again with the same settings. */
int cr_pl_resize_quadratures(cr_pool *p)
{
    if (!p->quad_resized || !p->cvode)
        return CV_SUCCESS;
    p->quad_resized = 0;
    CVodeQuadFree(p->cvode);
    int flag = CVodeQuadInit(p->cvode, cr_pl_quad_rhs, p->yQ);
    if (flag == CV_SUCCESS)
        flag = CVodeSetQuadErrCon(p->cvode, SUNTRUE);
    if (flag == CV_SUCCESS)
        flag = CVodeQuadSStolerances(p->cvode, p->rtol, p->atol);
    return flag;
}
