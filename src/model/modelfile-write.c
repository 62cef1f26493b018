/*
 * A model file with explicit bodies (cr_modelfile_explicit_bodies): the text
 * of a model whose bodies a generator made (`lattice`, `sphere_triple`, ...),
 * or whose positions a procedure changed (`cradle pack`), rewritten with a
 * `bodies:` list at given positions, so that cradle reads the same spheres
 * and walls back. Every other top-level field is kept as the file gave it
 * (in YAML's one-line flow form; comments are dropped).
 */
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/modelfile.h"
#include "model/model-priv.h"

/* The top-level keys this writer replaces. */
static int replaced_key(const char *k)
{
    static const char *const keys[] = {"bodies", "balls",         "chain",   "rods",
                                       "discs",  "three_disc",    "lattice", "dim",
                                       "walls",  "sphere_triple", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

/* Appends @p node in one-line flow form after @p prefix. */
static int put_node(FILE *f, const char *prefix, struct fy_node *node)
{
    char *s = fy_emit_node_to_string(node, FYECF_MODE_FLOW_ONELINE | FYECF_WIDTH_INF);
    if (!s)
        return -1;
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    fprintf(f, "%s%s\n", prefix, s);
    free(s);
    return 0;
}

/* The fields kept from the file, each on one line. */
static int put_kept(FILE *f, struct fy_node *root)
{
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(root, &it))) {
        const char *k = fy_node_get_scalar0(fy_node_pair_key(p));
        char prefix[160];
        if (!k || replaced_key(k))
            continue;
        snprintf(prefix, sizeof prefix, "%s: ", k);
        if (put_node(f, prefix, fy_node_pair_value(p)))
            return -1;
    }
    return 0;
}

/* The walls: the ones a generator made (the model's first planes, as
 * normal and offset) ahead of the file's own list, kept as written. */
static int put_walls(FILE *f, struct fy_node *root, const cr_model *model)
{
    struct fy_node *wl = cr_yaml_child(root, "walls");
    size_t listed = wl && fy_node_is_sequence(wl) ? (size_t)fy_node_sequence_item_count(wl) : 0;
    size_t np = cr_model_plane_count(model), made = np > listed ? np - listed : 0;
    if (np == 0)
        return 0;
    fputs("walls:\n", f);
    for (size_t w = 0; w < made; w++) {
        double n[3] = {0, 0, 0}, off = 0, E, nu;
        cr_model_get_plane(model, w, n, &off);
        fprintf(f, "  - {normal: [%.17g, %.17g, %.17g], offset: %.17g", n[0], n[1], n[2], off);
        if (cr_model_plane_material(model, w, &E, &nu))
            fprintf(f, ", material: {E: %.17g, nu: %.17g}", E, nu);
        fputs("}\n", f);
    }
    void *it = NULL;
    struct fy_node *w;
    while (listed && (w = fy_node_sequence_iterate(wl, &it)))
        if (put_node(f, "  - ", w))
            return -1;
    return 0;
}

static void put_bodies(FILE *f, const cr_model *model, const double *x, const double *v)
{
    int dim = cr_model_dimension(model);
    fprintf(f, "dim: %d\nbodies:\n", dim);
    for (size_t i = 0; i < cr_model_body_count(model); i++) {
        double xi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, E, nu;
        cr_model_get_body(model, i, xi, vi);
        const double *p = x ? x + (size_t)dim * i : xi,
                     *u = x ? (v ? v + (size_t)dim * i : NULL) : vi;
        if (cr_model_is_fixed(model, i)) /* a fixed body has no mass */
            fprintf(f, "  - {fixed: true, radius: %.17g, x: [", cr_model_radius(model, i));
        else
            fprintf(f, "  - {mass: %.17g, radius: %.17g, x: [", cr_model_mass(model, i),
                    cr_model_radius(model, i));
        for (int d = 0; d < dim; d++)
            fprintf(f, d ? ", %.17g" : "%.17g", p[d]);
        fputc(']', f);
        int moving = 0;
        for (int d = 0; u && !cr_model_is_fixed(model, i) && d < dim; d++)
            moving |= u[d] != 0.0;
        for (int d = 0; moving && d < dim; d++)
            fprintf(f, d ? ", %.17g" : ", v: [%.17g", u[d]);
        fputs(moving ? "]" : "", f);
        if (cr_model_material(model, i, &E, &nu))
            fprintf(f, ", material: {E: %.17g, nu: %.17g}", E, nu);
        fputs("}\n", f);
    }
}

int cr_modelfile_explicit_bodies(const char *text, size_t len, const char *filename,
                                 const cr_model *model, const double *x, const double *v,
                                 const char *header, char **out, char *msg, size_t msglen)
{
    cr_yaml_ctx ps = {.file = filename ? filename : "<model>", .msg = msg, .msglen = msglen};
    if (!text || !model || !out || cr_model_dimension(model) < 2) {
        cr_set_msg(msg, msglen,
                   "cr_modelfile_explicit_bodies: no text, model or output, or a "
                   "model of dim 1");
        return CR_ERR_INVALID;
    }
    *out = NULL;
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    if (!doc)
        return ps.rc;
    struct fy_node *root = fy_document_root(doc);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    int bad = !f || !root || !fy_node_is_mapping(root);
    if (!bad) {
        fputs(header ? header : "", f);
        bad = put_kept(f, root) || put_walls(f, root, model);
        put_bodies(f, model, x, v);
    }
    if (f)
        bad |= fclose(f) != 0;
    fy_document_destroy(doc);
    if (bad) {
        free(buf);
        cr_set_msg(msg, msglen, "%s: could not write the model's text (out of memory?)", ps.file);
        return CR_ERR_NOMEM;
    }
    *out = buf;
    return CR_OK;
}
