/*
 * The store's other two jobs on a finished run file (docs/hdf5-layout.md):
 * reading its episodes back (cr_run_file), and adding the comparator's
 * /comparison group. A run file is never edited in place: the comparison goes
 * into a copy written beside the target and renamed over it only after a
 * clean close and fsync, so an interrupted or failed write leaves the target
 * as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cradle/model.h"
#include "cradle/runfile.h"
#include "cradle/store.h"
#include "base/h5-util.h"
#include "base/base.h"
#include "store/store-priv.h"

/* ---- reading ------------------------------------------------------------------- */

/*
 * A run file is read as untrusted input (docs/errors.md, "Files cradle reads
 * back"): every dataset through the checked readers of base/h5-util.h, its
 * shape against the record that describes it, and every value the comparator
 * and the laws take checked for range before they see it. The caps below
 * bound what a file can make us allocate.
 */

/* Rows of /episodes and /contacts a file may hold (10^7 rows of ~100 bytes:
 * the 1 GiB of CR_H5_MAX_READ_BYTES). */
#define RF_MAX_ROWS 10000000
/* Magnitudes a number read back may have: the model file's range
 * (docs/model-format.md: masses, lengths and speeds within 1e-100 .. 1e100),
 * with room for products (impulses, energies). */
#define RF_MAX_MAGNITUDE 1e150

struct cr_run_file {
    cr_h5_reader r;
    char *path;
    int dim, version; /* version: CR_STORE_FORMAT_OLDEST … CR_STORE_FORMAT_VERSION */
    size_t nbodies, nwalls;
    char *text, *status;
    size_t nep, ncontacts, nevents;
    cr_episode_info *info;
    cr_contact_params *contact_law; /* per row of /contacts */
    int *contact_law_known;
    /* the episode read last */
    size_t *bodies;
    double *mass, *u0, *u1, *nrm, *vec;
    cr_contact_record *rec;
    cr_contact_params *laws;
    char err[CR_ERRMSG_LEN];
};

typedef struct {
    double t_start, t_end, T_minus, T_plus, kappa, field_work, dissipated;
    int64_t index, body_count, contact_count, reference, reference_record, event_count;
    int8_t complete;
} episode_in;

static int finite_in_range(double x)
{
    return isfinite(x) && fabs(x) <= RF_MAX_MAGNITUDE;
}

/* One /episodes row against the file: counts within what the file holds,
 * times and energies numbers. */
static int check_episode_row(cr_run_file *f, size_t k, const episode_in *e)
{
    cr_h5_reader *r = &f->r;
    char where[64];
    snprintf(where, sizeof where, "episodes row %zu", k);
    if (e->index != (int64_t)k)
        return cr_h5_fail(r, where, "index %lld (rows are numbered 0, 1, ...)",
                          (long long)e->index);
    if (e->body_count < 1 || (uint64_t)e->body_count > f->nbodies)
        return cr_h5_fail(r, where, "body_count %lld: the model has %zu bodies",
                          (long long)e->body_count, f->nbodies);
    if (e->contact_count < 1 || (uint64_t)e->contact_count > f->ncontacts)
        return cr_h5_fail(r, where, "contact_count %lld: /contacts has %zu rows",
                          (long long)e->contact_count, f->ncontacts);
    if (e->reference < 0 || (uint64_t)e->reference >= f->ncontacts)
        return cr_h5_fail(r, where, "reference %lld: /contacts has %zu rows",
                          (long long)e->reference, f->ncontacts);
    if (e->reference_record < 0 || e->reference_record >= e->contact_count)
        return cr_h5_fail(r, where, "reference_record %lld: the episode has %lld records",
                          (long long)e->reference_record, (long long)e->contact_count);
    if (e->event_count < 0 || (uint64_t)e->event_count > f->nevents)
        return cr_h5_fail(r, where, "event_count %lld: /events has %zu rows",
                          (long long)e->event_count, f->nevents);
    if (e->complete != 0 && e->complete != 1)
        return cr_h5_fail(r, where, "complete %d (0 or 1)", e->complete);
    if (!finite_in_range(e->t_start) || !finite_in_range(e->t_end) || e->t_end < e->t_start)
        return cr_h5_fail(r, where, "t_start %g, t_end %g: not an interval of time", e->t_start,
                          e->t_end);
    const double v[] = {e->T_minus, e->T_plus, e->field_work, e->dissipated};
    const char *const name[] = {"T_minus", "T_plus", "field_work", "dissipated"};
    for (size_t j = 0; j < 4; j++)
        if (!finite_in_range(v[j]))
            return cr_h5_fail(r, where, "%s = %g: not a finite energy", name[j], v[j]);
    if (!(e->T_minus > 0.0))
        return cr_h5_fail(r, where, "T_minus = %g: an episode starts with kinetic energy",
                          e->T_minus);
    if (!isnan(e->kappa) && !finite_in_range(e->kappa))
        return cr_h5_fail(r, where, "kappa = %g: not a number", e->kappa);
    return 0;
}

