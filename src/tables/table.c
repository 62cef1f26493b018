/* Reference tables read back and interpolated (include/cradle/table.h): the
 * sweep output's inputs are sorted into crossed axes, every grid cell is
 * mapped to its point, and a lookup blends the 2^d corners of the cell that
 * holds x. */
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/sweepoutput.h"
#include "cradle/table.h"
#include "base/base.h"
#include "base/h5-util.h"

#define TB_MAX_AXES 16
#define TB_MAX_ATTRS 32
/* Quantities a table may hold fixed (a chain of 9 bodies has 8 + 7 + 8 + 1 + 8). */
#define TB_MAX_FIXED 64

typedef struct {
    size_t input; /* the sweep input it is */
    size_t n;     /* values */
    double *v;    /* ascending */
    int log;      /* interpolated in log x */
    size_t stride;
} tb_axis;

struct cr_table {
    char *path;
    cr_sweep_output *out;
    size_t naxes, nin, ncol;
    tb_axis ax[TB_MAX_AXES];
    size_t *cell;  /* grid cell (row-major over the axes) → point */
    double *bound; /* per column (NaN: unknown) */
    long *checked; /* per column */
    char *attrs[TB_MAX_ATTRS][2];
    size_t nattrs;
    char *quantity;      /* naxes × CR_TABLE_QUANTITY_LEN, or NULL: not declared */
    char *fixed;         /* nfixed × CR_TABLE_QUANTITY_LEN */
    double *fixed_value; /* nfixed */
    size_t nfixed;
    char err[CR_ERRMSG_LEN];
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Index of @p x in the ascending values @p v (exact match), or −1. */
static long find_value(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? (long)lo : -1;
}

/* Distinct values of input j over the points (NaN refused). */
static int distinct_values(cr_table *t, size_t j, tb_axis *a, char *msg, size_t msglen)
{
    size_t np = cr_sweep_output_points(t->out);
    double *v = malloc((np ? np : 1) * sizeof(double));
    if (!v)
        return CR_ERR_NOMEM;
    for (size_t i = 0; i < np; i++) {
        v[i] = cr_sweep_output_row(t->out, i)[j];
        if (!isfinite(v[i])) {
            cr_set_msg(msg, msglen, "%s: input '%s' at point %zu is not a number ('%s')", t->path,
                       cr_sweep_output_input_name(t->out, j), i,
                       cr_sweep_output_input_text(t->out, i, j));
            free(v);
            return CR_ERR_INVALID;
        }
    }
    qsort(v, np, sizeof(double), cmp_double);
    size_t n = 0;
    for (size_t i = 0; i < np; i++)
        if (n == 0 || v[i] != v[n - 1])
            v[n++] = v[i];
    a->input = j;
    a->n = n;
    a->v = v;
    /* geometric spacing (every ratio equal to 1e-9): interpolate in log x,
     * where a power law is a straight line */
    a->log = n >= 3 && v[0] > 0.0;
    for (size_t k = 2; a->log && k < n; k++)
        if (fabs((v[k] / v[k - 1]) / (v[1] / v[0]) - 1.0) > 1e-9)
            a->log = 0;
    return CR_OK;
}

/* Input j rides along an earlier axis (a zip) when its value is a function of
 * that axis' value and the counts agree. */
static int is_zipped(const cr_table *t, size_t j, const tb_axis *a, size_t n)
{
    if (a->n != n)
        return 0;
    size_t np = cr_sweep_output_points(t->out);
    double *seen = malloc(n * sizeof(double));
    if (!seen)
        return 0;
    for (size_t k = 0; k < n; k++)
        seen[k] = NAN;
    int ok = 1;
    for (size_t i = 0; ok && i < np; i++) {
        const double *row = cr_sweep_output_row(t->out, i);
        long k = find_value(a->v, a->n, row[a->input]);
        if (isnan(seen[k]))
            seen[k] = row[j];
        else if (seen[k] != row[j])
            ok = 0;
    }
    free(seen);
    return ok;
}

static int build_grid(cr_table *t, char *msg, size_t msglen)
{
    size_t np = cr_sweep_output_points(t->out);
    for (size_t j = 0; j < t->nin; j++) {
        tb_axis a;
        int rc = distinct_values(t, j, &a, msg, msglen);
        if (rc != CR_OK)
            return rc;
        int zipped = 0;
        for (size_t b = 0; b < t->naxes && !zipped; b++)
            zipped = is_zipped(t, j, &t->ax[b], a.n);
        if (zipped || t->naxes == TB_MAX_AXES) {
            free(a.v);
            if (!zipped) {
                cr_set_msg(msg, msglen, "%s: more than %d crossed axes", t->path, TB_MAX_AXES);
                return CR_ERR_INVALID;
            }
            continue;
        }
        t->ax[t->naxes++] = a;
    }
    size_t cells = 1;
    for (size_t a = t->naxes; a-- > 0;) {
        t->ax[a].stride = cells;
        cells *= t->ax[a].n;
    }
    if (cells != np) {
        cr_set_msg(msg, msglen,
                   "%s: the inputs are not a full crossed grid (%zu cells, %zu points)", t->path,
                   cells, np);
        return CR_ERR_INVALID;
    }
    t->cell = malloc(cells * sizeof(size_t));
    if (!t->cell)
        return CR_ERR_NOMEM;
    for (size_t c = 0; c < cells; c++)
        t->cell[c] = SIZE_MAX;
    for (size_t i = 0; i < np; i++) {
        const double *row = cr_sweep_output_row(t->out, i);
        size_t c = 0;
        for (size_t a = 0; a < t->naxes; a++)
            c += (size_t)find_value(t->ax[a].v, t->ax[a].n, row[t->ax[a].input]) * t->ax[a].stride;
        if (t->cell[c] != SIZE_MAX) {
            cr_set_msg(msg, msglen, "%s: points %zu and %zu are the same grid point", t->path,
                       t->cell[c], i);
            return CR_ERR_INVALID;
        }
        t->cell[c] = i;
    }
    return CR_OK;
}

/* ---- the /reference group ----------------------------------------------------------------- */

/* The declaration of what the axes are (docs/tables.md, "Impact
 * configurations"), when the table has one: a name per axis, and the fixed
 * quantities with a finite value each. @return 0, or -1 recorded. */
static int read_declaration(cr_table *t, cr_h5_reader *r)
{
    int has = cr_h5_has(r, "reference/quantity");
    hsize_t n = t->naxes;
    if (has < 0 || (has == 1 && !(t->quantity = cr_h5_read_strings(r, "reference/quantity", 1, &n,
                                                                   CR_TABLE_QUANTITY_LEN))))
        return -1;
    if ((has = cr_h5_has(r, "reference/fixed_quantity")) != 1)
        return has;
    int rank;
    hsize_t dims[2];
    if (cr_h5_shape(r, "reference/fixed_quantity", CR_H5_STRINGS, &rank, dims) != 0)
        return -1;
    if (rank != 1 || dims[0] > TB_MAX_FIXED)
        return cr_h5_fail(r, "reference/fixed_quantity", "rank %d, %llu names (1-D, at most %d)",
                          rank, (unsigned long long)dims[0], TB_MAX_FIXED);
    n = dims[0];
    t->nfixed = (size_t)n;
    if (!(t->fixed =
              cr_h5_read_strings(r, "reference/fixed_quantity", 1, &n, CR_TABLE_QUANTITY_LEN)) ||
        !(t->fixed_value = malloc((t->nfixed + 1) * sizeof(double))))
        return t->fixed ? cr_h5_fail(r, NULL, "out of memory") : -1;
    if (cr_h5_read_numbers(r, "reference/fixed_value", H5T_NATIVE_DOUBLE, t->fixed_value, 1, &n))
        return -1;
    for (size_t k = 0; k < t->nfixed; k++)
        if (!isfinite(t->fixed_value[k]))
            return cr_h5_fail(r, "reference/fixed_value", "value %zu is not a finite number", k);
    return 0;
}

/* The bounds and provenance (a bare sweep output has none: bounds stay NaN),
 * through the checked readers: kind and version first, bound and checked one
 * per column, string attributes bounded. */
static int read_table_group(cr_table *t, char *msg, size_t msglen)
{
    cr_h5_reader r;
    if (cr_h5_reader_open(&r, t->path, msg, msglen) != 0) {
        cr_h5_reader_close(&r);
        return CR_ERR_HDF5;
    }
    int there = cr_h5_has(&r, "reference");
    hid_t g = there == 1 ? H5Gopen2(r.file, "reference", H5P_DEFAULT) : -1;
    int e = there < 0 || (there == 1 && g < 0 && cr_h5_fail(&r, "reference", "not a group"));
    if (!e && g >= 0) {
        char *kind = NULL;
        int64_t version = 0;
        int rc = cr_h5_attr_text(&r, g, "reference", "kind", 64, &kind);
        if (rc == 1 && strcmp(kind, "cradle reference table") != 0) {
            char shown[80];
            e = cr_h5_fail(&r, "reference", "kind '%s' (not a cradle reference table)",
                           cr_h5_echo(kind, 60, shown, sizeof shown));
        } else if (rc <= 0)
            e = rc < 0 || cr_h5_fail(&r, "reference", "no attribute 'kind'");
        free(kind);
        rc = e ? -1 : cr_h5_attr_integer(&r, g, "reference", "format_version", &version);
        if (!e && (rc <= 0 || version != CR_TABLE_FORMAT_VERSION))
            e = rc < 0 || cr_h5_fail(&r, "reference",
                                     "a table of format version %lld; this cradle reads version "
                                     "%d",
                                     (long long)version, CR_TABLE_FORMAT_VERSION);
        hsize_t n = t->ncol;
        e = e || cr_h5_read_numbers(&r, "reference/bound", H5T_NATIVE_DOUBLE, t->bound, 1, &n) ||
            cr_h5_read_numbers(&r, "reference/checked", H5T_NATIVE_LONG, t->checked, 1, &n);
        for (size_t j = 0; !e && j < t->ncol; j++)
            if (!(isnan(t->bound[j]) || (t->bound[j] >= 0.0 && isfinite(t->bound[j]))) ||
                t->checked[j] < 0)
                e = cr_h5_fail(&r, "reference/bound",
                               "column %zu: bound %g from %ld checks (a bound is >= 0 or NaN)", j,
                               t->bound[j], t->checked[j]);
        e = e || read_declaration(t, &r) != 0;
        char *names[TB_MAX_ATTRS];
        size_t nn = 0;
        if (!e && cr_h5_attr_names(&r, g, "reference", names, TB_MAX_ATTRS, &nn) != 0)
            e = 1;
        for (size_t k = 0; k < nn; k++) {
            hid_t a = e ? -1 : H5Aopen(g, names[k], H5P_DEFAULT);
            hid_t ft = a < 0 ? -1 : H5Aget_type(a);
            int string = ft >= 0 && H5Tget_class(ft) == H5T_STRING;
            if (ft >= 0)
                H5Tclose(ft);
            if (a >= 0)
                H5Aclose(a);
            char *v = NULL;
            if (string && !e && t->nattrs < TB_MAX_ATTRS) {
                if (cr_h5_attr_text(&r, g, "reference", names[k], (size_t)1 << 20, &v) < 0)
                    e = 1;
                else if (v) {
                    t->attrs[t->nattrs][0] = names[k];
                    t->attrs[t->nattrs++][1] = v;
                    names[k] = NULL;
                }
            }
            free(names[k]);
        }
    }
    if (g >= 0)
        H5Gclose(g);
    cr_h5_reader_close(&r);
    return e ? CR_ERR_HDF5 : CR_OK;
}

/* ---- open, close, queries --------------------------------------------------------------- */

int cr_table_open(const char *path, cr_table **out, char *msg, size_t msglen)
{
    CR_CHECK(path && out, msg, CR_ERR_INVALID);
    *out = NULL;
    cr_table *t = calloc(1, sizeof(*t));
    if (!t || !(t->path = strdup(path))) {
        free(t);
        return CR_ERR_NOMEM;
    }
    char why[CR_ERRMSG_LEN] = "";
    t->out = cr_sweep_output_open(path, why, sizeof why);
    if (!t->out) {
        cr_set_msg(msg, msglen, "%s", why);
        cr_table_close(t);
        return CR_ERR_HDF5;
    }
    t->nin = cr_sweep_output_inputs(t->out);
    t->ncol = cr_sweep_output_columns(t->out);
    size_t np = cr_sweep_output_points(t->out);
    for (size_t i = 0; i < np; i++)
        if (!cr_sweep_output_done(t->out, i)) {
            cr_set_msg(msg, msglen, "%s: point %zu is not computed: finish the sweep first", path,
                       i);
            cr_table_close(t);
            return CR_ERR_INVALID;
        }
    int rc = t->nin == 0 ? CR_ERR_INVALID : build_grid(t, msg, msglen);
    if (t->nin == 0)
        cr_set_msg(msg, msglen, "%s: the sweep has no inputs: no axis to look up", path);
    t->bound = malloc((t->ncol + 1) * sizeof(double));
    t->checked = calloc(t->ncol + 1, sizeof(long));
    if (rc == CR_OK && (!t->bound || !t->checked))
        rc = CR_ERR_NOMEM;
    if (rc != CR_OK) {
        cr_table_close(t);
        return rc;
    }
    for (size_t j = 0; j < t->ncol; j++)
        t->bound[j] = NAN;
    rc = read_table_group(t, msg, msglen);
    if (rc != CR_OK) {
        cr_table_close(t);
        return rc;
    }
    *out = t;
    return CR_OK;
}

void cr_table_close(cr_table *t)
{
    if (!t)
        return;
    for (size_t a = 0; a < t->naxes; a++)
        free(t->ax[a].v);
    for (size_t k = 0; k < t->nattrs; k++) {
        free(t->attrs[k][0]);
        free(t->attrs[k][1]);
    }
    cr_sweep_output_close(t->out);
    free(t->quantity);
    free(t->fixed);
    free(t->fixed_value);
    free(t->cell);
    free(t->bound);
    free(t->checked);
    free(t->path);
    free(t);
}

const char *cr_table_last_error(const cr_table *t)
{
    return t ? t->err : "no table";
}
const char *cr_table_path(const cr_table *t)
{
    return t ? t->path : "";
}
size_t cr_table_axis_count(const cr_table *t)
{
    return t ? t->naxes : 0;
}

const char *cr_table_axis_name(const cr_table *t, size_t a)
{
    return t && a < t->naxes ? cr_sweep_output_input_name(t->out, t->ax[a].input) : "";
}

const char *cr_table_axis_field(const cr_table *t, size_t a)
{
    return t && a < t->naxes ? cr_sweep_output_input_field(t->out, t->ax[a].input) : "";
}

long cr_table_axis_index(const cr_table *t, const char *name)
{
    for (size_t a = 0; t && name && a < t->naxes; a++)
        if (strcmp(cr_table_axis_name(t, a), name) == 0)
            return (long)a;
    return -1;
}

size_t cr_table_axis_length(const cr_table *t, size_t a)
{
    return t && a < t->naxes ? t->ax[a].n : 0;
}

double cr_table_axis_value(const cr_table *t, size_t a, size_t k)
{
    return t && a < t->naxes && k < t->ax[a].n ? t->ax[a].v[k] : NAN;
}

int cr_table_axis_is_log(const cr_table *t, size_t a)
{
    return t && a < t->naxes && t->ax[a].log;
}
size_t cr_table_column_count(const cr_table *t)
{
    return t ? t->ncol : 0;
}

const char *cr_table_column_name(const cr_table *t, size_t j)
{
    return t && j < t->ncol ? cr_sweep_output_column(t->out, j) : "";
}

long cr_table_column_index(const cr_table *t, const char *name)
{
    return t && name ? cr_sweep_output_column_index(t->out, name) : -1;
}

double cr_table_bound(const cr_table *t, size_t j, size_t *checked)
{
    if (checked)
        *checked = t && j < t->ncol ? (size_t)t->checked[j] : 0;
    return t && j < t->ncol ? t->bound[j] : NAN;
}

const char *cr_table_attr(const cr_table *t, const char *name)
{
    if (!t || !name)
        return "";
    for (size_t k = 0; k < t->nattrs; k++)
        if (strcmp(t->attrs[k][0], name) == 0)
            return t->attrs[k][1];
    const char *s = cr_sweep_output_attr(t->out, name);
    return s ? s : "";
}

const char *cr_table_axis_quantity(const cr_table *t, size_t a)
{
    if (!t || a >= t->naxes)
        return "";
    if (t->quantity)
        return t->quantity + a * CR_TABLE_QUANTITY_LEN;
    /* a chain3 table made before declarations: its keys are the quantities */
    return strcmp(cr_table_attr(t, "configuration"), "chain3") == 0 ? cr_table_axis_name(t, a) : "";
}

size_t cr_table_fixed_count(const cr_table *t)
{
    return t ? t->nfixed : 0;
}

const char *cr_table_fixed_name(const cr_table *t, size_t k)
{
    return t && k < t->nfixed ? t->fixed + k * CR_TABLE_QUANTITY_LEN : "";
}

double cr_table_fixed_value(const cr_table *t, size_t k)
{
    return t && k < t->nfixed ? t->fixed_value[k] : NAN;
}

size_t cr_table_chain_bodies(const cr_table *t)
{
    const char *c = cr_table_attr(t, "configuration");
    /* "chainN", one digit N from 2 to CR_TABLE_CHAIN_MAX */
    if (strncmp(c, "chain", 5) != 0 || c[5] < '2' || c[5] > '0' + CR_TABLE_CHAIN_MAX || c[6])
        return 0;
    return (size_t)(c[5] - '0');
}

/* ---- interpolation ---------------------------------------------------------------------- */

/* The cell of axis @p a holding x: lower index and the weight of the upper
 * value, exactly 0 or 1 on a grid value (so a grid point's value comes back
 * unchanged). */
static int locate(cr_table *t, size_t a, double x, size_t *k, double *w)
{
    const tb_axis *ax = &t->ax[a];
    if (!(x >= ax->v[0] && x <= ax->v[ax->n - 1])) {
        cr_set_msg(t->err, sizeof t->err,
                   "%s: %s = %.9g is outside the table's domain [%.9g, %.9g]", t->path,
                   cr_table_axis_name(t, a), x, ax->v[0], ax->v[ax->n - 1]);
        return CR_ERR_DOMAIN;
    }
    if (ax->n == 1) {
        *k = 0;
        *w = 0.0;
        return CR_OK;
    }
    size_t lo = 0;
    while (lo + 2 < ax->n && x >= ax->v[lo + 1])
        lo++;
    *k = lo;
    if (x == ax->v[lo])
        *w = 0.0;
    else if (x == ax->v[lo + 1])
        *w = 1.0;
    else if (ax->log)
        *w = log(x / ax->v[lo]) / log(ax->v[lo + 1] / ax->v[lo]);
    else
        *w = (x - ax->v[lo]) / (ax->v[lo + 1] - ax->v[lo]);
    return CR_OK;
}

int cr_table_lookup(cr_table *t, const double *x, size_t j, double *value, double *bound)
{
    CR_CHECK(t && x && value, t ? t->err : NULL, CR_ERR_INVALID);
    CR_CHECK(j < t->ncol, t->err, CR_ERR_INVALID);
    size_t k[TB_MAX_AXES];
    double w[TB_MAX_AXES];
    int on_grid = 1;
    for (size_t a = 0; a < t->naxes; a++) {
        int rc = locate(t, a, x[a], &k[a], &w[a]);
        if (rc != CR_OK)
            return rc;
        on_grid &= w[a] == 0.0 || w[a] == 1.0;
    }
    double sum = 0.0;
    for (size_t corner = 0; corner < ((size_t)1 << t->naxes); corner++) {
        double weight = 1.0;
        size_t c = 0;
        for (size_t a = 0; a < t->naxes; a++) {
            int up = (corner >> a) & 1;
            if (up && t->ax[a].n == 1)
                weight = 0.0;
            weight *= up ? w[a] : 1.0 - w[a];
            c += (k[a] + (size_t)up) * t->ax[a].stride;
        }
        if (weight == 0.0)
            continue; /* a NaN at a corner that does not count must not spread */
        size_t i = t->cell[c];
        const char *why = cr_sweep_output_error(t->out, i);
        if (why && why[0]) {
            char shown[4 * CR_SWEEP_ERROR_LEN];
            cr_set_msg(t->err, sizeof t->err, "%s: grid point %zu failed in the sweep: %s", t->path,
                       i, cr_h5_echo(why, CR_SWEEP_ERROR_LEN, shown, sizeof shown));
            return CR_ERR_INVALID;
        }
        sum += weight * cr_sweep_output_row(t->out, i)[j];
    }
    *value = sum;
    if (bound)
        *bound = on_grid ? 0.0 : t->bound[j];
    return CR_OK;
}

int cr_table_value(cr_table *t, const double *x, const char *column, double *value, double *bound)
{
    CR_CHECK(t && column, t ? t->err : NULL, CR_ERR_INVALID);
    long j = cr_table_column_index(t, column);
    if (j < 0) {
        cr_set_msg(t->err, sizeof t->err, "%s: no column '%s' in the table", t->path, column);
        return CR_ERR_INVALID;
    }
    return cr_table_lookup(t, x, (size_t)j, value, bound);
}

static int indexed(cr_table *t, const double *x, const char *stem, size_t c, double *v,
                   double *bound)
{
    char name[64];
    snprintf(name, sizeof name, "%s[%zu]", stem, c);
    return cr_table_value(t, x, name, v, bound);
}

int cr_table_alpha(cr_table *t, const double *x, size_t c, double *alpha, double *bound)
{
    return indexed(t, x, "alpha", c, alpha, bound);
}

int cr_table_kappa(cr_table *t, const double *x, double *kappa, double *bound)
{
    return cr_table_value(t, x, "kappa", kappa, bound);
}

int cr_table_restitution(cr_table *t, const double *x, size_t c, int poisson, double *e,
                         double *bound)
{
    return indexed(t, x, poisson ? "e_P" : "e_N", c, e, bound);
}
