/*
 * The window (active region): its intervals, its layout over them, its
 * CVODES instance and solver, the setup at t = 0 and its rebuilds.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "engines/common/integrator.h"
#include "engines/common/nvector-small.h"

/* Quiet contacts whose energy speed (cr_sm_energy_speed) reaches REGION_SPEED·rtol·V
 * stay in the window; below it their force is dropped in free flight (and an
 * approaching pair locks), which changes velocities by less than that. The
 * whole chain's own global error on 100 beads is of this order: 1.3e-10 V at
 * rtol 1e-12 (linear chain, against rtol 1e-13), 6.7e-8 V at rtol 1e-10 (Hertz
 * chain, against rtol 1e-12). A fixed speed instead (1e-10 V) kept the wake of
 * a 1000-bead chain at rtol 1e-10 in the window: 817 bodies, 8 times the cost. */
#define REGION_SPEED 100.0

/* Frees the window's stepper and solver; their counters are banked first. */
void cr_sm_window_free(cr_sim *s)
{
    cr_sm_stepper_free(s);
    if (s->LS)
        SUNLinSolFree(s->LS);
    if (s->A)
        SUNMatDestroy(s->A);
    if (s->NLS)
        SUNNonlinSolFree(s->NLS);
    s->NLS = NULL;
    if (s->dky)
        N_VDestroyVectorArray(s->dky, CR_SM_ADAMS_MAX_ORDER + 1);
    s->dky = NULL;
    if (s->y)
        N_VDestroy(s->y);
    if (s->yQ)
        N_VDestroy(s->yQ);
    s->LS = NULL;
    s->A = NULL;
    s->y = s->yQ = NULL;
}

/* -- the window -- */

/* Intervals (nlo, nhi) of the bodies of the sorted binding contacts
 * bind[0 .. n), each widened by the padding; @return their number. */
static size_t intervals_of(cr_sim *s, size_t n)
{
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t c = s->bind[j];
        size_t lo = c > s->pad ? c - s->pad : 0;
        size_t hi = c + 1 + s->pad < s->nb ? c + 1 + s->pad : s->nb - 1;
        if (m > 0 && lo <= s->nhi[m - 1] + 1) {
            if (hi > s->nhi[m - 1])
                s->nhi[m - 1] = hi;
        } else {
            s->nlo[m] = lo;
            s->nhi[m] = hi;
            m++;
        }
    }
    return m;
}

/* Returns the window's states to free flight at τ and banks its quadratures. */
static void window_dissolve(cr_sim *s)
{
    if (s->y) {
        const double *y = N_VGetArrayPointer(s->y), *q = N_VGetArrayPointer(s->yQ);
        for (size_t k = 0; k < s->nint; k++)
            for (size_t i = s->ilo[k]; i <= s->ihi[k]; i++) {
                size_t j = s->ybody[i];
                s->grp[i] = s->gfirst[i] = s->glast[i] = i;
                s->off[i] = 0.0;
                s->g0[i] = s->fixed[i] ? 0.0 : y[j];
                s->gv[i] = s->fixed[i] ? 0.0 : y[j + 1];
                s->gt[i] = s->tau;
                s->gm[i] = s->fixed[i] ? INFINITY : s->mass[i];
                s->ybody[i] = CR_SM_NONE;
            }
        for (size_t j = 0; j < s->nwc; j++) {
            size_t c = s->wcon[j];
            s->ref_o[c] = y[s->yovl[c]];
            s->ref_tc[c] = s->tau;
            if (s->yquad[c] != CR_SM_NONE)
                s->Pbank[c] += q[s->yquad[c]];
            s->yovl[c] = s->yquad[c] = CR_SM_NONE;
        }
        s->Wbank += q[s->nq];
    }
    cr_sm_window_free(s);
    s->nint = s->nwc = s->nwb = s->ny = s->nq = s->n_contact_roots = s->n_root_blocks = s->nrf = 0;
}

/* ---- integration method --------------------------------------------------- */

/* Chains of more bodies run Adams with fixed-point iteration under auto. */
#define ERK_MAX_BODIES 100