static int read_episode_table(cr_run_file *f)
{
    hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT64;
    const cr_h5_column c[] = {
        CR_H5_COL(episode_in, index, I, NULL),
        CR_H5_COL(episode_in, t_start, D, NULL),
        CR_H5_COL(episode_in, t_end, D, NULL),
        CR_H5_COL(episode_in, T_minus, D, NULL),
        CR_H5_COL(episode_in, T_plus, D, NULL),
        CR_H5_COL(episode_in, kappa, D, NULL),
        CR_H5_COL(episode_in, field_work, D, NULL),
        CR_H5_COL(episode_in, dissipated, D, NULL),
        CR_H5_COL(episode_in, body_count, I, NULL),
        CR_H5_COL(episode_in, contact_count, I, NULL),
        CR_H5_COL(episode_in, reference, I, NULL),
        CR_H5_COL(episode_in, reference_record, I, NULL),
        CR_H5_COL(episode_in, event_count, I, NULL),
        CR_H5_COL(episode_in, complete, H5T_NATIVE_INT8, NULL),
    };
    episode_in *in = cr_h5_read_rows(&f->r, "episodes", sizeof(episode_in), c,
                                     sizeof c / sizeof c[0], RF_MAX_ROWS, &f->nep);
    if (!in)
        return -1;
    f->info = calloc(f->nep ? f->nep : 1, sizeof(cr_episode_info));
    int e = f->info ? 0 : cr_h5_fail(&f->r, NULL, "out of memory");
    for (size_t k = 0; e == 0 && k < f->nep; k++) {
        e = check_episode_row(f, k, &in[k]);
        f->info[k] = (cr_episode_info){in[k].t_start,
                                       in[k].t_end,
                                       (size_t)in[k].body_count,
                                       (size_t)in[k].contact_count,
                                       (size_t)in[k].reference,
                                       (size_t)in[k].reference_record,
                                       in[k].T_minus,
                                       in[k].T_plus,
                                       in[k].kappa,
                                       in[k].field_work,
                                       in[k].dissipated,
                                       in[k].complete,
                                       (size_t)in[k].event_count};
    }
    free(in);
    return e;
}

typedef struct {
    double K, n, C, m;
    int release;
} law_in;

/* The pair law of every contact (/contacts K, n, C, m, release): what the run
 * used, solved damping included. NaN where the model gave none; otherwise a
 * law the model file would accept, or the file is refused. */
