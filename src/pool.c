/*
 * Planar pools: CVODES over discs, Newton with a sparse (KLU) or matrix-free
 * (GMRES) Jacobian, or Adams with fixed-point iteration (no Jacobian).
 *
 * State (scaled): per disc (dx, dy)/δ* displacement from the start and (vx, vy)/V.
 * The overlap of a pair is computed without cancellation from the initial
 * relative position a₀ and the relative displacement b:
 *   δ = R − |a₀ + b| = (R² − |a₀|² − 2a₀·b − |b|²) / (R + |a₀ + b|),
 * with R² − |a₀|² = (R − |a₀|)(R + |a₀|) formed once; positions of order 10⁻²
 * and overlaps of order 10⁻⁵ then keep all their digits.
 *
 * Candidate contacts (pairs closer than R + skin, discs within the skin of a
 * wall) come from a cell list; each occupies a slot with three root functions
 * (closing, compression rate, force release); those near moving discs also
 * have three quadratures (∫f, ∫f n; warm_up). A disc that has moved half the
 * skin since the last rebuild is a root too: the list is rebuilt exactly then,
 * and the integrator restarts with the new Jacobian pattern (rebuilds are
 * rare; each is counted). Events are located by the engine itself, not by
 * CVODE (step_events, "event location" below).
 *
 * Active region (integration.active_region, without a field): CVODES steps
 * only the discs near an overlapping or approaching contact, in a compact
 * state; the others move exactly, at rest or in free flight, and join when a
 * contact reaching them closes ("active region" below; docs/design.md).
 */
#include "pool-priv.h"

#include <cvodes/cvodes.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "engines-priv.h"
#include "integrator.h"
#include "model-priv.h"
#include "priv.h"

#define ETA CR_EVENT_MARGIN /* priv.h */

/* The automatic end's at-rest test looks at every pair of discs (O(N²)). */
#define AUTO_END_MAX_DISCS 2000

typedef struct {
    long i, j;              /* discs, or j = −1 − wall */
    double a0x, a0y, R, c0; /* pair geometry at t = 0; walls: c0 = initial overlap */
    double P, Px, Py;       /* impulses before its quadrature slot (scaled) */
    long slot;              /* −1 when not a candidate */
    long qslot;             /* its impulses' quadratures (−1: none; see warm_up) */
    cr_contact_params law;  /* the pair's law, from the model when the contact appears */
    /* frozen normal (integration.normals: frozen): n₀, overlap δ₀ and scaled
     * relative displacement b₀ at first touch; kept while a candidate */
    int frozen;
    double fnx, fny, fdelta, fbx, fby;
} contact;

struct cr_pool {
    size_t n, nw;
    /* the engine's own copy: pair laws are looked up as contacts appear, and the
     * caller may destroy its model after cr_system_create */
    cr_model *model;
    double *m, *r, *x0, *y0, *vx0, *vy0, *accel;
    double *wnx, *wny, *woff;
    double gx, gy; /* uniform gravity, m/s² */
    double L, V, T, Pscale, Escale, rmax, skin_rel, skin;
    double rtol, atol, jac_floor;
    cr_method method;
    int frozen_normals; /* integration.normals: frozen */

    contact *c;
    size_t nc, ccap;
    uint64_t *hkey; /* open-addressing map pair key → contact id + 1 */
    size_t *hval;
    size_t hcap;

    size_t nslots;    /* grown as the candidates need (grow_slots) */
    int quad_resized; /* the quadrature vector changed length: CVODE needs it again */
    /* quadrature slots (three impulses each, then the dissipated energy): only
     * contacts near moving discs have one (warm_up); free slots have carried
     * exactly 0 since the last restart, so a contact may take one at any time */
    long *qc; /* contact of each quadrature slot */
    size_t nq, qcap;
    char *hot;          /* per disc, scratch of warm_up */
    long missed;        /* steps taken again for a contact without quadratures */
    int pattern_stale;  /* warm contacts the KLU pattern lacks (lay_pattern) */
    long *slot_contact; /* contact id of each slot, −1 free */
    double *dref;       /* displacements at the last rebuild (scaled) */
    size_t **nbr;       /* per disc: neighbour discs (j > i and j < i) in the candidates */
    size_t *nnbr, *nbrcap;
    size_t **bc; /* per disc: every contact id it has had (cr_system_body_contacts) */
    size_t *nbc, *bccap;

    SUNContext ctx;
    void *cvode;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS; /* fixed-point iteration (no Jacobian), or NULL: Newton */
    int fixed_point;
    int *rootsfound;
    /* the engine's own event location (see locate_roots): every root function
     * at the last point searched (glo) and at the end of the step (ghi), the
     * functions that changed sign, their values in the search, the state at
     * the end of the step, and how many evaluations it made */
    N_Vector ystep;
    double *glo, *ghi, *clo, *chi, *cmid, tlo;
    size_t *cand, nroot;
    char *guide; /* per candidate: may steer the root search (guides) */
    long gevals;
    sunindextype *pat_ptr, *pat_idx; /* the Jacobian pattern, restored at every evaluation */
    size_t pat_nnz;
    cr_linear_solver solver;
    double *pblock; /* GMRES: per disc, the inverse of the 4×4 block of I − γJ */

    /* active region (docs/design.md, "Active region"): CVODES integrates the
     * discs act[0 … na) only, in the compact state ya (4 values per disc, in
     * disc order; pos[i] is disc i's place, −1 outside); every other disc
     * moves exactly, at rest or in free flight (fly) from its state at tau_r
     * (yr). y and ystep stay full states. Off (region 0): act is the
     * identity, ya and yastep are y and ystep. */
    int region;
    size_t na, *act, *fly, nfly, pad;
    long *pos;
    char *dstate; /* per disc: DISC_REST, DISC_FLY or DISC_ACTIVE */
    double tau_r, tau_stop, *yr, *yfull;
    N_Vector ya, yastep;
    size_t *live, nlive; /* root functions that can change: slots and discs that move */
    size_t *queue;       /* scratch of choose_active */
    long region_builds, max_active, since_check;
    int need_region; /* a contact with a disc outside the region closed */

    double t;
    int ran;
    long rebuilds;
    cr_pool_event_fn ev_fn;
    void *ev_user;
    cr_pool_output_fn out_fn;
    void *out_user;
    int (*out_wanted)(void *user); /* NULL: out_fn always reads the state */
    double out_interval;
    volatile sig_atomic_t stop_requested;
    cr_event *events;
    size_t nev, evcap;
    cr_sim_stats stats;
    cr_sim_stats banked; /* CVODE counters of the segments before the last restart */
    char end_reason[128];
    char err[CR_ERRMSG_LEN];
};

/* ---- geometry -------------------------------------------------------------- */

static inline int is_wall(const contact *k)
{
    return k->j < 0;
}

/* The law of a contact (per pair: cr_model_pair_law when it first appeared). */
static inline const cr_contact_params *law_of(const cr_pool *p, const contact *k)
{
    (void)p;
    return &k->law;
}

/* ---- frozen normals (integration.normals: frozen) ------------------------- */

/* A pair contact along its frozen normal n₀: δ = δ₀ − n₀·(b − b₀), linear in the
 * relative displacement b, and δ̇ = −n₀·w; the force stays along n₀. This is the
 * geometry of the rigid laws (W fixed at the impact configuration), and it makes
 * the pool scale-invariant: α does not depend on K. dist = ∞ drops the turning
 * terms (divided by the centre distance) from the Jacobian blocks. */
static void frozen_geom(const cr_pool *p, const double *y, const contact *k, double *delta,
                        double *rate, double *nx, double *ny, double *dist)
{
    size_t i = (size_t)k->i, j = (size_t)k->j;
    double bx = y[4 * j] - y[4 * i] - k->fbx, by = y[4 * j + 1] - y[4 * i + 1] - k->fby;
    *delta = k->fdelta - p->L * (k->fnx * bx + k->fny * by);
    double wx = p->V * (y[4 * j + 2] - y[4 * i + 2]), wy = p->V * (y[4 * j + 3] - y[4 * i + 3]);
    *nx = k->fnx;
    *ny = k->fny;
    *dist = INFINITY;
    *rate = -(k->fnx * wx + k->fny * wy);
}

/* ---- geometry -------------------------------------------------------------- */

/* Overlap, rate δ̇, unit normal (from i towards j, or the wall normal) and
 * centre distance (walls: unused; a frozen normal: ∞) of contact k in the
 * scaled state y. */
static void geom(const cr_pool *p, const double *y, const contact *k, double *delta, double *rate,
                 double *nx, double *ny, double *dist)
{
    size_t i = (size_t)k->i;
    if (k->frozen) {
        frozen_geom(p, y, k, delta, rate, nx, ny, dist);
        return;
    }
    if (is_wall(k)) {
        size_t w = (size_t)(-1 - k->j);
        double mx = p->wnx[w], my = p->wny[w];
        *delta = k->c0 - p->L * (mx * y[4 * i] + my * y[4 * i + 1]);
        *rate = -p->V * (mx * y[4 * i + 2] + my * y[4 * i + 3]);
        *nx = mx;
        *ny = my;
        *dist = 1.0;
        return;
    }
    size_t j = (size_t)k->j;
    double bx = p->L * (y[4 * j] - y[4 * i]), by = p->L * (y[4 * j + 1] - y[4 * i + 1]);
    double ax = k->a0x + bx, ay = k->a0y + by;
    double d = hypot(ax, ay);
    double num = k->c0 - 2.0 * (k->a0x * bx + k->a0y * by) - (bx * bx + by * by);
    *delta = num / (k->R + d);
    *nx = ax / d;
    *ny = ay / d;
    *dist = d;
    double wx = p->V * (y[4 * j + 2] - y[4 * i + 2]), wy = p->V * (y[4 * j + 3] - y[4 * i + 3]);
    *rate = -(*nx * wx + *ny * wy);
}

/* Certainly open: a turning pair contact whose centres are farther apart than
 * R (the numerator of δ is not positive), found without a square root. Its
 * force and dissipation are 0. */
static inline int surely_open(const cr_pool *p, const double *y, const contact *k)
{
    if (k->frozen || is_wall(k))
        return 0;
    size_t i = (size_t)k->i, j = (size_t)k->j;
    double bx = p->L * (y[4 * j] - y[4 * i]), by = p->L * (y[4 * j + 1] - y[4 * i + 1]);
    return k->c0 - 2.0 * (k->a0x * bx + k->a0y * by) - (bx * bx + by * by) <= 0.0;
}

/* Frozen normals: fixes pair contact k's normal, overlap and relative
 * displacement at the state y (its first touch: a closing root, or touching
 * when it becomes a candidate). Continuous: at the freeze δ and δ̇ are those of
 * the turning geometry, and the force is ~0 there, so no restart is needed. */
static void freeze_normal(const cr_pool *p, const double *y, contact *k)
{
    if (!p->frozen_normals || is_wall(k) || k->frozen)
        return;
    double rate, dist;
    size_t i = (size_t)k->i, j = (size_t)k->j;
    geom(p, y, k, &k->fdelta, &rate, &k->fnx, &k->fny, &dist);
    k->fbx = y[4 * j] - y[4 * i];
    k->fby = y[4 * j + 1] - y[4 * i + 1];
    k->frozen = 1;
}

/* ---- active region: the compact state ----------------------------------- */

enum { DISC_REST = 0, DISC_FLY = 1, DISC_ACTIVE = 2 };

/* Disc i's place in the compact state (the identity without a region). */
static inline size_t cpos(const cr_pool *p, size_t i)
{
    return p->region ? (size_t)p->pos[i] : i;
}

/* The full state y at the scaled time tau from the compact state ya: active
 * discs from ya, flying ones in exact free flight d = d_r + v (τ − τ_r) from
 * their state at tau_r; resting discs outside the region are already in place
 * (every full array gets them at the region's build). */
static void fill_full(const cr_pool *p, double tau, const double *ya, double *y)
{
    for (size_t a = 0; a < p->na; a++)
        memcpy(y + 4 * p->act[a], ya + 4 * a, 4 * sizeof(double));
    double dt = tau - p->tau_r;
    for (size_t k = 0; k < p->nfly; k++) {
        size_t i = p->fly[k];
        const double *r = p->yr + 4 * i;
        y[4 * i] = r[0] + r[2] * dt;
        y[4 * i + 1] = r[1] + r[3] * dt;
        y[4 * i + 2] = r[2];
        y[4 * i + 3] = r[3];
    }
}

/* The full state behind CVODE's vector @p yv at scaled time @p tau. */
static const double *full_state(const cr_pool *p, double tau, N_Vector yv)
{
    const double *y = N_VGetArrayPointer(yv);
    if (!p->region)
        return y;
    fill_full(p, tau, y, p->yfull);
    return p->yfull;
}

/* ---- CVODE callbacks ------------------------------------------------------- */

/* Adds contact k's force to the compact derivative yd; -1 if not finite. */
static int contact_rhs(const cr_pool *p, const double *y, const contact *k, double *yd)
{
    if (surely_open(p, y, k))
        return 0;
    double delta, rate, nx, ny, dist;
    geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
    double f = cr_contact_force(law_of(p, k), delta, rate);
    if (!isfinite(f))
        return -1;
    if (f == 0.0)
        return 0;
    size_t i = (size_t)k->i, ci = cpos(p, i);
    if (is_wall(k)) {
        yd[4 * ci + 2] += p->accel[i] * f * nx;
        yd[4 * ci + 3] += p->accel[i] * f * ny;
    } else {
        size_t j = (size_t)k->j, cj = cpos(p, j);
        yd[4 * cj + 2] += p->accel[j] * f * nx;
        yd[4 * cj + 3] += p->accel[j] * f * ny;
        yd[4 * ci + 2] -= p->accel[i] * f * nx;
        yd[4 * ci + 3] -= p->accel[i] * f * ny;
    }
    return 0;
}

/* In a region only the contacts between active discs (those with quadrature
 * slots: warm) exert forces; a contact reaching outside closes as an event
 * first, and the region grows (handle_roots). */
