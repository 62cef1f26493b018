/* Impact cases for `cradle law`: YAML → cr_impact + cr_law_params. */
#include "cradle/lawcase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"
#include "yaml-priv.h"

#define MAX_VALUES 100000

struct cr_lawcase {
    cr_impact *imp;
    cr_law_params params;
    double *restitutions, *alpha, *eta;
    const char *kind;
};

void cr_lawcase_destroy(cr_lawcase *c)
{
    if (!c)
        return;
    cr_impact_destroy(c->imp);
    free(c->restitutions);
    free(c->alpha);
    free(c->eta);
    free(c);
}

cr_impact *cr_lawcase_impact(const cr_lawcase *c)
{
    return c->imp;
}

const cr_law_params *cr_lawcase_params(const cr_lawcase *c)
{
    return &c->params;
}

const char *cr_lawcase_kind(const cr_lawcase *c)
{
    return c->kind;
}

/* A list of numbers into a new buffer; *n its length. */
static double *numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t *n)
{
    double *v = malloc(MAX_VALUES * sizeof(double));
    if (!v) {
        cr_yaml_fail(ps, 0, field, "out of memory");
        return NULL;
    }
    if (cr_yaml_numbers(ps, node, field, v, MAX_VALUES, n) != CR_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/* A list of k-vectors ([[..], [..]]) flattened; *rows the count. */
static double *vectors(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t k,
                       size_t *rows)
{
    *rows = 0;
    if (!node || !fy_node_is_sequence(node)) {
        cr_yaml_fail(ps, cr_yaml_line(node), field, node ? "must be a list of lists"
                                                         : "missing required field");
        return NULL;
    }
    size_t count = (size_t)fy_node_sequence_item_count(node);
    double *v = malloc((count ? count : 1) * k * sizeof(double));
    void *it = NULL;
    struct fy_node *item;
    while (v && (item = fy_node_sequence_iterate(node, &it))) {
        char f[96];
        snprintf(f, sizeof f, "%s[%zu]", field, *rows);
        size_t got;
        if (cr_yaml_numbers(ps, item, f, v + *rows * k, k, &got) != CR_OK)
            break;
        if (got != k) {
            cr_yaml_fail(ps, cr_yaml_line(item), f, "needs %zu numbers, got %zu", k, got);
            break;
        }
        (*rows)++;
    }
    if (!v || ps->rc != CR_OK) {
        free(v);
        return NULL;
    }
    return v;
}

static int parse_chain(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    static const char *const keys[] = {"masses", "velocities", NULL};
    if (cr_yaml_need_map(ps, map, 0, "chain") || cr_yaml_check_keys(ps, map, "chain", keys))
        return ps->rc;
    size_t nm = 0, nv = 0;
    double *m = numbers(ps, cr_yaml_child(map, "masses"), "chain.masses", &nm);
    double *v = m ? numbers(ps, cr_yaml_child(map, "velocities"), "chain.velocities", &nv) : NULL;
    if (m && v && nm != nv)
        cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "velocities")), "chain.velocities",
                     "one velocity per mass (%zu masses, %zu velocities)", nm, nv);
    for (size_t i = 0; m && v && ps->rc == CR_OK && i < nm; i++)
        if (!(m[i] > 0))
            cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "masses")), "chain.masses",
                         "mass %zu must be positive (got %g)", i, m[i]);
    if (ps->rc == CR_OK && nm < 2)
        cr_yaml_fail(ps, cr_yaml_line(map), "chain.masses", "a chain needs two balls or more");
    if (ps->rc == CR_OK)
        c->imp = cr_impact_create_chain(nm, m, v);
    free(m);
    free(v);
    return ps->rc;
}

