/*
 * Free flight outside the window: the heap of the outside contacts' next
 * events (closing, waking), which contacts bind, and the locks of quiet
 * approaching pairs.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>
#include <stdlib.h>

/* The speed, over V, that pair c's own energy (relative kinetic plus elastic)
 * could give it: √(2 E / μ) / V with E = ½μγ² + K δⁿ⁺¹/(n+1). Bounds what its
 * force could still change in its bodies' relative velocity. */
double cr_sm_energy_speed(const cr_sim *s, size_t c)
{
    double delta, rate;
    cr_sm_pair_now(s, c, &delta, &rate);
    double E = 0.5 * s->mu[c] * rate * rate + cr_contact_energy(&s->law[c], delta);
    return sqrt(2.0 * E / s->mu[c]) / s->V;
}

/* Pair c binds its bodies into the window: linked, or a unilateral contact
 * closed (at or above the event margin, as the closing root counts) and awake,
 * or quiet with a force that still matters. Outside the window a quiet
 * contact's force is dropped (and an approaching pair locks), which changes
 * its bodies' relative velocity by at most its energy speed: the window keeps
 * quiet contacts whose energy speed reaches REGION_SPEED·rtol. Without this, the
 * wake threshold alone (an overlap of θ δ*) leaves out speeds up to
 * √(2/(n+1)) θ^((n+1)/2) V: 2.8e-8 V for Hertz, 1e-6 V for linear contacts,
 * where a 100-bead linear chain's final velocities moved by 1.1e-7 V. */
int cr_sm_binds(const cr_sim *s, size_t c)
{
    if (s->has_link[c])
        return 1;
    if (!s->contact_on[c] || cr_sm_ovl_now(s, c) < CR_SM_ETA)
        return 0;
    return !s->quiet[c] || cr_sm_energy_speed(s, c) >= s->region_speed;
}

/* -- the heap of free-flight events (earliest first, lazy deletion) -- */

static int heap_less(const cr_sm_out_event *a, const cr_sm_out_event *b)
{
    return a->tau < b->tau || (a->tau == b->tau && a->c < b->c);
}

static void heap_down(cr_sim *s, size_t k)
{
    cr_sm_out_event *h = s->heap;
    for (;;) {
        size_t l = 2 * k + 1, m = k;
        if (l < s->nheap && heap_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < s->nheap && heap_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == k)
            return;
        cr_sm_out_event tmp = h[k];
        h[k] = h[m];
        h[m] = tmp;
        k = m;
    }
}

void cr_sm_heap_pop(cr_sim *s)
{
    s->heap[0] = s->heap[--s->nheap];
    heap_down(s, 0);
}

/* Drops stale entries when they outnumber the contacts (each contact has at
 * most one valid entry), so the heap stays O(N) over any run. */
static void heap_compact(cr_sim *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->nheap; k++)
        if (s->heap[k].stamp == s->stamp[s->heap[k].c])
            s->heap[n++] = s->heap[k];
    s->nheap = n;
    for (size_t k = n / 2; k-- > 0;)
        heap_down(s, k);
}

static int heap_push(cr_sim *s, double tau, size_t c)
{
    if (s->nheap == s->heapcap) {
        if (s->nheap > 2 * s->nc + 64) {
            heap_compact(s);
        } else {
            size_t cap = s->heapcap ? 2 * s->heapcap : 64;
            cr_sm_out_event *h = realloc(s->heap, cap * sizeof(*h));
            if (!h)
                return CR_ERR_NOMEM;
            s->heap = h;
            s->heapcap = cap;
        }
    }
    cr_sm_out_event *h = s->heap;
    size_t k = s->nheap++;
    h[k] = (cr_sm_out_event){tau, c, s->stamp[c]};
    while (k > 0 && heap_less(&h[k], &h[(k - 1) / 2])) {
        cr_sm_out_event tmp = h[k];
        h[k] = h[(k - 1) / 2];
        h[(k - 1) / 2] = tmp;
        k = (k - 1) / 2;
    }
    return CR_OK;
}

/* The earliest valid free-flight event (stale entries dropped), INFINITY if none. */
double cr_sm_heap_top(cr_sim *s)
{
    while (s->nheap && s->heap[0].stamp != s->stamp[s->heap[0].c])
        cr_sm_heap_pop(s);
    return s->nheap ? s->heap[0].tau : INFINITY;
}

void cr_sm_uncount(cr_sim *s, size_t c)
{
    if (s->counted[c]) {
        s->counted[c] = 0;
        s->n_approach--;
    }
}

/* Outside contact c (both bodies in free flight): its overlap is linear in τ,
 * so its next event has a closed form. Awake and approaching, it closes where δ
 * reaches the event margin (and is unsettled until then). Quiet, its force
 * (below θⁿ of a pulse's, θ = CR_WAKE_FRACTION) is left out; approaching
 * slower than REGION_SPEED·rtol·V, it sticks where it touches (cr_sm_lock_pair), at once
 * if it overlaps already, so free flight never presses bodies into each other;
 * faster, it joins the window at the event margin. Quiet with a wake margin of 0
 * or more (a lock changed its bodies' velocities), it wakes up now. Separating
 * or at rest, nothing happens in free flight. */
