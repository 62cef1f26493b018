/*
 * Impact episodes of planar pools (the chain monitor's rules on a contact graph).
 * Groups are sets of discs; contacts join a group with the impulse and normal
 * they have at that moment, so every per-episode quantity is a difference of
 * quadratures at located events.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/monitor.h"
#include "priv.h"

enum { PHASE_NONE = 0, PHASE_COMP, PHASE_EXP };

typedef struct {
    size_t id;               /* pool contact */
    double q0, qx0, qy0;     /* impulses when it joined */
    double gamma0, nx0, ny0; /* γ⁻ and normal when it joined */
    int phase;
    double qs, comp, exp_, peak_d, peak_f;
    int closings, openings;
} member;

typedef struct {
    cr_episode_info info;
    int active;
    size_t *disc;   /* sorted at the end */
    size_t ndisc, dcap;
    double *u0;     /* 2 per disc of the pool, at the start (whole pool) */
    member *mem;
    size_t nmem, mcap;
    double W0, U0;
    size_t *ev;
    size_t nev, evcap;
    long ref;       /* reference contact id */
    /* results */
    double *ub, *ua, *vec, *nrm;
    cr_contact_record *rec;
} pepisode;

struct cr_pool_monitor {
    cr_pool *pool;
    size_t n;
    double *mass, *radius, *v;
    long *owner; /* active episode index of each disc, −1 */
    pepisode **ep;
    size_t nep, epcap;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return CR_OK;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return CR_ERR_NOMEM;
    *p = q;
    *cap = c;
    return CR_OK;
}

static void free_ep(pepisode *e)
{
    if (!e)
        return;
    free(e->disc);
    free(e->u0);
    free(e->mem);
    free(e->ev);
    free(e->ub);
    free(e->ua);
    free(e->vec);
    free(e->nrm);
    free(e->rec);
    free(e);
}

static long episode_of_contact(const cr_pool_monitor *m, size_t id, pepisode **out)
{
    *out = NULL;
    for (size_t k = 0; k < m->nep; k++) {
        pepisode *e = m->ep[k];
        if (!e->active)
            continue;
        for (size_t q = 0; q < e->nmem; q++)
            if (e->mem[q].id == id) {
                *out = e;
                return (long)k;
            }
    }
    return -1;
}

static int add_disc(cr_pool_monitor *m, pepisode *e, size_t i, long index)
{
    if (m->owner[i] == index)
        return CR_OK;
    if (grow((void **)&e->disc, &e->dcap, e->ndisc + 1, sizeof(size_t)) != CR_OK)
        return CR_ERR_NOMEM;
    e->disc[e->ndisc++] = i;
    m->owner[i] = index;
    /* a disc joining later was in free flight: its velocity now is its u⁻ */
    e->u0[2 * i] = m->v[2 * i];
    e->u0[2 * i + 1] = m->v[2 * i + 1];
    return CR_OK;
}

static int add_member(cr_pool_monitor *m, pepisode *e, size_t id)
{
    for (size_t q = 0; q < e->nmem; q++)
        if (e->mem[q].id == id)
            return CR_OK;
    if (grow((void **)&e->mem, &e->mcap, e->nmem + 1, sizeof(member)) != CR_OK)
        return CR_ERR_NOMEM;
    member *c = &e->mem[e->nmem++];
    memset(c, 0, sizeof(*c));
    c->id = id;
    double vec[2], delta, rate, f;
    int loaded;
    c->q0 = cr_pool_contact_impulse(m->pool, id, vec);
    c->qx0 = vec[0];
    c->qy0 = vec[1];
    cr_pool_contact_state(m->pool, id, &delta, &rate, &f, &loaded);
    c->gamma0 = -rate;
    c->phase = PHASE_COMP; /* touching members load without a located closing */
    c->qs = c->q0;
    /* the normal at joining: the impact configuration's W column */
    double nrm[2];
    cr_pool_contact_normal(m->pool, id, nrm);
    c->nx0 = nrm[0];
    c->ny0 = nrm[1];
    return CR_OK;
}

/* Adds the candidate contacts touching (δ ≥ 0) a disc of the group, and their
 * discs, until nothing more touches: the impact configuration of the group. */
