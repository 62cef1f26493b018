/*
 * HDF5 writer. Rows of the trajectory are buffered and written in blocks into
 * chunked, deflate-compressed datasets whose first dimension grows.
 */
#include "cradle/store.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"

#define ROW_BLOCK 256

/* An extendible (rows × cols) double dataset fed one row at a time. */
typedef struct {
    hid_t dset;
    size_t cols, rows, buffered;
    double *buf;
} series;

enum { S_TIME, S_POS, S_VEL, S_OVL, S_FORCE, S_IMPULSE, S_KIN, S_POT, S_DISS, S_COUNT };

struct cr_store {
    char *path, *tmp;
    hid_t file, traj;
    series s[S_COUNT];
    double *row;
    size_t nb, nc;
    int committed;
    int pool; /* a pool's store: 2N position columns, no per-contact series */
    char err[CR_ERRMSG_LEN];
};

static int h5fail(cr_store *st, const char *what)
{
    cr_set_msg(st->err, sizeof st->err, "%s: HDF5 error while %s", st->tmp ? st->tmp : "?",
               what);
    return CR_ERR_HDF5;
}

static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) + 1);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = a < 0 ? -1 : H5Awrite(a, type, value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return e < 0 ? -1 : 0;
}

/* A scalar attribute of a native numeric type. */
static int attr_scalar(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = a < 0 ? -1 : H5Awrite(a, type, value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return e < 0 ? -1 : 0;
}

static int attr_double(hid_t obj, const char *name, double value)
{
    return attr_scalar(obj, name, H5T_NATIVE_DOUBLE, &value);
}

static int attr_long(hid_t obj, const char *name, long value)
{
    return attr_scalar(obj, name, H5T_NATIVE_LONG, &value);
}

static int write_vector(hid_t loc, const char *name, const double *v, size_t n,
                        const char *units)
{
    hsize_t dim = n;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    herr_t e = d < 0 ? -1 : (n ? H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0);
    if (d >= 0 && units)
        e |= attr_string(d, "units", units);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return e < 0 ? -1 : 0;
}

/* A 1-D table of n compound rows, with an optional description attribute. */
static int write_table(hid_t loc, const char *name, hid_t type, const void *rows, size_t n,
                       const char *description)
{
    hsize_t dim = n;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = d < 0 || (n && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) ? -1 : 0;
    if (d >= 0 && description)
        e |= attr_string(d, "description", description);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return e;
}

static int series_open(series *s, hid_t loc, const char *name, size_t cols, const char *units)
{
    s->cols = cols;
    int rank = cols == 0 ? 1 : 2;
    hsize_t dims[2] = {0, cols}, maxd[2] = {H5S_UNLIMITED, cols};
    size_t per_row = cols ? cols : 1;
    hsize_t chunk_rows = 65536 / (per_row * sizeof(double));
    if (chunk_rows < 1)
        chunk_rows = 1;
    if (chunk_rows > 4096)
        chunk_rows = 4096;
    hsize_t chunk[2] = {chunk_rows, cols ? cols : 1};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
    s->dset = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (s->dset < 0)
        return -1;
    s->buf = malloc(ROW_BLOCK * per_row * sizeof(double));
    if (!s->buf)
        return -1;
    return attr_string(s->dset, "units", units);
}

static int series_flush(series *s)
{
    if (s->buffered == 0 || s->dset <= 0)
        return 0;
    int rank = s->cols == 0 ? 1 : 2;
    hsize_t newdims[2] = {s->rows + s->buffered, s->cols};
    if (H5Dset_extent(s->dset, newdims) < 0)
        return -1;
    hid_t fspace = H5Dget_space(s->dset);
    hsize_t start[2] = {s->rows, 0}, count[2] = {s->buffered, s->cols};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mspace = H5Screate_simple(rank, count, NULL);
    herr_t e = H5Dwrite(s->dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, s->buf);
    H5Sclose(mspace);
    H5Sclose(fspace);
    s->rows += s->buffered;
    s->buffered = 0;
    return e < 0 ? -1 : 0;
}

static int series_push(series *s, const double *row)
{
    if (s->dset <= 0)
        return 0; /* a series this kind of run does not have */
    size_t per_row = s->cols ? s->cols : 1;
    memcpy(s->buf + s->buffered * per_row, row, per_row * sizeof(double));
    if (++s->buffered == ROW_BLOCK)
        return series_flush(s);
    return 0;
}

static void close_all(cr_store *st)
{
    for (int k = 0; k < S_COUNT; k++) {
        if (st->s[k].dset > 0)
            H5Dclose(st->s[k].dset);
        st->s[k].dset = 0;
    }
    if (st->traj > 0)
        H5Gclose(st->traj);
    if (st->file > 0)
        H5Fclose(st->file);
    st->traj = st->file = 0;
}

void cr_store_destroy(cr_store *st)
{
    if (!st)
        return;
    close_all(st);
    if (!st->committed && st->tmp)
        unlink(st->tmp);
    for (int k = 0; k < S_COUNT; k++)
        free(st->s[k].buf);
    free(st->row);
    free(st->path);
    free(st->tmp);
    free(st);
}

const char *cr_store_last_error(const cr_store *st)
{
    return st ? st->err : "no store";
}

static int write_model(cr_store *st, const cr_model *model)
{
    hid_t g = H5Gcreate2(st->file, "model", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    size_t nb = st->nb, nc = st->nc;
    size_t n = nb > nc ? nb : nc;
    double *v = malloc((n ? n : 1) * sizeof(double));
    int e = v ? 0 : -1;
    struct {
        const char *name, *units;
        int per_ball;
        int what;
    } cols[] = {{"mass", "kg", 1, 0},          {"radius", "m", 1, 1},
                {"position0", "m", 1, 2},      {"velocity0", "m/s", 1, 3},
                {"contact_K", "N/m^n", 0, 4},  {"contact_n", "1", 0, 5},
                {"contact_C", "N s/m^(m+1)", 0, 6}, {"contact_m", "1", 0, 7},
                {"contact_release_force", "1 = force, 0 = gap", 0, 8},
                {"initial_overlap", "m", 0, 9}};
    for (size_t k = 0; e == 0 && k < sizeof cols / sizeof cols[0]; k++) {
        size_t count = cols[k].per_ball ? nb : nc;
        for (size_t i = 0; i < count; i++) {
            const cr_contact_params *p = cols[k].per_ball ? NULL : cr_model_contact(model, i);
            switch (cols[k].what) {
            case 0: v[i] = cr_model_mass(model, i); break;
            case 1: v[i] = cr_model_radius(model, i); break;
            case 2: v[i] = cr_model_position(model, i); break;
            case 3: v[i] = cr_model_velocity(model, i); break;
            case 4: v[i] = p->K; break;
            case 5: v[i] = p->n; break;
            case 6: v[i] = p->C; break;
            case 7: v[i] = p->m; break;
            case 8: v[i] = p->release == CR_RELEASE_FORCE; break;
            default: v[i] = cr_model_initial_overlap(model, i); break;
            }
        }
        e |= write_vector(g, cols[k].name, v, count, cols[k].units);
    }
    free(v);
    e |= attr_string(g, "kind", "chain-1d");
    H5Gclose(g);
    return e;
}

/* The file every run writes: a temporary beside @p path (renamed into place by
 * store_finish, so an interrupted run never leaves a half-written file at
 * @p path), its common attributes and the /trajectory group; rows hold
 * max(nb, nc) numbers. */
static cr_store *store_open(const char *path, size_t nb, size_t nc, const char *model_path,
                            const char *model_text, char *msg, size_t msglen)
{
    /* The library never prints: silence HDF5's automatic error stack dump. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    cr_store *st = calloc(1, sizeof(*st));
    if (!st) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    st->nb = nb;
    st->nc = nc;
    st->path = strdup(path);
    size_t tl = strlen(path) + 32;
    st->tmp = malloc(tl);
    size_t rl = nb > nc ? nb : nc;
    st->row = malloc((rl ? rl : 1) * sizeof(double));
    if (!st->path || !st->tmp || !st->row) {
        cr_set_msg(msg, msglen, "out of memory");
        cr_store_destroy(st);
        return NULL;
    }
    snprintf(st->tmp, tl, "%s.tmp.%ld", path, (long)getpid());
    st->file = H5Fcreate(st->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (st->file < 0) {
        cr_set_msg(msg, msglen, "%s: cannot create output file (is the folder writable?)",
                   path);
        free(st->tmp);
        st->tmp = NULL;
        cr_store_destroy(st);
        return NULL;
    }
    int e = attr_string(st->file, "cradle_version", cr_version());
    e |= attr_string(st->file, "model_file", model_path ? model_path : "");
    e |= attr_string(st->file, "model_text", model_text ? model_text : "");
    e |= attr_string(st->file, "status", "running");
    st->traj = H5Gcreate2(st->file, "trajectory", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (e || st->traj < 0) {
        cr_set_msg(msg, msglen, "%s: HDF5 error while creating the layout", path);
        cr_store_destroy(st);
        return NULL;
    }
    return st;
}

/* Flushed, closed and moved into place: the file at st->path is complete. */
static int store_finish(cr_store *st)
{
    close_all(st);
    if (rename(st->tmp, st->path) != 0) {
        cr_set_msg(st->err, sizeof st->err, "%s: cannot move the finished file into place",
                   st->path);
        return CR_ERR_IO;
    }
    st->committed = 1;
    return CR_OK;
}

cr_store *cr_store_create(const char *path, const cr_model *model, const char *model_path,
                          const char *model_text, char *msg, size_t msglen)
{
    if (!path || !model) {
        cr_set_msg(msg, msglen, "cr_store_create: no path or model");
        return NULL;
    }
    cr_store *st = store_open(path, cr_model_ball_count(model), cr_model_contact_count(model),
                              model_path, model_text, msg, msglen);
    if (!st)
        return NULL;
    int e = attr_string(st->file, "model_name", cr_model_name(model));
    e |= write_model(st, model);
    static const struct {
        const char *name, *units;
        int per; /* 0 scalar, 1 ball, 2 contact */
    } sd[S_COUNT] = {{"time", "s", 0},        {"position", "m", 1},
                     {"velocity", "m/s", 1},  {"overlap", "m", 2},
                     {"force", "N", 2},       {"impulse", "N s", 2},
                     {"kinetic_energy", "J", 0}, {"potential_energy", "J", 0},
                     {"dissipated_work", "J", 0}};
    for (int k = 0; e == 0 && k < S_COUNT; k++)
        e |= series_open(&st->s[k], st->traj, sd[k].name,
                         sd[k].per == 0 ? 0 : (sd[k].per == 1 ? st->nb : st->nc), sd[k].units);
    if (e) {
        cr_set_msg(msg, msglen, "%s: HDF5 error while creating the layout", path);
        cr_store_destroy(st);
        return NULL;
    }
    return st;
}

int cr_store_append_frame(cr_store *st, const cr_sim *sim)
{
    double t = cr_sim_get_time(sim);
    int e = series_push(&st->s[S_TIME], &t);
    cr_sim_get_positions(sim, st->row);
    e |= series_push(&st->s[S_POS], st->row);
    cr_sim_get_velocities(sim, st->row);
    e |= series_push(&st->s[S_VEL], st->row);
    if (st->nc) {
        cr_sim_get_overlaps(sim, st->row);
        e |= series_push(&st->s[S_OVL], st->row);
        cr_sim_get_forces(sim, st->row);
        e |= series_push(&st->s[S_FORCE], st->row);
        cr_sim_get_impulses(sim, st->row);
        e |= series_push(&st->s[S_IMPULSE], st->row);
    }
    double en[3] = {cr_sim_kinetic_energy(sim), cr_sim_potential_energy(sim),
                    cr_sim_dissipated_work(sim)};
    e |= series_push(&st->s[S_KIN], &en[0]);
    e |= series_push(&st->s[S_POT], &en[1]);
    e |= series_push(&st->s[S_DISS], &en[2]);
    return e ? h5fail(st, "appending a trajectory row") : CR_OK;
}

int cr_store_output_callback(const cr_sim *sim, void *user)
{
    return cr_store_append_frame(user, sim);
}

static int write_event_table(hid_t loc, const cr_event *ev, size_t n);

static int write_events(cr_store *st, const cr_sim *sim)
{
    return write_event_table(st->file, cr_sim_events(sim), cr_sim_event_count(sim));
}

static int write_matrix(hid_t loc, const char *name, const double *v, size_t rows, size_t cols,
                        const char *units)
{
    hsize_t dims[2] = {rows, cols};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    herr_t e = d < 0 ? -1
                     : (rows > 0 && cols > 0 ? H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                               H5P_DEFAULT, v)
                                    : 0);
    if (d >= 0 && units)
        e |= attr_string(d, "units", units);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return e < 0 ? -1 : 0;
}

/* The /episodes table from episode scalars (chains and pools alike). */
static int write_episode_rows(hid_t loc, const cr_episode_info *in, size_t n)
{
    typedef struct {
        long index;
        double t_start, t_end;
        long first_ball, last_ball, first_contact, last_contact, reference;
        double T_minus, T_plus, kappa, dissipated;
        int complete;
        long events;
    } row;
    row *rows = calloc(n ? n : 1, sizeof(row));
    if (!rows)
        return -1;
    for (size_t k = 0; k < n; k++)
        rows[k] = (row){(long)k,          in[k].t_start,         in[k].t_end,
                        (long)in[k].first_ball, (long)in[k].last_ball,
                        (long)in[k].first_contact, (long)in[k].last_contact,
                        (long)in[k].reference, in[k].T_minus,   in[k].T_plus,
                        in[k].kappa,      in[k].dissipated,      in[k].complete,
                        (long)in[k].event_count};
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(row));
    H5Tinsert(t, "index", HOFFSET(row, index), H5T_NATIVE_LONG);
    H5Tinsert(t, "t_start", HOFFSET(row, t_start), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "t_end", HOFFSET(row, t_end), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "first_ball", HOFFSET(row, first_ball), H5T_NATIVE_LONG);
    H5Tinsert(t, "last_ball", HOFFSET(row, last_ball), H5T_NATIVE_LONG);
    H5Tinsert(t, "first_contact", HOFFSET(row, first_contact), H5T_NATIVE_LONG);
    H5Tinsert(t, "last_contact", HOFFSET(row, last_contact), H5T_NATIVE_LONG);
    H5Tinsert(t, "reference", HOFFSET(row, reference), H5T_NATIVE_LONG);
    H5Tinsert(t, "T_minus", HOFFSET(row, T_minus), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "T_plus", HOFFSET(row, T_plus), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "kappa", HOFFSET(row, kappa), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "dissipated", HOFFSET(row, dissipated), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "complete", HOFFSET(row, complete), H5T_NATIVE_INT);
    H5Tinsert(t, "events", HOFFSET(row, events), H5T_NATIVE_LONG);
    int e = write_table(loc, "episodes", t, rows, n,
                        "impact episodes; details in /episode/NNNN; SI units; kappa = T+/T-");
    H5Tclose(t);
    free(rows);
    return e;
}

static int write_episode_table(cr_store *st, const cr_monitor *mon)
{
    size_t n = cr_monitor_episode_count(mon);
    cr_episode_info *in = calloc(n ? n : 1, sizeof(*in));
    if (!in)
        return -1;
    for (size_t k = 0; k < n; k++)
        cr_monitor_get_episode(mon, k, &in[k]);
    int e = write_episode_rows(st->file, in, n);
    free(in);
    return e;
}

static int write_contact_records(hid_t g, const cr_contact_record *rec, size_t nc)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(cr_contact_record));
    H5Tinsert(t, "contact", HOFFSET(cr_contact_record, contact), H5T_NATIVE_ULONG);
    H5Tinsert(t, "impulse", HOFFSET(cr_contact_record, impulse), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "compression", HOFFSET(cr_contact_record, compression), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "expansion", HOFFSET(cr_contact_record, expansion), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "gamma_minus", HOFFSET(cr_contact_record, gamma_minus), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "gamma_plus", HOFFSET(cr_contact_record, gamma_plus), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "newton", HOFFSET(cr_contact_record, newton), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "poisson", HOFFSET(cr_contact_record, poisson), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "alpha", HOFFSET(cr_contact_record, alpha), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "peak_overlap", HOFFSET(cr_contact_record, peak_overlap), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "peak_force", HOFFSET(cr_contact_record, peak_force), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "closings", HOFFSET(cr_contact_record, closings), H5T_NATIVE_INT);
    H5Tinsert(t, "openings", HOFFSET(cr_contact_record, openings), H5T_NATIVE_INT);
    int e = write_table(g, "contacts", t, rec, nc, NULL);
    H5Tclose(t);
    return e;
}