/* The method a run uses: the one asked for, or for CR_METHOD_AUTO, for a chain
 * with neither links nor damped contacts ARKODE's explicit Runge-Kutta
 * (ERKStep) up to ERK_MAX_BODIES bodies and Adams with fixed-point iteration
 * beyond, and BDF otherwise (docs/performance.md, "Explicit Runge-Kutta").
 * - ERK against fixed point at equal error of the final velocities: 1.9x
 *   faster on the 5-ball cradle (1e-6), 2.4x on the 3-ball chain (1e-8), about
 *   1.5x on 10 and 30 beads, even at 100 and on 1000 beads to bead 900 (1e-6);
 *   on a 10⁴-bead traversal at 1e-6 fixed point is 2x faster (its global
 *   error falls faster with rtol: 7.9e-7 at 1e-11, ERK 3.1e-6). A pulse's
 *   timing error accumulates over the contacts it crosses; the threshold
 *   keeps the long chains on the method that was measured better there.
 * - A link is a spring the rods of a chain hold together with, far stiffer
 *   than the contacts' time scale (models/glocker-rods.yaml): fixed-point
 *   iteration converges only while h·‖∂f/∂y‖ < 1, Newton's does not need it.
 * - A heavy damper is stiff the same way (ζ = 11: fixed point 3.5 to 8 times
 *   slower than BDF), a light one is not (ζ ≤ 4: as fast or faster); but
 *   under fixed-point iteration the impulse quadratures follow the velocity
 *   states only to the corrector's tolerance (max |m Δv − ΔP| 2e-10 of the
 *   striker's momentum on the damped cradle at rtol 1e-10, BDF 6e-12). The
 *   monitor's field-work estimate then reads 3e-12 of T⁻ where no field
 *   acts, and the comparator fits GDI's ε to damped episodes' κ to 1e-12
 *   (tests/test-compare.c); the gain would be 10 to 40 %. Damped chains stay
 *   with BDF; `adams-fixed-point` or `erk` asks for another. */
cr_method cr_sim_method(const cr_sim *s)
{
    if (s->method != CR_METHOD_AUTO)
        return s->method;
    if (s->stiff_pairs)
        return CR_METHOD_BDF;
    if (s->auto_explicit != CR_METHOD_AUTO)
        return s->auto_explicit;
    if (s->conserve) /* integration.accuracy: ERK with the energy projection */
        return CR_METHOD_ERK;
    return s->nb <= ERK_MAX_BODIES ? CR_METHOD_ERK : CR_METHOD_ADAMS_FIXED_POINT;
}

/* The nonlinear solver of the window's CVODES instance: fixed-point iteration
 * (no Jacobian, no linear algebra: each iteration is one RHS), or Newton with
 * the banded LU of the exact Jacobian (bandwidth 3, the interleaved layout).
 * Returns a CVODE flag (CV_MEM_FAIL: out of memory). */
static int attach_solver(cr_sim *s, cr_method method)
{
    if (method == CR_METHOD_ADAMS_FIXED_POINT) {
        s->NLS = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
        return s->NLS ? CVodeSetNonlinearSolver(s->stepper, s->NLS) : CV_MEM_FAIL;
    }
    sunindextype ny = (sunindextype)s->ny, bw = ny > 3 ? 3 : ny - 1;
    s->A = SUNBandMatrix(ny, bw, bw, s->ctx);
    s->LS = s->A ? SUNLinSol_Band(s->y, s->A, s->ctx) : NULL;
    if (!s->A || !s->LS)
        return CV_MEM_FAIL;
    int flag = CVodeSetLinearSolver(s->stepper, s->LS, s->A);
    return flag == CV_SUCCESS ? CVodeSetJacFn(s->stepper, cr_sm_jac) : flag;
}

/* Lays the window's states out over the intervals nlo/nhi (n of them): each
 * interval's left contact, then per body its d and v and the overlap on its
 * right; the internal contacts' impulses; the root contacts' blocks. */
