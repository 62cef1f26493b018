/*
 * Test macros of our own (GSL's gsl_test_rel style), so that -Db_ndebug=true
 * cannot silence them. Every numerical check names its reference.
 */
#ifndef CRADLE_TESTUTIL_H
#define CRADLE_TESTUTIL_H

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>

static int tu_passed, tu_failed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            tu_passed++;                                                                           \
        } else {                                                                                   \
            tu_failed++;                                                                           \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

/* |actual − expected| ≤ tol·|expected| (absolute when expected = 0); `ref` names the source. */
#define CHECK_REL(actual, expected, tol, ref)                                                      \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                         \
        double err_ = e_ != 0.0 ? fabs(a_ - e_) / fabs(e_) : fabs(a_);                             \
        if (err_ <= t_ && isfinite(a_)) {                                                          \
            tu_passed++;                                                                           \
            printf("ok   %-44s %.12g vs %.12g (rel err %.2e <= %.0e) [%s]\n", #actual, a_, e_,     \
                   err_, t_, ref);                                                                 \
        } else {                                                                                   \
            tu_failed++;                                                                           \
            printf("FAIL %s:%d: %s = %.15g, expected %.15g (rel err %.3e > %.1e) [%s]\n",          \
                   __FILE__, __LINE__, #actual, a_, e_, err_, t_, ref);                            \
        }                                                                                          \
    } while (0)

static inline int tu_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
    return tu_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#ifdef CRADLE_SYSTEM_H
/* A system of @p model; a test that cannot build one stops here (a line
 * saying why, exit status 1). */
static inline cr_system *tu_system(const cr_model *model)
{
    char msg[512];
    cr_system *s = cr_system_create(model, msg, sizeof msg);
    if (!s) {
        printf("FAIL: cr_system_create: %s\n", msg);
        exit(1);
    }
    return s;
}
#endif

#if defined(CR_TEST_DATA) && defined(CRADLE_MODELFILE_H)
/* A model file of models/, calibrated as `cradle run` does; NULL (and a line
 * saying why) when it cannot be read. For tests that include
 * cradle/modelfile.h (through cradle/cradle.h) before this header. */
static inline cr_model *tu_load_model(const char *name)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/../../models/%s", CR_TEST_DATA, name);
    cr_model *m = NULL;
    if (cr_modelfile_load(path, &m, NULL, msg, sizeof msg) != CR_OK ||
        cr_calibrate_model(m, msg, sizeof msg) != CR_OK) {
        printf("cannot load %s: %s\n", path, msg);
        return NULL;
    }
    return m;
}
#endif

#endif
