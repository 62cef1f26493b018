/*
 * The `output` section of a model file (docs/model-format.md, "Output"): the
 * sampling (interval or every k-th step), the trajectory's fields and bodies,
 * or `none`. Every mistake is one line with the file, line and field.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model-priv.h"
#include "model/model.h"

static const char *const field_names[] = {"position", "velocity", "energies", "overlap",
                                          "force",    "impulse",  NULL};

/* "list[i]" for an item's messages. */
static void item_path(char *dst, size_t dlen, const char *list, size_t i)
{
    snprintf(dst, dlen, "%s[%zu]", list, i);
}

/* One field name into its CR_OUT_* bit; dim 2 and 3 refuse the per-contact series. */
static int field_bit(cr_yaml_ctx *ps, struct fy_node *n, const char *where, int dim, unsigned *bit)
{
    const char *w = cr_yaml_text(n);
    char shown[96];
    cr_yaml_echo(shown, sizeof shown, w ? w : "(not a word)");
    for (int k = 0; w && field_names[k]; k++)
        if (strcmp(w, field_names[k]) == 0) {
            *bit = 1u << k;
            if (dim >= 2 && (*bit & CR_OUT_PER_CONTACT))
                return cr_yaml_fail(ps, cr_yaml_line(n), where,
                                    "'%s' is a per-contact series of chains only (a pool's "
                                    "contacts appear during the run: /events and /episodes "
                                    "hold them)",
                                    w);
            return CR_OK;
        }
    const char *near = w ? cr_yaml_closest(w, field_names) : NULL;
    if (near)
        return cr_yaml_fail(ps, cr_yaml_line(n), where, "unknown field '%s'; did you mean '%s'?",
                            shown, near);
    return cr_yaml_fail(ps, cr_yaml_line(n), where,
                        "unknown field '%s' (known: position, velocity, energies, overlap, "
                        "force, impulse; or none, all)",
                        shown);
}

/* `fields: none | all | NAME | [NAME, ...]` into the bits left out. */
static int parse_fields(cr_yaml_ctx *ps, struct fy_node *n, int dim, cr_settings *s)
{
    const char *w = cr_yaml_text(n);
    if (w && strcmp(w, "none") == 0) {
        s->output_omit = CR_OUT_ALL;
        return CR_OK;
    }
    if (w && strcmp(w, "all") == 0)
        return CR_OK;
    unsigned keep = 0, bit = 0;
    if (fy_node_is_scalar(n)) {
        if (field_bit(ps, n, "output.fields", dim, &bit) != CR_OK)
            return ps->rc;
        keep = bit;
    } else if (fy_node_is_sequence(n)) {
        void *it = NULL;
        size_t i = 0;
        for (struct fy_node *e; (e = fy_node_sequence_iterate(n, &it)); i++) {
            char where[64];
            item_path(where, sizeof where, "output.fields", i);
            if (field_bit(ps, e, where, dim, &bit) != CR_OK)
                return ps->rc;
            keep |= bit;
        }
        if (i == 0)
            return cr_yaml_fail(ps, cr_yaml_line(n), "output.fields",
                                "an empty list: name the fields, or none for no trajectory");
    } else {
        return cr_yaml_fail(ps, cr_yaml_line(n), "output.fields",
                            "must be none, all, a field name or a list of them");
    }
    s->output_omit = CR_OUT_ALL & ~keep;
    return CR_OK;
}

/* A body index: a whole number in [0, nb). */
static int body_index(cr_yaml_ctx *ps, struct fy_node *n, const char *where, const char *text,
                      size_t nb, size_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    char shown[96];
    cr_yaml_echo(shown, sizeof shown, text);
    if (end == text || *end || errno || v < 0)
        return cr_yaml_fail(ps, cr_yaml_line(n), where,
                            "'%s' is not a body index (a whole number >= 0, or a range "
                            "first-last)",
                            shown);
    if ((unsigned long)v >= nb)
        return cr_yaml_fail(ps, cr_yaml_line(n), where,
                            "body %ld does not exist (the model has %zu bodies: 0-%zu)", v, nb,
                            nb - 1);
    *out = (size_t)v;
    return CR_OK;
}

/* One item of `bodies`: N or "first-last". */
static int body_range(cr_yaml_ctx *ps, struct fy_node *n, const char *where, size_t nb, size_t r[2])
{
    const char *w = cr_yaml_text(n);
    if (!w || !*w)
        return cr_yaml_fail(ps, cr_yaml_line(n), where,
                            "must be a body index or a range first-last");
    char text[64];
    if (strlen(w) >= sizeof text)
        return cr_yaml_fail(ps, cr_yaml_line(n), where, "too long for a body range");
    strcpy(text, w);
    char *dash = strchr(text + 1, '-'); /* text[0] may be a sign: refused below */
    if (dash)
        *dash = '\0';
    if (body_index(ps, n, where, text, nb, &r[0]) != CR_OK ||
        body_index(ps, n, where, dash ? dash + 1 : text, nb, &r[1]) != CR_OK)
        return ps->rc;
    if (r[1] < r[0])
        return cr_yaml_fail(ps, cr_yaml_line(n), where,
                            "range %zu-%zu runs backwards (first-last, first <= last)", r[0], r[1]);
    return CR_OK;
}

