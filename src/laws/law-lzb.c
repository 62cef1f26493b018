/*
 * The LZB multiple-impact law (Liu, Zhao & Brogliato 2008, 2009; docs/design.md,
 * "laws"). Each contact j carries a potential energy Eⱼ with the force of its pair
 * law, fⱼ = Kⱼ δⁿ = cⱼ Kⱼ^(1/(n+1)) Eⱼ^(n/(n+1)), cⱼ = (n+1)^(n/(n+1)). The impulse
 * of the primary contact p (largest energy) is the independent variable; the
 * others follow the distributing rule dPⱼ/dP_p = fⱼ/f_p, γ = γ⁻ + G P, and
 * dEⱼ = −γⱼ dPⱼ in compression, −γⱼ dPⱼ / eⱼ² in expansion (the bi-stiffness
 * model), so T⁻ − T⁺ = Σⱼ (1 − eⱼ²) W_c,j.
 *
 * Two places make the equations singular, and each is regularised by the choice
 * of variables rather than by a small parameter:
 *
 * - Engagement. dEⱼ/dP_p ∝ Eⱼ^(n/(n+1)) is not Lipschitz at Eⱼ = 0: a contact
 *   touching at rest would stay at Eⱼ = 0 forever. Non-primary contacts carry
 *   qⱼ = Eⱼ^(1/(n+1)) (an overlap in disguise), whose rate
 *   dqⱼ/dP_p = −γⱼ cⱼ kⱼ / ((n+1) ρⱼ f_p) does not depend on qⱼ: a contact loads as
 *   soon as γⱼ < 0, at the rate the compliant contact would.
 * - Start and end. f_p = 0 when the primary starts (P_p = 0) and when it
 *   releases. The primary carries E_p itself, whose rate −γ_p/ρ_p is regular at
 *   the release. A start (all energies zero) takes the leading term of the
 *   series in the time-like variable up to P_p = LZB_START_FRACTION·|γ_p|/G_pp,
 *   then integrates in σ with P_p − P_p,0 = σ^(n+1), in which the series is
 *   regular (σ is proportional to the time near the start).
 *
 * Events (CVODE root finding) end each smooth piece: γⱼ = 0 (compression ↔
 * expansion, engagement), qⱼ = 0 or E_p = 0 (release), a contact's energy
 * overtaking the primary's (switch). The trajectory is that of the compliant
 * bi-stiffness model with the configuration frozen, re-parametrised by the
 * primary impulse, so the choice of the primary only affects the numerics.
 *
 * Everything is nondimensional inside: velocities by v₀ = max|γ⁻|, impulses by
 * I₀ = v₀/max Gⱼⱼ, energies by E₀ = v₀I₀, forces by the largest cⱼkⱼE₀^(n/(n+1)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "base/sundials.h"
#include "laws/dense-priv.h"
#include "laws/laws.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "SUNDIALS must use double");

/* A contact is held (no energy, not approaching: kept at 0), in compression
 * (γ < 0) or in expansion (γ > 0). The state changes only at events, so within
 * one integration the right-hand side is one smooth formula, continued past a
 * switch until the root is located (the multistep interpolant stays accurate). */
enum { HELD = 0, COMPRESSION = 1, EXPANSION = 2 };

/* A start integrates the series up to this fraction of the impulse that stops
 * the primary alone (|γ_p|/G_pp): the first neglected term is this fraction
 * squared, 1e-14 of that impulse, far below every tolerance. */
#define LZB_START_FRACTION 1e-7
/* A contact takes over as primary when its energy exceeds the primary's by this
 * fraction: equal contacts (symmetric chains) do not chatter. */
#define LZB_HYSTERESIS 1e-3
/* Energies below this fraction of E₀ count as zero when the primary is chosen
 * (what is dropped is below the tolerance of the energy relation). */
#define LZB_ENERGY_FLOOR 1e-13
/* Relative velocities above −LZB_VEL_TOL·v₀ do not approach: before the impact,
 * and for a held contact that has not been loaded yet (touching at rest ahead of
 * the pulse, it loads as soon as its neighbour pushes it, as the compliant
 * contact would). */