/* Episodes with more contacts than this store no dense matrices. */
#define DENSE_MAX 256

static int write_episode_events(hid_t g, const size_t *ev, size_t nev)
{
    long *li = malloc((nev ? nev : 1) * sizeof(long));
    if (!li)
        return -1;
    for (size_t i = 0; i < nev; i++)
        li[i] = (long)ev[i];
    hsize_t dim = nev;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(g, "events", H5T_NATIVE_LONG, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    int e = d < 0 || (nev && H5Dwrite(d, H5T_NATIVE_LONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, li) < 0)
                ? -1
                : 0;
    if (d >= 0) {
        e |= attr_string(d, "description", "rows of /events, in time order");
        H5Dclose(d);
    }
    H5Sclose(space);
    free(li);
    return e;
}

/* α matrix, kinetic angles, and the rigid-law configuration M, W of an episode. */
static int write_episode_matrices(hid_t g, const cr_monitor *mon, size_t k,
                                  const cr_contact_record *rec, size_t nc)
{
    cr_impact *imp = cr_monitor_impact(mon, k);
    size_t nd = imp ? cr_impact_dof_count(imp) : 0, nu = imp ? cr_impact_contact_count(imp) : 0;
    size_t cap = nc * nc + nd * nd + nd * nu + 1;
    double *buf = imp ? malloc(cap * sizeof(double)) : NULL;
    int e = 0;
    if (!imp || !buf) {
        cr_impact_destroy(imp);
        free(buf);
        return -1;
    }
    /* α_ij = P_j / P_i (001 eq. 26's order), row i, column j */
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < nc; j++)
            buf[i * nc + j] = rec[i].impulse != 0.0 ? rec[j].impulse / rec[i].impulse : NAN;
    e |= write_matrix(g, "alpha_matrix", buf, nc, nc, "alpha_ij = P_j / P_i");
    for (size_t i = 0; i < nu; i++)
        for (size_t j = 0; j < nu; j++)
            buf[i * nu + j] = cr_impact_kinetic_cosine(imp, i, j);
    e |= write_matrix(g, "kinetic_cosine", buf, nu, nu,
                      "cos of the kinetic angle, 001 eq. 39-40; unilateral contacts");
    /* the rigid-law configuration: moving balls × unilateral contacts */
    cr_impact_get_mass(imp, buf);
    e |= write_matrix(g, "M", buf, nd, nd, "kg; rows/columns: the moving balls");
    cr_impact_get_gradients(imp, buf);
    e |= write_matrix(g, "W", buf, nd, nu, "gamma = W^T u; columns: the unilateral contacts");
    cr_impact_destroy(imp);
    free(buf);
    return e;
}

