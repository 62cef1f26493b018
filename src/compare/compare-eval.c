/* One law on one episode: the law core's verdict, the outcome closest to the
 * reference u⁺, its errors and the law's own conditions (docs/compare.md,
 * "What each row says"). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "compare/compare-priv.h"

double cr_cmp_gamma(const cmp_episode *e, size_t r, const double *u)
{
    const cmp_column *k = &e->col[r];
    double g = 0.0;
    for (size_t i = 0; k->w && i < e->info.dofs; i++)
        g += k->w[i] * u[i];
    for (int d = 0; d < e->dim && !k->w; d++) {
        if (k->dof_a >= 0)
            g += k->sign_a * k->n[d] * u[k->dof_a + d];
        if (k->dof_b >= 0)
            g += k->n[d] * u[k->dof_b + d];
    }
    return g;
}

double cr_cmp_energy(const cmp_episode *e, const double *u)
{
    double T = 0.0;
    for (size_t i = 0; i < e->info.dofs; i++)
        T += 0.5 * e->mass[i] * u[i] * u[i];
    return T;
}

/* ‖a − b‖_M */
static double kinetic_distance(const cmp_episode *e, const double *a, const double *b)
{
    double s = 0.0;
    for (size_t i = 0; i < e->info.dofs; i++)
        s += e->mass[i] * (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

static double error_of(const cmp_episode *e, const double *u)
{
    return kinetic_distance(e, u, e->u_ref) / e->info.v_perp;
}

static cr_compare_status verdict(cr_law_status s)
{
    switch (s) {
    case CR_LAW_OK:
        return CR_COMPARE_OK;
    case CR_LAW_INFEASIBLE:
    case CR_LAW_NEGATIVE_IMPULSE: /* an equality law that pulls: its own P ≥ 0 fails */
        return CR_COMPARE_INFEASIBLE;
    case CR_LAW_MULTIPLE:
    case CR_LAW_NOT_TERMINATED: /* the outcomes found are reported; the message says why */
        return CR_COMPARE_MULTIPLE;
    case CR_LAW_TOO_LARGE:
        return CR_COMPARE_TOO_LARGE;
    case CR_LAW_SOLVER_FAILED:
    default:
        return CR_COMPARE_FAILED;
    }
}

/* Errors and conditions of the answer (u, P). */
static void judge(const cmp_episode *e, const double *u, const double *P, cr_compare_row *row)
{
    size_t m = e->info.contacts;
    double Tl = cr_cmp_energy(e, u), gmax = 0.0, pmax = 0.0, dp = 0.0, pm = 0.0, gmin = INFINITY;
    double pmin = INFINITY;
    for (size_t r = 0; r < m; r++) {
        gmax = fmax(gmax, fabs(e->gamma_minus[r]));
        pmax = fmax(pmax, fabs(P[r]));
        dp += (P[r] - e->P[r]) * (P[r] - e->P[r]);
        pm += e->P[r] * e->P[r];
        gmin = fmin(gmin, cr_cmp_gamma(e, r, u));
        pmin = fmin(pmin, P[r]);
    }
    row->error = error_of(e, u);
    row->energy_error = (Tl - e->T_ref) / e->T_minus;
    row->energy_ratio = Tl / e->T_minus;
    row->impulse_error = pm > 0.0 ? sqrt(dp / pm) : NAN;
    row->gamma_ok = gmin >= -CR_COMPARE_CONDITION_TOL * gmax;
    row->impulse_ok = pmin >= -CR_COMPARE_CONDITION_TOL * pmax;
    row->energy_ok = Tl <= (1.0 + CR_COMPARE_CONDITION_TOL) * e->T_minus;
}

void cr_cmp_note(cr_compare_row *row, const char *fmt, ...)
{
    char text[sizeof row->message];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t used = strlen(row->message), room = sizeof row->message - used;
    if (n <= 0 || room < 4 || strstr(row->message, "..."))
        return; /* nothing to say, or already marked as cut */
    size_t sep = used ? 2 : 0;
    if (sep + (size_t)n < room) {
        snprintf(row->message + used, room, "%s%s", used ? "; " : "", text);
        return;
    }
    /* what fits, then "..." (the whole text is in the law's own result) */
    snprintf(row->message + used, room - 3, "%s%s", used ? "; " : "", text);
    strcat(row->message, "...");
}

void cr_cmp_evaluate(cr_compare *c, const cmp_episode *e, cr_law_id law, const cr_law_params *p,
                     cr_compare_row *row, double *u, double *P, int *answered)
{
    *answered = 0;
    int rc = cr_law_solve(e->imp, law, p, c->res);
    if (rc != CR_OK) {
        /* the law core refused a parameter: an out-of-range one is the reason */
        row->status =
            row->flags & CR_COMPARE_FLAG_OUT_OF_RANGE ? CR_COMPARE_OUT_OF_RANGE : CR_COMPARE_FAILED;
        cr_cmp_note(row, "the law core refuses it: %s",
                    rc == CR_ERR_NOMEM ? "out of memory" : cr_impact_last_error(e->imp));
        return;
    }
    cr_law_status s = cr_law_result_status(c->res);
    row->law_status = (int)s;
    row->status = verdict(s);
    cr_cmp_note(row, "%s", cr_law_result_message(c->res));
    size_t n = cr_law_result_outcome_count(c->res);
    row->outcomes = n;
    if (n == 0)
        return;
    size_t best = 0;
    double eb = INFINITY;
    for (size_t k = 0; k < n; k++) {
        double ek = error_of(e, cr_law_result_velocity(c->res, k));
        if (ek < eb) {
            eb = ek;
            best = k;
        }
    }
    row->chosen = best;
    memcpy(u, cr_law_result_velocity(c->res, best), e->info.dofs * sizeof(double));
    memcpy(P, cr_law_result_impulse(c->res, best), e->info.contacts * sizeof(double));
    judge(e, u, P, row);
    *answered = 1;
    if ((row->flags & CR_COMPARE_FLAG_OUT_OF_RANGE) && row->status == CR_COMPARE_OK)
        row->status = CR_COMPARE_OUT_OF_RANGE;
}
