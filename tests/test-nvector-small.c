/*
 * The chain engine's lean N_Vector (src/engines/common/nvector-small.c) against SUNDIALS'
 * serial vector, the reference implementation it replaces: every operation it
 * overrides must give bit-identical results (docs/performance.md, "Small
 * systems: per-step cost"), for the factors the serial vector treats as
 * special cases (±1, a = ±b, 0) and for every aliasing CVODES uses (z = x,
 * z = y, the linear combination's z among its inputs). A reassociated sum or a
 * fused multiply-add would change results silently; this test sees it.
 */
#include <stdint.h>
#include <string.h>

#include "src/engines/common/nvector-small.h"
#include "testutil.h"

#define NVEC 8

static uint64_t seed = 12345;

/* Deterministic values over 12 decades, both signs, some exact zeros. */
static double value(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(seed >> 11) / 9007199254740992.0;
    if (u < 0.05)
        return 0.0;
    return (u < 0.5 ? -1.0 : 1.0) * pow(10.0, 12.0 * u - 6.0) * (1.0 + u);
}

typedef struct {
    N_Vector ref[NVEC + 2], lean[NVEC + 2]; /* the same values in each */
    sunindextype n;
} pairs;

static void fill(pairs *p)
{
    for (int k = 0; k < NVEC + 2; k++)
        for (sunindextype i = 0; i < p->n; i++)
            NV_Ith_S(p->ref[k], i) = NV_Ith_S(p->lean[k], i) = value();
}

/* Vectors k of both families hold the same bits. */
static int same(const pairs *p, int k)
{
    return memcmp(NV_DATA_S(p->ref[k]), NV_DATA_S(p->lean[k]), (size_t)p->n * sizeof(double)) == 0;
}

static const double factors[] = {1.0, -1.0, 0.0, 0.5, -0.5, 2.3, -2.3, 1e-300};
#define NF ((int)(sizeof factors / sizeof factors[0]))

/* z = a x + b y for every pair of factors, z separate, z = x and z = y. */
static int linear_sums(pairs *p)
{
    int bad = 0;
    for (int i = 0; i < NF; i++)
        for (int j = 0; j < NF; j++)
            for (int alias = 0; alias < 3; alias++) {
                fill(p);
                int z = alias == 0 ? 2 : alias - 1;
                N_VLinearSum(factors[i], p->ref[0], factors[j], p->ref[1], p->ref[z]);
                N_VLinearSum(factors[i], p->lean[0], factors[j], p->lean[1], p->lean[z]);
                bad += !same(p, z);
            }
    return bad;
}

static int scalings(pairs *p)
{
    int bad = 0;
    for (int i = 0; i < NF; i++)
        for (int z = 0; z < 2; z++) {
            fill(p);
            N_VScale(factors[i], p->ref[0], p->ref[z]);
            N_VScale(factors[i], p->lean[0], p->lean[z]);
            bad += !same(p, z);
        }
    return bad;
}

/* z = Σ c_k X_k, z separate, z = X_0 (CVodeGetDky) and z = X_2. */
static int combinations(pairs *p)
{
    int bad = 0;
    for (int nvec = 1; nvec <= NVEC; nvec++)
        for (int alias = 0; alias < 3; alias++) {
            fill(p);
            double c[NVEC];
            for (int k = 0; k < nvec; k++)
                c[k] = factors[(k + nvec) % NF];
            int z = alias == 0 ? NVEC : (alias == 1 ? 0 : 2);
            N_VLinearCombination(nvec, c, p->ref, p->ref[z]);
            N_VLinearCombination(nvec, c, p->lean, p->lean[z]);
            bad += !same(p, z);
        }
    return bad;
}

