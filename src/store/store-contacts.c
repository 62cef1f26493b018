/*
 * /contact_peaks: the located peaks of each contact over the run, one row per
 * row of /contacts (docs/hdf5-layout.md, "/contact_peaks"), summed and
 * maximised over the monitor's episode records. Written beside /episodes by
 * cr_store_write_episodes; kept apart from store.c's layout code.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "store/store-priv.h"

typedef struct {
    int64_t contact, episodes;
    double peak_force, peak_force_time;
    int64_t peak_force_episode;
    double peak_overlap, duration;
} peak_row;

/* Folds episode k's record @p r into its contact's row. */
static void take_record(peak_row *row, const cr_contact_record *r, size_t k)
{
    row->episodes++;
    if (row->peak_force_episode < 0 || r->peak_force > row->peak_force) {
        row->peak_force = r->peak_force;
        row->peak_force_time = r->peak_force_time;
        row->peak_force_episode = (int64_t)k;
    }
    row->peak_overlap = fmax(row->peak_overlap, r->peak_overlap);
    row->duration += r->duration;
}

int cr_store_write_contact_peaks(hid_t file, const cr_monitor *mon, size_t ncontacts)
{
    peak_row *rows = calloc(ncontacts ? ncontacts : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t c = 0; c < ncontacts; c++)
        rows[c] = (peak_row){(int64_t)c, 0, 0.0, NAN, -1, 0.0, 0.0};
    size_t ne = cr_monitor_episode_count(mon);
    for (size_t k = 0; k < ne; k++) {
        size_t nr = 0;
        const cr_contact_record *rec = cr_monitor_contacts(mon, k, &nr);
        for (size_t q = 0; rec && q < nr; q++)
            if (rec[q].contact < ncontacts)
                take_record(&rows[rec[q].contact], &rec[q], k);
    }
    const cr_h5_column f[] = {
        CR_H5_COL(peak_row, contact, H5T_NATIVE_INT64, "1 (row of /contacts)"),
        CR_H5_COL(peak_row, episodes, H5T_NATIVE_INT64, "1 (episodes with a record of it)"),
        CR_H5_COL(peak_row, peak_force, H5T_NATIVE_DOUBLE, "N"),
        CR_H5_COL(peak_row, peak_force_time, H5T_NATIVE_DOUBLE, "s"),
        CR_H5_COL(peak_row, peak_force_episode, H5T_NATIVE_INT64, "1 (row of /episodes; -1)"),
        CR_H5_COL(peak_row, peak_overlap, H5T_NATIVE_DOUBLE, "m"),
        CR_H5_COL(peak_row, duration, H5T_NATIVE_DOUBLE, "s (loaded time, all episodes)"),
    };
    int e =
        cr_h5_write_table(file, "contact_peaks", sizeof(peak_row), f, sizeof f / sizeof f[0], rows,
                          ncontacts, "per row of /contacts: the located peaks over the episodes");
    free(rows);
    return e;
}
