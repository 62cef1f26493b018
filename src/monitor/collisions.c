/*
 * Collisions above episodes: the episodes that share moving bodies within the
 * collision window, taken transitively (union-find over each body's
 * consecutive episodes). Built once from the monitor's finished episodes,
 * through its public getters only, so the rule knows nothing of the engines.
 *
 * The window: τ = CR_MONITOR_COLLISION_FRACTION · T_f, T_f the longest time a
 * moving body spends between two of its episodes. In a pendulum cradle the
 * re-contacts of one swing are milliseconds apart and the swings half a
 * period (0.45 s for 20 cm strings), so T_f is the half period and τ a
 * quarter of it; in a pool a disc's flight to a wall is T_f. Cost: O(E + B + R)
 * for E episodes holding B bodies and R records in all.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor-priv.h"

typedef struct {
    cr_collision_info info;
    size_t *episodes, *bodies;
    double *u0, *u1, *vec;
    cr_collision_record *rec;
} collision;

struct cr_collision_set {
    double window, free_flight;
    size_t n;
    collision *c;
};

static size_t find(size_t *parent, size_t k)
{
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

static void unite(size_t *parent, size_t a, size_t b)
{
    a = find(parent, a);
    b = find(parent, b);
    /* the older episode is the root: collisions come out in episode order */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static void free_collision(collision *c)
{
    free(c->episodes);
    free(c->bodies);
    free(c->u0);
    free(c->u1);
    free(c->vec);
    free(c->rec);
}

void cr_collisions_free(cr_collision_set *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->n; k++)
        free_collision(&s->c[k]);
    free(s->c);
    free(s);
}

/* The links: each body's consecutive episodes, with the gap between them.
 * @return the longest gap (T_f) through *ff; link pairs into @p la, @p lb, @p lg. */
static size_t body_links(const cr_monitor *mon, size_t ne, size_t nbody, size_t *la, size_t *lb,
                         double *lg, double *ff)
{
    size_t *last = malloc((nbody ? nbody : 1) * sizeof(size_t)), nl = 0;
    if (!last)
        return (size_t)-1;
    for (size_t b = 0; b < nbody; b++)
        last[b] = (size_t)-1;
    *ff = 0.0;
    for (size_t k = 0; k < ne; k++) {
        cr_episode_info in;
        size_t nb;
        const size_t *bodies = cr_monitor_bodies(mon, k, &nb);
        const double *mass = cr_monitor_masses(mon, k, &nb);
        if (cr_monitor_get_episode(mon, k, &in) != CR_OK)
            continue;
        for (size_t q = 0; q < nb; q++) {
            size_t b = bodies[q];
            if (b >= nbody || isinf(mass[q]))
                continue; /* a fixed body transmits nothing */
            if (last[b] != (size_t)-1) {
                cr_episode_info prev;
                cr_monitor_get_episode(mon, last[b], &prev);
                la[nl] = last[b];
                lb[nl] = k;
                lg[nl] = in.t_start - prev.t_end;
                *ff = fmax(*ff, lg[nl]);
                nl++;
            }
            last[b] = k;
        }
    }
    free(last);
    return nl;
}

/* Per-body state while a collision is assembled (indexed by body number). */
typedef struct {
    size_t *slot;  /* position in the collision's body list, or -1 */
    size_t *first; /* first and last episode of the body in the collision */
    size_t *lastk;
    size_t *firstj; /* the body's position in those episodes' body lists (a
                     * search per body was 10¹⁰ steps in the one episode of a
                     * resting 10⁵-bead column) */
    size_t *lastj;
    size_t *cslot; /* position of a contact in the collision's records, or -1 */
    size_t nc;
} scratch;

static int add_contact_slot(scratch *s, size_t contact)
{
    if (contact < s->nc)
        return CR_OK;
    size_t n = s->nc ? s->nc : 64;
    while (n <= contact)
        n *= 2;
    size_t *p = realloc(s->cslot, n * sizeof(size_t));
    if (!p)
        return CR_ERR_NOMEM;
    for (size_t k = s->nc; k < n; k++)
        p[k] = (size_t)-1;
    s->cslot = p;
    s->nc = n;
    return CR_OK;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int sizes_sorted(const size_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] < v[i - 1])
            return 0;
    return 1;
}

/* Bodies of collision @p c (its episodes set), sorted, with u⁻ from each
 * body's first episode and u⁺ from its last; T⁻, T⁺ and the fields' work in
 * the free flights between a body's episodes. */
