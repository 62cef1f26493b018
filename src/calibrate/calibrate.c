/* Contact damping from a target restitution, by compliant two-body runs. */
#include "cradle/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/system.h"
#include "model/model.h"
#include "base/base.h"

int cr_calibrate_restitution(const cr_contact_params *law, double mu, double v, double *e,
                             char *msg, size_t msglen)
{
    if (!law || !(mu > 0.0) || !(v > 0.0) || !e) {
        cr_set_msg(msg, msglen, "restitution: need a law, mu > 0 and v > 0");
        return CR_ERR_INVALID;
    }
    /* two equal balls of mass 2μ, touching, closing at v: γ⁻ = −v */
    cr_model *model = cr_model_create();
    if (!model)
        return CR_ERR_NOMEM;
    cr_model_add_ball(model, 2.0 * mu, 1.0, 0.0, 0.5 * v);
    cr_model_add_ball(model, 2.0 * mu, 1.0, 2.0, -0.5 * v);
    cr_model_set_default_contact(model, law);
    cr_model_set_contact(model, 0, law);
    cr_settings set = cr_settings_default();
    set.rtol = 1e-12;
    set.atol = 1e-14;
    cr_model_set_settings(model, &set);
    cr_system *sys = cr_system_create(model, msg, msglen);
    int rc = sys ? CR_OK : CR_ERR_MODEL;
    if (sys) {
        rc = cr_system_run(sys, 0.0);
        if (rc == CR_OK) {
            double u[2];
            cr_system_get_velocities(sys, u);
            /* the run ends once the contact is unloaded and separating (under the
             * `force` convention that can be before δ returns to 0); an
             * overdamped gap contact creeps apart until the safety cap */
            *e = fmax(0.0, (u[1] - u[0]) / v);
        } else {
            cr_set_msg(msg, msglen, "restitution run: %s", cr_system_last_error(sys));
        }
    }
    cr_system_destroy(sys);
    cr_model_destroy(model);
    return rc;
}

int cr_calibrate_damping(const cr_contact_params *law, double mu, double v, double e_target,
                         double *C, char *msg, size_t msglen)
{
    if (!law || !C || !(e_target > 0.0 && e_target <= 1.0)) {
        cr_set_msg(msg, msglen, "target restitution must lie in (0, 1] (got %g)", e_target);
        return CR_ERR_INVALID;
    }
    if (e_target == 1.0) {
        *C = 0.0;
        return CR_OK;
    }
    cr_contact_params p = *law;
    /* the damping that matters at this speed: C δ*ᵐ v ~ K δ*ⁿ */
    double dstar = pow(mu * v * v / p.K, 1.0 / (p.n + 1.0));
    double c_lo = 0.0, e_lo = 1.0, c_hi = p.K * pow(dstar, p.n - p.m) / v, e_hi;
    int rc;
    for (int k = 0;; k++) {
        p.C = c_hi;
        if ((rc = cr_calibrate_restitution(&p, mu, v, &e_hi, msg, msglen)) != CR_OK)
            return rc;
        if (e_hi < e_target)
            break;
        if (k == 60) {
            cr_set_msg(msg, msglen, "no damping reaches restitution %g", e_target);
            return CR_ERR_NOT_CONVERGED;
        }
        c_lo = c_hi;
        e_lo = e_hi;
        c_hi *= 4.0;
    }
    /* Illinois regula falsi on e(C) − e_target, decreasing in C */
    int side = 0;
    for (int it = 0; it < 200; it++) {
        double c = c_hi - (e_hi - e_target) * (c_hi - c_lo) / (e_hi - e_lo);
        if (!(c > c_lo && c < c_hi))
            c = 0.5 * (c_lo + c_hi);
        double e;
        p.C = c;
        if ((rc = cr_calibrate_restitution(&p, mu, v, &e, msg, msglen)) != CR_OK)
            return rc;
        if (e > e_target) {
            c_lo = c;
            e_lo = e;
            if (side == -1)
                e_hi = e_target + 0.5 * (e_hi - e_target);
            side = -1;
        } else {
            c_hi = c;
            e_hi = e;
            if (side == 1)
                e_lo = e_target + 0.5 * (e_lo - e_target);
            side = 1;
        }
        if (c_hi - c_lo <= 1e-10 * c_hi || e == e_target) {
            *C = e == e_target ? c : 0.5 * (c_lo + c_hi);
            return CR_OK;
        }
    }
    cr_set_msg(msg, msglen, "damping for restitution %g did not converge", e_target);
    return CR_ERR_NOT_CONVERGED;
}