static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    const cr_pool *p = user;
    const double *yc = N_VGetArrayPointer(yv), *y = full_state(p, t, yv);
    double *yd = N_VGetArrayPointer(ydv);
    /* gravity is constant: it enters the RHS, never the Jacobian */
    double gx = p->gx * p->T / p->V, gy = p->gy * p->T / p->V;
    for (size_t a = 0; a < p->na; a++) {
        yd[4 * a] = yc[4 * a + 2];
        yd[4 * a + 1] = yc[4 * a + 3];
        yd[4 * a + 2] = gx;
        yd[4 * a + 3] = gy;
    }
    if (p->region) {
        for (size_t q = 0; q < p->nq; q++)
            if (contact_rhs(p, y, &p->c[p->qc[q]], yd))
                return -1;
        return 0;
    }
    for (size_t s = 0; s < p->nslots; s++)
        if (p->slot_contact[s] >= 0 && contact_rhs(p, y, &p->c[p->slot_contact[s]], yd))
            return -1;
    return 0;
}

static int quad_rhs(sunrealtype t, N_Vector yv, N_Vector qd, void *user)
{
    const cr_pool *p = user;
    const double *y = full_state(p, t, yv);
    double *q = N_VGetArrayPointer(qd);
    double diss = 0.0, sc = p->T / p->Pscale;
    memset(q, 0, 3 * p->qcap * sizeof(double));
    for (size_t s = 0; s < p->nq; s++) {
        double delta, rate, nx, ny, dist;
        const contact *k = &p->c[p->qc[s]];
        if (surely_open(p, y, k))
            continue;
        geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
        double f = cr_contact_force(law_of(p, k), delta, rate);
        q[3 * s] = f * sc;
        q[3 * s + 1] = f * nx * sc;
        q[3 * s + 2] = f * ny * sc;
        diss += cr_contact_dissipation_rate(law_of(p, k), delta, rate);
    }
    q[3 * p->qcap] = diss * p->T / p->Escale;
    return 0;
}

/* [closing, compression rate, force release] of slot s at the scaled state y. */
static void slot_roots(const cr_pool *p, const double *y, size_t s, double *gs)
{
    if (p->slot_contact[s] < 0) {
        /* the signs an open contact has: no spurious crossing when a slot fills */
        gs[0] = -1.0;
        gs[1] = 1.0;
        gs[2] = -1.0;
        return;
    }
    double delta, rate, nx, ny, dist;
    const contact *k = &p->c[p->slot_contact[s]];
    const cr_contact_params *lw = law_of(p, k);
    geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
    double d = delta / p->L;
    gs[0] = cr_root_nonzero(d - ETA);
    gs[1] = cr_root_nonzero(d > ETA ? rate / p->V : 1.0);
    if (lw->release == CR_RELEASE_FORCE && lw->C > 0.0 && d > ETA)
        gs[2] = cr_root_nonzero(cr_contact_release_function(lw, delta, rate, p->L));
    else
        gs[2] = gs[0];
}

/* Disc i's rebuild root: (skin/2)² − |d − d_ref|² (scaled), zero when it has
 * moved half the skin since the last neighbour search. */
static double disc_root(const cr_pool *p, const double *y, size_t i)
{
    double h = 0.5 * p->skin / p->L;
    double dx = y[4 * i] - p->dref[2 * i], dy = y[4 * i + 1] - p->dref[2 * i + 1];
    return cr_root_nonzero(h * h - (dx * dx + dy * dy));
}

/* Every root function (three per slot, then one per disc) at the state y. */
static void roots_all(const cr_pool *p, const double *y, double *g)
{
    for (size_t s = 0; s < p->nslots; s++)
        slot_roots(p, y, s, g + 3 * s);
    for (size_t i = 0; i < p->n; i++)
        g[3 * p->nslots + i] = disc_root(p, y, i);
}

/* Disc i has never moved: its displacement and velocity are exactly 0. */
static inline int still(const double *y, size_t i)
{
    return y[4 * i] == 0.0 && y[4 * i + 1] == 0.0 && y[4 * i + 2] == 0.0 && y[4 * i + 3] == 0.0;
}

/* The root functions at the end of a step (state y) into g, knowing their
 * values at the start of the step in glo: the functions of slots whose discs
 * have never moved keep their values (a disc at rest with no force stays
 * exactly at rest), so only the region the motion reached is evaluated. */
static void roots_step(cr_pool *p, const double *y, double *g)
{
    if (p->region) { /* only the live functions (region_live) can have changed */
        for (size_t c = 0; c < p->nlive;) {
            size_t q = p->live[c];
            if (q < 3 * p->nslots) {
                const contact *k = &p->c[p->slot_contact[q / 3]];
                if (still(y, (size_t)k->i) && (is_wall(k) || still(y, (size_t)k->j)))
                    memcpy(g + q, p->glo + q, 3 * sizeof(double)); /* as below */
                else
                    slot_roots(p, y, q / 3, g + q);
                c += 3;
            } else {
                g[q] = disc_root(p, y, q - 3 * p->nslots);
                c++;
            }
        }
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        p->hot[i] = still(y, i);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        const contact *k = id >= 0 ? &p->c[id] : NULL;
        if (k && p->hot[k->i] && (is_wall(k) || p->hot[k->j]))
            memcpy(g + 3 * s, p->glo + 3 * s, 3 * sizeof(double));
        else
            slot_roots(p, y, s, g + 3 * s);
    }
    for (size_t i = 0; i < p->n; i++)
        g[3 * p->nslots + i] = p->hot[i] ? p->glo[3 * p->nslots + i] : disc_root(p, y, i);
}

/* Root function q alone at the state y. */
static double root_one(const cr_pool *p, const double *y, size_t q)
{
    if (q >= 3 * p->nslots)
        return disc_root(p, y, q - 3 * p->nslots);
    double gs[3];
    slot_roots(p, y, q / 3, gs);
    return gs[q % 3];
}

/*
 * ∂F/∂b (Gb) and ∂F/∂w (Gw) of contact k, with F the force on j (pairs: F = f n,
 * b and w the relative displacement and velocity of j with respect to i) or on
 * the disc (walls: F = f m, b and w its own). 2×2 row-major.
 *   pairs: Gb = −f_δ n nᵀ − f_δ̇ n wᵀ(I − nnᵀ)/|a| + f (I − nnᵀ)/|a|, Gw = −f_δ̇ n nᵀ
 *   walls: Gb = −f_δ m mᵀ, Gw = −f_δ̇ m mᵀ
 * @return 0 when the contact exerts nothing (both zero).
 */
static int contact_blocks(const cr_pool *p, const double *y, const contact *k, double *Gb,
                          double *Gw)
{
    double delta, rate, nx, ny, dist, fd, fv;
    geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
    double f = cr_contact_force(law_of(p, k), delta, rate);
    cr_contact_partials(law_of(p, k), delta, rate, p->jac_floor * p->L, &fd, &fv);
    if (f == 0.0 && fd == 0.0 && fv == 0.0)
        return 0;
    double nn[4] = {nx * nx, nx * ny, ny * nx, ny * ny};
    if (is_wall(k)) {
        for (int q = 0; q < 4; q++) {
            Gb[q] = -fd * nn[q];
            Gw[q] = -fv * nn[q];
        }
        return 1;
    }
    size_t i = (size_t)k->i, j = (size_t)k->j;
    double wx = p->V * (y[4 * j + 2] - y[4 * i + 2]), wy = p->V * (y[4 * j + 3] - y[4 * i + 3]);
    double P[4] = {1 - nn[0], -nn[1], -nn[2], 1 - nn[3]};
    double wP[2] = {wx * P[0] + wy * P[2], wx * P[1] + wy * P[3]};
    double nv[2] = {nx, ny};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            Gb[2 * a + b] =
                -fd * nn[2 * a + b] - fv * nv[a] * wP[b] / dist + f * P[2 * a + b] / dist;
            Gw[2 * a + b] = -fv * nn[2 * a + b];
        }
    return 1;
}

/* Inverse of a 4×4 matrix by Gauss–Jordan with partial pivoting; 0 if singular. */
static int invert4(const double *A, double *inv)
{
    double M[4][8];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++)
            M[r][c] = c < 4 ? A[4 * r + c] : (c - 4 == r);
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(M[r][c]) > fabs(M[piv][c]))
                piv = r;
        if (M[piv][c] == 0.0)
            return 0;
        for (int q = 0; q < 8; q++) {
            double t = M[c][q];
            M[c][q] = M[piv][q];
            M[piv][q] = t;
        }
        double d = M[c][c];
        for (int q = 0; q < 8; q++)
            M[c][q] /= d;
        for (int r = 0; r < 4; r++)
            if (r != c) {
                double f = M[r][c];
                for (int q = 0; q < 8; q++)
                    M[r][q] -= f * M[c][q];
            }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            inv[4 * r + c] = M[r][c + 4];
    return 1;
}

/* Adds contact k's partials to the diagonal blocks of its discs. */
static void pblock_add(const cr_pool *p, const contact *k, const double *Gb, const double *Gw)
{
    size_t ends[2] = {(size_t)k->i, is_wall(k) ? (size_t)-1 : (size_t)k->j};
    for (int e = 0; e < 2; e++) {
        size_t d = ends[e];
        if (d == (size_t)-1)
            continue;
        double *b = p->pblock + 16 * cpos(p, d);
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++) {
                b[(2 + a) * 4 + c] += p->accel[d] * p->L * Gb[2 * a + c];
                b[(2 + a) * 4 + 2 + c] += p->accel[d] * p->V * Gw[2 * a + c];
            }
    }
}

/* GMRES preconditioner: per integrated disc, the 4×4 diagonal block of I − γJ
 * (its own displacement and velocity coupling through every contact it has),
 * inverted. */
static int psetup(sunrealtype t, N_Vector yv, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                  sunrealtype gamma, void *user)
{
    (void)fy, (void)jok;
    cr_pool *p = user;
    const double *y = full_state(p, t, yv);
    double *B = p->pblock;
    /* start from J's own part: ḋ = v */
    for (size_t a = 0; a < p->na; a++) {
        double *b = B + 16 * a;
        memset(b, 0, 16 * sizeof(double));
        b[0 * 4 + 2] = 1.0;
        b[1 * 4 + 3] = 1.0;
    }
    /* in a region the contacts between active discs (rhs) */
    size_t nk = p->region ? p->nq : p->nslots;
    for (size_t s = 0; s < nk; s++) {
        long id = p->region ? p->qc[s] : p->slot_contact[s];
        if (id < 0)
            continue;
        double Gb[4], Gw[4];
        if (contact_blocks(p, y, &p->c[id], Gb, Gw))
            pblock_add(p, &p->c[id], Gb, Gw);
    }
    for (size_t a = 0; a < p->na; a++) {
        double *b = B + 16 * a, M[16];
        for (int q = 0; q < 16; q++)
            M[q] = (q % 5 == 0 ? 1.0 : 0.0) - gamma * b[q];
        if (!invert4(M, b))
            return 1; /* recoverable: CVODE retries with a smaller step */
    }
    *jcur = SUNTRUE;
    return 0;
}

static int psolve(sunrealtype t, N_Vector yv, N_Vector fy, N_Vector rv, N_Vector zv,
                  sunrealtype gamma, sunrealtype delta, int lr, void *user)
{
    (void)t, (void)yv, (void)fy, (void)gamma, (void)delta, (void)lr;
    const cr_pool *p = user;
    const double *r = N_VGetArrayPointer(rv);
    double *z = N_VGetArrayPointer(zv);
    for (size_t i = 0; i < p->na; i++) {
        const double *b = p->pblock + 16 * i, *ri = r + 4 * i;
        for (int a = 0; a < 4; a++)
            z[4 * i + (size_t)a] = b[4 * a] * ri[0] + b[4 * a + 1] * ri[1] + b[4 * a + 2] * ri[2] +
                                   b[4 * a + 3] * ri[3];
    }
    return 0;
}

/* Position of entry (row, col) in the CSC pattern (binary search in the column). */
static sunindextype slot_of(SUNMatrix J, sunindextype row, sunindextype col)
{
    sunindextype *ptr = SM_INDEXPTRS_S(J), *idx = SM_INDEXVALS_S(J);
    sunindextype lo = ptr[col], hi = ptr[col + 1] - 1;
    while (lo <= hi) {
        sunindextype mid = (lo + hi) / 2;
        if (idx[mid] == row)
            return mid;
        if (idx[mid] < row)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void add(SUNMatrix J, size_t row, size_t col, double v)
{
    sunindextype k = slot_of(J, (sunindextype)row, (sunindextype)col);
    if (k >= 0)
        SM_DATA_S(J)[k] += v;
}

/* adds s·G (2×2, row-major) to rows of body `rb` (velocity rows) and columns
 * `cb` + off (off 0: displacement columns, 2: velocity columns) */
static void add_block(const cr_pool *p, SUNMatrix J, size_t rb, size_t cb, size_t off, double s,
                      const double *G)
{
    rb = cpos(p, rb);
    cb = cpos(p, cb);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            add(J, 4 * rb + 2 + (size_t)a, 4 * cb + off + (size_t)b, s * G[2 * a + b]);
}

static int lay_pattern(cr_pool *p); /* below, with the neighbour lists */

static int jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
               N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    cr_pool *p = user;
    const double *y = full_state(p, t, yv);
    if (p->pattern_stale) {
        /* contacts became warm since the last pattern: a larger one, which KLU
         * analyses again at the setup that follows */
        if (lay_pattern(p) != CR_OK)
            return -1;
        if ((size_t)SM_NNZ_S(J) < p->pat_nnz &&
            SUNSparseMatrix_Reallocate(J, (sunindextype)p->pat_nnz) != SUNMAT_SUCCESS)
            return -1;
        if (p->LS && SUNLinSol_KLUReInit(p->LS, J, (sunindextype)p->pat_nnz,
                                         SUNKLU_REINIT_PARTIAL) != SUNLS_SUCCESS)
            return -1;
    }
    /* SUNMatZero_Sparse (which CVODE calls first) wipes the index arrays too: the
     * pattern is laid down again before the values */
    memcpy(SM_INDEXPTRS_S(J), p->pat_ptr, (4 * p->na + 1) * sizeof(sunindextype));
    memcpy(SM_INDEXVALS_S(J), p->pat_idx, p->pat_nnz * sizeof(sunindextype));
    memset(SM_DATA_S(J), 0, p->pat_nnz * sizeof(double));
    for (size_t a = 0; a < p->na; a++) {
        add(J, 4 * a, 4 * a + 2, 1.0);
        add(J, 4 * a + 1, 4 * a + 3, 1.0);
    }
    for (size_t q = 0; q < p->nq; q++) { /* the warm contacts: the others exert nothing */
        const contact *k = &p->c[p->qc[q]];
        double Gb[4], Gw[4];
        if (!contact_blocks(p, y, k, Gb, Gw))
            continue;
        size_t i = (size_t)k->i;
        if (is_wall(k)) {
            add_block(p, J, i, i, 0, p->accel[i] * p->L, Gb);
            add_block(p, J, i, i, 2, p->accel[i] * p->V, Gw);
            continue;
        }
        size_t j = (size_t)k->j;
        double aj = p->accel[j], ai = p->accel[i];
        add_block(p, J, j, j, 0, aj * p->L, Gb);
        add_block(p, J, j, i, 0, -aj * p->L, Gb);
        add_block(p, J, j, j, 2, aj * p->V, Gw);
        add_block(p, J, j, i, 2, -aj * p->V, Gw);
        add_block(p, J, i, j, 0, -ai * p->L, Gb);
        add_block(p, J, i, i, 0, ai * p->L, Gb);
        add_block(p, J, i, j, 2, -ai * p->V, Gw);
        add_block(p, J, i, i, 2, ai * p->V, Gw);
    }
    return 0;
}

/* ---- contacts registry ----------------------------------------------------- */

static uint64_t pair_key(const cr_pool *p, long i, long j)
{
    return j >= 0 ? (uint64_t)i * (uint64_t)p->n + (uint64_t)j
                  : (uint64_t)p->n * p->n + (uint64_t)i * (p->nw + 1) + (uint64_t)(-1 - j);
}

static size_t hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)(k & (cap - 1));
}

