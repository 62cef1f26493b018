/*
 * Rigid runs calibrated on a compliant run, and runs compared collision by
 * collision (issue 21, items 3 and 5; docs/compare.md):
 *
 * 1. Pairing by time and bodies: two rigid Newton (e = 1) runs of one chain,
 *    the second with an extra two-ball collision of balls far away, first in
 *    time. Every collision of the first run pairs with the identical one of
 *    the second (phase exactly 0, the same velocities); the extra one is left
 *    unpaired, never shifted into the next pair (pairing by order got every
 *    pair wrong here).
 * 2. Mapping regression, labelled as such (the energetic law returns what
 *    its α and κ were measured on): on the damped 5-ball pendulum cradle,
 *    for every compliant collision the energetic law on the collision's own
 *    configuration (its bodies, u⁻ at their joining, the chain's W) with the
 *    collision's α and the κ the calibration lends (cr_calibrated_rigid_kappa)
 *    gives impulses in the ratios α (1e-9) and the kinetic energy
 *    T⁺ − W_field of the compliant collision, W_field its exact field work
 *    (1e-9 T⁻). Its u⁺ then differs from the compliant u⁺ less the fields'
 *    impulse J = m Δu − W P (computed here) by what the field's work and
 *    impulse disagree on over the collision's span, printed (1.7e-3 V at
 *    most on 12 s; docs/compare.md).
 * 3. The calibrated rigid run over ≥ 20 collisions: as many collisions as the
 *    compliant run, paired one to one, no mismatch, and each collision
 *    starting within the accumulated contact durations of the compliant
 *    collisions up to it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

typedef struct {
    cr_system *sys;
    cr_monitor *mon;
} run_t;

static run_t run_rigid_newton(cr_model *model)
{
    char msg[512];
    cr_law_params p;
    cr_law_params_init(&p);
    p.restitution = 1.0;
    run_t r = {cr_system_create_rigid(model, CR_LAW_NEWTON, &p, msg, sizeof msg), NULL};
    if (!r.sys) {
        printf("FAIL: rigid system: %s\n", msg);
        exit(1);
    }
    r.mon = cr_monitor_create(r.sys);
    CHECK(cr_system_run(r.sys, 30.0) == CR_OK, "rigid run: %s", cr_system_last_error(r.sys));
    cr_monitor_finish(r.mon);
    return r;
}

static void done(run_t *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
}

/* Balls 0-3 of unit mass spaced along a line, 0 striking 1; balls 4, 5 far
 * off: at rest, or 4 striking 5 before anything else happens. */
static cr_model *line(int extra)
{
    const double x[6] = {0.0, 1.0, 10.0, 20.0, 100.0, 100.9}, v[6] = {1, 0, 0, 0, extra ? 1 : 0, 0};
    cr_model *m = cr_model_create();
    for (int i = 0; i < 6; i++)
        cr_model_add_ball(m, 1.0, 0.4, x[i], v[i]);
    cr_contact_params law;
    cr_contact_params_init(&law, 1e6, 1.5, 0.0, CR_RELEASE_GAP);
    cr_model_set_default_contact(m, &law);
    cr_settings s = *cr_model_settings(m);
    s.t_end = 30.0;
    cr_model_set_settings(m, &s);
    return m;
}

static void pairing(void)
{
    cr_model *ma = line(0), *mb = line(1);
    run_t a = run_rigid_newton(ma), b = run_rigid_newton(mb);
    size_t na = cr_monitor_collision_count(a.mon), nb = cr_monitor_collision_count(b.mon);
    cr_compare_runs_row rows[16];
    cr_compare_runs_summary s;
    int rc = cr_compare_runs(a.mon, b.mon, rows, 16, &s);
    printf("     pairing: %zu collisions against %zu; matched %zu, left %zu/%zu\n", na, nb,
           s.matched, s.unmatched_compliant, s.unmatched_rigid);
    CHECK(rc == CR_OK && na == 3 && nb == 4, "runs of 3 and 4 collisions (%zu, %zu)", na, nb);
    CHECK_REF(s.matched == 3 && s.unmatched_compliant == 0 && s.unmatched_rigid == 1,
              "every collision paired, the extra one left (matched %zu, left %zu/%zu)", s.matched,
              s.unmatched_compliant, s.unmatched_rigid);
    int exact = 1;
    for (size_t k = 0; k < s.matched && k < 3; k++)
        exact &= rows[k].collision == (long)k && rows[k].rigid_collision == (long)k + 1 &&
                 rows[k].phase == 0.0 && rows[k].velocity_after_error == 0.0;
    CHECK_REF(exact && s.phase_drift == 0.0 && s.max_velocity_error == 0.0,
              "pairs k <-> k + 1 with zero phase and zero velocity error (drift %g)",
              s.phase_drift);
    CHECK(s.matched + 1 <= 16 && rows[s.matched].collision == -1 &&
              rows[s.matched].rigid_collision == 0,
          "the extra collision is a row of its own (rigid collision 0, no compliant one)");
    done(&a);
    done(&b);
    cr_model_destroy(ma);
    cr_model_destroy(mb);
}

