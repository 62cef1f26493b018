/*
 * Root functions of the pool (CR_PL_SR per candidate slot: closing,
 * compression rate, force release, force rate; one per disc: its rebuild)
 * and the engine's own event location over them, then the events of a root
 * return.
 */
#include "engines/compliant/pool-priv.h"

#include <float.h>
#include <string.h>

/* Contact k pushes its discs in the right-hand side: in a region the warm
 * contacts (with quadratures), otherwise every candidate (cr_pl_rhs). */
static int exerts(const cr_pool *p, const cr_pool_contact *k)
{
    return p->region ? k->qslot >= 0 : k->slot >= 0;
}

/* Disc i's acceleration (SI, dim values) at the scaled state y, as cr_pl_rhs
 * gives it: gravity and the forces of its contacts. */
static void disc_accel(const cr_pool *p, const double *y, size_t i, double *acc)
{
    for (int d = 0; d < p->dim; d++)
        acc[d] = p->fixed[i] ? 0.0 : p->g[d];
    for (size_t q = 0; p->bc && !p->fixed[i] && q < p->nbc[i]; q++) {
        const cr_pool_contact *k = &p->c[p->bc[i][q]];
        if (!exerts(p, k) || cr_pl_surely_open(p, y, k))
            continue;
        double delta, rate, n[3] = {0}, dist;
        cr_pl_geom(p, y, k, &delta, &rate, n, &dist);
        double f = cr_contact_force_inline(cr_pl_law(p, k), delta, rate);
        double sign = cr_pl_is_wall(k) || (size_t)k->j == i ? 1.0 : -1.0; /* +f n on j */
        for (int d = 0; d < p->dim; d++)
            acc[d] += sign * f * n[d] / p->m[i];
    }
}

/* δ̈ of contact k (SI) at the scaled state y, for its force rate: along the
 * normal the discs' accelerations; a turning pair adds the normal's turn,
 * −(|w|² − (n·w)²)/d (δ = R − d, d the centre distance, w the relative
 * velocity); a frozen normal and a wall have none. */
static double overlap_accel(const cr_pool *p, const double *y, const cr_pool_contact *k)
{
    double delta, rate, n[3] = {0}, dist, ai[3] = {0}, aj[3] = {0}, da[3] = {0};
    cr_pl_geom(p, y, k, &delta, &rate, n, &dist);
    size_t i = (size_t)k->i;
    disc_accel(p, y, i, ai);
    if (cr_pl_is_wall(k))
        return -cr_pl_dot(n, ai, p->dim);
    size_t j = (size_t)k->j;
    disc_accel(p, y, j, aj);
    for (int d = 0; d < p->dim; d++)
        da[d] = aj[d] - ai[d];
    double acc = -cr_pl_dot(n, da, p->dim);
    if (!k->frozen) {
        double w[3] = {0};
        cr_pl_rel_vel(p, y, i, j, w);
        acc -= (cr_pl_dot(w, w, p->dim) - rate * rate) / dist;
    }
    return acc;
}

/* The slot's last root function: the force rate (located peaks). */
#define ROOT_FORCE_RATE 3

/* [closing, compression rate, force release, force rate] of slot s at the
 * scaled state y. The force rate is the sign of ḟ (cr_contact_force_rate_function)
 * while a damped contact pushes, else a constant below 0 (as the chain's:
 * no crossing at a closing where the force only falls). */
static void slot_roots(const cr_pool *p, const double *y, size_t s, double *gs, int with_rate)
{
    if (p->slot_contact[s] < 0) {
        /* the signs an open contact has: no spurious crossing when a slot fills */
        gs[0] = -1.0;
        gs[1] = 1.0;
        gs[2] = -1.0;
        gs[3] = -1.0;
        return;
    }
    double delta, rate;
    const cr_pool_contact *k = &p->c[p->slot_contact[s]];
    const cr_contact_params *lw = cr_pl_law(p, k);
    cr_pl_overlap(p, y, k, &delta, &rate);
    double d = delta / p->L;
    gs[0] = cr_root_nonzero(d - CR_EVENT_MARGIN);
    gs[1] = cr_root_nonzero(d > CR_EVENT_MARGIN ? rate / p->V : 1.0);
    if (lw->release == CR_RELEASE_FORCE && lw->C > 0.0 && d > CR_EVENT_MARGIN)
        gs[2] = cr_root_nonzero(cr_contact_release_function(lw, delta, rate, p->L));
    else
        gs[2] = gs[0];
    gs[ROOT_FORCE_RATE] = -1.0;
    /* the force rate needs the overlap's acceleration (both discs' contacts):
     * only when asked for (cr_pl_root_one on another function does not) */
    if (with_rate && lw->C > 0.0 && d > CR_EVENT_MARGIN &&
        cr_contact_raw_force(lw, delta, rate) > 0.0)
        gs[3] = cr_root_nonzero(
            cr_contact_force_rate_function(lw, delta, rate, overlap_accel(p, y, k)));
}