static int gather_bodies(const cr_monitor *mon, collision *c, int dim, scratch *s, size_t nbody)
{
    size_t d = (size_t)dim, nb = 0, cap = 0, nt;
    double flight = 0.0;
    for (size_t q = 0; q < c->info.episode_count; q++) {
        size_t k = c->episodes[q], n;
        const size_t *bodies = cr_monitor_bodies(mon, k, &n);
        const double *mass = cr_monitor_masses(mon, k, &n);
        const double *ub = cr_monitor_velocities(mon, k, 0, &n);
        for (size_t i = 0; i < n; i++) {
            size_t b = bodies[i];
            if (b >= nbody)
                continue;
            if (s->slot[b] == (size_t)-1) {
                if (nb == cap) {
                    cap = cap ? 2 * cap : 16;
                    size_t *p = realloc(c->bodies, cap * sizeof(size_t));
                    if (!p)
                        return CR_ERR_NOMEM;
                    c->bodies = p;
                }
                s->slot[b] = nb;
                s->first[b] = k;
                s->firstj[b] = i;
                c->bodies[nb++] = b;
            } else if (isfinite(mass[i]) && cr_monitor_body_energies(mon, k, &nt)) {
                /* rigid bodies: their energies, rotation included */
                const double *tk = cr_monitor_body_energies(mon, k, &nt);
                const double *tp = cr_monitor_body_energies(mon, s->lastk[b], &nt);
                flight += tk[2 * i] - tp[2 * s->lastj[b] + 1];
            } else if (isfinite(mass[i])) {
                /* free flight since the body's previous episode: only fields act */
                size_t p = s->lastk[b], m, j = s->lastj[b];
                const double *prev_after = cr_monitor_velocities(mon, p, 1, &m);
                for (size_t e = 0; e < d && j < m; e++)
                    flight += 0.5 * mass[i] *
                              (ub[i * d + e] * ub[i * d + e] -
                               prev_after[j * d + e] * prev_after[j * d + e]);
            }
            s->lastk[b] = k;
            s->lastj[b] = i;
        }
    }
    if (!sizes_sorted(c->bodies, nb)) /* one episode's are */
        qsort(c->bodies, nb, sizeof(size_t), cmp_size);
    c->info.body_count = nb;
    c->u0 = calloc((nb ? nb : 1) * d, sizeof(double));
    c->u1 = calloc((nb ? nb : 1) * d, sizeof(double));
    if (!c->u0 || !c->u1)
        return CR_ERR_NOMEM;
    double T0 = 0.0, T1 = 0.0;
    for (size_t q = 0; q < nb; q++) {
        size_t b = c->bodies[q];
        for (int after = 0; after < 2; after++) {
            size_t k = after ? s->lastk[b] : s->first[b], m;
            const double *mass = cr_monitor_masses(mon, k, &m);
            const double *u = cr_monitor_velocities(mon, k, after, &m);
            size_t j = after ? s->lastj[b] : s->firstj[b];
            double *dst = after ? c->u1 : c->u0, T = 0.0;
            for (size_t e = 0; e < d && j < m; e++) {
                dst[q * d + e] = u[j * d + e];
                T += isfinite(mass[j]) ? 0.5 * mass[j] * u[j * d + e] * u[j * d + e] : 0.0;
            }
            const double *Tb = cr_monitor_body_energies(mon, k, &nt);
            if (Tb && j < nt) /* rigid bodies: rotation included, each body once */
                T = Tb[2 * j + (size_t)after];
            *(after ? &T1 : &T0) += T;
        }
        s->slot[b] = (size_t)-1;
    }
    c->info.T_minus = T0;
    c->info.T_plus = T1;
    c->info.field_work += flight;
    return CR_OK;
}

/* A record with its vector impulse, while summing. */
typedef struct {
    cr_collision_record r;
    double v[3];
} total;

static int cmp_total(const void *a, const void *b)
{
    const total *x = a, *y = b;
    return x->r.contact < y->r.contact ? -1 : x->r.contact > y->r.contact;
}

