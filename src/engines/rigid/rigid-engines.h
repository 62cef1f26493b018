/* The rigid engines for the engine factory (engines.c: cr_system_create_rigid):
 * their ops tables and their constructors, which take the law that the ops
 * table's create cannot carry. */
#ifndef CRADLE_RIGID_ENGINES_H
#define CRADLE_RIGID_ENGINES_H

#include "cradle/engine.h"
#include "cradle/laws.h"

extern const cr_engine_ops cr_rigid_engine;       /* rigid.c: chains */
extern const cr_engine_ops cr_rigid_pool_engine;  /* rigid-pool.c: pools (dim 2) */
extern const cr_engine_ops cr_rigid_pool3_engine; /* rigid-pool.c: the same in dim 3 */

/* Build the engine for @p model with @p law and its parameters @p p; NULL with
 * the reason in @p msg. */
void *cr_rigid_create(const cr_model *model, cr_system *sys, cr_law_id law, const cr_law_params *p,
                      char *msg, size_t msglen);
void *cr_rigid_pool_create(const cr_model *model, cr_system *sys, cr_law_id law,
                           const cr_law_params *p, char *msg, size_t msglen);

#endif