static int map_grow(cr_pool *p)
{
    size_t cap = p->hcap ? 2 * p->hcap : 1024;
    uint64_t *keys = malloc(cap * sizeof(uint64_t));
    size_t *vals = calloc(cap, sizeof(size_t));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return CR_ERR_NOMEM;
    }
    for (size_t q = 0; q < p->hcap; q++)
        if (p->hval[q]) {
            size_t h = hash(p->hkey[q], cap);
            while (vals[h])
                h = (h + 1) & (cap - 1);
            keys[h] = p->hkey[q];
            vals[h] = p->hval[q];
        }
    free(p->hkey);
    free(p->hval);
    p->hkey = keys;
    p->hval = vals;
    p->hcap = cap;
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
    if (p->nbc[i] == p->bccap[i]) {
        size_t cap = p->bccap[i] ? 2 * p->bccap[i] : 8;
        size_t *q = realloc(p->bc[i], cap * sizeof(size_t));
        if (!q)
            return CR_ERR_NOMEM;
        p->bc[i] = q;
        p->bccap[i] = cap;
    }
    p->bc[i][p->nbc[i]++] = id;
    return CR_OK;
}

/* The contact id of a pair, created on first sight. */
static long contact_id(cr_pool *p, long i, long j)
{
    if (2 * (p->nc + 1) > p->hcap && map_grow(p) != CR_OK)
        return -1;
    uint64_t key = pair_key(p, i, j);
    size_t h = hash(key, p->hcap);
    while (p->hval[h]) {
        if (p->hkey[h] == key)
            return (long)p->hval[h] - 1;
        h = (h + 1) & (p->hcap - 1);
    }
    if (p->nc == p->ccap) {
        size_t cap = p->ccap ? 2 * p->ccap : 256;
        contact *c = realloc(p->c, cap * sizeof(contact));
        if (!c)
            return -1;
        p->c = c;
        p->ccap = cap;
    }
    contact *k = &p->c[p->nc];
    memset(k, 0, sizeof(*k));
    k->i = i;
    k->j = j;
    k->slot = -1;
    k->qslot = -1;
    if (cr_model_pair_law(p->model, (size_t)i, j, &k->law) != CR_OK)
        return -1;
    if (j >= 0) {
        k->a0x = p->x0[j] - p->x0[i];
        k->a0y = p->y0[j] - p->y0[i];
        k->R = p->r[i] + p->r[j];
        double d0 = hypot(k->a0x, k->a0y);
        k->c0 = (k->R - d0) * (k->R + d0);
        /* touching within the tolerance is exactly touching, as in chains */
        if (fabs(k->R - d0) <= CR_GEOM_TOL * fmin(p->r[i], p->r[j]))
            k->c0 = 0.0;
    } else {
        size_t w = (size_t)(-1 - j);
        double ov = p->woff[w] + p->r[i] - (p->wnx[w] * p->x0[i] + p->wny[w] * p->y0[i]);
        k->c0 = fabs(ov) <= CR_GEOM_TOL * p->r[i] ? 0.0 : ov;
    }
    if (note_body_contact(p, (size_t)i, p->nc) != CR_OK ||
        (j >= 0 && note_body_contact(p, (size_t)j, p->nc) != CR_OK))
        return -1;
    p->hkey[h] = key;
    p->hval[h] = p->nc + 1;
    return (long)p->nc++;
}

/* ---- create / destroy ------------------------------------------------------ */

void cr_pool_destroy(cr_pool *p)
{
    if (!p)
        return;
    if (p->cvode)
        CVodeFree(&p->cvode);
    if (p->LS)
        SUNLinSolFree(p->LS);
    if (p->NLS)
        SUNNonlinSolFree(p->NLS);
    if (p->A)
        SUNMatDestroy(p->A);
    if (p->y)
        N_VDestroy(p->y);
    if (p->yQ)
        N_VDestroy(p->yQ);
    if (p->ystep)
        N_VDestroy(p->ystep);
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
    if (p->ctx)
        SUNContext_Free(&p->ctx);
    free(p->m);
    free(p->r);
    free(p->x0);
    free(p->y0);
    free(p->vx0);
    free(p->vy0);
    free(p->accel);
    free(p->wnx);
    free(p->wny);
    free(p->woff);
    cr_model_destroy(p->model);
    free(p->c);
    free(p->hkey);
    free(p->hval);
    free(p->slot_contact);
    free(p->dref);
    free(p->rootsfound);
    free(p->glo);
    free(p->ghi);
    free(p->clo);
    free(p->chi);
    free(p->cmid);
    free(p->cand);
    free(p->guide);
    free(p->qc);
    free(p->hot);
    free(p->pat_ptr);
    free(p->pat_idx);
    free(p->pblock);
    if (p->nbr)
        for (size_t i = 0; i < p->n; i++)
            free(p->nbr[i]);
    free(p->nbr);
    free(p->nnbr);
    free(p->nbrcap);
    if (p->bc)
        for (size_t i = 0; i < p->n; i++)
            free(p->bc[i]);
    free(p->bc);
    free(p->nbc);
    free(p->bccap);
    free(p->events);
    free(p);
}

/* Characteristic overlap of one class of pairs: δ* = (μV²/K)^(1/(n+1)). */
static int class_scale(const cr_contact_params *law, double mu, void *user)
{
    double *L = ((double **)user)[0], V = *((double **)user)[1];
    *L = fmin(*L, pow(mu * V * V / law->K, 1.0 / (law->n + 1.0)));
    return CR_OK;
}

/* Too many body kinds to enumerate their pairs (a polydisperse pool): explicit
 * pairs exactly, and for the rest a bound no pair is stiffer than, O(N): μ of
 * the two lightest discs; the default law; Hertz with 1/E* ≥ 2 min (1 − ν²)/E
 * and R* ≤ r_max/2; each wall's law against the lightest disc with a wall's
 * material at its stiffest (R* ≤ r_max). */
static double bound_scale(const cr_pool *p, double L)
{
    const cr_model *md = p->model;
    double m1 = INFINITY, m2 = INFINITY, amin = INFINITY, V2 = p->V * p->V, E, nu;
    for (size_t i = 0; i < p->n; i++) {
        m2 = fmin(m2, fmax(m1, p->m[i]));
        m1 = fmin(m1, p->m[i]);
        if (cr_model_material(md, i, &E, &nu))
            amin = fmin(amin, (1.0 - nu * nu) / E);
    }
    double mu = isfinite(m2) ? m1 * m2 / (m1 + m2) : m1;
    const cr_contact_params *d = cr_model_default_contact(md);
    L = fmin(L, pow(mu * V2 / d->K, 1.0 / (d->n + 1.0)));
    if (isfinite(amin))
        L = fmin(L, pow(mu * V2 / (4.0 / 3.0 / (2.0 * amin) * sqrt(0.5 * p->rmax)), 0.4));
    for (size_t w = 0; w < p->nw; w++) {
        cr_contact_params law;
        cr_model_pair_law(md, 0, CR_WALL_BODY(w), &law);
        L = fmin(L, pow(m1 * V2 / law.K, 1.0 / (law.n + 1.0)));
        if (isfinite(amin) && cr_model_plane_material(md, w, &E, &nu)) {
            double K = 4.0 / 3.0 / (amin + (1.0 - nu * nu) / E) * sqrt(p->rmax);
            L = fmin(L, pow(m1 * V2 / K, 0.4));
        }
    }
    return L;
}

/* Scales as for chains: V bounds the relative speeds (walls are at rest), δ* is
 * the smallest characteristic overlap over every class of pairs (the stiffest
 * law sets it), time δ* /V. */
static void choose_scales(cr_pool *p)
{
    double vmax = 0.0, vxm = 0, vym = 0, mmin = INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        vxm += p->vx0[i] / (double)p->n;
        vym += p->vy0[i] / (double)p->n;
        mmin = fmin(mmin, p->m[i]);
    }
    for (size_t i = 0; i < p->n; i++)
        vmax = fmax(vmax, hypot(p->vx0[i] - vxm, p->vy0[i] - vym));
    p->V = 2.0 * fmax(vmax, hypot(vxm, vym));
    if (!(p->V > 0.0))
        p->V = 1.0;
    double L = INFINITY, *args[2] = {&L, &p->V};
    int rc = cr_model_pair_classes(p->model, CR_MODEL_MAX_KINDS, class_scale, args);
    if (rc != CR_OK)
        L = bound_scale(p, L); /* explicit pairs are in L already */
    if (!isfinite(L)) {        /* one disc, no walls: nothing touches; any scale will do */
        const cr_contact_params *d = cr_model_default_contact(p->model);
        L = pow(0.5 * mmin * p->V * p->V / d->K, 1.0 / (d->n + 1.0));
    }
    p->L = L;
    p->T = p->L / p->V;
    p->Pscale = mmin * p->V;
    p->Escale = mmin * p->V * p->V;
    for (size_t i = 0; i < p->n; i++)
        p->accel[i] = p->T / (p->V * p->m[i]);
}

/* Per-disc arrays and walls from the engine's own model. */
static int load_model(cr_pool *p)
{
    const cr_model *md = p->model;
    size_t n = p->n = cr_model_body_count(md);
    double **arr[] = {&p->m, &p->r, &p->x0, &p->y0, &p->vx0, &p->vy0, &p->accel};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
        if (!(*arr[k] = malloc(n * sizeof(double))))
            return CR_ERR_NOMEM;
    if (!(p->dref = calloc(2 * n, sizeof(double))))
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        double x[2], v[2];
        cr_model_get_body(md, i, x, v);
        p->m[i] = cr_model_mass(md, i);
        p->r[i] = cr_model_radius(md, i);
        p->x0[i] = x[0];
        p->y0[i] = x[1];
        p->vx0[i] = v[0];
        p->vy0[i] = v[1];
        p->rmax = fmax(p->rmax, p->r[i]);
    }
    size_t nw = cr_model_plane_count(md);
    p->wnx = malloc((nw + 1) * sizeof(double));
    p->wny = malloc((nw + 1) * sizeof(double));
    p->woff = malloc((nw + 1) * sizeof(double));
    if (!p->wnx || !p->wny || !p->woff)
        return CR_ERR_NOMEM;
    for (size_t w = 0; w < nw; w++) {
        double nrm[2];
        cr_model_get_plane(md, w, nrm, &p->woff[w]);
        p->wnx[w] = nrm[0];
        p->wny[w] = nrm[1];
    }
    p->nw = nw;
    double g[2];
    cr_model_get_gravity_vector(md, g);
    p->gx = g[0];
    p->gy = g[1];
    return CR_OK;
}

/* Run settings of the model (the cr_pool_set_* calls may change them). */
static void load_settings(cr_pool *p)
{
    const cr_settings *set = cr_model_settings(p->model);
    p->rtol = set->rtol;
    p->atol = set->atol;
    p->jac_floor = set->jacobian_floor;
    p->solver = set->solver;
    p->skin_rel = set->skin;
    p->method = set->method;
    p->out_interval = set->output_interval;
    p->frozen_normals = set->frozen_normals;
}

cr_pool *cr_pool_create_from_model(const cr_model *model, char *msg, size_t msglen)
{
    if (!model || cr_model_dimension(model) != 2) {
        cr_set_msg(msg, msglen, "a pool is built from a model of dimension 2");
        return NULL;
    }
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    cr_pool *p = calloc(1, sizeof(*p));
    if (!p || !(p->model = cr_model_copy(model)) || load_model(p) != CR_OK) {
        cr_set_msg(msg, msglen, "out of memory");
        cr_pool_destroy(p);
        return NULL;
    }
    load_settings(p);
    choose_scales(p);
    return p;
}

cr_pool *cr_pool_create(size_t n, const cr_disc *d, const cr_contact_params *law, char *msg,
                        size_t msglen)
{
    if (n == 0 || !d || !law) {
        cr_set_msg(msg, msglen, "a pool needs discs and a contact law");
        return NULL;
    }
    cr_model *model = cr_model_create();
    int rc = model ? cr_model_set_dimension(model, 2) : CR_ERR_NOMEM;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        double x[2] = {d[i].x, d[i].y}, v[2] = {d[i].vx, d[i].vy};
        rc = cr_model_add_body(model, d[i].mass, d[i].radius, x, v);
    }
    if (rc >= 0)
        rc = cr_model_set_default_contact(model, law);
    cr_pool *p = rc >= 0 ? cr_pool_create_from_model(model, msg, msglen) : NULL;
    if (rc < 0)
        cr_set_msg(msg, msglen, "%s", cr_strerror(rc));
    cr_model_destroy(model);
    return p;
}

int cr_pool_add_wall(cr_pool *p, double nx, double ny, double offset)
{
    return cr_pool_add_wall_law(p, nx, ny, offset, NULL);
}

