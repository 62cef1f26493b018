/*
 * The pool's linear solvers for CVODES' Newton iterations: KLU on the sparse
 * Jacobian of the warm contacts (its pattern laid down once per list), or
 * matrix-free GMRES preconditioned by each disc's sd×sd diagonal block; or
 * fixed-point iteration, which needs none. A new candidate list restarts the
 * integrator on the new pattern.
 */
#include "engines/compliant/pool-priv.h"

#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <sunmatrix/sunmatrix_sparse.h>

/*
 * ∂F/∂b (Gb) and ∂F/∂w (Gw) of contact k, with F the force on j (pairs: F = f n,
 * b and w the relative displacement and velocity of j with respect to i) or on
 * the disc (walls: F = f m, b and w its own). dim×dim row-major.
 *   pairs: Gb = −f_δ n nᵀ − f_δ̇ n wᵀ(I − nnᵀ)/|a| + f (I − nnᵀ)/|a|, Gw = −f_δ̇ n nᵀ
 *   walls: Gb = −f_δ m mᵀ, Gw = −f_δ̇ m mᵀ
 * @return 0 when the contact exerts nothing (both zero).
 */
static int contact_blocks(const cr_pool *p, const double *y, const cr_pool_contact *k, double *Gb,
                          double *Gw)
{
    double delta, rate, nv[3] = {0}, dist, fd, fv;
    cr_pl_geom(p, y, k, &delta, &rate, nv, &dist);
    double f = cr_contact_force(cr_pl_law(p, k), delta, rate);
    cr_contact_partials(cr_pl_law(p, k), delta, rate, p->jac_floor * p->L, &fd, &fv);
    if (f == 0.0 && fd == 0.0 && fv == 0.0)
        return 0;
    int dim = p->dim, dd = dim * dim;
    double nn[9] = {0};
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++)
            nn[dim * a + b] = nv[a] * nv[b];
    if (cr_pl_is_wall(k)) {
        for (int q = 0; q < dd; q++) {
            Gb[q] = -fd * nn[q];
            Gw[q] = -fv * nn[q];
        }
        return 1;
    }
    double w[3] = {0}, P[9] = {0}, wP[3] = {0};
    cr_pl_rel_vel(p, y, (size_t)k->i, (size_t)k->j, w);
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++)
            P[dim * a + b] = a == b ? 1 - nn[dim * a + b] : -nn[dim * a + b];
    for (int b = 0; b < dim; b++) { /* wᵀ P, summed in component order */
        wP[b] = w[0] * P[b];
        for (int a = 1; a < dim; a++)
            wP[b] += w[a] * P[dim * a + b];
    }
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) {
            Gb[dim * a + b] =
                -fd * nn[dim * a + b] - fv * nv[a] * wP[b] / dist + f * P[dim * a + b] / dist;
            Gw[dim * a + b] = -fv * nn[dim * a + b];
        }
    return 1;
}

/* Inverse of an s×s matrix (s ≤ 6) by Gauss–Jordan with partial pivoting; 0 if
 * singular. */
static int invert_block(const double *A, double *inv, int s)
{
    double M[6][12];
    for (int r = 0; r < s; r++)
        for (int c = 0; c < 2 * s; c++)
            M[r][c] = c < s ? A[s * r + c] : (c - s == r);
    for (int c = 0; c < s; c++) {
        int piv = c;
        for (int r = c + 1; r < s; r++)
            if (fabs(M[r][c]) > fabs(M[piv][c]))
                piv = r;
        if (M[piv][c] == 0.0)
            return 0;
        for (int q = 0; q < 2 * s; q++) {
            double t = M[c][q];
            M[c][q] = M[piv][q];
            M[piv][q] = t;
        }
        double d = M[c][c];
        for (int q = 0; q < 2 * s; q++)
            M[c][q] /= d;
        for (int r = 0; r < s; r++)
            if (r != c) {
                double f = M[r][c];
                for (int q = 0; q < 2 * s; q++)
                    M[r][q] -= f * M[c][q];
            }
    }
    for (int r = 0; r < s; r++)
        for (int c = 0; c < s; c++)
            inv[s * r + c] = M[r][c + s];
    return 1;
}

