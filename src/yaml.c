/*
 * Helpers shared by the YAML readers (model files, law cases): libfyaml nodes
 * to numbers with one-line "file:line: field: reason" errors.
 */
#include "yaml-priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"


int cr_yaml_line(struct fy_node *n)
{
    if (!n)
        return 0;
    switch (fy_node_get_type(n)) {
    case FYNT_SCALAR: {
        struct fy_token *t = fy_node_get_scalar_token(n);
        const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
        return m ? m->line + 1 : 0;
    }
    case FYNT_MAPPING: {
        void *it = NULL;
        struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
        return p ? cr_yaml_line(fy_node_pair_key(p)) : 0;
    }
    case FYNT_SEQUENCE:
        return cr_yaml_line(fy_node_sequence_get_by_index(n, 0));
    }
    return 0;
}

int cr_yaml_fail(cr_yaml_ctx *ps, int line, const char *field, const char *fmt, ...)
{
    if (ps->rc != CR_OK)
        return ps->rc; /* keep the first error */
    char reason[CR_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (line > 0)
        cr_set_msg(ps->msg, ps->msglen, "%s:%d: %s: %s", ps->file, line, field, reason);
    else
        cr_set_msg(ps->msg, ps->msglen, "%s: %s: %s", ps->file, field, reason);
    ps->rc = CR_ERR_MODEL;
    return ps->rc;
}

/* Rejects keys the schema does not know: a typo must not silently become a default. */
int cr_yaml_check_keys(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                      const char *const *allowed)
{
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it))) {
        const char *key = fy_node_get_scalar0(fy_node_pair_key(p));
        int ok = 0;
        for (const char *const *a = allowed; *a && key; a++)
            ok |= strcmp(key, *a) == 0;
        if (!ok) {
            char field[256];
            snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "",
                     key ? key : "?");
            return cr_yaml_fail(ps, cr_yaml_line(fy_node_pair_key(p)), field, "unknown field");
        }
    }
    return CR_OK;
}

struct fy_node *cr_yaml_child(struct fy_node *map, const char *key)
{
    return map ? fy_node_mapping_lookup_by_string(map, key, FY_NT) : NULL;
}

int cr_yaml_need_map(cr_yaml_ctx *ps, struct fy_node *n, int line, const char *field)
{
    if (!n || !fy_node_is_mapping(n))
        return cr_yaml_fail(ps, n ? cr_yaml_line(n) : line, field, "must be a mapping (key: value)");
    return CR_OK;
}

/* A number field. `required` → missing is an error; otherwise *out keeps its default.
 * `allow_auto` → the word "auto" stores 0. */
int cr_yaml_number(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                      const char *key, int required, int allow_auto, double *out)
{
    char field[256];
    snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
    struct fy_node *n = cr_yaml_child(map, key);
    if (!n) {
        if (required)
            return cr_yaml_fail(ps, map_line, field, "missing required field");
        return CR_OK;
    }
    const char *s = fy_node_is_scalar(n) ? fy_node_get_scalar0(n) : NULL;
    if (!s)
        return cr_yaml_fail(ps, cr_yaml_line(n), field, "must be a number");
    if (allow_auto && strcmp(s, "auto") == 0) {
        *out = 0.0;
        return CR_OK;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE)
        return cr_yaml_fail(ps, cr_yaml_line(n), field, "must be a number (got '%s')", s);
    if (!isfinite(v))
        return cr_yaml_fail(ps, cr_yaml_line(n), field, "must be finite (got '%s')", s);
    *out = v;
    return CR_OK;
}

int cr_yaml_count(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                     const char *key, int required, long minimum, long *out)
{
    double v = (double)*out;
    if (cr_yaml_number(ps, map, map_line, where, key, required, 0, &v) != CR_OK)
        return ps->rc;
    if (v != floor(v) || v < (double)minimum || v > 1e8)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, key)), key,
                    "must be a whole number >= %ld (got %g)", minimum, v);
    *out = (long)v;
    return CR_OK;
}

int cr_yaml_positive(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                          double v)
{
    if (v > 0.0)
        return CR_OK;
    char field[256];
    snprintf(field, sizeof field, "%s.%s", where, key);
    return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, key)), field, "must be positive (got %g)", v);
}

int cr_yaml_syntax_error(cr_yaml_ctx *ps, struct fy_diag *diag)
{
    void *it = NULL;
    struct fy_diag_error *e;
    while ((e = fy_diag_errors_iterate(diag, &it))) {
        if (e->type < FYET_ERROR)
            continue;
        cr_set_msg(ps->msg, ps->msglen, "%s:%d:%d: YAML syntax error: %s", ps->file,
                   e->line + 1, e->column + 1, e->msg ? e->msg : "?");
        return ps->rc = CR_ERR_SYNTAX;
    }
    cr_set_msg(ps->msg, ps->msglen, "%s: YAML syntax error", ps->file);
    return ps->rc = CR_ERR_SYNTAX;
}


struct fy_document *cr_yaml_parse(cr_yaml_ctx *ps, const char *text, size_t len)
{
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    struct fy_diag *diag = fy_diag_create(&dcfg);
    if (!diag) {
        cr_set_msg(ps->msg, ps->msglen, "%s: out of memory", ps->file);
        ps->rc = CR_ERR_NOMEM;
        return NULL;
    }
    /* collected, not printed: the library never prints */
    fy_diag_set_collect_errors(diag, true);
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG, .diag = diag};
    struct fy_document *doc = fy_document_build_from_string(&cfg, text, len);
    if (!doc)
        cr_yaml_syntax_error(ps, diag);
    fy_diag_destroy(diag);
    return doc;
}

int cr_yaml_numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, double *out,
                    size_t max, size_t *n)
{
    *n = 0;
    if (!node)
        return cr_yaml_fail(ps, 0, field, "missing required field");
    if (fy_node_is_scalar(node)) {
        const char *s = fy_node_get_scalar0(node);
        char *end;
        double v = s ? strtod(s, &end) : NAN;
        if (!s || end == s || *end || !isfinite(v))
            return cr_yaml_fail(ps, cr_yaml_line(node), field, "must be a number (got '%s')",
                                s ? s : "?");
        if (max < 1)
            return cr_yaml_fail(ps, cr_yaml_line(node), field, "too many values");
        out[(*n)++] = v;
        return CR_OK;
    }
    if (!fy_node_is_sequence(node))
        return cr_yaml_fail(ps, cr_yaml_line(node), field, "must be a list of numbers");
    void *it = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(node, &it))) {
        const char *s = fy_node_is_scalar(item) ? fy_node_get_scalar0(item) : NULL;
        char *end;
        double v = s ? strtod(s, &end) : NAN;
        if (!s || end == s || *end || !isfinite(v))
            return cr_yaml_fail(ps, cr_yaml_line(item), field,
                                "item %zu must be a finite number", *n);
        if (*n >= max)
            return cr_yaml_fail(ps, cr_yaml_line(item), field, "more than %zu values", max);
        out[(*n)++] = v;
    }
    return CR_OK;
}

char *cr_yaml_read_file(const char *path, size_t *len_out, char *msg, size_t msglen, int *rc)
{
    return cr_file_read(path, len_out, msg, msglen, rc);
}
