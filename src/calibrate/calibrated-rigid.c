/* Rigid runs calibrated on a compliant run, collision by collision
 * (include/cradle/calibrated.h; docs/compare.md, "Rigid runs: --rigid
 * calibrated"): the mapping of each rigid impact to the compliant collision it
 * stands for, the span that gives the impact that collision's bodies, and the
 * energetic law's α and κ applied once per collision. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cradle/calibrated.h"

/* One compliant collision: time span, bodies, reference pair, κ; α per pair
 * in the calibration's alpha array (0 where the collision has no impulse). */
typedef struct {
    double t0, t1, kappa;
    size_t first, last, ref;
    int applied;
} collision;

/* What the span hook decided for the impact the provider is called next for. */
typedef struct {
    long k;               /* collision, −1: none */
    cr_mismatch_kind how; /* or −1: mapped one to one */
    int mapped;
} decision;

struct cr_calibrated_rigid {
    size_t n, pairs;
    collision *col;
    double *alpha;   /* n × pairs */
    double *scratch; /* pairs: the α handed to the law */
    double window;   /* τ of the monitor's collisions */
    decision cur;
    size_t applied;
    cr_rigid_mismatch *mis;
    size_t nmis, miscap;
};

const char *cr_mismatch_kind_name(cr_mismatch_kind kind)
{
    static const char *const names[] = {"bodies", "repeat", "none", "missed"};
    return (unsigned)kind < 4 ? names[kind] : "unknown";
}

void cr_calibrated_rigid_destroy(cr_calibrated_rigid *c)
{
    if (!c)
        return;
    free(c->col);
    free(c->alpha);
    free(c->scratch);
    free(c->mis);
    free(c);
}

/* Collision k of the monitor into c->col[k] and its α row. κ is the
 * monitor's, the fields' exact work over the collision taken out of T⁺: the
 * rigid flight after the impact does that work again over the collision's
 * span. (κ with the fields' impulse taken out of u⁺ instead, as the
 * comparator's field-corrected mode measures it, reproduces each collision's
 * u⁺ − J/m to 1e-15 V, but predicts the 25-s damped cradles worse: mean
 * |du⁺|/V 6.4-7.0 % against 1.2 % on 3 to 7 balls, energy decay off by up to
 * 6 % against 0.3 %; docs/compare.md.) */
static void read_collision(cr_calibrated_rigid *c, const cr_monitor *mon, size_t k)
{
    cr_collision_info info;
    size_t nb = 0, nr = 0;
    cr_monitor_get_collision(mon, k, &info);
    const size_t *bodies = cr_monitor_collision_bodies(mon, k, &nb);
    const cr_collision_record *rec = cr_monitor_collision_contacts(mon, k, &nr);
    collision *q = &c->col[k];
    *q = (collision){
        info.t_start,   info.t_end, info.kappa, nb ? bodies[0] : 0, nb ? bodies[nb - 1] : 0,
        info.reference, 0};
    for (size_t j = 0; j < nr; j++)
        if (rec[j].contact < c->pairs && isfinite(rec[j].alpha))
            c->alpha[k * c->pairs + rec[j].contact] = rec[j].alpha;
}