int cr_pool_add_wall_law(cr_pool *p, double nx, double ny, double offset,
                         const cr_contact_params *law)
{
    CR_CHECK(p && (!law || cr_contact_params_check(law) == CR_OK), p ? p->err : NULL,
             CR_ERR_INVALID);
    CR_CHECK(p && !p->ran && isfinite(nx) && isfinite(ny) && isfinite(offset) &&
                 hypot(nx, ny) > 0.0,
             p ? p->err : NULL, CR_ERR_INVALID);
    double len = hypot(nx, ny);
    nx /= len;
    ny /= len;
    offset /= len;
    for (size_t i = 0; i < p->n; i++) {
        double ov = offset + p->r[i] - (nx * p->x0[i] + ny * p->y0[i]);
        if (ov > CR_GEOM_TOL * p->r[i]) {
            cr_set_msg(p->err, sizeof p->err,
                       "disc %zu lies outside the wall n = (%g, %g), offset %g (overlap %g m)", i,
                       nx, ny, offset, ov);
            return CR_ERR_MODEL;
        }
    }
    double nrm[2] = {nx, ny};
    int w = cr_model_add_plane(p->model, nrm, offset, law);
    if (w < 0)
        return w;
    double *a[3] = {p->wnx, p->wny, p->woff};
    for (int k = 0; k < 3; k++) {
        double *q = realloc(a[k], (p->nw + 1) * sizeof(double));
        if (!q)
            return CR_ERR_NOMEM;
        a[k] = q;
    }
    p->wnx = a[0];
    p->wny = a[1];
    p->woff = a[2];
    p->wnx[p->nw] = nx;
    p->wny[p->nw] = ny;
    p->woff[p->nw] = offset;
    p->nw++;
    choose_scales(p); /* a stiffer wall sets a smaller characteristic overlap */
    return CR_OK;
}

int cr_pool_set_output(cr_pool *p, double interval, cr_pool_output_fn fn, void *user)
{
    CR_CHECK(p && isfinite(interval), p ? p->err : NULL, CR_ERR_INVALID);
    p->out_interval = interval;
    p->out_fn = fn;
    p->out_user = user;
    return CR_OK;
}

void cr_pool_request_stop(cr_pool *p)
{
    if (p)
        p->stop_requested = 1;
}

int cr_pool_set_tolerances(cr_pool *p, double rtol, double atol)
{
    CR_CHECK(p && rtol > 0 && rtol < 1 && atol > 0, p ? p->err : NULL, CR_ERR_INVALID);
    p->rtol = rtol;
    p->atol = atol;
    return CR_OK;
}

int cr_pool_set_linear_solver(cr_pool *p, cr_linear_solver solver)
{
    CR_CHECK(p && !p->ran && (unsigned)solver <= CR_SOLVER_FIXED_POINT, p ? p->err : NULL,
             CR_ERR_INVALID);
    p->solver = solver;
    return CR_OK;
}

int cr_pool_set_skin(cr_pool *p, double rel)
{
    CR_CHECK(p && rel > 0 && isfinite(rel), p ? p->err : NULL, CR_ERR_INVALID);
    p->skin_rel = rel;
    return CR_OK;
}

/* ---- slots ------------------------------------------------------------------ */

/* Room for at least @p need slots (an eighth more, as the list may grow): the
 * quadratures (three per slot, then the dissipated energy) keep their values,
 * the root arrays (three per slot, then one per disc) are refilled by the
 * caller. Slots cost every step (quadratures ride in CVODE's history), so there
 * are only as many as the candidates need. */
static int grow_slots(cr_pool *p, size_t need)
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
    p->nroot = 3 * cap + p->n;
    free(p->rootsfound);
    free(p->cand);
    free(p->guide);
    p->rootsfound = malloc(p->nroot * sizeof(int));
    p->cand = malloc(p->nroot * sizeof(size_t));
    p->guide = malloc(p->nroot);
    double **g[] = {&p->glo, &p->ghi, &p->clo, &p->chi, &p->cmid};
    int ok = p->rootsfound && p->cand && p->guide;
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        free(*g[k]);
        ok &= (*g[k] = malloc(p->nroot * sizeof(double))) != NULL;
    }
    return ok ? CR_OK : CR_ERR_NOMEM;
}

/* The impulses of contact k (scaled): those before its quadrature slot plus
 * the slot's. */
static double impulse_of(const cr_pool *p, const contact *k, double *px, double *py)
{
    const double *q = k->qslot >= 0 ? N_VGetArrayPointer(p->yQ) + 3 * k->qslot : NULL;
    *px = k->Px + (q ? q[1] : 0.0);
    *py = k->Py + (q ? q[2] : 0.0);
    return k->P + (q ? q[0] : 0.0);
}

/* Gives contact k a free quadrature slot: 0 when there is none left. */
static int take_qslot(cr_pool *p, long id)
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
    int field = p->gx != 0.0 || p->gy != 0.0;
    for (size_t i = 0; i < p->n; i++)
        p->hot[i] = field || y[4 * i + 2] != 0.0 || y[4 * i + 3] != 0.0;
    for (size_t i = 0; i < p->n; i++)
        if (p->hot[i] == 1)
            for (size_t k = 0; k < p->nnbr[i]; k++)
                if (!p->hot[p->nbr[i][k]])
                    p->hot[p->nbr[i][k]] = 2;
}

/* qslot of a contact the safety net found loading without one (missed_quadratures) */
#define WANTS_QSLOT (-2)

/* A candidate near motion (one of its discs is hot: mark_hot), or one that
 * missed_quadratures found loading. */
static int warm(const cr_pool *p, const contact *k)
{
    if (p->region) /* the contacts that exert forces (rhs) */
        return p->pos[k->i] >= 0 && (is_wall(k) || p->pos[k->j] >= 0);
    return p->hot[k->i] || (!is_wall(k) && p->hot[k->j]) || k->qslot == WANTS_QSLOT;
}

/*
 * Quadrature slots for the candidates near motion (mark_hot at the state y):
 * a disc at rest with no force stays exactly at rest, so only contacts of
 * moving discs and of their neighbours can load before the next step ends
 * (step_events checks it and takes the step again otherwise). @return 0 when
 * the free slots ran out (layout_quadratures and a restart are needed).
 */
static int warm_up(cr_pool *p, const double *y)
{
    mark_hot(p, y);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id >= 0 && p->c[id].qslot < 0 && warm(p, &p->c[id]) && !take_qslot(p, id))
            return 0;
    }
    return 1;
}

/* A new quadrature layout (at a restart, before CVODE sees p->yQ): every
 * contact's impulses move to its record, the dissipated energy stays, and the
 * warm candidates take fresh slots, with as many again free (and 64). */
