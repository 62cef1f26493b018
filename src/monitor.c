/*
 * Impact-episode monitor for 1-D chains. All per-contact bookkeeping lives in
 * arrays over the whole chain while an episode is active; an episode's results
 * are extracted into compact arrays when it ends.
 */
#include "cradle/monitor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

enum { PHASE_NONE = 0, PHASE_COMP, PHASE_EXP };

typedef struct {
    cr_episode_info info;
    /* while active: start state of the whole chain */
    double *u0, *q0; /* velocities (nb), impulses (nc) at the start */
    double W0, U0;
    int *phase;      /* per contact */
    double *qs, *comp, *exp_, *peak_d, *peak_f;
    int *closings, *openings;
    /* results */
    double *u_before, *u_after, *mass;
    cr_contact_record *rec;
    size_t *ev;
    size_t nev, evcap;
    int active;
    /* end rule met with links present: the state then, kept for the settling time */
    int pending;
    double pend_t, pend_W, pend_U;
    double *pend_v, *pend_Q;
} episode;

struct cr_monitor {
    cr_sim *sim;
    size_t nb, nc;
    double settle;
    int *fixed, *linked, *contact_on;
    double *mass, *v, *delta, *rate, *force, *Q;
    episode **ep;
    size_t nep, epcap;
};

static void read_state(cr_monitor *m)
{
    cr_sim_get_velocities(m->sim, m->v);
    cr_sim_get_overlaps(m->sim, m->delta);
    cr_sim_get_overlap_rates(m->sim, m->rate);
    cr_sim_get_forces(m->sim, m->force);
    cr_sim_get_impulses(m->sim, m->Q);
}

/* The working arrays over the whole chain, needed only while the episode runs. */
static void free_work(episode *e)
{
    free(e->u0);
    free(e->q0);
    free(e->phase);
    free(e->qs);
    free(e->comp);
    free(e->exp_);
    free(e->peak_d);
    free(e->peak_f);
    free(e->closings);
    free(e->openings);
    e->u0 = e->q0 = e->qs = e->comp = e->exp_ = e->peak_d = e->peak_f = NULL;
    e->phase = e->closings = e->openings = NULL;
}

static void free_episode(episode *e)
{
    if (!e)
        return;
    free_work(e);
    free(e->u_before);
    free(e->u_after);
    free(e->mass);
    free(e->rec);
    free(e->ev);
    free(e->pend_v);
    free(e->pend_Q);
    free(e);
}

/* Pairs that belong to an impact configuration from the start: touching
 * (δ = 0 exactly for bodies at rest, snapped by the model), loaded, or linked. */
static int touching(const cr_monitor *m, size_t c)
{
    return m->linked[c] || (m->contact_on[c] && m->delta[c] >= 0.0);
}

/* A contact takes part in the impact configuration: touching (δ = 0 exactly for
 * balls at rest, snapped by the model) or loaded. */
static episode *start_episode(cr_monitor *m, size_t c, double t)
{
    if (m->nep == m->epcap) {
        size_t cap = m->epcap ? 2 * m->epcap : 16;
        episode **p = realloc(m->ep, cap * sizeof(*p));
        if (!p)
            return NULL;
        m->ep = p;
        m->epcap = cap;
    }
    episode *e = calloc(1, sizeof(*e));
    size_t nb = m->nb, nc = m->nc;
    if (!e)
        return NULL;
    e->u0 = malloc(nb * sizeof(double));
    e->q0 = malloc(nc * sizeof(double));
    e->phase = calloc(nc, sizeof(int));
    e->qs = calloc(nc, sizeof(double));
    e->comp = calloc(nc, sizeof(double));
    e->exp_ = calloc(nc, sizeof(double));
    e->peak_d = calloc(nc, sizeof(double));
    e->peak_f = calloc(nc, sizeof(double));
    e->closings = calloc(nc, sizeof(int));
    e->openings = calloc(nc, sizeof(int));
    if (!e->u0 || !e->q0 || !e->phase || !e->qs || !e->comp || !e->exp_ || !e->peak_d ||
        !e->peak_f || !e->closings || !e->openings) {
        free_episode(e);
        return NULL;
    }
    memcpy(e->u0, m->v, nb * sizeof(double));
    memcpy(e->q0, m->Q, nc * sizeof(double));
    e->W0 = cr_sim_dissipated_work(m->sim);
    e->U0 = cr_sim_potential_energy(m->sim);
    size_t lo = c, hi = c;
    while (lo > 0 && touching(m, lo - 1))
        lo--;
    while (hi + 1 < nc && touching(m, hi + 1))
        hi++;
    e->info.t_start = t;
    e->info.first_contact = lo;
    e->info.last_contact = hi;
    e->info.reference = c;
    e->active = 1;
    /* touching contacts load without a located closing: their compression
     * phase starts with the episode */
    for (size_t k = lo; k <= hi; k++) {
        e->phase[k] = PHASE_COMP;
        e->qs[k] = m->Q[k];
    }
    m->ep[m->nep++] = e;
    return e;
}

