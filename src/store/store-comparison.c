/*
 * /comparison: the comparator's rows, episodes and summaries in a run file
 * (docs/hdf5-layout.md, "/comparison"). The store computes nothing: it writes
 * what cr_compare reports. The source file is copied beside the target, the
 * copy gets the group (an older /comparison is deleted first), is closed and
 * fsync'ed, and only then renamed over the target: the target is never edited
 * in place, and a failure leaves it as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cradle/comparefile.h"
#include "cradle/store.h"
#include "base/base.h"
#include "store/store-priv.h"

/* Fixed-length strings of the tables (h5py reads them as bytes). */
#define NAME_LEN 24
#define MESSAGE_LEN 512 /* cr_compare_row.message */

/* ---- the three tables ----------------------------------------------------------- */

typedef struct {
    int64_t episode;
    char law[NAME_LEN], mode[NAME_LEN], status[NAME_LEN], law_status[NAME_LEN];
    double parameter, error, energy_error, impulse_error, energy_ratio;
    int8_t gamma_ok, impulse_ok, energy_ok;
    int64_t outcomes, chosen;
    int32_t flags;
    char message[MESSAGE_LEN];
} row_out;

static int write_rows(hid_t g, const cr_compare *cmp)
{
    size_t n = cr_compare_row_count(cmp);
    row_out *rows = calloc(n ? n : 1, sizeof(row_out));
    if (!rows)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const cr_compare_row *r = cr_compare_get_row(cmp, i);
        row_out *o = &rows[i];
        o->episode = (int64_t)r->episode;
        snprintf(o->law, NAME_LEN, "%s", cr_law_name(r->law));
        snprintf(o->mode, NAME_LEN, "%s", cr_compare_mode_name(r->mode));
        snprintf(o->status, NAME_LEN, "%s", cr_compare_status_name(r->status));
        snprintf(o->law_status, NAME_LEN, "%s",
                 r->law_status >= 0 ? cr_law_status_name((cr_law_status)r->law_status) : "");
        o->parameter = r->parameter;
        o->error = r->error;
        o->energy_error = r->energy_error;
        o->impulse_error = r->impulse_error;
        o->energy_ratio = r->energy_ratio;
        o->gamma_ok = (int8_t)r->gamma_ok;
        o->impulse_ok = (int8_t)r->impulse_ok;
        o->energy_ok = (int8_t)r->energy_ok;
        o->outcomes = (int64_t)r->outcomes;
        o->chosen = (int64_t)r->chosen;
        o->flags = r->flags;
        snprintf(o->message, MESSAGE_LEN, "%s", r->message);
    }
    hid_t sn = cr_h5_fixed_string(NAME_LEN), sm = cr_h5_fixed_string(MESSAGE_LEN);
    const cr_h5_column c[] = {
        CR_H5_COL(row_out, episode, H5T_NATIVE_INT64, "1 (index of /episodes)"),
        CR_H5_COL(row_out, law, sn, "1 (law name)"),
        CR_H5_COL(row_out, mode, sn, "1 (calibrated, predictive)"),
        CR_H5_COL(row_out, status, sn, "1 (verdict)"),
        CR_H5_COL(row_out, law_status, sn, "1 (the law core's status; empty: not run)"),
        CR_H5_COL(row_out, parameter, H5T_NATIVE_DOUBLE, "1 (GDI epsilon, energetic kappa; NaN)"),
        CR_H5_COL(row_out, error, H5T_NATIVE_DOUBLE, "1 (|u+law - u+|_M / |v_perp|_M)"),
        CR_H5_COL(row_out, energy_error, H5T_NATIVE_DOUBLE, "1 ((T+law - T+) / T-)"),
        CR_H5_COL(row_out, impulse_error, H5T_NATIVE_DOUBLE, "1 (|P_law - P| / |P|)"),
        CR_H5_COL(row_out, energy_ratio, H5T_NATIVE_DOUBLE, "1 (T+law / T-)"),
        CR_H5_COL(row_out, gamma_ok, H5T_NATIVE_INT8, "1 (gamma+ >= 0; -1: no answer)"),
        CR_H5_COL(row_out, impulse_ok, H5T_NATIVE_INT8, "1 (P >= 0; -1: no answer)"),
        CR_H5_COL(row_out, energy_ok, H5T_NATIVE_INT8, "1 (T+ <= T-; -1: no answer)"),
        CR_H5_COL(row_out, outcomes, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(row_out, chosen, H5T_NATIVE_INT64, "1 (outcome reported: the closest)"),
        CR_H5_COL(row_out, flags, H5T_NATIVE_INT32,
                  "1 (1 out-of-range, 2 at rest, 4 no compression, 8 field-corrected, 16 elastic)"),
        CR_H5_COL(row_out, message, sm, "1"),
    };
    int e = cr_h5_write_table(g, "rows", sizeof(row_out), c, sizeof c / sizeof c[0], rows, n,
                              "one row per episode, law and mode");
    H5Tclose(sn);
    H5Tclose(sm);
    free(rows);
    return e;
}

