/**
 * @file model.h
 * @brief A compliant multibody model in dim = 1, 2 or 3 dimensions: bodies (mass,
 * radius, position and velocity vectors, fixed bodies), half-plane (half-space) walls, what
 * joins the bodies (unilateral contact laws per pair or from per-body
 * materials, bilateral links), external fields, restitution targets, and the
 * run settings a model file carries. Every engine is built from a cr_model
 * (cr_system_create): dim 1 is a chain, dim 2 a planar pool, dim 3 spheres.
 *
 * dim 1 (chains): bodies are given in increasing position; pair c joins bodies
 * c and c + 1, and only neighbours interact.
 * dim 2 (pools) and 3 (spheres, the same pool engine): any two bodies may
 * touch; walls are half-planes (half-spaces in dim 3).
 * A wall is a fixed body of zero radius (a floor, the wall a bead column hits):
 * it never moves and its mass does not enter any sum. The coordinate along the
 * line is the arc length for pendulum-suspended balls (contacts act along it:
 * exact when impacts happen at the bottom of the swing, as in a cradle).
 * The module knows nothing about CVODE or HDF5.
 */
#ifndef CRADLE_MODEL_H
#define CRADLE_MODEL_H

#include "cradle/common.h"
#include "cradle/contact.h"

/**
 * Integration method of the compliant run (docs/performance.md, "Integration
 * methods"). CR_METHOD_AUTO (the default) picks CR_METHOD_ERK for
 * chains with neither links nor damped contacts of up to 100 bodies,
 * CR_METHOD_ADAMS_FIXED_POINT for longer ones, and CR_METHOD_BDF otherwise
 * (src/engines/compliant/sim-window.c, cr_sim_method); pools run BDF under CR_METHOD_AUTO and
 * CR_METHOD_BDF, Adams under CR_METHOD_ADAMS (fixed point when lightly damped,
 * see cr_solver), and Adams with fixed-point iteration under
 * CR_METHOD_ADAMS_FIXED_POINT (the same as `solver: fixed-point`).
 */
typedef enum {
    CR_METHOD_BDF = 0,               /**< CVODES BDF, Newton iteration with a banded LU */
    CR_METHOD_ADAMS = 1,             /**< CVODES Adams, Newton iteration with a banded LU */
    CR_METHOD_ADAMS_FIXED_POINT = 2, /**< CVODES Adams, fixed-point iteration: no Jacobian */
    CR_METHOD_AUTO = 3,              /**< chosen from the model (cr_sim_method) */
    CR_METHOD_ERK = 4                /**< ARKODE explicit Runge-Kutta (chains only) */
} cr_method;

/** The model file's name of @p method ("bdf", "adams", "adams-fixed-point",
 * "auto", "erk"); NULL for any other value (e.g. −1, cr_system_method of a
 * pool). */
CR_EXPORT const char *cr_method_name(int method);

/**
 * Nonlinear iteration of a pool's implicit steps (chains are always banded
 * Newton): Newton with a linear solver, or fixed-point iteration. The
 * thresholds of the automatic choice are CR_SOLVER_AUTO_GMRES_ABOVE bodies and
 * CR_SOLVER_AUTO_DAMPING (docs/model-format.md, integration.solver).
 */
typedef enum {
    /** with method Adams and every contact law lightly damped, fixed-point;
     * otherwise Newton with KLU up to CR_SOLVER_AUTO_GMRES_ABOVE bodies, GMRES above */
    CR_SOLVER_AUTO = 0,
    CR_SOLVER_KLU,        /**< Newton, sparse direct (SuiteSparse KLU): exact, fill-in ~N^1.5 */
    CR_SOLVER_GMRES,      /**< Newton, SPGMR with a per-body block preconditioner: O(N) */
    CR_SOLVER_FIXED_POINT /**< Adams with fixed-point iteration: no Jacobian (the method
                               setting is then ignored); for non-stiff pools */
} cr_linear_solver;

/**
 * The automatic choice takes fixed-point iteration when no contact law's
 * damping number C δ*^m T / μ (the damping rate at the characteristic overlap
 * δ*, times the characteristic time T = δ* / V) exceeds this.
 */
#define CR_SOLVER_AUTO_DAMPING 1.0

