/*
 * Impact episodes on the contact graph, for every engine behind cr_system.
 *
 * An active episode owns a set of bodies (owner[] per body) and a list of
 * member contacts (mem_ep[] / mem_idx[] per contact), so every event is
 * looked up in O(1) and a group grows by walking cr_system_body_contacts of
 * the bodies that join: nothing scans the whole system per event. Fixed
 * bodies are listed in the groups they touch but owned by none (an infinite
 * mass transmits nothing between two groups).
 *
 * Impulses are differences of the engine's quadratures read at located
 * events; the compression/expansion split is taken at the max/min-compression
 * events. The state at the end (velocities, positions, impulses) is kept in a
 * snapshot, taken when the end rule holds, so that episodes held for the
 * settling time end where the rule first held.
 */
#include "cradle/monitor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor-priv.h"
#include "base/base.h"

enum { PHASE_NONE = 0, PHASE_COMP, PHASE_EXP };

typedef struct {
    size_t contact;
    size_t body_a;
    long body_b;
    int unilateral, linked, preloaded;
    double n[3];      /* normal at joining: the impact configuration's W */
    double q0, v0[3]; /* impulse and vector impulse at joining */
    double q1, v1[3]; /* at the end (snapshot) */
    double f0;        /* force at joining (the static load of a preloaded contact) */
    int phase;
    double qs, comp, exp_, peak_d, peak_f, peak_t;
    double loaded_since; /* start of the loaded interval, NaN while not loaded */
    double duration;     /* loaded time of the finished intervals */
    double duration1;    /* and of the open one, up to the end (snapshot) */
    int closings, openings;
} member;

typedef struct {
    size_t body;
    int fixed;
    double t0;           /* joining time */
    double u0[3], x0[3]; /* velocity (u⁻) and position at joining */
    double u1[3], x1[3]; /* at the end (snapshot) */
    /* a disc of a rigid body (cr_system_rotating_body): rigid >= 0 is its
     * body; the first of them in an episode carries the body's kinetic
     * energy, ½ m v² + ½ J ω² at joining (T0) and at the end (T1) */
    long rigid;
    int carries;
    double T0, T1;
    double J, X0[2], V0[2], w0; /* the carrier: its body's J, centre, velocity, ω at joining */
    double V1[2], w1;           /* and its velocity and ω at the end (snapshot) */
} gbody;

typedef struct episode {
    cr_episode_info info;
    int active, pending, has_preload;
    double gamma_ref; /* reference contact's approach speed at the start, m/s */
    gbody *b;
    size_t nb, bcap;
    member *mem;
    size_t nmem, mcap;
    size_t *ev;
    size_t nev, evcap;
    size_t witness; /* a member last found unsettled: checked first */
    double t1;      /* snapshot time */
    /* results */
    size_t *bodies;
    double *mass, *ub, *ua, *xb, *xa, *vec, *nrm;
    double *Tb; /* models with rigid bodies: each body's kinetic energy before, after (2 nb) */
    /* models with rigid bodies, per listed body: its rigid body (−1: none), and
     * on carriers J, centre and (V, ω) at joining; the lever arms of the
     * body-level impact configuration (cr_monitor_impact) */
    long *rb;
    double *rbJ, *rbX, *rbu, *rbu1;
    /* and that configuration, kept for cr_monitor_episode_data: its dofs,
     * M's diagonal, u⁻, u⁺ and W (contact_count × ndof) */
    size_t ndof;
    double *dmass, *du0, *du1, *dW;
    cr_contact_record *rec;
} episode;

struct cr_monitor {
    cr_system *sys;
    int dim, started;
    size_t nbody;
    double settle, v_start;
    double *mass;     /* INFINITY for fixed bodies */
    long *rigid;      /* rigid body of each disc, -1: none (NULL: no rigid body) */
    double *v, *x;    /* the system's velocities and positions, read lazily */
    int fresh;        /* v and x hold the current state */
    episode **owner;  /* active episode of each (moving) body */
    size_t *bidx;     /* index of the body in its owner's list */
    episode **mem_ep; /* active episode of each contact, or NULL */
    size_t *mem_idx;
    size_t ccap;
    episode **ep; /* every episode, in start order */
    size_t nep, epcap;
    episode **act; /* the active ones */
    size_t nact, actcap;
    cr_collision_set *coll; /* built by cr_monitor_finish (collisions.c) */
    double coll_window;     /* ≤ 0: the automatic window */
    char err[CR_ERRMSG_LEN];
};

/* ---- small helpers ----------------------------------------------------------- */

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

static int nomem(cr_monitor *m)
{
    cr_set_msg(m->err, sizeof m->err, "monitor: out of memory at t = %.9g s",
               cr_system_get_time(m->sys));
    return CR_ERR_NOMEM;
}

/* Velocities and positions are read at most once per listener call, and only
 * when a body joins or an episode ends. */
static void read_state(cr_monitor *m)
{
    if (m->fresh)
        return;
    cr_system_get_velocities(m->sys, m->v);
    cr_system_get_positions(m->sys, m->x);
    m->fresh = 1;
}

/* Pool contacts appear during the run: the per-contact maps follow. */
static int ensure_contacts(cr_monitor *m)
{
    size_t nc = cr_system_contact_count(m->sys);
    if (nc <= m->ccap)
        return CR_OK;
    size_t cap = m->ccap ? m->ccap : 64;
    while (cap < nc)
        cap *= 2;
    episode **e = realloc(m->mem_ep, cap * sizeof(*e));
    if (!e)
        return CR_ERR_NOMEM;
    m->mem_ep = e;
    size_t *idx = realloc(m->mem_idx, cap * sizeof(*idx));
    if (!idx)
        return CR_ERR_NOMEM;
    m->mem_idx = idx;
    for (size_t k = m->ccap; k < cap; k++)
        m->mem_ep[k] = NULL;
    m->ccap = cap;
    return CR_OK;
}

/* The sign of a contact's normal on body_a in its W column: −n for a pair,
 * +n for a half-plane wall (whose normal points from the wall to the body). */
static double sign_a(const member *c)
{
    return c->body_b < 0 ? 1.0 : -1.0;
}

static void free_episode(episode *e)
{
    if (!e)
        return;
    free(e->b);
    free(e->mem);
    free(e->ev);
    free(e->bodies);
    free(e->mass);
    free(e->Tb);
    free(e->rb);
    free(e->rbJ);
    free(e->rbX);
    free(e->rbu);
    free(e->rbu1);
    free(e->dmass);
    free(e->du0);
    free(e->du1);
    free(e->dW);
    free(e->ub);
    free(e->ua);
    free(e->xb);
    free(e->xa);
    free(e->vec);
    free(e->nrm);
    free(e->rec);
    free(e);
}

/* ---- group building ---------------------------------------------------------- */

