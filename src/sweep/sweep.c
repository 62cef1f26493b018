/*
 * The sweep file (docs/sweep.md): a base model and a grid over model-file
 * fields by dotted path. Values are kept as the YAML text a `--set` takes, so
 * a point is the base model with overrides, read by the model-file parser
 * like any other (src/model/override.c): a bad value fails that point, named as
 * `--set` names it.
 */
#include <errno.h>
#include <libfyaml.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/compare.h"
#include "cradle/laws.h"
#include "cradle/modelfile.h"
#include "sweep/sweep-priv.h"
#include "base/yaml.h"

/* Per-contact columns of a pool when the sweep file does not say (records past
 * them are left out of the row, never mixed up). */
#define SW_POOL_CONTACTS 16
/* Per-contact columns at most. */
#define SW_MAX_CONTACTS 1000

/* ---- small helpers ------------------------------------------------------------ */

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* FNV-1a, 64 bits: a fingerprint of the texts (not a defence against forgery). */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static double number_of(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(v) ? v : NAN;
}

/* The YAML text of a value node: a scalar's text, a collection in one flow line. */
static char *value_text(struct fy_node *n)
{
    if (fy_node_is_scalar(n)) {
        const char *t = cr_yaml_text(n);
        return t ? strdup(t) : NULL;
    }
    return fy_emit_node_to_string(n, FYECF_MODE_FLOW_ONELINE | FYECF_WIDTH_INF);
}

/* ---- axes ---------------------------------------------------------------------- */

typedef struct {
    cr_yaml_ctx *ps;
    cr_sweep *s;
    const char *stored_model; /* the base model's text as a sweep output keeps it, or NULL */
} sw_parse;

/* A field path in one spelling: "balls.1.mass" for balls[1].mass. */
static void field_key(const char *field, char *out, size_t len)
{
    size_t o = 0;
    for (const char *c = field; *c && o + 1 < len; c++)
        if (*c == '[')
            out[o++] = '.';
        else if (*c != ']')
            out[o++] = *c;
    out[o] = '\0';
}

static int add_input(sw_parse *p, const char *field, const char *name, size_t axis, char **values)
{
    cr_sweep *s = p->s;
    /* two inputs with one column name, or on one field (which the later one
     * would silently overwrite at every point): refused */
    char a[512], b[512];
    field_key(field, a, sizeof a);
    for (size_t j = 0; j < s->nin; j++) {
        field_key(s->in[j].field, b, sizeof b);
        const char *why = strcmp(a, b) == 0 ? "field" : NULL;
        if (!why && strcmp(name ? name : field, s->in[j].name) == 0)
            why = "key";
        if (why) {
            for (size_t k = 0; values && k < s->axis_len[axis]; k++)
                free(values[k]);
            free(values);
            return cr_yaml_fail(p->ps, 0, "axes",
                                "two inputs on the %s '%s' (%s and %s): give each field once, "
                                "with a key of its own",
                                why, why[0] == 'f' ? field : (name ? name : field), s->in[j].field,
                                field);
        }
    }
    sw_input *in = realloc(s->in, (s->nin + 1) * sizeof *in);
    if (!in) {
        for (size_t k = 0; values && k < s->axis_len[axis]; k++)
            free(values[k]);
        free(values);
        return cr_yaml_fail(p->ps, 0, "axes", "out of memory");
    }
    s->in = in;
    sw_input *x = &s->in[s->nin++];
    *x = (sw_input){dup_str(field), dup_str(name ? name : field), axis, values, NULL};
    x->numbers = malloc(s->axis_len[axis] * sizeof(double));
    if (!x->field || !x->name || !x->numbers)
        return cr_yaml_fail(p->ps, 0, "axes", "out of memory");
    for (size_t k = 0; k < s->axis_len[axis]; k++)
        x->numbers[k] = number_of(values[k]);
    return CR_OK;
}

