/*
 * CVODES integration of a 1-D chain.
 *
 * State (scaled), three entries per body, interleaved so the Jacobian is banded
 * with mu = ml = 3:
 *   y[3i]       displacement of body i from its start, / δ*
 *   y[3i + 1]   velocity of body i, / V
 *   y[3i + 2]   overlap of pair i (bodies i, i + 1), / δ*   (i < N − 1)
 * Overlaps are states of their own rather than differences of positions so that
 * the relative tolerance applies to δ itself: no cancellation between positions
 * of order of the radii and overlaps of order 10⁻⁵ of them. Displacements are
 * states too because fields (gravity, pendulums) act on positions; the linear
 * invariant δ_c − δ_c(0) = d_c − d_{c+1} is kept by the linear multistep method
 * and the exact Jacobian.
 *
 * Scales: V is the largest initial relative speed, δ* = min over contacts of
 * (μ V² / K)^(1/(n+1)) (the overlap at which the contact has absorbed the
 * relative kinetic energy, up to a factor of order one), time δ* / V. With them a
 * steel cradle (K ≈ 10¹⁰) and a unit model give the same digits.
 *
 * Walls are fixed bodies: their acceleration factor is 0, so d and v stay 0.
 */
#include "sim-priv.h"

#include <cvodes/cvodes.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunmatrix/sunmatrix_band.h>

#include "engines-priv.h"
#include "integrator.h"
#include "priv.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "cradle needs SUNDIALS built with double");

#define EVENT_MIN_CAP 64

#define ETA CR_EVENT_MARGIN /* priv.h */

struct cr_sim {
    /* model copy */
    size_t nb, nc;
    double *mass, *radius, *x0, *v0, *delta0;
    int *fixed;
    cr_contact_params *law;
    int *contact_on;
    cr_link *link;
    int *has_link;
    double gravity;
    double *pivot, *plength, *pg; /* plength 0: no pendulum */
    int has_fields;
    size_t *cluster; /* link-connected cluster of each body */
    double settle;   /* cr_sim_settle_time */

    /* scales */
    double L, V, T, Pscale, Escale;
    double *accel; /* T / (V m_i), 0 for walls: scaled acceleration per unit force */

    /* settings */
    double rtol, atol, out_interval, jac_floor_rel;
    cr_method method;
    cr_sim_output_fn out_fn;
    void *out_user;
    cr_sim_event_fn ev_fn;
    void *ev_user;

    /* CVODES */
    SUNContext ctx;
    void *cvode;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    int nroots;
    int *rootsfound;
    size_t *root_contact; /* pair of each root; kinds by block */
    size_t n_contact_roots;
    double *mu;     /* reduced mass of each pair (a wall is immovable) */
    int *quiet;     /* wake contacts: no events (wake_margin) */
    double *frozen; /* the signs a quiet contact's first three roots show CVODE */

    /* state after the last return */
    double t;
    int ran;
    volatile sig_atomic_t stop_requested;

    cr_event *events;
    size_t nev, evcap;
    cr_sim_stats stats;
    cr_sim_stats banked; /* CVODE counters of the segments before the last restart */
    char end_reason[128];
    char err[CR_ERRMSG_LEN];
};

/* ---- state access ---------------------------------------------------------- */

static inline double dis_s(const double *y, size_t i)
{
    return y[3 * i];
}

static inline double vel_s(const double *y, size_t i)
{
    return y[3 * i + 1];
}

static inline double ovl_s(const double *y, size_t c)
{
    return y[3 * c + 2];
}

/* dimensional overlap and rate of pair c from a scaled state */
static inline void contact_state(const cr_sim *s, const double *y, size_t c, double *delta,
                                 double *rate)
{
    *delta = s->L * ovl_s(y, c);
    *rate = s->V * (vel_s(y, c) - vel_s(y, c + 1));
}

/* unilateral contact force of pair c (0 when the pair has no contact) */
static inline double contact_force(const cr_sim *s, size_t c, double delta, double rate)
{
    return s->contact_on[c] ? cr_contact_force(&s->law[c], delta, rate) : 0.0;
}

/* link tension of pair c (pulls the bodies together when positive) */
static inline double link_tension(const cr_sim *s, size_t c, double delta, double rate)
{
    if (!s->has_link[c])
        return 0.0;
    const cr_link *l = &s->link[c];
    double ext = s->radius[c] + s->radius[c + 1] - delta - l->length;
    return l->k * ext - l->c * rate; /* ė = −δ̇ */
}

/* field acceleration of body i at scaled displacement d (m/s²) */
static inline double field_accel(const cr_sim *s, size_t i, double d)
{
    double a = s->gravity;
    if (s->plength[i] > 0.0)
        a -= s->pg[i] * sin((s->x0[i] + s->L * d - s->pivot[i]) / s->plength[i]);
    return a;
}

/* ---- CVODE callbacks ------------------------------------------------------- */

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydotv);
    double fscale = s->T / s->V;

    for (size_t i = 0; i < s->nb; i++) {
        yd[3 * i] = vel_s(y, i);
        yd[3 * i + 1] =
            s->fixed[i] || !s->has_fields ? 0.0 : fscale * field_accel(s, i, dis_s(y, i));
    }
    for (size_t c = 0; c < s->nc; c++) {
        double delta, rate;
        contact_state(s, y, c, &delta, &rate);
        /* compression-positive pair force: contact push minus link pull */
        double f = contact_force(s, c, delta, rate) - link_tension(s, c, delta, rate);
        if (!isfinite(f))
            return -1;
        yd[3 * c + 2] = vel_s(y, c) - vel_s(y, c + 1);
        yd[3 * c + 1] -= s->accel[c] * f;
        yd[3 * c + 4] += s->accel[c + 1] * f;
    }
    return 0;
}

