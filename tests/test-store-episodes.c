/* The store's episode writer, on its own: src/store/store.c is compiled into this
 * program together with a FAKE monitor (below) that implements
 * cradle/monitor.h with synthetic episodes built from a real run (the system's
 * contacts, normals and impulses, made-up coefficients). It is not physics:
 * it gives the writer episodes of known content, for chains and pools, with
 * walls and fixed bodies, and one episode above CR_STORE_DENSE_MAX records, so
 * that every dataset of /episode/NNNN is checked against the getters exactly
 * whatever the real monitor does. (The program's definitions of cr_store_* and
 * cr_monitor_* take precedence over the library's.)
 *
 *   test-store-episodes              the checks
 *   test-store-episodes --write DIR  writes DIR/chain.h5 and DIR/pool.h5 (for
 *                                    tests/check-store-h5py.py) */
#include <hdf5.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"

/* ---- the fake monitor -------------------------------------------------------- */

typedef struct {
    cr_episode_info info;
    size_t nb, nr, nev;
    size_t *bodies, *ev;
    double *mass, *u0, *u1, *imp, *nrm;
    cr_contact_record *rec;
} fake_episode;

struct cr_monitor {
    cr_system *sys;
    size_t dim, n;
    double *v0;
    fake_episode ep[2];
};

cr_monitor *cr_monitor_create(cr_system *sys)
{
    cr_monitor *m = calloc(1, sizeof(*m));
    m->sys = sys;
    m->dim = (size_t)cr_system_dimension(sys);
    m->v0 = malloc(cr_system_body_count(sys) * m->dim * sizeof(double));
    cr_system_get_velocities(sys, m->v0);
    return m;
}

void cr_monitor_destroy(cr_monitor *m)
{
    if (!m)
        return;
    for (size_t k = 0; k < m->n; k++) {
        fake_episode *e = &m->ep[k];
        free(e->bodies), free(e->ev), free(e->mass), free(e->u0), free(e->u1), free(e->imp);
        free(e->nrm), free(e->rec);
    }
    free(m->v0);
    free(m);
}

/* Episode k: every body; nr records cycling over the system's contacts. */
static void fake_fill(cr_monitor *m, fake_episode *e, size_t k, size_t nr)
{
    size_t nb = cr_system_body_count(m->sys), nc = cr_system_contact_count(m->sys), d = m->dim;
    e->nb = nb, e->nr = nr, e->nev = cr_system_event_count(m->sys);
    e->bodies = malloc(nb * sizeof(size_t)), e->mass = malloc(nb * sizeof(double));
    e->u0 = malloc(nb * d * sizeof(double)), e->u1 = malloc(nb * d * sizeof(double));
    e->rec = calloc(nr, sizeof(cr_contact_record));
    e->imp = malloc(nr * d * sizeof(double)), e->nrm = malloc(nr * d * sizeof(double));
    e->ev = malloc((e->nev + 1) * sizeof(size_t));
    for (size_t i = 0; i < nb; i++)
        e->bodies[i] = i;
    cr_system_get_masses(m->sys, e->mass);
    memcpy(e->u0, m->v0, nb * d * sizeof(double));
    cr_system_get_velocities(m->sys, e->u1);
    for (size_t r = 0; r < nr; r++) {
        cr_contact_view v;
        cr_system_get_contact(m->sys, r % nc, &v);
        e->rec[r] = (cr_contact_record){r % nc,
                                        v.body_a,
                                        v.body_b,
                                        v.impulse,
                                        0.25 * (double)r,
                                        0.5 * (double)r,
                                        -1.0 - (double)r,
                                        0.5 + (double)r,
                                        r % 3 ? 0.9 : NAN,
                                        0.8,
                                        1.0 / (1.0 + (double)r),
                                        1e-6 * (double)r,
                                        10.0 * (double)r,
                                        (int)(r % 4),
                                        (int)(r % 5),
                                        (int)(r % 4),
                                        NAN,
                                        0.0};
        memcpy(e->imp + r * d, v.vector_impulse, d * sizeof(double));
        memcpy(e->nrm + r * d, v.normal, d * sizeof(double));
    }
    for (size_t i = 0; i < e->nev; i++)
        e->ev[i] = i;
    e->info = (cr_episode_info){1e-5 * (double)k,
                                cr_system_get_time(m->sys),
                                nb,
                                nr,
                                0,
                                0,
                                2.0,
                                1.5,
                                0.75,
                                0.01,
                                0.49,
                                (int)(k == 0),
                                e->nev};
}