#define LZB_VEL_TOL 1e-12
/* A contact released during the impact loads again only when it approaches
 * faster than LZB_SLOW·tolerance·v₀. Behind the pulse of a long chain, released
 * contacts drift apart at speeds the integration error can flip (10⁻¹⁰ v₀ and
 * less in a 50-ball chain, against a global error of 10–100 tolerances); at 0 they
 * re-engage and release again by the thousand. Not for the contacts ahead of the
 * pulse: delaying their first loading to 1e3 tolerances cost u⁺ of the 10-ball
 * chain 200 tolerances. */
#define LZB_SLOW 1e3
/* The law's own check: the energy relation (off by 20–150 tolerances on chains
 * of 10 to 50 balls) or a final approach (up to LZB_SLOW tolerances by design)
 * off by more than LZB_CHECK·LZB_SLOW tolerances, and by more than LZB_CHECK_MIN,
 * means the integration failed. At 1e-6 alone it failed the unit 3- to 10-ball
 * chains at tolerance 1e-6 and 28 of 300 random chains at 1e-8. */
#define LZB_CHECK 2.0
#define LZB_CHECK_MIN 1e-6
/* Steps of one smooth piece, events of one impact (pieces end at events). */
#define LZB_MAX_STEPS 1000000L
#define LZB_MAX_EVENTS(m) (1000 + 100 * (m))
#define LZB_MAX_ERR_FAILS 30
/* Every piece ends at an event well before this value of its variable. */
#define LZB_SIGMA_END 1e12
#define LZB_EXPONENT_MIN 1.0
#define LZB_EXPONENT_MAX 10.0
/* The states are of order 1 but start from 0 (a start, an engaging contact): an
 * absolute tolerance of the relative one times this resolves those beginnings
 * (measured on the 5-ball chain: the energy relation holds to ~4 tol, against
 * ~100 tol with the two equal). */
#define LZB_ATOL_FACTOR 1e-3
#define LZB_TOL_MIN 1e-14
#define LZB_TOL_MAX 1e-3

typedef struct {
    size_t m, p;      /* contacts, primary */
    const double *g0; /* γ⁻ / v₀ */
    double *Gv;       /* G / G₀ in compressed rows: values, columns, row starts */
    size_t *Gc, *Gr;
    double *C, *n, *e; /* force coefficient cⱼkⱼ, exponent, restitution */
    double *gam;       /* γ / v₀ at the current state (work) */
    char *state;       /* HELD, COMPRESSION or EXPANSION */
    char *released;    /* released once in this impact (loaded, then held) */
    long reengaged;    /* released contacts that approached again */
    int start;         /* this piece began at a start: P_p − P_p,0 = σ^kexp */
    double kexp;       /* n_p + 1 */
    double slow;       /* a released contact loads again when γⱼ < −slow */
    char err[CR_ERRMSG_LEN];
} lzb;

/* ---- right-hand side and events ---------------------------------------------- */

static void gammas(lzb *l, const double *P)
{
    for (size_t i = 0; i < l->m; i++) {
        double g = l->g0[i];
        for (size_t k = l->Gr[i]; k < l->Gr[i + 1]; k++)
            g += l->Gv[k] * P[l->Gc[k]];
        l->gam[i] = g;
    }
}

/* Energy of contact j from its variable (E_p for the primary, qⱼ for the others). */
static double energy(const lzb *l, const double *X, size_t j)
{
    double x = fmax(X[j], 0.0);
    return j == l->p ? x : pow(x, l->n[j] + 1.0);
}

/* The energy per unit of work done on the contact: 1 in compression, 1/e² in
 * expansion (the bi-stiffness model), 0 while held. */
static double rate(const lzb *l, size_t j)
{
    if (l->state[j] == COMPRESSION)
        return 1.0;
    return l->state[j] == EXPANSION && l->e[j] > 0.0 ? 1.0 / (l->e[j] * l->e[j]) : 0.0;
}

