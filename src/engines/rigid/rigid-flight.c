/*
 * The rigid engine between impacts: persistent contacts and free flight.
 *
 * Bodies joined by closed pairs move as one run: one acceleration, the pair
 * forces from the force balance along the run (a chain: cumulative sums, O(N)).
 * Which pairs in touch close is an LCP at acceleration level; the chain's
 * Delassus matrix WᵀM⁻¹W is a Z-matrix (negative off-diagonal), so growing the
 * closed set by every pair the fields press together (Chandrasekaran's
 * monotone scheme) reaches its solution with the forces staying ≥ 0.
 *
 * Free flight is exact without pendulums or drag (no field, or uniform gravity: every
 * body moves on a parabola, every gap is a quadratic in time whose first
 * downward zero is solved in closed form) and for free pendulums (Jacobi's
 * elliptic functions, rigid-pendulum.c); otherwise (a closed pair under
 * pendulums, a ball near the top, any air drag) it is integrated by CVODES, with one root
 * function per pair: the gap of an open pair, the force (plus the release
 * margin) of a closed one.
 */
#include <cvodes/cvodes.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_types.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "engines/common/integrator.h"
#include "engines/rigid/rigid-priv.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "cradle needs SUNDIALS built with double");

/* CVODES state of a rigid run (pendulums or drag only). */
typedef struct {
    SUNContext ctx;
    void *mem;
    N_Vector y, yQ;
    SUNNonlinearSolver nls;
    int *found;
    double *qlast; /* quadratures at the last return: impulses are booked as differences */
    int fresh;     /* the engine changed the state: re-initialise before flying on */
    int loaded;    /* a segment ran: the next load is a restart */
    cr_run_stats banked;
} flight_cv;

double cr_rigid_field_accel(const cr_rigid *r, size_t i, double d, double v)
{
    if (r->fixed[i])
        return 0.0;
    double a = r->gravity + cr_drag_accel(r->drag_kb[i], r->drag_kc[i], v);
    if (r->plength[i] > 0.0)
        a -= r->pg[i] * sin((r->x0[i] + d - r->pivot[i]) / r->plength[i]);
    return a;
}

/* Pairs f … f2 − 1 between two fixed bodies f < f2: the least compressive
 * distribution (the smallest pair force is 0). */
static void between_fixed(const cr_rigid *r, size_t f, size_t f2, const double *F, double *lam)
{
    double s = 0.0, smin = 0.0;
    for (size_t i = f + 1; i < f2; i++) {
        s += F[i];
        smin = fmin(smin, s);
    }
    s = 0.0;
    lam[f] = -smin;
    for (size_t i = f + 1; i < f2; i++) {
        s += F[i];
        lam[i] = s - smin;
    }
    (void)r;
}

void cr_rigid_run_balance(const cr_rigid *r, size_t i0, size_t i1, const double *F, double *a,
                          double *lam)
{
    size_t ff = i1 + 1, fl = i0;
    double sF = 0.0, sm = 0.0;
    for (size_t i = i0; i <= i1; i++) {
        if (r->fixed[i]) {
            ff = ff > i1 ? i : ff;
            fl = i;
        } else {
            sF += F[i];
            sm += r->mass[i];
        }
    }
    if (ff > i1) { /* a free run: m_i A = F_i + λ_{i−1} − λ_i */
        double A = sm > 0.0 ? sF / sm : 0.0, l = 0.0;
        for (size_t i = i0; i <= i1; i++) {
            a[i] = A;
            if (i < i1) {
                l += F[i] - r->mass[i] * A;
                lam[i] = l;
            }
        }
        return;
    }
    for (size_t i = i0; i <= i1; i++)
        a[i] = 0.0;
    double l = 0.0;
    for (size_t i = i0; i < ff; i++) { /* left of the first fixed body */
        l += F[i];
        lam[i] = l;
    }
    l = 0.0;
    for (size_t i = i1; i > fl; i--) { /* right of the last one, from λ_{i1} = 0 */
        l -= F[i];
        lam[i - 1] = l;
    }
    for (size_t f = ff; f < fl;) {
        size_t f2 = f + 1;
        while (!r->fixed[f2])
            f2++;
        between_fixed(r, f, f2, F, lam);
        f = f2;
    }
}

/* The balance of every run of bodies joined by pairs flagged in @p closed. A
 * lone body takes @p direct (its own acceleration or velocity): F/m would move
 * it by an ulp. */