int cr_sm_predict(cr_sim *s, size_t c)
{
    s->stamp[c]++;
    cr_sm_uncount(s, c);
    s->ref_o[c] = cr_sm_fly_ovl(s, c);
    s->ref_tc[c] = s->tau;
    if (!s->contact_on[c])
        return CR_OK;
    double g = cr_sm_fly_vel(s, c) - cr_sm_fly_vel(s, c + 1), d = s->ref_o[c];
    if (s->quiet[c] && cr_sm_wake_margin(s, c, d, g) >= 0.0)
        return heap_push(s, s->tau, c);
    if (!(g > 0.0))
        return CR_OK;
    /* a quiet pair too fast to lock (cr_sm_energy_speed) joins the window instead */
    int locks = s->quiet[c] && cr_sm_energy_speed(s, c) < s->region_speed;
    double target = locks ? 0.0 : CR_SM_ETA;
    if (!s->quiet[c]) {
        s->counted[c] = 1;
        s->n_approach++;
    }
    return heap_push(s, d >= target ? s->tau : s->tau + (target - d) / g, c);
}

/* Body i's group becomes free bodies, each with the group's velocity (the
 * window takes one of them): O(size of the group). */
void cr_sm_unlock_group(cr_sim *s, size_t i)
{
    size_t r = s->grp[i];
    if (s->gfirst[r] == s->glast[r])
        return;
    size_t first = s->gfirst[r], last = s->glast[r];
    double v = s->gv[r];
    for (size_t j = first; j <= last; j++) {
        double d = cr_sm_fly_dis(s, j);
        s->off[j] = 0.0;
        s->g0[j] = d;
        s->gt[j] = s->tau;
        s->gv[j] = v;
        s->gm[j] = s->fixed[j] ? INFINITY : s->mass[j];
        s->gfirst[j] = s->glast[j] = j;
    }
    for (size_t j = first; j <= last; j++)
        s->grp[j] = j;
}

/* Contact c's bodies' groups stick together: quiet contacts outside the window
 * carry no force, so an approaching quiet pair that touches would press on
 * into each other and its elastic energy, released later, would come from
 * nowhere (the wake of a loose tolerance then never settles). Instead the two
 * groups make a perfectly inelastic collision: momentum is kept, and the
 * relative kinetic energy, ½μγ² with γ below REGION_SPEED·rtol·V (faster pairs join
 * the window), is booked as dissipated work; no velocity changes by more than
 * γ. The smaller group is relinked to the larger's root (union by size, so
 * a body is relinked O(log N) times). @p bump: a window boundary moved. */
int cr_sm_lock_pair(cr_sim *s, size_t c, int *bump)
{
    size_t a = s->grp[c], b = s->grp[c + 1];
    size_t first = s->gfirst[a], last = s->glast[b];
    /* the contacts whose overlap rate changes, from their state now */
    size_t ends[3] = {c, first > 0 ? first - 1 : CR_SM_NONE, last < s->nc ? last : CR_SM_NONE};
    for (int k = 0; k < 3; k++)
        if (ends[k] != CR_SM_NONE && s->yovl[ends[k]] == CR_SM_NONE) {
            s->ref_o[ends[k]] = cr_sm_fly_ovl(s, ends[k]);
            s->ref_tc[ends[k]] = s->tau;
        }
    double ma = s->gm[a], mb = s->gm[b], va = s->gv[a], vb = s->gv[b], v, mu;
    if (isinf(ma) || isinf(mb)) {
        v = isinf(ma) ? va : vb;
        mu = isinf(ma) ? (isinf(mb) ? 0.0 : mb) : ma;
    } else {
        v = (ma * va + mb * vb) / (ma + mb);
        mu = ma * mb / (ma + mb);
    }
    s->Wbank += 0.5 * mu * (va - vb) * (va - vb) * s->V * s->V / s->Escale;
    size_t big = s->glast[a] - s->gfirst[a] >= s->glast[b] - s->gfirst[b] ? a : b;
    size_t small = big == a ? b : a;
    double Gb = s->g0[big] + s->gv[big] * (s->tau - s->gt[big]);
    double Gs = s->g0[small] + s->gv[small] * (s->tau - s->gt[small]);
    for (size_t j = s->gfirst[small]; j <= s->glast[small]; j++) {
        s->off[j] += Gs - Gb;
        s->grp[j] = big;
    }
    s->g0[big] = Gb;
    s->gt[big] = s->tau;
    s->gv[big] = v;
    s->gm[big] = ma + mb;
    s->gfirst[big] = first;
    s->glast[big] = last;
    s->stats.locks++;
    int rc = cr_sm_predict(s, c);
    for (int k = 1; k < 3 && rc == CR_OK; k++) {
        if (ends[k] == CR_SM_NONE)
            continue;
        if (s->yovl[ends[k]] == CR_SM_NONE)
            rc = cr_sm_predict(s, ends[k]);
        else
            *bump = 1; /* a boundary of the window: its outside neighbour changed speed */
    }
    return rc;
}
