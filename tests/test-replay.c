/*
 * A third engine plugs in at one place: a small engine that replays a recorded
 * run implements the cr_system ops table (src/engine.h) and goes through the
 * monitor, the store and the CLI's report writer unchanged. Recorded from the
 * chain engine on the 3-ball Hertz chain (001 sect. 3) and a damped 5-ball
 * cradle; replayed, the monitor must give the same episode table bit for bit
 * (the same states in the same order: any difference is a layer above the
 * engines peeking past the interface), and the store must write the same
 * trajectory and events.
 */
#include <hdf5.h>
#include <string.h>
#include <unistd.h>

#include "cradle/engine.h"
#include "../tools/run-report.h"
#include "cradle/cradle.h"
#include "testutil.h"

/* One instant of the recorded run. */
typedef struct {
    int is_event;      /* 1: a root return (first event index), 0: an output time */
    size_t first, nev; /* events recorded so far */
    double t, T, U, W, p;
    double *x, *v;
    cr_contact_view *c;
    cr_run_stats stats;
} frame;

typedef struct {
    size_t nb, nc;
    double *mass, *radius;
    int *fixed;
    frame *f;
    size_t nf, cap;
    cr_event *ev;
    size_t nev;
    size_t *contacts_of; /* body i: contacts i − 1 and i */
    char end_reason[128];
    double L, V, Tc;
} recording;

static int record(const cr_system *sys, int is_event, size_t first, recording *r)
{
    if (r->nf == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->f = realloc(r->f, r->cap * sizeof(frame));
    }
    frame *f = &r->f[r->nf++];
    f->is_event = is_event;
    f->first = first;
    f->t = cr_system_get_time(sys);
    f->T = cr_system_kinetic_energy(sys);
    f->U = cr_system_potential_energy(sys);
    f->W = cr_system_dissipated_work(sys);
    cr_system_momentum(sys, &f->p);
    f->x = malloc(r->nb * sizeof(double));
    f->v = malloc(r->nb * sizeof(double));
    f->c = malloc((r->nc ? r->nc : 1) * sizeof(cr_contact_view));
    cr_system_get_positions(sys, f->x);
    cr_system_get_velocities(sys, f->v);
    for (size_t k = 0; k < r->nc; k++)
        cr_system_get_contact(sys, k, &f->c[k]);
    f->stats = cr_system_get_stats(sys);
    r->nev = cr_system_event_count(sys);
    r->ev = realloc(r->ev, (r->nev ? r->nev : 1) * sizeof(cr_event));
    if (r->nev)
        memcpy(r->ev, cr_system_events(sys), r->nev * sizeof(cr_event));
    f->nev = r->nev;
    return CR_OK;
}

static int on_output(const cr_system *sys, void *user)
{
    return record(sys, 0, 0, user);
}

static int on_events(const cr_system *sys, size_t first, void *user)
{
    return record(sys, 1, first, user);
}

/* ---- the replay engine --------------------------------------------------- */

static recording *tape; /* what create() replays */

typedef struct {
    recording *r;
    cr_system *sys;
    size_t now; /* current frame */
    volatile int stop;
} replay;

static void *rp_create(const cr_model *model, cr_system *sys, char *msg, size_t msglen)
{
    (void)model;
    if (!tape) {
        snprintf(msg, msglen, "nothing recorded");
        return NULL;
    }
    replay *p = calloc(1, sizeof(*p));
    p->r = tape;
    p->sys = sys;
    return p;
}

static void rp_destroy(void *e)
{
    free(e);
}

static int rp_run(void *e, double t_end)
{
    (void)t_end;
    replay *p = e;
    for (p->now = 0; p->now < p->r->nf; p->now++) {
        const frame *f = &p->r->f[p->now];
        int rc =
            f->is_event ? cr_system_emit_events(p->sys, f->first) : cr_system_emit_output(p->sys);
        if (rc != CR_OK)
            return rc;
    }
    p->now = p->r->nf - 1;
    return CR_OK;
}

#define RP(e) ((const replay *)(e))
#define NOW(e) (&RP(e)->r->f[RP(e)->now])

