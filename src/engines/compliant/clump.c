/*
 * The compliant engine of planar rigid bodies (clump-priv.h): setup, the
 * kinematics of features, the right-hand sides and the run loop.
 */
#include "engines/compliant/clump-priv.h"

#include <cvodes/cvodes.h>
#include <math.h>
#include <signal.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "base/base.h"
#include "base/sundials.h"
#include "engines/common/engine-common.h"
#include "engines/common/integrator.h"
#include "model/contact-force.h"
#include "model/model.h"

#define SB 6 /* state values per body: u₀ u₁ φ U₀ U₁ Ω */
/* every feature pair is a candidate with a dense Jacobian: 100 free dumbbells
 * (200 discs) took 2.4 s, 1000 discs minutes per call (review) */
#define CR_CLUMPS_MAX_FEATURES 256
#define QC 3 /* quadratures per contact: ∫ f dt, ∫ f n dt */
#define GC 3 /* root functions per contact: δ − margin, δ̇, raw force */

typedef struct {
    size_t body;
    double s[2], r; /* centre in the body frame (from the centre of mass), radius */
    double p0[2];   /* lab centre at t = 0 */
} feature;

typedef struct {
    long i, j;           /* features, or j = −1 − wall */
    double a0[2], R, c0; /* pair: p_j0 − p_i0, rᵢ + rⱼ, R² − |a0|²; wall: c0 = δ at 0 */
    cr_contact_params law;
} contact;

struct cr_clumps {
    size_t nb, nf, nc, nw;
    double *m, *J, *rho, *x0, *th0, *v0, *om0; /* J = 0: no rotation */
    char *still;                               /* fixed: never moves */
    feature *f;
    contact *c;
    size_t *fc, *fcstart; /* contacts of each feature: fc[fcstart[i] … fcstart[i + 1]) */
    double *wn, *woff;
    double g[2], L, V, T, rtol, atol;
    SUNContext ctx;
    void *cv;
    N_Vector y, yQ;
    SUNMatrix A;
    SUNLinearSolver LS;
    int *roots;
    double t;
    cr_event *ev;
    size_t nev, evcap;
    double out_interval; /* s; ≤ 0: none but t = 0 and the end */
    cr_clumps_out_fn out;
    cr_clumps_ev_fn evfn;
    void *user;
    volatile sig_atomic_t stop; /* cr_clumps_request_stop */
    cr_run_stats banked;        /* CVODES counters of the segments before the last restart */
    long restarts, outputs;
    char err[CR_ERRMSG_LEN];
};

/* ---- kinematics ---------------------------------------------------------- */

/* Feature f in the scaled state y: its displacement from t = 0 (m), velocity
 * (m/s) and lever arm R(θ) s (m). (R(Δ) − I) s is written with
 * cos Δ − 1 = −2 sin²(Δ/2) so that small turns keep their digits. */
static void feature_kin(const cr_clumps *c, const double *y, size_t fi, double *d, double *w,
                        double *rs)
{
    const feature *f = &c->f[fi];
    const double *u = y + SB * f->body;
    double th0 = c->th0[f->body], rho = c->rho[f->body];
    double D = c->L * u[2] / rho, sh = sin(0.5 * D), cm1 = -2.0 * sh * sh, sD = sin(D);
    double q[2] = {cm1 * f->s[0] - sD * f->s[1], sD * f->s[0] + cm1 * f->s[1]};
    double c0 = cos(th0), s0 = sin(th0), th = th0 + D, ct = cos(th), st = sin(th);
    double om = c->V * u[5] / rho;
    rs[0] = ct * f->s[0] - st * f->s[1];
    rs[1] = st * f->s[0] + ct * f->s[1];
    d[0] = c->L * u[0] + c0 * q[0] - s0 * q[1];
    d[1] = c->L * u[1] + s0 * q[0] + c0 * q[1];
    w[0] = c->V * u[3] - om * rs[1];
    w[1] = c->V * u[4] + om * rs[0];
}

/* Overlap δ (m), rate δ̇ (m/s), unit normal n (from i to j, or the wall's) of
 * contact k, and the lever arms of its features (rj unused for walls). */