static int jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
               N_Vector t2, N_Vector t3)
{
    (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double floor = s->jac_floor_rel * s->L;
    double fscale = s->T / s->V;

    SUNMatZero(J);
    for (size_t i = 0; i < s->nb; i++) {
        sunindextype d = (sunindextype)(3 * i), v = d + 1;
        SM_ELEMENT_B(J, d, v) = 1.0;
        if (!s->fixed[i] && s->plength[i] > 0.0) {
            double th = (s->x0[i] + s->L * dis_s(y, i) - s->pivot[i]) / s->plength[i];
            SM_ELEMENT_B(J, v, d) = -fscale * s->pg[i] * cos(th) * s->L / s->plength[i];
        }
    }
    for (size_t c = 0; c < s->nc; c++) {
        sunindextype row_d = (sunindextype)(3 * c + 2);
        sunindextype va = (sunindextype)(3 * c + 1), vb = (sunindextype)(3 * c + 4);
        SM_ELEMENT_B(J, row_d, va) = 1.0;
        SM_ELEMENT_B(J, row_d, vb) = -1.0;

        double delta, rate, fd = 0.0, fv = 0.0;
        contact_state(s, y, c, &delta, &rate);
        if (s->contact_on[c])
            cr_contact_partials(&s->law[c], delta, rate, floor, &fd, &fv);
        if (s->has_link[c]) { /* −T = −k(r_a + r_b − δ − ℓ) + c δ̇ */
            fd += s->link[c].k;
            fv += s->link[c].c;
        }
        /* scaled: ∂f/∂δ̃ = fd·L, ∂f/∂ṽ_a = fv·V, ∂f/∂ṽ_b = −fv·V */
        double gd = fd * s->L, gv = fv * s->V;
        double aa = s->accel[c], ab = s->accel[c + 1];
        SM_ELEMENT_B(J, va, row_d) -= aa * gd;
        SM_ELEMENT_B(J, va, va) -= aa * gv;
        SM_ELEMENT_B(J, va, vb) += aa * gv;
        SM_ELEMENT_B(J, vb, row_d) += ab * gd;
        SM_ELEMENT_B(J, vb, va) += ab * gv;
        SM_ELEMENT_B(J, vb, vb) -= ab * gv;
    }
    return 0;
}

/* Quadratures: the impulse of every contact, then the dissipated work. */
static int quad_rhs(sunrealtype t, N_Vector yv, N_Vector qdot, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *q = N_VGetArrayPointer(qdot);
    double diss = 0.0;
    for (size_t c = 0; c < s->nc; c++) {
        double delta, rate;
        contact_state(s, y, c, &delta, &rate);
        q[c] = contact_force(s, c, delta, rate) * s->T / s->Pscale;
        if (s->contact_on[c])
            diss += cr_contact_dissipation_rate(&s->law[c], delta, rate);
        if (s->has_link[c])
            diss += s->link[c].c * rate * rate;
    }
    q[s->nc] = diss * s->T / s->Escale;
    return 0;
}

/* Roots, four per pair with a contact (root_contact): closing/opening (δ
 * crosses the event margin), compression rate δ̇ (only while loaded), the sign
 * of the raw law for `force`-release contacts with damping, and the wake margin.
 * A quiet (wake) contact shows CVODE its frozen signs instead of its first three
 * functions: it generates no events (see wake_margin). */
enum { R_CLOSE, R_RATE, R_FORCE, R_WAKE, R_PER_CONTACT };

/* Contacts whose own energy cannot compress them beyond CR_WAKE_FRACTION·δ* are
 * quiet: behind a pulse, contacts left touching at δ ~ 1e-7 δ* with relative
 * speeds of 1e-9 V open and re-close every few hundred contact times, and their
 * compression rate flickers around 0 at the last bit (CVODE's root finder
 * cannot converge on such a function). The margin is the largest overlap the
 * contact's own energy allows, ((n+1)/K·(½μγ² + Kδⁿ⁺¹/(n+1)))^(1/(n+1)), over δ*,
 * minus the fraction: a local criterion, no look into the future. A quiet
 * contact keeps its force in the RHS, generates no events and counts as
 * settled. */
static double wake_margin(const cr_sim *s, const double *y, size_t c)
{
    const cr_contact_params *p = &s->law[c];
    double delta, rate;
    contact_state(s, y, c, &delta, &rate);
    double E = 0.5 * s->mu[c] * rate * rate;
    if (delta > 0.0)
        E += p->K * pow(delta, p->n + 1.0) / (p->n + 1.0);
    double reach = pow((p->n + 1.0) * E / p->K, 1.0 / (p->n + 1.0));
    return reach / s->L - CR_WAKE_FRACTION;
}

/* The first three root functions of pair c, as CVODE sees them when not quiet. */
static void live_roots(const cr_sim *s, const double *y, size_t c, double *g)
{
    double d = ovl_s(y, c);
    g[R_CLOSE] = d - ETA;
    /* compression rate only matters while loaded; elsewhere a constant keeps
     * bitwise-equal velocities of untouched bodies from an exact zero */
    g[R_RATE] = d > ETA ? vel_s(y, c) - vel_s(y, c + 1) : 1.0;
    const cr_contact_params *p = &s->law[c];
    if (p->release != CR_RELEASE_FORCE || p->C == 0.0) {
        g[R_FORCE] = -1.0; /* no release root: a constant never crosses */
    } else if (d <= ETA) {
        /* Open: the overlap itself, below the margin. A function that stays
         * exactly zero over an interval makes CVODE stop with CV_CLOSERT. */
        g[R_FORCE] = d - ETA;
    } else {
        double delta, rate;
        contact_state(s, y, c, &delta, &rate);
        g[R_FORCE] = cr_contact_release_function(p, delta, rate, s->L);
    }
}

static int roots(sunrealtype t, N_Vector yv, sunrealtype *g, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    for (size_t k = 0; k < s->n_contact_roots; k++) {
        size_t c = s->root_contact[k];
        double *gk = g + R_PER_CONTACT * k;
        if (s->quiet[c])
            memcpy(gk, s->frozen + 3 * c, 3 * sizeof(double));
        else
            live_roots(s, y, c, gk);
        gk[R_WAKE] = wake_margin(s, y, c);
        for (int q = 0; q < R_PER_CONTACT; q++)
            gk[q] = cr_root_nonzero(gk[q]);
    }
    return 0;
}

/* ---- create / destroy ------------------------------------------------------ */

void cr_sim_destroy(cr_sim *s)
{
    if (!s)
        return;
    if (s->cvode)
        CVodeFree(&s->cvode);
    if (s->LS)
        SUNLinSolFree(s->LS);
    if (s->A)
        SUNMatDestroy(s->A);
    if (s->y)
        N_VDestroy(s->y);
    if (s->yQ)
        N_VDestroy(s->yQ);
    if (s->ctx)
        SUNContext_Free(&s->ctx);
    free(s->mass);
    free(s->radius);
    free(s->x0);
    free(s->v0);
    free(s->delta0);
    free(s->fixed);
    free(s->law);
    free(s->contact_on);
    free(s->link);
    free(s->has_link);
    free(s->pivot);
    free(s->plength);
    free(s->pg);
    free(s->cluster);
    free(s->accel);
    free(s->rootsfound);
    free(s->root_contact);
    free(s->mu);
    free(s->quiet);
    free(s->frozen);
    free(s->events);
    free(s);
}

static void choose_scales(cr_sim *s)
{
    double vmin = INFINITY, vmax = -INFINITY, mmin = INFINITY, rmin = INFINITY;
    double gmax = fabs(s->gravity), lmax = 0.0;
    for (size_t i = 0; i < s->nb; i++) {
        /* a wall is a body at rest: it counts for the relative speeds */
        vmin = fmin(vmin, s->v0[i]);
        vmax = fmax(vmax, s->v0[i]);
        if (s->fixed[i])
            continue;
        mmin = fmin(mmin, s->mass[i]);
        rmin = fmin(rmin, s->radius[i]);
        if (s->plength[i] > 0.0) {
            gmax = fmax(gmax, s->pg[i]);
            lmax = fmax(lmax, s->plength[i]);
        }
    }
    if (!isfinite(mmin)) { /* only walls: nothing moves */
        mmin = 1.0;
        rmin = 1.0;
    }
    if (vmax > vmin)
        s->V = vmax - vmin;
    else if (gmax > 0.0) /* released from rest in a field: the speed it will gain */
        s->V = sqrt(gmax * fmax(lmax, rmin));
    else
        s->V = 1.0;
    s->L = INFINITY;
    for (size_t c = 0; c < s->nc; c++) {
        if (!s->contact_on[c])
            continue;
        double ma = s->mass[c], mb = s->mass[c + 1];
        double mu = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
        const cr_contact_params *p = &s->law[c];
        s->L = fmin(s->L, pow(mu * s->V * s->V / p->K, 1.0 / (p->n + 1.0)));
    }
    if (!isfinite(s->L))
        s->L = rmin;
    s->T = s->L / s->V;
    s->Pscale = mmin * s->V;
    s->Escale = mmin * s->V * s->V;
    for (size_t i = 0; i < s->nb; i++)
        s->accel[i] = s->fixed[i] ? 0.0 : s->T / (s->V * s->mass[i]);
}

cr_sim *cr_sim_create(const cr_model *model, char *msg, size_t msglen)
{
    if (!model) {
        cr_set_msg(msg, msglen, "no model");
        return NULL;
    }
    if (cr_model_validate(model, msg, msglen) != CR_OK)
        return NULL;
    cr_sim *s = calloc(1, sizeof(*s));
    if (!s)
        goto nomem;
    s->nb = cr_model_ball_count(model);
    s->nc = cr_model_contact_count(model);
    size_t nb = s->nb, nc = s->nc ? s->nc : 1;
    s->mass = malloc(nb * sizeof(double));
    s->radius = malloc(nb * sizeof(double));
    s->x0 = malloc(nb * sizeof(double));
    s->v0 = malloc(nb * sizeof(double));
    s->accel = malloc(nb * sizeof(double));
    s->fixed = calloc(nb, sizeof(int));
    s->pivot = calloc(nb, sizeof(double));
    s->plength = calloc(nb, sizeof(double));
    s->pg = calloc(nb, sizeof(double));
    s->cluster = calloc(nb, sizeof(size_t));
    s->delta0 = malloc(nc * sizeof(double));
    s->law = calloc(nc, sizeof(cr_contact_params));
    s->contact_on = calloc(nc, sizeof(int));
    s->link = calloc(nc, sizeof(cr_link));
    s->has_link = calloc(nc, sizeof(int));
    s->root_contact = malloc(nc * sizeof(size_t));
    s->mu = malloc(nc * sizeof(double));
    s->quiet = calloc(nc, sizeof(int));
    s->frozen = calloc(3 * nc, sizeof(double));
    s->rootsfound = malloc((R_PER_CONTACT * nc) * sizeof(int));
    if (!s->mass || !s->radius || !s->x0 || !s->v0 || !s->accel || !s->fixed || !s->pivot ||
        !s->plength || !s->pg || !s->cluster || !s->delta0 || !s->law || !s->contact_on ||
        !s->link || !s->has_link || !s->root_contact || !s->mu || !s->quiet || !s->frozen ||
        !s->rootsfound)
        goto nomem;
    s->gravity = cr_model_gravity(model);
    s->has_fields = cr_model_has_fields(model);
    for (size_t i = 0; i < nb; i++) {
        s->mass[i] = cr_model_mass(model, i);
        s->radius[i] = cr_model_radius(model, i);
        s->x0[i] = cr_model_position(model, i);
        s->v0[i] = cr_model_is_fixed(model, i) ? 0.0 : cr_model_velocity(model, i);
        s->fixed[i] = cr_model_is_fixed(model, i);
        cr_model_pendulum(model, i, &s->pivot[i], &s->plength[i], &s->pg[i]);
    }
    for (size_t c = 0; c < s->nc; c++) {
        s->delta0[c] = cr_model_initial_overlap(model, c);
        s->contact_on[c] = cr_model_contact_enabled(model, c);
        s->law[c] = *cr_model_contact(model, c);
        const cr_link *l = cr_model_link(model, c);
        if (l) {
            s->link[c] = *l;
            s->has_link[c] = 1;
        }
        if (s->contact_on[c])
            s->root_contact[s->n_contact_roots++] = c;
        s->cluster[c + 1] = s->has_link[c] ? s->cluster[c] : c + 1;
    }
    choose_scales(s);
    for (size_t c = 0; c < s->nc; c++) {
        double ma = s->mass[c], mb = s->mass[c + 1];
        s->mu[c] = s->fixed[c] ? mb : (s->fixed[c + 1] ? ma : ma * mb / (ma + mb));
    }
    for (size_t c = 0; c < s->nc; c++)
        if (s->has_link[c]) {
            double m = s->fixed[c]
                           ? s->mass[c + 1]
                           : (s->fixed[c + 1] ? s->mass[c] : 0.5 * (s->mass[c] + s->mass[c + 1]));
            s->settle += 2.0 * sqrt(m / s->link[c].k);
        }
    const cr_settings *set = cr_model_settings(model);
    s->rtol = set->rtol;
    s->atol = set->atol;
    s->method = set->method;
    s->out_interval = set->output_interval;
    s->jac_floor_rel = set->jacobian_floor > 0.0 ? set->jacobian_floor : CR_DEFAULT_JACOBIAN_FLOOR;
    snprintf(s->end_reason, sizeof s->end_reason, "not run");
    return s;
nomem:
    cr_set_msg(msg, msglen, "out of memory");
    cr_sim_destroy(s);
    return NULL;
}

int cr_sim_set_tolerances(cr_sim *s, double rtol, double atol)
{
    CR_CHECK(s && rtol > 0.0 && rtol < 1.0 && atol > 0.0, s ? s->err : NULL, CR_ERR_INVALID);
    s->rtol = rtol;
    s->atol = atol;
    return CR_OK;
}

int cr_sim_set_method(cr_sim *s, cr_method method)
{
    CR_CHECK(s && (method == CR_METHOD_BDF || method == CR_METHOD_ADAMS), s ? s->err : NULL,
             CR_ERR_INVALID);
    s->method = method;
    return CR_OK;
}

int cr_sim_set_output(cr_sim *s, double interval, cr_sim_output_fn fn, void *user)
{
    CR_CHECK(s && isfinite(interval), s ? s->err : NULL, CR_ERR_INVALID);
    s->out_interval = interval;
    s->out_fn = fn;
    s->out_user = user;
    return CR_OK;
}

int cr_sim_set_event_callback(cr_sim *s, cr_sim_event_fn fn, void *user)
{
    CR_CHECK(s, NULL, CR_ERR_INVALID);
    s->ev_fn = fn;
    s->ev_user = user;
    return CR_OK;
}

int cr_sim_set_jacobian_floor(cr_sim *s, double rel_floor)
{
    CR_CHECK(s && rel_floor > 0.0 && isfinite(rel_floor), s ? s->err : NULL, CR_ERR_INVALID);
    s->jac_floor_rel = rel_floor;
    return CR_OK;
}

void cr_sim_request_stop(cr_sim *s)
{
    if (s)
        s->stop_requested = 1;
}

/* ---- integration ----------------------------------------------------------- */

/* Before the run the CVODE vectors do not exist: answer from the model copy. */
static const double *state(const cr_sim *s)
{
    return s->y ? N_VGetArrayPointer(s->y) : NULL;
}

/* Overlap and rate of pair c now (or as the model starts). */
static void pair_now(const cr_sim *s, size_t c, double *delta, double *rate)
{
    const double *y = state(s);
    if (y) {
        contact_state(s, y, c, delta, rate);
    } else {
        *delta = s->delta0[c];
        *rate = s->v0[c] - s->v0[c + 1];
    }
}

/* Velocity of body i now (or as the model starts); a wall's is 0 exactly, its
 * states carrying only the linear solver's roundoff. */
static double body_velocity(const cr_sim *s, size_t i)
{
    const double *y = state(s);
    return s->fixed[i] ? 0.0 : (y ? s->V * vel_s(y, i) : s->v0[i]);
}

static int cvode_fail(cr_sim *s, const char *what, int flag)
{
    return cr_cvode_fail(s->err, what, s->t, flag);
}

/* Freezes pair c's first three roots at the signs they have now. */
static void freeze(cr_sim *s, const double *y, size_t c)
{
    double g[3];
    live_roots(s, y, c, g);
    for (int q = 0; q < 3; q++)
        s->frozen[3 * c + q] = g[q] > 0.0 ? 1.0 : -1.0;
    s->quiet[c] = 1;
}

/* Quiet from the start: contacts touching at rest until a wave reaches them. */
static void init_quiet(cr_sim *s)
{
    const double *y = N_VGetArrayPointer(s->y);
    for (size_t k = 0; k < s->n_contact_roots; k++) {
        size_t c = s->root_contact[k];
        if (wake_margin(s, y, c) < 0.0)
            freeze(s, y, c);
    }
}

static int setup_cvode(cr_sim *s)
{
    sunindextype ny = (sunindextype)(3 * s->nb - 1);
    if (SUNContext_Create(NULL, &s->ctx) != 0)
        return CR_ERR_NOMEM;
    s->y = N_VNew_Serial(ny, s->ctx);
    s->yQ = N_VNew_Serial((sunindextype)(s->nc + 1), s->ctx);
    if (!s->y || !s->yQ)
        return CR_ERR_NOMEM;
    double *y = N_VGetArrayPointer(s->y);
    for (size_t i = 0; i < s->nb; i++) {
        y[3 * i] = 0.0;
        y[3 * i + 1] = s->v0[i] / s->V;
    }
    for (size_t c = 0; c < s->nc; c++)
        y[3 * c + 2] = s->delta0[c] / s->L;
    N_VConst(0.0, s->yQ);

    s->cvode = CVodeCreate(s->method == CR_METHOD_ADAMS ? CV_ADAMS : CV_BDF, s->ctx);
    if (!s->cvode)
        return CR_ERR_NOMEM;
    int flag = cr_cvode_init(s->cvode, rhs, s->y, quad_rhs, s->yQ, s, s->rtol, s->atol, s->err);
    if (flag != CV_SUCCESS)
        return cvode_fail(s, "CVODE setup", flag);

    sunindextype bw = ny > 3 ? 3 : ny - 1;
    s->A = SUNBandMatrix(ny, bw, bw, s->ctx);
    s->LS = s->A ? SUNLinSol_Band(s->y, s->A, s->ctx) : NULL;
    if (!s->A || !s->LS)
        return CR_ERR_NOMEM;
    flag = CVodeSetLinearSolver(s->cvode, s->LS, s->A);
    if (flag == CV_SUCCESS)
        flag = CVodeSetJacFn(s->cvode, jac);
    if (flag == CV_SUCCESS && s->n_contact_roots > 0) {
        s->nroots = (int)(R_PER_CONTACT * s->n_contact_roots);
        init_quiet(s);
        flag = CVodeRootInit(s->cvode, s->nroots, roots);
    }
    if (flag != CV_SUCCESS)
        return cvode_fail(s, "CVODE setup", flag);
    return CR_OK;
}

static int push_event(cr_sim *s, size_t c, cr_event_kind kind)
{
    if (s->nev == s->evcap) {
        size_t cap = s->evcap ? 2 * s->evcap : EVENT_MIN_CAP;
        cr_event *e = realloc(s->events, cap * sizeof(*e));
        if (!e)
            return CR_ERR_NOMEM;
        s->events = e;
        s->evcap = cap;
    }
    const double *y = N_VGetArrayPointer(s->y);
    cr_event *e = &s->events[s->nev++];
    e->t = s->t;
    e->contact = c;
    e->kind = kind;
    contact_state(s, y, c, &e->overlap, &e->rate);
    e->force = contact_force(s, c, e->overlap, e->rate);
    e->impulse = s->Pscale * N_VGetArrayPointer(s->yQ)[c];
    s->stats.events++;
    return CR_OK;
}

/* The events a root crossing of pair c means (signs before: @p lo; root
 * functions now: @p now). Used for CVODE's own root returns and when a quiet
 * contact wakes up and its frozen signs meet the live ones. */
static int contact_events(cr_sim *s, size_t c, const double *lo, const double *now, int *restart)
{
    const double *y = N_VGetArrayPointer(s->y);
    int close = (lo[R_CLOSE] < 0.0) != (now[R_CLOSE] < 0.0);
    int rc = CR_OK;
    if (close) {
        int closing = now[R_CLOSE] > 0.0;
        rc = push_event(s, c, closing ? CR_EVENT_CLOSE : CR_EVENT_OPEN);
        *restart |= cr_contact_force_jumps(&s->law[c], closing);
    }
    if (ovl_s(y, c) <= ETA || rc != CR_OK)
        return rc;
    if ((lo[R_RATE] < 0.0) != (now[R_RATE] < 0.0))
        rc = push_event(s, c,
                        now[R_RATE] < 0.0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION);
    /* the release root jumps from the overlap to the law at closing: that
     * crossing is the closing event, not a re-engagement */
    if (rc == CR_OK && !close && (lo[R_FORCE] < 0.0) != (now[R_FORCE] < 0.0))
        rc =
            push_event(s, c, now[R_FORCE] < 0.0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE);
    return rc;
}

/* Pair c's wake margin crossed 0: it falls quiet, or wakes up and reports what
 * its frozen roots hid (e.g. the closing of a touching contact a wave reached). */
static int wake_crossing(cr_sim *s, size_t c, int *restart)
{
    const double *y = N_VGetArrayPointer(s->y);
    if (wake_margin(s, y, c) < 0.0) {
        freeze(s, y, c);
        return CR_OK;
    }
    double now[3];
    live_roots(s, y, c, now);
    s->quiet[c] = 0;
    return contact_events(s, c, s->frozen + 3 * c, now, restart);
}

static int handle_roots(cr_sim *s)
{
    int flag = CVodeGetRootInfo(s->cvode, s->rootsfound);
    if (flag != CV_SUCCESS)
        return cvode_fail(s, "CVodeGetRootInfo", flag);
    const double *y = N_VGetArrayPointer(s->y);
    int restart = 0, rc = CR_OK;
    for (size_t k = 0; k < s->n_contact_roots && rc == CR_OK; k++) {
        size_t c = s->root_contact[k];
        const int *r = s->rootsfound + R_PER_CONTACT * k;
        if (!s->quiet[c] && (r[R_CLOSE] || r[R_RATE] || r[R_FORCE])) {
            /* rootsfound gives the direction: the sign before is the opposite */
            double now[3], lo[3];
            live_roots(s, y, c, now);
            for (int q = 0; q < 3; q++) {
                lo[q] = r[q] ? -(double)r[q] : now[q];
                now[q] = r[q] ? (double)r[q] : now[q];
            }
            rc = contact_events(s, c, lo, now, &restart);
        }
        if (r[R_WAKE] && rc == CR_OK)
            rc = wake_crossing(s, c, &restart);
    }
    if (rc != CR_OK || !restart)
        return rc;
    /* Restart the multistep history across the jump; the quadratures carry on. */
    flag = cr_cvode_restart(s->cvode, s->t / s->T, s->y, s->yQ, &s->banked);
    if (flag != CV_SUCCESS)
        return cvode_fail(s, "CVodeReInit", flag);
    s->stats.restarts++;
    return CR_OK;
}

/* Nothing can happen any more in a free chain: every contact settled. */
static int chain_at_rest(const cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++)
        if (!cr_sim_contact_settled(s, c))
            return 0;
    return 1;
}

