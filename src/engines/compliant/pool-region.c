/*
 * Active region (integration.active_region, without a field): CVODES steps
 * only the discs near an overlapping or approaching contact, in a compact
 * state; the others move exactly, at rest or in free flight, and join when a
 * contact reaching them closes (docs/design.md, "Active region").
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "model/model.h"

enum { DISC_REST = 0, DISC_FLY = 1, DISC_ACTIVE = 2 };

/* The full state y at the scaled time tau from the compact state ya: active
 * discs from ya, flying ones in exact free flight d = d_r + v (τ − τ_r) from
 * their state at tau_r; resting discs outside the region are already in place
 * (every full array gets them at the region's build). */
void cr_pl_fill_full(const cr_pool *p, double tau, const double *ya, double *y)
{
    size_t sd = p->sd, dim = (size_t)p->dim;
    for (size_t a = 0; a < p->na; a++)
        memcpy(y + sd * p->act[a], ya + sd * a, sd * sizeof(double));
    double dt = tau - p->tau_r;
    for (size_t k = 0; k < p->nfly; k++) {
        size_t i = p->fly[k];
        const double *r = p->yr + sd * i;
        for (size_t d = 0; d < dim; d++) {
            y[sd * i + d] = r[d] + r[dim + d] * dt;
            y[sd * i + dim + d] = r[dim + d];
        }
    }
}

/* The full state behind CVODE's vector @p yv at scaled time @p tau. */
const double *cr_pl_full_state(const cr_pool *p, double tau, N_Vector yv)
{
    const double *y = N_VGetArrayPointer(yv);
    if (!p->region)
        return y;
    cr_pl_fill_full(p, tau, y, p->yfull);
    return p->yfull;
}

/* Layers of candidate neighbours added around the busy discs (the pool's
 * REGION_PAD; CRADLE_REGION_PAD overrides it, a tuning aid). */
#define POOL_REGION_PAD 2
/* Steps between two looks at whether the region could shrink. */
#define REGION_CHECK_STEPS 64

/* A candidate contact that exerts a force or may soon: overlapping, or its
 * discs approaching (within the skin, since it is a candidate). Its discs
 * are busy. */
static int engaged(const cr_pool *p, const double *y, const cr_pool_contact *k)
{
    double delta, rate;
    cr_pl_overlap(p, y, k, &delta, &rate);
    return delta > 0.0 || rate > 0.0;
}

/* The discs to integrate at the state y, marked in @p mark: the discs of
 * engaged contacts, widened by p->pad layers of candidate neighbours. With
 * none engaged, the moving discs and their layers (CVODE's steps then check
 * the free flights for closings); with nothing moving, disc 0 (so that CVODE
 * can step to the end). @return how many. */
static size_t choose_active(cr_pool *p, const double *y, char *mark)
{
    size_t n = p->n, nq = 0;
    memset(mark, 0, n);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id < 0 || !engaged(p, y, &p->c[id]))
            continue;
        const cr_pool_contact *k = &p->c[id];
        mark[k->i] = 1;
        if (!cr_pl_is_wall(k))
            mark[k->j] = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            p->queue[nq++] = i;
    for (size_t i = 0; i < n && !nq; i++)
        if (cr_pl_moving(p, y, i))
            p->queue[nq++] = i, mark[i] = 1;
    if (!nq)
        p->queue[nq++] = 0, mark[0] = 1;
    size_t from = 0;
    for (size_t layer = 0; layer < p->pad; layer++) {
        size_t to = nq;
        for (size_t q = from; q < to; q++) {
            size_t i = p->queue[q];
            for (size_t b = 0; b < p->nnbr[i]; b++)
                if (!mark[p->nbr[i][b]]) {
                    mark[p->nbr[i][b]] = 1;
                    p->queue[nq++] = p->nbr[i][b];
                }
        }
        from = to;
    }
    return nq;
}

/* The root functions that can change while the region lasts, in increasing
 * order (locate_roots' guides need a slot's functions together): those of slots
 * with an active or flying disc, and the rebuild roots of those discs. The
 * others keep their values (their discs rest). */
static int region_live(cr_pool *p)
{
    size_t *lv = realloc(p->live, p->nroot * sizeof(size_t)), nl = 0;
    if (!lv)
        return CR_ERR_NOMEM;
    p->live = lv;
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id < 0)
            continue;
        const cr_pool_contact *k = &p->c[id];
        if (p->dstate[k->i] != DISC_REST || (!cr_pl_is_wall(k) && p->dstate[k->j] != DISC_REST))
            for (size_t r = 0; r < CR_PL_SR; r++)
                lv[nl++] = CR_PL_SR * s + r;
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->dstate[i] != DISC_REST)
            lv[nl++] = CR_PL_SR * p->nslots + i;
    p->nlive = nl;
    return CR_OK;
}

/* A CVODES instance on the compact state at τ_r (the previous one's counters
 * are banked), with the linear solver of the run. */
