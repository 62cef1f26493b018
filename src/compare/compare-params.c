/* The comparator's parameter mapping (docs/compare.md, "Parameters"): what
 * each law is given in the calibrated mode (measured on the episode itself)
 * and in the predictive mode (two-body compliant runs, cached). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare-priv.h"
#include "cradle/calibrate.h"

/* Laws whose parameter is one restitution per contact (Newton's family). */
static int newton_family(cr_law_id law)
{
    return law == CR_LAW_NEWTON || law == CR_LAW_MOSTERMAN || law == CR_LAW_PANDREA ||
           law == CR_LAW_SEQUENTIAL;
}

/* Restitutions outside [0, 1] are kept as they are and flagged (never
 * clamped): one note for all of an episode's @p n records (a 20-bead column
 * has 20, which one note each would not fit), naming the farthest. */
static void range_check(cr_compare_row *row, const double *e, size_t n, const char *what)
{
    size_t out = 0, worst = 0;
    for (size_t r = 0; r < n; r++)
        if (isfinite(e[r]) && !(e[r] >= 0.0 && e[r] <= 1.0)) {
            double d = fmax(-e[r], e[r] - 1.0), dw = fmax(-e[worst], e[worst] - 1.0);
            worst = out++ == 0 || d > dw ? r : worst;
        }
    if (!out)
        return;
    row->flags |= CR_COMPARE_FLAG_OUT_OF_RANGE;
    if (out == 1)
        cr_cmp_note(row, "%s of contact record %zu = %.9g outside [0, 1], used as it is", what,
                    worst, e[worst]);
    else
        cr_cmp_note(row,
                    "%s outside [0, 1] on %zu contact records, farthest record %zu = %.9g, used "
                    "as they are",
                    what, out, worst, e[worst]);
}

static int lzb(cr_compare *c, const cmp_episode *e, cr_law_params *p, double *par, int *has_par,
               cr_compare_row *row);

/* ---- calibrated ------------------------------------------------------------ */

/* Per-contact measured coefficients: eᴺ (Newton's family) or eᴾ (Poisson).
 * Undefined ones (a contact at rest, no compression) do not enter the law:
 * 0 is passed and flagged. */
static void measured_restitutions(const cmp_episode *e, int poisson, double *par,
                                  cr_compare_row *row)
{
    for (size_t r = 0; r < e->info.contacts; r++) {
        double v = poisson ? e->e_poisson[r] : e->e_newton[r];
        if (isfinite(v)) {
            par[r] = v;
        } else {
            par[r] = 0.0;
            row->flags |= poisson ? CR_COMPARE_FLAG_NO_COMPRESSION : CR_COMPARE_FLAG_AT_REST;
        }
    }
    range_check(row, poisson ? e->e_poisson : e->e_newton, e->info.contacts,
                poisson ? "e_P" : "e_N");
}

/*
 * GDI's one ε: with u⁻ = v + v⊥ (v = prox_T(u⁻), maximal dissipation's answer,
 * v ⊥ v⊥ in the kinetic metric; 000 eq. 56) the law gives u⁺ = v − εv⊥, so
 * κ(ε) = (‖v‖² + ε²‖v⊥‖²)/‖u⁻‖² = κ_min + ε²(1 − κ_min). Below κ_min no ε
 * gives κ (infeasible); above 1, ε > 1 (out of range, used as it is).
 */
static int gdi_epsilon(const cmp_episode *e, double kappa, cr_compare_row *row, double *eps)
{
    double kmin = e->info.kappa_min;
    if (!isfinite(kmin)) {
        row->status = CR_COMPARE_FAILED;
        cr_cmp_note(row, "maximal dissipation failed: no tangent/normal split of u- for epsilon");
        return 0;
    }
    if (!(1.0 - kmin > 0.0)) {
        *eps = 0.0;
        cr_cmp_note(row, "no normal part of u-: epsilon does not enter");
        return 1;
    }
    double e2 = (kappa - kmin) / (1.0 - kmin);
    if (!(e2 >= 0.0)) {
        row->status = CR_COMPARE_INFEASIBLE;
        cr_cmp_note(
            row,
            "kappa = %.9g is below kappa_min = %.9g of maximal dissipation: no epsilon >= 0 "
            "gives it",
            kappa, kmin);
        return 0;
    }
    *eps = sqrt(e2);
    if (*eps > 1.0) {
        row->flags |= CR_COMPARE_FLAG_OUT_OF_RANGE;
        cr_cmp_note(row, "epsilon = %.9g > 1 (kappa = %.9g > 1), used as it is", *eps, kappa);
    }
    return 1;
}