int cr_monitor_finish(cr_monitor *m)
{
    m->n = 2;
    fake_fill(m, &m->ep[0], 0, cr_system_contact_count(m->sys));
    fake_fill(m, &m->ep[1], 1, CR_STORE_DENSE_MAX + 3); /* above the dense cap */
    return CR_OK;
}

size_t cr_monitor_episode_count(const cr_monitor *m)
{
    return m->n;
}

int cr_monitor_get_episode(const cr_monitor *m, size_t k, cr_episode_info *info)
{
    if (k >= m->n)
        return CR_ERR_INVALID;
    *info = m->ep[k].info;
    return CR_OK;
}

const size_t *cr_monitor_bodies(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nb;
    return m->ep[k].bodies;
}

const double *cr_monitor_masses(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nb;
    return m->ep[k].mass;
}

const double *cr_monitor_velocities(const cr_monitor *m, size_t k, int after, size_t *n)
{
    *n = m->ep[k].nb;
    return after ? m->ep[k].u1 : m->ep[k].u0;
}

const cr_contact_record *cr_monitor_contacts(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nr;
    return m->ep[k].rec;
}

const double *cr_monitor_vector_impulses(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nr;
    return m->ep[k].imp;
}

const double *cr_monitor_normals(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nr;
    return m->ep[k].nrm;
}

const size_t *cr_monitor_events(const cr_monitor *m, size_t k, size_t *n)
{
    *n = m->ep[k].nev;
    return m->ep[k].ev;
}

static double fake_alpha(size_t i, size_t j)
{
    return (1.0 + (double)i) / (2.0 + (double)j);
}

static double fake_cosine(size_t i, size_t j)
{
    return 1.0 / (1.0 + (double)(i > j ? i - j : j - i));
}

int cr_monitor_alpha_matrix(const cr_monitor *m, size_t k, double *a)
{
    size_t R = m->ep[k].nr;
    for (size_t i = 0; i < R * R; i++)
        a[i] = fake_alpha(i / R, i % R);
    return CR_OK;
}

int cr_monitor_kinetic_cosines(const cr_monitor *m, size_t k, double *c)
{
    size_t R = m->ep[k].nr;
    for (size_t i = 0; i < R * R; i++)
        c[i] = fake_cosine(i / R, i % R);
    return CR_OK;
}

cr_impact *cr_monitor_impact(const cr_monitor *m, size_t k)
{
    (void)m, (void)k;
    return NULL; /* the store does not use it */
}

/* ---- models ------------------------------------------------------------------- */

/* Four beads against a fixed wall (body 4): the wall has no dofs in W. */
static cr_model *chain_wall(void)
{
    cr_model *m = cr_model_create();
    for (int i = 0; i < 4; i++)
        cr_model_add_ball(m, 0.0041, 0.005, 0.01 * i + (i ? 1e-6 : 0.0), i ? 0.0 : 1.0);
    cr_model_add_wall(m, 0.035 + 1e-4);
    cr_contact_params law;
    cr_contact_params_init(&law, 7.7e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "episodes-chain");
    cr_settings s = cr_settings_default();
    s.t_end = 4e-4;
    s.output_interval = 1e-5;
    cr_model_set_settings(m, &s);
    return m;
}

/* Three discs and a half-plane wall: wall contacts (body_b < 0) have one side in W. */
static cr_model *pool_wall(void)
{
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    const double x[3][2] = {{0.0, 0.0}, {0.03, 0.01}, {0.03, -0.01}};
    const double v[3][2] = {{1.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (int i = 0; i < 3; i++)
        cr_model_add_body(m, 0.03, 0.01, x[i], v[i]);
    const double nrm[2] = {-1.0, 0.0};
    cr_model_add_plane(m, nrm, -0.08, NULL);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "episodes-pool");
    cr_settings s = cr_settings_default();
    s.t_end = 0.12;
    s.output_interval = 1e-3;
    cr_model_set_settings(m, &s);
    return m;
}

/* ---- reading back --------------------------------------------------------------- */

static void *read_all(hid_t f, const char *name, hid_t type, size_t size, size_t *count)
{
    *count = 0;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return NULL;
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    void *v = calloc((size_t)n + 1, size);
    if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    } else {
        *count = (size_t)n;
    }
    H5Sclose(s);
    H5Dclose(d);
    return v;
}