/* Adds body i to e (a fixed body once, unowned). */
/* ½ m v² + ½ J ω² of rigid body k now. */
static double rigid_energy(const cr_monitor *m, long k)
{
    cr_rotating_body b;
    if (cr_system_rotating_body(m->sys, (size_t)k, &b) != CR_OK)
        return 0.0;
    return 0.5 * b.mass * (b.v[0] * b.v[0] + b.v[1] * b.v[1]) + 0.5 * b.J * b.omega * b.omega;
}

static int add_body(cr_monitor *m, episode *e, size_t i);

/* A disc of a rigid body brings its siblings: one body, one group. */
static int add_rigid(cr_monitor *m, episode *e, gbody *g)
{
    cr_rotating_body b;
    g->rigid = m->rigid[g->body];
    g->carries = 1;
    for (size_t q = 0; q + 1 < e->nb; q++)
        if (e->b[q].rigid == g->rigid)
            g->carries = 0;
    if (!g->carries)
        return CR_OK;
    g->T0 = rigid_energy(m, g->rigid);
    if (cr_system_rotating_body(m->sys, (size_t)g->rigid, &b) != CR_OK)
        return CR_ERR_INVALID;
    g->J = b.J;
    g->w0 = b.omega;
    memcpy(g->X0, b.x, sizeof g->X0);
    memcpy(g->V0, b.v, sizeof g->V0);
    for (size_t j = b.first; j < b.first + b.count; j++)
        if (add_body(m, e, j) != CR_OK)
            return CR_ERR_NOMEM;
    return CR_OK;
}

static int add_body(cr_monitor *m, episode *e, size_t i)
{
    int fixed = isinf(m->mass[i]);
    if (!fixed && m->owner[i] == e)
        return CR_OK;
    if (fixed)
        for (size_t k = 0; k < e->nb; k++)
            if (e->b[k].body == i)
                return CR_OK;
    if (grow((void **)&e->b, &e->bcap, e->nb + 1, sizeof(gbody)) != CR_OK)
        return CR_ERR_NOMEM;
    read_state(m);
    gbody *g = &e->b[e->nb];
    memset(g, 0, sizeof(*g));
    g->body = i;
    g->fixed = fixed;
    g->t0 = cr_system_get_time(m->sys);
    /* a body joining later was in free flight: its velocity now is its u⁻ */
    for (int d = 0; d < m->dim && !fixed; d++) {
        g->u0[d] = m->v[(size_t)m->dim * i + (size_t)d];
        g->x0[d] = m->x[(size_t)m->dim * i + (size_t)d];
    }
    g->rigid = -1;
    if (!fixed) {
        m->owner[i] = e;
        m->bidx[i] = e->nb;
    }
    e->nb++;
    if (!fixed && m->rigid && m->rigid[i] >= 0)
        return add_rigid(m, e, &e->b[e->nb - 1]);
    return CR_OK;
}

/* Adds contact k (view w) to e with its impulses, normal and force now. */
static int add_member(cr_monitor *m, episode *e, size_t k, const cr_contact_view *w)
{
    if (grow((void **)&e->mem, &e->mcap, e->nmem + 1, sizeof(member)) != CR_OK)
        return CR_ERR_NOMEM;
    member *c = &e->mem[e->nmem];
    memset(c, 0, sizeof(*c));
    c->contact = k;
    c->body_a = w->body_a;
    c->body_b = w->body_b;
    c->unilateral = w->unilateral;
    c->linked = w->linked;
    memcpy(c->n, w->normal, sizeof c->n);
    c->q0 = c->qs = w->impulse;
    memcpy(c->v0, w->vector_impulse, sizeof c->v0);
    c->f0 = w->force;
    /* loaded at rest when it joins: a static load (a ball on a floor) */
    c->preloaded = w->unilateral && w->state == CR_CONTACT_LOADED && e->gamma_ref > 0.0 &&
                   fabs(w->rate) <= CR_MONITOR_REST_FRACTION * e->gamma_ref;
    e->has_preload |= c->preloaded;
    /* touching and loaded contacts load without a located closing */
    c->phase = w->state == CR_CONTACT_LOADED && w->rate < 0.0 ? PHASE_EXP : PHASE_COMP;
    double t = cr_system_get_time(m->sys);
    int loaded = w->unilateral && w->state == CR_CONTACT_LOADED;
    c->peak_f = loaded && w->force > 0.0 ? w->force : 0.0;
    c->peak_t = loaded ? t : NAN;
    c->peak_d = loaded ? w->overlap : 0.0;
    c->loaded_since = loaded ? t : NAN;
    m->mem_ep[k] = e;
    m->mem_idx[k] = e->nmem++;
    return CR_OK;
}

static int merge(cr_monitor *m, episode *dst, episode *src);

/* Takes in, from the bodies e->b[from …], every contact that is touching,
 * loaded or linked, and the bodies across them, until nothing more touches:
 * the group's impact configuration. Cost: the contacts of the bodies that
 * join. A touching contact into another active group merges the two. */
static int close_over(cr_monitor *m, episode *e, size_t from)
{
    if (ensure_contacts(m) != CR_OK)
        return CR_ERR_NOMEM;
    for (size_t q = from; q < e->nb; q++) {
        if (e->b[q].fixed)
            continue;
        size_t nk;
        const size_t *ks = cr_system_body_contacts(m->sys, e->b[q].body, &nk);
        for (size_t a = 0; a < nk; a++) {
            size_t k = ks[a];
            cr_contact_view w;
            if (m->mem_ep[k] == e || cr_system_get_contact(m->sys, k, &w) != CR_OK)
                continue;
            if (!(w.unilateral || w.linked) || (w.state == CR_CONTACT_OPEN && !w.linked))
                continue;
            for (int s = 0; s < 2; s++) {
                long j = s ? w.body_b : (long)w.body_a;
                if (j < 0)
                    continue;
                episode *f = m->owner[j];
                if (f && f != e && merge(m, e, f) != CR_OK)
                    return CR_ERR_NOMEM;
                if (add_body(m, e, (size_t)j) != CR_OK)
                    return CR_ERR_NOMEM;
            }
            if (m->mem_ep[k] != e && add_member(m, e, k, &w) != CR_OK)
                return CR_ERR_NOMEM;
        }
    }
    return CR_OK;
}

static episode *start_episode(cr_monitor *m, size_t k, const cr_contact_view *w)
{
    if (grow((void **)&m->ep, &m->epcap, m->nep + 1, sizeof(episode *)) != CR_OK ||
        grow((void **)&m->act, &m->actcap, m->nact + 1, sizeof(episode *)) != CR_OK)
        return NULL;
    episode *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->active = 1;
    e->info.t_start = cr_system_get_time(m->sys);
    e->info.reference = k;
    e->gamma_ref = w->rate;
    m->ep[m->nep++] = e;
    m->act[m->nact++] = e;
    if (add_body(m, e, w->body_a) != CR_OK ||
        (w->body_b >= 0 && add_body(m, e, (size_t)w->body_b) != CR_OK) ||
        add_member(m, e, k, w) != CR_OK || close_over(m, e, 0) != CR_OK)
        return NULL;
    return e;
}