/* dim 1: every pair with a target, reusing the last answer (uniform chains ask
 * the same question many times). */
static int calibrate_chain(cr_model *model, char *msg, size_t msglen)
{
    size_t nc = cr_model_contact_count(model);
    cr_contact_params last = {0};
    double last_mu = 0, last_v = 0, last_e = 0, last_C = 0;
    for (size_t c = 0; c < nc; c++) {
        double e, v;
        if (!cr_model_contact_target(model, c, &e, &v))
            continue;
        cr_contact_params p = *cr_model_contact(model, c);
        double ma = cr_model_mass(model, c), mb = cr_model_mass(model, c + 1);
        double mu = cr_model_is_fixed(model, c)       ? mb
                    : cr_model_is_fixed(model, c + 1) ? ma
                                                      : ma * mb / (ma + mb);
        double C;
        p.C = 0.0;
        if (last_mu == mu && last_v == v && last_e == e && last.K == p.K && last.n == p.n &&
            last.m == p.m && last.release == p.release) {
            C = last_C;
        } else {
            char why[CR_ERRMSG_LEN];
            int rc = cr_calibrate_damping(&p, mu, v, e, &C, why, sizeof why);
            if (rc != CR_OK) {
                cr_set_msg(msg, msglen, "contact %zu: %s", c, why);
                return rc;
            }
            last = p;
            last_mu = mu;
            last_v = v;
            last_e = e;
            last_C = C;
        }
        p.C = C;
        cr_model_set_contact(model, c, &p);
    }
    return CR_OK;
}

/* The distinct (law, μ) classes that still need their damping. */
typedef struct {
    cr_contact_params *law;
    double *mu;
    size_t n, cap;
} class_list;

static int collect_class(const cr_contact_params *law, double mu, void *user)
{
    class_list *l = user;
    if (law->C != 0.0)
        return CR_OK; /* a damping of its own, or solved already */
    for (size_t k = 0; k < l->n; k++)
        if (l->mu[k] == mu && l->law[k].K == law->K && l->law[k].n == law->n &&
            l->law[k].m == law->m && l->law[k].release == law->release)
            return CR_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        cr_contact_params *a = realloc(l->law, cap * sizeof(*a));
        if (a)
            l->law = a;
        double *b = a ? realloc(l->mu, cap * sizeof(*b)) : NULL;
        if (!b)
            return CR_ERR_NOMEM;
        l->mu = b;
        l->cap = cap;
    }
    l->law[l->n] = *law;
    l->mu[l->n++] = mu;
    return CR_OK;
}

/* dim 2: one solve per distinct law and reduced mass (pairs of body kinds,
 * explicit pairs, kinds against walls), never per pair of discs. */
static int calibrate_pool(cr_model *model, char *msg, size_t msglen)
{
    double e, v;
    if (!cr_model_default_target(model, &e, &v) || e >= 1.0)
        return CR_OK;
    class_list l = {0};
    int rc = cr_model_pair_classes(model, CR_MODEL_MAX_KINDS, collect_class, &l);
    if (rc == CR_ERR_MODEL)
        cr_set_msg(msg, msglen,
                   "restitution target: more than %d distinct bodies (mass, radius, "
                   "material), one damping solve per pair of them; give C",
                   CR_MODEL_MAX_KINDS);
    else if (rc != CR_OK)
        cr_set_msg(msg, msglen, "out of memory");
    for (size_t k = 0; k < l.n && rc == CR_OK; k++) {
        double C;
        char why[CR_ERRMSG_LEN];
        rc = cr_calibrate_damping(&l.law[k], l.mu[k], v, e, &C, why, sizeof why);
        if (rc != CR_OK)
            cr_set_msg(msg, msglen, "law K = %g, n = %g at reduced mass %g kg: %s", l.law[k].K,
                       l.law[k].n, l.mu[k], why);
        else
            rc = cr_model_add_solved_damping(model, &l.law[k], l.mu[k], C);
    }
    free(l.law);
    free(l.mu);
    return rc;
}

int cr_calibrate_model(cr_model *model, char *msg, size_t msglen)
{
    if (!model)
        return CR_ERR_INVALID;
    return cr_model_dimension(model) == 1 ? calibrate_chain(model, msg, msglen)
                                          : calibrate_pool(model, msg, msglen);
}