/* Disc i's rebuild root: (skin/2)² − |d − d_ref|² (scaled), zero when it has
 * moved half the skin since the last neighbour search. */
static double disc_root(const cr_pool *p, const double *y, size_t i)
{
    double h = 0.5 * p->skin / p->L, dv[3] = {0};
    cr_pl_moved(p, y, i, dv);
    return cr_root_nonzero(h * h - cr_pl_dot(dv, dv, p->dim));
}

/* Every root function (CR_PL_SR per slot, then one per disc) at the current
 * state p->y into glo: the start of the next search after setup, a restart
 * or a new region. */
void cr_pl_roots_afresh(cr_pool *p)
{
    const double *y = N_VGetArrayPointer(p->y);
    for (size_t s = 0; s < p->nslots; s++)
        slot_roots(p, y, s, p->glo + CR_PL_SR * s, 1);
    for (size_t i = 0; i < p->n; i++)
        p->glo[CR_PL_SR * p->nslots + i] = disc_root(p, y, i);
    p->gevals++;
}

/* Disc i has never moved: its displacement and velocity are exactly 0. */
static inline int still(const cr_pool *p, const double *y, size_t i)
{
    for (size_t q = 0; q < p->sd; q++)
        if (y[p->sd * i + q] != 0.0)
            return 0;
    return 1;
}

/* The root functions at the end of a step (state y) into g, knowing their
 * values at the start of the step in glo: the functions of slots whose discs
 * have never moved keep their values (a disc at rest with no force stays
 * exactly at rest), so only the region the motion reached is evaluated. */