/**
 * Chains and pools: which bodies the integrator steps (docs/design.md,
 * "Active region" and "Pool engine"). The active region integrates only the
 * bodies near a contact that can still change and moves the others in exact
 * free flight, which needs a model without fields. The environment variable
 * CRADLE_ACTIVE_REGION=off|on overrides the setting (a debugging aid).
 */
typedef enum {
    CR_ACTIVE_REGION_AUTO = 0, /**< the active region without fields, the whole chain with */
    CR_ACTIVE_REGION_ON,       /**< the active region; a model with fields is refused */
    CR_ACTIVE_REGION_OFF       /**< every body at every step (the reference) */
} cr_active_region;

/** Above this many bodies the automatic choice is GMRES (KLU's fill-in grows ~N^1.5). */
#define CR_SOLVER_AUTO_GMRES_ABOVE 2000

/**
 * Bodies a model may hold (a 10⁶-bead chain needs ~1.3 GB); every mass, radius,
 * position and speed lies within CR_MAX_MAGNITUDE⁻¹ … CR_MAX_MAGNITUDE in SI units,
 * where ½mv², K δⁿ and their sums stay finite.
 */
#define CR_MAX_BODIES 1000000
#define CR_MAX_MAGNITUDE 1e100

/** Default relative and absolute tolerances, Jacobian floor and neighbour skin. */
#define CR_DEFAULT_RTOL 1e-10
#define CR_DEFAULT_ATOL 1e-12
#define CR_DEFAULT_JACOBIAN_FLOOR 1e-6
#define CR_DEFAULT_SKIN 0.5

/**
 * Trajectory fields a run may leave out (`output.fields`, docs/model-format.md,
 * "Output"): bits of cr_settings.output_omit. /trajectory/time is written
 * whenever any field is. Overlap, force and impulse are per-contact series of
 * chains only (a pool's contacts appear during the run; its per-contact
 * history is in /events and /episodes).
 */
enum {
    CR_OUT_POSITION = 1,
    CR_OUT_VELOCITY = 2,
    CR_OUT_ENERGIES = 4, /**< kinetic, potential energy and dissipated work */
    CR_OUT_OVERLAP = 8,
    CR_OUT_FORCE = 16,
    CR_OUT_IMPULSE = 32
};
/** Every field: omitting all of them is `output.fields: none` (no trajectory). */
#define CR_OUT_ALL 63
#define CR_OUT_PER_CONTACT (CR_OUT_OVERLAP | CR_OUT_FORCE | CR_OUT_IMPULSE)
/** Body ranges `output.bodies` may list (each a single body or first-last). */
#define CR_OUTPUT_MAX_RANGES 64
/** Rows the default sampling writes before it widens its intervals tenfold
 * (and again at every further such count), with a one-line notice, unless
 * `output.max_rows` says otherwise. */
#define CR_OUTPUT_DEFAULT_ROW_CAP 20000
/** The largest `output.max_rows`. */
#define CR_MAX_OUTPUT_ROWS_CAP 10000000L

/** The range of `integration.accuracy` (relative to the velocity scale V). */
#define CR_ACCURACY_MIN 1e-10
#define CR_ACCURACY_MAX 1e-2

/**
 * Which compliant engine runs a chain (`integration.engine`, docs/design.md,
 * "One engine"): the contact-graph (pool) engine runs every model; the chain
 * path is its specialised 1-D case, kept because it measures faster
 * (docs/performance.md, "Chain path against the contact graph").
 */
typedef enum {
    CR_ENGINE_AUTO = 0, /**< the chain path for dim 1, the contact graph otherwise */
    CR_ENGINE_CHAIN,    /**< the chain path (dim 1 only) */
    /** the contact-graph engine; a chain runs as its embedding in dim 2
     * (cr_model_embed with R = I, t = 0: walls become half-planes) */
    CR_ENGINE_GRAPH
} cr_engine_path;

