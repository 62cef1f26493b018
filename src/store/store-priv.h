/* HDF5 helpers the store's writers share (private): attributes, compound
 * tables with per-column units, and the copy-then-rename replacement that
 * keeps a target file untouched until the new one is complete. */
#ifndef CRADLE_STORE_PRIV_H
#define CRADLE_STORE_PRIV_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "cradle/monitor.h"
#include "base/h5-util.h"

/*
 * Copies @p source beside @p target, lets @p write add to the copy, closes and
 * fsyncs it and renames it over @p target: the target is never edited in
 * place, and on failure it is unchanged and no temporary is left. @p what
 * names the group in the message. @return CR_OK, CR_ERR_IO or CR_ERR_HDF5.
 */
int cr_store_replace_through_copy(const char *source, const char *target,
                                  int (*write)(hid_t file, const void *ctx), const void *ctx,
                                  const char *what, char *msg, size_t msglen);

/*
 * A new /comparison group in @p file (an older one deleted first) with the
 * attributes both kinds of comparison carry: cradle_version, written (UTC),
 * source and command (NULL: ""). @return the group (caller closes) or -1.
 */
hid_t cr_store_comparison_group(hid_t file, const char *source, const char *command);

/* One row of an episode's "contacts" table (docs/hdf5-layout.md): the layout
 * store.c writes and store-read.c reads, defined once so they cannot drift. */
typedef struct {
    int64_t contact, body_a, body_b;
    double impulse, compression, expansion, gamma_minus, gamma_plus, newton, poisson, alpha;
    double peak_overlap, peak_force;
    int32_t closings, openings, flags;
    double peak_force_time, duration; /* since the peaks (issue 22): last, optional */
} cr_store_record_row;

/* Columns of a record row: all of them, and those of files written before the
 * located peaks (no peak_force_time, no duration), which readers still take. */
enum { CR_STORE_RECORD_COLUMNS = 18, CR_STORE_RECORD_COLUMNS_BEFORE_PEAKS = 16 };

/* The columns of that table, with their units, into @p c (the optional ones last). */
void cr_store_record_columns(cr_h5_column c[CR_STORE_RECORD_COLUMNS]);

/* /contact_peaks (store-contacts.c): per row of /contacts, the located peaks
 * over the monitor's episodes. @return 0 or -1 (HDF5 failed). */
int cr_store_write_contact_peaks(hid_t file, const cr_monitor *mon, size_t ncontacts);

#endif