static void for_runs(const cr_rigid *r, const int *closed, const double *F, const double *direct,
                     double *a, double *lam)
{
    for (size_t i = 0; i < r->drv.nb;) {
        size_t i1 = i;
        while (i1 + 1 < r->drv.nb && closed[i1])
            i1++;
        if (i1 == i)
            a[i] = r->fixed[i] ? 0.0 : direct[i];
        else
            cr_rigid_run_balance(r, i, i1, F, a, lam);
        if (i1 < r->nc)
            lam[i1] = 0.0; /* the open pair after the run */
        i = i1 + 1;
    }
}

/* The field accelerations (r->fa) and forces (r->work) of every body at
 * displacements @p d and velocities @p v. */
static void field_forces(const cr_rigid *r, const double *d, const double *v)
{
    double *F = r->work, *fa = r->fa;
    size_t nb = r->drv.nb, bytes = nb * sizeof(double);
    /* Without drag the fields depend on the displacements alone, and a flight
     * that ends at an output row is followed by the instant's settle at the
     * same ones: the last evaluation is kept (r->fields: d, F, fa, valid). */
    double *cd = r->fields, *cF = cd + nb, *ca = cF + nb, *valid = ca + nb;
    if (!r->drag && *valid != 0.0 && memcmp(cd, d, bytes) == 0) {
        memcpy(F, cF, bytes);
        memcpy(fa, ca, bytes);
        return;
    }
    for (size_t i = 0; i < nb; i++) {
        fa[i] = cr_rigid_field_accel(r, i, d[i], v[i]);
        F[i] = r->fixed[i] ? 0.0 : r->mass[i] * fa[i];
    }
    memcpy(cd, d, bytes);
    memcpy(cF, F, bytes);
    memcpy(ca, fa, bytes);
    *valid = 1.0;
}

/* Forces and accelerations with the pairs flagged in @p closed treated as
 * bilateral (r->work holds the field forces). */
static void forces_with(const cr_rigid *r, const int *closed, const double *d, const double *v,
                        double *a, double *lam)
{
    field_forces(r, d, v);
    for_runs(r, closed, r->work, r->fa, a, lam);
}

void cr_rigid_forces(const cr_rigid *r, const double *d, double *a, double *lam)
{
    forces_with(r, r->closed, d, r->v, a, lam);
}

/* ---- persistent contacts --------------------------------------------------- */

/* A pair that may close now: in touch, its bodies at rest relative to each
 * other, and not opened at this very instant. */
static int candidate(const cr_rigid *r, size_t c)
{
    return cr_rigid_in_touch(r, c) && fabs(cr_rigid_gamma(r, c)) <= r->drv.v_rest &&
           !r->released[c];
}

/* The acceleration-level LCP: grows the closed set from nothing by every
 * candidate the fields do not pull apart; a pair whose force turns negative
 * (roundoff only, for a Z-matrix) is dropped. Result in @p cl. */
static int solve_closed_set(cr_rigid *r, int *cl)
{
    double *a = r->acc, *lam = r->lambda;
    memset(cl, 0, r->nc * sizeof(int));
    /* the state does not change while the set grows: the fields (a sine per
     * pendulum) are evaluated once, each trial set only balances the runs */
    field_forces(r, r->d, r->v);
    for (size_t it = 0; it < 2 * r->nc + 4; it++) {
        for_runs(r, cl, r->work, r->fa, a, lam);
        int changed = 0;
        for (size_t c = 0; c < r->nc; c++) {
            if (!cl[c] && candidate(r, c) && a[c + 1] - a[c] <= r->a_tol) {
                cl[c] = 1;
                changed = 1;
            } else if (cl[c] && lam[c] < -r->f_tol) {
                cl[c] = 0;
                changed = 1;
            }
        }
        if (!changed)
            return CR_OK;
    }
    cr_set_msg(r->drv.err, sizeof r->drv.err, "t = %.9g s: the persistent contacts did not settle",
               r->drv.t);
    return CR_ERR_SOLVER;
}

/* Bodies of each closed run take the run's velocity (momentum kept, 0 with a
 * fixed body): they differ by at most the rest speed, and must not drift apart.
 * The impulses that takes are booked on the pairs. @return 1 when a velocity
 * changed. */
