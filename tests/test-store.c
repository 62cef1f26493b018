/* HDF5 output through cr_system, chains (dim 1) and pools (dim 2) alike: what
 * is written reads back bit for bit with the plain HDF5 API; chain and pool
 * files have one structure; a failed or stopped run keeps a file that says so;
 * a killed writer leaves a readable temporary that the next run keeps; a full
 * disk never replaces a good file.
 *
 * Modes (for tests/check-store-h5py.py):
 *   test-store                         the checks
 *   test-store --write DIR             writes DIR/chain.h5 and DIR/pool.h5
 *   test-store --full-disk DIR         the full-disk checks in DIR (a small
 *                                      tmpfs mounted by the checks' process)
 *   test-store --kill-writer PATH      runs a chain into PATH with a flush every
 *                                      KILL_FLUSH rows and SIGKILLs itself at
 *                                      row KILL_AT (never returns)
 *   test-store --kill-none PATH        the same chain with output.fields: none,
 *                                      flushing at every event batch, SIGKILLs
 *                                      itself at batch KILL_BATCH */
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "cradle/system.h"
#include "testutil.h"

#define KILL_FLUSH 10
#define KILL_AT 25
#define KILL_BATCH 3

/* ---- models ----------------------------------------------------------------- */

/* n balls in free flight, far apart (no contact closes): cheap to integrate,
 * and every row holds 5n numbers, which fills a small disk. */
static cr_model *free_chain(int n, double t_end, double output_interval)
{
    cr_model *m = cr_model_create();
    for (int i = 0; i < n; i++)
        cr_model_add_ball(m, 0.01, 0.005, 0.1 * i, 1e-3 * ((i * 37) % 11 - 5));
    cr_contact_params law;
    cr_contact_params_init(&law, 7.7e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "store-free-chain");
    cr_settings s = cr_settings_default();
    s.t_end = t_end;
    s.output_interval = output_interval;
    cr_model_set_settings(m, &s);
    return m;
}

/* Three steel balls, the first striking two touching ones (Hertz). */
static cr_model *chain3(double output_interval)
{
    cr_model *m = cr_model_create();
    cr_model_add_ball(m, 0.0329, 0.01, 0.0, 1.0);
    cr_model_add_ball(m, 0.0329, 0.01, 0.02 + 1e-6, 0.0);
    cr_model_add_ball(m, 0.0329, 0.01, 0.04 + 1e-6, 0.0);
    cr_contact_params law;
    cr_contact_params_init(&law, 1.0878565e10, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "store-chain");
    cr_settings s = cr_settings_default();
    s.output_interval = output_interval;
    cr_model_set_settings(m, &s);
    return m;
}

/* A chain of n beads hitting a fixed wall: a fixed body in the file. */
static cr_model *chain_wall(int n, double t_end, double output_interval)
{
    cr_model *m = cr_model_create();
    for (int i = 0; i < n; i++)
        cr_model_add_ball(m, 0.0041, 0.005, 0.01 * i + (i ? 1e-6 : 0.0), i ? 0.0 : 1.0);
    cr_model_add_wall(m, 0.01 * (n - 1) + 0.005 + 1e-4);
    cr_contact_params law;
    cr_contact_params_init(&law, 7.7e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "store-chain-wall");
    cr_settings s = cr_settings_default();
    s.t_end = t_end;
    s.output_interval = output_interval;
    cr_model_set_settings(m, &s);
    return m;
}

