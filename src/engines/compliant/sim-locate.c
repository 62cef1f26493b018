/*
 * The chain engine's own event location: the stepper (CVODES or ERKStep,
 * sim-stepper.c) takes single steps, and the root functions that changed sign
 * over a step are searched here.
 */
#include "engines/common/root-search.h"
#include "engines/compliant/sim-priv.h"

#include <float.h>
#include <math.h>
#include <string.h>

/*
 * The engine locates its events itself; CRADLE_CHAIN_ROOTS=cvode gives back
 * CVODE's root finding (for comparison: the same events). CVODE's evaluates
 * every root function and interpolates the window's whole state about 24
 * times per root return (cvRcheck2, cvRcheck3 and the Illinois iterations of
 * cvRootfind): 29 % of a 5-ball cradle's run. Here CVODE takes single steps
 * (CV_ONE_STEP); the root functions are evaluated once, at each step's end;
 * only those that changed sign over the step are searched, with CVODE's
 * Illinois method and tolerance 100 ε (|t_n| + |h|), evaluating only their
 * contacts; a contact's rate and release functions, which jump where its
 * closing function crosses, do not steer the secant (as src/engines/compliant/pool-roots.c).
 * cr_sm_own_advance returns what CVode returns in CV_NORMAL mode: the first root in
 * (t_lo, min(t_n, target)], else the target, else the stop time, with the
 * state interpolated there. After a root return the events may have redefined
 * some contacts' functions (a contact falls quiet or wakes up: sim-roots.c lists them in s->redo):
 * those are evaluated again at both ends, as CVODE evaluates all of them again.
 * ERKStep has no root finding of its own; its root returns differ
 * (erk_root_return below).
 */

static void clear_redo(cr_sim *s)
{
    for (size_t j = 0; j < s->nredo; j++)
        s->redo_mark[s->redo[j]] = 0;
    s->nredo = 0;
}

/* Every root function of the window at the state y into g. */
static void roots_at(cr_sim *s, const double *y, double *g)
{
    cr_sm_roots_pass(s, y, g);
    s->gevals++;
}

/* A fresh start at τ from the state s->y (a new window, a restart). */
void cr_sm_roots_afresh(cr_sim *s)
{
    s->tlo = s->tn = s->tau;
    s->stepped = s->at_tstop = 0;
    s->dky_q = -1;
    s->ncand = 0;
    clear_redo(s);
    if (s->nrf)
        roots_at(s, N_VGetArrayPointer(s->y), s->glo);
}

/* The functions whose signs differ at tlo and tn: the candidates. */
static void sign_changes(cr_sim *s)
{
    s->ncand = 0;
    for (size_t q = 0; q < s->nrf; q++)
        if (cr_root_differ(s->glo[q], s->ghi[q]))
            s->cand[s->ncand++] = q;
}

/* The candidates' values at the state y into out, each contact's block once
 * (the candidates are in increasing order, a block's functions together). */
static void cand_values(cr_sim *s, const double *y, double *out)
{
    double gk[CR_SM_R_PER_CONTACT];
    size_t kprev = CR_SM_NONE;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q];
        if (k != kprev)
            cr_sm_contact_block(s, y, k, gk);
        kprev = k;
        out[c] = gk[q - s->roff[k]];
    }
    s->gevals++;
}

/*
 * A search interpolates only the components its candidates need (an overlap
 * and two velocities per contact), from the derivatives of the step's
 * interpolating polynomial at tn, taken once per step that has a search: q + 1
 * calls of CVodeGetDky at tn instead of one full interpolation per trial
 * point (about 12 per event). The polynomial is the same; its values differ
 * from CVodeGetDky's in the last bits, far inside the root tolerance.
 * @return 0, or -1 when the vectors cannot be had (then full interpolation).
 */
static int taylor(cr_sim *s)
{
    if (s->dky_q >= 0)
        return 0;
    if (!s->dky && !(s->dky = N_VCloneVectorArray(CR_SM_ADAMS_MAX_ORDER + 1, s->y)))
        return -1;
    int q = cr_sm_dky_degree(s);
    if (q < 0 || q > CR_SM_ADAMS_MAX_ORDER)
        return -1;
    for (int k = 0; k <= q; k++)
        if (cr_sm_dky(s, s->tn, k, s->dky[k]) != CV_SUCCESS)
            return -1;
    s->dky_q = q;
    return 0;
}