static int read_contact_laws(cr_run_file *f)
{
    hid_t D = H5T_NATIVE_DOUBLE;
    const cr_h5_column c[] = {
        CR_H5_COL(law_in, K, D, NULL),
        CR_H5_COL(law_in, n, D, NULL),
        CR_H5_COL(law_in, C, D, NULL),
        CR_H5_COL(law_in, m, D, NULL),
        CR_H5_COL(law_in, release, H5T_NATIVE_INT, NULL),
    };
    law_in *in = cr_h5_read_rows(&f->r, "contacts", sizeof(law_in), c, sizeof c / sizeof c[0],
                                 RF_MAX_ROWS, &f->ncontacts);
    if (!in)
        return -1;
    size_t n = f->ncontacts ? f->ncontacts : 1;
    f->contact_law = calloc(n, sizeof(cr_contact_params));
    f->contact_law_known = calloc(n, sizeof(int));
    int e = f->contact_law && f->contact_law_known ? 0 : cr_h5_fail(&f->r, NULL, "out of memory");
    for (size_t k = 0; e == 0 && k < f->ncontacts; k++) {
        const law_in *l = &in[k];
        f->contact_law[k] = (cr_contact_params){
            l->K, l->n, l->C, l->m, l->release == 1 ? CR_RELEASE_FORCE : CR_RELEASE_GAP};
        f->contact_law_known[k] = !isnan(l->K);
        if (f->contact_law_known[k] &&
            !(finite_in_range(l->K) && l->K > 0.0 && isfinite(l->n) && l->n >= 1.0 &&
              l->n <= 10.0 && finite_in_range(l->C) && l->C >= 0.0 && isfinite(l->m) &&
              l->m >= 0.0 && l->m <= 10.0 && (l->release == 0 || l->release == 1))) {
            char where[64];
            snprintf(where, sizeof where, "contacts row %zu", k);
            e = cr_h5_fail(&f->r, where,
                           "K = %g, n = %g, C = %g, m = %g, release %d: not a contact law", l->K,
                           l->n, l->C, l->m, l->release);
        }
    }
    free(in);
    return e;
}

void cr_run_file_close(cr_run_file *f)
{
    if (!f)
        return;
    cr_h5_reader_close(&f->r);
    free(f->path);
    free(f->text);
    free(f->status);
    free(f->info);
    free(f->contact_law);
    free(f->contact_law_known);
    free(f->bodies);
    free(f->mass);
    free(f->u0);
    free(f->u1);
    free(f->nrm);
    free(f->vec);
    free(f->rec);
    free(f->laws);
    free(f);
}

/* Rows of the 1-D dataset @p name (a table or an array), or -1 recorded. */
static int rows_of(cr_h5_reader *r, const char *name, cr_h5_kind kind, size_t *n)
{
    int rank;
    hsize_t dims[2];
    if (cr_h5_shape(r, name, kind, &rank, dims) != 0)
        return -1;
    if (rank != 1)
        return cr_h5_fail(r, name, "rank %d (1 expected)", rank);
    *n = (size_t)dims[0];
    return 0;
}

/* The format version, then /model: what every later check compares with. */
static int read_head(cr_run_file *f)
{
    cr_h5_reader *r = &f->r;
    int64_t version = 0, dim = 0, nb = 0, nw = 0;
    char *kind = NULL;
    int rc = cr_h5_attr_text(r, r->file, "/", "kind", 64, &kind);
    if (rc == 1) { /* sweep outputs and tables say what they are; run files do not */
        cr_h5_fail(r, NULL, "a file of kind '%s', not a run file", kind);
        free(kind);
        return -1;
    }
    rc = rc < 0 ? -1 : cr_h5_attr_integer(r, r->file, "/", "format_version", &version);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return cr_h5_fail(r, NULL, "not a cradle run file (no format_version)");
    if (version > CR_STORE_FORMAT_VERSION)
        return cr_h5_fail(r, NULL,
                          "a run file of format version %lld, newer than this cradle reads "
                          "(%d to %d): read it with a newer cradle",
                          (long long)version, CR_STORE_FORMAT_OLDEST, CR_STORE_FORMAT_VERSION);
    if (version < CR_STORE_FORMAT_OLDEST)
        return cr_h5_fail(r, NULL,
                          "a run file of format version %lld; this cradle reads versions "
                          "%d to %d",
                          (long long)version, CR_STORE_FORMAT_OLDEST, CR_STORE_FORMAT_VERSION);
    f->version = (int)version;
    if (cr_h5_has(r, "model") != 1)
        return cr_h5_fail(r, NULL, "not a cradle run file (no /model)");
    hid_t m = H5Gopen2(r->file, "model", H5P_DEFAULT);
    if (m < 0)
        return cr_h5_fail(r, "model", "not a group");
    int e = cr_h5_attr_integer(r, m, "model", "dim", &dim) == 1 &&
                    cr_h5_attr_integer(r, m, "model", "body_count", &nb) == 1
                ? 0
                : -1;
    if (e == 0 && !r->failed && cr_h5_attr_integer(r, m, "model", "wall_count", &nw) < 0)
        e = -1;
    H5Gclose(m);
    if (e) /* an attribute missing rather than damaged */
        return r->failed ? -1 : cr_h5_fail(r, "model", "dim or body_count missing");
    if (dim < 1 || dim > 3)
        return cr_h5_fail(r, "model", "attribute 'dim' is %lld (1, 2 or 3)", (long long)dim);
    if (nb < 1 || nb > CR_MAX_BODIES)
        return cr_h5_fail(r, "model", "attribute 'body_count' is %lld (1 to %d)", (long long)nb,
                          CR_MAX_BODIES);
    if (nw < 0 || nw > CR_MAX_BODIES)
        return cr_h5_fail(r, "model", "attribute 'wall_count' is %lld", (long long)nw);
    f->dim = (int)dim;
    f->nbodies = (size_t)nb;
    f->nwalls = (size_t)nw;
    return 0;
}

