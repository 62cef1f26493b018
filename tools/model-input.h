/* Reading a model for the subcommands: a file or standard input ("-"), with
 * `--set PATH=VALUE` overrides (docs/model-format.md, "Overrides"). */
#ifndef CRADLE_TOOLS_MODEL_INPUT_H
#define CRADLE_TOOLS_MODEL_INPUT_H

#include <stddef.h>

#include "cradle/cradle.h"

/* Most --set options a command takes. */
#define MODEL_INPUT_MAX_SETS CR_MODELFILE_MAX_SETS

/* The --set items of one command line, in the order given. */
typedef struct {
    const char *items[MODEL_INPUT_MAX_SETS];
    size_t count;
} model_sets;

/* Records one --set argument; @return 0, or EXIT_USAGE with the message printed. */
int model_sets_add(model_sets *s, const char *item);

/* The options of a command that reads a MODEL and writes a FILE (run,
 * compare): -o FILE, -q, -j and the --set items, parsed in one place. */
typedef struct {
    const char *out; /* the command sets its default before parsing */
    int quiet, json;
    model_sets sets;
} model_io;

#define MODEL_IO_SHORT_OPTIONS "o:qjs:"
#define MODEL_IO_LONG_OPTIONS                                                                      \
    {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},                   \
        {"json", no_argument, NULL, 'j'},                                                          \
    {                                                                                              \
        "set", required_argument, NULL, 's'                                                        \
    }

/* Takes option @p c of MODEL_IO_LONG_OPTIONS: @return 0, an exit status, or -1
 * when @p c is not one of them (as rigid_option). */
int model_io_option(int c, const char *arg, model_io *io);

/* How a model path appears in messages and in the output file: "(stdin)" for "-". */
const char *model_input_name(const char *path);

/*
 * Reads @p path ("-": standard input), applies @p sets, parses and, when
 * @p calibrate, solves the damping targets. @p effective gets the model text
 * as run (free() it). @return the model, or NULL with the one-line message
 * printed (bad input: the caller exits with EXIT_INPUT).
 */
cr_model *model_input_load(const char *path, const model_sets *sets, int calibrate,
                           char **effective);

/*
 * Parses model text that is already in memory (a run file's /model/text) and
 * solves its damping targets; @p name is how messages name it. @return the
 * model, or NULL with the one-line message printed.
 */
cr_model *model_input_parse(const char *text, size_t len, const char *name);

#endif