/* Component j of the state at the scaled time tn + dt: Σ y⁽ᵏ⁾ dtᵏ/k! (Horner). */
static double taylor_at(const cr_sim *s, size_t j, double dt)
{
    double r = N_VGetArrayPointer(s->dky[s->dky_q])[j];
    for (int k = s->dky_q - 1; k >= 0; k--)
        r = N_VGetArrayPointer(s->dky[k])[j] + r * dt / (k + 1);
    return r;
}

static double taylor_vel(const cr_sim *s, size_t i, double dt)
{
    size_t k = s->ybody[i];
    return k != CR_SM_NONE ? taylor_at(s, k + 1, dt) : s->gv[s->grp[i]];
}

/* Component j of the state interpolated at tn + *ctx (cr_sm_read_fn). */
static double read_taylor(const cr_sim *s, const void *ctx, size_t j)
{
    return taylor_at(s, j, *(const double *)ctx);
}

/* The candidates' values at the scaled time tau inside the step into out. */
static void cand_values_at(cr_sim *s, double tau, double *out)
{
    double gk[CR_SM_R_PER_CONTACT], dt = tau - s->tn;
    size_t kprev = CR_SM_NONE;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q];
        if (k >= s->n_contact_roots) { /* a swing block: ṡ */
            gk[0] = cr_root_nonzero(taylor_vel(s, s->root_contact[k], dt));
        } else if (k != kprev) {
            size_t p = s->root_contact[k];
            cr_sm_block_values(s, k, taylor_at(s, s->yovl[p], dt), taylor_vel(s, p, dt),
                               taylor_vel(s, p + 1, dt), read_taylor, &dt, gk);
        }
        kprev = k;
        out[c] = gk[q - s->roff[k]];
    }
    s->gevals++;
}

/* The state (and quadratures) at the scaled time tau inside the last step. */
static void state_at(cr_sim *s, double tau)
{
    cr_sm_dky(s, tau, 0, s->y);
    if (!s->qstate)
        CVodeGetQuadDky(s->stepper, tau, 0, s->yQ);
    s->y_at_tn = tau == s->tn;
}

/* Which candidates may steer the secant: a contact's rate and release
 * functions (between its closing and its wake function in the block) jump
 * where its closing function crosses; with that one among the candidates they
 * follow it. */
static void guides(cr_sim *s)
{
    size_t crossing = CR_SM_NONE; /* the last block whose closing function is a candidate */
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c], k = s->rblock[q], i = q - s->roff[k];
        s->guide[c] = 1;
        if (i == 0)
            crossing = k;
        else if (i + 1 < s->roff[k + 1] - s->roff[k] && crossing == k)
            s->guide[c] = 0;
    }
}

/* A search's candidate values at the scaled time t: from the step's
 * derivatives (taylor), or by a full interpolation when those are missing. */
typedef struct {
    cr_sim *s;
    int full;
} search;

static void candidate_values(void *user, double t, double *out)
{
    search *x = user;
    if (x->full) {
        cr_sm_dky(x->s, t, 0, x->s->y);
        cand_values(x->s, N_VGetArrayPointer(x->s->y), out);
    } else {
        cand_values_at(x->s, t, out);
    }
}

/* The first root in (tlo, thi] among the candidates, whose values at the ends
 * are in clo and chi: the Illinois method on the interpolated state. Returns
 * its time (the high end of the last bracket, where the located functions
 * have their new signs); rootsfound holds ±1 for them, as CVodeGetRootInfo. */
static double locate(cr_sim *s, double tlo, double thi)
{
    double ttol = cr_root_tolerance(s->tn, s->hlast);
    guides(s);
    search x = {s, thi - tlo > ttol && taylor(s) != 0};
    cr_root_bracket b = {s->ncand, s->clo, s->chi, s->cmid, s->guide};
    return cr_root_search(&b, tlo, thi, ttol, candidate_values, &x, s->cand, s->rootsfound, s->nrf);
}

