/*
 * libFuzzer target: the run-file reader (cr_run_file, what `cradle compare
 * RUN.h5` and `cradle law --input RUN.h5` read) on arbitrary bytes, then the
 * comparator on every episode it accepts. Beyond "no crash, no leak, no hang"
 * (ASan, UBSan, LSan, -timeout) it asserts the reader's promises: a refusal is
 * one line naming the file; an accepted episode has the shapes and ranges the
 * file's records say (so no array is read past its end); and no comparison
 * row says ok with a non-finite error, energy ratio or u+ (issue 23 item 4).
 * The restart state `cradle run --continue` reads goes through the same
 * checks (cr_run_file_restart).
 */
#include <math.h>

#include "cradle/cradle.h"
#include "fuzz-h5file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Episodes compared per input: every law on each (libFuzzer's throughput
 * is what finds bugs). */
#define COMPARE_EPISODES 2

static void check_episode(const cr_episode_data *d)
{
    size_t nb = d->info.body_count, nr = d->info.contact_count, dim = (size_t)d->dim;
    if (dim < 1 || dim > 3 || nb == 0 || nr == 0 || d->info.reference_record >= nr)
        abort();
    for (size_t q = 0; q < nb; q++) {
        if (!(d->mass[q] > 0.0) || (q && d->bodies[q] <= d->bodies[q - 1]))
            abort();
        for (size_t j = 0; j < dim; j++)
            if (!isfinite(d->velocity_before[q * dim + j]) ||
                !isfinite(d->velocity_after[q * dim + j]))
                abort();
    }
    for (size_t r = 0; r < nr; r++)
        for (size_t j = 0; j < dim; j++)
            if (!isfinite(d->normals[r * dim + j]) || !isfinite(d->vector_impulses[r * dim + j]) ||
                !isfinite(d->records[r].impulse))
                abort();
}

static void check_rows(const cr_compare *c)
{
    cr_compare_episode e;
    if (cr_compare_get_episode(c, cr_compare_episode_count(c) - 1, &e) != CR_OK)
        abort();
    for (size_t i = e.first_row; i < e.first_row + e.row_count; i++) {
        const cr_compare_row *r = cr_compare_get_row(c, i);
        if (r->status != CR_COMPARE_OK)
            continue;
        const double *u = cr_compare_row_velocity(c, i);
        if (!isfinite(r->error) || !isfinite(r->energy_ratio) || !u)
            abort();
        for (size_t k = 0; k < e.dofs; k++)
            if (!isfinite(u[k]))
                abort();
    }
}

/* The restart state (`cradle run --continue`): a refusal is one line; an
 * accepted one has finite numbers of the shape it says. */
static void check_restart(const char *path)
{
    char msg[1024] = "";
    cr_restart_state rs;
    if (cr_run_file_restart(path, &rs, msg, sizeof msg) != CR_OK) {
        fuzz_one_line(msg, path);
        return;
    }
    if (!rs.model_text || !rs.status || !rs.kind || rs.dim < 1 || rs.dim > 3 ||
        rs.body_count == 0 || !(rs.time >= 0.0) || !isfinite(rs.time))
        abort();
    for (size_t i = 0; i < rs.body_count * (size_t)rs.dim; i++)
        if (!isfinite(rs.position[i]) || !isfinite(rs.velocity[i]))
            abort();
    cr_restart_state_free(&rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_h5_path(data, size);
    check_restart(path);
    char msg[1024] = "";
    cr_run_file *f = cr_run_file_open(path, msg, sizeof msg);
    if (!f) {
        fuzz_one_line(msg, path);
        return 0;
    }
    if (!cr_run_file_model_text(f) || !cr_run_file_status(f))
        abort();
    size_t n = cr_run_file_episode_count(f);
    for (size_t k = 0; k < n && k < COMPARE_EPISODES; k++) {
        cr_episode_data d;
        const cr_contact_params *laws;
        if (cr_run_file_episode(f, k, &d, &laws) != CR_OK) {
            fuzz_one_line(cr_run_file_last_error(f), path);
            continue;
        }
        check_episode(&d);
        cr_compare *c = cr_compare_create();
        if (c && cr_compare_add(c, k, &d, laws, 0) == CR_OK)
            check_rows(c);
        cr_compare_destroy(c);
    }
    cr_run_file_close(f);
    return 0;
}
