/*
 * Rigid impact laws. Every law returns P and u⁺ = u⁻ + M⁻¹ W P, so the impulse
 * balance M(u⁺ − u⁻) = W P holds by construction; what differs is how P is
 * chosen. Each law checks its own conditions on the answer (residual) and says
 * so in the status instead of returning numbers that violate them.
 */
#include "cradle/laws.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "laws/dense-priv.h"
#include "laws/laws.h"
#include "laws/lcp-priv.h"
#include "base/base.h"
#include "base/yaml.h"

/* ---- configuration --------------------------------------------------------- */

cr_impact *cr_impact_create(size_t n, size_t m)
{
    /* the caps are the laws' business (CR_LAW_TOO_LARGE); this only keeps n² and
     * n·m from overflowing size_t */
    if (n == 0 || n > 100000 || m > 100000)
        return NULL;
    cr_impact *imp = calloc(1, sizeof(*imp));
    if (!imp)
        return NULL;
    imp->n = n;
    imp->m = m;
    size_t mm = m ? m : 1;
    imp->M = calloc(n * n, sizeof(double));
    imp->L = calloc(n * n, sizeof(double));
    imp->W = calloc(n * mm, sizeof(double));
    imp->MiW = calloc(n * mm, sizeof(double));
    imp->G = calloc(mm * mm, sizeof(double));
    imp->what = calloc(mm, sizeof(double));
    imp->gamma = calloc(mm, sizeof(double));
    imp->u = calloc(n, sizeof(double));
    if (!imp->M || !imp->L || !imp->W || !imp->MiW || !imp->G || !imp->what || !imp->gamma ||
        !imp->u) {
        cr_impact_destroy(imp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        CR_AT(imp->M, n, i, i) = 1.0;
    return imp;
}

void cr_impact_destroy(cr_impact *imp)
{
    if (!imp)
        return;
    free(imp->M);
    free(imp->L);
    free(imp->W);
    free(imp->MiW);
    free(imp->G);
    free(imp->what);
    free(imp->gamma);
    free(imp->u);
    free(imp);
}

static int all_finite(const double *v, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

int cr_impact_set_mass(cr_impact *imp, const double *M)
{
    CR_CHECK(imp && M && all_finite(M, imp->n * imp->n), imp ? imp->err : NULL, CR_ERR_INVALID);
    for (size_t i = 0; i < imp->n; i++)
        for (size_t j = 0; j < imp->n; j++) {
            if (fabs(M[i * imp->n + j] - M[j * imp->n + i]) >
                1e-12 * (fabs(M[i * imp->n + j]) + fabs(M[j * imp->n + i]))) {
                cr_set_msg(imp->err, sizeof imp->err, "mass matrix is not symmetric at (%zu, %zu)",
                           i, j);
                return CR_ERR_INVALID;
            }
            CR_AT(imp->M, imp->n, i, j) = M[i * imp->n + j];
        }
    imp->prepared = 0;
    return CR_OK;
}

int cr_impact_set_mass_diagonal(cr_impact *imp, const double *m)
{
    CR_CHECK(imp && m && all_finite(m, imp->n), imp ? imp->err : NULL, CR_ERR_INVALID);
    memset(imp->M, 0, imp->n * imp->n * sizeof(double));
    for (size_t i = 0; i < imp->n; i++)
        CR_AT(imp->M, imp->n, i, i) = m[i];
    imp->prepared = 0;
    return CR_OK;
}

int cr_impact_set_gradient(cr_impact *imp, size_t c, const double *w)
{
    CR_CHECK(imp && w && c < imp->m && all_finite(w, imp->n), imp ? imp->err : NULL,
             CR_ERR_INVALID);
    memcpy(imp->W + c * imp->n, w, imp->n * sizeof(double));
    imp->prepared = 0;
    return CR_OK;
}

int cr_impact_set_excitation(cr_impact *imp, const double *what)
{
    CR_CHECK(imp && what && all_finite(what, imp->m), imp ? imp->err : NULL, CR_ERR_INVALID);
    memcpy(imp->what, what, imp->m * sizeof(double));
    imp->prepared = 0;
    return CR_OK;
}

int cr_impact_set_velocity(cr_impact *imp, const double *u)
{
    CR_CHECK(imp && u && all_finite(u, imp->n), imp ? imp->err : NULL, CR_ERR_INVALID);
    memcpy(imp->u, u, imp->n * sizeof(double));
    imp->prepared = 0;
    return CR_OK;
}

cr_impact *cr_impact_create_chain(size_t nb, const double *masses, const double *u)
{
    if (nb == 0 || !masses || !u)
        return NULL;
    cr_impact *imp = cr_impact_create(nb, nb - 1);
    if (!imp)
        return NULL;
    cr_impact_set_mass_diagonal(imp, masses);
    cr_impact_set_velocity(imp, u);
    for (size_t c = 0; c + 1 < nb; c++) {
        CR_AT(imp->W, nb, c, c) = -1.0;
        CR_AT(imp->W, nb, c + 1, c) = 1.0;
    }
    return imp;
}

cr_impact *cr_impact_create_discs(size_t nd, const double *masses, const double *xy, size_t nc,
                                  const size_t *pairs, const double *u)
{
    if (nd == 0 || !masses || !xy || !u || (nc && !pairs))
        return NULL;
    cr_impact *imp = cr_impact_create(2 * nd, nc);
    if (!imp)
        return NULL;
    for (size_t i = 0; i < nd; i++)
        CR_AT(imp->M, 2 * nd, 2 * i, 2 * i) = CR_AT(imp->M, 2 * nd, 2 * i + 1, 2 * i + 1) =
            masses[i];
    cr_impact_set_velocity(imp, u);
    for (size_t k = 0; k < nc; k++) {
        size_t a = pairs[2 * k], b = pairs[2 * k + 1];
        if (a >= nd || b >= nd || a == b) {
            cr_impact_destroy(imp);
            return NULL;
        }
        double dx = xy[2 * b] - xy[2 * a], dy = xy[2 * b + 1] - xy[2 * a + 1];
        double d = hypot(dx, dy);
        if (!(d > 0.0) || !isfinite(d)) { /* coincident centres: no normal */
            cr_impact_destroy(imp);
            return NULL;
        }
        /* γ = n·(u_b − u_a): the normal relative velocity, positive separating */
        double *w = imp->W + k * 2 * nd;
        w[2 * a] = -dx / d;
        w[2 * a + 1] = -dy / d;
        w[2 * b] = dx / d;
        w[2 * b + 1] = dy / d;
    }
    return imp;
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

cr_impact *cr_impact_create_rigid(size_t nb, const cr_rigid_body *bodies, size_t nc,
                                  const cr_rigid_contact *contacts)
{
    if (nb == 0 || !bodies || (nc && !contacts))
        return NULL;
    size_t n = 6 * nb;
    cr_impact *imp = cr_impact_create(n, nc);
    if (!imp)
        return NULL;
    for (size_t b = 0; b < nb; b++) {
        for (int k = 0; k < 3; k++) {
            CR_AT(imp->M, n, 6 * b + k, 6 * b + k) = bodies[b].mass;
            CR_AT(imp->M, n, 6 * b + 3 + k, 6 * b + 3 + k) = bodies[b].inertia[k];
            imp->u[6 * b + k] = bodies[b].v[k];
            imp->u[6 * b + 3 + k] = bodies[b].omega[k];
        }
    }
    for (size_t k = 0; k < nc; k++) {
        const cr_rigid_contact *c = &contacts[k];
        if (c->body_a >= (int)nb || c->body_b >= (int)nb || c->body_a < -1 || c->body_b < -1 ||
            c->body_a == c->body_b) {
            cr_impact_destroy(imp);
            return NULL;
        }
        double *w = imp->W + k * n, rn[3];
        if (c->body_b >= 0) {
            cross(c->r_b, c->normal, rn);
            for (int j = 0; j < 3; j++) {
                w[6 * c->body_b + j] += c->normal[j];
                w[6 * c->body_b + 3 + j] += rn[j];
            }
        }
        if (c->body_a >= 0) {
            cross(c->r_a, c->normal, rn);
            for (int j = 0; j < 3; j++) {
                w[6 * c->body_a + j] -= c->normal[j];
                w[6 * c->body_a + 3 + j] -= rn[j];
            }
        }
    }
    return imp;
}

cr_impact *cr_impact_create_pinned(const cr_rigid_body *b, const double *rp, size_t nc,
                                   const cr_rigid_contact *contacts)
{
    if (!b || !rp || (nc && !contacts))
        return NULL;
    cr_impact *imp = cr_impact_create(3, nc);
    if (!imp)
        return NULL;
    double r2 = rp[0] * rp[0] + rp[1] * rp[1] + rp[2] * rp[2];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            CR_AT(imp->M, 3, i, j) = b->mass * ((i == j ? r2 : 0.0) - rp[i] * rp[j]);
        CR_AT(imp->M, 3, i, i) += b->inertia[i];
        imp->u[i] = b->omega[i];
    }
    for (size_t k = 0; k < nc; k++) {
        const cr_rigid_contact *c = &contacts[k];
        int on_b = c->body_b == 0, on_a = c->body_a == 0;
        if (on_a == on_b) { /* the body must be on exactly one side, the ground on the other */
            cr_impact_destroy(imp);
            return NULL;
        }
        const double *r = on_b ? c->r_b : c->r_a;
        double d[3] = {r[0] - rp[0], r[1] - rp[1], r[2] - rp[2]}, w[3];
        cross(d, c->normal, w);
        for (int i = 0; i < 3; i++)
            CR_AT(imp->W, 3, i, k) = on_b ? w[i] : -w[i];
    }
    return imp;
}

size_t cr_impact_dof_count(const cr_impact *imp)
{
    return imp->n;
}

size_t cr_impact_contact_count(const cr_impact *imp)
{
    return imp->m;
}

const char *cr_impact_last_error(const cr_impact *imp)
{
    return imp ? imp->err : "no impact configuration";
}

/* ½ (v/s)ᵀ M (v/s) */
double cr_laws_kinetic_scaled(const cr_impact *imp, const double *v, double s)
{
    double T = 0.0;
    for (size_t i = 0; i < imp->n; i++)
        for (size_t j = 0; j < imp->n; j++)
            T += 0.5 * (v[i] / s) * CR_AT(imp->M, imp->n, i, j) * (v[j] / s);
    return T;
}

static double kinetic(const cr_impact *imp, const double *v)
{
    return cr_laws_kinetic_scaled(imp, v, 1.0);
}

static int refuse(cr_impact *imp, long contact, const char *why)
{
    imp->bad_contact = contact;
    cr_set_msg(imp->err, sizeof imp->err, "%s", why);
    return CR_ERR_INVALID;
}

/*
 * Cholesky of M, M⁻¹W, the Delassus matrix G = WᵀM⁻¹W and γ⁻, with the checks
 * every law relies on. dpotrf succeeds on matrices that are singular to working
 * precision; κ(M) = κ(L)² ≥ (max Lᵢᵢ / min Lᵢᵢ)² catches those.
 */
static int prepare(cr_impact *imp)
{
    if (imp->prepared)
        return CR_OK;
    size_t n = imp->n, m = imp->m;
    char why[160];
    imp->bad_contact = -1;
    const char *missing = cr_dense_load_error();
    if (missing)
        return refuse(imp, -1, missing);
    memcpy(imp->L, imp->M, n * n * sizeof(double));
    if (cr_dense_cholesky(imp->L, n) != 0)
        return refuse(imp, -1, "mass matrix is not positive definite");
    double lmin = INFINITY, lmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        lmin = fmin(lmin, CR_AT(imp->L, n, i, i));
        lmax = fmax(lmax, CR_AT(imp->L, n, i, i));
    }
    if (!(lmin * lmin > 1e-15 * lmax * lmax) || !isfinite(lmax))
        return refuse(imp, -1,
                      "mass matrix is singular to working precision (condition "
                      "number above 1e15)");
    memcpy(imp->MiW, imp->W, n * m * sizeof(double));
    if (m)
        cr_dense_cholesky_solve(imp->L, n, imp->MiW, m);
    if (m)
        cr_dense_atb(imp->W, imp->MiW, n, m, m, imp->G);
    imp->vscale = 0.0;
    for (size_t i = 0; i < n; i++)
        imp->vscale = fmax(imp->vscale, fabs(imp->u[i]));
    for (size_t c = 0; c < m; c++) {
        double g = imp->what[c];
        for (size_t i = 0; i < n; i++)
            g += CR_AT(imp->W, n, i, c) * imp->u[i];
        imp->gamma[c] = g;
        imp->vscale = fmax(imp->vscale, fabs(g));
        double gcc = CR_AT(imp->G, m, c, c);
        if (!(gcc > 0.0)) {
            snprintf(why, sizeof why,
                     "contact %zu has a zero gradient (it constrains no "
                     "velocity)",
                     c);
            return refuse(imp, (long)c, why);
        }
        if (!isfinite(gcc)) {
            snprintf(why, sizeof why,
                     "contact %zu: WᵀM⁻¹W overflows (masses near 1e-308 "
                     "or gradients near 1e308)",
                     c);
            return refuse(imp, (long)c, why);
        }
        if (!isfinite(g)) {
            snprintf(why, sizeof why,
                     "contact %zu: the relative velocity overflows "
                     "(velocities or gradients near 1e308)",
                     c);
            return refuse(imp, -2, why);
        }
    }
    if (imp->vscale == 0.0)
        imp->vscale = 1.0;
    imp->T = kinetic(imp, imp->u);
    imp->Ts = cr_laws_kinetic_scaled(imp, imp->u, imp->vscale);
    if (!isfinite(imp->T) || !isfinite(imp->vscale))
        return refuse(imp, -2,
                      "the kinetic energy overflows (masses or velocities near "
                      "1e308)");
    imp->prepared = 1;
    return CR_OK;
}

int cr_impact_check(cr_impact *imp, long *contact)
{
    if (contact)
        *contact = -1;
    if (!imp)
        return CR_ERR_INVALID;
    int rc = prepare(imp);
    if (rc != CR_OK && contact)
        *contact = imp->bad_contact;
    return rc;
}

void cr_impact_get_mass(const cr_impact *imp, double *M)
{
    for (size_t i = 0; i < imp->n; i++)
        for (size_t j = 0; j < imp->n; j++)
            M[i * imp->n + j] = CR_AT(imp->M, imp->n, i, j);
}

void cr_impact_get_gradients(const cr_impact *imp, double *W)
{
    for (size_t i = 0; i < imp->n; i++)
        for (size_t c = 0; c < imp->m; c++)
            W[i * imp->m + c] = CR_AT(imp->W, imp->n, i, c);
}

void cr_impact_get_velocity(const cr_impact *imp, double *u)
{
    memcpy(u, imp->u, imp->n * sizeof(double));
}

int cr_impact_get_gamma(cr_impact *imp, double *gamma)
{
    int rc = imp && gamma ? prepare(imp) : CR_ERR_INVALID;
    if (rc == CR_OK)
        memcpy(gamma, imp->gamma, imp->m * sizeof(double));
    return rc;
}

int cr_impact_get_delassus(cr_impact *imp, double *G)
{
    int rc = imp && G ? prepare(imp) : CR_ERR_INVALID;
    if (rc == CR_OK)
        for (size_t i = 0; i < imp->m; i++)
            for (size_t j = 0; j < imp->m; j++)
                G[i * imp->m + j] = CR_AT(imp->G, imp->m, i, j);
    return rc;
}

double cr_impact_kinetic_cosine(cr_impact *imp, size_t i, size_t j)
{
    if (!imp || i >= imp->m || j >= imp->m || prepare(imp) != CR_OK)
        return NAN;
    const double *G = imp->G;
    size_t m = imp->m;
    return CR_AT(G, m, i, j) / sqrt(CR_AT(G, m, i, i) * CR_AT(G, m, j, j));
}

/* ---- results --------------------------------------------------------------- */

cr_law_result *cr_law_result_create(void)
{
    return calloc(1, sizeof(cr_law_result));
}

void cr_law_result_destroy(cr_law_result *r)
{
    if (!r)
        return;
    free(r->u);
    free(r->P);
    free(r->ratio);
    free(r->work);
    free(r);
}

static void result_reset(cr_law_result *r, size_t n, size_t m)
{
    if (n != r->n || m != r->m) {
        /* the buffers are sized for (n, m): a result reused on another case starts over */
        free(r->u);
        free(r->P);
        free(r->ratio);
        free(r->work);
        r->u = r->P = r->ratio = r->work = NULL;
        r->cap = 0;
    }
    r->has_work = 0;
    r->n = n;
    r->m = m;
    r->count = 0;
    r->status = CR_LAW_OK;
    r->residual = 0.0;
    r->msg[0] = '\0';
    r->trace[0] = '\0';
}

int cr_laws_push(cr_law_result *r, const cr_impact *imp, const double *u, const double *P)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4;
        double *nu = realloc(r->u, cap * r->n * sizeof(double));
        if (!nu)
            return CR_ERR_NOMEM;
        r->u = nu;
        double *nP = realloc(r->P, cap * (r->m ? r->m : 1) * sizeof(double));
        if (!nP)
            return CR_ERR_NOMEM;
        r->P = nP;
        double *nr = realloc(r->ratio, cap * sizeof(double));
        if (!nr)
            return CR_ERR_NOMEM;
        r->ratio = nr;
        r->cap = cap;
    }
    memcpy(r->u + r->count * r->n, u, r->n * sizeof(double));
    memcpy(r->P + r->count * r->m, P, r->m * sizeof(double));
    r->ratio[r->count] =
        imp->Ts > 0.0 ? cr_laws_kinetic_scaled(imp, u, imp->vscale) / imp->Ts : NAN;
    r->count++;
    return CR_OK;
}