static int close_over_touching(cr_pool_monitor *m, pepisode *e, long index)
{
    size_t nc = cr_pool_contact_count(m->pool);
    int added = 1;
    while (added) {
        added = 0;
        for (size_t id = 0; id < nc; id++) {
            long i, j;
            cr_pool_contact_bodies(m->pool, id, &i, &j);
            int in_i = m->owner[i] == index, in_j = j >= 0 && m->owner[j] == index;
            if (!in_i && !in_j)
                continue;
            double delta, rate, f;
            int loaded;
            cr_pool_contact_state(m->pool, id, &delta, &rate, &f, &loaded);
            /* touching up to the geometric tolerance: the first instants of the
             * impact may already have pushed bodies at rest apart by roundoff */
            double r = m->radius[i];
            if (j >= 0)
                r = fmin(r, m->radius[j]);
            if (delta < -CR_GEOM_TOL * r)
                continue;
            size_t before = e->nmem;
            if (add_member(m, e, id) != CR_OK)
                return CR_ERR_NOMEM;
            if (!in_i && add_disc(m, e, (size_t)i, index) != CR_OK)
                return CR_ERR_NOMEM;
            if (j >= 0 && !in_j && add_disc(m, e, (size_t)j, index) != CR_OK)
                return CR_ERR_NOMEM;
            added |= e->nmem != before;
        }
    }
    return CR_OK;
}

static pepisode *start(cr_pool_monitor *m, size_t id, double t)
{
    if (grow((void **)&m->ep, &m->epcap, m->nep + 1, sizeof(pepisode *)) != CR_OK)
        return NULL;
    pepisode *e = calloc(1, sizeof(*e));
    if (!e || !(e->u0 = malloc(2 * m->n * sizeof(double)))) {
        free_ep(e);
        return NULL;
    }
    memcpy(e->u0, m->v, 2 * m->n * sizeof(double));
    e->active = 1;
    e->ref = (long)id;
    e->info.t_start = t;
    e->info.reference = id;
    e->W0 = cr_pool_dissipated_work(m->pool);
    e->U0 = cr_pool_potential_energy(m->pool);
    long index = (long)m->nep;
    m->ep[m->nep++] = e;
    long i, j;
    cr_pool_contact_bodies(m->pool, id, &i, &j);
    if (add_disc(m, e, (size_t)i, index) || (j >= 0 && add_disc(m, e, (size_t)j, index)) ||
        add_member(m, e, id) || close_over_touching(m, e, index))
        return NULL;
    return e;
}