static void contact_geom(const cr_clumps *c, const double *y, const contact *k, double *delta,
                         double *rate, double *n, double *ri, double *rj)
{
    double di[2], wi[2];
    feature_kin(c, y, (size_t)k->i, di, wi, ri);
    if (k->j < 0) {
        const double *m = c->wn + 2 * (size_t)(-1 - k->j);
        *delta = k->c0 - (m[0] * di[0] + m[1] * di[1]);
        *rate = -(m[0] * wi[0] + m[1] * wi[1]);
        n[0] = m[0];
        n[1] = m[1];
        return;
    }
    double dj[2], wj[2];
    feature_kin(c, y, (size_t)k->j, dj, wj, rj);
    double b[2] = {dj[0] - di[0], dj[1] - di[1]}, a[2] = {k->a0[0] + b[0], k->a0[1] + b[1]};
    double dd = hypot(a[0], a[1]);
    *delta = (k->c0 - 2.0 * (k->a0[0] * b[0] + k->a0[1] * b[1]) - (b[0] * b[0] + b[1] * b[1])) /
             (k->R + dd);
    n[0] = a[0] / dd;
    n[1] = a[1] / dd;
    *rate = -(n[0] * (wj[0] - wi[0]) + n[1] * (wj[1] - wi[1]));
}

/* Adds the force f n (sign ±1) at lever arm r to body b's accelerations. */
static void push(const cr_clumps *c, double *yd, size_t b, double sign, double f, const double *n,
                 const double *r)
{
    if (c->still[b])
        return;
    double a = sign * c->T * f / (c->V * c->m[b]);
    yd[SB * b + 3] += a * n[0];
    yd[SB * b + 4] += a * n[1];
    if (c->J[b] > 0.0)
        yd[SB * b + 5] +=
            sign * c->T * c->rho[b] * f * (r[0] * n[1] - r[1] * n[0]) / (c->V * c->J[b]);
}

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    (void)t;
    const cr_clumps *c = user;
    if (c->stop) /* a stop request ends a long CVode call at its next evaluation */
        return -1;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv);
    for (size_t b = 0; b < c->nb; b++) {
        double *o = yd + SB * b;
        const double *u = y + SB * b;
        o[0] = u[3];
        o[1] = u[4];
        o[2] = u[5];
        o[3] = c->still[b] ? 0.0 : c->T * c->g[0] / c->V;
        o[4] = c->still[b] ? 0.0 : c->T * c->g[1] / c->V;
        o[5] = 0.0;
    }
    for (size_t q = 0; q < c->nc; q++) {
        const contact *k = &c->c[q];
        double delta, rate, n[2], ri[2], rj[2];
        contact_geom(c, y, k, &delta, &rate, n, ri, rj);
        double f = cr_contact_force_inline(&k->law, delta, rate);
        if (f == 0.0)
            continue;
        push(c, yd, c->f[k->i].body, k->j < 0 ? 1.0 : -1.0, f, n, ri);
        if (k->j >= 0)
            push(c, yd, c->f[k->j].body, 1.0, f, n, rj);
    }
    return 0;
}

/* Impulses and dissipated work per unit scaled time. */
static int quad_rhs(sunrealtype t, N_Vector yv, N_Vector qd, void *user)
{
    (void)t;
    const cr_clumps *c = user;
    const double *y = N_VGetArrayPointer(yv);
    double *o = N_VGetArrayPointer(qd);
    o[QC * c->nc] = 0.0;
    for (size_t q = 0; q < c->nc; q++) {
        double delta, rate, n[2], ri[2], rj[2];
        contact_geom(c, y, &c->c[q], &delta, &rate, n, ri, rj);
        double f = cr_contact_force_inline(&c->c[q].law, delta, rate);
        o[QC * q] = c->T * f;
        o[QC * q + 1] = c->T * f * n[0];
        o[QC * q + 2] = c->T * f * n[1];
        o[QC * c->nc] += c->T * cr_contact_dissipation_inline(&c->c[q].law, f, delta, rate);
    }
    return 0;
}