cr_law_status cr_law_result_status(const cr_law_result *r)
{
    return r->status;
}

const char *cr_law_result_message(const cr_law_result *r)
{
    return r->msg;
}

size_t cr_law_result_outcome_count(const cr_law_result *r)
{
    return r->count;
}

const double *cr_law_result_velocity(const cr_law_result *r, size_t k)
{
    return k < r->count ? r->u + k * r->n : NULL;
}

const double *cr_law_result_impulse(const cr_law_result *r, size_t k)
{
    return k < r->count ? r->P + k * r->m : NULL;
}

double cr_law_result_energy_ratio(const cr_law_result *r, size_t k)
{
    return k < r->count ? r->ratio[k] : NAN;
}

const char *cr_law_result_trace(const cr_law_result *r)
{
    return r->trace;
}

double cr_law_result_residual(const cr_law_result *r)
{
    return r->residual;
}

const double *cr_law_result_compression_work(const cr_law_result *r, size_t k)
{
    return k < r->count && r->has_work ? r->work : NULL;
}

/* ---- shared pieces of the laws --------------------------------------------- */

/* u⁺ = u⁻ + M⁻¹ W P */
void cr_laws_apply(const cr_impact *imp, const double *u0, const double *P, double *u)
{
    memcpy(u, u0, imp->n * sizeof(double));
    for (size_t c = 0; c < imp->m; c++)
        if (P[c] != 0.0)
            for (size_t i = 0; i < imp->n; i++)
                u[i] += CR_AT(imp->MiW, imp->n, i, c) * P[c];
}