static void drop_from(episode **list, size_t *n, const episode *e)
{
    for (size_t k = 0; k < *n; k++)
        if (list[k] == e) {
            memmove(&list[k], &list[k + 1], (*n - k - 1) * sizeof(*list));
            (*n)--;
            return;
        }
}

/* Merges two sorted event lists into dst (indices increase with time). */
static int merge_events(episode *dst, const episode *src)
{
    size_t n = dst->nev + src->nev;
    size_t *ev = malloc((n ? n : 1) * sizeof(size_t));
    if (!ev)
        return CR_ERR_NOMEM;
    size_t i = 0, j = 0, k = 0;
    while (i < dst->nev || j < src->nev)
        ev[k++] = j == src->nev || (i < dst->nev && dst->ev[i] < src->ev[j]) ? dst->ev[i++]
                                                                             : src->ev[j++];
    free(dst->ev);
    dst->ev = ev;
    dst->nev = dst->evcap = n;
    return CR_OK;
}

/* Folds src into dst; the merged episode keeps the older start and reference. */
static int merge(cr_monitor *m, episode *dst, episode *src)
{
    for (size_t q = 0; q < src->nb; q++) {
        const gbody *g = &src->b[q];
        int dup = 0;
        for (size_t k = 0; g->fixed && k < dst->nb; k++)
            dup |= dst->b[k].body == g->body;
        if (dup)
            continue;
        if (grow((void **)&dst->b, &dst->bcap, dst->nb + 1, sizeof(gbody)) != CR_OK)
            return CR_ERR_NOMEM;
        dst->b[dst->nb] = *g;
        if (!g->fixed) {
            m->owner[g->body] = dst;
            m->bidx[g->body] = dst->nb;
        }
        dst->nb++;
    }
    for (size_t q = 0; q < src->nmem; q++) {
        if (grow((void **)&dst->mem, &dst->mcap, dst->nmem + 1, sizeof(member)) != CR_OK)
            return CR_ERR_NOMEM;
        dst->mem[dst->nmem] = src->mem[q];
        m->mem_ep[src->mem[q].contact] = dst;
        m->mem_idx[src->mem[q].contact] = dst->nmem++;
    }
    if (merge_events(dst, src) != CR_OK)
        return CR_ERR_NOMEM;
    if (src->info.t_start < dst->info.t_start) {
        dst->info.t_start = src->info.t_start;
        dst->info.reference = src->info.reference;
        dst->gamma_ref = src->gamma_ref;
    }
    dst->has_preload |= src->has_preload;
    dst->pending = 0;
    /* the list stays in start order: dst takes the older one's place */
    size_t id = 0, is = 0;
    while (m->ep[id] != dst)
        id++;
    while (m->ep[is] != src)
        is++;
    if (id > is) {
        m->ep[is] = dst;
        m->ep[id] = src;
    }
    drop_from(m->ep, &m->nep, src);
    drop_from(m->act, &m->nact, src);
    free_episode(src);
    return CR_OK;
}

/* A closing outside every group: it grows (and may merge) the groups of its
 * bodies, or starts an episode when it approaches faster than the rest speed. */
static int on_closing(cr_monitor *m, size_t k)
{
    cr_contact_view w;
    if (cr_system_get_contact(m->sys, k, &w) != CR_OK || !(w.unilateral || w.linked))
        return CR_OK;
    episode *ea = m->owner[w.body_a], *eb = w.body_b >= 0 ? m->owner[w.body_b] : NULL;
    if (ea && eb && ea != eb) {
        if (merge(m, ea, eb) != CR_OK)
            return CR_ERR_NOMEM;
        eb = ea;
    }
    episode *e = ea ? ea : eb;
    if (!e)
        return w.unilateral && w.rate > m->v_start && !start_episode(m, k, &w) ? CR_ERR_NOMEM
                                                                               : CR_OK;
    size_t from = e->nb;
    if (add_body(m, e, w.body_a) != CR_OK ||
        (w.body_b >= 0 && add_body(m, e, (size_t)w.body_b) != CR_OK) ||
        add_member(m, e, k, &w) != CR_OK || close_over(m, e, from) != CR_OK)
        return CR_ERR_NOMEM;
    return CR_OK;
}

/* ---- the phase machine --------------------------------------------------------- */

static void close_phase(member *c, double q)
{
    if (c->phase == PHASE_COMP)
        c->comp += q - c->qs;
    else if (c->phase == PHASE_EXP)
        c->exp_ += q - c->qs;
    c->qs = q;
}

/* A loaded interval starts (at a closing or re-engagement) or ends (at an
 * opening or release; one still open at the episode's end counts up to it,
 * snapshot). loaded_since is NaN while not loaded. */
static void load_starts(member *c, double t)
{
    if (isnan(c->loaded_since))
        c->loaded_since = t;
}

static void load_ends(member *c, double t)
{
    if (!isnan(c->loaded_since))
        c->duration += t - c->loaded_since;
    c->loaded_since = NAN;
}

/* The located force maximum: the largest force at the contact's events. */
static void take_peak(member *c, const cr_event *ev)
{
    if (ev->force > c->peak_f || (isnan(c->peak_t) && ev->force > 0.0)) {
        c->peak_f = ev->force;
        c->peak_t = ev->t;
    }
}

static void step_phase(member *c, const cr_event *ev)
{
    switch (ev->kind) {
    case CR_EVENT_CLOSE:
        c->closings++;
        load_starts(c, ev->t);
        close_phase(c, ev->impulse);
        c->phase = PHASE_COMP;
        break;
    case CR_EVENT_MAX_COMPRESSION:
        close_phase(c, ev->impulse);
        c->phase = PHASE_EXP;
        c->peak_d = fmax(c->peak_d, ev->overlap);
        break;
    case CR_EVENT_MIN_COMPRESSION:
        close_phase(c, ev->impulse);
        c->phase = PHASE_COMP;
        break;
    case CR_EVENT_OPEN:
        c->openings++;
        close_phase(c, ev->impulse);
        c->phase = PHASE_NONE;
        load_ends(c, ev->t);
        break;
    case CR_EVENT_FORCE_RELEASE:
        close_phase(c, ev->impulse);
        c->phase = PHASE_NONE;
        load_ends(c, ev->t);
        break;
    case CR_EVENT_FORCE_REENGAGE:
        load_starts(c, ev->t);
        close_phase(c, ev->impulse);
        c->phase = ev->rate > 0.0 ? PHASE_COMP : PHASE_EXP;
        break;
    case CR_EVENT_MAX_FORCE:
    case CR_EVENT_SWING_EXTREME:
        break;
    }
    take_peak(c, ev);
}

/* ---- the end rule ------------------------------------------------------------- */

/* A member is done when the engine calls it settled (not loaded, not
 * approaching), or, having joined under a static load, when it is back at rest
 * under no more than that load. */
