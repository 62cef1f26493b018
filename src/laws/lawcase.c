/* Impact cases for `cradle law`: YAML → cr_impact + cr_law_params. */
#include "cradle/lawcase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/yaml.h"

/* Where the parts of the configuration sit in the file, for messages about the
 * built configuration (a singular M, a zero gradient) that must name a line. */
typedef struct {
    struct fy_node *mass; /* the node M came from */
    const char *mass_field;
    struct fy_node *contacts; /* the list with one item per contact, or NULL */
    const char *contacts_field;
    struct fy_node *velocity; /* the node u⁻ came from */
    const char *velocity_field;
} origin;

struct cr_lawcase {
    cr_impact *imp;
    cr_law_params params;
    double *restitutions, *alpha, *eta, *poisson;
    double *stiffness, *exponent, *energetic; /* LZB: the pair laws, per contact */
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
    free(c->poisson);
    free(c->stiffness);
    free(c->exponent);
    free(c->energetic);
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

/* Line of a field `key` of `map` for messages: the value's, else the key's, else the map's. */
static int line_of(struct fy_node *map, const char *key)
{
    int l = cr_yaml_key_line(map, key);
    return l ? l : cr_yaml_line(map);
}

/* The required fields of a mapping, each missing one named at the mapping's line. */
static int require(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *const *keys)
{
    for (const char *const *k = keys; *k; k++)
        if (!cr_yaml_child(map, *k)) {
            char f[96];
            cr_yaml_path(f, sizeof f, where, *k);
            return cr_yaml_fail(ps, cr_yaml_line(map), f, "missing required field");
        }
    return CR_OK;
}

/* Refuses a list longer than `max` before anything is allocated for it. */
static int check_length(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t max,
                        const char *what)
{
    if (node && fy_node_is_sequence(node) && (size_t)fy_node_sequence_item_count(node) > max)
        return cr_yaml_fail(ps, cr_yaml_line(node), field,
                            "%d %s: more than the law core's limit of %zu (docs/errors.md)",
                            fy_node_sequence_item_count(node), what, max);
    return CR_OK;
}

/* A list of at most `max` numbers into a new buffer; *n its length. */
static double *numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t max,
                       size_t *n)
{
    *n = 0;
    if (check_length(ps, node, field, max, "values") != CR_OK)
        return NULL;
    double *v = malloc((max ? max : 1) * sizeof(double));
    if (!v) {
        cr_yaml_fail(ps, cr_yaml_line(node), field, "out of memory");
        return NULL;
    }
    if (cr_yaml_numbers(ps, node, field, v, max, n) != CR_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/* A list of k-vectors ([[..], [..]]) flattened; *rows the count (at most max_rows). */
static double *vectors(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t k,
                       size_t max_rows, size_t *rows)
{
    *rows = 0;
    if (!node || !fy_node_is_sequence(node)) {
        cr_yaml_fail(ps, cr_yaml_line(node), field,
                     node ? "must be a list of lists" : "missing required field");
        return NULL;
    }
    if (check_length(ps, node, field, max_rows, "rows") != CR_OK)
        return NULL;
    size_t count = (size_t)fy_node_sequence_item_count(node);
    double *v = malloc((count ? count : 1) * (k ? k : 1) * sizeof(double));
    void *it = NULL;
    struct fy_node *item;
    while (v && (item = fy_node_sequence_iterate(node, &it))) {
        char f[96];
        snprintf(f, sizeof f, "%s[%zu]", field, *rows);
        size_t got;
        if (!fy_node_is_sequence(item)) {
            cr_yaml_fail(ps, cr_yaml_line(item), f, "must be a list of %zu numbers", k);
            break;
        }
        if ((size_t)fy_node_sequence_item_count(item) != k) {
            cr_yaml_fail(ps, cr_yaml_line(item) ? cr_yaml_line(item) : cr_yaml_line(node), f,
                         "needs %zu numbers, got %d", k, fy_node_sequence_item_count(item));
            break;
        }
        if (cr_yaml_numbers(ps, item, f, v + *rows * k, k, &got) != CR_OK)
            break;
        (*rows)++;
    }
    if (!v && ps->rc == CR_OK)
        cr_yaml_fail(ps, cr_yaml_line(node), field, "out of memory");
    if (!v || ps->rc != CR_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/* Masses (or moments) must be positive; each is named by its index. */
static int positive_items(cr_yaml_ctx *ps, struct fy_node *list, const char *field, const double *v,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0)) {
            char f[96];
            snprintf(f, sizeof f, "%s[%zu]", field, i);
            struct fy_node *item =
                fy_node_is_sequence(list) ? fy_node_sequence_get_by_index(list, (int)i) : list;
            return cr_yaml_fail(ps, cr_yaml_line(item), f, "must be positive (got %g)", v[i]);
        }
    return CR_OK;
}

static int parse_chain(cr_yaml_ctx *ps, struct fy_node *map, int line, cr_lawcase *c, origin *o)
{
    static const char *const keys[] = {"masses", "velocities", NULL};
    if (cr_yaml_need_map(ps, map, line, "chain") || cr_yaml_check_keys(ps, map, "chain", keys) ||
        require(ps, map, "chain", keys))
        return ps->rc;
    struct fy_node *mn = cr_yaml_child(map, "masses"), *vn = cr_yaml_child(map, "velocities");
    if (!mn)
        return cr_yaml_fail(ps, cr_yaml_line(map), "chain.masses", "missing required field");
    if (check_length(ps, mn, "chain.masses", CR_LAW_MAX_DOFS, "balls") != CR_OK)
        return ps->rc;
    size_t nm = 0, nv = 0;
    double *m = numbers(ps, mn, "chain.masses", CR_LAW_MAX_DOFS, &nm);
    double *v = m ? numbers(ps, vn, "chain.velocities", CR_LAW_MAX_DOFS, &nv) : NULL;
    if (m && v && nm < 2)
        cr_yaml_fail(ps, line_of(map, "masses"), "chain.masses",
                     "a chain needs two balls or more (got %zu)", nm);
    if (m && v && nm != nv)
        cr_yaml_fail(ps, line_of(map, "velocities"), "chain.velocities",
                     "one velocity per mass (%zu masses, %zu velocities)", nm, nv);
    if (m && v && ps->rc == CR_OK)
        positive_items(ps, mn, "chain.masses", m, nm);
    if (ps->rc == CR_OK) {
        c->imp = cr_impact_create_chain(nm, m, v);
        *o = (origin){mn, "chain.masses", NULL, NULL, vn, "chain.velocities"};
    }
    free(m);
    free(v);
    return ps->rc;
}

static int parse_discs(cr_yaml_ctx *ps, struct fy_node *map, int line, cr_lawcase *c, origin *o)
{
    static const char *const keys[] = {"masses", "positions", "velocities", "contacts", NULL};
    if (cr_yaml_need_map(ps, map, line, "discs") || cr_yaml_check_keys(ps, map, "discs", keys) ||
        require(ps, map, "discs", keys))
        return ps->rc;
    const size_t maxd = CR_LAW_MAX_DOFS / 2;
    struct fy_node *mn = cr_yaml_child(map, "masses"), *cn = cr_yaml_child(map, "contacts");
    if (!mn)
        return cr_yaml_fail(ps, cr_yaml_line(map), "discs.masses", "missing required field");
    size_t nm = 0, np = 0, nv = 0, nc = 0;
    double *m = check_length(ps, mn, "discs.masses", maxd, "discs (2 dofs each)") == CR_OK
                    ? numbers(ps, mn, "discs.masses", maxd, &nm)
                    : NULL;
    double *xy =
        m ? vectors(ps, cr_yaml_child(map, "positions"), "discs.positions", 2, maxd, &np) : NULL;
    double *u =
        xy ? vectors(ps, cr_yaml_child(map, "velocities"), "discs.velocities", 2, maxd, &nv) : NULL;
    double *pr = u ? vectors(ps, cn, "discs.contacts", 2, CR_LAW_MAX_CONTACTS, &nc) : NULL;
    size_t *pairs = pr ? malloc((nc ? nc : 1) * 2 * sizeof(size_t)) : NULL;
    if (pairs && np != nm)
        cr_yaml_fail(ps, line_of(map, "positions"), "discs.positions",
                     "one position per mass (%zu masses, %zu positions)", nm, np);
    if (pairs && nv != nm)
        cr_yaml_fail(ps, line_of(map, "velocities"), "discs.velocities",
                     "one velocity per mass (%zu masses, %zu velocities)", nm, nv);
    if (pairs && nc == 0)
        cr_yaml_fail(ps, line_of(map, "contacts"), "discs.contacts",
                     "at least one contact: there is nothing to impact");
    if (pairs && ps->rc == CR_OK)
        positive_items(ps, mn, "discs.masses", m, nm);
    for (size_t k = 0; pairs && ps->rc == CR_OK && k < nc; k++) {
        char f[64];
        snprintf(f, sizeof f, "discs.contacts[%zu]", k);
        int line = cr_yaml_line(fy_node_sequence_get_by_index(cn, (int)k));
        double a = pr[2 * k], b = pr[2 * k + 1];
        if (a < 0 || a >= (double)nm || a != floor(a) || b < 0 || b >= (double)nm ||
            b != floor(b)) {
            cr_yaml_fail(ps, line, f, "names disc %g, which does not exist (discs 0 to %zu)",
                         a < 0 || a >= (double)nm || a != floor(a) ? a : b, nm - 1);
            break;
        }
        pairs[2 * k] = (size_t)a;
        pairs[2 * k + 1] = (size_t)b;
        if (a == b) {
            cr_yaml_fail(ps, line, f, "a disc cannot touch itself");
            break;
        }
        double dx = xy[2 * (size_t)b] - xy[2 * (size_t)a];
        double dy = xy[2 * (size_t)b + 1] - xy[2 * (size_t)a + 1];
        if (!(hypot(dx, dy) > 0.0) || !isfinite(hypot(dx, dy)))
            cr_yaml_fail(ps, line, f,
                         "discs %g and %g are at the same position: the contact has no normal", a,
                         b);
    }
    if (pairs && ps->rc == CR_OK) {
        c->imp = cr_impact_create_discs(nm, m, xy, nc, pairs, u);
        *o = (origin){mn,
                      "discs.masses",
                      cn,
                      "discs.contacts",
                      cr_yaml_child(map, "velocities"),
                      "discs.velocities"};
    }
    free(m);
    free(xy);
    free(u);
    free(pr);
    free(pairs);
    return ps->rc;
}

/* Gradients that are zero vectors constrain nothing (the law would divide by 0). */
static int nonzero_rows(cr_yaml_ctx *ps, struct fy_node *list, const char *field, const double *v,
                        size_t rows, size_t k)
{
    for (size_t r = 0; r < rows; r++) {
        int zero = 1;
        for (size_t i = 0; i < k; i++)
            zero &= v[r * k + i] == 0.0;
        if (zero) {
            char f[96];
            snprintf(f, sizeof f, "%s[%zu]", field, r);
            return cr_yaml_fail(ps, cr_yaml_line(fy_node_sequence_get_by_index(list, (int)r)), f,
                                "a zero gradient: the contact constrains no velocity");
        }
    }
    return CR_OK;
}

static int parse_system(cr_yaml_ctx *ps, struct fy_node *map, int line, cr_lawcase *c, origin *o)
{
    static const char *const keys[] = {"mass", "gradients", "velocity", "excitation", NULL};
    static const char *const needed[] = {"mass", "gradients", "velocity", NULL};
    if (cr_yaml_need_map(ps, map, line, "system") || cr_yaml_check_keys(ps, map, "system", keys) ||
        require(ps, map, "system", needed))
        return ps->rc;
    struct fy_node *mnode = cr_yaml_child(map, "mass"), *gnode = cr_yaml_child(map, "gradients");
    struct fy_node *vnode = cr_yaml_child(map, "velocity");
    if (!mnode)
        return cr_yaml_fail(ps, cr_yaml_line(map), "system.mass", "missing required field");
    /* the mass matrix sets the number of dofs; every other list is checked against it */
    int full = fy_node_is_sequence(mnode) && fy_node_sequence_item_count(mnode) > 0 &&
               fy_node_is_sequence(fy_node_sequence_get_by_index(mnode, 0));
    size_t n = 0, rows = 0, nu = 0, nw = 0, ng = 0;
    if (check_length(ps, mnode, "system.mass", CR_LAW_MAX_DOFS, "dofs") != CR_OK)
        return ps->rc;
    if (full)
        n = (size_t)fy_node_sequence_item_count(mnode);
    double *M = full ? vectors(ps, mnode, "system.mass", n, n, &rows)
                     : numbers(ps, mnode, "system.mass", CR_LAW_MAX_DOFS, &rows);
    if (M && !full) {
        n = rows;
        positive_items(ps, mnode, "system.mass", M, n);
    }
    if (M && n == 0)
        cr_yaml_fail(ps, line_of(map, "mass"), "system.mass", "an empty mass matrix");
    double *u =
        M && ps->rc == CR_OK ? numbers(ps, vnode, "system.velocity", CR_LAW_MAX_DOFS, &nu) : NULL;
    if (u && nu != n)
        cr_yaml_fail(ps, line_of(map, "velocity"), "system.velocity",
                     "one value per dof: system.mass has %zu, got %zu", n, nu);
    double *W = u && ps->rc == CR_OK
                    ? vectors(ps, gnode, "system.gradients", n, CR_LAW_MAX_CONTACTS, &nw)
                    : NULL;
    if (W && nw == 0)
        cr_yaml_fail(ps, line_of(map, "gradients"), "system.gradients",
                     "at least one contact: there is nothing to impact");
    if (W && ps->rc == CR_OK)
        nonzero_rows(ps, gnode, "system.gradients", W, nw, n);
    struct fy_node *ex = cr_yaml_child(map, "excitation");
    double *e = W && ex && ps->rc == CR_OK
                    ? numbers(ps, ex, "system.excitation", CR_LAW_MAX_CONTACTS, &ng)
                    : NULL;
    if (e && ng != nw)
        cr_yaml_fail(ps, line_of(map, "excitation"), "system.excitation",
                     "one value per contact (%zu), got %zu", nw, ng);
    if (W && ps->rc == CR_OK) {
        c->imp = cr_impact_create(n, nw);
        int rc = !c->imp ? CR_ERR_NOMEM
                 : full  ? cr_impact_set_mass(c->imp, M)
                         : cr_impact_set_mass_diagonal(c->imp, M);
        for (size_t k = 0; rc == CR_OK && k < nw; k++)
            rc = cr_impact_set_gradient(c->imp, k, W + k * n);
        if (rc == CR_OK)
            rc = cr_impact_set_velocity(c->imp, u);
        if (rc == CR_OK && e)
            rc = cr_impact_set_excitation(c->imp, e);
        if (rc != CR_OK)
            cr_yaml_fail(ps, line_of(map, "mass"), "system.mass", "%s",
                         c->imp ? cr_impact_last_error(c->imp) : "out of memory");
        *o = (origin){mnode, "system.mass", gnode, "system.gradients", vnode, "system.velocity"};
    }
    free(u);
    free(W);
    free(M);
    free(e);
    return ps->rc;
}

static int vec3(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                int required, double *out)
{
    char f[128];
    cr_yaml_path(f, sizeof f, where, key);
    struct fy_node *n = cr_yaml_child(map, key);
    if (!n)
        return required ? cr_yaml_fail(ps, cr_yaml_line(map), f, "missing required field") : CR_OK;
    size_t got;
    if (fy_node_is_sequence(n) && fy_node_sequence_item_count(n) != 3)
        return cr_yaml_fail(ps, line_of(map, key), f, "needs 3 numbers, got %d",
                            fy_node_sequence_item_count(n));
    if (cr_yaml_numbers(ps, n, f, out, 3, &got) != CR_OK)
        return ps->rc;
    if (got != 3)
        return cr_yaml_fail(ps, cr_yaml_line(n), f, "needs 3 numbers, got %zu", got);
    return CR_OK;
}

static int parse_rigid_body(cr_yaml_ctx *ps, struct fy_node *bl, size_t i, cr_rigid_body *b)
{
    static const char *const bkeys[] = {"mass", "inertia", "v", "omega", NULL};
    char w[64];
    snprintf(w, sizeof w, "rigid.bodies[%zu]", i);
    struct fy_node *bn = fy_node_sequence_get_by_index(bl, (int)i);
    if (cr_yaml_need_map(ps, bn, cr_yaml_line(bl), w) || cr_yaml_check_keys(ps, bn, w, bkeys) ||
        cr_yaml_number(ps, bn, cr_yaml_line(bn), w, "mass", 1, 0, &b->mass) ||
        cr_yaml_positive(ps, bn, w, "mass", b->mass) || vec3(ps, bn, w, "inertia", 1, b->inertia) ||
        vec3(ps, bn, w, "v", 0, b->v) || vec3(ps, bn, w, "omega", 0, b->omega))
        return ps->rc;
    char f[96];
    snprintf(f, sizeof f, "%s.inertia", w);
    return positive_items(ps, cr_yaml_child(bn, "inertia"), f, b->inertia, 3);
}

static int parse_rigid_contact(cr_yaml_ctx *ps, struct fy_node *cl, size_t i, size_t nb,
                               cr_rigid_contact *k)
{
    static const char *const ckeys[] = {"bodies", "r_a", "r_b", "normal", NULL};
    char w[64], f[96];
    snprintf(w, sizeof w, "rigid.contacts[%zu]", i);
    snprintf(f, sizeof f, "%s.bodies", w);
    struct fy_node *cn = fy_node_sequence_get_by_index(cl, (int)i);
    double pair[2];
    size_t got = 0;
    if (cr_yaml_need_map(ps, cn, cr_yaml_line(cl), w) || cr_yaml_check_keys(ps, cn, w, ckeys))
        return ps->rc;
    if (!cr_yaml_child(cn, "bodies"))
        return cr_yaml_fail(ps, cr_yaml_line(cn), f, "missing required field");
    if (cr_yaml_numbers(ps, cr_yaml_child(cn, "bodies"), f, pair, 2, &got))
        return ps->rc;
    if (got != 2 || pair[0] < -1 || pair[1] < -1 || pair[0] >= (double)nb ||
        pair[1] >= (double)nb || pair[0] == pair[1] || pair[0] != floor(pair[0]) ||
        pair[1] != floor(pair[1]))
        return cr_yaml_fail(ps, line_of(cn, "bodies"), f,
                            "two different body indices from -1 (the ground) to %zu", nb - 1);
    k->body_a = (int)pair[0];
    k->body_b = (int)pair[1];
    if (vec3(ps, cn, w, "r_a", 0, k->r_a) || vec3(ps, cn, w, "r_b", 0, k->r_b) ||
        vec3(ps, cn, w, "normal", 1, k->normal))
        return ps->rc;
    double len = sqrt(k->normal[0] * k->normal[0] + k->normal[1] * k->normal[1] +
                      k->normal[2] * k->normal[2]);
    snprintf(f, sizeof f, "%s.normal", w);
    if (!(len > 0) || !isfinite(len))
        return cr_yaml_fail(ps, line_of(cn, "normal"), f,
                            "a zero normal: the contact has no direction");
    for (int j = 0; j < 3; j++)
        k->normal[j] /= len;
    return CR_OK;
}

static int parse_rigid(cr_yaml_ctx *ps, struct fy_node *map, int line, cr_lawcase *c, origin *o)
{
    static const char *const keys[] = {"bodies", "contacts", "pin", NULL};
    if (cr_yaml_need_map(ps, map, line, "rigid") || cr_yaml_check_keys(ps, map, "rigid", keys))
        return ps->rc;
    struct fy_node *bl = cr_yaml_child(map, "bodies"), *cl = cr_yaml_child(map, "contacts");
    if (!bl || !fy_node_is_sequence(bl) || fy_node_sequence_item_count(bl) == 0)
        return cr_yaml_fail(ps, bl ? line_of(map, "bodies") : cr_yaml_line(map), "rigid.bodies",
                            "needs a non-empty list of bodies");
    if (!cl || !fy_node_is_sequence(cl) || fy_node_sequence_item_count(cl) == 0)
        return cr_yaml_fail(ps, cl ? line_of(map, "contacts") : cr_yaml_line(map), "rigid.contacts",
                            "needs a non-empty list of contacts");
    if (check_length(ps, bl, "rigid.bodies", CR_LAW_MAX_DOFS / 6, "bodies (6 dofs each)") ||
        check_length(ps, cl, "rigid.contacts", CR_LAW_MAX_CONTACTS, "contacts"))
        return ps->rc;
    size_t nb = (size_t)fy_node_sequence_item_count(bl);
    size_t nc = (size_t)fy_node_sequence_item_count(cl);
    cr_rigid_body *b = calloc(nb, sizeof(*b));
    cr_rigid_contact *k = calloc(nc, sizeof(*k));
    if (!b || !k)
        cr_yaml_fail(ps, cr_yaml_line(map), "rigid", "out of memory");
    for (size_t i = 0; ps->rc == CR_OK && i < nb; i++)
        parse_rigid_body(ps, bl, i, &b[i]);
    for (size_t i = 0; ps->rc == CR_OK && i < nc; i++)
        parse_rigid_contact(ps, cl, i, nb, &k[i]);
    struct fy_node *pin = cr_yaml_child(map, "pin");
    double rp[3];
    if (ps->rc == CR_OK && pin) {
        /* one body on a spherical joint (004 sect. 4): the dofs are ω */
        if (nb != 1)
            cr_yaml_fail(ps, line_of(map, "pin"), "rigid.pin", "a pin holds exactly one body");
        else if (vec3(ps, map, "rigid", "pin", 1, rp) == CR_OK)
            c->imp = cr_impact_create_pinned(b, rp, nc, k);
        if (ps->rc == CR_OK && !c->imp)
            cr_yaml_fail(ps, line_of(map, "pin"), "rigid.pin",
                         "each contact must join the body and the ground");
    } else if (ps->rc == CR_OK) {
        c->imp = cr_impact_create_rigid(nb, b, nc, k);
    }
    *o = (origin){bl, "rigid.bodies", cl, "rigid.contacts", bl, "rigid.bodies"};
    free(b);
    free(k);
    return ps->rc;
}

/* A list of per-contact values, each in [lo, hi]. */
static double *per_contact(cr_yaml_ctx *ps, struct fy_node *node, const char *field, size_t m,
                           double lo, double hi)
{
    size_t n;
    double *v = numbers(ps, node, field, CR_LAW_MAX_CONTACTS, &n);
    if (v && n != m)
        cr_yaml_fail(ps, cr_yaml_line(node), field, "one value per contact (%zu), got %zu", m, n);
    for (size_t i = 0; v && ps->rc == CR_OK && i < n; i++)
        if (!(v[i] >= lo && v[i] <= hi)) {
            char f[96];
            snprintf(f, sizeof f, "%s[%zu]", field, i);
            cr_yaml_fail(ps, cr_yaml_line(fy_node_sequence_get_by_index(node, (int)i)), f,
                         "must lie in [%g, %g] (got %g)", lo, hi, v[i]);
        }
    if (ps->rc != CR_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/* One number for every contact or a list of one per contact, each in [lo, hi],
 * as a list of m values (NULL when the field is absent or refused). */
static double *one_or_each(cr_yaml_ctx *ps, struct fy_node *map, const char *key, size_t m,
                           double lo, double hi)
{
    struct fy_node *node = cr_yaml_child(map, key);
    char f[64];
    snprintf(f, sizeof f, "law.%s", key);
    if (!node)
        return NULL;
    if (fy_node_is_sequence(node))
        return per_contact(ps, node, f, m, lo, hi);
    double v;
    if (cr_yaml_number(ps, map, cr_yaml_line(map), "law", key, 1, 0, &v) != CR_OK)
        return NULL;
    if (!(v >= lo && v <= hi)) {
        cr_yaml_fail(ps, line_of(map, key), f, "must lie in [%g, %g] (got %g)", lo, hi, v);
        return NULL;
    }
    double *all = malloc((m ? m : 1) * sizeof(double));
    if (!all) {
        cr_yaml_fail(ps, line_of(map, key), f, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < m; i++)
        all[i] = v;
    return all;
}

/* The LZB law's pair laws: K > 0, n in [1, 10], eⱼ in [0, 1], and its tolerance. */
static int parse_pair_laws(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c, size_t m)
{
    c->stiffness = one_or_each(ps, map, "stiffness", m, 1e-300, 1e300);
    if (ps->rc == CR_OK)
        c->exponent = one_or_each(ps, map, "exponent", m, 1.0, 10.0);
    if (ps->rc == CR_OK)
        c->energetic = one_or_each(ps, map, "energetic_restitution", m, 0.0, 1.0);
    if (ps->rc != CR_OK)
        return ps->rc;
    c->params.stiffness = c->stiffness;
    c->params.exponent = c->exponent;
    c->params.energetic = c->energetic;
    if (cr_yaml_number(ps, map, cr_yaml_line(map), "law", "tolerance", 0, 0,
                       &c->params.tolerance) != CR_OK)
        return ps->rc;
    if (!(c->params.tolerance >= 1e-14 && c->params.tolerance <= 1e-3))
        return cr_yaml_fail(ps, line_of(map, "tolerance"), "law.tolerance",
                            "must lie in [1e-14, 0.001] (got %g)", c->params.tolerance);
    return CR_OK;
}

#define SUPERELASTIC_HINT                                                                          \
    (c->params.superelastic ? "" : "; a measured value above 1 needs 'superelastic: true'")

/* `superelastic: true` lets restitutions above 1 through (measured ones, taken as
 * they are by the laws defined for them: cr_law_params::superelastic). */
static int parse_superelastic(cr_yaml_ctx *ps, struct fy_node *map, cr_lawcase *c)
{
    struct fy_node *s = cr_yaml_child(map, "superelastic");
    if (!s)
        return CR_OK;
    const char *v = fy_node_get_scalar0(s);
    if (!v || (strcmp(v, "true") && strcmp(v, "false")))
        return cr_yaml_fail(ps, cr_yaml_line(s), "law.superelastic", "true or false");
    c->params.superelastic = strcmp(v, "true") == 0;
    return CR_OK;
}

static int parse_law(cr_yaml_ctx *ps, struct fy_node *map, int key_line, cr_lawcase *c)
{
    static const char *const keys[] = {"restitution",  "kappa",
                                       "alpha",        "reference",
                                       "eta",          "max_stages",
                                       "max_outcomes", "stiffness",
                                       "exponent",     "energetic_restitution",
                                       "tolerance",    "poisson_restitution",
                                       "superelastic", NULL};
    cr_law_params_init(&c->params);
    if (!map)
        return CR_OK;
    if (cr_yaml_need_map(ps, map, key_line, "law") || cr_yaml_check_keys(ps, map, "law", keys))
        return ps->rc;
    size_t m = cr_impact_contact_count(c->imp);
    int line = cr_yaml_line(map);
    if (parse_superelastic(ps, map, c) != CR_OK)
        return ps->rc;
    /* above 1 only when the case says the values are measured ones (superelastic) */
    double top = c->params.superelastic ? 1e300 : 1.0;
    struct fy_node *r = cr_yaml_child(map, "restitution");
    if (r && fy_node_is_sequence(r)) {
        c->restitutions = per_contact(ps, r, "law.restitution", m, 0.0, top);
        if (!c->restitutions)
            return ps->rc;
        c->params.restitutions = c->restitutions;
    } else if (cr_yaml_number(ps, map, line, "law", "restitution", 0, 0, &c->params.restitution)) {
        return ps->rc;
    } else if (!(c->params.restitution >= 0.0 && c->params.restitution <= top)) {
        return cr_yaml_fail(ps, line_of(map, "restitution"), "law.restitution",
                            "must lie in [0, %g] (got %g)%s", top, c->params.restitution,
                            SUPERELASTIC_HINT);
    }
    c->poisson = one_or_each(ps, map, "poisson_restitution", m, 0.0, top);
    if (ps->rc != CR_OK)
        return ps->rc;
    c->params.poisson_restitutions = c->poisson;
    if (cr_yaml_child(map, "alpha")) {
        c->alpha = per_contact(ps, cr_yaml_child(map, "alpha"), "law.alpha", m, 0.0, 1e300);
        if (!c->alpha)
            return ps->rc;
        c->params.alpha = c->alpha;
    }
    if (cr_yaml_child(map, "eta")) {
        c->eta = per_contact(ps, cr_yaml_child(map, "eta"), "law.eta", m, 0.0, 1.0);
        if (!c->eta)
            return ps->rc;
        c->params.eta = c->eta;
    }
    long ref = 0, stages = c->params.max_stages, outs = c->params.max_outcomes;
    if (cr_yaml_number(ps, map, line, "law", "kappa", 0, 0, &c->params.kappa) ||
        cr_yaml_count_in(ps, map, line, "law", "reference", 0, 0, CR_LAW_MAX_CONTACTS, &ref) ||
        cr_yaml_count_in(ps, map, line, "law", "max_stages", 0, 1, CR_LAW_MAX_STAGES, &stages) ||
        cr_yaml_count_in(ps, map, line, "law", "max_outcomes", 0, 1, CR_LAW_MAX_OUTCOMES, &outs))
        return ps->rc;
    if (!(c->params.kappa >= 0.0))
        return cr_yaml_fail(ps, line_of(map, "kappa"), "law.kappa", "must be >= 0 (T+/T-; got %g)",
                            c->params.kappa);
    if ((size_t)ref >= m)
        return cr_yaml_fail(ps, line_of(map, "reference"), "law.reference",
                            "no contact %ld (contacts 0 to %zu)", ref, m - 1);
    c->params.reference = (size_t)ref;
    c->params.max_stages = (int)stages;
    c->params.max_outcomes = (int)outs;
    return parse_pair_laws(ps, map, c, m);
}

/* What the law core refuses in the built configuration (a singular M, a gradient that
 * vanishes in the kinetic metric, overflow), at the line it came from. */
static int check_built(cr_yaml_ctx *ps, cr_lawcase *c, const origin *o)
{
    long bad = -1;
    if (cr_impact_check(c->imp, &bad) == CR_OK)
        return CR_OK;
    const char *why = cr_impact_last_error(c->imp);
    if (bad >= 0 && o->contacts && fy_node_is_sequence(o->contacts)) {
        char f[96];
        snprintf(f, sizeof f, "%s[%ld]", o->contacts_field, bad);
        return cr_yaml_fail(ps, cr_yaml_line(fy_node_sequence_get_by_index(o->contacts, (int)bad)),
                            f, "%s", why);
    }
    if (bad == -2)
        return cr_yaml_fail(ps, cr_yaml_line(o->velocity), o->velocity_field, "%s", why);
    return cr_yaml_fail(ps, cr_yaml_line(o->mass), o->mass_field, "%s", why);
}

/* `measured:` (written by `cradle run --cases`): the coefficients measured on
 * the episode as they are, out-of-range ones included. Informational: no law
 * reads it, so only its shape is checked. */
static void check_measured(cr_yaml_ctx *ps, struct fy_node *map, int key_line)
{
    static const char *const keys[] = {"e_N", "e_P", "kappa", "alpha", "out_of_range", NULL};
    if (map && cr_yaml_need_map(ps, map, key_line, "measured") == CR_OK)
        cr_yaml_check_keys(ps, map, "measured", keys);
}

int cr_lawcase_parse(const char *text, size_t len, const char *filename, cr_lawcase **out,
                     char *msg, size_t msglen)
{
    static const char *const top[] = {"name",  "description", "chain",    "discs", "system",
                                      "rigid", "law",         "measured", NULL};
    static const char *const kinds[] = {"chain", "discs", "system", "rigid"};
    cr_yaml_ctx ps = {.file = filename ? filename : "<case>", .msg = msg, .msglen = msglen};
    if (!out) {
        cr_set_msg(msg, msglen, "cr_lawcase_parse: no output");
        return CR_ERR_INVALID;
    }
    *out = NULL;
    cr_lawcase *c = calloc(1, sizeof(*c));
    if (!c) {
        cr_set_msg(msg, msglen, "out of memory");
        return CR_ERR_NOMEM;
    }
    origin o = {0};
    struct fy_document *doc = cr_yaml_parse(&ps, text, len);
    struct fy_node *root = doc ? fy_document_root(doc) : NULL;
    if (doc && (!root || !fy_node_is_mapping(root)))
        cr_yaml_fail(&ps, root && cr_yaml_line(root) ? cr_yaml_line(root) : 1, "(top level)",
                     "a case is a mapping: chain, discs, system or rigid");
    if (root && ps.rc == CR_OK && cr_yaml_check_keys(&ps, root, "", top) == CR_OK) {
        int found = 0;
        for (int k = 0; k < 4; k++) {
            struct fy_node *node = cr_yaml_child(root, kinds[k]);
            if (!node)
                continue;
            if (found++) {
                cr_yaml_fail(&ps, line_of(root, kinds[k]), kinds[k],
                             "give one of chain, discs, system, rigid (%s is given too)", c->kind);
                break;
            }
            c->kind = kinds[k];
            int line = line_of(root, kinds[k]);
            switch (k) {
            case 0:
                parse_chain(&ps, node, line, c, &o);
                break;
            case 1:
                parse_discs(&ps, node, line, c, &o);
                break;
            case 2:
                parse_system(&ps, node, line, c, &o);
                break;
            default:
                parse_rigid(&ps, node, line, c, &o);
                break;
            }
        }
        if (!found)
            cr_yaml_fail(&ps, cr_yaml_line(root), "chain",
                         "missing: give one of chain, discs, system, rigid");
        if (ps.rc == CR_OK && !c->imp)
            cr_yaml_fail(&ps, line_of(root, c->kind), c->kind,
                         "could not build the configuration (out of memory?)");
        if (ps.rc == CR_OK)
            check_built(&ps, c, &o);
        if (ps.rc == CR_OK)
            parse_law(&ps, cr_yaml_child(root, "law"), line_of(root, "law"), c);
        if (ps.rc == CR_OK)
            check_measured(&ps, cr_yaml_child(root, "measured"), line_of(root, "measured"));
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
    if (p->poisson_restitutions) {
        fprintf(out, "  poisson_restitution: ");
        write_list(out, p->poisson_restitutions, m);
        fputc('\n', out);
    }
    if (p->superelastic)
        fprintf(out, "  superelastic: true\n");
    fprintf(out, "  kappa: %.17g\n", p->kappa);
    if (p->alpha) {
        fprintf(out, "  alpha: ");
        write_list(out, p->alpha, m);
        fputc('\n', out);
    }
    fprintf(out, "  reference: %zu\n", p->reference);
    static const char *const pair_keys[] = {"stiffness", "exponent", "energetic_restitution"};
    const double *pair[] = {p->stiffness, p->exponent, p->energetic};
    for (int k = 0; k < 3; k++)
        if (pair[k]) {
            fprintf(out, "  %s: ", pair_keys[k]);
            write_list(out, pair[k], m);
            fputc('\n', out);
        }
    if (p->tolerance != 1e-10)
        fprintf(out, "  tolerance: %.17g\n", p->tolerance);
    free(M);
    free(W);
    free(u);
    free(col);
    return ferror(out) ? CR_ERR_IO : CR_OK;
}