static int root_fns(sunrealtype t, N_Vector yv, sunrealtype *g, void *user)
{
    (void)t;
    const cr_clumps *c = user;
    const double *y = N_VGetArrayPointer(yv);
    for (size_t q = 0; q < c->nc; q++) {
        const contact *k = &c->c[q];
        double delta, rate, n[2], ri[2], rj[2];
        contact_geom(c, y, k, &delta, &rate, n, ri, rj);
        double d = delta / c->L;
        g[GC * q] = cr_root_nonzero(d - CR_EVENT_MARGIN);
        /* δ̇ matters while the pair overlaps (a body at rest would make it
         * identically 0, which CVODES cannot search) */
        g[GC * q + 1] = cr_root_nonzero(d > CR_EVENT_MARGIN ? rate / c->V : 1.0);
        g[GC * q + 2] = cr_root_nonzero(
            k->law.C != 0.0 && k->law.release == CR_RELEASE_FORCE && delta > 0.0
                ? cr_contact_raw_force(&k->law, delta, rate) / (k->law.K * pow(c->L, k->law.n))
                : 1.0);
    }
    return 0;
}

/* ---- setup --------------------------------------------------------------- */

void cr_clumps_destroy(cr_clumps *c)
{
    if (!c)
        return;
    if (c->cv)
        CVodeFree(&c->cv);
    if (c->LS)
        SUNLinSolFree(c->LS);
    if (c->A)
        SUNMatDestroy(c->A);
    if (c->y)
        N_VDestroy(c->y);
    if (c->yQ)
        N_VDestroy(c->yQ);
    if (c->ctx)
        SUNContext_Free(&c->ctx);
    void *arr[] = {c->m, c->J, c->rho, c->x0,   c->th0,   c->v0, c->om0, c->still,
                   c->f, c->c, c->wn,  c->woff, c->roots, c->ev, c->fc,  c->fcstart};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
        free(arr[k]);
    free(c);
}

/* Body of each model body: its clump, or a clump of one after the clumps. */
static int load_bodies(cr_clumps *c, const cr_model *md)
{
    size_t nm = cr_model_body_count(md), ncl = cr_model_clump_count(md);
    long *owner = malloc(nm * sizeof(*owner));
    if (!owner)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < nm; i++)
        owner[i] = -1;
    for (size_t k = 0; k < ncl; k++) {
        const cr_clump *cl = cr_model_get_clump(md, k);
        for (size_t i = cl->first; i < cl->first + cl->count; i++)
            owner[i] = (long)k;
    }
    c->nb = ncl;
    for (size_t i = 0; i < nm; i++)
        if (owner[i] < 0)
            owner[i] = (long)c->nb++;
    c->nf = nm;
    size_t nb = c->nb;
    c->m = calloc(nb, sizeof(double));
    c->J = calloc(nb, sizeof(double));
    c->rho = calloc(nb, sizeof(double));
    c->x0 = calloc(2 * nb, sizeof(double));
    c->v0 = calloc(2 * nb, sizeof(double));
    c->th0 = calloc(nb, sizeof(double));
    c->om0 = calloc(nb, sizeof(double));
    c->still = calloc(nb, 1);
    c->f = calloc(nm, sizeof(feature));
    if (!c->m || !c->J || !c->rho || !c->x0 || !c->v0 || !c->th0 || !c->om0 || !c->still || !c->f) {
        free(owner);
        return CR_ERR_NOMEM;
    }
    for (size_t i = 0; i < nm; i++) {
        double x[3], v[3];
        size_t b = (size_t)owner[i];
        cr_model_get_body(md, i, x, v);
        feature *f = &c->f[i];
        f->body = b;
        f->r = cr_model_radius(md, i);
        f->p0[0] = x[0];
        f->p0[1] = x[1];
        if (b >= ncl) { /* a clump of one: its centre, no rotation */
            c->m[b] = cr_model_mass(md, i);
            c->still[b] = (char)cr_model_is_fixed(md, i);
            c->x0[2 * b] = x[0];
            c->x0[2 * b + 1] = x[1];
            c->v0[2 * b] = v[0];
            c->v0[2 * b + 1] = v[1];
            c->rho[b] = 1.0;
            continue;
        }
        const cr_clump *cl = cr_model_get_clump(md, b);
        double dx = x[0] - cl->x[0], dy = x[1] - cl->x[1], ct = cos(cl->theta), st = sin(cl->theta);
        f->s[0] = ct * dx + st * dy; /* R(−θ₀) (p − x) */
        f->s[1] = -st * dx + ct * dy;
        c->rho[b] = fmax(c->rho[b], hypot(f->s[0], f->s[1]) + f->r);
    }
    for (size_t k = 0; k < ncl; k++) {
        const cr_clump *cl = cr_model_get_clump(md, k);
        c->m[k] = cl->mass;
        c->J[k] = cl->J;
        memcpy(c->x0 + 2 * k, cl->x, 2 * sizeof(double));
        memcpy(c->v0 + 2 * k, cl->v, 2 * sizeof(double));
        c->th0[k] = cl->theta;
        c->om0[k] = cl->omega;
    }
    free(owner);
    return CR_OK;
}