/* Adds contact k's partials to the diagonal blocks of its discs. */
static void pblock_add(const cr_pool *p, const cr_pool_contact *k, const double *Gb,
                       const double *Gw)
{
    size_t ends[2] = {(size_t)k->i, cr_pl_is_wall(k) ? (size_t)-1 : (size_t)k->j};
    for (int e = 0; e < 2; e++) {
        size_t d = ends[e];
        if (d == (size_t)-1)
            continue;
        size_t sd = p->sd, dim = (size_t)p->dim;
        double *b = p->pblock + sd * sd * cr_pl_cpos(p, d);
        for (size_t a = 0; a < dim; a++)
            for (size_t c = 0; c < dim; c++) {
                b[(dim + a) * sd + c] += p->accel[d] * p->L * Gb[dim * a + c];
                b[(dim + a) * sd + dim + c] += p->accel[d] * p->V * Gw[dim * a + c];
            }
    }
}

/* GMRES preconditioner: per integrated disc, the sd×sd diagonal block of I − γJ
 * (its own displacement and velocity coupling through every contact it has),
 * inverted. */
static int psetup(sunrealtype t, N_Vector yv, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                  sunrealtype gamma, void *user)
{
    (void)fy, (void)jok;
    cr_pool *p = user;
    const double *y = cr_pl_full_state(p, t, yv);
    double *B = p->pblock;
    size_t sd = p->sd, dim = (size_t)p->dim, bs = sd * sd;
    /* start from J's own part: ḋ = v */
    for (size_t a = 0; a < p->na; a++) {
        double *b = B + bs * a;
        memset(b, 0, bs * sizeof(double));
        for (size_t d = 0; d < dim; d++)
            b[d * sd + dim + d] = 1.0;
    }
    /* in a region the contacts between active discs (cr_pl_rhs) */
    size_t nk = p->region ? p->nq : p->nslots;
    for (size_t s = 0; s < nk; s++) {
        long id = p->region ? p->qc[s] : p->slot_contact[s];
        if (id < 0)
            continue;
        double Gb[9] = {0}, Gw[9] = {0};
        if (contact_blocks(p, y, &p->c[id], Gb, Gw))
            pblock_add(p, &p->c[id], Gb, Gw);
    }
    for (size_t a = 0; a < p->na; a++) {
        double *b = B + bs * a, M[36];
        for (size_t q = 0; q < bs; q++)
            M[q] = (q % (sd + 1) == 0 ? 1.0 : 0.0) - gamma * b[q];
        if (!invert_block(M, b, (int)sd))
            return 1; /* recoverable: CVODE retries with a smaller step */
    }
    *jcur = SUNTRUE;
    return 0;
}

static int psolve(sunrealtype t, N_Vector yv, N_Vector fy, N_Vector rv, N_Vector zv,
                  sunrealtype gamma, sunrealtype delta, int lr, void *user)
{
    (void)t, (void)yv, (void)fy, (void)gamma, (void)delta, (void)lr;
    const cr_pool *p = user;
    if (p->stop_requested)
        return -1; /* abandon the step (stoppable_rhs) */
    const double *r = N_VGetArrayPointer(rv);
    double *z = N_VGetArrayPointer(zv);
    size_t sd = p->sd;
    for (size_t i = 0; i < p->na; i++) {
        const double *b = p->pblock + sd * sd * i, *ri = r + sd * i;
        for (size_t a = 0; a < sd; a++) {
            double s = b[sd * a] * ri[0]; /* summed in order, as the 4×4 product was */
            for (size_t c = 1; c < sd; c++)
                s += b[sd * a + c] * ri[c];
            z[sd * i + a] = s;
        }
    }
    return 0;
}

