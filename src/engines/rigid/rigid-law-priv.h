/*
 * The law side of a rigid impact that chains (rigid-impact.c) and pools
 * (rigid-pool-impact.c) share (private): the law's parameters taken at
 * creation, and the pairwise sequential law both engines run instead of the
 * core's enumeration of orders (docs/design.md, "Rigid engine", "The law").
 * The geometry (which contacts, their γ, their effective masses, how an
 * impulse moves the bodies) comes in through callbacks.
 */
#ifndef CRADLE_RIGID_LAW_PRIV_H
#define CRADLE_RIGID_LAW_PRIV_H

#include <stddef.h>

#include "cradle/laws.h"

/* Never a loop: impacts resolved at one instant (a law that leaves contacts
 * approaching), and stages of the pairwise sequential law on m contacts,
 * before the run stops as stuck. */
#define CR_RIGID_MAX_IMPACTS_AT_ONCE 1000
#define CR_RIGID_MAX_STAGES(m) (1000 + 100 * (size_t)(m))

/* Laws that take a restitution per contact (all but maximum dissipation and
 * the energetic law). */
int cr_rigid_law_uses_restitution(cr_law_id law);

/*
 * The law checked (one of the core's) and its parameters taken: *@p given is
 * *@p p, or the defaults with restitution NaN (each pair's own) when @p p is
 * NULL, for the engine to read; *@p lp the same without the caller's arrays,
 * which the engine copies per pair or per contact and maps onto each impact.
 * @return CR_OK or CR_ERR_INVALID with the reason in @p msg.
 */
int cr_rigid_law_take(cr_law_id law, const cr_law_params *p, cr_law_params *given,
                      cr_law_params *lp, char *msg, size_t msglen);

/* The contacts of one impact as the sequential law sees them; ctx is the
 * engine's (its configuration and velocities). */
typedef struct {
    size_t m;
    void *ctx;
    /* γ of contact q from the current velocities (negative approaching) */
    double (*gamma)(void *ctx, size_t q);
    /* wᵀM⁻¹w of contact q: the inverse effective mass of a two-body impact */
    double (*inverse_mass)(void *ctx, size_t q);
    /* Newton's ε of contact q */
    double (*restitution)(void *ctx, size_t q);
    /* the impulse λ on contact q: u += M⁻¹ w λ */
    void (*apply)(void *ctx, size_t q, double lam);
} cr_rigid_stages;

/*
 * Han & Gilmore's pairwise order: at each stage the fastest approaching
 * contact (lowest index on ties) impacts alone under Newton's law with its ε,
 * λ = −(1 + ε) γ / (wᵀM⁻¹w) (003 eq. 6-8 with m = 1), added to P[q]. Ends
 * when nothing approaches faster than @p v_rest (slower contacts join by the
 * accumulation rule). @return CR_OK, or CR_ERR_SOLVER after
 * CR_RIGID_MAX_STAGES(m) stages (no message: the engine names the impact).
 */
int cr_rigid_sequential(const cr_rigid_stages *s, double v_rest, double *P);

#endif