cr_run_file *cr_run_file_open(const char *path, char *msg, size_t msglen)
{
    cr_run_file *f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path ? path : "(null)"))) {
        free(f);
        cr_set_msg(msg, msglen, "%s: out of memory", path ? path : "(null)");
        return NULL;
    }
    cr_h5_reader *r = &f->r;
    int e = cr_h5_reader_open(r, f->path, msg, msglen) != 0 || read_head(f) != 0;
    int rc = e ? -1 : cr_h5_attr_text(r, r->file, "/", "status", 64, &f->status);
    if (rc == 0)
        f->status = strdup("");
    e = e || rc < 0 || !f->status;
    if (!e && cr_h5_has(r, "episodes") != 1) {
        if (!r->failed)
            cr_h5_fail(r, NULL, "no /episodes (status '%s'): a run file that did not finish?",
                       f->status);
        e = 1;
    }
    if (!e && cr_h5_has(r, "events") == 1 && rows_of(r, "events", CR_H5_ROWS, &f->nevents) != 0)
        e = 1;
    e = e || (f->text = cr_h5_read_text(r, "model/text", CR_H5_MAX_STRING)) == NULL ||
        read_contact_laws(f) != 0 || read_episode_table(f) != 0;
    if (e) {
        if (!r->failed)
            cr_h5_fail(r, NULL, "cannot be read as a run file");
        cr_run_file_close(f);
        return NULL;
    }
    f->r.msg = f->err; /* the caller's buffer was for the open only */
    f->r.msglen = sizeof f->err;
    return f;
}

/* ---- the restart state (cradle run --continue) --------------------------------- */

void cr_restart_state_free(cr_restart_state *st)
{
    if (!st)
        return;
    free(st->model_text);
    free(st->status);
    free(st->kind);
    free(st->position);
    free(st->velocity);
    memset(st, 0, sizeof *st);
}

/* /restart: time, position and velocity of every body, checked for shape and
 * range; the engine that ran (/model kind) and the root status. */