/* A disc striking two touching discs (three contacts at once), then a wall. */
static cr_model *pool3(void)
{
    cr_model *m = cr_model_create();
    cr_model_set_dimension(m, 2);
    const double r = 0.01, x[3][2] = {{0.0, 0.0}, {0.03, 0.01}, {0.03, -0.01}};
    const double v[3][2] = {{1.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (int i = 0; i < 3; i++)
        cr_model_add_body(m, 0.03, r, x[i], v[i]);
    const double nrm[2] = {-1.0, 0.0};
    cr_model_add_plane(m, nrm, -0.08, NULL);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e9, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_model_set_name(m, "store-pool");
    cr_settings s = cr_settings_default();
    s.t_end = 0.12;
    s.output_interval = 1e-3;
    cr_model_set_settings(m, &s);
    return m;
}

/* ---- what the getters gave at each output (the reference of the file) ------ */

typedef struct {
    size_t rows, cap, nbd, nc;
    double *t, *x, *v, *en, *ovl, *f, *P;
    int stop_at, stop_code; /* stop_at > 0: at that row request a stop or return the code */
    cr_system *sys;
} recorder;

static int grow(recorder *r)
{
    if (r->rows < r->cap)
        return 0;
    r->cap = r->cap ? 2 * r->cap : 64;
    r->t = realloc(r->t, r->cap * sizeof(double));
    r->x = realloc(r->x, r->cap * r->nbd * sizeof(double));
    r->v = realloc(r->v, r->cap * r->nbd * sizeof(double));
    r->en = realloc(r->en, r->cap * 3 * sizeof(double));
    r->ovl = realloc(r->ovl, (r->cap * r->nc + 1) * sizeof(double));
    r->f = realloc(r->f, (r->cap * r->nc + 1) * sizeof(double));
    r->P = realloc(r->P, (r->cap * r->nc + 1) * sizeof(double));
    return r->t && r->x && r->v && r->en && r->ovl && r->f && r->P ? 0 : -1;
}

static int record(const cr_system *sys, void *user)
{
    recorder *r = user;
    if (grow(r) < 0)
        return CR_ERR_NOMEM;
    size_t k = r->rows++;
    r->t[k] = cr_system_get_time(sys);
    cr_system_get_positions(sys, r->x + k * r->nbd);
    cr_system_get_velocities(sys, r->v + k * r->nbd);
    r->en[3 * k] = cr_system_kinetic_energy(sys);
    r->en[3 * k + 1] = cr_system_potential_energy(sys);
    r->en[3 * k + 2] = cr_system_dissipated_work(sys);
    for (size_t c = 0; c < r->nc; c++) {
        cr_contact_view w;
        cr_system_get_contact(sys, c, &w);
        r->ovl[k * r->nc + c] = w.overlap;
        r->f[k * r->nc + c] = w.force;
        r->P[k * r->nc + c] = w.impulse;
    }
    if (r->stop_at > 0 && (int)r->rows == r->stop_at) {
        if (r->stop_code == CR_ERR_INTERRUPTED)
            cr_system_request_stop(r->sys);
        else if (r->stop_code == SIGKILL)
            raise(SIGKILL);
        else
            return r->stop_code;
    }
    return CR_OK;
}

static void recorder_attach(recorder *r, cr_system *sys)
{
    memset(r, 0, sizeof(*r));
    r->sys = sys;
    r->nbd = cr_system_body_count(sys) * (size_t)cr_system_dimension(sys);
    r->nc = cr_system_contacts_fixed(sys) ? cr_system_contact_count(sys) : 0;
    cr_system_add_output_listener(sys, record, r);
}

static void recorder_free(recorder *r)
{
    free(r->t), free(r->x), free(r->v), free(r->en), free(r->ovl), free(r->f), free(r->P);
}

/* ---- HDF5 reading helpers ----------------------------------------------------- */

static hsize_t rows_of(hid_t file, const char *name, hsize_t *cols)
{
    hsize_t dims[2] = {0, 0};
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t s = H5Dget_space(d);
    int rank = H5Sget_simple_extent_dims(s, dims, NULL);
    if (cols)
        *cols = rank == 2 ? dims[1] : (rank == 1 ? 1 : 0);
    H5Sclose(s);
    H5Dclose(d);
    return rank == 0 ? 1 : dims[0];
}

static double *read_doubles(hid_t file, const char *name, size_t count)
{
    double *v = malloc((count ? count : 1) * sizeof(double));
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    if (d >= 0)
        H5Dclose(d);
    return v;
}

static hid_t vlen_utf8(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* A string attribute as written (variable-length UTF-8); "" when missing. */
static void attr_str(hid_t obj, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return;
    hid_t ft = H5Aget_type(a), t = vlen_utf8();
    char *s = NULL;
    if (H5Tis_variable_str(ft) > 0 && H5Tget_cset(ft) == H5T_CSET_UTF8 && H5Aread(a, t, &s) >= 0 &&
        s)
        snprintf(out, len, "%s", s);
    H5free_memory(s);
    H5Tclose(t);
    H5Tclose(ft);
    H5Aclose(a);
}

static double attr_dbl(hid_t obj, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a >= 0) {
        H5Aread(a, H5T_NATIVE_DOUBLE, &v);
        H5Aclose(a);
    }
    return v;
}

static long long attr_ll(hid_t obj, const char *name)
{
    long long v = -999;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a >= 0) {
        H5Aread(a, H5T_NATIVE_LLONG, &v);
        H5Aclose(a);
    }
    return v;
}

/* /model/text (a fixed-length UTF-8 scalar string dataset), malloc'ed. */
static char *read_text(hid_t file)
{
    hid_t d = H5Dopen2(file, "/model/text", H5P_DEFAULT);
    if (d < 0)
        return NULL;
    hid_t t = H5Dget_type(d);
    size_t n = H5Tget_size(t);
    char *s = calloc(n + 1, 1);
    if (H5Tget_class(t) != H5T_STRING || H5Tget_cset(t) != H5T_CSET_UTF8 ||
        H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0) {
        free(s);
        s = NULL;
    }
    H5Tclose(t);
    H5Dclose(d);
    return s;
}

/* Every object path in a file, newline-separated, for structure comparisons. */
static herr_t add_name(hid_t o, const char *name, const H5O_info_t *info, void *user)
{
    (void)o, (void)info;
    char *buf = user;
    if (strcmp(name, ".") != 0 && strlen(buf) + strlen(name) + 2 < 8192) {
        strcat(buf, name);
        strcat(buf, "\n");
    }
    return 0;
}

static void names_of(const char *path, char *buf)
{
    buf[0] = '\0';
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, add_name, buf, H5O_INFO_BASIC);
        H5Fclose(f);
    }
}

/* Episode groups compare by their layout, not their number: episode/0003/x
 * reads as episode/####/x. */
static void number_blind(char *buf)
{
    for (char *p = buf; (p = strstr(p, "episode/")) != NULL; p += 8)
        if ((p == buf || p[-1] == '\n') && strspn(p + 8, "0123456789") == 4)
            memcpy(p + 8, "####", 4);
}

