/*
 * Pool contacts and their candidates. Every pair (or disc and wall) gets a
 * contact record the first time it is a candidate, and keeps it: impulses and
 * events refer to it. Candidates (pairs closer than R + skin, discs within the
 * skin of a wall) come from a cell list; each occupies a slot with four root
 * functions (closing, compression rate, force release, force rate). A disc that has moved
 * half the skin since the last rebuild is a root too: the list is rebuilt
 * exactly then, and the integrator restarts with the new Jacobian pattern
 * (rebuilds are rare; each is counted).
 */
#include "engines/compliant/pool-priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* Frozen normals: fixes pair contact k's normal, overlap and relative
 * displacement at the state y (its first touch: a closing root, or touching
 * when it becomes a candidate). Continuous: at the freeze δ and δ̇ are those of
 * the turning geometry, and the force is ~0 there, so no restart is needed. */
void cr_pl_freeze_normal(const cr_pool *p, const double *y, cr_pool_contact *k)
{
    if (!p->frozen_normals || cr_pl_is_wall(k) || k->frozen)
        return;
    double rate, dist;
    const double *di = cr_pl_disp(p, y, (size_t)k->i), *dj = cr_pl_disp(p, y, (size_t)k->j);
    cr_pl_geom(p, y, k, &k->fdelta, &rate, k->fn, &dist);
    for (int d = 0; d < p->dim; d++)
        k->fb[d] = dj[d] - di[d];
    k->frozen = 1;
}

/* Appends @p v to a per-disc list that grows by doubling. */
static int push_index(size_t **list, size_t *len, size_t *cap, size_t v)
{
    if (*len == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        size_t *q = realloc(*list, c * sizeof(size_t));
        if (!q)
            return CR_ERR_NOMEM;
        *list = q;
        *cap = c;
    }
    (*list)[(*len)++] = v;
    return CR_OK;
}

/* Remembers that disc i takes part in contact id. */
static int note_body_contact(cr_pool *p, size_t i, size_t id)
{
    if (!p->bc) {
        p->bc = calloc(p->n, sizeof(size_t *));
        p->nbc = calloc(p->n, sizeof(size_t));
        p->bccap = calloc(p->n, sizeof(size_t));
        if (!p->bc || !p->nbc || !p->bccap)
            return CR_ERR_NOMEM;
    }
    return push_index(&p->bc[i], &p->nbc[i], &p->bccap[i], id);
}

static int same_law(const cr_contact_params *a, const cr_contact_params *b)
{
    return a->K == b->K && a->n == b->n && a->C == b->C && a->m == b->m && a->release == b->release;
}

/* The law's place in p->laws, added when new. Pools have few laws (one per
 * pair of materials and radii); the most recent are looked at first, and a
 * law not among the last 64 is added again (a polydisperse pool with a law
 * per pair keeps one per contact, as every contact did before). */
static int intern_law(cr_pool *p, const cr_contact_params *law, size_t *at)
{
    for (size_t k = p->nlaws, seen = 0; k > 0 && seen < 64; k--, seen++)
        if (same_law(&p->laws[k - 1], law)) {
            *at = k - 1;
            return CR_OK;
        }
    if (p->nlaws == p->lawcap) {
        size_t cap = p->lawcap ? 2 * p->lawcap : 16;
        cr_contact_params *l = realloc(p->laws, cap * sizeof *l);
        if (!l)
            return CR_ERR_NOMEM;
        p->laws = l;
        p->lawcap = cap;
    }
    p->laws[p->nlaws] = *law;
    *at = p->nlaws++;
    return CR_OK;
}

/* A new contact record: its law and its geometry at t = 0. An overlap within
 * ε_geom (CR_GEOM_TOL of the smaller radius) is touching, overlap exactly 0
 * (not refused); a gap is kept as it is, however small: shutting gaps up to
 * ε_geom = 5e-12 m between 5 mm discs moved the wave's arrival there and left
 * the bench/peers pool 4.8e-7 V from the exact solution at every rtol (δ* is
 * 1e-5 m there; issue 23, item 9; tests/test-pool-accuracy.c). */