static int read_restart(cr_run_file *f, cr_restart_state *st)
{
    cr_h5_reader *r = &f->r;
    if (cr_h5_has(r, "restart") != 1)
        return r->failed ? -1
                         : cr_h5_fail(r, NULL,
                                      "no /restart: written by a cradle from before restart "
                                      "states (issue 22), it cannot be continued");
    hid_t m = H5Gopen2(r->file, "model", H5P_DEFAULT);
    int rc = m < 0 ? cr_h5_fail(r, "model", "not a group")
                   : cr_h5_attr_text(r, m, "model", "kind", 64, &st->kind);
    if (m >= 0)
        H5Gclose(m);
    if (rc == 0)
        return cr_h5_fail(r, "model", "attribute 'kind' missing");
    if (rc < 0)
        return -1;
    rc = cr_h5_attr_text(r, r->file, "/", "status", 64, &st->status);
    if (rc <= 0)
        return rc < 0 ? -1 : cr_h5_fail(r, NULL, "attribute 'status' missing");
    size_t n = f->nbodies * (size_t)f->dim;
    hsize_t dims[2] = {f->nbodies, (hsize_t)f->dim};
    st->position = malloc(n * sizeof(double));
    st->velocity = malloc(n * sizeof(double));
    if (!st->position || !st->velocity)
        return cr_h5_fail(r, NULL, "out of memory");
    if (cr_h5_read_numbers(r, "restart/time", H5T_NATIVE_DOUBLE, &st->time, 0, NULL) != 0 ||
        cr_h5_read_numbers(r, "restart/position", H5T_NATIVE_DOUBLE, st->position, 2, dims) ||
        cr_h5_read_numbers(r, "restart/velocity", H5T_NATIVE_DOUBLE, st->velocity, 2, dims))
        return -1;
    if (!(st->time >= 0.0 && finite_in_range(st->time)))
        return cr_h5_fail(r, "restart/time", "%g: not a time", st->time);
    for (size_t i = 0; i < n; i++)
        if (!finite_in_range(st->position[i]) || !finite_in_range(st->velocity[i]))
            return cr_h5_fail(r, "restart", "body %zu: position %g, velocity %g: not numbers",
                              i / (size_t)f->dim, st->position[i], st->velocity[i]);
    st->dim = f->dim;
    st->body_count = f->nbodies;
    return 0;
}

int cr_run_file_restart(const char *path, cr_restart_state *st, char *msg, size_t msglen)
{
    CR_CHECK(path && st, NULL, CR_ERR_INVALID);
    memset(st, 0, sizeof *st);
    cr_run_file *f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path))) {
        free(f);
        cr_set_msg(msg, msglen, "%s: out of memory", path);
        return CR_ERR_NOMEM;
    }
    cr_h5_reader *r = &f->r;
    int e = cr_h5_reader_open(r, f->path, msg, msglen) != 0 || read_head(f) != 0 ||
            read_restart(f, st) != 0 ||
            !(st->model_text = cr_h5_read_text(r, "model/text", CR_H5_MAX_STRING));
    cr_run_file_close(f);
    if (e) {
        cr_restart_state_free(st);
        return CR_ERR_HDF5;
    }
    return CR_OK;
}

const char *cr_run_file_last_error(const cr_run_file *f)
{
    return f ? f->err : "no run file";
}

const char *cr_run_file_model_text(const cr_run_file *f)
{
    return f ? f->text : "";
}

const char *cr_run_file_status(const cr_run_file *f)
{
    return f ? f->status : "";
}

int cr_run_file_dimension(const cr_run_file *f)
{
    return f ? f->dim : 0;
}

size_t cr_run_file_episode_count(const cr_run_file *f)
{
    return f ? f->nep : 0;
}

/* 1 when table @p name has column @p col, 0 when not (or no such table: the
 * read that follows says so), -1 recorded when HDF5 cannot tell. */
static int has_column(cr_h5_reader *r, const char *name, const char *col)
{
    int e = cr_h5_has(r, name);
    if (e != 1)
        return e;
    hid_t d = H5Dopen2(r->file, name, H5P_DEFAULT);
    hid_t t = d < 0 ? -1 : H5Dget_type(d);
    int has = t >= 0 && H5Tget_class(t) == H5T_COMPOUND && H5Tget_member_index(t, col) >= 0;
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    return d < 0 || t < 0 ? cr_h5_fail(r, name, "HDF5 cannot open it (damaged)") : has;
}

/* The located peaks' time and the loaded time of a record (files from before
 * them have neither: NaN) within the episode [t0, t1], to roundoff. */
static int peaks_in_episode(const cr_store_record_row *q, double t0, double t1)
{
    double slack = 1e-9 * (fabs(t0) + fabs(t1));
    int time_ok = isnan(q->peak_force_time) ||
                  (q->peak_force_time >= t0 - slack && q->peak_force_time <= t1 + slack);
    int duration_ok = isnan(q->duration) || (q->duration >= 0.0 && q->duration <= t1 - t0 + slack);
    return time_ok && duration_ok && !(q->peak_force < 0.0) && !(q->peak_overlap < 0.0);
}