int cr_store_write_episodes(cr_store *st, const cr_monitor *mon)
{
    CR_CHECK(st && mon, st ? st->err : NULL, CR_ERR_INVALID);
    int e = write_episode_table(st, mon);
    hid_t top = H5Gcreate2(st->file, "episode", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (top < 0)
        return h5fail(st, "creating /episode");
    size_t n = cr_monitor_episode_count(mon);
    for (size_t k = 0; k < n && e == 0; k++) {
        char name[32];
        snprintf(name, sizeof name, "%04zu", k);
        hid_t g = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            e = -1;
            break;
        }
        size_t nb, nc, nev;
        const double *u0 = cr_monitor_velocities(mon, k, 0, &nb);
        const double *u1 = cr_monitor_velocities(mon, k, 1, &nb);
        const double *m = cr_monitor_masses(mon, k, &nb);
        const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nc);
        const size_t *ev = cr_monitor_events(mon, k, &nev);
        e |= write_vector(g, "velocity_before", u0, nb, "m/s");
        e |= write_vector(g, "velocity_after", u1, nb, "m/s");
        e |= write_vector(g, "mass", m, nb, "kg");
        e |= write_contact_records(g, rec, nc);
        e |= write_episode_events(g, ev, nev);
        /* The dense matrices grow as contacts² (and the laws' configuration costs
         * a dense Cholesky): for a long chain's wave they are left out, the
         * per-contact records keep α and the rest. */
        if (nc > DENSE_MAX) {
            char why[96];
            snprintf(why, sizeof why, "%zu contacts > %d: alpha_matrix, kinetic_cosine, M, W "
                                      "omitted",
                     nc, DENSE_MAX);
            e |= attr_string(g, "dense_matrices", why);
        } else {
            e |= write_episode_matrices(g, mon, k, rec, nc);
        }
        H5Gclose(g);
    }
    H5Gclose(top);
    return e ? h5fail(st, "writing the episodes") : CR_OK;
}

