/* A sweep output read back (tables, tests, `cradle sweep --csv`): the whole
 * table in memory, with its inputs, errors and attributes. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/h5-util.h"
#include "cradle/sweepoutput.h"

struct cr_sweep_output {
    size_t points, ncol, nin;
    double *table;
    unsigned char *done;
    char *error;              /* points × CR_SWEEP_ERROR_LEN */
    char *columns;            /* ncol × 160 */
    char *in_name, *in_field; /* nin × 160 */
    char *in_text;            /* points × nin × CR_SWEEP_INPUT_LEN */
    char *attrs[8][2];        /* name, value */
    size_t nattrs;
};

#define NAME_LEN 160
/* Columns a sweep file may have (a sweep writes ~100; pools with
 * `contacts: 1000` a few thousand), and the bytes of an attribute read. */
#define MAX_COLUMNS 100000
/* Points: the sweep's own cap (MAX_POINTS of cradle/sweep.h, a layer
 * above this one). */
#define MAX_POINTS 10000000
#define ATTR_MAX ((size_t)1 << 20)

static double number_of(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(v) ? v : NAN;
}

/*
 * Reads and checks a whole sweep output (docs/sweep.md, "The output"): kind
 * and format version first, then every dataset's shape against /table's
 * (points x columns), sizes against the caps before anything is allocated,
 * /done values 0 or 1, and each input column of /table equal to the number
 * its /inputs/text gives at every point done (a table that disagrees with its
 * own inputs would interpolate the wrong point).
 */