static episode *active_with(const cr_monitor *m, size_t c)
{
    for (size_t k = 0; k < m->nep; k++) {
        episode *e = m->ep[k];
        if (e->active && e->info.first_contact <= c && c <= e->info.last_contact)
            return e;
    }
    return NULL;
}

static int push_event(episode *e, size_t idx)
{
    if (e->nev == e->evcap) {
        size_t cap = e->evcap ? 2 * e->evcap : 32;
        size_t *p = realloc(e->ev, cap * sizeof(*p));
        if (!p)
            return CR_ERR_NOMEM;
        e->ev = p;
        e->evcap = cap;
    }
    e->ev[e->nev++] = idx;
    return CR_OK;
}

/* Folds episode b into a (b started later or is the neighbour); b is dropped. */
static void merge(cr_monitor *m, episode *a, episode *b)
{
    for (size_t c = b->info.first_contact; c <= b->info.last_contact; c++) {
        a->phase[c] = b->phase[c];
        a->qs[c] = b->qs[c];
        a->comp[c] = b->comp[c];
        a->exp_[c] = b->exp_[c];
        a->peak_d[c] = b->peak_d[c];
        a->peak_f[c] = b->peak_f[c];
        a->closings[c] = b->closings[c];
        a->openings[c] = b->openings[c];
        /* the joined contacts' start state is the one of the episode they were in */
        a->q0[c] = b->q0[c];
    }
    for (size_t i = b->info.first_contact; i <= b->info.last_contact + 1; i++)
        a->u0[i] = b->u0[i];
    for (size_t k = 0; k < b->nev; k++)
        push_event(a, b->ev[k]);
    if (b->info.first_contact < a->info.first_contact)
        a->info.first_contact = b->info.first_contact;
    if (b->info.last_contact > a->info.last_contact)
        a->info.last_contact = b->info.last_contact;
    for (size_t k = 0; k < m->nep; k++)
        if (m->ep[k] == b) {
            memmove(&m->ep[k], &m->ep[k + 1], (m->nep - k - 1) * sizeof(*m->ep));
            m->nep--;
            break;
        }
    free_episode(b);
}

/* A closing next to an active group: the group grows (and may meet another). */
static episode *extend(cr_monitor *m, size_t c)
{
    episode *left = c > 0 ? active_with(m, c - 1) : NULL;
    episode *right = c + 1 < m->nc ? active_with(m, c + 1) : NULL;
    episode *e = left ? left : right;
    if (!e)
        return NULL;
    if (c < e->info.first_contact)
        e->info.first_contact = c;
    if (c > e->info.last_contact)
        e->info.last_contact = c;
    /* a contact joining later starts from the chain's current state */
    e->q0[c] = m->Q[c];
    e->u0[c] = e == left ? e->u0[c] : m->v[c];
    e->u0[c + 1] = e == right ? e->u0[c + 1] : m->v[c + 1];
    if (left && right && left != right)
        merge(m, left->info.t_start <= right->info.t_start ? left : right,
              left->info.t_start <= right->info.t_start ? right : left);
    return active_with(m, c);
}

static double nan_div(double a, double b)
{
    return b != 0.0 ? a / b : NAN;
}

/* The state an episode ends on: the current one, or the one kept while pending. */
typedef struct {
    double t, W, U;
    const double *v, *Q;
} end_state;