static int parse_discs(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    static const char *const keys[] = {"masses", "positions", "velocities", "contacts", NULL};
    if (cr_yaml_need_map(ps, map, 0, "discs") || cr_yaml_check_keys(ps, map, "discs", keys))
        return ps->rc;
    size_t nm = 0, np = 0, nv = 0, nc = 0;
    double *m = numbers(ps, cr_yaml_child(map, "masses"), "discs.masses", &nm);
    double *xy = m ? vectors(ps, cr_yaml_child(map, "positions"), "discs.positions", 2, &np)
                   : NULL;
    double *u = xy ? vectors(ps, cr_yaml_child(map, "velocities"), "discs.velocities", 2, &nv)
                   : NULL;
    double *pr = u ? vectors(ps, cr_yaml_child(map, "contacts"), "discs.contacts", 2, &nc)
                   : NULL;
    size_t *pairs = pr ? malloc((nc ? nc : 1) * 2 * sizeof(size_t)) : NULL;
    if (pairs && (np != nm || nv != nm))
        cr_yaml_fail(ps, cr_yaml_line(map), "discs",
                     "one position and one velocity per mass (%zu, %zu, %zu)", nm, np, nv);
    for (size_t k = 0; pairs && ps->rc == CR_OK && k < 2 * nc; k++) {
        if (pr[k] < 0 || pr[k] >= (double)nm || pr[k] != floor(pr[k]))
            cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "contacts")), "discs.contacts",
                         "contact %zu names disc %g, which does not exist", k / 2, pr[k]);
        pairs[k] = (size_t)pr[k];
    }
    for (size_t i = 0; pairs && ps->rc == CR_OK && i < nm; i++)
        if (!(m[i] > 0))
            cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "masses")), "discs.masses",
                         "mass %zu must be positive (got %g)", i, m[i]);
    if (pairs && ps->rc == CR_OK) {
        c->imp = cr_impact_create_discs(nm, m, xy, nc, pairs, u);
        if (!c->imp)
            cr_yaml_fail(ps, cr_yaml_line(map), "discs", "invalid contact pair");
    }
    free(m);
    free(xy);
    free(u);
    free(pr);
    free(pairs);
    return ps->rc;
}

static int parse_system(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    static const char *const keys[] = {"mass", "gradients", "velocity", "excitation", NULL};
    if (cr_yaml_need_map(ps, map, 0, "system") || cr_yaml_check_keys(ps, map, "system", keys))
        return ps->rc;
    size_t n = 0, ng = 0, nw = 0;
    double *u = numbers(ps, cr_yaml_child(map, "velocity"), "system.velocity", &n);
    if (!u)
        return ps->rc;
    double *W = vectors(ps, cr_yaml_child(map, "gradients"), "system.gradients", n, &nw);
    struct fy_node *mnode = cr_yaml_child(map, "mass");
    double *M = NULL;
    int full = mnode && fy_node_is_sequence(mnode) && fy_node_sequence_item_count(mnode) > 0 &&
               fy_node_is_sequence(fy_node_sequence_get_by_index(mnode, 0));
    size_t rows = 0;
    if (W)
        M = full ? vectors(ps, mnode, "system.mass", n, &rows)
                 : numbers(ps, mnode, "system.mass", &rows);
    if (M && rows != n)
        cr_yaml_fail(ps, cr_yaml_line(mnode), "system.mass",
                     "needs %zu rows (one per velocity), got %zu", n, rows);
    if (M && ps->rc == CR_OK) {
        c->imp = cr_impact_create(n, nw);
        int rc = full ? cr_impact_set_mass(c->imp, M) : cr_impact_set_mass_diagonal(c->imp, M);
        for (size_t k = 0; rc == CR_OK && k < nw; k++)
            rc = cr_impact_set_gradient(c->imp, k, W + k * n);
        if (rc == CR_OK)
            rc = cr_impact_set_velocity(c->imp, u);
        if (rc != CR_OK)
            cr_yaml_fail(ps, cr_yaml_line(map), "system", "%s", cr_impact_last_error(c->imp));
        struct fy_node *ex = cr_yaml_child(map, "excitation");
        if (ex && ps->rc == CR_OK) {
            double *e = numbers(ps, ex, "system.excitation", &ng);
            if (e && ng != nw)
                cr_yaml_fail(ps, cr_yaml_line(ex), "system.excitation",
                             "one value per contact (%zu), got %zu", nw, ng);
            if (e && ps->rc == CR_OK)
                cr_impact_set_excitation(c->imp, e);
            free(e);
        }
    }
    free(u);
    free(W);
    free(M);
    return ps->rc;
}

