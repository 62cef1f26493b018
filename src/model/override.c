/*
 * Command-line overrides of model-file fields (`cradle run MODEL --set
 * chain.count=7`): the model's YAML document is edited with libfyaml before
 * the model is read from it, so an overridden value goes through exactly the
 * checks a value in the file gets. Nodes that stay keep their marks (errors
 * in them name the file's line); an error in an overridden field names the
 * override (cr_yaml_fail looks the field up in cr_yaml_ctx::sets).
 */
#include "cradle/modelfile.h"

#include <libfyaml.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/yaml.h"

/* Longest PATH=VALUE item taken (a list value of a few hundred numbers fits). */
#define SET_MAX_LEN 65536
/* Path segments at most (the schema nests five deep). */
#define SET_MAX_DEPTH 16

typedef struct {
    char key[128]; /* a mapping key, or the digits of a list index */
    int bracket;   /* written as [i]: must be a list index */
} set_segment;

/* One parsed override and the document it edits. */
typedef struct {
    const char *item;  /* "PATH=VALUE" as given */
    char arg[160];     /* label + item, escaped and cut for messages */
    char path[512];    /* the message form: balls[1].mass */
    const char *value; /* after '=' */
    set_segment seg[SET_MAX_DEPTH];
    size_t nseg;
    struct fy_document *value_doc; /* the value parsed alone, kept until the end */
} set_item;