static int read_all(cr_sweep_output *t, cr_h5_reader *r)
{
    char *kind = NULL;
    int64_t version = 0, points_attr = -1;
    int rc = cr_h5_attr_text(r, r->file, "/", "kind", 64, &kind);
    if (rc == 0 || (rc == 1 && strcmp(kind, "cradle sweep") != 0)) {
        char shown[80];
        cr_h5_fail(r, NULL, "not a cradle sweep file (%s)",
                   rc == 0 ? "no attribute 'kind'" : cr_h5_echo(kind, 60, shown, sizeof shown));
        rc = -1;
    }
    free(kind);
    if (rc < 0)
        return -1;
    rc = cr_h5_attr_integer(r, r->file, "/", "format_version", &version);
    if (rc <= 0 || version != CR_SWEEP_FORMAT_VERSION)
        return rc < 0 ? -1
                      : cr_h5_fail(r, NULL,
                                   "a sweep file of format version %lld; this cradle "
                                   "reads version %d",
                                   (long long)version, CR_SWEEP_FORMAT_VERSION);
    if (cr_h5_attr_integer(r, r->file, "/", "points", &points_attr) < 0)
        return -1;
    static const char *const names[] = {"cradle_version", "sweep_hash", "status", "name", NULL};
    t->attrs[t->nattrs][0] = strdup("kind");
    t->attrs[t->nattrs++][1] = strdup("cradle sweep");
    for (const char *const *n = names; *n; n++) {
        char *v = NULL;
        if (cr_h5_attr_text(r, r->file, "/", *n, ATTR_MAX, &v) < 0)
            return -1;
        t->attrs[t->nattrs][0] = strdup(*n);
        t->attrs[t->nattrs++][1] = v ? v : strdup("");
    }
    const char *texts[][2] = {{"text", "sweep/text"}, {"model_text", "sweep/model_text"}};
    for (size_t k = 0; k < 2; k++) {
        char *v = cr_h5_read_text(r, texts[k][1], CR_H5_MAX_STRING);
        if (!v)
            return -1;
        t->attrs[t->nattrs][0] = strdup(texts[k][0]);
        t->attrs[t->nattrs++][1] = v;
    }
    for (size_t k = 0; k < t->nattrs; k++)
        if (!t->attrs[k][0] || !t->attrs[k][1])
            return cr_h5_fail(r, NULL, "out of memory");

    int rank;
    hsize_t dims[2];
    if (cr_h5_shape(r, "table", CR_H5_NUMBERS, &rank, dims) != 0)
        return -1;
    if (rank != 2)
        return cr_h5_fail(r, "table", "rank %d (points x columns expected)", rank);
    if (dims[0] > MAX_POINTS || dims[1] > MAX_COLUMNS ||
        (dims[0] && dims[1] > CR_H5_MAX_READ_BYTES / sizeof(double) / dims[0]))
        return cr_h5_fail(r, "table",
                          "%llu x %llu values: more than this reader takes (%d points, %d "
                          "columns, %zu MiB)",
                          (unsigned long long)dims[0], (unsigned long long)dims[1], MAX_POINTS,
                          MAX_COLUMNS, CR_H5_MAX_READ_BYTES >> 20);
    if (points_attr >= 0 && (uint64_t)points_attr != dims[0])
        return cr_h5_fail(r, "table", "%llu rows, the attribute 'points' says %lld",
                          (unsigned long long)dims[0], (long long)points_attr);
    t->points = (size_t)dims[0];
    t->ncol = (size_t)dims[1];
    if (cr_h5_shape(r, "inputs/name", CR_H5_STRINGS, &rank, dims) != 0)
        return -1;
    if (rank != 1 || dims[0] > t->ncol)
        return cr_h5_fail(r, "inputs/name", "%llu inputs for %zu columns",
                          (unsigned long long)dims[0], t->ncol);
    t->nin = (size_t)dims[0];
    hsize_t dp = t->points, dc = t->ncol, di = t->nin, dpi[2] = {t->points, t->nin},
            dt[2] = {t->points, t->ncol};
    t->table = malloc((t->points * t->ncol + 1) * sizeof(double));
    t->done = calloc(t->points + 1, 1);
    if (!t->table || !t->done)
        return cr_h5_fail(r, NULL, "out of memory");
    if (cr_h5_read_numbers(r, "table", H5T_NATIVE_DOUBLE, t->table, 2, dt) != 0 ||
        cr_h5_read_numbers(r, "done", H5T_NATIVE_UCHAR, t->done, 1, &dp) != 0 ||
        !(t->error = cr_h5_read_strings(r, "error", 1, &dp, CR_SWEEP_ERROR_LEN)) ||
        !(t->columns = cr_h5_read_strings(r, "columns", 1, &dc, NAME_LEN)) ||
        !(t->in_name = cr_h5_read_strings(r, "inputs/name", 1, &di, NAME_LEN)) ||
        !(t->in_field = cr_h5_read_strings(r, "inputs/field", 1, &di, NAME_LEN)) ||
        !(t->in_text = cr_h5_read_strings(r, "inputs/text", 2, dpi, CR_SWEEP_INPUT_LEN)))
        return -1;
    for (size_t i = 0; i < t->points; i++)
        if (t->done[i] > 1)
            return cr_h5_fail(r, "done", "point %zu: %u (0 or 1)", i, t->done[i]);
    for (size_t j = 0; j < t->nin; j++)
        if (strcmp(t->in_name + j * NAME_LEN, t->columns + j * NAME_LEN) != 0) {
            char a[80], b[80];
            return cr_h5_fail(r, "inputs/name", "input %zu is '%s' but column %zu is '%s'", j,
                              cr_h5_echo(t->in_name + j * NAME_LEN, 60, a, sizeof a), j,
                              cr_h5_echo(t->columns + j * NAME_LEN, 60, b, sizeof b));
        }
    for (size_t i = 0; i < t->points; i++) /* a pending point's row is NaN */
        for (size_t j = 0; t->done[i] && j < t->nin; j++) {
            const char *text = t->in_text + (i * t->nin + j) * CR_SWEEP_INPUT_LEN;
            double want = number_of(text), got = t->table[i * t->ncol + j];
            if (!(want == got || (isnan(want) && isnan(got)))) {
                char a[80], b[80];
                return cr_h5_fail(r, "table", "point %zu: %s = %.17g, but /inputs/text says '%s'",
                                  i, cr_h5_echo(t->columns + j * NAME_LEN, 60, a, sizeof a), got,
                                  cr_h5_echo(text, 60, b, sizeof b));
            }
        }
    return 0;
}