static int contact_init(cr_pool *p, cr_pool_contact *k, long i, long j)
{
    memset(k, 0, sizeof(*k));
    k->i = i;
    k->j = j;
    k->slot = -1;
    k->qslot = -1;
    cr_contact_params law;
    if (cr_model_pair_law(p->model, (size_t)i, j, &law) != CR_OK)
        return CR_ERR_MODEL;
    if (intern_law(p, &law, &k->law) != CR_OK)
        return CR_ERR_NOMEM;
    size_t dim = (size_t)p->dim;
    if (j >= 0) {
        for (size_t d = 0; d < dim; d++)
            k->a0[d] = p->x0[dim * (size_t)j + d] - p->x0[dim * (size_t)i + d];
        k->R = p->r[i] + p->r[j];
        double d0 = cr_pl_norm(k->a0, p->dim);
        k->c0 = (k->R - d0) * (k->R + d0);
        if (k->R - d0 > 0.0 && k->R - d0 <= CR_GEOM_TOL * fmin(p->r[i], p->r[j]))
            k->c0 = 0.0;
    } else {
        size_t w = (size_t)(-1 - j);
        double ov =
            p->woff[w] + p->r[i] - cr_pl_dot(p->wn + dim * w, p->x0 + dim * (size_t)i, p->dim);
        k->c0 = ov > 0.0 && ov <= CR_GEOM_TOL * p->r[i] ? 0.0 : ov;
    }
    return CR_OK;
}

/* The contact id of a pair (i < j, or j a wall), created on first sight. A
 * disc's list of contacts (bc) finds it: a few entries, where a map of every
 * pair cost ~160 bytes a disc and a cache miss a lookup. */
static long contact_id(cr_pool *p, long i, long j)
{
    for (size_t b = 0; p->bc && b < p->nbc[i]; b++) {
        const cr_pool_contact *k = &p->c[p->bc[i][b]];
        if (k->i == i && k->j == j)
            return (long)p->bc[i][b];
    }
    if (p->nc == p->ccap) {
        size_t cap = p->ccap ? 2 * p->ccap : 256;
        cr_pool_contact *c = realloc(p->c, cap * sizeof(cr_pool_contact));
        if (!c)
            return -1;
        p->c = c;
        p->ccap = cap;
    }
    if (contact_init(p, &p->c[p->nc], i, j) != CR_OK)
        return -1;
    if (note_body_contact(p, (size_t)i, p->nc) != CR_OK ||
        (j >= 0 && note_body_contact(p, (size_t)j, p->nc) != CR_OK))
        return -1;
    return (long)p->nc++;
}

/* Room for at least @p need slots (an eighth more, as the list may grow): the
 * quadratures (1 + dim per slot, then the dissipated energy) keep their values,
 * the root arrays (CR_PL_SR per slot, then one per disc) are refilled by the
 * caller. Slots cost every step (quadratures ride in CVODE's history), so there
 * are only as many as the candidates need. */
int cr_pl_grow_slots(cr_pool *p, size_t need)
{
    if (need <= p->nslots)
        return CR_OK;
    size_t cap = need + need / 8 + 16, old = p->nslots;
    long *sc = realloc(p->slot_contact, cap * sizeof(long));
    if (!sc)
        return CR_ERR_NOMEM;
    p->slot_contact = sc;
    for (size_t s = old; s < cap; s++)
        sc[s] = -1;
    p->nslots = cap;
    p->nroot = CR_PL_SR * cap + p->n;
    free(p->rootsfound);
    p->rootsfound = calloc(p->nroot, sizeof(int)); /* 0 but for found (cr_pl_locate_roots) */
    p->nfound = 0;
    double **g[] = {&p->glo, &p->ghi};
    int ok = p->rootsfound != NULL;
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        free(*g[k]);
        ok &= (*g[k] = malloc(p->nroot * sizeof(double))) != NULL;
    }
    /* a region searches its live functions only (cr_pl_search_room at its build) */
    return ok && (p->region || cr_pl_search_room(p, p->nroot) == CR_OK) ? CR_OK : CR_ERR_NOMEM;
}

