#include "engines/common/nvector-small.h"

#include <math.h>
#include <string.h>

/*
 * On a 5-ball cradle CVODES spends most of a step in vector operations on
 * 14-entry vectors: its Nordsieck predictor alone makes q(q+1)/2 linear sums a
 * step. The serial vector reaches each loop through three calls and a ladder
 * of special cases (about 110 instructions a call there, half of them
 * overhead). These replacements compute every entry with the operations the
 * serial vector uses, in the same order, so every result is bit-identical:
 *   linear sum   a x + b y, except a (x + y) when a = b and a (x − y) when
 *                a = −b (the serial vector's special cases; those with ±1
 *                factors round the same either way);
 *   scale        c x;
 *   linear comb. z = c₀X₀, then z += cᵢXᵢ for i = 1, 2, … (the generic
 *                fallback's order; entry by entry when no later Xᵢ is z);
 *   scale-add    Zᵢ = aᵢ x + Yᵢ, one vector after the other;
 *   WRMS norm    √(Σ (xᵢwᵢ)² / N) summed in index order;
 *   weights      |x|, x + b, 1/x.
 * Entries are independent, so z may be x or y in the element-wise loops.
 */

/* Four entries at a time (GCC and Clang vector extensions, memcpy for
 * unaligned loads and stores; element-wise, so the rounding is the scalar
 * loop's, and z may be x or y). The hottest loops are compiled twice, for
 * AVX2 and for the baseline, and the loader picks one (an ifunc): the
 * Nordsieck sums of a 1000-bead window (about 100 entries) took 12 % less
 * of the run with AVX2, bit for bit the same results. */
typedef sunrealtype quad __attribute__((vector_size(4 * sizeof(sunrealtype))));
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

/* z = EXPR of X (an entry of x, or four) for every entry. */
#define UNARY(EXPR)                                                                                \
    do {                                                                                           \
        sunindextype i = 0;                                                                        \
        for (; i + 4 <= n; i += 4) {                                                               \
            quad X, Z;                                                                             \
            memcpy(&X, xd + i, sizeof X);                                                          \
            Z = EXPR;                                                                              \
            memcpy(zd + i, &Z, sizeof Z);                                                          \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            sunrealtype X = xd[i];                                                                 \
            zd[i] = EXPR;                                                                          \
        }                                                                                          \
    } while (0)

/* z = EXPR of X and Y (entries of x and y) for every entry. */
#define PAIRWISE(EXPR)                                                                             \
    do {                                                                                           \
        sunindextype i = 0;                                                                        \
        for (; i + 4 <= n; i += 4) {                                                               \
            quad X, Y, Z;                                                                          \
            memcpy(&X, xd + i, sizeof X);                                                          \
            memcpy(&Y, yd + i, sizeof Y);                                                          \
            Z = EXPR;                                                                              \
            memcpy(zd + i, &Z, sizeof Z);                                                          \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            sunrealtype X = xd[i], Y = yd[i];                                                      \
            zd[i] = EXPR;                                                                          \
        }                                                                                          \
    } while (0)

VECTOR_CLONES static void lin_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z)
{
    const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(x);
    if (a == 1.0 && b == 1.0) /* the predictor's Pascal sums */
        PAIRWISE(X + Y);
    else if (b == 1.0)
        PAIRWISE(a * X + Y);
    else if (a == 1.0)
        PAIRWISE(X + b * Y);
    else if (a == b)
        PAIRWISE(a * (X + Y));
    else if (a == -b)
        PAIRWISE(a * (X - Y));
    else
        PAIRWISE(a * X + b * Y);
}

VECTOR_CLONES static void scale(sunrealtype c, N_Vector x, N_Vector z)
{
    const sunrealtype *xd = NV_DATA_S(x);
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(x);
    UNARY(c * X);
}

/* The vectors a linear combination takes at once (more: the fallback order). */
#define LIN_COMB_MAX 16

VECTOR_CLONES static int lin_comb(int nvec, sunrealtype *c, N_Vector *X, N_Vector z)
{
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(z);
    int z_later = 0; /* z is one of X[1..]: it changes as the fallback goes */
    for (int k = 1; k < nvec; k++)
        z_later |= X[k] == z;
    if (z_later || nvec > LIN_COMB_MAX) { /* the fallback itself */
        scale(c[0], X[0], z);
        for (int k = 1; k < nvec; k++)
            lin_sum(c[k], X[k], 1.0, z, z);
        return 0;
    }
    /* ERKStep's stage sums (up to 7 vectors with Cash-Karp) spent half their
     * time reaching each vector's data and splatting its factor: both once */
    const sunrealtype *xd[LIN_COMB_MAX];
    for (int k = 0; k < nvec; k++)
        xd[k] = NV_DATA_S(X[k]);
    sunindextype i = 0;
    for (; i + 4 <= n; i += 4) {
        quad s, v;
        memcpy(&s, xd[0] + i, sizeof s);
        s = c[0] * s;
        for (int k = 1; k < nvec; k++) {
            memcpy(&v, xd[k] + i, sizeof v);
            s = c[k] * v + s;
        }
        memcpy(zd + i, &s, sizeof s);
    }
    for (; i < n; i++) {
        sunrealtype s = c[0] * xd[0][i];
        for (int k = 1; k < nvec; k++)
            s = c[k] * xd[k][i] + s;
        zd[i] = s;
    }
    return 0;
}

static int scale_add_multi(int nvec, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z)
{
    for (int k = 0; k < nvec; k++)
        lin_sum(a[k], x, 1.0, Y[k], Z[k]);
    return 0;
}

static sunrealtype wrms_norm(N_Vector x, N_Vector w)
{
    const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
    sunindextype n = NV_LENGTH_S(x);
    sunrealtype sum = 0.0;
    for (sunindextype i = 0; i < n; i++) {
        sunrealtype p = xd[i] * wd[i];
        sum += p * p;
    }
    sum /= (sunrealtype)n;
    return sum <= 0.0 ? 0.0 : sqrt(sum);
}

/* The error weights, every step: |x|, x + b and 1/x (cvEwtSetSS). */
static void vabs(N_Vector x, N_Vector z)
{
    const sunrealtype *xd = NV_DATA_S(x);
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(x);
    for (sunindextype i = 0; i < n; i++)
        zd[i] = fabs(xd[i]);
}

static void add_const(N_Vector x, sunrealtype b, N_Vector z)
{
    const sunrealtype *xd = NV_DATA_S(x);
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(x);
    UNARY(X + b);
}

static void inv(N_Vector x, N_Vector z)
{
    const sunrealtype *xd = NV_DATA_S(x);
    sunrealtype *zd = NV_DATA_S(z);
    sunindextype n = NV_LENGTH_S(x);
    UNARY(1.0 / X);
}

N_Vector cr_nvector_small(sunindextype n, SUNContext ctx)
{
    N_Vector v = N_VNew_Serial(n, ctx);
    if (!v)
        return NULL;
    v->ops->nvlinearsum = lin_sum;
    v->ops->nvscale = scale;
    v->ops->nvlinearcombination = lin_comb;
    v->ops->nvscaleaddmulti = scale_add_multi;
    v->ops->nvwrmsnorm = wrms_norm;
    v->ops->nvabs = vabs;
    v->ops->nvaddconst = add_const;
    v->ops->nvinv = inv;
    return v;
}
