/**
 * @file laws.h
 * @brief Rigid impact laws on one general interface.
 *
 * An impact configuration holds, in the coordinates of the model: the mass
 * matrix M (n × n, symmetric positive definite), the constraint gradients W
 * (n × m, one column wᵢ per closed contact, gᵢ ≥ 0 admissible), optional
 * kinematic excitation terms ŵ (Glocker GDI eq. 4:
 * γᵢ = wᵢᵀu + ŵᵢ) and the pre-impact velocity u⁻. A law maps it to u⁺ and
 * the contact impulses P with M(u⁺ − u⁻) = W P. The module knows nothing about
 * compliant contacts.
 */
#ifndef CRADLE_LAWS_H
#define CRADLE_LAWS_H

#include "cradle/common.h"

typedef struct cr_impact cr_impact;
typedef struct cr_law_result cr_law_result;

/** The laws. */
typedef enum {
    CR_LAW_NEWTON = 0,         /**< Newton inequality law, per-contact εᵢ (003 eq. 6-8), LCP */
    CR_LAW_GLOBAL_DISSIPATION, /**< global dissipation index (000 eq. 56-60; 003 eq. 26-31) */
    CR_LAW_MAX_DISSIPATION,    /**< maximal dissipation, u⁺ = prox_T(u⁻) (000 eq. 52-53) */
    CR_LAW_POISSON,            /**< Poisson, compression LCP then expansion (002 eq. 10-17) */
    CR_LAW_ENERGETIC,  /**< energetic coefficient κ + impulse ratios α (001 eq. 17-19, 38) */
    CR_LAW_SEQUENTIAL, /**< sequential impacts (Han & Gilmore; 001 sect. 3.2) */
    CR_LAW_MOSTERMAN,  /**< Newton with Mosterman's pre-collision rule (002 eq. 23-29) */
    CR_LAW_PANDREA,    /**< Newton as equalities, P = −G⁻¹(I + K)γ⁻ (004 eq. 4, 7, 14) */
    CR_LAW_LZB,        /**< Liu, Zhao & Brogliato's differential law in the impulse domain,
                            from the pair laws (K, n, eⱼ) alone (docs/design.md) */
    CR_LAW_COUNT
} cr_law_id;

/** Parameters of every law (a plain input struct); fill with cr_law_params_init. */
typedef struct {
    double restitution;         /**< ε of every contact (default 1) */
    const double *restitutions; /**< per-contact εᵢ (Newton, Poisson, sequential), or NULL */
    double kappa;               /**< energetic law: κ = T⁺/T⁻ */
    const double *alpha;        /**< energetic law: αⱼ = Pⱼ / P_ref, m values (α_ref is 1) */
    size_t reference;           /**< energetic law: the reference contact */
    int max_stages;             /**< sequential law: cap on the stages of one branch (64);
                                     Mosterman: 10 × max_stages iterations. 1..CR_LAW_MAX_STAGES */
    int max_outcomes;           /**< sequential law: cap on the branches explored (4096);
                                     1..CR_LAW_MAX_OUTCOMES */
    const double *eta;          /**< Mosterman: per-contact η, or NULL for η = 1 − εᵢ */
    const double *stiffness;    /**< LZB: per-contact K of f = K δⁿ (N/mⁿ), or NULL for all 1
                                     (with equal n only the ratios matter) */
    const double *exponent;     /**< LZB: per-contact n in [1, 10], or NULL for all 3/2 (Hertz) */
    const double *energetic;    /**< LZB: per-contact energetic restitution eⱼ in [0, 1], or NULL
                                     for `restitution` (refused when `restitutions` is set:
                                     those are Newton's, not the pair laws') */
    double tolerance;           /**< LZB: relative tolerance of the integration in the impulse
                                     domain, 1e-14..1e-3 (1e-10) */
    const double *poisson_restitutions; /**< Poisson: per-contact eᴾ (measured expansion /
                                             compression impulse), or NULL for `restitutions` /
                                             `restitution`. The other laws ignore it. */
    /**
     * 1: restitutions above 1 are taken as they are (measured on undamped chains, where
     * the striker's contact gives eᴾ > 1) by the laws whose equations are defined for
     * any ε ≥ 0: newton, global-dissipation, poisson, sequential, pandrea. Their answer
     * may then gain energy (T⁺ > T⁻). mosterman (η = 1 − ε) and lzb (energetic
     * restitution) still refuse them. 0 (default): every restitution must lie in [0, 1].
     */
    int superelastic;
} cr_law_params;

