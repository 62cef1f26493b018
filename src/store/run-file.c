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

#include "cradle/runfile.h"
#include "cradle/store.h"
#include "base/h5-util.h"
#include "base/base.h"
#include "store/store-priv.h"

/* ---- reading ------------------------------------------------------------------- */

struct cr_run_file {
    hid_t file;
    int dim;
    char *text, *status;
    size_t nep, ncontacts;
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

/* A string attribute (variable-length UTF-8), or NULL. Caller frees. */
static char *read_string_attr(hid_t obj, const char *name)
{
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a < 0 ? -1 : H5Aget_type(a);
    char *out = NULL;
    if (t >= 0 && H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5T_CSET_UTF8);
        if (H5Aread(a, mt, &v) >= 0 && v) {
            out = strdup(v);
            H5free_memory(v);
        }
        H5Tclose(mt);
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return out;
}

static int64_t read_int_attr(hid_t obj, const char *name, int64_t fallback)
{
    int64_t v = fallback;
    if (H5Aexists(obj, name) <= 0)
        return fallback;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
        v = fallback;
    if (a >= 0)
        H5Aclose(a);
    return v;
}

/* The model text (a fixed-length string dataset), or "". */
static char *read_text(hid_t file)
{
    if (H5Lexists(file, "model", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, "model/text", H5P_DEFAULT) <= 0)
        return strdup("");
    hid_t d = H5Dopen2(file, "model/text", H5P_DEFAULT), t = d < 0 ? -1 : H5Dget_type(d);
    size_t n = t < 0 ? 0 : H5Tget_size(t);
    char *s = t < 0 ? NULL : calloc(n + 1, 1);
    if (s && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0) {
        free(s);
        s = NULL;
    }
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    return s ? s : strdup("");
}

/* Rows of a 1-D dataset (0 when absent). */
static size_t rows_of(hid_t loc, const char *name)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return 0;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT), s = d < 0 ? -1 : H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    if (s >= 0)
        H5Sget_simple_extent_dims(s, dims, NULL);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return (size_t)dims[0];
}

/* Reads a dataset whole into @p buf with memory type @p t; 0 or −1. */
static int read_all(hid_t loc, const char *name, hid_t t, void *buf)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    int e = d < 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
    if (d >= 0)
        H5Dclose(d);
    return e;
}

typedef struct {
    double t_start, t_end, T_minus, T_plus, kappa, field_work, dissipated;
    int64_t body_count, contact_count, reference, reference_record, event_count;
    int8_t complete;
} episode_in;

