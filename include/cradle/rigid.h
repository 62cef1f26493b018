/**
 * @file rigid.h
 * @brief Rigid runs: a model run as rigid bodies, every impact resolved by a
 * law of the core, behind the same cr_system door as the compliant engines;
 * the per-impact parameter provider and the energetic law's κ clamps.
 */
#ifndef CRADLE_RIGID_H
#define CRADLE_RIGID_H

#include "cradle/common.h"
#include "cradle/laws.h"
#include "cradle/model.h"
#include "cradle/system.h"

/**
 * Builds the rigid engine for @p model: a chain (dim 1) or a pool (dim 2, a
 * rigid pool engine of its own: docs/design.md, "Rigid pools") run as rigid
 * bodies, event-driven, every impact resolved by @p law of the core
 * (docs/design.md, "Rigid engine"). Free flight is exact without fields or
 * under uniform gravity and integrated by CVODES under pendulums; persistent
 * contacts (a ball resting on a floor, a column) carry forces; accumulating
 * impacts switch to persistent contact. Each impact is an instantaneous
 * episode for the monitor.
 *
 * @p params (NULL: defaults, restitution from the pairs) is read per pair c of
 * the model (bodies c, c + 1), not per contact of an impact:
 * - restitution: ε of every pair; NaN: each pair's own, 1 for an undamped pair
 *   law, its restitution target where the model gives one, refused otherwise;
 *   restitutions: NULL, or one ε per pair. Laws other than max-dissipation and
 *   energetic use them.
 * - energetic: kappa (> 0) and alpha, one impulse weight per pair (≥ 0): in an
 *   impact whose reference pair is r (the fastest approach) αⱼ = alpha[j] / alpha[r].
 * - mosterman: eta, NULL or one η per pair. max_stages, max_outcomes: as the core.
 * - sequential: the engine takes Han & Gilmore's pairwise order (the core's
 *   law lists every order and subset; a run needs one outcome).
 * - lzb: K and n of each pair's contact law (cr_model_pair_law), its energetic
 *   restitution eⱼ from restitution / restitutions as above (1 for an undamped
 *   pair law: LZB is then the undamped compliant chain with a frozen
 *   configuration); stiffness, exponent and energetic of @p params are ignored.
 *
 * Pools (dim 2) have no fixed pairs: `restitution` is one ε for every
 * contact (NaN: each pair law's own, as above, with the model's default
 * target; `restitutions` is ignored), lzb takes each contact's pair law, and
 * the energetic law reads alpha[0], the weight of the contacts approaching at
 * an impact, and alpha[1], that of the contacts only touching (two values);
 * eta is ignored; per-impact providers are refused. A disc resting on
 * another under gravity (a stack) is refused at creation and stops a run in
 * which it forms (CR_ERR_SOLVER).
 *
 * Refused with a one-line reason in @p msg (NULL returned): a model with
 * links (a bilateral spring of finite stiffness is not rigid), a stack of
 * discs, a law parameter that is missing or out of range.
 */
CR_EXPORT cr_system *cr_system_create_rigid(const cr_model *model, cr_law_id law,
                                            const cr_law_params *params, char *msg, size_t msglen);
/**
 * For a rigid system: the law and its parameters as one line ("newton
 * (restitution 0.9)") into @p text. @return CR_OK, or CR_ERR_INVALID for a
 * compliant engine.
 */
CR_EXPORT int cr_system_rigid_law(const cr_system *sys, char *text, size_t len);
/**
 * Per-impact law parameters of a rigid run: called before each impact's law
 * with @p params filled as the engine would use them for this configuration
 * (contact j of the impact is pair first_pair + j of the model, pair_count
 * contacts; `reference` the index j of the fastest approaching pair;
 * per-contact arrays of pair_count values). @p impact counts the run's
 * impacts from 0. The provider may change any field; arrays it points to must
 * stay valid until it is called again or the run ends. The sequential law
 * reads `restitutions` only. Return CR_OK, or a negative code with one line in
 * @p msg: the run stops with that line (after "t = … s:") and CR_ERR_DOMAIN or
 * CR_ERR_MODEL when the provider returned it (a table that holds the impact
 * outside its axes, or does not describe it: the caller reports bad input),
 * else CR_ERR_SOLVER.
 */
