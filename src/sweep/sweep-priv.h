/* Private parts of the sweep, shared by its files: sweep.c (the sweep file and
 * the grid), sweep-point.c (one point through the pipeline), sweep-file.c (the
 * HDF5 output, its reader and CSV) and sweep-run.c (the OpenMP loop). */
#ifndef CRADLE_SWEEP_PRIV_H
#define CRADLE_SWEEP_PRIV_H

#include "cradle/sweep.h"
#include "base/base.h"

/* One varied field: its values, one per position of its crossed axis. */
typedef struct {
    char *field;     /* dotted path, as --set takes it */
    char *name;      /* column name: the axis' key, else the field */
    size_t axis;     /* the crossed axis it belongs to */
    char **values;   /* axis length texts */
    double *numbers; /* the same as numbers (NaN: not a number) */
} sw_input;

/* Fixed output columns after the inputs (docs/sweep.md). */
enum {
    SW_EPISODES,
    SW_T_END,
    SW_DURATION,
    SW_REFERENCE,
    SW_KAPPA,
    SW_RECORDS,
    SW_V_CM_BEFORE, /* the first collision's centre-of-mass velocity (docs/sweep.md) */
    SW_V_CM_AFTER,
    SW_E_CM,
    SW_FIXED
};
/* Per-contact column blocks: alpha, e_N, e_P, impulse. */
#define SW_PER_CONTACT 4

struct cr_sweep {
    char *name, *text, *model_path, *model_name, *model_text;
    char **sets; /* "field=value" applied at every point */
    size_t nsets;
    sw_input *in;
    size_t nin;
    size_t *axis_len;
    size_t naxes;
    size_t points;
    size_t contacts; /* per-contact columns */
    size_t bodies;   /* per-body final velocities (v_final), dim columns each */
    int dim;         /* the first point's dimension (1 if it has no model) */
    char hash[32];
    char **columns;
    size_t ncol;
};

/* Column offsets of the output blocks. */
static inline size_t sw_col_fixed(const cr_sweep *s)
{
    return s->nin;
}
static inline size_t sw_col_contact(const cr_sweep *s, int which, size_t c)
{
    return s->nin + SW_FIXED + (size_t)which * s->contacts + c;
}
/* v_final of body b, component k (k < dim) */
static inline size_t sw_col_body(const cr_sweep *s, size_t b, int k)
{
    return s->nin + SW_FIXED + SW_PER_CONTACT * s->contacts + b * (size_t)s->dim + (size_t)k;
}
/* error.LAW.MODE (mean = 0) or mean_error.LAW.MODE (mean = 1) */
size_t cr_sweep_law_column(const cr_sweep *s, int mean, int law, int mode);
/* The position along each crossed axis of point i (last axis fastest). */
void cr_sweep_point_index(const cr_sweep *s, size_t i, size_t *pos);
/* The overrides of point i: the sets, then "field=value" per input (strdup'ed into
 * items, nsets + nin of them; pos: naxes scratch values). @return their number. */
size_t cr_sweep_point_items(const cr_sweep *s, size_t i, char **items, size_t *pos);

#endif