static int set_fail(cr_yaml_ctx *ps, const set_item *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_fail(cr_yaml_ctx *ps, const set_item *s, const char *fmt, ...)
{
    char reason[CR_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    cr_set_msg(ps->msg, ps->msglen, "%s: %s", s->arg, reason);
    return ps->rc = CR_ERR_MODEL;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Appends a segment and its message form ("a.b", "a[3]"). */
static int push_segment(cr_yaml_ctx *ps, set_item *s, const char *p, size_t n, int bracket)
{
    if (n == 0 || n >= sizeof s->seg[0].key)
        return set_fail(ps, s, "%s path segment in '%s'", n ? "an overlong" : "an empty", s->path);
    if (s->nseg == SET_MAX_DEPTH)
        return set_fail(ps, s, "a path deeper than %d fields", SET_MAX_DEPTH);
    set_segment *g = &s->seg[s->nseg++];
    memcpy(g->key, p, n);
    g->key[n] = '\0';
    g->bracket = bracket;
    if (bracket && !all_digits(g->key))
        return set_fail(ps, s, "a list index in [] must be a whole number (got '%s')", g->key);
    return CR_OK;
}

/* PATH=VALUE into segments: `a.b[2].c` and `a.b.2.c` alike. */
static int split_item(cr_yaml_ctx *ps, set_item *s)
{
    const char *eq = strchr(s->item, '=');
    if (!eq || eq == s->item)
        return set_fail(ps, s, "expects PATH=VALUE, e.g. chain.count=7");
    s->value = eq + 1;
    if (!*s->value)
        return set_fail(ps, s, "no value after '='");
    size_t plen = (size_t)(eq - s->item);
    if (plen >= sizeof s->path)
        return set_fail(ps, s, "the path is too long");
    char raw[512];
    memcpy(raw, s->item, plen);
    raw[plen] = '\0';
    snprintf(s->path, sizeof s->path, "%s", raw); /* for messages until rebuilt below */
    for (const char *p = raw; *p;) {
        size_t n = strcspn(p, ".[");
        if (n > 0 && push_segment(ps, s, p, n, 0) != CR_OK)
            return ps->rc;
        if (n == 0 && p[0] != '[')
            return set_fail(ps, s, "an empty path segment in '%s'", raw);
        p += n;
        while (*p == '[') {
            const char *close = strchr(p, ']');
            if (!close)
                return set_fail(ps, s, "a '[' without ']' in '%s'", raw);
            if (push_segment(ps, s, p + 1, (size_t)(close - p - 1), 1) != CR_OK)
                return ps->rc;
            p = close + 1;
        }
        if (*p == '.') {
            p++;
            if (!*p)
                return set_fail(ps, s, "the path ends with '.'");
        } else if (*p) {
            return set_fail(ps, s, "unexpected '%c' in the path '%s'", *p, raw);
        }
    }
    return CR_OK;
}

/* The message form of the first @p upto segments: what modelfile.c calls the field. */
static void path_prefix(const set_item *s, size_t upto, char *dst, size_t dlen)
{
    size_t used = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < upto && used < dlen; i++) {
        const set_segment *g = &s->seg[i];
        int idx = g->bracket || (i > 0 && all_digits(g->key));
        if (idx)
            used += (size_t)snprintf(dst + used, dlen - used, "[%s]", g->key);
        else
            used += (size_t)snprintf(dst + used, dlen - used, "%s%s", i ? "." : "", g->key);
    }
}

/* The value parsed as a document of its own (the raw-text checks included),
 * then copied into @p doc. */
static struct fy_node *value_node(cr_yaml_ctx *ps, set_item *s, struct fy_document *doc)
{
    char why[CR_ERRMSG_LEN];
    cr_yaml_ctx vc = {.file = "value", .msg = why, .msglen = sizeof why};
    s->value_doc = cr_yaml_parse(&vc, s->value, strlen(s->value));
    if (!s->value_doc) {
        set_fail(ps, s, "%s", why);
        return NULL;
    }
    struct fy_node *n = fy_node_copy(doc, fy_document_root(s->value_doc));
    if (!n) {
        set_fail(ps, s, "out of memory");
        ps->rc = CR_ERR_NOMEM;
    }
    return n;
}

static const char *kind_of(struct fy_node *n)
{
    return fy_node_is_scalar(n) ? "a value" : fy_node_is_mapping(n) ? "a mapping" : "a list";
}

/* Replaces item @p k of a sequence with @p value. */
static int set_item_at(cr_yaml_ctx *ps, set_item *s, struct fy_node *seq, struct fy_node *old,
                       struct fy_node *value)
{
    if (fy_node_sequence_insert_before(seq, old, value) != 0 || !fy_node_sequence_remove(seq, old))
        return set_fail(ps, s, "cannot replace the list item");
    fy_node_free(old);
    return CR_OK;
}

/* A mapping step: the child at key, created (a mapping, or the value at the
 * end) when missing. @return the node to go on from, or NULL (error or done). */
static struct fy_node *map_step(cr_yaml_ctx *ps, set_item *s, struct fy_document *doc,
                                struct fy_node *map, size_t i, struct fy_node *value, int *done)
{
    const set_segment *g = &s->seg[i];
    char where[512];
    path_prefix(s, i, where, sizeof where);
    if (g->bracket) {
        set_fail(ps, s, "%s is a mapping, not a list: [%s] names no item", i ? where : "the model",
                 g->key);
        return NULL;
    }
    struct fy_node_pair *pair = fy_node_mapping_lookup_pair_by_string(map, g->key, FY_NT);
    int last = i + 1 == s->nseg;
    if (pair && last) {
        if (fy_node_pair_set_value(pair, value) != 0)
            set_fail(ps, s, "cannot set the value");
        *done = 1;
        return NULL;
    }
    if (pair)
        return fy_node_pair_value(pair);
    struct fy_node *key = fy_node_create_scalar_copy(doc, g->key, FY_NT);
    struct fy_node *child = last ? value : fy_node_create_mapping(doc);
    if (!key || !child || fy_node_mapping_append(map, key, child) != 0) {
        set_fail(ps, s, "out of memory");
        ps->rc = CR_ERR_NOMEM;
        return NULL;
    }
    *done = last;
    return last ? NULL : child;
}

/* Walks the path from the root and puts @p value at its end. */
static int place_value(cr_yaml_ctx *ps, set_item *s, struct fy_document *doc, struct fy_node *value)
{
    struct fy_node *n = fy_document_root(doc);
    int done = 0;
    for (size_t i = 0; i < s->nseg && !done; i++) {
        char where[512];
        path_prefix(s, i, where, sizeof where);
        if (n && fy_node_is_mapping(n)) {
            n = map_step(ps, s, doc, n, i, value, &done);
            if (!n && !done)
                return ps->rc;
            continue;
        }
        if (!n || !fy_node_is_sequence(n))
            return set_fail(ps, s, "%s is %s, not a mapping or list", i ? where : "the model",
                            n ? kind_of(n) : "empty");
        const set_segment *g = &s->seg[i];
        long k = all_digits(g->key) ? strtol(g->key, NULL, 10) : -1;
        int count = fy_node_sequence_item_count(n);
        if (k < 0)
            return set_fail(ps, s, "%s is a list: '%s' is not an index (write %s[0])", where,
                            g->key, where);
        if (k >= count)
            return set_fail(ps, s, "%s has %d item%s: index %ld is out of range", where, count,
                            count == 1 ? "" : "s", k);
        struct fy_node *item = fy_node_sequence_get_by_index(n, (int)k);
        if (i + 1 == s->nseg)
            return set_item_at(ps, s, n, item, value);
        n = item;
    }
    return ps->rc;
}

static int apply_one(cr_yaml_ctx *ps, set_item *s, struct fy_document *doc)
{
    struct fy_node *value = value_node(ps, s, doc);
    if (!value)
        return ps->rc;
    int rc = place_value(ps, s, doc, value);
    /* refused before it joined the tree (an index out of range, a path through
     * a value): the document's destruction would not free it */
    if (rc != CR_OK && !fy_node_get_parent(value))
        fy_node_free(value);
    return rc;
}

/* "# FILE with --set a=1 --set b=2": the effective text says where it came from
 * (control characters of the items shown as '?': it stays one comment line). */
static char *effective_text(struct fy_document *doc, const char *file, const set_item *items,
                            size_t n, const char *label)
{
    char *body = fy_emit_document_to_string(doc, FYECF_MODE_BLOCK | FYECF_WIDTH_INF);
    if (!body)
        return NULL;
    size_t cap = strlen(body) + strlen(file) + 64;
    for (size_t i = 0; i < n; i++)
        cap += strlen(items[i].item) + strlen(label) + 2;
    char *out = malloc(cap);
    if (out) {
        size_t used = (size_t)snprintf(out, cap, "# %s with", file);
        for (size_t i = 0; i < n; i++)
            used += (size_t)snprintf(out + used, cap - used, " %s%s", label, items[i].item);
        for (char *p = out; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        snprintf(out + used, cap - used, "\n%s", body);
    }
    free(body);
    return out;
}

static void items_free(set_item *items, cr_yaml_set *sets, size_t n)
{
    for (size_t i = 0; items && i < n; i++)
        fy_document_destroy(items[i].value_doc);
    free(items);
    free(sets);
}

/* Splits and applies every override; fills @p sets for cr_yaml_fail. */
static int apply_all(cr_yaml_ctx *ps, struct fy_document *doc, const cr_modelfile_sets *in,
                     set_item *items, cr_yaml_set *sets)
{
    const char *label = in->label ? in->label : "--set ";
    for (size_t i = 0; i < in->count; i++) {
        set_item *s = &items[i];
        s->item = in->items[i] ? in->items[i] : "";
        char shown[96];
        cr_yaml_echo(shown, sizeof shown, s->item);
        snprintf(s->arg, sizeof s->arg, "%s%s", label, shown);
        if (strlen(s->item) > SET_MAX_LEN)
            return set_fail(ps, s, "longer than %d characters", SET_MAX_LEN);
        if (split_item(ps, s) != CR_OK)
            return ps->rc;
        path_prefix(s, s->nseg, s->path, sizeof s->path);
        if (apply_one(ps, s, doc) != CR_OK)
            return ps->rc;
        sets[i] = (cr_yaml_set){s->path, s->arg};
    }
    return CR_OK;
}

/* A model-level error (no field, no line: cr_model_validate's) after overrides
 * says they were applied. */
static void note_sets(cr_yaml_ctx *ps, const set_item *items, size_t n)
{
    size_t fl = strlen(ps->file), used = strlen(ps->msg);
    if (strncmp(ps->msg, ps->file, fl) != 0 || strncmp(ps->msg + fl, ": ", 2) != 0)
        return;
    for (size_t i = 0; i < n && used + 8 < ps->msglen; i++)
        used += (size_t)snprintf(ps->msg + used, ps->msglen - used, "%s%s", i ? ", " : " (with ",
                                 items[i].arg);
    if (used + 2 < ps->msglen)
        snprintf(ps->msg + used, ps->msglen - used, ")");
}

int cr_modelfile_parse_set(const char *text, size_t len, const char *filename,
                           const cr_modelfile_sets *in, cr_model **out, char **effective, char *msg,
                           size_t msglen)
{
    cr_yaml_ctx ps = {.file = filename ? filename : "<model>", .msg = msg, .msglen = msglen};
    if (effective)
        *effective = NULL;
    if (!text || !out || (in && in->count && !in->items)) {
        cr_set_msg(msg, msglen, "cr_modelfile_parse_set: no text, output or items");
        return CR_ERR_INVALID;
    }
    size_t n = in ? in->count : 0;
    if (n > CR_MODELFILE_MAX_SETS) {
        cr_set_msg(msg, msglen, "%s: more than %d overrides", ps.file, CR_MODELFILE_MAX_SETS);
        return CR_ERR_INVALID;
    }
    *out = NULL;
    set_item *items = calloc(n + 1, sizeof *items);
    cr_yaml_set *sets = calloc(n + 1, sizeof *sets);
    struct fy_document *doc = items && sets ? cr_yaml_parse(&ps, text, len) : NULL;
    if (!items || !sets) {
        cr_set_msg(msg, msglen, "%s: out of memory", ps.file);
        ps.rc = CR_ERR_NOMEM;
    }
    if (doc && (n == 0 || apply_all(&ps, doc, in, items, sets) == CR_OK)) {
        ps.sets = sets;
        ps.nsets = n;
        if (cr_modelfile_parse_doc(&ps, doc, out) != CR_OK && n)
            note_sets(&ps, items, n);
    }
    if (ps.rc == CR_OK && effective) {
        *effective = n ? effective_text(doc, ps.file, items, n, in->label ? in->label : "--set ")
                       : strndup(text, len);
        if (!*effective) {
            cr_model_destroy(*out);
            *out = NULL;
            cr_set_msg(msg, msglen, "%s: out of memory", ps.file);
            ps.rc = CR_ERR_NOMEM;
        }
    }
    fy_document_destroy(doc);
    items_free(items, sets, n);
    return ps.rc;
}
