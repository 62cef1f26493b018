/*
 * The relaxation step of `cradle pack` (docs/model-format.md, "Packings"):
 * a settled packing under gravity has overlaps of order (m g / K)^(2/3) at
 * its loaded contacts. This moves the spheres so that every contact of the
 * settled network touches within the geometric tolerance
 * eps = CR_GEOM_TOL min(r_i, r_j) (walls: CR_GEOM_TOL r), with no other pair
 * or wall overlapping beyond it:
 *
 *   1. candidates: every pair and sphere-wall pair within a skin of 0.05 r_max
 *      of touching; the network: candidates with gap <= eps;
 *   2. Gauss-Seidel projection (bilateral): constraints in order of height
 *      against gravity (from the floor up); each sets its gap to zero by
 *      moving its two spheres half the gap each along the normal (a wall's
 *      sphere the whole gap); a candidate that comes to overlap joins the
 *      network; passes until every network gap is within eps/10 (at most
 *      PACK_BILATERAL_PASSES);
 *   3. if that does not converge (a network whose overlaps no touching
 *      arrangement undoes: spheres wedged between walls, a hyperstatic
 *      crystal), geometric settling from the settled positions (settle()):
 *      rigid spheres stepped down along gravity by halving steps, overlaps
 *      projected out after each (unilateral passes: only overlapping pairs
 *      move), until the step is below eps/10; network contacts left open
 *      beyond eps are counted as opened.
 *
 * Public API only (the CLI's own step, not the library's physics).
 */
#include "pack-relax.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PACK_BILATERAL_PASSES 2000
#define PACK_UNILATERAL_PASSES 20000

typedef struct {
    size_t up;     /* the body that moves */
    long low;      /* the other body, or CR_WALL_BODY(w) */
    double height; /* of the upper body, against gravity (the order of passes) */
    double eps;    /* touching tolerance of the pair */
    int net;       /* in the touching network */
} constraint;

typedef struct {
    int64_t key;
    size_t i;
} cell_item;

static int cmp_item(const void *a, const void *b)
{
    const cell_item *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->i < y->i ? -1 : x->i > y->i);
}

static int cmp_height(const void *a, const void *b)
{
    const constraint *x = a, *y = b;
    return x->height < y->height ? -1 : x->height > y->height;
}

/* The gap of constraint c at positions x, and its unit normal (towards the
 * upper body) in n. */
static double gap_of(const pack_problem *P, const double *x, const constraint *c, double *n)
{
    const double *xu = x + 3 * c->up;
    if (c->low < 0) {
        double off = P->wall_offset[CR_WALL_INDEX(c->low)];
        memcpy(n, P->wall_normal + 3 * CR_WALL_INDEX(c->low), 3 * sizeof(double));
        return n[0] * xu[0] + n[1] * xu[1] + n[2] * xu[2] - off - P->r[c->up];
    }
    const double *xl = x + 3 * (size_t)c->low;
    double e[3] = {xu[0] - xl[0], xu[1] - xl[1], xu[2] - xl[2]};
    double d = hypot(hypot(e[0], e[1]), e[2]);
    for (int k = 0; k < 3; k++)
        n[k] = e[k] / d;
    return d - P->r[c->up] - P->r[c->low];
}

static double height_of(const pack_problem *P, const double *x, size_t i)
{
    const double *g = P->gravity;
    double gn = hypot(hypot(g[0], g[1]), g[2]);
    return gn > 0.0 ? -(g[0] * x[3 * i] + g[1] * x[3 * i + 1] + g[2] * x[3 * i + 2]) / gn : 0.0;
}

static int64_t cell_key(const double *x, double h, const int64_t *off)
{
    int64_t c[3];
    for (int d = 0; d < 3; d++)
        c[d] = (int64_t)floor(x[d] / h) + off[d] + (1 << 20);
    return (c[0] << 42) | (c[1] << 21) | c[2];
}

/* Appends a constraint (growing the array). */
static int push(constraint **cs, size_t *n, size_t *cap, constraint c)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        constraint *m = realloc(*cs, nc * sizeof *m);
        if (!m)
            return -1;
        *cs = m;
        *cap = nc;
    }
    (*cs)[(*n)++] = c;
    return 0;
}

