/**
 * @file sweep.h
 * @brief Parameter sweeps (docs/sweep.md): a base model and a grid over
 * model-file fields; every point goes through the one pipeline (model file
 * with overrides → calibration → system → monitor → comparator) and gives one
 * row of a table of inputs and outputs, kept in one HDF5 file that a rerun
 * completes (the writer: cradle/sweepfile.h; the reader, which tables use:
 * cradle/sweepoutput.h).
 *
 * Create, run, query: cr_sweep_load → cr_sweep_file_open (resume or start) →
 * cr_sweep_run (OpenMP threads) or cr_sweep_compute per point (what an MPI
 * driver distributes) with cr_sweep_file_put → cr_sweep_file_close. A point's
 * row depends on the point alone (no state is shared between points), so
 * serial, threaded and distributed sweeps write the same table, bit for bit.
 */
#ifndef CRADLE_SWEEP_H
#define CRADLE_SWEEP_H

#include <signal.h>
#include <stdio.h>

#include "cradle/common.h"
#include "cradle/sweepfile.h"

typedef struct cr_sweep cr_sweep;

/** Points a sweep may have. */
#define CR_SWEEP_MAX_POINTS 10000000
/**
 * Reads a sweep file (YAML, docs/sweep.md). The base model is read too (a
 * relative path is taken from the sweep file's folder) and every point's
 * model is parsed once to size the per-contact columns; a point whose model
 * is bad is not an error here (its row will say why).
 * @return CR_OK, or CR_ERR_IO / CR_ERR_SYNTAX / CR_ERR_MODEL / CR_ERR_NOMEM with
 * a one-line "file:line: field: reason" in @p msg.
 */
CR_EXPORT int cr_sweep_load(const char *path, cr_sweep **out, char *msg, size_t msglen);
/** The same from text; @p dir is the folder relative model paths start from (NULL: "."). */
CR_EXPORT int cr_sweep_parse(const char *text, size_t len, const char *filename, const char *dir,
                             cr_sweep **out, char *msg, size_t msglen);
/**
 * The sweep a sweep output was made of (`/sweep/text`, `/sweep/model_text`):
 * parsed with its base model's text as stored rather than read from its
 * path; its hash is the original's. @return as cr_sweep_parse.
 */
CR_EXPORT int cr_sweep_parse_stored(const char *text, const char *model_text, const char *filename,
                                    cr_sweep **out, char *msg, size_t msglen);
/** Frees; accepts NULL. */
CR_EXPORT void cr_sweep_destroy(cr_sweep *s);
/**
 * The text of the grid's check sweep (docs/tables.md, `--check auto`): the
 * same base model (inline) and `set:`, each input at the centres of its
 * axis' cells (geometric where a table interpolates in log x: 3 or more
 * positive geometric values; an axis of one value keeps it), zips kept.
 * @p text: a new string (free()). @return CR_OK, CR_ERR_INVALID (an input
 * that is not a number) or CR_ERR_NOMEM, with one line in @p msg.
 */
CR_EXPORT int cr_sweep_centres_text(const cr_sweep *s, char **text, char *msg, size_t msglen);
/** The model of point @p i, parsed, not calibrated; NULL with the reason in @p msg. */
CR_EXPORT struct cr_model *cr_sweep_point_model(const cr_sweep *s, size_t i, char *msg,
                                                size_t msglen);

CR_EXPORT size_t cr_sweep_point_count(const cr_sweep *s);
/** The sweep's name (`name:`, else the file name). */
CR_EXPORT const char *cr_sweep_name(const cr_sweep *s);
/** Its text, the base model's path ("" when inline) and text. */
CR_EXPORT const char *cr_sweep_text(const cr_sweep *s);
CR_EXPORT const char *cr_sweep_model_path(const cr_sweep *s);
CR_EXPORT const char *cr_sweep_model_text(const cr_sweep *s);
/**
 * "fnv1a64:<16 hex digits>" of the sweep text and the base model text: a
 * rerun resumes a file only when the hash (and the cradle version) match.
 */
CR_EXPORT const char *cr_sweep_hash(const cr_sweep *s);

/** Fields varied (one input column each, zipped fields included). */
CR_EXPORT size_t cr_sweep_input_count(const cr_sweep *s);
/** The input's name (its `key:`, else the field path) and field path. */
CR_EXPORT const char *cr_sweep_input_name(const cr_sweep *s, size_t j);
CR_EXPORT const char *cr_sweep_input_field(const cr_sweep *s, size_t j);
/** The value input @p j takes at point @p i, as set (YAML text). */
CR_EXPORT const char *cr_sweep_input_value(const cr_sweep *s, size_t i, size_t j);
/** Crossed axes (a zip counts once) and the values each takes. */
CR_EXPORT size_t cr_sweep_axis_count(const cr_sweep *s);
CR_EXPORT size_t cr_sweep_axis_length(const cr_sweep *s, size_t a);
/** The crossed axis input @p j belongs to. */
CR_EXPORT size_t cr_sweep_input_axis(const cr_sweep *s, size_t j);

/**
 * Width of a row and the name of column @p j: the inputs as numbers (NaN for
 * a value that is not a number), then episodes, t_end, duration, reference,
 * kappa, records, per contact column c alpha[c], e_N[c], e_P[c], impulse[c],
 * per law and mode error.LAW.MODE (the first episode) and
 * mean_error.LAW.MODE (all episodes). docs/sweep.md lists them.
 */
CR_EXPORT size_t cr_sweep_column_count(const cr_sweep *s);
CR_EXPORT const char *cr_sweep_column_name(const cr_sweep *s, size_t j);
/** @return the column's index, or −1. */
CR_EXPORT long cr_sweep_column_index(const cr_sweep *s, const char *name);
/** Per-contact columns (chains: contact c joins bodies c and c + 1; pools: record c). */
CR_EXPORT size_t cr_sweep_contact_columns(const cr_sweep *s);

/**
 * Runs point @p i through the pipeline and fills @p row (cr_sweep_column_count
 * values). A point that fails (a bad value, a solver failure) is a row too:
 * @p err gets its one-line reason (otherwise ""), its outputs are NaN, and
 * CR_OK is returned. When @p stop (may be NULL) becomes non-zero the run stops
 * and CR_ERR_INTERRUPTED is returned: the point is not done. Thread-safe: no
 * state is shared between calls.
 */
CR_EXPORT int cr_sweep_compute(const cr_sweep *s, size_t i, double *row, char *err, size_t errlen,
                               const volatile sig_atomic_t *stop);

/**
 * Runs every point @p f has not done on @p threads OpenMP threads (≤ 0: all
 * cores; 1 without OpenMP), one OpenBLAS thread each, writing each row as it
 * comes. @p progress (may be NULL) is called after every point with the
 * points done and the total, from one thread at a time. Stops early when
 * @p stop becomes non-zero (@return CR_ERR_INTERRUPTED; rows of finished
 * points are in the file) or on a write error (CR_ERR_HDF5 / CR_ERR_IO).
 */
typedef void (*cr_sweep_progress)(size_t done, size_t total, void *user);
CR_EXPORT int cr_sweep_run(const cr_sweep *s, cr_sweep_file *f, int threads,
                           cr_sweep_progress progress, void *user,
                           const volatile sig_atomic_t *stop);
/** The number of threads cr_sweep_run takes for @p threads ≤ 0 (1 without OpenMP). */
CR_EXPORT int cr_sweep_default_threads(void);

#endif
