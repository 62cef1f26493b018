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

#endif
