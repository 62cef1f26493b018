/*
 * The comparator (docs/compare.md): episodes in, one row per law and mode out.
 * This file takes an episode apart (impact configuration, reference u⁺ with
 * the field correction, measured coefficients), runs the rows through
 * compare-params.c (what each law is given) and compare-eval.c (what it
 * answers), and keeps rows, episodes and summaries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare-priv.h"

static const char *const mode_names[CR_COMPARE_MODE_COUNT] = {"calibrated", "predictive"};
static const char *const status_names[CR_COMPARE_STATUS_COUNT] = {
    "ok", "infeasible", "multiple", "out-of-range", "too-large", "failed", "no-prediction"};

const char *cr_compare_mode_name(cr_compare_mode mode)
{
    return (unsigned)mode < CR_COMPARE_MODE_COUNT ? mode_names[mode] : "?";
}

const char *cr_compare_status_name(cr_compare_status s)
{
    return (unsigned)s < CR_COMPARE_STATUS_COUNT ? status_names[s] : "?";
}

/* ---- lifetime ---------------------------------------------------------------- */

static void free_episode(cmp_episode *e)
{
    cr_impact_destroy(e->imp);
    free(e->mass);
    free(e->u_minus);
    free(e->u_ref);
    free(e->field);
    free(e->v_md);
    free(e->P);
    free(e->gamma_minus);
    free(e->e_newton);
    free(e->e_poisson);
    free(e->alpha);
    free(e->normals);
    free(e->columns);
    free(e->col);
    free(e->laws);
    free(e->stiffness);
    free(e->exponent);
}

cr_compare *cr_compare_create(void)
{
    cr_compare *c = calloc(1, sizeof(*c));
    if (c && (!(c->res = cr_law_result_create()) || !(c->cache = cr_restitution_cache_create()))) {
        cr_law_result_destroy(c->res);
        free(c);
        return NULL;
    }
    return c;
}

void cr_compare_destroy(cr_compare *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->nep; k++)
        free_episode(&c->ep[k]);
    for (size_t i = 0; i < c->nrows; i++) {
        free(c->row_u[i]);
        free(c->row_P[i]);
        free(c->row_par[i]);
    }
    free(c->ep);
    free(c->rows);
    free(c->row_u);
    free(c->row_P);
    free(c->row_par);
    cr_restitution_cache_destroy(c->cache);
    cr_law_result_destroy(c->res);
    free(c);
}

const char *cr_compare_last_error(const cr_compare *c)
{
    return c ? c->err : "no comparator";
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return CR_OK;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return CR_ERR_NOMEM;
    *p = q;
    *cap = n;
    return CR_OK;
}

/* ---- an episode taken apart ---------------------------------------------------- */

static int fail(cr_compare *c, int rc, const char *what)
{
    cr_set_msg(c->err, sizeof c->err, "compare: %s", what);
    return rc;
}

/* The first dof of each body of the group (−1 for a fixed body), in body order,
 * as cr_monitor_impact numbers them. */
static long body_dof(const cr_episode_data *ep, const long *dof, long body)
{
    if (body < 0)
        return -1;
    size_t lo = 0, hi = ep->info.body_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ep->bodies[mid] < (size_t)body)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ep->info.body_count && ep->bodies[lo] == (size_t)body ? dof[lo] : -1;
}

static int alloc_episode(cmp_episode *e, size_t n, size_t m, size_t dim)
{
    size_t nn = n ? n : 1, mm = m ? m : 1;
    e->mass = malloc(nn * sizeof(double));
    e->u_minus = malloc(nn * sizeof(double));
    e->u_ref = malloc(nn * sizeof(double));
    e->field = calloc(nn, sizeof(double));
    e->P = malloc(mm * sizeof(double));
    e->gamma_minus = malloc(mm * sizeof(double));
    e->e_newton = malloc(mm * sizeof(double));
    e->e_poisson = malloc(mm * sizeof(double));
    e->alpha = malloc(mm * sizeof(double));
    e->normals = malloc(mm * dim * sizeof(double));
    e->col = malloc(mm * sizeof(cmp_column));
    return e->mass && e->u_minus && e->u_ref && e->field && e->P && e->gamma_minus && e->e_newton &&
                   e->e_poisson && e->alpha && e->normals && e->col
               ? CR_OK
               : CR_ERR_NOMEM;
}

