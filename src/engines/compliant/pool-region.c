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

static int cmp_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Room for @p need entries in p->sbuf. */
static int sbuf_room(cr_pool *p, size_t need)
{
    if (need <= p->sbufcap)
        return CR_OK;
    size_t cap = 2 * need + 64, *b = realloc(p->sbuf, cap * sizeof(size_t));
    if (!b)
        return CR_ERR_NOMEM;
    p->sbuf = b;
    p->sbufcap = cap;
    return CR_OK;
}

/* The discs that may move while the region lasts: act, then fly. */
static size_t moving_disc(const cr_pool *p, size_t k)
{
    return k < p->na ? p->act[k] : p->fly[k - p->na];
}

size_t cr_pl_region_slots(cr_pool *p, int active_only)
{
    size_t nd = active_only ? p->na : p->na + p->nfly, need = 0, m = 0;
    if (!p->bc)
        return 0; /* no contact yet */
    for (size_t k = 0; k < nd; k++)
        need += p->nbc[moving_disc(p, k)];
    if (sbuf_room(p, need) != CR_OK)
        return (size_t)-1;
    for (size_t k = 0; k < nd; k++) {
        size_t i = moving_disc(p, k);
        for (size_t b = 0; b < p->nbc[i]; b++) {
            const cr_pool_contact *c = &p->c[p->bc[i][b]];
            if (c->slot < 0)
                continue;
            size_t other = cr_pl_is_wall(c) ? i : (size_t)c->i == i ? (size_t)c->j : (size_t)c->i;
            if (!active_only || p->pos[other] >= 0)
                p->sbuf[m++] = (size_t)c->slot;
        }
    }
    if (m > 1) /* qsort of none: sbuf may still be NULL */
        qsort(p->sbuf, m, sizeof(size_t), cmp_index);
    size_t u = 0; /* a pair of two listed discs came twice */
    for (size_t k = 0; k < m; k++)
        if (!u || p->sbuf[u - 1] != p->sbuf[k])
            p->sbuf[u++] = p->sbuf[k];
    return u;
}

/* Marks disc i busy (p->hot) and queues it. */
static void mark(cr_pool *p, size_t i, size_t *nq)
{
    if (!p->hot[i]) {
        p->hot[i] = 1;
        p->queue[(*nq)++] = i;
    }
}

/* The busy discs of the engaged contacts: every slot's at the first build and
 * after a rebuild, else those of the current region's moving discs (a contact
 * between two discs that rested through the region kept its state, and it
 * was not engaged at the region's build, or its discs would have been
 * active). @return how many are queued, or (size_t)-1 when out of memory. */
static size_t engaged_discs(cr_pool *p, const double *y)
{
    size_t nq = 0, ns = p->scan_all ? p->nslots : cr_pl_region_slots(p, 0);
    if (ns == (size_t)-1)
        return ns;
    for (size_t k = 0; k < ns; k++) {
        long id = p->slot_contact[p->scan_all ? k : p->sbuf[k]];
        if (id < 0 || !engaged(p, y, &p->c[id]))
            continue;
        const cr_pool_contact *c = &p->c[id];
        mark(p, (size_t)c->i, &nq);
        if (!cr_pl_is_wall(c))
            mark(p, (size_t)c->j, &nq);
    }
    /* with none engaged, the moving discs (only active or flying ones move) */
    size_t nd = p->scan_all ? p->n : p->na + p->nfly;
    for (size_t k = 0; k < nd && !nq; k++) {
        size_t i = p->scan_all ? k : moving_disc(p, k);
        if (cr_pl_moving(p, y, i))
            mark(p, i, &nq);
    }
    return nq;
}

/* The discs to integrate at the state y, marked in p->hot and listed in
 * p->queue: the discs of engaged contacts, widened by p->pad layers of
 * candidate neighbours. With none engaged, the moving discs and their layers
 * (CVODE's steps then check the free flights for closings); with nothing
 * moving, disc 0 (so that CVODE can step to the end). The caller clears the
 * marks (clear_marks). @return how many, or (size_t)-1 when out of memory. */
