/*
 * Test macros of our own (GSL's gsl_test_rel style), so that -Db_ndebug=true
 * cannot silence them. Every numerical check names its reference.
 *
 * Counting (issue 20, "Honest test count"): a check is a check site
 * (__FILE__:__LINE__) together with the case label set by tu_case(). The
 * total is the number of distinct (site, label) pairs: a check inside a loop
 * over labelled cases (laws × cases, engines × cases) counts once per case,
 * the same assertion repeated on the same object (no new label) counts once.
 * A pair that failed at any pass counts as failed, once. Raw passes are
 * reported on their own line, never as the total.
 *
 * Each check site has a class, from its macro:
 *   reference         CHECK_REF, CHECK_REL: against a number found independently
 *                     of the code under test — a closed form, a paper's equation
 *                     or table, an integration by another method written in the
 *                     test;
 *   invariant         CHECK_INV, CHECK_REL_INV: a conservation law or balance
 *                     (momentum, energy, M(u⁺ − u⁻) = W P, symmetry);
 *   self-consistency  CHECK_SELF, CHECK_REL_SELF: cradle against cradle (another
 *                     engine, setting, tolerance, code path, or its own file);
 *   behaviour         CHECK: return codes, statuses, messages, counts, files.
 */
#ifndef CRADLE_TESTUTIL_H
#define CRADLE_TESTUTIL_H

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TU_PRINTF(a, b)
#endif

/* Raw passes and failures (every evaluation of a check). */
static int tu_passed, tu_failed;

typedef enum { TU_BEHAVIOUR, TU_REFERENCE, TU_INVARIANT, TU_SELF, TU_NCLASS } tu_class;

/* One distinct (site, label) pair. */
typedef struct {
    const char *file, *label;
    int line;
    unsigned char cls, failed, used;
} tu_pair;

static struct {
    tu_pair *slot; /* open addressing, power-of-two size */
    size_t cap, count;
    char **labels; /* interned labels, kept reachable until exit */
    size_t nlabels, labcap;
    const char *label; /* the current case: "" or one of labels */
} tu_set;