int cr_store_commit(cr_store *st, const cr_sim *sim, const char *status)
{
    CR_CHECK(st && sim && status, st ? st->err : NULL, CR_ERR_INVALID);
    int e = 0;
    for (int k = 0; k < S_COUNT; k++)
        e |= series_flush(&st->s[k]);
    e |= write_events(st, sim);
    cr_sim_stats stats = cr_sim_get_stats(sim);
    double L, V, T;
    cr_sim_get_scales(sim, &L, &V, &T);
    H5Adelete(st->file, "status");
    e |= attr_string(st->file, "status", status);
    e |= attr_string(st->file, "end_reason", cr_sim_end_reason(sim));
    e |= attr_double(st->file, "length_scale", L);
    e |= attr_double(st->file, "speed_scale", V);
    e |= attr_double(st->file, "time_scale", T);
    e |= attr_long(st->file, "steps", stats.steps);
    e |= attr_long(st->file, "rhs_evals", stats.rhs_evals);
    e |= attr_long(st->file, "jac_evals", stats.jac_evals);
    e |= attr_long(st->file, "restarts", stats.restarts);
    if (e)
        return h5fail(st, "writing the run summary");
    return store_finish(st);
}

/* An events table from any simulator's event array. */
static int write_event_table(hid_t loc, const cr_event *ev, size_t n)
{
    hid_t kind = H5Tenum_create(H5T_NATIVE_INT);
    for (int k = CR_EVENT_CLOSE; k <= CR_EVENT_FORCE_REENGAGE; k++)
        H5Tenum_insert(kind, cr_event_kind_name((cr_event_kind)k), &k);
    typedef struct {
        double t;
        long contact;
        int kind;
        double overlap, rate, force;
    } row;
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(row));
    H5Tinsert(type, "time", HOFFSET(row, t), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "contact", HOFFSET(row, contact), H5T_NATIVE_LONG);
    H5Tinsert(type, "kind", HOFFSET(row, kind), kind);
    H5Tinsert(type, "overlap", HOFFSET(row, overlap), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "rate", HOFFSET(row, rate), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "force", HOFFSET(row, force), H5T_NATIVE_DOUBLE);
    row *rows = calloc(n ? n : 1, sizeof(row)); /* zeroed padding: no uninitialised bytes on disk */
    int e = rows ? 0 : -1;
    for (size_t i = 0; rows && i < n; i++)
        rows[i] = (row){ev[i].t, (long)ev[i].contact, (int)ev[i].kind,
                        ev[i].overlap, ev[i].rate, ev[i].force};
    if (!e)
        e = write_table(loc, "events", type, rows, n,
                        "contact events located by CVODE root finding; SI units");
    H5Tclose(type);
    H5Tclose(kind);
    free(rows);
    return e;
}