static int layout_quadratures(cr_pool *p, const double *y)
{
    const double *oq = p->yQ ? N_VGetArrayPointer(p->yQ) : NULL;
    double diss = oq ? oq[3 * p->qcap] : 0.0;
    for (size_t s = 0; s < p->nq; s++) {
        contact *k = &p->c[p->qc[s]];
        k->P += oq[3 * s];
        k->Px += oq[3 * s + 1];
        k->Py += oq[3 * s + 2];
        k->qslot = -1;
        p->qc[s] = -1;
    }
    p->nq = 0;
    mark_hot(p, y);
    size_t need = 0;
    for (size_t s = 0; s < p->nslots; s++)
        need += p->slot_contact[s] >= 0 && warm(p, &p->c[p->slot_contact[s]]);
    /* a region's warm contacts are fixed until its next build: no room to grow */
    size_t cap = p->region ? need + 1 : 2 * need + 64;
    if (cap != p->qcap || !p->yQ) {
        N_Vector q = N_VNew_Serial((sunindextype)(3 * cap + 1), p->ctx);
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
    N_VGetArrayPointer(p->yQ)[3 * cap] = diss;
    warm_up(p, y); /* room for all of them */
    return CR_OK;
}

/* CVODE's quadratures on a resized vector (before the restart that follows
 * every rebuild): freed and set up again with the same settings. */
static int resize_quadratures(cr_pool *p)
{
    if (!p->quad_resized || !p->cvode)
        return CV_SUCCESS;
    p->quad_resized = 0;
    CVodeQuadFree(p->cvode);
    int flag = CVodeQuadInit(p->cvode, quad_rhs, p->yQ);
    if (flag == CV_SUCCESS)
        flag = CVodeSetQuadErrCon(p->cvode, SUNTRUE);
    if (flag == CV_SUCCESS)
        flag = CVodeQuadSStolerances(p->cvode, p->rtol, p->atol);
    return flag;
}

/* ---- neighbour search and rebuilds ---------------------------------------- */

static int use_gmres(const cr_pool *p)
{
    return p->solver == CR_SOLVER_GMRES ||
           (p->solver == CR_SOLVER_AUTO && p->n > CR_SOLVER_AUTO_GMRES_ABOVE);
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
    if (p->nnbr[i] == p->nbrcap[i]) {
        size_t cap = p->nbrcap[i] ? 2 * p->nbrcap[i] : 8;
        size_t *a = realloc(p->nbr[i], cap * sizeof(size_t));
        if (!a)
            return CR_ERR_NOMEM;
        p->nbr[i] = a;
        p->nbrcap[i] = cap;
    }
    p->nbr[i][p->nnbr[i]++] = j;
    return CR_OK;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
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
    const contact *k = &p->c[id];
    if (!p->ran && j >= 0 && k->c0 > 0.0) {
        cr_set_msg(p->err, sizeof p->err,
                   "discs %ld and %ld interpenetrate at start by %g m (touching tolerance %g m)", i,
                   j, k->c0 / (k->R + hypot(k->a0x, k->a0y)), CR_GEOM_TOL * fmin(p->r[i], p->r[j]));
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

/* The candidates of disc i: discs j > i in the 3 × 3 cells around it closer
 * than rᵢ + rⱼ + skin, and walls within the skin. */
static int disc_candidates(cr_pool *p, const double *y, const cell_entry *cells, double h, size_t i,
                           candidates *cd)
{
    size_t n = p->n;
    double xi = p->x0[i] + p->L * y[4 * i], yi = p->y0[i] + p->L * y[4 * i + 1];
    int64_t cx = cr_cell_index(xi, h), cy = cr_cell_index(yi, h);
    int rc = CR_OK;
    for (int64_t dx = -1; dx <= 1; dx++)
        for (int64_t dy = -1; dy <= 1 && rc == CR_OK; dy++) {
            int64_t key = cr_cell_key(cx + dx, cy + dy);
            size_t lo = 0, hi = n; /* first entry with this key */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cells[mid].key < key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t b = lo; b < n && cells[b].key == key && rc == CR_OK; b++) {
                size_t j = cells[b].i;
                double xj = p->x0[j] + p->L * y[4 * j], yj = p->y0[j] + p->L * y[4 * j + 1];
                if (j > i && hypot(xj - xi, yj - yi) < p->r[i] + p->r[j] + p->skin)
                    rc = note_candidate(p, cd, (long)i, (long)j);
            }
        }
    for (size_t w = 0; w < p->nw && rc == CR_OK; w++)
        if (p->woff[w] + p->r[i] - (p->wnx[w] * xi + p->wny[w] * yi) > -p->skin)
            rc = note_candidate(p, cd, (long)i, CR_WALL_BODY(w));
    return rc;
}

/* Candidate contacts from a cell list (cells of size 2 r_max + skin: each disc
 * meets its candidates in the 3 × 3 cells around it). O(N log N). */
static int find_candidates(cr_pool *p, candidates *cd)
{
    size_t n = p->n;
    const double *y = N_VGetArrayPointer(p->y);
    double h = 2.0 * p->rmax + p->skin;
    cell_entry *cells = malloc(n * sizeof(cell_entry));
    if (!cells)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        double x = p->x0[i] + p->L * y[4 * i], yy = p->y0[i] + p->L * y[4 * i + 1];
        cells[i].key = cr_cell_key(cr_cell_index(x, h), cr_cell_index(yy, h));
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
    if (grow_slots(p, used + cd->nfresh) != CR_OK)
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
        contact *c = &p->c[cd->fresh[k]];
        c->slot = (long)s;
        p->slot_contact[s] = cd->fresh[k];
        double delta, rate, nx, ny, dist;
        geom(p, N_VGetArrayPointer(p->y), c, &delta, &rate, &nx, &ny, &dist);
        if (delta >= 0.0) /* touching (at t = 0): its first touch is now */
            freeze_normal(p, N_VGetArrayPointer(p->y), c);
    }
    return CR_OK;
}

/* Matrix-free GMRES: the preconditioner is rebuilt from the contact list at
 * every setup, so a new list needs only the restart. */
static int use_new_list_gmres(cr_pool *p)
{
    int flag = CV_SUCCESS;
    if (p->ran) {
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
        p->rebuilds++;
    } else {
        p->pblock = malloc(16 * p->n * sizeof(double));
        p->LS = p->pblock ? SUNLinSol_SPGMR(p->ya, SUN_PREC_LEFT, 30, p->ctx) : NULL;
        if (!p->LS)
            return CR_ERR_NOMEM;
        flag = CVodeSetLinearSolver(p->cvode, p->LS, NULL);
        if (flag == CV_SUCCESS)
            flag = CVodeSetPreconditioner(p->cvode, psetup, psolve);
    }
    if (flag != CV_SUCCESS) {
        cr_set_msg(p->err, sizeof p->err, "neighbour rebuild: CVODE flag %d", flag);
        return CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* Per disc, its neighbours through contacts with quadrature slots (the warm
 * pairs: warm_up), sorted: start[i] … start[i + 1] in list. Other contacts
 * exert nothing and have zero partials (both discs' states are exactly their
 * initial ones, open or just touching), so they need no Jacobian entries. */
static int warm_neighbours(const cr_pool *p, size_t **start, size_t **list)
{
    size_t n = p->n, *st = calloc(n + 1, sizeof(size_t)), m = 0;
    for (size_t q = 0; st && q < p->nq; q++) {
        const contact *k = &p->c[p->qc[q]];
        if (!is_wall(k)) {
            st[k->i + 1]++;
            st[k->j + 1]++;
            m += 2;
        }
    }
    size_t *ls = st ? malloc((m ? m : 1) * sizeof(size_t)) : NULL,
           *at = ls ? malloc((n + 1) * sizeof(size_t)) : NULL;
    if (!at) {
        free(st);
        free(ls);
        return CR_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        st[i + 1] += st[i];
    memcpy(at, st, (n + 1) * sizeof(size_t));
    for (size_t q = 0; q < p->nq; q++) {
        const contact *k = &p->c[p->qc[q]];
        if (!is_wall(k)) {
            ls[at[k->i]++] = (size_t)k->j;
            ls[at[k->j]++] = (size_t)k->i;
        }
    }
    free(at);
    for (size_t i = 0; i < n; i++)
        if (st[i + 1] - st[i] > 1)
            qsort(ls + st[i], st[i + 1] - st[i], sizeof(size_t), cmp_size);
    *start = st;
    *list = ls;
    return CR_OK;
}

/* The CSC pattern into p->pat_ptr, p->pat_idx: the column block of disc i
 * holds its own 4 rows and the velocity rows of its warm neighbours, in
 * increasing row order. */
static int lay_pattern(cr_pool *p)
{
    size_t n = p->n, na = p->na, *st, *nb;
    if (warm_neighbours(p, &st, &nb) != CR_OK)
        return CR_ERR_NOMEM;
    size_t nnz = 16 * na + 8 * st[n];
    sunindextype *pp = realloc(p->pat_ptr, (4 * na + 1) * sizeof(sunindextype));
    if (pp)
        p->pat_ptr = pp;
    sunindextype *pi = pp ? realloc(p->pat_idx, nnz * sizeof(sunindextype)) : NULL;
    if (!pi) {
        free(st);
        free(nb);
        return CR_ERR_NOMEM;
    }
    p->pat_idx = pi;
    sunindextype at = 0;
    /* in a region warm contacts join active discs, whose places keep the disc
     * order: the neighbours' rows stay sorted */
    for (size_t a = 0; a < na; a++) {
        size_t i = p->region ? p->act[a] : a;
        for (int col = 0; col < 4; col++) {
            pp[4 * a + (size_t)col] = at;
            int own = 0;
            /* merge own rows 4a..4a+3 with neighbours' 4b+2, 4b+3 in order */
            for (size_t k = st[i]; k <= st[i + 1]; k++) {
                size_t b = k < st[i + 1] ? cpos(p, nb[k]) : (size_t)-1;
                if (!own && (b == (size_t)-1 || b > a)) {
                    for (int rr = 0; rr < 4; rr++)
                        pi[at++] = (sunindextype)(4 * a + (size_t)rr);
                    own = 1;
                }
                if (b != (size_t)-1) {
                    pi[at++] = (sunindextype)(4 * b + 2);
                    pi[at++] = (sunindextype)(4 * b + 3);
                }
            }
        }
    }
    pp[4 * na] = at;
    p->pat_nnz = (size_t)at;
    p->pattern_stale = 0;
    free(st);
    free(nb);
    return CR_OK;
}

/* A sparse matrix on the warm pattern (lay_pattern); the pattern is kept:
 * SUNMatZero_Sparse wipes the index arrays before every evaluation. */
static SUNMatrix klu_pattern(cr_pool *p)
{
    if (lay_pattern(p) != CR_OK)
        return NULL;
    sunindextype ny = (sunindextype)(4 * p->na);
    SUNMatrix A = SUNSparseMatrix(ny, ny, (sunindextype)p->pat_nnz, CSC_MAT, p->ctx);
    if (!A)
        return NULL;
    memcpy(SM_INDEXPTRS_S(A), p->pat_ptr, (size_t)(ny + 1) * sizeof(sunindextype));
    memcpy(SM_INDEXVALS_S(A), p->pat_idx, p->pat_nnz * sizeof(sunindextype));
    return A;
}

/* KLU on the new pattern; during a run, a restart first. */
static int use_new_list_klu(cr_pool *p)
{
    SUNMatrix A = klu_pattern(p);
    SUNLinearSolver LS = A ? SUNLinSol_KLU(p->ya, A, p->ctx) : NULL;
    if (!LS) {
        if (A)
            SUNMatDestroy(A);
        return CR_ERR_NOMEM;
    }
    int flag = CV_SUCCESS;
    if (p->ran) {
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
        p->rebuilds++;
    }
    if (flag == CV_SUCCESS)
        flag = CVodeSetLinearSolver(p->cvode, LS, A);
    if (flag == CV_SUCCESS)
        flag = CVodeSetJacFn(p->cvode, jac);
    if (p->LS)
        SUNLinSolFree(p->LS);
    if (p->A)
        SUNMatDestroy(p->A);
    p->A = A;
    p->LS = LS;
    if (flag != CV_SUCCESS) {
        cr_set_msg(p->err, sizeof p->err, "neighbour rebuild: CVODE flag %d", flag);
        return CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* Fixed-point iteration needs no Jacobian: a new list needs only the restart. */
static int use_new_list_fixed_point(cr_pool *p)
{
    int flag = CV_SUCCESS;
    if (p->ran) {
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
        p->rebuilds++;
    } else {
        p->NLS = SUNNonlinSol_FixedPoint(p->ya, 0, p->ctx);
        if (!p->NLS)
            return CR_ERR_NOMEM;
        flag = CVodeSetNonlinearSolver(p->cvode, p->NLS);
    }
    if (flag != CV_SUCCESS) {
        cr_set_msg(p->err, sizeof p->err, "neighbour rebuild: CVODE flag %d", flag);
        return CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* ---- active region ---------------------------------------------------------- */

/* Layers of candidate neighbours added around the busy discs (the pool's
 * REGION_PAD; CRADLE_REGION_PAD overrides it, a tuning aid). */
#define POOL_REGION_PAD 2
/* Steps between two looks at whether the region could shrink. */
#define REGION_CHECK_STEPS 64

/* A candidate contact that exerts a force or may soon: overlapping, or its
 * discs approaching (within the skin, since it is a candidate). Its discs
 * are busy. */
static int engaged(const cr_pool *p, const double *y, const contact *k)
{
    double delta, rate, nx, ny, dist;
    geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
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
        const contact *k = &p->c[id];
        mark[k->i] = 1;
        if (!is_wall(k))
            mark[k->j] = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            p->queue[nq++] = i;
    for (size_t i = 0; i < n && !nq; i++)
        if (y[4 * i + 2] != 0.0 || y[4 * i + 3] != 0.0)
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
 * order (locate_roots' guides need a slot's three together): those of slots
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
        const contact *k = &p->c[id];
        if (p->dstate[k->i] != DISC_REST || (!is_wall(k) && p->dstate[k->j] != DISC_REST))
            for (size_t r = 0; r < 3; r++)
                lv[nl++] = 3 * s + r;
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->dstate[i] != DISC_REST)
            lv[nl++] = 3 * p->nslots + i;
    p->nlive = nl;
    return CR_OK;
}

/* A step of free flight meets no error test: with nothing loaded CVODE's
 * steps grow tenfold at a time, and one step can carry a disc through another
 * (a closing and an opening between two root evaluations, seen by neither;
 * a disc flying 0.18 m onto a row did so, and its next rebuild found it 2 mm
 * deep). At speeds up to V a step now moves a disc at most a quarter of the
 * skin or of the smallest diameter, less than any crossing. */
static int max_step(cr_pool *p)
{
    double rmin = INFINITY;
    for (size_t i = 0; i < p->n; i++)
        rmin = fmin(rmin, p->r[i]);
    return CVodeSetMaxStep(p->cvode, 0.25 * fmin(p->skin, 2.0 * rmin) / p->L);
}

/* A CVODES instance on the compact state at τ_r (the previous one's counters
 * are banked), with the linear solver of the run. */
static int region_cvode(cr_pool *p)
{
    if (p->cvode) {
        cr_cvode_bank(p->cvode, &p->banked);
        CVodeFree(&p->cvode);
    }
    if (p->LS)
        SUNLinSolFree(p->LS);
    if (p->NLS)
        SUNNonlinSolFree(p->NLS);
    if (p->A)
        SUNMatDestroy(p->A);
    p->LS = NULL;
    p->NLS = NULL;
    p->A = NULL;
    p->cvode =
        CVodeCreate(p->method == CR_METHOD_ADAMS || p->fixed_point ? CV_ADAMS : CV_BDF, p->ctx);
    if (!p->cvode)
        return CR_ERR_NOMEM;
    int flag = cr_cvode_init_at(p->cvode, rhs, p->tau_r, p->ya, quad_rhs, p->yQ, p, p->rtol,
                                p->atol, p->err);
    if (flag == CV_SUCCESS && isfinite(p->tau_stop))
        flag = CVodeSetStopTime(p->cvode, p->tau_stop);
    if (flag == CV_SUCCESS)
        flag = max_step(p);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(p->err, "active region", p->t, flag);
    if (p->fixed_point) {
        p->NLS = SUNNonlinSol_FixedPoint(p->ya, 0, p->ctx);
        flag = p->NLS ? CVodeSetNonlinearSolver(p->cvode, p->NLS) : CV_MEM_FAIL;
    } else if (use_gmres(p)) {
        if (!p->pblock && !(p->pblock = malloc(16 * p->n * sizeof(double))))
            return CR_ERR_NOMEM;
        p->LS = SUNLinSol_SPGMR(p->ya, SUN_PREC_LEFT, 30, p->ctx);
        flag = p->LS ? CVodeSetLinearSolver(p->cvode, p->LS, NULL) : CV_MEM_FAIL;
        if (flag == CV_SUCCESS)
            flag = CVodeSetPreconditioner(p->cvode, psetup, psolve);
    } else {
        p->A = klu_pattern(p);
        p->LS = p->A ? SUNLinSol_KLU(p->ya, p->A, p->ctx) : NULL;
        flag = p->LS ? CVodeSetLinearSolver(p->cvode, p->LS, p->A) : CV_MEM_FAIL;
        if (flag == CV_SUCCESS)
            flag = CVodeSetJacFn(p->cvode, jac);
    }
    return flag == CV_SUCCESS ? CR_OK : cr_cvode_fail(p->err, "active region (solver)", p->t, flag);
}

/*
 * A new region at p->t from the full state p->y and the quadratures p->yQ:
 * the active discs (choose_active), the flying and resting ones, the compact
 * state, the quadrature slots (the contacts between active discs) and a new
 * CVODES instance. Every full array gets the resting discs' states.
 */
static int region_build(cr_pool *p)
{
    size_t n = p->n;
    double *y = N_VGetArrayPointer(p->y);
    choose_active(p, y, p->dstate);
    p->na = p->nfly = 0;
    for (size_t i = 0; i < n; i++) {
        if (p->dstate[i]) {
            p->pos[i] = (long)p->na;
            p->act[p->na++] = i;
            p->dstate[i] = DISC_ACTIVE;
        } else {
            p->pos[i] = -1;
            p->dstate[i] = y[4 * i + 2] != 0.0 || y[4 * i + 3] != 0.0 ? DISC_FLY : DISC_REST;
            if (p->dstate[i] == DISC_FLY)
                p->fly[p->nfly++] = i;
        }
    }
    p->tau_r = p->t / p->T;
    memcpy(p->yr, y, 4 * n * sizeof(double));
    memcpy(p->yfull, y, 4 * n * sizeof(double));
    memcpy(N_VGetArrayPointer(p->ystep), y, 4 * n * sizeof(double));
    if (!p->ya || (size_t)N_VGetLength(p->ya) != 4 * p->na) {
        if (p->ya)
            N_VDestroy(p->ya);
        if (p->yastep)
            N_VDestroy(p->yastep);
        p->ya = N_VNew_Serial((sunindextype)(4 * p->na), p->ctx);
        p->yastep = N_VNew_Serial((sunindextype)(4 * p->na), p->ctx);
        if (!p->ya || !p->yastep)
            return CR_ERR_NOMEM;
    }
    double *ya = N_VGetArrayPointer(p->ya);
    for (size_t a = 0; a < p->na; a++)
        memcpy(ya + 4 * a, y + 4 * p->act[a], 4 * sizeof(double));
    int rc = layout_quadratures(p, y);
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
static int region_oversized(cr_pool *p)
{
    if (!p->region || ++p->since_check < REGION_CHECK_STEPS)
        return 0;
    p->since_check = 0;
    char *mark = (char *)p->hot; /* scratch */
    return 2 * choose_active(p, N_VGetArrayPointer(p->y), mark) < p->na;
}

/* Arrays of the region (setup): every disc outside, at rest where it starts so. */
static int region_alloc(cr_pool *p)
{
    size_t n = p->n;
    p->act = malloc(n * sizeof(size_t));
    p->fly = malloc(n * sizeof(size_t));
    p->queue = malloc(n * sizeof(size_t));
    p->pos = malloc(n * sizeof(long));
    p->dstate = calloc(n, 1);
    p->yr = malloc(4 * n * sizeof(double));
    p->yfull = malloc(4 * n * sizeof(double));
    if (!p->act || !p->fly || !p->queue || !p->pos || !p->dstate || !p->yr || !p->yfull)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        p->pos[i] = -1;
    const char *pad = getenv("CRADLE_REGION_PAD");
    p->pad = pad && atoi(pad) >= 0 ? (size_t)atoi(pad) : POOL_REGION_PAD;
    return CR_OK;
}

/* A new candidate list: neighbour search, slots, the reference displacements
 * of the rebuild roots, and the linear solver on the new list (after the
 * first time, with a restart). */
static int rebuild(cr_pool *p)
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
    for (size_t i = 0; i < n; i++) {
        p->dref[2 * i] = y[4 * i];
        p->dref[2 * i + 1] = y[4 * i + 1];
    }
    if (p->region) {
        if (p->ran)
            p->rebuilds++;
        return region_build(p);
    }
    if ((rc = layout_quadratures(p, y)) != CR_OK)
        return rc;
    int flag = resize_quadratures(p);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(p->err, "neighbour rebuild (quadratures)", p->t, flag);
    if (p->fixed_point)
        return use_new_list_fixed_point(p);
    return use_gmres(p) ? use_new_list_gmres(p) : use_new_list_klu(p);
}

/* ---- run ------------------------------------------------------------------- */

static int push_event(cr_pool *p, long id, cr_event_kind kind)
{
    if (p->nev == p->evcap) {
        size_t cap = p->evcap ? 2 * p->evcap : 64;
        cr_event *e = realloc(p->events, cap * sizeof(*e));
        if (!e)
            return CR_ERR_NOMEM;
        p->events = e;
        p->evcap = cap;
    }
    const double *y = N_VGetArrayPointer(p->y);
    const contact *k = &p->c[id];
    cr_event *e = &p->events[p->nev++];
    double nx, ny, dist;
    e->t = p->t;
    e->contact = (size_t)id;
    e->kind = kind;
    geom(p, y, k, &e->overlap, &e->rate, &nx, &ny, &dist);
    e->force = cr_contact_force(law_of(p, k), e->overlap, e->rate);
    double px, py;
    e->impulse = p->Pscale * impulse_of(p, k, &px, &py);
    p->stats.events++;
    return CR_OK;
}

static int loaded(const cr_pool *p, const double *y, const contact *k)
{
    double delta, rate, nx, ny, dist;
    geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
    return delta > ETA * p->L && cr_contact_force(law_of(p, k), delta, rate) > 0.0;
}

/* Nothing can happen any more: no contact loaded, no disc moving towards a wall,
 * and no pair of discs on a collision course (closest approach below R). */
static int pool_at_rest(const cr_pool *p)
{
    const double *y = N_VGetArrayPointer(p->y);
    for (size_t s = 0; s < p->nslots; s++)
        if (p->slot_contact[s] >= 0 && loaded(p, y, &p->c[p->slot_contact[s]]))
            return 0;
    for (size_t i = 0; i < p->n; i++) {
        double vxi = p->V * y[4 * i + 2], vyi = p->V * y[4 * i + 3];
        for (size_t w = 0; w < p->nw; w++)
            if (p->wnx[w] * vxi + p->wny[w] * vyi < 0.0)
                return 0;
        double xi = p->x0[i] + p->L * y[4 * i], yi = p->y0[i] + p->L * y[4 * i + 1];
        for (size_t j = i + 1; j < p->n; j++) {
            double ax = p->x0[j] + p->L * y[4 * j] - xi, ay = p->y0[j] + p->L * y[4 * j + 1] - yi;
            double wx = p->V * y[4 * j + 2] - vxi, wy = p->V * y[4 * j + 3] - vyi;
            double aw = ax * wx + ay * wy, ww = wx * wx + wy * wy;
            if (aw >= 0.0 || ww == 0.0)
                continue; /* not approaching */
            double R = p->r[i] + p->r[j];
            if (ax * ax + ay * ay - aw * aw / ww < R * R)
                return 0;
        }
    }
    return 1;
}

static int cvfail(cr_pool *p, const char *what, int flag)
{
    return cr_cvode_fail(p->err, what, p->t, flag);
}

/* One class of pairs is lightly damped: C δ*^m T / μ ≤ CR_SOLVER_AUTO_DAMPING,
 * with δ* and T the class's own characteristic overlap and time. */
static int class_damping(const cr_contact_params *law, double mu, void *user)
{
    double V = *(const double *)user;
    if (law->C == 0.0)
        return CR_OK;
    double d = pow(mu * V * V / law->K, 1.0 / (law->n + 1.0));
    return law->C * pow(d, law->m) * (d / V) / mu <= CR_SOLVER_AUTO_DAMPING ? CR_OK : 1;
}

/* Non-stiff: every contact law lightly damped (a pool has no links). When the
 * classes of pairs are too many to enumerate, only undamped laws count. */
static int lightly_damped(const cr_pool *p)
{
    int rc = cr_model_pair_classes(p->model, CR_MODEL_MAX_KINDS, class_damping, (void *)&p->V);
    if (rc == CR_OK)
        return 1;
    if (rc != CR_ERR_MODEL || cr_model_default_contact(p->model)->C != 0.0)
        return 0;
    for (size_t w = 0; w < p->nw; w++) {
        cr_contact_params law;
        if (cr_model_pair_law(p->model, 0, CR_WALL_BODY(w), &law) != CR_OK || law.C != 0.0)
            return 0;
    }
    return 1; /* the explicit pair laws were enumerated (and passed) before the error */
}

/* The active region: integration.active_region auto or on (the environment's
 * CRADLE_ACTIVE_REGION=off|on overrides it, a debugging aid), and no field:
 * under gravity no disc flies exactly, so every disc is integrated. */
static int use_region(const cr_pool *p)
{
    cr_active_region ar = cr_model_settings(p->model)->active_region;
    const char *env = getenv("CRADLE_ACTIVE_REGION");
    if (env && strcmp(env, "off") == 0)
        ar = CR_ACTIVE_REGION_OFF;
    else if (env && strcmp(env, "on") == 0)
        ar = CR_ACTIVE_REGION_ON;
    return ar != CR_ACTIVE_REGION_OFF && p->gx == 0.0 && p->gy == 0.0;
}

static int setup(cr_pool *p)
{
    size_t n = p->n;
    p->skin = p->skin_rel * p->rmax;
    p->tau_stop = INFINITY;
    if (SUNContext_Create(NULL, &p->ctx) != 0)
        return CR_ERR_NOMEM;
    p->y = N_VNew_Serial((sunindextype)(4 * n), p->ctx);
    p->ystep = N_VNew_Serial((sunindextype)(4 * n), p->ctx);
    p->nbr = calloc(n, sizeof(size_t *));
    p->nnbr = calloc(n, sizeof(size_t));
    p->nbrcap = calloc(n, sizeof(size_t));
    p->hot = calloc(n, 1);
    if (!p->y || !p->ystep || !p->nbr || !p->nnbr || !p->nbrcap || !p->hot ||
        grow_slots(p, 16) != CR_OK)
        return CR_ERR_NOMEM;
    p->region = use_region(p);
    if (p->region && region_alloc(p) != CR_OK)
        return CR_ERR_NOMEM;
    if (!p->region) { /* CVODES steps the full state */
        p->ya = p->y;
        p->yastep = p->ystep;
        p->na = n;
    }
    double *y = N_VGetArrayPointer(p->y);
    for (size_t i = 0; i < n; i++) {
        y[4 * i] = y[4 * i + 1] = 0.0;
        y[4 * i + 2] = p->vx0[i] / p->V;
        y[4 * i + 3] = p->vy0[i] / p->V;
    }
    if (layout_quadratures(p, y) != CR_OK) /* none yet: the rebuild below lays them out */
        return CR_ERR_NOMEM;
    p->quad_resized = 0;
    /* method adams-fixed-point (the chains' name) = solver fixed-point */
    p->fixed_point =
        p->solver == CR_SOLVER_FIXED_POINT || p->method == CR_METHOD_ADAMS_FIXED_POINT ||
        (p->solver == CR_SOLVER_AUTO && p->method == CR_METHOD_ADAMS && lightly_damped(p));
    if (!p->region) { /* a region makes its own instance (region_build) */
        p->cvode =
            CVodeCreate(p->method == CR_METHOD_ADAMS || p->fixed_point ? CV_ADAMS : CV_BDF, p->ctx);
        if (!p->cvode)
            return CR_ERR_NOMEM;
        int flag = cr_cvode_init(p->cvode, rhs, p->y, quad_rhs, p->yQ, p, p->rtol, p->atol, p->err);
        if (flag == CV_SUCCESS)
            flag = max_step(p);
        if (flag != CV_SUCCESS)
            return cvfail(p, "CVODE setup", flag);
    }
    int rc = rebuild(p);
    if (rc == CR_OK) {
        roots_all(p, y, p->glo);
        p->gevals++;
    }
    return rc;
}

static int handle_roots(cr_pool *p, int *need_rebuild)
{
    int flag;
    const double *y = N_VGetArrayPointer(p->y);
    int rc = CR_OK, restart = 0;
    for (size_t s = 0; s < p->nslots && rc == CR_OK; s++) {
        long id = p->slot_contact[s];
        if (id < 0)
            continue;
        const int *r = p->rootsfound + 3 * s;
        double delta, rate, nx, ny, dist;
        geom(p, y, &p->c[id], &delta, &rate, &nx, &ny, &dist);
        int above = delta > ETA * p->L;
        if (r[0] > 0)
            freeze_normal(p, y, &p->c[id]);
        if (r[0] > 0 && p->region && !warm(p, &p->c[id]))
            p->need_region = 1; /* it reaches outside the region: the region grows */
        if (r[0]) {
            rc = push_event(p, id, r[0] > 0 ? CR_EVENT_CLOSE : CR_EVENT_OPEN);
            restart |= cr_contact_force_jumps(law_of(p, &p->c[id]), r[0] > 0);
        }
        if (r[1] && rc == CR_OK && above)
            rc = push_event(p, id, r[1] < 0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION);
        const cr_contact_params *lr = law_of(p, &p->c[id]);
        if (r[2] && rc == CR_OK && above && !r[0] && lr->release == CR_RELEASE_FORCE && lr->C > 0.0)
            rc = push_event(p, id, r[2] < 0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE);
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->rootsfound[3 * p->nslots + i])
            *need_rebuild = 1;
    if (rc == CR_OK && restart && !*need_rebuild && !p->need_region) {
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
        if (flag != CV_SUCCESS)
            return cvfail(p, "CVodeReInit", flag);
        p->stats.restarts++;
    }
    return rc;
}

/* A listener's code: negative codes are propagated as they are (a full disk is
 * not an interruption). */
static int listener_code(int r)
{
    return r == 0 ? CR_OK : (r < 0 ? r : CR_ERR_INTERRUPTED);
}

static int emit(cr_pool *p)
{
    p->stats.outputs++;
    return p->out_fn ? listener_code(p->out_fn(p, p->out_user)) : CR_OK;
}

/* The run stops early: say why. */
static int stopped(cr_pool *p, int rc)
{
    if (rc == CR_ERR_INTERRUPTED) {
        snprintf(p->end_reason, sizeof p->end_reason, "interrupted");
        cr_set_msg(p->err, sizeof p->err, "run interrupted at t = %.9g s", p->t);
    } else {
        snprintf(p->end_reason, sizeof p->end_reason, "stopped by a listener");
        cr_set_msg(p->err, sizeof p->err, "a listener failed at t = %.9g s: %s", p->t,
                   cr_strerror(rc));
    }
    return rc;
}

/* What an automatic end needs: few enough discs for the O(N²) at-rest test, no field. */
static int check_automatic_end(cr_pool *p)
{
    if (p->n > AUTO_END_MAX_DISCS) {
        cr_set_msg(p->err, sizeof p->err,
                   "automatic end checks every pair (O(N^2)): give an end time for N > %d",
                   AUTO_END_MAX_DISCS);
        return CR_ERR_INVALID;
    }
    if (p->gx != 0.0 || p->gy != 0.0) {
        cr_set_msg(p->err, sizeof p->err,
                   "an automatic end needs a free pool: with gravity give an end time");
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* After a root return: events, the event listener, a rebuild if asked. */
static int after_roots(cr_pool *p, double t_stop)
{
    int need = 0, rc;
    size_t first = p->nev;
    if ((rc = handle_roots(p, &need)) != CR_OK)
        return rc;
    if (p->ev_fn && p->nev > first && (rc = listener_code(p->ev_fn(p, first, p->ev_user))) != CR_OK)
        return stopped(p, rc);
    if (need && (rc = rebuild(p)) != CR_OK)
        return rc;
    if (!need && p->need_region && (rc = region_build(p)) != CR_OK)
        return rc;
    if (need)
        CVodeSetStopTime(p->cvode, t_stop / p->T);
    return CR_OK;
}

/* The run ends here: say why, with a last output. */
static int finish(cr_pool *p, const char *why)
{
    snprintf(p->end_reason, sizeof p->end_reason, "%s", why);
    int rc = emit(p);
    return rc == CR_OK ? CR_OK : stopped(p, rc);
}

/* ---- event location ------------------------------------------------------ */

/*
 * The engine locates its events itself instead of CVODE's root finding, which
 * evaluates every root function of the pool (three per candidate contact, one
 * per disc) and interpolates the whole state about ten times per event. Here
 * each step costs one evaluation of the root functions at its end; only those
 * that changed sign over the step are searched (Illinois, as CVODE's cvRcheck3,
 * to the same tolerance 100 ε (|t| + |h|)), and the other contacts are never
 * looked at again for that event.
 */

/* The state (and quadratures) at the scaled time tau inside the last step.
 * Event times stay scaled: t/T·T need not give back the located τ, and the
 * state just before a root has its functions' old signs. */
/* The full state p->y at the scaled time tau inside the last step. */
static void interpolate(cr_pool *p, double tau)
{
    CVodeGetDky(p->cvode, tau, 0, p->ya);
    if (p->region)
        fill_full(p, tau, N_VGetArrayPointer(p->ya), N_VGetArrayPointer(p->y));
}

static void state_at(cr_pool *p, double tau)
{
    interpolate(p, tau);
    CVodeGetQuadDky(p->cvode, tau, 0, p->yQ);
    p->t = tau * p->T;
}

/* Opposite signs (never a product: 1e-300 · 1e-25 underflows to 0). */
static inline int differ(double a, double b)
{
    return (a < 0.0) != (b < 0.0);
}

/* The root functions with different signs at p->tlo (glo) and the end of the
 * step (ghi): their indices in p->cand. After an event in the step (@p prev
 * candidates, > 0) only those can still differ: the others kept both values.
 * @return how many. */
static size_t sign_changes(cr_pool *p, size_t prev)
{
    size_t nc = 0;
    if (prev) {
        for (size_t c = 0; c < prev; c++)
            if (differ(p->glo[p->cand[c]], p->ghi[p->cand[c]]))
                p->cand[nc++] = p->cand[c];
        return nc;
    }
    if (p->region) {
        for (size_t c = 0; c < p->nlive; c++)
            if (differ(p->glo[p->live[c]], p->ghi[p->live[c]]))
                p->cand[nc++] = p->live[c];
        return nc;
    }
    for (size_t q = 0; q < p->nroot; q++)
        if (differ(p->glo[q], p->ghi[q]))
            p->cand[nc++] = q;
    return nc;
}

/* The function whose crossing is nearest the low end of [lo, hi]: the largest
 * |hi/(hi − lo)| among the sign changes (CVODE's imax), preferring the smooth
 * ones (guide[c]: a secant on a jump converges only as bisection). -1 when
 * none changes sign. */
static long nearest(const double *lo, const double *hi, const char *guide, size_t nc)
{
    long imax = -1;
    double maxfrac = 0.0;
    int smooth = 0;
    for (size_t c = 0; c < nc; c++)
        if (differ(lo[c], hi[c])) {
            double frac = fabs(hi[c] / (hi[c] - lo[c]));
            if ((guide[c] && !smooth) || ((guide[c] || !smooth) && frac > maxfrac) || imax < 0) {
                maxfrac = frac;
                imax = (long)c;
                smooth |= guide[c];
            }
        }
    return imax;
}

/* Which candidates may guide the search: a slot's rate and release functions
 * jump where its overlap function crosses (they are defined only while
 * loaded), so with that one among the candidates they follow it. The
 * candidates are in increasing order: a slot's closing function comes first. */
static void guides(cr_pool *p, size_t nc)
{
    size_t crossing = (size_t)-1; /* the last slot whose closing function changed sign */
    for (size_t c = 0; c < nc; c++) {
        size_t q = p->cand[c];
        p->guide[c] = 1;
        if (q >= 3 * p->nslots)
            continue;
        if (q % 3 == 0)
            crossing = q / 3;
        else if (crossing == q / 3)
            p->guide[c] = 0;
    }
}

/* A trial point of the Illinois search (times scaled), kept 0.1 … 0.5 of the
 * bracket away from its ends when the secant lands closer than ttol/2. */
static double trial(double tlo, double thi, double glo, double ghi, double alph, double ttol)
{
    double tmid = thi - (thi - tlo) * ghi / (ghi - alph * glo);
    double fracint = fabs(thi - tlo) / ttol, fracsub = fracint > 5.0 ? 0.1 : 0.5 / fracint;
    if (fabs(tmid - tlo) < 0.5 * ttol)
        tmid = tlo + fracsub * (thi - tlo);
    if (fabs(thi - tmid) < 0.5 * ttol)
        tmid = thi - fracsub * (thi - tlo);
    return tmid;
}

/*
 * The first root in (tlo, thi] (scaled times) among the nc candidates, whose
 * values at the ends are in p->clo and p->chi: the Illinois method on the
 * interpolated state, evaluating the candidates only. @return its time (the
 * high end of the last bracket, where the located functions have their new
 * signs); p->rootsfound holds ±1 for the functions that cross by then.
 */
static double locate_roots(cr_pool *p, double tlo, double thi, double h, size_t nc)
{
    double ttol = (fabs(thi) + fabs(h)) * DBL_EPSILON * 100.0, alph = 1.0;
    int side = 0, sideprev = -1;
    guides(p, nc);
    long imax = nearest(p->clo, p->chi, p->guide, nc);
    double *y = N_VGetArrayPointer(p->y);
    while (fabs(thi - tlo) > ttol) {
        alph = sideprev == side ? (side == 2 ? 2.0 * alph : 0.5 * alph) : 1.0;
        double tmid = trial(tlo, thi, p->clo[imax], p->chi[imax], alph, ttol);
        interpolate(p, tmid);
        for (size_t c = 0; c < nc; c++)
            p->cmid[c] = root_one(p, y, p->cand[c]);
        p->gevals++;
        sideprev = side;
        long m = nearest(p->clo, p->cmid, p->guide, nc);
        double *keep = m >= 0 ? p->chi : p->clo;
        memcpy(keep, p->cmid, nc * sizeof(double));
        if (m >= 0) { /* a sign change in (tlo, tmid] */
            thi = tmid;
            imax = m;
            side = 1;
        } else {
            tlo = tmid;
            side = 2;
        }
    }
    memset(p->rootsfound, 0, p->nroot * sizeof(int));
    for (size_t c = 0; c < nc; c++)
        if (differ(p->clo[c], p->chi[c]))
            p->rootsfound[p->cand[c]] = p->clo[c] > 0.0 ? -1 : 1;
    return thi;
}

/* ---- run ------------------------------------------------------------------- */

/* Outputs due before time t (s), each at its interpolated state; the one at
 * t_stop is left to finish. */
static int outputs_before(cr_pool *p, double t, double dt, double t_stop, long *k)
{
    for (;; (*k)++) {
        double tout = fmin((double)*k * dt, t_stop);
        if (tout >= t || tout >= t_stop)
            return CR_OK;
        if (!p->out_fn || (p->out_wanted && !p->out_wanted(p->out_user))) {
            p->stats.outputs++; /* nobody reads it: no interpolation */
            continue;
        }
        state_at(p, tout / p->T);
        int rc = emit(p);
        if (rc != CR_OK)
            return stopped(p, rc);
    }
}

/* The run's state between steps. */
typedef struct {
    double t_stop, dt;
    long k; /* next output: k dt */
    int automatic;
} run_ctx;

/* A restart at p->t from p->y and p->yQ with a new quadrature layout. */
static int restart_quadratures(cr_pool *p, const run_ctx *rc_)
{
    int rc = layout_quadratures(p, N_VGetArrayPointer(p->y));
    if (rc != CR_OK)
        return rc;
    int flag = resize_quadratures(p);
    if (flag == CV_SUCCESS)
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
    if (flag != CV_SUCCESS)
        return cvfail(p, "quadrature layout", flag);
    p->stats.restarts++;
    CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
    return CR_OK;
}

/*
 * The safety net of warm_up: a candidate without quadratures that closed
 * during the step (its closing function changed sign, or it overlaps at the
 * end) would lose the impulse of the step. The step is then taken again from
 * its start (p->tlo) with a quadrature slot for it: @p cut is set.
 */
static int missed_quadratures(cr_pool *p, const run_ctx *rc_, int *cut)
{
    size_t missed = 0;
    if (p->region) /* every contact that exerts a force has its slot (warm) */
        return CR_OK;
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id < 0 || p->c[id].qslot >= 0)
            continue;
        if (p->ghi[3 * s] > 0.0 || differ(p->glo[3 * s], p->ghi[3 * s])) {
            p->c[id].qslot = WANTS_QSLOT;
            missed++;
        }
    }
    if (!missed)
        return CR_OK;
    *cut = 1;
    p->missed++;
    state_at(p, p->tlo);
    if (missed > p->qcap - p->nq)
        return restart_quadratures(p, rc_);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        if (id >= 0 && p->c[id].qslot == WANTS_QSLOT)
            take_qslot(p, id);
    }
    int flag = cr_cvode_restart(p->cvode, p->tlo, p->ya, p->yQ, &p->banked);
    if (flag != CV_SUCCESS)
        return cvfail(p, "CVodeReInit", flag);
    p->stats.restarts++;
    CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
    return CR_OK;
}

/*
 * Events of the step that ended at the scaled time taun, in time order: each is located,
 * preceded by the outputs due before it, and handled at its own state. A
 * restart (force jump, neighbour rebuild) cuts the step there: @p cut is set
 * and the integrator goes on from the event. @p ended: the automatic end.
 */
static int step_events(cr_pool *p, run_ctx *rc_, double taun, double h, int *cut, int *ended)
{
    const double *ys = N_VGetArrayPointer(p->ystep);
    roots_step(p, ys, p->ghi);
    p->gevals++;
    *cut = *ended = 0;
    int rc = missed_quadratures(p, rc_, cut);
    if (rc != CR_OK || *cut)
        return rc;
    for (size_t nc = 0; (nc = sign_changes(p, nc)) > 0;) {
        for (size_t c = 0; c < nc; c++) {
            p->clo[c] = p->glo[p->cand[c]];
            p->chi[c] = p->ghi[p->cand[c]];
        }
        double tr = locate_roots(p, p->tlo, taun, h, nc); /* scaled */
        rc = outputs_before(p, tr * p->T, rc_->dt, rc_->t_stop, &rc_->k);
        if (rc != CR_OK)
            return rc;
        state_at(p, tr);
        long restarts = p->stats.restarts, rebuilds = p->rebuilds, regions = p->region_builds;
        if ((rc = after_roots(p, rc_->t_stop)) != CR_OK)
            return rc;
        p->tlo = tr;
        const double *y = N_VGetArrayPointer(p->y);
        if (p->stats.restarts != restarts || p->rebuilds != rebuilds ||
            p->region_builds != regions) {
            CVodeSetStopTime(p->cvode, rc_->t_stop / p->T);
            roots_all(p, y, p->glo);
            p->gevals++;
            *cut = 1;
        } else {
            /* the search's candidates at the event; the events handled may
             * have redefined their functions (a frozen normal), so both ends */
            for (size_t c = 0; c < nc; c++) {
                p->glo[p->cand[c]] = root_one(p, y, p->cand[c]);
                p->ghi[p->cand[c]] = root_one(p, ys, p->cand[c]);
            }
        }
        if (rc_->automatic && pool_at_rest(p)) {
            *ended = 1;
            return finish(p, "all contacts open and separating");
        }
        if (*cut)
            return CR_OK;
    }
    if (p->region)
        for (size_t c = 0; c < p->nlive; c++)
            p->glo[p->live[c]] = p->ghi[p->live[c]];
    else
        memcpy(p->glo, p->ghi, p->nroot * sizeof(double));
    p->tlo = taun;
    if (p->region || warm_up(p, ys))
        return CR_OK;
    /* out of free quadrature slots: a new layout, from the end of the step */
    N_VScale(1.0, p->ystep, p->y);
    CVodeGetQuad(p->cvode, &taun, p->yQ);
    p->t = taun * p->T;
    *cut = 1;
    return restart_quadratures(p, rc_);
}

int cr_pool_run(cr_pool *p, double t_end)
{
    CR_CHECK(p && !p->ran && isfinite(t_end), p ? p->err : NULL, CR_ERR_INVALID);
    int automatic = t_end <= 0.0, rc;
    if (automatic && (rc = check_automatic_end(p)) != CR_OK)
        return rc;
    rc = setup(p);
    p->ran = 1;
    if (rc != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(p->err, sizeof p->err, "out of memory setting up the pool");
        return rc;
    }
    double extent = 0.0;
    for (size_t i = 0; i < p->n; i++)
        extent = fmax(extent, hypot(p->x0[i] - p->x0[0], p->y0[i] - p->y0[0]));
    double t_stop = automatic ? 4.0 * extent / p->V + 1e6 * p->T : t_end;
    /* the chains' rule: about 12 samples per contact time (δ* / (4V)), and at most
     * 1000 frames over a given end time */
    double dt = p->out_interval > 0.0 ? p->out_interval
                                      : fmax(0.25 * p->T, automatic ? 0.0 : t_end / 1000.0);
    if ((rc = cr_output_interval_check(p->out_interval, p->T, t_end, p->err, sizeof p->err)))
        return rc;
    p->tau_stop = t_stop / p->T;
    CVodeSetStopTime(p->cvode, t_stop / p->T);
    p->t = p->tlo = 0.0;
    if ((rc = emit(p)) != CR_OK)
        return stopped(p, rc);
    if (automatic && pool_at_rest(p)) {
        snprintf(p->end_reason, sizeof p->end_reason, "all contacts open and separating");
        return CR_OK;
    }
    run_ctx ctx = {t_stop, dt, 1, automatic};
    for (;;) {
        if (p->stop_requested) {
            rc = emit(p);
            return stopped(p, rc == CR_OK ? CR_ERR_INTERRUPTED : rc);
        }
        sunrealtype tret, h = 0.0;
        int flag = CVode(p->cvode, t_stop / p->T, p->yastep, &tret, CV_ONE_STEP);
        if (flag < 0)
            return cvfail(p, "CVode", flag);
        if (p->region)
            fill_full(p, tret, N_VGetArrayPointer(p->yastep), N_VGetArrayPointer(p->ystep));
        CVodeGetLastStep(p->cvode, &h);
        double tn = tret * p->T;
        int cut, ended;
        if ((rc = step_events(p, &ctx, tret, h, &cut, &ended)) != CR_OK || ended)
            return rc;
        if (cut)
            continue;
        if ((rc = outputs_before(p, tn, dt, t_stop, &ctx.k)) != CR_OK)
            return rc;
        if (p->region)
            fill_full(p, tret, N_VGetArrayPointer(p->yastep), N_VGetArrayPointer(p->y));
        else
            N_VScale(1.0, p->ystep, p->y);
        CVodeGetQuad(p->cvode, &tret, p->yQ);
        p->t = tn;
        if (flag == CV_TSTOP_RETURN || tn >= t_stop)
            return finish(p, automatic ? "safety cap reached before the pool came apart"
                                       : "end time reached");
        if (region_oversized(p)) { /* settled discs leave: a smaller region */
            if ((rc = region_build(p)) != CR_OK)
                return rc;
            roots_all(p, N_VGetArrayPointer(p->y), p->glo);
            p->gevals++;
        }
    }
}

/* ---- queries --------------------------------------------------------------- */

const char *cr_pool_last_error(const cr_pool *p)
{
    return p ? p->err : "no pool";
}

const char *cr_pool_end_reason(const cr_pool *p)
{
    return p->end_reason[0] ? p->end_reason : "not run";
}

size_t cr_pool_disc_count(const cr_pool *p)
{
    return p->n;
}

double cr_pool_get_time(const cr_pool *p)
{
    return p->t;
}

void cr_pool_get_positions(const cr_pool *p, double *xy)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    for (size_t i = 0; i < p->n; i++) {
        xy[2 * i] = p->x0[i] + (y ? p->L * y[4 * i] : 0.0);
        xy[2 * i + 1] = p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0);
    }
}

void cr_pool_get_velocities(const cr_pool *p, double *v)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    for (size_t i = 0; i < p->n; i++) {
        v[2 * i] = y ? p->V * y[4 * i + 2] : p->vx0[i];
        v[2 * i + 1] = y ? p->V * y[4 * i + 3] : p->vy0[i];
    }
}

double cr_pool_kinetic_energy(const cr_pool *p)
{
    double T = 0.0, *v = malloc(2 * p->n * sizeof(double));
    if (!v)
        return NAN;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++)
        T += 0.5 * p->m[i] * (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]);
    free(v);
    return T;
}

double cr_pool_potential_energy(const cr_pool *p)
{
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    double U = 0.0;
    /* the field's potential −m g·p, zero at the origin as for chains */
    for (size_t i = 0; i < p->n && (p->gx != 0.0 || p->gy != 0.0); i++)
        U -= p->m[i] * (p->gx * (p->x0[i] + (y ? p->L * y[4 * i] : 0.0)) +
                        p->gy * (p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0)));
    for (size_t s = 0; y && s < p->nslots; s++) {
        if (p->slot_contact[s] < 0)
            continue;
        double delta, rate, nx, ny, dist;
        const contact *k = &p->c[p->slot_contact[s]];
        geom(p, y, k, &delta, &rate, &nx, &ny, &dist);
        U += cr_contact_energy(law_of(p, k), delta);
    }
    return U;
}