/*
 * After ERKStep's step to a root at tr, a located function may still show its
 * old sign on the Runge-Kutta state (it crossed on the old step's
 * interpolant, which differs from the state by about the local error). The
 * state then moves on along its derivative by twice the time Newton's method
 * gives for the furthest such function: y + Δt f(y), its error O(Δt²).
 * Measured 2Δt over 1619 such moves on five models: up to 1.7e-4 T at rtol
 * 1e-5, 2.2e-6 T at 1e-8, 8.5e-8 T at 1e-10 (T = δ* / V); the event is dated
 * where the state is. Never past @p tmax (the search's end: an output time,
 * the stop time or the step's end). Otherwise the contact an opening left
 * would still read as loaded at 1e-17 m overlap, and no later event would say
 * it is not (the 5-ball cradle at rtol 1e-10 and the 3-ball chain at 1e-6 then
 * ran to their stop times; tests/test-events.c item 4). Only functions that
 * steer the search move it (guides). The extra RHS is not counted in the
 * run's statistics; functions that were not located keep their signs from
 * the old step (none of them crossed before its end). Returns the new time.
 */
static double erk_onto_new_side(cr_sim *s, double tr, double tmax)
{
    double *y = N_VGetArrayPointer(s->y), *f = N_VGetArrayPointer(s->ydot);
    double *probe = N_VGetArrayPointer(s->yprobe);
    cand_values(s, y, s->cmid);
    int off = 0;
    for (size_t c = 0; c < s->ncand; c++)
        off |= s->guide[c] && s->rootsfound[s->cand[c]] && cr_root_differ(s->cmid[c], s->chi[c]);
    if (!off || tmax <= tr || cr_sm_rhs(tr, s->y, s->ydot, s) != 0)
        return tr;
    sunindextype n = N_VGetLength(s->y);
    const double eta = 1e-6; /* the functions' rates from a point a time η further */
    for (sunindextype i = 0; i < n; i++)
        probe[i] = y[i] + eta * f[i];
    cand_values(s, probe, s->clo); /* clo is free after the search */
    double dt = 0.0;
    for (size_t c = 0; c < s->ncand; c++) {
        double g = s->cmid[c], rate = (s->clo[c] - g) / eta;
        if (s->guide[c] && s->rootsfound[s->cand[c]] && cr_root_differ(g, s->chi[c]) &&
            rate * s->chi[c] > 0.0)
            dt = fmax(dt, -g / rate);
    }
    if (!(dt > 0.0) || !isfinite(dt))
        return tr;
    dt = fmin(2.0 * dt, tmax - tr);
    for (sunindextype i = 0; i < n; i++)
        y[i] += dt * f[i];
    if (cr_sm_stepper_restart_at(s, tr + dt) < 0)
        return tr;
    return tr + dt;
}

/* ERKStep's root return at tr, found in (tlo, thi]: the step is taken again
 * to end there (cr_sm_step_again_to), and the next step starts there. The
 * located functions take their new signs; the others keep theirs (no sign
 * change up to the old step's end). */
static int erk_root_return(cr_sim *s, double tr, double thi, double *tret)
{
    int flag = cr_sm_step_again_to(s, tr);
    if (flag < 0) {
        *tret = s->tstart; /* where the state is (cr_sm_step_again_to) */
        return flag;
    }
    tr = erk_onto_new_side(s, tr, thi);
    for (size_t c = 0; c < s->ncand; c++)
        s->glo[s->cand[c]] = s->chi[c];
    s->ncand = 0;
    s->tlo = s->tn = tr;
    s->stepped = 0;
    s->y_at_tn = 1;
    s->dky_q = -1;
    *tret = tr;
    return CV_ROOT_RETURN;
}

/* A root return: the first root in (tlo, thi], the state there; the
 * candidates' values there become the low end of the rest of the step. */
static int root_return(cr_sim *s, double thi, double *tret)
{
    double tr = locate(s, s->tlo, thi);
    if (s->erk)
        return erk_root_return(s, tr, thi, tret);
    state_at(s, tr);
    size_t nc = 0;
    for (size_t c = 0; c < s->ncand; c++) {
        size_t q = s->cand[c];
        s->glo[q] = s->chi[c];
        if (cr_root_differ(s->glo[q], s->ghi[q]))
            s->cand[nc++] = q;
    }
    s->ncand = nc;
    s->tlo = tr;
    *tret = tr;
    return CV_ROOT_RETURN;
}

/* After the events of a root return: the functions they redefined, again at
 * tlo (the state of the return) and at the end of the step. */
