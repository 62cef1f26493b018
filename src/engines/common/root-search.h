/* The Illinois search both compliant engines use to locate the first root
 * among the root functions that changed sign over a step (chains: sim.c's own
 * event location; pools: pool-roots.c). CVODE's own method and tolerance, but
 * over the candidates only, and with a guide flag that keeps functions which
 * jump where another one crosses (a contact's rate and release functions at
 * its closing) from steering the secant. */
#ifndef CRADLE_ROOT_SEARCH_H
#define CRADLE_ROOT_SEARCH_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Opposite signs (never a product: 1e-300 · 1e-25 underflows to 0). */
static inline int cr_root_differ(double a, double b)
{
    return (a < 0.0) != (b < 0.0);
}

/* The candidates' values at the (scaled) time t into out[0 .. n). */
typedef void (*cr_root_values_fn)(void *user, double t, double *out);

/* One search's candidates: their values at the bracket's low and high ends
 * (lo, hi; updated as the bracket shrinks), room for a trial point's (mid),
 * and which may steer the secant (guide). All n long, owned by the engine. */
typedef struct {
    size_t n;
    double *lo, *hi, *mid;
    const unsigned char *guide;
} cr_root_bracket;

/* The first root in (tlo, thi] to within ttol: the Illinois method, values
 * from @p values. @return the high end of the last bracket, where the located
 * functions have their new signs (b->lo and b->hi hold the values at its
 * ends). */
double cr_root_locate(cr_root_bracket *b, double tlo, double thi, double ttol,
                      cr_root_values_fn values, void *user);

/* CVODE's root tolerance at time t with step h: 100 ε (|t| + |h|). */
static inline double cr_root_tolerance(double t, double h)
{
    return (fabs(t) + fabs(h)) * DBL_EPSILON * 100.0;
}

/* cr_root_locate over the step's candidates, and the outcome as CVODE gives
 * it: rootsfound[0 .. nrf) is 0 but for rootsfound[index[c]] = ±1 (the
 * direction) for each candidate c that changes sign over the final bracket.
 * With nrf = 0 only the candidates' entries are written (0 or ±1): the caller
 * keeps the others 0, so a search costs nothing in the number of functions.
 * @return the root's time (cr_root_locate). */
double cr_root_search(cr_root_bracket *b, double tlo, double thi, double ttol,
                      cr_root_values_fn values, void *user, const size_t *index, int *rootsfound,
                      size_t nrf);

#endif