static int finalize(cr_monitor *m, episode *e, const end_state *st, int complete)
{
    size_t b0 = e->info.first_contact, b1 = e->info.last_contact + 1;
    size_t nbg = b1 - b0 + 1, ncg = b1 - b0;
    double t = st->t;
    const double *V = st->v, *Q = st->Q;
    e->info.first_ball = b0;
    e->info.last_ball = b1;
    e->info.t_end = t;
    e->info.complete = complete;
    e->info.event_count = e->nev;
    e->u_before = malloc(nbg * sizeof(double));
    e->u_after = malloc(nbg * sizeof(double));
    e->mass = malloc(nbg * sizeof(double));
    e->rec = calloc(ncg, sizeof(cr_contact_record));
    if (!e->u_before || !e->u_after || !e->mass || !e->rec)
        return CR_ERR_NOMEM;
    double T0 = 0, T1 = 0;
    for (size_t i = 0; i < nbg; i++) {
        e->u_before[i] = e->u0[b0 + i];
        e->u_after[i] = V[b0 + i];
        if (m->fixed[b0 + i]) {
            e->mass[i] = INFINITY; /* a wall */
            continue;
        }
        e->mass[i] = m->mass[b0 + i];
        T0 += 0.5 * e->mass[i] * e->u_before[i] * e->u_before[i];
        T1 += 0.5 * e->mass[i] * e->u_after[i] * e->u_after[i];
    }
    e->info.T_minus = T0;
    e->info.T_plus = T1;
    e->info.kappa = nan_div(T1, T0);
    /* elastic energy still stored when the group lets go (`force` release ends
     * with δ > 0) is abandoned for good: it counts as lost */
    e->info.dissipated = st->W - e->W0 + st->U - e->U0;
    double Pref = Q[e->info.reference] - e->q0[e->info.reference];
    /* γ⁻ of a touching contact at rest is zero up to the root location's
     * roundoff (~1e-12 of the speeds): below this it counts as zero */
    double vmax = 0.0;
    for (size_t i = 0; i < nbg; i++)
        vmax = fmax(vmax, fmax(fabs(e->u_before[i]), fabs(e->u_after[i])));
    double gamma_zero = 1e-9 * vmax;
    for (size_t k = 0; k < ncg; k++) {
        size_t c = e->info.first_contact + k;
        cr_contact_record *r = &e->rec[k];
        /* a phase still open at the end closes here */
        if (e->phase[c] == PHASE_COMP)
            e->comp[c] += Q[c] - e->qs[c];
        else if (e->phase[c] == PHASE_EXP)
            e->exp_[c] += Q[c] - e->qs[c];
        r->contact = c;
        r->impulse = Q[c] - e->q0[c];
        r->compression = e->comp[c];
        r->expansion = e->exp_[c];
        r->gamma_minus = e->u0[c + 1] - e->u0[c];
        r->gamma_plus = V[c + 1] - V[c];
        r->newton = fabs(r->gamma_minus) > gamma_zero ? -r->gamma_plus / r->gamma_minus : NAN;
        r->poisson = r->compression > 0.0 ? r->expansion / r->compression : NAN;
        r->alpha = nan_div(r->impulse, Pref);
        r->peak_overlap = e->peak_d[c];
        r->peak_force = e->peak_f[c];
        r->closings = e->closings[c];
        r->openings = e->openings[c];
    }
    e->active = 0;
    free_work(e);
    return CR_OK;
}

static void close_phase(episode *e, size_t c, double q)
{
    if (e->phase[c] == PHASE_COMP)
        e->comp[c] += q - e->qs[c];
    else if (e->phase[c] == PHASE_EXP)
        e->exp_[c] += q - e->qs[c];
    e->qs[c] = q;
}

/* End rule (ARCHITECTURE.md): every contact of the group settled. */
static int group_done(const cr_monitor *m, const episode *e)
{
    for (size_t c = e->info.first_contact; c <= e->info.last_contact; c++)
        if (!cr_sim_contact_settled(m->sim, c))
            return 0;
    return 1;
}

static end_state current(const cr_monitor *m)
{
    end_state st = {cr_sim_get_time(m->sim), cr_sim_dissipated_work(m->sim),
                    cr_sim_potential_energy(m->sim), m->v, m->Q};
    return st;
}

static int finalize_pending(cr_monitor *m, episode *e)
{
    end_state st = {e->pend_t, e->pend_W, e->pend_U, e->pend_v, e->pend_Q};
    return finalize(m, e, &st, 1);
}

/* The end rule holds: end now, or with links wait for the settling time. */
static int rule_met(cr_monitor *m, episode *e)
{
    if (m->settle == 0.0) {
        end_state st = current(m);
        return finalize(m, e, &st, 1);
    }
    if (e->pending)
        return CR_OK;
    if (!e->pend_v)
        e->pend_v = malloc(m->nb * sizeof(double));
    if (!e->pend_Q)
        e->pend_Q = malloc((m->nc ? m->nc : 1) * sizeof(double));
    if (!e->pend_v || !e->pend_Q)
        return CR_ERR_NOMEM;
    memcpy(e->pend_v, m->v, m->nb * sizeof(double));
    memcpy(e->pend_Q, m->Q, m->nc * sizeof(double));
    e->pend_t = cr_sim_get_time(m->sim);
    e->pend_W = cr_sim_dissipated_work(m->sim);
    e->pend_U = cr_sim_potential_energy(m->sim);
    e->pending = 1;
    return CR_OK;
}