/** Run settings carried by a model file (a plain input struct). */
typedef struct {
    double t_end;           /**< end time in s; ≤ 0: automatic (see cr_sim_run) */
    double rtol;            /**< relative tolerance (CVODES, or ARKODE under erk) */
    double atol;            /**< absolute tolerance on the scaled state (overlap / δ*, v / V) */
    double output_interval; /**< trajectory sampling interval in s; ≤ 0: automatic */
    cr_method method;       /**< auto (default), BDF, Adams, Adams with fixed point or ERK */
    /** floor, relative to δ*, of δ in the unbounded damping term of the Jacobian
     * (cr_contact_partials); changes cost, never results */
    double jacobian_floor;
    cr_linear_solver solver; /**< pools: Newton's linear solver */
    double skin;             /**< pools: neighbour-list skin relative to the largest radius */
    /** pools: 1 freezes each disc pair's normal at its first touch (linearised
     * overlap along it, the geometry rigid laws assume; `integration.normals:
     * frozen`); 0 (default): the normal turns with the line of centres */
    int frozen_normals;
    cr_active_region active_region; /**< active region or every body (default auto) */
    cr_engine_path engine;          /**< chain path or contact graph (default auto) */
    /** rigid runs (`rigid.touching`, θ ≥ 0, default 1): a rigid impact takes in
     * every contact of its bodies whose gap is at most θ·δ*_c, the overlap pair
     * c would reach at the impact's approach speed (docs/design.md, "Impact
     * configurations at the compression scale"); 0: only ε_geom */
    double rigid_touching;
    /** CR_OUT_* bits of trajectory fields not written (0: every field;
     * CR_OUT_ALL: no trajectory) */
    unsigned output_omit;
    /** > 0: a trajectory row at every k-th integrator step instead of at an
     * interval (`output.every`); 0: output_interval decides */
    long output_every;
    /** the default sampling's row cap (`output.max_rows`); 0: CR_OUTPUT_DEFAULT_ROW_CAP */
    long output_max_rows;
    /** body ranges whose positions and velocities are written (first, last,
     * inclusive; `output.bodies`); 0 ranges: every body */
    size_t output_nranges;
    size_t output_ranges[CR_OUTPUT_MAX_RANGES][2];
    /** > 0: a global accuracy (`integration.accuracy`), a target on the final
     * velocities relative to the velocity scale V, which the chain engine turns
     * into its local tolerances (rtol and atol) by the rule of docs/design.md,
     * "Global accuracy"; 0 (default): rtol and atol as given, per step */
    double accuracy;
    /** 1: the chain engine locates each pendulum ball's swing extremes (ṡ = 0
     * while the ball touches nothing) as `swing-extreme` events
     * (`output.swing_extremes: true`); 0 (default): none, so the event lists
     * of pendulum runs stay as they were */
    int swing_extremes;
} cr_settings;

typedef struct cr_model cr_model;

/** Relative geometric tolerance ε_geom: |δ| ≤ CR_GEOM_TOL·min(rᵢ, rⱼ) counts as touching. */
#define CR_GEOM_TOL 1e-9

/** @return the default settings: automatic end, rtol 1e-10, atol 1e-12,
 * method auto. */
CR_EXPORT cr_settings cr_settings_default(void);

/** 1 when body @p b's columns are written to /trajectory (`output.bodies`). */
CR_EXPORT int cr_settings_body_written(const cr_settings *s, size_t b);

/** Second body of a contact with half-plane wall @p w: −1 − w. */
#define CR_WALL_BODY(w) (-1 - (long)(w))
/** The wall index of a contact's second body @p b < 0. */
#define CR_WALL_INDEX(b) ((size_t)(-1 - (b)))

/** @return a new empty model of dimension 1, or NULL when out of memory. */
CR_EXPORT cr_model *cr_model_create(void);
/** Sets the dimension (1, 2 or 3) of an empty model. */
CR_EXPORT int cr_model_set_dimension(cr_model *model, int dim);
CR_EXPORT int cr_model_dimension(const cr_model *model);

/**
 * Appends a body with @p x and @p v of dim components each (dim 1: balls in
 * increasing position). @return its index (≥ 0), or a negative error code.
 */
CR_EXPORT int cr_model_add_body(cr_model *model, double mass, double radius, const double *x,
                                const double *v);
/** Position and velocity of body @p i at start, dim components each. */
CR_EXPORT int cr_model_get_body(const cr_model *model, size_t i, double *x, double *v);
/** Replaces body @p i's start position and velocity (a continued run's
 * restart state); a fixed body keeps its own; a feature of a rigid body
 * (model-format.md "Rigid bodies") is refused, CR_ERR_INVALID. */
CR_EXPORT int cr_model_set_body_state(cr_model *model, size_t i, const double *x, const double *v);