static int member_done(const cr_monitor *m, const episode *e, const member *c)
{
    cr_contact_view w;
    if (cr_system_get_contact(m->sys, c->contact, &w) != CR_OK)
        return 1;
    if (w.settled)
        return 1;
    return c->preloaded && fabs(w.rate) <= CR_MONITOR_REST_FRACTION * e->gamma_ref &&
           w.force <= c->f0 * (1.0 + CR_MONITOR_REST_FRACTION);
}

/* Every member done? The member found unsettled last time is tried first, so a
 * long group costs O(1) per event while anything in it is still loaded. */
static int group_done(const cr_monitor *m, episode *e)
{
    size_t n = e->nmem, w = e->witness < n ? e->witness : 0;
    for (size_t a = 0; a < n; a++) {
        size_t q = (w + a) % n;
        if (!member_done(m, e, &e->mem[q])) {
            e->witness = q;
            return 0;
        }
    }
    return 1;
}

/* A carrier's energy, velocity and ω at the end. */
static void rigid_end(const cr_monitor *m, gbody *g)
{
    cr_rotating_body b;
    g->T1 = rigid_energy(m, g->rigid);
    if (cr_system_rotating_body(m->sys, (size_t)g->rigid, &b) != CR_OK)
        return;
    memcpy(g->V1, b.v, sizeof g->V1);
    g->w1 = b.omega;
}

/* The state the episode ends on. */
static void snapshot(cr_monitor *m, episode *e)
{
    read_state(m);
    e->t1 = cr_system_get_time(m->sys);
    for (size_t q = 0; q < e->nb; q++) {
        gbody *g = &e->b[q];
        for (int d = 0; d < m->dim && !g->fixed; d++) {
            g->u1[d] = m->v[(size_t)m->dim * g->body + (size_t)d];
            g->x1[d] = m->x[(size_t)m->dim * g->body + (size_t)d];
        }
        if (g->rigid >= 0 && g->carries)
            rigid_end(m, g);
    }
    for (size_t q = 0; q < e->nmem; q++) {
        cr_contact_view w;
        member *c = &e->mem[q];
        if (cr_system_get_contact(m->sys, c->contact, &w) != CR_OK)
            continue;
        c->q1 = w.impulse;
        c->duration1 = c->duration + (isnan(c->loaded_since) ? 0.0 : e->t1 - c->loaded_since);
        memcpy(c->v1, w.vector_impulse, sizeof c->v1);
    }
}

static int finalize(cr_monitor *m, episode *e, int complete);
static int keep_configuration(const cr_monitor *m, episode *e);

/* The end rule holds: end now, or with links keep the state and wait for the
 * settling time (a later closing in the group cancels the wait). */
static int rule_met(cr_monitor *m, episode *e)
{
    snapshot(m, e);
    if (m->settle == 0.0)
        return finalize(m, e, 1);
    e->pending = 1;
    return CR_OK;
}

/* Episodes held for the settling time end where the rule held once it passed
 * quietly (checked before the events of a return are taken in). */
static int expire_pending(cr_monitor *m)
{
    double t = cr_system_get_time(m->sys);
    for (size_t k = 0; k < m->nact;) {
        episode *e = m->act[k];
        if (e->pending && t > e->t1 + m->settle) {
            int rc = finalize(m, e, 1);
            if (rc != CR_OK)
                return rc;
            continue; /* finalize dropped it from act */
        }
        k++;
    }
    return CR_OK;
}

/* The end rule after the events of a return; at output times only for groups
 * holding a preloaded contact, which can come to rest without any event. */
static int check_ends(cr_monitor *m, int at_output)
{
    for (size_t k = 0; k < m->nact;) {
        episode *e = m->act[k];
        if (!e->pending && (!at_output || e->has_preload) && group_done(m, e)) {
            int rc = rule_met(m, e);
            if (rc != CR_OK)
                return rc;
            if (k < m->nact && m->act[k] != e)
                continue; /* it ended and left the list */
        }
        k++;
    }
    return CR_OK;
}

/* ---- results ------------------------------------------------------------------ */

static const double zero3[3] = {0.0, 0.0, 0.0};

/* A body's velocity at joining (after = 0) or at the end; 0 for fixed bodies
 * and walls. */
static const double *body_u(const cr_monitor *m, const episode *e, long i, int after)
{
    if (i < 0 || isinf(m->mass[i]) || m->owner[i] != e)
        return zero3;
    const gbody *g = &e->b[m->bidx[i]];
    return after ? g->u1 : g->u0;
}

/* γ = wᵀu with the member's W column (normal at joining). */
static double gamma_of(const cr_monitor *m, const episode *e, const member *c, int after)
{
    const double *ua = body_u(m, e, (long)c->body_a, after), *ub = body_u(m, e, c->body_b, after);
    double g = 0.0;
    for (int d = 0; d < m->dim; d++)
        g += c->n[d] * (sign_a(c) * ua[d] + ub[d]);
    return g;
}

/* Work of the fields on the group during the episode: −ΔV of each body from
 * its joining to the episode's end, from the engine's own field potential
 * (cr_system_field_work): exact for gravity and the pendulum suspension, so a
 * damped group shows κ ≤ 1 and a dissipation ≥ 0 to the integration's
 * accuracy. (It was once the field's impulse, from momentum balance, times
 * the mean displacement: exact for uniform gravity only; on long collisions
 * of damped pendulum cradles κ reached 1.0038.) */
static double field_work(const cr_monitor *m, const episode *e)
{
    double W = 0.0;
    for (size_t q = 0; q < e->nb; q++) {
        const gbody *g = &e->b[q];
        if (!g->fixed)
            W += cr_system_field_work(m->sys, g->body, g->x0, g->x1);
    }
    return W;
}

static int cmp_body(const void *x, const void *y)
{
    size_t a = ((const gbody *)x)->body, b = ((const gbody *)y)->body;
    return a < b ? -1 : a > b;
}

static int cmp_member(const void *x, const void *y)
{
    size_t a = ((const member *)x)->contact, b = ((const member *)y)->contact;
    return a < b ? -1 : a > b;
}

/* Sorted already (a chain's group grows outwards, often in order): qsort
 * skipped, which matters at a stop request in a 10⁵-body episode. */
static int members_sorted(const episode *e)
{
    for (size_t q = 1; q < e->nmem; q++)
        if (e->mem[q].contact < e->mem[q - 1].contact)
            return 0;
    return 1;
}

static int bodies_sorted(const episode *e)
{
    for (size_t q = 1; q < e->nb; q++)
        if (e->b[q].body < e->b[q - 1].body)
            return 0;
    return 1;
}

static double nan_div(double a, double b)
{
    return b != 0.0 ? a / b : NAN;
}

