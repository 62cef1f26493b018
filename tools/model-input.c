#include "model-input.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools-common.h"

int model_sets_add(model_sets *s, const char *item)
{
    if (s->count == MODEL_INPUT_MAX_SETS) {
        tools_error("more than %d --set options", MODEL_INPUT_MAX_SETS);
        return EXIT_USAGE;
    }
    if (!strchr(item, '=')) {
        tools_error("--set %s: expects PATH=VALUE, e.g. --set chain.count=7", item);
        return EXIT_USAGE;
    }
    s->items[s->count++] = item;
    return 0;
}

int model_io_option(int c, const char *arg, model_io *io)
{
    switch (c) {
    case 'o':
        io->out = arg;
        return 0;
    case 'q':
        io->quiet = 1;
        return 0;
    case 'j':
        io->json = 1;
        return 0;
    case 's':
        return model_sets_add(&io->sets, arg);
    default:
        return -1;
    }
}

const char *model_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "(stdin)" : path;
}

/* Solves the damping targets of @p model; on failure prints the one line,
 * destroys the model and @return NULL. */
static cr_model *calibrated(cr_model *model, const char *name)
{
    char msg[1024];
    if (cr_calibrate_model(model, msg, sizeof msg) != CR_OK) {
        tools_error("%s: calibration: %s", name, msg);
        cr_model_destroy(model);
        return NULL;
    }
    return model;
}

cr_model *model_input_parse(const char *text, size_t len, const char *name)
{
    char msg[1024];
    cr_model *model = NULL;
    if (cr_modelfile_parse(text, len, name, &model, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return NULL;
    }
    return calibrated(model, name);
}

/* Tolerances finer than double precision resolves are accepted (the
 * integrators work at their own floor), with a one-line note that they buy
 * nothing: relative 100 ε ≈ 2.2e-14. */
static void note_tolerances(const cr_model *model, const char *name)
{
    const double floor = 100.0 * DBL_EPSILON;
    double rtol = cr_model_settings(model)->rtol;
    if (rtol < floor)
        fprintf(stderr,
                "cradle: note: %s: integration.rtol = %g is below what double precision "
                "resolves (%.1e): the run is no more accurate than at %.1e\n",
                name, rtol, floor, floor);
}

cr_model *model_input_load(const char *path, const model_sets *sets, int calibrate,
                           char **effective)
{
    char msg[1024];
    size_t len = 0;
    const char *name = model_input_name(path);
    *effective = NULL;
    if (tools_is_hdf5(path)) {
        tools_error("%s: an HDF5 file, not a model file (`cradle compare RUN.h5` reads run "
                    "files; `cradle run` needs the model)",
                    path);
        return NULL;
    }
    /* /dev/stdin reads a pipe, a file or a terminal alike, to the end */
    char *text =
        cr_file_read(strcmp(path, "-") == 0 ? "/dev/stdin" : path, &len, msg, sizeof msg, NULL);
    if (!text) {
        tools_error("%s", msg);
        return NULL;
    }
    cr_modelfile_sets in = {sets ? sets->items : NULL, sets ? sets->count : 0, "--set "};
    cr_model *model = NULL;
    int rc = cr_modelfile_parse_set(text, len, name, &in, &model, effective, msg, sizeof msg);
    free(text);
    if (rc != CR_OK) {
        tools_error("%s", msg);
        return NULL;
    }
    if (calibrate && !(model = calibrated(model, name))) {
        free(*effective);
        *effective = NULL;
    }
    if (model)
        note_tolerances(model, name);
    return model;
}