static int has_line(const char *buf, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = buf; (p = strstr(p, line)) != NULL; p++)
        if ((p == buf || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static char tmp_name[4096];
static const char *temp_of(const char *path, long pid)
{
    snprintf(tmp_name, sizeof tmp_name, "%s.tmp.%ld", path, pid);
    return tmp_name;
}

/* ---- a run into a file ------------------------------------------------------- */

typedef struct {
    cr_system *sys;
    cr_store *st;
    cr_monitor *mon;
    recorder rec;
    int run_rc, commit_rc;
} run;

/* Runs @p model into @p path the way the CLI does (system, monitor, store,
 * recorder), commits with the status the run's code calls for. */
static void run_into_flushing(run *r, const char *path, const cr_model *model, const char *text,
                              int stop_at, int stop_code, size_t flush_rows)
{
    char msg[512];
    memset(r, 0, sizeof(*r));
    r->sys = cr_system_create(model, msg, sizeof msg);
    CHECK(r->sys != NULL, "system: %s", msg);
    r->mon = cr_monitor_create(r->sys);
    r->st = cr_store_create(path, r->sys, model, "inline.yaml", text, msg, sizeof msg);
    CHECK(r->st != NULL, "store: %s", msg);
    if (!r->sys || !r->st)
        return;
    if (flush_rows)
        cr_store_set_flush_interval(r->st, flush_rows, CR_STORE_FLUSH_SECONDS);
    recorder_attach(&r->rec, r->sys);
    r->rec.stop_at = stop_at;
    r->rec.stop_code = stop_code;
    r->run_rc = cr_system_run(r->sys, cr_model_settings(model)->t_end);
    cr_monitor_finish(r->mon);
    cr_store_write_episodes(r->st, r->mon);
    const char *status = r->run_rc == CR_OK
                             ? "complete"
                             : (r->run_rc == CR_ERR_INTERRUPTED ? "interrupted" : "failed");
    r->commit_rc =
        cr_store_commit(r->st, status, r->run_rc == CR_OK ? NULL : cr_system_last_error(r->sys));
}

static void run_into(run *r, const char *path, const cr_model *model, const char *text, int stop_at,
                     int stop_code)
{
    run_into_flushing(r, path, model, text, stop_at, stop_code, 0);
}

static void run_free(run *r)
{
    cr_store_destroy(r->st);
    cr_monitor_destroy(r->mon);
    recorder_free(&r->rec);
    cr_system_destroy(r->sys);
}

/* ---- checks ----------------------------------------------------------------- */

/* Every trajectory row equals what the getters gave at that output, exactly. */
static void check_trajectory(hid_t f, const recorder *rec, const char *what)
{
    tu_case("%s", what); /* one case per file checked */
    hsize_t T = rows_of(f, "/trajectory/time", NULL), cols = 0;
    CHECK(T == rec->rows, "%s: one row per output: %llu vs %zu", what, (unsigned long long)T,
          rec->rows);
    CHECK(rows_of(f, "/trajectory/position", &cols) == T && cols == rec->nbd,
          "%s: position T x dim*N (%llu columns)", what, (unsigned long long)cols);
    if (T != rec->rows || T == 0)
        return;
    const struct {
        const char *name;
        const double *ref;
        size_t per, off, stride;
    } s[] = {{"/trajectory/time", rec->t, 1, 0, 1},
             {"/trajectory/position", rec->x, rec->nbd, 0, rec->nbd},
             {"/trajectory/velocity", rec->v, rec->nbd, 0, rec->nbd},
             {"/trajectory/kinetic_energy", rec->en, 1, 0, 3},
             {"/trajectory/potential_energy", rec->en, 1, 1, 3},
             {"/trajectory/dissipated_work", rec->en, 1, 2, 3},
             {"/trajectory/overlap", rec->ovl, rec->nc, 0, rec->nc},
             {"/trajectory/force", rec->f, rec->nc, 0, rec->nc},
             {"/trajectory/impulse", rec->P, rec->nc, 0, rec->nc}};
    for (size_t k = 0; k < sizeof s / sizeof s[0]; k++) {
        if (s[k].per == 0)
            continue;
        double *v = read_doubles(f, s[k].name, T * s[k].per);
        size_t bad = v ? 0 : 1;
        for (size_t i = 0; v && i < T; i++)
            for (size_t c = 0; c < s[k].per; c++)
                bad += memcmp(&v[i * s[k].per + c], &s[k].ref[i * s[k].stride + s[k].off + c],
                              sizeof(double)) != 0;
        CHECK(bad == 0, "%s: %s equals the getters bit for bit (%zu differ)", what, s[k].name, bad);
        free(v);
    }
}

/* /final, /events, /contacts, root attributes against the system, exactly. */
static void check_summary(hid_t f, const run *r, const char *status, const char *what)
{
    tu_case("%s", what); /* one case per file checked */
    char s[512];
    size_t nbd = r->rec.nbd;
    double *fx = read_doubles(f, "/final/position", nbd),
           *fv = read_doubles(f, "/final/velocity", nbd);
    double *gx = malloc(nbd * sizeof(double)), *gv = malloc(nbd * sizeof(double));
    cr_system_get_positions(r->sys, gx);
    cr_system_get_velocities(r->sys, gv);
    CHECK(fx && fv && memcmp(fx, gx, nbd * sizeof(double)) == 0 &&
              memcmp(fv, gv, nbd * sizeof(double)) == 0,
          "%s: /final equals the system's final state exactly", what);
    free(fx), free(fv), free(gx), free(gv);
    size_t ne = cr_system_event_count(r->sys);
    CHECK(rows_of(f, "/events", NULL) == ne, "%s: every event stored (%zu)", what, ne);
    CHECK(rows_of(f, "/contacts", NULL) == cr_system_contact_count(r->sys),
          "%s: one /contacts row per contact (%zu)", what, cr_system_contact_count(r->sys));
    attr_str(f, "status", s, sizeof s);
    CHECK(strcmp(s, status) == 0, "%s: status '%s', expected '%s'", what, s, status);
    attr_str(f, "end_reason", s, sizeof s);
    CHECK(strcmp(s, cr_system_end_reason(r->sys)) == 0, "%s: end_reason '%s'", what, s);
    CHECK(attr_ll(f, "format_version") == CR_STORE_FORMAT_VERSION, "%s: format_version", what);
    CHECK(attr_dbl(f, "t_end") == cr_system_get_time(r->sys), "%s: t_end = final time", what);
    CHECK(attr_ll(f, "steps") == cr_system_get_stats(r->sys).steps, "%s: solver steps", what);
    CHECK(rows_of(f, "/episodes", NULL) == cr_monitor_episode_count(r->mon),
          "%s: /episodes has the monitor's %zu episodes", what, cr_monitor_episode_count(r->mon));
}

/* Event rows read back as the system's events (time, contact, kind). */
static void check_events(hid_t f, const cr_system *sys, const char *what)
{
    tu_case("%s", what); /* one case per file checked */
    typedef struct {
        double t;
        long long c;
        int kind;
    } ev;
    size_t n = cr_system_event_count(sys);
    const cr_event *e = cr_system_events(sys);
    ev *rows = calloc(n + 1, sizeof(ev));
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ev));
    H5Tinsert(t, "time", HOFFSET(ev, t), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "contact", HOFFSET(ev, c), H5T_NATIVE_LLONG);
    H5Tinsert(t, "kind", HOFFSET(ev, kind), H5T_NATIVE_INT);
    hid_t d = H5Dopen2(f, "/events", H5P_DEFAULT);
    int ok = d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0;
    size_t bad = 0;
    for (size_t i = 0; ok && i < n; i++)
        bad += rows[i].t != e[i].t || rows[i].c != (long long)e[i].contact ||
               rows[i].kind != (int)e[i].kind;
    CHECK(ok && bad == 0 && n > 0, "%s: %zu event rows equal the system's (%zu differ)", what, n,
          bad);
    /* every column carries its units (one string per field, in order) */
    if (d >= 0) {
        hid_t a = H5Aopen(d, "units", H5P_DEFAULT);
        hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
        hssize_t nu = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
        hid_t ft = H5Dget_type(d);
        CHECK(nu == H5Tget_nmembers(ft), "%s: /events has one unit per column (%lld)", what,
              (long long)nu);
        H5Tclose(ft);
        if (sp >= 0)
            H5Sclose(sp);
        if (a >= 0)
            H5Aclose(a);
        H5Dclose(d);
    }
    H5Tclose(t);
    free(rows);
}