static int merge_velocities(cr_rigid *r, const int *cl)
{
    double *F = r->work2, *V = r->acc, *P = r->lambda, T0 = 0.0, T1 = 0.0;
    for (size_t i = 0; i < r->drv.nb; i++) {
        F[i] = r->fixed[i] ? 0.0 : r->mass[i] * r->v[i];
        T0 += r->fixed[i] ? 0.0 : 0.5 * r->mass[i] * r->v[i] * r->v[i];
    }
    for_runs(r, cl, F, r->v, V, P);
    int changed = 0;
    for (size_t i = 0; i < r->drv.nb; i++)
        if (!r->fixed[i]) {
            /* Σmv/Σm of equal velocities can differ from them by an ulp: not a
             * change that should restart the flight's integrator (on the 5-ball
             * pendulum cradle it did so at 937 of 25,000 output rows) */
            changed |= fabs(r->v[i] - V[i]) > 1e-13 * r->drv.V;
            r->v[i] = V[i];
            T1 += 0.5 * r->mass[i] * r->v[i] * r->v[i];
        }
    for (size_t c = 0; c < r->nc; c++)
        if (cl[c])
            r->impulse[c] += P[c];
    r->drv.dissipated += T0 - T1;
    return changed;
}

int cr_rigid_settle(cr_rigid *r)
{
    int *cl = r->settle_set;
    int rc = solve_closed_set(r, cl);
    if (rc == CR_OK) {
        int changed = merge_velocities(r, cl);
        size_t first = r->drv.nev;
        for (size_t c = 0; c < r->nc && rc == CR_OK; c++) {
            int was = r->closed[c];
            changed |= cl[c] != was;
            r->closed[c] = cl[c];
            if (cl[c] != was && r->drv.stats.outputs > 0) /* touching at the start: no event */
                rc = cr_rigid_push_event(r, c, cl[c] ? CR_EVENT_CLOSE : CR_EVENT_OPEN, 0.0,
                                         r->impulse[c]);
        }
        /* merge_velocities kept r->work and r->fa; without drag the fields
         * do not depend on the velocities it changed */
        if (r->drag)
            cr_rigid_forces(r, r->d, r->acc, r->lambda);
        else
            for_runs(r, r->closed, r->work, r->fa, r->acc, r->lambda);
        if (changed)
            cr_rigid_flight_touch(r);
        if (rc == CR_OK && r->drv.nev > first)
            rc = cr_system_emit_events(r->drv.sys, first);
    }
    return rc;
}

/* ---- exact flight ---------------------------------------------------------- */

/* The first τ in (0, horizon] where g + γτ + ½aτ² crosses 0 downwards, or
 * INFINITY (roots by the stable quadratic formula). */
static double first_closing(double g, double gam, double a, double horizon)
{
    double roots[2] = {INFINITY, INFINITY};
    if (a == 0.0) {
        roots[0] = gam < 0.0 ? -g / gam : INFINITY;
    } else {
        double disc = gam * gam - 2.0 * a * g;
        if (disc < 0.0)
            return INFINITY;
        double q = -0.5 * (gam + copysign(sqrt(disc), gam));
        roots[0] = q / (0.5 * a);
        roots[1] = q != 0.0 ? g / q : INFINITY;
    }
    double best = INFINITY;
    for (int k = 0; k < 2; k++)
        if (roots[k] > 0.0 && roots[k] <= horizon && gam + a * roots[k] < 0.0)
            best = fmin(best, roots[k]);
    return best;
}

/* Moves every body by τ on its parabola under the accelerations of the last
 * cr_rigid_next_closing; closed pairs take λτ of impulse. */
void cr_rigid_advance(cr_rigid *r, double tau)
{
    const double *a = r->acc;
    for (size_t i = 0; i < r->drv.nb; i++)
        if (!r->fixed[i]) {
            r->d[i] += r->v[i] * tau + 0.5 * a[i] * tau * tau;
            r->v[i] += a[i] * tau;
        }
    for (size_t c = 0; c < r->nc; c++)
        if (r->closed[c])
            r->impulse[c] += r->lambda[c] * tau;
}

double cr_rigid_next_closing(cr_rigid *r, double horizon)
{
    double *a = r->acc, tau = INFINITY;
    cr_rigid_forces(r, r->d, a, r->lambda); /* constant over the flight: uniform fields */
    for (size_t c = 0; c < r->nc; c++)
        if (r->on[c] && !r->closed[c])
            tau = fmin(tau, first_closing(cr_rigid_gap(r, c), cr_rigid_gamma(r, c), a[c + 1] - a[c],
                                          horizon));
    return tau;
}

/* ---- CVODES flight (pendulums, drag) ------------------------------------------- */