static int add_contact(cr_clumps *c, size_t *cap, const contact *k)
{
    if (c->nc == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        contact *a = realloc(c->c, nc * sizeof(*a));
        if (!a)
            return CR_ERR_NOMEM;
        c->c = a;
        *cap = nc;
    }
    c->c[c->nc++] = *k;
    return CR_OK;
}

/* Every feature pair of two bodies that are not both still, every feature
 * of a moving body with every wall; refuses a start inside a wall. */
static int load_contacts(cr_clumps *c, const cr_model *md, char *msg, size_t msglen)
{
    size_t cap = 0;
    c->nw = cr_model_plane_count(md);
    c->wn = calloc(2 * c->nw + 1, sizeof(double));
    c->woff = calloc(c->nw + 1, sizeof(double));
    if (!c->wn || !c->woff)
        return CR_ERR_NOMEM;
    for (size_t w = 0; w < c->nw; w++) {
        double n[3];
        cr_model_get_plane(md, w, n, &c->woff[w]);
        c->wn[2 * w] = n[0];
        c->wn[2 * w + 1] = n[1];
    }
    for (size_t i = 0; i < c->nf; i++) {
        const feature *fi = &c->f[i];
        for (size_t j = i + 1; j < c->nf; j++) {
            const feature *fj = &c->f[j];
            if (fi->body == fj->body || (c->still[fi->body] && c->still[fj->body]))
                continue;
            contact k = {.i = (long)i, .j = (long)j, .R = fi->r + fj->r};
            k.a0[0] = fj->p0[0] - fi->p0[0];
            k.a0[1] = fj->p0[1] - fi->p0[1];
            k.c0 = k.R * k.R - (k.a0[0] * k.a0[0] + k.a0[1] * k.a0[1]);
            if (cr_model_pair_law(md, i, (long)j, &k.law) || add_contact(c, &cap, &k))
                return CR_ERR_NOMEM;
        }
        for (size_t w = 0; !c->still[fi->body] && w < c->nw; w++) {
            const double *n = c->wn + 2 * w;
            contact k = {.i = (long)i, .j = CR_WALL_BODY(w)};
            k.c0 = c->woff[w] + fi->r - (n[0] * fi->p0[0] + n[1] * fi->p0[1]);
            if (k.c0 > CR_GEOM_TOL * fi->r) {
                cr_set_msg(msg, msglen, "feature %zu starts inside wall %zu (overlap %g m)", i, w,
                           k.c0);
                return CR_ERR_MODEL;
            }
            if (cr_model_pair_law(md, i, CR_WALL_BODY(w), &k.law) || add_contact(c, &cap, &k))
                return CR_ERR_NOMEM;
        }
    }
    return CR_OK;
}

/* Each feature's contacts (cr_system_body_contacts: the monitor's groups). */
static int index_contacts(cr_clumps *c)
{
    c->fcstart = calloc(c->nf + 1, sizeof(size_t));
    c->fc = malloc((2 * c->nc + 1) * sizeof(size_t));
    if (!c->fcstart || !c->fc)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < c->nc; q++) {
        c->fcstart[c->c[q].i + 1]++;
        if (c->c[q].j >= 0)
            c->fcstart[c->c[q].j + 1]++;
    }
    for (size_t i = 0; i < c->nf; i++)
        c->fcstart[i + 1] += c->fcstart[i];
    size_t *fill = calloc(c->nf + 1, sizeof(size_t));
    if (!fill)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < c->nc; q++) {
        size_t i = (size_t)c->c[q].i;
        c->fc[c->fcstart[i] + fill[i]++] = q;
        if (c->c[q].j >= 0) {
            size_t j = (size_t)c->c[q].j;
            c->fc[c->fcstart[j] + fill[j]++] = q;
        }
    }
    free(fill);
    return CR_OK;
}