/* A listener's code: negative codes are propagated as they are, so a full disk
 * is reported as such and not as an interruption. */
static int listener_code(int r)
{
    return r == 0 ? CR_OK : (r < 0 ? r : CR_ERR_INTERRUPTED);
}

static int emit(cr_sim *s)
{
    s->stats.outputs++;
    return s->out_fn ? listener_code(s->out_fn(s, s->out_user)) : CR_OK;
}

static double safety_cap(const cr_sim *s)
{
    double gap = 0.0;
    for (size_t c = 0; c < s->nc; c++)
        gap = fmax(gap, -s->delta0[c]);
    return 2.0 * gap / s->V + 1e6 * s->T + s->settle;
}

/* When the run stops next and what it writes. */
typedef struct {
    int automatic; /* t_end ≤ 0: ends by the rule */
    int sparse;    /* automatic sampling of a free chain: nothing written in free flight */
    int coarsened; /* the row budget was reached: dt widened */
    double t_stop, dt, next, pending;
    long rows;
} run_plan;

/* The default sampling: ~12 samples per contact duration, but no more than
 * about 1000 frames over a given end time (long chains write N columns a
 * frame); in free flight (no contact loaded, no field, no link) no rows at all:
 * a free flight needs none beyond its ends. An explicit interval is honoured, up
 * to CR_MAX_OUTPUT_ROWS over a given end time. */