/* Z_k = a_k x + Y_k, Z separate and Z = Y (cvCompleteStep). */
static int scale_adds(pairs *p)
{
    int bad = 0;
    for (int nvec = 1; nvec <= NVEC / 2; nvec++)
        for (int alias = 0; alias < 2; alias++) {
            fill(p);
            double a[NVEC];
            for (int k = 0; k < nvec; k++)
                a[k] = factors[(3 * k + nvec) % NF];
            int zo = alias ? 1 : 1 + nvec;
            N_VScaleAddMulti(nvec, a, p->ref[0], p->ref + 1, p->ref + zo);
            N_VScaleAddMulti(nvec, a, p->lean[0], p->lean + 1, p->lean + zo);
            for (int k = 0; k < nvec; k++)
                bad += !same(p, zo + k);
        }
    return bad;
}

/* The error weights (cvEwtSetSS) and the WRMS norm. */
static int weights(pairs *p)
{
    int bad = 0;
    for (int z = 0; z < 2; z++) {
        fill(p);
        N_VAbs(p->ref[0], p->ref[z]);
        N_VAbs(p->lean[0], p->lean[z]);
        bad += !same(p, z);
        N_VAddConst(p->ref[z], 1e-9, p->ref[z]);
        N_VAddConst(p->lean[z], 1e-9, p->lean[z]);
        bad += !same(p, z);
        N_VInv(p->ref[z], p->ref[1 - z]);
        N_VInv(p->lean[z], p->lean[1 - z]);
        bad += !same(p, 1 - z);
        double r = N_VWrmsNorm(p->ref[2], p->ref[1 - z]);
        double l = N_VWrmsNorm(p->lean[2], p->lean[1 - z]);
        bad += memcmp(&r, &l, sizeof r) != 0;
    }
    return bad;
}

int main(void)
{
    SUNContext ctx;
    if (SUNContext_Create(NULL, &ctx) != 0)
        return 1;
    int ok = 1;
    /* odd and even lengths (the pairwise loops' tail), a 3-, 5-ball window and
     * its impulse states (14 + 5) */
    static const sunindextype lengths[] = {1, 2, 3, 5, 8, 14, 19};
    for (size_t m = 0; m < sizeof lengths / sizeof lengths[0]; m++) {
        sunindextype n = lengths[m];
        pairs p = {.n = n};
        for (int k = 0; k < NVEC + 2; k++) {
            p.ref[k] = N_VNew_Serial(n, ctx);
            p.lean[k] = cr_nvector_small(n, ctx);
            ok &= p.ref[k] && p.lean[k];
        }
        if (!ok)
            break;
        tu_case("n = %ld", (long)n);
        /* the lean vector replaces them: otherwise the test compares like with like */
        CHECK(p.lean[0]->ops->nvlinearsum != p.ref[0]->ops->nvlinearsum &&
                  p.lean[0]->ops->nvlinearcombination != NULL &&
                  p.ref[0]->ops->nvlinearcombination == NULL,
              "n = %ld: the lean operations are installed, the reference uses the generic fallback",
              (long)n);
        CHECK_REF(linear_sums(&p) == 0, "n = %ld: linear sums bit-identical [serial vector]",
                  (long)n);
        CHECK_REF(scalings(&p) == 0, "n = %ld: scalings bit-identical [serial vector]", (long)n);
        CHECK_REF(combinations(&p) == 0,
                  "n = %ld: linear combinations bit-identical [serial vector]", (long)n);
        CHECK_REF(scale_adds(&p) == 0, "n = %ld: scale-add-multi bit-identical [serial vector]",
                  (long)n);
        CHECK_REF(weights(&p) == 0,
                  "n = %ld: |x|, x + b, 1/x, WRMS norm bit-identical [serial vector]", (long)n);
        /* clones (CVODES' Nordsieck array, work vectors) keep the operations */
        N_Vector c = N_VClone(p.lean[0]);
        CHECK(c && c->ops->nvlinearsum == p.lean[0]->ops->nvlinearsum, "n = %ld: clones inherit",
              (long)n);
        N_VDestroy(c);
        for (int k = 0; k < NVEC + 2; k++) {
            N_VDestroy(p.ref[k]);
            N_VDestroy(p.lean[k]);
        }
    }
    tu_case(NULL);
    CHECK(ok, "vectors allocated");
    SUNContext_Free(&ctx);
    return tu_finish("test-nvector-small");
}
