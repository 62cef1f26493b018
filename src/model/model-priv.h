/* Private parts of the model-file reader shared by its files: modelfile.c (the
 * schema), modelfile-pool.c (the `three_disc` generator) and modelfile-output.c. */
#ifndef CRADLE_MODELFILE_PRIV_H
#define CRADLE_MODELFILE_PRIV_H

#include "cradle/model.h"
#include "base/base.h"
#include "base/yaml.h"

/* The fields of a body entry that hold its mass, radius, position and
 * velocity components (NULL: computed, not given). */
typedef struct {
    const char *mass, *radius, *x[3], *v[3];
    struct fy_node *vmap; /* the mapping of v's keys, when not the entry's (NULL) */
    const char *vwhere;   /* and its path */
} cr_body_keys;

/* A body's mass, radius, position and velocity within the range
 * cr_model_validate asks (CR_MAX_MAGNITUDE), refused with the file, line and
 * field path that gave the number out of range (the entry @p map at @p where
 * when it was computed). @p dim components of x and v. */
int cr_modelfile_body_in_range(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                               const cr_body_keys *k, double mass, double radius, const double *x,
                               const double *v, int dim);

/* cr_model_add_body, its failure recorded in @p ps ("file: [where: ]reason"):
 * the body's index, or the negative code. */
int cr_modelfile_add_body(cr_yaml_ctx *ps, const char *where, cr_model *model, double mass,
                          double radius, const double *x, const double *v);

/* Adds the three discs of a `three_disc: {theta, tau, mass, radius, speed, gap}`
 * mapping to a dim-2 model (errors recorded in ps, with the field's line). */
/* A body map's mass: `mass`, or `density` (m = ρ (4/3) π r³ from @p radius),
 * never both (modelfile.c). */
int cr_modelfile_mass(cr_yaml_ctx *ps, struct fy_node *map, const char *where, double radius,
                      double *mass);
int cr_modelfile_three_disc(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model);
/* An optional `material: {E, nu}` of entry @p b for model body @p i. */
int cr_modelfile_body_material(cr_yaml_ctx *ps, struct fy_node *b, const char *where,
                               cr_model *model, size_t i);
/* The `clumps` list (modelfile-bodies.c): planar rigid bodies, each a clump of
 * discs from a shape generator, added as features and a cr_clump. */
int cr_modelfile_clumps(cr_yaml_ctx *ps, struct fy_node *seq, cr_model *model);

/* The dim-3 generators (modelfile-lattice.c): `sphere_triple` (a striker on
 * the axis of three touching spheres) and `lattice` (cubic, fcc, tetrahedral
 * blocks or random insertion; jitter, box walls, striker). */
int cr_modelfile_sphere_triple(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model);
int cr_modelfile_lattice(cr_yaml_ctx *ps, struct fy_node *map, cr_model *model);
/* A material mapping {E, nu} at @p where (modelfile.c). */
int cr_modelfile_material(cr_yaml_ctx *ps, struct fy_node *mat, int line, const char *where,
                          double *E, double *nu);
/* The first pair of bodies (by the later index) that interpenetrate beyond the
 * touching tolerance: 1 with the pair and depth, 0 when none, -1 out of memory. */
int cr_modelfile_first_overlap(const cr_model *model, size_t *bi, size_t *bj, double *depth);

/* The `output` section (modelfile-output.c) into @p s, checked against the
 * model's bodies and dimension (errors recorded in ps, with the field's line). */
int cr_modelfile_output(cr_yaml_ctx *ps, struct fy_node *out, cr_model *model, cr_settings *s);

#endif