const size_t *cr_clumps_feature_contacts(const cr_clumps *c, size_t f, size_t *n)
{
    *n = c->fcstart[f + 1] - c->fcstart[f];
    return *n ? c->fc + c->fcstart[f] : NULL;
}

/* V bounds every feature's speed; δ* is the smallest characteristic overlap
 * (μ V²/K)^(1/(n+1)) over the contacts, μ the lighter moving body's mass. */
static void choose_scales(cr_clumps *c)
{
    double V = 0.0;
    for (size_t b = 0; b < c->nb; b++)
        V = fmax(V, hypot(c->v0[2 * b], c->v0[2 * b + 1]) + fabs(c->om0[b]) * c->rho[b]);
    c->V = V > 0.0 ? 2.0 * V : 1.0;
    c->L = INFINITY;
    for (size_t q = 0; q < c->nc; q++) {
        const contact *k = &c->c[q];
        size_t bi = c->f[k->i].body;
        double mu = c->still[bi] ? INFINITY : c->m[bi];
        if (k->j >= 0 && !c->still[c->f[k->j].body])
            mu = fmin(mu, c->m[c->f[k->j].body]);
        c->L = fmin(c->L, pow(mu * c->V * c->V / k->law.K, 1.0 / (k->law.n + 1.0)));
    }
    if (!isfinite(c->L))
        c->L = 1.0;
    c->T = c->L / c->V;
}

static int fail(cr_clumps *c, const char *what, int flag)
{
    cr_set_msg(c->err, sizeof c->err, "%s failed (flag %d) at t = %g s", what, flag, c->t);
    return CR_ERR_SOLVER;
}

/* The impulses are the results: their error is controlled too, with atol
 * relative to the lightest body's momentum m V (and its energy m V²). */
static int quad_tolerances(cr_clumps *c)
{
    double m = INFINITY;
    for (size_t b = 0; b < c->nb; b++)
        if (!c->still[b])
            m = fmin(m, c->m[b]);
    if (!isfinite(m))
        m = 1.0;
    int flag = CVodeQuadSStolerances(c->cv, c->rtol, c->atol * m * c->V * c->V);
    return flag == CV_SUCCESS ? CVodeSetQuadErrCon(c->cv, SUNTRUE) : flag;
}

static int new_cvode(cr_clumps *c)
{
    size_t ny = SB * c->nb, nq = QC * c->nc + 1;
    c->y = N_VNew_Serial((sunindextype)ny, c->ctx);
    c->yQ = N_VNew_Serial((sunindextype)nq, c->ctx);
    c->cv = CVodeCreate(CV_BDF, c->ctx);
    c->A = SUNDenseMatrix((sunindextype)ny, (sunindextype)ny, c->ctx);
    c->roots = calloc(GC * c->nc + 1, sizeof(int));
    if (!c->y || !c->yQ || !c->cv || !c->A || !c->roots)
        return CR_ERR_NOMEM;
    double *y = N_VGetArrayPointer(c->y);
    for (size_t b = 0; b < c->nb; b++) {
        double *u = y + SB * b;
        u[0] = u[1] = u[2] = 0.0;
        u[3] = c->v0[2 * b] / c->V;
        u[4] = c->v0[2 * b + 1] / c->V;
        u[5] = c->J[b] > 0.0 ? c->om0[b] * c->rho[b] / c->V : 0.0;
    }
    N_VConst(0.0, c->yQ);
    c->LS = SUNLinSol_Dense(c->y, c->A, c->ctx);
    int flag;
    if (!c->LS || (flag = CVodeInit(c->cv, rhs, 0.0, c->y)) != CV_SUCCESS ||
        (flag = CVodeSStolerances(c->cv, c->rtol, c->atol)) != CV_SUCCESS ||
        (flag = CVodeSetUserData(c->cv, c)) != CV_SUCCESS ||
        (flag = CVodeSetErrHandlerFn(c->cv, cr_sundials_error_handler, c->err)) != CV_SUCCESS ||
        (flag = CVodeSetMaxNumSteps(c->cv, 1000000)) != CV_SUCCESS ||
        (flag = CVodeSetLinearSolver(c->cv, c->LS, c->A)) != CV_SUCCESS ||
        (flag = CVodeQuadInit(c->cv, quad_rhs, c->yQ)) != CV_SUCCESS ||
        (flag = quad_tolerances(c)) != CV_SUCCESS ||
        (flag = CVodeRootInit(c->cv, (int)(GC * c->nc), root_fns)) != CV_SUCCESS)
        return fail(c, "CVODES setup", c->LS ? flag : -1);
    return CR_OK;
}