/* γ = Wᵀu + ŵ */
static void relative_velocity(const cr_impact *imp, const double *u, double *g)
{
    for (size_t c = 0; c < imp->m; c++) {
        g[c] = imp->what[c];
        for (size_t i = 0; i < imp->n; i++)
            g[c] += CR_AT(imp->W, imp->n, i, c) * u[i];
    }
}

static double eps_of(const cr_law_params *p, size_t c)
{
    return p->restitutions ? p->restitutions[c] : p->restitution;
}

/* Poisson's coefficient of contact c: eᴾ when given, else the restitution. */
static double poisson_of(const cr_law_params *p, size_t c)
{
    return p->poisson_restitutions ? p->poisson_restitutions[c] : eps_of(p, c);
}

/* Restitutions in [0, 1]; with p->superelastic, where the law is defined for any
 * ε ≥ 0 (@p any_above, every law but Mosterman's), in [0, ∞). */
static int check_restitutions_of(cr_impact *imp, const cr_law_params *p, int poisson, int any_above)
{
    double top = p->superelastic && any_above ? INFINITY : 1.0;
    for (size_t c = 0; c < imp->m; c++) {
        double e = poisson ? poisson_of(p, c) : eps_of(p, c);
        if (!(e >= 0.0 && e <= top && isfinite(e))) {
            cr_set_msg(imp->err, sizeof imp->err, "%s of contact %zu must lie in %s (got %g)",
                       poisson && p->poisson_restitutions ? "Poisson restitution" : "restitution",
                       c, top > 1.0 ? "[0, inf) (superelastic)" : "[0, 1]", e);
            return CR_ERR_INVALID;
        }
    }
    return CR_OK;
}

static int check_restitutions(cr_impact *imp, const cr_law_params *p)
{
    return check_restitutions_of(imp, p, 0, 1);
}

/* Verdict of the complementarity checks: a violation beyond LAW_TOL is a failure. */
static void judge(cr_law_result *r, double violation, const char *what)
{
    r->residual = fmax(r->residual, violation);
    if (violation > 1e-7 && r->status == CR_LAW_OK) {
        r->status = CR_LAW_SOLVER_FAILED;
        snprintf(r->msg, sizeof r->msg, "%s violated by %.3g (relative)", what, violation);
    }
}

/* max over contacts of the violation of  a ≥ 0, b ≥ 0, a·b = 0, relative to scale */
static double complementarity_violation(size_t m, const double *a, const double *b, double scale_a,
                                        double scale_b)
{
    double v = 0.0;
    for (size_t i = 0; i < m; i++) {
        double x = a[i] / scale_a, y = b[i] / scale_b;
        v = fmax(v, fmax(-x, -y));
        v = fmax(v, fabs(fmin(x, y)));
    }
    return v;
}

static double impulse_scale(const cr_impact *imp)
{
    /* an impulse that changes γ by the velocity scale */
    double gmax = 0.0;
    for (size_t c = 0; c < imp->m; c++)
        gmax = fmax(gmax, CR_AT(imp->G, imp->m, c, c));
    return imp->vscale / gmax;
}

/* ---- 1. Newton inequality law (003 eq. 6-8; 001 eq. 10) --------------------- */

static int solve_lcp(cr_impact *imp, const double *q, double *z, cr_law_result *r)
{
    double res;
    if (cr_lcp_solve(imp->m, imp->G, q, z, &res) != 0) {
        r->status = CR_LAW_SOLVER_FAILED;
        snprintf(r->msg, sizeof r->msg, "Siconos LCP solver failed (residual %.3g)", res);
        return -1;
    }
    r->residual = fmax(r->residual, res);
    return 0;
}

/*
 * Closed contacts obey (γᵢ⁺ + εᵢγᵢ⁻) ≥ 0, Λᵢ ≥ 0, (γᵢ⁺ + εᵢγᵢ⁻)Λᵢ = 0 with
 * γ⁺ = γ⁻ + GΛ: the LCP  w = GΛ + (1 + E)γ⁻.
 */