static inline size_t tu_hash_(const char *file, int line, const char *label)
{
    size_t h = 1469598103934665603u;
    for (const char *p = file; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    h = (h ^ (size_t)line) * 1099511628211u;
    for (const char *p = label; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    return h;
}

static inline tu_pair *tu_find_(tu_pair *slot, size_t cap, const char *file, int line,
                                const char *label)
{
    size_t i = tu_hash_(file, line, label) & (cap - 1);
    while (slot[i].used && !(slot[i].line == line && strcmp(slot[i].file, file) == 0 &&
                             strcmp(slot[i].label, label) == 0))
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

/* Records one evaluation of a check; returns @p ok. A test that cannot grow
 * its table stops here (the count would be wrong). */
static inline int tu_record(const char *file, int line, tu_class cls, int ok)
{
    if (ok)
        tu_passed++;
    else
        tu_failed++;
    if (2 * (tu_set.count + 1) > tu_set.cap) {
        size_t cap = tu_set.cap ? 2 * tu_set.cap : 1024;
        tu_pair *slot = calloc(cap, sizeof *slot);
        if (!slot) {
            printf("FAIL testutil: out of memory counting checks\n");
            exit(1);
        }
        for (size_t i = 0; i < tu_set.cap; i++)
            if (tu_set.slot[i].used)
                *tu_find_(slot, cap, tu_set.slot[i].file, tu_set.slot[i].line,
                          tu_set.slot[i].label) = tu_set.slot[i];
        free(tu_set.slot);
        tu_set.slot = slot;
        tu_set.cap = cap;
    }
    const char *label = tu_set.label ? tu_set.label : "";
    tu_pair *p = tu_find_(tu_set.slot, tu_set.cap, file, line, label);
    if (!p->used) {
        *p = (tu_pair){file, label, line, (unsigned char)cls, 0, 1};
        tu_set.count++;
    }
    if (!ok)
        p->failed = 1;
    return ok;
}

/* Sets the case label of the checks that follow (printf format); "" or NULL:
 * no case. A loop over named cases (laws × cases, engines × models) sets one
 * per case, so that a check inside it counts once per case. */
static inline TU_PRINTF(1, 2) void tu_case(const char *fmt, ...)
{
    char buf[256];
    if (!fmt || !*fmt) {
        tu_set.label = "";
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < tu_set.nlabels; i++)
        if (strcmp(tu_set.labels[i], buf) == 0) {
            tu_set.label = tu_set.labels[i];
            return;
        }
    if (tu_set.nlabels == tu_set.labcap) {
        size_t cap = tu_set.labcap ? 2 * tu_set.labcap : 64;
        char **l = realloc(tu_set.labels, cap * sizeof *l);
        if (!l) {
            printf("FAIL testutil: out of memory for case labels\n");
            exit(1);
        }
        tu_set.labels = l;
        tu_set.labcap = cap;
    }
    char *copy = malloc(strlen(buf) + 1);
    if (!copy) {
        printf("FAIL testutil: out of memory for case labels\n");
        exit(1);
    }
    strcpy(copy, buf);
    tu_set.labels[tu_set.nlabels++] = copy;
    tu_set.label = copy;
}

#define TU_CHECK_(cls, cond, ...)                                                                  \
    do {                                                                                           \
        if (!tu_record(__FILE__, __LINE__, cls, (cond) ? 1 : 0)) {                                 \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

/* Behaviour: codes, statuses, messages, counts. */
#define CHECK(cond, ...) TU_CHECK_(TU_BEHAVIOUR, cond, __VA_ARGS__)
/* A numerical condition against an independent reference (named in the message). */
#define CHECK_REF(cond, ...) TU_CHECK_(TU_REFERENCE, cond, __VA_ARGS__)
/* A numerical condition that is a conservation law or balance. */
#define CHECK_INV(cond, ...) TU_CHECK_(TU_INVARIANT, cond, __VA_ARGS__)
/* A numerical condition comparing cradle with cradle. */
#define CHECK_SELF(cond, ...) TU_CHECK_(TU_SELF, cond, __VA_ARGS__)

#define TU_CHECK_REL_(cls, actual, expected, tol, ref)                                             \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                         \
        double err_ = e_ != 0.0 ? fabs(a_ - e_) / fabs(e_) : fabs(a_);                             \
        if (tu_record(__FILE__, __LINE__, cls, err_ <= t_ && isfinite(a_))) {                      \
            printf("ok   %-44s %.12g vs %.12g (rel err %.2e <= %.0e) [%s]\n", #actual, a_, e_,     \
                   err_, t_, ref);                                                                 \
        } else {                                                                                   \
            printf("FAIL %s:%d: %s = %.15g, expected %.15g (rel err %.3e > %.1e) [%s]\n",          \
                   __FILE__, __LINE__, #actual, a_, e_, err_, t_, ref);                            \
        }                                                                                          \
    } while (0)

/* |actual − expected| ≤ tol·|expected| (absolute when expected = 0); `ref` names the
 * independent source of `expected`. */
#define CHECK_REL(actual, expected, tol, ref)                                                      \
    TU_CHECK_REL_(TU_REFERENCE, actual, expected, tol, ref)
/* The same for a conservation law or balance. */
#define CHECK_REL_INV(actual, expected, tol, what)                                                 \
    TU_CHECK_REL_(TU_INVARIANT, actual, expected, tol, what)
/* The same for cradle against cradle. */
#define CHECK_REL_SELF(actual, expected, tol, what)                                                \
    TU_CHECK_REL_(TU_SELF, actual, expected, tol, what)

/* A summary line of the checks since @p f0 (tu_failed then): "ok   " only when none
 * of them failed, else "(failed above) ". */
static inline TU_PRINTF(2, 3) void tu_summary(int f0, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf(tu_failed == f0 ? "ok   " : "(failed above) ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* Prints "NAME: N passed, N failed" (N: distinct checks, what tools/test.sh adds
 * up) and "NAME: classes ...; passes N" (distinct checks per class, raw passes). */
static inline int tu_finish(const char *name)
{
    static const char *const cls[TU_NCLASS] = {"behaviour", "reference", "invariant",
                                               "self-consistency"};
    size_t per[TU_NCLASS] = {0}, failed = 0;
    const char *list = getenv("TU_LIST"); /* TU_LIST=1: every pair, for a reading */
    for (size_t i = 0; i < tu_set.cap; i++)
        if (tu_set.slot[i].used) {
            per[tu_set.slot[i].cls]++;
            failed += tu_set.slot[i].failed;
            if (list && *list)
                printf("pair %s:%d [%s] %s%s\n", tu_set.slot[i].file, tu_set.slot[i].line,
                       tu_set.slot[i].label, cls[tu_set.slot[i].cls],
                       tu_set.slot[i].failed ? " FAILED" : "");
        }
    printf("%s: %zu passed, %zu failed\n", name, tu_set.count - failed, failed);
    printf("%s: classes reference %zu, invariant %zu, self-consistency %zu, behaviour %zu; "
           "passes %d\n",
           name, per[TU_REFERENCE], per[TU_INVARIANT], per[TU_SELF], per[TU_BEHAVIOUR], tu_passed);
    free(tu_set.slot);
    tu_set.slot = NULL;
    tu_set.cap = tu_set.count = 0;
    for (size_t i = 0; i < tu_set.nlabels; i++)
        free(tu_set.labels[i]);
    free(tu_set.labels);
    tu_set.labels = NULL;
    tu_set.nlabels = tu_set.labcap = 0;
    tu_set.label = "";
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
