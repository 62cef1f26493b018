/* `--rigid energetic --table TABLE`: α and κ of each rigid impact from a
 * reference table (public API only). */
#ifndef CRADLE_RIGID_TABLE_H
#define CRADLE_RIGID_TABLE_H

#include "cradle/cradle.h"

typedef struct rigid_table rigid_table;

/* Opens @p path for rigid runs of @p model (a chain and a chainN table);
 * NULL with one line in @p msg. */
rigid_table *rigid_table_open(const char *path, const cr_model *model, char *msg, size_t len);
/* The law's label for summaries ("table FILE: ..."). */
const char *rigid_table_label(const rigid_table *r);
/* The cr_rigid_provider: α, κ at this impact's masses, laws and speed. */
int rigid_table_params(const cr_system *sys, size_t impact, size_t first, size_t count,
                       cr_law_params *p, char *msg, size_t msglen, void *user);
/* The label with the largest bounds met (after the run). */
const char *rigid_table_label_after(rigid_table *r);
/* The largest bounds of α and of κ (the table's stored ones; 0 at grid
 * points) over the impacts looked up so far. */
void rigid_table_bounds(const rigid_table *r, double bound[2]);
void rigid_table_free(rigid_table *r);

#endif