static void rp_stop(void *e)
{
    ((replay *)e)->stop = 1;
}
static const char *rp_error(const void *e)
{
    (void)e;
    return "";
}
static const char *rp_reason(const void *e)
{
    return RP(e)->r->end_reason;
}
static size_t rp_nb(const void *e)
{
    return RP(e)->r->nb;
}
static size_t rp_nw(const void *e)
{
    (void)e;
    return 0;
}
static int rp_fixed(const void *e, size_t i)
{
    return RP(e)->r->fixed[i];
}
static void rp_masses(const void *e, double *m)
{
    memcpy(m, RP(e)->r->mass, RP(e)->r->nb * sizeof(double));
}
static void rp_radii(const void *e, double *r)
{
    memcpy(r, RP(e)->r->radius, RP(e)->r->nb * sizeof(double));
}
static int rp_wall(const void *e, size_t w, double *n, double *o)
{
    (void)e, (void)w, (void)n, (void)o;
    return CR_ERR_INVALID;
}
static double rp_time(const void *e)
{
    return NOW(e)->t;
}
static void rp_x(const void *e, double *x)
{
    memcpy(x, NOW(e)->x, RP(e)->r->nb * sizeof(double));
}
static void rp_v(const void *e, double *v)
{
    memcpy(v, NOW(e)->v, RP(e)->r->nb * sizeof(double));
}
static size_t rp_nc(const void *e)
{
    return RP(e)->r->nc;
}
static int rp_contact(const void *e, size_t k, cr_contact_view *view)
{
    *view = NOW(e)->c[k];
    return CR_OK;
}
static const size_t *rp_body_contacts(const void *e, size_t i, size_t *n)
{
    size_t nc = RP(e)->r->nc;
    *n = (i > 0 && i - 1 < nc) + (i < nc);
    return *n ? RP(e)->r->contacts_of + (i > 0 ? 2 * i - 1 : 0) : NULL;
}
static size_t rp_nev(const void *e)
{
    return NOW(e)->nev;
}
static const cr_event *rp_events(const void *e)
{
    return RP(e)->r->ev;
}
static double rp_T(const void *e)
{
    return NOW(e)->T;
}
static double rp_U(const void *e)
{
    return NOW(e)->U;
}
static double rp_W(const void *e)
{
    return NOW(e)->W;
}
static void rp_p(const void *e, double *p)
{
    p[0] = NOW(e)->p;
}
static double rp_settle(const void *e)
{
    (void)e;
    return 0.0;
}
static cr_run_stats rp_stats(const void *e)
{
    return NOW(e)->stats;
}
static void rp_scales(const void *e, double *L, double *V, double *T)
{
    if (L)
        *L = RP(e)->r->L;
    if (V)
        *V = RP(e)->r->V;
    if (T)
        *T = RP(e)->r->Tc;
}

static const cr_engine_ops replay_engine = {
    .name = "replay",
    .create = rp_create,
    .destroy = rp_destroy,
    .run = rp_run,
    .request_stop = rp_stop,
    .last_error = rp_error,
    .end_reason = rp_reason,
    .dim = 1,
    .contacts_fixed = 1,
    .body_count = rp_nb,
    .wall_count = rp_nw,
    .is_fixed = rp_fixed,
    .masses = rp_masses,
    .radii = rp_radii,
    .wall = rp_wall,
    .time = rp_time,
    .positions = rp_x,
    .velocities = rp_v,
    .contact_count = rp_nc,
    .contact = rp_contact,
    .body_contacts = rp_body_contacts,
    .event_count = rp_nev,
    .events = rp_events,
    .kinetic_energy = rp_T,
    .potential_energy = rp_U,
    .dissipated_work = rp_W,
    .momentum = rp_p,
    .settle_time = rp_settle,
    .stats = rp_stats,
    .scales = rp_scales,
};

/* ---- the test ------------------------------------------------------------ */

static cr_model *chain(int n, double C)
{
    cr_model *model = cr_model_create();
    for (int i = 0; i < n; i++)
        cr_model_add_ball(model, 1.0, 0.5, (double)i + (i ? 1e-3 : 0.0), i ? 0.0 : 1.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1.0, 1.5, C, C > 0 ? CR_RELEASE_FORCE : CR_RELEASE_GAP);
    cr_model_set_default_contact(model, &law);
    cr_settings set = *cr_model_settings(model);
    set.rtol = 1e-11;
    set.atol = 1e-13;
    cr_model_set_settings(model, &set);
    return model;
}

static recording *record_run(cr_model *model, cr_monitor **mon_out, cr_system **sys_out)
{
    char msg[512];
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    if (!sys) {
        printf("FAIL create: %s\n", msg);
        exit(1);
    }
    recording *r = calloc(1, sizeof(*r));
    r->nb = cr_system_body_count(sys);
    r->nc = cr_system_contact_count(sys);
    r->mass = malloc(r->nb * sizeof(double));
    r->radius = malloc(r->nb * sizeof(double));
    r->fixed = malloc(r->nb * sizeof(int));
    r->contacts_of = malloc((2 * r->nc + 1) * sizeof(size_t));
    cr_system_get_masses(sys, r->mass);
    cr_system_get_radii(sys, r->radius);
    for (size_t i = 0; i < r->nb; i++)
        r->fixed[i] = cr_system_body_is_fixed(sys, i);
    for (size_t k = 0; k < r->nc; k++)
        r->contacts_of[2 * k] = r->contacts_of[2 * k + 1] = k;
    /* the monitor attaches first, as the CLI's does: the recording sees the same states */
    *mon_out = cr_monitor_create(sys);
    cr_system_add_output_listener(sys, on_output, r);
    cr_system_add_event_listener(sys, on_events, r);
    CHECK(cr_system_run(sys, 0.0) == CR_OK, "run: %s", cr_system_last_error(sys));
    cr_monitor_finish(*mon_out);
    snprintf(r->end_reason, sizeof r->end_reason, "%s", cr_system_end_reason(sys));
    cr_system_get_scales(sys, &r->L, &r->V, &r->Tc);
    *sys_out = sys;
    return r;
}