/** What a law found. */
typedef enum {
    CR_LAW_OK = 0,           /**< one solution satisfying the law's conditions */
    CR_LAW_INFEASIBLE,       /**< no admissible solution (e.g. (α, κ) outside 001 eq. 19/28) */
    CR_LAW_MULTIPLE,         /**< several outcomes (sequential law), all reported */
    CR_LAW_NOT_TERMINATED,   /**< a branch hit the stage cap; the outcomes found are reported */
    CR_LAW_SOLVER_FAILED,    /**< the LCP / NNLS solver did not converge */
    CR_LAW_NEGATIVE_IMPULSE, /**< an equality law returned Pᵢ < 0 (a pulling contact); reported */
    CR_LAW_TOO_LARGE         /**< the case exceeds the law's size cap (below); nothing computed */
} cr_law_status;

/**
 * Size caps of the law core. Its cost grows as a power of the size (measured on
 * chains with one striker, one core, docs/errors.md): forming M⁻¹W and G = WᵀM⁻¹W
 * is dense, O(n³); Newton's and Poisson's LCPs (Lemke) grow as m²–m³ up to 1000
 * contacts and faster beyond; the dissipation laws' non-negative least squares
 * as m^3.4. At the caps every law takes a few seconds at most. A case above a
 * cap gets the status CR_LAW_TOO_LARGE instead of an answer hours later.
 */
#define CR_LAW_MAX_DOFS 1000
#define CR_LAW_MAX_CONTACTS 1000
/** global-dissipation and max-dissipation (non-negative least squares). */
#define CR_LAW_MAX_CONTACTS_NNLS 500
/** sequential: every subset of the closed contacts is a branch (2^m). */
#define CR_LAW_MAX_CONTACTS_SEQUENTIAL 20
/** mosterman: dense collision steps on fixed buffers. */
#define CR_LAW_MAX_CONTACTS_MOSTERMAN 64
/** Largest accepted cr_law_params::max_stages and ::max_outcomes (the work of the
 * sequential law and Mosterman's iteration is proportional to them). */
#define CR_LAW_MAX_STAGES 1000
#define CR_LAW_MAX_OUTCOMES 100000

CR_EXPORT void cr_law_params_init(cr_law_params *p);

/** @return a configuration with n dofs and m contacts (M = I, W = 0, u⁻ = 0), or NULL. */
CR_EXPORT cr_impact *cr_impact_create(size_t ndof, size_t ncontacts);
CR_EXPORT void cr_impact_destroy(cr_impact *imp);
/** Full mass matrix, row-major n × n (must be symmetric positive definite). */
CR_EXPORT int cr_impact_set_mass(cr_impact *imp, const double *M);
CR_EXPORT int cr_impact_set_mass_diagonal(cr_impact *imp, const double *m);
/** Column wᵢ of W (length n): γᵢ = wᵢᵀu + ŵᵢ. */
CR_EXPORT int cr_impact_set_gradient(cr_impact *imp, size_t contact, const double *w);
CR_EXPORT int cr_impact_set_excitation(cr_impact *imp, const double *what);
CR_EXPORT int cr_impact_set_velocity(cr_impact *imp, const double *u_minus);

/**
 * Builder for a 1-D chain of N balls: n = N, m = N − 1, contact c between balls
 * c and c + 1 with γ_c = u_{c+1} − u_c. Creates the configuration.
 */
CR_EXPORT cr_impact *cr_impact_create_chain(size_t nballs, const double *masses,
                                            const double *u_minus);