/* One record from a member (its γ± computed by the caller). */
static void fill_record(cr_contact_record *r, const member *c, double gm, double gp, double Pref,
                        double rest)
{
    memset(r, 0, sizeof(*r));
    r->contact = c->contact;
    r->body_a = c->body_a;
    r->body_b = c->body_b;
    r->impulse = c->q1 - c->q0;
    r->compression = c->comp;
    r->expansion = c->exp_;
    r->gamma_minus = gm;
    r->gamma_plus = gp;
    /* Newton's coefficient is about a contact's own approach: NaN when it
     * joined at rest or separating */
    if (gm < -rest) {
        r->newton = -gp / gm;
    } else {
        r->newton = NAN;
        r->flags |= CR_RECORD_AT_REST;
    }
    if (c->comp > 0.0) {
        r->poisson = c->exp_ / c->comp;
    } else {
        r->poisson = NAN;
        r->flags |= CR_RECORD_NO_COMPRESSION;
    }
    r->alpha = nan_div(r->impulse, Pref);
    r->peak_overlap = c->peak_d;
    r->peak_force = c->peak_f;
    r->peak_force_time = c->peak_t;
    r->duration = c->duration1;
    r->closings = c->closings;
    r->openings = c->openings;
}

/* Records of the unilateral members, by contact number; γ from the impact
 * configuration (u⁻, u⁺ and the normals at joining). */
static int build_records(cr_monitor *m, episode *e)
{
    size_t dim = (size_t)m->dim, nr = 0;
    if (!members_sorted(e))
        qsort(e->mem, e->nmem, sizeof(member), cmp_member);
    double *gm = malloc((e->nmem ? e->nmem : 1) * 2 * sizeof(double));
    if (!gm)
        return CR_ERR_NOMEM;
    double Pref = 0.0, gref = 0.0;
    for (size_t q = 0; q < e->nmem; q++) {
        const member *c = &e->mem[q];
        gm[2 * q] = gamma_of(m, e, c, 0);
        gm[2 * q + 1] = gamma_of(m, e, c, 1);
        if (c->contact == e->info.reference) {
            Pref = c->q1 - c->q0;
            gref = gm[2 * q];
            e->info.reference_record = nr;
        }
        nr += (size_t)c->unilateral;
    }
    e->rec = calloc(nr ? nr : 1, sizeof(cr_contact_record));
    e->vec = malloc((nr ? nr : 1) * dim * sizeof(double));
    e->nrm = malloc((nr ? nr : 1) * dim * sizeof(double));
    if (!e->rec || !e->vec || !e->nrm) {
        free(gm);
        return CR_ERR_NOMEM;
    }
    size_t r = 0;
    for (size_t q = 0; q < e->nmem; q++) {
        const member *c = &e->mem[q];
        if (!c->unilateral)
            continue;
        fill_record(&e->rec[r], c, gm[2 * q], gm[2 * q + 1], Pref,
                    CR_MONITOR_REST_FRACTION * fabs(gref));
        for (size_t d = 0; d < dim; d++) {
            e->vec[r * dim + d] = c->v1[d] - c->v0[d];
            e->nrm[r * dim + d] = c->n[d];
        }
        r++;
    }
    e->info.contact_count = nr;
    free(gm);
    return CR_OK;
}

static double dot_u(const double *u, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++)
        s += u[d] * u[d];
    return s;
}

/* Each listed body's rigid body, and the carriers' J, centre and (V, ω) at
 * joining (e->b sorted). */
static int keep_rigid(episode *e)
{
    size_t nb = e->nb ? e->nb : 1;
    e->rb = malloc(nb * sizeof(long));
    e->rbJ = calloc(nb, sizeof(double));
    e->rbX = calloc(2 * nb, sizeof(double));
    e->rbu = calloc(3 * nb, sizeof(double));
    e->rbu1 = calloc(3 * nb, sizeof(double));
    if (!e->rb || !e->rbJ || !e->rbX || !e->rbu || !e->rbu1)
        return CR_ERR_NOMEM;
    for (size_t q = 0; q < e->nb; q++) {
        const gbody *g = &e->b[q];
        e->rb[q] = g->fixed ? -1 : g->rigid;
        if (g->rigid < 0 || !g->carries)
            continue;
        e->rbJ[q] = g->J;
        memcpy(e->rbX + 2 * q, g->X0, 2 * sizeof(double));
        memcpy(e->rbu + 3 * q, g->V0, 2 * sizeof(double));
        e->rbu[3 * q + 2] = g->w0;
        memcpy(e->rbu1 + 3 * q, g->V1, 2 * sizeof(double));
        e->rbu1[3 * q + 2] = g->w1;
    }
    return CR_OK;
}

/* Bodies (sorted), masses, u⁻ and u⁺; T⁻ and T⁺ of the moving ones. */
static int build_bodies(cr_monitor *m, episode *e)
{
    size_t dim = (size_t)m->dim, nb = e->nb;
    if (!bodies_sorted(e))
        qsort(e->b, nb, sizeof(gbody), cmp_body);
    e->bodies = malloc((nb ? nb : 1) * sizeof(size_t));
    e->mass = malloc((nb ? nb : 1) * sizeof(double));
    e->ub = calloc((nb ? nb : 1) * dim, sizeof(double));
    e->ua = calloc((nb ? nb : 1) * dim, sizeof(double));
    e->xb = calloc((nb ? nb : 1) * dim, sizeof(double));
    e->xa = calloc((nb ? nb : 1) * dim, sizeof(double));
    e->Tb = m->rigid ? malloc((nb ? nb : 1) * 2 * sizeof(double)) : NULL;
    if (!e->bodies || !e->mass || !e->ub || !e->ua || !e->xb || !e->xa || (m->rigid && !e->Tb))
        return CR_ERR_NOMEM;
    double T0 = 0.0, T1 = 0.0;
    for (size_t q = 0; q < nb; q++) {
        const gbody *g = &e->b[q];
        e->bodies[q] = g->body;
        e->mass[q] = m->mass[g->body];
        for (size_t d = 0; d < dim; d++) {
            e->xb[q * dim + d] = g->x0[d];
            e->xa[q * dim + d] = g->x1[d];
        }
        for (size_t d = 0; d < dim && !g->fixed; d++) {
            e->ub[q * dim + d] = g->u0[d];
            e->ua[q * dim + d] = g->u1[d];
            if (g->rigid >= 0)
                continue; /* its body's energy, once */
            T0 += 0.5 * e->mass[q] * g->u0[d] * g->u0[d];
            T1 += 0.5 * e->mass[q] * g->u1[d] * g->u1[d];
        }
        if (g->rigid >= 0 && g->carries) {
            T0 += g->T0;
            T1 += g->T1;
        }
        if (e->Tb) /* the rigid body's energy on its carrier, ½ m u² for a disc */
            for (int a = 0; a < 2; a++)
                e->Tb[2 * q + (size_t)a] =
                    g->fixed        ? 0.0
                    : g->rigid >= 0 ? (g->carries ? (a ? g->T1 : g->T0) : 0.0)
                                    : 0.5 * e->mass[q] * dot_u(a ? g->u1 : g->u0, m->dim);
    }
    e->info.body_count = nb;
    e->info.T_minus = T0;
    e->info.T_plus = T1;
    return m->rigid ? keep_rigid(e) : CR_OK;
}