static void window_layout(cr_sim *s, size_t n)
{
    size_t *t = s->ilo;
    s->ilo = s->nlo;
    s->nlo = t;
    t = s->ihi;
    s->ihi = s->nhi;
    s->nhi = t;
    s->nint = n;
    /* bodies joining from a locked group free the whole group first */
    for (size_t m = 0; m < n; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++)
            if (s->ybody[i] == CR_SM_NONE)
                cr_sm_unlock_group(s, i);
    size_t k = 0, q = 0, nw = 0, nr = 0, nbw = 0, nroot = 0, npeak = 0;
    for (size_t m = 0; m < n; m++) {
        size_t lo = s->ilo[m], hi = s->ihi[m];
        if (lo > 0)
            s->yovl[lo - 1] = k++;
        for (size_t i = lo; i <= hi; i++, nbw++) {
            s->ybody[i] = k;
            k += 2;
            if (i < s->nc)
                s->yovl[i] = k++;
        }
        for (size_t c = cr_sm_icon_first(lo); c < cr_sm_icon_end(s, hi); c++) {
            s->wcon[nw++] = c;
            if (c >= lo && c < hi)
                s->yquad[c] = q++;
            if (s->contact_on[c]) {
                s->roff[nr] = nroot;
                size_t end = nroot + cr_sm_block_size(s, c);
                npeak += cr_sm_peak_root(s, c) != 0;
                for (; nroot < end; nroot++)
                    s->rblock[nroot] = nr;
                s->rootk[c] = nr;
                s->root_contact[nr++] = c;
            }
        }
    }
    s->n_contact_roots = nr;
    for (size_t m = 0; m < n; m++) /* the swing extremes' blocks, after the contacts' */
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++)
            if (cr_sm_swing_ball(s, i)) {
                s->roff[nr] = nroot;
                s->rblock[nroot++] = nr;
                s->root_contact[nr++] = i;
            }
    s->roff[nr] = nroot;
    s->n_root_blocks = nr;
    s->ny = k;
    s->nq = q;
    s->nwc = nw;
    s->nwb = nbw;
    s->stats.windows += n > 0;
    if ((long)nbw > s->stats.max_window)
        s->stats.max_window = (long)nbw;
    s->nrf = nroot;
    s->npeak = npeak;
}

/* The window's state and quadrature vectors, filled from the free flight of
 * its bodies and contacts. */
static int window_states(cr_sim *s, cr_method method)
{
    /* ERKStep has no quadratures */
    s->qstate = (s->qstate_ok && method == CR_METHOD_ADAMS_FIXED_POINT) || method == CR_METHOD_ERK;
    sunindextype nq1 = (sunindextype)(s->nq + 1);
    s->y = cr_nvector_small((sunindextype)s->ny + (s->qstate ? nq1 : 0), s->ctx);
    if (!s->y)
        return CR_ERR_NOMEM;
    s->yQ = s->qstate ? N_VMake_Serial(nq1, N_VGetArrayPointer(s->y) + s->ny, s->ctx)
                      : cr_nvector_small(nq1, s->ctx);
    if (!s->yQ)
        return CR_ERR_NOMEM;
    double *y = N_VGetArrayPointer(s->y);
    for (size_t m = 0; m < s->nint; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++) {
            y[s->ybody[i]] = cr_sm_fly_dis(s, i);
            y[s->ybody[i] + 1] = cr_sm_fly_vel(s, i);
        }
    for (size_t j = 0; j < s->nwc; j++)
        y[s->yovl[s->wcon[j]]] = cr_sm_fly_ovl(s, s->wcon[j]);
    N_VConst(0.0, s->yQ);
    return CR_OK;
}