/* The records of an episode over [t0, t1]: indices inside the file and the
 * episode, impulses and velocities numbers, peaks within the episode. */
static int read_records(cr_run_file *f, const char *g, size_t nr, double t0, double t1)
{
    cr_h5_reader *r = &f->r;
    char name[64];
    snprintf(name, sizeof name, "%s/contacts", g);
    cr_h5_column c[CR_STORE_RECORD_COLUMNS];
    cr_store_record_columns(c);
    int peaks = has_column(r, name, "duration");
    if (peaks < 0)
        return -1;
    size_t n = 0;
    cr_store_record_row *in = cr_h5_read_rows(
        r, name, sizeof(*in), c,
        peaks ? CR_STORE_RECORD_COLUMNS : CR_STORE_RECORD_COLUMNS_BEFORE_PEAKS, RF_MAX_ROWS, &n);
    if (!in)
        return -1;
    int e = n == nr
                ? 0
                : cr_h5_fail(r, name, "%zu rows where the episode record says %zu contacts", n, nr);
    for (size_t i = 0; e == 0 && i < nr; i++) {
        cr_store_record_row *q = &in[i];
        if (!peaks)
            q->peak_force_time = q->duration = NAN;
        const double must[] = {q->impulse, q->compression, q->expansion, q->gamma_minus,
                               q->gamma_plus};
        const double may[] = {q->newton, q->poisson, q->alpha, q->peak_overlap, q->peak_force};
        int bad = 0;
        for (size_t j = 0; j < 5; j++)
            bad |= !finite_in_range(must[j]) || (!isnan(may[j]) && !finite_in_range(may[j]));
        int bad_time = (!isnan(q->peak_force_time) && !finite_in_range(q->peak_force_time)) ||
                       (!isnan(q->duration) && !finite_in_range(q->duration));
        if (q->contact < 0 || (uint64_t)q->contact >= f->ncontacts)
            e = cr_h5_fail(r, name, "row %zu: contact %lld (/contacts has %zu rows)", i,
                           (long long)q->contact, f->ncontacts);
        else if (q->body_a < 0 || (uint64_t)q->body_a >= f->nbodies ||
                 q->body_b >= (int64_t)f->nbodies || q->body_b == q->body_a ||
                 (q->body_b < 0 && (uint64_t)(-1 - q->body_b) >= f->nwalls))
            e = cr_h5_fail(r, name,
                           "row %zu: bodies %lld and %lld (the model has %zu bodies, %zu walls)", i,
                           (long long)q->body_a, (long long)q->body_b, f->nbodies, f->nwalls);
        else if (bad)
            e = cr_h5_fail(r, name, "row %zu: an impulse or a velocity that is not a finite number",
                           i);
        else if (bad_time)
            e = cr_h5_fail(r, name, "row %zu: a peak time or loaded time that is not a number", i);
        else if (!peaks_in_episode(q, t0, t1))
            e = cr_h5_fail(r, name,
                           "row %zu: peak force %g N at %g s, overlap %g m, loaded %g s: not "
                           "within the episode (%g to %g s) or negative",
                           i, q->peak_force, q->peak_force_time, q->peak_overlap, q->duration, t0,
                           t1);
        else
            f->rec[i] = (cr_contact_record){(size_t)q->contact, (size_t)q->body_a,  (long)q->body_b,
                                            q->impulse,         q->compression,     q->expansion,
                                            q->gamma_minus,     q->gamma_plus,      q->newton,
                                            q->poisson,         q->alpha,           q->peak_overlap,
                                            q->peak_force,      q->closings,        q->openings,
                                            q->flags,           q->peak_force_time, q->duration};
    }
    free(in);
    return e;
}