cr_clumps *cr_clumps_create(const cr_model *model, char *msg, size_t msglen)
{
    if (!model || cr_model_dimension(model) != 2) {
        cr_set_msg(msg, msglen, "rigid bodies (clumps) are planar: dim 2");
        return NULL;
    }
    /* every feature pair is a candidate and the Jacobian is dense: small models */
    if (cr_model_body_count(model) > CR_CLUMPS_MAX_FEATURES) {
        cr_set_msg(msg, msglen,
                   "%zu discs: a model with rigid bodies holds at most %d (the clump engine "
                   "takes every pair as a candidate)",
                   cr_model_body_count(model), CR_CLUMPS_MAX_FEATURES);
        return NULL;
    }
    cr_clumps *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    const cr_settings *s = cr_model_settings(model);
    double g[3] = {0, 0, 0};
    cr_model_get_gravity_vector(model, g);
    c->g[0] = g[0];
    c->g[1] = g[1];
    c->rtol = s->rtol;
    c->atol = s->atol;
    int rc = load_bodies(c, model);
    if (rc == CR_OK)
        rc = load_contacts(c, model, msg, msglen);
    if (rc == CR_OK)
        rc = index_contacts(c);
    if (rc == CR_OK) {
        choose_scales(c);
        rc = SUNContext_Create(NULL, &c->ctx) != 0 ? CR_ERR_NOMEM : new_cvode(c);
    }
    if (rc != CR_OK) {
        if (rc == CR_ERR_NOMEM)
            cr_set_msg(msg, msglen, "out of memory");
        else if (rc == CR_ERR_SOLVER)
            cr_set_msg(msg, msglen, "%s", c->err);
        cr_clumps_destroy(c);
        return NULL;
    }
    return c;
}

int cr_clumps_set_tolerances(cr_clumps *c, double rtol, double atol)
{
    if (!c || !(rtol > 0.0) || !(atol > 0.0))
        return CR_ERR_INVALID;
    c->rtol = rtol;
    c->atol = atol;
    int flag = CVodeSStolerances(c->cv, rtol, atol);
    if (flag == CV_SUCCESS)
        flag = quad_tolerances(c);
    return flag == CV_SUCCESS ? CR_OK : fail(c, "CVodeSStolerances", flag);
}

/* ---- run ----------------------------------------------------------------- */

static int record(cr_clumps *c, size_t q, cr_event_kind kind, double delta, double rate, double f)
{
    if (cr_event_room(&c->ev, c->nev, &c->evcap) != 0)
        return CR_ERR_NOMEM;
    const double *Q = N_VGetArrayPointer(c->yQ);
    c->ev[c->nev++] = (cr_event){c->t, q, kind, delta, rate, f, Q[QC * q]};
    return CR_OK;
}

/* The events of one root return (CVODES gives the direction of each crossing). */
static int handle_roots(cr_clumps *c, double tau)
{
    int flag = CVodeGetRootInfo(c->cv, c->roots);
    if (flag != CV_SUCCESS)
        return fail(c, "CVodeGetRootInfo", flag);
    if ((flag = CVodeGetQuad(c->cv, &tau, c->yQ)) < 0)
        return fail(c, "CVodeGetQuad", flag);
    const double *y = N_VGetArrayPointer(c->y);
    for (size_t q = 0; q < c->nc; q++) {
        const int *r = c->roots + GC * q;
        if (!r[0] && !r[1] && !r[2])
            continue;
        double delta, rate, n[2], ri[2], rj[2];
        contact_geom(c, y, &c->c[q], &delta, &rate, n, ri, rj);
        double f = cr_contact_force_inline(&c->c[q].law, delta, rate);
        int rc = CR_OK;
        if (r[0])
            rc = record(c, q, r[0] > 0 ? CR_EVENT_CLOSE : CR_EVENT_OPEN, delta, rate, f);
        /* δ̇'s root function switches to 1 where δ crosses the margin: not a
         * turn of the compression */
        if (rc == CR_OK && r[1] && !r[0] && delta > 0.0)
            rc = record(c, q, r[1] < 0 ? CR_EVENT_MAX_COMPRESSION : CR_EVENT_MIN_COMPRESSION, delta,
                        rate, f);
        if (rc == CR_OK && r[2] && delta > 0.0)
            rc = record(c, q, r[2] < 0 ? CR_EVENT_FORCE_RELEASE : CR_EVENT_FORCE_REENGAGE, delta,
                        rate, f);
        if (rc != CR_OK)
            return rc;
    }
    return CR_OK;
}