/* The pairs of body i with the bodies of cell @p key of index above i. */
static int pairs_in_cell(const pack_problem *P, const double *x, const cell_item *cells, size_t i,
                         int64_t key, double skin, constraint **cs, size_t *n, size_t *cap)
{
    size_t lo = 0, hi = P->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cells[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < P->n && cells[lo].key == key; lo++) {
        size_t j = cells[lo].i;
        if (j <= i)
            continue;
        constraint c = {i, (long)j, 0, CR_GEOM_TOL * fmin(P->r[i], P->r[j]), 0};
        double nrm[3];
        if (gap_of(P, x, &c, nrm) > skin)
            continue;
        if (height_of(P, x, i) < height_of(P, x, j)) { /* the higher one moves */
            c.up = j;
            c.low = (long)i;
        }
        c.height = height_of(P, x, c.up);
        if (push(cs, n, cap, c))
            return -1;
    }
    return 0;
}

/* Every sphere pair and sphere-wall pair within @p skin of touching. */
static int candidates(const pack_problem *P, const double *x, double skin, constraint **cs,
                      size_t *n)
{
    double rmax = 0.0;
    size_t cap = 0;
    for (size_t i = 0; i < P->n; i++)
        rmax = fmax(rmax, P->r[i]);
    double h = 2.0 * rmax + skin;
    cell_item *cells = malloc((P->n + 1) * sizeof *cells);
    if (!cells)
        return -1;
    const int64_t zero[3] = {0, 0, 0};
    for (size_t i = 0; i < P->n; i++)
        cells[i] = (cell_item){cell_key(x + 3 * i, h, zero), i};
    qsort(cells, P->n, sizeof *cells, cmp_item);
    int rc = 0;
    for (size_t i = 0; i < P->n && !rc; i++)
        for (int64_t o = 0; o < 27 && !rc; o++) {
            const int64_t off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
            rc = pairs_in_cell(P, x, cells, i, cell_key(x + 3 * i, h, off), skin, cs, n, &cap);
        }
    free(cells);
    for (size_t i = 0; i < P->n && !rc; i++)
        for (size_t w = 0; w < P->nwalls && !rc; w++) {
            constraint c = {i, CR_WALL_BODY(w), height_of(P, x, i), CR_GEOM_TOL * P->r[i], 0};
            double nrm[3];
            if (gap_of(P, x, &c, nrm) <= skin)
                rc = push(cs, n, &cap, c);
        }
    return rc;
}

static int is_fixed(const pack_problem *P, long i)
{
    return i >= 0 && P->fixed && P->fixed[i];
}

/* One pass over the constraints; @return the largest |gap|/eps over the
 * network before its correction (bilateral) or the largest overlap/eps. */
static double pass(const pack_problem *P, double *x, constraint *cs, size_t n, int bilateral)
{
    double worst = 0.0;
    for (size_t k = 0; k < n; k++) {
        constraint *c = &cs[k];
        double nrm[3], g = gap_of(P, x, c, nrm);
        if (g < -c->eps)
            c->net = 1; /* came into contact: joins the network */
        int fix = bilateral ? c->net : g < 0.0;
        if (!fix)
            continue;
        worst = fmax(worst, (bilateral ? fabs(g) : -g) / c->eps);
        /* a wall's sphere moves the whole gap, a pair's spheres half each (a
         * fixed sphere's partner the whole gap) */
        int fu = is_fixed(P, (long)c->up), fl = c->low < 0 || is_fixed(P, c->low);
        double su = fu ? 0.0 : fl ? 1.0 : 0.5, sl = fl ? 0.0 : fu ? 1.0 : 0.5;
        for (int d = 0; d < 3; d++) {
            x[3 * c->up + (size_t)d] -= su * g * nrm[d];
            if (c->low >= 0)
                x[3 * (size_t)c->low + (size_t)d] += sl * g * nrm[d];
        }
    }
    return worst;
}

static void count_network(const pack_problem *P, const double *x, const constraint *cs, size_t n,
                          pack_stats *st)
{
    st->pairs = st->wall_contacts = st->opened = 0;
    st->max_gap = st->max_overlap = 0.0;
    for (size_t k = 0; k < n; k++) {
        double nrm[3], g = gap_of(P, x, &cs[k], nrm);
        st->max_overlap = fmax(st->max_overlap, -g / cs[k].eps);
        if (fabs(g) <= cs[k].eps) {
            st->max_gap = fmax(st->max_gap, fabs(g) / cs[k].eps);
            if (cs[k].low < 0)
                st->wall_contacts++;
            else
                st->pairs++;
        } else if (cs[k].net)
            st->opened++;
    }
}