static int grow_episode_buffers(cr_run_file *f, size_t nb, size_t nr)
{
    size_t b = nb ? nb : 1, r = nr ? nr : 1, d = (size_t)f->dim;
    free(f->bodies), free(f->mass), free(f->u0), free(f->u1);
    free(f->nrm), free(f->vec), free(f->rec), free(f->laws);
    /* nb ≤ CR_MAX_BODIES and nr ≤ RF_MAX_ROWS (checked at open): no overflow */
    f->bodies = malloc(b * sizeof(size_t));
    f->mass = malloc(b * sizeof(double));
    f->u0 = malloc(b * d * sizeof(double));
    f->u1 = malloc(b * d * sizeof(double));
    f->nrm = malloc(r * d * sizeof(double));
    f->vec = malloc(r * d * sizeof(double));
    f->rec = calloc(r, sizeof(cr_contact_record));
    f->laws = calloc(r, sizeof(cr_contact_params));
    return f->bodies && f->mass && f->u0 && f->u1 && f->nrm && f->vec && f->rec && f->laws ? 0 : -1;
}

/* Every number of @p v (n of them) finite and within range. */
static int all_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!finite_in_range(v[i]))
            return 0;
    return 1;
}

/* Reads and checks /episode/NNNN against its /episodes row; 0 or -1 recorded. */
static int read_episode(cr_run_file *f, size_t k, const char *g, int64_t *b)
{
    cr_h5_reader *r = &f->r;
    const cr_episode_info *in = &f->info[k];
    size_t nb = in->body_count, nr = in->contact_count;
    hsize_t vb[2] = {nb, (hsize_t)f->dim}, vr[2] = {nr, (hsize_t)f->dim}, nb1 = nb;
    char name[64];
    int there = cr_h5_has(r, g);
    if (there <= 0)
        return there < 0 ? -1 : cr_h5_fail(r, g, "missing (the file lists %zu episodes)", f->nep);
#define READ(ds, type, buf, rank, dims)                                                            \
    (snprintf(name, sizeof name, "%s/%s", g, ds),                                                  \
     cr_h5_read_numbers(r, name, type, buf, rank, dims))
    if (READ("bodies", H5T_NATIVE_INT64, b, 1, &nb1) ||
        READ("mass", H5T_NATIVE_DOUBLE, f->mass, 1, &nb1) ||
        READ("velocity_before", H5T_NATIVE_DOUBLE, f->u0, 2, vb) ||
        READ("velocity_after", H5T_NATIVE_DOUBLE, f->u1, 2, vb) ||
        READ("normal", H5T_NATIVE_DOUBLE, f->nrm, 2, vr) ||
        READ("vector_impulse", H5T_NATIVE_DOUBLE, f->vec, 2, vr))
        return -1;
#undef READ
    for (size_t q = 0; q < nb; q++) {
        if (b[q] < 0 || (uint64_t)b[q] >= f->nbodies || (q > 0 && b[q] <= b[q - 1])) {
            snprintf(name, sizeof name, "%s/bodies", g);
            return cr_h5_fail(r, name,
                              "body %lld at %zu: not increasing bodies of the model (0 to %zu)",
                              (long long)b[q], q, f->nbodies - 1);
        }
        f->bodies[q] = (size_t)b[q];
        /* a fixed body has mass inf; a moving one the model file's range */
        if (!(f->mass[q] == INFINITY || (f->mass[q] >= 1e-100 && f->mass[q] <= 1e100))) {
            snprintf(name, sizeof name, "%s/mass", g);
            return cr_h5_fail(r, name, "body %lld: mass %g (1e-100 .. 1e100 kg, inf when fixed)",
                              (long long)b[q], f->mass[q]);
        }
    }
    size_t d = (size_t)f->dim;
    const char *bad = !all_finite(f->u0, nb * d)    ? "velocity_before"
                      : !all_finite(f->u1, nb * d)  ? "velocity_after"
                      : !all_finite(f->vec, nr * d) ? "vector_impulse"
                                                    : NULL;
    for (size_t i = 0; !bad && i < nr; i++) {
        double s = 0.0;
        for (size_t j = 0; j < d; j++)
            s += f->nrm[i * d + j] * f->nrm[i * d + j];
        if (!(fabs(s - 1.0) <= 1e-6))
            bad = "normal";
    }
    if (bad) {
        snprintf(name, sizeof name, "%s/%s", g, bad);
        return cr_h5_fail(r, name,
                          strcmp(bad, "normal") == 0 ? "not unit vectors"
                                                     : "a value that is not a finite "
                                                       "number (or beyond 1e150)");
    }
    /* the record's energies are those of its velocities (the monitor wrote
     * both; equal to roundoff, 3e-16 on the models of models/): a file whose
     * velocities were damaged into other finite numbers (zeros) is refused,
     * not compared (an ok over inf before) */
    double T0 = 0.0, T1 = 0.0;
    for (size_t q = 0; q < nb; q++)
        for (size_t j = 0; isfinite(f->mass[q]) && j < d; j++) {
            T0 += 0.5 * f->mass[q] * f->u0[q * d + j] * f->u0[q * d + j];
            T1 += 0.5 * f->mass[q] * f->u1[q * d + j] * f->u1[q * d + j];
        }
    if (!(fabs(T0 - in->T_minus) <= 1e-9 * in->T_minus) ||
        !(fabs(T1 - in->T_plus) <= 1e-9 * fmax(in->T_plus, in->T_minus))) {
        snprintf(name, sizeof name, "%s/velocity_before", g);
        return cr_h5_fail(r, name,
                          "kinetic energies %.9g and %.9g J, the episode record says %.9g "
                          "and %.9g",
                          T0, T1, in->T_minus, in->T_plus);
    }
    if (read_records(f, g, nr, in->t_start, in->t_end) != 0)
        return -1;
    /* each record joins bodies of the episode (or a wall), the reference is its contact */
    for (size_t i = 0; i < nr; i++) {
        const cr_contact_record *q = &f->rec[i];
        int a = 0, bb = q->body_b < 0;
        for (size_t j = 0; j < nb; j++) {
            a |= f->bodies[j] == q->body_a;
            bb |= q->body_b >= 0 && f->bodies[j] == (size_t)q->body_b;
        }
        if (!a || !bb) {
            snprintf(name, sizeof name, "%s/contacts", g);
            return cr_h5_fail(r, name,
                              "row %zu: bodies %zu and %ld are not both bodies of the "
                              "episode",
                              i, q->body_a, q->body_b);
        }
    }
    if (f->rec[in->reference_record].contact != in->reference) {
        snprintf(name, sizeof name, "episodes row %zu", k);
        return cr_h5_fail(r, name, "reference %zu, but its record %zu is contact %zu",
                          in->reference, in->reference_record,
                          f->rec[in->reference_record].contact);
    }
    return 0;
}

