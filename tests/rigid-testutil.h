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

/* Every episode is one instantaneous, complete impact, and there are @p want
 * of them (RIGID_SOME: at least one). */
static void check_instantaneous(const rigid_run *r, size_t want, const char *what)
{
    size_t n = r->mon ? cr_monitor_episode_count(r->mon) : 0, bad = 0;
    for (size_t k = 0; k < n; k++) {
        cr_episode_info in;
        if (cr_monitor_get_episode(r->mon, k, &in) != CR_OK || in.t_end != in.t_start ||
            !in.complete)
            bad++;
    }
    int count_ok = want == RIGID_SOME ? n > 0 : n == want;
    char wanted[32] = "some";
    if (want != RIGID_SOME)
        snprintf(wanted, sizeof wanted, "%zu", want);
    CHECK(count_ok && bad == 0, "%s: %zu episodes (want %s), %zu not instantaneous and complete",
          what, n, wanted, bad);
}

/* The model is refused with one line naming @p want. */
static void expect_refused(const cr_model *model, cr_law_id law, const cr_law_params *p,
                           const char *want, const char *what)
{
    char msg[512] = "";
    cr_system *sys = cr_system_create_rigid(model, law, p, msg, sizeof msg);
    CHECK(!sys && strstr(msg, want) && !strchr(msg, '\n'), "%s refused naming '%s': %s", what, want,
          msg);
    cr_system_destroy(sys);
}

#endif