static int same_doubles(hid_t f, const char *name, const double *ref, size_t n)
{
    size_t got;
    double *v = read_all(f, name, H5T_NATIVE_DOUBLE, sizeof(double), &got);
    int ok = v && got == n && (n == 0 || memcmp(v, ref, n * sizeof(double)) == 0);
    free(v);
    return ok;
}

static int same_indices(hid_t f, const char *name, const size_t *ref, size_t n)
{
    size_t got;
    int64_t *v = read_all(f, name, H5T_NATIVE_INT64, sizeof(int64_t), &got);
    int ok = v && got == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = v[i] == (int64_t)ref[i];
    free(v);
    return ok;
}

/* The records read back field by field (the table's own layout, by name). */
static void check_records(hid_t f, const char *g, const fake_episode *e)
{
    typedef struct {
        int64_t contact, body_b;
        double impulse, gamma_minus, newton, alpha, peak_force;
        int32_t closings, flags;
    } rr;
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(rr));
    H5Tinsert(t, "contact", HOFFSET(rr, contact), H5T_NATIVE_INT64);
    H5Tinsert(t, "body_b", HOFFSET(rr, body_b), H5T_NATIVE_INT64);
    H5Tinsert(t, "impulse", HOFFSET(rr, impulse), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "gamma_minus", HOFFSET(rr, gamma_minus), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "newton", HOFFSET(rr, newton), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "alpha", HOFFSET(rr, alpha), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "peak_force", HOFFSET(rr, peak_force), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "closings", HOFFSET(rr, closings), H5T_NATIVE_INT32);
    H5Tinsert(t, "flags", HOFFSET(rr, flags), H5T_NATIVE_INT32);
    char name[128];
    snprintf(name, sizeof name, "%s/contacts", g);
    size_t n;
    rr *v = read_all(f, name, t, sizeof(rr), &n);
    size_t bad = v && n == e->nr ? 0 : 1;
    for (size_t i = 0; !bad && i < n; i++) {
        const cr_contact_record *r = &e->rec[i];
        bad += v[i].contact != (int64_t)r->contact || v[i].body_b != r->body_b ||
               v[i].impulse != r->impulse || v[i].gamma_minus != r->gamma_minus ||
               !(v[i].newton == r->newton || (isnan(v[i].newton) && isnan(r->newton))) ||
               v[i].alpha != r->alpha || v[i].peak_force != r->peak_force ||
               v[i].closings != r->closings || v[i].flags != r->flags;
    }
    CHECK(bad == 0, "%s: %zu records read back field for field", name, e->nr);
    free(v);
    H5Tclose(t);
}

/* W from its COO triplets equals −n on body_a's dofs and +n on body_b's, with
 * no rows for fixed bodies and walls; M_diagonal holds the moving masses. */