cr_sweep_output *cr_sweep_output_open(const char *path, char *msg, size_t msglen)
{
    cr_h5_reader r;
    if (cr_h5_reader_open(&r, path, msg, msglen) != 0) {
        cr_h5_reader_close(&r);
        return NULL;
    }
    cr_sweep_output *t = calloc(1, sizeof *t);
    if (!t)
        cr_h5_fail(&r, NULL, "out of memory");
    if (!t || read_all(t, &r) != 0) {
        if (!r.failed)
            cr_h5_fail(&r, NULL, "cannot be read as a sweep file");
        cr_sweep_output_close(t);
        t = NULL;
    }
    cr_h5_reader_close(&r);
    return t;
}

void cr_sweep_output_close(cr_sweep_output *t)
{
    if (!t)
        return;
    for (size_t k = 0; k < t->nattrs; k++) {
        free(t->attrs[k][0]);
        free(t->attrs[k][1]);
    }
    free(t->table);
    free(t->done);
    free(t->error);
    free(t->columns);
    free(t->in_name);
    free(t->in_field);
    free(t->in_text);
    free(t);
}

size_t cr_sweep_output_points(const cr_sweep_output *t)
{
    return t ? t->points : 0;
}
size_t cr_sweep_output_columns(const cr_sweep_output *t)
{
    return t ? t->ncol : 0;
}
const char *cr_sweep_output_column(const cr_sweep_output *t, size_t j)
{
    return t && j < t->ncol ? t->columns + j * NAME_LEN : NULL;
}
long cr_sweep_output_column_index(const cr_sweep_output *t, const char *name)
{
    for (size_t j = 0; t && name && j < t->ncol; j++)
        if (strcmp(t->columns + j * NAME_LEN, name) == 0)
            return (long)j;
    return -1;
}
const double *cr_sweep_output_row(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->table + i * t->ncol : NULL;
}
int cr_sweep_output_done(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->done[i] != 0 : 0;
}
const char *cr_sweep_output_error(const cr_sweep_output *t, size_t i)
{
    return t && i < t->points ? t->error + i * CR_SWEEP_ERROR_LEN : NULL;
}
size_t cr_sweep_output_inputs(const cr_sweep_output *t)
{
    return t ? t->nin : 0;
}
const char *cr_sweep_output_input_name(const cr_sweep_output *t, size_t j)
{
    return t && j < t->nin ? t->in_name + j * NAME_LEN : NULL;
}
const char *cr_sweep_output_input_field(const cr_sweep_output *t, size_t j)
{
    return t && j < t->nin ? t->in_field + j * NAME_LEN : NULL;
}
const char *cr_sweep_output_input_text(const cr_sweep_output *t, size_t i, size_t j)
{
    return t && i < t->points && j < t->nin ? t->in_text + (i * t->nin + j) * CR_SWEEP_INPUT_LEN
                                            : NULL;
}
const char *cr_sweep_output_attr(const cr_sweep_output *t, const char *name)
{
    for (size_t k = 0; t && name && k < t->nattrs; k++)
        if (strcmp(t->attrs[k][0], name) == 0)
            return t->attrs[k][1];
    return NULL;
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int cr_sweep_output_write_csv(const cr_sweep_output *t, FILE *out)
{
    if (!t || !out)
        return CR_ERR_INVALID;
    fputs("point", out);
    for (size_t j = 0; j < t->nin; j++) {
        fputc(',', out);
        csv_text(out, cr_sweep_output_input_name(t, j));
    }
    fputs(",status", out);
    for (size_t j = t->nin; j < t->ncol; j++) {
        fputc(',', out);
        csv_text(out, cr_sweep_output_column(t, j));
    }
    fputs(",error\n", out);
    for (size_t i = 0; i < t->points; i++) {
        const char *err = cr_sweep_output_error(t, i);
        fprintf(out, "%zu", i);
        for (size_t j = 0; j < t->nin; j++) {
            fputc(',', out);
            csv_text(out, cr_sweep_output_input_text(t, i, j));
        }
        fprintf(out, ",%s", !t->done[i] ? "pending" : err[0] ? "failed" : "ok");
        const double *row = cr_sweep_output_row(t, i);
        for (size_t j = t->nin; j < t->ncol; j++)
            fprintf(out, ",%.17g", row[j]);
        fputc(',', out);
        csv_text(out, err);
        fputc('\n', out);
    }
    return ferror(out) ? CR_ERR_IO : CR_OK;
}