void cr_pl_roots_step(cr_pool *p, const double *y, double *g)
{
    if (p->region) { /* only the live functions (region_live) can have changed */
        for (size_t c = 0; c < p->nlive;) {
            size_t q = p->live[c];
            if (q < CR_PL_SR * p->nslots) {
                const cr_pool_contact *k = &p->c[p->slot_contact[q / CR_PL_SR]];
                if (still(p, y, (size_t)k->i) && (cr_pl_is_wall(k) || still(p, y, (size_t)k->j)))
                    memcpy(g + q, p->glo + q, CR_PL_SR * sizeof(double)); /* as below */
                else
                    slot_roots(p, y, q / CR_PL_SR, g + q, 1);
                c += CR_PL_SR;
            } else {
                g[q] = disc_root(p, y, q - CR_PL_SR * p->nslots);
                c++;
            }
        }
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        p->hot[i] = still(p, y, i);
    for (size_t s = 0; s < p->nslots; s++) {
        long id = p->slot_contact[s];
        const cr_pool_contact *k = id >= 0 ? &p->c[id] : NULL;
        if (k && p->hot[k->i] && (cr_pl_is_wall(k) || p->hot[k->j]))
            memcpy(g + CR_PL_SR * s, p->glo + CR_PL_SR * s, CR_PL_SR * sizeof(double));
        else
            slot_roots(p, y, s, g + CR_PL_SR * s, 1);
    }
    for (size_t i = 0; i < p->n; i++)
        g[CR_PL_SR * p->nslots + i] =
            p->hot[i] ? p->glo[CR_PL_SR * p->nslots + i] : disc_root(p, y, i);
}

/* Root function q alone at the state y. */
double cr_pl_root_one(const cr_pool *p, const double *y, size_t q)
{
    if (q >= CR_PL_SR * p->nslots)
        return disc_root(p, y, q - CR_PL_SR * p->nslots);
    double gs[CR_PL_SR];
    slot_roots(p, y, q / CR_PL_SR, gs, q % CR_PL_SR == ROOT_FORCE_RATE);
    return gs[q % CR_PL_SR];
}

/*
 * The engine locates its events itself instead of CVODE's root finding, which
 * evaluates every root function of the pool (CR_PL_SR per candidate contact, one
 * per disc) and interpolates the whole state about ten times per event. Here
 * each step costs one evaluation of the root functions at its end; only those
 * that changed sign over the step are searched (Illinois, as CVODE's cvRcheck3,
 * to the same tolerance 100 ε (|t| + |h|)), and the other contacts are never
 * looked at again for that event.
 */

/* The full state p->y at the scaled time tau inside the last step. */
static void interpolate(cr_pool *p, double tau)
{
    CVodeGetDky(p->cvode, tau, 0, p->ya);
    if (p->region)
        cr_pl_fill_full(p, tau, N_VGetArrayPointer(p->ya), N_VGetArrayPointer(p->y));
}

/* The state and quadratures at the scaled time tau inside the last step.
 * Event times stay scaled: t/T·T need not give back the located τ, and the
 * state just before a root has its functions' old signs. */
void cr_pl_state_at(cr_pool *p, double tau)
{
    interpolate(p, tau);
    CVodeGetQuadDky(p->cvode, tau, 0, p->yQ);
    p->t = tau * p->T;
}

/* The root functions with different signs at p->tlo (glo) and the end of the
 * step (ghi): their indices in p->cand. After an event in the step (@p prev
 * candidates, > 0) only those can still differ: the others kept both values.
 * @return how many. */
size_t cr_pl_sign_changes(cr_pool *p, size_t prev)
{
    size_t nc = 0;
    if (prev) {
        for (size_t c = 0; c < prev; c++)
            if (cr_root_differ(p->glo[p->cand[c]], p->ghi[p->cand[c]]))
                p->cand[nc++] = p->cand[c];
        return nc;
    }
    if (p->region) {
        for (size_t c = 0; c < p->nlive; c++)
            if (cr_root_differ(p->glo[p->live[c]], p->ghi[p->live[c]]))
                p->cand[nc++] = p->live[c];
        return nc;
    }
    for (size_t q = 0; q < p->nroot; q++)
        if (cr_root_differ(p->glo[q], p->ghi[q]))
            p->cand[nc++] = q;
    return nc;
}

/*
 * Hidden crossings. The root functions are compared at the ends of a step
 * only, so one that crosses and comes back within a step goes unseen: a disc
 * grazing another overlaps it along a stretch of its path only 2√(2 R D) long
 * (D the deepest overlap), shorter than a free-flight step when D is a few
 * µm, and no step cap is short enough for every D. Such a function has an
 * extremum inside the step, where the motion that drives it turns from
 * towards its crossing to away (towards): a pair's centres from approaching
 * to separating, a disc from nearing a wall to leaving it, or from leaving
 * the place of the last neighbour search to coming back (rebuild roots). That
 * motion is linear in time in free flight (a·w grows by |w|² τ), so the
 * extremum is one secant away. Where the chord between the step's ends,
 * widened by how far the discs departed from straight flight, comes near the
 * crossing (may_cross), the function is evaluated at the extremum on the
 * interpolated state; if it has crossed there, the step's events are searched
 * up to that point first, where it is an ordinary sign change.
 */

/* How fast root function q (a closing or rebuild root) moves towards its
 * crossing at the state y, up to a positive factor: the approach of a
 * turning pair (−a·w, a in m and w scaled), the rate δ̇ of a frozen or wall contact, or a
 * disc's Δ·v away from its place at the last neighbour search. */
static inline double pair_towards(const cr_pool *p, const cr_pool_contact *k, const double *y)
{
    size_t i = (size_t)k->i, j = (size_t)k->j;
    const double *di = cr_pl_disp(p, y, i), *dj = cr_pl_disp(p, y, j);
    const double *vi = cr_pl_vel(p, y, i), *vj = cr_pl_vel(p, y, j);
    double a[3] = {0}, w[3] = {0};
    for (int d = 0; d < p->dim; d++) {
        a[d] = k->a0[d] + p->L * (dj[d] - di[d]);
        w[d] = vj[d] - vi[d];
    }
    return -cr_pl_dot(a, w, p->dim); /* m, scaled */
}

static double towards(const cr_pool *p, const double *y, size_t q)
{
    if (q >= CR_PL_SR * p->nslots) {
        size_t i = q - CR_PL_SR * p->nslots;
        double dv[3] = {0};
        cr_pl_moved(p, y, i, dv);
        return cr_pl_dot(dv, cr_pl_vel(p, y, i), p->dim);
    }
    const cr_pool_contact *k = &p->c[p->slot_contact[q / CR_PL_SR]];
    double delta, rate;
    if (k->frozen || cr_pl_is_wall(k)) {
        cr_pl_overlap(p, y, k, &delta, &rate);
        return rate;
    }
    return pair_towards(p, k, y);
}

/* Disc i's departure from straight flight over a step of scaled length dt
 * from ylo to yhi (scaled): |d_hi − d_lo − v_lo dt|. */
static double departure(const cr_pool *p, const double *ylo, const double *yhi, size_t i, double dt)
{
    const double *dlo = cr_pl_disp(p, ylo, i), *dhi = cr_pl_disp(p, yhi, i);
    const double *vlo = cr_pl_vel(p, ylo, i);
    double e[3] = {0};
    for (int d = 0; d < p->dim; d++)
        e[d] = dhi[d] - dlo[d] - vlo[d] * dt;
    return cr_pl_norm(e, p->dim);
}

/* Whether function q may cross at the fraction s of the step (its chord
 * estimate there, give or take the departures from straight flight). */
static int may_cross(const cr_pool *p, const double *ylo, const double *yhi, size_t q, double s,
                     double dt)
{
    int dim = p->dim;
    if (q >= CR_PL_SR * p->nslots) { /* rebuild root: |Δ| reaches half the skin */
        size_t i = q - CR_PL_SR * p->nslots;
        const double *dlo = cr_pl_disp(p, ylo, i), *dhi = cr_pl_disp(p, yhi, i);
        double dv[3] = {0};
        for (int d = 0; d < dim; d++)
            dv[d] = (1 - s) * dlo[d] + s * dhi[d] - p->dref[(size_t)dim * i + (size_t)d];
        return cr_pl_norm(dv, dim) + departure(p, ylo, yhi, i, dt) >= 0.5 * p->skin / p->L;
    }
    const cr_pool_contact *k = &p->c[p->slot_contact[q / CR_PL_SR]];
    size_t i = (size_t)k->i;
    double dev = departure(p, ylo, yhi, i, dt);
    if (cr_pl_is_wall(k) || k->frozen) { /* δ linear in the displacements */
        if (!cr_pl_is_wall(k))
            dev += departure(p, ylo, yhi, (size_t)k->j, dt);
        return (1 - s) * p->glo[q] + s * p->ghi[q] + dev >= 0.0;
    }
    size_t j = (size_t)k->j;
    dev += departure(p, ylo, yhi, j, dt);
    const double *ilo = cr_pl_disp(p, ylo, i), *jlo = cr_pl_disp(p, ylo, j);
    const double *ihi = cr_pl_disp(p, yhi, i), *jhi = cr_pl_disp(p, yhi, j);
    double a[3] = {0};
    for (int d = 0; d < dim; d++)
        a[d] = k->a0[d] / p->L + (1 - s) * (jlo[d] - ilo[d]) + s * (jhi[d] - ihi[d]);
    return cr_pl_norm(a, dim) - dev <= k->R / p->L;
}

/* p->y (and the compact state of a region) kept in p->ysave before the
 * first interpolation: it is the state at the low end of the search. */
static void save_low(cr_pool *p)
{
    size_t sd = p->sd;
    memcpy(p->ysave, N_VGetArrayPointer(p->y), sd * p->n * sizeof(double));
    if (p->region)
        memcpy(p->ysave + sd * p->n, N_VGetArrayPointer(p->ya), sd * p->na * sizeof(double));
}

static void restore_low(cr_pool *p)
{
    size_t sd = p->sd;
    memcpy(N_VGetArrayPointer(p->y), p->ysave, sd * p->n * sizeof(double));
    if (p->region)
        memcpy(N_VGetArrayPointer(p->ya), p->ysave + sd * p->n, sd * p->na * sizeof(double));
}

/* Function q turns from towards its crossing (at ylo, p->tlo) to away (at
 * yhi, taun): the time of its extremum by regula falsi on towards (exact in
 * one secant in free flight), or taun when it has not crossed there. *saved:
 * p->y is kept (save_low) and ylo points to the copy. */
static double extremum(cr_pool *p, const double **ylo, const double *yhi, size_t q, double taun,
                       int *saved)
{
    double flo = towards(p, *ylo, q), fhi = towards(p, yhi, q);
    if (!(flo > 0.0 && fhi < 0.0) || !may_cross(p, *ylo, yhi, q, flo / (flo - fhi), taun - p->tlo))
        return taun;
    if (!*saved) {
        save_low(p);
        *ylo = p->ysave;
        *saved = 1;
    }
    const double *y = N_VGetArrayPointer(p->y);
    double a = p->tlo, b = taun, scale = fmax(flo, -fhi);
    for (int it = 0; it < 4; it++) {
        double tm = a + (b - a) * flo / (flo - fhi);
        interpolate(p, tm);
        p->gevals++;
        double g = cr_pl_root_one(p, y, q), fm = towards(p, y, q);
        if (q < CR_PL_SR * p->nslots ? g > 0.0 : g < 0.0)
            return tm;
        if (fabs(fm) <= 1e-6 * scale)
            break; /* at the extremum, and it has not crossed */
        if (fm > 0.0)
            a = tm, flo = fm;
        else
            b = tm, fhi = fm;
    }
    return taun;
}

/* Function q (a closing function open, or a rebuild root inside, at both
 * ends of the search) turns from towards its crossing to away. Discs at rest
 * give 0 at both ends. A closing function must have room: to cross and come
 * back its discs travel at least the gaps at both ends (−g L each), and in
 * the step they travel at most @p reach (scaled). A turning pair, the common
 * case, is tested inline. */
static inline int turns(const cr_pool *p, const double *ylo, const double *yhi, size_t q,
                        double reach)
{
    if (q >= CR_PL_SR * p->nslots)
        return p->glo[q] > 0.0 && p->ghi[q] > 0.0 && towards(p, yhi, q) < 0.0 &&
               towards(p, ylo, q) > 0.0;
    long id = p->slot_contact[q / CR_PL_SR];
    if (id < 0 || p->glo[q] >= 0.0 || p->ghi[q] >= 0.0 || -(p->glo[q] + p->ghi[q]) > reach)
        return 0;
    const cr_pool_contact *k = &p->c[id];
    if (k->frozen || cr_pl_is_wall(k))
        return towards(p, yhi, q) < 0.0 && towards(p, ylo, q) > 0.0;
    return pair_towards(p, k, yhi) < 0.0 && pair_towards(p, k, ylo) > 0.0;
}

/* The largest squared speed (scaled) of a moving disc at either end of the
 * step: the integrated and flying ones in a region. */
static double fastest(const cr_pool *p, const double *ylo, const double *yhi)
{
    double v2 = 0.0;
    size_t n = p->region ? p->na + p->nfly : p->n;
    for (size_t k = 0; k < n; k++) {
        size_t i = !p->region ? k : (k < p->na ? p->act[k] : p->fly[k - p->na]);
        const double *vh = cr_pl_vel(p, yhi, i), *vl = cr_pl_vel(p, ylo, i);
        v2 = fmax(v2, fmax(cr_pl_dot(vh, vh, p->dim), cr_pl_dot(vl, vl, p->dim)));
    }
    return v2;
}

/*
 * The end of the search over the step from p->tlo (state p->y, root functions
 * p->glo) to taun (state ys, p->ghi): taun, or the earliest hidden crossing
 * before it. Then p->ysub holds the state there and p->ghi the root functions
 * at it, and p->y is unchanged. Only closing and rebuild roots are looked at
 * (a slot's functions are consecutive, also among the live ones).
 */
double cr_pl_hidden_end(cr_pool *p, double taun, const double *ys)
{
    const double *ylo = N_VGetArrayPointer(p->y);
    double tend = taun;
    int saved = 0;
    size_t nq = p->region ? p->nlive : p->nroot, ns = CR_PL_SR * p->nslots;
    double reach = 4.0 * sqrt(fastest(p, ylo, ys)) * (taun - p->tlo);
    for (size_t c = 0; c < nq;) {
        size_t q = p->region ? p->live[c] : c;
        c += q < ns ? CR_PL_SR : 1;
        if (turns(p, ylo, ys, q, reach))
            tend = fmin(tend, extremum(p, &ylo, ys, q, taun, &saved));
    }
    if (tend < taun) {
        interpolate(p, tend);
        memcpy(p->ysub, N_VGetArrayPointer(p->y), p->sd * p->n * sizeof(double));
        cr_pl_roots_step(p, p->ysub, p->ghi);
        p->gevals++;
        p->hidden++;
    }
    if (saved)
        restore_low(p);
    return tend;
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
        if (q >= CR_PL_SR * p->nslots)
            continue;
        if (q % CR_PL_SR == 0)
            crossing = q / CR_PL_SR;
        else if (crossing == q / CR_PL_SR)
            p->guide[c] = 0;
    }
}