/* The pair law of each record, and the LZB law's K and n taken from them. */
static int take_laws(cmp_episode *e, const cr_contact_params *laws, size_t m)
{
    e->laws = malloc(m * sizeof(cr_contact_params));
    e->stiffness = malloc(m * sizeof(double));
    e->exponent = malloc(m * sizeof(double));
    if (!e->laws || !e->stiffness || !e->exponent)
        return CR_ERR_NOMEM;
    memcpy(e->laws, laws, m * sizeof(cr_contact_params));
    for (size_t r = 0; r < m; r++) {
        e->stiffness[r] = laws[r].K;
        e->exponent[r] = laws[r].n;
    }
    return CR_OK;
}

/* The body-level configuration of an episode with rigid bodies, as the
 * monitor keeps it (cr_episode_data::dofs): dofs, M's diagonal, u⁻, W. */
static int take_body_configuration(cmp_episode *e, const cr_episode_data *ep)
{
    size_t n = ep->dofs, m = ep->info.contact_count, dim = (size_t)ep->dim;
    int rc = alloc_episode(e, n, m, dim);
    e->columns = rc == CR_OK ? malloc((m ? m : 1) * n * sizeof(double)) : NULL;
    if (rc != CR_OK || !e->columns)
        return CR_ERR_NOMEM;
    memcpy(e->mass, ep->dof_mass, n * sizeof(double));
    memcpy(e->u_minus, ep->dof_before, n * sizeof(double));
    memcpy(e->columns, ep->columns, m * n * sizeof(double));
    for (size_t r = 0; r < m; r++) {
        memcpy(e->normals + r * dim, ep->normals + r * dim, dim * sizeof(double));
        e->col[r] = (cmp_column){-1, -1, 1.0, e->normals + r * dim, e->columns + r * n};
    }
    e->info.dofs = n;
    e->info.contacts = m;
    e->dim = ep->dim;
    return CR_OK;
}

/* Dofs, masses, u⁻ and the W columns from the episode's bodies and records. */
static int take_configuration(cmp_episode *e, const cr_episode_data *ep)
{
    if (ep->dofs > 0)
        return take_body_configuration(e, ep);
    size_t nb = ep->info.body_count, m = ep->info.contact_count, dim = (size_t)ep->dim, n = 0;
    long *dof = malloc((nb ? nb : 1) * sizeof(long));
    if (!dof)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < nb; q++) {
        dof[q] = isinf(ep->mass[q]) ? -1 : (long)n;
        n += isinf(ep->mass[q]) ? 0 : dim;
    }
    int rc = alloc_episode(e, n, m, dim);
    for (size_t q = 0; rc == CR_OK && q < nb; q++)
        for (size_t d = 0; d < dim && dof[q] >= 0; d++) {
            e->mass[dof[q] + (long)d] = ep->mass[q];
            e->u_minus[dof[q] + (long)d] = ep->velocity_before[q * dim + d];
        }
    for (size_t r = 0; rc == CR_OK && r < m; r++) {
        const cr_contact_record *rec = &ep->records[r];
        memcpy(e->normals + r * dim, ep->normals + r * dim, dim * sizeof(double));
        e->col[r] =
            (cmp_column){body_dof(ep, dof, (long)rec->body_a), body_dof(ep, dof, rec->body_b),
                         rec->body_b < 0 ? 1.0 : -1.0, e->normals + r * dim, NULL};
    }
    free(dof);
    e->info.dofs = n;
    e->info.contacts = m;
    e->dim = ep->dim;
    return rc;
}

/*
 * The reference u⁺. Without fields: the measured u⁺. With fields the bodies
 * gained ∫F_field dt during the finite episode, which an instantaneous rigid
 * impact has not: per body, field impulse = m Δu − Σ ±∫f n dt of its contacts,
 * so the reference u⁻ + M⁻¹ Σ ±∫f n dt is u⁺ − M⁻¹∫F_field dt.
 */