static int rhs(sunrealtype sigma, N_Vector yv, N_Vector dv, void *user)
{
    lzb *l = user;
    size_t m = l->m, p = l->p;
    const double *y = N_VGetArrayPointer(yv), *X = y + m;
    double *d = N_VGetArrayPointer(dv);
    gammas(l, y);
    double J = l->start ? l->kexp * pow(fmax(sigma, 0.0), l->kexp - 1.0) : 1.0;
    double fp = l->C[p] * pow(fmax(X[p], 0.0), l->n[p] / (l->n[p] + 1.0));
    /* past the primary's release (a trial step overshooting its root) nothing
     * else moves; the root is located before */
    double r = fp > 0.0 ? J / fp : 0.0;
    for (size_t j = 0; j < m; j++) {
        double g = l->gam[j], k = rate(l, j);
        double comp = l->state[j] == COMPRESSION ? -g : 0.0; /* work of compression */
        if (j == p) {
            d[j] = J;
            d[m + j] = -g * k * J;
            d[2 * m + j] = comp * J;
        } else {
            /* odd in qⱼ: past a release root (inside the step that crosses it) the
             * force continues smoothly, as the multistep interpolant assumes */
            double f = l->C[j] * copysign(pow(fabs(X[j]), l->n[j]), X[j]);
            d[j] = f * r;
            d[m + j] = -g * k * l->C[j] / (l->n[j] + 1.0) * r;
            d[2 * m + j] = comp * f * r;
        }
    }
    return 0;
}

/*
 * A root function never exactly 0 and never below LZB_ROOT_FLOOR in magnitude.
 * An exact 0 at a located root stops CVODE (cr_root_nonzero, priv.h), but its
 * substitute 1e-300 is not enough here: CVODE detects a crossing by the sign of
 * g_lo·g_hi, and a held contact's γ leaves 0 at the 1e-27 level, whose product
 * with 1e-300 underflows to −0: the engagement was missed. The states are of
 * order 1, so nothing below 1e-150 matters.
 */
#define LZB_ROOT_FLOOR 1e-150
static double root_value(double g)
{
    return fabs(g) >= LZB_ROOT_FLOOR ? g : (g < 0.0 ? -LZB_ROOT_FLOOR : LZB_ROOT_FLOOR);
}

/* How fast a held contact must approach to load (units of v₀): as soon as it
 * approaches if it has not been loaded yet, beyond l->slow if it was released. */
static double engage_speed(const lzb *l, size_t j)
{
    return l->released[j] ? l->slow : LZB_VEL_TOL;
}

static int roots(sunrealtype sigma, N_Vector yv, sunrealtype *g, void *user)
{
    (void)sigma;
    lzb *l = user;
    size_t m = l->m;
    const double *y = N_VGetArrayPointer(yv), *X = y + m;
    gammas(l, y);
    double Ep = energy(l, X, l->p);
    for (size_t j = 0; j < m; j++) {
        g[j] = root_value(l->gam[j] + (l->state[j] == HELD ? engage_speed(l, j) : 0.0));
        g[m + j] = root_value(X[j]);
        g[2 * m + j] = j == l->p ? -1.0 : root_value(energy(l, X, j) - (1.0 + LZB_HYSTERESIS) * Ep);
    }
    return 0;
}

/* ---- pieces ------------------------------------------------------------------ */

/* The primary becomes contact q: its variable turns from qⱼ into Eⱼ and the old
 * primary's back. */
static void set_primary(lzb *l, double *X, size_t q)
{
    size_t p = l->p;
    if (q == p)
        return;
    X[p] = pow(fmax(X[p], 0.0), 1.0 / (l->n[p] + 1.0));
    X[q] = pow(fmax(X[q], 0.0), l->n[q] + 1.0);
    l->p = q;
}

/* The series of an approaching contact j: Pⱼ(t) = aⱼ t^(nⱼ+1). */
static double series_coefficient(const lzb *l, size_t j)
{
    double g = -l->gam[j], n = l->n[j];
    return l->C[j] * pow(g * l->C[j] / (n + 1.0), n) / (n + 1.0);
}

