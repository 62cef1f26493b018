/* The relaxation of `cradle pack` (pack-relax.c): a settled packing's contact
 * network brought to touching within the geometric tolerance. */
#ifndef CRADLE_TOOLS_PACK_RELAX_H
#define CRADLE_TOOLS_PACK_RELAX_H

#include <stddef.h>

#include "cradle/cradle.h"

/* n spheres of radii r, the half-space walls (free space n.p >= offset) and
 * the gravity vector, which orders the passes (bottom up). */
typedef struct {
    size_t n, nwalls;
    const double *r, *wall_normal, *wall_offset, *gravity;
    const unsigned char *fixed; /* 1: a fixed sphere, never moved (NULL: none) */
} pack_problem;

typedef struct {
    size_t pairs, wall_contacts; /* touching (|gap| <= eps) at the end */
    size_t opened;               /* network contacts left open (unilateral fallback) */
    long passes, rounds;         /* projection passes; settling rounds (step 3) */
    int bilateral;               /* 1: every network contact held (step 2 converged) */
    double max_gap;              /* largest |gap|/eps over the touching contacts */
    double max_overlap;          /* largest overlap/eps over every candidate pair */
} pack_stats;

/* Moves the spheres (positions x, 3 per sphere) as pack-relax.c says.
 * @return 0 when no pair or wall overlaps beyond eps, 1 when some still do,
 * -1 out of memory. */
int pack_relax(const pack_problem *P, double *x, pack_stats *st);

#endif
