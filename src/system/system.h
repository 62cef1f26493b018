/* What the engine factory (src/engines/engines.c) needs of the door beyond
 * cradle/engine.h: a system built by an engine constructor that takes more
 * than the ops table's create does (a rigid engine's law). */
#ifndef CRADLE_SYSTEM_INTERNAL_H
#define CRADLE_SYSTEM_INTERNAL_H

#include "cradle/engine.h"

/* Builds the engine of a new system: @p make with @p ctx, or ops->create when
 * @p make is NULL. */
typedef void *(*cr_engine_make)(const cr_model *model, cr_system *sys, void *ctx, char *msg,
                                size_t msglen);

/* A system around @p ops whose engine @p make builds. @return NULL with the
 * reason in @p msg (the system freed). */
cr_system *cr_system_build(const cr_engine_ops *ops, const cr_model *model, cr_engine_make make,
                           void *ctx, char *msg, size_t msglen);

#endif