/* range: {from, to, count, scale: linear | log}; the ends exactly as given. */
static char **range_values(sw_parse *p, struct fy_node *r, const char *where, size_t *count)
{
    static const char *const keys[] = {"from", "to", "count", "scale", NULL};
    cr_yaml_ctx *ps = p->ps;
    int line = cr_yaml_line(r);
    double from = 0, to = 0;
    long n = 0;
    if (cr_yaml_need_map(ps, r, line, where) || cr_yaml_check_keys(ps, r, where, keys) ||
        cr_yaml_number(ps, r, line, where, "from", 1, 0, &from) ||
        cr_yaml_number(ps, r, line, where, "to", 1, 0, &to) ||
        cr_yaml_count_in(ps, r, line, where, "count", 1, 1, CR_SWEEP_MAX_POINTS, &n))
        return NULL;
    const char *scale = cr_yaml_text(cr_yaml_child(r, "scale"));
    int log_scale = scale && strcmp(scale, "log") == 0;
    if (scale && !log_scale && strcmp(scale, "linear") != 0) {
        char f[300];
        cr_yaml_path(f, sizeof f, where, "scale");
        cr_yaml_fail(ps, cr_yaml_key_line(r, "scale"), f, "must be linear or log");
        return NULL;
    }
    if (log_scale && !(from > 0 && to > 0)) {
        cr_yaml_fail(ps, line, where, "a log range needs from > 0 and to > 0 (got %g, %g)", from,
                     to);
        return NULL;
    }
    char **v = calloc((size_t)n, sizeof *v);
    for (long k = 0; v && k < n; k++) {
        double t = n > 1 ? (double)k / (double)(n - 1) : 0.0;
        double x = k == n - 1 && n > 1 ? to
                   : log_scale         ? from * pow(to / from, t)
                                       : from + (to - from) * t;
        char buf[32];
        snprintf(buf, sizeof buf, "%.17g", x);
        if (!(v[k] = strdup(buf)))
            break;
    }
    *count = (size_t)n;
    return v;
}

