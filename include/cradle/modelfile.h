/**
 * @file modelfile.h
 * @brief YAML model files (schema in docs/model-format.md) → cr_model, one
 * schema for every dimension: chains (dim 1) and planar pools (dim 2). No
 * parser builds a simulator: cr_system_create takes the model.
 *
 * Every error is one line naming the file, the line and the field:
 * `models/bad.yaml:7: balls[1].mass: must be positive (got -1)`.
 */
#ifndef CRADLE_MODELFILE_H
#define CRADLE_MODELFILE_H

#include "cradle/common.h"
#include "cradle/model.h"

/**
 * Parses and validates the model in @p text (@p len bytes); @p filename is used
 * in messages only.
 * @return CR_OK and a new model in @p out, or CR_ERR_SYNTAX / CR_ERR_MODEL /
 * CR_ERR_NOMEM with the one-line reason in @p msg.
 */
CR_EXPORT int cr_modelfile_parse(const char *text, size_t len, const char *filename, cr_model **out,
                                 char *msg, size_t msglen);

/**
 * Reads @p path and parses it. When @p text_out is not NULL it receives the
 * file's text (free() it), so a caller can archive exactly what was run.
 * @return as cr_modelfile_parse, or CR_ERR_IO.
 */
CR_EXPORT int cr_modelfile_load(const char *path, cr_model **out, char **text_out, char *msg,
                                size_t msglen);

/** Overrides a parse takes at most. */
#define CR_MODELFILE_MAX_SETS 256

/**
 * Command-line overrides of model-file fields (docs/model-format.md,
 * "Overrides"): each item is "PATH=VALUE". PATH is the field's dotted path as
 * messages name it, `chain.count`, `contact.pairs[0].K`, `balls[1].mass` (or
 * `balls.1.mass`); mappings missing on the way are created, list items must
 * exist. VALUE is YAML flow text: `7`, `0.9`, `force`, `[1, 0]`,
 * `{E: 2.1e11, nu: 0.3}`.
 */
typedef struct {
    const char *const *items; /**< count items "PATH=VALUE" */
    size_t count;
    /** put before an item in messages: "--set " gives `--set chain.count=-1: chain.count:
     * must be ...`; NULL: "--set " */
    const char *label;
} cr_modelfile_sets;

/**
 * Parses @p text as cr_modelfile_parse after setting the fields @p sets names
 * in the YAML document: the edited document is validated as a file would be,
 * and an error in an overridden field names the override instead of a line.
 * @p effective (may be NULL) receives the model text that was parsed (free()
 * it): @p text itself without overrides, else the edited document (block
 * style, comments dropped) after one comment line naming the overrides, which
 * parses to the same model. @return as cr_modelfile_parse; a malformed
 * override (no '=', an empty path or value, a path through a scalar, a list
 * index out of range) is CR_ERR_MODEL naming it.
 */
CR_EXPORT int cr_modelfile_parse_set(const char *text, size_t len, const char *filename,
                                     const cr_modelfile_sets *sets, cr_model **out,
                                     char **effective, char *msg, size_t msglen);

/**
 * The model text @p text (as parsed into @p model) rewritten with explicit
 * bodies: its body list (`bodies`, `lattice`, `sphere_triple`, ...) becomes a
 * `bodies:` list of @p model's bodies (mass, radius, material) at positions
 * @p x and velocities @p v (dim values per body; @p x NULL: the model's own
 * state; @p v NULL with @p x: at rest), the walls a generator made join the
 * file's `walls:` list, and every other top-level field is kept (one-line flow
 * form, comments dropped). Numbers are written to 17 digits, so the text
 * reads back to the same bodies. @p header (may be NULL) goes first. dim 2
 * and 3. @return CR_OK and a new string in @p out (free() it), or an error
 * code with the reason in @p msg.
 */
CR_EXPORT int cr_modelfile_explicit_bodies(const char *text, size_t len, const char *filename,
                                           const cr_model *model, const double *x, const double *v,
                                           const char *header, char **out, char *msg,
                                           size_t msglen);

#endif
