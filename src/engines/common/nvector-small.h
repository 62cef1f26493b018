/* A serial N_Vector with tighter loops for the few operations CVODES calls
 * most on small systems (docs/performance.md, "Small systems: per-step cost").
 * Same storage and the same floating-point operations in the same order as
 * SUNDIALS' serial vector, so results are bit-identical; only the dispatch
 * and the loops are leaner. Clones (CVODES' Nordsieck array, weights, work
 * vectors) inherit the operations. */
#ifndef CRADLE_NVECTOR_SMALL_H
#define CRADLE_NVECTOR_SMALL_H

#include <nvector/nvector_serial.h>

/* A serial vector of length @p n with the lean operations, or NULL when out of
 * memory. Read and write it with N_VGetArrayPointer as any serial vector. */
N_Vector cr_nvector_small(sunindextype n, SUNContext ctx);

#endif
