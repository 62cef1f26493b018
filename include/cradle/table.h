/**
 * @file table.h
 * @brief Reference tables (data/README.md, docs/tables.md): a finished sweep
 * over a crossed grid of model-file fields, read back and interpolated.
 *
 * A table is a `cradle sweep` output whose inputs form a full crossed grid
 * (zipped inputs ride along with their axis), plus a `/reference` group written by
 * cr_table_make: provenance attributes and, per output column, the
 * interpolation error bound estimated from off-grid check points run directly
 * (midpoints of the grid cells). Lookups interpolate multilinearly over the
 * axes, in log x on an axis whose values are geometric; at a grid point they
 * return the stored value exactly (bound 0), off the grid the stored bound.
 * A point outside an axis' range is refused (CR_ERR_DOMAIN), never
 * extrapolated.
 */
#ifndef CRADLE_TABLE_H
#define CRADLE_TABLE_H

#include "cradle/common.h"
#include "cradle/calibrate.h"
#include "cradle/contact.h"

typedef struct cr_table cr_table;

/** Version of the `/reference` group's layout (its attribute `format_version`). */
#define CR_TABLE_FORMAT_VERSION 1

/**
 * Opens a table (or any finished sweep output on a crossed grid: its bounds
 * are then unknown, NaN). @return CR_OK, or CR_ERR_IO / CR_ERR_HDF5 (not a
 * cradle sweep file) / CR_ERR_INVALID (not a full crossed grid, an input that
 * is not a number) / CR_ERR_NOMEM, with one line in @p msg.
 */
CR_EXPORT int cr_table_open(const char *path, cr_table **out, char *msg, size_t msglen);
/** Frees; accepts NULL. */
CR_EXPORT void cr_table_close(cr_table *t);
CR_EXPORT const char *cr_table_last_error(const cr_table *t);
CR_EXPORT const char *cr_table_path(const cr_table *t);

/** Axes of the grid (crossed inputs; the order of the sweep's inputs). */
CR_EXPORT size_t cr_table_axis_count(const cr_table *t);
/** The axis' key (the sweep input's `key:`, else its field path) and field path. */
CR_EXPORT const char *cr_table_axis_name(const cr_table *t, size_t a);
CR_EXPORT const char *cr_table_axis_field(const cr_table *t, size_t a);
/** @return the axis of that key, or −1. */
CR_EXPORT long cr_table_axis_index(const cr_table *t, const char *name);
CR_EXPORT size_t cr_table_axis_length(const cr_table *t, size_t a);
/** The axis' k-th value (ascending). */
CR_EXPORT double cr_table_axis_value(const cr_table *t, size_t a, size_t k);
/** 1 when the axis is interpolated in log x (positive geometric values). */
CR_EXPORT int cr_table_axis_is_log(const cr_table *t, size_t a);

/** Output columns (those of the sweep: kappa, alpha[c], e_N[c], ...). */
CR_EXPORT size_t cr_table_column_count(const cr_table *t);
CR_EXPORT const char *cr_table_column_name(const cr_table *t, size_t j);
CR_EXPORT long cr_table_column_index(const cr_table *t, const char *name);
/**
 * The stored interpolation error bound of column @p j (absolute, in the
 * column's unit), NaN when not estimated. @p checked (may be NULL): the
 * number of check points it was estimated from.
 */
CR_EXPORT double cr_table_bound(const cr_table *t, size_t j, size_t *checked);
/**
 * A provenance attribute of `/reference` (cradle_version, git_revision,
 * base_model, grid, tolerances, date, configuration, ...) or of the sweep
 * (text, model_text, sweep_hash): "" when absent.
 */
CR_EXPORT const char *cr_table_attr(const cr_table *t, const char *name);

/**
 * Interpolates column @p j at @p x (one value per axis, cr_table_axis_count).
 * @p bound (may be NULL): 0 at a grid point, else the stored bound (NaN when
 * unknown). @return CR_OK; CR_ERR_DOMAIN when a value is outside its axis'
 * range (or not finite); CR_ERR_INVALID when a grid point it needs failed in
 * the sweep (its error text in cr_table_last_error).
 */
CR_EXPORT int cr_table_lookup(cr_table *t, const double *x, size_t j, double *value, double *bound);
/** The same for a column named @p column (CR_ERR_INVALID: no such column). */
CR_EXPORT int cr_table_value(cr_table *t, const double *x, const char *column, double *value,
                             double *bound);
/** α of contact @p c (relative to the reference contact, column `reference`). */
CR_EXPORT int cr_table_alpha(cr_table *t, const double *x, size_t c, double *alpha, double *bound);
/** κ = T⁺/T⁻ of the first episode. */
CR_EXPORT int cr_table_kappa(cr_table *t, const double *x, double *kappa, double *bound);
/** Newton's (@p poisson = 0) or Poisson's restitution of contact @p c. */
CR_EXPORT int cr_table_restitution(cr_table *t, const double *x, size_t c, int poisson, double *e,
                                   double *bound);

/* ---- impact configurations (docs/tables.md, "Impact configurations") ---- */

/** Room for the name of an impact-configuration quantity, NUL included. */
#define CR_TABLE_QUANTITY_LEN 32
/** Bodies a chain table may hold (quantity names use one digit per body). */
#define CR_TABLE_CHAIN_MAX 9