static int vec3(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                int required, double *out)
{
    char f[128];
    snprintf(f, sizeof f, "%s.%s", where, key);
    struct fy_node *n = cr_yaml_child(map, key);
    if (!n)
        return required ? cr_yaml_fail(ps, cr_yaml_line(map), f, "missing required field")
                        : CR_OK;
    size_t got;
    if (cr_yaml_numbers(ps, n, f, out, 3, &got) != CR_OK)
        return ps->rc;
    if (got != 3)
        return cr_yaml_fail(ps, cr_yaml_line(n), f, "needs 3 numbers, got %zu", got);
    return CR_OK;
}

static int parse_rigid(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    static const char *const keys[] = {"bodies", "contacts", "pin", NULL};
    static const char *const bkeys[] = {"mass", "inertia", "v", "omega", NULL};
    static const char *const ckeys[] = {"bodies", "r_a", "r_b", "normal", NULL};
    if (cr_yaml_need_map(ps, map, 0, "rigid") || cr_yaml_check_keys(ps, map, "rigid", keys))
        return ps->rc;
    struct fy_node *bl = cr_yaml_child(map, "bodies"), *cl = cr_yaml_child(map, "contacts");
    if (!bl || !fy_node_is_sequence(bl) || !cl || !fy_node_is_sequence(cl))
        return cr_yaml_fail(ps, cr_yaml_line(map), "rigid",
                            "needs lists 'bodies' and 'contacts'");
    size_t nb = (size_t)fy_node_sequence_item_count(bl);
    size_t nc = (size_t)fy_node_sequence_item_count(cl);
    cr_rigid_body *b = calloc(nb ? nb : 1, sizeof(*b));
    cr_rigid_contact *k = calloc(nc ? nc : 1, sizeof(*k));
    for (size_t i = 0; b && k && ps->rc == CR_OK && i < nb; i++) {
        char w[64];
        snprintf(w, sizeof w, "rigid.bodies[%zu]", i);
        struct fy_node *bn = fy_node_sequence_get_by_index(bl, (int)i);
        if (cr_yaml_need_map(ps, bn, cr_yaml_line(bl), w) ||
            cr_yaml_check_keys(ps, bn, w, bkeys) ||
            cr_yaml_number(ps, bn, cr_yaml_line(bn), w, "mass", 1, 0, &b[i].mass) ||
            cr_yaml_positive(ps, bn, w, "mass", b[i].mass) ||
            vec3(ps, bn, w, "inertia", 1, b[i].inertia) || vec3(ps, bn, w, "v", 0, b[i].v) ||
            vec3(ps, bn, w, "omega", 0, b[i].omega))
            break;
        for (int j = 0; j < 3; j++)
            if (!(b[i].inertia[j] > 0))
                cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(bn, "inertia")), w,
                             "principal moments of inertia must be positive");
    }
    for (size_t i = 0; b && k && ps->rc == CR_OK && i < nc; i++) {
        char w[64];
        snprintf(w, sizeof w, "rigid.contacts[%zu]", i);
        struct fy_node *cn = fy_node_sequence_get_by_index(cl, (int)i);
        double pair[2];
        size_t got = 0;
        if (cr_yaml_need_map(ps, cn, cr_yaml_line(cl), w) ||
            cr_yaml_check_keys(ps, cn, w, ckeys) ||
            cr_yaml_numbers(ps, cr_yaml_child(cn, "bodies"), "bodies", pair, 2, &got))
            break;
        if (got != 2 || pair[0] < -1 || pair[1] < -1 || pair[0] >= (double)nb ||
            pair[1] >= (double)nb || pair[0] == pair[1]) {
            cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(cn, "bodies")), w,
                         "bodies: two different body indices (-1 for the ground)");
            break;
        }
        k[i].body_a = (int)pair[0];
        k[i].body_b = (int)pair[1];
        if (vec3(ps, cn, w, "r_a", 0, k[i].r_a) || vec3(ps, cn, w, "r_b", 0, k[i].r_b) ||
            vec3(ps, cn, w, "normal", 1, k[i].normal))
            break;
        double len = sqrt(k[i].normal[0] * k[i].normal[0] + k[i].normal[1] * k[i].normal[1] +
                          k[i].normal[2] * k[i].normal[2]);
        if (!(len > 0)) {
            cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(cn, "normal")), w, "zero normal");
            break;
        }
        for (int j = 0; j < 3; j++)
            k[i].normal[j] /= len;
    }
    struct fy_node *pin = cr_yaml_child(map, "pin");
    double rp[3];
    if (b && k && ps->rc == CR_OK && pin) {
        /* one body on a spherical joint (004 sect. 4): the dofs are ω */
        if (nb != 1)
            cr_yaml_fail(ps, cr_yaml_line(pin), "rigid.pin", "a pin holds exactly one body");
        else if (vec3(ps, map, "rigid", "pin", 1, rp) == CR_OK)
            c->imp = cr_impact_create_pinned(b, rp, nc, k);
        if (ps->rc == CR_OK && !c->imp)
            cr_yaml_fail(ps, cr_yaml_line(pin), "rigid.pin",
                         "each contact must join the body and the ground");
    } else if (b && k && ps->rc == CR_OK)
        c->imp = cr_impact_create_rigid(nb, b, nc, k);
    free(b);
    free(k);
    return ps->rc;
}

