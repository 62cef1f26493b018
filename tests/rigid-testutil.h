/* What the rigid-engine tests share (test-rigid.c on chains, test-rigid-pool.c
 * on pools): a rigid system with its monitor run to a given time, the check
 * that every impact is one instantaneous, complete episode, and the check of a
 * refusal. Include after testutil.h and cradle/cradle.h. */
#ifndef CRADLE_RIGID_TESTUTIL_H
#define CRADLE_RIGID_TESTUTIL_H

#include <string.h>

typedef struct {
    cr_system *sys;
    cr_monitor *mon;
    int rc;
} rigid_run;

static rigid_run run_rigid_to(const cr_model *model, cr_law_id law, const cr_law_params *p,
                              double t_end)
{
    rigid_run r = {NULL, NULL, CR_ERR_INVALID};
    char msg[512];
    r.sys = cr_system_create_rigid(model, law, p, msg, sizeof msg);
    if (!r.sys) {
        printf("create failed: %s\n", msg);
        return r;
    }
    r.mon = cr_monitor_create(r.sys);
    r.rc = cr_system_run(r.sys, t_end);
    if (r.rc != CR_OK)
        printf("run failed: %s\n", cr_system_last_error(r.sys));
    cr_monitor_finish(r.mon);
    return r;
}

static void run_free(rigid_run *r)
{
    cr_monitor_destroy(r->mon);
    cr_system_destroy(r->sys);
}

/* check_instantaneous's count for "at least one episode". */
#define RIGID_SOME ((size_t)-1)

/* Every episode of @p r is one instantaneous, complete impact, and there are
 * @p want of them (RIGID_SOME: at least one): 1 when so; the count in *n, the
 * others in *bad. */
static int instantaneous_(const rigid_run *r, size_t want, size_t *n, size_t *bad)
{
    *n = r->mon ? cr_monitor_episode_count(r->mon) : 0;
    *bad = 0;
    for (size_t k = 0; k < *n; k++) {
        cr_episode_info in;
        if (cr_monitor_get_episode(r->mon, k, &in) != CR_OK || in.t_end != in.t_start ||
            !in.complete)
            (*bad)++;
    }
    return (want == RIGID_SOME ? *n > 0 : *n == want) && *bad == 0;
}

/* The check of instantaneous_, at the caller's line (a macro: each use is its
 * own check site). */
#define check_instantaneous(r, want, what)                                                         \
    do {                                                                                           \
        size_t n_, bad_, want_ = (want);                                                           \
        int ok_ = instantaneous_(r, want_, &n_, &bad_);                                            \
        CHECK(ok_, "%s: %zu episodes (want %zu, %zu: some), %zu not instantaneous and complete",   \
              what, n_, want_, RIGID_SOME, bad_);                                                  \
    } while (0)

/* The model is refused with one line naming @p want (at the caller's line). */
#define expect_refused(model, law, p, want, what)                                                  \
    do {                                                                                           \
        char msg_[512] = "";                                                                       \
        cr_system *sys_ = cr_system_create_rigid(model, law, p, msg_, sizeof msg_);                \
        CHECK(!sys_ && strstr(msg_, want) && !strchr(msg_, '\n'), "%s refused naming '%s': %s",    \
              what, want, msg_);                                                                   \
        cr_system_destroy(sys_);                                                                   \
    } while (0)

#endif