typedef int (*cr_rigid_provider)(const cr_system *sys, size_t impact, size_t first_pair,
                                 size_t pair_count, cr_law_params *params, char *msg, size_t msglen,
                                 void *user);
/**
 * Sets the per-impact parameter provider of a rigid system before its run;
 * @p label (may be NULL) replaces the parameters in cr_system_rigid_law
 * ("energetic (calibrated: ...)"). After the run the same @p fn and @p user
 * may be set again to change the label only (what the run found: a table's
 * bounds). @return CR_ERR_INVALID for a compliant engine, a rigid pool (its
 * contacts are not model pairs) or another provider after the run.
 */
CR_EXPORT int cr_system_rigid_set_provider(cr_system *sys, cr_rigid_provider fn, void *user,
                                           const char *label);
/**
 * Widens an impact's configuration before its law (chains): called with the
 * bodies @p b0 … @p b1 the engine found (pairs in touch or within
 * rigid.touching); it may lower *b0 and raise *b1, to the bodies a compliant
 * collision involved (`--rigid calibrated`, cradle/calibrated.h). The pairs
 * between join the impact as if touching (their gaps closed for the law and
 * counted); a fixed body still ends a configuration.
 */
typedef void (*cr_rigid_span)(const cr_system *sys, double t, size_t *b0, size_t *b1, void *user);
/** Sets the span hook of a rigid chain before its run. @return CR_ERR_INVALID
 * for a compliant engine or a rigid pool. */
CR_EXPORT int cr_system_rigid_set_span(cr_system *sys, cr_rigid_span fn, void *user);
/** One impact whose κ was infeasible (cr_system_rigid_clamp_kappa). */
typedef struct {
    double t;          /**< time of the impact, s */
    size_t first_pair; /**< the impact's pairs: first_pair … first_pair + pair_count − 1 */
    size_t pair_count;
    double kappa;      /**< κ the parameters asked for (a provider's, or the law's) */
    double kappa_used; /**< the impact's feasible minimum used instead; for a fallback,
                            T⁺/T⁻ of the maximal-dissipation outcome */
    int fallback;      /**< 1: no κ ≤ 1 along α fits, maximal dissipation resolved it */
} cr_kappa_clamp;
/**
 * Energetic law of a rigid chain: with @p on 1, an impact whose κ lies below
 * the smallest κ its configuration and α admit is resolved with that κ_min
 * instead of stopping the run as infeasible, and recorded
 * (cr_system_rigid_kappa_clamps). κ_min is the larger of 1 − (aᵀγ⁻)² /
 * (2 aᵀGa T⁻), where the energy balance along the impulse direction a has a
 * double root (the impulse leaving the least kinetic energy along a), and the
 * κ whose impulse just stops every contact approaching. When κ_min > 1 (no
 * dissipative impulse along a separates the contacts) or no κ fits, the
 * impact is resolved by maximal dissipation (u⁺ = prox_T(u⁻)) and recorded as
 * a fallback. Meant for κ and α borrowed from elsewhere (`--rigid
 * calibrated`): a grazing re-contact holds less approach energy than the
 * borrowed loss. Before the run. @return
 * CR_ERR_INVALID for a compliant engine, a rigid pool, another law or after
 * the run.
 */
CR_EXPORT int cr_system_rigid_clamp_kappa(cr_system *sys, int on);
/**
 * The impacts cr_system_rigid_clamp_kappa raised, in order; *@p n their count.
 * NULL with *@p n = 0 when none (or clamping is off; @p on, may be NULL, gets
 * 1 when it is on).
 */
CR_EXPORT const cr_kappa_clamp *cr_system_rigid_kappa_clamps(const cr_system *sys, size_t *n,
                                                             int *on);
/** Of the impacts cr_system_rigid_kappa_clamps records, how many were resolved
 * by maximal dissipation (fallback); the others had κ raised. 0 for a system
 * that does not clamp. */
CR_EXPORT size_t cr_system_rigid_kappa_fallbacks(const cr_system *sys);

#endif
