/* Private parts of the model-file reader shared by its files: modelfile.c (the
 * schema), modelfile-pool.c (the `three_disc` generator) and modelfile-output.c. */
#ifndef CRADLE_MODELFILE_PRIV_H
#define CRADLE_MODELFILE_PRIV_H

#include "cradle/model.h"
#include "base/base.h"
#include "base/yaml.h"

/* Adds the three discs of a `three_disc: {theta, tau, mass, radius, speed, gap}`
 * mapping to a dim-2 model (errors recorded in ps, with the field's line). */
int cr_modelfile_three_disc(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model);

/* The `output` section (modelfile-output.c) into @p s, checked against the
 * model's bodies and dimension (errors recorded in ps, with the field's line). */
int cr_modelfile_output(cr_yaml_ctx *ps, struct fy_node *out, const cr_model *model,
                        cr_settings *s);

#endif
