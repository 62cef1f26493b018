/* What the law core's files share: the configuration and result structs and the
 * helpers every law uses. Private to the library. */
#ifndef CRADLE_LAWS_PRIV_H
#define CRADLE_LAWS_PRIV_H

#include "cradle/laws.h"
#include "base/base.h"

/* Relative tolerance of the checks on velocities and impulses. */
#define LAW_TOL 1e-9

struct cr_impact {
    size_t n, m;
    double *M, *L, *W, *MiW, *G, *what, *u, *gamma;
    double T;  /* pre-impact kinetic energy */
    double Ts; /* the same with u⁻ / vscale: energy ratios neither overflow nor underflow */
    double vscale;
    int prepared;
    long bad_contact; /* the contact prepare() refused, −1 for M, −2 for u⁻ */
    char err[CR_ERRMSG_LEN];
};

struct cr_law_result {
    size_t n, m, count, cap;
    double *u, *P, *ratio;
    double *work; /* LZB: compression work per contact (m values), else unused */
    int has_work;
    cr_law_status status;
    double residual;
    char msg[256];
    char trace[1024];
};

/* Appends the outcome (u⁺, P) with its T⁺/T⁻. */
int cr_laws_push(cr_law_result *r, const cr_impact *imp, const double *u, const double *P);
/* u = u0 + M⁻¹ W P */
void cr_laws_apply(const cr_impact *imp, const double *u0, const double *P, double *u);
/* ½ (v/s)ᵀ M (v/s) */
double cr_laws_kinetic_scaled(const cr_impact *imp, const double *v, double s);

/*
 * The energetic law's feasible floor (001 eq. 18): the smallest κ = T⁺/T⁻ for
 * which the energy balance along the impulse direction a (a_ref = 1, aⱼ =
 * alpha[j]) has a real impulse, κ_min = 1 − (aᵀγ⁻)² / (2 aᵀGa T⁻); at κ_min the
 * impulse is the one of least T⁺ along a (the maximal dissipation along that
 * direction). Prepares @p imp. @return CR_OK; CR_ERR_DOMAIN when nothing
 * approaches along a (no κ gives a positive impulse); CR_ERR_INVALID.
 */
int cr_law_energetic_kappa_min(cr_impact *imp, const cr_law_params *p, double *kappa_min);

/* The LZB law (src/laws/law-lzb.c), on a prepared configuration. */
int cr_law_lzb(cr_impact *imp, const cr_law_params *p, cr_law_result *r);

#endif
