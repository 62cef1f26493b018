/* The compliant engines' ops tables, for the engine factory (engines.c). */
#ifndef CRADLE_COMPLIANT_H
#define CRADLE_COMPLIANT_H

#include "cradle/engine.h"

extern const cr_engine_ops cr_chain_engine; /* sim-engine.c: dim 1, banded */
extern const cr_engine_ops cr_pool_engine;  /* pool-engine.c: dim 2, sparse */
extern const cr_engine_ops cr_pool3_engine; /* pool-engine.c: the same engine in dim 3 */
extern const cr_engine_ops cr_clump_engine; /* clump-engine.c: dim 2 with rigid bodies */

#endif