/*
 * A start: no contact holds energy, the most approaching one becomes primary.
 * In the time-like variable t (dPⱼ = fⱼ dt) with γ frozen at its value, every
 * approaching contact has qⱼ = |γⱼ| Cⱼ t/(nⱼ+1), Pⱼ = aⱼ t^(nⱼ+1), and
 * Eⱼ = W_c,j = |γⱼ| Pⱼ. t is the largest for which no contact has taken more
 * than LZB_START_FRACTION of the impulse that stops it alone (|γⱼ|/Gⱼⱼ): with
 * unequal exponents the softer law runs ahead. Returns the start value of σ.
 */
static double start_piece(lzb *l, double *y, const double *Gdiag)
{
    size_t m = l->m, q = 0;
    double *X = y + m, *W = y + 2 * m, t = INFINITY;
    for (size_t j = 0; j < m; j++) {
        if (l->gam[j] < l->gam[q])
            q = j;
        if (l->gam[j] < 0.0) {
            double limit = LZB_START_FRACTION * -l->gam[j] / Gdiag[j];
            t = fmin(t, pow(limit / series_coefficient(l, j), 1.0 / (l->n[j] + 1.0)));
        }
    }
    l->p = q;
    for (size_t j = 0; j < m; j++) {
        X[j] = 0.0;
        l->state[j] = l->gam[j] < 0.0 ? COMPRESSION : HELD;
        if (l->state[j] == HELD)
            continue;
        double g = -l->gam[j];
        double dP = series_coefficient(l, j) * pow(t, l->n[j] + 1.0);
        y[j] += dP;
        W[j] += g * dP;
        X[j] = j == q ? g * dP : g * l->C[j] * t / (l->n[j] + 1.0);
    }
    l->start = 1;
    l->kexp = l->n[q] + 1.0;
    /* P_p − P_p,0 = σ^kexp */
    return pow(series_coefficient(l, q), 1.0 / l->kexp) * t;
}

/* What the roots found mean: phase switches, engagements, releases (the energy
 * reaches 0; for e = 0 when expansion begins). *released: the primary released;
 * *takeover: a contact overtook it. */
static void apply_roots(lzb *l, double *X, const int *found, int *released, int *takeover)
{
    size_t m = l->m;
    for (size_t j = 0; j < m; j++) {
        int drop = found[m + j] < 0 && l->state[j] != HELD;
        if (found[j] > 0 && l->state[j] == COMPRESSION) {
            l->state[j] = EXPANSION;
            drop |= l->e[j] == 0.0; /* all of the stored energy is dissipated at once */
        } else if (found[j] < 0 && l->state[j] != COMPRESSION) {
            l->reengaged += l->state[j] == HELD && l->released[j];
            l->state[j] = COMPRESSION; /* loads (again) */
        }
        if (drop) {
            X[j] = 0.0;
            l->state[j] = HELD;
            l->released[j] = 1;
            *released |= j == l->p;
        }
        *takeover |= found[2 * m + j] > 0;
    }
}

/* After a release or a takeover: the contact of largest energy becomes primary
 * (1), or no contact holds energy (0: the caller starts again or stops). */
static int choose_primary(lzb *l, double *X)
{
    size_t m = l->m, best = l->p;
    double Ebest = -1.0;
    for (size_t j = 0; j < m; j++) {
        double E = energy(l, X, j);
        if (E > Ebest) {
            Ebest = E;
            best = j;
        }
    }
    if (Ebest > LZB_ENERGY_FLOOR) {
        set_primary(l, X, best);
        l->start = 0;
        return 1;
    }
    for (size_t j = 0; j < m; j++) {
        l->released[j] |= l->state[j] != HELD; /* its energy, below the floor, is dropped */
        X[j] = 0.0;
        l->state[j] = HELD;
    }
    return 0;
}

static void trace_primary(cr_law_result *r, size_t p)
{
    size_t used = strlen(r->trace);
    if (used + 24 < sizeof r->trace)
        snprintf(r->trace + used, sizeof r->trace - used, "%s%zu", used ? " " : "primary ", p);
    else if (used + 4 < sizeof r->trace && strcmp(r->trace + used - 3, "...") != 0)
        snprintf(r->trace + used, sizeof r->trace - used, " ...");
}