static int plan_run(cr_sim *s, double t_end, run_plan *p)
{
    p->automatic = t_end <= 0.0;
    p->t_stop = p->automatic ? safety_cap(s) : t_end;
    p->dt = s->out_interval > 0.0 ? s->out_interval
                                  : fmax(0.25 * s->T, p->automatic ? 0.0 : t_end / 1000.0);
    p->sparse = s->out_interval <= 0.0 && !s->has_fields && s->settle == 0.0;
    p->coarsened = 0;
    p->next = p->dt;
    p->pending = INFINITY;
    p->rows = 1;
    return cr_output_interval_check(s->out_interval, s->T, t_end, s->err, sizeof s->err);
}

/* The next output time after @p t; t is CVODE's time times T, which can fall an
 * ulp short of the output time it was asked for. */
static void skip_past(run_plan *p, double t)
{
    if (p->next > t * (1.0 + 1e-12))
        return;
    /* in one step: after a long free flight the gap can be 10⁹ intervals */
    p->next = (floor(t * (1.0 + 1e-12) / p->dt) + 1.0) * p->dt;
}

/* Some contact is loaded and awake: something is happening. */
static int contacts_busy(const cr_sim *s)
{
    for (size_t c = 0; c < s->nc; c++)
        if (!s->quiet[c] && cr_sim_contact_loaded(s, c))
            return 1;
    return 0;
}