/* Scaled state: y[2i] = d_i / L, y[2i + 1] = v_i / V; time τ = t / T.
 * Positions into r->work2, velocities into r->work3. */
static void unpack(const cr_rigid *r, const double *y, double *d)
{
    for (size_t i = 0; i < r->drv.nb; i++) {
        d[i] = r->drv.L * y[2 * i];
        r->work3[i] = r->drv.V * y[2 * i + 1];
    }
}

/* The power air drag takes from the bodies at scaled state y (W). */
static double drag_power(const cr_rigid *r, const double *y)
{
    double P = 0.0;
    for (size_t i = 0; r->drag && i < r->drv.nb; i++) {
        double v = r->drv.V * y[2 * i + 1];
        P += r->fixed[i] ? 0.0 : cr_drag_power(r->mass[i], r->drag_kb[i], r->drag_kc[i], v);
    }
    return P;
}

static int cv_rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    (void)t;
    const cr_rigid *r = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv), *d = r->work2, *a = r->acc;
    unpack(r, y, d);
    /* λ is not needed here; the scratch of the pair forces takes it */
    forces_with(r, r->closed, d, r->work3, a, r->lambda);
    for (size_t i = 0; i < r->drv.nb; i++) {
        yd[2 * i] = r->fixed[i] ? 0.0 : y[2 * i + 1];
        yd[2 * i + 1] = r->fixed[i] ? 0.0 : a[i] * r->drv.T / r->drv.V;
    }
    return 0;
}

/* ∫ λ dt of the closed pairs, in units of mmax·V. */
static int cv_quad(sunrealtype t, N_Vector yv, N_Vector qv, void *user)
{
    (void)t;
    const cr_rigid *r = user;
    double *q = N_VGetArrayPointer(qv), *d = r->work2;
    const double *y = N_VGetArrayPointer(yv);
    unpack(r, y, d);
    forces_with(r, r->closed, d, r->work3, r->acc, r->lambda);
    q[0] = 0.0; /* a lone body: one impulse quadrature still */
    for (size_t c = 0; c < r->nc; c++)
        q[c] = r->closed[c] ? r->lambda[c] * r->drv.T / (r->mmax * r->drv.V) : 0.0;
    /* the last quadrature: the work drag dissipated, in units of mmax·V² */
    q[r->nc ? r->nc : 1] = drag_power(r, y) * r->drv.T / (r->mmax * r->drv.V * r->drv.V);
    return 0;
}

/* One root per pair, all crossing downwards: the gap of an open pair (an
 * impact or landing), λ + the release margin of a closed one (it opens). */
static int cv_roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *user)
{
    (void)t;
    const cr_rigid *r = user;
    const double *y = N_VGetArrayPointer(yv);
    double *d = r->work2;
    unpack(r, y, d);
    forces_with(r, r->closed, d, r->work3, r->acc, r->lambda);
    g[0] = 1.0; /* a lone body: CVODES still has one root function */
    for (size_t c = 0; c < r->nc; c++) {
        double gc;
        if (!r->on[c])
            gc = 1.0;
        else if (r->closed[c])
            gc = (r->lambda[c] + r->f_tol) / (r->mmax * r->amax);
        else
            gc = (r->g0[c] + (r->fixed[c + 1] ? 0.0 : d[c + 1]) - (r->fixed[c] ? 0.0 : d[c])) /
                 r->drv.L;
        g[c] = cr_root_nonzero(gc);
    }
    return 0;
}

void cr_rigid_flight_free(cr_rigid *r)
{
    cr_rigid_elliptic_free(r);
    flight_cv *f = r->cv;
    if (!f)
        return;
    if (f->mem)
        CVodeFree(&f->mem);
    if (f->nls)
        SUNNonlinSolFree(f->nls);
    if (f->y)
        N_VDestroy(f->y);
    if (f->yQ)
        N_VDestroy(f->yQ);
    if (f->ctx)
        SUNContext_Free(&f->ctx);
    free(f->found);
    free(f->qlast);
    free(f);
    r->cv = NULL;
}

/* Adams with fixed-point iteration: pendulum fields are smooth and not stiff,
 * and no Jacobian is needed. */