static void roots_resume(cr_sim *s)
{
    size_t n = 0;
    for (size_t j = 0; j < s->nredo; j++) {
        size_t c = s->redo[j], k = s->rootk[c];
        if (k < s->n_contact_roots && s->root_contact[k] == c)
            s->redo[n++] = k; /* its block */
        s->redo_mark[c] = 0;
    }
    s->nredo = 0;
    if (n == 0)
        return;
    double *y = N_VGetArrayPointer(s->y);
    if (s->tau != s->tlo)
        cr_sm_dky(s, s->tlo, 0, s->y);
    for (size_t j = 0; j < n; j++)
        cr_sm_contact_block(s, y, s->redo[j], s->glo + s->roff[s->redo[j]]);
    if (s->stepped) {
        cr_sm_dky(s, s->tn, 0, s->y);
        s->y_at_tn = 1;
        for (size_t j = 0; j < n; j++)
            cr_sm_contact_block(s, y, s->redo[j], s->ghi + s->roff[s->redo[j]]);
        sign_changes(s);
    }
    s->gevals += 1 + s->stepped;
}

/* What the step that ends at tn gives towards target: a root return, a return
 * at the target or the stop time, or (@p more) nothing: the next step. */
static int step_returns(cr_sim *s, double target, double *tret, int *more)
{
    *more = 0;
    if (target < s->tn) { /* the target inside the step: roots before it first */
        if (s->ncand) {
            cr_sm_dky(s, target, 0, s->y);
            cand_values(s, N_VGetArrayPointer(s->y), s->cmid);
            int any = 0;
            for (size_t c = 0; c < s->ncand; c++) {
                s->clo[c] = s->glo[s->cand[c]];
                any |= cr_root_differ(s->clo[c], s->cmid[c]);
            }
            if (any) {
                memcpy(s->chi, s->cmid, s->ncand * sizeof(double));
                return root_return(s, target, tret);
            }
            for (size_t c = 0; c < s->ncand; c++)
                s->glo[s->cand[c]] = s->cmid[c];
            s->tlo = target;
        }
        state_at(s, target);
        *tret = target;
        return CV_SUCCESS;
    }
    if (s->ncand) {
        for (size_t c = 0; c < s->ncand; c++) {
            s->clo[c] = s->glo[s->cand[c]];
            s->chi[c] = s->ghi[s->cand[c]];
        }
        return root_return(s, s->tn, tret);
    }
    double *g = s->glo; /* no root in the step: its end is the next low end */
    s->glo = s->ghi;
    s->ghi = g;
    s->tlo = s->tn;
    s->stepped = 0;
    /* output.every: the k-th step end reached here (a step a restart cut
     * short never is) is a return of its own (every_hit); a stop request
     * returns at the step's end, not at the target: a long chain's steps to
     * the next output took 0.7 s after a request */
    int kth = s->out_every > 0 && ++s->every_steps >= s->out_every;
    if (target > s->tn && !s->at_tstop && !kth && !s->stop_requested) {
        *more = 1;
        return CV_SUCCESS;
    }
    if (kth) {
        s->every_steps = 0;
        s->every_hit = 1;
    }
    if (!s->y_at_tn)
        state_at(s, s->tn);
    else if (!s->qstate)
        CVodeGetQuadDky(s->stepper, s->tn, 0, s->yQ);
    *tret = s->tn;
    return target <= s->tn || (kth && !s->at_tstop) || s->stop_requested ? CV_SUCCESS
                                                                         : CV_TSTOP_RETURN;
}

/* CVode(target, CV_NORMAL) with the engine's own event location. */
int cr_sm_own_advance(cr_sim *s, double target, double *tret)
{
    roots_resume(s);
    for (;;) {
        int more = 1;
        if (s->stepped) {
            int flag = step_returns(s, target, tret, &more);
            if (!more)
                return flag;
        }
        sunrealtype tn;
        int flag = cr_sm_step(s, target, &tn);
        if (flag < 0) {
            *tret = s->tn;
            return flag;
        }
        s->tn = tn;
        s->dky_q = -1;
        s->stepped = s->y_at_tn = 1;
        s->at_tstop = flag == CV_TSTOP_RETURN;
        if (s->nrf) {
            roots_at(s, N_VGetArrayPointer(s->y), s->ghi);
            sign_changes(s);
        }
    }
}