static void check_chain(run *r, const char *path, const char *text)
{
    CHECK(r->run_rc == CR_OK && r->commit_rc == CR_OK, "chain: run %d, commit %d: %s", r->run_rc,
          r->commit_rc, cr_store_last_error(r->st));
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "chain file opens with the plain HDF5 API");
    if (f < 0)
        return;
    check_trajectory(f, &r->rec, "chain");
    check_summary(f, r, "complete", "chain");
    check_events(f, r->sys, "chain");
    char s[256];
    hid_t g = H5Gopen2(f, "/model", H5P_DEFAULT);
    attr_str(g, "kind", s, sizeof s);
    CHECK(strcmp(s, "chain") == 0 && attr_ll(g, "dim") == 1, "chain: /model kind '%s', dim 1", s);
    H5Gclose(g);
    char *t = read_text(f);
    CHECK(t && strcmp(t, text) == 0, "chain: model text archived");
    free(t);
    H5Fclose(f);
}

static void check_pool(run *r, const char *path)
{
    CHECK(r->run_rc == CR_OK && r->commit_rc == CR_OK, "pool: run %d, commit %d: %s", r->run_rc,
          r->commit_rc, cr_store_last_error(r->st));
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "pool file opens with the plain HDF5 API");
    if (f < 0)
        return;
    check_trajectory(f, &r->rec, "pool");
    check_summary(f, r, "complete", "pool");
    check_events(f, r->sys, "pool");
    char s[256];
    hid_t g = H5Gopen2(f, "/model", H5P_DEFAULT);
    attr_str(g, "kind", s, sizeof s);
    CHECK(strcmp(s, "pool") == 0 && attr_ll(g, "dim") == 2, "pool: /model kind '%s', dim 2", s);
    H5Gclose(g);
    hsize_t cols = 0;
    CHECK(rows_of(f, "/model/wall_normal", &cols) == 1 && cols == 2,
          "pool: one wall, normal 1 x 2");
    CHECK(rows_of(f, "/final/velocity", &cols) == 3 && cols == 2, "pool: /final/velocity N x 2");
    H5Fclose(f);
}

/* Chain and pool files have the same objects, except the per-contact series a
 * chain alone has (docs/hdf5-layout.md: a pool's contacts appear during the run). */