static int law_newton(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t m = imp->m;
    int rc = check_restitutions(imp, p);
    if (rc != CR_OK)
        return rc;
    double *q = malloc((m + 1) * sizeof(double)), *z = malloc((m + 1) * sizeof(double));
    double *u = malloc(imp->n * sizeof(double)), *g = malloc((m + 1) * sizeof(double));
    if (!q || !z || !u || !g) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    for (size_t c = 0; c < m; c++)
        q[c] = (1.0 + eps_of(p, c)) * imp->gamma[c];
    if (solve_lcp(imp, q, z, r) != 0)
        goto done;
    cr_laws_apply(imp, imp->u, z, u);
    relative_velocity(imp, u, g);
    for (size_t c = 0; c < m; c++)
        g[c] += eps_of(p, c) * imp->gamma[c];
    judge(r, complementarity_violation(m, g, z, imp->vscale, impulse_scale(imp)),
          "Newton complementarity");
    rc = cr_laws_push(r, imp, u, z);
done:
    free(q);
    free(z);
    free(u);
    free(g);
    return rc;
}

/* ---- 2, 3. Global dissipation index and maximal dissipation ---------------- */

/*
 * Moreau decomposition in the kinetic metric (000 eq. 56-60, 003 eq. 26-31),
 * computed independently of the LCP: with M = L Lᵀ, x = Lᵀ(u⁻ − b) and B = L⁻¹W
 * the tangent cone is {x : Bᵀx ≥ 0} and its polar {−Bλ : λ ≥ 0}, so the normal
 * component is −Bλ with λ = argmin_{λ≥0} ‖x + Bλ‖ (non-negative least squares).
 * Then u⁺ = u⁻ + (1 + ε) M⁻¹ W λ. The excitation b only needs Wᵀb = −ŵ; the
 * minimum-norm x-correction c with Bᵀc = ŵ is used (003 eq. 26 with b).
 */
static int law_global_dissipation_eps(cr_impact *imp, double eps, cr_law_result *r)
{
    size_t n = imp->n, m = imp->m;
    int rc = CR_OK;
    double *B = malloc(n * m * sizeof(double) + 8), *x = malloc(n * sizeof(double));
    double *lam = malloc((m + 1) * sizeof(double)), *u = malloc(n * sizeof(double));
    double *c = malloc((n > m ? n : m) * sizeof(double) + 8),
           *Bt = malloc(n * m * sizeof(double) + 8);
    double *g = malloc((m + 1) * sizeof(double)), *sv = malloc((m + n) * sizeof(double));
    if (!B || !x || !lam || !u || !c || !Bt || !g || !sv) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    memcpy(B, imp->W, n * m * sizeof(double));
    cr_dense_lower_solve(imp->L, n, B, m);
    /* x = Lᵀ u⁻ */
    for (size_t i = 0; i < n; i++) {
        x[i] = 0.0;
        for (size_t k = i; k < n; k++)
            x[i] += CR_AT(imp->L, n, k, i) * imp->u[k];
    }
    int excited = 0;
    for (size_t k = 0; k < m; k++)
        excited |= imp->what[k] != 0.0;
    if (excited) {
        /* c = argmin ‖c‖ with Bᵀ c = ŵ  (LAPACK dgelsd on the m × n system) */
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                CR_AT(Bt, m, i, j) = CR_AT(B, n, j, i);
        memset(c, 0, (n > m ? n : m) * sizeof(double));
        memcpy(c, imp->what, m * sizeof(double));
        if (cr_dense_min_norm(Bt, m, n, c, sv) != 0) {
            r->status = CR_LAW_SOLVER_FAILED;
            snprintf(r->msg, sizeof r->msg, "excitation: least squares failed");
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            x[i] += c[i];
    }
    /* NNLS: min ‖B λ − (−x)‖ */
    for (size_t i = 0; i < n; i++)
        x[i] = -x[i];
    if (cr_dense_nnls(B, n, m, x, lam) != 0) {
        r->status = CR_LAW_SOLVER_FAILED;
        snprintf(r->msg, sizeof r->msg, "non-negative least squares did not converge");
        goto done;
    }
    /* check the decomposition: z = prox_T has γ_T = γ⁻ + Gλ ≥ 0, λ ≥ 0, λ·γ_T = 0 */
    for (size_t k = 0; k < m; k++) {
        g[k] = imp->gamma[k];
        for (size_t j = 0; j < m; j++)
            g[k] += CR_AT(imp->G, m, k, j) * lam[j];
    }
    judge(r, complementarity_violation(m, g, lam, imp->vscale, impulse_scale(imp)),
          "tangent-cone decomposition");
    for (size_t k = 0; k < m; k++)
        lam[k] *= 1.0 + eps;
    cr_laws_apply(imp, imp->u, lam, u);
    rc = cr_laws_push(r, imp, u, lam);
done:
    free(B);
    free(x);
    free(lam);
    free(u);
    free(c);
    free(Bt);
    free(g);
    free(sv);
    return rc;
}

static int law_global_dissipation(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    int rc = check_restitutions(imp, p);
    if (rc != CR_OK)
        return rc;
    /* one ε for every contact (000 eq. 56): per-contact values are taken only when
     * they are all the same number */
    for (size_t c = 1; c < imp->m; c++)
        if (eps_of(p, c) != eps_of(p, 0)) {
            cr_set_msg(imp->err, sizeof imp->err,
                       "the law takes one restitution for all contacts (Glocker 2004, eq. 56), but "
                       "'restitution' gives different values per contact (contact 0: %g, "
                       "contact %zu: %g): give 'restitution' as one number",
                       eps_of(p, 0), c, eps_of(p, c));
            return CR_ERR_INVALID;
        }
    return law_global_dissipation_eps(imp, imp->m ? eps_of(p, 0) : p->restitution, r);
}

/* Maximal dissipation: minimise T⁺ over u⁺ ∈ u⁻ − T⊥ (000 eq. 52); its unique
 * solution is the proximation onto the tangent cone (eq. 53), ε = 0 above. */
static int law_max_dissipation(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    (void)p;
    return law_global_dissipation_eps(imp, 0.0, r);
}

/* ---- 4. Poisson (002 eq. 10-17) ------------------------------------------- */

/*
 * Compression: γ_C = γ⁻ + GΛ_C ≥ 0, Λ_C ≥ 0, complementary (an LCP).
 * Expansion: Λ_E − EΛ_C ≥ 0, γ⁺ ≥ 0 and (Λ_E − EΛ_C)·γ⁺ = 0 (the
 * complementarity 002 eq. 17 only states as a product; see seeds/README):
 * with μ = Λ_E − EΛ_C, γ⁺ = γ_C + G E Λ_C + G μ, again an LCP in μ.
 */
static int law_poisson(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t m = imp->m, n = imp->n;
    int rc = check_restitutions_of(imp, p, 1, 1);
    if (rc != CR_OK)
        return rc;
    double *lc = calloc(m + 1, sizeof(double)), *mu = calloc(m + 1, sizeof(double));
    double *q = calloc(m + 1, sizeof(double)), *P = calloc(m + 1, sizeof(double));
    double *u = malloc(n * sizeof(double)), *g = calloc(m + 1, sizeof(double));
    if (!lc || !mu || !q || !P || !u || !g) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    if (solve_lcp(imp, imp->gamma, lc, r) != 0)
        goto done;
    for (size_t k = 0; k < m; k++) {
        double s = imp->gamma[k];
        for (size_t j = 0; j < m; j++)
            s += CR_AT(imp->G, m, k, j) * (1.0 + poisson_of(p, j)) * lc[j];
        q[k] = s; /* γ_C + G E Λ_C */
    }
    if (solve_lcp(imp, q, mu, r) != 0)
        goto done;
    for (size_t k = 0; k < m; k++)
        P[k] = lc[k] + poisson_of(p, k) * lc[k] + mu[k];
    cr_laws_apply(imp, imp->u, P, u);
    relative_velocity(imp, u, g);
    judge(r, complementarity_violation(m, g, mu, imp->vscale, impulse_scale(imp)),
          "Poisson expansion complementarity");
    rc = cr_laws_push(r, imp, u, P);
done:
    free(lc);
    free(mu);
    free(q);
    free(P);
    free(u);
    free(g);
    return rc;
}

/* ---- 5. Energetic coefficient + impulse ratios (001 eq. 17-19, 38) --------- */

/*
 * P = p·a with a_ref = 1, aⱼ = αⱼ. T⁺ = κT⁻ is the quadratic
 *   ½(aᵀGa) p² + (aᵀWᵀu⁻) p + (1 − κ)T⁻ = 0,
 * whose larger root is 001 eq. 18's (1 + √Δ) branch. (α, κ) is infeasible
 * when Δ < 0, p ≤ 0, or a contact ends approaching (001 eq. 19, 28).
 */
/* A = ½ aᵀGa and B = aᵀ(γ⁻ − ŵ) of the energy balance along the direction a. */
static void energetic_coefficients(const cr_impact *imp, const double *a, double *A, double *Bq)
{
    size_t m = imp->m;
    *A = 0.0;
    *Bq = 0.0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < m; j++)
            *A += 0.5 * a[i] * CR_AT(imp->G, m, i, j) * a[j];
        *Bq += a[i] * (imp->gamma[i] - imp->what[i]);
    }
}