static void take_reference(cmp_episode *e, const cr_episode_data *ep, int fields)
{
    size_t n = e->info.dofs, dim = (size_t)ep->dim, nb = ep->info.body_count;
    size_t i = 0;
    if (ep->dofs > 0)
        memcpy(e->u_ref, ep->dof_after, n * sizeof(double));
    for (size_t q = 0; q < nb && ep->dofs == 0; q++)
        for (size_t d = 0; d < dim && !isinf(ep->mass[q]); d++)
            e->u_ref[i++] = ep->velocity_after[q * dim + d];
    if (!fields)
        return;
    double *contact = calloc(n ? n : 1, sizeof(double));
    if (!contact)
        return; /* no correction rather than a wrong one: field_corrected stays 0 */
    for (size_t r = 0; r < e->info.contacts; r++) {
        const cmp_column *k = &e->col[r];
        const double *vi = ep->vector_impulses + r * dim;
        /* a rigid body: the record's impulse along its column at joining */
        for (size_t j = 0; k->w && j < n; j++)
            contact[j] += k->w[j] * ep->records[r].impulse;
        for (size_t d = 0; d < dim && !k->w; d++) {
            if (k->dof_a >= 0)
                contact[k->dof_a + (long)d] += k->sign_a * vi[d];
            if (k->dof_b >= 0)
                contact[k->dof_b + (long)d] += vi[d];
        }
    }
    for (i = 0; i < n; i++) {
        e->field[i] = e->mass[i] * (e->u_ref[i] - e->u_minus[i]) - contact[i];
        e->u_ref[i] = e->u_minus[i] + contact[i] / e->mass[i];
    }
    free(contact);
    e->info.field_corrected = 1;
}

/* Measured impulses and coefficients; eᴺ on the reference u⁺ (the monitor's
 * own eᴺ when no field acts), NaN where the monitor says the contact was at
 * rest. */
static void take_records(cmp_episode *e, const cr_episode_data *ep)
{
    for (size_t r = 0; r < e->info.contacts; r++) {
        const cr_contact_record *rec = &ep->records[r];
        e->P[r] = rec->impulse;
        e->gamma_minus[r] = cr_cmp_gamma(e, r, e->u_minus);
        e->e_newton[r] = rec->flags & CR_RECORD_AT_REST
                             ? NAN
                             : -cr_cmp_gamma(e, r, e->u_ref) / e->gamma_minus[r];
        e->e_poisson[r] = rec->poisson;
        e->alpha[r] = rec->alpha;
    }
    e->info.speed = fabs(e->gamma_minus[e->info.reference]);
}

/* The law core's configuration, within its caps; and the tangent part of u⁻
 * (maximal dissipation) that normalises the errors and sets GDI's ε. */
static int take_impact(cr_compare *c, cmp_episode *e)
{
    size_t n = e->info.dofs, m = e->info.contacts;
    e->info.kappa_min = NAN;
    if (n > CR_LAW_MAX_DOFS || m > CR_LAW_MAX_CONTACTS || n == 0 || m == 0) {
        snprintf(e->note, sizeof e->note,
                 "%zu dofs and %zu contacts: the law core takes 1 to %d dofs and 1 to %d contacts",
                 n, m, CR_LAW_MAX_DOFS, CR_LAW_MAX_CONTACTS);
        return CR_OK;
    }
    double *w = calloc(n, sizeof(double));
    e->imp = w ? cr_impact_create(n, m) : NULL;
    if (!e->imp) {
        free(w);
        return CR_ERR_NOMEM;
    }
    cr_impact_set_mass_diagonal(e->imp, e->mass);
    cr_impact_set_velocity(e->imp, e->u_minus);
    for (size_t r = 0; r < m; r++) {
        memset(w, 0, n * sizeof(double));
        const cmp_column *k = &e->col[r];
        if (k->w)
            memcpy(w, k->w, n * sizeof(double));
        for (int d = 0; d < e->dim && !k->w; d++) {
            if (k->dof_a >= 0)
                w[k->dof_a + d] = k->sign_a * k->n[d];
            if (k->dof_b >= 0)
                w[k->dof_b + d] = k->n[d];
        }
        cr_impact_set_gradient(e->imp, r, w);
    }
    free(w);
    if (cr_impact_check(e->imp, NULL) != CR_OK) {
        snprintf(e->note, sizeof e->note, "impact configuration refused: %s",
                 cr_impact_last_error(e->imp));
        cr_impact_destroy(e->imp);
        e->imp = NULL;
        return CR_OK;
    }
    cr_law_params p;
    cr_law_params_init(&p);
    if (cr_law_solve(e->imp, CR_LAW_MAX_DISSIPATION, &p, c->res) == CR_OK &&
        cr_law_result_status(c->res) == CR_LAW_OK && (e->v_md = malloc(n * sizeof(double)))) {
        memcpy(e->v_md, cr_law_result_velocity(c->res, 0), n * sizeof(double));
        e->info.kappa_min = cr_cmp_energy(e, e->v_md) / e->T_minus;
    }
    return CR_OK;
}