int cr_pl_search_room(cr_pool *p, size_t need)
{
    if (need <= p->candcap)
        return CR_OK;
    size_t cap = p->region ? 2 * need + 64 : need;
    size_t *cand = realloc(p->cand, cap * sizeof(size_t));
    if (cand)
        p->cand = cand;
    unsigned char *guide = cand ? realloc(p->guide, cap) : NULL;
    if (guide)
        p->guide = guide;
    int ok = guide != NULL;
    double **g[] = {&p->clo, &p->chi, &p->cmid};
    for (size_t k = 0; k < sizeof g / sizeof g[0] && ok; k++) {
        double *a = realloc(*g[k], cap * sizeof(double));
        if (a)
            *g[k] = a;
        ok = a != NULL;
    }
    if (ok)
        p->candcap = cap;
    return ok ? CR_OK : CR_ERR_NOMEM;
}

typedef struct {
    int64_t key;
    size_t i;
} cell_entry;

static int cmp_cell(const void *a, const void *b)
{
    int64_t x = ((const cell_entry *)a)->key, y = ((const cell_entry *)b)->key;
    return x < y ? -1 : x > y;
}

static int nbr_push(cr_pool *p, size_t i, size_t j)
{
    return push_index(&p->nbr[i], &p->nnbr[i], &p->nbrcap[i], j);
}

/* What a neighbour search found: contacts that keep their slot and new ones. */
typedef struct {
    char *keep;  /* per contact id: still a candidate and already in a slot */
    long *fresh; /* new candidates (no slot yet) */
    size_t nfresh, keepcap, freshcap;
} candidates;

/* Records candidate (i, j) (j < 0: a wall). Refuses an overlap at start by
 * name: invalid physics never reaches the integrator. */
static int note_candidate(cr_pool *p, candidates *cd, long i, long j)
{
    long id = contact_id(p, i, j);
    if (id < 0 || (size_t)id >= cd->keepcap)
        return CR_ERR_NOMEM;
    const cr_pool_contact *k = &p->c[id];
    if (!p->ran && j >= 0 && k->c0 > 0.0) {
        cr_set_msg(p->err, sizeof p->err,
                   "%s %ld and %ld interpenetrate at start by %g m (touching tolerance %g m)",
                   p->dim == 3 ? "spheres" : "discs", i, j,
                   k->c0 / (k->R + cr_pl_norm(k->a0, p->dim)),
                   CR_GEOM_TOL * fmin(p->r[i], p->r[j]));
        return CR_ERR_MODEL;
    }
    if (k->slot >= 0) {
        cd->keep[id] = 1;
    } else if (cd->nfresh == cd->freshcap) {
        cr_set_msg(p->err, sizeof p->err, "more than %zu new candidate contacts: lower the skin",
                   cd->freshcap);
        return CR_ERR_SOLVER;
    } else {
        cd->fresh[cd->nfresh++] = id;
    }
    if (j >= 0 &&
        (nbr_push(p, (size_t)i, (size_t)j) != CR_OK || nbr_push(p, (size_t)j, (size_t)i) != CR_OK))
        return CR_ERR_NOMEM;
    return CR_OK;
}

/* Disc i's centre in the scaled state y (dim values into x). */
static void centre(const cr_pool *p, const double *y, size_t i, double *x)
{
    const double *di = cr_pl_disp(p, y, i);
    for (int d = 0; d < p->dim; d++)
        x[d] = p->x0[(size_t)p->dim * i + (size_t)d] + p->L * di[d];
}

/* The cell key of a centre x shifted by off cells (cells of size h). */
static int64_t cell_key(const cr_pool *p, const double *x, double h, const int64_t *off)
{
    int64_t c[3] = {0};
    for (int d = 0; d < p->dim; d++)
        c[d] = cr_cell_index(x[d], h) + off[d];
    return cr_cell_key_dim(c, p->dim);
}