/* Folds episode b into a: the discs change owner, members and events move. */
static int merge(cr_pool_monitor *m, long ia, long ib)
{
    pepisode *a = m->ep[ia], *b = m->ep[ib];
    for (size_t k = 0; k < b->ndisc; k++) {
        size_t i = b->disc[k];
        if (grow((void **)&a->disc, &a->dcap, a->ndisc + 1, sizeof(size_t)) != CR_OK)
            return CR_ERR_NOMEM;
        a->disc[a->ndisc++] = i;
        m->owner[i] = ia;
        a->u0[2 * i] = b->u0[2 * i];
        a->u0[2 * i + 1] = b->u0[2 * i + 1];
    }
    for (size_t k = 0; k < b->nmem; k++) {
        if (grow((void **)&a->mem, &a->mcap, a->nmem + 1, sizeof(member)) != CR_OK)
            return CR_ERR_NOMEM;
        a->mem[a->nmem++] = b->mem[k];
    }
    for (size_t k = 0; k < b->nev; k++) {
        if (grow((void **)&a->ev, &a->evcap, a->nev + 1, sizeof(size_t)) != CR_OK)
            return CR_ERR_NOMEM;
        a->ev[a->nev++] = b->ev[k];
    }
    a->W0 = fmin(a->W0, b->W0);
    b->active = 0;
    b->ndisc = b->nmem = 0; /* emptied; removed below */
    free_ep(b);
    memmove(&m->ep[ib], &m->ep[ib + 1], (m->nep - (size_t)ib - 1) * sizeof(*m->ep));
    m->nep--;
    for (size_t i = 0; i < m->n; i++)
        if (m->owner[i] > ib)
            m->owner[i]--;
    return CR_OK;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

static int finalize(cr_pool_monitor *m, pepisode *e, int complete)
{
    qsort(e->disc, e->ndisc, sizeof(size_t), cmp_size);
    size_t nd = e->ndisc, nc = e->nmem;
    e->ub = malloc(2 * nd * sizeof(double) + 8);
    e->ua = malloc(2 * nd * sizeof(double) + 8);
    e->vec = malloc(2 * nc * sizeof(double) + 8);
    e->nrm = malloc(2 * nc * sizeof(double) + 8);
    e->rec = calloc(nc ? nc : 1, sizeof(cr_contact_record));
    if (!e->ub || !e->ua || !e->vec || !e->nrm || !e->rec)
        return CR_ERR_NOMEM;
    double T0 = 0, T1 = 0, vmax = 0;
    for (size_t k = 0; k < nd; k++) {
        size_t i = e->disc[k];
        for (int c = 0; c < 2; c++) {
            e->ub[2 * k + c] = e->u0[2 * i + c];
            e->ua[2 * k + c] = m->v[2 * i + c];
            vmax = fmax(vmax, fmax(fabs(e->ub[2 * k + c]), fabs(e->ua[2 * k + c])));
        }
        T0 += 0.5 * m->mass[i] * (e->ub[2 * k] * e->ub[2 * k] + e->ub[2 * k + 1] * e->ub[2 * k + 1]);
        T1 += 0.5 * m->mass[i] * (e->ua[2 * k] * e->ua[2 * k] + e->ua[2 * k + 1] * e->ua[2 * k + 1]);
    }
    e->info.t_end = cr_pool_get_time(m->pool);
    e->info.first_ball = nd ? e->disc[0] : 0;
    e->info.last_ball = nd ? e->disc[nd - 1] : 0;
    e->info.first_contact = e->info.last_contact = e->info.reference;
    e->info.T_minus = T0;
    e->info.T_plus = T1;
    e->info.kappa = T0 > 0 ? T1 / T0 : NAN;
    e->info.dissipated = cr_pool_dissipated_work(m->pool) - e->W0 +
                         cr_pool_potential_energy(m->pool) - e->U0;
    e->info.complete = complete;
    e->info.event_count = e->nev;
    double vec[2], Pref = 0;
    for (size_t q = 0; q < nc; q++)
        if ((long)e->mem[q].id == e->ref)
            Pref = cr_pool_contact_impulse(m->pool, e->mem[q].id, vec) - e->mem[q].q0;
    for (size_t q = 0; q < nc; q++) {
        member *c = &e->mem[q];
        cr_contact_record *r = &e->rec[q];
        double P = cr_pool_contact_impulse(m->pool, c->id, vec);
        if (c->phase == PHASE_COMP)
            c->comp += P - c->qs;
        else if (c->phase == PHASE_EXP)
            c->exp_ += P - c->qs;
        double delta, rate, f;
        int loaded;
        cr_pool_contact_state(m->pool, c->id, &delta, &rate, &f, &loaded);
        r->contact = c->id;
        r->impulse = P - c->q0;
        r->compression = c->comp;
        r->expansion = c->exp_;
        r->gamma_minus = c->gamma0;
        /* out of the candidate list the rate is unknown here: use the velocities */
        long i, j;
        cr_pool_contact_bodies(m->pool, c->id, &i, &j);
        if (isfinite(delta)) {
            r->gamma_plus = -rate;
        } else {
            /* out of the candidate list: the relative velocity along the normal */
            double wx = (j >= 0 ? m->v[2 * j] : 0.0) - m->v[2 * i];
            double wy = (j >= 0 ? m->v[2 * j + 1] : 0.0) - m->v[2 * i + 1];
            r->gamma_plus = j >= 0 ? c->nx0 * wx + c->ny0 * wy : -(c->nx0 * wx + c->ny0 * wy);
        }
        r->newton = fabs(r->gamma_minus) > 1e-9 * vmax ? -r->gamma_plus / r->gamma_minus : NAN;
        r->poisson = r->compression > 0 ? r->expansion / r->compression : NAN;
        r->alpha = Pref != 0 ? r->impulse / Pref : NAN;
        r->peak_overlap = c->peak_d;
        r->peak_force = c->peak_f;
        r->closings = c->closings;
        r->openings = c->openings;
        e->vec[2 * q] = vec[0] - c->qx0;
        e->vec[2 * q + 1] = vec[1] - c->qy0;
        e->nrm[2 * q] = c->nx0;
        e->nrm[2 * q + 1] = c->ny0;
    }
    e->active = 0;
    for (size_t k = 0; k < nd; k++)
        m->owner[e->disc[k]] = -1;
    return CR_OK;
}

static int group_done(const cr_pool_monitor *m, const pepisode *e)
{
    for (size_t q = 0; q < e->nmem; q++) {
        double delta, rate, f;
        int loaded;
        cr_pool_contact_state(m->pool, e->mem[q].id, &delta, &rate, &f, &loaded);
        if (loaded || (isfinite(delta) && rate > 0.0))
            return 0;
    }
    return 1;
}

static void close_phase(member *c, double q)
{
    if (c->phase == PHASE_COMP)
        c->comp += q - c->qs;
    else if (c->phase == PHASE_EXP)
        c->exp_ += q - c->qs;
    c->qs = q;
}

static int on_events(const cr_pool *pool, size_t first, void *user)
{
    cr_pool_monitor *m = user;
    cr_pool_get_velocities(pool, m->v);
    const cr_event *ev = cr_pool_events(pool);
    size_t n = cr_pool_event_count(pool);
    for (size_t k = first; k < n; k++) {
        const cr_event *e = &ev[k];
        pepisode *ep;
        long idx = episode_of_contact(m, e->contact, &ep);
        if (e->kind == CR_EVENT_CLOSE && idx < 0) {
            long i, j;
            cr_pool_contact_bodies(pool, e->contact, &i, &j);
            long a = m->owner[i], b = j >= 0 ? m->owner[j] : -1;
            if (a >= 0 && b >= 0 && a != b) {
                long keep = a < b ? a : b, drop = a < b ? b : a;
                if (merge(m, keep, drop) != CR_OK)
                    return 1;
                a = keep;
            }
            long g = a >= 0 ? a : b;
            if (g >= 0) {
                pepisode *eg = m->ep[g];
                if (add_disc(m, eg, (size_t)i, g) || (j >= 0 && add_disc(m, eg, (size_t)j, g)) ||
                    add_member(m, eg, e->contact) || close_over_touching(m, eg, g))
                    return 1;
            } else if (e->rate > 0.0) {
                if (!start(m, e->contact, e->t))
                    return 1;
            }
            idx = episode_of_contact(m, e->contact, &ep);
        }
        if (idx < 0)
            continue;
        if (grow((void **)&ep->ev, &ep->evcap, ep->nev + 1, sizeof(size_t)) != CR_OK)
            return 1;
        ep->ev[ep->nev++] = k;
        member *c = NULL;
        for (size_t q = 0; q < ep->nmem; q++)
            if (ep->mem[q].id == e->contact)
                c = &ep->mem[q];
        switch (e->kind) {
        case CR_EVENT_CLOSE:
            c->closings++;
            c->phase = PHASE_COMP;
            c->qs = e->impulse;
            break;
        case CR_EVENT_MAX_COMPRESSION:
            close_phase(c, e->impulse);
            c->phase = PHASE_EXP;
            c->peak_d = fmax(c->peak_d, e->overlap);
            break;
        case CR_EVENT_MIN_COMPRESSION:
            close_phase(c, e->impulse);
            c->phase = PHASE_COMP;
            break;
        case CR_EVENT_OPEN:
            c->openings++;
            close_phase(c, e->impulse);
            c->phase = PHASE_NONE;
            break;
        case CR_EVENT_FORCE_RELEASE:
            close_phase(c, e->impulse);
            c->phase = PHASE_NONE;
            break;
        case CR_EVENT_FORCE_REENGAGE:
            c->qs = e->impulse;
            c->phase = e->rate > 0.0 ? PHASE_COMP : PHASE_EXP;
            break;
        }
        c->peak_f = fmax(c->peak_f, e->force);
    }
    for (size_t k = 0; k < m->nep; k++)
        if (m->ep[k]->active && group_done(m, m->ep[k]) && finalize(m, m->ep[k], 1) != CR_OK)
            return 1;
    return 0;
}

cr_pool_monitor *cr_pool_monitor_create(cr_pool *pool)
{
    if (!pool)
        return NULL;
    cr_pool_monitor *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->pool = pool;
    m->n = cr_pool_disc_count(pool);
    m->mass = malloc(m->n * sizeof(double));
    m->radius = malloc(m->n * sizeof(double));
    m->v = malloc(2 * m->n * sizeof(double));
    m->owner = malloc(m->n * sizeof(long));
    if (!m->mass || !m->radius || !m->v || !m->owner) {
        cr_pool_monitor_destroy(m);
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        m->owner[i] = -1;
    cr_pool_get_discs(pool, m->mass, m->radius);
    cr_pool_set_event_callback(pool, on_events, m);
    return m;
}

void cr_pool_monitor_destroy(cr_pool_monitor *m)
{
    if (!m)
        return;
    cr_pool_set_event_callback(m->pool, NULL, NULL);
    for (size_t k = 0; k < m->nep; k++)
        free_ep(m->ep[k]);
    free(m->ep);
    free(m->mass);
    free(m->radius);
    free(m->v);
    free(m->owner);
    free(m);
}

int cr_pool_monitor_finish(cr_pool_monitor *m)
{
    if (!m)
        return CR_ERR_INVALID;
    cr_pool_get_velocities(m->pool, m->v);
    for (size_t k = 0; k < m->nep; k++)
        if (m->ep[k]->active && finalize(m, m->ep[k], 0) != CR_OK)
            return CR_ERR_NOMEM;
    return CR_OK;
}

size_t cr_pool_monitor_episode_count(const cr_pool_monitor *m)
{
    return m->nep;
}

static const pepisode *done(const cr_pool_monitor *m, size_t k)
{
    return k < m->nep && !m->ep[k]->active ? m->ep[k] : NULL;
}

int cr_pool_monitor_get_episode(const cr_pool_monitor *m, size_t k, cr_episode_info *info)
{
    const pepisode *e = done(m, k);
    if (!e || !info)
        return CR_ERR_INVALID;
    *info = e->info;
    return CR_OK;
}

const size_t *cr_pool_monitor_discs(const cr_pool_monitor *m, size_t k, size_t *n)
{
    const pepisode *e = done(m, k);
    *n = e ? e->ndisc : 0;
    return e ? e->disc : NULL;
}

const double *cr_pool_monitor_velocities(const cr_pool_monitor *m, size_t k, int after,
                                         size_t *n)
{
    const pepisode *e = done(m, k);
    *n = e ? e->ndisc : 0;
    return e ? (after ? e->ua : e->ub) : NULL;
}

const cr_contact_record *cr_pool_monitor_contacts(const cr_pool_monitor *m, size_t k, size_t *n)
{
    const pepisode *e = done(m, k);
    *n = e ? e->nmem : 0;
    return e ? e->rec : NULL;
}

const double *cr_pool_monitor_vector_impulses(const cr_pool_monitor *m, size_t k, size_t *n)
{
    const pepisode *e = done(m, k);
    *n = e ? e->nmem : 0;
    return e ? e->vec : NULL;
}

const double *cr_pool_monitor_normals(const cr_pool_monitor *m, size_t k, size_t *n)
{
    const pepisode *e = done(m, k);
    *n = e ? e->nmem : 0;
    return e ? e->nrm : NULL;
}

cr_impact *cr_pool_monitor_impact(const cr_pool_monitor *m, size_t k)
{
    const pepisode *e = done(m, k);
    if (!e || e->ndisc == 0)
        return NULL;
    size_t nd = e->ndisc, n = 2 * nd;
    cr_impact *imp = cr_impact_create(n, e->nmem);
    double *mass = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
    if (!imp || !mass || !w) {
        cr_impact_destroy(imp);
        imp = NULL;
        goto done;
    }
    for (size_t q = 0; q < nd; q++)
        mass[2 * q] = mass[2 * q + 1] = m->mass[e->disc[q]];
    cr_impact_set_mass_diagonal(imp, mass);
    cr_impact_set_velocity(imp, e->ub);
    for (size_t c = 0; c < e->nmem; c++) {
        long i, j;
        cr_pool_contact_bodies(m->pool, e->mem[c].id, &i, &j);
        memset(w, 0, n * sizeof(double));
        for (size_t q = 0; q < nd; q++) {
            double s = 0.0;
            if ((long)e->disc[q] == j || (j < 0 && (long)e->disc[q] == i))
                s = 1.0;
            else if ((long)e->disc[q] == i)
                s = -1.0;
            w[2 * q] = s * e->nrm[2 * c];
            w[2 * q + 1] = s * e->nrm[2 * c + 1];
        }
        cr_impact_set_gradient(imp, c, w);
    }
done:
    free(mass);
    free(w);
    return imp;
}