static double next_stop(const cr_sim *s, const run_plan *p)
{
    /* in free flight the next root return (a closing) or the end comes first */
    if (p->sparse && !contacts_busy(s))
        return fmin(p->t_stop, p->pending);
    return fmin(fmin(p->next, p->t_stop), p->pending);
}

/* The automatic end after a root return: at rest (held for the settling time
 * when links ring). */
static int after_roots(cr_sim *s, run_plan *p, int *done)
{
    size_t first = s->nev;
    int rc = handle_roots(s);
    if (rc != CR_OK)
        return rc;
    if (s->ev_fn && s->nev > first && (rc = listener_code(s->ev_fn(s, first, s->ev_user))) != CR_OK)
        return rc;
    skip_past(p, s->t); /* free flight skipped outputs: resume after now */
    if (!p->automatic)
        return CR_OK;
    int rest = chain_at_rest(s);
    if (rest && s->settle == 0.0) {
        snprintf(s->end_reason, sizeof s->end_reason, "all contacts open and separating");
        *done = 1;
        return emit(s);
    }
    if (rest && !isfinite(p->pending))
        p->pending = s->t + s->settle;
    else if (!rest)
        p->pending = INFINITY;
    return CR_OK;
}

/* A return at an output time, the end time or the settling deadline. */
static int after_output(cr_sim *s, run_plan *p, int flag, double tout, int *done)
{
    if (s->t >= p->pending) {
        if (chain_at_rest(s)) {
            snprintf(s->end_reason, sizeof s->end_reason,
                     "all contacts open and separating for the settling time");
            *done = 1;
            return emit(s);
        }
        p->pending = INFINITY;
        return CR_OK;
    }
    int rc = emit(s);
    if (rc != CR_OK)
        return rc;
    if (flag == CV_TSTOP_RETURN || tout >= p->t_stop) {
        snprintf(s->end_reason, sizeof s->end_reason, "%s",
                 p->automatic ? "safety cap reached before the chain came apart"
                              : "end time reached");
        *done = 1;
        return CR_OK;
    }
    if (++p->rows >= CR_MAX_OUTPUT_ROWS && !p->coarsened) {
        /* keep going, writing ten times less: the file stays bounded */
        p->dt *= 10.0;
        p->coarsened = 1;
    }
    skip_past(p, s->t);
    return s->stop_requested ? CR_ERR_INTERRUPTED : CR_OK;
}