static int read_episode_table(cr_run_file *f)
{
    f->nep = rows_of(f->file, "episodes");
    f->info = calloc(f->nep ? f->nep : 1, sizeof(cr_episode_info));
    episode_in *in = calloc(f->nep ? f->nep : 1, sizeof(episode_in));
    hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT64;
    const cr_h5_column c[] = {
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
    int e = f->info && in ? 0 : -1;
    e |= e ? -1
           : cr_h5_read_table(f->file, "episodes", sizeof(episode_in), c, sizeof c / sizeof c[0],
                              in, f->nep);
    for (size_t k = 0; e == 0 && k < f->nep; k++)
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
    free(in);
    return e;
}

typedef struct {
    double K, n, C, m;
    int release;
} law_in;

/* The pair law of every contact (/contacts K, n, C, m, release): what the run
 * used, solved damping included. NaN where the model gave none. */
static int read_contact_laws(cr_run_file *f)
{
    f->ncontacts = rows_of(f->file, "contacts");
    size_t n = f->ncontacts ? f->ncontacts : 1;
    law_in *in = calloc(n, sizeof(law_in));
    f->contact_law = calloc(n, sizeof(cr_contact_params));
    f->contact_law_known = calloc(n, sizeof(int));
    hid_t D = H5T_NATIVE_DOUBLE;
    const cr_h5_column c[] = {
        CR_H5_COL(law_in, K, D, NULL),
        CR_H5_COL(law_in, n, D, NULL),
        CR_H5_COL(law_in, C, D, NULL),
        CR_H5_COL(law_in, m, D, NULL),
        CR_H5_COL(law_in, release, H5T_NATIVE_INT, NULL),
    };
    int e = in && f->contact_law && f->contact_law_known ? 0 : -1;
    e |= e ? -1
           : cr_h5_read_table(f->file, "contacts", sizeof(law_in), c, sizeof c / sizeof c[0], in,
                              f->ncontacts);
    for (size_t k = 0; e == 0 && k < f->ncontacts; k++) {
        f->contact_law[k] =
            (cr_contact_params){in[k].K, in[k].n, in[k].C, in[k].m,
                                in[k].release == 1 ? CR_RELEASE_FORCE : CR_RELEASE_GAP};
        f->contact_law_known[k] = isfinite(in[k].K) && in[k].release >= 0;
    }
    free(in);
    return e;
}

void cr_run_file_close(cr_run_file *f)
{
    if (!f)
        return;
    if (f->file >= 0)
        H5Fclose(f->file);
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

cr_run_file *cr_run_file_open(const char *path, char *msg, size_t msglen)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0) {
        cr_set_msg(msg, msglen, "%s: cannot open: %s", path ? path : "(null)", strerror(errno));
        return NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    if (!S_ISREG(sb.st_mode) || H5Fis_hdf5(path) <= 0) {
        cr_set_msg(msg, msglen, "%s: not an HDF5 file", path);
        return NULL;
    }
    cr_run_file *f = calloc(1, sizeof(*f));
    if (!f) {
        cr_set_msg(msg, msglen, "out of memory");
        return NULL;
    }
    f->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->file < 0 || H5Lexists(f->file, "model", H5P_DEFAULT) <= 0 ||
        read_int_attr(f->file, "format_version", 0) != CR_STORE_FORMAT_VERSION) {
        cr_set_msg(msg, msglen, "%s: not a cradle run file of format version %d", path,
                   CR_STORE_FORMAT_VERSION);
        cr_run_file_close(f);
        return NULL;
    }
    hid_t m = H5Gopen2(f->file, "model", H5P_DEFAULT);
    f->dim = (int)read_int_attr(m, "dim", 1);
    H5Gclose(m);
    f->text = read_text(f->file);
    f->status = read_string_attr(f->file, "status");
    if (!f->status)
        f->status = strdup("");
    if (H5Lexists(f->file, "episodes", H5P_DEFAULT) <= 0 || read_episode_table(f) != 0 ||
        read_contact_laws(f) != 0 || !f->text || !f->status || f->dim < 1 || f->dim > 3) {
        cr_set_msg(msg, msglen,
                   "%s: no readable /episodes (status '%s'): a run file that did "
                   "not finish?",
                   path, f->status ? f->status : "");
        cr_run_file_close(f);
        return NULL;
    }
    return f;
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

static int read_records(hid_t g, cr_contact_record *rec, size_t n)
{
    cr_store_record_row *in = calloc(n ? n : 1, sizeof(*in));
    cr_h5_column c[CR_STORE_RECORD_COLUMNS];
    cr_store_record_columns(c);
    int e = in ? 0 : -1;
    e |= e ? -1 : cr_h5_read_table(g, "contacts", sizeof(*in), c, CR_STORE_RECORD_COLUMNS, in, n);
    for (size_t i = 0; e == 0 && i < n; i++)
        rec[i] = (cr_contact_record){
            (size_t)in[i].contact, (size_t)in[i].body_a, in[i].body_b,      in[i].impulse,
            in[i].compression,     in[i].expansion,      in[i].gamma_minus, in[i].gamma_plus,
            in[i].newton,          in[i].poisson,        in[i].alpha,       in[i].peak_overlap,
            in[i].peak_force,      in[i].closings,       in[i].openings,    in[i].flags};
    free(in);
    return e;
}

static int grow_episode_buffers(cr_run_file *f, size_t nb, size_t nr)
{
    size_t b = nb ? nb : 1, r = nr ? nr : 1, d = (size_t)f->dim;
    free(f->bodies), free(f->mass), free(f->u0), free(f->u1);
    free(f->nrm), free(f->vec), free(f->rec), free(f->laws);
    f->bodies = malloc(b * sizeof(size_t));
    f->mass = malloc(b * sizeof(double));
    f->u0 = malloc(b * d * sizeof(double));
    f->u1 = malloc(b * d * sizeof(double));
    f->nrm = malloc(r * d * sizeof(double));
    f->vec = malloc(r * d * sizeof(double));
    f->rec = calloc(r, sizeof(cr_contact_record));
    f->laws = malloc(r * sizeof(cr_contact_params));
    return f->bodies && f->mass && f->u0 && f->u1 && f->nrm && f->vec && f->rec && f->laws ? 0 : -1;
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
    char name[48];
    snprintf(name, sizeof name, "episode/%04zu", k);
    hid_t g =
        H5Lexists(f->file, "episode", H5P_DEFAULT) > 0 && H5Lexists(f->file, name, H5P_DEFAULT) > 0
            ? H5Gopen2(f->file, name, H5P_DEFAULT)
            : -1;
    int64_t *b = malloc((nb ? nb : 1) * sizeof(int64_t));
    int e = g < 0 || !b || grow_episode_buffers(f, nb, nr) != 0 ? -1 : 0;
    e |= e ? -1 : read_all(g, "bodies", H5T_NATIVE_INT64, b);
    e |= e ? -1 : read_all(g, "mass", H5T_NATIVE_DOUBLE, f->mass);
    e |= e ? -1 : read_all(g, "velocity_before", H5T_NATIVE_DOUBLE, f->u0);
    e |= e ? -1 : read_all(g, "velocity_after", H5T_NATIVE_DOUBLE, f->u1);
    e |= e ? -1 : read_all(g, "normal", H5T_NATIVE_DOUBLE, f->nrm);
    e |= e ? -1 : read_all(g, "vector_impulse", H5T_NATIVE_DOUBLE, f->vec);
    e |= e ? -1 : read_records(g, f->rec, nr);
    for (size_t q = 0; e == 0 && q < nb; q++)
        f->bodies[q] = (size_t)b[q];
    int known = 1;
    for (size_t r = 0; e == 0 && r < nr; r++) {
        size_t c = f->rec[r].contact;
        known &= c < f->ncontacts && f->contact_law_known[c];
        if (c < f->ncontacts)
            f->laws[r] = f->contact_law[c];
    }
    free(b);
    if (g >= 0)
        H5Gclose(g);
    if (e) {
        cr_set_msg(f->err, sizeof f->err, "episode %zu: /%s is missing or unreadable", k, name);
        return CR_ERR_HDF5;
    }
    *d = (cr_episode_data){*in, f->dim, f->bodies, f->mass, f->u0, f->u1, f->rec, f->nrm, f->vec};
    if (laws)
        *laws = known ? f->laws : NULL;
    return CR_OK;
}