static int cv_setup(cr_rigid *r)
{
    flight_cv *f = calloc(1, sizeof(*f));
    if (!f)
        return CR_ERR_NOMEM;
    r->cv = f;
    size_t nc = r->nc ? r->nc : 1;
    f->found = calloc(nc, sizeof(int));
    f->qlast = calloc(nc + 1, sizeof(double));
    if (!f->found || !f->qlast || SUNContext_Create(NULL, &f->ctx) != 0)
        return CR_ERR_NOMEM;
    f->y = N_VNew_Serial((sunindextype)(2 * r->drv.nb), f->ctx);
    f->yQ = N_VNew_Serial((sunindextype)(nc + 1), f->ctx);
    f->mem = CVodeCreate(CV_ADAMS, f->ctx);
    f->nls = f->y ? SUNNonlinSol_FixedPoint(f->y, 0, f->ctx) : NULL;
    if (!f->y || !f->yQ || !f->mem || !f->nls)
        return CR_ERR_NOMEM;
    N_VConst(0.0, f->y);
    N_VConst(0.0, f->yQ);
    int flag = cr_cvode_init(f->mem, cv_rhs, f->y, cv_quad, f->yQ, r, r->rtol, r->atol, r->drv.err);
    if (flag == CV_SUCCESS)
        flag = CVodeSetNonlinearSolver(f->mem, f->nls);
    if (flag == CV_SUCCESS)
        flag = CVodeRootInit(f->mem, (int)nc, cv_roots);
    int *dir = malloc(nc * sizeof(int));
    for (size_t c = 0; dir && c < nc; c++)
        dir[c] = -1;
    if (flag == CV_SUCCESS && dir)
        flag = CVodeSetRootDirection(f->mem, dir);
    free(dir);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(r->drv.err, "CVODES setup", r->drv.t, flag);
    f->fresh = 1;
    return CR_OK;
}

/* CVODE's counters of the current segment added to @p banked. Not
 * cr_cvode_counters: under fixed-point iteration there is no linear solver,
 * and asking for its Jacobian count writes an error into r->drv.err. */
static void counters(const flight_cv *f, const cr_run_stats *banked, cr_run_stats *out)
{
    long steps = 0, rhs = 0, roots = 0, iters = 0;
    CVodeGetNumSteps(f->mem, &steps);
    CVodeGetNumRhsEvals(f->mem, &rhs);
    CVodeGetNumGEvals(f->mem, &roots);
    CVodeGetNumNonlinSolvIters(f->mem, &iters);
    out->steps = banked->steps + steps;
    out->rhs_evals = banked->rhs_evals + rhs;
    out->root_evals = banked->root_evals + roots;
    out->nonlin_iters = banked->nonlin_iters + iters;
}

/* The state as the engine left it, into CVODES (history restarted; CVodeReInit
 * zeroes the counters, so they are banked first). */
static int cv_load(cr_rigid *r)
{
    flight_cv *f = r->cv;
    double *y = N_VGetArrayPointer(f->y);
    for (size_t i = 0; i < r->drv.nb; i++) {
        y[2 * i] = r->d[i] / r->drv.L;
        y[2 * i + 1] = r->v[i] / r->drv.V;
    }
    N_VConst(0.0, f->yQ);
    memset(f->qlast, 0, ((r->nc ? r->nc : 1) + 1) * sizeof(double));
    counters(f, &f->banked, &f->banked);
    int flag = CVodeReInit(f->mem, r->drv.t / r->drv.T, f->y);
    if (flag == CV_SUCCESS)
        flag = CVodeQuadReInit(f->mem, f->yQ);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(r->drv.err, "CVodeReInit", r->drv.t, flag);
    r->drv.stats.restarts += f->loaded;
    f->loaded = 1;
    f->fresh = 0;
    return CR_OK;
}

/* CVODES' state and impulses back into the engine. */
static void cv_store(cr_rigid *r)
{
    flight_cv *f = r->cv;
    const double *y = N_VGetArrayPointer(f->y), *q = N_VGetArrayPointer(f->yQ);
    for (size_t i = 0; i < r->drv.nb; i++)
        if (!r->fixed[i]) {
            r->d[i] = r->drv.L * y[2 * i];
            r->v[i] = r->drv.V * y[2 * i + 1];
        }
    for (size_t c = 0; c < r->nc; c++) {
        r->impulse[c] += r->mmax * r->drv.V * (q[c] - f->qlast[c]);
        f->qlast[c] = q[c];
    }
    size_t kd = r->nc ? r->nc : 1; /* drag's dissipated work */
    r->drv.dissipated += r->mmax * r->drv.V * r->drv.V * (q[kd] - f->qlast[kd]);
    f->qlast[kd] = q[kd];
    cr_rigid_forces(r, r->d, r->acc, r->lambda);
}