/**
 * Builder for planar discs (no rotation, frictionless): n = 2N with
 * u = (ẋ₁, ẏ₁, ẋ₂, …); contact k joins discs pairs[2k], pairs[2k+1] at centres
 * xy, with wᵢ along the unit line of centres from the first to the second disc
 * (γ = relative normal velocity, positive separating).
 */
CR_EXPORT cr_impact *cr_impact_create_discs(size_t ndiscs, const double *masses, const double *xy,
                                            size_t ncontacts, const size_t *pairs,
                                            const double *u_minus);

/** A rigid body for cr_impact_create_rigid (principal axes parallel to the world axes). */
typedef struct {
    double mass;       /**< kg */
    double inertia[3]; /**< principal moments Jx, Jy, Jz about the centre of mass, kg m² */
    double v[3];       /**< velocity of the centre of mass before impact, m/s */
    double omega[3];   /**< angular velocity before impact, rad/s */
} cr_rigid_body;

/** A contact point of cr_impact_create_rigid. */
typedef struct {
    int body_a, body_b; /**< bodies (index, or −1 for the fixed ground); impulse +P n acts on b */
    double r_a[3];      /**< contact point relative to the centre of body a, m */
    double r_b[3];      /**< contact point relative to the centre of body b, m */
    double normal[3];   /**< unit normal from a to b */
} cr_rigid_contact;

/**
 * Builder for rigid bodies in screw coordinates (004): each body has
 * u = (v, ω) (6 dofs), M = diag(m, m, m, Jx, Jy, Jz), and contact k the column
 * (n, r_b × n) on body b and −(n, r_a × n) on body a, so γ = n·(v_b + ω_b × r_b
 * − v_a − ω_a × r_a). Pandrea's screw {U} = (n, r × n) with velocity screw
 * (ω, v) and the swap matrix η is the same product wᵀu.
 */
CR_EXPORT cr_impact *cr_impact_create_rigid(size_t nbodies, const cr_rigid_body *bodies,
                                            size_t ncontacts, const cr_rigid_contact *contacts);

/**
 * Builder for one rigid body turning about a fixed point (a spherical joint at
 * @p r_pin from the centre; 004 sect. 4, the constrained body): the dofs are ω
 * (3), the velocity of the centre being v = ω × (−r_pin); M = J + m(|r|²I − r rᵀ)
 * (parallel axes), and a contact at r_k with normal n (body = body_b, or body_a
 * with the opposite sign; the other side fixed) has the column (r_k − r_pin) × n.
 * u⁻ is body->omega; body->v is ignored (it is implied).
 */
CR_EXPORT cr_impact *cr_impact_create_pinned(const cr_rigid_body *body, const double *r_pin,
                                             size_t ncontacts, const cr_rigid_contact *contacts);

CR_EXPORT size_t cr_impact_dof_count(const cr_impact *imp);
CR_EXPORT size_t cr_impact_contact_count(const cr_impact *imp);
CR_EXPORT const char *cr_impact_last_error(const cr_impact *imp);
/** Mass matrix, row-major n × n. */
CR_EXPORT void cr_impact_get_mass(const cr_impact *imp, double *M);
/** Constraint gradients W, row-major n × m (column i is wᵢ). */
CR_EXPORT void cr_impact_get_gradients(const cr_impact *imp, double *W);
/** Pre-impact velocity u⁻ (n values). */
CR_EXPORT void cr_impact_get_velocity(const cr_impact *imp, double *u);
/**
 * Checks that the laws can work on the configuration: M symmetric positive
 * definite and not singular to working precision (condition number below 10¹⁵),
 * every gradient non-zero in the kinetic metric (Gᵢᵢ > 0), γ⁻, G and the kinetic
 * energy finite (masses and velocities near 10³⁰⁸ overflow). Sizes above the caps
 * are not checked here (cr_law_solve reports them as CR_LAW_TOO_LARGE).
 * @return CR_OK, or CR_ERR_INVALID with the reason in cr_impact_last_error and,
 * in @p contact (may be NULL), the contact at fault, −1 when it is M, −2 when it
 * is u⁻ (with M: the kinetic energy overflows).
 */