typedef struct {
    double u_ref;  /* max |u⁺_law − (u⁺ − J/m)| / V */
    double ratio;  /* max |P_law,j / P_law,ref − α_j| */
    double energy; /* |T(u⁺_law) − (T⁺ − W_field)| / T⁻ */
} mapping;

/* The energetic law on compliant collision k's configuration with its α and
 * the κ the calibration lends. */
static mapping mapping_error(const cr_monitor *mon, const cr_calibrated_rigid *cal, size_t k)
{
    mapping out = {INFINITY, INFINITY, INFINITY};
    cr_collision_info info;
    size_t nb = 0, nr = 0;
    cr_monitor_get_collision(mon, k, &info);
    const size_t *bodies = cr_monitor_collision_bodies(mon, k, &nb);
    const double *u0 = cr_monitor_collision_velocities(mon, k, 0, &nb);
    const double *u1 = cr_monitor_collision_velocities(mon, k, 1, &nb);
    const cr_collision_record *rec = cr_monitor_collision_contacts(mon, k, &nr);
    /* masses from the collision's first episode that holds each body */
    double *m = calloc(nb, sizeof(double)), *alpha = calloc(nb, sizeof(double));
    double *J = calloc(nb, sizeof(double)), V = 0.0;
    size_t ne = 0;
    const size_t *eps = cr_monitor_collision_episodes(mon, k, &ne);
    for (size_t q = 0; q < nb; q++)
        for (size_t e = 0; e < ne && m[q] == 0.0; e++) {
            size_t n = 0;
            const size_t *b = cr_monitor_bodies(mon, eps[e], &n);
            const double *mass = cr_monitor_masses(mon, eps[e], &n);
            for (size_t i = 0; i < n; i++)
                if (b[i] == bodies[q])
                    m[q] = mass[i];
        }
    /* contacts of a chain collision join neighbouring bodies of the list */
    size_t ref = 0;
    for (size_t q = 0; q < nb; q++) {
        J[q] = m[q] * (u1[q] - u0[q]);
        V = fmax(V, fabs(u0[q]));
    }
    for (size_t j = 0; j < nr; j++) {
        size_t q = rec[j].body_a - bodies[0]; /* the pair joins q and q + 1 */
        alpha[q] = rec[j].alpha;
        J[q] += rec[j].impulse;
        J[q + 1] -= rec[j].impulse;
        if (rec[j].contact == info.reference)
            ref = q;
    }
    cr_impact *imp = cr_impact_create_chain(nb, m, u0);
    cr_law_result *res = cr_law_result_create();
    cr_law_params p;
    cr_law_params_init(&p);
    p.kappa = cr_calibrated_rigid_kappa(cal, k);
    p.alpha = alpha;
    p.reference = ref;
    if (imp && res && cr_law_solve(imp, CR_LAW_ENERGETIC, &p, res) == CR_OK &&
        cr_law_result_outcome_count(res) >= 1) {
        const double *u = cr_law_result_velocity(res, 0), *P = cr_law_result_impulse(res, 0);
        double T = 0.0;
        out.u_ref = out.ratio = 0.0;
        for (size_t q = 0; q < nb; q++) {
            out.u_ref = fmax(out.u_ref, fabs(u[q] - (u1[q] - J[q] / m[q])) / V);
            T += 0.5 * m[q] * u[q] * u[q];
        }
        for (size_t j = 0; j + 1 < nb; j++)
            out.ratio = fmax(out.ratio, fabs(P[j] / P[ref] - alpha[j]));
        out.energy = fabs(T - (info.T_plus - info.field_work)) / info.T_minus;
    }
    cr_law_result_destroy(res);
    cr_impact_destroy(imp);
    free(m);
    free(alpha);
    free(J);
    return out;
}