/* Unilateral passes until no overlap exceeds eps/10. @return 1 at the cap. */
static int unoverlap(const pack_problem *P, double *x, constraint *cs, size_t n, pack_stats *st)
{
    for (long k = 1; k <= PACK_UNILATERAL_PASSES; k++, st->passes++)
        if (pass(P, x, cs, n, 0) <= 0.1)
            return 0;
    return 1;
}

/* Step 3: geometric settling of rigid spheres. Every sphere steps s along
 * gravity, the overlaps are projected out (unilateral passes), s halves, until
 * s < eps_min/10: the spheres come to rest on their supports, each supporting
 * contact within eps, having moved at most 2 s0 down in all (s0: the largest
 * overlap of the settled packing, at most 1 % of the largest radius). */
static void settle(const pack_problem *P, double *x, constraint *cs, size_t n, double s0,
                   double eps_min, pack_stats *st)
{
    const double *g = P->gravity;
    double gn = hypot(hypot(g[0], g[1]), g[2]), u[3] = {g[0] / gn, g[1] / gn, g[2] / gn};
    unoverlap(P, x, cs, n, st);
    for (double s = s0; s >= 0.1 * eps_min; s *= 0.5, st->rounds++) {
        for (size_t i = 0; i < P->n; i++)
            for (int d = 0; d < 3 && !is_fixed(P, (long)i); d++)
                x[3 * i + (size_t)d] += s * u[d];
        unoverlap(P, x, cs, n, st);
    }
}

/* Step 2; @return 1 when every network gap is within eps/10. Gives up when
 * 200 passes do not shrink the worst gap by 1 %. */
static int bilateral(const pack_problem *P, double *x, constraint *cs, size_t n, pack_stats *st)
{
    double before = INFINITY;
    for (st->passes = 1; st->passes <= PACK_BILATERAL_PASSES; st->passes++) {
        double worst = pass(P, x, cs, n, 1);
        if (worst <= 0.1)
            return 1;
        if (st->passes % 200 == 0) {
            if (worst > 0.99 * before)
                return 0;
            before = worst;
        }
    }
    return 0;
}

int pack_relax(const pack_problem *P, double *x, pack_stats *st)
{
    constraint *cs = NULL;
    size_t n = 0;
    double rmax = 0.0, eps_min = INFINITY, s0 = 0.0;
    for (size_t i = 0; i < P->n; i++)
        rmax = fmax(rmax, P->r[i]);
    memset(st, 0, sizeof *st);
    if (candidates(P, x, 0.05 * rmax, &cs, &n)) {
        free(cs);
        return -1;
    }
    qsort(cs, n, sizeof *cs, cmp_height);
    double *x0 = malloc((3 * P->n + 1) * sizeof *x0);
    if (!x0) {
        free(cs);
        return -1;
    }
    memcpy(x0, x, 3 * P->n * sizeof *x);
    for (size_t k = 0; k < n; k++) {
        double nrm[3], g = gap_of(P, x, &cs[k], nrm);
        cs[k].net = g <= cs[k].eps;
        s0 = fmax(s0, -g);
        eps_min = fmin(eps_min, cs[k].eps);
    }
    st->bilateral = bilateral(P, x, cs, n, st);
    if (!st->bilateral) { /* from the settled positions again */
        memcpy(x, x0, 3 * P->n * sizeof *x);
        settle(P, x, cs, n, fmin(s0, 0.01 * rmax), eps_min, st);
    }
    free(x0);
    count_network(P, x, cs, n, st);
    free(cs);
    /* the overlaps again over a fresh neighbour search: nothing the moves
     * brought together unseen */
    cs = NULL;
    n = 0;
    if (candidates(P, x, 0.05 * rmax, &cs, &n)) {
        free(cs);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        double nrm[3];
        st->max_overlap = fmax(st->max_overlap, -gap_of(P, x, &cs[k], nrm) / cs[k].eps);
    }
    free(cs);
    return st->max_overlap <= 1.0 ? 0 : 1;
}
