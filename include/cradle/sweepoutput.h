/**
 * @file sweepoutput.h
 * @brief A sweep's output file read back (docs/sweep.md): the table of inputs
 * and outputs that reference tables (cradle/table.h) are made of and read,
 * and the file's layout constants, which its writer (cradle/sweepfile.h)
 * shares.
 */
#ifndef CRADLE_SWEEPOUTPUT_H
#define CRADLE_SWEEPOUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "cradle/common.h"

/** Length of a point's error text, terminating NUL included (longer texts are cut). */
#define CR_SWEEP_ERROR_LEN 256
/** Length of an input's text in the file (a longer value is refused by the parser). */
#define CR_SWEEP_INPUT_LEN 128
/** Version of the sweep file layout (the root attribute `format_version`). */
#define CR_SWEEP_FORMAT_VERSION 1

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