/* The first entry of the sorted cell list with a key ≥ @p key. */
static size_t first_at_least(const cell_entry *cells, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cells[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* |a| < cut, decided as cr_pl_norm(a) < cut decides it (hypot, twice in 3-D,
 * was a fifth of a 3-D setup): the squared length settles every pair outside
 * a band of 10⁻⁹ relative about cut, far wider than the few ulps by which the
 * two lengths can differ; inside the band the norm itself decides. */
static int within(const double *a, int dim, double cut)
{
    double s2 = cr_pl_dot(a, a, dim), c2 = cut * cut;
    if (s2 > c2 * (1.0 + 1e-9))
        return 0;
    if (s2 < c2 * (1.0 - 1e-9))
        return 1;
    return cr_pl_norm(a, dim) < cut;
}

/* The candidates of disc i among the discs with keys klo..khi (one cell, or a
 * column of cells along the last axis, whose keys are consecutive), in the
 * list's order: discs j > i closer than rᵢ + rⱼ + skin. */
static int column_candidates(cr_pool *p, const double *y, const cell_entry *cells, int64_t klo,
                             int64_t khi, size_t i, const double *xi, candidates *cd)
{
    int rc = CR_OK;
    for (size_t b = first_at_least(cells, p->n, klo);
         b < p->n && cells[b].key <= khi && rc == CR_OK; b++) {
        size_t j = cells[b].i;
        if (j <= i)
            continue;
        double xj[3] = {0}, a[3] = {0};
        centre(p, y, j, xj);
        for (int d = 0; d < p->dim; d++)
            a[d] = xj[d] - xi[d];
        if (within(a, p->dim, p->r[i] + p->r[j] + p->skin))
            rc = note_candidate(p, cd, (long)i, (long)j);
    }
    return rc;
}

/* The candidates of disc i: discs j > i in the 3 × 3 (× 3) cells around it
 * closer than rᵢ + rⱼ + skin, and walls within the skin. The cells along the
 * last axis (y in 2-D, z in 3-D) have consecutive keys, so each column of 3 is
 * one binary search and one run of the sorted list: the same discs in the same
 * order as a search per cell (3 searches a disc in 2-D, 9 in 3-D, not 9 and
 * 27). A column whose keys wrap around the int64 range is searched per cell. */
static int disc_candidates(cr_pool *p, const double *y, const cell_entry *cells, double h, size_t i,
                           candidates *cd)
{
    double xi[3] = {0};
    centre(p, y, i, xi);
    int rc = CR_OK, last = p->dim - 1, ny = p->dim == 3 ? 1 : 0;
    for (int64_t dx = -1; dx <= 1; dx++)
        for (int64_t dy = -ny; dy <= ny && rc == CR_OK; dy++) {
            int64_t off[3] = {dx, dy, 0};
            off[last] = -1;
            int64_t klo = cell_key(p, xi, h, off);
            off[last] = 1;
            int64_t khi = cell_key(p, xi, h, off);
            if (klo < khi) /* khi = klo + 2: the column's three keys */
                rc = column_candidates(p, y, cells, klo, khi, i, xi, cd);
            else
                for (int64_t k = -1; k <= 1 && rc == CR_OK; k++) {
                    off[last] = k;
                    int64_t key = cell_key(p, xi, h, off);
                    rc = column_candidates(p, y, cells, key, key, i, xi, cd);
                }
        }
    for (size_t w = 0; w < p->nw && rc == CR_OK; w++)
        if (p->woff[w] + p->r[i] - cr_pl_dot(p->wn + (size_t)p->dim * w, xi, p->dim) > -p->skin)
            rc = note_candidate(p, cd, (long)i, CR_WALL_BODY(w));
    return rc;
}

/* Candidate contacts from a cell list (cells of size 2 r_max + skin: each disc
 * meets its candidates in the 3 × 3 (× 3) cells around it). O(N log N). */
static int find_candidates(cr_pool *p, candidates *cd)
{
    size_t n = p->n;
    const double *y = N_VGetArrayPointer(p->y);
    double h = 2.0 * p->rmax + p->skin;
    const int64_t zero[3] = {0, 0, 0};
    if (p->nc == 0) {
        /* The first search creates every record at once: room for a packing's
         * count (~3 a disc in 2-D, ~6 a sphere in 3-D) up front, where doubling
         * from 256 copied the records ten times over (13 % of a 10⁵-disc
         * setup). Pages not written stay unmapped. */
        size_t want = (p->dim == 3 ? 8 : 4) * n + 256;
        if (p->ccap < want) {
            cr_pool_contact *c = realloc(p->c, want * sizeof(cr_pool_contact));
            if (!c)
                return CR_ERR_NOMEM;
            p->c = c;
            p->ccap = want;
        }
    }
    cell_entry *cells = malloc(n * sizeof(cell_entry));
    if (!cells)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        double x[3] = {0};
        centre(p, y, i, x);
        cells[i].key = cell_key(p, x, h, zero);
        cells[i].i = i;
        p->nnbr[i] = 0;
    }
    qsort(cells, n, sizeof(cell_entry), cmp_cell);
    int rc = CR_OK;
    for (size_t a = 0; a < n && rc == CR_OK; a++)
        rc = disc_candidates(p, y, cells, h, cells[a].i, cd);
    free(cells);
    return rc;
}

/* Contacts that left the list free their slot (their impulses stay with their
 * record and quadrature slot); new candidates take free slots. */
static int assign_slots(cr_pool *p, const candidates *cd)
{
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id < 0 || cd->keep[id])
            continue;
        p->c[id].slot = -1;
        p->c[id].frozen = 0; /* out of reach: the next touch freezes a new normal */
        p->slot_contact[s] = -1;
    }
    size_t used = 0;
    for (size_t s = 0; s < p->nslots; s++)
        used += p->slot_contact[s] >= 0;
    if (cr_pl_grow_slots(p, used + cd->nfresh) != CR_OK)
        return CR_ERR_NOMEM;
    size_t s = 0;
    for (size_t k = 0; k < cd->nfresh; k++) {
        while (s < p->nslots && p->slot_contact[s] >= 0)
            s++;
        if (s == p->nslots) {
            cr_set_msg(p->err, sizeof p->err, "more than %zu candidate contacts: lower the skin",
                       p->nslots);
            return CR_ERR_SOLVER;
        }
        cr_pool_contact *c = &p->c[cd->fresh[k]];
        c->slot = (long)s;
        p->slot_contact[s] = cd->fresh[k];
        double delta, rate;
        cr_pl_overlap(p, N_VGetArrayPointer(p->y), c, &delta, &rate);
        if (delta >= 0.0) /* touching (at t = 0): its first touch is now */
            cr_pl_freeze_normal(p, N_VGetArrayPointer(p->y), c);
    }
    return CR_OK;
}