cr_calibrated_rigid *cr_calibrated_rigid_create(const cr_monitor *compliant, size_t pairs,
                                                char *msg, size_t msglen)
{
    size_t n = compliant ? cr_monitor_collision_count(compliant) : 0;
    if (!compliant || pairs == 0) {
        cr_set_msg(msg, msglen, "the compliant run has %s", !compliant ? "no monitor" : "no pairs");
        return NULL;
    }
    cr_calibrated_rigid *c = calloc(1, sizeof(*c));
    if (c) {
        c->n = n;
        c->pairs = pairs;
        c->col = calloc(n ? n : 1, sizeof(collision));
        c->alpha = calloc((n ? n : 1) * pairs, sizeof(double));
        c->scratch = calloc(pairs, sizeof(double));
    }
    if (!c || !c->col || !c->alpha || !c->scratch) {
        cr_calibrated_rigid_destroy(c);
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        read_collision(c, compliant, k);
    /* no free flight between collisions (one collision): any time, as the
     * run comparison pairs them (cradle/compare.h) */
    c->window = cr_monitor_collision_window(compliant, NULL);
    if (!(c->window > 0.0))
        c->window = INFINITY;
    return c;
}

static int overlaps(const collision *q, size_t b0, size_t b1)
{
    return q->first <= b1 && b0 <= q->last;
}

static int holds_time(const cr_calibrated_rigid *c, const collision *q, double t)
{
    return t >= q->t0 - c->window && t <= q->t1 + c->window;
}

static void note(cr_calibrated_rigid *c, double t, size_t b0, size_t b1, long k,
                 cr_mismatch_kind how)
{
    if (c->nmis == c->miscap) {
        size_t cap = c->miscap ? 2 * c->miscap : 16;
        cr_rigid_mismatch *m = realloc(c->mis, cap * sizeof(*m));
        if (!m)
            return; /* the list is a report; the run goes on */
        c->mis = m;
        c->miscap = cap;
    }
    const collision *q = k >= 0 ? &c->col[k] : NULL;
    c->mis[c->nmis++] =
        (cr_rigid_mismatch){t, b0, b1, k, q ? q->t0 : NAN, q ? q->first : 0, q ? q->last : 0, how};
}

/* The collision nearest in time that has an impulse on a pair of b0 … b1. */
static long nearest_sharing(const cr_calibrated_rigid *c, double t, size_t b0, size_t b1)
{
    long best = -1;
    for (size_t k = 0; k < c->n; k++) {
        int shares = 0;
        for (size_t p = b0; p < b1 && p < c->pairs; p++)
            shares |= c->alpha[k * c->pairs + p] > 0.0;
        if (shares && (best < 0 || fabs(c->col[k].t0 - t) < fabs(c->col[best].t0 - t)))
            best = (long)k;
    }
    return best;
}

/* The span hook: which collision the impact stands for, and its bodies. */
static void span(const cr_system *sys, double t, size_t *b0, size_t *b1, void *user)
{
    (void)sys;
    cr_calibrated_rigid *c = user;
    long fresh = -1, used = -1;
    for (size_t k = 0; k < c->n; k++) {
        const collision *q = &c->col[k];
        if (!overlaps(q, *b0, *b1) || !holds_time(c, q, t))
            continue;
        if (!q->applied && (fresh < 0 || q->t0 < c->col[fresh].t0))
            fresh = (long)k;
        if (q->applied && (used < 0 || fabs(q->t0 - t) < fabs(c->col[used].t0 - t)))
            used = (long)k;
    }
    c->cur = (decision){-1, CR_MISMATCH_NONE, 0};
    if (fresh >= 0) {
        const collision *q = &c->col[fresh];
        *b0 = *b0 < q->first ? *b0 : q->first;
        *b1 = *b1 > q->last ? *b1 : q->last;
        c->cur = (decision){fresh, CR_MISMATCH_BODIES, 1};
    } else if (used >= 0) {
        c->cur = (decision){used, CR_MISMATCH_REPEAT, 0};
    } else {
        c->cur = (decision){nearest_sharing(c, t, *b0, *b1), CR_MISMATCH_NONE, 0};
    }
}

/* The law's parameters: the collision's α over the impact's pairs, its
 * reference where the impact holds it (else the largest α), κ once per
 * collision (κ = 1 for a repeat). */
static int provide(const cr_system *sys, size_t impact, size_t first, size_t count,
                   cr_law_params *p, char *msg, size_t msglen, void *user)
{
    cr_calibrated_rigid *c = user;
    double t = cr_system_get_time(sys);
    long k = c->cur.k;
    if (k < 0) {
        cr_set_msg(msg, msglen,
                   "calibrated: rigid impact %zu (pairs %zu-%zu): no compliant collision has an "
                   "impulse on those pairs (%zu collisions)",
                   impact, first, first + count - 1, c->n);
        return CR_ERR_INVALID;
    }
    collision *q = &c->col[k];
    const double *a = c->alpha + (size_t)k * c->pairs;
    size_t ref = q->ref;
    if (first + count > c->pairs) {
        cr_set_msg(msg, msglen, "calibrated: rigid impact %zu on pairs %zu-%zu, of a chain of %zu",
                   impact, first, first + count - 1, c->pairs);
        return CR_ERR_INVALID;
    }
    if (ref < first || ref >= first + count) {
        ref = first;
        for (size_t j = 0; j < count; j++)
            if (a[first + j] > a[ref])
                ref = first + j;
    }
    for (size_t j = 0; j < count; j++)
        c->scratch[j] = first + j < c->pairs && a[ref] > 0.0 ? a[first + j] / a[ref] : 0.0;
    p->alpha = c->scratch;
    p->kappa = c->cur.how == CR_MISMATCH_REPEAT ? 1.0 : q->kappa;
    p->reference = ref - first;
    size_t b0 = first, b1 = first + count;
    if (c->cur.mapped) {
        q->applied = 1;
        c->applied++;
        if (b0 != q->first || b1 != q->last)
            note(c, t, b0, b1, k, CR_MISMATCH_BODIES);
    } else {
        note(c, t, b0, b1, k, c->cur.how);
    }
    c->cur = (decision){-1, CR_MISMATCH_NONE, 0};
    return CR_OK;
}

int cr_calibrated_rigid_attach(cr_calibrated_rigid *c, cr_system *rigid, const char *label)
{
    if (!c || !rigid || cr_system_contact_count(rigid) != c->pairs)
        return CR_ERR_INVALID;
    for (size_t k = 0; k < c->n; k++)
        c->col[k].applied = 0;
    c->applied = c->nmis = 0;
    c->cur = (decision){-1, CR_MISMATCH_NONE, 0};
    int rc = cr_system_rigid_set_span(rigid, span, c);
    if (rc == CR_OK)
        rc = cr_system_rigid_set_provider(rigid, provide, c, label);
    if (rc == CR_OK)
        rc = cr_system_rigid_clamp_kappa(rigid, 1);
    return rc;
}

void cr_calibrated_rigid_finish(cr_calibrated_rigid *c, double t_end)
{
    for (size_t k = 0; c && k < c->n; k++)
        if (!c->col[k].applied && c->col[k].t0 <= t_end)
            note(c, NAN, 0, 0, (long)k, CR_MISMATCH_MISSED);
}

const cr_rigid_mismatch *cr_calibrated_rigid_mismatches(const cr_calibrated_rigid *c, size_t *n)
{
    if (n)
        *n = c ? c->nmis : 0;
    return c && c->nmis ? c->mis : NULL;
}

double cr_calibrated_rigid_kappa(const cr_calibrated_rigid *c, size_t k)
{
    return c && k < c->n ? c->col[k].kappa : NAN;
}

size_t cr_calibrated_rigid_collisions(const cr_calibrated_rigid *c, size_t *applied)
{
    if (applied)
        *applied = c ? c->applied : 0;
    return c ? c->n : 0;
}