/* ‖v⊥‖_M = ‖u⁻ − prox_T(u⁻)‖_M; ‖u⁻‖_M when maximal dissipation had no answer. */
static void take_norm(cmp_episode *e)
{
    double s = 0.0;
    for (size_t i = 0; i < e->info.dofs; i++) {
        double d = e->u_minus[i] - (e->v_md ? e->v_md[i] : 0.0);
        s += e->mass[i] * d * d;
    }
    e->info.v_perp = sqrt(s);
}

static int check_episode(cr_compare *c, const cr_episode_data *ep)
{
    if (!ep || ep->dim < 1 || ep->dim > 3 || !ep->bodies || !ep->mass || !ep->velocity_before ||
        !ep->velocity_after ||
        (ep->info.contact_count && (!ep->records || !ep->normals || !ep->vector_impulses)))
        return fail(c, CR_ERR_INVALID, "an episode without its arrays");
    if (ep->dofs && (!ep->dof_mass || !ep->dof_before || !ep->dof_after || !ep->columns))
        return fail(c, CR_ERR_INVALID, "an episode without its body-level configuration");
    for (size_t i = 0; i < ep->dofs; i++)
        if (!(ep->dof_mass[i] > 0.0) || isinf(ep->dof_mass[i]))
            return fail(c, CR_ERR_INVALID, "a dof of the episode has no positive finite mass");
    if (ep->info.contact_count == 0 || ep->info.reference_record >= ep->info.contact_count)
        return fail(c, CR_ERR_INVALID, "an episode without contact records or reference");
    for (size_t q = 0; q < ep->info.body_count; q++)
        if (!(ep->mass[q] > 0.0))
            return fail(c, CR_ERR_INVALID, "a body of the episode has no positive mass");
    return CR_OK;
}

/* ---- rows ------------------------------------------------------------------------ */

static int push_row(cr_compare *c, const cr_compare_row *row, const cmp_episode *e, const double *u,
                    const double *P, const double *par)
{
    if (c->nrows == c->rowcap) {
        size_t cap = c->rowcap ? 2 * c->rowcap : 64;
        cr_compare_row *rows = realloc(c->rows, cap * sizeof(*rows));
        if (rows)
            c->rows = rows;
        double **a = rows ? realloc(c->row_u, cap * sizeof(double *)) : NULL;
        if (a)
            c->row_u = a;
        double **b = a ? realloc(c->row_P, cap * sizeof(double *)) : NULL;
        if (b)
            c->row_P = b;
        double **d = b ? realloc(c->row_par, cap * sizeof(double *)) : NULL;
        if (!d)
            return CR_ERR_NOMEM;
        c->row_par = d;
        c->rowcap = cap;
    }
    size_t i = c->nrows, n = e->info.dofs, m = e->info.contacts;
    c->rows[i] = *row;
    c->row_u[i] = u ? malloc(n * sizeof(double)) : NULL;
    c->row_P[i] = P ? malloc(m * sizeof(double)) : NULL;
    c->row_par[i] = par ? malloc(m * sizeof(double)) : NULL;
    if ((u && !c->row_u[i]) || (P && !c->row_P[i]) || (par && !c->row_par[i])) {
        free(c->row_u[i]);
        free(c->row_P[i]);
        free(c->row_par[i]);
        return CR_ERR_NOMEM;
    }
    if (u)
        memcpy(c->row_u[i], u, n * sizeof(double));
    if (P)
        memcpy(c->row_P[i], P, m * sizeof(double));
    if (par)
        memcpy(c->row_par[i], par, m * sizeof(double));
    c->nrows++;
    return CR_OK;
}