double cr_pool_dissipated_work(const cr_pool *p)
{
    return p->yQ ? p->Escale * N_VGetArrayPointer(p->yQ)[3 * p->qcap] : 0.0;
}

void cr_pool_momentum(const cr_pool *p, double *px, double *py)
{
    double *v = malloc(2 * p->n * sizeof(double));
    *px = *py = 0.0;
    if (!v)
        return;
    cr_pool_get_velocities(p, v);
    for (size_t i = 0; i < p->n; i++) {
        *px += p->m[i] * v[2 * i];
        *py += p->m[i] * v[2 * i + 1];
    }
    free(v);
}

size_t cr_pool_contact_count(const cr_pool *p)
{
    return p->nc;
}

void cr_pool_contact_bodies(const cr_pool *p, size_t k, long *i, long *j)
{
    *i = p->c[k].i;
    *j = p->c[k].j;
}

double cr_pool_contact_impulse(const cr_pool *p, size_t k, double *vec)
{
    double px, py, P = p->yQ ? impulse_of(p, &p->c[k], &px, &py) : 0.0;
    if (vec) {
        vec[0] = p->yQ ? p->Pscale * px : 0.0;
        vec[1] = p->yQ ? p->Pscale * py : 0.0;
    }
    return p->Pscale * P;
}