/* The law's larger root at κ, in law_energetic's own arithmetic (NaN: Δ < 0). */
static double energetic_root(const cr_impact *imp, double A, double h, double kappa)
{
    double k = (1.0 - kappa) * imp->T / A, disc = h * h - k;
    return disc >= 0.0 ? -h + sqrt(disc) : NAN;
}

/* The smallest impulse p along a after which no contact approaches: γ⁺ = γ⁻ +
 * G a p ≥ 0 for every contact; NaN when some approaching contact does not
 * separate along a at all (no κ helps). */
static double energetic_separating_impulse(const cr_impact *imp, const double *a)
{
    size_t m = imp->m;
    double need = 0.0;
    for (size_t i = 0; i < m; i++) {
        double ga = 0.0;
        for (size_t j = 0; j < m; j++)
            ga += CR_AT(imp->G, m, i, j) * a[j];
        if (imp->gamma[i] >= 0.0)
            continue;
        if (!(ga > 0.0))
            return imp->gamma[i] / imp->vscale < -LAW_TOL ? NAN : need;
        need = fmax(need, -imp->gamma[i] / ga);
    }
    return need;
}

int cr_law_energetic_kappa_min(cr_impact *imp, const cr_law_params *p, double *kappa_min)
{
    /* the law's own size cap first: prepare() alone is O(n³) */
    if (!imp || !p || !kappa_min || !p->alpha || p->reference >= imp->m ||
        imp->n > CR_LAW_MAX_DOFS || imp->m > CR_LAW_MAX_CONTACTS)
        return CR_ERR_INVALID;
    int rc = prepare(imp);
    if (rc != CR_OK)
        return rc;
    size_t m = imp->m;
    double *a = calloc(m, sizeof(double));
    if (!a)
        return CR_ERR_NOMEM;
    for (size_t k = 0; k < m; k++)
        a[k] = k == p->reference ? 1.0 : p->alpha[k];
    double A, Bq;
    energetic_coefficients(imp, a, &A, &Bq);
    double need = energetic_separating_impulse(imp, a);
    free(a);
    double h = Bq / (2.0 * A);
    /* h ≥ 0: nothing approaches along a, no κ gives a positive impulse */
    if (!(h < 0.0) || !(A > 0.0) || !(imp->T > 0.0) || !isfinite(h) || isnan(need))
        return CR_ERR_DOMAIN;
    /* Δ = 0 at 1 − A h²/T⁻ (impulse −h, the least T⁺ along a); a larger impulse
     * p needs T⁺/T⁻ = 1 + (A p² + B p)/T⁻, growing with p beyond −h */
    double pmin = fmax(-h, need);
    double kappa = 1.0 + (A * pmin * pmin + Bq * pmin) / imp->T;
    if (!(pmin > -h))
        kappa = 1.0 - A * h * h / imp->T;
    /* rounding may leave the root short of pmin (or Δ < 0): move up, doubling */
    double step = fabs(kappa) * DBL_EPSILON;
    for (int i = 0; i < 64 && !(energetic_root(imp, A, h, kappa) >= pmin); i++, step *= 2.0)
        kappa += step;
    *kappa_min = kappa;
    return CR_OK;
}

static int law_energetic(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t m = imp->m, n = imp->n;
    if (m == 0 || !p->alpha || p->reference >= m || !(p->kappa >= 0.0) || !isfinite(p->kappa)) {
        cr_set_msg(imp->err, sizeof imp->err,
                   "the energetic law needs kappa >= 0, alpha (one per contact) and a "
                   "reference contact < %zu",
                   m);
        return CR_ERR_INVALID;
    }
    double *a = malloc(m * sizeof(double)), *P = malloc(m * sizeof(double));
    double *u = malloc(n * sizeof(double)), *g = malloc(m * sizeof(double));
    int rc = CR_OK;
    if (!a || !P || !u || !g) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    for (size_t k = 0; k < m; k++) {
        a[k] = k == p->reference ? 1.0 : p->alpha[k];
        if (!(a[k] >= 0.0) || !isfinite(a[k])) {
            cr_set_msg(imp->err, sizeof imp->err, "alpha[%zu] must be >= 0 (got %g)", k, a[k]);
            rc = CR_ERR_INVALID;
            goto done;
        }
    }
    double A, Bq, C = (1.0 - p->kappa) * imp->T;
    energetic_coefficients(imp, a, &A, &Bq);
    /* p = −h + √(h² − k) with h = B/2A, k = C/A: the same root as (−B + √(B² − 4AC))/2A
     * without forming B² or AC, which overflow for impulses near 1e154 */
    double h = Bq / (2.0 * A), k = C / A;
    double disc = h * h - k;
    double root = disc >= 0.0 ? -h + sqrt(disc) : NAN;
    if (!(disc >= 0.0) || !(root > 0.0)) {
        r->status = CR_LAW_INFEASIBLE;
        snprintf(r->msg, sizeof r->msg,
                 disc < 0.0 ? "(alpha, kappa) infeasible: the energy balance has no real "
                              "impulse (discriminant %.3g < 0)"
                            : "(alpha, kappa) infeasible: no positive impulse (root %.3g)",
                 disc < 0.0 ? disc : root);
        goto done;
    }
    for (size_t k = 0; k < m; k++)
        P[k] = root * a[k];
    cr_laws_apply(imp, imp->u, P, u);
    relative_velocity(imp, u, g);
    double worst = 0.0;
    size_t wc = 0;
    for (size_t k = 0; k < m; k++)
        if (-g[k] / imp->vscale > worst) {
            worst = -g[k] / imp->vscale;
            wc = k;
        }
    if (worst > LAW_TOL) {
        r->status = CR_LAW_INFEASIBLE;
        snprintf(r->msg, sizeof r->msg,
                 "(alpha, kappa) infeasible: contact %zu would still approach after impact "
                 "(gamma+ = %.6g)",
                 wc, g[wc]);
        goto done;
    }
    rc = cr_laws_push(r, imp, u, P);
done:
    free(a);
    free(P);
    free(u);
    free(g);
    return rc;
}

/* ---- 6. Sequential impacts (Han & Gilmore; 001 sect. 3.2) ------------------ */

typedef struct {
    double *u, *P;
    int depth;
} seq_node;

/* Newton's law on the contacts of `subset` only (bit mask over `cand`). */
static int newton_on_subset(cr_impact *imp, const cr_law_params *p, const size_t *cand, size_t nc,
                            unsigned mask, const double *u, double *lam, cr_law_result *r)
{
    size_t k = 0, idx[32];
    for (size_t i = 0; i < nc; i++)
        if (mask & (1u << i))
            idx[k++] = cand[i];
    double Gs[32 * 32], q[32], z[32], g[32], res;
    relative_velocity(imp, u, g);
    for (size_t i = 0; i < k; i++) {
        q[i] = (1.0 + eps_of(p, idx[i])) * g[idx[i]];
        for (size_t j = 0; j < k; j++)
            Gs[j * k + i] = CR_AT(imp->G, imp->m, idx[i], idx[j]);
    }
    if (cr_lcp_solve(k, Gs, q, z, &res) != 0)
        return -1;
    r->residual = fmax(r->residual, res);
    memset(lam, 0, imp->m * sizeof(double));
    for (size_t i = 0; i < k; i++)
        lam[idx[i]] = z[i];
    return 0;
}