static void check_same_structure(const char *chain, const char *pool)
{
    static char a[8192], b[8192];
    names_of(chain, a);
    names_of(pool, b);
    number_blind(a);
    number_blind(b);
    static const char *const chain_only[] = {"trajectory/overlap", "trajectory/force",
                                             "trajectory/impulse"};
    size_t missing = 0, extra = 0;
    for (char *p = b, *q; *p; p = q + 1) {
        q = strchr(p, '\n');
        *q = '\0';
        missing += !has_line(a, p);
        *q = '\n';
    }
    for (char *p = a, *q; *p; p = q + 1) {
        q = strchr(p, '\n');
        *q = '\0';
        int allowed = 0;
        for (size_t k = 0; k < 3; k++)
            allowed |= strcmp(p, chain_only[k]) == 0;
        extra += !allowed && !has_line(b, p);
        *q = '\n';
    }
    CHECK(missing == 0 && extra == 0 && has_line(a, "model/text") && has_line(b, "model/fixed"),
          "chain and pool files have one structure (%zu pool objects missing in the chain file, "
          "%zu chain objects missing in the pool file):\n%s---\n%s",
          missing, extra, a, b);
}

static void check_fixed_body(const char *path)
{
    cr_model *m = chain_wall(4, 4e-4, 1e-5);
    run r;
    run_into(&r, path, m, "", 0, 0);
    CHECK(r.run_rc == CR_OK && r.commit_rc == CR_OK, "chain with a wall runs: %s",
          cr_store_last_error(r.st));
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    uint8_t fixed[5] = {9, 9, 9, 9, 9};
    double *mass = read_doubles(f, "/model/mass", 5);
    hid_t d = H5Dopen2(f, "/model/fixed", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, fixed);
    H5Dclose(d);
    CHECK(fixed[4] == 1 && fixed[0] == 0 && fixed[3] == 0, "the wall is marked fixed");
    CHECK(mass && isinf(mass[4]) && mass[0] == 0.0041, "the wall's mass is inf, not a fake kg");
    free(mass);
    H5Fclose(f);
    run_free(&r);
    cr_model_destroy(m);
    unlink(path);
}

/* 200 KiB of model text (over HDF5's 64 KiB attribute cap) reads back byte for byte. */
static void check_big_text(const char *path)
{
    static const char line[] = "# ball π δ\n"; /* UTF-8, 14 bytes */
    size_t len = sizeof line - 1, n = (200 * 1024 / len + 1) * len;
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i += len)
        memcpy(text + i, line, len);
    text[n] = '\0';
    cr_model *m = chain3(0.0);
    run r;
    run_into(&r, path, m, text, 0, 0);
    CHECK(r.commit_rc == CR_OK, "a 200 KiB model text is stored: %s", cr_store_last_error(r.st));
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    char *back = f >= 0 ? read_text(f) : NULL;
    CHECK(back && strlen(back) == n && memcmp(back, text, n) == 0,
          "the 200 KiB model text reads back byte-identical");
    free(back);
    if (f >= 0)
        H5Fclose(f);
    run_free(&r);
    cr_model_destroy(m);
    free(text);
    unlink(path);
}

/* Stopped and failed runs keep a valid file at the target that says why. */
static void check_statuses(const char *path)
{
    cr_model *m = chain3(2e-6);
    run r;
    char s[512];
    run_into(&r, path, m, "", 5, CR_ERR_INTERRUPTED);
    CHECK(r.run_rc == CR_ERR_INTERRUPTED && r.commit_rc == CR_OK, "interrupted run committed");
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && rows_of(f, "/trajectory/time", NULL) == r.rec.rows && r.rec.rows >= 5,
          "interrupted: the %zu rows seen are kept", r.rec.rows);
    attr_str(f, "status", s, sizeof s);
    CHECK(strcmp(s, "interrupted") == 0, "status '%s'", s);
    H5Fclose(f);
    run_free(&r);

    /* a run that fails (here a listener's solver-class error) keeps its file */
    unlink(path);
    run_into(&r, path, m, "", 3, CR_ERR_SOLVER);
    CHECK(r.run_rc == CR_ERR_SOLVER && r.commit_rc == CR_OK, "failed run committed: %d %d",
          r.run_rc, r.commit_rc);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && rows_of(f, "/trajectory/time", NULL) == 3, "failed: its 3 rows are kept");
    attr_str(f, "status", s, sizeof s);
    CHECK(strcmp(s, "failed") == 0, "status '%s'", s);
    attr_str(f, "error", s, sizeof s);
    CHECK(strcmp(s, cr_system_last_error(r.sys)) == 0 && s[0], "error text stored: '%s'", s);
    CHECK(attr_dbl(f, "failure_time") == cr_system_get_time(r.sys) &&
              attr_dbl(f, "failure_time") == r.rec.t[2],
          "failure_time = the time the run stopped (%g)", attr_dbl(f, "failure_time"));
    CHECK(attr_ll(f, "failure_contact") == -1, "no contact named: failure_contact = -1");
    H5Fclose(f);
    run_free(&r);

    /* a failure message naming a contact is traced to it */
    cr_system *sys = cr_system_create(m, s, sizeof s);
    cr_store *st = cr_store_create(path, sys, m, NULL, NULL, s, sizeof s);
    CHECK(cr_store_commit(st, "failed", "CVODES failed at t = 1e-05 s near contact 1: step") ==
              CR_OK,
          "commit failed with a named contact");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(attr_ll(f, "failure_contact") == 1, "failure_contact = 1 (named in the error)");
    H5Fclose(f);
    CHECK(cr_store_commit(st, "bogus", NULL) == CR_ERR_INVALID, "second commit refused");
    cr_store_destroy(st);

    /* an abandoned store leaves neither the file nor its temporary */
    unlink(path);
    st = cr_store_create(path, sys, m, NULL, NULL, s, sizeof s);
    CHECK(cr_store_commit(st, "finished", NULL) == CR_ERR_INVALID, "unknown status refused");
    cr_store_destroy(st);
    CHECK(access(path, F_OK) != 0 && access(temp_of(path, (long)getpid()), F_OK) != 0,
          "no file and no temporary after an abandoned store");
    CHECK(cr_store_create(path, NULL, m, NULL, NULL, s, sizeof s) == NULL,
          "a store without a system refused");
    cr_system_destroy(sys);
    cr_model_destroy(m);
}