/* Frees the group's bodies and contacts for later episodes. */
static void release(cr_monitor *m, episode *e)
{
    for (size_t q = 0; q < e->nb; q++)
        if (!e->b[q].fixed && m->owner[e->b[q].body] == e)
            m->owner[e->b[q].body] = NULL;
    for (size_t q = 0; q < e->nmem; q++)
        if (m->mem_ep[e->mem[q].contact] == e)
            m->mem_ep[e->mem[q].contact] = NULL;
}

/* Ends an episode on its snapshot: records, bodies, energies. */
static int finalize(cr_monitor *m, episode *e, int complete)
{
    double W = field_work(m, e);
    /* γ reads the per-body data through owner/bidx: before sorting */
    if (build_records(m, e) != CR_OK)
        return nomem(m);
    release(m, e);
    if (build_bodies(m, e) != CR_OK || (e->rb && keep_configuration(m, e) != CR_OK))
        return nomem(m);
    /* events after the state the episode ended on (a group held for the
     * settling time keeps ringing) are not the episode's */
    const cr_event *ev = cr_system_events(m->sys);
    while (e->nev > 0 && ev[e->ev[e->nev - 1]].t > e->t1)
        e->nev--;
    e->info.t_end = e->t1;
    e->info.complete = complete;
    e->info.event_count = e->nev;
    e->info.field_work = W;
    e->info.dissipated = e->info.T_minus - e->info.T_plus + W;
    e->info.kappa = nan_div(e->info.T_plus - W, e->info.T_minus);
    e->active = 0;
    e->pending = 0;
    free(e->b);
    free(e->mem);
    e->b = NULL;
    e->mem = NULL;
    e->nmem = 0;
    drop_from(m->act, &m->nact, e);
    return CR_OK;
}

/* ---- listeners ---------------------------------------------------------------- */

/* Contacts touching and already approaching when the run starts (pool contacts
 * exist from the t = 0 output on) open an episode at once. */
static int first_output(cr_monitor *m)
{
    m->started = 1;
    if (ensure_contacts(m) != CR_OK)
        return CR_ERR_NOMEM;
    size_t nc = cr_system_contact_count(m->sys);
    for (size_t k = 0; k < nc; k++) {
        cr_contact_view w;
        if (m->mem_ep[k] || cr_system_get_contact(m->sys, k, &w) != CR_OK)
            continue;
        if (w.unilateral && w.state != CR_CONTACT_OPEN && w.rate > m->v_start &&
            !start_episode(m, k, &w))
            return CR_ERR_NOMEM;
    }
    return CR_OK;
}

/* Where the engine does not locate force maxima (cr_system_locates_force_peaks:
 * the rigid engines), peak forces are also sampled at outputs between the
 * events. */
static void sample_forces(cr_monitor *m)
{
    if (cr_system_locates_force_peaks(m->sys))
        return;
    double t = cr_system_get_time(m->sys);
    for (size_t k = 0; k < m->nact; k++) {
        episode *e = m->act[k];
        for (size_t q = 0; q < e->nmem && !e->pending; q++) {
            cr_contact_view w;
            if (e->mem[q].unilateral &&
                cr_system_get_contact(m->sys, e->mem[q].contact, &w) == CR_OK &&
                w.force > e->mem[q].peak_f) {
                e->mem[q].peak_f = w.force;
                e->mem[q].peak_t = t;
            }
        }
    }
}

static int on_output(const cr_system *sys, void *user)
{
    cr_monitor *m = user;
    (void)sys;
    m->fresh = 0;
    int rc = m->started ? CR_OK : first_output(m);
    if (rc == CR_OK) {
        sample_forces(m);
        rc = expire_pending(m);
    }
    if (rc == CR_OK)
        rc = check_ends(m, 1);
    return rc == CR_ERR_NOMEM ? nomem(m) : rc;
}

static int take_event(cr_monitor *m, size_t k, const cr_event *ev)
{
    if (ev->kind == CR_EVENT_SWING_EXTREME) /* a ball's, in free flight: no episode */
        return CR_OK;
    if (ev->contact >= m->ccap || !m->mem_ep[ev->contact]) {
        if (ev->kind != CR_EVENT_CLOSE)
            return CR_OK;
        int rc = on_closing(m, ev->contact);
        if (rc != CR_OK || !m->mem_ep[ev->contact])
            return rc;
    }
    episode *e = m->mem_ep[ev->contact];
    if (ev->kind == CR_EVENT_CLOSE)
        e->pending = 0; /* touched again within the settling time: same episode */
    if (grow((void **)&e->ev, &e->evcap, e->nev + 1, sizeof(size_t)) != CR_OK)
        return CR_ERR_NOMEM;
    e->ev[e->nev++] = k;
    step_phase(&e->mem[m->mem_idx[ev->contact]], ev);
    return CR_OK;
}

static int on_events(const cr_system *sys, size_t first, void *user)
{
    cr_monitor *m = user;
    (void)sys;
    m->fresh = 0;
    const cr_event *ev = cr_system_events(m->sys);
    size_t n = cr_system_event_count(m->sys);
    int rc = ensure_contacts(m);
    if (rc == CR_OK)
        rc = expire_pending(m);
    for (size_t k = first; k < n && rc == CR_OK; k++)
        rc = take_event(m, k, &ev[k]);
    if (rc == CR_OK)
        rc = check_ends(m, 0);
    return rc == CR_ERR_NOMEM ? nomem(m) : rc;
}

/* ---- lifetime ------------------------------------------------------------------ */

void cr_monitor_destroy(cr_monitor *m)
{
    if (!m)
        return;
    if (m->sys)
        cr_system_remove_listeners(m->sys, m);
    for (size_t k = 0; k < m->nep; k++)
        free_episode(m->ep[k]);
    free(m->ep);
    free(m->act);
    free(m->mass);
    free(m->rigid);
    free(m->v);
    free(m->x);
    free(m->owner);
    free(m->bidx);
    free(m->mem_ep);
    free(m->mem_idx);
    cr_collisions_free(m->coll);
    free(m);
}

/* Which rigid body each disc belongs to (models with clumps only). */
static int rigid_map(cr_monitor *m)
{
    size_t nr = cr_system_rotating_body_count(m->sys);
    if (nr == 0)
        return CR_OK;
    m->rigid = malloc((m->nbody ? m->nbody : 1) * sizeof(long));
    if (!m->rigid)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < m->nbody; i++)
        m->rigid[i] = -1;
    for (size_t k = 0; k < nr; k++) {
        cr_rotating_body b;
        if (cr_system_rotating_body(m->sys, k, &b) != CR_OK || b.first + b.count > m->nbody)
            return CR_ERR_INVALID;
        for (size_t j = b.first; j < b.first + b.count; j++)
            m->rigid[j] = (long)k;
    }
    return CR_OK;
}