/* The LZB law takes the same parameters in both modes (the pair laws): its
 * predictive row is the calibrated one, not a second integration. */
static int copy_lzb_row(cr_compare *c, const cmp_episode *e)
{
    size_t i = c->nrows - 1;
    cr_compare_row row = c->rows[i];
    row.mode = CR_COMPARE_PREDICTIVE;
    return push_row(c, &row, e, c->row_u[i], c->row_P[i], c->row_par[i]);
}

/* One law in one mode: parameters, then the law, then the row. */
static int one_row(cr_compare *c, cmp_episode *e, cr_law_id law, cr_compare_mode mode, double *buf)
{
    size_t n = e->info.dofs, m = e->info.contacts;
    if (law == CR_LAW_LZB && mode == CR_COMPARE_PREDICTIVE && c->nrows > e->info.first_row &&
        c->rows[c->nrows - 1].law == CR_LAW_LZB)
        return copy_lzb_row(c, e);
    double *par = buf, *u = buf + m, *P = buf + m + n;
    cr_compare_row row;
    memset(&row, 0, sizeof row);
    row.episode = e->info.index;
    row.law = law;
    row.mode = mode;
    row.law_status = -1;
    row.parameter = row.error = row.energy_error = row.impulse_error = row.energy_ratio = NAN;
    row.gamma_ok = row.impulse_ok = row.energy_ok = -1;
    if (e->info.field_corrected)
        row.flags |= CR_COMPARE_FLAG_FIELD_CORRECTED;
    int has_par = 0, answered = 0;
    cr_law_params p;
    if (!e->imp) {
        row.status = CR_COMPARE_TOO_LARGE;
        snprintf(row.message, sizeof row.message, "%s", e->note);
        if (e->info.dofs <= CR_LAW_MAX_DOFS && e->info.contacts <= CR_LAW_MAX_CONTACTS)
            row.status = CR_COMPARE_FAILED; /* a configuration the law core refused */
    } else if (cr_cmp_params(c, e, law, mode, &p, par, &has_par, &row)) {
        cr_cmp_evaluate(c, e, law, &p, &row, u, P, &answered);
    }
    return push_row(c, &row, e, answered ? u : NULL, answered ? P : NULL, has_par ? par : NULL);
}

int cr_compare_add(cr_compare *c, size_t index, const cr_episode_data *ep,
                   const cr_contact_params *laws, int fields)
{
    CR_CHECK(c, NULL, CR_ERR_INVALID);
    int rc = check_episode(c, ep);
    if (rc != CR_OK)
        return rc;
    if (grow((void **)&c->ep, &c->epcap, c->nep + 1, sizeof(cmp_episode)) != CR_OK)
        return fail(c, CR_ERR_NOMEM, "out of memory");
    cmp_episode *e = &c->ep[c->nep];
    memset(e, 0, sizeof(*e));
    e->info.index = index;
    e->info.reference = ep->info.reference_record;
    e->info.t_start = ep->info.t_start;
    rc = take_configuration(e, ep);
    size_t m = ep->info.contact_count;
    if (rc == CR_OK && laws)
        rc = take_laws(e, laws, m);
    if (rc == CR_OK) {
        take_reference(e, ep, fields);
        take_records(e, ep);
        e->T_minus = cr_cmp_energy(e, e->u_minus);
        e->T_ref = cr_cmp_energy(e, e->u_ref);
        e->info.kappa = e->T_ref / e->T_minus;
        rc = take_impact(c, e);
    }
    if (rc != CR_OK) {
        free_episode(e);
        return fail(c, rc, "out of memory");
    }
    take_norm(e);
    c->nep++;
    e->info.first_row = c->nrows;
    size_t n = e->info.dofs;
    double *buf = malloc((2 * m + n + 1) * sizeof(double));
    if (!buf)
        return fail(c, CR_ERR_NOMEM, "out of memory");
    for (int law = 0; law < CR_LAW_COUNT && rc == CR_OK; law++)
        for (int mode = 0; mode < CR_COMPARE_MODE_COUNT && rc == CR_OK; mode++)
            rc = one_row(c, e, (cr_law_id)law, (cr_compare_mode)mode, buf);
    free(buf);
    e->info.row_count = c->nrows - e->info.first_row;
    return rc == CR_OK ? CR_OK : fail(c, rc, "out of memory");
}

