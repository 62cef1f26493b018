#include "engines/common/root-search.h"

#include <math.h>
#include <string.h>

/* The function whose crossing is nearest the low end of [lo, hi]: the largest
 * |hi/(hi − lo)| among the sign changes (CVODE's imax), preferring the smooth
 * ones (guide[c]: a secant on a jump converges only as bisection). -1 when
 * none changes sign. */
static long nearest(const double *lo, const double *hi, const unsigned char *guide, size_t nc)
{
    long imax = -1;
    double maxfrac = 0.0;
    int smooth = 0;
    for (size_t c = 0; c < nc; c++)
        if (cr_root_differ(lo[c], hi[c])) {
            double frac = fabs(hi[c] / (hi[c] - lo[c]));
            if ((guide[c] && !smooth) || ((guide[c] || !smooth) && frac > maxfrac) || imax < 0) {
                maxfrac = frac;
                imax = (long)c;
                smooth |= guide[c];
            }
        }
    return imax;
}

/* A trial point of the Illinois search, kept 0.1 … 0.5 of the bracket away
 * from its ends when the secant lands closer than ttol/2 (as CVODE). */
static double trial(double tlo, double thi, double glo, double ghi, double alph, double ttol)
{
    double tmid = thi - (thi - tlo) * ghi / (ghi - alph * glo);
    double fracint = fabs(thi - tlo) / ttol, fracsub = fracint > 5.0 ? 0.1 : 0.5 / fracint;
    if (fabs(tmid - tlo) < 0.5 * ttol)
        tmid = tlo + fracsub * (thi - tlo);
    if (fabs(thi - tmid) < 0.5 * ttol)
        tmid = thi - fracsub * (thi - tlo);
    return tmid;
}

double cr_root_locate(cr_root_bracket *b, double tlo, double thi, double ttol,
                      cr_root_values_fn values, void *user)
{
    double alph = 1.0;
    int side = 0, sideprev = -1;
    long imax = nearest(b->lo, b->hi, b->guide, b->n);
    while (fabs(thi - tlo) > ttol) {
        /* Illinois: a side kept twice in a row halves (or doubles) the weight
         * of the stale end, so the secant does not crawl */
        alph = sideprev == side ? (side == 2 ? 2.0 * alph : 0.5 * alph) : 1.0;
        double tmid = trial(tlo, thi, b->lo[imax], b->hi[imax], alph, ttol);
        values(user, tmid, b->mid);
        sideprev = side;
        long m = nearest(b->lo, b->mid, b->guide, b->n);
        memcpy(m >= 0 ? b->hi : b->lo, b->mid, b->n * sizeof(double));
        if (m >= 0) { /* a sign change in (tlo, tmid] */
            thi = tmid;
            imax = m;
            side = 1;
        } else {
            tlo = tmid;
            side = 2;
        }
    }
    return thi;
}

double cr_root_search(cr_root_bracket *b, double tlo, double thi, double ttol,
                      cr_root_values_fn values, void *user, const size_t *index, int *rootsfound,
                      size_t nrf)
{
    thi = cr_root_locate(b, tlo, thi, ttol, values, user);
    memset(rootsfound, 0, nrf * sizeof(int));
    for (size_t c = 0; c < b->n; c++)
        rootsfound[index[c]] = !cr_root_differ(b->lo[c], b->hi[c]) ? 0 : b->lo[c] > 0.0 ? -1 : 1;
    return thi;
}