cr_monitor *cr_monitor_create(cr_system *sys)
{
    if (!sys)
        return NULL;
    cr_monitor *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->sys = sys;
    m->dim = cr_system_dimension(sys);
    m->nbody = cr_system_body_count(sys);
    size_t nb = m->nbody ? m->nbody : 1, dim = (size_t)m->dim;
    m->mass = malloc(nb * sizeof(double));
    m->v = malloc(nb * dim * sizeof(double));
    m->x = malloc(nb * dim * sizeof(double));
    m->owner = calloc(nb, sizeof(episode *));
    m->bidx = calloc(nb, sizeof(size_t));
    if (!m->mass || !m->v || !m->x || !m->owner || !m->bidx || m->dim < 1 || m->dim > 3 ||
        cr_system_add_event_listener(sys, on_events, m) != CR_OK ||
        cr_system_add_output_listener(sys, on_output, m) != CR_OK) {
        cr_monitor_destroy(m);
        return NULL;
    }
    cr_system_get_masses(sys, m->mass);
    if (rigid_map(m) != CR_OK) {
        cr_monitor_destroy(m);
        return NULL;
    }
    m->settle = cr_system_settle_time(sys);
    double V = 0.0;
    cr_system_get_scales(sys, NULL, &V, NULL);
    m->v_start = CR_MONITOR_START_FRACTION * V;
    return m;
}

/* Collisions from the finished episodes (src/monitor/collisions.c). */
static int build_collisions(cr_monitor *m)
{
    cr_collisions_free(m->coll);
    m->coll = cr_collisions_build(m, m->nbody, m->dim, m->coll_window);
    return m->coll ? CR_OK : nomem(m);
}

const cr_collision_set *cr_monitor_collision_set(const cr_monitor *m)
{
    return m ? m->coll : NULL;
}

int cr_monitor_set_collision_window(cr_monitor *m, double window)
{
    CR_CHECK(m, NULL, CR_ERR_INVALID);
    CR_CHECK(!isnan(window), m->err, CR_ERR_INVALID);
    m->coll_window = window;
    return m->coll ? build_collisions(m) : CR_OK;
}

int cr_monitor_finish(cr_monitor *m)
{
    CR_CHECK(m, NULL, CR_ERR_INVALID);
    m->fresh = 0;
    while (m->nact > 0) {
        episode *e = m->act[0];
        int complete = e->pending;
        if (!e->pending)
            snapshot(m, e);
        int rc = finalize(m, e, complete);
        if (rc != CR_OK)
            return rc;
    }
    return build_collisions(m);
}

const char *cr_monitor_last_error(const cr_monitor *m)
{
    return m ? m->err : "no monitor";
}

/* ---- getters -------------------------------------------------------------------- */

size_t cr_monitor_open_count(const cr_monitor *m)
{
    return m ? m->nact : 0;
}

size_t cr_monitor_episode_count(const cr_monitor *m)
{
    return m ? m->nep : 0;
}

static const episode *done_episode(const cr_monitor *m, size_t k)
{
    return m && k < m->nep && !m->ep[k]->active ? m->ep[k] : NULL;
}

int cr_monitor_get_episode(const cr_monitor *m, size_t k, cr_episode_info *info)
{
    const episode *e = done_episode(m, k);
    if (!e || !info)
        return CR_ERR_INVALID;
    *info = e->info;
    return CR_OK;
}

static void set_n(size_t *n, size_t v)
{
    if (n)
        *n = v;
}

const size_t *cr_monitor_bodies(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.body_count : 0);
    return e ? e->bodies : NULL;
}

const double *cr_monitor_masses(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.body_count : 0);
    return e ? e->mass : NULL;
}

const double *cr_monitor_velocities(const cr_monitor *m, size_t k, int after, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.body_count : 0);
    return e ? (after ? e->ua : e->ub) : NULL;
}

const double *cr_monitor_body_energies(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e && e->Tb ? e->info.body_count : 0);
    return e ? e->Tb : NULL;
}

const double *cr_monitor_positions(const cr_monitor *m, size_t k, int after, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.body_count : 0);
    return e ? (after ? e->xa : e->xb) : NULL;
}

const cr_contact_record *cr_monitor_contacts(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.contact_count : 0);
    return e ? e->rec : NULL;
}

const double *cr_monitor_vector_impulses(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.contact_count : 0);
    return e ? e->vec : NULL;
}

const double *cr_monitor_normals(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->info.contact_count : 0);
    return e ? e->nrm : NULL;
}

const size_t *cr_monitor_events(const cr_monitor *m, size_t k, size_t *n)
{
    const episode *e = done_episode(m, k);
    set_n(n, e ? e->nev : 0);
    return e ? e->ev : NULL;
}

int cr_monitor_episode_data(const cr_monitor *m, size_t k, cr_episode_data *d)
{
    const episode *e = done_episode(m, k);
    if (!e || !d)
        return CR_ERR_INVALID;
    *d = (cr_episode_data){e->info, m->dim, e->bodies, e->mass,  e->ub,  e->ua,  e->rec,
                           e->nrm,  e->vec, e->ndof,   e->dmass, e->du0, e->du1, e->dW};
    return CR_OK;
}

/* Index of a body in the episode's sorted list, or nb. */
static size_t find_body(const episode *e, long body)
{
    if (body < 0)
        return e->info.body_count;
    size_t lo = 0, hi = e->info.body_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->bodies[mid] < (size_t)body)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->info.body_count && e->bodies[lo] == (size_t)body ? lo : e->info.body_count;
}

int cr_monitor_alpha_matrix(const cr_monitor *m, size_t k, double *alpha)
{
    const episode *e = done_episode(m, k);
    CR_CHECK(e && alpha, NULL, CR_ERR_INVALID);
    size_t n = e->info.contact_count;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            alpha[i * n + j] = nan_div(e->rec[j].impulse, e->rec[i].impulse);
    return CR_OK;
}

/* wᵢᵀM⁻¹wⱼ from the records' bodies and normals (walls and fixed bodies carry
 * no dofs). */
static double kinetic_product(const cr_monitor *m, const episode *e, size_t i, size_t j)
{
    const cr_contact_record *ri = &e->rec[i], *rj = &e->rec[j];
    size_t dim = (size_t)m->dim;
    double s = 0.0;
    long bi[2] = {(long)ri->body_a, ri->body_b}, bj[2] = {(long)rj->body_a, rj->body_b};
    double si[2] = {ri->body_b < 0 ? 1.0 : -1.0, 1.0}, sj[2] = {rj->body_b < 0 ? 1.0 : -1.0, 1.0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            if (bi[a] < 0 || bi[a] != bj[b] || isinf(m->mass[bi[a]]))
                continue;
            double dot = 0.0;
            for (size_t d = 0; d < dim; d++)
                dot += e->nrm[i * dim + d] * e->nrm[j * dim + d];
            s += si[a] * sj[b] * dot / m->mass[bi[a]];
        }
    return s;
}

static int rigid_cosines(const cr_monitor *m, size_t k, size_t nr, double *cosines);