static void check_unwritable(void)
{
    char msg[512];
    cr_model *m = chain3(0.0);
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    CHECK(cr_store_create("/nonexistent-dir/x.h5", sys, m, NULL, NULL, msg, sizeof msg) == NULL,
          "unwritable path refused");
    CHECK(strstr(msg, "/nonexistent-dir/x.h5") != NULL, "message names the path: %s", msg);
    cr_system_destroy(sys);
    cr_model_destroy(m);
}

/* ---- a killed writer -------------------------------------------------------- */

static int kill_writer(const char *path)
{
    char msg[512];
    cr_model *m = chain3(2e-6);
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    cr_store *st =
        sys ? cr_store_create(path, sys, m, "inline.yaml", "# killed\n", msg, sizeof msg) : NULL;
    if (!st) {
        fprintf(stderr, "kill-writer: %s\n", msg);
        return 2;
    }
    cr_store_set_flush_interval(st, KILL_FLUSH, 1e9);
    recorder rec;
    recorder_attach(&rec, sys);
    rec.stop_at = KILL_AT;
    rec.stop_code = SIGKILL;
    cr_system_run(sys, 0.0);
    fprintf(stderr, "kill-writer: the run ended before row %d\n", KILL_AT);
    return 2;
}

/* Counts event batches (root returns) and dies at the KILL_BATCH-th, after
 * the store's own event listener (attached first) has flushed it. */
static int kill_at_batch(const cr_system *sys, size_t first, void *user)
{
    (void)sys, (void)first;
    if (++*(int *)user == KILL_BATCH)
        raise(SIGKILL);
    return CR_OK;
}

/* Records where each event batch ends (its last index + 1). */
static int batch_ends(const cr_system *sys, size_t first, void *user)
{
    size_t *ends = user;
    (void)first;
    if (ends[0] < 63)
        ends[++ends[0]] = cr_system_event_count(sys);
    return CR_OK;
}

static int kill_none(const char *path)
{
    char msg[512];
    cr_model *m = chain3(0.0);
    cr_settings s = *cr_model_settings(m);
    s.output_omit = CR_OUT_ALL; /* output.fields: none */
    cr_model_set_settings(m, &s);
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    cr_store *st =
        sys ? cr_store_create(path, sys, m, "inline.yaml", "# none\n", msg, sizeof msg) : NULL;
    if (!st) {
        fprintf(stderr, "kill-none: %s\n", msg);
        return 2;
    }
    cr_store_set_flush_interval(st, 1000000, 0.0);
    int batches = 0;
    cr_system_add_event_listener(sys, kill_at_batch, &batches);
    cr_system_run(sys, 0.0);
    fprintf(stderr, "kill-none: the run ended before event batch %d\n", KILL_BATCH);
    return 2;
}

/* output.fields: none keeps the events on a kill: the temporary of a writer
 * killed at its third event batch holds /events of the first three batches,
 * equal to an uninterrupted run's, and no trajectory series. */
static void check_kill_none(const char *self, const char *path)
{
    tu_case("kill, output none");
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--kill-none", path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the none writer died of SIGKILL");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", temp_of(path, (long)pid));
    hid_t f = H5Fopen(tmp, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "the killed none writer's temporary opens");
    if (f < 0)
        return;
    char msg[512];
    cr_model *m = chain3(0.0);
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    size_t ends[64] = {0};
    cr_system_add_event_listener(sys, batch_ends, ends);
    cr_system_run(sys, 0.0);
    size_t want = ends[0] >= KILL_BATCH ? ends[KILL_BATCH] : 0;
    size_t have = rows_of(f, "/events", NULL);
    CHECK(want > 0 && have == want, "events of %d batches survive: %zu (uninterrupted: %zu)",
          KILL_BATCH, have, want);
    CHECK(H5Lexists(f, "/trajectory/time", H5P_DEFAULT) == 0, "and no trajectory series");
    H5Fclose(f);
    cr_system_destroy(sys);
    cr_model_destroy(m);
    unlink(tmp);
}

static pid_t spawn_killed_writer(const char *self, const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--kill-writer", path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the writer died of SIGKILL");
    return pid;
}

/* What a flush keeps: the killed writer's temporary opens, holds the rows of
 * its last flush (20 of 25) equal to an uninterrupted run's, and says
 * "running"; the next store into the same path keeps it as .partial-PID.h5. */
