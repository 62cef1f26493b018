/* `cradle table make --configuration chain`: what a grid's axes are, found
 * from the models of its points (docs/tables.md, "Impact configurations"). */
#ifndef CRADLE_TABLE_DECLARE_H
#define CRADLE_TABLE_DECLARE_H

#include "cradle/sweep.h"
#include "cradle/table.h"

#define DECL_MAX 64

typedef struct {
    char configuration[16];
    char quantity[DECL_MAX][CR_TABLE_QUANTITY_LEN]; /* one per axis */
    char fixed[DECL_MAX][CR_TABLE_QUANTITY_LEN];
    double fixed_value[DECL_MAX];
    size_t naxes, nfixed;
    char law[3][32]; /* law.n, law.m, law.release of every pair */
    const char *qp[DECL_MAX], *fp[DECL_MAX];
    cr_table_declaration decl; /* points into the above */
} table_decl;

/* Declares the axes of the finished sweep output @p grid: each axis is the
 * quantity of the chain impact that equals it at every point, every other
 * quantity must be the same at every point (held fixed). @return 0, or -1
 * with one line in @p msg. */
int table_declare(const char *grid, table_decl *d, char *msg, size_t len);
/* The sweep the finished output @p grid was made of (its stored text and
 * base model), checked to make it; NULL with one line in @p msg. */
cr_sweep *table_grid_sweep(const char *grid, char *msg, size_t len);

#endif