/* End states of the sequential law within SEQ_MERGE of the velocity scale are
 * one outcome: different orders of many small binary impacts (three balls
 * nearly touching at e ≈ 0.97 in a pendulum cradle) end at points of one
 * accumulation that agree to 1e-4 … 1e-9 of it (episode 1 of the 5-ball
 * pendulum cradle: 17 end states distinct at 1e-9 are 9 outcomes at 1e-3,
 * the rest of them 1e-3 to 0.6 of the scale apart). The first end state
 * found stands for its cluster; the message counts both. */
#define SEQ_MERGE 1e-3

static int same_velocity(const double *a, const double *b, size_t n, double scale)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > SEQ_MERGE * scale)
            return 0;
    return 1;
}

/* Distinct outcomes kept: each finished branch is compared with all of them. */
#define SEQ_MAX_DISTINCT 1000
/* Numbers held by open branches (200 MB): bounds the memory when n is large. */
#define SEQ_MAX_NUMBERS 25000000
#define CR_STR_(x) #x
#define CR_STR(x) CR_STR_(x)

static int law_sequential(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t n = imp->n, m = imp->m;
    int rc = check_restitutions(imp, p);
    if (rc != CR_OK)
        return rc;
    size_t stack_cap = 256, top = 0, explored = 0, ends = 0;
    /* which cap stopped a branch: stages, branches, distinct outcomes, memory */
    int capped = 0;
    enum { CAP_STAGES = 1, CAP_BRANCHES = 2, CAP_DISTINCT = 4, CAP_MEMORY = 8 };
    /* open branches hold n + m numbers each: at most SEQ_MAX_NUMBERS in all */
    size_t node_cap = SEQ_MAX_NUMBERS / (n + m + 1);
    seq_node *stack = malloc(stack_cap * sizeof(seq_node));
    double *g = malloc((m + 1) * sizeof(double)), *lam = malloc((m + 1) * sizeof(double));
    if (!stack || !g || !lam) {
        free(stack);
        free(g);
        free(lam);
        return CR_ERR_NOMEM;
    }
    stack[top].u = malloc(n * sizeof(double));
    stack[top].P = calloc(m + 1, sizeof(double));
    memcpy(stack[top].u, imp->u, n * sizeof(double));
    stack[top++].depth = 0;
    double tol = LAW_TOL * imp->vscale;
    while (top > 0 && rc == CR_OK) {
        seq_node node = stack[--top];
        relative_velocity(imp, node.u, g);
        size_t cand[32], nc = 0;
        int approaching = 0;
        for (size_t c = 0; c < m; c++)
            if (g[c] <= tol) { /* closed and not separating */
                cand[nc++] = c;
                approaching |= g[c] < -tol;
            }
        if (!approaching) {
            int dup = 0;
            ends++;
            for (size_t k = 0; k < r->count && !dup; k++)
                dup = same_velocity(r->u + k * n, node.u, n, imp->vscale);
            if (!dup && r->count >= SEQ_MAX_DISTINCT)
                capped |= CAP_DISTINCT;
            else if (!dup)
                rc = cr_laws_push(r, imp, node.u, node.P);
        } else if (node.depth >= p->max_stages) {
            capped |= CAP_STAGES;
        } else if ((int)explored >= p->max_outcomes) {
            capped |= CAP_BRANCHES;
        } else {
            /* every subset of the closed contacts holding an approaching one */
            for (unsigned mask = 1; mask < (1u << nc) && rc == CR_OK; mask++) {
                int has_approaching = 0;
                for (size_t i = 0; i < nc; i++)
                    if ((mask & (1u << i)) && g[cand[i]] < -tol)
                        has_approaching = 1;
                if (!has_approaching)
                    continue;
                if ((int)explored >= p->max_outcomes || top >= node_cap) {
                    /* one stage of 20 closed contacts is 10⁶ subsets: the caps hold
                     * inside a stage too */
                    capped |= top >= node_cap ? CAP_MEMORY : CAP_BRANCHES;
                    break;
                }
                if (newton_on_subset(imp, p, cand, nc, mask, node.u, lam, r) != 0) {
                    r->status = CR_LAW_SOLVER_FAILED;
                    snprintf(r->msg, sizeof r->msg, "LCP failed on a contact subset");
                    continue;
                }
                explored++;
                if (top == stack_cap) {
                    seq_node *s = realloc(stack, 2 * stack_cap * sizeof(seq_node));
                    if (!s) {
                        rc = CR_ERR_NOMEM;
                        break;
                    }
                    stack = s;
                    stack_cap *= 2;
                }
                seq_node child = {malloc(n * sizeof(double)), malloc((m + 1) * sizeof(double)),
                                  node.depth + 1};
                if (!child.u || !child.P) {
                    free(child.u);
                    free(child.P);
                    rc = CR_ERR_NOMEM;
                    break;
                }
                cr_laws_apply(imp, node.u, lam, child.u);
                for (size_t c = 0; c < m; c++)
                    child.P[c] = node.P[c] + lam[c];
                stack[top++] = child;
            }
        }
        free(node.u);
        free(node.P);
    }
    while (top > 0) {
        free(stack[top - 1].u);
        free(stack[top - 1].P);
        top--;
    }
    free(stack);
    free(g);
    free(lam);
    if (rc != CR_OK)
        return rc;
    if (capped) {
        r->status = CR_LAW_NOT_TERMINATED;
        snprintf(
            r->msg, sizeof r->msg, "stopped at a cap (%s%s%s%s); %zu finished outcomes reported",
            capped & CAP_STAGES ? "a branch still impacting after max_stages, " : "",
            capped & CAP_BRANCHES ? "max_outcomes branches explored, " : "",
            capped & CAP_DISTINCT ? CR_STR(SEQ_MAX_DISTINCT) " distinct outcomes, " : "",
            capped & CAP_MEMORY ? "open branches hold " CR_STR(SEQ_MAX_NUMBERS) " numbers, " : "",
            r->count);
        /* drop the last ", " */
        char *tail = strstr(r->msg, ", )");
        if (tail)
            memmove(tail, tail + 2, strlen(tail + 2) + 1);
    } else if (r->status == CR_LAW_OK && r->count > 1) {
        r->status = CR_LAW_MULTIPLE;
        snprintf(r->msg, sizeof r->msg,
                 "%zu distinct outcomes (of %zu end states; those within " CR_STR(
                     SEQ_MERGE) " of the velocity scale are one)",
                 r->count, ends);
    }
    return CR_OK;
}

/* ---- 7. Mosterman's pre-collision rule (002 eq. 23-29) --------------------- */

/*
 * Solves for the impulses Λ on the contacts of `set` (kind[c]: 'N' Newton
 * equality 002 eq. 26, 'P' pre-collision eq. 25 in the form (1−η)Λ + η m_s ġ_E = 0
 * with m_s = 1/(wᵀM⁻¹w) (seeds/README)), starting from velocities u_in with
 * γ_A taken at u_ref: Newton rows  (GΛ)_c = −γ_in,c − ε_c γ_ref,c,
 * pre-collision rows  (1−η)Λ_c + η m_s (γ_in,c + (GΛ)_c) = 0.
 */
