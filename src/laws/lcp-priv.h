/* The linear complementarity problems of the rigid laws, solved by Siconos
 * Numerics: find z ≥ 0 with w = G z + q ≥ 0 and zᵀw = 0. Siconos is opened
 * with dlopen at the first problem that needs it, not at program start. */
#ifndef CRADLE_LCP_PRIV_H
#define CRADLE_LCP_PRIV_H

#include <stddef.h>

/*
 * G is m × m column-major (not modified), q of length m. Lexicographic Lemke
 * first (exact pivoting; handles the degenerate problems of touching contacts),
 * on q scaled to max |qᵢ| = 1; enumeration of the active sets as a fallback
 * up to 16 contacts. Returns 0 on success and the natural residual
 * max |min(zᵢ, wᵢ)| relative to max |qᵢ| in *residual.
 */
int cr_lcp_solve(size_t m, const double *G, const double *q, double *z, double *residual);

/** cr_lcp_solve's return value when Siconos Numerics cannot be loaded (*residual is NaN). */
#define CR_LCP_UNAVAILABLE (-1000)

/*
 * Loads Siconos Numerics on the first call (thread-safe, once per process).
 * @return NULL when it is loaded, else why not (the library and dlerror's
 * text), for the caller's message.
 */
const char *cr_lcp_load_error(void);

#endif