/* ---- parameters -------------------------------------------------------------- */

static int refuse(cr_impact *imp, const char *fmt, size_t c, double v)
{
    cr_set_msg(imp->err, sizeof imp->err, fmt, c, v);
    return CR_ERR_INVALID;
}

static int check_params(cr_impact *imp, const cr_law_params *p)
{
    for (size_t c = 0; c < imp->m; c++) {
        if (imp->what[c] != 0.0)
            return refuse(imp,
                          "contact %zu has a kinematic excitation (%g): the law "
                          "takes none",
                          c, imp->what[c]);
        double K = p->stiffness ? p->stiffness[c] : 1.0;
        double n = p->exponent ? p->exponent[c] : 1.5;
        if (!(K > 0.0) || !isfinite(K))
            return refuse(imp, "stiffness of contact %zu must be positive (got %g)", c, K);
        if (!(n >= LZB_EXPONENT_MIN && n <= LZB_EXPONENT_MAX))
            return refuse(imp, "exponent of contact %zu must lie in [1, 10] (got %g)", c, n);
    }
    if (!p->energetic && p->restitutions) {
        cr_set_msg(imp->err, sizeof imp->err,
                   "give the pair laws' energetic restitution ('energetic', in a case "
                   "'energetic_restitution'): the per-contact 'restitution' is Newton's");
        return CR_ERR_INVALID;
    }
    for (size_t c = 0; c < imp->m; c++) {
        double e = p->energetic ? p->energetic[c] : p->restitution;
        if (!(e >= 0.0 && e <= 1.0))
            return refuse(imp,
                          "energetic restitution of contact %zu must lie in [0, 1] "
                          "(got %g)",
                          c, e);
    }
    if (!(p->tolerance >= LZB_TOL_MIN && p->tolerance <= LZB_TOL_MAX)) {
        cr_set_msg(imp->err, sizeof imp->err, "tolerance must lie in [%g, %g] (got %g)",
                   LZB_TOL_MIN, LZB_TOL_MAX, p->tolerance);
        return CR_ERR_INVALID;
    }
    return CR_OK;
}

/* Nondimensional coefficients: cⱼkⱼ with kⱼ = Kⱼ^(1/(n+1)) E₀^(n/(n+1)) / F₀, F₀ the
 * largest (computed in logarithms: K and E₀ may be far from 1). */
static void coefficients(lzb *l, const cr_law_params *p, double E0)
{
    double top = -INFINITY;
    for (size_t j = 0; j < l->m; j++) {
        double n = l->n[j];
        l->C[j] = log(p->stiffness ? p->stiffness[j] : 1.0) / (n + 1.0) +
                  n / (n + 1.0) * (log(n + 1.0) + log(E0));
        top = fmax(top, l->C[j]);
    }
    for (size_t j = 0; j < l->m; j++)
        l->C[j] = fmax(exp(l->C[j] - top), 1e-300);
}

/* ---- the law ----------------------------------------------------------------- */

typedef struct {
    lzb l;
    double *Gdiag, *P, *u, *g0;
    SUNContext ctx;
    N_Vector y;
    void *cvode;
    SUNNonlinearSolver nls;
    int *found;
} lzb_work;

static void work_free(lzb_work *w)
{
    free(w->l.Gv);
    free(w->l.Gc);
    free(w->l.Gr);
    free(w->l.C);
    free(w->l.n);
    free(w->l.e);
    free(w->l.gam);
    free(w->l.state);
    free(w->l.released);
    free(w->Gdiag);
    free(w->P);
    free(w->u);
    free(w->found);
    free(w->g0);
    if (w->cvode)
        CVodeFree(&w->cvode);
    if (w->nls)
        SUNNonlinSolFree(w->nls);
    if (w->y)
        N_VDestroy(w->y);
    if (w->ctx)
        SUNContext_Free(&w->ctx);
}