static int region_cvode(cr_pool *p)
{
    if (p->cvode) {
        cr_cvode_bank(p->cvode, &p->banked);
        CVodeFree(&p->cvode);
    }
    cr_pl_free_solver(p);
    int rc = cr_pl_new_cvode(p, p->tau_r, "active region");
    if (rc != CR_OK)
        return rc;
    int flag = cr_pl_attach_solver(p);
    if (flag == CV_MEM_FAIL)
        return CR_ERR_NOMEM;
    return flag == CV_SUCCESS ? CR_OK : cr_cvode_fail(p->err, "active region (solver)", p->t, flag);
}

/*
 * A new region at p->t from the full state p->y and the quadratures p->yQ:
 * the active discs (choose_active), the flying and resting ones, the compact
 * state, the quadrature slots (the contacts between active discs) and a new
 * CVODES instance. Every full array gets the resting discs' states.
 */
/* Each disc active (choose_active; its place in the compact state), flying
 * or resting at the state y. */
static void classify_discs(cr_pool *p, const double *y)
{
    choose_active(p, y, p->dstate);
    p->na = p->nfly = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (p->dstate[i]) {
            p->pos[i] = (long)p->na;
            p->act[p->na++] = i;
            p->dstate[i] = DISC_ACTIVE;
        } else {
            p->pos[i] = -1;
            p->dstate[i] = cr_pl_moving(p, y, i) ? DISC_FLY : DISC_REST;
            if (p->dstate[i] == DISC_FLY)
                p->fly[p->nfly++] = i;
        }
    }
}

/* The compact state ya of the active discs (new vectors when their number
 * changed), and every full array at the state y. */
static int compact_state(cr_pool *p, const double *y)
{
    size_t n = p->n, sd = p->sd;
    memcpy(p->yr, y, sd * n * sizeof(double));
    memcpy(p->yfull, y, sd * n * sizeof(double));
    memcpy(N_VGetArrayPointer(p->ystep), y, sd * n * sizeof(double));
    if (!p->ya || (size_t)N_VGetLength(p->ya) != sd * p->na) {
        if (p->ya)
            N_VDestroy(p->ya);
        if (p->yastep)
            N_VDestroy(p->yastep);
        p->ya = N_VNew_Serial((sunindextype)(sd * p->na), p->ctx);
        p->yastep = N_VNew_Serial((sunindextype)(sd * p->na), p->ctx);
        if (!p->ya || !p->yastep)
            return CR_ERR_NOMEM;
    }
    double *ya = N_VGetArrayPointer(p->ya);
    for (size_t a = 0; a < p->na; a++)
        memcpy(ya + sd * a, y + sd * p->act[a], sd * sizeof(double));
    return CR_OK;
}

int cr_pl_region_build(cr_pool *p)
{
    double *y = N_VGetArrayPointer(p->y);
    classify_discs(p, y);
    p->tau_r = p->t / p->T;
    if (compact_state(p, y) != CR_OK)
        return CR_ERR_NOMEM;
    int rc = cr_pl_layout_quadratures(p, y);
    if (rc == CR_OK)
        rc = region_live(p);
    p->quad_resized = 0; /* the new instance takes the vector as it is */
    if (rc == CR_OK)
        rc = region_cvode(p);
    p->region_builds++;
    if ((long)p->na > p->max_active)
        p->max_active = (long)p->na;
    p->need_region = 0;
    p->since_check = 0;
    return rc;
}

/* The region holds more than twice the discs it needs. */
int cr_pl_region_oversized(cr_pool *p)
{
    if (!p->region || ++p->since_check < REGION_CHECK_STEPS)
        return 0;
    p->since_check = 0;
    char *mark = (char *)p->hot; /* scratch */
    return 2 * choose_active(p, N_VGetArrayPointer(p->y), mark) < p->na;
}

/* What cr_pl_region_alloc and the region builds took (nothing without a
 * region: ya and yastep are then y and ystep). */
void cr_pl_region_free(cr_pool *p)
{
    if (p->region && p->ya)
        N_VDestroy(p->ya);
    if (p->region && p->yastep)
        N_VDestroy(p->yastep);
    free(p->act);
    free(p->fly);
    free(p->pos);
    free(p->dstate);
    free(p->yr);
    free(p->yfull);
    free(p->live);
    free(p->queue);
}

/* Arrays of the region (setup): every disc outside, at rest where it starts so. */
int cr_pl_region_alloc(cr_pool *p)
{
    size_t n = p->n;
    p->act = malloc(n * sizeof(size_t));
    p->fly = malloc(n * sizeof(size_t));
    p->queue = malloc(n * sizeof(size_t));
    p->pos = malloc(n * sizeof(long));
    p->dstate = calloc(n, 1);
    p->yr = malloc(p->sd * n * sizeof(double));
    p->yfull = malloc(p->sd * n * sizeof(double));
    if (!p->act || !p->fly || !p->queue || !p->pos || !p->dstate || !p->yr || !p->yfull)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        p->pos[i] = -1;
    p->pad = cr_switch_region_pad(POOL_REGION_PAD);
    return CR_OK;
}

/* The active region: integration.active_region auto or on (the environment's
 * CRADLE_ACTIVE_REGION=off|on overrides it, a debugging aid), and no field:
 * under gravity no disc flies exactly, so every disc is integrated. */
int cr_pl_use_region(const cr_pool *p)
{
    return cr_switch_active_region(p->model) != CR_ACTIVE_REGION_OFF && !cr_pl_has_field(p);
}