static int calibrated(cr_compare *c, const cmp_episode *e, cr_law_id law, cr_law_params *p,
                      double *par, int *has_par, cr_compare_row *row)
{
    size_t m = e->info.contacts;
    if (law == CR_LAW_LZB)
        return lzb(c, e, p, par, has_par, row);
    if (newton_family(law) || law == CR_LAW_POISSON) {
        measured_restitutions(e, law == CR_LAW_POISSON, par, row);
        p->restitutions = par;
        *has_par = 1;
        return 1;
    }
    if (law == CR_LAW_GLOBAL_DISSIPATION) {
        double eps;
        if (!gdi_epsilon(e, e->info.kappa, row, &eps))
            return 0;
        p->restitution = eps;
        row->parameter = eps;
        return 1;
    }
    if (law == CR_LAW_MAX_DISSIPATION)
        return 1;
    if (law == CR_LAW_ENERGETIC) {
        for (size_t r = 0; r < m; r++) {
            par[r] = r == e->info.reference ? 1.0 : e->alpha[r];
            if (!(par[r] >= 0.0)) {
                row->flags |= CR_COMPARE_FLAG_OUT_OF_RANGE;
                cr_cmp_note(row, "alpha of contact record %zu = %.9g < 0, used as it is", r,
                            par[r]);
            }
        }
        p->alpha = par;
        p->kappa = e->info.kappa;
        p->reference = e->info.reference;
        row->parameter = e->info.kappa;
        if (!(e->info.kappa >= 0.0 && e->info.kappa <= 1.0)) {
            row->flags |= CR_COMPARE_FLAG_OUT_OF_RANGE;
            cr_cmp_note(row, "kappa = %.12g outside [0, 1], used as it is", e->info.kappa);
        }
        *has_par = 1;
        return 1;
    }
    row->status = CR_COMPARE_NO_PREDICTION;
    cr_cmp_note(row, "no calibration mapping for this law yet");
    return 0;
}

/* ---- predictive: two-body runs --------------------------------------------- */

/* Restitution of a two-body compliant run with @p law, reduced mass @p mu, at
 * speed @p v: exactly 1 for an elastic law (C = 0: the contact stores and
 * returns its energy), else one run per distinct (law, μ, v), cached. */
static int two_body(cr_compare *c, const cr_contact_params *law, double mu, double v, double *e,
                    cr_compare_row *row)
{
    if (law->C == 0.0) {
        *e = 1.0;
        row->flags |= CR_COMPARE_FLAG_ELASTIC;
        return CR_OK;
    }
    char msg[CR_ERRMSG_LEN];
    int rc = cr_restitution_cache_get(c->cache, law, mu, v, e, msg, sizeof msg);
    if (rc != CR_OK)
        cr_cmp_note(row, "two-body run: %s", msg);
    return rc;
}

/* Reduced mass of record r: 1/(1/m_a + 1/m_b), a wall or fixed body counting as
 * infinitely heavy (= 1/Gᵣᵣ for a unit normal). */
static double reduced_mass(const cmp_episode *e, size_t r)
{
    const cmp_column *k = &e->col[r];
    double inv = 0.0;
    for (size_t i = 0; k->w && i < e->info.dofs; i++) /* wᵀM⁻¹w: with the lever arms */
        inv += k->w[i] * k->w[i] / e->mass[i];
    if (k->w)
        return inv > 0.0 ? 1.0 / inv : NAN;
    if (k->dof_a >= 0)
        inv += 1.0 / e->mass[k->dof_a];
    if (k->dof_b >= 0)
        inv += 1.0 / e->mass[k->dof_b];
    return inv > 0.0 ? 1.0 / inv : NAN;
}