int cr_sim_run(cr_sim *s, double t_end)
{
    CR_CHECK(s && isfinite(t_end), s ? s->err : NULL, CR_ERR_INVALID);
    CR_CHECK(!s->ran, s->err, CR_ERR_INVALID);
    if (t_end <= 0.0 && s->has_fields) {
        cr_set_msg(s->err, sizeof s->err,
                   "an automatic end needs a free chain: with gravity or pendulums give an "
                   "end time");
        return CR_ERR_INVALID;
    }
    s->ran = 1;
    s->err[0] = '\0';
    int rc = setup_cvode(s);
    if (rc != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(s->err, sizeof s->err, "out of memory setting up CVODES");
        return rc;
    }
    run_plan plan;
    if ((rc = plan_run(s, t_end, &plan)) != CR_OK)
        return rc;
    CVodeSetStopTime(s->cvode, plan.t_stop / s->T);

    s->t = 0.0;
    if ((rc = emit(s)) != CR_OK)
        goto interrupted;
    if (plan.automatic && chain_at_rest(s)) {
        snprintf(s->end_reason, sizeof s->end_reason, "all contacts open and separating");
        return CR_OK;
    }
    for (int done = 0; !done;) {
        /* a stop request is honoured at once, between any two returns */
        if (s->stop_requested) {
            rc = emit(s);
            if (rc == CR_OK)
                rc = CR_ERR_INTERRUPTED;
            goto interrupted;
        }
        double tout = next_stop(s, &plan);
        sunrealtype tret;
        int flag = CVode(s->cvode, tout / s->T, s->y, &tret, CV_NORMAL);
        s->t = tret * s->T;
        if (flag < 0)
            return cvode_fail(s, "CVode", flag);
        CVodeGetQuad(s->cvode, &tret, s->yQ);
        if (flag == CV_ROOT_RETURN) {
            rc = after_roots(s, &plan, &done);
            if (rc == CR_ERR_SOLVER || rc == CR_ERR_NOMEM)
                return rc;
        } else {
            rc = after_output(s, &plan, flag, tout, &done);
        }
        if (rc != CR_OK)
            goto interrupted;
    }
    if (plan.coarsened)
        snprintf(s->end_reason + strlen(s->end_reason),
                 sizeof s->end_reason - strlen(s->end_reason),
                 " (output interval widened to %.3g s after %d rows)", plan.dt, CR_MAX_OUTPUT_ROWS);
    return CR_OK;
interrupted:
    if (rc == CR_ERR_INTERRUPTED) {
        snprintf(s->end_reason, sizeof s->end_reason, "interrupted");
        cr_set_msg(s->err, sizeof s->err, "run interrupted at t = %.9g s", s->t);
    } else {
        snprintf(s->end_reason, sizeof s->end_reason, "stopped by a listener");
        cr_set_msg(s->err, sizeof s->err, "a listener failed at t = %.9g s: %s", s->t,
                   cr_strerror(rc));
    }
    return rc;
}

/* ---- queries --------------------------------------------------------------- */

const char *cr_sim_last_error(const cr_sim *s)
{
    return s ? s->err : "no simulator";
}

const char *cr_sim_end_reason(const cr_sim *s)
{
    return s->end_reason;
}

size_t cr_sim_ball_count(const cr_sim *s)
{
    return s->nb;
}

size_t cr_sim_contact_count(const cr_sim *s)
{
    return s->nc;
}

double cr_sim_get_time(const cr_sim *s)
{
    return s->t;
}

void cr_sim_get_masses(const cr_sim *s, double *m)
{
    memcpy(m, s->mass, s->nb * sizeof(double));
}