/* /episodes and /episode/NNNN of a pool run. */
static int write_pool_episodes(hid_t f, const cr_pool_monitor *mon)
{
    size_t n = cr_pool_monitor_episode_count(mon);
    cr_episode_info *in = calloc(n ? n : 1, sizeof(*in));
    if (!in)
        return -1;
    for (size_t k = 0; k < n; k++)
        cr_pool_monitor_get_episode(mon, k, &in[k]);
    int e = write_episode_rows(f, in, n);
    free(in);
    hid_t top = H5Gcreate2(f, "episode", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (size_t k = 0; k < n && e == 0; k++) {
        char name[32];
        snprintf(name, sizeof name, "%04zu", k);
        hid_t g = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        size_t nd, nc;
        const size_t *disc = cr_pool_monitor_discs(mon, k, &nd);
        double *dv = malloc((nd ? nd : 1) * sizeof(double));
        for (size_t i = 0; dv && i < nd; i++)
            dv[i] = (double)disc[i];
        e |= dv ? write_vector(g, "discs", dv, nd, "disc indices") : -1;
        free(dv);
        e |= write_matrix(g, "velocity_before", cr_pool_monitor_velocities(mon, k, 0, &nd), nd, 2,
                          "m/s");
        e |= write_matrix(g, "velocity_after", cr_pool_monitor_velocities(mon, k, 1, &nd), nd, 2,
                          "m/s");
        const cr_contact_record *rec = cr_pool_monitor_contacts(mon, k, &nc);
        e |= write_contact_records(g, rec, nc);
        e |= write_matrix(g, "vector_impulse", cr_pool_monitor_vector_impulses(mon, k, &nc), nc,
                          2, "N s: integral of f n dt over the episode");
        const double *nrm = cr_pool_monitor_normals(mon, k, &nc);
        e |= write_matrix(g, "normal", nrm, nc, 2,
                          "unit normal when the contact joined the episode (W column)");
        /* kinetic angles (001 eq. 39-40) in the impact configuration; left out,
         * as for chains, when the episode has too many contacts for a dense matrix */
        if (nc > DENSE_MAX) {
            e |= attr_string(g, "dense_matrices", "kinetic_cosine omitted (too many contacts)");
            H5Gclose(g);
            continue;
        }
        cr_impact *imp = cr_pool_monitor_impact(mon, k);
        double *cosm = malloc((nc ? nc * nc : 1) * sizeof(double));
        if (!imp || !cosm) {
            e = -1;
        } else {
            for (size_t a = 0; a < nc; a++)
                for (size_t b = 0; b < nc; b++)
                    cosm[a * nc + b] = cr_impact_kinetic_cosine(imp, a, b);
            e |= write_matrix(g, "kinetic_cosine", cosm, nc, nc,
                              "cos of the kinetic angle, 001 eq. 39-40");
        }
        cr_impact_destroy(imp);
        free(cosm);
        H5Gclose(g);
    }
    H5Gclose(top);
    return e;
}

cr_store *cr_store_create_pool(const char *path, const cr_pool *pool, const char *model_path,
                               const char *model_text, char *msg, size_t msglen)
{
    if (!path || !pool) {
        cr_set_msg(msg, msglen, "cr_store_create_pool: no path or pool");
        return NULL;
    }
    /* rows of positions and velocities hold (x₀, y₀, x₁, …): 2N columns */
    cr_store *st = store_open(path, 2 * cr_pool_disc_count(pool), 0, model_path, model_text,
                              msg, msglen);
    if (!st)
        return NULL;
    st->pool = 1;
    int e = attr_string(st->file, "model_kind", "pool-2d");
    e |= series_open(&st->s[S_TIME], st->traj, "time", 0, "s");
    e |= series_open(&st->s[S_POS], st->traj, "position", st->nb, "m; columns x0, y0, x1, y1, ...");
    e |= series_open(&st->s[S_VEL], st->traj, "velocity", st->nb,
                     "m/s; columns vx0, vy0, vx1, vy1, ...");
    e |= series_open(&st->s[S_KIN], st->traj, "kinetic_energy", 0, "J");
    e |= series_open(&st->s[S_POT], st->traj, "potential_energy", 0, "J");
    e |= series_open(&st->s[S_DISS], st->traj, "dissipated_work", 0, "J");
    if (e) {
        cr_set_msg(msg, msglen, "%s: HDF5 error while creating the layout", path);
        cr_store_destroy(st);
        return NULL;
    }
    return st;
}

int cr_store_append_pool_frame(cr_store *st, const cr_pool *pool)
{
    double t = cr_pool_get_time(pool);
    int e = series_push(&st->s[S_TIME], &t);
    cr_pool_get_positions(pool, st->row);
    e |= series_push(&st->s[S_POS], st->row);
    cr_pool_get_velocities(pool, st->row);
    e |= series_push(&st->s[S_VEL], st->row);
    double en[3] = {cr_pool_kinetic_energy(pool), cr_pool_potential_energy(pool),
                    cr_pool_dissipated_work(pool)};
    e |= series_push(&st->s[S_KIN], &en[0]);
    e |= series_push(&st->s[S_POT], &en[1]);
    e |= series_push(&st->s[S_DISS], &en[2]);
    return e ? h5fail(st, "appending a trajectory row") : CR_OK;
}

int cr_store_pool_output_callback(const cr_pool *pool, void *user)
{
    return cr_store_append_pool_frame(user, pool);
}

int cr_store_commit_pool(cr_store *st, const cr_pool *pool, const cr_pool_monitor *mon,
                         const char *status)
{
    CR_CHECK(st && pool && status && st->pool, st ? st->err : NULL, CR_ERR_INVALID);
    size_t n = cr_pool_disc_count(pool), nc = cr_pool_contact_count(pool);
    hid_t f = st->file;
    int e = 0;
    for (int k = 0; k < S_COUNT; k++)
        e |= series_flush(&st->s[k]);
    typedef struct {
        long i, j;
        double impulse, impulse_x, impulse_y;
    } crow;
    crow *rows = calloc(nc ? nc : 1, sizeof(crow));
    double *buf = malloc((2 * n + 1) * sizeof(double));
    if (!rows || !buf) {
        free(rows);
        free(buf);
        return h5fail(st, "allocating");
    }
    H5Adelete(f, "status");
    e |= attr_string(f, "status", status);
    e |= attr_double(f, "t_end", cr_pool_get_time(pool));
    e |= attr_long(f, "rebuilds", cr_pool_rebuilds(pool));
    hid_t g = H5Gcreate2(f, "final", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_pool_get_positions(pool, buf);
    e |= write_matrix(g, "position", buf, n, 2, "m");
    cr_pool_get_velocities(pool, buf);
    e |= write_matrix(g, "velocity", buf, n, 2, "m/s");
    H5Gclose(g);
    for (size_t k = 0; k < nc; k++) {
        double v[2];
        cr_pool_contact_bodies(pool, k, &rows[k].i, &rows[k].j);
        rows[k].impulse = cr_pool_contact_impulse(pool, k, v);
        rows[k].impulse_x = v[0];
        rows[k].impulse_y = v[1];
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(crow));
    H5Tinsert(t, "i", HOFFSET(crow, i), H5T_NATIVE_LONG);
    H5Tinsert(t, "j", HOFFSET(crow, j), H5T_NATIVE_LONG);
    H5Tinsert(t, "impulse", HOFFSET(crow, impulse), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "impulse_x", HOFFSET(crow, impulse_x), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "impulse_y", HOFFSET(crow, impulse_y), H5T_NATIVE_DOUBLE);
    e |= write_table(f, "contacts", t, rows, nc,
                     "candidate contacts: discs i < j, or disc i and wall -1 - j; impulses "
                     "from t = 0 (N s), vector impulse = integral of f n dt");
    H5Tclose(t);
    free(rows);
    free(buf);
    e |= write_event_table(f, cr_pool_events(pool), cr_pool_event_count(pool));
    if (mon)
        e |= write_pool_episodes(f, mon);
    if (e)
        return h5fail(st, "writing the pool results");
    return store_finish(st);
}

int cr_store_write_pool(const char *path, const cr_pool *pool, const cr_pool_monitor *mon,
                        const char *model_path, const char *model_text, const char *status,
                        char *msg, size_t msglen)
{
    cr_store *st = cr_store_create_pool(path, pool, model_path, model_text, msg, msglen);
    if (!st)
        return CR_ERR_HDF5;
    int rc = cr_store_append_pool_frame(st, pool);
    if (rc == CR_OK)
        rc = cr_store_commit_pool(st, pool, mon, status);
    if (rc != CR_OK)
        cr_set_msg(msg, msglen, "%s", cr_store_last_error(st));
    cr_store_destroy(st);
    return rc;
}
