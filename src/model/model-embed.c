/* A chain or pool as a model of the contact-graph engine in more dimensions
 * (cr_model_embed; docs/design.md, "One engine"). Everything here goes through
 * the model's own API except the in-place rigid motion of a pool
 * (cr_model_move_rigidly, model.c), which needs the walls' fields. */
#include <math.h>
#include <stdlib.h>

#include "cradle/model.h"
#include "model/model.h"
#include "base/base.h"

/* A rotation within 1e-12: Rᵀ R = I and det R = +1 (a reflection would turn
 * walls inside out). dim 2 keeps the x-y plane. */
static int is_rotation(const double R[9], int dim)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = 0.0;
            for (int k = 0; k < 3; k++)
                d += R[3 * k + i] * R[3 * k + j];
            if (!(fabs(d - (i == j)) <= 1e-12))
                return 0;
        }
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    if (!(det > 0.0))
        return 0;
    return dim == 3 || (R[2] == 0.0 && R[5] == 0.0 && R[6] == 0.0 && R[7] == 0.0);
}

/* What a chain carries that the contact graph has no place for. */
static int chain_refusal(const cr_model *m, char *msg, size_t msglen)
{
    size_t n = cr_model_body_count(m);
    double a, b, c, e, v;
    for (size_t i = 0; i < n; i++) {
        if (cr_model_pendulum(m, i, &a, &b, &c)) {
            cr_set_msg(msg, msglen,
                       "body %zu hangs on a pendulum: the arc coordinate is a 1-D feature, "
                       "not embeddable",
                       i);
            return 1;
        }
        if (cr_model_is_fixed(m, i) && i > 0 && i + 1 < n) {
            cr_set_msg(msg, msglen,
                       "wall %zu has balls on both sides: only a chain's end walls become "
                       "half-spaces",
                       i);
            return 1;
        }
        if (cr_model_drag(m, i, &a, &b)) {
            cr_set_msg(msg, msglen, "body %zu feels drag, which the contact-graph engine refuses",
                       i);
            return 1;
        }
    }
    for (size_t k = 0; k + 1 < n; k++) {
        if (cr_model_link(m, k) || !cr_model_contact_enabled(m, k)) {
            cr_set_msg(msg, msglen,
                       "pair %zu is a link or has no contact: links (rods) are not embeddable", k);
            return 1;
        }
        if (cr_model_contact_target(m, k, &e, &v) && e < 1.0 && cr_model_contact(m, k)->C == 0.0) {
            cr_set_msg(msg, msglen,
                       "contact %zu: damping still to be solved from its restitution target "
                       "(cr_calibrate_model first)",
                       k);
            return 1;
        }
    }
    return 0;
}

/* p = R (x, 0, 0) + t: the first column of R scaled, moved. */
static void on_line(const double R[9], const double t[3], double x, int with_t, double *p)
{
    for (int d = 0; d < 3; d++)
        p[d] = R[3 * d] * x + (with_t ? t[d] : 0.0);
}

/* Balls, then walls as half-spaces, then each pair's law on its new pair. */
static int embed_chain_bodies(const cr_model *m, cr_model *out, const double R[9],
                              const double t[3], size_t *newidx)
{
    size_t n = cr_model_body_count(m);
    for (size_t i = 0; i < n; i++) {
        newidx[i] = (size_t)-1;
        if (cr_model_is_fixed(m, i))
            continue;
        double x[3], v[3], E, nu;
        on_line(R, t, cr_model_position(m, i), 1, x);
        on_line(R, t, cr_model_velocity(m, i), 0, v);
        int k = cr_model_add_body(out, cr_model_mass(m, i), cr_model_radius(m, i), x, v);
        if (k < 0)
            return k;
        newidx[i] = (size_t)k;
        if (cr_model_material(m, i, &E, &nu) &&
            cr_model_set_material(out, (size_t)k, E, nu) != CR_OK)
            return CR_ERR_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cr_model_is_fixed(m, i))
            continue;
        /* the wall faces the chain: its free side holds the neighbouring ball */
        double side = i == 0 ? 1.0 : -1.0, nrm[3], p[3];
        on_line(R, t, side, 0, nrm);
        on_line(R, t, cr_model_position(m, i), 1, p);
        double offset = nrm[0] * p[0] + nrm[1] * p[1] + nrm[2] * p[2];
        int w = cr_model_add_plane(out, nrm, offset, NULL);
        if (w < 0)
            return w;
        newidx[i] = (size_t)CR_WALL_BODY(w);
    }
    for (size_t k = 0; k + 1 < n; k++) {
        long a = (long)newidx[k], b = (long)newidx[k + 1];
        if (a < 0) { /* a wall on the left: the law belongs to (ball, wall) */
            long s = a;
            a = b;
            b = s;
        }
        int rc = cr_model_set_pair_law(out, (size_t)a, b, cr_model_contact(m, k));
        if (rc != CR_OK)
            return rc;
    }
    return CR_OK;
}

static cr_model *embed_chain(const cr_model *m, int dim, const double R[9], const double t[3],
                             char *msg, size_t msglen)
{
    if (chain_refusal(m, msg, msglen))
        return NULL;
    size_t n = cr_model_body_count(m);
    cr_model *out = cr_model_create();
    size_t *newidx = malloc((n ? n : 1) * sizeof *newidx);
    int rc = out && newidx ? cr_model_set_dimension(out, dim) : CR_ERR_NOMEM;
    if (rc == CR_OK)
        rc = cr_model_set_default_contact(out, cr_model_default_contact(m));
    if (rc == CR_OK)
        rc = embed_chain_bodies(m, out, R, t, newidx);
    double g[3];
    on_line(R, t, cr_model_gravity(m), 0, g);
    if (rc == CR_OK)
        rc = cr_model_set_gravity_vector(out, g);
    if (rc == CR_OK && cr_model_name(m))
        rc = cr_model_set_name(out, cr_model_name(m));
    if (rc == CR_OK) {
        cr_settings s = *cr_model_settings(m);
        if (s.method == CR_METHOD_ERK)
            s.method = CR_METHOD_AUTO;
        /* body ranges count walls in a chain and not in the embedding */
        if (cr_model_body_count(out) != n)
            s.output_nranges = 0;
        cr_model_set_settings(out, &s);
    }
    free(newidx);
    if (rc != CR_OK) {
        cr_set_msg(msg, msglen, "embedding the chain: %s", cr_strerror(rc));
        cr_model_destroy(out);
        return NULL;
    }
    return out;
}

cr_model *cr_model_embed(const cr_model *model, int dim, const double R[9], const double t[3],
                         char *msg, size_t msglen)
{
    if (!model || !R || !t) {
        cr_set_msg(msg, msglen, "cr_model_embed: no model, rotation or translation");
        return NULL;
    }
    int from = cr_model_dimension(model);
    if (dim < 2 || dim > 3 || dim < from) {
        cr_set_msg(msg, msglen, "cannot embed a dim-%d model in dim %d (need 2 or 3, at least %d)",
                   from, dim, from);
        return NULL;
    }
    if (!is_rotation(R, dim)) {
        cr_set_msg(msg, msglen, "cr_model_embed: R is not a rotation%s",
                   dim == 2 ? " about z" : "");
        return NULL;
    }
    if (from == 1)
        return embed_chain(model, dim, R, t, msg, msglen);
    cr_model *out = cr_model_copy(model);
    if (!out || cr_model_move_rigidly(out, dim, R, t) != CR_OK) {
        cr_set_msg(msg, msglen, "cr_model_embed: out of memory");
        cr_model_destroy(out);
        return NULL;
    }
    return out;
}