static int work_alloc(lzb_work *w, const cr_impact *imp, const cr_law_params *p, double v0,
                      double G0)
{
    size_t m = imp->m, nnz = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < m; k++)
            nnz += CR_AT(imp->G, m, i, k) != 0.0;
    lzb *l = &w->l;
    l->m = m;
    l->Gv = malloc((nnz + 1) * sizeof(double));
    l->Gc = malloc((nnz + 1) * sizeof(size_t));
    l->Gr = malloc((m + 1) * sizeof(size_t));
    l->C = malloc(m * sizeof(double));
    l->n = malloc(m * sizeof(double));
    l->e = malloc(m * sizeof(double));
    l->gam = malloc(m * sizeof(double));
    l->state = calloc(m, 1);
    l->released = calloc(m, 1);
    w->Gdiag = malloc(m * sizeof(double));
    w->P = malloc(m * sizeof(double));
    w->u = malloc(imp->n * sizeof(double));
    w->found = calloc(3 * m, sizeof(int));
    w->g0 = malloc(m * sizeof(double));
    if (!l->Gv || !l->Gc || !l->Gr || !l->C || !l->n || !l->e || !l->gam || !l->state ||
        !l->released || !w->Gdiag || !w->P || !w->u || !w->found || !w->g0)
        return CR_ERR_NOMEM;
    nnz = 0;
    for (size_t i = 0; i < m; i++) {
        l->Gr[i] = nnz;
        for (size_t k = 0; k < m; k++)
            if (CR_AT(imp->G, m, i, k) != 0.0) {
                l->Gv[nnz] = CR_AT(imp->G, m, i, k) / G0;
                l->Gc[nnz++] = k;
            }
        w->Gdiag[i] = CR_AT(imp->G, m, i, i) / G0;
        w->g0[i] = v0 > 0.0 ? imp->gamma[i] / v0 : 0.0;
        l->n[i] = p->exponent ? p->exponent[i] : 1.5;
        l->e[i] = p->energetic ? p->energetic[i] : p->restitution;
    }
    l->Gr[m] = nnz;
    l->g0 = w->g0;
    return CR_OK;
}

static int cvode_setup(lzb_work *w, double tol)
{
    size_t m = w->l.m;
    if (SUNContext_Create(NULL, &w->ctx) != 0)
        return CR_ERR_NOMEM;
    w->y = N_VNew_Serial((sunindextype)(3 * m), w->ctx);
    w->cvode = w->y ? CVodeCreate(CV_ADAMS, w->ctx) : NULL;
    if (!w->cvode)
        return CR_ERR_NOMEM;
    N_VConst(0.0, w->y);
    CVodeSetErrHandlerFn(w->cvode, cr_sundials_error_handler, w->l.err);
    int flag = CVodeInit(w->cvode, rhs, 0.0, w->y);
    /* the problem is not stiff (one contact's loading and unloading per piece):
     * Adams with fixed-point iterations needs no Jacobian */
    w->nls = flag == CV_SUCCESS ? SUNNonlinSol_FixedPoint(w->y, 0, w->ctx) : NULL;
    if (!w->nls)
        return CR_ERR_NOMEM;
    int *dir = w->found; /* borrowed: CVODE copies the directions */
    for (size_t j = 0; j < m; j++) {
        dir[j] = 0;         /* γⱼ: both ways */
        dir[m + j] = -1;    /* release: the energy falls to 0 */
        dir[2 * m + j] = 1; /* takeover */
    }
    if (flag == CV_SUCCESS)
        flag = CVodeSetNonlinearSolver(w->cvode, w->nls);
    if (flag == CV_SUCCESS)
        flag = CVodeSetUserData(w->cvode, &w->l);
    if (flag == CV_SUCCESS)
        flag = CVodeSStolerances(w->cvode, tol, tol * LZB_ATOL_FACTOR);
    if (flag == CV_SUCCESS)
        flag = CVodeSetMaxNumSteps(w->cvode, LZB_MAX_STEPS);
    /* a restart begins at order 1, whose step must be of the order of
     * √(atol/|y''|): under tight tolerances and a fast expansion (1/e²) that is
     * several tenfold reductions below CVODE's first guess, past its default of 7 */
    if (flag == CV_SUCCESS)
        flag = CVodeSetMaxErrTestFails(w->cvode, LZB_MAX_ERR_FAILS);
    if (flag == CV_SUCCESS)
        flag = CVodeRootInit(w->cvode, (int)(3 * m), roots);
    if (flag == CV_SUCCESS)
        flag = CVodeSetRootDirection(w->cvode, dir);
    return flag == CV_SUCCESS ? CR_OK : CR_ERR_SOLVER;
}

