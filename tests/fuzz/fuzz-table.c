/*
 * libFuzzer target: the sweep-output and reference-table readers
 * (cr_sweep_output, cr_table: `cradle table info|lookup`, `--table`, sweep
 * --csv) on arbitrary bytes, then lookups at the corners and the middle of
 * every accepted table and its CSV. Beyond "no crash, no leak, no hang" it
 * asserts: a refusal is one line naming the file; every string the readers
 * hand out ends within its slot (ASan sees an over-read); a lookup at a
 * grid corner is the stored value or an error, never a number from nowhere.
 */
#include <math.h>

#include "cradle/cradle.h"
#include "fuzz-h5file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LOOKUP_COLUMNS 8

static void read_output(const char *path)
{
    char msg[1024] = "";
    cr_sweep_output *o = cr_sweep_output_open(path, msg, sizeof msg);
    if (!o) {
        fuzz_one_line(msg, path);
        return;
    }
    for (size_t i = 0; i < cr_sweep_output_points(o); i++)
        if (strlen(cr_sweep_output_error(o, i)) >= CR_SWEEP_ERROR_LEN)
            abort();
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    if (cr_sweep_output_write_csv(o, null) != CR_OK)
        abort();
    cr_sweep_output_close(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_h5_path(data, size);
    read_output(path);
    char msg[1024] = "";
    cr_table *t = NULL;
    if (cr_table_open(path, &t, msg, sizeof msg) != CR_OK) {
        fuzz_one_line(msg, path);
        return 0;
    }
    size_t na = cr_table_axis_count(t), nc = cr_table_column_count(t);
    double x[64];
    if (na == 0 || na > 64)
        abort();
    for (int where = 0; where < 3; where++) {
        for (size_t a = 0; a < na; a++) {
            size_t n = cr_table_axis_length(t, a);
            double lo = cr_table_axis_value(t, a, 0), hi = cr_table_axis_value(t, a, n - 1);
            x[a] = where == 0 ? lo : where == 1 ? hi : 0.5 * (lo + hi);
        }
        for (size_t j = 0; j < nc && j < LOOKUP_COLUMNS; j++) {
            double v, b;
            int rc = cr_table_lookup(t, x, j, &v, &b);
            if (rc != CR_OK)
                fuzz_one_line(cr_table_last_error(t), path);
            else if (where < 2 && b != 0.0)
                abort(); /* a grid point's bound is 0 */
        }
    }
    (void)cr_table_attr(t, "kind");
    size_t checked;
    for (size_t j = 0; j < nc; j++)
        (void)cr_table_bound(t, j, &checked);
    cr_table_close(t);
    return 0;
}