int cr_compare_add_monitor(cr_compare *c, const cr_monitor *mon, size_t k, const cr_model *model)
{
    CR_CHECK(c && mon && model, c ? c->err : NULL, CR_ERR_INVALID);
    cr_episode_data ep;
    if (cr_monitor_episode_data(mon, k, &ep) != CR_OK)
        return fail(c, CR_ERR_INVALID, "no such finished episode");
    size_t m = ep.info.contact_count;
    cr_contact_params *laws = malloc((m ? m : 1) * sizeof(*laws));
    if (!laws)
        return fail(c, CR_ERR_NOMEM, "out of memory");
    int known = 1;
    for (size_t r = 0; r < m && known; r++)
        known =
            cr_model_pair_law(model, ep.records[r].body_a, ep.records[r].body_b, &laws[r]) == CR_OK;
    int rc = cr_compare_add(c, k, &ep, known ? laws : NULL, cr_model_has_fields(model));
    free(laws);
    return rc;
}

/* ---- queries ------------------------------------------------------------------- */

size_t cr_compare_episode_count(const cr_compare *c)
{
    return c ? c->nep : 0;
}

int cr_compare_get_episode(const cr_compare *c, size_t k, cr_compare_episode *out)
{
    if (!c || k >= c->nep || !out)
        return CR_ERR_INVALID;
    *out = c->ep[k].info;
    return CR_OK;
}

const double *cr_compare_reference_velocity(const cr_compare *c, size_t k)
{
    return c && k < c->nep ? c->ep[k].u_ref : NULL;
}

const double *cr_compare_field_impulse(const cr_compare *c, size_t k)
{
    return c && k < c->nep ? c->ep[k].field : NULL;
}

const double *cr_compare_measured_impulse(const cr_compare *c, size_t k)
{
    return c && k < c->nep ? c->ep[k].P : NULL;
}

cr_impact *cr_compare_impact(const cr_compare *c, size_t k)
{
    return c && k < c->nep ? c->ep[k].imp : NULL;
}

size_t cr_compare_row_count(const cr_compare *c)
{
    return c ? c->nrows : 0;
}

const cr_compare_row *cr_compare_get_row(const cr_compare *c, size_t i)
{
    return c && i < c->nrows ? &c->rows[i] : NULL;
}

const double *cr_compare_row_velocity(const cr_compare *c, size_t i)
{
    return c && i < c->nrows ? c->row_u[i] : NULL;
}

const double *cr_compare_row_impulse(const cr_compare *c, size_t i)
{
    return c && i < c->nrows ? c->row_P[i] : NULL;
}

const double *cr_compare_row_parameters(const cr_compare *c, size_t i)
{
    return c && i < c->nrows ? c->row_par[i] : NULL;
}

int cr_compare_summarize(const cr_compare *c, cr_law_id law, cr_compare_mode mode,
                         cr_compare_summary *s)
{
    if (!c || !s || (unsigned)law >= CR_LAW_COUNT || (unsigned)mode >= CR_COMPARE_MODE_COUNT)
        return CR_ERR_INVALID;
    memset(s, 0, sizeof(*s));
    double sum = 0.0, sum_e = 0.0, worst = 0.0;
    for (size_t i = 0; i < c->nrows; i++) {
        const cr_compare_row *r = &c->rows[i];
        if (r->law != law || r->mode != mode)
            continue;
        s->episodes++;
        s->status[r->status]++;
        if (isfinite(r->error)) {
            s->answered++;
            sum += r->error;
            sum_e += fabs(r->energy_error);
            worst = fmax(worst, r->error);
        }
    }
    s->mean_error = s->answered ? sum / (double)s->answered : NAN;
    s->mean_energy_error = s->answered ? sum_e / (double)s->answered : NAN;
    s->max_error = s->answered ? worst : NAN;
    return CR_OK;
}

void cr_compare_cache_stats(const cr_compare *c, size_t *runs, size_t *hits)
{
    cr_restitution_cache_stats(c ? c->cache : NULL, runs, hits);
}

cr_restitution_cache *cr_compare_restitution_cache(cr_compare *c)
{
    return c ? c->cache : NULL;
}