/**
 * What a table's axes are: the impact-configuration quantity of each axis
 * (axis order) and the quantities held fixed over the grid with their
 * values. A table of configuration "chainN" (a striker, body 1, hitting
 * N − 1 touching bodies at rest) uses the quantities mK/m1 (K = 2..N),
 * Kij/K12 (the stiffness of pair i-j over pair 1-2), eij (pair i-j's
 * two-body restitution at the striker's speed; 1 undamped), e (the one
 * restitution every pair shares), gij/d* (the gap of pair i-j over its
 * compression d* = ((n+1) mu v^2 / (2K))^(1/(n+1)) at that speed), and the
 * absolute v (the striker's speed), m1, K12, Cij (pair i-j's damping) and C
 * (the one every pair shares): a table with one of these on an axis holds
 * the others fixed (its units).
 */
typedef struct {
    const char *configuration;   /* "chainN" */
    const char *const *quantity; /* one per axis */
    const char *const *fixed;    /* quantities held fixed */
    const double *fixed_value;
    size_t nfixed;
} cr_table_declaration;

/**
 * The quantity axis @p a is ("" when the table declares none). A table made
 * before declarations existed whose `configuration` is "chain3" declares its
 * axis keys (m2/m1, m3/m1, K23/K12, e).
 */
CR_EXPORT const char *cr_table_axis_quantity(const cr_table *t, size_t a);
/** The quantities the table holds fixed, and their values. */
CR_EXPORT size_t cr_table_fixed_count(const cr_table *t);
CR_EXPORT const char *cr_table_fixed_name(const cr_table *t, size_t k);
CR_EXPORT double cr_table_fixed_value(const cr_table *t, size_t k);
/** The number of bodies of a "chainN" table, 0 for any other configuration. */
CR_EXPORT size_t cr_table_chain_bodies(const cr_table *t);

/**
 * The impact-configuration quantities of a chain of @p n bodies (2 ..
 * CR_TABLE_CHAIN_MAX): body 0 strikes at speed @p v the others, at rest;
 * @p laws: the n − 1 pair laws (i, i+1); @p gap: the n − 1 gaps (NULL: the
 * gap quantities are left out). Names go to @p names, values to @p values
 * (room for @p cap); e is NaN when the pairs' restitutions differ by more
 * than 10⁻⁶. @p cache (may be NULL) keeps the two-body runs. @return CR_OK or
 * CR_ERR_INVALID (a two-body run failed, too many bodies) with one line.
 */
CR_EXPORT int cr_table_chain_quantities(cr_restitution_cache *cache, size_t n, const double *mass,
                                        const cr_contact_params *laws, const double *gap, double v,
                                        char (*names)[CR_TABLE_QUANTITY_LEN], double *values,
                                        size_t cap, size_t *count, char *msg, size_t msglen);

/**
 * α (relative to contact 0), κ and their bounds (@p bound[0]: the largest of
 * the α bounds, @p bound[1]: κ's) of a chain table for a chain impact of
 * @p n bodies (as cr_table_chain_quantities). @return CR_OK; CR_ERR_DOMAIN
 * when a quantity is outside its axis or differs from a fixed value ("TABLE:
 * QUANTITY = V is outside ..."); CR_ERR_INVALID when the table does not
 * describe the impact (not a chain table, another number of bodies, another
 * contact law, unequal restitutions on an axis e); one line in @p msg.
 */
CR_EXPORT int cr_table_chain(cr_table *t, cr_restitution_cache *cache, size_t n, const double *mass,
                             const cr_contact_params *laws, const double *gap, double v,
                             double *alpha, double *kappa, double bound[2], char *msg,
                             size_t msglen);

/**
 * α (relative to contact 0) and κ of a table whose `configuration` is
 * "chain3" (docs/tables.md): a striker of mass @p mass[0] hitting two touching
 * balls at rest at speed @p v, pair laws @p laws (0-1, 1-2). The keys m2/m1,
 * m3/m1, K23/K12 and e (each pair's two-body restitution at @p v, which both
 * pairs must share) come from these; the laws must match the table's law.n,
 * law.m and law.release. @p bound: the bounds of α and of κ. @return CR_OK;
 * CR_ERR_DOMAIN outside the table; CR_ERR_INVALID when the table does not
 * cover this configuration; one line in @p msg.
 */
CR_EXPORT int cr_table_chain3(cr_table *t, const double mass[3], const cr_contact_params laws[2],
                              double v, double alpha[2], double *kappa, double bound[2], char *msg,
                              size_t msglen);
/**
 * cr_table_chain3 with the pairs' two-body restitutions taken from (and added
 * to) @p cache (calibrate.h; NULL: computed each call, as cr_table_chain3).
 */
CR_EXPORT int cr_table_chain3_cached(cr_table *t, cr_restitution_cache *cache, const double mass[3],
                                     const cr_contact_params laws[2], double v, double alpha[2],
                                     double *kappa, double bound[2], char *msg, size_t msglen);

/**
 * Makes a table at @p out from the finished sweep output @p grid: a copy of
 * it with a `/reference` group holding @p attrs (name, value pairs, NULL
 * terminated; may be NULL), cradle_version, grid (each axis: length, range,
 * spacing) and, when @p check (a finished sweep over off-grid points with the
 * same input keys; may be NULL) is given, each column's bound: twice the
 * largest |interpolated − direct| over the check points inside the domain.
 * @p out is written under a temporary name and renamed: nothing is left on
 * failure. @return CR_OK or the error, with one line in @p msg.
 */
CR_EXPORT int cr_table_make(const char *grid, const char *check, const char *out,
                            const char *const *attrs, char *msg, size_t msglen);
/**
 * cr_table_make with the axes declared (@p decl, may be NULL): its
 * configuration goes to the `configuration` attribute, the quantities to
 * `/reference/quantity`, `/reference/fixed_quantity` and
 * `/reference/fixed_value`.
 */
CR_EXPORT int cr_table_make_declared(const char *grid, const char *check, const char *out,
                                     const char *const *attrs, const cr_table_declaration *decl,
                                     char *msg, size_t msglen);

#endif