/* The force is not smooth where a contact closes or opens: the integrator
 * starts afresh at every event (small models: the restart is cheap). */
static int restart(cr_clumps *c, double tau)
{
    int flag = cr_cvode_restart(c->cv, tau, c->y, c->yQ, &c->banked);
    c->restarts++;
    return flag == CV_SUCCESS ? CR_OK : fail(c, "CVodeReInit", flag);
}

cr_run_stats cr_clumps_get_stats(const cr_clumps *c)
{
    cr_run_stats st;
    memset(&st, 0, sizeof st);
    cr_cvode_counters(c->cv, &c->banked, &st);
    st.restarts = c->restarts;
    st.events = (long)c->nev;
    st.outputs = c->outputs;
    return st;
}

void cr_clumps_set_callbacks(cr_clumps *c, double interval, cr_clumps_out_fn out,
                             cr_clumps_ev_fn ev, void *user)
{
    c->out_interval = interval;
    c->out = out;
    c->evfn = ev;
    c->user = user;
}

/* One CVode call towards tau_out; events and restarts at a root return. */
static int step_to(cr_clumps *c, double tau_out, double *tau)
{
    int flag = CVode(c->cv, tau_out, c->y, tau, CV_NORMAL);
    c->t = *tau * c->T;
    if (flag < 0 && c->stop) /* the state of its last step, *tau */
        return CR_ERR_INTERRUPTED;
    if (flag < 0)
        return fail(c, "CVode", flag);
    if (CVodeGetQuad(c->cv, tau, c->yQ) < 0)
        return fail(c, "CVodeGetQuad", -1);
    if (flag != CV_ROOT_RETURN)
        return CR_OK;
    size_t first = c->nev;
    int rc = handle_roots(c, *tau);
    if (rc == CR_OK && c->evfn && c->nev > first)
        rc = c->evfn(c->user, first);
    /* a root without an event (δ̇ of an open pair) leaves the force smooth */
    return rc == CR_OK && c->nev > first ? restart(c, *tau) : rc;
}

int cr_clumps_run(cr_clumps *c, double t_end)
{
    if (!c)
        return CR_ERR_INVALID;
    if (!(t_end > c->t)) {
        cr_set_msg(c->err, sizeof c->err,
                   "integration.t_end: a run of rigid bodies needs an end time after %g s (no "
                   "automatic end yet)",
                   c->t);
        return CR_ERR_MODEL;
    }
    double tau_end = t_end / c->T, tau = c->t / c->T;
    /* as the pool: a quarter of δ* / V, but at least a thousandth of the run */
    double dt = c->out_interval > 0.0 ? c->out_interval / c->T : fmax(0.25, (tau_end - tau) / 1000);
    double next = fmin(tau + dt, tau_end);
    int rc = c->out && c->t == 0.0 ? cr_listener_code(c->out(c->user)) : CR_OK;
    CVodeSetStopTime(c->cv, tau_end);
    while (rc == CR_OK && tau < tau_end) {
        rc = c->stop ? CR_ERR_INTERRUPTED : step_to(c, next, &tau);
        if (rc == CR_OK && tau >= next) {
            c->outputs++;
            if (c->out)
                rc = cr_listener_code(c->out(c->user));
            next = fmin(next + dt, tau_end);
        }
    }
    if (rc == CR_ERR_INTERRUPTED && c->stop) {
        c->stop = 0;
        if (c->out)
            c->out(c->user); /* the state where it stopped */
    }
    if (rc == CR_ERR_INTERRUPTED || (rc != CR_OK && !c->err[0])) {
        char reason[64];
        return cr_run_stopped(rc, c->t, reason, sizeof reason, c->err, sizeof c->err);
    }
    return rc;
}

void cr_clumps_request_stop(cr_clumps *c)
{
    c->stop = 1;
}