/* Position of entry (row, col) in the CSC pattern (binary search in the column). */
static sunindextype slot_of(SUNMatrix J, sunindextype row, sunindextype col)
{
    sunindextype *ptr = SM_INDEXPTRS_S(J), *idx = SM_INDEXVALS_S(J);
    sunindextype lo = ptr[col], hi = ptr[col + 1] - 1;
    while (lo <= hi) {
        sunindextype mid = (lo + hi) / 2;
        if (idx[mid] == row)
            return mid;
        if (idx[mid] < row)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void add(SUNMatrix J, size_t row, size_t col, double v)
{
    sunindextype k = slot_of(J, (sunindextype)row, (sunindextype)col);
    if (k >= 0)
        SM_DATA_S(J)[k] += v;
}

/* adds s·G (dim×dim, row-major) to rows of body `rb` (velocity rows) and columns
 * `cb` + off (off 0: displacement columns, dim: velocity columns) */
static void add_block(const cr_pool *p, SUNMatrix J, size_t rb, size_t cb, size_t off, double s,
                      const double *G)
{
    size_t sd = p->sd, dim = (size_t)p->dim;
    rb = cr_pl_cpos(p, rb);
    cb = cr_pl_cpos(p, cb);
    for (size_t a = 0; a < dim; a++)
        for (size_t b = 0; b < dim; b++)
            add(J, sd * rb + dim + a, sd * cb + off + b, s * G[dim * a + b]);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Per disc, its neighbours through contacts with quadrature slots (the warm
 * pairs: warm_up), sorted: start[i] … start[i + 1] in list. Other contacts
 * exert nothing and have zero partials (both discs' states are exactly their
 * initial ones, open or just touching), so they need no Jacobian entries. */
static int warm_neighbours(const cr_pool *p, size_t **start, size_t **list)
{
    size_t n = p->n, *st = calloc(n + 1, sizeof(size_t)), m = 0;
    for (size_t q = 0; st && q < p->nq; q++) {
        const cr_pool_contact *k = &p->c[p->qc[q]];
        if (!cr_pl_is_wall(k)) {
            st[k->i + 1]++;
            st[k->j + 1]++;
            m += 2;
        }
    }
    size_t *ls = st ? malloc((m ? m : 1) * sizeof(size_t)) : NULL,
           *at = ls ? malloc((n + 1) * sizeof(size_t)) : NULL;
    if (!at) {
        free(st);
        free(ls);
        return CR_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        st[i + 1] += st[i];
    memcpy(at, st, (n + 1) * sizeof(size_t));
    for (size_t q = 0; q < p->nq; q++) {
        const cr_pool_contact *k = &p->c[p->qc[q]];
        if (!cr_pl_is_wall(k)) {
            ls[at[k->i]++] = (size_t)k->j;
            ls[at[k->j]++] = (size_t)k->i;
        }
    }
    free(at);
    for (size_t i = 0; i < n; i++)
        if (st[i + 1] - st[i] > 1)
            qsort(ls + st[i], st[i + 1] - st[i], sizeof(size_t), cmp_size);
    *start = st;
    *list = ls;
    return CR_OK;
}

/* The sd columns of the integrated disc at place a (disc i, whose warm
 * neighbours are nb[st[i] … st[i + 1])) from row index @p at: its own rows
 * sd a … sd a + sd − 1 merged in order with the neighbours' velocity rows
 * sd b + dim … sd b + sd − 1. @return the next free row index. */
static sunindextype pattern_columns(const cr_pool *p, size_t a, size_t i, const size_t *st,
                                    const size_t *nb, sunindextype at)
{
    sunindextype *pp = p->pat_ptr, *pi = p->pat_idx;
    size_t sd = p->sd, dim = (size_t)p->dim;
    for (size_t col = 0; col < sd; col++) {
        pp[sd * a + col] = at;
        int own = 0;
        for (size_t k = st[i]; k <= st[i + 1]; k++) {
            size_t b = k < st[i + 1] ? cr_pl_cpos(p, nb[k]) : (size_t)-1;
            if (!own && (b == (size_t)-1 || b > a)) {
                for (size_t rr = 0; rr < sd; rr++)
                    pi[at++] = (sunindextype)(sd * a + rr);
                own = 1;
            }
            if (b != (size_t)-1)
                for (size_t d = 0; d < dim; d++)
                    pi[at++] = (sunindextype)(sd * b + dim + d);
        }
    }
    return at;
}

/* The CSC pattern into p->pat_ptr, p->pat_idx: the column block of disc i
 * holds its own sd rows and the velocity rows of its warm neighbours, in
 * increasing row order. */
static int lay_pattern(cr_pool *p)
{
    size_t n = p->n, na = p->na, *st, *nb;
    if (warm_neighbours(p, &st, &nb) != CR_OK)
        return CR_ERR_NOMEM;
    size_t sd = p->sd, nnz = sd * sd * na + sd * (size_t)p->dim * st[n];
    sunindextype *pp = realloc(p->pat_ptr, (sd * na + 1) * sizeof(sunindextype));
    if (pp)
        p->pat_ptr = pp;
    sunindextype *pi = pp ? realloc(p->pat_idx, nnz * sizeof(sunindextype)) : NULL;
    if (!pi) {
        free(st);
        free(nb);
        return CR_ERR_NOMEM;
    }
    p->pat_idx = pi;
    sunindextype at = 0;
    /* in a region warm contacts join active discs, whose places keep the disc
     * order: the neighbours' rows stay sorted */
    for (size_t a = 0; a < na; a++)
        at = pattern_columns(p, a, p->region ? p->act[a] : a, st, nb, at);
    pp[sd * na] = at;
    p->pat_nnz = (size_t)at;
    p->pattern_stale = 0;
    free(st);
    free(nb);
    return CR_OK;
}

/* The warm pattern laid into J before every evaluation: SUNMatZero_Sparse
 * (which CVODE calls first) wipes the index arrays too. Contacts that became
 * warm since the last pattern need a larger one, which KLU analyses again at
 * the setup that follows. */
static int jac_pattern(cr_pool *p, SUNMatrix J)
{
    if (p->pattern_stale) {
        if (lay_pattern(p) != CR_OK)
            return -1;
        if ((size_t)SM_NNZ_S(J) < p->pat_nnz &&
            SUNSparseMatrix_Reallocate(J, (sunindextype)p->pat_nnz) != SUNMAT_SUCCESS)
            return -1;
        if (p->LS && SUNLinSol_KLUReInit(p->LS, J, (sunindextype)p->pat_nnz,
                                         SUNKLU_REINIT_PARTIAL) != SUNLS_SUCCESS)
            return -1;
    }
    memcpy(SM_INDEXPTRS_S(J), p->pat_ptr, (p->sd * p->na + 1) * sizeof(sunindextype));
    memcpy(SM_INDEXVALS_S(J), p->pat_idx, p->pat_nnz * sizeof(sunindextype));
    memset(SM_DATA_S(J), 0, p->pat_nnz * sizeof(double));
    return 0;
}

/* Contact k's blocks Gb, Gw (contact_blocks) into the velocity rows of its
 * discs: +G for the disc's own columns, −G for the other's. */
static void jac_contact(const cr_pool *p, SUNMatrix J, const cr_pool_contact *k, const double *Gb,
                        const double *Gw)
{
    size_t i = (size_t)k->i, v = (size_t)p->dim; /* v: the velocity columns */
    if (cr_pl_is_wall(k)) {
        add_block(p, J, i, i, 0, p->accel[i] * p->L, Gb);
        add_block(p, J, i, i, v, p->accel[i] * p->V, Gw);
        return;
    }
    size_t j = (size_t)k->j;
    double aj = p->accel[j], ai = p->accel[i];
    add_block(p, J, j, j, 0, aj * p->L, Gb);
    add_block(p, J, j, i, 0, -aj * p->L, Gb);
    add_block(p, J, j, j, v, aj * p->V, Gw);
    add_block(p, J, j, i, v, -aj * p->V, Gw);
    add_block(p, J, i, j, 0, -ai * p->L, Gb);
    add_block(p, J, i, i, 0, ai * p->L, Gb);
    add_block(p, J, i, j, v, -ai * p->V, Gw);
    add_block(p, J, i, i, v, ai * p->V, Gw);
}

int cr_pl_jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
              N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    cr_pool *p = user;
    const double *y = cr_pl_full_state(p, t, yv);
    if (jac_pattern(p, J))
        return -1;
    size_t sd = p->sd, dim = (size_t)p->dim;
    for (size_t a = 0; a < p->na; a++)
        for (size_t d = 0; d < dim; d++)
            add(J, sd * a + d, sd * a + dim + d, 1.0);
    for (size_t q = 0; q < p->nq; q++) { /* the warm contacts: the others exert nothing */
        const cr_pool_contact *k = &p->c[p->qc[q]];
        double Gb[9] = {0}, Gw[9] = {0};
        if (contact_blocks(p, y, k, Gb, Gw))
            jac_contact(p, J, k, Gb, Gw);
    }
    return 0;
}

static int use_gmres(const cr_pool *p)
{
    return p->solver == CR_SOLVER_GMRES ||
           (p->solver == CR_SOLVER_AUTO && p->n > CR_SOLVER_AUTO_GMRES_ABOVE);
}

/* A sparse matrix on the warm pattern (lay_pattern); the pattern is kept:
 * SUNMatZero_Sparse wipes the index arrays before every evaluation. */
static SUNMatrix klu_pattern(cr_pool *p)
{
    if (lay_pattern(p) != CR_OK)
        return NULL;
    sunindextype ny = (sunindextype)(p->sd * p->na);
    SUNMatrix A = SUNSparseMatrix(ny, ny, (sunindextype)p->pat_nnz, CSC_MAT, p->ctx);
    if (!A)
        return NULL;
    memcpy(SM_INDEXPTRS_S(A), p->pat_ptr, (size_t)(ny + 1) * sizeof(sunindextype));
    memcpy(SM_INDEXVALS_S(A), p->pat_idx, p->pat_nnz * sizeof(sunindextype));
    return A;
}

/* A CVODES instance at the scaled time @p tau0 on p->ya and p->yQ, stopping at
 * p->tau_stop when it is set; fixed-point iteration goes with Adams. @p what
 * names the step in the error message. */
/* The right-hand side CVODE calls: a stop request abandons the step it is in
 * (an unrecoverable return; the run stops on the last completed step,
 * advance in pool-run.c), since one step of a 10⁵-disc pool's Krylov solver
 * took seconds. */
static int stoppable_rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    const cr_pool *p = user;
    return p->stop_requested ? -1 : cr_pl_rhs(t, yv, ydv, user);
}

int cr_pl_new_cvode(cr_pool *p, double tau0, const char *what)
{
    p->cvode =
        CVodeCreate(p->method == CR_METHOD_ADAMS || p->fixed_point ? CV_ADAMS : CV_BDF, p->ctx);
    if (!p->cvode)
        return CR_ERR_NOMEM;
    int flag = cr_cvode_init_at(p->cvode, stoppable_rhs, tau0, p->ya, cr_pl_quad_rhs, p->yQ, p,
                                p->rtol, p->atol, p->err);
    if (flag == CV_SUCCESS && isfinite(p->tau_stop))
        flag = CVodeSetStopTime(p->cvode, p->tau_stop);
    return flag == CV_SUCCESS ? CR_OK : cr_cvode_fail(p->err, what, p->t, flag);
}

void cr_pl_free_solver(cr_pool *p)
{
    if (p->LS)
        SUNLinSolFree(p->LS);
    if (p->NLS)
        SUNNonlinSolFree(p->NLS);
    if (p->A)
        SUNMatDestroy(p->A);
    p->LS = NULL;
    p->NLS = NULL;
    p->A = NULL;
}

/* KLU on a new warm pattern; the solver and matrix it replaces are freed once
 * CVODE holds the new ones. */
static int attach_klu(cr_pool *p)
{
    SUNMatrix A = klu_pattern(p);
    SUNLinearSolver LS = A ? SUNLinSol_KLU(p->ya, A, p->ctx) : NULL;
    if (!LS) {
        if (A)
            SUNMatDestroy(A);
        return CV_MEM_FAIL;
    }
    int flag = CVodeSetLinearSolver(p->cvode, LS, A);
    if (flag == CV_SUCCESS)
        flag = CVodeSetJacFn(p->cvode, cr_pl_jac);
    cr_pl_free_solver(p);
    p->A = A;
    p->LS = LS;
    return flag;
}

/* The run's solver for CVODE's iterations on the current list: fixed-point
 * iteration, GMRES with the block preconditioner (psetup), or KLU.
 * @return a CVODE flag (CV_MEM_FAIL: out of memory). */
int cr_pl_attach_solver(cr_pool *p)
{
    if (p->fixed_point) {
        p->NLS = SUNNonlinSol_FixedPoint(p->ya, 0, p->ctx);
        return p->NLS ? CVodeSetNonlinearSolver(p->cvode, p->NLS) : CV_MEM_FAIL;
    }
    if (!use_gmres(p))
        return attach_klu(p);
    if (!p->pblock && !(p->pblock = malloc(p->sd * p->sd * p->n * sizeof(double))))
        return CV_MEM_FAIL;
    p->LS = SUNLinSol_SPGMR(p->ya, SUN_PREC_LEFT, 30, p->ctx);
    int flag = p->LS ? CVodeSetLinearSolver(p->cvode, p->LS, NULL) : CV_MEM_FAIL;
    if (flag == CV_SUCCESS)
        flag = CVodeSetPreconditioner(p->cvode, psetup, psolve);
    return flag;
}

/* A new candidate list (outside a region): during a run a restart, counted as
 * a rebuild. KLU then needs the list's pattern; GMRES (its preconditioner is
 * rebuilt from the list at every setup) and fixed-point iteration keep theirs. */
int cr_pl_use_new_list(cr_pool *p)
{
    int flag = CV_SUCCESS;
    if (p->ran) {
        flag = cr_cvode_restart(p->cvode, p->t / p->T, p->ya, p->yQ, &p->banked);
        p->rebuilds++;
    }
    if (flag == CV_SUCCESS && (!p->ran || (!p->fixed_point && !use_gmres(p))))
        flag = cr_pl_attach_solver(p);
    if (flag == CV_MEM_FAIL)
        return CR_ERR_NOMEM;
    if (flag != CV_SUCCESS) {
        cr_set_msg(p->err, sizeof p->err, "neighbour rebuild: CVODE flag %d", flag);
        return CR_ERR_SOLVER;
    }
    return CR_OK;
}

/* A restart of the multistep history at the scaled time @p tau (a force jump,
 * a new quadrature layout), counted. */
int cr_pl_restart(cr_pool *p, double tau, const char *what)
{
    int flag = cr_cvode_restart(p->cvode, tau, p->ya, p->yQ, &p->banked);
    if (flag != CV_SUCCESS)
        return cr_cvode_fail(p->err, what, p->t, flag);
    p->stats.restarts++;
    return CR_OK;
}