typedef struct {
    int64_t index, dofs, contacts, reference, first_row, row_count;
    double t_start, kappa, kappa_min, v_perp, speed;
    int8_t field_corrected;
    double d_alpha, d_kappa, d_newton, d_poisson;
} episode_out;

static int write_episode_rows(hid_t g, const cr_compare *cmp, const cr_comparison_params *p)
{
    size_t n = cr_compare_episode_count(cmp);
    episode_out *rows = calloc(n ? n : 1, sizeof(episode_out));
    if (!rows)
        return -1;
    for (size_t k = 0; k < n; k++) {
        cr_compare_episode e;
        cr_compare_get_episode(cmp, k, &e);
        const double *a = p && p->accuracy ? p->accuracy + 4 * k : NULL;
        rows[k] = (episode_out){(int64_t)e.index,
                                (int64_t)e.dofs,
                                (int64_t)e.contacts,
                                (int64_t)e.reference,
                                (int64_t)e.first_row,
                                (int64_t)e.row_count,
                                e.t_start,
                                e.kappa,
                                e.kappa_min,
                                e.v_perp,
                                e.speed,
                                (int8_t)e.field_corrected,
                                a ? a[0] : NAN,
                                a ? a[1] : NAN,
                                a ? a[2] : NAN,
                                a ? a[3] : NAN};
    }
    const cr_h5_column c[] = {
        CR_H5_COL(episode_out, index, H5T_NATIVE_INT64, "1 (index of /episodes)"),
        CR_H5_COL(episode_out, dofs, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(episode_out, contacts, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(episode_out, reference, H5T_NATIVE_INT64, "1 (reference record)"),
        CR_H5_COL(episode_out, first_row, H5T_NATIVE_INT64, "1 (row of rows)"),
        CR_H5_COL(episode_out, row_count, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(episode_out, t_start, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(episode_out, kappa, H5T_NATIVE_DOUBLE, "1 (T+/T- of the reference u+)"),
        CR_H5_COL(episode_out, kappa_min, H5T_NATIVE_DOUBLE, "1 (T+/T- of maximal dissipation)"),
        CR_H5_COL(episode_out, v_perp, H5T_NATIVE_DOUBLE, "m/s kg^0.5 (|v_perp|_M)"),
        CR_H5_COL(episode_out, speed, H5T_NATIVE_DOUBLE, "m/s (|gamma-| of the reference)"),
        CR_H5_COL(episode_out, field_corrected, H5T_NATIVE_INT8, "1 (1: u+ - M^-1 int F_field dt)"),
        CR_H5_COL(episode_out, d_alpha, H5T_NATIVE_DOUBLE, "1 (max change at rtol/100; NaN)"),
        CR_H5_COL(episode_out, d_kappa, H5T_NATIVE_DOUBLE, "1 (change at rtol/100; NaN)"),
        CR_H5_COL(episode_out, d_newton, H5T_NATIVE_DOUBLE, "1 (max change at rtol/100; NaN)"),
        CR_H5_COL(episode_out, d_poisson, H5T_NATIVE_DOUBLE, "1 (max change at rtol/100; NaN)"),
    };
    int e = cr_h5_write_table(g, "episodes", sizeof(episode_out), c, sizeof c / sizeof c[0], rows,
                              n, "the episodes compared");
    free(rows);
    return e;
}

typedef struct {
    char law[NAME_LEN], mode[NAME_LEN];
    int64_t episodes, answered;
    int64_t count[CR_COMPARE_STATUS_COUNT];
    double mean_error, max_error, mean_energy_error;
} summary_out;

static int write_summary(hid_t g, const cr_compare *cmp)
{
    summary_out rows[CR_LAW_COUNT * CR_COMPARE_MODE_COUNT];
    size_t n = 0;
    for (int law = 0; law < CR_LAW_COUNT; law++)
        for (int mode = 0; mode < CR_COMPARE_MODE_COUNT; mode++, n++) {
            cr_compare_summary s;
            cr_compare_summarize(cmp, (cr_law_id)law, (cr_compare_mode)mode, &s);
            summary_out *o = &rows[n];
            memset(o, 0, sizeof(*o));
            snprintf(o->law, NAME_LEN, "%s", cr_law_name((cr_law_id)law));
            snprintf(o->mode, NAME_LEN, "%s", cr_compare_mode_name((cr_compare_mode)mode));
            o->episodes = (int64_t)s.episodes;
            o->answered = (int64_t)s.answered;
            for (int k = 0; k < CR_COMPARE_STATUS_COUNT; k++)
                o->count[k] = (int64_t)s.status[k];
            o->mean_error = s.mean_error;
            o->max_error = s.max_error;
            o->mean_energy_error = s.mean_energy_error;
        }
    hid_t sn = cr_h5_fixed_string(NAME_LEN);
    hsize_t ns = CR_COMPARE_STATUS_COUNT;
    hid_t counts = H5Tarray_create2(H5T_NATIVE_INT64, 1, &ns);
    const cr_h5_column c[] = {
        CR_H5_COL(summary_out, law, sn, "1"),
        CR_H5_COL(summary_out, mode, sn, "1"),
        CR_H5_COL(summary_out, episodes, H5T_NATIVE_INT64, "1"),
        CR_H5_COL(summary_out, answered, H5T_NATIVE_INT64, "1 (episodes with an answer)"),
        CR_H5_COL(summary_out, count, counts,
                  "1 (episodes per status: ok, infeasible, multiple, out-of-range, too-large, "
                  "failed, no-prediction)"),
        CR_H5_COL(summary_out, mean_error, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(summary_out, max_error, H5T_NATIVE_DOUBLE, "1"),
        CR_H5_COL(summary_out, mean_energy_error, H5T_NATIVE_DOUBLE, "1 (mean |energy error|)"),
    };
    int e = cr_h5_write_table(g, "summary", sizeof(summary_out), c, sizeof c / sizeof c[0], rows, n,
                              "per law and mode, over every episode compared");
    H5Tclose(sn);
    H5Tclose(counts);
    return e;
}

/* /comparison/episode/NNNN: the vectors of each row (NaN where a row has none). */
static int write_vectors(hid_t top, const cr_compare *cmp, size_t k)
{
    cr_compare_episode e;
    cr_compare_get_episode(cmp, k, &e);
    char name[32];
    snprintf(name, sizeof name, "%04zu", e.index);
    hid_t g = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    size_t n = e.dofs, m = e.contacts, R = e.row_count;
    double *u = malloc((R * n + 1) * sizeof(double)), *P = malloc((R * m + 1) * sizeof(double));
    double *par = malloc((R * m + 1) * sizeof(double));
    int err = u && P && par ? 0 : -1;
    for (size_t i = 0; err == 0 && i < R; i++) {
        const double *ru = cr_compare_row_velocity(cmp, e.first_row + i);
        const double *rp = cr_compare_row_impulse(cmp, e.first_row + i);
        const double *rq = cr_compare_row_parameters(cmp, e.first_row + i);
        for (size_t j = 0; j < n; j++)
            u[i * n + j] = ru ? ru[j] : NAN;
        for (size_t j = 0; j < m; j++) {
            P[i * m + j] = rp ? rp[j] : NAN;
            par[i * m + j] = rq ? rq[j] : NAN;
        }
    }
    err |= err ? -1 : cr_h5_write_doubles(g, "velocity", u, R, n, "m/s (rows x dofs)");
    err |= err ? -1 : cr_h5_write_doubles(g, "impulse", P, R, m, "N s (rows x contacts)");
    err |= err ? -1
               : cr_h5_write_doubles(g, "parameters", par, R, m,
                                     "1 (per-contact restitution, alpha for energetic, energetic "
                                     "restitution for lzb)");
    err |= err ? -1
               : cr_h5_write_doubles(g, "reference_velocity", cr_compare_reference_velocity(cmp, k),
                                     n, 0, "m/s");
    err |= err ? -1
               : cr_h5_write_doubles(g, "field_impulse", cr_compare_field_impulse(cmp, k), n, 0,
                                     "N s");
    err |= err ? -1
               : cr_h5_write_doubles(g, "measured_impulse", cr_compare_measured_impulse(cmp, k), m,
                                     0, "N s");
    free(u);
    free(P);
    free(par);
    return H5Gclose(g) < 0 ? -1 : err;
}

static int write_group(hid_t file, const cr_compare *cmp, const cr_comparison_params *p)
{
    hid_t g = cr_store_comparison_group(file, p ? p->source : "", p ? p->command : "");
    if (g < 0)
        return -1;
    size_t runs, hits;
    cr_compare_cache_stats(cmp, &runs, &hits);
    int64_t r = (int64_t)runs, est = p && p->accuracy ? 1 : 0;
    double tol = CR_COMPARE_CONDITION_TOL, rtol = p ? p->estimate_rtol : NAN;
    int e = cr_h5_attr_string(g, "modes", "calibrated, predictive");
    e |= cr_h5_attr_string(g, "reference",
                           "measured u+; where fields act u+ - M^-1 int F_field dt "
                           "(= u- + M^-1 sum of the contacts' int f n dt)");
    e |= cr_h5_attr_number(g, "two_body_runs", H5T_NATIVE_INT64, &r);
    e |= cr_h5_attr_number(g, "condition_tolerance", H5T_NATIVE_DOUBLE, &tol);
    e |= cr_h5_attr_number(g, "error_estimate", H5T_NATIVE_INT64, &est);
    e |= cr_h5_attr_number(g, "estimate_rtol", H5T_NATIVE_DOUBLE, &rtol);
    e |= e ? -1 : write_rows(g, cmp);
    e |= e ? -1 : write_episode_rows(g, cmp, p);
    e |= e ? -1 : write_summary(g, cmp);
    hid_t top = e ? -1 : H5Gcreate2(g, "episode", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    e |= top < 0 ? -1 : 0;
    for (size_t k = 0; e == 0 && k < cr_compare_episode_count(cmp); k++)
        e = write_vectors(top, cmp, k);
    if (top >= 0)
        H5Gclose(top);
    return H5Gclose(g) < 0 ? -1 : e;
}

hid_t cr_store_comparison_group(hid_t file, const char *source, const char *command)
{
    if (H5Lexists(file, "comparison", H5P_DEFAULT) > 0 &&
        H5Ldelete(file, "comparison", H5P_DEFAULT) < 0)
        return -1;
    hid_t g = H5Gcreate2(file, "comparison", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int e = cr_h5_attr_string(g, "cradle_version", cr_version());
    e |= cr_h5_attr_string(g, "written", when);
    e |= cr_h5_attr_string(g, "source", source);
    e |= cr_h5_attr_string(g, "command", command);
    if (e) {
        H5Gclose(g);
        return -1;
    }
    return g;
}

/* ---- the copy ------------------------------------------------------------------------ */

static int copy_file(const char *from, const char *to, char *msg, size_t msglen)
{
    int in = open(from, O_RDONLY), out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL, 0666);
    int e = in < 0 || out < 0 ? -1 : 0;
    char buf[1 << 16];
    while (e == 0) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n <= 0) {
            e = n < 0 ? -1 : 0;
            break;
        }
        for (ssize_t w = 0; e == 0 && w < n;) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            e = k <= 0 ? -1 : 0;
            w += k > 0 ? k : 0;
        }
    }
    if (e)
        cr_set_msg(msg, msglen, "%s: cannot copy %s: %s", to, from, strerror(errno));
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && e == 0) {
        cr_set_msg(msg, msglen, "%s: %s", to, strerror(errno));
        e = -1;
    }
    return e;
}

static int sync_path(const char *path, int directory)
{
    int fd = open(path, directory ? O_RDONLY | O_DIRECTORY : O_RDWR);
    if (fd < 0)
        return -1;
    int e = fsync(fd);
    close(fd);
    return e;
}

int cr_store_replace_through_copy(const char *source, const char *target,
                                  int (*write)(hid_t file, const void *ctx), const void *ctx,
                                  const char *what, char *msg, size_t msglen)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    size_t len = strlen(target) + 32;
    char *tmp = malloc(len), *dir = strdup(target);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        cr_set_msg(msg, msglen, "out of memory");
        return CR_ERR_NOMEM;
    }
    snprintf(tmp, len, "%s.tmp.%ld", target, (long)getpid());
    int rc = copy_file(source, tmp, msg, msglen) == 0 ? CR_OK : CR_ERR_IO;
    hid_t f = rc == CR_OK ? H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT) : -1;
    if (rc == CR_OK && (f < 0 || write(f, ctx) != 0)) {
        cr_set_msg(msg, msglen, "%s: cannot write %s", target, what);
        rc = CR_ERR_HDF5;
    }
    if (f >= 0 && H5Fclose(f) < 0 && rc == CR_OK) {
        cr_set_msg(msg, msglen, "%s: cannot close the new file", target);
        rc = CR_ERR_HDF5;
    }
    if (rc == CR_OK && (sync_path(tmp, 0) != 0 || rename(tmp, target) != 0)) {
        cr_set_msg(msg, msglen, "%s: cannot replace it: %s", target, strerror(errno));
        rc = CR_ERR_IO;
    }
    if (rc != CR_OK)
        unlink(tmp);
    else
        sync_path(dirname(dir), 1);
    free(tmp);
    free(dir);
    return rc;
}

typedef struct {
    const cr_compare *cmp;
    const cr_comparison_params *p;
} comparison_ctx;

static int write_comparison(hid_t file, const void *ctx)
{
    const comparison_ctx *c = ctx;
    return write_group(file, c->cmp, c->p);
}

int cr_store_write_comparison(const char *source, const char *target, const cr_compare *cmp,
                              const cr_comparison_params *params, char *msg, size_t msglen)
{
    if (!source || !target || !cmp) {
        cr_set_msg(msg, msglen, "write comparison: no source, target or comparison");
        return CR_ERR_INVALID;
    }
    comparison_ctx c = {cmp, params};
    return cr_store_replace_through_copy(source, target, write_comparison, &c, "/comparison", msg,
                                         msglen);
}