/* The records of every episode of @p c, summed per contact, by contact number. */
static int gather_records(const cr_monitor *mon, collision *c, int dim, scratch *s)
{
    size_t d = (size_t)dim, nr = 0, cap = 0;
    total *t = NULL;
    for (size_t q = 0; q < c->info.episode_count; q++) {
        size_t k = c->episodes[q], n, nv;
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &n);
        const double *vec = cr_monitor_vector_impulses(mon, k, &nv);
        for (size_t i = 0; i < n; i++) {
            if (add_contact_slot(s, r[i].contact) != CR_OK)
                goto nomem;
            size_t at = s->cslot[r[i].contact];
            if (at == (size_t)-1) {
                if (nr == cap) {
                    cap = cap ? 2 * cap : 16;
                    total *p = realloc(t, cap * sizeof(*p));
                    if (!p)
                        goto nomem;
                    t = p;
                }
                at = s->cslot[r[i].contact] = nr++;
                memset(&t[at], 0, sizeof(t[at]));
                t[at].r.contact = r[i].contact;
                t[at].r.body_a = r[i].body_a;
                t[at].r.body_b = r[i].body_b;
            }
            t[at].r.impulse += r[i].impulse;
            t[at].r.compression += r[i].compression;
            t[at].r.expansion += r[i].expansion;
            t[at].r.episode_count++;
            for (size_t e = 0; e < d && vec && i < nv; e++)
                t[at].v[e] += vec[i * d + e];
        }
    }
    int sorted = 1; /* one episode's records are */
    for (size_t i = 0; i < nr; i++) {
        s->cslot[t[i].r.contact] = (size_t)-1;
        sorted &= i == 0 || t[i].r.contact > t[i - 1].r.contact;
    }
    if (!sorted)
        qsort(t, nr, sizeof(*t), cmp_total);
    c->rec = malloc((nr ? nr : 1) * sizeof(*c->rec));
    c->vec = malloc((nr ? nr : 1) * d * sizeof(double));
    if (!c->rec || !c->vec)
        goto nomem;
    double Pref = NAN;
    for (size_t i = 0; i < nr; i++) {
        c->rec[i] = t[i].r;
        memcpy(c->vec + i * d, t[i].v, d * sizeof(double));
        if (t[i].r.contact == c->info.reference) {
            c->info.reference_record = i;
            Pref = t[i].r.impulse;
        }
    }
    for (size_t i = 0; i < nr; i++)
        c->rec[i].alpha = Pref != 0.0 ? c->rec[i].impulse / Pref : NAN;
    c->info.contact_count = nr;
    free(t);
    return CR_OK;
nomem:
    for (size_t i = 0; i < nr; i++)
        if (t[i].r.contact < s->nc)
            s->cslot[t[i].r.contact] = (size_t)-1;
    free(t);
    return CR_ERR_NOMEM;
}

static int build_one(const cr_monitor *mon, collision *c, int dim, scratch *s, size_t nbody)
{
    c->info.t_start = INFINITY;
    c->info.t_end = -INFINITY;
    c->info.complete = 1;
    c->info.reference_record = 0;
    for (size_t q = 0; q < c->info.episode_count; q++) {
        cr_episode_info in;
        cr_monitor_get_episode(mon, c->episodes[q], &in);
        if (q == 0)
            c->info.reference = in.reference;
        c->info.t_start = fmin(c->info.t_start, in.t_start);
        c->info.t_end = fmax(c->info.t_end, in.t_end);
        c->info.field_work += in.field_work;
        c->info.complete &= in.complete;
    }
    if (gather_bodies(mon, c, dim, s, nbody) != CR_OK || gather_records(mon, c, dim, s) != CR_OK)
        return CR_ERR_NOMEM;
    c->info.dissipated = c->info.T_minus - c->info.T_plus + c->info.field_work;
    c->info.kappa =
        c->info.T_minus != 0.0 ? (c->info.T_plus - c->info.field_work) / c->info.T_minus : NAN;
    return CR_OK;
}

/* The union-find components as collisions, in the order of their first episodes. */
static int split(const cr_monitor *mon, cr_collision_set *set, size_t *parent, size_t ne, int dim,
                 size_t nbody)
{
    size_t *count = calloc(ne ? ne : 1, sizeof(size_t)),
           *index = malloc((ne ? ne : 1) * sizeof(size_t));
    size_t nbytes = (nbody ? nbody : 1) * sizeof(size_t);
    scratch s = {
        malloc(nbytes), malloc(nbytes), malloc(nbytes), malloc(nbytes), malloc(nbytes), NULL, 0};
    int rc = count && index && s.slot && s.first && s.lastk && s.firstj && s.lastj ? CR_OK
                                                                                   : CR_ERR_NOMEM;
    for (size_t b = 0; rc == CR_OK && b < nbody; b++)
        s.slot[b] = (size_t)-1;
    for (size_t k = 0; rc == CR_OK && k < ne; k++) {
        size_t r = find(parent, k);
        if (r == k)
            index[k] = set->n++;
        count[index[r]]++;
    }
    set->c = rc == CR_OK ? calloc(set->n ? set->n : 1, sizeof(collision)) : NULL;
    rc = set->c ? rc : CR_ERR_NOMEM;
    for (size_t q = 0; rc == CR_OK && q < set->n; q++) {
        set->c[q].episodes = malloc((count[q] ? count[q] : 1) * sizeof(size_t));
        rc = set->c[q].episodes ? CR_OK : CR_ERR_NOMEM;
    }
    for (size_t k = 0; rc == CR_OK && k < ne; k++) {
        collision *c = &set->c[index[find(parent, k)]];
        c->episodes[c->info.episode_count++] = k;
    }
    for (size_t q = 0; rc == CR_OK && q < set->n; q++)
        rc = build_one(mon, &set->c[q], dim, &s, nbody);
    free(count), free(index), free(s.slot), free(s.first), free(s.lastk), free(s.cslot);
    free(s.firstj), free(s.lastj);
    return rc;
}

