/**
 * @file sweep.h
 * @brief Parameter sweeps (docs/sweep.md): a base model and a grid over
 * model-file fields; every point goes through the one pipeline (model file
 * with overrides → calibration → system → monitor → comparator) and gives one
 * row of a table of inputs and outputs, kept in one HDF5 file that a rerun
 * completes.
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

typedef struct cr_sweep cr_sweep;
typedef struct cr_sweep_file cr_sweep_file;

/** Points a sweep may have. */
#define CR_SWEEP_MAX_POINTS 10000000
/** Length of a point's error text, terminating NUL included (longer texts are cut). */
#define CR_SWEEP_ERROR_LEN 256
/** Length of an input's text in the file (a longer value is refused by the parser). */
#define CR_SWEEP_INPUT_LEN 128
/** Version of the sweep file layout (the root attribute `format_version`). */
#define CR_SWEEP_FORMAT_VERSION 1

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
/** Frees; accepts NULL. */
CR_EXPORT void cr_sweep_destroy(cr_sweep *s);

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

/* ---- the output file ------------------------------------------------------------ */

/**
 * Opens the output of @p s at @p path. A missing file (or any file with
 * @p force) is created under a temporary name and renamed into place once its
 * layout is written; an existing sweep file of the same sweep (hash) and
 * cradle version is resumed: its finished points are kept. Refused
 * (CR_ERR_INVALID, one line in @p msg, the file untouched): a file that is
 * not a cradle sweep file, another sweep's file, another version's.
 */
CR_EXPORT int cr_sweep_file_open(const char *path, const cr_sweep *s, int force,
                                 cr_sweep_file **out, char *msg, size_t msglen);
/** Points already done (ok or failed). */
CR_EXPORT size_t cr_sweep_file_done_count(const cr_sweep_file *f);
CR_EXPORT int cr_sweep_file_is_done(const cr_sweep_file *f, size_t i);
/** 1 when the file was resumed rather than created. */
CR_EXPORT int cr_sweep_file_resumed(const cr_sweep_file *f);
/** Stores point @p i's row and error text; written to the file at once. */
CR_EXPORT int cr_sweep_file_put(cr_sweep_file *f, size_t i, const double *row, const char *err);
/** Forces what was put to the disk (H5Fflush and fsync). */
CR_EXPORT int cr_sweep_file_flush(cr_sweep_file *f);
/**
 * Sets the `status` attribute ("complete", "interrupted", "failed"), closes
 * and frees. @return CR_OK or CR_ERR_HDF5 with the reason in @p msg. Accepts NULL.
 */
CR_EXPORT int cr_sweep_file_close(cr_sweep_file *f, const char *status, char *msg, size_t msglen);
CR_EXPORT const char *cr_sweep_file_last_error(const cr_sweep_file *f);

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

/* ---- reading a sweep file back -------------------------------------------------- */

/** A sweep output opened read-only: what tables and the tests read. */
typedef struct cr_sweep_output cr_sweep_output;
CR_EXPORT cr_sweep_output *cr_sweep_output_open(const char *path, char *msg, size_t msglen);
CR_EXPORT void cr_sweep_output_close(cr_sweep_output *t);
CR_EXPORT size_t cr_sweep_output_points(const cr_sweep_output *t);
CR_EXPORT size_t cr_sweep_output_columns(const cr_sweep_output *t);
CR_EXPORT const char *cr_sweep_output_column(const cr_sweep_output *t, size_t j);
CR_EXPORT long cr_sweep_output_column_index(const cr_sweep_output *t, const char *name);
/** Row @p i (columns values), NULL out of range. */
CR_EXPORT const double *cr_sweep_output_row(const cr_sweep_output *t, size_t i);
/** 1 when point @p i is done; its error text ("" when it ran). */
CR_EXPORT int cr_sweep_output_done(const cr_sweep_output *t, size_t i);
CR_EXPORT const char *cr_sweep_output_error(const cr_sweep_output *t, size_t i);
/** Inputs: count, names, field paths, the text at point i. */
CR_EXPORT size_t cr_sweep_output_inputs(const cr_sweep_output *t);
CR_EXPORT const char *cr_sweep_output_input_name(const cr_sweep_output *t, size_t j);
CR_EXPORT const char *cr_sweep_output_input_field(const cr_sweep_output *t, size_t j);
CR_EXPORT const char *cr_sweep_output_input_text(const cr_sweep_output *t, size_t i, size_t j);
/** Root attributes: status, sweep hash, cradle version, the sweep and base model texts. */
CR_EXPORT const char *cr_sweep_output_attr(const cr_sweep_output *t, const char *name);
/**
 * Writes the table as CSV: a header (point, the inputs, status, the columns,
 * error), then one line per point (status ok, failed or pending), numbers as
 * %.17g. @return CR_OK or CR_ERR_IO.
 */
CR_EXPORT int cr_sweep_output_write_csv(const cr_sweep_output *t, FILE *out);

#endif