static void same_episodes(const cr_monitor *a, const cr_monitor *b)
{
    CHECK(cr_monitor_episode_count(a) == cr_monitor_episode_count(b) &&
              cr_monitor_episode_count(a) > 0,
          "episodes: %zu recorded, %zu replayed", cr_monitor_episode_count(a),
          cr_monitor_episode_count(b));
    for (size_t k = 0; k < cr_monitor_episode_count(a); k++) {
        cr_episode_info ia, ib;
        if (cr_monitor_get_episode(a, k, &ia) != CR_OK || cr_monitor_get_episode(b, k, &ib))
            continue;
        tu_case("episode %zu", k);
        CHECK_SELF(ia.t_start == ib.t_start && ia.t_end == ib.t_end && ia.kappa == ib.kappa &&
                       ia.reference == ib.reference,
                   "episode %zu scalars identical", k);
        size_t na, nb;
        const cr_contact_record *ra = cr_monitor_contacts(a, k, &na);
        const cr_contact_record *rb = cr_monitor_contacts(b, k, &nb);
        int same = na == nb;
        for (size_t c = 0; same && c < na; c++)
            same = ra[c].impulse == rb[c].impulse && ra[c].compression == rb[c].compression &&
                   ra[c].expansion == rb[c].expansion &&
                   (ra[c].alpha == rb[c].alpha || (isnan(ra[c].alpha) && isnan(rb[c].alpha)));
        CHECK_SELF(same, "episode %zu: %zu contact records identical", k, na);
    }
    tu_case(NULL);
}

/* The replayed file holds the recorded trajectory: its last velocity row equals
 * the recording's last output frame. */
static void stored(const char *path, const recording *r)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "%s opens", path);
    if (f < 0)
        return;
    hid_t d = H5Dopen2(f, "/trajectory/velocity", H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(s, dims, NULL);
    size_t outputs = 0;
    const frame *last = NULL;
    for (size_t q = 0; q < r->nf; q++)
        if (!r->f[q].is_event) {
            outputs++;
            last = &r->f[q];
        }
    CHECK(dims[0] == outputs && dims[1] == r->nb, "trajectory %llux%llu, %zu outputs recorded",
          (unsigned long long)dims[0], (unsigned long long)dims[1], outputs);
    double *v = malloc(dims[0] * dims[1] * sizeof(double));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    int same = last != NULL;
    for (size_t i = 0; same && i < r->nb; i++)
        same = v[(dims[0] - 1) * dims[1] + i] == last->v[i];
    CHECK(same, "the last stored velocity row is the recorded one");
    free(v);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
}

static void replay_case(int n, double C)
{
    cr_model *model = chain(n, C);
    cr_monitor *mon_rec;
    cr_system *sys_rec;
    recording *r = record_run(model, &mon_rec, &sys_rec);
    tape = r;
    char msg[512], path[64];
    cr_system *sys = cr_system_create_with(&replay_engine, model, msg, sizeof msg);
    CHECK(sys != NULL, "replay engine: %s", msg);
    snprintf(path, sizeof path, "replay-%d.h5", n);
    cr_store *store = cr_store_create(path, sys, model, "replay", "", msg, sizeof msg);
    CHECK(store != NULL, "store on the replay engine: %s", msg);
    cr_monitor *mon = cr_monitor_create(sys);
    CHECK(cr_system_run(sys, 0.0) == CR_OK, "replay run");
    cr_monitor_finish(mon);
    CHECK(strcmp(cr_system_engine_name(sys), "replay") == 0, "the engine behind is the replay");
    same_episodes(mon_rec, mon);
    CHECK(cr_store_write_episodes(store, mon) == CR_OK &&
              cr_store_commit(store, "complete", NULL) == CR_OK,
          "store commit: %s", cr_store_last_error(store));
    stored(path, r);
    /* the CLI's report writer, unchanged, on the replayed system */
    run_info info = {model, "replay", path, 0.0, {0, 0, 0}, 0.0, NULL, 0, {0, 0}};
    report_summary(&info, sys);
    report_episodes(sys, mon);
    CHECK(report_json(&info, sys, mon) == 0, "JSON report");
    cr_monitor_destroy(mon);
    cr_store_destroy(store);
    cr_system_destroy(sys);
    cr_monitor_destroy(mon_rec);
    cr_system_destroy(sys_rec);
    cr_model_destroy(model);
    unlink(path);
    for (size_t q = 0; q < r->nf; q++) {
        free(r->f[q].x);
        free(r->f[q].v);
        free(r->f[q].c);
    }
    free(r->f);
    free(r->ev);
    free(r->mass);
    free(r->radius);
    free(r->fixed);
    free(r->contacts_of);
    free(r);
    tape = NULL;
}

int main(void)
{
    replay_case(3, 0.0);
    replay_case(5, 0.05);
    return tu_finish("test-replay");
}