/* The window's absolute tolerance on the scaled states: the model's, at most
 * WINDOW_ATOL·rtol. At a larger atol the states near the atol level (the
 * pulse's leading edge and the pads: δ, v, d below atol/rtol; the impulses of
 * contacts not yet reached) decide CVODE's order after every rebuild's restart,
 * and Adams stayed at order 5 to 6 where the whole chain (never restarted) ran
 * at 7: the pulse lost energy steadily, a 300-bead chain at rtol 1e-10,
 * atol 1e-12 kappa - 1 = -6.0e-8 against +1.3e-8 for the whole chain; with
 * atol ≤ rtol/1000 the window runs at order 7 and -1.8e-9 (docs/performance.md,
 * "Active region"). The whole chain keeps the model's atol, and so does BDF,
 * whose order is at most 5 in both and which lost no more in the window than
 * in the whole chain (-5.2e-8 against -3.3e-7). ERK keeps the floor too:
 * without it the 1000-bead chain at rtol 1e-8 ended 1.0e-4 V off the
 * reference instead of 3.7e-5 (2.1x at rtol 1e-10) for 8-12 % less CPU. */
#define WINDOW_ATOL 1e-3

/* Starts the stepper on the window's states at τ: method, tolerances, stop
 * time, solver, and the root functions (CVODE's, or the engine's own). */
static int window_stepper(cr_sim *s, cr_method method)
{
    /* a window of every body (a 5-ball cradle) is the whole chain: the floor
     * there only cost steps (the default model 458 -> 511) */
    int every_body = s->whole || s->nwb == s->nb;
    double atol =
        every_body || method == CR_METHOD_BDF ? s->atol : fmin(s->atol, WINDOW_ATOL * s->rtol);
    s->adams_field =
        (method == CR_METHOD_ADAMS || method == CR_METHOD_ADAMS_FIXED_POINT) && s->has_fields;
    int flag = cr_sm_stepper_create(s, method, atol);
    if (!s->stepper)
        return CR_ERR_NOMEM;
    if (flag != CV_SUCCESS)
        return cr_sm_solver_fail(s, s->erk ? "ERKStep setup" : "CVODE setup", flag);

    if (!s->erk) /* ERKStep: no solver, and the engine's own roots */
        flag = attach_solver(s, method);
    if (flag == CV_MEM_FAIL)
        return CR_ERR_NOMEM;
    if (flag == CV_SUCCESS && s->nrf > 0 && !s->own_roots) {
        s->nroots = (int)s->nrf;
        flag = CVodeRootInit(s->stepper, s->nroots, cr_sm_roots);
    }
    if (flag != CV_SUCCESS)
        return cr_sm_solver_fail(s, "CVODE setup", flag);
    if (s->own_roots)
        cr_sm_roots_afresh(s);
    return CR_OK;
}

/* Lays the window out over the intervals nlo/nhi (n of them) at τ, from the
 * free flight of its bodies and contacts, and starts its stepper. */
static int window_build(cr_sim *s, size_t n)
{
    window_layout(s, n);
    if (n == 0)
        return CR_OK;
    cr_method method = cr_sim_method(s);
    int rc = window_states(s, method);
    if (rc == CR_OK)
        rc = window_stepper(s, method);
    if (rc == CR_OK)
        return CR_OK;
    /* back to free flight from the same states: the getters stay valid */
    for (size_t m = 0; m < n; m++)
        for (size_t i = s->ilo[m]; i <= s->ihi[m]; i++)
            s->ybody[i] = CR_SM_NONE;
    for (size_t j = 0; j < s->nwc; j++)
        s->yovl[s->wcon[j]] = s->yquad[s->wcon[j]] = CR_SM_NONE;
    cr_sm_window_free(s);
    s->nint = s->nwc = s->nwb = s->ny = s->nq = s->n_contact_roots = s->n_root_blocks = s->nrf = 0;
    return rc;
}

/* A new window at τ around the binding contacts bind[0 .. nbind) (sorted,
 * unique): the old one's states go to free flight, contacts that leave it get
 * their free-flight events, contacts that enter it lose theirs. */
static int rebuild(cr_sim *s, size_t nbind)
{
    size_t nold = s->nwc;
    window_dissolve(s);
    size_t *old = s->wcon; /* the old list stays readable in the spare array */
    s->wcon = s->wcon2;
    s->wcon2 = old;
    int rc = window_build(s, intervals_of(s, nbind));
    s->rebuilds++;
    for (size_t j = 0; j < nold && rc == CR_OK; j++) {
        size_t c = old[j];
        if (s->yovl[c] == CR_SM_NONE) {
            s->cwin[c] = 0;
            rc = cr_sm_predict(s, c);
        }
    }
    for (size_t j = 0; j < s->nwc; j++) {
        size_t c = s->wcon[j];
        if (!s->cwin[c]) {
            s->cwin[c] = 1;
            s->stamp[c]++;
            cr_sm_uncount(s, c);
        }
    }
    return rc;
}