int cr_sim_body_is_fixed(const cr_sim *s, size_t i)
{
    return i < s->nb && s->fixed[i];
}

int cr_sim_pair_has_contact(const cr_sim *s, size_t c)
{
    return c < s->nc && s->contact_on[c];
}

int cr_sim_pair_is_linked(const cr_sim *s, size_t c)
{
    return c < s->nc && s->has_link[c];
}

double cr_sim_settle_time(const cr_sim *s)
{
    return s->settle;
}

int cr_sim_contact_loaded(const cr_sim *s, size_t c)
{
    if (c >= s->nc || !s->contact_on[c])
        return 0;
    double delta, rate;
    pair_now(s, c, &delta, &rate);
    return delta > ETA * s->L && contact_force(s, c, delta, rate) > 0.0;
}

/* Velocity of the centre of mass of the link-connected cluster holding body i
 * (0 when the cluster holds a wall). */
static double cluster_velocity(const cr_sim *s, size_t i)
{
    size_t id = s->cluster[i];
    double p = 0.0, m = 0.0;
    for (size_t j = id; j < s->nb && s->cluster[j] == id; j++) {
        if (s->fixed[j])
            return 0.0;
        p += s->mass[j] * body_velocity(s, j);
        m += s->mass[j];
    }
    return p / m;
}

int cr_sim_contact_settled(const cr_sim *s, size_t c)
{
    if (c >= s->nc || !s->contact_on[c] || s->quiet[c])
        return 1;
    if (cr_sim_contact_loaded(s, c))
        return 0;
    double va = s->has_link[c] ? body_velocity(s, c) : cluster_velocity(s, c);
    double vb = s->has_link[c] ? body_velocity(s, c + 1) : cluster_velocity(s, c + 1);
    return va <= vb;
}

void cr_sim_get_positions(const cr_sim *s, double *x)
{
    const double *y = state(s);
    /* a wall is where it was; its states carry only the linear solver's roundoff */
    for (size_t i = 0; i < s->nb; i++)
        x[i] = s->x0[i] + (y && !s->fixed[i] ? s->L * dis_s(y, i) : 0.0);
}

void cr_sim_get_velocities(const cr_sim *s, double *v)
{
    for (size_t i = 0; i < s->nb; i++)
        v[i] = body_velocity(s, i);
}

void cr_sim_get_overlaps(const cr_sim *s, double *delta)
{
    double rate;
    for (size_t c = 0; c < s->nc; c++)
        pair_now(s, c, &delta[c], &rate);
}

void cr_sim_get_overlap_rates(const cr_sim *s, double *rate)
{
    double delta;
    for (size_t c = 0; c < s->nc; c++)
        pair_now(s, c, &delta, &rate[c]);
}

void cr_sim_get_forces(const cr_sim *s, double *f)
{
    for (size_t c = 0; c < s->nc; c++) {
        double delta, rate;
        pair_now(s, c, &delta, &rate);
        f[c] = contact_force(s, c, delta, rate);
    }
}

void cr_sim_get_impulses(const cr_sim *s, double *P)
{
    const double *q = s->yQ ? N_VGetArrayPointer(s->yQ) : NULL;
    for (size_t c = 0; c < s->nc; c++)
        P[c] = q ? s->Pscale * q[c] : 0.0;
}

double cr_sim_dissipated_work(const cr_sim *s)
{
    return s->yQ ? s->Escale * N_VGetArrayPointer(s->yQ)[s->nc] : 0.0;
}

double cr_sim_kinetic_energy(const cr_sim *s)
{
    const double *y = state(s);
    double T = 0.0;
    for (size_t i = 0; i < s->nb; i++) {
        if (s->fixed[i])
            continue;
        double v = y ? s->V * vel_s(y, i) : s->v0[i];
        T += 0.5 * s->mass[i] * v * v;
    }
    return T;
}

double cr_sim_potential_energy(const cr_sim *s)
{
    const double *y = state(s);
    double U = 0.0;
    for (size_t c = 0; c < s->nc; c++) {
        double delta = y ? s->L * ovl_s(y, c) : s->delta0[c];
        if (s->contact_on[c])
            U += cr_contact_energy(&s->law[c], delta);
        if (s->has_link[c]) {
            double ext = s->radius[c] + s->radius[c + 1] - delta - s->link[c].length;
            U += 0.5 * s->link[c].k * ext * ext;
        }
    }
    for (size_t i = 0; i < s->nb; i++) {
        if (s->fixed[i])
            continue;
        double x = s->x0[i] + (y ? s->L * dis_s(y, i) : 0.0);
        U -= s->mass[i] * s->gravity * x;
        if (s->plength[i] > 0.0)
            U += s->mass[i] * s->pg[i] * s->plength[i] *
                 (1.0 - cos((x - s->pivot[i]) / s->plength[i]));
    }
    return U;
}

double cr_sim_momentum(const cr_sim *s)
{
    const double *y = state(s);
    double p = 0.0;
    for (size_t i = 0; i < s->nb; i++)
        if (!s->fixed[i])
            p += s->mass[i] * (y ? s->V * vel_s(y, i) : s->v0[i]);
    return p;
}

size_t cr_sim_event_count(const cr_sim *s)
{
    return s->nev;
}

const cr_event *cr_sim_events(const cr_sim *s)
{
    return s->events;
}

cr_sim_stats cr_sim_get_stats(const cr_sim *s)
{
    /* CVODE's counters are read as asked: every exit of the run sees them */
    cr_sim_stats st = s->stats;
    if (s->cvode)
        cr_cvode_counters(s->cvode, &s->banked, &st);
    return st;
}

void cr_sim_get_scales(const cr_sim *s, double *length, double *speed, double *time)
{
    if (length)
        *length = s->L;
    if (speed)
        *speed = s->V;
    if (time)
        *time = s->T;
}