static int parse_law(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    static const char *const keys[] = {"restitution", "kappa",      "alpha",       "reference",
                                       "eta",         "max_stages", "max_outcomes", NULL};
    cr_law_params_init(&c->params);
    if (!map)
        return CR_OK;
    if (cr_yaml_need_map(ps, map, 0, "law") || cr_yaml_check_keys(ps, map, "law", keys))
        return ps->rc;
    size_t m = cr_impact_contact_count(c->imp), n;
    int line = cr_yaml_line(map);
    struct fy_node *r = cr_yaml_child(map, "restitution");
    if (r && fy_node_is_sequence(r)) {
        c->restitutions = numbers(ps, r, "law.restitution", &n);
        if (c->restitutions && n != m)
            return cr_yaml_fail(ps, cr_yaml_line(r), "law.restitution",
                                "one value per contact (%zu), got %zu", m, n);
        c->params.restitutions = c->restitutions;
    } else if (cr_yaml_number(ps, map, line, "law", "restitution", 0, 0,
                              &c->params.restitution)) {
        return ps->rc;
    }
    if (cr_yaml_child(map, "alpha")) {
        c->alpha = numbers(ps, cr_yaml_child(map, "alpha"), "law.alpha", &n);
        if (c->alpha && n != m)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "alpha")), "law.alpha",
                                "one ratio per contact (%zu), got %zu", m, n);
        c->params.alpha = c->alpha;
    }
    if (cr_yaml_child(map, "eta")) {
        c->eta = numbers(ps, cr_yaml_child(map, "eta"), "law.eta", &n);
        if (c->eta && n != m)
            return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "eta")), "law.eta",
                                "one value per contact (%zu), got %zu", m, n);
        c->params.eta = c->eta;
    }
    long ref = 0, stages = c->params.max_stages, outs = c->params.max_outcomes;
    if (cr_yaml_number(ps, map, line, "law", "kappa", 0, 0, &c->params.kappa) ||
        cr_yaml_count(ps, map, line, "law", "reference", 0, 0, &ref) ||
        cr_yaml_count(ps, map, line, "law", "max_stages", 0, 1, &stages) ||
        cr_yaml_count(ps, map, line, "law", "max_outcomes", 0, 1, &outs))
        return ps->rc;
    if ((size_t)ref >= m)
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, "reference")), "law.reference",
                            "no contact %ld (there are %zu)", ref, m);
    c->params.reference = (size_t)ref;
    c->params.max_stages = (int)stages;
    c->params.max_outcomes = (int)outs;
    return CR_OK;
}