/* `bodies: all | N | "a-b" | [N, "a-b", ...]` (YAML reads a-b unquoted as text). */
static int parse_bodies(cr_yaml_ctx *ps, struct fy_node *n, size_t nb, cr_settings *s)
{
    const char *w = cr_yaml_text(n);
    if (w && strcmp(w, "all") == 0)
        return CR_OK;
    if (fy_node_is_scalar(n)) {
        s->output_nranges = 1;
        return body_range(ps, n, "output.bodies", nb, s->output_ranges[0]);
    }
    if (!fy_node_is_sequence(n))
        return cr_yaml_fail(ps, cr_yaml_line(n), "output.bodies",
                            "must be all, a body, a range first-last or a list of them");
    void *it = NULL;
    size_t i = 0;
    for (struct fy_node *e; (e = fy_node_sequence_iterate(n, &it)); i++) {
        char where[64];
        item_path(where, sizeof where, "output.bodies", i);
        if (i >= CR_OUTPUT_MAX_RANGES)
            return cr_yaml_fail(ps, cr_yaml_line(e), where,
                                "at most %d items: join neighbours into ranges first-last",
                                CR_OUTPUT_MAX_RANGES);
        if (body_range(ps, e, where, nb, s->output_ranges[i]) != CR_OK)
            return ps->rc;
    }
    if (i == 0)
        return cr_yaml_fail(ps, cr_yaml_line(n), "output.bodies",
                            "an empty list: name at least one body, or all");
    s->output_nranges = i;
    return CR_OK;
}

/* `output: none` or a mapping {interval, every, fields, bodies}. */
int cr_modelfile_output(cr_yaml_ctx *ps, struct fy_node *out, cr_model *model, cr_settings *s)
{
    static const char *const keys[] = {"interval", "every",          "max_rows", "fields",
                                       "bodies",   "swing_extremes", NULL};
    const char *w = cr_yaml_text(out);
    if (w && strcmp(w, "none") == 0) {
        s->output_omit = CR_OUT_ALL;
        return CR_OK;
    }
    int line = cr_yaml_line(out);
    long every = 0;
    if (cr_yaml_need_map(ps, out, 0, "output") != CR_OK ||
        cr_yaml_check_keys(ps, out, "output", keys) != CR_OK ||
        cr_yaml_number(ps, out, line, "output", "interval", 0, 1, &s->output_interval) != CR_OK ||
        (cr_yaml_child(out, "every") &&
         cr_yaml_count_in(ps, out, line, "output", "every", 1, 1, 100000000L, &every) != CR_OK) ||
        (cr_yaml_child(out, "max_rows") &&
         cr_yaml_count_in(ps, out, line, "output", "max_rows", 1, 10, CR_MAX_OUTPUT_ROWS_CAP,
                          &s->output_max_rows) != CR_OK))
        return ps->rc;
    if (s->output_interval < 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(out, "interval")), "output.interval",
                            "must be positive or 'auto'");
    /* the engines refuse an interval below their contact time scale's floor
     * at the run's start: their message names this line */
    char where[CR_ERRMSG_LEN];
    cr_yaml_where(ps, cr_yaml_key_line(out, "interval"), "output.interval", where, sizeof where);
    if (cr_yaml_child(out, "interval") && cr_model_set_interval_where(model, where) != CR_OK)
        return cr_yaml_fail(ps, 0, "output.interval", "out of memory");
    s->output_every = every;
    if (every > 0 && s->output_interval > 0.0)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(out, "every")), "output.every",
                            "give either an interval or every k-th step, not both");
    struct fy_node *sw = cr_yaml_child(out, "swing_extremes");
    if (sw) {
        const char *v = cr_yaml_text(sw);
        if (!v || (strcmp(v, "true") != 0 && strcmp(v, "false") != 0))
            return cr_yaml_fail(ps, cr_yaml_line(sw), "output.swing_extremes",
                                "must be true or false");
        s->swing_extremes = strcmp(v, "true") == 0;
    }
    struct fy_node *f = cr_yaml_child(out, "fields"), *b = cr_yaml_child(out, "bodies");
    if (f && parse_fields(ps, f, cr_model_dimension(model), s) != CR_OK)
        return ps->rc;
    if (b && parse_bodies(ps, b, cr_model_body_count(model), s) != CR_OK)
        return ps->rc;
    return CR_OK;
}