/* Runs the pieces until no contact holds energy or approaches. 0 when finished,
 * 1 at the event cap, −1 on a solver failure (message in l->err). Every event
 * restarts the integration from the located root: a state changed or the
 * variable did, and a multistep method must not carry its history across. */
static int integrate(lzb_work *w, long *events, long *steps, cr_law_result *r)
{
    lzb *l = &w->l;
    size_t m = l->m;
    double *y = N_VGetArrayPointer(w->y), sigma = 0.0;
    long cap = LZB_MAX_EVENTS((long)m), banked = 0, k = 0;
    int need_start = 1;
    for (*events = 0;; (*events)++) {
        if (*events > cap)
            return 1;
        if (need_start) {
            gammas(l, y);
            int approaching = 0;
            for (size_t j = 0; j < m; j++)
                approaching |= l->gam[j] < -engage_speed(l, j);
            if (!approaching)
                return 0; /* nothing approaches, nothing is loaded: the impact is over */
            sigma = start_piece(l, y, w->Gdiag);
            trace_primary(r, l->p);
            need_start = 0;
        }
        /* a held contact already approaching will cross no root: it loads now
         * (after a start, the series' impulses have set it approaching) */
        gammas(l, y);
        for (size_t j = 0; j < m; j++)
            if (l->state[j] == HELD && l->gam[j] < -engage_speed(l, j)) {
                l->reengaged += l->released[j];
                l->state[j] = COMPRESSION;
            }
        banked += k;
        k = 0;
        if (CVodeReInit(w->cvode, sigma, w->y) != CV_SUCCESS)
            return -1;
        int flag = CVode(w->cvode, LZB_SIGMA_END, w->y, &sigma, CV_NORMAL);
        CVodeGetNumSteps(w->cvode, &k);
        *steps = banked + k;
        if (flag != CV_ROOT_RETURN) {
            if (flag == CV_SUCCESS)
                cr_set_msg(l->err, CR_ERRMSG_LEN, "no release before the end of the variable");
            return -1;
        }
        CVodeGetRootInfo(w->cvode, w->found);
        int released = 0, takeover = 0;
        size_t p = l->p;
        apply_roots(l, y + m, w->found, &released, &takeover);
        if (released || takeover) {
            if (!choose_primary(l, y + m))
                need_start = 1;
            else if (l->p != p || released) {
                sigma = 0.0; /* a new piece in the new primary's impulse */
                trace_primary(r, l->p);
            }
        }
    }
}

/*
 * One contact: the impact of two bodies along w₀. The bi-stiffness contact stores
 * all the approach energy along w₀, W_c = ½γ⁻²/G₀₀, and returns e²W_c, so
 * γ⁺ = −eγ⁻ and P = −(1 + e)γ⁻/G₀₀ exactly, whatever K and n: no integration
 * (most episodes of a pendulum cradle are such pairs; `cradle compare` runs LZB
 * on each).
 */
static int single_contact(cr_impact *imp, double e, cr_law_result *r)
{
    double G = imp->G[0], g = imp->gamma[0], P = -(1.0 + e) * g / G;
    double *u = malloc(imp->n * sizeof(double)), *work = malloc(sizeof(double));
    int rc = u && work ? CR_OK : CR_ERR_NOMEM;
    if (rc == CR_OK) {
        cr_laws_apply(imp, imp->u, &P, u);
        rc = cr_laws_push(r, imp, u, &P);
    }
    if (rc == CR_OK) {
        free(r->work);
        r->work = work;
        work = NULL;
        r->work[0] = 0.5 * g * g / G;
        r->has_work = 1;
        snprintf(r->trace, sizeof r->trace, "one contact: gamma+ = -e gamma- (closed form)");
    }
    free(u);
    free(work);
    return rc;
}