static size_t choose_active(cr_pool *p, const double *y)
{
    size_t nq = engaged_discs(p, y);
    if (nq == (size_t)-1)
        return nq;
    if (!nq)
        mark(p, 0, &nq);
    size_t from = 0;
    for (size_t layer = 0; layer < p->pad; layer++) {
        size_t to = nq;
        for (size_t q = from; q < to; q++) {
            size_t i = p->queue[q];
            for (size_t b = 0; b < p->nnbr[i]; b++)
                mark(p, p->nbr[i][b], &nq);
        }
        from = to;
    }
    return nq;
}

static void clear_marks(cr_pool *p, size_t nq)
{
    for (size_t q = 0; q < nq; q++)
        p->hot[p->queue[q]] = 0;
}

/* The root functions that can change while the region lasts, in increasing
 * order (locate_roots' guides need a slot's functions together): those of slots
 * with an active or flying disc, and the rebuild roots of those discs. The
 * others cannot change (their discs rest) and are not read while it lasts. */
static int region_live(cr_pool *p)
{
    size_t ns = cr_pl_region_slots(p, 0), nd = p->na + p->nfly;
    if (ns == (size_t)-1)
        return CR_ERR_NOMEM;
    size_t need = CR_PL_SR * ns + nd, nl = 0;
    if (need > p->livecap) {
        size_t cap = 2 * need + 64, *lv = realloc(p->live, cap * sizeof(size_t));
        if (!lv)
            return CR_ERR_NOMEM;
        p->live = lv;
        p->livecap = cap;
    }
    size_t *lv = p->live;
    for (size_t k = 0; k < ns; k++)
        for (size_t r = 0; r < CR_PL_SR; r++)
            lv[nl++] = CR_PL_SR * p->sbuf[k] + r;
    for (size_t k = 0; k < nd; k++)
        lv[nl + k] = CR_PL_SR * p->nslots + moving_disc(p, k);
    qsort(lv + nl, nd, sizeof(size_t), cmp_index); /* act and fly are each sorted */
    p->nlive = nl + nd;
    return cr_pl_search_room(p, p->nlive);
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
/* Disc i active at place a of the compact state, or flying or resting (a < 0)
 * at the state y. */
static void classify(cr_pool *p, const double *y, size_t i, long a)
{
    p->pos[i] = a;
    if (a >= 0)
        p->dstate[i] = DISC_ACTIVE;
    else
        p->dstate[i] = cr_pl_moving(p, y, i) ? DISC_FLY : DISC_REST;
}

/* Every disc active (choose_active's marks), flying or resting: the first
 * build and after a rebuild. */
static void classify_all(cr_pool *p, const double *y)
{
    p->na = p->nfly = 0;
    for (size_t i = 0; i < p->n; i++) {
        classify(p, y, i, p->hot[i] ? (long)p->na : -1);
        if (p->hot[i])
            p->act[p->na++] = i;
        else if (p->dstate[i] == DISC_FLY)
            p->fly[p->nfly++] = i;
    }
}

/* Each disc active (choose_active; its place in the compact state, in disc
 * order), flying or resting at the state y. Only the discs of the region
 * that ends (listed in p->stale: their rows of the full arrays change) and
 * the new active ones change state: every other disc rested through it. */
static int classify_discs(cr_pool *p, const double *y)
{
    size_t nq = choose_active(p, y), nm = p->na + p->nfly;
    if (nq == (size_t)-1)
        return CR_ERR_NOMEM;
    if (p->scan_all) {
        classify_all(p, y);
        clear_marks(p, nq);
        return CR_OK;
    }
    size_t *st = p->stale;
    for (size_t k = 0; k < nm; k++)
        st[k] = moving_disc(p, k);
    p->nstale = nm;
    for (size_t k = 0; k < nm; k++)
        classify(p, y, st[k], -1);
    qsort(p->queue, nq, sizeof(size_t), cmp_index);
    p->na = nq;
    for (size_t a = 0; a < nq; a++) {
        p->act[a] = p->queue[a];
        classify(p, y, p->act[a], (long)a);
    }
    p->nfly = 0;
    for (size_t k = 0; k < nm; k++)
        if (p->dstate[st[k]] == DISC_FLY)
            p->fly[p->nfly++] = st[k];
    qsort(p->fly, p->nfly, sizeof(size_t), cmp_index);
    clear_marks(p, nq);
    return CR_OK;
}

/* Disc i's row of the state y into every full array that keeps resting discs'
 * states (CVODES' full step, the region's, the root search's). */
static void copy_row(cr_pool *p, const double *y, size_t i)
{
    double *rows[] = {p->yr, p->yfull, N_VGetArrayPointer(p->ystep), p->ysub, p->ysave};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        memcpy(rows[k] + p->sd * i, y + p->sd * i, p->sd * sizeof(double));
}

/* The compact state ya of the active discs (new vectors when their number
 * changed), and every full array at the state y: whole at the first build and
 * after a rebuild, else the rows of the discs that moved in the last region. */
static int compact_state(cr_pool *p, const double *y)
{
    size_t n = p->n, sd = p->sd;
    for (size_t k = 0; k < (p->scan_all ? n : p->nstale); k++)
        copy_row(p, y, p->scan_all ? k : p->stale[k]);
    if (!p->ya || (size_t)N_VGetLength(p->ya) != sd * p->na) {
        if (p->ya)
            N_VDestroy(p->ya);
        if (p->yastep)
            N_VDestroy(p->yastep);
        p->ya = cr_nvector_small((sunindextype)(sd * p->na), p->ctx);
        p->yastep = cr_nvector_small((sunindextype)(sd * p->na), p->ctx);
        if (!p->ya || !p->yastep)
            return CR_ERR_NOMEM;
    }
    if (p->na > p->yasavecap) { /* room to keep it in a hidden-crossing search */
        double *s = realloc(p->yasave, 2 * p->sd * p->na * sizeof(double));
        if (!s)
            return CR_ERR_NOMEM;
        p->yasave = s;
        p->yasavecap = 2 * p->na;
    }
    double *ya = N_VGetArrayPointer(p->ya);
    for (size_t a = 0; a < p->na; a++)
        memcpy(ya + sd * a, y + sd * p->act[a], sd * sizeof(double));
    return CR_OK;
}

/*
 * A new region at p->t from the full state p->y and the quadratures p->yQ:
 * the active discs (choose_active), the flying and resting ones, the compact
 * state, the quadrature slots (the contacts between active discs) and a new
 * CVODES instance. Every full array gets the resting discs' states; the
 * live root functions are evaluated after it (cr_pl_roots_afresh).
 */
int cr_pl_region_build(cr_pool *p)
{
    double *y = N_VGetArrayPointer(p->y);
    if (classify_discs(p, y) != CR_OK)
        return CR_ERR_NOMEM;
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
    p->scan_all = 0;
    return rc;
}

/* The region holds more than twice the discs it needs. */
int cr_pl_region_oversized(cr_pool *p)
{
    if (!p->region || ++p->since_check < REGION_CHECK_STEPS)
        return 0;
    p->since_check = 0;
    size_t nq = choose_active(p, N_VGetArrayPointer(p->y));
    if (nq == (size_t)-1)
        return 0; /* out of memory: keep the region */
    clear_marks(p, nq);
    return 2 * nq < p->na;
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
    free(p->stale);
    free(p->yasave);
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
    p->stale = malloc(n * sizeof(size_t));
    if (!p->act || !p->fly || !p->queue || !p->pos || !p->dstate || !p->yr || !p->yfull ||
        !p->stale)
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