/* A new candidate list: neighbour search, slots, the reference displacements
 * of the rebuild roots, and the linear solver on the new list (after the
 * first time, with a restart). */
int cr_pl_rebuild(cr_pool *p)
{
    size_t n = p->n, cap = p->nc + 16 * n + 16, fcap = 16 * n + n * p->nw + 16;
    candidates cd = {calloc(cap, 1), malloc(fcap * sizeof(long)), 0, cap, fcap};
    int rc = cd.keep && cd.fresh ? find_candidates(p, &cd) : CR_ERR_NOMEM;
    if (rc == CR_OK)
        rc = assign_slots(p, &cd);
    free(cd.keep);
    free(cd.fresh);
    if (rc != CR_OK)
        return rc;
    const double *y = N_VGetArrayPointer(p->y);
    p->scan_all = 1; /* the slots hold other contacts */
    for (size_t i = 0; i < n; i++)
        memcpy(p->dref + (size_t)p->dim * i, cr_pl_disp(p, y, i), (size_t)p->dim * sizeof(double));
    if (p->region) {
        if (p->ran)
            p->rebuilds++;
        return cr_pl_region_build(p);
    }
    if ((rc = cr_pl_layout_quadratures(p, y)) != CR_OK)
        return rc;
    int flag = cr_pl_resize_quadratures(p);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(p->err, "neighbour rebuild (quadratures)", p->t, flag);
    return cr_pl_use_new_list(p);
}