static int mosterman_step(cr_impact *imp, const cr_law_params *p, const char *kind,
                          const double *g_in, const double *g_ref, double *lam)
{
    size_t m = imp->m, k = 0, idx[64];
    for (size_t c = 0; c < m; c++)
        if (kind[c] && k < 64)
            idx[k++] = c;
    memset(lam, 0, m * sizeof(double));
    if (k == 0)
        return 0;
    double A[64 * 64], b[64];
    for (size_t i = 0; i < k; i++) {
        size_t c = idx[i];
        double eps = eps_of(p, c);
        double eta = p->eta ? p->eta[c] : 1.0 - eps;
        double ms = 1.0 / CR_AT(imp->G, m, c, c);
        for (size_t j = 0; j < k; j++) {
            double Gcj = CR_AT(imp->G, m, c, idx[j]);
            A[j * k + i] = kind[c] == 'N' ? Gcj : eta * ms * Gcj + (i == j ? 1.0 - eta : 0.0);
        }
        b[i] = kind[c] == 'N' ? -g_in[c] - eps * g_ref[c] : -eta * ms * g_in[c];
    }
    if (cr_dense_solve(A, k, b) != 0)
        return -1;
    for (size_t i = 0; i < k; i++)
        lam[idx[i]] = b[i];
    return 0;
}

static void append_set(char *buf, size_t len, const char *name, const char *mark, size_t m,
                       char which)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, " %s={", name);
    int first = 1;
    for (size_t c = 0; c < m; c++)
        if (mark[c] == which) {
            used = strlen(buf);
            snprintf(buf + used, len - used, first ? "%zu" : ",%zu", c);
            first = 0;
        }
    used = strlen(buf);
    snprintf(buf + used, len - used, "}");
}

/*
 * Iterations k = 1, 2, ... (002 sect. 3): N1 = closed contacts approaching whose
 * bodies did not change velocity in the last update (eq. 27); N2 = last step's
 * pre-collisions still approaching (eq. 28); the intermediate velocities of
 * Newton's rule on N give the pre-collision set P = {ġ_P < 0} (eq. 29); then
 * Newton on N and the pre-collision law on P act together. When nothing is
 * left, u_A = u_E and N1 is looked for again; the run ends when that is empty.
 * Strict "< 0" is used where the paper prints "≤ 0": its own Table 2 and the
 * ε²³ = 0 example exclude touching contacts at equal velocity.
 */
static int law_mosterman(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t n = imp->n, m = imp->m;
    int rc = check_restitutions_of(imp, p, 0, 0);
    if (rc != CR_OK)
        return rc;
    double *uA = malloc(n * sizeof(double)), *uE = malloc(n * sizeof(double));
    double *uP = malloc(n * sizeof(double)), *gA = malloc(m * sizeof(double));
    double *gE = malloc(m * sizeof(double)), *gP = malloc(m * sizeof(double));
    double *lam = malloc(m * sizeof(double)), *Ptot = calloc(m, sizeof(double));
    char *kind = calloc(m, 1), *prev_pre = calloc(m, 1), *mark = calloc(m, 1);
    int *changed = calloc(n, sizeof(int));
    if (!uA || !uE || !uP || !gA || !gE || !gP || !lam || !Ptot || !kind || !prev_pre || !mark ||
        !changed) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    memcpy(uA, imp->u, n * sizeof(double));
    memcpy(uE, imp->u, n * sizeof(double));
    double tol = LAW_TOL * imp->vscale;
    int step = 0, iter;
    for (iter = 0; iter < 10 * p->max_stages; iter++) {
        relative_velocity(imp, uE, gE);
        relative_velocity(imp, uA, gA);
        for (size_t i = 0; i < n; i++)
            changed[i] = fabs(uE[i] - uA[i]) > tol;
        memset(kind, 0, m);
        int any_N = 0, any_prev = 0;
        for (size_t c = 0; c < m; c++) {
            int touched = 0; /* a body of contact c changed velocity */
            for (size_t i = 0; i < n; i++)
                if (changed[i] && CR_AT(imp->W, n, i, c) != 0.0)
                    touched = 1;
            if (gE[c] < -tol && !touched)
                kind[c] = '1'; /* N1 */
            else if (prev_pre[c] && gE[c] < -tol)
                kind[c] = '2'; /* N2 */
            any_N |= kind[c] != 0;
            any_prev |= prev_pre[c];
        }
        if (!any_N) {
            int any_change = 0;
            for (size_t i = 0; i < n; i++)
                any_change |= changed[i];
            if (!any_change && !any_prev)
                break; /* nothing approaches any more */
            memcpy(uA, uE, n * sizeof(double));
            memset(prev_pre, 0, m);
            continue;
        }
        step++;
        /* intermediate velocities: Newton on N from u_E */
        for (size_t c = 0; c < m; c++)
            mark[c] = kind[c] ? 'N' : 0;
        if (mosterman_step(imp, p, mark, gE, gE, lam) != 0)
            goto singular;
        cr_laws_apply(imp, uE, lam, uP);
        relative_velocity(imp, uP, gP);
        for (size_t c = 0; c < m; c++)
            if (!kind[c] && gP[c] < -tol)
                mark[c] = 'P';
        size_t used = strlen(r->trace);
        snprintf(r->trace + used, sizeof r->trace - used, "%sk=%d", step > 1 ? "; " : "", step);
        for (size_t c = 0; c < m; c++)
            kind[c] = kind[c] == '1' ? '1' : (kind[c] == '2' ? '2' : 0);
        append_set(r->trace, sizeof r->trace, "N1", kind, m, '1');
        append_set(r->trace, sizeof r->trace, "N2", kind, m, '2');
        append_set(r->trace, sizeof r->trace, "P", mark, m, 'P');
        /* the update: Newton on N (γ_A = γ at u_E), pre-collision on P */
        memcpy(uA, uE, n * sizeof(double));
        if (mosterman_step(imp, p, mark, gE, gE, lam) != 0)
            goto singular;
        cr_laws_apply(imp, uA, lam, uE);
        for (size_t c = 0; c < m; c++) {
            Ptot[c] += lam[c];
            prev_pre[c] = mark[c] == 'P';
        }
    }
    if (iter >= 10 * p->max_stages) {
        r->status = CR_LAW_NOT_TERMINATED;
        snprintf(r->msg, sizeof r->msg, "still colliding after %d iterations", iter);
    }
    rc = cr_laws_push(r, imp, uE, Ptot);
    goto done;
singular:
    r->status = CR_LAW_SOLVER_FAILED;
    snprintf(r->msg, sizeof r->msg, "singular system in a collision step");
done:
    free(uA);
    free(uE);
    free(uP);
    free(gA);
    free(gE);
    free(gP);
    free(lam);
    free(Ptot);
    free(kind);
    free(prev_pre);
    free(mark);
    free(changed);
    return rc;
}

/* ---- 8. Pandrea: Newton's law as equalities (004 eq. 1-14) ----------------- */

/*
 * {P} = −[G]⁻¹([I] + [K]){v_n⁰} (004 eq. 4; eq. 7 and 14 are the same formula
 * with the reduced and the summed G). Nothing keeps P ≥ 0: a pulling contact is
 * reported as CR_LAW_NEGATIVE_IMPULSE. A singular G is the undetermined case of
 * 004 Fig. 2 b, d.
 */
static int law_pandrea(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t m = imp->m, n = imp->n;
    int rc = check_restitutions(imp, p);
    if (rc != CR_OK)
        return rc;
    double *G = malloc((m * m + 1) * sizeof(double)), *P = malloc((m + 1) * sizeof(double));
    double *u = malloc(n * sizeof(double));
    if (!G || !P || !u) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    memcpy(G, imp->G, m * m * sizeof(double));
    for (size_t c = 0; c < m; c++)
        P[c] = -(1.0 + eps_of(p, c)) * imp->gamma[c];
    /* condition check: a nearly singular G means undetermined impulses */
    double gmax = 0.0;
    for (size_t c = 0; c < m; c++)
        gmax = fmax(gmax, CR_AT(G, m, c, c));
    if (cr_dense_cholesky(G, m) != 0) {
        r->status = CR_LAW_INFEASIBLE;
        snprintf(r->msg, sizeof r->msg,
                 "impulses undetermined: the impulse lines are dependent (004 Fig. 2 b, d)");
        goto done;
    }
    for (size_t c = 0; c < m; c++)
        if (CR_AT(G, m, c, c) * CR_AT(G, m, c, c) < 1e-12 * gmax) {
            r->status = CR_LAW_INFEASIBLE;
            snprintf(r->msg, sizeof r->msg,
                     "impulses undetermined: G is singular (004 Fig. 2 b, d)");
            goto done;
        }
    cr_dense_cholesky_solve(G, m, P, 1);
    cr_laws_apply(imp, imp->u, P, u);
    for (size_t c = 0; c < m; c++)
        if (P[c] < 0.0) {
            r->status = CR_LAW_NEGATIVE_IMPULSE;
            snprintf(r->msg, sizeof r->msg,
                     "contact %zu takes a negative impulse %.6g: Newton's equalities make it "
                     "pull",
                     c, P[c]);
            break;
        }
    rc = cr_laws_push(r, imp, u, P);
done:
    free(G);
    free(P);
    free(u);
    return rc;
}

