/* Private parts of the comparator, shared by its three files: compare.c
 * (episodes in, rows and summaries out), compare-params.c (the parameter
 * mapping of both modes and the two-body cache) and compare-eval.c (one law on
 * one episode: errors and conditions). */
#ifndef CRADLE_COMPARE_PRIV_H
#define CRADLE_COMPARE_PRIV_H

#include "cradle/calibrate.h"
#include "cradle/compare.h"
#include "base/base.h"

/* One end of a contact record in the dofs of the impact configuration. */
typedef struct {
    long dof_a, dof_b; /* first dof of each body, −1 for a wall or fixed body */
    double sign_a;     /* −1 for a pair, +1 against a half-plane wall */
    const double *n;   /* unit normal at joining (dim values, in cmp_episode::normals) */
    const double *w;   /* rigid bodies: the whole column of W (dofs values, in
                          cmp_episode::columns), which replaces the above; else NULL */
} cmp_column;

/* What the comparator keeps of one episode. */
typedef struct {
    cr_compare_episode info;
    int dim;
    cr_impact *imp;          /* NULL above the law core's caps */
    double *mass;            /* per dof */
    double *u_minus, *u_ref; /* dofs values */
    double *field;           /* ∫F_field dt per dof */
    double *v_md;            /* maximal dissipation's u⁺ (the tangent part of u⁻), or NULL */
    double *P;               /* measured impulses, contacts values */
    double *gamma_minus;     /* γ⁻ per record */
    double *e_newton, *e_poisson, *alpha; /* measured (eᴺ on the reference u⁺; NaN undefined) */
    double *normals;                      /* contacts × dim */
    double *columns;                      /* rigid bodies: W, contacts × dofs; else NULL */
    cmp_column *col;
    cr_contact_params *laws;      /* per record, or NULL */
    double *stiffness, *exponent; /* LZB: K and n of each record's pair law, or NULL */
    double T_minus, T_ref;
    char note[160]; /* why there is no configuration (sizes, a refused M) */
} cmp_episode;

struct cr_compare {
    cmp_episode *ep;
    size_t nep, epcap;
    cr_compare_row *rows;
    double **row_u, **row_P, **row_par;
    size_t nrows, rowcap;
    cr_restitution_cache *cache; /* two-body runs (calibrate.h), shared with table lookups */
    cr_law_result *res;
    cr_table *table;                   /* predictive α, κ (compare-table.c), or NULL */
    char table_refusal[CR_ERRMSG_LEN]; /* the first impact outside the table's axes */
    char err[CR_ERRMSG_LEN];
};

/* γ of record r at velocity u (dofs values). */
double cr_cmp_gamma(const cmp_episode *e, size_t r, const double *u);
/* ½ uᵀMu. */
double cr_cmp_energy(const cmp_episode *e, const double *u);

/*
 * The parameters of @p law in @p mode for episode @p e: fills @p p (its arrays
 * point into @p par, m values, and @p alpha) and the row's flags, parameter
 * and message. @return 1 when the law is to be run, 0 when the row is
 * decided already (status set: no prediction, infeasible, failed).
 */
int cr_cmp_params(cr_compare *c, const cmp_episode *e, cr_law_id law, cr_compare_mode mode,
                  cr_law_params *p, double *par, int *has_par, cr_compare_row *row);

/*
 * The energetic law's predictive α and κ from c->table (compare-table.c):
 * @return 1 when the table covers @p e (p, par filled), else 0 with the row's
 * status (no prediction) and the reason in its message.
 */
int cr_cmp_table_params(cr_compare *c, const cmp_episode *e, cr_law_params *p, double *par,
                        int *has_par, cr_compare_row *row);

/*
 * Runs the law with @p p on @p e and fills the row's verdict, errors and
 * conditions; the chosen outcome's u⁺ and P into @p u and @p P (may stay
 * unset when there is no answer: then *answered = 0).
 */
/* Appends a note to the row's message ("; " between notes). A note that does
 * not fit whole ends the message with "..." rather than being cut silently. */
void cr_cmp_note(cr_compare_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cr_cmp_evaluate(cr_compare *c, const cmp_episode *e, cr_law_id law, const cr_law_params *p,
                     cr_compare_row *row, double *u, double *P, int *answered);

#endif
