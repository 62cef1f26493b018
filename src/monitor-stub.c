/*
 * TEMPORARY STUB — drop this file when the real monitor (src/monitor.c on
 * cr_system) is merged, and put monitor.c back into src/meson.build.
 *
 * It implements include/cradle/monitor.h with zero episodes, so that the store
 * (branch store-layout) compiles and runs against the new header while the
 * monitor is being written in another branch. It follows nothing and computes
 * nothing.
 */
#include "cradle/monitor.h"

#include <stdlib.h>

struct cr_monitor {
    cr_system *sys;
};

cr_monitor *cr_monitor_create(cr_system *sys)
{
    if (!sys)
        return NULL;
    cr_monitor *mon = calloc(1, sizeof(*mon));
    if (mon)
        mon->sys = sys;
    return mon;
}

void cr_monitor_destroy(cr_monitor *mon)
{
    free(mon);
}

int cr_monitor_finish(cr_monitor *mon)
{
    return mon ? CR_OK : CR_ERR_INVALID;
}

size_t cr_monitor_episode_count(const cr_monitor *mon)
{
    (void)mon;
    return 0;
}

int cr_monitor_get_episode(const cr_monitor *mon, size_t k, cr_episode_info *info)
{
    (void)mon, (void)k, (void)info;
    return CR_ERR_INVALID;
}

#define STUB_EMPTY(n) \
    do {              \
        if (n)        \
            *(n) = 0; \
    } while (0)

const size_t *cr_monitor_bodies(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

const double *cr_monitor_masses(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

const double *cr_monitor_velocities(const cr_monitor *mon, size_t k, int after, size_t *n)
{
    (void)mon, (void)k, (void)after;
    STUB_EMPTY(n);
    return NULL;
}

const cr_contact_record *cr_monitor_contacts(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

const double *cr_monitor_vector_impulses(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

const double *cr_monitor_normals(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

const size_t *cr_monitor_events(const cr_monitor *mon, size_t k, size_t *n)
{
    (void)mon, (void)k;
    STUB_EMPTY(n);
    return NULL;
}

int cr_monitor_alpha_matrix(const cr_monitor *mon, size_t k, double *alpha)
{
    (void)mon, (void)k, (void)alpha;
    return CR_ERR_INVALID;
}

int cr_monitor_kinetic_cosines(const cr_monitor *mon, size_t k, double *cosines)
{
    (void)mon, (void)k, (void)cosines;
    return CR_ERR_INVALID;
}

cr_impact *cr_monitor_impact(const cr_monitor *mon, size_t k)
{
    (void)mon, (void)k;
    return NULL;
}