static char **list_values(sw_parse *p, struct fy_node *seq, const char *where, size_t *count)
{
    if (!fy_node_is_sequence(seq) || fy_node_sequence_item_count(seq) < 1) {
        cr_yaml_fail(p->ps, cr_yaml_line(seq), where, "must be a non-empty list of values");
        return NULL;
    }
    size_t n = (size_t)fy_node_sequence_item_count(seq);
    char **v = calloc(n, sizeof *v);
    void *it = NULL;
    struct fy_node *item;
    for (size_t k = 0; v && (item = fy_node_sequence_iterate(seq, &it)); k++) {
        char f[300];
        snprintf(f, sizeof f, "%s[%zu]", where, k);
        v[k] = value_text(item);
        if (!v[k] || !v[k][0] || strlen(v[k]) >= CR_SWEEP_INPUT_LEN) {
            cr_yaml_fail(p->ps, cr_yaml_line(item) ? cr_yaml_line(item) : cr_yaml_line(seq), f,
                         v[k] ? "a value of 1 to %d characters" : "a value that is not text",
                         CR_SWEEP_INPUT_LEN - 1);
            for (size_t j = 0; j <= k; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
    }
    *count = n;
    return v;
}

/* One field of an axis: {field, values | range, key}; @p axis its crossed axis. */
static int parse_field(sw_parse *p, struct fy_node *a, const char *where, size_t axis, int first)
{
    static const char *const keys[] = {"field", "values", "range", "key", NULL};
    cr_yaml_ctx *ps = p->ps;
    int line = cr_yaml_line(a);
    if (cr_yaml_need_map(ps, a, line, where) || cr_yaml_check_keys(ps, a, where, keys))
        return ps->rc;
    char f[300];
    const char *field = cr_yaml_text(cr_yaml_child(a, "field"));
    const char *key = cr_yaml_text(cr_yaml_child(a, "key"));
    struct fy_node *vals = cr_yaml_child(a, "values"), *range = cr_yaml_child(a, "range");
    cr_yaml_path(f, sizeof f, where, "field");
    if (!field || !field[0] || strchr(field, '='))
        return cr_yaml_fail(ps, line, f, "a model-file field by its dotted path (balls[1].mass)");
    if (!vals == !range)
        return cr_yaml_fail(ps, line, where, "give either values or range");
    size_t n = 0;
    cr_yaml_path(f, sizeof f, where, vals ? "values" : "range");
    char **v = vals ? list_values(p, vals, f, &n) : range_values(p, range, f, &n);
    if (!v)
        return ps->rc ? ps->rc : cr_yaml_fail(ps, line, where, "out of memory");
    if (first)
        p->s->axis_len[axis] = n;
    if (n != p->s->axis_len[axis]) {
        for (size_t k = 0; k < n; k++)
            free(v[k]);
        free(v);
        return cr_yaml_fail(ps, line, where,
                            "zipped fields need as many values each (%zu here, %zu in the first)",
                            n, p->s->axis_len[axis]);
    }
    return add_input(p, field, key, axis, v);
}

static int parse_axes(sw_parse *p, struct fy_node *axes)
{
    cr_yaml_ctx *ps = p->ps;
    cr_sweep *s = p->s;
    if (!axes || !fy_node_is_sequence(axes) || fy_node_sequence_item_count(axes) < 1)
        return cr_yaml_fail(ps, cr_yaml_line(axes), "axes", "must be a non-empty list of axes");
    size_t n = (size_t)fy_node_sequence_item_count(axes);
    if (!(s->axis_len = calloc(n, sizeof(size_t))))
        return cr_yaml_fail(ps, 0, "axes", "out of memory");
    void *it = NULL;
    struct fy_node *a;
    s->points = 1;
    for (size_t k = 0; (a = fy_node_sequence_iterate(axes, &it)); k++) {
        char where[64];
        snprintf(where, sizeof where, "axes[%zu]", k);
        struct fy_node *zip = cr_yaml_child(a, "zip");
        if (zip && fy_node_mapping_item_count(a) != 1)
            return cr_yaml_fail(ps, cr_yaml_line(a), where, "a zip holds nothing else");
        if (zip && (!fy_node_is_sequence(zip) || fy_node_sequence_item_count(zip) < 1))
            return cr_yaml_fail(ps, cr_yaml_line(a), where, "zip: must be a list of fields");
        if (zip) {
            void *zt = NULL;
            struct fy_node *z;
            for (size_t j = 0; (z = fy_node_sequence_iterate(zip, &zt)); j++) {
                char w[96];
                snprintf(w, sizeof w, "%s.zip[%zu]", where, j);
                if (parse_field(p, z, w, k, j == 0))
                    return ps->rc;
            }
        } else if (parse_field(p, a, where, k, 1)) {
            return ps->rc;
        }
        s->naxes = k + 1;
        if ((double)s->points * (double)s->axis_len[k] > CR_SWEEP_MAX_POINTS)
            return cr_yaml_fail(ps, cr_yaml_line(a), where, "more than %d points in all",
                                CR_SWEEP_MAX_POINTS);
        s->points *= s->axis_len[k];
    }
    return CR_OK;
}

/* set: {field: value, ...}, applied to every point before the axes. */
static int parse_sets(sw_parse *p, struct fy_node *set)
{
    if (!set)
        return CR_OK;
    if (cr_yaml_need_map(p->ps, set, 0, "set"))
        return p->ps->rc;
    size_t n = (size_t)fy_node_mapping_item_count(set);
    if (!(p->s->sets = calloc(n + 1, sizeof(char *))))
        return cr_yaml_fail(p->ps, 0, "set", "out of memory");
    void *it = NULL;
    struct fy_node_pair *pr;
    while ((pr = fy_node_mapping_iterate(set, &it))) {
        const char *k = cr_yaml_text(fy_node_pair_key(pr));
        char *v = value_text(fy_node_pair_value(pr));
        size_t len = (k ? strlen(k) : 0) + (v ? strlen(v) : 0) + 2;
        char *item = k && v ? malloc(len) : NULL;
        if (item)
            snprintf(item, len, "%s=%s", k, v);
        free(v);
        if (!item)
            return cr_yaml_fail(p->ps, cr_yaml_line(fy_node_pair_key(pr)), "set",
                                "a field and a value");
        p->s->sets[p->s->nsets++] = item;
    }
    return CR_OK;
}

/* ---- the base model ------------------------------------------------------------- */

static int read_model(sw_parse *p, struct fy_node *m, const char *dir)
{
    cr_yaml_ctx *ps = p->ps;
    cr_sweep *s = p->s;
    if (!m)
        return cr_yaml_fail(ps, 0, "model", "missing required field (a model file, or the model)");
    if (p->stored_model) {
        /* a sweep read back from its output: the model as it was run */
        const char *path = fy_node_is_mapping(m) ? "" : cr_yaml_text(m);
        s->model_text = strdup(p->stored_model);
        s->model_path = strdup(path ? path : "");
        size_t len = strlen(ps->file) + 8;
        if ((s->model_name = malloc(len)))
            snprintf(s->model_name, len, "%s:model", ps->file);
        if (!s->model_text || !s->model_path || !s->model_name)
            return cr_yaml_fail(ps, cr_yaml_line(m), "model", "out of memory");
        return CR_OK;
    }
    if (fy_node_is_mapping(m)) {
        /* an inline model: its text is what the points edit */
        s->model_text = fy_emit_node_to_string(m, FYECF_MODE_BLOCK | FYECF_WIDTH_INF);
        s->model_path = strdup("");
        size_t len = strlen(ps->file) + 8;
        if ((s->model_name = malloc(len)))
            snprintf(s->model_name, len, "%s:model", ps->file);
        if (!s->model_text || !s->model_path || !s->model_name)
            return cr_yaml_fail(ps, cr_yaml_line(m), "model", "out of memory");
        return CR_OK;
    }
    const char *path = cr_yaml_text(m);
    if (!path || !path[0])
        return cr_yaml_fail(ps, cr_yaml_line(m), "model", "a model file's path, or a mapping");
    size_t len = strlen(path) + (dir ? strlen(dir) : 0) + 2;
    if (!(s->model_path = malloc(len)))
        return cr_yaml_fail(ps, 0, "model", "out of memory");
    if (path[0] == '/' || !dir || !dir[0])
        snprintf(s->model_path, len, "%s", path);
    else
        snprintf(s->model_path, len, "%s/%s", dir, path);
    s->model_name = strdup(s->model_path);
    char why[CR_ERRMSG_LEN];
    size_t tl;
    int rc;
    if (!(s->model_text = cr_file_read(s->model_path, &tl, why, sizeof why, &rc)))
        return cr_yaml_fail(ps, cr_yaml_line(m), "model", "%s", why);
    return CR_OK;
}

/* ---- grid ---------------------------------------------------------------------------- */

void cr_sweep_point_index(const cr_sweep *s, size_t i, size_t *pos)
{
    for (size_t a = s->naxes; a-- > 0;) {
        pos[a] = i % s->axis_len[a];
        i /= s->axis_len[a];
    }
}

/* The overrides of point @p i (the sets, then one per input) into @p items. */
size_t cr_sweep_point_items(const cr_sweep *s, size_t i, char **items, size_t *pos)
{
    size_t n = 0;
    cr_sweep_point_index(s, i, pos);
    for (size_t k = 0; k < s->nsets; k++)
        items[n++] = strdup(s->sets[k]);
    for (size_t j = 0; j < s->nin; j++) {
        const char *v = s->in[j].values[pos[s->in[j].axis]];
        size_t len = strlen(s->in[j].field) + strlen(v) + 2;
        if ((items[n] = malloc(len)))
            snprintf(items[n], len, "%s=%s", s->in[j].field, v);
        n++;
    }
    return n;
}

cr_model *cr_sweep_point_model(const cr_sweep *s, size_t i, char *msg, size_t msglen)
{
    size_t n = s->nsets + s->nin;
    char **items = calloc(n + 1, sizeof(char *));
    size_t *pos = calloc(s->naxes + 1, sizeof(size_t));
    cr_model *model = NULL;
    int ok = items && pos;
    if (ok)
        cr_sweep_point_items(s, i, items, pos);
    for (size_t k = 0; ok && k < n; k++)
        ok = items[k] != NULL;
    if (!ok) {
        cr_set_msg(msg, msglen, "out of memory");
    } else {
        cr_modelfile_sets in = {(const char *const *)items, n, ""};
        cr_modelfile_parse_set(s->model_text, strlen(s->model_text), s->model_name, &in, &model,
                               NULL, msg, msglen);
    }
    for (size_t k = 0; items && k < n; k++)
        free(items[k]);
    free(items);
    free(pos);
    return model;
}

/* Per-contact columns: the most pairs any point has when one axis moves at a
 * time from the first point (chains), SW_POOL_CONTACTS for pools. The same
 * scan sets the per-body columns (the most bodies) and the dimension (the
 * first point's). */
static size_t contact_columns(cr_sweep *s, size_t *parsed, char *first_error, size_t errlen)
{
    size_t most = 0, stride = 1, bodies = 0;
    int dim = 0;
    *parsed = 0;
    first_error[0] = '\0';
    for (size_t a = s->naxes; a-- > 0;) {
        for (size_t k = 0; k < s->axis_len[a]; k++) {
            char msg[CR_ERRMSG_LEN];
            cr_model *m = cr_sweep_point_model(s, k * stride, msg, sizeof msg);
            if (m)
                ++*parsed;
            else if (!first_error[0])
                cr_set_msg(first_error, errlen, "%s", msg);
            if (m && !dim)
                dim = cr_model_dimension(m);
            if (m && cr_model_body_count(m) > bodies)
                bodies = cr_model_body_count(m);
            if (m && cr_model_dimension(m) >= 2)
                most = most > SW_POOL_CONTACTS ? most : SW_POOL_CONTACTS;
            else if (m && cr_model_contact_count(m) > most)
                most = cr_model_contact_count(m);
            cr_model_destroy(m);
        }
        stride *= s->axis_len[a];
    }
    s->dim = dim ? dim : 1;
    s->bodies = bodies < SW_MAX_CONTACTS ? bodies : SW_MAX_CONTACTS;
    return most < SW_MAX_CONTACTS ? most : SW_MAX_CONTACTS;
}

/* ---- columns ------------------------------------------------------------------------ */

size_t cr_sweep_law_column(const cr_sweep *s, int mean, int law, int mode)
{
    return sw_col_body(s, s->bodies, 0) +
           (size_t)((mean * CR_LAW_COUNT + law) * CR_COMPARE_MODE_COUNT + mode);
}

static int add_column(cr_sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_column(cr_sweep *s, const char *fmt, ...)
{
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return (s->columns[s->ncol++] = strdup(buf)) ? CR_OK : CR_ERR_NOMEM;
}

static int make_columns(cr_sweep *s)
{
    static const char *const fixed[SW_FIXED] = {"episodes",    "t_end",      "duration",
                                                "reference",   "kappa",      "records",
                                                "v_cm_before", "v_cm_after", "e_cm"};
    static const char *const per[SW_PER_CONTACT] = {"alpha", "e_N", "e_P", "impulse"};
    size_t n = cr_sweep_law_column(s, 0, 0, 0) + 2 * CR_LAW_COUNT * CR_COMPARE_MODE_COUNT;
    if (!(s->columns = calloc(n, sizeof(char *))))
        return CR_ERR_NOMEM;
    int rc = CR_OK;
    for (size_t j = 0; j < s->nin; j++)
        rc |= add_column(s, "%s", s->in[j].name);
    for (int k = 0; k < SW_FIXED; k++)
        rc |= add_column(s, "%s", fixed[k]);
    for (int w = 0; w < SW_PER_CONTACT; w++)
        for (size_t c = 0; c < s->contacts; c++)
            rc |= add_column(s, "%s[%zu]", per[w], c);
    for (size_t b = 0; b < s->bodies; b++)
        for (int k = 0; k < s->dim; k++)
            rc |= s->dim == 1 ? add_column(s, "v_final[%zu]", b)
                              : add_column(s, "v_final[%zu].%s", b,
                                           k == 0   ? "x"
                                           : k == 1 ? "y"
                                                    : "z");
    for (int mean = 0; mean < 2; mean++)
        for (int law = 0; law < CR_LAW_COUNT; law++)
            for (int mode = 0; mode < CR_COMPARE_MODE_COUNT; mode++)
                rc |= add_column(s, "%s.%s.%s", mean ? "mean_error" : "error",
                                 cr_law_name((cr_law_id)law),
                                 cr_compare_mode_name((cr_compare_mode)mode));
    return rc ? CR_ERR_NOMEM : CR_OK;
}

/* ---- the file --------------------------------------------------------------------- */

static int parse_root(sw_parse *p, struct fy_node *root, const char *dir)
{
    static const char *const keys[] = {"name", "description", "model", "set",
                                       "axes", "contacts",    NULL};
    cr_yaml_ctx *ps = p->ps;
    cr_sweep *s = p->s;
    if (!root || !fy_node_is_mapping(root))
        return cr_yaml_fail(ps, cr_yaml_line(root), "(top level)",
                            "a sweep file is a mapping with 'model' and 'axes'");
    if (cr_yaml_check_keys(ps, root, "", keys) ||
        read_model(p, cr_yaml_child(root, "model"), dir) ||
        parse_sets(p, cr_yaml_child(root, "set")) || parse_axes(p, cr_yaml_child(root, "axes")))
        return ps->rc;
    const char *name = cr_yaml_text(cr_yaml_child(root, "name"));
    s->name = strdup(name ? name : ps->file);
    long k = 0;
    struct fy_node *given = cr_yaml_child(root, "contacts");
    if (given && cr_yaml_count_in(ps, root, 0, "", "contacts", 1, 0, SW_MAX_CONTACTS, &k))
        return ps->rc;
    size_t parsed;
    char why[CR_ERRMSG_LEN];
    size_t found = contact_columns(s, &parsed, why, sizeof why);
    /* a base model that no axis value makes a model (the sweep file itself,
     * a run file, {balls: 3}): refused before any point runs, not a grid of
     * failed points (issue 23) */
    if (parsed == 0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(root, "model")), "model",
                            "no point of the grid has a model that can be read (the first: %s)",
                            why);
    s->contacts = given ? (size_t)k : found;
    uint64_t h = fnv1a(1469598103934665603ULL, s->text, strlen(s->text) + 1);
    h = fnv1a(h, s->model_text, strlen(s->model_text));
    snprintf(s->hash, sizeof s->hash, "fnv1a64:%016llx", (unsigned long long)h);
    if (!s->name || make_columns(s) != CR_OK)
        return cr_yaml_fail(ps, 0, "(sweep)", "out of memory");
    return CR_OK;
}

static int parse_text(const char *text, size_t len, const char *filename, const char *dir,
                      const char *stored_model, cr_sweep **out, char *msg, size_t msglen)
{
    cr_yaml_ctx ps = {.file = filename ? filename : "<sweep>", .msg = msg, .msglen = msglen};
    if (!text || !out) {
        cr_set_msg(msg, msglen, "cr_sweep_parse: no text or output");
        return CR_ERR_INVALID;
    }
    *out = NULL;
    cr_sweep *s = calloc(1, sizeof *s);
    if (!s || !(s->text = strndup(text, len))) {
        free(s);
        cr_set_msg(msg, msglen, "%s: out of memory", ps.file);
        return CR_ERR_NOMEM;
    }
    sw_parse p = {&ps, s, stored_model};
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (doc)
        parse_root(&p, fy_document_root(doc), dir ? dir : ".");
    fy_document_destroy(doc);
    if (ps.rc != CR_OK) {
        cr_sweep_destroy(s);
        return ps.rc;
    }
    *out = s;
    return CR_OK;
}

int cr_sweep_parse(const char *text, size_t len, const char *filename, const char *dir,
                   cr_sweep **out, char *msg, size_t msglen)
{
    return parse_text(text, len, filename, dir, NULL, out, msg, msglen);
}

int cr_sweep_parse_stored(const char *text, const char *model_text, const char *filename,
                          cr_sweep **out, char *msg, size_t msglen)
{
    if (!text || !model_text) {
        cr_set_msg(msg, msglen, "cr_sweep_parse_stored: no text");
        return CR_ERR_INVALID;
    }
    return parse_text(text, strlen(text), filename, ".", model_text, out, msg, msglen);
}

int cr_sweep_load(const char *path, cr_sweep **out, char *msg, size_t msglen)
{
    size_t len;
    int rc;
    if (out)
        *out = NULL;
    char *text = cr_file_read(path, &len, msg, msglen, &rc);
    if (!text)
        return rc;
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        *slash = '\0';
    rc = dir ? cr_sweep_parse(text, len, path, slash ? dir : ".", out, msg, msglen) : CR_ERR_NOMEM;
    free(dir);
    free(text);
    return rc;
}

void cr_sweep_destroy(cr_sweep *s)
{
    if (!s)
        return;
    for (size_t j = 0; j < s->nin; j++) {
        for (size_t k = 0; s->in[j].values && k < s->axis_len[s->in[j].axis]; k++)
            free(s->in[j].values[k]);
        free(s->in[j].values);
        free(s->in[j].numbers);
        free(s->in[j].field);
        free(s->in[j].name);
    }
    for (size_t k = 0; k < s->nsets; k++)
        free(s->sets[k]);
    for (size_t j = 0; j < s->ncol; j++)
        free(s->columns[j]);
    free(s->columns);
    free(s->sets);
    free(s->in);
    free(s->axis_len);
    free(s->name);
    free(s->text);
    free(s->model_path);
    free(s->model_name);
    free(s->model_text);
    free(s);
}

/* ---- getters ------------------------------------------------------------------------ */

size_t cr_sweep_point_count(const cr_sweep *s)
{
    return s ? s->points : 0;
}
const char *cr_sweep_name(const cr_sweep *s)
{
    return s ? s->name : "";
}
const char *cr_sweep_text(const cr_sweep *s)
{
    return s ? s->text : "";
}
const char *cr_sweep_model_path(const cr_sweep *s)
{
    return s ? s->model_path : "";
}
const char *cr_sweep_model_text(const cr_sweep *s)
{
    return s ? s->model_text : "";
}
const char *cr_sweep_hash(const cr_sweep *s)
{
    return s ? s->hash : "";
}
size_t cr_sweep_input_count(const cr_sweep *s)
{
    return s ? s->nin : 0;
}
const char *cr_sweep_input_name(const cr_sweep *s, size_t j)
{
    return s && j < s->nin ? s->in[j].name : NULL;
}
const char *cr_sweep_input_field(const cr_sweep *s, size_t j)
{
    return s && j < s->nin ? s->in[j].field : NULL;
}
const char *cr_sweep_input_value(const cr_sweep *s, size_t i, size_t j)
{
    if (!s || j >= s->nin || i >= s->points)
        return NULL;
    size_t stride = 1;
    for (size_t a = s->naxes; a-- > s->in[j].axis + 1;)
        stride *= s->axis_len[a];
    return s->in[j].values[(i / stride) % s->axis_len[s->in[j].axis]];
}
size_t cr_sweep_axis_count(const cr_sweep *s)
{
    return s ? s->naxes : 0;
}
size_t cr_sweep_axis_length(const cr_sweep *s, size_t a)
{
    return s && a < s->naxes ? s->axis_len[a] : 0;
}
size_t cr_sweep_input_axis(const cr_sweep *s, size_t j)
{
    return s && j < s->nin ? s->in[j].axis : 0;
}
size_t cr_sweep_column_count(const cr_sweep *s)
{
    return s ? s->ncol : 0;
}
const char *cr_sweep_column_name(const cr_sweep *s, size_t j)
{
    return s && j < s->ncol ? s->columns[j] : NULL;
}
long cr_sweep_column_index(const cr_sweep *s, const char *name)
{
    for (size_t j = 0; s && name && j < s->ncol; j++)
        if (strcmp(s->columns[j], name) == 0)
            return (long)j;
    return -1;
}
size_t cr_sweep_contact_columns(const cr_sweep *s)
{
    return s ? s->contacts : 0;
}