const char *cr_event_kind_name(cr_event_kind kind)
{
    static const char *const names[] = {"close",           "open",          "max-compression",
                                        "min-compression", "force-release", "force-reengage"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

/* ---- the chain engine behind cr_system ------------------------------------- */

typedef struct {
    cr_sim *sim;
    cr_system *sys;
    size_t *contacts_of; /* contact c twice: body i's contacts are i − 1 and i */
} chain_engine;

static int chain_output(const cr_sim *sim, void *user)
{
    (void)sim;
    return cr_system_emit_output(((chain_engine *)user)->sys);
}

static int chain_events(const cr_sim *sim, size_t first, void *user)
{
    (void)sim;
    return cr_system_emit_events(((chain_engine *)user)->sys, first);
}

static void chain_destroy(void *e)
{
    chain_engine *c = e;
    if (!c)
        return;
    cr_sim_destroy(c->sim);
    free(c->contacts_of);
    free(c);
}

static void *chain_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    chain_engine *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    c->sys = sys;
    c->sim = cr_sim_create(model, msg, msglen);
    size_t nc = c->sim ? c->sim->nc : 0;
    c->contacts_of = malloc((2 * nc + 1) * sizeof(size_t));
    if (!c->sim || !c->contacts_of) {
        if (c->sim)
            cr_set_msg(msg, msglen, "out of memory");
        chain_destroy(c);
        return NULL;
    }
    for (size_t k = 0; k < nc; k++)
        c->contacts_of[2 * k] = c->contacts_of[2 * k + 1] = k;
    c->sim->jac_floor_rel = cr_model_settings(model)->jacobian_floor;
    cr_sim_set_output(c->sim, cr_model_settings(model)->output_interval, chain_output, c);
    cr_sim_set_event_callback(c->sim, chain_events, c);
    return c;
}

#define SIM(e) (((const chain_engine *)(e))->sim)

static int chain_run(void *e, double t_end)
{
    return cr_sim_run(((chain_engine *)e)->sim, t_end);
}

static void chain_stop(void *e)
{
    cr_sim_request_stop(((chain_engine *)e)->sim);
}

static const char *chain_last_error(const void *e)
{
    return cr_sim_last_error(SIM(e));
}

static const char *chain_end_reason(const void *e)
{
    return cr_sim_end_reason(SIM(e));
}

static size_t chain_body_count(const void *e)
{
    return SIM(e)->nb;
}

static size_t chain_no_walls(const void *e)
{
    (void)e;
    return 0;
}

static int chain_is_fixed(const void *e, size_t i)
{
    return SIM(e)->fixed[i];
}

static void chain_masses(const void *e, double *m)
{
    const cr_sim *s = SIM(e);
    for (size_t i = 0; i < s->nb; i++)
        m[i] = s->fixed[i] ? INFINITY : s->mass[i];
}

static void chain_radii(const void *e, double *r)
{
    memcpy(r, SIM(e)->radius, SIM(e)->nb * sizeof(double));
}

static int chain_wall(const void *e, size_t w, double *normal, double *offset)
{
    (void)e, (void)w, (void)normal, (void)offset;
    return CR_ERR_INVALID;
}

static double chain_time(const void *e)
{
    return SIM(e)->t;
}

static void chain_positions(const void *e, double *x)
{
    cr_sim_get_positions(SIM(e), x);
}

static void chain_velocities(const void *e, double *v)
{
    cr_sim_get_velocities(SIM(e), v);
}

static size_t chain_contact_count(const void *e)
{
    return SIM(e)->nc;
}

static int chain_contact(const void *e, size_t c, cr_contact_view *w)
{
    const cr_sim *s = SIM(e);
    memset(w, 0, sizeof(*w));
    w->body_a = c;
    w->body_b = (long)c + 1;
    w->unilateral = s->contact_on[c];
    w->linked = s->has_link[c];
    pair_now(s, c, &w->overlap, &w->rate);
    w->force = contact_force(s, c, w->overlap, w->rate);
    double rmin = s->fixed[c]
                      ? s->radius[c + 1]
                      : (s->fixed[c + 1] ? s->radius[c] : fmin(s->radius[c], s->radius[c + 1]));
    if (cr_sim_contact_loaded(s, c))
        w->state = CR_CONTACT_LOADED;
    else if (w->overlap >= -CR_GEOM_TOL * rmin)
        w->state = CR_CONTACT_TOUCHING;
    else
        w->state = CR_CONTACT_OPEN;
    w->settled = cr_sim_contact_settled(s, c);
    const double *q = s->yQ ? N_VGetArrayPointer(s->yQ) : NULL;
    w->impulse = q ? s->Pscale * q[c] : 0.0;
    w->normal[0] = 1.0;
    w->vector_impulse[0] = w->impulse;
    return CR_OK;
}

static const size_t *chain_body_contacts(const void *e, size_t i, size_t *n)
{
    const chain_engine *c = e;
    size_t nc = c->sim->nc;
    *n = (i > 0 && i - 1 < nc) + (i < nc);
    return *n ? c->contacts_of + (i > 0 ? 2 * i - 1 : 0) : NULL;
}

static size_t chain_event_count(const void *e)
{
    return SIM(e)->nev;
}

static const cr_event *chain_events_get(const void *e)
{
    return SIM(e)->events;
}

static double chain_kinetic(const void *e)
{
    return cr_sim_kinetic_energy(SIM(e));
}

static double chain_potential(const void *e)
{
    return cr_sim_potential_energy(SIM(e));
}

static double chain_dissipated(const void *e)
{
    return cr_sim_dissipated_work(SIM(e));
}

static void chain_momentum(const void *e, double *p)
{
    p[0] = cr_sim_momentum(SIM(e));
}

static double chain_settle(const void *e)
{
    return SIM(e)->settle;
}

static cr_run_stats chain_stats(const void *e)
{
    return cr_sim_get_stats(SIM(e));
}

static void chain_scales(const void *e, double *length, double *speed, double *time)
{
    cr_sim_get_scales(SIM(e), length, speed, time);
}

const cr_engine_ops cr_chain_engine = {
    .name = "chain",
    .create = chain_create,
    .destroy = chain_destroy,
    .run = chain_run,
    .request_stop = chain_stop,
    .last_error = chain_last_error,
    .end_reason = chain_end_reason,
    .dim = 1,
    .contacts_fixed = 1,
    .body_count = chain_body_count,
    .wall_count = chain_no_walls,
    .is_fixed = chain_is_fixed,
    .masses = chain_masses,
    .radii = chain_radii,
    .wall = chain_wall,
    .time = chain_time,
    .positions = chain_positions,
    .velocities = chain_velocities,
    .contact_count = chain_contact_count,
    .contact = chain_contact,
    .body_contacts = chain_body_contacts,
    .event_count = chain_event_count,
    .events = chain_events_get,
    .kinetic_energy = chain_kinetic,
    .potential_energy = chain_potential,
    .dissipated_work = chain_dissipated,
    .momentum = chain_momentum,
    .settle_time = chain_settle,
    .stats = chain_stats,
    .scales = chain_scales,
};