int cr_run_file_episode(cr_run_file *f, size_t k, cr_episode_data *d,
                        const cr_contact_params **laws)
{
    CR_CHECK(f && d, f ? f->err : NULL, CR_ERR_INVALID);
    if (k >= f->nep) {
        cr_set_msg(f->err, sizeof f->err, "episode %zu: the file has %zu episode%s", k, f->nep,
                   f->nep == 1 ? "" : "s");
        return CR_ERR_INVALID;
    }
    const cr_episode_info *in = &f->info[k];
    size_t nb = in->body_count, nr = in->contact_count;
    char g[48];
    snprintf(g, sizeof g, "episode/%04zu", k);
    int64_t *b = malloc((nb ? nb : 1) * sizeof(int64_t));
    /* the reader's message buffer takes this episode's first failure */
    f->r.msg = f->err;
    f->r.msglen = sizeof f->err;
    f->r.failed = 0;
    f->err[0] = '\0';
    int e = !b || grow_episode_buffers(f, nb, nr) != 0 ? cr_h5_fail(&f->r, NULL, "out of memory")
                                                       : read_episode(f, k, g, b);
    free(b);
    if (e) {
        if (!f->err[0])
            cr_h5_fail(&f->r, g, "cannot be read");
        return CR_ERR_HDF5;
    }
    int known = 1;
    for (size_t r = 0; r < nr; r++) {
        size_t c = f->rec[r].contact;
        known &= f->contact_law_known[c];
        f->laws[r] = f->contact_law[c];
    }
    *d = (cr_episode_data){*in,    f->dim, f->bodies, f->mass, f->u0, f->u1, f->rec,
                           f->nrm, f->vec, 0,         NULL,    NULL,  NULL,  NULL};
    if (laws)
        *laws = known ? f->laws : NULL;
    return CR_OK;
}