/**
 * Adds a half-plane wall (dim 2; a half-space in dim 3): the region n·p ≥ @p offset is free space
 * for the body surfaces (body i overlaps it by offset + rᵢ − n·pᵢ). @p normal (dim values) need not
 * be unit; @p law NULL: the pair law of the body's material with a flat, or the default. @return
 * the wall's index or an error code.
 */
CR_EXPORT int cr_model_add_plane(cr_model *model, const double *normal, double offset,
                                 const cr_contact_params *law);
CR_EXPORT size_t cr_model_plane_count(const cr_model *model);
/** Unit normal (dim values) and offset (rescaled with the normal) of wall @p w. */
CR_EXPORT int cr_model_get_plane(const cr_model *model, size_t w, double *normal, double *offset);
/** Sets a wall's material (E, ν): a flat of that material for Hertz pair laws. */
CR_EXPORT int cr_model_set_plane_material(cr_model *model, size_t w, double E, double nu);

/** @return 1 and the material of wall @p w, or 0. */
CR_EXPORT int cr_model_plane_material(const cr_model *model, size_t w, double *E, double *nu);

/** Uniform gravity, dim components, m/s². */
CR_EXPORT int cr_model_set_gravity_vector(cr_model *model, const double *g);
CR_EXPORT void cr_model_get_gravity_vector(const cr_model *model, double *g);

/**
 * Material of body @p i: pairs without a law of their own get the Hertz
 * stiffness K = (4/3) E* √R* from both bodies' materials and radii (n = 3/2,
 * the default law's damping and release).
 */
CR_EXPORT int cr_model_set_material(cr_model *model, size_t i, double E, double nu);
/** @return 1 and the material of body @p i, or 0. */
CR_EXPORT int cr_model_material(const cr_model *model, size_t i, double *E, double *nu);

/**
 * Sets the law of the pair (@p i, @p j) of bodies, or of body @p i and wall w
 * with @p j = CR_WALL_BODY(w). In dim 1 the bodies must be neighbours.
 */
CR_EXPORT int cr_model_set_pair_law(cr_model *model, size_t i, long j, const cr_contact_params *p);
/**
 * The law that acts between bodies @p i and @p j (or body i and wall
 * CR_WALL_INDEX(j) for j < 0): the pair's own law, else Hertz from the
 * materials, else the wall's own law, else the default. Solved damping
 * (cr_calibrate_model) is applied.
 */
CR_EXPORT int cr_model_pair_law(const cr_model *model, size_t i, long j, cr_contact_params *out);

/**
 * dim 2: every pair's damping is to be solved so that its two bodies meeting at
 * @p v have restitution @p e (cr_calibrate_model; per distinct law and reduced
 * mass). dim 1 uses cr_model_set_contact_target per pair.
 */
CR_EXPORT int cr_model_set_default_target(cr_model *model, double e, double v);
CR_EXPORT int cr_model_default_target(const cr_model *model, double *e, double *v);
/**
 * Records the damping solved for a law (C ignored in the key) and reduced mass
 * @p mu; cr_model_pair_law applies it to every pair with that law and mass.
 */
CR_EXPORT int cr_model_add_solved_damping(cr_model *model, const cr_contact_params *law, double mu,
                                          double C);
/** Frees a model; accepts NULL. */
CR_EXPORT void cr_model_destroy(cr_model *model);
/**
 * A deep copy of @p model (engines keep one: the model may be destroyed after
 * cr_system_create). @return NULL when out of memory.
 */
CR_EXPORT cr_model *cr_model_copy(const cr_model *model);

/**
 * Appends a ball. Balls must come in increasing position.
 * @return the ball's index (≥ 0), or a negative error code.
 */
CR_EXPORT int cr_model_add_ball(cr_model *model, double mass, double radius, double x, double v);
/** Number of bodies (balls, discs and fixed bodies). */
CR_EXPORT size_t cr_model_body_count(const cr_model *model);

/**
 * dim 1: appends a fixed wall at @p x (a body of zero radius that never moves;
 * dim 2 has half-plane walls, cr_model_add_plane).
 * @return its index (≥ 0), or a negative error code.
 */