/*
 * The first root in (tlo, thi] (scaled times) among the nc candidates, whose
 * values at the ends are in p->clo and p->chi: the Illinois method on the
 * interpolated state, evaluating the candidates only. @return its time (the
 * high end of the last bracket, where the located functions have their new
 * signs); p->rootsfound holds ±1 for the functions that cross by then.
 */
/* The candidates' values at the scaled time t (cr_root_locate's callback). */
static void candidate_values(void *user, double t, double *out)
{
    cr_pool *p = user;
    interpolate(p, t);
    const double *y = N_VGetArrayPointer(p->y);
    for (size_t c = 0; c < p->nsearch; c++)
        out[c] = cr_pl_root_one(p, y, p->cand[c]);
    p->gevals++;
}

double cr_pl_locate_roots(cr_pool *p, double tlo, double thi, double h, size_t nc)
{
    guides(p, nc);
    p->nsearch = nc;
    cr_root_bracket b = {nc, p->clo, p->chi, p->cmid, p->guide};
    return cr_root_search(&b, tlo, thi, cr_root_tolerance(thi, h), candidate_values, p, p->cand,
                          p->rootsfound, p->nroot);
}

static int push_event(cr_pool *p, long id, cr_event_kind kind)
{
    if (cr_event_room(&p->events, p->nev, &p->evcap) != 0)
        return CR_ERR_NOMEM;
    const double *y = N_VGetArrayPointer(p->y);
    const cr_pool_contact *k = &p->c[id];
    cr_event *e = &p->events[p->nev++];
    e->t = p->t;
    e->contact = (size_t)id;
    e->kind = kind;
    cr_pl_overlap(p, y, k, &e->overlap, &e->rate);
    e->force = cr_contact_force(cr_pl_law(p, k), e->overlap, e->rate);
    double pv[3] = {0};
    e->impulse = p->Pscale * cr_pl_impulse(p, k, pv);
    p->stats.events++;
    return CR_OK;
}