static int on_events(const cr_sim *sim, size_t first, void *user)
{
    cr_monitor *m = user;
    (void)sim;
    read_state(m);
    const cr_event *ev = cr_sim_events(m->sim);
    size_t n = cr_sim_event_count(m->sim);
    double t = cr_sim_get_time(m->sim);
    /* pending episodes whose settling time passed quietly end where the rule held */
    for (size_t k = 0; k < m->nep; k++) {
        episode *e = m->ep[k];
        if (e->active && e->pending && t > e->pend_t + m->settle &&
            finalize_pending(m, e) != CR_OK)
            return 1;
    }
    for (size_t k = first; k < n; k++) {
        const cr_event *e = &ev[k];
        size_t c = e->contact;
        episode *ep = active_with(m, c);
        if (e->kind == CR_EVENT_CLOSE && !ep) {
            ep = extend(m, c);
            if (!ep && e->rate > 0.0)
                ep = start_episode(m, c, e->t);
            if (!ep)
                continue;
        }
        if (!ep)
            continue;
        if (e->kind == CR_EVENT_CLOSE)
            ep->pending = 0; /* touched again within the settling time: same episode */
        if (push_event(ep, k) != CR_OK)
            return 1;
        switch (e->kind) {
        case CR_EVENT_CLOSE:
            ep->closings[c]++;
            ep->phase[c] = PHASE_COMP;
            ep->qs[c] = e->impulse;
            break;
        case CR_EVENT_MAX_COMPRESSION:
            close_phase(ep, c, e->impulse);
            ep->phase[c] = PHASE_EXP;
            ep->peak_d[c] = fmax(ep->peak_d[c], e->overlap);
            break;
        case CR_EVENT_MIN_COMPRESSION:
            close_phase(ep, c, e->impulse);
            ep->phase[c] = PHASE_COMP;
            break;
        case CR_EVENT_OPEN:
            ep->openings[c]++;
            close_phase(ep, c, e->impulse);
            ep->phase[c] = PHASE_NONE;
            break;
        case CR_EVENT_FORCE_RELEASE:
            close_phase(ep, c, e->impulse);
            ep->phase[c] = PHASE_NONE;
            break;
        case CR_EVENT_FORCE_REENGAGE:
            ep->qs[c] = e->impulse;
            ep->phase[c] = e->rate > 0.0 ? PHASE_COMP : PHASE_EXP;
            break;
        }
        ep->peak_f[c] = fmax(ep->peak_f[c], e->force);
    }
    for (size_t k = 0; k < m->nep; k++) {
        episode *e = m->ep[k];
        if (e->active && !e->pending && group_done(m, e) && rule_met(m, e) != CR_OK)
            return 1;
    }
    return 0;
}

void cr_monitor_sample(cr_monitor *m)
{
    if (!m)
        return;
    cr_sim_get_forces(m->sim, m->force);
    for (size_t k = 0; k < m->nep; k++) {
        episode *e = m->ep[k];
        if (e->active)
            for (size_t c = e->info.first_contact; c <= e->info.last_contact; c++)
                e->peak_f[c] = fmax(e->peak_f[c], m->force[c]);
    }
}

void cr_monitor_destroy(cr_monitor *m)
{
    if (!m)
        return;
    if (m->sim)
        cr_sim_set_event_callback(m->sim, NULL, NULL);
    for (size_t k = 0; k < m->nep; k++)
        free_episode(m->ep[k]);
    free(m->ep);
    free(m->mass);
    free(m->fixed);
    free(m->linked);
    free(m->contact_on);
    free(m->v);
    free(m->delta);
    free(m->rate);
    free(m->force);
    free(m->Q);
    free(m);
}