static void check_kill(const char *self, const char *path)
{
    unlink(path);
    pid_t pid = spawn_killed_writer(self, path);
    char tmp[4096], s[256], msg[512];
    snprintf(tmp, sizeof tmp, "%s", temp_of(path, (long)pid));
    hid_t f = H5Fopen(tmp, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "the killed writer's temporary %s opens", tmp);
    if (f < 0)
        return;
    size_t T = rows_of(f, "/trajectory/time", NULL);
    CHECK(T == 2 * KILL_FLUSH, "rows of the last flush survive: %zu (flush every %d, killed at %d)",
          T, KILL_FLUSH, KILL_AT);
    attr_str(f, "status", s, sizeof s);
    CHECK(strcmp(s, "running") == 0, "its status says 'running'");
    cr_model *m = chain3(2e-6);
    run r;
    run_into(&r, path, m, "", 0, 0);
    double *t = read_doubles(f, "/trajectory/time", T),
           *v = read_doubles(f, "/trajectory/velocity", 3 * T);
    CHECK(t && v && T <= r.rec.rows && memcmp(t, r.rec.t, T * sizeof(double)) == 0 &&
              memcmp(v, r.rec.v, 3 * T * sizeof(double)) == 0,
          "the surviving rows equal an uninterrupted run's, bit for bit");
    CHECK(attr_dbl(f, "t_end") == (t ? t[T - 1] : -1), "t_end = time of the last flushed row");
    size_t ne = 0, nev = cr_system_event_count(r.sys);
    for (size_t i = 0; t && i < nev; i++)
        ne += cr_system_events(r.sys)[i].t <= t[T - 1];
    CHECK(rows_of(f, "/events", NULL) == ne, "events up to the flush survive: %llu of %zu",
          (unsigned long long)rows_of(f, "/events", NULL), ne);
    char *text = read_text(f);
    CHECK(text && strcmp(text, "# killed\n") == 0, "the model text survives");
    free(text), free(t), free(v);
    H5Fclose(f);
    /* run_into's store (created after the kill) kept the temporary */
    char partial[4096];
    snprintf(partial, sizeof partial, "%s.partial-%ld.h5", path, (long)pid);
    CHECK(cr_store_recovered_count(r.st) == 1 && cr_store_recovered_path(r.st, 0) &&
              strcmp(cr_store_recovered_path(r.st, 0), partial) == 0,
          "the next store reports %s", partial);
    CHECK(access(tmp, F_OK) != 0 && rows_of(f = H5Fopen(partial, H5F_ACC_RDONLY, H5P_DEFAULT),
                                            "/trajectory/time", NULL) == T,
          "the stale temporary was renamed, not deleted");
    H5Fclose(f);
    run_free(&r);

    /* a second kill with the same pid never overwrites the first partial file;
     * a temporary of a live process (pid 1) is left alone; the note says so */
    FILE *fp = fopen(temp_of(path, (long)pid), "w");
    fputs("second", fp);
    fclose(fp);
    fp = fopen(temp_of(path, 1), "w");
    fclose(fp);
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    cr_store *st = cr_store_create(path, sys, m, NULL, NULL, msg, sizeof msg);
    char second[4096];
    snprintf(second, sizeof second, "%s.partial-%ld-2.h5", path, (long)pid);
    CHECK(cr_store_recovered_count(st) == 1 && strcmp(cr_store_recovered_path(st, 0), second) == 0,
          "an existing partial file is not overwritten: %s", cr_store_recovered_path(st, 0));
    CHECK(strstr(msg, second) != NULL, "create's note names it: %s", msg);
    CHECK(access(temp_of(path, 1), F_OK) == 0, "the temporary of a live process is left alone");
    cr_store_destroy(st);
    cr_system_destroy(sys);
    unlink(temp_of(path, 1));
    unlink(second);
    unlink(partial);
    unlink(path);
    cr_model_destroy(m);
}

/* ---- a full disk ------------------------------------------------------------- */