int cr_monitor_kinetic_cosines(const cr_monitor *m, size_t k, double *cosines)
{
    const episode *e = done_episode(m, k);
    CR_CHECK(e && cosines, NULL, CR_ERR_INVALID);
    size_t n = e->info.contact_count;
    if (e->rb) /* lever arms: from the body-level configuration */
        return rigid_cosines(m, k, n, cosines);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            cosines[i * n + j] =
                nan_div(kinetic_product(m, e, i, j),
                        sqrt(kinetic_product(m, e, i, i) * kinetic_product(m, e, j, j)));
    return CR_OK;
}

/* The carrier of listed body q's rigid body (q itself for a disc or a ball). */
static size_t carrier_of(const episode *e, size_t q)
{
    if (!e->rb || e->rb[q] < 0)
        return q;
    for (size_t p = 0; p < e->info.body_count; p++)
        if (e->rb[p] == e->rb[q] && e->rbJ[p] > 0.0)
            return p;
    return q;
}

/* The impact configuration's dofs: dim per moving ball or disc, (v, ω) per
 * rigid body on its carrier (−1: no dofs of its own). @return n. */
static size_t impact_dofs(const episode *e, size_t dim, size_t *dof)
{
    size_t n = 0, nb = e->info.body_count;
    for (size_t q = 0; q < nb; q++) {
        int rigid = e->rb && e->rb[q] >= 0;
        int own = !isinf(e->mass[q]) && (!rigid || carrier_of(e, q) == q);
        dof[q] = own ? n : (size_t)-1;
        n += own ? (rigid ? 3 : dim) : 0;
    }
    return n;
}

/* M's diagonal and u⁻: m per translation, J and ω at joining for a rigid body. */
static void impact_mass_velocity(const episode *e, size_t dim, const size_t *dof, double *mass,
                                 double *u, int after)
{
    const double *ubody = after ? e->ua : e->ub, *urigid = after ? e->rbu1 : e->rbu;
    for (size_t q = 0; q < e->info.body_count; q++) {
        if (dof[q] == (size_t)-1)
            continue;
        int rigid = e->rb && e->rb[q] >= 0;
        for (size_t d = 0; d < dim; d++) {
            mass[dof[q] + d] = e->mass[q];
            u[dof[q] + d] = rigid ? urigid[3 * q + d] : ubody[q * dim + d];
        }
        if (rigid) {
            mass[dof[q] + 2] = e->rbJ[q];
            u[dof[q] + 2] = urigid[3 * q + 2];
        }
    }
}

/* Sets s (n, r × n) of listed body q in column w: r from its body's centre to
 * the disc's centre at joining (the normal passes through it, so the contact
 * point's lever arm gives the same r × n). */
static void add_column(const episode *e, size_t dim, const size_t *dof, size_t q, double s,
                       const double *n, double *w)
{
    size_t c = q < e->info.body_count ? carrier_of(e, q) : q;
    if (c >= e->info.body_count || dof[c] == (size_t)-1)
        return;
    /* assigned, as before rigid bodies (a −0 stays −0): a record's two sides
     * are two bodies, features of one body never touch */
    for (size_t d = 0; d < dim; d++)
        w[dof[c] + d] = s * n[d];
    if (e->rb && e->rb[q] >= 0) {
        double rx = e->xb[q * dim] - e->rbX[2 * c], ry = e->xb[q * dim + 1] - e->rbX[2 * c + 1];
        w[dof[c] + 2] = s * (rx * n[1] - ry * n[0]);
    }
}

/* Record r's column of W (n values). */
static void impact_column(const episode *e, size_t dim, const size_t *dof, size_t n, size_t r,
                          double *w)
{
    const cr_contact_record *rec = &e->rec[r];
    memset(w, 0, n * sizeof(double));
    size_t qa = find_body(e, (long)rec->body_a), qb = find_body(e, rec->body_b);
    const double *nr = e->nrm + r * dim;
    if (qa < e->info.body_count)
        add_column(e, dim, dof, qa, rec->body_b < 0 ? 1.0 : -1.0, nr, w);
    if (qb < e->info.body_count)
        add_column(e, dim, dof, qb, 1.0, nr, w);
}

cr_impact *cr_monitor_impact(const cr_monitor *m, size_t k)
{
    const episode *e = done_episode(m, k);
    if (!e)
        return NULL;
    size_t dim = (size_t)m->dim, nb = e->info.body_count, nr = e->info.contact_count, n = 0;
    size_t *dof = malloc((nb ? nb : 1) * sizeof(size_t));
    if (dof)
        n = impact_dofs(e, dim, dof);
    double *mass = malloc((n ? n : 1) * sizeof(double)), *u = malloc((n ? n : 1) * sizeof(double));
    double *w = malloc((n ? n : 1) * sizeof(double));
    cr_impact *imp = dof && mass && u && w && n ? cr_impact_create(n, nr) : NULL;
    if (!imp)
        goto done;
    impact_mass_velocity(e, dim, dof, mass, u, 0);
    cr_impact_set_mass_diagonal(imp, mass);
    cr_impact_set_velocity(imp, u);
    for (size_t r = 0; r < nr; r++) {
        impact_column(e, dim, dof, n, r, w);
        cr_impact_set_gradient(imp, r, w);
    }
done:
    free(dof);
    free(mass);
    free(u);
    free(w);
    return imp;
}

/* The cosines of a model with rigid bodies from cr_monitor_impact's (M, W). */
static int rigid_cosines(const cr_monitor *m, size_t k, size_t nr, double *cosines)
{
    cr_impact *imp = cr_monitor_impact(m, k);
    if (!imp && nr > 0)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nr; j++)
            cosines[i * nr + j] = cr_impact_kinetic_cosine(imp, i, j);
    cr_impact_destroy(imp);
    return CR_OK;
}

/* Keeps the body-level configuration of an episode with rigid bodies (after
 * its records and bodies): what cr_monitor_episode_data hands the comparator. */
static int keep_configuration(const cr_monitor *m, episode *e)
{
    size_t dim = (size_t)m->dim, nb = e->info.body_count, nr = e->info.contact_count;
    size_t *dof = malloc((nb ? nb : 1) * sizeof(size_t));
    if (!dof)
        return CR_ERR_NOMEM;
    size_t n = impact_dofs(e, dim, dof), nn = n ? n : 1;
    e->dmass = malloc(nn * sizeof(double));
    e->du0 = malloc(nn * sizeof(double));
    e->du1 = malloc(nn * sizeof(double));
    e->dW = malloc((nr ? nr : 1) * nn * sizeof(double));
    int rc = e->dmass && e->du0 && e->du1 && e->dW ? CR_OK : CR_ERR_NOMEM;
    if (rc == CR_OK) {
        e->ndof = n;
        impact_mass_velocity(e, dim, dof, e->dmass, e->du0, 0);
        impact_mass_velocity(e, dim, dof, e->dmass, e->du1, 1);
        for (size_t r = 0; r < nr; r++)
            impact_column(e, dim, dof, n, r, e->dW + r * n);
    }
    free(dof);
    return rc;
}
