/* Collisions above episodes (src/monitor/collisions.c), built by the monitor at
 * cr_monitor_finish from its finished episodes through the public getters. */
#ifndef CRADLE_COLLISIONS_PRIV_H
#define CRADLE_COLLISIONS_PRIV_H

#include "cradle/monitor.h"

typedef struct cr_collision_set cr_collision_set;

/* Builds the collisions of @p mon's finished episodes; @p window ≤ 0: the
 * automatic rule. @return NULL when out of memory. */
cr_collision_set *cr_collisions_build(const cr_monitor *mon, size_t nbody, int dim, double window);
void cr_collisions_free(cr_collision_set *set);

/* monitor.c: in models with rigid bodies (cr_system_rotating_body), each
 * body of finished episode @p k's kinetic energy before and after (2 per
 * body: a rigid body's ½ m v² + ½ J ω² on one of its discs, 0 on the others);
 * NULL in other models. */
const double *cr_monitor_body_energies(const cr_monitor *mon, size_t k, size_t *n);

/* monitor.c: the set built at cr_monitor_finish, or NULL before. */
const cr_collision_set *cr_monitor_collision_set(const cr_monitor *mon);

#endif