cr_monitor *cr_monitor_create(cr_sim *sim)
{
    if (!sim)
        return NULL;
    cr_monitor *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->sim = sim;
    m->nb = cr_sim_ball_count(sim);
    m->nc = cr_sim_contact_count(sim);
    size_t nc = m->nc ? m->nc : 1;
    m->mass = malloc(m->nb * sizeof(double));
    m->fixed = calloc(m->nb, sizeof(int));
    m->linked = calloc(nc, sizeof(int));
    m->contact_on = calloc(nc, sizeof(int));
    m->v = malloc(m->nb * sizeof(double));
    m->delta = malloc(nc * sizeof(double));
    m->rate = malloc(nc * sizeof(double));
    m->force = malloc(nc * sizeof(double));
    m->Q = malloc(nc * sizeof(double));
    if (!m->mass || !m->fixed || !m->linked || !m->contact_on || !m->v || !m->delta ||
        !m->rate || !m->force || !m->Q) {
        cr_monitor_destroy(m);
        return NULL;
    }
    cr_sim_get_masses(sim, m->mass);
    m->settle = cr_sim_settle_time(sim);
    for (size_t i = 0; i < m->nb; i++)
        m->fixed[i] = cr_sim_body_is_fixed(sim, i);
    for (size_t c = 0; c < m->nc; c++) {
        m->linked[c] = cr_sim_pair_is_linked(sim, c);
        m->contact_on[c] = cr_sim_pair_has_contact(sim, c);
    }
    read_state(m);
    /* touching contacts already approaching: the impact starts at t = 0 */
    for (size_t c = 0; c < m->nc; c++)
        if (m->delta[c] >= 0.0 && m->rate[c] > 0.0 && !active_with(m, c) &&
            !start_episode(m, c, cr_sim_get_time(sim))) {
            cr_monitor_destroy(m);
            return NULL;
        }
    cr_sim_set_event_callback(sim, on_events, m);
    return m;
}

int cr_monitor_finish(cr_monitor *m)
{
    if (!m)
        return CR_ERR_INVALID;
    read_state(m);
    end_state st = current(m);
    for (size_t k = 0; k < m->nep; k++) {
        episode *e = m->ep[k];
        if (!e->active)
            continue;
        int rc = e->pending ? finalize_pending(m, e) : finalize(m, e, &st, 0);
        if (rc != CR_OK)
            return rc;
    }
    return CR_OK;
}

size_t cr_monitor_episode_count(const cr_monitor *m)
{
    return m->nep;
}

static const episode *done_episode(const cr_monitor *m, size_t k)
{
    return k < m->nep && !m->ep[k]->active ? m->ep[k] : NULL;
}

int cr_monitor_get_episode(const cr_monitor *m, size_t k, cr_episode_info *info)
{
    const episode *e = done_episode(m, k);
    if (!e || !info)
        return CR_ERR_INVALID;
    *info = e->info;
    return CR_OK;
}

const cr_contact_record *cr_monitor_contacts(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    *n = e ? e->info.last_contact - e->info.first_contact + 1 : 0;
    return e ? e->rec : NULL;
}

const double *cr_monitor_velocities(const cr_monitor *m, size_t k, int after, size_t *n)
{
    const episode *e = done_episode(m, k);
    *n = e ? e->info.last_ball - e->info.first_ball + 1 : 0;
    return e ? (after ? e->u_after : e->u_before) : NULL;
}

const double *cr_monitor_masses(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    *n = e ? e->info.last_ball - e->info.first_ball + 1 : 0;
    return e ? e->mass : NULL;
}

const size_t *cr_monitor_events(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    *n = e ? e->nev : 0;
    return e ? e->ev : NULL;
}

cr_impact *cr_monitor_impact(const cr_monitor *m, size_t k)
{
    const episode *e = done_episode(m, k);
    if (!e)
        return NULL;
    /* dofs: the moving balls of the group; columns: its unilateral contacts */
    size_t b0 = e->info.first_ball, nbg = e->info.last_ball - b0 + 1;
    size_t *dof = malloc(nbg * sizeof(size_t)), n = 0, ncol = 0;
    double *mass = malloc(nbg * sizeof(double)), *u = malloc(nbg * sizeof(double));
    double *w = calloc(nbg, sizeof(double));
    cr_impact *imp = NULL;
    if (!dof || !mass || !u || !w)
        goto done;
    for (size_t i = 0; i < nbg; i++) {
        dof[i] = m->fixed[b0 + i] ? (size_t)-1 : n;
        if (!m->fixed[b0 + i]) {
            mass[n] = e->mass[i];
            u[n++] = e->u_before[i];
        }
    }
    for (size_t c = e->info.first_contact; c <= e->info.last_contact; c++)
        ncol += m->contact_on[c];
    imp = n ? cr_impact_create(n, ncol) : NULL;
    if (!imp)
        goto done;
    cr_impact_set_mass_diagonal(imp, mass);
    cr_impact_set_velocity(imp, u);
    size_t col = 0;
    for (size_t c = e->info.first_contact; c <= e->info.last_contact; c++) {
        if (!m->contact_on[c])
            continue;
        memset(w, 0, n * sizeof(double));
        size_t a = dof[c - b0], b = dof[c + 1 - b0];
        if (a != (size_t)-1)
            w[a] = -1.0;
        if (b != (size_t)-1)
            w[b] = 1.0;
        cr_impact_set_gradient(imp, col++, w);
    }
done:
    free(dof);
    free(mass);
    free(u);
    free(w);
    return imp;
}