/* Closed pairs whose force crossed the release margin open; open pairs whose
 * gap closed are left to cr_rigid_resolve and cr_rigid_settle. */
static int cv_releases(cr_rigid *r)
{
    flight_cv *f = r->cv;
    int flag = CVodeGetRootInfo(f->mem, f->found);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(r->drv.err, "CVodeGetRootInfo", r->drv.t, flag);
    size_t first = r->drv.nev;
    int rc = CR_OK;
    for (size_t c = 0; c < r->nc && rc == CR_OK; c++)
        if (f->found[c] && r->closed[c]) {
            r->closed[c] = 0;
            r->released[c] = 1;
            rc = cr_rigid_push_event(r, c, CR_EVENT_OPEN, 0.0, r->impulse[c]);
        }
    cr_rigid_forces(r, r->d, r->acc, r->lambda);
    if (rc == CR_OK && r->drv.nev > first)
        rc = cr_system_emit_events(r->drv.sys, first);
    return rc;
}

static int fly_cvodes(cr_rigid *r, double t_target, int *hit)
{
    int rc = r->cv ? CR_OK : cv_setup(r);
    flight_cv *f = r->cv;
    if (rc == CR_OK && f->fresh)
        rc = cv_load(r);
    if (rc != CR_OK)
        return rc == CR_ERR_NOMEM ? (cr_set_msg(r->drv.err, sizeof r->drv.err, "out of memory"), rc)
                                  : rc;
    /* CVODES steps past an output time and interpolates there (a stop at
     * every row cost a step per row: 34,420 steps for 5,803 on the 5-ball
     * pendulum cradle's 25,000 rows); it stops at the run's end only, where
     * the state must be exact and nothing follows */
    double stop = isfinite(r->drv.t_stop) ? r->drv.t_stop : t_target;
    CVodeSetStopTime(f->mem, stop / r->drv.T);
    sunrealtype tret;
    int flag = CVode(f->mem, t_target / r->drv.T, f->y, &tret, CV_NORMAL);
    if (flag < 0)
        return cr_cvode_fail(r->drv.err, "CVode", r->drv.t, flag);
    CVodeGetQuad(f->mem, &tret, f->yQ);
    r->drv.t = flag == CV_ROOT_RETURN ? tret * r->drv.T : t_target;
    cv_store(r);
    *hit = flag == CV_ROOT_RETURN;
    if (*hit) /* whatever the engine does next, the history starts afresh */
        f->fresh = 1;
    return *hit ? cv_releases(r) : CR_OK;
}

/* Pendulums: on their closed forms where they fit (rigid-pendulum.c), else by
 * CVODES; whichever did not fly loads the state afresh next time. */
static int fly_pendulums(cr_rigid *r, double t_target, int *hit)
{
    /* drag: no closed form, CVODES integrates */
    int rc =
        r->flight_cvodes || r->drag ? CR_RIGID_NOT_EXACT : cr_rigid_fly_elliptic(r, t_target, hit);
    if (rc == CR_OK && r->cv)
        ((flight_cv *)r->cv)->fresh = 1;
    if (rc != CR_RIGID_NOT_EXACT)
        return rc;
    cr_rigid_elliptic_touch(r);
    return fly_cvodes(r, t_target, hit);
}

int cr_rigid_fly(cr_rigid *r, double t_target, int *hit)
{
    double t0 = r->drv.t;
    int rc = r->pendulums || r->drag ? fly_pendulums(r, t_target, hit)
                                     : cr_rigid_driver_fly_exact(r, t_target, hit);
    if (r->drv.t > t0)
        memset(r->released, 0, r->nc * sizeof(int));
    return rc;
}

/* The engine changed the state (an impact, a merge): CVODES starts afresh and
 * the closed forms are built again. */
void cr_rigid_flight_touch(cr_rigid *r)
{
    if (r->cv)
        ((flight_cv *)r->cv)->fresh = 1;
    cr_rigid_elliptic_touch(r);
}

void cr_rigid_flight_stats(const cr_rigid *r, cr_run_stats *st)
{
    /* CVODES' counters added to the engine's (exact flights count a step each) */
    const flight_cv *f = r->cv;
    if (f && f->mem) {
        cr_run_stats cv = {0};
        counters(f, &f->banked, &cv);
        st->steps += cv.steps;
        st->rhs_evals += cv.rhs_evals;
        st->root_evals += cv.root_evals;
        st->nonlin_iters += cv.nonlin_iters;
    }
}
