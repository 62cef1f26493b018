/*
 * CVODE's callbacks over the window: the right-hand side (displacements,
 * velocities, overlaps; the impulses and dissipated work too when they are
 * states), the quadratures, and the banded Jacobian.
 */
#include "engines/compliant/sim-priv.h"

#include <math.h>
#include <sunmatrix/sunmatrix_band.h>

/* Adds the power dissipated in pair c (W) at overlap delta and rate (SI),
 * whose contact force is @p fc, to @p diss, term by term (the sum rounds as
 * it always did). */
static inline void dissipation(const cr_sim *s, size_t c, double fc, double delta, double rate,
                               double *diss)
{
    if (s->contact_on[c])
        *diss += cr_contact_dissipation_inline(&s->law[c], fc, delta, rate);
    if (s->has_link[c])
        *diss += s->link[c].c * rate * rate;
}

int cr_sm_rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydotv);
    double fscale = s->T / s->V;
    /* the impulses and the dissipated work, when they are states (qstate) */
    double *q = s->qstate ? yd + s->ny : NULL, diss = 0.0;

    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t i = lo; i <= hi; i++) {
            size_t j = s->ybody[i];
            yd[j] = y[j + 1];
            yd[j + 1] =
                s->fixed[i] || !s->has_fields
                    ? 0.0
                    : fscale * (cr_sm_field_accel(s, i, y[j]) + cr_sm_drag_accel(s, i, y[j + 1]));
            if (q && s->has_fields)
                diss += cr_sm_drag_power(s, i, y[j + 1]);
        }
        for (size_t c = cr_sm_icon_first(lo); c < cr_sm_icon_end(s, hi); c++) {
            size_t ja = s->ybody[c], jb = s->ybody[c + 1], jd = s->yovl[c];
            double va = ja != CR_SM_NONE ? y[ja + 1] : cr_sm_fly_vel(s, c);
            double vb = jb != CR_SM_NONE ? y[jb + 1] : cr_sm_fly_vel(s, c + 1);
            yd[jd] = va - vb;
            if (ja == CR_SM_NONE || jb == CR_SM_NONE)
                continue; /* a boundary contact: open or quiet, no force */
            double delta = s->L * y[jd], rate = s->V * (va - vb);
            if (s->force_only[c]) {
                /* no link, no damper: no tension, no dissipation to add (their
                 * checks were 8 % of an undamped chain's run) */
                double fh = cr_contact_force_inline(&s->law[c], delta, rate);
                yd[ja + 1] -= s->accel[c] * fh;
                yd[jb + 1] += s->accel[c + 1] * fh;
                if (q)
                    q[s->yquad[c]] = fh * s->T / s->Pscale;
                continue;
            }
            /* compression-positive pair force: contact push minus link pull */
            double fc = cr_sm_contact_force(s, c, delta, rate);
            double f = fc - cr_sm_link_tension(s, c, delta, rate);
            if (!isfinite(f))
                return -1;
            yd[ja + 1] -= s->accel[c] * f;
            yd[jb + 1] += s->accel[c + 1] * f;
            if (q) { /* as cr_sm_quad_rhs computes them */
                q[s->yquad[c]] = fc * s->T / s->Pscale;
                dissipation(s, c, fc, delta, rate, &diss);
            }
        }
    }
    if (q)
        q[s->nq] = diss * s->T / s->Escale;
    return 0;
}

int cr_sm_jac(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
              N_Vector t2, N_Vector t3)
{
    (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double floor = s->jac_floor_rel * s->L;
    double fscale = s->T / s->V;

    SUNMatZero(J);
    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t i = lo; i <= hi; i++) {
            sunindextype d = (sunindextype)s->ybody[i], v = d + 1;
            SM_ELEMENT_B(J, d, v) = 1.0;
            if (!s->fixed[i] && s->plength[i] > 0.0) {
                double th = (s->x0[i] + s->L * y[d] - s->pivot[i]) / s->plength[i];
                SM_ELEMENT_B(J, v, d) = -fscale * s->pg[i] * cos(th) * s->L / s->plength[i];
            }
            if (!s->fixed[i]) /* ∂/∂ṽ of −(kb + kc|v|)v: −(kb + 2kc|v|), times T */
                SM_ELEMENT_B(J, v, v) =
                    -s->T * (s->drag_kb[i] + 2.0 * s->drag_kc[i] * s->V * fabs(y[v]));
        }
        for (size_t c = cr_sm_icon_first(lo); c < cr_sm_icon_end(s, hi); c++) {
            size_t ja = s->ybody[c], jb = s->ybody[c + 1];
            sunindextype row_d = (sunindextype)s->yovl[c];
            sunindextype va = (sunindextype)(ja + 1), vb = (sunindextype)(jb + 1);
            if (ja != CR_SM_NONE)
                SM_ELEMENT_B(J, row_d, va) = 1.0;
            if (jb != CR_SM_NONE)
                SM_ELEMENT_B(J, row_d, vb) = -1.0;
            if (ja == CR_SM_NONE || jb == CR_SM_NONE)
                continue;

            double delta = s->L * y[row_d], rate = s->V * (y[va] - y[vb]), fd = 0.0, fv = 0.0;
            if (s->contact_on[c])
                cr_contact_partials(&s->law[c], delta, rate, floor, &fd, &fv);
            if (s->has_link[c]) { /* −T = −k(r_a + r_b − δ − ℓ) + c δ̇ */
                fd += s->link[c].k;
                fv += s->link[c].c;
            }
            /* scaled: ∂f/∂δ̃ = fd·L, ∂f/∂ṽ_a = fv·V, ∂f/∂ṽ_b = −fv·V */
            double gd = fd * s->L, gv = fv * s->V;
            double aa = s->accel[c], ab = s->accel[c + 1];
            SM_ELEMENT_B(J, va, row_d) -= aa * gd;
            SM_ELEMENT_B(J, va, va) -= aa * gv;
            SM_ELEMENT_B(J, va, vb) += aa * gv;
            SM_ELEMENT_B(J, vb, row_d) += ab * gd;
            SM_ELEMENT_B(J, vb, va) += ab * gv;
            SM_ELEMENT_B(J, vb, vb) -= ab * gv;
        }
    }
    return 0;
}

/* Quadratures: the impulse of every internal window contact, then the
 * dissipated work (boundary contacts carry no force). */
int cr_sm_quad_rhs(sunrealtype t, N_Vector yv, N_Vector qdot, void *user)
{
    (void)t;
    const cr_sim *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *q = N_VGetArrayPointer(qdot);
    double diss = 0.0;
    for (size_t k = 0; k < s->nint; k++) {
        size_t lo = s->ilo[k], hi = s->ihi[k];
        for (size_t i = lo; i <= hi && s->has_fields; i++) /* air drag */
            diss += cr_sm_drag_power(s, i, y[s->ybody[i] + 1]);
        for (size_t c = lo; c < hi; c++) {
            double delta = s->L * y[s->yovl[c]];
            double rate = s->V * (y[s->ybody[c] + 1] - y[s->ybody[c + 1] + 1]);
            double fc = cr_sm_contact_force(s, c, delta, rate);
            q[s->yquad[c]] = fc * s->T / s->Pscale;
            dissipation(s, c, fc, delta, rate, &diss);
        }
    }
    q[s->nq] = diss * s->T / s->Escale;
    return 0;
}