static void check_configuration(hid_t f, const char *g, const fake_episode *e, size_t d)
{
    char name[128];
    size_t D = 0, *blk = malloc(e->nb * sizeof(size_t));
    for (size_t i = 0; i < e->nb; i++) {
        blk[i] = isfinite(e->mass[i]) ? D / d : (size_t)-1;
        D += isfinite(e->mass[i]) ? d : 0;
    }
    double *W = calloc(D * e->nr + 1, sizeof(double)), *M = malloc((D + 1) * sizeof(double));
    for (size_t i = 0, q = 0; i < e->nb; i++)
        for (size_t c = 0; isfinite(e->mass[i]) && c < d; c++)
            M[q++] = e->mass[i];
    for (size_t r = 0; r < e->nr; r++) {
        long b[2] = {(long)e->rec[r].body_a, e->rec[r].body_b};
        for (int s = 0; s < 2; s++)
            for (size_t c = 0; b[s] >= 0 && blk[b[s]] != (size_t)-1 && c < d; c++)
                W[(blk[b[s]] * d + c) * e->nr + r] += (s ? 1.0 : -1.0) * e->nrm[r * d + c];
    }
    size_t nz, nz2, nz3;
    snprintf(name, sizeof name, "%s/W/row", g);
    int64_t *row = read_all(f, name, H5T_NATIVE_INT64, sizeof(int64_t), &nz);
    snprintf(name, sizeof name, "%s/W/col", g);
    int64_t *col = read_all(f, name, H5T_NATIVE_INT64, sizeof(int64_t), &nz2);
    snprintf(name, sizeof name, "%s/W/value", g);
    double *val = read_all(f, name, H5T_NATIVE_DOUBLE, sizeof(double), &nz3);
    double *Wf = calloc(D * e->nr + 1, sizeof(double));
    int ok = row && col && val && nz == nz2 && nz == nz3;
    for (size_t k = 0; ok && k < nz; k++) {
        ok = row[k] >= 0 && (size_t)row[k] < D && col[k] >= 0 && (size_t)col[k] < e->nr;
        if (ok)
            Wf[(size_t)row[k] * e->nr + (size_t)col[k]] += val[k];
    }
    CHECK(ok && memcmp(W, Wf, D * e->nr * sizeof(double)) == 0,
          "%s: sparse W (%zu entries) equals -n on body_a, +n on body_b (%zu dofs x %zu records)",
          g, nz, D, e->nr);
    snprintf(name, sizeof name, "%s/M_diagonal", g);
    CHECK(same_doubles(f, name, M, D), "%s: M_diagonal = the moving bodies' masses, dim each", g);
    snprintf(name, sizeof name, "%s/W", g);
    hid_t wg = H5Gopen2(f, name, H5P_DEFAULT);
    int64_t shape[2] = {-1, -1};
    hid_t a = H5Aopen(wg, "shape", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, shape);
    H5Aclose(a);
    H5Gclose(wg);
    CHECK(shape[0] == (int64_t)D && shape[1] == (int64_t)e->nr, "%s: W shape attribute", g);
    free(row), free(col), free(val), free(W), free(Wf), free(M), free(blk);
}

static void check_dense(hid_t f, const char *g, const fake_episode *e)
{
    char name[128];
    size_t R = e->nr;
    int64_t dense = -1;
    hid_t gr = H5Gopen2(f, g, H5P_DEFAULT);
    hid_t a = H5Aopen(gr, "dense_matrices", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, &dense);
    H5Aclose(a);
    if (R <= CR_STORE_DENSE_MAX) {
        double *A = malloc(R * R * sizeof(double)), *C = malloc(R * R * sizeof(double));
        for (size_t i = 0; i < R * R; i++)
            A[i] = fake_alpha(i / R, i % R), C[i] = fake_cosine(i / R, i % R);
        snprintf(name, sizeof name, "%s/alpha_matrix", g);
        CHECK(dense == 1 && same_doubles(f, name, A, R * R),
              "%s: alpha matrix as the monitor gave it", g);
        snprintf(name, sizeof name, "%s/kinetic_cosine", g);
        CHECK(same_doubles(f, name, C, R * R), "%s: kinetic cosines as the monitor gave them", g);
        free(A), free(C);
    } else {
        CHECK(dense == 0 && H5Lexists(gr, "alpha_matrix", H5P_DEFAULT) == 0 &&
                  H5Lexists(gr, "kinetic_cosine", H5P_DEFAULT) == 0,
              "%s: %zu records > %d: no dense matrices, and the attribute says so", g, R,
              CR_STORE_DENSE_MAX);
    }
    H5Gclose(gr);
}