const char *cr_clumps_last_error(const cr_clumps *c)
{
    return c ? c->err : "no engine";
}

/* ---- queries ------------------------------------------------------------- */

size_t cr_clumps_body_count(const cr_clumps *c)
{
    return c->nb;
}

double cr_clumps_get_time(const cr_clumps *c)
{
    return c->t;
}

void cr_clumps_get_body(const cr_clumps *c, size_t b, double *x, double *v, double *theta,
                        double *omega)
{
    const double *u = N_VGetArrayPointer(c->y) + SB * b;
    for (int d = 0; d < 2; d++) {
        x[d] = c->x0[2 * b + (size_t)d] + c->L * u[d];
        v[d] = c->V * u[3 + d];
    }
    *theta = c->th0[b] + c->L * u[2] / c->rho[b];
    *omega = c->V * u[5] / c->rho[b];
}

void cr_clumps_get_inertia(const cr_clumps *c, size_t b, double *mass, double *J)
{
    *mass = c->m[b];
    *J = c->J[b];
}

double cr_clumps_kinetic_energy(const cr_clumps *c)
{
    double E = 0.0;
    for (size_t b = 0; b < c->nb; b++) {
        double x[2], v[2], th, om;
        if (c->still[b])
            continue;
        cr_clumps_get_body(c, b, x, v, &th, &om);
        E += 0.5 * c->m[b] * (v[0] * v[0] + v[1] * v[1]) + 0.5 * c->J[b] * om * om;
    }
    return E;
}

double cr_clumps_dissipated_work(const cr_clumps *c)
{
    return N_VGetArrayPointer(c->yQ)[QC * c->nc];
}

void cr_clumps_momentum(const cr_clumps *c, double *mom)
{
    mom[0] = mom[1] = 0.0;
    for (size_t b = 0; b < c->nb; b++) {
        double x[2], v[2], th, om;
        if (c->still[b])
            continue;
        cr_clumps_get_body(c, b, x, v, &th, &om);
        mom[0] += c->m[b] * v[0];
        mom[1] += c->m[b] * v[1];
    }
}

double cr_clumps_angular_momentum(const cr_clumps *c, const double *o)
{
    double Lz = 0.0;
    for (size_t b = 0; b < c->nb; b++) {
        double x[2], v[2], th, om;
        if (c->still[b])
            continue;
        cr_clumps_get_body(c, b, x, v, &th, &om);
        Lz += c->m[b] * ((x[0] - o[0]) * v[1] - (x[1] - o[1]) * v[0]) + c->J[b] * om;
    }
    return Lz;
}

size_t cr_clumps_contact_count(const cr_clumps *c)
{
    return c->nc;
}

void cr_clumps_contact_features(const cr_clumps *c, size_t k, long *i, long *j)
{
    *i = c->c[k].i;
    *j = c->c[k].j;
}

double cr_clumps_contact_impulse(const cr_clumps *c, size_t k, double *vec)
{
    const double *Q = N_VGetArrayPointer(c->yQ) + QC * k;
    if (vec) {
        vec[0] = Q[1];
        vec[1] = Q[2];
    }
    return Q[0];
}

void cr_clumps_contact_now(const cr_clumps *c, size_t k, double *delta, double *rate, double *n,
                           double *force)
{
    double ri[2], rj[2];
    contact_geom(c, N_VGetArrayPointer(c->y), &c->c[k], delta, rate, n, ri, rj);
    *force = cr_contact_force_inline(&c->c[k].law, *delta, *rate);
}

void cr_clumps_feature(const cr_clumps *c, size_t f, double *x, double *v)
{
    double d[2], rs[2];
    feature_kin(c, N_VGetArrayPointer(c->y), f, d, v, rs);
    x[0] = c->f[f].p0[0] + d[0];
    x[1] = c->f[f].p0[1] + d[1];
}

size_t cr_clumps_feature_body(const cr_clumps *c, size_t f)
{
    return c->f[f].body;
}

void cr_clumps_scales(const cr_clumps *c, double *L, double *V, double *T)
{
    if (L)
        *L = c->L;
    if (V)
        *V = c->V;
    if (T)
        *T = c->T;
}

size_t cr_clumps_event_count(const cr_clumps *c)
{
    return c->nev;
}

const cr_event *cr_clumps_events(const cr_clumps *c)
{
    return c->ev;
}