size_t cr_pool_event_count(const cr_pool *p)
{
    return p->nev;
}

const cr_event *cr_pool_events(const cr_pool *p)
{
    return p->events;
}

cr_sim_stats cr_pool_get_stats(const cr_pool *p)
{
    /* CVODE's counters are read as asked: every exit of the run sees them */
    cr_sim_stats st = p->stats;
    if (p->cvode)
        cr_cvode_counters(p->cvode, &p->banked, &st);
    st.root_evals += p->gevals; /* the engine's own event location */
    st.windows = p->region ? p->region_builds : (p->cvode ? 1 : 0);
    st.max_window = p->region ? p->max_active : (long)p->n;
    return st;
}

long cr_pool_rebuilds(const cr_pool *p)
{
    return p->rebuilds;
}

int cr_pool_check_jacobian(cr_pool *p, double *max_rel)
{
    CR_CHECK(p && max_rel && p->ran && p->A, p ? p->err : NULL, CR_ERR_INVALID);
    size_t ny = 4 * p->na;
    SUNMatrix J = SUNMatClone(p->A);
    N_Vector y = N_VClone(p->ya), fp = N_VClone(p->ya), fm = N_VClone(p->ya),
             base = N_VClone(p->ya);
    double *dense = calloc(ny * ny, sizeof(double));
    int rc = CR_OK;
    if (!J || !y || !fp || !fm || !base || !dense) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    /* the integrated discs' part of the current state (in a region, compact) */
    for (size_t a = 0; a < p->na; a++)
        memcpy(N_VGetArrayPointer(base) + 4 * a,
               N_VGetArrayPointer(p->y) + 4 * (p->region ? p->act[a] : a), 4 * sizeof(double));
    jac(p->t / p->T, base, NULL, J, p, NULL, NULL, NULL);
    sunindextype *ptr = SM_INDEXPTRS_S(J), *idx = SM_INDEXVALS_S(J);
    for (size_t c = 0; c < ny; c++)
        for (sunindextype q = ptr[c]; q < ptr[c + 1]; q++)
            dense[(size_t)idx[q] * ny + c] += SM_DATA_S(J)[q];
    double worst = 0.0, scale = 0.0;
    for (size_t k = 0; k < ny * ny; k++)
        scale = fmax(scale, fabs(dense[k]));
    for (size_t c = 0; c < ny; c++) {
        N_VScale(1.0, base, y);
        double *yd = N_VGetArrayPointer(y), h = 1e-7 * fmax(1.0, fabs(yd[c]));
        double y0 = yd[c];
        yd[c] = y0 + h;
        rhs(p->t / p->T, y, fp, p);
        yd[c] = y0 - h;
        rhs(p->t / p->T, y, fm, p);
        const double *a = N_VGetArrayPointer(fp), *b = N_VGetArrayPointer(fm);
        for (size_t r = 0; r < ny; r++)
            worst = fmax(worst, fabs((a[r] - b[r]) / (2 * h) - dense[r * ny + c]));
    }
    *max_rel = scale > 0 ? worst / scale : worst;
done:
    if (J)
        SUNMatDestroy(J);
    if (base)
        N_VDestroy(base);
    if (y)
        N_VDestroy(y);
    if (fp)
        N_VDestroy(fp);
    if (fm)
        N_VDestroy(fm);
    free(dense);
    return rc;
}