CR_EXPORT int cr_model_add_wall(cr_model *model, double x);
/**
 * dim 2 and 3: body @p i is fixed, a disc or sphere of its radius that never
 * moves (its velocity is set to 0; its mass is never used). Its contacts take
 * the moving body's mass as their reduced mass.
 */
CR_EXPORT int cr_model_set_fixed(cr_model *model, size_t i);

/** A linear bilateral link (spring-dashpot) between the bodies of a pair. */
typedef struct {
    double k;      /**< stiffness, N/m (> 0) */
    double length; /**< rest distance between the centres, m */
    double c;      /**< damping, N s/m (≥ 0) */
} cr_link;

/** Links pair @p c; the pair's unilateral contact is switched off unless re-enabled. */
CR_EXPORT int cr_model_set_link(cr_model *model, size_t c, const cr_link *link);
/** Switches the unilateral contact of pair @p c on or off (on by default). */
CR_EXPORT int cr_model_set_contact_enabled(cr_model *model, size_t c, int enabled);
/** dim 1: uniform acceleration along +x (e.g. −9.81 for a column with x up), m/s². */
CR_EXPORT int cr_model_set_gravity(cr_model *model, double g);
/**
 * dim 1: hangs body @p i on a string of @p length from a pivot at arc coordinate
 * @p pivot, in a field @p g (> 0): acceleration −g sin((x − pivot)/length).
 * CR_ERR_INVALID in dim 2 (the arc coordinate is a 1-D idea).
 */
CR_EXPORT int cr_model_set_pendulum(cr_model *model, size_t i, double pivot, double length,
                                    double g);

CR_EXPORT int cr_model_is_fixed(const cr_model *model, size_t i);
/** @return the link of pair @p c, or NULL. */
CR_EXPORT const cr_link *cr_model_link(const cr_model *model, size_t c);
CR_EXPORT int cr_model_contact_enabled(const cr_model *model, size_t c);
CR_EXPORT double cr_model_gravity(const cr_model *model);
/** @return 1 and the pendulum of body @p i, or 0 when it hangs on nothing. */
CR_EXPORT int cr_model_pendulum(const cr_model *model, size_t i, double *pivot, double *length,
                                double *g);
/**
 * Air drag on body @p i: the force −@p b v − @p c |v| v (b in kg/s, c in kg/m,
 * both ≥ 0; 0 and 0: none). Stokes drag in a fluid of viscosity η is
 * b = 6πηr; Newton drag in a fluid of density ρ is c = ½ ρ C_d π r². Drag is a
 * field (cr_model_has_fields): every body is integrated, and runs need an end
 * time unless drag is the only field and no link joins two bodies (the chain
 * engine then ends when no pair can meet again). The pool engines (dim 2)
 * refuse it (cr_model_validate).
 */
CR_EXPORT int cr_model_set_drag(cr_model *model, size_t i, double b, double c);
/** @return 1 and the drag coefficients of body @p i (0 for a fixed body), or 0 without drag. */
CR_EXPORT int cr_model_drag(const cr_model *model, size_t i, double *b, double *c);
/** @return 1 when any body feels drag. */
CR_EXPORT int cr_model_has_drag(const cr_model *model);
/** @return 1 when any external field acts, drag included (then runs need an end time). */
CR_EXPORT int cr_model_has_fields(const cr_model *model);

/**
 * Asks for the damping C of pair @p c to be solved so that the pair's contact has
 * restitution @p e at impact speed @p v (cr_calibrate_model does it).
 */
CR_EXPORT int cr_model_set_contact_target(cr_model *model, size_t c, double e, double v);
/** @return 1 and the target of pair @p c, or 0. */
CR_EXPORT int cr_model_contact_target(const cr_model *model, size_t c, double *e, double *v);

/** Sets the contact law used by every pair without its own. */
CR_EXPORT int cr_model_set_default_contact(cr_model *model, const cr_contact_params *p);
/** The law used by every pair without its own (nor materials, nor a wall's law). */
CR_EXPORT const cr_contact_params *cr_model_default_contact(const cr_model *model);
/** Sets the law of contact @p c (between balls c and c + 1); the balls must exist. */
CR_EXPORT int cr_model_set_contact(cr_model *model, size_t c, const cr_contact_params *p);

CR_EXPORT int cr_model_set_name(cr_model *model, const char *name);
CR_EXPORT void cr_model_set_settings(cr_model *model, const cr_settings *s);