int cr_pl_handle_roots(cr_pool *p, int *need_rebuild)
{
    const double *y = N_VGetArrayPointer(p->y);
    int rc = CR_OK, restart = 0;
    for (size_t s = 0; s < p->nslots && rc == CR_OK; s++) {
        long id = p->slot_contact[s];
        if (id < 0)
            continue;
        const int *r = p->rootsfound + CR_PL_SR * s;
        double delta, rate;
        cr_pl_overlap(p, y, &p->c[id], &delta, &rate);
        int above = delta > CR_EVENT_MARGIN * p->L;
        if (r[0] > 0) {
            cr_pl_freeze_normal(p, y, &p->c[id]);
            p->c[id].tclose = p->t / p->T;
        }
        if ((r[0] < 0 || r[1] < 0) && p->hmax_contact == id) {
            /* its step limit (pool-run.c, retake) ends at its opening or
             * maximum compression */
            CVodeSetMaxStep(p->cvode, 0.0);
            p->hmax_contact = -1;
        }
        if (r[0] > 0 && p->region && !cr_pl_warm(p, &p->c[id]))
            p->need_region = 1; /* it reaches outside the region: the region grows */
        if (r[0]) {
            rc = push_event(p, id, r[0] > 0 ? CR_EVENT_CLOSE : CR_EVENT_OPEN);
            restart |= cr_contact_force_jumps(cr_pl_law(p, &p->c[id]), r[0] > 0);
        }
        if (r[1] && rc == CR_OK && above)
            rc = push_event(p, id, r[1] < 0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION);
        const cr_contact_params *lr = cr_pl_law(p, &p->c[id]);
        if (r[2] && rc == CR_OK && above && !r[0] && lr->release == CR_RELEASE_FORCE && lr->C > 0.0)
            rc = push_event(p, id, r[2] < 0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE);
        /* a force maximum while it pushes (not the jump at a closing or opening) */
        if (r[3] < 0 && rc == CR_OK && above && !r[0] && cr_contact_force(lr, delta, rate) > 0.0)
            rc = push_event(p, id, CR_EVENT_MAX_FORCE);
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->rootsfound[CR_PL_SR * p->nslots + i])
            *need_rebuild = 1;
    if (rc == CR_OK && restart && !*need_rebuild && !p->need_region)
        rc = cr_pl_restart(p, p->t / p->T, "CVodeReInit");
    return rc;
}
