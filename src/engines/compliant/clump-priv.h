/**
 * @file clump-priv.h (private: the compliant engine of planar rigid bodies)
 * @brief Planar rigid bodies (x, y, θ), each a clump of discs fixed in its
 * frame (cr_clump, model/model.h), striking each other, fixed discs and walls
 * through the pools' contact laws (issue 25, first step). Newton–Euler in the
 * plane: m v̇ = Σ f n, J ω̇ = Σ r × f n with r = R(θ) s the lever arm of the
 * feature's centre (frictionless: the force passes through it). CVODES BDF
 * with its own difference-quotient dense Jacobian; every closing, maximum
 * compression and release is located by CVODES's root finding; impulses
 * ∫ f dt, ∫ f n dt and the dissipated work are quadratures. Model bodies
 * outside every clump are clumps of one without rotation. Every feature pair
 * of two bodies is a candidate (no neighbour search: small models).
 *
 * State (scaled by δ* and V, as the pool): per body its displacement
 * (x − x₀)/δ*, its turn (θ − θ₀) ρ/δ*, then v/V and ω ρ/V, ρ the body's
 * largest lever arm plus radius (1 without rotation).
 */
#ifndef CRADLE_CLUMP_PRIV_H
#define CRADLE_CLUMP_PRIV_H

#include <stddef.h>

#include "cradle/event.h"
#include "cradle/model.h"
#include "cradle/system.h"

typedef struct cr_clumps cr_clumps;

/** The engine of a dim-2 model with clumps. @return NULL with the reason. */
cr_clumps *cr_clumps_create(const cr_model *model, char *msg, size_t msglen);
void cr_clumps_destroy(cr_clumps *c);
int cr_clumps_set_tolerances(cr_clumps *c, double rtol, double atol);
/** Integrates to @p t_end > 0 (s). */
int cr_clumps_run(cr_clumps *c, double t_end);
/** Async-signal-safe: the run stops before its next step (CR_ERR_INTERRUPTED). */
void cr_clumps_request_stop(cr_clumps *c);
const char *cr_clumps_last_error(const cr_clumps *c);
/** CVODES counters of the whole run, restarts, events and outputs. */
cr_run_stats cr_clumps_get_stats(const cr_clumps *c);

size_t cr_clumps_body_count(const cr_clumps *c);
double cr_clumps_get_time(const cr_clumps *c);
/** Body @p b: centre of mass x (2), velocity v (2), angle and angular velocity. */
void cr_clumps_get_body(const cr_clumps *c, size_t b, double *x, double *v, double *theta,
                        double *omega);
/** Mass and moment of inertia (0 for a body without rotation). */
void cr_clumps_get_inertia(const cr_clumps *c, size_t b, double *mass, double *J);
double cr_clumps_kinetic_energy(const cr_clumps *c);
double cr_clumps_dissipated_work(const cr_clumps *c);
/** Σ m v (2 values) and Σ (x × m v + J ω) about the point @p o. */
void cr_clumps_momentum(const cr_clumps *c, double *mom);
double cr_clumps_angular_momentum(const cr_clumps *c, const double *o);

/** Contacts: feature pairs (i, j), i < j, of model bodies, or feature i and wall w (j = −1 − w). */
size_t cr_clumps_contact_count(const cr_clumps *c);
void cr_clumps_contact_features(const cr_clumps *c, size_t k, long *i, long *j);
/** ∫ f dt (N s) and ∫ f n dt (2 values, may be NULL) of contact k. */
double cr_clumps_contact_impulse(const cr_clumps *c, size_t k, double *vec);
/** Overlap δ (m), rate δ̇ (m/s), normal (2) and force (N) of contact k now. */
void cr_clumps_contact_now(const cr_clumps *c, size_t k, double *delta, double *rate, double *n,
                           double *force);
/** The contacts of feature @p f (increasing), @p n of them. */
const size_t *cr_clumps_feature_contacts(const cr_clumps *c, size_t f, size_t *n);
/** Feature @p f's centre (2) and velocity v + ω × r (2) now. */
void cr_clumps_feature(const cr_clumps *c, size_t f, double *x, double *v);
/** The clump of each feature is a body; bodies ≥ the model's clump count are
 * clumps of one. */
size_t cr_clumps_feature_body(const cr_clumps *c, size_t f);
/** Internal scales: δ* (m), V (m/s), and the time δ* / V (s). */
void cr_clumps_scales(const cr_clumps *c, double *L, double *V, double *T);
/** Called at t = 0, every @p interval (s; ≤ 0: δ* / (4V), at least a
 * thousandth of the run) and the end; after every root return
 * with the index of its first event. Non-zero stops the run with that code. */
typedef int (*cr_clumps_out_fn)(void *user);
typedef int (*cr_clumps_ev_fn)(void *user, size_t first);
void cr_clumps_set_callbacks(cr_clumps *c, double interval, cr_clumps_out_fn out,
                             cr_clumps_ev_fn ev, void *user);
size_t cr_clumps_event_count(const cr_clumps *c);
const cr_event *cr_clumps_events(const cr_clumps *c);

#endif