int cr_law_lzb(cr_impact *imp, const cr_law_params *p, cr_law_result *r)
{
    size_t m = imp->m;
    int rc = check_params(imp, p);
    if (rc != CR_OK)
        return rc;
    double v0 = 0.0, G0 = 0.0, gmin = 0.0;
    for (size_t j = 0; j < m; j++) {
        v0 = fmax(v0, fabs(imp->gamma[j]));
        G0 = fmax(G0, CR_AT(imp->G, m, j, j));
        gmin = fmin(gmin, imp->gamma[j]);
    }
    lzb_work w = {0};
    rc = work_alloc(&w, imp, p, v0, G0 > 0.0 ? G0 : 1.0);
    if (rc == CR_OK && !(gmin < -LZB_VEL_TOL * v0)) {
        /* nothing approaches: no impact */
        memset(w.P, 0, m * sizeof(double));
        rc = cr_laws_push(r, imp, imp->u, w.P);
        goto done;
    }
    if (rc == CR_OK && m == 1) {
        rc = single_contact(imp, w.l.e[0], r);
        goto done;
    }
    double I0 = v0 / G0, E0 = v0 * I0;
    if (rc == CR_OK)
        rc = cvode_setup(&w, p->tolerance);
    if (rc != CR_OK)
        goto done;
    coefficients(&w.l, p, E0);
    long events = 0, steps = 0;
    w.l.slow = LZB_SLOW * p->tolerance;
    int st = integrate(&w, &events, &steps, r);
    if (st < 0) {
        r->status = CR_LAW_SOLVER_FAILED;
        snprintf(r->msg, sizeof r->msg, "integration failed: %s", w.l.err);
        goto done;
    }
    const double *y = N_VGetArrayPointer(w.y);
    for (size_t j = 0; j < m; j++)
        w.P[j] = y[j] * I0;
    cr_laws_apply(imp, imp->u, w.P, w.u);
    rc = cr_laws_push(r, imp, w.u, w.P);
    if (rc != CR_OK)
        goto done;
    /* per-contact compression work, and the law's own checks */
    free(r->work);
    r->work = malloc(m * sizeof(double));
    if (!r->work) {
        rc = CR_ERR_NOMEM;
        goto done;
    }
    r->has_work = 1;
    double lost = 0.0;
    for (size_t j = 0; j < m; j++) {
        r->work[j] = y[2 * m + j] * E0;
        lost += (1.0 - w.l.e[j] * w.l.e[j]) * y[2 * m + j];
    }
    /* T⁻ − T⁺ = Σ (1 − eⱼ²) W_c,j, in units of E₀ (kinetic_scaled gives T/v₀²) */
    double Tm = G0 * cr_laws_kinetic_scaled(imp, imp->u, v0);
    double Tp = G0 * cr_laws_kinetic_scaled(imp, w.u, v0);
    double balance = fabs(Tm - Tp - lost) / Tm;
    gammas(&w.l, y);
    double approach = 0.0;
    for (size_t j = 0; j < m; j++)
        approach = fmax(approach, -w.l.gam[j]);
    r->residual = fmax(balance, approach);
    if (st > 0) {
        r->status = CR_LAW_NOT_TERMINATED;
        snprintf(r->msg, sizeof r->msg, "still impacting after %ld events", events);
    } else if (r->residual > fmax(LZB_CHECK_MIN, LZB_CHECK * w.l.slow)) {
        r->status = CR_LAW_SOLVER_FAILED;
        snprintf(r->msg, sizeof r->msg,
                 "energy relation off by %.3g or a contact still approaching (%.3g)", balance,
                 approach);
    }
    size_t used = strlen(r->trace);
    snprintf(r->trace + used, sizeof r->trace - used, "%s%ld events, %ld steps", used ? "; " : "",
             events, steps);
    used = strlen(r->trace);
    if (w.l.reengaged)
        snprintf(r->trace + used, sizeof r->trace - used,
                 "; %ld re-engagements of released contacts (with no gap)", w.l.reengaged);
done:
    work_free(&w);
    return rc;
}