void cr_pool_contact_state(const cr_pool *p, size_t k, double *delta, double *rate, double *force,
                           int *loaded)
{
    const contact *c = &p->c[k];
    *delta = -INFINITY;
    *rate = 0.0;
    *force = 0.0;
    *loaded = 0;
    if (c->slot < 0 || !p->y)
        return;
    const double *y = N_VGetArrayPointer(p->y);
    double nx, ny, dist;
    geom(p, y, c, delta, rate, &nx, &ny, &dist);
    *force = cr_contact_force(law_of(p, c), *delta, *rate);
    *loaded = *delta > ETA * p->L && *force > 0.0;
}

void cr_pool_get_discs(const cr_pool *p, double *mass, double *radius)
{
    if (mass)
        memcpy(mass, p->m, p->n * sizeof(double));
    if (radius)
        memcpy(radius, p->r, p->n * sizeof(double));
}

int cr_pool_set_event_callback(cr_pool *p, cr_pool_event_fn fn, void *user)
{
    CR_CHECK(p, NULL, CR_ERR_INVALID);
    p->ev_fn = fn;
    p->ev_user = user;
    return CR_OK;
}

void cr_pool_contact_normal(const cr_pool *p, size_t k, double *nrm)
{
    const contact *c = &p->c[k];
    if (c->j < 0) {
        size_t w = (size_t)(-1 - c->j);
        nrm[0] = p->wnx[w];
        nrm[1] = p->wny[w];
        return;
    }
    if (c->frozen) {
        nrm[0] = c->fnx;
        nrm[1] = c->fny;
        return;
    }
    double xy[4];
    const double *y = p->y ? N_VGetArrayPointer(p->y) : NULL;
    size_t i = (size_t)c->i, j = (size_t)c->j;
    xy[0] = p->x0[i] + (y ? p->L * y[4 * i] : 0.0);
    xy[1] = p->y0[i] + (y ? p->L * y[4 * i + 1] : 0.0);
    xy[2] = p->x0[j] + (y ? p->L * y[4 * j] : 0.0);
    xy[3] = p->y0[j] + (y ? p->L * y[4 * j + 1] : 0.0);
    double d = hypot(xy[2] - xy[0], xy[3] - xy[1]);
    nrm[0] = (xy[2] - xy[0]) / d;
    nrm[1] = (xy[3] - xy[1]) / d;
}

/* ---- the pool engine behind cr_system -------------------------------------- */

typedef struct {
    cr_pool *pool;
    cr_system *sys;
} pool_engine;

static int pool_output(const cr_pool *pool, void *user)
{
    (void)pool;
    return cr_system_emit_output(((pool_engine *)user)->sys);
}

static int pool_output_wanted(void *user)
{
    return cr_system_has_output_listener(((pool_engine *)user)->sys);
}

static int pool_events(const cr_pool *pool, size_t first, void *user)
{
    (void)pool;
    return cr_system_emit_events(((pool_engine *)user)->sys, first);
}

static void pe_destroy(void *e)
{
    pool_engine *pe = e;
    if (!pe)
        return;
    cr_pool_destroy(pe->pool);
    free(pe);
}

static void *pe_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    pool_engine *pe = calloc(1, sizeof(*pe));
    if (!pe) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    pe->sys = sys;
    pe->pool = cr_pool_create_from_model(model, msg, msglen);
    if (!pe->pool) {
        free(pe);
        return NULL;
    }
    cr_pool_set_output(pe->pool, cr_model_settings(model)->output_interval, pool_output, pe);
    pe->pool->out_wanted = pool_output_wanted;
    cr_pool_set_event_callback(pe->pool, pool_events, pe);
    return pe;
}

#define POOL(e) (((const pool_engine *)(e))->pool)

static int pe_run(void *e, double t_end)
{
    return cr_pool_run(((pool_engine *)e)->pool, t_end);
}

static void pe_stop(void *e)
{
    cr_pool_request_stop(((pool_engine *)e)->pool);
}

static const char *pe_last_error(const void *e)
{
    return cr_pool_last_error(POOL(e));
}

static const char *pe_end_reason(const void *e)
{
    return cr_pool_end_reason(POOL(e));
}

static size_t pe_body_count(const void *e)
{
    return POOL(e)->n;
}

static size_t pe_wall_count(const void *e)
{
    return POOL(e)->nw;
}

static int pe_is_fixed(const void *e, size_t i)
{
    (void)e, (void)i;
    return 0;
}

static void pe_masses(const void *e, double *m)
{
    cr_pool_get_discs(POOL(e), m, NULL);
}

static void pe_radii(const void *e, double *r)
{
    cr_pool_get_discs(POOL(e), NULL, r);
}

static int pe_wall(const void *e, size_t w, double *normal, double *offset)
{
    const cr_pool *p = POOL(e);
    if (w >= p->nw)
        return CR_ERR_INVALID;
    if (normal) {
        normal[0] = p->wnx[w];
        normal[1] = p->wny[w];
    }
    if (offset)
        *offset = p->woff[w];
    return CR_OK;
}

static double pe_time(const void *e)
{
    return POOL(e)->t;
}

static void pe_positions(const void *e, double *x)
{
    cr_pool_get_positions(POOL(e), x);
}

static void pe_velocities(const void *e, double *v)
{
    cr_pool_get_velocities(POOL(e), v);
}

static size_t pe_contact_count(const void *e)
{
    return POOL(e)->nc;
}

static int pe_contact(const void *e, size_t k, cr_contact_view *w)
{
    const cr_pool *p = POOL(e);
    const contact *c = &p->c[k];
    memset(w, 0, sizeof(*w));
    w->body_a = (size_t)c->i;
    w->body_b = c->j;
    w->unilateral = 1;
    w->impulse = cr_pool_contact_impulse(p, k, w->vector_impulse);
    double rmin = c->j >= 0 ? fmin(p->r[c->i], p->r[c->j]) : p->r[c->i];
    if (!p->y) { /* before the run: the initial geometry */
        w->overlap = c->j >= 0 ? c->c0 / (c->R + hypot(c->a0x, c->a0y)) : c->c0;
        if (c->j >= 0) {
            double d = hypot(c->a0x, c->a0y);
            w->normal[0] = c->a0x / d;
            w->normal[1] = c->a0y / d;
            double wx = p->vx0[c->j] - p->vx0[c->i], wy = p->vy0[c->j] - p->vy0[c->i];
            w->rate = -(w->normal[0] * wx + w->normal[1] * wy);
        } else {
            size_t wi = (size_t)(-1 - c->j);
            w->normal[0] = p->wnx[wi];
            w->normal[1] = p->wny[wi];
            w->rate = -(p->wnx[wi] * p->vx0[c->i] + p->wny[wi] * p->vy0[c->i]);
        }
    } else {
        double dist;
        geom(p, N_VGetArrayPointer(p->y), c, &w->overlap, &w->rate, &w->normal[0], &w->normal[1],
             &dist);
    }
    w->force = w->overlap > 0.0 ? cr_contact_force(law_of(p, c), w->overlap, w->rate) : 0.0;
    if (w->overlap > ETA * p->L && w->force > 0.0)
        w->state = CR_CONTACT_LOADED;
    else if (w->overlap >= -CR_GEOM_TOL * rmin)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    /* the pool's end rule: not loaded, and a candidate pair not approaching */
    w->settled = w->state != CR_CONTACT_LOADED && !(c->slot >= 0 && w->rate > 0.0);
    return CR_OK;
}

static const size_t *pe_body_contacts(const void *e, size_t i, size_t *n)
{
    const cr_pool *p = POOL(e);
    *n = p->bc ? p->nbc[i] : 0;
    return *n ? p->bc[i] : NULL;
}

static size_t pe_event_count(const void *e)
{
    return POOL(e)->nev;
}

static const cr_event *pe_events(const void *e)
{
    return POOL(e)->events;
}

static double pe_kinetic(const void *e)
{
    return cr_pool_kinetic_energy(POOL(e));
}

static double pe_potential(const void *e)
{
    return cr_pool_potential_energy(POOL(e));
}

static double pe_dissipated(const void *e)
{
    return cr_pool_dissipated_work(POOL(e));
}

static void pe_momentum(const void *e, double *p)
{
    cr_pool_momentum(POOL(e), &p[0], &p[1]);
}

static double pe_settle(const void *e)
{
    (void)e;
    return 0.0;
}

static cr_run_stats pe_stats(const void *e)
{
    cr_run_stats st = cr_pool_get_stats(POOL(e));
    st.rebuilds = POOL(e)->rebuilds;
    return st;
}

static void pe_scales(const void *e, double *length, double *speed, double *time)
{
    const cr_pool *p = POOL(e);
    if (length)
        *length = p->L;
    if (speed)
        *speed = p->V;
    if (time)
        *time = p->T;
}

static int pe_check_jacobian(void *e, double *max_rel)
{
    return cr_pool_check_jacobian(((pool_engine *)e)->pool, max_rel);
}

const cr_engine_ops cr_pool_engine = {
    .name = "pool",
    .create = pe_create,
    .destroy = pe_destroy,
    .run = pe_run,
    .request_stop = pe_stop,
    .last_error = pe_last_error,
    .end_reason = pe_end_reason,
    .dim = 2,
    .contacts_fixed = 0,
    .body_count = pe_body_count,
    .wall_count = pe_wall_count,
    .is_fixed = pe_is_fixed,
    .masses = pe_masses,
    .radii = pe_radii,
    .wall = pe_wall,
    .time = pe_time,
    .positions = pe_positions,
    .velocities = pe_velocities,
    .contact_count = pe_contact_count,
    .contact = pe_contact,
    .body_contacts = pe_body_contacts,
    .event_count = pe_event_count,
    .events = pe_events,
    .kinetic_energy = pe_kinetic,
    .potential_energy = pe_potential,
    .dissipated_work = pe_dissipated,
    .momentum = pe_momentum,
    .settle_time = pe_settle,
    .stats = pe_stats,
    .scales = pe_scales,
    .check_jacobian = pe_check_jacobian,
};