static void calibrated_cradle(void)
{
    cr_model *model = tu_load_model("pendulum-cradle-5.yaml");
    if (!model) {
        CHECK(0, "pendulum-cradle-5.yaml");
        return;
    }
    cr_settings s = *cr_model_settings(model);
    s.t_end = 12.0;
    cr_model_set_settings(model, &s);
    char msg[512];
    cr_system *cs = tu_system(model);
    cr_monitor *cm = cr_monitor_create(cs);
    CHECK(cr_system_run(cs, s.t_end) == CR_OK, "compliant run: %s", cr_system_last_error(cs));
    cr_monitor_finish(cm);
    size_t nc = cr_monitor_collision_count(cm);

    /* the calibration, then the mapping regression */
    size_t pairs = cr_model_contact_count(model);
    cr_calibrated_rigid *cal = cr_calibrated_rigid_create(cm, pairs, msg, sizeof msg);
    if (!cal) {
        CHECK(0, "calibration: %s", msg);
        return;
    }
    mapping worst = {0.0, 0.0, 0.0};
    for (size_t k = 0; k < nc; k++) {
        mapping e = mapping_error(cm, cal, k);
        worst.u_ref = isnan(e.u_ref) ? INFINITY : fmax(worst.u_ref, e.u_ref);
        worst.ratio = isnan(e.ratio) ? INFINITY : fmax(worst.ratio, e.ratio);
        worst.energy = isnan(e.energy) ? INFINITY : fmax(worst.energy, e.energy);
    }
    printf("     mapping regression: %zu collisions; the energetic law with each one's alpha, "
           "kappa: impulse ratios to %.3g, energy T+ - W_field to %.3g T-; its u+ against u+ - "
           "J/m: %.3g V\n",
           nc, worst.ratio, worst.energy, worst.u_ref);
    CHECK_SELF(nc >= 20 && worst.ratio <= 1e-9 && worst.energy <= 1e-9,
               "mapping regression (energetic law on each collision's configuration): ratios %.3g, "
               "energy %.3g T- over %zu collisions",
               worst.ratio, worst.energy, nc);

    /* the calibrated rigid run */
    double *alpha = calloc(pairs, sizeof(double));
    for (size_t c = 0; c < pairs; c++)
        alpha[c] = 1.0;
    cr_law_params lp;
    cr_law_params_init(&lp);
    lp.alpha = alpha;
    lp.kappa = 1.0;
    cr_system *rs = cr_system_create_rigid(model, CR_LAW_ENERGETIC, &lp, msg, sizeof msg);
    CHECK(cal && rs, "calibration and rigid system: %s", msg);
    if (!cal || !rs) {
        free(alpha);
        return;
    }
    cr_calibrated_rigid_attach(cal, rs, "calibrated");
    cr_monitor *rm = cr_monitor_create(rs);
    CHECK(cr_system_run(rs, s.t_end) == CR_OK, "rigid run: %s", cr_system_last_error(rs));
    cr_monitor_finish(rm);
    cr_calibrated_rigid_finish(cal, cr_system_get_time(rs));
    size_t nmis = 0, applied = 0, nr = cr_monitor_collision_count(rm);
    cr_calibrated_rigid_mismatches(cal, &nmis);
    cr_calibrated_rigid_collisions(cal, &applied);
    cr_compare_runs_row *rows = calloc(nc + nr, sizeof(*rows));
    cr_compare_runs_summary sum;
    cr_compare_runs(cm, rm, rows, nc + nr, &sum);
    double acc = 0.0, worst_phase = 0.0;
    int within = 1;
    for (size_t k = 0; k < sum.matched; k++) {
        cr_collision_info c;
        cr_monitor_get_collision(cm, (size_t)rows[k].collision, &c);
        acc += c.t_end - c.t_start;
        worst_phase = fmax(worst_phase, fabs(rows[k].phase) / acc);
        within &= fabs(rows[k].phase) <= acc;
    }
    printf("     calibrated rigid run: %zu collisions against %zu compliant, %zu applied, %zu "
           "mismatches; paired %zu; |phase| up to %.3g of the accumulated contact time; mean "
           "du+/V %.3g\n",
           nr, nc, applied, nmis, sum.matched, worst_phase, sum.mean_velocity_error);
    CHECK(nr == nc && applied == nc && nmis == 0 && sum.matched == nc,
          "calibrated: one rigid collision per compliant one (%zu / %zu, %zu mismatches)", nr, nc,
          nmis);
    CHECK(within,
          "calibrated: every collision starts within the accumulated contact durations "
          "(worst %.3g of them)",
          worst_phase);
    free(rows);
    free(alpha);
    cr_monitor_destroy(rm);
    cr_system_destroy(rs);
    cr_calibrated_rigid_destroy(cal);
    cr_monitor_destroy(cm);
    cr_system_destroy(cs);
    cr_model_destroy(model);
}

int main(void)
{
    pairing();
    calibrated_cradle();
    return tu_finish("calibrated");
}
