/* The engines behind cr_system_create (one ops table each). */
#ifndef CRADLE_ENGINES_PRIV_H
#define CRADLE_ENGINES_PRIV_H

#include "cradle/engine.h"

extern const cr_engine_ops cr_chain_engine; /* sim.c: dim 1, banded */
extern const cr_engine_ops cr_pool_engine;  /* pool-engine.c: dim 2, sparse */

#endif