static void check_episode(hid_t f, const cr_monitor *m, size_t k)
{
    const fake_episode *e = &m->ep[k];
    char g[64], name[128];
    snprintf(g, sizeof g, "/episode/%04zu", k);
    size_t d = m->dim;
    snprintf(name, sizeof name, "%s/bodies", g);
    CHECK(same_indices(f, name, e->bodies, e->nb), "%s: bodies", g);
    snprintf(name, sizeof name, "%s/mass", g);
    CHECK(same_doubles(f, name, e->mass, e->nb), "%s: masses (inf for fixed)", g);
    snprintf(name, sizeof name, "%s/velocity_before", g);
    CHECK(same_doubles(f, name, e->u0, e->nb * d), "%s: velocities before", g);
    snprintf(name, sizeof name, "%s/velocity_after", g);
    CHECK(same_doubles(f, name, e->u1, e->nb * d), "%s: velocities after", g);
    snprintf(name, sizeof name, "%s/vector_impulse", g);
    CHECK(same_doubles(f, name, e->imp, e->nr * d), "%s: vector impulses", g);
    snprintf(name, sizeof name, "%s/normal", g);
    CHECK(same_doubles(f, name, e->nrm, e->nr * d), "%s: normals", g);
    snprintf(name, sizeof name, "%s/events", g);
    CHECK(same_indices(f, name, e->ev, e->nev), "%s: event rows", g);
    check_records(f, g, e);
    check_configuration(f, g, e, d);
    check_dense(f, g, e);
}

/* Runs @p model into @p path with the fake monitor; checks when @p check. */
static int run_episodes(const char *path, cr_model *model, const char *text, int check)
{
    char msg[512];
    cr_system *sys = cr_system_create(model, msg, sizeof msg);
    cr_monitor *mon = sys ? cr_monitor_create(sys) : NULL;
    cr_store *st =
        sys ? cr_store_create(path, sys, model, "inline.yaml", text, msg, sizeof msg) : NULL;
    if (!st) {
        printf("%s: %s\n", path, msg);
        return -1;
    }
    int rc = cr_system_run(sys, cr_model_settings(model)->t_end);
    cr_monitor_finish(mon);
    rc |= cr_store_write_episodes(st, mon);
    rc |= cr_store_commit(st, rc == CR_OK ? "complete" : "failed", NULL);
    if (check) {
        const char *kind = cr_model_dimension(model) == 2 ? "pool" : "chain";
        tu_case("%s file", kind);
        CHECK(rc == CR_OK, "%s written: %s", path, cr_store_last_error(st));
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        int wall = 0, fixed = 0;
        for (size_t r = 0; r < mon->ep[0].nr; r++)
            wall |= mon->ep[0].rec[r].body_b < 0;
        for (size_t i = 0; i < mon->ep[0].nb; i++)
            fixed |= !isfinite(mon->ep[0].mass[i]);
        CHECK(wall || fixed, "%s: a wall contact or a fixed body to leave out of W", path);
        hid_t d = H5Dopen2(f, "/episodes", H5P_DEFAULT), s = H5Dget_space(d);
        CHECK(H5Sget_simple_extent_npoints(s) == 2, "%s: two episodes in /episodes", path);
        H5Sclose(s);
        H5Dclose(d);
        for (size_t k = 0; k < 2; k++) {
            tu_case("%s file, episode %zu", kind, k);
            check_episode(f, mon, k);
        }
        tu_case(NULL);
        H5Fclose(f);
    }
    cr_store_destroy(st);
    cr_monitor_destroy(mon);
    cr_system_destroy(sys);
    return rc;
}

int main(int argc, char **argv)
{
    cr_model *c = chain_wall(), *p = pool_wall();
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/chain.h5", argv[2]);
        int rc = run_episodes(path, c, "name: episodes-chain\n", 0);
        snprintf(path, sizeof path, "%s/pool.h5", argv[2]);
        rc |= run_episodes(path, p, "name: episodes-pool\n# π δ\n", 0);
        cr_model_destroy(c);
        cr_model_destroy(p);
        return rc == CR_OK ? 0 : 1;
    }
    char chain[64], pool[64];
    snprintf(chain, sizeof chain, "test-store-episodes-chain-%ld.h5", (long)getpid());
    snprintf(pool, sizeof pool, "test-store-episodes-pool-%ld.h5", (long)getpid());
    run_episodes(chain, c, "", 1);
    run_episodes(pool, p, "", 1);
    unlink(chain);
    unlink(pool);
    cr_model_destroy(c);
    cr_model_destroy(p);
    return tu_finish("test-store-episodes");
}