cr_collision_set *cr_collisions_build(const cr_monitor *mon, size_t nbody, int dim, double window)
{
    size_t ne = cr_monitor_episode_count(mon), links = 0;
    for (size_t k = 0; k < ne; k++) {
        size_t nb;
        cr_monitor_bodies(mon, k, &nb);
        links += nb;
    }
    cr_collision_set *set = calloc(1, sizeof(*set));
    size_t *parent = malloc((ne ? ne : 1) * sizeof(size_t));
    size_t *la = malloc((links ? links : 1) * sizeof(size_t));
    size_t *lb = malloc((links ? links : 1) * sizeof(size_t));
    double *lg = malloc((links ? links : 1) * sizeof(double));
    int rc = set && parent && la && lb && lg ? CR_OK : CR_ERR_NOMEM;
    size_t nl = rc == CR_OK ? body_links(mon, ne, nbody, la, lb, lg, &set->free_flight) : 0;
    rc = nl == (size_t)-1 ? CR_ERR_NOMEM : rc;
    if (rc == CR_OK) {
        set->window = window > 0.0 ? window : CR_MONITOR_COLLISION_FRACTION * set->free_flight;
        for (size_t k = 0; k < ne; k++)
            parent[k] = k;
        for (size_t l = 0; l < nl; l++)
            if (lg[l] <= set->window)
                unite(parent, la[l], lb[l]);
        rc = split(mon, set, parent, ne, dim, nbody);
    }
    free(parent), free(la), free(lb), free(lg);
    if (rc != CR_OK) {
        cr_collisions_free(set);
        return NULL;
    }
    return set;
}

/* ---- getters ------------------------------------------------------------------ */

static const collision *get(const cr_monitor *mon, size_t k)
{
    const cr_collision_set *s = cr_monitor_collision_set(mon);
    return s && k < s->n ? &s->c[k] : NULL;
}

static void set_n(size_t *n, size_t v)
{
    if (n)
        *n = v;
}

double cr_monitor_collision_window(const cr_monitor *mon, double *free_flight)
{
    const cr_collision_set *s = cr_monitor_collision_set(mon);
    if (free_flight)
        *free_flight = s ? s->free_flight : NAN;
    return s ? s->window : NAN;
}

size_t cr_monitor_collision_count(const cr_monitor *mon)
{
    const cr_collision_set *s = cr_monitor_collision_set(mon);
    return s ? s->n : 0;
}

int cr_monitor_get_collision(const cr_monitor *mon, size_t k, cr_collision_info *info)
{
    const collision *c = get(mon, k);
    if (!c || !info)
        return CR_ERR_INVALID;
    *info = c->info;
    return CR_OK;
}

const size_t *cr_monitor_collision_episodes(const cr_monitor *mon, size_t k, size_t *n)
{
    const collision *c = get(mon, k);
    set_n(n, c ? c->info.episode_count : 0);
    return c ? c->episodes : NULL;
}

const size_t *cr_monitor_collision_bodies(const cr_monitor *mon, size_t k, size_t *n)
{
    const collision *c = get(mon, k);
    set_n(n, c ? c->info.body_count : 0);
    return c ? c->bodies : NULL;
}

/* Its mass from the first episode of the collision that holds it (a wall or
 * floor shared by two distant impacts moves in neither). */
int cr_monitor_collision_moves(const cr_monitor *mon, size_t k, size_t body)
{
    size_t ne = 0;
    const size_t *eps = cr_monitor_collision_episodes(mon, k, &ne);
    for (size_t e = 0; eps && e < ne; e++) {
        size_t n = 0;
        const size_t *bodies = cr_monitor_bodies(mon, eps[e], &n);
        const double *mass = cr_monitor_masses(mon, eps[e], &n);
        for (size_t q = 0; bodies && mass && q < n; q++)
            if (bodies[q] == body)
                return isfinite(mass[q]);
    }
    return 0;
}

const double *cr_monitor_collision_velocities(const cr_monitor *mon, size_t k, int after, size_t *n)
{
    const collision *c = get(mon, k);
    set_n(n, c ? c->info.body_count : 0);
    return c ? (after ? c->u1 : c->u0) : NULL;
}

const cr_collision_record *cr_monitor_collision_contacts(const cr_monitor *mon, size_t k, size_t *n)
{
    const collision *c = get(mon, k);
    set_n(n, c ? c->info.contact_count : 0);
    return c ? c->rec : NULL;
}

const double *cr_monitor_collision_vector_impulses(const cr_monitor *mon, size_t k, size_t *n)
{
    const collision *c = get(mon, k);
    set_n(n, c ? c->info.contact_count : 0);
    return c ? c->vec : NULL;
}