CR_EXPORT const char *cr_model_name(const cr_model *model);
CR_EXPORT const cr_settings *cr_model_settings(const cr_model *model);

/** The local tolerances a compliant run of @p model uses: its settings' rtol
 * and atol, or under `integration.accuracy` the rule of docs/design.md,
 * "Global accuracy": rtol = min(1e-7, accuracy / (2 max(1, 0.0035 N))), ten
 * times finer with dampers, links or fields, atol = rtol/100, N the model's
 * bodies. */
CR_EXPORT void cr_model_tolerances(const cr_model *model, double *rtol, double *atol);
CR_EXPORT size_t cr_model_ball_count(const cr_model *model);
/** dim 1: number of pairs (contacts), ball_count − 1 (0 for an empty model); dim 2: 0. */
CR_EXPORT size_t cr_model_contact_count(const cr_model *model);
CR_EXPORT double cr_model_mass(const cr_model *model, size_t i);
CR_EXPORT double cr_model_radius(const cr_model *model, size_t i);
/** dim 1: the position and velocity along the line (dim 2: the x component). */
CR_EXPORT double cr_model_position(const cr_model *model, size_t i);
CR_EXPORT double cr_model_velocity(const cr_model *model, size_t i);
/** Contact law of contact @p c (its own or the default). */
CR_EXPORT const cr_contact_params *cr_model_contact(const cr_model *model, size_t c);
/**
 * Initial overlap of contact @p c, rᵢ + rᵢ₊₁ − (xᵢ₊₁ − xᵢ); snapped to exactly 0
 * when within the touching tolerance, so touching balls stay touching.
 */
CR_EXPORT double cr_model_initial_overlap(const cr_model *model, size_t c);

/**
 * A new model holding bodies @p first … @p last of @p model, with their pair laws,
 * links, targets, pendulums, gravity and settings; positions and velocities from
 * @p x and @p v (last − first + 1 values each) or, when NULL, the originals.
 * The building block for advancing one contact cluster while the rest of a long
 * chain moves freely: a cluster's simulator is cr_sim_create of its sub-chain.
 * @return NULL on bad indices or out of memory.
 */
CR_EXPORT cr_model *cr_model_subchain(const cr_model *model, size_t first, size_t last,
                                      const double *x, const double *v);

/**
 * The same model in dim @p dim, moved rigidly by p → R p + t (@p R a row-major
 * 3×3 rotation, det +1; @p t 3 values; dim 2 takes only rotations about z):
 * the contact-graph engine's view of a chain, and a pool seen in 3-D
 * (docs/design.md, "One engine").
 *
 * A chain (dim 1 → 2 or 3): each ball becomes a sphere on the line through t
 * along R's first column (x → R (x, 0, 0) + t), velocities likewise; a wall
 * (a fixed body of radius 0) becomes a half-space whose boundary passes
 * through the wall's point, facing the chain, which gives every ball the
 * overlap r + 0 − |x_wall − x| the chain uses and the same reduced mass (the
 * ball's); each pair's law (solved damping included) becomes the pair's law;
 * gravity g along the line becomes R (g, 0, 0). Walls leave the body list:
 * body k of the result is the k-th non-wall body. Refused (NULL, reason in
 * @p msg): pendulum suspensions (an arc coordinate), links, switched-off
 * contacts, drag, unsolved restitution targets (cr_calibrate_model first).
 * A pool (dim 2 → 2 or 3, or dim 3 → 3): every body, wall and field moved.
 * Settings are kept (method erk, chains only, becomes auto).
 * @return a new model, or NULL.
 */
CR_EXPORT cr_model *cr_model_embed(const cr_model *model, int dim, const double R[9],
                                   const double t[3], char *msg, size_t msglen);

/**
 * Checks the physics before anything is integrated: finite numbers, positive
 * masses and radii, valid contact laws and settings, solved restitution
 * targets; dim 1: increasing positions, no initial interpenetration beyond
 * CR_GEOM_TOL; dim 2: every body inside every wall (overlaps between discs
 * are found by the pool engine's first neighbour search, O(N log N)).
 * @return CR_OK, or CR_ERR_MODEL with a one-line reason in @p msg.
 */
CR_EXPORT int cr_model_validate(const cr_model *model, char *msg, size_t msglen);

#endif