CR_EXPORT int cr_impact_check(cr_impact *imp, long *contact);
/** Pre-impact relative velocities γᵢ⁻ = wᵢᵀu⁻ + ŵᵢ. */
CR_EXPORT int cr_impact_get_gamma(cr_impact *imp, double *gamma);
/** Delassus matrix G = WᵀM⁻¹W, row-major m × m. */
CR_EXPORT int cr_impact_get_delassus(cr_impact *imp, double *G);
/**
 * Cosine of the kinetic angle between contacts i and j (001 eq. 39-40):
 * nᵢ·nⱼ in the kinetic metric = Gᵢⱼ / √(Gᵢᵢ Gⱼⱼ). Contacts are coupled when it
 * is negative (001 eq. 43). @return NAN on bad indices.
 */
CR_EXPORT double cr_impact_kinetic_cosine(cr_impact *imp, size_t i, size_t j);

CR_EXPORT cr_law_result *cr_law_result_create(void);
CR_EXPORT void cr_law_result_destroy(cr_law_result *r);

/**
 * Applies law @p law to the configuration. @return CR_OK when the law ran (its
 * physical verdict is cr_law_result_status, CR_LAW_TOO_LARGE above the size caps),
 * a negative code on invalid input (message in cr_impact_last_error). A result
 * never holds a non-finite u⁺ or P with a status other than a failure: such an
 * answer (overflow) becomes CR_LAW_SOLVER_FAILED with no outcomes.
 */
CR_EXPORT int cr_law_solve(cr_impact *imp, cr_law_id law, const cr_law_params *p, cr_law_result *r);

/**
 * Whether law @p law takes @p dofs dofs and @p contacts contacts (the caps
 * above), for a caller to ask before it builds a configuration of that size
 * (cr_impact_create's matrices are dense: 10⁴ dofs are 2.4 GB).
 * @return CR_LAW_OK, or CR_LAW_TOO_LARGE with cr_law_solve's message in @p msg.
 */
CR_EXPORT cr_law_status cr_law_size_check(cr_law_id law, size_t dofs, size_t contacts, char *msg,
                                          size_t msglen);

CR_EXPORT cr_law_status cr_law_result_status(const cr_law_result *r);
CR_EXPORT const char *cr_law_result_message(const cr_law_result *r);
/** Number of outcomes: 1, or several for the sequential law, 0 when infeasible. */
CR_EXPORT size_t cr_law_result_outcome_count(const cr_law_result *r);
/** u⁺ of outcome k (n values). */
CR_EXPORT const double *cr_law_result_velocity(const cr_law_result *r, size_t k);
/** Total contact impulses P of outcome k (m values). */
CR_EXPORT const double *cr_law_result_impulse(const cr_law_result *r, size_t k);
/** T⁺/T⁻ of outcome k. */
CR_EXPORT double cr_law_result_energy_ratio(const cr_law_result *r, size_t k);
/**
 * The law's own account of how it got there: Mosterman's collision sets per step
 * ("k=1 N1={0} N2={} P={1}; ..."), contacts numbered from 0. Empty for the others.
 */
CR_EXPORT const char *cr_law_result_trace(const cr_law_result *r);
/** Largest violation of the law's own conditions found by the residual check. */
CR_EXPORT double cr_law_result_residual(const cr_law_result *r);
/**
 * LZB: the work of compression W_c,j of each contact over the impact (m values,
 * summed over its compression phases), with T⁻ − T⁺ = Σⱼ (1 − eⱼ²) W_c,j.
 * NULL for the other laws.
 */
CR_EXPORT const double *cr_law_result_compression_work(const cr_law_result *r, size_t k);

CR_EXPORT const char *cr_law_name(cr_law_id law);
CR_EXPORT int cr_law_from_name(const char *name, cr_law_id *out);
/** The law name a mistyped @p name most likely meant ("newtn" → "newton"), or NULL. */
CR_EXPORT const char *cr_law_suggest(const char *name);
CR_EXPORT const char *cr_law_status_name(cr_law_status s);

#endif