/* The first window at τ = 0: the whole chain, or the binding contacts padded. */
int cr_sm_setup(cr_sim *s)
{
    if (SUNContext_Create(NULL, &s->ctx) != 0)
        return CR_ERR_NOMEM;
    s->tau = 0.0;
    s->region_speed = REGION_SPEED * s->rtol;
    s->own_roots |= cr_sim_method(s) == CR_METHOD_ERK; /* ERKStep finds no roots */
    cr_sm_set_wake_levels(s);
    cr_sm_init_quiet(s);
    size_t n = 0;
    if (s->whole && s->nb > 0) {
        s->nlo[0] = 0;
        s->nhi[0] = s->nb - 1;
        n = 1;
    } else if (!s->whole) {
        size_t nbind = 0;
        for (size_t c = 0; c < s->nc; c++)
            if (cr_sm_binds(s, c))
                s->bind[nbind++] = c;
        n = intervals_of(s, nbind);
    }
    int rc = window_build(s, n);
    s->e_true = cr_sm_window_energy(s);
    for (size_t c = 0; c < s->nc && rc == CR_OK; c++) {
        if (s->yovl[c] != CR_SM_NONE)
            s->cwin[c] = 1;
        else
            rc = cr_sm_predict(s, c);
    }
    return rc;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* After the events of one instant: the window follows the binding contacts
 * (s->bind[0 .. nextra) holds outside contacts that now bind). It is rebuilt
 * when a contact outside it or on its boundary binds, when nothing in it binds
 * any more (its bodies fly freely), or when it holds more than twice the
 * padding beyond what it needs; otherwise a force jump restarts it, and so does
 * a change of speed of a boundary's outside neighbour (@p bump: a lock). */
int cr_sm_update_region(cr_sim *s, int restart, int bump, size_t nextra)
{
    int need = 0;
    if (!s->whole) {
        size_t nbind = nextra;
        need = nextra > 0;
        for (size_t j = 0; j < s->nwc; j++) {
            size_t c = s->wcon[j];
            if (!cr_sm_binds(s, c))
                continue;
            need |= s->ybody[c] == CR_SM_NONE || s->ybody[c + 1] == CR_SM_NONE;
            s->bind[nbind++] = c;
        }
        if (nextra > 0)
            qsort(s->bind, nbind, sizeof(size_t), cmp_size);
        need |= nbind == 0 && s->nint > 0;
        if (!need && nbind > 0) {
            size_t m = intervals_of(s, nbind), bodies = 0;
            for (size_t k = 0; k < m; k++)
                bodies += s->nhi[k] - s->nlo[k] + 1;
            need = s->nwb > bodies + 2 * s->pad;
        }
        if (need) {
            cr_sm_project_energy(s);
            double defect = s->e_true - cr_sm_window_energy(s);
            int rc = rebuild(s, nbind);
            if (rc != CR_OK)
                return rc;
            /* an empty window keeps no energy: what is left of a refused
             * correction goes with the bodies into free flight */
            s->e_true = s->y ? cr_sm_window_energy(s) + defect : 0.0;
        }
    }
    s->stats.restarts += restart;
    if ((!restart && !bump) || need || !s->stepper)
        return CR_OK; /* a new window starts a new history */
    s->bumps += !restart;
    /* Restart the multistep history across the jump; the quadratures carry on. */
    cr_sm_project_energy(s);
    int flag = cr_sm_stepper_restart(s);
    if (flag == CV_SUCCESS && s->own_roots)
        cr_sm_roots_afresh(s);
    return flag == CV_SUCCESS ? CR_OK
                              : cr_sm_solver_fail(s, s->erk ? "ERKStepReset" : "CVodeReInit", flag);
}