static int predicted_restitutions(cr_compare *c, const cmp_episode *e, double *par,
                                  cr_compare_row *row)
{
    if (!e->laws) {
        row->status = CR_COMPARE_NO_PREDICTION;
        cr_cmp_note(row, "the pair laws are unknown: no two-body run");
        return 0;
    }
    if (!(e->info.speed > 0.0)) {
        row->status = CR_COMPARE_NO_PREDICTION;
        cr_cmp_note(row, "the reference contact does not approach: no speed for two-body runs");
        return 0;
    }
    for (size_t r = 0; r < e->info.contacts; r++) {
        double mu = reduced_mass(e, r);
        if (two_body(c, &e->laws[r], mu, e->info.speed, &par[r], row) != CR_OK) {
            row->status = CR_COMPARE_FAILED;
            return 0;
        }
    }
    range_check(row, par, e->info.contacts, "two-body e");
    return 1;
}

static int predictive(cr_compare *c, const cmp_episode *e, cr_law_id law, cr_law_params *p,
                      double *par, int *has_par, cr_compare_row *row)
{
    if (newton_family(law) || law == CR_LAW_POISSON) {
        /* a central two-body collision has eᴺ = eᴾ: one run serves both */
        if (!predicted_restitutions(c, e, par, row))
            return 0;
        p->restitutions = par;
        *has_par = 1;
        return 1;
    }
    if (law == CR_LAW_GLOBAL_DISSIPATION) {
        if (!predicted_restitutions(c, e, par, row))
            return 0;
        p->restitution = par[e->info.reference];
        row->parameter = p->restitution;
        return 1;
    }
    if (law == CR_LAW_MAX_DISSIPATION)
        return 1;
    if (law == CR_LAW_LZB)
        return lzb(c, e, p, par, has_par, row);
    if (law == CR_LAW_ENERGETIC && c->table)
        return cr_cmp_table_params(c, e, p, par, has_par, row);
    row->status = CR_COMPARE_NO_PREDICTION;
    if (law == CR_LAW_ENERGETIC)
        cr_cmp_note(row, "alpha and kappa need a reference table covering the configuration "
                         "(cradle compare --table, docs/tables.md)");
    else
        cr_cmp_note(row, "no predictive mapping for this law yet");
    return 0;
}

/* ---- LZB: the pair laws, in both modes -------------------------------------- */

/*
 * The LZB law needs nothing measured: Kⱼ and nⱼ of each record's pair law as
 * they are, and as energetic restitution eⱼ the two-body restitution of the pair
 * law (reduced mass of the record, the reference contact's approach speed; 1
 * for an elastic law): for a central two-body impact the energetic coefficient
 * is Newton's. The same in both modes. Integrated at CR_COMPARE_LZB_TOL.
 */
static int lzb(cr_compare *c, const cmp_episode *e, cr_law_params *p, double *par, int *has_par,
               cr_compare_row *row)
{
    if (!predicted_restitutions(c, e, par, row))
        return 0;
    for (size_t r = 0; r < e->info.contacts; r++)
        if (!(e->exponent[r] >= 1.0 && e->exponent[r] <= 10.0)) {
            row->flags |= CR_COMPARE_FLAG_OUT_OF_RANGE;
            cr_cmp_note(row, "exponent of contact record %zu = %g outside LZB's [1, 10]", r,
                        e->exponent[r]);
        }
    p->stiffness = e->stiffness;
    p->exponent = e->exponent;
    p->energetic = par;
    p->tolerance = CR_COMPARE_LZB_TOL;
    *has_par = 1;
    return 1;
}

int cr_cmp_params(cr_compare *c, const cmp_episode *e, cr_law_id law, cr_compare_mode mode,
                  cr_law_params *p, double *par, int *has_par, cr_compare_row *row)
{
    cr_law_params_init(p);
    /* a measured value above 1 is used as it is by the laws defined for it */
    p->superelastic = 1;
    *has_par = 0;
    return mode == CR_COMPARE_CALIBRATED ? calibrated(c, e, law, p, par, has_par, row)
                                         : predictive(c, e, law, p, par, has_par, row);
}
