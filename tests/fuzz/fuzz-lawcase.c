/*
 * libFuzzer target: the law-case reader on arbitrary bytes, then every law on
 * each small case it accepts. Beyond "no crash, no leak, no hang" (ASan, UBSan,
 * LSan, -timeout) it asserts two promises: a refusal is one line naming the
 * file, and a law never answers "ok" (or any verdict with outcomes other than a
 * failure) with a non-finite u+ or P.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Cases up to this many dofs are also solved: the law core is O(n³), and
 * libFuzzer's throughput is what finds bugs. */
#define SOLVE_MAX_DOFS 24

static void check_finite(const cr_law_result *r, size_t n, size_t m)
{
    cr_law_status st = cr_law_result_status(r);
    if (st == CR_LAW_SOLVER_FAILED || st == CR_LAW_TOO_LARGE || st == CR_LAW_INFEASIBLE)
        return;
    for (size_t k = 0; k < cr_law_result_outcome_count(r); k++) {
        const double *u = cr_law_result_velocity(r, k), *P = cr_law_result_impulse(r, k);
        for (size_t i = 0; i < n; i++)
            if (!isfinite(u[i]))
                abort();
        for (size_t i = 0; i < m; i++)
            if (!isfinite(P[i]))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[1024];
    cr_lawcase *lc = NULL;
    msg[0] = '\0';
    int rc = cr_lawcase_parse((const char *)data, size, "fuzz.yaml", &lc, msg, sizeof msg);
    if (rc != CR_OK) {
        if (strncmp(msg, "fuzz.yaml", 9) != 0 || strchr(msg, '\n'))
            abort(); /* a refusal that does not name the file on one line */
        return 0;
    }
    cr_impact *imp = cr_lawcase_impact(lc);
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    if (n <= SOLVE_MAX_DOFS) {
        cr_law_result *r = cr_law_result_create();
        for (int law = 0; r && law < CR_LAW_COUNT; law++) {
            if (cr_law_solve(imp, (cr_law_id)law, cr_lawcase_params(lc), r) == CR_OK)
                check_finite(r, n, m);
        }
        cr_law_result_destroy(r);
    }
    cr_lawcase_destroy(lc);
    return 0;
}