static void full_disk_runs(const char *dir)
{
    char out[4096], msg[512];
    snprintf(out, sizeof out, "%s/out.h5", dir);
    cr_model *small = chain3(0.0);
    run r;
    run_into(&r, out, small, "", 0, 0);
    CHECK(r.commit_rc == CR_OK, "a good file on the small disk: %s", cr_store_last_error(r.st));
    run_free(&r);
    char keep[4096];
    snprintf(keep, sizeof keep, "test-store-full-disk-good.%ld", (long)getpid());
    FILE *a = fopen(out, "rb"), *b = fopen(keep, "wb");
    for (int c; a && b && (c = fgetc(a)) != EOF;)
        fputc(c, b);
    if (a)
        fclose(a);
    if (b)
        fclose(b);

    /* creation on a full disk: 1 MiB of model text cannot fit in 512 KiB */
    size_t n = 1 << 20;
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + (i * 7919) % 26);
    text[n] = '\0';
    cr_system *sys = cr_system_create(small, msg, sizeof msg);
    cr_store *st = cr_store_create(out, sys, small, NULL, text, msg, sizeof msg);
    CHECK(st == NULL, "create fails on a full disk");
    CHECK(strstr(msg, out) && strstr(msg, "disk full"), "create's message: %s", msg);
    CHECK(count_entries(dir) == 1 && same_bytes(out, keep),
          "no temporary left (%d entries) and the good file is byte-identical", count_entries(dir));
    cr_store_destroy(st);
    cr_system_destroy(sys);
    free(text);

    /* a run that fills the disk: its error is a write error naming the path */
    cr_model *big = free_chain(100, 1.0, 1e-3);
    run_into_flushing(&r, out, big, "", 0, 0, 50);
    CHECK(r.run_rc == CR_ERR_IO, "the run stops with CR_ERR_IO, not 'interrupted': %d (%s)",
          r.run_rc, cr_strerror(r.run_rc));
    CHECK(r.commit_rc == CR_ERR_IO, "commit reports the write error: %d", r.commit_rc);
    const char *e = cr_store_last_error(r.st);
    CHECK(strstr(e, out) && strstr(e, "disk full while appending trajectory rows"),
          "the message names the path and the cause: %s", e);
    CHECK(count_entries(dir) == 1 && same_bytes(out, keep),
          "no temporary left (%d entries) and the good file is byte-identical", count_entries(dir));
    run_free(&r);
    cr_model_destroy(big);

    /* a disk with no byte free: create fails, leaves no 0-byte temporary */
    char filler[4096];
    snprintf(filler, sizeof filler, "%s/filler", dir);
    FILE *fp = fopen(filler, "wb");
    static char block[4096];
    while (fp && fwrite(block, 1, sizeof block, fp) == sizeof block && fflush(fp) == 0)
        ;
    if (fp)
        fclose(fp);
    sys = cr_system_create(small, msg, sizeof msg);
    st = cr_store_create(out, sys, small, NULL, "", msg, sizeof msg);
    CHECK(st == NULL && strstr(msg, out) && strstr(msg, "disk full"),
          "create on a disk with no space left: %s", msg);
    CHECK(count_entries(dir) == 2 && same_bytes(out, keep),
          "no temporary left (%d entries with the filler) and the good file is byte-identical",
          count_entries(dir));
    cr_store_destroy(st);
    cr_system_destroy(sys);
    unlink(filler);
    cr_model_destroy(small);
    unlink(keep);
}

static const char *self_exe = "/proc/self/exe";

static void check_full_disk(void)
{
    char dir[] = "/tmp/cradle-full-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("full-disk test skipped: mkdtemp failed\n");
        return;
    }
    if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=512k") != 0) {
        printf("full-disk test skipped: needs root to mount a 512 KiB tmpfs (%s)\n",
               geteuid() ? "not root" : strerror(errno));
        rmdir(dir);
        return;
    }
    /* in a fresh process, as the CLI runs: a crash at exit (HDF5's atexit
     * handler meeting a broken file) shows as a signal, and the parent
     * unmounts whatever happens */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self_exe, self_exe, "--full-disk", dir, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the full-disk checks pass and their process exits normally (no crash at exit): "
          "%s %d",
          WIFSIGNALED(status) ? "signal" : "exit status",
          WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    umount2(dir, MNT_DETACH);
    rmdir(dir);
}

/* ---- main ------------------------------------------------------------------- */

static int write_pair(const char *dir)
{
    char path[4096];
    cr_model *c = chain3(0.0), *p = pool3();
    run r;
    snprintf(path, sizeof path, "%s/chain.h5", dir);
    run_into(&r, path, c, "name: chain\n", 0, 0);
    int rc = r.commit_rc;
    run_free(&r);
    snprintf(path, sizeof path, "%s/pool.h5", dir);
    run_into(&r, path, p, "name: pool\n", 0, 0);
    rc |= r.commit_rc;
    run_free(&r);
    cr_model_destroy(c);
    cr_model_destroy(p);
    return rc == CR_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines survive a crash at exit */
    if (argc == 3 && strcmp(argv[1], "--kill-writer") == 0)
        return kill_writer(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--kill-none") == 0)
        return kill_none(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_pair(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--full-disk") == 0) {
        full_disk_runs(argv[2]);
        return tu_finish("test-store (full disk)");
    }
    /* names of this process: store and store-memcheck run at the same time */
    char chain[64], pool[64], killed[64];
    snprintf(chain, sizeof chain, "test-store-chain-%ld.h5", (long)getpid());
    snprintf(pool, sizeof pool, "test-store-pool-%ld.h5", (long)getpid());
    snprintf(killed, sizeof killed, "test-store-killed-%ld.h5", (long)getpid());
    const char *text = "# archived model text\nname: store-test\n";
    unlink(chain);
    unlink(pool);

    cr_model *cm = chain3(0.0);
    run rc;
    run_into(&rc, chain, cm, text, 0, 0);
    check_chain(&rc, chain, text);
    run_free(&rc);
    cr_model_destroy(cm);

    cr_model *pm = pool3();
    run rp;
    run_into(&rp, pool, pm, text, 0, 0);
    check_pool(&rp, pool);
    run_free(&rp);
    cr_model_destroy(pm);

    check_same_structure(chain, pool);
    check_fixed_body(chain);
    check_big_text(chain);
    check_statuses(chain);
    check_unwritable();
    /* argv[0] under valgrind, where /proc/self/exe is valgrind itself */
    if (strchr(argv[0], '/'))
        self_exe = argv[0];
    check_kill(self_exe, killed);
    check_kill_none(self_exe, killed);
    check_full_disk();
    unlink(chain);
    unlink(pool);
    return tu_finish("test-store");
}