/* ---- dispatch -------------------------------------------------------------- */

typedef int (*law_fn)(cr_impact *, const cr_law_params *, cr_law_result *);

static const struct {
    const char *name;
    law_fn solve;
} LAWS[CR_LAW_COUNT] = {
    [CR_LAW_NEWTON] = {"newton", law_newton},
    [CR_LAW_GLOBAL_DISSIPATION] = {"global-dissipation", law_global_dissipation},
    [CR_LAW_MAX_DISSIPATION] = {"max-dissipation", law_max_dissipation},
    [CR_LAW_POISSON] = {"poisson", law_poisson},
    [CR_LAW_ENERGETIC] = {"energetic", law_energetic},
    [CR_LAW_SEQUENTIAL] = {"sequential", law_sequential},
    [CR_LAW_MOSTERMAN] = {"mosterman", law_mosterman},
    [CR_LAW_PANDREA] = {"pandrea", law_pandrea},
    [CR_LAW_LZB] = {"lzb", cr_law_lzb},
};

void cr_law_params_init(cr_law_params *p)
{
    memset(p, 0, sizeof(*p));
    p->restitution = 1.0;
    p->kappa = 1.0;
    p->max_stages = 64;
    p->max_outcomes = 4096;
    p->tolerance = 1e-10;
}

/* The contact cap of each law (CR_LAW_MAX_CONTACTS unless the law has its own). */
static size_t contact_cap(cr_law_id law)
{
    switch (law) {
    case CR_LAW_GLOBAL_DISSIPATION:
    case CR_LAW_MAX_DISSIPATION:
        return CR_LAW_MAX_CONTACTS_NNLS;
    case CR_LAW_SEQUENTIAL:
        return CR_LAW_MAX_CONTACTS_SEQUENTIAL;
    case CR_LAW_MOSTERMAN:
        return CR_LAW_MAX_CONTACTS_MOSTERMAN;
    default:
        return CR_LAW_MAX_CONTACTS;
    }
}

cr_law_status cr_law_size_check(cr_law_id law, size_t dofs, size_t contacts, char *msg,
                                size_t msglen)
{
    if ((unsigned)law >= CR_LAW_COUNT)
        return CR_LAW_TOO_LARGE;
    size_t cap = contact_cap(law);
    if (dofs <= CR_LAW_MAX_DOFS && contacts <= cap)
        return CR_LAW_OK;
    cr_set_msg(msg, msglen, "%zu dofs and %zu contacts: %s takes at most %d dofs and %zu contacts",
               dofs, contacts, LAWS[law].name, CR_LAW_MAX_DOFS, cap);
    return CR_LAW_TOO_LARGE;
}

/* The caps on the work a case can ask for, checked before any work. */
static int check_caps(cr_impact *imp, cr_law_id law, const cr_law_params *p)
{
    if (law != CR_LAW_SEQUENTIAL && law != CR_LAW_MOSTERMAN)
        return CR_OK;
    if (p->max_stages < 1 || p->max_stages > CR_LAW_MAX_STAGES) {
        cr_set_msg(imp->err, sizeof imp->err, "max_stages must lie in 1..%d (got %d)",
                   CR_LAW_MAX_STAGES, p->max_stages);
        return CR_ERR_INVALID;
    }
    if (p->max_outcomes < 1 || p->max_outcomes > CR_LAW_MAX_OUTCOMES) {
        cr_set_msg(imp->err, sizeof imp->err, "max_outcomes must lie in 1..%d (got %d)",
                   CR_LAW_MAX_OUTCOMES, p->max_outcomes);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* A law's answer must be numbers: overflow (huge masses or velocities) or a
 * degenerate solve must not come out as "ok" with inf or NaN in it. */
static void refuse_non_finite(const cr_impact *imp, cr_law_result *r)
{
    for (size_t k = 0; k < r->count; k++) {
        int bad = !all_finite(r->u + k * r->n, r->n) || !all_finite(r->P + k * r->m, r->m) ||
                  (imp->Ts > 0.0 && !isfinite(r->ratio[k]));
        if (bad) {
            r->count = 0;
            r->status = CR_LAW_SOLVER_FAILED;
            snprintf(r->msg, sizeof r->msg,
                     "the answer is not finite (overflow: masses, velocities or impulses "
                     "out of range)");
            return;
        }
    }
}

/* A restitution above 1 taken as it is (p->superelastic) is said in the message
 * when the law has nothing else to say: the answer may gain energy. */
static void note_superelastic(const cr_impact *imp, cr_law_id law, const cr_law_params *p,
                              cr_law_result *r)
{
    if (!p->superelastic || r->msg[0] || law == CR_LAW_MAX_DISSIPATION || law == CR_LAW_ENERGETIC ||
        law == CR_LAW_LZB)
        return;
    for (size_t c = 0; c < imp->m; c++) {
        double e = law == CR_LAW_POISSON ? poisson_of(p, c) : eps_of(p, c);
        if (e > 1.0) {
            snprintf(r->msg, sizeof r->msg,
                     "superelastic: restitution %.9g > 1 of contact %zu taken as it is (T+/T- "
                     "may exceed 1)",
                     e, c);
            return;
        }
    }
}

int cr_law_solve(cr_impact *imp, cr_law_id law, const cr_law_params *p, cr_law_result *r)
{
    CR_CHECK(imp && p && r && (unsigned)law < CR_LAW_COUNT, imp ? imp->err : NULL, CR_ERR_INVALID);
    result_reset(r, imp->n, imp->m);
    /* checked before prepare(), which alone is O(n³) */
    if ((r->status = cr_law_size_check(law, imp->n, imp->m, r->msg, sizeof r->msg)) != CR_LAW_OK)
        return CR_OK;
    int rc = check_caps(imp, law, p);
    if (rc == CR_OK)
        rc = prepare(imp);
    if (rc != CR_OK)
        return rc;
    imp->err[0] = '\0';
    rc = LAWS[law].solve(imp, p, r);
    if (rc == CR_OK)
        refuse_non_finite(imp, r);
    if (rc == CR_OK)
        note_superelastic(imp, law, p, r);
    return rc;
}

const char *cr_law_name(cr_law_id law)
{
    return (unsigned)law < CR_LAW_COUNT ? LAWS[law].name : "unknown";
}

int cr_law_from_name(const char *name, cr_law_id *out)
{
    for (int k = 0; k < CR_LAW_COUNT; k++)
        if (name && strcmp(name, LAWS[k].name) == 0) {
            *out = (cr_law_id)k;
            return CR_OK;
        }
    return CR_ERR_INVALID;
}

const char *cr_law_suggest(const char *name)
{
    const char *names[CR_LAW_COUNT + 1];
    for (int k = 0; k < CR_LAW_COUNT; k++)
        names[k] = LAWS[k].name;
    names[CR_LAW_COUNT] = NULL;
    return cr_yaml_closest(name, names);
}

const char *cr_law_status_name(cr_law_status s)
{
    static const char *const names[] = {
        "ok",       "infeasible", "multiple", "not-terminated", "solver-failed", "negative-impulse",
        "too-large"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}