int cr_lawcase_parse(const char *text, size_t len, const char *filename, cr_lawcase **out,
                     char *msg, size_t msglen)
{
    static const char *const top[] = {"name", "description", "chain", "discs", "system",
                                      "rigid", "law", NULL};
    static const char *const kinds[] = {"chain", "discs", "system", "rigid"};
    cr_yaml_ctx ps = {.file = filename ? filename : "<case>", .msg = msg, .msglen = msglen};
    *out = NULL;
    cr_lawcase *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return CR_ERR_NOMEM;
    }
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    struct fy_node *root = doc ? fy_document_root(doc) : NULL;
    if (doc && (!root || !fy_node_is_mapping(root)))
        cr_yaml_fail(&ps, 1, "(top level)", "a case is a mapping: chain, discs, system or rigid");
    if (root && ps.rc == CR_OK && cr_yaml_check_keys(&ps, root, "", top) == CR_OK) {
        int found = 0;
        for (int k = 0; k < 4; k++) {
            struct fy_node *node = cr_yaml_child(root, kinds[k]);
            if (!node)
                continue;
            if (found++) {
                cr_yaml_fail(&ps, cr_yaml_line(node), kinds[k],
                             "give one of chain, discs, system, rigid");
                break;
            }
            c->kind = kinds[k];
            switch (k) {
            case 0: parse_chain(&ps, node, c); break;
            case 1: parse_discs(&ps, node, c); break;
            case 2: parse_system(&ps, node, c); break;
            default: parse_rigid(&ps, node, c); break;
            }
        }
        if (!found)
            cr_yaml_fail(&ps, 1, "chain", "missing: give one of chain, discs, system, rigid");
        if (ps.rc == CR_OK && !c->imp)
            cr_yaml_fail(&ps, 1, c->kind, "could not build the configuration");
        if (ps.rc == CR_OK)
            parse_law(&ps, cr_yaml_child(root, "law"), c);
    }
    if (doc)
        fy_document_destroy(doc);
    if (ps.rc != CR_OK) {
        cr_lawcase_destroy(c);
        return ps.rc;
    }
    *out = c;
    return CR_OK;
}

int cr_lawcase_load(const char *path, cr_lawcase **out, char *msg, size_t msglen)
{
    size_t len;
    int rc;
    *out = NULL;
    char *text = cr_yaml_read_file(path, &len, msg, msglen, &rc);
    if (!text)
        return rc;
    rc = cr_lawcase_parse(text, len, path, out, msg, msglen);
    free(text);
    return rc;
}

static void write_list(FILE *out, const double *v, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%.17g", i ? ", " : "", v[i]);
    fputc(']', out);
}

int cr_lawcase_write(FILE *out, cr_impact *imp, const cr_law_params *p, const char *comment)
{
    if (!out || !imp || !p)
        return CR_ERR_INVALID;
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    double *M = malloc(n * n * sizeof(double)), *W = malloc((n * m + 1) * sizeof(double));
    double *u = malloc(n * sizeof(double)), *col = malloc(n * sizeof(double));
    if (!M || !W || !u || !col) {
        free(M);
        free(W);
        free(u);
        free(col);
        return CR_ERR_NOMEM;
    }
    cr_impact_get_mass(imp, M);
    cr_impact_get_gradients(imp, W);
    cr_impact_get_velocity(imp, u);
    if (comment)
        fprintf(out, "# %s\n", comment);
    fprintf(out, "system:\n  mass: [");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s", i ? ",\n         " : "");
        write_list(out, M + i * n, n);
    }
    fprintf(out, "]\n  gradients: [");
    for (size_t c = 0; c < m; c++) {
        for (size_t i = 0; i < n; i++)
            col[i] = W[i * m + c];
        fprintf(out, "%s", c ? ",\n              " : "");
        write_list(out, col, n);
    }
    fprintf(out, "]\n  velocity: ");
    write_list(out, u, n);
    fprintf(out, "\nlaw:\n");
    if (p->restitutions) {
        fprintf(out, "  restitution: ");
        write_list(out, p->restitutions, m);
        fputc('\n', out);
    } else {
        fprintf(out, "  restitution: %.17g\n", p->restitution);
    }
    fprintf(out, "  kappa: %.17g\n", p->kappa);
    if (p->alpha) {
        fprintf(out, "  alpha: ");
        write_list(out, p->alpha, m);
        fputc('\n', out);
    }
    fprintf(out, "  reference: %zu\n", p->reference);
    free(M);
    free(W);
    free(u);
    free(col);
    return ferror(out) ? CR_ERR_IO : CR_OK;
}
